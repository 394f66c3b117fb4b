//! Finding nvcc.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the first line of `nvcc --version` holds when the `nvcc` is
/// hip-nvcc, hip-rs's front for CUDA code on AMD GPUs (`dropins/nvcc`), not
/// NVIDIA's compiler: [`CudaToolkit::detect`] passes over such an nvcc.
#[doc(hidden)]
pub const NVCC_FRONT_MARKER: &str = "hip-rs's front for CUDA code on AMD GPUs";

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
    ///
    /// hip-nvcc, hip-rs's `nvcc` front for AMD GPUs (its `--version` says
    /// so), is no CUDA toolkit: it is passed over, and the search goes on
    /// as if it did not exist (an `NVCC` naming it finds nothing).
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
        // Every nvcc on PATH, in order: one found past the front counts.
        if let Some(path) = std::env::var_os("PATH") {
            candidates.extend(
                std::env::split_paths(&path)
                    .filter(|d| d.is_absolute())
                    .map(|d| d.join(exe))
                    .filter(|c| c.is_file()),
            );
        }
        candidates.push(PathBuf::from("/usr/local/cuda/bin").join(exe));
        for c in candidates {
            if c.is_file() {
                match Self::from_nvcc_path(c.clone()) {
                    // An existing file: only the front is "not found".
                    Err(Error::NvccNotFound(why)) => tried.push(why),
                    found => return found,
                }
            } else {
                tried.push(c.display().to_string());
            }
        }
        Err(Error::NvccNotFound(format!(
            "looked for {} and on PATH",
            tried.join(", ")
        )))
    }

    /// The toolkit whose nvcc is `nvcc_path`; an error when that is
    /// hip-nvcc, the front ([`CudaToolkit::detect`]).
    pub fn from_nvcc_path(nvcc_path: PathBuf) -> Result<Self> {
        if !nvcc_path.is_file() {
            return Err(Error::NvccNotFound(nvcc_path.display().to_string()));
        }
        let out = Command::new(&nvcc_path).arg("--version").output().ok();
        let text = out
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        if is_front_version(&text) {
            return Err(Error::NvccNotFound(format!(
                "{} is hip-nvcc, hip-rs's front for AMD GPUs, not NVIDIA's nvcc",
                nvcc_path.display()
            )));
        }
        let root = nvcc_path
            .parent()
            .and_then(Path::parent)
            .ok_or_else(|| Error::CudaToolkitNotFound(nvcc_path.clone()))?
            .to_path_buf();
        let version = parse_version(&text);
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

/// Whether `text`, an nvcc's `--version` output, is hip-nvcc's (its first
/// line names [`NVCC_FRONT_MARKER`]).
fn is_front_version(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|l| l.contains(NVCC_FRONT_MARKER))
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
        assert!(!super::is_front_version(text));
    }

    #[test]
    fn the_front_is_no_toolkit() {
        let text = format!(
            "nvcc: {} (not NVIDIA's nvcc)\ncompiles with ...\nhip-nvcc 0.1.0\nhip-nvcc 0.1.0, release 13.0, stands in for CUDA 13.0\n",
            super::NVCC_FRONT_MARKER
        );
        assert!(super::is_front_version(&text));
        // A stand-in that answers `--version` as the front does.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            // Removed below; a few bytes.
            #[allow(clippy::disallowed_methods)]
            let dir = std::env::temp_dir().join(format!("cudaforge-front-{}", std::process::id()));
            std::fs::create_dir_all(dir.join("bin")).unwrap();
            let nvcc = dir.join("bin/nvcc");
            std::fs::write(dir.join("version.txt"), &text).unwrap();
            std::fs::write(
                &nvcc,
                "#!/bin/sh\ncat \"$(dirname \"$0\")/../version.txt\"\n",
            )
            .unwrap();
            std::fs::set_permissions(&nvcc, std::fs::Permissions::from_mode(0o755)).unwrap();
            let e = super::CudaToolkit::from_nvcc_path(nvcc.clone()).unwrap_err();
            assert!(
                matches!(&e, crate::Error::NvccNotFound(m) if m.contains("hip-nvcc")),
                "{e}"
            );
            assert!(super::CudaToolkit::from_root(&dir).is_err());
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
