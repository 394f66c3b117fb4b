//! Where shared libraries are looked for, and the record of each try.
//!
//! Shared with hipblas-sys so that every AMD library of a process comes from
//! the same places, in the same order.

use std::fmt;
use std::path::{Path, PathBuf};

#[path = "pe.rs"]
pub mod pe;

/// The variable that, when set, names the only folder searched for AMD
/// libraries, instead of the default places; or the HIP runtime's file,
/// which is then the runtime while the libraries built on it are searched
/// beside it and in the default places ([`amd_library_locations_from`]).
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

/// The operating system whose search rules apply: a parameter of the pure
/// functions below, so that the Windows order is tested on Linux too.
/// [`Os::CURRENT`] is the one place that asks which system this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Os {
    /// Linux and other Unix systems: `lib/` folders, `/opt/rocm`, `dlopen`.
    Unix,
    /// Windows: `bin\` folders, `PATH`, `LoadLibraryExW`.
    Windows,
}

impl Os {
    /// The system this was compiled for.
    pub const CURRENT: Os = if cfg!(windows) { Os::Windows } else { Os::Unix };

    /// The folder of an SDK that holds its shared libraries.
    pub const fn library_folder(self) -> &'static str {
        match self {
            Os::Unix => "lib",
            Os::Windows => "bin",
        }
    }

    /// The separator of entries in `PATH`-like variables.
    pub const fn path_separator(self) -> char {
        match self {
            Os::Unix => ':',
            Os::Windows => ';',
        }
    }
}

/// The places AMD libraries are searched, in order, read from the process
/// environment (see [`amd_locations_from`]).
pub fn amd_locations() -> Vec<Location> {
    amd_locations_from(Os::CURRENT, &|k| std::env::var_os(k).map(PathBuf::from))
}

/// The places AMD libraries are searched on `os`, in order, with the
/// environment given as a function. [`OVERRIDE_VAR`] alone when set; else
///
/// - Unix: `$ROCM_PATH/lib`, `$HIP_PATH/lib`, `/opt/rocm/lib`, then the
///   system loader;
/// - Windows: `%HIP_PATH%\bin` (where AMD's HIP SDK installer points it),
///   `%ROCM_PATH%\bin`, each entry of `PATH` in order, then the system
///   (`LoadLibraryExW`'s default folders: the application's folder and
///   System32, never the working folder). Empty and relative `PATH`
///   entries are kept as locations so that [`open_first`] records why
///   they were not searched.
pub fn amd_locations_from(os: Os, env: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<Location> {
    if let Some(p) = env(OVERRIDE_VAR).filter(|p| !p.as_os_str().is_empty()) {
        return vec![Location {
            dir: Some(p),
            source: OVERRIDE_VAR.to_owned(),
        }];
    }
    match os {
        Os::Unix => sdk_locations(
            os,
            env,
            &["ROCM_PATH", "HIP_PATH"],
            os.library_folder(),
            "/opt/rocm",
        ),
        Os::Windows => {
            let mut out = variable_folders(env, &["HIP_PATH", "ROCM_PATH"], os.library_folder());
            out.extend(path_entries(os, env));
            out.push(system_loader());
            out
        }
    }
}

/// The places an AMD library built on the runtime (hipBLAS, rocBLAS's
/// users, RCCL, ...) is searched, in order: [`amd_library_locations_from`]
/// with this process's environment.
pub fn amd_library_locations() -> Vec<Location> {
    amd_library_locations_from(Os::CURRENT, &|k| std::env::var_os(k).map(PathBuf::from))
}

/// [`amd_locations_from`], except when [`OVERRIDE_VAR`] names a file: that
/// file is the HIP runtime (ROCm's, or the software AMD GPU of
/// `HIP_PLATFORM=emulated`), which cannot also be hipBLAS, so a library is
/// searched in the file's folder, then in the default places, as if the
/// variable were unset. A folder in the variable stays the only place.
pub fn amd_library_locations_from(os: Os, env: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<Location> {
    let file = env(OVERRIDE_VAR).filter(|p| p.is_file());
    let Some(file) = file else {
        return amd_locations_from(os, env);
    };
    let without = |k: &str| if k == OVERRIDE_VAR { None } else { env(k) };
    let mut out = Vec::new();
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        out.push(Location {
            dir: Some(dir.to_path_buf()),
            source: format!("{OVERRIDE_VAR}'s folder (it names the runtime's file)"),
        });
    }
    out.extend(amd_locations_from(os, &without));
    out
}

/// Where `HIP_PLATFORM=emulated` looks for the software AMD GPU
/// (`hip-emu`'s `libhip_emu.so`): [`OVERRIDE_VAR`] alone when set; else the
/// folder of the running program and its `deps/` folder, then their parent
/// and its `deps/` (cargo puts the library in `target/<profile>/deps`,
/// tests in `deps/` and examples in `examples/`). Never the working folder.
pub fn emulator_locations() -> Vec<Location> {
    let exe = std::env::current_exe().ok();
    emulator_locations_from(exe.as_deref(), &|k| std::env::var_os(k).map(PathBuf::from))
}

/// [`emulator_locations`] for a given program path and environment.
pub fn emulator_locations_from(
    exe: Option<&Path>,
    env: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<Location> {
    if let Some(p) = env(OVERRIDE_VAR).filter(|p| !p.as_os_str().is_empty()) {
        return vec![Location {
            dir: Some(p),
            source: OVERRIDE_VAR.to_owned(),
        }];
    }
    let mut out = Vec::new();
    let Some(dir) = exe.and_then(Path::parent) else {
        return out;
    };
    let mut push = |d: PathBuf, source: &str| {
        if !out
            .iter()
            .any(|l: &Location| l.dir.as_deref() == Some(d.as_path()))
        {
            out.push(Location {
                dir: Some(d),
                source: source.to_owned(),
            });
        }
    };
    push(dir.to_path_buf(), "the program's folder");
    push(dir.join("deps"), "the program's deps folder");
    if let Some(up) = dir.parent() {
        push(up.to_path_buf(), "the program folder's parent");
        push(up.join("deps"), "the program folder's parent's deps folder");
    }
    out
}

/// Each entry of `PATH`, in order, as a location named `PATH entry N`.
fn path_entries(os: Os, env: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<Location> {
    let Some(path) = env("PATH") else {
        return Vec::new();
    };
    path.to_string_lossy()
        .split(os.path_separator())
        .enumerate()
        .map(|(i, entry)| Location {
            dir: Some(PathBuf::from(entry)),
            source: format!("PATH entry {}", i + 1),
        })
        .collect()
}

/// The places NVIDIA's libraries (CUDA runtime, nvrtc, cuBLAS) are searched,
/// in order, read from the process environment: `$CUDA_PATH/lib64`,
/// `$CUDA_HOME/lib64`, `/usr/local/cuda/lib64`, then the system loader
/// (`bin` folders and no default folder on Windows).
/// Shared by hip-sys's and hipblas-sys's NVIDIA backends.
pub fn cuda_locations() -> Vec<Location> {
    cuda_locations_from(Os::CURRENT, &|k| std::env::var_os(k).map(PathBuf::from))
}

/// [`cuda_locations`] on `os` with the environment given as a function.
pub fn cuda_locations_from(os: Os, env: &dyn Fn(&str) -> Option<PathBuf>) -> Vec<Location> {
    let lib = match os {
        Os::Unix => "lib64",
        Os::Windows => os.library_folder(),
    };
    sdk_locations(os, env, &["CUDA_PATH", "CUDA_HOME"], lib, "/usr/local/cuda")
}

/// `<$var>/<lib>` for each set variable, then `<default>/<lib>` (Unix only:
/// Windows SDKs have no fixed place), then the system loader.
fn sdk_locations(
    os: Os,
    env: &dyn Fn(&str) -> Option<PathBuf>,
    vars: &[&str],
    lib: &str,
    default: &str,
) -> Vec<Location> {
    let mut out = variable_folders(env, vars, lib);
    if os == Os::Unix {
        out.push(Location {
            dir: Some(Path::new(default).join(lib)),
            source: format!("default {default}"),
        });
    }
    out.push(system_loader());
    out
}

/// `<$var>/<lib>` for each variable set to something non-empty, in order.
fn variable_folders(
    env: &dyn Fn(&str) -> Option<PathBuf>,
    vars: &[&str],
    lib: &str,
) -> Vec<Location> {
    vars.iter()
        .filter_map(|var| {
            let p = env(var).filter(|p| !p.as_os_str().is_empty())?;
            Some(Location {
                dir: Some(p.join(lib)),
                source: (*var).to_owned(),
            })
        })
        .collect()
}

fn system_loader() -> Location {
    Location {
        dir: None,
        source: "system loader".into(),
    }
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
            let why = if d.as_os_str().is_empty() {
                EMPTY
            } else {
                RELATIVE
            };
            attempts.push(Attempt {
                role,
                candidate: d.clone(),
                source: loc.source.clone(),
                outcome: Err(why.into()),
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
                    return Some(resolved_path(lib, &candidate));
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

/// Why an empty entry of a path list (`PATH=a;;b`) was not searched.
pub const EMPTY: &str = "an empty entry, not searched (loaders read it as the working folder)";

/// Opens one library with the system loader.
///
/// On Windows, with `LoadLibraryExW` flags that keep the working folder out
/// of every search, so that a DLL planted there is never loaded: a full path
/// with `LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS`
/// (its dependencies come from its own folder, then the application's
/// folder, System32 and folders added with `AddDllDirectory`), a bare name
/// with `LOAD_LIBRARY_SEARCH_DEFAULT_DIRS` only. When a file that exists
/// fails with "module not found", the message names the DLLs it imports
/// that none of those folders holds (see [`missing_imports`]).
pub fn open(path: &Path) -> Result<libloading::Library, String> {
    #[cfg(windows)]
    {
        windows::open(path)
    }
    #[cfg(not(windows))]
    {
        // SAFETY: loading runs the library's initialisers. The libraries
        // opened here are the GPU vendors' runtimes, whose initialisers have
        // no preconditions on the caller.
        unsafe { libloading::Library::new(path) }.map_err(|e| clean_loader_message(&e.to_string()))
    }
}

#[cfg(not(windows))]
fn clean_loader_message(msg: &str) -> String {
    // libloading prefixes dlerror()'s text; keep only the loader's reason.
    msg.trim_start_matches("Error loading shared library ")
        .to_owned()
}

/// How a Windows load failure that names a missing import begins, so that
/// [`missing_import_in`] can read it back.
const NEEDS: &str = "needs ";

/// The DLLs `library` (a PE file) needs, directly or through the imports
/// found beside it, that are in none of `folders`; each with the DLL that
/// imports it. A `LoadLibraryExW` with `LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR |
/// LOAD_LIBRARY_SEARCH_DEFAULT_DIRS` searches exactly the library's own
/// folder, the application's folder and the system folder, which the caller
/// passes. API-set names (`api-ms-*`, `ext-ms-*`) are resolved by Windows
/// itself and never missing.
pub fn missing_imports(
    library: &Path,
    folders: &[PathBuf],
) -> Result<Vec<(String, String)>, String> {
    let mut missing = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut queue = vec![library.to_path_buf()];
    while let Some(file) = queue.pop() {
        let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let importer = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let names = pe::imported_dlls(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
        for name in names {
            let key = name.to_ascii_lowercase();
            if key.starts_with("api-ms-") || key.starts_with("ext-ms-") || seen.contains(&key) {
                continue;
            }
            seen.push(key);
            match folders.iter().map(|d| d.join(&name)).find(|p| p.is_file()) {
                // Its own imports matter too, but the system's DLLs are
                // complete: only follow those beside the library.
                Some(found) if !found.starts_with(folders.last().map_or(Path::new(""), |p| p)) => {
                    queue.push(found)
                }
                Some(_) => {}
                None => missing.push((name, importer.clone())),
            }
        }
    }
    Ok(missing)
}

/// The message for a library whose imports `missing` are in none of
/// `folders`: `needs amd_comgr_2.dll, found in none of: C:\..\bin,
/// C:\windows\system32`.
pub fn missing_imports_message(
    library: &Path,
    missing: &[(String, String)],
    folders: &[PathBuf],
) -> String {
    let own = library
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let names: Vec<String> = missing
        .iter()
        .map(|(name, importer)| {
            if Some(importer) == own.as_ref() {
                name.clone()
            } else {
                format!("{name} (imported by {importer})")
            }
        })
        .collect();
    let dirs: Vec<String> = folders.iter().map(|d| d.display().to_string()).collect();
    format!(
        "{NEEDS}{}, found in none of: {}",
        names.join(" and "),
        dirs.join(", ")
    )
}

/// The first DLL a Windows load message from [`missing_imports_message`]
/// names.
pub fn missing_import_in(message: &str) -> Option<&str> {
    let rest = message.strip_prefix(NEEDS)?;
    let end = rest.find([',', ' '])?;
    Some(&rest[..end]).filter(|n| !n.is_empty())
}

#[cfg(windows)]
mod windows {
    use super::{missing_imports, missing_imports_message};
    use libloading::os::windows::{
        Library, LOAD_LIBRARY_SEARCH_DEFAULT_DIRS, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR,
    };
    use std::path::{Path, PathBuf};

    #[link(name = "kernel32")]
    extern "system" {
        fn GetSystemDirectoryW(buffer: *mut u16, size: u32) -> u32;
        fn GetModuleFileNameW(module: isize, buffer: *mut u16, size: u32) -> u32;
    }

    /// `ERROR_MOD_NOT_FOUND`: the file, or one of its imports, is missing.
    const MOD_NOT_FOUND: i32 = 126;

    pub(super) fn open(path: &Path) -> Result<libloading::Library, String> {
        let full = path.is_absolute();
        let flags = if full {
            LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
        } else {
            LOAD_LIBRARY_SEARCH_DEFAULT_DIRS
        };
        // SAFETY: loading runs the library's initialisers. The libraries
        // opened here are the GPU vendors' runtimes, whose initialisers have
        // no preconditions on the caller.
        match unsafe { Library::load_with_flags(path, flags) } {
            Ok(lib) => Ok(lib.into()),
            Err(e) => {
                let code = std::error::Error::source(&e)
                    .and_then(|s| s.downcast_ref::<std::io::Error>())
                    .and_then(std::io::Error::raw_os_error);
                let reason = match std::error::Error::source(&e) {
                    Some(s) => format!("LoadLibraryExW: {s}"),
                    None => format!("LoadLibraryExW: {e}"),
                };
                if code != Some(MOD_NOT_FOUND) {
                    return Err(reason);
                }
                if !full {
                    return Err(format!(
                        "no such file in the application folder or the system folder ({reason})"
                    ));
                }
                let folders = dependency_folders(path);
                match missing_imports(path, &folders) {
                    Ok(missing) if !missing.is_empty() => Err(format!(
                        "{} ({reason})",
                        missing_imports_message(path, &missing, &folders)
                    )),
                    Ok(_) => Err(reason),
                    Err(why) => Err(format!("{reason}; its imports could not be read: {why}")),
                }
            }
        }
    }

    /// Where `LoadLibraryExW` looks for the imports of a library loaded by
    /// full path with our flags: its folder, the application's, the
    /// system's (last: [`missing_imports`] follows imports found elsewhere).
    fn dependency_folders(library: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut add = |p: Option<PathBuf>| {
            if let Some(p) = p.filter(|p| !out.contains(p)) {
                out.push(p);
            }
        };
        add(library.parent().map(Path::to_path_buf));
        add(std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(Path::to_path_buf)));
        add(system_directory());
        out
    }

    fn system_directory() -> Option<PathBuf> {
        let mut buf = vec![0u16; 1024];
        // SAFETY: the buffer holds `buf.len()` wide characters.
        let n = unsafe { GetSystemDirectoryW(buf.as_mut_ptr(), buf.len() as u32) } as usize;
        (n > 0 && n < buf.len()).then(|| wide_path(&buf[..n]))
    }

    fn wide_path(w: &[u16]) -> PathBuf {
        use std::os::windows::ffi::OsStringExt;
        PathBuf::from(std::ffi::OsString::from_wide(w))
    }

    /// The file a loaded library came from (`GetModuleFileNameW`).
    pub(super) fn module_path(lib: libloading::Library) -> (libloading::Library, Option<PathBuf>) {
        let raw = Library::from(lib).into_raw();
        let mut buf = vec![0u16; 32_768];
        // SAFETY: `raw` is a module this process holds open; the buffer
        // holds `buf.len()` wide characters.
        let n = unsafe { GetModuleFileNameW(raw, buf.as_mut_ptr(), buf.len() as u32) } as usize;
        // SAFETY: `raw` came from `into_raw` just above and is given back
        // once, so the library is closed exactly once, by its new owner.
        let lib = unsafe { Library::from_raw(raw) };
        let path = (n > 0 && n < buf.len()).then(|| wide_path(&buf[..n]));
        (lib.into(), path)
    }
}

/// The file actually loaded: for a bare name, the path the system loader
/// picked (Linux: from `/proc/self/maps`; Windows: `GetModuleFileNameW`),
/// so reports name a real file.
fn resolved_path(lib: libloading::Library, candidate: &Path) -> (libloading::Library, PathBuf) {
    if candidate.components().count() > 1 {
        let path = std::fs::canonicalize(candidate).unwrap_or_else(|_| candidate.to_path_buf());
        return (lib, strip_verbatim(path));
    }
    #[cfg(windows)]
    {
        let (lib, path) = windows::module_path(lib);
        (lib, path.unwrap_or_else(|| candidate.to_path_buf()))
    }
    #[cfg(not(windows))]
    {
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
                        return (lib, PathBuf::from(path));
                    }
                }
            }
        }
        (lib, candidate.to_path_buf())
    }
}

/// `path` without Windows' verbatim prefix: `canonicalize` there gives
/// `\\?\C:\...`, while variables and reports spell `C:\...`. Other paths
/// come back as they are.
pub fn strip_verbatim(path: PathBuf) -> PathBuf {
    match path.to_str().and_then(|s| s.strip_prefix(r"\\?\")) {
        Some(plain) if !plain.starts_with("UNC") => PathBuf::from(plain),
        _ => path,
    }
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

    // Unix paths: the emulator is a Linux shared library (on Windows,
    // `/w/...` is not an absolute path).
    #[cfg(unix)]
    #[test]
    fn emulator_is_searched_beside_the_program_never_the_working_folder() {
        let none = |_: &str| None;
        let exe = Path::new("/w/target/release/examples/saxpy");
        let dirs: Vec<PathBuf> = emulator_locations_from(Some(exe), &none)
            .into_iter()
            .map(|l| l.dir.unwrap())
            .collect();
        assert_eq!(
            dirs,
            [
                "/w/target/release/examples",
                "/w/target/release/examples/deps",
                "/w/target/release",
                "/w/target/release/deps"
            ]
            .map(PathBuf::from)
        );
        assert!(dirs.iter().all(|d| d.is_absolute()));
        let set = |k: &str| (k == OVERRIDE_VAR).then(|| PathBuf::from("/x/libhip_emu.so"));
        let only = emulator_locations_from(Some(exe), &set);
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].source, OVERRIDE_VAR);
        assert!(emulator_locations_from(None, &none).is_empty());
    }

    #[test]
    fn a_runtime_file_in_the_override_is_not_searched_for_libraries() {
        // A folder holding one empty file, removed at the end.
        #[allow(clippy::disallowed_methods)]
        let dir = std::env::temp_dir().join(format!("hip-sys-override-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let runtime = dir.join("libhip_emu.so");
        std::fs::write(&runtime, b"").unwrap();
        let runtime_text = runtime.to_str().unwrap();
        // The runtime's own search: the file alone.
        let env = env_of(&[(OVERRIDE_VAR, runtime_text), ("ROCM_PATH", "/r")]);
        let locs = amd_locations_from(Os::Unix, &env);
        assert_eq!(locs.len(), 1);
        assert_eq!(locs[0].dir.as_deref(), Some(runtime.as_path()));
        // A library's: the file's folder, then the default places.
        let locs = amd_library_locations_from(Os::Unix, &env);
        let dirs: Vec<_> = locs.iter().map(|l| l.dir.clone()).collect();
        assert_eq!(dirs[0].as_deref(), Some(dir.as_path()));
        assert_eq!(dirs[1].as_deref(), Some(Path::new("/r/lib")));
        assert!(dirs.iter().all(|d| d.as_deref() != Some(runtime.as_path())));
        assert_eq!(dirs.last(), Some(&None), "the system loader last");
        // A folder stays the only place for libraries too.
        let folder = env_of(&[(OVERRIDE_VAR, dir.to_str().unwrap()), ("ROCM_PATH", "/r")]);
        let locs = amd_library_locations_from(Os::Unix, &folder);
        assert_eq!(locs.len(), 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn override_is_the_only_location() {
        let locs = amd_locations_from(
            Os::Unix,
            &env_of(&[(OVERRIDE_VAR, "/x"), ("ROCM_PATH", "/r")]),
        );
        assert_eq!(locs.len(), 1);
        assert_eq!(locs[0].dir.as_deref(), Some(Path::new("/x")));
    }

    #[test]
    fn default_order_is_rocm_hip_opt_system() {
        let locs = amd_locations_from(
            Os::Unix,
            &env_of(&[("ROCM_PATH", "/r"), ("HIP_PATH", "/h")]),
        );
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
    fn windows_order_is_hip_path_rocm_path_path_entries_system() {
        let env = env_of(&[
            ("HIP_PATH", r"C:\Program Files\AMD\ROCm\6.1\"),
            ("ROCM_PATH", r"D:\rocm"),
            ("PATH", r"C:\a;;.\rel;C:\b"),
        ]);
        let locs = amd_locations_from(Os::Windows, &env);
        let got: Vec<(Option<PathBuf>, &str)> = locs
            .iter()
            .map(|l| (l.dir.clone(), l.source.as_str()))
            .collect();
        let p = |s: &str| Some(PathBuf::from(s));
        assert_eq!(
            got,
            vec![
                (
                    p(r"C:\Program Files\AMD\ROCm\6.1\").map(|d| d.join("bin")),
                    "HIP_PATH"
                ),
                (p(r"D:\rocm").map(|d| d.join("bin")), "ROCM_PATH"),
                (p(r"C:\a"), "PATH entry 1"),
                (p(""), "PATH entry 2"),
                (p(r".\rel"), "PATH entry 3"),
                (p(r"C:\b"), "PATH entry 4"),
                (None, "system loader"),
            ]
        );
        // The override still stands alone, and PATH is not read on Unix.
        let alone = amd_locations_from(
            Os::Windows,
            &env_of(&[(OVERRIDE_VAR, "C:\\x"), ("PATH", "C:\\a")]),
        );
        assert_eq!(alone.len(), 1);
        let unix = amd_locations_from(Os::Unix, &env_of(&[("PATH", "/usr/bin")]));
        assert!(
            unix.iter().all(|l| !l.source.starts_with("PATH")),
            "{unix:?}"
        );
        // No default folder on Windows: SDKs have no fixed place.
        assert_eq!(amd_locations_from(Os::Windows, &|_| None).len(), 1);
    }

    #[test]
    fn empty_path_entries_are_recorded_not_searched() {
        let locs = vec![Location {
            dir: Some(PathBuf::new()),
            source: "PATH entry 2".into(),
        }];
        let mut attempts = Vec::new();
        assert!(open_first("HIP runtime", &locs, &["x"], &mut attempts).is_none());
        assert_eq!(attempts.len(), 1);
        assert_eq!(attempts[0].outcome, Err(EMPTY.to_owned()));
    }

    #[test]
    fn missing_import_messages_name_the_dll() {
        let folders = vec![
            PathBuf::from("C:/sdk/bin"),
            PathBuf::from("C:/windows/system32"),
        ];
        let lib = Path::new("C:/sdk/bin/amdhip64_6.dll");
        let text = missing_imports_message(
            lib,
            &[
                ("amd_comgr_2.dll".into(), "amdhip64_6.dll".into()),
                ("x.dll".into(), "rocblas.dll".into()),
            ],
            &folders,
        );
        assert_eq!(
            text,
            "needs amd_comgr_2.dll and x.dll (imported by rocblas.dll), found in none of: C:/sdk/bin, C:/windows/system32"
        );
        assert_eq!(missing_import_in(&text), Some("amd_comgr_2.dll"));
        assert_eq!(missing_import_in("LoadLibraryExW: denied"), None);
    }

    #[test]
    fn missing_imports_are_read_from_the_files() {
        // hipblas.dll needs rocblas.dll (beside it), which needs a COMGR
        // that is nowhere; KERNEL32 is in the "system" folder.
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let root = std::env::temp_dir().join(format!("hip-sys-pe-{}", std::process::id()));
        let (bin, system) = (root.join("bin"), root.join("system32"));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&system).unwrap();
        let write =
            |p: PathBuf, names: &[&str]| std::fs::write(p, pe::image_importing(names)).unwrap();
        write(bin.join("hipblas.dll"), &["rocblas.dll", "KERNEL32.dll"]);
        write(
            bin.join("rocblas.dll"),
            &["amd_comgr.dll", "api-ms-win-crt-heap-l1-1-0.dll"],
        );
        write(system.join("KERNEL32.dll"), &["ntdll.dll"]);
        let folders = vec![bin.clone(), system.clone()];
        let missing = missing_imports(&bin.join("hipblas.dll"), &folders).unwrap();
        assert_eq!(
            missing,
            vec![("amd_comgr.dll".to_owned(), "rocblas.dll".to_owned())]
        );
        std::fs::write(bin.join("amd_comgr.dll"), b"MZ").unwrap();
        assert!(
            missing_imports(&bin.join("hipblas.dll"), &folders).is_err(),
            "a truncated import is read and reported"
        );
        write(bin.join("amd_comgr.dll"), &[]);
        assert_eq!(
            missing_imports(&bin.join("hipblas.dll"), &folders).unwrap(),
            vec![]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn relative_folders_are_never_searched() {
        // A library in a folder below the working folder, named relatively.
        // On Windows the temporary folder may sit on another drive than the
        // working folder, where no relative path reaches it: use one below
        // the working folder there.
        let cwd = std::env::current_dir().unwrap();
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let base = match Os::CURRENT {
            Os::Unix => std::env::temp_dir(),
            Os::Windows => cwd.clone(),
        };
        let dir = base.join(format!("hip-sys-relative-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        let relative = pathdiff(&dir, &cwd);
        let locs = amd_locations_from(
            Os::Unix,
            &env_of(&[("ROCM_PATH", relative.to_str().unwrap())]),
        );
        assert!(locs[0].dir.as_ref().unwrap().is_relative(), "{locs:?}");
        let mut attempts = Vec::new();
        let found = open_first(
            "HIP runtime",
            &locs[..1],
            &["libc.so.6", "msvcrt.dll"],
            &mut attempts,
        );
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
        let locs = amd_locations_from(Os::Unix, &env_of(&[(OVERRIDE_VAR, ""), ("ROCM_PATH", "")]));
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
        #[allow(clippy::disallowed_methods)] // a unit test's few files
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
