//! Tier 3: CUDA names on a real GPU (`HIP_PLATFORM=nvidia` on an NVIDIA
//! GPU, or an AMD GPU). Run with `--ignored`. The whole `cuda_swap` flow
//! (nvrtc, driver launch, cuBLAS) is the `cuda-swap` crate's GPU test.

use cuda_compat::runtime::*;
use std::ffi::{c_void, CStr};
use std::ptr;

#[test]
#[ignore = "needs a GPU"]
fn impossible_malloc_is_cuda_error_memory_allocation() {
    println!("{}", cuda_compat::backend_summary());
    let mut p: *mut c_void = ptr::null_mut();
    // SAFETY: `p` is a valid place for the pointer.
    let e = unsafe { cudaMalloc(&mut p, usize::MAX / 2) };
    assert_eq!(e, cudaErrorMemoryAllocation);
    assert_eq!(e, cudaError_t::cudaErrorMemoryAllocation);
    assert!(p.is_null());
    // The failure is this thread's last error, on both platforms: the
    // NVIDIA backend records every failing status per thread (as
    // `cudaGetLastError` does), and so does AMD's runtime. Peeking keeps it,
    // getting it clears it.
    // SAFETY: no arguments.
    assert_eq!(unsafe { cudaPeekAtLastError() }, cudaErrorMemoryAllocation);
    // SAFETY: no arguments.
    assert_eq!(unsafe { cudaPeekAtLastError() }, cudaErrorMemoryAllocation);
    // SAFETY: no arguments; clears the recorded error.
    assert_eq!(unsafe { cudaGetLastError() }, cudaErrorMemoryAllocation);
    // SAFETY: no arguments.
    assert_eq!(unsafe { cudaGetLastError() }, cudaSuccess);
}

#[test]
#[ignore = "needs a GPU"]
fn device_query_and_memcpy_round_trip_of_random_bytes() {
    let mut count = 0;
    // SAFETY: `count` is a valid int to write to.
    assert_eq!(unsafe { cudaGetDeviceCount(&mut count) }, cudaSuccess);
    assert!(count >= 1);
    // SAFETY: plain data, all-zero is valid.
    let mut prop: cudaDeviceProp = unsafe { std::mem::zeroed() };
    // SAFETY: `prop` is a valid struct to fill; device 0 exists.
    let e = unsafe { cudaGetDeviceProperties(&mut prop, 0) };
    assert_eq!(e, cudaSuccess);
    // SAFETY: NUL-terminated inside the array.
    let name = unsafe { CStr::from_ptr(prop.name.as_ptr()) }.to_string_lossy();
    println!("device 0: {name}, cc {}.{}", prop.major, prop.minor);
    assert!(!name.is_empty());
    assert!(prop.totalGlobalMem > 1 << 30);

    // Fresh random bytes from the test kit's printed seed; never all zero.
    let host = test_kit::random_bytes((1 << 20) + 3);
    assert!(host.iter().any(|&b| b != 0));
    let mut d: *mut c_void = ptr::null_mut();
    // SAFETY: `d` is a valid place for the pointer.
    assert_eq!(unsafe { cudaMalloc(&mut d, host.len()) }, cudaSuccess);
    // SAFETY: `d` has `host.len()` bytes.
    let e = unsafe { cudaMemcpy(d, host.as_ptr().cast(), host.len(), cudaMemcpyHostToDevice) };
    assert_eq!(e, cudaSuccess);
    let mut back = vec![0u8; host.len()];
    // SAFETY: `back` has room for `host.len()` bytes.
    let e = unsafe {
        cudaMemcpy(
            back.as_mut_ptr().cast(),
            d,
            back.len(),
            cudaMemcpyDeviceToHost,
        )
    };
    assert_eq!(e, cudaSuccess);
    assert!(back == host, "round trip changed the bytes");
    // SAFETY: allocated above, not used afterwards.
    assert_eq!(unsafe { cudaFree(d) }, cudaSuccess);
}
