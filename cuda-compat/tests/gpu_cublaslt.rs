//! Tier 3: cudarc's `CudaBlasLT` on a real GPU (run with `--ignored`):
//! a column-major matmul with each fused epilogue against an f64 CPU
//! reference on fresh random data in [-1, 1), sizes 1, 7, 33 and 1003.
//! Bound per element: `2 (k + 2) eps32 * sum |a b|` plus `4 eps32 (1 +
//! |want|)` (see hipblaslt's `tests/gpu_lt.rs` for the derivation); a
//! wrong epilogue errs by the order of the values themselves.

use cuda_compat::cublaslt::{Activation, CudaBlasLT, Matmul, MatmulConfig};
use cuda_compat::driver::CudaContext;
use test_kit::random_nonzero;

fn gelu(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
}

fn run(m: usize, n: usize, k: usize, transa: bool, bias: bool, act: Option<Activation>) {
    let what = format!("m {m} n {n} k {k} transa {transa} bias {bias} act {act:?}");
    let ctx = CudaContext::new(0).expect("a GPU");
    let stream = ctx.default_stream();
    let blas = CudaBlasLT::new(stream.clone()).expect("a cuBLASLt handle");
    let a: Vec<f32> = random_nonzero(m * k, -1.0f32..1.0);
    let b: Vec<f32> = random_nonzero(k * n, -1.0f32..1.0);
    let bv: Vec<f32> = random_nonzero(m, -1.0f32..1.0);
    let lda = if transa { k } else { m };
    let (mut want, mut mag) = (vec![0.0f64; m * n], vec![0.0f64; m * n]);
    for i in 0..m {
        for j in 0..n {
            let (mut s, mut abs) = (0.0, 0.0);
            for l in 0..k {
                let x = if transa {
                    a[l + i * lda]
                } else {
                    a[i + l * lda]
                } as f64;
                let p = x * b[l + j * k] as f64;
                s += p;
                abs += p.abs();
            }
            if bias {
                s += bv[i] as f64;
                abs += (bv[i] as f64).abs();
            }
            want[i + j * m] = match act {
                None => s,
                Some(Activation::Relu) => s.max(0.0),
                Some(Activation::Gelu) => gelu(s),
            };
            mag[i + j * m] = abs;
        }
    }
    let da = stream.clone_htod(&a).unwrap();
    let db = stream.clone_htod(&b).unwrap();
    let dbias = stream.clone_htod(&bv).unwrap();
    let mut dc = stream.alloc_zeros::<f32>(m * n).unwrap();
    let cfg = MatmulConfig {
        transa,
        transb: false,
        transc: false,
        m: m as u64,
        n: n as u64,
        k: k as u64,
        alpha: 1.0,
        lda: lda as i64,
        ldb: k as i64,
        beta: 0.0,
        ldc: m as i64,
        stride_a: None,
        stride_b: None,
        stride_c: None,
        stride_bias: None,
        batch_size: None,
    };
    let bias_arg = if bias { Some(&dbias) } else { None };
    // SAFETY: every buffer is this stream's and holds what `cfg` spans.
    unsafe { blas.matmul(cfg, &da, &db, &mut dc, bias_arg, act.as_ref()) }
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = stream.clone_dtoh(&dc).unwrap();
    let eps = f32::EPSILON as f64 / 2.0;
    for (idx, ((g, w), mg)) in got.iter().zip(&want).zip(&mag).enumerate() {
        // After GELU, cuBLASLt's fast tanh (error up to 2^-10.99, times
        // 0.5 |x| <= 0.5 M); hipblaslt's GPU tests explain the bound.
        let gelu = if matches!(act, Some(Activation::Gelu)) {
            0.5 * mg / 1024.0
        } else {
            0.0
        };
        let tol = 1.2 * 2.0 * (k as f64 + 2.0) * eps * mg + 4.0 * eps * (1.0 + w.abs()) + gelu;
        assert!(
            ((*g as f64) - w).abs() <= tol,
            "{what}: element {idx}: got {g}, want {w}, bound {tol:e}"
        );
    }
    println!("{what}: {} elements within the bound", got.len());
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_cudarc_cublaslt_matmul_with_each_epilogue() {
    for (m, n, k) in [(1, 1, 1), (7, 33, 5), (33, 7, 1003), (1003, 33, 7)] {
        for transa in [false, true] {
            run(m, n, k, transa, false, None);
            run(m, n, k, transa, true, Some(Activation::Gelu));
        }
        run(m, n, k, false, true, Some(Activation::Relu));
        run(m, n, k, false, false, Some(Activation::Gelu));
        run(m, n, k, false, true, None);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_cudarc_cublaslt_refuses_a_short_buffer() {
    let ctx = CudaContext::new(0).expect("a GPU");
    let stream = ctx.default_stream();
    let blas = CudaBlasLT::new(stream.clone()).expect("a cuBLASLt handle");
    let a = stream.clone_htod(&[1.0f32; 3]).unwrap();
    let b = stream.clone_htod(&[1.0f32; 4]).unwrap();
    let mut c = stream.alloc_zeros::<f32>(4).unwrap();
    let cfg = MatmulConfig {
        transa: false,
        transb: false,
        transc: false,
        m: 2,
        n: 2,
        k: 2,
        alpha: 1.0,
        lda: 2,
        ldb: 2,
        beta: 0.0,
        ldc: 2,
        stride_a: None,
        stride_b: None,
        stride_c: None,
        stride_bias: None,
        batch_size: None,
    };
    // SAFETY: refused before any call (A needs 4 elements, has 3).
    let r = unsafe { blas.matmul(cfg, &a, &b, &mut c, None, None) };
    assert_eq!(
        r.unwrap_err().0,
        cuda_compat::cublaslt::sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
    );
}

/// cudarc's raw `cublaslt::result` functions, through the `hipblaslt`
/// crate's result layer: a handle, layouts, a descriptor and a preference
/// made, the heuristic's algorithm run against the host's product, all
/// destroyed; and an attribute of the wrong size, whose refusal names
/// hipBLASLt's call.
#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_result_functions_compute_and_keep_hipblaslts_message() {
    use cuda_compat::cublaslt::result;
    use cuda_compat::cublaslt::sys;
    use cuda_compat::driver::{DevicePtr, DevicePtrMut};
    use std::ffi::c_void;
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let handle = result::create_handle().unwrap();
    let (m, n, k) = (6usize, 5usize, 4usize);
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.5).collect();
    let da = stream.clone_htod(&a).unwrap();
    let db = stream.clone_htod(&b).unwrap();
    let mut dc = stream.alloc_zeros::<f32>(m * n).unwrap();
    let f32_ = sys::cudaDataType_t::CUDA_R_32F;
    let la = result::create_matrix_layout(f32_, m as u64, k as u64, m as i64).unwrap();
    let lb = result::create_matrix_layout(f32_, k as u64, n as u64, k as i64).unwrap();
    let lc = result::create_matrix_layout(f32_, m as u64, n as u64, m as i64).unwrap();
    let desc =
        result::create_matmul_desc(sys::cublasComputeType_t::CUBLAS_COMPUTE_32F, f32_).unwrap();
    let pref = result::create_matmul_pref().unwrap();
    let workspace_size = 4usize << 20;
    let workspace = stream.alloc_zeros::<u8>(workspace_size).unwrap();
    let size = workspace_size as u64;
    // SAFETY: live descriptors; each attribute's C type and size.
    unsafe {
        result::set_matmul_pref_attribute(
            pref,
            sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
            (&size as *const u64).cast(),
            size_of::<u64>(),
        )
        .unwrap();
    }
    // SAFETY: live handle and descriptors.
    let heuristic =
        unsafe { result::get_matmul_algo_heuristic(handle, desc, la, lb, lc, lc, pref) }.unwrap();
    let (alpha, beta) = (1.0f32, 0.0f32);
    {
        let (pa, _ra) = da.device_ptr(&stream);
        let (pb, _rb) = db.device_ptr(&stream);
        let (pc, _rc) = dc.device_ptr_mut(&stream);
        let (pw, _rw) = workspace.device_ptr(&stream);
        // SAFETY: every buffer is this stream's and holds what its layout
        // spans; the workspace holds `workspace_size` bytes.
        unsafe {
            result::matmul(
                handle,
                desc,
                (&alpha as *const f32).cast(),
                (&beta as *const f32).cast(),
                pa as usize as *const c_void,
                la,
                pb as usize as *const c_void,
                lb,
                pc as usize as *const c_void,
                lc,
                pc as usize as *mut c_void,
                lc,
                &heuristic.algo,
                pw as usize as *mut c_void,
                workspace_size,
                stream.cu_stream() as sys::cudaStream_t,
            )
        }
        .unwrap();
    }
    let got = stream.clone_dtoh(&dc).unwrap();
    for j in 0..n {
        for i in 0..m {
            let want: f32 = (0..k).map(|l| a[i + l * m] * b[l + j * k]).sum();
            // Small integers and halves: every product and sum is exact.
            assert_eq!(got[i + j * m], want, "C[{i}, {j}]");
        }
    }

    // TRANSA is an int32_t: one byte is refused by the library, and the
    // reason names its call.
    let byte = 0u8;
    // SAFETY: a live descriptor; `byte` is readable for the one byte given.
    let e = unsafe {
        result::set_matmul_desc_attribute(
            desc,
            sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA,
            (&byte as *const u8).cast(),
            1,
        )
    }
    .unwrap_err();
    assert_eq!(e.0, sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
    let (status, why) = result::last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("hipblasLtMatmulDescSetAttribute"), "{why}");
    assert!(
        format!("{e:?}").contains("hipblasLtMatmulDescSetAttribute"),
        "{e:?}"
    );

    stream.synchronize().unwrap();
    // SAFETY: each made above, destroyed once, after the stream's work.
    unsafe {
        result::destroy_matmul_pref(pref).unwrap();
        result::destroy_matmul_desc(desc).unwrap();
        for l in [la, lb, lc] {
            result::destroy_matrix_layout(l).unwrap();
        }
        result::destroy_handle(handle).unwrap();
    }
}
