//! Safe sparse linear algebra on the GPU through hipSPARSE (cuSPARSE on the
//! NVIDIA platform).
//!
//! - **Matrices** ([`Csr`], [`Csc`], [`Coo`], [`Bsr`]) are made from host
//!   arrays that are checked first: shape, `nnz` (offsets, indices and
//!   values agree), index base, indices in range, and sorted unique indices
//!   within each row (column); a malformed matrix is an
//!   [`Error::Invalid`] and hipSPARSE is never called with it.
//! - **Operations** on a [`Sparse`] handle, enqueued on its stream, with
//!   every work buffer sized and owned by the handle: [`Sparse::spmv`],
//!   [`Sparse::spmm`], [`Sparse::spgemm`], the triangular solves
//!   [`Sparse::spsv`] and [`Sparse::spsm`], [`Sparse::to_dense`] and
//!   [`Sparse::dense_to_csr`], and [`Sparse::bsrmv`] for BSR.
//! - **Types**: `f32`, `f64`, [`hip::c32`], [`hip::c64`] ([`Scalar`]),
//!   32-bit indices.
//!
//! Layers: the safe types; [`result`], the thin layer under them (statuses
//! made [`Result`]s, descriptors that destroy themselves); [`sys`], the raw
//! bindings.
//!
//! ```no_run
//! # fn main() -> hipsparse::Result<()> {
//! use hipsparse::{Csr, DenseLayout, IndexBase, Operation, Sparse};
//! let stream = hip::Stream::new(&hip::Device::get(0)?)?;
//! let sparse = Sparse::new(&stream)?;
//! // [[1, 0], [0, 2]] times the 2 x 3 column-major B of ones.
//! let a = Csr::from_host(&stream, 2, 2, &[0, 1, 2], &[0, 1], &[1.0f32, 2.0], IndexBase::Zero)?;
//! let b = stream.clone_htod(&[1.0f32; 6])?;
//! let mut c = stream.alloc_zeroed::<f32>(6)?;
//! let (lb, lc) = (DenseLayout::col_major(2, 3), DenseLayout::col_major(2, 3));
//! sparse.spmm(Operation::NonTranspose, 1.0, &a, (lb, &b), 0.0, (lc, &mut c))?;
//! assert_eq!(stream.clone_dtoh(&c)?, [1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

mod dense;
mod error;
mod matrix;
pub mod result;
mod scalar;
mod sparse;
mod validate;

pub use dense::{DenseLayout, Order};
pub use error::{take_drop_errors, Error, Result};
pub use matrix::{BlockOrder, Bsr, Coo, Csc, Csr, IndexBase, SparseMatrix};
pub use scalar::Scalar;
pub use sparse::{Diagonal, Operation, Sparse, Triangle};

/// The raw bindings this crate is built on.
pub use hipsparse_sys as sys;
