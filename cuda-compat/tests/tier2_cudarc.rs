//! Tier 2: cudarc's safe API on the real AMD runtime, no GPU.
//!
//! Needs Debian 12's `libamdhip64-5` (ROCm 5.2.3) and `rocm-device-libs`,
//! as CI installs. Without them these tests fail and say what is missing.

use cuda_compat::driver::{result::last_error_detail, sys, CudaContext, DriverError};
use cuda_compat::nvrtc::{compile_ptx, compile_ptx_with_opts, CompileError, CompileOptions, Ptx};
use cuda_compat::Platform;
use std::sync::Mutex;

const INSTALL_HINT: &str =
    "tier 2 needs the AMD runtime: apt-get install libamdhip64-5 rocm-device-libs (Debian 12)";

/// ROCm 5.2's hiprtc is not safe for concurrent compiles in one process;
/// `hip::compile` serialises them, and these tests also keep the detail
/// text of one test from another's view (it is per thread anyway).
static SERIAL: Mutex<()> = Mutex::new(());

fn amd_runtime() {
    let rt = cuda_compat::backend().unwrap_or_else(|e| panic!("{INSTALL_HINT}\n{e}"));
    assert_eq!(rt.platform, Platform::Amd, "{INSTALL_HINT}; loaded {rt:?}");
}

const SIN: &str = r#"
extern "C" __global__ void sin_kernel(float *out, const float *inp, int numel) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < numel) out[i] = sin(inp[i]);
}
"#;

#[test]
fn context_without_a_device_is_cuda_error_no_device() {
    amd_runtime();
    let e = CudaContext::new(0).unwrap_err();
    assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE));
    // The runtime's words kept: the HIP call that failed and its status.
    let (status, why) = last_error_detail().expect("hip's message");
    assert_eq!(status, e.0);
    assert!(why.contains("hip") && why.contains("NoDevice"), "{why}");
    let text = format!("{e:?}");
    assert!(text.contains("CUDA_ERROR_NO_DEVICE"), "{text}");
    // CUDA's own description, as cudarc prints it, on the AMD runtime too
    // (HIP's would be "no ROCm-capable device is detected").
    assert!(
        text.contains("no CUDA-capable device is detected"),
        "CUDA's description: {text}"
    );
    assert_eq!(e.error_name().unwrap().to_str(), Ok("CUDA_ERROR_NO_DEVICE"));
    assert_eq!(
        CudaContext::device_count(),
        Err(DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE))
    );
}

#[test]
fn compile_ptx_without_a_device_targets_the_fallback_arch() {
    amd_runtime();
    let _s = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let ptx = compile_ptx(SIN).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ptx.arch(), Some(cuda_compat::nvrtc::FALLBACK_AMD_ARCH));
    let code = ptx.as_bytes().expect("compiled code");
    // A code object: an ELF file, or clang's offload bundle around one.
    assert!(
        code.starts_with(b"\x7fELF") || code.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"),
        "{:?}",
        &code[..code.len().min(32)]
    );
    // On AMD the text kept is the source (the code is binary).
    assert_eq!(ptx.to_src(), SIN);
    assert!(ptx.loads_on(Platform::Amd).is_ok());
    assert!(ptx.loads_on(Platform::Nvidia).is_err(), "compiled for AMD");
}

#[test]
fn compile_options_are_accepted_by_hiprtc() {
    amd_runtime();
    let _s = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    for opts in [
        CompileOptions {
            ftz: Some(true),
            prec_div: Some(false),
            prec_sqrt: Some(false),
            fmad: Some(true),
            ..Default::default()
        },
        CompileOptions {
            ftz: Some(false),
            prec_div: Some(true),
            prec_sqrt: Some(true),
            fmad: Some(false),
            use_fast_math: Some(true),
            maxrregcount: Some(32),
            include_paths: vec!["/tmp".into()],
            options: vec!["-DSCALE=2".into()],
            arch: Some("gfx1010"),
            name: Some("opts.cu".into()),
        },
    ] {
        let ptx =
            compile_ptx_with_opts(SIN, opts.clone()).unwrap_or_else(|e| panic!("{opts:?}: {e}"));
        assert!(!ptx.as_bytes().unwrap().is_empty());
    }
    // An NVIDIA arch on AMD is replaced by the device's (here the fallback).
    let ptx = compile_ptx_with_opts(
        SIN,
        CompileOptions {
            arch: Some("sm_80"),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(ptx.arch(), Some(cuda_compat::nvrtc::FALLBACK_AMD_ARCH));
}

#[test]
fn a_syntax_error_is_compile_error_with_the_log() {
    amd_runtime();
    let _s = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let broken = SIN.replace("sin(inp[i]);", "sin(inp[i]) +;");
    match compile_ptx(broken) {
        Err(CompileError::CompileError {
            nvrtc,
            options,
            log,
        }) => {
            assert_eq!(
                nvrtc.0,
                cuda_compat::nvrtc::nvrtcResult::NVRTC_ERROR_COMPILATION
            );
            let log = log.to_string_lossy();
            assert!(log.contains("error"), "log: {log}");
            assert!(
                options.iter().any(|o| o.contains("offload-arch")),
                "{options:?}"
            );
        }
        other => panic!("expected CompileError::CompileError, got {other:?}"),
    }
}

#[test]
fn ptx_text_on_amd_is_a_clear_error_before_any_device() {
    amd_runtime();
    // A file that exists: one that cannot be read is
    // CUDA_ERROR_FILE_NOT_FOUND (tier1_envelope.rs).
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("sin.ptx");
    std::fs::write(&file, ".version 7.0\n.target sm_80\n").unwrap();
    for ptx in [Ptx::from_file(&file), Ptx::from_src(".version 7.0\n")] {
        let e = ptx.loads_on(Platform::Amd).unwrap_err();
        assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_INVALID_PTX));
        let text = format!("{e:?}");
        assert!(
            text.contains("PTX runs only on the NVIDIA platform (HIP_PLATFORM=nvidia)"),
            "{text}"
        );
        let (status, why) = last_error_detail().expect("a reason");
        assert_eq!(status, sys::CUresult::CUDA_ERROR_INVALID_PTX);
        assert!(why.contains("HIP_PLATFORM=nvidia"), "{why}");
    }
}

#[test]
fn context_constructors_check_their_input_first() {
    amd_runtime();
    let _s = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let invalid = DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE);
    let no_device = DriverError(sys::CUresult::CUDA_ERROR_NO_DEVICE);
    // CU_CTX_SYNC_MEMOPS has no HIP equivalent: refused before the runtime.
    assert_eq!(CudaContext::new_non_primary(0, 0x80).unwrap_err(), invalid);
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, sys::CUresult::CUDA_ERROR_INVALID_VALUE);
    assert!(why.contains("no HIP equivalent"), "{why}");
    // Valid flags: the runtime's answer, here no device.
    let blocking = sys::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC as u32;
    assert_eq!(
        CudaContext::new_non_primary(0, blocking).unwrap_err(),
        no_device
    );
    // SAFETY: a null context is refused before anything uses it.
    let e = unsafe { CudaContext::from_raw_context(0, 0, std::ptr::null_mut()) }.unwrap_err();
    assert_eq!(e, invalid);
    assert!(last_error_detail().is_some_and(|(_, why)| why.contains("null")));
    let dangling = std::ptr::NonNull::<u8>::dangling().as_ptr().cast();
    // SAFETY: never used: the missing device is found first.
    let e = unsafe { CudaContext::from_raw_context(0, 0, dangling) }.unwrap_err();
    assert_eq!(e, no_device);
}

#[test]
fn external_memory_calls_fail_cleanly_without_a_device() {
    amd_runtime();
    use cuda_compat::driver::result::external_memory as em;
    // SAFETY: -1 is no descriptor; the runtime refuses it.
    assert!(unsafe { em::import_external_memory_opaque_fd(-1, 4096) }.is_err());
    // SAFETY: a null handle, refused.
    assert!(unsafe { em::get_mapped_buffer(std::ptr::null_mut(), 0, 16) }.is_err());
    // SAFETY: as above.
    assert!(unsafe { em::destroy_external_memory(std::ptr::null_mut()) }.is_err());
}

/// cudarc's thin `nvrtc::result` layer over hiprtc: a program compiled
/// for a named gfx target gives a code object; a broken one gives
/// NVRTC_ERROR_COMPILATION and a log naming the error; an option with a
/// NUL byte is refused before hiprtc.
#[test]
fn nvrtc_result_layer_compiles_logs_and_destroys() {
    use cuda_compat::nvrtc::{result, sys::nvrtcResult};
    amd_runtime();
    let _s = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let src = std::ffi::CString::new(SIN).unwrap();
    let arch = format!("--offload-arch={}", cuda_compat::nvrtc::FALLBACK_AMD_ARCH);
    let prog = result::create_program(&src, Some(c"sin.cu")).unwrap();
    // SAFETY: `prog` is live until destroyed; `src` outlives it.
    unsafe {
        result::compile_program(prog, &[arch.as_str()]).unwrap_or_else(|e| {
            let log = result::get_program_log(prog).unwrap_or_default();
            let bytes: Vec<u8> = log.iter().map(|&c| c as u8).collect();
            panic!("{e}: {}", String::from_utf8_lossy(&bytes))
        });
        let code: Vec<u8> = result::get_ptx(prog)
            .unwrap()
            .iter()
            .map(|&c| c as u8)
            .collect();
        assert!(
            code.starts_with(b"\x7fELF") || code.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"),
            "{:?}",
            &code[..code.len().min(32)]
        );
        result::destroy_program(prog).unwrap();
    }

    let broken = std::ffi::CString::new(SIN.replace("sin(inp[i]);", "sin(inp[i]) +;")).unwrap();
    let prog = result::create_program(&broken, None).unwrap();
    // SAFETY: as above.
    unsafe {
        let e = result::compile_program(prog, &[arch.as_str()]).unwrap_err();
        assert_eq!(e.0, nvrtcResult::NVRTC_ERROR_COMPILATION);
        let log = result::get_program_log(prog).unwrap();
        let text: String = log
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8 as char)
            .collect();
        assert!(text.contains("error"), "log: {text}");
        assert_eq!(
            result::compile_program(prog, &["--bad\0option"])
                .unwrap_err()
                .0,
            nvrtcResult::NVRTC_ERROR_INVALID_OPTION
        );
        result::destroy_program(prog).unwrap();
    }
}
