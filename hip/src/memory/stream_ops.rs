//! Stream-ordered memory operations: allocation from pools, copies
//! between host, device and peers, and fills.

use super::buffer::{DeviceBuffer, Owner};
use super::host::sealed::{Sink, Source};
use super::host::{HostMemory, HostMemoryMut};
use super::pinned::PinnedHostBuffer;
use super::pool::MemPool;
use super::validate::{check_device, check_same_len, checked_bytes};
use super::StreamAllocation;
use super::{DeviceMemory, DeviceMemoryMut, DeviceRepr, ValidAsZeroBits};
use crate::error::{Error, Result};
use crate::result;
use crate::stream::{Event, Stream};
use crate::tracking::AccessEvents;
use hip_sys as sys;

impl Stream {
    /// Allocates `len` elements in stream order from the device's current
    /// pool (`hipMallocAsync`; `hipMalloc` on a device without memory
    /// pools); the buffer is freed in order on this stream (`hipFreeAsync`)
    /// when dropped.
    ///
    /// The buffer tracks its accesses ([`AccessEvents`]): the allocation
    /// counts as a write on this stream, so a copy, fill, launch or
    /// `hipblas` call on another stream waits for it, and for the later
    /// writes, by itself. Dropping the buffer makes this stream wait for
    /// its last tracked read and write on other streams, then frees it:
    /// neither the host nor the device is synchronized.
    /// [`DeviceBuffer::free_async`] skips even that wait (`unsafe`). Work
    /// that stays on one stream makes no event call at all; in a graph
    /// capture, use a buffer only on the capturing stream (or a `hipMalloc`
    /// buffer): a wait for an access on another stream would be an event
    /// recorded outside the capture.
    pub fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = checked_bytes::<T>("Stream::alloc", len)?;
        let allocation = StreamAllocation::new(self, bytes, true)?;
        Ok(DeviceBuffer {
            ptr: allocation.as_raw().cast(),
            len,
            device: self.device().clone(),
            owner: Owner::Stream {
                allocation,
                _pool: None,
            },
        })
    }

    /// Allocates `len` zeroed elements in stream order (see [`Stream::alloc`]).
    pub fn alloc_zeroed<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<DeviceBuffer<T>> {
        let mut b = self.alloc(len)?;
        self.memset_zeros(&mut b)?;
        Ok(b)
    }

    /// Allocates `len` elements in stream order from `pool`
    /// (`hipMallocFromPoolAsync`); the buffer keeps the pool alive.
    pub fn alloc_from_pool<T: DeviceRepr>(
        &self,
        pool: &MemPool,
        len: usize,
    ) -> Result<DeviceBuffer<T>> {
        check_device(
            "Stream::alloc_from_pool",
            "the pool",
            self.device(),
            &pool.inner.device,
        )?;
        let bytes = checked_bytes::<T>("Stream::alloc_from_pool", len)?;
        let ptr = if bytes == 0 {
            std::ptr::null_mut()
        } else {
            self.bind_if_default()?;
            // SAFETY: pool and stream are live.
            unsafe { result::malloc_from_pool_async(bytes, pool.inner.raw, self.as_raw()) }?
        };
        // SAFETY: `ptr` holds `bytes` bytes from hipMallocFromPoolAsync on
        // this stream's device (the pool's, checked), owned by no one else
        // and ready in this stream's order; the events track it.
        let allocation = unsafe {
            StreamAllocation::from_raw(self, ptr, bytes, AccessEvents::new(self.device())?, true)
        };
        // The allocation is a write on this stream, as `Stream::alloc`'s.
        allocation.events().record_write(self)?;
        Ok(DeviceBuffer {
            ptr: ptr.cast(),
            len,
            device: self.device().clone(),
            owner: Owner::Stream {
                allocation,
                _pool: Some(pool.clone()),
            },
        })
    }

    /// Copies `src` from the host into `dst` on this stream: the one
    /// host-to-device copy, for every kind of host memory ([`HostMemory`]).
    /// Lengths must match and `dst` must be on this stream's device. The
    /// copy is ordered after `dst`'s tracked accesses on other streams.
    ///
    /// - From a [`PinnedHostBuffer`] the copy is **asynchronous**: the call
    ///   returns once it is enqueued, and the buffer remembers it (a host
    ///   write to it, or its drop, first waits for the copy). Refused while
    ///   the stream is capturing a graph.
    /// - From ordinary memory (`&[T]`, `&Vec<T>`, arrays) `src` may be reused
    ///   when the call returns. A copy under
    ///   [`staging::MIN_BYTES`](super::staging::MIN_BYTES) into tracked
    ///   memory ([`Stream::alloc`] and other stream-ordered buffers) runs in
    ///   stream order without the host waiting for it: every later use of
    ///   `dst`, on any stream, is ordered after it. Into untracked memory,
    ///   and from `MIN_BYTES` on, the copy is over when the call returns.
    ///   Copies of
    ///   [`staging::MIN_BYTES`](super::staging::MIN_BYTES) or more go
    ///   through reused pinned buffers filled by host threads, so ordinary
    ///   memory moves near pinned-memory speed (several times a direct
    ///   copy); those are refused while the stream is
    ///   capturing. `HIP_STAGING_STRATEGY` chooses how
    ///   ([`staging::StagingStrategy::from_env`](super::staging::StagingStrategy::from_env)).
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// use hip::{Device, PinnedHostBuffer, Stream};
    /// let dev = Device::get(0)?;
    /// let stream = Stream::new(&dev)?;
    /// let mut buf = stream.alloc::<f32>(4)?;
    /// stream.copy_htod(&[1.0, 2.0, 3.0, 4.0], &mut buf)?; // ordinary: `src` is free again
    /// let pinned = PinnedHostBuffer::from_slice(&[5.0f32; 4])?;
    /// stream.copy_htod(&pinned, &mut buf)?; // pinned: asynchronous
    /// let mut back = vec![0.0f32; 4];
    /// stream.copy_dtoh(&buf, &mut back)?;
    /// assert_eq!(back, [5.0; 4]);
    /// # Ok(()) }
    /// ```
    pub fn copy_htod<T: DeviceRepr, H: HostMemory<T> + ?Sized>(
        &self,
        src: &H,
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        match src.source() {
            Source::Pageable(src) => super::staging::copy_htod_with(
                self,
                src,
                dst,
                super::staging::StagingStrategy::from_env()?,
            ),
            Source::Pinned(src) => self.copy_htod_pinned(src, dst),
        }
    }

    /// Copies `src` into the host memory `dst` on this stream, after the
    /// stream's earlier work and `src`'s tracked writes on other streams:
    /// the one device-to-host copy, for every kind of host memory
    /// ([`HostMemoryMut`]). Lengths must match and `src` must be on this
    /// stream's device.
    ///
    /// Into a [`PinnedHostBuffer`] the copy is **asynchronous** (reading the
    /// buffer on the host first waits for it); into ordinary memory it is
    /// over when the call returns, staged as in [`Stream::copy_htod`] when
    /// large.
    pub fn copy_dtoh<T: DeviceRepr, H: HostMemoryMut<T> + ?Sized>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut H,
    ) -> Result<()> {
        match dst.sink() {
            Sink::Pageable(dst) => super::staging::copy_dtoh_with(
                self,
                src,
                dst,
                super::staging::StagingStrategy::from_env()?,
            ),
            Sink::Pinned(dst) => self.copy_dtoh_pinned(src, dst),
        }
    }

    /// Allocates a stream-ordered buffer ([`Stream::alloc`]) holding a copy
    /// of `src` ([`Stream::copy_htod`]).
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// let dev = hip::Device::get(0)?;
    /// let stream = hip::Stream::new(&dev)?;
    /// let buf = stream.clone_htod(&[1u32, 2, 3])?;
    /// assert_eq!(stream.clone_dtoh(&buf)?, [1, 2, 3]);
    /// # Ok(()) }
    /// ```
    pub fn clone_htod<T: DeviceRepr, H: HostMemory<T> + ?Sized>(
        &self,
        src: &H,
    ) -> Result<DeviceBuffer<T>> {
        let mut buf = self.alloc(src.host_len())?;
        self.copy_htod(src, &mut buf)?;
        Ok(buf)
    }

    /// Copies `src` into a new `Vec` on this stream and waits (as
    /// [`Stream::copy_dtoh`] into ordinary memory).
    pub fn clone_dtoh<T: DeviceRepr>(&self, src: &impl DeviceMemory<T>) -> Result<Vec<T>> {
        const OP: &str = "Stream::clone_dtoh";
        let mut v: Vec<T> = Vec::with_capacity(src.len());
        let bytes = checked_bytes::<T>(OP, src.len())?;
        check_device(OP, "the source", self.device(), src.device())?;
        // SAFETY: capacity for `len` elements (`bytes` bytes) that nothing
        // else touches; the copy (staged when large, as `copy_dtoh`) fills
        // them all before it returns, and any bytes are a valid T. It is
        // ordered after the source's last tracked write.
        self.enqueue_tracked(&[src.access_events()], &[], || unsafe {
            super::staging::copy_dtoh_raw(
                OP,
                self,
                src.device_ptr().cast(),
                v.as_mut_ptr().cast(),
                bytes,
            )
        })?;
        // SAFETY: the copy above filled all `len` elements.
        unsafe { v.set_len(src.len()) };
        Ok(v)
    }

    /// Copies device memory to device memory on this stream, without
    /// waiting. Both must be on this stream's device (use
    /// [`Stream::copy_peer`] across devices).
    pub fn copy_dtod<T: DeviceRepr>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        check_same_len("Stream::copy_dtod", src.len(), dst.len())?;
        check_device(
            "Stream::copy_dtod",
            "the source",
            self.device(),
            src.device(),
        )?;
        check_device(
            "Stream::copy_dtod",
            "the destination",
            self.device(),
            dst.device(),
        )?;
        if src.is_empty() {
            return Ok(());
        }
        let bytes = checked_bytes::<T>("Stream::copy_dtod", src.len())?;
        self.bind_for_copy()?;
        let dst_ptr = dst.device_ptr_mut();
        // SAFETY: both are device ranges of `bytes` bytes, kept allocated
        // until the copy is done: hipFree waits for the device, and a
        // stream-ordered free waits for the accesses recorded here.
        self.enqueue_tracked(&[src.access_events()], &[dst.access_events()], || unsafe {
            result::memcpy_async(
                dst_ptr.cast(),
                src.device_ptr().cast(),
                bytes,
                sys::hipMemcpyKind::hipMemcpyDeviceToDevice,
                self.as_raw(),
            )
        })
    }

    /// Copies between devices on this stream (`hipMemcpyPeerAsync`) and
    /// waits for the copy. Works without peer access (the runtime stages the
    /// copy); faster with it ([`Device::enable_peer_access`](crate::Device::enable_peer_access)). The stream
    /// must be on the source's or the destination's device.
    ///
    /// It waits because freeing either buffer waits only for its own
    /// device's work, and a managed destination may be read on the host:
    /// neither would otherwise be ordered after a copy run by another device.
    pub fn copy_peer<T: DeviceRepr>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        check_same_len("Stream::copy_peer", src.len(), dst.len())?;
        let here = self.device().ordinal();
        if here != src.device().ordinal() && here != dst.device().ordinal() {
            return Err(Error::invalid(
                "Stream::copy_peer",
                format!(
                    "the stream is on device {here}, but the copy is from device {} to device {}",
                    src.device().ordinal(),
                    dst.device().ordinal()
                ),
            ));
        }
        if src.is_empty() {
            return Ok(());
        }
        let bytes = checked_bytes::<T>("Stream::copy_peer", src.len())?;
        // Ordered after the earlier accesses (on either device); nothing is
        // recorded, as the copy is complete when this returns (recording
        // on a stream of the other device would be refused anyway).
        src.access_events().wait_before_read(self)?;
        dst.access_events().wait_before_write(self)?;
        self.bind_if_default()?;
        let (dd, sd) = (dst.device().raw_ordinal(), src.device().raw_ordinal());
        // SAFETY: both are device ranges of `bytes` bytes on the named
        // devices; we wait below, so both outlive the copy.
        unsafe {
            result::memcpy_peer_async(
                dst.device_ptr_mut().cast(),
                dd,
                src.device_ptr().cast(),
                sd,
                bytes,
                self.as_raw(),
            )?;
        }
        self.synchronize()
    }

    /// Fills `dst` with zero bytes on this stream (`hipMemsetAsync`),
    /// only for types where all-zero bits are valid.
    pub fn memset_zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        self.memset_bytes(dst, 0)
    }

    /// Fills every byte of `dst` with `value` on this stream
    /// (`hipMemsetAsync`). Valid for any [`DeviceRepr`] type, since every
    /// bit pattern is a valid value.
    pub fn memset_bytes<T: DeviceRepr>(
        &self,
        dst: &mut impl DeviceMemoryMut<T>,
        value: u8,
    ) -> Result<()> {
        check_device(
            "Stream::memset",
            "the destination",
            self.device(),
            dst.device(),
        )?;
        if dst.is_empty() {
            return Ok(());
        }
        let bytes = checked_bytes::<T>("Stream::memset", dst.len())?;
        self.bind_if_default()?;
        let dst_ptr = dst.device_ptr_mut();
        // SAFETY: a device range of `bytes` bytes on this device, kept
        // allocated until the fill is done (as in `copy_dtod`).
        self.enqueue_tracked(&[], &[dst.access_events()], || unsafe {
            result::memset_async(dst_ptr.cast(), value, bytes, self.as_raw())
        })
    }

    /// [`Stream::copy_htod`] from pinned memory: asynchronous, the pinned
    /// buffer remembers the copy (writing to it from the host, or dropping
    /// it, first waits for the copy).
    fn copy_htod_pinned<T: DeviceRepr>(
        &self,
        src: &PinnedHostBuffer<T>,
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        let operation = "Stream::copy_htod";
        check_same_len(operation, src.len(), dst.len())?;
        check_device(operation, "the destination", self.device(), dst.device())?;
        let dst_ptr = dst.device_ptr_mut();
        let dst_events = dst.access_events();
        self.pinned_copy(operation, src, false, |bytes| {
            // SAFETY: both ranges hold `bytes` bytes; the pinned buffer
            // waits for the copy's event before host writes or its free, so
            // it outlives the copy; the device memory's free waits for the
            // recorded write.
            self.enqueue_tracked(&[], &[dst_events], || unsafe {
                result::memcpy_async(
                    dst_ptr.cast(),
                    src.ptr.cast(),
                    bytes,
                    sys::hipMemcpyKind::hipMemcpyHostToDevice,
                    self.as_raw(),
                )
            })
        })
    }

    /// [`Stream::copy_dtoh`] into pinned memory: asynchronous; any host
    /// access to `dst`, or dropping it, first waits for the copy.
    fn copy_dtoh_pinned<T: DeviceRepr>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut PinnedHostBuffer<T>,
    ) -> Result<()> {
        let operation = "Stream::copy_dtoh";
        check_same_len(operation, src.len(), dst.len)?;
        check_device(operation, "the source", self.device(), src.device())?;
        let dst_ptr = dst.ptr;
        self.pinned_copy(operation, dst, true, |bytes| {
            // SAFETY: both ranges hold `bytes` bytes; every host access to
            // `dst` and its free wait for the copy's event, and the device
            // memory's free for the recorded read; any bytes are a valid T.
            self.enqueue_tracked(&[src.access_events()], &[], || unsafe {
                result::memcpy_async(
                    dst_ptr.cast(),
                    src.device_ptr().cast(),
                    bytes,
                    sys::hipMemcpyKind::hipMemcpyDeviceToHost,
                    self.as_raw(),
                )
            })
        })
    }

    /// An asynchronous copy to or from `pinned` (lengths and devices already
    /// checked): `enqueue` gets the byte count and enqueues the copy on this
    /// stream; an event recorded after it joins `pinned`'s pending work, so
    /// host access and the free wait for it. When the event cannot be
    /// recorded, the copy is waited for here instead.
    fn pinned_copy<T: DeviceRepr>(
        &self,
        operation: &'static str,
        pinned: &PinnedHostBuffer<T>,
        device_writes: bool,
        enqueue: impl FnOnce(usize) -> Result<()>,
    ) -> Result<()> {
        if pinned.len == 0 {
            return Ok(());
        }
        // The pinned buffer tracks the copy with an event, which a graph
        // replay would not record.
        self.refuse_while_capturing(operation)?;
        let bytes = checked_bytes::<T>(operation, pinned.len)?;
        let done = Event::with_timing(self.device(), false)?;
        self.bind_for_copy()?;
        enqueue(bytes)?;
        if let Err(e) = done.record(self) {
            // The copy is enqueued but cannot be tracked: wait for it here so
            // the pinned buffer is never released or touched while in use.
            self.synchronize()?;
            return Err(e);
        }
        pinned.add_pending(done, device_writes);
        Ok(())
    }
}
