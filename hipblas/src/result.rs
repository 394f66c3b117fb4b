//! The thin layer between hipBLAS's raw functions and [`crate::Blas`]: one
//! function per C function the safe layer calls, taking the raw
//! `hipblas_sys` types and returning a [`Result`] whose error names the C
//! function ([`Error::Blas`]) or, when no library could be loaded, carries
//! the loader's report ([`Error::Load`]).
//!
//! Nothing else in this crate calls a `hipblas_sys` function (a unit test
//! checks the sources). Use these for calls [`crate::Blas`] does not make,
//! on the handle of [`crate::Blas::as_raw`]. Each function is named after
//! its C function without the `hipblas` prefix (`hipblasSgemm` ->
//! [`sgemm`], `hipblasGemmEx_v2` -> [`gemm_ex_v2`]). The typed
//! [`Gemm`] impls are here too: their constants name the C
//! functions their calls make.
//!
//! ```no_run
//! # fn main() -> Result<(), hipblas::Error> {
//! use hipblas::result;
//! let dev = hip::Device::get(0)?;
//! // Making and destroying a handle acts on the whole device: not during
//! // another thread's capture.
//! let held = dev.hold_captures("example")?;
//! let handle = result::create(&held)?;
//! // SAFETY: `handle` was made by `create` and is destroyed once, here.
//! unsafe { result::destroy(handle, &held) }?;
//! # Ok(()) }
//! ```
//!
//! # Safety
//!
//! The `unsafe` functions take a handle and pointers as the C API does.
//! For each: `handle` is live (made by [`create`], not yet destroyed) and
//! used by one thread at a time; every device pointer is memory of the
//! handle's device spanning what the shape, leading dimensions and
//! increments make hipBLAS read or write, alive until that work is done on
//! the handle's stream; scalars and results are host pointers (the handle's
//! default pointer mode) valid for the call.

use crate::error::{Error, Result};
use crate::scalar::{c32, c64, Gemm, GemmRoute};
use hipblas_sys as sys;
use hipblas_sys::{
    hipComplex, hipDataType, hipDoubleComplex, hipStream_t, hipblasComputeType_t,
    hipblasDatatype_t, hipblasDiagType_t, hipblasFillMode_t, hipblasGemmAlgo_t, hipblasHalf,
    hipblasHandle_t, hipblasMath_t, hipblasOperation_t, hipblasPointerMode_t, hipblasSideMode_t,
    hipblasStatus_t, hipblasStride,
};
use std::ffi::{c_int, c_longlong, c_void, CStr};

/// The loaded hipBLAS (cuBLAS behind it on NVIDIA), loading it on first
/// use, or [`Error::Load`] with every path tried.
pub fn library() -> Result<&'static sys::loader::Hipblas> {
    sys::loader::hipblas().map_err(|e| Error::Load(e.clone()))
}

/// `Ok(())` for `HIPBLAS_STATUS_SUCCESS`; else [`Error::Blas`] naming
/// `call`, or [`Error::Load`] when the status says that no library could be
/// loaded. For raw calls made outside this module.
pub fn check(call: &'static str, status: hipblasStatus_t) -> Result<()> {
    if status.is_success() {
        return Ok(());
    }
    Err(failure(call, status))
}

#[cold]
#[inline(never)]
fn failure(call: &'static str, status: hipblasStatus_t) -> Error {
    if status == hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED {
        if let Err(e) = library() {
            return e;
        }
    }
    Error::Blas {
        call,
        status,
        message: status_message(status),
    }
}

/// The library's words for `status` (`hipblasStatusToString`) when a
/// library that has the function is loaded, else hipBLAS's description
/// of the status from its header.
pub fn status_message(status: hipblasStatus_t) -> String {
    let bound = library().is_ok_and(|l| l.is_available("hipblasStatusToString"));
    if bound {
        // SAFETY: takes a value; returns null or a static NUL-terminated
        // string owned by the library.
        let p = unsafe { sys::hipblasStatusToString(status) };
        if !p.is_null() {
            // SAFETY: non-null, NUL-terminated and static (above).
            let text = unsafe { CStr::from_ptr(p) }.to_string_lossy();
            let text = text.trim();
            // hipBLAS's text is often the status's name alone, which the
            // error already shows: then the description says more.
            if !text.is_empty() && text != format!("{status:?}") {
                return text.to_string();
            }
        }
    }
    status.description().to_string()
}

// ---- the handle ------------------------------------------------------------

/// `hipblasCreate`: a new handle on the current device, on the null stream.
///
/// It may act on the whole device, which CUDA forbids during any capture
/// of the device: `_held` proves the caller holds the device's capture
/// gate ([`hip::Device::hold_captures`], or
/// [`hip::Device::release_outside_captures`] in `Drop`).
pub fn create(_held: &hip::CaptureHold<'_>) -> Result<hipblasHandle_t> {
    library()?;
    let mut handle: hipblasHandle_t = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    check("hipblasCreate", unsafe { sys::hipblasCreate(&mut handle) })?;
    Ok(handle)
}

/// `hipblasDestroy`.
///
/// # Safety
///
/// `handle` was made by [`create`], is not used after this call and is
/// destroyed once. As [`create`], `_held` proves the capture gate is held.
pub unsafe fn destroy(handle: hipblasHandle_t, _held: &hip::CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasDestroy", unsafe { sys::hipblasDestroy(handle) })
}

/// `hipblasSetStream`: the stream the handle's work is enqueued on.
///
/// # Safety
///
/// `handle` is live; `stream` is a stream of the handle's device (or null)
/// that outlives the handle's use of it.
pub unsafe fn set_stream(handle: hipblasHandle_t, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasSetStream", unsafe {
        sys::hipblasSetStream(handle, stream)
    })
}

/// `hipblasSetMathMode`.
///
/// # Safety
///
/// `handle` is live.
pub unsafe fn set_math_mode(handle: hipblasHandle_t, mode: hipblasMath_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasSetMathMode", unsafe {
        sys::hipblasSetMathMode(handle, mode)
    })
}

/// `hipblasGetMathMode`.
///
/// # Safety
///
/// `handle` is live.
pub unsafe fn get_math_mode(handle: hipblasHandle_t) -> Result<hipblasMath_t> {
    let mut mode = hipblasMath_t::HIPBLAS_DEFAULT_MATH;
    // SAFETY: the caller's contract; `mode` is a valid out-pointer.
    check("hipblasGetMathMode", unsafe {
        sys::hipblasGetMathMode(handle, &mut mode)
    })?;
    Ok(mode)
}

/// `hipblasSetPointerMode`: whether scalars and results are host
/// (`HIPBLAS_POINTER_MODE_HOST`, the default) or device pointers.
///
/// # Safety
///
/// `handle` is live; the calls made afterwards pass scalars and results
/// where `mode` says they are.
pub unsafe fn set_pointer_mode(handle: hipblasHandle_t, mode: hipblasPointerMode_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipblasSetPointerMode", unsafe {
        sys::hipblasSetPointerMode(handle, mode)
    })
}

/// `hipblasGetPointerMode`.
///
/// # Safety
///
/// `handle` is live.
pub unsafe fn get_pointer_mode(handle: hipblasHandle_t) -> Result<hipblasPointerMode_t> {
    let mut mode = hipblasPointerMode_t::HIPBLAS_POINTER_MODE_HOST;
    // SAFETY: the caller's contract; `mode` is a valid out-pointer.
    check("hipblasGetPointerMode", unsafe {
        sys::hipblasGetPointerMode(handle, &mut mode)
    })?;
    Ok(mode)
}

// ---- typed routines ----------------------------------------------------------

/// One wrapper: `$name` calls `$c` with its arguments and checks the status.
macro_rules! raw {
    ($what:literal, $name:ident = $c:ident($($arg:ident: $ty:ty),* $(,)?)) => {
        #[doc = concat!("`", stringify!($c), "`: ", $what, ".")]
        ///
        /// # Safety
        ///
        /// As the [module's](self#safety): a live handle, device pointers
        /// spanning the arguments' shape, valid host scalars and results.
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name($($arg: $ty),*) -> Result<()> {
            // SAFETY: the caller's contract.
            check(stringify!($c), unsafe { sys::$c($($arg),*) })
        }
    };
}

macro_rules! axpy {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("`y = alpha x + y`", $name = $c(handle: hipblasHandle_t, n: c_int,
            alpha: *const $t, x: *const $t, incx: c_int, y: *mut $t, incy: c_int));
    )*};
}
axpy! {
    saxpy = hipblasSaxpy(f32);
    daxpy = hipblasDaxpy(f64);
    caxpy_v2 = hipblasCaxpy_v2(hipComplex);
    zaxpy_v2 = hipblasZaxpy_v2(hipDoubleComplex);
}

macro_rules! dot {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("the unconjugated dot product into `result`", $name = $c(handle: hipblasHandle_t,
            n: c_int, x: *const $t, incx: c_int, y: *const $t, incy: c_int, result: *mut $t));
    )*};
}
dot! {
    sdot = hipblasSdot(f32);
    ddot = hipblasDdot(f64);
    cdotu_v2 = hipblasCdotu_v2(hipComplex);
    zdotu_v2 = hipblasZdotu_v2(hipDoubleComplex);
}

macro_rules! reduce {
    ($what:literal; $($name:ident = $c:ident($t:ty, $r:ty);)*) => {$(
        raw!($what, $name = $c(handle: hipblasHandle_t, n: c_int, x: *const $t, incx: c_int,
            result: *mut $r));
    )*};
}
reduce! {
    "the Euclidean norm into `result`";
    snrm2 = hipblasSnrm2(f32, f32);
    dnrm2 = hipblasDnrm2(f64, f64);
    scnrm2_v2 = hipblasScnrm2_v2(hipComplex, f32);
    dznrm2_v2 = hipblasDznrm2_v2(hipDoubleComplex, f64);
}
reduce! {
    "the sum of magnitudes into `result`";
    sasum = hipblasSasum(f32, f32);
    dasum = hipblasDasum(f64, f64);
    scasum_v2 = hipblasScasum_v2(hipComplex, f32);
    dzasum_v2 = hipblasDzasum_v2(hipDoubleComplex, f64);
}
reduce! {
    "the 1-based index of the first largest magnitude into `result`";
    isamax = hipblasIsamax(f32, c_int);
    idamax = hipblasIdamax(f64, c_int);
    icamax_v2 = hipblasIcamax_v2(hipComplex, c_int);
    izamax_v2 = hipblasIzamax_v2(hipDoubleComplex, c_int);
}

macro_rules! scal {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("`x = alpha x`", $name = $c(handle: hipblasHandle_t, n: c_int, alpha: *const $t,
            x: *mut $t, incx: c_int));
    )*};
}
scal! {
    sscal = hipblasSscal(f32);
    dscal = hipblasDscal(f64);
    cscal_v2 = hipblasCscal_v2(hipComplex);
    zscal_v2 = hipblasZscal_v2(hipDoubleComplex);
}

macro_rules! copy {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("`y = x`", $name = $c(handle: hipblasHandle_t, n: c_int, x: *const $t,
            incx: c_int, y: *mut $t, incy: c_int));
    )*};
}
copy! {
    scopy = hipblasScopy(f32);
    dcopy = hipblasDcopy(f64);
    ccopy_v2 = hipblasCcopy_v2(hipComplex);
    zcopy_v2 = hipblasZcopy_v2(hipDoubleComplex);
}

macro_rules! swap {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("exchanges `x` and `y`", $name = $c(handle: hipblasHandle_t, n: c_int,
            x: *mut $t, incx: c_int, y: *mut $t, incy: c_int));
    )*};
}
swap! {
    sswap = hipblasSswap(f32);
    dswap = hipblasDswap(f64);
    cswap_v2 = hipblasCswap_v2(hipComplex);
    zswap_v2 = hipblasZswap_v2(hipDoubleComplex);
}

macro_rules! gemv {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("`y = alpha op(A) x + beta y`", $name = $c(handle: hipblasHandle_t,
            trans: hipblasOperation_t, m: c_int, n: c_int, alpha: *const $t, a: *const $t,
            lda: c_int, x: *const $t, incx: c_int, beta: *const $t, y: *mut $t, incy: c_int));
    )*};
}
gemv! {
    sgemv = hipblasSgemv(f32);
    dgemv = hipblasDgemv(f64);
    cgemv_v2 = hipblasCgemv_v2(hipComplex);
    zgemv_v2 = hipblasZgemv_v2(hipDoubleComplex);
}

macro_rules! trsm {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("solves a triangular system, overwriting `b`", $name = $c(handle: hipblasHandle_t,
            side: hipblasSideMode_t, uplo: hipblasFillMode_t, trans: hipblasOperation_t,
            diag: hipblasDiagType_t, m: c_int, n: c_int, alpha: *const $t, a: *const $t,
            lda: c_int, b: *mut $t, ldb: c_int));
    )*};
}
trsm! {
    strsm = hipblasStrsm(f32);
    dtrsm = hipblasDtrsm(f64);
    ctrsm_v2 = hipblasCtrsm_v2(hipComplex);
    ztrsm_v2 = hipblasZtrsm_v2(hipDoubleComplex);
}

macro_rules! gemm {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("`C = alpha op(A) op(B) + beta C`", $name = $c(handle: hipblasHandle_t,
            transa: hipblasOperation_t, transb: hipblasOperation_t, m: c_int, n: c_int,
            k: c_int, alpha: *const $t, a: *const $t, lda: c_int, b: *const $t, ldb: c_int,
            beta: *const $t, c: *mut $t, ldc: c_int));
    )*};
}
gemm! {
    sgemm = hipblasSgemm(f32);
    dgemm = hipblasDgemm(f64);
    hgemm = hipblasHgemm(hipblasHalf);
    cgemm_v2 = hipblasCgemm_v2(hipComplex);
    zgemm_v2 = hipblasZgemm_v2(hipDoubleComplex);
}

macro_rules! gemm_strided_batched {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("`batch_count` GEMMs whose matrices lie `stride_*` elements apart",
            $name = $c(handle: hipblasHandle_t, transa: hipblasOperation_t,
            transb: hipblasOperation_t, m: c_int, n: c_int, k: c_int, alpha: *const $t,
            a: *const $t, lda: c_int, stride_a: c_longlong, b: *const $t, ldb: c_int,
            stride_b: c_longlong, beta: *const $t, c: *mut $t, ldc: c_int,
            stride_c: c_longlong, batch_count: c_int));
    )*};
}
gemm_strided_batched! {
    sgemm_strided_batched = hipblasSgemmStridedBatched(f32);
    dgemm_strided_batched = hipblasDgemmStridedBatched(f64);
    hgemm_strided_batched = hipblasHgemmStridedBatched(hipblasHalf);
    cgemm_strided_batched_v2 = hipblasCgemmStridedBatched_v2(hipComplex);
    zgemm_strided_batched_v2 = hipblasZgemmStridedBatched_v2(hipDoubleComplex);
}

macro_rules! gemm_batched {
    ($($name:ident = $c:ident($t:ty);)*) => {$(
        raw!("`batch_count` GEMMs over device arrays of matrix pointers",
            $name = $c(handle: hipblasHandle_t, transa: hipblasOperation_t,
            transb: hipblasOperation_t, m: c_int, n: c_int, k: c_int, alpha: *const $t,
            a: *const *const $t, lda: c_int, b: *const *const $t, ldb: c_int,
            beta: *const $t, c: *const *mut $t, ldc: c_int, batch_count: c_int));
    )*};
}
gemm_batched! {
    sgemm_batched = hipblasSgemmBatched(f32);
    dgemm_batched = hipblasDgemmBatched(f64);
    hgemm_batched = hipblasHgemmBatched(hipblasHalf);
    cgemm_batched_v2 = hipblasCgemmBatched_v2(hipComplex);
    zgemm_batched_v2 = hipblasZgemmBatched_v2(hipDoubleComplex);
}

// ---- GEMM by element type -----------------------------------------------------

// The typed `Gemm` impls: each element type's GEMM functions above, and
// the C functions they name in their errors (bf16, which has no typed
// GEMM, is in `scalar.rs`).
macro_rules! gemm_typed {
    ($t:ty, $raw:ty, $g:ident = $gc:ident, $sb:ident = $sbc:ident, $b:ident = $bc:ident) => {
        impl Gemm for $t {
            const ROUTE: GemmRoute = GemmRoute::Typed;
            // The C functions behind the calls below, which name them in
            // their errors.
            const GEMM_CALL: &'static str = stringify!($gc);
            const GEMM_STRIDED_BATCHED_CALL: &'static str = stringify!($sbc);
            const GEMM_BATCHED_CALL: &'static str = stringify!($bc);
            unsafe fn gemm(
                h: hipblasHandle_t,
                ta: hipblasOperation_t,
                tb: hipblasOperation_t,
                m: i32,
                n: i32,
                k: i32,
                alpha: &Self,
                a: *const Self,
                lda: i32,
                b: *const Self,
                ldb: i32,
                beta: &Self,
                c: *mut Self,
                ldc: i32,
            ) -> Result<()> {
                // SAFETY: the caller's contract; `Self` and `$raw` have one
                // layout.
                unsafe {
                    $g(
                        h,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        alpha as *const Self as *const $raw,
                        a as *const $raw,
                        lda,
                        b as *const $raw,
                        ldb,
                        beta as *const Self as *const $raw,
                        c as *mut $raw,
                        ldc,
                    )
                }
            }
            unsafe fn gemm_strided_batched(
                h: hipblasHandle_t,
                ta: hipblasOperation_t,
                tb: hipblasOperation_t,
                m: i32,
                n: i32,
                k: i32,
                alpha: &Self,
                a: *const Self,
                lda: i32,
                sa: i64,
                b: *const Self,
                ldb: i32,
                sb: i64,
                beta: &Self,
                c: *mut Self,
                ldc: i32,
                sc: i64,
                batch: i32,
            ) -> Result<()> {
                // SAFETY: as in `gemm`.
                unsafe {
                    $sb(
                        h,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        alpha as *const Self as *const $raw,
                        a as *const $raw,
                        lda,
                        sa,
                        b as *const $raw,
                        ldb,
                        sb,
                        beta as *const Self as *const $raw,
                        c as *mut $raw,
                        ldc,
                        sc,
                        batch,
                    )
                }
            }
            unsafe fn gemm_batched(
                h: hipblasHandle_t,
                ta: hipblasOperation_t,
                tb: hipblasOperation_t,
                m: i32,
                n: i32,
                k: i32,
                alpha: &Self,
                a: *const *const Self,
                lda: i32,
                b: *const *const Self,
                ldb: i32,
                beta: &Self,
                c: *const *mut Self,
                ldc: i32,
                batch: i32,
            ) -> Result<()> {
                // SAFETY: as in `gemm`.
                unsafe {
                    $b(
                        h,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        alpha as *const Self as *const $raw,
                        a as *const *const $raw,
                        lda,
                        b as *const *const $raw,
                        ldb,
                        beta as *const Self as *const $raw,
                        c as *const *mut $raw,
                        ldc,
                        batch,
                    )
                }
            }
        }
    };
}
gemm_typed!(
    f32,
    f32,
    sgemm = hipblasSgemm,
    sgemm_strided_batched = hipblasSgemmStridedBatched,
    sgemm_batched = hipblasSgemmBatched
);
gemm_typed!(
    f64,
    f64,
    dgemm = hipblasDgemm,
    dgemm_strided_batched = hipblasDgemmStridedBatched,
    dgemm_batched = hipblasDgemmBatched
);
gemm_typed!(
    half::f16,
    hipblasHalf,
    hgemm = hipblasHgemm,
    hgemm_strided_batched = hipblasHgemmStridedBatched,
    hgemm_batched = hipblasHgemmBatched
);
gemm_typed!(
    c32,
    hipComplex,
    cgemm_v2 = hipblasCgemm_v2,
    cgemm_strided_batched_v2 = hipblasCgemmStridedBatched_v2,
    cgemm_batched_v2 = hipblasCgemmBatched_v2
);
gemm_typed!(
    c64,
    hipDoubleComplex,
    zgemm_v2 = hipblasZgemm_v2,
    zgemm_strided_batched_v2 = hipblasZgemmStridedBatched_v2,
    zgemm_batched_v2 = hipblasZgemmBatched_v2
);

// ---- mixed precision (`Ex`), both ABIs -------------------------------------------

raw!("mixed-precision GEMM, v1 ABI (`hipblasDatatype_t` types)",
    gemm_ex = hipblasGemmEx(handle: hipblasHandle_t, transa: hipblasOperation_t,
    transb: hipblasOperation_t, m: c_int, n: c_int, k: c_int, alpha: *const c_void,
    a: *const c_void, a_type: hipblasDatatype_t, lda: c_int, b: *const c_void,
    b_type: hipblasDatatype_t, ldb: c_int, beta: *const c_void, c: *mut c_void,
    c_type: hipblasDatatype_t, ldc: c_int, compute_type: hipblasDatatype_t,
    algo: hipblasGemmAlgo_t));

raw!("mixed-precision GEMM, v2 ABI (`hipDataType` and `hipblasComputeType_t`)",
    gemm_ex_v2 = hipblasGemmEx_v2(handle: hipblasHandle_t, transa: hipblasOperation_t,
    transb: hipblasOperation_t, m: c_int, n: c_int, k: c_int, alpha: *const c_void,
    a: *const c_void, a_type: hipDataType, lda: c_int, b: *const c_void, b_type: hipDataType,
    ldb: c_int, beta: *const c_void, c: *mut c_void, c_type: hipDataType, ldc: c_int,
    compute_type: hipblasComputeType_t, algo: hipblasGemmAlgo_t));

raw!("strided-batched mixed-precision GEMM, v1 ABI",
    gemm_strided_batched_ex = hipblasGemmStridedBatchedEx(handle: hipblasHandle_t,
    transa: hipblasOperation_t, transb: hipblasOperation_t, m: c_int, n: c_int, k: c_int,
    alpha: *const c_void, a: *const c_void, a_type: hipblasDatatype_t, lda: c_int,
    stride_a: hipblasStride, b: *const c_void, b_type: hipblasDatatype_t, ldb: c_int,
    stride_b: hipblasStride, beta: *const c_void, c: *mut c_void, c_type: hipblasDatatype_t,
    ldc: c_int, stride_c: hipblasStride, batch_count: c_int, compute_type: hipblasDatatype_t,
    algo: hipblasGemmAlgo_t));

raw!("strided-batched mixed-precision GEMM, v2 ABI",
    gemm_strided_batched_ex_v2 = hipblasGemmStridedBatchedEx_v2(handle: hipblasHandle_t,
    transa: hipblasOperation_t, transb: hipblasOperation_t, m: c_int, n: c_int, k: c_int,
    alpha: *const c_void, a: *const c_void, a_type: hipDataType, lda: c_int,
    stride_a: hipblasStride, b: *const c_void, b_type: hipDataType, ldb: c_int,
    stride_b: hipblasStride, beta: *const c_void, c: *mut c_void, c_type: hipDataType,
    ldc: c_int, stride_c: hipblasStride, batch_count: c_int,
    compute_type: hipblasComputeType_t, algo: hipblasGemmAlgo_t));

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    /// Where `text` (comments removed) calls a function named `hipblas...`
    /// with a capital after the prefix (every raw hipBLAS function), or the
    /// loader's `hipblas()`.
    fn raw_calls(text: &str) -> Vec<String> {
        let mut found = Vec::new();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            let mut rest = code;
            while let Some(at) = rest.find("hipblas") {
                let after = &rest[at + "hipblas".len()..];
                let end = after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                let (ident, tail) = after.split_at(end);
                let raw_name = ident.starts_with(|c: char| c.is_ascii_uppercase());
                if tail.starts_with('(') && (raw_name || ident.is_empty()) {
                    found.push(format!("hipblas{ident}("));
                }
                rest = after;
            }
        }
        found
    }

    fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    #[test]
    fn the_scan_finds_raw_calls_and_skips_the_rest() {
        let text = "unsafe { hipblasSgemm(h) }\nlet l = loader::hipblas()?;\n\
                    // hipblasDgemm(h) in a comment\nlet s = \"hipblas<T>gemm\";\n\
                    result::sgemm(h); hipblas_sys::hipblasHandle_t";
        assert_eq!(raw_calls(text), ["hipblasSgemm(", "hipblas("]);
    }

    /// Only this module calls into hipBLAS: every other source file of the
    /// crate goes through it.
    #[test]
    fn nothing_else_in_src_calls_the_raw_functions() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        let others: Vec<_> = files
            .iter()
            .filter(|p| p.file_name().is_some_and(|n| n != "result.rs"))
            .collect();
        assert!(others.len() >= 9, "{others:?}");
        for path in others {
            let text = std::fs::read_to_string(path).unwrap();
            let calls = raw_calls(&text);
            assert!(calls.is_empty(), "{} calls {calls:?}", path.display());
        }
        let this = std::fs::read_to_string(src.join("result.rs")).unwrap();
        assert!(
            !raw_calls(&this).is_empty(),
            "the scan sees this module's calls"
        );
    }

    #[test]
    fn a_failure_names_its_call_and_status() {
        let e = check(
            "hipblasSgemm",
            hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE,
        )
        .unwrap_err();
        assert!(check("hipblasSgemm", hipblasStatus_t::HIPBLAS_STATUS_SUCCESS).is_ok());
        match &e {
            Error::Blas {
                call,
                status,
                message,
            } => {
                assert_eq!(*call, "hipblasSgemm");
                assert_eq!(*status, hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE);
                assert!(!message.is_empty());
                assert_eq!(
                    e.to_string(),
                    format!("hipblasSgemm failed with HIPBLAS_STATUS_INVALID_VALUE (3): {message}")
                );
                assert_ne!(
                    message.as_str(),
                    "HIPBLAS_STATUS_INVALID_VALUE",
                    "the name twice"
                );
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(e.call(), Some("hipblasSgemm"));
    }

    #[test]
    fn without_a_library_not_initialized_is_the_load_error() {
        let e = check(
            "hipblasCreate",
            hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED,
        )
        .unwrap_err();
        match library() {
            Err(Error::Load(want)) => {
                assert!(matches!(&e, Error::Load(got) if *got == want), "{e:?}")
            }
            Err(other) => panic!("{other:?}"),
            Ok(_) => assert!(matches!(e, Error::Blas { .. }), "{e:?}"),
        }
    }
}
