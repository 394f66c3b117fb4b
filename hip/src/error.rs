//! The crate's one error type.

use crate::drop_errors::DropErrorRegistry;
use crate::result;
use hip_sys::{hipError_t, hiprtcResult};

/// Everything that can go wrong in this crate.
///
/// Each variant says what failed and with which values, so that the
/// message alone is enough to act on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A HIP runtime call returned an error status.
    #[error("{call} failed with {status}: {message}{}", missing_note(*.symbol_missing))]
    Hip {
        /// The C name of the call that failed, e.g. `"hipMalloc"`.
        call: &'static str,
        /// The status it returned (also this error's `source()`).
        #[source]
        status: hipError_t,
        /// The runtime's description of the status (`hipGetErrorString`).
        message: String,
        /// True when the status is `hipErrorNotSupported` because the loaded
        /// runtime (or the NVIDIA backend) does not provide `call` at all.
        symbol_missing: bool,
    },
    /// A hiprtc call returned an error status.
    #[error("{call} failed with {status}: {message}")]
    Hiprtc {
        /// The C name of the call that failed.
        call: &'static str,
        /// The status it returned (also this error's `source()`).
        #[source]
        status: hiprtcResult,
        /// hiprtc's description of the status (`hiprtcGetErrorString`).
        message: String,
    },
    /// Compiling HIP source failed; `log` is the compiler's full log.
    #[error("compiling `{program}` failed with {status} (options: {options:?}):\n{log}")]
    Compile {
        /// The program's name as given to hiprtc.
        program: String,
        /// The options passed to the compiler.
        options: Vec<String>,
        /// The status `hiprtcCompileProgram` returned.
        status: hiprtcResult,
        /// The full compiler log.
        log: String,
    },
    /// No HIP runtime could be loaded; holds every path tried and why.
    #[error("{0}")]
    Load(hip_sys::loader::LoadError),
    /// An argument was rejected before any call into the runtime.
    #[error("invalid argument to {operation}: {reason}")]
    Invalid {
        /// The operation that rejected it, e.g. `"DeviceBuffer::slice"`.
        operation: &'static str,
        /// What was wrong, with the offending values.
        reason: String,
    },
    /// The loaded runtime lacks what the call needs (an older ROCm, or a
    /// feature the NVIDIA backend cannot provide).
    #[error("{operation} is not supported: {reason}")]
    Unsupported {
        /// The operation that needed it.
        operation: &'static str,
        /// What is missing.
        reason: String,
    },
    /// A launch whose block has more threads than the kernel's launch
    /// bound: its `__launch_bounds__`, or the bound its build gave every
    /// kernel without one (`--gpu-max-threads-per-block`). The runtime
    /// refused it (on AMD, `hipErrorLaunchFailure`); nothing ran.
    #[error(
        "kernel `{kernel}` was launched with a block of {block:?}, {threads} threads, more than \
         its launch bound of {bound} (its __launch_bounds__, or its build's bound); {call} \
         failed with {status}"
    )]
    LaunchBound {
        /// The kernel's name.
        kernel: String,
        /// The block asked for.
        block: (u32, u32, u32),
        /// Its threads.
        threads: u64,
        /// The most threads a block of this kernel may have.
        bound: u32,
        /// The C call that failed.
        call: &'static str,
        /// The status it returned.
        status: hipError_t,
    },
    /// A host callback panicked; the panic was caught at the FFI boundary.
    #[error("host callback panicked: {message}")]
    CallbackPanicked {
        /// The panic's message, when it was a string.
        message: String,
    },
}

fn missing_note(missing: bool) -> &'static str {
    if missing {
        " (the loaded runtime does not provide this function)"
    } else {
        ""
    }
}

/// This crate's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The HIP status, for [`Error::Hip`] and [`Error::LaunchBound`].
    pub fn hip_status(&self) -> Option<hipError_t> {
        match self {
            Error::Hip { status, .. } | Error::LaunchBound { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The C call that failed, for errors coming from the runtime.
    pub fn call(&self) -> Option<&'static str> {
        match self {
            Error::Hip { call, .. }
            | Error::Hiprtc { call, .. }
            | Error::LaunchBound { call, .. } => Some(call),
            Error::Compile { .. } => Some("hiprtcCompileProgram"),
            _ => None,
        }
    }

    /// The compiler log, for [`Error::Compile`].
    pub fn compile_log(&self) -> Option<&str> {
        match self {
            Error::Compile { log, .. } => Some(log),
            _ => None,
        }
    }

    /// Builds an [`Error::Hip`] for `status` returned by `call`, with the
    /// runtime's message, or the loader's reason when no runtime is loaded.
    #[cold]
    #[inline(never)]
    pub fn from_hip(call: &'static str, status: hipError_t) -> Error {
        if status == hipError_t::hipErrorSharedObjectInitFailed {
            if let Err(e) = hip_sys::loader::runtime() {
                return Error::Load(e.clone());
            }
        }
        let symbol_missing = status == hipError_t::hipErrorNotSupported
            && hip_sys::loader::runtime().is_ok_and(|r| !r.is_available(call));
        let message = result::error_string(status);
        Error::Hip {
            call,
            status,
            message,
            symbol_missing,
        }
    }

    /// Builds an [`Error::Hiprtc`] for `status` returned by `call`.
    #[cold]
    #[inline(never)]
    pub fn from_hiprtc(call: &'static str, status: hiprtcResult) -> Error {
        if let Err(e) = hip_sys::loader::runtime() {
            return Error::Load(e.clone());
        }
        let message = result::rtc_error_string(status);
        Error::Hiprtc {
            call,
            status,
            message,
        }
    }

    /// An [`Error::Invalid`].
    #[cold]
    #[inline(never)]
    pub(crate) fn invalid(operation: &'static str, reason: impl Into<String>) -> Error {
        Error::Invalid {
            operation,
            reason: reason.into(),
        }
    }
}

impl From<hip_sys::loader::LoadError> for Error {
    fn from(e: hip_sys::loader::LoadError) -> Error {
        Error::Load(e)
    }
}

/// This crate's registry of errors seen where they could not be returned.
static RECORDED: DropErrorRegistry<Error> = DropErrorRegistry::new();

/// Records an error seen where it could not be returned.
pub(crate) fn record(e: Error) {
    RECORDED.record_error(e);
}

/// Records the error of `r`, if any.
pub(crate) fn record_result(r: Result<()>) {
    RECORDED.record_result(r);
}

/// Takes every error recorded so far (from `Drop` implementations and host
/// callback panics), oldest first, leaving none.
///
/// `Drop` never panics in this crate: a failed `hipFree`, `hipStreamDestroy`
/// and the like ends up here, as does a panic caught inside a host callback
/// ([`Error::CallbackPanicked`]).
pub fn take_drop_errors() -> Vec<Error> {
    RECORDED.take_all()
}

/// How many errors are recorded now (see [`take_drop_errors`]).
pub fn drop_error_count() -> usize {
    RECORDED.recorded_count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_bound_error_names_the_kernel_the_block_and_the_bound() {
        let e = Error::LaunchBound {
            kernel: "bounded_add_one".into(),
            block: (128, 1, 1),
            threads: 128,
            bound: 64,
            call: "hipModuleLaunchKernel",
            status: hipError_t::hipErrorLaunchFailure,
        };
        let text = e.to_string();
        assert!(
            text.starts_with(
                "kernel `bounded_add_one` was launched with a block of (128, 1, 1), 128 threads, \
                 more than its launch bound of 64 (its __launch_bounds__, or its build's bound); \
                 hipModuleLaunchKernel failed with "
            ),
            "{text}"
        );
        assert_eq!(e.hip_status(), Some(hipError_t::hipErrorLaunchFailure));
        assert_eq!(e.call(), Some("hipModuleLaunchKernel"));
    }
}
