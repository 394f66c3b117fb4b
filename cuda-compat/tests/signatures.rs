//! Tier 1: CUDA's signatures. Each wrapper is assigned to a function-pointer
//! type spelled as CUDA declares the function (from the CUDA 12.9 headers),
//! so these compile only if code written for CUDA's signatures compiles
//! unchanged. Types that differ from HIP's only by ABI (`CUdeviceptr` is a
//! `u64`, HIP takes a pointer) are the interesting ones.

use cuda_compat::cublas::*;
use cuda_compat::driver::*;
use cuda_compat::nvrtc::*;
use cuda_compat::runtime::*;
use std::ffi::{c_char, c_int, c_uint, c_void};

#[test]
fn driver_signatures_are_cudas() {
    // CUdeviceptr is CUDA's `unsigned long long`.
    let _: CUdeviceptr = 0u64;
    let f: unsafe fn(*mut CUdeviceptr, usize) -> CUresult = cuMemAlloc;
    let g: unsafe fn(CUdeviceptr, *const c_void, usize) -> CUresult = cuMemcpyHtoD;
    let h: unsafe fn(*mut c_void, CUdeviceptr, usize) -> CUresult = cuMemcpyDtoH;
    let i: unsafe fn(CUdeviceptr) -> CUresult = cuMemFree;
    let j: unsafe fn(*mut CUmodule, *const c_void) -> CUresult = cuModuleLoadData;
    let k: unsafe fn(
        *mut CUmodule,
        *const c_void,
        c_uint,
        *mut CUjit_option,
        *mut *mut c_void,
    ) -> CUresult = cuModuleLoadDataEx;
    let l: unsafe fn(*mut CUfunction, CUmodule, *const c_char) -> CUresult = cuModuleGetFunction;
    #[allow(clippy::type_complexity)]
    let m: unsafe fn(
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
    let n: unsafe fn(*mut c_int, CUdevice_attribute, CUdevice) -> CUresult = cuDeviceGetAttribute;
    let o: unsafe fn(c_uint) -> CUresult = cuInit;
    let p: unsafe fn(CUresult, *mut *const c_char) -> CUresult = cuGetErrorName;
    let q: unsafe fn(*mut CUdeviceptr, *mut usize, CUdeviceptr) -> CUresult = cuMemGetAddressRange;
    let fns: [*const (); 13] = [
        f as *const (),
        g as *const (),
        h as *const (),
        i as *const (),
        j as *const (),
        k as *const (),
        l as *const (),
        m as *const (),
        n as *const (),
        o as *const (),
        p as *const (),
        q as *const (),
        cuCtxSynchronize as *const (),
    ];
    assert!(fns.iter().all(|p| !p.is_null()));
}

#[test]
fn runtime_signatures_are_cudas() {
    let a: unsafe fn(*mut *mut c_void, usize) -> cudaError_t = cudaMalloc;
    let b: unsafe fn(*mut c_void, *const c_void, usize, cudaMemcpyKind) -> cudaError_t = cudaMemcpy;
    let c: unsafe fn(*mut cudaDeviceProp, c_int) -> cudaError_t = cudaGetDeviceProperties;
    let d: unsafe fn(*mut c_int, cudaDeviceAttr, c_int) -> cudaError_t = cudaDeviceGetAttribute;
    let e: unsafe fn(*mut *mut c_void, usize) -> cudaError_t = cudaMallocHost;
    let f: unsafe fn(cudaError_t) -> *const c_char = cudaGetErrorString;
    let g: unsafe fn(*mut cudaStream_t, c_uint) -> cudaError_t = cudaStreamCreateWithFlags;
    let h: unsafe fn(*mut cudaFuncCache) -> cudaError_t = cudaDeviceGetCacheConfig;
    let fns: [*const (); 8] = [
        a as *const (),
        b as *const (),
        c as *const (),
        d as *const (),
        e as *const (),
        f as *const (),
        g as *const (),
        h as *const (),
    ];
    assert!(fns.iter().all(|p| !p.is_null()));
    // The stream constants CUDA defines as casts.
    assert_eq!(cudaStreamPerThread as usize, 2);
    assert_eq!(cudaStreamLegacy as usize, 1);
    assert_eq!(cudaCpuDeviceId, -1);
}

#[test]
fn nvrtc_and_cublas_signatures_are_cudas() {
    let a: unsafe fn(nvrtcProgram, c_int, *const *const c_char) -> nvrtcResult =
        nvrtcCompileProgram;
    let b: unsafe fn(nvrtcProgram, *mut usize) -> nvrtcResult = nvrtcGetPTXSize;
    #[allow(clippy::type_complexity)]
    let c: unsafe fn(
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
    let d: unsafe fn(
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
    let e: unsafe fn(*mut cublasHandle_t) -> cublasStatus_t = cublasCreate_v2;
    let f: unsafe fn(cublasHandle_t, cudaStream_t) -> cublasStatus_t = cublasSetStream_v2;
    let fns: [*const (); 6] = [
        a as *const (),
        b as *const (),
        c as *const (),
        d as *const (),
        e as *const (),
        f as *const (),
    ];
    assert!(fns.iter().all(|p| !p.is_null()));
    // cuComplex and cuDoubleComplex have CUDA's layout: two values, aligned
    // to their size (`__align__(8)` / `__align__(16)` in cuComplex.h), as
    // HIP's C++ float2/double2 are (hip-sys raises the C header's alignment).
    assert_eq!(size_of::<cuComplex>(), 2 * size_of::<f32>());
    assert_eq!(align_of::<cuComplex>(), 8);
    assert_eq!(size_of::<cuDoubleComplex>(), 2 * size_of::<f64>());
    assert_eq!(align_of::<cuDoubleComplex>(), 16);
}
