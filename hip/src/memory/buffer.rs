//! [`DeviceBuffer`]: an owned, typed allocation of device memory, freed on
//! drop (`hipFree`, or in stream order for [`Stream::alloc`]'s buffers,
//! which track their accesses so that the free waits only for them).

use super::pool::MemPool;
use super::validate::{check_range, checked_bytes};
use super::views::{DeviceSlice, DeviceSliceMut};
use super::StreamAllocation;
use super::{DeviceRepr, ValidAsZeroBits};
use crate::device::Device;
use crate::error;
use crate::error::Result;
use crate::result;
use crate::stream::Stream;
use crate::tracking::{AccessEvents, UNTRACKED};
use std::fmt;
use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::sync::Arc;

// The stream variant carries the allocation's access tracking inline (about
// 240 bytes); boxing it would add a heap allocation to every stream-ordered
// buffer, on the allocation path, to save bytes of host memory beside a
// device allocation.
#[allow(clippy::large_enum_variant)]
pub(super) enum Owner {
    /// `hipMalloc`: freed with `hipFree`, which waits for the device.
    Sync,
    /// `hipMallocAsync`/`hipMallocFromPoolAsync`, with access events:
    /// dropping the allocation makes its stream wait for the last tracked
    /// read and write on other streams, then frees it in that stream's
    /// order. The pool (if any) is kept alive until then (fields drop in
    /// order: the allocation first).
    Stream {
        allocation: StreamAllocation,
        _pool: Option<MemPool>,
    },
}

/// A typed allocation of `len` elements in device memory.
///
/// Not `Clone` (copy explicitly); freed on drop. Zero-length buffers
/// allocate nothing.
///
/// **Stream-ordered buffers** ([`Stream::alloc`] and the like) track their
/// accesses with [`AccessEvents`]: every copy, fill, kernel launch (typed,
/// or through [`LaunchArgs`](crate::LaunchArgs)) and `hipblas` call made
/// through the safe API orders itself after the conflicting earlier
/// accesses on other streams, and dropping the buffer makes its stream
/// wait for the last of them before `hipFreeAsync`: the host does not
/// wait, and no device-wide synchronize happens. Uses through the raw
/// address ([`DeviceBuffer::as_device_ptr`]) are not tracked: see there.
/// `hipMalloc` buffers ([`DeviceBuffer::uninit`]) are untracked; their
/// free (`hipFree`) waits for the device.
///
/// **Threads**: `Send + Sync`. The buffer is just a device address; shared
/// references only allow reading it (copies out, kernel inputs), and
/// writing takes `&mut`.
pub struct DeviceBuffer<T: DeviceRepr> {
    pub(super) ptr: *mut T,
    pub(super) len: usize,
    pub(super) device: Arc<Device>,
    pub(super) owner: Owner,
}

// SAFETY: see the type's docs: device memory is not tied to a host thread.
unsafe impl<T: DeviceRepr> Send for DeviceBuffer<T> {}
// SAFETY: `&DeviceBuffer` only permits reads of device memory.
unsafe impl<T: DeviceRepr> Sync for DeviceBuffer<T> {}

impl<T: DeviceRepr> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("device", &self.device.ordinal())
            .field(
                "stream_ordered",
                &matches!(self.owner, Owner::Stream { .. }),
            )
            .finish()
    }
}

impl<T: DeviceRepr> DeviceBuffer<T> {
    /// Allocates `len` elements without initialising them (`hipMalloc`).
    ///
    /// Safe because every bit pattern is a valid `T` ([`DeviceRepr`]): the
    /// contents are unspecified values, never undefined behaviour.
    pub fn uninit(device: &Arc<Device>, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = checked_bytes::<T>("DeviceBuffer::uninit", len)?;
        let ptr = if bytes == 0 {
            std::ptr::null_mut()
        } else {
            device.bind()?;
            result::malloc(bytes)?.cast::<T>()
        };
        Ok(DeviceBuffer {
            ptr,
            len,
            device: device.clone(),
            owner: Owner::Sync,
        })
    }

    /// Allocates `len` zeroed elements.
    pub fn zeroed(device: &Arc<Device>, len: usize) -> Result<DeviceBuffer<T>>
    where
        T: ValidAsZeroBits,
    {
        let mut b = DeviceBuffer::uninit(device, len)?;
        // Not the null stream: work there waits for every blocking stream,
        // which invalidates their captures on other threads.
        let stream = device.quiet_stream()?;
        stream.memset_zeros(&mut b)?;
        stream.synchronize()?;
        Ok(b)
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device holding the memory.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The device address (null for an empty buffer).
    ///
    /// Work that uses it outside this crate's safe API is not tracked: for
    /// a stream-ordered buffer ([`Stream::alloc`]), the caller must order
    /// every such use on a stream other than the buffer's own before the
    /// buffer is dropped, or record it ([`AccessEvents::record_read`] or
    /// [`Stream::enqueue_tracked`] on [`DeviceMemory::access_events`](super::DeviceMemory::access_events)),
    /// since the drop frees the memory in that stream's order after only
    /// the tracked uses; and order it after the last tracked write (e.g.
    /// [`AccessEvents::wait_before_read`]) to see its values.
    #[inline]
    pub fn as_device_ptr(&self) -> *const T {
        self.ptr
    }

    /// The device address, for writing (null for an empty buffer); the
    /// same caveats as [`DeviceBuffer::as_device_ptr`].
    #[inline]
    pub fn as_device_ptr_mut(&mut self) -> *mut T {
        self.ptr
    }

    /// The events that order accesses to a stream-ordered buffer across
    /// streams; untracked (no-ops) for a `hipMalloc` buffer.
    #[inline]
    pub(super) fn events(&self) -> &AccessEvents {
        match &self.owner {
            Owner::Sync => &UNTRACKED,
            Owner::Stream { allocation, .. } => allocation.events(),
        }
    }

    /// The stream a stream-ordered buffer was allocated on, and is freed
    /// on; `None` for a `hipMalloc` buffer.
    pub fn stream(&self) -> Option<&Stream> {
        match &self.owner {
            Owner::Sync => None,
            Owner::Stream { allocation, .. } => Some(allocation.stream()),
        }
    }

    /// A view of the whole buffer.
    #[inline]
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            ptr: self.ptr,
            len: self.len,
            device: &self.device,
            events: self.events(),
            _p: PhantomData,
        }
    }

    /// A writable view of the whole buffer.
    #[inline]
    pub fn as_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        let events = self.events();
        DeviceSliceMut {
            ptr: self.ptr,
            len: self.len,
            device: &self.device,
            events,
            _p: PhantomData,
        }
    }

    /// A view of `range` (checked).
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        self.as_slice().slice(range)
    }

    /// A writable view of `range` (checked).
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let r = check_range("DeviceBuffer::slice_mut", self.len, range)?;
        let events = self.events();
        Ok(DeviceSliceMut {
            ptr: offset(self.ptr, r.start),
            len: r.len(),
            device: &self.device,
            events,
            _p: PhantomData,
        })
    }

    /// Frees a buffer from [`Stream::alloc`] in that stream's order
    /// (`hipFreeAsync`) at once, without first making the stream wait for
    /// the tracked uses on other streams as dropping it does. A buffer from
    /// `hipMalloc` is dropped as usual.
    ///
    /// # Safety
    /// Every use of the buffer on any stream other than the allocating one
    /// must be ordered before this point of the allocating stream (for
    /// example with an event it waits on), or be complete: the memory goes
    /// back to the pool, where a later allocation or a trim takes it.
    pub unsafe fn free_async(mut self) -> Result<()> {
        match std::mem::replace(&mut self.owner, Owner::Sync) {
            Owner::Sync => Ok(()), // dropped below with hipFree
            Owner::Stream { allocation, _pool } => {
                // The allocation now owns the memory; `self` holds none.
                self.ptr = std::ptr::null_mut();
                // SAFETY: the caller ordered every other use before this
                // point of the allocating stream.
                unsafe { allocation.free_without_waiting() }
            }
        }
    }

    /// Two disjoint writable views, `[0, mid)` and `[mid, len)` (checked).
    pub fn split_at_mut(
        &mut self,
        mid: usize,
    ) -> Result<(DeviceSliceMut<'_, T>, DeviceSliceMut<'_, T>)> {
        self.as_slice_mut().into_split_at_mut(mid)
    }
}

#[inline]
pub(super) fn offset<T>(p: *mut T, n: usize) -> *mut T {
    // Device addresses are never dereferenced on the host, so plain address
    // arithmetic is enough; wrapping_add avoids claiming an in-bounds host
    // allocation. Null (empty buffers) stays null for n == 0.
    p.wrapping_add(n)
}

impl<T: DeviceRepr> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        // A stream-ordered buffer is freed by its `StreamAllocation` (a
        // field, dropped after this): its stream waits for the last tracked
        // accesses, then `hipFreeAsync`, without a device-wide wait.
        if self.ptr.is_null() || !matches!(self.owner, Owner::Sync) {
            return;
        }
        let ptr = crate::SendPtr(self.ptr.cast::<std::ffi::c_void>());
        self.device.release_outside_captures(move |held| {
            // SAFETY: we own this hipMalloc allocation; hipFree waits
            // for work on the device, so no kernel still uses it.
            error::record_result(unsafe { result::free(ptr.get(), held) });
        });
    }
}
