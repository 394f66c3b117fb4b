//! How many waves of a kernel fit on one SIMD of its target, from the
//! registers and LDS its code object declares, and how many VGPRs its
//! maximum workgroup size leaves each lane.
//!
//! The numbers are LLVM's (`AMDGPUBaseInfo.cpp`, `IsaInfo`; the register
//! files in the AMDGPU usage guide, <https://llvm.org/docs/AMDGPUUsage.html>):
//!
//! | processors | waves/SIMD | VGPRs per SIMD lane (wave64 / wave32) | VGPR granule (wave64 / wave32) | SGPRs limit waves |
//! | --- | ---: | ---: | ---: | --- |
//! | gfx8, gfx9 (not below) | 10 | 256 | 4 | yes (800 per SIMD) |
//! | gfx90a, gfx940-gfx942, gfx950 (VGPRs and AGPRs one file) | 8 | 512 | 8 | yes |
//! | gfx10.1 (gfx1010-gfx1013) | 20 | 512 / 1024 | 4 / 8 | no |
//! | gfx10.3 (gfx1030-gfx1036), gfx1102, gfx1103, gfx1150 | 16 | 512 / 1024 | 8 / 16 | no |
//! | gfx1100, gfx1101 (1.5x VGPRs) | 16 | 768 / 1536 | 12 / 24 | no |
//!
//! Other processors (gfx6, gfx7, gfx1151, gfx1152, gfx12 among them) are
//! *unknown* here: their waves are not computed rather than guessed.
//!
//! With `v` the kernel's `.vgpr_count` (on gfx90a and later, VGPRs and
//! AGPRs together; on gfx908 the larger of the two), `g` the granule, `T`
//! the VGPRs per lane and `W` the waves per SIMD above:
//!
//! - VGPRs allow `min(W, max(1, T / roundup(v, g)))` waves (`W` when
//!   `v < g`);
//! - on gfx8/gfx9, SGPRs allow 10 waves up to 80, 9 up to 88, 8 up to 100,
//!   else 7 (LLVM's `getOccupancyWithNumSGPRs`);
//! - LDS (64 KiB per CU; 160 KiB on gfx950) allows, for a workgroup of `n`
//!   waves (`n = ceil(max_flat_workgroup_size / wavefront_size)`) using `l`
//!   bytes, `min(W, ceil(min(G, 65536 / l) * n / 4))` waves, where `G`, the
//!   workgroups a CU holds, is `W * 4` for one-wave groups, else
//!   `min(W * 4 / n, B)` with `B` barriers (16; 32 on gfx10+ in WGP mode,
//!   which is assumed there: the default of HIP's compiler);
//! - the waves per SIMD are the smallest of the three.
//!
//! The VGPR cap, the most VGPRs a lane may use so that one workgroup of the
//! maximum size fits, is `min(A, rounddown(T / ceil(n / 4), g))`, with `A`
//! the addressable VGPRs (512 on gfx90a and later, else 256): a kernel
//! that needs more spills. For 1,024 threads on gfx90a, 128.

/// A processor's register files, as far as waves are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Waves one SIMD holds at most.
    pub(crate) max_waves: u32,
    /// VGPRs per lane of one SIMD.
    pub(crate) vgprs_per_lane: u32,
    /// VGPRs are allocated in blocks of this many.
    pub(crate) granule: u32,
    /// VGPRs one lane can address (VGPRs and AGPRs together, where unified).
    pub(crate) addressable: u32,
    /// Whether SGPRs limit the waves (gfx8 and gfx9).
    pub(crate) sgprs_limit: bool,
    /// LDS per CU, bytes.
    pub(crate) lds_per_cu: u32,
    /// Workgroup barriers per CU (bounds the workgroups of more than one wave).
    pub(crate) barriers: u32,
}

/// SIMDs sharing one workgroup's resources (a CU; a WGP on gfx10+).
const SIMDS: u32 = 4;

/// The limits of `processor` (`gfx90a`, no feature suffix) for waves of
/// `wavefront_size` lanes; `None` where they are not known here.
pub(crate) fn limits(processor: &str, wavefront_size: u32) -> Option<Limits> {
    let wave32 = match wavefront_size {
        32 => true,
        64 => false,
        _ => return None,
    };
    let gfx9 = |max_waves, vgprs_per_lane, granule, addressable, lds_per_cu| Limits {
        max_waves,
        vgprs_per_lane,
        granule,
        addressable,
        sgprs_limit: true,
        lds_per_cu,
        barriers: 16,
    };
    let rdna = |max_waves, vgprs64: u32, granule64: u32| Limits {
        max_waves,
        vgprs_per_lane: if wave32 { 2 * vgprs64 } else { vgprs64 },
        granule: if wave32 { 2 * granule64 } else { granule64 },
        addressable: 256,
        sgprs_limit: false,
        lds_per_cu: 65536,
        barriers: 32,
    };
    let unified = matches!(processor, "gfx90a" | "gfx940" | "gfx941" | "gfx942");
    Some(match processor {
        _ if wave32 && !processor.starts_with("gfx10") && !processor.starts_with("gfx11") => {
            return None
        }
        _ if unified => gfx9(8, 512, 8, 512, 65536),
        "gfx950" => gfx9(8, 512, 8, 512, 163_840),
        "gfx801" | "gfx802" | "gfx803" | "gfx805" | "gfx810" | "gfx900" | "gfx902" | "gfx904"
        | "gfx906" | "gfx908" | "gfx909" | "gfx90c" => gfx9(10, 256, 4, 256, 65536),
        "gfx1010" | "gfx1011" | "gfx1012" | "gfx1013" => rdna(20, 512, 4),
        "gfx1030" | "gfx1031" | "gfx1032" | "gfx1033" | "gfx1034" | "gfx1035" | "gfx1036"
        | "gfx1102" | "gfx1103" | "gfx1150" => rdna(16, 512, 8),
        "gfx1100" | "gfx1101" => rdna(16, 768, 12),
        _ => return None,
    })
}

/// Waves per SIMD for a kernel using `vgprs` (total), `sgprs`, `lds` bytes
/// per workgroup, at `max_workgroup_size` threads of `wavefront_size`.
pub(crate) fn waves_per_simd(
    l: &Limits,
    vgprs: u32,
    sgprs: u32,
    lds: u32,
    max_workgroup_size: u32,
    wavefront_size: u32,
) -> u32 {
    let by_vgprs = if vgprs < l.granule {
        l.max_waves
    } else {
        (l.vgprs_per_lane / vgprs.next_multiple_of(l.granule)).clamp(1, l.max_waves)
    };
    let by_sgprs = match sgprs {
        _ if !l.sgprs_limit => l.max_waves,
        0..=80 => 10,
        81..=88 => 9,
        89..=100 => 8,
        _ => 7,
    };
    let waves_per_group = max_workgroup_size.max(1).div_ceil(wavefront_size.max(1));
    let groups_per_cu = if waves_per_group == 1 {
        l.max_waves * SIMDS
    } else {
        (l.max_waves * SIMDS / waves_per_group).min(l.barriers)
    };
    let by_lds = match l.lds_per_cu.checked_div(lds) {
        _ if lds == 0 => l.max_waves,
        Some(0) | None => 1,
        Some(fit) => (fit.min(groups_per_cu) * waves_per_group)
            .div_ceil(SIMDS)
            .clamp(1, l.max_waves),
    };
    by_vgprs.min(by_sgprs).min(by_lds).min(l.max_waves)
}

/// The most VGPRs per lane with which a workgroup of `max_workgroup_size`
/// threads still fits on one CU.
pub(crate) fn vgpr_cap(l: &Limits, max_workgroup_size: u32, wavefront_size: u32) -> u32 {
    let waves_per_group = max_workgroup_size.max(1).div_ceil(wavefront_size.max(1));
    let per_simd = waves_per_group.div_ceil(SIMDS);
    let cap = l.vgprs_per_lane / per_simd;
    (cap - cap % l.granule).min(l.addressable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_match_the_issue_and_llvm() {
        let gfx90a = limits("gfx90a", 64).unwrap();
        // Issue 34: 1,024 threads cap gfx90a's kernels at 128 VGPRs.
        assert_eq!(vgpr_cap(&gfx90a, 1024, 64), 128);
        assert_eq!(vgpr_cap(&gfx90a, 256, 64), 512);
        let gfx1030 = limits("gfx1030", 32).unwrap();
        // 32 wave32 waves over 4 SIMDs: 8 each, 1024 / 8.
        assert_eq!(vgpr_cap(&gfx1030, 1024, 32), 128);
        assert_eq!(vgpr_cap(&gfx1030, 64, 32), 256);
        let gfx1100 = limits("gfx1100", 32).unwrap();
        assert_eq!(vgpr_cap(&gfx1100, 1024, 32), 192);
        let gfx906 = limits("gfx906", 64).unwrap();
        assert_eq!(vgpr_cap(&gfx906, 1024, 64), 64);
    }

    #[test]
    fn waves_follow_the_register_file() {
        let gfx90a = limits("gfx90a", 64).unwrap();
        assert_eq!(waves_per_simd(&gfx90a, 3, 6, 0, 1024, 64), 8);
        assert_eq!(waves_per_simd(&gfx90a, 128, 6, 0, 1024, 64), 4);
        assert_eq!(waves_per_simd(&gfx90a, 129, 6, 0, 1024, 64), 3);
        assert_eq!(waves_per_simd(&gfx90a, 512, 6, 0, 1024, 64), 1);
        let gfx908 = limits("gfx908", 64).unwrap();
        assert_eq!(waves_per_simd(&gfx908, 24, 12, 0, 1024, 64), 10);
        assert_eq!(waves_per_simd(&gfx908, 24, 90, 0, 1024, 64), 8);
        let gfx1030 = limits("gfx1030", 32).unwrap();
        assert_eq!(waves_per_simd(&gfx1030, 24, 12, 0, 1024, 32), 16);
        assert_eq!(waves_per_simd(&gfx1030, 96, 100, 0, 1024, 32), 10);
        // LDS: 32 KiB per workgroup of 4 waves: 2 groups per CU, 8 waves
        // over 4 SIMDs.
        assert_eq!(waves_per_simd(&gfx90a, 8, 8, 32768, 256, 64), 2);
        // More LDS than a CU has: the worst case.
        assert_eq!(waves_per_simd(&gfx90a, 8, 8, 100_000, 256, 64), 1);
    }

    #[test]
    fn unknown_targets_say_so() {
        assert!(limits("gfx1201", 32).is_none());
        assert!(limits("gfx700", 64).is_none());
        assert!(limits("gfx90a", 32).is_none());
        assert!(limits("gfx90a", 16).is_none());
        assert!(limits("gfx1030", 64).is_some());
    }
}
