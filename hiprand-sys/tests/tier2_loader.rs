//! Tier 2: the real loader on this machine. With Debian's ROCm runtime and
//! no hipRAND, the library's absence is reported through the loader core's
//! error, naming every `libhiprand` path tried, and raw calls return
//! `HIPRAND_STATUS_INITIALIZATION_FAILED` instead of crashing. With
//! `HIP_PLATFORM=nvidia` on a CUDA machine, cuRAND is loaded behind the
//! adapters, and a generator can be created and destroyed.
//!
//! `HIP_TEST_EXPECT_RUNTIME=amd` (exported by `scripts/test.sh` when the
//! AMD runtime packages are installed) says the AMD runtime must be the one
//! loaded: any other outcome fails. Unset, any environment is accepted and
//! the test prints which branch it took.

use hiprand_sys::*;
use test_kit::{check_library_load, ExpectedLibrary};

const EXPECTED: ExpectedLibrary = ExpectedLibrary {
    name: "hipRAND",
    amd_files: &["libhiprand.so.1", "libhiprand.so"],
    amd_package: "libhiprand1",
    nvidia_file: "libcurand.so.10",
};

#[test]
fn loads_or_reports_every_libhiprand_path_tried() {
    match check_library_load(loader::hiprand(), &EXPECTED) {
        Ok(lib) => {
            assert!(loader::is_available());
            assert!(lib.is_available("hiprandCreateGenerator"));
            let mut version = 0;
            // SAFETY: `version` is a valid place to write an int.
            unsafe { hiprandGetVersion(&mut version) }.ok().unwrap();
            assert!(version > 0, "version {version}");
        }
        Err(_) => {
            assert!(!loader::is_available());
            // Raw calls report the missing library; they do not crash and
            // write nothing.
            let mut generator: hiprandGenerator_t = std::ptr::NonNull::dangling().as_ptr();
            let before = generator;
            // SAFETY: `generator` is a valid place to write a handle.
            let status = unsafe {
                hiprandCreateGenerator(&mut generator, hiprandRngType_t::HIPRAND_RNG_PSEUDO_XORWOW)
            };
            assert_eq!(
                status,
                hiprandStatus_t::HIPRAND_STATUS_INITIALIZATION_FAILED
            );
            assert_eq!(generator, before, "nothing was written");
            assert!(status.to_string().contains("could be loaded"), "{status}");
        }
    }
}
