//! Tier 2: the real loader on this machine. With Debian's ROCm runtime and
//! no RCCL, the library's absence is reported through the loader core's
//! error, naming every `librccl` path tried, and raw calls return
//! `ncclSystemError` instead of crashing. With `HIP_PLATFORM=nvidia` on a
//! CUDA machine with NCCL, NCCL is loaded, with the adapters for RCCL's
//! own gather, scatter and all-to-all-v.
//!
//! `HIP_TEST_EXPECT_RUNTIME=amd` (exported by `scripts/test.sh` when the
//! AMD runtime packages are installed) says the AMD runtime must be the one
//! loaded: any other outcome fails. Unset, any environment is accepted and
//! the test prints which branch it took.

use hip_sys::loader::Platform;
use rccl_sys::*;
use test_kit::{check_library_load, ExpectedLibrary};

const EXPECTED: ExpectedLibrary = ExpectedLibrary {
    name: "RCCL",
    amd_files: &["librccl.so.1", "librccl.so"],
    amd_package: "librccl1",
    nvidia_file: "libnccl.so.2",
};

#[test]
fn loads_or_reports_every_librccl_path_tried() {
    match check_library_load(loader::rccl(), &EXPECTED) {
        Ok(lib) => {
            assert!(loader::is_available());
            assert!(lib.is_available("ncclAllReduce"));
            assert!(lib.is_available("ncclGetVersion"));
            if lib.platform == Platform::Nvidia {
                for name in NVIDIA_ADAPTERS {
                    assert!(lib.is_available(name), "{name}: adapter on NCCL");
                }
                assert!(!lib.is_available("ncclCommInitRankMulti"));
                // The calls newer than rccl.h 5.4.3, taken from nccl.h:
                // NCCL (2.19 on) has every one under the same name.
                for name in [
                    "ncclCommInitRankConfig",
                    "ncclCommSplit",
                    "ncclCommFinalize",
                    "ncclMemAlloc",
                    "ncclMemFree",
                    "ncclCommRegister",
                    "ncclCommDeregister",
                ] {
                    assert!(lib.is_available(name), "{name}: in NCCL");
                }
            }
            let mut version = 0;
            // SAFETY: `version` is a valid place to write an int.
            unsafe { ncclGetVersion(&mut version) }.ok().unwrap();
            assert!(version >= 2000, "NCCL version code {version}");
            // NCCL 2.27's calls (taken from its nccl.h): an NCCL that new
            // exports every one.
            if lib.platform == Platform::Nvidia && version >= 22700 {
                for name in [
                    "ncclGroupSimulateEnd",
                    "ncclCommWindowRegister",
                    "ncclCommWindowDeregister",
                    "ncclCommShrink",
                    "ncclCommInitRankScalable",
                ] {
                    assert!(lib.is_available(name), "{name}: in NCCL {version}");
                }
            }
        }
        Err(_) => {
            assert!(!loader::is_available());
            // A call newer than rccl.h goes through the same table: no
            // library, so the "not loaded" status, not a crash.
            // SAFETY: no library is loaded, so the wrapper returns before
            // the (null) communicator could be used.
            let status = unsafe { ncclCommFinalize(std::ptr::null_mut()) };
            assert_eq!(status, ncclResult_t::ncclSystemError);
            // Raw calls report the missing library; they do not crash.
            let mut version = -1;
            // SAFETY: `version` is a valid place to write an int.
            let status = unsafe { ncclGetVersion(&mut version) };
            assert_eq!(status, ncclResult_t::ncclSystemError);
            assert_eq!(version, -1, "nothing was written");
            // SAFETY: any value is a valid argument; the result is a static C string.
            let message = unsafe { std::ffi::CStr::from_ptr(ncclGetErrorString(ncclResult_t(2))) };
            assert!(
                message
                    .to_str()
                    .unwrap()
                    .contains("no RCCL or NCCL library"),
                "{message:?}"
            );
        }
    }
}
