//! cudarc's safe nvrtc API over `hip::compile` (hiprtc).

use super::generated as raw;
use hip::code_object::Envelope;
use hip_sys::loader::Platform;
use std::borrow::Cow;
use std::ffi::CString;
use std::fmt;
use std::path::PathBuf;

/// A failed nvrtc call (cudarc's `NvrtcError`), defined with the thread's
/// reason beside the `result` layer.
pub use super::result::NvrtcError;
use super::result::{fail, ours};

/// Why [`compile_ptx_with_opts`] failed (cudarc's variants).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// Creating the program failed, or no hiprtc could be loaded
    /// (`NVRTC_ERROR_PROGRAM_CREATION_FAILURE`), or an argument held a NUL
    /// byte (`NVRTC_ERROR_INVALID_INPUT`).
    CreationError(NvrtcError),
    /// The compiler rejected the source: `log` is its full log.
    CompileError {
        /// The status of `hiprtcCompileProgram`.
        nvrtc: NvrtcError,
        /// The options passed to hiprtc (after translation, see
        /// [`CompileOptions::to_hiprtc_flags`]).
        options: Vec<String>,
        /// The compiler's log.
        log: CString,
    },
    /// Reading the log failed.
    GetLogError(NvrtcError),
    /// Reading the compiled code failed.
    GetPtxError(NvrtcError),
    /// Destroying the program failed.
    DestroyError(NvrtcError),
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CompileError::CompileError {
                nvrtc,
                options,
                log,
            } => write!(
                f,
                "compilation failed with {:?} (options {options:?}):\n{}",
                nvrtc.0,
                log.to_string_lossy()
            ),
            other => write!(f, "{other:?}"),
        }
    }
}

impl std::error::Error for CompileError {}

impl From<hip::Error> for CompileError {
    /// Every status keeps the `hip` crate's message as this thread's reason
    /// (see [`super::result::last_error_detail`]).
    fn from(e: hip::Error) -> CompileError {
        match e {
            hip::Error::Compile {
                program,
                options,
                status,
                log,
            } => CompileError::CompileError {
                // The reason says what failed; the log is beside it.
                nvrtc: fail(
                    status.into(),
                    &format!(
                        "hiprtcCompileProgram: compiling `{program}` failed with {status}: \
                         the compiler's log is the error's `log`"
                    ),
                ),
                options,
                log: CString::new(log.replace('\0', " ")).unwrap_or_default(),
            },
            hip::Error::Hiprtc {
                call: "hiprtcGetCode",
                ..
            } => CompileError::GetPtxError(ours(e)),
            hip::Error::Hiprtc { .. } | hip::Error::Invalid { .. } => {
                CompileError::CreationError(ours(e))
            }
            _ => CompileError::CreationError(fail(
                raw::nvrtcResult::NVRTC_ERROR_PROGRAM_CREATION_FAILURE,
                &e.to_string(),
            )),
        }
    }
}

/// cudarc's compile options, translated for hiprtc by
/// [`CompileOptions::to_hiprtc_flags`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CompileOptions {
    /// Flush denormals to zero (`-f[no-]gpu-flush-denormals-to-zero` on AMD,
    /// `--ftz` on NVIDIA).
    pub ftz: Option<bool>,
    /// IEEE square root (`-f[no-]hip-fp32-correctly-rounded-divide-sqrt` on
    /// AMD, which sets division and square root together: `false` in either
    /// field turns both off; `--prec-sqrt` on NVIDIA).
    pub prec_sqrt: Option<bool>,
    /// IEEE division (as `prec_sqrt` on AMD; `--prec-div` on NVIDIA).
    pub prec_div: Option<bool>,
    /// Contract multiply-adds (`-ffp-contract=fast|off` on AMD, `--fmad` on
    /// NVIDIA).
    pub fmad: Option<bool>,
    /// Further options, passed unchanged (e.g. `-DN=4`).
    pub options: Vec<String>,
    /// Fast math (`-ffast-math` on AMD, `--use_fast_math` on NVIDIA).
    pub use_fast_math: Option<bool>,
    /// Register limit (`--maxrregcount` on NVIDIA). AMD's compiler has no
    /// such option: it is left out there (a performance hint, never a
    /// change of results).
    pub maxrregcount: Option<usize>,
    /// Include folders (`-I<path>`, `--include-path=` on NVIDIA).
    pub include_paths: Vec<String>,
    /// Target: an AMD `gfx...` name, or an NVIDIA `sm_XY`/`compute_XY`. A
    /// name of the other platform is ignored (and the device's own
    /// architecture used), since it cannot describe this platform's device.
    pub arch: Option<&'static str>,
    /// The program's name in messages.
    pub name: Option<String>,
}

fn is_nvidia_arch(a: &str) -> bool {
    a.starts_with("sm_") || a.starts_with("compute_")
}

impl CompileOptions {
    /// The hiprtc flags these options stand for on `platform`, without
    /// the target architecture (see [`CompileOptions::arch`]).
    ///
    /// ```
    /// use cuda_compat::nvrtc::CompileOptions;
    /// use cuda_compat::Platform;
    /// let o = CompileOptions { ftz: Some(true), fmad: Some(false), ..Default::default() };
    /// assert_eq!(
    ///     o.to_hiprtc_flags(Platform::Amd),
    ///     ["-fgpu-flush-denormals-to-zero", "-ffp-contract=off"]
    /// );
    /// assert_eq!(o.to_hiprtc_flags(Platform::Nvidia), ["--ftz=true", "--fmad=false"]);
    /// ```
    pub fn to_hiprtc_flags(&self, platform: Platform) -> Vec<String> {
        let mut v = Vec::new();
        let amd = platform == Platform::Amd;
        if let Some(ftz) = self.ftz {
            v.push(match (amd, ftz) {
                (true, true) => "-fgpu-flush-denormals-to-zero".to_owned(),
                (true, false) => "-fno-gpu-flush-denormals-to-zero".to_owned(),
                (false, b) => format!("--ftz={b}"),
            });
        }
        if amd {
            // One clang flag covers both.
            match (self.prec_div, self.prec_sqrt) {
                (Some(false), _) | (_, Some(false)) => {
                    v.push("-fno-hip-fp32-correctly-rounded-divide-sqrt".to_owned())
                }
                (Some(true), _) | (_, Some(true)) => {
                    v.push("-fhip-fp32-correctly-rounded-divide-sqrt".to_owned())
                }
                (None, None) => {}
            }
        } else {
            if let Some(b) = self.prec_div {
                v.push(format!("--prec-div={b}"));
            }
            if let Some(b) = self.prec_sqrt {
                v.push(format!("--prec-sqrt={b}"));
            }
        }
        if let Some(b) = self.fmad {
            v.push(match (amd, b) {
                (true, true) => "-ffp-contract=fast".to_owned(),
                (true, false) => "-ffp-contract=off".to_owned(),
                (false, b) => format!("--fmad={b}"),
            });
        }
        if self.use_fast_math == Some(true) {
            v.push(
                if amd {
                    "-ffast-math"
                } else {
                    "--use_fast_math"
                }
                .to_owned(),
            );
        }
        if let (false, Some(n)) = (amd, self.maxrregcount) {
            v.push(format!("--maxrregcount={n}"));
        }
        for p in &self.include_paths {
            v.push(if amd {
                format!("-I{p}")
            } else {
                format!("--include-path={p}")
            });
        }
        if let (false, Some(a)) = (amd, self.arch) {
            if is_nvidia_arch(a) {
                v.push(format!("--gpu-architecture={a}"));
            }
        }
        v.extend(self.options.iter().cloned());
        v
    }
}

/// Compiled code or PTX to load with `CudaContext::load_module`.
///
/// What loads where:
/// - from [`compile_ptx`]: on AMD a code object for one gfx architecture
///   (the first device's when one is visible, else [`FALLBACK_AMD_ARCH`]),
///   recorded in [`Ptx::arch`]; loading it on a device of another
///   architecture recompiles the kept source for that device. On NVIDIA,
///   PTX (or a CUBIN) as with cudarc.
/// - PTX text ([`Ptx::from_file`], [`Ptx::from_src`]): loads only on the
///   NVIDIA platform (`HIP_PLATFORM=nvidia`); on AMD, loading it fails with
///   `CUDA_ERROR_INVALID_PTX` and a message saying so.
/// - An AMD code-object envelope in place of PTX text (what the hip-rs
///   `cudaforge` drop-in writes into the `.ptx` file on
///   AMD; [`hip::code_object::Envelope`] gives the format): loads only on
///   AMD, on a device one of its targets runs on.
/// - [`Ptx::from_binary`]: a code object (AMD) or CUBIN (NVIDIA), as is.
#[derive(Clone, Debug)]
pub struct Ptx(pub(crate) PtxKind);

#[derive(Clone, Debug)]
pub(crate) enum PtxKind {
    Src(String),
    File(PathBuf),
    Binary(Vec<u8>),
    Compiled(Compiled),
}

#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    pub(crate) code: Vec<u8>,
    pub(crate) platform: Platform,
    pub(crate) arch: Option<String>,
    pub(crate) source: String,
    pub(crate) options: CompileOptions,
}

impl Ptx {
    /// PTX text, or an AMD code-object envelope, in a file; read when
    /// checked or loaded.
    pub fn from_file<P: Into<PathBuf>>(path: P) -> Ptx {
        Ptx(PtxKind::File(path.into()))
    }

    /// PTX text, or the text of an AMD code-object envelope.
    pub fn from_src<S: Into<String>>(src: S) -> Ptx {
        Ptx(PtxKind::Src(src.into()))
    }

    /// A binary image: an AMD code object, or a CUBIN on NVIDIA.
    pub fn from_binary(data: Vec<u8>) -> Ptx {
        Ptx(PtxKind::Binary(data))
    }

    /// The text: PTX text as given (a file is read; an unreadable file
    /// gives an empty string), the HIP source for compiled code on AMD
    /// (whose output is binary), the PTX on NVIDIA, and an empty string for
    /// a binary image.
    pub fn to_src(&self) -> String {
        match &self.0 {
            PtxKind::Src(s) => s.clone(),
            PtxKind::File(p) => std::fs::read_to_string(p).unwrap_or_default(),
            PtxKind::Binary(_) => String::new(),
            PtxKind::Compiled(c) => match c.platform {
                Platform::Amd => c.source.clone(),
                Platform::Nvidia => {
                    let end = c.code.iter().position(|&b| b == 0).unwrap_or(c.code.len());
                    String::from_utf8_lossy(&c.code[..end]).into_owned()
                }
            },
        }
    }

    /// The compiled image's bytes, for compiled code and binaries.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match &self.0 {
            PtxKind::Compiled(c) => Some(&c.code),
            PtxKind::Binary(b) => Some(b),
            _ => None,
        }
    }

    /// The architecture the code was compiled for, where known (AMD's
    /// `gfx...` name).
    pub fn arch(&self) -> Option<&str> {
        match &self.0 {
            PtxKind::Compiled(c) => c.arch.as_deref(),
            _ => None,
        }
    }
}

/// The text of [`Ptx::from_src`] or [`Ptx::from_file`], once read and
/// checked for a platform.
pub(crate) enum Text {
    /// PTX, to load on NVIDIA: the bytes as given.
    Ptx(Vec<u8>),
    /// An AMD code-object envelope, parsed, to load on AMD.
    Envelope(Box<Envelope>),
}

impl Ptx {
    /// Whether this can be loaded on `platform`, answered without a device
    /// (a file is read; an envelope is parsed and checked). The reason for
    /// a refusal is in [`crate::driver::result::last_error_detail`] and the
    /// error's `Debug`:
    ///
    /// - PTX text on AMD: `CUDA_ERROR_INVALID_PTX`;
    /// - an AMD code-object envelope on NVIDIA, a malformed envelope, or
    ///   code compiled for the other platform: `CUDA_ERROR_INVALID_IMAGE`;
    /// - a file that cannot be read: `CUDA_ERROR_FILE_NOT_FOUND`.
    ///
    /// `CudaContext::load_module` checks this first.
    ///
    /// ```
    /// use cuda_compat::nvrtc::Ptx;
    /// use cuda_compat::Platform;
    /// let ptx = Ptx::from_src(".version 8.0\n.target sm_90\n");
    /// let e = ptx.loads_on(Platform::Amd).unwrap_err();
    /// assert!(format!("{e:?}").contains("HIP_PLATFORM=nvidia"));
    /// assert!(ptx.loads_on(Platform::Nvidia).is_ok());
    /// let e = Ptx::from_file("no-such.ptx").loads_on(Platform::Nvidia).unwrap_err();
    /// assert!(format!("{e:?}").contains("cannot read no-such.ptx"), "{e:?}");
    /// ```
    pub fn loads_on(&self, platform: Platform) -> Result<(), crate::driver::DriverError> {
        match (&self.0, platform) {
            (PtxKind::Src(_) | PtxKind::File(_), _) => self.text_for(platform).map(drop),
            (PtxKind::Compiled(c), p) if c.platform != p => Err(crate::driver::result::fail(
                crate::driver::CUresult::CUDA_ERROR_INVALID_IMAGE,
                &format!(
                    "this code was compiled for the {} platform, not {p}",
                    c.platform
                ),
            )),
            _ => Ok(()),
        }
    }

    /// Reads the text of `from_src`/`from_file` and checks it for
    /// `platform` (see [`Ptx::loads_on`]); `None` for compiled code and
    /// binary images.
    pub(crate) fn text_for(
        &self,
        platform: Platform,
    ) -> Result<Option<Text>, crate::driver::DriverError> {
        use crate::driver::result::fail;
        use crate::driver::CUresult;
        let (bytes, origin) = match &self.0 {
            PtxKind::Src(s) => (Cow::Borrowed(s.as_bytes()), None),
            PtxKind::File(p) => match std::fs::read(p) {
                Ok(b) => (Cow::Owned(b), Some(p)),
                Err(e) => {
                    return Err(fail(
                        CUresult::CUDA_ERROR_FILE_NOT_FOUND,
                        &format!("cannot read {}: {e}", p.display()),
                    ))
                }
            },
            PtxKind::Binary(_) | PtxKind::Compiled(_) => return Ok(None),
        };
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64)]);
        if !Envelope::is_envelope(&head) {
            return match platform {
                Platform::Nvidia => Ok(Some(Text::Ptx(bytes.into_owned()))),
                Platform::Amd => Err(fail(
                    CUresult::CUDA_ERROR_INVALID_PTX,
                    "PTX runs only on the NVIDIA platform (HIP_PLATFORM=nvidia); on AMD, \
                     compile the CUDA/HIP source with nvrtc::compile_ptx instead, or build \
                     the kernels with the hip-rs cudaforge drop-in, which \
                     writes an AMD code-object envelope in place of the PTX",
                )),
            };
        }
        // Not UTF-8: the replacement characters are then named, with their
        // line and column, by the parse.
        let parsed = Envelope::parse(&String::from_utf8_lossy(&bytes));
        let origin = origin.map_or(String::new(), |p| format!(" ({})", p.display()));
        match (parsed, platform) {
            (Ok(envelope), Platform::Amd) => Ok(Some(Text::Envelope(Box::new(envelope)))),
            (Err(e), Platform::Amd) => Err(fail(
                CUresult::CUDA_ERROR_INVALID_IMAGE,
                &format!("an AMD code-object envelope{origin} that cannot be loaded: {e}"),
            )),
            (parsed, Platform::Nvidia) => {
                let built_for = match &parsed {
                    Ok(envelope) => format!(
                        "AMD GPUs ({}{})",
                        envelope.targets().join(" "),
                        envelope
                            .source()
                            .map_or(String::new(), |s| format!(", from {s}"))
                    ),
                    Err(e) => format!("AMD GPUs (an envelope that does not parse: {e})"),
                };
                Err(fail(
                    CUresult::CUDA_ERROR_INVALID_IMAGE,
                    &format!(
                        "these kernels{origin} were built for {built_for}: an AMD code-object \
                         envelope, not PTX. On NVIDIA they must be built by nvcc: build \
                         with the original cudaforge or bindgen_cuda, not the hip-rs drop-in"
                    ),
                ))
            }
        }
    }
}

impl<S: Into<String>> From<S> for Ptx {
    fn from(value: S) -> Ptx {
        Ptx::from_src(value)
    }
}

/// Compiles CUDA/HIP source with default options (see
/// [`compile_ptx_with_opts`]).
pub fn compile_ptx<S: AsRef<str>>(src: S) -> Result<Ptx, CompileError> {
    compile_ptx_with_opts(src, CompileOptions::default())
}

/// Compiles source with hiprtc (`hiprtcCreateProgram`,
/// `hiprtcCompileProgram`, `hiprtcGetCode`): on AMD for `opts.arch` when it
/// is a `gfx` name, else the first device's architecture, else
/// [`FALLBACK_AMD_ARCH`] when no device is visible; on NVIDIA as nvrtc
/// does (the current device's `sm_XY` unless `opts.arch` names one). A syntax
/// error is [`CompileError::CompileError`] with the log.
///
/// ```no_run
/// use cuda_compat::nvrtc::{compile_ptx_with_opts, CompileOptions};
/// let ptx = compile_ptx_with_opts(
///     r#"extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }"#,
///     CompileOptions { ftz: Some(true), ..Default::default() },
/// )?;
/// # Ok::<(), cuda_compat::nvrtc::CompileError>(())
/// ```
pub fn compile_ptx_with_opts<S: AsRef<str>>(
    src: S,
    opts: CompileOptions,
) -> Result<Ptx, CompileError> {
    let platform = crate::probe::backend()
        .map_err(|e| {
            CompileError::CreationError(fail(
                raw::nvrtcResult::NVRTC_ERROR_PROGRAM_CREATION_FAILURE,
                &e.to_string(),
            ))
        })?
        .platform;
    let arch = match (platform, opts.arch) {
        (Platform::Amd, Some(a)) if !is_nvidia_arch(a) => Some(a.to_owned()),
        (Platform::Amd, _) => Some(first_device_arch()),
        (Platform::Nvidia, _) => None,
    };
    compile_for(src.as_ref(), opts, platform, arch)
}

/// The architecture [`compile_ptx`] targets on AMD when no device is
/// visible: hiprtc needs one, and code compiled for it still loads anywhere,
/// since `load_module` recompiles the kept source for a device of another
/// architecture.
pub const FALLBACK_AMD_ARCH: &str = "gfx90a";

/// The first device's offload architecture, else [`FALLBACK_AMD_ARCH`].
fn first_device_arch() -> String {
    hip::Device::get(0)
        .and_then(|d| d.offload_arch())
        .unwrap_or_else(|_| FALLBACK_AMD_ARCH.to_owned())
}

pub(crate) fn compile_for(
    source: &str,
    options: CompileOptions,
    platform: Platform,
    arch: Option<String>,
) -> Result<Ptx, CompileError> {
    let mut hip_opts = hip::CompileOptions {
        name: options.name.clone(),
        arch: arch.clone(),
        options: options.to_hiprtc_flags(platform),
        headers: Vec::new(),
    };
    let version = crate::probe::backend().ok().map(|rt| rt.version);
    let code = match platform {
        Platform::Nvidia => hip::compile(source, &hip_opts)?.code,
        Platform::Amd if layer_supported(version) => {
            amd_layer(&mut hip_opts, hip_include_dir());
            compile_through_layer(source, hip_opts)?
        }
        Platform::Amd => {
            hip::compile(source, &hip_opts)
                .map_err(|e| without_layer(e, version))?
                .code
        }
    };
    Ok(Ptx(PtxKind::Compiled(Compiled {
        code,
        platform,
        arch,
        source: source.to_owned(),
        options,
    })))
}

/// Whether run-time compiles go through the CUDA layer on this HIP
/// release: from ROCm 5.7 on (unknown: yes). ROCm 5.2's hiprtc (Debian 12)
/// reads an action's state after freeing it in such compiles (valgrind:
/// invalid reads under `amd_comgr_do_action`; a crash in comgr when the
/// memory is reused), so older releases get the source unchanged, as
/// before.
fn layer_supported(version: Option<hip_sys::loader::Version>) -> bool {
    match version {
        None => true,
        Some(v) => (v.major, v.minor) >= (5, 7),
    }
}

/// A failed compile on a release without the layer: the log says why CUDA
/// headers and warp functions are missing.
fn without_layer(e: hip::Error, version: Option<hip_sys::loader::Version>) -> CompileError {
    match e {
        hip::Error::Compile {
            program,
            options,
            status,
            log,
        } => {
            let release = version.map_or_else(String::new, |v| {
                format!(" (this is {}.{})", v.major, v.minor)
            });
            let head = format!(
                "note: hip-rs's CUDA layer (cuda_fp16.h, the *_sync warp functions, ...) is used \
                 with ROCm 5.7 and later{release}: this source went to hiprtc unchanged\n"
            );
            hip::Error::Compile {
                program,
                options,
                status,
                log: head + &log,
            }
            .into()
        }
        other => other.into(),
    }
}

/// Sets up a compile of CUDA source for AMD: the CUDA-over-HIP layer
/// (`hip-cuda-layer`) as in-memory headers, included ahead of the source,
/// so that CUDA's headers (`cuda_fp16.h`, `cuda_bf16.h`, ...), the `*_sync`
/// warp functions with 32-bit masks, `__dp4a` and the like resolve as the
/// build-time drop-in resolves them, with the layer's stand-ins for the C
/// library headers (`stdint.h`, `math.h`, ...); nvrtc's default C++17; and HIP's
/// include folder `hip_include`, where HIP's bf16 header lives (hiprtc has
/// none of its own).
fn amd_layer(opts: &mut hip::CompileOptions, hip_include: Option<&std::path::Path>) {
    opts.headers = hip_cuda_layer::HEADERS
        .iter()
        .chain(hip_cuda_layer::RTC_HEADERS)
        .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
        .collect();
    let mut layer = vec![
        "-include".to_owned(),
        hip_cuda_layer::FORCE_INCLUDE.to_owned(),
    ];
    if !opts
        .options
        .iter()
        .any(|o| o.starts_with("-std=") || o.starts_with("--std"))
    {
        layer.push("-std=c++17".to_owned());
    }
    if let Some(dir) = hip_include {
        layer.push(format!("-I{}", dir.display()));
    }
    opts.options.splice(0..0, layer);
}

/// Compiles with `__CUDA_ARCH__` claimed as each of the layer's levels in
/// turn (890 first, then lower: code that takes inline PTX only on newer
/// architectures compiles its portable path), as the build-time drop-in
/// does. A source that compiles at no level fails with the log of the
/// first attempt, headed by what the layer recognizes as the cause.
fn compile_through_layer(
    source: &str,
    mut opts: hip::CompileOptions,
) -> Result<Vec<u8>, CompileError> {
    let mut first: Option<hip::Error> = None;
    for &level in hip_cuda_layer::CLAIMED_ARCHS {
        opts.options
            .push(format!("-D{}={level}", hip_cuda_layer::ARCH_MACRO));
        match hip::compile(source, &opts) {
            Ok(out) => return Ok(out.code),
            Err(e @ hip::Error::Compile { .. }) => {
                first.get_or_insert(e);
            }
            Err(e) => return Err(e.into()),
        }
        opts.options.pop();
    }
    let Some(hip::Error::Compile {
        program,
        options,
        status,
        log,
    }) = first
    else {
        unreachable!("CLAIMED_ARCHS is not empty and only compile errors are kept")
    };
    let levels: Vec<String> = hip_cuda_layer::CLAIMED_ARCHS
        .iter()
        .map(u32::to_string)
        .collect();
    let head = format!(
        "error: {program} does not compile for AMD through hip-rs's CUDA layer: it {} \
         (tried __CUDA_ARCH__ {}; the log of the first attempt follows)\n",
        hip_cuda_layer::unsupported_reason(&log),
        levels.join(", ")
    );
    Err(hip::Error::Compile {
        program,
        options,
        status,
        log: head + &log,
    }
    .into())
}

/// HIP's include folder (the one holding `hip/hip_bf16.h`): under
/// `HIP_PATH`, `ROCM_PATH`, beside the loaded HIP runtime (a prefix up to
/// three folders above it: `<prefix>/lib/libamdhip64.so` and Debian's
/// `/usr/lib/<triplet>/libamdhip64.so` both find `<prefix>/include`), or
/// `/opt/rocm`; the first that has the header. Looked for once per
/// process (the loaded runtime does not change either).
fn hip_include_dir() -> Option<&'static std::path::Path> {
    static DIR: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    DIR.get_or_init(find_hip_include_dir).as_deref()
}

fn find_hip_include_dir() -> Option<PathBuf> {
    let mut prefixes: Vec<PathBuf> = ["HIP_PATH", "ROCM_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .collect();
    if let Ok(rt) = crate::probe::backend() {
        for lib in &rt.libraries {
            prefixes.extend(lib.path.ancestors().skip(2).take(3).map(PathBuf::from));
        }
    }
    prefixes.push(PathBuf::from("/opt/rocm"));
    prefixes
        .into_iter()
        .map(|p| p.join("include"))
        .find(|inc| inc.join("hip").join("hip_bf16.h").is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layered(options: &[&str], include: Option<&std::path::Path>) -> hip::CompileOptions {
        let mut o = hip::CompileOptions {
            options: options.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        amd_layer(&mut o, include);
        o
    }

    #[test]
    fn the_layer_goes_first_with_its_headers_and_cpp17() {
        let o = layered(&["-DN=4"], Some(std::path::Path::new("/opt/rocm/include")));
        assert_eq!(
            o.options,
            [
                "-include",
                hip_cuda_layer::FORCE_INCLUDE,
                "-std=c++17",
                "-I/opt/rocm/include",
                "-DN=4"
            ]
        );
        let names: Vec<&str> = o.headers.iter().map(|(n, _)| n.as_str()).collect();
        for want in [
            "hiprs_cuda.h",
            "cuda_fp16.h",
            "cuda_bf16.h",
            "stdint.h",
            "math.h",
        ] {
            assert!(names.contains(&want), "{want} in {names:?}");
        }
        assert_eq!(
            o.headers.len(),
            hip_cuda_layer::HEADERS.len() + hip_cuda_layer::RTC_HEADERS.len()
        );
    }

    #[test]
    fn the_layer_is_used_from_rocm_5_7_on() {
        let v = |major, minor| {
            Some(hip_sys::loader::Version {
                major,
                minor,
                patch: 0,
            })
        };
        assert!(!layer_supported(v(5, 2)));
        assert!(!layer_supported(v(5, 6)));
        assert!(layer_supported(v(5, 7)));
        assert!(layer_supported(v(6, 4)));
        assert!(layer_supported(v(7, 0)));
        assert!(layer_supported(None));
    }

    #[test]
    fn a_users_standard_and_no_hip_folder_are_kept() {
        let o = layered(&["-std=c++20"], None);
        assert_eq!(
            o.options,
            ["-include", hip_cuda_layer::FORCE_INCLUDE, "-std=c++20"]
        );
        let o = layered(&["--std=c++14"], None);
        assert!(
            !o.options.iter().any(|x| x == "-std=c++17"),
            "{:?}",
            o.options
        );
    }
}
