//! cuBLAS over hipBLAS, in cudarc's layout.
//!
//! The raw names (`cublasSgemm_v2`, ...) are generated from hipify-perl's
//! table and reachable both here and at cudarc's path ([`sys`]).

crate::mount_generated!("../generated/cublas.rs");

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
