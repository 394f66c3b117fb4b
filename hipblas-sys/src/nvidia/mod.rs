//! The NVIDIA platform backend: hipBLAS's functions implemented over cuBLAS.
//!
//! cuBLAS (`libcublas.so.13`, else `.12`) is opened at run time by hip-sys's
//! loader core; the table gets the adapters of
//! `src/generated/nvidia/adapters.rs` (one line per implemented binding,
//! written by `cargo run -p hip-generator -- nvidia-tables`, expanded by
//! hip-sys's adapter kit, `hip_sys::cuda_adapters!`, into a function with
//! the binding's exact signature, the conversions and kinds being
//! [`convert`]'s; see
//! `NVIDIA_COVERAGE.md`) and leaves every other function `None`, so it
//! returns `HIPBLAS_STATUS_NOT_SUPPORTED`.
//! Every cuBLAS symbol is a [`Symbol`] of the [`CUBLAS`] slot, looked up
//! once.
//!
//! Behaviour matches hipBLAS's own NVIDIA backend: the handle is a cuBLAS
//! handle, its math mode is cuBLAS's default unless set, and cuBLAS manages
//! its own workspace as it does for any cuBLAS caller.

#[path = "../generated/nvidia/adapters.rs"]
mod adapters;
mod convert;
#[cfg(test)]
mod coverage;
#[cfg(test)]
mod kit_tests;

use crate::generated::functions::HipblasFunctions;
use crate::{hipblasHandle_t, hipblasMath_t, hipblasStatus_t};
use hip_sys::loader::common::{LibrarySlot, Loaded, LoadedLibrary, Platform, Symbol, Version};
use std::ffi::c_void;
use std::path::Path;
use std::sync::Arc;

pub(crate) use adapters::ADAPTERS;

/// The cuBLAS library every adapter's [`Symbol`] is resolved in.
pub(crate) static CUBLAS: LibrarySlot = LibrarySlot::new("cuBLAS");

/// `cublasGetProperty`, for the version.
static GET_PROPERTY: Symbol = Symbol::new(&CUBLAS, c"cublasGetProperty");

/// Fills the table with the adapters from the cuBLAS library the loader
/// core opened.
pub(crate) fn load(
    lib: &Arc<libloading::Library>,
    path: &Path,
) -> Result<Loaded<HipblasFunctions>, String> {
    CUBLAS.fill(lib);
    let version = cublas_version().or_else(|| Version::from_file_name(path));
    let mut table = HipblasFunctions::EMPTY;
    adapters::install(&mut table);
    if convert::GET_MATH_MODE.address().is_some() {
        // The reverse mapping needs its own adapter (an out-parameter enum).
        table.hipblasGetMathMode = Some(get_math_mode);
    }
    table.hipblasStatusToString = Some(status_to_string);
    Ok(Loaded {
        platform: Platform::Nvidia,
        libraries: vec![LoadedLibrary {
            role: "cuBLAS",
            path: path.to_path_buf(),
        }],
        version,
        table,
        handles: vec![Arc::clone(lib)],
    })
}

/// `cublasGetProperty(MAJOR/MINOR/PATCH)`.
fn cublas_version() -> Option<Version> {
    let f = GET_PROPERTY.address()?;
    // SAFETY: `cublasGetProperty(libraryPropertyType, int*)` in every cuBLAS
    // since 8.0.
    let f: unsafe extern "C" fn(i32, *mut i32) -> i32 =
        unsafe { std::mem::transmute::<*mut c_void, _>(f) };
    let mut v = [0i32; 3];
    for (i, slot) in v.iter_mut().enumerate() {
        // SAFETY: `slot` is a valid int to write.
        if unsafe { f(i as i32, slot) } != 0 {
            return None;
        }
    }
    Some(Version {
        major: v[0] as u32,
        minor: v[1] as u32,
        patch: v[2] as u32,
    })
}

/// `hipblasGetMathMode` over `cublasGetMathMode`, mapping the value back.
unsafe extern "C" fn get_math_mode(
    handle: hipblasHandle_t,
    mode: *mut hipblasMath_t,
) -> hipblasStatus_t {
    if mode.is_null() {
        return hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE;
    }
    match convert::cublas_math_mode(handle) {
        Ok(cu) => match convert::math_from_cu(cu) {
            Some(m) => {
                // SAFETY: the caller passes a valid `hipblasMath_t*`.
                unsafe { mode.write(m) };
                hipblasStatus_t::HIPBLAS_STATUS_SUCCESS
            }
            None => hipblasStatus_t::HIPBLAS_STATUS_UNKNOWN,
        },
        Err(e) => e,
    }
}

/// `hipblasStatusToString`: hipBLAS's names, from this crate's table.
unsafe extern "C" fn status_to_string(status: hipblasStatus_t) -> *const std::ffi::c_char {
    match status {
        hipblasStatus_t::HIPBLAS_STATUS_SUCCESS => c"HIPBLAS_STATUS_SUCCESS",
        hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED => c"HIPBLAS_STATUS_NOT_INITIALIZED",
        hipblasStatus_t::HIPBLAS_STATUS_ALLOC_FAILED => c"HIPBLAS_STATUS_ALLOC_FAILED",
        hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE => c"HIPBLAS_STATUS_INVALID_VALUE",
        hipblasStatus_t::HIPBLAS_STATUS_MAPPING_ERROR => c"HIPBLAS_STATUS_MAPPING_ERROR",
        hipblasStatus_t::HIPBLAS_STATUS_EXECUTION_FAILED => c"HIPBLAS_STATUS_EXECUTION_FAILED",
        hipblasStatus_t::HIPBLAS_STATUS_INTERNAL_ERROR => c"HIPBLAS_STATUS_INTERNAL_ERROR",
        hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED => c"HIPBLAS_STATUS_NOT_SUPPORTED",
        hipblasStatus_t::HIPBLAS_STATUS_ARCH_MISMATCH => c"HIPBLAS_STATUS_ARCH_MISMATCH",
        hipblasStatus_t::HIPBLAS_STATUS_HANDLE_IS_NULLPTR => c"HIPBLAS_STATUS_HANDLE_IS_NULLPTR",
        hipblasStatus_t::HIPBLAS_STATUS_INVALID_ENUM => c"HIPBLAS_STATUS_INVALID_ENUM",
        _ => c"HIPBLAS_STATUS_UNKNOWN",
    }
    .as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::functions::FUNCTION_NAMES;

    #[test]
    fn every_adapter_is_a_binding_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for &(hip, cu) in ADAPTERS {
            assert!(FUNCTION_NAMES.contains(&hip), "{hip}");
            assert!(cu.starts_with("cublas"), "{cu}");
            assert!(seen.insert(hip), "{hip} twice");
        }
        for required in [
            "hipblasCreate",
            "hipblasSetStream",
            "hipblasSgemm",
            "hipblasDgemm",
            "hipblasHgemm",
            "hipblasCgemm_v2",
            "hipblasZgemm_v2",
            "hipblasGemmEx",
            "hipblasGemmEx_v2",
            "hipblasGemmEx_v2_64",
            "hipblasGemmStridedBatchedEx_v2",
            "hipblasSgemmStridedBatched",
            "hipblasSgemmBatched",
            "hipblasSgemv",
            "hipblasSaxpy",
            "hipblasSdot",
            "hipblasSnrm2",
            "hipblasSscal",
            "hipblasSasum",
            "hipblasIsamax",
            "hipblasScopy",
            "hipblasSswap",
            "hipblasStrsm",
        ] {
            assert!(ADAPTERS.iter().any(|(h, _)| *h == required), "{required}");
        }
    }

    #[test]
    fn status_strings() {
        // SAFETY: returns a static C string.
        let s = unsafe { std::ffi::CStr::from_ptr(status_to_string(hipblasStatus_t(7))) };
        assert_eq!(s.to_str().unwrap(), "HIPBLAS_STATUS_NOT_SUPPORTED");
    }
}
