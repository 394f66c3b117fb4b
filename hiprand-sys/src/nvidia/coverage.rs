//! The NVIDIA backend's coverage, and `NVIDIA_COVERAGE.md` rendered from it
//! by hip-sys's shared coverage renderer: the test fails when the committed
//! file is stale, and `HIPRAND_SYS_BLESS=1 cargo test -p hiprand-sys --lib
//! coverage` rewrites it.

use super::adapters::ADAPTERS;
use crate::generated::functions::FUNCTION_NAMES;

/// Every bound function with the cuRAND function its adapter calls, or
/// `None`, in the bindings' order.
pub(crate) fn coverage() -> Vec<(&'static str, Option<&'static str>)> {
    FUNCTION_NAMES
        .iter()
        .map(|hip| {
            let cu = ADAPTERS.iter().find(|(h, _)| h == hip).map(|(_, c)| *c);
            (*hip, cu)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HiprandFunctions;
    use hip_sys::coverage::{percent, Coverage};

    fn file() -> Coverage<'static> {
        let rows = coverage();
        let total = rows.len();
        let done = rows.iter().filter(|(_, c)| c.is_some()).count();
        let pct = percent(done, total);
        Coverage {
            title: "hipRAND on the NVIDIA platform: coverage",
            command: "HIPRAND_SYS_BLESS=1 cargo test -p hiprand-sys --lib coverage",
            paragraphs: vec![
                "With `HIP_PLATFORM=nvidia`, hiprand-sys opens cuRAND (`libcurand.so.10`) and \
                 fills its function table with adapters that have hipRAND's signatures \
                 (`src/generated/nvidia/adapters.rs`): generator types, orderings and direction-vector \
                 sets are translated to cuRAND's values (hipRAND's `HIPRAND_RNG_PSEUDO_XORWOW` \
                 401 is cuRAND's 101; the cuRAND values are read from `curand.h` by the \
                 generator), cuRAND's status is translated back, handles pass through. \
                 cuRAND has no 8-bit, 16-bit or half-precision generation: those functions \
                 return `HIPRAND_STATUS_NOT_IMPLEMENTED`."
                    .to_owned(),
                format!("- bindings: {total}\n- implemented over cuRAND: {done} ({pct})"),
            ],
            columns: &["hipRAND", "cuRAND"],
            rows: rows
                .iter()
                .map(|(h, c)| {
                    vec![
                        format!("`{h}`"),
                        c.map_or("not implemented".to_owned(), |c| format!("`{c}`")),
                    ]
                })
                .collect(),
            total: format!("**Total: {done} / {total} ({pct})**"),
        }
    }

    #[test]
    fn coverage_table_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/NVIDIA_COVERAGE.md");
        if let Err(e) = file().bless_or_compare(path, "HIPRAND_SYS_BLESS") {
            panic!("{e}");
        }
    }

    #[test]
    fn every_adapter_is_a_binding_and_only_a_loaded_symbol_fills_its_entry() {
        assert!(
            !super::super::CURAND.is_filled(),
            "this test needs a process in which cuRAND was not loaded"
        );
        let mut table = HiprandFunctions::EMPTY;
        super::super::adapters::install(&mut table);
        assert_eq!(table.available_count(), 0);
        for (hip, cu) in ADAPTERS {
            assert!(FUNCTION_NAMES.contains(hip), "{hip}");
            assert_eq!(hip.replacen("hiprand", "curand", 1), *cu, "{hip}");
        }
        let missing: Vec<_> = coverage()
            .into_iter()
            .filter(|(_, c)| c.is_none())
            .map(|(h, _)| h)
            .collect();
        assert_eq!(
            missing,
            [
                "hiprandGenerateChar",
                "hiprandGenerateLogNormalHalf",
                "hiprandGenerateNormalHalf",
                "hiprandGenerateShort",
                "hiprandGenerateUniformHalf"
            ]
        );
    }
}
