//! Tier 1: cudarc's `cublas::result` over the `hipblas` crate's result
//! layer: an error keeps the reason it failed for (hipBLAS's validation
//! message for a refused argument, the `hipblas` crate's message for a
//! failed call, the loader's report when no library loads), printed by
//! `Debug`; a raw status afterwards says only itself (no library or GPU
//! here).

use cuda_compat::cublas::{result, sys};
use sys::cublasOperation_t as Op;
use sys::cublasStatus_t as S;

/// `sgemm` of a 4x2 A by a 2x3 B into a 4x3 C, leading dimension `ldb`
/// for B, every pointer null and no handle: the call must be refused
/// before any of them is used (by a check, or for want of a library).
fn sgemm_4x3x2_with_null_pointers(ldb: std::ffi::c_int) -> result::CublasError {
    let (alpha, beta) = (1.0f32, 0.0f32);
    // SAFETY: each caller's case is refused before the handle or any
    // address is used.
    unsafe {
        result::sgemm(
            std::ptr::null_mut(),
            Op::CUBLAS_OP_N,
            Op::CUBLAS_OP_N,
            4,
            3,
            2,
            &alpha,
            std::ptr::null(),
            4,
            std::ptr::null(),
            ldb,
            &beta,
            std::ptr::null_mut(),
            4,
        )
    }
    .unwrap_err()
}

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    // Without a device or a hipBLAS (this machine), creating a handle
    // fails; the error keeps the words of the layer that refused it.
    let e = match result::create_handle() {
        Ok(handle) => {
            // A machine with both: nothing fails here.
            // SAFETY: made just above, destroyed once.
            unsafe { result::destroy_handle(handle) }.unwrap();
            return;
        }
        Err(e) => e,
    };
    assert_eq!(e.0, S::CUBLAS_STATUS_NOT_INITIALIZED);
    test_kit::assert_reason_kept(&e, e.0, result::last_error_detail());
    // A raw status afterwards says only itself.
    let raw = S::CUBLAS_STATUS_NOT_INITIALIZED.result();
    assert_eq!(raw, Err(e));
    assert_eq!(result::last_error_detail(), None);
    assert_eq!(
        format!("{:?}", raw.unwrap_err()),
        "CublasError(CUBLAS_STATUS_NOT_INITIALIZED)"
    );
}

#[test]
fn a_call_past_the_checks_keeps_the_loaders_report() {
    // Only where no hipBLAS loads: the call then never reaches a library
    // (its null handle and pointers are never used).
    let Err(load) = hipblas_sys::loader::hipblas() else {
        return;
    };
    // No library is loaded: the raw call answers without using the
    // handle or any address.
    let e = sgemm_4x3x2_with_null_pointers(2);
    assert_eq!(e.0, S::CUBLAS_STATUS_NOT_INITIALIZED);
    let (status, why) = result::last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert_eq!(why, load.to_string());
    let first = why.lines().next().expect("a line");
    assert!(format!("{e:?}").contains(first), "{e:?}");
}

#[test]
fn a_refused_argument_keeps_hipblas_validation_message() {
    // ldb = 1 is below op(B)'s 2 rows: hipblas::validate refuses it
    // before any call, and its words are the reason.
    let e = sgemm_4x3x2_with_null_pointers(1);
    assert_eq!(e.0, S::CUBLAS_STATUS_INVALID_VALUE);
    let (status, why) = result::last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("validate::matrix_span"), "{why}");
    assert!(why.contains("ldb = 1"), "{why}");
    assert!(why.contains("max(1, rows) = 2"), "{why}");
    assert!(format!("{e:?}").contains("ldb = 1"), "{e:?}");

    // The same for the mixed-precision GEMM candle calls.
    let f32_ = sys::cudaDataType_t::CUDA_R_32F;
    let alpha = 1.0f32;
    let one = (&alpha as *const f32).cast();
    // SAFETY: refused before the handle or any address is used (ldc 3 < m 4).
    let e = unsafe {
        result::gemm_ex(
            std::ptr::null_mut(),
            Op::CUBLAS_OP_N,
            Op::CUBLAS_OP_T,
            4,
            3,
            2,
            one,
            std::ptr::null(),
            f32_,
            4,
            std::ptr::null(),
            f32_,
            3,
            one,
            std::ptr::null_mut(),
            f32_,
            3,
            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
        )
    }
    .unwrap_err();
    assert_eq!(e.0, S::CUBLAS_STATUS_INVALID_VALUE);
    let (_, why) = result::last_error_detail().expect("a reason");
    assert!(why.contains("ldc = 3"), "{why}");
}
