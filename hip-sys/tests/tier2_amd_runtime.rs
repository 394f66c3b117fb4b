//! Tier 2: the real AMD runtime, no GPU.
//!
//! Needs Debian 12's `libamdhip64-5` (ROCm 5.2.3) and `rocm-device-libs`
//! installed, as the README's test command and CI do. With no AMD runtime
//! these tests fail and say what is missing: they never pass silently.
//! `scripts/test.sh` runs this binary again in the ROCm 5.7 and 6.4
//! sysroots with `HIP_TEST_EXPECT_ROCM` naming the release, and the tests
//! assert that release's facts (version, entry points, hiprtc targets).

use hip_sys::loader::{self, Platform};
use hip_sys::*;
use std::ffi::{CStr, CString};
use std::ptr;
use test_kit::Rocm;

const INSTALL_HINT: &str =
    "tier 2 needs the AMD runtime: apt-get install libamdhip64-5 rocm-device-libs (Debian 12)";

fn amd_runtime() -> &'static loader::Runtime {
    let rt = loader::runtime().unwrap_or_else(|e| panic!("{INSTALL_HINT}\n{e}"));
    assert_eq!(rt.platform, Platform::Amd, "{INSTALL_HINT}; loaded {rt:?}");
    rt
}

fn c_str(p: *const std::ffi::c_char) -> String {
    assert!(!p.is_null());
    // SAFETY: the runtime returns NUL-terminated static strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

#[test]
fn runtime_loads_and_reports_path_and_version() {
    let rt = amd_runtime();
    let lib = &rt.libraries[0];
    assert_eq!(lib.role, "HIP runtime");
    assert!(lib.path.is_absolute(), "{}", lib.path.display());
    let file = lib.path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(file.starts_with("libamdhip64.so"), "{file}");
    assert!(lib.path.exists());
    // Debian 12 ships ROCm 5.2.3, whose runtime says 5.2; the sysroots
    // 5.7.1 and 6.4.3.
    let expected = Rocm::expected();
    assert_eq!(
        (rt.version.major, rt.version.minor),
        expected.major_minor(),
        "{}",
        rt.version
    );
    assert_eq!(
        rt.platform_reason,
        "no device: AMD runtime sees no device (hipErrorNoDevice); CUDA not found"
    );
    // The HIP runtime loaded (and from 6.0 on, hiprtc, a library of its
    // own, beside it); with no device the CUDA libraries were looked for
    // after it (and are absent here).
    let loaded: Vec<_> = rt
        .attempts
        .iter()
        .filter(|a| a.outcome.is_ok())
        .map(|a| a.role)
        .collect();
    let roles: &[&str] = if expected.hiprtc_is_separate() {
        &["HIP runtime", "hiprtc"]
    } else {
        &["HIP runtime"]
    };
    assert_eq!(loaded, roles, "{:?}", rt.attempts);
    assert!(
        rt.attempts.iter().any(|a| a.role == "CUDA runtime"),
        "{:?}",
        rt.attempts
    );
    // A 5.x runtime lacks some 6.4 functions, and has most.
    println!(
        "{} of {} functions available",
        rt.available_count(),
        FUNCTION_NAMES.len()
    );
    assert!(rt.available_count() > 300);
    if expected < Rocm::V6_4 {
        assert!(rt.available_count() < FUNCTION_NAMES.len());
    } else {
        // The bindings come from 6.4's headers; its runtime has 478 of the
        // 488 (measured on Debian's 6.4.3), more than any 5.x.
        assert!(rt.available_count() >= 470, "{}", rt.available_count());
    }
}

/// `hipRuntimeGetVersion` and `hipDriverGetVersion` work without a device
/// and encode the release as `major * 10^7 + minor * 10^5 + patch`.
#[test]
fn runtime_and_driver_versions_name_the_expected_release() {
    amd_runtime();
    let (major, minor) = Rocm::expected().major_minor();
    let mut runtime = -1;
    // SAFETY: `runtime` is a valid int to write to.
    let status = unsafe { hipRuntimeGetVersion(&mut runtime) };
    assert_eq!(status, hipError_t::hipSuccess);
    let mut driver = -1;
    // SAFETY: `driver` is a valid int to write to.
    let status = unsafe { hipDriverGetVersion(&mut driver) };
    assert_eq!(status, hipError_t::hipSuccess);
    println!("hipRuntimeGetVersion {runtime}, hipDriverGetVersion {driver}");
    for (what, v) in [("runtime", runtime), ("driver", driver)] {
        let v = u32::try_from(v).unwrap_or_else(|_| panic!("{what} version {v}"));
        assert_eq!(
            (v / 10_000_000, v / 100_000 % 100),
            (major, minor),
            "{what} version {v}"
        );
    }
}

#[test]
fn device_count_is_no_device_and_zero() {
    amd_runtime();
    let mut count = -1;
    // SAFETY: `count` is a valid int to write to.
    let status = unsafe { hipGetDeviceCount(&mut count) };
    assert_eq!(status, hipError_t::hipErrorNoDevice);
    assert_eq!(count, 0);
    assert_eq!(status.ok(), Err(hipError_t::hipErrorNoDevice));
}

#[test]
fn error_name_and_string_come_from_the_runtime() {
    amd_runtime();
    // SAFETY: any status value may be passed; the result is a static string.
    let name = c_str(unsafe { hipGetErrorName(hipError_t::hipErrorNoDevice) });
    assert_eq!(name, "hipErrorNoDevice");
    // SAFETY: as above.
    let text = c_str(unsafe { hipGetErrorString(hipError_t::hipErrorOutOfMemory) });
    assert!(!text.is_empty());
    // The strings are the runtime's, not the fallback this crate returns
    // when the runtime is missing.
    assert!(!text.starts_with("hip-sys:"), "{text}");
    assert_eq!(
        hipError_t::hipErrorNoDevice.name(),
        Some("hipErrorNoDevice")
    );
}

#[test]
fn function_missing_from_5_2_returns_an_error_and_the_process_goes_on() {
    let rt = amd_runtime();
    // hipStreamGetDevice and hipLaunchHostFunc arrived after ROCm 5.2.
    let names = ["hipStreamGetDevice", "hipLaunchHostFunc"];
    if Rocm::expected() > Rocm::V5_2 {
        for name in names {
            assert!(rt.is_available(name), "{name} missing from {}", rt.version);
        }
        return;
    }
    for name in names {
        assert!(!rt.is_available(name), "{name} unexpectedly present");
    }
    let mut device = -1;
    // SAFETY: a null stream is the default stream; `device` is writable.
    let status = unsafe { hipStreamGetDevice(ptr::null_mut(), &mut device) };
    assert_eq!(status, hipError_t::hipErrorNotSupported);
    assert_eq!(device, -1, "nothing was written");
    // The process goes on and the runtime still answers.
    let mut count = -1;
    // SAFETY: `count` is a valid int to write to.
    let status = unsafe { hipGetDeviceCount(&mut count) };
    assert_eq!(status, hipError_t::hipErrorNoDevice);
    assert!(rt.is_available("hipGetDeviceCount"));
}

/// 5.x exports only the legacy properties entry point (as
/// `hipGetDeviceProperties`, bound to `hipGetDevicePropertiesR0000`); 6.x
/// exports `hipGetDevicePropertiesR0600` and keeps `R0000` for old callers.
#[test]
fn device_properties_entry_points_match_the_release() {
    let rt = amd_runtime();
    assert!(rt.is_available("hipGetDevicePropertiesR0000"));
    assert_eq!(
        rt.is_available("hipGetDevicePropertiesR0600"),
        Rocm::expected().has_r0600(),
        "runtime {}",
        rt.version
    );
}

const AXPY: &str = r#"
#include <hip/hip_runtime.h>
extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

/// Compiles `source` with hiprtc; returns the status, the log and the code.
/// ROCm 5.2's hiprtc crashes when two programs compile at once (seen here as
/// SIGSEGV with the test harness's threads), so compiles take turns.
static HIPRTC: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn compile(source: &str, options: &[&str]) -> (hiprtcResult, String, Vec<u8>) {
    let _turn = HIPRTC.lock().unwrap_or_else(|e| e.into_inner());
    let src = CString::new(source).unwrap();
    let name = CString::new("axpy.hip").unwrap();
    let mut prog: hiprtcProgram = ptr::null_mut();
    // SAFETY: valid NUL-terminated strings; no headers passed.
    let status = unsafe {
        hiprtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            name.as_ptr(),
            0,
            ptr::null_mut(),
            ptr::null_mut(),
        )
    };
    assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS);
    let opts: Vec<CString> = options.iter().map(|o| CString::new(*o).unwrap()).collect();
    let mut opt_ptrs: Vec<*const std::ffi::c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: `prog` was created above; the options outlive the call.
    let compiled =
        unsafe { hiprtcCompileProgram(prog, opt_ptrs.len() as i32, opt_ptrs.as_mut_ptr()) };

    let mut log_size = 0usize;
    // SAFETY: `prog` is live; `log_size` is writable.
    let status = unsafe { hiprtcGetProgramLogSize(prog, &mut log_size) };
    assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS);
    let mut log = vec![0u8; log_size.max(1)];
    if log_size > 0 {
        // SAFETY: `log` has `log_size` bytes.
        let s = unsafe { hiprtcGetProgramLog(prog, log.as_mut_ptr().cast()) };
        assert_eq!(s, hiprtcResult::HIPRTC_SUCCESS);
    }
    let log = String::from_utf8_lossy(&log)
        .trim_end_matches('\0')
        .to_owned();

    let mut code = Vec::new();
    if compiled == hiprtcResult::HIPRTC_SUCCESS {
        let mut size = 0usize;
        // SAFETY: `prog` is live; `size` is writable.
        let status = unsafe { hiprtcGetCodeSize(prog, &mut size) };
        assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS);
        code = vec![0u8; size];
        // SAFETY: `code` has `size` bytes.
        let status = unsafe { hiprtcGetCode(prog, code.as_mut_ptr().cast()) };
        assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS);
    }
    // SAFETY: `prog` is live and not used afterwards.
    let status = unsafe { hiprtcDestroyProgram(&mut prog) };
    assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS);
    (compiled, log, code)
}

#[test]
fn hiprtc_compiles_axpy_to_an_amdgpu_elf() {
    amd_runtime();
    let (status, log, code) = compile(AXPY, &["--offload-arch=gfx90a", "-O3"]);
    assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS, "log:\n{log}");
    assert!(code.len() > 64, "code object of {} bytes", code.len());
    assert_eq!(&code[..4], b"\x7fELF", "not an ELF file");
    assert_eq!(code[4], 2, "ELF class is not 64-bit");
    let e_machine = u16::from_le_bytes([code[18], code[19]]);
    assert_eq!(e_machine, 224, "e_machine is not EM_AMDGPU");
    assert!(
        code.windows(b"axpy".len()).any(|w| w == b"axpy"),
        "the kernel's symbol is not in the code object"
    );
}

/// The processors the issue asks about, with the `EF_AMDGPU_MACH_*` value
/// their code objects carry in the low byte of the ELF header's `e_flags`.
const TARGETS: [(&str, u8); 5] = [
    ("gfx1010", 0x33),
    ("gfx1030", 0x36),
    ("gfx1100", 0x41),
    ("gfx90a", 0x3f),
    ("gfx942", 0x4c),
];

/// Which of [`TARGETS`] each release's hiprtc (through its comgr's LLVM)
/// compiles for, as measured: ROCm 5.2's LLVM predates gfx1100 and gfx942.
fn hiprtc_supports(release: Rocm, processor: &str) -> bool {
    match release {
        Rocm::V5_2 => !matches!(processor, "gfx1100" | "gfx942"),
        Rocm::V5_7 | Rocm::V6_4 => true,
    }
}

/// hiprtc compiles for each processor the release supports, to a code
/// object for exactly that processor, and refuses the others with a log
/// that names the processor.
#[test]
fn hiprtc_compiles_for_each_processor_the_release_supports() {
    amd_runtime();
    let release = Rocm::expected();
    let mut table = Vec::new();
    for (processor, mach) in TARGETS {
        if release == Rocm::V5_2 && !hiprtc_supports(release, processor) {
            // ROCm 5.2.3's hiprtc crashes the process (SIGSEGV) when asked
            // for a processor its LLVM does not know: not called.
            table.push(format!("{processor}: not asked (5.2's hiprtc crashes)"));
            continue;
        }
        let (status, log, code) = compile(AXPY, &[&format!("--offload-arch={processor}"), "-O3"]);
        table.push(format!("{processor}: {status:?}"));
        if hiprtc_supports(release, processor) {
            assert_eq!(
                status,
                hiprtcResult::HIPRTC_SUCCESS,
                "{processor}, log:\n{log}"
            );
            assert_eq!(&code[..4], b"\x7fELF", "{processor}: not an ELF file");
            let e_machine = u16::from_le_bytes([code[18], code[19]]);
            assert_eq!(e_machine, 224, "{processor}: e_machine is not EM_AMDGPU");
            assert_eq!(
                code[48], mach,
                "{processor}: e_flags names another processor"
            );
        } else {
            assert_ne!(status, hiprtcResult::HIPRTC_SUCCESS, "{processor} compiled");
            assert!(code.is_empty());
            assert!(
                log.contains(processor),
                "{processor}: log does not name it:\n{log}"
            );
        }
    }
    println!("{release:?}: {}", table.join(", "));
}

#[test]
fn hiprtc_reports_a_syntax_error_in_its_log() {
    amd_runtime();
    let broken = AXPY.replace("y[i] = a * x[i] + y[i];", "y[i] = a * x[i] + ;");
    let (status, log, code) = compile(&broken, &["--offload-arch=gfx90a"]);
    assert_ne!(status, hiprtcResult::HIPRTC_SUCCESS);
    assert_eq!(
        status,
        hiprtcResult::HIPRTC_ERROR_COMPILATION,
        "log:\n{log}"
    );
    assert!(code.is_empty());
    assert!(!log.is_empty(), "the compile log is empty");
    assert!(log.contains("error"), "log does not name the error:\n{log}");
    assert!(log.contains("expected expression"), "log:\n{log}");
}

#[test]
fn layouts_match_the_6_4_headers() {
    use std::mem::{align_of, size_of};
    // Values from clang on ROCm 6.4's headers (also asserted at compile
    // time in the generated code); repeated here as the documented ABI.
    assert_eq!(size_of::<hipError_t>(), 4);
    assert_eq!(size_of::<hipDeviceProp_tR0600>(), 1472);
    assert_eq!(align_of::<hipDeviceProp_tR0600>(), 8);
    assert_eq!(size_of::<hipUUID>(), 16);
    assert_eq!(size_of::<hipStream_t>(), size_of::<*mut ()>());
    assert_eq!(
        size_of::<Option<unsafe extern "C" fn()>>(),
        size_of::<usize>()
    );
}
