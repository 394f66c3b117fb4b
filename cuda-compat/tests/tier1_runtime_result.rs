//! Tier 1 and 2: cudarc's `runtime::result` layer. The signatures are
//! checked at compile time against cudarc 0.19.10's (function-pointer
//! items: this file compiles only if they match); the tests check the
//! error type, the flags, and that each wrapper turns a failing status into
//! an error (here ROCm's runtime loads and sees no device, or is absent;
//! either way no call may report success).

use cuda_compat::driver::sys::CUresult;
use cuda_compat::runtime::result::*;
use cuda_compat::runtime::sys;
use std::ffi::{c_int, c_uchar, c_uint, c_void};

/// cudarc's signatures, as function pointers.
#[allow(clippy::type_complexity)]
const _: () = {
    const _: fn() -> Result<i32, RuntimeError> = version::get;
    const _: fn() -> Result<i32, RuntimeError> = version::get_runtime_version;
    const _: fn() -> Result<i32, RuntimeError> = version::get_driver_version;

    const _: fn(i32) -> Result<(), RuntimeError> = device::set;
    const _: fn() -> Result<i32, RuntimeError> = device::get;
    const _: unsafe fn(*mut c_void) -> Result<(), RuntimeError> = device::free;
    const _: fn(c_int) -> Result<sys::cudaDeviceProp, RuntimeError> = device::get_device_prop;
    const _: fn() -> Result<c_int, RuntimeError> = device::get_count;
    const _: fn() -> Result<usize, RuntimeError> = device::total_mem;
    const _: fn() -> Result<usize, RuntimeError> = device::free_mem;
    const _: unsafe fn(c_int, sys::cudaDeviceAttr) -> Result<i32, RuntimeError> =
        device::get_attribute;
    const _: unsafe fn() -> Result<(), RuntimeError> = device::reset;

    const _: unsafe fn(*const c_void, sys::cudaFuncAttribute, i32) -> Result<(), RuntimeError> =
        function::set_function_attribute;
    const _: unsafe fn(*const c_void) -> Result<sys::cudaFuncAttributes, RuntimeError> =
        function::get_function_attributes;
    const _: unsafe fn(*const c_void) -> Result<sys::cudaFunction_t, RuntimeError> =
        function::get_function_by_symbol;
    const _: unsafe fn(*const c_void, sys::cudaFuncCache) -> Result<(), RuntimeError> =
        function::set_function_cache_config;

    const _: unsafe fn(*const c_void, c_int, c_int) -> Result<usize, RuntimeError> =
        occupancy::available_dynamic_shared_mem_per_block;
    const _: unsafe fn(*const c_void, c_int, usize) -> Result<i32, RuntimeError> =
        occupancy::max_active_block_per_multiprocessor;
    const _: unsafe fn(*const c_void, c_int, usize, c_uint) -> Result<i32, RuntimeError> =
        occupancy::max_active_block_per_multiprocessor_with_flags;
    const _: unsafe fn(
        sys::cudaFunction_t,
        cuda_compat::driver::sys::CUoccupancyB2DSize,
        usize,
        c_int,
    ) -> Result<(i32, i32), cuda_compat::driver::DriverError> = occupancy::max_potential_block_size;
    const _: unsafe fn(
        sys::cudaFunction_t,
        cuda_compat::driver::sys::CUoccupancyB2DSize,
        usize,
        c_int,
        c_uint,
    ) -> Result<(i32, i32), cuda_compat::driver::DriverError> =
        occupancy::max_potential_block_size_with_flags;

    const _: fn(stream::StreamKind) -> Result<sys::cudaStream_t, RuntimeError> = stream::create;
    const _: unsafe fn(sys::cudaStream_t) -> Result<(), RuntimeError> = stream::synchronize;
    const _: unsafe fn(sys::cudaStream_t) -> Result<(), RuntimeError> = stream::destroy;
    const _: unsafe fn(sys::cudaStream_t, sys::cudaEvent_t, u32) -> Result<(), RuntimeError> =
        stream::wait_event;

    const _: unsafe fn(sys::cudaStream_t, usize) -> Result<*mut c_void, RuntimeError> =
        malloc_async;
    const _: unsafe fn(usize) -> Result<*mut c_void, RuntimeError> = malloc_sync;
    const _: fn() -> Result<(usize, usize), RuntimeError> = get_mem_info;
    const _: fn() -> Result<(usize, usize), RuntimeError> = mem_get_info;
    const _: unsafe fn(*mut c_void, sys::cudaStream_t) -> Result<(), RuntimeError> = free_async;
    const _: unsafe fn(*mut c_void) -> Result<(), RuntimeError> = free_sync;
    const _: unsafe fn(*mut c_void) -> Result<(), RuntimeError> = memory_free;
    const _: unsafe fn(*mut c_void, c_uchar, usize, sys::cudaStream_t) -> Result<(), RuntimeError> =
        memset_d8_async;
    const _: unsafe fn(*mut c_void, c_uchar, usize) -> Result<(), RuntimeError> = memset_d8_sync;
    const _: unsafe fn(*mut c_void, &[f32], sys::cudaStream_t) -> Result<(), RuntimeError> =
        memcpy_htod_async::<f32>;
    const _: unsafe fn(*mut c_void, &[u8]) -> Result<(), RuntimeError> = memcpy_htod_sync::<u8>;
    const _: unsafe fn(&mut [f64], *const c_void, sys::cudaStream_t) -> Result<(), RuntimeError> =
        memcpy_dtoh_async::<f64>;
    const _: unsafe fn(&mut [i32], *const c_void) -> Result<(), RuntimeError> =
        memcpy_dtoh_sync::<i32>;
    const _: unsafe fn(
        *mut c_void,
        *const c_void,
        usize,
        sys::cudaStream_t,
    ) -> Result<(), RuntimeError> = memcpy_dtod_async;
    const _: unsafe fn(*mut c_void, *const c_void, usize) -> Result<(), RuntimeError> =
        memcpy_dtod_sync;

    const _: fn(u32) -> Result<sys::cudaEvent_t, RuntimeError> = event::create;
    const _: unsafe fn(sys::cudaEvent_t, sys::cudaStream_t) -> Result<(), RuntimeError> =
        event::record;
    const _: unsafe fn(sys::cudaEvent_t, sys::cudaEvent_t) -> Result<f32, RuntimeError> =
        event::elapsed;
    const _: unsafe fn(sys::cudaEvent_t) -> Result<(), RuntimeError> = event::destroy;

    const _: unsafe fn(
        cuda_compat::driver::sys::CUfunction,
        (u32, u32, u32),
        (u32, u32, u32),
        usize,
        sys::cudaStream_t,
        &mut [*mut c_void],
    ) -> Result<(), RuntimeError> = launch_kernel;

    // As in cudarc: the file-descriptor form on Unix, the handle form on
    // Windows.
    #[cfg(unix)]
    const _: unsafe fn(std::os::fd::RawFd, u64) -> Result<sys::cudaExternalMemory_t, RuntimeError> =
        external_memory::import_external_memory_opaque_fd;
    #[cfg(windows)]
    const _: unsafe fn(
        std::os::windows::io::RawHandle,
        u64,
    ) -> Result<sys::cudaExternalMemory_t, RuntimeError> =
        external_memory::import_external_memory_opaque_win32;
    const _: unsafe fn(sys::cudaExternalMemory_t) -> Result<(), RuntimeError> =
        external_memory::destroy_external_memory;
    const _: unsafe fn(sys::cudaExternalMemory_t, u64, u64) -> Result<*mut c_void, RuntimeError> =
        external_memory::get_mapped_buffer;

    const _: fn(sys::cudaError_t) -> Result<(), RuntimeError> = sys::cudaError_t::result;
};

#[test]
fn status_result_is_ok_only_for_success() {
    assert_eq!(sys::cudaError_t::cudaSuccess.result(), Ok(()));
    let e = sys::cudaError_t::cudaErrorInvalidValue;
    assert_eq!(e.result(), Err(RuntimeError(e)));
}

#[test]
fn errors_print_cudas_names_and_words() {
    let e = RuntimeError(sys::cudaError_t::cudaErrorMemoryAllocation);
    assert_eq!(
        e.error_name().unwrap().to_str(),
        Ok("cudaErrorMemoryAllocation")
    );
    assert_eq!(e.error_string().unwrap().to_str(), Ok("out of memory"));
    let shown = format!("{e:?}");
    assert!(
        shown.starts_with("RuntimeError(") && shown.contains("out of memory"),
        "{shown}"
    );
    assert_eq!(e.to_string(), shown);
    let boxed: Box<dyn std::error::Error> = Box::new(e);
    assert!(boxed.to_string().contains("cudaErrorMemoryAllocation"));
}

#[test]
fn a_driver_status_keeps_its_meaning() {
    let pairs = [
        (CUresult::CUDA_SUCCESS, sys::cudaError_t::cudaSuccess),
        (
            CUresult::CUDA_ERROR_INVALID_VALUE,
            sys::cudaError_t::cudaErrorInvalidValue,
        ),
        (
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            sys::cudaError_t::cudaErrorMemoryAllocation,
        ),
        // cudarc makes every other status `cudaErrorUnknown`; the meaning
        // is kept here.
        (
            CUresult::CUDA_ERROR_NO_DEVICE,
            sys::cudaError_t::cudaErrorNoDevice,
        ),
        (
            CUresult::CUDA_ERROR_NOT_SUPPORTED,
            sys::cudaError_t::cudaErrorNotSupported,
        ),
    ];
    for (driver, runtime) in pairs {
        assert_eq!(
            RuntimeError::from(driver),
            RuntimeError(runtime),
            "{driver:?}"
        );
    }
}

#[test]
fn device_flags_are_hips() {
    assert_eq!(
        CudaDeviceFlags::CudaDeviceScheduleAuto as u32,
        sys::cudaDeviceScheduleAuto
    );
    assert_eq!(
        CudaDeviceFlags::CudaDeviceScheduleSpin as u32,
        sys::cudaDeviceScheduleSpin
    );
    assert_eq!(
        CudaDeviceFlags::CudaDeviceScheduleYield as u32,
        sys::cudaDeviceScheduleYield
    );
    assert_eq!(
        CudaDeviceFlags::CudaDeviceScheduleBlockingSync as u32,
        sys::cudaDeviceScheduleBlockingSync
    );
    assert_eq!(
        CudaDeviceFlags::CudaDeviceMapHost as u32,
        sys::cudaDeviceMapHost
    );
    assert_eq!(
        CudaDeviceFlags::CudaDeviceLmemResizeToMax as u32,
        sys::cudaDeviceLmemResizeToMax
    );
    // CUDA's value; HIP has no such flag.
    assert_eq!(CudaDeviceFlags::CudaDeviceSyncMemops as u32, 0x80);
}

#[test]
fn what_hip_lacks_is_not_supported_without_a_call() {
    // SAFETY: nothing is called.
    let r = unsafe { occupancy::available_dynamic_shared_mem_per_block(std::ptr::null(), 1, 32) };
    assert_eq!(
        r,
        Err(RuntimeError(sys::cudaError_t::cudaErrorNotSupported))
    );
}

#[test]
fn a_launch_with_more_shared_memory_than_cuda_takes_is_refused_first() {
    let mut params: [*mut c_void; 0] = [];
    // SAFETY: refused before any call (the size does not fit CUDA's
    // `unsigned int`), so the null function is never used.
    let r = unsafe {
        launch_kernel(
            std::ptr::null_mut(),
            (1, 1, 1),
            (1, 1, 1),
            usize::MAX,
            std::ptr::null_mut(),
            &mut params,
        )
    };
    assert_eq!(
        r,
        Err(RuntimeError(sys::cudaError_t::cudaErrorInvalidValue))
    );
}

/// Without a GPU (or without the runtime), no wrapper may report success,
/// and those that create something must not return a handle.
#[test]
fn without_a_device_every_call_fails() {
    if matches!(device::get_count(), Ok(n) if n > 0) {
        eprintln!("skipped: a device is present (gpu_runtime_result covers it)");
        return;
    }
    assert!(device::set(0).is_err());
    assert!(mem_get_info().is_err());
    assert!(get_mem_info().is_err());
    assert!(device::total_mem().is_err());
    assert!(device::free_mem().is_err());
    assert!(device::get_device_prop(0).is_err());
    assert!(stream::create(stream::StreamKind::NonBlocking).is_err());
    assert!(event::create(0).is_err());
    // SAFETY: no device, so nothing is allocated or freed.
    unsafe {
        assert!(malloc_sync(16).is_err());
        assert!(malloc_async(std::ptr::null_mut(), 16).is_err());
    }
}

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    // Without a device or a HIP runtime (this machine), making device 0
    // current fails; the error keeps the `hip` crate's words (the HIP call
    // and its status, or the runtime paths tried), printed by `Debug`.
    let Err(e) = device::set(0) else {
        // A machine with a device: nothing fails here.
        assert!(matches!(device::get_count(), Ok(n) if n > 0));
        return;
    };
    let why = test_kit::assert_reason_kept(&e, e.0, last_error_detail());
    if e.0 != sys::cudaError_t::cudaErrorSharedObjectInitFailed {
        // A runtime loaded: the message names the HIP call.
        assert!(why.contains("hipSetDevice"), "{why}");
    }
    let first = why.lines().next().expect("a line");
    // A raw status afterwards says only itself.
    let raw = e.0.result();
    assert_eq!(raw, Err(e));
    assert_eq!(last_error_detail(), None);
    assert!(!format!("{e:?}").contains(first), "{e:?}");
}

#[test]
fn a_refused_launch_says_why() {
    let mut params: [*mut c_void; 0] = [];
    // SAFETY: refused before any call, so the null function is never used.
    let e = unsafe {
        launch_kernel(
            std::ptr::null_mut(),
            (1, 1, 1),
            (1, 1, 1),
            usize::MAX,
            std::ptr::null_mut(),
            &mut params,
        )
    }
    .unwrap_err();
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, sys::cudaError_t::cudaErrorInvalidValue);
    assert_eq!(status, e.0);
    assert!(why.contains("shared memory"), "{why}");
}
