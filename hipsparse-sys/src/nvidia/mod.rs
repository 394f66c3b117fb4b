//! The NVIDIA platform backend: hipSPARSE's functions over cuSPARSE
//! (`libcusparse.so.12`).
//!
//! The table gets the adapters of `src/generated/nvidia/adapters.rs` (one
//! line per binding whose cuSPARSE function of the same name takes the same
//! arguments in the same order, written and checked against `cusparse.h` by
//! `cargo run -p hip-generator -- nvidia-tables`, expanded by hip-sys's
//! adapter kit, `hip_sys::cuda_adapters!`) and the functions written here (the status names and
//! texts, the four matrix-descriptor getters, which return an enum, and
//! `SpSM_solve`, whose buffer argument cuSPARSE 12 does not take); every
//! other function stays `None`, so it returns `HIPSPARSE_STATUS_NOT_SUPPORTED`
//! (the legacy API CUDA 12 removed: csrmv, hyb, csrsv2, ...). hipSPARSE
//! numbers its enums and statuses as cuSPARSE does
//! (`src/generated/nvidia/cusparse_enumerators.rs`), so values pass
//! unchanged. Every cuSPARSE symbol is a
//! [`Symbol`](hip_sys::loader::common::Symbol) of the [`CUSPARSE`] slot,
//! looked up once.
//!
//! A sibling of the AMD backend ([`crate::amd`]): both return the loader
//! core's [`Loaded`] table; neither imports the loader.

#[path = "../generated/nvidia/adapters.rs"]
mod adapters;
mod convert;
#[cfg(test)]
mod coverage;
#[cfg(test)]
#[path = "../generated/nvidia/cusparse_enumerators.rs"]
mod cusparse_enumerators;

use crate::generated::functions::HipsparseFunctions;
use crate::hipsparseStatus_t;
use hip_sys::loader::common::{LibrarySlot, Loaded, Platform, Symbol};
use std::ffi::c_char;
use std::path::Path;
use std::sync::Arc;

pub(crate) use adapters::ADAPTERS;

/// The cuSPARSE library every adapter's symbol is resolved in.
pub(crate) static CUSPARSE: LibrarySlot = LibrarySlot::new("cuSPARSE");

/// The bindings written by hand here, beside the generated adapters.
#[cfg(test)]
pub(crate) const HAND_WRITTEN: [&str; 8] = [
    "hipsparseSpMatSetAttribute",
    "hipsparseGetErrorName",
    "hipsparseGetErrorString",
    "hipsparseSpSM_solve",
    "hipsparseGetMatDiagType",
    "hipsparseGetMatFillMode",
    "hipsparseGetMatIndexBase",
    "hipsparseGetMatType",
];

/// `cusparseSpMatSetAttribute`, whose data pointer cuSPARSE declares
/// mutable (it only reads it).
static SET_ATTRIBUTE: Symbol = Symbol::new(&CUSPARSE, c"cusparseSpMatSetAttribute");

/// `hipsparseSpMatSetAttribute` over `cusparseSpMatSetAttribute` (the fill
/// mode and diagonal type the triangular solves read).
unsafe extern "C" fn set_attribute(
    descr: crate::hipsparseSpMatDescr_t,
    attribute: crate::hipsparseSpMatAttribute_t,
    data: *const std::ffi::c_void,
    size: usize,
) -> hipsparseStatus_t {
    let Some(f) = SET_ATTRIBUTE.address() else {
        return hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED;
    };
    type Set = unsafe extern "C" fn(
        crate::hipsparseSpMatDescr_t,
        i32,
        *mut std::ffi::c_void,
        usize,
    ) -> i32;
    // SAFETY: `f` is cusparseSpMatSetAttribute, `(cusparseSpMatDescr_t,
    // cusparseSpMatAttribute_t, void*, size_t)` in cusparse.h.
    let f = unsafe { std::mem::transmute::<*mut std::ffi::c_void, Set>(f) };
    // SAFETY: the caller's contract; cuSPARSE reads `size` bytes of `data`
    // and never writes them, so passing the const pointer as mutable is
    // sound.
    convert::from_cusparse(unsafe { f(descr, attribute.0 as i32, data.cast_mut(), size) })
}

/// `cusparseSpSM_solve`, which takes no external buffer in cuSPARSE 12.
static SPSM_SOLVE: Symbol = Symbol::new(&CUSPARSE, c"cusparseSpSM_solve");

/// The matrix-descriptor getters, which return the enum itself.
macro_rules! getters {
    ($($hip:ident => $sym:ident, $cu:literal, $t:ident;)*) => {$(
        static $sym: Symbol = Symbol::new(&CUSPARSE, $cu);

        #[doc = concat!("`", stringify!($hip), "` over its cuSPARSE namesake (the value is the same).")]
        #[allow(non_snake_case)]
        unsafe extern "C" fn $hip(descr: crate::hipsparseMatDescr_t) -> crate::$t {
            let Some(f) = $sym.address() else {
                // Not installed without the symbol (see `load`).
                return crate::$t(0);
            };
            // SAFETY: `f` is the cuSPARSE getter, `enum (const cusparseMatDescr_t)`
            // in cusparse.h; the enum is int-sized.
            let f = unsafe {
                std::mem::transmute::<*mut std::ffi::c_void, unsafe extern "C" fn(crate::hipsparseMatDescr_t) -> i32>(f)
            };
            // SAFETY: the caller passes a descriptor, the binding's contract.
            crate::$t(unsafe { f(descr) } as _)
        }
    )*

        fn install_getters(table: &mut HipsparseFunctions) {
            $(
                if $sym.address().is_some() {
                    table.$hip = Some($hip);
                }
            )*
        }
    };
}

getters! {
    hipsparseGetMatDiagType => GET_DIAG, c"cusparseGetMatDiagType", hipsparseDiagType_t;
    hipsparseGetMatFillMode => GET_FILL, c"cusparseGetMatFillMode", hipsparseFillMode_t;
    hipsparseGetMatIndexBase => GET_BASE, c"cusparseGetMatIndexBase", hipsparseIndexBase_t;
    hipsparseGetMatType => GET_TYPE, c"cusparseGetMatType", hipsparseMatrixType_t;
}

/// `hipsparseSpSM_solve` over `cusparseSpSM_solve`, without hipSPARSE's
/// external buffer (cuSPARSE keeps the one given to `SpSM_analysis` in
/// the descriptor).
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn spsm_solve(
    handle: crate::hipsparseHandle_t,
    op_a: crate::hipsparseOperation_t,
    op_b: crate::hipsparseOperation_t,
    alpha: *const std::ffi::c_void,
    mat_a: crate::hipsparseConstSpMatDescr_t,
    mat_b: crate::hipsparseConstDnMatDescr_t,
    mat_c: crate::hipsparseDnMatDescr_t,
    compute_type: hip_sys::hipDataType,
    alg: crate::hipsparseSpSMAlg_t,
    descr: crate::hipsparseSpSMDescr_t,
    _external_buffer: *mut std::ffi::c_void,
) -> hipsparseStatus_t {
    let Some(f) = SPSM_SOLVE.address() else {
        return hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED;
    };
    let compute_type = match hip_sys::loader::adapter::ToCuda::to_cuda(compute_type) {
        Ok(v) => v,
        Err(e) => return e,
    };
    type Solve = unsafe extern "C" fn(
        crate::hipsparseHandle_t,
        i32,
        i32,
        *const std::ffi::c_void,
        crate::hipsparseConstSpMatDescr_t,
        crate::hipsparseConstDnMatDescr_t,
        crate::hipsparseDnMatDescr_t,
        i32,
        i32,
        crate::hipsparseSpSMDescr_t,
    ) -> i32;
    // SAFETY: `f` is cusparseSpSM_solve, declared in cuSPARSE 12.5's
    // cusparse.h with these ten parameters (enums int-sized, descriptors
    // opaque pointers) and a cusparseStatus_t return.
    let f = unsafe { std::mem::transmute::<*mut std::ffi::c_void, Solve>(f) };
    // SAFETY: the caller upholds the binding's contract, which is the
    // cuSPARSE function's; the buffer is not used.
    convert::from_cusparse(unsafe {
        f(
            handle,
            op_a.0 as i32,
            op_b.0 as i32,
            alpha,
            mat_a,
            mat_b,
            mat_c,
            compute_type,
            alg.0 as i32,
            descr,
        )
    })
}

/// Fills the table with the adapters from the cuSPARSE library the loader
/// core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<HipsparseFunctions> {
    CUSPARSE.fill(lib);
    let mut table = HipsparseFunctions::EMPTY;
    adapters::install(&mut table);
    table.hipsparseGetErrorName = Some(error_name);
    table.hipsparseGetErrorString = Some(error_string);
    install_getters(&mut table);
    if SET_ATTRIBUTE.address().is_some() {
        table.hipsparseSpMatSetAttribute = Some(set_attribute);
    }
    if SPSM_SOLVE.address().is_some() {
        table.hipsparseSpSM_solve = Some(spsm_solve);
    }
    Loaded::one_library(Platform::Nvidia, "cuSPARSE", lib, path, table)
}

/// `hipsparseGetErrorName`: hipSPARSE's names, from this crate's table (a
/// static string, as hipSPARSE returns).
unsafe extern "C" fn error_name(status: hipsparseStatus_t) -> *const c_char {
    match status.name() {
        Some(_) => name_cstr(status).as_ptr(),
        None => c"HIPSPARSE_STATUS_UNKNOWN".as_ptr(),
    }
}

/// `hipsparseGetErrorString`: the description of [`hipsparseStatus_t`].
unsafe extern "C" fn error_string(status: hipsparseStatus_t) -> *const c_char {
    match status.0 {
        0 => c"no error",
        1 => c"the library was not initialized (or could not be loaded)",
        2 => c"resource allocation failed",
        3 => c"an unsupported value was passed to the function",
        4 => c"the device architecture is not supported",
        5 => c"access to GPU memory failed",
        6 => c"the GPU program failed to execute",
        7 => c"an internal operation failed",
        8 => c"the matrix type is not supported",
        9 => c"a zero pivot was found",
        10 => c"the operation is not supported (or this library does not provide it)",
        11 => c"the resources are insufficient",
        _ => c"unknown hipSPARSE status",
    }
    .as_ptr()
}

fn name_cstr(status: hipsparseStatus_t) -> &'static std::ffi::CStr {
    match status {
        hipsparseStatus_t::HIPSPARSE_STATUS_SUCCESS => c"HIPSPARSE_STATUS_SUCCESS",
        hipsparseStatus_t::HIPSPARSE_STATUS_NOT_INITIALIZED => c"HIPSPARSE_STATUS_NOT_INITIALIZED",
        hipsparseStatus_t::HIPSPARSE_STATUS_ALLOC_FAILED => c"HIPSPARSE_STATUS_ALLOC_FAILED",
        hipsparseStatus_t::HIPSPARSE_STATUS_INVALID_VALUE => c"HIPSPARSE_STATUS_INVALID_VALUE",
        hipsparseStatus_t::HIPSPARSE_STATUS_ARCH_MISMATCH => c"HIPSPARSE_STATUS_ARCH_MISMATCH",
        hipsparseStatus_t::HIPSPARSE_STATUS_MAPPING_ERROR => c"HIPSPARSE_STATUS_MAPPING_ERROR",
        hipsparseStatus_t::HIPSPARSE_STATUS_EXECUTION_FAILED => {
            c"HIPSPARSE_STATUS_EXECUTION_FAILED"
        }
        hipsparseStatus_t::HIPSPARSE_STATUS_INTERNAL_ERROR => c"HIPSPARSE_STATUS_INTERNAL_ERROR",
        hipsparseStatus_t::HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED => {
            c"HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED"
        }
        hipsparseStatus_t::HIPSPARSE_STATUS_ZERO_PIVOT => c"HIPSPARSE_STATUS_ZERO_PIVOT",
        hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED => c"HIPSPARSE_STATUS_NOT_SUPPORTED",
        hipsparseStatus_t::HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES => {
            c"HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES"
        }
        _ => c"HIPSPARSE_STATUS_UNKNOWN",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::functions::FUNCTION_NAMES;
    use std::ffi::CStr;

    #[test]
    fn every_adapter_is_a_binding_of_the_same_name() {
        let mut seen = std::collections::HashSet::new();
        for &(hip, cu) in ADAPTERS {
            assert!(FUNCTION_NAMES.contains(&hip), "{hip}");
            assert_eq!(hip.strip_prefix("hipsparse"), cu.strip_prefix("cusparse"));
            assert!(seen.insert(hip), "{hip} twice");
            assert!(!HAND_WRITTEN.contains(&hip), "{hip}");
        }
        for required in [
            "hipsparseCreate",
            "hipsparseDestroy",
            "hipsparseSetStream",
            "hipsparseCreateCsr",
            "hipsparseCreateCsc",
            "hipsparseCreateCoo",
            "hipsparseSbsrmv",
            "hipsparseDbsrmv",
            "hipsparseCreateDnVec",
            "hipsparseCreateDnMat",
            "hipsparseSpMV",
            "hipsparseSpMV_bufferSize",
            "hipsparseSpMM",
            "hipsparseSpGEMM_compute",
            "hipsparseSpGEMM_copy",
            "hipsparseSpSV_solve",
            "hipsparseSparseToDense",
            "hipsparseDenseToSparse_convert",
        ] {
            assert!(ADAPTERS.iter().any(|(h, _)| *h == required), "{required}");
        }
    }

    #[test]
    fn status_strings() {
        // SAFETY: both return static C strings.
        let (name, text) = unsafe {
            (
                CStr::from_ptr(error_name(hipsparseStatus_t(9))),
                CStr::from_ptr(error_string(hipsparseStatus_t(9))),
            )
        };
        assert_eq!(name.to_str().unwrap(), "HIPSPARSE_STATUS_ZERO_PIVOT");
        assert_eq!(text.to_str().unwrap(), "a zero pivot was found");
        // SAFETY: as above.
        let unknown = unsafe { CStr::from_ptr(error_name(hipsparseStatus_t(99))) };
        assert_eq!(unknown.to_str().unwrap(), "HIPSPARSE_STATUS_UNKNOWN");
    }

    #[test]
    fn without_cusparse_nothing_is_installed() {
        // The slot is empty in this test process (no cuSPARSE was loaded).
        assert!(!CUSPARSE.is_filled());
        let mut table = HipsparseFunctions::EMPTY;
        adapters::install(&mut table);
        assert_eq!(table.available_count(), 0);
    }
}
