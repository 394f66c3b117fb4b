//! Errors that happened where they could not be returned: in `Drop` and in
//! host callbacks. They are recorded here instead of panicking.

use crate::error::Error;
use std::sync::Mutex;

/// At most this many records are kept; older ones are dropped first.
pub const MAX_RECORDED: usize = 1024;

static RECORDED: Mutex<Vec<Error>> = Mutex::new(Vec::new());

/// Records an error seen where it could not be returned.
pub(crate) fn record(e: Error) {
    // A poisoned lock still holds valid data: nothing here panics while it
    // holds the lock, but be robust anyway.
    let mut v = RECORDED.lock().unwrap_or_else(|p| p.into_inner());
    if v.len() >= MAX_RECORDED {
        v.remove(0);
    }
    v.push(e);
}

/// Records the error of `r`, if any.
pub(crate) fn record_result(r: crate::Result<()>) {
    if let Err(e) = r {
        record(e);
    }
}

/// Takes every error recorded so far (from `Drop` implementations and host
/// callback panics), oldest first, leaving none.
///
/// `Drop` never panics in this crate: a failed `hipFree`, `hipStreamDestroy`
/// and the like ends up here, as does a panic caught inside a host callback
/// ([`Error::CallbackPanicked`]).
pub fn take_drop_errors() -> Vec<Error> {
    std::mem::take(&mut *RECORDED.lock().unwrap_or_else(|p| p.into_inner()))
}

/// How many errors are recorded now (see [`take_drop_errors`]).
pub fn drop_error_count() -> usize {
    RECORDED.lock().unwrap_or_else(|p| p.into_inner()).len()
}
