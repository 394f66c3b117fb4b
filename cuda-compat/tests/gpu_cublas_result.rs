//! Tier 3: cudarc's `cublas::result` layer and the element types candle
//! uses, on a real GPU. Run with `--ignored` (`HIP_PLATFORM=nvidia` on an
//! NVIDIA GPU, or an AMD GPU). Every GEMM and GEMV is compared with an f64
//! CPU reference computed from the very values the GPU got (after rounding
//! to f16/bf16), on fresh random data in [0.5, 2); each tolerance is stated
//! where it is used.

use cuda_compat::cublas::{result, sys, CudaBlas, Gemm, GemmConfig, StridedBatchedConfig};
use cuda_compat::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig,
    PushKernelArg,
};
use cuda_compat::nvrtc::compile_ptx;
use float8::F8E4M3;
use half::{bf16, f16};
use std::ffi::c_void;
use std::sync::Arc;
use sys::cublasOperation_t as Op;
use test_kit::{random_nonzero, Trans};

fn setup() -> (Arc<CudaStream>, CudaBlas) {
    println!("{}", cuda_compat::backend_summary());
    let ctx = CudaContext::new(0).expect("a GPU");
    let stream = ctx.default_stream();
    let blas = CudaBlas::new(stream.clone()).expect("a cuBLAS handle");
    (stream, blas)
}

fn random(n: usize) -> Vec<f64> {
    random_nonzero(n, 0.5f64..2.0)
}

/// One column-major GEMM problem: shapes, leading dimensions (padded, so
/// a wrong one shows), and data.
#[derive(Clone)]
struct Problem {
    ta: bool,
    tb: bool,
    m: usize,
    n: usize,
    k: usize,
    lda: usize,
    ldb: usize,
    ldc: usize,
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    alpha: f64,
    beta: f64,
}

impl Problem {
    fn new(ta: bool, tb: bool, (m, n, k): (usize, usize, usize), batch: usize) -> Problem {
        let (ar, ac) = if ta { (k, m) } else { (m, k) };
        let (br, bc) = if tb { (n, k) } else { (k, n) };
        let (lda, ldb, ldc) = (ar + 3, br + 1, m + 2);
        Problem {
            ta,
            tb,
            m,
            n,
            k,
            lda,
            ldb,
            ldc,
            a: random(lda * ac * batch),
            b: random(ldb * bc * batch),
            c: random(ldc * n * batch),
            alpha: 1.25,
            beta: 0.5,
        }
    }
    fn stride_a(&self) -> usize {
        self.lda * if self.ta { self.m } else { self.k }
    }
    fn stride_b(&self) -> usize {
        self.ldb * if self.tb { self.k } else { self.n }
    }
    fn stride_c(&self) -> usize {
        self.ldc * self.n
    }
    fn op(t: bool) -> Op {
        if t {
            Op::CUBLAS_OP_T
        } else {
            Op::CUBLAS_OP_N
        }
    }
    /// Every element passed through `round` (the precision the GPU gets).
    fn rounded(&self, round: impl Fn(f64) -> f64) -> Problem {
        let r = |v: &[f64]| v.iter().map(|x| round(*x)).collect();
        Problem {
            a: r(&self.a),
            b: r(&self.b),
            c: r(&self.c),
            alpha: round(self.alpha),
            beta: round(self.beta),
            ..self.clone()
        }
    }
    /// The reference for matrix `p` of a batch (the whole C buffer, with
    /// the other matrices and the padding unchanged).
    fn reference(&self, batch: usize) -> Vec<f64> {
        let mut out = self.c.clone();
        let t = |x: bool| if x { Trans::T } else { Trans::N };
        for p in 0..batch {
            let (sa, sb, sc) = (self.stride_a(), self.stride_b(), self.stride_c());
            let one = test_kit::gemm_ref_real(
                (t(self.ta), t(self.tb)),
                (self.m, self.n, self.k),
                self.alpha,
                (&self.a[p * sa..], self.lda),
                (&self.b[p * sb..], self.ldb),
                self.beta,
                (&self.c[p * sc..p * sc + sc], self.ldc),
            );
            out[p * sc..p * sc + sc].copy_from_slice(&one);
        }
        out
    }
}

/// `|got - want| <= tol * max(|want|, 1)` for every element.
fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}[{i}]: got {g}, want {w} (tolerance {tol:e} relative)"
        );
    }
}

/// An element type of these tests: conversions to and from f64.
trait Elem: DeviceRepr + Copy + 'static {
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn data_type() -> sys::cudaDataType_t;
}

macro_rules! elem {
    ($t:ty, $from:expr, $to:expr, $dt:ident) => {
        impl Elem for $t {
            fn from_f64(v: f64) -> Self {
                $from(v)
            }
            fn to_f64(self) -> f64 {
                $to(self)
            }
            fn data_type() -> sys::cudaDataType_t {
                sys::cudaDataType_t::$dt
            }
        }
    };
}
elem!(f32, |v| v as f32, f64::from, CUDA_R_32F);
elem!(f64, |v| v, |v| v, CUDA_R_64F);
elem!(f16, f16::from_f64, f16::to_f64, CUDA_R_16F);
elem!(bf16, bf16::from_f64, bf16::to_f64, CUDA_R_16BF);

fn round<T: Elem>(v: f64) -> f64 {
    T::from_f64(v).to_f64()
}

fn upload<T: Elem>(s: &Arc<CudaStream>, v: &[f64]) -> CudaSlice<T> {
    let host: Vec<T> = v.iter().map(|x| T::from_f64(*x)).collect();
    s.clone_htod(&host).unwrap()
}

fn download<T: Elem>(s: &Arc<CudaStream>, d: &CudaSlice<T>) -> Vec<f64> {
    s.clone_dtoh(d)
        .unwrap()
        .into_iter()
        .map(T::to_f64)
        .collect()
}

/// The shapes every GEMM test runs: all four transpose combinations,
/// non-square, with k long enough for accumulation error to show.
const SHAPES: [(bool, bool, (usize, usize, usize)); 4] = [
    (false, false, (17, 9, 33)),
    (true, false, (8, 13, 40)),
    (false, true, (11, 7, 24)),
    (true, true, (5, 19, 31)),
];

/// `result::sgemm`/`dgemm` (and `hgemm`, f16 accumulation): `gemm` is
/// the result function applied to device pointers.
fn typed_gemm<T: Elem>(
    tol: f64,
    what: &str,
    gemm: impl Fn(&CudaBlas, &Problem, *const T, *const T, *const T, *const T, *mut T),
) {
    let (s, blas) = setup();
    for (ta, tb, dims) in SHAPES {
        let p = Problem::new(ta, tb, dims, 1).rounded(round::<T>);
        let (da, db) = (upload::<T>(&s, &p.a), upload::<T>(&s, &p.b));
        let mut dc = upload::<T>(&s, &p.c);
        let (alpha, beta) = (T::from_f64(p.alpha), T::from_f64(p.beta));
        {
            let (a, _ga) = da.device_ptr(&s);
            let (b, _gb) = db.device_ptr(&s);
            let (c, _gc) = dc.device_ptr_mut(&s);
            gemm(
                &blas,
                &p,
                &alpha,
                a as *const T,
                b as *const T,
                &beta,
                c as *mut T,
            );
        }
        let want = p.reference(1);
        assert_close(&download(&s, &dc), &want, tol, &format!("{what} {ta} {tb}"));
    }
}

#[test]
#[ignore = "needs a GPU"]
fn result_sgemm_matches_the_cpu() {
    // f32 products of values below 2, k <= 40: 1e-5 relative.
    typed_gemm::<f32>(1e-5, "sgemm", |blas, p, alpha, a, b, beta, c| {
        // SAFETY: the buffers span the problem's shapes and leading dimensions.
        unsafe {
            result::sgemm(
                *blas.handle(),
                Problem::op(p.ta),
                Problem::op(p.tb),
                p.m as i32,
                p.n as i32,
                p.k as i32,
                alpha,
                a,
                p.lda as i32,
                b,
                p.ldb as i32,
                beta,
                c,
                p.ldc as i32,
            )
        }
        .unwrap()
    });
}

#[test]
#[ignore = "needs a GPU"]
fn result_dgemm_matches_the_cpu() {
    // f64: 1e-12 relative.
    typed_gemm::<f64>(1e-12, "dgemm", |blas, p, alpha, a, b, beta, c| {
        // SAFETY: the buffers span the problem's shapes and leading dimensions.
        unsafe {
            result::dgemm(
                *blas.handle(),
                Problem::op(p.ta),
                Problem::op(p.tb),
                p.m as i32,
                p.n as i32,
                p.k as i32,
                alpha,
                a,
                p.lda as i32,
                b,
                p.ldb as i32,
                beta,
                c,
                p.ldc as i32,
            )
        }
        .unwrap()
    });
}

#[test]
#[ignore = "needs a GPU"]
fn result_hgemm_matches_the_cpu() {
    // f16 accumulation over k <= 40 sums near 40: up to k half-ulps of the
    // sum (2^-11 each), 2e-2 relative.
    typed_gemm::<f16>(2e-2, "hgemm", |blas, p, alpha, a, b, beta, c| {
        // SAFETY: the buffers span the problem's shapes and leading dimensions.
        unsafe {
            result::hgemm(
                *blas.handle(),
                Problem::op(p.ta),
                Problem::op(p.tb),
                p.m as i32,
                p.n as i32,
                p.k as i32,
                alpha,
                a,
                p.lda as i32,
                b,
                p.ldb as i32,
                beta,
                c,
                p.ldc as i32,
            )
        }
        .unwrap()
    });
}

/// `result::?gemm_strided_batched` for 3 matrices.
fn typed_strided<T: Elem>(
    tol: f64,
    what: &str,
    call: impl Fn(&CudaBlas, &Problem, *const T, *const T, *const T, *const T, *mut T),
) {
    let (s, blas) = setup();
    for (ta, tb, dims) in SHAPES {
        let p = Problem::new(ta, tb, dims, 3).rounded(round::<T>);
        let (da, db) = (upload::<T>(&s, &p.a), upload::<T>(&s, &p.b));
        let mut dc = upload::<T>(&s, &p.c);
        let (alpha, beta) = (T::from_f64(p.alpha), T::from_f64(p.beta));
        {
            let (a, _ga) = da.device_ptr(&s);
            let (b, _gb) = db.device_ptr(&s);
            let (c, _gc) = dc.device_ptr_mut(&s);
            call(
                &blas,
                &p,
                &alpha,
                a as *const T,
                b as *const T,
                &beta,
                c as *mut T,
            );
        }
        let want = p.reference(3);
        assert_close(&download(&s, &dc), &want, tol, &format!("{what} {ta} {tb}"));
    }
}

macro_rules! strided_call {
    ($f:ident) => {
        |blas: &CudaBlas, p: &Problem, alpha, a, b, beta, c| {
            // SAFETY: the buffers span the 3 matrices of each operand.
            unsafe {
                result::$f(
                    *blas.handle(),
                    Problem::op(p.ta),
                    Problem::op(p.tb),
                    p.m as i32,
                    p.n as i32,
                    p.k as i32,
                    alpha,
                    a,
                    p.lda as i32,
                    p.stride_a() as i64,
                    b,
                    p.ldb as i32,
                    p.stride_b() as i64,
                    beta,
                    c,
                    p.ldc as i32,
                    p.stride_c() as i64,
                    3,
                )
            }
            .unwrap()
        }
    };
}

#[test]
#[ignore = "needs a GPU"]
fn result_strided_batched_sgemm_dgemm_hgemm_match_the_cpu() {
    // Tolerances as the single GEMMs': f32 1e-5, f64 1e-12, f16 2e-2.
    typed_strided::<f32>(
        1e-5,
        "sgemm_strided_batched",
        strided_call!(sgemm_strided_batched),
    );
    typed_strided::<f64>(
        1e-12,
        "dgemm_strided_batched",
        strided_call!(dgemm_strided_batched),
    );
    typed_strided::<f16>(
        2e-2,
        "hgemm_strided_batched",
        strided_call!(hgemm_strided_batched),
    );
}

/// `result::gemm_ex` (batch 1) or `gemm_strided_batched_ex` (batch 3)
/// with element type `T`, the compute type, scalars of type `S`, and
/// `algo`.
fn ex<T: Elem, S: Elem>(
    batch: usize,
    compute: sys::cublasComputeType_t,
    algo: sys::cublasGemmAlgo_t,
    tol: f64,
) {
    let (s, blas) = setup();
    for (ta, tb, dims) in SHAPES {
        let p = Problem::new(ta, tb, dims, batch).rounded(round::<T>);
        let p = Problem {
            alpha: round::<S>(p.alpha),
            beta: round::<S>(p.beta),
            ..p
        };
        let (da, db) = (upload::<T>(&s, &p.a), upload::<T>(&s, &p.b));
        let mut dc = upload::<T>(&s, &p.c);
        let (alpha, beta) = (S::from_f64(p.alpha), S::from_f64(p.beta));
        let alpha = (&alpha as *const S).cast::<c_void>();
        let beta = (&beta as *const S).cast::<c_void>();
        let dt = T::data_type();
        let (m, n, k) = (p.m as i32, p.n as i32, p.k as i32);
        let (lda, ldb, ldc) = (p.lda as i32, p.ldb as i32, p.ldc as i32);
        let (oa, ob) = (Problem::op(ta), Problem::op(tb));
        {
            let (a, _ga) = da.device_ptr(&s);
            let (b, _gb) = db.device_ptr(&s);
            let (c, _gc) = dc.device_ptr_mut(&s);
            let (a, b, c) = (a as *const c_void, b as *const c_void, c as *mut c_void);
            let h = *blas.handle();
            // SAFETY: the buffers span every matrix of the batch; the
            // scalars have the compute type's scalar type `S`.
            let r = unsafe {
                if batch == 1 {
                    result::gemm_ex(
                        h, oa, ob, m, n, k, alpha, a, dt, lda, b, dt, ldb, beta, c, dt, ldc,
                        compute, algo,
                    )
                } else {
                    result::gemm_strided_batched_ex(
                        h,
                        oa,
                        ob,
                        m,
                        n,
                        k,
                        alpha,
                        a,
                        dt,
                        lda,
                        p.stride_a() as i64,
                        b,
                        dt,
                        ldb,
                        p.stride_b() as i64,
                        beta,
                        c,
                        dt,
                        ldc,
                        p.stride_c() as i64,
                        batch as i32,
                        compute,
                        algo,
                    )
                }
            };
            r.unwrap_or_else(|e| panic!("{dt:?} {compute:?} {algo:?}: {e}"));
        }
        let want = p.reference(batch);
        let what = format!("{dt:?} {compute:?} {algo:?} batch {batch} {ta} {tb}");
        assert_close(&download(&s, &dc), &want, tol, &what);
    }
}

use sys::cublasComputeType_t as Compute;
use sys::cublasGemmAlgo_t as Algo;

#[test]
#[ignore = "needs a GPU"]
fn gemm_strided_batched_ex_f32_with_the_tensor_op_algorithm() {
    // candle's f32 call. f32 accumulation: 1e-5 relative.
    ex::<f32, f32>(
        3,
        Compute::CUBLAS_COMPUTE_32F,
        Algo::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        1e-5,
    );
    // candle's reduced-precision f32 (TF32 inputs on tensor cores: 10-bit
    // mantissas, 2^-11 relative per input), 1e-2 relative.
    ex::<f32, f32>(
        3,
        Compute::CUBLAS_COMPUTE_32F_FAST_TF32,
        Algo::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        1e-2,
    );
}

#[test]
#[ignore = "needs a GPU"]
fn gemm_strided_batched_ex_f16_with_the_tensor_op_algorithm() {
    // candle's f16 call: f32 accumulation, f32 scalars, output rounded to
    // f16 (2^-11 relative) plus f32 sums: 1e-3 relative.
    ex::<f16, f32>(
        3,
        Compute::CUBLAS_COMPUTE_32F,
        Algo::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        1e-3,
    );
    // candle's reduced precision: f16 accumulation and f16 scalars, as
    // hgemm: 2e-2 relative.
    ex::<f16, f16>(
        3,
        Compute::CUBLAS_COMPUTE_16F,
        Algo::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        2e-2,
    );
}

#[test]
#[ignore = "needs a GPU"]
fn gemm_strided_batched_ex_bf16_with_the_tensor_op_algorithm() {
    // candle's bf16 call: f32 accumulation, output rounded to bf16 (2^-8
    // relative): 8e-3 relative.
    ex::<bf16, f32>(
        3,
        Compute::CUBLAS_COMPUTE_32F,
        Algo::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        8e-3,
    );
    ex::<bf16, f32>(
        3,
        Compute::CUBLAS_COMPUTE_32F_FAST_16BF,
        Algo::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
        8e-3,
    );
}

#[test]
#[ignore = "needs a GPU"]
fn gemm_ex_with_every_algorithm_spelling_hipblas_accepts() {
    // The default, and tensor-op algorithms of both ends of the range,
    // which reach hipBLAS as its default: f32 1e-5, bf16 8e-3 relative.
    for algo in [
        Algo::CUBLAS_GEMM_DEFAULT,
        Algo::CUBLAS_GEMM_DFALT_TENSOR_OP,
        Algo::CUBLAS_GEMM_ALGO0_TENSOR_OP,
        Algo::CUBLAS_GEMM_ALGO15_TENSOR_OP,
    ] {
        ex::<f32, f32>(1, Compute::CUBLAS_COMPUTE_32F, algo, 1e-5);
        ex::<bf16, f32>(1, Compute::CUBLAS_COMPUTE_32F, algo, 8e-3);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn safe_gemm_for_f16_and_bf16_accumulates_in_f32() {
    let (s, blas) = setup();
    fn run<T: Elem>(s: &Arc<CudaStream>, blas: &CudaBlas, tol: f64)
    where
        CudaBlas: Gemm<T>,
    {
        for (ta, tb, dims) in SHAPES {
            let p = Problem::new(ta, tb, dims, 3).rounded(round::<T>);
            let (da, db) = (upload::<T>(s, &p.a), upload::<T>(s, &p.b));
            let mut dc = upload::<T>(s, &p.c);
            let gemm = GemmConfig {
                transa: Problem::op(ta),
                transb: Problem::op(tb),
                m: p.m as i32,
                n: p.n as i32,
                k: p.k as i32,
                alpha: T::from_f64(p.alpha),
                lda: p.lda as i32,
                ldb: p.ldb as i32,
                beta: T::from_f64(p.beta),
                ldc: p.ldc as i32,
            };
            let cfg = StridedBatchedConfig {
                gemm,
                batch_size: 3,
                stride_a: p.stride_a() as i64,
                stride_b: p.stride_b() as i64,
                stride_c: p.stride_c() as i64,
            };
            // SAFETY: no aliasing; shapes are checked by the call.
            unsafe { blas.gemm_strided_batched(cfg, &da, &db, &mut dc) }.unwrap();
            let what = format!("Gemm<{}> {ta} {tb}", std::any::type_name::<T>());
            assert_close(&download(s, &dc), &p.reference(3), tol, &what);
        }
    }
    // f32 accumulation then rounding: f16 1e-3, bf16 8e-3 relative (f16
    // accumulation would miss 1e-3 at k = 40).
    run::<f16>(&s, &blas, 1e-3);
    run::<bf16>(&s, &blas, 8e-3);
}

#[test]
#[ignore = "needs a GPU"]
fn result_sgemv_dgemv_match_the_cpu() {
    let (s, blas) = setup();
    for trans in [false, true] {
        let (m, n, lda, incx, incy) = (23usize, 14usize, 26usize, 2usize, 3usize);
        let a = random(lda * n);
        let (xn, yn) = if trans { (m, n) } else { (n, m) };
        let x = random((xn - 1) * incx + 1);
        let y = random((yn - 1) * incy + 1);
        let (alpha, beta) = (1.5, -0.75);
        let mut want = y.clone();
        for i in 0..yn {
            let dot: f64 = (0..xn)
                .map(|j| {
                    let aij = if trans {
                        a[j + i * lda]
                    } else {
                        a[i + j * lda]
                    };
                    aij * x[j * incx]
                })
                .sum();
            want[i * incy] = alpha * dot + beta * y[i * incy];
        }
        // f32: rounding the inputs too, so compare with the f32 data's
        // reference: 1e-5 relative; f64: 1e-12.
        let p32 = |v: &[f64]| v.iter().map(|x| round::<f32>(*x)).collect::<Vec<_>>();
        let (a32, x32, y32) = (p32(&a), p32(&x), p32(&y));
        let mut want32 = y32.clone();
        for i in 0..yn {
            let dot: f64 = (0..xn)
                .map(|j| {
                    let aij = if trans {
                        a32[j + i * lda]
                    } else {
                        a32[i + j * lda]
                    };
                    aij * x32[j * incx]
                })
                .sum();
            want32[i * incy] = alpha * dot + beta * y32[i * incy];
        }
        let op = Problem::op(trans);
        let dims = (m as i32, n as i32, lda as i32, incx as i32, incy as i32);
        macro_rules! check {
            ($t:ty, $f:ident, $a:expr, $x:expr, $y:expr, $want:expr, $tol:expr) => {{
                let (da, dx) = (upload::<$t>(&s, $a), upload::<$t>(&s, $x));
                let mut dy = upload::<$t>(&s, $y);
                let (al, be) = (alpha as $t, beta as $t);
                {
                    let (pa, _ga) = da.device_ptr(&s);
                    let (px, _gx) = dx.device_ptr(&s);
                    let (py, _gy) = dy.device_ptr_mut(&s);
                    // SAFETY: the buffers span the shapes and increments.
                    unsafe {
                        result::$f(
                            *blas.handle(),
                            op,
                            dims.0,
                            dims.1,
                            &al,
                            pa as *const $t,
                            dims.2,
                            px as *const $t,
                            dims.3,
                            &be,
                            py as *mut $t,
                            dims.4,
                        )
                    }
                    .unwrap();
                }
                let what = format!("{} trans {trans}", stringify!($f));
                assert_close(&download(&s, &dy), $want, $tol, &what);
            }};
        }
        check!(f32, sgemv, &a32, &x32, &y32, &want32, 1e-5);
        check!(f64, dgemv, &a, &x, &y, &want, 1e-12);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn result_sasum_dasum_match_the_cpu() {
    let (s, blas) = setup();
    let (n, inc) = (1000usize, 3usize);
    // Signs mixed, so a sum without absolute values fails.
    let x: Vec<f64> = random((n - 1) * inc + 1)
        .into_iter()
        .enumerate()
        .map(|(i, v)| if i % 2 == 0 { -v } else { v })
        .collect();
    let x32: Vec<f32> = x.iter().map(|v| *v as f32).collect();
    let want32: f64 = (0..n).map(|i| f64::from(x32[i * inc]).abs()).sum();
    let want: f64 = (0..n).map(|i| x[i * inc].abs()).sum();
    let d32 = s.clone_htod(&x32).unwrap();
    let d64 = s.clone_htod(&x).unwrap();
    let (mut got32, mut got64) = (0.0f32, 0.0f64);
    {
        let (p, _g) = d32.device_ptr(&s);
        // SAFETY: `x` spans n elements at increment 3; host pointer mode.
        unsafe { result::sasum(*blas.handle(), n as i32, p as *const f32, 3, &mut got32) }.unwrap();
        let (p, _g) = d64.device_ptr(&s);
        // SAFETY: as above.
        unsafe { result::dasum(*blas.handle(), n as i32, p as *const f64, 3, &mut got64) }.unwrap();
    }
    // 1000 f32 terms: 1e-5 relative; f64: 1e-12.
    assert!(
        (f64::from(got32) - want32).abs() <= 1e-5 * want32,
        "{got32} vs {want32}"
    );
    assert!((got64 - want).abs() <= 1e-12 * want, "{got64} vs {want}");
}

#[test]
#[ignore = "needs a GPU"]
fn result_handles_are_created_bound_to_a_stream_and_destroyed() {
    let ctx = CudaContext::new(0).expect("a GPU");
    let stream = ctx.new_stream().unwrap();
    let h = result::create_handle().unwrap();
    assert!(!h.is_null());
    // SAFETY: both are live, on device 0.
    unsafe { result::set_stream(h, stream.cu_stream()) }.unwrap();
    let mut mode = sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE;
    // SAFETY: the handle is live; `mode` is a valid place.
    unsafe { sys::cublasGetPointerMode_v2(h, &mut mode) }
        .result()
        .unwrap();
    assert_eq!(mode, sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST);
    let mut bound = std::ptr::null_mut();
    // SAFETY: the handle is live; `bound` is a valid place.
    unsafe { sys::cublasGetStream_v2(h, &mut bound) }
        .result()
        .unwrap();
    assert_eq!(bound, stream.cu_stream());
    // SAFETY: live, and not used after.
    unsafe { result::destroy_handle(h) }.unwrap();
}

const KERNELS: &str = r#"
extern "C" __global__ void pick(int* out, bool flag, int if_true, int if_false) {
    out[0] = flag ? if_true : if_false;
}
extern "C" __global__ void write_bytes(unsigned char* out) {
    out[0] = 0; out[1] = 1; out[2] = 2; out[3] = 255;
}
"#;

#[test]
#[ignore = "needs a GPU"]
fn bool_kernel_arguments_and_bool_read_back() {
    let ctx = CudaContext::new(0).expect("a GPU");
    let s = ctx.default_stream();
    let f = ctx
        .load_module(compile_ptx(KERNELS).unwrap())
        .unwrap()
        .load_function("pick")
        .unwrap();
    let (yes, no) = (
        random_nonzero(1, 1i32..1000)[0],
        random_nonzero(1, -1000i32..-1)[0],
    );
    for flag in [true, false] {
        let mut out = s.alloc_zeros::<i32>(1).unwrap();
        let mut b = s.launch_builder(&f);
        b.arg(&mut out).arg(&flag).arg(&yes).arg(&no);
        // SAFETY: pick(int*, bool, int, int) writes out[0].
        unsafe { b.launch(LaunchConfig::for_num_elems(1)) }.unwrap();
        let want = if flag { yes } else { no };
        assert_eq!(s.clone_dtoh(&out).unwrap(), [want], "flag {flag}");
    }

    // A kernel writes bytes 0, 1, 2, 255 into bool memory: read back, every
    // non-zero byte is `true`.
    let w = ctx
        .load_module(compile_ptx(KERNELS).unwrap())
        .unwrap()
        .load_function("write_bytes")
        .unwrap();
    let mut bools = s.alloc_zeros::<u8>(4).unwrap();
    let mut b = s.launch_builder(&w);
    b.arg(&mut bools);
    // SAFETY: write_bytes writes 4 bytes.
    unsafe { b.launch(LaunchConfig::for_num_elems(1)) }.unwrap();
    // SAFETY: 4 one-byte elements, reinterpreted as bool (read back only
    // through the copies, which fix the bytes).
    let view = unsafe { bools.transmute::<bool>(4) }.unwrap();
    assert_eq!(s.clone_dtoh(&view).unwrap(), [false, true, true, true]);
    let mut host = vec![false; 4];
    s.memcpy_dtoh(&view, &mut host).unwrap();
    assert_eq!(host, [false, true, true, true]);
    // bool round trip from the host.
    let d = s.clone_htod(&[true, false, true]).unwrap();
    assert_eq!(s.clone_dtoh(&d).unwrap(), [true, false, true]);
}

#[test]
#[ignore = "needs a GPU"]
fn f8_buffers_round_trip_and_zero() {
    let ctx = CudaContext::new(0).expect("a GPU");
    let s = ctx.default_stream();
    let host: Vec<F8E4M3> = random(256).iter().map(|v| F8E4M3::from_f64(*v)).collect();
    let d = s.clone_htod(&host).unwrap();
    let back = s.clone_dtoh(&d).unwrap();
    let bits = |v: &[F8E4M3]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(&host));
    let z = s.alloc_zeros::<F8E4M3>(64).unwrap();
    assert!(s.clone_dtoh(&z).unwrap().iter().all(|v| v.to_bits() == 0));
}

/// cudarc's raw `result` functions, through the `hipblas` crate's result
/// layer: a handle made and destroyed, an SGEMM against the host's
/// product, and a type combination hipBLAS refuses, whose reason names
/// hipBLAS's call.
#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_result_functions_compute_and_keep_hipblas_message() {
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let handle = result::create_handle().unwrap();
    // SAFETY: both live, on device 0.
    unsafe { result::set_stream(handle, stream.cu_stream()) }.unwrap();
    let (m, n, k) = (5usize, 4usize, 3usize);
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.5).collect();
    let da = stream.clone_htod(&a).unwrap();
    let db = stream.clone_htod(&b).unwrap();
    let mut dc = stream.alloc_zeros::<f32>(m * n).unwrap();
    let (alpha, beta) = (1.0f32, 0.0f32);
    {
        let (pa, _ra) = da.device_ptr(&stream);
        let (pb, _rb) = db.device_ptr(&stream);
        let (pc, _rc) = dc.device_ptr_mut(&stream);
        // SAFETY: column-major A (m x k), B (k x n), C (m x n) with tight
        // leading dimensions, all of this stream's device.
        unsafe {
            result::sgemm(
                handle,
                Op::CUBLAS_OP_N,
                Op::CUBLAS_OP_N,
                m as i32,
                n as i32,
                k as i32,
                &alpha,
                pa as *const f32,
                m as i32,
                pb as *const f32,
                k as i32,
                &beta,
                pc as *mut f32,
                m as i32,
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

    // f64 A with f32 B and C: no GEMM of hipBLAS's (nor cuBLAS's) takes
    // it; the shape passes the checks, so the refusal is hipBLAS's, and
    // its reason names hipBLAS's call.
    let one = (&alpha as *const f32).cast();
    let wide = stream.alloc_zeros::<f64>(m * k).unwrap();
    let e = {
        let (pa, _ra) = wide.device_ptr(&stream);
        let (pb, _rb) = db.device_ptr(&stream);
        let (pc, _rc) = dc.device_ptr_mut(&stream);
        // SAFETY: every buffer holds what the shape spans in its type.
        unsafe {
            result::gemm_ex(
                handle,
                Op::CUBLAS_OP_N,
                Op::CUBLAS_OP_N,
                m as i32,
                n as i32,
                k as i32,
                one,
                pa as *const c_void,
                sys::cudaDataType_t::CUDA_R_64F,
                m as i32,
                pb as *const c_void,
                sys::cudaDataType_t::CUDA_R_32F,
                k as i32,
                one,
                pc as *mut c_void,
                sys::cudaDataType_t::CUDA_R_32F,
                m as i32,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
            )
        }
        .unwrap_err()
    };
    let (status, why) = result::last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("hipblasGemmEx_v2"), "{why}");
    assert!(format!("{e:?}").contains("hipblasGemmEx_v2"), "{e:?}");
    stream.synchronize().unwrap();
    // SAFETY: made by `create_handle`, destroyed once.
    unsafe { result::destroy_handle(handle) }.unwrap();
}
