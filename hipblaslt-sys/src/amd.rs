//! The AMD platform backend: `libhipblaslt`, every symbol resolved once by
//! its own name. A sibling of the NVIDIA backend ([`crate::nvidia`]): both
//! return the loader core's [`Loaded`] table; neither imports the loader.

use crate::generated::functions::HipblasltFunctions;
use hip_sys::loader::common::{load_by_name, Loaded, Platform};
use std::path::Path;
use std::sync::Arc;

/// Resolves the table from the hipBLASLt library the loader core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<HipblasltFunctions> {
    // SAFETY: `lib` is hipBLASLt, which exports each function under its C
    // name with the signature of `hipblaslt/hipblaslt.h` or
    // `hipblaslt/hipblaslt-ext-op.h`, from which the table was generated.
    unsafe {
        load_by_name(
            Platform::Amd,
            "hipBLASLt",
            lib,
            path,
            HipblasltFunctions::resolve,
        )
    }
}
