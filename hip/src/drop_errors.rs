//! Errors that happened where they could not be returned: in `Drop` and in
//! host callbacks. They are recorded here instead of panicking.
//!
//! [`DropErrorRegistry`] is the one implementation: this crate keeps its
//! [`Error`]s in one static registry, and crates built on it (`hipblas`
//! for its handle's destroy) keep their own error type in a registry of
//! their own, with the same cap and order.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Mutex, MutexGuard};

/// At most this many records are kept per registry; older ones are dropped
/// first.
pub const MAX_RECORDED: usize = 1024;

/// A capped, thread-safe list of errors seen where they could not be
/// returned (in `Drop`, in callbacks), oldest first.
///
/// Meant for a `static`: [`new`](Self::new) is `const`. (The method names are
/// distinct from other methods of this crate, which keeps
/// `hip-generator gpu-tested`'s by-name call resolution unambiguous.) At most
/// [`MAX_RECORDED`] errors are kept; recording one more drops the oldest.
/// Nothing here panics, and a lock poisoned by a panic elsewhere is still
/// used (the list is valid whatever the panicking thread did).
///
/// ```
/// use hip::DropErrorRegistry;
///
/// #[derive(Debug)]
/// struct MyError(String);
///
/// static DROP_ERRORS: DropErrorRegistry<MyError> = DropErrorRegistry::new();
///
/// DROP_ERRORS.record_error(MyError("destroy failed".into()));
/// DROP_ERRORS.record_result(Ok(()));
/// assert_eq!(DROP_ERRORS.recorded_count(), 1);
/// let taken = DROP_ERRORS.take_all();
/// assert_eq!(taken[0].0, "destroy failed");
/// assert_eq!(DROP_ERRORS.recorded_count(), 0);
/// ```
pub struct DropErrorRegistry<E> {
    records: Mutex<VecDeque<E>>,
}

impl<E> DropErrorRegistry<E> {
    /// An empty registry.
    pub const fn new() -> Self {
        DropErrorRegistry {
            records: Mutex::new(VecDeque::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, VecDeque<E>> {
        // A poisoned lock still holds a valid list: nothing panics while
        // holding it here, and losing errors to a poison would hide them.
        self.records.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records an error, dropping the oldest record when [`MAX_RECORDED`]
    /// are kept already.
    pub fn record_error(&self, e: E) {
        let mut records = self.lock();
        if records.len() >= MAX_RECORDED {
            records.pop_front();
        }
        records.push_back(e);
    }

    /// Records the error of `r`, if any.
    pub fn record_result(&self, r: Result<(), E>) {
        if let Err(e) = r {
            self.record_error(e);
        }
    }

    /// Takes every recorded error, oldest first, leaving none.
    pub fn take_all(&self) -> Vec<E> {
        std::mem::take(&mut *self.lock()).into()
    }

    /// How many errors are recorded now.
    pub fn recorded_count(&self) -> usize {
        self.lock().len()
    }
}

impl<E> Default for DropErrorRegistry<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> fmt::Debug for DropErrorRegistry<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DropErrorRegistry")
            .field("recorded_count", &self.recorded_count())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{drop_error_count, record, record_result, take_drop_errors, Error};

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

    #[test]
    fn a_registry_of_another_error_type_is_capped_and_taken_oldest_first() {
        static OTHER: DropErrorRegistry<u32> = DropErrorRegistry::new();
        for i in 0..(MAX_RECORDED as u32 + 2) {
            OTHER.record_error(i);
        }
        OTHER.record_result(Err(7));
        assert_eq!(OTHER.recorded_count(), MAX_RECORDED);
        let v = OTHER.take_all();
        assert_eq!(v.first(), Some(&3));
        assert_eq!(v.last(), Some(&7));
        assert_eq!(OTHER.recorded_count(), 0);
    }
}
