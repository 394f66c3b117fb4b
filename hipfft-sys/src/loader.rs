//! Finding, opening and reporting the FFT library behind the raw functions.
//!
//! The first raw call (or [`hipfft`]) loads the HIP runtime through hip-sys
//! (which chooses the platform), then hip-sys's loader core
//! ([`hip_sys::loader::load_library`]) opens, from the places that
//! platform's libraries are searched:
//!
//! - **AMD**: `libhipfft.so.0` (the soname of Debian's `libhipfft0` 6.4.3)
//!   or `libhipfft.so` (`hipfft.dll` on Windows), every symbol resolved
//!   once;
//! - **NVIDIA**: cuFFT's `libcufft.so.12` (CUDA 13 and CUDA 12 both ship
//!   that soname), else `.so.11` (CUDA 11), with each hipFFT function
//!   adapted to its cuFFT counterpart (see `NVIDIA_COVERAGE.md`).
//!
//! Nothing here panics: when nothing can be loaded every raw function
//! returns `HIPFFT_SETUP_FAILED` and [`hipfft`] returns a [`LoadError`]
//! listing every path tried.

use crate::generated::functions::HipfftFunctions;
use hip_sys::loader::common::{Library, LibraryNames, LibrarySpec};

/// hipFFT as hip-sys's loader core knows it: the file names per platform
/// and what to install when they are missing.
pub const SPEC: LibrarySpec = LibrarySpec {
    name: "hipFFT",
    amd: LibraryNames {
        role: "hipFFT",
        unix: &["libhipfft.so.0", "libhipfft.so"],
        windows: &["hipfft.dll"],
    },
    nvidia: LibraryNames {
        role: "cuFFT",
        unix: &["libcufft.so.12", "libcufft.so.11", "libcufft.so"],
        windows: &["cufft64_12.dll", "cufft64_11.dll"],
    },
    amd_hint: "Install hipFFT (e.g. Debian's libhipfft0, or ROCm's hipfft package).",
    nvidia_hint: "Install cuFFT (libcufft.so.12, part of the CUDA toolkit or the nvidia-cufft wheel) where the system loader finds it.",
};

/// The loaded FFT library: platform, library, version (from the file name,
/// e.g. `libhipfft.so.0.1`), every path tried, and the function table
/// (`is_available`, `available_count`). It is the loader core's record,
/// which every library built on the HIP runtime shares.
pub type Hipfft = Library<HipfftFunctions>;

hip_sys::lazy_library! {
    static HIPFFT: HipfftFunctions = (SPEC, crate::amd::load, crate::nvidia::load);
    "hipFFT" or "cuFFT";
    pub fn hipfft() -> Hipfft;
    pub(crate) fn hipfft_table();
}

#[cfg(test)]
mod tests {
    /// Neither backend imports the loader that chooses between them.
    #[test]
    fn backends_do_not_import_the_loader() {
        test_kit::assert_sources_do_not_name(
            env!("CARGO_MANIFEST_DIR"),
            &[
                "amd.rs",
                "nvidia/mod.rs",
                "nvidia/convert.rs",
                "nvidia/adapters.rs",
            ],
            "crate::loader",
        );
    }

    #[test]
    fn the_spec_names_every_platforms_library() {
        let spec = super::SPEC;
        assert_eq!(spec.amd.unix[0], "libhipfft.so.0");
        assert_eq!(spec.nvidia.unix[0], "libcufft.so.12");
        assert_eq!(spec.amd.windows, ["hipfft.dll"]);
    }
}
