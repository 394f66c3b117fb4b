//! hiprtc over nvrtc.
//!
//! - `hiprtcProgram` is the `nvrtcProgram` itself.
//! - Every program gets a `hip/hip_runtime.h` (and `hip/hip_runtime_api.h`,
//!   `hip/hip_fp16.h`) header unless it brings its own: HIP's spellings of
//!   the built-ins over CUDA's.
//! - Options: AMD-only ones (`--offload-arch=`, `-fgpu-rdc`, `-O<n>`...) are
//!   dropped or rewritten, and without an architecture the current device's
//!   `sm_XY` is used.
//! - `hiprtcGetCode` returns a CUBIN when nvrtc made one (a real `sm_`
//!   architecture), else PTX; `hipModuleLoadData` accepts both.
//! - The linker (`hiprtcLink*`) is the driver's JIT linker.

use super::jit::jit_options;
use super::{cu_attribute, cuda_fn, current_device, ensure_context, rtc_status};
use crate::generated::functions::HipFunctions;
use crate::*;
use core::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::ffi::CString;

pub(super) fn register(t: &mut HipFunctions, all: bool) {
    // Without nvrtc nothing here can work: the table says so.
    if !all && cuda_fn!(Nvrtc, "nvrtcCreateProgram", *const c_void).is_none() {
        return;
    }
    t.hiprtcCreateProgram = Some(hiprtcCreateProgram);
    t.hiprtcCompileProgram = Some(hiprtcCompileProgram);
    t.hiprtcDestroyProgram = Some(hiprtcDestroyProgram);
    t.hiprtcGetCode = Some(hiprtcGetCode);
    t.hiprtcGetCodeSize = Some(hiprtcGetCodeSize);
    t.hiprtcGetProgramLog = Some(hiprtcGetProgramLog);
    t.hiprtcGetProgramLogSize = Some(hiprtcGetProgramLogSize);
    t.hiprtcAddNameExpression = Some(hiprtcAddNameExpression);
    t.hiprtcGetLoweredName = Some(hiprtcGetLoweredName);
    t.hiprtcGetErrorString = Some(hiprtcGetErrorString);
    t.hiprtcVersion = Some(hiprtcVersion);
    t.hiprtcGetBitcode = Some(hiprtcGetBitcode);
    t.hiprtcGetBitcodeSize = Some(hiprtcGetBitcodeSize);
    t.hiprtcLinkCreate = Some(hiprtcLinkCreate);
    t.hiprtcLinkAddFile = Some(hiprtcLinkAddFile);
    t.hiprtcLinkAddData = Some(hiprtcLinkAddData);
    t.hiprtcLinkComplete = Some(hiprtcLinkComplete);
    t.hiprtcLinkDestroy = Some(hiprtcLinkDestroy);
}

/// The `hip/hip_runtime.h` given to nvrtc: HIP's names for CUDA's
/// built-ins.
pub(crate) const HIP_RUNTIME_H: &CStr = c"#pragma once
#define __HIP_PLATFORM_NVIDIA__ 1
#define __HIP_PLATFORM_NVCC__ 1
#define __HIPCC_RTC__ 1
#define __HIP_DEVICE_COMPILE__ 1
#define __HIP_ARCH_HAS_WARP_SHUFFLE__ 1
#define hipThreadIdx_x threadIdx.x
#define hipThreadIdx_y threadIdx.y
#define hipThreadIdx_z threadIdx.z
#define hipBlockIdx_x blockIdx.x
#define hipBlockIdx_y blockIdx.y
#define hipBlockIdx_z blockIdx.z
#define hipBlockDim_x blockDim.x
#define hipBlockDim_y blockDim.y
#define hipBlockDim_z blockDim.z
#define hipGridDim_x gridDim.x
#define hipGridDim_y gridDim.y
#define hipGridDim_z gridDim.z
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(X) X
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
template <typename T> __device__ inline T __shfl(T v, int lane, int width = 32) { return __shfl_sync(0xffffffffu, v, lane, width); }
template <typename T> __device__ inline T __shfl_up(T v, unsigned int d, int width = 32) { return __shfl_up_sync(0xffffffffu, v, d, width); }
template <typename T> __device__ inline T __shfl_down(T v, unsigned int d, int width = 32) { return __shfl_down_sync(0xffffffffu, v, d, width); }
template <typename T> __device__ inline T __shfl_xor(T v, int m, int width = 32) { return __shfl_xor_sync(0xffffffffu, v, m, width); }
#endif
";
const HIP_RUNTIME_API_H: &CStr = c"#pragma once
#include <hip/hip_runtime.h>
";
const HIP_FP16_H: &CStr = c"#pragma once
#include <cuda_fp16.h>
";

/// The headers every program gets unless it names its own.
const BUILTIN_HEADERS: [(&CStr, &CStr); 3] = [
    (c"hip/hip_runtime.h", HIP_RUNTIME_H),
    (c"hip/hip_runtime_api.h", HIP_RUNTIME_API_H),
    (c"hip/hip_fp16.h", HIP_FP16_H),
];

/// hiprtc's options as nvrtc's: AMD-only options dropped, a few renamed,
/// and `--gpu-architecture=sm_XY` added from `arch` when none is given.
pub(crate) fn rewrite_options(options: &[&str], arch: Option<(c_int, c_int)>) -> Vec<String> {
    let mut out = Vec::with_capacity(options.len() + 1);
    let mut has_arch = false;
    for &o in options {
        let o = o.trim();
        if o.is_empty()
            || o.starts_with("--offload-arch")
            || o.starts_with("-offload-arch")
            || o.starts_with("--amdgpu-target")
            || o.starts_with("-mcumode")
            || o.starts_with("-mno-cumode")
            || o.starts_with("-mwavefrontsize64")
            || o == "-fgpu-rdc"
            || o == "-fno-gpu-rdc"
            || o == "--save-temps"
            || o == "-save-temps"
            || (o.starts_with("-O") && o.len() <= 3)
        {
            continue;
        }
        let o = match o {
            "-ffast-math" => "--use_fast_math".to_owned(),
            "-g" | "-ggdb" => "--device-debug".to_owned(),
            _ => o.to_owned(),
        };
        if o.starts_with("--gpu-architecture") || o.starts_with("-arch") {
            has_arch = true;
        }
        out.push(o);
    }
    if !has_arch {
        if let Some((major, minor)) = arch {
            out.push(format!("--gpu-architecture=sm_{major}{minor}"));
        }
    }
    out
}

/// The current device's compute capability.
fn current_arch() -> Option<(c_int, c_int)> {
    let d = current_device().ok()?;
    Some((cu_attribute(75, d).ok()?, cu_attribute(76, d).ok()?))
}

type Prog = hiprtcProgram;

unsafe extern "C" fn hiprtcCreateProgram(
    prog: *mut hiprtcProgram,
    src: *const c_char,
    name: *const c_char,
    num_headers: c_int,
    headers: *mut *const c_char,
    include_names: *mut *const c_char,
) -> hiprtcResult {
    let Some(create) = cuda_fn!(
        Nvrtc,
        "nvrtcCreateProgram",
        unsafe extern "C" fn(
            *mut Prog,
            *const c_char,
            *const c_char,
            c_int,
            *const *const c_char,
            *const *const c_char,
        ) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    if num_headers < 0 || (num_headers > 0 && (headers.is_null() || include_names.is_null())) {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    let n = num_headers as usize;
    let mut contents: Vec<*const c_char> = Vec::with_capacity(n + BUILTIN_HEADERS.len());
    let mut names: Vec<*const c_char> = Vec::with_capacity(n + BUILTIN_HEADERS.len());
    for i in 0..n {
        // SAFETY: the caller gives `n` entries in each array.
        unsafe {
            contents.push(*headers.add(i));
            names.push(*include_names.add(i));
        }
    }
    for (name, text) in BUILTIN_HEADERS {
        // SAFETY: the names given are NUL-terminated C strings (or null).
        let given = names
            .iter()
            .any(|&p| !p.is_null() && unsafe { CStr::from_ptr(p) } == name);
        if !given {
            names.push(name.as_ptr());
            contents.push(text.as_ptr());
        }
    }
    // SAFETY: the arrays hold `contents.len()` valid C strings each (ours
    // are static); nvrtc copies them.
    rtc_status(unsafe {
        create(
            prog,
            src,
            name,
            contents.len() as c_int,
            contents.as_ptr(),
            names.as_ptr(),
        )
    })
}

unsafe extern "C" fn hiprtcCompileProgram(
    prog: hiprtcProgram,
    num_options: c_int,
    options: *mut *const c_char,
) -> hiprtcResult {
    let Some(compile) = cuda_fn!(
        Nvrtc,
        "nvrtcCompileProgram",
        unsafe extern "C" fn(Prog, c_int, *const *const c_char) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    if num_options < 0 || (num_options > 0 && options.is_null()) {
        return hiprtcResult::HIPRTC_ERROR_INVALID_INPUT;
    }
    let mut given = Vec::with_capacity(num_options as usize);
    for i in 0..num_options as usize {
        // SAFETY: the caller gives `num_options` C strings.
        let p = unsafe { *options.add(i) };
        if p.is_null() {
            return hiprtcResult::HIPRTC_ERROR_INVALID_OPTION;
        }
        // SAFETY: `p` is a NUL-terminated option string.
        match unsafe { CStr::from_ptr(p) }.to_str() {
            Ok(s) => given.push(s),
            Err(_) => return hiprtcResult::HIPRTC_ERROR_INVALID_OPTION,
        }
    }
    let rewritten = rewrite_options(&given, current_arch());
    let Ok(owned) = rewritten
        .into_iter()
        .map(CString::new)
        .collect::<Result<Vec<_>, _>>()
    else {
        return hiprtcResult::HIPRTC_ERROR_INVALID_OPTION;
    };
    let ptrs: Vec<*const c_char> = owned.iter().map(|s| s.as_ptr()).collect();
    // SAFETY: `ptrs` holds `ptrs.len()` C strings owned by `owned`.
    rtc_status(unsafe { compile(prog, ptrs.len() as c_int, ptrs.as_ptr()) })
}

unsafe extern "C" fn hiprtcDestroyProgram(prog: *mut hiprtcProgram) -> hiprtcResult {
    let Some(f) = cuda_fn!(
        Nvrtc,
        "nvrtcDestroyProgram",
        unsafe extern "C" fn(*mut Prog) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's program handle is passed on.
    rtc_status(unsafe { f(prog) })
}

type SizeFn = unsafe extern "C" fn(Prog, *mut usize) -> i32;
type DataFn = unsafe extern "C" fn(Prog, *mut c_char) -> i32;

/// Whether nvrtc made a CUBIN for this program (a real architecture).
fn has_cubin(prog: Prog) -> bool {
    let Some(size) = cuda_fn!(Nvrtc, "nvrtcGetCUBINSize", SizeFn) else {
        return false;
    };
    let mut n = 0;
    // SAFETY: `n` is a size_t to write to.
    (unsafe { size(prog, &mut n) }) == 0 && n > 0
}

unsafe extern "C" fn hiprtcGetCodeSize(prog: hiprtcProgram, size: *mut usize) -> hiprtcResult {
    let f = if has_cubin(prog) {
        cuda_fn!(Nvrtc, "nvrtcGetCUBINSize", SizeFn)
    } else {
        cuda_fn!(Nvrtc, "nvrtcGetPTXSize", SizeFn)
    };
    let Some(f) = f else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's output is passed on.
    rtc_status(unsafe { f(prog, size) })
}

unsafe extern "C" fn hiprtcGetCode(prog: hiprtcProgram, code: *mut c_char) -> hiprtcResult {
    let f = if has_cubin(prog) {
        cuda_fn!(Nvrtc, "nvrtcGetCUBIN", DataFn)
    } else {
        cuda_fn!(Nvrtc, "nvrtcGetPTX", DataFn)
    };
    let Some(f) = f else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's buffer is sized by `hiprtcGetCodeSize`.
    rtc_status(unsafe { f(prog, code) })
}

unsafe extern "C" fn hiprtcGetBitcodeSize(prog: hiprtcProgram, size: *mut usize) -> hiprtcResult {
    let Some(f) = cuda_fn!(Nvrtc, "nvrtcGetLTOIRSize", SizeFn) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's output is passed on.
    rtc_status(unsafe { f(prog, size) })
}

unsafe extern "C" fn hiprtcGetBitcode(prog: hiprtcProgram, code: *mut c_char) -> hiprtcResult {
    let Some(f) = cuda_fn!(Nvrtc, "nvrtcGetLTOIR", DataFn) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's buffer is sized by `hiprtcGetBitcodeSize`.
    rtc_status(unsafe { f(prog, code) })
}

unsafe extern "C" fn hiprtcGetProgramLogSize(
    prog: hiprtcProgram,
    size: *mut usize,
) -> hiprtcResult {
    let Some(f) = cuda_fn!(Nvrtc, "nvrtcGetProgramLogSize", SizeFn) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's output is passed on.
    rtc_status(unsafe { f(prog, size) })
}

unsafe extern "C" fn hiprtcGetProgramLog(prog: hiprtcProgram, log: *mut c_char) -> hiprtcResult {
    let Some(f) = cuda_fn!(Nvrtc, "nvrtcGetProgramLog", DataFn) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's buffer is sized by `hiprtcGetProgramLogSize`.
    rtc_status(unsafe { f(prog, log) })
}

unsafe extern "C" fn hiprtcAddNameExpression(
    prog: hiprtcProgram,
    name: *const c_char,
) -> hiprtcResult {
    let Some(f) = cuda_fn!(
        Nvrtc,
        "nvrtcAddNameExpression",
        unsafe extern "C" fn(Prog, *const c_char) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's string is passed on.
    rtc_status(unsafe { f(prog, name) })
}

unsafe extern "C" fn hiprtcGetLoweredName(
    prog: hiprtcProgram,
    name: *const c_char,
    lowered: *mut *const c_char,
) -> hiprtcResult {
    let Some(f) = cuda_fn!(
        Nvrtc,
        "nvrtcGetLoweredName",
        unsafe extern "C" fn(Prog, *const c_char, *mut *const c_char) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's pointers are passed on.
    rtc_status(unsafe { f(prog, name, lowered) })
}

unsafe extern "C" fn hiprtcVersion(major: *mut c_int, minor: *mut c_int) -> hiprtcResult {
    let Some(f) = cuda_fn!(
        Nvrtc,
        "nvrtcVersion",
        unsafe extern "C" fn(*mut c_int, *mut c_int) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's outputs are passed on.
    rtc_status(unsafe { f(major, minor) })
}

/// `hiprtcGetErrorString`'s text: the status's name.
pub(crate) fn rtc_error_text(r: hiprtcResult) -> &'static CStr {
    match r {
        hiprtcResult::HIPRTC_SUCCESS => c"HIPRTC_SUCCESS",
        hiprtcResult::HIPRTC_ERROR_OUT_OF_MEMORY => c"HIPRTC_ERROR_OUT_OF_MEMORY",
        hiprtcResult::HIPRTC_ERROR_PROGRAM_CREATION_FAILURE => {
            c"HIPRTC_ERROR_PROGRAM_CREATION_FAILURE"
        }
        hiprtcResult::HIPRTC_ERROR_INVALID_INPUT => c"HIPRTC_ERROR_INVALID_INPUT",
        hiprtcResult::HIPRTC_ERROR_INVALID_PROGRAM => c"HIPRTC_ERROR_INVALID_PROGRAM",
        hiprtcResult::HIPRTC_ERROR_INVALID_OPTION => c"HIPRTC_ERROR_INVALID_OPTION",
        hiprtcResult::HIPRTC_ERROR_COMPILATION => c"HIPRTC_ERROR_COMPILATION",
        hiprtcResult::HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE => {
            c"HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE"
        }
        hiprtcResult::HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION => {
            c"HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION"
        }
        hiprtcResult::HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION => {
            c"HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION"
        }
        hiprtcResult::HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID => {
            c"HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID"
        }
        hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR => c"HIPRTC_ERROR_INTERNAL_ERROR",
        hiprtcResult::HIPRTC_ERROR_LINKING => c"HIPRTC_ERROR_LINKING",
        _ => c"Invalid HIPRTC error code",
    }
}

unsafe extern "C" fn hiprtcGetErrorString(r: hiprtcResult) -> *const c_char {
    rtc_error_text(r).as_ptr()
}

/// A driver linker status as hiprtc's.
fn link_status(s: i32) -> hiprtcResult {
    match s {
        0 => hiprtcResult::HIPRTC_SUCCESS,
        2 => hiprtcResult::HIPRTC_ERROR_OUT_OF_MEMORY,
        1 => hiprtcResult::HIPRTC_ERROR_INVALID_INPUT,
        _ => hiprtcResult::HIPRTC_ERROR_LINKING,
    }
}

unsafe extern "C" fn hiprtcLinkCreate(
    num_options: c_uint,
    options: *mut hipJitOption,
    values: *mut *mut c_void,
    state: *mut hiprtcLinkState,
) -> hiprtcResult {
    let Some(f) = cuda_fn!(
        Driver,
        "cuLinkCreate_v2",
        unsafe extern "C" fn(c_uint, *mut u32, *mut *mut c_void, *mut hiprtcLinkState) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller gives `num_options` options.
    let Ok(mut opts) = (unsafe { jit_options(num_options, options) }) else {
        return hiprtcResult::HIPRTC_ERROR_INVALID_OPTION;
    };
    if ensure_context().is_err() {
        return hiprtcResult::HIPRTC_ERROR_LINKING;
    }
    // SAFETY: translated options; the rest is the caller's.
    link_status(unsafe { f(num_options, opts_ptr(&mut opts), values, state) })
}

unsafe extern "C" fn hiprtcLinkAddFile(
    state: hiprtcLinkState,
    kind: hipJitInputType,
    path: *const c_char,
    num_options: c_uint,
    options: *mut hipJitOption,
    values: *mut *mut c_void,
) -> hiprtcResult {
    let Some(f) = cuda_fn!(
        Driver,
        "cuLinkAddFile_v2",
        unsafe extern "C" fn(
            hiprtcLinkState,
            hipJitInputType,
            *const c_char,
            c_uint,
            *mut u32,
            *mut *mut c_void,
        ) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller gives `num_options` options.
    let Ok(mut opts) = (unsafe { jit_options(num_options, options) }) else {
        return hiprtcResult::HIPRTC_ERROR_INVALID_OPTION;
    };
    // SAFETY: input kinds (cubin, ptx, fatbinary, object, library) have
    // CUDA's values; the rest is the caller's.
    link_status(unsafe { f(state, kind, path, num_options, opts_ptr(&mut opts), values) })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn hiprtcLinkAddData(
    state: hiprtcLinkState,
    kind: hipJitInputType,
    image: *mut c_void,
    size: usize,
    name: *const c_char,
    num_options: c_uint,
    options: *mut hipJitOption,
    values: *mut *mut c_void,
) -> hiprtcResult {
    let Some(f) = cuda_fn!(
        Driver,
        "cuLinkAddData_v2",
        unsafe extern "C" fn(
            hiprtcLinkState,
            hipJitInputType,
            *mut c_void,
            usize,
            *const c_char,
            c_uint,
            *mut u32,
            *mut *mut c_void,
        ) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller gives `num_options` options.
    let Ok(mut opts) = (unsafe { jit_options(num_options, options) }) else {
        return hiprtcResult::HIPRTC_ERROR_INVALID_OPTION;
    };
    // SAFETY: as `hiprtcLinkAddFile`.
    link_status(unsafe {
        f(
            state,
            kind,
            image,
            size,
            name,
            num_options,
            opts_ptr(&mut opts),
            values,
        )
    })
}

unsafe extern "C" fn hiprtcLinkComplete(
    state: hiprtcLinkState,
    bin: *mut *mut c_void,
    size: *mut usize,
) -> hiprtcResult {
    let Some(f) = cuda_fn!(
        Driver,
        "cuLinkComplete",
        unsafe extern "C" fn(hiprtcLinkState, *mut *mut c_void, *mut usize) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's outputs are passed on.
    link_status(unsafe { f(state, bin, size) })
}

unsafe extern "C" fn hiprtcLinkDestroy(state: hiprtcLinkState) -> hiprtcResult {
    let Some(f) = cuda_fn!(
        Driver,
        "cuLinkDestroy",
        unsafe extern "C" fn(hiprtcLinkState) -> i32
    ) else {
        return hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR;
    };
    // SAFETY: the caller's link state is passed on.
    link_status(unsafe { f(state) })
}

/// The options pointer CUDA gets: null for none.
fn opts_ptr(v: &mut [u32]) -> *mut u32 {
    if v.is_empty() {
        core::ptr::null_mut()
    } else {
        v.as_mut_ptr()
    }
}
