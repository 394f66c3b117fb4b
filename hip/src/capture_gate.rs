//! Keeps device-wide synchronizations and stream captures of one device
//! apart.
//!
//! CUDA forbids synchronizing a whole context (`cudaDeviceSynchronize`,
//! `cuCtxSynchronize`) while any stream of it is capturing, whichever
//! thread captures and whatever the capture mode. The runtime does not
//! only refuse such a call: measured on CUDA 13 (driver of 2026, H200), it
//! invalidates the other thread's capture and, within a few repetitions,
//! crashes inside `cuCtxSynchronize` with SIGSEGV. cuRAND synchronizes
//! the context when it seeds a generator (`curandGenerateSeeds`, on the
//! first generation after creating or reseeding), so a hipRAND fill on
//! one thread and a graph capture on another are enough to crash a
//! process.
//!
//! Every capture this crate begins ([`Stream::capture`],
//! [`Stream::begin_capture`]) enters its device's gate until it ends;
//! every device-wide synchronization this crate makes
//! ([`Device::synchronize`]), and those other crates announce through
//! [`Device::hold_captures`], waits until no capture is open and holds new
//! ones back while it runs. A thread that synchronizes the device while it
//! captures itself gets an error instead of a deadlock.
//!
//! Releases made in `Drop` (a `hipFree`, a module unload, a library
//! handle's destruction) cannot wait or fail there: they go through
//! [`Device::release_outside_captures`], which runs them at once, holding
//! new captures back, when no capture is open, and otherwise queues them
//! until the last open capture of the device ends. Nothing is lost, and a
//! drop inside a capture closure neither blocks nor invalidates it.
//!
//! The runtime functions that act on the whole device take a
//! [`CaptureHold`] in this crate's `result` layer, so no call can forget
//! the gate: the type system asks for it.
//!
//! Only captures begun through this crate are seen: a capture begun with
//! the raw `hipStreamBeginCapture` is not.
//!
//! [`Stream::capture`]: crate::Stream::capture
//! [`Stream::begin_capture`]: crate::Stream::begin_capture
//! [`Device::synchronize`]: crate::Device::synchronize
//! [`Device::hold_captures`]: crate::Device::hold_captures
//! [`Device::release_outside_captures`]: crate::Device::release_outside_captures

use crate::error::{Error, Result};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::{self, ThreadId};

/// Set by [`bypass`]: holds and releases go ahead at once, as if no gate
/// existed (for showing, on a GPU, what the gate prevents).
static BYPASS: AtomicBool = AtomicBool::new(false);

/// Turns the gate off (`true`) or on again, for every device: a
/// diagnostic, so that the GPU tests of the gated paths can show that they
/// fail without it. Exposed hidden as `hip::__bypass_capture_gate`.
pub fn bypass(off: bool) {
    BYPASS.store(off, Ordering::SeqCst);
}

/// A raw handle or address carried into a release
/// ([`Device::release_outside_captures`] wants `Send`, which raw pointers
/// are not). It claims only that the handle may be used on another
/// thread, which holds for the runtime's and the libraries' handles;
/// using it stays `unsafe` as before. Take it out with [`SendPtr::get`]
/// (a method, so that a closure captures the whole wrapper).
///
/// [`Device::release_outside_captures`]: crate::Device::release_outside_captures
#[derive(Debug)]
pub struct SendPtr<T>(pub *mut T);

impl<T> Clone for SendPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SendPtr<T> {}

// SAFETY: the wrapper only moves a handle to the thread that runs a
// release; every use of it is still an `unsafe` call whose caller states
// why it is sound, and runtime and library handles are not tied to a
// thread.
unsafe impl<T> Send for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The handle.
    pub fn get(self) -> *mut T {
        self.0
    }
}

/// One device's gate.
#[derive(Debug, Default)]
pub(crate) struct CaptureGate {
    state: Mutex<State>,
    changed: Condvar,
    /// `state.open.len()`, readable without the lock, so that dropping a
    /// stream costs nothing while no capture is open.
    open_count: AtomicUsize,
}

/// A release queued until the device's open captures have ended.
type Deferred = Box<dyn FnOnce(&CaptureHold<'_>) + Send>;

#[derive(Default)]
struct State {
    /// The open captures: the thread that began each, and its stream.
    open: Vec<(ThreadId, usize)>,
    /// Device-wide synchronizations running now.
    holds: usize,
    /// Device-wide synchronizations waiting for the open captures to end;
    /// new captures wait behind them, so a stream of captures cannot
    /// starve a synchronization.
    waiting: usize,
    /// Releases asked for while captures were open, run (under one hold)
    /// by the thread whose capture ends last.
    deferred: Vec<Deferred>,
    /// Threads blocked on `changed` (a capture or a synchronization
    /// waiting its turn): with none, a change wakes no one, and a free
    /// (every `DeviceBuffer` drop) makes no futex call.
    blocked: usize,
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State")
            .field("open", &self.open)
            .field("holds", &self.holds)
            .field("waiting", &self.waiting)
            .field("deferred", &self.deferred.len())
            .field("blocked", &self.blocked)
            .finish()
    }
}

/// Held while a device-wide synchronization runs: no capture of the
/// device begins until it is dropped.
///
/// Made by [`Device::hold_captures`](crate::Device::hold_captures).
#[must_use = "captures are held back only while the guard lives"]
#[derive(Debug)]
pub struct CaptureHold<'a> {
    gate: &'a CaptureGate,
}

impl Drop for CaptureHold<'_> {
    fn drop(&mut self) {
        let mut st = self.gate.lock();
        st.holds -= 1;
        self.gate.notify(st);
    }
}

impl CaptureGate {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent at every unlock: a panic elsewhere
        // while the lock was held cannot have left it half-changed.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Blocks on `changed`, counted in `blocked` so that notifiers know.
    fn wait<'a>(&self, mut st: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        st.blocked += 1;
        let mut st = self.changed.wait(st).unwrap_or_else(|p| p.into_inner());
        st.blocked -= 1;
        st
    }

    /// Lets the lock go and wakes the blocked threads, if there are any.
    fn notify(&self, st: MutexGuard<'_, State>) {
        let anyone = st.blocked > 0;
        drop(st);
        if anyone {
            self.changed.notify_all();
        }
    }

    /// Registers a capture of `stream` begun on this thread, after any
    /// synchronization running or waiting has finished. A thread that
    /// already captures does not wait: a waiting synchronization waits for
    /// that thread, which would then wait for it.
    pub(crate) fn enter(&self, stream: usize) {
        let me = thread::current().id();
        let mut st = self.lock();
        while (st.holds > 0 || st.waiting > 0) && !st.open.iter().any(|&(t, _)| t == me) {
            st = self.wait(st);
        }
        st.open.push((me, stream));
        self.open_count.store(st.open.len(), Ordering::Release);
    }

    /// Ends the registration of `stream`'s capture, if it has one.
    pub(crate) fn leave(&self, stream: usize) {
        if self.open_count.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut st = self.lock();
        let Some(i) = st.open.iter().position(|&(_, s)| s == stream) else {
            return;
        };
        st.open.swap_remove(i);
        self.open_count.store(st.open.len(), Ordering::Release);
        let deferred = if st.open.is_empty() && !st.deferred.is_empty() {
            // Held before the lock is let go, so that no capture begins
            // between the last one's end and the releases.
            st.holds += 1;
            std::mem::take(&mut st.deferred)
        } else {
            Vec::new()
        };
        if deferred.is_empty() {
            self.notify(st);
        } else {
            drop(st);
            let hold = CaptureHold { gate: self };
            for release in deferred {
                release(&hold);
            }
            // Dropping the hold notifies the waiters.
        }
    }

    /// Runs `release` now, holding new captures back while it runs, when
    /// no capture is open; else queues it for the moment the last open
    /// capture ends. Never waits and never fails: for `Drop`.
    pub(crate) fn release<F>(&self, release: F)
    where
        F: FnOnce(&CaptureHold<'_>) + Send + 'static,
    {
        let mut st = self.lock();
        if st.open.is_empty() || BYPASS.load(Ordering::Relaxed) {
            st.holds += 1;
            drop(st);
            release(&CaptureHold { gate: self });
        } else {
            st.deferred.push(Box::new(release));
        }
    }

    /// Waits until no capture is open, and holds new ones back until the
    /// guard drops. Fails at once if this thread is capturing, since the
    /// synchronization could then never run.
    pub(crate) fn hold(&self, operation: &'static str) -> Result<CaptureHold<'_>> {
        let me = thread::current().id();
        let mut st = self.lock();
        if BYPASS.load(Ordering::Relaxed) {
            st.holds += 1;
            return Ok(CaptureHold { gate: self });
        }
        if st.open.iter().any(|&(t, _)| t == me) {
            return Err(Error::invalid(
                operation,
                "this thread is capturing a stream of the device, and a device-wide \
                 synchronization is not allowed during a capture; end the capture first",
            ));
        }
        st.waiting += 1;
        while !st.open.is_empty() {
            st = self.wait(st);
        }
        st.waiting -= 1;
        st.holds += 1;
        Ok(CaptureHold { gate: self })
    }

    /// Open captures now (tests).
    #[cfg(test)]
    fn open(&self) -> usize {
        self.lock().open.len()
    }

    /// Releases queued now (tests).
    #[cfg(test)]
    pub(crate) fn deferred(&self) -> usize {
        self.lock().deferred.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    #[test]
    fn a_hold_waits_until_every_capture_has_ended() {
        let gate = Arc::new(CaptureGate::default());
        gate.enter(1);
        gate.enter(2);
        let held = Arc::new(AtomicBool::new(false));
        let (g, h) = (gate.clone(), held.clone());
        let t = thread::spawn(move || {
            let _hold = g.hold("test").unwrap();
            h.store(true, Ordering::SeqCst);
        });
        thread::sleep(Duration::from_millis(50));
        assert!(!held.load(Ordering::SeqCst), "held while two captures open");
        gate.leave(1);
        thread::sleep(Duration::from_millis(50));
        assert!(!held.load(Ordering::SeqCst), "held while one capture open");
        gate.leave(2);
        t.join().unwrap();
        assert!(held.load(Ordering::SeqCst));
    }

    #[test]
    fn a_capture_waits_for_a_running_or_waiting_hold() {
        let gate = Arc::new(CaptureGate::default());
        let hold = gate.hold("test").unwrap();
        let (tx, rx) = mpsc::channel();
        let g = gate.clone();
        let t = thread::spawn(move || {
            g.enter(7);
            tx.send(()).unwrap();
        });
        assert!(
            rx.recv_timeout(Duration::from_millis(50)).is_err(),
            "a capture began during a hold"
        );
        drop(hold);
        rx.recv_timeout(Duration::from_secs(5))
            .expect("the capture began after the hold ended");
        t.join().unwrap();
        assert_eq!(gate.open(), 1);
    }

    #[test]
    fn a_thread_that_captures_may_not_hold_and_may_capture_again() {
        let gate = Arc::new(CaptureGate::default());
        gate.enter(1);
        let err = gate.hold("Device::synchronize").unwrap_err();
        assert!(
            err.to_string().contains("this thread is capturing"),
            "{err}"
        );
        // Another thread waits for the hold: this thread's second capture
        // must not wait behind it.
        let g = gate.clone();
        let waiter = thread::spawn(move || drop(g.hold("test").unwrap()));
        thread::sleep(Duration::from_millis(50));
        gate.enter(2);
        assert_eq!(gate.open(), 2);
        gate.leave(2);
        gate.leave(1);
        waiter.join().unwrap();
    }

    #[test]
    fn a_release_runs_at_once_without_captures_and_holds_them_back() {
        let gate = Arc::new(CaptureGate::default());
        let (tx, rx) = mpsc::channel();
        let g = gate.clone();
        gate.release(move |_held| {
            // A capture begun now waits until the release has returned.
            let g2 = g.clone();
            let t = thread::spawn(move || g2.enter(9));
            thread::sleep(Duration::from_millis(50));
            assert_eq!(g.open(), 0, "a capture began during a release");
            tx.send(t).unwrap();
        });
        rx.recv().unwrap().join().unwrap();
        assert_eq!(gate.open(), 1);
        assert_eq!(gate.deferred(), 0);
        gate.leave(9);
    }

    #[test]
    fn a_release_during_captures_waits_for_the_last_one_to_end() {
        let gate = Arc::new(CaptureGate::default());
        let runs = Arc::new(AtomicUsize::new(0));
        gate.enter(1);
        let g = gate.clone();
        // Another thread captures too, and releases while both are open:
        // the release neither blocks nor runs.
        thread::spawn(move || g.enter(2)).join().unwrap();
        for _ in 0..3 {
            let r = runs.clone();
            gate.release(move |_| {
                r.fetch_add(1, Ordering::SeqCst);
            });
        }
        assert_eq!((runs.load(Ordering::SeqCst), gate.deferred()), (0, 3));
        gate.leave(1);
        assert_eq!(runs.load(Ordering::SeqCst), 0, "ran with a capture open");
        // A capture that begins while releases wait is not held back by
        // them (they wait for it), and they still wait.
        gate.enter(3);
        gate.leave(2);
        assert_eq!(runs.load(Ordering::SeqCst), 0, "ran with a capture open");
        gate.leave(3);
        assert_eq!((runs.load(Ordering::SeqCst), gate.deferred()), (3, 0));
        // The hold the releases ran under is gone.
        drop(gate.hold("test").unwrap());
        gate.enter(4);
        gate.leave(4);
    }

    #[test]
    fn leaving_a_stream_that_never_entered_changes_nothing() {
        let gate = CaptureGate::default();
        gate.leave(3);
        gate.enter(4);
        gate.leave(3);
        assert_eq!(gate.open(), 1);
        gate.leave(4);
        assert_eq!(gate.open(), 0);
        drop(gate.hold("test").unwrap());
    }
}
