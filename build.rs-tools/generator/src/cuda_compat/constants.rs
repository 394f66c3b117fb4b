//! Phase 5: CUDA constants: HIP `#define`s bound as constants, enumerators
//! whose CUDA enum is not mapped but whose HIP target is an enumerator, HIP's
//! cast macros (`#define hipCpuDeviceId ((int)-1)`), and re-exports of the
//! hand-written inline helpers.

use super::inputs::Inputs;
use super::Decisions;
use crate::cuda_compat_input::Ty;
use anyhow::Result;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

/// Reads hipify-perl's entries not emitted yet, HIP's constants and cast
/// macros, the CUDA constants and the hand-written helpers; produces
/// `decisions.consts` and report entries.
pub(super) fn decide(inputs: &Inputs, decisions: &mut Decisions) -> Result<()> {
    let (cuda, hipify, hip, maps, handwritten) = (
        &inputs.cuda,
        &inputs.hipify,
        &inputs.hip,
        &inputs.maps,
        &inputs.handwritten,
    );
    let Decisions {
        report,
        emitted,
        consts,
        ..
    } = decisions;
    let mut cuda_consts: BTreeSet<String> = BTreeSet::new();
    for d in cuda.values() {
        cuda_consts.extend(d.consts.keys().cloned());
    }
    for mp in maps {
        if emitted.contains(&mp.cuda) {
            continue;
        }
        let Some(m) = inputs.module_of(&mp.cuda) else {
            continue;
        };
        if let Some(t) = hip.all.consts.get(&mp.hip) {
            let name = format_ident!("{}", mp.cuda);
            let path = hip.path(&mp.hip);
            let doc = format!(" CUDA `{}`: HIP's `{}`.", mp.cuda, mp.hip);
            consts.entry(m).or_default().push(quote! {
                #[doc = #doc]
                pub const #name: #t = #path;
            });
            report.mapped.entry(m).or_default().push((
                mp.cuda.clone(),
                "constant",
                format!("`{}`", mp.hip),
            ));
            emitted.insert(mp.cuda.clone());
        } else if let Some((e, _)) = hip.enum_of_const(&mp.hip) {
            if inputs.is_enumerator(&mp.cuda) {
                continue; // reported with its enum
            }
            let name = format_ident!("{}", mp.cuda);
            let ty = hip.path(&e);
            let hc = format_ident!("{}", hip.const_name(&mp.hip));
            let doc = format!(" CUDA `{}`: HIP's `{e}::{}`.", mp.cuda, mp.hip);
            consts.entry(m).or_default().push(quote! {
                #[doc = #doc]
                pub const #name: #ty = #ty::#hc;
            });
            report.mapped.entry(m).or_default().push((
                mp.cuda.clone(),
                "constant",
                format!("`{e}::{}`", mp.hip),
            ));
            emitted.insert(mp.cuda.clone());
        }
    }
    // HIP's `#define hipCpuDeviceId ((int)-1)`-style constants.
    for mp in maps {
        if emitted.contains(&mp.cuda) {
            continue;
        }
        let Some(m) = inputs.module_of(&mp.cuda) else {
            continue;
        };
        let Some((cty, lit)) = hip.cast_macros.get(&mp.hip) else {
            continue;
        };
        let (ty, value) = match cty.as_str() {
            "int" => (quote!(::core::ffi::c_int), lit.clone()),
            "unsigned" | "unsigned int" => (quote!(::core::ffi::c_uint), lit.clone()),
            t if hip.all.has_type(t) => {
                let path = hip.path(t);
                match hip.all.resolve(&syn::parse_str(t)?) {
                    Ty::Ptr { .. } => (path.clone(), format!("{lit}usize as {path}")),
                    _ => continue,
                }
            }
            _ => continue,
        };
        let name = format_ident!("{}", mp.cuda);
        let value: syn::Expr = syn::parse_str(&value)?;
        let doc = format!(" CUDA `{}`: HIP's `{}`, `(({cty}){lit})`.", mp.cuda, mp.hip);
        consts.entry(m).or_default().push(quote! {
            #[doc = #doc]
            pub const #name: #ty = #value;
        });
        report.mapped.entry(m).or_default().push((
            mp.cuda.clone(),
            "constant",
            format!("`{}` (HIP macro `(({cty}){lit})`)", mp.hip),
        ));
        emitted.insert(mp.cuda.clone());
    }
    for c in &cuda_consts {
        if emitted.contains(c) {
            continue;
        }
        let Some(m) = inputs.module_of(c) else {
            continue;
        };
        let reason = match hipify.get(c.as_str()) {
            Some(mp) => hip.missing_reason(&mp.hip),
            None => "no HIP counterpart in hipify-perl".to_owned(),
        };
        report
            .unmapped
            .entry(m)
            .or_default()
            .push((c.clone(), reason));
    }
    // CUDA's inline helpers, written by hand (HIP's are header-only).
    for (name, m) in handwritten {
        let ni = format_ident!("{name}");
        consts.entry(*m).or_default().push(quote! {
            pub use crate::inline::#ni;
        });
        let hip_name = hipify.get(name.as_str()).map_or("-", |mp| mp.hip.as_str());
        report.mapped.entry(*m).or_default().push((
            name.clone(),
            "function",
            format!(
                "hand-written in `src/inline.rs` (HIP's `{hip_name}` is an inline header function)"
            ),
        ));
        emitted.insert(name.clone());
    }
    Ok(())
}
