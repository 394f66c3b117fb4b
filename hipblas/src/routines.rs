//! Level-1, level-2 and trsm routines per element type.

use crate::error::Result;
use crate::result;
use crate::scalar::{c32, c64, Scalar};
use hipblas_sys::*;

/// Element types with the level-1/2/3 routines this crate wraps: f32, f64,
/// c32, c64.
///
/// The methods are [`crate::result`]'s calls (`saxpy` for
/// `hipblasSaxpy`, ...) by element type; each error names the C function.
/// The safe entry points are on [`crate::Blas`].
#[allow(clippy::too_many_arguments, missing_docs)]
pub trait Blas1: Scalar {
    /// The real type of norms and sums (f32 for c32).
    type Real: Scalar + Default;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn axpy(
        h: hipblasHandle_t,
        n: i32,
        alpha: &Self,
        x: *const Self,
        incx: i32,
        y: *mut Self,
        incy: i32,
    ) -> Result<()>;
    /// Unconjugated dot product (`dotu` for complex).
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn dot(
        h: hipblasHandle_t,
        n: i32,
        x: *const Self,
        incx: i32,
        y: *const Self,
        incy: i32,
        r: *mut Self,
    ) -> Result<()>;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn nrm2(
        h: hipblasHandle_t,
        n: i32,
        x: *const Self,
        incx: i32,
        r: *mut Self::Real,
    ) -> Result<()>;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn asum(
        h: hipblasHandle_t,
        n: i32,
        x: *const Self,
        incx: i32,
        r: *mut Self::Real,
    ) -> Result<()>;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn scal(h: hipblasHandle_t, n: i32, alpha: &Self, x: *mut Self, incx: i32)
        -> Result<()>;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn iamax(
        h: hipblasHandle_t,
        n: i32,
        x: *const Self,
        incx: i32,
        r: *mut i32,
    ) -> Result<()>;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn copy(
        h: hipblasHandle_t,
        n: i32,
        x: *const Self,
        incx: i32,
        y: *mut Self,
        incy: i32,
    ) -> Result<()>;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn swap(
        h: hipblasHandle_t,
        n: i32,
        x: *mut Self,
        incx: i32,
        y: *mut Self,
        incy: i32,
    ) -> Result<()>;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn gemv(
        h: hipblasHandle_t,
        trans: hipblasOperation_t,
        m: i32,
        n: i32,
        alpha: &Self,
        a: *const Self,
        lda: i32,
        x: *const Self,
        incx: i32,
        beta: &Self,
        y: *mut Self,
        incy: i32,
    ) -> Result<()>;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn trsm(
        h: hipblasHandle_t,
        side: hipblasSideMode_t,
        uplo: hipblasFillMode_t,
        trans: hipblasOperation_t,
        diag: hipblasDiagType_t,
        m: i32,
        n: i32,
        alpha: &Self,
        a: *const Self,
        lda: i32,
        b: *mut Self,
        ldb: i32,
    ) -> Result<()>;
}

macro_rules! blas1 {
    ($t:ty, $raw:ty, $real:ty, $axpy:ident, $dot:ident, $nrm2:ident, $asum:ident, $scal:ident, $iamax:ident,
     $copy:ident, $swap:ident, $gemv:ident, $trsm:ident) => {
        impl Blas1 for $t {
            type Real = $real;
            unsafe fn axpy(
                h: hipblasHandle_t,
                n: i32,
                alpha: &Self,
                x: *const Self,
                incx: i32,
                y: *mut Self,
                incy: i32,
            ) -> Result<()> {
                // SAFETY: the caller's contract; `Self` has `$raw`'s layout.
                unsafe {
                    result::$axpy(
                        h,
                        n,
                        alpha as *const Self as *const $raw,
                        x.cast(),
                        incx,
                        y.cast(),
                        incy,
                    )
                }
            }
            unsafe fn dot(
                h: hipblasHandle_t,
                n: i32,
                x: *const Self,
                incx: i32,
                y: *const Self,
                incy: i32,
                r: *mut Self,
            ) -> Result<()> {
                // SAFETY: as above.
                unsafe { result::$dot(h, n, x.cast(), incx, y.cast(), incy, r.cast()) }
            }
            unsafe fn nrm2(
                h: hipblasHandle_t,
                n: i32,
                x: *const Self,
                incx: i32,
                r: *mut $real,
            ) -> Result<()> {
                // SAFETY: as above.
                unsafe { result::$nrm2(h, n, x.cast(), incx, r) }
            }
            unsafe fn asum(
                h: hipblasHandle_t,
                n: i32,
                x: *const Self,
                incx: i32,
                r: *mut $real,
            ) -> Result<()> {
                // SAFETY: as above.
                unsafe { result::$asum(h, n, x.cast(), incx, r) }
            }
            unsafe fn scal(
                h: hipblasHandle_t,
                n: i32,
                alpha: &Self,
                x: *mut Self,
                incx: i32,
            ) -> Result<()> {
                // SAFETY: as above.
                unsafe { result::$scal(h, n, alpha as *const Self as *const $raw, x.cast(), incx) }
            }
            unsafe fn iamax(
                h: hipblasHandle_t,
                n: i32,
                x: *const Self,
                incx: i32,
                r: *mut i32,
            ) -> Result<()> {
                // SAFETY: as above.
                unsafe { result::$iamax(h, n, x.cast(), incx, r) }
            }
            unsafe fn copy(
                h: hipblasHandle_t,
                n: i32,
                x: *const Self,
                incx: i32,
                y: *mut Self,
                incy: i32,
            ) -> Result<()> {
                // SAFETY: as above.
                unsafe { result::$copy(h, n, x.cast(), incx, y.cast(), incy) }
            }
            unsafe fn swap(
                h: hipblasHandle_t,
                n: i32,
                x: *mut Self,
                incx: i32,
                y: *mut Self,
                incy: i32,
            ) -> Result<()> {
                // SAFETY: as above.
                unsafe { result::$swap(h, n, x.cast(), incx, y.cast(), incy) }
            }
            unsafe fn gemv(
                h: hipblasHandle_t,
                trans: hipblasOperation_t,
                m: i32,
                n: i32,
                alpha: &Self,
                a: *const Self,
                lda: i32,
                x: *const Self,
                incx: i32,
                beta: &Self,
                y: *mut Self,
                incy: i32,
            ) -> Result<()> {
                // SAFETY: as above.
                unsafe {
                    result::$gemv(
                        h,
                        trans,
                        m,
                        n,
                        alpha as *const Self as *const $raw,
                        a.cast(),
                        lda,
                        x.cast(),
                        incx,
                        beta as *const Self as *const $raw,
                        y.cast(),
                        incy,
                    )
                }
            }
            unsafe fn trsm(
                h: hipblasHandle_t,
                side: hipblasSideMode_t,
                uplo: hipblasFillMode_t,
                trans: hipblasOperation_t,
                diag: hipblasDiagType_t,
                m: i32,
                n: i32,
                alpha: &Self,
                a: *const Self,
                lda: i32,
                b: *mut Self,
                ldb: i32,
            ) -> Result<()> {
                // SAFETY: as above.
                unsafe {
                    result::$trsm(
                        h,
                        side,
                        uplo,
                        trans,
                        diag,
                        m,
                        n,
                        alpha as *const Self as *const $raw,
                        a.cast(),
                        lda,
                        b.cast(),
                        ldb,
                    )
                }
            }
        }
    };
}

blas1!(f32, f32, f32, saxpy, sdot, snrm2, sasum, sscal, isamax, scopy, sswap, sgemv, strsm);
blas1!(f64, f64, f64, daxpy, ddot, dnrm2, dasum, dscal, idamax, dcopy, dswap, dgemv, dtrsm);
blas1!(
    c32, hipComplex, f32, caxpy_v2, cdotu_v2, scnrm2_v2, scasum_v2, cscal_v2, icamax_v2, ccopy_v2,
    cswap_v2, cgemv_v2, ctrsm_v2
);
blas1!(
    c64,
    hipDoubleComplex,
    f64,
    zaxpy_v2,
    zdotu_v2,
    dznrm2_v2,
    dzasum_v2,
    zscal_v2,
    izamax_v2,
    zcopy_v2,
    zswap_v2,
    zgemv_v2,
    ztrsm_v2
);
