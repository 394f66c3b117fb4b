//! Helpers for build scripts: find ROCm, compile `.hip` kernels ahead of
//! time for a list of GPU architectures, and embed the code objects in the
//! crate so the right one is loaded for the device at run time.
//!
//! ```no_run
//! // build.rs, in `fn main`:
//! hip_build::KernelBuild::new()
//!     .file("kernels/saxpy.hip")
//!     .targets(["gfx90a", "gfx1030", "gfx1100"])
//!     .build();
//! ```
//!
//! ```ignore
//! // src/lib.rs
//! mod saxpy {
//!     include!(concat!(env!("OUT_DIR"), "/saxpy.rs"));
//! }
//!
//! let device = hip::Device::get(0)?;
//! // The device's `gcnArchName`, e.g. "gfx90a:sramecc+:xnack-".
//! let module = match saxpy::code_object_for(&device.arch()?) {
//!     Some(code_object) => hip::Module::load_data(&device, code_object)?,
//!     // No ahead-of-time build fits this GPU: compile the source now.
//!     None => hip::Module::compile(&device, saxpy::SOURCE)?,
//! };
//! let kernel = module.function("saxpy")?;
//! ```
//!
//! The generated file depends on nothing (not even this crate): the
//! selection logic is copied into it.
//!
//! Each source gives one Rust file, `$OUT_DIR/<stem>.rs`, defining:
//! - `CODE_OBJECTS: &[(&str, &[u8])]`: target -> code object, one plain
//!   AMDGPU ELF file per target (`include_bytes!`);
//! - `fn code_object_for(arch: &str) -> Option<&'static [u8]>`: the code
//!   object for a device architecture string, features and all;
//! - `SOURCE` (the HIP source text, for runtime compilation with hiprtc when
//!   no code object fits), `SOURCE_PATH`, and `PRECOMPILED`.
//!
//! The compiler is found by [`Toolchain::find`]: hipcc, or, without one,
//! ROCm's `clang++` given the headers and device libraries explicitly. When there is none the
//! build fails with every place looked at, unless
//! [`KernelBuild::runtime_compilation_fallback`] is on: then the file has
//! no code objects, `PRECOMPILED` is false, and the program compiles
//! `SOURCE` at run time.
//!
//! Variables: `HIPCC`, `ROCM_PATH`, `HIP_PATH`, `HIP_CLANG_PATH` choose the
//! compiler;
//! `HIP_BUILD_OFFLOAD_ARCH` (comma-separated) replaces the target list;
//! `native` in it stands for the GPUs of the machine that builds
//! ([`targets_from_list`]).

mod depfile;
pub mod elf;
mod native;
mod select;
mod toolchain;

pub use native::{NoNativeGpu, NATIVE};
pub use toolchain::{
    Compiler, Looked, Toolchain, ToolchainNotFound, HIPCC_VAR, HIP_CLANG_PATH_VAR, TOOLCHAIN_VARS,
};

/// The README's examples, compiled and run by `cargo test --doc`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// Variable that, when set, replaces the target list (comma-separated,
/// e.g. `gfx90a,gfx1100`; `native` is the GPUs of the machine that builds,
/// see [`targets_from_list`]): to build only for the GPU at hand.
pub const TARGETS_VAR: &str = "HIP_BUILD_OFFLOAD_ARCH";

/// Whether a code object built for `target` runs on a device reporting the
/// architecture string `device`; the same rule the generated
/// `code_object_for` applies.
pub fn target_runs_on(target: &str, device: &str) -> bool {
    select::target_runs_on(target, device)
}

/// The code object in `table` for a device architecture string: what the
/// generated `code_object_for` returns, for tables built by other means.
pub fn code_object_for<'a>(table: &[(&str, &'a [u8])], arch: &str) -> Option<&'a [u8]> {
    select::best_match(table, arch)
}

/// What can go wrong in a kernel build.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// No compiler found (and no fallback asked for).
    ToolchainNotFound(ToolchainNotFound),
    /// `KernelBuild::file` was never called.
    NoSources,
    /// No target given and `HIP_BUILD_OFFLOAD_ARCH` unset.
    NoTargets,
    /// A target that is not of the form `gfxNNN[:feature±]...`.
    InvalidTarget(String),
    /// `native` asked for and no AMD GPU found.
    NoNativeGpu(NoNativeGpu),
    /// `OUT_DIR` unset and no `out_dir` given.
    NoOutDir,
    /// A source file that does not exist.
    MissingSource(PathBuf),
    /// The compiler failed.
    Compile {
        /// The source file.
        source: PathBuf,
        /// The target it was compiled for.
        target: String,
        /// The command line run.
        command: String,
        /// Its exit status and error output.
        output: String,
    },
    /// The compiler's output is not an AMDGPU code object.
    NotACodeObject {
        /// The file written.
        path: PathBuf,
        /// What is wrong with it.
        detail: String,
    },
    /// Reading or writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ToolchainNotFound(e) => write!(
                f,
                "{e}\nOr enable KernelBuild::runtime_compilation_fallback to embed the sources for hiprtc."
            ),
            Error::NoSources => f.write_str("no .hip source given (KernelBuild::file)"),
            Error::NoTargets => write!(
                f,
                "no GPU target given (KernelBuild::target, or {TARGETS_VAR}=gfx90a,...)"
            ),
            Error::InvalidTarget(t) => write!(
                f,
                "{t:?} is not an AMDGPU target (expected e.g. gfx90a or gfx90a:xnack+)"
            ),
            Error::NoNativeGpu(e) => e.fmt(f),
            Error::NoOutDir => f.write_str("OUT_DIR is not set: run from a build script or give KernelBuild::out_dir"),
            Error::MissingSource(p) => write!(f, "kernel source {} does not exist", p.display()),
            Error::Compile {
                source,
                target,
                command,
                output,
            } => write!(
                f,
                "compiling {} for {target} failed:\n  {command}\n{output}",
                source.display()
            ),
            Error::NotACodeObject { path, detail } => {
                write!(f, "{} is not an AMDGPU code object: {detail}", path.display())
            }
            Error::Io { path, error } => write!(f, "{}: {error}", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::ToolchainNotFound(e) => Some(e),
            Error::NoNativeGpu(e) => Some(e),
            Error::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

/// What one source became.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuiltSource {
    /// The `.hip` file.
    pub source: PathBuf,
    /// The generated Rust file, `$OUT_DIR/<stem>.rs`.
    pub rust_file: PathBuf,
    /// Target and code object file, in the order of the targets.
    pub code_objects: Vec<(String, PathBuf)>,
    /// Files the source includes (from the compiler's dependency output),
    /// outside the toolchain's and the system's folders.
    pub includes: Vec<PathBuf>,
}

/// The result of [`KernelBuild::compile`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Built {
    /// The compiler used; `None` when the fallback embedded sources only.
    pub toolchain: Option<Toolchain>,
    /// One entry per source, in the order given.
    pub sources: Vec<BuiltSource>,
    /// The `cargo:` lines for Cargo (printed when
    /// [`KernelBuild::cargo_directives`] is on, the default).
    pub directives: Vec<String>,
}

/// An ahead-of-time build of `.hip` files into embedded code objects.
#[derive(Clone, Debug, Default)]
pub struct KernelBuild {
    sources: Vec<PathBuf>,
    targets: Vec<String>,
    flags: Vec<String>,
    out_dir: Option<PathBuf>,
    toolchain: Option<Toolchain>,
    fallback: bool,
    quiet: bool,
    env: Option<Vec<(String, OsString)>>,
}

impl KernelBuild {
    /// An empty build: add files and targets.
    pub fn new() -> KernelBuild {
        KernelBuild::default()
    }

    /// Adds a `.hip` source; each becomes `$OUT_DIR/<stem>.rs`.
    pub fn file(mut self, path: impl Into<PathBuf>) -> KernelBuild {
        self.sources.push(path.into());
        self
    }

    /// Adds an `--offload-arch` target, e.g. `gfx90a` or `gfx90a:xnack+`.
    pub fn target(mut self, target: impl Into<String>) -> KernelBuild {
        self.targets.push(target.into());
        self
    }

    /// Adds several targets.
    pub fn targets<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        targets: I,
    ) -> KernelBuild {
        self.targets.extend(targets.into_iter().map(Into::into));
        self
    }

    /// Adds a compiler flag (e.g. `-O3`, `-DN=4`, `-Iinclude`).
    pub fn flag(mut self, flag: impl Into<String>) -> KernelBuild {
        self.flags.push(flag.into());
        self
    }

    /// Where to write, instead of `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> KernelBuild {
        self.out_dir = Some(dir.into());
        self
    }

    /// Uses this compiler instead of searching with [`Toolchain::find`].
    pub fn toolchain(mut self, toolchain: Toolchain) -> KernelBuild {
        self.toolchain = Some(toolchain);
        self
    }

    /// When no compiler is found, embed the sources for runtime compilation
    /// (hiprtc) instead of failing; the build prints a `cargo:warning`.
    pub fn runtime_compilation_fallback(mut self, on: bool) -> KernelBuild {
        self.fallback = on;
        self
    }

    /// Whether to print `cargo:` directives (default true). Off for tests
    /// and tools that are not build scripts.
    pub fn cargo_directives(mut self, on: bool) -> KernelBuild {
        self.quiet = !on;
        self
    }

    /// Reads variables from this list instead of the process environment
    /// (variables not listed count as unset). For tests.
    pub fn environment<I, K, V>(mut self, vars: I) -> KernelBuild
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<OsString>,
    {
        self.env = Some(
            vars.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        );
        self
    }

    fn var(&self, name: &str) -> Option<OsString> {
        match &self.env {
            Some(vars) => vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
            None => std::env::var_os(name),
        }
        .filter(|v| !v.is_empty())
    }

    /// Compiles every source for every target and writes the Rust files.
    pub fn compile(&self) -> Result<Built, Error> {
        let mut directives = Vec::new();
        for var in TOOLCHAIN_VARS.iter().chain([&TARGETS_VAR]) {
            directives.push(format!("cargo:rerun-if-env-changed={var}"));
        }
        if self.sources.is_empty() {
            return Err(Error::NoSources);
        }
        let targets = self.effective_targets()?;
        let out_dir = self
            .out_dir
            .clone()
            .or_else(|| self.var("OUT_DIR").map(PathBuf::from))
            .ok_or(Error::NoOutDir)?;
        for source in &self.sources {
            if !source.is_file() {
                return Err(Error::MissingSource(source.clone()));
            }
            directives.push(format!("cargo:rerun-if-changed={}", source.display()));
        }
        let toolchain = match &self.toolchain {
            Some(t) => Some(t.clone()),
            None => match Toolchain::find_with(&|k| self.var(k), Path::new("/opt/rocm")) {
                Ok(t) => Some(t),
                Err(e) if self.fallback => {
                    let first = e.to_string();
                    let first = first.lines().next().unwrap_or_default();
                    directives.push(format!(
                        "cargo:warning=hip-build: {first}; embedding the kernel sources for runtime compilation (hiprtc) instead"
                    ));
                    None
                }
                Err(e) => return Err(Error::ToolchainNotFound(e)),
            },
        };
        let mut sources = Vec::new();
        for source in &self.sources {
            let built = match &toolchain {
                Some(tc) => self.compile_source(tc, source, &targets, &out_dir)?,
                None => BuiltSource {
                    source: source.clone(),
                    rust_file: out_dir.join(rust_file_name(source)),
                    code_objects: Vec::new(),
                    includes: Vec::new(),
                },
            };
            for inc in &built.includes {
                directives.push(format!("cargo:rerun-if-changed={}", inc.display()));
            }
            write_rust_file(&built, toolchain.is_some())?;
            sources.push(built);
        }
        if !self.quiet {
            for d in &directives {
                println!("{d}");
            }
        }
        Ok(Built {
            toolchain,
            sources,
            directives,
        })
    }

    /// [`KernelBuild::compile`] for a build script: on error, stops the build
    /// with the error's full text.
    pub fn build(&self) -> Built {
        match self.compile() {
            Ok(b) => b,
            Err(e) => {
                // A build script reports failure by exiting non-zero; the
                // message goes to stderr, which Cargo shows.
                eprintln!("error: hip-build: {e}");
                std::process::exit(1);
            }
        }
    }

    fn effective_targets(&self) -> Result<Vec<String>, Error> {
        match self.var(TARGETS_VAR) {
            Some(list) => parse_targets(&list.to_string_lossy(), &|k| self.var(k)),
            None => parse_targets(&self.targets.join(","), &|k| self.var(k)),
        }
    }

    fn compile_source(
        &self,
        tc: &Toolchain,
        source: &Path,
        targets: &[String],
        out_dir: &Path,
    ) -> Result<BuiltSource, Error> {
        let stem = stem_of(source);
        let dir = out_dir.join("hip-build").join(&stem);
        std::fs::create_dir_all(&dir).map_err(|error| Error::Io {
            path: dir.clone(),
            error,
        })?;
        let source_abs = std::fs::canonicalize(source).map_err(|error| Error::Io {
            path: source.to_path_buf(),
            error,
        })?;
        let depfile = dir.join("deps.d");
        let mut code_objects = Vec::new();
        for (i, target) in targets.iter().enumerate() {
            let output = dir.join(format!("{}.co", target.replace([':', '+', '-'], "_")));
            let mut cmd = tc.code_object_command(target, &source_abs, &output);
            if i == 0 {
                cmd.arg("-MD").arg("-MF").arg(&depfile);
            }
            cmd.args(&self.flags);
            let command = format!("{cmd:?}");
            let result = cmd.output().map_err(|error| Error::Io {
                path: tc.compiler.clone(),
                error,
            })?;
            if !result.status.success() {
                return Err(Error::Compile {
                    source: source.to_path_buf(),
                    target: target.clone(),
                    command,
                    output: format!(
                        "{}\n{}{}",
                        result.status,
                        String::from_utf8_lossy(&result.stdout),
                        String::from_utf8_lossy(&result.stderr)
                    ),
                });
            }
            let bytes = std::fs::read(&output).map_err(|error| Error::Io {
                path: output.clone(),
                error,
            })?;
            let co = elf::parse(&bytes).map_err(|e| Error::NotACodeObject {
                path: output.clone(),
                detail: e.0,
            })?;
            if co.machine != elf::EM_AMDGPU {
                return Err(Error::NotACodeObject {
                    path: output,
                    detail: format!("e_machine is {}, not {}", co.machine, elf::EM_AMDGPU),
                });
            }
            code_objects.push((target.clone(), output));
        }
        let includes = match std::fs::read_to_string(&depfile) {
            Ok(text) => depfile::prerequisites(&text)
                .into_iter()
                .filter(|p| p != &source_abs && is_project_file(p, tc))
                .collect(),
            Err(_) => Vec::new(),
        };
        Ok(BuiltSource {
            source: source.to_path_buf(),
            rust_file: out_dir.join(rust_file_name(source)),
            code_objects,
            includes,
        })
    }
}

/// The targets a comma-separated list names (what `HIP_BUILD_OFFLOAD_ARCH`
/// holds), in order and once each, with [`NATIVE`] replaced by the AMD GPUs
/// of this machine. Errors: an empty list, a word that is not a target,
/// or `native` on a machine without an AMD GPU (the error says what was
/// looked at).
///
/// ```
/// let t = hip_build::targets_from_list("gfx1100, gfx90a:xnack+,gfx1100").unwrap();
/// assert_eq!(t, ["gfx1100", "gfx90a:xnack+"]);
/// assert!(hip_build::targets_from_list("sm_90").is_err());
/// ```
pub fn targets_from_list(list: &str) -> Result<Vec<String>, Error> {
    parse_targets(list, &|k| std::env::var_os(k).filter(|v| !v.is_empty()))
}

fn parse_targets(list: &str, var: &dyn Fn(&str) -> Option<OsString>) -> Result<Vec<String>, Error> {
    let mut targets: Vec<String> = Vec::new();
    let mut words = list
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .peekable();
    if words.peek().is_none() {
        return Err(Error::NoTargets);
    }
    for word in words {
        let found = if word == NATIVE {
            native::detect(var, Path::new("/opt/rocm"), Path::new(native::KFD_TOPOLOGY))
                .map_err(Error::NoNativeGpu)?
        } else if valid_target(word) {
            vec![word.to_owned()]
        } else {
            return Err(Error::InvalidTarget(word.to_owned()));
        };
        for t in found {
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
    }
    Ok(targets)
}

/// `gfx` + digits/letters, then `:feature+` or `:feature-` parts.
fn valid_target(t: &str) -> bool {
    let mut parts = t.split(':');
    let processor = parts.next().unwrap_or_default();
    let ok_processor = processor.len() > 3
        && processor.starts_with("gfx")
        && processor[3..].chars().all(|c| c.is_ascii_alphanumeric());
    ok_processor
        && parts.all(|f| {
            f.len() > 1
                && (f.ends_with('+') || f.ends_with('-'))
                && f[..f.len() - 1].chars().all(|c| c.is_ascii_alphanumeric())
        })
}

fn stem_of(source: &Path) -> String {
    source
        .file_stem()
        .map(|s| {
            s.to_string_lossy()
                .replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "_")
        })
        .unwrap_or_else(|| "kernels".into())
}

fn rust_file_name(source: &Path) -> String {
    format!("{}.rs", stem_of(source))
}

/// Whether a dependency is the project's own (worth a rerun-if-changed)
/// rather than a toolchain or system header.
fn is_project_file(p: &Path, tc: &Toolchain) -> bool {
    let system = [Path::new("/usr"), Path::new("/opt"), Path::new("/lib")];
    if system.iter().any(|s| p.starts_with(s)) {
        return false;
    }
    match &tc.rocm_path {
        Some(root) => !p.starts_with(root),
        None => true,
    }
}

fn write_rust_file(built: &BuiltSource, precompiled: bool) -> Result<(), Error> {
    let source_abs = std::fs::canonicalize(&built.source).map_err(|error| Error::Io {
        path: built.source.clone(),
        error,
    })?;
    let mut table = String::new();
    for (target, path) in &built.code_objects {
        table.push_str(&format!(
            "    ({target:?}, include_bytes!({:?})),\n",
            path.display().to_string()
        ));
    }
    let source_text = source_abs.display().to_string();
    let text = format!(
        r#"// Generated by hip-build from {source_text}; do not edit.

/// The HIP source these code objects were compiled from.
#[allow(dead_code)]
pub const SOURCE_PATH: &str = {source_text:?};

/// The HIP source text, for runtime compilation (hiprtc) when no code
/// object fits the device.
#[allow(dead_code)]
pub const SOURCE: &str = include_str!({source_text:?});

/// Whether code objects were compiled ahead of time; false when the build
/// found no compiler and embedded the source only.
#[allow(dead_code)]
pub const PRECOMPILED: bool = {precompiled};

/// The code objects: `--offload-arch` target and plain AMDGPU ELF bytes.
#[allow(dead_code)]
pub static CODE_OBJECTS: &[(&str, &[u8])] = &[
{table}];

/// The code object for a device whose architecture string (the runtime's
/// `gcnArchName`) is `arch`, e.g. `gfx90a:sramecc+:xnack-`: a target built
/// for the same processor whose features the device has, the most specific
/// one first. `None` when no target fits.
#[allow(dead_code)]
pub fn code_object_for(arch: &str) -> Option<&'static [u8]> {{
    hip_build_select::best_match(CODE_OBJECTS, arch)
}}

#[allow(dead_code)]
mod hip_build_select {{
{select}}}
"#,
        select = include_str!("select.rs"),
    );
    let unchanged = std::fs::read_to_string(&built.rust_file).is_ok_and(|old| old == text);
    if unchanged {
        return Ok(());
    }
    std::fs::write(&built.rust_file, text).map_err(|error| Error::Io {
        path: built.rust_file.clone(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_validated() {
        for good in [
            "gfx90a",
            "gfx1010",
            "gfx90a:xnack+",
            "gfx90a:sramecc-:xnack+",
        ] {
            assert!(valid_target(good), "{good}");
        }
        for bad in ["", "gfx", "sm_90", "gfx90a:", "gfx90a:xnack", "gfx 90a"] {
            assert!(!valid_target(bad), "{bad}");
        }
    }

    #[test]
    fn device_strings_select_by_processor_and_features() {
        let table: &[(&str, &[u8])] = &[
            ("gfx90a", b"plain"),
            ("gfx90a:xnack+", b"xnack"),
            ("gfx1010", b"navi"),
        ];
        assert_eq!(
            select::best_match(table, "gfx90a:sramecc+:xnack-"),
            Some(&b"plain"[..])
        );
        assert_eq!(
            select::best_match(table, "gfx90a:sramecc+:xnack+"),
            Some(&b"xnack"[..])
        );
        assert_eq!(select::best_match(table, "gfx90a"), Some(&b"plain"[..]));
        assert_eq!(
            select::best_match(table, "gfx1010:xnack-"),
            Some(&b"navi"[..])
        );
        assert_eq!(select::best_match(table, "gfx90"), None);
        assert_eq!(select::best_match(table, "gfx1030"), None);
        assert_eq!(select::best_match(table, "sm_90"), None);
        assert!(!target_runs_on("gfx90a:xnack+", "gfx90a"));
    }

    #[test]
    fn env_targets_replace_the_list() {
        let b = KernelBuild::new()
            .target("gfx90a")
            .environment([(TARGETS_VAR, "gfx1100, gfx1100,gfx942")]);
        assert_eq!(b.effective_targets().unwrap(), vec!["gfx1100", "gfx942"]);
        let b = KernelBuild::new().environment([(TARGETS_VAR, "sm_90")]);
        assert!(matches!(b.effective_targets(), Err(Error::InvalidTarget(t)) if t == "sm_90"));
        assert!(matches!(
            KernelBuild::new()
                .environment::<[(&str, &str); 0], _, _>([])
                .effective_targets(),
            Err(Error::NoTargets)
        ));
    }
}
