//! The error type of every safe call.

use hipsparse_sys::hipsparseStatus_t;
use hipsparse_sys::loader::LoadError;

/// What went wrong in a hipSPARSE call, or before it.
///
/// The shape is the workspace's: [`Error::Load`] (no library),
/// [`Error::Sparse`] (the library's status), [`Error::Runtime`] (a `hip`
/// call), and [`Error::Invalid`] for every argument refused before any
/// call: a matrix's shape, index arrays, index base or ordering, a dense
/// operand's leading dimension or length, mismatched sizes or devices.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// hipSPARSE (or cuSPARSE behind it) could not be loaded: the loader's
    /// report of every path tried (its `Display` is this error's message).
    #[error(transparent)]
    Load(LoadError),
    /// A hipSPARSE function returned a failure status.
    #[error("{call} failed with {status:?} ({}): {message}", .status.0)]
    Sparse {
        /// The C function called, e.g. `"hipsparseSpMV"`.
        call: &'static str,
        /// Its status.
        status: hipsparseStatus_t,
        /// What the status means, and whether the loaded library lacks the
        /// function.
        message: String,
    },
    /// A HIP runtime call (device binding, allocation, copy) failed.
    #[error("{0}")]
    Runtime(#[from] hip::Error),
    /// An argument was rejected before any call into hipSPARSE.
    #[error("invalid argument to {operation}: {reason}")]
    Invalid {
        /// The operation that rejected it, e.g. `"Csr::from_host"` or
        /// `"Sparse::spmv"`.
        operation: &'static str,
        /// What was wrong, with the offending values.
        reason: String,
    },
}

impl Error {
    /// The hipSPARSE status, for [`Error::Sparse`].
    pub fn status(&self) -> Option<hipsparseStatus_t> {
        match self {
            Error::Sparse { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The C call that failed, for [`Error::Sparse`].
    pub fn call(&self) -> Option<&'static str> {
        match self {
            Error::Sparse { call, .. } => Some(call),
            _ => None,
        }
    }

    /// The operation that refused an argument, for [`Error::Invalid`].
    pub fn operation(&self) -> Option<&'static str> {
        match self {
            Error::Invalid { operation, .. } => Some(operation),
            _ => None,
        }
    }

    /// Builds an [`Error::Sparse`] for `status` returned by `call`: its
    /// meaning, and whether the loaded library lacks `call`; or
    /// [`Error::Load`] when `HIPSPARSE_STATUS_NOT_INITIALIZED` means no
    /// library.
    #[cold]
    #[inline(never)]
    pub fn from_sparse(call: &'static str, status: hipsparseStatus_t) -> Error {
        let library = hipsparse_sys::loader::hipsparse();
        if status == hipsparseStatus_t::HIPSPARSE_STATUS_NOT_INITIALIZED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_string();
        if status == hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Sparse {
            call,
            status,
            message,
        }
    }

    #[cold]
    #[inline(never)]
    pub(crate) fn invalid(operation: &'static str, reason: impl Into<String>) -> Error {
        Error::Invalid {
            operation,
            reason: reason.into(),
        }
    }
}

impl From<LoadError> for Error {
    fn from(e: LoadError) -> Error {
        Error::Load(e)
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
