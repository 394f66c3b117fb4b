//! The shape of a dense operand (SpMM, SpSM, conversions): rows, columns,
//! leading dimension and storage order, checked against its buffer before
//! any call.

use crate::error::Result;
use crate::validate;
use hipsparse_sys::hipsparseOrder_t;

/// How a dense matrix is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Column by column (BLAS's order); the leading dimension is at least
    /// the rows.
    #[default]
    ColumnMajor,
    /// Row by row (torch's and C's order); the leading dimension is at
    /// least the columns.
    RowMajor,
}

/// A dense matrix's shape in its buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DenseLayout {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Elements between the starts of two columns (column-major) or two
    /// rows (row-major).
    pub ld: usize,
    /// The storage order.
    pub order: Order,
}

impl DenseLayout {
    /// A packed column-major `rows` x `cols` matrix (`ld = rows`).
    pub const fn col_major(rows: usize, cols: usize) -> DenseLayout {
        DenseLayout {
            rows,
            cols,
            ld: rows,
            order: Order::ColumnMajor,
        }
    }

    /// A packed row-major `rows` x `cols` matrix (`ld = cols`).
    pub const fn row_major(rows: usize, cols: usize) -> DenseLayout {
        DenseLayout {
            rows,
            cols,
            ld: cols,
            order: Order::RowMajor,
        }
    }

    /// The same matrix with another leading dimension.
    pub const fn with_ld(mut self, ld: usize) -> DenseLayout {
        self.ld = ld;
        self
    }

    /// The elements a buffer must hold: `(outer - 1) * ld + inner`.
    pub fn min_len(&self) -> usize {
        let (inner, outer) = match self.order {
            Order::ColumnMajor => (self.rows, self.cols),
            Order::RowMajor => (self.cols, self.rows),
        };
        if inner == 0 || outer == 0 {
            0
        } else {
            (outer - 1) * self.ld + inner
        }
    }

    /// Checks the layout (dimensions at least 1, `ld` at least the stored
    /// dimension, everything within 32-bit indices) against a buffer of
    /// `len` elements; `name` names the operand in the error.
    pub fn check(&self, operation: &'static str, name: &str, len: usize) -> Result<()> {
        validate::dimension(operation, &format!("{name}: rows"), self.rows)?;
        validate::dimension(operation, &format!("{name}: cols"), self.cols)?;
        validate::dense(
            operation,
            name,
            (
                self.rows,
                self.cols,
                self.ld,
                self.order == Order::ColumnMajor,
            ),
            len,
        )
    }

    pub(crate) fn raw_order(&self) -> hipsparseOrder_t {
        match self.order {
            Order::ColumnMajor => hipsparseOrder_t::HIPSPARSE_ORDER_COL,
            Order::RowMajor => hipsparseOrder_t::HIPSPARSE_ORDER_ROW,
        }
    }
}
