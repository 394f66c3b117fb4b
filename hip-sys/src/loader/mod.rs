//! Finding, opening and reporting the runtime behind the raw functions.
//!
//! The first raw call (or [`runtime`]) chooses a platform and opens its
//! libraries; every symbol is resolved then, once, into a table that lives
//! for the rest of the process. Nothing here panics: when nothing can be
//! loaded, every raw function returns an error status and [`runtime`] returns
//! a [`LoadError`] listing every path tried and the loader's reason.
//!
//! ```no_run
//! match hip_sys::loader::runtime() {
//!     Ok(rt) => println!("{} runtime {} from {}", rt.platform, rt.version, rt.libraries[0].path.display()),
//!     Err(e) => eprintln!("{e}"),
//! }
//! ```

pub mod search;

pub use search::{Attempt, Location, OVERRIDE_VAR};

pub mod adapter;
pub mod common;
mod lazy;
pub use lazy::{Backend, LazyLibrary};

pub use self::common::{
    missing_dependency, symbol_address, Library, LibraryNames, LibrarySpec, LoadError, Loaded,
    LoadedLibrary, Platform, Version, HIP_RUNTIME,
};

use crate::generated::functions::HipFunctions;
use std::fmt;
use std::sync::{Arc, OnceLock};

/// The loaded runtime: platform, libraries, version, and how it was found.
pub struct Runtime {
    /// The platform chosen.
    pub platform: Platform,
    /// Why this platform: `HIP_PLATFORM`, or what each runtime said about
    /// its devices (e.g. "AMD runtime sees no device (hipErrorNoDevice);
    /// CUDA sees 2 devices").
    pub platform_reason: String,
    /// The libraries opened, the main runtime first.
    pub libraries: Vec<LoadedLibrary>,
    /// The runtime's version: HIP's on AMD, the CUDA runtime's on NVIDIA.
    pub version: Version,
    /// Every path tried on the way, in order.
    pub attempts: Vec<Attempt>,
    /// What is wrong with the runtime found though it loaded: a `HIP_PATH`
    /// naming an SDK of another major release (see
    /// [`common::sdk_mismatch_warning`]).
    pub warnings: Vec<String>,
    pub(crate) table: HipFunctions,
    /// Keeps the libraries mapped for the life of the process (the NVIDIA
    /// backend's symbols resolve through clones of these).
    _handles: Vec<Arc<libloading::Library>>,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("platform", &self.platform)
            .field("platform_reason", &self.platform_reason)
            .field("libraries", &self.libraries)
            .field("version", &self.version)
            .field("warnings", &self.warnings)
            .field("functions", &self.table)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    /// Whether the function of this C name is available in the loaded
    /// runtime (false for unknown names).
    pub fn is_available(&self, name: &str) -> bool {
        self.table.is_available(name)
    }

    /// How many of the bound functions are available.
    pub fn available_count(&self) -> usize {
        self.table.available_count()
    }
}

static RUNTIME: OnceLock<Result<Runtime, LoadError>> = OnceLock::new();

/// The loaded runtime, loading it on first use.
pub fn runtime() -> Result<&'static Runtime, &'static LoadError> {
    RUNTIME.get_or_init(load).as_ref()
}

/// The function table every raw wrapper calls through: `None` when no
/// runtime could be loaded.
#[inline]
pub(crate) fn hip_table() -> Option<&'static HipFunctions> {
    match RUNTIME.get_or_init(load) {
        Ok(rt) => Some(&rt.table),
        Err(_) => None,
    }
}

fn load() -> Result<Runtime, LoadError> {
    let requested = std::env::var("HIP_PLATFORM").ok().filter(|v| !v.is_empty());
    let mut attempts = Vec::new();
    let choice = match requested.as_deref().map(str::to_ascii_lowercase).as_deref() {
        None => None,
        Some("amd" | "hcc") => Some(Platform::Amd),
        Some("nvidia" | "nvcc") => Some(Platform::Nvidia),
        Some("emulated" | "emu") => {
            if let Some(rt) = crate::amd::load_emulated(&mut attempts) {
                return Ok(finish(rt, "HIP_PLATFORM=emulated".into(), attempts));
            }
            return Err(LoadError::of_runtime(
                requested,
                Some(
                    "HIP_PLATFORM=emulated: the software AMD GPU (libhip_emu.so) was not found; \
                     build it with `cargo build -p hip-emu` (a dependency that names hip-emu builds \
                     it too), or point HIP_SYS_LIBRARY_PATH at the file"
                        .into(),
                ),
                attempts,
            ));
        }
        Some(other) => {
            return Err(LoadError::of_runtime(
                requested,
                Some(format!(
                    "HIP_PLATFORM={other} is not a platform (use amd, nvidia or emulated)"
                )),
                attempts,
            ))
        }
    };
    match choice {
        Some(Platform::Amd) => {
            if let Some(rt) = crate::amd::load(&mut attempts) {
                return Ok(finish(rt, "HIP_PLATFORM=amd".into(), attempts));
            }
        }
        Some(Platform::Nvidia) => {
            if let Some(rt) = crate::nvidia::load(&mut attempts) {
                return Ok(finish(rt, "HIP_PLATFORM=nvidia".into(), attempts));
            }
        }
        None => {
            // AMD first; NVIDIA is loaded only when AMD's runtime is absent
            // or sees no device.
            let amd = crate::amd::load(&mut attempts);
            let amd_probe = Probe::of(amd.as_ref());
            let nvidia = match amd_probe {
                Probe::Devices(_) => None,
                _ => crate::nvidia::load(&mut attempts),
            };
            let nvidia_probe = Probe::of(nvidia.as_ref());
            let (platform, reason) = choose(amd_probe, nvidia_probe);
            let (chosen, other) = match platform {
                Some(Platform::Amd) => (amd, nvidia),
                Some(Platform::Nvidia) => (nvidia, amd),
                None => (None, None),
            };
            if let Some(mut rt) = chosen {
                // The runtime not chosen stays mapped: a vendor runtime is
                // not made to run its unload code mid-process.
                if let Some(other) = other {
                    rt.handles.extend(other.handles);
                }
                return Ok(finish(rt, reason, attempts));
            }
        }
    }
    Err(LoadError::of_runtime(requested, None, attempts))
}

/// What a platform's runtime answered when asked how many devices it sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Probe {
    /// Its runtime was not found.
    Absent,
    /// `hipGetDeviceCount` succeeded with this count.
    Devices(i32),
    /// `hipGetDeviceCount` failed (`hipErrorNoDevice` without a GPU).
    Failed(crate::hipError_t),
}

impl Probe {
    fn of(loaded: Option<&Loaded<HipFunctions>>) -> Probe {
        let Some(loaded) = loaded else {
            return Probe::Absent;
        };
        let Some(count) = loaded.table.hipGetDeviceCount else {
            return Probe::Failed(crate::hipError_t::hipErrorNotSupported);
        };
        let mut n = 0;
        // SAFETY: `hipGetDeviceCount(int*)`; `n` is a valid int to write.
        let status = unsafe { count(&mut n) };
        if status.is_success() {
            Probe::Devices(n)
        } else {
            Probe::Failed(status)
        }
    }

    fn says(self) -> String {
        match self {
            Probe::Absent => "not found".into(),
            Probe::Devices(n) => format!("sees {n} device{}", if n == 1 { "" } else { "s" }),
            Probe::Failed(e) => format!("sees no device ({e:?})"),
        }
    }

    fn has_devices(self) -> bool {
        matches!(self, Probe::Devices(n) if n > 0)
    }
}

/// With `HIP_PLATFORM` unset: the platform whose runtime sees a device (AMD
/// first), else the runtime that loaded (AMD first) so that calls report
/// the missing device; the reason names what both said.
fn choose(amd: Probe, nvidia: Probe) -> (Option<Platform>, String) {
    let both = format!("AMD runtime {}; CUDA {}", amd.says(), nvidia.says());
    if amd.has_devices() {
        (Some(Platform::Amd), format!("AMD runtime {}", amd.says()))
    } else if nvidia.has_devices() {
        (Some(Platform::Nvidia), both)
    } else if amd != Probe::Absent {
        (Some(Platform::Amd), format!("no device: {both}"))
    } else if nvidia != Probe::Absent {
        (Some(Platform::Nvidia), format!("no device: {both}"))
    } else {
        (None, both)
    }
}

fn finish(loaded: Loaded<HipFunctions>, reason: String, attempts: Vec<Attempt>) -> Runtime {
    let hip_path = std::env::var_os("HIP_PATH").filter(|v| !v.is_empty());
    let warnings = match (
        loaded.platform,
        hip_path,
        loaded.libraries.first(),
        loaded.version,
    ) {
        (Platform::Amd, Some(root), Some(runtime), Some(version)) => {
            common::sdk_mismatch_warning(std::path::Path::new(&root), &runtime.path, version)
                .into_iter()
                .collect()
        }
        _ => Vec::new(),
    };
    Runtime {
        warnings,
        platform: loaded.platform,
        platform_reason: reason,
        libraries: loaded.libraries,
        version: loaded.version.unwrap_or_default(),
        attempts,
        table: loaded.table,
        _handles: loaded.handles,
    }
}

/// Loads a library built on the HIP runtime, as its -sys crate declares it:
/// the HIP runtime first (it chooses the platform), then the library's file
/// for that platform from the places that platform's libraries are searched,
/// then `backend` fills the table (AMD: resolve the library's symbols;
/// NVIDIA: install the crate's adapters). `backend` gets the platform, the
/// opened library and its path, and returns `Err(reason)` when the library
/// opened but cannot serve (recorded as the last attempt's outcome).
pub fn load_library<T>(
    spec: &LibrarySpec,
    backend: impl FnOnce(
        Platform,
        &Arc<libloading::Library>,
        &std::path::Path,
    ) -> Result<Loaded<T>, String>,
) -> Result<Library<T>, LoadError> {
    let rt = runtime().map_err(|e| LoadError::without_runtime(spec.name, e))?;
    let (names, locations) = spec.search(rt.platform);
    let mut attempts = Vec::new();
    let hint = match rt.platform {
        Platform::Amd => spec.amd_hint,
        Platform::Nvidia => spec.nvidia_hint,
    };
    let failed = |attempts| {
        LoadError::of_library(
            spec.name,
            Some(rt.platform),
            Some(names.role),
            attempts,
            hint,
        )
    };
    let Some((lib, path)) =
        search::open_first(names.role, &locations, names.for_this_os(), &mut attempts)
    else {
        return Err(failed(attempts));
    };
    let lib = Arc::new(lib);
    match backend(rt.platform, &lib, &path) {
        Ok(loaded) => Ok(Library::new(loaded, attempts)),
        Err(reason) => {
            if let Some(last) = attempts.last_mut() {
                last.outcome = Err(reason);
            }
            Err(failed(attempts))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `crate::...` paths a source file names (imports and qualified
    /// paths alike).
    fn crate_paths(text: &str) -> Vec<String> {
        text.match_indices("crate::")
            .map(|(i, _)| {
                text[i..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect()
            })
            .collect()
    }

    fn sources(dir: &std::path::Path) -> Vec<(std::path::PathBuf, String)> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                out.extend(sources(&path));
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path, text));
            }
        }
        out
    }

    /// The layering the loader relies on: the core and the search are
    /// leaves, and a backend reaches the loader only through them, so no
    /// backend and loader import each other.
    #[test]
    fn backends_and_the_core_do_not_import_the_loader() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = sources(&src.join("nvidia"));
        files.push((src.join("amd.rs"), include_str!("../amd.rs").to_owned()));
        let leaves = [
            ("common.rs", include_str!("common.rs")),
            ("search.rs", include_str!("search.rs")),
        ];
        assert!(files.len() > 5, "the NVIDIA backend's files were found");
        for (path, text) in &files {
            for p in crate_paths(text) {
                let allowed = !p.starts_with("crate::loader")
                    || p.starts_with("crate::loader::common")
                    || p.starts_with("crate::loader::search");
                assert!(allowed, "{} names {p}", path.display());
            }
        }
        for (name, text) in leaves {
            // The leaves' own tests may use the rest of the crate.
            let code = text.split("#[cfg(test)]").next().unwrap_or(text);
            for p in crate_paths(code) {
                assert!(
                    p.starts_with("crate::loader::search") || p == "crate::",
                    "the leaf {name} names {p}"
                );
            }
        }
    }

    #[test]
    fn the_platform_is_chosen_by_devices() {
        use crate::hipError_t;
        let none = Probe::Failed(hipError_t::hipErrorNoDevice);
        let (p, why) = choose(Probe::Devices(1), Probe::Absent);
        assert_eq!(
            (p, why.as_str()),
            (Some(Platform::Amd), "AMD runtime sees 1 device")
        );
        // The GPU machine: ROCm installed beside two NVIDIA GPUs.
        let (p, why) = choose(none, Probe::Devices(2));
        assert_eq!(p, Some(Platform::Nvidia));
        assert_eq!(
            why,
            "AMD runtime sees no device (hipErrorNoDevice); CUDA sees 2 devices"
        );
        let (p, _) = choose(Probe::Devices(0), Probe::Devices(2));
        assert_eq!(p, Some(Platform::Nvidia));
        let (p, why) = choose(Probe::Absent, Probe::Devices(1));
        assert_eq!(p, Some(Platform::Nvidia));
        assert_eq!(why, "AMD runtime not found; CUDA sees 1 device");
        // No device anywhere: the runtime that loaded, AMD first, so calls
        // return hipErrorNoDevice; the reason names both.
        let (p, why) = choose(none, Probe::Absent);
        assert_eq!(p, Some(Platform::Amd));
        assert_eq!(
            why,
            "no device: AMD runtime sees no device (hipErrorNoDevice); CUDA not found"
        );
        let (p, _) = choose(Probe::Absent, none);
        assert_eq!(p, Some(Platform::Nvidia));
        assert_eq!(choose(Probe::Absent, Probe::Absent).0, None);
        // AMD with devices wins even when CUDA has some too.
        assert_eq!(
            choose(Probe::Devices(4), Probe::Devices(2)).0,
            Some(Platform::Amd)
        );
    }

    #[test]
    fn versions_decode() {
        assert_eq!(
            Version::from_hip(60_443_483),
            Version {
                major: 6,
                minor: 4,
                patch: 43483
            }
        );
        assert_eq!(
            Version::from_hip(50_221_153),
            Version {
                major: 5,
                minor: 2,
                patch: 21153
            }
        );
        assert_eq!(
            Version::from_cuda(13_000),
            Version {
                major: 13,
                minor: 0,
                patch: 0
            }
        );
        assert_eq!(
            Version::from_cuda(12_090),
            Version {
                major: 12,
                minor: 9,
                patch: 0
            }
        );
        assert_eq!(Version::from_hip(-5), Version::default());
    }

    #[test]
    fn load_error_lists_every_attempt() {
        let e = LoadError::of_runtime(
            None,
            None,
            vec![Attempt {
                role: "HIP runtime",
                candidate: "/x/libamdhip64.so.6".into(),
                source: "ROCM_PATH".into(),
                outcome: Err("no such file".into()),
            }],
        );
        let text = e.to_string();
        assert!(
            text.contains("/x/libamdhip64.so.6 (ROCM_PATH): no such file"),
            "{text}"
        );
        assert!(text.contains(OVERRIDE_VAR));
        assert!(text.contains("hip_diagnostics::report()"), "{text}");
        assert!(text.contains("variables: HIP_PLATFORM"), "{text}");
    }

    #[test]
    fn load_error_names_a_missing_dependency() {
        let e = LoadError::of_runtime(
            None,
            None,
            vec![Attempt {
                role: "HIP runtime",
                candidate: "/opt/rocm/lib/libamdhip64.so.6".into(),
                source: "default /opt/rocm".into(),
                outcome: Err(
                    "libamd_comgr.so.2: cannot open shared object file: No such file or directory"
                        .into(),
                ),
            }],
        );
        let text = e.to_string();
        assert!(
            text.contains("found /opt/rocm/lib/libamdhip64.so.6 but it needs libamd_comgr.so.2"),
            "{text}"
        );
        assert_eq!(
            missing_dependency(
                std::path::Path::new("libamdhip64.so.7"),
                "libamdhip64.so.7: cannot open shared object file: No such file or directory"
            ),
            None
        );
    }
}
