//! GPU tests: every safe routine against a float64 CPU reference, on fresh
//! random data (the seed is printed), non-square shapes, every transpose and
//! leading dimensions larger than the minimum.
//!
//! Error measure: `max |gpu - ref| / max |ref|` over the output. Bounds: f32
//! 1e-5 (1e-3 with TF32), f64 1e-12, f16/bf16 inputs 1e-2. Edge shapes
//! (0, 1, long, wide, large) are held to `1e-5` of `|alpha| sum |a b| +
//! |beta c|` per element; `alpha = 0` and `beta = 0` are checked over NaN
//! inputs; two tests tell f16 from f32 accumulation and TF32 from f32.
//!
//! Run on a GPU machine: `cargo test -p hipblas --test gpu -- --ignored`
//! (with `HIP_PLATFORM=nvidia` on NVIDIA).

use half::{bf16, f16};
use hip::{Device, DeviceBuffer, Stream};
use hipblas::*;
use rand::Rng;
use std::sync::Arc;
use test_kit::{c_add as add, c_mul as mul, rel, Complex64 as C64, TestRng, Trans};

trait El: hip::DeviceRepr {
    fn to_c(self) -> (f64, f64);
    fn from_c(re: f64, im: f64) -> Self;
    const COMPLEX: bool = false;
}
impl El for f32 {
    fn to_c(self) -> (f64, f64) {
        (self as f64, 0.0)
    }
    fn from_c(re: f64, _: f64) -> Self {
        re as f32
    }
}
impl El for f64 {
    fn to_c(self) -> (f64, f64) {
        (self, 0.0)
    }
    fn from_c(re: f64, _: f64) -> Self {
        re
    }
}
impl El for f16 {
    fn to_c(self) -> (f64, f64) {
        (self.to_f64(), 0.0)
    }
    fn from_c(re: f64, _: f64) -> Self {
        f16::from_f64(re)
    }
}
impl El for bf16 {
    fn to_c(self) -> (f64, f64) {
        (self.to_f64(), 0.0)
    }
    fn from_c(re: f64, _: f64) -> Self {
        bf16::from_f64(re)
    }
}
impl El for c32 {
    const COMPLEX: bool = true;
    fn to_c(self) -> (f64, f64) {
        (self.re as f64, self.im as f64)
    }
    fn from_c(re: f64, im: f64) -> Self {
        c32::new(re as f32, im as f32)
    }
}
impl El for c64 {
    const COMPLEX: bool = true;
    fn to_c(self) -> (f64, f64) {
        (self.re, self.im)
    }
    fn from_c(re: f64, im: f64) -> Self {
        c64::new(re, im)
    }
}

struct Ctx {
    dev: Arc<Device>,
    stream: Stream,
    blas: Blas,
    /// The test kit's generator: its seed is printed at the first draw
    /// (`HIP_TEST_SEED` replays it).
    rng: TestRng,
}

fn ctx() -> Ctx {
    let dev = test_kit::device();
    let stream = test_kit::stream(&dev);
    let blas = Blas::new(&stream).expect("hipBLAS handle");
    Ctx {
        dev,
        stream,
        blas,
        rng: test_kit::rng(),
    }
}

impl Ctx {
    fn random<T: El>(&mut self, n: usize) -> Vec<T> {
        (0..n)
            .map(|_| {
                let re = self.rng.gen_range(-1.0..1.0);
                let im = if T::COMPLEX {
                    self.rng.gen_range(-1.0..1.0)
                } else {
                    0.0
                };
                T::from_c(re, im)
            })
            .collect()
    }
    fn up<T: El>(&self, v: &[T]) -> DeviceBuffer<T> {
        test_kit::upload(&self.dev, v)
    }
    fn down<T: El>(&self, b: &DeviceBuffer<T>) -> Vec<T> {
        test_kit::download(&self.stream, b)
    }
    fn dims(&mut self) -> (usize, usize, usize) {
        (
            self.rng.gen_range(17..70),
            self.rng.gen_range(9..61),
            self.rng.gen_range(5..53),
        )
    }
}

/// op(X)[i][j] of a column-major stored matrix.
fn op_at<T: El>(x: &[T], ld: usize, op: Op, i: usize, j: usize) -> C64 {
    match op {
        Op::N => x[i + j * ld].to_c(),
        Op::T => x[j + i * ld].to_c(),
        Op::C => {
            let (re, im) = x[j + i * ld].to_c();
            (re, -im)
        }
    }
}

fn trans(op: Op) -> Trans {
    match op {
        Op::N => Trans::N,
        Op::T => Trans::T,
        Op::C => Trans::C,
    }
}

fn to_c<T: El>(v: &[T]) -> Vec<C64> {
    v.iter().map(|x| x.to_c()).collect()
}

/// C = alpha op(A) op(B) + beta C in f64, column-major (the test kit's
/// reference).
fn ref_gemm<T: El, U: El>(
    s: &GemmShape,
    alpha: C64,
    a: &[T],
    b: &[T],
    beta: C64,
    c: &[U],
) -> Vec<C64> {
    test_kit::gemm_ref(
        (trans(s.transa), trans(s.transb)),
        (s.m, s.n, s.k),
        alpha,
        (&to_c(a), s.lda),
        (&to_c(b), s.ldb),
        beta,
        (&to_c(c), s.ldc),
    )
}

/// max |got - want| / max |want| over the m x n output.
fn rel_err_matrix<U: El>(got: &[U], want: &[C64], m: usize, n: usize, ld: usize) -> f64 {
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for j in 0..n {
        for i in 0..m {
            let g = got[i + j * ld].to_c();
            let w = want[i + j * ld];
            num = num.max(((g.0 - w.0).powi(2) + (g.1 - w.1).powi(2)).sqrt());
            den = den.max((w.0 * w.0 + w.1 * w.1).sqrt());
        }
    }
    assert!(den > 0.0, "reference is all zero");
    num / den
}

const OPS_REAL: [Op; 2] = [Op::N, Op::T];

fn check_gemm<T: El + Gemm>(cx: &mut Ctx, ops: &[Op], tol: f64) {
    for &ta in ops {
        for &tb in ops {
            let (m, n, k) = cx.dims();
            let mut s = GemmShape::new(ta, tb, m, n, k);
            s.lda += 3;
            s.ldb += 1;
            s.ldc += 2;
            let sp = s.spans().unwrap();
            let a: Vec<T> = cx.random(sp.a);
            let b: Vec<T> = cx.random(sp.b);
            let c0: Vec<T> = cx.random(sp.c);
            let alpha: T = cx.random(1)[0];
            let beta: T = cx.random(1)[0];
            let (da, db) = (cx.up(&a), cx.up(&b));
            let mut dc = cx.up(&c0);
            cx.blas.gemm(&s, alpha, &da, &db, beta, &mut dc).unwrap();
            let got = cx.down(&dc);
            let want = ref_gemm(&s, alpha.to_c(), &a, &b, beta.to_c(), &c0);
            let e = rel_err_matrix(&got, &want, m, n, s.ldc);
            println!("gemm {ta:?}{tb:?} m={m} n={n} k={k}: rel err {e:.2e} (bound {tol:e})");
            assert!(e <= tol, "{ta:?}{tb:?} {m}x{n}x{k}: {e} > {tol}");
            // Elements between columns (ld padding) are untouched.
            if s.ldc > m && n > 1 {
                assert_eq!(got[m].to_c(), c0[m].to_c(), "padding of C was written");
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn sgemm() {
    check_gemm::<f32>(&mut ctx(), &OPS_REAL, 1e-5);
}

#[test]
#[ignore = "needs a GPU"]
fn dgemm() {
    check_gemm::<f64>(&mut ctx(), &OPS_REAL, 1e-12);
}

#[test]
#[ignore = "needs a GPU"]
fn hgemm() {
    check_gemm::<f16>(&mut ctx(), &OPS_REAL, 1e-2);
}

#[test]
#[ignore = "needs a GPU"]
fn bf16_gemm() {
    check_gemm::<bf16>(&mut ctx(), &OPS_REAL, 1e-2);
}

#[test]
#[ignore = "needs a GPU"]
fn cgemm_zgemm() {
    let mut cx = ctx();
    check_gemm::<c32>(&mut cx, &[Op::N, Op::T, Op::C], 1e-5);
    check_gemm::<c64>(&mut cx, &[Op::N, Op::T, Op::C], 1e-12);
}

fn check_gemm_ex<TA: El + Scalar, TC: El + Scalar>(cx: &mut Ctx, compute: Compute, tol: f64) {
    for &ta in &OPS_REAL {
        for &tb in &OPS_REAL {
            let (m, n, k) = cx.dims();
            let mut s = GemmShape::new(ta, tb, m, n, k);
            s.lda += 2;
            s.ldc += 1;
            let sp = s.spans().unwrap();
            let a: Vec<TA> = cx.random(sp.a);
            let b: Vec<TA> = cx.random(sp.b);
            let c0: Vec<TC> = cx.random(sp.c);
            let (alpha, beta) = (0.75, -0.5);
            let (da, db) = (cx.up(&a), cx.up(&b));
            let mut dc = cx.up(&c0);
            cx.blas
                .gemm_ex(&s, alpha, &da, &db, beta, &mut dc, compute)
                .unwrap();
            let got = cx.down(&dc);
            let want = ref_gemm(&s, (alpha, 0.0), &a, &b, (beta, 0.0), &c0);
            let e = rel_err_matrix(&got, &want, m, n, s.ldc);
            println!(
                "gemm_ex {}->{} {compute:?} {ta:?}{tb:?} {m}x{n}x{k}: rel err {e:.2e} (bound {tol:e})",
                TA::NAME,
                TC::NAME
            );
            assert!(e <= tol, "{e} > {tol}");
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gemm_ex_mixed_precision() {
    let mut cx = ctx();
    check_gemm_ex::<f16, f32>(&mut cx, Compute::F32, 1e-2);
    check_gemm_ex::<bf16, f32>(&mut cx, Compute::F32, 1e-2);
    check_gemm_ex::<f16, f16>(&mut cx, Compute::F32, 1e-2);
    check_gemm_ex::<bf16, bf16>(&mut cx, Compute::F32, 1e-2);
    check_gemm_ex::<f32, f32>(&mut cx, Compute::F32, 1e-5);
    check_gemm_ex::<f64, f64>(&mut cx, Compute::F64, 1e-12);
}

/// TF32 compute apart from the other types: cuBLAS takes it everywhere,
/// rocBLAS refuses it outside gfx94x (HIPBLAS_STATUS_NOT_SUPPORTED).
#[test]
#[ignore = "needs a GPU"]
fn gemm_ex_tf32_compute() {
    let mut cx = ctx();
    check_gemm_ex::<f32, f32>(&mut cx, Compute::F32FastTf32, 1e-3);
}

#[test]
#[ignore = "needs a GPU"]
fn tf32_math_mode_round_trips() {
    let mut cx = ctx();
    assert_eq!(cx.blas.math_mode().unwrap(), MathMode::Default);
    cx.blas.set_math_mode(MathMode::Tf32).unwrap();
    assert_eq!(cx.blas.math_mode().unwrap(), MathMode::Tf32);
    check_gemm::<f32>(&mut cx, &OPS_REAL, 1e-3);
    cx.blas.set_math_mode(MathMode::Default).unwrap();
    assert_eq!(cx.blas.math_mode().unwrap(), MathMode::Default);
}

fn check_strided<T: El + Gemm>(cx: &mut Ctx, tol: f64) {
    let (m, n, k) = cx.dims();
    let batch = 5;
    let mut s = GemmShape::new(Op::T, Op::N, m, n, k);
    s.ldb += 4;
    let one = s.spans().unwrap();
    let (sa, sb, sc) = (one.a + 7, one.b + 3, one.c + 11);
    let a: Vec<T> = cx.random(sa * batch);
    let b: Vec<T> = cx.random(sb * batch);
    let c0: Vec<T> = cx.random(sc * batch);
    let alpha: T = cx.random(1)[0];
    let beta: T = cx.random(1)[0];
    let (da, db) = (cx.up(&a), cx.up(&b));
    let mut dc = cx.up(&c0);
    cx.blas
        .gemm_strided_batched(&s, alpha, &da, sa, &db, sb, beta, &mut dc, sc, batch)
        .unwrap();
    let got = cx.down(&dc);
    for i in 0..batch {
        let want = ref_gemm(
            &s,
            alpha.to_c(),
            &a[i * sa..],
            &b[i * sb..],
            beta.to_c(),
            &c0[i * sc..i * sc + one.c],
        );
        let e = rel_err_matrix(&got[i * sc..], &want, m, n, s.ldc);
        println!("strided batch {i} {} {m}x{n}x{k}: rel err {e:.2e}", T::NAME);
        assert!(e <= tol, "batch {i}: {e} > {tol}");
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gemm_strided_batched() {
    let mut cx = ctx();
    check_strided::<f32>(&mut cx, 1e-5);
    check_strided::<f64>(&mut cx, 1e-12);
    check_strided::<f16>(&mut cx, 1e-2);
    check_strided::<bf16>(&mut cx, 1e-2);
    check_strided::<c32>(&mut cx, 1e-5);
}

#[test]
#[ignore = "needs a GPU"]
fn gemm_batched() {
    let mut cx = ctx();
    let (m, n, k) = cx.dims();
    let s = GemmShape::new(Op::N, Op::T, m, n, k);
    let sp = s.spans().unwrap();
    let a: Vec<Vec<f32>> = (0..3).map(|_| cx.random(sp.a)).collect();
    let b: Vec<Vec<f32>> = (0..3).map(|_| cx.random(sp.b)).collect();
    let c: Vec<Vec<f32>> = (0..3).map(|_| cx.random(sp.c)).collect();
    let da: Vec<_> = a.iter().map(|v| cx.up(v)).collect();
    let db: Vec<_> = b.iter().map(|v| cx.up(v)).collect();
    let mut dc: Vec<_> = c.iter().map(|v| cx.up(v)).collect();
    let ra: Vec<&DeviceBuffer<f32>> = da.iter().collect();
    let rb: Vec<&DeviceBuffer<f32>> = db.iter().collect();
    let mut rc: Vec<&mut DeviceBuffer<f32>> = dc.iter_mut().collect();
    cx.blas
        .gemm_batched(&s, 1.5, &ra, &rb, 0.25, &mut rc)
        .unwrap();
    for i in 0..3 {
        let got = cx.down(&dc[i]);
        let want = ref_gemm(&s, (1.5, 0.0), &a[i], &b[i], (0.25, 0.0), &c[i]);
        let e = rel_err_matrix(&got, &want, m, n, s.ldc);
        println!("batched {i} {m}x{n}x{k}: rel err {e:.2e}");
        assert!(e <= 1e-5);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn row_major_helper() {
    let mut cx = ctx();
    let (m, n, k) = cx.dims();
    // Row-major A (m x k), B (k x n), C (m x n) with padded row strides.
    let mut s = GemmShape::row_major(Op::N, Op::N, m, n, k);
    s.lda += 2;
    s.ldc += 1;
    let a: Vec<f64> = cx.random(m * s.lda);
    let b: Vec<f64> = cx.random(k * s.ldb);
    let c0: Vec<f64> = cx.random(m * s.ldc);
    let (da, db) = (cx.up(&a), cx.up(&b));
    let mut dc = cx.up(&c0);
    cx.blas
        .gemm_row_major(&s, 2.0, &da, &db, 0.5, &mut dc)
        .unwrap();
    let got = cx.down(&dc);
    let mut worst = 0.0f64;
    let mut scale = 0.0f64;
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0;
            for l in 0..k {
                acc += a[i * s.lda + l] * b[l * s.ldb + j];
            }
            let want = 2.0 * acc + 0.5 * c0[i * s.ldc + j];
            worst = worst.max((got[i * s.ldc + j] - want).abs());
            scale = scale.max(want.abs());
        }
    }
    println!("row-major {m}x{n}x{k}: rel err {:.2e}", worst / scale);
    assert!(worst / scale <= 1e-12);
}

fn check_level1<T: El + Blas1 + Default>(cx: &mut Ctx, tol: f64)
where
    T::Real: El,
{
    let n = cx.rng.gen_range(100..1000);
    let (incx, incy) = (2, 3);
    let x: Vec<T> = cx.random(n * incx);
    let y: Vec<T> = cx.random(n * incy);
    let xs = |i: usize| x[i * incx].to_c();
    let ys = |i: usize| y[i * incy].to_c();
    let dx = cx.up(&x);
    let mut dy = cx.up(&y);

    // dot (unconjugated)
    let got = cx.blas.dot(n, &dx, incx, &dy, incy).unwrap().to_c();
    let want = (0..n).fold((0.0, 0.0), |acc, i| add(acc, mul(xs(i), ys(i))));
    let scale = (0..n)
        .map(|i| (xs(i).0.hypot(xs(i).1)) * (ys(i).0.hypot(ys(i).1)))
        .sum::<f64>();
    let e = (got.0 - want.0).hypot(got.1 - want.1) / scale;
    println!("{} dot n={n}: rel err {e:.2e}", T::NAME);
    assert!(e <= tol);

    // nrm2, asum
    let nrm = cx.blas.nrm2(n, &dx, incx).unwrap().to_c().0;
    let want = (0..n)
        .map(|i| xs(i).0.powi(2) + xs(i).1.powi(2))
        .sum::<f64>()
        .sqrt();
    println!("{} nrm2: rel err {:.2e}", T::NAME, rel(nrm, want));
    assert!(rel(nrm, want) <= tol);
    let asum = cx.blas.asum(n, &dx, incx).unwrap().to_c().0;
    let want = (0..n).map(|i| xs(i).0.abs() + xs(i).1.abs()).sum::<f64>();
    println!("{} asum: rel err {:.2e}", T::NAME, rel(asum, want));
    assert!(rel(asum, want) <= tol);

    // iamax (0-based here; BLAS magnitude |re| + |im|)
    let idx = cx.blas.iamax(n, &dx, incx).unwrap().unwrap();
    let mag = |i: usize| xs(i).0.abs() + xs(i).1.abs();
    let best = (0..n).map(mag).fold(0.0, f64::max);
    assert!(
        mag(idx) >= best * (1.0 - tol),
        "iamax {idx}: {} < {best}",
        mag(idx)
    );

    // axpy
    let alpha: T = cx.random(1)[0];
    cx.blas.axpy(n, alpha, &dx, incx, &mut dy, incy).unwrap();
    let got = cx.down(&dy);
    let mut worst: f64 = 0.0;
    for i in 0..n {
        let w = add(mul(alpha.to_c(), xs(i)), ys(i));
        let g = got[i * incy].to_c();
        worst = worst.max((g.0 - w.0).hypot(g.1 - w.1) / (1.0 + w.0.hypot(w.1)));
        // Elements between the increments are untouched.
        assert_eq!(got[i * incy + 1].to_c(), y[i * incy + 1].to_c());
    }
    println!("{} axpy: err {worst:.2e}", T::NAME);
    assert!(worst <= tol);

    // scal
    let mut dx2 = cx.up(&x);
    cx.blas.scal(n, alpha, &mut dx2, incx).unwrap();
    let got = cx.down(&dx2);
    let worst = (0..n)
        .map(|i| {
            let w = mul(alpha.to_c(), xs(i));
            let g = got[i * incx].to_c();
            (g.0 - w.0).hypot(g.1 - w.1) / (1.0 + w.0.hypot(w.1))
        })
        .fold(0.0, f64::max);
    assert!(worst <= tol, "scal {worst}");

    // copy and swap (exact)
    let z0 = cx.random::<T>(n);
    let mut dz = cx.up(&z0);
    cx.blas.copy(n, &dx, incx, &mut dz, 1).unwrap();
    let z = cx.down(&dz);
    assert!((0..n).all(|i| z[i].to_c() == xs(i)), "copy");
    let mut dx3 = cx.up(&x);
    let mut dy3 = cx.up(&y);
    cx.blas.swap(n, &mut dx3, incx, &mut dy3, incy).unwrap();
    let (x3, y3) = (cx.down(&dx3), cx.down(&dy3));
    assert!(
        (0..n).all(|i| x3[i * incx].to_c() == ys(i) && y3[i * incy].to_c() == xs(i)),
        "swap"
    );
}

#[test]
#[ignore = "needs a GPU"]
fn level1() {
    let mut cx = ctx();
    check_level1::<f32>(&mut cx, 1e-5);
    check_level1::<f64>(&mut cx, 1e-12);
    check_level1::<c32>(&mut cx, 1e-5);
    check_level1::<c64>(&mut cx, 1e-12);
}

fn check_gemv<T: El + Blas1>(cx: &mut Ctx, tol: f64) {
    for trans in [Op::N, Op::T] {
        let (m, n, _) = cx.dims();
        let lda = m + 5;
        let a: Vec<T> = cx.random(lda * n);
        let (xl, yl) = if trans == Op::N { (n, m) } else { (m, n) };
        let x: Vec<T> = cx.random(xl * 2);
        let y: Vec<T> = cx.random(yl);
        let alpha: T = cx.random(1)[0];
        let beta: T = cx.random(1)[0];
        let (da, dx) = (cx.up(&a), cx.up(&x));
        let mut dy = cx.up(&y);
        cx.blas
            .gemv(trans, m, n, alpha, &da, lda, &dx, 2, beta, &mut dy, 1)
            .unwrap();
        let got = cx.down(&dy);
        let want: Vec<C64> = (0..yl)
            .map(|i| {
                let acc = (0..xl).fold((0.0, 0.0), |acc, l| {
                    add(acc, mul(op_at(&a, lda, trans, i, l), x[2 * l].to_c()))
                });
                add(mul(alpha.to_c(), acc), mul(beta.to_c(), y[i].to_c()))
            })
            .collect();
        let e = rel_err_matrix(&got, &want, yl, 1, yl);
        println!(
            "{} gemv {trans:?} {m}x{n} lda={lda}: rel err {e:.2e}",
            T::NAME
        );
        assert!(e <= tol);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gemv() {
    let mut cx = ctx();
    check_gemv::<f32>(&mut cx, 1e-5);
    check_gemv::<f64>(&mut cx, 1e-12);
    check_gemv::<c32>(&mut cx, 1e-5);
}

fn check_trsm<T: El + Blas1>(cx: &mut Ctx, tol: f64) {
    for (side, fill, trans) in [
        (Side::Left, Fill::Lower, Op::N),
        (Side::Right, Fill::Upper, Op::T),
        (Side::Left, Fill::Upper, Op::T),
    ] {
        let (m, n, _) = cx.dims();
        let ka = if side == Side::Left { m } else { n };
        let lda = ka + 3;
        let ldb = m + 2;
        // A well-conditioned triangle: a strong diagonal.
        let mut a: Vec<T> = cx.random(lda * ka);
        for i in 0..ka {
            let (re, im) = a[i + i * lda].to_c();
            a[i + i * lda] = T::from_c(re.signum() * (ka as f64 + re.abs()), im);
        }
        let x: Vec<T> = cx.random(ldb * n); // the solution
        let alpha: T = T::from_c(2.0, 0.0);
        // B = op(A) X / alpha (left) or X op(A) / alpha, restricted to the
        // triangle.
        let tri = |i: usize, j: usize| -> C64 {
            let (r, c) = match trans {
                Op::N => (i, j),
                _ => (j, i),
            };
            let inside = match fill {
                Fill::Lower => r >= c,
                Fill::Upper => r <= c,
            };
            if inside {
                op_at(&a, lda, trans, i, j)
            } else {
                (0.0, 0.0)
            }
        };
        let mut b0 = vec![T::from_c(0.0, 0.0); ldb * n];
        for j in 0..n {
            for i in 0..m {
                let mut acc = (0.0, 0.0);
                if side == Side::Left {
                    for l in 0..m {
                        acc = add(acc, mul(tri(i, l), x[l + j * ldb].to_c()));
                    }
                } else {
                    for l in 0..n {
                        acc = add(acc, mul(x[i + l * ldb].to_c(), tri(l, j)));
                    }
                }
                b0[i + j * ldb] = T::from_c(acc.0 / 2.0, acc.1 / 2.0);
            }
        }
        let da = cx.up(&a);
        let mut db = cx.up(&b0);
        cx.blas
            .trsm(
                side,
                fill,
                trans,
                Diag::NonUnit,
                m,
                n,
                alpha,
                &da,
                lda,
                &mut db,
                ldb,
            )
            .unwrap();
        let got = cx.down(&db);
        let want: Vec<C64> = x.iter().map(|v| v.to_c()).collect();
        let e = rel_err_matrix(&got, &want, m, n, ldb);
        println!(
            "{} trsm {side:?} {fill:?} {trans:?} {m}x{n}: rel err {e:.2e}",
            T::NAME
        );
        assert!(e <= tol, "{e}");
    }
}

#[test]
#[ignore = "needs a GPU"]
fn trsm() {
    let mut cx = ctx();
    // The solution is recovered from B rounded to the element type, so the
    // bound includes the triangle's (small) condition number.
    check_trsm::<f32>(&mut cx, 1e-5);
    check_trsm::<f64>(&mut cx, 1e-12);
}

#[test]
#[ignore = "needs a GPU"]
fn invalid_arguments_are_rejected_before_the_call() {
    let mut cx = ctx();
    let (ha, hb, hc) = (
        cx.random::<f32>(100),
        cx.random::<f32>(100),
        cx.random::<f32>(100),
    );
    let (a, b, mut c) = (cx.up(&ha), cx.up(&hb), cx.up(&hc));
    let mut s = GemmShape::new(Op::N, Op::N, 10, 10, 10);
    s.lda = 9;
    let e = cx.blas.gemm(&s, 1.0, &a, &b, 0.0, &mut c).unwrap_err();
    assert!(
        matches!(&e, Error::Invalid { operation: "Blas::gemm", reason } if reason.starts_with("lda = 9: ")),
        "{e}"
    );
    let s = GemmShape::new(Op::N, Op::N, 10, 11, 10);
    let e = cx.blas.gemm(&s, 1.0, &a, &b, 0.0, &mut c).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Invalid { operation: "Blas::gemm", reason }
                if reason == "buffer b holds 100 elements but the call needs 110"
        ),
        "{e}"
    );
    let e = cx.blas.axpy(60, 1.0f32, &a, 2, &mut c, 1).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Invalid { operation: "Blas::axpy", reason }
                if reason == "buffer x holds 100 elements but the call needs 119"
        ),
        "{e}"
    );
    let e = cx.blas.dot(5, &a, 0, &b, 1).unwrap_err();
    assert!(
        matches!(&e, Error::Invalid { operation: "Blas::dot", reason } if reason.starts_with("incx = 0: ")),
        "{e}"
    );
    // Nothing was written.
    assert_eq!(cx.down(&c), hc);
}

// ---- edge shapes, alpha = 0, beta = 0 ---------------------------------------

/// One element of `alpha op(A) op(B) + beta C` in f64 (real types), with
/// `c_ij` the prior value of C there, and the magnitude
/// `|alpha| sum |a b| + |beta c_ij|` that bounds its rounding error.
#[allow(clippy::too_many_arguments)]
fn ref_at<T: El>(
    s: &GemmShape,
    alpha: f64,
    a: &[T],
    b: &[T],
    beta: f64,
    c_ij: f64,
    i: usize,
    j: usize,
) -> (f64, f64) {
    let (mut acc, mut mag) = (0.0, 0.0);
    for l in 0..s.k {
        let p = op_at(a, s.lda, s.transa, i, l).0 * op_at(b, s.ldb, s.transb, l, j).0;
        acc += p;
        mag += p.abs();
    }
    (
        alpha * acc + beta * c_ij,
        alpha.abs() * mag + (beta * c_ij).abs(),
    )
}

/// The output positions to check: all of them when there are at most
/// 2^16, else the four corners, the first and last row and column, and
/// random positions.
fn positions(cx: &mut Ctx, m: usize, n: usize) -> Vec<(usize, usize)> {
    if m * n <= 1 << 16 {
        return (0..n).flat_map(|j| (0..m).map(move |i| (i, j))).collect();
    }
    let mut p = vec![(0, 0), (m - 1, 0), (0, n - 1), (m - 1, n - 1)];
    p.extend((0..m).step_by(7).map(|i| (i, n - 1)));
    p.extend((0..n).step_by(7).map(|j| (m - 1, j)));
    p.extend((0..20_000).map(|_| (cx.rng.gen_range(0..m), cx.rng.gen_range(0..n))));
    p
}

/// Runs one f32 GEMM of `(m, n, k)` and checks it against f64 at
/// [`positions`]: each element within `1e-5 (|alpha| sum |a b| + |beta c|)`
/// (the magnitude rounding errors scale with, so that a long dot product
/// that happens to cancel is not held to a relative bound), and C's ld
/// padding untouched. With `m == 0` or `n == 0` the call must succeed and
/// leave C exactly as it was.
fn check_edge_shape(cx: &mut Ctx, ta: Op, tb: Op, m: usize, n: usize, k: usize) {
    let mut s = GemmShape::new(ta, tb, m, n, k);
    s.ldc += 1;
    let sp = s.spans().unwrap();
    let a: Vec<f32> = cx.random(sp.a);
    let b: Vec<f32> = cx.random(sp.b);
    // Never empty, so "untouched" means something when C spans nothing.
    let c0: Vec<f32> = cx.random(sp.c.max(16));
    let (alpha, beta) = (
        cx.rng.gen_range(0.5f32..2.0),
        cx.rng.gen_range(-2.0f32..-0.5),
    );
    let (da, db) = (cx.up(&a), cx.up(&b));
    let mut dc = cx.up(&c0);
    cx.blas.gemm(&s, alpha, &da, &db, beta, &mut dc).unwrap();
    let got = cx.down(&dc);
    if m == 0 || n == 0 {
        assert_eq!(got, c0, "{m}x{n}x{k}: an empty product wrote C");
        println!("gemm {ta:?}{tb:?} {m}x{n}x{k}: accepted, C untouched");
        return;
    }
    let mut worst = 0.0f64;
    for (i, j) in positions(cx, m, n) {
        let idx = i + j * s.ldc;
        let (want, mag) = ref_at(&s, alpha as f64, &a, &b, beta as f64, c0[idx] as f64, i, j);
        assert!(
            mag > 0.0,
            "{m}x{n}x{k}: zero reference magnitude at ({i}, {j})"
        );
        worst = worst.max((got[idx] as f64 - want).abs() / mag);
    }
    println!("gemm {ta:?}{tb:?} {m}x{n}x{k}: err {worst:.2e} of the magnitude (bound 1e-5)");
    assert!(worst <= 1e-5, "{ta:?}{tb:?} {m}x{n}x{k}: {worst} > 1e-5");
    for j in 0..n - 1 {
        // The element after each column's last row is ld padding.
        let pad = m + j * s.ldc;
        assert_eq!(
            got[pad].to_bits(),
            c0[pad].to_bits(),
            "{m}x{n}x{k}: padding of column {j} written"
        );
    }
}

/// Empty, single-element, long, wide, deep and large products. hipBLAS and
/// cuBLAS, like the reference BLAS, treat `m == 0` or `n == 0` as nothing
/// to do (the safe API returns before the call) and `k == 0` as
/// `C = beta C` (passed to the library, which scales C).
#[test]
#[ignore = "needs a GPU"]
fn gemm_edge_shapes() {
    let mut cx = ctx();
    let shapes = [
        (0, 5, 7),
        (5, 0, 7),
        (0, 0, 0),
        (0, 0, 9),
        (6, 9, 0),
        (1, 1, 0),
        (1, 1, 1),
        (1, 1, 4096),
        (1, 300, 1),
        (300, 1, 1),
        (3, 1000, 2),
        (1000, 3, 1),
        (2, 2, 3000),
        (1024, 1, 2048),
        (1, 1536, 700),
        (2048, 2048, 64),
    ];
    for (m, n, k) in shapes {
        for (ta, tb) in [(Op::N, Op::N), (Op::T, Op::N), (Op::N, Op::T)] {
            check_edge_shape(&mut cx, ta, tb, m, n, k);
        }
    }
}

/// `beta == 0`: C is output only, so NaN already there must not leak into
/// the result (the BLAS contract: C is not read). With `k == 0` as well the
/// result is exactly zero.
#[test]
#[ignore = "needs a GPU"]
fn beta_zero_ignores_nan_in_c() {
    let mut cx = ctx();
    for (m, n, k) in [(37, 23, 19), (64, 64, 64), (5, 7, 0)] {
        let s = GemmShape::new(Op::N, Op::T, m, n, k);
        let sp = s.spans().unwrap();
        let a: Vec<f32> = cx.random(sp.a);
        let b: Vec<f32> = cx.random(sp.b);
        let alpha = cx.rng.gen_range(0.5f32..2.0);
        let (da, db) = (cx.up(&a), cx.up(&b));
        let mut dc = cx.up(&vec![f32::NAN; sp.c]);
        cx.blas.gemm(&s, alpha, &da, &db, 0.0, &mut dc).unwrap();
        let got = cx.down(&dc);
        assert!(
            got.iter().all(|v| v.is_finite()),
            "{m}x{n}x{k}: NaN from C leaked through beta = 0"
        );
        if k == 0 {
            assert!(got.iter().all(|v| *v == 0.0), "{m}x{n}x{k}: {got:?}");
            println!("beta = 0, k = 0, {m}x{n}: C = 0 exactly over NaN");
            continue;
        }
        let want = ref_gemm(
            &s,
            (alpha as f64, 0.0),
            &a,
            &b,
            (0.0, 0.0),
            &vec![0.0f32; sp.c],
        );
        let e = rel_err_matrix(&got, &want, m, n, s.ldc);
        println!("beta = 0 over NaN, {m}x{n}x{k}: rel err {e:.2e} (bound 1e-5)");
        assert!(e <= 1e-5, "{e}");
    }
}

/// `alpha == 0`: `C = beta C`, and A and B are not read (the BLAS
/// contract), so NaN in them must not reach C.
#[test]
#[ignore = "needs a GPU"]
fn alpha_zero_scales_c_and_reads_neither_a_nor_b() {
    let mut cx = ctx();
    for (m, n, k) in [(29, 31, 17), (128, 64, 256)] {
        let s = GemmShape::new(Op::T, Op::N, m, n, k);
        let sp = s.spans().unwrap();
        let (da, db) = (cx.up(&vec![f32::NAN; sp.a]), cx.up(&vec![f32::NAN; sp.b]));
        let c0: Vec<f32> = cx.random(sp.c);
        let beta = cx.rng.gen_range(-2.0f32..2.0);
        let mut dc = cx.up(&c0);
        cx.blas.gemm(&s, 0.0, &da, &db, beta, &mut dc).unwrap();
        let got = cx.down(&dc);
        for (i, (g, c)) in got.iter().zip(&c0).enumerate() {
            let want = beta as f64 * *c as f64;
            // One rounding of an f32 product: half an ulp of f32.
            assert!(
                (*g as f64 - want).abs() <= want.abs() * 2f64.powi(-24),
                "{m}x{n}x{k}: c[{i}] = {g}, want beta c = {want} (NaN means A or B was read)"
            );
        }
        println!("alpha = 0 with NaN A and B, {m}x{n}x{k}: C = beta C");
    }
}

// ---- accumulation precision ------------------------------------------------

/// The GPU platform the tests run on must be NVIDIA for the two
/// precision tests below: they assert cuBLAS's documented behaviour of f16
/// accumulation and TF32 tensor cores (sm_80 or later).
fn require_nvidia_sm80(cx: &Ctx, what: &str) {
    let arch = cx.dev.arch().unwrap();
    let cc = cx.dev.compute_capability().unwrap();
    assert!(
        arch.starts_with("sm_") && cc >= (8, 0),
        "{what} needs an NVIDIA GPU of compute capability 8.0 or later (HIP_PLATFORM=nvidia); this is {arch} {cc:?}"
    );
}

/// `acc + x` rounded to f16, to nearest even or toward zero.
fn f16_add(acc: f64, x: f64, toward_zero: bool) -> f64 {
    let exact = acc + x;
    let r = f16::from_f64(exact);
    if toward_zero && r.to_f64().abs() > exact.abs() {
        // One step toward zero (positive values here).
        return f16::from_bits(r.to_bits() - 1).to_f64();
    }
    r.to_f64()
}

/// Sums `k` copies of `p` with an f16 accumulator, the way an f16-compute
/// GEMM may: `split` independent partial sums, each adding exact chunks
/// of `chunk` products, rounding after each add.
fn f16_accumulated(p: f64, k: usize, chunk: usize, split: usize, toward_zero: bool) -> f64 {
    let per = k / split;
    let mut total = 0.0;
    for _ in 0..split {
        let mut acc = 0.0;
        let mut done = 0;
        while done < per {
            let c = chunk.min(per - done);
            acc = f16_add(acc, p * c as f64, toward_zero);
            done += c;
        }
        total = f16_add(total, acc, toward_zero);
    }
    total
}

/// HGEMM (`hipblasHgemm`, f16 compute) against GemmEx with f16 inputs and
/// f32 compute, on data where the accumulator's precision shows.
///
/// Every product is `t_i b_j` with `t_i = 1 + j_i 2^-10` (`j_i` random in
/// 2..=6) and `b_j` random in {0.5, 1}; `k = 4096`. The exact sums
/// `4096 t_i b_j` are f32 values and every partial sum is too, so f32
/// accumulation must give them exactly (asserted to 2^-20 relative). Once
/// an f16 accumulator passes 1024 b_j its spacing swallows the `2^-10`
/// parts of each chunk of products: for chunk sizes 1 to 64, rounding to
/// nearest or toward zero, one to four partial sums, the f16 result is at
/// least one f16 ulp of the exact value away (this test's CPU models, which
/// it prints), while rounding an exact f32 sum to f16 is at most half an
/// ulp away. So the test asserts, per element: the HGEMM result is more
/// than half an f16 ulp from the exact value (it was not accumulated in f32
/// and rounded once) and lies within the span of the f16-accumulation
/// models, widened by one ulp. If cuBLAS ever accumulated HGEMM in f32 on
/// this GPU, the first assertion fails, and says so.
#[test]
#[ignore = "needs a GPU"]
fn hgemm_accumulates_in_f16_and_gemm_ex_in_f32() {
    let mut cx = ctx();
    require_nvidia_sm80(&cx, "f16 accumulation");
    let (m, n, k) = (16, 8, 4096);
    let s = GemmShape::new(Op::N, Op::N, m, n, k);
    let t: Vec<f64> = (0..m)
        .map(|_| 1.0 + cx.rng.gen_range(2..=6) as f64 / 1024.0)
        .collect();
    let bcol: Vec<f64> = (0..n)
        .map(|_| if cx.rng.gen_bool(0.5) { 0.5 } else { 1.0 })
        .collect();
    let a: Vec<f16> = (0..m * k).map(|idx| f16::from_f64(t[idx % m])).collect();
    let b: Vec<f16> = (0..k * n).map(|idx| f16::from_f64(bcol[idx / k])).collect();
    let (da, db) = (cx.up(&a), cx.up(&b));
    let (h0, f0) = (cx.random::<f16>(m * n), cx.random::<f32>(m * n));
    let (mut c16, mut c32) = (cx.up(&h0), cx.up(&f0));
    cx.blas
        .gemm(&s, f16::ONE, &da, &db, f16::ZERO, &mut c16)
        .unwrap();
    cx.blas
        .gemm_ex(&s, 1.0, &da, &db, 0.0, &mut c32, Compute::F32)
        .unwrap();
    let (h, f) = (cx.down(&c16), cx.down(&c32));
    let mut worst_f32 = 0.0f64;
    let mut least_f16_ulps = f64::INFINITY;
    for j in 0..n {
        for i in 0..m {
            let p = t[i] * bcol[j];
            let exact = k as f64 * p;
            let ulp = {
                let e = f16::from_f64(exact);
                f16::from_bits(e.to_bits() + 1).to_f64() - e.to_f64()
            };
            let got32 = f[i + j * m] as f64;
            worst_f32 = worst_f32.max((got32 - exact).abs() / exact);
            assert!(
                (got32 - exact).abs() <= exact * 2f64.powi(-20),
                "GemmEx f32 compute, C[{i},{j}] = {got32}, exact {exact}"
            );
            let got16 = h[i + j * m].to_f64();
            let models: Vec<f64> = [1, 2, 4, 8, 16, 32, 64]
                .iter()
                .flat_map(|&c| [1, 2, 4].map(move |sp| (c, sp)))
                .flat_map(|(c, sp)| [false, true].map(|rz| f16_accumulated(p, k, c, sp, rz)))
                .collect();
            let lo = models.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = models.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if i == 0 && j == 0 {
                println!(
                    "k = {k} products of {p}: exact {exact}, f32 accumulation {got32}, HGEMM {got16}; \
                     f16 models {lo}..={hi}, chunks of 16 to nearest {}",
                    f16_accumulated(p, k, 16, 1, false)
                );
            }
            least_f16_ulps = least_f16_ulps.min((got16 - exact).abs() / ulp);
            assert!(
                (got16 - exact).abs() > ulp / 2.0,
                "HGEMM C[{i},{j}] = {got16} is within half an f16 ulp ({ulp}) of the exact {exact}: \
                 accumulated in f32, not f16"
            );
            assert!(
                got16 >= lo - ulp && got16 <= hi + ulp,
                "HGEMM C[{i},{j}] = {got16} outside the f16-accumulation models {lo}..={hi} (ulp {ulp})"
            );
        }
    }
    println!(
        "f32 accumulation: worst rel err {worst_f32:.1e}; f16 accumulation: at least {least_f16_ulps} f16 ulps off"
    );
}

/// TF32 math mode changes SGEMM's results; the default mode does not use
/// TF32.
///
/// Every element of A and B is `1 + j 2^-20` with `j` random in 1..=511:
/// the `2^-20` parts lie below TF32's 10-bit mantissa (and below half its
/// last place), so TF32 tensor cores see every input as 1.0 and the sums
/// come out about `511 / 2 * 2 * 2^-20 ≈ 4.9e-4` relative too small, all
/// in one direction. f32 keeps them exactly. Asserted: the default mode
/// matches f64 to 1e-5; TF32 mode (`hipblasSetMathMode`) and GemmEx with
/// `Compute::F32FastTf32` are between 1e-4 and 2e-3 off, and differ from
/// the default result by more than 1e-4 (f32 rounding is about 1e-7).
#[test]
#[ignore = "needs a GPU"]
fn tf32_mode_changes_sgemm_results() {
    let mut cx = ctx();
    require_nvidia_sm80(&cx, "TF32");
    let (m, n, k) = (512, 512, 1024);
    let s = GemmShape::new(Op::N, Op::N, m, n, k);
    let mut fine = |len: usize| -> Vec<f32> {
        (0..len)
            .map(|_| 1.0 + cx.rng.gen_range(1..=511) as f32 * 2f32.powi(-20))
            .collect()
    };
    let (a, b) = (fine(m * k), fine(k * n));
    let (da, db) = (cx.up(&a), cx.up(&b));
    let c0 = vec![0.0f32; m * n];
    let pos = positions(&mut cx, m, n);
    let want: Vec<f64> = pos
        .iter()
        .map(|&(i, j)| ref_at(&s, 1.0, &a, &b, 0.0, 0.0, i, j).0)
        .collect();
    let scale = want.iter().copied().fold(0.0, f64::max);
    let err = |got: &[f32]| -> f64 {
        pos.iter()
            .zip(&want)
            .map(|(&(i, j), w)| (got[i + j * m] as f64 - w).abs())
            .fold(0.0, f64::max)
            / scale
    };

    assert_eq!(cx.blas.math_mode().unwrap(), MathMode::Default);
    let mut dc = cx.up(&c0);
    cx.blas.gemm(&s, 1.0f32, &da, &db, 0.0, &mut dc).unwrap();
    let default = cx.down(&dc);
    let e_default = err(&default);

    cx.blas.set_math_mode(MathMode::Tf32).unwrap();
    let mut dc = cx.up(&c0);
    cx.blas.gemm(&s, 1.0f32, &da, &db, 0.0, &mut dc).unwrap();
    let tf32 = cx.down(&dc);
    cx.blas.set_math_mode(MathMode::Default).unwrap();
    let e_tf32 = err(&tf32);

    let mut dc = cx.up(&c0);
    cx.blas
        .gemm_ex(&s, 1.0, &da, &db, 0.0, &mut dc, Compute::F32FastTf32)
        .unwrap();
    let ex = cx.down(&dc);
    let e_ex = err(&ex);

    let apart = pos
        .iter()
        .map(|&(i, j)| (tf32[i + j * m] as f64 - default[i + j * m] as f64).abs())
        .fold(0.0, f64::max)
        / scale;
    println!(
        "{m}x{n}x{k}: rel err default {e_default:.2e}, TF32 mode {e_tf32:.2e}, GemmEx FastTf32 {e_ex:.2e}; \
         TF32 vs default {apart:.2e}"
    );
    assert!(
        e_default <= 1e-5,
        "default math mode: {e_default} > 1e-5 (TF32 used without being asked?)"
    );
    assert!(
        (1e-4..=2e-3).contains(&e_tf32),
        "TF32 math mode: rel err {e_tf32}, expected 1e-4..=2e-3"
    );
    assert!(
        (1e-4..=2e-3).contains(&e_ex),
        "GemmEx FastTf32: rel err {e_ex}, expected 1e-4..=2e-3"
    );
    assert!(
        apart > 1e-4,
        "TF32 and default results differ by only {apart}"
    );
}

/// Copies `in` to `out` after spinning `spin` clock cycles (about 100 ms
/// for 200 M cycles at up to 2 GHz), so that work on another stream that
/// did not wait for it would certainly run first.
const SLOW_COPY: &str = concat!(
    test_kit::cycle_stopwatch_cuda!(),
    r#"
extern "C" __global__ void slow_copy(float* out, const float* in, int n, long long spin) {
    hiprs_spin(spin);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}
"#
);

/// A hipBLAS call on stream `b` reading a `Stream::alloc` buffer that a
/// slow kernel on stream `a` writes waits for the kernel by itself (the
/// buffer tracks its accesses), and dropping the buffer right after the
/// call makes `a` wait for the call's read before the free.
/// `y = 2 x + y` is checked element by element (f32, 1e-6 relative: one
/// rounding of an exact doubling plus an addition).
#[test]
#[ignore = "needs a GPU"]
fn blas_on_another_stream_waits_for_a_tracked_slow_write() {
    let dev = test_kit::device();
    let module = hip::Module::compile(&dev, SLOW_COPY).expect("the kernel compiles");
    // SAFETY: slow_copy's parameter list.
    let slow_copy = unsafe {
        hip::TypedKernel::<(*mut f32, *const f32, i32, i64)>::new(
            module.function("slow_copy").unwrap(),
        )
    };
    let (a, b) = (
        test_kit::non_blocking_stream(&dev),
        test_kit::non_blocking_stream(&dev),
    );
    // Made before the slow kernel: creating a handle may wait for the
    // device, which would hide a missing wait.
    let blas = Blas::new(&b).unwrap();
    let n = 4096usize;
    let xs: Vec<f32> = test_kit::random_nonzero(n, 0.5f32..2.0);
    let ys: Vec<f32> = test_kit::random_nonzero(n, 0.5f32..2.0);
    let src = test_kit::upload(&dev, &xs);
    let mut x = a.alloc_zeroed::<f32>(n).unwrap();
    let cfg = hip::LaunchConfig::for_num_elems(n as u32);
    // SAFETY: slow_copy touches [0, n) of both, which hold n floats.
    unsafe { slow_copy.launch(&a, cfg, (&mut x, &src, n as i32, 200_000_000i64)) }.unwrap();
    let mut y = b.alloc::<f32>(n).unwrap();
    b.copy_htod(&ys, &mut y).unwrap();
    blas.axpy(n, 2.0f32, &x, 1, &mut y, 1).unwrap();
    drop(x);
    let got = b.clone_dtoh(&y).unwrap();
    for i in 0..n {
        let want = 2.0 * xs[i] + ys[i];
        assert!(
            (got[i] - want).abs() <= 1e-6 * want.abs(),
            "y[{i}] = {} want {want} (x read before the slow write?)",
            got[i]
        );
    }
    assert!(hip::take_drop_errors().is_empty());
}
