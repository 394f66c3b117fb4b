//! The NVIDIA platform backend: NCCL (`libnccl.so.2`), which declares
//! RCCL's functions under the same names with the same arguments (RCCL is a
//! port of NCCL), so the table is resolved from NCCL by name: a
//! pass-through for every function both declare. `hipStream_t` and `cudaStream_t` are both
//! the opaque stream pointer of the runtime HIP runs on (on this platform,
//! CUDA's), and every enum value the two headers share is equal, which
//! `tests/tier1_nccl_enumerators.rs` checks against NCCL's own `nccl.h`.
//!
//! RCCL's own calls ([`RCCL_ONLY`]) are not looked up: NCCL has no such
//! symbols, and a same-named symbol of some other build must not be called
//! with RCCL's arguments. `ncclAllToAll` is among them: NCCL has none
//! before 2.28, and names its own `ncclAlltoAll` from then on. Four of
//! them are built here from NCCL's grouped `ncclSend`/`ncclRecv`
//! ([`ADAPTERS`], in [`rccl_only`]);
//! `ncclCommInitRankMulti` (several ranks on one GPU) has no NCCL
//! counterpart and stays unavailable (`ncclInvalidUsage`).
//!
//! A sibling of the AMD backend ([`crate::amd`]): both return the loader
//! core's [`Loaded`] table; neither imports the loader.

#[cfg(test)]
mod coverage;
mod rccl_only;

use crate::generated::functions::RcclFunctions;
use hip_sys::loader::common::{symbol_address, Loaded, Platform};
use std::ffi::{c_void, CStr};
use std::path::Path;
use std::sync::Arc;

/// The bound functions that only RCCL provides.
pub(crate) const RCCL_ONLY: &[&str] = &[
    "ncclAllToAll",
    "ncclAllToAllv",
    "ncclCommInitRankMulti",
    "ncclGather",
    "ncclScatter",
];

/// The RCCL-only bindings this backend implements over NCCL.
pub(crate) const ADAPTERS: &[&str] =
    &["ncclAllToAll", "ncclAllToAllv", "ncclGather", "ncclScatter"];

/// Fills the RCCL-only entries this backend implements.
fn install_adapters(table: &mut RcclFunctions) {
    table.ncclAllToAll = Some(rccl_only::all_to_all);
    table.ncclAllToAllv = Some(rccl_only::all_to_all_v);
    table.ncclGather = Some(rccl_only::gather);
    table.ncclScatter = Some(rccl_only::scatter);
}

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
    let mut table = unsafe { RcclFunctions::resolve(&mut lookup) };
    rccl_only::NCCL.fill(lib);
    install_adapters(&mut table);
    Loaded::one_library(Platform::Nvidia, "NCCL", lib, path, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adapters_fill_every_rccl_only_entry_but_init_rank_multi() {
        let mut table = RcclFunctions::EMPTY;
        install_adapters(&mut table);
        assert_eq!(table.available_count(), ADAPTERS.len());
        for name in ADAPTERS {
            assert!(RCCL_ONLY.contains(name), "{name}");
            assert!(table.is_available(name), "{name}");
        }
        assert!(!table.is_available("ncclCommInitRankMulti"));
    }

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
