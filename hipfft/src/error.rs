//! The error type of every safe call.

use hipfft_sys::hipfftResult;
use hipfft_sys::loader::LoadError;

/// What went wrong in a hipFFT call, or before it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// hipFFT (or cuFFT behind it) could not be loaded: the loader's report
    /// of every path tried (its `Display` is this error's message).
    #[error(transparent)]
    Load(&'static LoadError),
    /// A hipFFT function returned a failure status.
    #[error("{call} failed: {status}")]
    Fft {
        /// The C function called.
        call: &'static str,
        /// Its status.
        #[source]
        status: hipfftResult,
    },
    /// A HIP runtime call (device binding) failed.
    #[error("{0}")]
    Runtime(#[from] hip::Error),
    /// A plan parameter is invalid; checked before any call.
    #[error("invalid {name}: {problem}")]
    InvalidPlan {
        /// The parameter (`dims`, `batch`, `input.stride`, ...).
        name: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// A buffer's element type is not the one the plan's transform reads or
    /// writes there.
    #[error("{name} holds {got} but this {transform} plan needs {want} there")]
    WrongElementType {
        /// `input`, `output` or `data`.
        name: &'static str,
        /// The buffer's element type.
        got: &'static str,
        /// The type the plan needs.
        want: &'static str,
        /// The plan's transform (`C2C f32`, ...).
        transform: String,
    },
    /// A buffer holds fewer elements than the plan's layout reaches.
    #[error("{name} holds {len} elements but the plan's layout needs {required}")]
    BufferTooSmall {
        /// `input`, `output` or `data`.
        name: &'static str,
        /// Its length in elements.
        len: usize,
        /// The elements the transform reads or writes.
        required: usize,
    },
    /// A buffer is on another device than the plan.
    #[error("{name} is on device {got} but the plan is on device {want}")]
    WrongDevice {
        /// `input`, `output`, `data` or `work area`.
        name: &'static str,
        /// The buffer's device.
        got: usize,
        /// The plan's device.
        want: usize,
    },
    /// The call does not fit how the plan was made (direction, placement,
    /// work area).
    #[error("{0}")]
    Usage(String),
}

impl Error {
    /// The hipFFT status, for [`Error::Fft`].
    pub fn status(&self) -> Option<hipfftResult> {
        match self {
            Error::Fft { status, .. } => Some(*status),
            _ => None,
        }
    }

    pub(crate) fn plan(name: &'static str, problem: impl Into<String>) -> Error {
        Error::InvalidPlan {
            name,
            problem: problem.into(),
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// `Ok` for `HIPFFT_SUCCESS`, else the call's name and status.
pub(crate) fn check(call: &'static str, status: hipfftResult) -> Result<()> {
    status.ok().map_err(|status| Error::Fft { call, status })
}
