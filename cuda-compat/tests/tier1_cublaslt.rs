//! Tier 1: cudarc's `cublaslt` module in `cuda_compat::cublaslt` (the
//! `cublaslt` feature, on by default): cuBLASLt's C names with
//! `cublasLt.h`'s signatures (checked by the compiler: `const` items
//! assigned to function-pointer types spelled as the header declares
//! them), the constants with hipBLASLt's values, and a program written
//! against cudarc's `CudaBlasLT` the way cudarc's own matmul test uses it,
//! which must compile unchanged. Nothing here calls a library.

use cuda_compat::cublaslt::sys::*;
use std::ffi::{c_int, c_void};

const _: () = {
    const _: unsafe fn(*mut cublasLtHandle_t) -> cublasStatus_t = cublasLtCreate;
    const _: unsafe fn(cublasLtHandle_t) -> cublasStatus_t = cublasLtDestroy;
    const _: unsafe fn(*mut cublasLtMatrixLayout_t, cudaDataType, u64, u64, i64) -> cublasStatus_t =
        cublasLtMatrixLayoutCreate;
    const _: unsafe fn(
        *mut cublasLtMatmulDesc_t,
        cublasComputeType_t,
        cudaDataType,
    ) -> cublasStatus_t = cublasLtMatmulDescCreate;
    const _: unsafe fn(
        cublasLtMatmulDesc_t,
        cublasLtMatmulDescAttributes_t,
        *const c_void,
        usize,
    ) -> cublasStatus_t = cublasLtMatmulDescSetAttribute;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cublasLtHandle_t,
        cublasLtMatmulDesc_t,
        cublasLtMatrixLayout_t,
        cublasLtMatrixLayout_t,
        cublasLtMatrixLayout_t,
        cublasLtMatrixLayout_t,
        cublasLtMatmulPreference_t,
        c_int,
        *mut cublasLtMatmulHeuristicResult_t,
        *mut c_int,
    ) -> cublasStatus_t = cublasLtMatmulAlgoGetHeuristic;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cublasLtHandle_t,
        cublasLtMatmulDesc_t,
        *const c_void,
        *const c_void,
        cublasLtMatrixLayout_t,
        *const c_void,
        cublasLtMatrixLayout_t,
        *const c_void,
        *const c_void,
        cublasLtMatrixLayout_t,
        *mut c_void,
        cublasLtMatrixLayout_t,
        *const cublasLtMatmulAlgo_t,
        *mut c_void,
        usize,
        cudaStream_t,
    ) -> cublasStatus_t = cublasLtMatmul;
};

#[test]
fn constants_carry_hipblaslts_values() {
    // hipBLASLt's numbering, which the NVIDIA backend maps to cuBLASLt's
    // (checked against cublasLt.h in hipblaslt-sys).
    assert_eq!(
        cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_EPILOGUE.0,
        2
    );
    assert_eq!(
        cublasLtMatrixLayoutAttribute_t::CUBLASLT_MATRIX_LAYOUT_LD.0,
        6
    );
    // The epilogues have one numbering in both libraries.
    assert_eq!(cublasLtEpilogue_t::CUBLASLT_EPILOGUE_GELU_BIAS.0, 36);
    assert_eq!(cublasLtEpilogue_t::CUBLASLT_EPILOGUE_RELU_BIAS.0, 6);
    let tables = cuda_compat::enums();
    assert!(tables.iter().any(|t| t.cuda == "cublasLtEpilogue_t"));
}

/// cudarc's matmul-with-epilogue shape, unchanged but for the crate name.
fn uses_cublaslt_like_cudarc() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    use cuda_compat::cublaslt::{Activation, CudaBlasLT, Matmul, MatmulConfig};
    use cuda_compat::driver::CudaContext;
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let blas = CudaBlasLT::new(stream.clone())?;
    let (m, n, k) = (3usize, 2usize, 4usize);
    let a = stream.clone_htod(&vec![1.0f32; m * k])?;
    let b = stream.clone_htod(&vec![1.0f32; k * n])?;
    let bias = stream.clone_htod(&vec![0.5f32; m])?;
    let mut c = stream.alloc_zeros::<f32>(m * n)?;
    let cfg = MatmulConfig {
        transa: false,
        transb: false,
        transc: false,
        m: m as u64,
        n: n as u64,
        k: k as u64,
        alpha: 1.0,
        lda: m as i64,
        ldb: k as i64,
        beta: 0.0,
        ldc: m as i64,
        stride_a: None,
        stride_b: None,
        stride_c: None,
        stride_bias: None,
        batch_size: None,
    };
    // SAFETY: the buffers are this stream's and hold what `cfg` spans.
    unsafe { blas.matmul(cfg, &a, &b, &mut c, Some(&bias), Some(&Activation::Relu)) }?;
    Ok(stream.clone_dtoh(&c)?)
}

/// The program runs where a GPU is; elsewhere it fails only for want of
/// one (its first call, `CudaContext::new`, fails the same way alone).
#[test]
fn a_cudarc_style_program_compiles_and_runs_where_it_can() {
    match uses_cublaslt_like_cudarc() {
        // relu(4 * 1 * 1 + 0.5) in each of the 3 x 2 elements.
        Ok(c) => assert_eq!(c, vec![4.5f32; 6]),
        Err(e) => assert!(
            cuda_compat::driver::CudaContext::new(0).is_err(),
            "a device exists, yet the program failed: {e}"
        ),
    }
}

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    use cuda_compat::cublaslt::result;
    // Without a device or a hipBLASLt (this machine), creating a handle
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
    assert_eq!(e.0, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    let why = test_kit::assert_reason_kept(&e, e.0, result::last_error_detail());
    // cuBLAS's error type is another: its reason is not this one.
    assert_ne!(
        cuda_compat::cublas::result::last_error_detail().map(|(_, w)| w),
        Some(why)
    );
}

#[test]
fn a_descriptor_call_without_hipblaslt_keeps_the_loaders_report() {
    use cuda_compat::cublaslt::result;
    let Err(load) = hipblaslt_sys::loader::hipblaslt() else {
        // A machine with hipBLASLt: the layout is made.
        let layout = result::create_matrix_layout(cudaDataType_t::CUDA_R_32F, 4, 3, 4).unwrap();
        // SAFETY: made just above, destroyed once.
        unsafe { result::destroy_matrix_layout(layout) }.unwrap();
        return;
    };
    let e = result::create_matrix_layout(cudaDataType_t::CUDA_R_32F, 4, 3, 4).unwrap_err();
    assert_eq!(e.0, cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
    let (status, why) = result::last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert_eq!(why, load.to_string());
    // `Debug` prints the status, then the reason.
    assert_eq!(format!("{e:?}"), format!("CublasError({:?}, {why:?})", e.0));
}

/// The two descriptor attributes hipBLASLt lacks: their one value that
/// means what hipBLASLt always does is accepted without any call (so no
/// library or device is needed, and no descriptor is read), any other is
/// refused with a reason naming the attribute. mistral.rs's
/// mistralrs-quant sets both on every matmul.
#[cfg(feature = "synthesized-enums")]
#[test]
fn attributes_hipblaslt_lacks_are_accepted_at_their_only_meaning() {
    use cublasLtMatmulDescAttributes_t as A;
    use cuda_compat::cublaslt::result::{last_error_detail, set_matmul_desc_attribute};
    use std::ffi::c_void;
    let desc: cublasLtMatmulDesc_t = std::ptr::null_mut();
    let set = |attr, value: &[u8]| {
        // SAFETY: `value` holds its length in bytes; for these attributes
        // nothing reads the descriptor.
        unsafe {
            set_matmul_desc_attribute(desc, attr, value.as_ptr().cast::<c_void>(), value.len())
        }
    };
    assert_eq!(
        set(A::CUBLASLT_MATMUL_DESC_TRANSC, &0i32.to_ne_bytes()),
        Ok(())
    );
    assert_eq!(
        set(
            A::CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
            &0i64.to_ne_bytes()
        ),
        Ok(())
    );

    let e = set(A::CUBLASLT_MATMUL_DESC_TRANSC, &1i32.to_ne_bytes()).unwrap_err();
    assert_eq!(e.0, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    let why = test_kit::assert_reason_kept(&e, e.0, last_error_detail());
    assert!(why.contains("CUBLASLT_MATMUL_DESC_TRANSC = 1"), "{why}");
    let e = set(
        A::CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
        &4096i64.to_ne_bytes(),
    )
    .unwrap_err();
    assert_eq!(e.0, cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED);
    assert!(
        format!("{e:?}").contains("BIAS_BATCH_STRIDE = 4096"),
        "{e:?}"
    );
    // The wrong size is the caller's mistake, not an unsupported value.
    let e = set(A::CUBLASLT_MATMUL_DESC_TRANSC, &0i64.to_ne_bytes()).unwrap_err();
    assert_eq!(e.0, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
}
