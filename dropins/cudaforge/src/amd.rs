//! The AMD path: a crate's unmodified `.cu` sources compiled for AMD GPUs
//! with ROCm's clang (or hipcc), through the CUDA-over-HIP layer in
//! `hip-cuda-layer` (force-included; its `cuda_*.h` headers shadow CUDA's).
//!
//! - PTX builds write, in each `<stem>.ptx`, a text envelope of the clang
//!   offload bundle that holds one code object per target
//!   ([`crate::envelope`]); cuda-compat loads it where cudarc takes PTX.
//! - Library builds compile host and device code into objects whose
//!   launchers call the HIP runtime, and write a `libcudart.so` linker
//!   script that stands for `-lamdhip64`, so the crate's
//!   `rustc-link-lib=cudart` is satisfied by HIP.
//! - Every build, fresh or cached, ends with one cargo warning when kernels
//!   spill registers ([`spill_warning`]).
//!
//! Each source is compiled with `__CUDA_ARCH__` claimed as 890 first (so
//! every bf16 and fp8 kernel is built), then, if that fails, as 800, 750,
//! 700 and 610: code that takes inline PTX assembly only on newer
//! architectures then compiles its portable path. A kernel present at 890
//! but missing at the level that compiled, or every kernel of a source
//! that compiles at no level, is *unavailable*: named with the reason in the
//! envelope (cuda-compat's `load_function` reports it) or, for a library,
//! replaced by a launcher that prints the reason and aborts.

use crate::envelope;
use crate::error::{Error, Result};
use crate::plan::{Output, Plan};
use hip_build::{Compiler, Toolchain};
// The CUDA-over-HIP layer, written into the build folder.
use crate::bounds::Bound;
pub use crate::bounds::LAUNCH_BOUNDS_VAR;
use hip_cuda_layer::HEADERS;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// The targets built when `HIP_BUILD_OFFLOAD_ARCH` is unset: CDNA 2
/// (MI200), CDNA 3 (MI300), RDNA 2, RDNA 3 and RDNA 4 (Radeon RX 6000, 7000,
/// 9000). A code object runs only on its own processor: other GPUs need
/// `HIP_BUILD_OFFLOAD_ARCH`.
pub const DEFAULT_TARGETS: &[&str] = &["gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"];

/// The `__CUDA_ARCH__` values tried, in order (the layer's, shared with
/// cuda-compat's run-time compiles).
pub use hip_cuda_layer::CLAIMED_ARCHS;

/// Bumped whenever the commands or the outputs change meaning.
const FORMAT: &str = "hip-rs cudaforge drop-in, AMD build v1";
/// The version of a library build's launcher-name reading (part of a
/// library build's key only).
const LIB_NAMES: &str = "library launchers v2: own files, no directives";

/// The marker file of a finished build folder.
const COMPLETE: &str = ".complete";

/// The report written beside the outputs.
pub const REPORT: &str = "cudaforge-amd-report.txt";

/// Which platform `HIP_PLATFORM` asks for (for hip-nvcc, the nvcc front).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Requested {
    Amd,
    Nvidia,
    /// Unset: nvcc where it exists, else a HIP compiler.
    Either,
}

/// The platform `HIP_PLATFORM` asks for; an unknown value is an error.
#[doc(hidden)]
pub fn requested_platform() -> Result<Requested> {
    match std::env::var("HIP_PLATFORM").unwrap_or_default().trim() {
        "" => Ok(Requested::Either),
        "amd" | "hcc" => Ok(Requested::Amd),
        "nvidia" | "nvcc" => Ok(Requested::Nvidia),
        other => Err(Error::InvalidConfig(format!(
            "HIP_PLATFORM={other}: expected amd or nvidia"
        ))),
    }
}

/// The targets: `HIP_BUILD_OFFLOAD_ARCH` (comma-separated; `native` is the
/// GPUs of this machine) or [`DEFAULT_TARGETS`].
pub fn targets() -> Result<Vec<String>> {
    let list = std::env::var(hip_build::TARGETS_VAR).unwrap_or_default();
    let list = if list.trim().is_empty() {
        DEFAULT_TARGETS.join(",")
    } else {
        list
    };
    hip_build::targets_from_list(&list).map_err(|e| {
        Error::InvalidConfig(match e {
            hip_build::Error::InvalidTarget(t) => format!(
                "{}: {t} is not an AMD GPU target (expected e.g. gfx90a, gfx90a:xnack+ or native)",
                hip_build::TARGETS_VAR
            ),
            hip_build::Error::NoTargets => format!("{}: no target named", hip_build::TARGETS_VAR),
            other => other.to_string(),
        })
    })
}

/// nvcc's arguments as clang's: the ones with a clang meaning are kept or
/// renamed, nvcc-only ones (architectures, ptxas options, ...) dropped.
/// Public for hip-nvcc, the nvcc front, which checks its options first.
#[doc(hidden)]
pub fn translate_args(args: &[String]) -> Vec<String> {
    // nvcc options whose value is the next argument and that mean nothing
    // for AMD.
    const SKIP_WITH_VALUE: &[&str] = &[
        "-Xptxas",
        "--ptxas-options",
        "-Xnvlink",
        "--nvlink-options",
        "--default-stream",
        "-gencode",
        "--generate-code",
        "-arch",
        "--gpu-architecture",
        "-code",
        "--gpu-code",
        "-ccbin",
        "--compiler-bindir",
        "--threads",
        "-t",
        "-maxrregcount",
        "--maxrregcount",
    ];
    const DROP: &[&str] = &[
        "--expt-relaxed-constexpr",
        "--expt-extended-lambda",
        "--extended-lambda",
        "-lineinfo",
        "--generate-line-info",
        "--keep",
        "-res-usage",
        "--resource-usage",
        "--ptx",
        "-ptx",
    ];
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let a = a.as_str();
        if a == "-Xcompiler" || a == "--compiler-options" {
            if let Some(v) = it.next() {
                out.extend(v.split(',').filter(|s| !s.is_empty()).map(str::to_owned));
            }
        } else if let Some(v) = a
            .strip_prefix("-Xcompiler=")
            .or_else(|| a.strip_prefix("--compiler-options="))
        {
            out.extend(v.split(',').filter(|s| !s.is_empty()).map(str::to_owned));
        } else if SKIP_WITH_VALUE.contains(&a) {
            it.next();
        } else if SKIP_WITH_VALUE
            .iter()
            .any(|s| a.starts_with(&format!("{s}=")))
            || DROP.contains(&a)
        {
        } else if a == "--use_fast_math" || a == "-use_fast_math" {
            out.push("-ffast-math".into());
        } else if a == "-rdc=true" || a == "--relocatable-device-code=true" {
            out.push("-fgpu-rdc".into());
        } else if a.starts_with("--") && !a.starts_with("--offload") {
            // Another nvcc-only long option.
        } else {
            out.push(a.to_owned());
        }
    }
    out
}

/// The HIP compiler, or why there is none.
#[doc(hidden)]
pub fn toolchain() -> std::result::Result<Toolchain, String> {
    Toolchain::find().map_err(|e| e.to_string())
}

/// The compile command of every AMD build: `toolchain`'s compiler on CUDA
/// sources as HIP (`-x hip`), the layer's headers in `include` (written by
/// [`write_layer`]) force-included, `__CUDA_ARCH__` claimed as `claimed`,
/// one `--offload-arch` per target, then `args` (already translated,
/// [`translate_args`]). The caller adds the sources, `-c`, `-o`. Public
/// for hip-nvcc, the nvcc front.
#[doc(hidden)]
pub fn layer_command(
    toolchain: &Toolchain,
    include: &Path,
    targets: &[String],
    args: &[String],
    claimed: u32,
) -> Command {
    let tc = toolchain;
    let mut c = Command::new(&tc.compiler);
    c.args(["-x", "hip"]);
    match &tc.kind {
        Compiler::Clang { device_lib_path } => {
            if let Some(root) = &tc.rocm_path {
                c.arg(format!("--rocm-path={}", root.display()));
                // Ahead of the system folders, where an older HIP may be.
                c.arg("-isystem").arg(root.join("include"));
            }
            c.arg(format!(
                "--hip-device-lib-path={}",
                device_lib_path.display()
            ));
        }
        _ => {
            if let Some(root) = &tc.rocm_path {
                c.env("ROCM_PATH", root);
            }
        }
    }
    c.arg("-I").arg(include);
    c.args(["-include", hip_cuda_layer::FORCE_INCLUDE]);
    c.arg(format!("-D{}={claimed}", hip_cuda_layer::ARCH_MACRO));
    c.args(targets.iter().map(|t| format!("--offload-arch={t}")));
    c.args(args);
    c
}

/// Writes the CUDA-over-HIP layer's headers under `include`, the folder
/// [`layer_command`] takes. Public for hip-nvcc, the nvcc front.
#[doc(hidden)]
pub fn write_layer(include: &Path) -> std::io::Result<()> {
    for (name, text) in HEADERS {
        let path = include.join(name);
        std::fs::create_dir_all(path.parent().expect("a file in a folder"))?;
        std::fs::write(path, text)?;
    }
    Ok(())
}

/// One source's fate.
#[derive(Debug, Clone)]
struct Compiled {
    /// The source, relative to the sources' folder.
    rel: PathBuf,
    /// The `__CUDA_ARCH__` it compiled at, if any.
    claimed: Option<u32>,
    /// Kernels (PTX) or exported launchers (library) not built, with why.
    unavailable: Vec<(String, String)>,
    /// Its launch bound, if it has one.
    bound: Option<Bound>,
}

/// One source to compile: its place in the plan, its path below the
/// sources' folder, its launch bound.
#[derive(Clone, Copy)]
struct Step<'a> {
    index: usize,
    rel: &'a Path,
    bound: Option<&'a Bound>,
}

/// An AMD build of one plan.
pub(crate) struct AmdBuild<'a> {
    pub(crate) plan: &'a Plan,
    pub(crate) output: &'a Output,
    pub(crate) args: &'a [String],
    pub(crate) pic: bool,
    pub(crate) out_dir: &'a Path,
    pub(crate) threads: usize,
    pub(crate) toolchain: Toolchain,
}

impl AmdBuild<'_> {
    /// Builds (or finds built) the plan's products for AMD; returns their
    /// folder.
    pub(crate) fn run(&self) -> Result<PathBuf> {
        let targets = targets()?;
        let args = translate_args(self.args);
        let version = self.toolchain.version().unwrap_or_default();
        let sources: Vec<&Path> = self
            .plan
            .compile
            .iter()
            .filter_map(|s| s.source.as_deref())
            .collect();
        let bounds = crate::bounds::bounds(
            &std::env::var("CARGO_PKG_NAME").unwrap_or_default(),
            &std::env::var("CARGO_PKG_VERSION").unwrap_or_default(),
            &sources,
            std::env::var(LAUNCH_BOUNDS_VAR).ok().as_deref(),
        )?;
        let mut h = Sha256::new();
        for part in [
            FORMAT,
            &self.plan.key,
            &version,
            &targets.join(","),
            &args.join("\u{1f}"),
        ] {
            h.update(part.len().to_le_bytes());
            h.update(part.as_bytes());
        }
        h.update([u8::from(self.pic)]);
        // How a library's launcher names are read (a PTX build's outputs do
        // not depend on it): v2 keeps only the source's own functions.
        if matches!(self.output, Output::Lib { .. }) {
            h.update(LIB_NAMES.as_bytes());
        }
        for (src, b) in &bounds {
            h.update(src.as_os_str().as_encoded_bytes());
            h.update(b.threads.to_le_bytes());
        }
        // The compiler's command line itself (a placeholder for the
        // build's own include folder), so that a change to it rebuilds.
        let probe = self.command(
            Path::new("@include@"),
            (&self.plan.root, &self.plan.includes),
            &targets,
            &args,
            0,
        );
        for a in std::iter::once(probe.get_program()).chain(probe.get_args()) {
            h.update(a.len().to_le_bytes());
            h.update(a.as_encoded_bytes());
        }
        for (name, text) in HEADERS {
            h.update(name.as_bytes());
            h.update(text.as_bytes());
        }
        // What the sources' inline PTX becomes.
        for idiom in hip_cuda_layer::ptx::IDIOMS {
            h.update(idiom.form.as_bytes());
            h.update(idiom.body.as_bytes());
        }
        let key = hex(&h.finalize()[..16]);
        let dir = self.out_dir.join("cudaforge-amd").join(&key);
        println!("cargo:rerun-if-env-changed={}", hip_build::TARGETS_VAR);
        for var in hip_build::TOOLCHAIN_VARS {
            println!("cargo:rerun-if-env-changed={var}");
        }
        println!("cargo:rerun-if-env-changed=CUDAFORGE_AMD_CACHE");
        println!("cargo:rerun-if-env-changed={LAUNCH_BOUNDS_VAR}");
        if dir.join(COMPLETE).is_file() {
            self.finish(&dir)?;
            return Ok(dir);
        }
        // A cache shared between builds (CI keeps it between runs).
        let shared = std::env::var_os("CUDAFORGE_AMD_CACHE").map(|c| PathBuf::from(c).join(&key));
        if let Some(shared) = shared.as_ref().filter(|s| s.join(COMPLETE).is_file()) {
            copy_dir(shared, &dir)?;
            self.finish(&dir)?;
            return Ok(dir);
        }
        // This process's own folder: two builds of one key at once must not
        // clobber each other's work.
        let work = self
            .out_dir
            .join("cudaforge-amd")
            .join(format!("{key}.partial-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&work);
        std::fs::create_dir_all(work.join("obj"))?;
        let include = work.join("include");
        write_layer(&include)?;
        // The crate's sources with their inline PTX translated.
        let mirror =
            crate::translate::mirror(&self.plan.root, &self.plan.includes, &work.join("src"))?;
        let compiled = self.compile_all(&work, &include, &mirror, &targets, &args, &bounds)?;
        if let Output::Lib { name } = self.output {
            self.archive(&work, name)?;
            // `-lcudart` finds this script, which links HIP's runtime.
            std::fs::create_dir_all(work.join("link"))?;
            std::fs::write(work.join("link/libcudart.so"), "INPUT(-lamdhip64)\n")?;
        }
        let mut text = report(&compiled, &targets, &version);
        for line in crate::translate::report_lines(&mirror) {
            text.push_str(&line);
            text.push('\n');
        }
        std::fs::write(work.join(REPORT), text)?;
        // The copy served its compiles; the cache keeps the outputs.
        let _ = std::fs::remove_dir_all(work.join("src"));
        std::fs::write(work.join(COMPLETE), &key)?;
        if dir.join(COMPLETE).is_file() {
            // Another build of this key (a second cargo sharing the target
            // folder) finished first, with the same outputs.
            let _ = std::fs::remove_dir_all(&work);
        } else {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::rename(&work, &dir)?;
        }
        if let Some(shared) = shared {
            // Best effort: a cache that cannot be written only costs time.
            let tmp = shared.with_extension(format!("partial-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&tmp);
            if copy_dir(&dir, &tmp).is_ok() {
                let _ = std::fs::remove_dir_all(&shared);
                let _ = std::fs::rename(&tmp, &shared);
            }
        }
        self.finish(&dir)?;
        Ok(dir)
    }

    /// What every build, fresh or cached, tells cargo.
    fn finish(&self, dir: &Path) -> Result<()> {
        let report = std::fs::read_to_string(dir.join(REPORT)).unwrap_or_default();
        for line in report.lines().filter(|l| l.starts_with("unavailable ")) {
            println!("cargo:warning=cudaforge (AMD): {line}");
        }
        if let Some(line) = spill_warning(dir) {
            println!("cargo:warning=cudaforge (AMD): {line}");
        }
        if matches!(self.output, Output::Lib { .. }) {
            println!(
                "cargo:rustc-link-search=native={}",
                dir.join("link").display()
            );
            if let Some(lib) = self.toolchain.rocm_path.as_ref().map(|r| r.join("lib")) {
                if lib.join("libamdhip64.so").exists() {
                    println!("cargo:rustc-link-search=native={}", lib.display());
                }
            }
        }
        Ok(())
    }

    fn compile_all(
        &self,
        work: &Path,
        include: &Path,
        mirror: &crate::translate::Mirror,
        targets: &[String],
        args: &[String],
        bounds: &BTreeMap<PathBuf, Bound>,
    ) -> Result<Vec<Compiled>> {
        let steps: Vec<&PathBuf> = self
            .plan
            .compile
            .iter()
            .filter_map(|s| s.source.as_ref())
            .collect();
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<(usize, Result<Compiled>)>> = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..self.threads.clamp(1, steps.len().max(1)) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(rel) = steps.get(i) else { break };
                    let step = Step {
                        index: i,
                        rel,
                        bound: bounds.get(rel.as_path()),
                    };
                    let r = self.compile_one(step, work, include, mirror, targets, args);
                    let failed = r.is_err();
                    results.lock().expect("no panics while held").push((i, r));
                    if failed {
                        // Stop taking new work; the error is reported below.
                        next.store(steps.len(), Ordering::SeqCst);
                    }
                });
            }
        });
        let mut results = results.into_inner().expect("no panics while held");
        results.sort_by_key(|(i, _)| *i);
        results.into_iter().map(|(_, r)| r).collect()
    }

    /// The compile command with the sources at `sources` (their folder,
    /// the include folders).
    fn command(
        &self,
        include: &Path,
        sources: (&Path, &[PathBuf]),
        targets: &[String],
        args: &[String],
        claimed: u32,
    ) -> Command {
        let mut c = layer_command(&self.toolchain, include, targets, args, claimed);
        for inc in sources.1 {
            c.arg("-I").arg(inc);
        }
        c.current_dir(sources.0);
        c
    }

    fn compile_one(
        &self,
        step: Step<'_>,
        work: &Path,
        include: &Path,
        mirror: &crate::translate::Mirror,
        targets: &[String],
        args: &[String],
    ) -> Result<Compiled> {
        let Step { index, rel, bound } = step;
        let lib = matches!(self.output, Output::Lib { .. });
        let stem = rel
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let out = if lib {
            work.join("obj").join(format!("{index:03}-{stem}.o"))
        } else {
            work.join("obj").join(format!("{stem}.bundle"))
        };
        let mut first_error = None;
        let mut claimed = None;
        for &arch in CLAIMED_ARCHS {
            let mut c = self.command(
                include,
                (&mirror.root, &mirror.includes),
                targets,
                args,
                arch,
            );
            if let Some(b) = bound {
                // The default of every kernel without __launch_bounds__.
                c.arg(format!("--gpu-max-threads-per-block={}", b.threads));
            }
            if lib {
                if self.pic {
                    c.arg("-fPIC");
                }
            } else {
                c.args(["--cuda-device-only", "--gpu-bundle-output"]);
            }
            c.arg("-c").arg(rel).arg("-o").arg(&out);
            let o = run(&mut c)?;
            if o.status.success() {
                claimed = Some(arch);
                break;
            }
            if first_error.is_none() {
                first_error = Some(String::from_utf8_lossy(&o.stderr).into_owned());
            }
        }
        // Which names the 890 build would have had, and which this one has.
        let mut unavailable = Vec::new();
        if claimed != Some(CLAIMED_ARCHS[0]) {
            let stderr = first_error.unwrap_or_default();
            let reason = reason(&stderr, &mirror.root);
            let all = self.names(include, mirror, targets, args, rel, CLAIMED_ARCHS[0], lib)?;
            let built = match claimed {
                Some(a) => self.names(include, mirror, targets, args, rel, a, lib)?,
                None => BTreeSet::new(),
            };
            if all.is_empty() && claimed.is_none() {
                return Err(Error::CompilationFailed {
                    path: self.plan.root.join(rel),
                    message: format!(
                        "compiles for AMD at no __CUDA_ARCH__ level ({}), and no kernel or \
                         launcher name could be read from it:\n{stderr}",
                        CLAIMED_ARCHS
                            .iter()
                            .map(u32::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
            unavailable = all
                .difference(&built)
                .map(|n| (n.clone(), reason.clone()))
                .collect();
            if claimed.is_none() {
                if lib {
                    self.stub(&out, rel, &unavailable)?;
                } else {
                    self.empty_bundle(include, targets, &out)?;
                }
            }
        }
        if !lib {
            let image = std::fs::read(&out)?;
            let text =
                envelope::encode(&image, Some(&rel.to_string_lossy()), targets, &unavailable);
            std::fs::write(work.join(format!("{stem}.ptx")), text)?;
        }
        Ok(Compiled {
            rel: rel.to_path_buf(),
            claimed,
            unavailable,
            bound: bound.cloned(),
        })
    }

    /// Kernel names (PTX) or exported launcher names (library) of `rel` at
    /// a claimed architecture, from the preprocessed source; from the raw
    /// text when it does not preprocess (a missing header).
    #[allow(clippy::too_many_arguments)]
    fn names(
        &self,
        include: &Path,
        mirror: &crate::translate::Mirror,
        targets: &[String],
        args: &[String],
        rel: &Path,
        claimed: u32,
        lib: bool,
    ) -> Result<BTreeSet<String>> {
        let mut c = self.command(
            include,
            (&mirror.root, &mirror.includes),
            &targets[..1],
            args,
            claimed,
        );
        c.arg(if lib {
            "--cuda-host-only"
        } else {
            "--cuda-device-only"
        });
        c.arg("-E").arg(rel);
        let o = run(&mut c)?;
        let (text, marker) = if o.status.success() {
            let text = String::from_utf8_lossy(&o.stdout).into_owned();
            // A library's launchers are the source's own: functions the
            // HIP headers and the layer define (`__assert_fail`, `abort`,
            // ...) must not get stubs that would replace libc's at link
            // time.
            let text = if lib {
                own_lines(&text, &mirror.root)
            } else {
                text
            };
            (text, "__attribute__((global))")
        } else {
            (
                without_directives(&std::fs::read_to_string(mirror.root.join(rel))?),
                "__global__",
            )
        };
        Ok(functions(&text, marker)
            .into_iter()
            .filter(|f| f.extern_c && f.kernel != lib && (!lib || f.definition))
            .map(|f| f.name)
            .collect())
    }

    /// A bundle with no kernel, for a PTX source where nothing compiled:
    /// its module loads, and asking for a kernel names the reason.
    fn empty_bundle(&self, include: &Path, targets: &[String], out: &Path) -> Result<()> {
        let src = out.with_extension("empty.cu");
        std::fs::write(&src, "// no kernel of this source compiles for AMD\n")?;
        let mut c = self.command(
            include,
            (&self.plan.root, &self.plan.includes),
            targets,
            &[],
            CLAIMED_ARCHS[0],
        );
        c.args(["--cuda-device-only", "--gpu-bundle-output", "-c"])
            .arg(&src)
            .arg("-o")
            .arg(out);
        let o = run(&mut c)?;
        if !o.status.success() {
            return Err(Error::CompilationFailed {
                path: src,
                message: String::from_utf8_lossy(&o.stderr).into_owned(),
            });
        }
        Ok(())
    }

    /// An object defining each unavailable launcher as a function that
    /// prints why and aborts (C linkage: the symbol is all that counts).
    fn stub(&self, out: &Path, rel: &Path, unavailable: &[(String, String)]) -> Result<()> {
        let mut src = String::from(
            "#include <stdio.h>\n#include <stdlib.h>\n\
             static void hiprs_unavailable(const char* name, const char* source, const char* why) {\n\
             \x20 fprintf(stderr, \"%s (from %s) is not available on AMD GPUs: %s\\n\", name, source, why);\n\
             \x20 abort();\n}\n",
        );
        for (name, why) in unavailable {
            let _ = writeln!(
                src,
                "extern \"C\" void {name}(void) {{ hiprs_unavailable(\"{name}\", {}, {}); }}",
                c_string(&rel.to_string_lossy()),
                c_string(why)
            );
        }
        let path = out.with_extension("stub.cpp");
        std::fs::write(&path, src)?;
        let mut c = Command::new(&self.toolchain.compiler);
        c.args(["-x", "c++", "-O2"]);
        if self.pic {
            c.arg("-fPIC");
        }
        c.arg("-c").arg(&path).arg("-o").arg(out);
        let o = run(&mut c)?;
        if !o.status.success() {
            return Err(Error::CompilationFailed {
                path,
                message: String::from_utf8_lossy(&o.stderr).into_owned(),
            });
        }
        Ok(())
    }

    fn archive(&self, work: &Path, name: &str) -> Result<()> {
        let mut objects: Vec<PathBuf> = std::fs::read_dir(work.join("obj"))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "o"))
            .collect();
        objects.sort();
        let ar = std::env::var_os("AR").unwrap_or_else(|| "ar".into());
        let mut c = Command::new(&ar);
        c.arg("crs").arg(work.join(name)).args(&objects);
        let o = run(&mut c)?;
        if !o.status.success() {
            return Err(Error::LinkingFailed(format!(
                "{} crs {name}: {}",
                ar.to_string_lossy(),
                String::from_utf8_lossy(&o.stderr)
            )));
        }
        Ok(())
    }
}

/// One line when kernels of a finished build folder spill registers: how
/// many of all kernel instances, per processor, and the `hip-info` command
/// that lists them; `None` when none spills. Reads the folder's `obj/`
/// (bundles of PTX builds, host objects of library builds) with
/// `hip::code_object::kernels`, passing over what holds no GPU code.
///
/// ```text
/// 169 of 903 kernel instances spill registers (gfx90a 40, gfx942 ...); run hip-info kernels <dir>/obj for the list
/// ```
pub fn spill_warning(dir: &Path) -> Option<String> {
    let obj = dir.join("obj");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&obj)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "bundle" || e == "o"))
        .collect();
    files.sort();
    let mut all = Vec::new();
    for f in files {
        if let Ok(ks) = std::fs::read(&f).map(|b| hip::code_object::kernels(&b)) {
            // Stubs of unavailable launchers hold no GPU code: passed over.
            all.extend(ks.unwrap_or_default());
        }
    }
    let summary = hip::code_object::SpillSummary::of(&all);
    (summary.spilling > 0).then(|| {
        format!(
            "{summary}; run hip-info kernels {} for the list",
            obj.display()
        )
    })
}

/// Preprocessed `text` with the lines of files outside `root` (the HIP
/// headers, the layer, the system's) blanked: the preprocessor's line
/// markers (`# 12 "path" ...`) say whose a line is; a relative path is
/// the crate's (the compiler runs in `root`).
pub(crate) fn own_lines(text: &str, root: &Path) -> String {
    let mut own = true;
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if let Some(path) = line_marker_path(line) {
            let p = Path::new(path);
            own = p.is_relative() || p.starts_with(root);
            out.push('\n');
            continue;
        }
        if own {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The file of a preprocessor line marker (`# 12 "path" 1 3`), if `line`
/// is one.
fn line_marker_path(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("# ")?;
    let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = rest.strip_prefix(" \"")?;
    rest.split('"').next()
}

/// Raw source with its preprocessor directives (and their continuation
/// lines) blanked: a macro's body (`extern "C" void NAME(...)` in a
/// `#define`) declares no function by itself.
pub(crate) fn without_directives(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut continued = false;
    for line in text.lines() {
        let directive = continued || line.trim_start().starts_with('#');
        continued = directive && line.trim_end().ends_with('\\');
        if !directive {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

fn run(c: &mut Command) -> Result<std::process::Output> {
    c.output().map_err(|e| {
        Error::InvalidConfig(format!(
            "could not run {}: {e}",
            c.get_program().to_string_lossy()
        ))
    })
}

/// Why a source did not compile at 890, from the compiler's first error
/// (the layer's classification), with the crate's folder left out of paths.
#[doc(hidden)]
pub fn reason(stderr: &str, root: &Path) -> String {
    hip_cuda_layer::unsupported_reason(&stderr.replace(&format!("{}/", root.display()), ""))
}

/// A function found in C++ text: kernels (`marker`) and `extern "C"`
/// functions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Function {
    pub(crate) name: String,
    pub(crate) kernel: bool,
    pub(crate) extern_c: bool,
    pub(crate) definition: bool,
}

/// The functions declared right after `extern "C"` or `marker` (a kernel's
/// `__global__`, or `__attribute__((global))` once preprocessed): the last
/// identifier before the parameter list, attributes skipped. Functions in
/// `extern "C" { ... }` blocks are not seen.
pub(crate) fn functions(text: &str, marker: &str) -> Vec<Function> {
    let bytes = text.as_bytes();
    let mut out: Vec<Function> = Vec::new();
    let mut starts: Vec<(usize, bool)> = Vec::new();
    for (i, _) in text.match_indices("extern \"C\"") {
        starts.push((i + "extern \"C\"".len(), true));
    }
    for (i, _) in text.match_indices(marker) {
        let before = text[..i].trim_end();
        if !before.ends_with("extern \"C\"") {
            starts.push((i, false));
        }
    }
    for (start, extern_c) in starts {
        let mut i = start;
        let mut kernel = false;
        let mut last: Option<String> = None;
        let mut found = None;
        while i < bytes.len() {
            let rest = &text[i..];
            let c = bytes[i];
            if rest.starts_with(marker) {
                kernel = true;
                i += marker.len();
            } else if rest.starts_with("__attribute__") || rest.starts_with("__launch_bounds__") {
                // Skip the name and its balanced parentheses.
                let open = match rest.find('(') {
                    Some(o) => o,
                    None => break,
                };
                let mut depth = 0;
                let mut j = open;
                for (k, ch) in rest[open..].char_indices() {
                    match ch {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                j = open + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                i += j.max(open + 1);
            } else if c == b'_' || c.is_ascii_alphabetic() {
                let len = rest
                    .bytes()
                    .take_while(|b| *b == b'_' || b.is_ascii_alphanumeric())
                    .count();
                last = Some(rest[..len].to_owned());
                i += len;
            } else if c == b'(' {
                found = last.take();
                break;
            } else if c == b'{' || c == b';' || c == b'=' {
                break;
            } else {
                i += 1;
            }
        }
        let Some(name) = found else { continue };
        // The parameter list, then `{` for a definition.
        let mut depth = 0usize;
        let mut definition = false;
        let mut j = i;
        while j < bytes.len() {
            match bytes[j] {
                b'(' => depth += 1,
                b')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        let after = text[j + 1..].trim_start();
                        definition = after.starts_with('{');
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        if let Some(f) = out.iter_mut().find(|f| f.name == name) {
            f.kernel |= kernel;
            f.extern_c |= extern_c;
            f.definition |= definition;
        } else {
            out.push(Function {
                name,
                kernel,
                extern_c,
                definition,
            });
        }
    }
    out
}

fn report(compiled: &[Compiled], targets: &[String], version: &str) -> String {
    let mut s = format!(
        "# hip-rs cudaforge drop-in: AMD build\n# compiler: {version}\n# targets: {}\n",
        targets.join(" ")
    );
    for c in compiled {
        let _ = writeln!(
            s,
            "source {} __CUDA_ARCH__={}",
            c.rel.display(),
            c.claimed.map_or("none".to_owned(), |a| a.to_string())
        );
    }
    for c in compiled {
        if let Some(b) = &c.bound {
            let _ = writeln!(
                s,
                "bound {} {} threads ({})",
                c.rel.display(),
                b.threads,
                b.from
            );
        }
    }
    for c in compiled {
        for (name, why) in &c.unavailable {
            let _ = writeln!(s, "unavailable {name} ({}): {why}", c.rel.display());
        }
    }
    s
}

fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if c.is_ascii_graphic() || c == ' ' => out.push(c),
            c => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\{b:03o}");
                }
            }
        }
    }
    out.push('"');
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn copy_dir(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &dest)?;
        } else {
            std::fs::copy(entry.path(), dest)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A library's launchers are the functions of the crate's own files:
    /// the headers' `extern "C"` definitions (`__assert_fail`, `abort`,
    /// which got stubs replacing libc's, mistral.rs's quant) are not, nor
    /// is a macro's body in raw text (`RUST_NAME`).
    #[test]
    fn launchers_are_the_sources_own_functions() {
        let root = Path::new("/crate");
        let pre = "# 1 \"kernels/x.cu\"\n\
                   # 1 \"/opt/rocm/include/hip/amd_detail/host_defines.h\" 1 3\n\
                   extern \"C\" void __assert_fail(const char* a) { }\n\
                   # 5 \"/tmp/out/include/hiprs_cuda.h\" 1\n\
                   extern \"C\" void abort_stub(void) { }\n\
                   # 3 \"kernels/x.cu\" 2\n\
                   extern \"C\" void launch_x(int n) { }\n\
                   # 1 \"/crate/kernels/common.cuh\" 1\n\
                   extern \"C\" void launch_common(int n) { }\n";
        let names: Vec<String> = functions(&own_lines(pre, root), "__attribute__((global))")
            .into_iter()
            .filter(|f| f.extern_c && !f.kernel && f.definition)
            .map(|f| f.name)
            .collect();
        assert_eq!(names, ["launch_x", "launch_common"]);
        assert_eq!(own_lines(pre, root).lines().count(), pre.lines().count());

        let raw = "#define LAUNCH(RUST_NAME) \\\n  extern \"C\" void RUST_NAME(int n) { \\\n  }\n\
                   extern \"C\" void launch_y(int n) { }\n";
        let names: Vec<String> = functions(&without_directives(raw), "__global__")
            .into_iter()
            .map(|f| f.name)
            .collect();
        assert_eq!(names, ["launch_y"]);
    }

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|a| a.to_string()).collect()
    }

    #[test]
    fn nvcc_arguments_become_clang_arguments() {
        let args = s(&[
            "--expt-relaxed-constexpr",
            "-std=c++17",
            "-O3",
            "-Xcompiler",
            "-fPIC,-Wall",
            "-gencode",
            "arch=compute_80,code=sm_80",
            "--gpu-architecture=sm_90",
            "-DNO_BF16_KERNEL",
            "--use_fast_math",
            "-Xptxas",
            "-v",
            "--some-nvcc-only",
            "-I/x",
        ]);
        assert_eq!(
            translate_args(&args),
            s(&[
                "-std=c++17",
                "-O3",
                "-fPIC",
                "-Wall",
                "-DNO_BF16_KERNEL",
                "-ffast-math",
                "-I/x"
            ])
        );
    }

    #[test]
    fn kernels_and_launchers_are_found_in_preprocessed_text() {
        let text = r#"
            extern "C" __attribute__((global)) void __attribute__((amdgpu_flat_work_group_size(1, 1024))) affine_f32(const float *x, float *y) { }
            extern "C" __attribute__((global)) void cast_f8(int n);
            template <typename T> __attribute__((global)) void helper(T x) {}
            extern "C" void launch_mmq(const void *x, int (*cb)(int)) { helper<<<1, 1>>>(1); }
            extern "C" int declared_only(int);
            extern "C" { void in_block(void) {} }
            static __attribute__((always_inline)) int not_wanted(int x) { return x; }
        "#;
        let f = functions(text, "__attribute__((global))");
        let names: Vec<(&str, bool, bool, bool)> = f
            .iter()
            .map(|f| (f.name.as_str(), f.kernel, f.extern_c, f.definition))
            .collect();
        assert_eq!(
            names,
            vec![
                ("affine_f32", true, true, true),
                ("cast_f8", true, true, false),
                ("launch_mmq", false, true, true),
                ("declared_only", false, true, false),
                ("helper", true, false, true),
            ]
        );
    }

    #[test]
    fn kernels_are_found_in_raw_text() {
        let text = "extern \"C\" __global__ void k1(float *x) {}\n__global__ void k2() {}\n";
        let f = functions(text, "__global__");
        assert_eq!(f.len(), 2);
        assert!(f[0].kernel && f[0].extern_c && f[0].name == "k1");
        assert!(f[1].kernel && !f[1].extern_c && f[1].name == "k2");
    }

    #[test]
    fn reasons_name_the_construct_and_the_first_error() {
        let root = Path::new("/src/crate");
        let r = reason(
            "/src/crate/mmq.cuh:765:15: error: invalid input constraint 'l' in asm\n",
            root,
        );
        assert!(r.starts_with("uses inline PTX assembly"), "{r}");
        assert!(
            r.contains("mmq.cuh:765:15: error: invalid input constraint"),
            "{r}"
        );
        let r = reason(
            "x.cu:3:1: error: no member named 'wmma' in namespace 'nvcuda'\n",
            root,
        );
        assert!(r.starts_with("uses WMMA"), "{r}");
        let r = reason(
            "x.cu:4:10: fatal error: 'cub/cub.cuh' file not found\n",
            root,
        );
        assert!(r.starts_with("needs a CUDA header"), "{r}");
        assert!(reason("", root).contains("no error line"));
    }

    #[test]
    fn c_strings_escape_quotes_and_other_bytes() {
        assert_eq!(c_string("a\"b\\c\né"), "\"a\\\"b\\\\c\\n\\303\\251\"");
    }
}
