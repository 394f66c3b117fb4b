//! Dense linear algebra on the GPU through hipSOLVER (cuSOLVER on the
//! NVIDIA platform): LU, Cholesky, QR, SVD and symmetric eigenvalues, in
//! `f32`, `f64`, [`hip::c32`] and [`hip::c64`].
//!
//! - [`Solver`]: a handle bound to a [`hip::Stream`]; its routines
//!   ([`getrf`](Solver::getrf)/[`getrs`](Solver::getrs),
//!   [`potrf`](Solver::potrf)/[`potrs`](Solver::potrs) and their batched
//!   forms, [`geqrf`](Solver::geqrf)/[`orgqr`](Solver::orgqr)/
//!   [`ormqr`](Solver::ormqr), [`gesvd`](Solver::gesvd),
//!   [`gesvdj`](Solver::gesvdj) and its batched form,
//!   [`syevd`](Solver::syevd), [`syevj`](Solver::syevj) and its batched
//!   form) size, allocate and free their workspaces themselves.
//! - Matrices are column-major, described by a [`Layout`] (rows, columns,
//!   leading dimension); every shape, leading dimension, buffer length and
//!   device is checked before the library is called ([`Error::Invalid`]).
//! - The routine's `info` is read back and a nonzero one is an error that
//!   says what it means: [`Error::Singular`] ("U(3,3) is exactly zero"),
//!   [`Error::NotPositiveDefinite`] ("the leading minor of order 4 is not
//!   positive definite"), [`Error::NotConverged`].
//! - [`result`]: the raw calls as `Result`s, for what the safe layer does
//!   not wrap.
//!
//! ```no_run
//! # fn main() -> hipsolver::Result<()> {
//! use hipsolver::{Layout, Solver, Transpose};
//! let stream = hip::Stream::new(&hip::Device::get(0)?)?;
//! let solver = Solver::new(&stream)?;
//! // A = [[4, 1], [2, 3]] (column-major), b = [1, 2].
//! let mut a = stream.clone_htod(&[4.0f64, 2.0, 1.0, 3.0])?;
//! let mut b = stream.clone_htod(&[1.0f64, 2.0])?;
//! let pivots = solver.getrf(&mut a, Layout::square(2))?;
//! solver.getrs(Transpose::None, &a, Layout::square(2), &pivots, &mut b, Layout::new(2, 1))?;
//! let x = stream.clone_dtoh(&b)?;
//! assert!((x[0] - 0.1).abs() < 1e-12 && (x[1] - 0.6).abs() < 1e-12);
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

mod error;
pub mod result;
mod solver;
mod validate;

pub use error::{take_drop_errors, Error, Result};
pub use solver::{Scalar, Side, Solver, Svd, SvdVectors, Transpose, Uplo};
pub use validate::Layout;

/// The raw bindings this crate is built on.
pub use hipsolver_sys as sys;

/// The README's examples, compiled by `cargo test --doc`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The argument rules, for the tier-1 tests (not a stable API).
#[doc(hidden)]
pub mod __validate {
    pub use crate::validate::*;
}
