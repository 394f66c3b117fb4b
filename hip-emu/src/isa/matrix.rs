//! Matrix instructions: CDNA's MFMA (gfx942, wave64) and RDNA 3's WMMA
//! (gfx1100, wave32 and wave64).
//!
//! The ISA data describes these in prose (`D = A * B + C` over a matrix
//! shape), so they are executed here by hand: the shape and the element
//! types come from the instruction's name, the register layouts from the
//! ISA documents' tables (the same layouts AMD's matrix instruction
//! calculator prints; `layouts_match_the_calculator` below pins a sample
//! of its output), and each operand's width is checked against the
//! widths in the ISA data before an instruction is accepted.
//!
//! Numerics. Products of 16-bit, 8-bit and f32 inputs are exact in f64;
//! they are summed with C in f64 and rounded once to the output type.
//! Hardware sums in an unspecified order at no less than f32 precision,
//! so results agree with it to the output type's rounding, not bit for
//! bit. f64 MFMA fuses each product into the running sum from C, k in
//! order. Integer results wrap (WMMA's clamp bit saturates them).
//!
//! What is refused (the launch fails naming the instruction): sparse
//! MFMA/WMMA (`V_SMFMAC_*`, `V_SWMMAC_*`), the scaled and F8F6F4 forms,
//! XF32 (its rounding is not documented), gfx950's and gfx12's matrix
//! instructions (neither processor is emulated), and any of these run
//! with lanes off in EXEC (undefined on hardware).

use super::{err_dispatch, Engine, Wave, NVGPR};
use crate::isa::decode::{bits, Family, Inst};
use crate::isa::rt::{bf16_to_f32, f16_to_f32, f32_to_bf16, f64_to_f16};
use crate::isa::LaunchError;

/// An element type of a matrix operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Elem {
    F64,
    F32,
    F16,
    Bf16,
    /// gfx942's FP8: E4M3 "FNUZ" (bias 8, no infinities, NaN is 0x80).
    Fp8,
    /// gfx942's BF8: E5M2 "FNUZ" (bias 16, NaN is 0x80).
    Bf8,
    /// Signed 8-bit (MFMA).
    I8,
    /// 8-bit, signed or unsigned by the NEG bits (WMMA).
    Iu8,
    /// 4-bit, signed or unsigned by the NEG bits (WMMA).
    Iu4,
    I32,
}

impl Elem {
    fn bits(self) -> u32 {
        match self {
            Elem::F64 => 64,
            Elem::F32 | Elem::I32 => 32,
            Elem::F16 | Elem::Bf16 => 16,
            Elem::Fp8 | Elem::Bf8 | Elem::I8 | Elem::Iu8 => 8,
            Elem::Iu4 => 4,
        }
    }

    fn is_int(self) -> bool {
        matches!(self, Elem::I8 | Elem::Iu8 | Elem::Iu4 | Elem::I32)
    }

    fn parse(s: &str) -> Option<Elem> {
        Some(match s {
            "F64" => Elem::F64,
            "F32" => Elem::F32,
            "F16" => Elem::F16,
            "BF16" => Elem::Bf16,
            "FP8" => Elem::Fp8,
            "BF8" => Elem::Bf8,
            "I8" => Elem::I8,
            "IU8" => Elem::Iu8,
            "IU4" => Elem::Iu4,
            "I32" => Elem::I32,
            _ => return None,
        })
    }
}

/// Which family of matrix instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// gfx9's matrix fused multiply-add: blocks, CBSZ/ABID/BLGP, AGPRs.
    Mfma,
    /// gfx11's wave matrix multiply-accumulate: 16x16x16, A and B
    /// repeated in each 16-lane group.
    Wmma,
}

/// The shape and types of a matrix instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) kind: Kind,
    pub(crate) m: u32,
    pub(crate) n: u32,
    pub(crate) k: u32,
    pub(crate) blocks: u32,
    pub(crate) a: Elem,
    pub(crate) b: Elem,
    pub(crate) out: Elem,
}

/// gfx950's MFMA (CDNA 4 only): in the data, not on gfx942.
const GFX950_ONLY: &[&str] = &[
    "V_MFMA_F32_16X16X32_BF16",
    "V_MFMA_I32_16X16X64_I8",
    "V_MFMA_F32_32X32X16_BF16",
    "V_MFMA_I32_32X32X32_I8",
    "V_MFMA_F32_16X16X32_F16",
    "V_MFMA_F32_32X32X16_F16",
];

impl Shape {
    /// The matrix instruction `name` is, if it is one: `Ok(None)` for any
    /// other instruction, `Err` (the reason) for one not executed.
    pub(crate) fn of(name: &str, family: Family) -> Result<Option<Shape>, String> {
        let (kind, rest) = if let Some(r) = name.strip_prefix("V_MFMA_") {
            (Kind::Mfma, r)
        } else if let Some(r) = name.strip_prefix("V_WMMA_") {
            (Kind::Wmma, r)
        } else if name.starts_with("V_SMFMAC_") || name.starts_with("V_SWMMAC_") {
            return Err("sparse matrix instructions are not executed yet".into());
        } else if name.starts_with("V_MFMA_SCALE_") {
            return Err("scaled MFMA (gfx950) is not executed".into());
        } else {
            return Ok(None);
        };
        if name == "V_MFMA_LD_SCALE_B32" || name.contains("F8F6F4") {
            return Err("F8F6F4 and scaled MFMA (gfx950) are not executed".into());
        }
        if name.contains("XF32") {
            return Err("XF32 MFMA: its rounding of the inputs is not documented".into());
        }
        if GFX950_ONLY.contains(&name) {
            return Err("a gfx950 instruction (gfx950 is not emulated)".into());
        }
        match (kind, family) {
            (Kind::Mfma, Family::Cdna) | (Kind::Wmma, Family::Rdna3) => {}
            (Kind::Wmma, _) => {
                return Err("gfx12's WMMA (RDNA 4 is not emulated)".into());
            }
            _ => return Err("MFMA outside CDNA".into()),
        }
        let bad = || format!("{name}: not a matrix instruction name this interpreter reads");
        // OUT_MxNxK[_nB]_IN[_IN2]
        let mut parts = rest.split('_');
        let out = parts.next().and_then(Elem::parse).ok_or_else(bad)?;
        let dims: Vec<u32> = parts
            .next()
            .ok_or_else(bad)?
            .split('X')
            .map(|d| d.parse::<u32>().ok())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        let [m, n, k] = dims[..] else {
            return Err(bad());
        };
        let mut tail: Vec<&str> = parts.collect();
        let mut blocks = 1;
        if let Some(b) = tail.first().and_then(|t| t.strip_suffix('B')) {
            if let Ok(b) = b.parse::<u32>() {
                blocks = b;
                tail.remove(0);
            }
        }
        let (a, b) = match tail[..] {
            [t] => {
                let e = Elem::parse(t).ok_or_else(bad)?;
                (e, e)
            }
            [ta, tb] => (
                Elem::parse(ta).ok_or_else(bad)?,
                Elem::parse(tb).ok_or_else(bad)?,
            ),
            _ => return Err(bad()),
        };
        if m == 0 || n == 0 || k == 0 || blocks == 0 || m * blocks > 64 || n * blocks > 64 {
            return Err(bad());
        }
        if kind == Kind::Mfma && k % (64 / (m * blocks)).max(1) != 0 {
            return Err(bad());
        }
        Ok(Some(Shape {
            kind,
            m,
            n,
            k,
            blocks,
            a,
            b,
            out,
        }))
    }

    /// Whether `inst` (of this shape) is one the interpreter executes as
    /// encoded: its operand widths agree with the ISA data's, and it sets
    /// only the modifiers its instruction has.
    pub(crate) fn check(&self, inst: &Inst) -> Result<(), String> {
        let [a, b, d] = self.widths();
        let data = inst.op.widths;
        if [data[0], data[1], data[2], data[3]] != [a, b, d, d] {
            return Err(format!(
                "operand widths {:?} in the ISA data, {:?} from the name",
                &data[..4],
                [a, b, d, d]
            ));
        }
        let raw = |lo, hi| bits(&inst.words, lo, hi);
        match self.kind {
            Kind::Mfma => {
                let (cbsz, abid, blgp) = (raw(8, 10), raw(11, 14), raw(61, 63));
                if self.blocks == 1 && (cbsz != 0 || abid != 0) {
                    return Err("CBSZ/ABID on a single-block MFMA".into());
                }
                if cbsz != 0 && ((1 << cbsz) > self.blocks || abid >= 1 << cbsz) {
                    return Err(format!(
                        "CBSZ {cbsz} with ABID {abid} for {} blocks",
                        self.blocks
                    ));
                }
                if cbsz == 0 && abid != 0 {
                    return Err("ABID without CBSZ".into());
                }
                if blgp != 0 && self.blocks == 1 && !matches!(self.a, Elem::F32 | Elem::F64) {
                    return Err("BLGP on an MFMA that has none".into());
                }
            }
            Kind::Wmma => {
                let (neg_hi, opsel) = (raw(8, 10), raw(11, 13));
                if opsel & 3 != 0 || (opsel & 4 != 0 && self.out.bits() != 16) {
                    return Err(format!("OPSEL {opsel} on this WMMA"));
                }
                // Integer WMMA: NEG[1:0] say which inputs are signed;
                // NEG[2] has no meaning (AMD's calculator calls it
                // must-be-zero, yet rocBLAS's own gfx1100 kernels set it,
                // `neg_lo:[1,1,1]`, and run on hardware): it is ignored.
                // NEG_HI has no meaning either and nobody sets it.
                if self.out.is_int() && neg_hi != 0 {
                    return Err("NEG_HI on an integer WMMA".into());
                }
                if !self.out.is_int() && raw(15, 15) != 0 {
                    return Err("CLAMP on a float WMMA".into());
                }
            }
        }
        Ok(())
    }

    /// K values one lane holds (MFMA: `K / (64 / (M * blocks))`).
    fn k_per_lane(&self) -> u32 {
        match self.kind {
            Kind::Mfma => self.k / (64 / (self.m * self.blocks)),
            Kind::Wmma => self.k,
        }
    }

    /// Bits per lane of A, B and C/D, as the ISA data counts them (wave32
    /// for WMMA).
    pub(crate) fn widths(&self) -> [u32; 3] {
        let a = self.k_per_lane() * self.a.bits();
        let b = self.k_per_lane() * self.b.bits();
        let d = match self.kind {
            Kind::Mfma => self.m * self.n * self.blocks / 64 * self.out.bits(),
            // 16-bit outputs take half of each of the same registers.
            Kind::Wmma => self.m * self.n / 32 * 32,
        };
        [a, b, d]
    }

    /// Where A[i][k] of block `blk` is: (lane, bit offset in the operand).
    /// B[k][j] is the same with N for M.
    fn input_at(&self, rows: u32, blk: u32, i: u32, k: u32, bits: u32) -> (u32, u32) {
        let kl = self.k_per_lane();
        match self.kind {
            Kind::Mfma => (
                blk * rows + (k / kl) * rows * self.blocks + i,
                (k % kl) * bits,
            ),
            Kind::Wmma => (i, k * bits),
        }
    }

    /// Where D[i][j] of block `blk` is: (register within the operand,
    /// lane); 64-bit outputs count register pairs.
    fn output_at(&self, wave: u32, blk: u32, i: u32, j: u32) -> (u32, u32) {
        match self.kind {
            Kind::Mfma => {
                let h = if self.out.bits() == 64 { 1 } else { 4 };
                let m_per_row = 64 / self.n;
                let b_per_row = (64 / (self.n * self.m / h)).max(1);
                let reg = blk * (self.m * self.n / 64) + (i / (h * m_per_row)) * h + i % h;
                let lane =
                    (blk % b_per_row) * self.n + ((i / h) % m_per_row) * b_per_row * self.n + j;
                (reg, lane)
            }
            Kind::Wmma => {
                let groups = wave / 16;
                (i / groups, (i % groups) * 16 + j)
            }
        }
    }
}

/// gfx9's BLGP: which lane of B's registers lane `lane` reads.
fn blgp_lane(blgp: u32, lane: u32) -> u32 {
    match blgp {
        1 => lane % 32,
        2 => lane % 32 + 32,
        3 => (lane + 16) % 64,
        4 => lane % 16,
        5 => lane % 16 + 16,
        6 => lane % 16 + 32,
        7 => lane % 16 + 48,
        _ => lane,
    }
}

/// An FNUZ 8-bit float (gfx942's FP8/BF8): `man` mantissa bits, `bias`.
fn fnuz8(v: u8, man: u32, bias: i32) -> f64 {
    if v == 0x80 {
        return f64::NAN;
    }
    let sign = if v & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = ((v & 0x7f) >> man) as i32;
    let m = (v as u32 & ((1 << man) - 1)) as f64;
    let scale = (1u64 << man) as f64;
    sign * if e == 0 {
        m / scale * 2f64.powi(1 - bias)
    } else {
        (1.0 + m / scale) * 2f64.powi(e - bias)
    }
}

/// f64 to bfloat16 bits, rounded once to nearest even: truncate to f32,
/// keep the lost bits as a sticky bit, then round f32 to bfloat16.
fn f64_to_bf16(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7fc0 | ((x.is_sign_negative() as u16) << 15);
    }
    let mut f = x as f32;
    if f.is_finite() && (f as f64).abs() > x.abs() {
        f = f32::from_bits(f.to_bits() - 1);
    }
    let mut b = f.to_bits();
    if f.is_finite() && f as f64 != x {
        b |= 1;
    }
    f32_to_bf16(f32::from_bits(b))
}

/// An operand's register file.
#[derive(Clone, Copy)]
enum File {
    V,
    A,
}

impl Engine<'_> {
    /// Executes a matrix instruction of `shape` for the whole wave.
    pub(super) fn matrix(
        &mut self,
        w: &mut Wave,
        inst: &Inst,
        shape: &Shape,
    ) -> Result<(), LaunchError> {
        let ws = self.wave_size;
        let full = if ws == 64 { u64::MAX } else { (1u64 << ws) - 1 };
        let exec = self.exec(w);
        if exec & full != full {
            return Err(err_dispatch(
                self.d,
                format!(
                    "{} at pc {:#x} ran with EXEC {exec:#x}: matrix instructions need every \
                     lane on (undefined on hardware)",
                    inst.mnemonic(),
                    w.pc
                ),
            ));
        }
        let raw = |lo, hi| bits(&inst.words, lo, hi);
        let src = |name: &str| inst.field(name).unwrap_or(0);
        let (src0, src1, src2, vdst) = (src("src0"), src("src1"), src("src2"), src("vdst"));
        let bad_operand = |what: &str| {
            err_dispatch(
                self.d,
                format!(
                    "{} at pc {:#x}: {what} must be a register",
                    inst.mnemonic(),
                    w.pc
                ),
            )
        };
        if src0 < 256 {
            return Err(bad_operand("A (src0)"));
        }
        if src1 < 256 {
            return Err(bad_operand("B (src1)"));
        }
        // Fields: MFMA has CBSZ (10:8), ABID (14:11), ACC_CD (15), ACC
        // (60:59) and BLGP (63:61), the last its NEG bits for f64; WMMA
        // has VOP3P's NEG (63:61), NEG_HI (10:8), OPSEL (13:11), CLMP (15).
        let (a_file, b_file, cd_file) = match shape.kind {
            Kind::Mfma => {
                let f = |on: u32| if on != 0 { File::A } else { File::V };
                (f(raw(59, 59)), f(raw(60, 60)), f(raw(15, 15)))
            }
            Kind::Wmma => (File::V, File::V, File::V),
        };
        let (cbsz, abid, blgp) = match shape.kind {
            Kind::Mfma => (raw(8, 10), raw(11, 14), raw(61, 63)),
            Kind::Wmma => (0, 0, 0),
        };
        let f64_neg = shape.kind == Kind::Mfma && shape.out == Elem::F64;
        let (neg, neg_hi) = match shape.kind {
            Kind::Mfma if f64_neg => (blgp, 0),
            Kind::Mfma => (0, 0),
            Kind::Wmma => (raw(61, 63), raw(8, 10)),
        };
        let blgp = if f64_neg { 0 } else { blgp };
        let clamp = shape.kind == Kind::Wmma && raw(15, 15) != 0;
        let opsel_hi_half = shape.kind == Kind::Wmma && raw(13, 13) != 0;

        let reg = |w: &Wave, file: File, r: u32, lane: u32| -> u32 {
            let i = (r as usize % NVGPR) * 64 + lane as usize;
            match file {
                File::V => w.vgpr[i],
                File::A => w.agpr[i],
            }
        };
        // An element of `bits` at bit `off` of the operand at `base`.
        let element = |w: &Wave, file: File, base: u32, lane: u32, off: u32, bits: u32| -> u64 {
            let r = base + off / 32;
            if bits == 64 {
                reg(w, file, r, lane) as u64 | (reg(w, file, r + 1, lane) as u64) << 32
            } else {
                let mask = if bits == 32 {
                    u32::MAX
                } else {
                    (1 << bits) - 1
                };
                ((reg(w, file, r, lane) >> (off % 32)) & mask) as u64
            }
        };
        // WMMA: the lanes of each further 16-lane group must repeat the
        // first group's A and B (the ISA's layout; hardware reads one).
        if shape.kind == Kind::Wmma {
            for (name, base, bits) in [
                ("A", src0 - 256, shape.widths()[0]),
                ("B", src1 - 256, shape.widths()[1]),
            ] {
                for r in base..base + bits.div_ceil(32) {
                    for lane in 16..ws {
                        if reg(w, File::V, r, lane) != reg(w, File::V, r, lane % 16) {
                            return Err(err_dispatch(
                                self.d,
                                format!(
                                    "{} at pc {:#x}: {name}'s lane {lane} (v{r}) differs from \
                                     lane {}: WMMA needs each 16-lane group to hold the same {name} \
                                     (the result is undefined on hardware)",
                                    inst.mnemonic(),
                                    w.pc,
                                    lane % 16
                                ),
                            ));
                        }
                    }
                }
            }
        }
        // A value of an input element, its NEG modifiers applied.
        let value = |e: Elem, raw: u64, operand: u32, k: u32| -> f64 {
            let signed = operand < 3 && (neg >> operand) & 1 != 0;
            let v = match e {
                Elem::F64 => f64::from_bits(raw),
                Elem::F32 => f32::from_bits(raw as u32) as f64,
                Elem::F16 => f16_to_f32(raw as u16) as f64,
                Elem::Bf16 => bf16_to_f32(raw as u16) as f64,
                Elem::Fp8 => fnuz8(raw as u8, 3, 8),
                Elem::Bf8 => fnuz8(raw as u8, 2, 16),
                Elem::I8 => raw as u8 as i8 as f64,
                Elem::Iu8 if signed => raw as u8 as i8 as f64,
                Elem::Iu8 => raw as u8 as f64,
                Elem::Iu4 if signed => (((raw as u8) << 4) as i8 >> 4) as f64,
                Elem::Iu4 => (raw & 15) as f64,
                Elem::I32 => raw as u32 as i32 as f64,
            };
            if e.is_int() {
                return v;
            }
            // Float NEG: WMMA negates the low halves by NEG and the high
            // halves by NEG_HI; f64 MFMA by its BLGP bits.
            let flip = if shape.kind == Kind::Wmma && e.bits() == 16 {
                operand < 3 && ((if k % 2 == 0 { neg } else { neg_hi }) >> operand) & 1 != 0
            } else {
                signed
            };
            if flip {
                -v
            } else {
                v
            }
        };

        let (m, n, kk, nb) = (shape.m, shape.n, shape.k, shape.blocks);
        // Gather A (per block, row, k) and B (per block, k, col).
        let mut a = vec![0f64; (nb * m * kk) as usize];
        let mut b = vec![0f64; (nb * kk * n) as usize];
        for blk in 0..nb {
            let a_blk = if cbsz > 0 {
                (blk >> cbsz << cbsz) + abid
            } else {
                blk
            };
            for k in 0..kk {
                for i in 0..m {
                    let bits = shape.a.bits();
                    let (lane, off) = shape.input_at(m, a_blk.min(nb - 1), i, k, bits);
                    let raw = element(w, a_file, src0 - 256, lane, off, bits);
                    a[((blk * m + i) * kk + k) as usize] = value(shape.a, raw, 0, k);
                }
                for j in 0..n {
                    let bits = shape.b.bits();
                    let (lane, off) = shape.input_at(n, blk, j, k, bits);
                    let raw = element(w, b_file, src1 - 256, blgp_lane(blgp, lane), off, bits);
                    b[((blk * kk + k) * n + j) as usize] = value(shape.b, raw, 1, k);
                }
            }
        }
        // C, the products, D.
        let out = shape.out;
        let out_bits = out.bits();
        let half = |v: u32| -> u64 {
            if opsel_hi_half {
                (v >> 16) as u64
            } else {
                (v & 0xffff) as u64
            }
        };
        let constant_c = if src2 < 256 {
            let float = match out {
                Elem::F64 => 64,
                Elem::F32 => 32,
                Elem::F16 | Elem::Bf16 => 16,
                _ => 0,
            };
            let width = if out_bits == 64 { 64 } else { 32 };
            Some(self.scalar_src(w, inst, src2, width, float).unwrap_or(0))
        } else {
            None
        };
        let mut results: Vec<(u32, u32, u64)> = Vec::with_capacity((nb * m * n) as usize);
        for blk in 0..nb {
            for i in 0..m {
                for j in 0..n {
                    let (r, lane) = shape.output_at(ws, blk, i, j);
                    let regs = if out_bits == 64 { 2 } else { 1 };
                    let c_raw = match constant_c {
                        Some(c) if out_bits == 16 => c & 0xffff,
                        Some(c) => c,
                        None => {
                            let base = src2 - 256 + r * regs;
                            let v = element(w, cd_file, base, lane, 0, out_bits.max(32));
                            if out_bits == 16 {
                                half(v as u32)
                            } else {
                                v
                            }
                        }
                    };
                    let mut c = match out {
                        Elem::I32 => c_raw as u32 as i32 as f64,
                        e => value(e, c_raw, 3, 0),
                    };
                    if !out.is_int() && shape.kind == Kind::Wmma {
                        if neg_hi >> 2 & 1 != 0 {
                            c = c.abs();
                        }
                        if neg >> 2 & 1 != 0 {
                            c = -c;
                        }
                    } else if f64_neg && neg >> 2 & 1 != 0 {
                        c = -c;
                    }
                    let row = |k: u32| a[((blk * m + i) * kk + k) as usize];
                    let col = |k: u32| b[((blk * kk + k) * n + j) as usize];
                    let bits_out: u64 = match out {
                        Elem::I32 => {
                            let mut s = c_raw as u32 as i32 as i64;
                            for k in 0..kk {
                                s += row(k) as i64 * col(k) as i64;
                            }
                            let s = if clamp {
                                s.clamp(i32::MIN as i64, i32::MAX as i64)
                            } else {
                                s
                            };
                            s as i32 as u32 as u64
                        }
                        Elem::F64 => {
                            let mut s = c;
                            for k in 0..kk {
                                s = row(k).mul_add(col(k), s);
                            }
                            s.to_bits()
                        }
                        _ => {
                            let mut s = c;
                            for k in 0..kk {
                                s += row(k) * col(k);
                            }
                            match out {
                                Elem::F16 => f64_to_f16(s) as u64,
                                Elem::Bf16 => f64_to_bf16(s) as u64,
                                _ => (s as f32).to_bits() as u64,
                            }
                        }
                    };
                    results.push((r * regs, lane, bits_out));
                }
            }
        }
        let base = vdst;
        fn file(w: &mut Wave, f: File, r: u32, lane: u32) -> &mut u32 {
            let i = (r as usize % NVGPR) * 64 + lane as usize;
            match f {
                File::V => &mut w.vgpr[i],
                File::A => &mut w.agpr[i],
            }
        }
        for (r, lane, v) in results {
            match out_bits {
                64 => {
                    *file(w, cd_file, base + r, lane) = v as u32;
                    *file(w, cd_file, base + r + 1, lane) = (v >> 32) as u32;
                }
                16 => {
                    let slot = file(w, cd_file, base + r, lane);
                    *slot = if opsel_hi_half {
                        (*slot & 0xffff) | ((v as u32) << 16)
                    } else {
                        (*slot & 0xffff_0000) | v as u32
                    };
                }
                _ => *file(w, cd_file, base + r, lane) = v as u32,
            }
        }
        self.counters.lane_instructions += ws as u64;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(name: &str, family: Family) -> Shape {
        Shape::of(name, family).unwrap().unwrap()
    }

    /// Register layouts as AMD's matrix instruction calculator prints
    /// them (ROCm/amd_matrix_instruction_calculator, `-a CDNA3 -i INST
    /// -A|-B|-D -M -c`, and `-a RDNA3 ... -w 32|64`): a sample of entries
    /// per instruction, each (i or j, k, lane, bit offset) for A, and
    /// (i, j, register, lane) for D.
    #[test]
    fn layouts_match_the_calculator() {
        let c = Family::Cdna;
        // v_mfma_f32_32x32x8_f16: A[i][k] at lane i + 32*(k/4), v(k%4/2)
        // half k%2; D[i][j] at v(8*(i/8)/2 ... ) = reg 4*(i/8) + i%4,
        // lane j + 32*((i/4)%2).
        let s = shape("V_MFMA_F32_32X32X8_F16", c);
        assert_eq!(s.input_at(32, 0, 5, 6, 16), (37, 32));
        assert_eq!(s.output_at(64, 0, 13, 7), (5, 39));
        // v_mfma_f32_16x16x16_f16: D[i][j] at reg i%4, lane j + 16*(i/4).
        let s = shape("V_MFMA_F32_16X16X16_F16", c);
        assert_eq!(s.output_at(64, 0, 6, 3), (2, 19));
        assert_eq!(s.input_at(16, 0, 2, 9, 16), (34, 16));
        // v_mfma_f32_4x4x4_16b_f16: block b's D[i][j] at reg i, lane 4b+j;
        // A[i][k] of block b at lane 4b+i, half k.
        let s = shape("V_MFMA_F32_4X4X4_16B_F16", c);
        assert_eq!(s.output_at(64, 5, 2, 1), (2, 21));
        assert_eq!(s.input_at(4, 5, 3, 2, 16), (23, 32));
        // v_mfma_f32_32x32x1_2b_f32: block 1's D[9][4] at v(16+4+1), lane 4.
        let s = shape("V_MFMA_F32_32X32X1_2B_F32", c);
        assert_eq!(s.output_at(64, 1, 9, 4), (21, 4));
        // v_mfma_f64_16x16x4_f64: D[i][j] at pair i/4, lane j + 16*(i%4).
        let s = shape("V_MFMA_F64_16X16X4_F64", c);
        assert_eq!(s.output_at(64, 0, 7, 2), (1, 50));
        // v_mfma_f64_4x4x4_4b_f64: block b's D[i][j] at lane 4b + 16i + j.
        let s = shape("V_MFMA_F64_4X4X4_4B_F64", c);
        assert_eq!(s.output_at(64, 3, 2, 1), (0, 45));
        // v_mfma_i32_16x16x32_i8: A[i][k] at lane i + 16*(k/8), byte k%8.
        let s = shape("V_MFMA_I32_16X16X32_I8", c);
        assert_eq!(s.input_at(16, 0, 4, 21, 8), (36, 40));
        // v_wmma_f32_16x16x16_f16, wave32: D[i][j] at v(i/2), lane
        // 16*(i%2) + j; wave64: v(i/4), lane 16*(i%4) + j.
        let s = shape("V_WMMA_F32_16X16X16_F16", Family::Rdna3);
        assert_eq!(s.output_at(32, 0, 5, 9), (2, 25));
        assert_eq!(s.output_at(64, 0, 7, 9), (1, 57));
        assert_eq!(s.input_at(16, 0, 3, 11, 16), (3, 176));
    }

    #[test]
    fn shapes_match_the_isa_data_widths() {
        // (name, widths of A, B, D as the generated tables give them).
        for (name, want) in [
            ("V_MFMA_F32_32X32X1_2B_F32", [32, 32, 1024]),
            ("V_MFMA_F32_4X4X4_16B_F16", [64, 64, 128]),
            ("V_MFMA_I32_16X16X32_I8", [64, 64, 128]),
            ("V_MFMA_F64_4X4X4_4B_F64", [64, 64, 64]),
            ("V_MFMA_F64_16X16X4_F64", [64, 64, 256]),
            ("V_MFMA_F32_32X32X16_FP8_BF8", [64, 64, 512]),
        ] {
            assert_eq!(shape(name, Family::Cdna).widths(), want, "{name}");
        }
        let s = shape("V_MFMA_F32_32X32X16_FP8_BF8", Family::Cdna);
        assert_eq!((s.a, s.b), (Elem::Fp8, Elem::Bf8));
        assert_eq!(
            shape("V_WMMA_I32_16X16X16_IU4", Family::Rdna3).widths(),
            [64, 64, 256]
        );
    }

    #[test]
    fn refusals_say_why() {
        let why = |n: &str, f| Shape::of(n, f).unwrap_err();
        assert!(why("V_SMFMAC_F32_16X16X32_F16", Family::Cdna).contains("sparse"));
        assert!(why("V_MFMA_F32_16X16X8_XF32", Family::Cdna).contains("XF32"));
        assert!(why("V_MFMA_F32_16X16X32_BF16", Family::Cdna).contains("gfx950"));
        assert!(why("V_WMMA_F32_16X16X16_F16", Family::Rdna4).contains("RDNA 4"));
        assert_eq!(Shape::of("V_PK_FMA_F16", Family::Cdna), Ok(None));
    }

    #[test]
    fn blgp_lanes() {
        assert_eq!(blgp_lane(1, 40), 8);
        assert_eq!(blgp_lane(2, 3), 35);
        assert_eq!(blgp_lane(3, 60), 12);
        assert_eq!(blgp_lane(5, 50), 18);
        assert_eq!(blgp_lane(6, 1), 33);
        assert_eq!(blgp_lane(7, 20), 52);
    }

    #[test]
    fn fnuz_fp8_values() {
        // E4M3 FNUZ: 0x40 is 1.0 (exponent 8, bias 8); 0x7f the largest,
        // 240; 0x01 the smallest subnormal, 2^-10.
        assert_eq!(fnuz8(0x40, 3, 8), 1.0);
        assert_eq!(fnuz8(0x7f, 3, 8), 240.0);
        assert_eq!(fnuz8(0x01, 3, 8), 2f64.powi(-10));
        assert_eq!(fnuz8(0xc0, 3, 8), -1.0);
        assert!(fnuz8(0x80, 3, 8).is_nan());
        // E5M2 FNUZ: 0x40 is 1.0 (exponent 16, bias 16); 0x7f 57344.
        assert_eq!(fnuz8(0x40, 2, 16), 1.0);
        assert_eq!(fnuz8(0x7f, 2, 16), 57344.0);
    }

    #[test]
    fn bf16_from_f64_rounds_once() {
        // 1 + 2^-8 + 2^-30 is above the halfway point between two
        // bfloat16 values: once-rounding goes up; rounding to f32 first
        // would drop 2^-30 and tie to even (down).
        let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-30);
        assert_eq!(f64_to_bf16(x), 0x3f81);
        assert_eq!(f64_to_bf16(1.0), 0x3f80);
        assert_eq!(f64_to_bf16(-2.0), 0xc000);
    }
}
