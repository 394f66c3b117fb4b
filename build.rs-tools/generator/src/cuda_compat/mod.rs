//! `cargo run -p hip-generator -- cuda-compat`: generates cuda-compat's CUDA
//! named modules from hipify-perl's CUDA->HIP table, the CUDA 12.x headers
//! and the committed bindings of hip-sys and hipblas-sys.
//!
//! Every CUDA name goes through the same decision:
//! - hipify-perl maps it to a HIP name that our -sys crates bind: emitted
//!   (function wrapper, enum newtype, type alias or constant);
//! - otherwise it is listed in `cuda-compat/COVERAGE.md` with the reason.
//!
//! Enumerators of a mapped CUDA enum that have no HIP counterpart are emitted
//! behind the `synthesized-enums` feature with values disjoint from HIP's.
//!
//! The phases, one module each, run in this order:
//! [`manifest`] (the checked-in decisions) -> [`inputs`] (hipify-perl, the
//! CUDA headers, the HIP bindings) -> [`enums`] -> [`types`] ->
//! [`functions`] (signatures matched in [`signature`]) -> [`constants`] ->
//! [`coverage`] (accounting and `COVERAGE.md`) -> [`emit`] (the Rust files).

mod constants;
mod coverage;
mod emit;
mod enums;
mod functions;
mod inputs;
mod manifest;
mod signature;
mod types;

use crate::cuda_compat_input::Module;
use anyhow::Result;
use proc_macro2::TokenStream;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syn::Type;

/// The feature that turns on synthesized enumerators.
const FEATURE: &str = "synthesized-enums";

/// One emitted enum.
struct EnumDef {
    module: Module,
    name: String,
    aliases: Vec<String>,
    hip: String,
    inner: Type,
    /// (CUDA name, HIP const name) of mapped enumerators.
    mapped: Vec<(String, String)>,
    /// (CUDA name, value) of synthesized ones.
    synthesized: Vec<(String, i64)>,
    /// (CUDA name, CUDA's value, HIP const name) of enumerators HIP lacks
    /// that CUDA documents as equivalent to one HIP has (the manifest's
    /// `equivalent_enumerators`): defined without the feature, passed to
    /// HIP as the HIP const.
    equivalents: Vec<(String, i64, String)>,
    /// Every CUDA enumerator in CUDA's order.
    order: Vec<String>,
}

/// What a CUDA type name is in cuda-compat.
#[derive(Clone)]
enum TypeDef {
    Enum(String /* HIP enum */),
    Alias(String /* HIP type */),
    /// CUDA's own definition, a primitive (`CUdeviceptr = u64`).
    Own(String),
    /// Another name of cuda-compat's enum (module, enum, HIP enum).
    CompatAlias(Module, String, String),
}

/// What `COVERAGE.md` reports, filled by every phase.
#[derive(Default)]
struct Report {
    /// module -> (CUDA name, what, detail)
    mapped: BTreeMap<Module, Vec<(String, &'static str, String)>>,
    /// module -> (CUDA name, reason)
    unmapped: BTreeMap<Module, Vec<(String, String)>>,
    synthesized: BTreeMap<Module, Vec<(String, String)>>,
    /// hipify mappings in scope, and those whose HIP target we bind.
    hipify_in_scope: usize,
    hipify_target_bound: usize,
    hipify_bound_emitted: usize,
    not_emitted_but_bound: Vec<String>,
}

/// What the decision phases produce: every CUDA name emitted, how, and the
/// report of those that are not.
#[derive(Default)]
struct Decisions {
    report: Report,
    /// Every CUDA name cuda-compat defines.
    emitted: BTreeSet<String>,
    enums: Vec<EnumDef>,
    /// CUDA type name -> (module, what it is).
    types: BTreeMap<String, (Module, TypeDef)>,
    /// Function wrappers per module, in name order: entries of the
    /// module's `cuda_functions!` call.
    functions: BTreeMap<Module, Vec<String>>,
    /// Constants (and re-exports of hand-written helpers) per module.
    consts: BTreeMap<Module, Vec<TokenStream>>,
}

/// Runs every phase: reads the manifest and the inputs, decides each CUDA
/// name, writes `cuda-compat/src/generated/*.rs` and `cuda-compat/COVERAGE.md`.
pub(crate) fn generate(root: &Path) -> Result<()> {
    let manifest = manifest::Manifest::load(root)?;
    let inputs = inputs::load(root, &manifest)?;
    let mut decisions = Decisions::default();
    enums::decide(&inputs, &manifest, &mut decisions)?;
    types::decide(&inputs, &mut decisions)?;
    functions::decide(&inputs, &manifest, &mut decisions)?;
    constants::decide(&inputs, &mut decisions)?;
    coverage::account(&inputs, &mut decisions.report, &decisions.emitted);
    emit::write_modules(root, &inputs, &mut decisions)?;
    emit::write_layout(root, &inputs, &manifest)?;
    coverage::write(root, &decisions.report, &inputs)?;
    let mapped: usize = decisions.report.mapped.values().map(Vec::len).sum();
    let unmapped: usize = decisions.report.unmapped.values().map(Vec::len).sum();
    eprintln!(
        "hip-generator: cuda-compat: {mapped} names mapped, {unmapped} unmapped; hipify mappings with a bound HIP target: {}/{} emitted",
        decisions.report.hipify_bound_emitted, decisions.report.hipify_target_bound
    );
    Ok(())
}
