//! The CUDA runtime API (`cuda*`) over HIP.
//!
//! The raw names are generated from hipify-perl's table (see `COVERAGE.md`)
//! and reachable both here (`cuda_compat::runtime::cudaMalloc`) and at
//! cudarc's path (`cuda_compat::runtime::sys::cudaMalloc`).

crate::mount_generated!("../generated/runtime.rs");

/// The raw runtime names at cudarc's path (`cudarc::runtime::sys`).
pub mod sys {
    pub use super::generated::*;
}
