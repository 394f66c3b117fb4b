//! A pure-Rust stand-in for the few runtime calls that the stream and
//! event bookkeeping makes (devices, events, waits), for unit tests: with
//! it, `AccessEvents`, `AccessGuard`, `Stream` and `Event` run without a
//! HIP runtime, so Miri can check them (it cannot call into C).
//!
//! The seam is in `result.rs`: in test builds, each of those calls first
//! asks [`intercept`] here, and a thread that installed a [`FakeRuntime`]
//! gets the fake's answer instead of the runtime's. Release builds have
//! no seam at all. The fake logs every call, hands out distinct event
//! handles, checks that events are live when used and destroyed once, and
//! can fail a chosen call.

use crate::device::Device;
use crate::error::{Error, Result};
use hip_sys as sys;
use std::cell::{Cell, RefCell};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};

/// One call the fake answered, with its handles as numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Call {
    SetDevice(i32),
    EventCreate {
        event: usize,
        device: i32,
    },
    EventRecord {
        event: usize,
        stream: usize,
    },
    StreamWaitEvent {
        stream: usize,
        event: usize,
    },
    EventDestroy(usize),
    StreamSynchronize(usize),
    /// A kernel looked up in a module (`hipModuleGetFunction`).
    ModuleGetFunction {
        module: usize,
    },
    ModuleUnload(usize),
}

/// The runtime's state as the fake sees it, shared by the threads that
/// installed it.
#[derive(Debug, Default)]
pub(crate) struct FakeRuntime {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    calls: Vec<Call>,
    next_event: usize,
    next_function: usize,
    live_events: BTreeSet<usize>,
    /// Fail the first call that this matches (then forget it).
    fail_next: Option<fn(&Call) -> bool>,
}

thread_local! {
    /// The fake this thread uses, and its current device.
    static INSTALLED: RefCell<Option<Arc<FakeRuntime>>> = const { RefCell::new(None) };
    static CURRENT_DEVICE: Cell<i32> = const { Cell::new(0) };
}

/// While alive, the calling thread's runtime calls go to the fake.
pub(crate) struct Installed(());

impl Drop for Installed {
    fn drop(&mut self) {
        INSTALLED.with(|i| *i.borrow_mut() = None);
    }
}

impl FakeRuntime {
    /// A fresh fake: no events, device 0 current.
    pub(crate) fn new() -> Arc<FakeRuntime> {
        Arc::new(FakeRuntime::default())
    }

    /// Routes the calling thread's calls to this fake (device 0 current)
    /// until the returned guard drops.
    pub(crate) fn install(self: &Arc<Self>) -> Installed {
        INSTALLED.with(|i| *i.borrow_mut() = Some(self.clone()));
        CURRENT_DEVICE.with(|d| d.set(0));
        Installed(())
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Every call so far, in order, and forgets them. Device switches are
    /// left out unless `with_devices`.
    pub(crate) fn take_calls(&self, with_devices: bool) -> Vec<Call> {
        std::mem::take(&mut self.state().calls)
            .into_iter()
            .filter(|c| with_devices || !matches!(c, Call::SetDevice(_)))
            .collect()
    }

    /// How many events exist now.
    pub(crate) fn live_event_count(&self) -> usize {
        self.state().live_events.len()
    }

    /// Makes the next call that `which` matches fail (`hipErrorInvalidValue`).
    pub(crate) fn fail_next(&self, which: fn(&Call) -> bool) {
        self.state().fail_next = Some(which);
    }

    fn answer(&self, call: Call) -> Result<()> {
        let mut s = self.state();
        if s.fail_next.is_some_and(|f| f(&call)) {
            s.fail_next = None;
            // Made here: `Error::from_hip` asks the runtime for the text.
            return Err(Error::Hip {
                call: "fake runtime",
                status: sys::hipError_t::hipErrorInvalidValue,
                message: "failed on purpose".into(),
                symbol_missing: false,
            });
        }
        let live = |s: &State, e: usize| {
            assert!(
                s.live_events.contains(&e),
                "{call:?}: event {e:#x} is not live"
            );
        };
        match call {
            Call::EventRecord { event, .. } | Call::StreamWaitEvent { event, .. } => {
                live(&s, event)
            }
            Call::EventDestroy(event) => {
                live(&s, event);
                s.live_events.remove(&event);
            }
            Call::EventCreate { event, .. } => {
                s.live_events.insert(event);
            }
            Call::SetDevice(_)
            | Call::StreamSynchronize(_)
            | Call::ModuleGetFunction { .. }
            | Call::ModuleUnload(_) => {}
        }
        s.calls.push(call);
        Ok(())
    }
}

/// A handle the fake hands out: an address-free pointer (no provenance),
/// never null nor `hipStreamPerThread`'s 2.
pub(crate) fn handle<T>(n: usize) -> *mut T {
    std::ptr::null_mut::<T>().wrapping_byte_add(n)
}

/// A device object for tests (no runtime call): ordinal `ordinal`, the
/// common launch limits.
pub(crate) fn device(ordinal: i32) -> Arc<Device> {
    Arc::new(Device::fake(ordinal))
}

/// The runtime call the caller in `result.rs` is about to make.
pub(crate) enum Request {
    GetDevice,
    SetDevice(i32),
    EventCreate,
    EventRecord(sys::hipEvent_t, sys::hipStream_t),
    StreamWaitEvent(sys::hipStream_t, sys::hipEvent_t),
    EventDestroy(sys::hipEvent_t),
    StreamSynchronize(sys::hipStream_t),
    ModuleGetFunction(sys::hipModule_t),
    ModuleUnload(sys::hipModule_t),
}

/// The fake's answer to `request` (an event handle for `EventCreate`, a
/// function handle for `ModuleGetFunction`, the current device for
/// `GetDevice`, else 0), or `None` when this thread
/// installed no fake and the runtime is to be called.
pub(crate) fn intercept(request: Request) -> Option<Result<usize>> {
    let fake = INSTALLED.with(|i| i.borrow().clone())?;
    let current = CURRENT_DEVICE.with(Cell::get);
    Some(match request {
        Request::GetDevice => Ok(current as usize),
        Request::SetDevice(d) => fake.answer(Call::SetDevice(d)).map(|()| {
            CURRENT_DEVICE.with(|c| c.set(d));
            0
        }),
        Request::EventCreate => {
            let event = {
                let mut s = fake.state();
                s.next_event += 1;
                0x1000 + 0x10 * s.next_event
            };
            fake.answer(Call::EventCreate {
                event,
                device: current,
            })
            .map(|()| event)
        }
        Request::EventRecord(e, s) => fake
            .answer(Call::EventRecord {
                event: e as usize,
                stream: s as usize,
            })
            .map(|()| 0),
        Request::StreamWaitEvent(s, e) => fake
            .answer(Call::StreamWaitEvent {
                stream: s as usize,
                event: e as usize,
            })
            .map(|()| 0),
        Request::EventDestroy(e) => fake.answer(Call::EventDestroy(e as usize)).map(|()| 0),
        Request::StreamSynchronize(s) => {
            fake.answer(Call::StreamSynchronize(s as usize)).map(|()| 0)
        }
        Request::ModuleGetFunction(m) => {
            let function = {
                let mut s = fake.state();
                s.next_function += 1;
                0x2000 + 0x10 * s.next_function
            };
            fake.answer(Call::ModuleGetFunction { module: m as usize })
                .map(|()| function)
        }
        Request::ModuleUnload(m) => fake.answer(Call::ModuleUnload(m as usize)).map(|()| 0),
    })
}
