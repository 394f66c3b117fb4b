//! cudarc's `cusparse::result`: the cuSPARSE status as a `Result`, and the
//! handle's life cycle.

use super::sys;
use std::fmt;

/// A cuSPARSE status other than `CUSPARSE_STATUS_SUCCESS` (hipSPARSE's
/// value, which is cuSPARSE's).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CusparseError(pub sys::cusparseStatus_t);

impl sys::cusparseStatus_t {
    /// `Ok(())` for `CUSPARSE_STATUS_SUCCESS`, else the error.
    #[inline]
    pub fn result(self) -> Result<(), CusparseError> {
        if self == sys::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(CusparseError(self))
        }
    }
}

impl fmt::Display for CusparseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for CusparseError {}

/// `cusparseCreate`: a new handle (destroy it with [`destroy`]).
pub fn create() -> Result<sys::cusparseHandle_t, CusparseError> {
    let mut handle = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    unsafe { sys::cusparseCreate(&mut handle) }.result()?;
    Ok(handle)
}

/// `cusparseDestroy`.
///
/// # Safety
/// `handle` was made by [`create`] and is not used after this call.
pub unsafe fn destroy(handle: sys::cusparseHandle_t) -> Result<(), CusparseError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cusparseDestroy(handle) }.result()
}

/// `cusparseSetStream`.
///
/// # Safety
/// `handle` is live and `stream` outlives the calls made with it.
pub unsafe fn set_stream(
    handle: sys::cusparseHandle_t,
    stream: sys::cudaStream_t,
) -> Result<(), CusparseError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cusparseSetStream(handle, stream) }.result()
}
