//! hipBLASLt's enum values as cuBLASLt's, and cuBLASLt's statuses as
//! hipBLAS's.
//!
//! hipBLASLt numbers its attributes in its own order (the layout's `LD` is
//! 6 in hipBLASLt, 4 in cuBLASLt; the matmul descriptor's `EPILOGUE` is 2
//! and 7), and hipBLAS's operations are 111..113 where cuBLAS's are 0..2.
//! Each function here maps one enum; `None` is an enumerator with no
//! cuBLASLt counterpart (AMD's `_EXT` extensions, its blocked orders), which
//! the adapters answer with `HIPBLAS_STATUS_NOT_SUPPORTED`. Every value is
//! checked against the CUDA headers by the generated
//! `cublaslt_enumerators.rs`, which also checks that every hipBLASLt
//! enumerator cuBLASLt lacks gives `None`.

use crate::*;
use hip_sys::loader::adapter::{Library, ToCuda};

/// hipBLASLt, for hip-sys's adapter kit: its status type is hipBLAS's, so
/// the conversions belong to this marker.
#[derive(Debug)]
pub(crate) enum HipblasLt {}

impl Library for HipblasLt {
    type Status = hipblasStatus_t;
}

// Handles, descriptors, layouts, sizes and data pointers pass unchanged
// (the generated adapters).
hip_sys::cuda_unchanged!(HipblasLt: u64, i64);
hip_sys::cuda_unchanged!(HipblasLt: pointers);

// `hipDataType`'s values are `cudaDataType`'s for every type cuBLASLt takes.
hip_sys::cuda_same_values!(
    HipblasLt,
    hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE;
    hipDataType,
);

/// A compute type through [`compute_type`]; one cuBLASLt lacks is refused
/// with `HIPBLAS_STATUS_NOT_SUPPORTED` before cuBLASLt is called.
impl ToCuda<HipblasLt> for hipblasComputeType_t {
    type Held = i32;
    fn to_cuda(self) -> Result<i32, hipblasStatus_t> {
        compute_type(self).ok_or(hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED)
    }
}

/// `hipblasLtMatrixLayoutAttribute_t` -> `cublasLtMatrixLayoutAttribute_t`.
pub(crate) fn layout_attribute(a: hipblasLtMatrixLayoutAttribute_t) -> Option<i32> {
    use hipblasLtMatrixLayoutAttribute_t as A;
    Some(match a {
        A::HIPBLASLT_MATRIX_LAYOUT_TYPE => 0,
        A::HIPBLASLT_MATRIX_LAYOUT_ORDER => 1,
        A::HIPBLASLT_MATRIX_LAYOUT_ROWS => 2,
        A::HIPBLASLT_MATRIX_LAYOUT_COLS => 3,
        A::HIPBLASLT_MATRIX_LAYOUT_LD => 4,
        A::HIPBLASLT_MATRIX_LAYOUT_BATCH_COUNT => 5,
        A::HIPBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET => 6,
        _ => return None,
    })
}

/// `hipblasLtMatmulDescAttributes_t` -> `cublasLtMatmulDescAttributes_t`.
pub(crate) fn desc_attribute(a: hipblasLtMatmulDescAttributes_t) -> Option<i32> {
    use hipblasLtMatmulDescAttributes_t as A;
    Some(match a {
        A::HIPBLASLT_MATMUL_DESC_TRANSA => 3,
        A::HIPBLASLT_MATMUL_DESC_TRANSB => 4,
        A::HIPBLASLT_MATMUL_DESC_EPILOGUE => 7,
        A::HIPBLASLT_MATMUL_DESC_BIAS_POINTER => 8,
        A::HIPBLASLT_MATMUL_DESC_BIAS_DATA_TYPE => 26,
        A::HIPBLASLT_MATMUL_DESC_A_SCALE_POINTER => 17,
        A::HIPBLASLT_MATMUL_DESC_B_SCALE_POINTER => 18,
        A::HIPBLASLT_MATMUL_DESC_C_SCALE_POINTER => 19,
        A::HIPBLASLT_MATMUL_DESC_D_SCALE_POINTER => 20,
        A::HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER => 23,
        A::HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER => 11,
        A::HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD => 12,
        A::HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE => 13,
        A::HIPBLASLT_MATMUL_DESC_POINTER_MODE => 2,
        A::HIPBLASLT_MATMUL_DESC_AMAX_D_POINTER => 21,
        A::HIPBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE => 22,
        A::HIPBLASLT_MATMUL_DESC_A_SCALE_MODE => 31,
        A::HIPBLASLT_MATMUL_DESC_B_SCALE_MODE => 32,
        _ => return None,
    })
}

/// `hipblasLtMatmulPreferenceAttributes_t` ->
/// `cublasLtMatmulPreferenceAttributes_t` (the same two values).
pub(crate) fn preference_attribute(a: hipblasLtMatmulPreferenceAttributes_t) -> Option<i32> {
    use hipblasLtMatmulPreferenceAttributes_t as A;
    Some(match a {
        A::HIPBLASLT_MATMUL_PREF_SEARCH_MODE => 0,
        A::HIPBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES => 1,
        _ => return None,
    })
}

/// `hipblasLtMatrixTransformDescAttributes_t` ->
/// `cublasLtMatrixTransformDescAttributes_t` (the same order).
pub(crate) fn transform_attribute(a: hipblasLtMatrixTransformDescAttributes_t) -> Option<i32> {
    use hipblasLtMatrixTransformDescAttributes_t as A;
    Some(match a {
        A::HIPBLASLT_MATRIX_TRANSFORM_DESC_SCALE_TYPE => 0,
        A::HIPBLASLT_MATRIX_TRANSFORM_DESC_POINTER_MODE => 1,
        A::HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSA => 2,
        A::HIPBLASLT_MATRIX_TRANSFORM_DESC_TRANSB => 3,
        _ => return None,
    })
}

/// `hipblasLtEpilogue_t` -> `cublasLtEpilogue_t`: equal values, except
/// AMD's Swish and clamp epilogues, which cuBLASLt lacks.
pub(crate) fn epilogue(e: hipblasLtEpilogue_t) -> Option<u32> {
    use hipblasLtEpilogue_t as E;
    match e {
        E::HIPBLASLT_EPILOGUE_DEFAULT
        | E::HIPBLASLT_EPILOGUE_RELU
        | E::HIPBLASLT_EPILOGUE_BIAS
        | E::HIPBLASLT_EPILOGUE_RELU_BIAS
        | E::HIPBLASLT_EPILOGUE_GELU
        | E::HIPBLASLT_EPILOGUE_GELU_BIAS
        | E::HIPBLASLT_EPILOGUE_RELU_AUX
        | E::HIPBLASLT_EPILOGUE_RELU_AUX_BIAS
        | E::HIPBLASLT_EPILOGUE_GELU_AUX
        | E::HIPBLASLT_EPILOGUE_GELU_AUX_BIAS
        | E::HIPBLASLT_EPILOGUE_DGELU
        | E::HIPBLASLT_EPILOGUE_DGELU_BGRAD
        | E::HIPBLASLT_EPILOGUE_BGRADA
        | E::HIPBLASLT_EPILOGUE_BGRADB => Some(e.0),
        _ => None,
    }
}

/// `hipblasLtOrder_t` -> `cublasLtOrder_t`: row and column major (AMD's
/// `COL16_4R*` tile orders have no cuBLASLt counterpart).
pub(crate) fn order(o: hipblasLtOrder_t) -> Option<i32> {
    use hipblasLtOrder_t as O;
    match o {
        O::HIPBLASLT_ORDER_COL => Some(0),
        O::HIPBLASLT_ORDER_ROW => Some(1),
        _ => None,
    }
}

/// `hipblasLtPointerMode_t` -> `cublasLtPointerMode_t` (equal values).
pub(crate) fn pointer_mode(p: hipblasLtPointerMode_t) -> Option<i32> {
    use hipblasLtPointerMode_t as P;
    match p {
        P::HIPBLASLT_POINTER_MODE_HOST => Some(0),
        P::HIPBLASLT_POINTER_MODE_DEVICE => Some(1),
        P::HIPBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST => Some(4),
        _ => None,
    }
}

/// `hipblasLtMatmulMatrixScale_t` -> `cublasLtMatmulMatrixScale_t` (equal
/// values, `_END` included).
pub(crate) fn matrix_scale(s: hipblasLtMatmulMatrixScale_t) -> Option<i32> {
    (0..=6).contains(&s.0).then_some(s.0 as i32)
}

/// `hipblasOperation_t` (111..113) -> `cublasOperation_t` (0..2).
pub(crate) fn operation(o: hipblasOperation_t) -> Option<i32> {
    match o {
        hipblasOperation_t::HIPBLAS_OP_N => Some(0),
        hipblasOperation_t::HIPBLAS_OP_T => Some(1),
        hipblasOperation_t::HIPBLAS_OP_C => Some(2),
        _ => None,
    }
}

/// `cublasOperation_t` -> `hipblasOperation_t`.
pub(crate) fn operation_from_cu(v: i32) -> Option<hipblasOperation_t> {
    match v {
        0 => Some(hipblasOperation_t::HIPBLAS_OP_N),
        1 => Some(hipblasOperation_t::HIPBLAS_OP_T),
        2 => Some(hipblasOperation_t::HIPBLAS_OP_C),
        _ => None,
    }
}

/// `hipblasComputeType_t` -> `cublasComputeType_t` (AMD's FNUZ fp8
/// compute types have no counterpart).
pub(crate) fn compute_type(c: hipblasComputeType_t) -> Option<i32> {
    use hipblasComputeType_t as C;
    Some(match c {
        C::HIPBLAS_COMPUTE_16F => 64,
        C::HIPBLAS_COMPUTE_16F_PEDANTIC => 65,
        C::HIPBLAS_COMPUTE_32F => 68,
        C::HIPBLAS_COMPUTE_32F_PEDANTIC => 69,
        C::HIPBLAS_COMPUTE_32F_FAST_16F => 74,
        C::HIPBLAS_COMPUTE_32F_FAST_16BF => 75,
        C::HIPBLAS_COMPUTE_32F_FAST_TF32 => 77,
        C::HIPBLAS_COMPUTE_64F => 70,
        C::HIPBLAS_COMPUTE_64F_PEDANTIC => 71,
        C::HIPBLAS_COMPUTE_32I => 72,
        C::HIPBLAS_COMPUTE_32I_PEDANTIC => 73,
        _ => return None,
    })
}

/// `cublasStatus_t` -> `hipblasStatus_t`, as hipBLAS's NVIDIA backend maps
/// it.
pub(crate) fn from_cublas(s: i32) -> hipblasStatus_t {
    match s {
        0 => hipblasStatus_t::HIPBLAS_STATUS_SUCCESS,
        1 => hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED,
        3 => hipblasStatus_t::HIPBLAS_STATUS_ALLOC_FAILED,
        7 => hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE,
        8 => hipblasStatus_t::HIPBLAS_STATUS_ARCH_MISMATCH,
        11 => hipblasStatus_t::HIPBLAS_STATUS_MAPPING_ERROR,
        13 => hipblasStatus_t::HIPBLAS_STATUS_EXECUTION_FAILED,
        14 => hipblasStatus_t::HIPBLAS_STATUS_INTERNAL_ERROR,
        15 => hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED,
        _ => hipblasStatus_t::HIPBLAS_STATUS_UNKNOWN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_round_trip_and_statuses_map() {
        for op in [
            hipblasOperation_t::HIPBLAS_OP_N,
            hipblasOperation_t::HIPBLAS_OP_T,
            hipblasOperation_t::HIPBLAS_OP_C,
        ] {
            assert_eq!(operation_from_cu(operation(op).unwrap()), Some(op));
        }
        assert_eq!(operation(hipblasOperation_t(0)), None);
        assert_eq!(from_cublas(0), hipblasStatus_t::HIPBLAS_STATUS_SUCCESS);
        assert_eq!(
            from_cublas(15),
            hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED
        );
        assert_eq!(from_cublas(999), hipblasStatus_t::HIPBLAS_STATUS_UNKNOWN);
        assert_eq!(matrix_scale(hipblasLtMatmulMatrixScale_t(7)), None);
    }
}
