//! cuSPARSE over hipSPARSE, in cudarc's layout (`cusparse` feature, off by
//! default as in cudarc).
//!
//! The raw names (`cusparseCreate`, `cusparseSpMV`, `CUSPARSE_SPMV_ALG_DEFAULT`,
//! `cusparseHandle_t`, ...) of `cusparse.h` are generated from
//! hipify-perl's table over `hipsparse-sys` and reachable both here and at
//! cudarc's path ([`sys`]). hipSPARSE numbers its enums as cuSPARSE does
//! (hipsparse-sys checks every value against cuSPARSE 12.5's header), so
//! the constants pass to hipSPARSE unchanged. [`result`] is cudarc's thin
//! layer: [`result::CusparseError`], `cusparseStatus_t::result`,
//! [`result::create`] and [`result::destroy`] of the `cusparseHandle_t`
//! handle. The safe sparse API of this workspace is the `hipsparse` crate.
//!
//! ```no_run
//! use cuda_compat::cusparse::{result, sys};
//! # fn main() -> Result<(), result::CusparseError> {
//! let handle: sys::cusparseHandle_t = result::create()?;
//! // SAFETY: made above, destroyed once.
//! unsafe { result::destroy(handle) }?;
//! # Ok(()) }
//! ```

mount_generated!("../generated/cusparse.rs");

pub mod result;

/// The raw cuSPARSE names at cudarc's path (`cudarc::cusparse::sys`).
pub mod sys {
    pub use super::generated::*;
    pub use crate::cublas::{cuComplex, cuDoubleComplex, cuFloatComplex};
    pub use crate::driver::CUstream_st;
    /// The stream type `cusparseSetStream` takes.
    pub use crate::runtime::cudaStream_t;
    pub use crate::runtime::{
        cudaDataType, cudaDataType_t, double2, float2, libraryPropertyType, libraryPropertyType_t,
    };
    culib_present!("hipSPARSE", hipsparse_sys::loader::is_available());
}
