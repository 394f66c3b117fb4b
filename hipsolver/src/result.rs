//! The result layer: one thin function per hipSOLVER call the safe types
//! make, each turning the status into a [`Result`] ([`Error::Solver`] with
//! the call's name) and size queries into return values. Handles and
//! device pointers stay raw: [`Solver`](crate::Solver) is the safe owner.
//!
//! This is the only place in the crate that calls `hipsolver_sys`'s
//! functions. The per-precision routines are the methods of [`Lapack`],
//! implemented for `f32`, `f64`, [`c32`] and [`c64`] on the
//! cuSOLVER-compatible `hipsolverDn*` API (the one every backend maps one
//! to one). Every function is `unsafe` where the call's soundness depends
//! on its arguments; its `# Safety` section says what must hold.

use crate::error::{Error, Result};
use hip::{c32, c64};
use hipsolver_sys as sys;
use hipsolver_sys::{
    hipStream_t, hipblasFillMode_t, hipblasOperation_t, hipblasSideMode_t, hipsolverAlgMode_t,
    hipsolverDeterministicMode_t, hipsolverDnFunction_t, hipsolverDnParams_t, hipsolverEigMode_t,
    hipsolverGesvdjInfo_t, hipsolverHandle_t, hipsolverRfFactorization_t, hipsolverRfHandle_t,
    hipsolverRfMatrixFormat_t, hipsolverRfResetValuesFastMode_t, hipsolverRfTriangularSolve_t,
    hipsolverRfUnitDiagonal_t, hipsolverSpHandle_t, hipsolverStatus_t, hipsolverSyevjInfo_t,
};
use std::ffi::{c_int, c_schar};

/// The loaded hipSOLVER (cuSOLVER on the NVIDIA platform), or
/// [`Error::Load`] with every path tried.
pub fn library() -> Result<&'static sys::loader::Hipsolver> {
    sys::loader::hipsolver().map_err(|e| Error::Load(e.clone()))
}

/// `Ok(())` for `HIPSOLVER_STATUS_SUCCESS`, else [`Error::Solver`] naming
/// `call` (see [`Error::from_solver`]).
#[inline]
pub fn check(call: &'static str, status: hipsolverStatus_t) -> Result<()> {
    if status.is_success() {
        Ok(())
    } else {
        Err(Error::from_solver(call, status))
    }
}

/// `hipsolverDnCreate`: a new handle (destroy it with [`destroy`]).
///
/// It may act on the whole device, which CUDA forbids during any capture
/// of the device: `_held` proves the caller holds the device's capture
/// gate ([`hip::Device::hold_captures`], or
/// [`hip::Device::release_outside_captures`] in `Drop`).
pub fn create(_held: &hip::CaptureHold<'_>) -> Result<hipsolverHandle_t> {
    let mut handle: hipsolverHandle_t = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    check("hipsolverDnCreate", unsafe {
        sys::hipsolverDnCreate(&mut handle)
    })?;
    Ok(handle)
}

/// `hipsolverDnDestroy`.
///
/// # Safety
///
/// `handle` was made by [`create`], is not used after this call, and is
/// destroyed once. As [`create`], `_held` proves the capture gate is held.
pub unsafe fn destroy(handle: hipsolverHandle_t, _held: &hip::CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverDnDestroy", unsafe {
        sys::hipsolverDnDestroy(handle)
    })
}

/// `hipsolverDnSetStream`: the handle's work is enqueued on `stream`.
///
/// # Safety
///
/// `handle` is live and `stream` outlives every call made with it.
pub unsafe fn set_stream(handle: hipsolverHandle_t, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverDnSetStream", unsafe {
        sys::hipsolverDnSetStream(handle, stream)
    })
}

/// `hipsolverDnGetDeterministicMode`: whether the handle's routines give
/// the same results run after run.
///
/// # Safety
///
/// `handle` is live.
pub unsafe fn get_deterministic_mode(
    handle: hipsolverHandle_t,
) -> Result<hipsolverDeterministicMode_t> {
    let mut mode = hipsolverDeterministicMode_t::HIPSOLVER_DETERMINISTIC_RESULTS;
    // SAFETY: the caller's contract; `mode` is a valid place for the mode.
    check("hipsolverDnGetDeterministicMode", unsafe {
        sys::hipsolverDnGetDeterministicMode(handle, &mut mode)
    })?;
    Ok(mode)
}

/// `hipsolverDnSetDeterministicMode`.
///
/// # Safety
///
/// `handle` is live.
pub unsafe fn set_deterministic_mode(
    handle: hipsolverHandle_t,
    mode: hipsolverDeterministicMode_t,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverDnSetDeterministicMode", unsafe {
        sys::hipsolverDnSetDeterministicMode(handle, mode)
    })
}

/// `hipsolverDnCreateParams`: the 64-bit API's options at their defaults
/// (destroy them with [`destroy_params`]).
pub fn create_params() -> Result<hipsolverDnParams_t> {
    let mut params: hipsolverDnParams_t = std::ptr::null_mut();
    // SAFETY: `params` is a valid place for the new options.
    check("hipsolverDnCreateParams", unsafe {
        sys::hipsolverDnCreateParams(&mut params)
    })?;
    Ok(params)
}

/// `hipsolverDnSetAdvOptions`: the algorithm `function` uses.
///
/// # Safety
///
/// `params` is live (made by [`create_params`], not yet destroyed).
pub unsafe fn set_adv_options(
    params: hipsolverDnParams_t,
    function: hipsolverDnFunction_t,
    algo: hipsolverAlgMode_t,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverDnSetAdvOptions", unsafe {
        sys::hipsolverDnSetAdvOptions(params, function, algo)
    })
}

/// `hipsolverDnDestroyParams`.
///
/// # Safety
///
/// `params` was made by [`create_params`], is not used after this call,
/// and is destroyed once.
pub unsafe fn destroy_params(params: hipsolverDnParams_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverDnDestroyParams", unsafe {
        sys::hipsolverDnDestroyParams(params)
    })
}

/// `hipsolverSpCreate`: a new sparse handle (destroy it with
/// [`sp_destroy`]).
///
/// As [`create`], it may act on the whole device: `_held` proves the
/// caller holds the device's capture gate.
pub fn sp_create(_held: &hip::CaptureHold<'_>) -> Result<hipsolverSpHandle_t> {
    let mut handle: hipsolverSpHandle_t = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    check("hipsolverSpCreate", unsafe {
        sys::hipsolverSpCreate(&mut handle)
    })?;
    Ok(handle)
}

/// `hipsolverSpDestroy`.
///
/// # Safety
///
/// `handle` was made by [`sp_create`], is not used after this call, and is
/// destroyed once. As [`create`], `_held` proves the capture gate is held.
pub unsafe fn sp_destroy(handle: hipsolverSpHandle_t, _held: &hip::CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverSpDestroy", unsafe {
        sys::hipsolverSpDestroy(handle)
    })
}

/// `hipsolverSpSetStream`: the sparse handle's work is enqueued on
/// `stream`.
///
/// # Safety
///
/// `handle` is live and `stream` outlives every call made with it.
pub unsafe fn sp_set_stream(handle: hipsolverSpHandle_t, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverSpSetStream", unsafe {
        sys::hipsolverSpSetStream(handle, stream)
    })
}

/// `hipsolverRfCreate`: a new refactorization handle (destroy it with
/// [`rf_destroy`]).
///
/// As [`create`], it may act on the whole device: `_held` proves the
/// caller holds the device's capture gate.
pub fn rf_create(_held: &hip::CaptureHold<'_>) -> Result<hipsolverRfHandle_t> {
    let mut handle: hipsolverRfHandle_t = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    check("hipsolverRfCreate", unsafe {
        sys::hipsolverRfCreate(&mut handle)
    })?;
    Ok(handle)
}

/// `hipsolverRfDestroy`.
///
/// # Safety
///
/// `handle` was made by [`rf_create`], is not used after this call, and is
/// destroyed once. As [`create`], `_held` proves the capture gate is held.
pub unsafe fn rf_destroy(handle: hipsolverRfHandle_t, _held: &hip::CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverRfDestroy", unsafe {
        sys::hipsolverRfDestroy(handle)
    })
}

/// `hipsolverRfSetMatrixFormat`: the layout of the matrices given to the
/// setup and extract calls.
///
/// # Safety
///
/// `handle` is live.
pub unsafe fn rf_set_matrix_format(
    handle: hipsolverRfHandle_t,
    format: hipsolverRfMatrixFormat_t,
    diag: hipsolverRfUnitDiagonal_t,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverRfSetMatrixFormat", unsafe {
        sys::hipsolverRfSetMatrixFormat(handle, format, diag)
    })
}

/// `hipsolverRfSetNumericProperties`: the value below which a pivot is
/// zero, and the value that replaces it.
///
/// # Safety
///
/// `handle` is live.
pub unsafe fn rf_set_numeric_properties(
    handle: hipsolverRfHandle_t,
    zero: f64,
    boost: f64,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverRfSetNumericProperties", unsafe {
        sys::hipsolverRfSetNumericProperties(handle, zero, boost)
    })
}

/// `hipsolverRfSetResetValuesFastMode`.
///
/// # Safety
///
/// `handle` is live.
pub unsafe fn rf_set_reset_values_fast_mode(
    handle: hipsolverRfHandle_t,
    fast_mode: hipsolverRfResetValuesFastMode_t,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverRfSetResetValuesFastMode", unsafe {
        sys::hipsolverRfSetResetValuesFastMode(handle, fast_mode)
    })
}

/// `hipsolverRfSetAlgs`: the factorization and triangular solve
/// algorithms.
///
/// # Safety
///
/// `handle` is live.
pub unsafe fn rf_set_algs(
    handle: hipsolverRfHandle_t,
    fact_alg: hipsolverRfFactorization_t,
    solve_alg: hipsolverRfTriangularSolve_t,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverRfSetAlgs", unsafe {
        sys::hipsolverRfSetAlgs(handle, fact_alg, solve_alg)
    })
}

/// `hipsolverDnCreateGesvdjInfo`: Jacobi SVD parameters at their defaults.
pub fn create_gesvdj_info() -> Result<hipsolverGesvdjInfo_t> {
    let mut info: hipsolverGesvdjInfo_t = std::ptr::null_mut();
    // SAFETY: `info` is a valid place for the new parameters.
    check("hipsolverDnCreateGesvdjInfo", unsafe {
        sys::hipsolverDnCreateGesvdjInfo(&mut info)
    })?;
    Ok(info)
}

/// `hipsolverDnDestroyGesvdjInfo`.
///
/// # Safety
///
/// `info` was made by [`create_gesvdj_info`] and is destroyed once, after
/// the calls that use it were enqueued.
pub unsafe fn destroy_gesvdj_info(info: hipsolverGesvdjInfo_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverDnDestroyGesvdjInfo", unsafe {
        sys::hipsolverDnDestroyGesvdjInfo(info)
    })
}

/// `hipsolverDnCreateSyevjInfo`: Jacobi eigensolver parameters at their
/// defaults.
pub fn create_syevj_info() -> Result<hipsolverSyevjInfo_t> {
    let mut info: hipsolverSyevjInfo_t = std::ptr::null_mut();
    // SAFETY: `info` is a valid place for the new parameters.
    check("hipsolverDnCreateSyevjInfo", unsafe {
        sys::hipsolverDnCreateSyevjInfo(&mut info)
    })?;
    Ok(info)
}

/// `hipsolverDnDestroySyevjInfo`.
///
/// # Safety
///
/// `info` was made by [`create_syevj_info`] and is destroyed once.
pub unsafe fn destroy_syevj_info(info: hipsolverSyevjInfo_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipsolverDnDestroySyevjInfo", unsafe {
        sys::hipsolverDnDestroySyevjInfo(info)
    })
}

/// The per-precision hipSOLVER routines (`S`, `D`, `C`, `Z`), each one
/// call. Sizes are `c_int`; workspace sizes are in elements of `Self`.
///
/// # Safety of every method
///
/// `handle` is live; every pointer is a device pointer on the handle's
/// device to a buffer that holds what the leading dimensions and sizes
/// given reach (or null where the routine does not read it: `u`/`v` when no
/// vectors are asked for); `work` holds the size the matching size query
/// returned; `info` holds one `c_int` (one per matrix when batched).
#[allow(clippy::too_many_arguments, clippy::missing_safety_doc)]
pub trait Lapack: hip::Element + Default {
    /// The real type of singular values and eigenvalues.
    type Real: Lapack + PartialOrd;
    /// Whether the type is complex (`ungqr`/`unmqr`/`heev*` instead of
    /// `orgqr`/`ormqr`/`syev*`; conjugate transposes).
    const COMPLEX: bool;
    /// `getrf_bufferSize`.
    unsafe fn getrf_buffer_size(
        h: hipsolverHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
    ) -> Result<c_int>;
    /// `getrf`.
    unsafe fn getrf(
        h: hipsolverHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        work: *mut Self,
        ipiv: *mut c_int,
        info: *mut c_int,
    ) -> Result<()>;
    /// `getrs`.
    unsafe fn getrs(
        h: hipsolverHandle_t,
        op: hipblasOperation_t,
        n: c_int,
        nrhs: c_int,
        a: *const Self,
        lda: c_int,
        ipiv: *const c_int,
        b: *mut Self,
        ldb: c_int,
        info: *mut c_int,
    ) -> Result<()>;
    /// `potrf_bufferSize`.
    unsafe fn potrf_buffer_size(
        h: hipsolverHandle_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        a: *mut Self,
        lda: c_int,
    ) -> Result<c_int>;
    /// `potrf`.
    unsafe fn potrf(
        h: hipsolverHandle_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> Result<()>;
    /// `potrs`.
    unsafe fn potrs(
        h: hipsolverHandle_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        nrhs: c_int,
        a: *const Self,
        lda: c_int,
        b: *mut Self,
        ldb: c_int,
        info: *mut c_int,
    ) -> Result<()>;
    /// `potrfBatched` (`a`: a device array of `batch` matrix pointers).
    unsafe fn potrf_batched(
        h: hipsolverHandle_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        a: *mut *mut Self,
        lda: c_int,
        info: *mut c_int,
        batch: c_int,
    ) -> Result<()>;
    /// `potrsBatched`.
    unsafe fn potrs_batched(
        h: hipsolverHandle_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        nrhs: c_int,
        a: *mut *mut Self,
        lda: c_int,
        b: *mut *mut Self,
        ldb: c_int,
        info: *mut c_int,
        batch: c_int,
    ) -> Result<()>;
    /// `geqrf_bufferSize`.
    unsafe fn geqrf_buffer_size(
        h: hipsolverHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
    ) -> Result<c_int>;
    /// `geqrf`.
    unsafe fn geqrf(
        h: hipsolverHandle_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        tau: *mut Self,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> Result<()>;
    /// `orgqr_bufferSize` (`ungqr` for complex types).
    unsafe fn orgqr_buffer_size(
        h: hipsolverHandle_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *const Self,
        lda: c_int,
        tau: *const Self,
    ) -> Result<c_int>;
    /// `orgqr` (`ungqr`).
    unsafe fn orgqr(
        h: hipsolverHandle_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *mut Self,
        lda: c_int,
        tau: *const Self,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> Result<()>;
    /// `ormqr_bufferSize` (`unmqr`).
    unsafe fn ormqr_buffer_size(
        h: hipsolverHandle_t,
        side: hipblasSideMode_t,
        op: hipblasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *const Self,
        lda: c_int,
        tau: *const Self,
        c: *const Self,
        ldc: c_int,
    ) -> Result<c_int>;
    /// `ormqr` (`unmqr`).
    unsafe fn ormqr(
        h: hipsolverHandle_t,
        side: hipblasSideMode_t,
        op: hipblasOperation_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *const Self,
        lda: c_int,
        tau: *const Self,
        c: *mut Self,
        ldc: c_int,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> Result<()>;
    /// `gesvd_bufferSize`.
    unsafe fn gesvd_buffer_size(h: hipsolverHandle_t, m: c_int, n: c_int) -> Result<c_int>;
    /// `gesvd` (`vt` receives Vᴴ; `rwork`, `min(m, n)` reals, receives
    /// the superdiagonals that did not converge).
    unsafe fn gesvd(
        h: hipsolverHandle_t,
        jobu: c_schar,
        jobvt: c_schar,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        s: *mut Self::Real,
        u: *mut Self,
        ldu: c_int,
        vt: *mut Self,
        ldvt: c_int,
        work: *mut Self,
        lwork: c_int,
        rwork: *mut Self::Real,
        info: *mut c_int,
    ) -> Result<()>;
    /// `gesvdj_bufferSize`.
    unsafe fn gesvdj_buffer_size(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        econ: c_int,
        m: c_int,
        n: c_int,
        a: *const Self,
        lda: c_int,
        s: *const Self::Real,
        u: *const Self,
        ldu: c_int,
        v: *const Self,
        ldv: c_int,
        params: hipsolverGesvdjInfo_t,
    ) -> Result<c_int>;
    /// `gesvdj` (`v` receives V, not Vᴴ).
    unsafe fn gesvdj(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        econ: c_int,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        s: *mut Self::Real,
        u: *mut Self,
        ldu: c_int,
        v: *mut Self,
        ldv: c_int,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
        params: hipsolverGesvdjInfo_t,
    ) -> Result<()>;
    /// `gesvdjBatched_bufferSize`.
    unsafe fn gesvdj_batched_buffer_size(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        m: c_int,
        n: c_int,
        a: *const Self,
        lda: c_int,
        s: *const Self::Real,
        u: *const Self,
        ldu: c_int,
        v: *const Self,
        ldv: c_int,
        params: hipsolverGesvdjInfo_t,
        batch: c_int,
    ) -> Result<c_int>;
    /// `gesvdjBatched`.
    unsafe fn gesvdj_batched(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        s: *mut Self::Real,
        u: *mut Self,
        ldu: c_int,
        v: *mut Self,
        ldv: c_int,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
        params: hipsolverGesvdjInfo_t,
        batch: c_int,
    ) -> Result<()>;
    /// `syevd_bufferSize` (`heevd`).
    unsafe fn syevd_buffer_size(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        a: *const Self,
        lda: c_int,
        w: *const Self::Real,
    ) -> Result<c_int>;
    /// `syevd` (`heevd`).
    unsafe fn syevd(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        w: *mut Self::Real,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> Result<()>;
    /// `syevj_bufferSize` (`heevj`).
    unsafe fn syevj_buffer_size(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        a: *const Self,
        lda: c_int,
        w: *const Self::Real,
        params: hipsolverSyevjInfo_t,
    ) -> Result<c_int>;
    /// `syevj` (`heevj`).
    unsafe fn syevj(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        w: *mut Self::Real,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
        params: hipsolverSyevjInfo_t,
    ) -> Result<()>;
    /// `syevjBatched_bufferSize` (`heevjBatched`).
    unsafe fn syevj_batched_buffer_size(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        a: *const Self,
        lda: c_int,
        w: *const Self::Real,
        params: hipsolverSyevjInfo_t,
        batch: c_int,
    ) -> Result<c_int>;
    /// `syevjBatched` (`heevjBatched`).
    unsafe fn syevj_batched(
        h: hipsolverHandle_t,
        jobz: hipsolverEigMode_t,
        uplo: hipblasFillMode_t,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        w: *mut Self::Real,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
        params: hipsolverSyevjInfo_t,
        batch: c_int,
    ) -> Result<()>;
}

/// Calls `sys::$f` (named in the error) with the arguments, checked.
macro_rules! call {
    ($f:ident($($arg:expr),* $(,)?)) => {
        // SAFETY: the caller upholds the method's contract (trait doc),
        // which is the C function's; pointer casts only change the
        // element's Rust name (`Complex<f32>` is `hipFloatComplex`'s
        // layout).
        check(stringify!($f), unsafe { sys::$f($($arg),*) })
    };
}

/// Calls a size query, returning its `lwork`.
macro_rules! size {
    ($f:ident($($arg:expr),* $(,)?)) => {{
        let mut lwork: c_int = 0;
        // SAFETY: as in `call!`; `lwork` is a valid place for the size.
        check(stringify!($f), unsafe { sys::$f($($arg,)* &mut lwork) })?;
        Ok(lwork)
    }};
}

macro_rules! lapack {
    (
        $t:ty, $real:ty, $complex:literal,
        $getrf_bs:ident, $getrf:ident, $getrs:ident,
        $potrf_bs:ident, $potrf:ident, $potrs:ident, $potrf_b:ident, $potrs_b:ident,
        $geqrf_bs:ident, $geqrf:ident, $orgqr_bs:ident, $orgqr:ident, $ormqr_bs:ident, $ormqr:ident,
        $gesvd_bs:ident, $gesvd:ident, $gesvdj_bs:ident, $gesvdj:ident, $gesvdjb_bs:ident, $gesvdjb:ident,
        $syevd_bs:ident, $syevd:ident, $syevj_bs:ident, $syevj:ident, $syevjb_bs:ident, $syevjb:ident
    ) => {
        impl Lapack for $t {
            type Real = $real;
            const COMPLEX: bool = $complex;
            unsafe fn getrf_buffer_size(
                h: hipsolverHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
            ) -> Result<c_int> {
                size!($getrf_bs(h, m, n, a.cast(), lda))
            }
            unsafe fn getrf(
                h: hipsolverHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                work: *mut Self,
                ipiv: *mut c_int,
                info: *mut c_int,
            ) -> Result<()> {
                call!($getrf(h, m, n, a.cast(), lda, work.cast(), ipiv, info))
            }
            unsafe fn getrs(
                h: hipsolverHandle_t,
                op: hipblasOperation_t,
                n: c_int,
                nrhs: c_int,
                a: *const Self,
                lda: c_int,
                ipiv: *const c_int,
                b: *mut Self,
                ldb: c_int,
                info: *mut c_int,
            ) -> Result<()> {
                call!($getrs(
                    h,
                    op,
                    n,
                    nrhs,
                    a.cast(),
                    lda,
                    ipiv,
                    b.cast(),
                    ldb,
                    info
                ))
            }
            unsafe fn potrf_buffer_size(
                h: hipsolverHandle_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                a: *mut Self,
                lda: c_int,
            ) -> Result<c_int> {
                size!($potrf_bs(h, uplo, n, a.cast(), lda))
            }
            unsafe fn potrf(
                h: hipsolverHandle_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> Result<()> {
                call!($potrf(h, uplo, n, a.cast(), lda, work.cast(), lwork, info))
            }
            unsafe fn potrs(
                h: hipsolverHandle_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                nrhs: c_int,
                a: *const Self,
                lda: c_int,
                b: *mut Self,
                ldb: c_int,
                info: *mut c_int,
            ) -> Result<()> {
                call!($potrs(h, uplo, n, nrhs, a.cast(), lda, b.cast(), ldb, info))
            }
            unsafe fn potrf_batched(
                h: hipsolverHandle_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                a: *mut *mut Self,
                lda: c_int,
                info: *mut c_int,
                batch: c_int,
            ) -> Result<()> {
                call!($potrf_b(h, uplo, n, a.cast(), lda, info, batch))
            }
            unsafe fn potrs_batched(
                h: hipsolverHandle_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                nrhs: c_int,
                a: *mut *mut Self,
                lda: c_int,
                b: *mut *mut Self,
                ldb: c_int,
                info: *mut c_int,
                batch: c_int,
            ) -> Result<()> {
                call!($potrs_b(
                    h,
                    uplo,
                    n,
                    nrhs,
                    a.cast(),
                    lda,
                    b.cast(),
                    ldb,
                    info,
                    batch
                ))
            }
            unsafe fn geqrf_buffer_size(
                h: hipsolverHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
            ) -> Result<c_int> {
                size!($geqrf_bs(h, m, n, a.cast(), lda))
            }
            unsafe fn geqrf(
                h: hipsolverHandle_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                tau: *mut Self,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> Result<()> {
                call!($geqrf(
                    h,
                    m,
                    n,
                    a.cast(),
                    lda,
                    tau.cast(),
                    work.cast(),
                    lwork,
                    info
                ))
            }
            unsafe fn orgqr_buffer_size(
                h: hipsolverHandle_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *const Self,
                lda: c_int,
                tau: *const Self,
            ) -> Result<c_int> {
                size!($orgqr_bs(h, m, n, k, a.cast(), lda, tau.cast()))
            }
            unsafe fn orgqr(
                h: hipsolverHandle_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *mut Self,
                lda: c_int,
                tau: *const Self,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> Result<()> {
                call!($orgqr(
                    h,
                    m,
                    n,
                    k,
                    a.cast(),
                    lda,
                    tau.cast(),
                    work.cast(),
                    lwork,
                    info
                ))
            }
            unsafe fn ormqr_buffer_size(
                h: hipsolverHandle_t,
                side: hipblasSideMode_t,
                op: hipblasOperation_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *const Self,
                lda: c_int,
                tau: *const Self,
                c: *const Self,
                ldc: c_int,
            ) -> Result<c_int> {
                size!($ormqr_bs(
                    h,
                    side,
                    op,
                    m,
                    n,
                    k,
                    a.cast(),
                    lda,
                    tau.cast(),
                    c.cast(),
                    ldc
                ))
            }
            unsafe fn ormqr(
                h: hipsolverHandle_t,
                side: hipblasSideMode_t,
                op: hipblasOperation_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *const Self,
                lda: c_int,
                tau: *const Self,
                c: *mut Self,
                ldc: c_int,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> Result<()> {
                call!($ormqr(
                    h,
                    side,
                    op,
                    m,
                    n,
                    k,
                    a.cast(),
                    lda,
                    tau.cast(),
                    c.cast(),
                    ldc,
                    work.cast(),
                    lwork,
                    info
                ))
            }
            unsafe fn gesvd_buffer_size(h: hipsolverHandle_t, m: c_int, n: c_int) -> Result<c_int> {
                size!($gesvd_bs(h, m, n))
            }
            unsafe fn gesvd(
                h: hipsolverHandle_t,
                jobu: c_schar,
                jobvt: c_schar,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                s: *mut Self::Real,
                u: *mut Self,
                ldu: c_int,
                vt: *mut Self,
                ldvt: c_int,
                work: *mut Self,
                lwork: c_int,
                rwork: *mut Self::Real,
                info: *mut c_int,
            ) -> Result<()> {
                call!($gesvd(
                    h,
                    jobu,
                    jobvt,
                    m,
                    n,
                    a.cast(),
                    lda,
                    s,
                    u.cast(),
                    ldu,
                    vt.cast(),
                    ldvt,
                    work.cast(),
                    lwork,
                    rwork,
                    info
                ))
            }
            unsafe fn gesvdj_buffer_size(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                econ: c_int,
                m: c_int,
                n: c_int,
                a: *const Self,
                lda: c_int,
                s: *const Self::Real,
                u: *const Self,
                ldu: c_int,
                v: *const Self,
                ldv: c_int,
                params: hipsolverGesvdjInfo_t,
            ) -> Result<c_int> {
                let mut lwork: c_int = 0;
                // SAFETY: as in `call!`; `lwork` is a valid place for the size.
                check(stringify!($gesvdj_bs), unsafe {
                    sys::$gesvdj_bs(
                        h,
                        jobz,
                        econ,
                        m,
                        n,
                        a.cast(),
                        lda,
                        s,
                        u.cast(),
                        ldu,
                        v.cast(),
                        ldv,
                        &mut lwork,
                        params,
                    )
                })?;
                Ok(lwork)
            }
            unsafe fn gesvdj(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                econ: c_int,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                s: *mut Self::Real,
                u: *mut Self,
                ldu: c_int,
                v: *mut Self,
                ldv: c_int,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
                params: hipsolverGesvdjInfo_t,
            ) -> Result<()> {
                call!($gesvdj(
                    h,
                    jobz,
                    econ,
                    m,
                    n,
                    a.cast(),
                    lda,
                    s,
                    u.cast(),
                    ldu,
                    v.cast(),
                    ldv,
                    work.cast(),
                    lwork,
                    info,
                    params
                ))
            }
            unsafe fn gesvdj_batched_buffer_size(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                m: c_int,
                n: c_int,
                a: *const Self,
                lda: c_int,
                s: *const Self::Real,
                u: *const Self,
                ldu: c_int,
                v: *const Self,
                ldv: c_int,
                params: hipsolverGesvdjInfo_t,
                batch: c_int,
            ) -> Result<c_int> {
                let mut lwork: c_int = 0;
                // SAFETY: as in `call!`; `lwork` is a valid place for the size.
                check(stringify!($gesvdjb_bs), unsafe {
                    sys::$gesvdjb_bs(
                        h,
                        jobz,
                        m,
                        n,
                        a.cast(),
                        lda,
                        s,
                        u.cast(),
                        ldu,
                        v.cast(),
                        ldv,
                        &mut lwork,
                        params,
                        batch,
                    )
                })?;
                Ok(lwork)
            }
            unsafe fn gesvdj_batched(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                m: c_int,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                s: *mut Self::Real,
                u: *mut Self,
                ldu: c_int,
                v: *mut Self,
                ldv: c_int,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
                params: hipsolverGesvdjInfo_t,
                batch: c_int,
            ) -> Result<()> {
                call!($gesvdjb(
                    h,
                    jobz,
                    m,
                    n,
                    a.cast(),
                    lda,
                    s,
                    u.cast(),
                    ldu,
                    v.cast(),
                    ldv,
                    work.cast(),
                    lwork,
                    info,
                    params,
                    batch
                ))
            }
            unsafe fn syevd_buffer_size(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                a: *const Self,
                lda: c_int,
                w: *const Self::Real,
            ) -> Result<c_int> {
                size!($syevd_bs(h, jobz, uplo, n, a.cast(), lda, w))
            }
            unsafe fn syevd(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                w: *mut Self::Real,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
            ) -> Result<()> {
                call!($syevd(
                    h,
                    jobz,
                    uplo,
                    n,
                    a.cast(),
                    lda,
                    w,
                    work.cast(),
                    lwork,
                    info
                ))
            }
            unsafe fn syevj_buffer_size(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                a: *const Self,
                lda: c_int,
                w: *const Self::Real,
                params: hipsolverSyevjInfo_t,
            ) -> Result<c_int> {
                let mut lwork: c_int = 0;
                // SAFETY: as in `call!`; `lwork` is a valid place for the size.
                check(stringify!($syevj_bs), unsafe {
                    sys::$syevj_bs(h, jobz, uplo, n, a.cast(), lda, w, &mut lwork, params)
                })?;
                Ok(lwork)
            }
            unsafe fn syevj(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                w: *mut Self::Real,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
                params: hipsolverSyevjInfo_t,
            ) -> Result<()> {
                call!($syevj(
                    h,
                    jobz,
                    uplo,
                    n,
                    a.cast(),
                    lda,
                    w,
                    work.cast(),
                    lwork,
                    info,
                    params
                ))
            }
            unsafe fn syevj_batched_buffer_size(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                a: *const Self,
                lda: c_int,
                w: *const Self::Real,
                params: hipsolverSyevjInfo_t,
                batch: c_int,
            ) -> Result<c_int> {
                let mut lwork: c_int = 0;
                // SAFETY: as in `call!`; `lwork` is a valid place for the size.
                check(stringify!($syevjb_bs), unsafe {
                    sys::$syevjb_bs(
                        h,
                        jobz,
                        uplo,
                        n,
                        a.cast(),
                        lda,
                        w,
                        &mut lwork,
                        params,
                        batch,
                    )
                })?;
                Ok(lwork)
            }
            unsafe fn syevj_batched(
                h: hipsolverHandle_t,
                jobz: hipsolverEigMode_t,
                uplo: hipblasFillMode_t,
                n: c_int,
                a: *mut Self,
                lda: c_int,
                w: *mut Self::Real,
                work: *mut Self,
                lwork: c_int,
                info: *mut c_int,
                params: hipsolverSyevjInfo_t,
                batch: c_int,
            ) -> Result<()> {
                call!($syevjb(
                    h,
                    jobz,
                    uplo,
                    n,
                    a.cast(),
                    lda,
                    w,
                    work.cast(),
                    lwork,
                    info,
                    params,
                    batch
                ))
            }
        }
    };
}

lapack!(
    f32,
    f32,
    false,
    hipsolverDnSgetrf_bufferSize,
    hipsolverDnSgetrf,
    hipsolverDnSgetrs,
    hipsolverDnSpotrf_bufferSize,
    hipsolverDnSpotrf,
    hipsolverDnSpotrs,
    hipsolverDnSpotrfBatched,
    hipsolverDnSpotrsBatched,
    hipsolverDnSgeqrf_bufferSize,
    hipsolverDnSgeqrf,
    hipsolverDnSorgqr_bufferSize,
    hipsolverDnSorgqr,
    hipsolverDnSormqr_bufferSize,
    hipsolverDnSormqr,
    hipsolverDnSgesvd_bufferSize,
    hipsolverDnSgesvd,
    hipsolverDnSgesvdj_bufferSize,
    hipsolverDnSgesvdj,
    hipsolverDnSgesvdjBatched_bufferSize,
    hipsolverDnSgesvdjBatched,
    hipsolverDnSsyevd_bufferSize,
    hipsolverDnSsyevd,
    hipsolverDnSsyevj_bufferSize,
    hipsolverDnSsyevj,
    hipsolverDnSsyevjBatched_bufferSize,
    hipsolverDnSsyevjBatched
);
lapack!(
    f64,
    f64,
    false,
    hipsolverDnDgetrf_bufferSize,
    hipsolverDnDgetrf,
    hipsolverDnDgetrs,
    hipsolverDnDpotrf_bufferSize,
    hipsolverDnDpotrf,
    hipsolverDnDpotrs,
    hipsolverDnDpotrfBatched,
    hipsolverDnDpotrsBatched,
    hipsolverDnDgeqrf_bufferSize,
    hipsolverDnDgeqrf,
    hipsolverDnDorgqr_bufferSize,
    hipsolverDnDorgqr,
    hipsolverDnDormqr_bufferSize,
    hipsolverDnDormqr,
    hipsolverDnDgesvd_bufferSize,
    hipsolverDnDgesvd,
    hipsolverDnDgesvdj_bufferSize,
    hipsolverDnDgesvdj,
    hipsolverDnDgesvdjBatched_bufferSize,
    hipsolverDnDgesvdjBatched,
    hipsolverDnDsyevd_bufferSize,
    hipsolverDnDsyevd,
    hipsolverDnDsyevj_bufferSize,
    hipsolverDnDsyevj,
    hipsolverDnDsyevjBatched_bufferSize,
    hipsolverDnDsyevjBatched
);
lapack!(
    c32,
    f32,
    true,
    hipsolverDnCgetrf_bufferSize,
    hipsolverDnCgetrf,
    hipsolverDnCgetrs,
    hipsolverDnCpotrf_bufferSize,
    hipsolverDnCpotrf,
    hipsolverDnCpotrs,
    hipsolverDnCpotrfBatched,
    hipsolverDnCpotrsBatched,
    hipsolverDnCgeqrf_bufferSize,
    hipsolverDnCgeqrf,
    hipsolverDnCungqr_bufferSize,
    hipsolverDnCungqr,
    hipsolverDnCunmqr_bufferSize,
    hipsolverDnCunmqr,
    hipsolverDnCgesvd_bufferSize,
    hipsolverDnCgesvd,
    hipsolverDnCgesvdj_bufferSize,
    hipsolverDnCgesvdj,
    hipsolverDnCgesvdjBatched_bufferSize,
    hipsolverDnCgesvdjBatched,
    hipsolverDnCheevd_bufferSize,
    hipsolverDnCheevd,
    hipsolverDnCheevj_bufferSize,
    hipsolverDnCheevj,
    hipsolverDnCheevjBatched_bufferSize,
    hipsolverDnCheevjBatched
);
lapack!(
    c64,
    f64,
    true,
    hipsolverDnZgetrf_bufferSize,
    hipsolverDnZgetrf,
    hipsolverDnZgetrs,
    hipsolverDnZpotrf_bufferSize,
    hipsolverDnZpotrf,
    hipsolverDnZpotrs,
    hipsolverDnZpotrfBatched,
    hipsolverDnZpotrsBatched,
    hipsolverDnZgeqrf_bufferSize,
    hipsolverDnZgeqrf,
    hipsolverDnZungqr_bufferSize,
    hipsolverDnZungqr,
    hipsolverDnZunmqr_bufferSize,
    hipsolverDnZunmqr,
    hipsolverDnZgesvd_bufferSize,
    hipsolverDnZgesvd,
    hipsolverDnZgesvdj_bufferSize,
    hipsolverDnZgesvdj,
    hipsolverDnZgesvdjBatched_bufferSize,
    hipsolverDnZgesvdjBatched,
    hipsolverDnZheevd_bufferSize,
    hipsolverDnZheevd,
    hipsolverDnZheevj_bufferSize,
    hipsolverDnZheevj,
    hipsolverDnZheevjBatched_bufferSize,
    hipsolverDnZheevjBatched
);
