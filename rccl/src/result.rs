//! The thin layer between the raw functions and the safe types: the
//! library loaded (or [`Error::Load`]), and every status made a `Result`
//! with the library's own words.

use crate::error::{Error, Result};
use rccl_sys::{ncclComm_t, ncclResult_t};
use std::ffi::{c_char, CStr};

/// The loaded RCCL (NCCL on NVIDIA), or the loader's report.
pub(crate) fn library() -> Result<&'static rccl_sys::loader::Rccl> {
    rccl_sys::loader::rccl().map_err(Error::Load)
}

/// `Ok` for `ncclSuccess` (and `ncclInProgress`, which only a
/// non-blocking communicator returns, and ours are blocking); else
/// [`Error::Nccl`] with `ncclGetErrorString`, and `ncclGetLastError` of
/// `comm` (null: the last error of any communicator) when it says more.
pub(crate) fn check(call: &'static str, status: ncclResult_t, comm: ncclComm_t) -> Result<()> {
    if status.is_success() {
        return Ok(());
    }
    Err(Error::Nccl {
        call,
        status,
        message: message(status, comm),
    })
}

/// The library's text for `status`, and its last error for `comm`.
pub(crate) fn message(status: ncclResult_t, comm: ncclComm_t) -> String {
    // SAFETY: both return a static (or library-owned, NUL-terminated) C
    // string, or this crate's unavailable message; never freed by us.
    let (text, last) = unsafe {
        (
            text_of(rccl_sys::ncclGetErrorString(status)),
            text_of(rccl_sys::ncclGetLastError(comm)),
        )
    };
    let text = if text.is_empty() {
        status.description().to_string()
    } else {
        text
    };
    if last.is_empty() || last == text {
        text
    } else {
        format!("{text} ({last})")
    }
}

/// # Safety
///
/// `p` is null or a NUL-terminated string alive for this call.
unsafe fn text_of(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: non-null and NUL-terminated (the caller's promise).
    unsafe { CStr::from_ptr(p) }
        .to_string_lossy()
        .trim()
        .to_string()
}

/// `ncclGetVersion`: the loaded library's NCCL API version code, e.g.
/// `21304` for 2.13.4 (RCCL 5.4) or `22805` for NCCL 2.28.5.
///
/// ```no_run
/// match rccl::version() {
///     Ok(v) => println!("NCCL API {}.{}.{}", v / 10000, v / 100 % 100, v % 100),
///     Err(e) => println!("{e}"), // every path tried
/// }
/// ```
pub fn version() -> Result<i32> {
    library()?;
    let mut v = 0;
    // SAFETY: `v` is a valid place to write an int.
    let status = unsafe { rccl_sys::ncclGetVersion(&mut v) };
    check("ncclGetVersion", status, std::ptr::null_mut())?;
    Ok(v)
}
