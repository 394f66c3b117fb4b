//! Tier 1: cuFFT's C names in `cuda_compat::cufft::sys` (the `cufft`
//! feature): functions with cuFFT's signatures (checked by the compiler:
//! `const` items assigned to function-pointer types spelled as `cufft.h`
//! declares them, with `cufftHandle` standing for hipFFT's pointer handle),
//! and enum constants with cuFFT's values, equal to hipFFT's so they pass
//! to hipFFT unchanged. Nothing here calls a library.

use cuda_compat::cufft::sys::*;
use cuda_compat::runtime::cudaStream_t;
use hipfft_sys::{hipfftHandle, hipfftResult, hipfftType};
use std::ffi::{c_int, c_longlong, c_void};

const _: () = {
    const _: unsafe fn(*mut cufftHandle) -> cufftResult = cufftCreate;
    const _: unsafe fn(cufftHandle) -> cufftResult = cufftDestroy;
    const _: unsafe fn(*mut cufftHandle, c_int, cufftType, c_int) -> cufftResult = cufftPlan1d;
    const _: unsafe fn(*mut cufftHandle, c_int, c_int, cufftType) -> cufftResult = cufftPlan2d;
    const _: unsafe fn(*mut cufftHandle, c_int, c_int, c_int, cufftType) -> cufftResult =
        cufftPlan3d;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        *mut cufftHandle,
        c_int,
        *mut c_int,
        *mut c_int,
        c_int,
        c_int,
        *mut c_int,
        c_int,
        c_int,
        cufftType,
        c_int,
    ) -> cufftResult = cufftPlanMany;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cufftHandle,
        c_int,
        *mut c_longlong,
        *mut c_longlong,
        c_longlong,
        c_longlong,
        *mut c_longlong,
        c_longlong,
        c_longlong,
        cufftType,
        c_longlong,
        *mut usize,
    ) -> cufftResult = cufftMakePlanMany64;
    const _: unsafe fn(cufftHandle, *mut cufftComplex, *mut cufftComplex, c_int) -> cufftResult =
        cufftExecC2C;
    const _: unsafe fn(cufftHandle, *mut cufftReal, *mut cufftComplex) -> cufftResult =
        cufftExecR2C;
    const _: unsafe fn(cufftHandle, *mut cufftComplex, *mut cufftReal) -> cufftResult =
        cufftExecC2R;
    const _: unsafe fn(
        cufftHandle,
        *mut cufftDoubleComplex,
        *mut cufftDoubleComplex,
        c_int,
    ) -> cufftResult = cufftExecZ2Z;
    const _: unsafe fn(cufftHandle, *mut cufftDoubleReal, *mut cufftDoubleComplex) -> cufftResult =
        cufftExecD2Z;
    const _: unsafe fn(cufftHandle, *mut cufftDoubleComplex, *mut cufftDoubleReal) -> cufftResult =
        cufftExecZ2D;
    const _: unsafe fn(cufftHandle, cudaStream_t) -> cufftResult = cufftSetStream;
    const _: unsafe fn(cufftHandle, *mut c_void) -> cufftResult = cufftSetWorkArea;
    const _: unsafe fn(cufftHandle, c_int) -> cufftResult = cufftSetAutoAllocation;
    const _: unsafe fn(cufftHandle, *mut usize) -> cufftResult = cufftGetSize;
    const _: unsafe fn(*mut c_int) -> cufftResult = cufftGetVersion;
    const _: unsafe fn(cufftHandle, *mut c_void, *mut c_void, c_int) -> cufftResult = cufftXtExec;
};

#[test]
fn cufft_handle_is_hipffts_pointer_handle() {
    // cuFFT's `int` cannot carry hipFFT's pointer; the name is hipFFT's type.
    let h: cufftHandle = std::ptr::null_mut();
    let _: hipfftHandle = h;
    assert_eq!(size_of::<cufftHandle>(), size_of::<*mut c_void>());
}

#[test]
fn cufft_types_carry_cuffts_and_hipffts_values() {
    // The values of cufft.h (CUDA 12.9), which hipFFT shares.
    let types = [
        (cufftType::CUFFT_R2C, hipfftType::HIPFFT_R2C, 0x2a),
        (cufftType::CUFFT_C2R, hipfftType::HIPFFT_C2R, 0x2c),
        (cufftType::CUFFT_C2C, hipfftType::HIPFFT_C2C, 0x29),
        (cufftType::CUFFT_D2Z, hipfftType::HIPFFT_D2Z, 0x6a),
        (cufftType::CUFFT_Z2D, hipfftType::HIPFFT_Z2D, 0x6c),
        (cufftType::CUFFT_Z2Z, hipfftType::HIPFFT_Z2Z, 0x69),
    ];
    for (cuda, hip, value) in types {
        assert_eq!(cuda.0, value, "{cuda:?}");
        assert_eq!(hip.0, value, "{hip:?}");
        assert_eq!(hipfftType::from(cuda), hip);
        assert_eq!(cufftType::from(hip), cuda);
    }
    assert_eq!(CUFFT_FORWARD, -1);
    assert_eq!(CUFFT_INVERSE, 1);
}

#[test]
fn cufft_results_carry_cuffts_values() {
    let results = [
        (cufftResult::CUFFT_SUCCESS, hipfftResult::HIPFFT_SUCCESS, 0),
        (
            cufftResult::CUFFT_INVALID_PLAN,
            hipfftResult::HIPFFT_INVALID_PLAN,
            1,
        ),
        (
            cufftResult::CUFFT_SETUP_FAILED,
            hipfftResult::HIPFFT_SETUP_FAILED,
            7,
        ),
        (
            cufftResult::CUFFT_INVALID_SIZE,
            hipfftResult::HIPFFT_INVALID_SIZE,
            8,
        ),
        (
            cufftResult::CUFFT_NOT_SUPPORTED,
            hipfftResult::HIPFFT_NOT_SUPPORTED,
            16,
        ),
    ];
    for (cuda, hip, value) in results {
        assert_eq!(cuda.0, value, "{cuda:?}");
        assert_eq!(hip.0, value, "{hip:?}");
        assert_eq!(hipfftResult::from(cuda), hip);
    }
}

#[test]
fn cufft_enums_are_listed() {
    let all = cuda_compat::enums();
    for (cuda, hip) in [
        ("cufftResult_t", "hipfftResult_t"),
        ("cufftType_t", "hipfftType_t"),
        ("cufftXtCopyType_t", "hipfftXtCopyType_t"),
    ] {
        let table = all
            .iter()
            .find(|t| t.cuda == cuda)
            .unwrap_or_else(|| panic!("{cuda} missing from cuda_compat::enums()"));
        assert_eq!(table.hip, hip);
        assert!(table.variants.len() >= 4, "{cuda}: {:?}", table.variants);
    }
}

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    use cuda_compat::cufft::result::{self, last_error_detail};
    // Without a hipFFT (this machine) the version cannot be read: the
    // error keeps hipfft's words (the paths tried), printed by `Debug`.
    match result::get_version() {
        Ok(_) => assert!(hipfft_sys::loader::is_available()),
        Err(e) => {
            assert_eq!(e.0, cufftResult::CUFFT_SETUP_FAILED);
            let why = test_kit::assert_reason_kept(&e, e.0, last_error_detail());
            let first = why.lines().next().expect("a line");
            // A raw status afterwards says only itself.
            let raw = cufftResult::CUFFT_SETUP_FAILED.result();
            assert_eq!(raw, Err(e));
            assert_eq!(last_error_detail(), None);
            assert!(!format!("{e:?}").contains(first), "{e:?}");
        }
    }
    // Creating a plan needs the current device's capture gate: without a
    // device (or a library) it fails with the layer's words.
    let Err(e) = result::plan_1d(64, cufftType::CUFFT_C2C, 1) else {
        assert!(hipfft_sys::loader::is_available());
        return;
    };
    assert_eq!(e.0, cufftResult::CUFFT_SETUP_FAILED);
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(!why.is_empty());
    assert!(format!("{e:?}").contains(why.lines().next().unwrap()));
}

#[test]
fn plan_properties_say_why_they_are_not_supported() {
    use cuda_compat::cufft::result::{self, last_error_detail};
    let plan: cufftHandle = std::ptr::null_mut();
    let p = cufftProperty::NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT;
    // SAFETY: nothing is called (hipFFT has no plan properties).
    let e = unsafe { result::set_plan_property_i64(plan, p, 1) }.unwrap_err();
    assert_eq!(e.0, cufftResult::CUFFT_NOT_SUPPORTED);
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("cufftSetPlanPropertyInt64"), "{why}");
    assert!(format!("{e}").contains("plan properties"), "{e}");
}
