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

crate::mount_generated!("../generated/cufft.rs");

/// The raw cuFFT names at cudarc's path (`cudarc::cufft::sys`), with the
/// names of other CUDA headers cuFFT's declarations use, as cudarc's
/// bindings have them.
pub mod sys {
    pub use super::generated::*;
    pub use super::library_property::*;
    pub use crate::runtime::{cudaStream_t, double2, float2};
}

// C's names, as cudarc's bindings have them.
#[allow(non_camel_case_types)]
mod library_property {
    /// CUDA's `libraryPropertyType_t` (`library_types.h`), as cudarc's
    /// bindings have it: what `cufftGetProperty` reports. The values are
    /// hipFFT's `HIPFFT_MAJOR_VERSION`, ... (0, 1, 2).
    #[repr(u32)]
    #[derive(Debug, Copy, Clone, Hash, PartialOrd, Ord, PartialEq, Eq)]
    pub enum libraryPropertyType_t {
        /// The major version.
        MAJOR_VERSION = 0,
        /// The minor version.
        MINOR_VERSION = 1,
        /// The patch level.
        PATCH_LEVEL = 2,
    }
    /// CUDA's name for [`libraryPropertyType_t`].
    pub use self::libraryPropertyType_t as libraryPropertyType;
}

pub mod result;
pub mod safe;
pub use safe::*;
