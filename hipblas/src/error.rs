//! The error type of every safe call.

use hipblas_sys::hipblasStatus_t;
use hipblas_sys::loader::LoadError;

/// What went wrong in a hipBLAS call, or before it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// hipBLAS (or cuBLAS behind it) could not be loaded: the loader's
    /// report of every path tried, kept as the loader's own value (its
    /// `Display` is this error's message).
    #[error(transparent)]
    Load(&'static LoadError),
    /// A hipBLAS function returned a failure status.
    #[error("{call} failed: {status}")]
    Blas {
        /// The C function called.
        call: &'static str,
        /// Its status.
        #[source]
        status: hipblasStatus_t,
    },
    /// A HIP runtime call (device, stream, memory) failed.
    #[error("{0}")]
    Runtime(#[from] hip::Error),
    /// An argument is invalid; checked before any call.
    #[error("invalid {name} = {value}: {requirement}")]
    InvalidArgument {
        /// The argument's name, as in the C API (`lda`, `incx`, `m`, ...).
        name: &'static str,
        /// Its value.
        value: i128,
        /// What it must satisfy.
        requirement: String,
    },
    /// A buffer holds fewer elements than the shape needs.
    #[error("buffer {name} holds {len} elements but the call needs {required}")]
    BufferTooSmall {
        /// The buffer's name (`a`, `b`, `c`, `x`, `y`).
        name: &'static str,
        /// Its length in elements.
        len: usize,
        /// The elements the call reads or writes.
        required: usize,
    },
    /// The loaded library does not provide what the call needs.
    #[error("not supported: {0}")]
    Unsupported(String),
}

impl Error {
    /// The hipBLAS status, for [`Error::Blas`].
    pub fn status(&self) -> Option<hipblasStatus_t> {
        match self {
            Error::Blas { status, .. } => Some(*status),
            _ => None,
        }
    }

    pub(crate) fn invalid(
        name: &'static str,
        value: impl Into<i128>,
        req: impl Into<String>,
    ) -> Self {
        Error::InvalidArgument {
            name,
            value: value.into(),
            requirement: req.into(),
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A hipBLAS status as a `Result`, naming the call.
pub(crate) fn check(call: &'static str, status: hipblasStatus_t) -> Result<()> {
    status.ok().map_err(|status| Error::Blas { call, status })
}
