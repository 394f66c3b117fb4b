//! Safe FFTs on the GPU through hipFFT (cuFFT on the NVIDIA platform).
//!
//! A [`Plan`] is made once by a [`PlanBuilder`] (1, 2 or 3 dimensions, a
//! batch, optional strided layouts as in `hipfftPlanMany`, in or out of
//! place, a work area hipFFT allocates or one you give) and executed on its
//! stream any number of times: C2C in both directions, R2C forward, C2R
//! inverse, in `f32` or `f64`, on [`hip`] buffers of `T` or
//! [`Complex<T>`](hip::Complex). Every execution checks the buffers'
//! element types, lengths and devices against the plan before calling
//! hipFFT, so a wrong buffer is an [`Error::Invalid`], never a fault.
//!
//! Layers: [`Plan`] and [`PlanBuilder`] are the safe layer; [`result`] is
//! the thin one under it (one function per hipFFT call, the status made a
//! [`Result`]), the only code that calls [`sys`]; `sys` is the raw
//! bindings.
//!
//! **Scaling**: transforms are unnormalised, as in hipFFT, cuFFT and FFTW.
//! `inverse(forward(x)) = n * x`, with `n` the product of the sizes:
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use hip::{DeviceBuffer, Stream};
//! use hipfft::{PlanBuilder, Transform};
//! let device = hip::Device::get(0)?;
//! let stream = Stream::new(&device)?;
//! let n = 1000;
//! let r2c = PlanBuilder::<f64>::new(Transform::R2C, &[n]).build(&stream)?;
//! let c2r = PlanBuilder::<f64>::new(Transform::C2R, &[n]).build(&stream)?;
//! let x: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
//! let input = stream.clone_htod(&x)?;
//! let mut spectrum = DeviceBuffer::<hip::c64>::zeroed(&device, r2c.output_len())?; // n/2 + 1
//! let mut back = DeviceBuffer::<f64>::zeroed(&device, n)?;
//! r2c.execute_forward(&input, &mut spectrum)?;
//! c2r.execute_inverse(&mut spectrum, &mut back)?;
//! let back = stream.clone_dtoh(&back)?;
//! assert!((back[10] / n as f64 - x[10]).abs() < 1e-9);
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

mod error;
mod layout;
mod plan;
pub mod result;

pub use error::{take_drop_errors, Error, Result};
pub use layout::{half_complex_dims, Layout, Transform};

/// Hooks for the `fuzz/` targets (built only under cargo-fuzz's
/// `--cfg fuzzing`): the plan geometry's checks, reachable without a GPU
/// and without widening the public API.
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing {
    use crate::{Layout, Result, Transform};

    /// A plan's geometry as [`PlanBuilder`](crate::PlanBuilder) checks it.
    #[derive(Clone, Debug)]
    pub struct Resolved {
        /// The input side's layout, defaults filled in.
        pub input: Layout,
        /// The output side's layout, defaults filled in.
        pub output: Layout,
        /// Logical sizes on the input side.
        pub input_dims: Vec<usize>,
        /// Logical sizes on the output side.
        pub output_dims: Vec<usize>,
        /// Elements the input reaches.
        pub input_len: usize,
        /// Elements the output reaches.
        pub output_len: usize,
    }

    /// Resolves and checks a plan's geometry.
    pub fn resolve(
        transform: Transform,
        dims: &[usize],
        batch: usize,
        in_place: bool,
        input: Option<Layout>,
        output: Option<Layout>,
    ) -> Result<Resolved> {
        let s = crate::layout::resolve(transform, dims, batch, in_place, input, output)?;
        Ok(Resolved {
            input: s.input,
            output: s.output,
            input_dims: s.input_dims,
            output_dims: s.output_dims,
            input_len: s.input_len,
            output_len: s.output_len,
        })
    }
}
pub use plan::{Float, Plan, PlanBuilder, WorkArea};

/// The raw bindings this crate is built on.
pub use hipfft_sys as sys;

/// The README's examples, compiled and run by `cargo test --doc`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
