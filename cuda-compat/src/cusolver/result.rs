//! cudarc's `cusolver::result`: the cuSOLVER status as a `Result`, and the
//! handle calls the safe handles make, each a thin wrapper of one C
//! function. Each calls the `hipsolver` crate's
//! [`result`](hipsolver::result) layer and turns its error into a
//! [`CusolverError`] that keeps the message ([`last_error_detail`]).

use super::sys;
use hipsolver::result as ours_result;

status_error! {
    /// A cuSOLVER status other than `CUSOLVER_STATUS_SUCCESS` (hipSOLVER's
    /// value). `Debug` and `Display` print this thread's reason
    /// ([`last_error_detail`]) when the status matches.
    pub struct CusolverError(pub sys::cusolverStatus_t);
    /// The reason for the last cuSOLVER error this thread got, with its
    /// status: the `hipsolver` crate's message (the call, its status and
    /// what it means, or the paths tried when no library loads); `None`
    /// after an error that is a raw status.
    ///
    /// ```no_run
    /// use cuda_compat::cusolver::result::{dn_create, last_error_detail};
    /// if let Err(e) = dn_create() {
    ///     let (status, why) = last_error_detail().unwrap();
    ///     assert_eq!(status, e.0);
    ///     println!("{why}");
    /// }
    /// ```
    detail;
    from hipsolver {
        load: CUSOLVER_STATUS_NOT_INITIALIZED,
        invalid: CUSOLVER_STATUS_INVALID_VALUE,
        unsupported: CUSOLVER_STATUS_NOT_SUPPORTED,
        other: CUSOLVER_STATUS_NOT_INITIALIZED,
    }
}

impl sys::cusolverStatus_t {
    /// `Ok(())` for `CUSOLVER_STATUS_SUCCESS`, else the error (the raw
    /// status: no reason of an earlier error is printed with it).
    pub fn result(self) -> Result<(), CusolverError> {
        if self == sys::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
            Ok(())
        } else {
            clear_detail();
            Err(CusolverError(self))
        }
    }
}

/// `cusolverDnCreate`, on the current device. It acts on the whole
/// device, which CUDA forbids while any stream of it captures: it waits
/// for the device's open captures to end (`hip`'s capture gate), and fails
/// when this thread captures.
pub fn dn_create() -> Result<sys::cusolverDnHandle_t, CusolverError> {
    crate::gate::holding_current("cusolverDnCreate", ours_result::create).map_err(ours)
}

/// `cusolverDnDestroy`, holding the capture gate as [`dn_create`] does.
///
/// # Safety
/// `handle` was made by [`dn_create`] and is not used after this call.
pub unsafe fn dn_destroy(handle: sys::cusolverDnHandle_t) -> Result<(), CusolverError> {
    crate::gate::holding_current("cusolverDnDestroy", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::destroy(handle, held) }
    })
    .map_err(ours)
}

/// `cusolverDnSetStream`.
///
/// # Safety
/// `handle` is live and `stream` outlives the calls made with it.
pub unsafe fn dn_set_stream(
    handle: sys::cusolverDnHandle_t,
    stream: sys::cudaStream_t,
) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::set_stream(handle, stream) }.map_err(ours)
}

/// `cusolverDnGetDeterministicMode`.
///
/// # Safety
/// `handle` is live.
pub unsafe fn dn_get_deterministic_mode(
    handle: sys::cusolverDnHandle_t,
) -> Result<sys::cusolverDeterministicMode_t, CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::get_deterministic_mode(handle) }
        .map(Into::into)
        .map_err(ours)
}

/// `cusolverDnSetDeterministicMode`.
///
/// # Safety
/// `handle` is live.
pub unsafe fn dn_set_deterministic_mode(
    handle: sys::cusolverDnHandle_t,
    mode: sys::cusolverDeterministicMode_t,
) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::set_deterministic_mode(handle, mode.into()) }.map_err(ours)
}

/// `cusolverDnCreateParams`.
pub fn dn_create_params() -> Result<sys::cusolverDnParams_t, CusolverError> {
    ours_result::create_params().map_err(ours)
}

/// `cusolverDnSetAdvOptions`.
///
/// # Safety
/// `params` is live.
pub unsafe fn dn_set_adv_options(
    params: sys::cusolverDnParams_t,
    function: sys::cusolverDnFunction_t,
    algo: sys::cusolverAlgMode_t,
) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::set_adv_options(params, function.into(), algo.into()) }.map_err(ours)
}

/// `cusolverDnDestroyParams`.
///
/// # Safety
/// `params` was made by [`dn_create_params`] and is not used after this
/// call.
pub unsafe fn dn_destroy_params(params: sys::cusolverDnParams_t) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::destroy_params(params) }.map_err(ours)
}

/// `cusolverSpCreate`, holding the current device's capture gate as
/// [`dn_create`] does.
pub fn sp_create() -> Result<sys::cusolverSpHandle_t, CusolverError> {
    crate::gate::holding_current("cusolverSpCreate", ours_result::sp_create).map_err(ours)
}

/// `cusolverSpDestroy`, holding the capture gate as [`dn_create`] does.
///
/// # Safety
/// `handle` was made by [`sp_create`] and is not used after this call.
pub unsafe fn sp_destroy(handle: sys::cusolverSpHandle_t) -> Result<(), CusolverError> {
    crate::gate::holding_current("cusolverSpDestroy", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::sp_destroy(handle, held) }
    })
    .map_err(ours)
}

/// `cusolverSpSetStream`.
///
/// # Safety
/// `handle` is live and `stream` outlives the calls made with it.
pub unsafe fn sp_set_stream(
    handle: sys::cusolverSpHandle_t,
    stream: sys::cudaStream_t,
) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::sp_set_stream(handle, stream) }.map_err(ours)
}

/// `cusolverRfCreate`, holding the current device's capture gate as
/// [`dn_create`] does.
pub fn rf_create() -> Result<sys::cusolverRfHandle_t, CusolverError> {
    crate::gate::holding_current("cusolverRfCreate", ours_result::rf_create).map_err(ours)
}

/// `cusolverRfDestroy`, holding the capture gate as [`dn_create`] does.
///
/// # Safety
/// `handle` was made by [`rf_create`] and is not used after this call.
pub unsafe fn rf_destroy(handle: sys::cusolverRfHandle_t) -> Result<(), CusolverError> {
    crate::gate::holding_current("cusolverRfDestroy", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::rf_destroy(handle, held) }
    })
    .map_err(ours)
}

/// `cusolverRfSetMatrixFormat`.
///
/// # Safety
/// `handle` is live.
pub unsafe fn rf_set_matrix_format(
    handle: sys::cusolverRfHandle_t,
    format: sys::cusolverRfMatrixFormat_t,
    diag: sys::cusolverRfUnitDiagonal_t,
) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::rf_set_matrix_format(handle, format.into(), diag.into()) }.map_err(ours)
}

/// `cusolverRfSetNumericProperties`.
///
/// # Safety
/// `handle` is live.
pub unsafe fn rf_set_numeric_properties(
    handle: sys::cusolverRfHandle_t,
    zero: f64,
    boost: f64,
) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::rf_set_numeric_properties(handle, zero, boost) }.map_err(ours)
}

/// `cusolverRfSetResetValuesFastMode`.
///
/// # Safety
/// `handle` is live.
pub unsafe fn rf_set_reset_values_fast_mode(
    handle: sys::cusolverRfHandle_t,
    fast_mode: sys::cusolverRfResetValuesFastMode_t,
) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::rf_set_reset_values_fast_mode(handle, fast_mode.into()) }.map_err(ours)
}

/// `cusolverRfSetAlgs`.
///
/// # Safety
/// `handle` is live.
pub unsafe fn rf_set_algs(
    handle: sys::cusolverRfHandle_t,
    fact_alg: sys::cusolverRfFactorization_t,
    alg: sys::cusolverRfTriangularSolve_t,
) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::rf_set_algs(handle, fact_alg.into(), alg.into()) }.map_err(ours)
}
