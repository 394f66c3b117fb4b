//! `hipfftResult` as a Rust error.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_and_ok() {
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
    }
}
