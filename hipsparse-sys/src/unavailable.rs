//! What a raw hipSPARSE function returns when it cannot call into a library.

use crate::hipsparseStatus_t;
use hip_sys::Unavailable;

/// hipSPARSE's own statuses for "cannot run":
///
/// - no library could be loaded: `HIPSPARSE_STATUS_NOT_INITIALIZED`, "the
///   library was not initialized", which is what happened;
///   [`crate::loader::hipsparse`] says what was tried;
/// - the loaded library lacks this symbol (an older hipSPARSE, or a legacy
///   call CUDA 12's cuSPARSE removed): `HIPSPARSE_STATUS_NOT_SUPPORTED`.
impl Unavailable for hipsparseStatus_t {
    fn library_missing() -> Self {
        hipsparseStatus_t::HIPSPARSE_STATUS_NOT_INITIALIZED
    }
    fn symbol_missing() -> Self {
        hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED
    }
}

/// The matrix-descriptor getters (`hipsparseGetMatType`, ...) return the
/// enum itself, with no room for an error: without a library or symbol
/// they return 0, the enum's default (general, lower, non-unit, zero-based),
/// as for a fresh descriptor. [`crate::loader::hipsparse`] says why nothing
/// was loaded.
macro_rules! default_when_unavailable {
    ($($t:ident),*) => {$(
        impl Unavailable for crate::$t {
            fn library_missing() -> Self {
                crate::$t(0)
            }
            fn symbol_missing() -> Self {
                crate::$t(0)
            }
        }
    )*};
}
default_when_unavailable!(
    hipsparseMatrixType_t,
    hipsparseFillMode_t,
    hipsparseDiagType_t,
    hipsparseIndexBase_t
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cannot_run_statuses() {
        assert_eq!(
            hipsparseStatus_t::library_missing(),
            hipsparseStatus_t::HIPSPARSE_STATUS_NOT_INITIALIZED
        );
        assert_eq!(
            hipsparseStatus_t::symbol_missing(),
            hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED
        );
        // The descriptor getters' enums: 0, as for a fresh descriptor.
        assert_eq!(
            crate::hipsparseMatrixType_t::library_missing(),
            crate::hipsparseMatrixType_t(0)
        );
        assert_eq!(
            crate::hipsparseIndexBase_t::symbol_missing(),
            crate::hipsparseIndexBase_t(0)
        );
    }
}
