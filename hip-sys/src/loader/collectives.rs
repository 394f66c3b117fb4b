//! The collectives library (RCCL on AMD, NCCL on NVIDIA) as the loader
//! core knows it.
//!
//! Declared here, in the leaf every -sys crate loads through, rather than
//! in `rccl-sys` alone: `rccl-sys` loads it by this [`RCCL`] spec, and
//! `hip`'s diagnostics report probes it with [`probe_collectives`]
//! without depending on `rccl-sys` (which would make every `hip` user
//! build the collectives bindings, and close a loop with `rccl-sys`'s own
//! tests, which use `hip`).

use super::common::{symbol_address, LibraryNames, LibrarySpec, Loaded, LoadedLibrary, Version};
use super::{load_library, LibraryError, Platform};
use std::ffi::c_int;
use std::path::PathBuf;
use std::sync::Arc;

/// RCCL's file names per platform and what to install when they are
/// missing (`rccl_sys::loader::SPEC` is this).
pub const RCCL: LibrarySpec = LibrarySpec {
    name: "RCCL",
    amd: LibraryNames {
        role: "RCCL",
        unix: &["librccl.so.1", "librccl.so"],
        windows: &["rccl.dll"],
    },
    nvidia: LibraryNames {
        role: "NCCL",
        unix: &["libnccl.so.2", "libnccl.so"],
        // NCCL is not released for Windows.
        windows: &[],
    },
    amd_hint: "Install RCCL (e.g. Debian's librccl1).",
    nvidia_hint: "Install NCCL (libnccl.so.2, e.g. from the nvidia-nccl-cu12 wheel or the libnccl2 package) where the system loader finds it.",
};

/// What probing the collectives library found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectivesProbe {
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

/// Opens the collectives library from the places the loaded platform's
/// libraries are searched and asks its version (`ncclGetVersion`), or
/// returns the loader core's report of every path tried.
pub fn probe_collectives() -> Result<CollectivesProbe, LibraryError> {
    let lib = load_library(&RCCL, |platform, lib, path| {
        let role = match platform {
            Platform::Amd => RCCL.amd.role,
            Platform::Nvidia => RCCL.nvidia.role,
        };
        Ok(Loaded {
            platform,
            libraries: vec![LoadedLibrary {
                role,
                path: path.to_path_buf(),
            }],
            version: Version::from_file_name(path),
            table: api_version(lib),
            handles: vec![Arc::clone(lib)],
        })
    })?;
    let opened = lib.libraries.first().cloned();
    Ok(CollectivesProbe {
        role: opened.as_ref().map_or(RCCL.name, |l| l.role),
        path: opened.map(|l| l.path).unwrap_or_default(),
        file_version: lib.version,
        api_version: lib.table,
    })
}

/// `ncclGetVersion` of `lib`, or why not.
fn api_version(lib: &libloading::Library) -> Result<i32, String> {
    let address = symbol_address(lib, "ncclGetVersion");
    if address.is_null() {
        return Err("the library has no ncclGetVersion".to_owned());
    }
    type GetVersion = unsafe extern "C" fn(*mut c_int) -> u32;
    // SAFETY: `ncclGetVersion` is `ncclResult_t ncclGetVersion(int*)` in
    // RCCL's and NCCL's headers (`ncclResult_t` is a C enum, an unsigned
    // int), and the address is that symbol's, non-null.
    let get: GetVersion =
        unsafe { std::mem::transmute::<*mut std::ffi::c_void, GetVersion>(address) };
    let mut version: c_int = 0;
    // SAFETY: `version` is a valid place to write an int.
    let status = unsafe { get(&mut version) };
    if status == 0 {
        Ok(version)
    } else {
        Err(format!("ncclGetVersion returned status {status}"))
    }
}

/// An NCCL version code as `major.minor.patch`: `major*10000 +
/// minor*100 + patch` from NCCL 2.9 on, `major*1000 + minor*100 + patch`
/// before.
pub fn nccl_version_text(code: i32) -> String {
    if code >= 10000 {
        format!("{}.{}.{}", code / 10000, code / 100 % 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, code / 100 % 10, code % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_codes_of_both_schemes() {
        assert_eq!(nccl_version_text(21304), "2.13.4");
        assert_eq!(nccl_version_text(22803), "2.28.3");
        assert_eq!(nccl_version_text(2804), "2.8.4");
    }

    #[test]
    fn the_spec_names_both_platforms_files() {
        assert_eq!(RCCL.amd.unix[0], "librccl.so.1");
        assert_eq!(RCCL.nvidia.unix[0], "libnccl.so.2");
    }
}
