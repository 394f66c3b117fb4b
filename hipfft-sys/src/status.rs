//! `hipfftResult` as a Rust error, and the statuses a raw function returns
//! when it cannot call into a library.

use crate::hipfftResult;
use core::fmt;

hip_sys::status_result!(hipfftResult, HIPFFT_SUCCESS);

impl hipfftResult {
    /// What the status means (hipFFT has no status-to-string call).
    pub const fn description(self) -> &'static str {
        match self.0 {
            0 => "no error",
            1 => "invalid plan handle",
            2 => "GPU or CPU memory could not be allocated",
            3 => "invalid transform type",
            4 => "invalid pointer or parameter",
            5 => "internal error of the FFT library or its driver",
            6 => "the FFT failed to execute on the GPU",
            7 => "the FFT library failed to initialize (or could not be loaded)",
            8 => "invalid transform size",
            9 => "unaligned data",
            10 => "missing parameters in the call",
            11 => "the plan was executed on another GPU than the one it was made on",
            12 => "internal plan database error",
            13 => "no work area was given before execution",
            14 => "not implemented (or a function this library does not provide)",
            16 => "not supported for the parameters given",
            _ => "unknown hipFFT status",
        }
    }
}

impl fmt::Display for hipfftResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} ({}): {}", self, self.0, self.description())
    }
}

impl std::error::Error for hipfftResult {}

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
impl hip_sys::Unavailable for hipfftResult {
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
    use hip_sys::Unavailable;

    #[test]
    fn status_names_ok_and_unavailable() {
        assert!(hipfftResult::HIPFFT_SUCCESS.ok().is_ok());
        let e = hipfftResult::HIPFFT_INVALID_SIZE.ok().unwrap_err();
        assert_eq!(e.name(), Some("HIPFFT_INVALID_SIZE"));
        assert_eq!(
            e.to_string(),
            "HIPFFT_INVALID_SIZE (8): invalid transform size"
        );
        let unknown = hipfftResult(4242);
        assert_eq!(unknown.name(), None);
        assert!(unknown.to_string().contains("4242"));
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
