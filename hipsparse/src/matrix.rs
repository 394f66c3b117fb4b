//! Sparse matrices in device memory, checked on construction: CSR, CSC,
//! COO (the generic API's formats) and BSR.
//!
//! Each is made from host arrays, which are checked against the format's
//! rules (`validate.rs`: shape, nnz, index base, indices in range,
//! sorted and unique) before anything is uploaded, so hipSPARSE is never
//! given a malformed matrix; or it is produced by hipSPARSE itself
//! (SpGEMM, dense-to-sparse), whose output has those properties.

use crate::error::{Error, Result};
use crate::result::SpMat;
use crate::scalar::Scalar;
use crate::validate;
use hip::{AccessEvents, DeviceBuffer, DeviceMemory, Stream};
use hipsparse_sys::{hipsparseDirection_t, hipsparseIndexBase_t};

/// Where indices start: `Zero` (C) or `One` (Fortran).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum IndexBase {
    /// Indices start at 0.
    #[default]
    Zero,
    /// Indices start at 1.
    One,
}

impl IndexBase {
    /// 0 or 1.
    pub const fn offset(self) -> i32 {
        match self {
            IndexBase::Zero => 0,
            IndexBase::One => 1,
        }
    }

    pub(crate) fn raw(self) -> hipsparseIndexBase_t {
        match self {
            IndexBase::Zero => hipsparseIndexBase_t::HIPSPARSE_INDEX_BASE_ZERO,
            IndexBase::One => hipsparseIndexBase_t::HIPSPARSE_INDEX_BASE_ONE,
        }
    }
}

/// A matrix the generic API takes (CSR, CSC, COO): its sizes, the
/// descriptor hipSPARSE reads it through, and its buffers' access events.
/// Sealed.
pub trait SparseMatrix<T: Scalar>: sealed::Sealed {
    /// Rows.
    fn rows(&self) -> usize;
    /// Columns.
    fn cols(&self) -> usize;
    /// Stored entries.
    fn nnz(&self) -> usize;
    /// The index base.
    fn index_base(&self) -> IndexBase;
    /// The device every buffer is on.
    fn device_ordinal(&self) -> usize;
    #[doc(hidden)]
    fn descriptor(&self) -> Result<SpMat>;
    #[doc(hidden)]
    fn access_events(&self) -> Vec<&AccessEvents>;
}

mod sealed {
    pub trait Sealed {}
    impl<T: crate::Scalar> Sealed for super::Csr<T> {}
    impl<T: crate::Scalar> Sealed for super::Csc<T> {}
    impl<T: crate::Scalar> Sealed for super::Coo<T> {}
    impl<T: crate::Scalar> Sealed for super::BsrAsCsr<'_, T> {}
}

/// A compressed matrix's arrays: the offsets over the major dimension, the
/// minor indices and the values.
#[derive(Debug)]
struct Compressed<T: Scalar> {
    rows: usize,
    cols: usize,
    nnz: usize,
    base: IndexBase,
    offsets: DeviceBuffer<i32>,
    indices: DeviceBuffer<i32>,
    values: DeviceBuffer<T>,
}

impl<T: Scalar> Compressed<T> {
    fn events(&self) -> Vec<&AccessEvents> {
        vec![
            self.offsets.access_events(),
            self.indices.access_events(),
            self.values.access_events(),
        ]
    }
}

/// A compressed sparse row matrix: `rows + 1` row offsets, and for each
/// stored entry its column index and value, sorted by column within each
/// row.
#[derive(Debug)]
pub struct Csr<T: Scalar>(Compressed<T>);

/// A compressed sparse column matrix: `cols + 1` column offsets, and for
/// each stored entry its row index and value, sorted by row within each
/// column.
#[derive(Debug)]
pub struct Csc<T: Scalar>(Compressed<T>);

impl<T: Scalar> Csr<T> {
    /// Checks the arrays (`rows + 1` offsets from the base to `nnz + base`,
    /// never decreasing;
    /// `nnz` column indices and values; indices in range, strictly
    /// increasing within each row) and uploads them on `stream`.
    ///
    /// ```no_run
    /// # fn main() -> hipsparse::Result<()> {
    /// use hipsparse::{Csr, IndexBase};
    /// let stream = hip::Stream::new(&hip::Device::get(0)?)?;
    /// // [[1, 0, 2], [0, 0, 0], [0, 3, 0]]: the second row is empty.
    /// let a = Csr::from_host(&stream, 3, 3, &[0, 2, 2, 3], &[0, 2, 1], &[1.0f32, 2.0, 3.0], IndexBase::Zero)?;
    /// assert_eq!(a.nnz(), 3);
    /// # Ok(()) }
    /// ```
    pub fn from_host(
        stream: &Stream,
        rows: usize,
        cols: usize,
        row_offsets: &[i32],
        col_indices: &[i32],
        values: &[T],
        base: IndexBase,
    ) -> Result<Csr<T>> {
        const OP: &str = "Csr::from_host";
        Self::check(OP, rows, cols, row_offsets, col_indices, values.len(), base)?;
        Ok(Csr(upload(
            stream,
            (rows, cols),
            row_offsets,
            col_indices,
            values,
            base,
        )?))
    }

    /// The checks of [`from_host`](Self::from_host), without a GPU.
    pub fn check_host(
        rows: usize,
        cols: usize,
        row_offsets: &[i32],
        col_indices: &[i32],
        values_len: usize,
        base: IndexBase,
    ) -> Result<()> {
        Self::check(
            "Csr::from_host",
            rows,
            cols,
            row_offsets,
            col_indices,
            values_len,
            base,
        )
    }

    fn check(
        op: &'static str,
        rows: usize,
        cols: usize,
        row_offsets: &[i32],
        col_indices: &[i32],
        values_len: usize,
        base: IndexBase,
    ) -> Result<()> {
        validate::dimension(op, "rows", rows)?;
        validate::dimension(op, "cols", cols)?;
        validate::compressed(
            op,
            ("row", rows),
            ("column", cols),
            row_offsets,
            col_indices,
            values_len,
            1,
            base,
        )
    }

    /// Adopts arrays hipSPARSE produced (SpGEMM, dense-to-sparse).
    pub(crate) fn from_parts(
        (rows, cols, nnz): (usize, usize, usize),
        base: IndexBase,
        offsets: DeviceBuffer<i32>,
        indices: DeviceBuffer<i32>,
        values: DeviceBuffer<T>,
    ) -> Csr<T> {
        Csr(Compressed {
            rows,
            cols,
            nnz,
            base,
            offsets,
            indices,
            values,
        })
    }

    /// The row offsets (`rows + 1`).
    pub fn row_offsets(&self) -> &DeviceBuffer<i32> {
        &self.0.offsets
    }

    /// The column indices (`nnz`).
    pub fn col_indices(&self) -> &DeviceBuffer<i32> {
        &self.0.indices
    }

    /// The values (`nnz`).
    pub fn values(&self) -> &DeviceBuffer<T> {
        &self.0.values
    }

    /// Rows, columns and stored entries.
    pub fn nnz(&self) -> usize {
        self.0.nnz
    }
}

impl<T: Scalar> Csc<T> {
    /// Checks the arrays (`cols + 1` column offsets, `nnz` row indices and
    /// values, row indices in range and strictly increasing within each
    /// column) and uploads them on `stream`.
    pub fn from_host(
        stream: &Stream,
        rows: usize,
        cols: usize,
        col_offsets: &[i32],
        row_indices: &[i32],
        values: &[T],
        base: IndexBase,
    ) -> Result<Csc<T>> {
        Self::check_host(rows, cols, col_offsets, row_indices, values.len(), base)?;
        Ok(Csc(upload(
            stream,
            (rows, cols),
            col_offsets,
            row_indices,
            values,
            base,
        )?))
    }

    /// The checks of [`from_host`](Self::from_host), without a GPU.
    pub fn check_host(
        rows: usize,
        cols: usize,
        col_offsets: &[i32],
        row_indices: &[i32],
        values_len: usize,
        base: IndexBase,
    ) -> Result<()> {
        const OP: &str = "Csc::from_host";
        validate::dimension(OP, "rows", rows)?;
        validate::dimension(OP, "cols", cols)?;
        validate::compressed(
            OP,
            ("column", cols),
            ("row", rows),
            col_offsets,
            row_indices,
            values_len,
            1,
            base,
        )
    }
}

fn upload<T: Scalar>(
    stream: &Stream,
    (rows, cols): (usize, usize),
    offsets: &[i32],
    indices: &[i32],
    values: &[T],
    base: IndexBase,
) -> Result<Compressed<T>> {
    Ok(Compressed {
        rows,
        cols,
        nnz: indices.len(),
        base,
        offsets: stream.clone_htod(offsets)?,
        indices: stream.clone_htod(indices)?,
        values: stream.clone_htod(values)?,
    })
}

macro_rules! compressed_matrix {
    ($t:ident, $create:ident) => {
        impl<T: Scalar> SparseMatrix<T> for $t<T> {
            fn rows(&self) -> usize {
                self.0.rows
            }
            fn cols(&self) -> usize {
                self.0.cols
            }
            fn nnz(&self) -> usize {
                self.0.nnz
            }
            fn index_base(&self) -> IndexBase {
                self.0.base
            }
            fn device_ordinal(&self) -> usize {
                self.0.offsets.device().ordinal()
            }
            fn descriptor(&self) -> Result<SpMat> {
                let c = &self.0;
                // SAFETY: the three buffers live as long as `self`, which
                // every operation borrows for as long as the descriptor
                // lives; they hold a checked matrix of these sizes.
                unsafe {
                    SpMat::$create(
                        (c.rows, c.cols, c.nnz),
                        c.offsets.as_device_ptr(),
                        c.indices.as_device_ptr(),
                        c.values.as_device_ptr(),
                        c.base,
                        T::DATA_TYPE,
                    )
                }
            }
            fn access_events(&self) -> Vec<&AccessEvents> {
                self.0.events()
            }
        }
    };
}
compressed_matrix!(Csr, csr);
compressed_matrix!(Csc, csc);

/// A coordinate matrix: for each stored entry its row index, column index
/// and value, sorted by row, then column, without duplicates.
#[derive(Debug)]
pub struct Coo<T: Scalar> {
    rows: usize,
    cols: usize,
    base: IndexBase,
    row_indices: DeviceBuffer<i32>,
    col_indices: DeviceBuffer<i32>,
    values: DeviceBuffer<T>,
}

impl<T: Scalar> Coo<T> {
    /// Checks the arrays (as many row and column indices as values, in
    /// range, sorted by (row, column) without duplicates) and uploads them
    /// on `stream`.
    pub fn from_host(
        stream: &Stream,
        rows: usize,
        cols: usize,
        row_indices: &[i32],
        col_indices: &[i32],
        values: &[T],
        base: IndexBase,
    ) -> Result<Coo<T>> {
        Self::check_host(rows, cols, row_indices, col_indices, values.len(), base)?;
        Ok(Coo {
            rows,
            cols,
            base,
            row_indices: stream.clone_htod(row_indices)?,
            col_indices: stream.clone_htod(col_indices)?,
            values: stream.clone_htod(values)?,
        })
    }

    /// The checks of [`from_host`](Self::from_host), without a GPU.
    pub fn check_host(
        rows: usize,
        cols: usize,
        row_indices: &[i32],
        col_indices: &[i32],
        values_len: usize,
        base: IndexBase,
    ) -> Result<()> {
        const OP: &str = "Coo::from_host";
        validate::dimension(OP, "rows", rows)?;
        validate::dimension(OP, "cols", cols)?;
        validate::coordinate(OP, rows, cols, row_indices, col_indices, values_len, base)
    }
}

impl<T: Scalar> SparseMatrix<T> for Coo<T> {
    fn rows(&self) -> usize {
        self.rows
    }
    fn cols(&self) -> usize {
        self.cols
    }
    fn nnz(&self) -> usize {
        self.values.len()
    }
    fn index_base(&self) -> IndexBase {
        self.base
    }
    fn device_ordinal(&self) -> usize {
        self.values.device().ordinal()
    }
    fn descriptor(&self) -> Result<SpMat> {
        // SAFETY: as for the compressed formats: the buffers outlive every
        // descriptor made from them, and hold a checked matrix.
        unsafe {
            SpMat::coo(
                (self.rows, self.cols, self.values.len()),
                self.row_indices.as_device_ptr(),
                self.col_indices.as_device_ptr(),
                self.values.as_device_ptr(),
                self.base,
                T::DATA_TYPE,
            )
        }
    }
    fn access_events(&self) -> Vec<&AccessEvents> {
        vec![
            self.row_indices.access_events(),
            self.col_indices.access_events(),
            self.values.access_events(),
        ]
    }
}

/// How the entries of each block of a BSR matrix are stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BlockOrder {
    /// Each block row by row.
    #[default]
    RowMajor,
    /// Each block column by column.
    ColumnMajor,
}

impl BlockOrder {
    pub(crate) fn raw(self) -> hipsparseDirection_t {
        match self {
            BlockOrder::RowMajor => hipsparseDirection_t::HIPSPARSE_DIRECTION_ROW,
            BlockOrder::ColumnMajor => hipsparseDirection_t::HIPSPARSE_DIRECTION_COLUMN,
        }
    }
}

/// A block sparse row matrix: `block_rows + 1` offsets over block rows, and
/// for each stored block its block-column index (sorted within each block
/// row) and `block_dim`² values in `order`. Its size is `block_rows *
/// block_dim` x `block_cols * block_dim`.
#[derive(Debug)]
pub struct Bsr<T: Scalar> {
    pub(crate) block_rows: usize,
    pub(crate) block_cols: usize,
    pub(crate) block_dim: usize,
    pub(crate) order: BlockOrder,
    pub(crate) base: IndexBase,
    pub(crate) offsets: DeviceBuffer<i32>,
    pub(crate) indices: DeviceBuffer<i32>,
    pub(crate) values: DeviceBuffer<T>,
}

impl<T: Scalar> Bsr<T> {
    /// Checks the arrays (as CSR over blocks, with `block_dim`² values per
    /// stored block; `block_dim` at least 1; the full size within 32-bit
    /// indices) and uploads them on `stream`.
    #[allow(clippy::too_many_arguments)]
    pub fn from_host(
        stream: &Stream,
        (block_rows, block_cols, block_dim): (usize, usize, usize),
        order: BlockOrder,
        block_row_offsets: &[i32],
        block_col_indices: &[i32],
        values: &[T],
        base: IndexBase,
    ) -> Result<Bsr<T>> {
        Self::check_host(
            (block_rows, block_cols, block_dim),
            block_row_offsets,
            block_col_indices,
            values.len(),
            base,
        )?;
        Ok(Bsr {
            block_rows,
            block_cols,
            block_dim,
            order,
            base,
            offsets: stream.clone_htod(block_row_offsets)?,
            indices: stream.clone_htod(block_col_indices)?,
            values: stream.clone_htod(values)?,
        })
    }

    /// The checks of [`from_host`](Self::from_host), without a GPU.
    pub fn check_host(
        (block_rows, block_cols, block_dim): (usize, usize, usize),
        block_row_offsets: &[i32],
        block_col_indices: &[i32],
        values_len: usize,
        base: IndexBase,
    ) -> Result<()> {
        const OP: &str = "Bsr::from_host";
        validate::dimension(OP, "block_rows", block_rows)?;
        validate::dimension(OP, "block_cols", block_cols)?;
        validate::dimension(OP, "block_dim", block_dim)?;
        for (name, blocks) in [("rows", block_rows), ("cols", block_cols)] {
            let full = blocks.saturating_mul(block_dim);
            validate::dimension(OP, name, full)?;
        }
        validate::compressed(
            OP,
            ("block row", block_rows),
            ("block column", block_cols),
            block_row_offsets,
            block_col_indices,
            values_len,
            block_dim * block_dim,
            base,
        )
    }

    /// Rows (`block_rows * block_dim`).
    pub fn rows(&self) -> usize {
        self.block_rows * self.block_dim
    }

    /// Columns (`block_cols * block_dim`).
    pub fn cols(&self) -> usize {
        self.block_cols * self.block_dim
    }

    /// Stored blocks.
    pub fn nnz_blocks(&self) -> usize {
        self.indices.len()
    }

    /// The side of each block.
    pub fn block_dim(&self) -> usize {
        self.block_dim
    }
}

/// A BSR matrix of 1 x 1 blocks read as the CSR matrix it is (cuSPARSE's
/// bsrmv takes only blocks larger than 1).
#[derive(Debug)]
pub(crate) struct BsrAsCsr<'a, T: Scalar>(pub(crate) &'a Bsr<T>);

impl<T: Scalar> SparseMatrix<T> for BsrAsCsr<'_, T> {
    fn rows(&self) -> usize {
        self.0.rows()
    }
    fn cols(&self) -> usize {
        self.0.cols()
    }
    fn nnz(&self) -> usize {
        self.0.values.len()
    }
    fn index_base(&self) -> IndexBase {
        self.0.base
    }
    fn device_ordinal(&self) -> usize {
        self.0.values.device().ordinal()
    }
    fn descriptor(&self) -> Result<SpMat> {
        let a = self.0;
        debug_assert_eq!(a.block_dim, 1);
        // SAFETY: with blocks of 1 the BSR arrays are a checked CSR matrix
        // of the same sizes, which outlives the descriptor.
        unsafe {
            SpMat::csr(
                (a.rows(), a.cols(), a.values.len()),
                a.offsets.as_device_ptr(),
                a.indices.as_device_ptr(),
                a.values.as_device_ptr(),
                a.base,
                T::DATA_TYPE,
            )
        }
    }
    fn access_events(&self) -> Vec<&AccessEvents> {
        vec![
            self.0.offsets.access_events(),
            self.0.indices.access_events(),
            self.0.values.access_events(),
        ]
    }
}

/// Refuses an operand on another device than the handle's.
pub(crate) fn same_device(op: &'static str, what: &str, got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(Error::invalid(
            op,
            format!("{what} is on device {got}, the handle's stream on device {want}"),
        ));
    }
    Ok(())
}
