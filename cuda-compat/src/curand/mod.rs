//! cuRAND over hipRAND, in cudarc's layout (`curand` feature, on by
//! default as in cudarc).
//!
//! The raw names (`curandCreateGenerator`, `CURAND_RNG_PSEUDO_XORWOW`, ...)
//! are generated from hipify-perl's table over `hiprand-sys` and reachable
//! both here and at cudarc's path ([`sys`]); the enum constants carry
//! hipRAND's values (`CURAND_RNG_PSEUDO_XORWOW` is 401 here, as hipRAND
//! numbers it), so they pass to the HIP functions unchanged. [`result`] is
//! cudarc's thin layer and [`CudaRng`] its safe generator, built on the
//! `hiprand` crate.
//!
//! ```no_run
//! use cuda_compat::curand::CudaRng;
//! use cuda_compat::driver::CudaContext;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ctx = CudaContext::new(0)?;
//! let stream = ctx.default_stream();
//! let mut noise = stream.alloc_zeros::<f32>(1 << 20)?;
//! let rng = CudaRng::new(42, stream.clone())?;
//! rng.fill_with_normal(&mut noise, 0.0, 1.0)?;
//! let host = stream.clone_dtoh(&noise)?;
//! # let _ = host;
//! # Ok(()) }
//! ```

mount_generated!("../generated/curand.rs");

pub mod result;
pub mod safe;
pub use safe::*;

/// The raw cuRAND names at cudarc's path (`cudarc::curand::sys`).
pub mod sys {
    pub use super::generated::*;
    pub use crate::driver::CUstream_st;
    /// The stream type `curandSetStream` takes, as cudarc's `curand::sys`
    /// re-exports it.
    pub use crate::runtime::cudaStream_t;
    pub use crate::runtime::{libraryPropertyType, libraryPropertyType_t};
    culib_present!("hipRAND", hiprand_sys::loader::is_available());
}
