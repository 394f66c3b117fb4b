//! The CUDA runtime API (`cuda*`) over HIP.
//!
//! The raw names are generated from hipify-perl's table (see `COVERAGE.md`)
//! and reachable both here (`cuda_compat::runtime::cudaMalloc`) and at
//! cudarc's path (`cuda_compat::runtime::sys::cudaMalloc`). [`result`] is
//! cudarc's thin layer ([`result::RuntimeError`], `result::stream::create`,
//! ...), over the `hip` crate's result layer.

mount_generated!("../generated/runtime.rs");

pub mod result;

/// The raw runtime names at cudarc's path (`cudarc::runtime::sys`).
pub mod sys {
    pub use super::generated::*;
}
