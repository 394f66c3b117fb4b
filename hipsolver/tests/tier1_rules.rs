//! Tier 1: every rule the solver's routines check before calling hipSOLVER
//! (shapes, leading dimensions, buffer lengths, devices, batch sizes, the
//! platform limits applied everywhere), and how a routine's `info` becomes
//! an error, without a GPU. The rules are the functions every `Solver`
//! method calls first; the GPU tests check that the methods do.

use hipsolver::__validate::*;
use hipsolver::{Error, Layout};

const OP: &str = "Solver::test";

fn invalid(r: hipsolver::Result<impl std::fmt::Debug>, needle: &str) {
    match r {
        Err(Error::Invalid { operation, reason }) => {
            assert_eq!(operation, OP);
            assert!(reason.contains(needle), "{reason:?} lacks {needle:?}");
        }
        other => panic!("expected Invalid containing {needle:?}, got {other:?}"),
    }
}

#[test]
fn layouts_default_to_packed_and_count_their_extent() {
    assert_eq!(
        Layout::new(7, 3),
        Layout {
            rows: 7,
            cols: 3,
            ld: 7
        }
    );
    assert_eq!(Layout::new(0, 3).ld, 1);
    assert_eq!(Layout::square(33).with_ld(40).ld, 40);
    assert_eq!(Layout::new(7, 3).with_ld(10).required_len(), Some(27));
    assert_eq!(Layout::new(0, 3).required_len(), Some(0));
    assert_eq!(Layout::new(3, 0).required_len(), Some(0));
    assert_eq!(Layout::new(5, 4).stride(), Some(20));
    assert_eq!(Layout::new(2, usize::MAX).required_len(), None);
}

#[test]
fn the_leading_dimension_must_reach_every_row() {
    invalid(
        matrix(OP, "a", Layout::new(7, 3).with_ld(6), 100, 1),
        "leading dimension 6 is less than max(1, rows) = 7",
    );
    invalid(
        matrix(OP, "a", Layout::new(0, 3).with_ld(0), 100, 1),
        "max(1, rows) = 1",
    );
    assert!(matrix(OP, "a", Layout::new(7, 3).with_ld(7), 21, 1).is_ok());
    assert!(matrix(OP, "a", Layout::new(7, 3).with_ld(9), 25, 1).is_ok());
}

#[test]
fn a_buffer_must_hold_the_whole_matrix_or_batch() {
    invalid(
        matrix(OP, "a", Layout::new(7, 3), 20, 1),
        "a holds 20 elements but a 7 x 3 matrix with leading dimension 7 needs 21",
    );
    invalid(
        matrix(OP, "b", Layout::new(4, 4), 47, 3),
        "b holds 47 elements but 3 matrices of 4 x 4 with leading dimension 4 needs 48",
    );
    assert!(matrix(OP, "a", Layout::new(4, 4), 48, 3).is_ok());
    invalid(
        matrix(
            OP,
            "a",
            Layout::new(usize::MAX / 2, 3).with_ld(usize::MAX / 2),
            usize::MAX,
            1,
        ),
        "does not fit in a C int",
    );
}

#[test]
fn sizes_must_fit_in_a_c_int() {
    invalid(
        matrix(OP, "a", Layout::new(1 << 31, 1), usize::MAX, 1),
        "a.rows = 2147483648 does not fit in a C int",
    );
    invalid(
        matrix(OP, "a", Layout::new(1, 1 << 31), usize::MAX, 1),
        "a.cols",
    );
    invalid(
        matrix(OP, "a", Layout::new(1, 1).with_ld(1 << 31), usize::MAX, 1),
        "a.ld",
    );
    invalid(batch(OP, 1 << 31), "batch = 2147483648");
}

#[test]
fn shapes_are_checked() {
    invalid(
        square(OP, "a", Layout::new(4, 3)),
        "a must be square, not 4 x 3",
    );
    assert!(square(OP, "a", Layout::square(257)).is_ok());
    invalid(
        rhs(OP, 7, Layout::new(6, 2)),
        "b has 6 rows but the system has 7 unknowns",
    );
    invalid(
        vector(OP, "ipiv", 6, 7),
        "ipiv holds 6 elements but 7 are needed",
    );
    invalid(batch(OP, 0), "the batch is empty");
    assert_eq!(batch(OP, 3).unwrap(), 3);
    invalid(
        tall(OP, Layout::new(3, 4)),
        "gesvd needs rows >= cols, not 3 x 4",
    );
    assert!(tall(OP, Layout::new(4, 4)).is_ok());
    invalid(
        jacobi_batched(OP, Layout::new(33, 4)),
        "at most 32 x 32, not 33 x 4",
    );
    assert!(jacobi_batched(OP, Layout::square(32)).is_ok());
}

#[test]
fn buffers_must_be_on_the_solvers_device() {
    invalid(
        device(OP, "b", 1, 0),
        "b is on device 1 but the solver's stream is on device 0",
    );
    assert!(device(OP, "b", 0, 0).is_ok());
}

#[test]
fn info_names_the_zero_pivot_the_minor_or_the_argument() {
    let e = info(OP, "hipsolverDnXgetrf", &[3], InfoMeaning::ZeroPivot).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Singular {
                index: 3,
                batch: None,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "Solver::test: U(3,3) is exactly zero: the matrix is singular"
    );

    let e = info(OP, "hipsolverDnXpotrf", &[0, 0, 4], InfoMeaning::Minor).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Solver::test: matrix 2 of the batch: the leading minor of order 4 is not positive definite"
    );

    let e = info(
        OP,
        "hipsolverDnXgesvd",
        &[2],
        InfoMeaning::NotConverged("superdiagonals"),
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("did not converge (info = 2: superdiagonals)"),
        "{e}"
    );

    let e = info(OP, "hipsolverDnXgetrs", &[-5], InfoMeaning::None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "hipsolverDnXgetrs refused its argument number 5"
    );

    let e = info(OP, "hipsolverDnXgetrs", &[1], InfoMeaning::None).unwrap_err();
    assert!(e.to_string().contains("info = 1"), "{e}");

    assert!(info(OP, "hipsolverDnXgetrf", &[0, 0], InfoMeaning::ZeroPivot).is_ok());
}
