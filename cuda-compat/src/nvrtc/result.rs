//! cudarc's thin nvrtc layer: one function per nvrtc call, over the raw
//! names ([`super::sys`], which call hiprtc), each status turned into a
//! `Result` with [`NvrtcError`].
//!
//! Compiles run one at a time process-wide, with `hip`'s
//! ([`hip::rtc_lock`]). The options of [`compile_program`] reach the
//! platform's compiler as given: nvrtc's on NVIDIA, hiprtc's on AMD (`--offload-arch=gfx90a`,
//! not `--gpu-architecture=sm_90`). [`super::compile_ptx_with_opts`]
//! translates cudarc's options instead. On AMD, [`get_ptx`] returns the
//! compiled code object, not PTX.
//!
//! ```no_run
//! use cuda_compat::nvrtc::result;
//! let prog = result::create_program(c"extern \"C\" __global__ void k() {}", None)?;
//! // SAFETY: `prog` is live until destroyed below.
//! unsafe {
//!     result::compile_program::<&str>(prog, &[])?;
//!     let code = result::get_ptx(prog)?;
//!     assert!(!code.is_empty());
//!     result::destroy_program(prog)?;
//! }
//! # Ok::<(), cuda_compat::nvrtc::NvrtcError>(())
//! ```

pub use super::safe::NvrtcError;
use super::sys;
use std::ffi::{c_char, CStr, CString};

impl sys::nvrtcResult {
    /// `Ok` for `NVRTC_SUCCESS`, else the status as an [`NvrtcError`].
    pub fn result(self) -> Result<(), NvrtcError> {
        if self == sys::nvrtcResult::NVRTC_SUCCESS {
            Ok(())
        } else {
            Err(NvrtcError(self))
        }
    }
}

/// A program of CUDA C++ `src`, named `name` in messages
/// (`nvrtcCreateProgram`, no headers). The program may refer to `src` and
/// `name` until destroyed: keep them alive.
pub fn create_program(src: &CStr, name: Option<&CStr>) -> Result<sys::nvrtcProgram, NvrtcError> {
    let mut prog: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: `prog` is a valid place for the handle; `src` and `name`
    // are NUL-terminated strings; no headers are passed.
    unsafe {
        sys::nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            name.map_or(std::ptr::null(), CStr::as_ptr),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    }
    .result()?;
    Ok(prog)
}

/// Compiles `prog` with `options` (`nvrtcCompileProgram`); an option with
/// an interior NUL is `NVRTC_ERROR_INVALID_OPTION`. On failure the log
/// ([`get_program_log`]) says why.
///
/// # Safety
///
/// `prog` is a live program of [`create_program`].
pub unsafe fn compile_program<O: Clone + Into<Vec<u8>>>(
    prog: sys::nvrtcProgram,
    options: &[O],
) -> Result<(), NvrtcError> {
    let owned = options
        .iter()
        .map(|o| CString::new(o.clone()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| NvrtcError(sys::nvrtcResult::NVRTC_ERROR_INVALID_OPTION))?;
    let ptrs: Vec<*const c_char> = owned.iter().map(|o| o.as_ptr()).collect();
    let count = i32::try_from(ptrs.len())
        .map_err(|_| NvrtcError(sys::nvrtcResult::NVRTC_ERROR_INVALID_INPUT))?;
    // One compile at a time with `hip`'s (ROCm 5.x's hiprtc crashes on
    // concurrent compiles).
    let _hiprtc = hip::rtc_lock();
    // SAFETY: `prog` is live (the caller's promise); `ptrs` holds `count`
    // NUL-terminated strings that outlive the call.
    unsafe { sys::nvrtcCompileProgram(prog, count, ptrs.as_ptr()) }.result()
}

/// Destroys `prog` (`nvrtcDestroyProgram`).
///
/// # Safety
///
/// `prog` is a live program, not used afterwards.
pub unsafe fn destroy_program(mut prog: sys::nvrtcProgram) -> Result<(), NvrtcError> {
    // SAFETY: the caller's promise.
    unsafe { sys::nvrtcDestroyProgram(&mut prog) }.result()
}

/// The compiled code of `prog` (`nvrtcGetPTXSize`, `nvrtcGetPTX`): PTX on
/// NVIDIA, the code object on AMD; NUL-terminated where the platform's
/// compiler ends it so.
///
/// # Safety
///
/// `prog` is a live program compiled without error.
pub unsafe fn get_ptx(prog: sys::nvrtcProgram) -> Result<Vec<c_char>, NvrtcError> {
    // SAFETY: the caller's promise; each call gets a buffer of the size
    // the first reported.
    unsafe { read_sized(prog, sys::nvrtcGetPTXSize, sys::nvrtcGetPTX) }
}

/// The compilation log of `prog` (`nvrtcGetProgramLogSize`,
/// `nvrtcGetProgramLog`), NUL-terminated.
///
/// # Safety
///
/// `prog` is a live program.
pub unsafe fn get_program_log(prog: sys::nvrtcProgram) -> Result<Vec<c_char>, NvrtcError> {
    // SAFETY: as in `get_ptx`.
    unsafe { read_sized(prog, sys::nvrtcGetProgramLogSize, sys::nvrtcGetProgramLog) }
}

/// A size query, then the read into a buffer of that size.
///
/// # Safety
///
/// `prog` is live; `size` and `read` are a matching nvrtc pair.
unsafe fn read_sized(
    prog: sys::nvrtcProgram,
    size: unsafe fn(sys::nvrtcProgram, *mut usize) -> sys::nvrtcResult,
    read: unsafe fn(sys::nvrtcProgram, *mut c_char) -> sys::nvrtcResult,
) -> Result<Vec<c_char>, NvrtcError> {
    let mut n = 0usize;
    // SAFETY: `n` is a valid place for the size; `prog` per the contract.
    unsafe { size(prog, &mut n) }.result()?;
    let mut buf: Vec<c_char> = vec![0; n];
    // SAFETY: `buf` holds the `n` bytes the size query reported.
    unsafe { read(prog, buf.as_mut_ptr()) }.result()?;
    Ok(buf)
}
