//! Processors and target ids.
//!
//! A target id is a processor followed by `:feature+` or `:feature-` parts
//! (LLVM AMDGPUUsage, "Target ID"): `gfx942:sramecc+:xnack-`. A feature
//! left out means the code runs with either setting. A code object runs on
//! a device when the processors are equal and no feature is fixed one way
//! by one and the other way by the other.

use crate::isa::Target;

/// `EF_AMDGPU_MACH` values of `e_flags` (LLVM AMDGPUUsage, "AMDGPU ELF
/// Header": the processor table), for the processors whose code objects
/// this crate names. gfx942 and gfx1100 are the ones the interpreter runs;
/// the others are named so that errors can say what an image holds.
const MACHS: &[(u32, &str)] = &[
    (0x02c, "gfx900"),
    (0x02f, "gfx906"),
    (0x030, "gfx908"),
    (0x033, "gfx1010"),
    (0x036, "gfx1030"),
    (0x03f, "gfx90a"),
    (0x040, "gfx940"),
    (0x041, "gfx1100"),
    (0x043, "gfx1150"),
    (0x048, "gfx1200"),
    (0x04b, "gfx941"),
    (0x04c, "gfx942"),
    (0x04e, "gfx1201"),
    (0x04f, "gfx950"),
];

/// The processor an `EF_AMDGPU_MACH` value names, if known.
pub(super) fn processor_of_mach(mach: u32) -> Option<&'static str> {
    MACHS.iter().find(|(m, _)| *m == mach).map(|(_, p)| *p)
}

/// The target id of the emulated device for `target`, as its
/// `gcnArchName` reads: gfx942 as an MI300X is configured by default
/// (`gfx942:sramecc+:xnack-`); gfx1100 has neither feature (`gfx1100`).
///
/// [`select`](super::select) matches code objects against this; the
/// runtime should report the same string.
pub fn device_target_id(target: Target) -> &'static str {
    match target {
        Target::Gfx942 => "gfx942:sramecc+:xnack-",
        Target::Gfx1100 => "gfx1100",
    }
}

/// Whether code built for the target id `code` runs on a device with
/// target id `device`: the same processor, and each feature either left
/// unspecified by one of the two or set the same way by both.
pub fn target_runs_on(code: &str, device: &str) -> bool {
    let (Some(code), Some(device)) = (TargetId::parse(code), TargetId::parse(device)) else {
        return false;
    };
    code.processor == device.processor
        && code.features.iter().all(|(name, on)| {
            device
                .features
                .iter()
                .find(|(n, _)| n == name)
                .map_or(true, |(_, device_on)| device_on == on)
        })
}

/// How many features `id` fixes.
pub(super) fn specified_features(id: &str) -> usize {
    TargetId::parse(id).map_or(0, |t| t.features.len())
}

/// A parsed target id.
struct TargetId<'a> {
    processor: &'a str,
    /// (feature, on) for each `:feature+` / `:feature-` part.
    features: Vec<(&'a str, bool)>,
}

impl<'a> TargetId<'a> {
    fn parse(id: &'a str) -> Option<TargetId<'a>> {
        let mut parts = id.trim().split(':');
        let processor = parts.next().filter(|p| !p.is_empty())?;
        let features = parts
            .map(|f| match f.as_bytes().last() {
                Some(b'+') => Some((&f[..f.len() - 1], true)),
                Some(b'-') => Some((&f[..f.len() - 1], false)),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?;
        Some(TargetId {
            processor,
            features,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspecified_features_match_either_setting() {
        assert!(target_runs_on("gfx942", "gfx942:sramecc+:xnack-"));
        assert!(target_runs_on("gfx942:xnack-", "gfx942:sramecc+:xnack-"));
        assert!(!target_runs_on("gfx942:xnack+", "gfx942:sramecc+:xnack-"));
        assert!(target_runs_on("gfx942:xnack+", "gfx942"));
        assert!(!target_runs_on("gfx90a", "gfx942"));
        assert!(!target_runs_on("gfx942:xnack", "gfx942"));
        assert!(target_runs_on("gfx1100", device_target_id(Target::Gfx1100)));
        assert_eq!(specified_features("gfx942:sramecc+:xnack-"), 2);
    }

    #[test]
    fn the_interpreted_processors_have_their_mach_values() {
        for t in Target::ALL {
            assert!(MACHS.iter().any(|(_, p)| *p == t.name()), "{t}");
        }
        assert_eq!(processor_of_mach(0x04c), Some("gfx942"));
        assert_eq!(processor_of_mach(0x041), Some("gfx1100"));
        assert_eq!(processor_of_mach(0x0ff), None);
    }
}
