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

// cudarc features whose libraries have no binding here: a dependent that
// turns one on means to use it, so the build stops and names it instead of
// failing later on a missing path (or running without it).
macro_rules! not_provided {
    ($($feature:literal: $what:literal;)*) => {$(
        #[cfg(feature = $feature)]
        compile_error!(concat!(
            "cudarc feature `", $feature, "`: ", $what,
            " is not provided by hip-rs's cudarc drop-in (over HIP); build without this feature"
        ));
    )*};
}

not_provided! {
    "cudnn": "cuDNN (MIOpen has no binding yet)";
    "cudnn-08009": "cuDNN (MIOpen has no binding yet)";
    "cudnn-09010": "cuDNN (MIOpen has no binding yet)";
    "cudnn-09021": "cuDNN (MIOpen has no binding yet)";
    "cudnn-version-from-build-system": "cuDNN (MIOpen has no binding yet)";
    "cutensor": "cuTENSOR (hipTensor has no binding yet)";
    "cutensor-02003": "cuTENSOR (hipTensor has no binding yet)";
    "cutensor-02004": "cuTENSOR (hipTensor has no binding yet)";
    "cutensor-02005": "cuTENSOR (hipTensor has no binding yet)";
    "cutensor-02006": "cuTENSOR (hipTensor has no binding yet)";
    "cutensor-version-from-build-system": "cuTENSOR (hipTensor has no binding yet)";
    "cusolvermg": "cuSOLVERMg";
    "cufile": "cuFile (GPUDirect Storage)";
    "cupti": "CUPTI";
    "f4": "the 4-bit float element types";
}
