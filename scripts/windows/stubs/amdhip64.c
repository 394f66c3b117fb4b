/* Stand-in for the HIP runtime DLL (amdhip64.dll, amdhip64_6.dll,
 * amdhip64_7.dll). Built once per SDK with that SDK's HIP_VERSION number
 * (STUB_HIP_VERSION, major * 10000000 + minor * 100000 + patch), and linked
 * against the COMGR stub of that SDK, as the real runtime is. It answers
 * what hip-sys's loader and hip-diagnostics ask of a machine without a
 * GPU: its version, and no device (hipErrorNoDevice, 100). */
#include <stddef.h>

typedef int hipError_t;
enum { hipSuccess = 0, hipErrorInvalidValue = 1, hipErrorNoDevice = 100 };

int amd_comgr_get_version(size_t *major, size_t *minor);

#define EXPORT __declspec(dllexport)

EXPORT hipError_t hipRuntimeGetVersion(int *version)
{
    if (!version) return hipErrorInvalidValue;
    *version = STUB_HIP_VERSION;
    return hipSuccess;
}

EXPORT hipError_t hipDriverGetVersion(int *version)
{
    if (!version) return hipErrorInvalidValue;
    *version = STUB_HIP_VERSION;
    return hipSuccess;
}

EXPORT hipError_t hipInit(unsigned int flags)
{
    (void)flags;
    return hipErrorNoDevice;
}

EXPORT hipError_t hipGetDeviceCount(int *count)
{
    if (!count) return hipErrorInvalidValue;
    *count = 0;
    return hipErrorNoDevice;
}

EXPORT const char *hipGetErrorName(hipError_t e)
{
    switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    default: return "hipErrorUnknown";
    }
}

EXPORT const char *hipGetErrorString(hipError_t e)
{
    switch (e) {
    case hipSuccess: return "no error";
    case hipErrorInvalidValue: return "invalid argument";
    case hipErrorNoDevice: return "no ROCm-capable device is detected";
    default: return "unknown error";
    }
}

/* The COMGR major version this runtime was linked against: the call that
 * makes the COMGR import part of this DLL's import table. */
EXPORT int hipStubComgrMajor(void)
{
    size_t major = 0, minor = 0;
    amd_comgr_get_version(&major, &minor);
    return (int)major;
}
