//! GPU tests: every safe routine against a float64 CPU reference, on fresh
//! random data (the seed is printed), non-square shapes, every transpose and
//! leading dimensions larger than the minimum.
//!
//! Error measure: `max |gpu - ref| / max |ref|` over the output. Bounds: f32
//! 1e-5 (1e-3 with TF32), f64 1e-12, f16/bf16 inputs 1e-2.
//!
//! Run on a GPU machine: `cargo test -p hipblas --test gpu -- --ignored`
//! (with `HIP_PLATFORM=nvidia` on NVIDIA).

use half::{bf16, f16};
use hip::{Device, DeviceBuffer, Stream};
use hipblas::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::sync::Arc;

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
    rng: StdRng,
}

fn ctx() -> Ctx {
    let dev = Device::get(0).expect("a GPU (set HIP_PLATFORM=nvidia on NVIDIA)");
    let stream = Stream::new(&dev).expect("stream");
    let blas = Blas::new(&stream).expect("hipBLAS handle");
    let seed: u64 = rand::random();
    println!("seed {seed}");
    Ctx {
        dev,
        stream,
        blas,
        rng: StdRng::seed_from_u64(seed),
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
        DeviceBuffer::from_slice(&self.dev, v).expect("upload")
    }
    fn down<T: El>(&self, b: &DeviceBuffer<T>) -> Vec<T> {
        self.stream.synchronize().expect("synchronize");
        b.to_vec().expect("download")
    }
    fn dims(&mut self) -> (usize, usize, usize) {
        (
            self.rng.gen_range(17..70),
            self.rng.gen_range(9..61),
            self.rng.gen_range(5..53),
        )
    }
}

type C64 = (f64, f64);
fn mul(a: C64, b: C64) -> C64 {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
fn add(a: C64, b: C64) -> C64 {
    (a.0 + b.0, a.1 + b.1)
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

/// C = alpha op(A) op(B) + beta C in f64, column-major.
#[allow(clippy::too_many_arguments)]
fn ref_gemm<T: El, U: El>(
    s: &GemmShape,
    alpha: C64,
    a: &[T],
    b: &[T],
    beta: C64,
    c: &[U],
) -> Vec<C64> {
    let mut out: Vec<C64> = c.iter().map(|v| v.to_c()).collect();
    for j in 0..s.n {
        for i in 0..s.m {
            let mut acc = (0.0, 0.0);
            for l in 0..s.k {
                acc = add(
                    acc,
                    mul(
                        op_at(a, s.lda, s.transa, i, l),
                        op_at(b, s.ldb, s.transb, l, j),
                    ),
                );
            }
            out[i + j * s.ldc] = add(mul(alpha, acc), mul(beta, c[i + j * s.ldc].to_c()));
        }
    }
    out
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

fn rel(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs().max(f64::MIN_POSITIVE)
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
    check_gemm_ex::<f32, f32>(&mut cx, Compute::F32FastTf32, 1e-3);
    check_gemm_ex::<f64, f64>(&mut cx, Compute::F64, 1e-12);
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
        matches!(e, Error::InvalidArgument { name: "lda", .. }),
        "{e}"
    );
    let s = GemmShape::new(Op::N, Op::N, 10, 11, 10);
    let e = cx.blas.gemm(&s, 1.0, &a, &b, 0.0, &mut c).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BufferTooSmall {
                name: "b",
                required: 110,
                ..
            }
        ),
        "{e}"
    );
    let e = cx.blas.axpy(60, 1.0f32, &a, 2, &mut c, 1).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BufferTooSmall {
                name: "x",
                required: 119,
                ..
            }
        ),
        "{e}"
    );
    let e = cx.blas.dot(5, &a, 0, &b, 1).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { name: "incx", .. }),
        "{e}"
    );
    // Nothing was written.
    assert_eq!(cx.down(&c), hc);
}
