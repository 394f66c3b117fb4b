//! What every kernel spec uses: a fixed-seed generator, device buffers and
//! launches on a loaded code object, the reduced-precision formats'
//! roundings (f16, bf16, OCP fp8 E4M3) and the comparisons, which count
//! every element checked and keep the first mismatches.

use crate::common::launch::{bytes, values, Loaded};
use hip_emu::code_object::LaunchDims;
use hip_emu::isa::LaunchError;
use std::fmt::Debug;

/// splitmix64: a fixed-seed stream, the same on every host.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut x = self.0;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^ (x >> 31)
    }

    pub(crate) fn u32(&mut self) -> u32 {
        (self.u64() >> 32) as u32
    }

    /// Uniform in `lo..hi` (integers).
    pub(crate) fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.u64() % (hi - lo) as u64) as i64
    }

    /// Uniform in [lo, hi), as an f32.
    pub(crate) fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }

    /// A multiple of 1/`den` in [lo, hi): values whose sums and products
    /// stay exact in the kernel's format, whatever the order.
    pub(crate) fn dyadic(&mut self, lo: i64, hi: i64, den: i64) -> f32 {
        self.int(lo * den, hi * den) as f32 / den as f32
    }

    pub(crate) fn f32s(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.f32(lo, hi)).collect()
    }

    pub(crate) fn dyadics(&mut self, n: usize, lo: i64, hi: i64, den: i64) -> Vec<f32> {
        (0..n).map(|_| self.dyadic(lo, hi, den)).collect()
    }
}

/// A value as the bytes of a kernel argument.
pub(crate) fn a<T: Copy>(v: T) -> Vec<u8> {
    bytes(&[v])
}

/// One kernel's run: its code object loaded in a fresh memory, and the
/// tally of its checks.
pub(crate) struct Ctx<'a> {
    pub(crate) l: &'a Loaded,
    pub(crate) kernel: &'a str,
    pub(crate) checked: usize,
    pub(crate) mismatches: usize,
    pub(crate) first: Vec<String>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(l: &'a Loaded, kernel: &'a str) -> Ctx<'a> {
        Ctx {
            l,
            kernel,
            checked: 0,
            mismatches: 0,
            first: Vec::new(),
        }
    }

    /// A device buffer holding `v`.
    pub(crate) fn buf<T: Copy>(&self, v: &[T]) -> u64 {
        self.l.mem.alloc(&bytes(v))
    }

    /// `n` elements of type `T` read back from `addr`.
    pub(crate) fn get<T: Copy>(&self, addr: u64, n: usize) -> Vec<T> {
        values(&self.l.mem.read(addr, n * size_of::<T>()))
    }

    /// Launches the kernel on `grid` blocks of `block` threads with
    /// `lds` bytes of dynamic LDS.
    pub(crate) fn launch(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        lds: u32,
        args: &[Vec<u8>],
    ) -> Result<(), LaunchError> {
        let dims = LaunchDims {
            grid,
            block,
            dynamic_lds: lds,
        };
        let args: Vec<&[u8]> = args.iter().map(|v| v.as_slice()).collect();
        self.l.launch_dims(self.kernel, &dims, &args).map(|_| ())
    }

    /// [`Ctx::launch`] in x only, without dynamic LDS.
    pub(crate) fn launch1(
        &self,
        grid: u32,
        block: u32,
        args: &[Vec<u8>],
    ) -> Result<(), LaunchError> {
        self.launch([grid, 1, 1], [block, 1, 1], 0, args)
    }

    /// [`Ctx::launch1`] with the host's printf service: what the kernel
    /// printed, each printf as (to standard error, text).
    pub(crate) fn launch1_printing(
        &self,
        grid: u32,
        block: u32,
        args: &[Vec<u8>],
    ) -> Result<Vec<(bool, String)>, LaunchError> {
        let args: Vec<&[u8]> = args.iter().map(|v| v.as_slice()).collect();
        let (result, printed) = self.l.launch_printing(self.kernel, grid, block, &args);
        result.map(|_| printed)
    }

    fn record(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.checked += 1;
        if !ok {
            self.mismatches += 1;
            if self.first.len() < 8 {
                self.first.push(what());
            }
        }
    }

    /// `got == want` (integers, indices, flags, codes).
    pub(crate) fn exact<T: PartialEq + Debug>(&mut self, what: &str, i: usize, got: T, want: T) {
        let ok = got == want;
        self.record(ok, || format!("{what}[{i}]: got {got:?}, want {want:?}"));
    }

    /// `got` is `want`, bit for bit (any NaN matches any NaN).
    pub(crate) fn f32_exact(&mut self, what: &str, i: usize, got: f32, want: f32) {
        let ok = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
        self.record(ok, || {
            format!("{what}[{i}]: got {got:e}, want {want:e} (bit for bit)")
        });
    }

    /// [`Ctx::f32_exact`] for f64.
    pub(crate) fn f64_exact(&mut self, what: &str, i: usize, got: f64, want: f64) {
        let ok = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
        self.record(ok, || {
            format!("{what}[{i}]: got {got:e}, want {want:e} (bit for bit)")
        });
    }

    /// `|got - want| <= abs + rel * |want|`, `want` the exact value; NaN
    /// matches NaN and an infinity only itself.
    pub(crate) fn close(&mut self, what: &str, i: usize, got: f64, want: f64, abs: f64, rel: f64) {
        let ok = if got.is_nan() || want.is_nan() {
            got.is_nan() && want.is_nan()
        } else if got.is_infinite() || want.is_infinite() {
            got == want
        } else {
            (got - want).abs() <= abs + rel * want.abs()
        };
        self.record(ok, || {
            format!(
                "{what}[{i}]: got {got:e}, want {want:e} (|diff| {:e} > {abs:e} + {rel:e}*|want|)",
                (got - want).abs()
            )
        });
    }

    /// `got` within `ulps` units in the last place of f32 of the exact
    /// value `want`.
    pub(crate) fn f32_ulps(&mut self, what: &str, i: usize, got: f32, want: f64, ulps: f64) {
        let ok = if want.is_nan() || got.is_nan() {
            want.is_nan() && got.is_nan()
        } else if want.is_infinite() {
            f64::from(got) == want
        } else {
            (f64::from(got) - want).abs() <= ulps * ulp32(want)
        };
        self.record(ok, || {
            format!(
                "{what}[{i}]: got {got:e}, want {want:e} ({:.2} ulp > {ulps})",
                (f64::from(got) - want).abs() / ulp32(want)
            )
        });
    }

    /// `got` (binary16 bits) within `ulps` f16 units of the exact `want`.
    pub(crate) fn f16_ulps(&mut self, what: &str, i: usize, got: u16, want: f64, ulps: f64) {
        let g = f64::from(f16_to_f32(got));
        let ulp = ulp_of(want, 10, 15);
        let ok = (g - want).abs() <= ulps * ulp || (g.is_nan() && want.is_nan());
        self.record(ok, || {
            format!("{what}[{i}]: got {g:e} ({got:#06x}), want {want:e} (> {ulps} f16 ulp)")
        });
    }
}

/// The spacing of f32 values at `x`: 2^(exponent - 23), 2^-149 below the
/// normal range.
pub(crate) fn ulp32(x: f64) -> f64 {
    ulp_of(x, 23, 127)
}

/// The spacing of a binary format with `mbits` fraction bits and
/// exponent `bias` at `x`.
fn ulp_of(x: f64, mbits: i32, bias: i32) -> f64 {
    let e = if x == 0.0 {
        1 - bias
    } else {
        exponent(x.abs()).max(1 - bias)
    };
    2f64.powi(e - mbits)
}

/// `floor(log2(a))` of a positive normal f64.
fn exponent(a: f64) -> i32 {
    ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// `a` (finite, >= 0) rounded to nearest even in a binary format with
/// `mbits` fraction bits and exponent `bias`: the code, without a sign,
/// past the largest finite value when `a` overflows the format.
fn round_code(a: f64, mbits: i32, bias: i32) -> u32 {
    if a == 0.0 {
        return 0;
    }
    if a.is_infinite() {
        return u32::MAX;
    }
    let e = exponent(a);
    if e < 1 - bias {
        // Subnormal: units of 2^(1 - bias - mbits).
        (a * 2f64.powi(bias - 1 + mbits)).round_ties_even() as u32
    } else {
        // q in [2^mbits, 2^(mbits+1)]: 2^(mbits+1) carries into the exponent.
        let q = (a * 2f64.powi(mbits - e)).round_ties_even() as u32;
        (((e + bias) as u32) << mbits) + q - (1 << mbits)
    }
}

/// IEEE binary16 bits to f32 (exact).
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f32::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f32.powi(-24),
        31 if m == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1024.0 + m) * 2f32.powi(e - 25),
    }
}

/// `x` rounded to nearest even binary16 (overflow to infinity), as
/// `__float2half` and the f16 arithmetic instructions round.
pub(crate) fn to_f16(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return 0x7e00;
    }
    let code = if x.is_infinite() {
        0x7c00
    } else {
        round_code(x.abs(), 10, 15).min(0x7c00)
    };
    sign | code as u16
}

/// bfloat16 bits to f32 (exact).
pub(crate) fn bf16_to_f32(b: u16) -> f32 {
    f32::from_bits(u32::from(b) << 16)
}

/// `x` rounded to nearest even bfloat16 (overflow to infinity), as
/// `__float2bfloat16` rounds.
pub(crate) fn to_bf16(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return 0x7fc0;
    }
    let code = if x.is_infinite() {
        0x7f80
    } else {
        round_code(x.abs(), 7, 127).min(0x7f80)
    };
    sign | code as u16
}

/// An OCP E4M3 code to f32 (exact; 0x7f and 0xff are NaN).
pub(crate) fn e4m3_to_f32(q: u8) -> f32 {
    let sign = if q & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((q >> 3) & 0xf);
    let m = f32::from(q & 7);
    sign * match (e, q & 0x7f) {
        (_, 0x7f) => f32::NAN,
        (0, _) => m * 2f32.powi(-9),
        _ => (8.0 + m) * 2f32.powi(e - 10),
    }
}

/// `x` to OCP E4M3 as CUDA's `__nv_fp8_e4m3(float)` converts: nearest
/// even, saturating to +-448 (`__NV_SATFINITE`), NaN to 0x7f with the
/// sign.
pub(crate) fn to_e4m3(x: f32) -> u8 {
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    if x.is_nan() {
        return sign | 0x7f;
    }
    sign | round_code(f64::from(x.abs()), 3, 7).min(0x7e) as u8
}

#[test]
fn the_roundings_match_known_codes() {
    assert_eq!(to_f16(1.0), 0x3c00);
    assert_eq!(to_f16(65504.0), 0x7bff);
    assert_eq!(to_f16(65520.0), 0x7c00);
    assert_eq!(to_f16(65519.0), 0x7bff);
    assert_eq!(to_f16(2f64.powi(-24)), 1);
    assert_eq!(to_f16(2f64.powi(-25)), 0);
    assert_eq!(to_f16(-1.5 * 2f64.powi(-24)), 0x8002);
    assert_eq!(to_f16(1.0 + 2f64.powi(-11)), 0x3c00);
    assert_eq!(to_f16(1.0 + 3.0 * 2f64.powi(-11)), 0x3c02);
    for h in 0..=0xffffu16 {
        let f = f16_to_f32(h);
        if !f.is_nan() {
            assert_eq!(to_f16(f64::from(f)), h, "{h:#x}");
        }
    }
    assert_eq!(to_bf16(1.0), 0x3f80);
    assert_eq!(to_bf16(f64::from(f32::MAX)), 0x7f80);
    assert_eq!(to_bf16(f64::from(f32::from_bits(1))), 0);
    assert_eq!(to_bf16(f64::from(f32::from_bits(0x8000))), 0);
    assert_eq!(to_bf16(f64::from(f32::from_bits(0x8001))), 1);
    for b in 0..=0xffffu16 {
        let f = bf16_to_f32(b);
        if !f.is_nan() {
            assert_eq!(to_bf16(f64::from(f)), b, "{b:#x}");
        }
    }
    assert_eq!(to_e4m3(448.0), 0x7e);
    assert_eq!(to_e4m3(1e9), 0x7e);
    assert_eq!(to_e4m3(-1e9), 0xfe);
    assert_eq!(to_e4m3(2f32.powi(-9)), 1);
    assert_eq!(to_e4m3(2f32.powi(-10)), 0);
    for q in 0..=255u8 {
        let f = e4m3_to_f32(q);
        if !f.is_nan() {
            assert_eq!(to_e4m3(f), q, "{q:#x}");
        }
    }
}
