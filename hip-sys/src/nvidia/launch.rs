//! Kernel launch, function attributes and occupancy.
//!
//! On this platform a kernel is always a `hipFunction_t` from a module
//! (there is no host-side kernel registration), so the runtime-style entry
//! points that take `const void* function_address` (`hipLaunchKernel`,
//! `hipFuncGetAttributes`, `hipOccupancyMaxPotentialBlockSize`...) accept a
//! `hipFunction_t` cast to a pointer.

use super::{cuda_fn, driver_fn, drv_status, ensure_context, record};
use crate::generated::functions::HipFunctions;
use crate::*;
use core::ffi::{c_char, c_int, c_uint, c_void};

pub(super) fn register(t: &mut HipFunctions) {
    t.hipModuleLaunchKernel = Some(hipModuleLaunchKernel);
    t.hipLaunchKernel = Some(hipLaunchKernel);
    t.hipLaunchCooperativeKernel = Some(hipLaunchCooperativeKernel);
    t.hipExtLaunchKernel = Some(hipExtLaunchKernel);
    t.hipFuncGetAttributes = Some(hipFuncGetAttributes);
    t.hipFuncSetAttribute = Some(hipFuncSetAttribute);
    t.hipKernelNameRef = Some(hipKernelNameRef);
    t.hipModuleOccupancyMaxPotentialBlockSize = Some(hipModuleOccupancyMaxPotentialBlockSize);
    t.hipModuleOccupancyMaxPotentialBlockSizeWithFlags =
        Some(hipModuleOccupancyMaxPotentialBlockSizeWithFlags);
    t.hipOccupancyMaxPotentialBlockSize = Some(hipOccupancyMaxPotentialBlockSize);
}

/// HIP's keys in a launch's `extra` array.
pub(crate) const HIP_LAUNCH_PARAM_BUFFER_POINTER: usize = 0x01;
pub(crate) const HIP_LAUNCH_PARAM_BUFFER_SIZE: usize = 0x02;
pub(crate) const HIP_LAUNCH_PARAM_END: usize = 0x03;
/// CUDA's keys for the same (`CU_LAUNCH_PARAM_*`): END is 0 there.
pub(crate) const CU_LAUNCH_PARAM_END: usize = 0x00;
pub(crate) const CU_LAUNCH_PARAM_BUFFER_POINTER: usize = 0x01;
pub(crate) const CU_LAUNCH_PARAM_BUFFER_SIZE: usize = 0x02;

/// The longest `extra` array read before giving up on finding its end.
const EXTRA_LIMIT: usize = 64;

/// The argument buffer given in an `extra` array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExtraArgs {
    /// `HIP_LAUNCH_PARAM_BUFFER_POINTER`'s value.
    pub(crate) buffer: *mut c_void,
    /// `HIP_LAUNCH_PARAM_BUFFER_SIZE`'s value: a pointer to a `size_t`.
    pub(crate) size: *mut c_void,
}

impl ExtraArgs {
    /// The same, as CUDA's `extra` array.
    pub(crate) fn to_cuda(self) -> [*mut c_void; 5] {
        [
            CU_LAUNCH_PARAM_BUFFER_POINTER as *mut c_void,
            self.buffer,
            CU_LAUNCH_PARAM_BUFFER_SIZE as *mut c_void,
            self.size,
            CU_LAUNCH_PARAM_END as *mut c_void,
        ]
    }
}

/// Reads HIP's `extra` array (key/value pairs ended by
/// `HIP_LAUNCH_PARAM_END`), given as the entries up to and including the
/// end key (or more). Both the buffer and its size must be given.
pub(crate) fn parse_extra(entries: &[*mut c_void]) -> Result<ExtraArgs, hipError_t> {
    let mut buffer = None;
    let mut size = None;
    let mut i = 0;
    loop {
        let key = *entries.get(i).ok_or(hipError_t::hipErrorInvalidValue)? as usize;
        if key == HIP_LAUNCH_PARAM_END {
            break;
        }
        let value = *entries.get(i + 1).ok_or(hipError_t::hipErrorInvalidValue)?;
        match key {
            HIP_LAUNCH_PARAM_BUFFER_POINTER => buffer = Some(value),
            HIP_LAUNCH_PARAM_BUFFER_SIZE => size = Some(value),
            _ => return Err(hipError_t::hipErrorInvalidValue),
        }
        i += 2;
    }
    match (buffer, size) {
        (Some(buffer), Some(size)) if !buffer.is_null() && !size.is_null() => {
            Ok(ExtraArgs { buffer, size })
        }
        _ => Err(hipError_t::hipErrorInvalidValue),
    }
}

/// Reads a C `extra` array up to its end key.
///
/// # Safety
/// `extra` must point to an array ended by `HIP_LAUNCH_PARAM_END` in a key
/// position.
unsafe fn read_extra(extra: *mut *mut c_void) -> Result<ExtraArgs, hipError_t> {
    let mut entries = Vec::new();
    for i in 0..EXTRA_LIMIT {
        // SAFETY: the array is read one entry at a time, up to its end key
        // (keys sit at even positions).
        let v = unsafe { *extra.add(i) };
        entries.push(v);
        if i % 2 == 0 && v as usize == HIP_LAUNCH_PARAM_END {
            break;
        }
    }
    parse_extra(&entries)
}

/// A HIP `extra` array read and rewritten with CUDA's keys.
///
/// # Safety
/// As [`read_extra`].
pub(crate) unsafe fn read_extra_for_node(
    extra: *mut *mut c_void,
) -> Result<[*mut c_void; 5], hipError_t> {
    // SAFETY: by this function's contract.
    unsafe { read_extra(extra) }.map(ExtraArgs::to_cuda)
}

type CuLaunchKernel = unsafe extern "C" fn(
    hipFunction_t,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    hipStream_t,
    *mut *mut c_void,
    *mut *mut c_void,
) -> i32;

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn hipModuleLaunchKernel(
    f: hipFunction_t,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared: c_uint,
    stream: hipStream_t,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> hipError_t {
    let launch = driver_fn!("cuLaunchKernel", CuLaunchKernel);
    let mut cuda_extra;
    let extra_ptr = if extra.is_null() {
        core::ptr::null_mut()
    } else {
        // SAFETY: a non-null `extra` is, by contract, ended by the end key.
        cuda_extra = match unsafe { read_extra(extra) } {
            Ok(e) => e.to_cuda(),
            Err(e) => return record(e),
        };
        cuda_extra.as_mut_ptr()
    };
    // SAFETY: the arguments are the caller's; `extra_ptr` is null or a
    // CUDA-style array that lives until the call returns.
    drv_status(unsafe {
        launch(
            f,
            gx,
            gy,
            gz,
            bx,
            by,
            bz,
            shared,
            stream,
            kernel_params,
            extra_ptr,
        )
    })
}

unsafe extern "C" fn hipLaunchKernel(
    function: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: hipStream_t,
) -> hipError_t {
    let Ok(shared) = c_uint::try_from(shared) else {
        return record(hipError_t::hipErrorInvalidValue);
    };
    // SAFETY: `function` is a `hipFunction_t` on this platform (see the
    // module's documentation); the rest is passed on.
    unsafe {
        hipModuleLaunchKernel(
            function as hipFunction_t,
            grid.x,
            grid.y,
            grid.z,
            block.x,
            block.y,
            block.z,
            shared,
            stream,
            args,
            core::ptr::null_mut(),
        )
    }
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn hipExtLaunchKernel(
    function: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: usize,
    stream: hipStream_t,
    start: hipEvent_t,
    stop: hipEvent_t,
    _flags: c_int,
) -> hipError_t {
    let Some(event_record) = cuda_fn!(
        Runtime,
        "cudaEventRecord",
        unsafe extern "C" fn(hipEvent_t, hipStream_t) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    if !start.is_null() {
        // SAFETY: records the caller's event on the caller's stream.
        let s = unsafe { event_record(start, stream) };
        if s != 0 {
            return super::rt_status(s);
        }
    }
    // SAFETY: as `hipLaunchKernel`.
    let e = unsafe { hipLaunchKernel(function, grid, block, args, shared, stream) };
    if !e.is_success() || stop.is_null() {
        return e;
    }
    // SAFETY: as above.
    super::rt_status(unsafe { event_record(stop, stream) })
}

unsafe extern "C" fn hipLaunchCooperativeKernel(
    f: *const c_void,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    shared: c_uint,
    stream: hipStream_t,
) -> hipError_t {
    let launch = driver_fn!(
        "cuLaunchCooperativeKernel",
        unsafe extern "C" fn(
            hipFunction_t,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            hipStream_t,
            *mut *mut c_void,
        ) -> i32
    );
    // SAFETY: `f` is a `hipFunction_t` on this platform; the rest is the
    // caller's.
    drv_status(unsafe {
        launch(
            f as hipFunction_t,
            grid.x,
            grid.y,
            grid.z,
            block.x,
            block.y,
            block.z,
            shared,
            stream,
            args,
        )
    })
}

/// `cuFuncGetAttribute` for a `CUfunction_attribute` (HIP's
/// `hipFunction_attribute` values are the same).
fn func_attribute(f: hipFunction_t, attr: i32) -> Result<c_int, hipError_t> {
    let get = cuda_fn!(
        Driver,
        "cuFuncGetAttribute",
        unsafe extern "C" fn(*mut c_int, i32, hipFunction_t) -> i32
    )
    .ok_or(hipError_t::hipErrorNotSupported)?;
    ensure_context()?;
    let mut v = 0;
    // SAFETY: `v` is an int to write to; `f` is the caller's function.
    let s = unsafe { get(&mut v, attr, f) };
    if s == 0 {
        Ok(v)
    } else {
        Err(super::status::from_cuda_driver(s))
    }
}

unsafe extern "C" fn hipFuncGetAttributes(
    attr: *mut hipFuncAttributes,
    func: *const c_void,
) -> hipError_t {
    if attr.is_null() || func.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    if let Err(e) = ensure_context() {
        return record(e);
    }
    let f = func as hipFunction_t;
    let read = || -> Result<hipFuncAttributes, hipError_t> {
        Ok(hipFuncAttributes {
            maxThreadsPerBlock: func_attribute(f, 0)?,
            sharedSizeBytes: func_attribute(f, 1)? as usize,
            constSizeBytes: func_attribute(f, 2)? as usize,
            localSizeBytes: func_attribute(f, 3)? as usize,
            numRegs: func_attribute(f, 4)?,
            ptxVersion: func_attribute(f, 5)?,
            binaryVersion: func_attribute(f, 6)?,
            cacheModeCA: func_attribute(f, 7)?,
            maxDynamicSharedSizeBytes: func_attribute(f, 8)?,
            preferredShmemCarveout: func_attribute(f, 9)?,
        })
    };
    match read() {
        Ok(a) => {
            // SAFETY: `attr` is non-null and, by contract, writable.
            unsafe { attr.write(a) };
            hipError_t::hipSuccess
        }
        Err(e) => record(e),
    }
}

unsafe extern "C" fn hipFuncSetAttribute(
    func: *const c_void,
    attr: hipFuncAttribute,
    value: c_int,
) -> hipError_t {
    // hipFuncAttributeMaxDynamicSharedMemorySize (8) and
    // hipFuncAttributePreferredSharedMemoryCarveout (9) are CUDA's 8 and 9.
    if attr.0 != 8 && attr.0 != 9 {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let set = driver_fn!(
        "cuFuncSetAttribute",
        unsafe extern "C" fn(hipFunction_t, u32, c_int) -> i32
    );
    // SAFETY: `func` is a `hipFunction_t` on this platform.
    drv_status(unsafe { set(func as hipFunction_t, attr.0, value) })
}

unsafe extern "C" fn hipKernelNameRef(f: hipFunction_t) -> *const c_char {
    let Some(get) = cuda_fn!(
        Driver,
        "cuFuncGetName",
        unsafe extern "C" fn(*mut *const c_char, hipFunction_t) -> i32
    ) else {
        return core::ptr::null();
    };
    if ensure_context().is_err() {
        return core::ptr::null();
    }
    let mut name = core::ptr::null();
    // SAFETY: `name` is a place for the driver's (static) name pointer.
    if unsafe { get(&mut name, f) } == 0 {
        name
    } else {
        core::ptr::null()
    }
}

type BlockToSmem = Option<unsafe extern "C" fn(c_int) -> usize>;

fn potential_block_size(
    grid: *mut c_int,
    block: *mut c_int,
    f: hipFunction_t,
    smem: usize,
    limit: c_int,
    flags: c_uint,
) -> hipError_t {
    let occ = driver_fn!(
        "cuOccupancyMaxPotentialBlockSizeWithFlags",
        unsafe extern "C" fn(
            *mut c_int,
            *mut c_int,
            hipFunction_t,
            BlockToSmem,
            usize,
            c_int,
            c_uint,
        ) -> i32
    );
    if grid.is_null() || block.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    // SAFETY: both outputs are non-null ints of the caller; no callback.
    drv_status(unsafe { occ(grid, block, f, None, smem, limit, flags) })
}

unsafe extern "C" fn hipModuleOccupancyMaxPotentialBlockSize(
    grid: *mut c_int,
    block: *mut c_int,
    f: hipFunction_t,
    smem: usize,
    limit: c_int,
) -> hipError_t {
    potential_block_size(grid, block, f, smem, limit, 0)
}

unsafe extern "C" fn hipModuleOccupancyMaxPotentialBlockSizeWithFlags(
    grid: *mut c_int,
    block: *mut c_int,
    f: hipFunction_t,
    smem: usize,
    limit: c_int,
    flags: c_uint,
) -> hipError_t {
    potential_block_size(grid, block, f, smem, limit, flags)
}

unsafe extern "C" fn hipOccupancyMaxPotentialBlockSize(
    grid: *mut c_int,
    block: *mut c_int,
    f: *const c_void,
    smem: usize,
    limit: c_int,
) -> hipError_t {
    potential_block_size(grid, block, f as hipFunction_t, smem, limit, 0)
}
