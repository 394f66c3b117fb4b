//! The NVIDIA platform backend: hipSOLVER's functions over cuSOLVER
//! (`libcusolver.so.12`), one adapter per function that has a cuSOLVER
//! counterpart (`src/generated/nvidia/adapters.rs`, written from the
//! `[nvidia]` table of `build.rs-tools/generator/libraries/hipsolver.toml` by
//! `cargo run -p hip-generator -- nvidia-tables`, which checks each line
//! against cuSOLVER's headers, and expanded by hip-sys's adapter kit), which
//! translates the enum values and the status ([`convert`]). The `hipsolverDn*`, `hipsolverRf*` and
//! `hipsolverSp*` APIs are cuSOLVER's under another prefix; hipSOLVER's own
//! API (`hipsolverSgetrf`, ...) maps to the `cusolverDn*` call of the same
//! routine, dropping the workspace arguments cuSOLVER does not take; its
//! size queries for routines that need no workspace there report 0
//! ([`zero_workspace`]). A
//! function without a counterpart (`hipsolverSpScsrlsvqr`, whose tolerance
//! is a `double` where cuSOLVER's is a `float`), or whose symbol the loaded
//! cuSOLVER does not export, stays `None`, so it returns
//! `HIPSOLVER_STATUS_NOT_SUPPORTED`.
//!
//! A sibling of the AMD backend ([`crate::amd`]): both return the loader
//! core's [`Loaded`] table; neither imports the loader.

#[path = "../generated/nvidia/adapters.rs"]
mod adapters;
mod convert;
#[cfg(test)]
mod coverage;
#[cfg(test)]
#[path = "../generated/nvidia/cusolver_enumerators.rs"]
mod cusolver_enumerators;
mod zero_workspace;

use crate::generated::functions::HipsolverFunctions;
use hip_sys::loader::common::{LibrarySlot, Loaded, Platform};
use std::path::Path;
use std::sync::Arc;

pub(crate) use adapters::ADAPTERS;
pub(crate) use zero_workspace::ZERO_WORKSPACE;

/// The cuSOLVER library every adapter's symbol is resolved in.
pub(crate) static CUSOLVER: LibrarySlot = LibrarySlot::new("cuSOLVER");

/// Fills the table with the adapters from the cuSOLVER library the loader
/// core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<HipsolverFunctions> {
    CUSOLVER.fill(lib);
    let mut table = HipsolverFunctions::EMPTY;
    adapters::install(&mut table);
    zero_workspace::install_zero_workspace(&mut table);
    Loaded::one_library(Platform::Nvidia, "cuSOLVER", lib, path, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adapters_pair_names_by_api() {
        for (hip, cu) in ADAPTERS {
            let stem = if let Some(s) = hip.strip_prefix("hipsolverDn") {
                s
            } else if let Some(s) = hip.strip_prefix("hipsolverRf") {
                if *hip == "hipsolverRfGet_Algs" {
                    assert_eq!(*cu, "cusolverRfGetAlgs");
                    continue;
                }
                assert_eq!(cu.strip_prefix("cusolverRf"), Some(s), "{hip} => {cu}");
                continue;
            } else if let Some(s) = cu.strip_prefix("cusolverSp") {
                assert_eq!(hip.strip_prefix("hipsolverSp"), Some(s), "{hip} => {cu}");
                continue;
            } else {
                hip.strip_prefix("hipsolver").unwrap()
            };
            assert_eq!(cu.strip_prefix("cusolverDn"), Some(stem), "{hip} => {cu}");
        }
    }

    #[test]
    fn at_least_95_percent_of_the_bindings_are_covered() {
        let covered = ADAPTERS.len() + ZERO_WORKSPACE.len();
        let total = crate::FUNCTION_NAMES.len();
        assert!(covered * 100 >= total * 95, "{covered} of {total}");
        for name in ZERO_WORKSPACE {
            assert!(name.ends_with("_bufferSize"), "{name}");
            assert!(!ADAPTERS.iter().any(|(h, _)| h == name), "{name}");
        }
    }

    #[test]
    fn without_cusolver_nothing_is_installed() {
        // The slot is empty in this test process (no cuSOLVER was loaded).
        let mut table = HipsolverFunctions::EMPTY;
        if !CUSOLVER.is_filled() {
            adapters::install(&mut table);
            assert_eq!(table.available_count(), 0);
        }
    }
}
