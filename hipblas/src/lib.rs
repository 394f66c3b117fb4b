//! Safe hipBLAS: the GEMM family and the level-1/2 routines people use, on
//! AMD GPUs (rocBLAS behind hipBLAS) and NVIDIA GPUs (cuBLAS, through
//! hipblas-sys's backend, with `HIP_PLATFORM=nvidia`).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use hip::{Device, Stream};
//! use hipblas::{Blas, GemmShape, Op};
//! let dev = Device::get(0)?;
//! let stream = Stream::new(&dev)?;
//! let blas = Blas::new(&stream)?;
//! let (m, n, k) = (64, 32, 16);
//! let a = stream.clone_htod(&vec![1.0f32; m * k])?;
//! let b = stream.clone_htod(&vec![1.0f32; k * n])?;
//! let mut c = stream.alloc_zeroed::<f32>(m * n)?;
//! // C = A B, column-major, tight leading dimensions.
//! blas.gemm(&GemmShape::new(Op::N, Op::N, m, n, k), 1.0, &a, &b, 0.0, &mut c)?;
//! assert_eq!(stream.clone_dtoh(&c)?[0], k as f32);
//! # Ok(()) }
//! ```
//!
//! - **Column-major**, as BLAS; [`Blas::gemm_row_major`] serves row-major
//!   data by computing the transposed product (no silent transposes).
//! - **Checked before the call**: shapes, leading dimensions, strides,
//!   batch counts, increments, buffer lengths and devices; the error names
//!   the call and the offending value ([`Error::Invalid`]).
//! - **Layers**: [`result`] has one thin function per hipBLAS function the
//!   safe layer calls, each status made a [`Result`] naming the C function;
//!   [`Blas`] calls hipBLAS only through it.
//! - **Element types**: f32, f64, `half::f16`, `half::bf16`, [`c32`],
//!   [`c64`]; mixed precision with [`Blas::gemm_ex`] ([`Compute`]).
//! - Work is enqueued on the handle's [`hip::Stream`]; results of level-1
//!   reductions (`dot`, `nrm2`, ...) are returned to the host, which waits.
#![warn(missing_docs)]

mod blas;
mod error;
pub mod result;
mod routines;
mod scalar;
pub mod validate;

pub use blas::Blas;
pub use error::{take_drop_errors, Error, Result};
pub use routines::Blas1;
pub use scalar::{c32, c64, Complex, Gemm, Scalar};
pub use validate::{GemmShape, GemmSpans};

/// The raw bindings this crate is built on.
pub use hipblas_sys as sys;

/// The README's examples, compiled and run by `cargo test --doc`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

use hipblas_sys::*;

/// The operation applied to a matrix operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// As stored (`HIPBLAS_OP_N`).
    N,
    /// Transposed (`HIPBLAS_OP_T`).
    T,
    /// Conjugate-transposed (`HIPBLAS_OP_C`; same as `T` for real types).
    C,
}

impl Op {
    /// hipBLAS's value.
    pub const fn raw(self) -> hipblasOperation_t {
        match self {
            Op::N => hipblasOperation_t::HIPBLAS_OP_N,
            Op::T => hipblasOperation_t::HIPBLAS_OP_T,
            Op::C => hipblasOperation_t::HIPBLAS_OP_C,
        }
    }
}

/// Which triangle of a triangular matrix is referenced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fill {
    /// `HIPBLAS_FILL_MODE_UPPER`.
    Upper,
    /// `HIPBLAS_FILL_MODE_LOWER`.
    Lower,
}

impl Fill {
    /// hipBLAS's value.
    pub const fn raw(self) -> hipblasFillMode_t {
        match self {
            Fill::Upper => hipblasFillMode_t::HIPBLAS_FILL_MODE_UPPER,
            Fill::Lower => hipblasFillMode_t::HIPBLAS_FILL_MODE_LOWER,
        }
    }
}

/// Whether a triangular matrix has an implicit unit diagonal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Diag {
    /// The diagonal is read (`HIPBLAS_DIAG_NON_UNIT`).
    NonUnit,
    /// The diagonal is taken as ones (`HIPBLAS_DIAG_UNIT`).
    Unit,
}

impl Diag {
    /// hipBLAS's value.
    pub const fn raw(self) -> hipblasDiagType_t {
        match self {
            Diag::NonUnit => hipblasDiagType_t::HIPBLAS_DIAG_NON_UNIT,
            Diag::Unit => hipblasDiagType_t::HIPBLAS_DIAG_UNIT,
        }
    }
}

/// Which side the triangular matrix multiplies from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// `op(A) X = alpha B` (`HIPBLAS_SIDE_LEFT`).
    Left,
    /// `X op(A) = alpha B` (`HIPBLAS_SIDE_RIGHT`).
    Right,
}

impl Side {
    /// hipBLAS's value.
    pub const fn raw(self) -> hipblasSideMode_t {
        match self {
            Side::Left => hipblasSideMode_t::HIPBLAS_SIDE_LEFT,
            Side::Right => hipblasSideMode_t::HIPBLAS_SIDE_RIGHT,
        }
    }
}

/// The handle's math mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathMode {
    /// The library's default: fastest kernels at the data's precision.
    Default,
    /// Exactly the data's precision, no reduced-precision shortcuts.
    Pedantic,
    /// f32 routines may use TF32 tensor cores (cuBLAS).
    Tf32,
}

impl MathMode {
    /// hipBLAS's value.
    pub const fn raw(self) -> hipblasMath_t {
        match self {
            MathMode::Default => hipblasMath_t::HIPBLAS_DEFAULT_MATH,
            MathMode::Pedantic => hipblasMath_t::HIPBLAS_PEDANTIC_MATH,
            MathMode::Tf32 => hipblasMath_t::HIPBLAS_TF32_TENSOR_OP_MATH,
        }
    }

    /// The mode for hipBLAS's value, when it is one of these.
    pub const fn from_raw(m: hipblasMath_t) -> Option<MathMode> {
        match m {
            hipblasMath_t::HIPBLAS_DEFAULT_MATH => Some(MathMode::Default),
            hipblasMath_t::HIPBLAS_PEDANTIC_MATH => Some(MathMode::Pedantic),
            hipblasMath_t::HIPBLAS_TF32_TENSOR_OP_MATH => Some(MathMode::Tf32),
            _ => None,
        }
    }
}

/// How a mixed-precision GEMM ([`Blas::gemm_ex`]) accumulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Compute {
    /// f16 accumulation (f16 inputs and output).
    F16,
    /// f32 accumulation: f16/bf16/f32 inputs, f16/bf16/f32 output.
    F32,
    /// f32 data through TF32 tensor cores (about 1e-3 relative error).
    F32FastTf32,
    /// f32 data, may be rounded to f16 for tensor cores.
    F32Fast16F,
    /// f32 data, may be rounded to bf16 for tensor cores.
    F32Fast16BF,
    /// f64 accumulation (f64 data).
    F64,
}

impl Compute {
    /// hipBLAS's v2 compute type.
    pub const fn raw(self) -> hipblasComputeType_t {
        match self {
            Compute::F16 => hipblasComputeType_t::HIPBLAS_COMPUTE_16F,
            Compute::F32 => hipblasComputeType_t::HIPBLAS_COMPUTE_32F,
            Compute::F32FastTf32 => hipblasComputeType_t::HIPBLAS_COMPUTE_32F_FAST_TF32,
            Compute::F32Fast16F => hipblasComputeType_t::HIPBLAS_COMPUTE_32F_FAST_16F,
            Compute::F32Fast16BF => hipblasComputeType_t::HIPBLAS_COMPUTE_32F_FAST_16BF,
            Compute::F64 => hipblasComputeType_t::HIPBLAS_COMPUTE_64F,
        }
    }

    /// The v1 API's compute type (a datatype); the fast modes have none.
    pub fn raw_v1(self) -> Result<hipblasDatatype_t> {
        self.raw_v1_for("Compute::raw_v1")
    }

    /// [`Compute::raw_v1`] for the operation `op`.
    pub(crate) fn raw_v1_for(self, op: &'static str) -> Result<hipblasDatatype_t> {
        match self {
            Compute::F16 => Ok(hipblasDatatype_t::HIPBLAS_R_16F),
            Compute::F32 => Ok(hipblasDatatype_t::HIPBLAS_R_32F),
            Compute::F64 => Ok(hipblasDatatype_t::HIPBLAS_R_64F),
            other => Err(Error::unsupported(
                op,
                format!("{other:?} compute needs hipBLAS's v2 GemmEx (hipBLAS 2.0 or later)"),
            )),
        }
    }

    /// Checks the input/output types this compute type serves.
    pub fn check_types(self, input: &'static str, output: &'static str) -> Result<()> {
        self.check_types_for("Compute::check_types", input, output)
    }

    /// [`Compute::check_types`] for the operation `op`.
    pub(crate) fn check_types_for(
        self,
        op: &'static str,
        input: &'static str,
        output: &'static str,
    ) -> Result<()> {
        let ok = match self {
            Compute::F16 => input == "f16" && output == "f16",
            Compute::F32 => {
                matches!(input, "f16" | "bf16" | "f32")
                    && matches!(output, "f16" | "bf16" | "f32")
                    && (input == output || output == "f32")
            }
            Compute::F32FastTf32 | Compute::F32Fast16F | Compute::F32Fast16BF => {
                input == "f32" && output == "f32"
            }
            Compute::F64 => input == "f64" && output == "f64",
        };
        if ok {
            Ok(())
        } else {
            Err(Error::unsupported(
                op,
                format!("GemmEx with {input} inputs, {output} output and {self:?} compute"),
            ))
        }
    }
}

impl GemmShape {
    /// The column-major shape that computes a row-major product: for
    /// row-major `op(A)` (`m x k`), `op(B)` (`k x n`), `C` (`m x n`) with row
    /// strides `lda`, `ldb`, `ldc`, the column-major `Cᵀ = op(B)ᵀ op(A)ᵀ`
    /// has `m` and `n` swapped and B first. Used by
    /// [`Blas::gemm_row_major`], which also swaps the buffers.
    pub fn row_major_as_column_major(&self) -> GemmShape {
        GemmShape {
            transa: self.transb,
            transb: self.transa,
            m: self.n,
            n: self.m,
            k: self.k,
            lda: self.ldb,
            ldb: self.lda,
            ldc: self.ldc,
        }
    }

    /// Row-major shape with the tightest row strides (`lda` = columns of A
    /// as stored, ...), for [`Blas::gemm_row_major`].
    pub fn row_major(transa: Op, transb: Op, m: usize, n: usize, k: usize) -> GemmShape {
        let (_, ac) = validate::stored(transa, m, k);
        let (_, bc) = validate::stored(transb, k, n);
        GemmShape {
            transa,
            transb,
            m,
            n,
            k,
            lda: ac.max(1),
            ldb: bc.max(1),
            ldc: n.max(1),
        }
    }
}
