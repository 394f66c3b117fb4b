//! Finding ROCm's `hipcc`.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Variable naming the compiler to use, ahead of every search.
pub const HIPCC_VAR: &str = "HIPCC";

/// The variables that decide which toolchain is found; a build script
/// should rerun when one changes.
pub const TOOLCHAIN_VARS: &[&str] = &[HIPCC_VAR, "ROCM_PATH", "HIP_PATH"];

/// A HIP compiler found on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// The `hipcc` executable.
    pub hipcc: PathBuf,
    /// The ROCm installation it belongs to (`<root>/bin/hipcc`), when known.
    pub rocm_path: Option<PathBuf>,
    /// How it was found, e.g. `"ROCM_PATH"`, `"hipcc on PATH"`.
    pub found_by: String,
}

/// One place looked at while searching, and why it did not do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Looked {
    /// The path or command tried.
    pub place: String,
    /// Why it was not used.
    pub reason: String,
}

/// No HIP compiler found: every place looked at, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolchainNotFound {
    /// The places searched.
    pub looked: Vec<Looked>,
}

impl fmt::Display for ToolchainNotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "no HIP compiler (hipcc) found; looked at:")?;
        for l in &self.looked {
            writeln!(f, "  {}: {}", l.place, l.reason)?;
        }
        write!(
            f,
            "Install ROCm's hipcc (Debian/Ubuntu: apt install hipcc rocm-device-libs libamdhip64-dev), \
             set ROCM_PATH to the ROCm folder, or set {HIPCC_VAR} to the compiler."
        )
    }
}

impl std::error::Error for ToolchainNotFound {}

fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

impl Toolchain {
    /// Searches with the process environment: `HIPCC`; `$ROCM_PATH/bin`,
    /// `$HIP_PATH/bin`, `/opt/rocm/bin`; the root `hipconfig --rocmpath`
    /// gives; then `hipcc` on `PATH` (Debian puts it in `/usr/bin`).
    pub fn find() -> Result<Toolchain, ToolchainNotFound> {
        Toolchain::find_with(&|k| std::env::var_os(k), Path::new("/opt/rocm"))
    }

    /// [`Toolchain::find`] with the environment given as a function and the
    /// default ROCm folder given, for tests and unusual layouts.
    pub fn find_with(
        env: &dyn Fn(&str) -> Option<OsString>,
        default_rocm: &Path,
    ) -> Result<Toolchain, ToolchainNotFound> {
        let var = |k: &str| env(k).filter(|v| !v.is_empty());
        let mut looked = Vec::new();
        if let Some(p) = var(HIPCC_VAR) {
            let p = PathBuf::from(p);
            if p.is_file() {
                return Ok(Toolchain {
                    rocm_path: root_of(&p),
                    hipcc: p,
                    found_by: HIPCC_VAR.into(),
                });
            }
            looked.push(Looked {
                place: format!("{HIPCC_VAR}={}", p.display()),
                reason: "no such file".into(),
            });
        }
        let mut roots: Vec<(PathBuf, String)> = Vec::new();
        for name in ["ROCM_PATH", "HIP_PATH"] {
            if let Some(p) = var(name) {
                roots.push((PathBuf::from(p), name.to_owned()));
            }
        }
        roots.push((
            default_rocm.to_path_buf(),
            format!("default {}", default_rocm.display()),
        ));
        for (root, source) in roots {
            let hipcc = root.join("bin").join(exe("hipcc"));
            if hipcc.is_file() {
                return Ok(Toolchain {
                    hipcc,
                    rocm_path: Some(root),
                    found_by: source,
                });
            }
            looked.push(Looked {
                place: format!("{} ({source})", hipcc.display()),
                reason: "no such file".into(),
            });
        }
        let path_dirs: Vec<PathBuf> = var("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        match on_path(&path_dirs, "hipconfig") {
            Some(hipconfig) => match rocm_path_from_hipconfig(&hipconfig) {
                Ok(root) => {
                    let hipcc = root.join("bin").join(exe("hipcc"));
                    if hipcc.is_file() {
                        return Ok(Toolchain {
                            hipcc,
                            rocm_path: Some(root),
                            found_by: format!("{} --rocmpath", hipconfig.display()),
                        });
                    }
                    looked.push(Looked {
                        place: format!("{} (hipconfig --rocmpath)", hipcc.display()),
                        reason: "no such file".into(),
                    });
                }
                Err(reason) => looked.push(Looked {
                    place: format!("{} --rocmpath", hipconfig.display()),
                    reason,
                }),
            },
            None => looked.push(Looked {
                place: "hipconfig on PATH".into(),
                reason: "not found".into(),
            }),
        }
        match on_path(&path_dirs, "hipcc") {
            Some(hipcc) => Ok(Toolchain {
                rocm_path: root_of(&hipcc),
                hipcc,
                found_by: "hipcc on PATH".into(),
            }),
            None => {
                looked.push(Looked {
                    place: "hipcc on PATH".into(),
                    reason: if path_dirs.is_empty() {
                        "PATH is empty".into()
                    } else {
                        format!("not in any of {} PATH folders", path_dirs.len())
                    },
                });
                Err(ToolchainNotFound { looked })
            }
        }
    }

    /// The first line of `hipcc --version` naming the HIP version, e.g.
    /// `HIP version: 5.2.21153-0`.
    pub fn version(&self) -> Option<String> {
        let out = Command::new(&self.hipcc).arg("--version").output().ok()?;
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find(|l| l.starts_with("HIP version"))
            .map(str::to_owned)
    }
}

fn on_path(dirs: &[PathBuf], name: &str) -> Option<PathBuf> {
    dirs.iter().map(|d| d.join(exe(name))).find(|p| p.is_file())
}

/// `<root>` of `<root>/bin/hipcc`.
fn root_of(hipcc: &Path) -> Option<PathBuf> {
    let bin = hipcc.parent()?;
    (bin.file_name()? == "bin").then(|| bin.parent().map(Path::to_path_buf))?
}

fn rocm_path_from_hipconfig(hipconfig: &Path) -> Result<PathBuf, String> {
    let out = Command::new(hipconfig)
        .arg("--rocmpath")
        .output()
        .map_err(|e| format!("could not run: {e}"))?;
    // hipconfig prints the path without a newline, possibly after warnings
    // on stderr; the last non-empty stdout line is the answer.
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().map(str::trim).rfind(|l| !l.is_empty());
    match line {
        Some(l) if out.status.success() => Ok(PathBuf::from(l)),
        _ => Err(format!("failed ({}) without a path", out.status)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |k| map.get(k).cloned()
    }

    fn temp_dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hip-build-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn nothing_found_lists_every_place() {
        let empty = temp_dir("empty");
        let err = Toolchain::find_with(
            &env_of(&[
                ("ROCM_PATH", "/nonexistent/rocm"),
                ("HIPCC", "/nonexistent/hipcc"),
                ("PATH", empty.to_str().unwrap()),
            ]),
            &empty.join("opt-rocm"),
        )
        .unwrap_err();
        let text = err.to_string();
        for expected in [
            "HIPCC=/nonexistent/hipcc",
            "/nonexistent/rocm/bin/hipcc (ROCM_PATH)",
            "opt-rocm/bin/hipcc",
            "hipconfig on PATH: not found",
            "hipcc on PATH: not in any of 1 PATH folders",
            "apt install hipcc",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
        assert_eq!(err.looked.len(), 5);
    }

    #[test]
    fn rocm_path_wins_over_path() {
        let root = temp_dir("root");
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::write(root.join("bin").join(exe("hipcc")), "").unwrap();
        let other = temp_dir("other");
        std::fs::write(other.join(exe("hipcc")), "").unwrap();
        let tc = Toolchain::find_with(
            &env_of(&[
                ("ROCM_PATH", root.to_str().unwrap()),
                ("PATH", other.to_str().unwrap()),
            ]),
            Path::new("/nonexistent"),
        )
        .unwrap();
        assert_eq!(tc.hipcc, root.join("bin").join(exe("hipcc")));
        assert_eq!(tc.rocm_path.as_deref(), Some(root.as_path()));
        assert_eq!(tc.found_by, "ROCM_PATH");
    }

    #[test]
    fn hipcc_on_path_is_the_last_resort() {
        let dir = temp_dir("onpath").join("bin");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(exe("hipcc")), "").unwrap();
        let tc = Toolchain::find_with(
            &env_of(&[("PATH", dir.to_str().unwrap())]),
            Path::new("/nonexistent"),
        )
        .unwrap();
        assert_eq!(tc.found_by, "hipcc on PATH");
        assert_eq!(tc.rocm_path.as_deref(), dir.parent());
    }
}
