//! Library files: how a load attempt went, and which rocBLAS/hipBLAS files
//! a folder holds.

use hip_sys::loader::search::{strip_verbatim, Os};
use std::path::{Path, PathBuf};

/// How one runtime library candidate fared.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
#[cfg_attr(feature = "json", serde(tag = "kind", rename_all = "snake_case"))]
pub enum CandidateResult {
    /// Loaded: this is the runtime in use.
    Loaded,
    /// No file there (or the system loader knows none of that name).
    NotFound,
    /// The file exists but a library it needs cannot be found.
    MissingDependency {
        /// The library the loader could not find, e.g. `libamd_comgr.so.2`.
        name: String,
    },
    /// The file exists but needs symbols or symbol versions other
    /// libraries on the machine lack: another ROCm release is mixed in.
    WrongVersion {
        /// The loader's message.
        detail: String,
    },
    /// The file exists but is not a loadable library for this machine
    /// (empty, truncated, not ELF, 32-bit).
    NotALibrary {
        /// The loader's message.
        detail: String,
    },
    /// The path exists but cannot be read: permissions, a folder, or a
    /// symbolic link to nothing.
    Unreadable {
        /// What is wrong.
        detail: String,
    },
    /// Any other failure.
    Failed {
        /// The loader's message.
        detail: String,
    },
}

impl CandidateResult {
    /// Reads a load attempt's outcome: the loader's message, checked
    /// against the file system where the message is ambiguous.
    pub fn classify(candidate: &Path, outcome: &Result<(), String>) -> CandidateResult {
        let msg = match outcome {
            Ok(()) => return CandidateResult::Loaded,
            Err(m) => m.as_str(),
        };
        let detail = msg.to_owned();
        if let Some(name) = missing_dependency(candidate, msg) {
            return CandidateResult::MissingDependency { name };
        }
        if msg.starts_with("no such file") || msg.contains("No such file or directory") {
            if let Ok(meta) = std::fs::symlink_metadata(candidate) {
                if meta.file_type().is_symlink() {
                    let target = std::fs::read_link(candidate)
                        .map(|t| t.display().to_string())
                        .unwrap_or_default();
                    return CandidateResult::Unreadable {
                        detail: format!("symbolic link to {target}, which does not exist"),
                    };
                }
            }
            return CandidateResult::NotFound;
        }
        if msg.contains("Permission denied")
            || msg.contains("Is a directory")
            || msg.contains("cannot read file data")
        {
            return CandidateResult::Unreadable { detail };
        }
        if msg.contains("invalid ELF header")
            || msg.contains("(os error 193)")
            || msg.contains("file too short")
            || msg.contains("wrong ELF class")
            || msg.contains("not a dynamic")
        {
            return CandidateResult::NotALibrary { detail };
        }
        if msg.contains("version `") || msg.contains("undefined symbol") {
            return CandidateResult::WrongVersion { detail };
        }
        CandidateResult::Failed { detail }
    }

    /// A short phrase for the text report.
    pub fn describe(&self) -> String {
        match self {
            CandidateResult::Loaded => "loaded".into(),
            CandidateResult::NotFound => "not found".into(),
            CandidateResult::MissingDependency { name } => {
                format!("exists, but needs {name}, which the loader cannot find")
            }
            CandidateResult::WrongVersion { detail } => {
                format!("exists, but does not match the other libraries: {detail}")
            }
            CandidateResult::NotALibrary { detail } => format!("not a loadable library: {detail}"),
            CandidateResult::Unreadable { detail } => format!("unreadable: {detail}"),
            CandidateResult::Failed { detail } => format!("failed: {detail}"),
        }
    }
}

/// The library named in a loader message of the form `libX: cannot open
/// shared object file`, when it is not the candidate itself (the loader
/// core's reading, so the report and the load error agree).
pub use hip_sys::loader::missing_dependency;

/// A rocBLAS or hipBLAS library file found in a searched folder.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "json", derive(serde::Serialize))]
pub struct BlasLibrary {
    /// `"rocBLAS"` or `"hipBLAS"`.
    pub name: String,
    /// The file (symbolic links resolved: the versioned file).
    pub path: String,
    /// The library's version from its file name (`librocblas.so.4.2.0` ->
    /// `4.2.0`); the library's own numbering, not ROCm's.
    pub version: Option<String>,
    /// Which search location it is in.
    pub source: String,
    /// Whether it is the first of its name in search order: the one a
    /// program would load.
    pub first_in_search_order: bool,
}

/// The rocBLAS/hipBLAS files in the given folders, in search order.
pub(super) fn blas_libraries(dirs: &[(PathBuf, String)]) -> Vec<BlasLibrary> {
    let mut out: Vec<BlasLibrary> = Vec::new();
    // Linux: versioned files behind `librocblas.so`; Windows: one DLL each.
    let libraries = match Os::CURRENT {
        Os::Unix => [("librocblas.so", "rocBLAS"), ("libhipblas.so", "hipBLAS")],
        Os::Windows => [("rocblas.dll", "rocBLAS"), ("hipblas.dll", "hipBLAS")],
    };
    for (prefix, name) in libraries {
        let mut seen: Vec<PathBuf> = Vec::new();
        for (dir, source) in dirs {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut files: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|f| f.to_str())
                        .is_some_and(|f| f == prefix || f.starts_with(&format!("{prefix}.")))
                })
                .collect();
            files.sort();
            for f in files {
                let real = strip_verbatim(std::fs::canonicalize(&f).unwrap_or(f));
                if seen.contains(&real) {
                    continue;
                }
                seen.push(real.clone());
                let version = hip_sys::loader::search::version_from_file_name(&real)
                    .map(|(a, b, c)| format!("{a}.{b}.{c}"));
                out.push(BlasLibrary {
                    name: name.to_owned(),
                    path: real.display().to_string(),
                    version,
                    source: source.clone(),
                    first_in_search_order: seen.len() == 1,
                });
            }
        }
    }
    out
}

/// The HIP runtime files (`libamdhip64.so*`) in a folder, resolved.
pub(super) fn runtime_files_in(dir: &Path) -> Vec<PathBuf> {
    files_named_in(dir, &["libamdhip64.so", "amdhip64"])
}

/// The CUDA runtime files (`libcudart.so*`) in a folder, resolved.
pub(super) fn cuda_runtime_files_in(dir: &Path) -> Vec<PathBuf> {
    files_named_in(dir, &["libcudart.so", "cudart64"])
}

/// The files in `dir` whose names start with one of `prefixes`, symbolic
/// links resolved, without repeats.
fn files_named_in(dir: &Path, prefixes: &[&str]) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for e in entries.filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        if prefixes.iter().any(|p| name.starts_with(p)) {
            let real = strip_verbatim(std::fs::canonicalize(e.path()).unwrap_or_else(|_| e.path()));
            if !out.contains(&real) {
                out.push(real);
            }
        }
    }
    out.sort();
    out
}
