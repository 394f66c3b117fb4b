//! `NVIDIA_COVERAGE.md`, rendered from the live adapter list by hip-sys's
//! shared coverage renderer: the test fails when the committed file is
//! stale, and `HIPSOLVER_SYS_BLESS=1 cargo test -p hipsolver-sys --lib
//! coverage` rewrites it.

use super::{ADAPTERS, ZERO_WORKSPACE};
use crate::generated::functions::FUNCTION_NAMES;
use hip_sys::coverage::{percent, Coverage};

fn coverage() -> Coverage<'static> {
    let total = FUNCTION_NAMES.len();
    let done = ADAPTERS.len() + ZERO_WORKSPACE.len();
    let pct = percent(done, total);
    let mut rows: Vec<Vec<String>> = FUNCTION_NAMES
        .iter()
        .map(|hip| match ADAPTERS.iter().find(|(h, _)| h == hip) {
            Some((_, cu)) => vec![format!("`{hip}`"), format!("`{cu}`")],
            None if ZERO_WORKSPACE.contains(hip) => vec![
                format!("`{hip}`"),
                "none needed: reports 0 (cuSOLVER's call takes no workspace)".to_owned(),
            ],
            None => vec![
                format!("`{hip}`"),
                "none: `HIPSOLVER_STATUS_NOT_SUPPORTED`".to_owned(),
            ],
        })
        .collect();
    rows.sort();
    Coverage {
        title: "hipSOLVER on the NVIDIA platform: coverage",
        command: "HIPSOLVER_SYS_BLESS=1 cargo test -p hipsolver-sys --lib coverage",
        paragraphs: vec![
            "With `HIP_PLATFORM=nvidia`, hipsolver-sys opens cuSOLVER (`libcusolver.so.12`, else \
             `.so.11`) and fills its function table with adapters that have the hipSOLVER \
             signatures. `hipsolverDn*`, `hipsolverRf*` and `hipsolverSp*` call the cuSOLVER \
             function of the same name; hipSOLVER's own API (`hipsolverSgetrf`, ...) calls the \
             `cusolverDn*` routine, leaving out the `work`/`lwork` arguments cuSOLVER does not \
             take (getrf's `lwork`, getrs's and potrs's workspace, the batched potrf/potrs \
             workspace, gesvd_bufferSize's `jobu`/`jobv`), and its size queries for routines \
             that take no workspace in cuSOLVER report 0. Enum values are translated \
             (hipSOLVER's are rocBLAS's: `HIPBLAS_OP_N` is 111, `CUBLAS_OP_N` 0; a value \
             without a cuSOLVER counterpart is `HIPSOLVER_STATUS_INVALID_ENUM`), and so is the \
             status (`CUSOLVER_STATUS_ZERO_PIVOT` 10 -> `HIPSOLVER_STATUS_ZERO_PIVOT` 12, ...; \
             a status hipSOLVER does not declare -> `HIPSOLVER_STATUS_UNKNOWN`). A function \
             without a counterpart, or whose symbol the loaded cuSOLVER does not export, returns \
             `HIPSOLVER_STATUS_NOT_SUPPORTED`."
                .to_owned(),
            format!("- bindings: {total}\n- with a cuSOLVER adapter: {done} ({pct})"),
        ],
        columns: &["hipSOLVER", "cuSOLVER"],
        rows,
        total: format!("**Total: {done} / {total} ({pct})**"),
    }
}

#[test]
fn coverage_table_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NVIDIA_COVERAGE.md");
    if let Err(e) = coverage().bless_or_compare(path, "HIPSOLVER_SYS_BLESS") {
        panic!("{e}");
    }
}
