//! What a raw hipRAND function returns when it cannot call into a library.

use crate::hiprandStatus_t;

/// The value a raw wrapper returns instead of calling the C function (the
/// same two functions as `hip_sys::Unavailable`, for hipRAND's status type).
pub trait Unavailable {
    /// Returned when no hipRAND (or cuRAND) could be loaded.
    fn library_missing() -> Self;
    /// Returned when the loaded library lacks the symbol.
    fn symbol_missing() -> Self;
}

/// hipRAND's own statuses for "cannot run":
///
/// - no library could be loaded: `HIPRAND_STATUS_INITIALIZATION_FAILED`
///   (203), hipRAND's status for a GPU runtime it could not initialize,
///   which a missing library is; `HIPRAND_STATUS_NOT_INITIALIZED` would say
///   the generator was never created, and `HIPRAND_STATUS_INTERNAL_ERROR` a
///   bug. [`crate::loader::hiprand`] says what was tried;
/// - the loaded library lacks this symbol (an older hipRAND, or a function
///   cuRAND has no counterpart for on the NVIDIA platform):
///   `HIPRAND_STATUS_NOT_IMPLEMENTED` (1000), hipRAND's "feature not
///   implemented".
impl Unavailable for hiprandStatus_t {
    fn library_missing() -> Self {
        hiprandStatus_t::HIPRAND_STATUS_INITIALIZATION_FAILED
    }
    fn symbol_missing() -> Self {
        hiprandStatus_t::HIPRAND_STATUS_NOT_IMPLEMENTED
    }
}
