//! Per-buffer read/write events and stream-ordered allocations that use
//! them: work on one stream that touches memory last written (or read) on
//! another waits for it, and a free waits, on the allocation's own stream,
//! for the last use anywhere instead of for the whole device.
//!
//! This is the mechanism behind `cuda-compat`'s cudarc-style `CudaSlice`
//! (cudarc's multi-stream mode), available to any user of this crate:
//!
//! ```no_run
//! # fn main() -> hip::Result<()> {
//! use hip::{Device, Stream, StreamAllocation};
//! let dev = Device::get(0)?;
//! let (a, b) = (Stream::new(&dev)?, Stream::new(&dev)?);
//! let buf = StreamAllocation::new(&a, 1 << 20, true)?;
//! {
//!     // A kernel or copy on `b` that reads `buf`: `b` first waits for the
//!     // last write (on `a`); the guard records the read when dropped,
//!     // after the work is enqueued.
//!     let (_ptr, _guard) = buf.ptr_for_read(&b)?;
//!     // ... enqueue the work reading `_ptr` on `b` ...
//! }
//! drop(buf); // `a` waits for the read on `b`, then frees in stream order
//! # Ok(()) }
//! ```
//!
//! Events are made and recorded only when another stream needs them: work
//! that stays on one stream is ordered by the stream itself, so a loop of
//! allocate, launch, free on one stream makes no event call at all. Each
//! kind of access (reads, writes) remembers the stream of its last access;
//! when a use on another stream must wait for it, the event is recorded on
//! that stream then (its end follows every earlier access, see below) and
//! the other stream waits for it. Accesses of one kind on a second stream
//! first make that stream wait for the earlier ones, so the last access's
//! stream always stands for all of them (readers on one stream, the common
//! case, pay nothing). The per-thread stream (`hipStreamPerThread`) is a
//! different stream on each host thread, so accesses there are recorded at
//! once, on the thread that made them. Events do not work inside a stream
//! capture that did not record them: use untracked memory in graphs.

use crate::device::Device;
use crate::drop_errors;
use crate::error::{Error, Result};
use crate::memory::{checked_bytes, DeviceRepr};
use crate::result;
use crate::stream::{Event, Stream};
use hip_sys as sys;
use std::ffi::c_void;
use std::fmt;
use std::sync::{Arc, Mutex};

/// The ordering state of one piece of device memory: for its reads and for
/// its writes, which stream's end follows the last one, and the event that
/// other streams wait for; or nothing, when untracked.
///
/// **Threads**: `Send + Sync`: the state is behind locks, and a stream or
/// event handle may be used from any thread.
#[derive(Debug)]
pub struct AccessEvents {
    /// The device of the memory; `None` when untracked.
    device: Option<Arc<Device>>,
    /// One lock for both: a write waits for both under one lock.
    histories: Mutex<Histories>,
}

/// The reads' and the writes' history.
#[derive(Debug)]
struct Histories {
    reads: AccessHistory,
    writes: AccessHistory,
}

impl Histories {
    const EMPTY: Histories = Histories {
        reads: AccessHistory::EMPTY,
        writes: AccessHistory::EMPTY,
    };
}

/// What one kind of access (reads, or writes) has done so far.
///
/// Invariant: the current end of `last_stream` follows every access of this
/// kind so far; when `event_is_current`, so does `event`'s last record.
#[derive(Debug)]
struct AccessHistory {
    /// The stream of the last access (held, so that it stays alive to be
    /// recorded on later); `None` before the first.
    last_stream: Option<Stream>,
    /// Made at the first use from another stream, then reused.
    event: Option<Event>,
    /// Whether `event` was recorded after the last access.
    event_is_current: bool,
}

impl AccessHistory {
    const EMPTY: AccessHistory = AccessHistory {
        last_stream: None,
        event: None,
        event_is_current: false,
    };

    /// Makes `stream` wait for every access so far: nothing when they were
    /// all on `stream` itself, else a wait for the event, recorded first
    /// on the last access's stream where it is not current.
    fn order_before(&mut self, device: &Arc<Device>, stream: &Stream) -> Result<()> {
        let AccessHistory {
            last_stream,
            event,
            event_is_current,
        } = self;
        let Some(last) = last_stream else {
            return Ok(());
        };
        if is_same_stream(last, stream) {
            return Ok(());
        }
        if !*event_is_current {
            // Accesses on the per-thread stream are recorded when made
            // (`note`); recording now would land on this thread's stream.
            if is_per_thread(last) {
                return Err(Error::invalid(
                    "AccessEvents",
                    "an access on the per-thread stream was not recorded",
                ));
            }
            let e = on_device(device, || {
                let e = match event {
                    Some(e) => e,
                    None => event.insert(Event::with_timing(device, false)?),
                };
                e.record(last)?;
                Ok(e)
            })?;
            *event_is_current = true;
            return stream.wait_event(e);
        }
        match event {
            Some(e) => stream.wait_event(e),
            None => Err(Error::invalid(
                "AccessEvents",
                "the access history says its event is recorded, but there is none",
            )),
        }
    }

    /// Notes an access just enqueued on `stream` (of `device`).
    fn note(&mut self, device: &Arc<Device>, stream: &Stream) -> Result<()> {
        if let Some(last) = &self.last_stream {
            if is_same_stream(last, stream) {
                self.event_is_current = false;
                return Ok(());
            }
        }
        // From now on `stream` stands for every access: it must follow the
        // earlier ones (on other streams) too.
        self.order_before(device, stream)?;
        self.last_stream = Some(stream.clone());
        self.event_is_current = false;
        if is_per_thread(stream) {
            let event = &mut self.event;
            on_device(device, || {
                let e = match event {
                    Some(e) => e,
                    None => event.insert(Event::with_timing(device, false)?),
                };
                e.record(stream)
            })?;
            self.event_is_current = true;
        }
        Ok(())
    }
}

/// `hipStreamPerThread`'s handle.
const PER_THREAD_STREAM: usize = 2;

fn is_per_thread(s: &Stream) -> bool {
    s.as_raw() as usize == PER_THREAD_STREAM
}

/// Whether work enqueued on `a` and then on `b` runs in that order. The
/// handle `a` is held by the history, so its raw handle names no other
/// stream meanwhile; the null handle is one stream per device; the
/// per-thread handle is a different stream on each thread, so never.
fn is_same_stream(a: &Stream, b: &Stream) -> bool {
    a.as_raw() == b.as_raw() && a.device().ordinal() == b.device().ordinal() && !is_per_thread(a)
}

/// Runs `f` with `device` current (events are made on, and recorded by,
/// the current device), then makes the previous device current again: the
/// caller's own binding is kept.
fn on_device<T>(device: &Device, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let previous = result::get_device()?;
    let want = device.ordinal() as i32;
    if previous == want {
        return f();
    }
    result::set_device(want)?;
    let out = f();
    let restored = result::set_device(previous);
    let out = out?;
    restored?;
    Ok(out)
}

impl AccessEvents {
    /// Tracking for memory of `device`. No event is made yet: events are
    /// made when another stream first has to wait for an access, and their
    /// errors come from that call. This never fails; the `Result` stays
    /// from when it made two events, so that callers need not change.
    pub fn new(device: &Arc<Device>) -> Result<AccessEvents> {
        Ok(AccessEvents {
            device: Some(device.clone()),
            histories: Mutex::new(Histories::EMPTY),
        })
    }

    /// No tracking: every method is a no-op, and the caller orders uses
    /// across streams.
    pub const fn untracked() -> AccessEvents {
        AccessEvents {
            device: None,
            histories: Mutex::new(Histories::EMPTY),
        }
    }

    /// Whether accesses are tracked.
    pub fn is_tracked(&self) -> bool {
        self.device.is_some()
    }

    /// Makes `stream` wait for the last write: no call when it was made on
    /// `stream`, else `hipStreamWaitEvent` (after `hipEventRecord` on the
    /// writer's stream, the first time); works across devices.
    pub fn wait_before_read(&self, stream: &Stream) -> Result<()> {
        match &self.device {
            Some(device) => self.lock().writes.order_before(device, stream),
            None => Ok(()),
        }
    }

    /// Makes `stream` wait for the last read and the last write.
    pub fn wait_before_write(&self, stream: &Stream) -> Result<()> {
        match &self.device {
            Some(device) => {
                let mut h = self.lock();
                h.reads.order_before(device, stream)?;
                h.writes.order_before(device, stream)
            }
            None => Ok(()),
        }
    }

    /// Notes the end of a read enqueued on `stream` (of the memory's
    /// device).
    ///
    /// When earlier reads were on another stream, `stream` first waits for
    /// them, so that a writer or a free waiting for the reads waits for
    /// all of them.
    pub fn record_read(&self, stream: &Stream) -> Result<()> {
        match &self.device {
            Some(device) => {
                check_stream_device(device, stream)?;
                self.lock().reads.note(device, stream)
            }
            None => Ok(()),
        }
    }

    /// Notes the end of a write enqueued on `stream` (of the memory's
    /// device).
    pub fn record_write(&self, stream: &Stream) -> Result<()> {
        match &self.device {
            Some(device) => {
                check_stream_device(device, stream)?;
                self.lock().writes.note(device, stream)
            }
            None => Ok(()),
        }
    }

    /// The histories, even after a panic elsewhere: nothing in them panics
    /// midway, and every update leaves them consistent (a field changes
    /// only after the calls that can fail).
    fn lock(&self) -> std::sync::MutexGuard<'_, Histories> {
        self.histories.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The events of memory without tracking (`hipMalloc` buffers, managed
/// memory, module globals): every method is a no-op.
pub(crate) static UNTRACKED: AccessEvents = AccessEvents::untracked();

impl Stream {
    /// Enqueues one operation on this stream that reads the memory of
    /// `reads` and writes that of `writes`, in order with their earlier
    /// accesses: the stream first waits for the last write of each read
    /// and for the last read and write of each written one, then
    /// `enqueue` runs, then the accesses are recorded as this stream's.
    /// Untracked events cost nothing (no runtime call).
    ///
    /// Every tracked memory must be on this stream's device (recording
    /// refuses others). This is the path of the copies, fills and launches
    /// of this crate and of `hipblas`, and of any wrapper of a library call
    /// that takes device memory:
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// use hip::{Device, DeviceMemory, Stream};
    /// let dev = Device::get(0)?;
    /// let (a, b) = (Stream::new(&dev)?, Stream::new(&dev)?);
    /// let x = a.alloc_zeroed::<f32>(1024)?;
    /// let ptr = x.as_device_ptr();
    /// b.enqueue_tracked(&[x.access_events()], &[], || {
    ///     // ... enqueue on `b` a library call that reads `ptr` ...
    ///     # let _ = ptr;
    ///     Ok::<(), hip::Error>(())
    /// })?;
    /// # Ok(()) }
    /// ```
    pub fn enqueue_tracked<R, E: From<Error>>(
        &self,
        reads: &[&AccessEvents],
        writes: &[&AccessEvents],
        enqueue: impl FnOnce() -> std::result::Result<R, E>,
    ) -> std::result::Result<R, E> {
        let reads = reads.iter().map(|&events| (events, false));
        let writes = writes.iter().map(|&events| (events, true));
        self.enqueue_with_accesses(reads.chain(writes), enqueue)
    }

    /// [`Stream::enqueue_tracked`] over `(events, written)` pairs (the
    /// launches' argument lists). When an access cannot be recorded after
    /// the work was enqueued, the stream is synchronized before the error
    /// is returned: nothing would order a free after the work otherwise.
    pub(crate) fn enqueue_with_accesses<'e, R, E: From<Error>>(
        &self,
        accesses: impl Iterator<Item = (&'e AccessEvents, bool)> + Clone,
        enqueue: impl FnOnce() -> std::result::Result<R, E>,
    ) -> std::result::Result<R, E> {
        for (events, written) in accesses.clone() {
            if written {
                events.wait_before_write(self)?;
            } else {
                events.wait_before_read(self)?;
            }
        }
        let out = enqueue()?;
        let recorded = accesses.into_iter().try_for_each(|(events, written)| {
            if written {
                events.record_write(self)
            } else {
                events.record_read(self)
            }
        });
        if let Err(e) = recorded {
            // The error said is the recording's; a failed synchronize is
            // kept for `take_drop_errors`.
            drop_errors::record_result(self.synchronize());
            return Err(e.into());
        }
        Ok(out)
    }
}

fn check_stream_device(device: &Device, stream: &Stream) -> Result<()> {
    if device.ordinal() == stream.device().ordinal() {
        return Ok(());
    }
    Err(Error::invalid(
        "AccessEvents::record",
        format!(
            "the memory belongs to device {}, the stream to device {}",
            device.ordinal(),
            stream.device().ordinal()
        ),
    ))
}

/// Records a read or write when dropped: drop it after enqueueing the work
/// that uses the pointer it came with. Errors go to
/// [`crate::take_drop_errors`].
#[must_use = "the access is recorded when the guard drops, after the work is enqueued"]
pub struct AccessGuard<'a> {
    events: &'a AccessEvents,
    stream: &'a Stream,
    write: bool,
}

impl fmt::Debug for AccessGuard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AccessGuard")
            .field("stream", self.stream)
            .field("write", &self.write)
            .finish()
    }
}

impl<'a> AccessGuard<'a> {
    /// A guard recording a read (or write) of `events` on `stream`, after
    /// making `stream` wait for the conflicting earlier accesses.
    pub fn begin(events: &'a AccessEvents, stream: &'a Stream, write: bool) -> Result<Self> {
        if write {
            events.wait_before_write(stream)?;
        } else {
            events.wait_before_read(stream)?;
        }
        Ok(AccessGuard {
            events,
            stream,
            write,
        })
    }
}

impl<'a> AccessGuard<'a> {
    /// A guard that only records (the caller has made `stream` wait for
    /// the earlier accesses already, e.g. with
    /// [`AccessEvents::wait_before_read`]).
    pub fn recording(events: &'a AccessEvents, stream: &'a Stream, write: bool) -> Self {
        AccessGuard {
            events,
            stream,
            write,
        }
    }
}

impl Drop for AccessGuard<'_> {
    fn drop(&mut self) {
        drop_errors::record_result(if self.write {
            self.events.record_write(self.stream)
        } else {
            self.events.record_read(self.stream)
        });
    }
}

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
        let events = if track {
            AccessEvents::new(device)?
        } else {
            AccessEvents::untracked()
        };
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
        let a = StreamAllocation {
            ptr,
            bytes,
            stream: stream.clone(),
            events,
            stream_ordered,
            free_waits_for_device: false,
        };
        a.events.record_write(stream)?;
        Ok(a)
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
        let out = me.free_now();
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
    /// caller has ordered every other use before this point.
    fn free_now(&self) -> Result<()> {
        if self.ptr.is_null() {
            return Ok(());
        }
        if self.stream_ordered {
            // As `hipMallocAsync`, `hipFreeAsync` works on the stream's
            // device whichever is current.
            self.stream.bind_if_default()?;
            // SAFETY: we own this stream-ordered allocation; the caller
            // ordered every other use before this point of the stream.
            unsafe { result::free_async(self.ptr, self.stream.as_raw()) }
        } else {
            self.stream.device().bind()?;
            self.stream.synchronize()?;
            // SAFETY: we own this hipMalloc allocation; hipFree waits for
            // the device.
            unsafe { result::free(self.ptr) }
        }
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
        drop_errors::record_result(me.events.wait_before_write(&me.stream));
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
}

impl Stream {
    /// Copies `src` into the start of `dst` on this stream
    /// (`hipMemcpyAsync`), after the stream waits for `dst`'s last read
    /// and write, and records the write; waits for the copy before
    /// returning (`src` is ordinary host memory). `src` may be shorter
    /// than `dst`; `dst` must be on this stream's device.
    pub fn copy_htod_tracked<T: DeviceRepr>(
        &self,
        src: &[T],
        dst: &mut StreamAllocation,
    ) -> Result<()> {
        self.copy_tracked(
            "Stream::copy_htod_tracked",
            TrackedCopy::HostToDevice { src, dst },
        )
    }

    /// Copies the start of `src` into `out` on this stream, after the
    /// stream waits for `src`'s last write, records the read, and waits
    /// for the copy. `out` may be shorter than `src`.
    pub fn copy_dtoh_tracked<T: DeviceRepr>(
        &self,
        src: &StreamAllocation,
        out: &mut [T],
    ) -> Result<()> {
        self.copy_tracked(
            "Stream::copy_dtoh_tracked",
            TrackedCopy::DeviceToHost { src, dst: out },
        )
    }

    /// The one path of both tracked copies: checks the host length
    /// against the allocation and the devices, orders the copy after the
    /// allocation's last uses (the guard records this one), and waits for
    /// it, so the host slice need only outlive this call.
    fn copy_tracked<T: DeviceRepr>(
        &self,
        operation: &'static str,
        copy: TrackedCopy<'_, T>,
    ) -> Result<()> {
        let (host_len, allocation) = match &copy {
            TrackedCopy::HostToDevice { src, dst } => (src.len(), &**dst),
            TrackedCopy::DeviceToHost { src, dst } => (dst.len(), *src),
        };
        let bytes = checked_bytes::<T>(operation, host_len)?;
        check_fits(operation, bytes, allocation.bytes)?;
        check_device(operation, self, allocation.stream.device())?;
        if bytes == 0 {
            return Ok(());
        }
        self.bind_for_copy()?;
        let (dst, src, kind, guard) = match copy {
            TrackedCopy::HostToDevice { src, dst } => {
                let (p, guard) = dst.ptr_for_write(self)?;
                let kind = sys::hipMemcpyKind::hipMemcpyHostToDevice;
                (p, src.as_ptr().cast::<c_void>(), kind, guard)
            }
            TrackedCopy::DeviceToHost { src, dst } => {
                let (p, guard) = src.ptr_for_read(self)?;
                let kind = sys::hipMemcpyKind::hipMemcpyDeviceToHost;
                (dst.as_mut_ptr().cast::<c_void>(), p, kind, guard)
            }
        };
        // SAFETY: the device side holds at least `bytes` (checked); the
        // host side is readable (`src`) or writable (`dst`) for `bytes`
        // and outlives the copy, which is waited for below; every bit
        // pattern is a valid `T` (`DeviceRepr`).
        unsafe {
            result::memcpy_async(dst, src, bytes, kind, self.as_raw())?;
        }
        drop(guard);
        self.synchronize()
    }
}

/// Which way a tracked copy goes, with its host slice and allocation.
enum TrackedCopy<'a, T> {
    /// `copy_htod_tracked`: reads `src`, writes the allocation `dst`.
    HostToDevice {
        src: &'a [T],
        dst: &'a mut StreamAllocation,
    },
    /// `copy_dtoh_tracked`: reads the allocation `src`, writes `dst`.
    DeviceToHost {
        src: &'a StreamAllocation,
        dst: &'a mut [T],
    },
}

fn check_fits(operation: &'static str, bytes: usize, capacity: usize) -> Result<()> {
    if bytes <= capacity {
        Ok(())
    } else {
        Err(Error::invalid(
            operation,
            format!("{bytes} bytes do not fit in an allocation of {capacity}"),
        ))
    }
}

fn check_device(operation: &'static str, stream: &Stream, device: &Device) -> Result<()> {
    if stream.device().ordinal() == device.ordinal() {
        Ok(())
    } else {
        Err(Error::invalid(
            operation,
            format!(
                "the allocation is on device {}, the stream on device {}",
                device.ordinal(),
                stream.device().ordinal()
            ),
        ))
    }
}

impl Drop for StreamAllocation {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        let r = self
            .events
            .wait_before_write(&self.stream)
            .and_then(|()| {
                if self.free_waits_for_device {
                    self.stream.device().synchronize()
                } else {
                    Ok(())
                }
            })
            // The stream now waits for every tracked use.
            .and_then(|()| self.free_now());
        drop_errors::record_result(r);
    }
}
