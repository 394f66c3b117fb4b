//! Finding, opening and reporting the hipBLASLt library behind the raw
//! functions.
//!
//! The first raw call (or [`hipblaslt`]) loads the HIP runtime through
//! hip-sys (which chooses the platform), then:
//!
//! - **AMD**: opens hipBLASLt, the newest soname first ([`SPEC`] lists the
//!   names), from the places hip-sys searches, checks that it was built for
//!   the HIP runtime the process loaded (a `libhipblaslt.so` that needs
//!   `libamdhip64.so.7` beside a loaded `libamdhip64.so.6` is refused, and
//!   the refusal, naming both files, is the attempt's outcome in the
//!   [`LoadError`]; see `compat.rs` for why the soname and not hipBLASLt's
//!   own version decides), then resolves every symbol once;
//! - **NVIDIA**: opens cuBLASLt ([`SPEC`]) and fills the table with this
//!   crate's adapters (see `NVIDIA_COVERAGE.md`).
//!
//! Nothing here panics: when nothing can be loaded every raw function
//! returns `HIPBLAS_STATUS_NOT_INITIALIZED` and [`hipblaslt`] returns a
//! [`LoadError`] listing every path tried.

use crate::generated::functions::HipblasltFunctions;
use hip_sys::loader::common::Library;
use hip_sys::loader::Platform;
use std::sync::OnceLock;

/// hipBLASLt's file names and install hints: generated from the manifest's
/// `[loader]` table (`build.rs-tools/generator/libraries/hipblaslt.toml`).
pub use crate::generated::spec::SPEC;

/// One library opened for hipBLASLt (role `"hipBLASLt"` or `"cuBLASLt"`):
/// the same record hip-sys keeps for the runtime.
pub use hip_sys::loader::LoadedLibrary;

/// The loaded matmul library: platform, library, version (from the file
/// name, e.g. `libhipblaslt.so.1.1`), every path tried, and the function
/// table (`is_available`, `available_count`). It is the loader core's
/// record, which every library built on the HIP runtime shares.
pub type Hipblaslt = Library<HipblasltFunctions>;

/// Why hipBLASLt could not be loaded: the loader core's report (the HIP
/// runtime's failure, or the platform, every path tried, a hipBLASLt built
/// for another HIP runtime, and what to install).
pub use hip_sys::loader::LoadError;

static HIPBLASLT: OnceLock<Result<Hipblaslt, LoadError>> = OnceLock::new();

/// The loaded hipBLASLt (or cuBLASLt), loading it (and the HIP runtime) on
/// first use.
pub fn hipblaslt() -> Result<&'static Hipblaslt, &'static LoadError> {
    HIPBLASLT.get_or_init(load).as_ref()
}

/// Whether hipBLASLt (or cuBLASLt) could be loaded (loading it on first
/// use).
pub fn is_available() -> bool {
    hipblaslt().is_ok()
}

/// The table every raw wrapper calls through: `None` when nothing could be
/// loaded.
#[inline]
pub(crate) fn hipblaslt_table() -> Option<&'static HipblasltFunctions> {
    hipblaslt().ok().map(|l| &l.table)
}

fn load() -> Result<Hipblaslt, LoadError> {
    hip_sys::loader::load_library(&SPEC, |platform, lib, path| match platform {
        Platform::Amd => {
            let runtime = hip_sys::loader::runtime().ok().and_then(|rt| {
                rt.libraries
                    .iter()
                    .find(|l| l.role == "HIP runtime")
                    .map(|l| l.path.clone())
            });
            if let Some(runtime) = runtime {
                // Only the headers and the dynamic section are read; a file
                // that cannot be read was opened anyway, so it is let through.
                if let Ok(file) = std::fs::File::open(path) {
                    let read = crate::compat::file_reader(file);
                    crate::compat::check(path, &read, &runtime)?;
                }
            }
            Ok(crate::amd::load(lib, path))
        }
        Platform::Nvidia => Ok(crate::nvidia::load(lib, path)),
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn backends_do_not_import_the_loader() {
        test_kit::assert_sources_do_not_name(
            env!("CARGO_MANIFEST_DIR"),
            &[
                "amd.rs",
                "nvidia/mod.rs",
                "nvidia/convert.rs",
                "nvidia/hand_written.rs",
                "generated/nvidia/adapters.rs",
            ],
            "crate::loader",
        );
    }

    #[test]
    fn the_spec_names_every_platforms_library() {
        test_kit::assert_library_spec(&super::SPEC);
    }
}
