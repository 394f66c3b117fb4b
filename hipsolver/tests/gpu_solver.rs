//! GPU tests of the solver's routines against CPU references computed in
//! `f64` complex arithmetic, on fresh random data (seed printed; replay
//! with `HIP_TEST_SEED`), in `f32`, `f64`, `c32` and `c64`, at awkward
//! sizes (1, 7, 33, 257, and non-square shapes).
//!
//! # Tolerances
//! Every check is a relative Frobenius-norm error, e.g.
//! `‖P A - L U‖ / ‖A‖`, `‖A - Q R‖ / ‖A‖`, `‖A - U diag(s) Vᴴ‖ / ‖A‖`,
//! `‖A V - V Λ‖ / ‖A‖`, `‖QᴴQ - I‖ / √k`, and for solves the backward
//! error `‖A x - b‖ / (‖A‖ ‖x‖)`. The factorizations here are backward
//! stable: the error is bounded by `c(n) eps` with `c(n)` a low-degree
//! polynomial in the order `n` (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, §9.3 LU, §10.1 Cholesky, §19.3 QR; Demmel and
//! Veselić for Jacobi). We allow `30 n eps` with `n` the larger dimension
//! (`eps` = `f32::EPSILON` or `f64::EPSILON`): 9.2e-4 for f32 at n = 257,
//! 1.7e-12 for f64. In practice the errors are near `√n eps`, printed by
//! each check; a wrong result (a wrong transpose, layout, pivot order or
//! missing conjugate) is of order 1.

use hip::{c32, c64, DeviceBuffer};
use hipsolver::result::Lapack;
use hipsolver::{Error, Layout, Side, Solver, SvdVectors, Transpose, Uplo};
use rand::Rng;
use test_kit::{device, rng, stream};

/// A complex number in f64: the CPU reference's arithmetic.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Z {
    re: f64,
    im: f64,
}

impl Z {
    const ZERO: Z = Z { re: 0.0, im: 0.0 };
    const ONE: Z = Z { re: 1.0, im: 0.0 };
    fn conj(self) -> Z {
        Z {
            re: self.re,
            im: -self.im,
        }
    }
    fn norm_sqr(self) -> f64 {
        self.re * self.re + self.im * self.im
    }
    fn add(self, o: Z) -> Z {
        Z {
            re: self.re + o.re,
            im: self.im + o.im,
        }
    }
    fn sub(self, o: Z) -> Z {
        Z {
            re: self.re - o.re,
            im: self.im - o.im,
        }
    }
    fn mul(self, o: Z) -> Z {
        Z {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
    fn scale(self, s: f64) -> Z {
        Z {
            re: self.re * s,
            im: self.im * s,
        }
    }
}

/// The element types, seen from the CPU.
trait Num: Lapack {
    const EPS: f64;
    fn from_z(z: Z) -> Self;
    fn to_z(self) -> Z;
    fn real(r: Self::Real) -> f64;
}

impl Num for f32 {
    const EPS: f64 = f32::EPSILON as f64;
    fn from_z(z: Z) -> Self {
        z.re as f32
    }
    fn to_z(self) -> Z {
        Z {
            re: self as f64,
            im: 0.0,
        }
    }
    fn real(r: f32) -> f64 {
        r as f64
    }
}
impl Num for f64 {
    const EPS: f64 = f64::EPSILON;
    fn from_z(z: Z) -> Self {
        z.re
    }
    fn to_z(self) -> Z {
        Z { re: self, im: 0.0 }
    }
    fn real(r: f64) -> f64 {
        r
    }
}
impl Num for c32 {
    const EPS: f64 = f32::EPSILON as f64;
    fn from_z(z: Z) -> Self {
        c32::new(z.re as f32, z.im as f32)
    }
    fn to_z(self) -> Z {
        Z {
            re: self.re as f64,
            im: self.im as f64,
        }
    }
    fn real(r: f32) -> f64 {
        r as f64
    }
}
impl Num for c64 {
    const EPS: f64 = f64::EPSILON;
    fn from_z(z: Z) -> Self {
        c64::new(z.re, z.im)
    }
    fn to_z(self) -> Z {
        Z {
            re: self.re,
            im: self.im,
        }
    }
    fn real(r: f64) -> f64 {
        r
    }
}

/// A packed column-major matrix in the reference's arithmetic.
#[derive(Clone, Debug)]
struct M {
    rows: usize,
    cols: usize,
    v: Vec<Z>,
}

impl M {
    fn zeros(rows: usize, cols: usize) -> M {
        M {
            rows,
            cols,
            v: vec![Z::ZERO; rows * cols],
        }
    }
    fn identity(n: usize) -> M {
        let mut m = M::zeros(n, n);
        for i in 0..n {
            m.v[i + i * n] = Z::ONE;
        }
        m
    }
    /// Uniform in [-1, 1) (real part, and imaginary part for complex `T`),
    /// never exactly zero.
    fn random<T: Num>(rows: usize, cols: usize) -> M {
        let mut r = rng();
        let mut draw = || loop {
            let x: f64 = r.gen_range(-1.0..1.0);
            if x != 0.0 {
                return x;
            }
        };
        let v = (0..rows * cols)
            .map(|_| {
                let re = draw();
                let im = if T::COMPLEX { draw() } else { 0.0 };
                // Round to T's precision, so the GPU and the reference see
                // the same matrix.
                T::from_z(Z { re, im }).to_z()
            })
            .collect();
        M { rows, cols, v }
    }
    fn at(&self, i: usize, j: usize) -> Z {
        self.v[i + j * self.rows]
    }
    fn set(&mut self, i: usize, j: usize, z: Z) {
        self.v[i + j * self.rows] = z;
    }
    fn mul(&self, o: &M) -> M {
        assert_eq!(self.cols, o.rows);
        let mut out = M::zeros(self.rows, o.cols);
        for j in 0..o.cols {
            for k in 0..self.cols {
                let b = o.at(k, j);
                if b == Z::ZERO {
                    continue;
                }
                for i in 0..self.rows {
                    let idx = i + j * self.rows;
                    out.v[idx] = out.v[idx].add(self.at(i, k).mul(b));
                }
            }
        }
        out
    }
    fn adjoint(&self) -> M {
        let mut out = M::zeros(self.cols, self.rows);
        for j in 0..self.cols {
            for i in 0..self.rows {
                out.set(j, i, self.at(i, j).conj());
            }
        }
        out
    }
    fn sub(&self, o: &M) -> M {
        assert_eq!((self.rows, self.cols), (o.rows, o.cols));
        M {
            rows: self.rows,
            cols: self.cols,
            v: self.v.iter().zip(&o.v).map(|(a, b)| a.sub(*b)).collect(),
        }
    }
    fn fro(&self) -> f64 {
        self.v.iter().map(|z| z.norm_sqr()).sum::<f64>().sqrt()
    }
    /// The leading `rows` x `cols` block.
    fn block(&self, rows: usize, cols: usize) -> M {
        let mut out = M::zeros(rows, cols);
        for j in 0..cols {
            for i in 0..rows {
                out.set(i, j, self.at(i, j));
            }
        }
        out
    }
    fn to_t<T: Num>(&self) -> Vec<T> {
        self.v.iter().map(|&z| T::from_z(z)).collect()
    }
    fn from_t<T: Num>(rows: usize, cols: usize, ld: usize, data: &[T]) -> M {
        let mut m = M::zeros(rows, cols);
        for j in 0..cols {
            for i in 0..rows {
                m.set(i, j, data[i + j * ld].to_z());
            }
        }
        m
    }
}

fn tol<T: Num>(n: usize) -> f64 {
    30.0 * n.max(1) as f64 * T::EPS
}

/// Fails, printing both sides' sizes and the error, when `err > tol`.
fn check(what: &str, err: f64, tol: f64) {
    println!("{what}: relative error {err:.3e} (bound {tol:.3e})");
    assert!(
        err.is_finite() && err <= tol,
        "{what}: relative error {err:e} > {tol:e}"
    );
}

fn orthonormal_columns(what: &str, q: &M, tol: f64) {
    let k = q.cols;
    let err = q.adjoint().mul(q).sub(&M::identity(k)).fro() / (k.max(1) as f64).sqrt();
    check(&format!("{what}: ‖QᴴQ - I‖/√k"), err, tol);
}

fn setup() -> (hip::Stream, Solver) {
    let dev = device();
    let s = stream(&dev);
    let solver = Solver::new(&s).unwrap_or_else(|e| panic!("Solver::new: {e}"));
    (s, solver)
}

fn up<T: Num>(s: &hip::Stream, m: &M) -> DeviceBuffer<T> {
    s.clone_htod(&m.to_t::<T>())
        .unwrap_or_else(|e| panic!("upload: {e}"))
}

fn down<T: hip::DeviceRepr>(s: &hip::Stream, b: &DeviceBuffer<T>) -> Vec<T> {
    s.clone_dtoh(b).unwrap_or_else(|e| panic!("download: {e}"))
}

const SHAPES: &[(usize, usize)] = &[(1, 1), (7, 7), (33, 33), (257, 257), (33, 7), (7, 33)];

fn lu<T: Num>(s: &hip::Stream, solver: &Solver) {
    for &(m, n) in SHAPES {
        let what = format!("{} getrf {m}x{n}", T::NAME);
        let a = M::random::<T>(m, n);
        let mut d = up::<T>(s, &a);
        let ipiv = solver
            .getrf(&mut d, Layout::new(m, n))
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let lu = M::from_t(m, n, m, &down(s, &d));
        let ipiv = down(s, &ipiv);
        let k = m.min(n);
        let (mut l, mut u) = (M::zeros(m, k), M::zeros(k, n));
        for j in 0..k {
            l.set(j, j, Z::ONE);
            for i in j + 1..m {
                l.set(i, j, lu.at(i, j));
            }
        }
        for j in 0..n {
            for i in 0..=j.min(k - 1) {
                u.set(i, j, lu.at(i, j));
            }
        }
        // P A: the row interchanges applied in order.
        let mut pa = a.clone();
        for (i, &p) in ipiv.iter().take(k).enumerate() {
            let p = p as usize;
            assert!(
                (i + 1..=m).contains(&p),
                "{what}: pivot {i} is {p}, outside {}..={m}",
                i + 1
            );
            for j in 0..n {
                let (x, y) = (pa.at(i, j), pa.at(p - 1, j));
                pa.set(i, j, y);
                pa.set(p - 1, j, x);
            }
        }
        check(
            &format!("{what}: ‖PA - LU‖/‖A‖"),
            pa.sub(&l.mul(&u)).fro() / a.fro(),
            tol::<T>(m.max(n)),
        );

        if m == n {
            for trans in [Transpose::None, Transpose::Conjugate] {
                let nrhs = 3;
                let x = M::random::<T>(n, nrhs);
                let op_a = if trans == Transpose::None {
                    a.clone()
                } else {
                    a.adjoint()
                };
                let b = op_a.mul(&x);
                let mut db = up::<T>(s, &b);
                solver
                    .getrs(
                        trans,
                        &d,
                        Layout::square(n),
                        &down_to_buf(s, &ipiv),
                        &mut db,
                        Layout::new(n, nrhs),
                    )
                    .unwrap_or_else(|e| panic!("{what}: getrs {trans:?}: {e}"));
                let got = M::from_t(n, nrhs, n, &down(s, &db));
                let err = op_a.mul(&got).sub(&b).fro() / (a.fro() * got.fro());
                check(
                    &format!("{what}: getrs {trans:?} ‖op(A) x - b‖/(‖A‖‖x‖)"),
                    err,
                    tol::<T>(n),
                );
            }
        }
    }
}

fn down_to_buf(s: &hip::Stream, v: &[i32]) -> DeviceBuffer<i32> {
    s.clone_htod(v).unwrap_or_else(|e| panic!("upload: {e}"))
}

#[test]
#[ignore = "needs a GPU"]
fn lu_reconstructs_and_solves() {
    let (s, solver) = setup();
    lu::<f32>(&s, &solver);
    lu::<f64>(&s, &solver);
    lu::<c32>(&s, &solver);
    lu::<c64>(&s, &solver);
}

fn singular<T: Num>(s: &hip::Stream, solver: &Solver) {
    // Column 2 (0-based) is zero: elimination keeps it zero, so the third
    // pivot is exactly zero whatever the row interchanges.
    let n = 7;
    let mut a = M::random::<T>(n, n);
    for i in 0..n {
        a.set(i, 2, Z::ZERO);
    }
    let mut d = up::<T>(s, &a);
    match solver.getrf(&mut d, Layout::square(n)) {
        Err(
            e @ Error::Singular {
                index: 3,
                batch: None,
                ..
            },
        ) => {
            println!("{}: {e}", T::NAME);
            assert_eq!(
                e.to_string(),
                "Solver::getrf: U(3,3) is exactly zero: the matrix is singular"
            );
        }
        other => panic!(
            "{}: a matrix with a zero column gave {other:?}, not U(3,3) = 0",
            T::NAME
        ),
    }
}

#[test]
#[ignore = "needs a GPU"]
fn a_singular_matrix_names_its_zero_pivot() {
    let (s, solver) = setup();
    singular::<f32>(&s, &solver);
    singular::<f64>(&s, &solver);
    singular::<c32>(&s, &solver);
    singular::<c64>(&s, &solver);
}

/// `B Bᴴ + n I`: Hermitian positive definite and well conditioned.
fn spd<T: Num>(n: usize) -> M {
    let b = M::random::<T>(n, n);
    let mut a = b.mul(&b.adjoint());
    for i in 0..n {
        a.set(
            i,
            i,
            a.at(i, i).add(Z {
                re: n as f64,
                im: 0.0,
            }),
        );
        // The diagonal of a Hermitian matrix is real.
        a.set(
            i,
            i,
            Z {
                re: a.at(i, i).re,
                im: 0.0,
            },
        );
    }
    // Round to T so the reference sees what the GPU sees.
    M {
        rows: n,
        cols: n,
        v: a.v.iter().map(|&z| T::from_z(z).to_z()).collect(),
    }
}

fn cholesky<T: Num>(s: &hip::Stream, solver: &Solver) {
    for n in [1, 7, 33, 257] {
        for uplo in [Uplo::Lower, Uplo::Upper] {
            let what = format!("{} potrf {uplo:?} {n}x{n}", T::NAME);
            let a = spd::<T>(n);
            // A leading dimension larger than n, to test it is honoured.
            let ld = n + 3;
            let mut padded = M::zeros(ld, n);
            for j in 0..n {
                for i in 0..n {
                    padded.set(i, j, a.at(i, j));
                }
            }
            let layout = Layout::square(n).with_ld(ld);
            let mut d = up::<T>(s, &padded);
            solver
                .potrf(uplo, &mut d, layout)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
            let f = M::from_t(n, n, ld, &down(s, &d));
            let mut t = M::zeros(n, n);
            for j in 0..n {
                for i in 0..n {
                    let keep = match uplo {
                        Uplo::Lower => i >= j,
                        Uplo::Upper => i <= j,
                    };
                    if keep {
                        t.set(i, j, f.at(i, j));
                    }
                }
            }
            let recon = match uplo {
                Uplo::Lower => t.mul(&t.adjoint()),
                Uplo::Upper => t.adjoint().mul(&t),
            };
            check(
                &format!("{what}: ‖A - LLᴴ‖/‖A‖"),
                a.sub(&recon).fro() / a.fro(),
                tol::<T>(n),
            );

            let nrhs = 2;
            let x = M::random::<T>(n, nrhs);
            let b = a.mul(&x);
            let mut db = up::<T>(s, &b);
            solver
                .potrs(uplo, &d, layout, &mut db, Layout::new(n, nrhs))
                .unwrap_or_else(|e| panic!("{what}: potrs: {e}"));
            let got = M::from_t(n, nrhs, n, &down(s, &db));
            check(
                &format!("{what}: potrs ‖x - x*‖/‖x*‖"),
                got.sub(&x).fro() / x.fro(),
                tol::<T>(n),
            );
        }
    }
    // Not positive definite: the identity with -1 at (3,3) (0-based).
    let n = 7;
    let mut a = M::identity(n);
    a.set(3, 3, Z { re: -1.0, im: 0.0 });
    let mut d = up::<T>(s, &a);
    match solver.potrf(Uplo::Lower, &mut d, Layout::square(n)) {
        Err(
            e @ Error::NotPositiveDefinite {
                order: 4,
                batch: None,
                ..
            },
        ) => {
            assert_eq!(
                e.to_string(),
                "Solver::potrf: the leading minor of order 4 is not positive definite"
            );
        }
        other => panic!(
            "{}: an indefinite matrix gave {other:?}, not minor 4",
            T::NAME
        ),
    }
}

#[test]
#[ignore = "needs a GPU"]
fn cholesky_reconstructs_solves_and_names_the_minor() {
    let (s, solver) = setup();
    cholesky::<f32>(&s, &solver);
    cholesky::<f64>(&s, &solver);
    cholesky::<c32>(&s, &solver);
    cholesky::<c64>(&s, &solver);
}

fn cholesky_batched<T: Num>(s: &hip::Stream, solver: &Solver) {
    let (n, batch) = (33, 3);
    let what = format!("{} potrf_batched {batch} x {n}x{n}", T::NAME);
    let mats: Vec<M> = (0..batch).map(|_| spd::<T>(n)).collect();
    let packed: Vec<T> = mats.iter().flat_map(|m| m.to_t::<T>()).collect();
    let mut d = s.clone_htod(&packed).unwrap();
    let layout = Layout::square(n);
    solver
        .potrf_batched(Uplo::Lower, &mut d, layout, batch)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let xs: Vec<M> = (0..batch).map(|_| M::random::<T>(n, 1)).collect();
    let bs: Vec<T> = mats
        .iter()
        .zip(&xs)
        .flat_map(|(a, x)| a.mul(x).to_t::<T>())
        .collect();
    let mut db = s.clone_htod(&bs).unwrap();
    solver
        .potrs_batched(
            Uplo::Lower,
            &mut d,
            layout,
            &mut db,
            Layout::new(n, 1),
            batch,
        )
        .unwrap_or_else(|e| panic!("{what}: potrs_batched: {e}"));
    let factors = down(s, &d);
    let got = down(s, &db);
    for i in 0..batch {
        let f = M::from_t(n, n, n, &factors[i * n * n..]);
        let mut l = M::zeros(n, n);
        for j in 0..n {
            for r in j..n {
                l.set(r, j, f.at(r, j));
            }
        }
        let a = &mats[i];
        check(
            &format!("{what}: matrix {i} ‖A - LLᴴ‖/‖A‖"),
            a.sub(&l.mul(&l.adjoint())).fro() / a.fro(),
            tol::<T>(n),
        );
        let x = M::from_t(n, 1, n, &got[i * n..]);
        check(
            &format!("{what}: matrix {i} potrs ‖x - x*‖/‖x*‖"),
            x.sub(&xs[i]).fro() / xs[i].fro(),
            tol::<T>(n),
        );
    }
    // The third matrix indefinite: named by its index.
    let mut bad = mats.clone();
    bad[2].set(
        5,
        5,
        Z {
            re: -1.0e6,
            im: 0.0,
        },
    );
    let packed: Vec<T> = bad.iter().flat_map(|m| m.to_t::<T>()).collect();
    let mut d = s.clone_htod(&packed).unwrap();
    match solver.potrf_batched(Uplo::Lower, &mut d, layout, batch) {
        Err(Error::NotPositiveDefinite {
            batch: Some(2),
            order,
            ..
        }) => assert!(order <= 6, "order {order}"),
        other => panic!("{what}: gave {other:?}, not matrix 2 of the batch"),
    }
}

#[test]
#[ignore = "needs a GPU"]
fn batched_cholesky_reconstructs_and_names_the_matrix() {
    let (s, solver) = setup();
    cholesky_batched::<f32>(&s, &solver);
    cholesky_batched::<f64>(&s, &solver);
    cholesky_batched::<c32>(&s, &solver);
    cholesky_batched::<c64>(&s, &solver);
}

fn qr<T: Num>(s: &hip::Stream, solver: &Solver) {
    for &(m, n) in &[(1, 1), (7, 7), (33, 7), (257, 257), (257, 33)] {
        let what = format!("{} geqrf {m}x{n}", T::NAME);
        let a = M::random::<T>(m, n);
        let mut d = up::<T>(s, &a);
        let layout = Layout::new(m, n);
        let tau = solver
            .geqrf(&mut d, layout)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let factored = M::from_t(m, n, m, &down(s, &d));
        let mut r = M::zeros(n, n);
        for j in 0..n {
            for i in 0..=j {
                r.set(i, j, factored.at(i, j));
            }
        }
        // Qᴴ A through ormqr must give R on top and zeros below.
        let mut c = up::<T>(s, &a);
        solver
            .ormqr(
                Side::Left,
                Transpose::Conjugate,
                &d,
                layout,
                &tau,
                &mut c,
                layout,
            )
            .unwrap_or_else(|e| panic!("{what}: ormqr: {e}"));
        let qha = M::from_t(m, n, m, &down(s, &c));
        let mut r_full = M::zeros(m, n);
        for j in 0..n {
            for i in 0..=j {
                r_full.set(i, j, r.at(i, j));
            }
        }
        check(
            &format!("{what}: ‖QᴴA - R‖/‖A‖ (ormqr)"),
            qha.sub(&r_full).fro() / a.fro(),
            tol::<T>(m),
        );
        // Q itself (m x n) through orgqr.
        solver
            .orgqr(&mut d, layout, &tau, n)
            .unwrap_or_else(|e| panic!("{what}: orgqr: {e}"));
        let q = M::from_t(m, n, m, &down(s, &d));
        check(
            &format!("{what}: ‖A - QR‖/‖A‖"),
            a.sub(&q.mul(&r)).fro() / a.fro(),
            tol::<T>(m),
        );
        orthonormal_columns(&what, &q, tol::<T>(m));
    }
}

#[test]
#[ignore = "needs a GPU"]
fn qr_reconstructs_with_orthonormal_q() {
    let (s, solver) = setup();
    qr::<f32>(&s, &solver);
    qr::<f64>(&s, &solver);
    qr::<c32>(&s, &solver);
    qr::<c64>(&s, &solver);
}

fn diag_scale(u: &M, s: &[f64]) -> M {
    let mut out = u.clone();
    for (j, &sj) in s.iter().enumerate().take(u.cols) {
        for i in 0..u.rows {
            out.set(i, j, u.at(i, j).scale(sj));
        }
    }
    out
}

fn check_singular_values(what: &str, s: &[f64]) {
    for w in s.windows(2) {
        assert!(
            w[0] >= w[1],
            "{what}: singular values not descending: {s:?}"
        );
    }
    assert!(
        s.iter().all(|&x| x >= 0.0),
        "{what}: negative singular value: {s:?}"
    );
}

fn svd<T: Num>(s: &hip::Stream, solver: &Solver) {
    for &(m, n) in &[(1, 1), (7, 7), (33, 7), (257, 257), (33, 33)] {
        let what = format!("{} gesvd {m}x{n}", T::NAME);
        let a = M::random::<T>(m, n);
        let mut d = up::<T>(s, &a);
        let out = solver
            .gesvd(&mut d, Layout::new(m, n), SvdVectors::Thin)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let k = out.k;
        assert_eq!(k, n);
        let sv: Vec<f64> = down(s, &out.s).into_iter().take(k).map(T::real).collect();
        check_singular_values(&what, &sv);
        let u = M::from_t(m, k, m, &down(s, out.u.as_ref().unwrap()));
        let vt = M::from_t(k, n, n.max(1), &down(s, out.v.as_ref().unwrap()));
        check(
            &format!("{what}: ‖A - U S Vᴴ‖/‖A‖"),
            a.sub(&diag_scale(&u, &sv).mul(&vt)).fro() / a.fro(),
            tol::<T>(m),
        );
        orthonormal_columns(&format!("{what} U"), &u, tol::<T>(m));
        orthonormal_columns(&format!("{what} V"), &vt.adjoint(), tol::<T>(m));
    }
    for &(m, n) in &[(1, 1), (7, 33), (33, 7), (257, 257)] {
        let what = format!("{} gesvdj {m}x{n}", T::NAME);
        let a = M::random::<T>(m, n);
        let mut d = up::<T>(s, &a);
        let out = solver
            .gesvdj(&mut d, Layout::new(m, n), SvdVectors::Thin)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let k = out.k;
        let sv: Vec<f64> = down(s, &out.s).into_iter().take(k).map(T::real).collect();
        check_singular_values(&what, &sv);
        let u = M::from_t(m, k, m, &down(s, out.u.as_ref().unwrap()));
        let v = M::from_t(n, k, n, &down(s, out.v.as_ref().unwrap()));
        check(
            &format!("{what}: ‖A - U S Vᴴ‖/‖A‖"),
            a.sub(&diag_scale(&u, &sv).mul(&v.adjoint())).fro() / a.fro(),
            tol::<T>(m.max(n)),
        );
        orthonormal_columns(&format!("{what} U"), &u, tol::<T>(m.max(n)));
        orthonormal_columns(&format!("{what} V"), &v, tol::<T>(m.max(n)));
    }
    // Batched Jacobi: 3 matrices of 7 x 5, all vectors.
    let (m, n, batch) = (7, 5, 3);
    let what = format!("{} gesvdj_batched {batch} x {m}x{n}", T::NAME);
    let mats: Vec<M> = (0..batch).map(|_| M::random::<T>(m, n)).collect();
    let packed: Vec<T> = mats.iter().flat_map(|x| x.to_t::<T>()).collect();
    let mut d = s.clone_htod(&packed).unwrap();
    let out = solver
        .gesvdj_batched(&mut d, Layout::new(m, n), batch)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (sv, us, vs) = (
        down(s, &out.s),
        down(s, out.u.as_ref().unwrap()),
        down(s, out.v.as_ref().unwrap()),
    );
    for i in 0..batch {
        let k = m.min(n);
        let si: Vec<f64> = sv[i * k..(i + 1) * k].iter().map(|&x| T::real(x)).collect();
        check_singular_values(&what, &si);
        let u = M::from_t(m, m, m, &us[i * m * m..]).block(m, k);
        let v = M::from_t(n, n, n, &vs[i * n * n..]).block(n, k);
        let a = &mats[i];
        check(
            &format!("{what}: matrix {i} ‖A - U S Vᴴ‖/‖A‖"),
            a.sub(&diag_scale(&u, &si).mul(&v.adjoint())).fro() / a.fro(),
            tol::<T>(m),
        );
        orthonormal_columns(&format!("{what} matrix {i} U"), &u, tol::<T>(m));
    }
}

#[test]
#[ignore = "needs a GPU"]
fn svd_reconstructs_with_orthonormal_vectors() {
    let (s, solver) = setup();
    svd::<f32>(&s, &solver);
    svd::<f64>(&s, &solver);
    svd::<c32>(&s, &solver);
    svd::<c64>(&s, &solver);
}

/// `B + Bᴴ`: Hermitian.
fn hermitian<T: Num>(n: usize) -> M {
    let b = M::random::<T>(n, n);
    let a = b.add_adjoint();
    M {
        rows: n,
        cols: n,
        v: a.v.iter().map(|&z| T::from_z(z).to_z()).collect(),
    }
}

impl M {
    fn add_adjoint(&self) -> M {
        let t = self.adjoint();
        let mut out = self.clone();
        for (o, x) in out.v.iter_mut().zip(&t.v) {
            *o = o.add(*x);
        }
        for i in 0..self.rows {
            let d = out.at(i, i);
            out.set(i, i, Z { re: d.re, im: 0.0 });
        }
        out
    }
}

fn eig_check<T: Num>(what: &str, a: &M, v: &M, w: &[f64]) {
    for p in w.windows(2) {
        assert!(p[0] <= p[1], "{what}: eigenvalues not ascending: {w:?}");
    }
    let av = a.mul(v);
    let vl = diag_scale(v, w);
    let n = a.rows;
    check(
        &format!("{what}: ‖AV - VΛ‖/‖A‖"),
        av.sub(&vl).fro() / a.fro(),
        tol::<T>(n),
    );
    orthonormal_columns(what, v, tol::<T>(n));
}

fn eigen<T: Num>(s: &hip::Stream, solver: &Solver) {
    for n in [1, 7, 33, 257] {
        for jacobi in [false, true] {
            let what = format!(
                "{} {} {n}x{n}",
                T::NAME,
                if jacobi { "syevj" } else { "syevd" }
            );
            let a = hermitian::<T>(n);
            let mut d = up::<T>(s, &a);
            let w = if jacobi {
                solver.syevj(Uplo::Lower, &mut d, Layout::square(n), true)
            } else {
                solver.syevd(Uplo::Lower, &mut d, Layout::square(n), true)
            }
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let w: Vec<f64> = down(s, &w).into_iter().take(n).map(T::real).collect();
            let v = M::from_t(n, n, n, &down(s, &d));
            eig_check::<T>(&what, &a, &v, &w);
        }
    }
    let (n, batch) = (7, 3);
    let what = format!("{} syevj_batched {batch} x {n}x{n}", T::NAME);
    let mats: Vec<M> = (0..batch).map(|_| hermitian::<T>(n)).collect();
    let packed: Vec<T> = mats.iter().flat_map(|x| x.to_t::<T>()).collect();
    let mut d = s.clone_htod(&packed).unwrap();
    let w = solver
        .syevj_batched(Uplo::Upper, &mut d, Layout::square(n), true, batch)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let (w, vs) = (down(s, &w), down(s, &d));
    for i in 0..batch {
        let wi: Vec<f64> = w[i * n..(i + 1) * n].iter().map(|&x| T::real(x)).collect();
        let v = M::from_t(n, n, n, &vs[i * n * n..]);
        eig_check::<T>(&format!("{what} matrix {i}"), &mats[i], &v, &wi);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn eigenvectors_satisfy_av_equals_v_lambda() {
    let (s, solver) = setup();
    eigen::<f32>(&s, &solver);
    eigen::<f64>(&s, &solver);
    eigen::<c32>(&s, &solver);
    eigen::<c64>(&s, &solver);
}

#[test]
#[ignore = "needs a GPU"]
fn bad_arguments_are_refused_before_the_library_is_called() {
    let (s, solver) = setup();
    let mut a = s.clone_htod(&vec![1.0f32; 20]).unwrap();
    let expect = |r: hipsolver::Result<()>, op: &str, needle: &str| match r {
        Err(Error::Invalid { operation, reason }) => {
            assert_eq!(operation, op);
            assert!(reason.contains(needle), "{op}: {reason}");
        }
        other => panic!("{op}: expected Invalid ({needle}), got {other:?}"),
    };
    expect(
        solver
            .getrf(&mut a, Layout::new(5, 4).with_ld(4))
            .map(|_| ()),
        "Solver::getrf",
        "leading dimension 4",
    );
    expect(
        solver.getrf(&mut a, Layout::new(5, 5)).map(|_| ()),
        "Solver::getrf",
        "holds 20 elements",
    );
    expect(
        solver.potrf(Uplo::Lower, &mut a, Layout::new(4, 5)),
        "Solver::potrf",
        "must be square",
    );
    expect(
        solver
            .gesvd(&mut a, Layout::new(4, 5), SvdVectors::Thin)
            .map(|_| ()),
        "Solver::gesvd",
        "rows >= cols",
    );
    expect(
        solver
            .syevj_batched(Uplo::Lower, &mut a, Layout::square(33), true, 1)
            .map(|_| ()),
        "Solver::syevj_batched",
        "at most 32",
    );
    expect(
        solver.potrf_batched(Uplo::Lower, &mut a, Layout::square(2), 0),
        "Solver::potrf_batched",
        "batch is empty",
    );
    let ipiv = s.clone_htod(&[1i32, 2]).unwrap();
    let mut b = s.clone_htod(&[1.0f32; 4]).unwrap();
    expect(
        solver.getrs(
            Transpose::None,
            &a,
            Layout::square(4),
            &ipiv,
            &mut b,
            Layout::new(4, 1),
        ),
        "Solver::getrs",
        "ipiv holds 2 elements but 4",
    );
    expect(
        solver.getrs(
            Transpose::None,
            &a,
            Layout::square(4),
            &ipiv,
            &mut b,
            Layout::new(3, 1),
        ),
        "Solver::getrs",
        "b has 3 rows",
    );
}
