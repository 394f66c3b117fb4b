//! Finding, opening and reporting the hipBLAS library behind the raw
//! functions.
//!
//! The first raw call (or [`hipblas`]) loads the HIP runtime through hip-sys
//! (which chooses the platform), then:
//!
//! - **AMD**: opens hipBLAS, the newest soname first ([`SPEC`] lists the
//!   names), from the places hip-sys searches ([`hip_sys::loader::search`]),
//!   and resolves every symbol once;
//! - **NVIDIA**: opens cuBLAS ([`SPEC`]) and fills the table with this
//!   crate's adapters (see `NVIDIA_COVERAGE.md`).
//!
//! Nothing here panics: when nothing can be loaded every raw function
//! returns `HIPBLAS_STATUS_NOT_INITIALIZED` and [`hipblas`] returns a
//! [`LoadError`] listing every path tried.
//!
//! # The two `GemmEx` ABIs
//!
//! hipBLAS 2.x exports both `hipblasGemmEx` (v1: `hipblasDatatype_t`, values
//! from 150) and `hipblasGemmEx_v2` (`hipDataType` + `hipblasComputeType_t`);
//! hipBLAS 3.x exports only the plain name, with the v2 signature; hipBLAS
//! before 2.0 has only v1. The same holds for every `...Ex` function. These
//! bindings keep both forms apart: the binding `hipblasGemmEx` always has the
//! v1 signature and `hipblasGemmEx_v2` the v2 one. Which symbol serves which
//! binding is decided from the loaded library's major version (read from its
//! file name) — see [`DatatypeAbi`] — and when the version cannot be told and
//! the library has no `_v2` symbols, neither form of those functions is bound
//! rather than guessing.

pub use crate::abi::{is_datatype_function, plain_of_v2, symbol_for, v2_binding_of, DatatypeAbi};

use crate::generated::functions::HipblasFunctions;
use hip_sys::loader::common::Library;
use hip_sys::loader::search::Attempt;
use hip_sys::loader::{Platform, Version};
use std::fmt;
use std::sync::{Arc, OnceLock};

/// hipBLAS's file names and install hints: generated from the manifest's
/// `[loader]` table (`build.rs-tools/generator/libraries/hipblas.toml`).
pub use crate::generated::spec::SPEC;

/// One library opened for hipBLAS (role `"hipBLAS"` or `"cuBLAS"`): the
/// same record hip-sys keeps for the runtime.
pub use hip_sys::loader::LoadedLibrary;

/// The loaded hipBLAS: platform, library, version and how it was found.
pub struct Hipblas {
    /// The HIP platform (from hip-sys).
    pub platform: Platform,
    /// The libraries opened.
    pub libraries: Vec<LoadedLibrary>,
    /// hipBLAS's version (from the file name) on AMD; cuBLAS's on NVIDIA.
    pub version: Option<Version>,
    /// Which signature the `...Ex` symbols were bound with.
    pub datatype_abi: DatatypeAbi,
    /// Every path tried, in order.
    pub attempts: Vec<Attempt>,
    pub(crate) table: HipblasFunctions,
    _handles: Vec<Arc<libloading::Library>>,
}

impl fmt::Debug for Hipblas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Hipblas")
            .field("platform", &self.platform)
            .field("libraries", &self.libraries)
            .field("version", &self.version)
            .field("datatype_abi", &self.datatype_abi)
            .field("functions", &self.table)
            .finish_non_exhaustive()
    }
}

impl Hipblas {
    /// Whether the function of this C name is available (false for unknown
    /// names).
    pub fn is_available(&self, name: &str) -> bool {
        self.table.is_available(name)
    }

    /// How many of the bound functions are available.
    pub fn available_count(&self) -> usize {
        self.table.available_count()
    }
}

/// Why hipBLAS could not be loaded: the loader core's report (the HIP
/// runtime's failure, or the platform, every path tried and what to
/// install).
pub use hip_sys::loader::LoadError;

static HIPBLAS: OnceLock<Result<Hipblas, LoadError>> = OnceLock::new();

/// The loaded hipBLAS, loading it (and the HIP runtime) on first use.
pub fn hipblas() -> Result<&'static Hipblas, &'static LoadError> {
    HIPBLAS.get_or_init(load).as_ref()
}

/// The table every raw wrapper calls through: `None` when nothing could be
/// loaded.
#[inline]
pub(crate) fn hipblas_table() -> Option<&'static HipblasFunctions> {
    match HIPBLAS.get_or_init(load) {
        Ok(h) => Some(&h.table),
        Err(_) => None,
    }
}

fn load() -> Result<Hipblas, LoadError> {
    let mut abi = DatatypeAbi::Adapters;
    let library: Library<HipblasFunctions> =
        hip_sys::loader::load_library(&SPEC, |platform, lib, path| match platform {
            Platform::Amd => {
                let (loaded, amd_abi) = crate::amd::load(lib, path);
                abi = amd_abi;
                Ok(loaded)
            }
            Platform::Nvidia => crate::nvidia::load(lib, path),
        })?;
    Ok(Hipblas {
        platform: library.platform,
        libraries: library.libraries,
        version: library.version,
        datatype_abi: abi,
        attempts: library.attempts,
        table: library.table,
        _handles: library.handles,
    })
}

#[cfg(test)]
mod tests {
    /// Neither backend imports the loader that chooses between them (they
    /// use hip-sys's loader core), so loader and backends form no cycle.
    #[test]
    fn backends_do_not_import_the_loader() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![src.join("amd.rs"), src.join("abi.rs")];
        for entry in std::fs::read_dir(src.join("nvidia")).unwrap() {
            files.push(entry.unwrap().path());
        }
        assert!(files.len() >= 4, "{files:?}");
        for path in files
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        {
            let text = std::fs::read_to_string(path).unwrap();
            assert!(
                !text.contains("crate::loader"),
                "{} names crate::loader",
                path.display()
            );
        }
    }
}
