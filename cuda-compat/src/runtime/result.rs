//! cudarc's `runtime::result`: thin wrappers over the HIP runtime calls
//! (CUDA's names in [`sys`]), each turning its status into a `Result` with
//! [`RuntimeError`], grouped by topic as cudarc groups them
//! ([`stream::create`], [`event::elapsed`], [`malloc_async`], ...).
//!
//! Where HIP's runtime call would not do what cudarc's does, the wrapper
//! calls the driver-level name instead and says so: [`launch_kernel`] takes
//! a module function (`CUfunction`), which HIP launches with
//! `hipModuleLaunchKernel`, not `hipLaunchKernel` (that one takes a host
//! stub). Where HIP lacks a call, the wrapper returns
//! `cudaErrorNotSupported`.
//!
//! Each wrapper calls the `hip` crate's [`result`](hip::result) layer and
//! turns its error into a [`RuntimeError`] that keeps the message
//! ([`last_error_detail`]).

use super::sys;
use core::ffi::{c_uchar, c_void};
use hip::result as ours_result;
use std::ffi::{CStr, CString};
use std::fmt;
use std::sync::OnceLock;

/// A failed runtime call: the status, as cudarc's `RuntimeError(cudaError_t)`.
///
/// The value is HIP's (see the crate docs, "Enums and status values"):
/// compare it with the CUDA-named constants, e.g.
/// `err.0 == cudaError_t::cudaErrorMemoryAllocation`. `Debug` and
/// `Display` add this thread's reason ([`last_error_detail`]) when the
/// status matches.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuntimeError(pub sys::cudaError_t);

impl sys::cudaError_t {
    /// `Ok(())` for `cudaSuccess`, else `Err(RuntimeError(self))` (cudarc's
    /// `cudaError_t::result`; the raw status: no reason of an earlier error
    /// is printed with it).
    #[inline]
    pub fn result(self) -> Result<(), RuntimeError> {
        if self == sys::cudaError_t::cudaSuccess {
            Ok(())
        } else {
            clear_detail();
            Err(RuntimeError(self))
        }
    }
}

error_detail! {
    /// The reason for the last runtime error this thread got, with its
    /// status: the `hip` crate's message (the HIP call, its status and
    /// what it means, or the paths tried when no runtime loads); `None`
    /// after an error that is a raw status.
    ///
    /// ```no_run
    /// use cuda_compat::runtime::result::{device, last_error_detail};
    /// if let Err(e) = device::set(0) {
    ///     let (status, why) = last_error_detail().unwrap();
    ///     assert_eq!(status, e.0);
    ///     println!("{why}");
    /// }
    /// ```
    RuntimeError(sys::cudaError_t)
}

/// The `hip` crate's error as the runtime's: its HIP status as the CUDA
/// status of the same value, else the status its kind maps to (no runtime
/// loaded: `cudaErrorSharedObjectInitFailed`, as the raw names return; an
/// argument refused before any call: `cudaErrorInvalidValue`; a call the
/// platform lacks: `cudaErrorNotSupported`), with its message as this
/// thread's reason.
#[cold]
#[inline(never)]
pub(crate) fn ours(e: hip::Error) -> RuntimeError {
    use sys::cudaError_t as S;
    let status = match (e.hip_status(), &e) {
        (Some(s), _) => S::from(s),
        (None, hip::Error::Load(_)) => S::cudaErrorSharedObjectInitFailed,
        (None, hip::Error::Invalid { .. }) => S::cudaErrorInvalidValue,
        (None, hip::Error::Unsupported { .. }) => S::cudaErrorNotSupported,
        (None, hip::Error::Hiprtc { .. } | hip::Error::Compile { .. }) => S::cudaErrorInvalidSource,
        (None, _) => S::cudaErrorUnknown,
    };
    fail(status, &e.to_string())
}

impl From<crate::driver::sys::cudaError_enum> for RuntimeError {
    /// The runtime status of a driver status. Both carry HIP's value, so the
    /// meaning is kept whole (cudarc keeps three and makes the rest
    /// `cudaErrorUnknown`); a synthesized driver value, which HIP never
    /// returns, becomes `cudaErrorUnknown`.
    fn from(e: crate::driver::sys::cudaError_enum) -> Self {
        if e.is_synthesized() {
            RuntimeError(sys::cudaError_t::cudaErrorUnknown)
        } else {
            RuntimeError(sys::cudaError(e.0))
        }
    }
}

/// One runtime row of `cuda_error_strings.tsv`: CUDA's name and text.
struct Row {
    name: CString,
    text: CString,
}

/// CUDA's own name and description of a runtime status, found by its CUDA
/// name (the same table the driver's errors print from).
fn cuda_text(status: sys::cudaError_t) -> Option<(&'static CStr, &'static CStr)> {
    static ROWS: OnceLock<Vec<Row>> = OnceLock::new();
    let rows = ROWS.get_or_init(|| {
        include_str!("../cuda_error_strings.tsv")
            .lines()
            .filter_map(|line| {
                let mut f = line.splitn(4, '\t');
                if f.next()? != "runtime" {
                    return None;
                }
                f.next()?;
                Some(Row {
                    name: CString::new(f.next()?).ok()?,
                    text: CString::new(f.next()?).ok()?,
                })
            })
            .collect()
    });
    let name = status.name()?;
    rows.iter()
        .find(|r| r.name.to_bytes() == name.as_bytes())
        .map(|r| (r.name.as_c_str(), r.text.as_c_str()))
}

/// A static C string from the runtime, or `cudaErrorUnknown` for none (the
/// HIP runtime is not loaded).
fn static_cstr(p: Option<&'static CStr>) -> Result<&'static CStr, RuntimeError> {
    p.ok_or_else(|| {
        fail(
            sys::cudaError_t::cudaErrorUnknown,
            "no HIP runtime is loaded",
        )
    })
}

impl RuntimeError {
    /// The status's name as CUDA's `cudaGetErrorName` gives it (e.g.
    /// `cudaErrorMemoryAllocation`) whatever the platform; a status CUDA has
    /// no name for gets the runtime's own (`hipGetErrorName`).
    pub fn error_name(&self) -> Result<&'static CStr, RuntimeError> {
        if let Some((name, _)) = cuda_text(self.0) {
            return Ok(name);
        }
        static_cstr(ours_result::error_name_c_str(self.0.into()))
    }

    /// The status's description as CUDA's `cudaGetErrorString` gives it
    /// (e.g. "out of memory"); a status CUDA has no text for gets the
    /// runtime's own (`hipGetErrorString`).
    ///
    /// ```
    /// use cuda_compat::runtime::{result::RuntimeError, sys::cudaError_t};
    /// let e = RuntimeError(cudaError_t::cudaErrorMemoryAllocation);
    /// assert_eq!(e.error_string().unwrap().to_str(), Ok("out of memory"));
    /// ```
    pub fn error_string(&self) -> Result<&'static CStr, RuntimeError> {
        if let Some((_, text)) = cuda_text(self.0) {
            return Ok(text);
        }
        static_cstr(ours_result::error_string_c_str(self.0.into()))
    }
}

impl fmt::Debug for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut t = f.debug_tuple("RuntimeError");
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

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for RuntimeError {}

/// `cudaErrorNotSupported`: a call HIP lacks, named in the reason.
#[cold]
fn unsupported(call: &str) -> RuntimeError {
    fail(
        sys::cudaError_t::cudaErrorNotSupported,
        &format!("{call} has no HIP counterpart"),
    )
}

/// The flags of `cudaSetDeviceFlags`, as cudarc lists them; the values are
/// HIP's (`hipDeviceScheduleAuto`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CudaDeviceFlags {
    /// Let the runtime choose how the host waits.
    CudaDeviceScheduleAuto = sys::cudaDeviceScheduleAuto as isize,
    /// Spin while waiting.
    CudaDeviceScheduleSpin = sys::cudaDeviceScheduleSpin as isize,
    /// Yield the thread while waiting.
    CudaDeviceScheduleYield = sys::cudaDeviceScheduleYield as isize,
    /// Block on a synchronisation primitive while waiting.
    CudaDeviceScheduleBlockingSync = sys::cudaDeviceScheduleBlockingSync as isize,
    /// Allow mapped pinned host allocations.
    CudaDeviceMapHost = sys::cudaDeviceMapHost as isize,
    /// Keep local memory at its largest after a resize.
    CudaDeviceLmemResizeToMax = sys::cudaDeviceLmemResizeToMax as isize,
    /// CUDA's `cudaDeviceSyncMemops` (0x80), which HIP has no flag for:
    /// HIP does not honour it.
    CudaDeviceSyncMemops = 0x80,
}

/// Versions: `cudaRuntimeGetVersion`, `cudaDriverGetVersion`.
pub mod version {
    use super::{ours, ours_result, RuntimeError};

    /// `cudaRuntimeGetVersion` (HIP's runtime version).
    pub fn get() -> Result<i32, RuntimeError> {
        ours_result::runtime_get_version().map_err(ours)
    }

    /// The same as [`get`].
    pub fn get_runtime_version() -> Result<i32, RuntimeError> {
        get()
    }

    /// `cudaDriverGetVersion` (HIP's driver version).
    pub fn get_driver_version() -> Result<i32, RuntimeError> {
        ours_result::driver_get_version().map_err(ours)
    }
}

/// Devices: `cudaSetDevice`, `cudaGetDevice*`, `cudaDeviceReset`.
pub mod device {
    use super::{ours, ours_result, sys, RuntimeError};
    use core::ffi::{c_int, c_void};

    /// `cudaSetDevice`: makes `ordinal` this thread's device.
    pub fn set(ordinal: i32) -> Result<(), RuntimeError> {
        ours_result::set_device(ordinal).map_err(ours)
    }

    /// `cudaGetDevice`: this thread's device.
    pub fn get() -> Result<i32, RuntimeError> {
        ours_result::get_device().map_err(ours)
    }

    /// `cudaFree` (null does nothing), holding the current device's capture
    /// gate as `hip` does for every free that may synchronize the device.
    ///
    /// # Safety
    /// `device_ptr` is null or memory from `cudaMalloc` (or another runtime
    /// allocator), not yet freed and no longer in use.
    pub unsafe fn free(device_ptr: *mut c_void) -> Result<(), RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { super::free_holding_gate(device_ptr) }
    }

    /// `cudaGetDeviceProperties` (HIP's `hipGetDevicePropertiesR0600`, the
    /// layout of CUDA 12's `cudaDeviceProp`), with CUDA's `warpSize` of 32
    /// on every device (see [`get_attribute`]).
    pub fn get_device_prop(ordinal: c_int) -> Result<sys::cudaDeviceProp, RuntimeError> {
        let mut prop = ours_result::get_device_properties_r0600(ordinal).map_err(ours)?;
        prop.warpSize = crate::warp::CUDA_WARP_SIZE;
        Ok(prop)
    }

    /// `cudaGetDeviceCount`.
    pub fn get_count() -> Result<c_int, RuntimeError> {
        ours_result::get_device_count().map_err(ours)
    }

    /// Total memory of the current device in bytes (`cudaMemGetInfo`).
    pub fn total_mem() -> Result<usize, RuntimeError> {
        Ok(super::mem_get_info()?.1)
    }

    /// Free memory of the current device in bytes (`cudaMemGetInfo`).
    pub fn free_mem() -> Result<usize, RuntimeError> {
        Ok(super::mem_get_info()?.0)
    }

    /// `cudaDeviceGetAttribute` (HIP's attribute values: see the crate
    /// docs), except the warp size, which is CUDA's 32 on every device:
    /// CUDA code compiled through hip-cuda-layer runs in 32-lane warps,
    /// also on a wave64 GPU.
    ///
    /// # Safety
    /// `ordinal` is a device of this process and `attr` an attribute.
    pub unsafe fn get_attribute(
        ordinal: c_int,
        attr: sys::cudaDeviceAttr,
    ) -> Result<i32, RuntimeError> {
        let v = ours_result::device_get_attribute(attr.into(), ordinal).map_err(ours)?;
        Ok(crate::warp::cuda_attribute(attr.into(), v))
    }

    /// `cudaDeviceReset`: destroys the current device's state and frees all
    /// of its memory. It acts on the whole device: it waits for the
    /// device's open captures to end (`hip`'s capture gate), and fails when
    /// this thread captures.
    ///
    /// # Safety
    /// No memory, stream, event or module of the device is used afterwards.
    pub unsafe fn reset() -> Result<(), RuntimeError> {
        crate::gate::holding_current("cudaDeviceReset", |held| {
            // SAFETY: the caller's contract.
            unsafe { ours_result::device_reset(held) }
        })
        .map_err(ours)
    }
}

/// Kernel attributes: `cudaFuncSetAttribute`, `cudaFuncGetAttributes`,
/// `cudaGetFuncBySymbol`, `cudaFuncSetCacheConfig`. `func` is the kernel's
/// host symbol, as for CUDA's and HIP's runtime.
pub mod function {
    use super::{ours, ours_result, sys, RuntimeError};
    use core::ffi::c_void;

    /// `cudaFuncSetAttribute`.
    ///
    /// # Safety
    /// `func` is a kernel's host symbol.
    pub unsafe fn set_function_attribute(
        func: *const c_void,
        attribute: sys::cudaFuncAttribute,
        value: i32,
    ) -> Result<(), RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::func_set_attribute(func, attribute.into(), value) }.map_err(ours)
    }

    /// `cudaFuncGetAttributes`.
    ///
    /// # Safety
    /// `func` is a kernel's host symbol.
    pub unsafe fn get_function_attributes(
        func: *const c_void,
    ) -> Result<sys::cudaFuncAttributes, RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::func_get_attributes(func) }.map_err(ours)
    }

    /// `cudaGetFuncBySymbol`: the function handle of a kernel's host
    /// symbol.
    ///
    /// # Safety
    /// `symbol_ptr` is a kernel's host symbol.
    pub unsafe fn get_function_by_symbol(
        symbol_ptr: *const c_void,
    ) -> Result<sys::cudaFunction_t, RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::get_func_by_symbol(symbol_ptr) }.map_err(ours)
    }

    /// `cudaFuncSetCacheConfig`.
    ///
    /// # Safety
    /// `func` is a kernel's host symbol.
    pub unsafe fn set_function_cache_config(
        func: *const c_void,
        attribute: sys::cudaFuncCache,
    ) -> Result<(), RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::func_set_cache_config(func, attribute.into()) }.map_err(ours)
    }
}

/// Occupancy: `cudaOccupancy*`. `f` is a kernel's host symbol for the
/// `*const c_void` calls; the two `max_potential_block_size` calls take a
/// function handle and are the driver's (as in cudarc, where CUDA's are
/// header-only templates).
pub mod occupancy {
    use super::{ours, ours_result, sys, unsupported, RuntimeError};
    use crate::driver::{sys as driver_sys, DriverError};
    use core::ffi::{c_int, c_uint, c_void};

    /// `cudaOccupancyAvailableDynamicSMemPerBlock`, which HIP lacks:
    /// always `cudaErrorNotSupported` (the driver's counterpart returns
    /// `CUDA_ERROR_NOT_SUPPORTED` too).
    ///
    /// # Safety
    /// `f` is a kernel's host symbol (nothing is called).
    pub unsafe fn available_dynamic_shared_mem_per_block(
        f: *const c_void,
        num_blocks: c_int,
        block_size: c_int,
    ) -> Result<usize, RuntimeError> {
        let _ = (f, num_blocks, block_size);
        Err(unsupported("cudaOccupancyAvailableDynamicSMemPerBlock"))
    }

    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessor`.
    ///
    /// # Safety
    /// `f` is a kernel's host symbol.
    pub unsafe fn max_active_block_per_multiprocessor(
        f: *const c_void,
        block_size: c_int,
        dynamic_smem_size: usize,
    ) -> Result<i32, RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe {
            ours_result::occupancy_max_active_blocks_per_multiprocessor(
                f,
                block_size,
                dynamic_smem_size,
                None,
            )
        }
        .map_err(ours)
    }

    /// `cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`.
    ///
    /// # Safety
    /// `f` is a kernel's host symbol.
    pub unsafe fn max_active_block_per_multiprocessor_with_flags(
        f: *const c_void,
        block_size: c_int,
        dynamic_smem_size: usize,
        flags: c_uint,
    ) -> Result<i32, RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe {
            ours_result::occupancy_max_active_blocks_per_multiprocessor(
                f,
                block_size,
                dynamic_smem_size,
                Some(flags),
            )
        }
        .map_err(ours)
    }

    /// (minimum grid size, block size) for the best occupancy: the
    /// driver's [`max_potential_block_size`](crate::driver::result::occupancy::max_potential_block_size).
    ///
    /// # Safety
    /// `f` is a live function handle (a module's function).
    pub unsafe fn max_potential_block_size(
        f: sys::cudaFunction_t,
        block_size_to_dynamic_smem_size: driver_sys::CUoccupancyB2DSize,
        dynamic_smem_size: usize,
        block_size_limit: c_int,
    ) -> Result<(i32, i32), DriverError> {
        // SAFETY: the caller's contract; `cudaFunction_t` and `CUfunction`
        // are the same handle.
        unsafe {
            crate::driver::result::occupancy::max_potential_block_size(
                f as driver_sys::CUfunction,
                block_size_to_dynamic_smem_size,
                dynamic_smem_size,
                block_size_limit,
            )
        }
    }

    /// As [`max_potential_block_size`], with occupancy flags.
    ///
    /// # Safety
    /// As [`max_potential_block_size`].
    pub unsafe fn max_potential_block_size_with_flags(
        f: sys::cudaFunction_t,
        block_size_to_dynamic_smem_size: driver_sys::CUoccupancyB2DSize,
        dynamic_smem_size: usize,
        block_size_limit: c_int,
        flags: c_uint,
    ) -> Result<(i32, i32), DriverError> {
        // SAFETY: as in `max_potential_block_size`.
        unsafe {
            crate::driver::result::occupancy::max_potential_block_size_with_flags(
                f as driver_sys::CUfunction,
                block_size_to_dynamic_smem_size,
                dynamic_smem_size,
                block_size_limit,
                flags,
            )
        }
    }
}

/// Streams: `cudaStream*`.
pub mod stream {
    use super::{ours, ours_result, sys, RuntimeError};

    /// The flags of a new stream (`cudaStreamCreateWithFlags`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum StreamKind {
        /// `cudaStreamDefault`: synchronises with the legacy default stream.
        Default,
        /// `cudaStreamNonBlocking`: runs concurrently with the default
        /// stream, with no implicit synchronisation.
        NonBlocking,
    }

    impl StreamKind {
        fn flags(self) -> u32 {
            match self {
                Self::Default => sys::cudaStreamDefault,
                Self::NonBlocking => sys::cudaStreamNonBlocking,
            }
        }
    }

    /// `cudaStreamCreateWithFlags` on the current device. (cudarc ignores
    /// this call's status; here a failure is an error, never a garbage
    /// handle.)
    pub fn create(kind: StreamKind) -> Result<sys::cudaStream_t, RuntimeError> {
        ours_result::stream_create_with_flags(kind.flags()).map_err(ours)
    }

    /// `cudaStreamSynchronize`.
    ///
    /// # Safety
    /// `stream` is null (the default stream) or a live stream.
    pub unsafe fn synchronize(stream: sys::cudaStream_t) -> Result<(), RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::stream_synchronize(stream) }.map_err(ours)
    }

    /// `cudaStreamDestroy`.
    ///
    /// # Safety
    /// `stream` is a live stream from [`create`], not used afterwards.
    pub unsafe fn destroy(stream: sys::cudaStream_t) -> Result<(), RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::stream_destroy(stream) }.map_err(ours)
    }

    /// `cudaStreamWaitEvent`: work enqueued on `stream` afterwards waits
    /// for `event`.
    ///
    /// # Safety
    /// Both are live.
    pub unsafe fn wait_event(
        stream: sys::cudaStream_t,
        event: sys::cudaEvent_t,
        flags: u32,
    ) -> Result<(), RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::stream_wait_event_with_flags(stream, event, flags) }.map_err(ours)
    }
}

/// `cudaMallocAsync`: `num_bytes` of uninitialised device memory, ordered
/// on `stream`.
///
/// # Safety
/// `stream` is live; the memory is freed once ([`free_async`]) and read
/// only after being written.
pub unsafe fn malloc_async(
    stream: sys::cudaStream_t,
    num_bytes: usize,
) -> Result<*mut c_void, RuntimeError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::malloc_async(num_bytes, stream) }.map_err(ours)
}

/// `cudaMalloc`: `num_bytes` of uninitialised device memory.
///
/// # Safety
/// The memory is freed once ([`free_sync`]) and read only after being
/// written.
pub unsafe fn malloc_sync(num_bytes: usize) -> Result<*mut c_void, RuntimeError> {
    ours_result::malloc(num_bytes).map_err(ours)
}

/// (free, total) bytes of the current device (`cudaMemGetInfo`).
pub fn get_mem_info() -> Result<(usize, usize), RuntimeError> {
    mem_get_info()
}

/// `cudaFreeAsync`, ordered on `stream`.
///
/// # Safety
/// `dptr` is memory from [`malloc_async`], not yet freed; `stream` is live.
pub unsafe fn free_async(dptr: *mut c_void, stream: sys::cudaStream_t) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::free_async(dptr, stream) }.map_err(ours)
}

/// `cudaFree`.
///
/// # Safety
/// `dptr` is memory from [`malloc_sync`], not yet freed, no longer in use.
pub unsafe fn free_sync(dptr: *mut c_void) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract.
    unsafe { free_holding_gate(dptr) }
}

/// `hipFree` holding the current device's capture gate (`hipFree` may
/// synchronize the device, which CUDA forbids while one of its streams
/// captures).
///
/// # Safety
/// `p` is null or runtime-allocated device memory, not yet freed, no
/// longer in use.
unsafe fn free_holding_gate(p: *mut c_void) -> Result<(), RuntimeError> {
    crate::gate::holding_current("cudaFree", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::free(p, held) }
    })
    .map_err(ours)
}

/// `cudaFree`.
///
/// # Safety
/// As [`free_sync`]; all work using the memory has finished.
pub unsafe fn memory_free(device_ptr: *mut c_void) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract.
    unsafe { free_holding_gate(device_ptr) }
}

/// `cudaMemsetAsync`: `num_bytes` bytes at `dptr` set to `uc`, on `stream`.
///
/// # Safety
/// `dptr` is live device memory of at least `num_bytes` bytes; `stream` is
/// live.
pub unsafe fn memset_d8_async(
    dptr: *mut c_void,
    uc: c_uchar,
    num_bytes: usize,
    stream: sys::cudaStream_t,
) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::memset_async(dptr, uc, num_bytes, stream) }.map_err(ours)
}

/// `cudaMemset`: `num_bytes` bytes at `dptr` set to `uc`.
///
/// # Safety
/// `dptr` is live device memory of at least `num_bytes` bytes.
pub unsafe fn memset_d8_sync(
    dptr: *mut c_void,
    uc: c_uchar,
    num_bytes: usize,
) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::memset(dptr, uc, num_bytes) }.map_err(ours)
}

/// `cudaMemcpyAsync` host to device of all of `src`, on `stream`.
///
/// # Safety
/// `dst` is live device memory of at least `src`'s size; `src` stays alive
/// and unmoved until the copy is done (pageable memory is copied before
/// the call returns; pinned memory later).
pub unsafe fn memcpy_htod_async<T>(
    dst: *mut c_void,
    src: &[T],
    stream: sys::cudaStream_t,
) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract; `src` spans its size.
    unsafe {
        ours_result::memcpy_async(
            dst,
            src.as_ptr().cast(),
            size_of_val(src),
            hip::sys::hipMemcpyKind::hipMemcpyHostToDevice,
            stream,
        )
    }
    .map_err(ours)
}

/// `cudaMemcpy` host to device of all of `src`.
///
/// # Safety
/// `dst` is live device memory of at least `src`'s size.
pub unsafe fn memcpy_htod_sync<T>(dst: *mut c_void, src: &[T]) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract; `src` spans its size.
    unsafe {
        ours_result::memcpy(
            dst,
            src.as_ptr().cast(),
            size_of_val(src),
            hip::sys::hipMemcpyKind::hipMemcpyHostToDevice,
        )
    }
    .map_err(ours)
}

/// `cudaMemcpyAsync` device to host, filling all of `dst`, on `stream`.
///
/// # Safety
/// `src` is live device memory of at least `dst`'s size, holding valid
/// `T`s; `dst` is not read or moved until the copy is done.
pub unsafe fn memcpy_dtoh_async<T>(
    dst: &mut [T],
    src: *const c_void,
    stream: sys::cudaStream_t,
) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract; `dst` spans its size.
    unsafe {
        ours_result::memcpy_async(
            dst.as_mut_ptr().cast(),
            src,
            size_of_val(dst),
            hip::sys::hipMemcpyKind::hipMemcpyDeviceToHost,
            stream,
        )
    }
    .map_err(ours)
}

/// `cudaMemcpy` device to host, filling all of `dst`.
///
/// # Safety
/// `src` is live device memory of at least `dst`'s size, holding valid
/// `T`s.
pub unsafe fn memcpy_dtoh_sync<T>(dst: &mut [T], src: *const c_void) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract; `dst` spans its size.
    unsafe {
        ours_result::memcpy(
            dst.as_mut_ptr().cast(),
            src,
            size_of_val(dst),
            hip::sys::hipMemcpyKind::hipMemcpyDeviceToHost,
        )
    }
    .map_err(ours)
}

/// `cudaMemcpyAsync` device to device of `num_bytes`, on `stream`.
///
/// # Safety
/// Both are live device memory of at least `num_bytes` bytes.
pub unsafe fn memcpy_dtod_async(
    dst: *mut c_void,
    src: *const c_void,
    num_bytes: usize,
    stream: sys::cudaStream_t,
) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract.
    unsafe {
        ours_result::memcpy_async(
            dst,
            src,
            num_bytes,
            hip::sys::hipMemcpyKind::hipMemcpyDeviceToDevice,
            stream,
        )
    }
    .map_err(ours)
}

/// `cudaMemcpy` device to device of `num_bytes`.
///
/// # Safety
/// Both are live device memory of at least `num_bytes` bytes.
pub unsafe fn memcpy_dtod_sync(
    dst: *mut c_void,
    src: *const c_void,
    num_bytes: usize,
) -> Result<(), RuntimeError> {
    // SAFETY: the caller's contract.
    unsafe {
        ours_result::memcpy(
            dst,
            src,
            num_bytes,
            hip::sys::hipMemcpyKind::hipMemcpyDeviceToDevice,
        )
    }
    .map_err(ours)
}

/// (free, total) bytes of the current device (`cudaMemGetInfo`).
pub fn mem_get_info() -> Result<(usize, usize), RuntimeError> {
    ours_result::mem_get_info().map_err(ours)
}

/// Events: `cudaEvent*`.
pub mod event {
    use super::{ours, ours_result, sys, RuntimeError};

    /// `cudaEventCreateWithFlags`.
    pub fn create(flags: u32) -> Result<sys::cudaEvent_t, RuntimeError> {
        ours_result::event_create_with_flags(flags).map_err(ours)
    }

    /// `cudaEventRecord` on `stream`.
    ///
    /// # Safety
    /// `event` is live; `stream` is null or live, of the event's device.
    pub unsafe fn record(
        event: sys::cudaEvent_t,
        stream: sys::cudaStream_t,
    ) -> Result<(), RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::event_record(event, stream) }.map_err(ours)
    }

    /// `cudaEventElapsedTime`: milliseconds from `start` to `end`, both
    /// recorded and complete.
    ///
    /// # Safety
    /// Both are live events from [`create`] with timing enabled.
    pub unsafe fn elapsed(
        start: sys::cudaEvent_t,
        end: sys::cudaEvent_t,
    ) -> Result<f32, RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::event_elapsed_time(start, end) }.map_err(ours)
    }

    /// `cudaEventDestroy` (an event not yet complete is released when it
    /// completes).
    ///
    /// # Safety
    /// `event` is live and not used afterwards.
    pub unsafe fn destroy(event: sys::cudaEvent_t) -> Result<(), RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::event_destroy(event) }.map_err(ours)
    }
}

/// Launches module function `f` (cudarc's `runtime::result::launch_kernel`).
///
/// `f` is a `CUfunction` (a module's function), which HIP launches with
/// `hipModuleLaunchKernel` (the driver's `cuLaunchKernel`): HIP's
/// `hipLaunchKernel` takes a host stub instead. A status from that call
/// keeps its (HIP) value as a [`RuntimeError`], with `hip`'s message as
/// the reason.
///
/// # Safety
/// `f` is live; the dimensions and shared memory are within the device's
/// limits; `stream` is null or live, of `f`'s device; `kernel_params`
/// points at one value per kernel parameter, of its type, each alive until
/// the launch is enqueued, and the memory they refer to stays alive until
/// the kernel completes.
#[inline]
pub unsafe fn launch_kernel(
    f: crate::driver::sys::CUfunction,
    grid_dim: (u32, u32, u32),
    block_dim: (u32, u32, u32),
    shared_mem_bytes: usize,
    stream: sys::cudaStream_t,
    kernel_params: &mut [*mut c_void],
) -> Result<(), RuntimeError> {
    let Ok(shared) = u32::try_from(shared_mem_bytes) else {
        return Err(shared_too_large(shared_mem_bytes));
    };
    // SAFETY: the caller's contract; only `kernel_params` passes arguments.
    unsafe {
        ours_result::module_launch_kernel(
            f,
            grid_dim,
            block_dim,
            shared,
            stream,
            kernel_params.as_mut_ptr(),
            false,
        )
    }
    .map_err(ours)
}

/// `cudaErrorInvalidValue` for dynamic shared memory beyond a `u32`.
#[cold]
#[inline(never)]
fn shared_too_large(bytes: usize) -> RuntimeError {
    fail(
        sys::cudaError_t::cudaErrorInvalidValue,
        &format!("launch_kernel: {bytes} bytes of dynamic shared memory do not fit a u32"),
    )
}

/// External memory: `cudaImportExternalMemory`, `cudaDestroyExternalMemory`,
/// `cudaExternalMemoryGetMappedBuffer`.
pub mod external_memory {
    use super::{ours, ours_result, sys, RuntimeError};
    use core::ffi::c_void;

    /// Imports `size` bytes of memory exported as an opaque file descriptor
    /// (`cudaExternalMemoryHandleTypeOpaqueFd`); destroy it with
    /// [`destroy_external_memory`].
    ///
    /// # Safety
    /// `fd` is such a descriptor and `size` the object's size in bytes.
    #[cfg(unix)]
    pub unsafe fn import_external_memory_opaque_fd(
        fd: std::os::fd::RawFd,
        size: u64,
    ) -> Result<sys::cudaExternalMemory_t, RuntimeError> {
        let desc = sys::cudaExternalMemoryHandleDesc {
            type_: sys::cudaExternalMemoryHandleType::cudaExternalMemoryHandleTypeOpaqueFd.into(),
            handle: hip::sys::hipExternalMemoryHandleDesc_st__bindgen_ty_1 { fd },
            size,
            flags: 0,
            reserved: [0; 16],
        };
        // SAFETY: `desc` is a whole descriptor; the caller's contract.
        unsafe { ours_result::import_external_memory(&desc) }.map_err(ours)
    }

    /// Imports `size` bytes of memory exported as an opaque Win32 handle
    /// (`cudaExternalMemoryHandleTypeOpaqueWin32`); destroy it with
    /// [`destroy_external_memory`].
    ///
    /// # Safety
    /// `handle` is such a handle and `size` the object's size in bytes.
    #[cfg(windows)]
    pub unsafe fn import_external_memory_opaque_win32(
        handle: std::os::windows::io::RawHandle,
        size: u64,
    ) -> Result<sys::cudaExternalMemory_t, RuntimeError> {
        let desc = sys::cudaExternalMemoryHandleDesc {
            type_: sys::cudaExternalMemoryHandleType::cudaExternalMemoryHandleTypeOpaqueWin32
                .into(),
            handle: hip::sys::hipExternalMemoryHandleDesc_st__bindgen_ty_1 {
                win32: hip::sys::hipExternalMemoryHandleDesc_st__bindgen_ty_1__bindgen_ty_1 {
                    handle,
                    name: std::ptr::null(),
                },
            },
            size,
            flags: 0,
            reserved: [0; 16],
        };
        // SAFETY: as in `import_external_memory_opaque_fd`.
        unsafe { ours_result::import_external_memory(&desc) }.map_err(ours)
    }

    /// `cudaDestroyExternalMemory`.
    ///
    /// # Safety
    /// Every buffer mapped from it has been freed; it is destroyed once.
    pub unsafe fn destroy_external_memory(
        external_memory: sys::cudaExternalMemory_t,
    ) -> Result<(), RuntimeError> {
        // SAFETY: the caller's contract.
        unsafe { ours_result::destroy_external_memory(external_memory) }.map_err(ours)
    }

    /// `cudaExternalMemoryGetMappedBuffer`: `size` bytes from `offset` as
    /// device memory, freed with [`memory_free`](super::memory_free).
    ///
    /// # Safety
    /// `external_memory` is live; mapped buffers may overlap.
    pub unsafe fn get_mapped_buffer(
        external_memory: sys::cudaExternalMemory_t,
        offset: u64,
        size: u64,
    ) -> Result<*mut c_void, RuntimeError> {
        let desc = sys::cudaExternalMemoryBufferDesc {
            offset,
            size,
            flags: 0,
            reserved: [0; 16],
        };
        // SAFETY: `desc` is a whole descriptor; the caller's contract.
        unsafe { ours_result::external_memory_get_mapped_buffer(external_memory, &desc) }
            .map_err(ours)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_words_for_runtime_statuses() {
        let text = |s| cuda_text(s).map(|(n, t)| (n.to_str().unwrap(), t.to_str().unwrap()));
        assert_eq!(
            text(sys::cudaError_t::cudaErrorMemoryAllocation),
            Some(("cudaErrorMemoryAllocation", "out of memory"))
        );
        assert_eq!(
            text(sys::cudaError_t::cudaErrorInvalidValue),
            Some(("cudaErrorInvalidValue", "invalid argument"))
        );
        assert!(text(sys::cudaError_t::cudaSuccess).is_some());
    }
}
