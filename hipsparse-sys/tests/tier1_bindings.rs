//! Tier 1 (pure Rust): the generated table has every function that
//! libhipsparse.so.1 6.4.3 exports (Debian's libhipsparse1 6.4.3-1, read
//! with `nm -D --defined-only`, in `tests/data/`), the NVIDIA adapters cover
//! the generic API, and the enums have hipSPARSE's numbering.

use hipsparse_sys::*;

/// The hipsparse* symbols libhipsparse.so.1 6.4.3 exports, one a line.
const EXPORTED: &str = include_str!("data/libhipsparse.so.1-6.4.3-exports.txt");

#[test]
fn every_exported_function_is_bound() {
    let exported: Vec<&str> = EXPORTED.lines().collect();
    assert_eq!(exported.len(), 546);
    let mut bound = FUNCTION_NAMES.to_vec();
    bound.sort_unstable();
    let missing: Vec<&&str> = exported.iter().filter(|e| !bound.contains(e)).collect();
    let extra: Vec<&&str> = bound.iter().filter(|b| !exported.contains(b)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing {missing:?}, not exported {extra:?}"
    );
}

#[test]
fn the_generic_api_is_adapted_to_cusparse() {
    for name in [
        "hipsparseCreateCsr",
        "hipsparseCreateConstCsr",
        "hipsparseSpMV",
        "hipsparseSpMM_preprocess",
        "hipsparseSpGEMM_workEstimation",
        "hipsparseSpSV_analysis",
        "hipsparseSpSM_analysis",
        "hipsparseDenseToSparse_analysis",
    ] {
        let cu = name.replacen("hipsparse", "cusparse", 1);
        assert!(
            NVIDIA_ADAPTERS.contains(&(name, cu.as_str())),
            "{name} has no adapter"
        );
    }
    // The legacy API CUDA 12 removed has none.
    assert!(!NVIDIA_ADAPTERS.iter().any(|(h, _)| *h == "hipsparseScsrmv"));
}

#[test]
fn enums_have_hipsparses_numbering() {
    assert_eq!(hipsparseStatus_t::HIPSPARSE_STATUS_ZERO_PIVOT.0, 9);
    assert_eq!(hipsparseFormat_t::HIPSPARSE_FORMAT_CSR.0, 1);
    assert_eq!(hipsparseIndexType_t::HIPSPARSE_INDEX_32I.0, 2);
    assert_eq!(hipsparseSpMMAlg_t::HIPSPARSE_SPMM_CSR_ALG3.0, 12);
    assert_eq!(size_of::<hipsparseSpMatDescr_t>(), size_of::<usize>());
}
