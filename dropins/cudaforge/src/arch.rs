//! GPU architectures: which `sm_` the kernels are built for.

use crate::error::{Error, Result};
use std::fmt;
use std::process::Command;

/// A compute capability with its optional architecture suffix
/// (`90a`, `100a`, `121f`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GpuArch {
    /// The capability as one number: 80 for 8.0, 90 for 9.0.
    pub base: usize,
    /// `a` (architecture-specific features) or `f` (family features).
    pub suffix: Option<String>,
}

impl GpuArch {
    /// `base` with no suffix.
    pub fn new(base: usize) -> Self {
        Self { base, suffix: None }
    }

    /// `base` with `suffix`.
    pub fn with_suffix(base: usize, suffix: &str) -> Self {
        Self {
            base,
            suffix: Some(suffix.to_owned()),
        }
    }

    /// Parses `90`, `9.0`, `90a`, `sm_90a`, `121f`. Without an explicit
    /// suffix, the suffix of [`GpuArch::auto_suffix`] is applied.
    pub fn parse(s: &str) -> Result<Self> {
        let lower = s.trim().to_ascii_lowercase();
        let text = lower.strip_prefix("sm_").unwrap_or(&lower);
        let (digits, suffix) = match text.chars().last() {
            Some(c @ ('a' | 'f')) => (&text[..text.len() - 1], Some(c)),
            _ => (text, None),
        };
        let bad = || Error::ComputeCapDetectionFailed(format!("invalid compute capability `{s}`"));
        let base = if let Some((major, minor)) = digits.split_once('.') {
            let major: usize = major.parse().map_err(|_| bad())?;
            let minor: usize = minor.parse().map_err(|_| bad())?;
            major * 10 + minor
        } else {
            let n: usize = digits.parse().map_err(|_| bad())?;
            if n < 20 {
                n * 10
            } else {
                n
            }
        };
        Ok(match suffix {
            Some(c) => Self::with_suffix(base, &c.to_string()),
            None => Self::auto_suffix(base),
        })
    }

    /// The suffix nvcc needs for the architecture's full instruction set:
    /// `a` for 9.0 to 12.0, `f` above 12.0, none below 9.0.
    pub fn auto_suffix(base: usize) -> Self {
        match base {
            b if b > 120 => Self::with_suffix(b, "f"),
            b if b >= 90 => Self::with_suffix(b, "a"),
            b => Self::new(b),
        }
    }

    /// The real architecture: `sm_90a`.
    pub fn to_nvcc_arch(&self) -> String {
        format!("sm_{self}")
    }

    /// nvcc's `-gencode=arch=compute_90a,code=sm_90a`.
    pub fn to_gencode_arg(&self) -> String {
        format!("-gencode=arch=compute_{self},code=sm_{self}")
    }

    /// The capability without suffix.
    pub fn base(&self) -> usize {
        self.base
    }
}

impl fmt::Display for GpuArch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.base, self.suffix.as_deref().unwrap_or(""))
    }
}

impl From<usize> for GpuArch {
    fn from(base: usize) -> Self {
        Self::auto_suffix(base)
    }
}

/// The architecture for each source file: a default and per-file
/// overrides (`sm90_*.cu` -> 90a).
#[derive(Debug, Clone, Default)]
pub struct ComputeCapability {
    default: Option<GpuArch>,
    overrides: Vec<(String, GpuArch)>,
}

impl ComputeCapability {
    /// No default (detected when needed) and no overrides.
    pub fn new() -> Self {
        Self::default()
    }

    /// The default capability, suffixed as [`GpuArch::auto_suffix`] does.
    pub fn with_default(mut self, cap: usize) -> Self {
        self.default = Some(GpuArch::auto_suffix(cap));
        self
    }

    /// The default architecture as text (`90a`); ignored when unparsable,
    /// like the builder's other setters.
    pub fn with_default_arch(mut self, arch: &str) -> Self {
        if let Ok(a) = GpuArch::parse(arch) {
            self.default = Some(a);
        }
        self
    }

    /// Files whose name matches `pattern` (one `*` wildcard) use `cap`.
    pub fn with_override(mut self, pattern: &str, cap: usize) -> Self {
        self.overrides
            .push((pattern.to_owned(), GpuArch::auto_suffix(cap)));
        self
    }

    /// As [`ComputeCapability::with_override`], the architecture as text.
    pub fn with_override_arch(mut self, pattern: &str, arch: &str) -> Self {
        if let Ok(a) = GpuArch::parse(arch) {
            self.overrides.push((pattern.to_owned(), a));
        }
        self
    }

    /// The architecture for a file name: the first matching override, else
    /// the default, else [`detect_compute_cap`].
    pub fn get_for_file(&self, filename: &str) -> Result<GpuArch> {
        self.overrides
            .iter()
            .find(|(p, _)| crate::sources::name_matches(filename, p))
            .map(|(_, a)| Ok(a.clone()))
            .unwrap_or_else(|| self.get_default())
    }

    /// The default, else [`detect_compute_cap`].
    pub fn get_default(&self) -> Result<GpuArch> {
        match &self.default {
            Some(a) => Ok(a.clone()),
            None => detect_compute_cap(),
        }
    }

    /// Whether any per-file override is set.
    pub fn has_overrides(&self) -> bool {
        !self.overrides.is_empty()
    }

    /// The explicit default, without detection.
    pub(crate) fn explicit_default(&self) -> Option<&GpuArch> {
        self.default.as_ref()
    }
}

/// `CUDA_COMPUTE_CAP` (`90`, `9.0`, `90a`), else the first GPU's capability
/// as `nvidia-smi` reports it.
pub fn detect_compute_cap() -> Result<GpuArch> {
    if let Ok(v) = std::env::var("CUDA_COMPUTE_CAP") {
        return GpuArch::parse(&v);
    }
    let out = Command::new("nvidia-smi")
        .args(["--query-gpu=compute_cap", "--format=csv,noheader"])
        .output()
        .map_err(|e| {
            Error::ComputeCapDetectionFailed(format!(
                "CUDA_COMPUTE_CAP is not set and nvidia-smi could not run ({e}); set CUDA_COMPUTE_CAP (e.g. 90)"
            ))
        })?;
    let text = String::from_utf8_lossy(&out.stdout);
    match text.lines().next() {
        Some(line) if out.status.success() => GpuArch::parse(line),
        _ => Err(Error::ComputeCapDetectionFailed(format!(
            "nvidia-smi printed no compute capability ({}); set CUDA_COMPUTE_CAP (e.g. 90)",
            String::from_utf8_lossy(&out.stderr).trim()
        ))),
    }
}

/// `sm_90a` for 90.
pub fn get_gpu_arch_string(compute_cap: usize) -> String {
    GpuArch::auto_suffix(compute_cap).to_nvcc_arch()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_spelling() {
        assert_eq!(GpuArch::parse("80").unwrap(), GpuArch::new(80));
        assert_eq!(GpuArch::parse("8.6").unwrap(), GpuArch::new(86));
        assert_eq!(GpuArch::parse("8").unwrap(), GpuArch::new(80));
        assert_eq!(
            GpuArch::parse("9.0").unwrap(),
            GpuArch::with_suffix(90, "a")
        );
        assert_eq!(
            GpuArch::parse("sm_90a").unwrap(),
            GpuArch::with_suffix(90, "a")
        );
        assert_eq!(
            GpuArch::parse("121").unwrap(),
            GpuArch::with_suffix(121, "f")
        );
        assert!(GpuArch::parse("sm_x").is_err());
        assert!(GpuArch::parse("").is_err());
    }

    #[test]
    fn nvcc_spellings() {
        let a = GpuArch::auto_suffix(90);
        assert_eq!(a.to_nvcc_arch(), "sm_90a");
        assert_eq!(a.to_gencode_arg(), "-gencode=arch=compute_90a,code=sm_90a");
        assert_eq!(get_gpu_arch_string(75), "sm_75");
    }

    #[test]
    fn overrides_win_over_the_default() {
        let c = ComputeCapability::new()
            .with_default(80)
            .with_override("sm90_*.cu", 90);
        assert_eq!(c.get_for_file("sm90_gemm.cu").unwrap().base(), 90);
        assert_eq!(c.get_for_file("gemm.cu").unwrap().base(), 80);
    }
}
