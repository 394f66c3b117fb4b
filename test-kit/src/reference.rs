//! CPU references computed in f64.

/// A complex number as (re, im); real values have `im == 0`.
pub type Complex64 = (f64, f64);

/// `a * b`.
pub fn c_mul(a: Complex64, b: Complex64) -> Complex64 {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// `a + b`.
pub fn c_add(a: Complex64, b: Complex64) -> Complex64 {
    (a.0 + b.0, a.1 + b.1)
}

/// How a GEMM operand is used, as BLAS's `transa`/`transb`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trans {
    /// As stored.
    N,
    /// Transposed.
    T,
    /// Conjugate-transposed.
    C,
}

/// op(X)[i][j] of a column-major matrix with leading dimension `ld`.
fn op_at(x: &[Complex64], ld: usize, op: Trans, i: usize, j: usize) -> Complex64 {
    match op {
        Trans::N => x[i + j * ld],
        Trans::T => x[j + i * ld],
        Trans::C => {
            let (re, im) = x[j + i * ld];
            (re, -im)
        }
    }
}

/// `C = alpha op(A) op(B) + beta C`, column-major, accumulated in f64:
/// `op(A)` is `m x k`, `op(B)` is `k x n`, C is `m x n` with leading
/// dimension `ldc`. Returns the new C; elements of `c` outside the `m x n`
/// matrix (leading-dimension padding) are copied unchanged.
#[allow(clippy::too_many_arguments)]
pub fn gemm_ref(
    (ta, tb): (Trans, Trans),
    (m, n, k): (usize, usize, usize),
    alpha: Complex64,
    (a, lda): (&[Complex64], usize),
    (b, ldb): (&[Complex64], usize),
    beta: Complex64,
    (c, ldc): (&[Complex64], usize),
) -> Vec<Complex64> {
    let mut out = c.to_vec();
    for j in 0..n {
        for i in 0..m {
            let mut acc = (0.0, 0.0);
            for l in 0..k {
                acc = c_add(acc, c_mul(op_at(a, lda, ta, i, l), op_at(b, ldb, tb, l, j)));
            }
            out[i + j * ldc] = c_add(c_mul(alpha, acc), c_mul(beta, c[i + j * ldc]));
        }
    }
    out
}

/// [`gemm_ref`] for real matrices (`Trans::C` is `Trans::T` there).
#[allow(clippy::too_many_arguments)]
pub fn gemm_ref_real(
    trans: (Trans, Trans),
    dims: (usize, usize, usize),
    alpha: f64,
    (a, lda): (&[f64], usize),
    (b, ldb): (&[f64], usize),
    beta: f64,
    (c, ldc): (&[f64], usize),
) -> Vec<f64> {
    let cx = |v: &[f64]| v.iter().map(|x| (*x, 0.0)).collect::<Vec<_>>();
    gemm_ref(
        trans,
        dims,
        (alpha, 0.0),
        (&cx(a), lda),
        (&cx(b), ldb),
        (beta, 0.0),
        (&cx(c), ldc),
    )
    .into_iter()
    .map(|(re, _)| re)
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemm_reference_matches_a_hand_computed_product() {
        // A = [1 3; 2 4] (column-major), B = [5 7; 6 8], C = 1s with ld 3.
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [5.0, 6.0, 7.0, 8.0];
        let c = [1.0, 1.0, -9.0, 1.0, 1.0, -9.0];
        let nn = gemm_ref_real(
            (Trans::N, Trans::N),
            (2, 2, 2),
            2.0,
            (&a, 2),
            (&b, 2),
            1.0,
            (&c, 3),
        );
        // A B = [23 31; 34 46]; 2 A B + C.
        assert_eq!(nn, [47.0, 69.0, -9.0, 63.0, 93.0, -9.0]);
        // Aᵀ Bᵀ = (B A)ᵀ: B A = [19 43; 22 50] -> transposed [19 22; 43 50].
        let tt = gemm_ref_real(
            (Trans::T, Trans::T),
            (2, 2, 2),
            1.0,
            (&a, 2),
            (&b, 2),
            0.0,
            (&c, 3),
        );
        assert_eq!(tt, [19.0, 43.0, -9.0, 22.0, 50.0, -9.0]);
    }

    #[test]
    fn conjugate_transpose_negates_the_imaginary_part() {
        let a = [(0.0, 1.0)];
        let b = [(0.0, 1.0)];
        let c = [(0.0, 0.0)];
        let nn = gemm_ref(
            (Trans::N, Trans::N),
            (1, 1, 1),
            (1.0, 0.0),
            (&a, 1),
            (&b, 1),
            (0.0, 0.0),
            (&c, 1),
        );
        assert_eq!(nn, [(-1.0, 0.0)]);
        let cn = gemm_ref(
            (Trans::C, Trans::N),
            (1, 1, 1),
            (1.0, 0.0),
            (&a, 1),
            (&b, 1),
            (0.0, 0.0),
            (&c, 1),
        );
        assert_eq!(cn, [(1.0, 0.0)]);
    }
}
