//! Tier-1 tests of the NVIDIA backend: tables, translation, option rewriting,
//! `extra` parsing and the coverage table. None needs CUDA or a GPU.

use super::attributes::device_attribute_to_cuda;
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
use crate::coverage::{gpu_tested, gpu_tested_rule, percent, Coverage};
use crate::generated::functions::FUNCTION_NAMES;
use crate::*;
use core::ffi::c_void;
use std::collections::{BTreeMap, HashSet};

/// Enumerators read from CUDA's and HIP's headers, and hipify-perl's name
/// pairs between them: `src/generated/nvidia/header_enumerators.txt`,
/// written by `cargo run -p hip-generator -- header-values` with its own C
/// enum parser (it shares nothing with the generator's `nvidia_tables`
/// module, which writes the translations tested here) and checked for
/// staleness by `build.rs-tools/scripts/check-generated.sh`.
struct HeaderEnums {
    /// C enum -> its enumerators in header order, with values.
    enums: BTreeMap<&'static str, Vec<(&'static str, i64)>>,
    /// CUDA enumerator -> its hipify-perl counterpart in the HIP enum.
    hipify: BTreeMap<&'static str, &'static str>,
}

impl HeaderEnums {
    fn load() -> HeaderEnums {
        let mut enums: BTreeMap<&str, Vec<(&str, i64)>> = BTreeMap::new();
        let mut hipify = BTreeMap::new();
        for line in include_str!("../generated/nvidia/header_enumerators.txt").lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            match f.as_slice() {
                [] => {}
                [c, ..] if c.starts_with('#') => {}
                ["enum", e, n, v] => enums
                    .entry(e)
                    .or_default()
                    .push((n, v.parse().expect("a value"))),
                ["hipify", c, h] => assert!(hipify.insert(*c, *h).is_none(), "{c} twice"),
                _ => panic!("header_enumerators.txt: bad line {line:?}"),
            }
        }
        HeaderEnums { enums, hipify }
    }

    fn enumerators(&self, e: &str) -> &[(&'static str, i64)] {
        self.enums
            .get(e)
            .unwrap_or_else(|| panic!("header_enumerators.txt lacks {e}"))
    }

    fn value(&self, e: &str, name: &str) -> i64 {
        self.enumerators(e)
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("{e} has no {name}"))
            .1
    }
}

/// Checks a status translation `translate` from the CUDA enum `cuda` to the
/// HIP enum `hip`, name by name: each CUDA enumerator with a hipify-perl
/// counterpart translates to that counterpart's value in HIP's header; one
/// without translates to a value HIP's header names, and to success exactly
/// when it is CUDA's success. Returns how many were checked by counterpart.
fn check_status_translation(
    headers: &HeaderEnums,
    cuda: &str,
    hip: &str,
    translate: impl Fn(i32) -> i64,
    unknown: i64,
) -> usize {
    let hip_values: BTreeMap<i64, &str> = headers
        .enumerators(hip)
        .iter()
        .map(|(n, v)| (*v, *n))
        .collect();
    let mut wrong = Vec::new();
    let mut by_counterpart = 0;
    let mut values = HashSet::new();
    for &(name, v) in headers.enumerators(cuda) {
        values.insert(v);
        let got = translate(i32::try_from(v).expect("a C int"));
        let got_name = hip_values.get(&got).copied().unwrap_or("(no HIP name)");
        match headers.hipify.get(name) {
            Some(counterpart) => {
                by_counterpart += 1;
                let want = headers.value(hip, counterpart);
                if got != want {
                    wrong.push(format!(
                        "{name} ({v}) -> {got_name} ({got}), hipify-perl's counterpart is {counterpart} ({want})"
                    ));
                }
            }
            None => {
                if !hip_values.contains_key(&got) || (v == 0) != (got == 0) {
                    wrong.push(format!(
                        "{name} ({v}) has no counterpart and -> {got_name} ({got})"
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{cuda} -> {hip}:\n{}", wrong.join("\n"));
    // A value CUDA 12.9 does not define gives the documented fallback.
    let beyond = (0..).find(|v| !values.contains(v) && *v > 1000).unwrap();
    for v in [-1, beyond] {
        assert_eq!(translate(v as i32), unknown, "{cuda} value {v}");
    }
    by_counterpart
}

#[test]
fn cuda_runtime_statuses_translate_to_their_hipify_counterparts() {
    let headers = HeaderEnums::load();
    let n = check_status_translation(
        &headers,
        "cudaError",
        "hipError_t",
        |v| i64::from(from_cuda_runtime(v).0),
        headers.value("hipError_t", "hipErrorUnknown"),
    );
    // CUDA 12.9 has 133 values, 72 with a HIP counterpart: a truncated file
    // or a broken counterpart join must not pass as "nothing to check".
    assert!(n >= 70, "only {n} runtime statuses had a counterpart");
    // The same meaning, not the same number: a few fixed points.
    assert_eq!(from_cuda_runtime(2), hipError_t::hipErrorOutOfMemory);
    assert_eq!(from_cuda_runtime(700), hipError_t::hipErrorIllegalAddress);
}

#[test]
fn cuda_driver_statuses_translate_to_their_hipify_counterparts() {
    let headers = HeaderEnums::load();
    let n = check_status_translation(
        &headers,
        "cudaError_enum",
        "hipError_t",
        |v| i64::from(from_cuda_driver(v).0),
        headers.value("hipError_t", "hipErrorUnknown"),
    );
    assert!(n >= 60, "only {n} driver statuses had a counterpart");
    assert_eq!(from_cuda_driver(201), hipError_t::hipErrorInvalidContext);
}

#[test]
fn nvrtc_statuses_translate_to_their_hipify_counterparts() {
    let headers = HeaderEnums::load();
    let n = check_status_translation(
        &headers,
        "nvrtcResult",
        "hiprtcResult",
        |v| i64::from(from_nvrtc(v).0),
        headers.value("hiprtcResult", "HIPRTC_ERROR_INTERNAL_ERROR"),
    );
    assert!(n >= 12, "only {n} nvrtc statuses had a counterpart");
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

/// Where the backend's HIP -> CUDA attribute mapping departs from
/// hipify-perl's CUDA -> HIP names, each checked by hand against both headers:
/// `(HIP attribute, CUDA attribute it maps to, why)`.
const ATTRIBUTE_DEPARTURES: &[(&str, &str, &str)] = &[
    (
        "hipDeviceAttributeAsyncEngineCount",
        "CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT",
        "hipify-perl also maps the deprecated boolean GPU_OVERLAP here; only ASYNC_ENGINE_COUNT is a count",
    ),
    (
        "hipDeviceAttributeDeviceOverlap",
        "CU_DEVICE_ATTRIBUTE_GPU_OVERLAP",
        "HIP's deprecated overlap boolean is CUDA's deprecated GPU_OVERLAP; hipify-perl sends that to AsyncEngineCount",
    ),
    (
        "hipDeviceAttributePciDomainID",
        "CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID",
        "hipify-perl spells the target PciDomainId, a name ROCm 6.4's header lacks",
    ),
];

#[test]
fn device_attributes_translate_to_their_hipify_counterparts() {
    let headers = HeaderEnums::load();
    let cuda = headers.enumerators("CUdevice_attribute");
    // HIP attribute -> the CUDA attributes hipify-perl gives it as counterpart.
    let mut from_hipify: BTreeMap<&str, Vec<(&str, i64)>> = BTreeMap::new();
    for &(name, v) in cuda {
        if let Some(h) = headers.hipify.get(name) {
            from_hipify.entry(h).or_default().push((name, v));
        }
    }
    let departures: BTreeMap<&str, &str> = ATTRIBUTE_DEPARTURES
        .iter()
        .map(|(h, c, _)| (*h, *c))
        .collect();
    let mut wrong = Vec::new();
    let mut mapped = 0;
    for &(hip, hv) in headers.enumerators("hipDeviceAttribute_t") {
        let got = device_attribute_to_cuda(hipDeviceAttribute_t(hv as u32)).map(i64::from);
        let want: Option<(String, i64)> = match (departures.get(hip), from_hipify.get(hip)) {
            (Some(c), _) => Some((c.to_string(), headers.value("CUdevice_attribute", c))),
            (None, None) => None,
            // Several (HIP holds 2 or 3 sizes where CUDA has one attribute
            // per dimension): the first in CUDA's order, the width.
            (None, Some(cs)) => Some((cs[0].0.to_owned(), cs[0].1)),
        };
        // HIP's begin/end markers share values with real attributes and
        // have no meaning of their own: the real attribute decides.
        if hip.ends_with("Begin") || hip.ends_with("End") {
            continue;
        }
        if got.is_some() {
            mapped += 1;
        }
        if got != want.as_ref().map(|w| w.1) {
            wrong.push(format!("{hip} ({hv}) -> {got:?}, expected {want:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "hipDeviceAttribute_t -> CUdevice_attribute:\n{}",
        wrong.join("\n")
    );
    assert!(mapped >= 70, "only {mapped} attributes map to CUDA");
    // A departure that the rule above would give anyway is not one.
    for (hip, cuda, _) in ATTRIBUTE_DEPARTURES {
        let by_rule = from_hipify.get(hip).map(|cs| cs[0].0);
        assert_ne!(
            by_rule,
            Some(*cuda),
            "{hip}: not a departure from hipify-perl"
        );
    }
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
    let locs = loader::search::cuda_locations_from(loader::search::Os::Unix, &env);
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
    assert_eq!(
        loader::search::cuda_locations_from(loader::search::Os::Unix, &|_| None).len(),
        2
    );
    let windows = loader::search::cuda_locations_from(loader::search::Os::Windows, &env);
    assert_eq!(
        windows[0].dir,
        Some(PathBuf::from("/opt/cuda-a").join("bin"))
    );
    assert_eq!(windows.len(), 3);
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

/// The coverage table, as committed in `hip-sys/NVIDIA_COVERAGE.md`, and
/// how many functions are implemented.
fn coverage() -> (Coverage<'static>, usize) {
    let table = super::table(true);
    let present = table.present();
    // What a GPU test reaches: `src/generated/nvidia/gpu_tested.txt`,
    // written from the test sources by `cargo run -p hip-generator --
    // gpu-tested` (rule in `build.rs-tools/generator/src/gpu_tested.rs`,
    // repeated in the table).
    let tested = gpu_tested(include_str!("../generated/nvidia/gpu_tested.txt"));
    let done = present.iter().filter(|p| **p).count();
    let done_tested = FUNCTION_NAMES
        .iter()
        .zip(present.iter())
        .filter(|(n, p)| **p && tested.contains(**n))
        .count();
    let total = FUNCTION_NAMES.len();
    let pct = percent(done, total);
    let coverage = Coverage {
        title: "NVIDIA platform coverage",
        command: "HIP_SYS_BLESS=1 cargo test -p hip-sys --lib coverage",
        paragraphs: vec![
            format!(
                "The NVIDIA backend of hip-sys implements **{done} of {total}** HIP functions \
                 (ROCm 6.4 `hip_runtime_api.h` + `hiprtc.h`): **{pct}**. \
                 **{done_tested}** of those are GPU-tested."
            ),
            "A function marked `no` returns `hipErrorNotSupported` on this platform \
             (`HIPRTC_ERROR_INTERNAL_ERROR` for hiprtc). A function marked `yes` is \
             also absent at run time when the CUDA symbol it needs is missing from the \
             loaded CUDA release (see `Runtime::is_available`). Not implemented: texture \
             references (removed in CUDA 12), AMD-only extensions, and structs without \
             a CUDA equivalent."
                .to_owned(),
            gpu_tested_rule(", so the column can miss a tested function"),
        ],
        columns: &["HIP function", "NVIDIA", "GPU-tested"],
        rows: FUNCTION_NAMES
            .iter()
            .zip(present.iter())
            .map(|(name, p)| {
                vec![
                    format!("`{name}`"),
                    (if *p { "yes" } else { "no" }).to_owned(),
                    (if tested.contains(name) { "yes" } else { "" }).to_owned(),
                ]
            })
            .collect(),
        total: format!("**Total: {done} / {total} ({pct}), GPU-tested: {done_tested}**"),
    };
    (coverage, done)
}

#[test]
fn coverage_table_is_current_and_meets_the_target() {
    let (coverage, done) = coverage();
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
    if let Err(stale) = coverage.bless_or_compare(path, "HIP_SYS_BLESS") {
        panic!("{stale}");
    }
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
