//! Level-1, level-2 and trsm routines per element type.

use crate::scalar::{c32, c64, Scalar};
use hipblas_sys::*;

/// Element types with the level-1/2/3 routines this crate wraps: f32, f64,
/// c32, c64.
///
/// The methods are the raw hipBLAS calls (`hipblasSaxpy`, ...), typed; the
/// safe entry points are on [`crate::Blas`].
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
    ) -> hipblasStatus_t;
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
    ) -> hipblasStatus_t;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn nrm2(
        h: hipblasHandle_t,
        n: i32,
        x: *const Self,
        incx: i32,
        r: *mut Self::Real,
    ) -> hipblasStatus_t;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn asum(
        h: hipblasHandle_t,
        n: i32,
        x: *const Self,
        incx: i32,
        r: *mut Self::Real,
    ) -> hipblasStatus_t;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn scal(
        h: hipblasHandle_t,
        n: i32,
        alpha: &Self,
        x: *mut Self,
        incx: i32,
    ) -> hipblasStatus_t;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn iamax(
        h: hipblasHandle_t,
        n: i32,
        x: *const Self,
        incx: i32,
        r: *mut i32,
    ) -> hipblasStatus_t;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn copy(
        h: hipblasHandle_t,
        n: i32,
        x: *const Self,
        incx: i32,
        y: *mut Self,
        incy: i32,
    ) -> hipblasStatus_t;
    /// # Safety
    /// Raw hipBLAS call.
    unsafe fn swap(
        h: hipblasHandle_t,
        n: i32,
        x: *mut Self,
        incx: i32,
        y: *mut Self,
        incy: i32,
    ) -> hipblasStatus_t;
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
    ) -> hipblasStatus_t;
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
    ) -> hipblasStatus_t;
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
            ) -> hipblasStatus_t {
                // SAFETY: the caller's contract; `Self` has `$raw`'s layout.
                unsafe {
                    $axpy(
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
            ) -> hipblasStatus_t {
                // SAFETY: as above.
                unsafe { $dot(h, n, x.cast(), incx, y.cast(), incy, r.cast()) }
            }
            unsafe fn nrm2(
                h: hipblasHandle_t,
                n: i32,
                x: *const Self,
                incx: i32,
                r: *mut $real,
            ) -> hipblasStatus_t {
                // SAFETY: as above.
                unsafe { $nrm2(h, n, x.cast(), incx, r) }
            }
            unsafe fn asum(
                h: hipblasHandle_t,
                n: i32,
                x: *const Self,
                incx: i32,
                r: *mut $real,
            ) -> hipblasStatus_t {
                // SAFETY: as above.
                unsafe { $asum(h, n, x.cast(), incx, r) }
            }
            unsafe fn scal(
                h: hipblasHandle_t,
                n: i32,
                alpha: &Self,
                x: *mut Self,
                incx: i32,
            ) -> hipblasStatus_t {
                // SAFETY: as above.
                unsafe { $scal(h, n, alpha as *const Self as *const $raw, x.cast(), incx) }
            }
            unsafe fn iamax(
                h: hipblasHandle_t,
                n: i32,
                x: *const Self,
                incx: i32,
                r: *mut i32,
            ) -> hipblasStatus_t {
                // SAFETY: as above.
                unsafe { $iamax(h, n, x.cast(), incx, r) }
            }
            unsafe fn copy(
                h: hipblasHandle_t,
                n: i32,
                x: *const Self,
                incx: i32,
                y: *mut Self,
                incy: i32,
            ) -> hipblasStatus_t {
                // SAFETY: as above.
                unsafe { $copy(h, n, x.cast(), incx, y.cast(), incy) }
            }
            unsafe fn swap(
                h: hipblasHandle_t,
                n: i32,
                x: *mut Self,
                incx: i32,
                y: *mut Self,
                incy: i32,
            ) -> hipblasStatus_t {
                // SAFETY: as above.
                unsafe { $swap(h, n, x.cast(), incx, y.cast(), incy) }
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
            ) -> hipblasStatus_t {
                // SAFETY: as above.
                unsafe {
                    $gemv(
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
            ) -> hipblasStatus_t {
                // SAFETY: as above.
                unsafe {
                    $trsm(
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

blas1!(
    f32,
    f32,
    f32,
    hipblasSaxpy,
    hipblasSdot,
    hipblasSnrm2,
    hipblasSasum,
    hipblasSscal,
    hipblasIsamax,
    hipblasScopy,
    hipblasSswap,
    hipblasSgemv,
    hipblasStrsm
);
blas1!(
    f64,
    f64,
    f64,
    hipblasDaxpy,
    hipblasDdot,
    hipblasDnrm2,
    hipblasDasum,
    hipblasDscal,
    hipblasIdamax,
    hipblasDcopy,
    hipblasDswap,
    hipblasDgemv,
    hipblasDtrsm
);
blas1!(
    c32,
    hipComplex,
    f32,
    hipblasCaxpy_v2,
    hipblasCdotu_v2,
    hipblasScnrm2_v2,
    hipblasScasum_v2,
    hipblasCscal_v2,
    hipblasIcamax_v2,
    hipblasCcopy_v2,
    hipblasCswap_v2,
    hipblasCgemv_v2,
    hipblasCtrsm_v2
);
blas1!(
    c64,
    hipDoubleComplex,
    f64,
    hipblasZaxpy_v2,
    hipblasZdotu_v2,
    hipblasDznrm2_v2,
    hipblasDzasum_v2,
    hipblasZscal_v2,
    hipblasIzamax_v2,
    hipblasZcopy_v2,
    hipblasZswap_v2,
    hipblasZgemv_v2,
    hipblasZtrsm_v2
);
