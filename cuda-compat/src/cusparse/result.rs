//! cudarc's `cusparse::result`: the cuSPARSE status as a `Result`, and the
//! handle's life cycle. Each function calls the `hipsparse` crate's
//! [`result`](hipsparse::result) layer and turns its error into a
//! [`CusparseError`] that keeps the message ([`last_error_detail`]).

use super::sys;
use hipsparse::result as ours_result;

status_error! {
    /// A cuSPARSE status other than `CUSPARSE_STATUS_SUCCESS` (hipSPARSE's
    /// value, which is cuSPARSE's). `Debug` and `Display` print this
    /// thread's reason ([`last_error_detail`]) when the status matches.
    pub struct CusparseError(pub sys::cusparseStatus_t);
    /// The reason for the last cuSPARSE error this thread got, with its
    /// status: the `hipsparse` crate's message (the call, its status and
    /// what it means, or the paths tried when no library loads); `None`
    /// after an error that is a raw status.
    ///
    /// ```no_run
    /// use cuda_compat::cusparse::result::{create, last_error_detail};
    /// if let Err(e) = create() {
    ///     let (status, why) = last_error_detail().unwrap();
    ///     assert_eq!(status, e.0);
    ///     println!("{why}");
    /// }
    /// ```
    detail;
    from hipsparse {
        load: CUSPARSE_STATUS_NOT_INITIALIZED,
        invalid: CUSPARSE_STATUS_INVALID_VALUE,
        unsupported: CUSPARSE_STATUS_NOT_SUPPORTED,
        other: CUSPARSE_STATUS_NOT_INITIALIZED,
    }
}

impl sys::cusparseStatus_t {
    /// `Ok(())` for `CUSPARSE_STATUS_SUCCESS`, else the error (the raw
    /// status: no reason of an earlier error is printed with it).
    #[inline]
    pub fn result(self) -> Result<(), CusparseError> {
        if self == sys::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
            Ok(())
        } else {
            clear_detail();
            Err(CusparseError(self))
        }
    }
}

/// `cusparseCreate`: a new handle on the current device (destroy it with
/// [`destroy`]). It acts on the whole device, which CUDA forbids while any
/// stream of it captures: it waits for the device's open captures to end
/// (`hip`'s capture gate), and fails when this thread captures.
pub fn create() -> Result<sys::cusparseHandle_t, CusparseError> {
    crate::gate::holding_current("cusparseCreate", ours_result::create).map_err(ours)
}

/// `cusparseDestroy`, holding the capture gate as [`create`] does.
///
/// # Safety
/// `handle` was made by [`create`] and is not used after this call.
pub unsafe fn destroy(handle: sys::cusparseHandle_t) -> Result<(), CusparseError> {
    crate::gate::holding_current("cusparseDestroy", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::destroy(handle, held) }
    })
    .map_err(ours)
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
    unsafe { ours_result::set_stream(handle, stream) }.map_err(ours)
}
