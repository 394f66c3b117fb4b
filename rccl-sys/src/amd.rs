//! The AMD platform backend: `librccl`, every symbol resolved once into the
//! table. A sibling of the NVIDIA backend ([`crate::nvidia`]): both return
//! the loader core's [`Loaded`] table; neither imports the loader.

use crate::generated::functions::RcclFunctions;
use hip_sys::loader::common::{load_by_name, Loaded, Platform};
use std::path::Path;
use std::sync::Arc;

/// Resolves the table from the RCCL library the loader core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<RcclFunctions> {
    // SAFETY: `lib` is RCCL, which exports each function under its C name
    // with the signature of `rccl/rccl.h`, from which the table was generated.
    unsafe { load_by_name(Platform::Amd, "RCCL", lib, path, RcclFunctions::resolve) }
}
