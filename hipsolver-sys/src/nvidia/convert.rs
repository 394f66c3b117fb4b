//! How each hipSOLVER argument type reaches cuSOLVER, and cuSOLVER's status
//! back.
//!
//! cuSOLVER declares the functions hipSOLVER mirrors with the same
//! parameters in the same order (hipSOLVER's own API sometimes adds a
//! `work`/`lwork` pair that cuSOLVER does not take; the adapter lines in
//! generated adapter lines say which parameters reach cuSOLVER). What differs is the
//! values of the enums, which hipSOLVER takes from rocBLAS/rocSOLVER
//! (`HIPBLAS_OP_N` is 111, `CUBLAS_OP_N` is 0):
//!
//! - operation, fill mode, side, diagonal type (cuBLAS's enums), eigenvector
//!   mode, eigenproblem type, eigenvalue range, algorithm mode and
//!   deterministic mode are translated by name; a value with no cuSOLVER
//!   counterpart (`HIPBLAS_FILL_MODE_FULL` is one cuSOLVER has,
//!   `HIPBLAS_SIDE_BOTH` is not) is refused with
//!   `HIPSOLVER_STATUS_INVALID_ENUM` before cuSOLVER is called;
//! - the refactorization enums (`hipsolverRf*`) and `hipsolverDnFunction_t`
//!   have cuSOLVER's values and pass unchanged;
//! - statuses are translated by name; cuSOLVER's statuses that hipSOLVER
//!   does not declare (the licence and iterative-refinement ones) become the
//!   nearest hipSOLVER status, and any other value `HIPSOLVER_STATUS_UNKNOWN`.
//!
//! Every value here is checked against the CUDA headers by the generated
//! `cusolver_enumerators.rs`. Handles, `gesvdjInfo_t`/`syevjInfo_t`,
//! `cusolverDnParams_t`, matrix descriptors, streams, sizes and data
//! pointers are passed unchanged; `hipDataType` has `cudaDataType`'s values.

use crate::*;
use core::ffi::{c_int, c_longlong, c_schar, c_void};
use hip_sys::loader::adapter::{Held, Library, ToCuda};
use hip_sys::{hipDataType, hipDoubleComplex, hipFloatComplex};

/// The library these conversions belong to, for hip-sys's adapter kit.
impl Library for hipsolverStatus_t {
    type Status = hipsolverStatus_t;
}

/// The device workspace pointer cuSOLVER's mixed-precision size queries
/// take and do not read (passed by the reshaped adapter lines).
pub(crate) const NO_WORKSPACE: *mut c_void = core::ptr::null_mut();

// Types cuSOLVER takes as they are.
hip_sys::cuda_unchanged!(
    hipsolverStatus_t:
    c_int,
    c_longlong,
    c_schar,
    usize,
    f32,
    f64,
    *mut c_void,
    *const c_void,
    *mut *mut c_void,
    *mut c_int,
    *const c_int,
    *mut *mut c_int,
    *mut c_longlong,
    *const c_longlong,
    *mut usize,
    *mut f32,
    *const f32,
    *mut *mut f32,
    *mut f64,
    *const f64,
    *mut *mut f64,
    *mut hipFloatComplex,
    *const hipFloatComplex,
    *mut *mut hipFloatComplex,
    *mut hipDoubleComplex,
    *const hipDoubleComplex,
    *mut *mut hipDoubleComplex,
    *mut hipStream_t,
    hipStream_t,
    hipDataType,
    hipsolverDnFunction_t,
    hipsolverRfFactorization_t,
    hipsolverRfMatrixFormat_t,
    hipsolverRfResetValuesFastMode_t,
    hipsolverRfTriangularSolve_t,
    hipsolverRfUnitDiagonal_t,
    *mut hipsolverRfFactorization_t,
    *mut hipsolverRfMatrixFormat_t,
    *mut hipsolverRfNumericBoostReport_t,
    *mut hipsolverRfResetValuesFastMode_t,
    *mut hipsolverRfTriangularSolve_t,
    *mut hipsolverRfUnitDiagonal_t,
);

// The opaque handles (hipsolverHandle_t, hipsolverDnHandle_t,
// hipsolverRfHandle_t, hipsolverSpHandle_t, hipsolverDnParams_t,
// hipsolverGesvdjInfo_t, hipsolverSyevjInfo_t, hipsparseMatDescr_t) are all
// `*mut c_void`, one Rust type, covered above with their out-pointers
// (`*mut *mut c_void`).

/// A hipSOLVER enum translated to cuSOLVER's `int`-sized enum by a table of
/// (hipSOLVER value, cuSOLVER value) pairs, both ways.
macro_rules! translated {
    ($($t:ident { $($hip:ident => $cu:literal),* $(,)? })*) => {$(
        impl ToCuda<hipsolverStatus_t> for $t {
            type Held = c_int;
            fn to_cuda(self) -> Result<c_int, hipsolverStatus_t> {
                match self {
                    $($t::$hip => Ok($cu),)*
                    _ => Err(hipsolverStatus_t::HIPSOLVER_STATUS_INVALID_ENUM),
                }
            }
        }
        impl ToCuda<hipsolverStatus_t> for *mut $t {
            type Held = OutEnum<$t>;
            fn to_cuda(self) -> Result<OutEnum<$t>, hipsolverStatus_t> {
                Ok(OutEnum { to: self, cu: 0 })
            }
        }
        impl FromCu for $t {
            fn from_cu(cu: c_int) -> Option<$t> {
                match cu {
                    $($cu => Some($t::$hip),)*
                    _ => None,
                }
            }
        }
    )*};
}

/// A cuSOLVER enum value turned back into hipSOLVER's.
pub(crate) trait FromCu: Sized {
    /// `None` for a value hipSOLVER does not declare.
    fn from_cu(cu: c_int) -> Option<Self>;
}

/// An enum that cuSOLVER writes: cuSOLVER writes an `int` of the adapter's
/// frame, translated into the caller's place when the call succeeded.
#[derive(Debug)]
pub struct OutEnum<T> {
    to: *mut T,
    cu: c_int,
}

impl<T: FromCu> Held for OutEnum<T> {
    type Cuda = *mut c_int;
    fn pass(&mut self) -> *mut c_int {
        if self.to.is_null() {
            // cuSOLVER reports the null pointer itself.
            core::ptr::null_mut()
        } else {
            &mut self.cu
        }
    }
    unsafe fn finish(self, ok: bool) {
        if ok && !self.to.is_null() {
            if let Some(v) = T::from_cu(self.cu) {
                // SAFETY: `to` is the caller's non-null out-pointer, valid for
                // a write by the binding's contract (`Held::finish`'s).
                unsafe { self.to.write(v) };
            }
        }
    }
}

translated! {
    hipblasOperation_t { HIPBLAS_OP_N => 0, HIPBLAS_OP_T => 1, HIPBLAS_OP_C => 2 }
    hipblasFillMode_t {
        HIPBLAS_FILL_MODE_LOWER => 0,
        HIPBLAS_FILL_MODE_UPPER => 1,
        HIPBLAS_FILL_MODE_FULL => 2,
    }
    hipblasSideMode_t { HIPBLAS_SIDE_LEFT => 0, HIPBLAS_SIDE_RIGHT => 1 }
    hipblasDiagType_t { HIPBLAS_DIAG_NON_UNIT => 0, HIPBLAS_DIAG_UNIT => 1 }
    hipsolverEigMode_t { HIPSOLVER_EIG_MODE_NOVECTOR => 0, HIPSOLVER_EIG_MODE_VECTOR => 1 }
    hipsolverEigType_t {
        HIPSOLVER_EIG_TYPE_1 => 1,
        HIPSOLVER_EIG_TYPE_2 => 2,
        HIPSOLVER_EIG_TYPE_3 => 3,
    }
    hipsolverEigRange_t {
        HIPSOLVER_EIG_RANGE_ALL => 1001,
        HIPSOLVER_EIG_RANGE_I => 1002,
        HIPSOLVER_EIG_RANGE_V => 1003,
    }
    hipsolverAlgMode_t { HIPSOLVER_ALG_0 => 0, HIPSOLVER_ALG_1 => 1 }
    hipsolverDeterministicMode_t {
        HIPSOLVER_DETERMINISTIC_RESULTS => 1,
        HIPSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS => 2,
    }
}

/// cuSOLVER's `cusolverStatus_t` as hipSOLVER's status.
pub(crate) fn from_cusolver(status: c_int) -> hipsolverStatus_t {
    use hipsolverStatus_t as S;
    match status {
        0 => S::HIPSOLVER_STATUS_SUCCESS,
        1 => S::HIPSOLVER_STATUS_NOT_INITIALIZED,
        2 => S::HIPSOLVER_STATUS_ALLOC_FAILED,
        3 => S::HIPSOLVER_STATUS_INVALID_VALUE,
        4 => S::HIPSOLVER_STATUS_ARCH_MISMATCH,
        5 => S::HIPSOLVER_STATUS_MAPPING_ERROR,
        6 => S::HIPSOLVER_STATUS_EXECUTION_FAILED,
        7 => S::HIPSOLVER_STATUS_INTERNAL_ERROR,
        8 => S::HIPSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED,
        9 => S::HIPSOLVER_STATUS_NOT_SUPPORTED,
        10 => S::HIPSOLVER_STATUS_ZERO_PIVOT,
        // CUSOLVER_STATUS_INVALID_LICENSE, IRS_INTERNAL_ERROR.
        11 | 20 => S::HIPSOLVER_STATUS_INTERNAL_ERROR,
        // The iterative-refinement parameter statuses, IRS_OUT_OF_RANGE,
        // IRS_INFOS_NOT_INITIALIZED/NOT_DESTROYED, INVALID_WORKSPACE.
        12..=16 | 22 | 25 | 26 | 31 => S::HIPSOLVER_STATUS_INVALID_VALUE,
        // IRS_NOT_SUPPORTED, IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES.
        21 | 23 => S::HIPSOLVER_STATUS_NOT_SUPPORTED,
        // IRS_MATRIX_SINGULAR.
        30 => S::HIPSOLVER_STATUS_ZERO_PIVOT,
        _ => S::HIPSOLVER_STATUS_UNKNOWN,
    }
}

/// The cuSOLVER value of a hipSOLVER enumerator (for the generated tests).
#[cfg(test)]
pub(crate) fn to_cu<T: ToCuda<hipsolverStatus_t, Held = c_int>>(v: T) -> c_int {
    match v.to_cuda() {
        Ok(cu) => cu,
        Err(e) => panic!("no cuSOLVER value: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_without_a_cusolver_counterpart_are_refused() {
        assert_eq!(
            ToCuda::<hipsolverStatus_t>::to_cuda(hipblasSideMode_t::HIPBLAS_SIDE_BOTH),
            Err(hipsolverStatus_t::HIPSOLVER_STATUS_INVALID_ENUM)
        );
        assert_eq!(
            ToCuda::<hipsolverStatus_t>::to_cuda(hipblasOperation_t(7)),
            Err(hipsolverStatus_t::HIPSOLVER_STATUS_INVALID_ENUM)
        );
        assert_eq!(
            from_cusolver(4242),
            hipsolverStatus_t::HIPSOLVER_STATUS_UNKNOWN
        );
    }

    #[test]
    fn every_translation_round_trips() {
        for hip in [221, 222, 223] {
            let v = hipsolverEigRange_t(hip);
            let cu = to_cu(v);
            assert_eq!(hipsolverEigRange_t::from_cu(cu), Some(v));
        }
        assert_eq!(hipblasFillMode_t::from_cu(9), None);
    }

    #[test]
    fn an_out_enum_is_written_only_on_success() {
        let mut place = hipsolverDeterministicMode_t(0);
        let mut held =
            ToCuda::<hipsolverStatus_t>::to_cuda(&mut place as *mut hipsolverDeterministicMode_t)
                .unwrap();
        let p = held.pass();
        // SAFETY: `p` points at `held.cu`, which lives until `finish`.
        unsafe { p.write(2) };
        // SAFETY: `place` is writable and the "call" is over.
        unsafe { held.finish(true) };
        assert_eq!(
            place,
            hipsolverDeterministicMode_t::HIPSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS
        );
        let mut held =
            ToCuda::<hipsolverStatus_t>::to_cuda(&mut place as *mut hipsolverDeterministicMode_t)
                .unwrap();
        let p = held.pass();
        // SAFETY: as above.
        unsafe { p.write(1) };
        // SAFETY: as above.
        unsafe { held.finish(false) };
        assert_eq!(
            place,
            hipsolverDeterministicMode_t::HIPSOLVER_ALLOW_NON_DETERMINISTIC_RESULTS
        );
    }
}
