//! Windows: each HIP SDK layout (5.7, 6.1, 6.2, 6.4, and 7.1) loads its
//! runtime, its hiprtc and its hipBLAS with rocBLAS beside it, from the
//! stub SDKs of scripts/windows/build-stubs.sh, under Wine
//! (scripts/wine-tier.sh). Each SDK in a process of its own (the libraries
//! are loaded once per process); without the stub SDKs the tests fail.
#![cfg(windows)]

use hip_sys::loader::Version;
use hipblas_sys::loader::DatatypeAbi;
use hipblas_sys::{hipblasHandle_t, hipblasStatus_t};
use std::path::PathBuf;
use test_kit::{in_scenario, same_file, scratch_dir, stub_bin, stub_sdk, Scenario};

/// What each stub SDK holds (build-stubs.sh): its runtime's file and
/// `hipRuntimeGetVersion`, and the `GemmEx` ABI its hipBLAS's exports
/// call for (2.x exports `hipblasGemmEx_v2`; 1.x and 3.x do not, and a
/// DLL's name carries no version, so that ABI is left unbound).
struct Sdk {
    release: &'static str,
    runtime: &'static str,
    hip_version: i32,
    abi: DatatypeAbi,
}

const SDKS: &[Sdk] = &[
    Sdk {
        release: "5.7",
        runtime: "amdhip64.dll",
        hip_version: 50_731_921,
        abi: DatatypeAbi::Unknown,
    },
    Sdk {
        release: "6.1",
        runtime: "amdhip64_6.dll",
        hip_version: 60_140_252,
        abi: DatatypeAbi::Both,
    },
    Sdk {
        release: "6.2",
        runtime: "amdhip64_6.dll",
        hip_version: 60_241_512,
        abi: DatatypeAbi::Both,
    },
    Sdk {
        release: "6.4",
        runtime: "amdhip64_6.dll",
        hip_version: 60_450_101,
        abi: DatatypeAbi::Both,
    },
    Sdk {
        release: "7.1",
        runtime: "amdhip64_7.dll",
        hip_version: 70_151_803,
        abi: DatatypeAbi::Unknown,
    },
];

#[link(name = "kernel32")]
extern "system" {
    fn GetModuleHandleW(name: *const u16) -> isize;
    fn GetModuleFileNameW(module: isize, buffer: *mut u16, size: u32) -> u32;
}

/// The file of the loaded module `name`, if one is loaded.
fn module_file(name: &str) -> Option<PathBuf> {
    let wide: Vec<u16> = name.encode_utf16().chain(Some(0)).collect();
    // SAFETY: a NUL-terminated wide string.
    let module = unsafe { GetModuleHandleW(wide.as_ptr()) };
    if module == 0 {
        return None;
    }
    let mut buf = vec![0u16; 4096];
    // SAFETY: `module` is loaded; the buffer holds `buf.len()` characters.
    let n = unsafe { GetModuleFileNameW(module, buf.as_mut_ptr(), buf.len() as u32) } as usize;
    Some(PathBuf::from(String::from_utf16_lossy(&buf[..n])))
}

/// The child's checks for the SDK `HIP_PATH` names.
fn check_sdk(sdk: &Sdk) {
    let bin = stub_bin(sdk.release);
    let rt = hip_sys::loader::runtime().unwrap_or_else(|e| panic!("{e}"));
    println!("runtime: {:?} {}", rt.libraries, rt.version);
    assert!(
        same_file(&rt.libraries[0].path, &bin.join(sdk.runtime)),
        "{:?}",
        rt.libraries
    );
    assert_eq!(rt.version, Version::from_hip(sdk.hip_version));

    // hiprtc, named by the runtime's version, beside it; its own answer.
    let rtc = format!("hiprtc{:02}{:02}.dll", rt.version.major, rt.version.minor);
    assert_eq!(rt.libraries[1].role, "hiprtc");
    assert!(
        same_file(&rt.libraries[1].path, &bin.join(&rtc)),
        "{:?}",
        rt.libraries
    );
    let (mut major, mut minor) = (0, 0);
    // SAFETY: two valid ints to write.
    let status = unsafe { hip_sys::hiprtcVersion(&mut major, &mut minor) };
    assert_eq!(status, hip_sys::hiprtcResult::HIPRTC_SUCCESS);
    assert_eq!(
        (major as u32, minor as u32),
        (rt.version.major, rt.version.minor)
    );

    // hipBLAS from the same folder, rocBLAS (its import) beside it.
    let blas = hipblas_sys::loader::hipblas().unwrap_or_else(|e| panic!("{e}"));
    println!("hipBLAS: {:?}, {:?}", blas.libraries, blas.datatype_abi);
    assert!(same_file(&blas.libraries[0].path, &bin.join("hipblas.dll")));
    assert_eq!(blas.datatype_abi, sdk.abi);
    let rocblas = module_file("rocblas.dll").expect("rocblas.dll is loaded with hipblas.dll");
    assert!(
        same_file(&rocblas, &bin.join("rocblas.dll")),
        "{}",
        rocblas.display()
    );
    let mut handle: hipblasHandle_t = std::ptr::null_mut();
    // SAFETY: `handle` is a valid handle slot; the stub writes null.
    let status = unsafe { hipblas_sys::hipblasCreate(&mut handle) };
    assert_eq!(status, hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED);
}

fn run(test: &str, release: &str) {
    let sdk = SDKS.iter().find(|s| s.release == release).unwrap();
    if in_scenario(test) {
        check_sdk(sdk);
        return;
    }
    Scenario::amd(test)
        .var("HIP_PATH", stub_sdk(release))
        .var("PATH", scratch_dir(&format!("{test}-path")))
        .run();
}

#[test]
fn sdk_5_7_loads() {
    run("sdk_5_7_loads", "5.7");
}

#[test]
fn sdk_6_1_loads() {
    run("sdk_6_1_loads", "6.1");
}

#[test]
fn sdk_6_2_loads() {
    run("sdk_6_2_loads", "6.2");
}

#[test]
fn sdk_6_4_loads() {
    run("sdk_6_4_loads", "6.4");
}

#[test]
fn sdk_7_1_loads() {
    run("sdk_7_1_loads", "7.1");
}
