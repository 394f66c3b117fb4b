//! Phase 2: CUDA enums. Each CUDA enum whose HIP counterpart hip-sys or
//! hipblas-sys binds (by hipify-perl's name for the enum or its aliases, else
//! the HIP enum most of its enumerators map into) becomes an [`EnumDef`]:
//! its enumerators with a HIP counterpart take HIP's value, the others get
//! synthesized values disjoint from HIP's, except those the manifest names
//! as equivalent to a HIP enumerator (`equivalent_enumerators`), which keep
//! CUDA's value and convert to that enumerator. Unmapped enums and
//! enumerators go to the report with the reason.

use super::inputs::Inputs;
use super::manifest::Manifest;
use super::{Decisions, EnumDef, TypeDef};
use anyhow::{bail, Result};
use std::collections::{BTreeMap, BTreeSet};

/// First value tried for a synthesized enumerator.
const SYNTH_BASE: i64 = 0x4000_0000;

/// Reads the CUDA enums of every module; produces `decisions.enums`, their
/// names in `decisions.types`, and report entries. An equivalent the
/// manifest names that is no unmapped enumerator, names no enumerator of the
/// HIP enum, or whose CUDA value HIP's enum also has, is an error.
pub(super) fn decide(
    inputs: &Inputs,
    manifest: &Manifest,
    decisions: &mut Decisions,
) -> Result<()> {
    let (cuda, hipify, hip) = (&inputs.cuda, &inputs.hipify, &inputs.hip);
    let Decisions {
        report,
        emitted,
        enums,
        types,
        ..
    } = decisions;
    let mut used_equivalents = BTreeSet::new();
    for (m, d) in cuda {
        for ename in &d.enum_order {
            let (_, consts) = &d.enums[ename];
            let aliases: Vec<String> = d
                .aliases
                .keys()
                .filter(|a| d.enum_of(a).as_deref() == Some(ename.as_str()))
                .cloned()
                .collect();
            let by_name = std::iter::once(ename)
                .chain(aliases.iter())
                .filter_map(|n| hipify.get(n.as_str()))
                .filter_map(|mp| hip.type_name(&mp.hip))
                .find_map(|h| hip.all.enum_of(&h));
            let target = by_name.or_else(|| {
                let mut count: BTreeMap<String, usize> = BTreeMap::new();
                for (c, _) in consts {
                    if let Some(mp) = hipify.get(c.as_str()) {
                        if let Some((e, _)) = hip.enum_of_const(&mp.hip) {
                            *count.entry(e).or_default() += 1;
                        }
                    }
                }
                count.into_iter().max_by_key(|(_, n)| *n).map(|(e, _)| e)
            });
            let Some(h) = target else {
                let reason = match hipify
                    .get(ename.as_str())
                    .or_else(|| aliases.iter().find_map(|a| hipify.get(a.as_str())))
                {
                    Some(mp) => hip.missing_reason(&mp.hip),
                    None => "no HIP counterpart in hipify-perl".to_owned(),
                };
                for n in std::iter::once(ename).chain(aliases.iter()) {
                    report
                        .unmapped
                        .entry(*m)
                        .or_default()
                        .push((n.clone(), format!("enum: {reason}")));
                }
                for (c, _) in consts {
                    let r = match hipify.get(c.as_str()) {
                        Some(mp) if hip.enum_of_const(&mp.hip).is_none() => {
                            hip.missing_reason(&mp.hip)
                        }
                        _ => format!("its enum `{ename}` is not mapped"),
                    };
                    report.unmapped.entry(*m).or_default().push((c.clone(), r));
                }
                continue;
            };
            let (inner, hip_consts) = hip.all.enums[&h].clone();
            let hip_values: BTreeSet<i64> = hip_consts.iter().map(|(_, v)| *v).collect();
            let mut mapped = Vec::new();
            let mut synthesized = Vec::new();
            let mut equivalents = Vec::new();
            let mut next = SYNTH_BASE;
            for (c, cuda_value) in consts {
                let hip_const = hipify.get(c.as_str()).and_then(|mp| {
                    let (e, _) = hip.enum_of_const(&mp.hip)?;
                    (e == h).then(|| hip.const_name(&mp.hip))
                });
                match hip_const {
                    Some(hc) => {
                        report.mapped.entry(*m).or_default().push((
                            c.clone(),
                            "enumerator",
                            format!("`{h}::{hc}`"),
                        ));
                        mapped.push((c.clone(), hc));
                    }
                    None if manifest.equivalent_enumerators.contains_key(c) => {
                        let hc = &manifest.equivalent_enumerators[c];
                        if !hip_consts.iter().any(|(n, _)| n == hc) {
                            bail!("equivalent_enumerators: {c} -> {hc}, which is no enumerator of `{h}`");
                        }
                        if hip_values.contains(cuda_value) {
                            bail!("equivalent_enumerators: {c}'s CUDA value {cuda_value} is also a value of `{h}`");
                        }
                        report.mapped.entry(*m).or_default().push((
                            c.clone(),
                            "enumerator",
                            format!("CUDA's value `{cuda_value}`, passed to HIP as `{h}::{hc}`"),
                        ));
                        used_equivalents.insert(c.clone());
                        equivalents.push((c.clone(), *cuda_value, hc.clone()));
                    }
                    None => {
                        while hip_values.contains(&next) {
                            next += 1;
                        }
                        let reason = match hipify.get(c.as_str()) {
                            None => "no HIP counterpart in hipify-perl".to_owned(),
                            Some(mp) => match hip.enum_of_const(&mp.hip) {
                                Some((e, _)) => {
                                    format!("HIP target `{}` is in enum `{e}`, not `{h}`", mp.hip)
                                }
                                None => hip.missing_reason(&mp.hip),
                            },
                        };
                        report
                            .unmapped
                            .entry(*m)
                            .or_default()
                            .push((c.clone(), reason.clone()));
                        report
                            .synthesized
                            .entry(*m)
                            .or_default()
                            .push((c.clone(), format!("`{next:#x}` ({reason})")));
                        synthesized.push((c.clone(), next));
                        next += 1;
                    }
                }
            }
            for n in std::iter::once(ename).chain(aliases.iter()) {
                types.insert(n.clone(), (*m, TypeDef::Enum(h.clone())));
                emitted.insert(n.clone());
                report
                    .mapped
                    .entry(*m)
                    .or_default()
                    .push((n.clone(), "enum", format!("`{h}`")));
            }
            for (c, _) in &mapped {
                emitted.insert(c.clone());
            }
            for (c, _, _) in &equivalents {
                emitted.insert(c.clone());
            }
            enums.push(EnumDef {
                module: *m,
                name: ename.clone(),
                aliases,
                hip: h,
                inner,
                mapped,
                synthesized,
                equivalents,
                order: consts.iter().map(|(c, _)| c.clone()).collect(),
            });
        }
    }
    let unused: Vec<&String> = manifest
        .equivalent_enumerators
        .keys()
        .filter(|c| !used_equivalents.contains(*c))
        .collect();
    if !unused.is_empty() {
        bail!("equivalent_enumerators: {unused:?} are no unmapped CUDA enumerators");
    }
    Ok(())
}
