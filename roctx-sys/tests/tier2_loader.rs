//! Tier 2: the real loader on this machine. Without roctx (Debian's ROCm
//! runtime packages do not pull in libroctx64-4), the absence is reported
//! through the loader core's error, naming every `libroctx64` path tried,
//! and raw calls do nothing instead of crashing. With roctx (or NVTX under
//! `HIP_PLATFORM=nvidia`), calls reach the library.
//!
//! `HIP_TEST_EXPECT_RUNTIME=amd` (exported by `scripts/test.sh` when the
//! AMD runtime packages are installed) says the AMD runtime must be the one
//! loaded: any other outcome fails. Unset, any environment is accepted and
//! the test prints which branch it took.

use roctx_sys::*;
use test_kit::{check_library_load, ExpectedLibrary};

const EXPECTED: ExpectedLibrary = ExpectedLibrary {
    name: "roctx",
    amd_files: &["libroctx64.so.4", "libroctx64.so"],
    amd_package: "libroctx64-4",
    nvidia_file: "libnvtx3interop.so.1",
};

#[test]
fn loads_or_reports_every_libroctx_path_tried() {
    match check_library_load(loader::roctx(), &EXPECTED) {
        Ok(lib) => {
            assert!(loader::is_available());
            assert!(lib.is_available("roctxRangePushA"));
            assert!(lib.is_available("roctxRangePop"));
            // SAFETY: a NUL-terminated string that outlives the call.
            unsafe { roctxMarkA(c"tier2 mark".as_ptr()) };
            // SAFETY: as above; the pop ends the range pushed here.
            let pushed = unsafe { roctxRangePushA(c"tier2 range".as_ptr()) };
            // SAFETY: no arguments.
            let popped = unsafe { roctxRangePop() };
            println!("loaded {:?}: push {pushed}, pop {popped}", lib.platform);
        }
        Err(_) => {
            assert!(!loader::is_available());
            // Raw calls do nothing; they do not crash.
            // SAFETY: a NUL-terminated string that outlives the call.
            unsafe { roctxMarkA(c"nowhere".as_ptr()) };
            // SAFETY: as above.
            assert_eq!(unsafe { roctxRangePushA(c"nowhere".as_ptr()) }, -1);
            // SAFETY: no arguments.
            assert_eq!(unsafe { roctxRangePop() }, -1);
            // SAFETY: as above.
            assert_eq!(unsafe { roctxRangeStartA(c"nowhere".as_ptr()) }, 0);
            // SAFETY: id 0 is the "no range" id.
            unsafe { roctxRangeStop(0) };
            // SAFETY: no arguments.
            assert_eq!(unsafe { roctx_version_major() }, 0);
        }
    }
}
