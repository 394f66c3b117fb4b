//! Copies between ordinary (pageable) host memory and the device, staged
//! through reused pinned buffers.
//!
//! A copy from pageable memory cannot be done by the GPU's DMA engines
//! directly: the runtime copies through its own small staging buffers one
//! piece at a time, which reaches a fraction of the link's bandwidth
//! (measured on an H200: 8.5 GB/s host-to-device and 16.4 GB/s
//! device-to-host from pageable memory, against 55.4 GB/s from pinned
//! memory). Here a large copy is cut into chunks; several host threads
//! each copy their chunks between the pageable memory and pinned buffers
//! of their own, while the DMA of the chunks they filled before is running.
//!
//! The pinned buffers are allocated on first use (`hipHostMalloc`) and kept
//! in a pool per device for the life of the process, so steady-state copies
//! allocate nothing. Copies below [`STAGING_MIN_BYTES`] go directly.

use crate::device::Device;
use crate::error::{Error, Result};
use crate::memory::{check_same_len, checked_bytes, DeviceMemory, DeviceMemoryMut, DeviceRepr};
use crate::result;
use crate::stream::{Event, Stream};
use hip_sys as sys;
use std::mem::ManuallyDrop;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

/// Bytes per staging chunk: large enough that each DMA runs near full
/// speed (a few tens of microseconds), small enough that the first DMA
/// starts soon after the copy does.
pub const STAGING_CHUNK_BYTES: usize = 2 << 20;

/// Copies of fewer bytes go directly: below this, starting the staging
/// threads costs more than it saves.
pub const STAGING_MIN_BYTES: usize = 4 << 20;

/// Most host threads one staged copy uses. One thread's `memcpy` moves
/// roughly 10 to 15 GB/s, a fraction of what a PCIe 5 x16 link's DMA
/// takes from pinned memory (about 55 GB/s), so several must fill chunks
/// at once to keep the DMA engine busy.
const MAX_WORKERS: usize = 8;

/// Pinned buffers per worker: one being filled or drained on the host while
/// the other's DMA runs.
const BUFFERS_PER_WORKER: usize = 2;

/// The byte ranges of a copy of `total` bytes cut into chunks of `chunk`
/// bytes (the last one shorter), in order. `chunk` must be non-zero.
pub(crate) fn chunk_ranges(total: usize, chunk: usize) -> impl Iterator<Item = Range<usize>> {
    debug_assert!(chunk > 0);
    (0..total.div_ceil(chunk)).map(move |i| {
        let start = i * chunk;
        start..total.min(start + chunk)
    })
}

/// How many workers a copy of `total` bytes uses: one per chunk, at most
/// `max_workers` (and at least one).
pub(crate) fn worker_count(total: usize, chunk: usize, max_workers: usize) -> usize {
    total.div_ceil(chunk).clamp(1, max_workers.max(1))
}

/// The chunks worker `worker` of `workers` handles: every `workers`-th one,
/// starting at its own index, so the chunks reach the stream roughly in
/// address order and every worker has the same share.
pub(crate) fn worker_chunks(
    total: usize,
    chunk: usize,
    workers: usize,
    worker: usize,
) -> impl Iterator<Item = Range<usize>> {
    chunk_ranges(total, chunk)
        .skip(worker)
        .step_by(workers.max(1))
}

/// One page-locked host allocation of [`STAGING_CHUNK_BYTES`] bytes.
struct PinnedChunk {
    ptr: *mut u8,
}

// SAFETY: a host allocation with no thread affinity; it is used by one
// worker at a time (a slot is owned by the worker that took it).
unsafe impl Send for PinnedChunk {}

impl PinnedChunk {
    fn new() -> Result<PinnedChunk> {
        let ptr = result::host_malloc(STAGING_CHUNK_BYTES, sys::hipHostMallocPortable)?.cast();
        Ok(PinnedChunk { ptr })
    }
}

impl Drop for PinnedChunk {
    fn drop(&mut self) {
        // SAFETY: our own hipHostMalloc allocation; a slot drops its chunks
        // only after every copy using them has finished (`Slot::settle`).
        crate::drop_errors::record_result(unsafe { result::host_free(self.ptr.cast()) });
    }
}

/// A worker's pinned buffers, each with the event recorded after the last
/// DMA that used it.
struct Slot {
    buffers: Vec<PinnedChunk>,
    done: Vec<Event>,
    /// Whether `done[k]` marks a DMA that may still be running.
    in_flight: Vec<bool>,
}

impl Slot {
    fn new(device: &Arc<Device>) -> Result<Slot> {
        let mut buffers = Vec::with_capacity(BUFFERS_PER_WORKER);
        let mut done = Vec::with_capacity(BUFFERS_PER_WORKER);
        for _ in 0..BUFFERS_PER_WORKER {
            buffers.push(PinnedChunk::new()?);
            done.push(Event::with_timing(device, false)?);
        }
        Ok(Slot {
            buffers,
            done,
            in_flight: vec![false; BUFFERS_PER_WORKER],
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

    /// Waits for every DMA using the slot's buffers. When that fails the
    /// buffers may still be in use: the slot must then never be reused or
    /// freed (`into_pool_or_leak`).
    fn settle(&mut self) -> Result<()> {
        (0..self.buffers.len()).try_for_each(|k| self.wait(k))
    }
}

/// The reusable slots of one device.
struct DevicePool {
    slots: Mutex<Vec<Slot>>,
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
        slots: Mutex::new(Vec::new()),
    });
    pools.push((ordinal, p.clone()));
    p
}

impl DevicePool {
    /// Takes `n` slots, allocating those the pool lacks. Concurrent copies
    /// on one device each get their own slots.
    fn take(&self, device: &Arc<Device>, n: usize) -> Result<Vec<Slot>> {
        let mut taken: Vec<Slot> = {
            let mut slots = self.slots.lock().unwrap_or_else(|p| p.into_inner());
            let keep = slots.len().saturating_sub(n);
            slots.drain(keep..).collect()
        };
        while taken.len() < n {
            match Slot::new(device) {
                Ok(s) => taken.push(s),
                Err(e) => {
                    // Fresh slots have nothing in flight.
                    self.put_back(taken);
                    return Err(e);
                }
            }
        }
        Ok(taken)
    }

    /// Returns slots whose DMAs have all finished.
    fn put_back(&self, slots: Vec<Slot>) {
        self.slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(slots);
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

/// Host and device addresses of one copy, shared by its workers.
#[derive(Clone, Copy)]
struct CopyEnds {
    host: *mut u8,
    device: *mut u8,
}

// SAFETY: plain addresses; each worker touches only its own disjoint chunks
// of them, and the copy's caller keeps both ranges valid until every worker
// has returned (they run inside a thread scope).
unsafe impl Send for CopyEnds {}
// SAFETY: as above: shared only to read the two addresses.
unsafe impl Sync for CopyEnds {}

/// Copies `bytes` bytes between `ends.host` and `ends.device` through the
/// device's pinned staging buffers, and waits for the copy.
///
/// # Safety
///
/// `ends.host` and `ends.device` must be valid for `bytes` bytes in the
/// direction of the copy (host memory readable for host-to-device, writable
/// and not otherwise accessed for device-to-host; device memory on the
/// stream's device) until this returns, and the stream must not be
/// capturing.
unsafe fn copy_staged(stream: &Stream, ends: CopyEnds, bytes: usize, dir: Direction) -> Result<()> {
    let device = stream.device();
    let workers = worker_count(bytes, STAGING_CHUNK_BYTES, max_workers());
    let pool = pool(device);
    let mut slots = pool.take(device, workers)?;
    let outcomes: Vec<Option<(Slot, Result<()>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = slots
            .drain(..)
            .enumerate()
            .map(|(worker, slot)| {
                scope.spawn(move || {
                    // Not dropped if this thread panics: its DMAs may still
                    // be running, so the buffers are leaked, never freed.
                    let mut slot = ManuallyDrop::new(slot);
                    // SAFETY: the caller's promise covers every chunk, and the
                    // workers' chunks are disjoint (`worker_chunks`).
                    let r =
                        unsafe { run_worker(stream, &mut slot, ends, bytes, dir, workers, worker) };
                    // Every DMA of this worker must be over before its slot
                    // is reused and before the caller's memory is released.
                    let settled = slot.settle();
                    (ManuallyDrop::into_inner(slot), r.and(settled))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().ok()).collect()
    });
    if outcomes.iter().any(Option::is_none) {
        // A worker panicked (nothing in it should): its DMAs are unknown,
        // so drain the stream before the caller's memory is released. The
        // other slots are settled and go back to the pool.
        let finished = outcomes.into_iter().flatten();
        if let Err(e) = stream.synchronize() {
            // Nothing is known to be over: leak every buffer.
            finished.for_each(std::mem::forget);
            return Err(e);
        }
        pool.put_back(finished.map(|(slot, _)| slot).collect());
        return Err(Error::invalid(
            "Stream::copy_pageable",
            "a staging thread panicked; the copy did not complete",
        ));
    }
    let mut first_err = None;
    let mut reusable = Vec::with_capacity(workers);
    for (mut slot, r) in outcomes.into_iter().flatten() {
        match r {
            Ok(()) => reusable.push(slot),
            Err(e) => {
                first_err.get_or_insert(e);
                // A failed record leaves a DMA untracked: wait for the
                // whole stream; if even that fails, leak the slot.
                if stream.synchronize().is_ok() && slot.settle().is_ok() {
                    reusable.push(slot);
                } else {
                    std::mem::forget(slot);
                }
            }
        }
    }
    pool.put_back(reusable);
    match first_err {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

fn max_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(MAX_WORKERS)
}

/// One worker's share of a staged copy.
///
/// # Safety
///
/// As [`copy_staged`]; no other worker uses the same chunks.
unsafe fn run_worker(
    stream: &Stream,
    slot: &mut Slot,
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
    workers: usize,
    worker: usize,
) -> Result<()> {
    // Calls on the null stream go to the calling thread's current device.
    stream.device().bind()?;
    let raw = stream.as_raw();
    match dir {
        Direction::HostToDevice => {
            for (n, range) in worker_chunks(bytes, STAGING_CHUNK_BYTES, workers, worker).enumerate()
            {
                let k = n % BUFFERS_PER_WORKER;
                let len = range.len();
                // The buffer's previous DMA must be over before refilling it.
                slot.wait(k)?;
                let pinned = slot.buffers[k].ptr;
                // SAFETY: `range` is within the caller's `bytes` host bytes;
                // the pinned buffer holds STAGING_CHUNK_BYTES >= len bytes and
                // no DMA reads it now (waited above).
                unsafe { std::ptr::copy_nonoverlapping(ends.host.add(range.start), pinned, len) };
                // SAFETY: device range within the caller's `bytes`; the pinned
                // buffer stays untouched until `done[k]` is waited for.
                unsafe {
                    result::memcpy_async(
                        ends.device.add(range.start).cast(),
                        pinned.cast(),
                        len,
                        sys::hipMemcpyKind::hipMemcpyHostToDevice,
                        raw,
                    )?;
                }
                // If the record fails, this DMA is untracked: the worker's
                // error makes the caller synchronize the whole stream before
                // the slot is reused.
                slot.in_flight[k] = true;
                slot.done[k].record(stream)?;
            }
        }
        Direction::DeviceToHost => {
            let chunks: Vec<Range<usize>> =
                worker_chunks(bytes, STAGING_CHUNK_BYTES, workers, worker).collect();
            let enqueue = |slot: &mut Slot, n: usize| -> Result<()> {
                let k = n % BUFFERS_PER_WORKER;
                let range = &chunks[n];
                // SAFETY: device range within the caller's `bytes`; buffer k
                // is free (its previous chunk was copied out before this).
                unsafe {
                    result::memcpy_async(
                        slot.buffers[k].ptr.cast(),
                        ends.device.add(range.start).cast_const().cast(),
                        range.len(),
                        sys::hipMemcpyKind::hipMemcpyDeviceToHost,
                        raw,
                    )?;
                }
                slot.in_flight[k] = true;
                slot.done[k].record(stream)
            };
            for n in 0..chunks.len().min(BUFFERS_PER_WORKER) {
                enqueue(slot, n)?;
            }
            for n in 0..chunks.len() {
                let k = n % BUFFERS_PER_WORKER;
                slot.wait(k)?;
                let range = &chunks[n];
                // SAFETY: the DMA into buffer k is over (waited above); the
                // host range is within the caller's `bytes` and only this
                // worker writes it.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        slot.buffers[k].ptr,
                        ends.host.add(range.start),
                        range.len(),
                    )
                };
                if n + BUFFERS_PER_WORKER < chunks.len() {
                    enqueue(slot, n + BUFFERS_PER_WORKER)?;
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
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    if bytes >= STAGING_MIN_BYTES {
        // A replay of a captured copy would read staging buffers that other
        // copies have refilled since.
        stream.refuse_while_capturing(operation)?;
        // SAFETY: the caller's promise; the stream is not capturing.
        return unsafe { copy_staged(stream, ends, bytes, dir) };
    }
    stream.bind_if_default()?;
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
    /// on a device's first staged copy and kept for later ones.
    ///
    /// Lengths must match and `dst` must be on this stream's device; the
    /// stream must not be capturing a graph (a replay would read staging
    /// buffers reused since).
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
        // waits for the copy.
        unsafe { copy_pageable(OP, self, ends, bytes, Direction::HostToDevice) }
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
        // copy.
        unsafe { copy_pageable(OP, self, ends, bytes, Direction::DeviceToHost) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn workers_split_the_chunks_without_overlap() {
        let chunk = 10;
        for total in [1, 9, 10, 11, 35, 99, 100, 101, 1000] {
            for max in [1, 2, 3, 6] {
                let workers = worker_count(total, chunk, max);
                assert!(workers >= 1 && workers <= max, "total {total} max {max}");
                assert!(workers <= total.div_ceil(chunk));
                let all = (0..workers).flat_map(|w| worker_chunks(total, chunk, workers, w));
                assert!(
                    covered(all, total).iter().all(|&h| h == 1),
                    "total {total}, {workers} workers"
                );
                // Shares differ by at most one chunk.
                let shares: Vec<usize> = (0..workers)
                    .map(|w| worker_chunks(total, chunk, workers, w).count())
                    .collect();
                let (lo, hi) = (shares.iter().min(), shares.iter().max());
                assert!(hi.unwrap() - lo.unwrap() <= 1, "{shares:?}");
            }
        }
    }

    #[test]
    fn worker_count_bounds() {
        assert_eq!(worker_count(0, 10, 6), 1);
        assert_eq!(worker_count(10, 10, 6), 1);
        assert_eq!(worker_count(11, 10, 6), 2);
        assert_eq!(worker_count(1000, 10, 6), 6);
        assert_eq!(worker_count(1000, 10, 0), 1);
    }

    #[test]
    fn thresholds_are_consistent() {
        // A staged copy has at least one full chunk.
        const { assert!(STAGING_MIN_BYTES >= STAGING_CHUNK_BYTES) };
    }
}
