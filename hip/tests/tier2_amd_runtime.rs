//! Tier 2: the real AMD runtime without a GPU (ROCm's `libamdhip64` and
//! hiprtc installed, no device). On this tier opening a device must fail
//! with an error naming `hipErrorNoDevice`, and hiprtc must compile.
//!
//! These tests need the AMD runtime and fail, saying so, when another
//! platform is chosen or none loads: this tier never passes by skipping. The
//! GPU runner runs only the GPU tier (`--ignored`), so it does not run them.

use hip::{
    compile, CompileOptions, Device, Error, PinnedHostBuffer, PropertiesLayout, VisibleDevices,
};
use hip_sys::loader::{self, Platform};
use test_kit::Rocm;

/// The AMD runtime. Panics, naming what is missing, when the AMD runtime
/// is not the one loaded: this tier must run.
fn amd() -> &'static loader::Runtime {
    if std::env::var("HIP_PLATFORM").is_ok_and(|p| p.eq_ignore_ascii_case("nvidia")) {
        panic!("tier 2 needs AMD's runtime, but HIP_PLATFORM=nvidia selects the NVIDIA platform");
    }
    let rt = loader::runtime()
        .unwrap_or_else(|e| panic!("tier 2 needs ROCm's libamdhip64 installed: {e}"));
    assert_eq!(rt.platform, Platform::Amd, "tier 2 needs AMD's runtime");
    rt
}

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
"#;

#[test]
fn no_device_is_an_error_naming_hip_error_no_device() {
    amd();
    let e = Device::count().unwrap_err();
    assert_eq!(
        e.hip_status(),
        Some(hip_sys::hipError_t::hipErrorNoDevice),
        "{e}"
    );
    assert_eq!(e.call(), Some("hipGetDeviceCount"));
    let msg = e.to_string();
    assert!(
        msg.contains("hipErrorNoDevice") && msg.contains("hipGetDeviceCount"),
        "{msg}"
    );

    let e = Device::get(0).unwrap_err();
    assert!(e.to_string().contains("hipErrorNoDevice"), "{e}");
    assert!(Device::all().is_err());
}

#[test]
fn hiprtc_compiles_for_an_explicit_arch() {
    amd();
    let out =
        compile(SAXPY, &CompileOptions::for_arch("gfx90a").option("-O3")).expect("hiprtc compiles");
    // An AMD code object is an ELF file (possibly in an offload bundle).
    assert!(
        out.code.len() > 100,
        "code object of {} bytes",
        out.code.len()
    );
    let elf = out.code.windows(4).any(|w| w == b"\x7fELF");
    let bundle = out.code.starts_with(b"__CLANG_OFFLOAD_BUNDLE__");
    assert!(elf || bundle, "not an ELF/bundle: {:?}", &out.code[..16]);
    // The kernel's name is in the symbol table.
    assert!(out.code.windows(5).any(|w| w == b"saxpy"));
}

#[test]
fn hiprtc_returns_the_warning_log() {
    amd();
    let src = "extern \"C\" __global__ void k(int* p) { int unused_variable_here = 1; p[0] = 2; }";
    let out = compile(src, &CompileOptions::for_arch("gfx90a").option("-Wall")).expect("compiles");
    assert!(!out.code.is_empty());
    assert!(
        out.log.contains("unused_variable_here"),
        "log: {:?}",
        out.log
    );
}

#[test]
fn a_syntax_error_returns_the_full_log() {
    amd();
    let src = "extern \"C\" __global__ void broken(float* p) { p[0] = ; }";
    let opts = CompileOptions {
        name: Some("broken.hip".into()),
        ..CompileOptions::for_arch("gfx90a")
    };
    let e = compile(src, &opts).unwrap_err();
    match &e {
        Error::Compile {
            program,
            options,
            log,
            status,
        } => {
            assert_eq!(program, "broken.hip");
            assert_eq!(options, &vec!["--offload-arch=gfx90a".to_string()]);
            assert_eq!(*status, hip_sys::hiprtcResult::HIPRTC_ERROR_COMPILATION);
            assert!(log.contains("error"), "log: {log}");
            assert!(log.contains("expected expression"), "log: {log}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    assert!(e.to_string().contains("expected expression"));
    assert_eq!(e.compile_log().map(|l| l.is_empty()), Some(false));
}

#[test]
fn nul_bytes_are_rejected_before_hiprtc() {
    amd();
    let e = compile("a\0b", &CompileOptions::default()).unwrap_err();
    assert!(matches!(e, Error::Invalid { .. }), "{e}");
    let e = compile("", &CompileOptions::default().option("-D\0")).unwrap_err();
    assert!(matches!(e, Error::Invalid { .. }), "{e}");
}

#[test]
fn the_runtime_version_picks_the_properties_layout() {
    let rt = amd();
    let v = hip::runtime_version().expect("hipRuntimeGetVersion works without a device");
    assert_eq!(v.major, rt.version.major, "{v} vs loader's {}", rt.version);
    let layout = PropertiesLayout::for_runtime(rt.platform, rt.version);
    if rt.version.major >= 6 {
        assert_eq!(layout, PropertiesLayout::R0600);
    } else {
        assert_eq!(layout, PropertiesLayout::R0000);
    }
}

/// A function the loaded runtime lacks comes back from the real call as
/// `hipErrorNotSupported`, and the error made of that status says the
/// function is missing; a function it has, failing for another reason, is
/// reported as that failure. Both statuses are the ones the runtime stack
/// returns, not values written here.
///
/// `hipGetDevicePropertiesR0600` arrived with ROCm 6.0: the 5.x runtimes
/// (Debian 12's 5.2, the 5.7 sysroot) lack it; 6.4 has it, and there the
/// call without a device fails as a present function does. (6.4 lacks none
/// of the bound functions, so the missing case is a 5.x test.)
#[test]
fn missing_functions_are_reported_as_such() {
    let rt = amd();
    let missing = "hipGetDevicePropertiesR0600";
    if Rocm::expected().has_r0600() {
        assert!(rt.is_available(missing), "runtime {}", rt.version);
        let mut props = hip_sys::hipDeviceProp_tR0600::default();
        // SAFETY: `props` is a valid, writable struct of the type the call fills.
        let status = unsafe { hip_sys::hipGetDevicePropertiesR0600(&mut props, 0) };
        let e = fails_as_present(missing, status);
        println!("{missing} without a device: {e}");
        return;
    }
    assert!(
        !rt.is_available(missing),
        "tier 2 needs a pre-6.0 runtime (Debian's libamdhip64-5) to call a missing function; \
         runtime {} provides {missing}",
        rt.version
    );
    let mut props = hip_sys::hipDeviceProp_tR0600::default();
    // SAFETY: `props` is a valid, writable struct of the type the call fills.
    let status = unsafe { hip_sys::hipGetDevicePropertiesR0600(&mut props, 0) };
    assert_eq!(status, hip_sys::hipError_t::hipErrorNotSupported);
    let e = Error::from_hip(missing, status);
    assert!(
        matches!(
            e,
            Error::Hip {
                symbol_missing: true,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("does not provide"), "{e}");

    // A function the runtime has: without a device it fails, and not as
    // missing.
    assert!(rt.is_available("hipMalloc"));
    let mut p = std::ptr::null_mut();
    // SAFETY: `p` is a valid place for the returned pointer.
    let status = unsafe { hip_sys::hipMalloc(&mut p, 256) };
    let e = fails_as_present("hipMalloc", status);
    assert!(!e.to_string().contains("does not provide"), "{e}");
    println!("hipMalloc without a device: {e}");
}

/// The error of a call to a function the runtime has, failing without a
/// device: any status but success, and not "missing".
fn fails_as_present(name: &'static str, status: hip_sys::hipError_t) -> Error {
    assert_ne!(
        status,
        hip_sys::hipError_t::hipSuccess,
        "no device, yet {name} succeeded"
    );
    assert_ne!(status, hip_sys::hipError_t::hipErrorNotSupported, "{name}");
    let e = Error::from_hip(name, status);
    assert!(
        matches!(
            e,
            Error::Hip {
                symbol_missing: false,
                ..
            }
        ),
        "{e:?}"
    );
    e
}

#[test]
fn visible_devices_report_reads_the_environment() {
    let r = VisibleDevices::from_env();
    assert_eq!(
        r.hip_visible_devices,
        std::env::var("HIP_VISIBLE_DEVICES").ok()
    );
    assert_eq!(
        r.rocr_visible_devices,
        std::env::var("ROCR_VISIBLE_DEVICES").ok()
    );
    let text = r.to_string();
    for k in [
        "HIP_VISIBLE_DEVICES",
        "CUDA_VISIBLE_DEVICES",
        "ROCR_VISIBLE_DEVICES",
        "HSA_OVERRIDE_GFX_VERSION",
    ] {
        assert!(text.contains(k), "{text}");
    }
}

#[test]
fn host_allocation_without_a_device_is_an_error_not_a_panic() {
    amd();
    // hipHostMalloc needs a device; without one it must come back as an Err.
    let r = PinnedHostBuffer::<f32>::zeroed(16);
    assert!(r.is_err(), "{r:?}");
    // A zero-length request allocates nothing and succeeds.
    assert_eq!(
        PinnedHostBuffer::<f32>::zeroed(0)
            .unwrap()
            .as_slice()
            .unwrap()
            .len(),
        0
    );
}
