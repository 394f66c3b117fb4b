//! cuBLAS over hipBLAS, in cudarc's layout.
//!
//! - The raw names (`cublasSgemm_v2`, ...) are generated from hipify-perl's
//!   table and reachable both here and at cudarc's path ([`sys`]).
//! - [`result`] is cudarc's thin layer: one function per call
//!   (`create_handle`, `sgemm`, `gemm_strided_batched_ex`, ...), the status
//!   as a `Result`.
//! - The safe types ([`CudaBlas`], [`Gemm`], [`Gemv`], [`Asum`]) check
//!   shapes and buffer lengths and call [`result`].

mount_generated!("../generated/cublas.rs");

pub mod result;

/// The raw cuBLAS names at cudarc's path (`cudarc::cublas::sys`), with the
/// names of other CUDA headers cuBLAS's declarations use, as cudarc's
/// bindings have them (`cudaDataType_t`, `cudaStream_t`, ...).
pub mod sys {
    pub use super::generated::*;
    pub use crate::driver::CUstream_st;
    pub use crate::runtime::{
        cudaDataType, cudaDataType_t, cudaStream_t, double2, float2, libraryPropertyType,
        libraryPropertyType_t,
    };
    culib_present!("hipBLAS", hipblas_sys::loader::hipblas().is_ok());
}

pub mod safe;
pub use safe::*;
