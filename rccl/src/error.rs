//! The crate's one error type.

use crate::rendezvous::RendezvousError;
use rccl_sys::loader::LoadError;
use rccl_sys::ncclResult_t;
use std::time::Duration;

/// Everything that can go wrong in a collective, or before it.
///
/// Every argument check happens before RCCL is called, so an error of a
/// kind other than [`Error::Load`], [`Error::Nccl`] and [`Error::Hip`] says
/// that the library was not reached.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// RCCL (NCCL on the NVIDIA platform) could not be loaded: the loader's
    /// report of every path tried (its `Display` is this error's message).
    #[error(transparent)]
    Load(&'static LoadError),
    /// An RCCL/NCCL function returned a failure status.
    #[error("{call} failed with {status}: {message}")]
    Nccl {
        /// The C function called, e.g. `"ncclAllReduce"`.
        call: &'static str,
        /// Its status.
        status: ncclResult_t,
        /// The library's words: `ncclGetErrorString`, and the
        /// communicator's `ncclGetLastError` where there is one.
        message: String,
    },
    /// A buffer's length does not fit the collective (lengths that must be
    /// equal, a multiple of the world size, or fit in the C API).
    #[error("{operation}: {reason}")]
    Length {
        /// The operation that rejected it, e.g. `"Comm::all_gather"`.
        operation: &'static str,
        /// What was wrong, with the values.
        reason: String,
    },
    /// A buffer, stream or device list does not match the communicator's
    /// devices (memory or stream on another device, an empty or repeated
    /// device list).
    #[error("{operation}: {reason}")]
    Device {
        /// The operation that rejected it.
        operation: &'static str,
        /// What was wrong, with the device ordinals.
        reason: String,
    },
    /// A rank (root, peer, own rank) outside `0..world_size`.
    #[error("{operation}: {what} {rank} is not below the world size {world_size}")]
    Rank {
        /// The operation that rejected it.
        operation: &'static str,
        /// Which rank argument: `"root"`, `"peer"`, `"rank"`.
        what: &'static str,
        /// Its value.
        rank: usize,
        /// The communicator's (or job's) size.
        world_size: usize,
    },
    /// A world size of zero, or too large for the C API's `int`.
    #[error("{operation}: world size {world_size}: {reason}")]
    WorldSize {
        /// The operation that rejected it.
        operation: &'static str,
        /// The size given.
        world_size: usize,
        /// What it must satisfy.
        reason: &'static str,
    },
    /// A [`crate::CommConfig`] field the library would reject (a CTA count
    /// of 0, `min_ctas` above `max_ctas`, a NUL byte in `net_name`), or a
    /// split's color or key too large for the C API.
    #[error("{operation}: {reason}")]
    Config {
        /// The operation that rejected it.
        operation: &'static str,
        /// What was wrong, with the values.
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
    Hip(#[from] hip::Error),
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
            Error::Nccl { .. } | Error::Hip(_) | Error::Timeout { .. }
        )
    }
}

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
