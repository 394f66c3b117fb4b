//! The AMD platform backend: `libhipsparse`, every symbol resolved once by
//! its own name. A sibling of the NVIDIA backend ([`crate::nvidia`]): both
//! return the loader core's [`Loaded`] table; neither imports the loader.

use crate::generated::functions::HipsparseFunctions;
use hip_sys::loader::common::{load_by_name, Loaded, Platform};
use std::path::Path;
use std::sync::Arc;

/// Resolves the table from the hipSPARSE library the loader core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<HipsparseFunctions> {
    // SAFETY: `lib` is hipSPARSE, which exports each function under its C
    // name with the signature of `hipsparse/hipsparse.h`, from which the
    // table was generated.
    unsafe {
        load_by_name(
            Platform::Amd,
            "hipSPARSE",
            lib,
            path,
            HipsparseFunctions::resolve,
        )
    }
}
