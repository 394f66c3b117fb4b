//! The thin layer: [`DriverError`], the status check, the conversion from
//! the safe `hip` crate's errors, and cudarc's `result` functions, each a
//! call of the `hip` crate's [`result`](hip::result) layer whose error
//! keeps its message ([`last_error_detail`]).

use super::generated as raw;
use std::ffi::CStr;
use std::fmt;

/// A failed driver call: the status, as cudarc's `DriverError(CUresult)`.
///
/// The value is HIP's (see the crate docs, "Enums and status values"):
/// compare it with the CUDA-named constants, e.g.
/// `err.0 == CUresult::CUDA_ERROR_NO_DEVICE`. Arguments rejected before any
/// call (mismatched lengths, a buffer of another device) are
/// `CUDA_ERROR_INVALID_VALUE`; something HIP lacks is
/// `CUDA_ERROR_NOT_SUPPORTED`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DriverError(pub raw::CUresult);

impl raw::CUresult {
    /// `Ok(())` for `CUDA_SUCCESS`, else `Err(DriverError(self))`
    /// (cudarc's `CUresult::result`).
    #[inline]
    ///
    /// An error clears this thread's [`last_error_detail`]: the status is
    /// the runtime's own, with no further reason.
    pub fn result(self) -> Result<(), DriverError> {
        if self == raw::CUresult::CUDA_SUCCESS {
            Ok(())
        } else {
            clear_detail();
            Err(DriverError(self))
        }
    }
}

impl DriverError {
    /// The status's name as CUDA's `cuGetErrorName` gives it, e.g.
    /// `CUDA_ERROR_NOT_FOUND`, whatever the platform; a status CUDA has no
    /// name for (one only HIP returns) gets the runtime's own name
    /// (`hipGetErrorName`).
    pub fn error_name(&self) -> Result<&'static CStr, DriverError> {
        if let Some((name, _)) = super::cuda_text::driver(self.0) {
            return Ok(name);
        }
        static_cstr(ours_result::error_name_c_str(self.0.into()))
    }

    /// The status's description as CUDA's `cuGetErrorString` gives it,
    /// e.g. "named symbol not found" for `CUDA_ERROR_NOT_FOUND`, on AMD as
    /// on NVIDIA, so that a program prints what it printed on cudarc; a
    /// status CUDA has no text for gets the runtime's own
    /// (`hipGetErrorString`).
    ///
    /// ```
    /// use cuda_compat::driver::{sys::CUresult, DriverError};
    /// let e = DriverError(CUresult::CUDA_ERROR_NOT_FOUND);
    /// assert_eq!(e.error_string().unwrap().to_str(), Ok("named symbol not found"));
    /// assert_eq!(e.error_name().unwrap().to_str(), Ok("CUDA_ERROR_NOT_FOUND"));
    /// ```
    pub fn error_string(&self) -> Result<&'static CStr, DriverError> {
        if let Some((_, text)) = super::cuda_text::driver(self.0) {
            return Ok(text);
        }
        static_cstr(ours_result::error_string_c_str(self.0.into()))
    }
}

fn static_cstr(p: Option<&'static CStr>) -> Result<&'static CStr, DriverError> {
    p.ok_or_else(|| {
        fail(
            raw::CUresult::CUDA_ERROR_UNKNOWN,
            "no HIP runtime is loaded",
        )
    })
}

impl fmt::Debug for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut t = f.debug_tuple("DriverError");
        t.field(&self.0);
        match self.error_string() {
            Ok(s) => t.field(&s),
            Err(_) => t.field(&"<no description: the HIP runtime is not loaded>"),
        };
        if let Some(why) = detail_of(self.0) {
            t.field(&why);
        }
        t.finish()
    }
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for DriverError {}

// No `From<hip::Error> for DriverError`: cudarc programs rely on
// `DriverError` having no `From` impl but the reflexive one (a closure's
// `Ok(())` followed by `?` is inferred through it, as in cudarc's example
// 06-threading). Conversions go through `ToDriver` instead.

/// Converts a `hip` result into the driver's.
pub(crate) trait ToDriver<T> {
    fn drv(self) -> Result<T, DriverError>;
}

impl<T> ToDriver<T> for hip::Result<T> {
    #[inline]
    fn drv(self) -> Result<T, DriverError> {
        self.map_err(ours)
    }
}

/// The CUDA status that stands for a `hip` error.
pub(crate) fn status_of(e: &hip::Error) -> raw::CUresult {
    match e {
        hip::Error::Hip { status, .. } => (*status).into(),
        hip::Error::Load(_) => raw::CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
        hip::Error::Compile { .. } => raw::CUresult::CUDA_ERROR_INVALID_SOURCE,
        hip::Error::Invalid { .. } => raw::CUresult::CUDA_ERROR_INVALID_VALUE,
        // CUDA's status for a block larger than a kernel can run.
        hip::Error::LaunchBound { .. } => raw::CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        hip::Error::Unsupported { .. } => raw::CUresult::CUDA_ERROR_NOT_SUPPORTED,
        _ => raw::CUresult::CUDA_ERROR_UNKNOWN,
    }
}

/// The `hip` crate's error as the driver's, for cudarc's `result`
/// functions and safe types alike: the status of [`status_of`] (a HIP
/// status as the CUDA status of the same value; a call the platform lacks
/// as `CUDA_ERROR_NOT_SUPPORTED`), with the error's message (the HIP call,
/// its status and what it means) as this thread's reason
/// ([`last_error_detail`]).
#[cold]
#[inline(never)]
pub(crate) fn ours(e: hip::Error) -> DriverError {
    fail(status_of(&e), &e.to_string())
}

/// `CUDA_ERROR_INVALID_VALUE`: an argument rejected before any call, for
/// a reason the status says well enough (the detail is cleared).
#[inline]
pub(crate) fn invalid() -> DriverError {
    clear_detail();
    DriverError(raw::CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// `CUDA_ERROR_INVALID_VALUE` with its reason.
#[cold]
pub(crate) fn invalid_because(why: &str) -> DriverError {
    fail(raw::CUresult::CUDA_ERROR_INVALID_VALUE, why)
}

error_detail! {
    /// The reason for the last driver error this thread got, with its
    /// status: `hip`'s message for a failed call (the HIP function, its
    /// status and what it means), or why the layer refused (PTX loaded on
    /// AMD, mismatched lengths, a buffer of another device, a launch
    /// configuration beyond the device's limits); `None` after an error
    /// that is a raw status (`CUresult::result`). cudarc's `DriverError`
    /// holds only the status; this is where the words are.
    /// `DriverError`'s `Debug` adds the reason when its status matches.
    DriverError(raw::CUresult)
}

// ---------------------------------------------------------------------------
// cudarc's thin wrappers over the raw driver calls, at cudarc's paths
// (`driver::result::stream::create`, `driver::result::malloc_async`, ...):
// each calls the `hip` crate's result function of the HIP call the CUDA
// name stands for and turns its error into a `DriverError` that keeps
// `hip`'s message in [`last_error_detail`]. Where HIP lacks a call, the
// wrapper returns `CUDA_ERROR_NOT_SUPPORTED` with the reason there too.

use super::sys;
use core::ffi::{c_int, c_uchar, c_uint, c_void};
use hip::result as ours_result;
use std::ffi::CString;

/// Wrappers that pass their arguments to one `hip` result function and
/// turn its error into a [`DriverError`]: `pub unsafe fn name(args) =>
/// function(args);`, each with its docs and `# Safety` section (the call's
/// contract, which the caller upholds).
macro_rules! status_calls {
    ($(
        $(#[$doc:meta])*
        pub unsafe fn $name:ident($($arg:ident: $ty:ty),* $(,)?) => $call:ident($($pass:expr),* $(,)?);
    )+) => {$(
        $(#[$doc])*
        pub unsafe fn $name($($arg: $ty),*) -> Result<(), DriverError> {
            // SAFETY: the caller upholds this function's `# Safety`
            // section, which is the call's contract.
            unsafe { ours_result::$call($($pass),*) }.map_err(ours)
        }
    )+};
}

/// `CUDA_ERROR_NOT_SUPPORTED`, with the reason recorded.
#[cold]
fn unsupported(why: &str) -> DriverError {
    fail(raw::CUresult::CUDA_ERROR_NOT_SUPPORTED, why)
}

/// `cuInit(0)`.
pub fn init() -> Result<(), DriverError> {
    ours_result::init(0).map_err(ours)
}

/// `cuMemGetInfo_v2`: (free, total) bytes of the current device.
pub fn mem_get_info() -> Result<(usize, usize), DriverError> {
    ours_result::mem_get_info().map_err(ours)
}

/// Devices: `cuDeviceGet*`.
pub mod device {
    use super::*;

    /// `cuDeviceGet`.
    pub fn get(ordinal: c_int) -> Result<sys::CUdevice, DriverError> {
        ours_result::device_get(ordinal).map_err(ours)
    }

    /// `cuDeviceGetCount`.
    pub fn get_count() -> Result<c_int, DriverError> {
        ours_result::get_device_count().map_err(ours)
    }

    /// `cuDeviceTotalMem_v2`.
    ///
    /// # Safety
    /// `dev` is a device of this process.
    pub unsafe fn total_mem(dev: sys::CUdevice) -> Result<usize, DriverError> {
        ours_result::device_total_mem(dev).map_err(ours)
    }

    /// `cuDeviceGetAttribute` (HIP's attribute values: see the crate docs),
    /// except the warp size, which is CUDA's 32 on every device: CUDA code
    /// compiled through hip-cuda-layer runs in 32-lane warps, also on a
    /// wave64 GPU.
    ///
    /// # Safety
    /// `dev` is a device of this process.
    pub unsafe fn get_attribute(
        dev: sys::CUdevice,
        attrib: sys::CUdevice_attribute,
    ) -> Result<i32, DriverError> {
        let v = ours_result::device_get_attribute(attrib.into(), dev).map_err(ours)?;
        Ok(crate::warp::cuda_attribute(attrib.into(), v))
    }

    /// `cuDeviceGetName`.
    pub fn get_name(dev: sys::CUdevice) -> Result<String, DriverError> {
        ours_result::device_get_name(dev).map_err(ours)
    }

    /// `cuDeviceGetUuid`.
    pub fn get_uuid(dev: sys::CUdevice) -> Result<sys::CUuuid, DriverError> {
        ours_result::device_get_uuid(dev).map_err(ours)
    }

    /// `cuDeviceGetDefaultMemPool`.
    ///
    /// # Safety
    /// `dev` is a device of this process.
    pub unsafe fn get_default_mem_pool(
        dev: sys::CUdevice,
    ) -> Result<sys::CUmemoryPool, DriverError> {
        ours_result::device_get_default_mem_pool(dev).map_err(ours)
    }

    /// `cuDeviceGetMemPool`.
    ///
    /// # Safety
    /// `dev` is a device of this process.
    pub unsafe fn get_mem_pool(dev: sys::CUdevice) -> Result<sys::CUmemoryPool, DriverError> {
        ours_result::device_get_mem_pool(dev).map_err(ours)
    }

    /// `cuDeviceSetMemPool`.
    ///
    /// # Safety
    /// `pool` is a live pool of `dev`.
    pub unsafe fn set_mem_pool(
        dev: sys::CUdevice,
        pool: sys::CUmemoryPool,
    ) -> Result<(), DriverError> {
        // SAFETY: the caller gives a live pool of the device.
        unsafe { ours_result::device_set_mem_pool(dev, pool) }.map_err(ours)
    }
}

/// Kernel attributes: `cuFuncGetAttribute`, `hipFuncSetAttribute`,
/// `hipFuncSetCacheConfig`.
pub mod function {
    use super::*;

    /// `cuFuncGetAttribute`.
    ///
    /// # Safety
    /// `f` is a live function.
    pub unsafe fn get_function_attribute(
        f: sys::CUfunction,
        attribute: sys::CUfunction_attribute_enum,
    ) -> Result<i32, DriverError> {
        // SAFETY: the caller gives a live function.
        unsafe { ours_result::func_get_attribute(attribute.into(), f) }.map_err(ours)
    }

    /// `cuFuncSetAttribute` over `hipFuncSetAttribute`, for the two
    /// attributes CUDA lets a program set (maximum dynamic shared memory,
    /// preferred carve-out); any other is `CUDA_ERROR_INVALID_VALUE`, as in
    /// CUDA.
    ///
    /// # Safety
    /// `f` is a live function.
    pub unsafe fn set_function_attribute(
        f: sys::CUfunction,
        attribute: sys::CUfunction_attribute_enum,
        value: i32,
    ) -> Result<(), DriverError> {
        use hip::sys::hipFuncAttribute as A;
        let hip_attr = if attribute
            == sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        {
            A::hipFuncAttributeMaxDynamicSharedMemorySize
        } else if attribute
            == sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT
        {
            A::hipFuncAttributePreferredSharedMemoryCarveout
        } else {
            return Err(invalid_because(&format!(
                "{attribute:?} cannot be set (only the maximum dynamic shared memory and the carve-out can)"
            )));
        };
        // SAFETY: HIP takes the function handle as the function's address;
        // the caller gives a live function.
        unsafe { ours_result::func_set_attribute(f as *const c_void, hip_attr, value) }
            .map_err(ours)
    }

    /// `cuFuncSetCacheConfig` over `hipFuncSetCacheConfig`.
    ///
    /// # Safety
    /// `f` is a live function.
    pub unsafe fn set_function_cache_config(
        f: sys::CUfunction,
        attribute: sys::CUfunc_cache,
    ) -> Result<(), DriverError> {
        // SAFETY: HIP takes the function handle as the function's address;
        // the caller gives a live function.
        unsafe { ours_result::func_set_cache_config(f as *const c_void, attribute.into()) }
            .map_err(ours)
    }
}

/// Occupancy: `cuOccupancy*`.
pub mod occupancy {
    use super::*;

    /// `cuOccupancyAvailableDynamicSMemPerBlock`: not in HIP, so
    /// `CUDA_ERROR_NOT_SUPPORTED`.
    ///
    /// # Safety
    /// `f` is a live function.
    pub unsafe fn available_dynamic_shared_mem_per_block(
        f: sys::CUfunction,
        num_blocks: c_int,
        block_size: c_int,
    ) -> Result<usize, DriverError> {
        let _ = (f, num_blocks, block_size);
        Err(unsupported(
            "cuOccupancyAvailableDynamicSMemPerBlock has no HIP counterpart",
        ))
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
    ///
    /// # Safety
    /// `f` is a live function.
    pub unsafe fn max_active_block_per_multiprocessor(
        f: sys::CUfunction,
        block_size: c_int,
        dynamic_smem_size: usize,
    ) -> Result<i32, DriverError> {
        // SAFETY: the caller gives a live function.
        unsafe { ours_result::module_occupancy_max_active_blocks(f, block_size, dynamic_smem_size) }
            .map_err(ours)
    }

    /// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`.
    ///
    /// # Safety
    /// `f` is a live function.
    pub unsafe fn max_active_block_per_multiprocessor_with_flags(
        f: sys::CUfunction,
        block_size: c_int,
        dynamic_smem_size: usize,
        flags: c_uint,
    ) -> Result<i32, DriverError> {
        // SAFETY: the caller gives a live function.
        unsafe {
            ours_result::module_occupancy_max_active_blocks_with_flags(
                f,
                block_size,
                dynamic_smem_size,
                flags,
            )
        }
        .map_err(ours)
    }

    /// `cuOccupancyMaxPotentialBlockSize`: (minimum grid size, block size).
    /// HIP's call takes a fixed dynamic shared memory size, so a
    /// size-per-block function is `CUDA_ERROR_NOT_SUPPORTED`.
    ///
    /// # Safety
    /// `f` is a live function.
    pub unsafe fn max_potential_block_size(
        f: sys::CUfunction,
        block_size_to_dynamic_smem_size: sys::CUoccupancyB2DSize,
        dynamic_smem_size: usize,
        block_size_limit: c_int,
    ) -> Result<(i32, i32), DriverError> {
        // SAFETY: the caller gives a live function.
        unsafe {
            max_potential_block_size_with_flags(
                f,
                block_size_to_dynamic_smem_size,
                dynamic_smem_size,
                block_size_limit,
                0,
            )
        }
    }

    /// `cuOccupancyMaxPotentialBlockSizeWithFlags`; see
    /// [`max_potential_block_size`].
    ///
    /// # Safety
    /// `f` is a live function.
    pub unsafe fn max_potential_block_size_with_flags(
        f: sys::CUfunction,
        block_size_to_dynamic_smem_size: sys::CUoccupancyB2DSize,
        dynamic_smem_size: usize,
        block_size_limit: c_int,
        flags: c_uint,
    ) -> Result<(i32, i32), DriverError> {
        if block_size_to_dynamic_smem_size.is_some() {
            return Err(unsupported(
                "HIP's occupancy calls take a fixed dynamic shared memory size, not a function of the block size",
            ));
        }
        // SAFETY: the caller gives a live function.
        unsafe {
            ours_result::module_occupancy_max_potential_block_size_with_flags(
                f,
                dynamic_smem_size,
                block_size_limit,
                flags,
            )
        }
        .map_err(ours)
    }
}

/// Primary contexts: `cuDevicePrimaryCtx*`.
pub mod primary_ctx {
    use super::*;

    /// `cuDevicePrimaryCtxRetain`.
    ///
    /// # Safety
    /// Each retain is matched by one [`release`].
    pub unsafe fn retain(dev: sys::CUdevice) -> Result<sys::CUcontext, DriverError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::device_primary_ctx_retain(dev) }.map_err(ours)
    }

    status_calls! {
        /// `cuDevicePrimaryCtxRelease_v2`.
        ///
        /// # Safety
        /// Matches an earlier [`retain`]; nothing of the context is used after
        /// the last release.
        pub unsafe fn release(dev: sys::CUdevice) => device_primary_ctx_release(dev);
    }
}

/// Contexts: `cuCtx*`.
pub mod ctx {
    use super::*;

    /// `cuCtxCreate_v3` without execution-affinity parameters, which is
    /// `cuCtxCreate_v2` (`hipCtxCreate`).
    ///
    /// # Safety
    /// The context is destroyed by the caller when done.
    pub unsafe fn create_v3(
        flags: c_uint,
        dev: sys::CUdevice,
    ) -> Result<sys::CUcontext, DriverError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::ctx_create(flags, dev) }.map_err(ours)
    }

    /// `cuCtxCreate_v4`: HIP has neither execution affinity nor CIG, so
    /// parameters asking for either are `CUDA_ERROR_NOT_SUPPORTED`; without
    /// them this is [`create_v3`].
    ///
    /// # Safety
    /// `ctx_create_params` is null or valid for reads; the context is
    /// destroyed by the caller when done.
    pub unsafe fn create_v4(
        ctx_create_params: *mut sys::CUctxCreateParams,
        flags: c_uint,
        dev: sys::CUdevice,
    ) -> Result<sys::CUcontext, DriverError> {
        // SAFETY: null or valid for reads, by the caller.
        if let Some(p) = unsafe { ctx_create_params.as_ref() } {
            if !p.execAffinityParams.is_null()
                || p.numExecAffinityParams != 0
                || !p.cigParams.is_null()
            {
                return Err(unsupported(
                    "HIP contexts have no execution affinity or CIG parameters",
                ));
            }
        }
        // SAFETY: upheld by the caller.
        unsafe { create_v3(flags, dev) }
    }

    status_calls! {
        /// `cuCtxSetCurrent`.
        ///
        /// # Safety
        /// `ctx` is a live context (or null to unset).
        pub unsafe fn set_current(ctx: sys::CUcontext) => ctx_set_current(ctx);
    }

    /// `cuCtxGetCurrent`: `None` when no context is current.
    pub fn get_current() -> Result<Option<sys::CUcontext>, DriverError> {
        let ctx = ours_result::ctx_get_current().map_err(ours)?;
        Ok((!ctx.is_null()).then_some(ctx))
    }

    /// `cuCtxSetFlags` over `hipSetDeviceFlags` (HIP keeps these flags per
    /// device, which is what a primary context's flags are).
    pub fn set_flags(flags: sys::CUctx_flags) -> Result<(), DriverError> {
        ours_result::set_device_flags(flags as c_uint).map_err(ours)
    }

    /// `cuCtxSynchronize`. It waits for the whole device, which CUDA
    /// forbids while one of its streams captures: it holds the current
    /// device's capture gate (`hip`'s), and fails when this thread captures.
    pub fn synchronize() -> Result<(), DriverError> {
        crate::gate::holding_current("cuCtxSynchronize", ours_result::ctx_synchronize).map_err(ours)
    }

    /// HIP's limit of `limit`'s meaning; a limit HIP lacks is
    /// `CUDA_ERROR_NOT_SUPPORTED`.
    pub(crate) fn hip_limit(limit: sys::CUlimit) -> Result<hip::sys::hipLimit_t, DriverError> {
        match limit.to_hip() {
            Some(l) => Ok(l),
            None => Err(unsupported(&format!("HIP has no limit {limit:?}"))),
        }
    }

    /// `cuCtxGetLimit` (`hipDeviceGetLimit`); a limit HIP lacks is
    /// `CUDA_ERROR_NOT_SUPPORTED`.
    pub fn get_limit(limit: sys::CUlimit) -> Result<usize, DriverError> {
        ours_result::device_get_limit(hip_limit(limit)?).map_err(ours)
    }

    /// `cuCtxSetLimit` (`hipDeviceSetLimit`), holding the current device's
    /// capture gate as [`synchronize`] does; a limit HIP lacks is
    /// `CUDA_ERROR_NOT_SUPPORTED`.
    pub fn set_limit(limit: sys::CUlimit, value: usize) -> Result<(), DriverError> {
        let limit = hip_limit(limit)?;
        crate::gate::holding_current("cuCtxSetLimit", |held| {
            ours_result::device_set_limit(limit, value, held)
        })
        .map_err(ours)
    }

    /// `cuCtxGetCacheConfig`: a value the closed enum does not know is
    /// `CUDA_ERROR_UNKNOWN`.
    pub fn get_cache_config() -> Result<sys::CUfunc_cache, DriverError> {
        let open: raw::CUfunc_cache = ours_result::ctx_get_cache_config().map_err(ours)?.into();
        sys::CUfunc_cache::try_from(open).map_err(|_| {
            fail(
                raw::CUresult::CUDA_ERROR_UNKNOWN,
                &format!("the runtime's cache preference {open:?} is none CUDA names"),
            )
        })
    }

    /// `cuCtxSetCacheConfig`.
    pub fn set_cache_config(config: sys::CUfunc_cache) -> Result<(), DriverError> {
        ours_result::ctx_set_cache_config(config.into()).map_err(ours)
    }
}

/// Streams: `cuStream*`.
pub mod stream {
    use super::*;

    /// Whether a stream synchronizes with the null stream.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum StreamKind {
        /// It does (`CU_STREAM_DEFAULT`).
        Default,
        /// It does not (`CU_STREAM_NON_BLOCKING`).
        NonBlocking,
    }

    impl StreamKind {
        fn flags(self) -> c_uint {
            match self {
                StreamKind::Default => hip::sys::hipStreamDefault,
                StreamKind::NonBlocking => hip::sys::hipStreamNonBlocking,
            }
        }
    }

    /// The null stream.
    pub fn null() -> sys::CUstream {
        std::ptr::null_mut()
    }

    /// `cuStreamCreate`.
    pub fn create(kind: StreamKind) -> Result<sys::CUstream, DriverError> {
        ours_result::stream_create_with_flags(kind.flags()).map_err(ours)
    }

    /// `cuStreamCreateWithPriority`.
    pub fn create_with_priority(
        kind: StreamKind,
        priority: i32,
    ) -> Result<sys::CUstream, DriverError> {
        ours_result::stream_create_with_priority(kind.flags(), priority).map_err(ours)
    }

    /// `cuCtxGetStreamPriorityRange`: (least, greatest).
    pub fn get_priority_range() -> Result<(i32, i32), DriverError> {
        ours_result::device_get_stream_priority_range().map_err(ours)
    }

    status_calls! {
        /// `cuStreamSynchronize`.
        ///
        /// # Safety
        /// `stream` is live (or null).
        pub unsafe fn synchronize(stream: sys::CUstream) => stream_synchronize(stream);

        /// `cuStreamDestroy_v2`.
        ///
        /// # Safety
        /// `stream` is live and not used afterwards.
        pub unsafe fn destroy(stream: sys::CUstream) => stream_destroy(stream);
    }

    /// `cuStreamWaitEvent` (external waits are not in HIP).
    ///
    /// # Safety
    /// `stream` and `event` are live.
    pub unsafe fn wait_event(
        stream: sys::CUstream,
        event: sys::CUevent,
        flags: sys::CUevent_wait_flags,
    ) -> Result<(), DriverError> {
        if flags != sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT {
            return Err(unsupported("HIP streams have no external event waits"));
        }
        // SAFETY: upheld by the caller.
        unsafe { ours_result::stream_wait_event(stream, event) }.map_err(ours)
    }

    status_calls! {
        /// `cuStreamAttachMemAsync`.
        ///
        /// # Safety
        /// `stream` is live; `dptr` is managed memory of at least `num_bytes`.
        pub unsafe fn attach_mem_async(stream: sys::CUstream, dptr: sys::CUdeviceptr, num_bytes: usize, flags: sys::CUmemAttach_flags) => stream_attach_mem_async(stream, dptr as *mut c_void, num_bytes, flags as c_uint);
    }

    /// `cuLaunchHostFunc`.
    ///
    /// # Safety
    /// `stream` is live; `func` may be called with `arg` on another thread
    /// once the stream reaches it, and must not call HIP.
    pub unsafe fn launch_host_function(
        stream: sys::CUstream,
        func: unsafe extern "C" fn(*mut c_void),
        arg: *mut c_void,
    ) -> Result<(), DriverError> {
        // SAFETY: upheld by the caller.
        unsafe { ours_result::launch_host_func(stream, func, arg) }.map_err(ours)
    }

    status_calls! {
        /// `cuStreamBeginCapture_v2`.
        ///
        /// # Safety
        /// `stream` is live and not the null stream.
        pub unsafe fn begin_capture(stream: sys::CUstream, mode: sys::CUstreamCaptureMode) => stream_begin_capture(stream, mode.into());
    }

    /// `cuStreamEndCapture`.
    ///
    /// # Safety
    /// `stream` is live and capturing.
    pub unsafe fn end_capture(stream: sys::CUstream) -> Result<sys::CUgraph, DriverError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::stream_end_capture(stream) }.map_err(ours)
    }

    /// `cuStreamIsCapturing`.
    ///
    /// # Safety
    /// `stream` is live.
    pub unsafe fn is_capturing(
        stream: sys::CUstream,
    ) -> Result<sys::CUstreamCaptureStatus, DriverError> {
        // SAFETY: the caller's contract.
        let status = unsafe { ours_result::stream_capture_status(stream) }.map_err(ours)?;
        Ok(status.into())
    }
}

/// `cuMemAllocAsync`.
///
/// # Safety
/// `stream` is live; the memory is freed (on a stream ordered after its
/// last use) by the caller.
pub unsafe fn malloc_async(
    stream: sys::CUstream,
    num_bytes: usize,
) -> Result<sys::CUdeviceptr, DriverError> {
    // SAFETY: the caller's contract.
    let p = unsafe { ours_result::malloc_async(num_bytes, stream) }.map_err(ours)?;
    Ok(p as sys::CUdeviceptr)
}

/// `cuMemAlloc_v2`.
///
/// # Safety
/// The memory is freed by the caller.
pub unsafe fn malloc_sync(num_bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
    let p = ours_result::malloc(num_bytes).map_err(ours)?;
    Ok(p as sys::CUdeviceptr)
}

/// `cuMemAllocManaged`.
///
/// # Safety
/// The memory is freed by the caller.
pub unsafe fn malloc_managed(
    num_bytes: usize,
    flags: sys::CUmemAttach_flags,
) -> Result<sys::CUdeviceptr, DriverError> {
    let p = ours_result::malloc_managed_with_flags(num_bytes, flags as c_uint).map_err(ours)?;
    Ok(p as sys::CUdeviceptr)
}

/// `cuMemHostAlloc`: pinned host memory.
///
/// # Safety
/// The memory is freed with [`free_host`] by the caller.
pub unsafe fn malloc_host(num_bytes: usize, flags: c_uint) -> Result<*mut c_void, DriverError> {
    ours_result::host_malloc(num_bytes, flags).map_err(ours)
}

/// `cuMemFreeHost`, holding the current device's capture gate (`hipHostFree`
/// may synchronize the device).
///
/// # Safety
/// `host_ptr` came from [`malloc_host`] and is not used afterwards.
pub unsafe fn free_host(host_ptr: *mut c_void) -> Result<(), DriverError> {
    crate::gate::holding_current("cuMemFreeHost", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::host_free(host_ptr, held) }
    })
    .map_err(ours)
}

/// The device id HIP's memory-advice calls take for a location: the
/// device's ordinal, or HIP's CPU device id (`hipCpuDeviceId`, -1) for the
/// host. HIP 6.4's `hipMemLocationType` has no host value; CUDA's
/// `CU_MEM_LOCATION_TYPE_HOST` (2) is taken as the host, since no HIP value
/// is 2.
fn location_device(location: sys::CUmemLocation) -> Result<sys::CUdevice, DriverError> {
    const CPU_DEVICE_ID: c_int = -1;
    const CUDA_LOCATION_HOST: c_uint = 2;
    if location.type_ == hip::sys::hipMemLocationType::hipMemLocationTypeDevice {
        Ok(location.id)
    } else if location.type_.0 == CUDA_LOCATION_HOST {
        Ok(CPU_DEVICE_ID)
    } else {
        Err(unsupported(&format!(
            "a memory location of type {:?} (HIP advises devices and the host)",
            location.type_
        )))
    }
}

/// `cuMemAdvise_v2` over `hipMemAdvise` (a device or the host).
///
/// # Safety
/// `dptr` is managed memory of at least `num_bytes`.
pub unsafe fn mem_advise(
    dptr: sys::CUdeviceptr,
    num_bytes: usize,
    advice: sys::CUmem_advise,
    location: sys::CUmemLocation,
) -> Result<(), DriverError> {
    let device = location_device(location)?;
    // SAFETY: upheld by the caller.
    unsafe { ours_result::mem_advise(dptr as *const c_void, num_bytes, advice.into(), device) }
        .map_err(ours)
}

/// `cuMemPrefetchAsync_v2` over `hipMemPrefetchAsync` (a device or the
/// host).
///
/// # Safety
/// `dptr` is managed memory of at least `num_bytes`; `stream` is live.
pub unsafe fn mem_prefetch_async(
    dptr: sys::CUdeviceptr,
    num_bytes: usize,
    location: sys::CUmemLocation,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    let device = location_device(location)?;
    // SAFETY: upheld by the caller.
    unsafe { ours_result::mem_prefetch_async(dptr as *const c_void, num_bytes, device, stream) }
        .map_err(ours)
}

status_calls! {
    /// `cuMemFreeAsync`.
    ///
    /// # Safety
    /// `dptr` came from an allocation, is freed once and not used after the
    /// stream reaches the free.
    pub unsafe fn free_async(dptr: sys::CUdeviceptr, stream: sys::CUstream) => free_async(dptr as *mut c_void, stream);
}

/// `cuMemFree_v2`, holding the current device's capture gate (`hipFree`
/// may synchronize the device, which CUDA forbids while one of its streams
/// captures).
///
/// # Safety
/// `dptr` came from an allocation, is freed once and not used afterwards.
pub unsafe fn free_sync(dptr: sys::CUdeviceptr) -> Result<(), DriverError> {
    crate::gate::holding_current("cuMemFree", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::free(dptr as *mut c_void, held) }
    })
    .map_err(ours)
}

/// `cuMemFree_v2` (cudarc's older name for [`free_sync`]).
///
/// # Safety
/// As [`free_sync`].
pub unsafe fn memory_free(device_ptr: sys::CUdeviceptr) -> Result<(), DriverError> {
    // SAFETY: upheld by the caller.
    unsafe { free_sync(device_ptr) }
}

status_calls! {
    /// `cuMemsetD8Async`.
    ///
    /// # Safety
    /// `dptr` is device memory of at least `num_bytes`; `stream` is live.
    pub unsafe fn memset_d8_async(dptr: sys::CUdeviceptr, uc: c_uchar, num_bytes: usize, stream: sys::CUstream) => memset_async(dptr as *mut c_void, uc, num_bytes, stream);

    /// `cuMemsetD8_v2`.
    ///
    /// # Safety
    /// `dptr` is device memory of at least `num_bytes`.
    pub unsafe fn memset_d8_sync(dptr: sys::CUdeviceptr, uc: c_uchar, num_bytes: usize) => memset(dptr as *mut c_void, uc, num_bytes);
}

/// `cuMemcpyHtoDAsync_v2` of all of `src`.
///
/// # Safety
/// `dst` is device memory of at least `size_of_val(src)` bytes; `src`
/// stays alive and unmodified until the stream reaches the copy.
pub unsafe fn memcpy_htod_async<T>(
    dst: sys::CUdeviceptr,
    src: &[T],
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: upheld by the caller.
    unsafe {
        ours_result::memcpy_async(
            dst as *mut c_void,
            src.as_ptr().cast(),
            size_of_val(src),
            hip::sys::hipMemcpyKind::hipMemcpyHostToDevice,
            stream,
        )
    }
    .map_err(ours)
}

/// `cuMemcpyHtoD_v2` of all of `src`.
///
/// # Safety
/// `dst` is device memory of at least `size_of_val(src)` bytes.
pub unsafe fn memcpy_htod_sync<T>(dst: sys::CUdeviceptr, src: &[T]) -> Result<(), DriverError> {
    // SAFETY: upheld by the caller.
    unsafe {
        ours_result::memcpy(
            dst as *mut c_void,
            src.as_ptr().cast(),
            size_of_val(src),
            hip::sys::hipMemcpyKind::hipMemcpyHostToDevice,
        )
    }
    .map_err(ours)
}

/// `cuMemcpyDtoHAsync_v2` filling `dst`.
///
/// # Safety
/// `src` is device memory of at least `size_of_val(dst)` bytes holding
/// valid `T`s; `dst` stays alive and unread until the stream reaches the
/// copy.
pub unsafe fn memcpy_dtoh_async<T>(
    dst: &mut [T],
    src: sys::CUdeviceptr,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    // SAFETY: upheld by the caller.
    unsafe {
        ours_result::memcpy_async(
            dst.as_mut_ptr().cast(),
            src as *const c_void,
            size_of_val(dst),
            hip::sys::hipMemcpyKind::hipMemcpyDeviceToHost,
            stream,
        )
    }
    .map_err(ours)
}

/// `cuMemcpyDtoH_v2` filling `dst`.
///
/// # Safety
/// `src` is device memory of at least `size_of_val(dst)` bytes holding
/// valid `T`s.
pub unsafe fn memcpy_dtoh_sync<T>(dst: &mut [T], src: sys::CUdeviceptr) -> Result<(), DriverError> {
    // SAFETY: upheld by the caller.
    unsafe {
        ours_result::memcpy(
            dst.as_mut_ptr().cast(),
            src as *const c_void,
            size_of_val(dst),
            hip::sys::hipMemcpyKind::hipMemcpyDeviceToHost,
        )
    }
    .map_err(ours)
}

status_calls! {
    /// `cuMemcpyDtoDAsync_v2`.
    ///
    /// # Safety
    /// Both are device memory of at least `num_bytes`; `stream` is live.
    pub unsafe fn memcpy_dtod_async(dst: sys::CUdeviceptr, src: sys::CUdeviceptr, num_bytes: usize, stream: sys::CUstream) => memcpy_async(dst as *mut c_void, src as *const c_void, num_bytes, hip::sys::hipMemcpyKind::hipMemcpyDeviceToDevice, stream);

    /// `cuMemcpyDtoD_v2`.
    ///
    /// # Safety
    /// Both are device memory of at least `num_bytes`.
    pub unsafe fn memcpy_dtod_sync(dst: sys::CUdeviceptr, src: sys::CUdeviceptr, num_bytes: usize) => memcpy(dst as *mut c_void, src as *const c_void, num_bytes, hip::sys::hipMemcpyKind::hipMemcpyDeviceToDevice);
}

/// The device of a context (`hipCtxGetDevice` with it made current, then
/// the previous context restored).
fn device_of(ctx: sys::CUcontext) -> Result<c_int, DriverError> {
    let previous = ctx::get_current()?;
    // SAFETY: the caller of `memcpy_peer_async` gives live contexts; the
    // previous context (or none) is made current again.
    unsafe { ctx::set_current(ctx) }?;
    let got = ours_result::ctx_get_device().map_err(ours);
    // SAFETY: as above.
    unsafe { ctx::set_current(previous.unwrap_or(std::ptr::null_mut())) }?;
    got
}

/// `cuMemcpyPeerAsync` over `hipMemcpyPeerAsync` (HIP names the devices,
/// so each context's device is looked up first).
///
/// # Safety
/// The contexts are live; `dst` and `src` are device memory of at least
/// `num_bytes` in them; `stream` is live.
pub unsafe fn memcpy_peer_async(
    dst_ctx: sys::CUcontext,
    dst: sys::CUdeviceptr,
    src_ctx: sys::CUcontext,
    src: sys::CUdeviceptr,
    num_bytes: usize,
    stream: sys::CUstream,
) -> Result<(), DriverError> {
    let dst_dev = device_of(dst_ctx)?;
    let src_dev = device_of(src_ctx)?;
    // SAFETY: upheld by the caller.
    unsafe {
        ours_result::memcpy_peer_async(
            dst as *mut c_void,
            dst_dev,
            src as *const c_void,
            src_dev,
            num_bytes,
            stream,
        )
    }
    .map_err(ours)
}

/// Modules: `cuModule*`.
pub mod module {
    use super::*;

    /// `cuModuleLoad`.
    pub fn load(fname: CString) -> Result<sys::CUmodule, DriverError> {
        ours_result::module_load(&fname).map_err(ours)
    }

    /// `cuModuleLoadData`.
    ///
    /// # Safety
    /// `image` is a whole code object (or NUL-terminated PTX on NVIDIA).
    pub unsafe fn load_data(image: *const c_void) -> Result<sys::CUmodule, DriverError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::module_load_data(image) }.map_err(ours)
    }

    /// `cuModuleGetFunction`.
    ///
    /// # Safety
    /// `module` is live.
    pub unsafe fn get_function(
        module: sys::CUmodule,
        name: CString,
    ) -> Result<sys::CUfunction, DriverError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::module_get_function(module, &name) }.map_err(ours)
    }

    /// `cuModuleGetGlobal_v2`: (address, bytes).
    ///
    /// # Safety
    /// `module` is live.
    pub unsafe fn get_global(
        module: sys::CUmodule,
        name: CString,
    ) -> Result<(sys::CUdeviceptr, usize), DriverError> {
        // SAFETY: the caller's contract.
        let (p, bytes) = unsafe { ours_result::module_get_global(module, &name) }.map_err(ours)?;
        Ok((p as sys::CUdeviceptr, bytes))
    }

    /// `cuModuleUnload`, holding the current device's capture gate (it acts
    /// on the whole device).
    ///
    /// # Safety
    /// `module` is live and nothing of it is used afterwards.
    pub unsafe fn unload(module: sys::CUmodule) -> Result<(), DriverError> {
        crate::gate::holding_current("cuModuleUnload", |held| {
            // SAFETY: the caller's contract.
            unsafe { ours_result::module_unload(module, held) }
        })
        .map_err(ours)
    }
}

/// Events: `cuEvent*`.
pub mod event {
    use super::*;

    /// `cuEventCreate`.
    pub fn create(flags: sys::CUevent_flags) -> Result<sys::CUevent, DriverError> {
        ours_result::event_create_with_flags(flags as c_uint).map_err(ours)
    }

    status_calls! {
        /// `cuEventRecord`.
        ///
        /// # Safety
        /// `event` and `stream` are live.
        pub unsafe fn record(event: sys::CUevent, stream: sys::CUstream) => event_record(event, stream);
    }

    /// `cuEventElapsedTime`: milliseconds from `start` to `end`.
    ///
    /// # Safety
    /// Both events are live and recorded with timing on.
    pub unsafe fn elapsed(start: sys::CUevent, end: sys::CUevent) -> Result<f32, DriverError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::event_elapsed_time(start, end) }.map_err(ours)
    }

    /// `cuEventQuery`: `Ok` once the event completed,
    /// `Err(CUDA_ERROR_NOT_READY)` before (the raw status: no reason).
    ///
    /// # Safety
    /// `event` is live.
    pub unsafe fn query(event: sys::CUevent) -> Result<(), DriverError> {
        // SAFETY: the caller's contract.
        if unsafe { ours_result::event_query(event) }.map_err(ours)? {
            Ok(())
        } else {
            raw::CUresult::CUDA_ERROR_NOT_READY.result()
        }
    }

    status_calls! {
        /// `cuEventSynchronize`.
        ///
        /// # Safety
        /// `event` is live.
        pub unsafe fn synchronize(event: sys::CUevent) => event_synchronize(event);

        /// `cuEventDestroy_v2`.
        ///
        /// # Safety
        /// `event` is live and not used afterwards.
        pub unsafe fn destroy(event: sys::CUevent) => event_destroy(event);
    }
}

/// `cuLaunchKernel`.
///
/// # Safety
/// `f` is live; `kernel_params` holds one pointer per kernel parameter, to
/// a value of that parameter's type, alive until the launch returns; every
/// buffer the kernel touches is valid for it.
pub unsafe fn launch_kernel(
    f: sys::CUfunction,
    grid_dim: (c_uint, c_uint, c_uint),
    block_dim: (c_uint, c_uint, c_uint),
    shared_mem_bytes: c_uint,
    stream: sys::CUstream,
    kernel_params: &mut [*mut c_void],
) -> Result<(), DriverError> {
    // SAFETY: upheld by the caller.
    unsafe {
        ours_result::module_launch_kernel(
            f,
            grid_dim,
            block_dim,
            shared_mem_bytes,
            stream,
            kernel_params.as_mut_ptr(),
            false,
        )
    }
    .map_err(ours)
}

/// `cuLaunchCooperativeKernel`.
///
/// # Safety
/// As [`launch_kernel`]; the grid also fits on the device at once.
pub unsafe fn launch_cooperative_kernel(
    f: sys::CUfunction,
    grid_dim: (c_uint, c_uint, c_uint),
    block_dim: (c_uint, c_uint, c_uint),
    shared_mem_bytes: c_uint,
    stream: sys::CUstream,
    kernel_params: &mut [*mut c_void],
) -> Result<(), DriverError> {
    // SAFETY: upheld by the caller.
    unsafe {
        ours_result::module_launch_kernel(
            f,
            grid_dim,
            block_dim,
            shared_mem_bytes,
            stream,
            kernel_params.as_mut_ptr(),
            true,
        )
    }
    .map_err(ours)
}

/// Graphs: `cuGraph*`.
pub mod graph {
    use super::*;

    /// `cuGraphInstantiateWithFlags`.
    ///
    /// # Safety
    /// `graph` is live.
    pub unsafe fn instantiate(
        graph: sys::CUgraph,
        flags: sys::CUgraphInstantiate_flags,
    ) -> Result<sys::CUgraphExec, DriverError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::graph_instantiate_with_flags(graph, flags.0 as _) }.map_err(ours)
    }

    status_calls! {
        /// `cuGraphExecDestroy`.
        ///
        /// # Safety
        /// `graph_exec` is live and not used afterwards.
        pub unsafe fn exec_destroy(graph_exec: sys::CUgraphExec) => graph_exec_destroy(graph_exec);

        /// `cuGraphDestroy`.
        ///
        /// # Safety
        /// `graph` is live and not used afterwards.
        pub unsafe fn destroy(graph: sys::CUgraph) => graph_destroy(graph);

        /// `cuGraphLaunch`.
        ///
        /// # Safety
        /// `graph_exec` and `stream` are live.
        pub unsafe fn launch(graph_exec: sys::CUgraphExec, stream: sys::CUstream) => graph_launch(graph_exec, stream);

        /// `cuGraphUpload`.
        ///
        /// # Safety
        /// `graph_exec` and `stream` are live.
        pub unsafe fn upload(graph_exec: sys::CUgraphExec, stream: sys::CUstream) => graph_upload(graph_exec, stream);
    }
}

/// Memory pools: `cuMemPool*`.
pub mod mem_pool {
    use super::*;

    /// `cuMemPoolCreate`.
    ///
    /// # Safety
    /// `pool_props` is valid for reads.
    pub unsafe fn create(
        pool_props: *const sys::CUmemPoolProps,
    ) -> Result<sys::CUmemoryPool, DriverError> {
        // SAFETY: valid for reads, by the caller.
        let Some(props) = (unsafe { pool_props.as_ref() }) else {
            return Err(invalid_because(
                "cuMemPoolCreate: the pool properties are null",
            ));
        };
        ours_result::mem_pool_create(props).map_err(ours)
    }

    /// `cuMemPoolDestroy`, holding the current device's capture gate (it
    /// acts on the whole device).
    ///
    /// # Safety
    /// `pool` is live and not used afterwards.
    pub unsafe fn destroy(pool: sys::CUmemoryPool) -> Result<(), DriverError> {
        crate::gate::holding_current("cuMemPoolDestroy", |held| {
            // SAFETY: the caller's contract.
            unsafe { ours_result::mem_pool_destroy(pool, held) }
        })
        .map_err(ours)
    }

    status_calls! {
        /// `cuMemPoolTrimTo`.
        ///
        /// # Safety
        /// `pool` is live.
        pub unsafe fn trim_to(pool: sys::CUmemoryPool, min_bytes_to_keep: usize) => mem_pool_trim_to(pool, min_bytes_to_keep);

        /// `cuMemPoolGetAttribute`.
        ///
        /// # Safety
        /// `pool` is live; `value` is valid for a write of the attribute's type.
        pub unsafe fn get_attribute(pool: sys::CUmemoryPool, attr: sys::CUmemPool_attribute, value: *mut c_void) => mem_pool_get_attribute(pool, attr.into(), value);

        /// `cuMemPoolSetAttribute`.
        ///
        /// # Safety
        /// `pool` is live; `value` is valid for a read of the attribute's type.
        pub unsafe fn set_attribute(pool: sys::CUmemoryPool, attr: sys::CUmemPool_attribute, value: *mut c_void) => mem_pool_set_attribute(pool, attr.into(), value);
    }

    /// `cuMemAllocFromPoolAsync`.
    ///
    /// # Safety
    /// `pool` and `stream` are live; the memory is freed by the caller.
    pub unsafe fn alloc_async(
        pool: sys::CUmemoryPool,
        num_bytes: usize,
        stream: sys::CUstream,
    ) -> Result<sys::CUdeviceptr, DriverError> {
        // SAFETY: the caller's contract.
        let p = unsafe { ours_result::malloc_from_pool_async(num_bytes, pool, stream) }
            .map_err(ours)?;
        Ok(p as sys::CUdeviceptr)
    }
}

/// External memory: `cuImportExternalMemory` and friends
/// (`hipImportExternalMemory`, ...), as cudarc's `result::external_memory`.
pub mod external_memory {
    use super::*;

    /// `cuImportExternalMemory` of an opaque POSIX file descriptor of
    /// `size` bytes. On success the driver owns `fd`.
    ///
    /// # Safety
    /// `fd` is an exported memory handle of at least `size` bytes; it is not
    /// used by the caller after a successful import.
    pub unsafe fn import_external_memory_opaque_fd(
        fd: c_int,
        size: u64,
    ) -> Result<sys::CUexternalMemory, DriverError> {
        // SAFETY: every field of the C struct may be zero (a plain struct).
        let mut desc: sys::CUDA_EXTERNAL_MEMORY_HANDLE_DESC = unsafe { std::mem::zeroed() };
        desc.type_ =
            sys::CUexternalMemoryHandleType::CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD.into();
        desc.handle.fd = fd;
        desc.size = size;
        // SAFETY: `desc` is a valid descriptor; the handle is the caller's.
        unsafe { import(&desc) }
    }

    /// `cuImportExternalMemory` of an opaque Win32 handle of `size` bytes.
    /// The caller keeps owning (and closes) the handle.
    ///
    /// # Safety
    /// `handle` is an exported memory handle of at least `size` bytes.
    pub unsafe fn import_external_memory_opaque_win32(
        handle: *mut c_void,
        size: u64,
    ) -> Result<sys::CUexternalMemory, DriverError> {
        // SAFETY: as above.
        let mut desc: sys::CUDA_EXTERNAL_MEMORY_HANDLE_DESC = unsafe { std::mem::zeroed() };
        desc.type_ =
            sys::CUexternalMemoryHandleType::CU_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_WIN32.into();
        desc.handle.win32.handle = handle;
        desc.size = size;
        // SAFETY: as above.
        unsafe { import(&desc) }
    }

    /// The one import call of both handle kinds.
    ///
    /// # Safety
    /// `desc` describes a live exported handle.
    unsafe fn import(
        desc: &sys::CUDA_EXTERNAL_MEMORY_HANDLE_DESC,
    ) -> Result<sys::CUexternalMemory, DriverError> {
        // SAFETY: `desc` by the caller.
        unsafe { ours_result::import_external_memory(desc) }.map_err(ours)
    }

    /// `cuExternalMemoryGetMappedBuffer`: `size` bytes from `offset` of
    /// the imported memory, as a device address (freed with
    /// [`super::memory_free`]).
    ///
    /// # Safety
    /// `external_memory` is live; the range lies within it.
    pub unsafe fn get_mapped_buffer(
        external_memory: sys::CUexternalMemory,
        offset: u64,
        size: u64,
    ) -> Result<sys::CUdeviceptr, DriverError> {
        // SAFETY: every field of the C struct may be zero.
        let mut desc: sys::CUDA_EXTERNAL_MEMORY_BUFFER_DESC = unsafe { std::mem::zeroed() };
        desc.offset = offset;
        desc.size = size;
        // SAFETY: the caller's contract.
        let p = unsafe { ours_result::external_memory_get_mapped_buffer(external_memory, &desc) }
            .map_err(ours)?;
        Ok(p as sys::CUdeviceptr)
    }

    status_calls! {
        /// `cuDestroyExternalMemory`.
        ///
        /// # Safety
        /// `external_memory` is live, its mapped buffers freed, and it is not
        /// used afterwards.
        pub unsafe fn destroy_external_memory(external_memory: sys::CUexternalMemory) => destroy_external_memory(external_memory);
    }
}
