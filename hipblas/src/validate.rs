//! Shape, leading-dimension, stride and length checks, done before any FFI
//! call. Each returns the number of elements a buffer must hold, or an
//! [`Error::Invalid`] naming the offending value.
//!
//! The public functions name themselves as the operation
//! (`"validate::matrix_span"`, `"GemmShape::spans"`); [`crate::Blas`]'s
//! calls use the crate-private forms, which name the call the user made
//! (`"Blas::gemm"`).

use crate::error::{Error, Result};
use crate::Op;

/// `"{name} = {value}: {requirement}"`, the reason of every check here.
fn bad(op: &'static str, name: &str, value: impl std::fmt::Display, req: &str) -> Error {
    Error::invalid(op, format!("{name} = {value}: {req}"))
}

/// A dimension or count as the 32-bit hipBLAS API takes it.
pub(crate) fn int(op: &'static str, name: &'static str, v: usize) -> Result<i32> {
    i32::try_from(v).map_err(|_| bad(op, name, v, &format!("must be at most {}", i32::MAX)))
}

/// A stride as hipBLAS takes it (`int64_t`).
pub(crate) fn stride(op: &'static str, name: &'static str, v: usize) -> Result<i64> {
    i64::try_from(v).map_err(|_| bad(op, name, v, "must fit in i64"))
}

/// Elements a column-major `rows x cols` matrix with leading dimension `ld`
/// spans, after checking `ld >= max(1, rows)`.
pub fn matrix_span(ld_name: &'static str, rows: usize, cols: usize, ld: usize) -> Result<usize> {
    matrix("validate::matrix_span", ld_name, rows, cols, ld)
}

/// [`matrix_span`] for the operation `op`.
pub(crate) fn matrix(
    op: &'static str,
    ld_name: &'static str,
    rows: usize,
    cols: usize,
    ld: usize,
) -> Result<usize> {
    let min = rows.max(1);
    if ld < min {
        let req = format!("must be >= max(1, rows) = {min} (column-major, {rows} rows)");
        return Err(bad(op, ld_name, ld, &req));
    }
    if rows == 0 || cols == 0 {
        return Ok(0);
    }
    ld.checked_mul(cols - 1)
        .and_then(|v| v.checked_add(rows))
        .ok_or_else(|| {
            bad(
                op,
                ld_name,
                ld,
                &format!("a {rows} x {cols} matrix span overflows usize"),
            )
        })
}

/// Elements a vector of `n` entries with increment `inc` spans, after
/// checking `inc >= 1`.
pub fn vector_span(inc_name: &'static str, n: usize, inc: usize) -> Result<usize> {
    vector("validate::vector_span", inc_name, n, inc)
}

/// [`vector_span`] for the operation `op`.
pub(crate) fn vector(
    op: &'static str,
    inc_name: &'static str,
    n: usize,
    inc: usize,
) -> Result<usize> {
    if inc == 0 {
        return Err(bad(op, inc_name, 0, "must be >= 1"));
    }
    if n == 0 {
        return Ok(0);
    }
    (n - 1)
        .checked_mul(inc)
        .and_then(|v| v.checked_add(1))
        .ok_or_else(|| {
            bad(
                op,
                inc_name,
                inc,
                &format!("the span of {n} elements overflows usize"),
            )
        })
}

/// Checks a buffer's length against what a call needs.
pub fn buffer(name: &'static str, len: usize, required: usize) -> Result<()> {
    length("validate::buffer", name, len, required)
}

/// [`buffer`] for the operation `op`.
pub(crate) fn length(op: &'static str, name: &str, len: usize, required: usize) -> Result<()> {
    if len < required {
        return Err(Error::invalid(
            op,
            format!("buffer {name} holds {len} elements but the call needs {required}"),
        ));
    }
    Ok(())
}

/// The shape of `op(A) (m x k) * op(B) (k x n) -> C (m x n)`, column-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmShape {
    /// Operation on A.
    pub transa: Op,
    /// Operation on B.
    pub transb: Op,
    /// Rows of op(A) and C.
    pub m: usize,
    /// Columns of op(B) and C.
    pub n: usize,
    /// Columns of op(A), rows of op(B).
    pub k: usize,
    /// Leading dimension of A as stored.
    pub lda: usize,
    /// Leading dimension of B as stored.
    pub ldb: usize,
    /// Leading dimension of C.
    pub ldc: usize,
}

/// Elements each of A, B, C spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemmSpans {
    /// Elements of A read.
    pub a: usize,
    /// Elements of B read.
    pub b: usize,
    /// Elements of C read and written.
    pub c: usize,
}

impl GemmShape {
    /// Column-major GEMM with the tightest leading dimensions.
    pub fn new(transa: Op, transb: Op, m: usize, n: usize, k: usize) -> GemmShape {
        let (ar, _) = stored(transa, m, k);
        let (br, _) = stored(transb, k, n);
        GemmShape {
            transa,
            transb,
            m,
            n,
            k,
            lda: ar.max(1),
            ldb: br.max(1),
            ldc: m.max(1),
        }
    }

    /// The shape checked: every dimension fits the 32-bit API, every
    /// leading dimension covers its stored rows. Returns each matrix's span.
    pub fn spans(&self) -> Result<GemmSpans> {
        self.spans_for("GemmShape::spans")
    }

    /// [`GemmShape::spans`] for the operation `op`.
    pub(crate) fn spans_for(&self, op: &'static str) -> Result<GemmSpans> {
        int(op, "m", self.m)?;
        int(op, "n", self.n)?;
        int(op, "k", self.k)?;
        int(op, "lda", self.lda)?;
        int(op, "ldb", self.ldb)?;
        int(op, "ldc", self.ldc)?;
        let (ar, ac) = stored(self.transa, self.m, self.k);
        let (br, bc) = stored(self.transb, self.k, self.n);
        Ok(GemmSpans {
            a: matrix(op, "lda", ar, ac, self.lda)?,
            b: matrix(op, "ldb", br, bc, self.ldb)?,
            c: matrix(op, "ldc", self.m, self.n, self.ldc)?,
        })
    }

    /// Floating-point operations of one product (`2 m n k`).
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64
    }
}

/// Rows and columns of a matrix as stored, for `op(X)` of `rows x cols`.
pub(crate) fn stored(op: Op, rows: usize, cols: usize) -> (usize, usize) {
    match op {
        Op::N => (rows, cols),
        Op::T | Op::C => (cols, rows),
    }
}

/// Strides and batch count of a strided-batched GEMM, checked against the
/// spans of one product: returns the total span of A, B and C.
pub fn strided_spans(
    one: GemmSpans,
    stride_a: usize,
    stride_b: usize,
    stride_c: usize,
    batch: usize,
) -> Result<GemmSpans> {
    strided(
        "validate::strided_spans",
        one,
        stride_a,
        stride_b,
        stride_c,
        batch,
    )
}

/// [`strided_spans`] for the operation `op`.
pub(crate) fn strided(
    op: &'static str,
    one: GemmSpans,
    stride_a: usize,
    stride_b: usize,
    stride_c: usize,
    batch: usize,
) -> Result<GemmSpans> {
    int(op, "batch_count", batch)?;
    stride(op, "stride_a", stride_a)?;
    stride(op, "stride_b", stride_b)?;
    stride(op, "stride_c", stride_c)?;
    if batch > 1 && stride_c < one.c {
        // Products would write over each other's C.
        let req = format!(
            "must be >= {} (one C) so that the batch's outputs do not overlap",
            one.c
        );
        return Err(bad(op, "stride_c", stride_c, &req));
    }
    let total = |name, s: usize, span: usize| -> Result<usize> {
        if batch == 0 || span == 0 {
            return Ok(0);
        }
        s.checked_mul(batch - 1)
            .and_then(|v| v.checked_add(span))
            .ok_or_else(|| {
                bad(
                    op,
                    name,
                    s,
                    &format!("the span of {batch} products overflows usize"),
                )
            })
    };
    Ok(GemmSpans {
        a: total("stride_a", stride_a, one.a)?,
        b: total("stride_b", stride_b, one.b)?,
        c: total("stride_c", stride_c, one.c)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reason of an [`Error::Invalid`] from `op` that names `name`
    /// first (`"{name} = ..."`), or `None`.
    fn names<'e>(e: &'e Error, op: &str, name: &str) -> Option<&'e str> {
        match e {
            Error::Invalid { operation, reason }
                if *operation == op && reason.starts_with(&format!("{name} = ")) =>
            {
                Some(reason)
            }
            _ => None,
        }
    }

    #[test]
    fn tight_shapes() {
        let s = GemmShape::new(Op::N, Op::T, 3, 4, 5);
        assert_eq!((s.lda, s.ldb, s.ldc), (3, 4, 3));
        let sp = s.spans().unwrap();
        assert_eq!(
            sp,
            GemmSpans {
                a: 15,
                b: 20,
                c: 12
            }
        );
    }

    #[test]
    fn errors_name_the_value() {
        let mut s = GemmShape::new(Op::N, Op::N, 8, 2, 2);
        s.lda = 7;
        let e = s.spans().unwrap_err().to_string();
        assert!(
            e.starts_with("invalid argument to GemmShape::spans: lda = 7")
                && e.contains(">= max(1, rows) = 8"),
            "{e}"
        );
        let e = vector_span("incx", 4, 0).unwrap_err().to_string();
        assert!(e.contains("incx = 0"), "{e}");
        let e = buffer("c", 3, 12).unwrap_err().to_string();
        assert!(e.contains("c holds 3") && e.contains("12"), "{e}");
        assert!(
            e.starts_with("invalid argument to validate::buffer: "),
            "{e}"
        );
        let e = GemmShape::new(Op::N, Op::N, 1 << 31, 1, 1)
            .spans()
            .unwrap_err()
            .to_string();
        assert!(e.contains(": m = 2147483648: must be at most"), "{e}");
        let one = GemmShape::new(Op::N, Op::N, 4, 4, 4).spans().unwrap();
        let e = strided_spans(one, 16, 16, 8, 3).unwrap_err().to_string();
        assert!(e.contains("stride_c = 8"), "{e}");
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![Just(Op::N), Just(Op::T), Just(Op::C)]
    }

    /// A dimension: 0 and 1 often, small otherwise.
    fn dim() -> impl Strategy<Value = usize> {
        prop_oneof![Just(0usize), Just(1usize), 0usize..40]
    }

    /// Extra leading-dimension room: none often.
    fn pad() -> impl Strategy<Value = usize> {
        prop_oneof![Just(0usize), 0usize..5]
    }

    /// The span is exactly the largest element index touched, plus one.
    fn brute_span(rows: usize, cols: usize, ld: usize) -> usize {
        let mut max = 0;
        for j in 0..cols {
            for i in 0..rows {
                max = max.max(i + j * ld + 1);
            }
        }
        max
    }

    proptest! {
        #[test]
        fn gemm_shapes_never_panic_and_agree(
            ta in op(), tb in op(),
            m in 0usize..40, n in 0usize..40, k in 0usize..40,
            pa in 0usize..4, pb in 0usize..4, pc in 0usize..4,
            shrink in proptest::bool::ANY,
        ) {
            let mut s = GemmShape::new(ta, tb, m, n, k);
            s.lda += pa; s.ldb += pb; s.ldc += pc;
            if shrink { s.lda = s.lda.saturating_sub(pa + 1); }
            let (ar, ac) = stored(ta, m, k);
            let (br, bc) = stored(tb, k, n);
            match s.spans() {
                Ok(sp) => {
                    prop_assert!(s.lda >= ar.max(1) && s.ldb >= br.max(1) && s.ldc >= m.max(1));
                    prop_assert_eq!(sp.a, brute_span(ar, ac, s.lda));
                    prop_assert_eq!(sp.b, brute_span(br, bc, s.ldb));
                    prop_assert_eq!(sp.c, brute_span(m, n, s.ldc));
                }
                Err(e) if names(&e, "GemmShape::spans", "lda").is_some() => {
                    prop_assert!(s.lda < ar.max(1));
                }
                Err(e) => prop_assert!(false, "unexpected {e}"),
            }
        }

        #[test]
        fn valid_shapes_are_accepted_with_exact_spans(
            ta in op(), tb in op(),
            m in dim(), n in dim(), k in dim(),
            pa in pad(), pb in pad(), pc in pad(),
        ) {
            // Leading dimensions exactly at the minimum, or above it.
            let mut s = GemmShape::new(ta, tb, m, n, k);
            s.lda += pa; s.ldb += pb; s.ldc += pc;
            let (ar, ac) = stored(ta, m, k);
            let (br, bc) = stored(tb, k, n);
            let sp = s.spans().map_err(|e| TestCaseError::fail(format!("{s:?}: {e}")))?;
            prop_assert_eq!(sp.a, brute_span(ar, ac, s.lda));
            prop_assert_eq!(sp.b, brute_span(br, bc, s.ldb));
            prop_assert_eq!(sp.c, brute_span(m, n, s.ldc));
            // A buffer of exactly the span is enough; one element less is not.
            for (name, span) in [("a", sp.a), ("b", sp.b), ("c", sp.c)] {
                prop_assert!(buffer(name, span, span).is_ok());
                prop_assert!(buffer(name, span + 1, span).is_ok());
                if span > 0 {
                    match buffer(name, span - 1, span) {
                        Err(Error::Invalid { operation, reason }) => {
                            prop_assert_eq!(operation, "validate::buffer");
                            let want = format!(
                                "buffer {name} holds {} elements but the call needs {span}",
                                span - 1
                            );
                            prop_assert_eq!(reason, want);
                        }
                        other => prop_assert!(false, "{name} one short: {other:?}"),
                    }
                }
            }
        }

        #[test]
        fn each_leading_dimension_one_too_small_is_rejected_by_name(
            ta in op(), tb in op(),
            m in dim(), n in dim(), k in dim(),
            which in 0usize..3, by_one in proptest::bool::ANY, cut in any::<usize>(),
        ) {
            let mut s = GemmShape::new(ta, tb, m, n, k);
            let (ar, _) = stored(ta, m, k);
            let (br, _) = stored(tb, k, n);
            let (name, min, ld) = match which {
                0 => ("lda", ar.max(1), &mut s.lda),
                1 => ("ldb", br.max(1), &mut s.ldb),
                _ => ("ldc", m.max(1), &mut s.ldc),
            };
            // One below the minimum, or anywhere below it (0 included).
            *ld = if by_one { min - 1 } else { cut % min };
            let bad = *ld;
            match s.spans() {
                Err(e) if names(&e, "GemmShape::spans", name).is_some() => {
                    let reason = names(&e, "GemmShape::spans", name).unwrap();
                    prop_assert!(reason.starts_with(&format!("{name} = {bad}: ")), "{}", reason);
                    let want = format!(">= max(1, rows) = {min}");
                    prop_assert!(reason.contains(&want), "{} lacks {}", reason, want);
                }
                other => prop_assert!(false, "{s:?}: expected {name} rejected, got {other:?}"),
            }
        }

        #[test]
        fn dimensions_past_the_32_bit_api_are_rejected_by_name(
            which in 0usize..6, over in 0usize..=(usize::MAX - i32::MAX as usize - 1),
            small in 1usize..8,
        ) {
            let big = i32::MAX as usize + 1 + over;
            let mut s = GemmShape::new(Op::N, Op::N, small, small, small);
            let name = match which {
                0 => { s.m = big; "m" }
                1 => { s.n = big; "n" }
                2 => { s.k = big; "k" }
                3 => { s.lda = big; "lda" }
                4 => { s.ldb = big; "ldb" }
                _ => { s.ldc = big; "ldc" }
            };
            match s.spans() {
                Err(e) if names(&e, "GemmShape::spans", name).is_some() => {
                    let reason = names(&e, "GemmShape::spans", name).unwrap();
                    prop_assert!(reason.starts_with(&format!("{name} = {big}: ")), "{}", reason);
                }
                other => prop_assert!(false, "{name} = {big}: {other:?}"),
            }
            // The largest value the API takes is accepted.
            let mut edge = GemmShape::new(Op::N, Op::N, small, small, small);
            match which {
                3 => edge.lda = i32::MAX as usize,
                4 => edge.ldb = i32::MAX as usize,
                5 => edge.ldc = i32::MAX as usize,
                _ => {}
            }
            prop_assert!(edge.spans().is_ok(), "{:?}", edge);
        }

        #[test]
        fn spans_that_overflow_usize_are_errors_not_panics(
            rows in 1usize..1000, cols in 2usize..usize::MAX, ld in any::<usize>(),
            n in 2usize..usize::MAX, inc in 2usize..usize::MAX,
        ) {
            let ld = ld.max(rows);
            let exact = ld.checked_mul(cols - 1).and_then(|v| v.checked_add(rows));
            match (matrix_span("lda", rows, cols, ld), exact) {
                (Ok(sp), Some(want)) => prop_assert_eq!(sp, want),
                (Err(e), None) if names(&e, "validate::matrix_span", "lda").is_some() => {
                    let reason = names(&e, "validate::matrix_span", "lda").unwrap();
                    prop_assert!(reason.starts_with(&format!("lda = {ld}: ")), "{}", reason);
                    prop_assert!(reason.contains("overflows"), "{}", reason);
                }
                (got, want) => prop_assert!(false, "{rows}x{cols} ld {ld}: {got:?} vs {want:?}"),
            }
            let exact = (n - 1).checked_mul(inc).and_then(|v| v.checked_add(1));
            match (vector_span("incx", n, inc), exact) {
                (Ok(sp), Some(want)) => prop_assert_eq!(sp, want),
                (Err(e), None) if names(&e, "validate::vector_span", "incx").is_some() => {}
                (got, want) => prop_assert!(false, "n {n} inc {inc}: {got:?} vs {want:?}"),
            }
        }

        #[test]
        fn zero_dimensions_span_nothing_of_what_they_empty(
            ta in op(), tb in op(), m in dim(), n in dim(), k in dim(), which in 0usize..3,
        ) {
            let (m, n, k) = match which { 0 => (0, n, k), 1 => (m, 0, k), _ => (m, n, 0) };
            let s = GemmShape::new(ta, tb, m, n, k);
            let sp = s.spans().map_err(|e| TestCaseError::fail(format!("{s:?}: {e}")))?;
            // C is empty when m or n is; A when m or k is; B when k or n is.
            prop_assert_eq!(sp.c == 0, m == 0 || n == 0);
            prop_assert_eq!(sp.a == 0, m == 0 || k == 0);
            prop_assert_eq!(sp.b == 0, k == 0 || n == 0);
            prop_assert!(s.lda >= 1 && s.ldb >= 1 && s.ldc >= 1);
        }

        #[test]
        fn strided_spans_overflow_and_overlap_are_rejected(
            m in 1usize..20, n in 1usize..20, k in 1usize..20, batch in 6usize..1000,
            short in 1usize..=400, huge in (usize::MAX / 4)..usize::MAX,
        ) {
            let one = GemmShape::new(Op::N, Op::N, m, n, k).spans().unwrap();
            // stride_c exactly one C is enough; one less makes outputs overlap.
            prop_assert!(strided_spans(one, one.a, one.b, one.c, batch).is_ok());
            let sc = one.c.saturating_sub(short.min(one.c));
            match strided_spans(one, one.a, one.b, sc, batch) {
                Err(e) if names(&e, "validate::strided_spans", "stride_c").is_some() => {
                    let reason = names(&e, "validate::strided_spans", "stride_c").unwrap();
                    prop_assert!(reason.starts_with(&format!("stride_c = {sc}: ")), "{}", reason);
                }
                other => prop_assert!(false, "stride_c {sc} < {}: {other:?}", one.c),
            }
            // A stride that fits i64 but whose batch span overflows usize:
            // five strides of at least usize::MAX / 4 exceed it.
            let huge = huge.min(i64::MAX as usize);
            match strided_spans(one, huge, one.b, one.c, batch) {
                Err(e) if names(&e, "validate::strided_spans", "stride_a").is_some() => {}
                other => prop_assert!(false, "stride_a {huge} x {batch}: {other:?}"),
            }
        }

        #[test]
        fn vectors(n in 0usize..1000, inc in 0usize..10) {
            match vector_span("incx", n, inc) {
                Ok(s) => {
                    prop_assert!(inc >= 1);
                    prop_assert_eq!(s, if n == 0 { 0 } else { (n - 1) * inc + 1 });
                }
                Err(_) => prop_assert_eq!(inc, 0),
            }
        }

        #[test]
        fn strided_batches_cover_every_product(
            m in 1usize..20, n in 1usize..20, k in 1usize..20,
            extra in 0usize..30, batch in 0usize..6,
        ) {
            let one = GemmShape::new(Op::N, Op::N, m, n, k).spans().unwrap();
            let sc = m * n + extra;
            match strided_spans(one, m * k, k * n, sc, batch) {
                Ok(t) => {
                    if batch > 0 {
                        prop_assert_eq!(t.c, sc * (batch - 1) + one.c);
                        prop_assert_eq!(t.a, m * k * (batch - 1) + one.a);
                    } else {
                        prop_assert_eq!(t.c, 0);
                    }
                }
                Err(e) => prop_assert!(false, "{e}"),
            }
        }
    }
}
