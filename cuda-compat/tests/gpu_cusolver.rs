//! Tier 3: cudarc's `cusolver::result` over the `hipsolver` crate on a real
//! GPU: a dense handle from `result::dn_create` drives a Cholesky
//! factorization checked against the host's, the options, sparse and
//! refactorization handles go through their life cycles, and a refused
//! option keeps hipSOLVER's message. Run with `--ignored`
//! (`HIP_PLATFORM=nvidia` on an NVIDIA GPU).

#![cfg(feature = "cusolver")]

use cuda_compat::cusolver::{result, sys::*};
use cuda_compat::driver::{CudaContext, DevicePtrMut};
use std::ffi::c_int;

/// The lower Cholesky factor of `a` (`n` x `n`, column-major), in f64.
fn host_cholesky(a: &[f32], n: usize) -> Vec<f64> {
    let mut l = vec![0f64; n * n];
    for j in 0..n {
        let mut d = f64::from(a[j + j * n]);
        for k in 0..j {
            d -= l[j + k * n] * l[j + k * n];
        }
        l[j + j * n] = d.sqrt();
        for i in j + 1..n {
            let mut s = f64::from(a[i + j * n]);
            for k in 0..j {
                s -= l[i + k * n] * l[j + k * n];
            }
            l[i + j * n] = s / l[j + j * n];
        }
    }
    l
}

/// `spotrf` (lower) of A = [[4, 2, 2], [2, 5, 3], [2, 3, 6]], whose
/// factor is L = [[2, 0, 0], [1, 2, 0], [1, 1, 2]]: every entry a small
/// integer, so the device's lower triangle matches the host's within a
/// few ulps (1e-5), and `info` is 0.
#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_result_functions_factor_and_keep_hipsolvers_message() {
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let n = 3usize;
    let a: [f32; 9] = [4.0, 2.0, 2.0, 2.0, 5.0, 3.0, 2.0, 3.0, 6.0];
    let expected = host_cholesky(&a, n);
    assert_eq!(expected[0], 2.0);
    let mut d_a = stream.clone_htod(&a).unwrap();
    let mut d_info = stream.alloc_zeros::<c_int>(1).unwrap();

    let handle = result::dn_create().unwrap();
    let uplo = cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;
    // SAFETY: `handle` is live until destroyed below; the device buffers
    // hold what `n`, `lda` and `lwork` reach and outlive the work, which
    // the stream's synchronization (`clone_dtoh`) ends.
    unsafe {
        result::dn_set_stream(handle, stream.cu_stream().cast()).unwrap();
        let (pa, _ga) = d_a.device_ptr_mut(&stream);
        let (pi, _gi) = d_info.device_ptr_mut(&stream);
        let mut lwork: c_int = 0;
        cusolverDnSpotrf_bufferSize(
            handle,
            uplo,
            n as c_int,
            pa as *mut f32,
            n as c_int,
            &mut lwork,
        )
        .result()
        .unwrap();
        let mut work = stream.alloc_zeros::<f32>(lwork.max(1) as usize).unwrap();
        let (pw, _gw) = work.device_ptr_mut(&stream);
        cusolverDnSpotrf(
            handle,
            uplo,
            n as c_int,
            pa as *mut f32,
            n as c_int,
            pw as *mut f32,
            lwork,
            pi as *mut c_int,
        )
        .result()
        .unwrap();
        stream.synchronize().unwrap();
    }
    assert_eq!(stream.clone_dtoh(&d_info).unwrap(), [0]);
    let got = stream.clone_dtoh(&d_a).unwrap();
    for j in 0..n {
        for i in j..n {
            let (g, e) = (f64::from(got[i + j * n]), expected[i + j * n]);
            assert!((g - e).abs() <= 1e-5, "L({i},{j}) = {g}, expected {e}");
        }
    }

    // SAFETY: made by `dn_create`, destroyed once.
    unsafe { result::dn_destroy(handle) }.unwrap();
}

/// The 64-bit API's options; an algorithm the library does not know is
/// refused, and the error keeps hipSOLVER's words, naming the call.
#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_options_refuse_an_unknown_algorithm_with_hipsolvers_message() {
    let _ = test_kit::device();
    let _ctx = CudaContext::new(0).unwrap();
    let params = result::dn_create_params().unwrap();
    // SAFETY: `params` is live until destroyed, once, just after.
    unsafe {
        result::dn_set_adv_options(
            params,
            cusolverDnFunction_t::CUSOLVERDN_GETRF,
            cusolverAlgMode_t::CUSOLVER_ALG_0,
        )
        .unwrap();
        let e = result::dn_set_adv_options(
            params,
            cusolverDnFunction_t::CUSOLVERDN_GETRF,
            cusolverAlgMode_t(99),
        )
        .unwrap_err();
        assert_ne!(e.0, cusolverStatus_t::CUSOLVER_STATUS_SUCCESS);
        let (status, why) = result::last_error_detail().expect("a reason");
        assert_eq!(status, e.0);
        assert!(why.contains("hipsolverDnSetAdvOptions"), "{why}");
        assert!(
            format!("{e:?}").contains("hipsolverDnSetAdvOptions"),
            "{e:?}"
        );
        result::dn_destroy_params(params).unwrap();
    }
}

/// A sparse handle's life cycle through the raw result functions.
#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_sparse_handle_lives_and_dies() {
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let sp = result::sp_create().unwrap();
    // SAFETY: `sp` is live until destroyed, once, just after; the stream
    // outlives it.
    unsafe {
        result::sp_set_stream(sp, stream.cu_stream().cast()).unwrap();
        result::sp_destroy(sp).unwrap();
    }
}

/// A refactorization handle's life cycle through the raw result
/// functions.
#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_refactorization_handle_lives_and_dies() {
    let _ = test_kit::device();
    let _ctx = CudaContext::new(0).unwrap();
    let rf = result::rf_create().unwrap();
    // SAFETY: `rf` is live until destroyed, once, just after.
    unsafe {
        result::rf_set_algs(
            rf,
            cusolverRfFactorization_t::CUSOLVERRF_FACTORIZATION_ALG0,
            cusolverRfTriangularSolve_t::CUSOLVERRF_TRIANGULAR_SOLVE_ALG1,
        )
        .unwrap();
        result::rf_destroy(rf).unwrap();
    }
}
