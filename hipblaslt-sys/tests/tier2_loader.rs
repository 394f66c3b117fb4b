//! Tier 2: the real loader on this machine. With Debian's ROCm runtime and
//! no hipBLASLt, the library's absence is reported through the loader
//! core's error, naming every `libhipblaslt` path tried, and raw calls
//! return `HIPBLAS_STATUS_NOT_INITIALIZED` instead of crashing. With
//! `HIP_PLATFORM=nvidia` on a CUDA machine with cuBLASLt, cuBLASLt is
//! loaded behind the adapters.
//!
//! `HIP_TEST_EXPECT_RUNTIME=amd` (exported by `scripts/test.sh` when the
//! AMD runtime packages are installed) says the AMD runtime must be the one
//! loaded: any other outcome fails. Unset, any environment is accepted and
//! the test prints which branch it took.

use hipblaslt_sys::*;
use test_kit::{check_library_load, ExpectedLibrary};

const EXPECTED: ExpectedLibrary = ExpectedLibrary {
    name: "hipBLASLt",
    amd_files: &["libhipblaslt.so.1", "libhipblaslt.so.0", "libhipblaslt.so"],
    amd_package: "libhipblaslt1",
    nvidia_file: "libcublasLt.so.13",
};

#[test]
fn loads_or_reports_every_libhipblaslt_path_tried() {
    match check_library_load(loader::hipblaslt(), &EXPECTED) {
        Ok(lib) => {
            assert!(loader::is_available());
            assert!(lib.is_available("hipblasLtCreate"));
            assert!(lib.is_available("hipblasLtMatmul"));
            let mut handle: hipblasLtHandle_t = std::ptr::null_mut();
            // SAFETY: `handle` is a valid place for a handle.
            let created = unsafe { hipblasLtCreate(&mut handle) };
            if created.is_success() {
                // SAFETY: created just above, destroyed once.
                unsafe { hipblasLtDestroy(handle) }.ok().unwrap();
            }
        }
        Err(_) => {
            assert!(!loader::is_available());
            // Raw calls report the missing library; they do not crash.
            let mut handle: hipblasLtHandle_t = std::ptr::null_mut();
            // SAFETY: `handle` is a valid place for a handle.
            let status = unsafe { hipblasLtCreate(&mut handle) };
            assert_eq!(status, hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED);
            assert!(handle.is_null(), "nothing was written");
            // An extension returning a double gives NaN, not a crash.
            // SAFETY: takes no arguments.
            assert!(unsafe { hipblasltGetCuGranularity() }.is_nan());
        }
    }
}
