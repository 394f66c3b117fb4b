//! The AMD platform backend: the HIP runtime (`libamdhip64`) and hiprtc,
//! with every symbol resolved once into the function table.
//!
//! A sibling of the NVIDIA backend ([`crate::nvidia`]): both return the
//! loader core's [`Loaded`] table and import nothing from the loader that
//! chooses between them.

use crate::generated::functions::{HipFunctions, LEGACY_SYMBOLS};
use crate::loader::common::{symbol_address, Loaded, LoadedLibrary, Platform, Version};
use crate::loader::search::{self, Attempt, Location};
use std::ffi::{c_void, CStr};
use std::sync::Arc;

const AMDHIP64: &[&str] = if cfg!(windows) {
    &["amdhip64_7.dll", "amdhip64_6.dll", "amdhip64.dll"]
} else {
    &[
        "libamdhip64.so.7",
        "libamdhip64.so.6",
        "libamdhip64.so.5",
        "libamdhip64.so",
    ]
};

/// Opens the HIP runtime (and, from ROCm 6, hiprtc beside it) and resolves
/// the table; `None` when no runtime opens (every try is in `attempts`).
pub(crate) fn load(attempts: &mut Vec<Attempt>) -> Option<Loaded<HipFunctions>> {
    let locations = search::amd_locations();
    let (runtime, runtime_path) =
        search::open_first("HIP runtime", &locations, AMDHIP64, attempts)?;
    let version = runtime_version(&runtime, &runtime_path);

    // hiprtc: ROCm 6 ships it apart, beside the runtime and of the same
    // major version; ROCm 5 keeps it inside libamdhip64.
    let rtc_name = if cfg!(windows) {
        format!("hiprtc0{}0{}.dll", version.major, version.minor)
    } else {
        format!("libhiprtc.so.{}", version.major)
    };
    let mut rtc_locations = Vec::new();
    if let Some(dir) = runtime_path.parent() {
        rtc_locations.push(Location {
            dir: Some(dir.to_path_buf()),
            source: "beside the HIP runtime".into(),
        });
    }
    rtc_locations.push(Location {
        dir: None,
        source: "system loader".into(),
    });
    let hiprtc = if version.major >= 6 {
        search::open_first("hiprtc", &rtc_locations, &[rtc_name.as_str()], attempts)
    } else {
        None
    };

    let table = {
        let mut lookup = |name: &'static CStr| -> *mut c_void {
            let text = name.to_str().unwrap_or("");
            let symbol = LEGACY_SYMBOLS
                .iter()
                .find(|(binding, _, before)| *binding == text && version.major < *before)
                .map(|(_, legacy, _)| *legacy)
                .unwrap_or(text);
            if text.starts_with("hiprtc") {
                if let Some((lib, _)) = &hiprtc {
                    let p = symbol_address(lib, symbol);
                    if !p.is_null() {
                        return p;
                    }
                }
            }
            symbol_address(&runtime, symbol)
        };
        // SAFETY: each symbol is looked up by the name of the C function the
        // table field was generated from, in AMD's own libraries, so it has
        // that declaration's signature.
        unsafe { HipFunctions::resolve(&mut lookup) }
    };

    let mut libraries = vec![LoadedLibrary {
        role: "HIP runtime",
        path: runtime_path,
    }];
    let mut handles = vec![Arc::new(runtime)];
    if let Some((lib, path)) = hiprtc {
        libraries.push(LoadedLibrary {
            role: "hiprtc",
            path,
        });
        handles.push(Arc::new(lib));
    }
    Some(Loaded {
        platform: Platform::Amd,
        libraries,
        version: Some(version),
        table,
        handles,
    })
}

/// The runtime's own answer when it gives one, else the file name's.
fn runtime_version(lib: &libloading::Library, path: &std::path::Path) -> Version {
    let f = symbol_address(lib, "hipRuntimeGetVersion");
    if !f.is_null() {
        // SAFETY: `hipRuntimeGetVersion(int*)` in every HIP release.
        let f: unsafe extern "C" fn(*mut i32) -> crate::hipError_t =
            unsafe { std::mem::transmute(f) };
        let mut v = 0i32;
        // SAFETY: `v` is a valid `int` to write to.
        if unsafe { f(&mut v) }.is_success() && v > 0 {
            return Version::from_hip(v);
        }
    }
    Version::from_file_name(path).unwrap_or_default()
}
