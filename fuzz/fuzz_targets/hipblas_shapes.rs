//! hipBLAS's shape checks (hipblas/src/validate.rs) on arbitrary shapes:
//! each accepts exactly what the 32-bit API and column-major storage allow,
//! and the spans it returns are exact (computed here again in 128-bit
//! arithmetic), so a buffer of that length holds every element touched.
#![no_main]

use hipblas::validate::{buffer, matrix_span, strided_spans, vector_span};
use hipblas::{GemmShape, Op};
use libfuzzer_sys::fuzz_target;

const INT: u128 = i32::MAX as u128;

/// Elements a `rows x cols` column-major matrix with leading dimension
/// `ld` spans: one past its last element.
fn span(rows: u128, cols: u128, ld: u128) -> u128 {
    if rows == 0 || cols == 0 {
        0
    } else {
        (cols - 1) * ld + rows
    }
}

fn fits(v: u128) -> Option<usize> {
    usize::try_from(v).ok()
}

fn op(b: u8) -> Op {
    [Op::N, Op::T, Op::C][usize::from(b % 3)]
}

fuzz_target!(|input: (u8, [usize; 6], [usize; 4], usize, usize)| {
    let (ops, [m, n, k, lda, ldb, ldc], [sa, sb, sc, batch], len, inc) = input;
    let (transa, transb) = (op(ops), op(ops / 3));
    let shape = GemmShape {
        transa,
        transb,
        m,
        n,
        k,
        lda,
        ldb,
        ldc,
    };
    let w = |v: usize| v as u128;
    let stored = |o: Op, r: usize, c: usize| {
        if o == Op::N {
            (w(r), w(c))
        } else {
            (w(c), w(r))
        }
    };
    let (ar, ac) = stored(transa, m, k);
    let (br, bc) = stored(transb, k, n);
    let valid = [m, n, k, lda, ldb, ldc].iter().all(|&v| w(v) <= INT)
        && w(lda) >= ar.max(1)
        && w(ldb) >= br.max(1)
        && w(ldc) >= w(m).max(1);
    match shape.spans() {
        Ok(s) => {
            assert!(valid, "{shape:?} accepted");
            assert_eq!(w(s.a), span(ar, ac, w(lda)));
            assert_eq!(w(s.b), span(br, bc, w(ldb)));
            assert_eq!(w(s.c), span(w(m), w(n), w(ldc)));
            // A buffer of exactly the span passes the length check and
            // holds the last element touched; one element fewer fails.
            for (sp, rows, cols, ld) in [
                (s.a, ar, ac, lda),
                (s.b, br, bc, ldb),
                (s.c, w(m), w(n), ldc),
            ] {
                assert!(buffer("x", sp, sp).is_ok());
                if sp > 0 {
                    assert!((cols - 1) * w(ld) + rows - 1 < w(sp));
                    assert!(buffer("x", sp - 1, sp).is_err());
                }
            }
            // The batch: the strides' spans exactly, or a refusal.
            let total = |st: usize, one: usize| {
                if batch == 0 || one == 0 {
                    Some(0)
                } else {
                    fits(w(st) * (w(batch) - 1) + w(one))
                }
            };
            let expect = (w(batch) <= INT
                && [sa, sb, sc].iter().all(|&v| v as u128 <= i64::MAX as u128)
                && !(batch > 1 && sc < s.c))
                .then(|| (total(sa, s.a), total(sb, s.b), total(sc, s.c)));
            match strided_spans(s, sa, sb, sc, batch) {
                Ok(t) => assert_eq!(expect, Some((Some(t.a), Some(t.b), Some(t.c)))),
                Err(_) => assert!(matches!(
                    expect,
                    None | Some((None, _, _) | (_, None, _) | (_, _, None))
                )),
            }
        }
        Err(_) => assert!(!valid, "{shape:?} refused"),
    }
    // The tightest leading dimensions are always valid within the 32-bit API.
    let tight = GemmShape::new(transa, transb, m, n, k).spans();
    assert_eq!(tight.is_ok(), [m, n, k].iter().all(|&v| w(v) <= INT));
    // The single spans.
    let expect = (w(ldc) >= w(m).max(1)).then(|| fits(span(w(m), w(n), w(ldc))));
    match matrix_span("ld", m, n, ldc) {
        Ok(s) => assert_eq!(expect, Some(Some(s))),
        Err(_) => assert!(matches!(expect, None | Some(None))),
    }
    let expect = (inc >= 1).then(|| {
        fits(if len == 0 {
            0
        } else {
            (w(len) - 1) * w(inc) + 1
        })
    });
    match vector_span("inc", len, inc) {
        Ok(s) => assert_eq!(expect, Some(Some(s))),
        Err(_) => assert!(matches!(expect, None | Some(None))),
    }
    assert_eq!(buffer("x", len, inc).is_ok(), len >= inc);
});
