//! Tier 2: the real loader on this machine. With Debian's ROCm runtime and
//! no hipSPARSE, the library's absence is reported through the loader
//! core's error, naming every `libhipsparse` path tried, and raw calls
//! return `HIPSPARSE_STATUS_NOT_INITIALIZED` instead of crashing. With
//! `HIP_PLATFORM=nvidia` on a CUDA machine with cuSPARSE, cuSPARSE is loaded
//! behind the adapters.
//!
//! `HIP_TEST_EXPECT_RUNTIME=amd` (exported by `scripts/test.sh` when the
//! AMD runtime packages are installed) says the AMD runtime must be the one
//! loaded: any other outcome fails. Unset, any environment is accepted and
//! the test prints which branch it took.

use hipsparse_sys::*;
use test_kit::{check_library_load, ExpectedLibrary};

const EXPECTED: ExpectedLibrary = ExpectedLibrary {
    name: "hipSPARSE",
    amd_files: &["libhipsparse.so.1", "libhipsparse.so"],
    amd_package: "libhipsparse1",
    nvidia_file: "libcusparse.so.12",
};

#[test]
fn loads_or_reports_every_libhipsparse_path_tried() {
    match check_library_load(loader::hipsparse(), &EXPECTED) {
        Ok(lib) => {
            assert!(loader::is_available());
            assert!(lib.is_available("hipsparseCreate"));
            assert!(lib.is_available("hipsparseSpMV"));
            let mut handle: hipsparseHandle_t = std::ptr::null_mut();
            // SAFETY: `handle` is a valid place for a handle.
            unsafe { hipsparseCreate(&mut handle) }.ok().unwrap();
            // SAFETY: made just above, destroyed once.
            unsafe { hipsparseDestroy(handle) }.ok().unwrap();
        }
        Err(_) => {
            assert!(!loader::is_available());
            // Raw calls report the missing library; they do not crash.
            let mut handle: hipsparseHandle_t = std::ptr::null_mut();
            // SAFETY: `handle` is a valid place for a handle.
            let status = unsafe { hipsparseCreate(&mut handle) };
            assert_eq!(status, hipsparseStatus_t::HIPSPARSE_STATUS_NOT_INITIALIZED);
            assert!(handle.is_null(), "nothing was written");
        }
    }
}
