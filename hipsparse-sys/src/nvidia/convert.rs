//! hipSPARSE arguments as cuSPARSE takes them, and cuSPARSE statuses back.
//!
//! hipSPARSE 6.4.3 gives every enum and status the value cuSPARSE gives the
//! enumerator of the same name (the header was written for that, and
//! `cusparse_enumerators.rs` checks each value against cuSPARSE 12.5's
//! `cusparse.h`), so every conversion here passes the value on, except
//! the csr2csc algorithm's default.

use crate::*;
use hip_sys::hipDataType;

/// `cusparseStatus_t`.
pub(crate) type CusparseStatus = i32;

/// One argument of a hipSPARSE function as its cuSPARSE counterpart takes
/// it.
pub(crate) trait ToCu: Copy {
    /// The cuSPARSE type.
    type Cu;
    /// The cuSPARSE value, or the hipSPARSE status for a value cuSPARSE
    /// cannot take.
    fn to_cu(self) -> Result<Self::Cu, hipsparseStatus_t>;
}

macro_rules! identity {
    ($($t:ty),*) => {$(
        impl ToCu for $t {
            type Cu = $t;
            fn to_cu(self) -> Result<$t, hipsparseStatus_t> {
                Ok(self)
            }
        }
    )*};
}
identity!(i32, i64, usize, f32, f64, hipComplex, hipDoubleComplex);

/// Pointers (buffers, handles, descriptors, streams, result slots) pass
/// unchanged: the pointees have the same layout on both sides (`hipComplex`
/// and `cuComplex` are two floats; a descriptor is opaque to both; the
/// `hipStream_t` of hip-sys's NVIDIA platform is the `cudaStream_t`).
impl<T> ToCu for *const T {
    type Cu = *const T;
    fn to_cu(self) -> Result<Self, hipsparseStatus_t> {
        Ok(self)
    }
}

impl<T> ToCu for *mut T {
    type Cu = *mut T;
    fn to_cu(self) -> Result<Self, hipsparseStatus_t> {
        Ok(self)
    }
}

/// The C enums, each an `int` in cuSPARSE with the same value.
macro_rules! same_value {
    ($($t:ty),* $(,)?) => {$(
        impl ToCu for $t {
            type Cu = i32;
            fn to_cu(self) -> Result<i32, hipsparseStatus_t> {
                Ok(self.0 as i32)
            }
        }
    )*};
}
same_value!(
    hipsparseStatus_t,
    hipsparsePointerMode_t,
    hipsparseAction_t,
    hipsparseMatrixType_t,
    hipsparseFillMode_t,
    hipsparseDiagType_t,
    hipsparseIndexBase_t,
    hipsparseOperation_t,
    hipsparseSolvePolicy_t,
    hipsparseDirection_t,
    hipsparseFormat_t,
    hipsparseOrder_t,
    hipsparseIndexType_t,
    hipsparseSpMVAlg_t,
    hipsparseSpMMAlg_t,
    hipsparseSparseToDenseAlg_t,
    hipsparseDenseToSparseAlg_t,
    hipsparseSDDMMAlg_t,
    hipsparseSpSVAlg_t,
    hipsparseSpSMAlg_t,
    hipsparseSpMatAttribute_t,
    hipsparseSpGEMMAlg_t,
);

/// hipSPARSE's csr2csc default is 0, cuSPARSE's 1 (its only algorithm,
/// `CUSPARSE_CSR2CSC_ALG1`); hipSPARSE's `ALG2` has no cuSPARSE 12
/// counterpart.
impl ToCu for hipsparseCsr2CscAlg_t {
    type Cu = i32;
    fn to_cu(self) -> Result<i32, hipsparseStatus_t> {
        match self {
            Self::HIPSPARSE_CSR2CSC_ALG_DEFAULT | Self::HIPSPARSE_CSR2CSC_ALG1 => Ok(1),
            Self::HIPSPARSE_CSR2CSC_ALG2 => Err(hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED),
            _ => Err(hipsparseStatus_t::HIPSPARSE_STATUS_INVALID_VALUE),
        }
    }
}

/// `hipDataType` has cudaDataType's numbering (0..=29); the FNUZ fp8
/// formats (1000, 1001) exist only on AMD.
impl ToCu for hipDataType {
    type Cu = i32;
    fn to_cu(self) -> Result<i32, hipsparseStatus_t> {
        match self.0 {
            0..=29 => Ok(self.0 as i32),
            1000 | 1001 => Err(hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED),
            _ => Err(hipsparseStatus_t::HIPSPARSE_STATUS_INVALID_VALUE),
        }
    }
}

/// A cuSPARSE status as hipSPARSE's: the same numbers (0..=11); another
/// value, from a newer cuSPARSE, is an internal error.
pub(crate) fn from_cusparse(status: CusparseStatus) -> hipsparseStatus_t {
    match status {
        0..=11 => hipsparseStatus_t(status as _),
        _ => hipsparseStatus_t::HIPSPARSE_STATUS_INTERNAL_ERROR,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_pass_unchanged_and_unknown_statuses_become_internal_errors() {
        assert_eq!(hipsparseSpMMAlg_t::HIPSPARSE_SPMM_CSR_ALG3.to_cu(), Ok(12));
        assert_eq!(hipDataType::HIP_R_64F.to_cu(), Ok(1));
        assert_eq!(
            hipDataType(1000).to_cu(),
            Err(hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED)
        );
        assert_eq!(
            from_cusparse(9),
            hipsparseStatus_t::HIPSPARSE_STATUS_ZERO_PIVOT
        );
        assert_eq!(
            from_cusparse(42),
            hipsparseStatus_t::HIPSPARSE_STATUS_INTERNAL_ERROR
        );
    }
}
