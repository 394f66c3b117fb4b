//! `ncclResult_t` as a Rust error.

use crate::ncclResult_t;
use core::fmt;

hip_sys::status_result!(ncclResult_t, ncclSuccess);

impl ncclResult_t {
    /// What the status means, without calling into any library (the
    /// library's own text is `ncclGetErrorString`).
    ///
    /// Value 7 is `ncclNumResults` in RCCL 5.4's header (a count, never
    /// returned) and `ncclInProgress` in NCCL from 2.14 on (a non-blocking
    /// communicator still initializing): described as the latter, the only
    /// meaning a returned 7 can have.
    pub const fn description(self) -> &'static str {
        match self.0 {
            0 => "no error",
            1 => "unhandled GPU runtime error",
            2 => "unhandled system error (a system call, or a library that could not be loaded)",
            3 => "internal error",
            4 => "invalid argument",
            5 => "invalid usage (or a function this library does not provide)",
            6 => "remote process exited or there was a network error",
            7 => "operation in progress",
            _ => "unknown NCCL status",
        }
    }
}

impl fmt::Display for ncclResult_t {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            7 => write!(f, "ncclInProgress (7): {}", self.description()),
            _ => write!(f, "{:?} ({}): {}", self, self.0, self.description()),
        }
    }
}

impl std::error::Error for ncclResult_t {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_names_and_ok() {
        assert!(ncclResult_t::ncclSuccess.ok().is_ok());
        let e = ncclResult_t::ncclInvalidUsage.ok().unwrap_err();
        assert_eq!(e.name(), Some("ncclInvalidUsage"));
        assert_eq!(
            e.to_string(),
            "ncclInvalidUsage (5): invalid usage (or a function this library does not provide)"
        );
        assert_eq!(
            ncclResult_t(7).to_string(),
            "ncclInProgress (7): operation in progress"
        );
        let unknown = ncclResult_t(4242);
        assert_eq!(unknown.name(), None);
        assert!(unknown.to_string().contains("4242"));
        assert_eq!(unknown.description(), "unknown NCCL status");
    }
}
