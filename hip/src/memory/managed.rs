//! [`ManagedBuffer`]: managed (unified) memory, addressable from host and
//! device.

use super::validate::checked_bytes;
use super::{DeviceRepr, ValidAsZeroBits};
use crate::device::Device;
use crate::error;
use crate::error::Result;
use crate::result;
use crate::stream::Stream;
use crate::tracking::{AccessEvents, UNTRACKED};
use std::fmt;
use std::sync::Arc;

/// Managed (unified) memory (`hipMallocManaged`), addressable from host
/// and device.
///
/// Host access synchronises the device first, because a kernel launched
/// earlier (on any stream) may still be writing.
///
/// **Threads**: `Send + Sync`, like [`DeviceBuffer`](crate::DeviceBuffer).
pub struct ManagedBuffer<T: DeviceRepr> {
    pub(super) ptr: *mut T,
    pub(super) len: usize,
    pub(super) device: Arc<Device>,
}

// SAFETY: as for DeviceBuffer; host access goes through `&`/`&mut` methods
// that synchronise first.
unsafe impl<T: DeviceRepr> Send for ManagedBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: DeviceRepr> Sync for ManagedBuffer<T> {}

impl<T: DeviceRepr> fmt::Debug for ManagedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManagedBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("device", &self.device.ordinal())
            .finish()
    }
}

impl<T: DeviceRepr> ManagedBuffer<T> {
    /// Untracked: host access and the free wait for the whole device.
    #[inline]
    pub(super) fn events(&self) -> &AccessEvents {
        &UNTRACKED
    }

    /// Allocates `len` zeroed elements of managed memory.
    pub fn zeroed(device: &Arc<Device>, len: usize) -> Result<ManagedBuffer<T>>
    where
        T: ValidAsZeroBits,
    {
        let bytes = checked_bytes::<T>("ManagedBuffer::zeroed", len)?;
        let ptr = if bytes == 0 {
            std::ptr::null_mut()
        } else {
            device.bind()?;
            let p = result::malloc_managed(bytes)?.cast::<T>();
            // SAFETY: fresh managed memory is host-accessible and unused.
            unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
            p
        };
        Ok(ManagedBuffer {
            ptr,
            len,
            device: device.clone(),
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

    /// The contents, after waiting for the device (`hipDeviceSynchronize`).
    pub fn as_slice(&self) -> Result<&[T]> {
        if self.ptr.is_null() {
            return Ok(&[]);
        }
        self.device.synchronize()?;
        // SAFETY: `len` valid elements (any bits are valid); the device is
        // idle, and new kernels writing it need `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The contents for writing, after waiting for the device.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        if self.ptr.is_null() {
            return Ok(&mut []);
        }
        self.device.synchronize()?;
        // SAFETY: as in `as_slice`; exclusive through `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }

    /// Asks the runtime to move the memory to this buffer's device ahead of
    /// use, in order on `stream` (`hipMemPrefetchAsync`).
    pub fn prefetch_to_device(&self, stream: &Stream) -> Result<()> {
        if self.ptr.is_null() {
            return Ok(());
        }
        let bytes = checked_bytes::<T>("ManagedBuffer::prefetch_to_device", self.len)?;
        stream.bind_if_default()?;
        // SAFETY: a managed range we own, and a live stream.
        unsafe {
            result::mem_prefetch_async(
                self.ptr.cast(),
                bytes,
                self.device.raw_ordinal(),
                stream.as_raw(),
            )
        }
    }
}

impl<T: DeviceRepr> Drop for ManagedBuffer<T> {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        let ptr = crate::SendPtr(self.ptr.cast::<std::ffi::c_void>());
        self.device.release_outside_captures(move |held| {
            // SAFETY: we own the allocation; hipFree waits for the device.
            error::record_result(unsafe { result::free(ptr.get(), held) });
        });
    }
}
