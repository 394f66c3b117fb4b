//! The AMD platform backend: the HIP runtime (`libamdhip64`) and hiprtc,
//! with every symbol resolved once into the function table.
//!
//! A sibling of the NVIDIA backend ([`crate::nvidia`]): both return the
//! loader core's [`Loaded`] table and import nothing from the loader that
//! chooses between them.

use crate::generated::functions::{HipFunctions, LEGACY_SYMBOLS};
use crate::loader::common::{symbol_address, Loaded, LoadedLibrary, Platform, Version};
use crate::loader::search::{self, Attempt, Location, Os};
use std::ffi::{c_void, CStr};
use std::sync::Arc;

/// The HIP runtime's file names on `os`, newest first.
///
/// Windows: AMD's HIP SDK for Windows (and the graphics driver, in
/// System32) name the runtime by major version: `amdhip64.dll` up to SDK
/// 5.7, `amdhip64_6.dll` from 6.0 (AMD's Windows install guide, in
/// ROCm/rocm-install-on-windows, says it replaced `amdhip64.dll`),
/// `amdhip64_7.dll` from 7.0 (the SDK 7.1 `bin` folders bundled by
/// projects that ship ROCm on Windows).
pub(crate) const fn runtime_names(os: Os) -> &'static [&'static str] {
    match os {
        Os::Windows => &["amdhip64_7.dll", "amdhip64_6.dll", "amdhip64.dll"],
        Os::Unix => &[
            "libamdhip64.so.7",
            "libamdhip64.so.6",
            "libamdhip64.so.5",
            "libamdhip64.so",
        ],
    }
}

/// The file name of hiprtc for a runtime of `version` on `os`, or `None`
/// where hiprtc lives inside the runtime.
///
/// Linux: ROCm 6 split hiprtc out of `libamdhip64` as `libhiprtc.so.6`;
/// ROCm 5 keeps it inside. Windows: every HIP SDK since 5.x ships it as a
/// separate DLL named by major and minor version, two digits each,
/// `hiprtc0507.dll` (SDK 5.7), `hiprtc0601.dll`, `hiprtc0602.dll`,
/// `hiprtc0604.dll`, `hiprtc0701.dll` (the lists of names HIPRT, Blender's
/// HIP loader and ZLUDA's launcher try), beside a `hiprtc-builtinsMMmm.dll`
/// it loads itself.
pub(crate) fn hiprtc_name(os: Os, version: Version) -> Option<String> {
    match os {
        Os::Windows if version.major >= 5 => Some(format!(
            "hiprtc{:02}{:02}.dll",
            version.major, version.minor
        )),
        Os::Unix if version.major >= 6 => Some(format!("libhiprtc.so.{}", version.major)),
        _ => None,
    }
}

/// Opens the HIP runtime (and hiprtc beside it, where it is a file of its
/// own: see [`hiprtc_name`]) and resolves
/// the table; `None` when no runtime opens (every try is in `attempts`).
pub(crate) fn load(attempts: &mut Vec<Attempt>) -> Option<Loaded<HipFunctions>> {
    load_from(
        &search::amd_locations(),
        runtime_names(Os::CURRENT),
        attempts,
    )
}

/// The software AMD GPU's file name on `os` (the `hip-emu` crate's cdylib).
pub(crate) const fn emulator_names(os: Os) -> &'static [&'static str] {
    match os {
        Os::Windows => &["hip_emu.dll"],
        Os::Unix => &["libhip_emu.so"],
    }
}

/// `HIP_PLATFORM=emulated`: the software AMD GPU (`hip-emu`), loaded
/// through the AMD backend exactly as ROCm's runtime is, from
/// [`search::emulator_locations`].
pub(crate) fn load_emulated(attempts: &mut Vec<Attempt>) -> Option<Loaded<HipFunctions>> {
    load_from(
        &search::emulator_locations(),
        emulator_names(Os::CURRENT),
        attempts,
    )
}

fn load_from(
    locations: &[Location],
    names: &[&str],
    attempts: &mut Vec<Attempt>,
) -> Option<Loaded<HipFunctions>> {
    let (runtime, runtime_path) = search::open_first("HIP runtime", locations, names, attempts)?;
    let version = runtime_version(&runtime, &runtime_path);

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
    let hiprtc = hiprtc_name(Os::CURRENT, version)
        .and_then(|name| search::open_first("hiprtc", &rtc_locations, &[name.as_str()], attempts));

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hiprtc_names_per_system_and_version() {
        let v = |major, minor| Version {
            major,
            minor,
            patch: 0,
        };
        assert_eq!(
            hiprtc_name(Os::Windows, v(5, 7)).as_deref(),
            Some("hiprtc0507.dll")
        );
        assert_eq!(
            hiprtc_name(Os::Windows, v(6, 1)).as_deref(),
            Some("hiprtc0601.dll")
        );
        assert_eq!(
            hiprtc_name(Os::Windows, v(7, 1)).as_deref(),
            Some("hiprtc0701.dll")
        );
        assert_eq!(
            hiprtc_name(Os::Windows, v(6, 12)).as_deref(),
            Some("hiprtc0612.dll")
        );
        assert_eq!(hiprtc_name(Os::Unix, v(5, 7)), None);
        assert_eq!(
            hiprtc_name(Os::Unix, v(6, 4)).as_deref(),
            Some("libhiprtc.so.6")
        );
        assert_eq!(runtime_names(Os::Windows)[1], "amdhip64_6.dll");
        assert_eq!(runtime_names(Os::Unix)[0], "libamdhip64.so.7");
    }
}
