//! Phase 3: the other CUDA types: those hipify-perl maps and CUDA's
//! typedefs of primitives become aliases of HIP's type, aliases of a
//! cuda-compat enum, or CUDA's own primitive definition.

use super::inputs::Inputs;
use super::{Decisions, TypeDef};
use crate::cuda_compat_input::Ty;
use anyhow::Result;
use std::collections::BTreeSet;

/// Reads the CUDA aliases, structs and hipify-perl's type entries;
/// produces `decisions.types` entries and report entries.
pub(super) fn decide(inputs: &Inputs, decisions: &mut Decisions) -> Result<()> {
    let (cuda, hipify, hip, maps) = (&inputs.cuda, &inputs.hipify, &inputs.hip, &inputs.maps);
    let Decisions {
        report,
        emitted,
        enums,
        types,
        ..
    } = decisions;
    let mut type_names: BTreeSet<String> = BTreeSet::new();
    for d in cuda.values() {
        type_names.extend(d.aliases.keys().cloned());
        type_names.extend(d.structs.iter().cloned());
    }
    for mp in maps {
        if mp.kind == "type" {
            type_names.insert(mp.cuda.clone());
        }
    }
    for t in &type_names {
        if types.contains_key(t) {
            continue;
        }
        let Some(m) = inputs.module_of(t) else {
            continue;
        };
        let cuda_decl = cuda
            .get(&m)
            .filter(|d| d.aliases.contains_key(t) || d.structs.contains(t));
        let cuda_prim = cuda_decl.and_then(|d| match d.resolve(&syn::parse_str(t).ok()?) {
            Ty::Prim(p) => Some(p),
            _ => None,
        });
        // HIP keeps some CUDA names as they are (`dim3`): no hipify entry.
        let hip_t = match hipify.get(t.as_str()) {
            Some(mp) => hip.type_name(&mp.hip),
            None => hip.type_name(t),
        };
        let def = match (hip_t, cuda_prim) {
            (Some(h), Some(p)) => {
                let hip_ty = hip.all.resolve(&syn::parse_str(&h)?);
                // A CUDA integer narrower than HIP's pointer (cuFFT's `int`
                // cufftHandle, hipFFT's pointer hipfftHandle) cannot carry
                // it: the name becomes HIP's type, so handles pass through
                // unchanged and integer arithmetic on them does not compile.
                let narrower_than_hip_pointer = matches!(hip_ty, Ty::Ptr { .. })
                    && !matches!(p.as_str(), "u64" | "i64" | "usize" | "isize");
                if hip_ty == Ty::Prim(p.clone()) || narrower_than_hip_pointer {
                    TypeDef::Alias(h)
                } else {
                    TypeDef::Own(p)
                }
            }
            (Some(h), None) => {
                // A CUDA alias of an enum (`cublasStatus`): an alias of
                // cuda-compat's enum over the same HIP enum.
                let compat = hip.all.enum_of(&h).and_then(|he| {
                    enums
                        .iter()
                        .filter(|e| e.hip == he)
                        .min_by_key(|e| (e.module != m, e.module))
                });
                match compat {
                    Some(e) => TypeDef::CompatAlias(e.module, e.name.clone(), e.hip.clone()),
                    None => TypeDef::Alias(h),
                }
            }
            (None, Some(p)) => TypeDef::Own(p),
            (None, None) => {
                if cuda_decl.is_some() || hipify.contains_key(t.as_str()) {
                    let reason = match hipify.get(t.as_str()) {
                        Some(mp) => hip.missing_reason(&mp.hip),
                        None => "no HIP counterpart in hipify-perl".to_owned(),
                    };
                    report
                        .unmapped
                        .entry(m)
                        .or_default()
                        .push((t.clone(), reason));
                }
                continue;
            }
        };
        let detail = match &def {
            TypeDef::Alias(h) => format!("`{h}`"),
            TypeDef::Own(p) => format!("`{p}` (CUDA's own typedef, ABI-identical)"),
            TypeDef::Enum(h) => format!("`{h}`"),
            TypeDef::CompatAlias(em, e, h) => format!("`{h}` (alias of `{}::{e}`)", em.name()),
        };
        report
            .mapped
            .entry(m)
            .or_default()
            .push((t.clone(), "type", detail));
        emitted.insert(t.clone());
        types.insert(t.clone(), (m, def));
    }
    Ok(())
}
