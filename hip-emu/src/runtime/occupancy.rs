//! Occupancy from a kernel's metadata: how many workgroups of a size fit
//! on one multiprocessor (a CU on gfx942, a WGP on gfx1100), limited by
//! VGPRs, SGPRs (gfx9 only), LDS, waves and barriers, as the hardware
//! allocates them (LLVM's `AMDGPUBaseInfo` numbers; the same rules as
//! `hip`'s `code_object/occupancy.rs`).

use crate::code_object::KernelInfo;
use crate::isa::Target;

/// SIMDs per multiprocessor.
const SIMDS: u32 = 4;

struct Limits {
    waves_per_simd: u32,
    vgprs_per_lane: u32,
    granule: u32,
    sgprs_limit: bool,
    lds: u32,
    barriers: u32,
}

fn limits(target: Target, wave: u32) -> Limits {
    match target {
        Target::Gfx942 => Limits {
            waves_per_simd: 8,
            vgprs_per_lane: 512,
            granule: 8,
            sgprs_limit: true,
            lds: 65536,
            barriers: 16,
        },
        Target::Gfx1100 => Limits {
            waves_per_simd: 16,
            vgprs_per_lane: if wave == 32 { 1536 } else { 768 },
            granule: if wave == 32 { 24 } else { 12 },
            sgprs_limit: false,
            lds: 65536,
            barriers: 32,
        },
    }
}

/// Workgroups of `block` threads (with `dynamic_lds` bytes) that one
/// multiprocessor holds at once.
pub(crate) fn blocks_per_multiprocessor(
    target: Target,
    k: &KernelInfo,
    block: u32,
    dynamic_lds: u32,
) -> u32 {
    let wave = if k.wavefront_size == 0 {
        target.wave_size()
    } else {
        k.wavefront_size
    };
    let l = limits(target, wave);
    let waves = block.div_ceil(wave).max(1);
    let vgprs = if target == Target::Gfx942 {
        k.vgpr_count.div_ceil(4) * 4 + k.agpr_count
    } else {
        k.vgpr_count
    };
    let by_vgpr = if vgprs <= l.granule {
        l.waves_per_simd
    } else {
        (l.vgprs_per_lane / vgprs.div_ceil(l.granule) / l.granule).clamp(1, l.waves_per_simd)
    };
    let by_sgpr = if l.sgprs_limit {
        match k.sgpr_count {
            0..=80 => 10,
            81..=88 => 9,
            89..=100 => 8,
            _ => 7,
        }
    } else {
        l.waves_per_simd
    };
    let per_simd = by_vgpr.min(by_sgpr).min(l.waves_per_simd);
    let mut blocks = (per_simd * SIMDS) / waves;
    let lds = k.group_segment_fixed_size + dynamic_lds;
    if let Some(by_lds) = l.lds.checked_div(lds) {
        blocks = blocks.min(by_lds);
    }
    if waves > 1 {
        blocks = blocks.min(l.barriers);
    }
    blocks
}
