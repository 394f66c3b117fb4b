//! The `[filter]` table of a library's manifest
//! (`build.rs-tools/generator/libraries/*.toml`): what bindgen takes from the
//! headers, each exclusion with its reason.

use anyhow::Result;
use serde::Deserialize;
use std::path::Path;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Filter {
    /// Headers whose items are bound (paths below `include/`).
    pub(crate) files: Vec<String>,
    /// Headers whose functions make up the loaded function table.
    pub(crate) function_files: Vec<String>,
    /// Headers whose items are taken from another crate instead (hipblas-sys
    /// reuses hip-sys's types).
    #[serde(default)]
    pub(crate) reuse_files: Vec<String>,
    /// Items left out, each with its reason.
    #[serde(default)]
    pub(crate) block: Vec<Block>,
    /// Bindings resolved from another symbol on older runtimes.
    #[serde(default)]
    pub(crate) legacy_symbol: Vec<LegacySymbol>,
    /// Types given a larger alignment than the C headers declare.
    #[serde(default)]
    pub(crate) align: Vec<AlignOverride>,
}

/// A type aligned as the libraries (built as C++) see it, where the C-mode
/// header declares less.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AlignOverride {
    pub(crate) item: String,
    pub(crate) align: usize,
    pub(crate) reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Block {
    pub(crate) item: String,
    #[allow(dead_code)] // read by people: every exclusion states its reason
    pub(crate) reason: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LegacySymbol {
    pub(crate) binding: String,
    pub(crate) symbol: String,
    pub(crate) before_major: u32,
}

/// Checks what serde cannot: every exclusion and override has a reason, and
/// alignments are powers of two.
pub(crate) fn check(filter: &Filter, path: &Path) -> Result<()> {
    for a in &filter.align {
        anyhow::ensure!(
            !a.reason.trim().is_empty(),
            "{}: align `{}` has no reason",
            path.display(),
            a.item
        );
        anyhow::ensure!(
            a.align.is_power_of_two(),
            "{}: align of `{}` is not a power of two",
            path.display(),
            a.item
        );
    }
    for b in &filter.block {
        anyhow::ensure!(
            !b.reason.trim().is_empty(),
            "{}: block `{}` has no reason",
            path.display(),
            b.item
        );
    }
    Ok(())
}
