//! Tier 2: the real loader on this machine. With Debian's ROCm runtime and
//! no hipSOLVER, the library's absence is reported through the loader
//! core's error, naming every `libhipsolver` path tried, and raw calls
//! return `HIPSOLVER_STATUS_NOT_INITIALIZED` instead of crashing. With
//! `HIP_PLATFORM=nvidia` on a CUDA machine with cuSOLVER, cuSOLVER is
//! loaded behind the adapters.
//!
//! `HIP_TEST_EXPECT_RUNTIME=amd` (exported by `scripts/test.sh` when the
//! AMD runtime packages are installed) says the AMD runtime must be the one
//! loaded: any other outcome fails. Unset, any environment is accepted and
//! the test prints which branch it took.

use hipsolver_sys::*;
use test_kit::{check_library_load, ExpectedLibrary};

const EXPECTED: ExpectedLibrary = ExpectedLibrary {
    name: "hipSOLVER",
    amd_files: &["libhipsolver.so.0", "libhipsolver.so.1", "libhipsolver.so"],
    amd_package: "libhipsolver0",
    nvidia_file: "libcusolver.so.12",
};

#[test]
fn loads_or_reports_every_libhipsolver_path_tried() {
    match check_library_load(loader::hipsolver(), &EXPECTED) {
        Ok(lib) => {
            assert!(loader::is_available());
            assert!(lib.is_available("hipsolverDnCreate"));
            assert!(lib.is_available("hipsolverDnSgetrf"));
        }
        Err(_) => {
            assert!(!loader::is_available());
            // Raw calls report the missing library; they do not crash.
            let mut handle: hipsolverHandle_t = std::ptr::null_mut();
            // SAFETY: `handle` is a valid place for a handle.
            let status = unsafe { hipsolverDnCreate(&mut handle) };
            assert_eq!(status, hipsolverStatus_t::HIPSOLVER_STATUS_NOT_INITIALIZED);
            assert!(handle.is_null(), "nothing was written");
        }
    }
}
