//! cudarc's thin nvrtc layer: one function per nvrtc call, each calling
//! the `hip` crate's [`result`](hip::result) layer (hiprtc) and turning its
//! error into an [`NvrtcError`] that keeps the message
//! ([`last_error_detail`]).
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

use super::sys;
use hip::result as ours_result;
use std::ffi::{c_char, CStr, CString};

/// A failed nvrtc call: the status (cudarc's `NvrtcError`), HIP's value.
/// `Debug` and `Display` print this thread's reason
/// ([`last_error_detail`]) when the status matches.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NvrtcError(pub sys::nvrtcResult);

impl std::fmt::Debug for NvrtcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut t = f.debug_tuple("NvrtcError");
        t.field(&self.0);
        if let Some(why) = detail_of(self.0) {
            t.field(&why);
        }
        t.finish()
    }
}

impl std::fmt::Display for NvrtcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for NvrtcError {}

error_detail! {
    /// The reason for the last nvrtc error this thread got, with its
    /// status: the `hip` crate's message (the hiprtc call, its status and
    /// hiprtc's words for it, or the paths tried when no HIP runtime
    /// loads), or why an argument was refused; `None` after an error that
    /// is a raw status.
    ///
    /// ```no_run
    /// use cuda_compat::nvrtc::result::{create_program, last_error_detail};
    /// if let Err(e) = create_program(c"__global__ void k() {}", None) {
    ///     let (status, why) = last_error_detail().unwrap();
    ///     assert_eq!(status, e.0);
    ///     println!("{why}");
    /// }
    /// ```
    NvrtcError(sys::nvrtcResult)
}

/// The `hip` crate's error as an [`NvrtcError`], its message kept as this
/// thread's reason: hiprtc's status when it has one (a failed call, a
/// failed compile); without a HIP runtime `NVRTC_ERROR_INTERNAL_ERROR`
/// (what the raw names return then); an argument refused before any call
/// `NVRTC_ERROR_INVALID_INPUT`; anything else (a runtime error, a missing
/// function) `NVRTC_ERROR_INTERNAL_ERROR`.
///
/// Written by hand, not with `status_error!`: `hip::Error` holds two kinds
/// of status (the runtime's and hiprtc's), so it has no one `status()`.
#[cold]
#[inline(never)]
pub(crate) fn ours(e: hip::Error) -> NvrtcError {
    use sys::nvrtcResult as S;
    let status = match &e {
        hip::Error::Hiprtc { status, .. } | hip::Error::Compile { status, .. } => (*status).into(),
        hip::Error::Invalid { .. } => S::NVRTC_ERROR_INVALID_INPUT,
        _ => S::NVRTC_ERROR_INTERNAL_ERROR,
    };
    fail(status, &e.to_string())
}

impl sys::nvrtcResult {
    /// `Ok` for `NVRTC_SUCCESS`, else the status as an [`NvrtcError`] (the
    /// raw status: no reason of an earlier error is printed with it).
    pub fn result(self) -> Result<(), NvrtcError> {
        if self == sys::nvrtcResult::NVRTC_SUCCESS {
            Ok(())
        } else {
            clear_detail();
            Err(NvrtcError(self))
        }
    }
}

/// A program of CUDA C++ `src`, named `name` in messages
/// (`nvrtcCreateProgram`, no headers; no name is the empty one, for which
/// nvrtc and hiprtc alike choose their default). The program may refer to
/// `src` and `name` until destroyed: keep them alive.
pub fn create_program(src: &CStr, name: Option<&CStr>) -> Result<sys::nvrtcProgram, NvrtcError> {
    // SAFETY: no headers, so both (empty) arrays trivially outlive the
    // program.
    unsafe { ours_result::rtc_create_program(src, name.unwrap_or(c""), &[], &[]) }.map_err(ours)
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
        .enumerate()
        .map(|(i, o)| {
            CString::new(o.clone()).map_err(|e| {
                let at = e.nul_position();
                fail(
                    sys::nvrtcResult::NVRTC_ERROR_INVALID_OPTION,
                    &format!(
                        "nvrtcCompileProgram: option {i} holds a NUL byte at byte {at}: {:?}",
                        String::from_utf8_lossy(&e.into_vec())
                    ),
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let ptrs: Vec<*const c_char> = owned.iter().map(|o| o.as_ptr()).collect();
    if i32::try_from(ptrs.len()).is_err() {
        return Err(fail(
            sys::nvrtcResult::NVRTC_ERROR_INVALID_INPUT,
            &format!(
                "nvrtcCompileProgram: {} options, more than an int counts",
                ptrs.len()
            ),
        ));
    }
    // One compile at a time with `hip`'s (ROCm 5.x's hiprtc crashes on
    // concurrent compiles).
    let _hiprtc = hip::rtc_lock();
    // SAFETY: `prog` is live (the caller's promise); `ptrs` holds
    // NUL-terminated strings that outlive the call.
    let status = unsafe { ours_result::rtc_compile_program(prog, &ptrs) };
    ours_result::check_rtc("hiprtcCompileProgram", status).map_err(ours)
}

/// Destroys `prog` (`nvrtcDestroyProgram`).
///
/// # Safety
///
/// `prog` is a live program, not used afterwards.
pub unsafe fn destroy_program(prog: sys::nvrtcProgram) -> Result<(), NvrtcError> {
    // SAFETY: the caller's promise.
    unsafe { ours_result::rtc_destroy_program(prog) }.map_err(ours)
}

/// The compiled code of `prog` (`nvrtcGetPTXSize`, `nvrtcGetPTX`): PTX on
/// NVIDIA, the code object on AMD; NUL-terminated where the platform's
/// compiler ends it so.
///
/// # Safety
///
/// `prog` is a live program compiled without error.
pub unsafe fn get_ptx(prog: sys::nvrtcProgram) -> Result<Vec<c_char>, NvrtcError> {
    // SAFETY: the caller's promise.
    let code = unsafe { ours_result::rtc_get_code(prog) }.map_err(ours)?;
    Ok(code.into_iter().map(|b| b as c_char).collect())
}

/// The compilation log of `prog` (`nvrtcGetProgramLogSize`,
/// `nvrtcGetProgramLog`), NUL-terminated.
///
/// # Safety
///
/// `prog` is a live program.
pub unsafe fn get_program_log(prog: sys::nvrtcProgram) -> Result<Vec<c_char>, NvrtcError> {
    // SAFETY: the caller's promise.
    let log = unsafe { ours_result::rtc_get_program_log_bytes(prog) }.map_err(ours)?;
    Ok(log.into_iter().map(|b| b as c_char).collect())
}
