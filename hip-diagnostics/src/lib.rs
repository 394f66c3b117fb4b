//! A report that explains a machine to someone whose GPU program does not
//! start: which HIP runtime was found and why, what else was tried, which
//! variables are in effect and whether they agree with what was loaded,
//! the devices, whether rocBLAS has kernels for them, and the collectives
//! library (RCCL, or NCCL on NVIDIA).
//!
//! The `hip-info` program of this crate prints it, as `rocminfo` or
//! `nvidia-smi` print theirs: `cargo install hip-diagnostics`, then
//! `hip-info` (text) or `hip-info --json`.
//!
//! ```no_run
//! let report = hip_diagnostics::report();
//! println!("{report}");              // text
//! #[cfg(feature = "json")]
//! println!("{}", report.to_json());  // JSON, with the `json` feature
//! for w in &report.warnings {
//!     eprintln!("{}: {}", w.severity, w.message);
//! }
//! ```
//!
//! `Report::to_json` needs the `json` feature (on by default; it compiles
//! in `serde` and `serde_json`). Like the -sys crates it reads, this crate
//! links nothing at build time: the runtime and the libraries are opened
//! when the report is made, and what is missing is reported, never a panic.
//!
//! [`kernels`] is the other half of `hip-info`: `hip-info kernels FILE...`
//! reports what each kernel of a build's AMD code objects uses (registers,
//! spills, scratch, LDS, maximum workgroup, waves per SIMD), read through
//! `hip::code_object::kernels`.
//!
//! The report is built from two inputs that can be replaced for tests:
//! the [`Environment`] (variables, and the folders standing for `/opt/rocm`
//! and the system library folders) and the [`RuntimeFacts`] (what the loaded
//! runtime said). [`report`] uses the real ones; [`report_from`] takes them.
#![deny(missing_docs)]

mod arch;
mod environment;
pub mod kernels;
mod libraries;
mod probe;
mod text;

pub use arch::{ProcessorKernels, RocblasKernels};
pub use environment::{Environment, VARIABLES};
pub use libraries::{missing_dependency, BlasLibrary, CandidateResult};
pub use probe::{CollectivesFacts, DeviceFacts, LoadedRuntime, RuntimeFacts};

use environment::VISIBILITY_VARS;
use hip_sys::loader::search::{strip_verbatim, Os};
use hip_sys::loader::{Platform, Version};
use std::fmt;
use std::path::{Path, PathBuf};

/// The oldest ROCm release the bindings are meant for (hip-sys's
/// `package.metadata.rocm.minimum-runtime`).
pub const MINIMUM_RUNTIME: Version = Version {
    major: 5,
    minor: 7,
    patch: 0,
};

/// How much a finding matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
#[cfg_attr(feature = "json", serde(rename_all = "snake_case"))]
pub enum Severity {
    /// Worth knowing; nothing is wrong.
    Info,
    /// Something will likely go wrong, or is not what the user meant.
    Warning,
    /// GPU programs cannot run as things are.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Warning {
    /// How much it matters.
    pub severity: Severity,
    /// What is wrong and what to do.
    pub message: String,
}

/// A library the runtime was built from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Library {
    /// What it serves, e.g. `HIP runtime`.
    pub role: String,
    /// The file loaded.
    pub path: String,
    /// The version in its file name (symbolic links resolved), if any.
    pub file_version: Option<String>,
}

/// One runtime library candidate and how it fared.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Candidate {
    /// What the library is for.
    pub role: String,
    /// The path given to the loader (a bare name: the loader's own search).
    pub path: String,
    /// Why it was tried: which variable or default.
    pub source: String,
    /// What happened.
    pub result: CandidateResult,
}

/// Runtime and driver versions.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Versions {
    /// The version the loader recorded for the runtime in use.
    pub loaded: Option<String>,
    /// `hipRuntimeGetVersion`, decoded.
    pub runtime: Option<String>,
    /// `hipRuntimeGetVersion`'s raw value.
    pub runtime_raw: Option<i32>,
    /// `hipDriverGetVersion`, decoded.
    pub driver: Option<String>,
    /// `hipDriverGetVersion`'s raw value.
    pub driver_raw: Option<i32>,
    /// Errors from either call.
    pub errors: Vec<String>,
    /// Whether runtime and driver go together: `None` when unknown.
    pub consistent: Option<bool>,
    /// The verdict in words.
    pub assessment: String,
    /// AMD: the kernel driver (`/sys/module/amdgpu`), `None` when not loaded.
    pub kernel_driver: Option<String>,
}

/// A variable the report reads.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Variable {
    /// Its name.
    pub name: String,
    /// Its value; `None` when unset.
    pub value: Option<String>,
    /// What it does.
    pub meaning: String,
    /// What its value means here, when set.
    pub assessment: Option<String>,
}

/// One device.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Device {
    /// Ordinal.
    pub ordinal: i32,
    /// Name.
    pub name: String,
    /// Architecture string, e.g. `gfx90a:sramecc+:xnack-`.
    pub arch: String,
    /// Its processor, e.g. `gfx90a`.
    pub processor: String,
    /// Global memory in bytes.
    pub total_memory_bytes: u64,
    /// Compute units (AMD) or multiprocessors (NVIDIA).
    pub compute_units: i32,
    /// Compute capability, `major.minor`.
    pub compute_capability: String,
    /// Native f16 arithmetic.
    pub f16: bool,
    /// Native bf16 arithmetic or matrix instructions.
    pub bf16: bool,
    /// AMD: whether the rocBLAS in use has kernel files for its processor
    /// (`None`: no rocBLAS, or not AMD).
    pub rocblas_kernels: Option<bool>,
    /// Why its properties could not be read.
    pub error: Option<String>,
}

/// The collectives library the `rccl` crate would load: where, which
/// version (`ncclGetVersion`), or why none was found.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Collectives {
    /// `RCCL` or `NCCL` and its file, when found.
    pub library: Option<Library>,
    /// The NCCL API version it reports, e.g. `2.13.4 (21304)`.
    pub api_version: Option<String>,
    /// Why there is none, or why its version could not be read.
    pub problem: Option<String>,
}

impl Collectives {
    fn from_facts(facts: &Result<CollectivesFacts, String>) -> Collectives {
        match facts {
            Err(why) => Collectives {
                library: None,
                api_version: None,
                problem: Some(why.clone()),
            },
            Ok(p) => {
                let (api_version, problem) = match &p.api_version {
                    Ok(code) => (
                        Some(format!("{} ({code})", rccl_sys::nccl_version_text(*code))),
                        None,
                    ),
                    Err(why) => (None, Some(why.clone())),
                };
                Collectives {
                    library: Some(Library {
                        role: p.role.to_owned(),
                        path: p.path.display().to_string(),
                        file_version: p.file_version.map(|v| v.to_string()),
                    }),
                    api_version,
                    problem,
                }
            }
        }
    }
}

/// Everything the report found. Display gives the text form;
/// `Report::to_json` (with the `json` feature) the JSON form.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct Report {
    /// `amd` or `nvidia`; `None` when no runtime loaded.
    pub platform: Option<String>,
    /// Why that platform, or why none.
    pub platform_reason: String,
    /// The libraries loaded, the runtime first.
    pub libraries: Vec<Library>,
    /// Every runtime library candidate tried, in order.
    pub candidates: Vec<Candidate>,
    /// Runtime and driver versions.
    pub versions: Versions,
    /// The variables read, set or not.
    pub variables: Vec<Variable>,
    /// The devices.
    pub devices: Vec<Device>,
    /// Why there are no devices, when the runtime said so.
    pub device_error: Option<String>,
    /// AMD: rocBLAS's kernel folder and its coverage of the devices.
    pub rocblas: Option<RocblasKernels>,
    /// rocBLAS and hipBLAS files found in the search locations.
    pub blas_libraries: Vec<BlasLibrary>,
    /// The collectives library (RCCL; NCCL on NVIDIA), or why none.
    pub collectives: Collectives,
    /// Findings, most severe first.
    pub warnings: Vec<Warning>,
}

impl Report {
    /// The report as pretty-printed JSON (with the `json` feature, which
    /// compiles in `serde` and `serde_json`).
    #[cfg(feature = "json")]
    pub fn to_json(&self) -> String {
        // Every field is a string, number, bool, list or map of those, so
        // serialisation cannot fail; a failure would be a bug here.
        serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }

    /// The most severe finding, if any.
    pub fn worst(&self) -> Option<Severity> {
        self.warnings.iter().map(|w| w.severity).max()
    }
}

/// The report for this process: its environment and its runtime (loading
/// it if it is not loaded yet).
pub fn report() -> Report {
    report_from(&Environment::from_process(), &RuntimeFacts::query())
}

/// Whether `library` or its folder can be written by any user (the
/// "others" write bit), and which: a library there can be replaced, or a
/// look-alike planted beside it.
fn writable_by_anyone(library: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let world =
            |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o002 != 0);
        let file = canonical(library);
        if world(&file) {
            return Some(format!(
                "the file {} is writable by all users",
                file.display()
            ));
        }
        if let Some(dir) = file.parent() {
            if world(dir) {
                return Some(format!(
                    "the folder {} is writable by all users",
                    dir.display()
                ));
            }
        }
        None
    }
    #[cfg(not(unix))]
    {
        let _ = library;
        None
    }
}

/// The report for a given environment and runtime facts.
pub fn report_from(env: &Environment, rt: &RuntimeFacts) -> Report {
    let mut warnings = Vec::new();
    let platform = rt.loaded.as_ref().map(|l| l.platform);
    let loaded_runtime: Option<PathBuf> = rt
        .loaded
        .as_ref()
        .filter(|l| l.platform == Platform::Amd)
        .and_then(|l| l.libraries.first())
        .map(|l| canonical(&l.path));

    let candidates: Vec<Candidate> = rt
        .attempts
        .iter()
        .map(|a| Candidate {
            role: a.role.to_owned(),
            path: a.candidate.display().to_string(),
            source: a.source.clone(),
            result: CandidateResult::classify(&a.candidate, &a.outcome),
        })
        .collect();
    candidate_warnings(&candidates, rt.loaded.is_some(), &mut warnings);
    if let Some(l) = &rt.loaded {
        for lib in &l.libraries {
            if let Some(what) = writable_by_anyone(&lib.path) {
                warnings.push(Warning {
                    severity: Severity::Warning,
                    message: format!(
                        "the {} in use ({}) sits where anyone can write: {what}; another user can replace or plant a library there; install it in a folder only its owner can write",
                        lib.role,
                        lib.path.display()
                    ),
                });
            }
        }
    }
    if let (Some(l), Some(hip_path)) = (&rt.loaded, env.nonempty("HIP_PATH")) {
        let runtime = l.libraries.first().filter(|_| l.platform == Platform::Amd);
        if let Some(message) = runtime.and_then(|r| {
            hip_sys::loader::common::sdk_mismatch_warning(Path::new(hip_path), &r.path, l.version)
        }) {
            warnings.push(Warning {
                severity: Severity::Warning,
                message,
            });
        }
    }
    if rt.loaded.is_none() {
        warnings.push(Warning {
            severity: Severity::Error,
            message: format!(
                "no HIP runtime loaded: {}",
                rt.load_problem
                    .as_deref()
                    .unwrap_or("every candidate failed")
            ),
        });
    }

    let mut versions = versions(rt, &mut warnings);
    if platform != Some(Platform::Nvidia) {
        versions.kernel_driver = env.amdgpu_driver();
    }
    let mut variables = Vec::new();
    for (name, meaning) in VARIABLES {
        let value = env.var(name).map(str::to_owned);
        let assessment = value.as_deref().and_then(|v| {
            assess_variable(
                name,
                v,
                platform,
                loaded_runtime.as_deref(),
                rt,
                &mut warnings,
            )
        });
        variables.push(Variable {
            name: (*name).to_owned(),
            value,
            meaning: (*meaning).to_owned(),
            assessment,
        });
    }

    let (device_facts, device_error) = match &rt.devices {
        Ok(d) => (d.clone(), None),
        Err(e) => (Vec::new(), Some(e.clone())),
    };
    let mut devices: Vec<Device> = device_facts
        .iter()
        .map(|d| Device {
            ordinal: d.ordinal,
            name: d.name.clone(),
            arch: d.arch.clone(),
            processor: arch::processor(&d.arch).to_owned(),
            total_memory_bytes: d.total_memory,
            compute_units: d.compute_units,
            compute_capability: format!("{}.{}", d.compute_capability.0, d.compute_capability.1),
            f16: arch::native_f16(&d.arch, d.compute_capability),
            bf16: arch::native_bf16(&d.arch, d.compute_capability),
            rocblas_kernels: None,
            error: d.error.clone(),
        })
        .collect();
    for d in &devices {
        if let Some(e) = &d.error {
            warnings.push(Warning {
                severity: Severity::Warning,
                message: format!("device {}: properties unreadable: {e}", d.ordinal),
            });
        }
    }
    if rt.loaded.is_some() && devices.is_empty() {
        warnings.push(no_device_warning(env, platform, device_error.as_deref()));
    }

    let dirs = env.library_dirs();
    let blas_libraries = libraries::blas_libraries(&dirs);
    let rocblas = if platform != Some(Platform::Nvidia) {
        rocblas_coverage(env, &blas_libraries, &mut devices, &mut warnings)
    } else {
        None
    };

    warnings.sort_by_key(|w| std::cmp::Reverse(w.severity));
    Report {
        platform: platform.map(|p| p.to_string()),
        platform_reason: match &rt.loaded {
            Some(l) => l.reason.clone(),
            None => rt
                .load_problem
                .clone()
                .unwrap_or_else(|| "no runtime found".into()),
        },
        libraries: rt
            .loaded
            .iter()
            .flat_map(|l| &l.libraries)
            .map(|l| Library {
                role: l.role.to_owned(),
                path: l.path.display().to_string(),
                // A bare name (the system loader's pick, unresolved) says
                // only the soname's major version: not worth reporting.
                file_version: Some(canonical(&l.path))
                    .filter(|p| p.is_absolute())
                    .and_then(|p| hip_sys::loader::search::version_from_file_name(&p))
                    .map(|(a, b, c)| format!("{a}.{b}.{c}")),
            })
            .collect(),
        candidates,
        versions,
        variables,
        devices,
        device_error,
        rocblas,
        blas_libraries,
        collectives: Collectives::from_facts(&rt.collectives),
        warnings,
    }
}

/// `p` with links resolved, in the plain form (see
/// [`hip_sys::loader::search::strip_verbatim`]).
fn canonical(p: &Path) -> PathBuf {
    strip_verbatim(std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
}

/// What a library the loader could not find usually is, and where it
/// comes from.
fn dependency_hint(name: &str) -> &'static str {
    let dll = name.to_ascii_lowercase().ends_with(".dll");
    if name.contains("amd_comgr") && dll {
        " (ROCm's code object manager, COMGR: AMD's HIP SDK installs it in its bin folder beside the runtime, the graphics driver in System32)"
    } else if name.contains("amd_comgr") {
        " (ROCm's code object manager, COMGR: package amd-comgr, on Debian libamd-comgr2)"
    } else if name.contains("hsa-runtime64") {
        " (ROCm's HSA runtime: package hsa-rocr, on Debian libhsa-runtime64-1)"
    } else if name.contains("hsakmt") {
        " (ROCm's kernel-driver thunk: package hsakmt, on Debian libhsakmt1)"
    } else if name.contains("numa") {
        " (libnuma: package libnuma1)"
    } else {
        ""
    }
}

fn candidate_warnings(candidates: &[Candidate], loaded: bool, warnings: &mut Vec<Warning>) {
    let severity = if loaded {
        Severity::Warning
    } else {
        Severity::Error
    };
    let skipped = if loaded {
        "was skipped"
    } else {
        "cannot be used"
    };
    for c in candidates {
        let message = match &c.result {
            CandidateResult::Loaded | CandidateResult::NotFound => continue,
            CandidateResult::MissingDependency { name } => format!(
                "{} ({}) {skipped}: it needs {name}{}, which the loader cannot find; {}",
                c.path,
                c.source,
                dependency_hint(name),
                hip_sys::loader::common::dependency_remedy(name)
            ),
            other => format!("{} ({}) {skipped}: {}", c.path, c.source, other.describe()),
        };
        warnings.push(Warning { severity, message });
    }
}

fn versions(rt: &RuntimeFacts, warnings: &mut Vec<Warning>) -> Versions {
    let platform = rt.loaded.as_ref().map(|l| l.platform);
    let decode = |v: i32| match platform {
        Some(Platform::Nvidia) => Version::from_cuda(v),
        _ => Version::from_hip(v),
    };
    let mut errors = Vec::new();
    let runtime_raw = match &rt.runtime_version {
        Ok(v) => Some(*v),
        Err(e) => {
            errors.push(format!("hipRuntimeGetVersion: {e}"));
            None
        }
    };
    let driver_raw = match &rt.driver_version {
        Ok(v) => Some(*v),
        Err(e) => {
            errors.push(format!("hipDriverGetVersion: {e}"));
            None
        }
    };
    let runtime = runtime_raw.map(decode);
    let driver = driver_raw.map(decode);
    let (consistent, assessment) = match (platform, runtime, driver) {
        (None, ..) => (None, "no runtime loaded".to_owned()),
        (Some(Platform::Nvidia), Some(r), Some(d)) => {
            if (d.major, d.minor) >= (r.major, r.minor) {
                (
                    Some(true),
                    format!(
                        "the driver supports CUDA {}.{}, enough for runtime {}.{}",
                        d.major, d.minor, r.major, r.minor
                    ),
                )
            } else {
                (
                    Some(false),
                    format!("the driver supports CUDA {}.{} only, older than the runtime's {}.{}: update the NVIDIA driver", d.major, d.minor, r.major, r.minor),
                )
            }
        }
        (Some(Platform::Amd), Some(r), Some(d)) if d.major > 0 => {
            if (d.major, d.minor) == (r.major, r.minor) {
                (
                    Some(true),
                    format!("runtime and driver are both HIP {}.{}", r.major, r.minor),
                )
            } else {
                (
                    Some(false),
                    format!("runtime is HIP {}.{} but the driver reports {}.{}: libraries from two ROCm releases are mixed", r.major, r.minor, d.major, d.minor),
                )
            }
        }
        (Some(_), Some(_), Some(_)) => (
            None,
            format!(
                "the driver reports {}, which is not a version number to compare",
                driver_raw.unwrap_or(0)
            ),
        ),
        (Some(_), _, _) => (None, "not both versions are known".to_owned()),
    };
    if consistent == Some(false) {
        warnings.push(Warning {
            severity: Severity::Warning,
            message: format!("runtime and driver disagree: {assessment}"),
        });
    }
    if let Some(l) = rt.loaded.as_ref().filter(|l| l.platform == Platform::Amd) {
        if l.version < MINIMUM_RUNTIME && l.version.major > 0 {
            warnings.push(Warning {
                severity: Severity::Warning,
                message: format!(
                    "HIP runtime {} is older than {}.{}, the oldest these bindings target: functions it lacks return hipErrorNotSupported",
                    l.version, MINIMUM_RUNTIME.major, MINIMUM_RUNTIME.minor
                ),
            });
        }
    }
    Versions {
        loaded: rt.loaded.as_ref().map(|l| l.version.to_string()),
        runtime: runtime.map(|v| v.to_string()),
        runtime_raw,
        driver: driver.map(|v| v.to_string()),
        driver_raw,
        errors,
        consistent,
        assessment,
        kernel_driver: None,
    }
}

/// The ROCm release a root names, from `<root>/.info/version`.
fn rocm_release(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(root.join(".info").join("version")).ok()?;
    Some(text.trim().to_owned()).filter(|t| !t.is_empty())
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn assess_variable(
    name: &str,
    value: &str,
    platform: Option<Platform>,
    loaded_runtime: Option<&Path>,
    rt: &RuntimeFacts,
    warnings: &mut Vec<Warning>,
) -> Option<String> {
    let mut warn = |severity, message: String| {
        warnings.push(Warning { severity, message });
    };
    match name {
        "ROCM_PATH" | "HIP_PATH" | "HIP_SYS_LIBRARY_PATH" => {
            if value.is_empty() {
                return Some("empty: ignored".into());
            }
            let root = Path::new(value);
            if !root.exists() {
                warn(Severity::Warning, format!("{name}={value} does not exist"));
                return Some("does not exist".into());
            }
            let dir = if name == "HIP_SYS_LIBRARY_PATH" {
                if root.is_file() {
                    root.parent().unwrap_or(root).to_path_buf()
                } else {
                    root.to_path_buf()
                }
            } else {
                root.join(if cfg!(windows) { "bin" } else { "lib" })
            };
            // An SDK root's runtime may sit in lib/, lib64/ or the
            // distribution's multiarch folder (Debian: HIP_PATH=/usr).
            let mut files = libraries::runtime_files_in(&dir);
            if name != "HIP_SYS_LIBRARY_PATH" && !cfg!(windows) {
                let multiarch = format!("lib/{}-linux-gnu", std::env::consts::ARCH);
                for sub in ["lib64", multiarch.as_str()] {
                    for f in libraries::runtime_files_in(&root.join(sub)) {
                        if !files.contains(&f) {
                            files.push(f);
                        }
                    }
                }
            }
            let release = rocm_release(root)
                .map(|r| format!(" (ROCm {r})"))
                .unwrap_or_default();
            if platform == Some(Platform::Nvidia) {
                return Some(format!(
                    "not used on the nvidia platform; holds {}",
                    if files.is_empty() {
                        "no HIP runtime".into()
                    } else {
                        list(&files)
                    }
                ));
            }
            let Some(loaded) = loaded_runtime else {
                return Some(if files.is_empty() {
                    format!("no HIP runtime in {}", dir.display())
                } else {
                    format!("holds {}{release}", list(&files))
                });
            };
            if files.iter().any(|f| f == loaded) {
                return Some(format!("holds the runtime in use{release}"));
            }
            let in_use = loaded.display();
            if files.is_empty() {
                warn(
                    Severity::Warning,
                    format!(
                        "{name}={value} has no HIP runtime in {}; the runtime in use is {in_use}",
                        dir.display()
                    ),
                );
                return Some(format!("no HIP runtime in {}", dir.display()));
            }
            let why = rt
                .attempts
                .iter()
                .find(|a| files.contains(&canonical(&a.candidate)) && a.outcome.is_err())
                .map(|a| {
                    format!(
                        " ({} did not load: {})",
                        a.candidate.display(),
                        CandidateResult::classify(&a.candidate, &a.outcome).describe()
                    )
                })
                .unwrap_or_default();
            warn(
                Severity::Warning,
                format!(
                    "{name}={value} names a different HIP SDK{release} ({}) than the one in use ({in_use}){why}; \
                     kernels compiled with that SDK's hipcc may not match this runtime: point {name} at the SDK in use or unset it",
                    list(&files)
                ),
            );
            Some(format!(
                "names a different SDK than the one in use: {}",
                list(&files)
            ))
        }
        "CUDA_PATH" | "CUDA_HOME" => {
            if value.is_empty() {
                return Some("empty: ignored".into());
            }
            let lib = Path::new(value).join(if cfg!(windows) { "bin" } else { "lib64" });
            if !Path::new(value).exists() {
                if platform == Some(Platform::Nvidia) {
                    warn(Severity::Warning, format!("{name}={value} does not exist"));
                }
                return Some("does not exist".into());
            }
            let files = libraries::cuda_runtime_files_in(&lib);
            let in_use = rt
                .loaded
                .as_ref()
                .filter(|l| l.platform == Platform::Nvidia)
                .and_then(|l| l.libraries.iter().find(|l| l.role == "CUDA runtime"))
                .map(|l| canonical(&l.path));
            let Some(in_use) = in_use else {
                return Some(if platform == Some(Platform::Amd) {
                    "not used on the amd platform".into()
                } else if files.is_empty() {
                    format!("no CUDA runtime in {}", lib.display())
                } else {
                    format!("holds {}", list(&files))
                });
            };
            if files.contains(&in_use) {
                return Some("holds the CUDA runtime in use".into());
            }
            if files.is_empty() {
                return Some(format!("no CUDA runtime in {}", lib.display()));
            }
            warn(
                Severity::Warning,
                format!(
                    "{name}={value} names another CUDA ({}) than the one in use ({}): kernels built with its nvcc may need a newer runtime",
                    list(&files),
                    in_use.display()
                ),
            );
            Some(format!(
                "names another CUDA than the one in use: {}",
                list(&files)
            ))
        }
        "HSA_OVERRIDE_GFX_VERSION" => match arch::override_processor(value) {
            None => {
                warn(
                    Severity::Warning,
                    format!("HSA_OVERRIDE_GFX_VERSION={value} is not major.minor.stepping (e.g. 10.3.0)"),
                );
                Some("malformed".into())
            }
            Some(p) if platform == Some(Platform::Nvidia) => Some(format!(
                "would present AMD devices as {p}; no effect on the nvidia platform"
            )),
            Some(p) => {
                warn(
                    Severity::Info,
                    format!(
                        "HSA_OVERRIDE_GFX_VERSION={value}: AMD devices present themselves as {p}, and code built for {p} runs on them; AMD does not support this, and it fails when the hardware differs"
                    ),
                );
                Some(format!("devices present themselves as {p}"))
            }
        },
        _ if VISIBILITY_VARS.contains(&name) => {
            let amd_only = name != "CUDA_VISIBLE_DEVICES";
            if platform == Some(Platform::Nvidia) && amd_only {
                warn(
                    Severity::Info,
                    format!("{name}={value} is read by ROCm only; on the nvidia platform use CUDA_VISIBLE_DEVICES"),
                );
                return Some("ignored on the nvidia platform".into());
            }
            let trimmed = value.trim();
            if trimmed.is_empty() || trimmed == "-1" {
                warn(
                    Severity::Warning,
                    format!("{name}={value:?} hides every device"),
                );
                return Some("hides every device".into());
            }
            Some(format!("only devices {trimmed} are visible"))
        }
        "HIP_PLATFORM" => Some(match value.to_ascii_lowercase().as_str() {
            "amd" | "hcc" | "nvidia" | "nvcc" => format!("asks for the {value} platform"),
            "emulated" | "emu" => "asks for the software AMD GPU (hip-emu)".into(),
            "" => "empty: the loader chooses".into(),
            _ => "not a platform (use amd, nvidia or emulated)".into(),
        }),
        "ROCBLAS_TENSILE_LIBPATH" => {
            Some(if Path::new(value).is_dir() {
                "rocBLAS reads its kernels from here".into()
            } else {
                warn(
                Severity::Warning,
                format!("ROCBLAS_TENSILE_LIBPATH={value} is not a folder: rocBLAS will find no kernels"),
            );
                "not a folder".into()
            })
        }
        _ => None,
    }
}

fn no_device_warning(
    env: &Environment,
    platform: Option<Platform>,
    error: Option<&str>,
) -> Warning {
    let mut message = format!(
        "no GPU device: {}",
        error.unwrap_or("the runtime reports 0 devices")
    );
    let hidden: Vec<String> = VISIBILITY_VARS
        .iter()
        .filter_map(|v| env.var(v).map(|value| format!("{v}={value:?}")))
        .collect();
    if !hidden.is_empty() {
        message.push_str(&format!("; {} may hide devices", hidden.join(", ")));
    }
    match platform {
        // Windows has no /dev/kfd: the graphics driver is the runtime's
        // way to the GPU.
        Some(Platform::Amd) if Os::CURRENT == Os::Windows => message.push_str(
            "; check that the AMD graphics driver (Adrenalin or PRO) is installed and supports this GPU for HIP",
        ),
        Some(Platform::Amd) => {
            let kfd = env.kfd();
            if kfd.exists() {
                message.push_str(&format!(
                    "; {} exists: check this user may open it and /dev/dri/renderD* (groups render and video)",
                    kfd.display()
                ));
            } else {
                message.push_str(&format!(
                    "; {} does not exist: the amdgpu kernel driver is not loaded, or this container was started without --device={}",
                    kfd.display(),
                    kfd.display()
                ));
            }
        }
        Some(Platform::Nvidia) => message.push_str(
            "; check that nvidia-smi lists the GPU and that the driver matches the CUDA runtime",
        ),
        None => {}
    }
    Warning {
        severity: Severity::Error,
        message,
    }
}

fn rocblas_coverage(
    env: &Environment,
    blas: &[BlasLibrary],
    devices: &mut [Device],
    warnings: &mut Vec<Warning>,
) -> Option<RocblasKernels> {
    let in_use = blas
        .iter()
        .find(|b| b.name == "rocBLAS" && b.first_in_search_order);
    let Some(in_use) = in_use else {
        if blas.iter().any(|b| b.name == "hipBLAS") {
            warnings.push(Warning {
                severity: Severity::Warning,
                message: "hipBLAS is installed but no rocBLAS was found in the search locations: hipBLAS calls will fail".into(),
            });
        } else {
            warnings.push(Warning {
                severity: Severity::Info,
                message: "no rocBLAS or hipBLAS library found in the search locations: the hipblas crate will not load".into(),
            });
        }
        return None;
    };
    let library = PathBuf::from(&in_use.path);
    let kernel_dir = arch::rocblas_kernel_dir(&library, env.nonempty("ROCBLAS_TENSILE_LIBPATH"));
    let processors: Vec<String> = devices.iter().map(|d| d.processor.clone()).collect();
    let coverage = arch::rocblas_kernels(Some(&library), kernel_dir.as_deref(), &processors);
    let dir_text = kernel_dir
        .as_ref()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    if !kernel_dir.as_ref().is_some_and(|d| d.is_dir()) {
        warnings.push(Warning {
            severity: Severity::Error,
            message: format!(
                "rocBLAS {} has no kernel folder ({dir_text} is missing): every rocBLAS/hipBLAS call will fail",
                in_use.path
            ),
        });
    }
    for d in devices.iter_mut() {
        let files = coverage
            .per_processor
            .iter()
            .find(|k| k.processor == d.processor)
            .map_or(0, |k| k.files);
        d.rocblas_kernels = Some(files > 0);
        if files == 0 {
            let available = if coverage.processors_available.is_empty() {
                "none".to_owned()
            } else {
                coverage.processors_available.join(", ")
            };
            warnings.push(Warning {
                severity: Severity::Error,
                message: format!(
                    "device {} ({}, {}) has no rocBLAS kernels: no file in {dir_text} names {} (it has kernels for: {available}). \
                     rocBLAS and hipBLAS calls on this device will fail; install a rocBLAS built for {}",
                    d.ordinal, d.name, d.arch, d.processor, d.processor
                ),
            });
        }
    }
    Some(coverage)
}

#[cfg(test)]
mod tests;

/// The README's examples, compiled and run by `cargo test --doc`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
