//! Streams, events and host callbacks.

use crate::device::Device;
use crate::error;
use crate::error::{Error, Result};
use crate::result;
use hip_sys as sys;
use std::ffi::c_void;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// A queue of work on one device.
///
/// Cloning a `Stream` is cheap and gives another handle to the same queue;
/// the queue is destroyed when the last handle goes. Buffers allocated in
/// stream order keep a handle, so the stream lives until they are freed.
///
/// **Threads**: `Send + Sync`. HIP streams may be used from several host
/// threads at once: the runtime serialises enqueueing. Work enqueued from
/// different threads onto one stream runs in the order the calls happened.
#[derive(Clone)]
pub struct Stream {
    inner: Arc<StreamInner>,
}

pub(crate) struct StreamInner {
    raw: sys::hipStream_t,
    device: Arc<Device>,
    owned: bool,
    /// What [`Stream::wait_for`] taught this stream about others: see
    /// [`StreamOrder`].
    order: StreamOrder,
}

/// Which points of other streams a stream is known to follow, so that
/// memory tracking ([`crate::tracking`]) can skip a wait that an earlier
/// [`Stream::wait_for`] (a fork or join) already made.
///
/// Every stream counts *marks*: a mark is taken, before the event is
/// recorded, each time `wait_for` orders another stream after this one's
/// end. Work enqueued on this stream and then read the count `v` (the
/// tracking reads it after enqueueing) is before the record of every mark
/// `m >= v`: the mark was taken after the read, so its record was enqueued
/// after the work. A stream that waited for mark `m` of this one therefore
/// follows every access noted with a count up to `m`.
///
/// The knowledge comes only from `wait_for`, whose event is its own and
/// dropped there: a user's event could be recorded again through the raw
/// API, elsewhere, and teach something false. Streams are told apart by an
/// id that is never reused (a raw handle can be, after a destroy); the
/// per-thread stream, one handle for many streams, takes no part.
#[derive(Debug)]
pub(crate) struct StreamOrder {
    id: u64,
    marks: AtomicU64,
    /// `(stream id, mark)`: the latest mark of each stream this one waited
    /// for, at most [`StreamOrder::KEPT`] streams (the oldest forgotten,
    /// which only costs a wait).
    after: Mutex<Vec<(u64, u64)>>,
}

impl StreamOrder {
    const KEPT: usize = 32;

    fn new() -> StreamOrder {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        StreamOrder {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            marks: AtomicU64::new(1),
            after: Mutex::new(Vec::new()),
        }
    }

    fn after(&self) -> std::sync::MutexGuard<'_, Vec<(u64, u64)>> {
        self.after.lock().unwrap_or_else(|p| p.into_inner())
    }
}

// SAFETY: a hipStream_t is a handle into the runtime, which is thread-safe
// for every stream operation; nothing in `StreamInner` is tied to a thread.
unsafe impl Send for StreamInner {}
// SAFETY: as above; shared use only passes the handle to thread-safe calls.
unsafe impl Sync for StreamInner {}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream")
            .field("raw", &self.inner.raw)
            .field("device", &self.inner.device.ordinal())
            .field("owned", &self.inner.owned)
            .finish()
    }
}

/// How to create a stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamOptions {
    /// `hipStreamNonBlocking`: do not synchronise with the default stream.
    pub non_blocking: bool,
    /// Priority; lower numbers are higher priority. 0 is the default; see
    /// [`Device::stream_priority_range`]. Values outside the range are
    /// clamped by the runtime.
    pub priority: i32,
}

impl Stream {
    /// A new stream with default options (blocking, priority 0).
    pub fn new(device: &Arc<Device>) -> Result<Stream> {
        Stream::with_options(device, StreamOptions::default())
    }

    /// A new stream (`hipStreamCreateWithPriority`).
    pub fn with_options(device: &Arc<Device>, options: StreamOptions) -> Result<Stream> {
        device.bind()?;
        let flags = if options.non_blocking {
            sys::hipStreamNonBlocking
        } else {
            0
        };
        let raw = result::stream_create_with_priority(flags, options.priority)?;
        Ok(Stream {
            inner: Arc::new(StreamInner {
                raw,
                device: device.clone(),
                owned: true,
                order: StreamOrder::new(),
            }),
        })
    }

    /// The device's default (null) stream. Work on it is ordered against
    /// every blocking stream of the device.
    pub fn default_for(device: &Arc<Device>) -> Stream {
        Stream {
            inner: Arc::new(StreamInner {
                raw: std::ptr::null_mut(),
                device: device.clone(),
                owned: false,
                order: StreamOrder::new(),
            }),
        }
    }

    /// The per-thread default stream (`hipStreamPerThread`): like the null
    /// stream, but one per host thread, and it does not synchronise with
    /// other streams.
    pub fn per_thread(device: &Arc<Device>) -> Stream {
        // `hipStreamPerThread` is a C macro, `(hipStream_t)2`: a handle the
        // runtime resolves per thread, never created or destroyed. Made
        // without an integer-to-pointer cast: the address 2 points to no
        // memory, so it carries no provenance (Miri's strict provenance
        // refused the cast).
        Stream {
            inner: Arc::new(StreamInner {
                raw: std::ptr::null_mut::<sys::ihipStream_t>().wrapping_byte_add(2),
                device: device.clone(),
                owned: false,
                order: StreamOrder::new(),
            }),
        }
    }

    /// Wraps a stream created elsewhere, without taking ownership: it is
    /// not destroyed when the last `Stream` goes.
    ///
    /// # Safety
    ///
    /// `raw` is a live stream of `device` (or the null or per-thread
    /// handle), and stays live while the returned `Stream`, its clones and
    /// everything allocated on it are.
    pub unsafe fn from_raw_borrowed(device: &Arc<Device>, raw: sys::hipStream_t) -> Stream {
        Stream {
            inner: Arc::new(StreamInner {
                raw,
                device: device.clone(),
                owned: false,
                order: StreamOrder::new(),
            }),
        }
    }

    /// The raw handle, for calls into `hip_sys`. It stays valid while this
    /// `Stream` (or a clone) lives.
    #[inline]
    pub fn as_raw(&self) -> sys::hipStream_t {
        self.inner.raw
    }

    /// The device this stream belongs to.
    #[inline]
    pub fn device(&self) -> &Arc<Device> {
        &self.inner.device
    }

    /// Whether this is the device's default stream.
    pub fn is_default(&self) -> bool {
        self.inner.raw.is_null()
    }

    /// Binds the device when the runtime resolves this stream through the
    /// current device (the null stream); named streams carry their device.
    #[inline]
    pub(crate) fn bind_if_default(&self) -> Result<()> {
        // The null and per-thread handles resolve through the current
        // device; a borrowed stream is bound too (harmless when it carries
        // its device).
        if !self.inner.owned {
            self.inner.device.bind()
        } else {
            Ok(())
        }
    }

    /// Makes this stream's device current before a copy between host and
    /// device memory, whatever the stream. A named stream is not enough:
    /// the runtime stages pageable memory through the current device, and
    /// stream-ordered (pool) memory is reachable only from its own device,
    /// so a copy issued while another device is current fails
    /// (`hipErrorInvalidValue`, found by the two-GPU test
    /// `two_gpus_tracked_copies_refuse_another_devices_stream`). One
    /// `hipGetDevice` when the device is already current.
    #[inline]
    pub(crate) fn bind_for_copy(&self) -> Result<()> {
        self.inner.device.bind()
    }

    /// Waits until all work enqueued so far has finished
    /// (`hipStreamSynchronize`).
    pub fn synchronize(&self) -> Result<()> {
        self.bind_if_default()?;
        // SAFETY: the stream is live while `self` is.
        unsafe { result::stream_synchronize(self.inner.raw) }
    }

    /// Whether all work enqueued so far has finished (`hipStreamQuery`):
    /// `Ok(false)` while work is pending.
    #[inline]
    pub fn query(&self) -> Result<bool> {
        self.bind_if_default()?;
        // SAFETY: the stream is live while `self` is.
        unsafe { result::stream_query(self.inner.raw) }
    }

    /// Makes later work on this stream wait for `event`
    /// (`hipStreamWaitEvent`). The event may belong to another device.
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.bind_if_default()?;
        // SAFETY: stream and event are live while their owners are.
        unsafe { result::stream_wait_event(self.inner.raw, event.raw) }
    }

    /// Makes later work on this stream wait for everything enqueued on
    /// `other` so far (records a fresh event on `other`).
    ///
    /// The stream remembers it: tracked memory ([`AccessEvents`](crate::AccessEvents)) last used on
    /// `other` before this call is then used here without another wait (a
    /// fork's reads and writes of buffers made before it overlap with
    /// `other`'s later work, as in CUDA with cudarc's per-access events).
    pub fn wait_for(&self, other: &Stream) -> Result<()> {
        let ev = Event::with_timing(other.device(), false)?;
        // Taken before the record is enqueued: see `StreamOrder`.
        let mark = other.take_mark();
        ev.record(other)?;
        self.wait_event(&ev)?;
        if let Some(mark) = mark {
            self.learn_after(other, mark);
        }
        Ok(())
    }

    /// The mark count that work enqueued on this stream so far is noted
    /// with (see [`StreamOrder`]); `u64::MAX`, which no stream is known to
    /// follow, for the per-thread stream.
    pub(crate) fn current_mark(&self) -> u64 {
        if self.is_per_thread() {
            return u64::MAX;
        }
        self.inner.order.marks.load(Ordering::SeqCst)
    }

    /// A new mark, before an event that another stream will wait for is
    /// recorded here; `None` for the per-thread stream.
    pub(crate) fn take_mark(&self) -> Option<u64> {
        if self.is_per_thread() {
            return None;
        }
        Some(self.inner.order.marks.fetch_add(1, Ordering::SeqCst))
    }

    /// Notes that this stream now follows `other`'s work up to `mark` (a
    /// wait for an event recorded after [`Stream::take_mark`] was enqueued).
    pub(crate) fn learn_after(&self, other: &Stream, mark: u64) {
        if self.is_per_thread() || Arc::ptr_eq(&self.inner, &other.inner) {
            return;
        }
        let id = other.inner.order.id;
        let mut after = self.inner.order.after();
        if let Some(entry) = after.iter_mut().find(|(i, _)| *i == id) {
            entry.1 = entry.1.max(mark);
            return;
        }
        if after.len() == StreamOrder::KEPT {
            after.remove(0);
        }
        after.push((id, mark));
    }

    /// Whether this stream is known to follow the work `other` had
    /// enqueued when its mark count was `mark` (see [`StreamOrder`]).
    pub(crate) fn follows(&self, other: &Stream, mark: u64) -> bool {
        if mark == u64::MAX || self.is_per_thread() {
            return false;
        }
        let id = other.inner.order.id;
        self.inner
            .order
            .after()
            .iter()
            .any(|&(i, m)| i == id && mark <= m)
    }

    /// The id [`StreamOrder`] knows this handle (and its clones) by; a
    /// handle made again for the same raw stream has another.
    pub(crate) fn order_id(&self) -> u64 {
        self.inner.order.id
    }

    /// Whether this is `hipStreamPerThread`, one handle for many streams.
    fn is_per_thread(&self) -> bool {
        self.inner.raw as usize == 2
    }

    /// Records `event` on this stream (`hipEventRecord`); same as
    /// [`Event::record`].
    #[inline]
    pub fn record_event(&self, event: &Event) -> Result<()> {
        event.record(self)
    }

    /// Runs `f` on a runtime thread once all earlier work on this stream is
    /// done; later work waits for it (`hipLaunchHostFunc`).
    ///
    /// `f` must not call into HIP (the runtime forbids it and may
    /// deadlock or fail). A panic in `f` is caught before it reaches the
    /// runtime and recorded as [`Error::CallbackPanicked`] (see
    /// [`crate::take_drop_errors`]).
    pub fn launch_host_fn<F: FnOnce() + Send + 'static>(&self, f: F) -> Result<()> {
        self.bind_if_default()?;
        // A captured host function becomes a graph node that runs once per
        // replay, but the closure can run (and be freed) only once.
        self.refuse_while_capturing("Stream::launch_host_fn")?;
        let boxed: Box<Box<dyn FnOnce() + Send>> = Box::new(Box::new(f));
        let data = Box::into_raw(boxed).cast::<c_void>();
        // SAFETY: the stream is live; `data` is a leaked box the trampoline
        // takes back exactly once.
        let r = unsafe { result::launch_host_func(self.inner.raw, host_fn_trampoline, data) };
        if r.is_err() {
            // SAFETY: the runtime refused the callback, so it will never
            // run: we still own `data` and free it here.
            drop(unsafe { Box::from_raw(data.cast::<Box<dyn FnOnce() + Send>>()) });
        }
        r
    }

    /// An error naming `call` when this stream is capturing a graph: for
    /// work whose host-side bookkeeping cannot be replayed.
    pub(crate) fn refuse_while_capturing(&self, call: &'static str) -> Result<()> {
        // SAFETY: the stream is live.
        if unsafe { result::stream_is_capturing(self.inner.raw) }? {
            return Err(Error::invalid(
                call,
                "the stream is capturing a graph; this work cannot be captured (it is \
                 tracked on the host, which a graph replay would bypass)",
            ));
        }
        Ok(())
    }
}

unsafe extern "C" fn host_fn_trampoline(data: *mut c_void) {
    // SAFETY: `data` came from Box::into_raw in `launch_host_fn`, and the
    // runtime calls each host function exactly once.
    let f = unsafe { Box::from_raw(data.cast::<Box<dyn FnOnce() + Send>>()) };
    if let Err(payload) = catch_unwind(AssertUnwindSafe(f)) {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "non-string panic payload".into());
        error::record(Error::CallbackPanicked { message });
    }
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        // A stream dropped while capturing ends its capture with it.
        self.device.capture_gate().leave(self.raw as usize);
        if self.owned {
            // SAFETY: we own the stream and this is the last handle.
            error::record_result(unsafe { result::stream_destroy(self.raw) });
        }
    }
}

/// A marker in a stream's work, for ordering and timing.
///
/// **Threads**: `Send + Sync`: an event is a runtime handle and every
/// event call is thread-safe.
pub struct Event {
    raw: sys::hipEvent_t,
    device: Arc<Device>,
    timing: bool,
}

// SAFETY: a hipEvent_t is a handle into the thread-safe runtime.
unsafe impl Send for Event {}
// SAFETY: as above.
unsafe impl Sync for Event {}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("raw", &self.raw)
            .field("device", &self.device.ordinal())
            .field("timing", &self.timing)
            .finish()
    }
}

impl Event {
    /// A new event that can time work (`hipEventCreateWithFlags`).
    pub fn new(device: &Arc<Device>) -> Result<Event> {
        Event::with_timing(device, true)
    }

    /// A new event, with or without timing (`hipEventDisableTiming`, which
    /// makes recording and waiting cheaper).
    pub fn with_timing(device: &Arc<Device>, timing: bool) -> Result<Event> {
        device.bind()?;
        let flags = if timing {
            sys::hipEventDefault
        } else {
            sys::hipEventDisableTiming
        };
        let raw = result::event_create_with_flags(flags)?;
        Ok(Event {
            raw,
            device: device.clone(),
            timing,
        })
    }

    /// A new event with explicit flags (`hipEventCreateWithFlags`): any of
    /// `hipEventBlockingSync` (the waiting host thread blocks instead of
    /// spinning), `hipEventDisableTiming`, `hipEventInterprocess`.
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// let dev = hip::Device::get(0)?;
    /// let e = hip::Event::with_flags(&dev, hip::sys::hipEventBlockingSync)?;
    /// assert!(e.has_timing());
    /// # Ok(()) }
    /// ```
    pub fn with_flags(device: &Arc<Device>, flags: u32) -> Result<Event> {
        device.bind()?;
        let raw = result::event_create_with_flags(flags)?;
        Ok(Event {
            raw,
            device: device.clone(),
            timing: flags & sys::hipEventDisableTiming == 0,
        })
    }

    /// Whether the event records times (created without
    /// `hipEventDisableTiming`).
    pub fn has_timing(&self) -> bool {
        self.timing
    }

    /// The raw handle.
    #[inline]
    pub fn as_raw(&self) -> sys::hipEvent_t {
        self.raw
    }

    /// The device it was created on.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// Records this event at the current end of `stream` (`hipEventRecord`).
    #[inline]
    pub fn record(&self, stream: &Stream) -> Result<()> {
        stream.bind_if_default()?;
        // SAFETY: event and stream are live while their owners are.
        unsafe { result::event_record(self.raw, stream.as_raw()) }
    }

    /// Waits until the work before the last record has finished
    /// (`hipEventSynchronize`).
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: the event is live.
        unsafe { result::event_synchronize(self.raw) }
    }

    /// Whether the work before the last record has finished
    /// (`hipEventQuery`).
    pub fn query(&self) -> Result<bool> {
        // SAFETY: the event is live.
        unsafe { result::event_query(self.raw) }
    }

    /// Milliseconds between `start` and `self` (`hipEventElapsedTime`).
    /// Both must have timing enabled and have completed.
    pub fn elapsed_ms_since(&self, start: &Event) -> Result<f32> {
        if !self.timing || !start.timing {
            return Err(Error::invalid(
                "Event::elapsed_ms_since",
                format!(
                    "both events need timing (start: {}, end: {})",
                    start.timing, self.timing
                ),
            ));
        }
        // SAFETY: both events are live.
        unsafe { result::event_elapsed_time(start.raw, self.raw) }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: we own the event.
        error::record_result(unsafe { result::event_destroy(self.raw) });
    }
}
