/* Stand-in for AMD's code object manager (COMGR) DLL, under the names the
 * HIP SDK for Windows gives it (see build-stubs.sh). It exports the one
 * call the runtime stub imports, so that the runtime's import of this DLL
 * is real: delete this file and LoadLibraryExW of the runtime fails with
 * "module not found", as it does with AMD's own files. */
#include <stddef.h>

__declspec(dllexport) int amd_comgr_get_version(size_t *major, size_t *minor)
{
    if (major) *major = STUB_COMGR_MAJOR;
    if (minor) *minor = STUB_COMGR_MINOR;
    return 0;
}
