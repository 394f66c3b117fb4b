//! Finding, opening and reporting the random number library behind the raw
//! functions.
//!
//! The first raw call (or [`hiprand`]) loads the HIP runtime through
//! hip-sys (which chooses the platform), then hip-sys's loader core
//! ([`hip_sys::loader::load_library`]) opens, from the places that
//! platform's libraries are searched:
//!
//! - **AMD**: `libhiprand.so.1` or `libhiprand.so` (`hiprand.dll` on
//!   Windows; the soname is the one hipRAND 6.4.3's CMake export names), and
//!   every symbol is resolved once;
//! - **NVIDIA**: cuRAND's `libcurand.so.10` (the soname of every CUDA from
//!   10 to 13), behind adapters that translate hipRAND's enum values.
//!
//! Nothing here panics: when nothing can be loaded every raw function
//! returns `HIPRAND_STATUS_INITIALIZATION_FAILED` and [`hiprand`] returns a
//! [`LoadError`] listing every path tried.

use crate::generated::functions::HiprandFunctions;
use hip_sys::loader::common::{Library, LibraryNames, LibrarySpec};

/// hipRAND as hip-sys's loader core knows it: the file names per platform
/// and what to install when they are missing.
pub const SPEC: LibrarySpec = LibrarySpec {
    name: "hipRAND",
    amd: LibraryNames {
        role: "hipRAND",
        unix: &["libhiprand.so.1", "libhiprand.so"],
        windows: &["hiprand.dll"],
    },
    nvidia: LibraryNames {
        role: "cuRAND",
        unix: &["libcurand.so.10", "libcurand.so"],
        windows: &["curand64_10.dll"],
    },
    amd_hint: "Install hipRAND (e.g. Debian's libhiprand1, or ROCm's hiprand package).",
    nvidia_hint: "Install cuRAND (libcurand.so.10, from the CUDA toolkit or the nvidia-curand wheel) where CUDA_PATH, CUDA_HOME or the system loader finds it.",
};

/// One library opened for hipRAND (role `"hipRAND"` or `"cuRAND"`).
pub use hip_sys::loader::LoadedLibrary;

/// The loaded random number library: platform, library, version (from the
/// file name), every path tried, and the function table (`is_available`,
/// `available_count`). The loader core's record, shared by every library
/// built on the HIP runtime.
pub type Hiprand = Library<HiprandFunctions>;

hip_sys::lazy_library! {
    static HIPRAND: HiprandFunctions = (SPEC, crate::amd::load, crate::nvidia::load);
    "hipRAND" or "cuRAND";
    pub fn hiprand() -> Hiprand;
    pub(crate) fn hiprand_table();
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
                "nvidia/translate.rs",
                "nvidia/adapters.rs",
            ],
            "crate::loader",
        );
    }

    #[test]
    fn the_spec_names_every_platforms_library() {
        let spec = super::SPEC;
        assert_eq!(spec.amd.unix, ["libhiprand.so.1", "libhiprand.so"]);
        assert_eq!(spec.nvidia.unix[0], "libcurand.so.10");
    }
}
