//! The thin layer over the raw driver names: [`DriverError`], the status
//! check, and the conversion from the safe `hip` crate's errors.

use super::generated as raw;
use std::ffi::CStr;
use std::fmt;

/// A failed driver call: the status, as cudarc's `DriverError(CUresult)`.
///
/// The value is HIP's (see the crate docs, "Enums and status values"):
/// compare it with the CUDA-named constants, e.g.
/// `err.0 == CUresult::CUDA_ERROR_NO_DEVICE`. Arguments rejected before any
/// call (mismatched lengths, a buffer of another device) are
/// `CUDA_ERROR_INVALID_VALUE`; something HIP lacks is
/// `CUDA_ERROR_NOT_SUPPORTED`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DriverError(pub raw::CUresult);

impl raw::CUresult {
    /// `Ok(())` for `CUDA_SUCCESS`, else `Err(DriverError(self))`
    /// (cudarc's `CUresult::result`).
    #[inline]
    ///
    /// An error clears this thread's [`last_error_detail`]: the status is
    /// the runtime's own, with no further reason.
    pub fn result(self) -> Result<(), DriverError> {
        if self == raw::CUresult::CUDA_SUCCESS {
            Ok(())
        } else {
            clear_detail();
            Err(DriverError(self))
        }
    }
}

impl DriverError {
    /// The status's name (`hipGetErrorName`, which `cuGetErrorName` calls
    /// on ROCm 6), e.g. `hipErrorNoDevice`: the runtime's own name, HIP's.
    pub fn error_name(&self) -> Result<&'static CStr, DriverError> {
        // SAFETY: takes a value; returns a static string or null.
        static_cstr(unsafe { hip::sys::hipGetErrorName(self.0.into()) })
    }

    /// The status's description (`hipGetErrorString`, which
    /// `cuGetErrorString` calls on ROCm 6; present in every HIP runtime).
    pub fn error_string(&self) -> Result<&'static CStr, DriverError> {
        // SAFETY: takes a value; returns a static string or null.
        static_cstr(unsafe { hip::sys::hipGetErrorString(self.0.into()) })
    }
}

fn static_cstr(p: *const std::ffi::c_char) -> Result<&'static CStr, DriverError> {
    if p.is_null() {
        return Err(DriverError(raw::CUresult::CUDA_ERROR_UNKNOWN));
    }
    // SAFETY: the runtime returns pointers to static NUL-terminated strings.
    Ok(unsafe { CStr::from_ptr(p) })
}

impl fmt::Debug for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut t = f.debug_tuple("DriverError");
        t.field(&self.0);
        match self.error_string() {
            Ok(s) => t.field(&s),
            Err(_) => t.field(&"<no description: the HIP runtime is not loaded>"),
        };
        if let Some((status, why)) = last_error_detail() {
            if status == self.0 {
                t.field(&why);
            }
        }
        t.finish()
    }
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for DriverError {}

// No `From<hip::Error> for DriverError`: cudarc programs rely on
// `DriverError` having no `From` impl but the reflexive one (a closure's
// `Ok(())` followed by `?` is inferred through it, as in cudarc's example
// 06-threading). Conversions go through `ToDriver` instead.

/// Converts a `hip` result into the driver's.
pub(crate) trait ToDriver<T> {
    fn drv(self) -> Result<T, DriverError>;
}

impl<T> ToDriver<T> for hip::Result<T> {
    #[inline]
    fn drv(self) -> Result<T, DriverError> {
        self.map_err(|e| match &e {
            hip::Error::Hip { .. } => {
                clear_detail();
                DriverError(status_of(&e))
            }
            other => fail(status_of(&e), &other.to_string()),
        })
    }
}

/// The CUDA status that stands for a `hip` error.
pub(crate) fn status_of(e: &hip::Error) -> raw::CUresult {
    match e {
        hip::Error::Hip { status, .. } => (*status).into(),
        hip::Error::Load(_) => raw::CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
        hip::Error::Compile { .. } => raw::CUresult::CUDA_ERROR_INVALID_SOURCE,
        hip::Error::Invalid { .. } => raw::CUresult::CUDA_ERROR_INVALID_VALUE,
        _ => raw::CUresult::CUDA_ERROR_UNKNOWN,
    }
}

/// Turns a raw HIP status into a `Result`.
#[inline]
pub(crate) fn check(status: hip::sys::hipError_t) -> Result<(), DriverError> {
    raw::CUresult::from(status).result()
}

/// `CUDA_ERROR_INVALID_VALUE`: an argument rejected before any call, for
/// a reason the status says well enough (the detail is cleared).
#[inline]
pub(crate) fn invalid() -> DriverError {
    clear_detail();
    DriverError(raw::CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// `CUDA_ERROR_INVALID_VALUE` with its reason.
#[cold]
pub(crate) fn invalid_because(why: &str) -> DriverError {
    fail(raw::CUresult::CUDA_ERROR_INVALID_VALUE, why)
}

fn clear_detail() {
    DETAIL.with(|d| *d.borrow_mut() = None);
}

thread_local! {
    static DETAIL: std::cell::RefCell<Option<(raw::CUresult, String)>> =
        const { std::cell::RefCell::new(None) };
}

/// A `DriverError` of `status` whose reason is `why`: the reason is kept
/// for this thread and printed by `Debug`/`Display` of an error of the same
/// status on this thread (see [`last_error_detail`]).
pub(crate) fn fail(status: raw::CUresult, why: &str) -> DriverError {
    DETAIL.with(|d| *d.borrow_mut() = Some((status, why.to_owned())));
    DriverError(status)
}

/// The reason for the last error this thread got from the safe layer, with
/// its status, when there is more to say than the status (PTX loaded on
/// AMD, mismatched lengths, a buffer of another device, a launch
/// configuration beyond the device's limits); `None` after an error that
/// is the runtime's own status. cudarc's `DriverError` holds only the
/// status; this is where the words are. `DriverError`'s `Debug` adds the
/// reason when its status matches.
pub fn last_error_detail() -> Option<(raw::CUresult, String)> {
    DETAIL.with(|d| d.borrow().clone())
}
