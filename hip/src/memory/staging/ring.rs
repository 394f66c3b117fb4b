//! The pinned ring: reused page-locked buffers per device, and the chunk
//! loop that moves a staged copy through them.

use super::chunks::{fill_stores, ramped_chunk_ranges, RAMP_DOWN_BYTES, RAMP_UP_BYTES};
use super::pool::{host_pool, HostCopyPool, Latch};
use super::stores::Stores;
use super::{copy_direct, CopyEnds, Direction, CHUNK_BYTES};
use crate::device::Device;
use crate::error::Result;
use crate::result;
use crate::stream::{Event, Stream};
use hip_sys as sys;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Pinned buffers in one copy's ring: the chunks being filled (or
/// drained) on the host, plus those whose DMA is queued or running.
const RING_BUFFERS: usize = 6;

/// How many chunks the ring keeps between the host and the DMA side: the
/// caller reuses the buffer of chunk `n - RING_LAG` after it enqueued chunk
/// `n`, so that much DMA stays queued while it waits.
const RING_LAG: usize = 2;

/// One page-locked host allocation of [`CHUNK_BYTES`] bytes.
struct PinnedChunk {
    ptr: *mut u8,
}

// SAFETY: a host allocation with no thread affinity; it is used by one copy
// at a time (a ring is owned by the copy that took it).
unsafe impl Send for PinnedChunk {}

/// Pinned allocations still to fail ([`fail_next_pinned_allocations`]).
static FAILS_ARMED: AtomicUsize = AtomicUsize::new(0);

/// Makes the next `n` pinned allocations of the staging rings fail with
/// `hipErrorOutOfMemory`, as when page-locked memory runs out; while any
/// are armed, a staged copy takes no free ring from the pool, so it
/// allocates one. A test hook (the GPU soak, `benches/src/bin/soak.rs`).
///
/// What a copy does then: a staged copy that cannot get a ring copies
/// directly instead (one `hipMemcpyAsync` from the pageable memory: slower,
/// never wrong), and the pinned buffers allocated before the failure are
/// freed; once the armed failures are spent, copies are staged again.
#[doc(hidden)]
pub fn fail_next_pinned_allocations(n: usize) {
    FAILS_ARMED.store(n, Ordering::SeqCst);
}

/// How many armed pinned-allocation failures are left
/// ([`fail_next_pinned_allocations`]).
#[doc(hidden)]
pub fn pinned_failures_armed() -> usize {
    FAILS_ARMED.load(Ordering::SeqCst)
}

/// Spends one armed failure, if any: true when this allocation must fail.
fn take_armed_failure() -> bool {
    FAILS_ARMED
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

impl PinnedChunk {
    fn new() -> Result<PinnedChunk> {
        if take_armed_failure() {
            return Err(crate::Error::from_hip(
                "hipHostMalloc",
                sys::hipError_t::hipErrorOutOfMemory,
            ));
        }
        let ptr = result::host_malloc(CHUNK_BYTES, sys::hipHostMallocPortable)?.cast();
        Ok(PinnedChunk { ptr })
    }
}

impl Drop for PinnedChunk {
    fn drop(&mut self) {
        let ptr = crate::SendPtr(self.ptr.cast::<std::ffi::c_void>());
        Device::release_on_current_device(move |held| {
            // SAFETY: our own hipHostMalloc allocation; a ring drops its
            // chunks only after every copy using them has finished
            // (`Ring::settle`), and leaks them otherwise.
            crate::error::record_result(unsafe { result::host_free(ptr.get(), held) });
        });
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
        if pinned_failures_armed() > 0 {
            return Ring::new(device);
        }
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
pub(super) unsafe fn copy_staged(
    stream: &Stream,
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
    stores: Stores,
) -> Result<()> {
    let device = stream.device();
    let pool = pool(device);
    let host = host_pool();
    // Without pinned buffers (page-locked memory exhausted), the copy goes
    // directly: slower, but it neither fails nor leaks (a partly allocated
    // ring has freed its buffers).
    let Ok(mut ring) = pool.take(device) else {
        // SAFETY: the caller's promise.
        return unsafe { copy_direct(stream, ends, bytes, dir) };
    };
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
    let chunks = ramped_chunk_ranges(bytes, CHUNK_BYTES, &RAMP_UP_BYTES, &RAMP_DOWN_BYTES);
    let slots = ring.buffers.len();
    match dir {
        Direction::HostToDevice => {
            // Fill chunk `n` into its buffer (which no DMA may be reading).
            let fill = |ring: &Ring, pending: &mut [Option<Arc<Latch>>], n: usize| {
                let k = n % slots;
                let range = &chunks[n];
                let stores = fill_stores(stores, bytes - range.end, host.tail_stores);
                // SAFETY: the host range is within the caller's `bytes`; the
                // buffer holds CHUNK_BYTES >= range.len() bytes and
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::staging::MIN_BYTES;

    #[test]
    fn thresholds_are_consistent() {
        // A staged copy has at least one full chunk.
        const { assert!(MIN_BYTES >= CHUNK_BYTES) };
        // The ring holds the chunks queued for DMA plus at least one more.
        const { assert!(RING_BUFFERS > RING_LAG) };
        // Ramp chunks fit the ring's buffers.
        const { assert!(RAMP_UP_BYTES[1] <= CHUNK_BYTES) };
        const { assert!(RAMP_DOWN_BYTES[0] <= CHUNK_BYTES) };
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "builds hip::Error::from_hip, which asks the loader (the file system)"
    )]
    fn armed_pinned_failures_are_spent_one_per_allocation() {
        fail_next_pinned_allocations(2);
        assert_eq!(pinned_failures_armed(), 2);
        // Each failure is the out-of-memory error a real one would give,
        // and allocates nothing (no runtime is needed to reach it).
        for left in [1, 0] {
            let e = PinnedChunk::new().err().expect("an armed failure");
            assert_eq!(e.hip_status(), Some(sys::hipError_t::hipErrorOutOfMemory));
            assert_eq!(pinned_failures_armed(), left);
        }
        // Spent: nothing is taken below zero.
        assert!(!take_armed_failure());
        assert_eq!(pinned_failures_armed(), 0);
    }
}
