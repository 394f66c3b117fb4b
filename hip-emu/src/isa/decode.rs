//! Decoding: which encoding a word is, which instruction, its fields, its
//! length (literal constants and DPP/SDWA words included), all from the
//! generated tables.

use super::rt::{FormatInfo, OpInfo, F_SIMM32, NO_OP};
use super::Target;

/// The tables of one ISA.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tables {
    pub(crate) family: Family,
    pub(crate) formats: &'static [FormatInfo],
    pub(crate) ops: &'static [OpInfo],
    /// Encodings in match order (most fixed bits first).
    pub(crate) order: &'static [usize],
}

/// The ISA family of a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// gfx9 (CDNA): M0 at 124, SDWA, no VOP3 literals.
    Cdna,
    /// gfx11 (RDNA 3): NULL at 124, M0 at 125, DPP8, VOPD, VOP3 literals.
    Rdna3,
    /// gfx12 (RDNA 4): tables generated, no target yet.
    #[allow(dead_code)]
    Rdna4,
}

impl Family {
    pub(crate) fn of(target: Target) -> Family {
        match target {
            Target::Gfx942 => Family::Cdna,
            Target::Gfx1100 => Family::Rdna3,
        }
    }

    pub(crate) fn m0(self) -> usize {
        match self {
            Family::Cdna => 124,
            _ => 125,
        }
    }

    /// The SGPR encoding that means "none" in an `saddr`-like field.
    pub(crate) fn is_off(self, sgpr: u32) -> bool {
        match self {
            Family::Cdna => sgpr == 0x7f,
            _ => sgpr == 124 || sgpr == 0x7f,
        }
    }
}

fn order_of(formats: &'static [FormatInfo]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..formats.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(formats[i].fixed_mask.count_ones()));
    order
}

pub(crate) fn tables(family: Family) -> Tables {
    use std::sync::OnceLock;
    static CDNA: OnceLock<Vec<usize>> = OnceLock::new();
    static RDNA3: OnceLock<Vec<usize>> = OnceLock::new();
    static RDNA4: OnceLock<Vec<usize>> = OnceLock::new();
    match family {
        Family::Cdna => Tables {
            family,
            formats: &super::cdna::FORMATS,
            ops: &super::cdna::OPS,
            order: CDNA.get_or_init(|| order_of(&super::cdna::FORMATS)),
        },
        Family::Rdna3 => Tables {
            family,
            formats: &super::rdna3::FORMATS,
            ops: &super::rdna3::OPS,
            order: RDNA3.get_or_init(|| order_of(&super::rdna3::FORMATS)),
        },
        Family::Rdna4 => Tables {
            family,
            formats: &super::rdna4::FORMATS,
            ops: &super::rdna4::OPS,
            order: RDNA4.get_or_init(|| order_of(&super::rdna4::FORMATS)),
        },
    }
}

/// The extension word a VOP1/VOP2/VOPC/VOP3 instruction carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ext {
    None,
    /// DPP16 (gfx9 DPP too): src0 is this word's `vsrc0`.
    Dpp16,
    /// DPP8 (gfx10+), `fi` when 234.
    Dpp8 {
        fi: bool,
    },
    /// SDWA (gfx9).
    Sdwa,
}

/// The fields the interpreter reads, extracted once at decode time
/// (`None` where the encoding has no such field).
#[derive(Debug, Clone, Copy, Default)]
#[allow(dead_code)]
pub(crate) struct Fields {
    pub(crate) abs: Option<u32>,
    pub(crate) acc: Option<u32>,
    pub(crate) addr: Option<u32>,
    pub(crate) clmp: Option<u32>,
    pub(crate) data0: Option<u32>,
    pub(crate) data1: Option<u32>,
    pub(crate) glc: Option<u32>,
    pub(crate) imm: Option<u32>,
    pub(crate) neg: Option<u32>,
    pub(crate) neg_hi: Option<u32>,
    pub(crate) offset: Option<u32>,
    pub(crate) offset0: Option<u32>,
    pub(crate) offset1: Option<u32>,
    pub(crate) omod: Option<u32>,
    pub(crate) opsel: Option<u32>,
    pub(crate) opsel_hi: Option<u32>,
    pub(crate) opsel_hi2: Option<u32>,
    pub(crate) opy: Option<u32>,
    pub(crate) saddr: Option<u32>,
    pub(crate) sbase: Option<u32>,
    pub(crate) sc0: Option<u32>,
    pub(crate) sdata: Option<u32>,
    pub(crate) sdst: Option<u32>,
    pub(crate) simm16: Option<u32>,
    pub(crate) soffset: Option<u32>,
    pub(crate) soffset_en: Option<u32>,
    pub(crate) src0: Option<u32>,
    pub(crate) src1: Option<u32>,
    pub(crate) src2: Option<u32>,
    pub(crate) srcx0: Option<u32>,
    pub(crate) srcy0: Option<u32>,
    pub(crate) ssrc0: Option<u32>,
    pub(crate) ssrc1: Option<u32>,
    pub(crate) sve: Option<u32>,
    pub(crate) vdst: Option<u32>,
    pub(crate) vdstx: Option<u32>,
    pub(crate) vdsty: Option<u32>,
    pub(crate) vsrc1: Option<u32>,
    pub(crate) vsrcx1: Option<u32>,
    pub(crate) vsrcy1: Option<u32>,
}

/// One decoded instruction.
#[derive(Debug, Clone)]
pub(crate) struct Inst {
    pub(crate) format: &'static FormatInfo,
    pub(crate) op: &'static OpInfo,
    /// Up to four dwords: the encoding, then its literal or extension.
    pub(crate) words: [u32; 4],
    /// The dwords of the base encoding.
    pub(crate) base_dwords: u32,
    /// Bytes.
    pub(crate) len: u32,
    pub(crate) literal: Option<u32>,
    pub(crate) ext: Ext,
    /// The fields, extracted.
    pub(crate) f: Fields,
    /// Executed by hand (`exec::special`), decided once when the
    /// interpreter caches the instruction, so that the hot loop does not
    /// compare names for every other instruction.
    pub(crate) by_hand: bool,
}

impl Inst {
    /// A field of the base encoding.
    pub(crate) fn field(&self, name: &str) -> Option<u32> {
        let &(_, lo, hi) = self.format.fields.iter().find(|f| f.0 == name)?;
        Some(bits(&self.words, lo, hi))
    }

    /// A field of the word after the base encoding (DPP/SDWA), at bits
    /// `lo..=hi` counted within that word.
    pub(crate) fn ext_bits(&self, lo: u32, hi: u32) -> u32 {
        let base = self.base_dwords * 32;
        bits(&self.words, base + lo, base + hi)
    }

    /// The instruction as the disassembler would name it, lower case.
    pub(crate) fn mnemonic(&self) -> String {
        let mut n = self.op.name.to_ascii_lowercase();
        match self.ext {
            Ext::Dpp16 => n.push_str("_dpp"),
            Ext::Dpp8 { .. } => n.push_str("_dpp8"),
            Ext::Sdwa => n.push_str("_sdwa"),
            Ext::None => {}
        }
        n
    }
}

/// The Y operation of a VOPD instruction.
pub(crate) fn vopd_y(t: &Tables, inst: &Inst) -> Option<&'static OpInfo> {
    let y = inst.field("opy")?;
    t.ops.iter().find(|o| o.class == "VOPD" && o.opcode == y)
}

/// The VOP2/VOP1 instruction a VOPD half (`V_DUAL_ADD_F32`) performs.
pub(crate) fn vopd_twin(t: &Tables, dual: &OpInfo) -> Option<&'static OpInfo> {
    let base = dual.name.strip_prefix("V_DUAL_")?;
    let name = format!("V_{base}_E32");
    t.ops
        .iter()
        .find(|o| (o.class == "VOP2" || o.class == "VOP1") && o.name == name)
}

pub(crate) fn bits(words: &[u32; 4], lo: u32, hi: u32) -> u32 {
    let mut v: u64 = 0;
    for (i, b) in (lo..=hi).enumerate() {
        let w = (b / 32) as usize;
        if w < 4 && (words[w] >> (b % 32)) & 1 != 0 {
            v |= 1 << i;
        }
    }
    v as u32
}

/// Why a word did not decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DecodeError {
    /// No encoding of the target matches.
    NoEncoding,
    /// The bytes ran out.
    Truncated,
}

/// Decodes the instruction whose first dwords are `words` (as many as
/// are readable, up to 4).
pub(crate) fn decode(t: &Tables, family: Family, words: &[u32]) -> Result<Inst, DecodeError> {
    let w0 = *words.first().ok_or(DecodeError::Truncated)? as u64;
    let w1 = words.get(1).copied().unwrap_or(0) as u64;
    let w64 = w0 | (w1 << 32);
    for &fi in t.order {
        let f = &t.formats[fi];
        let probe = if f.bits == 32 { w0 } else { w64 };
        if probe & f.fixed_mask != f.fixed_value {
            continue;
        }
        let dwords = f.bits / 32;
        if (words.len() as u32) < dwords {
            return Err(DecodeError::Truncated);
        }
        let mut all = [0u32; 4];
        for (i, w) in words.iter().take(4).enumerate() {
            all[i] = *w;
        }
        let opcode = if f.op_hi >= f.op_lo && !f.ops.is_empty() {
            bits(&all, f.op_lo, f.op_hi) as usize
        } else {
            continue;
        };
        let Some(&idx) = f.ops.get(opcode) else {
            continue;
        };
        if idx == NO_OP {
            continue;
        }
        let op = &t.ops[idx as usize];
        let mut inst = Inst {
            format: f,
            op,
            words: all,
            base_dwords: dwords,
            len: dwords * 4,
            literal: None,
            ext: Ext::None,
            f: Fields::default(),
            by_hand: false,
        };
        inst.f.abs = inst.field("abs");
        inst.f.acc = inst.field("acc");
        inst.f.addr = inst.field("addr");
        inst.f.clmp = inst.field("clmp");
        inst.f.data0 = inst.field("data0");
        inst.f.data1 = inst.field("data1");
        inst.f.glc = inst.field("glc");
        inst.f.imm = inst.field("imm");
        inst.f.neg = inst.field("neg");
        inst.f.neg_hi = inst.field("neg_hi");
        inst.f.offset = inst.field("offset");
        inst.f.offset0 = inst.field("offset0");
        inst.f.offset1 = inst.field("offset1");
        inst.f.omod = inst.field("omod");
        inst.f.opsel = inst.field("opsel");
        inst.f.opsel_hi = inst.field("opsel_hi");
        inst.f.opsel_hi2 = inst.field("opsel_hi2");
        inst.f.opy = inst.field("opy");
        inst.f.saddr = inst.field("saddr");
        inst.f.sbase = inst.field("sbase");
        inst.f.sc0 = inst.field("sc0");
        inst.f.sdata = inst.field("sdata");
        inst.f.sdst = inst.field("sdst");
        inst.f.simm16 = inst.field("simm16");
        inst.f.soffset = inst.field("soffset");
        inst.f.soffset_en = inst.field("soffset_en");
        inst.f.src0 = inst.field("src0");
        inst.f.src1 = inst.field("src1");
        inst.f.src2 = inst.field("src2");
        inst.f.srcx0 = inst.field("srcx0");
        inst.f.srcy0 = inst.field("srcy0");
        inst.f.ssrc0 = inst.field("ssrc0");
        inst.f.ssrc1 = inst.field("ssrc1");
        inst.f.sve = inst.field("sve");
        inst.f.vdst = inst.field("vdst");
        inst.f.vdstx = inst.field("vdstx");
        inst.f.vdsty = inst.field("vdsty");
        inst.f.vsrc1 = inst.field("vsrc1");
        inst.f.vsrcx1 = inst.field("vsrcx1");
        inst.f.vsrcy1 = inst.field("vsrcy1");

        // Extension words: DPP/SDWA in src0, a literal in any source.
        let srcs: Vec<u32> = ["src0", "ssrc0", "src1", "ssrc1", "src2"]
            .iter()
            .filter_map(|n| {
                let &(_, lo, hi) = f.fields.iter().find(|x| x.0 == *n)?;
                // SSrc fields are 8 bits; Src fields 9.
                Some(bits(&all, lo, hi))
            })
            .collect();
        let src0 = inst.field("src0");
        let is_vop = matches!(
            f.name,
            "VOP1" | "VOP2" | "VOPC" | "VOP3" | "VOP3P" | "VOP3SD"
        );
        if is_vop {
            match (family, src0) {
                (Family::Cdna, Some(249)) if f.bits == 32 => inst.ext = Ext::Sdwa,
                (_, Some(250)) => inst.ext = Ext::Dpp16,
                (Family::Rdna3 | Family::Rdna4, Some(233)) => inst.ext = Ext::Dpp8 { fi: false },
                (Family::Rdna3 | Family::Rdna4, Some(234)) => inst.ext = Ext::Dpp8 { fi: true },
                _ => {}
            }
        }
        let mut needs_literal = srcs.contains(&255) || op.reads & F_SIMM32 != 0;
        if f.name == "VOPD" {
            let y = vopd_y(t, &inst);
            let k = |o: Option<&OpInfo>| {
                o.is_some_and(|o| o.name.contains("FMAAK") || o.name.contains("FMAMK"))
            };
            needs_literal = inst.field("srcx0") == Some(255)
                || inst.field("srcy0") == Some(255)
                || k(Some(op))
                || k(y);
        }
        let extra = match inst.ext {
            Ext::None => 0,
            _ => 1,
        } + u32::from(needs_literal && inst.ext == Ext::None);
        if extra > 0 {
            let total = dwords + extra;
            if (words.len() as u32) < total {
                return Err(DecodeError::Truncated);
            }
            inst.len = total * 4;
            if needs_literal && inst.ext == Ext::None {
                inst.literal = Some(all[dwords as usize]);
            }
        }
        return Ok(inst);
    }
    Err(DecodeError::NoEncoding)
}
