//! The hipBLASLt functions over cuBLASLt that the adapter kit cannot
//! express, each an `extern "C"` function with the binding's exact
//! signature. The others (creating and destroying handles, layouts,
//! descriptors and preferences, and `hipblasLtMatrixTransform`) take the
//! same arguments in the same order as their cuBLASLt counterpart and are
//! generated (`src/generated/nvidia/adapters.rs`). What differs here:
//!
//! - attribute numbers (every `...SetAttribute`/`...GetAttribute`) are
//!   mapped ([`convert`]); an attribute cuBLASLt lacks gives `HIPBLAS_STATUS_NOT_SUPPORTED`
//!   before cuBLASLt is called;
//! - attribute *values* that are hipBLAS operations (`TRANSA`, `TRANSB`:
//!   111..113 in hipBLAS, 0..2 in cuBLAS) are mapped both ways, and an
//!   epilogue, order or pointer mode cuBLASLt lacks is refused;
//! - `hipblasLtMatmulAlgo_t` is 24 bytes, `cublasLtMatmulAlgo_t` 64: the
//!   heuristic's cuBLASLt algorithms are kept in a process-wide list (each
//!   distinct one once) and the hipBLASLt algorithm carries a tag and its
//!   index there, which `hipblasLtMatmul` turns back into the cuBLASLt one;
//! - `hipblasLtGetVersion` takes a handle and writes an `int`,
//!   `cublasLtGetVersion` returns a `size_t`.
//!
//! Functions without a counterpart (`hipblasLtGetGitRevision`,
//! `hipblasLtGetArchName`, and the 16 `hipblaslt*` extensions) are left out:
//! their table entries stay `None`, so they return
//! `HIPBLAS_STATUS_NOT_SUPPORTED` (or the extension's own "unavailable"
//! value).

#![allow(non_snake_case)]

use super::convert;
use super::CUBLASLT;
use crate::generated::functions::HipblasltFunctions;
use crate::*;
use core::ffi::{c_int, c_void};
use hip_sys::loader::common::Symbol;
use std::sync::Mutex;

const NOT_SUPPORTED: hipblasStatus_t = hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED;
const INVALID_VALUE: hipblasStatus_t = hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE;

macro_rules! symbols {
    ($($name:ident = $c:literal;)*) => {
        $(
            #[doc = concat!("`", $c, "`.")]
            static $name: Symbol = Symbol::new(
                &CUBLASLT,
                match core::ffi::CStr::from_bytes_with_nul(concat!($c, "\0").as_bytes()) {
                    Ok(name) => name,
                    Err(_) => panic!("a cuBLASLt name without NUL bytes"),
                },
            );
        )*
    };
}

symbols! {
    GET_VERSION = "cublasLtGetVersion";
    LAYOUT_SET = "cublasLtMatrixLayoutSetAttribute";
    LAYOUT_GET = "cublasLtMatrixLayoutGetAttribute";
    DESC_SET = "cublasLtMatmulDescSetAttribute";
    DESC_GET = "cublasLtMatmulDescGetAttribute";
    PREF_SET = "cublasLtMatmulPreferenceSetAttribute";
    PREF_GET = "cublasLtMatmulPreferenceGetAttribute";
    HEURISTIC = "cublasLtMatmulAlgoGetHeuristic";
    MATMUL = "cublasLtMatmul";
    TRANSFORM_SET = "cublasLtMatrixTransformDescSetAttribute";
    TRANSFORM_GET = "cublasLtMatrixTransformDescGetAttribute";
}

/// The cuBLASLt function of `$sym` as a function pointer of the given C
/// signature (returning `cublasStatus_t`, an `int`), or an early return of
/// `HIPBLAS_STATUS_NOT_SUPPORTED` when the loaded cuBLASLt lacks it.
macro_rules! cu {
    ($sym:expr, fn($($t:ty),* $(,)?)) => {
        match $sym.address() {
            // SAFETY: the address is cuBLASLt's function of this name, whose
            // C declaration in cublasLt.h has these parameter types (each the
            // C type of the same size and meaning: handles and descriptors
            // are pointers, enums `int`/`uint32_t`) and returns
            // `cublasStatus_t`, an int-sized C enum.
            Some(f) => unsafe {
                core::mem::transmute::<*mut c_void, unsafe extern "C" fn($($t),*) -> c_int>(f)
            },
            None => return NOT_SUPPORTED,
        }
    };
}

/// (hipBLASLt binding, cuBLASLt symbol) for every function written here.
pub(crate) const HAND_WRITTEN: &[(&str, &str)] = &[
    ("hipblasLtGetVersion", "cublasLtGetVersion"),
    (
        "hipblasLtMatrixLayoutSetAttribute",
        "cublasLtMatrixLayoutSetAttribute",
    ),
    (
        "hipblasLtMatrixLayoutGetAttribute",
        "cublasLtMatrixLayoutGetAttribute",
    ),
    (
        "hipblasLtMatmulDescSetAttribute",
        "cublasLtMatmulDescSetAttribute",
    ),
    (
        "hipblasLtMatmulDescGetAttribute",
        "cublasLtMatmulDescGetAttribute",
    ),
    (
        "hipblasLtMatmulPreferenceSetAttribute",
        "cublasLtMatmulPreferenceSetAttribute",
    ),
    (
        "hipblasLtMatmulPreferenceGetAttribute",
        "cublasLtMatmulPreferenceGetAttribute",
    ),
    (
        "hipblasLtMatmulAlgoGetHeuristic",
        "cublasLtMatmulAlgoGetHeuristic",
    ),
    ("hipblasLtMatmul", "cublasLtMatmul"),
    (
        "hipblasLtMatrixTransformDescSetAttribute",
        "cublasLtMatrixTransformDescSetAttribute",
    ),
    (
        "hipblasLtMatrixTransformDescGetAttribute",
        "cublasLtMatrixTransformDescGetAttribute",
    ),
];

/// Puts every function written here whose cuBLASLt symbol the loaded
/// library has into `table`.
pub(crate) fn install(table: &mut HipblasltFunctions) {
    macro_rules! put {
        ($($sym:ident => $hip:ident),* $(,)?) => {
            $(
                if $sym.address().is_some() {
                    table.$hip = Some($hip);
                }
            )*
        };
    }
    put!(
        GET_VERSION => hipblasLtGetVersion,
        LAYOUT_SET => hipblasLtMatrixLayoutSetAttribute,
        LAYOUT_GET => hipblasLtMatrixLayoutGetAttribute,
        DESC_SET => hipblasLtMatmulDescSetAttribute,
        DESC_GET => hipblasLtMatmulDescGetAttribute,
        PREF_SET => hipblasLtMatmulPreferenceSetAttribute,
        PREF_GET => hipblasLtMatmulPreferenceGetAttribute,
        HEURISTIC => hipblasLtMatmulAlgoGetHeuristic,
        MATMUL => hipblasLtMatmul,
        TRANSFORM_SET => hipblasLtMatrixTransformDescSetAttribute,
        TRANSFORM_GET => hipblasLtMatrixTransformDescGetAttribute,
    );
}

fn status(s: c_int) -> hipblasStatus_t {
    convert::from_cublas(s)
}

/// The `i32` at `buf` when `size` is 4 (a C `int`/`uint32_t` attribute).
///
/// # Safety
///
/// `buf` is null or valid for reading `size` bytes.
unsafe fn read_i32(buf: *const c_void, size: usize) -> Option<i32> {
    if buf.is_null() || size != 4 {
        return None;
    }
    // SAFETY: `buf` is non-null and valid for 4 bytes (caller); unaligned
    // reads are allowed.
    Some(unsafe { buf.cast::<i32>().read_unaligned() })
}

/// A cuBLASLt matmul algorithm: opaque, 64 bytes.
type CuAlgo = [u64; 8];

/// cuBLASLt's `cublasLtMatmulHeuristicResult_t`.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CuHeuristicResult {
    algo: CuAlgo,
    workspace_size: usize,
    state: c_int,
    waves_count: f32,
    reserved: [c_int; 4],
}

/// Every distinct cuBLASLt algorithm the heuristic returned in this
/// process; a hipBLASLt algorithm names one by its index.
static ALGOS: Mutex<Vec<CuAlgo>> = Mutex::new(Vec::new());

/// The tag in the first 8 bytes of a hipBLASLt algorithm made here.
const ALGO_TAG: [u8; 8] = *b"cuLtAlgo";

/// The hipBLASLt algorithm standing for `algo` (kept in [`ALGOS`]).
fn wrap_algo(algo: CuAlgo) -> hipblasLtMatmulAlgo_t {
    let mut list = ALGOS.lock().unwrap_or_else(|e| e.into_inner());
    let index = match list.iter().position(|a| *a == algo) {
        Some(i) => i,
        None => {
            list.push(algo);
            list.len() - 1
        }
    };
    let mut data = [0u8; 16];
    data[..8].copy_from_slice(&ALGO_TAG);
    data[8..].copy_from_slice(&(index as u64).to_le_bytes());
    hipblasLtMatmulAlgo_t {
        data,
        max_workspace_bytes: 0,
    }
}

/// The cuBLASLt algorithm a hipBLASLt algorithm from [`wrap_algo`] names.
fn unwrap_algo(algo: &hipblasLtMatmulAlgo_t) -> Option<CuAlgo> {
    if algo.data[..8] != ALGO_TAG {
        return None;
    }
    let index = u64::from_le_bytes(algo.data[8..].try_into().ok()?);
    let list = ALGOS.lock().unwrap_or_else(|e| e.into_inner());
    list.get(usize::try_from(index).ok()?).copied()
}

unsafe extern "C" fn hipblasLtGetVersion(
    _handle: hipblasLtHandle_t,
    version: *mut c_int,
) -> hipblasStatus_t {
    if version.is_null() {
        return INVALID_VALUE;
    }
    let Some(f) = GET_VERSION.address() else {
        return NOT_SUPPORTED;
    };
    // SAFETY: `cublasLtGetVersion` takes nothing and returns a size_t.
    let f = unsafe { core::mem::transmute::<*mut c_void, unsafe extern "C" fn() -> usize>(f) };
    // SAFETY: a plain call; `version` is non-null and writable (caller).
    unsafe { version.write(c_int::try_from(f()).unwrap_or(c_int::MAX)) };
    hipblasStatus_t::HIPBLAS_STATUS_SUCCESS
}

unsafe extern "C" fn hipblasLtMatrixLayoutSetAttribute(
    layout: hipblasLtMatrixLayout_t,
    attr: hipblasLtMatrixLayoutAttribute_t,
    buf: *const c_void,
    size: usize,
) -> hipblasStatus_t {
    let Some(cu_attr) = convert::layout_attribute(attr) else {
        return NOT_SUPPORTED;
    };
    let mut mapped = None;
    if attr == hipblasLtMatrixLayoutAttribute_t::HIPBLASLT_MATRIX_LAYOUT_ORDER {
        // SAFETY: `buf` holds `size` bytes (caller).
        let Some(order) = (unsafe { read_i32(buf, size) }) else {
            return INVALID_VALUE;
        };
        let Some(cu_order) = convert::order(hipblasLtOrder_t(order as _)) else {
            return NOT_SUPPORTED;
        };
        mapped = Some(cu_order);
    }
    let value = mapped.unwrap_or(0);
    let buf = if mapped.is_some() {
        core::ptr::addr_of!(value).cast()
    } else {
        buf
    };
    let f = cu!(
        LAYOUT_SET,
        fn(hipblasLtMatrixLayout_t, c_int, *const c_void, usize)
    );
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's; a mapped value lives in this frame.
    status(unsafe { f(layout, cu_attr, buf, size) })
}

unsafe extern "C" fn hipblasLtMatrixLayoutGetAttribute(
    layout: hipblasLtMatrixLayout_t,
    attr: hipblasLtMatrixLayoutAttribute_t,
    buf: *mut c_void,
    size: usize,
    written: *mut usize,
) -> hipblasStatus_t {
    let Some(cu_attr) = convert::layout_attribute(attr) else {
        return NOT_SUPPORTED;
    };
    // The order's values (0, 1) are the same in both libraries.
    let f = cu!(
        LAYOUT_GET,
        fn(hipblasLtMatrixLayout_t, c_int, *mut c_void, usize, *mut usize)
    );
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's.
    status(unsafe { f(layout, cu_attr, buf, size, written) })
}

/// The cuBLASLt value of a 4-byte enum attribute of a matmul descriptor
/// (`Ok(None)`: the attribute's value passes unchanged).
///
/// # Safety
///
/// `buf` is null or valid for reading `size` bytes.
unsafe fn desc_value(
    attr: hipblasLtMatmulDescAttributes_t,
    buf: *const c_void,
    size: usize,
) -> Result<Option<i32>, hipblasStatus_t> {
    use hipblasLtMatmulDescAttributes_t as A;
    let map: fn(i32) -> Option<i32> = match attr {
        A::HIPBLASLT_MATMUL_DESC_TRANSA | A::HIPBLASLT_MATMUL_DESC_TRANSB => {
            |v| convert::operation(hipblasOperation_t(v as _))
        }
        A::HIPBLASLT_MATMUL_DESC_EPILOGUE => {
            |v| convert::epilogue(hipblasLtEpilogue_t(v as _)).map(|e| e as i32)
        }
        A::HIPBLASLT_MATMUL_DESC_POINTER_MODE => {
            |v| convert::pointer_mode(hipblasLtPointerMode_t(v as _))
        }
        A::HIPBLASLT_MATMUL_DESC_A_SCALE_MODE | A::HIPBLASLT_MATMUL_DESC_B_SCALE_MODE => {
            |v| convert::matrix_scale(hipblasLtMatmulMatrixScale_t(v as _))
        }
        _ => return Ok(None),
    };
    // SAFETY: forwarded from the caller.
    let v = unsafe { read_i32(buf, size) }.ok_or(INVALID_VALUE)?;
    map(v).map(Some).ok_or(NOT_SUPPORTED)
}

unsafe extern "C" fn hipblasLtMatmulDescSetAttribute(
    desc: hipblasLtMatmulDesc_t,
    attr: hipblasLtMatmulDescAttributes_t,
    buf: *const c_void,
    size: usize,
) -> hipblasStatus_t {
    let Some(cu_attr) = convert::desc_attribute(attr) else {
        return NOT_SUPPORTED;
    };
    // SAFETY: `buf` holds `size` bytes (caller).
    let mapped = match unsafe { desc_value(attr, buf, size) } {
        Ok(m) => m,
        Err(e) => return e,
    };
    let value = mapped.unwrap_or(0);
    let buf = if mapped.is_some() {
        core::ptr::addr_of!(value).cast()
    } else {
        buf
    };
    let f = cu!(
        DESC_SET,
        fn(hipblasLtMatmulDesc_t, c_int, *const c_void, usize)
    );
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's; a mapped value lives in this frame.
    status(unsafe { f(desc, cu_attr, buf, size) })
}

unsafe extern "C" fn hipblasLtMatmulDescGetAttribute(
    desc: hipblasLtMatmulDesc_t,
    attr: hipblasLtMatmulDescAttributes_t,
    buf: *mut c_void,
    size: usize,
    written: *mut usize,
) -> hipblasStatus_t {
    let Some(cu_attr) = convert::desc_attribute(attr) else {
        return NOT_SUPPORTED;
    };
    let f = cu!(
        DESC_GET,
        fn(hipblasLtMatmulDesc_t, c_int, *mut c_void, usize, *mut usize)
    );
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's.
    let s = status(unsafe { f(desc, cu_attr, buf, size, written) });
    use hipblasLtMatmulDescAttributes_t as A;
    let is_op = matches!(
        attr,
        A::HIPBLASLT_MATMUL_DESC_TRANSA | A::HIPBLASLT_MATMUL_DESC_TRANSB
    );
    if s.is_success() && is_op {
        // SAFETY: cuBLASLt wrote the 4-byte operation into `buf`.
        if let Some(op) = unsafe { read_i32(buf, size) }.and_then(convert::operation_from_cu) {
            // SAFETY: `buf` holds 4 writable bytes (caller; `read_i32`
            // checked the size).
            unsafe { buf.cast::<i32>().write_unaligned(op.0 as i32) };
        }
    }
    s
}

unsafe extern "C" fn hipblasLtMatmulPreferenceSetAttribute(
    pref: hipblasLtMatmulPreference_t,
    attr: hipblasLtMatmulPreferenceAttributes_t,
    buf: *const c_void,
    size: usize,
) -> hipblasStatus_t {
    let Some(cu_attr) = convert::preference_attribute(attr) else {
        return NOT_SUPPORTED;
    };
    let f = cu!(
        PREF_SET,
        fn(hipblasLtMatmulPreference_t, c_int, *const c_void, usize)
    );
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's.
    status(unsafe { f(pref, cu_attr, buf, size) })
}

unsafe extern "C" fn hipblasLtMatmulPreferenceGetAttribute(
    pref: hipblasLtMatmulPreference_t,
    attr: hipblasLtMatmulPreferenceAttributes_t,
    buf: *mut c_void,
    size: usize,
    written: *mut usize,
) -> hipblasStatus_t {
    let Some(cu_attr) = convert::preference_attribute(attr) else {
        return NOT_SUPPORTED;
    };
    let f = cu!(
        PREF_GET,
        fn(hipblasLtMatmulPreference_t, c_int, *mut c_void, usize, *mut usize)
    );
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's.
    status(unsafe { f(pref, cu_attr, buf, size, written) })
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn hipblasLtMatmulAlgoGetHeuristic(
    handle: hipblasLtHandle_t,
    desc: hipblasLtMatmulDesc_t,
    a: hipblasLtMatrixLayout_t,
    b: hipblasLtMatrixLayout_t,
    c: hipblasLtMatrixLayout_t,
    d: hipblasLtMatrixLayout_t,
    pref: hipblasLtMatmulPreference_t,
    requested: c_int,
    results: *mut hipblasLtMatmulHeuristicResult_t,
    returned: *mut c_int,
) -> hipblasStatus_t {
    let Ok(count) = usize::try_from(requested) else {
        return INVALID_VALUE;
    };
    if results.is_null() || returned.is_null() || count == 0 {
        return INVALID_VALUE;
    }
    let f = cu!(
        HEURISTIC,
        fn(
            hipblasLtHandle_t,
            hipblasLtMatmulDesc_t,
            hipblasLtMatrixLayout_t,
            hipblasLtMatrixLayout_t,
            hipblasLtMatrixLayout_t,
            hipblasLtMatrixLayout_t,
            hipblasLtMatmulPreference_t,
            c_int,
            *mut CuHeuristicResult,
            *mut c_int,
        )
    );
    let mut cu_results = vec![CuHeuristicResult::default(); count];
    let mut n: c_int = 0;
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's; `cu_results` holds `requested`
    // cuBLASLt results and `n` is writable.
    let s = status(unsafe {
        f(
            handle,
            desc,
            a,
            b,
            c,
            d,
            pref,
            requested,
            cu_results.as_mut_ptr(),
            &mut n,
        )
    });
    if s.is_success() {
        let n = usize::try_from(n).unwrap_or(0).min(count);
        for (i, r) in cu_results.iter().take(n).enumerate() {
            let result = hipblasLtMatmulHeuristicResult_t {
                algo: wrap_algo(r.algo),
                workspaceSize: r.workspace_size,
                state: convert::from_cublas(r.state),
                wavesCount: r.waves_count,
                reserved: [0; 4],
            };
            // SAFETY: `results` holds `requested` elements (caller) and
            // `i < n <= requested`.
            unsafe { results.add(i).write(result) };
        }
        // SAFETY: `returned` is non-null and writable (caller).
        unsafe { returned.write(n as c_int) };
    }
    s
}

#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn hipblasLtMatmul(
    handle: hipblasLtHandle_t,
    desc: hipblasLtMatmulDesc_t,
    alpha: *const c_void,
    a: *const c_void,
    a_desc: hipblasLtMatrixLayout_t,
    b: *const c_void,
    b_desc: hipblasLtMatrixLayout_t,
    beta: *const c_void,
    c: *const c_void,
    c_desc: hipblasLtMatrixLayout_t,
    d: *mut c_void,
    d_desc: hipblasLtMatrixLayout_t,
    algo: *const hipblasLtMatmulAlgo_t,
    workspace: *mut c_void,
    workspace_size: usize,
    stream: hipStream_t,
) -> hipblasStatus_t {
    // A null algorithm lets cuBLASLt choose, as hipBLASLt does.
    let cu_algo = if algo.is_null() {
        None
    } else {
        // SAFETY: a non-null `algo` points to an algorithm (caller).
        match unwrap_algo(unsafe { &*algo }) {
            Some(a) => Some(a),
            None => return INVALID_VALUE,
        }
    };
    let cu_algo_ptr = cu_algo
        .as_ref()
        .map_or(core::ptr::null(), |a| a as *const CuAlgo);
    let f = cu!(
        MATMUL,
        fn(
            hipblasLtHandle_t,
            hipblasLtMatmulDesc_t,
            *const c_void,
            *const c_void,
            hipblasLtMatrixLayout_t,
            *const c_void,
            hipblasLtMatrixLayout_t,
            *const c_void,
            *const c_void,
            hipblasLtMatrixLayout_t,
            *mut c_void,
            hipblasLtMatrixLayout_t,
            *const CuAlgo,
            *mut c_void,
            usize,
            hipStream_t,
        )
    );
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's; the cuBLASLt algorithm lives in this
    // frame; the HIP stream on NVIDIA is the CUDA stream (hip-sys's NVIDIA
    // backend hands out `cudaStream_t`s).
    status(unsafe {
        f(
            handle,
            desc,
            alpha,
            a,
            a_desc,
            b,
            b_desc,
            beta,
            c,
            c_desc,
            d,
            d_desc,
            cu_algo_ptr,
            workspace,
            workspace_size,
            stream,
        )
    })
}

unsafe extern "C" fn hipblasLtMatrixTransformDescSetAttribute(
    desc: hipblasLtMatrixTransformDesc_t,
    attr: hipblasLtMatrixTransformDescAttributes_t,
    buf: *const c_void,
    size: usize,
) -> hipblasStatus_t {
    use hipblasLtMatrixTransformDescAttributes_t as A;
    let Some(cu_attr) = convert::transform_attribute(attr) else {
        return NOT_SUPPORTED;
    };
    let mut mapped = None;
    if matches!(
        attr,
        A::HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSA | A::HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSB
    ) {
        // SAFETY: `buf` holds `size` bytes (caller).
        let Some(op) = (unsafe { read_i32(buf, size) }) else {
            return INVALID_VALUE;
        };
        let Some(cu_op) = convert::operation(hipblasOperation_t(op as _)) else {
            return NOT_SUPPORTED;
        };
        mapped = Some(cu_op);
    }
    let value = mapped.unwrap_or(0);
    let buf = if mapped.is_some() {
        core::ptr::addr_of!(value).cast()
    } else {
        buf
    };
    let f = cu!(
        TRANSFORM_SET,
        fn(hipblasLtMatrixTransformDesc_t, c_int, *const c_void, usize)
    );
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's; a mapped value lives in this frame.
    status(unsafe { f(desc, cu_attr, buf, size) })
}

unsafe extern "C" fn hipblasLtMatrixTransformDescGetAttribute(
    desc: hipblasLtMatrixTransformDesc_t,
    attr: hipblasLtMatrixTransformDescAttributes_t,
    buf: *mut c_void,
    size: usize,
    written: *mut usize,
) -> hipblasStatus_t {
    use hipblasLtMatrixTransformDescAttributes_t as A;
    let Some(cu_attr) = convert::transform_attribute(attr) else {
        return NOT_SUPPORTED;
    };
    let f = cu!(
        TRANSFORM_GET,
        fn(hipblasLtMatrixTransformDesc_t, c_int, *mut c_void, usize, *mut usize)
    );
    // SAFETY: the caller upholds the binding's contract, which is cuBLASLt's.
    let s = status(unsafe { f(desc, cu_attr, buf, size, written) });
    let is_op = matches!(
        attr,
        A::HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSA | A::HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSB
    );
    if s.is_success() && is_op {
        // SAFETY: cuBLASLt wrote the 4-byte operation into `buf`.
        if let Some(op) = unsafe { read_i32(buf, size) }.and_then(convert::operation_from_cu) {
            // SAFETY: `buf` holds 4 writable bytes (checked by `read_i32`).
            unsafe { buf.cast::<i32>().write_unaligned(op.0 as i32) };
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithms_round_trip_through_the_list_once_each() {
        let a = [1, 2, 3, 4, 5, 6, 7, 8];
        let b = [9; 8];
        let wa = wrap_algo(a);
        let wb = wrap_algo(b);
        assert_eq!(unwrap_algo(&wa), Some(a));
        assert_eq!(unwrap_algo(&wb), Some(b));
        assert_eq!(
            wrap_algo(a).data,
            wa.data,
            "the same algorithm, the same index"
        );
        // A hipBLASLt algorithm not made here (no tag) is refused.
        let foreign = hipblasLtMatmulAlgo_t {
            data: [7; 16],
            max_workspace_bytes: 0,
        };
        assert_eq!(unwrap_algo(&foreign), None);
        assert_eq!(size_of::<CuHeuristicResult>(), 96);
    }

    #[test]
    fn every_function_is_named_after_its_cublaslt_function() {
        for (hip, cu) in HAND_WRITTEN {
            assert_eq!(
                hip.strip_prefix("hipblasLt"),
                cu.strip_prefix("cublasLt"),
                "{hip} => {cu}"
            );
        }
    }
}
