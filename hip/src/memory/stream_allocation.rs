//! [`StreamAllocation`]: untyped device memory allocated and freed in
//! one stream's order, with the [`AccessEvents`] that order its uses on
//! other streams. [`DeviceBuffer`](super::DeviceBuffer)s from
//! [`Stream::alloc`] are built on it; cuda-compat's `CudaSlice` is one.

use super::views::{DeviceSlice, DeviceSliceMut};
use super::DeviceRepr;
use crate::error;
use crate::error::{Error, Result};
use crate::result;
use crate::stream::Stream;
use crate::tracking::{AccessEvents, AccessGuard};
use std::ffi::c_void;
use std::fmt;

/// `bytes` of device memory allocated in the order of one stream
/// (`hipMallocAsync`; `hipMalloc` where the device has no memory pools),
/// with [`AccessEvents`].
///
/// Dropping it makes its stream wait for the last read and write (on any
/// stream), then frees it in that stream's order (`hipFreeAsync`): the host
/// does not wait, and no tracked use can outlive the memory. Without memory
/// pools the stream is synchronized and `hipFree` called. An untracked
/// allocation (`track = false`) waits for the whole device before its free,
/// as a `DeviceBuffer` does, since nothing says where it was used;
/// [`StreamAllocation::new_caller_ordered`] is the `unsafe` way to skip that.
///
/// **Threads**: `Send + Sync`: an address and thread-safe handles.
pub struct StreamAllocation {
    ptr: *mut c_void,
    bytes: usize,
    stream: Stream,
    events: AccessEvents,
    stream_ordered: bool,
    /// Untracked and not promised ordered: the free waits for the device.
    free_waits_for_device: bool,
}

// SAFETY: see the type's docs.
unsafe impl Send for StreamAllocation {}
// SAFETY: as above.
unsafe impl Sync for StreamAllocation {}

impl fmt::Debug for StreamAllocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamAllocation")
            .field("ptr", &self.ptr)
            .field("bytes", &self.bytes)
            .field("stream", &self.stream)
            .field("tracked", &self.events.is_tracked())
            .field("stream_ordered", &self.stream_ordered)
            .field("free_waits_for_device", &self.free_waits_for_device)
            .finish()
    }
}

impl StreamAllocation {
    /// Allocates `bytes` on `stream`, tracked when `track`. The allocation
    /// counts as a write on `stream`, so work on other streams waits for
    /// it. Zero bytes allocate nothing (a null address).
    pub fn new(stream: &Stream, bytes: usize, track: bool) -> Result<StreamAllocation> {
        let mut a = StreamAllocation::allocate(stream, bytes, track)?;
        a.free_waits_for_device = !track;
        Ok(a)
    }

    /// Allocates `bytes` on `stream` without events, freed in the stream's
    /// order without waiting for the device.
    ///
    /// # Safety
    ///
    /// Every use of the memory on another stream is ordered before the
    /// drop by the caller (events, synchronization).
    pub unsafe fn new_caller_ordered(stream: &Stream, bytes: usize) -> Result<StreamAllocation> {
        StreamAllocation::allocate(stream, bytes, false)
    }

    fn allocate(stream: &Stream, bytes: usize, track: bool) -> Result<StreamAllocation> {
        let device = stream.device();
        let stream_ordered = device.supports_memory_pools();
        let ptr = if bytes == 0 {
            std::ptr::null_mut()
        } else if stream_ordered {
            // `hipMallocAsync` takes the pool of the stream's device, not
            // of the current one: only the handles that the runtime
            // resolves through the current device need a bind.
            stream.bind_if_default()?;
            // SAFETY: the stream is live.
            unsafe { result::malloc_async(bytes, stream.as_raw()) }?
        } else {
            device.bind()?;
            result::malloc(bytes)?
        };
        // The allocation is the first write, on `stream`.
        let events = if track {
            AccessEvents::written_on(stream)
        } else {
            AccessEvents::untracked()
        };
        Ok(StreamAllocation {
            ptr,
            bytes,
            stream: stream.clone(),
            events,
            stream_ordered,
            free_waits_for_device: false,
        })
    }

    /// Takes ownership of memory allocated elsewhere, with `events`
    /// ([`AccessEvents::new`] or [`AccessEvents::untracked`]).
    ///
    /// # Safety
    ///
    /// `ptr` holds `bytes` bytes, is owned by no one else, was allocated
    /// with `hipMallocAsync` when `stream_ordered` (else `hipMalloc`) on
    /// `stream`'s device, and is ready in `stream`'s order. With untracked
    /// `events`, the caller orders every use on another stream before the
    /// drop (as for [`StreamAllocation::new_caller_ordered`]).
    pub unsafe fn from_raw(
        stream: &Stream,
        ptr: *mut c_void,
        bytes: usize,
        events: AccessEvents,
        stream_ordered: bool,
    ) -> StreamAllocation {
        StreamAllocation {
            ptr,
            bytes,
            stream: stream.clone(),
            events,
            stream_ordered,
            free_waits_for_device: false,
        }
    }

    /// Frees the memory now in its stream's order (`hipFreeAsync`;
    /// `hipFree` without memory pools), without making the stream wait for
    /// the tracked uses on other streams first, as dropping it would.
    ///
    /// # Safety
    ///
    /// Every use of the memory on another stream is complete, or ordered
    /// before this point of the allocation's stream by the caller.
    pub unsafe fn free_without_waiting(self) -> Result<()> {
        let me = std::mem::ManuallyDrop::new(self);
        let out = me.free_now(false);
        // SAFETY: `me` is never used or dropped again; each field with a
        // destructor is moved out exactly once.
        unsafe {
            drop(std::ptr::read(&me.stream));
            drop(std::ptr::read(&me.events));
        }
        out
    }

    /// Gives the memory back in the stream's order (`hipFreeAsync`), or
    /// with `hipFree` after the stream's work without memory pools. The
    /// caller has ordered every other use before this point; with
    /// `wait_for_device`, the whole device's work is waited for first.
    ///
    /// Only a stream-ordered free that need not wait for the device is
    /// made at once: the others act on the whole device, so they go
    /// through [`Device::release_outside_captures`](crate::Device::release_outside_captures)
    /// (and may run later, once no capture of the device is open; their
    /// errors are recorded for [`take_drop_errors`](crate::take_drop_errors)).
    fn free_now(&self, wait_for_device: bool) -> Result<()> {
        if self.ptr.is_null() {
            return Ok(());
        }
        if self.stream_ordered && !wait_for_device {
            // As `hipMallocAsync`, `hipFreeAsync` works on the stream's
            // device whichever is current.
            self.stream.bind_if_default()?;
            // SAFETY: we own this stream-ordered allocation; the caller
            // ordered every other use before this point of the stream.
            return unsafe { result::free_async(self.ptr, self.stream.as_raw()) };
        }
        let (ptr, stream, ordered) = (
            crate::SendPtr(self.ptr),
            self.stream.clone(),
            self.stream_ordered,
        );
        self.stream.device().release_outside_captures(move |held| {
            let r = if wait_for_device {
                result::device_synchronize(held)
            } else {
                stream.synchronize()
            }
            .and_then(|()| {
                if ordered {
                    stream.bind_if_default()?;
                    // SAFETY: we own this stream-ordered allocation, and
                    // every use of it is complete or ordered before here.
                    unsafe { result::free_async(ptr.get(), stream.as_raw()) }
                } else {
                    // SAFETY: we own this hipMalloc allocation; hipFree
                    // waits for the device.
                    unsafe { result::free(ptr.get(), held) }
                }
            });
            error::record_result(r);
        });
        Ok(())
    }

    /// Makes the free wait for the whole device (as an untracked
    /// allocation's does): for memory whose uses on other streams are not
    /// all tracked.
    pub fn wait_for_device_on_free(&mut self) {
        self.free_waits_for_device = true;
    }

    /// Gives up ownership: the stream first waits for the tracked uses, so
    /// the address is ready in its order (an error doing so goes to
    /// [`crate::take_drop_errors`]); nothing frees it any more. Returns the
    /// address and whether it is stream-ordered (for
    /// [`StreamAllocation::from_raw`]).
    pub fn into_raw(self) -> (*mut c_void, bool) {
        let me = std::mem::ManuallyDrop::new(self);
        error::record_result(me.events.wait_before_write(&me.stream));
        let out = (me.ptr, me.stream_ordered);
        // SAFETY: `me` is never used or dropped again; each field with a
        // destructor is moved out exactly once.
        unsafe {
            drop(std::ptr::read(&me.stream));
            drop(std::ptr::read(&me.events));
        }
        out
    }

    /// The device address. Using it on a stream without
    /// [`StreamAllocation::ptr_for_read`]/[`StreamAllocation::ptr_for_write`]
    /// bypasses the tracking: the caller orders that use.
    #[inline]
    pub fn as_raw(&self) -> *mut c_void {
        self.ptr
    }

    /// Address of the field holding the device address: a kernel
    /// parameter slot that lives as long as `self`.
    pub(crate) fn ptr_field_addr(&self) -> *mut c_void {
        (&self.ptr as *const *mut c_void).cast_mut().cast()
    }

    /// Its size in bytes.
    #[inline]
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The stream it belongs to (allocated and freed on).
    #[inline]
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// Its events.
    #[inline]
    pub fn events(&self) -> &AccessEvents {
        &self.events
    }

    /// Whether it came from `hipMallocAsync`.
    pub fn is_stream_ordered(&self) -> bool {
        self.stream_ordered
    }

    /// The address for reading on `stream`, which first waits for the last
    /// write; drop the guard after enqueueing the read.
    pub fn ptr_for_read<'a>(
        &'a self,
        stream: &'a Stream,
    ) -> Result<(*const c_void, AccessGuard<'a>)> {
        Ok((self.ptr, AccessGuard::begin(&self.events, stream, false)?))
    }

    /// The address for writing on `stream`, which first waits for the last
    /// read and write; drop the guard after enqueueing the write.
    pub fn ptr_for_write<'a>(
        &'a mut self,
        stream: &'a Stream,
    ) -> Result<(*mut c_void, AccessGuard<'a>)> {
        Ok((self.ptr, AccessGuard::begin(&self.events, stream, true)?))
    }

    /// The memory as `len` elements of `T` (`len` = bytes / size of `T`),
    /// a view that copies, fills and launches use like any other device
    /// memory, tracked through this allocation's events.
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// use hip::{Device, Stream, StreamAllocation};
    /// let dev = Device::get(0)?;
    /// let (a, b) = (Stream::new(&dev)?, Stream::new(&dev)?);
    /// let mut buf = StreamAllocation::new(&a, 16, true)?;
    /// a.copy_htod(&[1u32, 2, 3, 4], &mut buf.as_slice_mut::<u32>()?)?;
    /// // `b` waits for the write on `a` by itself.
    /// assert_eq!(b.clone_dtoh(&buf.as_slice::<u32>()?)?, [1, 2, 3, 4]);
    /// # Ok(()) }
    /// ```
    pub fn as_slice<T: DeviceRepr>(&self) -> Result<DeviceSlice<'_, T>> {
        let len = elements::<T>("StreamAllocation::as_slice", self.bytes)?;
        // SAFETY: the allocation holds `bytes` >= len * size_of::<T>()
        // bytes on its stream's device, aligned for any `T` (the runtime
        // aligns allocations to 256 bytes or more), and stays allocated
        // while the view borrows it; the view records its uses in the
        // allocation's events.
        Ok(unsafe {
            DeviceSlice::from_parts(self.ptr.cast(), len, self.stream.device(), &self.events)
        })
    }

    /// [`StreamAllocation::as_slice`] for writing.
    pub fn as_slice_mut<T: DeviceRepr>(&mut self) -> Result<DeviceSliceMut<'_, T>> {
        let len = elements::<T>("StreamAllocation::as_slice_mut", self.bytes)?;
        // SAFETY: as in `as_slice`; `&mut self` makes the view exclusive.
        Ok(unsafe {
            DeviceSliceMut::from_parts(self.ptr.cast(), len, self.stream.device(), &self.events)
        })
    }
}

/// How many whole `T` fit in `bytes`; an error for a zero-sized `T`.
fn elements<T>(operation: &'static str, bytes: usize) -> Result<usize> {
    match size_of::<T>() {
        0 => Err(Error::invalid(
            operation,
            format!("{} is zero-sized", std::any::type_name::<T>()),
        )),
        size => Ok(bytes / size),
    }
}

impl Drop for StreamAllocation {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        // The stream waits for every tracked use, then frees.
        let r = self
            .events
            .wait_before_write(&self.stream)
            .and_then(|()| self.free_now(self.free_waits_for_device));
        error::record_result(r);
    }
}
