//! Tier 3: cudarc's `cusparse::result` over the `hipsparse` crate on a real
//! GPU: a handle from `result::create` drives a CSR SpMV checked against
//! the host product, and a refused call keeps its reason. Run with
//! `--ignored` (`HIP_PLATFORM=nvidia` on an NVIDIA GPU).

#![cfg(feature = "cusparse")]

use cuda_compat::cusparse::{result, sys::*};
use cuda_compat::driver::{CudaContext, DevicePtr, DevicePtrMut};
use cuda_compat::runtime::cudaDataType;
use std::ffi::c_void;

/// `y = A x` for A = [[1, 0, 2], [0, 3, 0], [4, 0, 5]] in CSR and
/// x = [1, 2, 3]: exactly [7, 6, 19] (small integers, exact in f32), and
/// the host product of the same CSR arrays agrees.
#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_result_functions_drive_an_spmv_and_keep_the_reason_of_a_refusal() {
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let offsets: [i32; 4] = [0, 2, 3, 5];
    let columns: [i32; 5] = [0, 2, 1, 0, 2];
    let values: [f32; 5] = [1.0, 2.0, 3.0, 4.0, 5.0];
    let x: [f32; 3] = [1.0, 2.0, 3.0];
    let mut expected = [0f32; 3];
    for (row, y) in expected.iter_mut().enumerate() {
        for k in offsets[row]..offsets[row + 1] {
            *y += values[k as usize] * x[columns[k as usize] as usize];
        }
    }
    assert_eq!(expected, [7.0, 6.0, 19.0]);

    let d_offsets = stream.clone_htod(&offsets).unwrap();
    let d_columns = stream.clone_htod(&columns).unwrap();
    let d_values = stream.clone_htod(&values).unwrap();
    let d_x = stream.clone_htod(&x).unwrap();
    let mut d_y = stream.alloc_zeros::<f32>(3).unwrap();

    let handle = result::create().unwrap();
    // SAFETY: `handle` is live until destroyed below; every descriptor
    // spans device buffers of its sizes that outlive the work, which the
    // stream's synchronization (`clone_dtoh`) ends; `alpha` and `beta` are
    // host values of the compute type.
    unsafe {
        result::set_stream(handle, stream.cu_stream().cast()).unwrap();
        let (po, _go) = d_offsets.device_ptr(&stream);
        let (pc, _gc) = d_columns.device_ptr(&stream);
        let (pv, _gv) = d_values.device_ptr(&stream);
        let (px, _gx) = d_x.device_ptr(&stream);
        let (py, _gy) = d_y.device_ptr_mut(&stream);
        let mut mat: cusparseSpMatDescr_t = std::ptr::null_mut();
        cusparseCreateCsr(
            &mut mat,
            3,
            3,
            5,
            po as *mut c_void,
            pc as *mut c_void,
            pv as *mut c_void,
            cusparseIndexType_t::CUSPARSE_INDEX_32I,
            cusparseIndexType_t::CUSPARSE_INDEX_32I,
            cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
            cudaDataType::CUDA_R_32F,
        )
        .result()
        .unwrap();
        let mut vx: cusparseDnVecDescr_t = std::ptr::null_mut();
        cusparseCreateDnVec(&mut vx, 3, px as *mut c_void, cudaDataType::CUDA_R_32F)
            .result()
            .unwrap();
        let mut vy: cusparseDnVecDescr_t = std::ptr::null_mut();
        cusparseCreateDnVec(&mut vy, 3, py as *mut c_void, cudaDataType::CUDA_R_32F)
            .result()
            .unwrap();
        let (alpha, beta) = (1.0f32, 0.0f32);
        let op = cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
        let alg = cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT;
        let mut size = 0usize;
        cusparseSpMV_bufferSize(
            handle,
            op,
            (&alpha as *const f32).cast(),
            mat as _,
            vx as _,
            (&beta as *const f32).cast(),
            vy,
            cudaDataType::CUDA_R_32F,
            alg,
            &mut size,
        )
        .result()
        .unwrap();
        let mut work = stream.alloc_zeros::<u8>(size.max(1)).unwrap();
        let (pw, _gw) = work.device_ptr_mut(&stream);
        cusparseSpMV(
            handle,
            op,
            (&alpha as *const f32).cast(),
            mat as _,
            vx as _,
            (&beta as *const f32).cast(),
            vy,
            cudaDataType::CUDA_R_32F,
            alg,
            pw as *mut c_void,
        )
        .result()
        .unwrap();
        stream.synchronize().unwrap();
        cusparseDestroyDnVec(vy as _).result().unwrap();
        cusparseDestroyDnVec(vx as _).result().unwrap();
        cusparseDestroySpMat(mat as _).result().unwrap();
    }
    assert_eq!(stream.clone_dtoh(&d_y).unwrap(), expected);

    // A refusal within the functions' contracts: making a handle acts on
    // the whole device, which CUDA forbids while this thread captures one
    // of its streams. The capture gate refuses it, and the error keeps the
    // reason, naming the call.
    use cuda_compat::driver::sys::{CUgraphInstantiate_flags_enum, CUstreamCaptureMode};
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    let refused = result::create();
    // (A capture of no work may still end in an empty graph.)
    drop(
        stream
            .end_capture(CUgraphInstantiate_flags_enum(0))
            .unwrap(),
    );
    let e = refused.expect_err("no handle is made during a capture");
    assert_ne!(e.0, cusparseStatus_t::CUSPARSE_STATUS_SUCCESS);
    let why = test_kit::assert_reason_kept(&e, e.0, result::last_error_detail());
    assert!(why.contains("cusparseCreate"), "{why}");
    assert!(why.contains("capturing"), "{why}");
    // SAFETY: made by `create`, destroyed once.
    unsafe { result::destroy(handle) }.unwrap();
}
