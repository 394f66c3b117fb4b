/* Stand-in for rocblas.dll: its version string, the one call the hipBLAS
 * stub imports (so hipblas.dll needs rocblas.dll beside it, as AMD's does). */
#include <string.h>
#define EXPORT __declspec(dllexport)

EXPORT int rocblas_get_version_string_size(size_t *len)
{
    if (!len) return 3; /* rocblas_status_invalid_pointer */
    *len = strlen(STUB_ROCBLAS_VERSION) + 1;
    return 0;
}

EXPORT int rocblas_get_version_string(char *buf, size_t len)
{
    if (!buf || len < strlen(STUB_ROCBLAS_VERSION) + 1) return 3;
    strcpy(buf, STUB_ROCBLAS_VERSION);
    return 0;
}
