//! The crate's one error type.

use crate::rendezvous::RendezvousError;
use rccl_sys::loader::LoadError;
use rccl_sys::ncclResult_t;
use std::time::Duration;

hip::library_error! {
    library: "RCCL",
    status: Nccl(ncclResult_t),
    load: LoadError,
    example_call: "ncclAllReduce",
    extra: {
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
        #[error("{0}")]
        Rendezvous(#[from] RendezvousError),
    }
}

fn abort_note(abort_error: &Option<String>) -> String {
    match abort_error {
        Some(e) => format!(" (the abort failed too: {e})"),
        None => String::new(),
    }
}

impl Error {
    /// Whether the library was reached: false for every error found by a
    /// check before the call (and for [`Error::Load`], when there is no
    /// library to reach).
    pub fn reached_library(&self) -> bool {
        matches!(
            self,
            Error::Nccl { .. } | Error::Runtime(_) | Error::Timeout { .. }
        )
    }
}
