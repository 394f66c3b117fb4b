//! Per-buffer read/write events, which stream-ordered allocations
//! ([`StreamAllocation`](crate::StreamAllocation)) use: work on one stream that touches memory last written (or read) on
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
//! case, pay nothing).
//!
//! **Forks and joins.** A stream that waited for another's end through
//! [`Stream::wait_for`] (cuda-compat's `fork` and `join`) follows every
//! access made there before it, so a use of such memory makes no wait:
//! each stream counts the waits others make for it (marks), and each
//! access remembers the count on its stream after it was enqueued. Buffers
//! made before a fork are then used by both streams' kernels without
//! ordering them one after the other (cudarc's `test_par_launch`), where a
//! wait at the owner stream's current end would follow the other kernel
//! too. Only `wait_for` teaches this: it records an event of its own, which
//! no raw call can record again elsewhere.
//!
//! **The per-thread stream** (`hipStreamPerThread`, candle's stream) is one
//! handle that names a different stream on each host thread. An access
//! there is remembered with the thread that made it, so one thread's work
//! on its per-thread stream is one stream, and costs nothing either. An
//! event can be recorded on that stream only by its own thread, so when
//! *another* thread must wait for such an access, the event is recorded on
//! the device's null stream instead: the null stream waits for all earlier
//! work of every blocking stream, per-thread streams included. That record
//! is a device-wide ordering, which CUDA forbids during a capture, so it
//! first holds captures back ([`Device::hold_captures`]); a thread that
//! is capturing gets an error instead. Sharing memory between threads'
//! per-thread streams is therefore correct but costs a device-wide
//! ordering the first time each access is waited for from another thread:
//! give such threads one named stream where that matters.
//!
//! Events do not work inside a stream capture that did not record them:
//! use untracked memory in graphs.

use crate::capture_gate::CaptureHold;
use crate::device::Device;
use crate::error;
use crate::error::{Error, Result};
use crate::stream::{Event, Stream};
use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    /// The stream (and thread) of every access so far, while there was
    /// only one: see [`Owner`].
    owner: Owner,
    /// One lock for both: a write waits for both under one lock.
    histories: Mutex<Histories>,
}

/// The one stream that has touched new memory, for the path without the
/// lock: a stream allocation is written on its stream, and in most
/// programs (candle's, one stream per device) only ever used there, where
/// the stream's own order is all the ordering there is.
///
/// While `sole`, every access so far was on `raw` of device `ordinal` (by
/// `thread`, for the per-thread stream), the histories' writes name that
/// stream, and no event is recorded: an access on that stream needs no
/// call and changes nothing that matters, so it returns without taking the
/// lock (reads are not noted; a use on another stream waits for the
/// writes' event, recorded at that stream's end, which follows the reads
/// too). The first access from anywhere else clears `sole` under the lock,
/// for good, before the histories are used. The fields never change;
/// `sole` only goes from true to false.
#[derive(Debug)]
struct Owner {
    sole: AtomicBool,
    raw: usize,
    ordinal: usize,
    thread: ThreadToken,
    /// The stream's mark count ([`Stream::current_mark`]) after its last
    /// read and its last write while `sole` (0: none): what another stream
    /// that waited for one of its marks ([`Stream::wait_for`]) needs no
    /// wait for.
    read_mark: AtomicU64,
    write_mark: AtomicU64,
    /// The [`Stream::order_id`] the marks count in: an access through
    /// another handle of the same raw stream notes `u64::MAX` (unknown).
    order_id: u64,
}

impl Owner {
    /// No owner: every access takes the lock.
    const fn none() -> Owner {
        Owner {
            sole: AtomicBool::new(false),
            raw: 0,
            ordinal: 0,
            thread: 0,
            read_mark: AtomicU64::new(0),
            write_mark: AtomicU64::new(0),
            order_id: 0,
        }
    }

    /// Whether every access so far was `stream`'s (by thread `me`).
    #[inline]
    fn is(&self, stream: &Stream, me: ThreadToken) -> bool {
        self.sole.load(Ordering::Acquire)
            && self.raw == stream.as_raw() as usize
            && self.ordinal == stream.device().ordinal()
            && (self.raw != PER_THREAD_STREAM || self.thread == me)
    }
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

/// A host thread, as the per-thread stream tells them apart: a number
/// given on the thread's first tracked access, never 0 and never reused.
type ThreadToken = u64;

/// The calling thread's token.
fn this_thread() -> ThreadToken {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static TOKEN: Cell<ThreadToken> = const { Cell::new(0) };
    }
    TOKEN.with(|t| match t.get() {
        0 => {
            let token = NEXT.fetch_add(1, Ordering::Relaxed);
            t.set(token);
            token
        }
        token => token,
    })
}

/// What [`AccessHistory::order_before`] did: the ordering is in place, or
/// it needs captures held back first (the caller takes the hold without
/// the history's lock, then asks again).
#[must_use]
enum Order {
    Done,
    NeedsCaptureHold,
}

/// What one kind of access (reads, or writes) has done so far.
///
/// Invariant: the current end of `last_stream` (on `last_thread`, for the
/// per-thread stream) follows every access of this kind so far; when
/// `event_is_current`, so does `event`'s last record.
#[derive(Debug)]
struct AccessHistory {
    /// The stream of the last access (held, so that it stays alive to be
    /// recorded on later); `None` before the first.
    last_stream: Option<Stream>,
    /// The thread of the last access: which stream the per-thread handle
    /// named (unused for other streams).
    last_thread: ThreadToken,
    /// Made at the first use from another stream, then reused.
    event: Option<Event>,
    /// Whether `event` was recorded after the last access.
    event_is_current: bool,
    /// `last_stream`'s mark count after the last access
    /// ([`Stream::current_mark`]): a stream known to follow that mark
    /// follows every access of this kind.
    last_mark: u64,
    /// For the writes: the mark count after the owner's last read while it
    /// was the only stream (those reads are in no history; `last_stream`'s
    /// end follows them, see [`Owner`]); 0 when none. A writer must follow
    /// them too.
    unnoted_reads_mark: u64,
}

impl AccessHistory {
    const EMPTY: AccessHistory = AccessHistory {
        last_stream: None,
        last_thread: 0,
        event: None,
        event_is_current: false,
        last_mark: 0,
        unnoted_reads_mark: 0,
    };

    /// Makes `stream` (used by thread `me`) wait for every access so far:
    /// nothing when they were all on `stream` itself, else a wait for the
    /// event, recorded first where it is not current: on the last access's
    /// stream, or, for another thread's per-thread stream, on the null
    /// stream, which needs `held` captures (else nothing is done and
    /// [`Order::NeedsCaptureHold`] returned).
    ///
    /// No call either when `stream` already waited ([`Stream::wait_for`])
    /// for a point of the last access's stream after those accesses (and,
    /// `with_unnoted_reads`, after the owner's unnoted reads: a writer's
    /// order).
    fn order_before(
        &mut self,
        device: &Arc<Device>,
        stream: &Stream,
        me: ThreadToken,
        held: Option<&CaptureHold<'_>>,
        with_unnoted_reads: bool,
    ) -> Result<Order> {
        let AccessHistory {
            last_stream,
            last_thread,
            event,
            event_is_current,
            last_mark,
            unnoted_reads_mark,
        } = self;
        let Some(last) = last_stream else {
            return Ok(Order::Done);
        };
        if is_same_stream(last, *last_thread, stream, me) {
            return Ok(Order::Done);
        }
        let mark = if with_unnoted_reads {
            (*last_mark).max(*unnoted_reads_mark)
        } else {
            *last_mark
        };
        if !is_per_thread(last) && stream.follows(last, mark) {
            return Ok(Order::Done);
        }
        if !*event_is_current {
            let null;
            let record_on = if is_per_thread(last) && *last_thread != me {
                // Another thread's per-thread stream: only that thread can
                // name it; the null stream follows it (see the module's
                // docs), a device-wide ordering that captures must not see.
                if held.is_none() {
                    return Ok(Order::NeedsCaptureHold);
                }
                null = Stream::default_for(device);
                &null
            } else {
                &*last
            };
            let e = on_device(device, || {
                let e = match event {
                    Some(e) => e,
                    None => event.insert(Event::with_timing(device, false)?),
                };
                e.record(record_on)?;
                Ok(e)
            })?;
            *event_is_current = true;
            stream.wait_event(e)?;
            return Ok(Order::Done);
        }
        match event {
            Some(e) => stream.wait_event(e).map(|()| Order::Done),
            None => Err(Error::invalid(
                "AccessEvents",
                "the access history says its event is recorded, but there is none",
            )),
        }
    }

    /// Notes an access just enqueued on `stream` (of `device`) by thread
    /// `me`.
    fn note(
        &mut self,
        device: &Arc<Device>,
        stream: &Stream,
        me: ThreadToken,
        held: Option<&CaptureHold<'_>>,
    ) -> Result<Order> {
        if let Some(last) = &self.last_stream {
            if is_same_stream(last, self.last_thread, stream, me) {
                self.event_is_current = false;
                // The marks count in `last_stream`'s handle: this one's
                // stands for the earlier accesses on the same stream too.
                if last.order_id() != stream.order_id() {
                    self.last_stream = Some(stream.clone());
                }
                self.last_mark = stream.current_mark();
                return Ok(Order::Done);
            }
        }
        // From now on `stream` stands for every access: it must follow the
        // earlier ones (on other streams) too, and the unnoted reads.
        if let Order::NeedsCaptureHold = self.order_before(device, stream, me, held, true)? {
            return Ok(Order::NeedsCaptureHold);
        }
        self.last_stream = Some(stream.clone());
        self.last_thread = me;
        self.event_is_current = false;
        self.last_mark = stream.current_mark();
        self.unnoted_reads_mark = 0;
        Ok(Order::Done)
    }
}

/// `hipStreamPerThread`'s handle.
const PER_THREAD_STREAM: usize = 2;

fn is_per_thread(s: &Stream) -> bool {
    s.as_raw() as usize == PER_THREAD_STREAM
}

/// Whether work enqueued on `a` (by thread `a_thread`) and then on `b` (by
/// thread `b_thread`) runs in that order. The handle `a` is held by the
/// history, so its raw handle names no other stream meanwhile; the null
/// handle is one stream per device; the per-thread handle is one stream
/// per device and thread.
fn is_same_stream(a: &Stream, a_thread: ThreadToken, b: &Stream, b_thread: ThreadToken) -> bool {
    a.as_raw() == b.as_raw()
        && a.device().ordinal() == b.device().ordinal()
        && (!is_per_thread(a) || a_thread == b_thread)
}

/// Runs `f` with `device` current (events are made on, and recorded by,
/// the current device), then makes the previous device current again: the
/// caller's own binding is kept.
fn on_device<T>(device: &Device, f: impl FnOnce() -> Result<T>) -> Result<T> {
    crate::device::with_current_device(device.raw_ordinal(), f)
}

impl AccessEvents {
    /// Tracking for memory of `device`. No event is made yet: events are
    /// made when another stream first has to wait for an access, and their
    /// errors come from that call. This never fails; the `Result` stays
    /// from when it made two events, so that callers need not change.
    pub fn new(device: &Arc<Device>) -> Result<AccessEvents> {
        Ok(AccessEvents {
            device: Some(device.clone()),
            owner: Owner::none(),
            histories: Mutex::new(Histories::EMPTY),
        })
    }

    /// Tracking for new memory of `stream`'s device, written on `stream`
    /// (by the allocation): what [`AccessEvents::new`] and then
    /// [`AccessEvents::record_write`] make, without the lock.
    pub(crate) fn written_on(stream: &Stream) -> AccessEvents {
        let me = this_thread();
        let mark = stream.current_mark();
        AccessEvents {
            device: Some(stream.device().clone()),
            owner: Owner {
                sole: AtomicBool::new(true),
                raw: stream.as_raw() as usize,
                ordinal: stream.device().ordinal(),
                thread: me,
                read_mark: AtomicU64::new(0),
                write_mark: AtomicU64::new(mark),
                order_id: stream.order_id(),
            },
            histories: Mutex::new(Histories {
                reads: AccessHistory::EMPTY,
                writes: AccessHistory {
                    last_stream: Some(stream.clone()),
                    last_thread: me,
                    event: None,
                    event_is_current: false,
                    last_mark: mark,
                    unnoted_reads_mark: 0,
                },
            }),
        }
    }

    /// No tracking: every method is a no-op, and the caller orders uses
    /// across streams.
    pub const fn untracked() -> AccessEvents {
        AccessEvents {
            device: None,
            owner: Owner::none(),
            histories: Mutex::new(Histories::EMPTY),
        }
    }

    /// Whether accesses are tracked.
    pub fn is_tracked(&self) -> bool {
        self.device.is_some()
    }

    /// Runs `step` on the histories under their lock; when it needs
    /// captures held back, takes the hold without the lock (a capturing
    /// thread may be waiting for it) and runs `step` again with it.
    fn update(
        &self,
        mut step: impl FnMut(&Arc<Device>, &mut Histories, Option<&CaptureHold<'_>>) -> Result<Order>,
    ) -> Result<()> {
        let Some(device) = &self.device else {
            return Ok(());
        };
        let mut hold = None;
        loop {
            let mut histories = self.lock();
            // Another stream (or thread) from here on: the histories
            // decide, for good. The owner's marks go into them: its writes
            // are the writes' history already, its reads in none.
            if self.owner.sole.swap(false, Ordering::AcqRel) {
                let writes = &mut histories.writes;
                let write_mark = self.owner.write_mark.load(Ordering::SeqCst);
                writes.last_mark = writes.last_mark.max(write_mark);
                writes.unnoted_reads_mark = self.owner.read_mark.load(Ordering::SeqCst);
            }
            let order = step(device, &mut histories, hold.as_ref())?;
            drop(histories);
            match order {
                Order::Done => return Ok(()),
                Order::NeedsCaptureHold if hold.is_none() => {
                    hold = Some(device.hold_captures(
                        "ordering after an access on another thread's per-thread stream",
                    )?);
                }
                Order::NeedsCaptureHold => {
                    return Err(Error::invalid(
                        "AccessEvents",
                        "asked for a capture hold while holding one",
                    ))
                }
            }
        }
    }

    /// Makes `stream` wait for the last write: no call when it was made on
    /// `stream`, else `hipStreamWaitEvent` (after `hipEventRecord` on the
    /// writer's stream, the first time); works across devices.
    pub fn wait_before_read(&self, stream: &Stream) -> Result<()> {
        let me = this_thread();
        if self.owner.is(stream, me) {
            return Ok(());
        }
        self.update(|device, h, held| h.writes.order_before(device, stream, me, held, false))
    }

    /// Makes `stream` wait for the last read and the last write.
    pub fn wait_before_write(&self, stream: &Stream) -> Result<()> {
        let me = this_thread();
        if self.owner.is(stream, me) {
            return Ok(());
        }
        self.update(|device, h, held| {
            match h.reads.order_before(device, stream, me, held, true)? {
                Order::Done => h.writes.order_before(device, stream, me, held, true),
                Order::NeedsCaptureHold => Ok(Order::NeedsCaptureHold),
            }
        })
    }

    /// Notes the end of a read enqueued on `stream` (of the memory's
    /// device).
    ///
    /// When earlier reads were on another stream, `stream` first waits for
    /// them, so that a writer or a free waiting for the reads waits for
    /// all of them.
    pub fn record_read(&self, stream: &Stream) -> Result<()> {
        self.record(stream, false, this_thread())
    }

    /// Notes the end of a write enqueued on `stream` (of the memory's
    /// device).
    pub fn record_write(&self, stream: &Stream) -> Result<()> {
        self.record(stream, true, this_thread())
    }

    /// Notes a read or write enqueued on `stream` by thread `me`.
    fn record(&self, stream: &Stream, write: bool, me: ThreadToken) -> Result<()> {
        if self.owner.is(stream, me) {
            // Read after the work was enqueued: see `Stream::current_mark`.
            let mark = if stream.order_id() == self.owner.order_id {
                stream.current_mark()
            } else {
                u64::MAX
            };
            let noted = if write {
                &self.owner.write_mark
            } else {
                &self.owner.read_mark
            };
            // Marks are taken only by forks and joins: in a loop on one
            // stream the mark is unchanged and this is one load.
            if noted.load(Ordering::SeqCst) < mark {
                noted.fetch_max(mark, Ordering::SeqCst);
            }
            return Ok(());
        }
        if let Some(device) = &self.device {
            check_stream_device(device, stream)?;
        }
        self.update(|device, h, held| {
            let history = if write { &mut h.writes } else { &mut h.reads };
            history.note(device, stream, me, held)
        })
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
            error::record_result(self.synchronize());
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
    /// The thread that made the guard, which enqueues the work: the access
    /// is its, wherever the guard drops (for the per-thread stream).
    thread: ThreadToken,
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
        Ok(AccessGuard::recording(events, stream, write))
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
            thread: this_thread(),
        }
    }
}

impl Drop for AccessGuard<'_> {
    fn drop(&mut self) {
        error::record_result(self.events.record(self.stream, self.write, self.thread));
    }
}

/// The ordering decisions, on the fake runtime: which events are made and
/// recorded where, and which waits are made. They need no GPU, and run
/// under Miri (`scripts/miri.sh`).
#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_runtime::{self, Call, FakeRuntime};
    use crate::result;

    const A: usize = 0x100;
    const B: usize = 0x200;
    const C: usize = 0x300;
    /// The first, second, ... event the fake makes.
    const E1: usize = 0x1010;
    const E2: usize = 0x1020;

    /// A fake runtime, installed until the guard drops, and its device 0.
    fn installed() -> (Arc<FakeRuntime>, fake_runtime::Installed, Arc<Device>) {
        let fake = FakeRuntime::new();
        let on = fake.install();
        (fake, on, fake_runtime::device(0))
    }

    fn stream(device: &Arc<Device>, handle: usize) -> Stream {
        // SAFETY: the handle is one the fake runtime knows; it is never
        // dereferenced, and the stream is borrowed (never destroyed).
        unsafe { Stream::from_raw_borrowed(device, fake_runtime::handle(handle)) }
    }

    fn record(event: usize, stream: usize) -> Call {
        Call::EventRecord { event, stream }
    }

    fn wait(stream: usize, event: usize) -> Call {
        Call::StreamWaitEvent { stream, event }
    }

    fn create(event: usize, device: i32) -> Call {
        Call::EventCreate { event, device }
    }

    #[test]
    fn accesses_on_one_stream_make_no_call() {
        let (fake, _on, dev) = installed();
        let a = stream(&dev, A);
        let x = AccessEvents::new(&dev).unwrap();
        for _ in 0..3 {
            x.wait_before_write(&a).unwrap();
            x.record_write(&a).unwrap();
            x.wait_before_read(&a).unwrap();
            x.record_read(&a).unwrap();
        }
        assert_eq!(fake.take_calls(true), []);
        assert_eq!(fake.live_event_count(), 0);
    }

    #[test]
    fn a_read_on_another_stream_waits_for_the_write_once_recorded() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        let x = AccessEvents::new(&dev).unwrap();
        x.record_write(&a).unwrap();
        x.wait_before_read(&b).unwrap();
        x.record_read(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E1, 0), record(E1, A), wait(B, E1)]
        );
        // Still current: the second reader waits without a new record.
        x.wait_before_read(&b).unwrap();
        assert_eq!(fake.take_calls(false), [wait(B, E1)]);
        // A new write on `a` makes the event stale: recorded again, and
        // the same event is reused.
        x.record_write(&a).unwrap();
        x.wait_before_read(&b).unwrap();
        assert_eq!(fake.take_calls(false), [record(E1, A), wait(B, E1)]);
        drop(x);
        assert_eq!(fake.take_calls(false), [Call::EventDestroy(E1)]);
        assert_eq!(fake.live_event_count(), 0);
    }

    #[test]
    fn new_memory_written_on_a_stream_orders_like_a_recorded_write() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        let x = AccessEvents::written_on(&a);
        assert!(x.is_tracked());
        // Without a call: the same stream needs no ordering.
        x.wait_before_write(&a).unwrap();
        assert_eq!(fake.take_calls(false), []);
        // Another stream waits for the allocation's write, as after
        // `new` and `record_write`.
        x.wait_before_read(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E1, 0), record(E1, A), wait(B, E1)]
        );
    }

    #[test]
    fn the_allocations_own_stream_takes_no_lock_until_another_comes() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        let x = AccessEvents::written_on(&a);
        // Reads and writes on `a` alone: no call, no lock (the lock is
        // held here, so a path that took it would deadlock).
        {
            let _held = x.lock();
            x.wait_before_read(&a).unwrap();
            x.record_read(&a).unwrap();
            x.wait_before_write(&a).unwrap();
            x.record_write(&a).unwrap();
        }
        assert!(x.owner.sole.load(Ordering::Acquire));
        assert_eq!(fake.take_calls(false), []);
        // A writer on `b` waits for all of `a`'s work (the reads were not
        // noted: the event at `a`'s end follows them) and ends the owner.
        x.wait_before_write(&b).unwrap();
        assert!(!x.owner.sole.load(Ordering::Acquire));
        assert_eq!(
            fake.take_calls(false),
            [create(E1, 0), record(E1, A), wait(B, E1)]
        );
        x.record_write(&b).unwrap();
        fake.take_calls(false);
        // From now on `a` is one stream among others: it waits for `b`.
        x.wait_before_read(&a).unwrap();
        assert_eq!(fake.take_calls(false), [record(E1, B), wait(A, E1)]);
    }

    #[test]
    fn a_read_on_another_stream_follows_the_owners_unnoted_reads_and_writes() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        let x = AccessEvents::written_on(&a);
        x.record_read(&a).unwrap();
        x.wait_before_read(&b).unwrap();
        x.record_read(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E1, 0), record(E1, A), wait(B, E1)]
        );
        // A write on `a` now waits for the read on `b`.
        x.wait_before_write(&a).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E2, 0), record(E2, B), wait(A, E2)]
        );
    }

    const E3: usize = 0x1030;
    const E4: usize = 0x1040;

    /// `b.wait_for(a)`, checked: a fresh event, recorded on `a`, waited
    /// for on `b`, destroyed.
    fn fork(fake: &FakeRuntime, b: &Stream, a: &Stream, event: usize) {
        b.wait_for(a).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [
                create(event, 0),
                record(event, a.as_raw() as usize),
                wait(b.as_raw() as usize, event),
                Call::EventDestroy(event)
            ]
        );
    }

    #[test]
    fn a_stream_that_waited_for_another_uses_its_earlier_memory_without_a_wait() {
        // cudarc's `test_par_launch` and `test_multi_stream_concurrent_reads`:
        // buffers made on `a`, then `b = a.fork()`, then a kernel on each
        // that reads one buffer and writes its own.
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        let src = AccessEvents::written_on(&a);
        let (dst1, dst2) = (AccessEvents::written_on(&a), AccessEvents::written_on(&a));
        src.record_read(&a).unwrap();
        fork(&fake, &b, &a, E1);
        // The kernel on `a`: reads `src`, writes `dst1`.
        src.record_read(&a).unwrap();
        dst1.record_write(&a).unwrap();
        // The kernel on `b`: no wait, though `a` has read `src` since.
        src.wait_before_read(&b).unwrap();
        dst2.wait_before_write(&b).unwrap();
        src.record_read(&b).unwrap();
        dst2.record_write(&b).unwrap();
        assert_eq!(fake.take_calls(false), []);
        // Afterwards the histories order as before: a write of `src` on `a`
        // waits for the read on `b`.
        src.wait_before_write(&a).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E2, 0), record(E2, B), wait(A, E2)]
        );
    }

    #[test]
    fn accesses_after_the_wait_are_still_waited_for() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        let (x, y) = (AccessEvents::written_on(&a), AccessEvents::written_on(&a));
        fork(&fake, &b, &a, E1);
        // A write on `a` after the fork: a reader on `b` waits for it.
        x.record_write(&a).unwrap();
        x.wait_before_read(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E2, 0), record(E2, A), wait(B, E2)]
        );
        // A read on `a` after the fork: a writer on `b` waits for it (the
        // read was noted only in the owner's mark), a reader does not.
        y.record_read(&a).unwrap();
        y.wait_before_read(&b).unwrap();
        assert_eq!(fake.take_calls(false), []);
        y.wait_before_write(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E3, 0), record(E3, A), wait(B, E3)]
        );
    }

    #[test]
    fn only_wait_for_teaches_the_order() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        // A user's event: it could be recorded again elsewhere through the
        // raw API, so waiting for it teaches nothing.
        let x = AccessEvents::written_on(&a);
        let e = Event::with_timing(&dev, false).unwrap();
        e.record(&a).unwrap();
        b.wait_event(&e).unwrap();
        fake.take_calls(false);
        x.wait_before_read(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E2, 0), record(E2, A), wait(B, E2)]
        );
        // The other way round: `a` waited for `b`, which says nothing of
        // `b` following `a`.
        let y = AccessEvents::written_on(&a);
        fork(&fake, &a, &b, E3);
        y.wait_before_read(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E4, 0), record(E4, A), wait(B, E4)]
        );
    }

    #[test]
    fn another_handle_of_the_same_stream_counts_no_marks_it_does_not_own() {
        let (fake, _on, dev) = installed();
        // `a2` is `a`'s raw stream made into a second handle, whose marks
        // count apart: its accesses are noted as unknown.
        let (a, a2, b) = (stream(&dev, A), stream(&dev, A), stream(&dev, B));
        let (x, y) = (AccessEvents::written_on(&a), AccessEvents::written_on(&a));
        fork(&fake, &b, &a, E1);
        x.record_write(&a2).unwrap();
        x.wait_before_read(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E2, 0), record(E2, A), wait(B, E2)]
        );
        // In the histories too: a write through `a2`, after the owner has
        // gone, is not taken for one `b` follows.
        y.wait_before_read(&b).unwrap();
        y.record_read(&b).unwrap();
        assert_eq!(fake.take_calls(false), []);
        y.wait_before_write(&a2).unwrap();
        y.record_write(&a2).unwrap();
        fake.take_calls(false);
        y.wait_before_read(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E4, 0), record(E4, A), wait(B, E4)]
        );
    }

    #[test]
    fn the_per_thread_streams_owner_is_one_thread() {
        let fake = FakeRuntime::new();
        let dev = fake_runtime::device(0);
        let pt = Stream::per_thread(&dev);
        let x = {
            let _on = fake.install();
            let x = AccessEvents::written_on(&pt);
            x.record_write(&pt).unwrap();
            x
        };
        assert!(x.owner.sole.load(Ordering::Acquire));
        assert_eq!(fake.take_calls(true), []);
        // The same handle on another thread is another stream: not the
        // owner; it follows the first thread's work through the null
        // stream.
        std::thread::scope(|s| {
            s.spawn(|| {
                let _on = fake.install();
                x.wait_before_read(&pt).unwrap();
                assert_eq!(
                    fake.take_calls(false),
                    [create(E1, 0), record(E1, 0), wait(PER_THREAD_STREAM, E1)]
                );
            });
        });
        assert!(!x.owner.sole.load(Ordering::Acquire));
        let _on = fake.install();
        drop(x);
        assert_eq!(fake.live_event_count(), 0);
    }

    #[test]
    fn readers_on_a_second_stream_wait_for_the_first_so_one_stream_stands_for_all() {
        let (fake, _on, dev) = installed();
        let (a, b, c) = (stream(&dev, A), stream(&dev, B), stream(&dev, C));
        let x = AccessEvents::new(&dev).unwrap();
        x.record_read(&a).unwrap();
        assert_eq!(fake.take_calls(false), []);
        // The read on `b` first orders `b` after the read on `a`.
        x.record_read(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E1, 0), record(E1, A), wait(B, E1)]
        );
        // A writer on `c` waits for the reads through `b` alone; there was
        // no write to wait for.
        x.wait_before_write(&c).unwrap();
        assert_eq!(fake.take_calls(false), [record(E1, B), wait(C, E1)]);
        x.record_write(&c).unwrap();
        // A writer back on `b` waits for the write on `c` (a second event)
        // and for the reads, which `b` itself made last.
        x.wait_before_write(&b).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E2, 0), record(E2, C), wait(B, E2)]
        );
        drop(x);
        let mut destroyed = fake.take_calls(false);
        destroyed.sort_by_key(|c| format!("{c:?}"));
        assert_eq!(destroyed, [Call::EventDestroy(E1), Call::EventDestroy(E2)]);
    }

    #[test]
    fn untracked_memory_makes_no_call() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        assert!(!UNTRACKED.is_tracked());
        UNTRACKED.record_write(&a).unwrap();
        UNTRACKED.wait_before_write(&b).unwrap();
        UNTRACKED.record_read(&b).unwrap();
        UNTRACKED.wait_before_read(&a).unwrap();
        assert_eq!(fake.take_calls(true), []);
    }

    #[test]
    fn events_are_made_on_the_memorys_device_and_the_current_one_is_restored() {
        let fake = FakeRuntime::new();
        let _on = fake.install();
        let (dev0, dev1) = (fake_runtime::device(0), fake_runtime::device(1));
        let (a, b) = (stream(&dev1, A), stream(&dev1, B));
        let x = AccessEvents::new(&dev1).unwrap();
        x.record_write(&a).unwrap();
        // The caller's device (0) is current; the event belongs to 1.
        x.wait_before_read(&b).unwrap();
        let calls = fake.take_calls(true);
        assert!(calls.contains(&create(E1, 1)), "{calls:?}");
        assert!(calls.ends_with(&[wait(B, E1)]), "{calls:?}");
        assert_eq!(
            result::get_device().unwrap(),
            1,
            "b's wait binds b's device"
        );
        // Memory of device 1 refuses a stream of device 0, before any call.
        let other = stream(&dev0, C);
        assert!(x.record_read(&other).is_err());
        assert!(x.record_write(&other).is_err());
        assert_eq!(fake.take_calls(true), []);
    }

    #[test]
    fn one_threads_per_thread_stream_is_one_stream_and_costs_nothing() {
        let (fake, _on, dev) = installed();
        let pt = Stream::per_thread(&dev);
        let x = AccessEvents::new(&dev).unwrap();
        for _ in 0..3 {
            x.wait_before_write(&pt).unwrap();
            x.record_write(&pt).unwrap();
            x.wait_before_read(&pt).unwrap();
            x.record_read(&pt).unwrap();
        }
        assert_eq!(fake.take_calls(true), []);
        // A named stream used by the same thread: the event is recorded on
        // the per-thread handle, which names this thread's stream here.
        let a = stream(&dev, A);
        x.wait_before_read(&a).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E1, 0), record(E1, PER_THREAD_STREAM), wait(A, E1)]
        );
        assert_eq!(fake.live_event_count(), 1);
    }

    #[test]
    fn another_threads_per_thread_access_is_followed_through_the_null_stream() {
        let fake = FakeRuntime::new();
        let dev = fake_runtime::device(0);
        let x = AccessEvents::new(&dev).unwrap();
        let pt = Stream::per_thread(&dev);
        {
            let _on = fake.install();
            x.record_write(&pt).unwrap();
        }
        assert_eq!(fake.take_calls(true), []);
        std::thread::scope(|s| {
            s.spawn(|| {
                let _on = fake.install();
                // The same handle on another thread is another stream: its
                // read waits for the write, recorded on the null stream.
                x.wait_before_read(&pt).unwrap();
                x.record_read(&pt).unwrap();
                assert_eq!(
                    fake.take_calls(false),
                    [create(E1, 0), record(E1, 0), wait(PER_THREAD_STREAM, E1)]
                );
                // The event stays current for this thread's next read.
                x.wait_before_read(&pt).unwrap();
                assert_eq!(fake.take_calls(false), [wait(PER_THREAD_STREAM, E1)]);
            });
        });
        // Back on the writer's thread: the reads were this other thread's,
        // so a write here waits for them through the null stream too.
        let _on = fake.install();
        x.wait_before_write(&pt).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E2, 0), record(E2, 0), wait(PER_THREAD_STREAM, E2)]
        );
        drop(x);
        assert_eq!(fake.live_event_count(), 0);
    }

    #[test]
    fn a_capturing_thread_cannot_follow_another_threads_per_thread_stream() {
        let fake = FakeRuntime::new();
        let dev = fake_runtime::device(0);
        let x = AccessEvents::new(&dev).unwrap();
        let pt = Stream::per_thread(&dev);
        {
            let _on = fake.install();
            x.record_write(&pt).unwrap();
        }
        std::thread::scope(|s| {
            s.spawn(|| {
                let _on = fake.install();
                dev.capture_gate().enter(A);
                let err = x.wait_before_read(&stream(&dev, A)).unwrap_err();
                assert!(err.to_string().contains("capturing"), "{err}");
                assert_eq!(fake.take_calls(true), []);
                dev.capture_gate().leave(A);
                x.wait_before_read(&stream(&dev, A)).unwrap();
                assert_eq!(
                    fake.take_calls(false),
                    [create(E1, 0), record(E1, 0), wait(A, E1)]
                );
            });
        });
        let _on = fake.install();
        drop(x);
        assert_eq!(fake.live_event_count(), 0);
    }

    #[test]
    fn a_guard_records_for_the_thread_that_began_it() {
        let (fake, _on, dev) = installed();
        let pt = Stream::per_thread(&dev);
        let x = AccessEvents::new(&dev).unwrap();
        let guard = AccessGuard::begin(&x, &pt, true).unwrap();
        // Dropped on another thread, the write is still this thread's.
        let other = fake.clone();
        std::thread::scope(|s| {
            s.spawn(move || {
                let _on = other.install();
                drop(guard);
            });
        });
        x.wait_before_read(&pt).unwrap();
        assert_eq!(fake.take_calls(true), []);
    }

    #[test]
    fn a_guard_waits_when_begun_and_records_when_dropped() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        let x = AccessEvents::new(&dev).unwrap();
        {
            let _w = AccessGuard::begin(&x, &a, true).unwrap();
            assert_eq!(fake.take_calls(false), []);
        }
        {
            let g = AccessGuard::begin(&x, &b, false).unwrap();
            assert_eq!(
                fake.take_calls(false),
                [create(E1, 0), record(E1, A), wait(B, E1)]
            );
            assert!(format!("{g:?}").contains("write: false"));
        }
        // The read on `b` was recorded by the drop: a write on `a` now
        // waits for it.
        drop(AccessGuard::recording(&x, &a, true));
        x.wait_before_write(&a).unwrap();
        assert_eq!(
            fake.take_calls(false),
            [create(E2, 0), record(E2, B), wait(A, E2)]
        );
    }

    #[test]
    fn a_failed_record_after_the_work_synchronizes_the_stream() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        let x = AccessEvents::new(&dev).unwrap();
        x.record_write(&a).unwrap();
        let out: Result<u32> = b.enqueue_tracked(&[], &[&x], || {
            // The wait before the work was made; the one that recording
            // the write on `b` makes will fail.
            fake.fail_next(|c| matches!(c, Call::StreamWaitEvent { .. }));
            Ok(7)
        });
        assert!(out.is_err());
        assert_eq!(
            fake.take_calls(false),
            [
                create(E1, 0),
                record(E1, A),
                wait(B, E1),
                Call::StreamSynchronize(B)
            ]
        );
        // The history kept its last good state: `a` still stands for the
        // writes, with its event current.
        x.wait_before_read(&b).unwrap();
        assert_eq!(fake.take_calls(false), [wait(B, E1)]);
        let ok: Result<u32> = b.enqueue_tracked(&[&x], &[], || Ok(8));
        assert_eq!(ok.unwrap(), 8);
    }

    #[test]
    fn a_failed_event_creation_leaves_the_history_usable() {
        let (fake, _on, dev) = installed();
        let (a, b) = (stream(&dev, A), stream(&dev, B));
        let x = AccessEvents::new(&dev).unwrap();
        x.record_write(&a).unwrap();
        fake.fail_next(|c| matches!(c, Call::EventCreate { .. }));
        assert!(x.wait_before_read(&b).is_err());
        assert_eq!(fake.live_event_count(), 0);
        x.wait_before_read(&b).unwrap();
        assert_eq!(fake.live_event_count(), 1);
    }

    #[test]
    fn threads_share_one_history() {
        let fake = FakeRuntime::new();
        let dev = fake_runtime::device(0);
        let x = AccessEvents::new(&dev).unwrap();
        let writer = stream(&dev, A);
        {
            let _on = fake.install();
            x.record_write(&writer).unwrap();
        }
        std::thread::scope(|s| {
            for (i, h) in [B, C].into_iter().enumerate() {
                let (fake, x, dev) = (&fake, &x, &dev);
                let writer = writer.clone();
                s.spawn(move || {
                    let _on = fake.install();
                    let mine = stream(dev, h);
                    for _ in 0..2 {
                        x.wait_before_read(&mine).unwrap();
                        x.record_read(&mine).unwrap();
                    }
                    drop(writer);
                    i
                });
            }
        });
        let calls = fake.take_calls(false);
        // One event for the writes, recorded once on `a`; each reader
        // waits for it twice.
        assert_eq!(calls.iter().filter(|c| **c == create(E1, 0)).count(), 1);
        assert_eq!(calls.iter().filter(|c| **c == record(E1, A)).count(), 1);
        for h in [B, C] {
            assert_eq!(calls.iter().filter(|c| **c == wait(h, E1)).count(), 2);
        }
        let _on = fake.install();
        drop(x);
        assert_eq!(fake.live_event_count(), 0);
    }
}
