//! The facts only the loaded runtime can give: what was loaded, versions,
//! devices. Kept apart from the analysis so tests can fake them.

use hip_sys::loader::{Attempt, LoadedLibrary, Platform, Version};
use std::ffi::{c_char, CStr};
use std::path::PathBuf;

/// What the runtime says about itself and its devices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeFacts {
    /// The runtime loaded, or `None` when loading failed.
    pub loaded: Option<LoadedRuntime>,
    /// Why loading failed (`hip_sys::loader::LoadError`'s headline).
    pub load_problem: Option<String>,
    /// Every library path tried, in order, with the loader's result.
    pub attempts: Vec<Attempt>,
    /// `hipRuntimeGetVersion`'s value, or its error.
    pub runtime_version: Result<i32, String>,
    /// `hipDriverGetVersion`'s value, or its error.
    pub driver_version: Result<i32, String>,
    /// The devices, or why there are none (`hipGetDeviceCount`'s error).
    pub devices: Result<Vec<DeviceFacts>, String>,
    /// The collectives library (RCCL, or NCCL on NVIDIA) and its version,
    /// or why none was found (the loader core's headline).
    pub collectives: Result<CollectivesFacts, String>,
}

/// The collectives library the `rccl` crate loads (through `rccl-sys`'s
/// loader) and the NCCL API version it reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectivesFacts {
    /// `"RCCL"` or `"NCCL"`.
    pub role: &'static str,
    /// The file opened.
    pub path: PathBuf,
    /// The version in its file name, if any.
    pub file_version: Option<Version>,
    /// `ncclGetVersion`'s NCCL API version code (e.g. `21304` for 2.13.4),
    /// or why it could not be asked.
    pub api_version: Result<i32, String>,
}

/// The runtime that loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadedRuntime {
    /// The platform chosen.
    pub platform: Platform,
    /// Why that platform.
    pub reason: String,
    /// The libraries opened, the main runtime first.
    pub libraries: Vec<LoadedLibrary>,
    /// The version the loader recorded.
    pub version: Version,
}

/// One device's properties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceFacts {
    /// Ordinal, as the runtime numbers it.
    pub ordinal: i32,
    /// Marketing name.
    pub name: String,
    /// Architecture string (`gcnArchName`), e.g. `gfx90a:sramecc+:xnack-`;
    /// on NVIDIA, `sm_<major><minor>` when the runtime gives none.
    pub arch: String,
    /// Global memory in bytes.
    pub total_memory: u64,
    /// Compute units (AMD) or streaming multiprocessors (NVIDIA).
    pub compute_units: i32,
    /// Compute capability as the runtime reports it.
    pub compute_capability: (i32, i32),
    /// Why the properties could not be read, if they could not.
    pub error: Option<String>,
}

impl RuntimeFacts {
    /// Asks the process's runtime (loading it if needed).
    pub fn query() -> RuntimeFacts {
        let rt = match hip_sys::loader::runtime() {
            Ok(rt) => rt,
            Err(e) => {
                let text = e.to_string();
                let headline = match &e.problem {
                    Some(p) => p.to_string(),
                    None => text.split(';').next().unwrap_or(&text).to_owned(),
                };
                return RuntimeFacts {
                    loaded: None,
                    load_problem: Some(headline),
                    attempts: e.attempts.to_vec(),
                    runtime_version: Err("no runtime loaded".into()),
                    driver_version: Err("no runtime loaded".into()),
                    devices: Err("no runtime loaded".into()),
                    collectives: Err("no HIP runtime loaded".into()),
                };
            }
        };
        let loaded = LoadedRuntime {
            platform: rt.platform,
            reason: rt.platform_reason.clone(),
            libraries: rt.libraries.clone(),
            version: rt.version,
        };
        let mut runtime_version = 0;
        // SAFETY: `runtime_version` is a valid int to write to.
        let runtime_version =
            status(unsafe { hip_sys::hipRuntimeGetVersion(&mut runtime_version) })
                .map(|()| runtime_version);
        let mut driver_version = 0;
        // SAFETY: `driver_version` is a valid int to write to.
        let driver_version = status(unsafe { hip_sys::hipDriverGetVersion(&mut driver_version) })
            .map(|()| driver_version);
        let new_layout = rt.platform == Platform::Nvidia || rt.version.major >= 6;
        let mut count = 0;
        // SAFETY: `count` is a valid int to write to.
        let devices = status(unsafe { hip_sys::hipGetDeviceCount(&mut count) })
            .map(|()| (0..count).map(|i| device(i, new_layout)).collect());
        RuntimeFacts {
            loaded: Some(loaded),
            load_problem: None,
            attempts: rt.attempts.clone(),
            runtime_version,
            driver_version,
            devices,
            collectives: collectives(),
        }
    }
}

/// Loads the collectives library as the `rccl` crate does (from the
/// places the loaded platform's libraries are searched) and asks its
/// version, or returns the headline of the loader's report.
fn collectives() -> Result<CollectivesFacts, String> {
    let lib = rccl_sys::loader::rccl().map_err(|e| headline(&e.to_string()))?;
    let opened = lib.libraries.first();
    let api_version = if lib.is_available("ncclGetVersion") {
        let mut code = 0;
        // SAFETY: `code` is a valid place to write an int, and the library
        // is loaded (above).
        unsafe { rccl_sys::ncclGetVersion(&mut code) }
            .ok()
            .map(|()| code)
            .map_err(|e| format!("ncclGetVersion returned {e}"))
    } else {
        Err("the library has no ncclGetVersion".to_owned())
    };
    Ok(CollectivesFacts {
        role: opened.map_or(rccl_sys::loader::SPEC.name, |l| l.role),
        path: opened.map(|l| l.path.clone()).unwrap_or_default(),
        file_version: lib.version,
        api_version,
    })
}

/// The first line of a multi-line loader report (the rest lists every path
/// tried, which the report's own candidate list does for the runtime).
fn headline(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or(text)
        .trim_end_matches(':')
        .to_owned()
}

/// A status as `Ok`, or its name and the runtime's message.
fn status(s: hip_sys::hipError_t) -> Result<(), String> {
    if s == hip_sys::hipError_t::hipSuccess {
        return Ok(());
    }
    // SAFETY: hipGetErrorString returns a pointer to a static NUL-terminated
    // string (or null from a broken runtime, checked).
    let msg = unsafe { hip_sys::hipGetErrorString(s) };
    let msg = if msg.is_null() {
        String::new()
    } else {
        // SAFETY: non-null, NUL-terminated, static (above).
        unsafe { CStr::from_ptr(msg) }
            .to_string_lossy()
            .into_owned()
    };
    let name = format!("{s:?}");
    if msg.is_empty() || msg == name {
        Err(name)
    } else {
        Err(format!("{name}: {msg}"))
    }
}

/// A NUL-terminated string in a fixed array, read without going past it.
fn fixed_str(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars
        .iter()
        .take_while(|c| **c != 0)
        .map(|c| *c as u8)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Reads one device's properties with the struct layout of the loaded
/// runtime: `hipDeviceProp_tR0600` from ROCm 6 (and the NVIDIA backend),
/// the older `hipDeviceProp_tR0000` before.
fn device(ordinal: i32, new_layout: bool) -> DeviceFacts {
    let mut facts = DeviceFacts {
        ordinal,
        name: String::new(),
        arch: String::new(),
        total_memory: 0,
        compute_units: 0,
        compute_capability: (0, 0),
        error: None,
    };
    macro_rules! fill {
        ($props:expr, $call:path) => {{
            let mut props = $props;
            // SAFETY: `props` is a writable struct of the layout this
            // entry point fills (chosen from the runtime's version above).
            match status(unsafe { $call(&mut props, ordinal) }) {
                Ok(()) => {
                    facts.name = fixed_str(&props.name);
                    facts.arch = fixed_str(&props.gcnArchName);
                    facts.total_memory = props.totalGlobalMem as u64;
                    facts.compute_units = props.multiProcessorCount;
                    facts.compute_capability = (props.major, props.minor);
                }
                Err(e) => facts.error = Some(e),
            }
        }};
    }
    if new_layout {
        fill!(
            hip_sys::hipDeviceProp_tR0600::default(),
            hip_sys::hipGetDevicePropertiesR0600
        );
    } else {
        fill!(
            hip_sys::hipDeviceProp_tR0000::default(),
            hip_sys::hipGetDevicePropertiesR0000
        );
    }
    if facts.arch.is_empty() && facts.error.is_none() && facts.compute_capability.0 > 0 {
        let (major, minor) = facts.compute_capability;
        facts.arch = format!("sm_{major}{minor}");
    }
    facts
}
