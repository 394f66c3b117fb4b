//! The result layer: one thin function per hipBLASLt call the safe types
//! make, each turning the status into a [`Result`] ([`Error::Blas`] with
//! the call's name) and output parameters into return values. Handles and
//! descriptors stay raw: the caller owns them ([`LtHandle`](crate::LtHandle)
//! is the safe owner).
//!
//! This is the only place in the crate that calls `hipblaslt_sys`'s
//! functions. A function is `unsafe` when the call's soundness depends on
//! its arguments (live handles, device pointers the layouts fit in); its
//! `# Safety` section says what must hold.

use crate::error::{Error, Result};
use hipblaslt_sys as sys;
use hipblaslt_sys::{
    hipDataType, hipStream_t, hipblasComputeType_t, hipblasLtHandle_t, hipblasLtMatmulAlgo_t,
    hipblasLtMatmulDescAttributes_t, hipblasLtMatmulDesc_t, hipblasLtMatmulHeuristicResult_t,
    hipblasLtMatmulPreferenceAttributes_t, hipblasLtMatmulPreference_t,
    hipblasLtMatrixLayoutAttribute_t, hipblasLtMatrixLayout_t, hipblasStatus_t,
};
use std::ffi::c_void;

/// The loaded hipBLASLt (cuBLASLt on the NVIDIA platform), or
/// [`Error::Load`] with every path tried.
pub fn library() -> Result<&'static sys::loader::Hipblaslt> {
    sys::loader::hipblaslt().map_err(|e| Error::Load(e.clone()))
}

/// `Ok(())` for success, else the [`Error`] for `status` from `call`.
#[inline]
pub fn check(call: &'static str, status: hipblasStatus_t) -> Result<()> {
    if status.is_success() {
        Ok(())
    } else {
        Err(Error::from_status(call, status))
    }
}

/// `hipblasLtCreate`: a new handle (destroy it with [`destroy`]).
///
/// It may act on the whole device, which CUDA forbids during any capture
/// of the device: `_held` proves the caller holds the device's capture
/// gate ([`hip::Device::hold_captures`], or
/// [`hip::Device::release_outside_captures`] in `Drop`).
pub fn create(_held: &hip::CaptureHold<'_>) -> Result<hipblasLtHandle_t> {
    let mut handle: hipblasLtHandle_t = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    check("hipblasLtCreate", unsafe {
        sys::hipblasLtCreate(&mut handle)
    })?;
    Ok(handle)
}

/// `hipblasLtDestroy`.
///
/// # Safety
///
/// `handle` was made by [`create`], is not used after this call, and is
/// destroyed once. As [`create`], `_held` proves the capture gate is held.
pub unsafe fn destroy(handle: hipblasLtHandle_t, _held: &hip::CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasLtDestroy", unsafe { sys::hipblasLtDestroy(handle) })
}

/// `hipblasLtMatrixLayoutCreate`: a column-major `rows x cols` layout of
/// `ty` with leading dimension `ld`.
pub fn layout_create(
    ty: hipDataType,
    rows: u64,
    cols: u64,
    ld: i64,
) -> Result<hipblasLtMatrixLayout_t> {
    let mut layout: hipblasLtMatrixLayout_t = std::ptr::null_mut();
    // SAFETY: `layout` is a valid place for the new descriptor; the other
    // arguments are values.
    check("hipblasLtMatrixLayoutCreate", unsafe {
        sys::hipblasLtMatrixLayoutCreate(&mut layout, ty, rows, cols, ld)
    })?;
    Ok(layout)
}

/// `hipblasLtMatrixLayoutDestroy`.
///
/// # Safety
///
/// `layout` was made by [`layout_create`] and is destroyed once.
pub unsafe fn layout_destroy(layout: hipblasLtMatrixLayout_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasLtMatrixLayoutDestroy", unsafe {
        sys::hipblasLtMatrixLayoutDestroy(layout)
    })
}

/// `hipblasLtMatrixLayoutSetAttribute` with a value of the attribute's C
/// type `V` (`int32_t` for the batch count, `int64_t` for the stride).
///
/// # Safety
///
/// `layout` is live and `V` is the attribute's C type.
pub unsafe fn layout_set<V: Copy>(
    layout: hipblasLtMatrixLayout_t,
    attr: hipblasLtMatrixLayoutAttribute_t,
    value: V,
) -> Result<()> {
    // SAFETY: `value` is readable for its size for the call (caller: the
    // attribute's type).
    unsafe { layout_set_attribute(layout, attr, (&value as *const V).cast(), size_of::<V>()) }
}

/// `hipblasLtMatrixLayoutSetAttribute` as the C API takes it: `size`
/// bytes at `buf`.
///
/// # Safety
///
/// `layout` is live; `buf` is readable for `size` bytes, which hold a
/// value of the attribute's C type.
pub unsafe fn layout_set_attribute(
    layout: hipblasLtMatrixLayout_t,
    attr: hipblasLtMatrixLayoutAttribute_t,
    buf: *const c_void,
    size: usize,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasLtMatrixLayoutSetAttribute", unsafe {
        sys::hipblasLtMatrixLayoutSetAttribute(layout, attr, buf, size)
    })
}

/// `hipblasLtMatmulDescCreate`.
pub fn desc_create(
    compute: hipblasComputeType_t,
    scale: hipDataType,
) -> Result<hipblasLtMatmulDesc_t> {
    let mut desc: hipblasLtMatmulDesc_t = std::ptr::null_mut();
    // SAFETY: `desc` is a valid place for the new descriptor.
    check("hipblasLtMatmulDescCreate", unsafe {
        sys::hipblasLtMatmulDescCreate(&mut desc, compute, scale)
    })?;
    Ok(desc)
}

/// `hipblasLtMatmulDescDestroy`.
///
/// # Safety
///
/// `desc` was made by [`desc_create`] and is destroyed once.
pub unsafe fn desc_destroy(desc: hipblasLtMatmulDesc_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasLtMatmulDescDestroy", unsafe {
        sys::hipblasLtMatmulDescDestroy(desc)
    })
}

/// `hipblasLtMatmulDescSetAttribute` with a value of the attribute's C
/// type `V` (`int32_t` for `TRANSA`, `uint32_t` for `EPILOGUE`, a pointer
/// for `BIAS_POINTER`).
///
/// # Safety
///
/// `desc` is live and `V` is the attribute's C type; a pointer set here
/// must be valid whenever the descriptor is used in a matmul.
pub unsafe fn desc_set<V: Copy>(
    desc: hipblasLtMatmulDesc_t,
    attr: hipblasLtMatmulDescAttributes_t,
    value: V,
) -> Result<()> {
    // SAFETY: as in `layout_set`.
    unsafe { desc_set_attribute(desc, attr, (&value as *const V).cast(), size_of::<V>()) }
}

/// `hipblasLtMatmulDescSetAttribute` as the C API takes it: `size` bytes
/// at `buf`.
///
/// # Safety
///
/// `desc` is live; `buf` is readable for `size` bytes, which hold a value
/// of the attribute's C type; a pointer set here must be valid whenever
/// the descriptor is used in a matmul.
pub unsafe fn desc_set_attribute(
    desc: hipblasLtMatmulDesc_t,
    attr: hipblasLtMatmulDescAttributes_t,
    buf: *const c_void,
    size: usize,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasLtMatmulDescSetAttribute", unsafe {
        sys::hipblasLtMatmulDescSetAttribute(desc, attr, buf, size)
    })
}

/// `hipblasLtMatmulPreferenceCreate`.
pub fn preference_create() -> Result<hipblasLtMatmulPreference_t> {
    let mut pref: hipblasLtMatmulPreference_t = std::ptr::null_mut();
    // SAFETY: `pref` is a valid place for the new descriptor.
    check("hipblasLtMatmulPreferenceCreate", unsafe {
        sys::hipblasLtMatmulPreferenceCreate(&mut pref)
    })?;
    Ok(pref)
}

/// `hipblasLtMatmulPreferenceDestroy`.
///
/// # Safety
///
/// `pref` was made by [`preference_create`] and is destroyed once.
pub unsafe fn preference_destroy(pref: hipblasLtMatmulPreference_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasLtMatmulPreferenceDestroy", unsafe {
        sys::hipblasLtMatmulPreferenceDestroy(pref)
    })
}

/// `hipblasLtMatmulPreferenceSetAttribute` with
/// `HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES` (a `uint64_t`).
///
/// # Safety
///
/// `pref` is live.
pub unsafe fn preference_set_max_workspace(
    pref: hipblasLtMatmulPreference_t,
    bytes: u64,
) -> Result<()> {
    // SAFETY: the attribute's C type is uint64_t; `bytes` lives for the call.
    unsafe {
        preference_set_attribute(
            pref,
            hipblasLtMatmulPreferenceAttributes_t::HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            (&bytes as *const u64).cast(),
            size_of::<u64>(),
        )
    }
}

/// `hipblasLtMatmulPreferenceSetAttribute` as the C API takes it: `size`
/// bytes at `buf`.
///
/// # Safety
///
/// `pref` is live; `buf` is readable for `size` bytes, which hold a value
/// of the attribute's C type.
pub unsafe fn preference_set_attribute(
    pref: hipblasLtMatmulPreference_t,
    attr: hipblasLtMatmulPreferenceAttributes_t,
    buf: *const c_void,
    size: usize,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasLtMatmulPreferenceSetAttribute", unsafe {
        sys::hipblasLtMatmulPreferenceSetAttribute(pref, attr, buf, size)
    })
}

/// `hipblasLtMatmulAlgoGetHeuristic`: up to `requested` algorithms, best
/// first (empty when none fits).
///
/// # Safety
///
/// Every handle and descriptor is live.
#[allow(clippy::too_many_arguments)]
pub unsafe fn heuristic(
    handle: hipblasLtHandle_t,
    desc: hipblasLtMatmulDesc_t,
    a: hipblasLtMatrixLayout_t,
    b: hipblasLtMatrixLayout_t,
    c: hipblasLtMatrixLayout_t,
    d: hipblasLtMatrixLayout_t,
    pref: hipblasLtMatmulPreference_t,
    requested: usize,
) -> Result<Vec<hipblasLtMatmulHeuristicResult_t>> {
    let requested = requested.clamp(1, 64);
    // (bindgen derives no Clone for it: hipblasStatus_t is hipblas-sys's.)
    let mut results: Vec<_> = (0..requested)
        .map(|_| hipblasLtMatmulHeuristicResult_t {
            algo: hipblasLtMatmulAlgo_t::default(),
            workspaceSize: 0,
            state: hipblasStatus_t::HIPBLAS_STATUS_SUCCESS,
            wavesCount: 0.0,
            reserved: [0; 4],
        })
        .collect();
    // SAFETY: the caller's contract.
    let returned = unsafe { heuristic_into(handle, desc, a, b, c, d, pref, &mut results) }?;
    results.truncate(returned);
    results.retain(|r| r.state.is_success());
    Ok(results)
}

/// `hipblasLtMatmulAlgoGetHeuristic` into the caller's `results` (up to
/// `results.len()` algorithms, best first, at most `i32::MAX`): how many
/// it wrote, 0 when none fits. Allocates nothing; each result's `state`
/// is as the library left it.
///
/// # Safety
///
/// Every handle and descriptor is live.
#[allow(clippy::too_many_arguments)]
pub unsafe fn heuristic_into(
    handle: hipblasLtHandle_t,
    desc: hipblasLtMatmulDesc_t,
    a: hipblasLtMatrixLayout_t,
    b: hipblasLtMatrixLayout_t,
    c: hipblasLtMatrixLayout_t,
    d: hipblasLtMatrixLayout_t,
    pref: hipblasLtMatmulPreference_t,
    results: &mut [hipblasLtMatmulHeuristicResult_t],
) -> Result<usize> {
    let requested = i32::try_from(results.len()).unwrap_or(i32::MAX);
    let mut returned = 0;
    // SAFETY: live handles (caller); `results` holds at least `requested`
    // elements and `returned` is writable.
    check("hipblasLtMatmulAlgoGetHeuristic", unsafe {
        sys::hipblasLtMatmulAlgoGetHeuristic(
            handle,
            desc,
            a,
            b,
            c,
            d,
            pref,
            requested,
            results.as_mut_ptr(),
            &mut returned,
        )
    })?;
    Ok(usize::try_from(returned).unwrap_or(0).min(results.len()))
}

/// `hipblasLtMatmul` with `D = C` (one buffer), host `f32` scalars.
///
/// # Safety
///
/// Every handle and descriptor is live; `a`, `b`, `c` and the descriptor's
/// bias pointer are device memory on the stream's device that the layouts
/// fit in; `workspace` holds `workspace_size` bytes; all of it stays valid
/// until the stream has run the matmul.
#[allow(clippy::too_many_arguments)]
pub unsafe fn matmul(
    handle: hipblasLtHandle_t,
    desc: hipblasLtMatmulDesc_t,
    alpha: f32,
    a: *const c_void,
    a_layout: hipblasLtMatrixLayout_t,
    b: *const c_void,
    b_layout: hipblasLtMatrixLayout_t,
    beta: f32,
    c: *mut c_void,
    c_layout: hipblasLtMatrixLayout_t,
    algo: &hipblasLtMatmulAlgo_t,
    workspace: *mut c_void,
    workspace_size: usize,
    stream: hipStream_t,
) -> Result<()> {
    // SAFETY: the caller's contract; the scalars are host values read
    // during the call (pointer mode host).
    unsafe {
        matmul_ex(
            handle,
            desc,
            (&alpha as *const f32).cast(),
            a,
            a_layout,
            b,
            b_layout,
            (&beta as *const f32).cast(),
            c,
            c_layout,
            c,
            c_layout,
            algo,
            workspace,
            workspace_size,
            stream,
        )
    }
}

/// `hipblasLtMatmul` as the C API takes it: `D = alpha op(A) op(B) +
/// beta C` (then the descriptor's epilogue), the scalars by pointer, `C`
/// and `D` apart (or the same buffer with one layout), `algo` from
/// [`heuristic`] or [`heuristic_into`].
///
/// # Safety
///
/// Every handle and descriptor is live; `alpha` and `beta` point to values
/// of the descriptor's scale type (host or device, by its pointer mode);
/// `a`, `b`, `c`, `d` and the descriptor's bias pointer are device memory
/// on the stream's device that their layouts fit in; `algo` points to an
/// algorithm for these descriptors; `workspace` holds `workspace_size`
/// bytes; all of it stays valid until the stream has run the matmul.
#[allow(clippy::too_many_arguments)]
pub unsafe fn matmul_ex(
    handle: hipblasLtHandle_t,
    desc: hipblasLtMatmulDesc_t,
    alpha: *const c_void,
    a: *const c_void,
    a_layout: hipblasLtMatrixLayout_t,
    b: *const c_void,
    b_layout: hipblasLtMatrixLayout_t,
    beta: *const c_void,
    c: *const c_void,
    c_layout: hipblasLtMatrixLayout_t,
    d: *mut c_void,
    d_layout: hipblasLtMatrixLayout_t,
    algo: *const hipblasLtMatmulAlgo_t,
    workspace: *mut c_void,
    workspace_size: usize,
    stream: hipStream_t,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasLtMatmul", unsafe {
        sys::hipblasLtMatmul(
            handle,
            desc,
            alpha,
            a,
            a_layout,
            b,
            b_layout,
            beta,
            c,
            c_layout,
            d,
            d_layout,
            algo,
            workspace,
            workspace_size,
            stream,
        )
    })
}
