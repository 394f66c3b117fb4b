//! Matrix instructions on real code objects: `tests/kernels/matrix.hip`
//! through the compiler's MFMA builtins on gfx942 and its WMMA builtins on
//! gfx1100 (wave32, and wave64 built with `-mwavefrontsize64`), each D
//! compared with the product computed on the host.
//!
//! The inputs are small multiples of powers of two, so every product and
//! sum is exact in f32: the comparisons are exact whatever order hardware
//! sums in, except the FP8 one (a relative bound).

mod common;

use common::launch::{bytes, values, Loaded};
use hip_emu::isa::{rt, Target};

fn load(target: Target, extra: &[&str]) -> Loaded {
    let extra: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
    let elf = common::code_object_with("matrix", target, &extra).expect("matrix.hip");
    Loaded::new(&elf, target)
}

/// Row-major `m x k` times `k x n` plus `c`, in f64.
fn product(m: usize, n: usize, k: usize, a: &[f64], b: &[f64], c: &[f64]) -> Vec<f64> {
    let mut d = c.to_vec();
    for i in 0..m {
        for j in 0..n {
            for kk in 0..k {
                d[i * n + j] += a[i * k + kk] * b[kk * n + j];
            }
        }
    }
    d
}

/// Values in -2..2 in steps of 1/4, varied by index.
fn small(len: usize, seed: usize) -> Vec<f64> {
    (0..len)
        .map(|i| ((i * 7 + seed * 13) % 17) as f64 * 0.25 - 2.0)
        .collect()
}

fn halves(v: &[f64]) -> Vec<u16> {
    v.iter().map(|&x| rt::f64_to_f16(x)).collect()
}

fn bf16s(v: &[f64]) -> Vec<u16> {
    v.iter().map(|&x| rt::f32_to_bf16(x as f32)).collect()
}

fn as_f32(v: &[f64]) -> Vec<f32> {
    v.iter().map(|&x| x as f32).collect()
}

/// Launches one wave of `name` with device buffers made from `inputs` and
/// zeroed outputs of the given byte sizes; returns the outputs.
fn run(l: &Loaded, name: &str, wave: u32, inputs: &[Vec<u8>], outputs: &[usize]) -> Vec<Vec<u8>> {
    let ins: Vec<u64> = inputs.iter().map(|b| l.mem.alloc(b)).collect();
    let outs: Vec<u64> = outputs
        .iter()
        .map(|&n| l.mem.alloc(&vec![0u8; n]))
        .collect();
    let args: Vec<[u8; 8]> = ins.iter().chain(&outs).map(|a| a.to_le_bytes()).collect();
    let refs: Vec<&[u8]> = args.iter().map(|a| &a[..]).collect();
    l.launch(name, 1, wave, &refs)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    outs.iter()
        .zip(outputs)
        .map(|(&a, &n)| l.mem.read(a, n))
        .collect()
}

fn assert_f32(name: &str, got: &[f32], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{name}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w as f32, "{name}: element {i}");
    }
}

#[test]
fn mfma_f16_and_bf16_on_gfx942() {
    let l = load(Target::Gfx942, &[]);
    let (a, b, c) = (small(256, 1), small(256, 2), small(256, 3));
    let want = product(16, 16, 16, &a, &b, &c);
    let d = run(
        &l,
        "mfma_16x16x16_f16",
        64,
        &[bytes(&halves(&a)), bytes(&halves(&b)), bytes(&as_f32(&c))],
        &[1024],
    );
    assert_f32("mfma_16x16x16_f16", &values::<f32>(&d[0]), &want);
    let d = run(
        &l,
        "mfma_16x16x16_bf16",
        64,
        &[bytes(&bf16s(&a)), bytes(&bf16s(&b)), bytes(&as_f32(&c))],
        &[1024],
    );
    assert_f32("mfma_16x16x16_bf16", &values::<f32>(&d[0]), &want);

    // 32x32x8, twice: D = A*B + (A*B + C).
    let (a, b, c) = (small(256, 4), small(256, 5), small(1024, 6));
    let once = product(32, 32, 8, &a, &b, &c);
    let want = product(32, 32, 8, &a, &b, &once);
    let d = run(
        &l,
        "mfma_32x32x8_f16",
        64,
        &[bytes(&halves(&a)), bytes(&halves(&b)), bytes(&as_f32(&c))],
        &[4096],
    );
    assert_f32("mfma_32x32x8_f16", &values::<f32>(&d[0]), &want);
}

#[test]
fn mfma_blocks_and_the_a_broadcast_on_gfx942() {
    let l = load(Target::Gfx942, &[]);
    // 16 blocks of 4x4x1: A and B are 16 x 4 (block, row/column).
    let (a, b, c) = (small(64, 7), small(64, 8), small(256, 9));
    let d = run(
        &l,
        "mfma_4x4x1_f32",
        64,
        &[bytes(&as_f32(&a)), bytes(&as_f32(&b)), bytes(&as_f32(&c))],
        &[1024, 1024],
    );
    let (plain, bcast) = (values::<f32>(&d[0]), values::<f32>(&d[1]));
    for blk in 0..16 {
        for i in 0..4 {
            for j in 0..4 {
                let at = blk * 16 + i * 4 + j;
                let cc = c[at];
                let own = a[blk * 4 + i] * b[blk * 4 + j] + cc;
                // CBSZ 4, ABID 3: every block takes block 3's A.
                let shared = a[3 * 4 + i] * b[blk * 4 + j] + cc;
                assert_eq!(plain[at], own as f32, "block {blk} D[{i}][{j}]");
                assert_eq!(
                    bcast[at], shared as f32,
                    "block {blk} broadcast D[{i}][{j}]"
                );
            }
        }
    }
}

#[test]
fn mfma_i8_f64_and_fp8_on_gfx942() {
    let l = load(Target::Gfx942, &[]);
    // i8: the full signed range.
    let a: Vec<i8> = (0..512)
        .map(|i| ((i * 37 + 11) % 256) as u8 as i8)
        .collect();
    let b: Vec<i8> = (0..512).map(|i| ((i * 53 + 5) % 256) as u8 as i8).collect();
    let c: Vec<i32> = (0..256).map(|i| i * 1000 - 128_000).collect();
    let f = |v: &[i8]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    let cf: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    let want = product(16, 16, 32, &f(&a), &f(&b), &cf);
    let d = run(
        &l,
        "mfma_16x16x32_i8",
        64,
        &[bytes(&a), bytes(&b), bytes(&c)],
        &[1024],
    );
    let got = values::<i32>(&d[0]);
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g as f64, w, "i8 D element {i}");
    }

    // f64, and with BLGP 1 (f64 MFMA's NEG of A).
    let (a, b, c) = (small(64, 10), small(64, 11), small(256, 12));
    let want = product(16, 16, 4, &a, &b, &c);
    let neg_a: Vec<f64> = a.iter().map(|x| -x).collect();
    let want_neg = product(16, 16, 4, &neg_a, &b, &c);
    let d = run(
        &l,
        "mfma_16x16x4_f64",
        64,
        &[bytes(&a), bytes(&b), bytes(&c)],
        &[2048, 2048],
    );
    assert_eq!(values::<f64>(&d[0]), want, "f64 D");
    assert_eq!(values::<f64>(&d[1]), want_neg, "f64 D with A negated");

    // FP8 (E4M3 FNUZ) times BF8 (E5M2 FNUZ): bytes of moderate exponent,
    // never 0x80 (NaN).
    let fp8 = |v: u8| -> f64 {
        let s = if v & 0x80 != 0 { -1.0 } else { 1.0 };
        let (e, m) = (((v >> 3) & 15) as i32, (v & 7) as f64);
        s * if e == 0 {
            m / 8.0 * 2f64.powi(-7)
        } else {
            (1.0 + m / 8.0) * 2f64.powi(e - 8)
        }
    };
    let bf8 = |v: u8| -> f64 {
        let s = if v & 0x80 != 0 { -1.0 } else { 1.0 };
        let (e, m) = (((v >> 2) & 31) as i32, (v & 3) as f64);
        s * if e == 0 {
            m / 4.0 * 2f64.powi(-15)
        } else {
            (1.0 + m / 4.0) * 2f64.powi(e - 16)
        }
    };
    // E4M3 exponents 6..9 and E5M2 exponents 14..17: values 1/4 .. 7.5.
    let a8: Vec<u8> = (0..512u32)
        .map(|i| ((i % 2) << 7) as u8 | (((6 + i % 4) << 3) as u8) | (i * 5 % 8) as u8)
        .collect();
    let b8: Vec<u8> = (0..512u32)
        .map(|i| ((i / 3 % 2) << 7) as u8 | (((14 + i % 4) << 2) as u8) | (i * 3 % 4) as u8)
        .collect();
    let c = small(256, 13);
    let af: Vec<f64> = a8.iter().map(|&v| fp8(v)).collect();
    let bf: Vec<f64> = b8.iter().map(|&v| bf8(v)).collect();
    let want = product(16, 16, 32, &af, &bf, &c);
    let d = run(
        &l,
        "mfma_16x16x32_fp8_bf8",
        64,
        &[a8, b8, bytes(&as_f32(&c))],
        &[1024],
    );
    for (i, (&g, &w)) in values::<f32>(&d[0]).iter().zip(&want).enumerate() {
        assert!(
            (g as f64 - w).abs() <= w.abs() * 1e-6 + 1e-6,
            "fp8 D element {i}: {g} against {w}"
        );
    }
}

#[test]
fn wmma_f16_bf16_on_gfx1100_wave32() {
    let l = load(Target::Gfx1100, &[]);
    let (a, b, c) = (small(256, 21), small(256, 22), small(256, 23));
    let want = product(16, 16, 16, &a, &b, &c);
    let d = run(
        &l,
        "wmma_f32_f16",
        32,
        &[bytes(&halves(&a)), bytes(&halves(&b)), bytes(&as_f32(&c))],
        &[1024],
    );
    assert_f32("wmma_f32_f16", &values::<f32>(&d[0]), &want);

    // f16 results, C and D in the low halves (OPSEL 0) and the high ones.
    let d = run(
        &l,
        "wmma_f16_f16",
        32,
        &[bytes(&halves(&a)), bytes(&halves(&b)), bytes(&halves(&c))],
        &[512, 512],
    );
    assert_eq!(values::<u16>(&d[0]), halves(&want), "f16 D, low halves");
    assert_eq!(values::<u16>(&d[1]), halves(&want), "f16 D, high halves");

    let d = run(
        &l,
        "wmma_bf16_bf16",
        32,
        &[bytes(&bf16s(&a)), bytes(&bf16s(&b)), bytes(&bf16s(&c))],
        &[512],
    );
    assert_eq!(values::<u16>(&d[0]), bf16s(&want), "bf16 D");
}

#[test]
fn wmma_integers_on_gfx1100() {
    let l = load(Target::Gfx1100, &[]);
    // A signed, B unsigned.
    let a: Vec<u8> = (0..256u32).map(|i| (i * 37 + 11) as u8).collect();
    let b: Vec<u8> = (0..256u32).map(|i| (i * 53 + 5) as u8).collect();
    let af: Vec<f64> = a.iter().map(|&x| x as i8 as f64).collect();
    let bf: Vec<f64> = b.iter().map(|&x| x as f64).collect();
    // C puts the largest product's element past i32::MAX, and the
    // smallest's past i32::MIN.
    let p = product(16, 16, 16, &af, &bf, &[0.0; 256]);
    let arg = |better: fn(f64, f64) -> bool| {
        (0..256).fold(0, |at, i| if better(p[i], p[at]) { i } else { at })
    };
    let (hi, lo) = (arg(|x, y| x > y), arg(|x, y| x < y));
    assert!(p[hi] > 0.0 && p[lo] < 0.0, "{} {}", p[hi], p[lo]);
    let c: Vec<i32> = (0..256)
        .map(|i| match i {
            _ if i == hi => i32::MAX - (p[hi] / 2.0) as i32,
            _ if i == lo => i32::MIN - (p[lo] / 2.0) as i32,
            _ => i as i32 * 999 - 100_000,
        })
        .collect();
    let cf: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    let want = product(16, 16, 16, &af, &bf, &cf);
    assert!(want[hi] > i32::MAX as f64 && want[lo] < i32::MIN as f64);
    let d = run(&l, "wmma_i32_iu8", 32, &[a, b, bytes(&c)], &[1024, 1024]);
    let (wrapped, clamped) = (values::<i32>(&d[0]), values::<i32>(&d[1]));
    for i in 0..256 {
        let w = want[i] as i64;
        assert_eq!(wrapped[i], w as i32, "iu8 D element {i}");
        let sat = w.clamp(i32::MIN as i64, i32::MAX as i64) as i32;
        assert_eq!(clamped[i], sat, "iu8 clamped D element {i}");
    }

    // rocBLAS's encoding: neg_lo:[1,1,1] (both signed; NEG[2] ignored).
    let a: Vec<u8> = (0..256u32).map(|i| (i * 29 + 7) as u8).collect();
    let b: Vec<u8> = (0..256u32).map(|i| (i * 41 + 3) as u8).collect();
    let s8 = |v: &[u8]| -> Vec<f64> { v.iter().map(|&x| x as i8 as f64).collect() };
    let c: Vec<i32> = (0..256).map(|i| i * 7 - 900).collect();
    let cf: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    let want = product(16, 16, 16, &s8(&a), &s8(&b), &cf);
    let d = run(
        &l,
        "wmma_i32_iu8_neg_lo_all",
        32,
        &[a, b, bytes(&c)],
        &[1024],
    );
    for (i, (&g, &w)) in values::<i32>(&d[0]).iter().zip(&want).enumerate() {
        assert_eq!(g as f64, w, "iu8 neg_lo:[1,1,1] D element {i}");
    }

    // 4-bit, both signed.
    let a: Vec<u8> = (0..256u32).map(|i| (i * 7 + 3) as u8 & 15).collect();
    let b: Vec<u8> = (0..256u32).map(|i| (i * 11 + 1) as u8 & 15).collect();
    let s4 = |v: &[u8]| -> Vec<f64> { v.iter().map(|&x| ((x << 4) as i8 >> 4) as f64).collect() };
    let c: Vec<i32> = (0..256).map(|i| i - 128).collect();
    let cf: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    let want = product(16, 16, 16, &s4(&a), &s4(&b), &cf);
    let d = run(&l, "wmma_i32_iu4", 32, &[a, b, bytes(&c)], &[1024]);
    for (i, (&g, &w)) in values::<i32>(&d[0]).iter().zip(&want).enumerate() {
        assert_eq!(g as f64, w, "iu4 D element {i}");
    }
}

#[test]
fn wmma_at_wave64_on_gfx1100() {
    let l = load(Target::Gfx1100, &["-mwavefrontsize64", "-DWAVE64"]);
    let (a, b, c) = (small(256, 31), small(256, 32), small(256, 33));
    let want = product(16, 16, 16, &a, &b, &c);
    let d = run(
        &l,
        "wmma_f32_f16",
        64,
        &[bytes(&halves(&a)), bytes(&halves(&b)), bytes(&as_f32(&c))],
        &[1024],
    );
    assert_f32("wmma_f32_f16 at wave64", &values::<f32>(&d[0]), &want);
}

#[test]
fn wmma_refuses_lane_groups_that_differ() {
    let l = load(Target::Gfx1100, &[]);
    let a = halves(&small(512, 41));
    let b = halves(&small(256, 42));
    let ad = l.mem.alloc(&bytes(&a));
    let bd = l.mem.alloc(&bytes(&b));
    let dd = l.mem.alloc(&[0u8; 1024]);
    let err = l
        .launch(
            "wmma_unreplicated",
            1,
            32,
            &[&ad.to_le_bytes(), &bd.to_le_bytes(), &dd.to_le_bytes()],
        )
        .expect_err("A differs between the lane groups");
    let text = err.to_string();
    assert!(
        text.contains("16-lane group") && text.contains("v_wmma_f32_16x16x16_f16"),
        "{text}"
    );
}
