//! The rules a sparse matrix's arrays must follow, checked on the host
//! before anything is uploaded or any hipSPARSE function is called. Pure
//! functions over slices: the tier-1 tests and proptests call them
//! directly through the constructors.

use crate::error::{Error, Result};
use crate::IndexBase;

/// The largest dimension or count hipSPARSE's 32-bit indices can address.
pub(crate) const MAX_INDEX: usize = i32::MAX as usize;

/// `name` (a dimension) must be at least 1 and fit a 32-bit index.
pub(crate) fn dimension(op: &'static str, name: &str, value: usize) -> Result<()> {
    if value == 0 {
        return Err(Error::invalid(
            op,
            format!("{name} is 0; every dimension must be at least 1"),
        ));
    }
    if value > MAX_INDEX {
        return Err(Error::invalid(
            op,
            format!("{name} = {value} exceeds the 32-bit index limit {MAX_INDEX}"),
        ));
    }
    Ok(())
}

/// The compressed array of a CSR (`major` = rows) or CSC (`major` =
/// columns) matrix, or of a BSR matrix over blocks, and its minor indices:
///
/// - `offsets` has `major + 1` entries, starts at the index base, never
///   decreases, and ends at `nnz + base`;
/// - `indices` has `nnz` entries (as many as `values`), each in
///   `base..minor + base`, strictly increasing within each major slice
///   (sorted, no duplicates: the generic API and the triangular solves
///   assume it).
#[allow(clippy::too_many_arguments)]
pub(crate) fn compressed(
    op: &'static str,
    (major_name, major): (&str, usize),
    (minor_name, minor): (&str, usize),
    offsets: &[i32],
    indices: &[i32],
    values_len: usize,
    values_per_entry: usize,
    base: IndexBase,
) -> Result<()> {
    let b = base.offset();
    let offsets_name = format!("{major_name} offsets");
    if offsets.len() != major + 1 {
        return Err(Error::invalid(
            op,
            format!(
                "{offsets_name} has {} entries; {major_name} + 1 = {} expected",
                offsets.len(),
                major + 1
            ),
        ));
    }
    if offsets[0] != b {
        return Err(Error::invalid(
            op,
            format!(
                "{offsets_name}[0] = {}; the index base {b} expected",
                offsets[0]
            ),
        ));
    }
    for (i, w) in offsets.windows(2).enumerate() {
        if w[1] < w[0] {
            return Err(Error::invalid(
                op,
                format!(
                    "{offsets_name} decrease at {}: {} then {}",
                    i + 1,
                    w[0],
                    w[1]
                ),
            ));
        }
    }
    let nnz = (i64::from(offsets[major]) - i64::from(b)) as usize;
    if indices.len() != nnz {
        return Err(Error::invalid(
            op,
            format!(
                "nnz mismatch: {offsets_name} end at {} (nnz {nnz} with base {b}) but there are {} {minor_name} indices",
                offsets[major],
                indices.len()
            ),
        ));
    }
    let want_values = nnz.checked_mul(values_per_entry).ok_or_else(|| {
        Error::invalid(op, format!("nnz {nnz} times {values_per_entry} overflows"))
    })?;
    if values_len != want_values {
        return Err(Error::invalid(
            op,
            format!(
                "nnz mismatch: {values_len} values for {nnz} stored entries ({want_values} expected)"
            ),
        ));
    }
    for m in 0..major {
        let (start, end) = ((offsets[m] - b) as usize, (offsets[m + 1] - b) as usize);
        let mut previous: Option<i32> = None;
        for (k, &j) in indices[start..end].iter().enumerate() {
            if j < b || i64::from(j) >= minor as i64 + i64::from(b) {
                return Err(Error::invalid(
                    op,
                    format!(
                        "{minor_name} index {j} at position {} (in {major_name} {m}) is outside {b}..{}",
                        start + k,
                        minor as i64 + i64::from(b)
                    ),
                ));
            }
            if let Some(p) = previous {
                if j <= p {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "{minor_name} indices of {major_name} {m} are not sorted and unique: {p} then {j} at position {}",
                            start + k
                        ),
                    ));
                }
            }
            previous = Some(j);
        }
    }
    Ok(())
}

/// A COO matrix's arrays: as many row and column indices as values, each in
/// range for `base`, sorted by row then column with no duplicate entry.
pub(crate) fn coordinate(
    op: &'static str,
    rows: usize,
    cols: usize,
    row_indices: &[i32],
    col_indices: &[i32],
    values_len: usize,
    base: IndexBase,
) -> Result<()> {
    let b = base.offset();
    if row_indices.len() != col_indices.len() || row_indices.len() != values_len {
        return Err(Error::invalid(
            op,
            format!(
                "nnz mismatch: {} row indices, {} column indices, {values_len} values",
                row_indices.len(),
                col_indices.len()
            ),
        ));
    }
    let mut previous: Option<(i32, i32)> = None;
    for (k, (&i, &j)) in row_indices.iter().zip(col_indices).enumerate() {
        for (name, v, n) in [("row", i, rows), ("column", j, cols)] {
            if v < b || i64::from(v) >= n as i64 + i64::from(b) {
                return Err(Error::invalid(
                    op,
                    format!(
                        "{name} index {v} at position {k} is outside {b}..{}",
                        n as i64 + i64::from(b)
                    ),
                ));
            }
        }
        if let Some(p) = previous {
            if (i, j) <= p {
                return Err(Error::invalid(
                    op,
                    format!(
                        "entries are not sorted by (row, column) without duplicates: ({}, {}) then ({i}, {j}) at position {k}",
                        p.0, p.1
                    ),
                ));
            }
        }
        previous = Some((i, j));
    }
    Ok(())
}

/// A dense operand of `rows` x `cols` with leading dimension `ld` in
/// `order`, held in `len` elements: `ld` at least the stored dimension
/// (rows for column-major, columns for row-major), `len` at least the last
/// element's position plus one.
pub(crate) fn dense(
    op: &'static str,
    name: &str,
    (rows, cols, ld, col_major): (usize, usize, usize, bool),
    len: usize,
) -> Result<()> {
    let (inner, outer, inner_name) = if col_major {
        (rows, cols, "rows")
    } else {
        (cols, rows, "columns")
    };
    if ld < inner.max(1) {
        return Err(Error::invalid(
            op,
            format!("{name}: leading dimension {ld} is less than its {inner_name} ({inner})"),
        ));
    }
    if ld > MAX_INDEX || rows > MAX_INDEX || cols > MAX_INDEX {
        return Err(Error::invalid(
            op,
            format!("{name}: {rows} x {cols} with leading dimension {ld} exceeds 32-bit indices"),
        ));
    }
    let need = if outer == 0 || inner == 0 {
        0
    } else {
        (outer - 1)
            .checked_mul(ld)
            .and_then(|v| v.checked_add(inner))
            .ok_or_else(|| Error::invalid(op, format!("{name}: size overflows")))?
    };
    if len < need {
        return Err(Error::invalid(
            op,
            format!(
                "{name}: {rows} x {cols} with leading dimension {ld} needs {need} elements, the buffer has {len}"
            ),
        ));
    }
    Ok(())
}

/// `got` must equal `want` (lengths and dimensions of operands).
pub(crate) fn same(op: &'static str, what: &str, got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(Error::invalid(
            op,
            format!("{what}: {got}, {want} expected"),
        ));
    }
    Ok(())
}
