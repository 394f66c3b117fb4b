//! The NVIDIA platform backend: cuRAND (`libcurand.so.10`) behind adapters
//! with hipRAND's signatures (`src/generated/nvidia/adapters.rs`, written
//! from the `[nvidia]` table of `build.rs-tools/generator/libraries/hiprand.toml`
//! by `cargo run -p hip-generator -- nvidia-tables`, which checks each line
//! against curand.h, and expanded by hip-sys's adapter kit): enum arguments
//! translated to cuRAND's values and statuses back ([`convert`], from tables whose
//! cuRAND side the generator reads from `curand.h`), handles and pointers
//! passed through. cuRAND has no 8-bit, 16-bit or half-precision
//! generation: those hipRAND functions stay unfilled and return
//! `HIPRAND_STATUS_NOT_IMPLEMENTED` ([`coverage`]).
//!
//! A sibling of the AMD backend ([`crate::amd`]): both return the loader
//! core's [`Loaded`] table; neither imports the loader.

#[path = "../generated/nvidia/adapters.rs"]
mod adapters;
mod convert;
mod coverage;
#[path = "../generated/nvidia/curand_values.rs"]
mod curand_values;

use crate::generated::functions::HiprandFunctions;
use hip_sys::loader::common::{LibrarySlot, Loaded, Platform};
use std::path::Path;
use std::sync::Arc;

pub(crate) use coverage::coverage;

/// cuRAND, as the backend opened it: every adapter's symbol is resolved in
/// it.
pub(crate) static CURAND: LibrarySlot = LibrarySlot::new("cuRAND");

/// Fills the table with the adapters and the slot they resolve through
/// with the cuRAND library the loader core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<HiprandFunctions> {
    CURAND.fill(lib);
    let mut table = HiprandFunctions::EMPTY;
    adapters::install(&mut table);
    Loaded::one_library(Platform::Nvidia, "cuRAND", lib, path, table)
}
