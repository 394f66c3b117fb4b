//! Where shared libraries are looked for, and the record of each try.
//!
//! Shared with hipblas-sys so that every AMD library of a process comes from
//! the same places, in the same order.

use std::fmt;
use std::path::{Path, PathBuf};

/// The variable that, when set, names the only folder (or the library file)
/// searched for AMD libraries, instead of the default places.
pub const OVERRIDE_VAR: &str = "HIP_SYS_LIBRARY_PATH";

/// One place a library was looked for, and what happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// What the library is for, e.g. `"HIP runtime"`.
    pub role: &'static str,
    /// The path given to the system loader (a bare file name means the
    /// loader's own search: `LD_LIBRARY_PATH`, the cache, default folders).
    pub candidate: PathBuf,
    /// Why it was tried: which variable or default produced it.
    pub source: String,
    /// `Ok(())` when it loaded, else the loader's reason.
    pub outcome: Result<(), String>,
}

impl fmt::Display for Attempt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outcome {
            Ok(()) => write!(f, "{} ({}): loaded", self.candidate.display(), self.source),
            Err(e) => write!(f, "{} ({}): {e}", self.candidate.display(), self.source),
        }
    }
}

/// A place to look and why it is on the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// A folder, or `None` for the system loader's own search.
    pub dir: Option<PathBuf>,
    /// Which variable or default gave this place.
    pub source: String,
}

/// The places AMD libraries are searched, in order, read from the process
/// environment: [`OVERRIDE_VAR`] alone when set; else `$ROCM_PATH/lib`,
/// `$HIP_PATH/lib`, `/opt/rocm/lib`, then the system loader.
pub fn amd_locations() -> Vec<Location> {
    amd_locations_from(&|k| std::env::var_os(k).map(PathBuf::from))
}

/// [`amd_locations`] with the environment given as a function, for tests.
pub fn amd_locations_from(env: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<Location> {
    if let Some(p) = env(OVERRIDE_VAR).filter(|p| !p.as_os_str().is_empty()) {
        return vec![Location {
            dir: Some(p),
            source: OVERRIDE_VAR.to_owned(),
        }];
    }
    let lib = if cfg!(windows) { "bin" } else { "lib" };
    sdk_locations(env, &["ROCM_PATH", "HIP_PATH"], lib, "/opt/rocm")
}

/// The places NVIDIA's libraries (CUDA runtime, nvrtc, cuBLAS) are searched,
/// in order, read from the process environment: `$CUDA_PATH/lib64`,
/// `$CUDA_HOME/lib64`, `/usr/local/cuda/lib64`, then the system loader.
/// Shared by hip-sys's and hipblas-sys's NVIDIA backends.
pub fn cuda_locations() -> Vec<Location> {
    cuda_locations_from(&|k| std::env::var_os(k).map(PathBuf::from))
}

/// [`cuda_locations`] with the environment given as a function, for tests.
pub fn cuda_locations_from(env: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<Location> {
    let lib = if cfg!(windows) { "bin" } else { "lib64" };
    sdk_locations(env, &["CUDA_PATH", "CUDA_HOME"], lib, "/usr/local/cuda")
}

/// `<$var>/<lib>` for each set variable, then `<default>/<lib>` (not on
/// Windows, where SDKs have no fixed place), then the system loader.
fn sdk_locations(
    env: &dyn Fn(&str) -> Option<PathBuf>,
    vars: &[&str],
    lib: &str,
    default: &str,
) -> Vec<Location> {
    let mut out: Vec<Location> = vars
        .iter()
        .filter_map(|var| {
            let p = env(var).filter(|p| !p.as_os_str().is_empty())?;
            Some(Location {
                dir: Some(p.join(lib)),
                source: (*var).to_owned(),
            })
        })
        .collect();
    if !cfg!(windows) {
        out.push(Location {
            dir: Some(Path::new(default).join(lib)),
            source: format!("default {default}"),
        });
    }
    out.push(Location {
        dir: None,
        source: "system loader".into(),
    });
    out
}

/// Tries each file name in each location, in order, until one loads.
/// Every try is appended to `attempts`.
///
/// When the override names a file rather than a folder, that file is the
/// only candidate. A relative folder (`ROCM_PATH=rocm`, `HIP_PATH=.`) is
/// never searched, since what it names would depend on the working folder:
/// it is recorded as an attempt that says so, so the report shows why the
/// variable had no effect.
pub fn open_first(
    role: &'static str,
    locations: &[Location],
    file_names: &[&str],
    attempts: &mut Vec<Attempt>,
) -> Option<(libloading::Library, PathBuf)> {
    for loc in locations {
        if let Some(d) = loc.dir.as_ref().filter(|d| d.is_relative()) {
            attempts.push(Attempt {
                role,
                candidate: d.clone(),
                source: loc.source.clone(),
                outcome: Err(RELATIVE.into()),
            });
            continue;
        }
        let candidates: Vec<PathBuf> = match &loc.dir {
            Some(d) if d.is_file() => vec![d.clone()],
            Some(d) => file_names.iter().map(|n| d.join(n)).collect(),
            None => file_names.iter().map(PathBuf::from).collect(),
        };
        for candidate in candidates {
            if loc.dir.is_some() && !candidate.exists() {
                attempts.push(Attempt {
                    role,
                    candidate,
                    source: loc.source.clone(),
                    outcome: Err("no such file".into()),
                });
                continue;
            }
            match open(&candidate) {
                Ok(lib) => {
                    attempts.push(Attempt {
                        role,
                        candidate: candidate.clone(),
                        source: loc.source.clone(),
                        outcome: Ok(()),
                    });
                    let path = resolved_path(&lib, &candidate);
                    return Some((lib, path));
                }
                Err(e) => attempts.push(Attempt {
                    role,
                    candidate,
                    source: loc.source.clone(),
                    outcome: Err(e),
                }),
            }
        }
    }
    None
}

/// Why a relative folder was not searched.
pub const RELATIVE: &str =
    "a relative path, not searched (it would name a folder below the working folder)";

/// Opens one library with the system loader.
pub fn open(path: &Path) -> Result<libloading::Library, String> {
    // SAFETY: loading runs the library's initialisers. The libraries opened
    // here are the GPU vendors' runtimes, whose initialisers have no
    // preconditions on the caller.
    unsafe { libloading::Library::new(path) }.map_err(|e| clean_loader_message(&e.to_string()))
}

fn clean_loader_message(msg: &str) -> String {
    // libloading prefixes dlerror()'s text; keep only the loader's reason.
    msg.trim_start_matches("Error loading shared library ")
        .to_owned()
}

/// The file actually loaded: for a bare name, the path the system loader
/// picked (from `/proc/self/maps`), so reports name a real file.
fn resolved_path(_lib: &libloading::Library, candidate: &Path) -> PathBuf {
    if candidate.components().count() > 1 {
        return std::fs::canonicalize(candidate).unwrap_or_else(|_| candidate.to_path_buf());
    }
    #[cfg(target_os = "linux")]
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        let name = candidate.to_string_lossy();
        for line in maps.lines() {
            if let Some(path) = line.split_whitespace().nth(5) {
                let file = Path::new(path)
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                if file == name || file.starts_with(&format!("{name}.")) {
                    return PathBuf::from(path);
                }
            }
        }
    }
    candidate.to_path_buf()
}

/// Reads `major.minor.patch` from a versioned file name such as
/// `libamdhip64.so.5.2.21153`.
pub fn version_from_file_name(path: &Path) -> Option<(u32, u32, u32)> {
    let name = path.file_name()?.to_str()?;
    let tail = name.split(".so.").nth(1)?;
    let mut parts = tail.split('.').map(|p| p.parse::<u32>().ok());
    let major = parts.next()??;
    let minor = parts.next().flatten().unwrap_or(0);
    let patch = parts.next().flatten().unwrap_or(0);
    Some((major, minor, patch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<PathBuf> {
        let map: HashMap<String, PathBuf> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn override_is_the_only_location() {
        let locs = amd_locations_from(&env_of(&[(OVERRIDE_VAR, "/x"), ("ROCM_PATH", "/r")]));
        assert_eq!(locs.len(), 1);
        assert_eq!(locs[0].dir.as_deref(), Some(Path::new("/x")));
    }

    #[test]
    fn default_order_is_rocm_hip_opt_system() {
        let locs = amd_locations_from(&env_of(&[("ROCM_PATH", "/r"), ("HIP_PATH", "/h")]));
        let dirs: Vec<_> = locs.iter().map(|l| l.dir.clone()).collect();
        assert_eq!(
            dirs,
            vec![
                Some(PathBuf::from("/r/lib")),
                Some(PathBuf::from("/h/lib")),
                Some(PathBuf::from("/opt/rocm/lib")),
                None
            ]
        );
    }

    #[test]
    fn relative_folders_are_never_searched() {
        // A library in a folder below the working folder, named relatively.
        let dir = std::env::temp_dir().join(format!("hip-sys-relative-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        let cwd = std::env::current_dir().unwrap();
        let relative = pathdiff(&dir, &cwd);
        let locs = amd_locations_from(&env_of(&[("ROCM_PATH", relative.to_str().unwrap())]));
        assert!(locs[0].dir.as_ref().unwrap().is_relative(), "{locs:?}");
        let mut attempts = Vec::new();
        let found = open_first("HIP runtime", &locs[..1], &["libc.so.6"], &mut attempts);
        assert!(found.is_none());
        assert_eq!(attempts.len(), 1, "{attempts:?}");
        assert_eq!(attempts[0].outcome, Err(RELATIVE.to_owned()));
        assert_eq!(attempts[0].source, "ROCM_PATH");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `path` relative to `base` (both absolute), with `..` as needed.
    fn pathdiff(path: &Path, base: &Path) -> PathBuf {
        let p: Vec<_> = path.components().collect();
        let b: Vec<_> = base.components().collect();
        let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
        let mut out = PathBuf::new();
        for _ in common..b.len() {
            out.push("..");
        }
        for c in &p[common..] {
            out.push(c);
        }
        out
    }

    #[test]
    fn empty_variables_are_ignored() {
        let locs = amd_locations_from(&env_of(&[(OVERRIDE_VAR, ""), ("ROCM_PATH", "")]));
        assert_eq!(locs.len(), 2, "{locs:?}");
    }

    #[test]
    fn versions_from_file_names() {
        assert_eq!(
            version_from_file_name(Path::new("/usr/lib/libamdhip64.so.5.2.21153")),
            Some((5, 2, 21153))
        );
        assert_eq!(
            version_from_file_name(Path::new("libamdhip64.so.6")),
            Some((6, 0, 0))
        );
        assert_eq!(version_from_file_name(Path::new("libamdhip64.so")), None);
    }

    #[test]
    fn missing_files_are_recorded_not_opened() {
        let dir = std::env::temp_dir().join(format!("hip-sys-empty-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let locs = vec![Location {
            dir: Some(dir.clone()),
            source: "test".into(),
        }];
        let mut attempts = Vec::new();
        assert!(open_first("X", &locs, &["liba.so.1", "liba.so"], &mut attempts).is_none());
        assert_eq!(attempts.len(), 2);
        assert!(attempts
            .iter()
            .all(|a| a.outcome == Err("no such file".into())));
        assert_eq!(attempts[0].candidate, dir.join("liba.so.1"));
    }
}
