//! The CUDA driver API over HIP, in cudarc's layout.
//!
//! - The raw names (`cuInit`, `CUresult`, `CUdeviceptr`, ...) are generated
//!   from hipify-perl's table (see `COVERAGE.md`) and reachable both here
//!   (`cuda_compat::driver::cuInit`) and at cudarc's path
//!   ([`sys`]: `cuda_compat::driver::sys::cuInit`).
//! - [`result`] is the thin layer: [`DriverError`] and a status check.
//! - The safe types ([`CudaContext`], [`CudaStream`], [`CudaSlice`],
//!   [`CudaModule`], [`CudaFunction`], [`CudaEvent`], [`CudaGraph`], the
//!   launch builder [`LaunchArgs`]) have cudarc's names, method names and
//!   argument order, and are built on the safe `hip` crate. They live in
//!   [`safe`] (cudarc's `driver::safe` path) and are re-exported here.
//!
//! ```no_run
//! use cuda_compat::driver::{CudaContext, DriverError};
//! fn main() -> Result<(), DriverError> {
//!     let ctx = CudaContext::new(0)?;
//!     let stream = ctx.default_stream();
//!     let a = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
//!     assert_eq!(stream.clone_dtoh(&a)?, [1.0, 2.0, 3.0]);
//!     Ok(())
//! }
//! ```

mount_generated!("../generated/driver.rs");

mod cuda_text;
pub mod result;
pub mod safe;
pub mod sys;

pub use result::DriverError;
pub use safe::*;
