//! GPU tests of hipsparse against dense CPU references in f64, on fresh
//! random data (seed printed at each test's first draw; replay with
//! `HIP_TEST_SEED`) with awkward sizes: 1, 7, 1000 + 3, rectangular, and
//! matrices with empty rows.
//!
//! # Tolerances
//! - Products (SpMV, SpMM, SpGEMM, BSR): each output entry is a sum of
//!   `k` products. With floating-point summation in any order its error is
//!   at most `k * eps * sum|a_ij * x_j|` (Higham, *Accuracy and Stability
//!   of Numerical Algorithms*, §3.1); we allow `4 * (k + 2) * eps` times
//!   that sum (plus `|beta * y|` for the accumulated output), where `eps`
//!   is the element type's machine epsilon. A wrong index, transpose, base
//!   or scale gives errors of the order of the entries themselves.
//! - Triangular solves (SpSV, SpSM) on diagonally dominant matrices (each
//!   diagonal entry is 2 + the sum of the row's other magnitudes, so the
//!   condition number is below 3 in the infinity norm): the relative
//!   infinity-norm error of the solution is at most `c * n_row * eps`;
//!   we allow `64 * n * eps`.
//! - Conversions move values without arithmetic: exact equality.
//!
//! Every failing comparison prints what was compared (operation, type,
//! shape, the worst entry with its value, reference and bound; for exact
//! comparisons the first difference with its row and column). The complex
//! SpMV writes `[progress]` lines straight to stderr before each step, so
//! a crash of the process still shows where it happened.

// The CPU references index dense matrices by (row, column).
#![allow(clippy::needless_range_loop)]

use hip::Stream;
use hipsparse::{
    BlockOrder, Bsr, Coo, Csc, Csr, DenseLayout, Diagonal, Error, IndexBase, Operation, Order,
    Scalar, Sparse, SparseMatrix, Triangle,
};
use rand::Rng;
use test_kit::{device, download, rng, stream};

/// The real element types under test, with conversions to the f64
/// reference.
trait Real: Scalar + hip::ValidAsZeroBits + Copy {
    const EPS: f64;
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
}

impl Real for f32 {
    const EPS: f64 = f32::EPSILON as f64;
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl Real for f64 {
    const EPS: f64 = f64::EPSILON;
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}

/// A host CSR matrix: zero-based offsets and sorted column indices, f64
/// values exactly representable in f32 (so both types test the same
/// matrix).
#[derive(Clone, Debug)]
struct HostCsr {
    rows: usize,
    cols: usize,
    offsets: Vec<i32>,
    indices: Vec<i32>,
    values: Vec<f64>,
}

/// A random value in [-2, -0.25] ∪ [0.25, 2], on a 1/1024 grid (exact in
/// f32).
fn value(r: &mut impl Rng) -> f64 {
    let m = f64::from(r.gen_range(256..=2048)) / 1024.0;
    if r.gen_bool(0.5) {
        m
    } else {
        -m
    }
}

/// A random `rows` x `cols` matrix with about `per_row` entries per row;
/// every third row (and always row 1 when there are 3 or more) is empty.
fn random_csr(rows: usize, cols: usize, per_row: usize) -> HostCsr {
    let mut r = rng();
    let mut offsets = vec![0i32];
    let (mut indices, mut values) = (Vec::new(), Vec::new());
    for i in 0..rows {
        let empty = rows >= 3 && (i % 3 == 1);
        if !empty {
            let mut cs: Vec<i32> = (0..per_row.min(cols))
                .map(|_| r.gen_range(0..cols as i32))
                .collect();
            if i == 0 && cs.is_empty() {
                cs.push(0);
            }
            cs.sort_unstable();
            cs.dedup();
            for c in cs {
                indices.push(c);
                values.push(value(&mut r));
            }
        }
        offsets.push(indices.len() as i32);
    }
    if indices.is_empty() {
        indices.push(0);
        values.push(1.0);
        *offsets.last_mut().unwrap() = 1;
        for o in offsets.iter_mut().skip(1) {
            *o = 1;
        }
    }
    HostCsr {
        rows,
        cols,
        offsets,
        indices,
        values,
    }
}

impl HostCsr {
    /// Row-major dense form.
    fn dense(&self) -> Vec<f64> {
        let mut d = vec![0.0; self.rows * self.cols];
        for i in 0..self.rows {
            for k in self.offsets[i] as usize..self.offsets[i + 1] as usize {
                d[i * self.cols + self.indices[k] as usize] += self.values[k];
            }
        }
        d
    }

    fn upload<T: Real>(&self, stream: &Stream, base: IndexBase) -> Csr<T> {
        let b = base.offset();
        let o: Vec<i32> = self.offsets.iter().map(|v| v + b).collect();
        let i: Vec<i32> = self.indices.iter().map(|v| v + b).collect();
        let v: Vec<T> = self.values.iter().map(|&x| T::from_f64(x)).collect();
        Csr::from_host(stream, self.rows, self.cols, &o, &i, &v, base)
            .unwrap_or_else(|e| panic!("uploading a {}x{} CSR: {e}", self.rows, self.cols))
    }

    /// The same matrix as CSC (column offsets, sorted row indices).
    fn to_csc(&self) -> (Vec<i32>, Vec<i32>, Vec<f64>) {
        let mut cols: Vec<Vec<(i32, f64)>> = vec![Vec::new(); self.cols];
        for i in 0..self.rows {
            for k in self.offsets[i] as usize..self.offsets[i + 1] as usize {
                cols[self.indices[k] as usize].push((i as i32, self.values[k]));
            }
        }
        let mut offsets = vec![0i32];
        let (mut rows, mut vals) = (Vec::new(), Vec::new());
        for c in cols {
            for (r, v) in c {
                rows.push(r);
                vals.push(v);
            }
            offsets.push(rows.len() as i32);
        }
        (offsets, rows, vals)
    }

    /// Row indices of every entry (COO).
    fn row_indices(&self) -> Vec<i32> {
        (0..self.rows)
            .flat_map(|i| {
                std::iter::repeat(i as i32).take((self.offsets[i + 1] - self.offsets[i]) as usize)
            })
            .collect()
    }
}

/// Compares `got` with `want` entry by entry, each within `tol[i]`; prints
/// the worst entry and fails with it.
fn check(what: &str, got: &[f64], want: &[f64], tol: &[f64]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let mut worst = (0usize, 0.0f64);
    for i in 0..got.len() {
        let ratio = (got[i] - want[i]).abs() / tol[i].max(f64::MIN_POSITIVE);
        // A NaN counts as the worst entry.
        if ratio.is_nan() || ratio > worst.1 {
            worst = (i, ratio);
        }
    }
    let i = worst.0;
    println!(
        "{what}: {} entries, worst at {i}: got {} want {} (|diff| {:.3e}, bound {:.3e}, ratio {:.3})",
        got.len(),
        got[i],
        want[i],
        (got[i] - want[i]).abs(),
        tol[i],
        worst.1
    );
    assert!(
        worst.1 <= 1.0,
        "{what}: entry {i}: got {} want {} (|diff| {:e} > bound {:e})",
        got[i],
        want[i],
        (got[i] - want[i]).abs(),
        tol[i]
    );
}

/// A progress line written straight to the process's stderr (not through
/// the test harness's capture), so it is seen even when the process dies
/// in the next step.
fn progress(line: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "[progress] {line}");
    let _ = e.flush();
}

/// Fails, naming the first difference, unless a CSR matrix read back
/// (`got`: offsets, indices, values) equals `want` exactly (all counting
/// from the same base). The report gives the first differing offset or
/// entry with its row, and that row's columns and values on both sides,
/// instead of whole vectors.
fn compare_csr<V: PartialEq + std::fmt::Debug>(
    what: &str,
    (got_o, got_i, got_v): (&[i32], &[i32], &[V]),
    (want_o, want_i, want_v): (&[i32], &[i32], &[V]),
    base: i32,
) {
    let rows = want_o.len().saturating_sub(1);
    let row_of = |o: &[i32], k: usize| o.partition_point(|&x| (x - base) as usize <= k) - 1;
    let row_of_got = |r: usize| -> String {
        match (got_o.get(r), got_o.get(r + 1)) {
            (Some(&a), Some(&b))
                if a <= b && (b - base) as usize <= got_i.len().min(got_v.len()) =>
            {
                let range = (a - base) as usize..(b - base) as usize;
                format!(
                    "columns {:?} values {:?}",
                    &got_i[range.clone()],
                    &got_v[range]
                )
            }
            _ => "(its offsets are out of range)".to_string(),
        }
    };
    let row_of_want = |r: usize| -> String {
        let range = (want_o[r] - base) as usize..(want_o[r + 1] - base) as usize;
        format!(
            "columns {:?} values {:?}",
            &want_i[range.clone()],
            &want_v[range]
        )
    };
    if let Some(r) = (0..want_o.len().max(got_o.len())).find(|&r| got_o.get(r) != want_o.get(r)) {
        let from = r.saturating_sub(2);
        panic!(
            "{what}: {rows} rows, row offsets: {} got, {} expected; first difference at \
             offset {r}: got {:?} want {:?}; offsets {from}..: got {:?} want {:?}",
            got_o.len(),
            want_o.len(),
            got_o.get(r),
            want_o.get(r),
            &got_o[from.min(got_o.len())..(r + 3).min(got_o.len())],
            &want_o[from.min(want_o.len())..(r + 3).min(want_o.len())],
        );
    }
    for (name, same) in [
        ("column indices", got_i.len() == want_i.len()),
        ("values", got_v.len() == want_v.len()),
    ] {
        assert!(
            same,
            "{what}: {name}: {} and {} entries got, {} expected",
            got_i.len(),
            got_v.len(),
            want_i.len()
        );
    }
    let first = (0..want_i.len()).find(|&k| got_i[k] != want_i[k] || got_v[k] != want_v[k]);
    if let Some(k) = first {
        let r = row_of(want_o, k);
        let mut sorted_got: Vec<i32> =
            got_i[(want_o[r] - base) as usize..(want_o[r + 1] - base) as usize].to_vec();
        sorted_got.sort_unstable();
        let want_row = &want_i[(want_o[r] - base) as usize..(want_o[r + 1] - base) as usize];
        let unsorted_rows = (0..rows)
            .filter(|&q| {
                got_i[(got_o[q] - base) as usize..(got_o[q + 1] - base) as usize]
                    .windows(2)
                    .any(|w| w[0] >= w[1])
            })
            .count();
        panic!(
            "{what}: first difference at entry {k} (row {r}, entry {} of the row): got column {} \
             value {:?}, want column {} value {:?}; row {r} got {}; want {}; the row's columns \
             {} the same set; {unsorted_rows} of {rows} rows read back are not ascending \
             (rows count from 0, columns from base {base})",
            k - (want_o[r] - base) as usize,
            got_i[k],
            got_v[k],
            want_i[k],
            want_v[k],
            row_of_got(r),
            row_of_want(r),
            if sorted_got == want_row {
                "are"
            } else {
                "are not"
            },
        );
    }
    println!("{what}: {rows} rows, {} entries: identical", want_i.len());
}

/// `y = alpha * op(A) x + beta * y0` on the CPU, with each entry's bound.
fn spmv_ref(
    a: &HostCsr,
    op: Operation,
    alpha: f64,
    x: &[f64],
    beta: f64,
    y0: &[f64],
    eps: f64,
) -> (Vec<f64>, Vec<f64>) {
    let d = a.dense();
    let (m, n) = op.apply((a.rows, a.cols));
    let at = |i: usize, j: usize| match op {
        Operation::NonTranspose => d[i * a.cols + j],
        _ => d[j * a.cols + i],
    };
    let mut y = vec![0.0; m];
    let mut tol = vec![0.0; m];
    for i in 0..m {
        let (mut s, mut abs, mut k) = (0.0, 0.0, 0usize);
        for j in 0..n {
            let p = at(i, j) * x[j];
            if at(i, j) != 0.0 {
                k += 1;
            }
            s += p;
            abs += p.abs();
        }
        y[i] = alpha * s + beta * y0[i];
        tol[i] = 4.0 * (k + 2) as f64 * eps * (alpha.abs() * abs + (beta * y0[i]).abs()) + 1e-300;
    }
    (y, tol)
}

fn random_vec(n: usize) -> Vec<f64> {
    let mut r = rng();
    (0..n).map(|_| value(&mut r)).collect()
}

fn to_t<T: Real>(v: &[f64]) -> Vec<T> {
    v.iter().map(|&x| T::from_f64(x)).collect()
}

fn to_f64<T: Real>(v: &[T]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}

fn spmv_case<T: Real>(
    sparse: &Sparse,
    a: &HostCsr,
    dev_a: &impl SparseMatrix<T>,
    op: Operation,
    what: &str,
) {
    let s = sparse.stream();
    let (m, n) = op.apply((a.rows, a.cols));
    let (x, y0) = (random_vec(n), random_vec(m));
    let (alpha, beta) = (1.5, -0.5);
    let dx = s.clone_htod(&to_t::<T>(&x)).unwrap();
    let mut dy = s.clone_htod(&to_t::<T>(&y0)).unwrap();
    sparse
        .spmv(
            op,
            T::from_f64(alpha),
            dev_a,
            &dx,
            T::from_f64(beta),
            &mut dy,
        )
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let got = to_f64(&download(s, &dy));
    let (want, tol) = spmv_ref(a, op, alpha, &x, beta, &y0, T::EPS);
    check(
        &format!("{what} {} {}x{} {op:?}", T::NAME, a.rows, a.cols),
        &got,
        &want,
        &tol,
    );
}

const SHAPES: [(usize, usize, usize); 5] = [
    (1, 1, 1),
    (7, 7, 3),
    (7, 5, 4),
    (1003, 1003, 9),
    (1003, 517, 12),
];

fn spmv_all<T: Real>() {
    let dev = device();
    let s = stream(&dev);
    let sparse = Sparse::new(&s).unwrap();
    for (rows, cols, per_row) in SHAPES {
        let a = random_csr(rows, cols, per_row);
        for base in [IndexBase::Zero, IndexBase::One] {
            let da = a.upload::<T>(&s, base);
            for op in [Operation::NonTranspose, Operation::Transpose] {
                spmv_case::<T>(&sparse, &a, &da, op, &format!("SpMV CSR base {base:?}"));
            }
        }
        // The same matrix as CSC and as COO.
        let (co, ri, cv) = a.to_csc();
        let csc =
            Csc::from_host(&s, rows, cols, &co, &ri, &to_t::<T>(&cv), IndexBase::Zero).unwrap();
        spmv_case::<T>(&sparse, &a, &csc, Operation::NonTranspose, "SpMV CSC");
        let one: Vec<i32> = a.row_indices().iter().map(|v| v + 1).collect();
        let cols1: Vec<i32> = a.indices.iter().map(|v| v + 1).collect();
        let coo = Coo::from_host(
            &s,
            rows,
            cols,
            &one,
            &cols1,
            &to_t::<T>(&a.values),
            IndexBase::One,
        )
        .unwrap();
        spmv_case::<T>(
            &sparse,
            &a,
            &coo,
            Operation::NonTranspose,
            "SpMV COO base One",
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn spmv_csr_csc_coo_f32() {
    spmv_all::<f32>();
}

#[test]
#[ignore = "needs a GPU"]
fn spmv_csr_csc_coo_f64() {
    spmv_all::<f64>();
}

fn spmm_all<T: Real>() {
    let dev = device();
    let s = stream(&dev);
    let sparse = Sparse::new(&s).unwrap();
    for (rows, cols, per_row) in [(1, 1, 1), (7, 5, 3), (1003, 517, 10)] {
        let a = random_csr(rows, cols, per_row);
        let da = a.upload::<T>(&s, IndexBase::Zero);
        for ncols in [1usize, 7, 33] {
            for order in [Order::ColumnMajor, Order::RowMajor] {
                let (lb, lc) = match order {
                    Order::ColumnMajor => (
                        DenseLayout::col_major(cols, ncols).with_ld(cols + 3),
                        DenseLayout::col_major(rows, ncols),
                    ),
                    Order::RowMajor => (
                        DenseLayout::row_major(cols, ncols),
                        DenseLayout::row_major(rows, ncols).with_ld(ncols + 2),
                    ),
                };
                let b = random_vec(lb.min_len());
                let c0 = random_vec(lc.min_len());
                let (alpha, beta) = (0.75, 2.0);
                let db = s.clone_htod(&to_t::<T>(&b)).unwrap();
                let mut dc = s.clone_htod(&to_t::<T>(&c0)).unwrap();
                sparse
                    .spmm(
                        Operation::NonTranspose,
                        T::from_f64(alpha),
                        &da,
                        (lb, &db),
                        T::from_f64(beta),
                        (lc, &mut dc),
                    )
                    .unwrap_or_else(|e| panic!("SpMM {rows}x{cols} n={ncols} {order:?}: {e}"));
                let got = to_f64(&download(&s, &dc));
                // Reference per column of C, through the SpMV reference.
                let at = |l: &DenseLayout, i: usize, j: usize| match l.order {
                    Order::ColumnMajor => j * l.ld + i,
                    Order::RowMajor => i * l.ld + j,
                };
                let mut want = c0.clone();
                let mut tol = vec![0.0; c0.len()];
                for j in 0..ncols {
                    let x: Vec<f64> = (0..cols).map(|i| b[at(&lb, i, j)]).collect();
                    let y0: Vec<f64> = (0..rows).map(|i| c0[at(&lc, i, j)]).collect();
                    let (y, t) =
                        spmv_ref(&a, Operation::NonTranspose, alpha, &x, beta, &y0, T::EPS);
                    for i in 0..rows {
                        want[at(&lc, i, j)] = y[i];
                        tol[at(&lc, i, j)] = t[i];
                    }
                }
                check(
                    &format!("SpMM {} {rows}x{cols} * {cols}x{ncols} {order:?}", T::NAME),
                    &got,
                    &want,
                    &tol,
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn spmm_col_and_row_major_f32() {
    spmm_all::<f32>();
}

#[test]
#[ignore = "needs a GPU"]
fn spmm_col_and_row_major_f64() {
    spmm_all::<f64>();
}

/// Downloads a CSR matrix, checks its structure with the crate's own
/// rules, and returns its row-major dense form.
fn dense_of<T: Real>(s: &Stream, c: &Csr<T>) -> Vec<f64> {
    let (rows, cols) = (c.rows(), c.cols());
    let b = c.index_base().offset();
    let offsets = download(s, c.row_offsets());
    let indices = download(s, c.col_indices());
    let values = to_f64(&download(s, c.values()));
    Csr::<T>::check_host(rows, cols, &offsets, &indices, values.len(), c.index_base())
        .unwrap_or_else(|e| panic!("hipSPARSE returned a malformed CSR: {e}"));
    let mut d = vec![0.0; rows * cols];
    for i in 0..rows {
        for k in (offsets[i] - b) as usize..(offsets[i + 1] - b) as usize {
            d[i * cols + (indices[k] - b) as usize] += values[k];
        }
    }
    d
}

fn spgemm_all<T: Real>() {
    let dev = device();
    let s = stream(&dev);
    let sparse = Sparse::new(&s).unwrap();
    for (m, k, n) in [(1, 1, 1), (7, 5, 9), (300, 211, 157), (1003, 1003, 1003)] {
        let a = random_csr(m, k, 6);
        let b = random_csr(k, n, 6);
        let alpha = 1.25;
        let c = sparse
            .spgemm(
                T::from_f64(alpha),
                &a.upload::<T>(&s, IndexBase::Zero),
                &b.upload::<T>(&s, IndexBase::Zero),
            )
            .unwrap_or_else(|e| panic!("SpGEMM {m}x{k} * {k}x{n}: {e}"));
        assert_eq!((c.rows(), c.cols()), (m, n), "SpGEMM shape");
        let got = dense_of(&s, &c);
        // The reference by rows of A times rows of B (as the library
        // does), with each entry's sum of magnitudes and term count.
        let mut want = vec![0.0; m * n];
        let mut abs = vec![0.0; m * n];
        let mut terms = vec![0usize; m * n];
        for i in 0..m {
            for ka in a.offsets[i] as usize..a.offsets[i + 1] as usize {
                let l = a.indices[ka] as usize;
                for kb in b.offsets[l] as usize..b.offsets[l + 1] as usize {
                    let j = b.indices[kb] as usize;
                    let p = a.values[ka] * b.values[kb];
                    want[i * n + j] += p;
                    abs[i * n + j] += p.abs();
                    terms[i * n + j] += 1;
                }
            }
        }
        for w in want.iter_mut() {
            *w *= alpha;
        }
        let tol: Vec<f64> = abs
            .iter()
            .zip(&terms)
            .map(|(s, &t)| 4.0 * (t + 2) as f64 * T::EPS * alpha * s + 1e-300)
            .collect();
        check(
            &format!("SpGEMM {} {m}x{k} * {k}x{n} (nnz {})", T::NAME, c.nnz()),
            &got,
            &want,
            &tol,
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn spgemm_f32() {
    spgemm_all::<f32>();
}

#[test]
#[ignore = "needs a GPU"]
fn spgemm_f64() {
    spgemm_all::<f64>();
}

/// A random diagonally dominant triangular matrix of `n` (see the module
/// doc), with the diagonal stored; for `unit`, the stored diagonal is 7
/// (which the solve must ignore) and the reference uses ones.
fn triangular(n: usize, triangle: Triangle, unit: bool) -> (HostCsr, HostCsr) {
    let mut r = rng();
    let (mut stored, mut reference) = (vec![vec![]; n], vec![vec![]; n]);
    for (i, (row, ref_row)) in stored.iter_mut().zip(reference.iter_mut()).enumerate() {
        let range = match triangle {
            Triangle::Lower => 0..i,
            Triangle::Upper => i + 1..n,
        };
        let mut cols: Vec<usize> = if range.is_empty() || i % 5 == 3 {
            vec![]
        } else {
            (0..4).map(|_| r.gen_range(range.clone())).collect()
        };
        cols.sort_unstable();
        cols.dedup();
        let off: Vec<(usize, f64)> = cols.into_iter().map(|c| (c, value(&mut r))).collect();
        let sum: f64 = off.iter().map(|(_, v)| v.abs()).sum();
        let diag = 2.0 + sum;
        let mut entries = off.clone();
        entries.push((i, if unit { 7.0 } else { diag }));
        entries.sort_by_key(|e| e.0);
        *row = entries.clone();
        let mut re = off;
        re.push((i, if unit { 1.0 } else { diag }));
        re.sort_by_key(|e| e.0);
        *ref_row = re;
    }
    let build = |rows: &Vec<Vec<(usize, f64)>>| {
        let mut offsets = vec![0i32];
        let (mut indices, mut values) = (vec![], vec![]);
        for row in rows {
            for &(c, v) in row {
                indices.push(c as i32);
                values.push(v);
            }
            offsets.push(indices.len() as i32);
        }
        HostCsr {
            rows: n,
            cols: n,
            offsets,
            indices,
            values,
        }
    };
    (build(&stored), build(&reference))
}

fn solve_tol<T: Real>(n: usize) -> f64 {
    64.0 * n as f64 * T::EPS
}

fn max_rel(got: &[f64], want: &[f64]) -> (usize, f64) {
    let norm = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let mut worst = (0, 0.0);
    for i in 0..got.len() {
        let e = (got[i] - want[i]).abs() / norm;
        if e.is_nan() || e > worst.1 {
            worst = (i, e);
        }
    }
    worst
}

fn spsv_all<T: Real>() {
    let dev = device();
    let s = stream(&dev);
    let sparse = Sparse::new(&s).unwrap();
    for n in [1usize, 7, 1003] {
        for triangle in [Triangle::Lower, Triangle::Upper] {
            for unit in [false, true] {
                let (stored, reference) = triangular(n, triangle, unit);
                let y_true = random_vec(n);
                // x = A * y_true / alpha, so that A y = alpha x has y_true.
                let alpha = 2.0;
                let (ax, _) = spmv_ref(
                    &reference,
                    Operation::NonTranspose,
                    1.0,
                    &y_true,
                    0.0,
                    &vec![0.0; n],
                    T::EPS,
                );
                let x: Vec<f64> = ax.iter().map(|v| v / alpha).collect();
                let da = stored.upload::<T>(&s, IndexBase::Zero);
                let dx = s.clone_htod(&to_t::<T>(&x)).unwrap();
                let mut dy = s.alloc_zeroed::<T>(n).unwrap();
                let diag = if unit {
                    Diagonal::Unit
                } else {
                    Diagonal::NonUnit
                };
                sparse
                    .spsv(
                        Operation::NonTranspose,
                        T::from_f64(alpha),
                        &da,
                        (triangle, diag),
                        &dx,
                        &mut dy,
                    )
                    .unwrap_or_else(|e| panic!("SpSV n={n} {triangle:?} {diag:?}: {e}"));
                let got = to_f64(&download(&s, &dy));
                let (i, err) = max_rel(&got, &y_true);
                let tol = solve_tol::<T>(n);
                println!(
                    "SpSV {} n={n} {triangle:?} {diag:?}: max relative error {err:.3e} at {i} (got {} want {}), bound {tol:.3e}",
                    T::NAME, got[i], y_true[i]
                );
                assert!(err <= tol, "SpSV {} n={n} {triangle:?} {diag:?}: error {err:e} > {tol:e} at {i}: got {} want {}", T::NAME, got[i], y_true[i]);
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn spsv_lower_upper_unit_f32() {
    spsv_all::<f32>();
}

#[test]
#[ignore = "needs a GPU"]
fn spsv_lower_upper_unit_f64() {
    spsv_all::<f64>();
}

fn spsm_all<T: Real>() {
    let dev = device();
    let s = stream(&dev);
    let sparse = Sparse::new(&s).unwrap();
    for (n, nrhs) in [(1usize, 1usize), (7, 3), (1003, 5)] {
        for triangle in [Triangle::Lower, Triangle::Upper] {
            let (stored, reference) = triangular(n, triangle, false);
            let layout = DenseLayout::col_major(n, nrhs);
            let y_true = random_vec(n * nrhs);
            let mut b = vec![0.0; n * nrhs];
            for j in 0..nrhs {
                let (col, _) = spmv_ref(
                    &reference,
                    Operation::NonTranspose,
                    1.0,
                    &y_true[j * n..(j + 1) * n],
                    0.0,
                    &vec![0.0; n],
                    T::EPS,
                );
                b[j * n..(j + 1) * n].copy_from_slice(&col);
            }
            let da = stored.upload::<T>(&s, IndexBase::Zero);
            let db = s.clone_htod(&to_t::<T>(&b)).unwrap();
            let mut dc = s.alloc_zeroed::<T>(n * nrhs).unwrap();
            sparse
                .spsm(
                    Operation::NonTranspose,
                    T::ONE,
                    &da,
                    (triangle, Diagonal::NonUnit),
                    (layout, &db),
                    (layout, &mut dc),
                )
                .unwrap_or_else(|e| panic!("SpSM n={n} nrhs={nrhs} {triangle:?}: {e}"));
            let got = to_f64(&download(&s, &dc));
            let (i, err) = max_rel(&got, &y_true);
            let tol = solve_tol::<T>(n);
            println!(
                "SpSM {} n={n} nrhs={nrhs} {triangle:?}: max relative error {err:.3e} at {i} (got {} want {}), bound {tol:.3e}",
                T::NAME, got[i], y_true[i]
            );
            assert!(
                err <= tol,
                "SpSM {} n={n} {triangle:?}: error {err:e} > {tol:e} at {i}",
                T::NAME
            );
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn spsm_lower_upper_f32() {
    spsm_all::<f32>();
}

#[test]
#[ignore = "needs a GPU"]
fn spsm_lower_upper_f64() {
    spsm_all::<f64>();
}

#[test]
#[ignore = "needs a GPU"]
fn dense_sparse_round_trip_is_exact() {
    let dev = device();
    let s = stream(&dev);
    let sparse = Sparse::new(&s).unwrap();
    for (rows, cols) in [(1usize, 1usize), (7, 5), (1003, 211)] {
        let a = random_csr(rows, cols, 5);
        let want = a.dense();
        for base in [IndexBase::Zero, IndexBase::One] {
            let da = a.upload::<f64>(&s, base);
            // CSR -> row-major dense.
            let dense = sparse
                .to_dense(&da, DenseLayout::row_major(rows, cols))
                .unwrap();
            let got = download(&s, &dense);
            let first = (0..want.len()).find(|&i| got[i] != want[i]);
            println!("to_dense {rows}x{cols} {base:?}: first difference {first:?}");
            if let Some(i) = first {
                panic!(
                    "to_dense {rows}x{cols} {base:?}: entry {i} (row {}, column {}) differs: \
                     got {} want {}",
                    i / cols,
                    i % cols,
                    got[i],
                    want[i]
                );
            }
            // Dense -> CSR again: the same structure and values.
            let back = sparse
                .dense_to_csr((DenseLayout::row_major(rows, cols), &dense), base)
                .unwrap();
            assert_eq!(
                back.nnz(),
                a.values.len(),
                "dense_to_csr {rows}x{cols}: nnz"
            );
            let b = base.offset();
            let offsets = download(&s, back.row_offsets());
            let indices = download(&s, back.col_indices());
            let values = download(&s, back.values());
            let want_offsets: Vec<i32> = a.offsets.iter().map(|v| v + b).collect();
            let want_indices: Vec<i32> = a.indices.iter().map(|v| v + b).collect();
            compare_csr(
                &format!("dense_to_csr {rows}x{cols} {base:?}"),
                (&offsets, &indices, &values),
                (&want_offsets, &want_indices, &a.values),
                b,
            );
        }
        // Column-major dense of a CSC matrix.
        let (co, ri, cv) = a.to_csc();
        let csc = Csc::from_host(&s, rows, cols, &co, &ri, &cv, IndexBase::Zero).unwrap();
        let dense = sparse
            .to_dense(&csc, DenseLayout::col_major(rows, cols))
            .unwrap();
        let got = download(&s, &dense);
        let first = (0..rows * cols).find(|&k| got[(k % cols) * rows + k / cols] != want[k]);
        println!("CSC to_dense {rows}x{cols}: first difference {first:?}");
        if let Some(k) = first {
            let (i, j) = (k / cols, k % cols);
            panic!(
                "CSC to_dense {rows}x{cols}: entry ({i}, {j}) differs: got {} want {}",
                got[j * rows + i],
                want[k]
            );
        }
    }
}

fn bsrmv_all<T: Real>() {
    let dev = device();
    let s = stream(&dev);
    let sparse = Sparse::new(&s).unwrap();
    // Blocks of 1 go through SpMV (cuSPARSE's bsrmv takes only larger ones).
    for (mb, nb, dim) in [
        (1usize, 1usize, 1usize),
        (5, 4, 2),
        (7, 5, 3),
        (251, 130, 4),
    ] {
        // A random block pattern, then the blocks' values.
        let pattern = random_csr(mb, nb, 3);
        let mut r = rng();
        let per = dim * dim;
        let blocks: Vec<f64> = (0..pattern.indices.len() * per)
            .map(|_| value(&mut r))
            .collect();
        for order in [BlockOrder::RowMajor, BlockOrder::ColumnMajor] {
            // The equivalent scalar CSR, for the reference.
            let (rows, cols) = (mb * dim, nb * dim);
            let mut dense = vec![0.0; rows * cols];
            for bi in 0..mb {
                for k in pattern.offsets[bi] as usize..pattern.offsets[bi + 1] as usize {
                    let bj = pattern.indices[k] as usize;
                    for u in 0..dim {
                        for v in 0..dim {
                            let at = match order {
                                BlockOrder::RowMajor => u * dim + v,
                                BlockOrder::ColumnMajor => v * dim + u,
                            };
                            dense[(bi * dim + u) * cols + bj * dim + v] = blocks[k * per + at];
                        }
                    }
                }
            }
            let mut offsets = vec![0i32];
            let (mut idx, mut vals) = (vec![], vec![]);
            for i in 0..rows {
                for j in 0..cols {
                    if dense[i * cols + j] != 0.0 {
                        idx.push(j as i32);
                        vals.push(dense[i * cols + j]);
                    }
                }
                offsets.push(idx.len() as i32);
            }
            let scalar = HostCsr {
                rows,
                cols,
                offsets,
                indices: idx,
                values: vals,
            };
            let a = Bsr::from_host(
                &s,
                (mb, nb, dim),
                order,
                &pattern.offsets,
                &pattern.indices,
                &to_t::<T>(&blocks),
                IndexBase::Zero,
            )
            .unwrap();
            let (x, y0) = (random_vec(cols), random_vec(rows));
            let dx = s.clone_htod(&to_t::<T>(&x)).unwrap();
            let mut dy = s.clone_htod(&to_t::<T>(&y0)).unwrap();
            sparse
                .bsrmv(T::from_f64(-1.0), &a, &dx, T::from_f64(0.5), &mut dy)
                .unwrap_or_else(|e| panic!("bsrmv {mb}x{nb} blocks of {dim} {order:?}: {e}"));
            let got = to_f64(&download(&s, &dy));
            let (want, tol) =
                spmv_ref(&scalar, Operation::NonTranspose, -1.0, &x, 0.5, &y0, T::EPS);
            check(
                &format!("bsrmv {} {mb}x{nb} blocks of {dim} {order:?}", T::NAME),
                &got,
                &want,
                &tol,
            );
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn bsrmv_f32() {
    bsrmv_all::<f32>();
}

#[test]
#[ignore = "needs a GPU"]
fn bsrmv_f64() {
    bsrmv_all::<f64>();
}

#[test]
#[ignore = "needs a GPU"]
fn spmv_complex_matches_the_real_reference_twice() {
    // A complex matrix with real parts a and imaginary parts 2a, times a
    // real x: y = (1 + 2i) A x.
    progress("spmv c64: device, stream, handle");
    let dev = device();
    let s = stream(&dev);
    let sparse = Sparse::new(&s).unwrap();
    progress("spmv c64: random 37x29 matrix");
    let a = random_csr(37, 29, 4);
    let vals: Vec<hip::c64> = a
        .values
        .iter()
        .map(|&v| hip::c64::new(v, 2.0 * v))
        .collect();
    progress(&format!(
        "spmv c64: Csr::from_host, {} entries (c64 is {} bytes, aligned to {})",
        vals.len(),
        size_of::<hip::c64>(),
        align_of::<hip::c64>()
    ));
    let da = Csr::from_host(&s, 37, 29, &a.offsets, &a.indices, &vals, IndexBase::Zero).unwrap();
    let x = random_vec(29);
    let xc: Vec<hip::c64> = x.iter().map(|&v| hip::c64::new(v, 0.0)).collect();
    progress("spmv c64: clone_htod of x (29)");
    let dx = s.clone_htod(&xc).unwrap();
    progress("spmv c64: alloc_zeroed of y (37)");
    let mut dy = s.alloc_zeroed::<hip::c64>(37).unwrap();
    progress("spmv c64: Sparse::spmv, alpha 1+0i, beta 0");
    sparse
        .spmv(
            Operation::NonTranspose,
            hip::c64::new(1.0, 0.0),
            &da,
            &dx,
            hip::c64::new(0.0, 0.0),
            &mut dy,
        )
        .unwrap_or_else(|e| panic!("spmv c64 37x29: {e}"));
    progress("spmv c64: download of y");
    let got = download(&s, &dy);
    progress("spmv c64: comparing with the f64 reference");
    let (want, tol) = spmv_ref(
        &a,
        Operation::NonTranspose,
        1.0,
        &x,
        0.0,
        &vec![0.0; 37],
        f64::EPSILON,
    );
    let re: Vec<f64> = got.iter().map(|c| c.re).collect();
    let im: Vec<f64> = got.iter().map(|c| c.im / 2.0).collect();
    check("SpMV c64 real part", &re, &want, &tol);
    check("SpMV c64 imaginary part / 2", &im, &want, &tol);
}

#[test]
#[ignore = "needs a GPU"]
fn mismatched_operands_are_rejected_before_any_call() {
    let dev = device();
    let s = stream(&dev);
    let sparse = Sparse::new(&s).unwrap();
    let a = random_csr(7, 5, 3).upload::<f32>(&s, IndexBase::Zero);
    let x = s.alloc_zeroed::<f32>(4).unwrap();
    let mut y = s.alloc_zeroed::<f32>(7).unwrap();
    let e = sparse
        .spmv(Operation::NonTranspose, 1.0, &a, &x, 0.0, &mut y)
        .unwrap_err();
    println!("{e}");
    assert!(
        matches!(
            e,
            Error::Invalid {
                operation: "Sparse::spmv",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .contains("x length (columns of op(A)): 4, 5 expected"),
        "{e}"
    );
    // A square matrix is required by the solves.
    let x7 = s.alloc_zeroed::<f32>(7).unwrap();
    let e = sparse
        .spsv(
            Operation::NonTranspose,
            1.0,
            &a,
            (Triangle::Lower, Diagonal::NonUnit),
            &x7,
            &mut y,
        )
        .unwrap_err();
    assert!(e.to_string().contains("A must be square"), "{e}");
    // A leading dimension below the rows.
    let b = s.alloc_zeroed::<f32>(10).unwrap();
    let mut c = s.alloc_zeroed::<f32>(14).unwrap();
    let e = sparse
        .spmm(
            Operation::NonTranspose,
            1.0,
            &a,
            (DenseLayout::col_major(5, 2).with_ld(4), &b),
            0.0,
            (DenseLayout::col_major(7, 2), &mut c),
        )
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("leading dimension 4 is less than its rows (5)"),
        "{e}"
    );
    // Nothing was written.
    assert!(download(&s, &y).iter().all(|&v| v == 0.0));
}

/// The round trip's report itself (no GPU): a row in another order is
/// named with its row, both sides' columns and the same-set verdict; a
/// wrong offset with its neighbours.
#[test]
fn compare_csr_names_the_first_difference() {
    let want = (
        &[1, 3, 3, 5][..],
        &[1, 4, 2, 3][..],
        &[1.0, 4.0, 2.0, 3.0][..],
    );
    compare_csr("same", want, want, 1);
    let message = |got: (&[i32], &[i32], &[f64])| {
        let e = std::panic::catch_unwind(|| compare_csr("case", got, want, 1)).unwrap_err();
        let e = e.downcast_ref::<String>().cloned().unwrap();
        println!("{e}");
        e
    };
    let e = message((&[1, 3, 3, 5], &[1, 4, 3, 2], &[1.0, 4.0, 3.0, 2.0]));
    assert!(
        e.contains("first difference at entry 2 (row 2, entry 0 of the row)"),
        "{e}"
    );
    assert!(e.contains("row 2 got columns [3, 2]"), "{e}");
    assert!(e.contains("are the same set; 1 of 3 rows"), "{e}");
    let e = message((&[1, 2, 3, 5], &[1, 4, 2, 3], &[1.0, 4.0, 2.0, 3.0]));
    assert!(
        e.contains("first difference at offset 1: got Some(2) want Some(3)"),
        "{e}"
    );
}
