//! cuBLASLt over hipBLASLt, in cudarc's layout (`cublaslt` feature, on by
//! default as in cudarc).
//!
//! - The raw names (`cublasLtMatmul`, `cublasLtMatmulDescSetAttribute`,
//!   `CUBLASLT_EPILOGUE_GELU_BIAS`, ...) of `cublasLt.h` are generated from
//!   hipify-perl's table over `hipblaslt-sys` and reachable both here and at
//!   cudarc's path ([`sys`]). The constants carry hipBLASLt's values
//!   (hipBLASLt numbers its attributes in its own order), which hipBLASLt
//!   takes on AMD and hipblaslt-sys's NVIDIA backend maps back to
//!   cuBLASLt's, so code that only uses the names works on both.
//! - [`result`] is cudarc's thin layer (`create_handle`,
//!   `set_matmul_desc_attribute`, `get_matmul_algo_heuristic`, `matmul`,
//!   ...), the status as a `Result`.
//! - The safe types ([`CudaBlasLT`], [`Matmul`], [`MatmulConfig`],
//!   [`Activation`], [`Workspace`]) check the shapes, leading dimensions,
//!   strides and buffer lengths before any call.
//!
//! Differences from cuBLASLt, each an error rather than a wrong answer:
//! `transc` and a per-batch bias stride (`stride_bias` with a batch) have
//! no hipBLASLt counterpart (`CUBLAS_STATUS_NOT_SUPPORTED`), and `f32`
//! matmuls accumulate in plain `f32` (`CUBLAS_COMPUTE_32F`), not cudarc's
//! TF32, which AMD GPUs other than the MI300 series lack.

mount_generated!("../generated/cublaslt.rs");

mod logger;

pub mod result;

/// The raw cuBLASLt names at cudarc's path (`cudarc::cublaslt::sys`), with
/// the names of other CUDA headers cuBLASLt's declarations use, as cudarc's
/// bindings have them.
pub mod sys {
    pub use super::generated::*;
    pub use super::logger::*;
    pub use crate::cublas::sys::{cublasComputeType_t, cublasOperation_t, cublasStatus_t};
    pub use crate::driver::CUstream_st;
    pub use crate::runtime::{
        cudaDataType, cudaDataType_t, cudaStream_t, libraryPropertyType, libraryPropertyType_t,
    };
    culib_present!("hipBLASLt", hipblaslt_sys::loader::is_available());
}

pub mod safe;
pub use safe::*;
