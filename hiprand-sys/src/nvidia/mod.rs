//! The NVIDIA platform backend: cuRAND (`libcurand.so.10`) behind adapters
//! with hipRAND's signatures ([`adapters`]): enum arguments translated to
//! cuRAND's values and statuses back ([`translate`], from tables whose
//! cuRAND side the generator reads from `curand.h`), handles and pointers
//! passed through. cuRAND has no 8-bit, 16-bit or half-precision
//! generation: those hipRAND functions stay unfilled and return
//! `HIPRAND_STATUS_NOT_IMPLEMENTED` ([`coverage`]).
//!
//! A sibling of the AMD backend ([`crate::amd`]): both return the loader
//! core's [`Loaded`] table; neither imports the loader.

mod adapters;
mod coverage;
#[path = "../generated/nvidia/curand_values.rs"]
mod curand_values;
mod translate;

use crate::generated::functions::HiprandFunctions;
use hip_sys::loader::common::{Loaded, Platform};
use std::path::Path;
use std::sync::Arc;

pub(crate) use coverage::coverage;

/// Fills the table with the adapters and the slot they resolve through
/// with the cuRAND library the loader core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<HiprandFunctions> {
    adapters::CURAND.fill(lib);
    let mut table = HiprandFunctions::EMPTY;
    adapters::install(&mut table);
    Loaded::one_library(Platform::Nvidia, "cuRAND", lib, path, table)
}
