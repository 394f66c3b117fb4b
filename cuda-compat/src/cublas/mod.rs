//! cuBLAS over hipBLAS, in cudarc's layout.
//!
//! The raw names (`cublasSgemm_v2`, ...) are generated from hipify-perl's
//! table and reachable both here and at cudarc's path ([`sys`]).

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
#[path = "../generated/cublas.rs"]
mod generated;
pub use generated::*;

/// cudarc's `cublas::result` path for the error type.
pub mod result {
    pub use super::safe::CublasError;
}

/// The raw cuBLAS names at cudarc's path (`cudarc::cublas::sys`).
pub mod sys {
    pub use super::generated::*;
}

mod safe;
pub use safe::*;
