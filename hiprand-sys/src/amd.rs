//! The AMD platform backend: `libhiprand`, every symbol resolved once into
//! the table. A sibling of the NVIDIA backend ([`crate::nvidia`]): both
//! return the loader core's [`Loaded`] table; neither imports the loader.

use crate::generated::functions::HiprandFunctions;
use hip_sys::loader::common::{symbol_address, Loaded, Platform};
use std::ffi::{c_void, CStr};
use std::path::Path;
use std::sync::Arc;

/// Resolves the table from the hipRAND library the loader core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<HiprandFunctions> {
    let mut lookup =
        |name: &'static CStr| -> *mut c_void { symbol_address(lib, name.to_str().unwrap_or("")) };
    // SAFETY: every name is looked up in hipRAND itself, which exports each
    // function under its C name with the signature of `hiprand/hiprand.h`,
    // from which the table was generated.
    let table = unsafe { HiprandFunctions::resolve(&mut lookup) };
    Loaded::one_library(Platform::Amd, "hipRAND", lib, path, table)
}
