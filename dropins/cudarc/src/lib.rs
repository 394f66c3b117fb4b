//! [cuda-compat](cuda_compat) under the name `cudarc`, for
//! programs that get cudarc through another crate (candle, and what is
//! built on it): patched in, it replaces cudarc for every crate of the
//! build, with no edit to any of them.
//!
//! ```toml
//! [patch.crates-io]
//! cudarc = { git = "https://github.com/hip-rs/hip-rs" }   # or { path = "path/to/hip-rs/dropins/cudarc" }
//! ```
//!
//! Its version is the cudarc release cuda-compat mirrors, so that a
//! dependent's `cudarc = "0.19.x"` accepts it; every cudarc feature is
//! accepted and forwarded to cuda-compat's feature of the same name.

pub use cuda_compat::*;
