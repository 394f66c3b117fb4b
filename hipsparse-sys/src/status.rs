//! `hipsparseStatus_t` as a Rust error.

use crate::hipsparseStatus_t;
use core::fmt;

hip_sys::status_result!(hipsparseStatus_t, HIPSPARSE_STATUS_SUCCESS);

impl hipsparseStatus_t {
    /// What the status means, in hipSPARSE's words.
    pub const fn description(self) -> &'static str {
        match self.0 {
            0 => "no error",
            1 => "the library was not initialized (or could not be loaded)",
            2 => "resource allocation failed",
            3 => "an unsupported value was passed to the function",
            4 => "the device architecture is not supported",
            5 => "access to GPU memory failed",
            6 => "the GPU program failed to execute",
            7 => "an internal operation failed",
            8 => "the matrix type is not supported",
            9 => "a zero pivot was found",
            10 => "the operation is not supported (or this library does not provide it)",
            11 => "the resources are insufficient",
            _ => "unknown hipSPARSE status",
        }
    }
}

impl fmt::Display for hipsparseStatus_t {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} ({}): {}", self, self.0, self.description())
    }
}

impl std::error::Error for hipsparseStatus_t {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_and_ok() {
        assert!(hipsparseStatus_t::HIPSPARSE_STATUS_SUCCESS.ok().is_ok());
        let e = hipsparseStatus_t::HIPSPARSE_STATUS_ZERO_PIVOT
            .ok()
            .unwrap_err();
        assert_eq!(e.name(), Some("HIPSPARSE_STATUS_ZERO_PIVOT"));
        assert_eq!(
            e.to_string(),
            "HIPSPARSE_STATUS_ZERO_PIVOT (9): a zero pivot was found"
        );
        let unknown = hipsparseStatus_t(4242);
        assert_eq!(unknown.name(), None);
        assert!(unknown.to_string().contains("4242"));
    }
}
