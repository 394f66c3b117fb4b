//! What a raw function returns when it cannot call into a runtime.

use crate::{hipError_t, hiprtcResult};
use core::ffi::{c_char, c_int};

/// The value a raw wrapper returns instead of calling the C function, for
/// each return type that occurs in the bindings.
///
/// Two cases are told apart: no runtime library could be loaded at all
/// ([`crate::loader::runtime`] says why), or the loaded library lacks this one
/// symbol (an older runtime, or a function the NVIDIA backend does not
/// implement).
pub trait Unavailable {
    /// Returned when no runtime is loaded.
    fn library_missing() -> Self;
    /// Returned when the loaded runtime lacks the symbol.
    fn symbol_missing() -> Self;
}

impl Unavailable for hipError_t {
    /// `hipErrorSharedObjectInitFailed`: the runtime's shared object could
    /// not be opened.
    fn library_missing() -> Self {
        hipError_t::hipErrorSharedObjectInitFailed
    }
    /// `hipErrorNotSupported`: this runtime does not provide the function.
    fn symbol_missing() -> Self {
        hipError_t::hipErrorNotSupported
    }
}

impl Unavailable for hiprtcResult {
    fn library_missing() -> Self {
        hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR
    }
    fn symbol_missing() -> Self {
        hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR
    }
}

impl Unavailable for *const c_char {
    fn library_missing() -> Self {
        c"hip-sys: no HIP runtime is loaded (see hip_sys::loader::runtime())".as_ptr()
    }
    fn symbol_missing() -> Self {
        c"hip-sys: the loaded runtime does not provide this function".as_ptr()
    }
}

/// `-1`: the only `int`-returning function (`hipGetStreamDeviceId`) uses
/// negative values for failure.
impl Unavailable for c_int {
    fn library_missing() -> Self {
        -1
    }
    fn symbol_missing() -> Self {
        -1
    }
}

/// Functions returning nothing do nothing.
impl Unavailable for () {
    fn library_missing() -> Self {}
    fn symbol_missing() -> Self {}
}

/// NaN: hipBLASLt's tuning queries (`hipblasltGetTotalGranularityValue`, ...)
/// return a `double` with no failure value, and NaN is no real answer.
impl Unavailable for f64 {
    fn library_missing() -> Self {
        f64::NAN
    }
    fn symbol_missing() -> Self {
        f64::NAN
    }
}

/// `0`: hipBLASLt's byte-count queries (`hipblasltGetMemReadBytes`, ...)
/// return a `size_t`; no bytes were read or written.
impl Unavailable for usize {
    fn library_missing() -> Self {
        0
    }
    fn symbol_missing() -> Self {
        0
    }
}
