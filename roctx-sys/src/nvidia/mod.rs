//! The NVIDIA platform backend: roctx's functions resolved from NVTX.
//!
//! CUDA 13 ships no `libnvToolsExt`: NVTX 3 is a header library, and
//! `libnvtx3interop.so.1` exports the NVTX functions for callers without
//! the header (CUDA 12 and older ship `libnvToolsExt.so.1`, which exports
//! the same names). Five roctx functions have an NVTX counterpart with
//! exactly the same C signature (`const char*` in, `void`/`int`/`uint64_t`
//! out: `nvtxRangeId_t` is `uint64_t`, as `roctx_range_id_t` is), so the
//! table points straight at the NVTX symbol, with no adapter. roctx's two
//! version calls have no counterpart and stay `None`: they return 0.
//!
//! A sibling of the AMD backend ([`crate::amd`]): both return the loader
//! core's [`Loaded`] table; neither imports the loader.

#[cfg(test)]
mod coverage;

use crate::generated::functions::RoctxFunctions;
use hip_sys::loader::common::{symbol_address, Loaded, Platform};
use std::ffi::{c_void, CStr};
use std::path::Path;
use std::sync::Arc;

/// (roctx binding, NVTX symbol) for every binding resolved on NVIDIA.
pub(crate) const SYMBOLS: &[(&str, &str)] = &[
    ("roctxMarkA", "nvtxMarkA"),
    ("roctxRangePushA", "nvtxRangePushA"),
    ("roctxRangePop", "nvtxRangePop"),
    ("roctxRangeStartA", "nvtxRangeStartA"),
    ("roctxRangeStop", "nvtxRangeEnd"),
];

/// The NVTX symbol a roctx binding is resolved from, if any.
pub(crate) fn nvtx_name(roctx: &str) -> Option<&'static str> {
    SYMBOLS.iter().find(|(r, _)| *r == roctx).map(|(_, n)| *n)
}

/// Fills the table from the NVTX library the loader core opened.
pub(crate) fn load(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<RoctxFunctions> {
    let mut lookup = |name: &'static CStr| -> *mut c_void {
        match name.to_str().ok().and_then(nvtx_name) {
            Some(nvtx) => symbol_address(lib, nvtx),
            None => std::ptr::null_mut(),
        }
    };
    // SAFETY: each name is resolved only to the NVTX function listed for it
    // in `SYMBOLS`, whose C signature (nvToolsExt.h, NVTX 3) is the roctx
    // function's: `void(const char*)`, `int(const char*)`, `int(void)`,
    // `uint64_t(const char*)`, `void(uint64_t)`.
    let table = unsafe { RoctxFunctions::resolve(&mut lookup) };
    Loaded::one_library(Platform::Nvidia, "NVTX", lib, path, table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_binding_but_the_versions_has_an_nvtx_symbol() {
        for name in crate::FUNCTION_NAMES {
            let expected = !name.starts_with("roctx_version_");
            assert_eq!(nvtx_name(name).is_some(), expected, "{name}");
        }
        for (roctx, nvtx) in SYMBOLS {
            assert!(crate::FUNCTION_NAMES.contains(roctx), "{roctx}");
            assert!(nvtx.starts_with("nvtx"), "{nvtx}");
        }
    }
}
