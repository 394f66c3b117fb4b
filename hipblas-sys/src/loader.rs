//! Finding, opening and reporting the hipBLAS library behind the raw
//! functions.
//!
//! The first raw call (or [`hipblas`]) loads the HIP runtime through hip-sys
//! (which chooses the platform), then:
//!
//! - **AMD**: opens `libhipblas.so.3`, `.2`, `.1`, `.0` or the unversioned
//!   name from the places hip-sys searches ([`hip_sys::loader::search`]), and
//!   resolves every symbol once;
//! - **NVIDIA**: opens cuBLAS (`libcublas.so.13`, `.12`) and fills the table
//!   with this crate's adapters (see `NVIDIA_COVERAGE.md`).
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

use crate::generated::functions::{HipblasFunctions, FUNCTION_NAMES};
use hip_sys::loader::search::{self, Attempt};
use hip_sys::loader::{Platform, Version};
use std::ffi::{c_void, CStr};
use std::fmt;
use std::sync::OnceLock;

/// Which signature the plain-named `...Ex` symbols of the loaded library
/// have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DatatypeAbi {
    /// hipBLAS before 2.0: only the v1 form (`hipblasDatatype_t`); the `_v2`
    /// bindings are unavailable.
    V1Only,
    /// hipBLAS 2.x: plain names are v1, `_v2` names are v2: both bound.
    Both,
    /// hipBLAS 3.x and later: the plain names have the v2 signature; they
    /// serve the `_v2` bindings, and the v1 bindings are unavailable.
    V2Only,
    /// The version could not be told and the library has no `_v2` symbols:
    /// neither form of the `...Ex` functions is bound.
    Unknown,
    /// The cuBLAS backend: both forms are implemented by adapters.
    Adapters,
}

impl DatatypeAbi {
    /// The ABI of a hipBLAS library of this major version; `has_v2_symbols`
    /// says whether it exports `hipblasGemmEx_v2`.
    pub fn for_library(major: Option<u32>, has_v2_symbols: bool) -> DatatypeAbi {
        match major {
            Some(m) if m >= 3 => DatatypeAbi::V2Only,
            Some(2) => DatatypeAbi::Both,
            Some(_) if has_v2_symbols => DatatypeAbi::Both,
            Some(_) => DatatypeAbi::V1Only,
            None if has_v2_symbols => DatatypeAbi::Both,
            None => DatatypeAbi::Unknown,
        }
    }
}

/// Whether a binding is one of the `...Ex` functions whose v1 form takes
/// `hipblasDatatype_t` (and whose `_v2` form takes `hipDataType`).
pub fn is_datatype_function(binding: &str) -> bool {
    binding.contains("Ex") && binding.starts_with("hipblas")
}

/// The `_v2` binding of a plain name (`hipblasGemmEx_64` ->
/// `hipblasGemmEx_v2_64`), when the bindings have one.
pub fn v2_binding_of(plain: &str) -> Option<String> {
    let v2 = match plain.strip_suffix("_64") {
        Some(base) => format!("{base}_v2_64"),
        None => format!("{plain}_v2"),
    };
    FUNCTION_NAMES.contains(&v2.as_str()).then_some(v2)
}

/// The plain name a `_v2` binding replaces (`hipblasGemmEx_v2_64` ->
/// `hipblasGemmEx_64`).
pub fn plain_of_v2(binding: &str) -> Option<String> {
    if let Some(base) = binding.strip_suffix("_v2_64") {
        return Some(format!("{base}_64"));
    }
    binding.strip_suffix("_v2").map(str::to_owned)
}

/// The symbol that serves `binding` in a library of this ABI, or `None`
/// when the binding must stay unavailable.
pub fn symbol_for(binding: &str, abi: DatatypeAbi) -> Option<String> {
    let datatype = is_datatype_function(binding);
    match abi {
        DatatypeAbi::Both | DatatypeAbi::Adapters => Some(binding.to_owned()),
        DatatypeAbi::V1Only => {
            // No `_v2` symbols exist; a v2 binding stays unavailable.
            if plain_of_v2(binding).is_some() {
                None
            } else {
                Some(binding.to_owned())
            }
        }
        DatatypeAbi::V2Only => match plain_of_v2(binding) {
            // 3.x: the plain symbol has the v2 signature.
            Some(plain) => Some(plain),
            // The plain binding: v1 ABI for `...Ex` functions, which 3.x no
            // longer has; other plain functions (complex ones, whose two
            // spellings have the same layout) are the same symbol.
            None if datatype && v2_binding_of(binding).is_some() => None,
            None => Some(binding.to_owned()),
        },
        DatatypeAbi::Unknown => {
            if datatype && (plain_of_v2(binding).is_some() || v2_binding_of(binding).is_some()) {
                None
            } else {
                Some(binding.to_owned())
            }
        }
    }
}

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
    _handles: Vec<libloading::Library>,
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

/// Why hipBLAS could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The HIP runtime's own failure, when there is no HIP runtime at all.
    pub runtime: Option<String>,
    /// The platform whose BLAS was looked for, when a runtime was found.
    pub platform: Option<Platform>,
    /// Every path tried, with the loader's reason.
    pub attempts: Vec<Attempt>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = &self.runtime {
            return write!(f, "hipBLAS not loaded: no HIP runtime ({r})");
        }
        match self.platform {
            Some(Platform::Nvidia) => write!(f, "no cuBLAS found for the NVIDIA platform")?,
            _ => write!(f, "no hipBLAS library found")?,
        }
        write!(f, "; tried {} paths:", self.attempts.len())?;
        for a in &self.attempts {
            write!(f, "\n  [{}] {a}", a.role)?;
        }
        match self.platform {
            Some(Platform::Nvidia) => write!(
                f,
                "\nInstall cuBLAS (libcublas.so.13 or .12) where the system loader finds it."
            ),
            _ => write!(
                f,
                "\nInstall hipBLAS (e.g. Debian's libhipblas2), or point {} at the folder holding libhipblas.",
                search::OVERRIDE_VAR
            ),
        }
    }
}

impl std::error::Error for LoadError {}

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

const HIPBLAS_NAMES: &[&str] = if cfg!(windows) {
    &["hipblas.dll"]
} else {
    &[
        "libhipblas.so.3",
        "libhipblas.so.2",
        "libhipblas.so.1",
        "libhipblas.so.0",
        "libhipblas.so",
    ]
};

fn load() -> Result<Hipblas, LoadError> {
    let rt = hip_sys::loader::runtime().map_err(|e| LoadError {
        runtime: Some(e.to_string()),
        platform: None,
        attempts: Vec::new(),
    })?;
    let mut attempts = Vec::new();
    match rt.platform {
        Platform::Nvidia => match crate::nvidia::load(&mut attempts) {
            Some(l) => Ok(Hipblas {
                platform: Platform::Nvidia,
                libraries: l.libraries,
                version: Some(l.version),
                datatype_abi: DatatypeAbi::Adapters,
                attempts,
                table: l.table,
                _handles: l.handles,
            }),
            None => Err(LoadError {
                runtime: None,
                platform: Some(Platform::Nvidia),
                attempts,
            }),
        },
        Platform::Amd => load_amd(attempts),
    }
}

fn load_amd(mut attempts: Vec<Attempt>) -> Result<Hipblas, LoadError> {
    let locations = search::amd_locations();
    let Some((lib, path)) = search::open_first("hipBLAS", &locations, HIPBLAS_NAMES, &mut attempts)
    else {
        return Err(LoadError {
            runtime: None,
            platform: Some(Platform::Amd),
            attempts,
        });
    };
    let version = search::version_from_file_name(&path).map(|(major, minor, patch)| Version {
        major,
        minor,
        patch,
    });
    let has_v2 = !symbol_address(&lib, "hipblasGemmEx_v2").is_null();
    let abi = DatatypeAbi::for_library(version.map(|v| v.major), has_v2);
    let table = {
        let mut lookup = |name: &'static CStr| -> *mut c_void {
            let binding = name.to_str().unwrap_or("");
            match symbol_for(binding, abi) {
                Some(symbol) => {
                    let own = symbol_address(&lib, &symbol);
                    if own.is_null() && symbol != binding {
                        // A 3.x library that still exports the `_v2` name.
                        symbol_address(&lib, binding)
                    } else {
                        own
                    }
                }
                None => std::ptr::null_mut(),
            }
        };
        // SAFETY: each binding is resolved from the symbol that has its
        // signature in this library version (see `symbol_for`): the same
        // name, or for a `_v2` binding on hipBLAS 3.x the plain name, which
        // there is declared with the v2 signature.
        unsafe { HipblasFunctions::resolve(&mut lookup) }
    };
    Ok(Hipblas {
        platform: Platform::Amd,
        libraries: vec![LoadedLibrary {
            role: "hipBLAS",
            path,
        }],
        version,
        datatype_abi: abi,
        attempts,
        table,
        _handles: vec![lib],
    })
}

/// The address of `name` in `lib`, or null.
pub(crate) fn symbol_address(lib: &libloading::Library, name: &str) -> *mut c_void {
    let mut bytes = Vec::with_capacity(name.len() + 1);
    bytes.extend_from_slice(name.as_bytes());
    bytes.push(0);
    // SAFETY: the symbol is read as an untyped address; it is given a type
    // only where its C declaration is known.
    match unsafe { lib.get::<*mut c_void>(&bytes) } {
        Ok(sym) => *sym,
        Err(_) => std::ptr::null_mut(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule `is_datatype_function` must agree with the generated
    /// signatures: a plain binding that has a `_v2` twin takes
    /// `hipblasDatatype_t` exactly when the rule says so.
    #[test]
    fn datatype_rule_matches_the_signatures() {
        let text = include_str!("generated/functions.rs");
        let mut checked = 0;
        for name in FUNCTION_NAMES {
            if v2_binding_of(name).is_none() {
                continue;
            }
            let start = text
                .find(&format!("pub unsafe fn {name}("))
                .unwrap_or_else(|| panic!("wrapper of {name}"));
            let sig = &text[start..start + text[start..].find(") -> ").unwrap()];
            assert_eq!(
                sig.contains("hipblasDatatype_t"),
                is_datatype_function(name),
                "{name}: {sig}"
            );
            checked += 1;
        }
        assert!(checked > 300, "only {checked} v1/v2 pairs found");
    }

    #[test]
    fn abi_from_version() {
        assert_eq!(
            DatatypeAbi::for_library(Some(3), false),
            DatatypeAbi::V2Only
        );
        assert_eq!(DatatypeAbi::for_library(Some(2), true), DatatypeAbi::Both);
        assert_eq!(
            DatatypeAbi::for_library(Some(0), false),
            DatatypeAbi::V1Only
        );
        assert_eq!(DatatypeAbi::for_library(None, false), DatatypeAbi::Unknown);
        assert_eq!(DatatypeAbi::for_library(None, true), DatatypeAbi::Both);
    }

    #[test]
    fn symbols_per_abi() {
        use DatatypeAbi::*;
        // hipBLAS 2.x: each binding its own symbol.
        assert_eq!(
            symbol_for("hipblasGemmEx", Both).as_deref(),
            Some("hipblasGemmEx")
        );
        assert_eq!(
            symbol_for("hipblasGemmEx_v2", Both).as_deref(),
            Some("hipblasGemmEx_v2")
        );
        // 3.x: the plain symbol serves the v2 binding; v1 is unavailable.
        assert_eq!(symbol_for("hipblasGemmEx", V2Only), None);
        assert_eq!(symbol_for("hipblasGemmEx_64", V2Only), None);
        assert_eq!(
            symbol_for("hipblasGemmEx_v2", V2Only).as_deref(),
            Some("hipblasGemmEx")
        );
        assert_eq!(
            symbol_for("hipblasGemmEx_v2_64", V2Only).as_deref(),
            Some("hipblasGemmEx_64")
        );
        // Complex twins have one layout: the plain symbol serves both.
        assert_eq!(
            symbol_for("hipblasCaxpy", V2Only).as_deref(),
            Some("hipblasCaxpy")
        );
        assert_eq!(
            symbol_for("hipblasCaxpy_v2", V2Only).as_deref(),
            Some("hipblasCaxpy")
        );
        // Before 2.0: no v2 bindings.
        assert_eq!(symbol_for("hipblasGemmEx_v2", V1Only), None);
        assert_eq!(
            symbol_for("hipblasGemmEx", V1Only).as_deref(),
            Some("hipblasGemmEx")
        );
        // Unknown version: neither form of an Ex function.
        assert_eq!(symbol_for("hipblasGemmEx", Unknown), None);
        assert_eq!(symbol_for("hipblasGemmEx_v2", Unknown), None);
        assert_eq!(
            symbol_for("hipblasSgemm", Unknown).as_deref(),
            Some("hipblasSgemm")
        );
    }
}
