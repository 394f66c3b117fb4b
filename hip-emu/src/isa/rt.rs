//! What the generated instruction semantics run against: the operand
//! context of one instruction on one lane ([`Ctx`]), memory ([`Mem`]), the
//! tables' types, and the helper functions the translated pseudocode
//! calls (bit fields, conversions, IEEE details). The helpers are written
//! from the operations' meaning; none carries AMD's text.

/// One instruction's operands, for one lane (vector instructions) or the
/// wave (scalar ones). The interpreter fills it, calls the semantics, and
/// writes back what the instruction's flags say it writes.
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    /// S0, S1, S2: the sources' raw bits.
    pub s: [u64; 3],
    /// D0, D1: the destinations' raw bits (D0 holds the old value on
    /// entry, so that partial writes keep the rest).
    pub d: [u64; 2],
    pub scc: bool,
    /// VCC as read (a carry-in, a condition).
    pub vcc: u64,
    /// VCC as written (carry-outs, bit by bit).
    pub vcc_out: u64,
    pub exec: u64,
    /// EXEC as written by `v_cmpx` (bit by bit).
    pub exec_out: u64,
    pub lane: u32,
    /// The instruction's address on entry; where to go next when the
    /// instruction writes it.
    pub pc: u64,
    pub simm16: u64,
    pub simm32: u64,
    pub m0: u64,
    pub wave64: bool,
    pub ieee: bool,
    /// The access's address, computed from the encoding.
    pub addr: u64,
    pub offset: u64,
    /// The VOP3 `opsel` bits (VOP3P: `op_sel`), for the pseudocode that reads them.
    pub opsel: u64,
    /// VOP3P's `op_sel_hi` bits.
    pub opsel_hi: u64,
    /// VOP3P's `neg` bits (`v_dot4_i32_iu8`: which sources are signed).
    pub neg: u64,
    pub offset0: u64,
    pub offset1: u64,
    pub data: [u32; 16],
    pub data2: [u32; 16],
    pub vdata: [u32; 16],
    pub sdata: [u32; 16],
    pub ret: [u32; 16],
}

/// Memory of one access: global, LDS, scratch or flat, as the interpreter
/// chose for the instruction. A failed access records a fault and reads 0.
pub trait Mem {
    fn load(&mut self, addr: u64, bytes: u32) -> u64;
    fn store(&mut self, addr: u64, bytes: u32, value: u64);
}

/// The semantics of one instruction.
pub type Sem = fn(&mut Ctx, &mut dyn Mem);

/// What the data says of one instruction, and its semantics when the
/// translator took its pseudocode.
#[derive(Debug)]
pub struct OpInfo {
    pub name: &'static str,
    /// The encoding family of its enum (`VOP2`, `SOPP`, ...).
    pub class: &'static str,
    pub opcode: u32,
    pub sem: Option<Sem>,
    /// Why `sem` is `None`.
    pub why: &'static str,
    /// D0 (D1) is a lane mask written one bit per lane.
    pub d0_mask: bool,
    pub d1_mask: bool,
    /// `F_*` flags of what the pseudocode writes and reads.
    pub writes: u32,
    pub reads: u32,
    /// Bits of S0, S1, S2, D0, D1.
    pub widths: [u32; 5],
    /// Bits of DATA, DATA2, VDATA, SDATA, RETURN_DATA read or written.
    pub wide_bits: [u32; 5],
    /// S0, S1, S2 are floats of this many bits (0: integers); decides the
    /// inline constants' encoding and the source modifiers.
    pub src_float: [u32; 3],
}

/// One encoding: its fixed bits, where its opcode is, its fields.
#[derive(Debug)]
pub struct FormatInfo {
    pub name: &'static str,
    /// Bits without literal or DPP/SDWA extension.
    pub bits: u32,
    pub fixed_mask: u64,
    pub fixed_value: u64,
    pub op_lo: u32,
    pub op_hi: u32,
    /// Opcode -> index into the ISA's op table ([`NO_OP`] when none).
    pub ops: &'static [u16],
    /// (name, lo, hi) of each non-fixed field.
    pub fields: &'static [(&'static str, u32, u32)],
}

/// No instruction at this opcode.
pub const NO_OP: u16 = u16::MAX;

pub const F_SCC: u32 = 1;
pub const F_VCC: u32 = 2;
pub const F_EXEC: u32 = 4;
pub const F_PC: u32 = 8;
pub const F_MEM: u32 = 16;
pub const F_D0: u32 = 32;
pub const F_D1: u32 = 64;
pub const F_M0: u32 = 128;
pub const F_DATA: u32 = 1 << 8;
pub const F_DATA2: u32 = 1 << 9;
pub const F_VDATA: u32 = 1 << 10;
pub const F_VDATA_W: u32 = 1 << 11;
pub const F_SDATA: u32 = 1 << 12;
pub const F_SDATA_W: u32 = 1 << 13;
pub const F_RET: u32 = 1 << 14;
pub const F_RET_W: u32 = 1 << 15;
pub const F_SIMM32: u32 = 1 << 16;
pub const F_OPSEL: u32 = 1 << 17;
pub const F_SIMM16: u32 = 1 << 18;
pub const F_NEG: u32 = 1 << 19;
/// The pseudocode reads the instruction's OFFSET (or OFFSET0/OFFSET1); an
/// LDS instruction without it addresses `ADDR` with the offset added.
pub const F_OFFSET: u32 = 1 << 20;

/// `place` with `width` bits at `lo` replaced by `value`'s low bits.
#[inline(always)]
pub fn set_bits(place: u64, lo: u32, width: u32, value: i128) -> u64 {
    if lo >= 64 {
        return place;
    }
    let w = width.min(64 - lo);
    let m = if w >= 64 {
        u64::MAX
    } else {
        ((1u64 << w) - 1) << lo
    };
    (place & !m) | (((value as u64) << lo) & m)
}

/// Sets or clears bit `lane` of a mask.
#[inline(always)]
pub fn set_lane(mask: &mut u64, lane: u32, bit: bool) {
    let b = 1u64 << (lane & 63);
    if bit {
        *mask |= b;
    } else {
        *mask &= !b;
    }
}

/// `width` bits of a data register at bit `lo`.
#[inline(always)]
pub fn wide_get(w: &[u32; 16], lo: u32, width: u32) -> i128 {
    let mut out: u128 = 0;
    let mut got = 0;
    while got < width.min(128) {
        let bit = lo + got;
        let word = (bit / 32) as usize;
        if word >= 16 {
            break;
        }
        let off = bit % 32;
        let take = (32 - off).min(width - got);
        let piece = (w[word] >> off) as u128 & ((1u128 << take) - 1);
        out |= piece << got;
        got += take;
    }
    out as i128
}

/// Writes `width` bits of `value` into a data register at bit `lo`.
#[inline(always)]
pub fn wide_set(w: &mut [u32; 16], lo: u32, width: u32, value: i128) {
    let v = value as u128;
    let mut put = 0;
    while put < width.min(128) {
        let bit = lo + put;
        let word = (bit / 32) as usize;
        if word >= 16 {
            break;
        }
        let off = bit % 32;
        let take = (32 - off).min(width - put);
        let m = (((1u64 << take) - 1) as u32) << off;
        let piece = (((v >> put) as u64) as u32) << off;
        w[word] = (w[word] & !m) | (piece & m);
        put += take;
    }
}

/// `v` sign-extended from `bits`.
#[inline(always)]
pub fn sext(v: i128, bits: u32) -> i128 {
    if bits == 0 || bits >= 128 {
        return v;
    }
    let s = 128 - bits;
    (v << s) >> s
}

#[inline(always)]
pub fn shl(a: i128, b: i128) -> i128 {
    if !(0..128).contains(&b) {
        0
    } else {
        a.wrapping_shl(b as u32)
    }
}

#[inline(always)]
pub fn shr(a: i128, b: i128) -> i128 {
    if !(0..128).contains(&b) {
        if a < 0 {
            -1
        } else {
            0
        }
    } else {
        a >> b
    }
}

#[inline(always)]
pub fn idiv(a: i128, b: i128) -> i128 {
    if b == 0 {
        0
    } else {
        a.wrapping_div(b)
    }
}

#[inline(always)]
pub fn irem(a: i128, b: i128) -> i128 {
    if b == 0 {
        0
    } else {
        a.wrapping_rem(b)
    }
}

/// The low `width` bits of `v` in reverse order.
pub fn reverse_bits(v: i128, width: u32) -> i128 {
    let mut out = 0i128;
    for i in 0..width {
        if (v >> i) & 1 != 0 {
            out |= 1 << (width - 1 - i);
        }
    }
    out
}

/// The index of the lowest set bit, or -1.
pub fn ff1(v: i128) -> i128 {
    if v == 0 {
        -1
    } else {
        (v as u128).trailing_zeros() as i128
    }
}

/// IEEE half bits to f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: normalise.
            let shift = m.leading_zeros() - 21;
            let m = (m << shift) & 0x3ff;
            sign | ((127 - 15 + 1 - shift) << 23) | (m << 13)
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7f80_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// f64 to IEEE half bits, rounded to nearest even.
pub fn f64_to_f16(x: f64) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 48) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00 | ((bits >> 42) & 0x1ff) as u16;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-25) {
        // Rounds to zero (2^-25 is half the smallest subnormal; ties to even = 0).
        return if a > 2f64.powi(-25) { sign | 1 } else { sign };
    }
    // Scale so that the value's representable grid is integers.
    let e = a.log2().floor() as i32;
    let e = e.max(-14);
    let q = 2f64.powi(e - 10);
    let m = round_half_even(a / q);
    let v = m * q;
    // Re-encode v (exactly representable).
    let vb = v;
    if vb >= 65520.0 {
        return sign | 0x7c00;
    }
    let (exp, man) = if vb < 2f64.powi(-14) {
        (0u16, (vb / 2f64.powi(-24)) as u16)
    } else {
        let e2 = vb.log2().floor() as i32;
        let e2 = if 2f64.powi(e2) > vb { e2 - 1 } else { e2 };
        let mm = (vb / 2f64.powi(e2) - 1.0) * 1024.0;
        ((e2 + 15) as u16, mm as u16)
    };
    sign | (exp << 10) | man
}

fn round_half_even(x: f64) -> f64 {
    let r = x.round();
    if (x - x.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - x.signum()
    } else {
        r
    }
}

/// f32 to IEEE half bits, rounded to nearest even (through f64, exact).
pub fn f32_to_f16(x: f32) -> u16 {
    f64_to_f16(x as f64)
}

pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// f32 to bfloat16 bits, rounded to nearest even; NaN stays NaN.
pub fn f32_to_bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) as u16) | 0x40;
    }
    let round = 0x7fff + ((b >> 16) & 1);
    ((b.wrapping_add(round)) >> 16) as u16
}

/// Float operations at the precision of their argument.
pub trait Fl: Copy {
    fn sqrt_(self) -> Self;
    fn floor_(self) -> Self;
    fn trunc_(self) -> Self;
    fn fract_(self) -> Self;
    fn log2_(self) -> Self;
    fn sin_(self) -> Self;
    fn cos_(self) -> Self;
}

macro_rules! fl {
    ($t:ty) => {
        impl Fl for $t {
            fn sqrt_(self) -> Self {
                self.sqrt()
            }
            fn floor_(self) -> Self {
                self.floor()
            }
            fn trunc_(self) -> Self {
                self.trunc()
            }
            fn fract_(self) -> Self {
                self - self.floor()
            }
            fn log2_(self) -> Self {
                self.log2()
            }
            fn sin_(self) -> Self {
                self.sin()
            }
            fn cos_(self) -> Self {
                self.cos()
            }
        }
    };
}
fl!(f32);
fl!(f64);

pub fn fsqrt<T: Fl>(x: T) -> T {
    x.sqrt_()
}
pub fn ffloor<T: Fl>(x: T) -> T {
    x.floor_()
}
pub fn ftrunc<T: Fl>(x: T) -> T {
    x.trunc_()
}
pub fn ffract<T: Fl>(x: T) -> T {
    x.fract_()
}
pub fn flog2<T: Fl>(x: T) -> T {
    x.log2_()
}
pub fn fsin<T: Fl>(x: T) -> T {
    x.sin_()
}
pub fn fcos<T: Fl>(x: T) -> T {
    x.cos_()
}

pub fn ldexp32(x: f32, e: i128) -> f32 {
    ldexp64(x as f64, e) as f32
}

pub fn ldexp64(x: f64, e: i128) -> f64 {
    let e = e.clamp(-2200, 2200) as i32;
    // Two steps keep the intermediate in range.
    let h = e / 2;
    x * 2f64.powi(h) * 2f64.powi(e - h)
}

/// The significand of `x` in [0.5, 1) (frexp's), sign kept.
pub fn mantissa64(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let e = x.abs().log2().floor() as i32 + 1;
    let m = x / 2f64.powi(e);
    if m.abs() >= 1.0 {
        m / 2.0
    } else if m.abs() < 0.5 {
        m * 2.0
    } else {
        m
    }
}

pub fn mantissa32(x: f32) -> f32 {
    mantissa64(x as f64) as f32
}

/// A signalling NaN: the quiet bit clear. (An f32 widened to f64 keeps it.)
pub fn is_signal_nan(x: f64) -> bool {
    x.is_nan() && (x.to_bits() >> 51) & 1 == 0
}

pub fn is_quiet_nan(x: f64) -> bool {
    x.is_nan() && (x.to_bits() >> 51) & 1 == 1
}

pub fn quiet_nan(x: f64) -> f64 {
    f64::from_bits(x.to_bits() | (1 << 51))
}

/// A float converted to an integer of `bits`, saturating, NaN to 0.
pub fn f_to_int(x: f64, bits: u32, signed: bool) -> i128 {
    if x.is_nan() {
        return 0;
    }
    let t = x.trunc();
    if signed {
        let hi = (1i128 << (bits - 1)) - 1;
        let lo = -(1i128 << (bits - 1));
        if t >= hi as f64 {
            hi
        } else if t <= lo as f64 {
            lo
        } else {
            t as i128
        }
    } else {
        let hi = (1i128 << bits) - 1;
        if t <= 0.0 {
            0
        } else if t >= hi as f64 {
            hi
        } else {
            t as i128
        }
    }
}

/// The emulated clock, in cycles of a 2 GHz shader clock. Emulated time is
/// not host time: every read advances the clock by 2^16 cycles (about
/// 33 us), so that a kernel waiting for a number of cycles (`while
/// (clock64() - start < n)`) finishes after n / 65536 reads rather than
/// after n cycles of an interpreter. It starts from the host's monotonic
/// clock and only grows, across dispatches and threads.
pub fn clock_cycles() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    static CYCLES: AtomicU64 = AtomicU64::new(0);
    const STEP: u64 = 1 << 16;
    let host = (START.get_or_init(Instant::now).elapsed().as_nanos() as u64).saturating_mul(2);
    let mut cur = CYCLES.load(Ordering::Relaxed);
    loop {
        let next = cur.max(host) + STEP;
        match CYCLES.compare_exchange_weak(cur, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => cur = seen,
        }
    }
}

/// The emulated 100 MHz real-time clock (`s_memrealtime`,
/// `MSG_RTN_GET_REALTIME`): [`clock_cycles`] at a twentieth of its rate.
pub fn clock_realtime() -> u64 {
    clock_cycles() / 20
}

/// A hardware register as `s_getreg` reads it: SHADER_CYCLES (29) is the
/// low 20 bits of [`clock_cycles`]; MODE (1) says round to nearest,
/// denormals kept, IEEE mode and DX10 clamp on (what a HIP kernel starts
/// with); every other reads 0.
pub fn hw_register(id: u32) -> i128 {
    match id {
        29 => (clock_cycles() & 0xf_ffff) as i128,
        1 => 0x3f0,
        _ => 0,
    }
}

/// `x` (exact in f64) is a nonzero denormal of the `bits`-wide format.
pub fn is_denormal(x: f64, bits: u32) -> bool {
    let min_normal = match bits {
        16 => 2f64.powi(-14),
        32 => f32::MIN_POSITIVE as f64,
        _ => f64::MIN_POSITIVE,
    };
    x != 0.0 && x.abs() < min_normal
}

pub fn lt_neg_zero(a: f64, b: f64) -> bool {
    (a == 0.0 && b == 0.0 && a.is_sign_negative() && !b.is_sign_negative()) || a < b
}

pub fn gt_neg_zero(a: f64, b: f64) -> bool {
    (a == 0.0 && b == 0.0 && !a.is_sign_negative() && b.is_sign_negative()) || a > b
}

/// The maximum as the VALU computes it: a NaN operand yields the other
/// (a signalling one is quieted in IEEE mode); +0 is above -0.
pub fn fmax_ieee(a: f64, b: f64, ieee: bool) -> f64 {
    if ieee && is_signal_nan(a) {
        return quiet_nan(a);
    }
    if ieee && is_signal_nan(b) {
        return quiet_nan(b);
    }
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if gt_neg_zero(a, b) || a == b {
        a
    } else {
        b
    }
}

pub fn fmin_ieee(a: f64, b: f64, ieee: bool) -> f64 {
    if ieee && is_signal_nan(a) {
        return quiet_nan(a);
    }
    if ieee && is_signal_nan(b) {
        return quiet_nan(b);
    }
    if a.is_nan() {
        return b;
    }
    if b.is_nan() {
        return a;
    }
    if lt_neg_zero(a, b) || a == b {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversions_round_trip_every_finite_half() {
        for h in 0u16..=0xffff {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert!(f32_to_f16(f) & 0x7c00 == 0x7c00 && f32_to_f16(f) & 0x3ff != 0);
                continue;
            }
            assert_eq!(f32_to_f16(f), h, "{h:#06x} -> {f}");
        }
    }

    #[test]
    fn half_rounding_is_to_nearest_even() {
        // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00);
        // 1 + 3*2^-11 is halfway between 1+2^-10 and 1+2^-9: to even (1+2^-9).
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00);
        assert_eq!(f32_to_f16(2f32.powi(-24)), 0x0001);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
    }

    #[test]
    fn bits_helpers() {
        assert_eq!(
            set_bits(0xffff_ffff_ffff_ffff, 8, 8, 0),
            0xffff_ffff_ffff_00ff
        );
        let mut w = [0u32; 16];
        wide_set(&mut w, 16, 64, 0x1122_3344_5566_7788);
        assert_eq!(wide_get(&w, 16, 64), 0x1122_3344_5566_7788);
        assert_eq!(w[0], 0x7788_0000);
        assert_eq!(sext(0x80, 8), -128);
        assert_eq!(reverse_bits(0b0011, 4), 0b1100);
        assert_eq!(ff1(0b1000), 3);
        assert_eq!(ff1(0), -1);
    }

    #[test]
    fn the_clock_only_grows_and_a_wait_ends() {
        let start = clock_cycles();
        let mut reads = 0;
        while clock_cycles() - start < 200_000_000 {
            reads += 1;
        }
        assert!(reads < 4000, "{reads} reads for 200 M cycles");
        assert!(clock_realtime() > 0);
    }

    #[test]
    fn bf16_rounds_to_nearest_even() {
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8000)), 0x3f80);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f81_8000)), 0x3f82);
    }
}
