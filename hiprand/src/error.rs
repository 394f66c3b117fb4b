//! The error type of every safe call.

use hiprand_sys::hiprandStatus_t;
use hiprand_sys::loader::LoadError;

/// What went wrong in a safe call.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No hipRAND (or cuRAND) could be loaded: every path tried.
    #[error(transparent)]
    Load(&'static LoadError),
    /// A hipRAND call returned an error status.
    #[error("{call} failed: {status}")]
    Rand {
        /// The C function called.
        call: &'static str,
        /// What it returned.
        #[source]
        status: hiprandStatus_t,
    },
    /// A HIP runtime call failed (binding the generator's device).
    #[error("{0}")]
    Runtime(#[from] hip::Error),
    /// An argument the library would refuse (or misuse), refused before
    /// any call.
    #[error("invalid {name}: {requirement}")]
    InvalidArgument {
        /// The argument.
        name: &'static str,
        /// What it must be, and what it was.
        requirement: String,
    },
    /// The buffer is on another device than the generator's stream.
    #[error(
        "the buffer is on device {buffer} but the generator's stream is on device {generator}"
    )]
    WrongDevice {
        /// The buffer's device.
        buffer: usize,
        /// The generator's device.
        generator: usize,
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

    pub(crate) fn invalid(name: &'static str, requirement: impl Into<String>) -> Error {
        Error::InvalidArgument {
            name,
            requirement: requirement.into(),
        }
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn check(call: &'static str, status: hiprandStatus_t) -> Result<()> {
    status.ok().map_err(|status| Error::Rand { call, status })
}
