//! The error type of every safe call.

use hipblas_sys::hipblasStatus_t;
use std::fmt;

/// What went wrong in a hipBLAS call, or before it.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// hipBLAS (or cuBLAS behind it) could not be loaded: the loader's
    /// report of every path tried.
    Load(String),
    /// A hipBLAS function returned a failure status.
    Blas {
        /// The C function called.
        call: &'static str,
        /// Its status.
        status: hipblasStatus_t,
    },
    /// A HIP runtime call (device, stream, memory) failed.
    Runtime(hip::Error),
    /// An argument is invalid; checked before any call.
    InvalidArgument {
        /// The argument's name, as in the C API (`lda`, `incx`, `m`, ...).
        name: &'static str,
        /// Its value.
        value: i128,
        /// What it must satisfy.
        requirement: String,
    },
    /// A buffer holds fewer elements than the shape needs.
    BufferTooSmall {
        /// The buffer's name (`a`, `b`, `c`, `x`, `y`).
        name: &'static str,
        /// Its length in elements.
        len: usize,
        /// The elements the call reads or writes.
        required: usize,
    },
    /// The loaded library does not provide what the call needs.
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

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Load(r) => write!(f, "{r}"),
            Error::Blas { call, status } => write!(f, "{call} failed: {status}"),
            Error::Runtime(e) => write!(f, "{e}"),
            Error::InvalidArgument {
                name,
                value,
                requirement,
            } => write!(f, "invalid {name} = {value}: {requirement}"),
            Error::BufferTooSmall {
                name,
                len,
                required,
            } => write!(
                f,
                "buffer {name} holds {len} elements but the call needs {required}"
            ),
            Error::Unsupported(what) => write!(f, "not supported: {what}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Blas { status, .. } => Some(status),
            Error::Runtime(e) => Some(e),
            _ => None,
        }
    }
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A hipBLAS status as a `Result`, naming the call.
pub(crate) fn check(call: &'static str, status: hipblasStatus_t) -> Result<()> {
    status.ok().map_err(|status| Error::Blas { call, status })
}
