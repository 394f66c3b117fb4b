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

use crate::generated::functions::{HipFunctions, LEGACY_SYMBOLS};
use std::ffi::{c_void, CStr};
use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;

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
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// One library the runtime was built from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedLibrary {
    /// What it serves, e.g. `"HIP runtime"`, `"hiprtc"`, `"CUDA runtime"`.
    pub role: &'static str,
    /// The file loaded.
    pub path: PathBuf,
}

/// The loaded runtime: platform, libraries, version, and how it was found.
pub struct Runtime {
    /// The platform chosen.
    pub platform: Platform,
    /// Why this platform: `HIP_PLATFORM`, or which runtime was found.
    pub platform_reason: String,
    /// The libraries opened, the main runtime first.
    pub libraries: Vec<LoadedLibrary>,
    /// The runtime's version: HIP's on AMD, the CUDA runtime's on NVIDIA.
    pub version: Version,
    /// Every path tried on the way, in order.
    pub attempts: Vec<Attempt>,
    pub(crate) table: HipFunctions,
    /// Keeps the libraries mapped for the life of the process.
    _handles: Vec<libloading::Library>,
}

impl fmt::Debug for Runtime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runtime")
            .field("platform", &self.platform)
            .field("platform_reason", &self.platform_reason)
            .field("libraries", &self.libraries)
            .field("version", &self.version)
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

/// Why no runtime could be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// What was asked for: `HIP_PLATFORM`'s value, or `None` to let the loader
    /// choose.
    pub requested: Option<String>,
    /// A problem before any search (an unknown `HIP_PLATFORM` value).
    pub problem: Option<String>,
    /// Every path tried, with the loader's reason.
    pub attempts: Vec<Attempt>,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(p) = &self.problem {
            write!(f, "no HIP runtime loaded: {p}")?;
            return write!(f, "\n{REPORT_HINT}");
        }
        match &self.requested {
            Some(p) => write!(f, "no HIP runtime found for HIP_PLATFORM={p}")?,
            None => write!(f, "no HIP runtime found (neither AMD's nor NVIDIA's)")?,
        }
        write!(f, "; tried {} paths:", self.attempts.len())?;
        for a in &self.attempts {
            write!(f, "\n  [{}] {a}", a.role)?;
        }
        // The candidates that exist but failed are the usual cause: say so
        // first, naming a missing dependency when the loader named one.
        for a in &self.attempts {
            if let Err(reason) = &a.outcome {
                match missing_dependency(&a.candidate, reason) {
                    Some(dep) => write!(
                        f,
                        "\nfound {} but it needs {dep}, which the loader cannot find (install it or add its folder to LD_LIBRARY_PATH)",
                        a.candidate.display()
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
            "\nInstall ROCm (or CUDA with HIP_PLATFORM=nvidia), or point {OVERRIDE_VAR} at the folder holding libamdhip64."
        )?;
        write!(f, "\n{REPORT_HINT}")
    }
}

/// Where load errors send the user for the whole picture.
const REPORT_HINT: &str = "For a full report (every candidate, versions, variables, devices): run `cargo run -p hip-examples --example info`, or call `hip::diagnostics::report()`.";

/// The library a loader message `libX: cannot open shared object file`
/// names when it is not the candidate itself: the candidate was found but
/// one of its dependencies was not.
fn missing_dependency(candidate: &std::path::Path, message: &str) -> Option<String> {
    let (name, _) = message.split_once(": cannot open shared object file")?;
    let name = name.trim();
    let named = std::path::Path::new(name);
    let is_candidate = named == candidate || named.file_name() == candidate.file_name();
    (!is_candidate && !name.is_empty()).then(|| name.to_owned())
}

impl std::error::Error for LoadError {}

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
        Some(other) => {
            return Err(LoadError {
                requested,
                problem: Some(format!(
                    "HIP_PLATFORM={other} is not a platform (use amd or nvidia)"
                )),
                attempts,
            })
        }
    };
    if choice != Some(Platform::Nvidia) {
        if let Some(rt) = load_amd(&mut attempts) {
            let reason = if choice.is_some() {
                "HIP_PLATFORM=amd"
            } else {
                "AMD runtime found"
            };
            return Ok(rt.finish(reason, attempts));
        }
    }
    if choice != Some(Platform::Amd) {
        if let Some(rt) = crate::nvidia::load(&mut attempts) {
            let reason = if choice.is_some() {
                "HIP_PLATFORM=nvidia"
            } else {
                "no AMD runtime found; NVIDIA's CUDA runtime found"
            };
            return Ok(rt.finish(reason, attempts));
        }
    }
    Err(LoadError {
        requested,
        problem: None,
        attempts,
    })
}

/// A runtime before its report is completed.
pub(crate) struct Loaded {
    pub(crate) platform: Platform,
    pub(crate) libraries: Vec<LoadedLibrary>,
    pub(crate) version: Version,
    pub(crate) table: HipFunctions,
    pub(crate) handles: Vec<libloading::Library>,
}

impl Loaded {
    fn finish(self, reason: &str, attempts: Vec<Attempt>) -> Runtime {
        Runtime {
            platform: self.platform,
            platform_reason: reason.to_owned(),
            libraries: self.libraries,
            version: self.version,
            attempts,
            table: self.table,
            _handles: self.handles,
        }
    }
}

const AMDHIP64: &[&str] = if cfg!(windows) {
    &["amdhip64_7.dll", "amdhip64_6.dll", "amdhip64.dll"]
} else {
    &[
        "libamdhip64.so.7",
        "libamdhip64.so.6",
        "libamdhip64.so.5",
        "libamdhip64.so",
    ]
};

fn load_amd(attempts: &mut Vec<Attempt>) -> Option<Loaded> {
    let locations = search::amd_locations();
    let (runtime, runtime_path) =
        search::open_first("HIP runtime", &locations, AMDHIP64, attempts)?;
    let version = amd_version(&runtime, &runtime_path);

    // hiprtc: ROCm 6 ships it apart, beside the runtime and of the same
    // major version; ROCm 5 keeps it inside libamdhip64.
    let mut rtc_names = Vec::new();
    if cfg!(windows) {
        rtc_names.push(format!("hiprtc0{}0{}.dll", version.major, version.minor));
    } else {
        rtc_names.push(format!("libhiprtc.so.{}", version.major));
    }
    let rtc_refs: Vec<&str> = rtc_names.iter().map(String::as_str).collect();
    let mut rtc_locations = Vec::new();
    if let Some(dir) = runtime_path.parent() {
        rtc_locations.push(Location {
            dir: Some(dir.to_path_buf()),
            source: "beside the HIP runtime".into(),
        });
    }
    rtc_locations.push(Location {
        dir: None,
        source: "system loader".into(),
    });
    let hiprtc = if version.major >= 6 {
        search::open_first("hiprtc", &rtc_locations, &rtc_refs, attempts)
    } else {
        None
    };

    let table = {
        let mut lookup = |name: &'static CStr| -> *mut c_void {
            let text = name.to_str().unwrap_or("");
            let symbol = LEGACY_SYMBOLS
                .iter()
                .find(|(binding, _, before)| *binding == text && version.major < *before)
                .map(|(_, legacy, _)| *legacy)
                .unwrap_or(text);
            if text.starts_with("hiprtc") {
                if let Some((lib, _)) = &hiprtc {
                    let p = symbol_address(lib, symbol);
                    if !p.is_null() {
                        return p;
                    }
                }
            }
            symbol_address(&runtime, symbol)
        };
        // SAFETY: each symbol is looked up by the name of the C function the
        // table field was generated from, in AMD's own libraries, so it has
        // that declaration's signature.
        unsafe { HipFunctions::resolve(&mut lookup) }
    };

    let mut libraries = vec![LoadedLibrary {
        role: "HIP runtime",
        path: runtime_path,
    }];
    let mut handles = vec![runtime];
    if let Some((lib, path)) = hiprtc {
        libraries.push(LoadedLibrary {
            role: "hiprtc",
            path,
        });
        handles.push(lib);
    }
    Some(Loaded {
        platform: Platform::Amd,
        libraries,
        version,
        table,
        handles,
    })
}

/// The runtime's own answer when it gives one, else the file name's.
fn amd_version(lib: &libloading::Library, path: &std::path::Path) -> Version {
    let from_file = search::version_from_file_name(path).map(|(major, minor, patch)| Version {
        major,
        minor,
        patch,
    });
    let f = symbol_address(lib, "hipRuntimeGetVersion");
    if !f.is_null() {
        // SAFETY: `hipRuntimeGetVersion(int*)` in every HIP release.
        let f: unsafe extern "C" fn(*mut i32) -> crate::hipError_t =
            unsafe { std::mem::transmute(f) };
        let mut v = 0i32;
        // SAFETY: `v` is a valid `int` to write to.
        if unsafe { f(&mut v) }.is_success() && v > 0 {
            return Version::from_hip(v);
        }
    }
    from_file.unwrap_or_default()
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
        let e = LoadError {
            requested: None,
            problem: None,
            attempts: vec![Attempt {
                role: "HIP runtime",
                candidate: "/x/libamdhip64.so.6".into(),
                source: "ROCM_PATH".into(),
                outcome: Err("no such file".into()),
            }],
        };
        let text = e.to_string();
        assert!(
            text.contains("/x/libamdhip64.so.6 (ROCM_PATH): no such file"),
            "{text}"
        );
        assert!(text.contains(OVERRIDE_VAR));
        assert!(text.contains("hip::diagnostics::report()"), "{text}");
        assert!(text.contains("variables: HIP_PLATFORM"), "{text}");
    }

    #[test]
    fn load_error_names_a_missing_dependency() {
        let e = LoadError {
            requested: None,
            problem: None,
            attempts: vec![Attempt {
                role: "HIP runtime",
                candidate: "/opt/rocm/lib/libamdhip64.so.6".into(),
                source: "default /opt/rocm".into(),
                outcome: Err(
                    "libamd_comgr.so.2: cannot open shared object file: No such file or directory"
                        .into(),
                ),
            }],
        };
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
