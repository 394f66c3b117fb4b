//! The thin layer over `hip_sys`: one function per raw call this crate
//! uses, each turning the status into a [`Result`] and output parameters
//! into return values. Handles stay raw here; the safe types own them.
//!
//! Every function is `unsafe` exactly when the raw call's soundness depends
//! on its arguments (pointers and handles); the callers in this crate state
//! why those hold.

#![allow(clippy::missing_safety_doc)] // crate-private; each caller documents its SAFETY

use crate::capture_gate::CaptureHold;
use crate::error::{Error, Result};
use hip_sys as sys;
use std::ffi::{c_char, c_int, c_uint, c_void};

/// `Ok(())` for `hipSuccess`, else the error naming `call`.
#[inline(always)]
pub(crate) fn check(call: &'static str, status: sys::hipError_t) -> Result<()> {
    if status.is_success() {
        Ok(())
    } else {
        Err(Error::from_hip(call, status))
    }
}

#[inline(always)]
pub(crate) fn check_rtc(call: &'static str, status: sys::hiprtcResult) -> Result<()> {
    if status == sys::hiprtcResult::HIPRTC_SUCCESS {
        Ok(())
    } else {
        Err(Error::from_hiprtc(call, status))
    }
}

// The stream and event bookkeeping's calls below (device, events, waits)
// first ask `fake_runtime` in test builds: a unit test that installed the
// fake runs them without a runtime (and under Miri). Release builds call
// the runtime directly.

// ---- devices ---------------------------------------------------------------

pub(crate) fn get_device_count() -> Result<c_int> {
    let mut n = 0;
    // SAFETY: `n` is a valid int to write.
    check("hipGetDeviceCount", unsafe {
        sys::hipGetDeviceCount(&mut n)
    })?;
    Ok(n)
}

#[inline]
pub(crate) fn get_device() -> Result<c_int> {
    #[cfg(test)]
    if let Some(out) = crate::fake_runtime::intercept(crate::fake_runtime::Request::GetDevice) {
        return out.map(|d| d as c_int);
    }
    let mut d = -1;
    // SAFETY: `d` is a valid int to write.
    check("hipGetDevice", unsafe { sys::hipGetDevice(&mut d) })?;
    Ok(d)
}

pub(crate) fn set_device(ordinal: c_int) -> Result<()> {
    #[cfg(test)]
    if let Some(out) =
        crate::fake_runtime::intercept(crate::fake_runtime::Request::SetDevice(ordinal))
    {
        return out.map(drop);
    }
    // SAFETY: takes a value; invalid ordinals return an error status.
    check("hipSetDevice", unsafe { sys::hipSetDevice(ordinal) })
}

pub(crate) fn device_get_attribute(
    attr: sys::hipDeviceAttribute_t,
    ordinal: c_int,
) -> Result<c_int> {
    let mut v = 0;
    // SAFETY: `v` is a valid int to write.
    check("hipDeviceGetAttribute", unsafe {
        sys::hipDeviceGetAttribute(&mut v, attr, ordinal)
    })?;
    Ok(v)
}

pub(crate) fn device_get_name(ordinal: c_int) -> Result<String> {
    let mut buf = [0 as c_char; 256];
    // SAFETY: `buf` holds `len` writable chars.
    check("hipDeviceGetName", unsafe {
        sys::hipDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, ordinal)
    })?;
    Ok(c_chars_to_string(&buf))
}

pub(crate) fn c_chars_to_string(buf: &[c_char]) -> String {
    let bytes: Vec<u8> = buf
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

pub(crate) fn get_device_properties_r0600(ordinal: c_int) -> Result<sys::hipDeviceProp_tR0600> {
    let mut p = sys::hipDeviceProp_tR0600::default();
    // SAFETY: `p` is a properly laid out R0600 struct (the caller checked
    // that the runtime uses this layout).
    check("hipGetDevicePropertiesR0600", unsafe {
        sys::hipGetDevicePropertiesR0600(&mut p, ordinal)
    })?;
    Ok(p)
}

pub(crate) fn get_device_properties_r0000(ordinal: c_int) -> Result<sys::hipDeviceProp_tR0000> {
    let mut p = sys::hipDeviceProp_tR0000::default();
    // SAFETY: `p` is a properly laid out pre-6.0 struct (the caller checked
    // that the runtime uses this layout).
    check("hipGetDevicePropertiesR0000", unsafe {
        sys::hipGetDevicePropertiesR0000(&mut p, ordinal)
    })?;
    Ok(p)
}

pub(crate) fn mem_get_info() -> Result<(usize, usize)> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: both are valid usizes to write.
    check("hipMemGetInfo", unsafe {
        sys::hipMemGetInfo(&mut free, &mut total)
    })?;
    Ok((free, total))
}

pub(crate) fn device_total_mem(ordinal: c_int) -> Result<usize> {
    let mut b = 0;
    // SAFETY: `b` is a valid usize to write.
    check("hipDeviceTotalMem", unsafe {
        sys::hipDeviceTotalMem(&mut b, ordinal)
    })?;
    Ok(b)
}

pub(crate) fn device_compute_capability(ordinal: c_int) -> Result<(c_int, c_int)> {
    let (mut ma, mut mi) = (0, 0);
    // SAFETY: both are valid ints to write.
    check("hipDeviceComputeCapability", unsafe {
        sys::hipDeviceComputeCapability(&mut ma, &mut mi, ordinal)
    })?;
    Ok((ma, mi))
}

pub(crate) fn device_can_access_peer(ordinal: c_int, peer: c_int) -> Result<bool> {
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

pub(crate) fn device_enable_peer_access(peer: c_int, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: takes values only.
    check("hipDeviceEnablePeerAccess", unsafe {
        sys::hipDeviceEnablePeerAccess(peer, 0)
    })
}

pub(crate) fn device_get_limit(limit: sys::hipLimit_t) -> Result<usize> {
    let mut v = 0;
    // SAFETY: `v` is a valid usize to write.
    check("hipDeviceGetLimit", unsafe {
        sys::hipDeviceGetLimit(&mut v, limit)
    })?;
    Ok(v)
}

pub(crate) fn device_set_limit(
    limit: sys::hipLimit_t,
    value: usize,
    _held: &CaptureHold<'_>,
) -> Result<()> {
    // SAFETY: takes values only.
    check("hipDeviceSetLimit", unsafe {
        sys::hipDeviceSetLimit(limit, value)
    })
}

pub(crate) fn device_synchronize(_held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: no arguments.
    check("hipDeviceSynchronize", unsafe {
        sys::hipDeviceSynchronize()
    })
}

pub(crate) fn device_get_stream_priority_range() -> Result<(c_int, c_int)> {
    let (mut least, mut greatest) = (0, 0);
    // SAFETY: both are valid ints to write.
    check("hipDeviceGetStreamPriorityRange", unsafe {
        sys::hipDeviceGetStreamPriorityRange(&mut least, &mut greatest)
    })?;
    Ok((least, greatest))
}

pub(crate) fn runtime_get_version() -> Result<c_int> {
    let mut v = 0;
    // SAFETY: `v` is a valid int to write.
    check("hipRuntimeGetVersion", unsafe {
        sys::hipRuntimeGetVersion(&mut v)
    })?;
    Ok(v)
}

pub(crate) fn driver_get_version() -> Result<c_int> {
    let mut v = 0;
    // SAFETY: `v` is a valid int to write.
    check("hipDriverGetVersion", unsafe {
        sys::hipDriverGetVersion(&mut v)
    })?;
    Ok(v)
}

// ---- streams and events ----------------------------------------------------

pub(crate) fn stream_create_with_priority(
    flags: c_uint,
    priority: c_int,
) -> Result<sys::hipStream_t> {
    let mut s = std::ptr::null_mut();
    // SAFETY: `s` is a valid handle slot to write.
    check("hipStreamCreateWithPriority", unsafe {
        sys::hipStreamCreateWithPriority(&mut s, flags, priority)
    })?;
    Ok(s)
}

pub(crate) unsafe fn stream_destroy(s: sys::hipStream_t) -> Result<()> {
    // SAFETY: the caller passes a stream it owns and no longer uses.
    check("hipStreamDestroy", unsafe { sys::hipStreamDestroy(s) })
}

pub(crate) unsafe fn stream_synchronize(s: sys::hipStream_t) -> Result<()> {
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

/// `Ok(true)` when done, `Ok(false)` for `hipErrorNotReady`.
#[inline]
pub(crate) unsafe fn stream_query(s: sys::hipStream_t) -> Result<bool> {
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

pub(crate) unsafe fn stream_wait_event(s: sys::hipStream_t, e: sys::hipEvent_t) -> Result<()> {
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

pub(crate) unsafe fn launch_host_func(
    s: sys::hipStream_t,
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
) -> Result<()> {
    // SAFETY: the caller passes a live stream and data `f` may consume.
    check("hipLaunchHostFunc", unsafe {
        sys::hipLaunchHostFunc(s, Some(f), data)
    })
}

pub(crate) fn event_create_with_flags(flags: c_uint) -> Result<sys::hipEvent_t> {
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

pub(crate) unsafe fn event_destroy(e: sys::hipEvent_t) -> Result<()> {
    #[cfg(test)]
    if let Some(out) = crate::fake_runtime::intercept(crate::fake_runtime::Request::EventDestroy(e))
    {
        return out.map(drop);
    }
    // SAFETY: the caller passes an event it owns.
    check("hipEventDestroy", unsafe { sys::hipEventDestroy(e) })
}

#[inline]
pub(crate) unsafe fn event_record(e: sys::hipEvent_t, s: sys::hipStream_t) -> Result<()> {
    #[cfg(test)]
    if let Some(out) =
        crate::fake_runtime::intercept(crate::fake_runtime::Request::EventRecord(e, s))
    {
        return out.map(drop);
    }
    // SAFETY: the caller passes a live event and stream.
    check("hipEventRecord", unsafe { sys::hipEventRecord(e, s) })
}

pub(crate) unsafe fn event_synchronize(e: sys::hipEvent_t) -> Result<()> {
    // SAFETY: the caller passes a live event.
    check("hipEventSynchronize", unsafe {
        sys::hipEventSynchronize(e)
    })
}

pub(crate) unsafe fn event_query(e: sys::hipEvent_t) -> Result<bool> {
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

pub(crate) unsafe fn event_elapsed_time(
    start: sys::hipEvent_t,
    stop: sys::hipEvent_t,
) -> Result<f32> {
    let mut ms = 0.0;
    // SAFETY: the caller passes live events; `ms` is writable.
    check("hipEventElapsedTime", unsafe {
        sys::hipEventElapsedTime(&mut ms, start, stop)
    })?;
    Ok(ms)
}

// ---- memory ----------------------------------------------------------------

pub(crate) fn malloc(bytes: usize) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid pointer slot to write.
    check("hipMalloc", unsafe { sys::hipMalloc(&mut p, bytes) })?;
    Ok(p)
}

pub(crate) unsafe fn free(p: *mut c_void, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller passes memory from hipMalloc/hipMallocManaged it owns.
    check("hipFree", unsafe { sys::hipFree(p) })
}

pub(crate) fn host_malloc(bytes: usize, flags: c_uint) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid pointer slot to write.
    check("hipHostMalloc", unsafe {
        sys::hipHostMalloc(&mut p, bytes, flags)
    })?;
    Ok(p)
}

pub(crate) unsafe fn host_free(p: *mut c_void, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller passes memory from hipHostMalloc it owns.
    check("hipHostFree", unsafe { sys::hipHostFree(p) })
}

/// `hipHostRegister`: page-locks `bytes` of existing host memory at `p`.
///
/// # Safety
/// `p` is valid host memory of `bytes` bytes until the matching
/// [`host_unregister`].
pub(crate) unsafe fn host_register(
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

/// `hipHostUnregister`.
///
/// # Safety
/// `p` was registered with [`host_register`] and no copy uses it any more.
pub(crate) unsafe fn host_unregister(p: *mut c_void, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's promise.
    check("hipHostUnregister", unsafe { sys::hipHostUnregister(p) })
}

pub(crate) fn malloc_managed(bytes: usize) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid pointer slot to write.
    check("hipMallocManaged", unsafe {
        sys::hipMallocManaged(&mut p, bytes, sys::hipMemAttachGlobal)
    })?;
    Ok(p)
}

pub(crate) unsafe fn malloc_async(bytes: usize, s: sys::hipStream_t) -> Result<*mut c_void> {
    let mut p = std::ptr::null_mut();
    // SAFETY: the caller passes a live stream; `p` is writable.
    check("hipMallocAsync", unsafe {
        sys::hipMallocAsync(&mut p, bytes, s)
    })?;
    Ok(p)
}

pub(crate) unsafe fn malloc_from_pool_async(
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

pub(crate) unsafe fn free_async(p: *mut c_void, s: sys::hipStream_t) -> Result<()> {
    // SAFETY: the caller passes stream-ordered memory it owns and a live stream.
    check("hipFreeAsync", unsafe { sys::hipFreeAsync(p, s) })
}

pub(crate) fn device_get_default_mem_pool(ordinal: c_int) -> Result<sys::hipMemPool_t> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid handle slot to write.
    check("hipDeviceGetDefaultMemPool", unsafe {
        sys::hipDeviceGetDefaultMemPool(&mut p, ordinal)
    })?;
    Ok(p)
}

pub(crate) fn mem_pool_create(props: &sys::hipMemPoolProps) -> Result<sys::hipMemPool_t> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `props` is a valid struct; `p` is writable.
    check("hipMemPoolCreate", unsafe {
        sys::hipMemPoolCreate(&mut p, props)
    })?;
    Ok(p)
}

pub(crate) unsafe fn mem_pool_destroy(p: sys::hipMemPool_t, _held: &CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller passes a pool it created.
    check("hipMemPoolDestroy", unsafe { sys::hipMemPoolDestroy(p) })
}

pub(crate) unsafe fn mem_pool_set_attribute_u64(
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

pub(crate) unsafe fn mem_pool_trim_to(p: sys::hipMemPool_t, keep: usize) -> Result<()> {
    // SAFETY: the caller passes a live pool.
    check("hipMemPoolTrimTo", unsafe {
        sys::hipMemPoolTrimTo(p, keep)
    })
}

#[inline]
pub(crate) unsafe fn memcpy_async(
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

pub(crate) unsafe fn memcpy_peer_async(
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

pub(crate) unsafe fn memset_async(
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

pub(crate) unsafe fn mem_prefetch_async(
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

pub(crate) unsafe fn module_load_data(image: *const c_void) -> Result<sys::hipModule_t> {
    let mut m = std::ptr::null_mut();
    // SAFETY: the caller passes a readable image (NUL-terminated if text).
    check("hipModuleLoadData", unsafe {
        sys::hipModuleLoadData(&mut m, image)
    })?;
    Ok(m)
}

pub(crate) unsafe fn module_unload(m: sys::hipModule_t, _held: &CaptureHold<'_>) -> Result<()> {
    #[cfg(test)]
    if let Some(out) = crate::fake_runtime::intercept(crate::fake_runtime::Request::ModuleUnload(m))
    {
        return out.map(drop);
    }
    // SAFETY: the caller passes a module it owns and no longer uses.
    check("hipModuleUnload", unsafe { sys::hipModuleUnload(m) })
}

pub(crate) unsafe fn module_get_function(
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

pub(crate) unsafe fn func_get_attribute(
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

pub(crate) unsafe fn module_occupancy_max_potential_block_size(
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

pub(crate) unsafe fn module_occupancy_max_active_blocks(
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

/// `hipModuleLaunchKernel`, or with `cooperative`
/// `hipModuleLaunchCooperativeKernel` (every block resident at once, for
/// grid-wide synchronization).
///
/// # Safety
///
/// `f` and `s` are live; `params` holds one valid pointer per kernel
/// parameter, each to a value of the parameter's type; a cooperative grid
/// fits on the device at once.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn module_launch_kernel(
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

/// `hipStreamIsCapturing`: whether work enqueued on `s` is being captured
/// into a graph rather than run.
///
/// # Safety
/// `s` is a live stream (or null, the default stream).
pub(crate) unsafe fn stream_is_capturing(s: sys::hipStream_t) -> Result<bool> {
    let mut status = sys::hipStreamCaptureStatus::hipStreamCaptureStatusNone;
    // SAFETY: the caller passes a live stream; `status` is writable.
    check("hipStreamIsCapturing", unsafe {
        sys::hipStreamIsCapturing(s, &mut status)
    })?;
    Ok(status != sys::hipStreamCaptureStatus::hipStreamCaptureStatusNone)
}

pub(crate) unsafe fn stream_begin_capture(
    s: sys::hipStream_t,
    mode: sys::hipStreamCaptureMode,
) -> Result<()> {
    // SAFETY: the caller passes a live stream.
    check("hipStreamBeginCapture", unsafe {
        sys::hipStreamBeginCapture(s, mode)
    })
}

pub(crate) unsafe fn stream_end_capture(s: sys::hipStream_t) -> Result<sys::hipGraph_t> {
    let mut g = std::ptr::null_mut();
    // SAFETY: the caller passes a capturing stream; `g` is writable.
    check("hipStreamEndCapture", unsafe {
        sys::hipStreamEndCapture(s, &mut g)
    })?;
    Ok(g)
}

pub(crate) unsafe fn graph_destroy(g: sys::hipGraph_t) -> Result<()> {
    // SAFETY: the caller passes a graph it owns.
    check("hipGraphDestroy", unsafe { sys::hipGraphDestroy(g) })
}

pub(crate) unsafe fn graph_get_node_count(g: sys::hipGraph_t) -> Result<usize> {
    let mut n = 0;
    // SAFETY: a null node array asks for the count only; `n` is writable.
    check("hipGraphGetNodes", unsafe {
        sys::hipGraphGetNodes(g, std::ptr::null_mut(), &mut n)
    })?;
    Ok(n)
}

pub(crate) unsafe fn graph_instantiate(g: sys::hipGraph_t) -> Result<sys::hipGraphExec_t> {
    let mut e = std::ptr::null_mut();
    // SAFETY: the caller passes a live graph; null log/error-node are allowed.
    check("hipGraphInstantiate", unsafe {
        sys::hipGraphInstantiate(&mut e, g, std::ptr::null_mut(), std::ptr::null_mut(), 0)
    })?;
    Ok(e)
}

pub(crate) unsafe fn graph_exec_destroy(e: sys::hipGraphExec_t) -> Result<()> {
    // SAFETY: the caller passes an executable graph it owns.
    check("hipGraphExecDestroy", unsafe {
        sys::hipGraphExecDestroy(e)
    })
}

pub(crate) unsafe fn graph_launch(e: sys::hipGraphExec_t, s: sys::hipStream_t) -> Result<()> {
    // SAFETY: the caller passes a live executable graph and stream.
    check("hipGraphLaunch", unsafe { sys::hipGraphLaunch(e, s) })
}

pub(crate) unsafe fn graph_exec_update(
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

/// # Safety
///
/// `headers` and `include_names` hold NUL-terminated strings, as many of
/// each, and both arrays and their strings outlive the program (hiprtc's
/// contract does not say that it copies them at creation).
pub(crate) unsafe fn rtc_create_program(
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

/// Returns the raw status: a failed compile is not an error of the call.
pub(crate) unsafe fn rtc_compile_program(
    p: sys::hiprtcProgram,
    opts: &[*const c_char],
) -> sys::hiprtcResult {
    // SAFETY: the caller passes a live program and NUL-terminated options;
    // hiprtc only reads the option array.
    unsafe { sys::hiprtcCompileProgram(p, opts.len() as c_int, opts.as_ptr().cast_mut()) }
}

pub(crate) unsafe fn rtc_get_program_log(p: sys::hiprtcProgram) -> Result<String> {
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
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    buf.truncate(end);
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

pub(crate) unsafe fn rtc_get_code(p: sys::hiprtcProgram) -> Result<Vec<u8>> {
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

pub(crate) unsafe fn rtc_destroy_program(mut p: sys::hiprtcProgram) -> Result<()> {
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

pub(crate) fn roctx_mark(message: &std::ffi::CStr) {
    // SAFETY: `message` is NUL-terminated and outlives the call.
    unsafe { roctx_sys::roctxMarkA(message.as_ptr()) }
}

pub(crate) fn roctx_range_push(message: &std::ffi::CStr) -> c_int {
    // SAFETY: as in `roctx_mark`.
    unsafe { roctx_sys::roctxRangePushA(message.as_ptr()) }
}

pub(crate) fn roctx_range_pop() -> c_int {
    // SAFETY: no arguments; popping with no range open is reported by the
    // library's return value, not undefined.
    unsafe { roctx_sys::roctxRangePop() }
}

pub(crate) fn roctx_range_start(message: &std::ffi::CStr) -> u64 {
    // SAFETY: as in `roctx_mark`.
    unsafe { roctx_sys::roctxRangeStartA(message.as_ptr()) }
}

pub(crate) fn roctx_range_stop(id: u64) {
    // SAFETY: the id is passed by value and nothing is dereferenced; an id
    // the library did not hand out only ends no range.
    unsafe { roctx_sys::roctxRangeStop(id) }
}

pub(crate) fn roctx_version() -> (u32, u32) {
    // SAFETY: no arguments.
    unsafe {
        (
            roctx_sys::roctx_version_major(),
            roctx_sys::roctx_version_minor(),
        )
    }
}
