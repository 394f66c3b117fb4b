//! Tier-1 tests of the NVIDIA backend: tables, translation, option rewriting,
//! `extra` parsing and the coverage table. None needs CUDA or a GPU.

use super::attributes::{device_attribute_to_cuda, DEVICE_ATTRIBUTES};
use super::device::{error_text, p2p_attribute_to_cuda};
use super::graph::{memset_from_cuda, memset_to_cuda};
use super::launch::{
    parse_extra, HIP_LAUNCH_PARAM_BUFFER_POINTER, HIP_LAUNCH_PARAM_BUFFER_SIZE,
    HIP_LAUNCH_PARAM_END,
};
use super::memory::{
    driver_memory_type, host_malloc_flags_to_cuda, memcpy2d_to_cuda, memory_type_to_driver,
};
use super::rtc::{rewrite_options, rtc_error_text};
use super::status::*;
use crate::generated::functions::FUNCTION_NAMES;
use crate::*;
use core::ffi::c_void;
use std::collections::HashSet;

#[test]
fn every_cuda_runtime_status_maps_to_a_named_hip_status() {
    assert!(
        FROM_CUDA_RUNTIME.len() >= 120,
        "{}",
        FROM_CUDA_RUNTIME.len()
    );
    for &(v, name, hip) in FROM_CUDA_RUNTIME {
        assert_eq!(from_cuda_runtime(v), hip, "{name}");
        assert!(hip.name().is_some(), "{name} -> {hip:?}");
        assert_eq!(v == 0, hip.is_success(), "{name}");
    }
    // The same meaning, not the same number: a few fixed points.
    assert_eq!(from_cuda_runtime(2), hipError_t::hipErrorOutOfMemory);
    assert_eq!(from_cuda_runtime(100), hipError_t::hipErrorNoDevice);
    assert_eq!(from_cuda_runtime(101), hipError_t::hipErrorInvalidDevice);
    assert_eq!(from_cuda_runtime(500), hipError_t::hipErrorNotFound);
    assert_eq!(from_cuda_runtime(600), hipError_t::hipErrorNotReady);
    assert_eq!(from_cuda_runtime(700), hipError_t::hipErrorIllegalAddress);
    assert_eq!(
        from_cuda_runtime(98),
        hipError_t::hipErrorInvalidDeviceFunction
    );
    assert_eq!(from_cuda_runtime(12345), hipError_t::hipErrorUnknown);
    assert_eq!(from_cuda_runtime(-1), hipError_t::hipErrorUnknown);
}

#[test]
fn every_cuda_driver_status_maps_to_a_named_hip_status() {
    assert!(FROM_CUDA_DRIVER.len() >= 90, "{}", FROM_CUDA_DRIVER.len());
    for &(v, name, hip) in FROM_CUDA_DRIVER {
        assert_eq!(from_cuda_driver(v), hip, "{name}");
        assert!(hip.name().is_some(), "{name} -> {hip:?}");
        assert_eq!(v == 0, hip.is_success(), "{name}");
    }
    assert_eq!(from_cuda_driver(2), hipError_t::hipErrorOutOfMemory);
    assert_eq!(from_cuda_driver(101), hipError_t::hipErrorInvalidDevice);
    assert_eq!(from_cuda_driver(500), hipError_t::hipErrorNotFound);
    assert_eq!(from_cuda_driver(201), hipError_t::hipErrorInvalidContext);
    assert_eq!(from_cuda_driver(999), hipError_t::hipErrorUnknown);
    assert_eq!(from_cuda_driver(4242), hipError_t::hipErrorUnknown);
}

#[test]
fn every_nvrtc_status_maps_and_the_shared_ones_round_trip() {
    assert_eq!(FROM_NVRTC.len(), 17);
    for &(v, name, hip) in FROM_NVRTC {
        assert_eq!(from_nvrtc(v), hip, "{name}");
        assert!(hip.name().is_some(), "{name}");
        // nvrtc 0..=11 are hiprtc's values of the same names.
        if v <= 11 {
            assert_eq!(hip.0 as i32, v, "{name}");
            assert_eq!(
                hip.name().unwrap().trim_start_matches("HIPRTC_"),
                name.trim_start_matches("NVRTC_")
            );
        }
    }
    assert_eq!(from_nvrtc(99), hiprtcResult::HIPRTC_ERROR_INTERNAL_ERROR);
}

#[test]
fn error_names_and_strings_are_hips_and_nul_terminated() {
    let (n, m) = error_text(hipError_t::hipErrorOutOfMemory);
    assert_eq!(n.to_str().unwrap(), "hipErrorOutOfMemory");
    assert!(!m.to_bytes().is_empty());
    for v in 0..1100u32 {
        let e = hipError_t(v);
        let (n, _) = error_text(e);
        match e.name() {
            Some(name) => assert_eq!(n.to_str().unwrap(), name),
            None => assert_eq!(n.to_str().unwrap(), "hipErrorUnknown"),
        }
    }
    assert_eq!(
        rtc_error_text(hiprtcResult::HIPRTC_ERROR_COMPILATION)
            .to_str()
            .unwrap(),
        "HIPRTC_ERROR_COMPILATION"
    );
}

#[test]
fn device_attributes_translate_to_cudas_numbers() {
    assert!(DEVICE_ATTRIBUTES.len() >= 70, "{}", DEVICE_ATTRIBUTES.len());
    let mut seen = HashSet::new();
    for &(hip, cu, name) in DEVICE_ATTRIBUTES {
        assert_eq!(device_attribute_to_cuda(hip), Some(cu), "{name}");
        assert!(seen.insert(hip.0), "{name} twice");
    }
    use hipDeviceAttribute_t as A;
    assert_eq!(
        device_attribute_to_cuda(A::hipDeviceAttributeMaxThreadsPerBlock),
        Some(1)
    );
    assert_eq!(
        device_attribute_to_cuda(A::hipDeviceAttributeWarpSize),
        Some(10)
    );
    assert_eq!(
        device_attribute_to_cuda(A::hipDeviceAttributeMultiprocessorCount),
        Some(16)
    );
    assert_eq!(
        device_attribute_to_cuda(A::hipDeviceAttributeComputeCapabilityMajor),
        Some(75)
    );
    assert_eq!(
        device_attribute_to_cuda(A::hipDeviceAttributeComputeCapabilityMinor),
        Some(76)
    );
    assert_eq!(
        device_attribute_to_cuda(A::hipDeviceAttributePciBusId),
        Some(33)
    );
    assert_eq!(
        device_attribute_to_cuda(hipDeviceAttribute_t(999_999)),
        None
    );
}

#[test]
fn jit_options_follow_cudas_numbering() {
    use super::jit::jit_option_to_cuda;
    assert_eq!(
        jit_option_to_cuda(hipJitOption::hipJitOptionMaxRegisters),
        Some(0)
    );
    assert_eq!(
        jit_option_to_cuda(hipJitOption::hipJitOptionInfoLogBuffer),
        Some(3)
    );
    assert_eq!(jit_option_to_cuda(hipJitOption::hipJitOptionFma), Some(24));
    assert_eq!(
        jit_option_to_cuda(hipJitOption::hipJitOptionPositionIndependentCode),
        Some(30)
    );
    assert_eq!(
        jit_option_to_cuda(hipJitOption::hipJitOptionMinCTAPerSM),
        Some(31)
    );
    assert_eq!(
        jit_option_to_cuda(hipJitOption::hipJitOptionMaxThreadsPerBlock),
        Some(32)
    );
    assert_eq!(
        jit_option_to_cuda(hipJitOption::hipJitOptionOverrideDirectiveValues),
        Some(33)
    );
    assert_eq!(
        jit_option_to_cuda(hipJitOption::hipJitOptionIRtoISAOptExt),
        None
    );
    let opts = [
        hipJitOption::hipJitOptionWallTime,
        hipJitOption::hipJitOptionMaxThreadsPerBlock,
    ];
    // SAFETY: two options.
    let two = unsafe { super::jit::jit_options(2, opts.as_ptr()) };
    assert_eq!(two, Ok(vec![2, 32]));
    // SAFETY: no options are read.
    let none = unsafe { super::jit::jit_options(0, core::ptr::null()) };
    assert_eq!(none, Ok(vec![]));
    // SAFETY: a null array with a count is rejected before reading.
    assert!(unsafe { super::jit::jit_options(1, core::ptr::null()) }.is_err());
}

#[test]
fn small_enum_translations() {
    assert_eq!(
        p2p_attribute_to_cuda(hipDeviceP2PAttr::hipDevP2PAttrPerformanceRank),
        Some(1)
    );
    assert_eq!(
        p2p_attribute_to_cuda(hipDeviceP2PAttr::hipDevP2PAttrHipArrayAccessSupported),
        Some(4)
    );
    assert_eq!(p2p_attribute_to_cuda(hipDeviceP2PAttr(77)), None);
    for t in [
        hipMemoryType::hipMemoryTypeHost,
        hipMemoryType::hipMemoryTypeDevice,
        hipMemoryType::hipMemoryTypeArray,
        hipMemoryType::hipMemoryTypeUnified,
    ] {
        assert_eq!(driver_memory_type(memory_type_to_driver(t).unwrap()), t);
    }
    assert_eq!(
        memory_type_to_driver(hipMemoryType::hipMemoryTypeManaged),
        Some(4)
    );
    assert_eq!(memory_type_to_driver(hipMemoryType(77)), None);
    assert_eq!(
        host_malloc_flags_to_cuda(hipHostMallocMapped | hipHostMallocCoherent),
        hipHostMallocMapped
    );
    assert_eq!(
        host_malloc_flags_to_cuda(hipHostMallocPortable | hipHostMallocNonCoherent),
        hipHostMallocPortable
    );
}

#[test]
fn memcpy2d_rewrites_only_memory_types() {
    // SAFETY: all-zero is a valid `hip_Memcpy2D` (integers and pointers).
    let mut p: hip_Memcpy2D = unsafe { core::mem::zeroed() };
    p.srcMemoryType = hipMemoryType::hipMemoryTypeArray;
    p.dstMemoryType = hipMemoryType::hipMemoryTypeHost;
    p.srcPitch = 513;
    p.WidthInBytes = 77;
    p.Height = 3;
    let c = memcpy2d_to_cuda(&p).unwrap();
    assert_eq!(c.srcMemoryType.0, 3);
    assert_eq!(c.dstMemoryType.0, 1);
    assert_eq!((c.srcPitch, c.WidthInBytes, c.Height), (513, 77, 3));
    p.srcMemoryType = hipMemoryType(42);
    assert_eq!(memcpy2d_to_cuda(&p), Err(hipError_t::hipErrorInvalidValue));
}

#[test]
fn memset_params_round_trip() {
    let mut x = 0u8;
    let p = hipMemsetParams {
        dst: (&mut x as *mut u8).cast(),
        elementSize: 4,
        height: 7,
        pitch: 1024,
        value: 0xdead_beef,
        width: 33,
    };
    let c = memset_to_cuda(&p);
    assert_eq!(
        (c.pitch, c.value, c.element_size, c.width, c.height),
        (1024, 0xdead_beef, 4, 33, 7)
    );
    let back = memset_from_cuda(&c);
    assert_eq!(
        (
            back.dst,
            back.elementSize,
            back.height,
            back.pitch,
            back.value,
            back.width
        ),
        (p.dst, p.elementSize, p.height, p.pitch, p.value, p.width)
    );
}

fn key(k: usize) -> *mut c_void {
    k as *mut c_void
}

#[test]
fn extra_buffer_is_parsed_and_rewritten_with_cudas_keys() {
    let mut args = [0u8; 32];
    let mut size = args.len();
    let buf: *mut c_void = args.as_mut_ptr().cast();
    let size_ptr: *mut c_void = (&mut size as *mut usize).cast();
    let extra = [
        key(HIP_LAUNCH_PARAM_BUFFER_POINTER),
        buf,
        key(HIP_LAUNCH_PARAM_BUFFER_SIZE),
        size_ptr,
        key(HIP_LAUNCH_PARAM_END),
    ];
    let e = parse_extra(&extra).unwrap();
    assert_eq!((e.buffer, e.size), (buf, size_ptr));
    let cuda = e.to_cuda();
    assert_eq!(cuda, [key(1), buf, key(2), size_ptr, key(0)]);

    // Order does not matter; anything after the end is ignored.
    let swapped = [
        key(HIP_LAUNCH_PARAM_BUFFER_SIZE),
        size_ptr,
        key(HIP_LAUNCH_PARAM_BUFFER_POINTER),
        buf,
        key(HIP_LAUNCH_PARAM_END),
        key(99),
    ];
    assert_eq!(parse_extra(&swapped).unwrap(), e);
    // Missing size, unknown key, no end: rejected.
    assert!(parse_extra(&[key(1), buf, key(3)]).is_err());
    assert!(parse_extra(&[key(7), buf, key(3)]).is_err());
    assert!(parse_extra(&[key(1), buf, key(2), size_ptr]).is_err());
    // CUDA's END (0) is not HIP's.
    assert!(parse_extra(&[key(1), buf, key(2), size_ptr, key(0)]).is_err());
}

#[test]
fn hiprtc_options_are_rewritten_for_nvrtc() {
    let out = rewrite_options(
        &[
            "--offload-arch=gfx90a",
            "-O3",
            "-ffast-math",
            "-DN=4",
            "-std=c++17",
            "-fgpu-rdc",
            "",
        ],
        Some((9, 0)),
    );
    assert_eq!(
        out,
        [
            "--use_fast_math",
            "-DN=4",
            "-std=c++17",
            "--gpu-architecture=sm_90"
        ]
    );
    // An architecture given is kept and none is added.
    let out = rewrite_options(&["--gpu-architecture=compute_80", "-I/x"], Some((9, 0)));
    assert_eq!(out, ["--gpu-architecture=compute_80", "-I/x"]);
    let out = rewrite_options(&["-arch=sm_89"], Some((9, 0)));
    assert_eq!(out, ["-arch=sm_89"]);
    // No device: nvrtc's default.
    assert!(rewrite_options(&["-g"], None) == ["--device-debug"]);
}

#[test]
fn cuda_locations_follow_the_documented_order() {
    use std::path::PathBuf;
    let env = |k: &str| match k {
        "CUDA_PATH" => Some(PathBuf::from("/opt/cuda-a")),
        "CUDA_HOME" => Some(PathBuf::from("/opt/cuda-b")),
        _ => None,
    };
    let locs = loader::search::cuda_locations_from(&env);
    let dirs: Vec<_> = locs.iter().map(|l| l.dir.clone()).collect();
    assert_eq!(
        dirs,
        [
            Some(PathBuf::from("/opt/cuda-a/lib64")),
            Some(PathBuf::from("/opt/cuda-b/lib64")),
            Some(PathBuf::from("/usr/local/cuda/lib64")),
            None
        ]
    );
    assert_eq!(loader::search::cuda_locations_from(&|_| None).len(), 2);
}

#[test]
fn last_error_is_per_thread_and_reset_by_get() {
    assert_eq!(super::last_error(true), hipError_t::hipSuccess);
    let _ = super::record(hipError_t::hipErrorInvalidValue);
    let _ = super::record(hipError_t::hipSuccess);
    std::thread::spawn(|| assert_eq!(super::last_error(true), hipError_t::hipSuccess))
        .join()
        .unwrap();
    assert_eq!(super::last_error(false), hipError_t::hipErrorInvalidValue);
    assert_eq!(super::last_error(true), hipError_t::hipErrorInvalidValue);
    assert_eq!(super::last_error(true), hipError_t::hipSuccess);
}

/// The coverage table, as committed in `hip-sys/NVIDIA_COVERAGE.md`.
fn coverage_markdown() -> (String, usize) {
    let table = super::table(true);
    let present = table.present();
    let done = present.iter().filter(|p| **p).count();
    let total = FUNCTION_NAMES.len();
    let mut s = String::new();
    s.push_str("# NVIDIA platform coverage\n\n");
    s.push_str("<!-- Generated by `HIP_SYS_BLESS=1 cargo test -p hip-sys --lib coverage`. Do not edit. -->\n\n");
    s.push_str(&format!(
        "The NVIDIA backend of hip-sys implements **{done} of {total}** HIP functions \
         (ROCm 6.4 `hip_runtime_api.h` + `hiprtc.h`): **{:.1}%**.\n\n",
        100.0 * done as f64 / total as f64
    ));
    s.push_str(
        "A function marked `no` returns `hipErrorNotSupported` on this platform \
         (`HIPRTC_ERROR_INTERNAL_ERROR` for hiprtc). A function marked `yes` is \
         also absent at run time when the CUDA symbol it needs is missing from the \
         loaded CUDA release (see `Runtime::is_available`). Not implemented: texture \
         references (removed in CUDA 12), AMD-only extensions, and structs without \
         a CUDA equivalent.\n\n",
    );
    s.push_str("| HIP function | NVIDIA |\n| --- | --- |\n");
    for (name, p) in FUNCTION_NAMES.iter().zip(present.iter()) {
        s.push_str(&format!(
            "| `{name}` | {} |\n",
            if *p { "yes" } else { "no" }
        ));
    }
    s.push_str(&format!(
        "\n**Total: {done} / {total} ({:.1}%)**\n",
        100.0 * done as f64 / total as f64
    ));
    (s, done)
}

#[test]
fn coverage_table_is_current_and_meets_the_target() {
    let (text, done) = coverage_markdown();
    let total = FUNCTION_NAMES.len();
    assert!(
        done * 100 >= total * 70,
        "coverage {done}/{total} is under 70%"
    );
    // Everything the safe crates need is implemented.
    let table = super::table(true);
    let present = table.present();
    for needed in [
        "hipInit",
        "hipGetDeviceCount",
        "hipSetDevice",
        "hipGetDevice",
        "hipDeviceSynchronize",
        "hipDeviceReset",
        "hipDeviceGetAttribute",
        "hipGetDevicePropertiesR0600",
        "hipDeviceGetName",
        "hipDeviceGetPCIBusId",
        "hipMalloc",
        "hipFree",
        "hipHostMalloc",
        "hipHostFree",
        "hipHostRegister",
        "hipHostUnregister",
        "hipMallocManaged",
        "hipMemset",
        "hipMemsetAsync",
        "hipMemsetD8",
        "hipMemsetD16",
        "hipMemsetD32",
        "hipMemset2D",
        "hipMemcpy",
        "hipMemcpyAsync",
        "hipMemcpy2D",
        "hipMemcpy2DAsync",
        "hipMemGetInfo",
        "hipPointerGetAttributes",
        "hipStreamCreateWithFlags",
        "hipStreamCreateWithPriority",
        "hipStreamDestroy",
        "hipStreamQuery",
        "hipStreamSynchronize",
        "hipStreamWaitEvent",
        "hipLaunchHostFunc",
        "hipEventCreateWithFlags",
        "hipEventRecord",
        "hipEventQuery",
        "hipEventSynchronize",
        "hipEventElapsedTime",
        "hipEventDestroy",
        "hipModuleLoadData",
        "hipModuleLoad",
        "hipModuleGetFunction",
        "hipModuleGetGlobal",
        "hipModuleLaunchKernel",
        "hipFuncGetAttribute",
        "hipModuleOccupancyMaxPotentialBlockSize",
        "hipStreamBeginCapture",
        "hipStreamEndCapture",
        "hipStreamIsCapturing",
        "hipGraphInstantiate",
        "hipGraphLaunch",
        "hipGraphExecUpdate",
        "hipGraphDestroy",
        "hipGraphExecDestroy",
        "hipMallocAsync",
        "hipFreeAsync",
        "hipMemPoolCreate",
        "hipMemPoolTrimTo",
        "hipMemPoolSetAttribute",
        "hipDeviceGetDefaultMemPool",
        "hipDeviceCanAccessPeer",
        "hipDeviceEnablePeerAccess",
        "hipMemcpyPeer",
        "hipMemcpyPeerAsync",
        "hiprtcCreateProgram",
        "hiprtcCompileProgram",
        "hiprtcGetCode",
        "hiprtcGetCodeSize",
        "hiprtcGetProgramLog",
        "hiprtcGetLoweredName",
        "hipGetErrorName",
        "hipGetErrorString",
        "hipGetLastError",
        "hipPeekAtLastError",
        "hipRuntimeGetVersion",
        "hipDriverGetVersion",
    ] {
        let i = FUNCTION_NAMES
            .iter()
            .position(|n| *n == needed)
            .unwrap_or_else(|| panic!("{needed} unknown"));
        assert!(present[i], "{needed} is not implemented");
    }
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NVIDIA_COVERAGE.md");
    if std::env::var_os("HIP_SYS_BLESS").is_some() {
        std::fs::write(path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == text,
        "{path} is stale: run `HIP_SYS_BLESS=1 cargo test -p hip-sys --lib coverage`"
    );
}

#[test]
fn graph_node_types_from_cuda() {
    use super::graph::node_type_from_cuda;
    for t in 0..=11u32 {
        assert_eq!(node_type_from_cuda(t), Some(hipGraphNodeType(t)));
    }
    // CUDA's 12 (batch memory op) is HIP's 14, not HIP's MemcpyFromSymbol.
    assert_eq!(
        node_type_from_cuda(12),
        Some(hipGraphNodeType::hipGraphNodeTypeBatchMemOp)
    );
    // CUDA's 13 (conditional) must not read as HIP's MemcpyToSymbol.
    assert_eq!(node_type_from_cuda(13), None);
}
