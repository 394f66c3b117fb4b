//! `NVIDIA_COVERAGE.md`, rendered from the backend's own lists
//! ([`RCCL_ONLY`], [`ADAPTERS`]) and the bindings by hip-sys's shared
//! coverage renderer: the test fails when the committed file is stale, and
//! `RCCL_SYS_BLESS=1 cargo test -p rccl-sys --lib coverage` rewrites it.
//!
//! The NVIDIA backend is a pass-through: NCCL declares RCCL's functions
//! under the same names, so every binding but RCCL's own is resolved from
//! NCCL's symbol of that name. The table says which entry each binding gets
//! from [`super::load`]; whether the loaded NCCL exports a pass-through's
//! symbol is known only at run time (`loader::Rccl::is_available`).

use super::{ADAPTERS, RCCL_ONLY};
use crate::generated::functions::FUNCTION_NAMES;
use crate::{ncclResult_t, Unavailable};
use hip_sys::coverage::{percent, Coverage};

/// Where the NVIDIA backend's entry for a binding comes from.
enum Entry {
    /// NCCL's symbol of the same name.
    PassThrough,
    /// An adapter over NCCL's grouped `ncclSend`/`ncclRecv`.
    Adapter,
    /// Nothing: the binding returns the "symbol missing" status.
    Missing,
}

fn entry(name: &str) -> Entry {
    if !RCCL_ONLY.contains(&name) {
        Entry::PassThrough
    } else if ADAPTERS.contains(&name) {
        Entry::Adapter
    } else {
        Entry::Missing
    }
}

fn status(s: ncclResult_t) -> String {
    format!("`{}`", s.name().expect("a named ncclResult_t"))
}

fn code_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn coverage() -> Coverage<'static> {
    let symbol_missing = status(ncclResult_t::symbol_missing());
    let library_missing = status(ncclResult_t::library_missing());
    let total = FUNCTION_NAMES.len();
    let passed = FUNCTION_NAMES
        .iter()
        .filter(|n| matches!(entry(n), Entry::PassThrough))
        .count();
    let adapted = FUNCTION_NAMES
        .iter()
        .filter(|n| matches!(entry(n), Entry::Adapter))
        .count();
    let done = passed + adapted;
    let pct = percent(done, total);
    let without: Vec<&str> = RCCL_ONLY
        .iter()
        .copied()
        .filter(|n| !ADAPTERS.contains(n))
        .collect();
    let mut names = FUNCTION_NAMES;
    names.sort_unstable();
    let rows: Vec<Vec<String>> = names
        .iter()
        .map(|name| {
            let nccl = match entry(name) {
                Entry::PassThrough => format!("`{name}`"),
                Entry::Adapter => "built from `ncclSend`/`ncclRecv` in one group".to_owned(),
                Entry::Missing => format!("none: {symbol_missing}"),
            };
            vec![format!("`{name}`"), nccl]
        })
        .collect();
    Coverage {
        title: "RCCL on the NVIDIA platform: coverage",
        command: "RCCL_SYS_BLESS=1 cargo test -p rccl-sys --lib coverage",
        paragraphs: vec![
            format!(
                "With `HIP_PLATFORM=nvidia`, rccl-sys opens NCCL ({}). RCCL is a port of NCCL \
                 and keeps its C API: the same names and arguments, and the same values for \
                 every enumerator both headers declare (checked against NCCL's `nccl.h` by \
                 `tests/tier1_nccl_enumerators.rs`, generated); HIP's stream is CUDA's on this \
                 platform. So the NVIDIA backend is a pass-through: every binding below whose \
                 NCCL column names a symbol is resolved from NCCL's symbol of that same name, \
                 with no adapter. RCCL's own calls (`rccl_sys::RCCL_ONLY`) are never looked up \
                 in NCCL: {} are built from NCCL's `ncclSend`/`ncclRecv` in one group \
                 (`src/nvidia/rccl_only.rs`; `rccl_sys::NVIDIA_ADAPTERS`), and {} has no \
                 counterpart. A binding without a counterpart, or whose symbol the loaded NCCL \
                 does not export (an NCCL older than the call), returns {symbol_missing}; \
                 without NCCL every binding returns {library_missing} (`src/unavailable.rs`).",
                code_list(crate::loader::SPEC.nvidia.unix).replace(", ", " or "),
                code_list(ADAPTERS),
                code_list(&without),
            ),
            format!(
                "- bindings: {total}\n- resolved from NCCL by the same name: {passed}\n\
                 - built from NCCL's send/recv: {adapted}\n\
                 - implemented over NCCL: {done} ({pct})"
            ),
        ],
        columns: &["RCCL", "NCCL"],
        rows,
        total: format!("**Total: {done} / {total} ({pct})**"),
    }
}

#[test]
fn coverage_table_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NVIDIA_COVERAGE.md");
    if let Err(e) = coverage().bless_or_compare(path, "RCCL_SYS_BLESS") {
        panic!("{e}");
    }
}
