//! The error type of every safe call.

use hiprand_sys::hiprandStatus_t;
use hiprand_sys::loader::LoadError;

/// What went wrong in a safe call.
///
/// The shape is the workspace's: [`Error::Load`] (no library),
/// [`Error::Rand`] (the library's status), [`Error::Runtime`] (a `hip`
/// call), and [`Error::Invalid`] for every argument refused before any
/// call (the [`rules`](crate::rules)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No hipRAND (or cuRAND) could be loaded: every path tried.
    #[error(transparent)]
    Load(LoadError),
    /// A hipRAND call returned an error status.
    #[error("{call} failed with {status:?} ({}): {message}", .status.0)]
    Rand {
        /// The C function called, e.g. `"hiprandGenerateNormal"`.
        call: &'static str,
        /// What it returned.
        status: hiprandStatus_t,
        /// What the status means (hipRAND has no status-to-string call),
        /// and whether the loaded library lacks the function.
        message: String,
    },
    /// A HIP runtime call failed (binding the generator's device).
    #[error("{0}")]
    Runtime(#[from] hip::Error),
    /// An argument the library would refuse (or misuse), or a buffer or
    /// stream on another device than the generator's, refused before any
    /// call by one of the [`rules`](crate::rules).
    #[error("invalid argument to {operation}: {reason}")]
    Invalid {
        /// The rule that refused it, e.g. `"rules::check_fill"`.
        operation: &'static str,
        /// What was wrong (the argument first, e.g. `"length: ..."`),
        /// with the offending values.
        reason: String,
    },
}

impl Error {
    /// The library's status, for [`Error::Rand`].
    pub fn status(&self) -> Option<hiprandStatus_t> {
        match self {
            Error::Rand { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The C call that failed, for [`Error::Rand`].
    pub fn call(&self) -> Option<&'static str> {
        match self {
            Error::Rand { call, .. } => Some(call),
            _ => None,
        }
    }

    /// Builds an [`Error::Rand`] for `status` returned by `call`: its
    /// meaning, and whether the loaded library lacks `call`; or
    /// [`Error::Load`] when `HIPRAND_STATUS_INITIALIZATION_FAILED` means no
    /// library.
    #[cold]
    #[inline(never)]
    pub fn from_rand(call: &'static str, status: hiprandStatus_t) -> Error {
        let library = hiprand_sys::loader::hiprand();
        if status == hiprandStatus_t::HIPRAND_STATUS_INITIALIZATION_FAILED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_string();
        if status == hiprandStatus_t::HIPRAND_STATUS_NOT_IMPLEMENTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Rand {
            call,
            status,
            message,
        }
    }

    /// An [`Error::Invalid`] from the rule `operation`: argument `name`
    /// and what was wrong with it.
    #[cold]
    #[inline(never)]
    /// The same error, an argument refused on behalf of `operation` (the
    /// generator method the user called) rather than the rule's own name.
    pub(crate) fn at(self, operation: &'static str) -> Error {
        match self {
            Error::Invalid { reason, .. } => Error::Invalid { operation, reason },
            other => other,
        }
    }

    pub(crate) fn invalid(
        operation: &'static str,
        name: &str,
        requirement: impl std::fmt::Display,
    ) -> Error {
        Error::Invalid {
            operation,
            reason: format!("{name}: {requirement}"),
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
