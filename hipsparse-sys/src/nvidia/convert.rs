//! hipSPARSE arguments as cuSPARSE takes them, and cuSPARSE statuses back.
//!
//! hipSPARSE 6.4.3 gives every enum and status the value cuSPARSE gives the
//! enumerator of the same name (the header was written for that, and
//! `cusparse_enumerators.rs` checks each value against cuSPARSE 12.5's
//! `cusparse.h`), so every conversion here passes the value on, except
//! the csr2csc algorithm's default. Each argument type implements
//! hip-sys's [`ToCuda`] (the adapter kit's conversion).

use crate::*;
use hip_sys::hipDataType;
use hip_sys::loader::adapter::{Library, ToCuda};

/// The library these conversions belong to, for hip-sys's adapter kit.
impl Library for hipsparseStatus_t {
    type Status = hipsparseStatus_t;
}

/// `cusparseStatus_t`.
pub(crate) type CusparseStatus = i32;

hip_sys::cuda_unchanged!(hipsparseStatus_t: i32, i64, usize, f32, f64, hipComplex, hipDoubleComplex);

// Pointers (buffers, handles, descriptors, streams, result slots) pass
// unchanged: the pointees have the same layout on both sides (`hipComplex`
// and `cuComplex` are two floats; a descriptor is opaque to both; the
// `hipStream_t` of hip-sys's NVIDIA platform is the `cudaStream_t`).
hip_sys::cuda_unchanged!(hipsparseStatus_t: pointers);

// The C enums, each an `int` in cuSPARSE with the same value.
hip_sys::cuda_same_values!(
    hipsparseStatus_t,
    hipsparseStatus_t::HIPSPARSE_STATUS_INVALID_VALUE;
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
impl ToCuda<hipsparseStatus_t> for hipsparseCsr2CscAlg_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipsparseStatus_t> {
        match self {
            Self::HIPSPARSE_CSR2CSC_ALG_DEFAULT | Self::HIPSPARSE_CSR2CSC_ALG1 => Ok(1),
            Self::HIPSPARSE_CSR2CSC_ALG2 => Err(hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED),
            _ => Err(hipsparseStatus_t::HIPSPARSE_STATUS_INVALID_VALUE),
        }
    }
}

/// `hipDataType` has cudaDataType's numbering (0..=29); the FNUZ fp8
/// formats (1000, 1001) exist only on AMD.
impl ToCuda<hipsparseStatus_t> for hipDataType {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipsparseStatus_t> {
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

    /// Every `hipDataType` with a CUDA counterpart becomes that
    /// `cudaDataType`'s value (`library_types.h` of CUDA 12.5), complex
    /// types included: the values and compute types of every generic call.
    #[test]
    fn data_types_become_their_cuda_values() {
        let pairs: [(hipDataType, i32, &str); 30] = [
            (hipDataType::HIP_R_32F, 0, "CUDA_R_32F"),
            (hipDataType::HIP_R_64F, 1, "CUDA_R_64F"),
            (hipDataType::HIP_R_16F, 2, "CUDA_R_16F"),
            (hipDataType::HIP_R_8I, 3, "CUDA_R_8I"),
            (hipDataType::HIP_C_32F, 4, "CUDA_C_32F"),
            (hipDataType::HIP_C_64F, 5, "CUDA_C_64F"),
            (hipDataType::HIP_C_16F, 6, "CUDA_C_16F"),
            (hipDataType::HIP_C_8I, 7, "CUDA_C_8I"),
            (hipDataType::HIP_R_8U, 8, "CUDA_R_8U"),
            (hipDataType::HIP_C_8U, 9, "CUDA_C_8U"),
            (hipDataType::HIP_R_32I, 10, "CUDA_R_32I"),
            (hipDataType::HIP_C_32I, 11, "CUDA_C_32I"),
            (hipDataType::HIP_R_32U, 12, "CUDA_R_32U"),
            (hipDataType::HIP_C_32U, 13, "CUDA_C_32U"),
            (hipDataType::HIP_R_16BF, 14, "CUDA_R_16BF"),
            (hipDataType::HIP_C_16BF, 15, "CUDA_C_16BF"),
            (hipDataType::HIP_R_4I, 16, "CUDA_R_4I"),
            (hipDataType::HIP_C_4I, 17, "CUDA_C_4I"),
            (hipDataType::HIP_R_4U, 18, "CUDA_R_4U"),
            (hipDataType::HIP_C_4U, 19, "CUDA_C_4U"),
            (hipDataType::HIP_R_16I, 20, "CUDA_R_16I"),
            (hipDataType::HIP_C_16I, 21, "CUDA_C_16I"),
            (hipDataType::HIP_R_16U, 22, "CUDA_R_16U"),
            (hipDataType::HIP_C_16U, 23, "CUDA_C_16U"),
            (hipDataType::HIP_R_64I, 24, "CUDA_R_64I"),
            (hipDataType::HIP_C_64I, 25, "CUDA_C_64I"),
            (hipDataType::HIP_R_64U, 26, "CUDA_R_64U"),
            (hipDataType::HIP_C_64U, 27, "CUDA_C_64U"),
            (hipDataType::HIP_R_8F_E4M3, 28, "CUDA_R_8F_E4M3"),
            (hipDataType::HIP_R_8F_E5M2, 29, "CUDA_R_8F_E5M2"),
        ];
        for (hip, cuda, name) in pairs {
            assert_eq!(hip.to_cuda(), Ok(cuda), "{hip:?} should become {name}");
        }
        assert_eq!(
            hipDataType::HIP_R_8F_E5M2_FNUZ.to_cuda(),
            Err(hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED)
        );
        assert_eq!(
            hipDataType(30).to_cuda(),
            Err(hipsparseStatus_t::HIPSPARSE_STATUS_INVALID_VALUE)
        );
    }

    /// `hipComplex` and `hipDoubleComplex` are passed by pointer as
    /// `cuComplex` and `cuDoubleComplex`: `float2` and `double2`, aligned
    /// to 8 and 16 bytes (`vector_types.h`).
    #[test]
    fn complex_types_have_the_cuda_layouts() {
        assert_eq!(size_of::<hipComplex>(), 8);
        assert_eq!(align_of::<hipComplex>(), 8);
        assert_eq!(size_of::<hipDoubleComplex>(), 16);
        assert_eq!(align_of::<hipDoubleComplex>(), 16);
    }

    #[test]
    fn values_pass_unchanged_and_unknown_statuses_become_internal_errors() {
        assert_eq!(
            hipsparseSpMMAlg_t::HIPSPARSE_SPMM_CSR_ALG3.to_cuda(),
            Ok(12)
        );
        assert_eq!(hipDataType::HIP_R_64F.to_cuda(), Ok(1));
        assert_eq!(
            hipDataType(1000).to_cuda(),
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
