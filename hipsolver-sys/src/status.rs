//! `hipsolverStatus_t` as a Rust error.

use crate::hipsolverStatus_t;
use core::fmt;

hip_sys::status_result!(hipsolverStatus_t, HIPSOLVER_STATUS_SUCCESS);

impl hipsolverStatus_t {
    /// What the status means (hipSOLVER has no status-to-string call).
    pub const fn description(self) -> &'static str {
        match self.0 {
            0 => "no error",
            1 => "the solver library was not initialized (or could not be loaded)",
            2 => "GPU or CPU memory could not be allocated",
            3 => "an invalid value was passed",
            4 => "access to GPU memory failed",
            5 => "the GPU program failed to execute",
            6 => "internal error of the solver library",
            7 => "not supported (or a function this library does not provide)",
            8 => "the device's architecture is not supported",
            9 => "the handle is a null pointer",
            10 => "an unsupported enum value was passed",
            11 => "the back-end returned a status hipSOLVER does not know",
            12 => "a zero pivot was met",
            13 => "the matrix type is not supported",
            _ => "unknown hipSOLVER status",
        }
    }
}

impl fmt::Display for hipsolverStatus_t {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} ({}): {}", self, self.0, self.description())
    }
}

impl std::error::Error for hipsolverStatus_t {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_and_ok() {
        assert!(hipsolverStatus_t::HIPSOLVER_STATUS_SUCCESS.ok().is_ok());
        let e = hipsolverStatus_t::HIPSOLVER_STATUS_ZERO_PIVOT
            .ok()
            .unwrap_err();
        assert_eq!(e.name(), Some("HIPSOLVER_STATUS_ZERO_PIVOT"));
        assert_eq!(
            e.to_string(),
            "HIPSOLVER_STATUS_ZERO_PIVOT (12): a zero pivot was met"
        );
        let unknown = hipsolverStatus_t(4242);
        assert_eq!(unknown.name(), None);
        assert!(unknown.to_string().contains("4242"));
    }
}
