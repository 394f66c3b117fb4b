//! `NVIDIA_COVERAGE.md`, rendered from the live symbol list by hip-sys's
//! shared coverage renderer: the test fails when the committed file is
//! stale, and `ROCTX_SYS_BLESS=1 cargo test -p roctx-sys --lib coverage`
//! rewrites it.

use super::SYMBOLS;
use crate::generated::functions::FUNCTION_NAMES;
use hip_sys::coverage::{percent, Coverage};

fn coverage() -> Coverage<'static> {
    let total = FUNCTION_NAMES.len();
    let done = SYMBOLS.len();
    let pct = percent(done, total);
    let mut rows: Vec<Vec<String>> = FUNCTION_NAMES
        .iter()
        .map(|roctx| match SYMBOLS.iter().find(|(r, _)| r == roctx) {
            Some((_, nvtx)) => vec![format!("`{roctx}`"), format!("`{nvtx}`")],
            None => vec![
                format!("`{roctx}`"),
                "none: a no-op returning 0 (NVTX has no version call)".to_owned(),
            ],
        })
        .collect();
    rows.sort();
    Coverage {
        title: "roctx on the NVIDIA platform: coverage",
        command: "ROCTX_SYS_BLESS=1 cargo test -p roctx-sys --lib coverage",
        paragraphs: vec![
            "With `HIP_PLATFORM=nvidia`, roctx-sys opens NVTX: `libnvtx3interop.so.1`, what \
             CUDA 13 ships (it has no `libnvToolsExt`; NVTX 3 is a header library and this \
             file exports its functions for callers without the header), else CUDA 12's \
             `libnvToolsExt.so.1`. Each roctx function below with an NVTX counterpart is \
             resolved straight from that symbol: the C signatures are the same, so there is \
             no adapter. A function without a counterpart, or whose symbol the loaded file \
             lacks, does nothing and returns the value `roctx_sys::Unavailable` gives its \
             type (nothing, level -1, range id 0, version 0); without any NVTX file every \
             call does so, never panicking. Without an attached tool (Nsight Systems), NVTX \
             itself records nothing and its push and pop return -2."
                .to_owned(),
            format!("- bindings: {total}\n- resolved from NVTX: {done} ({pct})"),
        ],
        columns: &["roctx", "NVTX"],
        rows,
        total: format!("**Total: {done} / {total} ({pct})**"),
    }
}

#[test]
fn coverage_table_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NVIDIA_COVERAGE.md");
    if let Err(e) = coverage().bless_or_compare(path, "ROCTX_SYS_BLESS") {
        panic!("{e}");
    }
}
