//! Tier 1 (pure Rust): the generated table has every function that
//! libroctx64.so.4 of ROCm 6.4.1 exports (Debian's libroctx64-4 6.4.1-1,
//! read with `nm -D --defined-only`) but roctracer's hook, and the NVIDIA
//! backend resolves every one NVTX has.

use roctx_sys::*;

/// The roctx* symbols libroctx64.so.4 6.4.1 exports, sorted, without
/// `roctxRegisterTracerCallback` (roctracer's hook, in no header).
const EXPORTED: [&str; 7] = [
    "roctxMarkA",
    "roctxRangePop",
    "roctxRangePushA",
    "roctxRangeStartA",
    "roctxRangeStop",
    "roctx_version_major",
    "roctx_version_minor",
];

#[test]
fn every_exported_function_is_bound() {
    let mut bound: Vec<&str> = FUNCTION_NAMES.to_vec();
    bound.sort_unstable();
    assert_eq!(bound, EXPORTED);
}

#[test]
fn nvidia_resolves_the_five_nvtx_counterparts() {
    let expected = [
        ("roctxMarkA", "nvtxMarkA"),
        ("roctxRangePushA", "nvtxRangePushA"),
        ("roctxRangePop", "nvtxRangePop"),
        ("roctxRangeStartA", "nvtxRangeStartA"),
        ("roctxRangeStop", "nvtxRangeEnd"),
    ];
    assert_eq!(NVIDIA_SYMBOLS, expected);
}

#[test]
fn the_range_id_is_64_bits() {
    // nvtxRangeId_t is uint64_t: the NVIDIA backend relies on the same width.
    assert_eq!(size_of::<roctx_range_id_t>(), 8);
    let id: roctx_range_id_t = u64::MAX;
    assert_eq!(id, u64::MAX);
}

#[test]
fn an_empty_table_has_nothing_available() {
    let table = RoctxFunctions::EMPTY;
    assert_eq!(table.available_count(), 0);
    assert!(!table.is_available("roctxMarkA"));
    assert!(!table.is_available("nvtxMarkA"));
}

/// The non-domain mark and range functions that CUDA 13.0's
/// `libnvtx3interop.so.1` (`.so.1.1.0`) exports, read with `nm -D
/// --defined-only` on the GPU machine (Ubuntu 24.04, 2026-11-26); the
/// file has no `libnvToolsExt` beside it.
const NVTX3INTEROP_EXPORTS: [&str; 14] = [
    "nvtxMarkA",
    "nvtxMarkEx",
    "nvtxMarkW",
    "nvtxRangeEnd",
    "nvtxRangePop",
    "nvtxRangePushA",
    "nvtxRangePushEx",
    "nvtxRangePushW",
    "nvtxRangeStartA",
    "nvtxRangeStartEx",
    "nvtxRangeStartW",
    "nvtxNameOsThreadA",
    "nvtxNameCategoryA",
    "nvtxInitialize",
];

#[test]
fn every_nvtx_symbol_used_is_exported_by_cuda_13() {
    for (roctx, nvtx) in NVIDIA_SYMBOLS {
        assert!(
            NVTX3INTEROP_EXPORTS.contains(nvtx),
            "{roctx} is resolved from {nvtx}, which libnvtx3interop.so.1 does not export"
        );
    }
}
