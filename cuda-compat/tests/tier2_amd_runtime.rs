//! Tier 2: the real AMD runtime, no GPU.
//!
//! Needs Debian 12's `libamdhip64-5` (ROCm 5.2.3) and `rocm-device-libs`
//! installed, as CI does. With no AMD runtime these tests fail and say what
//! is missing: they never pass silently.

use cuda_compat::driver::*;
use cuda_compat::nvrtc::*;
use cuda_compat::runtime::*;
use cuda_compat::Platform;
use std::ffi::{c_char, CStr, CString};
use std::ptr;

const INSTALL_HINT: &str =
    "tier 2 needs the AMD runtime: apt-get install libamdhip64-5 rocm-device-libs (Debian 12)";

fn amd_runtime() {
    let rt = cuda_compat::backend().unwrap_or_else(|e| panic!("{INSTALL_HINT}\n{e}"));
    assert_eq!(rt.platform, Platform::Amd, "{INSTALL_HINT}; loaded {rt:?}");
}

#[test]
fn probe_reports_the_amd_runtime() {
    amd_runtime();
    let s = cuda_compat::backend_summary();
    assert!(s.contains("platform amd"), "{s}");
    assert!(s.contains("libamdhip64.so"), "{s}");
    let (major, minor) = test_kit::Rocm::expected().major_minor();
    assert!(s.contains(&format!("version {major}.{minor}.")), "{s}");
}

#[test]
fn device_count_is_cuda_error_no_device() {
    amd_runtime();
    let mut count = -1;
    // SAFETY: `count` is a valid int to write to.
    let status = unsafe { cudaGetDeviceCount(&mut count) };
    assert_eq!(status, cudaErrorNoDevice);
    assert_eq!(status, cudaError_t::cudaErrorNoDevice);
    assert_eq!(count, 0);
    // The driver-API name of the same call gives the driver-named value.
    let mut n = -1;
    // SAFETY: as above.
    let status = unsafe { cuDeviceGetCount(&mut n) };
    assert_eq!(status, CUresult::CUDA_ERROR_NO_DEVICE);
    // The runtime's own name for it.
    // SAFETY: any status may be passed; the result is a static string.
    let name = unsafe { CStr::from_ptr(cudaGetErrorName(cudaErrorNoDevice)) };
    assert_eq!(name.to_str().unwrap(), "hipErrorNoDevice");
}

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

/// nvrtc's usual sequence; returns the status, log and code.
/// ROCm 5.2's hiprtc crashes when two programs compile at once (seen here as
/// SIGSEGV with the test harness's threads), so compiles take turns.
static HIPRTC: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn nvrtc_compile(source: &str, options: &[&str]) -> (nvrtcResult, String, Vec<u8>) {
    let _turn = HIPRTC.lock().unwrap_or_else(|e| e.into_inner());
    let src = CString::new(source).unwrap();
    let name = CString::new("saxpy.cu").unwrap();
    let mut prog: nvrtcProgram = ptr::null_mut();
    // SAFETY: valid NUL-terminated strings; no headers.
    let status = unsafe {
        nvrtcCreateProgram(
            &mut prog,
            src.as_ptr(),
            name.as_ptr(),
            0,
            ptr::null(),
            ptr::null(),
        )
    };
    assert_eq!(status, NVRTC_SUCCESS);
    let opts: Vec<CString> = options.iter().map(|o| CString::new(*o).unwrap()).collect();
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    // SAFETY: `prog` is live; the options outlive the call.
    let compiled = unsafe { nvrtcCompileProgram(prog, ptrs.len() as i32, ptrs.as_ptr()) };
    let mut log_size = 0;
    // SAFETY: `prog` is live; `log_size` is writable.
    let status = unsafe { nvrtcGetProgramLogSize(prog, &mut log_size) };
    assert_eq!(status, NVRTC_SUCCESS);
    let mut log = vec![0u8; log_size.max(1)];
    if log_size > 0 {
        // SAFETY: `log` has `log_size` bytes.
        let status = unsafe { nvrtcGetProgramLog(prog, log.as_mut_ptr().cast()) };
        assert_eq!(status, NVRTC_SUCCESS);
    }
    let log = String::from_utf8_lossy(&log)
        .trim_end_matches('\0')
        .to_owned();
    let mut code = Vec::new();
    if compiled == NVRTC_SUCCESS {
        let mut size = 0;
        // SAFETY: `prog` is live; `size` is writable.
        assert_eq!(unsafe { nvrtcGetPTXSize(prog, &mut size) }, NVRTC_SUCCESS);
        code = vec![0u8; size];
        // SAFETY: `code` has `size` bytes.
        let status = unsafe { nvrtcGetPTX(prog, code.as_mut_ptr().cast()) };
        assert_eq!(status, NVRTC_SUCCESS);
    }
    // SAFETY: `prog` is live and not used afterwards.
    assert_eq!(unsafe { nvrtcDestroyProgram(&mut prog) }, NVRTC_SUCCESS);
    (compiled, log, code)
}

#[test]
fn nvrtc_compile_program_compiles_through_hiprtc() {
    amd_runtime();
    let (status, log, code) = nvrtc_compile(SAXPY, &["--offload-arch=gfx90a"]);
    assert_eq!(status, nvrtcResult::NVRTC_SUCCESS, "log:\n{log}");
    assert!(code.len() > 64, "code object of {} bytes", code.len());
    assert_eq!(&code[..4], b"\x7fELF", "not an AMDGPU ELF code object");
}

#[test]
fn nvrtc_reports_a_compile_error() {
    amd_runtime();
    let broken = SAXPY.replace("a * x[i] + y[i];", "a * x[i] + ;");
    let (status, log, code) = nvrtc_compile(&broken, &["--offload-arch=gfx90a"]);
    assert_eq!(status, NVRTC_ERROR_COMPILATION, "log:\n{log}");
    assert!(log.contains("error"), "log:\n{log}");
    assert!(code.is_empty());
    // SAFETY: any status may be passed; the result is a static string.
    let text = unsafe { CStr::from_ptr(nvrtcGetErrorString(status)) };
    assert!(!text.to_bytes().is_empty());
}
