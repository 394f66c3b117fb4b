//! The AMD platform backend: `libroctx64`, every symbol resolved once by its
//! own name. A sibling of the NVIDIA backend ([`crate::nvidia`]): both
//! return the loader core's [`Loaded`] table; neither imports the loader.

use crate::generated::functions::RoctxFunctions;
use hip_sys::loader::common::{load_by_name, Loaded, Platform};
use std::path::Path;
use std::sync::Arc;

/// Resolves the table from the roctx library the loader core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<RoctxFunctions> {
    // SAFETY: `lib` is roctx, which exports each function under its C name
    // with the signature of `roctracer/roctx.h`, from which the table was
    // generated.
    unsafe { load_by_name(Platform::Amd, "roctx", lib, path, RoctxFunctions::resolve) }
}
