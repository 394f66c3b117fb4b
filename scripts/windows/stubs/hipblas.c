/* Stand-in for hipblas.dll, linked against the rocBLAS stub. hipblasCreate
 * fails as hipBLAS does without a device (HIPBLAS_STATUS_NOT_INITIALIZED,
 * 1); built with STUB_HIPBLAS_V2 it also exports hipblasGemmEx_v2, as
 * hipBLAS 2.x (ROCm 6.x) does, which is what hipblas-sys's loader reads to
 * choose the GemmEx ABI when the file name carries no version. */
#include <stddef.h>
#define EXPORT __declspec(dllexport)

int rocblas_get_version_string_size(size_t *len);

EXPORT int hipblasCreate(void **handle)
{
    size_t len = 0;
    if (handle) *handle = 0;
    rocblas_get_version_string_size(&len);
    return 1;
}

EXPORT int hipblasDestroy(void *handle)
{
    return handle ? 0 : 1;
}

EXPORT int hipblasGemmEx(void)
{
    return 1;
}

#ifdef STUB_HIPBLAS_V2
EXPORT int hipblasGemmEx_v2(void)
{
    return 1;
}
#endif
