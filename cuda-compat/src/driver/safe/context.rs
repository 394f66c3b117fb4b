//! `CudaContext`, `CudaStream`, `CudaEvent` over `hip::Device`,
//! `hip::Stream` and `hip::Event`.

use crate::driver::result::{fail, invalid, invalid_because, DriverError, ToDriver};
use crate::driver::sys;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, OnceLock};

/// One device, as cudarc's `CudaContext` (HIP has one primary context per
/// device; this is it).
///
/// Event tracking is on by default: every buffer records events for its
/// last read and write, and work on another stream waits for them (see
/// [`crate::driver::CudaSlice`]). [`CudaContext::disable_event_tracking`]
/// turns it off.
///
/// **Threads**: `Send + Sync`: it holds a `hip::Device` (thread-safe) and
/// atomics.
#[derive(Debug)]
pub struct CudaContext {
    pub(crate) device: Arc<hip::Device>,
    pub(crate) ordinal: usize,
    pub(crate) has_async_alloc: bool,
    /// Made by [`CudaContext::new`] (cudarc's primary context) rather than
    /// [`CudaContext::new_non_primary`]/[`CudaContext::from_raw_context`].
    is_primary: bool,
    event_tracking: AtomicBool,
    /// First error seen where none could be returned (drops, guards); 0 for
    /// none.
    error_state: AtomicU32,
    /// That error's reason, taken from the thread that recorded it (it may
    /// not be the thread that checks); written and taken under its lock,
    /// with `error_state`'s changes.
    error_detail: std::sync::Mutex<Option<String>>,
    /// The device's primary-context handle, as an address, once
    /// [`CudaContext::cu_ctx`] has read it (an address keeps the type
    /// `Send + Sync`).
    cu_ctx: OnceLock<usize>,
    /// `CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS`, once asked (a
    /// device's answer does not change): unified memory's access checks
    /// read it at every use.
    concurrent_managed_access: OnceLock<bool>,
}

impl Drop for CudaContext {
    fn drop(&mut self) {
        if let Some(&address) = self.cu_ctx.get() {
            if address != 0 {
                // SAFETY: matches the one retain cu_ctx made. A failure
                // has no one to go to (the context is going away).
                let _ = unsafe { crate::driver::result::primary_ctx::release(self.cu_device()) };
            }
        }
    }
}

impl PartialEq for CudaContext {
    fn eq(&self, other: &CudaContext) -> bool {
        self.ordinal == other.ordinal
    }
}
impl Eq for CudaContext {}

impl CudaContext {
    /// The context of device `ordinal` (`hipSetDevice`, retaining HIP's
    /// primary context). No device: `CUDA_ERROR_NO_DEVICE`; an ordinal out
    /// of range: `CUDA_ERROR_INVALID_DEVICE`.
    pub fn new(ordinal: usize) -> Result<Arc<CudaContext>, DriverError> {
        let count = hip::Device::count().drv()?;
        if ordinal >= count {
            return Err(fail(
                sys::CUresult::CUDA_ERROR_INVALID_DEVICE,
                &format!("device {ordinal} asked for, {count} present"),
            ));
        }
        let device = hip::Device::get(ordinal).drv()?;
        device.bind().drv()?;
        let has_async_alloc = device.supports_memory_pools();
        Ok(Arc::new(CudaContext {
            device,
            ordinal,
            has_async_alloc,
            is_primary: true,
            event_tracking: AtomicBool::new(true),
            error_state: AtomicU32::new(0),
            error_detail: std::sync::Mutex::new(None),
            cu_ctx: OnceLock::new(),
            concurrent_managed_access: OnceLock::new(),
        }))
    }

    /// cudarc's non-primary context (`cuCtxCreate`) of device `ordinal`,
    /// with context `flags` (`CU_CTX_SCHED_*`, `CU_CTX_MAP_HOST`,
    /// `CU_CTX_LMEM_RESIZE_TO_MAX`; 0 for the defaults).
    ///
    /// **Where HIP differs**: HIP's runtime API works in one context per
    /// device, so this is that context (the one [`CudaContext::new`] gives),
    /// not a separate one: buffers and modules are shared with it, and
    /// non-zero `flags` become the device's flags (`hipSetDeviceFlags`,
    /// which some runtimes refuse once the device is in use: that error is
    /// returned). Computations behave as in cudarc; only the isolation
    /// between contexts is missing. [`CudaContext::is_primary`] answers
    /// `false`, as cudarc's does.
    /// Flags HIP has no equivalent for (core dumps, `CU_CTX_SYNC_MEMOPS`)
    /// are `CUDA_ERROR_INVALID_VALUE`; an ordinal out of range is
    /// `CUDA_ERROR_INVALID_DEVICE`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), cuda_compat::driver::DriverError> {
    /// use cuda_compat::driver::{sys, CudaContext};
    /// let ctx = CudaContext::new_non_primary(0, sys::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC as u32)?;
    /// assert!(!ctx.is_primary());
    /// # Ok(()) }
    /// ```
    pub fn new_non_primary(ordinal: usize, flags: u32) -> Result<Arc<CudaContext>, DriverError> {
        // CU_CTX_SCHED_* (bits 0-2), MAP_HOST (3), LMEM_RESIZE_TO_MAX (4):
        // the bits hipSetDeviceFlags knows, with the same values.
        const HIP_CONTEXT_FLAGS: u32 = 0x1f;
        if flags & !HIP_CONTEXT_FLAGS != 0 {
            return Err(invalid_because(
                "context flags beyond CU_CTX_SCHED_*, CU_CTX_MAP_HOST and \
                 CU_CTX_LMEM_RESIZE_TO_MAX have no HIP equivalent",
            ));
        }
        let primary = CudaContext::new(ordinal)?;
        if flags != 0 {
            primary.bind_to_thread()?;
            primary.device.set_flags(flags).drv()?;
        }
        Ok(primary.as_non_primary())
    }

    /// Wraps a context made elsewhere (cudarc's `from_raw_context`):
    /// device `ordinal`, whose handle is `cu_device`, and its context
    /// `cu_ctx`.
    ///
    /// **Where HIP differs**: HIP's runtime API works only in each
    /// device's primary context (`cuDevicePrimaryCtxRetain`), so `cu_ctx`
    /// must be that one; any other context (from `cuCtxCreate`) is
    /// `CUDA_ERROR_NOT_SUPPORTED`, with the reason in
    /// `last_error_detail()`. The primary context is never destroyed: where
    /// cudarc's drop destroys the wrapped context, this leaves it (the
    /// reference the caller handed over stays held until the process
    /// ends). A null context or a device handle that is not `ordinal`'s is
    /// `CUDA_ERROR_INVALID_VALUE`; an ordinal out of range,
    /// `CUDA_ERROR_INVALID_DEVICE`.
    ///
    /// # Safety
    ///
    /// As cudarc's: `cu_ctx` is a live context of `cu_device`, handed over
    /// (the caller neither destroys nor releases it).
    pub unsafe fn from_raw_context(
        ordinal: usize,
        cu_device: sys::CUdevice,
        cu_ctx: sys::CUcontext,
    ) -> Result<Arc<CudaContext>, DriverError> {
        if cu_ctx.is_null() {
            return Err(invalid_because("the context is null"));
        }
        let primary = CudaContext::new(ordinal)?;
        if cu_device != primary.cu_device() {
            return Err(invalid_because(
                "the device handle is not the one of the ordinal's device",
            ));
        }
        // SAFETY: a retain of the primary context, released just below.
        let device_context = unsafe { crate::driver::result::primary_ctx::retain(cu_device) }?;
        // SAFETY: matches the retain above; nothing of it is used after.
        unsafe { crate::driver::result::primary_ctx::release(cu_device) }?;
        if device_context != cu_ctx {
            return Err(fail(
                sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
                "HIP's runtime API works only in the device's primary context; \
                 this context is another one",
            ));
        }
        Ok(primary.as_non_primary())
    }

    /// cudarc's CIG (CUDA in Graphics) context (`cuCtxCreate_v4` with
    /// `cig_params`), which shares resources with a graphics API such as
    /// D3D12.
    ///
    /// **Where HIP differs**: HIP has no CIG contexts, on AMD nor through
    /// its NVIDIA platform (which offers only HIP's calls), so this is
    /// always `CUDA_ERROR_NOT_SUPPORTED`, with the reason in
    /// [`last_error_detail`](crate::driver::result::last_error_detail);
    /// nothing reaches the runtime and `cig_params` is left as it is.
    /// [`CudaContext::new_non_primary`] is the nearest HIP has (a context
    /// with flags, sharing nothing with graphics).
    ///
    /// ```
    /// use cuda_compat::driver::{sys, CudaContext};
    /// let mut cig = sys::CUctxCigParam {
    ///     sharedDataType: sys::CUcigDataType::CIG_DATA_TYPE_D3D12_COMMAND_QUEUE,
    ///     sharedData: std::ptr::null_mut(),
    /// };
    /// let e = CudaContext::new_cig(0, 0, &mut cig).unwrap_err();
    /// assert_eq!(e.0, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
    /// ```
    pub fn new_cig(
        ordinal: usize,
        flags: u32,
        cig_params: &mut sys::CUctxCigParam,
    ) -> Result<Arc<CudaContext>, DriverError> {
        let _ = (ordinal, flags, cig_params);
        Err(fail(
            sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
            "CIG (CUDA in Graphics) contexts have no HIP counterpart, on AMD or \
             through HIP's NVIDIA platform",
        ))
    }

    /// The same device context, answering `false` to `is_primary` (what
    /// the non-primary constructors give under HIP).
    fn as_non_primary(&self) -> Arc<CudaContext> {
        Arc::new(CudaContext {
            device: self.device.clone(),
            ordinal: self.ordinal,
            has_async_alloc: self.has_async_alloc,
            is_primary: false,
            event_tracking: AtomicBool::new(true),
            error_state: AtomicU32::new(0),
            error_detail: std::sync::Mutex::new(None),
            cu_ctx: OnceLock::new(),
            concurrent_managed_access: OnceLock::new(),
        })
    }

    /// Whether it was made by [`CudaContext::new`] (cudarc: whether it
    /// wraps a primary context). Under HIP every context is the device's
    /// one; see [`CudaContext::new_non_primary`].
    pub fn is_primary(&self) -> bool {
        self.is_primary
    }

    /// How many devices are visible (`hipGetDeviceCount`).
    pub fn device_count() -> Result<i32, DriverError> {
        Ok(hip::Device::count().drv()? as i32)
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The `hip` device underneath.
    pub fn hip_device(&self) -> &Arc<hip::Device> {
        &self.device
    }

    /// The device's name (`hipDeviceGetName`).
    pub fn name(&self) -> Result<String, DriverError> {
        self.device.name().drv()
    }

    /// The device's UUID (`hipDeviceGetUuid`).
    pub fn uuid(&self) -> Result<sys::CUuuid, DriverError> {
        let bytes = self.device.uuid().drv()?;
        Ok(sys::CUuuid {
            bytes: bytes.map(|b| b as std::ffi::c_char),
        })
    }

    /// The compute capability (HIP's value: on AMD the gfx version's major
    /// and minor, e.g. (9, 0) for gfx90a).
    pub fn compute_capability(&self) -> Result<(i32, i32), DriverError> {
        self.device.compute_capability().drv()
    }

    /// Total device memory in bytes.
    pub fn total_mem(&self) -> Result<usize, DriverError> {
        self.device.total_memory().drv()
    }

    /// (free, total) device memory in bytes (`hipMemGetInfo`).
    pub fn mem_get_info(&self) -> Result<(usize, usize), DriverError> {
        let m = self.device.memory_info().drv()?;
        Ok((m.free, m.total))
    }

    /// The raw device handle (the ordinal in HIP).
    pub fn cu_device(&self) -> sys::CUdevice {
        self.ordinal as sys::CUdevice
    }

    /// The raw context handle (cudarc's `cu_ctx`): the device's primary
    /// context, which every [`CudaContext`] of the device is under HIP (see
    /// [`CudaContext::new_non_primary`]).
    ///
    /// On AMD it is HIP's primary context (`hipDevicePrimaryCtxRetain`),
    /// which the `cuCtx*` names of [`sys`] accept; on HIP's NVIDIA
    /// platform it is CUDA's own primary `CUcontext`
    /// (`cuDevicePrimaryCtxRetain`), usable with the CUDA driver API.
    /// Read once, then kept: the first call retains the primary context
    /// and this `CudaContext` holds that reference until it is dropped, as
    /// cudarc's does (a CUDA primary context no one holds is inactive, and
    /// its handle must not be made current). Null when the runtime cannot
    /// give it (no runtime, or a device that went away), since cudarc's
    /// signature has no error.
    ///
    /// As in cudarc, the handle is safe to get and unsafe to use: do not
    /// destroy or release it.
    pub fn cu_ctx(&self) -> sys::CUcontext {
        // One retain per `CudaContext`, however many threads ask at once
        // (0 when it failed: nothing to release).
        let address = *self.cu_ctx.get_or_init(|| {
            // SAFETY: a retain of the primary context, released in Drop.
            unsafe { crate::driver::result::primary_ctx::retain(self.cu_device()) }
                .map_or(0, |handle| handle as usize)
        });
        address as sys::CUcontext
    }

    /// Makes this device and its primary context current on the calling
    /// thread, for runtime and driver calls alike (cudarc's sets the context
    /// current), after returning the error recorded by an earlier
    /// asynchronous use ([`CudaContext::check_err`]), as cudarc's does.
    ///
    /// With no context current, or another one, it asks the runtime
    /// (`hipSetDevice`, which on NVIDIA initializes the primary context and
    /// makes it current): setting the primary context's handle current
    /// before the runtime holds it would make an inactive context current,
    /// which cuFFT then fails on (`CUFFT_INTERNAL_ERROR`).
    pub fn bind_to_thread(&self) -> Result<(), DriverError> {
        self.check_err()?;
        // This device's primary context current means this device is
        // current: one read of the current context decides (asking the
        // device as well, `hipGetDevice`, read the same context again).
        if crate::driver::result::ctx::get_current()? != Some(self.cu_ctx()) {
            hip::result::set_device(self.ordinal as i32).drv()?;
        }
        Ok(())
    }

    /// One device attribute (`hipDeviceGetAttribute`); the value is HIP's,
    /// except the warp size, which is CUDA's 32 on every device (CUDA code
    /// compiled through hip-cuda-layer runs in 32-lane warps, also on a
    /// wave64 GPU).
    pub fn attribute(&self, attrib: sys::CUdevice_attribute) -> Result<i32, DriverError> {
        let v = hip::result::device_get_attribute(attrib.into(), self.ordinal as i32).drv()?;
        Ok(crate::warp::cuda_attribute(attrib.into(), v))
    }

    /// Whether the device can access managed memory concurrently with the
    /// host (`CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS`), asked once.
    pub(crate) fn concurrent_managed_access(&self) -> Result<bool, DriverError> {
        if let Some(&yes) = self.concurrent_managed_access.get() {
            return Ok(yes);
        }
        let yes = self
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS)?
            != 0;
        Ok(*self.concurrent_managed_access.get_or_init(|| yes))
    }

    /// Waits for all work on the device (`hipDeviceSynchronize`).
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.device.synchronize().drv()
    }

    /// Whether stream-ordered allocation (`hipMallocAsync`) is used.
    pub fn has_async_alloc(&self) -> bool {
        self.has_async_alloc
    }

    /// One context limit (`hipDeviceGetLimit`); a limit HIP lacks is
    /// `CUDA_ERROR_NOT_SUPPORTED`.
    pub fn get_limit(&self, limit: sys::CUlimit) -> Result<usize, DriverError> {
        self.bind_to_thread()?;
        crate::driver::result::ctx::get_limit(limit)
    }

    /// Sets one context limit (`hipDeviceSetLimit`); a limit HIP lacks is
    /// `CUDA_ERROR_NOT_SUPPORTED`.
    pub fn set_limit(&self, limit: sys::CUlimit, value: usize) -> Result<(), DriverError> {
        let hip_limit = crate::driver::result::ctx::hip_limit(limit)?;
        self.bind_to_thread()?;
        let held = self
            .device
            .hold_captures("cuCtxSetLimit")
            .map_err(crate::driver::result::ours)?;
        hip::result::device_set_limit(hip_limit, value, &held).map_err(crate::driver::result::ours)
    }

    /// The cache preference (`hipDeviceGetCacheConfig`), checked into the
    /// closed enum: a value it does not know is `CUDA_ERROR_UNKNOWN`.
    pub fn get_cache_config(&self) -> Result<sys::CUfunc_cache, DriverError> {
        let open: crate::driver::CUfunc_cache = self.device.cache_config().drv()?.into();
        sys::CUfunc_cache::try_from(open).map_err(|_| {
            fail(
                sys::CUresult::CUDA_ERROR_UNKNOWN,
                &format!("the runtime's cache preference {open:?} is none CUDA names"),
            )
        })
    }

    /// Sets the cache preference (`hipDeviceSetCacheConfig`).
    pub fn set_cache_config(&self, config: sys::CUfunc_cache) -> Result<(), DriverError> {
        self.device.set_cache_config(config.into()).drv()
    }

    /// The device flags (`hipGetDeviceFlags`).
    pub fn flags(&self) -> Result<u32, DriverError> {
        self.device.flags().drv()
    }

    /// Sets the context's flags, as cudarc's `cuCtxSetFlags` does: here
    /// the device flags (`hipSetDeviceFlags`, whose values
    /// [`sys::CUctx_flags`] carries), which is what a primary context's
    /// flags are on HIP.
    ///
    /// ```no_run
    /// # use cuda_compat::driver::{sys, CudaContext};
    /// # fn main() -> Result<(), cuda_compat::driver::DriverError> {
    /// let ctx = CudaContext::new(0)?;
    /// ctx.set_flags(sys::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC)?;
    /// # Ok(()) }
    /// ```
    pub fn set_flags(&self, flags: sys::CUctx_flags) -> Result<(), DriverError> {
        self.bind_to_thread()?;
        self.device.set_flags(flags as u32).drv()
    }

    /// Makes host threads waiting for the device block instead of spin
    /// (`hipDeviceScheduleBlockingSync`).
    pub fn set_blocking_synchronize(&self) -> Result<(), DriverError> {
        self.set_flags(sys::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC)
    }

    /// Whether buffers track their reads and writes with events.
    pub fn is_event_tracking(&self) -> bool {
        self.event_tracking.load(Ordering::Relaxed)
    }

    /// cudarc's name for [`CudaContext::is_event_tracking`].
    pub fn is_managing_stream_synchronization(&self) -> bool {
        self.is_event_tracking()
    }

    /// Whether more than one stream is in use; always answered as event
    /// tracking is (tracking does not wait to see a second stream here).
    pub fn is_in_multi_stream_mode(&self) -> bool {
        self.is_event_tracking()
    }

    /// Turns event tracking back on.
    ///
    /// # Safety
    ///
    /// Buffers allocated while tracking was off have no events: the caller
    /// orders every use of them across streams.
    pub unsafe fn enable_event_tracking(&self) {
        self.event_tracking.store(true, Ordering::Relaxed);
    }

    /// Turns event tracking off: buffers allocated from now on have no
    /// events, and no wait is inserted for any buffer.
    ///
    /// # Safety
    ///
    /// The caller orders every use of a buffer across streams (and its
    /// drop after the last use on another stream) with events or
    /// synchronization.
    pub unsafe fn disable_event_tracking(&self) {
        self.event_tracking.store(false, Ordering::Relaxed);
    }

    /// The first error recorded where none could be returned (in `Drop`,
    /// in a [`crate::driver::SyncOnDrop`]); clears it. Its `Debug` (and
    /// [`last_error_detail`](crate::driver::result::last_error_detail))
    /// gives the reason it was recorded with, on whichever thread that
    /// was, or none: never an unrelated reason of the same status.
    pub fn check_err(&self) -> Result<(), DriverError> {
        // A load first: no write to the shared line while nothing failed.
        if self.error_state.load(Ordering::Relaxed) == 0 {
            return Ok(());
        }
        let mut detail = self.error_detail.lock().unwrap_or_else(|p| p.into_inner());
        match self.error_state.swap(0, Ordering::Relaxed) {
            0 => Ok(()),
            e => Err(crate::driver::result::with_detail(
                crate::driver::cudaError_enum(e),
                detail.take(),
            )),
        }
    }

    /// Records `result`'s error, if any, for [`CudaContext::check_err`],
    /// with this thread's reason for it (when it has one of that status).
    pub fn record_err<T>(&self, result: Result<T, DriverError>) {
        if let Err(e) = result {
            let mut detail = self.error_detail.lock().unwrap_or_else(|p| p.into_inner());
            let first = self
                .error_state
                .compare_exchange(0, e.0 .0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok();
            if first {
                *detail = crate::driver::result::detail_of(e.0);
            }
        }
    }

    /// Runs `release` (a free or a handle's destruction, from `Drop`)
    /// once no capture of the device is open, through hip's capture gate
    /// ([`hip::Device::release_outside_captures`]), and records its error
    /// here.
    pub(crate) fn release_outside_captures(
        self: &Arc<Self>,
        release: impl FnOnce(&hip::CaptureHold<'_>) -> Result<(), DriverError> + Send + 'static,
    ) {
        let ctx = self.clone();
        self.device
            .release_outside_captures(move |held| ctx.record_err(release(held)));
    }

    /// A new event (`hipEventCreateWithFlags`); `None` is
    /// `CU_EVENT_DISABLE_TIMING`, as in cudarc.
    pub fn new_event(
        self: &Arc<Self>,
        flags: Option<sys::CUevent_flags>,
    ) -> Result<CudaEvent, DriverError> {
        let flags = flags.unwrap_or(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING) as u32;
        Ok(CudaEvent {
            event: hip::Event::with_flags(&self.device, flags).drv()?,
            ctx: self.clone(),
        })
    }

    /// The device's default (null) stream.
    pub fn default_stream(self: &Arc<Self>) -> Arc<CudaStream> {
        Arc::new(CudaStream {
            stream: hip::Stream::default_for(&self.device),
            ctx: self.clone(),
        })
    }

    /// The per-thread default stream (`hipStreamPerThread`).
    pub fn per_thread_stream(self: &Arc<Self>) -> Arc<CudaStream> {
        let stream = hip::Stream::per_thread(&self.device);
        Arc::new(CudaStream {
            stream,
            ctx: self.clone(),
        })
    }

    /// Wraps a stream created elsewhere, which stays owned there.
    ///
    /// # Safety
    ///
    /// `stream` is a live stream of this device and outlives the returned
    /// `CudaStream` and everything allocated on it.
    pub unsafe fn wrap_borrowed_stream(self: &Arc<Self>, stream: sys::CUstream) -> Arc<CudaStream> {
        // SAFETY: the caller's contract.
        let stream = unsafe { hip::Stream::from_raw_borrowed(&self.device, stream) };
        Arc::new(CudaStream {
            stream,
            ctx: self.clone(),
        })
    }

    /// A new stream (`hipStreamCreateWithPriority`, non-blocking as
    /// cudarc's: it does not synchronise with the null stream).
    pub fn new_stream(self: &Arc<Self>) -> Result<Arc<CudaStream>, DriverError> {
        self.new_stream_with_priority(0)
    }

    /// A new non-blocking stream with a priority (lower is higher).
    pub fn new_stream_with_priority(
        self: &Arc<Self>,
        priority: i32,
    ) -> Result<Arc<CudaStream>, DriverError> {
        let stream = hip::Stream::with_options(
            &self.device,
            hip::StreamOptions {
                non_blocking: true,
                priority,
            },
        )
        .drv()?;
        Ok(Arc::new(CudaStream {
            stream,
            ctx: self.clone(),
        }))
    }
}

/// An event (`hipEvent_t`), as cudarc's `CudaEvent`.
///
/// **Threads**: `Send + Sync` (a `hip::Event`).
#[derive(Debug)]
pub struct CudaEvent {
    pub(crate) event: hip::Event,
    pub(crate) ctx: Arc<CudaContext>,
}

impl CudaEvent {
    /// The raw handle.
    pub fn cu_event(&self) -> sys::CUevent {
        self.event.as_raw()
    }

    /// Its context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Records the event at the end of `stream` (`hipEventRecord`); the
    /// stream must be of the same device.
    pub fn record(&self, stream: &CudaStream) -> Result<(), DriverError> {
        if stream.ctx.ordinal != self.ctx.ordinal {
            return Err(invalid());
        }
        self.event.record(&stream.stream).drv()
    }

    /// Waits on the host for the recorded work (`hipEventSynchronize`).
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.event.synchronize().drv()
    }

    /// Milliseconds from `self` to `end` (`hipEventElapsedTime`); both need
    /// timing (`CUDA_ERROR_INVALID_HANDLE` otherwise, as CUDA).
    pub fn elapsed_ms(&self, end: &CudaEvent) -> Result<f32, DriverError> {
        if !self.event.has_timing() || !end.event.has_timing() {
            return Err(fail(
                sys::CUresult::CUDA_ERROR_INVALID_HANDLE,
                "elapsed_ms: both events need timing (made without CU_EVENT_DISABLE_TIMING)",
            ));
        }
        end.event.elapsed_ms_since(&self.event).drv()
    }

    /// Whether the recorded work has finished (`hipEventQuery`); an error
    /// (a captured event, an earlier launch's failure) counts as not
    /// complete, as in cudarc (see [`CudaEvent::try_is_complete`]).
    pub fn is_complete(&self) -> bool {
        matches!(self.try_is_complete(), Ok(true))
    }

    /// Whether the recorded work has finished (`hipEventQuery`).
    pub fn try_is_complete(&self) -> Result<bool, DriverError> {
        self.event.query().drv()
    }
}

/// A stream of one device, as cudarc's `CudaStream`.
///
/// **Threads**: `Send + Sync` (a `hip::Stream`).
#[derive(Debug)]
pub struct CudaStream {
    pub(crate) stream: hip::Stream,
    pub(crate) ctx: Arc<CudaContext>,
}

impl PartialEq for CudaStream {
    fn eq(&self, other: &CudaStream) -> bool {
        self.stream.as_raw() == other.stream.as_raw() && self.ctx == other.ctx
    }
}
impl Eq for CudaStream {}

impl CudaStream {
    /// A new stream that starts after the work enqueued on `self` so far.
    pub fn fork(&self) -> Result<Arc<CudaStream>, DriverError> {
        let s = self.ctx.new_stream()?;
        s.join(self)?;
        Ok(s)
    }

    /// The raw handle.
    pub fn cu_stream(&self) -> sys::CUstream {
        self.stream.as_raw()
    }

    /// The `hip` stream underneath.
    pub fn hip_stream(&self) -> &hip::Stream {
        &self.stream
    }

    /// Its context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// Waits on the host for the stream's work (`hipStreamSynchronize`).
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.stream.synchronize().drv()
    }

    /// Records a new event at the end of the stream.
    pub fn record_event(
        &self,
        flags: Option<sys::CUevent_flags>,
    ) -> Result<CudaEvent, DriverError> {
        let e = self.ctx.new_event(flags)?;
        e.record(self)?;
        Ok(e)
    }

    /// Makes later work on this stream wait for `event`
    /// (`hipStreamWaitEvent`); works across devices.
    pub fn wait(&self, event: &CudaEvent) -> Result<(), DriverError> {
        self.stream.wait_event(&event.event).drv()
    }

    /// Makes later work on this stream wait for the work enqueued on
    /// `other` so far.
    ///
    /// Through [`hip::Stream::wait_for`], which this stream remembers:
    /// slices last used on `other` before the join are then used here
    /// without another wait, so a fork's kernels overlap with `other`'s
    /// later ones, as cudarc's per-slice events allow.
    pub fn join(&self, other: &CudaStream) -> Result<(), DriverError> {
        self.stream.wait_for(&other.stream).drv()
    }
}
