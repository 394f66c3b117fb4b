//! GPU tests of raw bindings the safe crate does not wrap (on NVIDIA: the
//! cuBLAS adapters beyond the GEMM family), each against a float64 CPU
//! reference on random data. Run with `--ignored` on a GPU machine
//! (`HIP_PLATFORM=nvidia` on NVIDIA).

use hip::{Device, DeviceBuffer, Stream};
use hipblas_sys::*;
use std::sync::Arc;
use test_kit::max_rel_err as rel;

struct Ctx {
    dev: Arc<Device>,
    stream: Stream,
    h: hipblasHandle_t,
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: the handle was created in `ctx` and is destroyed once.
        let _ = unsafe { hipblasDestroy(self.h) };
    }
}

fn ctx() -> Ctx {
    let dev = test_kit::device();
    let stream = test_kit::stream(&dev);
    let mut h: hipblasHandle_t = std::ptr::null_mut();
    // SAFETY: valid out-pointer; the stream outlives the handle (both in Ctx).
    unsafe {
        hipblasCreate(&mut h).ok().expect("hipblasCreate");
        hipblasSetStream(h, stream.as_raw())
            .ok()
            .expect("hipblasSetStream");
    }
    Ctx { dev, stream, h }
}

impl Ctx {
    /// Fresh non-zero values in [-1, 1) from the test's printed seed.
    fn random(&mut self, n: usize) -> Vec<f64> {
        test_kit::random_nonzero(n, -1.0..1.0)
    }
    fn up(&self, v: &[f64]) -> DeviceBuffer<f64> {
        test_kit::upload(&self.dev, v)
    }
    fn down(&self, b: &DeviceBuffer<f64>) -> Vec<f64> {
        test_kit::download(&self.stream, b)
    }
}

const OP_N: hipblasOperation_t = hipblasOperation_t::HIPBLAS_OP_N;
const OP_T: hipblasOperation_t = hipblasOperation_t::HIPBLAS_OP_T;

#[test]
#[ignore = "needs a GPU"]
fn dgeam_dsyrk_dger_dtrmv() {
    let mut cx = ctx();
    let (m, n, k) = (37usize, 23usize, 11usize);

    // geam: C = alpha A + beta B^T, A m x n (lda m+2), B n x m.
    let (lda, ldb, ldc) = (m + 2, n, m + 1);
    let a = cx.random(lda * n);
    let b = cx.random(ldb * m);
    let (alpha, beta) = (0.5, -1.5);
    let (da, db) = (cx.up(&a), cx.up(&b));
    let mut dc = cx.up(&vec![0.0; ldc * n]);
    // SAFETY: buffers span the shapes above; host scalars.
    unsafe {
        hipblasDgeam(
            cx.h,
            OP_N,
            OP_T,
            m as i32,
            n as i32,
            &alpha,
            da.as_device_ptr(),
            lda as i32,
            &beta,
            db.as_device_ptr(),
            ldb as i32,
            dc.as_device_ptr_mut(),
            ldc as i32,
        )
        .ok()
        .unwrap();
    }
    let got = cx.down(&dc);
    let (mut g, mut w) = (vec![], vec![]);
    for j in 0..n {
        for i in 0..m {
            g.push(got[i + j * ldc]);
            w.push(alpha * a[i + j * lda] + beta * b[j + i * ldb]);
        }
    }
    let e = rel(&g, &w);
    println!("Dgeam {m}x{n}: rel err {e:.2e}");
    assert!(e <= 1e-12);

    // syrk: C = alpha A A^T + beta C (upper), A n x k.
    let ldc2 = n + 3;
    let a2 = cx.random(n * k);
    let c2 = cx.random(ldc2 * n);
    let da2 = cx.up(&a2);
    let mut dc2 = cx.up(&c2);
    // SAFETY: as above.
    unsafe {
        hipblasDsyrk(
            cx.h,
            hipblasFillMode_t::HIPBLAS_FILL_MODE_UPPER,
            OP_N,
            n as i32,
            k as i32,
            &alpha,
            da2.as_device_ptr(),
            n as i32,
            &beta,
            dc2.as_device_ptr_mut(),
            ldc2 as i32,
        )
        .ok()
        .unwrap();
    }
    let got = cx.down(&dc2);
    let (mut g, mut w) = (vec![], vec![]);
    for j in 0..n {
        for i in 0..=j {
            let dot: f64 = (0..k).map(|l| a2[i + l * n] * a2[j + l * n]).sum();
            g.push(got[i + j * ldc2]);
            w.push(alpha * dot + beta * c2[i + j * ldc2]);
        }
        for i in j + 1..n {
            assert_eq!(
                got[i + j * ldc2],
                c2[i + j * ldc2],
                "lower triangle written"
            );
        }
    }
    let e = rel(&g, &w);
    println!("Dsyrk n={n} k={k}: rel err {e:.2e}");
    assert!(e <= 1e-12);

    // ger: A += alpha x y^T.
    let x = cx.random(m);
    let y = cx.random(n);
    let (dx, dy) = (cx.up(&x), cx.up(&y));
    let mut da3 = cx.up(&a);
    // SAFETY: as above.
    unsafe {
        hipblasDger(
            cx.h,
            m as i32,
            n as i32,
            &alpha,
            dx.as_device_ptr(),
            1,
            dy.as_device_ptr(),
            1,
            da3.as_device_ptr_mut(),
            lda as i32,
        )
        .ok()
        .unwrap();
    }
    let got = cx.down(&da3);
    let (mut g, mut w) = (vec![], vec![]);
    for j in 0..n {
        for i in 0..m {
            g.push(got[i + j * lda]);
            w.push(a[i + j * lda] + alpha * x[i] * y[j]);
        }
    }
    let e = rel(&g, &w);
    println!("Dger {m}x{n}: rel err {e:.2e}");
    assert!(e <= 1e-12);

    // trmv: x = A^T x, A lower triangular m x m (lda m+2).
    let at = cx.random(lda * m);
    let dat = cx.up(&at);
    let mut dx4 = cx.up(&x);
    // SAFETY: as above.
    unsafe {
        hipblasDtrmv(
            cx.h,
            hipblasFillMode_t::HIPBLAS_FILL_MODE_LOWER,
            OP_T,
            hipblasDiagType_t::HIPBLAS_DIAG_NON_UNIT,
            m as i32,
            dat.as_device_ptr(),
            lda as i32,
            dx4.as_device_ptr_mut(),
            1,
        )
        .ok()
        .unwrap();
    }
    let got = cx.down(&dx4);
    let want: Vec<f64> = (0..m)
        .map(|i| (i..m).map(|l| at[l + i * lda] * x[l]).sum())
        .collect();
    let e = rel(&got, &want);
    println!("Dtrmv m={m}: rel err {e:.2e}");
    assert!(e <= 1e-12);
}

#[test]
#[ignore = "needs a GPU"]
fn enums_and_modes_round_trip() {
    let cx = ctx();
    let mut p = hipblasPointerMode_t(99);
    // SAFETY: live handle, valid out-pointers.
    unsafe {
        hipblasGetPointerMode(cx.h, &mut p).ok().unwrap();
        assert_eq!(p, hipblasPointerMode_t::HIPBLAS_POINTER_MODE_HOST);
        hipblasSetPointerMode(cx.h, hipblasPointerMode_t::HIPBLAS_POINTER_MODE_DEVICE)
            .ok()
            .unwrap();
        hipblasGetPointerMode(cx.h, &mut p).ok().unwrap();
        assert_eq!(p, hipblasPointerMode_t::HIPBLAS_POINTER_MODE_DEVICE);
        // An enum value hipBLAS does not define is rejected, not passed on.
        assert_eq!(
            hipblasSetPointerMode(cx.h, hipblasPointerMode_t(7)),
            hipblasStatus_t::HIPBLAS_STATUS_INVALID_ENUM
        );
        let mut s: hipStream_t = std::ptr::null_mut();
        hipblasGetStream(cx.h, &mut s).ok().unwrap();
        assert_eq!(s, cx.stream.as_raw());
        // A function the backend does not implement says so.
        let lib = loader::hipblas().unwrap();
        if lib.platform == hip_sys::loader::Platform::Nvidia {
            let mut r = 0;
            assert_eq!(
                hipblasIsamaxBatched(cx.h, 1, std::ptr::null(), 1, 1, &mut r),
                hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED
            );
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn double_complex_host_scalars_at_8_byte_boundaries() {
    let mut cx = ctx();
    let n = 300usize;
    let x = cx.random(2 * n);
    let y = cx.random(2 * n);
    let (dx, dy) = (cx.up(&x), cx.up(&y));
    // alpha = (0.25, -2) and the result slot at 8 mod 16 bytes, as a
    // `#[repr(C)]` pair of f64 may be.
    let mut host = [0.0f64; 8];
    let base = host.as_ptr() as usize;
    let off = if base % 16 == 0 { 1 } else { 0 };
    host[off] = 0.25;
    host[off + 1] = -2.0;
    let alpha = host[off..].as_ptr() as *const hipDoubleComplex;
    assert_eq!(alpha as usize % 16, 8);
    let mut dz = cx.up(&y);
    // SAFETY: x, y, z hold n double-complex values; alpha and the result are
    // host scalars of 16 bytes.
    unsafe {
        hipblasZaxpy_v2(
            cx.h,
            n as i32,
            alpha,
            dx.as_device_ptr().cast(),
            1,
            dz.as_device_ptr_mut().cast(),
            1,
        )
        .ok()
        .unwrap();
    }
    let got = cx.down(&dz);
    let mut worst = 0.0f64;
    for i in 0..n {
        let (xr, xi) = (x[2 * i], x[2 * i + 1]);
        let wr = 0.25 * xr + 2.0 * xi + y[2 * i];
        let wi = 0.25 * xi - 2.0 * xr + y[2 * i + 1];
        worst = worst
            .max((got[2 * i] - wr).abs())
            .max((got[2 * i + 1] - wi).abs());
    }
    println!("Zaxpy with an 8-byte-aligned alpha: max err {worst:.2e}");
    assert!(worst <= 1e-12);
    let result = host[off + 2..].as_mut_ptr() as *mut hipDoubleComplex;
    assert_eq!(result as usize % 16, 8);
    // SAFETY: as above.
    unsafe {
        hipblasZdotc_v2(
            cx.h,
            n as i32,
            dx.as_device_ptr().cast(),
            1,
            dy.as_device_ptr().cast(),
            1,
            result,
        )
        .ok()
        .unwrap();
    }
    let (mut wr, mut wi) = (0.0, 0.0);
    for i in 0..n {
        let (xr, xi, yr, yi) = (x[2 * i], -x[2 * i + 1], y[2 * i], y[2 * i + 1]);
        wr += xr * yr - xi * yi;
        wi += xr * yi + xi * yr;
    }
    let (gr, gi) = (host[off + 2], host[off + 3]);
    let e = ((gr - wr).powi(2) + (gi - wi).powi(2)).sqrt() / (wr * wr + wi * wi).sqrt();
    println!("Zdotc into an 8-byte-aligned result: rel err {e:.2e}");
    assert!(e <= 1e-12);
}
