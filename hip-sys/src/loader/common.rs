//! The loader core every -sys crate uses: platforms, versions, the record of
//! what a backend opened, symbol lookup, and the report of a library that
//! could not be loaded.
//!
//! This module is a leaf: it imports nothing else of hip-sys but
//! [`search`] (also a leaf), so that the platform backends
//! (AMD's, NVIDIA's) and the loaders that choose between them can all use
//! it without importing each other. A backend returns a [`Loaded`]; the
//! crate's loader keeps it for the life of the process.
//!
//! A library built on the HIP runtime (hipBLAS, RCCL, hipRAND, ...) declares
//! its file names per platform as a [`LibrarySpec`] and gets the search, the
//! error report ([`LoadError`]) and the record ([`Library`]) from
//! [`load_library`](super::load_library):
//!
//! ```no_run
//! use hip_sys::loader::common::{LibraryNames, LibrarySpec};
//! const HIPBLAS: LibrarySpec = LibrarySpec {
//!     name: "hipBLAS",
//!     amd: LibraryNames {
//!         role: "hipBLAS",
//!         unix: &["libhipblas.so.3", "libhipblas.so.2", "libhipblas.so"],
//!         windows: &["hipblas.dll"],
//!     },
//!     nvidia: LibraryNames {
//!         role: "cuBLAS",
//!         unix: &["libcublas.so.13", "libcublas.so.12"],
//!         windows: &["cublas64_13.dll", "cublas64_12.dll"],
//!     },
//!     amd_hint: "Install hipBLAS (e.g. Debian's libhipblas2).",
//!     nvidia_hint: "Install cuBLAS where the system loader finds it.",
//! };
//! assert_eq!(HIPBLAS.nvidia.for_this_os()[0], if cfg!(windows) { "cublas64_13.dll" } else { "libcublas.so.13" });
//! ```

use super::search::{self, Attempt, Location, Os, OVERRIDE_VAR};
use std::ffi::{c_void, CStr};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// Which vendor's runtime serves the HIP calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Platform {
    /// AMD's ROCm runtime (`libamdhip64`).
    Amd,
    /// NVIDIA's CUDA runtime, driver and nvrtc, through hip-sys's adapters.
    Nvidia,
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Platform::Amd => "amd",
            Platform::Nvidia => "nvidia",
        })
    }
}

/// A runtime version, as HIP encodes it (`major * 10_000_000 + minor *
/// 100_000 + patch`) or as read from a library's file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Version {
    /// Major version, e.g. 6.
    pub major: u32,
    /// Minor version, e.g. 4.
    pub minor: u32,
    /// Patch or build number.
    pub patch: u32,
}

impl Version {
    /// Decodes HIP's integer form (`hipRuntimeGetVersion`).
    pub const fn from_hip(v: i32) -> Version {
        let v = if v < 0 { 0 } else { v as u32 };
        Version {
            major: v / 10_000_000,
            minor: (v / 100_000) % 100,
            patch: v % 100_000,
        }
    }

    /// Decodes CUDA's integer form (`1000 * major + 10 * minor`).
    pub const fn from_cuda(v: i32) -> Version {
        let v = if v < 0 { 0 } else { v as u32 };
        Version {
            major: v / 1000,
            minor: (v % 1000) / 10,
            patch: 0,
        }
    }

    /// The version in a versioned file name (`libamdhip64.so.5.2.21153`).
    pub fn from_file_name(path: &Path) -> Option<Version> {
        search::version_from_file_name(path).map(|(major, minor, patch)| Version {
            major,
            minor,
            patch,
        })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// One library a backend opened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedLibrary {
    /// What it serves, e.g. `"HIP runtime"`, `"hiprtc"`, `"CUDA runtime"`.
    pub role: &'static str,
    /// The file loaded.
    pub path: PathBuf,
}

/// What a platform backend returns: the libraries it opened (owned here, so
/// they stay mapped as long as this lives), their version and the function
/// table it filled. Both backends of a crate return the same type.
pub struct Loaded<T> {
    /// The platform served.
    pub platform: Platform,
    /// The libraries opened, the main one first.
    pub libraries: Vec<LoadedLibrary>,
    /// The main library's version, when it could be told.
    pub version: Option<Version>,
    /// The function table.
    pub table: T,
    /// The open libraries. [`LibrarySlot`]s that resolve a backend's
    /// symbols hold clones of these, never libraries of their own.
    pub handles: Vec<Arc<libloading::Library>>,
}

impl<T> Loaded<T> {
    /// The record of a backend that opened one library (the one the loader
    /// core found at `path`, serving `role`) and resolved `table` from it:
    /// what most backends return.
    pub fn one_library(
        platform: Platform,
        role: &'static str,
        lib: &Arc<libloading::Library>,
        path: &Path,
        table: T,
    ) -> Loaded<T> {
        Loaded {
            platform,
            libraries: vec![LoadedLibrary {
                role,
                path: path.to_path_buf(),
            }],
            version: Version::from_file_name(path),
            table,
            handles: vec![Arc::clone(lib)],
        }
    }
}

impl<T> fmt::Debug for Loaded<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loaded")
            .field("platform", &self.platform)
            .field("libraries", &self.libraries)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// The address of `name` in `lib`, or null when the library lacks it.
pub fn symbol_address(lib: &libloading::Library, name: &str) -> *mut c_void {
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

/// The record of a backend that resolves every binding from the symbol of
/// the same name in the one library the loader core opened (what an AMD
/// backend of a library built on the HIP runtime does): `resolve` is the
/// table's `resolve` (made by `loaded_functions!`), `role` names the file in
/// messages, and the version is read from the file name.
///
/// # Safety
/// Every symbol `lib` exports under a name `resolve` asks for must be the
/// function of that name with the C signature the table declares for it.
pub unsafe fn load_by_name<T>(
    platform: Platform,
    role: &'static str,
    lib: &Arc<libloading::Library>,
    path: &Path,
    resolve: unsafe fn(&mut dyn FnMut(&'static CStr) -> *mut c_void) -> T,
) -> Loaded<T> {
    let mut lookup = |name: &'static CStr| -> *mut c_void {
        match name.to_str() {
            Ok(name) => symbol_address(lib, name),
            Err(_) => std::ptr::null_mut(),
        }
    };
    // SAFETY: the caller guarantees that each symbol found by its name has
    // the signature the table declares for that name.
    let table = unsafe { resolve(&mut lookup) };
    Loaded::one_library(platform, role, lib, path, table)
}

/// The library a loader message `libX: cannot open shared object file`
/// names when it is not the candidate itself: the candidate was found but
/// one of its dependencies was not.
///
/// On Windows the loader's own search names it (`needs amd_comgr_2.dll,
/// found in none of: ...`, see [`search::missing_imports_message`]).
pub fn missing_dependency(candidate: &Path, message: &str) -> Option<String> {
    if let Some(name) = search::missing_import_in(message) {
        return Some(name.to_owned());
    }
    let (name, _) = message.split_once(": cannot open shared object file")?;
    let name = name.trim();
    let named = Path::new(name);
    let is_candidate = named == candidate || named.file_name() == candidate.file_name();
    (!is_candidate && !name.is_empty()).then(|| name.to_owned())
}

/// Writes every attempt, then a line for each candidate that exists but
/// failed (naming a missing dependency when the loader named one): the
/// part of a load error every crate's report shares.
pub fn write_attempts(f: &mut fmt::Formatter<'_>, attempts: &[Attempt]) -> fmt::Result {
    write!(f, "; tried {} paths:", attempts.len())?;
    for a in attempts {
        write!(f, "\n  [{}] {a}", a.role)?;
    }
    for a in attempts {
        if let Err(reason) = &a.outcome {
            match missing_dependency(&a.candidate, reason) {
                Some(dep) => write!(
                    f,
                    "\nfound {} but it needs {dep}, which the loader cannot find ({})",
                    a.candidate.display(),
                    dependency_remedy(&dep)
                )?,
                None if a.candidate.exists() => write!(
                    f,
                    "\nfound {} but it does not load: {reason}",
                    a.candidate.display()
                )?,
                None => {}
            }
        }
    }
    Ok(())
}

/// What to do about a dependency the loader cannot find: a Windows DLL is
/// looked for only beside the library that needs it and in the system
/// folders (never `PATH`, given the flags [`search::open`] loads with).
pub fn dependency_remedy(dependency: &str) -> &'static str {
    if dependency.to_ascii_lowercase().ends_with(".dll") {
        "put it in the folder of the library that needs it"
    } else {
        "install it or add its folder to LD_LIBRARY_PATH"
    }
}

/// The HIP SDK release a `HIP_PATH` names, and where that was read: the
/// SDK's own version file, `<root>/bin/.hipVersion` (`HIP_VERSION_MAJOR=6`,
/// `HIP_VERSION_MINOR=1`, `HIP_VERSION_PATCH=40252` lines, written by HIP's
/// build into every SDK and ROCm install), else the folder's name, which
/// AMD's Windows installer makes the release (`C:\Program
/// Files\AMD\ROCm\6.1\`). The version file wins: a folder can be renamed.
pub fn sdk_release(root: &Path) -> Option<(Version, String)> {
    let file = root.join("bin").join(".hipVersion");
    if let Ok(text) = std::fs::read_to_string(&file) {
        let field = |key: &str| {
            text.lines()
                .filter_map(|l| l.trim().strip_prefix(key)?.strip_prefix('='))
                .find_map(|v| v.trim().parse::<u32>().ok())
        };
        if let (Some(major), Some(minor)) = (field("HIP_VERSION_MAJOR"), field("HIP_VERSION_MINOR"))
        {
            let patch = field("HIP_VERSION_PATCH").unwrap_or(0);
            return Some((
                Version {
                    major,
                    minor,
                    patch,
                },
                file.display().to_string(),
            ));
        }
    }
    let name = root.file_name()?.to_str()?;
    let (major, minor) = name.split_once('.')?;
    let version = Version {
        major: major.parse().ok()?,
        minor: minor.split('.').next()?.parse().ok()?,
        patch: 0,
    };
    Some((version, "its folder name".to_owned()))
}

/// A warning when `HIP_PATH` (the variable's value `hip_path`) names a HIP
/// SDK of another major release than the runtime loaded (`runtime`, of
/// `version` from `hipRuntimeGetVersion`): the common Windows breakage of an
/// SDK 6.x whose `bin` lacks the runtime while the graphics driver's
/// `amdhip64_7.dll` is found on `PATH` or in System32. Kernels built with
/// that SDK's compiler, and its hiprtc and libraries, expect its runtime.
pub fn sdk_mismatch_warning(hip_path: &Path, runtime: &Path, version: Version) -> Option<String> {
    let (sdk, from) = sdk_release(hip_path)?;
    (sdk.major != version.major).then(|| {
        format!(
            "HIP_PATH={} names HIP SDK {}.{} (from {from}), but the HIP runtime loaded is {version} (hipRuntimeGetVersion) from {}: \
             code built with SDK {}.{} and its libraries expect a {}.x runtime; install the SDK {}.{} that matches the runtime, or point HIP_PATH at it",
            hip_path.display(),
            sdk.major,
            sdk.minor,
            runtime.display(),
            sdk.major,
            sdk.minor,
            sdk.major,
            version.major,
            version.minor
        )
    })
}

/// A library opened at run time whose symbols a backend resolves one by
/// one, on first use, through [`Symbol`]s: the one symbol-resolution
/// mechanism of every NVIDIA backend.
///
/// A slot is a `static`; the backend's `load` fills it once with the library
/// it opened (a clone of the `Arc` kept in [`Loaded::handles`]).
#[derive(Debug)]
pub struct LibrarySlot {
    role: &'static str,
    library: OnceLock<Arc<libloading::Library>>,
}

impl LibrarySlot {
    /// An empty slot for the library serving `role` (e.g. `"cuBLAS"`).
    pub const fn new(role: &'static str) -> LibrarySlot {
        LibrarySlot {
            role,
            library: OnceLock::new(),
        }
    }

    /// Fills the slot; a second call keeps the first library (a process
    /// loads each backend once).
    pub fn fill(&self, library: &Arc<libloading::Library>) {
        let _ = self.library.set(Arc::clone(library));
    }

    /// Whether the slot was filled.
    pub fn is_filled(&self) -> bool {
        self.library.get().is_some()
    }

    /// What the library serves.
    pub fn role(&self) -> &'static str {
        self.role
    }
}

/// One symbol of a [`LibrarySlot`]'s library, looked up once, on first use.
#[derive(Debug)]
pub struct Symbol {
    library: &'static LibrarySlot,
    name: &'static CStr,
    address: OnceLock<usize>,
}

impl Symbol {
    /// The symbol `name` of `library`.
    pub const fn new(library: &'static LibrarySlot, name: &'static CStr) -> Symbol {
        Symbol {
            library,
            name,
            address: OnceLock::new(),
        }
    }

    /// The symbol's name.
    pub fn name(&self) -> &'static CStr {
        self.name
    }

    /// The symbol's address, or `None` when the library lacks it or was not
    /// loaded. A lookup before the slot is filled is not cached.
    pub fn address(&self) -> Option<*mut c_void> {
        if let Some(&a) = self.address.get() {
            return (a != 0).then_some(a as *mut c_void);
        }
        let library = self.library.library.get()?;
        let a = *self.address.get_or_init(|| {
            let name = self.name.to_str().unwrap_or("");
            symbol_address(library, name) as usize
        });
        (a != 0).then_some(a as *mut c_void)
    }
}

/// A library's file names on each operating system, newest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LibraryNames {
    /// What the library serves, e.g. `"hipBLAS"`, `"cuBLAS"`.
    pub role: &'static str,
    /// Names on Linux and other Unix systems.
    pub unix: &'static [&'static str],
    /// Names on Windows.
    pub windows: &'static [&'static str],
}

impl LibraryNames {
    /// The names for the operating system this was compiled for.
    pub fn for_this_os(&self) -> &'static [&'static str] {
        self.for_os(Os::CURRENT)
    }

    /// The names for `os`.
    pub fn for_os(&self, os: Os) -> &'static [&'static str] {
        match os {
            Os::Windows => self.windows,
            Os::Unix => self.unix,
        }
    }
}

/// What a -sys crate declares about its library to get loading, errors and
/// diagnostics from the core ([`load_library`](super::load_library)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LibrarySpec {
    /// The library's name in messages, e.g. `"hipBLAS"`.
    pub name: &'static str,
    /// The AMD library, searched where the HIP runtime is.
    pub amd: LibraryNames,
    /// The NVIDIA library the crate's NVIDIA backend adapts.
    pub nvidia: LibraryNames,
    /// What to install when the AMD library is missing.
    pub amd_hint: &'static str,
    /// What to install when the NVIDIA library is missing.
    pub nvidia_hint: &'static str,
}

impl LibrarySpec {
    /// The names and search locations for `platform`.
    pub fn search(&self, platform: Platform) -> (&LibraryNames, Vec<Location>) {
        match platform {
            Platform::Amd => (&self.amd, search::amd_library_locations()),
            Platform::Nvidia => (&self.nvidia, search::cuda_locations()),
        }
    }
}

/// A library loaded on top of the HIP runtime: what was opened, its version,
/// how it was found, and its function table.
pub struct Library<T> {
    /// The HIP platform (the runtime's).
    pub platform: Platform,
    /// The libraries opened.
    pub libraries: Vec<LoadedLibrary>,
    /// The library's version, when it could be told.
    pub version: Option<Version>,
    /// Every path tried, in order.
    pub attempts: Vec<Attempt>,
    /// The function table.
    pub table: T,
    /// Keeps the libraries mapped for the life of the process.
    pub handles: Vec<Arc<libloading::Library>>,
}

impl<T> Library<T> {
    /// The record of a backend's [`Loaded`], with the attempts made.
    pub fn new(loaded: Loaded<T>, attempts: Vec<Attempt>) -> Library<T> {
        Library {
            platform: loaded.platform,
            libraries: loaded.libraries,
            version: loaded.version,
            attempts,
            table: loaded.table,
            handles: loaded.handles,
        }
    }
}

/// A function table made by hip-sys's `loaded_functions!` macro:
/// which of its functions the loaded library provides. It gives every
/// [`Library`] of such a table `is_available` and `available_count`.
pub trait FunctionTable {
    /// Whether the function of this C name is available (false for names
    /// the bindings do not have).
    fn is_available(&self, name: &str) -> bool;
    /// How many of the bound functions are available.
    fn available_count(&self) -> usize;
}

impl<T: FunctionTable> Library<T> {
    /// Whether the function of this C name is available (false for names
    /// the bindings do not have).
    pub fn is_available(&self, name: &str) -> bool {
        self.table.is_available(name)
    }

    /// How many of the bound functions are available.
    pub fn available_count(&self) -> usize {
        self.table.available_count()
    }
}

impl<T: fmt::Debug> fmt::Debug for Library<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Library")
            .field("platform", &self.platform)
            .field("libraries", &self.libraries)
            .field("version", &self.version)
            .field("functions", &self.table)
            .finish_non_exhaustive()
    }
}

/// The name a [`LoadError`] of the HIP runtime itself carries as its
/// `library`.
pub const HIP_RUNTIME: &str = "HIP runtime";

/// Where load errors send the user for the whole picture.
const REPORT_HINT: &str = "For a full report (every candidate, versions, variables, devices): run `hip-info` (`cargo install hip-diagnostics`), or call `hip_diagnostics::report()`.";

/// Why the HIP runtime, or a library built on it, could not be loaded:
/// the one load error of every -sys crate (`hip_sys::loader::runtime()`,
/// `hipblas_sys::loader::hipblas()`, ...), with every path tried and the
/// loader's reason for each.
///
/// ```no_run
/// use hip_sys::loader::{LoadError, HIP_RUNTIME};
/// fn explain(e: &LoadError) {
///     if e.library == HIP_RUNTIME {
///         eprintln!("no HIP runtime: {} paths tried", e.attempts.len());
///     } else if let Some(runtime) = &e.runtime {
///         eprintln!("{} needs the HIP runtime first: {runtime}", e.library);
///     } else {
///         eprintln!("{e}");
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct LoadError {
    /// What could not be loaded: [`HIP_RUNTIME`], or a library such as
    /// `"hipBLAS"`.
    pub library: &'static str,
    /// The HIP runtime's: `HIP_PLATFORM`'s value, or `None` when the
    /// loader chose.
    pub requested: Option<Box<str>>,
    /// The HIP runtime's: a problem before any search (an unknown
    /// `HIP_PLATFORM` value).
    pub problem: Option<Box<str>>,
    /// A library's: the HIP runtime's own failure, when there is no HIP
    /// runtime at all (nothing of the library was looked for).
    pub runtime: Option<Box<LoadError>>,
    /// A library's: the platform whose library was looked for.
    pub platform: Option<Platform>,
    /// A library's: the file looked for on that platform (`"hipBLAS"`,
    /// `"cuBLAS"`).
    pub role: Option<&'static str>,
    /// Every path tried, with the loader's reason.
    pub attempts: Box<[Attempt]>,
    /// A library's: what to install on its platform (the
    /// [`LibrarySpec`]'s hint; on AMD the message adds where
    /// `HIP_SYS_LIBRARY_PATH` may point instead).
    pub hint: &'static str,
}

impl LoadError {
    /// The HIP runtime's error: `requested` is `HIP_PLATFORM`'s value.
    pub fn of_runtime(
        requested: Option<String>,
        problem: Option<String>,
        attempts: Vec<Attempt>,
    ) -> LoadError {
        LoadError {
            library: HIP_RUNTIME,
            requested: requested.map(String::into_boxed_str),
            problem: problem.map(String::into_boxed_str),
            runtime: None,
            platform: None,
            role: None,
            attempts: attempts.into_boxed_slice(),
            hint: "",
        }
    }

    /// A library's error: looked for as `role` on `platform` (or, with
    /// `platform` `None`, not looked for).
    pub fn of_library(
        library: &'static str,
        platform: Option<Platform>,
        role: Option<&'static str>,
        attempts: Vec<Attempt>,
        hint: &'static str,
    ) -> LoadError {
        LoadError {
            library,
            requested: None,
            problem: None,
            runtime: None,
            platform,
            role,
            attempts: attempts.into_boxed_slice(),
            hint,
        }
    }

    /// A library's error when the HIP runtime itself could not be loaded.
    pub fn without_runtime(library: &'static str, runtime: &LoadError) -> LoadError {
        LoadError {
            runtime: Some(Box::new(runtime.clone())),
            ..LoadError::of_library(library, None, None, Vec::new(), "")
        }
    }

    fn fmt_runtime(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.problem {
            write!(f, "no HIP runtime loaded: {p}")?;
            return write!(f, "\n{REPORT_HINT}");
        }
        match &self.requested {
            Some(p) => write!(f, "no HIP runtime found for HIP_PLATFORM={p}")?,
            None => write!(f, "no HIP runtime found (neither AMD's nor NVIDIA's)")?,
        }
        write_attempts(f, &self.attempts)?;
        let vars: Vec<String> = ["HIP_PLATFORM", OVERRIDE_VAR, "ROCM_PATH", "HIP_PATH"]
            .iter()
            .map(|v| match std::env::var_os(v) {
                Some(value) => format!("{v}={}", value.to_string_lossy()),
                None => format!("{v} unset"),
            })
            .collect();
        write!(f, "\nvariables: {}", vars.join(", "))?;
        write!(
            f,
            "\nInstall ROCm (or CUDA with HIP_PLATFORM=nvidia), or point {OVERRIDE_VAR} at the folder holding the HIP runtime (libamdhip64; on Windows amdhip64_*.dll)."
        )?;
        write!(f, "\n{REPORT_HINT}")
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = &self.runtime {
            return write!(f, "{} not loaded: no HIP runtime ({r})", self.library);
        }
        if self.library == HIP_RUNTIME {
            return self.fmt_runtime(f);
        }
        match (self.role, self.platform) {
            (Some(role), Some(p)) => write!(f, "no {role} found for the {p} platform")?,
            _ => write!(f, "no {} library found", self.library)?,
        }
        write_attempts(f, &self.attempts)?;
        if !self.hint.is_empty() {
            write!(f, "\n{}", self.hint)?;
        }
        if self.platform == Some(Platform::Amd) {
            write!(f, " Or point {OVERRIDE_VAR} at the folder holding it.")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

#[cfg(test)]
mod tests {
    use super::*;

    static EMPTY: LibrarySlot = LibrarySlot::new("nothing");
    static UNFILLED: Symbol = Symbol::new(&EMPTY, c"cuInit");

    #[test]
    fn a_symbol_of_an_unfilled_slot_is_absent_and_not_cached() {
        assert_eq!(UNFILLED.address(), None);
        assert!(UNFILLED.address.get().is_none());
        assert!(!EMPTY.is_filled());
        assert_eq!(EMPTY.role(), "nothing");
    }

    #[test]
    #[cfg_attr(miri, ignore = "opens the C library: Miri cannot call dlopen")]
    fn a_filled_slot_resolves_present_and_absent_symbols_once() {
        // The C library of this process is a library like any other.
        let name = match Os::CURRENT {
            Os::Windows => "msvcrt.dll",
            Os::Unix => "libc.so.6",
        };
        let lib = Arc::new(search::open(Path::new(name)).expect("the C library opens"));
        static SLOT: LibrarySlot = LibrarySlot::new("C library");
        static PRESENT: Symbol = Symbol::new(&SLOT, c"strlen");
        static ABSENT: Symbol = Symbol::new(&SLOT, c"no_such_symbol_in_libc_42");
        SLOT.fill(&lib);
        assert!(SLOT.is_filled());
        let p = PRESENT.address().expect("strlen is exported");
        assert!(!p.is_null());
        assert_eq!(PRESENT.address(), Some(p));
        assert_eq!(ABSENT.address(), None);
        assert_eq!(ABSENT.address.get(), Some(&0));
        assert_eq!(Arc::strong_count(&lib), 2);
    }

    #[test]
    fn a_library_answers_for_its_generated_table() {
        // The runtime's own generated table, empty: nothing is available.
        let lib = Library {
            platform: Platform::Amd,
            libraries: Vec::new(),
            version: None,
            attempts: Vec::new(),
            table: crate::HipFunctions::EMPTY,
            handles: Vec::new(),
        };
        assert!(!lib.is_available("hipMalloc"));
        assert_eq!(lib.available_count(), 0);
        let mut table = crate::HipFunctions::EMPTY;
        unsafe extern "C" fn count(n: *mut core::ffi::c_int) -> crate::hipError_t {
            // SAFETY: the test passes a valid int.
            unsafe { *n = 1 };
            crate::hipError_t::hipSuccess
        }
        table.hipGetDeviceCount = Some(count);
        let lib = Library { table, ..lib };
        assert!(lib.is_available("hipGetDeviceCount"));
        assert!(!lib.is_available("no_such_function"));
        assert_eq!(lib.available_count(), 1);
    }

    #[test]
    #[cfg_attr(miri, ignore = "writes files: Miri runs isolated from the file system")]
    fn sdk_release_from_version_file_or_folder_name() {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let root = std::env::temp_dir()
            .join(format!("hip-sys-sdk-{}", std::process::id()))
            .join("6.1");
        std::fs::create_dir_all(root.join("bin")).unwrap();
        let v = |major, minor, patch| Version {
            major,
            minor,
            patch,
        };
        assert_eq!(
            sdk_release(&root),
            Some((v(6, 1, 0), "its folder name".into()))
        );
        std::fs::write(
            root.join("bin/.hipVersion"),
            "# Auto-generated by cmake\nHIP_VERSION_MAJOR=6\nHIP_VERSION_MINOR=2\nHIP_VERSION_PATCH=41512\n",
        )
        .unwrap();
        let (found, from) = sdk_release(&root).unwrap();
        assert_eq!(found, v(6, 2, 41512));
        assert!(from.ends_with(".hipVersion"), "{from}");
        let runtime = Path::new("C:/windows/system32/amdhip64_7.dll");
        let w = sdk_mismatch_warning(&root, runtime, v(7, 1, 51803)).unwrap();
        assert!(w.contains("names HIP SDK 6.2"), "{w}");
        assert!(w.contains("7.1.51803"), "{w}");
        assert!(w.contains("amdhip64_7.dll"), "{w}");
        assert_eq!(sdk_mismatch_warning(&root, runtime, v(6, 4, 0)), None);
        assert_eq!(sdk_release(Path::new("/opt/rocm")), None);
        std::fs::remove_dir_all(root.parent().unwrap()).unwrap();
    }

    #[test]
    fn load_error_stays_small() {
        // Every library crate's `Error` holds a `LoadError` inline; past
        // 128 bytes clippy's result_large_err fails each of their
        // functions. Boxed strings and slices and the spec's static hint
        // keep it under.
        let size = size_of::<LoadError>();
        println!("size_of::<LoadError>() = {size}");
        assert!(size <= 112, "LoadError grew to {size} bytes");
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "the message asks the file system whether each path exists"
    )]
    fn library_error_reports_attempts_and_hint() {
        let e = LoadError::of_library(
            "hipBLAS",
            Some(Platform::Nvidia),
            Some("cuBLAS"),
            vec![Attempt {
                role: "cuBLAS",
                candidate: "libcublas.so.13".into(),
                source: "system loader".into(),
                outcome: Err("libcublas.so.13: cannot open shared object file".into()),
            }],
            "Install cuBLAS.",
        );
        let text = e.to_string();
        assert!(
            text.starts_with("no cuBLAS found for the nvidia platform; tried 1 paths:"),
            "{text}"
        );
        assert!(
            text.contains("[cuBLAS] libcublas.so.13 (system loader)"),
            "{text}"
        );
        assert!(text.ends_with("\nInstall cuBLAS."), "{text}");
        let runtime = LoadError::of_runtime(Some("amd".into()), None, Vec::new());
        let no_runtime = LoadError::without_runtime("hipBLAS", &runtime);
        let text = no_runtime.to_string();
        assert!(
            text.starts_with(
                "hipBLAS not loaded: no HIP runtime (no HIP runtime found for HIP_PLATFORM=amd; tried 0 paths"
            ),
            "{text}"
        );
        assert_eq!(no_runtime.runtime.as_deref(), Some(&runtime));
    }
}
