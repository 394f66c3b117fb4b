//! The thin layer over the raw driver names: [`DriverError`], the status
//! check, and the conversion from the safe `hip` crate's errors.

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
        // SAFETY: takes a value; returns a static string or null.
        static_cstr(unsafe { hip::sys::hipGetErrorName(self.0.into()) })
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
        // SAFETY: takes a value; returns a static string or null.
        static_cstr(unsafe { hip::sys::hipGetErrorString(self.0.into()) })
    }
}

fn static_cstr(p: *const std::ffi::c_char) -> Result<&'static CStr, DriverError> {
    if p.is_null() {
        return Err(DriverError(raw::CUresult::CUDA_ERROR_UNKNOWN));
    }
    // SAFETY: the runtime returns pointers to static NUL-terminated strings.
    Ok(unsafe { CStr::from_ptr(p) })
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
        self.map_err(|e| match &e {
            hip::Error::Hip { .. } => {
                clear_detail();
                DriverError(status_of(&e))
            }
            other => fail(status_of(&e), &other.to_string()),
        })
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
        _ => raw::CUresult::CUDA_ERROR_UNKNOWN,
    }
}

/// Turns a raw HIP status into a `Result`.
#[inline]
pub(crate) fn check(status: hip::sys::hipError_t) -> Result<(), DriverError> {
    raw::CUresult::from(status).result()
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
    /// The reason for the last error this thread got from the safe layer, with
    /// its status, when there is more to say than the status (PTX loaded on
    /// AMD, mismatched lengths, a buffer of another device, a launch
    /// configuration beyond the device's limits); `None` after an error that
    /// is the runtime's own status. cudarc's `DriverError` holds only the
    /// status; this is where the words are. `DriverError`'s `Debug` adds the
    /// reason when its status matches.
    DriverError(raw::CUresult)
}

// ---------------------------------------------------------------------------
// cudarc's thin wrappers over the raw driver calls, at cudarc's paths
// (`driver::result::stream::create`, `driver::result::malloc_async`, ...):
// each calls the CUDA-named function of [`sys`](super::sys) (HIP underneath)
// and turns its status into a `Result`. Where HIP lacks a call, the wrapper
// returns `CUDA_ERROR_NOT_SUPPORTED` with the reason in
// [`last_error_detail`].

use super::sys;
use core::ffi::{c_int, c_uchar, c_uint, c_void};
use std::ffi::CString;
use std::mem::MaybeUninit;

/// Wrappers that pass their arguments to one raw call and turn its status
/// into a `Result`: `pub unsafe fn name(args) => rawCall(args);`, each with
/// its docs and `# Safety` section (the raw call's contract, which the
/// caller upholds).
macro_rules! status_calls {
    ($(
        $(#[$doc:meta])*
        pub unsafe fn $name:ident($($arg:ident: $ty:ty),* $(,)?) => $call:ident($($pass:expr),* $(,)?);
    )+) => {$(
        $(#[$doc])*
        pub unsafe fn $name($($arg: $ty),*) -> Result<(), DriverError> {
            // SAFETY: the caller upholds this function's `# Safety`
            // section, which is the raw call's contract.
            unsafe { sys::$call($($pass),*) }.result()
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
    // SAFETY: `cuInit` takes no pointers.
    unsafe { sys::cuInit(0) }.result()
}

/// `cuMemGetInfo_v2`: (free, total) bytes of the current device.
pub fn mem_get_info() -> Result<(usize, usize), DriverError> {
    let (mut free, mut total) = (0, 0);
    // SAFETY: both outputs are valid for a write.
    unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) }.result()?;
    Ok((free, total))
}

/// Devices: `cuDeviceGet*`.
pub mod device {
    use super::*;

    /// `cuDeviceGet`.
    pub fn get(ordinal: c_int) -> Result<sys::CUdevice, DriverError> {
        let mut dev = MaybeUninit::uninit();
        // SAFETY: `dev` is valid for a write; read only after success.
        unsafe {
            sys::cuDeviceGet(dev.as_mut_ptr(), ordinal).result()?;
            Ok(dev.assume_init())
        }
    }

    /// `cuDeviceGetCount`.
    pub fn get_count() -> Result<c_int, DriverError> {
        let mut n = 0;
        // SAFETY: `n` is valid for a write.
        unsafe { sys::cuDeviceGetCount(&mut n) }.result()?;
        Ok(n)
    }

    /// `cuDeviceTotalMem_v2`.
    ///
    /// # Safety
    /// `dev` is a device of this process.
    pub unsafe fn total_mem(dev: sys::CUdevice) -> Result<usize, DriverError> {
        let mut bytes = 0;
        // SAFETY: `bytes` is valid for a write; the caller gives a device.
        unsafe { sys::cuDeviceTotalMem_v2(&mut bytes, dev) }.result()?;
        Ok(bytes)
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
        let mut v = 0;
        // SAFETY: `v` is valid for a write; the caller gives a device.
        unsafe { sys::cuDeviceGetAttribute(&mut v, attrib, dev) }.result()?;
        Ok(crate::warp::cuda_attribute(attrib.into(), v))
    }

    /// `cuDeviceGetName`.
    pub fn get_name(dev: sys::CUdevice) -> Result<String, DriverError> {
        let mut buf = [0 as core::ffi::c_char; 256];
        // SAFETY: the buffer holds `len` bytes; the runtime NUL-terminates
        // the name within it.
        unsafe { sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as c_int, dev) }.result()?;
        // SAFETY: NUL-terminated within `buf` (written by the runtime).
        let name = unsafe { CStr::from_ptr(buf.as_ptr()) };
        Ok(name.to_string_lossy().into_owned())
    }

    /// `cuDeviceGetUuid`.
    pub fn get_uuid(dev: sys::CUdevice) -> Result<sys::CUuuid, DriverError> {
        let mut uuid = MaybeUninit::uninit();
        // SAFETY: `uuid` is valid for a write; read only after success.
        unsafe {
            sys::cuDeviceGetUuid(uuid.as_mut_ptr(), dev).result()?;
            Ok(uuid.assume_init())
        }
    }

    /// `cuDeviceGetDefaultMemPool`.
    ///
    /// # Safety
    /// `dev` is a device of this process.
    pub unsafe fn get_default_mem_pool(
        dev: sys::CUdevice,
    ) -> Result<sys::CUmemoryPool, DriverError> {
        let mut pool = MaybeUninit::uninit();
        // SAFETY: `pool` is valid for a write; read only after success.
        unsafe {
            sys::cuDeviceGetDefaultMemPool(pool.as_mut_ptr(), dev).result()?;
            Ok(pool.assume_init())
        }
    }

    /// `cuDeviceGetMemPool`.
    ///
    /// # Safety
    /// `dev` is a device of this process.
    pub unsafe fn get_mem_pool(dev: sys::CUdevice) -> Result<sys::CUmemoryPool, DriverError> {
        let mut pool = MaybeUninit::uninit();
        // SAFETY: `pool` is valid for a write; read only after success.
        unsafe {
            sys::cuDeviceGetMemPool(pool.as_mut_ptr(), dev).result()?;
            Ok(pool.assume_init())
        }
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
        unsafe { sys::cuDeviceSetMemPool(dev, pool) }.result()
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
        let mut v = 0;
        // SAFETY: `v` is valid for a write; the caller gives a function.
        unsafe { sys::cuFuncGetAttribute(&mut v, attribute, f) }.result()?;
        Ok(v)
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
        check(unsafe { hip::sys::hipFuncSetAttribute(f as *const c_void, hip_attr, value) })
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
        check(unsafe { hip::sys::hipFuncSetCacheConfig(f as *const c_void, attribute.into()) })
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
        let mut n = 0;
        // SAFETY: `n` is valid for a write; the caller gives a function.
        unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &mut n,
                f,
                block_size,
                dynamic_smem_size,
            )
        }
        .result()?;
        Ok(n)
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
        let mut n = 0;
        // SAFETY: `n` is valid for a write; the caller gives a function.
        unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
                &mut n,
                f,
                block_size,
                dynamic_smem_size,
                flags,
            )
        }
        .result()?;
        Ok(n)
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
        let (mut grid, mut block) = (0, 0);
        // SAFETY: both outputs are valid for a write; the caller gives a
        // function.
        unsafe {
            sys::cuOccupancyMaxPotentialBlockSizeWithFlags(
                &mut grid,
                &mut block,
                f,
                dynamic_smem_size,
                block_size_limit,
                flags,
            )
        }
        .result()?;
        Ok((grid, block))
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
        let mut ctx = MaybeUninit::uninit();
        // SAFETY: `ctx` is valid for a write; read only after success.
        unsafe {
            sys::cuDevicePrimaryCtxRetain(ctx.as_mut_ptr(), dev).result()?;
            Ok(ctx.assume_init())
        }
    }

    status_calls! {
        /// `cuDevicePrimaryCtxRelease_v2`.
        ///
        /// # Safety
        /// Matches an earlier [`retain`]; nothing of the context is used after
        /// the last release.
        pub unsafe fn release(dev: sys::CUdevice) => cuDevicePrimaryCtxRelease_v2(dev);
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
        let mut ctx = MaybeUninit::uninit();
        // SAFETY: `ctx` is valid for a write; read only after success.
        unsafe {
            sys::cuCtxCreate_v2(ctx.as_mut_ptr(), flags, dev).result()?;
            Ok(ctx.assume_init())
        }
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
        pub unsafe fn set_current(ctx: sys::CUcontext) => cuCtxSetCurrent(ctx);
    }

    /// `cuCtxGetCurrent`: `None` when no context is current.
    pub fn get_current() -> Result<Option<sys::CUcontext>, DriverError> {
        let mut ctx = std::ptr::null_mut();
        // SAFETY: `ctx` is valid for a write.
        unsafe { sys::cuCtxGetCurrent(&mut ctx) }.result()?;
        Ok((!ctx.is_null()).then_some(ctx))
    }

    /// `cuCtxSetFlags` over `hipSetDeviceFlags` (HIP keeps these flags per
    /// device, which is what a primary context's flags are).
    pub fn set_flags(flags: sys::CUctx_flags) -> Result<(), DriverError> {
        // SAFETY: takes no pointers.
        check(unsafe { hip::sys::hipSetDeviceFlags(flags as c_uint) })
    }

    /// `cuCtxSynchronize`.
    pub fn synchronize() -> Result<(), DriverError> {
        // SAFETY: takes no pointers.
        unsafe { sys::cuCtxSynchronize() }.result()
    }

    /// `cuCtxGetLimit`.
    pub fn get_limit(limit: sys::CUlimit) -> Result<usize, DriverError> {
        let mut v = 0;
        // SAFETY: `v` is valid for a write.
        unsafe { sys::cuCtxGetLimit(&mut v, limit) }.result()?;
        Ok(v)
    }

    /// `cuCtxSetLimit`.
    pub fn set_limit(limit: sys::CUlimit, value: usize) -> Result<(), DriverError> {
        // SAFETY: takes no pointers.
        unsafe { sys::cuCtxSetLimit(limit, value) }.result()
    }

    /// `cuCtxGetCacheConfig`.
    pub fn get_cache_config() -> Result<sys::CUfunc_cache, DriverError> {
        let mut c = sys::CUfunc_cache::CU_FUNC_CACHE_PREFER_NONE;
        // SAFETY: `c` is valid for a write (of a checked value).
        unsafe { sys::cuCtxGetCacheConfig(&mut c) }.result()?;
        Ok(c)
    }

    /// `cuCtxSetCacheConfig`.
    pub fn set_cache_config(config: sys::CUfunc_cache) -> Result<(), DriverError> {
        // SAFETY: takes no pointers.
        unsafe { sys::cuCtxSetCacheConfig(config) }.result()
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
        let mut s = std::ptr::null_mut();
        // SAFETY: `s` is valid for a write.
        unsafe { sys::cuStreamCreate(&mut s, kind.flags()) }.result()?;
        Ok(s)
    }

    /// `cuStreamCreateWithPriority`.
    pub fn create_with_priority(
        kind: StreamKind,
        priority: i32,
    ) -> Result<sys::CUstream, DriverError> {
        let mut s = std::ptr::null_mut();
        // SAFETY: `s` is valid for a write.
        unsafe { sys::cuStreamCreateWithPriority(&mut s, kind.flags(), priority) }.result()?;
        Ok(s)
    }

    /// `cuCtxGetStreamPriorityRange`: (least, greatest).
    pub fn get_priority_range() -> Result<(i32, i32), DriverError> {
        let (mut least, mut greatest) = (0, 0);
        // SAFETY: both outputs are valid for a write.
        unsafe { sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) }.result()?;
        Ok((least, greatest))
    }

    status_calls! {
        /// `cuStreamSynchronize`.
        ///
        /// # Safety
        /// `stream` is live (or null).
        pub unsafe fn synchronize(stream: sys::CUstream) => cuStreamSynchronize(stream);

        /// `cuStreamDestroy_v2`.
        ///
        /// # Safety
        /// `stream` is live and not used afterwards.
        pub unsafe fn destroy(stream: sys::CUstream) => cuStreamDestroy_v2(stream);
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
        unsafe { sys::cuStreamWaitEvent(stream, event, 0) }.result()
    }

    status_calls! {
        /// `cuStreamAttachMemAsync`.
        ///
        /// # Safety
        /// `stream` is live; `dptr` is managed memory of at least `num_bytes`.
        pub unsafe fn attach_mem_async(stream: sys::CUstream, dptr: sys::CUdeviceptr, num_bytes: usize, flags: sys::CUmemAttach_flags) => cuStreamAttachMemAsync(stream, dptr, num_bytes, flags as c_uint);
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
        unsafe { sys::cuLaunchHostFunc(stream, Some(func), arg) }.result()
    }

    status_calls! {
        /// `cuStreamBeginCapture_v2`.
        ///
        /// # Safety
        /// `stream` is live and not the null stream.
        pub unsafe fn begin_capture(stream: sys::CUstream, mode: sys::CUstreamCaptureMode) => cuStreamBeginCapture_v2(stream, mode);
    }

    /// `cuStreamEndCapture`.
    ///
    /// # Safety
    /// `stream` is live and capturing.
    pub unsafe fn end_capture(stream: sys::CUstream) -> Result<sys::CUgraph, DriverError> {
        let mut g = std::ptr::null_mut();
        // SAFETY: `g` is valid for a write; the rest by the caller.
        unsafe { sys::cuStreamEndCapture(stream, &mut g) }.result()?;
        Ok(g)
    }

    /// `cuStreamIsCapturing`.
    ///
    /// # Safety
    /// `stream` is live.
    pub unsafe fn is_capturing(
        stream: sys::CUstream,
    ) -> Result<sys::CUstreamCaptureStatus, DriverError> {
        let mut status = MaybeUninit::uninit();
        // SAFETY: `status` is valid for a write; read only after success.
        unsafe {
            sys::cuStreamIsCapturing(stream, status.as_mut_ptr()).result()?;
            Ok(status.assume_init())
        }
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
    let mut p = 0;
    // SAFETY: `p` is valid for a write; the rest by the caller.
    unsafe { sys::cuMemAllocAsync(&mut p, num_bytes, stream) }.result()?;
    Ok(p)
}

/// `cuMemAlloc_v2`.
///
/// # Safety
/// The memory is freed by the caller.
pub unsafe fn malloc_sync(num_bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
    let mut p = 0;
    // SAFETY: `p` is valid for a write.
    unsafe { sys::cuMemAlloc_v2(&mut p, num_bytes) }.result()?;
    Ok(p)
}

/// `cuMemAllocManaged`.
///
/// # Safety
/// The memory is freed by the caller.
pub unsafe fn malloc_managed(
    num_bytes: usize,
    flags: sys::CUmemAttach_flags,
) -> Result<sys::CUdeviceptr, DriverError> {
    let mut p = 0;
    // SAFETY: `p` is valid for a write.
    unsafe { sys::cuMemAllocManaged(&mut p, num_bytes, flags as c_uint) }.result()?;
    Ok(p)
}

/// `cuMemHostAlloc`: pinned host memory.
///
/// # Safety
/// The memory is freed with [`free_host`] by the caller.
pub unsafe fn malloc_host(num_bytes: usize, flags: c_uint) -> Result<*mut c_void, DriverError> {
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is valid for a write.
    unsafe { sys::cuMemHostAlloc(&mut p, num_bytes, flags) }.result()?;
    Ok(p)
}

status_calls! {
    /// `cuMemFreeHost`.
    ///
    /// # Safety
    /// `host_ptr` came from [`malloc_host`] and is not used afterwards.
    pub unsafe fn free_host(host_ptr: *mut c_void) => cuMemFreeHost(host_ptr);
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
    unsafe { sys::cuMemAdvise(dptr, num_bytes, advice, device) }.result()
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
    unsafe { sys::cuMemPrefetchAsync(dptr, num_bytes, device, stream) }.result()
}

status_calls! {
    /// `cuMemFreeAsync`.
    ///
    /// # Safety
    /// `dptr` came from an allocation, is freed once and not used after the
    /// stream reaches the free.
    pub unsafe fn free_async(dptr: sys::CUdeviceptr, stream: sys::CUstream) => cuMemFreeAsync(dptr, stream);

    /// `cuMemFree_v2`.
    ///
    /// # Safety
    /// `dptr` came from an allocation, is freed once and not used afterwards.
    pub unsafe fn free_sync(dptr: sys::CUdeviceptr) => cuMemFree_v2(dptr);
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
    pub unsafe fn memset_d8_async(dptr: sys::CUdeviceptr, uc: c_uchar, num_bytes: usize, stream: sys::CUstream) => cuMemsetD8Async(dptr, uc, num_bytes, stream);

    /// `cuMemsetD8_v2`.
    ///
    /// # Safety
    /// `dptr` is device memory of at least `num_bytes`.
    pub unsafe fn memset_d8_sync(dptr: sys::CUdeviceptr, uc: c_uchar, num_bytes: usize) => cuMemsetD8_v2(dptr, uc, num_bytes);
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
    unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.as_ptr().cast(), size_of_val(src), stream) }
        .result()
}

/// `cuMemcpyHtoD_v2` of all of `src`.
///
/// # Safety
/// `dst` is device memory of at least `size_of_val(src)` bytes.
pub unsafe fn memcpy_htod_sync<T>(dst: sys::CUdeviceptr, src: &[T]) -> Result<(), DriverError> {
    // SAFETY: upheld by the caller.
    unsafe { sys::cuMemcpyHtoD_v2(dst, src.as_ptr().cast(), size_of_val(src)) }.result()
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
    unsafe { sys::cuMemcpyDtoHAsync_v2(dst.as_mut_ptr().cast(), src, size_of_val(dst), stream) }
        .result()
}

/// `cuMemcpyDtoH_v2` filling `dst`.
///
/// # Safety
/// `src` is device memory of at least `size_of_val(dst)` bytes holding
/// valid `T`s.
pub unsafe fn memcpy_dtoh_sync<T>(dst: &mut [T], src: sys::CUdeviceptr) -> Result<(), DriverError> {
    // SAFETY: upheld by the caller.
    unsafe { sys::cuMemcpyDtoH_v2(dst.as_mut_ptr().cast(), src, size_of_val(dst)) }.result()
}

status_calls! {
    /// `cuMemcpyDtoDAsync_v2`.
    ///
    /// # Safety
    /// Both are device memory of at least `num_bytes`; `stream` is live.
    pub unsafe fn memcpy_dtod_async(dst: sys::CUdeviceptr, src: sys::CUdeviceptr, num_bytes: usize, stream: sys::CUstream) => cuMemcpyDtoDAsync_v2(dst, src, num_bytes, stream);

    /// `cuMemcpyDtoD_v2`.
    ///
    /// # Safety
    /// Both are device memory of at least `num_bytes`.
    pub unsafe fn memcpy_dtod_sync(dst: sys::CUdeviceptr, src: sys::CUdeviceptr, num_bytes: usize) => cuMemcpyDtoD_v2(dst, src, num_bytes);
}

/// The device of a context (`hipCtxGetDevice` with it made current, then
/// the previous context restored).
fn device_of(ctx: sys::CUcontext) -> Result<c_int, DriverError> {
    let previous = ctx::get_current()?;
    // SAFETY: the caller of `memcpy_peer_async` gives live contexts; the
    // previous context (or none) is made current again.
    unsafe { ctx::set_current(ctx) }?;
    let mut dev = 0;
    // SAFETY: `dev` is valid for a write.
    let got = check(unsafe { hip::sys::hipCtxGetDevice(&mut dev) });
    // SAFETY: as above.
    unsafe { ctx::set_current(previous.unwrap_or(std::ptr::null_mut())) }?;
    got.map(|()| dev)
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
    check(unsafe {
        hip::sys::hipMemcpyPeerAsync(
            dst as *mut c_void,
            dst_dev,
            src as *const c_void,
            src_dev,
            num_bytes,
            stream,
        )
    })
}

/// Modules: `cuModule*`.
pub mod module {
    use super::*;

    /// `cuModuleLoad`.
    pub fn load(fname: CString) -> Result<sys::CUmodule, DriverError> {
        let mut m = std::ptr::null_mut();
        // SAFETY: `m` is valid for a write; the name is NUL-terminated.
        unsafe { sys::cuModuleLoad(&mut m, fname.as_ptr()) }.result()?;
        Ok(m)
    }

    /// `cuModuleLoadData`.
    ///
    /// # Safety
    /// `image` is a whole code object (or NUL-terminated PTX on NVIDIA).
    pub unsafe fn load_data(image: *const c_void) -> Result<sys::CUmodule, DriverError> {
        let mut m = std::ptr::null_mut();
        // SAFETY: `m` is valid for a write; the image by the caller.
        unsafe { sys::cuModuleLoadData(&mut m, image) }.result()?;
        Ok(m)
    }

    /// `cuModuleGetFunction`.
    ///
    /// # Safety
    /// `module` is live.
    pub unsafe fn get_function(
        module: sys::CUmodule,
        name: CString,
    ) -> Result<sys::CUfunction, DriverError> {
        let mut f = std::ptr::null_mut();
        // SAFETY: `f` is valid for a write; the name is NUL-terminated.
        unsafe { sys::cuModuleGetFunction(&mut f, module, name.as_ptr()) }.result()?;
        Ok(f)
    }

    /// `cuModuleGetGlobal_v2`: (address, bytes).
    ///
    /// # Safety
    /// `module` is live.
    pub unsafe fn get_global(
        module: sys::CUmodule,
        name: CString,
    ) -> Result<(sys::CUdeviceptr, usize), DriverError> {
        let (mut p, mut bytes) = (0, 0);
        // SAFETY: the outputs are valid for a write; the name is
        // NUL-terminated.
        unsafe { sys::cuModuleGetGlobal_v2(&mut p, &mut bytes, module, name.as_ptr()) }.result()?;
        Ok((p, bytes))
    }

    status_calls! {
        /// `cuModuleUnload`.
        ///
        /// # Safety
        /// `module` is live and nothing of it is used afterwards.
        pub unsafe fn unload(module: sys::CUmodule) => cuModuleUnload(module);
    }
}

/// Events: `cuEvent*`.
pub mod event {
    use super::*;

    /// `cuEventCreate`.
    pub fn create(flags: sys::CUevent_flags) -> Result<sys::CUevent, DriverError> {
        let mut e = std::ptr::null_mut();
        // SAFETY: `e` is valid for a write.
        unsafe { sys::cuEventCreate(&mut e, flags as c_uint) }.result()?;
        Ok(e)
    }

    status_calls! {
        /// `cuEventRecord`.
        ///
        /// # Safety
        /// `event` and `stream` are live.
        pub unsafe fn record(event: sys::CUevent, stream: sys::CUstream) => cuEventRecord(event, stream);
    }

    /// `cuEventElapsedTime`: milliseconds from `start` to `end`.
    ///
    /// # Safety
    /// Both events are live and recorded with timing on.
    pub unsafe fn elapsed(start: sys::CUevent, end: sys::CUevent) -> Result<f32, DriverError> {
        let mut ms = 0.0;
        // SAFETY: `ms` is valid for a write; the rest by the caller.
        unsafe { sys::cuEventElapsedTime(&mut ms, start, end) }.result()?;
        Ok(ms)
    }

    status_calls! {
        /// `cuEventQuery`: `Ok` once the event completed,
        /// `Err(CUDA_ERROR_NOT_READY)` before.
        ///
        /// # Safety
        /// `event` is live.
        pub unsafe fn query(event: sys::CUevent) => cuEventQuery(event);

        /// `cuEventSynchronize`.
        ///
        /// # Safety
        /// `event` is live.
        pub unsafe fn synchronize(event: sys::CUevent) => cuEventSynchronize(event);

        /// `cuEventDestroy_v2`.
        ///
        /// # Safety
        /// `event` is live and not used afterwards.
        pub unsafe fn destroy(event: sys::CUevent) => cuEventDestroy_v2(event);
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
        sys::cuLaunchKernel(
            f,
            grid_dim.0,
            grid_dim.1,
            grid_dim.2,
            block_dim.0,
            block_dim.1,
            block_dim.2,
            shared_mem_bytes,
            stream,
            kernel_params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    }
    .result()
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
        sys::cuLaunchCooperativeKernel(
            f,
            grid_dim.0,
            grid_dim.1,
            grid_dim.2,
            block_dim.0,
            block_dim.1,
            block_dim.2,
            shared_mem_bytes,
            stream,
            kernel_params.as_mut_ptr(),
        )
    }
    .result()
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
        let mut exec = std::ptr::null_mut();
        // SAFETY: `exec` is valid for a write; the rest by the caller.
        unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, flags.0 as _) }.result()?;
        Ok(exec)
    }

    status_calls! {
        /// `cuGraphExecDestroy`.
        ///
        /// # Safety
        /// `graph_exec` is live and not used afterwards.
        pub unsafe fn exec_destroy(graph_exec: sys::CUgraphExec) => cuGraphExecDestroy(graph_exec);

        /// `cuGraphDestroy`.
        ///
        /// # Safety
        /// `graph` is live and not used afterwards.
        pub unsafe fn destroy(graph: sys::CUgraph) => cuGraphDestroy(graph);

        /// `cuGraphLaunch`.
        ///
        /// # Safety
        /// `graph_exec` and `stream` are live.
        pub unsafe fn launch(graph_exec: sys::CUgraphExec, stream: sys::CUstream) => cuGraphLaunch(graph_exec, stream);

        /// `cuGraphUpload`.
        ///
        /// # Safety
        /// `graph_exec` and `stream` are live.
        pub unsafe fn upload(graph_exec: sys::CUgraphExec, stream: sys::CUstream) => cuGraphUpload(graph_exec, stream);
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
        let mut pool = std::ptr::null_mut();
        // SAFETY: `pool` is valid for a write; the rest by the caller.
        unsafe { sys::cuMemPoolCreate(&mut pool, pool_props) }.result()?;
        Ok(pool)
    }

    status_calls! {
        /// `cuMemPoolDestroy`.
        ///
        /// # Safety
        /// `pool` is live and not used afterwards.
        pub unsafe fn destroy(pool: sys::CUmemoryPool) => cuMemPoolDestroy(pool);

        /// `cuMemPoolTrimTo`.
        ///
        /// # Safety
        /// `pool` is live.
        pub unsafe fn trim_to(pool: sys::CUmemoryPool, min_bytes_to_keep: usize) => cuMemPoolTrimTo(pool, min_bytes_to_keep);

        /// `cuMemPoolGetAttribute`.
        ///
        /// # Safety
        /// `pool` is live; `value` is valid for a write of the attribute's type.
        pub unsafe fn get_attribute(pool: sys::CUmemoryPool, attr: sys::CUmemPool_attribute, value: *mut c_void) => cuMemPoolGetAttribute(pool, attr, value);

        /// `cuMemPoolSetAttribute`.
        ///
        /// # Safety
        /// `pool` is live; `value` is valid for a read of the attribute's type.
        pub unsafe fn set_attribute(pool: sys::CUmemoryPool, attr: sys::CUmemPool_attribute, value: *mut c_void) => cuMemPoolSetAttribute(pool, attr, value);
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
        let mut p = 0;
        // SAFETY: `p` is valid for a write; the rest by the caller.
        unsafe { sys::cuMemAllocFromPoolAsync(&mut p, num_bytes, pool, stream) }.result()?;
        Ok(p)
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
        let mut external_memory = std::ptr::null_mut();
        // SAFETY: `external_memory` is valid for a write; `desc` by the caller.
        unsafe { sys::cuImportExternalMemory(&mut external_memory, desc) }.result()?;
        Ok(external_memory)
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
        let mut device_ptr: sys::CUdeviceptr = 0;
        // SAFETY: `device_ptr` is valid for a write; the rest by the caller.
        unsafe { sys::cuExternalMemoryGetMappedBuffer(&mut device_ptr, external_memory, &desc) }
            .result()?;
        Ok(device_ptr)
    }

    status_calls! {
        /// `cuDestroyExternalMemory`.
        ///
        /// # Safety
        /// `external_memory` is live, its mapped buffers freed, and it is not
        /// used afterwards.
        pub unsafe fn destroy_external_memory(external_memory: sys::CUexternalMemory) => cuDestroyExternalMemory(external_memory);
    }
}
