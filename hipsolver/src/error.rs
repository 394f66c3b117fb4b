//! The error type of every safe call.

use hipsolver_sys::hipsolverStatus_t;
use hipsolver_sys::loader::LoadError;

/// What went wrong in a hipSOLVER call, or before it.
///
/// The shape is the workspace's: [`Error::Load`] (no library),
/// [`Error::Solver`] (the library's status), [`Error::Runtime`] (a `hip`
/// call), [`Error::Invalid`] for every argument refused before any call;
/// and, for what the routine itself reports through its `info` output,
/// [`Error::Singular`], [`Error::NotPositiveDefinite`],
/// [`Error::NotConverged`] and [`Error::IllegalArgument`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// hipSOLVER (or cuSOLVER behind it) could not be loaded: the loader's
    /// report of every path tried (its `Display` is this error's message).
    #[error(transparent)]
    Load(LoadError),
    /// A hipSOLVER function returned a failure status.
    #[error("{call} failed with {status:?} ({}): {message}", .status.0)]
    Solver {
        /// The C function called, e.g. `"hipsolverDnSgetrf"`.
        call: &'static str,
        /// Its status.
        status: hipsolverStatus_t,
        /// What the status means, and whether the loaded library lacks the
        /// function.
        message: String,
    },
    /// A HIP runtime call (device binding, allocation, copy) failed.
    #[error("{0}")]
    Runtime(#[from] hip::Error),
    /// An argument was rejected before any call into hipSOLVER: a shape, a
    /// leading dimension, a buffer's length or device, a batch size.
    #[error("invalid argument to {operation}: {reason}")]
    Invalid {
        /// The operation that rejected it, e.g. `"Solver::getrf"`.
        operation: &'static str,
        /// What was wrong, with the offending values.
        reason: String,
    },
    /// LU factorization: `U(index, index)` is exactly zero (`info = index`,
    /// 1-based): the matrix is singular and a solve would divide by zero.
    #[error("{operation}: {}U({index},{index}) is exactly zero: the matrix is singular", batch_prefix(*.batch))]
    Singular {
        /// The operation, e.g. `"Solver::getrf"`.
        operation: &'static str,
        /// The 1-based index of the zero pivot.
        index: usize,
        /// The matrix of a batch, when batched (0-based).
        batch: Option<usize>,
    },
    /// Cholesky factorization: the leading minor of order `order` is not
    /// positive definite (`info = order`).
    #[error("{operation}: {}the leading minor of order {order} is not positive definite", batch_prefix(*.batch))]
    NotPositiveDefinite {
        /// The operation, e.g. `"Solver::potrf"`.
        operation: &'static str,
        /// The order of the first minor that is not positive definite.
        order: usize,
        /// The matrix of a batch, when batched (0-based).
        batch: Option<usize>,
    },
    /// An iterative routine (SVD, eigenvalues) did not converge; `info` is
    /// the routine's count (e.g. superdiagonals or off-diagonal elements
    /// that did not converge to zero, or sweeps exceeded).
    #[error("{operation}: {}did not converge (info = {info}: {what})", batch_prefix(*.batch))]
    NotConverged {
        /// The operation, e.g. `"Solver::gesvd"`.
        operation: &'static str,
        /// The routine's positive `info`.
        info: i32,
        /// What the count means for this routine.
        what: &'static str,
        /// The matrix of a batch, when batched (0-based).
        batch: Option<usize>,
    },
    /// The library refused its `position`-th argument (`info = -position`):
    /// a rule this crate does not check.
    #[error("{call} refused its argument number {position}")]
    IllegalArgument {
        /// The C function called.
        call: &'static str,
        /// The 1-based position of the argument.
        position: usize,
    },
}

fn batch_prefix(batch: Option<usize>) -> String {
    match batch {
        Some(i) => format!("matrix {i} of the batch: "),
        None => String::new(),
    }
}

impl Error {
    /// The hipSOLVER status, for [`Error::Solver`].
    pub fn status(&self) -> Option<hipsolverStatus_t> {
        match self {
            Error::Solver { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Builds an [`Error::Solver`] for `status` returned by `call`: its
    /// meaning, and whether the loaded library lacks `call`; or
    /// [`Error::Load`] when `HIPSOLVER_STATUS_NOT_INITIALIZED` means no
    /// library.
    #[cold]
    #[inline(never)]
    pub fn from_solver(call: &'static str, status: hipsolverStatus_t) -> Error {
        let library = hipsolver_sys::loader::hipsolver();
        if status == hipsolverStatus_t::HIPSOLVER_STATUS_NOT_INITIALIZED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_string();
        if status == hipsolverStatus_t::HIPSOLVER_STATUS_NOT_SUPPORTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Solver {
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
