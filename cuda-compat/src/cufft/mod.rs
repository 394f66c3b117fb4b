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
//! cudarc's safe `CudaFft` and its `result` layer are not provided yet;
//! the safe FFT API of this workspace is the `hipfft` crate.
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

crate::mount_generated!("../generated/cufft.rs");

/// The raw cuFFT names at cudarc's path (`cudarc::cufft::sys`).
pub mod sys {
    pub use super::generated::*;
}
