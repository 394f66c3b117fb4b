//! `KernelBuilder`: cudaforge's builder, with kernels from nvcc here or from
//! a job run earlier on a machine with nvcc.

use crate::amd::{self, Requested};
use crate::arch::{ComputeCapability, GpuArch};
use crate::error::{Error, Result};
use crate::exec;
use crate::plan::{Output, Plan, Request};
use crate::sources::SourceSelector;
use crate::toolkit::CudaToolkit;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Environment variables that change what a build does.
const ENV: &[&str] = &[
    "CUDAFORGE_PREBUILT",
    "CUDAFORGE_JOBS",
    "CUDAFORGE_CHECK_ONLY",
    "CUDA_COMPUTE_CAP",
    "NVCC",
    "NVCC_CCBIN",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDA_ROOT",
    "HIP_PLATFORM",
];

/// Builds `.cu` files into PTX (one file each, for runtime loading) or into
/// a static library (for `extern "C"` launchers), as cudaforge does.
///
/// Where the kernels come from, first match wins:
/// 1. `CUDAFORGE_CHECK_ONLY=1`: nothing is compiled. The PTX files hold a
///    line saying so (loading them fails) and the crate asks the linker for
///    `libcudaforge-check-only-build-has-no-kernels`, which exists nowhere:
///    `cargo check` passes, while `cargo build` fails and names the reason.
/// 2. `CUDAFORGE_PREBUILT=DIR` holding `DIR/<key>/`, the output of this
///    build's job run on another machine (below).
/// 3. nvcc ([`CudaToolkit::detect`]).
/// 4. Otherwise the build fails, after writing its job: a folder with the
///    sources and a `build.sh` that runs the same nvcc commands
///    (`CUDAFORGE_JOBS=DIR`, default `$OUT_DIR/cudaforge-jobs`). Check-only
///    builds write their job too.
///
/// The key hashes the nvcc commands and every source and header in the
/// sources' folder, so kernels are used only for the exact sources, flags
/// and architecture they were built from.
#[derive(Debug, Clone)]
pub struct KernelBuilder {
    sources: SourceSelector,
    compute: ComputeCapability,
    includes: Vec<PathBuf>,
    args: Vec<String>,
    out_dir: PathBuf,
    threads: usize,
    toolkit: Option<PathBuf>,
    unsupported: Vec<String>,
    explicit_cap_required: bool,
}

impl Default for KernelBuilder {
    fn default() -> Self {
        Self {
            sources: SourceSelector::new(),
            compute: ComputeCapability::new(),
            includes: Vec::new(),
            args: Vec::new(),
            out_dir: std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("target/cudaforge")),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            toolkit: None,
            unsupported: Vec::new(),
            explicit_cap_required: false,
        }
    }
}

impl KernelBuilder {
    /// A builder with no sources (then `src/**/*.cu`), output in `OUT_DIR`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every `.cu` file under `dir`, recursively.
    pub fn source_dir<P: AsRef<Path>>(mut self, dir: P) -> Self {
        self.sources = self.sources.add_directory(dir);
        self
    }

    /// These source files.
    pub fn source_files<I, P>(mut self, files: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        self.sources = self.sources.add_files(files);
        self
    }

    /// The `.cu` files matching a glob (`src/**/*.cu`).
    pub fn source_glob(mut self, pattern: &str) -> Self {
        self.sources = self.sources.add_glob(pattern);
        self
    }

    /// Leaves out files by name pattern (`moe_*.cu`) or folder (`old/*`).
    pub fn exclude(mut self, patterns: &[&str]) -> Self {
        self.sources = self.sources.exclude(patterns);
        self
    }

    /// Files outside the sources' folder whose change must rebuild.
    pub fn watch<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        self.sources = self.sources.watch(paths);
        self
    }

    /// The architecture for every file (80 for `sm_80`; 90 means `sm_90a`).
    pub fn compute_cap(mut self, cap: usize) -> Self {
        self.compute = self.compute.with_default(cap);
        self
    }

    /// The architecture as text (`90a`, `sm_100a`).
    pub fn compute_cap_arch(mut self, arch: &str) -> Self {
        self.compute = self.compute.with_default_arch(arch);
        self
    }

    /// Another architecture for the files matching `pattern`.
    pub fn with_compute_override(mut self, pattern: &str, cap: usize) -> Self {
        self.compute = self.compute.with_override(pattern, cap);
        self
    }

    /// As [`KernelBuilder::with_compute_override`], as text.
    pub fn with_compute_override_arch(mut self, pattern: &str, arch: &str) -> Self {
        self.compute = self.compute.with_override_arch(pattern, arch);
        self
    }

    /// The default capability, as cudaforge answers it: the one set here
    /// ([`KernelBuilder::compute_cap`]), else `CUDA_COMPUTE_CAP` (`86`,
    /// `8.6`, `90a`; a value that does not parse gives `None`, nvidia-smi is
    /// then not asked), else the first GPU's `compute_cap` from
    /// `nvidia-smi`, else `None` (on AMD machines, as a rule). The number
    /// has no suffix: 90 for `90a`.
    pub fn get_compute_cap(&self) -> Option<usize> {
        self.compute.get_default().ok().map(|a| a.base())
    }

    /// Sets the default capability in place.
    pub fn set_compute_cap(&mut self, cap: usize) {
        self.compute = std::mem::take(&mut self.compute).with_default(cap);
    }

    /// Fails unless a capability was set here or in `CUDA_COMPUTE_CAP`
    /// (no `nvidia-smi` detection), or the build is for AMD
    /// (`HIP_PLATFORM=amd`), which needs none.
    pub fn require_explicit_compute_cap(mut self) -> Result<Self> {
        self.explicit_cap_required = true;
        if self.compute.explicit_default().is_some()
            || std::env::var_os("CUDA_COMPUTE_CAP").is_some()
            || amd::requested_platform().is_ok_and(|p| p == Requested::Amd)
        {
            Ok(self)
        } else {
            Err(Error::ComputeCapDetectionFailed(
                "an explicit compute capability is required: call .compute_cap(N) or set CUDA_COMPUTE_CAP".into(),
            ))
        }
    }

    /// CUTLASS from git: not supported (nothing is fetched); the build fails
    /// and says so.
    pub fn with_cutlass(mut self, commit: Option<&str>) -> Self {
        self.unsupported
            .push(format!("CUTLASS ({})", commit.unwrap_or("default commit")));
        self
    }

    /// A git dependency: not supported; the build fails and says so. Pass
    /// its checkout with [`KernelBuilder::include_path`] instead.
    pub fn with_git_dependency(
        mut self,
        name: &str,
        repo: &str,
        commit: &str,
        include_paths: Vec<&str>,
        _shallow: bool,
    ) -> Self {
        let _ = include_paths;
        self.unsupported
            .push(format!("{name} ({repo} at {commit})"));
        self
    }

    /// Always an error: this builder fetches nothing.
    pub fn fetch_git_dependency(&self, name: &str) -> Result<PathBuf> {
        Err(Error::GitOperationFailed(format!(
            "{name}: the hip-rs cudaforge drop-in fetches no git dependency"
        )))
    }

    /// An extra include folder (`-I`); its headers count in the key.
    pub fn include_path<P: Into<PathBuf>>(mut self, path: P) -> Self {
        self.includes.push(path.into());
        self
    }

    /// Parallel nvcc runs as a share of the CPUs (0.0 to 1.0).
    pub fn thread_percentage(mut self, percentage: f32) -> Self {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.threads = ((cpus as f32 * percentage.clamp(0.0, 1.0)).ceil() as usize).max(1);
        self
    }

    /// At most `max` parallel nvcc runs.
    pub fn max_threads(mut self, max: usize) -> Self {
        self.threads = self.threads.min(max.max(1));
        self
    }

    /// Accepted for cudaforge's API; nvcc's own `--threads` is not used.
    pub fn nvcc_thread_patterns<S: AsRef<str>>(
        self,
        _patterns: &[S],
        _nvcc_threads: usize,
    ) -> Self {
        self
    }

    /// Where PTX files and intermediate builds go (default `OUT_DIR`).
    pub fn out_dir<P: Into<PathBuf>>(mut self, dir: P) -> Self {
        self.out_dir = dir.into();
        self
    }

    /// One more nvcc argument.
    pub fn arg(mut self, arg: &str) -> Self {
        self.args.push(arg.to_owned());
        self
    }

    /// More nvcc arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Accepted for cudaforge's API: builds are always keyed by content, so
    /// an unchanged build is reused and a changed one rebuilt.
    pub fn no_incremental(self) -> Self {
        self
    }

    /// The CUDA toolkit under `path` (its `bin/nvcc`).
    pub fn cuda_root<P: AsRef<Path>>(mut self, path: P) -> Self {
        self.toolkit = Some(path.as_ref().to_path_buf());
        self
    }

    /// Builds every source into an object and archives them as `out_file`.
    /// Link it with `cargo:rustc-link-lib=NAME` (the build script's job).
    pub fn build_lib<P: Into<PathBuf>>(&self, out_file: P) -> Result<()> {
        let out_file = out_file.into();
        let name = out_file
            .file_name()
            .ok_or_else(|| {
                Error::InvalidConfig(format!("{} is not a file name", out_file.display()))
            })?
            .to_string_lossy()
            .into_owned();
        let pic = !std::env::var("TARGET").is_ok_and(|t| t.contains("msvc"));
        let Some((dir, _)) = self.produce(Output::Lib { name: name.clone() }, pic)? else {
            return Ok(());
        };
        if let Some(parent) = out_file.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::copy(dir.join(&name), &out_file)?;
        Ok(())
    }

    /// Builds every source into `<out_dir>/<stem>.ptx`.
    pub fn build_ptx(&self) -> Result<PtxOutput> {
        let mut stems = Vec::new();
        if let Some((dir, products)) = self.produce(Output::Ptx, false)? {
            std::fs::create_dir_all(&self.out_dir)?;
            for p in &products {
                std::fs::copy(dir.join(p), self.out_dir.join(p))?;
                stems.push(p.trim_end_matches(".ptx").to_owned());
            }
        }
        Ok(PtxOutput { stems })
    }

    /// Makes the outputs and returns the folder holding them with their
    /// file names, or `None` when no source was selected.
    fn produce(&self, output: Output, pic: bool) -> Result<Option<(PathBuf, Vec<String>)>> {
        if !self.unsupported.is_empty() {
            return Err(Error::GitOperationFailed(format!(
                "the hip-rs cudaforge drop-in fetches no git dependency; asked for {}",
                self.unsupported.join(", ")
            )));
        }
        for var in ENV {
            println!("cargo:rerun-if-env-changed={var}");
        }
        let files = self.sources.resolve()?;
        if files.is_empty() {
            println!("cargo:warning=cudaforge: no kernel source files found");
            return Ok(None);
        }
        for f in self.sources.watch_paths() {
            println!("cargo:rerun-if-changed={}", f.display());
        }
        let check_only = std::env::var("CUDAFORGE_CHECK_ONLY").is_ok_and(|v| v == "1");
        let requested = amd::requested_platform()?;
        // An AMD build needs no CUDA architecture: one that cannot be
        // found (no nvidia-smi, no CUDA_COMPUTE_CAP) only names the plan.
        let amd_planned = !check_only
            && (requested == Requested::Amd
                || (requested == Requested::Either
                    && self.toolkit.is_none()
                    && CudaToolkit::detect().is_err()
                    && amd::toolchain().is_ok()));
        let sources = files
            .iter()
            .map(|f| {
                let name = f.file_name().unwrap_or_default().to_string_lossy();
                let arch = match self.compute.get_for_file(&name) {
                    Ok(a) => a,
                    // A check-only build compiles nothing: any architecture
                    // names its job.
                    Err(_) if (check_only && !self.explicit_cap_required) || amd_planned => {
                        GpuArch::auto_suffix(80)
                    }
                    Err(e) => return Err(e),
                };
                Ok((f.clone(), arch))
            })
            .collect::<Result<Vec<_>>>()?;
        let plan = Plan::new(Request {
            output,
            sources: &sources,
            args: &self.args,
            includes: &self.includes,
            pic,
        })?;
        for f in &plan.inputs {
            println!("cargo:rerun-if-changed={}", f.display());
        }
        let jobs = std::env::var_os("CUDAFORGE_JOBS")
            .map(PathBuf::from)
            .unwrap_or_else(|| self.out_dir.join("cudaforge-jobs"));

        if check_only {
            let job = exec::write_job(&plan, &jobs)?;
            let dir = self.out_dir.join("cudaforge-check-only").join(&plan.key);
            exec::write_placeholders(&plan, &dir)?;
            println!(
                "cargo:warning=cudaforge: CHECK-ONLY build: no kernels compiled (job {}); this crate will not link",
                job.display()
            );
            println!("cargo:rustc-link-lib=dylib={}", exec::PLACEHOLDER_LINK_LIB);
            return Ok(Some((dir, plan.products)));
        }
        if requested == Requested::Amd {
            let toolchain = amd::toolchain()
                .map_err(|e| Error::InvalidConfig(format!("HIP_PLATFORM=amd, but {e}")))?;
            return self.amd(&plan, pic, toolchain).map(Some);
        }
        if let Some(root) = std::env::var_os("CUDAFORGE_PREBUILT") {
            let dir = PathBuf::from(root).join(&plan.key);
            if exec::is_complete(&plan, &dir)? {
                self.link_search(&dir);
                println!(
                    "cargo:warning=cudaforge: kernels {} built by nvcc elsewhere ({})",
                    plan.key,
                    dir.display()
                );
                return Ok(Some((dir, plan.products)));
            }
        }
        let toolkit = match &self.toolkit {
            Some(root) => CudaToolkit::from_root(root),
            None => CudaToolkit::detect(),
        };
        match toolkit {
            Ok(tk) => {
                let dir = self.out_dir.join("cudaforge").join(&plan.key);
                exec::run_here(&plan, &tk, &dir, self.threads)?;
                println!("cargo:rustc-link-search=native={}", tk.lib_dir.display());
                Ok(Some((dir, plan.products)))
            }
            Err(e) => {
                // No nvcc: a machine with ROCm builds for AMD.
                let hip = if requested == Requested::Either {
                    match amd::toolchain() {
                        Ok(toolchain) => return self.amd(&plan, pic, toolchain).map(Some),
                        Err(why) => Some(why),
                    }
                } else {
                    None
                };
                let job = exec::write_job(&plan, &jobs)?;
                let e = match e {
                    Error::NvccNotFound(m) => m,
                    other => other.to_string(),
                };
                let mut msg = format!(
                    "{e}. No kernels for key {key} in CUDAFORGE_PREBUILT either. \
                     This build's job is {job}: on a machine with nvcc run \
                     `bash {job}/build.sh OUT`, then bring OUT back as DIR/{key} and set \
                     CUDAFORGE_PREBUILT=DIR. To type-check without kernels, set CUDAFORGE_CHECK_ONLY=1.",
                    key = plan.key,
                    job = job.display()
                );
                if std::env::var_os("CUDAFORGE_PREBUILT").is_none() {
                    msg.push_str(" (CUDAFORGE_PREBUILT is not set.)");
                }
                if let Some(why) = hip {
                    msg.push_str(&format!(
                        " For AMD GPUs, install ROCm's compiler; {}",
                        why.replace('\n', " ")
                    ));
                }
                Err(Error::NvccNotFound(msg))
            }
        }
    }

    /// The AMD build of `plan` ([`crate::amd`]).
    fn amd(
        &self,
        plan: &Plan,
        pic: bool,
        toolchain: hip_build::Toolchain,
    ) -> Result<(PathBuf, Vec<String>)> {
        let output = match plan.archive {
            Some(_) => Output::Lib {
                name: plan.products[0].clone(),
            },
            None => Output::Ptx,
        };
        println!(
            "cargo:warning=cudaforge: compiling {} for AMD GPUs with {} ({})",
            if plan.archive.is_some() {
                "a kernel library"
            } else {
                "PTX kernels"
            },
            toolchain.compiler.display(),
            toolchain.found_by
        );
        let dir = amd::AmdBuild {
            plan,
            output: &output,
            args: &self.args,
            pic,
            out_dir: &self.out_dir,
            threads: self.threads,
            toolchain,
        }
        .run()?;
        Ok((dir, plan.products.clone()))
    }

    fn link_search(&self, dir: &Path) {
        let lib = dir.join(exec::LINK_DIR);
        if lib.is_dir() {
            println!("cargo:rustc-link-search=native={}", lib.display());
        }
    }
}

/// The PTX files of [`KernelBuilder::build_ptx`].
#[derive(Debug, Clone)]
pub struct PtxOutput {
    stems: Vec<String>,
}

impl PtxOutput {
    /// Writes Rust source with one `pub const STEM: &str` per PTX file,
    /// included from `OUT_DIR` at compile time.
    pub fn write<P: AsRef<Path>>(&self, out: P) -> Result<()> {
        let mut f = std::fs::File::create(out.as_ref())?;
        for stem in &self.stems {
            writeln!(
                f,
                r#"pub const {}: &str = include_str!(concat!(env!("OUT_DIR"), "/{stem}.ptx"));"#,
                stem.to_uppercase().replace(['.', '-'], "_"),
            )?;
        }
        Ok(())
    }

    /// The file stems, sorted (`affine`, `binary`, ...).
    pub fn stems(&self) -> &[String] {
        &self.stems
    }
}
