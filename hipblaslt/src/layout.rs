//! A matmul's shape and memory layout, and every rule checked before
//! hipBLASLt is called.
//!
//! The product is `D = act(alpha * op(A) * op(B) + beta * C + bias)` with
//! `op(A)` of `m x k`, `op(B)` of `k x n`, and `C`/`D` (one buffer) of
//! `m x n`. hipBLASLt itself works in column-major order with the bias
//! added to each column (one value per row of `D`). A row-major problem is
//! the same product transposed: `D^T = op(B)^T * op(A)^T`, so it is run as
//! the column-major problem with `A` and `B` (and `m` and `n`) swapped, and
//! its bias then has one value per *column* of `D`, as in PyTorch's
//! `F.linear` (`y = x W^T + b`).

use crate::error::{Error, Result};

/// How a matrix's elements are laid out in memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Column `j` is contiguous; element `(i, j)` is at `i + j * ld`
    /// (BLAS's and hipBLASLt's own order).
    ColMajor,
    /// Row `i` is contiguous; element `(i, j)` is at `i * ld + j` (C's and
    /// PyTorch's order).
    RowMajor,
}

/// The activation applied last by the epilogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// None: `D = alpha * op(A) * op(B) + beta * C (+ bias)`.
    None,
    /// `max(x, 0)`.
    Relu,
    /// GELU in its tanh approximation,
    /// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`, as hipBLASLt and
    /// cuBLASLt compute it (PyTorch's `gelu(approximate="tanh")`).
    Gelu,
}

/// One matmul's shape, layout, scalars and batch.
///
/// Leading dimensions count elements between consecutive columns
/// (column-major) or rows (row-major) of the matrix *as stored*: `A` is
/// stored `m x k`, or `k x m` when `transa`; `B` is stored `k x n`, or
/// `n x k` when `transb`. A leading dimension of 0 means the tightest one.
/// Batch strides count elements between consecutive matrices of a batch; 0
/// means the matrices follow each other without gaps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatmulConfig {
    /// Rows of `op(A)`, `C` and `D`.
    pub m: usize,
    /// Columns of `op(B)`, `C` and `D`.
    pub n: usize,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: usize,
    /// Whether `A` is used transposed.
    pub transa: bool,
    /// Whether `B` is used transposed.
    pub transb: bool,
    /// The memory order of all three matrices.
    pub order: Order,
    /// Leading dimension of `A` (0: tight).
    pub lda: usize,
    /// Leading dimension of `B` (0: tight).
    pub ldb: usize,
    /// Leading dimension of `C`/`D` (0: tight).
    pub ldc: usize,
    /// Scale of the product.
    pub alpha: f32,
    /// Scale of `C` before it is added (0: `C` is only written).
    pub beta: f32,
    /// Number of matmuls (at least 1).
    pub batch: usize,
    /// Elements between the `A`s of a batch (0: tight).
    pub stride_a: usize,
    /// Elements between the `B`s of a batch (0: tight).
    pub stride_b: usize,
    /// Elements between the `C`s of a batch (0: tight).
    pub stride_c: usize,
}

impl MatmulConfig {
    /// `D = op(A) * op(B)` of `m x k` times `k x n` in `order`, with tight
    /// leading dimensions, no transposes, `alpha = 1`, `beta = 0`, one
    /// matrix.
    pub fn new(m: usize, n: usize, k: usize, order: Order) -> MatmulConfig {
        MatmulConfig {
            m,
            n,
            k,
            transa: false,
            transb: false,
            order,
            lda: 0,
            ldb: 0,
            ldc: 0,
            alpha: 1.0,
            beta: 0.0,
            batch: 1,
            stride_a: 0,
            stride_b: 0,
            stride_c: 0,
        }
    }
}

/// One operand as hipBLASLt sees it: column-major, `rows x cols` as
/// stored, leading dimension, batch stride and the elements a buffer must
/// hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Operand {
    pub(crate) rows: u64,
    pub(crate) cols: u64,
    pub(crate) ld: i64,
    pub(crate) stride: i64,
    pub(crate) needed: usize,
}

/// The checked problem in hipBLASLt's terms (column-major; for a row-major
/// problem `a`/`b` are the caller's `B`/`A`, and `m`/`n` are swapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Resolved {
    pub(crate) m: u64,
    pub(crate) n: u64,
    pub(crate) k: u64,
    pub(crate) transa: bool,
    pub(crate) transb: bool,
    /// Whether the caller's A and B are swapped (row-major).
    pub(crate) swapped: bool,
    pub(crate) a: Operand,
    pub(crate) b: Operand,
    pub(crate) c: Operand,
    pub(crate) batch: i32,
    /// The bias length (hipBLASLt's `m`: rows of the column-major `D`).
    pub(crate) bias_len: usize,
}

/// The largest size hipBLASLt takes (its sizes and batch count are
/// `int32_t` in practice, "usually only values that can be expressed as
/// int32_t are supported").
const MAX_DIM: usize = i32::MAX as usize;

/// Checks `cfg` (the operation named `op` in errors) and resolves it.
pub(crate) fn resolve(op: &'static str, cfg: &MatmulConfig) -> Result<Resolved> {
    let bad = |reason: String| Error::invalid(op, reason);
    for (name, v) in [
        ("m", cfg.m),
        ("n", cfg.n),
        ("k", cfg.k),
        ("batch", cfg.batch),
    ] {
        if v == 0 {
            return Err(bad(format!(
                "{name} is 0: every size and the batch must be at least 1"
            )));
        }
        if v > MAX_DIM {
            return Err(bad(format!(
                "{name} = {v} exceeds {MAX_DIM} (hipBLASLt's sizes are 32-bit)"
            )));
        }
    }
    if !cfg.alpha.is_finite() || !cfg.beta.is_finite() {
        return Err(bad(format!(
            "alpha = {} and beta = {} must be finite",
            cfg.alpha, cfg.beta
        )));
    }
    // Each matrix as stored, in the caller's order: (rows, cols).
    let a_stored = if cfg.transa {
        (cfg.k, cfg.m)
    } else {
        (cfg.m, cfg.k)
    };
    let b_stored = if cfg.transb {
        (cfg.n, cfg.k)
    } else {
        (cfg.k, cfg.n)
    };
    let c_stored = (cfg.m, cfg.n);
    let operand = |name: &str, (rows, cols): (usize, usize), ld: usize, stride: usize| {
        // The contiguous extent (column length col-major, row length
        // row-major) bounds the leading dimension from below.
        let (contiguous, lines) = match cfg.order {
            Order::ColMajor => (rows, cols),
            Order::RowMajor => (cols, rows),
        };
        let ld = if ld == 0 { contiguous } else { ld };
        if ld < contiguous {
            let what = match cfg.order {
                Order::ColMajor => "rows",
                Order::RowMajor => "columns",
            };
            return Err(bad(format!(
                "ld{name} = {ld} is less than the {contiguous} {what} of {} ({rows} x {cols} as stored, {:?})",
                name.to_uppercase(),
                cfg.order
            )));
        }
        let span = ld
            .checked_mul(lines - 1)
            .and_then(|s| s.checked_add(contiguous))
            .filter(|&s| s <= i64::MAX as usize)
            .ok_or_else(|| bad(format!("{} is too large to address", name.to_uppercase())))?;
        let stride = if stride == 0 { span } else { stride };
        if cfg.batch > 1 && stride < span {
            return Err(bad(format!(
                "stride_{name} = {stride} is less than the {span} elements one {} spans: the matrices of the batch would overlap",
                name.to_uppercase()
            )));
        }
        let needed = stride
            .checked_mul(cfg.batch - 1)
            .and_then(|s| s.checked_add(span))
            .filter(|&s| s <= i64::MAX as usize)
            .ok_or_else(|| {
                bad(format!(
                    "the batch of {} is too large to address",
                    name.to_uppercase()
                ))
            })?;
        // As hipBLASLt sees it (column-major): a row-major matrix is its
        // transpose.
        let (rows, cols) = match cfg.order {
            Order::ColMajor => (rows, cols),
            Order::RowMajor => (cols, rows),
        };
        Ok(Operand {
            rows: rows as u64,
            cols: cols as u64,
            ld: ld as i64,
            stride: stride as i64,
            needed,
        })
    };
    let a = operand("a", a_stored, cfg.lda, cfg.stride_a)?;
    let b = operand("b", b_stored, cfg.ldb, cfg.stride_b)?;
    let c = operand("c", c_stored, cfg.ldc, cfg.stride_c)?;
    let batch = cfg.batch as i32;
    Ok(match cfg.order {
        Order::ColMajor => Resolved {
            m: cfg.m as u64,
            n: cfg.n as u64,
            k: cfg.k as u64,
            transa: cfg.transa,
            transb: cfg.transb,
            swapped: false,
            a,
            b,
            c,
            batch,
            bias_len: cfg.m,
        },
        // D^T (n x m, col-major) = op(B)^T (n x k) * op(A)^T (k x m): the
        // caller's B is hipBLASLt's A, with the caller's `transb`.
        Order::RowMajor => Resolved {
            m: cfg.n as u64,
            n: cfg.m as u64,
            k: cfg.k as u64,
            transa: cfg.transb,
            transb: cfg.transa,
            swapped: true,
            a: b,
            b: a,
            c,
            batch,
            bias_len: cfg.n,
        },
    })
}

/// The rule for a bias: one value per row of `D` (column-major) or per
/// column (row-major); `len` is the buffer's length.
pub(crate) fn check_bias(
    op: &'static str,
    cfg: &MatmulConfig,
    r: &Resolved,
    len: usize,
) -> Result<()> {
    if len < r.bias_len {
        let per = match cfg.order {
            Order::ColMajor => "row (m)",
            Order::RowMajor => "column (n)",
        };
        return Err(Error::invalid(
            op,
            format!(
                "the bias has {len} elements; it needs one per output {per}: {}",
                r.bias_len
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reason(cfg: &MatmulConfig) -> String {
        match resolve("test", cfg) {
            Err(Error::Invalid { reason, .. }) => reason,
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn zero_and_huge_sizes_are_refused_by_name() {
        for (field, set) in [
            (
                "m",
                (|c: &mut MatmulConfig| c.m = 0) as fn(&mut MatmulConfig),
            ),
            ("n", |c| c.n = 0),
            ("k", |c| c.k = 0),
            ("batch", |c| c.batch = 0),
        ] {
            let mut cfg = MatmulConfig::new(4, 5, 6, Order::ColMajor);
            set(&mut cfg);
            assert!(
                reason(&cfg).starts_with(&format!("{field} is 0")),
                "{field}"
            );
        }
        let cfg = MatmulConfig::new(1 << 31, 1, 1, Order::RowMajor);
        assert!(reason(&cfg).contains("32-bit"), "{}", reason(&cfg));
        let mut cfg = MatmulConfig::new(2, 2, 2, Order::ColMajor);
        cfg.alpha = f32::NAN;
        assert!(reason(&cfg).contains("finite"));
    }

    #[test]
    fn leading_dimensions_must_cover_the_stored_matrix() {
        // Column-major A (m x k = 7 x 3): ld >= 7.
        let mut cfg = MatmulConfig::new(7, 5, 3, Order::ColMajor);
        cfg.lda = 6;
        let r = reason(&cfg);
        assert!(r.contains("lda = 6") && r.contains("7 rows"), "{r}");
        cfg.lda = 7;
        assert!(resolve("t", &cfg).is_ok());
        // Transposed, A is stored k x m = 3 x 7: ld >= 3.
        cfg.transa = true;
        cfg.lda = 3;
        assert!(resolve("t", &cfg).is_ok());
        cfg.lda = 2;
        assert!(reason(&cfg).contains("lda = 2"));
        // Row-major B (k x n = 3 x 5): ld >= 5 (its columns).
        let mut cfg = MatmulConfig::new(7, 5, 3, Order::RowMajor);
        cfg.ldb = 4;
        let r = reason(&cfg);
        assert!(r.contains("ldb = 4") && r.contains("5 columns"), "{r}");
        // Row-major C (7 x 5): ldc >= 5.
        let mut cfg = MatmulConfig::new(7, 5, 3, Order::RowMajor);
        cfg.ldc = 4;
        assert!(reason(&cfg).contains("ldc = 4"));
    }

    #[test]
    fn batch_strides_must_not_overlap_and_sizes_follow() {
        let mut cfg = MatmulConfig::new(4, 3, 2, Order::ColMajor);
        cfg.batch = 5;
        cfg.ldc = 6;
        let r = resolve("t", &cfg).unwrap();
        // C spans 6 * 2 + 4 = 16 elements; tight stride 16; 4 * 16 + 16.
        assert_eq!(r.c.needed, 80);
        assert_eq!(r.c.stride, 16);
        assert_eq!(r.a.needed, 5 * 8);
        cfg.stride_c = 15;
        let msg = reason(&cfg);
        assert!(
            msg.contains("stride_c = 15") && msg.contains("overlap"),
            "{msg}"
        );
        // A single matrix may have any stride.
        cfg.batch = 1;
        assert!(resolve("t", &cfg).is_ok());
    }

    #[test]
    fn row_major_is_the_transposed_column_major_problem() {
        let mut cfg = MatmulConfig::new(7, 5, 3, Order::RowMajor);
        cfg.transa = true;
        let r = resolve("t", &cfg).unwrap();
        assert!(r.swapped);
        assert_eq!((r.m, r.n, r.k), (5, 7, 3));
        // hipBLASLt's A is the caller's B (row-major 3 x 5 = col-major 5 x 3).
        assert_eq!((r.a.rows, r.a.cols, r.a.ld), (5, 3, 5));
        assert!(!r.transa && r.transb);
        // The caller's A (transposed, stored 3 x 7 row-major) = 7 x 3 col-major.
        assert_eq!((r.b.rows, r.b.cols, r.b.ld), (7, 3, 7));
        assert_eq!((r.c.rows, r.c.cols, r.c.ld), (5, 7, 5));
        assert_eq!(r.bias_len, 5);
        let col = resolve("t", &MatmulConfig::new(7, 5, 3, Order::ColMajor)).unwrap();
        assert_eq!(col.bias_len, 7);
    }

    #[test]
    fn a_short_bias_is_refused_per_order() {
        let cfg = MatmulConfig::new(7, 5, 3, Order::RowMajor);
        let r = resolve("t", &cfg).unwrap();
        let e = check_bias("t", &cfg, &r, 4).unwrap_err().to_string();
        assert!(
            e.contains("4 elements") && e.contains("column (n): 5"),
            "{e}"
        );
        assert!(check_bias("t", &cfg, &r, 5).is_ok());
        let cfg = MatmulConfig::new(7, 5, 3, Order::ColMajor);
        let r = resolve("t", &cfg).unwrap();
        let e = check_bias("t", &cfg, &r, 5).unwrap_err().to_string();
        assert!(e.contains("row (m): 7"), "{e}");
    }
}
