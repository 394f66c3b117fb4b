//! cuSOLVER over hipSOLVER, in cudarc's layout (`cusolver` feature, off by
//! default as in cudarc).
//!
//! The raw names of `cusolverDn.h`, `cusolverRf.h` and `cusolver_common.h`
//! (`cusolverDnCreate`, `cusolverDnSgetrf`, `CUSOLVER_EIG_MODE_VECTOR`,
//! `cusolverStatus_t`, ...), and the `cusolverSp*` functions hipify-perl
//! maps, are generated from hipify-perl's table over `hipsolver-sys` and
//! reachable both here and at cudarc's path ([`sys`]). The enum constants
//! carry hipSOLVER's values (`CUSOLVER_EIG_MODE_VECTOR` is 202 here, as
//! hipSOLVER numbers it), so they pass to the HIP functions unchanged; on
//! the NVIDIA platform hipsolver-sys translates them to cuSOLVER's. The
//! fill-mode, operation and side enums of the dense calls are
//! [`crate::cublas`]'s, as in CUDA.
//!
//! [`result`] is cudarc's thin layer (`CusolverError`, the handle calls)
//! and [`DnHandle`], [`DnParams`], [`SpHandle`] and [`RfHandle`] its
//! handles. The safe dense routines of this workspace are the `hipsolver`
//! crate.
//!
//! ```no_run
//! use cuda_compat::cusolver::{sys, DnHandle};
//! use cuda_compat::driver::CudaContext;
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ctx = CudaContext::new(0)?;
//! let stream = ctx.default_stream();
//! let handle = DnHandle::new(stream.clone())?;
//! let mut lwork = 0;
//! // SAFETY: a live handle; `lwork` is a valid place for the size (the
//! // matrix pointer is not read by a size query).
//! unsafe {
//!     sys::cusolverDnSgetrf_bufferSize(handle.cu(), 4, 4, std::ptr::null_mut(), 4, &mut lwork)
//! }
//! .result()?;
//! # Ok(()) }
//! ```

mount_generated!("../generated/cusolver.rs");

pub mod result;
pub mod safe;
pub use safe::*;

/// The raw cuSOLVER names at cudarc's path (`cudarc::cusolver::sys`), with
/// the cuBLAS enums and the stream type its functions take, as cudarc's
/// `cusolver::sys` has them.
pub mod sys {
    pub use super::generated::*;
    pub use crate::cublas::{
        cuComplex, cuDoubleComplex, cuFloatComplex, cublasDiagType_t, cublasFillMode_t,
        cublasOperation_t, cublasSideMode_t,
    };
    pub use crate::cusparse::sys::cusparseMatDescr_t;
    pub use crate::driver::CUstream_st;
    pub use crate::runtime::{
        cudaDataType, cudaDataType_t, cudaStream_t, double2, float2, libraryPropertyType,
        libraryPropertyType_t,
    };
    culib_present!("hipSOLVER", hipsolver_sys::loader::is_available());
}
