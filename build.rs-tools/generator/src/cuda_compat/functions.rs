//! Phase 4: CUDA functions. Each CUDA function whose hipify-perl target
//! is bound becomes a wrapper with CUDA's signature where the types are
//! ABI-identical (see [`super::signature`]), else HIP's.

use super::inputs::Inputs;
use super::manifest::Manifest;
use super::signature::SigCtx;
use super::Decisions;
use anyhow::Result;
use std::collections::BTreeSet;

/// Reads the CUDA function declarations, hipify-perl's entries and the
/// manifest's `extra_args`/`layout_equivalent`; produces
/// `decisions.functions` and report entries.
pub(super) fn decide(
    inputs: &Inputs,
    manifest: &Manifest,
    decisions: &mut Decisions,
) -> Result<()> {
    let (cuda, hipify, hip, maps, cuda_renames, home) = (
        &inputs.cuda,
        &inputs.hipify,
        &inputs.hip,
        &inputs.maps,
        &inputs.cuda_renames,
        &inputs.home,
    );
    let Decisions {
        report,
        emitted,
        enums,
        types,
        functions,
        ..
    } = decisions;
    let mut fn_names: BTreeSet<String> = BTreeSet::new();
    for d in cuda.values() {
        fn_names.extend(d.functions.keys().cloned());
    }
    for mp in maps {
        if hip.function(&mp.hip).is_some() || cuda_renames.contains_key(&mp.cuda) {
            fn_names.insert(mp.cuda.clone());
        }
    }
    fn_names.retain(|n| {
        !types.contains_key(n) && !home.get(n).is_some_and(|_| inputs.is_enumerator(n))
    });
    let ctx = SigCtx {
        hip,
        extra_args: &manifest.extra_args,
        layout_equivalent: &manifest.layout_equivalent,
        types,
        enums,
    };
    for f in &fn_names {
        let Some(m) = inputs.module_of(f) else {
            continue;
        };
        let Some(mp) = hipify.get(f.as_str()) else {
            if cuda[&m].functions.contains_key(f) {
                report
                    .unmapped
                    .entry(m)
                    .or_default()
                    .push((f.clone(), "no HIP counterpart in hipify-perl".to_owned()));
            }
            continue;
        };
        let Some(h) = hip.function(&mp.hip) else {
            let cuda_fn = cuda[&m].functions.contains_key(f)
                || cuda_renames
                    .get(f)
                    .is_some_and(|r| cuda[&m].functions.contains_key(r));
            if !cuda_fn {
                continue; // not a function: a type or constant, handled elsewhere
            }
            report
                .unmapped
                .entry(m)
                .or_default()
                .push((f.clone(), hip.missing_reason(&mp.hip)));
            continue;
        };
        let cuda_sig = cuda[&m]
            .functions
            .get(f)
            .or_else(|| cuda_renames.get(f).and_then(|r| cuda[&m].functions.get(r)));
        let (tokens, note) = ctx.wrapper(m, f, &h, cuda_sig, &hip.all.functions[&h])?;
        functions.entry(m).or_default().push(tokens);
        let detail = if h == mp.hip {
            format!("`{h}`{note}")
        } else if h.starts_with(&mp.hip) {
            format!(
                "`{h}` (hipify-perl: `{}`; the v2 form takes CUDA's types){note}",
                mp.hip
            )
        } else {
            format!("`{h}` (HIP's `{}` is a macro for it){note}", mp.hip)
        };
        report
            .mapped
            .entry(m)
            .or_default()
            .push((f.clone(), "function", detail));
        emitted.insert(f.clone());
    }
    Ok(())
}
