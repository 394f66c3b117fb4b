//! Finding, opening and reporting the collectives library behind the raw
//! functions.
//!
//! The first raw call (or [`rccl`]) loads the HIP runtime through hip-sys
//! (which chooses the platform), then hip-sys's loader core
//! ([`hip_sys::loader::load_library`]) opens, from the places that
//! platform's libraries are searched:
//!
//! - **AMD**: `librccl.so.1` or `librccl.so` (`rccl.dll` on Windows), and
//!   every symbol is resolved once;
//! - **NVIDIA**: NCCL's `libnccl.so.2`, resolved by the same names (RCCL
//!   keeps NCCL's names and arguments); RCCL's own calls are not looked up
//!   there ([`crate::RCCL_ONLY`]): three are built from NCCL's send/recv
//!   ([`crate::NVIDIA_ADAPTERS`]), `ncclCommInitRankMulti` is unavailable.
//!
//! Nothing here panics: when nothing can be loaded every raw function
//! returns `ncclSystemError` and [`rccl`] returns a [`LoadError`] listing
//! every path tried.

use crate::generated::functions::RcclFunctions;
use hip_sys::loader::common::{Library, LibraryNames, LibrarySpec};

/// RCCL as hip-sys's loader core knows it: the file names per platform and
/// what to install when they are missing.
pub const SPEC: LibrarySpec = LibrarySpec {
    name: "RCCL",
    amd: LibraryNames {
        role: "RCCL",
        unix: &["librccl.so.1", "librccl.so"],
        windows: &["rccl.dll"],
    },
    nvidia: LibraryNames {
        role: "NCCL",
        unix: &["libnccl.so.2", "libnccl.so"],
        // NCCL is not released for Windows.
        windows: &[],
    },
    amd_hint: "Install RCCL (e.g. Debian's librccl1).",
    nvidia_hint: "Install NCCL (libnccl.so.2, e.g. from the nvidia-nccl-cu12 wheel or the libnccl2 package) where the system loader finds it.",
};

/// One library opened for RCCL (role `"RCCL"` or `"NCCL"`): the same
/// record hip-sys keeps for the runtime.
pub use hip_sys::loader::LoadedLibrary;

/// The loaded collectives library: platform, libraries, version (from the
/// file name, e.g. `librccl.so.1.0.50403`; `ncclGetVersion` gives the NCCL
/// API's), every path tried, and the function table (`is_available`,
/// `available_count`; on NVIDIA `ncclCommInitRankMulti` is unavailable).
/// It is the loader core's record, which every library built on the HIP
/// runtime shares.
pub type Rccl = Library<RcclFunctions>;

hip_sys::lazy_library! {
    static RCCL: RcclFunctions = (SPEC, crate::amd::load, crate::nvidia::load);
    "RCCL" or "NCCL";
    pub fn rccl() -> Rccl;
    pub(crate) fn rccl_table();
}

#[cfg(test)]
mod tests {
    /// Neither backend imports the loader that chooses between them.
    #[test]
    fn backends_do_not_import_the_loader() {
        test_kit::assert_sources_do_not_name(
            env!("CARGO_MANIFEST_DIR"),
            &["amd.rs", "nvidia/mod.rs", "nvidia/rccl_only.rs"],
            "crate::loader",
        );
    }

    #[test]
    fn the_spec_names_every_platforms_library() {
        let spec = super::SPEC;
        assert_eq!(spec.amd.unix, ["librccl.so.1", "librccl.so"]);
        assert_eq!(spec.nvidia.unix[0], "libnccl.so.2");
        assert_eq!(spec.amd.windows, ["rccl.dll"]);
    }
}
