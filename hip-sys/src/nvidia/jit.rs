//! Functions taking JIT options: HIP numbers the options from
//! `hipJitOptionPositionIndependentCode` on differently from CUDA (CUDA has
//! five more before them), so option arrays are translated.

use super::{driver_fn, drv_status, record};
use crate::generated::functions::HipFunctions;
use crate::*;
use core::ffi::{c_char, c_uint, c_void};

pub(super) fn register(t: &mut HipFunctions) {
    t.hipModuleLoadDataEx = Some(hipModuleLoadDataEx);
    t.hipLinkCreate = Some(hipLinkCreate);
    t.hipLinkAddData = Some(hipLinkAddData);
    t.hipLinkAddFile = Some(hipLinkAddFile);
}

/// A HIP JIT option as CUDA's `CUjit_option`, or `None` for an AMD-only one.
pub(crate) const fn jit_option_to_cuda(o: hipJitOption) -> Option<u32> {
    match o.0 {
        0..=24 => Some(o.0),
        // PositionIndependentCode, MinCTAPerSM, MaxThreadsPerBlock,
        // OverrideDirectiveValues: CUDA's 30..=33.
        25..=28 => Some(o.0 + 5),
        _ => None,
    }
}

/// Reads and translates `n` options.
///
/// # Safety
/// `options` must point to `n` options when `n > 0`.
pub(crate) unsafe fn jit_options(
    n: c_uint,
    options: *const hipJitOption,
) -> Result<Vec<u32>, hipError_t> {
    if n == 0 {
        return Ok(Vec::new());
    }
    if options.is_null() {
        return Err(hipError_t::hipErrorInvalidValue);
    }
    // SAFETY: by this function's contract.
    let given = unsafe { core::slice::from_raw_parts(options, n as usize) };
    given
        .iter()
        .map(|o| jit_option_to_cuda(*o).ok_or(hipError_t::hipErrorInvalidValue))
        .collect()
}

/// The options pointer CUDA gets: null for none.
fn options_ptr(v: &mut [u32]) -> *mut u32 {
    if v.is_empty() {
        core::ptr::null_mut()
    } else {
        v.as_mut_ptr()
    }
}

unsafe extern "C" fn hipModuleLoadDataEx(
    module: *mut hipModule_t,
    image: *const c_void,
    n: c_uint,
    options: *mut hipJitOption,
    values: *mut *mut c_void,
) -> hipError_t {
    let f = driver_fn!(
        "cuModuleLoadDataEx",
        unsafe extern "C" fn(
            *mut hipModule_t,
            *const c_void,
            c_uint,
            *mut u32,
            *mut *mut c_void,
        ) -> i32
    );
    // SAFETY: the caller gives `n` options.
    let mut opts = match unsafe { jit_options(n, options) } {
        Ok(o) => o,
        Err(e) => return record(e),
    };
    // SAFETY: translated options, the caller's values and image.
    drv_status(unsafe { f(module, image, n, options_ptr(&mut opts), values) })
}

unsafe extern "C" fn hipLinkCreate(
    n: c_uint,
    options: *mut hipJitOption,
    values: *mut *mut c_void,
    state: *mut hipLinkState_t,
) -> hipError_t {
    let f = driver_fn!(
        "cuLinkCreate_v2",
        unsafe extern "C" fn(c_uint, *mut u32, *mut *mut c_void, *mut hipLinkState_t) -> i32
    );
    // SAFETY: the caller gives `n` options.
    let mut opts = match unsafe { jit_options(n, options) } {
        Ok(o) => o,
        Err(e) => return record(e),
    };
    // SAFETY: as `hipModuleLoadDataEx`; CUDA reads the options during the
    // call and writes log sizes through `values`, which is the caller's.
    drv_status(unsafe { f(n, options_ptr(&mut opts), values, state) })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn hipLinkAddData(
    state: hipLinkState_t,
    kind: hipJitInputType,
    data: *mut c_void,
    size: usize,
    name: *const c_char,
    n: c_uint,
    options: *mut hipJitOption,
    values: *mut *mut c_void,
) -> hipError_t {
    let f = driver_fn!(
        "cuLinkAddData_v2",
        unsafe extern "C" fn(
            hipLinkState_t,
            hipJitInputType,
            *mut c_void,
            usize,
            *const c_char,
            c_uint,
            *mut u32,
            *mut *mut c_void,
        ) -> i32
    );
    // SAFETY: the caller gives `n` options.
    let mut opts = match unsafe { jit_options(n, options) } {
        Ok(o) => o,
        Err(e) => return record(e),
    };
    // SAFETY: input kinds 0..=5 are CUDA's; the rest is the caller's.
    drv_status(unsafe {
        f(
            state,
            kind,
            data,
            size,
            name,
            n,
            options_ptr(&mut opts),
            values,
        )
    })
}

unsafe extern "C" fn hipLinkAddFile(
    state: hipLinkState_t,
    kind: hipJitInputType,
    path: *const c_char,
    n: c_uint,
    options: *mut hipJitOption,
    values: *mut *mut c_void,
) -> hipError_t {
    let f = driver_fn!(
        "cuLinkAddFile_v2",
        unsafe extern "C" fn(
            hipLinkState_t,
            hipJitInputType,
            *const c_char,
            c_uint,
            *mut u32,
            *mut *mut c_void,
        ) -> i32
    );
    // SAFETY: the caller gives `n` options.
    let mut opts = match unsafe { jit_options(n, options) } {
        Ok(o) => o,
        Err(e) => return record(e),
    };
    // SAFETY: as `hipLinkAddData`.
    drv_status(unsafe { f(state, kind, path, n, options_ptr(&mut opts), values) })
}
