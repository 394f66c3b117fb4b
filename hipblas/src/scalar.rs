//! Element types and their hipBLAS routines.

use crate::error::{Error, Result};
use hipblas_sys::*;

/// The complex types, shared with the other math libraries through `hip`
/// (hipBLAS's `hipComplex`/`hipDoubleComplex` layout).
pub use hip::{c32, c64, Complex};

/// An element type hipBLAS computes with.
pub trait Scalar: hip::Element {
    /// hipBLAS's v2 name of the type.
    const DATA_TYPE: hipDataType;
    /// hipBLAS's v1 name of the type.
    const DATATYPE_V1: hipblasDatatype_t;
}

macro_rules! scalar {
    ($t:ty, $v2:ident, $v1:ident) => {
        impl Scalar for $t {
            const DATA_TYPE: hipDataType = hipDataType::$v2;
            const DATATYPE_V1: hipblasDatatype_t = hipblasDatatype_t::$v1;
        }
    };
}
scalar!(f32, HIP_R_32F, HIPBLAS_R_32F);
scalar!(f64, HIP_R_64F, HIPBLAS_R_64F);
scalar!(half::f16, HIP_R_16F, HIPBLAS_R_16F);
scalar!(half::bf16, HIP_R_16BF, HIPBLAS_R_16B);
scalar!(c32, HIP_C_32F, HIPBLAS_C_32F);
scalar!(c64, HIP_C_64F, HIPBLAS_C_64F);

/// How a GEMM of this element type is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub enum GemmRoute {
    /// `hipblas<T>gemm` and its batched forms.
    Typed,
    /// `hipblasGemmEx` with f32 accumulation (bf16 has no typed GEMM).
    ExF32,
}

/// Element types with a GEMM: f32, f64, f16 (`hipblasHgemm`, f16
/// accumulation), bf16 (`hipblasGemmEx`, f32 accumulation), c32, c64.
pub trait Gemm: Scalar {
    #[doc(hidden)]
    const ROUTE: GemmRoute;
    /// The C function [`Gemm::gemm`] calls, named in its errors.
    #[doc(hidden)]
    const GEMM_CALL: &'static str;
    /// The C function [`Gemm::gemm_strided_batched`] calls.
    #[doc(hidden)]
    const GEMM_STRIDED_BATCHED_CALL: &'static str;
    /// The C function [`Gemm::gemm_batched`] calls.
    #[doc(hidden)]
    const GEMM_BATCHED_CALL: &'static str;
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    /// # Safety
    /// Raw hipBLAS call: valid handle, device pointers covering the shape.
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
    ) -> Result<()>;
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    /// # Safety
    /// As [`Gemm::gemm`], for every product of the batch.
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
    ) -> Result<()>;
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    /// # Safety
    /// As [`Gemm::gemm`]; `a`, `b`, `c` are device arrays of device pointers.
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
    ) -> Result<()>;
}

// The typed impls (f32, f64, f16, c32, c64) are in `result.rs`, beside
// the functions they call and name in their errors.

fn bf16_has_no_typed_gemm() -> Error {
    Error::unsupported(
        "Gemm for bf16",
        "hipBLAS has no typed bf16 GEMM; Blas::gemm routes bf16 through GemmEx",
    )
}

/// bf16 has no typed GEMM in hipBLAS: the safe layer routes it through
/// `GemmEx` with f32 accumulation; these raw entry points are not used.
impl Gemm for half::bf16 {
    const ROUTE: GemmRoute = GemmRoute::ExF32;
    // The raw entry points below call nothing; the safe layer's `GemmEx`
    // route names the function it calls itself.
    const GEMM_CALL: &'static str = "hipblasGemmEx";
    const GEMM_STRIDED_BATCHED_CALL: &'static str = "hipblasGemmStridedBatchedEx";
    const GEMM_BATCHED_CALL: &'static str = "hipblasGemmBatchedEx";
    unsafe fn gemm(
        _: hipblasHandle_t,
        _: hipblasOperation_t,
        _: hipblasOperation_t,
        _: i32,
        _: i32,
        _: i32,
        _: &Self,
        _: *const Self,
        _: i32,
        _: *const Self,
        _: i32,
        _: &Self,
        _: *mut Self,
        _: i32,
    ) -> Result<()> {
        Err(bf16_has_no_typed_gemm())
    }
    unsafe fn gemm_strided_batched(
        _: hipblasHandle_t,
        _: hipblasOperation_t,
        _: hipblasOperation_t,
        _: i32,
        _: i32,
        _: i32,
        _: &Self,
        _: *const Self,
        _: i32,
        _: i64,
        _: *const Self,
        _: i32,
        _: i64,
        _: &Self,
        _: *mut Self,
        _: i32,
        _: i64,
        _: i32,
    ) -> Result<()> {
        Err(bf16_has_no_typed_gemm())
    }
    unsafe fn gemm_batched(
        _: hipblasHandle_t,
        _: hipblasOperation_t,
        _: hipblasOperation_t,
        _: i32,
        _: i32,
        _: i32,
        _: &Self,
        _: *const *const Self,
        _: i32,
        _: *const *const Self,
        _: i32,
        _: &Self,
        _: *const *mut Self,
        _: i32,
        _: i32,
    ) -> Result<()> {
        Err(bf16_has_no_typed_gemm())
    }
}
