//! hip-sys's adapter kit with hipBLAS's conversion kinds: adapters of this
//! test's own, expanded as the generated ones are, checked without cuBLAS.

#![allow(unused_qualifications)]

use super::convert::{Result16, Scalar16, V1Compute};
use crate::generated::functions::HipblasFunctions;
use crate::*;
use core::ffi::*;

// Every conversion kind, in adapters of this test's own (the generated
// ones are the same expansion): `Result16`, `Scalar16`, `V1Compute`
// and an unused last parameter.
hip_sys::cuda_adapters! {
slot: crate::nvidia::CUBLAS,
library: hipblasStatus_t,
missing: hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED,
cuda_status: crate::nvidia::convert::CublasStatus,
from_cuda: crate::nvidia::convert::from_cublas,
table: HipblasFunctions;
hipblasZaxpy_v2(handle: hipblasHandle_t, n: c_int, alpha @ Scalar16: *const hipDoubleComplex, x: *const hipDoubleComplex, incx: c_int, y: *mut hipDoubleComplex, incy: c_int) => "cublasZaxpy_v2";
hipblasZdotc_v2(handle: hipblasHandle_t, n: c_int, x: *const hipDoubleComplex, incx: c_int, y: *const hipDoubleComplex, incy: c_int, result @ Result16: *mut hipDoubleComplex) => "cublasZdotc_v2";
hipblasGemmExWithFlags(handle: hipblasHandle_t, transA: hipblasOperation_t, transB: hipblasOperation_t, m: c_int, n: c_int, k: c_int, alpha: *const c_void, A: *const c_void, aType: hipblasDatatype_t, lda: c_int, B: *const c_void, bType: hipblasDatatype_t, ldb: c_int, beta: *const c_void, C: *mut c_void, cType: hipblasDatatype_t, ldc: c_int, computeType @ V1Compute: hipblasDatatype_t, algo: hipblasGemmAlgo_t; unused flags: hipblasGemmFlags_t) => "cublasGemmEx";
}

#[test]
fn without_cublas_an_adapter_reports_not_supported_and_is_not_installed() {
    assert!(
        !super::CUBLAS.is_filled(),
        "this test needs a process in which cuBLAS was not loaded"
    );
    let mut table = HipblasFunctions::EMPTY;
    install(&mut table);
    assert!(table.hipblasZdotc_v2.is_none() && table.hipblasZaxpy_v2.is_none());
    assert!(table.hipblasGemmExWithFlags.is_none());
    assert_eq!(
        ADAPTERS,
        &[
            ("hipblasZaxpy_v2", "cublasZaxpy_v2"),
            ("hipblasZdotc_v2", "cublasZdotc_v2"),
            ("hipblasGemmExWithFlags", "cublasGemmEx"),
        ]
    );
    let x = [hipDoubleComplex { x: 1.5, y: -2.0 }; 2];
    let mut result = hipDoubleComplex { x: 7.0, y: 8.0 };
    // SAFETY: valid vectors of 2 and a valid result; the adapter returns
    // before reading any of them (no cuBLAS symbol).
    let status = unsafe {
        hipblasZdotc_v2(
            std::ptr::null_mut(),
            2,
            x.as_ptr(),
            1,
            x.as_ptr(),
            1,
            &mut result,
        )
    };
    assert_eq!(status, hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED);
    assert_eq!((result.x, result.y), (7.0, 8.0), "the result was touched");
}
