//! Finding nvcc.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A CUDA toolkit: nvcc and the folders beside it.
#[derive(Debug, Clone)]
pub struct CudaToolkit {
    /// The nvcc executable.
    pub nvcc_path: PathBuf,
    /// `<root>/include`.
    pub include_dir: PathBuf,
    /// `<root>/lib64` (`lib/x64` on Windows).
    pub lib_dir: PathBuf,
    /// `(major, minor)` from `nvcc --version`, when it could be read.
    pub version: Option<(u32, u32)>,
}

impl CudaToolkit {
    /// nvcc from, in order: `NVCC`, `CUDA_HOME`/`CUDA_PATH`/`CUDA_ROOT`
    /// (`bin/nvcc` below each), `PATH`, `/usr/local/cuda/bin/nvcc`.
    pub fn detect() -> Result<Self> {
        let exe = if cfg!(windows) { "nvcc.exe" } else { "nvcc" };
        let on_path = |name: &Path| -> Option<PathBuf> {
            std::env::split_paths(&std::env::var_os("PATH")?)
                .filter(|d| d.is_absolute())
                .map(|d| d.join(name))
                .find(|c| c.is_file())
        };
        // An explicit NVCC is honoured or refused, never silently replaced.
        if let Some(p) = std::env::var_os("NVCC") {
            let p = PathBuf::from(p);
            let found = if p.components().count() > 1 {
                Some(p.clone()).filter(|p| p.is_file())
            } else {
                on_path(&p)
            };
            return match found {
                Some(nvcc) => Self::from_nvcc_path(nvcc),
                None => Err(Error::NvccNotFound(format!(
                    "NVCC={} does not exist",
                    p.display()
                ))),
            };
        }
        let mut tried = Vec::new();
        let mut candidates: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"]
            .iter()
            .filter_map(std::env::var_os)
            .map(|root| PathBuf::from(root).join("bin").join(exe))
            .collect();
        candidates.extend(on_path(Path::new(exe)));
        candidates.push(PathBuf::from("/usr/local/cuda/bin").join(exe));
        for c in candidates {
            if c.is_file() {
                return Self::from_nvcc_path(c);
            }
            tried.push(c.display().to_string());
        }
        Err(Error::NvccNotFound(format!(
            "looked for {} and on PATH",
            tried.join(", ")
        )))
    }

    /// The toolkit whose nvcc is `nvcc_path`.
    pub fn from_nvcc_path(nvcc_path: PathBuf) -> Result<Self> {
        if !nvcc_path.is_file() {
            return Err(Error::NvccNotFound(nvcc_path.display().to_string()));
        }
        let root = nvcc_path
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| Error::CudaToolkitNotFound(nvcc_path.clone()))?
            .to_path_buf();
        let version = Command::new(&nvcc_path)
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| parse_version(&String::from_utf8_lossy(&o.stdout)));
        Ok(Self {
            include_dir: root.join("include"),
            lib_dir: if cfg!(windows) {
                root.join("lib").join("x64")
            } else {
                root.join("lib64")
            },
            nvcc_path,
            version,
        })
    }

    /// The toolkit under `root` (`root/bin/nvcc`).
    pub fn from_root(root: &Path) -> Result<Self> {
        let exe = if cfg!(windows) { "nvcc.exe" } else { "nvcc" };
        let nvcc = root.join("bin").join(exe);
        if !nvcc.is_file() {
            return Err(Error::CudaToolkitNotFound(root.to_path_buf()));
        }
        Self::from_nvcc_path(nvcc)
    }

    /// The real architectures this nvcc can build for (`nvcc
    /// --list-gpu-arch`), as numbers (`90` for `compute_90`).
    pub fn supported_architectures(&self) -> Vec<usize> {
        let Ok(out) = Command::new(&self.nvcc_path)
            .arg("--list-gpu-arch")
            .output()
        else {
            return Vec::new();
        };
        let mut v: Vec<usize> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.trim().strip_prefix("compute_"))
            .filter_map(|n| n.parse().ok())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// `(13, 0)` from nvcc's `Cuda compilation tools, release 13.0, V13.0.48`.
fn parse_version(text: &str) -> Option<(u32, u32)> {
    let rest = text.split("release ").nth(1)?;
    let num = rest.split(|c: char| c == ',' || c.is_whitespace()).next()?;
    let (major, minor) = num.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_nvccs_version_line() {
        let text = "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.0, V13.0.48\n";
        assert_eq!(super::parse_version(text), Some((13, 0)));
        assert_eq!(super::parse_version("no version"), None);
    }
}
