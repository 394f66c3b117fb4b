//! Tier 1: cudarc's `nvrtc::result` layer over the `hip` crate's hiprtc
//! functions, on a machine without a HIP runtime: each failure keeps the
//! reason `hip` gives (the paths tried), printed by the error's `Debug`,
//! and a raw status afterwards says only itself.

#![cfg(feature = "nvrtc")]

use cuda_compat::nvrtc::{compile_ptx, result, sys::nvrtcResult, CompileError};

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    let Err(e) = result::create_program(c"extern \"C\" __global__ void k() {}", None) else {
        // A machine with a HIP runtime and hiprtc: nothing fails here.
        assert!(hip_sys::loader::runtime().is_ok());
        return;
    };
    // What the raw names return without a runtime (hip-sys's `Unavailable`).
    assert_eq!(e.0, nvrtcResult::NVRTC_ERROR_INTERNAL_ERROR);
    let why = test_kit::assert_reason_kept(&e, e.0, result::last_error_detail());
    let loader = hip_sys::loader::runtime().expect_err("no runtime here");
    assert_eq!(why, loader.to_string(), "hip's Load error, as it says it");
    // The error type keeps its public paths.
    let _: cuda_compat::nvrtc::safe::NvrtcError = e;
    let _: result::NvrtcError = e;
    // A raw status afterwards says only itself.
    let raw = nvrtcResult::NVRTC_ERROR_INTERNAL_ERROR.result();
    assert_eq!(raw, Err(e));
    assert_eq!(result::last_error_detail(), None);
    assert_eq!(format!("{e:?}"), "NvrtcError(NVRTC_ERROR_INTERNAL_ERROR)");
    assert_eq!(nvrtcResult::NVRTC_SUCCESS.result(), Ok(()));
}

#[test]
fn the_safe_layer_keeps_the_reason_too() {
    let Err(CompileError::CreationError(e)) = compile_ptx("extern \"C\" __global__ void k() {}")
    else {
        assert!(hip_sys::loader::runtime().is_ok());
        return;
    };
    assert_eq!(
        e,
        cuda_compat::nvrtc::NvrtcError(nvrtcResult::NVRTC_ERROR_PROGRAM_CREATION_FAILURE)
    );
    let (status, why) = result::last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    let first = why.lines().next().expect("a line");
    assert!(format!("{e:?}").contains(first), "{e:?}");
}
