//! Safe random number generation on the GPU with hipRAND (cuRAND on the
//! NVIDIA platform), filling `hip` device memory.
//!
//! A [`Generator`] is one hipRAND generator on one [`hip::Stream`]: the
//! pseudo-random XORWOW, MRG32k3a, MTGP32, MT19937 and Philox4x32-10 and
//! the quasi-random Sobol32 ([`RngType`]), with seed, offset, ordering,
//! dimensions and stream. Its fills write any `hip` device memory
//! ([`hip::DeviceMemoryMut`]: buffers, slices, stream allocations) with
//! uniform, normal and log-normal values (`f32`, `f64`, `half::f16`),
//! Poisson counts and raw 32-bit integers, asynchronously on its stream.
//!
//! The library's rules are checked before any call ([`validate`]): normal and
//! log-normal fills from pseudo-random generators need an even length and a
//! buffer aligned to two elements (values come in Box–Muller pairs);
//! quasi-random fills a multiple of the dimensions; MTGP32 and MT19937
//! cannot skip ahead; Sobol has no seed; the buffer must be on the
//! generator's device. Each refusal is an [`Error::Invalid`] saying what
//! was wrong.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use hiprand::{Generator, RngType};
//! let dev = hip::Device::get(0)?;
//! let stream = hip::Stream::new(&dev)?;
//! let mut rng = Generator::new(&stream, RngType::Xorwow)?;
//! rng.set_seed(42)?;
//! let mut noise = hip::DeviceBuffer::<f32>::zeroed(&dev, 1 << 20)?;
//! rng.fill_normal(&mut noise, 0.0, 1.0)?;
//! let host = stream.clone_dtoh(&noise)?;
//! println!("first value {}", host[0]);
//! # Ok(()) }
//! ```
//!
//! Layers: [`Generator`] is the safe layer; [`result`] is the thin one
//! under it (one function per hipRAND call, the status made a
//! [`Result`]), the only code that calls the raw bindings, `hiprand_sys`.
#![deny(missing_docs)]

mod error;
mod generator;
mod kind;
mod real;
pub mod result;
pub mod validate;

pub use error::{take_drop_errors, Error, Result};
pub use generator::Generator;
pub use kind::{Ordering, RngType};
pub use real::Real;
pub use validate::Distribution;

/// The raw bindings this crate is built on.
pub use hiprand_sys as sys;

/// The README's examples, compiled and run by `cargo test --doc`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
