//! cudarc's thin cuBLASLt layer (`cudarc::cublaslt::result`): one function
//! per cuBLASLt call, same names and signatures as cudarc's, each turning
//! the status into a `Result`. Each calls the `hipblaslt` crate's
//! [`result`](hipblaslt::result) layer and turns its error into a
//! [`CublasError`] that keeps the message ([`last_error_detail`]).
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
use hipblaslt::result as ours_result;
use std::ffi::c_void;

status_error! {
    /// A failed cuBLASLt call: the status, HIP's value (cudarc's
    /// `cublaslt::result::CublasError`, a type apart from
    /// [`cublas::result::CublasError`](crate::cublas::result::CublasError)).
    /// `Debug` and `Display` print this thread's reason
    /// ([`last_error_detail`]) when the status matches.
    pub struct CublasError(pub sys::cublasStatus_t);
    /// The reason for the last cuBLASLt error this thread got, with its
    /// status: the `hipblaslt` crate's message (the C function, its status
    /// and what it means, or the library paths tried), or why the safe
    /// layer refused the call; `None` after an error that is a raw status
    /// or whose status says it all.
    ///
    /// ```no_run
    /// use cuda_compat::cublaslt::result::{create_handle, last_error_detail};
    /// if let Err(e) = create_handle() {
    ///     let (status, why) = last_error_detail().unwrap();
    ///     assert_eq!(status, e.0);
    ///     println!("{why}");
    /// }
    /// ```
    detail;
    from hipblaslt {
        load: CUBLAS_STATUS_NOT_INITIALIZED,
        invalid: CUBLAS_STATUS_INVALID_VALUE,
        unsupported: CUBLAS_STATUS_NOT_SUPPORTED,
        other: CUBLAS_STATUS_NOT_INITIALIZED,
    }
}

/// `cublasLtCreate`, on the current device. It acts on the whole device,
/// which CUDA forbids while any stream of it captures: it waits for the
/// device's open captures to end (`hip`'s capture gate), and fails when
/// this thread captures.
pub fn create_handle() -> Result<sys::cublasLtHandle_t, CublasError> {
    crate::gate::holding_current("cublasLtCreate", ours_result::create).map_err(ours)
}

/// `cublasLtDestroy`, holding the capture gate as [`create_handle`] does.
///
/// # Safety
///
/// See the module doc; the handle is not used afterwards.
pub unsafe fn destroy_handle(handle: sys::cublasLtHandle_t) -> Result<(), CublasError> {
    crate::gate::holding_current("cublasLtDestroy", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::destroy(handle, held) }
    })
    .map_err(ours)
}

/// `cublasLtMatrixLayoutCreate`: a column-major `rows x cols` layout.
pub fn create_matrix_layout(
    matrix_type: sys::cudaDataType,
    rows: u64,
    cols: u64,
    ld: i64,
) -> Result<sys::cublasLtMatrixLayout_t, CublasError> {
    ours_result::layout_create(matrix_type.into(), rows, cols, ld).map_err(ours)
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
    unsafe { ours_result::layout_set_attribute(matrix_layout, attr.into(), buf, buf_size) }
        .map_err(ours)
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
    unsafe { ours_result::layout_destroy(matrix_layout) }.map_err(ours)
}

/// `cublasLtMatmulDescCreate`.
pub fn create_matmul_desc(
    compute_type: sys::cublasComputeType_t,
    scale_type: sys::cudaDataType,
) -> Result<sys::cublasLtMatmulDesc_t, CublasError> {
    ours_result::desc_create(compute_type.into(), scale_type.into()).map_err(ours)
}

/// `cublasLtMatmulDescSetAttribute`.
///
/// Two attributes hipBLASLt lacks (`CUBLASLT_MATMUL_DESC_TRANSC` and
/// `CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE`, with the `synthesized-enums`
/// feature) are accepted, calling nothing, when set to the one value
/// whose meaning is what hipBLASLt always does: `CUBLAS_OP_N` for C (the
/// only transform of C cuBLASLt supports either) and a bias batch stride
/// of 0 (one bias for the whole batch: cuBLASLt's default). Another value
/// is `CUBLAS_STATUS_NOT_SUPPORTED`, with the reason.
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
    #[cfg(feature = "synthesized-enums")]
    // SAFETY: the caller's contract: `buf` holds `buf_size` bytes.
    if let Some(done) = unsafe { desc_attribute_hip_lacks(attr, buf, buf_size) } {
        return done;
    }
    // SAFETY: the caller's contract.
    unsafe { ours_result::desc_set_attribute(matmul_desc, attr.into(), buf, buf_size) }
        .map_err(ours)
}

/// [`set_matmul_desc_attribute`] of an attribute hipBLASLt lacks: `None`
/// for the others.
///
/// # Safety
///
/// `buf` is null or holds `buf_size` readable bytes.
#[cfg(feature = "synthesized-enums")]
unsafe fn desc_attribute_hip_lacks(
    attr: sys::cublasLtMatmulDescAttributes_t,
    buf: *const c_void,
    buf_size: usize,
) -> Option<Result<(), CublasError>> {
    use sys::cublasLtMatmulDescAttributes_t as A;
    use sys::cublasStatus_t as S;
    let (name, size, meaning) = match attr {
        A::CUBLASLT_MATMUL_DESC_TRANSC => (
            "CUBLASLT_MATMUL_DESC_TRANSC",
            size_of::<i32>(),
            "CUBLAS_OP_N (0), the only transform of C cuBLASLt supports",
        ),
        A::CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE => (
            "CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE",
            size_of::<i64>(),
            "0, one bias for the whole batch (cuBLASLt's default)",
        ),
        _ => return None,
    };
    if buf.is_null() || buf_size != size {
        return Some(Err(fail(
            S::CUBLAS_STATUS_INVALID_VALUE,
            &format!("cublasLtMatmulDescSetAttribute: {name} takes {size} bytes, not {buf_size} (or a null buffer)"),
        )));
    }
    let value = if size == 4 {
        // SAFETY: `buf` holds 4 bytes (checked), of any alignment.
        i64::from(unsafe { buf.cast::<i32>().read_unaligned() })
    } else {
        // SAFETY: `buf` holds 8 bytes (checked), of any alignment.
        unsafe { buf.cast::<i64>().read_unaligned() }
    };
    Some(if value == 0 {
        Ok(())
    } else {
        Err(fail(
            S::CUBLAS_STATUS_NOT_SUPPORTED,
            &format!(
                "cublasLtMatmulDescSetAttribute: {name} = {value}: hipBLASLt has no such attribute, \
                 so only {meaning} is accepted (as a no-op)"
            ),
        ))
    })
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
    unsafe { ours_result::desc_destroy(matmul_desc) }.map_err(ours)
}

/// `cublasLtMatmulPreferenceCreate`.
pub fn create_matmul_pref() -> Result<sys::cublasLtMatmulPreference_t, CublasError> {
    ours_result::preference_create().map_err(ours)
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
    unsafe { ours_result::preference_set_attribute(matmul_pref, attr.into(), buf, buf_size) }
        .map_err(ours)
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
    unsafe { ours_result::preference_destroy(matmul_pref) }.map_err(ours)
}

/// `cublasLtMatmulAlgoGetHeuristic` for the best algorithm;
/// `CUBLAS_STATUS_NOT_SUPPORTED` when there is none (as cudarc), with the
/// reason in [`last_error_detail`].
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
    // SAFETY: the caller's contract; `result` holds one result.
    let returned = unsafe {
        ours_result::heuristic_into(
            handle,
            matmul_desc,
            a_layout,
            b_layout,
            c_layout,
            d_layout,
            matmul_pref,
            std::slice::from_mut(&mut result),
        )
    }
    .map_err(ours)?;
    if returned == 0 {
        return Err(no_algorithm());
    }
    Ok(result)
}

/// `CUBLAS_STATUS_NOT_SUPPORTED`: the heuristic found no algorithm.
#[cold]
#[inline(never)]
fn no_algorithm() -> CublasError {
    fail(
        sys::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
        "hipblasLtMatmulAlgoGetHeuristic returned no algorithm for these descriptors \
         and this preference (workspace limit)",
    )
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
    unsafe {
        ours_result::matmul_ex(
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
    }
    .map_err(ours)
}
