//! What a raw hipBLAS function returns when it cannot call into a library.

use crate::hipblasStatus_t;
use hip_sys::Unavailable;

/// hipBLAS's own statuses for "cannot run":
///
/// - no hipBLAS could be loaded (nor, on the NVIDIA platform, cuBLAS):
///   `HIPBLAS_STATUS_NOT_INITIALIZED`, the status hipBLAS itself gives when
///   its backend library is not initialized; [`crate::loader::hipblas`] says
///   what was tried;
/// - the loaded library lacks this symbol (an older hipBLAS, or a function
///   the cuBLAS backend does not implement): `HIPBLAS_STATUS_NOT_SUPPORTED`,
///   hipBLAS's "function not implemented".
impl Unavailable for hipblasStatus_t {
    fn library_missing() -> Self {
        hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED
    }
    fn symbol_missing() -> Self {
        hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED
    }
}
