//! The error type of every safe call: the vocabulary of `hipblas::Error`
//! (hipBLASLt returns hipBLAS's status type).

use hipblaslt_sys::hipblasStatus_t;
use hipblaslt_sys::loader::LoadError;

/// What went wrong in a hipBLASLt call, or before it.
///
/// Every argument is checked before hipBLASLt is called, so
/// [`Error::Invalid`] says that the library was not reached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// hipBLASLt (or cuBLASLt behind it) could not be loaded, or was built
    /// for another HIP runtime: the loader's report of every path tried.
    #[error(transparent)]
    Load(LoadError),
    /// A hipBLASLt function returned a failure status.
    #[error("{call} failed with {status:?} ({}): {message}", .status.0)]
    Blas {
        /// The C function called, e.g. `"hipblasLtMatmul"`.
        call: &'static str,
        /// Its status.
        #[source]
        status: hipblasStatus_t,
        /// What the status means, and what this crate knows of the cause.
        message: String,
    },
    /// A HIP runtime call (device, stream, memory) failed.
    #[error("{0}")]
    Runtime(#[from] hip::Error),
    /// An argument was rejected before any call into hipBLASLt.
    #[error("invalid argument to {operation}: {reason}")]
    Invalid {
        /// The operation that rejected it, e.g. `"LtHandle::matmul"`.
        operation: &'static str,
        /// What was wrong, with the offending values.
        reason: String,
    },
    /// The library has no algorithm (or no support) for what was asked.
    #[error("{operation} is not supported: {reason}")]
    Unsupported {
        /// The operation that needed it.
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

    /// The error for `status` returned by `call`: the load error when no
    /// library could be loaded (the status then only says that).
    #[cold]
    #[inline(never)]
    pub fn from_status(call: &'static str, status: hipblasStatus_t) -> Error {
        let library = hipblaslt_sys::loader::hipblaslt();
        if status == hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_owned();
        if status == hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Blas {
            call,
            status,
            message,
        }
    }

    /// An [`Error::Invalid`].
    #[cold]
    pub(crate) fn invalid(operation: &'static str, reason: impl Into<String>) -> Self {
        Error::Invalid {
            operation,
            reason: reason.into(),
        }
    }

    /// An [`Error::Unsupported`].
    #[cold]
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
        let e = Error::invalid("LtHandle::matmul", "lda = 7 is less than 8");
        assert_eq!(
            e.to_string(),
            "invalid argument to LtHandle::matmul: lda = 7 is less than 8"
        );
        assert_eq!((e.status(), e.call()), (None, None));
        let e = Error::from_status(
            "hipblasLtMatmul",
            hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE,
        );
        assert_eq!(e.call(), Some("hipblasLtMatmul"));
        assert_eq!(
            e.status(),
            Some(hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE)
        );
        assert!(e.to_string().starts_with("hipblasLtMatmul failed with"));
    }
}
