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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_capped_and_taken_oldest_first() {
        let _ = take_drop_errors();
        for i in 0..MAX_RECORDED + 5 {
            record(Error::invalid("test", format!("{i}")));
        }
        record_result(Ok(()));
        assert_eq!(drop_error_count(), MAX_RECORDED);
        let v = take_drop_errors();
        assert_eq!(v.len(), MAX_RECORDED);
        assert!(v[0].to_string().ends_with(": 5"), "{}", v[0]);
        assert!(v[MAX_RECORDED - 1]
            .to_string()
            .ends_with(&format!(": {}", MAX_RECORDED + 4)));
        assert_eq!(drop_error_count(), 0);
    }
}
