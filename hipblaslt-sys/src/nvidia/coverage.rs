//! `NVIDIA_COVERAGE.md`, rendered from the live adapter list by hip-sys's
//! shared coverage renderer: the test fails when the committed file is
//! stale, and `HIPBLASLT_SYS_BLESS=1 cargo test -p hipblaslt-sys --lib
//! coverage` rewrites it.

use super::ADAPTERS;
use crate::generated::functions::FUNCTION_NAMES;
use hip_sys::coverage::{percent, Coverage};

fn coverage() -> Coverage<'static> {
    let total = FUNCTION_NAMES.len();
    let done = ADAPTERS.len();
    let pct = percent(done, total);
    let mut rows: Vec<Vec<String>> = FUNCTION_NAMES
        .iter()
        .map(|hip| match ADAPTERS.iter().find(|(h, _)| h == hip) {
            Some((_, cu)) => vec![format!("`{hip}`"), format!("`{cu}`")],
            None if hip.starts_with("hipblaslt") => vec![
                format!("`{hip}`"),
                "none (an AMD extension): the type's \"unavailable\" value".to_owned(),
            ],
            None => vec![
                format!("`{hip}`"),
                "none: `HIPBLAS_STATUS_NOT_SUPPORTED`".to_owned(),
            ],
        })
        .collect();
    rows.sort();
    Coverage {
        title: "hipBLASLt on the NVIDIA platform: coverage",
        command: "HIPBLASLT_SYS_BLESS=1 cargo test -p hipblaslt-sys --lib coverage",
        paragraphs: vec![
            "With `HIP_PLATFORM=nvidia`, hipblaslt-sys opens cuBLASLt (`libcublasLt.so.13`, \
             else `.12`) and fills its function table with adapters that have the hipBLASLt \
             signatures. hipBLASLt numbers its attributes in its own order, so every \
             `...SetAttribute`/`...GetAttribute` maps the attribute (and an attribute cuBLASLt \
             lacks, such as AMD's `_EXT` ones, returns `HIPBLAS_STATUS_NOT_SUPPORTED` before \
             cuBLASLt is called); `TRANSA`/`TRANSB` values are mapped between hipBLAS's \
             operations (111..113) and cuBLAS's (0..2); the compute type of \
             `hipblasLtMatmulDescCreate` is mapped (64..77 in cuBLAS); an epilogue, order or \
             pointer mode cuBLASLt lacks (Swish, clamp, the `COL16_4R*` orders) is refused. \
             hipBLASLt's 24-byte algorithm cannot hold cuBLASLt's 64-byte one: the heuristic \
             keeps each cuBLASLt algorithm in a process-wide list and hands out a tagged index, \
             which `hipblasLtMatmul` turns back (an algorithm not made so is \
             `HIPBLAS_STATUS_INVALID_VALUE`). cuBLASLt's status becomes hipBLAS's as hipBLAS's \
             own NVIDIA backend maps it. The enum values are checked against cublasLt.h by \
             `src/generated/nvidia/cublaslt_enumerators.rs` (generated)."
                .to_owned(),
            format!("- bindings: {total}\n- with a cuBLASLt adapter: {done} ({pct})"),
        ],
        columns: &["hipBLASLt", "cuBLASLt"],
        rows,
        total: format!("**Total: {done} / {total} ({pct})**"),
    }
}

#[test]
fn coverage_table_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NVIDIA_COVERAGE.md");
    if let Err(e) = coverage().bless_or_compare(path, "HIPBLASLT_SYS_BLESS") {
        panic!("{e}");
    }
}
