//! Copies between ordinary (pageable) host memory and the device, staged
//! through reused pinned buffers.
//!
//! A copy from pageable memory cannot be done by the GPU's DMA engines
//! directly: the runtime copies through its own small staging buffers one
//! piece at a time, which reaches a fraction of the link's bandwidth
//! (measured on an H200: 8.5 GB/s host-to-device and 16.4 GB/s
//! device-to-host from pageable memory, against 55.4 GB/s from pinned
//! memory).
//!
//! Here a copy is cut into chunks of [`STAGING_CHUNK_BYTES`] (smaller ones
//! first, so that the pipeline fills quickly) that go through a ring of
//! pinned buffers. The calling thread alone talks to the
//! runtime: it enqueues one `hipMemcpyAsync` per chunk, in address order,
//! on the caller's stream, and records an event after each. The host-side
//! `memcpy` between the caller's memory and the pinned buffers (one thread
//! moves only 10 to 15 GB/s) is cut into pieces that a pool of persistent
//! host threads copies in parallel, several chunks ahead of the DMA
//! (host-to-device) or right behind it (device-to-host). Those threads
//! never call the runtime, so they pay no per-thread runtime setup, and
//! they live for the whole process, so a copy starts no thread.
//!
//! The pinned rings are allocated on first use (`hipHostMalloc`) and kept
//! in a pool per device for the life of the process, so steady-state copies
//! allocate nothing. Copies below [`STAGING_MIN_BYTES`] go directly.
//!
//! The number of host copy threads is at most [`MAX_HOST_THREADS`] and two
//! less than the processors available; the environment variable
//! `HIP_STAGING_THREADS` (read once, on the first staged copy) sets it
//! instead, for measuring. A copy never waits for a thread that is not
//! there: while it waits for its host pieces, the calling thread copies
//! queued pieces itself.
//!
//! Two other ways to make a large pageable copy can be chosen with the
//! environment variable `HIP_STAGING_STRATEGY` (read once), or per copy
//! ([`Stream::copy_htod_pageable_with`]), for measuring them against the
//! default on a given machine ([`StagingStrategy`]): the same ring with
//! the host pieces written by non-temporal stores (`ring-nt`), and
//! page-locking the caller's memory for the copy (`register`).

use crate::device::Device;
use crate::error::{Error, Result};
use crate::memory::{check_same_len, checked_bytes, DeviceMemory, DeviceMemoryMut, DeviceRepr};
use crate::result;
use crate::stream::{Event, Stream};
use hip_sys as sys;
use std::collections::VecDeque;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Bytes per staging chunk (one DMA): large enough that each DMA runs near
/// full speed (about 80 microseconds at 50 GB/s), small enough that the
/// first DMA starts soon after the copy does.
pub const STAGING_CHUNK_BYTES: usize = 4 << 20;

/// Copies of fewer bytes go directly: below this, staging costs more than
/// it saves.
pub const STAGING_MIN_BYTES: usize = 4 << 20;

/// Most persistent host threads copying pieces between pageable and pinned
/// memory (shared by every device and every staged copy).
const MAX_HOST_THREADS: usize = 12;

/// Pinned buffers in one copy's ring: the chunks being filled (or
/// drained) on the host, plus those whose DMA is queued or running.
const RING_BUFFERS: usize = 6;

/// Busy-wait iterations of a waiting copy before it yields its processor
/// between checks.
const SPINS_BEFORE_YIELD: u32 = 4096;

/// How long an idle host thread keeps looking for pieces before it sleeps:
/// longer than the gap between two chunks of one copy, so that the threads
/// stay awake for a whole copy.
const IDLE_SPIN: Duration = Duration::from_micros(500);

/// How many chunks the ring keeps between the host and the DMA side: the
/// caller reuses the buffer of chunk `n - RING_LAG` after it enqueued chunk
/// `n`, so that much DMA stays queued while it waits.
const RING_LAG: usize = 2;

/// The chunks of a host-to-device copy that fewer than this many bytes of
/// the copy follow (its tail) are written into the ring so that their
/// lines are not left in the writing cores' private caches
/// ([`Stores::Demoted`], else [`Stores::Streaming`]). A DMA reads lines
/// that are modified in a core's private cache slowly: in per-chunk
/// timelines of 64 MiB copies, such chunks ran at 31-41 GB/s against 52
/// GB/s on an H200 host (about 25 on an H100 host). Mid-copy that does
/// not happen: the fills of the next chunks push a chunk's lines out to
/// the shared cache before its DMA (16 MiB of later fills moves about 2.7
/// MiB, read and written, through each of 12 threads' 2 MiB private
/// caches). The tail has no such fills after it. Demoting the chunks
/// followed by less than 16 MiB took 64 MiB copies from 0.837 to 0.873 of
/// pinned bandwidth (256 MiB ones from 0.907 to 0.917), against streaming
/// stores for the last 4 chunks, on a 2xH200 host (A/B in one process,
/// rounds interleaved, 25 rounds). Demoting every chunk was slower at 256
/// MiB (0.848 against 0.911-0.914 with the tail alone, on an H200 host),
/// and demoting the first chunks as well gained nothing.
const TAIL_BYTES: usize = 16 << 20;

/// Smallest host piece: below this, handing a piece to another thread
/// costs about as much as copying it.
const MIN_PIECE_BYTES: usize = 64 << 10;

/// How a pageable copy of [`STAGING_MIN_BYTES`] or more is made. The
/// default comes from the environment variable `HIP_STAGING_STRATEGY`
/// (`ring`, `ring-nt` or `register`; read once), else [`StagingStrategy::Ring`].
/// The alternatives are there to be measured against the default
/// (`copy_bandwidth` in `benches` runs all three side by side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StagingStrategy {
    /// Through a ring of reused pinned buffers, the host half copied by
    /// the host threads with ordinary `memcpy` (the default; the last 16
    /// MiB of a host-to-device copy are then moved out of the writing
    /// cores' private caches with `cldemote`, or written with streaming
    /// stores where the processor lacks it, which their DMAs read faster).
    Ring,
    /// The same ring, the host pieces written with non-temporal (streaming)
    /// stores on x86-64: writing a destination then costs no read of it
    /// into the cache first (a third of the memory traffic of an ordinary
    /// copy), which matters when the host memcpy, not the DMA, is the
    /// bottleneck. Elsewhere the same as `Ring`.
    RingNonTemporal,
    /// Page-locks the caller's memory for the copy (`hipHostRegister`),
    /// makes one DMA straight from or into it, and unlocks it
    /// (`hipHostUnregister`): no host copy at all, but registration costs
    /// time per page. When the memory cannot be registered (e.g. a page
    /// another copy has registered), the copy goes through the ring.
    Register,
}

impl StagingStrategy {
    /// The strategy named by `HIP_STAGING_STRATEGY` (read once), or
    /// [`StagingStrategy::Ring`] when it is not set. Another value is an
    /// error naming the accepted ones (an override that silently fell back
    /// would hide the mistake it was set to explore).
    pub fn from_env() -> Result<StagingStrategy> {
        static CHOSEN: OnceLock<std::result::Result<StagingStrategy, String>> = OnceLock::new();
        CHOSEN
            .get_or_init(|| match std::env::var("HIP_STAGING_STRATEGY") {
                Err(_) => Ok(StagingStrategy::Ring),
                Ok(v) => StagingStrategy::parse(&v).ok_or(v),
            })
            .clone()
            .map_err(|v| {
                Error::invalid(
                    "HIP_STAGING_STRATEGY",
                    format!("{v:?} is none of `ring`, `ring-nt`, `register`"),
                )
            })
    }

    /// The strategy of a name (`ring`, `ring-nt`, `register`; surrounding
    /// blanks ignored).
    pub fn parse(name: &str) -> Option<StagingStrategy> {
        match name.trim() {
            "ring" => Some(StagingStrategy::Ring),
            "ring-nt" => Some(StagingStrategy::RingNonTemporal),
            "register" => Some(StagingStrategy::Register),
            _ => None,
        }
    }

    /// Its name, as [`StagingStrategy::parse`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            StagingStrategy::Ring => "ring",
            StagingStrategy::RingNonTemporal => "ring-nt",
            StagingStrategy::Register => "register",
        }
    }
}

/// Copies `len` bytes from `from` to `to` with non-temporal (streaming)
/// stores on x86-64 (SSE2, always there), so that the destination is not
/// read into the cache before it is overwritten; an ordinary copy
/// elsewhere. Ends with a store fence: streaming stores are weakly
/// ordered, and whoever is told that the copy is done (a latch's release)
/// must see them.
///
/// # Safety
///
/// As `std::ptr::copy_nonoverlapping`: both ranges valid for `len` bytes,
/// disjoint.
unsafe fn copy_streaming(from: *const u8, to: *mut u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
        // Bytes until `to` is 16-byte aligned, as streaming stores need.
        let head = (to as usize).wrapping_neg() & 15;
        if len < head + 64 {
            // SAFETY: the caller's promise.
            unsafe { std::ptr::copy_nonoverlapping(from, to, len) };
            return;
        }
        // SAFETY: every access below lies within the caller's `len` bytes
        // (`head + 64 * blocks + tail == len`); the stores are to 16-byte
        // aligned addresses (after `head`); SSE2 is part of x86-64.
        unsafe {
            std::ptr::copy_nonoverlapping(from, to, head);
            let (mut src, mut dst) = (from.add(head), to.add(head));
            let mut left = len - head;
            while left >= 64 {
                let a = _mm_loadu_si128(src.cast::<__m128i>());
                let b = _mm_loadu_si128(src.add(16).cast::<__m128i>());
                let c = _mm_loadu_si128(src.add(32).cast::<__m128i>());
                let d = _mm_loadu_si128(src.add(48).cast::<__m128i>());
                _mm_stream_si128(dst.cast::<__m128i>(), a);
                _mm_stream_si128(dst.add(16).cast::<__m128i>(), b);
                _mm_stream_si128(dst.add(32).cast::<__m128i>(), c);
                _mm_stream_si128(dst.add(48).cast::<__m128i>(), d);
                src = src.add(64);
                dst = dst.add(64);
                left -= 64;
            }
            std::ptr::copy_nonoverlapping(src, dst, left);
            _mm_sfence();
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    // SAFETY: the caller's promise.
    unsafe {
        std::ptr::copy_nonoverlapping(from, to, len)
    };
}

/// How a host piece writes its destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stores {
    /// Ordinary stores (`memcpy`): the lines stay in the writing core's
    /// caches.
    Cached,
    /// Ordinary stores, then each written line demoted from the writing
    /// core's private caches to the shared last-level cache (`cldemote`,
    /// where [`cldemote_available`]): a DMA then reads it at full speed.
    Demoted,
    /// Non-temporal stores ([`copy_streaming`]): the lines go to memory.
    Streaming,
}

/// Whether this processor has `cldemote` (CPUID leaf 7, ECX bit 25: Intel
/// from Sapphire Rapids and Tremont on). Elsewhere the instruction's
/// encoding is a no-op hint, so demoting would silently do nothing.
fn cldemote_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // `__cpuid_count` is safe from Rust 1.89 on; unsafe before.
        #[allow(unused_unsafe)]
        // SAFETY: CPUID exists on every x86-64 processor, and leaf 7 is
        // answered (with zeros where not implemented) on all of them.
        let leaf7 = unsafe { std::arch::x86_64::__cpuid_count(7, 0) };
        leaf7.ecx & (1 << 25) != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Moves the cache lines of `[at, at + len)` that this core's private
/// caches hold out to the shared cache (`cldemote` per line, a hint: no
/// data changes, nothing faults). Does nothing off x86-64.
///
/// # Safety
///
/// The range must be mapped memory (it is only named, never read or
/// written).
unsafe fn demote_lines(at: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        let end = at as usize + len;
        let mut line = at as usize & !63;
        while line < end {
            // SAFETY: `line` lies within a mapped range (the caller's
            // promise, rounded down to its cache line); cldemote reads and
            // writes no data, and is a no-op hint on processors without it.
            unsafe {
                std::arch::asm!(
                    "cldemote byte ptr [{0}]",
                    in(reg) line,
                    options(nostack, preserves_flags, readonly)
                )
            };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (at, len);
}

/// How the host pieces of a host-to-device chunk that `after` bytes of
/// the copy follow are written: as the strategy's `stores` say, except
/// that cached stores become `tail` in the last [`TAIL_BYTES`].
fn fill_stores(stores: Stores, after: usize, tail: Stores) -> Stores {
    if stores == Stores::Cached && after < TAIL_BYTES {
        tail
    } else {
        stores
    }
}

/// The byte ranges of a copy of `total` bytes cut into chunks of `chunk`
/// bytes (the last one shorter), in order. `chunk` must be non-zero.
pub(crate) fn chunk_ranges(total: usize, chunk: usize) -> impl Iterator<Item = Range<usize>> {
    debug_assert!(chunk > 0);
    (0..total.div_ceil(chunk)).map(move |i| {
        let start = i * chunk;
        start..total.min(start + chunk)
    })
}

/// Sizes of the first chunks of a large copy, smallest first: its first
/// DMA (host-to-device) or first host drain (device-to-host) starts after
/// a small chunk, not a whole [`STAGING_CHUNK_BYTES`].
const RAMP_UP_BYTES: [usize; 2] = [1 << 20, 2 << 20];

/// Sizes of the last chunks of a large copy, in both directions: a
/// device-to-host copy ends with the host drain of a small chunk, a
/// host-to-device copy with the DMA of one. On an H100 the ramp took 64 MiB
/// host-to-device copies from 0.742 to 0.810 of pinned bandwidth (A/B in
/// one run, `copy_bandwidth 256 7`).
const RAMP_DOWN_BYTES: [usize; 2] = [2 << 20, 1 << 20];

/// The byte ranges of a copy of `total` bytes, in order: the `head` sizes
/// first, then chunks of `chunk` bytes (the last of them shorter), then
/// the `tail` sizes; only chunks of `chunk` when `total` is shorter than
/// head, tail and one chunk together. `chunk` must be non-zero.
pub(crate) fn ramped_chunk_ranges(
    total: usize,
    chunk: usize,
    head: &[usize],
    tail: &[usize],
) -> Vec<Range<usize>> {
    let ramps: usize = head.iter().chain(tail).sum();
    if total < ramps + chunk {
        return chunk_ranges(total, chunk).collect();
    }
    let sizes = head
        .iter()
        .copied()
        .chain(chunk_ranges(total - ramps, chunk).map(|r| r.len()))
        .chain(tail.iter().copied());
    let mut start = 0;
    sizes
        .map(|len| {
            let range = start..start + len;
            start += len;
            range
        })
        .collect()
}

/// How many pieces a chunk of `len` bytes is cut into for `threads` host
/// threads: one per thread, but none under `min_piece` bytes (and at least
/// one piece).
pub(crate) fn piece_count(len: usize, threads: usize, min_piece: usize) -> usize {
    (len / min_piece.max(1)).clamp(1, threads.max(1))
}

/// The byte ranges of `range` cut into `pieces` nearly equal parts, in
/// order (sizes differ by at most one byte). `pieces` must be non-zero.
pub(crate) fn piece_ranges(
    range: Range<usize>,
    pieces: usize,
) -> impl Iterator<Item = Range<usize>> {
    debug_assert!(pieces > 0);
    let (start, len) = (range.start, range.len());
    (0..pieces).map(move |p| start + len * p / pieces..start + len * (p + 1) / pieces)
}

/// A countdown that the host copy pieces of one chunk share: the chunk's
/// bytes are in place once it reaches zero.
struct Latch {
    left: AtomicUsize,
}

impl Latch {
    fn new(count: usize) -> Arc<Latch> {
        Arc::new(Latch {
            left: AtomicUsize::new(count),
        })
    }

    fn count_down(&self) {
        // Release: the piece's bytes are written before the count drops.
        self.left.fetch_sub(1, Ordering::Release);
    }

    fn is_zero(&self) -> bool {
        // Acquire: pairs with `count_down`, so the bytes are visible.
        self.left.load(Ordering::Acquire) == 0
    }

    /// Returns once every piece has been copied, copying queued pieces
    /// (of any copy) on this thread meanwhile, so that it finishes even if
    /// no host thread could be started. Spins rather than sleeps: the
    /// wait is short (a chunk's memcpy), and a sleeping thread's wake-up
    /// in a virtual machine costs tens of microseconds, a chunk's DMA.
    fn wait(&self, pool: &HostCopyPool) {
        let mut spins = 0u32;
        while !self.is_zero() {
            if let Some(piece) = pool.try_pop() {
                piece.run();
            } else if spins < SPINS_BEFORE_YIELD {
                spins += 1;
                std::hint::spin_loop();
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// One host `memcpy` of a staged copy, done by whichever thread takes it.
struct Piece {
    from: *const u8,
    to: *mut u8,
    len: usize,
    stores: Stores,
    done: Arc<Latch>,
}

// SAFETY: plain addresses of host memory with no thread affinity; the copy
// that queued the piece keeps both ranges valid, and touches neither,
// until the piece's latch reaches zero (`Latch::wait` before it returns).
unsafe impl Send for Piece {}

/// Counts its piece down when dropped, so a latch reaches zero even if the
/// copy were to unwind.
struct CountDownOnDrop(Arc<Latch>);

impl Drop for CountDownOnDrop {
    fn drop(&mut self) {
        self.0.count_down();
    }
}

impl Piece {
    fn run(self) {
        let _done = CountDownOnDrop(self.done);
        // SAFETY: `from` and `to` are valid, disjoint ranges of `len` bytes
        // until the latch counts down (see `Piece`'s Send); nothing else
        // touches `to` meanwhile.
        unsafe {
            match self.stores {
                Stores::Streaming => copy_streaming(self.from, self.to, self.len),
                Stores::Cached => std::ptr::copy_nonoverlapping(self.from, self.to, self.len),
                Stores::Demoted => {
                    std::ptr::copy_nonoverlapping(self.from, self.to, self.len);
                    demote_lines(self.to, self.len);
                }
            }
        }
    }
}

/// The persistent host threads and their queue of pieces.
struct HostCopyPool {
    queue: Mutex<VecDeque<Piece>>,
    /// Pieces in `queue`, readable without the lock (for idle spinning).
    queued_len: AtomicUsize,
    queued: Condvar,
    /// Host threads asleep on `queued` (changed with the queue locked).
    sleepers: AtomicUsize,
    /// Threads started (those that could be).
    threads: usize,
    /// How the tail of a host-to-device copy is written ([`TAIL_BYTES`]):
    /// demoted where the processor can, else streamed.
    tail_stores: Stores,
}

impl HostCopyPool {
    fn queue(&self) -> MutexGuard<'_, VecDeque<Piece>> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn try_pop(&self) -> Option<Piece> {
        if self.queued_len.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.pop(&mut self.queue())
    }

    /// Takes the first piece of the locked queue.
    fn pop(&self, queue: &mut VecDeque<Piece>) -> Option<Piece> {
        let piece = queue.pop_front();
        if piece.is_some() {
            self.queued_len.fetch_sub(1, Ordering::Relaxed);
        }
        piece
    }

    /// Queues copies of `len` bytes from `from` to `to`, cut into pieces
    /// for the host threads; the returned latch reaches zero once all are
    /// copied.
    ///
    /// # Safety
    ///
    /// Both ranges must be valid for `len` bytes and disjoint, and must
    /// stay valid, with `to` not otherwise accessed, until the latch has
    /// been waited for (`Latch::wait`).
    unsafe fn copy(&self, from: *const u8, to: *mut u8, len: usize, stores: Stores) -> Arc<Latch> {
        let pieces = piece_count(len, self.threads, MIN_PIECE_BYTES);
        let done = Latch::new(pieces);
        let wake = {
            let mut queue = self.queue();
            for r in piece_ranges(0..len, pieces) {
                queue.push_back(Piece {
                    // SAFETY: `r` lies within `len` (`piece_ranges`).
                    from: unsafe { from.add(r.start) },
                    // SAFETY: as above.
                    to: unsafe { to.add(r.start) },
                    len: r.len(),
                    stores,
                    done: done.clone(),
                });
            }
            self.queued_len.fetch_add(pieces, Ordering::Relaxed);
            // A thread going to sleep checks the queue under the lock
            // first, so one that is not counted yet will find the pieces.
            self.sleepers.load(Ordering::Relaxed) > 0
        };
        if wake {
            // One thread, which wakes the others (`serve`): waking a
            // sleeping thread can cost this thread tens of microseconds
            // in a virtual machine, while the pieces wait.
            self.queued.notify_one();
        }
        done
    }

    /// A host thread's life: copy pieces as they come; when none is
    /// queued, look again for [`IDLE_SPIN`], then sleep until pieces are
    /// queued. The first thread woken wakes the others.
    fn serve(&self) {
        let mut idle_since: Option<Instant> = None;
        loop {
            if let Some(piece) = self.try_pop() {
                idle_since = None;
                piece.run();
                continue;
            }
            let since = *idle_since.get_or_insert_with(Instant::now);
            if since.elapsed() < IDLE_SPIN {
                std::hint::spin_loop();
                continue;
            }
            let (piece, wake_others) = {
                let mut queue = self.queue();
                loop {
                    if let Some(p) = self.pop(&mut queue) {
                        let others = !queue.is_empty() && self.sleepers.load(Ordering::Relaxed) > 0;
                        break (p, others);
                    }
                    self.sleepers.fetch_add(1, Ordering::Relaxed);
                    queue = self.queued.wait(queue).unwrap_or_else(|p| p.into_inner());
                    self.sleepers.fetch_sub(1, Ordering::Relaxed);
                }
            };
            if wake_others {
                self.queued.notify_all();
            }
            idle_since = None;
            piece.run();
        }
    }
}

/// How many host threads to start: `HIP_STAGING_THREADS` when set to a
/// number, else the processors less two (the caller's thread and the
/// runtime's), at most [`MAX_HOST_THREADS`].
fn host_thread_count() -> usize {
    if let Some(n) = std::env::var("HIP_STAGING_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        return n.min(64);
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .saturating_sub(2)
        .clamp(1, MAX_HOST_THREADS)
}

/// The process's host copy pool, its threads started on first use.
fn host_pool() -> &'static HostCopyPool {
    static POOL: OnceLock<&'static HostCopyPool> = OnceLock::new();
    POOL.get_or_init(|| {
        let wanted = host_thread_count();
        // Leaked on purpose: the threads serve it for the whole process.
        let pool: &'static HostCopyPool = Box::leak(Box::new(HostCopyPool {
            queue: Mutex::new(VecDeque::new()),
            queued_len: AtomicUsize::new(0),
            queued: Condvar::new(),
            sleepers: AtomicUsize::new(0),
            threads: wanted.max(1),
            tail_stores: if cldemote_available() {
                Stores::Demoted
            } else {
                Stores::Streaming
            },
        }));
        for i in 0..wanted {
            // A thread that cannot be started is not needed for progress:
            // waiting copies copy queued pieces themselves.
            let started = std::thread::Builder::new()
                .name(format!("hip-staging-{i}"))
                .spawn(move || pool.serve());
            if started.is_err() {
                break;
            }
        }
        pool
    })
}

/// One page-locked host allocation of [`STAGING_CHUNK_BYTES`] bytes.
struct PinnedChunk {
    ptr: *mut u8,
}

// SAFETY: a host allocation with no thread affinity; it is used by one copy
// at a time (a ring is owned by the copy that took it).
unsafe impl Send for PinnedChunk {}

impl PinnedChunk {
    fn new() -> Result<PinnedChunk> {
        let ptr = result::host_malloc(STAGING_CHUNK_BYTES, sys::hipHostMallocPortable)?.cast();
        Ok(PinnedChunk { ptr })
    }
}

impl Drop for PinnedChunk {
    fn drop(&mut self) {
        // SAFETY: our own hipHostMalloc allocation; a ring drops its chunks
        // only after every copy using them has finished (`Ring::settle`),
        // and leaks them otherwise.
        crate::drop_errors::record_result(unsafe { result::host_free(self.ptr.cast()) });
    }
}

/// A copy's pinned buffers, each with the event recorded after the last
/// DMA that used it.
struct Ring {
    buffers: Vec<PinnedChunk>,
    done: Vec<Event>,
    /// Whether `done[k]` marks a DMA that may still be running.
    in_flight: Vec<bool>,
}

impl Ring {
    fn new(device: &Arc<Device>) -> Result<Ring> {
        let mut buffers = Vec::with_capacity(RING_BUFFERS);
        let mut done = Vec::with_capacity(RING_BUFFERS);
        for _ in 0..RING_BUFFERS {
            buffers.push(PinnedChunk::new()?);
            done.push(Event::with_timing(device, false)?);
        }
        Ok(Ring {
            buffers,
            done,
            in_flight: vec![false; RING_BUFFERS],
        })
    }

    /// Waits for the last DMA using buffer `k`.
    fn wait(&mut self, k: usize) -> Result<()> {
        if self.in_flight[k] {
            self.done[k].synchronize()?;
            self.in_flight[k] = false;
        }
        Ok(())
    }

    /// Waits for every DMA using the ring's buffers.
    fn settle(&mut self) -> Result<()> {
        (0..self.buffers.len()).try_for_each(|k| self.wait(k))
    }
}

/// The reusable rings of one device.
struct DevicePool {
    rings: Mutex<Vec<Ring>>,
}

/// The pool of each device used so far, by ordinal.
type PoolsByOrdinal = Vec<(usize, Arc<DevicePool>)>;

/// The pool of `device`, created on first use.
fn pool(device: &Device) -> Arc<DevicePool> {
    static POOLS: OnceLock<Mutex<PoolsByOrdinal>> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(|| Mutex::new(Vec::new()))
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    let ordinal = device.ordinal();
    if let Some((_, p)) = pools.iter().find(|(o, _)| *o == ordinal) {
        return p.clone();
    }
    let p = Arc::new(DevicePool {
        rings: Mutex::new(Vec::new()),
    });
    pools.push((ordinal, p.clone()));
    p
}

impl DevicePool {
    /// Takes a ring, allocating one when the pool has none free. Concurrent
    /// copies on one device each get their own ring.
    fn take(&self, device: &Arc<Device>) -> Result<Ring> {
        let free = self.rings.lock().unwrap_or_else(|p| p.into_inner()).pop();
        match free {
            Some(ring) => Ok(ring),
            None => Ring::new(device),
        }
    }

    /// Returns a ring whose DMAs have all finished.
    fn put_back(&self, ring: Ring) {
        self.rings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(ring);
    }
}

/// Which way a staged copy goes.
#[derive(Clone, Copy)]
enum Direction {
    /// `host` is read, `device` written.
    HostToDevice,
    /// `device` is read, `host` written.
    DeviceToHost,
}

/// Host and device addresses of one copy.
#[derive(Clone, Copy)]
struct CopyEnds {
    host: *mut u8,
    device: *mut u8,
}

/// Copies `bytes` bytes between `ends.host` and `ends.device` through one
/// of the device's pinned rings, and waits for the copy.
///
/// # Safety
///
/// `ends.host` and `ends.device` must be valid for `bytes` bytes in the
/// direction of the copy (host memory readable for host-to-device, writable
/// and not otherwise accessed for device-to-host; device memory on the
/// stream's device) until this returns, and the stream must not be
/// capturing.
unsafe fn copy_staged(
    stream: &Stream,
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
    stores: Stores,
) -> Result<()> {
    let device = stream.device();
    let pool = pool(device);
    let host = host_pool();
    let mut ring = pool.take(device)?;
    // The host pieces queued for each ring buffer and not yet waited for.
    let mut pending: Vec<Option<Arc<Latch>>> = vec![None; ring.buffers.len()];
    // SAFETY: the caller's promise; `run_ring` queues host pieces only
    // through `pending`, which is drained below before we return.
    let outcome = unsafe {
        run_ring(
            stream,
            host,
            &mut ring,
            &mut pending,
            ends,
            bytes,
            dir,
            stores,
        )
    };
    // Whatever happened, no host piece may outlive the call: they touch
    // the caller's memory and the ring's buffers.
    for latch in pending.iter_mut().filter_map(Option::take) {
        latch.wait(host);
    }
    match outcome.and_then(|()| ring.settle()) {
        Ok(()) => {
            pool.put_back(ring);
            Ok(())
        }
        Err(e) => {
            // A failed call may leave a DMA untracked: wait for the whole
            // stream before the ring is reused; if even that fails, its
            // buffers may still be in use, so leak them.
            if stream.synchronize().is_ok() {
                ring.in_flight.iter_mut().for_each(|f| *f = false);
                pool.put_back(ring);
            } else {
                std::mem::forget(ring);
            }
            Err(e)
        }
    }
}

/// The chunk loop of a staged copy. Host pieces it queues are left in
/// `pending` (by ring buffer) when it returns early; DMAs it enqueued are
/// marked in `ring.in_flight` (set before the event is recorded, so a
/// failed record still counts as in flight).
///
/// # Safety
///
/// As [`copy_staged`]; the caller waits for every latch left in `pending`
/// before the host memory or the ring is used otherwise.
#[allow(clippy::too_many_arguments)] // one private call site, in `copy_staged`
unsafe fn run_ring(
    stream: &Stream,
    host: &HostCopyPool,
    ring: &mut Ring,
    pending: &mut [Option<Arc<Latch>>],
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
    stores: Stores,
) -> Result<()> {
    // The copies resolve through the current device (see `bind_for_copy`).
    stream.bind_for_copy()?;
    let raw = stream.as_raw();
    let chunks = ramped_chunk_ranges(bytes, STAGING_CHUNK_BYTES, &RAMP_UP_BYTES, &RAMP_DOWN_BYTES);
    let slots = ring.buffers.len();
    match dir {
        Direction::HostToDevice => {
            // Fill chunk `n` into its buffer (which no DMA may be reading).
            let fill = |ring: &Ring, pending: &mut [Option<Arc<Latch>>], n: usize| {
                let k = n % slots;
                let range = &chunks[n];
                let stores = fill_stores(stores, bytes - range.end, host.tail_stores);
                // SAFETY: the host range is within the caller's `bytes`; the
                // buffer holds STAGING_CHUNK_BYTES >= range.len() bytes and
                // no DMA reads it (its last one was waited for); the latch
                // goes into `pending`, waited for before anything reuses it.
                let latch = unsafe {
                    host.copy(
                        ends.host.add(range.start).cast_const(),
                        ring.buffers[k].ptr,
                        range.len(),
                        stores,
                    )
                };
                pending[k] = Some(latch);
            };
            for n in 0..chunks.len().min(slots) {
                fill(ring, pending, n);
            }
            for n in 0..chunks.len() {
                let k = n % slots;
                if let Some(latch) = pending[k].take() {
                    latch.wait(host);
                }
                let range = &chunks[n];
                // SAFETY: device range within the caller's `bytes`; buffer k
                // holds chunk n (waited above) and is not touched again
                // until `done[k]` is waited for.
                unsafe {
                    result::memcpy_async(
                        ends.device.add(range.start).cast(),
                        ring.buffers[k].ptr.cast_const().cast(),
                        range.len(),
                        sys::hipMemcpyKind::hipMemcpyHostToDevice,
                        raw,
                    )?;
                }
                ring.in_flight[k] = true;
                ring.done[k].record(stream)?;
                // With this DMA and the one before queued behind it, wait
                // for an older chunk's DMA and refill its buffer with the
                // next chunk that buffer takes.
                if n >= RING_LAG && n - RING_LAG + slots < chunks.len() {
                    ring.wait((n - RING_LAG) % slots)?;
                    fill(ring, pending, n - RING_LAG + slots);
                }
            }
        }
        Direction::DeviceToHost => {
            // Enqueue the DMA of chunk `n` into its buffer (which no host
            // piece may be touching).
            let fetch = |ring: &mut Ring, n: usize| -> Result<()> {
                let k = n % slots;
                let range = &chunks[n];
                // SAFETY: device range within the caller's `bytes`; buffer k
                // is free (its previous chunk was drained and waited for).
                unsafe {
                    result::memcpy_async(
                        ring.buffers[k].ptr.cast(),
                        ends.device.add(range.start).cast_const().cast(),
                        range.len(),
                        sys::hipMemcpyKind::hipMemcpyDeviceToHost,
                        raw,
                    )?;
                }
                ring.in_flight[k] = true;
                ring.done[k].record(stream)
            };
            for n in 0..chunks.len().min(slots) {
                fetch(ring, n)?;
            }
            for n in 0..chunks.len() {
                let k = n % slots;
                ring.wait(k)?;
                let range = &chunks[n];
                // SAFETY: the DMA into buffer k is over (waited above); the
                // host range is within the caller's `bytes` and only this
                // chunk's pieces write it; the latch goes into `pending`.
                let latch = unsafe {
                    host.copy(
                        ring.buffers[k].ptr.cast_const(),
                        ends.host.add(range.start),
                        range.len(),
                        stores,
                    )
                };
                pending[k] = Some(latch);
                // Reuse an older chunk's buffer once it is drained.
                if n >= RING_LAG && n - RING_LAG + slots < chunks.len() {
                    let kp = (n - RING_LAG) % slots;
                    if let Some(latch) = pending[kp].take() {
                        latch.wait(host);
                    }
                    fetch(ring, n - RING_LAG + slots)?;
                }
            }
        }
    }
    Ok(())
}

/// A copy of `bytes` bytes between pageable host memory and the device:
/// directly (one `hipMemcpyAsync`) below [`STAGING_MIN_BYTES`], staged
/// from there on; waits for it either way. Calls neither
/// [`Stream::copy_htod`] nor [`Stream::copy_dtoh`], so those may route
/// through here.
///
/// # Safety
///
/// As [`copy_staged`], except that the stream may be capturing (staged
/// copies are then refused).
unsafe fn copy_pageable(
    operation: &'static str,
    stream: &Stream,
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
    strategy: StagingStrategy,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    if bytes < STAGING_MIN_BYTES {
        // SAFETY: the caller's promise.
        return unsafe { copy_direct(stream, ends, bytes, dir) };
    }
    // A replay of a captured copy would read staging buffers that other
    // copies have refilled since (or memory registered only for the copy).
    stream.refuse_while_capturing(operation)?;
    if strategy == StagingStrategy::Register {
        // SAFETY: the caller's promise.
        if let Some(outcome) = unsafe { copy_registered(stream, ends, bytes, dir) } {
            return outcome;
        }
    }
    let stores = match strategy {
        StagingStrategy::RingNonTemporal => Stores::Streaming,
        StagingStrategy::Ring | StagingStrategy::Register => Stores::Cached,
    };
    // SAFETY: the caller's promise; the stream is not capturing.
    unsafe { copy_staged(stream, ends, bytes, dir, stores) }
}

/// [`StagingStrategy::Register`]: page-locks the host end
/// (`hipHostRegister`), copies directly and waits, then unlocks it.
/// `None` when the memory cannot be registered (nothing was done then).
///
/// # Safety
///
/// As [`copy_staged`].
unsafe fn copy_registered(
    stream: &Stream,
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
) -> Option<Result<()>> {
    if let Err(e) = stream.bind_for_copy() {
        return Some(Err(e));
    }
    let host = ends.host.cast::<std::ffi::c_void>();
    // SAFETY: the host end is valid for `bytes` bytes until we return
    // (the caller's promise), and is unregistered before that.
    if unsafe { result::host_register(host, bytes, sys::hipHostRegisterDefault) }.is_err() {
        return None;
    }
    // SAFETY: the caller's promise; it waits for the copy.
    match unsafe { copy_direct(stream, ends, bytes, dir) } {
        // SAFETY: registered above; the copy is over.
        Ok(()) => Some(unsafe { result::host_unregister(host) }),
        Err(e) => {
            // Unlock only when no DMA can still use the pages; else they
            // stay locked (a leak of locked pages, never a DMA into
            // unlocked memory).
            if stream.synchronize().is_ok() {
                // SAFETY: as above, the copy is over.
                crate::drop_errors::record_result(unsafe { result::host_unregister(host) });
            }
            Some(Err(e))
        }
    }
}

/// One `hipMemcpyAsync` between the two ends, waited for.
///
/// # Safety
///
/// As [`copy_staged`].
unsafe fn copy_direct(stream: &Stream, ends: CopyEnds, bytes: usize, dir: Direction) -> Result<()> {
    stream.bind_for_copy()?;
    let (to, from, kind) = match dir {
        Direction::HostToDevice => (
            ends.device,
            ends.host.cast_const(),
            sys::hipMemcpyKind::hipMemcpyHostToDevice,
        ),
        Direction::DeviceToHost => (
            ends.host,
            ends.device.cast_const(),
            sys::hipMemcpyKind::hipMemcpyDeviceToHost,
        ),
    };
    // SAFETY: both ends hold `bytes` bytes (the caller's promise), valid
    // until we return, and we wait for the copy below.
    unsafe { result::memcpy_async(to.cast(), from.cast(), bytes, kind, stream.as_raw()) }?;
    stream.synchronize()
}

/// Copies `bytes` bytes of device memory at `src` into host memory at
/// `dst`, staged when large (as [`Stream::copy_dtoh_pageable`]), and waits.
///
/// # Safety
///
/// `src` holds `bytes` bytes on `stream`'s device; `dst` is writable for
/// `bytes` bytes and not otherwise accessed until this returns.
pub(crate) unsafe fn copy_dtoh_raw(
    operation: &'static str,
    stream: &Stream,
    src: *const u8,
    dst: *mut u8,
    bytes: usize,
) -> Result<()> {
    let ends = CopyEnds {
        host: dst,
        device: src.cast_mut(),
    };
    let strategy = StagingStrategy::from_env()?;
    // SAFETY: the caller's promise.
    unsafe {
        copy_pageable(
            operation,
            stream,
            ends,
            bytes,
            Direction::DeviceToHost,
            strategy,
        )
    }
}

fn check_device(operation: &'static str, what: &str, stream: &Stream, got: &Device) -> Result<()> {
    let want = stream.device().ordinal();
    if got.ordinal() == want {
        Ok(())
    } else {
        Err(Error::invalid(
            operation,
            format!(
                "{what} is on device {} but the stream is on device {want}",
                got.ordinal()
            ),
        ))
    }
}

impl Stream {
    /// Copies ordinary (pageable) host memory to the device, staged through
    /// reused pinned buffers (`hipMemcpyAsync` from `hipHostMalloc`
    /// chunks), and waits for the copy to finish.
    ///
    /// The result is the same as [`Stream::copy_htod`]'s; copies of
    /// [`STAGING_MIN_BYTES`] or more are faster: host threads fill pinned
    /// chunks of [`STAGING_CHUNK_BYTES`] while the DMA of earlier chunks
    /// runs. Smaller copies go directly. The pinned buffers are allocated
    /// on a device's first staged copy and kept for later ones; the host
    /// threads are started on the process's first staged copy (as many as
    /// the environment variable `HIP_STAGING_THREADS` says, when set).
    ///
    /// Lengths must match and `dst` must be on this stream's device; the
    /// stream must not be capturing a graph (a replay would read staging
    /// buffers reused since). Large copies are made as
    /// `HIP_STAGING_STRATEGY` says ([`StagingStrategy::from_env`]; an
    /// unknown value is an error).
    ///
    /// # Example
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// let dev = hip::Device::get(0)?;
    /// let stream = hip::Stream::new(&dev)?;
    /// let host = vec![1.5f32; 64 << 20];
    /// let mut dev_buf = stream.alloc::<f32>(host.len())?;
    /// stream.copy_htod_pageable(&host, &mut dev_buf)?;
    /// let mut back = vec![0f32; host.len()];
    /// stream.copy_dtoh_pageable(&dev_buf, &mut back)?;
    /// assert_eq!(back, host);
    /// # Ok(())
    /// # }
    /// ```
    pub fn copy_htod_pageable<T: DeviceRepr>(
        &self,
        src: &[T],
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        self.copy_htod_pageable_with(src, dst, StagingStrategy::from_env()?)
    }

    /// [`Stream::copy_htod_pageable`] with large copies made as `strategy`
    /// says, whatever `HIP_STAGING_STRATEGY` is: for measuring the
    /// strategies side by side in one process.
    pub fn copy_htod_pageable_with<T: DeviceRepr>(
        &self,
        src: &[T],
        dst: &mut impl DeviceMemoryMut<T>,
        strategy: StagingStrategy,
    ) -> Result<()> {
        const OP: &str = "Stream::copy_htod_pageable";
        check_same_len(OP, src.len(), dst.len())?;
        check_device(OP, "the destination", self, dst.device())?;
        let bytes = checked_bytes::<T>(OP, src.len())?;
        let ends = CopyEnds {
            host: src.as_ptr().cast_mut().cast(),
            device: dst.device_ptr_mut().cast(),
        };
        // SAFETY: `src` holds `bytes` readable bytes and is only read
        // (host-to-device); `dst` holds `bytes` bytes on this stream's
        // device (checked above); both borrows outlive the call, which
        // waits for the copy (ordered after `dst`'s tracked accesses).
        self.enqueue_tracked(&[], &[dst.access_events()], || unsafe {
            copy_pageable(OP, self, ends, bytes, Direction::HostToDevice, strategy)
        })
    }

    /// Copies device memory into ordinary (pageable) host memory, staged
    /// through reused pinned buffers, and waits for the copy to finish.
    ///
    /// The device-to-host counterpart of [`Stream::copy_htod_pageable`]:
    /// the DMA fills pinned chunks while host threads copy earlier chunks
    /// out. The copy starts after the stream's earlier work.
    pub fn copy_dtoh_pageable<T: DeviceRepr>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut [T],
    ) -> Result<()> {
        self.copy_dtoh_pageable_with(src, dst, StagingStrategy::from_env()?)
    }

    /// [`Stream::copy_dtoh_pageable`] with large copies made as `strategy`
    /// says (see [`Stream::copy_htod_pageable_with`]).
    pub fn copy_dtoh_pageable_with<T: DeviceRepr>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut [T],
        strategy: StagingStrategy,
    ) -> Result<()> {
        const OP: &str = "Stream::copy_dtoh_pageable";
        check_same_len(OP, src.len(), dst.len())?;
        check_device(OP, "the source", self, src.device())?;
        let bytes = checked_bytes::<T>(OP, dst.len())?;
        let ends = CopyEnds {
            host: dst.as_mut_ptr().cast(),
            device: src.device_ptr().cast_mut().cast(),
        };
        // SAFETY: `dst` holds `bytes` writable bytes, exclusively borrowed;
        // any bytes are a valid `T` (DeviceRepr); `src` holds `bytes` bytes
        // on this stream's device and is only read; the call waits for the
        // copy (ordered after `src`'s last tracked write).
        self.enqueue_tracked(&[src.access_events()], &[], || unsafe {
            copy_pageable(OP, self, ends, bytes, Direction::DeviceToHost, strategy)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_their_names_and_nothing_else() {
        for s in [
            StagingStrategy::Ring,
            StagingStrategy::RingNonTemporal,
            StagingStrategy::Register,
        ] {
            assert_eq!(StagingStrategy::parse(s.name()), Some(s));
            assert_eq!(StagingStrategy::parse(&format!(" {} ", s.name())), Some(s));
        }
        for bad in ["", "Ring", "nt", "ring_nt", "registered"] {
            assert_eq!(StagingStrategy::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn streaming_copies_every_byte_at_any_alignment_and_length() {
        let src: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8 | 1).collect();
        for offset in [0usize, 1, 7, 15, 16, 33] {
            for len in [0usize, 1, 63, 64, 79, 80, 81, 1000, 4000] {
                let mut dst = vec![0u8; 4096 + 64];
                let end = offset + len;
                // SAFETY: both ranges lie within their vectors and are
                // disjoint (two allocations).
                unsafe { copy_streaming(src.as_ptr(), dst.as_mut_ptr().add(offset), len) };
                assert_eq!(&dst[offset..end], &src[..len], "offset {offset}, len {len}");
                assert!(
                    dst[..offset].iter().all(|&b| b == 0),
                    "before, {offset}/{len}"
                );
                assert!(dst[end..].iter().all(|&b| b == 0), "after, {offset}/{len}");
            }
        }
    }

    fn covered(ranges: impl Iterator<Item = Range<usize>>, total: usize) -> Vec<u32> {
        let mut hits = vec![0u32; total];
        for r in ranges {
            for h in &mut hits[r] {
                *h += 1;
            }
        }
        hits
    }

    #[test]
    fn chunks_cover_every_byte_once_in_order() {
        let chunk = 16;
        for total in [0, 1, 15, 16, 17, 31, 32, 33, 56, 160] {
            let ranges: Vec<_> = chunk_ranges(total, chunk).collect();
            assert_eq!(ranges.len(), total.div_ceil(chunk), "total {total}");
            assert!(ranges.iter().all(|r| !r.is_empty() && r.len() <= chunk));
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            assert!(covered(ranges.into_iter(), total).iter().all(|&h| h == 1));
        }
    }

    #[test]
    fn last_chunk_is_the_remainder() {
        let ranges: Vec<_> = chunk_ranges(56, 16).collect();
        assert_eq!(ranges, vec![0..16, 16..32, 32..48, 48..56]);
        assert_eq!(chunk_ranges(16, 16).collect::<Vec<_>>(), vec![0..16]);
        assert_eq!(
            chunk_ranges(17, 16).collect::<Vec<_>>(),
            vec![0..16, 16..17]
        );
    }

    #[test]
    fn ramped_chunks_cover_every_byte_once_in_order() {
        let (chunk, ramp) = (16, [2, 4]);
        for total in [0, 1, 15, 16, 17, 27, 28, 29, 43, 44, 45, 100, 1000] {
            let ranges = ramped_chunk_ranges(total, chunk, &ramp, &[4, 2]);
            assert!(ranges.iter().all(|r| !r.is_empty() && r.len() <= chunk));
            assert!(covered(ranges.into_iter(), total).iter().all(|&h| h == 1));
            let ranges = ramped_chunk_ranges(total, chunk, &ramp, &[]);
            assert!(ranges.iter().all(|r| !r.is_empty() && r.len() <= chunk));
            assert_eq!(ranges.first().map_or(0, |r| r.start), 0);
            assert_eq!(ranges.last().map_or(0, |r| r.end), total);
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            assert!(covered(ranges.into_iter(), total).iter().all(|&h| h == 1));
        }
    }

    #[test]
    fn large_copies_ramp_up_and_down() {
        let lens = |total| -> Vec<usize> {
            ramped_chunk_ranges(total, 16, &[2, 4], &[4, 2])
                .iter()
                .map(|r| r.len())
                .collect()
        };
        // Shorter than both ramps and a chunk: plain chunks.
        assert_eq!(lens(27), vec![16, 11]);
        assert_eq!(lens(28), vec![2, 4, 16, 4, 2]);
        assert_eq!(lens(45), vec![2, 4, 16, 16, 1, 4, 2]);
        assert_eq!(lens(60), vec![2, 4, 16, 16, 16, 4, 2]);
        // A ramp at the start only.
        let head_only = |total| -> Vec<usize> {
            ramped_chunk_ranges(total, 16, &[2, 4], &[])
                .iter()
                .map(|r| r.len())
                .collect()
        };
        assert_eq!(head_only(21), vec![16, 5]);
        assert_eq!(head_only(22), vec![2, 4, 16]);
        assert_eq!(head_only(45), vec![2, 4, 16, 16, 7]);
    }

    #[test]
    fn pieces_cover_the_range_once_in_order() {
        for (range, pieces) in [(0..1, 1), (5..6, 1), (3..103, 7), (0..1000, 8), (10..17, 7)] {
            let parts: Vec<_> = piece_ranges(range.clone(), pieces).collect();
            assert_eq!(parts.len(), pieces);
            assert_eq!(parts.first().map(|r| r.start), Some(range.start));
            assert_eq!(parts.last().map(|r| r.end), Some(range.end));
            assert!(parts.windows(2).all(|w| w[0].end == w[1].start));
            let (lo, hi) = (
                parts.iter().map(|r| r.len()).min().unwrap(),
                parts.iter().map(|r| r.len()).max().unwrap(),
            );
            assert!(hi - lo <= 1, "{parts:?}");
        }
    }

    #[test]
    fn piece_count_bounds() {
        // One piece per thread when the chunk is large enough.
        assert_eq!(piece_count(4 << 20, 8, 256 << 10), 8);
        // Never a piece under the minimum (except a lone short one).
        assert_eq!(piece_count(600 << 10, 8, 256 << 10), 2);
        assert_eq!(piece_count(100, 8, 256 << 10), 1);
        assert_eq!(piece_count(0, 8, 256 << 10), 1);
        // Degenerate arguments still give one piece.
        assert_eq!(piece_count(4 << 20, 0, 256 << 10), 1);
        assert_eq!(piece_count(4 << 20, 3, 0), 3);
    }

    #[test]
    fn host_pool_copies_every_piece_even_without_threads() {
        // A pool with no threads of its own: the waiting thread copies.
        let pool = HostCopyPool {
            queue: Mutex::new(VecDeque::new()),
            queued_len: AtomicUsize::new(0),
            queued: Condvar::new(),
            sleepers: AtomicUsize::new(0),
            threads: 4,
            tail_stores: Stores::Demoted,
        };
        let from: Vec<u8> = (0..3_000_001u32).map(|i| (i % 251) as u8 + 1).collect();
        for stores in [Stores::Cached, Stores::Demoted, Stores::Streaming] {
            let mut to = vec![0u8; from.len()];
            // SAFETY: both vectors hold `from.len()` bytes, are disjoint,
            // and outlive the wait below; `to` is not touched until then.
            let latch = unsafe { pool.copy(from.as_ptr(), to.as_mut_ptr(), from.len(), stores) };
            latch.wait(&pool);
            assert!(pool.try_pop().is_none());
            assert!(from == to, "a piece was not copied ({stores:?})");
        }
    }

    #[test]
    fn host_pool_threads_copy_concurrent_requests() {
        let pool = host_pool();
        std::thread::scope(|s| {
            for t in 0..3u8 {
                s.spawn(move || {
                    let from: Vec<u8> = (0..(5usize << 20) + t as usize)
                        .map(|i| (i as u8) ^ (t + 1))
                        .collect();
                    let mut to = vec![0u8; from.len()];
                    let stores = [Stores::Cached, Stores::Demoted, Stores::Streaming][t as usize];
                    // SAFETY: as in the test above.
                    let latch =
                        unsafe { pool.copy(from.as_ptr(), to.as_mut_ptr(), from.len(), stores) };
                    latch.wait(pool);
                    assert!(from == to, "thread {t}: a piece was not copied");
                });
            }
        });
    }

    #[test]
    fn only_the_tail_of_a_copy_is_demoted_and_ring_nt_streams_everything() {
        let cached = Stores::Cached;
        for tail in [Stores::Demoted, Stores::Streaming] {
            assert_eq!(fill_stores(cached, TAIL_BYTES, tail), Stores::Cached);
            assert_eq!(fill_stores(cached, 1 << 30, tail), Stores::Cached);
            assert_eq!(fill_stores(cached, TAIL_BYTES - 1, tail), tail);
            assert_eq!(fill_stores(cached, 0, tail), tail);
            for after in [0, TAIL_BYTES - 1, TAIL_BYTES, 1 << 30] {
                assert_eq!(
                    fill_stores(Stores::Streaming, after, tail),
                    Stores::Streaming
                );
            }
        }
    }

    #[test]
    fn demoting_changes_no_byte_at_any_alignment() {
        let src: Vec<u8> = (0..8192u32).map(|i| (i * 13 + 5) as u8).collect();
        let copy = src.clone();
        for (offset, len) in [(0, 0), (0, 1), (1, 63), (63, 2), (5, 4000), (0, 8192)] {
            // SAFETY: the range lies within `copy`.
            unsafe { demote_lines(copy.as_ptr().add(offset), len) };
            assert_eq!(copy, src, "offset {offset}, len {len}");
        }
    }

    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    #[test]
    fn cldemote_detection_agrees_with_the_kernel() {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo");
        let flags = cpuinfo
            .lines()
            .find(|l| l.starts_with("flags"))
            .expect("a flags line");
        let kernel = flags.split_whitespace().any(|f| f == "cldemote");
        assert_eq!(cldemote_available(), kernel, "{flags}");
    }

    #[test]
    fn thresholds_are_consistent() {
        // A staged copy has at least one full chunk.
        const { assert!(STAGING_MIN_BYTES >= STAGING_CHUNK_BYTES) };
        // The ring holds the chunks queued for DMA plus at least one more.
        const { assert!(RING_BUFFERS > RING_LAG) };
        // Ramp chunks fit the ring's buffers.
        const { assert!(RAMP_UP_BYTES[1] <= STAGING_CHUNK_BYTES) };
        const { assert!(RAMP_DOWN_BYTES[0] <= STAGING_CHUNK_BYTES) };
    }
}
