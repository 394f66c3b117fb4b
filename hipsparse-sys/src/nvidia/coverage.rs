//! `NVIDIA_COVERAGE.md`, rendered from the live adapter list by hip-sys's
//! shared coverage renderer: the test fails when the committed file is
//! stale, and `HIPSPARSE_SYS_BLESS=1 cargo test -p hipsparse-sys --lib
//! coverage` rewrites it.

use super::{ADAPTERS, HAND_WRITTEN};
use crate::generated::functions::FUNCTION_NAMES;
use hip_sys::coverage::{percent, Coverage};

fn coverage() -> Coverage<'static> {
    let total = FUNCTION_NAMES.len();
    let generated = ADAPTERS.len();
    let done = generated + HAND_WRITTEN.len();
    let pct = percent(done, total);
    let mut rows: Vec<Vec<String>> = FUNCTION_NAMES
        .iter()
        .map(|hip| match ADAPTERS.iter().find(|(h, _)| h == hip) {
            Some((_, cu)) => vec![format!("`{hip}`"), format!("`{cu}`")],
            None if HAND_WRITTEN.contains(hip) => vec![
                format!("`{hip}`"),
                format!(
                    "hand-written over `{}`",
                    hip.replacen("hipsparse", "cusparse", 1)
                ),
            ],
            None => vec![
                format!("`{hip}`"),
                "none: `HIPSPARSE_STATUS_NOT_SUPPORTED`".to_owned(),
            ],
        })
        .collect();
    rows.sort();
    Coverage {
        title: "hipSPARSE on the NVIDIA platform: coverage",
        command: "HIPSPARSE_SYS_BLESS=1 cargo test -p hipsparse-sys --lib coverage",
        paragraphs: vec![
            "With `HIP_PLATFORM=nvidia`, hipsparse-sys opens cuSPARSE (`libcusparse.so.12`) and \
             fills its function table with adapters that have the hipSPARSE signatures and call \
             the cuSPARSE function of the same name. hipSPARSE numbers every enum and status as \
             cuSPARSE does (checked against cuSPARSE 12.5's `cusparse.h` by \
             `src/generated/nvidia/cusparse_enumerators.rs`), so values pass unchanged; an unknown \
             cuSPARSE status becomes `HIPSPARSE_STATUS_INTERNAL_ERROR`. Each generated adapter \
             was checked against `cusparse.h` by `cargo run -p hip-generator -- nvidia-tables`: \
             the same number of arguments, and each parameter's C type equal to what its \
             conversion produces. A function cuSPARSE 12 does not declare (the legacy API \
             CUDA 12 removed: csrmv, csrmm, hyb, csrsv2/csrsm2, csrgemm2, ...), or whose \
             symbol the loaded cuSPARSE does not export, returns \
             `HIPSPARSE_STATUS_NOT_SUPPORTED`."
                .to_owned(),
            format!(
                "- bindings: {total}\n- implemented over cuSPARSE: {done} ({pct}): {generated} \
                 generated adapters, plus {} hand-written in `src/nvidia/mod.rs`: {}",
                HAND_WRITTEN.len(),
                HAND_WRITTEN.map(|h| format!("`{h}`")).join(", ")
            ),
            "The hand-written ones: the status name and text (hipSPARSE's words); the four \
             matrix-descriptor getters, which return the enum itself rather than a status; \
             `hipsparseSpMatSetAttribute`, whose data pointer cuSPARSE declares mutable (it \
             only reads it); and `hipsparseSpSM_solve`, whose external buffer cuSPARSE 12 does \
             not take (it keeps the buffer given to `SpSM_analysis`). Bindings the generator found to differ from \
             cuSPARSE's declaration are not adapted (the manifest's `exclude` list says why): \
             the `csr2gebsr`/`gebsr2gebsc` `_bufferSize` forms (an `int` size in cuSPARSE; the \
             `_bufferSizeExt` forms are adapted), the double-precision prune-by-percentage \
             calls (a `float` percentage in cuSPARSE)."
                .to_owned(),
        ],
        columns: &["hipSPARSE", "cuSPARSE"],
        rows,
        total: format!("**Total: {done} / {total} ({pct})**"),
    }
}

#[test]
fn coverage_table_is_current() {
    // A truncated adapter list must not pass as a fresh table.
    assert!(ADAPTERS.len() >= 200, "only {} adapters", ADAPTERS.len());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NVIDIA_COVERAGE.md");
    if let Err(e) = coverage().bless_or_compare(path, "HIPSPARSE_SYS_BLESS") {
        panic!("{e}");
    }
}
