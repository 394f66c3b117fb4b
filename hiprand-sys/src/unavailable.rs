//! What a raw hipRAND function returns when it cannot call into a library.

use crate::hiprandStatus_t;

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
impl hip_sys::Unavailable for hiprandStatus_t {
    fn library_missing() -> Self {
        hiprandStatus_t::HIPRAND_STATUS_INITIALIZATION_FAILED
    }
    fn symbol_missing() -> Self {
        hiprandStatus_t::HIPRAND_STATUS_NOT_IMPLEMENTED
    }
}
