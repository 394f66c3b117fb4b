//! The CUDA runtime API (`cuda*`) over HIP.
//!
//! The raw names are generated from hipify-perl's table (see `COVERAGE.md`)
//! and reachable both here (`cuda_compat::runtime::cudaMalloc`) and at
//! cudarc's path (`cuda_compat::runtime::sys::cudaMalloc`).

#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    unused_qualifications,
    unreachable_pub,
    clippy::all,
    // Each wrapper's unsafe block only forwards the caller's arguments to the
    // HIP function of the same contract, stated in the wrapper's `# Safety`.
    clippy::undocumented_unsafe_blocks,
    rustdoc::all
)]
#[path = "../generated/runtime.rs"]
mod generated;
pub use generated::*;

/// The raw runtime names at cudarc's path (`cudarc::runtime::sys`).
pub mod sys {
    pub use super::generated::*;
}
