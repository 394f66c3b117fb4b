//! hip-cuda-layer's inline PTX translation (`hip_cuda_layer::ptx`) checked
//! by execution: `tests/kernels/ptx_idioms.cu` writes every translated
//! idiom as CUDA sources do (`asm volatile("cvt.rn.f16.f32 %0, %1;" ...)`);
//! the test translates it, compiles it with the layer as the cudaforge
//! drop-in does, runs it on the emulated gfx942 and gfx1100, and compares
//! each result with what PTX's documentation defines, computed here: exact
//! for moves, conversions, f16 arithmetic and logic; within PTX's stated
//! error for the `.approx` functions.

mod common;

use common::launch::{bytes, Loaded};
use half::{bf16, f16};
use hip_emu::isa::Target;
use std::path::Path;

const IN: usize = 5;
const OUT: usize = 32;

/// Inputs of one thread: a, b, c, x, y.
#[derive(Clone, Copy, Debug)]
struct Case([u32; IN]);

/// f16 bits with the exponent in [-8, 8] (so that f16 products and sums
/// are exact in f64, and a reference rounds once), either sign.
fn moderate_f16(bits: u32) -> u16 {
    let sign = (bits >> 15 & 1) as u16;
    let exp = (7 + bits % 17) as u16; // biased 7..=23, unbiased -8..=8
    let man = (bits >> 5 & 0x3ff) as u16;
    sign << 15 | exp << 10 | man
}

/// The cases: random words (xorshift), moderate f16 halves for the
/// arithmetic, f32 values across the range and the special ones.
fn cases() -> Vec<Case> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 16) as u32
    };
    let specials: [u32; 12] = [
        0x0000_0000,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0x0000_0001,
        0x3f80_0000,
        0x477f_f000, // 65520: rounds to f16 infinity
        0x477f_e000, // 65504: f16's largest
        0x3380_0000, // 2^-24: f16's smallest subnormal
        0x3f80_8000, // 1 + 2^-8: a bf16 tie, to even
        0x3f81_8000, // 1 + 3 * 2^-8: a bf16 tie, up
    ];
    (0..256)
        .map(|i| {
            let half2 = |w: u32| {
                u32::from(moderate_f16(w)) | u32::from(moderate_f16(w >> 11 ^ w << 7)) << 16
            };
            let (ra, rb, rc) = (next(), next(), next());
            let x = if i < specials.len() {
                specials[i]
            } else if i % 2 == 0 {
                // Values of every magnitude f32 has.
                next()
            } else {
                // Moderate values, where the approximations are checked.
                (((next() % 40) + 107) << 23) | (next() & 0x807f_ffff)
            };
            Case([half2(ra), half2(rb), half2(rc), x, next()])
        })
        .collect()
}

fn f16_of(bits: u32) -> f16 {
    f16::from_bits(bits as u16)
}

/// f16 of an exact f64 value, rounded once to nearest even.
fn round_f16(v: f64) -> u32 {
    u32::from(f16::from_f64(v).to_bits())
}

/// Per half of a packed f16x2.
fn per_half(a: u32, b: u32, c: u32, op: impl Fn(f64, f64, f64) -> f64) -> u32 {
    let h = |w: u32, k: u32| f16_of(w >> (16 * k) & 0xffff).to_f64();
    round_f16(op(h(a, 0), h(b, 0), h(c, 0))) | round_f16(op(h(a, 1), h(b, 1), h(c, 1))) << 16
}

/// What PTX defines for case `k` of the kernel: exact bits, or a value and
/// a relative tolerance.
enum Want {
    Bits(u32),
    /// A NaN (its payload is the hardware's).
    Nan,
    F32(f64, f64),
    F16(f64, f64),
    /// Two f16 in one word, each with the tolerance.
    F16x2([f64; 2], f64),
    /// Two f16 in one word, each exact or (`None`) a NaN.
    Halves([Option<u16>; 2]),
}

fn want(case: &Case, k: usize) -> Want {
    let [a, b, c, xb, yb] = case.0;
    let (x, y) = (f32::from_bits(xb), f32::from_bits(yb));
    let (ha, hb, hc) = (a & 0xffff, b & 0xffff, c & 0xffff);
    let f16_rn = |v: f32| u32::from(f16::from_f32(v).to_bits());
    let bf16_rn = |v: f32| u32::from(bf16::from_f32(v).to_bits());
    let ftz = |v: f32| {
        if v.is_subnormal() {
            0.0f32.copysign(v)
        } else {
            v
        }
    };
    // The reciprocals' input: x's sign and mantissa, an exponent from y.
    // (A quotient of 2^95 or more, or a subnormal one, takes V_DIV_SCALE's
    // and V_DIV_FMAS's scaling paths, whose pseudocode in AMD's ISA data
    // does not give back the quotient: not what these cases check.)
    let xm = f32::from_bits((xb & 0x807f_ffff) | ((107 + yb % 40) << 23));
    // An f32 result as PTX's .ftz gives it: past f32's range infinite,
    // below its normals zero.
    let flushed = |v: f64| {
        if v.abs() < f64::from(f32::MIN_POSITIVE) {
            0.0f64.copysign(v)
        } else {
            f64::from(v as f32)
        }
    };
    let f32_bits = |v: f32| {
        if v.is_nan() {
            Want::Nan
        } else {
            Want::Bits(v.to_bits())
        }
    };
    match k {
        0 => Want::Bits(ha | hb << 16),
        1 => Want::Bits(a & 0xffff),
        2 => Want::Bits(a >> 16),
        3 => Want::Bits(b),
        4 => Want::Bits(a ^ b),
        5 => f32_bits(f16_of(ha).to_f32()),
        6 | 9 if x.is_nan() => Want::Nan,
        6 => Want::Bits(f16_rn(x)),
        7 if x.is_nan() || y.is_nan() => Want::Nan,
        7 => Want::Bits(f16_rn(x) << 16 | f16_rn(y)),
        8 => f32_bits(f32::from_bits(ha << 16)),
        9 => Want::Bits(bf16_rn(x)),
        10 if x.is_nan() || y.is_nan() => Want::Nan,
        10 => Want::Bits(bf16_rn(x) << 16 | bf16_rn(y)),
        11 => Want::Bits(round_f16(f16_of(ha).to_f64() + f16_of(hb).to_f64())),
        12 => Want::Bits(round_f16(f16_of(ha).to_f64() - f16_of(hb).to_f64())),
        13 => Want::Bits(round_f16(f16_of(ha).to_f64() * f16_of(hb).to_f64())),
        14 => Want::Bits(round_f16(
            f16_of(ha).to_f64() * f16_of(hb).to_f64() + f16_of(hc).to_f64(),
        )),
        15 => Want::Bits(per_half(a, b, c, |p, q, _| p + q)),
        16 => Want::Bits(per_half(a, b, c, |p, q, _| p - q)),
        17 => Want::Bits(per_half(a, b, c, |p, q, _| p * q)),
        18 => Want::Bits(per_half(a, b, c, |p, q, r| p * q + r)),
        // PTX: tanh.approx.f32's maximum relative error is 2^-10.987.
        19 => Want::F32(f64::from(x).tanh(), 2f64.powf(-10.987)),
        // ex2.approx.ftz.f32: 2 ulp; the result's subnormals flushed.
        20 => Want::F32(
            flushed(f64::from(ftz(x / 16.0)).exp2()),
            2.0 * f64::from(f32::EPSILON),
        ),
        // lg2.approx.ftz.f32: 2^-22.6 absolute in [0.5, 2], else 2^-22
        // relative (4 ulp and more); a subnormal input is zero.
        21 => {
            let v = f64::from(ftz(x.abs())).log2();
            Want::F32(
                v,
                2f64.powf(-22.0).max(2f64.powf(-22.6) / v.abs().max(1e-30)),
            )
        }
        // rcp.approx.ftz.f32: 1 ulp.
        22 => Want::F32(flushed(1.0 / f64::from(xm)), f64::from(f32::EPSILON)),
        // rsqrt.approx.ftz.f32: 2^-22.9 relative.
        23 => Want::F32(1.0 / f64::from(xm.abs()).sqrt(), 2f64.powf(-22.0)),
        24 => Want::Bits(a ^ b ^ c),
        25 => Want::Bits((a & b) | (a & c) | (b & c)),
        26 => {
            let bytes = u64::from(a) | u64::from(b) << 32;
            let mut r = 0;
            for i in 0..4 {
                let s = c >> (4 * i) & 0xf;
                let mut byte = (bytes >> (8 * (s & 7))) as u32 & 0xff;
                if s & 8 != 0 {
                    byte = if byte & 0x80 != 0 { 0xff } else { 0 };
                }
                r |= byte << (8 * i);
            }
            Want::Bits(r)
        }
        // The f16 approximations: PTX's bound for tanh is 2^-10.987, for
        // ex2 2 ulp of f16 (2^-9 relative); one f16 rounding on top.
        27 => Want::F16(f16_of(ha).to_f64().tanh(), 2f64.powf(-10.0)),
        28 => Want::F16(f16_of(hc).to_f64().exp2(), 2f64.powf(-9.0)),
        29 => Want::F16x2(
            [f16_of(a).to_f64().tanh(), f16_of(a >> 16).to_f64().tanh()],
            2f64.powf(-10.0),
        ),
        30 => Want::F16x2(
            [f16_of(c).to_f64().exp2(), f16_of(c >> 16).to_f64().exp2()],
            2f64.powf(-9.0),
        ),
        31 => Want::Bits(b),
        _ => unreachable!(),
    }
}

/// Whether each half of `got` is the f16 `w` names (a NaN for `None`).
fn halves_match(w: [Option<u16>; 2], got: u32) -> bool {
    (0..2).all(|h| {
        let g = (got >> (16 * h)) as u16;
        match w[h] {
            Some(bits) => g == bits,
            None => f16::from_bits(g).is_nan(),
        }
    })
}

/// Whether `got` is within `tol` of `want` (relative; infinities and
/// zeros exactly, allowing a zero's sign).
fn close(got: f64, want: f64, tol: f64) -> bool {
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    if want == 0.0 {
        return got == 0.0;
    }
    ((got - want) / want).abs() <= tol
}

fn check(k: usize, case: &Case, got: u32) -> Result<(), String> {
    let ok = match want(case, k) {
        Want::Bits(w) => got == w,
        Want::Nan => {
            // A NaN in the result's own format.
            match k {
                6 | 9 => {
                    if k == 6 {
                        f16_of(got).is_nan()
                    } else {
                        bf16::from_bits(got as u16).is_nan()
                    }
                }
                7 => f16_of(got).is_nan() || f16_of(got >> 16).is_nan(),
                10 => {
                    bf16::from_bits(got as u16).is_nan()
                        || bf16::from_bits((got >> 16) as u16).is_nan()
                }
                _ => f32::from_bits(got).is_nan(),
            }
        }
        Want::F32(w, tol) => {
            let g = f64::from(f32::from_bits(got));
            (w.is_nan() && g.is_nan()) || close(g, w, tol)
        }
        Want::F16(w, tol) => {
            let g = f16_of(got).to_f64();
            (w.is_nan() && g.is_nan())
                || close(g, w, tol)
                || close(g, f16::from_f64(w).to_f64(), tol)
        }
        Want::Halves(w) => halves_match(w, got),
        Want::F16x2(w, tol) => (0..2).all(|h| {
            let g = f16_of(got >> (16 * h)).to_f64();
            (w[h].is_nan() && g.is_nan())
                || close(g, w[h], tol)
                || close(g, f16::from_f64(w[h]).to_f64(), tol)
        }),
    };
    if ok {
        Ok(())
    } else {
        let w = match want(case, k) {
            Want::Bits(w) => format!("{w:#010x}"),
            Want::Nan => "a NaN".into(),
            Want::F32(w, t) | Want::F16(w, t) => format!("{w:e} within {t:e}"),
            Want::Halves(w) => format!("{w:x?}"),
            Want::F16x2(w, t) => format!("{w:?} within {t:e}"),
        };
        Err(format!(
            "case {k} inputs {:#010x?}: got {got:#010x}, want {w}",
            case.0
        ))
    }
}

#[test]
fn every_translated_idiom_computes_what_ptx_defines_on_both_targets() {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/ptx_idioms.cu"),
    )
    .expect("tests/kernels/ptx_idioms.cu");
    let t = hip_cuda_layer::ptx::translate(&src);
    assert!(t.untranslated.is_empty(), "{:?}", t.untranslated);
    assert!(!t.text.contains("asm("), "a statement was left");
    // Every idiom of the table is exercised.
    for idiom in hip_cuda_layer::ptx::IDIOMS {
        // Forms these kernels do not use: trap ends the kernel; the other
        // fences, the unflushed approximations and the other operand
        // forms of setp and cp.async share their code with those used.
        let untested = [
            "mov.b32 _, _",
            "trap",
            "membar.cta",
            "membar.sys",
            "ex2.approx.f32 _, _",
            "lg2.approx.f32 _, _",
            "setp.ne.b32 ?, _, _",
            "setp.eq.b32 ?, _, #",
            "setp.eq.b32 ?, _, _",
            "cp.async.ca.shared.global [_], [_], #",
            "cp.async.cg.shared.global [_], [_], #",
            "cp.async.cg.shared.global.L2::128B [_], [_], #",
            "cp.async.ca.shared.global [_], [_], #, _",
            "cp.async.cg.shared.global [_], [_], #, _",
            "cp.async.cg.shared.global.L2::128B [_], [_], #, _",
            "cp.async.ca.shared.global [_], [_], _",
            "cp.async.cg.shared.global.L2::128B [_], [_], _",
            "cp.async.cg.shared.global [_], [_], _, _",
            "cp.async.wait_group #",
            "cp.async.wait_all",
        ];
        assert!(
            t.translated.iter().any(|f| f == idiom.form) || untested.contains(&idiom.form),
            "{} is not in tests/kernels/ptx_idioms.cu",
            idiom.form
        );
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ptx-idioms");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ptx_idioms.hip");
    std::fs::write(&file, &t.text).unwrap();
    let include = common::workspace().join("hip-cuda-layer/include");
    let flags: Vec<String> = [
        "-I",
        &include.display().to_string(),
        "-include",
        "hiprs_cuda.h",
        "-DHIPRS_CUDA_ARCH=890",
    ]
    .map(String::from)
    .to_vec();
    let cases = cases();
    let input: Vec<u32> = cases.iter().flat_map(|c| c.0).collect();
    for target in Target::ALL {
        let elf = common::code_object_of_file(&file, "ptx_idioms", target, &flags)
            .expect("the translated kernel");
        let l = Loaded::new(&elf, target);
        let in_d = l.mem.alloc(&bytes(&input));
        let out_d = l.mem.alloc(&vec![0u8; 4 * OUT * cases.len()]);
        l.launch(
            "ptx_cases",
            (cases.len() / 64) as u32,
            64,
            &[
                &in_d.to_le_bytes(),
                &out_d.to_le_bytes(),
                &(cases.len() as i32).to_le_bytes(),
            ],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out: Vec<u32> = l
            .mem
            .read(out_d, 4 * OUT * cases.len())
            .chunks(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect();
        let mut failures = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            for k in 0..OUT {
                if let Err(e) = check(k, case, out[OUT * i + k]) {
                    failures.push(e);
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{target}: {} of {} results differ from PTX's definition; first:\n{}",
            failures.len(),
            OUT * cases.len(),
            failures
                .iter()
                .take(12)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// A wrong idiom is caught: with the f16x2 packing's halves swapped in
/// the translation, case 7 fails.
#[test]
fn the_check_sees_a_swapped_half() {
    let case = Case([0, 0, 0, 1.0f32.to_bits(), 2.0f32.to_bits()]);
    let right =
        u32::from(f16::from_f32(1.0).to_bits()) << 16 | u32::from(f16::from_f32(2.0).to_bits());
    assert!(check(7, &case, right).is_ok());
    assert!(check(7, &case, right.rotate_left(16)).is_err());
}

const OUT2: usize = 34;
const BUF: usize = 16;

/// An OCP fp8 code's value (e4m3: bias 7, no infinities, S.1111.111 NaN;
/// e5m2: f16's upper byte).
fn fp8_value(code: u8, e4m3: bool) -> f64 {
    if !e4m3 {
        return f16::from_bits(u16::from(code) << 8).to_f64();
    }
    let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
    let (e, m) = (i32::from(code >> 3 & 0xf), f64::from(code & 7));
    if e == 15 && m == 7.0 {
        return f64::NAN;
    }
    sign * if e == 0 {
        m / 8.0 * 2f64.powi(-6)
    } else {
        (1.0 + m / 8.0) * 2f64.powi(e - 7)
    }
}

/// f16 `h` to fp8 by PTX's cvt.rn.satfinite: the nearest finite code, ties
/// to the even code; past the largest finite value, that value.
fn to_fp8(h: u16, e4m3: bool) -> u8 {
    let v = f16::from_bits(h).to_f64();
    let mut best: Option<(f64, u8)> = None;
    for code in 0..=255u8 {
        let c = fp8_value(code, e4m3);
        if !c.is_finite() || (c == 0.0 && (code & 0x80 != 0) != v.is_sign_negative()) {
            continue;
        }
        let d = (c - v).abs();
        let better = match best {
            None => true,
            Some((bd, bc)) => d < bd || (d == bd && code & 1 == 0 && bc & 1 == 1),
        };
        if better {
            best = Some((d, code));
        }
    }
    best.expect("a finite code").1
}

/// What the memory kernel's word `k` of thread `i` must be.
fn want_memory(cases: &[Case], i: usize, k: usize) -> Want {
    let w = |j: usize| cases[i].0[j];
    let a = w(0);
    let block = i / 64;
    let lane_in_block = i % 64;
    let bytes: Vec<u8> = (1..5).flat_map(|j| w(j).to_le_bytes()).collect();
    let word =
        |from: &[u8], q: usize| u32::from_le_bytes(from[4 * q..4 * q + 4].try_into().unwrap());
    Want::Bits(match k {
        0..=3 => w(k),
        4..=7 => {
            let n = (a % 17) as usize;
            let kept: Vec<u8> = bytes
                .iter()
                .enumerate()
                .map(|(j, b)| if j < n { *b } else { 0 })
                .collect();
            word(&kept, k - 4)
        }
        8..=11 => {
            if a & 1 == 1 {
                w(k - 7)
            } else {
                0xdead_beef
            }
        }
        12 => w(3),
        13 => w(1),
        14 => w(2),
        15 => a ^ 0x5a5a_5a5a,
        16 => w(1),
        17 => w(2),
        18 => w(0) ^ w(1) ^ w(2) ^ w(3),
        19 => w(3)
            .wrapping_add(w(2).wrapping_mul(2))
            .wrapping_add(w(1).wrapping_mul(3))
            .wrapping_add(w(0).wrapping_mul(5)),
        20 => w(1)
            .wrapping_add(w(2))
            .wrapping_add(w(3))
            .wrapping_add(w(4)),
        21 => w(1)
            .wrapping_add(w(2).wrapping_mul(2))
            .wrapping_add(w(3).wrapping_mul(3))
            .wrapping_add(w(4).wrapping_mul(5)),
        22 => w(4),
        23 => (64 * block..64 * block + 64)
            .map(|j| 1 + (j % 7) as u32)
            .sum(),
        24..=28 => cases[64 * block + (lane_in_block ^ (1 << (k - 24)))].0[3],
        29 => (lane_in_block % 32) as u32,
        // fp8 pairs decode exactly; a NaN code to a NaN.
        30 | 31 => {
            let e4m3 = k == 30;
            let pair = if e4m3 { a & 0xffff } else { a >> 16 };
            let half = |code: u32| {
                let v = fp8_value(code as u8, e4m3);
                (!v.is_nan()).then(|| f16::from_f64(v).to_bits())
            };
            return Want::Halves([half(pair & 0xff), half(pair >> 8)]);
        }
        32 => {
            u32::from(to_fp8(w(1) as u16, true)) | u32::from(to_fp8((w(1) >> 16) as u16, true)) << 8
        }
        33 => {
            u32::from(to_fp8(w(2) as u16, false))
                | u32::from(to_fp8((w(2) >> 16) as u16, false)) << 8
        }
        _ => unreachable!(),
    })
}

#[test]
fn the_memory_shuffle_and_fp8_idioms_do_what_ptx_defines_on_both_targets() {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/ptx_idioms.cu"),
    )
    .expect("tests/kernels/ptx_idioms.cu");
    let t = hip_cuda_layer::ptx::translate(&src);
    assert!(t.untranslated.is_empty(), "{:?}", t.untranslated);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ptx-idioms");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("ptx_idioms.hip");
    std::fs::write(&file, &t.text).unwrap();
    let include = common::workspace().join("hip-cuda-layer/include");
    let flags: Vec<String> = [
        "-I",
        &include.display().to_string(),
        "-include",
        "hiprs_cuda.h",
        "-DHIPRS_CUDA_ARCH=890",
    ]
    .map(String::from)
    .to_vec();
    let cases = cases();
    let input: Vec<u32> = cases.iter().flat_map(|c| c.0).collect();
    for target in Target::ALL {
        let elf = common::code_object_of_file(&file, "ptx_idioms", target, &flags)
            .expect("the translated kernel");
        let l = Loaded::new(&elf, target);
        let in_d = l.mem.alloc(&bytes(&input));
        let out_d = l.mem.alloc(&vec![0u8; 4 * OUT2 * cases.len()]);
        let buf_d = l.mem.alloc(&vec![0u8; 4 * BUF * cases.len()]);
        let counters_d = l.mem.alloc(&vec![0u8; 4 * cases.len() / 64]);
        l.launch(
            "ptx_memory_cases",
            (cases.len() / 64) as u32,
            64,
            &[
                &in_d.to_le_bytes(),
                &out_d.to_le_bytes(),
                &buf_d.to_le_bytes(),
                &counters_d.to_le_bytes(),
                &(cases.len() as i32).to_le_bytes(),
            ],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out: Vec<u32> = l
            .mem
            .read(out_d, 4 * OUT2 * cases.len())
            .chunks(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect();
        let mut failures = Vec::new();
        for i in 0..cases.len() {
            for k in 0..OUT2 {
                let got = out[OUT2 * i + k];
                let ok = match want_memory(&cases, i, k) {
                    Want::Bits(w) => got == w,
                    Want::Halves(w) => halves_match(w, got),
                    _ => unreachable!(),
                };
                if !ok {
                    let w = match want_memory(&cases, i, k) {
                        Want::Bits(w) => format!("{w:#010x}"),
                        Want::Halves(w) => format!("{w:x?}"),
                        _ => unreachable!(),
                    };
                    failures.push(format!("thread {i} word {k}: got {got:#010x}, want {w}"));
                }
            }
        }
        assert!(
            failures.is_empty(),
            "{target}: {} of {} results differ; first:\n{}",
            failures.len(),
            OUT2 * cases.len(),
            failures
                .iter()
                .take(12)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}

/// The fp8 reference against known codes: 1.0, the largest finite values,
/// a tie to even, saturation.
#[test]
fn the_fp8_reference_knows_the_formats() {
    let h = |v: f32| f16::from_f32(v).to_bits();
    assert_eq!(to_fp8(h(1.0), true), 0x38);
    assert_eq!(to_fp8(h(448.0), true), 0x7e);
    assert_eq!(to_fp8(h(1000.0), true), 0x7e);
    assert_eq!(to_fp8(h(-1000.0), true), 0xfe);
    assert_eq!(to_fp8(h(1.0625), true), 0x38); // halfway 1.0 and 1.125: even
    assert_eq!(to_fp8(h(1.0), false), 0x3c);
    assert_eq!(to_fp8(h(57344.0), false), 0x7b);
    assert_eq!(fp8_value(0x01, true), 2f64.powi(-9));
    assert!(fp8_value(0x7f, true).is_nan());
}
