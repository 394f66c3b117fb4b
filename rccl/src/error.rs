//! The crate's one error type.

use crate::rendezvous::RendezvousError;
use rccl_sys::loader::LoadError;
use rccl_sys::ncclResult_t;
use std::time::Duration;

/// Everything that can go wrong in a collective, or before it.
///
/// The shape is the workspace's: [`Error::Load`] (no library),
/// [`Error::Nccl`] (the library's status), [`Error::Runtime`] (a `hip`
/// call), [`Error::Invalid`] for every argument refused before any call,
/// and this crate's own [`Error::Unsupported`], [`Error::Timeout`] and
/// [`Error::Rendezvous`]. Every argument check happens before RCCL is
/// called: [`Error::reached_library`] says whether it was.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// RCCL (NCCL on the NVIDIA platform) could not be loaded: the loader's
    /// report of every path tried (its `Display` is this error's message).
    #[error(transparent)]
    Load(LoadError),
    /// An RCCL/NCCL function returned a failure status.
    #[error("{call} failed with {status:?} ({}): {message}", .status.0)]
    Nccl {
        /// The C function called, e.g. `"ncclAllReduce"`.
        call: &'static str,
        /// Its status.
        status: ncclResult_t,
        /// The library's words: `ncclGetErrorString`, and the
        /// communicator's `ncclGetLastError` where there is one.
        message: String,
    },
    /// An argument was rejected before any call into the library: a
    /// length that does not fit the collective (lengths that must be equal,
    /// a multiple of the world size, or fit in the C API); a buffer, stream
    /// or device list that does not match the communicator's devices; a
    /// rank outside `0..world_size`; a world size of zero or too large for
    /// the C API's `int`; a [`crate::CommConfig`] field the library would
    /// reject, or a split's color or key too large for the C API.
    #[error("invalid argument to {operation}: {reason}")]
    Invalid {
        /// The operation that rejected it, e.g. `"Comm::all_gather"`.
        operation: &'static str,
        /// What was wrong, with the offending values.
        reason: String,
    },
    /// The loaded library lacks what the call needs (e.g. `ncclAvg` before
    /// NCCL 2.10).
    #[error("{operation}: not supported by the loaded library: {reason}")]
    Unsupported {
        /// The operation that needed it.
        operation: &'static str,
        /// What is missing, with the library's version.
        reason: String,
    },
    /// [`crate::Comm::wait`] gave up: the work had not finished within
    /// `timeout`, and the communicator was aborted (`ncclCommAbort`), so
    /// it cannot be used again.
    #[error("{operation}: the stream's work did not finish within {timeout:?}; the communicator was aborted{}", abort_note(.abort_error))]
    Timeout {
        /// The operation that waited.
        operation: &'static str,
        /// How long it waited.
        timeout: Duration,
        /// The abort's own failure, if it failed.
        abort_error: Option<String>,
    },
    /// The rendezvous that hands every rank the communicator's id failed.
    #[error(transparent)]
    Rendezvous(#[from] RendezvousError),
    /// A HIP runtime call (device, stream) failed.
    #[error(transparent)]
    Runtime(#[from] hip::Error),
}

fn abort_note(abort_error: &Option<String>) -> String {
    match abort_error {
        Some(e) => format!(" (the abort failed too: {e})"),
        None => String::new(),
    }
}

impl Error {
    /// The RCCL/NCCL status, for [`Error::Nccl`].
    pub fn status(&self) -> Option<ncclResult_t> {
        match self {
            Error::Nccl { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether the library was reached: false for every error found by a
    /// check before the call (and for [`Error::Load`], when there is no
    /// library to reach).
    pub fn reached_library(&self) -> bool {
        matches!(
            self,
            Error::Nccl { .. } | Error::Runtime(_) | Error::Timeout { .. }
        )
    }

    /// The C call that failed, for [`Error::Nccl`].
    pub fn call(&self) -> Option<&'static str> {
        match self {
            Error::Nccl { call, .. } => Some(call),
            _ => None,
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

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
