//! Error reporting: the per-thread last error, the message of each
//! thread's most recent failure, and the names and words of the codes.

use super::{put, R};
use hip_sys::hipError_t;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::{c_char, CStr, CString};
use std::sync::{Mutex, OnceLock};

thread_local! {
    /// The code `hipGetLastError` returns (reset by it).
    static LAST: Cell<hipError_t> = const { Cell::new(hipError_t::hipSuccess) };
    /// This thread's most recent failure: its code and message.
    static MESSAGE: RefCell<Option<(hipError_t, &'static CStr)>> = const { RefCell::new(None) };
}

/// At most this many distinct failure messages are kept for
/// `hipGetErrorString`; past it, the fixed words are returned (each
/// message lives for the rest of the process, as C callers may keep the
/// pointer).
const MAX_MESSAGES: usize = 4096;

/// Interns `s` for the process's lifetime.
fn intern(s: &str) -> Option<&'static CStr> {
    static TABLE: OnceLock<Mutex<HashMap<String, &'static CStr>>> = OnceLock::new();
    let mut t = super::lock(TABLE.get_or_init(Default::default));
    if let Some(c) = t.get(s) {
        return Some(c);
    }
    if t.len() >= MAX_MESSAGES {
        return None;
    }
    let c: &'static CStr = Box::leak(CString::new(s.replace('\0', " ")).ok()?.into_boxed_c_str());
    t.insert(s.to_owned(), c);
    Some(c)
}

/// Records a failure of this thread.
pub(crate) fn record(code: hipError_t, message: String) {
    if code != hipError_t::hipErrorNotReady {
        LAST.with(|l| l.set(code));
    }
    let interned = intern(&message);
    MESSAGE.with(|m| *m.borrow_mut() = interned.map(|c| (code, c)));
}

/// This thread's most recent failure, as `(code, message)`; for tests and
/// tools that link the crate.
pub fn last_failure() -> Option<(hipError_t, String)> {
    MESSAGE.with(|m| {
        m.borrow()
            .map(|(c, s)| (c, s.to_string_lossy().into_owned()))
    })
}

/// The fixed words for `code`, as ROCm's `hipGetErrorString` gives them.
fn words(code: hipError_t) -> &'static CStr {
    match code {
        hipError_t::hipSuccess => c"no error",
        hipError_t::hipErrorInvalidValue => c"invalid argument",
        hipError_t::hipErrorOutOfMemory => c"out of memory",
        hipError_t::hipErrorNotInitialized => c"initialization error",
        hipError_t::hipErrorDeinitialized => c"driver shutting down",
        hipError_t::hipErrorInvalidConfiguration => c"invalid configuration argument",
        hipError_t::hipErrorInvalidPitchValue => c"invalid pitch argument",
        hipError_t::hipErrorInvalidSymbol => c"invalid device symbol",
        hipError_t::hipErrorInvalidDevicePointer => c"invalid device pointer",
        hipError_t::hipErrorInvalidMemcpyDirection => c"invalid copy direction for memcpy",
        hipError_t::hipErrorInvalidDeviceFunction => c"invalid device function",
        hipError_t::hipErrorNoDevice => c"no ROCm-capable device is detected",
        hipError_t::hipErrorInvalidDevice => c"invalid device ordinal",
        hipError_t::hipErrorInvalidImage => c"device kernel image is invalid",
        hipError_t::hipErrorInvalidContext => c"invalid device context",
        hipError_t::hipErrorNoBinaryForGpu => {
            c"no kernel image is available for execution on the device"
        }
        hipError_t::hipErrorInvalidKernelFile => c"invalid kernel file",
        hipError_t::hipErrorFileNotFound => c"file not found",
        hipError_t::hipErrorInvalidHandle => c"invalid resource handle",
        hipError_t::hipErrorNotFound => c"named symbol not found",
        hipError_t::hipErrorNotReady => c"device not ready",
        hipError_t::hipErrorIllegalAddress => c"an illegal memory access was encountered",
        hipError_t::hipErrorLaunchOutOfResources => c"too many resources requested for launch",
        hipError_t::hipErrorPeerAccessAlreadyEnabled => c"peer access is already enabled",
        hipError_t::hipErrorPeerAccessNotEnabled => c"peer access has not been enabled",
        hipError_t::hipErrorHostMemoryAlreadyRegistered => {
            c"part or all of the requested memory range is already mapped"
        }
        hipError_t::hipErrorHostMemoryNotRegistered => {
            c"pointer does not correspond to a registered memory region"
        }
        hipError_t::hipErrorLaunchFailure => c"unspecified launch failure",
        hipError_t::hipErrorCooperativeLaunchTooLarge => c"too many blocks in cooperative launch",
        hipError_t::hipErrorNotSupported => c"operation not supported",
        hipError_t::hipErrorStreamCaptureUnsupported => {
            c"operation not permitted when stream is capturing"
        }
        hipError_t::hipErrorStreamCaptureInvalidated => {
            c"operation failed due to a previous error during capture"
        }
        hipError_t::hipErrorStreamCaptureUnmatched => c"capture was not initiated in this stream",
        hipError_t::hipErrorIllegalState => {
            c"the operation cannot be performed in the present state"
        }
        _ => c"unknown error",
    }
}

/// The C name of `code` (`hipErrorInvalidValue`).
fn name(code: hipError_t) -> &'static CStr {
    match code.name().and_then(intern) {
        Some(c) => c,
        None => c"hipErrorUnknown",
    }
}

/// `hipGetErrorString`: this thread's message for `code` when its most
/// recent failure had that code, else the fixed words.
fn string(code: hipError_t) -> &'static CStr {
    let own = MESSAGE.with(|m| m.borrow().filter(|(c, _)| *c == code).map(|(_, s)| s));
    own.unwrap_or_else(|| words(code))
}

/// The C name of a status, `"hipErrorUnknown"` for a value that is none.
#[allow(non_snake_case, unreachable_pub)]
#[no_mangle]
pub extern "C" fn hipGetErrorName(hip_error: hipError_t) -> *const c_char {
    std::panic::catch_unwind(|| name(hip_error).as_ptr()).unwrap_or(c"hipErrorUnknown".as_ptr())
}

/// What a status means: when it is the status of this thread's most recent
/// failure, that failure's message (which names the function and the
/// reason); else the fixed words ROCm gives it.
#[allow(non_snake_case, unreachable_pub)]
#[no_mangle]
pub extern "C" fn hipGetErrorString(hipError: hipError_t) -> *const c_char {
    std::panic::catch_unwind(|| string(hipError).as_ptr()).unwrap_or(c"unknown error".as_ptr())
}

/// This thread's last error, reset to `hipSuccess`.
#[allow(non_snake_case, unreachable_pub)]
#[no_mangle]
pub extern "C" fn hipGetLastError() -> hipError_t {
    LAST.with(|l| l.replace(hipError_t::hipSuccess))
}

/// HIP 7's name for [`hipGetLastError`] (rocBLAS 7 calls it): this
/// thread's last error, reset to `hipSuccess`.
#[allow(non_snake_case, unreachable_pub)]
#[no_mangle]
pub extern "C" fn hipExtGetLastError() -> hipError_t {
    hipGetLastError()
}

/// This thread's last error, left as it is.
#[allow(non_snake_case, unreachable_pub)]
#[no_mangle]
pub extern "C" fn hipPeekAtLastError() -> hipError_t {
    LAST.with(|l| l.get())
}

fn known(code: hipError_t) -> R {
    if code.name().is_some() {
        Ok(())
    } else {
        super::invalid(format!("{} is not a hipError_t value", code.0))
    }
}

export! {
    /// The driver-API form of [`hipGetErrorName`].
    fn hipDrvGetErrorName(hipError: hipError_t, errorString: *mut *const c_char) {
        known(hipError)?;
        // SAFETY: `errorString` is null or a valid `const char**` (the
        // function's contract); `put` rejects null.
        unsafe { put(errorString, name(hipError).as_ptr(), "errorString") }
    }

    /// The driver-API form of [`hipGetErrorString`].
    fn hipDrvGetErrorString(hipError: hipError_t, errorString: *mut *const c_char) {
        known(hipError)?;
        // SAFETY: as in `hipDrvGetErrorName`.
        unsafe { put(errorString, string(hipError).as_ptr(), "errorString") }
    }
}
