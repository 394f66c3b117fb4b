//! What the report reads from outside the runtime: variables and folders,
//! collected once so tests can replace them with a temp dir.

use hip_sys::loader::search::Os;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The variables the report reads and shows, with what each one does.
pub const VARIABLES: &[(&str, &str)] = &[
    ("HIP_PLATFORM", "chooses the platform: amd or nvidia"),
    (
        "HIP_SYS_LIBRARY_PATH",
        "the only folder (or file) searched for AMD libraries when set",
    ),
    (
        "ROCM_PATH",
        "ROCm installation searched first (<value>/lib)",
    ),
    ("HIP_PATH", "HIP SDK searched next (<value>/lib)"),
    (
        "CUDA_PATH",
        "CUDA installation searched first on the nvidia platform (<value>/lib64)",
    ),
    (
        "CUDA_HOME",
        "CUDA installation searched next on the nvidia platform (<value>/lib64)",
    ),
    (
        "LD_LIBRARY_PATH",
        "folders the system loader searches first",
    ),
    (
        "HIP_VISIBLE_DEVICES",
        "devices the HIP runtime shows (AMD), by index",
    ),
    (
        "CUDA_VISIBLE_DEVICES",
        "devices the CUDA runtime shows; ROCm also honours it",
    ),
    (
        "ROCR_VISIBLE_DEVICES",
        "devices the ROCm driver layer shows (AMD), by index or UUID",
    ),
    (
        "GPU_DEVICE_ORDINAL",
        "devices the AMD runtime shows (older name)",
    ),
    (
        "HSA_OVERRIDE_GFX_VERSION",
        "makes AMD devices present themselves as another architecture",
    ),
    (
        "ROCBLAS_TENSILE_LIBPATH",
        "folder rocBLAS reads its kernels from, instead of its own library/",
    ),
];

/// The variables that hide or select devices.
pub(super) const VISIBILITY_VARS: &[&str] = &[
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
];

/// The environment a report describes: variable values and the folders
/// that stand for the machine's fixed places.
///
/// [`Environment::from_process`] reads the real ones; tests build one with
/// [`Environment::empty`] and the `with_*` methods over a temp dir.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Environment {
    vars: BTreeMap<String, String>,
    default_rocm: PathBuf,
    system_lib_dirs: Vec<PathBuf>,
    kfd: PathBuf,
    amdgpu_module: PathBuf,
}

impl Environment {
    /// The process's variables (those in [`VARIABLES`]) and the real
    /// places: `/opt/rocm`, the distribution's library folders, `/dev/kfd`,
    /// `/sys/module/amdgpu`.
    pub fn from_process() -> Environment {
        let mut env = Environment {
            default_rocm: PathBuf::from("/opt/rocm"),
            system_lib_dirs: default_system_lib_dirs(),
            kfd: PathBuf::from("/dev/kfd"),
            amdgpu_module: PathBuf::from("/sys/module/amdgpu"),
            vars: BTreeMap::new(),
        };
        for (name, _) in VARIABLES {
            if let Some(v) = std::env::var_os(name) {
                env.vars
                    .insert((*name).to_owned(), v.to_string_lossy().into_owned());
            }
        }
        env
    }

    /// No variables, no system folders, the default ROCm folder and
    /// `/dev/kfd` pointing nowhere: a blank to fill with `with_*`.
    pub fn empty() -> Environment {
        Environment {
            vars: BTreeMap::new(),
            default_rocm: PathBuf::from("/nonexistent/opt/rocm"),
            system_lib_dirs: Vec::new(),
            kfd: PathBuf::from("/nonexistent/dev/kfd"),
            amdgpu_module: PathBuf::from("/nonexistent/sys/module/amdgpu"),
        }
    }

    /// Sets a variable.
    pub fn with_var(mut self, name: &str, value: impl Into<String>) -> Environment {
        self.vars.insert(name.to_owned(), value.into());
        self
    }

    /// The folder standing for `/opt/rocm`.
    pub fn with_default_rocm(mut self, dir: impl Into<PathBuf>) -> Environment {
        self.default_rocm = dir.into();
        self
    }

    /// The folders the system loader searches after `LD_LIBRARY_PATH`
    /// (e.g. `/usr/lib/x86_64-linux-gnu`), for finding rocBLAS/hipBLAS files.
    pub fn with_system_lib_dirs(mut self, dirs: Vec<PathBuf>) -> Environment {
        self.system_lib_dirs = dirs;
        self
    }

    /// The path standing for `/dev/kfd`, the AMD kernel driver's device.
    pub fn with_kfd(mut self, path: impl Into<PathBuf>) -> Environment {
        self.kfd = path.into();
        self
    }

    /// A variable's value; an empty value counts as set.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(String::as_str)
    }

    /// A variable's value, `None` when unset or empty.
    pub(super) fn nonempty(&self, name: &str) -> Option<&str> {
        self.var(name).filter(|v| !v.is_empty())
    }

    /// The folder standing for `/sys/module/amdgpu`, where the AMD kernel
    /// driver shows its version (`version`, when installed as amdgpu-dkms).
    pub fn with_amdgpu_module(mut self, dir: impl Into<PathBuf>) -> Environment {
        self.amdgpu_module = dir.into();
        self
    }

    pub(super) fn kfd(&self) -> &Path {
        &self.kfd
    }

    /// The AMD kernel driver in use: the amdgpu-dkms version, the kernel's
    /// own driver, or `None` when the module is not loaded.
    pub(super) fn amdgpu_driver(&self) -> Option<String> {
        if !self.amdgpu_module.is_dir() {
            return None;
        }
        match std::fs::read_to_string(self.amdgpu_module.join("version")) {
            Ok(v) if !v.trim().is_empty() => Some(format!("amdgpu {}", v.trim())),
            _ => Some("amdgpu of the Linux kernel (no separate version)".into()),
        }
    }

    /// The folders searched for AMD libraries, in the loader's order, each
    /// with why it is searched: hip-sys's own list (so the two cannot
    /// drift), with `/opt/rocm` mapped to [`Environment::with_default_rocm`]
    /// and the system loader's search spelled out as folders.
    pub(super) fn library_dirs(&self) -> Vec<(PathBuf, String)> {
        let lookup = |k: &str| self.nonempty(k).map(PathBuf::from);
        let mut out = Vec::new();
        let os = Os::CURRENT;
        for loc in hip_sys::loader::search::amd_locations_from(os, &lookup) {
            match loc.dir {
                Some(d) if d == Path::new("/opt/rocm/lib") => {
                    out.push((self.default_rocm.join("lib"), loc.source))
                }
                Some(d) if d.is_file() => {
                    if let Some(parent) = d.parent() {
                        out.push((parent.to_path_buf(), loc.source));
                    }
                }
                Some(d) => out.push((d, loc.source)),
                None => {
                    if let Some(paths) = self.nonempty("LD_LIBRARY_PATH").filter(|_| os == Os::Unix)
                    {
                        for p in std::env::split_paths(paths) {
                            out.push((p, "LD_LIBRARY_PATH".into()));
                        }
                    }
                    for d in &self.system_lib_dirs {
                        out.push((d.clone(), "system folder".into()));
                    }
                }
            }
        }
        let mut seen = Vec::new();
        out.retain(|(d, _)| {
            let key = std::fs::canonicalize(d).unwrap_or_else(|_| d.clone());
            let new = !seen.contains(&key);
            seen.push(key);
            new
        });
        out
    }
}

fn default_system_lib_dirs() -> Vec<PathBuf> {
    if Os::CURRENT == Os::Windows {
        // LoadLibraryExW's system folder (what GetSystemDirectoryW returns).
        return std::env::var_os("SystemRoot")
            .map(|root| vec![PathBuf::from(root).join("System32")])
            .unwrap_or_default();
    }
    let multiarch = format!("/usr/lib/{}-linux-gnu", std::env::consts::ARCH);
    [
        multiarch.as_str(),
        "/usr/lib64",
        "/usr/lib",
        "/usr/local/lib",
    ]
    .iter()
    .map(PathBuf::from)
    .collect()
}
