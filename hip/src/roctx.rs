//! Profiler annotations: roctx marks and ranges, which rocprof (AMD) or
//! Nsight Systems (NVIDIA, through NVTX) show on the timeline.
//!
//! ```no_run
//! # fn main() -> hip::Result<()> {
//! hip::roctx::mark("loaded the weights")?;
//! for step in 0..3 {
//!     let _r = hip::roctx::range(&format!("step {step}"))?; // popped at the end of the body
//!     // ... launch kernels ...
//! }
//! # Ok(())
//! # }
//! ```
//!
//! - **Messages** are C strings for the library: one holding a NUL byte is
//!   rejected with [`Error::Invalid`] before anything is called, so a mark
//!   is never silently cut short.
//! - **No library, no effect, no panic.** On AMD the annotations go to
//!   `libroctx64.so.4`; on NVIDIA to NVTX (`libnvtx3interop.so.1` in CUDA
//!   13, which has no `libnvToolsExt`, else `libnvToolsExt.so.1`). When
//!   neither is found every call here does nothing; [`is_available`] says
//!   whether a library was loaded and [`library`] what was tried.
//! - **Levels are the library's.** [`range_push`] and [`range_pop`] return
//!   what roctx or NVTX returns: the nesting level (roctx counts from 0),
//!   or a negative value when nothing is tracked: `-1` without a library,
//!   and `-2` from NVTX when no profiler is attached. The guard [`range`]
//!   does not depend on them, and [`depth`] counts this thread's open
//!   ranges whatever the library says.
//! - **Push/pop ranges belong to a thread**: the guard [`Range`] is
//!   therefore not `Send`, and pops on the thread that pushed it, also when
//!   the scope is left by a panic. Start/stop ranges ([`range_start`]) may
//!   end on any thread.

use crate::error::{Error, Result};
use crate::result;
use std::cell::Cell;
use std::ffi::CString;
use std::marker::PhantomData;

thread_local! {
    /// Ranges pushed through this module on this thread and not popped.
    static DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// How many ranges this thread pushed through this module ([`range_push`],
/// [`range`]) and has not popped: the nesting as this crate counts it,
/// whatever the library returns (NVTX without a profiler returns `-2`).
/// Raw `roctx_sys` calls are not counted.
pub fn depth() -> u32 {
    DEPTH.with(Cell::get)
}

fn pushed() {
    DEPTH.with(|d| d.set(d.get().saturating_add(1)));
}

fn popped() {
    DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
}

/// The annotation library behind these calls, or every path tried for it.
pub use roctx_sys::loader::{roctx as library, Roctx};

/// Whether a roctx (AMD) or NVTX (NVIDIA) library was loaded; when false,
/// every call of this module does nothing.
pub fn is_available() -> bool {
    roctx_sys::loader::is_available()
}

/// roctx's version (`roctx_version_major`, `_minor`), e.g. `(4, 1)`;
/// `None` without roctx, and on NVIDIA, where NVTX has no version call.
pub fn version() -> Option<(u32, u32)> {
    match result::roctx_version() {
        (0, 0) => None,
        v => Some(v),
    }
}

/// `message` as a C string, or the error naming `operation` and where the
/// NUL byte is.
fn c_message(operation: &'static str, message: &str) -> Result<CString> {
    CString::new(message).map_err(|e| Error::Invalid {
        operation,
        reason: format!(
            "the message holds a NUL byte at byte {} of {}: {message:?}",
            e.nul_position(),
            message.len()
        ),
    })
}

/// Marks an instant on the timeline (`roctxMarkA`).
///
/// # Errors
/// [`Error::Invalid`] when `message` holds a NUL byte.
pub fn mark(message: &str) -> Result<()> {
    let message = c_message("roctx::mark", message)?;
    result::roctx_mark(&message);
    Ok(())
}

/// Opens a range on this thread's stack (`roctxRangePushA`) and returns
/// the library's level: 0 for an outermost range with roctx; negative when
/// nothing is tracked (see the module docs). Prefer the guard [`range`],
/// which cannot be left unpopped.
///
/// # Errors
/// [`Error::Invalid`] when `message` holds a NUL byte; nothing is pushed.
pub fn range_push(message: &str) -> Result<i32> {
    let message = c_message("roctx::range_push", message)?;
    let level = result::roctx_range_push(&message);
    pushed();
    Ok(level)
}

/// Closes this thread's innermost range (`roctxRangePop`) and returns the
/// library's value: the popped range's level with roctx, negative when
/// there was none or nothing is tracked.
pub fn range_pop() -> i32 {
    popped();
    result::roctx_range_pop()
}

/// A range opened by [`range_start`], closed by [`range_stop`] on any
/// thread. The id is the library's (`0` when no library tracks it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RangeId(pub u64);

/// Opens a range not tied to a thread (`roctxRangeStartA`).
///
/// # Errors
/// [`Error::Invalid`] when `message` holds a NUL byte; nothing is started.
pub fn range_start(message: &str) -> Result<RangeId> {
    let message = c_message("roctx::range_start", message)?;
    Ok(RangeId(result::roctx_range_start(&message)))
}

/// Closes a range opened by [`range_start`] (`roctxRangeStop`).
pub fn range_stop(id: RangeId) {
    result::roctx_range_stop(id.0)
}

/// A range pushed on this thread by [`range`] and popped when dropped:
/// at the end of its scope, or while a panic unwinds through it.
///
/// Not `Send`: roctx and NVTX keep push/pop ranges per thread, so a pop on
/// another thread would close that thread's range. Inside a guard's
/// scope, push and pop by hand only in pairs: an extra [`range_pop`] would
/// close the guard's range, and the guard would then close its parent's.
#[derive(Debug)]
#[must_use = "the range is popped when this guard is dropped: bind it, e.g. `let _r = ...`"]
pub struct Range {
    level: i32,
    /// Keeps the guard on the thread that pushed it.
    _thread: PhantomData<*const ()>,
}

impl Range {
    /// The level [`range_push`] returned for this range (see its docs).
    pub fn level(&self) -> i32 {
        self.level
    }
}

impl Drop for Range {
    fn drop(&mut self) {
        popped();
        result::roctx_range_pop();
    }
}

/// Pushes a range on this thread and returns the guard that pops it.
///
/// ```no_run
/// # fn main() -> hip::Result<()> {
/// let _r = hip::roctx::range("forward")?;
/// // ... work shown as "forward" ...
/// # Ok(())
/// # }
/// ```
///
/// # Errors
/// [`Error::Invalid`] when `message` holds a NUL byte; nothing is pushed.
pub fn range(message: &str) -> Result<Range> {
    let message = c_message("roctx::range", message)?;
    let level = result::roctx_range_push(&message);
    pushed();
    Ok(Range {
        level,
        _thread: PhantomData,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_byte_is_rejected_with_its_position() {
        for (call, e) in [
            ("roctx::mark", mark("a\0b").unwrap_err()),
            ("roctx::range_push", range_push("ab\0").unwrap_err()),
            (
                "roctx::range_start",
                range_start("\0").map(|_| ()).unwrap_err(),
            ),
            ("roctx::range", range("x\0").map(|_| ()).unwrap_err()),
        ] {
            match &e {
                Error::Invalid { operation, reason } => {
                    assert_eq!(*operation, call);
                    assert!(reason.contains("NUL byte at byte"), "{reason}");
                }
                other => panic!("{call}: {other:?}"),
            }
        }
        let e = mark("a\0b").unwrap_err().to_string();
        assert!(e.contains("at byte 1 of 3"), "{e}");
    }

    #[test]
    fn guards_pop_on_drop_and_on_panic() {
        // Whatever library is loaded (none in unit tests), the count holds.
        let start = depth();
        {
            let _outer = range("outer").unwrap();
            let _inner = range("inner").unwrap();
            assert_eq!(depth(), start + 2);
        }
        assert_eq!(depth(), start);
        let unwound = std::panic::catch_unwind(|| {
            let _r = range("panics").unwrap();
            assert_eq!(depth(), start + 1);
            panic!("inside a range");
        });
        assert!(unwound.is_err());
        assert_eq!(depth(), start, "the guard popped while unwinding");
        range_push("manual").unwrap();
        assert_eq!(depth(), start + 1);
        range_pop();
        assert_eq!(depth(), start);
        // A failed push counts nothing.
        assert!(range("a\0b").is_err());
        assert_eq!(depth(), start);
    }

    #[test]
    fn the_guard_is_not_send() {
        // The inherent method applies only when `T: Send`; otherwise method
        // resolution falls back to the trait's.
        struct Probe<T>(PhantomData<T>);
        trait Fallback {
            fn is_send(&self) -> bool {
                false
            }
        }
        impl<T> Fallback for Probe<T> {}
        impl<T: Send> Probe<T> {
            fn is_send(&self) -> bool {
                true
            }
        }
        assert!(!Probe::<Range>(PhantomData).is_send());
        assert!(Probe::<RangeId>(PhantomData).is_send());
    }
}
