//! cuFFT over hipFFT, in cudarc's layout (`cufft` feature, off by default
//! as in cudarc).
//!
//! The raw names (`cufftPlan1d`, `cufftExecC2C`, `CUFFT_C2C`,
//! `cufftResult`, ...) of `cufft.h` and `cufftXt.h` are generated from
//! hipify-perl's table over `hipfft-sys` and reachable both here and at
//! cudarc's path ([`sys`]). The enum constants carry hipFFT's values (equal
//! to cuFFT's, which hipfft-sys checks against cuFFT's headers), so they
//! pass to the HIP functions unchanged.
//!
//! One difference from cuFFT: `cufftHandle` is hipFFT's opaque pointer
//! (`hipfftHandle`), not cuFFT's `int`. Code that creates a handle, passes
//! it and destroys it reads the same; code that does integer arithmetic on
//! handles does not compile. `CUFFT_FORWARD` (-1, `i32`) and
//! `CUFFT_INVERSE` (1, `u32`, as bindgen types cuFFT's macro) are hipFFT's
//! direction values.
//!
//! cudarc's [`result`] layer and its safe [`CudaFft`] and [`FftDirection`]
//! are here too (`cudarc::cufft::{CudaFft, FftDirection}`), built over
//! hipfft: `CudaFft` checks the plan's type and both buffers' lengths with
//! hipfft's `Layout` before hipFFT is called.
//!
//! ```no_run
//! use cuda_compat::cufft::sys::*;
//! # fn main() {
//! let mut plan: cufftHandle = std::ptr::null_mut();
//! // SAFETY: `plan` is a valid place for the new handle.
//! let status = unsafe { cufftPlan1d(&mut plan, 1024, CUFFT_C2C, 1) };
//! assert_eq!(status, cufftResult::CUFFT_SUCCESS);
//! // SAFETY: `plan` was made above and is not used after this call.
//! unsafe { cufftDestroy(plan) };
//! # }
//! ```

mount_generated!("../generated/cufft.rs");

/// The raw cuFFT names at cudarc's path (`cudarc::cufft::sys`), with the
/// names of other CUDA headers cuFFT's declarations use, as cudarc's
/// bindings have them.
pub mod sys {
    pub use super::generated::*;
    pub use super::plan_property::*;
    pub use crate::cublas::{cuComplex, cuDoubleComplex, cuFloatComplex};
    pub use crate::driver::CUstream_st;
    pub use crate::runtime::{
        cudaStream_t, double2, float2, libraryPropertyType, libraryPropertyType_t,
    };
    culib_present!("hipFFT", hipfft_sys::loader::is_available());
}

// cuFFT 11.2's plan properties (CUDA 12.4 and later), which hipFFT lacks:
// the names exist so that code using them compiles, and every call
// returns `CUFFT_NOT_SUPPORTED`.
#[allow(non_camel_case_types, non_snake_case)]
mod plan_property {
    use super::generated::{cufftHandle, cufftResult};
    use core::ffi::c_longlong;

    /// cuFFT's `cufftProperty_t` (cuFFT's values; hipFFT has no plan
    /// properties, so no call accepts one).
    #[repr(u32)]
    #[derive(Debug, Copy, Clone, Hash, PartialOrd, Ord, PartialEq, Eq)]
    pub enum cufftProperty_t {
        /// Patient JIT compilation of the plan's kernels.
        NVFFT_PLAN_PROPERTY_INT64_PATIENT_JIT = 1,
        /// The most host threads planning may use.
        NVFFT_PLAN_PROPERTY_INT64_MAX_NUM_HOST_THREADS = 2,
        /// Bluestein's algorithm only (CUDA 13.4).
        NVFFT_PLAN_PROPERTY_INT64_BLUESTEIN_ONLY = 3,
        /// No fused multiply-add (CUDA 13.4).
        NVFFT_PLAN_PROPERTY_INT64_DISABLE_FMA = 4,
    }
    /// cuFFT's name for [`cufftProperty_t`].
    pub use self::cufftProperty_t as cufftProperty;

    /// cuFFT's `cufftGetPlanPropertyInt64`: hipFFT has no counterpart, so
    /// `CUFFT_NOT_SUPPORTED` (nothing is written).
    ///
    /// # Safety
    /// None beyond cuFFT's (`plan` live, `returnPtrValue` writable): nothing
    /// is read or written.
    pub unsafe fn cufftGetPlanPropertyInt64(
        plan: cufftHandle,
        property: cufftProperty,
        returnPtrValue: *mut c_longlong,
    ) -> cufftResult {
        let _ = (plan, property, returnPtrValue);
        cufftResult::CUFFT_NOT_SUPPORTED
    }

    /// cuFFT's `cufftSetPlanPropertyInt64`: hipFFT has no counterpart, so
    /// `CUFFT_NOT_SUPPORTED`.
    ///
    /// # Safety
    /// None beyond cuFFT's (`plan` live): nothing is read.
    pub unsafe fn cufftSetPlanPropertyInt64(
        plan: cufftHandle,
        property: cufftProperty,
        inputValueInt: c_longlong,
    ) -> cufftResult {
        let _ = (plan, property, inputValueInt);
        cufftResult::CUFFT_NOT_SUPPORTED
    }

    /// cuFFT's `cufftResetPlanProperty`: hipFFT has no counterpart, so
    /// `CUFFT_NOT_SUPPORTED`.
    ///
    /// # Safety
    /// None beyond cuFFT's (`plan` live): nothing is read.
    pub unsafe fn cufftResetPlanProperty(
        plan: cufftHandle,
        property: cufftProperty,
    ) -> cufftResult {
        let _ = (plan, property);
        cufftResult::CUFFT_NOT_SUPPORTED
    }
}

pub mod result;
pub mod safe;
pub use safe::*;
