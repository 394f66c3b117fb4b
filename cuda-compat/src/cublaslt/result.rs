//! cudarc's thin cuBLASLt layer (`cudarc::cublaslt::result`): one function
//! per cuBLASLt call, same names and signatures as cudarc's, each turning
//! the status into a `Result`. They call the raw names of [`sys`]
//! (hipBLASLt).
//!
//! # Safety
//!
//! The `unsafe` functions take raw handles, descriptors and pointers: the
//! caller guarantees they are live (made by the matching `create_*` and not
//! yet destroyed), that an attribute buffer holds `buf_size` bytes of the
//! attribute's C type, and that device pointers are live memory of the
//! handle's device holding what the layouts span.

use super::sys;
use super::sys::cublasLtMatmulAlgo_t;
use std::ffi::c_void;
use std::fmt;

/// A failed cuBLASLt call: the status, HIP's value (cudarc's
/// `cublaslt::result::CublasError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CublasError(pub sys::cublasStatus_t);

impl fmt::Display for CublasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for CublasError {}

/// `Ok(())` for `CUBLAS_STATUS_SUCCESS`, else the error.
fn check(status: sys::cublasStatus_t) -> Result<(), CublasError> {
    if status == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(CublasError(status))
    }
}

/// `cublasLtCreate`.
pub fn create_handle() -> Result<sys::cublasLtHandle_t, CublasError> {
    let mut handle = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    check(unsafe { sys::cublasLtCreate(&mut handle) })?;
    Ok(handle)
}

/// `cublasLtDestroy`.
///
/// # Safety
///
/// See the module doc; the handle is not used afterwards.
pub unsafe fn destroy_handle(handle: sys::cublasLtHandle_t) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    check(unsafe { sys::cublasLtDestroy(handle) })
}

/// `cublasLtMatrixLayoutCreate`: a column-major `rows x cols` layout.
pub fn create_matrix_layout(
    matrix_type: sys::cudaDataType,
    rows: u64,
    cols: u64,
    ld: i64,
) -> Result<sys::cublasLtMatrixLayout_t, CublasError> {
    let mut layout = std::ptr::null_mut();
    // SAFETY: `layout` is a valid place; the rest are values.
    check(unsafe { sys::cublasLtMatrixLayoutCreate(&mut layout, matrix_type, rows, cols, ld) })?;
    Ok(layout)
}

/// `cublasLtMatrixLayoutSetAttribute`.
///
/// # Safety
///
/// See the module doc.
pub unsafe fn set_matrix_layout_attribute(
    matrix_layout: sys::cublasLtMatrixLayout_t,
    attr: sys::cublasLtMatrixLayoutAttribute_t,
    buf: *const c_void,
    buf_size: usize,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    check(unsafe { sys::cublasLtMatrixLayoutSetAttribute(matrix_layout, attr, buf, buf_size) })
}

/// `cublasLtMatrixLayoutDestroy`.
///
/// # Safety
///
/// See the module doc.
pub unsafe fn destroy_matrix_layout(
    matrix_layout: sys::cublasLtMatrixLayout_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    check(unsafe { sys::cublasLtMatrixLayoutDestroy(matrix_layout) })
}

/// `cublasLtMatmulDescCreate`.
pub fn create_matmul_desc(
    compute_type: sys::cublasComputeType_t,
    scale_type: sys::cudaDataType,
) -> Result<sys::cublasLtMatmulDesc_t, CublasError> {
    let mut desc = std::ptr::null_mut();
    // SAFETY: `desc` is a valid place; the rest are values.
    check(unsafe { sys::cublasLtMatmulDescCreate(&mut desc, compute_type, scale_type) })?;
    Ok(desc)
}

/// `cublasLtMatmulDescSetAttribute`.
///
/// # Safety
///
/// See the module doc.
pub unsafe fn set_matmul_desc_attribute(
    matmul_desc: sys::cublasLtMatmulDesc_t,
    attr: sys::cublasLtMatmulDescAttributes_t,
    buf: *const c_void,
    buf_size: usize,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    check(unsafe { sys::cublasLtMatmulDescSetAttribute(matmul_desc, attr, buf, buf_size) })
}

/// `cublasLtMatmulDescDestroy`.
///
/// # Safety
///
/// See the module doc.
pub unsafe fn destroy_matmul_desc(
    matmul_desc: sys::cublasLtMatmulDesc_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    check(unsafe { sys::cublasLtMatmulDescDestroy(matmul_desc) })
}

/// `cublasLtMatmulPreferenceCreate`.
pub fn create_matmul_pref() -> Result<sys::cublasLtMatmulPreference_t, CublasError> {
    let mut pref = std::ptr::null_mut();
    // SAFETY: `pref` is a valid place.
    check(unsafe { sys::cublasLtMatmulPreferenceCreate(&mut pref) })?;
    Ok(pref)
}

/// `cublasLtMatmulPreferenceSetAttribute`.
///
/// # Safety
///
/// See the module doc.
pub unsafe fn set_matmul_pref_attribute(
    matmul_pref: sys::cublasLtMatmulPreference_t,
    attr: sys::cublasLtMatmulPreferenceAttributes_t,
    buf: *const c_void,
    buf_size: usize,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    check(unsafe { sys::cublasLtMatmulPreferenceSetAttribute(matmul_pref, attr, buf, buf_size) })
}

/// `cublasLtMatmulPreferenceDestroy`.
///
/// # Safety
///
/// See the module doc.
pub unsafe fn destroy_matmul_pref(
    matmul_pref: sys::cublasLtMatmulPreference_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    check(unsafe { sys::cublasLtMatmulPreferenceDestroy(matmul_pref) })
}

/// `cublasLtMatmulAlgoGetHeuristic` for the best algorithm;
/// `CUBLAS_STATUS_NOT_SUPPORTED` when there is none (as cudarc).
///
/// # Safety
///
/// See the module doc.
pub unsafe fn get_matmul_algo_heuristic(
    handle: sys::cublasLtHandle_t,
    matmul_desc: sys::cublasLtMatmulDesc_t,
    a_layout: sys::cublasLtMatrixLayout_t,
    b_layout: sys::cublasLtMatrixLayout_t,
    c_layout: sys::cublasLtMatrixLayout_t,
    d_layout: sys::cublasLtMatrixLayout_t,
    matmul_pref: sys::cublasLtMatmulPreference_t,
) -> Result<sys::cublasLtMatmulHeuristicResult_t, CublasError> {
    let mut result = sys::cublasLtMatmulHeuristicResult_t {
        algo: cublasLtMatmulAlgo_t::default(),
        workspaceSize: 0,
        state: hipblaslt_sys::hipblasStatus_t::HIPBLAS_STATUS_SUCCESS,
        wavesCount: 0.0,
        reserved: [0; 4],
    };
    let mut returned = 0;
    // SAFETY: the caller's contract; `result` holds one result and
    // `returned` is a valid place.
    check(unsafe {
        sys::cublasLtMatmulAlgoGetHeuristic(
            handle,
            matmul_desc,
            a_layout,
            b_layout,
            c_layout,
            d_layout,
            matmul_pref,
            1,
            &mut result,
            &mut returned,
        )
    })?;
    if returned == 0 {
        return Err(CublasError(
            sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
        ));
    }
    Ok(result)
}

/// `cublasLtMatmul`: `D = alpha * op(A) * op(B) + beta * C`, epilogue
/// after.
///
/// # Safety
///
/// See the module doc; `alpha`/`beta` point to the scale type's values.
#[allow(clippy::too_many_arguments)]
pub unsafe fn matmul(
    handle: sys::cublasLtHandle_t,
    matmul_desc: sys::cublasLtMatmulDesc_t,
    alpha: *const c_void,
    beta: *const c_void,
    a: *const c_void,
    a_layout: sys::cublasLtMatrixLayout_t,
    b: *const c_void,
    b_layout: sys::cublasLtMatrixLayout_t,
    c: *const c_void,
    c_layout: sys::cublasLtMatrixLayout_t,
    d: *mut c_void,
    d_layout: sys::cublasLtMatrixLayout_t,
    algo: *const cublasLtMatmulAlgo_t,
    workspace: *mut c_void,
    workspace_size: usize,
    stream: sys::cudaStream_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's contract.
    check(unsafe {
        sys::cublasLtMatmul(
            handle,
            matmul_desc,
            alpha,
            a,
            a_layout,
            b,
            b_layout,
            beta,
            c,
            c_layout,
            d,
            d_layout,
            algo,
            workspace,
            workspace_size,
            stream,
        )
    })
}
