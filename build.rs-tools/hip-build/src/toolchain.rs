//! Finding a HIP compiler: ROCm's `hipcc`, or ROCm's clang used directly.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Variable naming the compiler to use, ahead of every search.
pub const HIPCC_VAR: &str = "HIPCC";

/// Variable naming the folder of a HIP-capable `clang++` (as hipcc reads
/// it), tried when no hipcc is found.
pub const HIP_CLANG_PATH_VAR: &str = "HIP_CLANG_PATH";

/// The variables that decide which toolchain is found; a build script
/// should rerun when one changes.
pub const TOOLCHAIN_VARS: &[&str] = &[HIPCC_VAR, "ROCM_PATH", "HIP_PATH", HIP_CLANG_PATH_VAR];

/// Which compiler driver a [`Toolchain`] runs.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compiler {
    /// ROCm's `hipcc`, which finds headers and device libraries itself.
    Hipcc,
    /// A HIP-capable `clang++`, given ROCm's folder and its device
    /// libraries explicitly (`--rocm-path`, `--hip-device-lib-path`).
    Clang {
        /// The folder of ROCm's device library bitcode (`ockl.bc`, ...).
        device_lib_path: PathBuf,
    },
}

/// A HIP compiler found on this machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// The executable: `hipcc` or `clang++`.
    pub compiler: PathBuf,
    /// Which driver it is.
    pub kind: Compiler,
    /// The ROCm installation it belongs to (`<root>/bin/hipcc`), when known;
    /// always known for clang.
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
        writeln!(
            f,
            "no HIP compiler (hipcc, or ROCm's clang) found; looked at:"
        )?;
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
    /// Searches with the process environment: `HIPCC`; hipcc in
    /// `$ROCM_PATH/bin`, `$HIP_PATH/bin`, `/opt/rocm/bin`; the `clang++` of
    /// `HIP_CLANG_PATH`, `$ROCM_PATH/llvm/bin`, `$HIP_PATH/llvm/bin`; hipcc
    /// in the root `hipconfig --rocmpath` gives; `hipcc` on `PATH` (Debian
    /// puts it in `/usr/bin`); last, `/opt/rocm/llvm/bin/clang++`.
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
                    compiler: p,
                    kind: Compiler::Hipcc,
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
        for (root, source) in &roots {
            let hipcc = root.join("bin").join(exe("hipcc"));
            if hipcc.is_file() {
                return Ok(Toolchain {
                    compiler: hipcc,
                    kind: Compiler::Hipcc,
                    rocm_path: Some(root.clone()),
                    found_by: source.clone(),
                });
            }
            looked.push(Looked {
                place: format!("{} ({source})", hipcc.display()),
                reason: "no such file".into(),
            });
        }
        // A clang named by HIP_CLANG_PATH, or in a root named by a variable,
        // outranks the hipcc that PATH or hipconfig would give: the
        // variables say which ROCm is wanted.
        let mut explicit: Vec<(PathBuf, PathBuf, String)> = Vec::new();
        if let Some(dir) = var(HIP_CLANG_PATH_VAR) {
            explicit.push((
                PathBuf::from(dir).join(exe("clang++")),
                roots[0].0.clone(),
                HIP_CLANG_PATH_VAR.into(),
            ));
        }
        let named_roots = roots.len() - 1;
        for (root, source) in &roots[..named_roots] {
            explicit.push((
                root.join("llvm").join("bin").join(exe("clang++")),
                root.clone(),
                source.clone(),
            ));
        }
        if let Some(tc) = try_clangs(explicit, &mut looked) {
            return Ok(tc);
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
                            compiler: hipcc,
                            kind: Compiler::Hipcc,
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
        if let Some(hipcc) = on_path(&path_dirs, "hipcc") {
            return Ok(Toolchain {
                rocm_path: root_of(&hipcc),
                compiler: hipcc,
                kind: Compiler::Hipcc,
                found_by: "hipcc on PATH".into(),
            });
        }
        looked.push(Looked {
            place: "hipcc on PATH".into(),
            reason: if path_dirs.is_empty() {
                "PATH is empty".into()
            } else {
                format!("not in any of {} PATH folders", path_dirs.len())
            },
        });

        // No hipcc: the default root's clang.
        let (root, source) = &roots[named_roots];
        let default = vec![(
            root.join("llvm").join("bin").join(exe("clang++")),
            root.clone(),
            source.clone(),
        )];
        if let Some(tc) = try_clangs(default, &mut looked) {
            return Ok(tc);
        }
        Err(ToolchainNotFound { looked })
    }

    /// A HIP-capable `clang++` used directly, with the ROCm installation at
    /// `rocm_path` (HIP headers in `include/hip`, device libraries found in
    /// its usual places, Debian's multiarch folder included).
    pub fn clang(clang: PathBuf, rocm_path: PathBuf) -> Result<Toolchain, ToolchainNotFound> {
        let mut looked = Vec::new();
        let header = rocm_path.join("include/hip/hip_runtime.h");
        if !header.is_file() {
            looked.push(Looked {
                place: format!("{} (for {})", header.display(), clang.display()),
                reason: "no HIP headers".into(),
            });
            return Err(ToolchainNotFound { looked });
        }
        let candidates = device_lib_candidates(&rocm_path);
        match candidates.iter().find(|d| d.join("ockl.bc").is_file()) {
            Some(dir) => Ok(Toolchain {
                compiler: clang,
                kind: Compiler::Clang {
                    device_lib_path: dir.clone(),
                },
                rocm_path: Some(rocm_path),
                found_by: "given".into(),
            }),
            None => {
                looked.push(Looked {
                    place: format!(
                        "ROCm device libraries for {} in {}",
                        clang.display(),
                        candidates
                            .iter()
                            .map(|d| d.display().to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    reason: "no ockl.bc (install rocm-device-libs)".into(),
                });
                Err(ToolchainNotFound { looked })
            }
        }
    }

    /// The compiler, set up to compile HIP source: for clang `-x hip`
    /// with the ROCm root and the device libraries named, for hipcc
    /// `ROCM_PATH` (which it reads to find them). The caller adds targets,
    /// flags, the input and the output.
    pub fn hip_command(&self) -> Command {
        let mut cmd = Command::new(&self.compiler);
        match &self.kind {
            Compiler::Hipcc => {
                if let Some(root) = &self.rocm_path {
                    cmd.env("ROCM_PATH", root);
                }
            }
            Compiler::Clang { device_lib_path } => {
                cmd.args(["-x", "hip"]);
                if let Some(root) = &self.rocm_path {
                    cmd.arg(format!("--rocm-path={}", root.display()));
                }
                cmd.arg(format!(
                    "--hip-device-lib-path={}",
                    device_lib_path.display()
                ));
            }
        }
        cmd
    }

    /// The arguments that compile `source` into a plain code object for
    /// `target` at `output`.
    pub(crate) fn code_object_command(
        &self,
        target: &str,
        source: &Path,
        output: &Path,
    ) -> Command {
        let mut cmd = self.hip_command();
        match &self.kind {
            Compiler::Hipcc => cmd.arg("--genco"),
            Compiler::Clang { .. } => cmd.args(["--cuda-device-only", "-c"]),
        };
        cmd.arg(format!("--offload-arch={target}"))
            .arg("--no-gpu-bundle-output")
            .arg("-O3")
            .arg(source)
            .arg("-o")
            .arg(output);
        cmd
    }

    /// The compiler's version line: hipcc's `HIP version: 5.2.21153-0`,
    /// clang's first line.
    pub fn version(&self) -> Option<String> {
        let out = Command::new(&self.compiler)
            .arg("--version")
            .output()
            .ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        match self.kind {
            Compiler::Hipcc => lines.find(|l| l.starts_with("HIP version")),
            Compiler::Clang { .. } => lines.next(),
        }
        .map(str::to_owned)
    }
}

/// The first of `clangs` (compiler, root, how found) that exists and has
/// the root's headers and device libraries; each other one is `looked`.
fn try_clangs(
    clangs: Vec<(PathBuf, PathBuf, String)>,
    looked: &mut Vec<Looked>,
) -> Option<Toolchain> {
    for (clang, root, source) in clangs {
        if !clang.is_file() {
            looked.push(Looked {
                place: format!("{} ({source})", clang.display()),
                reason: "no such file".into(),
            });
            continue;
        }
        match Toolchain::clang(clang.clone(), root) {
            Ok(mut tc) => {
                tc.found_by = format!("clang of {source}");
                return Some(tc);
            }
            Err(mut e) => looked.append(&mut e.looked),
        }
    }
    None
}

/// Where ROCm releases and distributions put the device library bitcode.
fn device_lib_candidates(root: &Path) -> Vec<PathBuf> {
    let mut out = vec![
        root.join("amdgcn/bitcode"),
        root.join("lib/amdgcn/bitcode"),
        root.join(format!(
            "lib/{}-linux-gnu/amdgcn/bitcode",
            std::env::consts::ARCH
        )),
    ];
    // ROCm 6.3+: inside its clang's resource folder.
    if let Ok(entries) = std::fs::read_dir(root.join("llvm/lib/clang")) {
        for e in entries.filter_map(Result::ok) {
            out.push(e.path().join("lib/amdgcn/bitcode"));
        }
    }
    out
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
        #[allow(clippy::disallowed_methods)] // a unit test's few files
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
            "/nonexistent/rocm/llvm/bin/clang++ (ROCM_PATH): no such file",
            "apt install hipcc",
        ] {
            assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
        }
        assert_eq!(err.looked.len(), 7, "{text}");
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
        assert_eq!(tc.compiler, root.join("bin").join(exe("hipcc")));
        assert_eq!(tc.kind, Compiler::Hipcc);
        assert_eq!(tc.rocm_path.as_deref(), Some(root.as_path()));
        assert_eq!(tc.found_by, "ROCM_PATH");
    }

    #[test]
    fn a_named_roots_clang_wins_over_hipcc_on_path() {
        // ROCM_PATH names a toolchain without hipcc (clang only, as
        // scripts/hip-toolchain.sh makes): an older hipcc on PATH must not
        // be taken instead.
        let root = temp_dir("named-clang");
        let clang = root.join("llvm/bin").join(exe("clang++"));
        for (file, dir) in [
            (clang.clone(), clang.parent().unwrap().to_path_buf()),
            (
                root.join("include/hip/hip_runtime.h"),
                root.join("include/hip"),
            ),
            (
                root.join("amdgcn/bitcode/ockl.bc"),
                root.join("amdgcn/bitcode"),
            ),
        ] {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(file, "").unwrap();
        }
        let path = temp_dir("old-hipcc");
        std::fs::write(path.join(exe("hipcc")), "").unwrap();
        let tc = Toolchain::find_with(
            &env_of(&[
                ("ROCM_PATH", root.to_str().unwrap()),
                ("PATH", path.to_str().unwrap()),
            ]),
            Path::new("/nonexistent"),
        )
        .unwrap();
        assert_eq!(tc.compiler, clang);
        assert_eq!(tc.found_by, "clang of ROCM_PATH");
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

    #[test]
    fn rocm_clang_is_used_when_there_is_no_hipcc() {
        let root = temp_dir("clang-root");
        let clang = root.join("llvm/bin").join(exe("clang++"));
        std::fs::create_dir_all(clang.parent().unwrap()).unwrap();
        std::fs::write(&clang, "").unwrap();
        std::fs::create_dir_all(root.join("include/hip")).unwrap();
        std::fs::write(root.join("include/hip/hip_runtime.h"), "").unwrap();
        let env = env_of(&[("ROCM_PATH", root.to_str().unwrap())]);

        // Without device libraries it is not usable, and says why.
        let err = Toolchain::find_with(&env, Path::new("/nonexistent")).unwrap_err();
        assert!(
            err.to_string().contains("install rocm-device-libs"),
            "{err}"
        );

        let bitcode = root.join("amdgcn/bitcode");
        std::fs::create_dir_all(&bitcode).unwrap();
        std::fs::write(bitcode.join("ockl.bc"), "").unwrap();
        let tc = Toolchain::find_with(&env, Path::new("/nonexistent")).unwrap();
        assert_eq!(tc.compiler, clang);
        assert_eq!(
            tc.kind,
            Compiler::Clang {
                device_lib_path: bitcode
            }
        );
        assert_eq!(tc.found_by, "clang of ROCM_PATH");
        let cmd = format!(
            "{:?}",
            tc.code_object_command("gfx90a", Path::new("k.hip"), Path::new("k.co"))
        );
        for part in [
            "--cuda-device-only",
            "--rocm-path=",
            "--hip-device-lib-path=",
            "--offload-arch=gfx90a",
            "--no-gpu-bundle-output",
        ] {
            assert!(cmd.contains(part), "{part} missing in {cmd}");
        }
    }
}
