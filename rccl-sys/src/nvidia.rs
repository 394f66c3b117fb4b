//! The NVIDIA platform backend: NCCL (`libnccl.so.2`), which declares
//! RCCL's functions under the same names with the same arguments (RCCL is a
//! port of NCCL), so the table is resolved from NCCL by name: a
//! pass-through with no adapter. `hipStream_t` and `cudaStream_t` are both
//! the opaque stream pointer of the runtime HIP runs on (on this platform,
//! CUDA's), and every enum value the two headers share is equal, which
//! `tests/tier1_nccl_enumerators.rs` checks against NCCL's own `nccl.h`.
//!
//! RCCL's own calls ([`RCCL_ONLY`]) are not looked up: NCCL has no such
//! symbols, and a same-named symbol of some other build must not be called
//! with RCCL's arguments. They stay unavailable and return
//! `ncclInvalidUsage`.
//!
//! A sibling of the AMD backend ([`crate::amd`]): both return the loader
//! core's [`Loaded`] table; neither imports the loader.

use crate::generated::functions::RcclFunctions;
use hip_sys::loader::common::{symbol_address, Loaded, LoadedLibrary, Platform, Version};
use std::ffi::{c_void, CStr};
use std::path::Path;
use std::sync::Arc;

/// The bound functions that only RCCL provides.
pub(crate) const RCCL_ONLY: &[&str] = &[
    "ncclAllToAllv",
    "ncclCommInitRankMulti",
    "ncclGather",
    "ncclScatter",
];

/// Resolves the table from the NCCL library the loader core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<RcclFunctions> {
    let mut lookup = |name: &'static CStr| -> *mut c_void {
        let name = name.to_str().unwrap_or("");
        if RCCL_ONLY.contains(&name) {
            std::ptr::null_mut()
        } else {
            symbol_address(lib, name)
        }
    };
    // SAFETY: every name but RCCL's own is looked up in NCCL, whose
    // `nccl.h` declares it with the same parameters and return type as
    // `rccl/rccl.h` (RCCL keeps NCCL's API; the enum values are checked
    // equal by tests/tier1_nccl_enumerators.rs, and the stream is CUDA's,
    // which HIP's stream is on this platform).
    let table = unsafe { RcclFunctions::resolve(&mut lookup) };
    Loaded {
        platform: Platform::Nvidia,
        libraries: vec![LoadedLibrary {
            role: "NCCL",
            path: path.to_path_buf(),
        }],
        version: Version::from_file_name(path),
        table,
        handles: vec![Arc::clone(lib)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rccl_only_names_are_bound_functions() {
        for name in RCCL_ONLY {
            assert!(
                crate::FUNCTION_NAMES.contains(name),
                "{name} is not a binding"
            );
        }
    }
}
