//! `NVIDIA_COVERAGE.md`, rendered from the live adapter list by hip-sys's
//! shared coverage renderer: the test fails when the committed file is
//! stale, and `HIPBLAS_SYS_BLESS=1 cargo test -p hipblas-sys --lib coverage`
//! rewrites it.

use super::ADAPTERS;
use crate::generated::functions::FUNCTION_NAMES;
use hip_sys::coverage::{gpu_tested, gpu_tested_rule, percent, Coverage};

/// The adapters written by hand in `mod.rs`, beside the generated ones.
const HAND_WRITTEN: [&str; 2] = ["hipblasGetMathMode", "hipblasStatusToString"];

fn coverage() -> Coverage<'static> {
    // What a GPU test reaches: written from the test sources by
    // `cargo run -p hip-generator -- gpu-tested`.
    let tested = gpu_tested(include_str!("../generated/nvidia/gpu_tested.txt"));
    let total = FUNCTION_NAMES.len();
    let generated = ADAPTERS.len();
    let done = generated + HAND_WRITTEN.len();
    let done_tested = ADAPTERS
        .iter()
        .map(|(hip, _)| *hip)
        .chain(HAND_WRITTEN)
        .filter(|f| tested.contains(f))
        .count();
    let pct = percent(done, total);
    let hand_written = HAND_WRITTEN
        .iter()
        .map(|h| format!("`{h}` {}", if tested.contains(h) { "yes" } else { "no" }))
        .collect::<Vec<_>>()
        .join(", ");
    Coverage {
        title: "hipBLAS on the NVIDIA platform: coverage",
        command: "HIPBLAS_SYS_BLESS=1 cargo test -p hipblas-sys --lib coverage",
        paragraphs: vec![
            "With `HIP_PLATFORM=nvidia`, hipblas-sys opens cuBLAS (`libcublas.so.13` or `.12`) \
             and fills its function table with adapters that have the hipBLAS signatures, \
             convert every enum and status (values from hipBLAS's own NVIDIA backend: \
             `HIPBLAS_OP_N` 111 -> `CUBLAS_OP_N` 0, fill 121/122/123 -> 1/0/2, diag 131/132 -> 0/1, \
             side 141/142 -> 0/1, `hipblasDatatype_t` 150.. -> `cudaDataType`, `hipDataType` unchanged, \
             `hipblasComputeType_t` 0..10 -> `CUBLAS_COMPUTE_*` 64..77, `HIPBLAS_GEMM_DEFAULT` 160 -> \
             `CUBLAS_GEMM_DEFAULT` -1) and call cuBLAS. Every other function returns \
             `HIPBLAS_STATUS_NOT_SUPPORTED`. Each generated adapter was checked against \
             `cublas_api.h` by `cargo run -p hip-generator -- nvidia-tables`: the same number of \
             arguments, and each parameter's C type equal to what its conversion produces."
                .to_owned(),
            format!(
                "- bindings: {total}\n\
                 - implemented over cuBLAS: {done} ({pct}): {generated} generated adapters, plus \
                 `hipblasGetMathMode` (maps the mode back) and `hipblasStatusToString`, \
                 hand-written in `src/nvidia/mod.rs`\n\
                 - of those, GPU-tested: {done_tested}"
            ),
            format!(
                "{} The hand-written functions: {hand_written}.",
                gpu_tested_rule(
                    ", and generic calls (`T::gemm`, through the element type's trait impl) are \
                     not resolved per type, so the column misses functions that `hipblas`'s \
                     generic routines reach"
                )
            ),
        ],
        columns: &["hipBLAS", "cuBLAS", "GPU-tested"],
        rows: ADAPTERS
            .iter()
            .map(|(hip, cu)| {
                vec![
                    format!("`{hip}`"),
                    format!("`{cu}`"),
                    (if tested.contains(hip) { "yes" } else { "" }).to_owned(),
                ]
            })
            .collect(),
        total: format!("**Total: {done} / {total} ({pct}), GPU-tested: {done_tested}**"),
    }
}

#[test]
fn coverage_table_is_current() {
    let c = coverage();
    // A truncated adapter list must not pass as a fresh table.
    assert!(ADAPTERS.len() >= 400, "only {} adapters", ADAPTERS.len());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NVIDIA_COVERAGE.md");
    if let Err(stale) = c.bless_or_compare(path, "HIPBLAS_SYS_BLESS") {
        panic!("{stale}");
    }
}
