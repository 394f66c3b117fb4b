//! The result layer: one thin function per HIP, hiprtc and roctx call the
//! safe types make, each turning the status into a [`Result`]
//! ([`Error::Hip`] or [`Error::Hiprtc`] with the call's name) and output
//! parameters into return values. Handles stay raw: the caller owns them
//! ([`Stream`](crate::Stream), [`Event`](crate::Event),
//! [`Module`](crate::Module), [`Graph`](crate::Graph) and the buffers are
//! the safe owners).
//!
//! This is the only place in the crate that calls `hip_sys`'s and
//! `roctx_sys`'s functions. A function is `unsafe` when the call's
//! soundness depends on its arguments (live handles, pointers valid for
//! the sizes given); its `# Safety` section says what must hold. Calls
//! that act on the current device act on the device last made current on
//! this thread ([`set_device`], or [`Device::bind`](crate::Device::bind)).
//!
//! ```no_run
//! # fn main() -> hip::Result<()> {
//! use hip::result;
//! let count = result::get_device_count()?;
//! println!("{count} devices, HIP runtime {}", result::runtime_get_version()?);
//! result::set_device(0)?;
//! println!("device 0: {}", result::device_get_name(0)?);
//! let stream = result::stream_create_with_priority(0, 0)?;
//! // SAFETY: `stream` was made above, is idle, and is destroyed once.
//! unsafe { result::stream_destroy(stream) }?;
//! # Ok(()) }
//! ```

use crate::capture_gate::CaptureHold;
use crate::error::{Error, Result};
use hip_sys as sys;
use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void};

/// `Ok(())` for `hipSuccess`, else [`Error::Hip`] naming `call` (see
/// [`Error::from_hip`]).
#[inline(always)]
pub fn check(call: &'static str, status: sys::hipError_t) -> Result<()> {
    if status.is_success() {
        Ok(())
    } else {
        Err(Error::from_hip(call, status))
    }
}

/// `Ok(())` for `HIPRTC_SUCCESS`, else [`Error::Hiprtc`] naming `call` (see
/// [`Error::from_hiprtc`]).
#[inline(always)]
pub fn check_rtc(call: &'static str, status: sys::hiprtcResult) -> Result<()> {
    if status == sys::hiprtcResult::HIPRTC_SUCCESS {
        Ok(())
    } else {
        Err(Error::from_hiprtc(call, status))
    }
}

/// `hipGetErrorString`: the runtime's words for `status`.
#[cold]
pub fn error_string(status: sys::hipError_t) -> String {
    // SAFETY: hipGetErrorString returns a pointer to a static NUL-terminated
    // string for every value (hip-sys returns its own static string when the
    // runtime or symbol is missing).
    let ptr = unsafe { sys::hipGetErrorString(status) };
    // SAFETY: when non-null: NUL-terminated and static (above).
    unsafe { static_c_str(ptr) }
}

/// `hiprtcGetErrorString`: hiprtc's words for `status`.
#[cold]
pub fn rtc_error_string(status: sys::hiprtcResult) -> String {
    // SAFETY: hiprtcGetErrorString returns a static NUL-terminated string
    // for every value.
    let ptr = unsafe { sys::hiprtcGetErrorString(status) };
    // SAFETY: when non-null: NUL-terminated and static (above).
    unsafe { static_c_str(ptr) }
}

/// The text of a static C string (invalid UTF-8 replaced), or
/// `"(no message)"` for null.
///
/// # Safety
///
/// `ptr` is null or points to a NUL-terminated string that lives long
/// enough to be copied.
pub(crate) unsafe fn static_c_str(ptr: *const c_char) -> String {
    if ptr.is_null() {
        return String::from("(no message)");
    }
    // SAFETY: non-null, NUL-terminated (the caller's contract).
    unsafe { std::ffi::CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned()
}

/// `hipGetErrorName`: the runtime's name for `status`, the static C
/// string it returns (`None` for null).
#[cold]
pub fn error_name_c_str(status: sys::hipError_t) -> Option<&'static std::ffi::CStr> {
    // SAFETY: takes a value; returns a static NUL-terminated string or null.
    let ptr = unsafe { sys::hipGetErrorName(status) };
    // SAFETY: when non-null: NUL-terminated and static (above).
    (!ptr.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(ptr) })
}

/// `hipGetErrorString`: the runtime's words for `status`, the static C
/// string it returns (`None` for null).
#[cold]
pub fn error_string_c_str(status: sys::hipError_t) -> Option<&'static std::ffi::CStr> {
    // SAFETY: takes a value; returns a static NUL-terminated string or null.
    let ptr = unsafe { sys::hipGetErrorString(status) };
    // SAFETY: when non-null: NUL-terminated and static (above).
    (!ptr.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(ptr) })
}

// The stream and event bookkeeping's calls below (device, events, waits)
// first ask `fake_runtime` in test builds: a unit test that installed the
// fake runs them without a runtime (and under Miri). Release builds call
// the runtime directly.

// ---- devices ---------------------------------------------------------------

/// `hipGetDeviceCount`: how many devices the runtime sees.
pub fn get_device_count() -> Result<c_int> {
    let mut n = 0;
    // SAFETY: `n` is a valid int to write.
    check("hipGetDeviceCount", unsafe {
        sys::hipGetDeviceCount(&mut n)
    })?;
    Ok(n)
}

/// `hipGetDevice`: the ordinal of this thread's current device.
#[inline]
pub fn get_device() -> Result<c_int> {
    #[cfg(test)]
    if let Some(out) = crate::fake_runtime::intercept(crate::fake_runtime::Request::GetDevice) {
        return out.map(|d| d as c_int);
    }
    let mut d = -1;
    // SAFETY: `d` is a valid int to write.
    check("hipGetDevice", unsafe { sys::hipGetDevice(&mut d) })?;
    Ok(d)
}

/// `hipSetDevice`: makes device `ordinal` this thread's current device.
pub fn set_device(ordinal: c_int) -> Result<()> {
    #[cfg(test)]
    if let Some(out) =
        crate::fake_runtime::intercept(crate::fake_runtime::Request::SetDevice(ordinal))
    {
        return out.map(drop);
    }
    // SAFETY: takes a value; invalid ordinals return an error status.
    check("hipSetDevice", unsafe { sys::hipSetDevice(ordinal) })
}

/// `hipDeviceGetAttribute`: one attribute of device `ordinal`.
pub fn device_get_attribute(attr: sys::hipDeviceAttribute_t, ordinal: c_int) -> Result<c_int> {
    let mut v = 0;
    // SAFETY: `v` is a valid int to write.
    check("hipDeviceGetAttribute", unsafe {
        sys::hipDeviceGetAttribute(&mut v, attr, ordinal)
    })?;
    Ok(v)
}

/// `hipDeviceGetName`: the marketing name of device `ordinal` (at most 255
/// bytes).
pub fn device_get_name(ordinal: c_int) -> Result<String> {
    let mut buf = [0 as c_char; 256];
    // SAFETY: `buf` holds `len` writable chars.
    check("hipDeviceGetName", unsafe {
        sys::hipDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, ordinal)
    })?;
    Ok(c_chars_to_string(&buf))
}

/// The text of a fixed-size C char array (such as a name field of a
/// properties struct) up to its first NUL, or all of it if it has none,
/// invalid UTF-8 replaced.
pub(crate) fn c_chars_to_string(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `hipGetDevicePropertiesR0600`: the properties of device `ordinal` in the
/// HIP 6.0 layout. A runtime before HIP 6.0 lacks this entry point and
/// returns an error (see [`PropertiesLayout`](crate::PropertiesLayout)).
pub fn get_device_properties_r0600(ordinal: c_int) -> Result<sys::hipDeviceProp_tR0600> {
    let mut p = sys::hipDeviceProp_tR0600::default();
    // SAFETY: `p` is a properly laid out R0600 struct, the layout this
    // entry point writes (the loader binds it by its exact name, so no
    // runtime substitutes another layout).
    check("hipGetDevicePropertiesR0600", unsafe {
        sys::hipGetDevicePropertiesR0600(&mut p, ordinal)
    })?;
    Ok(p)
}

/// `hipGetDevicePropertiesR0000`: the properties of device `ordinal` in the
/// layout before HIP 6.0 (see [`PropertiesLayout`](crate::PropertiesLayout)).
pub fn get_device_properties_r0000(ordinal: c_int) -> Result<sys::hipDeviceProp_tR0000> {
    let mut p = sys::hipDeviceProp_tR0000::default();
    // SAFETY: `p` is a properly laid out pre-6.0 struct, the layout this
    // entry point writes (bound by its exact name, as above).
    check("hipGetDevicePropertiesR0000", unsafe {
        sys::hipGetDevicePropertiesR0000(&mut p, ordinal)
    })?;
    Ok(p)
}

/// `hipDeviceGetUuid`: the UUID of device `ordinal`.
pub fn device_get_uuid(ordinal: c_int) -> Result<sys::hipUUID> {
    let mut u = sys::hipUUID { bytes: [0; 16] };
    // SAFETY: `u` is a valid place for the value.
    check("hipDeviceGetUuid", unsafe {
        sys::hipDeviceGetUuid(&mut u, ordinal)
    })?;
    Ok(u)
}

/// `hipGetDeviceFlags`: the flags of the current device (e.g.
/// `hipDeviceScheduleBlockingSync`).
pub fn get_device_flags() -> Result<c_uint> {
    let mut f = 0;
    // SAFETY: `f` is a valid place for the value.
    check("hipGetDeviceFlags", unsafe {
        sys::hipGetDeviceFlags(&mut f)
    })?;
    Ok(f)
}

/// `hipSetDeviceFlags`: sets the flags of the current device.
pub fn set_device_flags(flags: c_uint) -> Result<()> {
    // SAFETY: takes a value; invalid flags return an error status.
    check("hipSetDeviceFlags", unsafe {
        sys::hipSetDeviceFlags(flags)
    })
}

/// `hipDeviceGetCacheConfig`: the cache preference of the current device.
pub fn device_get_cache_config() -> Result<sys::hipFuncCache_t> {
    let mut c = sys::hipFuncCache_t::hipFuncCachePreferNone;
    // SAFETY: `c` is a valid place for the value.
    check("hipDeviceGetCacheConfig", unsafe {
        sys::hipDeviceGetCacheConfig(&mut c)
    })?;
    Ok(c)
}

/// `hipDeviceSetCacheConfig`: sets the cache preference of the current
/// device.
pub fn device_set_cache_config(config: sys::hipFuncCache_t) -> Result<()> {
    // SAFETY: takes a value; invalid values return an error status.
    check("hipDeviceSetCacheConfig", unsafe {
        sys::hipDeviceSetCacheConfig(config)
    })
}

/// `hipMemGetInfo`: free and total memory of the current device, in bytes.
pub fn mem_get_info() -> Result<(usize, usize)> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: both are valid usizes to write.
    check("hipMemGetInfo", unsafe {
        sys::hipMemGetInfo(&mut free, &mut total)
    })?;
    Ok((free, total))
}

/// `hipDeviceTotalMem`: the global memory of device `ordinal`, in bytes.
pub fn device_total_mem(ordinal: c_int) -> Result<usize> {
    let mut b = 0;
    // SAFETY: `b` is a valid usize to write.
    check("hipDeviceTotalMem", unsafe {
        sys::hipDeviceTotalMem(&mut b, ordinal)
    })?;
    Ok(b)
}

/// `hipDeviceComputeCapability`: (major, minor) of device `ordinal`.
pub fn device_compute_capability(ordinal: c_int) -> Result<(c_int, c_int)> {
    let (mut ma, mut mi) = (0, 0);
    // SAFETY: both are valid ints to write.
    check("hipDeviceComputeCapability", unsafe {
        sys::hipDeviceComputeCapability(&mut ma, &mut mi, ordinal)
    })?;
    Ok((ma, mi))
}

/// `hipDeviceCanAccessPeer`: whether device `ordinal` can access the
/// memory of device `peer`.
pub fn device_can_access_peer(ordinal: c_int, peer: c_int) -> Result<bool> {
    let mut v = 0;
    // SAFETY: `v` is a valid int to write.
    check("hipDeviceCanAccessPeer", unsafe {
        sys::hipDeviceCanAccessPeer(&mut v, ordinal, peer)
    })?;
    Ok(v != 0)
}

// The functions below that take a `&CaptureHold` act on the whole device
// (they synchronize it, or may): CUDA invalidates any capture of the device
// they overlap, on any thread. The hold proves the caller went through the
// device's capture gate (`Device::hold_captures`, or
// `Device::release_outside_captures` in `Drop`).

/// `hipDeviceEnablePeerAccess`: lets the current device access the memory
/// of device `peer`.
///
/// It acts on the whole device, which CUDA forbids during any capture of
/// the device: `_held` proves the caller holds the device's capture gate
/// ([`Device::hold_captures`](crate::Device::hold_captures), or
/// [`Device::release_outside_captures`](crate::Device::release_outside_captures)
/// in `Drop`).
pub fn device_enable_peer_access(peer: c_int, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: takes values only.
    check("hipDeviceEnablePeerAccess", unsafe {
        sys::hipDeviceEnablePeerAccess(peer, 0)
    })
}

/// `hipDeviceGetLimit`: one limit of the current device.
pub fn device_get_limit(limit: sys::hipLimit_t) -> Result<usize> {
    let mut v = 0;
    // SAFETY: `v` is a valid usize to write.
    check("hipDeviceGetLimit", unsafe {
        sys::hipDeviceGetLimit(&mut v, limit)
    })?;
    Ok(v)
}

/// `hipDeviceSetLimit`: sets one limit of the current device. `_held`
/// proves the capture gate is held, as for [`device_enable_peer_access`].
pub fn device_set_limit(
    limit: sys::hipLimit_t,
    value: usize,
    _held: &CaptureHold<'_>,
) -> Result<()> {
    // SAFETY: takes values only.
    check("hipDeviceSetLimit", unsafe {
        sys::hipDeviceSetLimit(limit, value)
    })
}

/// `hipDeviceSynchronize`: waits for all work on the current device.
/// `_held` proves the capture gate is held, as for
/// [`device_enable_peer_access`].
pub fn device_synchronize(_held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: no arguments.
    check("hipDeviceSynchronize", unsafe {
        sys::hipDeviceSynchronize()
    })
}

/// `hipDeviceGetStreamPriorityRange`: (least, greatest) stream priority of
/// the current device.
pub fn device_get_stream_priority_range() -> Result<(c_int, c_int)> {
    let (mut least, mut greatest) = (0, 0);
    // SAFETY: both are valid ints to write.
    check("hipDeviceGetStreamPriorityRange", unsafe {
        sys::hipDeviceGetStreamPriorityRange(&mut least, &mut greatest)
    })?;
    Ok((least, greatest))
}

/// `hipRuntimeGetVersion`: the loaded runtime's version number.
pub fn runtime_get_version() -> Result<c_int> {
    let mut v = 0;
    // SAFETY: `v` is a valid int to write.
    check("hipRuntimeGetVersion", unsafe {
        sys::hipRuntimeGetVersion(&mut v)
    })?;
    Ok(v)
}

/// `hipDriverGetVersion`: the driver's version number.
pub fn driver_get_version() -> Result<c_int> {
    let mut v = 0;
    // SAFETY: `v` is a valid int to write.
    check("hipDriverGetVersion", unsafe {
        sys::hipDriverGetVersion(&mut v)
    })?;
    Ok(v)
}

/// `hipDeviceReset`: destroys the current device's state and frees all
/// of its memory. It acts on the whole device: `_held` proves the capture
/// gate is held, as for [`device_enable_peer_access`].
///
/// # Safety
///
/// No memory, stream, event or module of the device is used afterwards.
pub unsafe fn device_reset(_held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's promise.
    check("hipDeviceReset", unsafe { sys::hipDeviceReset() })
}

// ---- driver-style devices and contexts ------------------------------------

/// `hipInit`: initializes the runtime (`flags` must be 0).
pub fn init(flags: c_uint) -> Result<()> {
    // SAFETY: takes a value.
    check("hipInit", unsafe { sys::hipInit(flags) })
}

/// `hipDeviceGet`: the device handle of ordinal `ordinal`.
pub fn device_get(ordinal: c_int) -> Result<sys::hipDevice_t> {
    let mut d = 0;
    // SAFETY: `d` is a valid place to write.
    check("hipDeviceGet", unsafe {
        sys::hipDeviceGet(&mut d, ordinal)
    })?;
    Ok(d)
}

/// `hipDeviceGetMemPool`: the current pool of device `ordinal`.
pub fn device_get_mem_pool(ordinal: c_int) -> Result<sys::hipMemPool_t> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid handle slot to write.
    check("hipDeviceGetMemPool", unsafe {
        sys::hipDeviceGetMemPool(&mut p, ordinal)
    })?;
    Ok(p)
}

/// `hipDeviceSetMemPool`: makes `pool` the current pool of device
/// `ordinal`.
///
/// # Safety
///
/// `pool` is a live pool of that device.
pub unsafe fn device_set_mem_pool(ordinal: c_int, pool: sys::hipMemPool_t) -> Result<()> {
    // SAFETY: the caller passes a live pool of the device.
    check("hipDeviceSetMemPool", unsafe {
        sys::hipDeviceSetMemPool(ordinal, pool)
    })
}

/// `hipDevicePrimaryCtxRetain`: the primary context of `dev`, retained
/// (release it with [`device_primary_ctx_release`]).
///
/// # Safety
///
/// Each retain is matched by one release.
pub unsafe fn device_primary_ctx_retain(dev: sys::hipDevice_t) -> Result<sys::hipCtx_t> {
    let mut c = std::ptr::null_mut();
    // SAFETY: `c` is a valid handle slot to write.
    check("hipDevicePrimaryCtxRetain", unsafe {
        sys::hipDevicePrimaryCtxRetain(&mut c, dev)
    })?;
    Ok(c)
}

/// `hipDevicePrimaryCtxRelease`.
///
/// # Safety
///
/// Matches an earlier [`device_primary_ctx_retain`]; nothing of the
/// context is used after the last release.
pub unsafe fn device_primary_ctx_release(dev: sys::hipDevice_t) -> Result<()> {
    // SAFETY: the caller's promise.
    check("hipDevicePrimaryCtxRelease", unsafe {
        sys::hipDevicePrimaryCtxRelease(dev)
    })
}

/// `hipCtxCreate`: a new context on `dev`, made current.
///
/// # Safety
///
/// The caller destroys the context when done.
pub unsafe fn ctx_create(flags: c_uint, dev: sys::hipDevice_t) -> Result<sys::hipCtx_t> {
    let mut c = std::ptr::null_mut();
    // SAFETY: `c` is a valid handle slot to write.
    check("hipCtxCreate", unsafe {
        sys::hipCtxCreate(&mut c, flags, dev)
    })?;
    Ok(c)
}

/// `hipCtxSetCurrent`: makes `ctx` (or none, for null) this thread's
/// context.
///
/// # Safety
///
/// `ctx` is a live context or null.
pub unsafe fn ctx_set_current(ctx: sys::hipCtx_t) -> Result<()> {
    // SAFETY: the caller passes a live context or null.
    check("hipCtxSetCurrent", unsafe { sys::hipCtxSetCurrent(ctx) })
}

/// `hipCtxGetCurrent`: this thread's context (null when none).
pub fn ctx_get_current() -> Result<sys::hipCtx_t> {
    let mut c = std::ptr::null_mut();
    // SAFETY: `c` is a valid handle slot to write.
    check("hipCtxGetCurrent", unsafe { sys::hipCtxGetCurrent(&mut c) })?;
    Ok(c)
}

/// `hipCtxGetDevice`: the device of this thread's context.
pub fn ctx_get_device() -> Result<sys::hipDevice_t> {
    let mut d = 0;
    // SAFETY: `d` is a valid place to write.
    check("hipCtxGetDevice", unsafe { sys::hipCtxGetDevice(&mut d) })?;
    Ok(d)
}

/// `hipCtxSynchronize`: waits for all work of the current context's
/// device. `_held` proves the capture gate is held, as for
/// [`device_synchronize`].
pub fn ctx_synchronize(_held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: no arguments.
    check("hipCtxSynchronize", unsafe { sys::hipCtxSynchronize() })
}

/// `hipCtxGetCacheConfig`: the current context's cache preference.
pub fn ctx_get_cache_config() -> Result<sys::hipFuncCache_t> {
    let mut c = sys::hipFuncCache_t::hipFuncCachePreferNone;
    // SAFETY: `c` is a valid place to write.
    check("hipCtxGetCacheConfig", unsafe {
        sys::hipCtxGetCacheConfig(&mut c)
    })?;
    Ok(c)
}

/// `hipCtxSetCacheConfig`: the current context's cache preference.
pub fn ctx_set_cache_config(config: sys::hipFuncCache_t) -> Result<()> {
    // SAFETY: takes a value.
    check("hipCtxSetCacheConfig", unsafe {
        sys::hipCtxSetCacheConfig(config)
    })
}

/// `hipProfilerStart`: starts the profiler's collection.
pub fn profiler_start() -> Result<()> {
    // SAFETY: no arguments.
    check("hipProfilerStart", unsafe { sys::hipProfilerStart() })
}

/// `hipProfilerStop`: stops the profiler's collection.
pub fn profiler_stop() -> Result<()> {
    // SAFETY: no arguments.
    check("hipProfilerStop", unsafe { sys::hipProfilerStop() })
}

// ---- streams and events ----------------------------------------------------

/// `hipStreamCreateWithPriority`: a new stream on the current device
/// (destroy it with [`stream_destroy`]).
pub fn stream_create_with_priority(flags: c_uint, priority: c_int) -> Result<sys::hipStream_t> {
    let mut s = std::ptr::null_mut();
    // SAFETY: `s` is a valid handle slot to write.
    check("hipStreamCreateWithPriority", unsafe {
        sys::hipStreamCreateWithPriority(&mut s, flags, priority)
    })?;
    Ok(s)
}

/// `hipStreamCreateWithFlags`: a new stream on the current device, of the
/// default priority (destroy it with [`stream_destroy`]).
pub fn stream_create_with_flags(flags: c_uint) -> Result<sys::hipStream_t> {
    let mut s = std::ptr::null_mut();
    // SAFETY: `s` is a valid handle slot to write.
    check("hipStreamCreateWithFlags", unsafe {
        sys::hipStreamCreateWithFlags(&mut s, flags)
    })?;
    Ok(s)
}

/// `hipStreamDestroy`.
///
/// # Safety
///
/// `s` was made by [`stream_create_with_priority`], is destroyed once and
/// not used after this call (nothing enqueued on it still needs it to be
/// valid).
pub unsafe fn stream_destroy(s: sys::hipStream_t) -> Result<()> {
    // SAFETY: the caller passes a stream it owns and no longer uses.
    check("hipStreamDestroy", unsafe { sys::hipStreamDestroy(s) })
}

/// `hipStreamSynchronize`: waits for the work enqueued on `s`.
///
/// # Safety
///
/// `s` is a live stream, or null (the current device's default stream).
#[inline]
pub unsafe fn stream_synchronize(s: sys::hipStream_t) -> Result<()> {
    #[cfg(test)]
    if let Some(out) =
        crate::fake_runtime::intercept(crate::fake_runtime::Request::StreamSynchronize(s))
    {
        return out.map(drop);
    }
    // SAFETY: the caller passes a live stream.
    check("hipStreamSynchronize", unsafe {
        sys::hipStreamSynchronize(s)
    })
}

/// `hipStreamQuery`: `Ok(true)` when the work on `s` is done, `Ok(false)`
/// for `hipErrorNotReady`.
///
/// # Safety
///
/// `s` is a live stream, or null (the current device's default stream).
#[inline]
pub unsafe fn stream_query(s: sys::hipStream_t) -> Result<bool> {
    // SAFETY: the caller passes a live stream.
    let st = unsafe { sys::hipStreamQuery(s) };
    if st.is_success() {
        Ok(true)
    } else if st == sys::hipError_t::hipErrorNotReady {
        Ok(false)
    } else {
        Err(Error::from_hip("hipStreamQuery", st))
    }
}

/// `hipStreamWaitEvent`: makes later work on `s` wait for the last record
/// of `e`.
///
/// # Safety
///
/// `s` is a live stream (or null, the default stream) and `e` a live
/// event.
#[inline]
pub unsafe fn stream_wait_event(s: sys::hipStream_t, e: sys::hipEvent_t) -> Result<()> {
    #[cfg(test)]
    if let Some(out) =
        crate::fake_runtime::intercept(crate::fake_runtime::Request::StreamWaitEvent(s, e))
    {
        return out.map(drop);
    }
    // SAFETY: the caller passes a live stream and event.
    check("hipStreamWaitEvent", unsafe {
        sys::hipStreamWaitEvent(s, e, 0)
    })
}

/// `hipStreamWaitEvent` with its `flags` (0 is the only value HIP
/// defines): as [`stream_wait_event`].
///
/// # Safety
///
/// As [`stream_wait_event`].
#[inline]
pub unsafe fn stream_wait_event_with_flags(
    s: sys::hipStream_t,
    e: sys::hipEvent_t,
    flags: c_uint,
) -> Result<()> {
    // SAFETY: the caller passes a live stream and event.
    check("hipStreamWaitEvent", unsafe {
        sys::hipStreamWaitEvent(s, e, flags)
    })
}

/// `hipStreamAttachMemAsync`: attaches `bytes` of managed memory at `p`
/// to `s` (`flags`: `hipMemAttachGlobal`, ...).
///
/// # Safety
///
/// `s` is a live stream; `p` is managed memory of at least `bytes` bytes.
pub unsafe fn stream_attach_mem_async(
    s: sys::hipStream_t,
    p: *mut c_void,
    bytes: usize,
    flags: c_uint,
) -> Result<()> {
    // SAFETY: the caller passes a live stream and managed memory.
    check("hipStreamAttachMemAsync", unsafe {
        sys::hipStreamAttachMemAsync(s, p, bytes, flags)
    })
}

/// `hipLaunchHostFunc`: enqueues `f(data)` on `s`, run on a runtime thread
/// once the work before it is done.
///
/// # Safety
///
/// `s` is a live stream (or null, the default stream); `data` stays valid
/// for `f` until `f` runs, and `f` is sound to call with it on another
/// thread. `f` must not call HIP (the runtime forbids calls from its
/// callback thread) nor unwind.
#[inline]
pub unsafe fn launch_host_func(
    s: sys::hipStream_t,
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller passes a live stream and data `f` may consume.
    check("hipLaunchHostFunc", unsafe {
        sys::hipLaunchHostFunc(s, Some(f), data)
    })
}

/// `hipEventCreateWithFlags`: a new event on the current device (destroy
/// it with [`event_destroy`]).
pub fn event_create_with_flags(flags: c_uint) -> Result<sys::hipEvent_t> {
    #[cfg(test)]
    if let Some(out) = crate::fake_runtime::intercept(crate::fake_runtime::Request::EventCreate) {
        return out.map(crate::fake_runtime::handle);
    }
    let mut e = std::ptr::null_mut();
    // SAFETY: `e` is a valid handle slot to write.
    check("hipEventCreateWithFlags", unsafe {
        sys::hipEventCreateWithFlags(&mut e, flags)
    })?;
    Ok(e)
}

/// `hipEventDestroy`.
///
/// # Safety
///
/// `e` was made by [`event_create_with_flags`], is destroyed once and not
/// used after this call.
pub unsafe fn event_destroy(e: sys::hipEvent_t) -> Result<()> {
    #[cfg(test)]
    if let Some(out) = crate::fake_runtime::intercept(crate::fake_runtime::Request::EventDestroy(e))
    {
        return out.map(drop);
    }
    // SAFETY: the caller passes an event it owns.
    check("hipEventDestroy", unsafe { sys::hipEventDestroy(e) })
}

/// `hipEventRecord`: records `e` after the work enqueued on `s` so far.
///
/// # Safety
///
/// `e` is a live event and `s` a live stream (or null, the default stream)
/// of the same device.
#[inline]
pub unsafe fn event_record(e: sys::hipEvent_t, s: sys::hipStream_t) -> Result<()> {
    #[cfg(test)]
    if let Some(out) =
        crate::fake_runtime::intercept(crate::fake_runtime::Request::EventRecord(e, s))
    {
        return out.map(drop);
    }
    // SAFETY: the caller passes a live event and stream.
    check("hipEventRecord", unsafe { sys::hipEventRecord(e, s) })
}

/// `hipEventSynchronize`: waits for the last record of `e`.
///
/// # Safety
///
/// `e` is a live event.
pub unsafe fn event_synchronize(e: sys::hipEvent_t) -> Result<()> {
    // SAFETY: the caller passes a live event.
    check("hipEventSynchronize", unsafe {
        sys::hipEventSynchronize(e)
    })
}

/// `hipEventQuery`: `Ok(true)` when the last record of `e` is done,
/// `Ok(false)` for `hipErrorNotReady`.
///
/// # Safety
///
/// `e` is a live event.
pub unsafe fn event_query(e: sys::hipEvent_t) -> Result<bool> {
    // SAFETY: the caller passes a live event.
    let st = unsafe { sys::hipEventQuery(e) };
    if st.is_success() {
        Ok(true)
    } else if st == sys::hipError_t::hipErrorNotReady {
        Ok(false)
    } else {
        Err(Error::from_hip("hipEventQuery", st))
    }
}

/// `hipEventElapsedTime`: milliseconds between the records of `start` and
/// `stop`.
///
/// # Safety
///
/// `start` and `stop` are live events.
pub unsafe fn event_elapsed_time(start: sys::hipEvent_t, stop: sys::hipEvent_t) -> Result<f32> {
    let mut ms = 0.0;
    // SAFETY: the caller passes live events; `ms` is writable.
    check("hipEventElapsedTime", unsafe {
        sys::hipEventElapsedTime(&mut ms, start, stop)
    })?;
    Ok(ms)
}

// ---- memory ----------------------------------------------------------------

/// `hipMalloc`: `bytes` of device memory on the current device (free it
/// with [`free`]).
pub fn malloc(bytes: usize) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid pointer slot to write.
    check("hipMalloc", unsafe { sys::hipMalloc(&mut p, bytes) })?;
    Ok(p)
}

/// `hipFree`. It may synchronize the device: `_held` proves the capture
/// gate is held, as for [`device_enable_peer_access`].
///
/// # Safety
///
/// `p` came from [`malloc`] or [`malloc_managed`] (or is null), is freed
/// once, and no work still running or enqueued uses it.
pub unsafe fn free(p: *mut c_void, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller passes memory from hipMalloc/hipMallocManaged it owns.
    check("hipFree", unsafe { sys::hipFree(p) })
}

/// `hipHostMalloc`: `bytes` of page-locked host memory (free it with
/// [`host_free`]).
pub fn host_malloc(bytes: usize, flags: c_uint) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid pointer slot to write.
    check("hipHostMalloc", unsafe {
        sys::hipHostMalloc(&mut p, bytes, flags)
    })?;
    Ok(p)
}

/// `hipHostFree`. It may synchronize the device: `_held` proves the
/// capture gate is held, as for [`device_enable_peer_access`].
///
/// # Safety
///
/// `p` came from [`host_malloc`] (or is null), is freed once, and no copy
/// still running or enqueued uses it.
pub unsafe fn host_free(p: *mut c_void, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller passes memory from hipHostMalloc it owns.
    check("hipHostFree", unsafe { sys::hipHostFree(p) })
}

/// `hipHostRegister`: page-locks `bytes` of existing host memory at `p`.
/// `_held` proves the capture gate is held, as for
/// [`device_enable_peer_access`].
///
/// # Safety
///
/// `p` is valid host memory of `bytes` bytes until the matching
/// [`host_unregister`].
pub unsafe fn host_register(
    p: *mut c_void,
    bytes: usize,
    flags: c_uint,
    _held: &CaptureHold<'_>,
) -> Result<()> {
    // SAFETY: the caller's promise.
    check("hipHostRegister", unsafe {
        sys::hipHostRegister(p, bytes, flags)
    })
}

/// `hipHostUnregister`. `_held` proves the capture gate is held, as for
/// [`device_enable_peer_access`].
///
/// # Safety
///
/// `p` was registered with [`host_register`] and no copy uses it any more.
pub unsafe fn host_unregister(p: *mut c_void, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's promise.
    check("hipHostUnregister", unsafe { sys::hipHostUnregister(p) })
}

/// `hipMallocManaged`: `bytes` of managed memory, attached globally (free
/// it with [`free`]).
pub fn malloc_managed(bytes: usize) -> Result<*mut c_void> {
    malloc_managed_with_flags(bytes, sys::hipMemAttachGlobal)
}

/// `hipMallocManaged` with its attach flags: `hipMemAttachGlobal` or
/// `hipMemAttachHost` (free it with [`free`]).
pub fn malloc_managed_with_flags(bytes: usize, flags: c_uint) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid pointer slot to write.
    check("hipMallocManaged", unsafe {
        sys::hipMallocManaged(&mut p, bytes, flags)
    })?;
    Ok(p)
}

/// `hipMallocAsync`: `bytes` of device memory from the device's current
/// pool, in `s`'s order (free it with [`free_async`]).
///
/// # Safety
///
/// `s` is a live stream (or null, the default stream).
#[inline]
pub unsafe fn malloc_async(bytes: usize, s: sys::hipStream_t) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: the caller passes a live stream; `p` is writable.
    check("hipMallocAsync", unsafe {
        sys::hipMallocAsync(&mut p, bytes, s)
    })?;
    Ok(p)
}

/// `hipMallocFromPoolAsync`: `bytes` of device memory from `pool`, in
/// `s`'s order (free it with [`free_async`]).
///
/// # Safety
///
/// `pool` is a live pool and `s` a live stream (or null, the default
/// stream) of the pool's device.
#[inline]
pub unsafe fn malloc_from_pool_async(
    bytes: usize,
    pool: sys::hipMemPool_t,
    s: sys::hipStream_t,
) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: the caller passes a live pool and stream; `p` is writable.
    check("hipMallocFromPoolAsync", unsafe {
        sys::hipMallocFromPoolAsync(&mut p, bytes, pool, s)
    })?;
    Ok(p)
}

/// `hipFreeAsync`: frees stream-ordered memory in `s`'s order.
///
/// # Safety
///
/// `p` came from [`malloc_async`] or [`malloc_from_pool_async`], is freed
/// once, and all work using it is enqueued on `s` before this call or
/// ordered before it (events); `s` is a live stream (or null).
#[inline]
pub unsafe fn free_async(p: *mut c_void, s: sys::hipStream_t) -> Result<()> {
    // SAFETY: the caller passes stream-ordered memory it owns and a live stream.
    check("hipFreeAsync", unsafe { sys::hipFreeAsync(p, s) })
}

/// `hipDeviceGetDefaultMemPool`: the default pool of device `ordinal`
/// (owned by the runtime: never destroy it).
pub fn device_get_default_mem_pool(ordinal: c_int) -> Result<sys::hipMemPool_t> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid handle slot to write.
    check("hipDeviceGetDefaultMemPool", unsafe {
        sys::hipDeviceGetDefaultMemPool(&mut p, ordinal)
    })?;
    Ok(p)
}

/// `hipMemPoolCreate`: a new pool with `props` (destroy it with
/// [`mem_pool_destroy`]).
///
/// A non-null `props.win32SecurityAttributes` is refused with
/// [`Error::Invalid`]: the runtime would read through it, and a safe
/// function cannot vouch for a raw pointer.
pub fn mem_pool_create(props: &sys::hipMemPoolProps) -> Result<sys::hipMemPool_t> {
    if !props.win32SecurityAttributes.is_null() {
        return Err(Error::invalid(
            "hipMemPoolCreate",
            "win32SecurityAttributes must be null here",
        ));
    }
    let mut p = std::ptr::null_mut();
    // SAFETY: `props` is a valid struct whose only pointer is null (checked
    // above); `p` is writable.
    check("hipMemPoolCreate", unsafe {
        sys::hipMemPoolCreate(&mut p, props)
    })?;
    Ok(p)
}

/// `hipMemPoolDestroy`. `_held` proves the capture gate is held, as for
/// [`device_enable_peer_access`].
///
/// # Safety
///
/// `p` was made by [`mem_pool_create`], is destroyed once and not used
/// after this call (no allocation from it still in use).
pub unsafe fn mem_pool_destroy(p: sys::hipMemPool_t, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller passes a pool it created.
    check("hipMemPoolDestroy", unsafe { sys::hipMemPoolDestroy(p) })
}

/// `hipMemPoolSetAttribute` for an attribute whose value is a 64-bit
/// integer (such as `hipMemPoolAttrReleaseThreshold`).
///
/// # Safety
///
/// `p` is a live pool, and `attr` is an attribute whose value is a 64-bit
/// integer (the runtime reads 8 bytes).
pub unsafe fn mem_pool_set_attribute_u64(
    p: sys::hipMemPool_t,
    attr: sys::hipMemPoolAttr,
    mut value: u64,
) -> Result<()> {
    // SAFETY: the caller passes a live pool and an attribute whose value is a
    // 64-bit integer; `value` is readable.
    check("hipMemPoolSetAttribute", unsafe {
        sys::hipMemPoolSetAttribute(p, attr, (&mut value as *mut u64).cast())
    })
}

/// `hipMemPoolTrimTo`: releases the pool's unused memory above `keep`
/// bytes.
///
/// # Safety
///
/// `p` is a live pool.
pub unsafe fn mem_pool_trim_to(p: sys::hipMemPool_t, keep: usize) -> Result<()> {
    // SAFETY: the caller passes a live pool.
    check("hipMemPoolTrimTo", unsafe {
        sys::hipMemPoolTrimTo(p, keep)
    })
}

/// `hipMemcpyAsync`: copies `bytes` from `src` to `dst` in `s`'s order.
///
/// # Safety
///
/// `src` is readable and `dst` writable for `bytes` bytes, each of the
/// memory kind `kind` names, from the call until the copy completes
/// (for ordinary, unpinned host memory the runtime may copy before
/// returning); nothing else writes `dst` meanwhile; `s` is a live stream
/// (or null).
#[inline]
pub unsafe fn memcpy_async(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: sys::hipMemcpyKind,
    s: sys::hipStream_t,
) -> Result<()> {
    // SAFETY: the caller passes `bytes` valid bytes at both ends, valid
    // until the copy completes, and a live stream.
    check("hipMemcpyAsync", unsafe {
        sys::hipMemcpyAsync(dst, src, bytes, kind, s)
    })
}

/// `hipMemcpy`: copies `bytes` from `src` to `dst`, returning when done
/// (synchronous with the host).
///
/// # Safety
///
/// `src` is readable and `dst` writable for `bytes` bytes, each of the
/// memory kind `kind` names; nothing else writes `dst` meanwhile.
#[inline]
pub unsafe fn memcpy(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: sys::hipMemcpyKind,
) -> Result<()> {
    // SAFETY: the caller passes `bytes` valid bytes at both ends.
    check("hipMemcpy", unsafe {
        sys::hipMemcpy(dst, src, bytes, kind)
    })
}

/// `hipMemcpyPeerAsync`: copies `bytes` from `src` on device `src_dev` to
/// `dst` on device `dst_dev` in `s`'s order.
///
/// # Safety
///
/// `src` is readable device memory of `src_dev` and `dst` writable device
/// memory of `dst_dev`, `bytes` bytes each, until the copy completes; `s`
/// is a live stream (or null).
pub unsafe fn memcpy_peer_async(
    dst: *mut c_void,
    dst_dev: c_int,
    src: *const c_void,
    src_dev: c_int,
    bytes: usize,
    s: sys::hipStream_t,
) -> Result<()> {
    // SAFETY: the caller passes `bytes` valid device bytes at both ends.
    check("hipMemcpyPeerAsync", unsafe {
        sys::hipMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, s)
    })
}

/// `hipMemsetAsync`: sets `bytes` bytes at `dst` to `value` in `s`'s
/// order.
///
/// # Safety
///
/// `dst` is writable device memory of `bytes` bytes until the fill
/// completes; `s` is a live stream (or null) of its device.
#[inline]
pub unsafe fn memset_async(
    dst: *mut c_void,
    value: u8,
    bytes: usize,
    s: sys::hipStream_t,
) -> Result<()> {
    // SAFETY: the caller passes `bytes` writable device bytes and a live stream.
    check("hipMemsetAsync", unsafe {
        sys::hipMemsetAsync(dst, c_int::from(value), bytes, s)
    })
}

/// `hipMemset`: sets `bytes` bytes at `dst` to `value` (synchronous
/// with the host for device memory).
///
/// # Safety
///
/// `dst` is writable device memory of `bytes` bytes.
#[inline]
pub unsafe fn memset(dst: *mut c_void, value: u8, bytes: usize) -> Result<()> {
    // SAFETY: the caller passes `bytes` writable device bytes.
    check("hipMemset", unsafe {
        sys::hipMemset(dst, c_int::from(value), bytes)
    })
}

/// `hipMemAdvise`: advice about `bytes` of managed memory at `p` for
/// device `ordinal` (or the host, `hipCpuDeviceId`).
///
/// # Safety
///
/// `p` is managed memory of at least `bytes` bytes.
pub unsafe fn mem_advise(
    p: *const c_void,
    bytes: usize,
    advice: sys::hipMemoryAdvise,
    ordinal: c_int,
) -> Result<()> {
    // SAFETY: the caller passes a managed range.
    check("hipMemAdvise", unsafe {
        sys::hipMemAdvise(p, bytes, advice, ordinal)
    })
}

/// `hipMemPoolGetAttribute`: writes `attr` of `pool` to `value`.
///
/// # Safety
///
/// `pool` is live; `value` is valid for a write of the attribute's type.
pub unsafe fn mem_pool_get_attribute(
    pool: sys::hipMemPool_t,
    attr: sys::hipMemPoolAttr,
    value: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's promise.
    check("hipMemPoolGetAttribute", unsafe {
        sys::hipMemPoolGetAttribute(pool, attr, value)
    })
}

/// `hipMemPoolSetAttribute`: sets `attr` of `pool` from `value`.
///
/// # Safety
///
/// `pool` is live; `value` is valid for a read of the attribute's type.
pub unsafe fn mem_pool_set_attribute(
    pool: sys::hipMemPool_t,
    attr: sys::hipMemPoolAttr,
    value: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller's promise.
    check("hipMemPoolSetAttribute", unsafe {
        sys::hipMemPoolSetAttribute(pool, attr, value)
    })
}

/// `hipImportExternalMemory`: memory another API exported, as `desc`
/// describes it (destroy it with [`destroy_external_memory`]).
///
/// # Safety
///
/// `desc` describes a live exported object of at least `desc.size`
/// bytes, with a handle of the type it names.
pub unsafe fn import_external_memory(
    desc: &sys::hipExternalMemoryHandleDesc,
) -> Result<sys::hipExternalMemory_t> {
    let mut m = std::ptr::null_mut();
    // SAFETY: the caller's promise; `m` is a valid handle slot to write.
    check("hipImportExternalMemory", unsafe {
        sys::hipImportExternalMemory(&mut m, desc)
    })?;
    Ok(m)
}

/// `hipDestroyExternalMemory`.
///
/// # Safety
///
/// `m` came from [`import_external_memory`], is destroyed once, and every
/// buffer mapped from it has been freed.
pub unsafe fn destroy_external_memory(m: sys::hipExternalMemory_t) -> Result<()> {
    // SAFETY: the caller's promise.
    check("hipDestroyExternalMemory", unsafe {
        sys::hipDestroyExternalMemory(m)
    })
}

/// `hipExternalMemoryGetMappedBuffer`: the bytes `desc` names of `m` as
/// device memory (free it with [`free`]).
///
/// # Safety
///
/// `m` is live and `desc`'s range lies within it.
pub unsafe fn external_memory_get_mapped_buffer(
    m: sys::hipExternalMemory_t,
    desc: &sys::hipExternalMemoryBufferDesc,
) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: the caller's promise; `p` is a valid pointer slot to write.
    check("hipExternalMemoryGetMappedBuffer", unsafe {
        sys::hipExternalMemoryGetMappedBuffer(&mut p, m, desc)
    })?;
    Ok(p)
}

/// `hipMemPrefetchAsync`: migrates `bytes` of managed memory at `p` to
/// device `ordinal` (or the host, `hipCpuDeviceId`) in `s`'s order.
///
/// # Safety
///
/// `p` is managed memory ([`malloc_managed`]) of at least `bytes` bytes,
/// not freed before the prefetch completes; `s` is a live stream (or
/// null).
pub unsafe fn mem_prefetch_async(
    p: *const c_void,
    bytes: usize,
    ordinal: c_int,
    s: sys::hipStream_t,
) -> Result<()> {
    // SAFETY: the caller passes a managed range and a live stream.
    check("hipMemPrefetchAsync", unsafe {
        sys::hipMemPrefetchAsync(p, bytes, ordinal, s)
    })
}

// ---- modules and launch ----------------------------------------------------

/// `hipModuleLoad`: loads the code object in file `fname` onto the
/// current device (unload it with [`module_unload`]).
pub fn module_load(fname: &std::ffi::CStr) -> Result<sys::hipModule_t> {
    let mut m = std::ptr::null_mut();
    // SAFETY: `fname` is NUL-terminated; `m` is a valid handle slot.
    check("hipModuleLoad", unsafe {
        sys::hipModuleLoad(&mut m, fname.as_ptr())
    })?;
    Ok(m)
}

/// `hipModuleLoadData`: loads a code object (or, on NVIDIA, PTX text) onto
/// the current device (unload it with [`module_unload`]).
///
/// # Safety
///
/// `image` points to a complete, readable code object image (a
/// NUL-terminated string if it is text) for the duration of the call.
pub unsafe fn module_load_data(image: *const c_void) -> Result<sys::hipModule_t> {
    let mut m = std::ptr::null_mut();
    // SAFETY: the caller passes a readable image (NUL-terminated if text).
    check("hipModuleLoadData", unsafe {
        sys::hipModuleLoadData(&mut m, image)
    })?;
    Ok(m)
}

/// `hipModuleUnload`. `_held` proves the capture gate is held, as for
/// [`device_enable_peer_access`].
///
/// # Safety
///
/// `m` was made by [`module_load_data`], is unloaded once, and neither it
/// nor its functions or globals are used after this call (no kernel of it
/// still running or enqueued).
pub unsafe fn module_unload(m: sys::hipModule_t, _held: &CaptureHold<'_>) -> Result<()> {
    #[cfg(test)]
    if let Some(out) = crate::fake_runtime::intercept(crate::fake_runtime::Request::ModuleUnload(m))
    {
        return out.map(drop);
    }
    // SAFETY: the caller passes a module it owns and no longer uses.
    check("hipModuleUnload", unsafe { sys::hipModuleUnload(m) })
}

/// `hipModuleGetFunction`: the kernel `name` of module `m` (valid while the
/// module is loaded).
///
/// # Safety
///
/// `m` is a live module.
pub unsafe fn module_get_function(
    m: sys::hipModule_t,
    name: &std::ffi::CStr,
) -> Result<sys::hipFunction_t> {
    #[cfg(test)]
    if let Some(out) =
        crate::fake_runtime::intercept(crate::fake_runtime::Request::ModuleGetFunction(m))
    {
        return out.map(crate::fake_runtime::handle);
    }
    let mut f = std::ptr::null_mut();
    // SAFETY: the caller passes a live module; `name` is NUL-terminated.
    check("hipModuleGetFunction", unsafe {
        sys::hipModuleGetFunction(&mut f, m, name.as_ptr())
    })?;
    Ok(f)
}

/// `hipModuleGetGlobal`: the device address and size in bytes of the
/// module global `name` (`__device__` or `__constant__`), valid while the
/// module is loaded.
///
/// # Safety
///
/// `m` is a live module.
pub unsafe fn module_get_global(
    m: sys::hipModule_t,
    name: &std::ffi::CStr,
) -> Result<(sys::hipDeviceptr_t, usize)> {
    let mut ptr = std::ptr::null_mut();
    let mut bytes = 0usize;
    // SAFETY: the caller passes a live module; `name` is NUL-terminated; the
    // outputs are valid places.
    check("hipModuleGetGlobal", unsafe {
        sys::hipModuleGetGlobal(&mut ptr, &mut bytes, m, name.as_ptr())
    })?;
    Ok((ptr, bytes))
}

/// `hipFuncGetAttribute`: one attribute of the kernel `f`.
///
/// # Safety
///
/// `f` is a live function (its module is loaded).
pub unsafe fn func_get_attribute(
    attr: sys::hipFunction_attribute,
    f: sys::hipFunction_t,
) -> Result<c_int> {
    let mut v = 0;
    // SAFETY: the caller passes a live function; `v` is writable.
    check("hipFuncGetAttribute", unsafe {
        sys::hipFuncGetAttribute(&mut v, attr, f)
    })?;
    Ok(v)
}

/// `hipFuncSetAttribute`: sets one attribute of the kernel `func`.
///
/// # Safety
///
/// `func` is a live function handle (a [`sys::hipFunction_t`] whose module
/// is loaded, as HIP accepts here) or the host stub of a kernel of this
/// program.
pub unsafe fn func_set_attribute(
    func: *const c_void,
    attr: sys::hipFuncAttribute,
    value: c_int,
) -> Result<()> {
    // SAFETY: the caller passes a live function.
    check("hipFuncSetAttribute", unsafe {
        sys::hipFuncSetAttribute(func, attr, value)
    })
}

/// `hipFuncGetAttributes`: the attributes of the kernel `func`.
///
/// # Safety
///
/// `func` is the host stub of a kernel of this program.
pub unsafe fn func_get_attributes(func: *const c_void) -> Result<sys::hipFuncAttributes> {
    let mut attr = std::mem::MaybeUninit::uninit();
    // SAFETY: the caller passes a kernel's stub; `attr` is writable and
    // read only after success.
    unsafe {
        check(
            "hipFuncGetAttributes",
            sys::hipFuncGetAttributes(attr.as_mut_ptr(), func),
        )?;
        Ok(attr.assume_init())
    }
}

/// `hipGetFuncBySymbol`: the function handle of the kernel whose host stub
/// is `symbol`.
///
/// # Safety
///
/// `symbol` is the host stub of a kernel of this program.
pub unsafe fn get_func_by_symbol(symbol: *const c_void) -> Result<sys::hipFunction_t> {
    let mut f = std::ptr::null_mut();
    // SAFETY: the caller passes a kernel's stub; `f` is writable.
    check("hipGetFuncBySymbol", unsafe {
        sys::hipGetFuncBySymbol(&mut f, symbol)
    })?;
    Ok(f)
}

/// `hipFuncSetCacheConfig`: the preferred cache configuration of the
/// kernel `func`.
///
/// # Safety
///
/// `func` is the host stub of a kernel of this program.
pub unsafe fn func_set_cache_config(
    func: *const c_void,
    config: sys::hipFuncCache_t,
) -> Result<()> {
    // SAFETY: the caller passes a kernel's stub.
    check("hipFuncSetCacheConfig", unsafe {
        sys::hipFuncSetCacheConfig(func, config)
    })
}

/// `hipOccupancyMaxActiveBlocksPerMultiprocessor`, or with `flags`
/// `hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`: how many
/// blocks of `block` threads of the kernel `func` fit on one
/// multiprocessor.
///
/// # Safety
///
/// `func` is the host stub of a kernel of this program.
pub unsafe fn occupancy_max_active_blocks_per_multiprocessor(
    func: *const c_void,
    block: c_int,
    dyn_shared: usize,
    flags: Option<c_uint>,
) -> Result<c_int> {
    let mut n = 0;
    match flags {
        // SAFETY: the caller passes a kernel's stub; `n` is writable.
        None => check("hipOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
            sys::hipOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, func, block, dyn_shared)
        })?,
        Some(flags) => {
            // SAFETY: as above.
            let st = unsafe {
                sys::hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                    &mut n, func, block, dyn_shared, flags,
                )
            };
            check("hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", st)?
        }
    }
    Ok(n)
}

/// `hipModuleOccupancyMaxPotentialBlockSize`: (grid, block) sizes that
/// reach the most occupancy for `f` with `dyn_shared` bytes of dynamic
/// shared memory, blocks at most `block_limit` threads (0: no limit).
///
/// # Safety
///
/// `f` is a live function (its module is loaded).
pub unsafe fn module_occupancy_max_potential_block_size(
    f: sys::hipFunction_t,
    dyn_shared: usize,
    block_limit: c_int,
) -> Result<(c_int, c_int)> {
    let (mut grid, mut block) = (0, 0);
    // SAFETY: the caller passes a live function; outputs are writable.
    check("hipModuleOccupancyMaxPotentialBlockSize", unsafe {
        sys::hipModuleOccupancyMaxPotentialBlockSize(
            &mut grid,
            &mut block,
            f,
            dyn_shared,
            block_limit,
        )
    })?;
    Ok((grid, block))
}

/// `hipModuleOccupancyMaxPotentialBlockSizeWithFlags`: as
/// [`module_occupancy_max_potential_block_size`] with occupancy `flags`
/// (`hipOccupancyDefault`, ...).
///
/// # Safety
///
/// `f` is a live function (its module is loaded).
pub unsafe fn module_occupancy_max_potential_block_size_with_flags(
    f: sys::hipFunction_t,
    dyn_shared: usize,
    block_limit: c_int,
    flags: c_uint,
) -> Result<(c_int, c_int)> {
    let (mut grid, mut block) = (0, 0);
    // SAFETY: the caller passes a live function; outputs are valid places.
    check("hipModuleOccupancyMaxPotentialBlockSizeWithFlags", unsafe {
        sys::hipModuleOccupancyMaxPotentialBlockSizeWithFlags(
            &mut grid,
            &mut block,
            f,
            dyn_shared,
            block_limit,
            flags,
        )
    })?;
    Ok((grid, block))
}

/// `hipModuleOccupancyMaxActiveBlocksPerMultiprocessor`: how many blocks
/// of `block` threads of `f` fit on one multiprocessor.
///
/// # Safety
///
/// `f` is a live function (its module is loaded).
pub unsafe fn module_occupancy_max_active_blocks(
    f: sys::hipFunction_t,
    block: c_int,
    dyn_shared: usize,
) -> Result<c_int> {
    let mut n = 0;
    // SAFETY: the caller passes a live function; `n` is writable.
    let st = unsafe {
        sys::hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(&mut n, f, block, dyn_shared)
    };
    check("hipModuleOccupancyMaxActiveBlocksPerMultiprocessor", st)?;
    Ok(n)
}

/// `hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`: as
/// [`module_occupancy_max_active_blocks`] with occupancy `flags`.
///
/// # Safety
///
/// `f` is a live function (its module is loaded).
pub unsafe fn module_occupancy_max_active_blocks_with_flags(
    f: sys::hipFunction_t,
    block: c_int,
    dyn_shared: usize,
    flags: c_uint,
) -> Result<c_int> {
    let mut n = 0;
    // SAFETY: the caller passes a live function; `n` is writable.
    let st = unsafe {
        sys::hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &mut n, f, block, dyn_shared, flags,
        )
    };
    check(
        "hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
        st,
    )?;
    Ok(n)
}

/// `hipModuleLaunchKernel`, or with `cooperative`
/// `hipModuleLaunchCooperativeKernel` (every block resident at once, for
/// grid-wide synchronization).
///
/// # Safety
///
/// `f` and `s` are live and of the same device; `params` holds one valid
/// pointer per kernel parameter, each to a value of the parameter's type;
/// everything the kernel reads or writes is valid for it until it
/// completes, and it stays in bounds; a cooperative grid fits on the
/// device at once.
#[inline]
#[allow(clippy::too_many_arguments)]
pub unsafe fn module_launch_kernel(
    f: sys::hipFunction_t,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    shared: u32,
    s: sys::hipStream_t,
    params: *mut *mut c_void,
    cooperative: bool,
) -> Result<()> {
    let ((gx, gy, gz), (bx, by, bz)) = (grid, block);
    if cooperative {
        // SAFETY: the caller's contract above.
        check("hipModuleLaunchCooperativeKernel", unsafe {
            sys::hipModuleLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shared, s, params)
        })
    } else {
        // SAFETY: the caller's contract above; no `extra` array.
        check("hipModuleLaunchKernel", unsafe {
            sys::hipModuleLaunchKernel(
                f,
                gx,
                gy,
                gz,
                bx,
                by,
                bz,
                shared,
                s,
                params,
                std::ptr::null_mut(),
            )
        })
    }
}

// ---- graphs ----------------------------------------------------------------

/// `hipStreamIsCapturing`: the capture status of `s` (whether work enqueued
/// on it is being captured into a graph rather than run).
///
/// # Safety
///
/// `s` is a live stream (or null, the default stream).
pub unsafe fn stream_capture_status(s: sys::hipStream_t) -> Result<sys::hipStreamCaptureStatus> {
    let mut status = sys::hipStreamCaptureStatus::hipStreamCaptureStatusNone;
    // SAFETY: the caller passes a live stream; `status` is writable.
    check("hipStreamIsCapturing", unsafe {
        sys::hipStreamIsCapturing(s, &mut status)
    })?;
    Ok(status)
}

/// `hipStreamIsCapturing`: whether work enqueued on `s` is being captured
/// into a graph rather than run (any status but
/// `hipStreamCaptureStatusNone`, an invalidated capture included).
///
/// # Safety
///
/// `s` is a live stream (or null, the default stream).
pub unsafe fn stream_is_capturing(s: sys::hipStream_t) -> Result<bool> {
    // SAFETY: the caller's contract.
    let status = unsafe { stream_capture_status(s) }?;
    Ok(status != sys::hipStreamCaptureStatus::hipStreamCaptureStatusNone)
}

/// `hipStreamBeginCapture`: from now on, work enqueued on `s` is captured
/// into a graph (ended by [`stream_end_capture`]) instead of run.
///
/// # Safety
///
/// `s` is a live, non-default stream; everything the captured work uses
/// stays valid for every launch of the graph made from it.
pub unsafe fn stream_begin_capture(
    s: sys::hipStream_t,
    mode: sys::hipStreamCaptureMode,
) -> Result<()> {
    // SAFETY: the caller passes a live stream.
    check("hipStreamBeginCapture", unsafe {
        sys::hipStreamBeginCapture(s, mode)
    })
}

/// `hipStreamEndCapture`: ends the capture on `s`, returning the graph
/// (destroy it with [`graph_destroy`]), null when nothing was captured.
///
/// # Safety
///
/// `s` is a live stream.
pub unsafe fn stream_end_capture(s: sys::hipStream_t) -> Result<sys::hipGraph_t> {
    let mut g = std::ptr::null_mut();
    // SAFETY: the caller passes a capturing stream; `g` is writable.
    check("hipStreamEndCapture", unsafe {
        sys::hipStreamEndCapture(s, &mut g)
    })?;
    Ok(g)
}

/// `hipGraphDestroy`.
///
/// # Safety
///
/// `g` was made by [`stream_end_capture`] (or another graph constructor),
/// is destroyed once and not used after this call.
pub unsafe fn graph_destroy(g: sys::hipGraph_t) -> Result<()> {
    // SAFETY: the caller passes a graph it owns.
    check("hipGraphDestroy", unsafe { sys::hipGraphDestroy(g) })
}

/// `hipGraphGetNodes` with no node array: the number of nodes of `g`.
///
/// # Safety
///
/// `g` is a live graph.
pub unsafe fn graph_get_node_count(g: sys::hipGraph_t) -> Result<usize> {
    let mut n = 0;
    // SAFETY: a null node array asks for the count only; `n` is writable.
    check("hipGraphGetNodes", unsafe {
        sys::hipGraphGetNodes(g, std::ptr::null_mut(), &mut n)
    })?;
    Ok(n)
}

/// `hipGraphInstantiate`: an executable graph made from `g` (destroy it
/// with [`graph_exec_destroy`]).
///
/// # Safety
///
/// `g` is a live graph.
pub unsafe fn graph_instantiate(g: sys::hipGraph_t) -> Result<sys::hipGraphExec_t> {
    let mut e = std::ptr::null_mut();
    // SAFETY: the caller passes a live graph; null log/error-node are allowed.
    check("hipGraphInstantiate", unsafe {
        sys::hipGraphInstantiate(&mut e, g, std::ptr::null_mut(), std::ptr::null_mut(), 0)
    })?;
    Ok(e)
}

/// `hipGraphInstantiateWithFlags`: as [`graph_instantiate`] with `flags`
/// (e.g. `hipGraphInstantiateFlagAutoFreeOnLaunch`).
///
/// # Safety
///
/// `g` is a live graph.
pub unsafe fn graph_instantiate_with_flags(
    g: sys::hipGraph_t,
    flags: c_ulonglong,
) -> Result<sys::hipGraphExec_t> {
    let mut e = std::ptr::null_mut();
    // SAFETY: the caller passes a live graph; `e` is a valid place.
    check("hipGraphInstantiateWithFlags", unsafe {
        sys::hipGraphInstantiateWithFlags(&mut e, g, flags)
    })?;
    Ok(e)
}

/// `hipGraphExecDestroy`.
///
/// # Safety
///
/// `e` was made by [`graph_instantiate`] or
/// [`graph_instantiate_with_flags`], is destroyed once and not used after
/// this call.
pub unsafe fn graph_exec_destroy(e: sys::hipGraphExec_t) -> Result<()> {
    // SAFETY: the caller passes an executable graph it owns.
    check("hipGraphExecDestroy", unsafe {
        sys::hipGraphExecDestroy(e)
    })
}

/// `hipGraphUpload`: uploads `e` to its device in `s`'s order, ahead of
/// its first launch.
///
/// # Safety
///
/// `e` is a live executable graph and `s` a live stream (or null) of the
/// same device.
pub unsafe fn graph_upload(e: sys::hipGraphExec_t, s: sys::hipStream_t) -> Result<()> {
    // SAFETY: the caller passes a live executable graph and stream.
    check("hipGraphUpload", unsafe { sys::hipGraphUpload(e, s) })
}

/// `hipGraphLaunch`: enqueues one run of `e` on `s`.
///
/// # Safety
///
/// `e` is a live executable graph and `s` a live stream (or null) of the
/// same device; everything the graph's work uses is valid until the run
/// completes.
pub unsafe fn graph_launch(e: sys::hipGraphExec_t, s: sys::hipStream_t) -> Result<()> {
    // SAFETY: the caller passes a live executable graph and stream.
    check("hipGraphLaunch", unsafe { sys::hipGraphLaunch(e, s) })
}

/// `hipGraphExecUpdate`: updates `e` in place to match `g`, returning how
/// it went (`hipGraphExecUpdateSuccess` or why not).
///
/// # Safety
///
/// `e` is a live executable graph and `g` a live graph of the same device;
/// everything `g`'s work uses stays valid for every later launch of `e`.
pub unsafe fn graph_exec_update(
    e: sys::hipGraphExec_t,
    g: sys::hipGraph_t,
) -> Result<sys::hipGraphExecUpdateResult> {
    let mut node = std::ptr::null_mut();
    let mut res = sys::hipGraphExecUpdateResult::hipGraphExecUpdateSuccess;
    // SAFETY: the caller passes live graphs; outputs are writable.
    let st = unsafe { sys::hipGraphExecUpdate(e, g, &mut node, &mut res) };
    check("hipGraphExecUpdate", st)?;
    Ok(res)
}

// ---- hiprtc ----------------------------------------------------------------

/// `hiprtcCreateProgram`: a new program for the source `src` named `name`,
/// with `headers[i]` includable as `include_names[i]` (destroy it with
/// [`rtc_destroy_program`]). Unequal header and name counts are refused
/// with [`Error::Invalid`].
///
/// # Safety
///
/// `headers` and `include_names` hold NUL-terminated strings, as many of
/// each, and both arrays and their strings outlive the program (hiprtc's
/// contract does not say that it copies them at creation).
pub unsafe fn rtc_create_program(
    src: &std::ffi::CStr,
    name: &std::ffi::CStr,
    headers: &[*const c_char],
    include_names: &[*const c_char],
) -> Result<sys::hiprtcProgram> {
    if headers.len() != include_names.len() {
        return Err(Error::invalid(
            "hiprtcCreateProgram",
            "one include name per header",
        ));
    }
    let count = c_int::try_from(headers.len())
        .map_err(|_| Error::invalid("hiprtcCreateProgram", "too many headers"))?;
    let mut p = std::ptr::null_mut();
    // SAFETY: `src` and `name` are NUL-terminated; the arrays hold `count`
    // pointers each (checked above) to strings that, with the arrays,
    // outlive the program (the caller's promise); hiprtc only reads them.
    check_rtc("hiprtcCreateProgram", unsafe {
        sys::hiprtcCreateProgram(
            &mut p,
            src.as_ptr(),
            name.as_ptr(),
            count,
            headers.as_ptr().cast_mut(),
            include_names.as_ptr().cast_mut(),
        )
    })?;
    Ok(p)
}

/// `hiprtcCompileProgram` with the options `opts`. Returns the raw status:
/// a failed compile is not an error of the call (read why with
/// [`rtc_get_program_log`]).
///
/// # Safety
///
/// `p` is a live program not being compiled or read on another thread,
/// and `opts` holds pointers to NUL-terminated strings, valid for the
/// call.
pub unsafe fn rtc_compile_program(
    p: sys::hiprtcProgram,
    opts: &[*const c_char],
) -> sys::hiprtcResult {
    // SAFETY: the caller passes a live program and NUL-terminated options;
    // hiprtc only reads the option array.
    unsafe { sys::hiprtcCompileProgram(p, opts.len() as c_int, opts.as_ptr().cast_mut()) }
}

/// `hiprtcGetProgramLogSize` and `hiprtcGetProgramLog`: the compiler log
/// of `p` (invalid UTF-8 replaced).
///
/// # Safety
///
/// `p` is a live program, not being compiled on another thread.
pub unsafe fn rtc_get_program_log(p: sys::hiprtcProgram) -> Result<String> {
    // SAFETY: the caller's contract.
    let mut buf = unsafe { rtc_get_program_log_bytes(p) }?;
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    buf.truncate(end);
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// `hiprtcGetProgramLogSize` and `hiprtcGetProgramLog`: the compiler log
/// of `p` as hiprtc writes it, NUL-terminated: the size hiprtc reports
/// (which counts the NUL), or one byte more, a NUL, where those bytes do
/// not end in one.
///
/// # Safety
///
/// `p` is a live program, not being compiled on another thread.
pub unsafe fn rtc_get_program_log_bytes(p: sys::hiprtcProgram) -> Result<Vec<u8>> {
    let mut n = 0;
    // SAFETY: the caller passes a live program; `n` is writable.
    check_rtc("hiprtcGetProgramLogSize", unsafe {
        sys::hiprtcGetProgramLogSize(p, &mut n)
    })?;
    let mut buf = vec![0u8; n + 1];
    // SAFETY: `buf` has room for the `n` bytes hiprtc reported, plus one.
    check_rtc("hiprtcGetProgramLog", unsafe {
        sys::hiprtcGetProgramLog(p, buf.as_mut_ptr().cast())
    })?;
    if n > 0 && buf[n - 1] == 0 {
        buf.truncate(n);
    }
    Ok(buf)
}

/// `hiprtcGetCodeSize` and `hiprtcGetCode`: the compiled code object of
/// `p`.
///
/// # Safety
///
/// `p` is a live program, compiled, not being compiled on another thread.
pub unsafe fn rtc_get_code(p: sys::hiprtcProgram) -> Result<Vec<u8>> {
    let mut n = 0;
    // SAFETY: the caller passes a live, compiled program; `n` is writable.
    check_rtc("hiprtcGetCodeSize", unsafe {
        sys::hiprtcGetCodeSize(p, &mut n)
    })?;
    let mut buf = vec![0u8; n];
    // SAFETY: `buf` has room for the `n` bytes hiprtc reported.
    check_rtc("hiprtcGetCode", unsafe {
        sys::hiprtcGetCode(p, buf.as_mut_ptr().cast())
    })?;
    Ok(buf)
}

/// `hiprtcDestroyProgram`.
///
/// # Safety
///
/// `p` was made by [`rtc_create_program`], is destroyed once and not used
/// after this call.
pub unsafe fn rtc_destroy_program(mut p: sys::hiprtcProgram) -> Result<()> {
    // SAFETY: the caller passes a program it owns.
    check_rtc("hiprtcDestroyProgram", unsafe {
        sys::hiprtcDestroyProgram(&mut p)
    })
}

// ---- roctx (profiler annotations) ------------------------------------------
//
// roctx returns no status: these forward the library's values as they are.
// Each takes a `CStr`, so the pointer is valid and NUL-terminated for the
// call, which is all roctx (or NVTX) reads.

/// `roctxMarkA`: an instantaneous marker named `message` (nothing without
/// a roctx or NVTX library: see [`roctx`](crate::roctx)).
pub fn roctx_mark(message: &std::ffi::CStr) {
    // SAFETY: `message` is NUL-terminated and outlives the call.
    unsafe { roctx_sys::roctxMarkA(message.as_ptr()) }
}

/// `roctxRangePushA`: opens a nested range named `message` on this thread;
/// returns the library's level (0 for an outermost range with roctx,
/// negative when nothing is tracked).
pub fn roctx_range_push(message: &std::ffi::CStr) -> c_int {
    // SAFETY: as in `roctx_mark`.
    unsafe { roctx_sys::roctxRangePushA(message.as_ptr()) }
}

/// `roctxRangePop`: closes this thread's innermost range; returns the
/// library's value (the popped range's level with roctx, negative when
/// there was none or nothing is tracked).
pub fn roctx_range_pop() -> c_int {
    // SAFETY: no arguments; popping with no range open is reported by the
    // library's return value, not undefined.
    unsafe { roctx_sys::roctxRangePop() }
}

/// `roctxRangeStartA`: starts a range named `message` that any thread may
/// stop; returns its id for [`roctx_range_stop`] (`0` when no library
/// tracks it).
pub fn roctx_range_start(message: &std::ffi::CStr) -> u64 {
    // SAFETY: as in `roctx_mark`.
    unsafe { roctx_sys::roctxRangeStartA(message.as_ptr()) }
}

/// `roctxRangeStop`: stops the range `id` from [`roctx_range_start`].
pub fn roctx_range_stop(id: u64) {
    // SAFETY: the id is passed by value and nothing is dereferenced; an id
    // the library did not hand out only ends no range.
    unsafe { roctx_sys::roctxRangeStop(id) }
}

/// `roctx_version_major` and `roctx_version_minor`: the loaded roctx
/// library's (major, minor) version, `(0, 0)` without roctx (and on
/// NVIDIA, where NVTX has no version call).
pub fn roctx_version() -> (u32, u32) {
    // SAFETY: no arguments.
    unsafe {
        (
            roctx_sys::roctx_version_major(),
            roctx_sys::roctx_version_minor(),
        )
    }
}
