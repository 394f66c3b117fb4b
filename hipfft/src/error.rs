//! The error type of every safe call.

use hipfft_sys::hipfftResult;
use hipfft_sys::loader::LoadError;

/// What went wrong in a hipFFT call, or before it.
///
/// The shape is the workspace's: [`Error::Load`] (no library),
/// [`Error::Fft`] (the library's status), [`Error::Runtime`] (a `hip`
/// call), and [`Error::Invalid`] for every argument refused before any
/// call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// hipFFT (or cuFFT behind it) could not be loaded: the loader's report
    /// of every path tried (its `Display` is this error's message).
    #[error(transparent)]
    Load(LoadError),
    /// A hipFFT function returned a failure status.
    #[error("{call} failed with {status:?} ({}): {message}", .status.0)]
    Fft {
        /// The C function called, e.g. `"hipfftMakePlanMany64"`.
        call: &'static str,
        /// Its status.
        status: hipfftResult,
        /// What the status means (hipFFT has no status-to-string call),
        /// and whether the loaded library lacks the function.
        message: String,
    },
    /// A HIP runtime call (device binding) failed.
    #[error("{0}")]
    Runtime(#[from] hip::Error),
    /// An argument was rejected before any call into hipFFT: a plan
    /// parameter, a buffer's element type, length or device, or a call
    /// that does not fit how the plan was made (direction, placement, work
    /// area).
    #[error("invalid argument to {operation}: {reason}")]
    Invalid {
        /// The operation that rejected it, e.g. `"PlanBuilder::build"` or
        /// `"Plan::execute_forward"`.
        operation: &'static str,
        /// What was wrong, with the offending values.
        reason: String,
    },
}

impl Error {
    /// The hipFFT status, for [`Error::Fft`].
    pub fn status(&self) -> Option<hipfftResult> {
        match self {
            Error::Fft { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The C call that failed, for [`Error::Fft`].
    pub fn call(&self) -> Option<&'static str> {
        match self {
            Error::Fft { call, .. } => Some(call),
            _ => None,
        }
    }

    /// Builds an [`Error::Fft`] for `status` returned by `call`: its
    /// meaning, and whether the loaded library lacks `call`; or
    /// [`Error::Load`] when `HIPFFT_SETUP_FAILED` means no library.
    #[cold]
    #[inline(never)]
    pub fn from_fft(call: &'static str, status: hipfftResult) -> Error {
        let library = hipfft_sys::loader::hipfft();
        if status == hipfftResult::HIPFFT_SETUP_FAILED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_string();
        if status == hipfftResult::HIPFFT_NOT_IMPLEMENTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Fft {
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

/// The operation of every plan parameter check (they run in
/// [`PlanBuilder::build`](crate::PlanBuilder::build) and
/// [`PlanBuilder::validate`](crate::PlanBuilder::validate)).
pub(crate) const BUILD: &str = "PlanBuilder::build";

impl Error {
    /// A plan parameter `name` (`dims`, `batch`, `input.stride`, ...) is
    /// invalid.
    #[cold]
    pub(crate) fn plan(name: &'static str, problem: impl std::fmt::Display) -> Error {
        Error::invalid(BUILD, format!("{name}: {problem}"))
    }
}

impl From<LoadError> for Error {
    fn from(e: LoadError) -> Error {
        Error::Load(e)
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
