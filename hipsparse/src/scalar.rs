//! The element types hipSPARSE computes in.

use hip::{c32, c64};
use hipsparse_sys::{
    hipDataType, hipsparseDirection_t, hipsparseHandle_t, hipsparseMatDescr_t,
    hipsparseOperation_t, hipsparseStatus_t,
};
use std::ffi::c_int;

/// The value types of sparse matrices and their operands: `f32`, `f64`,
/// and the complex [`c32`] and [`c64`]. Sealed.
pub trait Scalar: hip::Element {
    /// The `hipDataType` of values and of the computation.
    const DATA_TYPE: hipDataType;
    /// Zero.
    const ZERO: Self;
    /// One.
    const ONE: Self;

    /// `hipsparse?bsrmv` for this type.
    ///
    /// # Safety
    /// The arguments must satisfy `hipsparseXbsrmv`'s contract: a live
    /// handle and matrix descriptor, device arrays of a BSR matrix of
    /// `mb` x `nb` blocks of `block_dim`², and vectors of its sizes;
    /// `alpha` and `beta` aligned as the raw type (`hipDoubleComplex` is
    /// aligned to 16 bytes, [`c64`] only to 8).
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn bsrmv(
        handle: hipsparseHandle_t,
        dir: hipsparseDirection_t,
        op: hipsparseOperation_t,
        blocks: (c_int, c_int, c_int),
        alpha: *const Self,
        descr: hipsparseMatDescr_t,
        arrays: (*const Self, *const c_int, *const c_int),
        block_dim: c_int,
        x: *const Self,
        beta: *const Self,
        y: *mut Self,
    ) -> hipsparseStatus_t;
}

macro_rules! scalar {
    ($t:ty, $dt:ident, $zero:expr, $one:expr, $bsrmv:ident, $raw:ty) => {
        impl Scalar for $t {
            const DATA_TYPE: hipDataType = hipDataType::$dt;
            const ZERO: Self = $zero;
            const ONE: Self = $one;

            unsafe fn bsrmv(
                handle: hipsparseHandle_t,
                dir: hipsparseDirection_t,
                op: hipsparseOperation_t,
                (mb, nb, nnzb): (c_int, c_int, c_int),
                alpha: *const Self,
                descr: hipsparseMatDescr_t,
                (values, row_offsets, col_indices): (*const Self, *const c_int, *const c_int),
                block_dim: c_int,
                x: *const Self,
                beta: *const Self,
                y: *mut Self,
            ) -> hipsparseStatus_t {
                // SAFETY: the caller's contract; `$t` and `$raw` have the
                // same size and field layout (a real, or two reals in a
                // `repr(C)` pair), and the caller aligns the host scalars
                // for `$raw`; device arrays are aligned by their
                // allocation (256 bytes, 16-byte elements).
                unsafe {
                    crate::result::$bsrmv(
                        handle,
                        dir,
                        op,
                        mb,
                        nb,
                        nnzb,
                        alpha.cast::<$raw>(),
                        descr,
                        values.cast::<$raw>(),
                        row_offsets,
                        col_indices,
                        block_dim,
                        x.cast::<$raw>(),
                        beta.cast::<$raw>(),
                        y.cast::<$raw>(),
                    )
                }
            }
        }
    };
}

scalar!(f32, HIP_R_32F, 0.0, 1.0, sbsrmv, f32);
scalar!(f64, HIP_R_64F, 0.0, 1.0, dbsrmv, f64);
scalar!(
    c32,
    HIP_C_32F,
    c32::new(0.0, 0.0),
    c32::new(1.0, 0.0),
    cbsrmv,
    hipsparse_sys::hipComplex
);
scalar!(
    c64,
    HIP_C_64F,
    c64::new(0.0, 0.0),
    c64::new(1.0, 0.0),
    zbsrmv,
    hipsparse_sys::hipDoubleComplex
);
