//! The persistent host threads that copy pieces between pageable and pinned
//! memory, shared by every device and every staged copy.

use super::chunks::{piece_count, piece_ranges};
use super::stores::{cldemote_available, copy_streaming, demote_lines, Stores};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Most persistent host threads copying pieces between pageable and pinned
/// memory (shared by every device and every staged copy).
pub(super) const MAX_HOST_THREADS: usize = 12;

/// Busy-wait iterations of a waiting copy before it yields its processor
/// between checks.
const SPINS_BEFORE_YIELD: u32 = 4096;

/// How long an idle host thread keeps looking for pieces before it sleeps:
/// longer than the gap between two chunks of one copy, so that the threads
/// stay awake for a whole copy.
const IDLE_SPIN: Duration = Duration::from_micros(500);

/// Smallest host piece: below this, handing a piece to another thread
/// costs about as much as copying it.
const MIN_PIECE_BYTES: usize = 64 << 10;

/// A countdown that the host copy pieces of one chunk share: the chunk's
/// bytes are in place once it reaches zero.
pub(super) struct Latch {
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
    pub(super) fn wait(&self, pool: &HostCopyPool) {
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
pub(super) struct HostCopyPool {
    queue: Mutex<VecDeque<Piece>>,
    /// Pieces in `queue`, readable without the lock (for idle spinning).
    queued_len: AtomicUsize,
    queued: Condvar,
    /// Host threads asleep on `queued` (changed with the queue locked).
    sleepers: AtomicUsize,
    /// Threads started (those that could be).
    threads: usize,
    /// How the tail of a host-to-device copy is written ([`TAIL_BYTES`](super::chunks::TAIL_BYTES)):
    /// demoted where the processor can, else streamed.
    pub(super) tail_stores: Stores,
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
    pub(super) unsafe fn copy(
        &self,
        from: *const u8,
        to: *mut u8,
        len: usize,
        stores: Stores,
    ) -> Arc<Latch> {
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
pub(super) fn host_pool() -> &'static HostCopyPool {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A pool with no threads of its own, for tests: the waiting threads
    /// copy the pieces.
    fn pool_without_threads(threads: usize, tail_stores: Stores) -> HostCopyPool {
        HostCopyPool {
            queue: Mutex::new(VecDeque::new()),
            queued_len: AtomicUsize::new(0),
            queued: Condvar::new(),
            sleepers: AtomicUsize::new(0),
            threads,
            tail_stores,
        }
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "9 MB of copies and cldemote's inline assembly; \
        waiting_threads_copy_each_others_pieces covers the queue under Miri"
    )]
    fn host_pool_copies_every_piece_even_without_threads() {
        // A pool with no threads of its own: the waiting thread copies.
        let pool = pool_without_threads(4, Stores::Demoted);
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
    #[cfg_attr(
        miri,
        ignore = "3 MB of copies and cldemote's inline assembly; a ThreadSanitizer \
        test (scripts/tsan-bundle.sh)"
    )]
    fn bytes_copied_on_another_thread_are_visible_once_the_latch_is_zero() {
        // Every piece is copied by a helper thread, and this thread only
        // watches the latch: nothing but the latch's Release/Acquire orders
        // the copy before the check (the test above and below may copy on
        // the waiting thread itself). Under ThreadSanitizer
        // (scripts/tsan-bundle.sh) a weaker latch is a reported race.
        let pool = pool_without_threads(4, Stores::Demoted);
        let from: Vec<u8> = (0..1_000_003u32).map(|i| (i % 253) as u8 + 1).collect();
        for stores in [Stores::Cached, Stores::Demoted, Stores::Streaming] {
            let mut to = vec![0u8; from.len()];
            // SAFETY: both vectors hold `from.len()` bytes, are disjoint,
            // and outlive the latch reaching zero below; `to` is read only
            // after that.
            let latch = unsafe { pool.copy(from.as_ptr(), to.as_mut_ptr(), from.len(), stores) };
            std::thread::scope(|s| {
                let helper = s.spawn(|| {
                    let mut copied = 0;
                    while let Some(piece) = pool.try_pop() {
                        piece.run();
                        copied += 1;
                    }
                    copied
                });
                while !latch.is_zero() {
                    std::thread::yield_now();
                }
                assert!(from == to, "a piece was not copied ({stores:?})");
                assert_eq!(helper.join().unwrap(), 4, "the helper copied every piece");
            });
        }
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "the process pool's threads never exit (Miri requires \
        every thread joined) and cldemote is inline assembly"
    )]
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
    fn waiting_threads_copy_each_others_pieces() {
        // Two copies of three pieces each from two threads, on a pool with
        // no threads: each waiting thread copies whatever is queued, its
        // own pieces or the other's (sized for Miri, which checks the
        // pieces' hand-over between threads for data races).
        let pool = pool_without_threads(4, Stores::Streaming);
        std::thread::scope(|s| {
            for t in 0..2u8 {
                let pool = &pool;
                s.spawn(move || {
                    // Three pieces of 64 KiB and a bit; a mark every 4 KiB
                    // shows a piece copied to the wrong place.
                    let len = 3 * MIN_PIECE_BYTES + 3 * t as usize;
                    let mut from = vec![0x5a ^ t; len];
                    for (mark, at) in (0..len).step_by(4096).enumerate() {
                        from[at] = mark as u8;
                    }
                    let mut to = vec![0u8; len];
                    let stores = [Stores::Cached, Stores::Streaming][t as usize];
                    // SAFETY: both vectors hold `len` bytes, are disjoint,
                    // and outlive the wait; `to` is untouched until then.
                    let latch = unsafe { pool.copy(from.as_ptr(), to.as_mut_ptr(), len, stores) };
                    latch.wait(pool);
                    assert!(from == to, "thread {t}: a piece was not copied");
                });
            }
        });
        assert!(pool.try_pop().is_none());
        assert_eq!(pool.queued_len.load(Ordering::Relaxed), 0);
    }
}
