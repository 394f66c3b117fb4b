//! `NVIDIA_COVERAGE.md`, rendered from the live adapter list by hip-sys's
//! shared coverage renderer: the test fails when the committed file is
//! stale, and `HIPFFT_SYS_BLESS=1 cargo test -p hipfft-sys --lib coverage`
//! rewrites it.

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
            None => vec![
                format!("`{hip}`"),
                "none: `HIPFFT_NOT_IMPLEMENTED`".to_owned(),
            ],
        })
        .collect();
    rows.sort();
    Coverage {
        title: "hipFFT on the NVIDIA platform: coverage",
        command: "HIPFFT_SYS_BLESS=1 cargo test -p hipfft-sys --lib coverage",
        paragraphs: vec![
            "With `HIP_PLATFORM=nvidia`, hipfft-sys opens cuFFT (`libcufft.so.12`, else `.11`) \
             and fills its function table with adapters that have the hipFFT signatures: each \
             converts the plan handle (hipFFT's opaque pointer is the cuFFT `int` handle plus \
             one), passes every other argument unchanged except `HIPFFT_FORMAT_UNDEFINED` \
             (5 -> cuFFT's 7), and maps cuFFT's status to hipFFT's (equal values; \
             `CUFFT_LICENSE_ERROR` and unknown values -> `HIPFFT_INTERNAL_ERROR`). A function \
             without a cuFFT counterpart, or whose symbol the loaded cuFFT does not export \
             (CUDA 13's cuFFT dropped the legacy callback calls), returns \
             `HIPFFT_NOT_IMPLEMENTED`."
                .to_owned(),
            format!("- bindings: {total}\n- with a cuFFT adapter: {done} ({pct})"),
        ],
        columns: &["hipFFT", "cuFFT"],
        rows,
        total: format!("**Total: {done} / {total} ({pct})**"),
    }
}

#[test]
fn coverage_table_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NVIDIA_COVERAGE.md");
    if let Err(e) = coverage().bless_or_compare(path, "HIPFFT_SYS_BLESS") {
        panic!("{e}");
    }
}
