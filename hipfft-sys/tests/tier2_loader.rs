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

use hip_sys::loader::Platform;
use hipfft_sys::*;

const EXPECT_VAR: &str = "HIP_TEST_EXPECT_RUNTIME";

fn amd_runtime_expected() -> bool {
    match std::env::var(EXPECT_VAR) {
        Ok(v) if v == "amd" => true,
        Ok(v) if v.is_empty() => false,
        Ok(v) => panic!("{EXPECT_VAR}={v}: the only value it takes is `amd`"),
        Err(_) => false,
    }
}

#[test]
fn loads_or_reports_every_libhipfft_path_tried() {
    let runtime = hip_sys::loader::runtime();
    if amd_runtime_expected() {
        match &runtime {
            Ok(rt) => assert_eq!(rt.platform, Platform::Amd, "{EXPECT_VAR}=amd: {rt:?}"),
            Err(e) => panic!("{EXPECT_VAR}=amd, but the AMD runtime did not load:\n{e}"),
        }
    }
    match loader::hipfft() {
        Ok(lib) => {
            println!(
                "branch: {:?} loaded: {:?}, {} of {} functions",
                lib.platform,
                lib.libraries,
                lib.available_count(),
                FUNCTION_NAMES.len()
            );
            assert!(lib.is_available("hipfftPlan1d"));
            assert!(lib.is_available("hipfftExecC2C"));
            let mut version = 0;
            // SAFETY: `version` is a valid place to write an int.
            unsafe { hipfftGetVersion(&mut version) }.ok().unwrap();
            assert!(version > 0, "version {version}");
        }
        Err(e) => {
            let text = e.to_string();
            println!("{text}");
            assert!(!loader::is_available());
            match runtime {
                Err(_) => {
                    println!("branch: no HIP runtime loaded, so no hipFFT");
                    assert!(e.runtime.is_some(), "{text}");
                    assert_eq!(e.library, "hipFFT");
                }
                Ok(rt) if rt.platform == Platform::Amd => {
                    println!("branch: AMD runtime {} loaded, hipFFT absent", rt.version);
                    assert_eq!(e.platform, Some(Platform::Amd));
                    assert_eq!(e.role, Some("hipFFT"));
                    for name in ["libhipfft.so.0", "libhipfft.so"] {
                        assert!(
                            e.attempts.iter().any(|a| a.candidate.ends_with(name)),
                            "{name} not tried: {text}"
                        );
                    }
                    assert!(
                        text.contains("no hipFFT found for the amd platform"),
                        "{text}"
                    );
                    assert!(text.contains("libhipfft0"), "{text}");
                    assert!(text.contains("HIP_SYS_LIBRARY_PATH"), "{text}");
                }
                Ok(rt) => {
                    println!("branch: {} runtime loaded, cuFFT absent", rt.platform);
                    assert_eq!(e.platform, Some(Platform::Nvidia));
                    assert!(text.contains("libcufft.so.12"), "{text}");
                }
            }
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
