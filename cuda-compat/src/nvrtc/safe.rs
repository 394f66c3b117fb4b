//! cudarc's safe nvrtc API over `hip::compile` (hiprtc).

use super::generated as raw;
use hip_sys::loader::Platform;
use std::ffi::CString;
use std::fmt;
use std::path::PathBuf;

/// A failed nvrtc call: the status (cudarc's `NvrtcError`), HIP's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NvrtcError(pub raw::nvrtcResult);

impl fmt::Display for NvrtcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for NvrtcError {}

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
    fn from(e: hip::Error) -> CompileError {
        match e {
            hip::Error::Compile {
                options,
                status,
                log,
                ..
            } => CompileError::CompileError {
                nvrtc: NvrtcError(status.into()),
                options,
                log: CString::new(log.replace('\0', " ")).unwrap_or_default(),
            },
            hip::Error::Hiprtc {
                status,
                call: "hiprtcGetCode",
                ..
            } => CompileError::GetPtxError(NvrtcError(status.into())),
            hip::Error::Hiprtc { status, .. } => {
                CompileError::CreationError(NvrtcError(status.into()))
            }
            hip::Error::Invalid { .. } => {
                CompileError::CreationError(NvrtcError(raw::nvrtcResult::NVRTC_ERROR_INVALID_INPUT))
            }
            _ => CompileError::CreationError(NvrtcError(
                raw::nvrtcResult::NVRTC_ERROR_PROGRAM_CREATION_FAILURE,
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
    /// PTX text in a file, read when loaded.
    pub fn from_file<P: Into<PathBuf>>(path: P) -> Ptx {
        Ptx(PtxKind::File(path.into()))
    }

    /// PTX text.
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

impl Ptx {
    /// Whether this can be loaded on `platform`, answered without a device:
    /// PTX text on AMD is `CUDA_ERROR_INVALID_PTX`, with the reason in
    /// [`crate::driver::result::last_error_detail`] and the error's `Debug`.
    /// `CudaContext::load_module` checks this first.
    ///
    /// ```
    /// use cuda_compat::nvrtc::Ptx;
    /// use cuda_compat::Platform;
    /// let e = Ptx::from_file("sin.ptx").loads_on(Platform::Amd).unwrap_err();
    /// assert!(format!("{e:?}").contains("HIP_PLATFORM=nvidia"));
    /// assert!(Ptx::from_file("sin.ptx").loads_on(Platform::Nvidia).is_ok());
    /// ```
    pub fn loads_on(&self, platform: Platform) -> Result<(), crate::driver::DriverError> {
        match (&self.0, platform) {
            (PtxKind::Src(_) | PtxKind::File(_), Platform::Amd) => {
                Err(crate::driver::result::fail(
                    crate::driver::CUresult::CUDA_ERROR_INVALID_PTX,
                    "PTX runs only on the NVIDIA platform (HIP_PLATFORM=nvidia); on AMD, \
                     compile the CUDA/HIP source with nvrtc::compile_ptx instead",
                ))
            }
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
    let platform = crate::backend()
        .map_err(|_| {
            CompileError::CreationError(NvrtcError(
                raw::nvrtcResult::NVRTC_ERROR_PROGRAM_CREATION_FAILURE,
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
    let hip_opts = hip::CompileOptions {
        name: options.name.clone(),
        arch: arch.clone(),
        options: options.to_hiprtc_flags(platform),
    };
    let out = hip::compile(source, &hip_opts)?;
    Ok(Ptx(PtxKind::Compiled(Compiled {
        code: out.code,
        platform,
        arch,
        source: source.to_owned(),
        options,
    })))
}
