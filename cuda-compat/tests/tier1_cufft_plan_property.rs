//! Tier 1: cudarc's `cufft::result::{get,set}_plan_property_i64` and
//! `reset_plan_property` (cuFFT 11.2's plan properties, which hipFFT
//! lacks): cudarc's signatures, cuFFT's property values, and
//! `CUFFT_NOT_SUPPORTED` from every call, with nothing called.

#![cfg(feature = "cufft")]

use cuda_compat::cufft::result::{self, CufftError};
use cuda_compat::cufft::sys::{self, cufftHandle, cufftProperty, cufftResult};
use std::ffi::c_longlong;

const _: unsafe fn(cufftHandle, cufftProperty) -> Result<c_longlong, CufftError> =
    result::get_plan_property_i64;
const _: unsafe fn(cufftHandle, cufftProperty, c_longlong) -> Result<(), CufftError> =
    result::set_plan_property_i64;
const _: unsafe fn(cufftHandle, cufftProperty) -> Result<(), CufftError> =
    result::reset_plan_property;
const _: unsafe fn(cufftHandle, cufftProperty, *mut c_longlong) -> cufftResult =
    sys::cufftGetPlanPropertyInt64;

#[test]
fn property_values_are_cuffts() {
    assert_eq!(
        cufftProperty::NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT as u32,
        1
    );
    assert_eq!(
        sys::cufftProperty_t::NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS as u32,
        2
    );
}

#[test]
fn plan_properties_are_not_supported() {
    let plan: cufftHandle = std::ptr::null_mut();
    let p = cufftProperty::NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT;
    let no = CufftError(cufftResult::CUFFT_NOT_SUPPORTED);
    // SAFETY: nothing is called (hipFFT has no plan properties).
    unsafe {
        assert_eq!(result::get_plan_property_i64(plan, p), Err(no));
        assert_eq!(result::set_plan_property_i64(plan, p, 1), Err(no));
        assert_eq!(result::reset_plan_property(plan, p), Err(no));
        let mut v: c_longlong = 7;
        assert_eq!(sys::cufftGetPlanPropertyInt64(plan, p, &mut v), no.0);
        assert_eq!(v, 7, "nothing is written");
    }
}
