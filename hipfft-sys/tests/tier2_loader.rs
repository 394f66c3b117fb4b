//! Tier 2: the real loader on this machine. With Debian's ROCm runtime and
//! no hipFFT, the library's absence is reported through the loader core's
//! error, naming every `libhipfft` path tried, and raw calls return
//! `HIPFFT_SETUP_FAILED` instead of crashing. With `HIP_PLATFORM=nvidia` on
//! a CUDA machine with cuFFT, cuFFT is loaded behind the adapters.
//!
//! `HIP_TEST_EXPECT_RUNTIME=amd` (exported by `scripts/test.sh` when the
//! AMD runtime packages are installed) says the AMD runtime must be the one
//! loaded: any other outcome fails. Unset, any environment is accepted and
//! the test prints which branch it took.

use hipfft_sys::*;
use test_kit::{check_library_load, ExpectedLibrary};

const EXPECTED: ExpectedLibrary = ExpectedLibrary {
    name: "hipFFT",
    amd_files: &["libhipfft.so.0", "libhipfft.so"],
    amd_package: "libhipfft0",
    nvidia_file: "libcufft.so.12",
};

#[test]
fn loads_or_reports_every_libhipfft_path_tried() {
    match check_library_load(loader::hipfft(), &EXPECTED) {
        Ok(lib) => {
            assert!(loader::is_available());
            assert!(lib.is_available("hipfftPlan1d"));
            assert!(lib.is_available("hipfftExecC2C"));
            let mut version = 0;
            // SAFETY: `version` is a valid place to write an int.
            unsafe { hipfftGetVersion(&mut version) }.ok().unwrap();
            assert!(version > 0, "version {version}");
        }
        Err(_) => {
            assert!(!loader::is_available());
            // Raw calls report the missing library; they do not crash.
            let mut plan: hipfftHandle = std::ptr::null_mut();
            // SAFETY: `plan` is a valid place for a handle.
            let status = unsafe { hipfftPlan1d(&mut plan, 64, hipfftType::HIPFFT_C2C, 1) };
            assert_eq!(status, hipfftResult::HIPFFT_SETUP_FAILED);
            assert!(plan.is_null(), "nothing was written");
            let mut version = -1;
            // SAFETY: `version` is a valid place to write an int.
            let status = unsafe { hipfftGetVersion(&mut version) };
            assert_eq!(status, hipfftResult::HIPFFT_SETUP_FAILED);
            assert_eq!(version, -1);
        }
    }
}
