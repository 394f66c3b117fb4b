//! What a raw RCCL function returns when it cannot call into a library.

use crate::ncclResult_t;
use core::ffi::c_char;

/// The value a raw wrapper returns instead of calling the C function, for
/// each return type of the bindings (the same two functions as
/// `hip_sys::Unavailable`; a trait of this crate so that the `const char*`
/// message names RCCL, not the HIP runtime).
pub trait Unavailable {
    /// Returned when no RCCL (or NCCL) could be loaded.
    fn library_missing() -> Self;
    /// Returned when the loaded library lacks the symbol.
    fn symbol_missing() -> Self;
}

/// NCCL's own statuses for "cannot run":
///
/// - no library could be loaded: `ncclSystemError`, NCCL's status for a
///   failed system call or missing system resource (what `dlopen` failing
///   is); `ncclUnhandledCudaError` would blame the GPU runtime, and
///   `ncclInternalError` a bug. [`crate::loader::rccl`] says what was tried;
/// - the loaded library lacks this symbol (an older RCCL, or
///   `ncclCommInitRankMulti` on NCCL): `ncclInvalidUsage`, NCCL's status for a call the library
///   cannot serve as made. No NCCL status means "not implemented"; this one
///   is never returned for a bad argument (that is `ncclInvalidArgument`).
impl Unavailable for ncclResult_t {
    fn library_missing() -> Self {
        ncclResult_t::ncclSystemError
    }
    fn symbol_missing() -> Self {
        ncclResult_t::ncclInvalidUsage
    }
}

/// `ncclGetErrorString` and `ncclGetLastError` return a message saying why
/// there is none (a static C string: never null, never freed).
impl Unavailable for *const c_char {
    fn library_missing() -> Self {
        c"rccl-sys: no RCCL or NCCL library is loaded (see rccl_sys::loader::rccl())".as_ptr()
    }
    fn symbol_missing() -> Self {
        c"rccl-sys: the loaded RCCL/NCCL does not provide this function".as_ptr()
    }
}
