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

use hip_sys::loader::Platform;
use hiprand_sys::*;
use test_kit::{amd_runtime_expected, EXPECT_RUNTIME_VAR};

#[test]
fn loads_or_reports_every_libhiprand_path_tried() {
    let runtime = hip_sys::loader::runtime();
    if amd_runtime_expected() {
        match &runtime {
            Ok(rt) => assert_eq!(
                rt.platform,
                Platform::Amd,
                "{EXPECT_RUNTIME_VAR}=amd: {rt:?}"
            ),
            Err(e) => panic!("{EXPECT_RUNTIME_VAR}=amd, but the AMD runtime did not load:\n{e}"),
        }
    }
    match loader::hiprand() {
        Ok(lib) => {
            println!(
                "branch: {:?} loaded: {:?}, {} of {} functions",
                lib.platform,
                lib.libraries,
                lib.available_count(),
                FUNCTION_NAMES.len()
            );
            assert!(lib.is_available("hiprandCreateGenerator"));
            let mut version = 0;
            // SAFETY: `version` is a valid place to write an int.
            unsafe { hiprandGetVersion(&mut version) }.ok().unwrap();
            assert!(version > 0, "version {version}");
        }
        Err(e) => {
            let text = e.to_string();
            println!("{text}");
            assert!(!loader::is_available());
            match runtime {
                Err(_) => {
                    println!("branch: no HIP runtime loaded, so no hipRAND");
                    assert!(e.runtime.is_some(), "{text}");
                    assert_eq!(e.library, "hipRAND");
                }
                Ok(rt) if rt.platform == Platform::Amd => {
                    println!("branch: AMD runtime {} loaded, hipRAND absent", rt.version);
                    assert_eq!(e.platform, Some(Platform::Amd));
                    assert_eq!(e.role, Some("hipRAND"));
                    for name in ["libhiprand.so.1", "libhiprand.so"] {
                        assert!(
                            e.attempts.iter().any(|a| a.candidate.ends_with(name)),
                            "{name} not tried: {text}"
                        );
                    }
                    assert!(
                        text.contains("no hipRAND found for the amd platform"),
                        "{text}"
                    );
                    assert!(text.contains("HIP_SYS_LIBRARY_PATH"), "{text}");
                }
                Ok(rt) => {
                    println!("branch: {} runtime loaded, cuRAND absent", rt.platform);
                    assert_eq!(e.platform, Some(Platform::Nvidia));
                    assert!(text.contains("libcurand.so.10"), "{text}");
                }
            }
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
