//! Tier 1 (pure Rust): the generated table has every function that
//! libhipblaslt.so.1 7.1.1 exports (Debian's libhipblaslt1 7.1.1+dfsg-4,
//! read with `nm -D --defined-only`, `hipblas*` symbols), the NVIDIA
//! adapters cover the 22 `hipblasLt*` functions cuBLASLt has, and the types
//! have hipBLASLt's layout (the header needed C++ syntax rewritten for C, see
//! the manifest, so these sizes are the check that the layout survived).

use hipblaslt_sys::*;
use std::mem::{align_of, offset_of, size_of};

/// The hipblas* symbols libhipblaslt.so.1 7.1.1 exports, sorted, less
/// `hipblaslt_abort`, which no installed header declares (an internal
/// helper).
const EXPORTED: [&str; 40] = [
    "hipblasLtCreate",
    "hipblasLtDestroy",
    "hipblasLtGetArchName",
    "hipblasLtGetGitRevision",
    "hipblasLtGetVersion",
    "hipblasLtMatmul",
    "hipblasLtMatmulAlgoGetHeuristic",
    "hipblasLtMatmulDescCreate",
    "hipblasLtMatmulDescDestroy",
    "hipblasLtMatmulDescGetAttribute",
    "hipblasLtMatmulDescSetAttribute",
    "hipblasLtMatmulPreferenceCreate",
    "hipblasLtMatmulPreferenceDestroy",
    "hipblasLtMatmulPreferenceGetAttribute",
    "hipblasLtMatmulPreferenceSetAttribute",
    "hipblasLtMatrixLayoutCreate",
    "hipblasLtMatrixLayoutDestroy",
    "hipblasLtMatrixLayoutGetAttribute",
    "hipblasLtMatrixLayoutSetAttribute",
    "hipblasLtMatrixTransform",
    "hipblasLtMatrixTransformDescCreate",
    "hipblasLtMatrixTransformDescDestroy",
    "hipblasLtMatrixTransformDescGetAttribute",
    "hipblasLtMatrixTransformDescSetAttribute",
    "hipblasltExtAMax",
    "hipblasltExtLayerNorm",
    "hipblasltExtSoftmax",
    "hipblasltGetCUs",
    "hipblasltGetCuGranularity",
    "hipblasltGetMemReadBytes",
    "hipblasltGetMemWriteBytesD",
    "hipblasltGetTile0Granularity",
    "hipblasltGetTile1Granularity",
    "hipblasltGetTilesPerCuValue",
    "hipblasltGetTotalGranularityValue",
    "hipblasltGetWaveGranularity",
    "hipblasltSetColdIterationsValue",
    "hipblasltSetFlushValue",
    "hipblasltSetHotIterationsValue",
    "hipblasltSetRotatingBufferSizeValue",
];

#[test]
fn every_exported_function_is_bound() {
    let mut bound = FUNCTION_NAMES.to_vec();
    bound.sort_unstable();
    assert_eq!(bound, EXPORTED);
}

#[test]
fn the_core_api_is_adapted_to_cublaslt() {
    assert_eq!(NVIDIA_ADAPTERS.len(), 22);
    assert!(NVIDIA_ADAPTERS.contains(&("hipblasLtMatmul", "cublasLtMatmul")));
    assert!(!NVIDIA_ADAPTERS
        .iter()
        .any(|(h, _)| h.starts_with("hipblaslt")));
}

#[test]
fn layouts_match_hipblaslts() {
    // hipblasLtMatmulAlgo_t: uint8_t data[16]; size_t max_workspace_bytes.
    assert_eq!(size_of::<hipblasLtMatmulAlgo_t>(), 24);
    assert_eq!(offset_of!(hipblasLtMatmulAlgo_t, max_workspace_bytes), 16);
    // hipblasLtMatmulHeuristicResult_t: algo, workspaceSize, state,
    // wavesCount, int reserved[4].
    assert_eq!(
        offset_of!(hipblasLtMatmulHeuristicResult_t, workspaceSize),
        24
    );
    assert_eq!(offset_of!(hipblasLtMatmulHeuristicResult_t, state), 32);
    assert_eq!(offset_of!(hipblasLtMatmulHeuristicResult_t, wavesCount), 36);
    assert_eq!(offset_of!(hipblasLtMatmulHeuristicResult_t, reserved), 40);
    assert_eq!(size_of::<hipblasLtMatmulHeuristicResult_t>(), 56);
    assert_eq!(align_of::<hipblasLtMatmulHeuristicResult_t>(), 8);
    assert_eq!(size_of::<hipblasLtHandle_t>(), size_of::<*mut u8>());
    assert_eq!(size_of::<hipblasLtMatmulPreferenceOpaque_t>(), 40);
    // The C enums are 4 bytes, as the attribute buffers assume.
    assert_eq!(size_of::<hipblasLtEpilogue_t>(), 4);
    assert_eq!(hipblasLtEpilogue_t::HIPBLASLT_EPILOGUE_GELU_BIAS.0, 36);
    assert_eq!(
        hipblasLtMatrixLayoutAttribute_t::HIPBLASLT_MATRIX_LAYOUT_LD.0,
        6
    );
}
