//! The C ABI: the functions of ROCm 6.4's `libamdhip64.so.6` that `hip-sys`
//! resolves and the `hip` and `cuda-compat` crates call, exported under
//! their C names (`#[no_mangle] extern "C"`) with `hip-sys`'s types, so the
//! cdylib (`libhip_emu.so`) loads exactly where ROCm's runtime would.
//!
//! # Devices
//!
//! `HIP_EMU_DEVICES` lists the emulated devices, comma-separated, by
//! processor: `gfx942` (an AMD Instinct MI300X, wave64) and `gfx1100` (a
//! Radeon RX 7900 XTX, wave32); unset or empty means one `gfx942`, `none`
//! means no device (`hipGetDeviceCount` then fails with
//! `hipErrorNoDevice`). An unknown name leaves no device, and every call
//! fails with a message naming it. Properties are those the real parts
//! report (see `device.rs`).
//!
//! # Execution model
//!
//! Every stream operation runs synchronously, on the calling thread, when
//! it is enqueued: a copy is done when `hipMemcpyAsync` returns, a kernel
//! has run when `hipModuleLaunchKernel` returns. Stream order therefore
//! holds trivially, waits on events are no-ops, events complete when
//! recorded (their time is the host's clock at that moment), and queries
//! return `hipSuccess`. A stream that is capturing records its operations
//! instead; a graph replays them in order when launched.
//!
//! # Errors
//!
//! Failures return AMD's `hipError_t` codes. Each failure is also kept per
//! thread with a message that says what went wrong (the unmapped address,
//! the kernel and instruction that faulted, `hipFoo is not supported by
//! hip-emu`): `hipGetErrorString(code)` returns that message when `code` is
//! the code of this thread's most recent failure, else the runtime's fixed
//! words for the code. `hipGetLastError` and `hipPeekAtLastError` follow
//! CUDA's rule, which ROCm 6 follows: the last failing call's code, reset
//! by `hipGetLastError`.
//!
//! A kernel's memory fault returns `hipErrorIllegalAddress` from the launch
//! itself (ROCm aborts the process on a GPU page fault; the emulator
//! reports it and goes on). The error is not sticky: the device stays
//! usable without `hipDeviceReset`. Any other failure of a dispatch is
//! `hipErrorLaunchFailure`. Both carry the interpreter's message. With
//! `HIP_EMU_ON_FAULT=abort` a failed dispatch instead prints the message
//! and ends the process, as ROCm does: for programs whose launchers do not
//! check the launch's status, which would otherwise go on with outputs
//! the kernel never wrote.
//!
//! Every exported function catches panics: a bug in the emulator is
//! `hipErrorUnknown` with the panic's message, never an unwind across the
//! C boundary.
//!
//! # Safety of the exported functions
//!
//! Each is `unsafe extern "C"`: its pointer arguments must be null or
//! valid for the reads and writes the HIP API documents for that call
//! (host buffers of the sizes given, output parameters of the declared
//! type). Null output pointers are rejected with `hipErrorInvalidValue`;
//! handles that the emulator did not hand out (or that were destroyed) are
//! rejected with `hipErrorInvalidHandle` rather than dereferenced; device
//! addresses are checked against the mapped ranges before any access.
//!
//! # hiprtc
//!
//! The emulator does not implement hiprtc. `hip-sys` looks for
//! `libhiprtc.so.6` (for a runtime reporting version 6) beside the runtime
//! it loaded, then through the system loader; ROCm's `libhiprtc.so.6`
//! placed beside `libhip_emu.so` (or installed system-wide) compiles
//! source to code objects that `hipModuleLoadData` loads here. Without it,
//! hiprtc calls return `hip-sys`'s "library not found" status.

use hip_sys::hipError_t;
use std::any::Any;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// Defines exported C functions: each body runs under [`api`] (failures
/// recorded, panics caught) and returns `hipError_t`.
macro_rules! export {
    ($(
        $(#[doc = $doc:expr])*
        fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $body:block
    )*) => {$(
        $(#[doc = $doc])*
        ///
        /// # Safety
        ///
        /// Pointer arguments must be null or valid for the reads and writes
        /// HIP documents for this call (see the `runtime` module docs);
        /// null output pointers are rejected with `hipErrorInvalidValue`.
        // The C names and parameter names are HIP's; the functions are
        // reached by symbol name from the cdylib, not through Rust paths.
        #[allow(non_snake_case, unreachable_pub)]
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> hip_sys::hipError_t {
            $crate::runtime::api(stringify!($name), move || $body)
        }
    )*};
}

mod device;
mod error;
mod memory_api;
mod module;
mod occupancy;
mod register;
mod roctx;
mod stream;

pub use device::{DeviceSpec, DEVICES_VAR};
pub use error::last_failure;

/// Why a call failed: the status it returns and the message kept for
/// `hipGetErrorString`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fail {
    pub(crate) code: hipError_t,
    pub(crate) message: String,
}

pub(crate) type R<T = ()> = Result<T, Fail>;

/// A failure with `code` and `message`.
pub(crate) fn fail<T>(code: hipError_t, message: impl Into<String>) -> R<T> {
    Err(Fail {
        code,
        message: message.into(),
    })
}

/// A failure with `hipErrorInvalidValue`.
pub(crate) fn invalid<T>(message: impl Into<String>) -> R<T> {
    fail(hipError_t::hipErrorInvalidValue, message)
}

/// The failure of a function the emulator exports but does not support.
pub(crate) fn unsupported<T>(function: &str, why: &str) -> R<T> {
    fail(
        hipError_t::hipErrorNotSupported,
        format!("{function} is not supported by hip-emu{why}"),
    )
}

/// Runs the body of the exported function `name`: records a failure (with
/// the function's name before its message) for `hipGetLastError` and
/// `hipGetErrorString`, and turns a panic into `hipErrorUnknown`.
pub(crate) fn api(name: &'static str, body: impl FnOnce() -> R) -> hipError_t {
    let result = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(payload) => fail(
            hipError_t::hipErrorUnknown,
            format!("internal error in hip-emu: {}", panic_text(&*payload)),
        ),
    };
    match result {
        Ok(()) => hipError_t::hipSuccess,
        Err(f) => {
            let message = if f.message.starts_with(name) {
                f.message
            } else {
                format!("{name}: {}", f.message)
            };
            if log_failures() {
                eprintln!("hip-emu: {message} ({:?})", f.code);
            }
            error::record(f.code, message);
            f.code
        }
    }
}

/// The variable that, set to `1`, prints every failing call's message to
/// standard error as it fails (a library that clears the last error, as
/// rocBLAS does, hides the message otherwise).
pub const LOG_VAR: &str = "HIP_EMU_LOG";

fn log_failures() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(LOG_VAR).is_some_and(|v| !v.is_empty() && v != "0"))
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic".to_owned()
    }
}

/// Writes `value` to the output parameter `ptr`, or fails with
/// `hipErrorInvalidValue` naming `what` when it is null.
///
/// # Safety
///
/// `ptr` must be null or valid for a write of `T`.
pub(crate) unsafe fn put<T>(ptr: *mut T, value: T, what: &str) -> R {
    if ptr.is_null() {
        return invalid(format!("`{what}` is null"));
    }
    // SAFETY: non-null, and valid for a write of `T` by the caller's contract.
    unsafe { ptr.write_unaligned(value) };
    Ok(())
}

/// Locks `m`, ignoring poisoning (a panic while it was held has already
/// been reported as `hipErrorUnknown`; the data is plain state).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Objects handed out as opaque handles (streams, events, modules, ...):
/// a handle is a number no object shares, so a stale or foreign handle is
/// found missing instead of dereferenced.
#[derive(Debug)]
pub(crate) struct Handles<T> {
    kind: &'static str,
    map: Mutex<HashMap<usize, Arc<T>>>,
}

/// Handles start high enough never to be null, `hipStreamPerThread` (2)
/// or a context handle, and step by 16 (so they look like aligned
/// pointers to code that checks).
static NEXT_HANDLE: AtomicUsize = AtomicUsize::new(0x10_0000);

impl<T> Handles<T> {
    pub(crate) fn new(kind: &'static str) -> Handles<T> {
        Handles {
            kind,
            map: Mutex::new(HashMap::new()),
        }
    }

    /// Keeps `value` and returns its new handle.
    pub(crate) fn insert(&self, value: T) -> usize {
        let h = NEXT_HANDLE.fetch_add(16, Ordering::Relaxed);
        lock(&self.map).insert(h, Arc::new(value));
        h
    }

    /// The object of handle `h`.
    pub(crate) fn get(&self, h: usize) -> R<Arc<T>> {
        match lock(&self.map).get(&h) {
            Some(v) => Ok(v.clone()),
            None => fail(
                hipError_t::hipErrorInvalidHandle,
                format!("{h:#x} is not a live {} handle", self.kind),
            ),
        }
    }

    /// Forgets handle `h`, returning its object.
    pub(crate) fn remove(&self, h: usize) -> R<Arc<T>> {
        match lock(&self.map).remove(&h) {
            Some(v) => Ok(v),
            None => fail(
                hipError_t::hipErrorInvalidHandle,
                format!("{h:#x} is not a live {} handle", self.kind),
            ),
        }
    }

    /// Every live object, with its handle.
    pub(crate) fn all(&self) -> Vec<(usize, Arc<T>)> {
        lock(&self.map)
            .iter()
            .map(|(k, v)| (*k, v.clone()))
            .collect()
    }
}

/// The process-wide state of the emulated runtime.
#[derive(Debug)]
pub(crate) struct Runtime {
    pub(crate) devices: Vec<device::Device>,
    /// Why there are no devices, when `HIP_EMU_DEVICES` named one the
    /// emulator does not have.
    pub(crate) config_error: Option<String>,
    pub(crate) memory: crate::memory::AddressSpace,
    pub(crate) streams: Handles<stream::Stream>,
    pub(crate) events: Handles<stream::Event>,
    pub(crate) graphs: Handles<stream::Graph>,
    pub(crate) execs: Handles<stream::Graph>,
    pub(crate) modules: Handles<module::Module>,
    pub(crate) functions: Handles<module::Function>,
    pub(crate) pools: Handles<memory_api::Pool>,
}

/// The runtime, made on first use from `HIP_EMU_DEVICES`.
pub(crate) fn rt() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        let (targets, config_error) = device::targets_from_env();
        let mut rt = Runtime {
            devices: Vec::new(),
            config_error,
            memory: crate::memory::AddressSpace::new(),
            streams: Handles::new("stream"),
            events: Handles::new("event"),
            graphs: Handles::new("graph"),
            execs: Handles::new("graph exec"),
            modules: Handles::new("module"),
            functions: Handles::new("function"),
            pools: Handles::new("memory pool"),
        };
        for (i, target) in targets.into_iter().enumerate() {
            let ordinal = i as i32;
            let default_stream = rt.streams.insert(stream::Stream::new(ordinal, 0, 0));
            let default_pool = rt.pools.insert(memory_api::Pool::new(ordinal));
            rt.devices.push(device::Device::new(
                ordinal,
                target,
                default_stream,
                default_pool,
            ));
        }
        rt
    })
}
