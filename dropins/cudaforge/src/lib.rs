//! A drop-in for the [cudaforge](https://crates.io/crates/cudaforge) kernel
//! builder (0.1.6's API), for crates whose build script compiles CUDA
//! kernels with it (candle-kernels) when the machine that builds the Rust
//! code has no nvcc.
//!
//! Patched in for every crate of a build:
//!
//! ```toml
//! [patch.crates-io]
//! cudaforge = { git = "https://github.com/hip-rs/hip-rs" }   # or { path = "dropins/cudaforge" }
//! ```
//!
//! The same build script then gets its kernels from nvcc when the machine
//! has one, or from a job run earlier on a machine that has nvcc, or, for
//! `cargo check` only, from placeholders that cannot link
//! ([`KernelBuilder`] says which and in what order).
//!
//! ```no_run
//! // In a build script:
//! let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap());
//! cudaforge::KernelBuilder::new()
//!     .source_dir("src")
//!     .arg("-O3")
//!     .build_ptx()?
//!     .write(out.join("ptx.rs"))?;
//! # Ok::<(), cudaforge::Error>(())
//! ```
//!
//! Not provided: fetching git dependencies (`with_cutlass`,
//! `with_git_dependency` make the build fail and say so; pass a checkout
//! with `include_path`), cudaforge's `BuildCache`, `DependencyManager` and
//! `ParallelConfig` types.

pub mod amd;
mod arch;
mod bounds;
mod builder;
pub mod envelope;
mod error;
mod exec;
mod plan;
mod sources;
mod toolkit;
mod translate;

pub use arch::{detect_compute_cap, get_gpu_arch_string, ComputeCapability, GpuArch};
pub use builder::{KernelBuilder, PtxOutput};
pub use error::{Error, Result};
pub use sources::SourceSelector;
pub use toolkit::CudaToolkit;
#[doc(hidden)]
pub use toolkit::NVCC_FRONT_MARKER;

/// cudaforge's other name for [`KernelBuilder`].
pub type Builder = KernelBuilder;
/// cudaforge's other name for [`PtxOutput`].
pub type Bindings = PtxOutput;
