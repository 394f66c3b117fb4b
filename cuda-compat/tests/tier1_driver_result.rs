//! Tier 1: cudarc's `driver::result` functions call the `hip` crate's
//! result layer, and their errors keep its message: on this machine (no
//! device, maybe no HIP runtime) a call fails with the status of `hip`'s
//! error and `last_error_detail()` holds its words, which `Debug` prints;
//! a raw status afterwards says only itself.

use cuda_compat::driver::result::{self, last_error_detail};
use cuda_compat::driver::{sys, DriverError};

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    let Err(e) = result::device::get_count() else {
        // A machine with a runtime that counts devices: nothing fails here.
        return;
    };
    let why = test_kit::assert_reason_kept(&e, e.0, last_error_detail());
    if e.0 != sys::CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED {
        // A runtime loaded: the message names the HIP call.
        assert!(why.contains("hipGetDeviceCount"), "{why}");
    }
    let first = why.lines().next().expect("a line");
    // A raw status afterwards says only itself.
    assert_eq!(e.0.result(), Err(e));
    assert_eq!(last_error_detail(), None);
    assert!(!format!("{e:?}").contains(first), "{e:?}");
}

#[test]
fn every_failing_call_reports_a_reason() {
    if matches!(result::device::get_count(), Ok(n) if n > 0) {
        eprintln!("skipped: a device is present (gpu_result covers it)");
        return;
    }
    let calls: [(&str, Result<(), DriverError>); 6] = [
        ("init", result::init()),
        ("device::get", result::device::get(0).map(drop)),
        ("mem_get_info", result::mem_get_info().map(drop)),
        (
            "stream::create",
            result::stream::create(result::stream::StreamKind::NonBlocking).map(drop),
        ),
        (
            "event::create",
            result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).map(drop),
        ),
        // SAFETY: no device: nothing is allocated.
        ("malloc_sync", unsafe { result::malloc_sync(64) }.map(drop)),
    ];
    for (name, r) in calls {
        let e = r.expect_err(name);
        assert_ne!(e.0, sys::CUresult::CUDA_SUCCESS, "{name}");
    }
    // The last one's reason is kept.
    let (status, why) = last_error_detail().expect("a reason");
    assert_ne!(status, sys::CUresult::CUDA_SUCCESS);
    assert!(!why.is_empty());
}

#[test]
fn a_limit_hip_lacks_is_refused_with_a_reason() {
    let e = result::ctx::get_limit(sys::CUlimit::CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH).unwrap_err();
    assert_eq!(e.0, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH"), "{why}");
    let e = result::ctx::set_limit(sys::CUlimit::CU_LIMIT_SHMEM_SIZE, 1).unwrap_err();
    assert_eq!(e.0, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
}

#[test]
fn error_words_come_through_hips_result_layer() {
    // A status CUDA names is printed with CUDA's words.
    let e = DriverError(sys::CUresult::CUDA_ERROR_NOT_FOUND);
    assert_eq!(e.error_name().unwrap().to_str(), Ok("CUDA_ERROR_NOT_FOUND"));
    assert_eq!(
        e.error_string().unwrap().to_str(),
        Ok("named symbol not found")
    );
}
