//! Tier 1: CUDA's signatures. Each wrapper is assigned to a function-pointer
//! type spelled as CUDA declares the function (from the CUDA 12.9 headers),
//! so this file compiles only if code written for CUDA's signatures compiles
//! unchanged: the checks are `const` items, done by the compiler; nothing of
//! them runs. The tests below check what only runs: constants and layouts. Types that differ from HIP's only by ABI (`CUdeviceptr` is a
//! `u64`, HIP takes a pointer) are the interesting ones.

use cuda_compat::cublas::*;
use cuda_compat::driver::*;
use cuda_compat::nvrtc::*;
use cuda_compat::runtime::*;
use std::ffi::{c_char, c_int, c_uint, c_void};

/// Driver API.
const _: () = {
    // CUdeviceptr is CUDA's `unsigned long long`.
    const _: CUdeviceptr = 0u64;
    const _: unsafe fn(*mut CUdeviceptr, usize) -> CUresult = cuMemAlloc;
    const _: unsafe fn(CUdeviceptr, *const c_void, usize) -> CUresult = cuMemcpyHtoD;
    const _: unsafe fn(*mut c_void, CUdeviceptr, usize) -> CUresult = cuMemcpyDtoH;
    const _: unsafe fn(CUdeviceptr) -> CUresult = cuMemFree;
    const _: unsafe fn(*mut CUmodule, *const c_void) -> CUresult = cuModuleLoadData;
    const _: unsafe fn(
        *mut CUmodule,
        *const c_void,
        c_uint,
        *mut CUjit_option,
        *mut *mut c_void,
    ) -> CUresult = cuModuleLoadDataEx;
    const _: unsafe fn(*mut CUfunction, CUmodule, *const c_char) -> CUresult = cuModuleGetFunction;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        CUfunction,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        CUstream,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> CUresult = cuLaunchKernel;
    const _: unsafe fn(*mut c_int, CUdevice_attribute, CUdevice) -> CUresult = cuDeviceGetAttribute;
    const _: unsafe fn(c_uint) -> CUresult = cuInit;
    const _: unsafe fn(CUresult, *mut *const c_char) -> CUresult = cuGetErrorName;
    const _: unsafe fn(*mut CUdeviceptr, *mut usize, CUdeviceptr) -> CUresult =
        cuMemGetAddressRange;
    const _: unsafe fn() -> CUresult = cuCtxSynchronize;
};

/// Runtime API.
const _: () = {
    const _: unsafe fn(*mut *mut c_void, usize) -> cudaError_t = cudaMalloc;
    const _: unsafe fn(*mut c_void, *const c_void, usize, cudaMemcpyKind) -> cudaError_t =
        cudaMemcpy;
    const _: unsafe fn(*mut cudaDeviceProp, c_int) -> cudaError_t = cudaGetDeviceProperties;
    const _: unsafe fn(*mut c_int, cudaDeviceAttr, c_int) -> cudaError_t = cudaDeviceGetAttribute;
    const _: unsafe fn(*mut *mut c_void, usize) -> cudaError_t = cudaMallocHost;
    const _: unsafe fn(cudaError_t) -> *const c_char = cudaGetErrorString;
    const _: unsafe fn(*mut cudaStream_t, c_uint) -> cudaError_t = cudaStreamCreateWithFlags;
    const _: unsafe fn(*mut cudaFuncCache) -> cudaError_t = cudaDeviceGetCacheConfig;
};

#[test]
fn runtime_constants_are_cudas() {
    // The stream constants CUDA defines as casts.
    assert_eq!(cudaStreamPerThread as usize, 2);
    assert_eq!(cudaStreamLegacy as usize, 1);
    assert_eq!(cudaCpuDeviceId, -1);
}

/// nvrtc and cuBLAS.
const _: () = {
    const _: unsafe fn(nvrtcProgram, c_int, *const *const c_char) -> nvrtcResult =
        nvrtcCompileProgram;
    const _: unsafe fn(nvrtcProgram, *mut usize) -> nvrtcResult = nvrtcGetPTXSize;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cublasHandle_t,
        cublasOperation_t,
        cublasOperation_t,
        c_int,
        c_int,
        c_int,
        *const f32,
        *const f32,
        c_int,
        *const f32,
        c_int,
        *const f32,
        *mut f32,
        c_int,
    ) -> cublasStatus_t = cublasSgemm_v2;
    // cuComplex (CUDA's float2) goes to hipBLAS's v2 form, which takes it.
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cublasHandle_t,
        cublasOperation_t,
        cublasOperation_t,
        c_int,
        c_int,
        c_int,
        *const cuComplex,
        *const cuComplex,
        c_int,
        *const cuComplex,
        c_int,
        *const cuComplex,
        *mut cuComplex,
        c_int,
    ) -> cublasStatus_t = cublasCgemm_v2;
    const _: unsafe fn(*mut cublasHandle_t) -> cublasStatus_t = cublasCreate_v2;
    const _: unsafe fn(cublasHandle_t, cudaStream_t) -> cublasStatus_t = cublasSetStream_v2;
};

#[test]
fn cublas_complex_types_have_cudas_layout() {
    // cuComplex and cuDoubleComplex have CUDA's layout: two values, aligned
    // to their size (`__align__(8)` / `__align__(16)` in cuComplex.h), as
    // HIP's C++ float2/double2 are (hip-sys raises the C header's alignment).
    assert_eq!(size_of::<cuComplex>(), 2 * size_of::<f32>());
    assert_eq!(align_of::<cuComplex>(), 8);
    assert_eq!(size_of::<cuDoubleComplex>(), 2 * size_of::<f64>());
    assert_eq!(align_of::<cuDoubleComplex>(), 16);
}
