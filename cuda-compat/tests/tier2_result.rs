//! Tier 2: cudarc's `driver::result` wrappers on the real AMD runtime, no
//! GPU: each reaches the runtime (which answers "no device"), and the calls
//! HIP cannot serve fail before it with `CUDA_ERROR_NOT_SUPPORTED` or
//! `CUDA_ERROR_INVALID_VALUE` and a reason.
//!
//! Needs Debian 12's `libamdhip64-5`, as CI installs. Without it these tests
//! fail and say what is missing.

use cuda_compat::driver::result::{self, last_error_detail, stream::StreamKind};
use cuda_compat::driver::{sys, DriverError};
use cuda_compat::Platform;

const INSTALL_HINT: &str =
    "tier 2 needs the AMD runtime: apt-get install libamdhip64-5 (Debian 12)";

fn amd_runtime() {
    let rt = cuda_compat::backend().unwrap_or_else(|e| panic!("{INSTALL_HINT}\n{e}"));
    assert_eq!(rt.platform, Platform::Amd, "{INSTALL_HINT}; loaded {rt:?}");
}

fn no_device() -> DriverError {
    DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE)
}

#[test]
fn device_and_stream_calls_reach_the_runtime() {
    amd_runtime();
    assert_eq!(result::device::get_count(), Err(no_device()));
    // ROCm 5.2 answers an ordinal with no device behind it with "invalid
    // device"; 5.7 and 6.4 with "no device".
    let refused = if test_kit::Rocm::expected() == test_kit::Rocm::V5_2 {
        sys::CUresult::CUDA_ERROR_INVALID_DEVICE
    } else {
        sys::CUresult::CUDA_ERROR_NO_DEVICE
    };
    assert_eq!(result::device::get(0), Err(DriverError(refused)));
    // Everything that needs a device is refused by the runtime with the
    // same status once no device was found.
    let invalid = Err(DriverError(refused));
    assert_eq!(
        result::stream::create(StreamKind::NonBlocking).map(|_| ()),
        invalid
    );
    assert_eq!(result::mem_get_info().map(|_| ()), invalid);
    // SAFETY: no device: the runtime refuses before touching memory.
    assert_eq!(unsafe { result::malloc_sync(1024) }.map(|_| ()), invalid);
    assert_eq!(result::init(), invalid);
    assert_eq!(result::ctx::get_current().map(|_| ()), invalid);
    assert_eq!(result::stream::get_priority_range().map(|_| ()), invalid);
}

#[test]
fn what_hip_lacks_is_refused_with_a_reason() {
    let not_supported = DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
    unsafe extern "C" fn smem_for(block: core::ffi::c_int) -> usize {
        block as usize * 4
    }
    // SAFETY: refused before the (null) function is used.
    let r = unsafe {
        result::occupancy::max_potential_block_size(std::ptr::null_mut(), Some(smem_for), 0, 0)
    };
    assert_eq!(r, Err(not_supported));
    let (_, why) = last_error_detail().expect("a reason");
    assert!(why.contains("fixed dynamic shared memory size"), "{why}");

    // SAFETY: refused before the (null) function is used.
    let r = unsafe {
        result::occupancy::available_dynamic_shared_mem_per_block(std::ptr::null_mut(), 1, 1)
    };
    assert_eq!(r, Err(not_supported));

    let mut params = sys::CUctxCreateParams {
        execAffinityParams: std::ptr::null_mut(),
        numExecAffinityParams: 1,
        cigParams: std::ptr::null_mut(),
    };
    // SAFETY: `params` is valid for reads; refused before any context.
    let r = unsafe { result::ctx::create_v4(&mut params, 0, 0) };
    assert_eq!(r, Err(not_supported));
    assert!(last_error_detail()
        .unwrap()
        .1
        .contains("execution affinity"));

    // SAFETY: refused before the (null) stream and event are used.
    let r = unsafe {
        result::stream::wait_event(
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            sys::CUevent_wait_flags::CU_EVENT_WAIT_EXTERNAL,
        )
    };
    assert_eq!(r, Err(not_supported));

    // Only two function attributes can be set, in CUDA as here.
    // SAFETY: refused before the (null) function is used.
    let r = unsafe {
        result::function::set_function_attribute(
            std::ptr::null_mut(),
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
            1,
        )
    };
    assert_eq!(r, Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)));
    assert!(last_error_detail().unwrap().1.contains("cannot be set"));

    // A memory location HIP cannot advise.
    let location = sys::CUmemLocation {
        type_: hip_sys::hipMemLocationType(7),
        id: 0,
    };
    // SAFETY: refused before the (zero) address is used.
    let r = unsafe {
        result::mem_advise(
            0,
            4,
            sys::CUmem_advise::CU_MEM_ADVISE_SET_READ_MOSTLY,
            location,
        )
    };
    assert_eq!(r, Err(not_supported));
}
