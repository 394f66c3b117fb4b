//! Tier 3: cudarc's thin `nvrtc::result` layer over the `hip` crate's
//! hiprtc functions on a real GPU. Run with `--ignored`
//! (`HIP_PLATFORM=nvidia` on an NVIDIA GPU, or an AMD GPU).

#![cfg(feature = "nvrtc")]

use cuda_compat::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cuda_compat::nvrtc::{result, sys::nvrtcResult, Ptx};

const SAXPY: &std::ffi::CStr = cr#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

/// Compiles with the platform's default target (the current device's on
/// AMD, nvrtc's default virtual architecture on NVIDIA), loads the code
/// `get_ptx` returns, runs it against a host reference; a broken source
/// fails with `NVRTC_ERROR_COMPILATION`, its reason naming hiprtc's call
/// and its log the error.
#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_result_functions_compile_run_and_keep_hips_message() {
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();

    let prog = result::create_program(SAXPY, Some(c"saxpy.cu")).unwrap();
    // SAFETY: `prog` is live until destroyed below; `SAXPY` is static.
    let code = unsafe {
        result::compile_program::<&str>(prog, &[]).unwrap_or_else(|e| {
            let log = result::get_program_log(prog).unwrap_or_default();
            let bytes: Vec<u8> = log.iter().map(|&c| c as u8).collect();
            panic!("{e}: {}", String::from_utf8_lossy(&bytes))
        });
        let log = result::get_program_log(prog).unwrap();
        assert_eq!(log.last(), Some(&0), "the log is NUL-terminated");
        let code = result::get_ptx(prog).unwrap();
        result::destroy_program(prog).unwrap();
        code
    };
    assert!(!code.is_empty());
    let module = ctx
        .load_module(Ptx::from_binary(code.iter().map(|&c| c as u8).collect()))
        .unwrap();
    let f = module.load_function("saxpy").unwrap();
    let n = 10_000usize;
    let x: Vec<f32> = test_kit::random_nonzero(n, 0.5f32..2.0);
    let y: Vec<f32> = test_kit::random_nonzero(n, 0.5f32..2.0);
    let a = 3.0f32;
    let dx = stream.clone_htod(&x).unwrap();
    let mut dy = stream.clone_htod(&y).unwrap();
    let ni = n as i32;
    // SAFETY: saxpy(float, const float*, float*, int) touches [0, n) of
    // both buffers, which hold n floats.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&a)
            .arg(&dx)
            .arg(&mut dy)
            .arg(&ni)
            .launch(LaunchConfig::for_num_elems(n as u32))
    }
    .unwrap();
    let got = stream.clone_dtoh(&dy).unwrap();
    for i in 0..n {
        let want = a * x[i] + y[i];
        assert!(
            (got[i] - want).abs() <= 1e-5 * want.abs(),
            "y[{i}] = {} (want {want})",
            got[i]
        );
    }

    let broken = c"extern \"C\" __global__ void k(float* x) { x[0] = ; }";
    let prog = result::create_program(broken, None).unwrap();
    // SAFETY: as above.
    unsafe {
        let e = result::compile_program::<&str>(prog, &[]).unwrap_err();
        assert_eq!(e.0, nvrtcResult::NVRTC_ERROR_COMPILATION);
        let (status, why) = result::last_error_detail().expect("a reason");
        assert_eq!(status, e.0);
        assert!(why.contains("hiprtcCompileProgram"), "{why}");
        assert!(format!("{e:?}").contains("hiprtcCompileProgram"), "{e:?}");
        let log = result::get_program_log(prog).unwrap();
        let text: String = log
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8 as char)
            .collect();
        assert!(text.contains("error"), "log: {text}");
        // An option with a NUL byte is refused before hiprtc, saying so.
        let e = result::compile_program(prog, &["--bad\0option"]).unwrap_err();
        assert_eq!(e.0, nvrtcResult::NVRTC_ERROR_INVALID_OPTION);
        assert!(format!("{e:?}").contains("NUL byte at byte 5"), "{e:?}");
        result::destroy_program(prog).unwrap();
    }
}
