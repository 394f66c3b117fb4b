//! `hipblasStatus_t` as a Rust error.

use crate::hipblasStatus_t;
use core::fmt;

impl hipblasStatus_t {
    /// Whether this is `HIPBLAS_STATUS_SUCCESS`.
    pub const fn is_success(self) -> bool {
        self.0 == hipblasStatus_t::HIPBLAS_STATUS_SUCCESS.0
    }

    /// `Ok(())` for `HIPBLAS_STATUS_SUCCESS`, else `Err(self)`.
    pub const fn ok(self) -> Result<(), hipblasStatus_t> {
        if self.is_success() {
            Ok(())
        } else {
            Err(self)
        }
    }

    /// What the status means, in hipBLAS's own words (from
    /// `hipblas-common.h`), without calling into any library.
    pub const fn description(self) -> &'static str {
        match self {
            Self::HIPBLAS_STATUS_SUCCESS => "function succeeds",
            Self::HIPBLAS_STATUS_NOT_INITIALIZED => "hipBLAS library not initialized",
            Self::HIPBLAS_STATUS_ALLOC_FAILED => "resource allocation failed",
            Self::HIPBLAS_STATUS_INVALID_VALUE => {
                "unsupported numerical value was passed to function"
            }
            Self::HIPBLAS_STATUS_MAPPING_ERROR => "access to GPU memory space failed",
            Self::HIPBLAS_STATUS_EXECUTION_FAILED => "GPU program failed to execute",
            Self::HIPBLAS_STATUS_INTERNAL_ERROR => "an internal hipBLAS operation failed",
            Self::HIPBLAS_STATUS_NOT_SUPPORTED => "function not implemented",
            Self::HIPBLAS_STATUS_ARCH_MISMATCH => "architecture mismatch",
            Self::HIPBLAS_STATUS_HANDLE_IS_NULLPTR => "hipBLAS handle is null pointer",
            Self::HIPBLAS_STATUS_INVALID_ENUM => "unsupported enum value was passed to function",
            Self::HIPBLAS_STATUS_UNKNOWN => "back-end returned an unsupported status code",
            _ => "unknown hipBLAS status",
        }
    }
}

impl fmt::Display for hipblasStatus_t {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} ({}): {}", self, self.0, self.description())
    }
}

impl std::error::Error for hipblasStatus_t {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_and_ok() {
        assert!(hipblasStatus_t::HIPBLAS_STATUS_SUCCESS.ok().is_ok());
        let e = hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED
            .ok()
            .unwrap_err();
        assert_eq!(e.name(), Some("HIPBLAS_STATUS_NOT_SUPPORTED"));
        assert_eq!(
            e.to_string(),
            "HIPBLAS_STATUS_NOT_SUPPORTED (7): function not implemented"
        );
        let unknown = hipblasStatus_t(4242);
        assert_eq!(unknown.name(), None);
        assert!(format!("{unknown:?}").contains("4242"));
        assert_eq!(unknown.description(), "unknown hipBLAS status");
    }
}
