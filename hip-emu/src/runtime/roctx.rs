//! roctx, ROCm's profiler marks and ranges, answered by the emulated
//! runtime: `hip-sys` looks for every AMD library at
//! `HIP_SYS_LIBRARY_PATH`, which names `libhip_emu.so` when a program runs
//! on the emulated device, so roctx's symbols are found here. There is no
//! profiler to tell: marks are dropped, nested ranges keep a per-thread
//! depth (a push returns the level it opened, from 0; a pop the level it
//! closed, -1 when none was open), and process ranges get increasing ids
//! from 1, as roctx hands them out.

// The C names are roctx's; the functions are reached by symbol name from
// the cdylib, not through Rust paths.
#![allow(non_snake_case, unreachable_pub)]

use std::cell::Cell;
use std::ffi::c_char;
use std::sync::atomic::{AtomicU64, Ordering};

thread_local! {
    static DEPTH: Cell<i32> = const { Cell::new(0) };
}

static NEXT_RANGE: AtomicU64 = AtomicU64::new(1);

/// Marks an instant (no profiler here: nothing is recorded).
///
/// # Safety
///
/// `message` is null or a NUL-terminated string; it is not read.
#[no_mangle]
pub unsafe extern "C" fn roctxMarkA(_message: *const c_char) {}

/// Opens a nested range on this thread: its 0-based level.
///
/// # Safety
///
/// `message` is null or a NUL-terminated string; it is not read.
#[no_mangle]
pub unsafe extern "C" fn roctxRangePushA(_message: *const c_char) -> i32 {
    DEPTH.with(|d| {
        let level = d.get();
        d.set(level + 1);
        level
    })
}

/// Closes this thread's innermost range: its level, or -1 when none is open.
#[no_mangle]
pub extern "C" fn roctxRangePop() -> i32 {
    DEPTH.with(|d| {
        let depth = d.get();
        if depth == 0 {
            -1
        } else {
            d.set(depth - 1);
            depth - 1
        }
    })
}

/// Starts a process-wide range: a new id.
///
/// # Safety
///
/// `message` is null or a NUL-terminated string; it is not read.
#[no_mangle]
pub unsafe extern "C" fn roctxRangeStartA(_message: *const c_char) -> u64 {
    NEXT_RANGE.fetch_add(1, Ordering::Relaxed)
}

/// Stops a process-wide range (any thread may).
#[no_mangle]
pub extern "C" fn roctxRangeStop(_id: u64) {}

/// The roctx version the answers follow: 4.1, as `roctx-sys` binds.
#[no_mangle]
pub extern "C" fn roctx_version_major() -> u32 {
    4
}

/// See [`roctx_version_major`].
#[no_mangle]
pub extern "C" fn roctx_version_minor() -> u32 {
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_nest_per_thread_and_ids_increase() {
        // SAFETY: a null message is allowed and not read.
        let levels: Vec<i32> = (0..3)
            .map(|_| unsafe { roctxRangePushA(std::ptr::null()) })
            .collect();
        assert_eq!(levels, [0, 1, 2]);
        let other = std::thread::spawn(|| {
            // SAFETY: as above.
            unsafe { roctxRangePushA(std::ptr::null()) }
        });
        assert_eq!(other.join().unwrap(), 0, "depth is per thread");
        assert_eq!(
            [
                roctxRangePop(),
                roctxRangePop(),
                roctxRangePop(),
                roctxRangePop()
            ],
            [2, 1, 0, -1]
        );
        // SAFETY: as above.
        let (a, b) = unsafe {
            (
                roctxRangeStartA(std::ptr::null()),
                roctxRangeStartA(std::ptr::null()),
            )
        };
        assert!(a >= 1 && b > a);
    }
}
