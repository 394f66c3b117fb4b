//! The AMD platform backend: `libhipblas`, every symbol resolved once into
//! the table, each `...Ex` binding from the symbol of its ABI
//! ([`DatatypeAbi`]).
//!
//! A sibling of the NVIDIA backend ([`crate::nvidia`]): both return the
//! loader core's [`Loaded`] table; neither imports the loader.

use crate::abi::{symbol_for, DatatypeAbi};
use crate::generated::functions::HipblasFunctions;
use hip_sys::loader::common::{symbol_address, Loaded, LoadedLibrary, Platform, Version};
use std::ffi::{c_void, CStr};
use std::path::Path;
use std::sync::Arc;

/// Resolves the table from the hipBLAS library the loader core opened, and
/// says which `GemmEx` ABI it was bound with.
pub(crate) fn load(
    lib: &Arc<libloading::Library>,
    path: &Path,
) -> (Loaded<HipblasFunctions>, DatatypeAbi) {
    let version = Version::from_file_name(path);
    let has_v2 = !symbol_address(lib, "hipblasGemmEx_v2").is_null();
    let abi = DatatypeAbi::for_library(version.map(|v| v.major), has_v2);
    let mut lookup = |name: &'static CStr| -> *mut c_void {
        let binding = name.to_str().unwrap_or("");
        match symbol_for(binding, abi) {
            Some(symbol) => {
                let own = symbol_address(lib, &symbol);
                if own.is_null() && symbol != binding {
                    // A 3.x library that still exports the `_v2` name.
                    symbol_address(lib, binding)
                } else {
                    own
                }
            }
            None => std::ptr::null_mut(),
        }
    };
    // SAFETY: each binding is resolved from the symbol that has its
    // signature in this library version (see `symbol_for`): the same name,
    // or for a `_v2` binding on hipBLAS 3.x the plain name, which there is
    // declared with the v2 signature.
    let table = unsafe { HipblasFunctions::resolve(&mut lookup) };
    let loaded = Loaded {
        platform: Platform::Amd,
        libraries: vec![LoadedLibrary {
            role: "hipBLAS",
            path: path.to_path_buf(),
        }],
        version,
        table,
        handles: vec![Arc::clone(lib)],
    };
    (loaded, abi)
}
