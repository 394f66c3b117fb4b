//! `native` in a target list: the AMD GPUs of the machine that builds.
//!
//! Found, in order, by ROCm's `amdgpu-arch` (LLVM's tool, which asks the
//! HIP/HSA runtime), by `rocm_agent_enumerator`, and by reading the amdgpu
//! driver's KFD topology (`/sys/class/kfd/kfd/topology/nodes/*/properties`)
//! directly, so a machine with the driver but neither tool still works.
//! The first that names at least one GPU wins; when none does, the error
//! says what each one answered.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The word in a target list that stands for this machine's GPUs.
pub const NATIVE: &str = "native";

/// Where the driver publishes its topology on Linux.
pub(crate) const KFD_TOPOLOGY: &str = "/sys/class/kfd/kfd/topology/nodes";

/// No AMD GPU found for `native`: what each way of looking answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoNativeGpu {
    /// One line per way of looking: the tool or folder, then its answer.
    pub looked: Vec<String>,
}

impl fmt::Display for NoNativeGpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}=native: no AMD GPU found on this machine. Looked at:",
            crate::TARGETS_VAR
        )?;
        for l in &self.looked {
            writeln!(f, "  - {l}")?;
        }
        write!(
            f,
            "Name the targets instead (e.g. {}=gfx90a,gfx1100): `native` is for \
             builds that run on the machine that builds them.",
            crate::TARGETS_VAR
        )
    }
}

impl std::error::Error for NoNativeGpu {}

/// The GPUs of this machine as `--offload-arch` targets, in the order
/// found, once each; `var` reads the environment (`PATH`, `ROCM_PATH`,
/// `HIP_PATH`), `default_rocm` is ROCm's usual root (`/opt/rocm`), `kfd`
/// the topology folder ([`KFD_TOPOLOGY`]).
pub(crate) fn detect(
    var: &dyn Fn(&str) -> Option<OsString>,
    default_rocm: &Path,
    kfd: &Path,
) -> Result<Vec<String>, NoNativeGpu> {
    let mut looked = Vec::new();
    let dirs = tool_dirs(var, default_rocm);
    for tool in ["amdgpu-arch", "rocm_agent_enumerator"] {
        let Some(path) = dirs.iter().map(|d| d.join(tool)).find(|p| p.is_file()) else {
            looked.push(format!(
                "{tool}: not found (PATH, ROCM_PATH, HIP_PATH, {})",
                default_rocm.display()
            ));
            continue;
        };
        match Command::new(&path).output() {
            Err(e) => looked.push(format!("{}: could not run: {e}", path.display())),
            Ok(out) => {
                let found = gpus_in(&String::from_utf8_lossy(&out.stdout));
                if out.status.success() && !found.is_empty() {
                    return Ok(found);
                }
                let err = String::from_utf8_lossy(&out.stderr);
                let last = err.lines().rev().find(|l| !l.trim().is_empty());
                looked.push(format!(
                    "{}: {}{}",
                    path.display(),
                    if out.status.success() {
                        "no GPU listed".to_owned()
                    } else {
                        out.status.to_string()
                    },
                    last.map(|l| format!(" ({})", l.trim())).unwrap_or_default()
                ));
            }
        }
    }
    match read_kfd(kfd) {
        Ok(found) if !found.is_empty() => return Ok(found),
        Ok(_) => looked.push(format!("{}: no GPU node", kfd.display())),
        Err(e) => looked.push(format!("{}: {e}", kfd.display())),
    }
    Err(NoNativeGpu { looked })
}

/// Folders searched for the tools: `PATH`, then ROCm's own.
fn tool_dirs(var: &dyn Fn(&str) -> Option<OsString>, default_rocm: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = var("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    let roots = ["ROCM_PATH", "HIP_PATH"]
        .iter()
        .filter_map(|k| var(k).map(PathBuf::from))
        .chain([default_rocm.to_path_buf()]);
    for root in roots {
        dirs.push(root.join("bin"));
        dirs.push(root.join("llvm/bin"));
    }
    dirs
}

/// The GPU targets in a tool's output: one per line; `gfx000` (the CPU
/// agent `rocm_agent_enumerator` lists) and anything not a target are left
/// out.
fn gpus_in(stdout: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in stdout.lines().map(str::trim) {
        if line != "gfx000" && crate::valid_target(line) && !found.iter().any(|f| f == line) {
            found.push(line.to_owned());
        }
    }
    found
}

/// The GPU nodes of a KFD topology folder, by their `gfx_target_version`
/// (CPU nodes have 0).
fn read_kfd(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut nodes: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_str()?.parse().ok()?;
            Some((n, e.path()))
        })
        .collect();
    nodes.sort();
    let mut found = Vec::new();
    for (_, node) in nodes {
        let Ok(props) = std::fs::read_to_string(node.join("properties")) else {
            continue;
        };
        let version = props.lines().find_map(|l| {
            let mut words = l.split_whitespace();
            (words.next() == Some("gfx_target_version"))
                .then(|| words.next()?.parse::<u32>().ok())
                .flatten()
        });
        if let Some(name) = version.and_then(target_of_version) {
            if !found.contains(&name) {
                found.push(name);
            }
        }
    }
    Ok(found)
}

/// `gfx_target_version` (major * 10000 + minor * 100 + stepping) as the
/// processor name: minor and stepping are one hex digit each, so 90010 is
/// gfx90a and 110000 is gfx1100; 0 (a CPU) is none.
fn target_of_version(v: u32) -> Option<String> {
    let (major, minor, stepping) = (v / 10000, (v / 100) % 100, v % 100);
    (major > 0 && minor < 16 && stepping < 16).then(|| format!("gfx{major}{minor:x}{stepping:x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder(name: &str) -> PathBuf {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let d =
            std::env::temp_dir().join(format!("hip-build-native-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// An executable shell script at `path`: a stand-in for a tool.
    #[cfg(unix)]
    fn script(path: &Path, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    fn node(kfd: &Path, n: u32, version: u32) {
        let d = kfd.join(n.to_string());
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("properties"),
            format!("cpu_cores_count 0\nsimd_count 104\ngfx_target_version {version}\nmax_waves_per_simd 8\n"),
        )
        .unwrap();
    }

    #[test]
    fn versions_name_processors() {
        assert_eq!(target_of_version(90010).as_deref(), Some("gfx90a"));
        assert_eq!(target_of_version(90402).as_deref(), Some("gfx942"));
        assert_eq!(target_of_version(100300).as_deref(), Some("gfx1030"));
        assert_eq!(target_of_version(110000).as_deref(), Some("gfx1100"));
        assert_eq!(target_of_version(120001).as_deref(), Some("gfx1201"));
        assert_eq!(target_of_version(0), None);
    }

    #[test]
    fn the_topology_gives_each_gpu_once_in_node_order() {
        let kfd = folder("kfd");
        node(&kfd, 0, 0); // the CPU
        node(&kfd, 2, 110000);
        node(&kfd, 1, 90010);
        node(&kfd, 10, 90010);
        let nothing = |_: &str| None;
        assert_eq!(
            detect(&nothing, &kfd.join("no-rocm"), &kfd).unwrap(),
            ["gfx90a", "gfx1100"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_tool_on_path_comes_first_and_its_cpu_agent_is_left_out() {
        let bin = folder("bin");
        let tool = bin.join("rocm_agent_enumerator");
        script(&tool, "#!/bin/sh\necho gfx000\necho gfx942\necho gfx942\n");
        let kfd = folder("kfd-other");
        node(&kfd, 1, 110000);
        let path = bin.clone().into_os_string();
        let env = |k: &str| (k == "PATH").then(|| path.clone());
        assert_eq!(
            detect(&env, &kfd.join("no-rocm"), &kfd).unwrap(),
            ["gfx942"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn no_gpu_says_what_each_way_of_looking_answered() {
        let bin = folder("bin-failing");
        let tool = bin.join("amdgpu-arch");
        script(&tool, "#!/bin/sh\necho 'no HSA agents' >&2\nexit 1\n");
        let kfd = folder("kfd-cpu-only");
        node(&kfd, 0, 0);
        let path = bin.clone().into_os_string();
        let env = |k: &str| (k == "PATH").then(|| path.clone());
        let e = detect(&env, &kfd.join("no-rocm"), &kfd).unwrap_err();
        assert_eq!(e.looked.len(), 3, "{e}");
        let text = e.to_string();
        assert!(
            text.contains("HIP_BUILD_OFFLOAD_ARCH=native: no AMD GPU found"),
            "{text}"
        );
        assert!(text.contains("exit status: 1 (no HSA agents)"), "{text}");
        assert!(text.contains("no GPU node"), "{text}");
        assert!(
            text.contains("e.g. HIP_BUILD_OFFLOAD_ARCH=gfx90a,gfx1100"),
            "{text}"
        );
        let missing =
            detect(&|_: &str| None, &kfd.join("no-rocm"), &kfd.join("absent")).unwrap_err();
        assert!(missing.looked[2].contains("absent"), "{missing}");
    }
}
