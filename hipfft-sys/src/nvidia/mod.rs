//! The NVIDIA platform backend: hipFFT's functions over cuFFT
//! (`libcufft.so.12`), one adapter per function (`src/generated/nvidia/adapters.rs`,
//! written from the `[nvidia]` table of `build.rs-tools/generator/libraries/hipfft.toml`
//! by `cargo run -p hip-generator -- nvidia-tables`, which checks each line
//! against cufft.h and cufftXt.h, and expanded by hip-sys's adapter kit),
//! which converts the plan handle (a pointer in hipFFT, an `int` in cuFFT)
//! and the one enum value that differs ([`convert`]) and translates the status.
//! A function cuFFT lacks (`hipfftExtPlanScaleFactor`, or any symbol the
//! loaded cuFFT does not export, such as the legacy callback calls that
//! CUDA 13's cuFFT dropped) stays `None`, so it returns
//! `HIPFFT_NOT_IMPLEMENTED`.
//!
//! A sibling of the AMD backend ([`crate::amd`]): both return the loader
//! core's [`Loaded`] table; neither imports the loader.

#[path = "../generated/nvidia/adapters.rs"]
mod adapters;
mod convert;
#[cfg(test)]
mod coverage;
#[cfg(test)]
#[path = "../generated/nvidia/cufft_enumerators.rs"]
mod cufft_enumerators;

use crate::generated::functions::HipfftFunctions;
use hip_sys::loader::common::{LibrarySlot, Loaded, Platform};
use std::path::Path;
use std::sync::Arc;

pub(crate) use adapters::ADAPTERS;

/// The cuFFT library every adapter's symbol is resolved in.
pub(crate) static CUFFT: LibrarySlot = LibrarySlot::new("cuFFT");

/// Fills the table with the adapters from the cuFFT library the loader core
/// opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<HipfftFunctions> {
    CUFFT.fill(lib);
    let mut table = HipfftFunctions::EMPTY;
    adapters::install(&mut table);
    Loaded::one_library(Platform::Nvidia, "cuFFT", lib, path, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_binding_but_the_scale_factor_has_an_adapter() {
        let adapted: Vec<&str> = ADAPTERS.iter().map(|(h, _)| *h).collect();
        for name in crate::FUNCTION_NAMES {
            assert_eq!(
                adapted.contains(&name),
                name != "hipfftExtPlanScaleFactor",
                "{name}"
            );
        }
        for (hip, cu) in ADAPTERS {
            assert_eq!(
                hip.strip_prefix("hipfft"),
                cu.strip_prefix("cufft"),
                "{hip} => {cu}"
            );
        }
    }

    #[test]
    fn without_cufft_nothing_is_installed() {
        // The slot is empty in this test process (no cuFFT was loaded).
        let mut table = HipfftFunctions::EMPTY;
        if !CUFFT.is_filled() {
            adapters::install(&mut table);
            assert_eq!(table.available_count(), 0);
        }
    }
}
