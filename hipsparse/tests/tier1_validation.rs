//! Tier 1 (pure Rust): every rule a matrix or dense operand is checked
//! against before anything is uploaded or hipSPARSE is called. The
//! `check_host` functions are the checks `from_host` runs first; each
//! rejection must be an `Error::Invalid` naming the operation and the
//! offending value.

use hipsparse::{Bsr, Coo, Csc, Csr, DenseLayout, Error, IndexBase};
use proptest::prelude::*;

const Z: IndexBase = IndexBase::Zero;
const O: IndexBase = IndexBase::One;

/// Asserts `r` is an `Invalid` error of `operation` whose reason contains
/// `needle`.
fn rejected(r: hipsparse::Result<()>, operation: &str, needle: &str) {
    match r {
        Err(Error::Invalid {
            operation: op,
            reason,
        }) => {
            assert_eq!(op, operation, "reason: {reason}");
            assert!(
                reason.contains(needle),
                "reason {reason:?} does not mention {needle:?}"
            );
        }
        other => panic!("expected Invalid({operation}: ..{needle}..), got {other:?}"),
    }
}

// [[1, 0, 2], [0, 0, 0], [0, 3, 0]]: the second row is empty.
const OFFSETS: [i32; 4] = [0, 2, 2, 3];
const COLS: [i32; 3] = [0, 2, 1];

#[test]
fn a_valid_csr_passes_in_both_bases() {
    Csr::<f32>::check_host(3, 3, &OFFSETS, &COLS, 3, Z).unwrap();
    let one: Vec<i32> = OFFSETS.iter().map(|v| v + 1).collect();
    let cols: Vec<i32> = COLS.iter().map(|v| v + 1).collect();
    Csr::<f32>::check_host(3, 3, &one, &cols, 3, O).unwrap();
}

#[test]
fn csr_shape_rules() {
    let op = "Csr::from_host";
    rejected(
        Csr::<f32>::check_host(0, 3, &[0], &[], 0, Z),
        op,
        "rows is 0",
    );
    rejected(
        Csr::<f32>::check_host(3, 0, &OFFSETS, &COLS, 3, Z),
        op,
        "cols is 0",
    );
    rejected(
        Csr::<f32>::check_host(1 << 31, 3, &OFFSETS, &COLS, 3, Z),
        op,
        "32-bit",
    );
    rejected(
        Csr::<f32>::check_host(4, 3, &OFFSETS, &COLS, 3, Z),
        op,
        "row offsets has 4 entries; row + 1 = 5 expected",
    );
}

#[test]
fn csr_nnz_rules() {
    let op = "Csr::from_host";
    rejected(
        Csr::<f32>::check_host(3, 3, &[0, 2, 2, 4], &COLS, 3, Z),
        op,
        "nnz mismatch",
    );
    rejected(
        Csr::<f32>::check_host(3, 3, &OFFSETS, &COLS, 2, Z),
        op,
        "2 values for 3 stored entries",
    );
    rejected(
        Csr::<f32>::check_host(3, 3, &[0, 2, 1, 3], &COLS, 3, Z),
        op,
        "decrease at 2",
    );
}

#[test]
fn csr_index_base_rules() {
    let op = "Csr::from_host";
    // Zero-based offsets given as one-based.
    rejected(
        Csr::<f32>::check_host(3, 3, &OFFSETS, &COLS, 3, O),
        op,
        "the index base 1 expected",
    );
    // One-based offsets with a zero-based column index.
    rejected(
        Csr::<f32>::check_host(3, 3, &[1, 3, 3, 4], &[0, 2, 1], 3, O),
        op,
        "column index 0 at position 0",
    );
    // A column index past the last column.
    rejected(
        Csr::<f32>::check_host(3, 3, &OFFSETS, &[0, 3, 1], 3, Z),
        op,
        "outside 0..3",
    );
    rejected(
        Csr::<f32>::check_host(3, 3, &OFFSETS, &[0, -1, 1], 3, Z),
        op,
        "column index -1",
    );
}

#[test]
fn csr_sorted_unique_rules() {
    let op = "Csr::from_host";
    rejected(
        Csr::<f32>::check_host(3, 3, &OFFSETS, &[2, 0, 1], 3, Z),
        op,
        "not sorted and unique: 2 then 0",
    );
    rejected(
        Csr::<f32>::check_host(3, 3, &OFFSETS, &[1, 1, 1], 3, Z),
        op,
        "not sorted and unique: 1 then 1",
    );
    // Sorting is per row: a smaller index in the next row is fine.
    Csr::<f32>::check_host(3, 3, &[0, 2, 3, 3], &[1, 2, 0], 3, Z).unwrap();
}

#[test]
fn csc_rules_name_columns_and_rows() {
    let op = "Csc::from_host";
    Csc::<f64>::check_host(3, 2, &[0, 1, 3], &[2, 0, 1], 3, Z).unwrap();
    rejected(
        Csc::<f64>::check_host(3, 2, &[0, 1, 3, 3], &[2, 0, 1], 3, Z),
        op,
        "column offsets has 4 entries",
    );
    rejected(
        Csc::<f64>::check_host(3, 2, &[0, 1, 3], &[2, 1, 0], 3, Z),
        op,
        "row indices of column 1 are not sorted",
    );
    rejected(
        Csc::<f64>::check_host(3, 2, &[0, 1, 3], &[3, 0, 1], 3, Z),
        op,
        "row index 3",
    );
}

#[test]
fn coo_rules() {
    let op = "Coo::from_host";
    Coo::<f32>::check_host(3, 3, &[0, 0, 2], &[0, 2, 1], 3, Z).unwrap();
    Coo::<f32>::check_host(3, 3, &[1, 1, 3], &[1, 3, 2], 3, O).unwrap();
    rejected(
        Coo::<f32>::check_host(3, 3, &[0, 0], &[0, 2, 1], 3, Z),
        op,
        "2 row indices, 3 column indices, 3 values",
    );
    rejected(
        Coo::<f32>::check_host(3, 3, &[0, 2, 0], &[0, 1, 2], 3, Z),
        op,
        "not sorted by (row, column)",
    );
    rejected(
        Coo::<f32>::check_host(3, 3, &[0, 0, 2], &[2, 2, 1], 3, Z),
        op,
        "(0, 2) then (0, 2)",
    );
    rejected(
        Coo::<f32>::check_host(3, 3, &[0, 0, 3], &[0, 2, 1], 3, Z),
        op,
        "row index 3",
    );
    rejected(
        Coo::<f32>::check_host(3, 3, &[0, 0, 2], &[0, 2, 1], 3, O),
        op,
        "row index 0 at position 0",
    );
}

#[test]
fn bsr_rules() {
    let op = "Bsr::from_host";
    // 2 x 2 blocks of 2: [[B, 0], [B, B]].
    Bsr::<f32>::check_host((2, 2, 2), &[0, 1, 3], &[0, 0, 1], 12, Z).unwrap();
    rejected(
        Bsr::<f32>::check_host((2, 2, 2), &[0, 1, 3], &[0, 0, 1], 11, Z),
        op,
        "11 values for 3 stored entries (12 expected)",
    );
    rejected(
        Bsr::<f32>::check_host((2, 2, 0), &[0, 1, 3], &[0, 0, 1], 0, Z),
        op,
        "block_dim is 0",
    );
    rejected(
        Bsr::<f32>::check_host((2, 2, 2), &[0, 1, 3], &[0, 1, 0], 12, Z),
        op,
        "block column indices of block row 1 are not sorted",
    );
    rejected(
        Bsr::<f32>::check_host((1 << 20, 1, 1 << 12), &[0], &[], 0, Z),
        op,
        "rows = ",
    );
}

#[test]
fn dense_layout_rules() {
    let op = "Sparse::spmm";
    DenseLayout::col_major(3, 2).check(op, "B", 6).unwrap();
    DenseLayout::col_major(3, 2)
        .with_ld(5)
        .check(op, "B", 8)
        .unwrap();
    rejected(
        DenseLayout::col_major(3, 2).with_ld(2).check(op, "B", 6),
        op,
        "B: leading dimension 2 is less than its rows (3)",
    );
    rejected(
        DenseLayout::row_major(3, 2).with_ld(1).check(op, "C", 6),
        op,
        "C: leading dimension 1 is less than its columns (2)",
    );
    rejected(
        DenseLayout::col_major(3, 2).with_ld(5).check(op, "B", 7),
        op,
        "needs 8 elements, the buffer has 7",
    );
    rejected(
        DenseLayout::col_major(0, 2).check(op, "B", 6),
        op,
        "B: rows is 0",
    );
    assert_eq!(DenseLayout::row_major(3, 2).with_ld(4).min_len(), 10);
}

/// A random valid CSR matrix: (rows, cols, offsets, indices), with empty
/// rows likely.
fn csr_strategy() -> impl Strategy<Value = (usize, usize, Vec<i32>, Vec<i32>)> {
    (1usize..40, 1usize..40).prop_flat_map(|(rows, cols)| {
        proptest::collection::vec(
            proptest::collection::btree_set(0..cols as i32, 0..cols.min(6)),
            rows,
        )
        .prop_map(move |sets| {
            let mut offsets = vec![0i32];
            let mut indices = Vec::new();
            for s in &sets {
                indices.extend(s.iter().copied());
                offsets.push(indices.len() as i32);
            }
            (rows, cols, offsets, indices)
        })
    })
}

proptest! {
    #[test]
    fn random_valid_csr_passes_in_either_base((rows, cols, offsets, indices) in csr_strategy(), one in any::<bool>()) {
        let (base, b) = if one { (O, 1) } else { (Z, 0) };
        let o: Vec<i32> = offsets.iter().map(|v| v + b).collect();
        let i: Vec<i32> = indices.iter().map(|v| v + b).collect();
        prop_assert!(Csr::<f32>::check_host(rows, cols, &o, &i, i.len(), base).is_ok());
        // The same arrays read as CSC of the transposed shape are valid too.
        prop_assert!(Csc::<f32>::check_host(cols, rows, &o, &i, i.len(), base).is_ok());
    }

    #[test]
    fn any_broken_index_is_rejected((rows, cols, offsets, mut indices) in csr_strategy(), pick in any::<prop::sample::Index>(), bad in prop_oneof![Just(-1i32), Just(i32::MAX)]) {
        prop_assume!(!indices.is_empty());
        let k = pick.index(indices.len());
        indices[k] = if bad == -1 { -1 } else { cols as i32 };
        let r = Csr::<f64>::check_host(rows, cols, &offsets, &indices, indices.len(), Z);
        prop_assert!(matches!(r, Err(Error::Invalid { .. })), "{:?}", r);
    }
}
