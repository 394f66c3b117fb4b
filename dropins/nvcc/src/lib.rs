//! hip-nvcc: an `nvcc` for build scripts that ask for CUDA's compiler on
//! machines that have none. It never claims to be NVIDIA's compiler: its
//! `--version` says what it is, what it compiles with, and which CUDA
//! release it stands in for.
//!
//! - On AMD (`HIP_PLATFORM=amd`, or no NVIDIA nvcc found) it compiles CUDA
//!   sources to objects (`-c`) the way the cudaforge drop-in's AMD path
//!   does: nvcc's options translated by the drop-in, ROCm's clang or hipcc
//!   with the CUDA-over-HIP headers of `hip-cuda-layer`, for the targets of
//!   `HIP_BUILD_OFFLOAD_ARCH`. What AMD GPUs lack (PTX, fatbinaries) and
//!   options it does not know are refused, naming them.
//! - On NVIDIA (`HIP_PLATFORM=nvidia`, or an NVIDIA nvcc found by the
//!   drop-in's toolkit search, which passes over this front) it runs that
//!   nvcc with the arguments unchanged.
//!
//! The binary is `src/main.rs`; this library holds its logic, for tests.

use cudaforge::amd::{self, Requested};
use cudaforge::CudaToolkit;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable naming the CUDA release the front stands in for (`12.8`).
pub const VERSION_VAR: &str = "HIP_NVCC_CUDA_VERSION";

/// The CUDA release the front stands in for when [`VERSION_VAR`] is unset
/// (and no NVIDIA nvcc is used).
pub const DEFAULT_CUDA_VERSION: &str = "13.0";

/// Set by the front for the processes it starts: a front asked for its
/// `--version` by another front (through the cudaforge drop-in's toolkit
/// search, which runs every nvcc's `--version`) answers without searching
/// in turn, so fronts never start one another without end.
pub const PROBE_VAR: &str = "HIP_NVCC_PROBING";

/// This crate's version.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where hip-nvcc comes from (the workspace's `repository`).
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");

/// The value of [`VERSION_VAR`], checked: `MAJOR.MINOR`, decimal, major
/// 11 to 99, minor 0 to 99 (`12.8`, `13.0`). `None` when unset or empty.
pub fn cuda_version_from(value: Option<&str>) -> Result<Option<String>, String> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let bad = || {
        format!(
            "{VERSION_VAR}={v}: expected a CUDA release as MAJOR.MINOR, such as 12.8 or 13.0 \
             (major 11 to 99)"
        )
    };
    let (major, minor) = v.split_once('.').ok_or_else(bad)?;
    let number = |s: &str| -> Option<u32> {
        (!s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    match (number(major), number(minor)) {
        (Some(m), Some(n)) if m >= 11 => Ok(Some(format!("{m}.{n}"))),
        _ => Err(bad()),
    }
}

/// The text of `nvcc --version`, in four lines: what this is (never
/// NVIDIA's nvcc), `compiles_with`, this crate's version, and, in the
/// shape of nvcc's fourth line (`..., release 13.0, ...`), the CUDA
/// `release` it stands in for.
pub fn version_text(compiles_with: &str, release: &str) -> String {
    format!(
        "nvcc: {} (not NVIDIA's nvcc)\n\
         {compiles_with}\n\
         hip-nvcc {VERSION}, from hip-rs ({REPOSITORY}, dropins/nvcc)\n\
         hip-nvcc {VERSION}, release {release}, stands in for CUDA {release}\n",
        cudaforge::NVCC_FRONT_MARKER
    )
}

/// `nvcc --help`.
pub fn usage() -> String {
    format!(
        "\
Usage: nvcc [options] -c FILE.cu [-o FILE.o]
       nvcc --version

hip-nvcc {VERSION}: hip-rs's front for CUDA code on AMD GPUs (not NVIDIA's nvcc).
On AMD (HIP_PLATFORM=amd, or no NVIDIA nvcc found) it compiles CUDA sources to
objects with ROCm's clang or hipcc through hip-rs's CUDA-over-HIP headers. On
NVIDIA (HIP_PLATFORM=nvidia, or an NVIDIA nvcc found through NVCC, CUDA_HOME,
CUDA_PATH, CUDA_ROOT, PATH or /usr/local/cuda) it runs that nvcc unchanged.

Options on AMD:
  -c, --compile                 compile to an object (required)
  -o, --output-file FILE        the object (default: the source's stem + .o)
  -x cu                         treat every input as CUDA
  -I, -D, -U DIR|NAME[=V]       include folder, define, undefine
  -O0..-O3, -std=c++17, -g, -w  as nvcc
  -isystem DIR, -include FILE   as nvcc
  -Xcompiler, --compiler-options A,B   host compiler options
  --use_fast_math               -ffast-math
  -rdc=true, -dc                relocatable device code (-fgpu-rdc)
  -v, --verbose                 print the compiler commands
  -dryrun                       print them without running them
  Accepted and without effect on AMD: -arch, -gencode, -code, -Xptxas,
  -Xnvlink, -Xcudafe, -ccbin, -t/--threads, -maxrregcount, --default-stream,
  --ftz, --prec-div, --prec-sqrt, --fmad, --diag-suppress, --split-compile,
  --expt-relaxed-constexpr, --expt-extended-lambda, -lineinfo, -G, -keep,
  -res-usage, -allow-unsupported-compiler, -Wno-deprecated-gpu-targets.
  Refused: --ptx, --cubin, --fatbin, --optix-ir (AMD GPUs have none), linking
  and the other modes (--lib, --link, -dlink, --run, -E, -M); any other option.

Environment:
  HIP_PLATFORM=amd|nvidia       which compiler to use (default: nvcc if found)
  HIP_BUILD_OFFLOAD_ARCH        AMD targets, comma-separated (default
                                gfx90a,gfx942,gfx1030,gfx1100,gfx1201; native)
  HIPCC, ROCM_PATH, HIP_PATH, HIP_CLANG_PATH   where ROCm's compiler is
  {VERSION_VAR}=12.8       the CUDA release --version stands in for
                                (default {DEFAULT_CUDA_VERSION}, or the NVIDIA nvcc's own)
"
    )
}

/// What a command line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// `--version`, `-V`.
    Version,
    /// `-h`, `--help`.
    Help,
    /// Compile sources to objects.
    Compile(Compile),
}

/// A compile on AMD: sources to objects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Compile {
    /// The CUDA sources.
    pub inputs: Vec<PathBuf>,
    /// `-o`: the object (one input only).
    pub output: Option<PathBuf>,
    /// `-v`, `--verbose`: print each compiler command.
    pub verbose: bool,
    /// `-dryrun`: print the commands, run none.
    pub dry_run: bool,
    /// The options for the compiler, in the nvcc spellings the cudaforge
    /// drop-in's translation reads.
    pub nvcc_options: Vec<String>,
}

impl Compile {
    /// The compiler's options: [`Compile::nvcc_options`] through the
    /// cudaforge drop-in's translation.
    pub fn clang_args(&self) -> Vec<String> {
        amd::translate_args(&self.nvcc_options)
    }

    /// Where `input` compiles to.
    pub fn output_for(&self, input: &Path) -> PathBuf {
        self.output.clone().unwrap_or_else(|| {
            PathBuf::from(format!(
                "{}.o",
                input.file_stem().unwrap_or_default().to_string_lossy()
            ))
        })
    }
}

/// What an option does.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// For the translation, the value joined to this spelling (`-I` DIR).
    Joined(&'static str),
    /// For the translation, as two words: this spelling and the value.
    Pair(&'static str),
    /// For the translation, as this word.
    Flag(&'static str),
    /// Accepted, without meaning on AMD (its value, if any, is consumed).
    Drop,
    /// A mode AMD GPUs lack: refused, with why.
    Refuse(&'static str),
    Compile,
    DeviceCompile,
    Output,
    Lang,
    Verbose,
    DryRun,
    Rdc,
}

/// An nvcc option: its spellings and whether it takes a value.
struct Opt {
    names: &'static [&'static str],
    value: bool,
    kind: Kind,
}

const NO_PTX: &str = "AMD GPUs have no PTX, and hip-nvcc makes none; it compiles CUDA sources \
     to objects (-c) holding AMD code. For kernels loaded at run time, build them with the \
     cudaforge drop-in (KernelBuilder::build_ptx), which writes AMD code objects in the PTX \
     files' place";
const NO_BINARY: &str = "AMD GPUs have no NVIDIA GPU binaries (cubin, fatbin, OptiX IR); hip-nvcc \
     compiles CUDA sources to objects (-c) holding AMD code objects";
const NO_MODE: &str = "this nvcc mode is not provided by hip-nvcc, which compiles CUDA sources \
     to objects (-c) only; link them with the host linker and -lamdhip64";

const fn opt(names: &'static [&'static str], value: bool, kind: Kind) -> Opt {
    Opt { names, value, kind }
}

const OPTIONS: &[Opt] = &[
    opt(&["-c", "--compile"], false, Kind::Compile),
    opt(&["-dc", "--device-c"], false, Kind::DeviceCompile),
    opt(&["-o", "--output-file"], true, Kind::Output),
    opt(&["-x", "--x"], true, Kind::Lang),
    opt(&["-v", "--verbose"], false, Kind::Verbose),
    opt(&["-dryrun", "--dryrun"], false, Kind::DryRun),
    opt(&["-I", "--include-path"], true, Kind::Joined("-I")),
    opt(&["-D", "--define-macro"], true, Kind::Joined("-D")),
    opt(&["-U", "--undefine-macro"], true, Kind::Joined("-U")),
    opt(&["-O", "--optimize"], true, Kind::Joined("-O")),
    opt(&["-std", "--std"], true, Kind::Joined("-std=")),
    opt(
        &["-isystem", "--system-include"],
        true,
        Kind::Pair("-isystem"),
    ),
    opt(&["-include", "--pre-include"], true, Kind::Pair("-include")),
    opt(
        &["-Xcompiler", "--compiler-options"],
        true,
        Kind::Pair("-Xcompiler"),
    ),
    opt(&["-g", "--debug"], false, Kind::Flag("-g")),
    opt(&["-w", "--disable-warnings"], false, Kind::Flag("-w")),
    opt(
        &["-use_fast_math", "--use_fast_math"],
        false,
        Kind::Flag("--use_fast_math"),
    ),
    opt(&["-rdc", "--relocatable-device-code"], true, Kind::Rdc),
    // NVIDIA-only settings: accepted, without effect on AMD.
    opt(&["-arch", "--gpu-architecture"], true, Kind::Drop),
    opt(&["-gencode", "--generate-code"], true, Kind::Drop),
    opt(&["-code", "--gpu-code"], true, Kind::Drop),
    opt(&["-Xptxas", "--ptxas-options"], true, Kind::Drop),
    opt(&["-Xnvlink", "--nvlink-options"], true, Kind::Drop),
    opt(&["-Xcudafe"], true, Kind::Drop),
    opt(&["-ccbin", "--compiler-bindir"], true, Kind::Drop),
    opt(&["-t", "--threads"], true, Kind::Drop),
    opt(&["-maxrregcount", "--maxrregcount"], true, Kind::Drop),
    opt(&["-default-stream", "--default-stream"], true, Kind::Drop),
    opt(&["-ftz", "--ftz"], true, Kind::Drop),
    opt(&["-prec-div", "--prec-div"], true, Kind::Drop),
    opt(&["-prec-sqrt", "--prec-sqrt"], true, Kind::Drop),
    opt(&["-fmad", "--fmad"], true, Kind::Drop),
    opt(&["-diag-suppress", "--diag-suppress"], true, Kind::Drop),
    opt(&["-split-compile", "--split-compile"], true, Kind::Drop),
    opt(
        &["-expt-relaxed-constexpr", "--expt-relaxed-constexpr"],
        false,
        Kind::Drop,
    ),
    opt(
        &["-expt-extended-lambda", "--expt-extended-lambda"],
        false,
        Kind::Drop,
    ),
    opt(
        &["-extended-lambda", "--extended-lambda"],
        false,
        Kind::Drop,
    ),
    opt(&["-lineinfo", "--generate-line-info"], false, Kind::Drop),
    opt(&["-G", "--device-debug"], false, Kind::Drop),
    opt(&["-keep", "--keep"], false, Kind::Drop),
    opt(&["-res-usage", "--resource-usage"], false, Kind::Drop),
    opt(
        &[
            "-allow-unsupported-compiler",
            "--allow-unsupported-compiler",
        ],
        false,
        Kind::Drop,
    ),
    opt(&["-Wno-deprecated-gpu-targets"], false, Kind::Drop),
    // What AMD GPUs lack, and nvcc's other modes.
    opt(&["-ptx", "--ptx"], false, Kind::Refuse(NO_PTX)),
    opt(&["-cubin", "--cubin"], false, Kind::Refuse(NO_BINARY)),
    opt(&["-fatbin", "--fatbin"], false, Kind::Refuse(NO_BINARY)),
    opt(&["-optix-ir", "--optix-ir"], false, Kind::Refuse(NO_BINARY)),
    opt(&["-lib", "--lib"], false, Kind::Refuse(NO_MODE)),
    opt(&["-link", "--link"], false, Kind::Refuse(NO_MODE)),
    opt(&["-dlink", "--device-link"], false, Kind::Refuse(NO_MODE)),
    opt(&["-run", "--run"], false, Kind::Refuse(NO_MODE)),
    opt(&["-E", "--preprocess"], false, Kind::Refuse(NO_MODE)),
    opt(
        &["-M", "--generate-dependencies"],
        false,
        Kind::Refuse(NO_MODE),
    ),
];

/// Options whose value may be joined to the name (`-I/x`, `-DN=1`, `-O3`).
const JOINABLE: &[&str] = &["-I", "-D", "-U", "-O"];

fn find(name: &str) -> Option<&'static Opt> {
    OPTIONS.iter().find(|o| o.names.contains(&name))
}

/// Parses an nvcc command line (without the program name) for the AMD
/// path. `--version`/`-V` and `-h`/`--help` anywhere win; an unknown
/// option, a refused one or a missing value is an error that names it.
pub fn parse(args: &[String]) -> Result<Action, String> {
    if args.iter().any(|a| a == "--version" || a == "-V") {
        return Ok(Action::Version);
    }
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(Action::Help);
    }
    let mut c = Compile::default();
    let mut compile = false;
    let mut as_cuda = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if !a.starts_with('-') || a == "-" {
            c.inputs.push(PathBuf::from(a));
            continue;
        }
        // The option and its value: exact, joined (`-I/x`), or `name=value`.
        let (o, mut value) = if let Some(o) = find(a) {
            (o, None)
        } else if let Some(j) = JOINABLE
            .iter()
            .find(|j| a.len() > j.len() && a.starts_with(**j))
        {
            (
                find(j).expect("in the table"),
                Some(a[j.len()..].to_owned()),
            )
        } else if let Some((name, v)) = a.split_once('=').filter(|(n, _)| find(n).is_some()) {
            let o = find(name).expect("just found");
            if !o.value {
                return Err(format!("{a}: {name} takes no value"));
            }
            (o, Some(v.to_owned()))
        } else {
            return Err(format!(
                "{a}: unknown or unsupported nvcc option; hip-nvcc, the nvcc front for AMD GPUs, \
                 accepts the options `nvcc --help` lists"
            ));
        };
        if o.value && value.is_none() {
            value = Some(
                it.next()
                    .cloned()
                    .ok_or_else(|| format!("{a}: needs a value"))?,
            );
        }
        let v = value.unwrap_or_default();
        match o.kind {
            Kind::Joined(s) => c.nvcc_options.push(format!("{s}{v}")),
            Kind::Pair(s) => c.nvcc_options.extend([s.to_owned(), v]),
            Kind::Flag(s) => c.nvcc_options.push(s.to_owned()),
            Kind::Drop => {}
            Kind::Refuse(why) => return Err(format!("{a}: {why}")),
            Kind::Compile => compile = true,
            Kind::DeviceCompile => {
                compile = true;
                c.nvcc_options.push("-rdc=true".into());
            }
            Kind::Output => c.output = Some(PathBuf::from(v)),
            Kind::Lang if v == "cu" => as_cuda = true,
            Kind::Lang => return Err(format!("{a} {v}: hip-nvcc compiles CUDA only (-x cu)")),
            Kind::Verbose => c.verbose = true,
            Kind::DryRun => c.dry_run = true,
            Kind::Rdc => match v.as_str() {
                "true" => c.nvcc_options.push("-rdc=true".into()),
                "false" => {}
                _ => return Err(format!("{a}: expected true or false")),
            },
        }
    }
    if c.inputs.is_empty() {
        return Err("no input files (nvcc --help shows the usage)".into());
    }
    if !compile {
        return Err(format!(
            "without -c nvcc would link a program: {NO_MODE}; pass -c"
        ));
    }
    if c.output.is_some() && c.inputs.len() > 1 {
        return Err("-o names one object, but several input files were given".into());
    }
    if !as_cuda {
        if let Some(f) = c
            .inputs
            .iter()
            .find(|f| !f.extension().is_some_and(|e| e == "cu"))
        {
            return Err(format!(
                "{}: hip-nvcc compiles CUDA sources only (.cu, or any file with -x cu)",
                f.display()
            ));
        }
    }
    Ok(Action::Compile(c))
}

/// Which compiler a run uses.
#[derive(Debug)]
pub enum Backend {
    /// ROCm's compiler, for AMD GPUs.
    Amd,
    /// An NVIDIA nvcc (never this front).
    Nvidia(CudaToolkit),
}

/// The compiler `HIP_PLATFORM` and this machine give: `amd`, `nvidia`
/// (an NVIDIA nvcc must then exist), or, unset, an NVIDIA nvcc where the
/// cudaforge drop-in's search finds one, else AMD.
pub fn backend() -> Result<Backend, String> {
    match amd::requested_platform().map_err(|e| e.to_string())? {
        Requested::Amd => Ok(Backend::Amd),
        Requested::Nvidia => CudaToolkit::detect()
            .map(Backend::Nvidia)
            .map_err(|e| format!("HIP_PLATFORM=nvidia, but no NVIDIA nvcc was found: {e}")),
        Requested::Either => Ok(CudaToolkit::detect().map_or(Backend::Amd, Backend::Nvidia)),
    }
}

/// `nvcc --version` on this machine, or why not (a bad [`VERSION_VAR`]).
/// `probed`: asked by another front ([`PROBE_VAR`]), which answers
/// without searching for compilers.
pub fn version(probed: bool) -> Result<String, String> {
    let var = std::env::var(VERSION_VAR).ok();
    let chosen = cuda_version_from(var.as_deref())?;
    if probed {
        let release = chosen.unwrap_or_else(|| DEFAULT_CUDA_VERSION.to_owned());
        return Ok(version_text(
            "compiles with ROCm's clang for AMD GPUs, or with NVIDIA's nvcc where one is found \
             (asked by another hip-nvcc: not searched)",
            &release,
        ));
    }
    let (line, found) = match backend() {
        Ok(Backend::Nvidia(tk)) => (
            format!(
                "compiles with NVIDIA's nvcc at {}, passing the arguments unchanged",
                tk.nvcc_path.display()
            ),
            tk.version.map(|(m, n)| format!("{m}.{n}")),
        ),
        Ok(Backend::Amd) => (
            match amd::toolchain() {
                Ok(tc) => format!(
                    "compiles with {} ({}) for AMD GPUs, through hip-rs's CUDA-over-HIP headers",
                    tc.compiler.display(),
                    tc.found_by
                ),
                Err(_) => "compiles with ROCm's hipcc or clang for AMD GPUs, through hip-rs's \
                           CUDA-over-HIP headers (none found on this machine)"
                    .to_owned(),
            },
            None,
        ),
        Err(e) => (
            format!("compiles nothing here: {}", e.replace('\n', " ")),
            None,
        ),
    };
    let release = chosen
        .or(found)
        .unwrap_or_else(|| DEFAULT_CUDA_VERSION.to_owned());
    Ok(version_text(&line, &release))
}

/// Runs the front on `args` (without the program name); returns the exit
/// status.
pub fn run(args: Vec<OsString>) -> i32 {
    let text: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let fail = |e: String| {
        eprintln!("nvcc (hip-nvcc): error: {e}");
        1
    };
    let probed = std::env::var_os(PROBE_VAR).is_some();
    // The nvcc search runs each nvcc's --version: a front among them must
    // answer without searching in turn.
    std::env::set_var(PROBE_VAR, "1");
    match parse(&text) {
        Ok(Action::Version) => match version(probed) {
            Ok(v) => {
                print!("{v}");
                0
            }
            Err(e) => fail(e),
        },
        Ok(Action::Help) => {
            print!("{}", usage());
            0
        }
        action => match backend() {
            Ok(Backend::Nvidia(tk)) => exec_nvcc(&tk.nvcc_path, &args),
            Ok(Backend::Amd) => match action.and_then(|a| match a {
                Action::Compile(c) => compile_amd(&c),
                _ => Ok(()),
            }) {
                Ok(()) => 0,
                Err(e) => fail(e),
            },
            Err(e) => fail(e),
        },
    }
}

/// Runs NVIDIA's nvcc with `args` unchanged; returns its exit status (on
/// Unix, the process becomes nvcc).
fn exec_nvcc(nvcc: &Path, args: &[OsString]) -> i32 {
    let mut c = Command::new(nvcc);
    c.args(args);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        let e = c.exec();
        eprintln!(
            "nvcc (hip-nvcc): error: could not run {}: {e}",
            nvcc.display()
        );
        1
    }
    #[cfg(not(unix))]
    match c.status() {
        Ok(s) => s.code().unwrap_or(1),
        Err(e) => {
            eprintln!(
                "nvcc (hip-nvcc): error: could not run {}: {e}",
                nvcc.display()
            );
            1
        }
    }
}

/// Compiles `c` for AMD GPUs: each source at the first `__CUDA_ARCH__`
/// level that compiles (890, then lower, as the drop-in does), a warning
/// naming the level when it is not the first.
pub fn compile_amd(c: &Compile) -> Result<(), String> {
    let tc = amd::toolchain()
        .map_err(|e| format!("no HIP compiler to compile CUDA sources for AMD GPUs: {e}"))?;
    let targets = amd::targets().map_err(|e| e.to_string())?;
    let args = c.clang_args();
    // The layer's headers, in a folder of this run's own.
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    // Removed below, whatever the outcome; the layer's headers only.
    #[allow(clippy::disallowed_methods)]
    let tmp = std::env::temp_dir().join(format!("hip-nvcc-{}-{stamp}", std::process::id()));
    let include = tmp.join("include");
    let result = (|| {
        if !c.dry_run {
            amd::write_layer(&include)
                .map_err(|e| format!("writing the CUDA layer under {}: {e}", include.display()))?;
        }
        for input in &c.inputs {
            compile_one(c, &tc, &include, &targets, &args, input)?;
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn compile_one(
    c: &Compile,
    tc: &hip_build::Toolchain,
    include: &Path,
    targets: &[String],
    args: &[String],
    input: &Path,
) -> Result<(), String> {
    let out = c.output_for(input);
    let mut first_error: Option<String> = None;
    for &arch in amd::CLAIMED_ARCHS {
        let mut cmd = amd::layer_command(tc, include, targets, args, arch);
        cmd.arg("-c").arg(input).arg("-o").arg(&out);
        if c.verbose || c.dry_run {
            eprintln!("#$ {cmd:?}");
        }
        if c.dry_run {
            return Ok(());
        }
        let o = cmd
            .output()
            .map_err(|e| format!("could not run {}: {e}", tc.compiler.display()))?;
        if o.status.success() {
            use std::io::Write as _;
            let _ = std::io::stdout().write_all(&o.stdout);
            let _ = std::io::stderr().write_all(&o.stderr);
            if let Some(e) = &first_error {
                let cwd = std::env::current_dir().unwrap_or_default();
                eprintln!(
                    "nvcc (hip-nvcc): warning: {} compiled for AMD with __CUDA_ARCH__={arch}; at {} \
                     it does not: {}. Code only built for newer architectures is left out.",
                    input.display(),
                    amd::CLAIMED_ARCHS[0],
                    amd::reason(e, &cwd)
                );
            }
            return Ok(());
        }
        first_error.get_or_insert_with(|| String::from_utf8_lossy(&o.stderr).into_owned());
    }
    let e = first_error.unwrap_or_default();
    eprint!("{e}");
    let cwd = std::env::current_dir().unwrap_or_default();
    Err(format!(
        "{} compiles for AMD GPUs at no __CUDA_ARCH__ level ({}): {}",
        input.display(),
        amd::CLAIMED_ARCHS
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        amd::reason(&e, &cwd)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Vec<String> {
        v.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn a_mistral_rs_line_translates() {
        let line = "-std=c++17 -O3 -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ \
                    -U__CUDA_NO_HALF2_OPERATORS__ -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
                    --expt-relaxed-constexpr --expt-extended-lambda --use_fast_math --verbose \
                    --compiler-options -fPIC -c x.cu -o x.o";
        let Action::Compile(c) = parse(&s(line)).unwrap() else {
            panic!("a compile")
        };
        assert_eq!(c.inputs, [PathBuf::from("x.cu")]);
        assert_eq!(c.output, Some(PathBuf::from("x.o")));
        assert!(c.verbose && !c.dry_run);
        assert_eq!(
            c.clang_args(),
            s(
                "-std=c++17 -O3 -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ \
               -U__CUDA_NO_HALF2_OPERATORS__ -U__CUDA_NO_BFLOAT16_CONVERSIONS__ -ffast-math -fPIC"
            )
        );
    }

    #[test]
    fn other_spellings() {
        let line = "--std c++20 -I inc -Iinc2 --include-path=inc3 -D A=1 -DB --optimize 2 \
                    -arch=sm_80 -gencode arch=compute_90,code=sm_90 -Xptxas -v -rdc=true \
                    -Xcompiler=-Wall,-fPIC -x cu k.cuh";
        // Without -c nvcc would link: refused, saying so.
        let e = parse(&s(line)).unwrap_err();
        assert!(e.contains("pass -c"), "{e}");
        let Action::Compile(c) = parse(&s(&format!("{line} -c"))).unwrap() else {
            panic!("a compile")
        };
        assert_eq!(c.output_for(Path::new("k.cuh")), PathBuf::from("k.o"));
        assert_eq!(
            c.clang_args(),
            s("-std=c++20 -Iinc -Iinc2 -Iinc3 -DA=1 -DB -O2 -fgpu-rdc -Wall -fPIC")
        );
    }

    #[test]
    fn refusals_name_the_option() {
        for (line, want) in [
            ("--ptx x.cu", "--ptx: AMD GPUs have no PTX"),
            ("-ptx -c x.cu", "-ptx: AMD GPUs have no PTX"),
            (
                "--fatbin x.cu",
                "--fatbin: AMD GPUs have no NVIDIA GPU binaries",
            ),
            (
                "-cubin x.cu",
                "-cubin: AMD GPUs have no NVIDIA GPU binaries",
            ),
            ("--lib a.o", "--lib: this nvcc mode is not provided"),
            (
                "--frobnicate -c x.cu",
                "--frobnicate: unknown or unsupported nvcc option",
            ),
            ("-c=1 x.cu", "-c=1: -c takes no value"),
            ("-c x.cu -o", "-o: needs a value"),
            ("-c x.cpp", "x.cpp: hip-nvcc compiles CUDA sources only"),
            ("-x c++ -c x.cu", "-x c++: hip-nvcc compiles CUDA only"),
            ("-c a.cu b.cu -o a.o", "several input files"),
            ("-c", "no input files"),
            ("-rdc=maybe -c x.cu", "expected true or false"),
        ] {
            let e = parse(&s(line)).unwrap_err();
            assert!(e.contains(want), "{line}: {e}");
        }
        assert_eq!(parse(&s("-c x.cu --version")), Ok(Action::Version));
        assert_eq!(parse(&s("-V")), Ok(Action::Version));
        assert_eq!(parse(&s("-h")), Ok(Action::Help));
    }

    #[test]
    fn the_release_is_checked() {
        assert_eq!(cuda_version_from(None), Ok(None));
        assert_eq!(cuda_version_from(Some("")), Ok(None));
        assert_eq!(cuda_version_from(Some("12.8")), Ok(Some("12.8".into())));
        assert_eq!(cuda_version_from(Some(" 13.0 ")), Ok(Some("13.0".into())));
        for bad in [
            "12", "12.", ".8", "12.8.1", "v12.8", "10.2", "12.x", "+12.8", "123.0",
        ] {
            let e = cuda_version_from(Some(bad)).unwrap_err();
            assert!(e.contains(VERSION_VAR) && e.contains(bad), "{bad}: {e}");
        }
    }
}
