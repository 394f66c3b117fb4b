//! cudarc's `cusolver::result`: the cuSOLVER status as a `Result`, and the
//! handle calls the safe handles make, each a thin wrapper of one C
//! function.

use super::sys;
use std::fmt;

/// A cuSOLVER status other than `CUSOLVER_STATUS_SUCCESS` (hipSOLVER's
/// value).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CusolverError(pub sys::cusolverStatus_t);

impl sys::cusolverStatus_t {
    /// `Ok(())` for `CUSOLVER_STATUS_SUCCESS`, else the error.
    pub fn result(self) -> Result<(), CusolverError> {
        if self == sys::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(CusolverError(self))
        }
    }
}

impl fmt::Display for CusolverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for CusolverError {}

/// `cusolverDnCreate`.
pub fn dn_create() -> Result<sys::cusolverDnHandle_t, CusolverError> {
    let mut handle = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    unsafe { sys::cusolverDnCreate(&mut handle) }.result()?;
    Ok(handle)
}

/// `cusolverDnDestroy`.
///
/// # Safety
/// `handle` was made by [`dn_create`] and is not used after this call.
pub unsafe fn dn_destroy(handle: sys::cusolverDnHandle_t) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cusolverDnDestroy(handle) }.result()
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
    unsafe { sys::cusolverDnSetStream(handle, stream) }.result()
}

/// `cusolverDnGetDeterministicMode`.
///
/// # Safety
/// `handle` is live.
pub unsafe fn dn_get_deterministic_mode(
    handle: sys::cusolverDnHandle_t,
) -> Result<sys::cusolverDeterministicMode_t, CusolverError> {
    let mut mode = sys::cusolverDeterministicMode_t::CUSOLVER_DETERMINISTIC_RESULTS;
    // SAFETY: the caller's contract; `mode` is a valid place for the mode.
    unsafe { sys::cusolverDnGetDeterministicMode(handle, &mut mode) }.result()?;
    Ok(mode)
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
    unsafe { sys::cusolverDnSetDeterministicMode(handle, mode) }.result()
}

/// `cusolverDnCreateParams`.
pub fn dn_create_params() -> Result<sys::cusolverDnParams_t, CusolverError> {
    let mut params = std::ptr::null_mut();
    // SAFETY: `params` is a valid place for the new parameters.
    unsafe { sys::cusolverDnCreateParams(&mut params) }.result()?;
    Ok(params)
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
    unsafe { sys::cusolverDnSetAdvOptions(params, function, algo) }.result()
}

/// `cusolverDnDestroyParams`.
///
/// # Safety
/// `params` was made by [`dn_create_params`] and is not used after this
/// call.
pub unsafe fn dn_destroy_params(params: sys::cusolverDnParams_t) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cusolverDnDestroyParams(params) }.result()
}

/// `cusolverSpCreate`.
pub fn sp_create() -> Result<sys::cusolverSpHandle_t, CusolverError> {
    let mut handle = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    unsafe { sys::cusolverSpCreate(&mut handle) }.result()?;
    Ok(handle)
}

/// `cusolverSpDestroy`.
///
/// # Safety
/// `handle` was made by [`sp_create`] and is not used after this call.
pub unsafe fn sp_destroy(handle: sys::cusolverSpHandle_t) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cusolverSpDestroy(handle) }.result()
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
    unsafe { sys::cusolverSpSetStream(handle, stream) }.result()
}

/// `cusolverRfCreate`.
pub fn rf_create() -> Result<sys::cusolverRfHandle_t, CusolverError> {
    let mut handle = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    unsafe { sys::cusolverRfCreate(&mut handle) }.result()?;
    Ok(handle)
}

/// `cusolverRfDestroy`.
///
/// # Safety
/// `handle` was made by [`rf_create`] and is not used after this call.
pub unsafe fn rf_destroy(handle: sys::cusolverRfHandle_t) -> Result<(), CusolverError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cusolverRfDestroy(handle) }.result()
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
    unsafe { sys::cusolverRfSetMatrixFormat(handle, format, diag) }.result()
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
    unsafe { sys::cusolverRfSetNumericProperties(handle, zero, boost) }.result()
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
    unsafe { sys::cusolverRfSetResetValuesFastMode(handle, fast_mode) }.result()
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
    unsafe { sys::cusolverRfSetAlgs(handle, fact_alg, alg) }.result()
}
