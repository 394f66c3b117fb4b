//! The rules every argument is checked against before hipSOLVER is called:
//! shapes, leading dimensions, buffer lengths and devices, batch sizes.
//! Pure functions, so the tier-1 tests reach every rule without a GPU.

use crate::error::{Error, Result};
use std::ffi::c_int;

/// A column-major matrix inside a buffer: `rows` x `cols`, column `j`
/// starting at element `j * ld`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Rows (LAPACK's `m`).
    pub rows: usize,
    /// Columns (LAPACK's `n`).
    pub cols: usize,
    /// Leading dimension: elements from one column to the next, at least
    /// `max(1, rows)`.
    pub ld: usize,
}

impl Layout {
    /// A packed `rows` x `cols` matrix (`ld = max(1, rows)`).
    pub const fn new(rows: usize, cols: usize) -> Layout {
        Layout {
            rows,
            cols,
            ld: if rows > 1 { rows } else { 1 },
        }
    }

    /// A packed `n` x `n` matrix.
    pub const fn square(n: usize) -> Layout {
        Layout::new(n, n)
    }

    /// The same matrix with leading dimension `ld`.
    pub const fn with_ld(self, ld: usize) -> Layout {
        Layout { ld, ..self }
    }

    /// Elements a buffer must hold for this matrix: `ld * (cols - 1) +
    /// rows`, 0 for an empty matrix; `None` on overflow.
    pub fn required_len(&self) -> Option<usize> {
        if self.rows == 0 || self.cols == 0 {
            return Some(0);
        }
        self.ld.checked_mul(self.cols - 1)?.checked_add(self.rows)
    }

    /// Elements from one matrix of a batch to the next: `ld * cols`.
    pub fn stride(&self) -> Option<usize> {
        self.ld.checked_mul(self.cols)
    }
}

/// A size as the `int` hipSOLVER takes.
pub fn to_int(op: &'static str, name: &str, v: usize) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| {
        Error::invalid(
            op,
            format!(
                "{name} = {v} does not fit in a C int (at most {})",
                c_int::MAX
            ),
        )
    })
}

/// A matrix argument: its leading dimension (at least `max(1, rows)`),
/// its sizes (each fits in an `int`) and its buffer's length (at least what
/// the layout reaches; `batch` matrices `ld * cols` apart when batched).
pub fn matrix(
    op: &'static str,
    name: &str,
    layout: Layout,
    len: usize,
    batch: usize,
) -> Result<()> {
    to_int(op, &format!("{name}.rows"), layout.rows)?;
    to_int(op, &format!("{name}.cols"), layout.cols)?;
    to_int(op, &format!("{name}.ld"), layout.ld)?;
    if layout.ld < layout.rows.max(1) {
        return Err(Error::invalid(
            op,
            format!(
                "{name}: the leading dimension {} is less than max(1, rows) = {}",
                layout.ld,
                layout.rows.max(1)
            ),
        ));
    }
    let overflow = || Error::invalid(op, format!("{name}: the layout's extent overflows usize"));
    let one = layout.required_len().ok_or_else(overflow)?;
    let needed = if batch <= 1 {
        one
    } else {
        layout
            .stride()
            .and_then(|s| s.checked_mul(batch - 1))
            .and_then(|s| s.checked_add(one))
            .ok_or_else(overflow)?
    };
    if len < needed {
        let what = if batch > 1 {
            format!(
                "{batch} matrices of {} x {} with leading dimension {}",
                layout.rows, layout.cols, layout.ld
            )
        } else {
            format!(
                "a {} x {} matrix with leading dimension {}",
                layout.rows, layout.cols, layout.ld
            )
        };
        return Err(Error::invalid(
            op,
            format!("{name} holds {len} elements but {what} needs {needed}"),
        ));
    }
    Ok(())
}

/// A square matrix argument.
pub fn square(op: &'static str, name: &str, layout: Layout) -> Result<()> {
    if layout.rows != layout.cols {
        return Err(Error::invalid(
            op,
            format!(
                "{name} must be square, not {} x {}",
                layout.rows, layout.cols
            ),
        ));
    }
    Ok(())
}

/// A vector argument of at least `needed` elements.
pub fn vector(op: &'static str, name: &str, len: usize, needed: usize) -> Result<()> {
    if len < needed {
        return Err(Error::invalid(
            op,
            format!("{name} holds {len} elements but {needed} are needed"),
        ));
    }
    Ok(())
}

/// A buffer on the solver's device.
pub fn device(op: &'static str, name: &str, got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(Error::invalid(
            op,
            format!("{name} is on device {got} but the solver's stream is on device {want}"),
        ));
    }
    Ok(())
}

/// A batch size: at least 1, and fits in an `int`.
pub fn batch(op: &'static str, batch: usize) -> Result<c_int> {
    if batch == 0 {
        return Err(Error::invalid(op, "the batch is empty (batch = 0)"));
    }
    to_int(op, "batch", batch)
}

/// The right-hand sides `b` of an `n` x `n` system: `n` rows.
pub fn rhs(op: &'static str, n: usize, b: Layout) -> Result<()> {
    if b.rows != n {
        return Err(Error::invalid(
            op,
            format!(
                "b has {} rows but the system has {n} unknowns (a is {n} x {n})",
                b.rows
            ),
        ));
    }
    Ok(())
}

/// cuSOLVER's limit on the Jacobi batched routines (`gesvdjBatched`,
/// `syevjBatched`): matrices of at most 32 rows and columns, which the
/// rule applies on every platform so that a program behaves alike.
pub const JACOBI_BATCHED_MAX: usize = 32;

/// A matrix of a Jacobi batched routine: at most 32 x 32.
pub fn jacobi_batched(op: &'static str, layout: Layout) -> Result<()> {
    if layout.rows > JACOBI_BATCHED_MAX || layout.cols > JACOBI_BATCHED_MAX {
        return Err(Error::invalid(
            op,
            format!(
                "the batched Jacobi routines take matrices of at most {JACOBI_BATCHED_MAX} x {JACOBI_BATCHED_MAX}, not {} x {}",
                layout.rows, layout.cols
            ),
        ));
    }
    Ok(())
}

/// `gesvd`: at least as many rows as columns (cuSOLVER's `gesvd` supports
/// only `m >= n`; the rule holds on every platform). Factor the transpose
/// of a wide matrix, or use `gesvdj`.
pub fn tall(op: &'static str, layout: Layout) -> Result<()> {
    if layout.rows < layout.cols {
        return Err(Error::invalid(
            op,
            format!(
                "gesvd needs rows >= cols, not {} x {}: factor the transpose, or use gesvdj",
                layout.rows, layout.cols
            ),
        ));
    }
    Ok(())
}

/// What a positive `info` of a routine means.
#[derive(Clone, Copy, Debug)]
pub enum InfoMeaning {
    /// getrf: `U(info, info)` is zero.
    ZeroPivot,
    /// potrf: the leading minor of order `info`.
    Minor,
    /// Iterative routines: a count, explained.
    NotConverged(&'static str),
    /// Routines whose `info` is only ever 0 or negative.
    None,
}

/// Turns the `info` values a routine wrote (one per matrix) into the first
/// error they report.
pub fn info(
    op: &'static str,
    call: &'static str,
    infos: &[i32],
    meaning: InfoMeaning,
) -> Result<()> {
    let batched = infos.len() > 1;
    for (i, &info) in infos.iter().enumerate() {
        let batch = batched.then_some(i);
        if info < 0 {
            return Err(Error::IllegalArgument {
                call,
                position: info.unsigned_abs() as usize,
            });
        }
        if info > 0 {
            return Err(match meaning {
                InfoMeaning::ZeroPivot => Error::Singular {
                    operation: op,
                    index: info as usize,
                    batch,
                },
                InfoMeaning::Minor => Error::NotPositiveDefinite {
                    operation: op,
                    order: info as usize,
                    batch,
                },
                InfoMeaning::NotConverged(what) => Error::NotConverged {
                    operation: op,
                    info,
                    what,
                    batch,
                },
                InfoMeaning::None => Error::Solver {
                    call,
                    status: hipsolver_sys::hipsolverStatus_t::HIPSOLVER_STATUS_UNKNOWN,
                    message: format!("returned info = {info}, which this routine does not define"),
                },
            });
        }
    }
    Ok(())
}
