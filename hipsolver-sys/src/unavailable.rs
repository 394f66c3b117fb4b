//! What a raw hipSOLVER function returns when it cannot call into a library.

use crate::hipsolverStatus_t;
use hip_sys::Unavailable;

/// hipSOLVER's own statuses for "cannot run" (every hipSOLVER function
/// returns a `hipsolverStatus_t`):
///
/// - no library could be loaded: `HIPSOLVER_STATUS_NOT_INITIALIZED`, "the
///   library was not initialized", which is what happened;
///   `HIPSOLVER_STATUS_INTERNAL_ERROR` would claim a bug.
///   [`crate::loader::hipsolver`] says what was tried;
/// - the loaded library lacks this symbol (an older hipSOLVER, or a call
///   cuSOLVER does not have): `HIPSOLVER_STATUS_NOT_SUPPORTED`, which
///   hipSOLVER itself returns for "function not implemented".
impl Unavailable for hipsolverStatus_t {
    fn library_missing() -> Self {
        hipsolverStatus_t::HIPSOLVER_STATUS_NOT_INITIALIZED
    }
    fn symbol_missing() -> Self {
        hipsolverStatus_t::HIPSOLVER_STATUS_NOT_SUPPORTED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cannot_run_statuses() {
        assert_eq!(
            hipsolverStatus_t::library_missing(),
            hipsolverStatus_t::HIPSOLVER_STATUS_NOT_INITIALIZED
        );
        assert_eq!(
            hipsolverStatus_t::symbol_missing(),
            hipsolverStatus_t::HIPSOLVER_STATUS_NOT_SUPPORTED
        );
    }
}
