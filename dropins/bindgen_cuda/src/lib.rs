//! A drop-in for the [bindgen_cuda](https://crates.io/crates/bindgen_cuda)
//! kernel builder (0.1.6's API), for crates whose build script compiles
//! CUDA kernels with it (candle-kernels up to 0.9, candle-flash-attn,
//! candle-rotary), built on [the cudaforge drop-in](cudaforge): the same
//! kernels from nvcc here, from a job run on a machine with nvcc, or, for
//! `cargo check`, from placeholders.
//!
//! Patched in for every crate of a build:
//!
//! ```toml
//! [patch.crates-io]
//! bindgen_cuda = { git = "https://github.com/hip-rs/hip-rs" }   # or { path = "dropins/bindgen_cuda" }
//! ```
//!
//! The build scripts stay as they are:
//!
//! ```no_run
//! // In a build script: one PTX file per `src/**/*.cu`, and a Rust file of
//! // constants naming them.
//! let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
//! let bindings = bindgen_cuda::Builder::default()
//!     .arg("-O3")
//!     .build_ptx()
//!     .unwrap();
//! bindings.write(out.join("ptx.rs")).unwrap();
//! ```
//!
//! Where the kernels come from, and the variables that choose, are
//! cudaforge's ([`cudaforge::KernelBuilder`]); what differs from
//! bindgen_cuda is listed in this package's README.

mod bindings;
mod builder;
mod error;

pub use bindings::Bindings;
pub use builder::Builder;
pub use error::Error;
