//! Safe matmuls with fused epilogues on the GPU through hipBLASLt (cuBLASLt
//! on the NVIDIA platform).
//!
//! An [`LtHandle`] runs `D = act(alpha * op(A) * op(B) + beta * C + bias)`
//! on one stream: column- or row-major, transposes, leading dimensions and
//! strided batches ([`MatmulConfig`]), with a bias and a ReLU or GELU
//! ([`Epilogue`]) fused into the matmul's kernel. `f32`, `f16` and `bf16`
//! elements, accumulated in `f32`. The handle picks the algorithm with
//! hipBLASLt's heuristic once per problem and owns the workspace it needs.
//!
//! Every rule is checked before hipBLASLt is called, so a wrong size,
//! leading dimension, stride, buffer or bias is an [`Error::Invalid`]
//! naming the value, never a fault on the GPU.
//!
//! Layers: [`LtHandle`] is the safe layer; [`result`] is the thin one under
//! it (one function per hipBLASLt call, the status made a [`Result`]), the
//! only code that calls [`sys`]; `sys` is the raw bindings (hipblaslt-sys).
//!
//! This is a crate of its own rather than a module of `hipblas`: hipBLASLt
//! is a separate library (a 150 MB file, its own loader and NVIDIA backend)
//! that most hipBLAS users never load, and cudarc keeps `cublaslt` apart
//! from `cublas` the same way.
#![warn(missing_docs)]

mod error;
mod layout;
mod matmul;
pub mod result;

pub use error::{take_drop_errors, Error, Result};
pub use layout::{Activation, MatmulConfig, Order};
pub use matmul::{Epilogue, LtElement, LtHandle, MAX_WORKSPACE};

/// The raw bindings (the `hipblaslt-sys` crate).
pub use hipblaslt_sys as sys;

/// The README's examples, compiled by `cargo test --doc`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
