//! [`PinnedHostBuffer`]: page-locked host memory that tracks the
//! asynchronous copies using it.

use super::validate::checked_bytes;
use super::{DeviceRepr, ValidAsZeroBits};
use crate::error;
use crate::error::Result;
use crate::result;
use crate::stream::Event;
use hip_sys as sys;
use std::fmt;
use std::sync::Mutex;

/// Page-locked host memory (`hipHostMalloc`), the source and destination
/// of truly asynchronous copies.
///
/// The buffer tracks the asynchronous copies that use it: host access
/// waits for copies that write it, host writes wait for copies that read
/// it, and drop waits for all, so an in-flight copy never touches freed or
/// borrowed memory.
///
/// **Threads**: `Send + Sync`; the pending-copy list is behind a mutex.
pub struct PinnedHostBuffer<T: DeviceRepr> {
    pub(super) ptr: *mut T,
    pub(super) len: usize,
    /// In-flight copies: (completion event, whether the device writes).
    pending: Mutex<Vec<(Event, bool)>>,
}

// SAFETY: owns host memory like a Vec<T>; pending events are Send.
unsafe impl<T: DeviceRepr> Send for PinnedHostBuffer<T> {}
// SAFETY: `&self` gives only reads (after waiting for device writes) and
// mutex-guarded bookkeeping.
unsafe impl<T: DeviceRepr> Sync for PinnedHostBuffer<T> {}

impl<T: DeviceRepr> fmt::Debug for PinnedHostBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnedHostBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T: DeviceRepr> PinnedHostBuffer<T> {
    /// Allocates `len` zeroed elements of page-locked, portable host memory.
    pub fn zeroed(len: usize) -> Result<PinnedHostBuffer<T>>
    where
        T: ValidAsZeroBits,
    {
        let bytes = checked_bytes::<T>("PinnedHostBuffer::zeroed", len)?;
        crate::device::loaded()?;
        let ptr = if bytes == 0 {
            std::ptr::NonNull::<T>::dangling().as_ptr()
        } else {
            let p = result::host_malloc(bytes, sys::hipHostMallocPortable)?.cast::<T>();
            // SAFETY: `p` is a fresh host allocation of `bytes` bytes.
            unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
            p
        };
        Ok(PinnedHostBuffer {
            ptr,
            len,
            pending: Mutex::new(Vec::new()),
        })
    }

    /// Allocates page-locked memory holding a copy of `data`.
    pub fn from_slice(data: &[T]) -> Result<PinnedHostBuffer<T>> {
        let bytes = checked_bytes::<T>("PinnedHostBuffer::from_slice", data.len())?;
        crate::device::loaded()?;
        let ptr = if bytes == 0 {
            std::ptr::NonNull::<T>::dangling().as_ptr()
        } else {
            let p = result::host_malloc(bytes, sys::hipHostMallocPortable)?.cast::<T>();
            // SAFETY: `p` is a fresh allocation of `len` elements, disjoint from `data`.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
            p
        };
        Ok(PinnedHostBuffer {
            ptr,
            len: data.len(),
            pending: Mutex::new(Vec::new()),
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(super) fn add_pending(&self, e: Event, device_writes: bool) {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((e, device_writes));
    }

    /// Waits for pending copies: those writing the buffer, or all.
    fn wait(&self, all: bool) -> Result<()> {
        let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        let mut first_err = None;
        p.retain(|(e, writes)| {
            if !(all || *writes) {
                return true;
            }
            if let Err(err) = e.synchronize() {
                first_err.get_or_insert(err);
                return true;
            }
            false
        });
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The contents, after waiting for in-flight copies into the buffer.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait(false)?;
        // SAFETY: `len` initialised elements (zeroed or copied in; device
        // writes produce valid T); no device write is in flight, and new
        // ones need `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The contents for writing, after waiting for every in-flight copy.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait(true)?;
        // SAFETY: as in `as_slice`, and no copy reads or writes it now;
        // new ones need a borrow of `self`.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }
}

impl<T: DeviceRepr> Drop for PinnedHostBuffer<T> {
    fn drop(&mut self) {
        if let Err(e) = self.wait(true) {
            // The copy state is unknown: leaking is the only safe choice.
            error::record(e);
            return;
        }
        if self.len > 0 && size_of::<T>() > 0 {
            let ptr = crate::SendPtr(self.ptr.cast::<std::ffi::c_void>());
            crate::Device::release_on_current_device(move |held| {
                // SAFETY: we own this hipHostMalloc allocation; no copy
                // uses it.
                error::record_result(unsafe { result::host_free(ptr.get(), held) });
            });
        }
    }
}
