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
use test_kit::{amd_runtime_expected, EXPECT_RUNTIME_VAR as EXPECT_VAR};

#[test]
fn loads_or_reports_every_librccl_path_tried() {
    let runtime = hip_sys::loader::runtime();
    let expect_amd = amd_runtime_expected();
    if expect_amd {
        match &runtime {
            Ok(rt) => assert_eq!(rt.platform, Platform::Amd, "{EXPECT_VAR}=amd: {rt:?}"),
            Err(e) => panic!("{EXPECT_VAR}=amd, but the AMD runtime did not load:\n{e}"),
        }
    }
    match loader::rccl() {
        Ok(lib) => {
            println!(
                "branch: {:?} loaded: {:?}, {} of {} functions",
                lib.platform,
                lib.libraries,
                lib.available_count(),
                FUNCTION_NAMES.len()
            );
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
        }
        Err(e) => {
            let text = e.to_string();
            println!("{text}");
            assert!(!loader::is_available());
            // A call newer than rccl.h goes through the same table: no
            // library, so the "not loaded" status, not a crash.
            // SAFETY: no library is loaded, so the wrapper returns before
            // the (null) communicator could be used.
            let status = unsafe { ncclCommFinalize(std::ptr::null_mut()) };
            assert_eq!(status, ncclResult_t::ncclSystemError);
            match runtime {
                Err(_) => {
                    println!("branch: no HIP runtime loaded, so no RCCL");
                    assert!(e.runtime.is_some(), "{text}");
                    assert_eq!(e.library, "RCCL");
                }
                Ok(rt) if rt.platform == Platform::Amd => {
                    println!("branch: AMD runtime {} loaded, RCCL absent", rt.version);
                    assert_eq!(e.platform, Some(Platform::Amd));
                    assert_eq!(e.role, Some("RCCL"));
                    for name in ["librccl.so.1", "librccl.so"] {
                        assert!(
                            e.attempts.iter().any(|a| a.candidate.ends_with(name)),
                            "{name} not tried: {text}"
                        );
                    }
                    assert!(
                        text.contains("no RCCL found for the amd platform"),
                        "{text}"
                    );
                    assert!(text.contains("librccl.so.1"), "{text}");
                    assert!(text.contains("HIP_SYS_LIBRARY_PATH"), "{text}");
                }
                Ok(rt) => {
                    println!("branch: {} runtime loaded, NCCL absent", rt.platform);
                    assert_eq!(e.platform, Some(Platform::Nvidia));
                    assert!(text.contains("libnccl.so.2"), "{text}");
                }
            }
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
