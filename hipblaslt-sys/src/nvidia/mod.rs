//! The NVIDIA platform backend: hipBLASLt's functions over cuBLASLt
//! (`libcublasLt.so.13`, else `.so.12`), one adapter per function, which
//! maps attribute numbers, operations and compute types ([`convert`]) and
//! the matmul algorithm (24 bytes in hipBLASLt, 64 in cuBLASLt), and
//! translates the status. The adapters of functions with cuBLASLt's
//! arguments in cuBLASLt's order are generated
//! (`src/generated/nvidia/adapters.rs`, from the `[nvidia]` table of
//! `build.rs-tools/generator/libraries/hipblaslt.toml`, each line checked
//! against cublasLt.h, expanded by hip-sys's adapter kit); the others are
//! written by hand ([`hand_written`], which says why for each). A function cuBLASLt lacks
//! (`hipblasLtGetGitRevision`, `hipblasLtGetArchName`, the `hipblaslt*`
//! extensions) stays `None`, so it returns `HIPBLAS_STATUS_NOT_SUPPORTED`.
//!
//! A sibling of the AMD backend ([`crate::amd`]): both return the loader
//! core's [`Loaded`] table; neither imports the loader.

#[path = "../generated/nvidia/adapters.rs"]
mod adapters;
mod convert;
#[cfg(test)]
mod coverage;
#[cfg(test)]
#[path = "../generated/nvidia/cublaslt_enumerators.rs"]
mod cublaslt_enumerators;
mod hand_written;

use crate::generated::functions::HipblasltFunctions;
use hip_sys::loader::common::{LibrarySlot, Loaded, Platform};
use std::path::Path;
use std::sync::Arc;

/// (hipBLASLt binding, cuBLASLt symbol) for every function the backend
/// implements: the generated adapters, then those written by hand.
pub(crate) const ADAPTERS: [(&str, &str);
    adapters::ADAPTERS.len() + hand_written::HAND_WRITTEN.len()] =
    joined(adapters::ADAPTERS, hand_written::HAND_WRITTEN);

/// `a` then `b`, as an array of `N` rows (`N` must be their total).
const fn joined<const N: usize>(
    a: &[(&'static str, &'static str)],
    b: &[(&'static str, &'static str)],
) -> [(&'static str, &'static str); N] {
    assert!(a.len() + b.len() == N);
    let mut out = [("", ""); N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// The cuBLASLt library every adapter's symbol is resolved in.
pub(crate) static CUBLASLT: LibrarySlot = LibrarySlot::new("cuBLASLt");

/// Fills the table with the adapters from the cuBLASLt library the loader
/// core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<HipblasltFunctions> {
    CUBLASLT.fill(lib);
    let mut table = HipblasltFunctions::EMPTY;
    adapters::install(&mut table);
    hand_written::install(&mut table);
    Loaded::one_library(Platform::Nvidia, "cuBLASLt", lib, path, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `hipblasLt*` function but the two with no cuBLASLt counterpart
    /// has an adapter; no `hipblaslt*` extension has one.
    #[test]
    fn every_core_binding_but_two_has_an_adapter() {
        let adapted: Vec<&str> = ADAPTERS.iter().map(|(h, _)| *h).collect();
        for name in crate::FUNCTION_NAMES {
            let expected = name.starts_with("hipblasLt")
                && !["hipblasLtGetGitRevision", "hipblasLtGetArchName"].contains(&name);
            assert_eq!(adapted.contains(&name), expected, "{name}");
        }
        assert_eq!(adapted.len(), 22);
        assert_eq!(adapters::ADAPTERS.len(), 11, "generated");
    }

    #[test]
    fn without_cublaslt_nothing_is_installed() {
        // The slot is empty in this test process (no cuBLASLt was loaded).
        let mut table = HipblasltFunctions::EMPTY;
        if !CUBLASLT.is_filled() {
            adapters::install(&mut table);
            hand_written::install(&mut table);
            assert_eq!(table.available_count(), 0);
        }
    }
}
