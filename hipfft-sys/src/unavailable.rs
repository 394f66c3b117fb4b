//! What a raw hipFFT function returns when it cannot call into a library.

use crate::hipfftResult;
use hip_sys::Unavailable;

/// hipFFT's own statuses for "cannot run" (every hipFFT function returns a
/// `hipfftResult`):
///
/// - no library could be loaded: `HIPFFT_SETUP_FAILED`, hipFFT's status for
///   "the library failed to initialize", which is what happened;
///   `HIPFFT_INTERNAL_ERROR` would claim a bug. [`crate::loader::hipfft`]
///   says what was tried;
/// - the loaded library lacks this symbol (an older hipFFT, or a call cuFFT
///   does not have, such as `hipfftExtPlanScaleFactor`):
///   `HIPFFT_NOT_IMPLEMENTED`, "functionality is not implemented".
///   `HIPFFT_NOT_SUPPORTED` is left to the library, which returns it for
///   parameters it does not support, so the two causes stay apart.
impl Unavailable for hipfftResult {
    fn library_missing() -> Self {
        hipfftResult::HIPFFT_SETUP_FAILED
    }
    fn symbol_missing() -> Self {
        hipfftResult::HIPFFT_NOT_IMPLEMENTED
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cannot_run_statuses() {
        assert_eq!(
            hipfftResult::library_missing(),
            hipfftResult::HIPFFT_SETUP_FAILED
        );
        assert_eq!(
            hipfftResult::symbol_missing(),
            hipfftResult::HIPFFT_NOT_IMPLEMENTED
        );
    }
}
