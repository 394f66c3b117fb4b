//! Tier 2: the real loader on this machine. With Debian's ROCm runtime and
//! no hipBLAS, the library's absence is reported (every path tried), and raw
//! calls return `HIPBLAS_STATUS_NOT_INITIALIZED` instead of crashing. With
//! `HIP_PLATFORM=nvidia` on a CUDA machine, cuBLAS is loaded and the
//! adapters are in the table.
//!
//! Which of those environments this is decides which branch runs, so on its
//! own the test cannot tell "tier 2 ran" from "tier 2 was not there".
//! `HIP_TEST_EXPECT_RUNTIME=amd` (exported by `scripts/test.sh` when the
//! AMD runtime packages are installed) says the AMD runtime must be the one
//! loaded: any other outcome fails. Unset, any environment is accepted and
//! the test prints which branch it took.

use hip_sys::loader::Platform;
use hipblas_sys::*;
use test_kit::{amd_runtime_expected, EXPECT_RUNTIME_VAR as EXPECT_VAR};

#[test]
fn loads_or_reports_what_it_tried() {
    let runtime = hip_sys::loader::runtime();
    let expect_amd = amd_runtime_expected();
    if expect_amd {
        match &runtime {
            Ok(rt) => assert_eq!(
                rt.platform,
                Platform::Amd,
                "{EXPECT_VAR}=amd, but the {} runtime was loaded: {rt:?}",
                rt.platform
            ),
            Err(e) => panic!("{EXPECT_VAR}=amd, but the AMD runtime did not load:\n{e}"),
        }
    }
    println!(
        "{EXPECT_VAR}: {}",
        if expect_amd {
            "amd (the AMD runtime must load)"
        } else {
            "unset (any environment accepted)"
        }
    );
    match loader::hipblas() {
        Ok(lib) => {
            println!("branch: hipBLAS loaded on platform {}", lib.platform);
            if expect_amd {
                assert_eq!(lib.platform, Platform::Amd, "{EXPECT_VAR}=amd");
            }
            println!(
                "hipBLAS loaded: {:?} {:?}, {} of {} functions, Ex ABI {:?}",
                lib.platform,
                lib.libraries,
                lib.available_count(),
                FUNCTION_NAMES.len(),
                lib.datatype_abi
            );
            assert!(lib.is_available("hipblasCreate"));
            assert!(lib.is_available("hipblasSgemm"));
            if lib.platform == Platform::Nvidia {
                // Every adapter whose cuBLAS symbol exists, plus
                // hipblasGetMathMode and hipblasStatusToString.
                assert!(lib.available_count() <= NVIDIA_ADAPTERS.len() + 2);
                assert!(lib.available_count() >= NVIDIA_ADAPTERS.len() * 9 / 10);
                assert!(lib.is_available("hipblasGemmEx") && lib.is_available("hipblasGemmEx_v2"));
            }
        }
        Err(e) => {
            let text = e.to_string();
            println!("{text}");
            match runtime {
                Err(_) => {
                    println!("branch: no HIP runtime loaded, so no hipBLAS");
                    assert!(e.runtime.is_some(), "{text}");
                }
                Ok(rt) if rt.platform == Platform::Amd => {
                    println!("branch: AMD runtime {} loaded, hipBLAS absent", rt.version);
                    assert_eq!(e.platform, Some(Platform::Amd));
                    for name in ["libhipblas.so.3", "libhipblas.so.2", "libhipblas.so.0"] {
                        assert!(
                            e.attempts.iter().any(|a| a.candidate.ends_with(name)),
                            "{name} not tried: {text}"
                        );
                    }
                    assert!(text.contains("HIP_SYS_LIBRARY_PATH"), "{text}");
                }
                Ok(rt) => {
                    println!("branch: {} runtime loaded, its BLAS absent", rt.platform);
                    assert_eq!(e.platform, Some(Platform::Nvidia));
                    assert!(text.contains("libcublas.so.13"), "{text}");
                }
            }
            // Raw calls report the missing library, they do not crash.
            let mut h: hipblasHandle_t = std::ptr::null_mut();
            // SAFETY: valid out-pointer.
            let s = unsafe { hipblasCreate(&mut h) };
            assert_eq!(s, hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED);
            assert!(h.is_null());
        }
    }
}

#[test]
fn bindings_cover_the_header() {
    // hipBLAS 2.4 declares 1850 names by the header-text count, one of which
    // (`hipblasBfloat16`) is a C++ constructor, not a function.
    assert!(FUNCTION_NAMES.len() >= 1849, "{}", FUNCTION_NAMES.len());
    for f in [
        "hipblasGemmEx",
        "hipblasGemmEx_v2",
        "hipblasGemmEx_v2_64",
        "hipblasSgemm_64",
    ] {
        assert!(FUNCTION_NAMES.contains(&f), "{f}");
    }
    // The v1 and v2 datatypes are distinct types with their own values.
    assert_eq!(hipblasDatatype_t::HIPBLAS_R_16F.0, 150);
    assert_eq!(hipDataType::HIP_R_16F.0, 2);
    assert_eq!(size_of::<hipComplex>(), 8);
    assert_eq!(size_of::<hipDoubleComplex>(), 16);
}

/// Per ROCm release (`HIP_TEST_EXPECT_ROCM`, test-kit's `Rocm`): only the
/// 6.4 sysroot ships hipBLAS (6.4.4, `libhipblas.so.2.4`, over rocBLAS
/// 6.4.4). There it loads from the sysroot, its GemmEx ABI is the one its
/// file's major version calls for (2: both forms bound), and
/// `hipblasCreate` without a device fails with a status, not a crash and
/// not a handle. Elsewhere hipBLAS is absent and its loader says so.
#[test]
fn hipblas_matches_the_release() {
    let release = test_kit::Rocm::expected();
    if !release.has_hipblas() {
        let e = loader::hipblas().err();
        assert!(e.is_some(), "{release:?} ships no hipBLAS, yet one loaded");
        return;
    }
    let lib = loader::hipblas().unwrap_or_else(|e| panic!("{release:?} ships hipBLAS:\n{e}"));
    assert_eq!(lib.platform, Platform::Amd);
    let path = &lib.libraries[0].path;
    assert!(
        path.to_string_lossy().contains("libhipblas.so.2"),
        "{}",
        path.display()
    );
    let version = lib.version.expect("hipBLAS's version from its file name");
    assert_eq!((version.major, version.minor), (2, 4), "{version}");
    assert!(lib.is_available("hipblasGemmEx_v2"));
    assert_eq!(
        lib.datatype_abi,
        loader::DatatypeAbi::for_library(Some(version.major), true)
    );
    assert_eq!(lib.datatype_abi, loader::DatatypeAbi::Both);
    assert!(lib.is_available("hipblasGemmEx") && lib.is_available("hipblasGemmEx_v2"));

    let mut h: hipblasHandle_t = std::ptr::null_mut();
    // SAFETY: valid out-pointer; with no device rocBLAS refuses.
    let s = unsafe { hipblasCreate(&mut h) };
    println!("hipblasCreate without a device: {s:?}");
    // Measured on Debian's 6.4.4: rocBLAS's handle creation fails inside.
    assert_eq!(s, hipblasStatus_t::HIPBLAS_STATUS_INTERNAL_ERROR);
    assert!(h.is_null(), "a handle came back from a failed create");
}
