//! Tier 1: cuSPARSE's C names in `cuda_compat::cusparse::sys` (the
//! `cusparse` feature) with cuSPARSE's signatures (checked by the compiler:
//! `const` items of function-pointer types spelled as `cusparse.h` declares
//! them) and values, and cudarc's `cusparse::result` layer, used as a
//! cudarc program uses it. Without hipSPARSE (this machine) the calls
//! return `CUSPARSE_STATUS_NOT_INITIALIZED` instead of crashing.

use cuda_compat::cusparse::result::{self, CusparseError};
use cuda_compat::cusparse::sys::*;
use cuda_compat::runtime::cudaDataType;
use std::ffi::c_void;

const _: () = {
    const _: unsafe fn(*mut cusparseHandle_t) -> cusparseStatus_t = cusparseCreate;
    const _: unsafe fn(cusparseHandle_t) -> cusparseStatus_t = cusparseDestroy;
    const _: unsafe fn(cusparseHandle_t, cudaStream_t) -> cusparseStatus_t = cusparseSetStream;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        *mut cusparseSpMatDescr_t,
        i64,
        i64,
        i64,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        cusparseIndexType_t,
        cusparseIndexType_t,
        cusparseIndexBase_t,
        cudaDataType,
    ) -> cusparseStatus_t = cusparseCreateCsr;
    const _: unsafe fn(
        *mut cusparseDnVecDescr_t,
        i64,
        *mut c_void,
        cudaDataType,
    ) -> cusparseStatus_t = cusparseCreateDnVec;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cusparseHandle_t,
        cusparseOperation_t,
        *const c_void,
        cusparseConstSpMatDescr_t,
        cusparseConstDnVecDescr_t,
        *const c_void,
        cusparseDnVecDescr_t,
        cudaDataType,
        cusparseSpMVAlg_t,
        *mut usize,
    ) -> cusparseStatus_t = cusparseSpMV_bufferSize;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cusparseHandle_t,
        cusparseOperation_t,
        *const c_void,
        cusparseConstSpMatDescr_t,
        cusparseConstDnVecDescr_t,
        *const c_void,
        cusparseDnVecDescr_t,
        cudaDataType,
        cusparseSpMVAlg_t,
        *mut c_void,
    ) -> cusparseStatus_t = cusparseSpMV;
};

#[test]
fn constants_have_cusparses_values() {
    // Values of cuSPARSE 12.5's cusparse.h.
    assert_eq!(cusparseStatus_t::CUSPARSE_STATUS_SUCCESS.0, 0);
    assert_eq!(cusparseStatus_t::CUSPARSE_STATUS_ZERO_PIVOT.0, 9);
    assert_eq!(cusparseIndexType_t::CUSPARSE_INDEX_32I.0, 2);
    assert_eq!(cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ONE.0, 1);
    assert_eq!(cusparseSpMVAlg_t::CUSPARSE_SPMV_CSR_ALG2.0, 3);
    assert_eq!(cusparseSpMMAlg_t::CUSPARSE_SPMM_CSR_ALG3.0, 12);
    assert_eq!(cusparseOrder_t::CUSPARSE_ORDER_ROW.0, 2);
}

/// What a cudarc program does with `cudarc::cusparse`: a handle from
/// `result::create`, raw calls checked with `.result()`, `result::destroy`.
fn cudarc_style_program() -> Result<usize, CusparseError> {
    let handle = result::create()?;
    let mut mat: cusparseSpMatDescr_t = std::ptr::null_mut();
    let (offsets, cols, vals) = (
        std::ptr::null_mut::<c_void>(),
        std::ptr::null_mut::<c_void>(),
        std::ptr::null_mut::<c_void>(),
    );
    // SAFETY: a 0 x 0 matrix with no entries; nothing is read.
    unsafe {
        cusparseCreateCsr(
            &mut mat,
            0,
            0,
            0,
            offsets,
            cols,
            vals,
            cusparseIndexType_t::CUSPARSE_INDEX_32I,
            cusparseIndexType_t::CUSPARSE_INDEX_32I,
            cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
            cudaDataType::CUDA_R_32F,
        )
    }
    .result()?;
    // SAFETY: made above, destroyed once.
    unsafe { cusparseDestroySpMat(mat) }.result()?;
    // SAFETY: made above, destroyed once.
    unsafe { result::destroy(handle) }?;
    Ok(1)
}

#[test]
fn a_cudarc_style_program_runs_or_reports_the_missing_library() {
    match cudarc_style_program() {
        Ok(n) => assert_eq!(n, 1),
        Err(e) => {
            println!("cuSPARSE/hipSPARSE unavailable: {e}");
            assert_eq!(
                e,
                CusparseError(cusparseStatus_t::CUSPARSE_STATUS_NOT_INITIALIZED)
            );
        }
    }
}

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    // Without a device or a hipSPARSE (this machine), creating a handle
    // fails; the error keeps the words of the layer that refused it (no
    // device, or the library paths tried), printed by `Debug`.
    let Err(e) = result::create() else {
        // A machine with both: nothing fails here.
        assert!(hipsparse_sys::loader::hipsparse().is_ok());
        return;
    };
    assert_eq!(e.0, cusparseStatus_t::CUSPARSE_STATUS_NOT_INITIALIZED);
    test_kit::assert_reason_kept(&e, e.0, result::last_error_detail());
    // A raw status afterwards says only itself.
    let raw = cusparseStatus_t::CUSPARSE_STATUS_NOT_INITIALIZED.result();
    assert_eq!(raw, Err(e));
    assert_eq!(result::last_error_detail(), None);
    assert_eq!(
        format!("{e:?}"),
        "CusparseError(CUSPARSE_STATUS_NOT_INITIALIZED)"
    );
}
