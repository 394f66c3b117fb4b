//! The error type of every safe call.

use hipblas_sys::hipblasStatus_t;
use hipblas_sys::loader::LoadError;

/// What went wrong in a hipBLAS call, or before it.
///
/// Every argument is checked before hipBLAS is called, so [`Error::Invalid`]
/// says that the library was not reached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// hipBLAS (or cuBLAS behind it) could not be loaded: the loader's
    /// report of every path tried (its `Display` is this error's message).
    #[error(transparent)]
    Load(LoadError),
    /// A hipBLAS function returned a failure status.
    #[error("{call} failed with {status:?} ({}): {message}", .status.0)]
    Blas {
        /// The C function called, e.g. `"hipblasSgemm"`.
        call: &'static str,
        /// Its status.
        #[source]
        status: hipblasStatus_t,
        /// The library's words for the status (`hipblasStatusToString`),
        /// or this crate's description when the library has none to add.
        message: String,
    },
    /// A HIP runtime call (device, stream, memory) failed.
    #[error("{0}")]
    Runtime(#[from] hip::Error),
    /// An argument was rejected before any call into hipBLAS.
    #[error("invalid argument to {operation}: {reason}")]
    Invalid {
        /// The operation that rejected it, e.g. `"Blas::gemm"`.
        operation: &'static str,
        /// What was wrong, with the offending values.
        reason: String,
    },
    /// The loaded library (or hipBLAS itself) does not provide what the
    /// call needs.
    #[error("{operation} is not supported: {reason}")]
    Unsupported {
        /// The operation that needed it, e.g. `"Blas::gemm_ex"`.
        operation: &'static str,
        /// What is missing.
        reason: String,
    },
}

impl Error {
    /// The hipBLAS status, for [`Error::Blas`].
    pub fn status(&self) -> Option<hipblasStatus_t> {
        match self {
            Error::Blas { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The C function that failed, for [`Error::Blas`] and the runtime's
    /// errors.
    pub fn call(&self) -> Option<&'static str> {
        match self {
            Error::Blas { call, .. } => Some(call),
            Error::Runtime(e) => e.call(),
            _ => None,
        }
    }

    /// An [`Error::Invalid`].
    pub(crate) fn invalid(operation: &'static str, reason: impl Into<String>) -> Self {
        Error::Invalid {
            operation,
            reason: reason.into(),
        }
    }

    /// An [`Error::Unsupported`].
    pub(crate) fn unsupported(operation: &'static str, reason: impl Into<String>) -> Self {
        Error::Unsupported {
            operation,
            reason: reason.into(),
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_operation_and_the_reason() {
        let e = Error::invalid("Blas::gemm", "lda = 7: must be >= 8");
        assert_eq!(
            e.to_string(),
            "invalid argument to Blas::gemm: lda = 7: must be >= 8"
        );
        assert_eq!((e.status(), e.call()), (None, None));
        let e = Error::unsupported("Blas::gemm_ex", "no GemmEx");
        assert_eq!(e.to_string(), "Blas::gemm_ex is not supported: no GemmEx");
    }
}
