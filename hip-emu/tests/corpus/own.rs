//! The own corpus's kernels (`cuda-compat/tests/nvrtc_corpus/own`), one
//! spec each: inputs, launch, and the host reference with its tolerance.
//!
//! Sizes leave partial blocks and waves (n not a multiple of the block,
//! rows not a multiple of the warps per block), and grid-stride kernels
//! get fewer threads than elements. Where the kernel's result depends on
//! the order of a sum (atomics, shuffles, trees), the inputs are small
//! multiples of a power of two, so every partial sum is exact in the
//! format and any order gives the exact result: those checks are exact.

use super::check::{a, bf16_to_f32, e4m3_to_f32, f16_to_f32, to_bf16, to_e4m3, to_f16, Ctx, Rng};
use super::Spec;
use hip_emu::isa::LaunchError;

type R = Result<(), LaunchError>;

/// Every kernel of the manifest, by file then symbol.
pub(crate) const SPECS: &[Spec] = &[
    spec("activations.cu", "_Z12relu_inplacePfm", relu_inplace),
    spec(
        "activations.cu",
        "_Z6swigluI6__halfEvPKT_S3_PS1_m",
        swiglu_half,
    ),
    spec("activations.cu", "_Z6swigluIfEvPKT_S2_PS0_m", swiglu_f32),
    spec("activations.cu", "gelu_erf", gelu_erf),
    spec("activations.cu", "gelu_tanh", gelu_tanh),
    spec("activations.cu", "silu_fast", silu_fast),
    spec("activations.cu", "softplus", softplus),
    spec("atomics.cu", "atomic_absmax_f32", atomic_absmax_f32),
    spec("atomics.cu", "atomic_bucket_insert", atomic_bucket_insert),
    spec("atomics.cu", "atomic_label_stats", atomic_label_stats),
    spec("atomics.cu", "atomic_sum_f32", atomic_sum_f32),
    spec("atomics.cu", "atomic_sum_sq_f64", atomic_sum_sq_f64),
    spec("bfloat16.cu", "bf162_scale", bf162_scale),
    spec(
        "bfloat16.cu",
        "bf16_embedding_backward",
        bf16_embedding_backward,
    ),
    spec("bfloat16.cu", "bf16_fma_residual", bf16_fma_residual),
    spec("bfloat16.cu", "bf16_to_f32", bf16_to_f32_kernel),
    spec("bfloat16.cu", "f32_to_bf16", f32_to_bf16),
    spec(
        "block_reduce.cu",
        "_Z9block_maxIdEvPKT_PS0_jS0_",
        block_max_f64,
    ),
    spec(
        "block_reduce.cu",
        "_Z9block_maxIfEvPKT_PS0_jS0_",
        block_max_f32,
    ),
    spec("block_reduce.cu", "argmax_rows", argmax_rows),
    spec("block_reduce.cu", "block_sum_dynamic", block_sum_dynamic),
    spec("block_reduce.cu", "block_sum_static", block_sum_static),
    spec(
        "double_constant.cu",
        "_ZN5stats12welford_rowsEPKfPfS2_ii",
        welford_rows,
    ),
    spec("double_constant.cu", "gaussian_pdf_f64", gaussian_pdf_f64),
    spec("double_constant.cu", "poly_eval_const", poly_eval_const),
    spec("double_constant.cu", "row_norm_f64", row_norm_f64),
    spec("half_precision.cu", "half2_dot", half2_dot),
    spec("half_precision.cu", "half2_scale_bias", half2_scale_bias),
    spec("half_precision.cu", "half_residual_add", half_residual_add),
    spec("half_precision.cu", "half_segment_sum", half_segment_sum),
    spec("half_precision.cu", "haxpy", haxpy),
    spec(
        "matmul.cu",
        "_Z11sgemm_tiledILi32EEvPKfS1_Pfiiiff",
        sgemm_tiled32,
    ),
    spec(
        "matmul.cu",
        "_Z11sgemm_tiledILi8EEvPKfS1_Pfiiiff",
        sgemm_tiled8,
    ),
    spec("matmul.cu", "_ZN4gemm4gemvEPKfS1_Pfii", gemv),
    spec("matmul.cu", "sgemm_tiled16", sgemm_tiled16),
    spec("quantize.cu", "dequantize_fp8_e4m3", dequantize_fp8_e4m3),
    spec("quantize.cu", "dp4a_edges", dp4a_edges),
    spec("quantize.cu", "int8_gemv_dp4a", int8_gemv_dp4a),
    spec("quantize.cu", "quantize_fp8_e4m3", quantize_fp8_e4m3),
    spec("rotary_gather.cu", "embedding_gather", embedding_gather),
    spec("rotary_gather.cu", "index_add_rows", index_add_rows),
    spec("rotary_gather.cu", "rope_interleaved", rope_interleaved),
    spec("rotary_gather.cu", "rope_neox_table", rope_neox_table),
    spec("softmax_norm.cu", "layernorm", layernorm),
    spec("softmax_norm.cu", "log_softmax_block", log_softmax_block),
    spec("softmax_norm.cu", "rmsnorm", rmsnorm),
    spec("softmax_norm.cu", "softmax_rows", softmax_rows),
    spec("transpose_hist_scan.cu", "blelloch_scan", blelloch_scan),
    spec(
        "transpose_hist_scan.cu",
        "block_exclusive_scan",
        block_exclusive_scan,
    ),
    spec("transpose_hist_scan.cu", "histogram256", histogram256),
    spec(
        "transpose_hist_scan.cu",
        "transpose_padded",
        transpose_padded,
    ),
    spec(
        "warp_primitives.cu",
        "warp_broadcast_scale",
        warp_broadcast_scale,
    ),
    spec("warp_primitives.cu", "warp_compact", warp_compact),
    spec(
        "warp_primitives.cu",
        "warp_inclusive_scan",
        warp_inclusive_scan,
    ),
    spec("warp_primitives.cu", "warp_row_sum", warp_row_sum),
    spec("warp_primitives.cu", "warp_sum_down_f64", warp_sum_down_f64),
    spec("warp_primitives.cu", "warp_vote_stats", warp_vote_stats),
];

const fn spec(file: &'static str, kernel: &'static str, run: fn(&mut Ctx<'_>) -> R) -> Spec {
    Spec {
        program: file,
        kernel,
        run,
    }
}

/// Elements of the elementwise kernels: not a multiple of any block.
const N: usize = 1000;
/// Blocks and threads of the grid-stride kernels: 384 threads for 1000
/// elements, so each thread takes two or three, and the last block's
/// waves are partly past the end on the last pass.
const STRIDE_GRID: u32 = 3;
const BLOCK: u32 = 128;

/// Blocks of `block` threads covering `n` elements.
fn blocks(n: usize, block: u32) -> u32 {
    n.div_ceil(block as usize) as u32
}

/// f32 elementwise inputs: random values in [lo, hi) with the special
/// values a kernel must keep (zeros, the range's ends) at the front.
fn inputs(rng: &mut Rng, lo: f32, hi: f32) -> Vec<f32> {
    let mut x = rng.f32s(N, lo, hi);
    x[..4].copy_from_slice(&[0.0, lo, hi, 1.0]);
    x
}

// ---- activations.cu ----------------------------------------------------

/// fmaxf(x, 0): exact, NaN included (CUDA's fmaxf returns the other
/// operand of a NaN).
fn relu_inplace(cx: &mut Ctx<'_>) -> R {
    let mut x = inputs(&mut Rng::new(1), -4.0, 4.0);
    x[5] = f32::NAN;
    x[6] = f32::NEG_INFINITY;
    x[7] = f32::INFINITY;
    let xd = cx.buf(&x);
    cx.launch1(STRIDE_GRID, BLOCK, &[a(xd), a(N as u64)])?;
    for (i, (g, v)) in cx.get::<f32>(xd, N).into_iter().zip(&x).enumerate() {
        let want = if v.is_nan() { 0.0 } else { v.max(0.0) };
        cx.f32_exact("x", i, g, want);
    }
    Ok(())
}

/// silu(g) * up computed in f32: expf (OCML, within 1 ulp), 1 + e, the
/// division and the product (correctly rounded) give at most 1 + 0.5 * 3
/// ulp of relative error, each carried into the result with a factor at
/// most 1; 4 ulp of f32 (rel 2^-21) bounds it.
fn swiglu_f32(cx: &mut Ctx<'_>) -> R {
    let mut rng = Rng::new(2);
    let g = inputs(&mut rng, -8.0, 8.0);
    let up = inputs(&mut rng, -3.0, 3.0);
    let (gd, ud, od) = (cx.buf(&g), cx.buf(&up), cx.buf(&vec![0f32; N]));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(gd), a(ud), a(od), a(N as u64)])?;
    for (i, got) in cx.get::<f32>(od, N).into_iter().enumerate() {
        let (gv, uv) = (f64::from(g[i]), f64::from(up[i]));
        let want = gv / (1.0 + (-gv).exp()) * uv;
        cx.close("out", i, f64::from(got), want, 1e-37, 2f64.powi(-21));
    }
    Ok(())
}

/// swiglu on __half: the f32 computation (within 4 f32 ulp, above)
/// rounded to f16 once: the exact value's f16 neighbours, 1 f16 ulp.
fn swiglu_half(cx: &mut Ctx<'_>) -> R {
    let mut rng = Rng::new(3);
    let g: Vec<u16> = inputs(&mut rng, -8.0, 8.0)
        .iter()
        .map(|&v| to_f16(f64::from(v)))
        .collect();
    let up: Vec<u16> = inputs(&mut rng, -3.0, 3.0)
        .iter()
        .map(|&v| to_f16(f64::from(v)))
        .collect();
    let (gd, ud, od) = (cx.buf(&g), cx.buf(&up), cx.buf(&vec![0u16; N]));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(gd), a(ud), a(od), a(N as u64)])?;
    for (i, got) in cx.get::<u16>(od, N).into_iter().enumerate() {
        let gv = f64::from(f16_to_f32(g[i]));
        let want = gv / (1.0 + (-gv).exp()) * f64::from(f16_to_f32(up[i]));
        cx.f16_ulps("out", i, got, want, 1.0);
    }
    Ok(())
}

/// Series of erf, exact to ~1e-15 relative for |x| <= 4 (the terms peak
/// near e^(x^2) / sqrt(pi x^2), ~1e6 at 4, losing 6 of f64's 16 digits).
fn erf(x: f64) -> f64 {
    assert!(x.abs() <= 4.0);
    let (mut term, mut sum, x2) = (x, x, x * x);
    for n in 1..200 {
        term *= -x2 / f64::from(n);
        let add = term / f64::from(2 * n + 1);
        sum += add;
        if add.abs() < 1e-17 * sum.abs() {
            break;
        }
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

/// 0.5 v (1 + erff(v / sqrt 2)), |v| <= 5: OCML's erff is within 2 ulp
/// of values below 1 (2^-22 absolute), carried with the factor 0.5 |v|
/// <= 2.5; the three roundings of the products and sum add 2 ulp of the
/// result. abs 1e-6 + rel 2^-22.
fn gelu_erf(cx: &mut Ctx<'_>) -> R {
    let x = inputs(&mut Rng::new(4), -5.0, 5.0);
    let (xd, yd) = (cx.buf(&x), cx.buf(&vec![0f32; N]));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(xd), a(yd), a(N as u64)])?;
    for (i, got) in cx.get::<f32>(yd, N).into_iter().enumerate() {
        let v = f64::from(x[i]);
        let want = 0.5 * v * (1.0 + erf(v * std::f64::consts::FRAC_1_SQRT_2));
        cx.close("y", i, f64::from(got), want, 1e-6, 2f64.powi(-22));
    }
    Ok(())
}

/// 0.5 v (1 + tanhf(k (v + 0.044715 v^3))), |v| <= 5: OCML's tanhf is
/// within 2 ulp (2^-22 absolute below 1), carried with 0.5 |v| <= 2.5;
/// the argument's roundings (a few ulp of values up to 8.5) move tanh by
/// at most that times tanh' <= 1. abs 2e-6 + rel 2^-21.
fn gelu_tanh(cx: &mut Ctx<'_>) -> R {
    let x = inputs(&mut Rng::new(5), -5.0, 5.0);
    let (xd, yd) = (cx.buf(&x), cx.buf(&vec![0f32; N]));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(xd), a(yd), a(N as u64)])?;
    // sqrt(2 / pi) as the kernel's float literal rounds it.
    let k = f64::from(0.797_884_6_f32);
    let c = f64::from(0.044715f32);
    for (i, got) in cx.get::<f32>(yd, N).into_iter().enumerate() {
        let v = f64::from(x[i]);
        let want = 0.5 * v * (1.0 + (k * (c * v * v * v + v)).tanh());
        cx.close("y", i, f64::from(got), want, 2e-6, 2f64.powi(-21));
    }
    Ok(())
}

/// v / (1 + __expf(-v)), |v| <= 8: __expf is v_exp_f32 (2^x, 1 ulp) of
/// v * log2(e) rounded, whose relative error 2^-24 |v log2 e| <= 2^-20
/// passes into e^-v; __fdividef is v_rcp_f32 (1 ulp) and a product.
/// rel 2^-19 (about 6e-6 of the result's own rounding error budget).
fn silu_fast(cx: &mut Ctx<'_>) -> R {
    let x = inputs(&mut Rng::new(6), -8.0, 8.0);
    let (xd, yd) = (cx.buf(&x), cx.buf(&vec![0f32; N]));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(xd), a(yd), a(N as u64)])?;
    for (i, got) in cx.get::<f32>(yd, N).into_iter().enumerate() {
        let v = f64::from(x[i]);
        let want = v / (1.0 + (-v).exp());
        cx.close("y", i, f64::from(got), want, 1e-37, 2f64.powi(-19));
    }
    Ok(())
}

/// bx > threshold ? x : log1pf(expf(bx)) / beta, with bx = beta * x
/// rounded as the kernel rounds it (so the branch is the kernel's):
/// expf and log1pf within 2 ulp each (log1p's condition number e/((1+e)
/// log1p e) <= 1 carries expf's), the division 0.5: rel 2^-20; the
/// linear branch is exact.
fn softplus(cx: &mut Ctx<'_>) -> R {
    let x = inputs(&mut Rng::new(7), -10.0, 20.0);
    let (beta, threshold) = (1.5f32, 20.0f32);
    let (xd, yd) = (cx.buf(&x), cx.buf(&vec![0f32; N]));
    cx.launch1(
        STRIDE_GRID,
        BLOCK,
        &[a(xd), a(yd), a(beta), a(threshold), a(N as u64)],
    )?;
    for (i, got) in cx.get::<f32>(yd, N).into_iter().enumerate() {
        let bx = beta * x[i];
        if bx > threshold {
            cx.f32_exact("y", i, got, x[i]);
        } else {
            let want = f64::from(bx).exp().ln_1p() / f64::from(beta);
            cx.close("y", i, f64::from(got), want, 1e-37, 2f64.powi(-20));
        }
    }
    Ok(())
}

// ---- atomics.cu ----------------------------------------------------------

/// A float sum by warp shuffles and one atomicAdd per warp: the inputs are
/// multiples of 1/8 below 100, so every partial sum is exact: exact.
fn atomic_sum_f32(cx: &mut Ctx<'_>) -> R {
    let n = 5000usize;
    let x = Rng::new(8).dyadics(n, -100, 100, 8);
    let (xd, td) = (cx.buf(&x), cx.buf(&[0f32]));
    cx.launch1(4, 256, &[a(xd), a(td), a(n as u32)])?;
    let want: f64 = x.iter().map(|&v| f64::from(v)).sum();
    cx.f32_exact("total", 0, cx.get::<f32>(td, 1)[0], want as f32);
    Ok(())
}

/// Sum of squares by double atomicAdd: squares of multiples of 1/16 below
/// 16 are multiples of 2^-8 below 256, exact in any order: exact.
fn atomic_sum_sq_f64(cx: &mut Ctx<'_>) -> R {
    let n = 3000usize;
    let x: Vec<f64> = Rng::new(9)
        .dyadics(n, -16, 16, 16)
        .into_iter()
        .map(f64::from)
        .collect();
    let (xd, td) = (cx.buf(&x), cx.buf(&[0f64]));
    cx.launch1(blocks(n, 256), 256, &[a(xd), a(td), a(n as u32)])?;
    let want: f64 = x.iter().map(|v| v * v).sum();
    cx.f64_exact("total", 0, cx.get::<f64>(td, 1)[0], want);
    Ok(())
}

/// Label counts and the largest label: integers, exact.
fn atomic_label_stats(cx: &mut Ctx<'_>) -> R {
    let (n, labels) = (1500usize, 37);
    let mut rng = Rng::new(10);
    let l: Vec<i32> = (0..n).map(|_| rng.int(0, labels - 1) as i32).collect();
    let (ld, cd, md) = (cx.buf(&l), cx.buf(&[0i32; 37]), cx.buf(&[-1i32]));
    cx.launch1(blocks(n, 256), 256, &[a(ld), a(cd), a(md), a(n as i32)])?;
    let counts = cx.get::<i32>(cd, 37);
    for (k, &got) in counts.iter().enumerate() {
        let want = l.iter().filter(|&&v| v == k as i32).count() as i32;
        cx.exact("counts", k, got, want);
    }
    cx.exact(
        "max_label",
        0,
        cx.get::<i32>(md, 1)[0],
        *l.iter().max().unwrap(),
    );
    Ok(())
}

/// max |x| through an atomicCAS loop: a comparison, exact.
fn atomic_absmax_f32(cx: &mut Ctx<'_>) -> R {
    let n = 2000usize;
    let x = Rng::new(11).f32s(n, -50.0, 50.0);
    let (xd, md) = (cx.buf(&x), cx.buf(&[0f32]));
    cx.launch1(blocks(n, 256), 256, &[a(xd), a(md), a(n as u32)])?;
    let want = x.iter().fold(0f32, |m, v| m.max(v.abs()));
    cx.f32_exact("amax", 0, cx.get::<f32>(md, 1)[0], want);
    Ok(())
}

/// Bucket chains built by atomicExch: the order within a chain is the
/// order of the exchanges, which the hardware decides; what is defined is
/// that each bucket's chain holds exactly the keys hashing there, each
/// once, ending in -1. Checked per bucket and per key.
fn atomic_bucket_insert(cx: &mut Ctx<'_>) -> R {
    let (n, buckets) = (700usize, 53u32);
    let mut rng = Rng::new(12);
    let keys: Vec<u32> = (0..n).map(|_| rng.u32()).collect();
    let (kd, hd, nd) = (
        cx.buf(&keys),
        cx.buf(&vec![-1i32; buckets as usize]),
        cx.buf(&vec![-2i32; n]),
    );
    cx.launch1(
        blocks(n, 128),
        128,
        &[a(kd), a(hd), a(nd), a(buckets), a(n as i32)],
    )?;
    let (heads, next) = (cx.get::<i32>(hd, buckets as usize), cx.get::<i32>(nd, n));
    let mut seen = vec![false; n];
    for (b, &head) in heads.iter().enumerate() {
        let mut chain = Vec::new();
        let mut at = head;
        while at >= 0 && (at as usize) < n && chain.len() <= n {
            chain.push(at as usize);
            at = next[at as usize];
        }
        cx.exact("chain end", b, at, -1);
        chain.sort_unstable();
        let want: Vec<usize> = (0..n)
            .filter(|&i| keys[i].wrapping_mul(2_654_435_761) % buckets == b as u32)
            .collect();
        for &i in &chain {
            seen[i] = true;
        }
        cx.exact("chain", b, chain, want);
    }
    for (i, s) in seen.into_iter().enumerate() {
        cx.exact("key chained", i, s, true);
    }
    Ok(())
}

// ---- bfloat16.cu ---------------------------------------------------------

/// __float2bfloat16: round to nearest even, bit for bit (NaN as any NaN).
fn f32_to_bf16(cx: &mut Ctx<'_>) -> R {
    let mut rng = Rng::new(13);
    let mut x: Vec<f32> = (0..N).map(|_| f32::from_bits(rng.u32())).collect();
    // Ties (even and odd), the overflow edge, subnormals, infinities.
    let special = [
        f32::from_bits(0x3f80_8000),
        f32::from_bits(0x3f81_8000),
        f32::from_bits(0x7f7f_ffff),
        f32::from_bits(0x0000_8000),
        f32::from_bits(0x8001_8000),
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        1.0,
        f32::NAN,
    ];
    x[..special.len()].copy_from_slice(&special);
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![0u16; N]));
    cx.launch1(blocks(N, BLOCK), BLOCK, &[a(xd), a(od), a(N as u64)])?;
    for (i, got) in cx.get::<u16>(od, N).into_iter().enumerate() {
        if x[i].is_nan() {
            cx.exact("out is NaN", i, bf16_to_f32(got).is_nan(), true);
        } else {
            cx.exact("out", i, got, to_bf16(f64::from(x[i])));
        }
    }
    Ok(())
}

/// __bfloat162float: a shift, exact for every non-NaN code.
fn bf16_to_f32_kernel(cx: &mut Ctx<'_>) -> R {
    let mut rng = Rng::new(14);
    let x: Vec<u16> = (0..N)
        .map(|_| (rng.u32() >> 16) as u16)
        .map(|b| if bf16_to_f32(b).is_nan() { 0x3f80 } else { b })
        .collect();
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![0f32; N]));
    cx.launch1(blocks(N, BLOCK), BLOCK, &[a(xd), a(od), a(N as u64)])?;
    for (i, got) in cx.get::<f32>(od, N).into_iter().enumerate() {
        cx.f32_exact("out", i, got, bf16_to_f32(x[i]));
    }
    Ok(())
}

/// bf16 values of 8 significant bits in [1/2, 4) and their negatives.
fn bf16s(rng: &mut Rng, n: usize) -> Vec<u16> {
    (0..n)
        .map(|_| {
            let m = rng.int(128, 256) as f64 * 2f64.powi(rng.int(-8, -5) as i32);
            to_bf16(if rng.u32() & 1 == 1 { -m } else { m })
        })
        .collect()
}

/// __hfma(x, w, b) + __hmul(res, 0.5): with 8-bit operands in [1/2, 4)
/// the fma's exact value has at most 24 significant bits, so its one
/// rounding to bf16 (CUDA's) is the result whatever f32 step comes
/// before; halving is exact; the sum rounds once. Exact.
fn bf16_fma_residual(cx: &mut Ctx<'_>) -> R {
    let mut rng = Rng::new(15);
    let [x, w, b, res] = [(); 4].map(|_| bf16s(&mut rng, N));
    let bufs = [&x, &w, &b, &res].map(|v| cx.buf(v));
    let od = cx.buf(&vec![0u16; N]);
    let mut args: Vec<Vec<u8>> = bufs.iter().map(|&d| a(d)).collect();
    args.extend([a(od), a(N as i32)]);
    cx.launch1(blocks(N, BLOCK), BLOCK, &args)?;
    let f = |v: u16| f64::from(bf16_to_f32(v));
    for (i, got) in cx.get::<u16>(od, N).into_iter().enumerate() {
        let y = f(to_bf16(f(x[i]).mul_add(f(w[i]), f(b[i]))));
        let half = f(to_bf16(f(res[i]) * 0.5));
        cx.exact("out", i, got, to_bf16(y + half));
    }
    Ok(())
}

/// Pairs scaled in f32 and rounded to bf16: the f32 product rounded as
/// the kernel rounds it, then to bf16. Exact.
fn bf162_scale(cx: &mut Ctx<'_>) -> R {
    let n2 = 700usize;
    let mut rng = Rng::new(16);
    let x: Vec<u16> = rng
        .f32s(2 * n2, -100.0, 100.0)
        .iter()
        .map(|&v| to_bf16(f64::from(v)))
        .collect();
    let scale = 0.3f32;
    let xd = cx.buf(&x);
    cx.launch1(blocks(n2, BLOCK), BLOCK, &[a(xd), a(scale), a(n2 as u32)])?;
    for (i, got) in cx.get::<u16>(xd, 2 * n2).into_iter().enumerate() {
        let want = to_bf16(f64::from(bf16_to_f32(x[i]) * scale));
        cx.exact("x", i, got, want);
    }
    Ok(())
}

/// atomicAdd on bf16 rows: integer gradients in [-4, 4] and at most a few
/// dozen hits per row keep every partial sum an integer below 2^8, exact
/// in bf16 in any order. Exact.
fn bf16_embedding_backward(cx: &mut Ctx<'_>) -> R {
    let (tokens, dim, vocab) = (33usize, 70usize, 10usize);
    let mut rng = Rng::new(17);
    let grad = rng.dyadics(tokens * dim, -4, 5, 1);
    let ids: Vec<i32> = (0..tokens)
        .map(|_| rng.int(0, vocab as i64) as i32)
        .collect();
    let table0: Vec<u16> = rng
        .dyadics(vocab * dim, -8, 8, 1)
        .iter()
        .map(|&v| to_bf16(f64::from(v)))
        .collect();
    let (gd, idd, td) = (cx.buf(&grad), cx.buf(&ids), cx.buf(&table0));
    // 64 threads for 70 columns: two passes, the second partial.
    cx.launch1(
        tokens as u32,
        64,
        &[a(gd), a(idd), a(td), a(tokens as i32), a(dim as i32)],
    )?;
    let mut want: Vec<f64> = table0.iter().map(|&v| f64::from(bf16_to_f32(v))).collect();
    for t in 0..tokens {
        for d in 0..dim {
            want[ids[t] as usize * dim + d] += f64::from(grad[t * dim + d]);
        }
    }
    for (i, got) in cx.get::<u16>(td, vocab * dim).into_iter().enumerate() {
        cx.exact("table", i, got, to_bf16(want[i]));
    }
    Ok(())
}

// ---- block_reduce.cu -----------------------------------------------------

/// Per-block sums of a grid-stride loop (block 256, as the static buffer
/// requires): multiples of 1/8 below 100, exact in any order.
fn block_sum_static(cx: &mut Ctx<'_>) -> R {
    let (n, grid, block) = (3000usize, 5u32, 256usize);
    let x = Rng::new(18).dyadics(n, -100, 100, 8);
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![0f32; grid as usize]));
    cx.launch1(grid, block as u32, &[a(xd), a(od), a(n as u32)])?;
    let stride = block * grid as usize;
    for (b, got) in cx.get::<f32>(od, grid as usize).into_iter().enumerate() {
        let want: f64 = (0..n)
            .filter(|i| (i % stride) / block == b)
            .map(|i| f64::from(x[i]))
            .sum();
        cx.f32_exact("out", b, got, want as f32);
    }
    Ok(())
}

/// Per-block sums with dynamic LDS (blockDim floats), the last 32 by
/// shuffles: exact inputs as above.
fn block_sum_dynamic(cx: &mut Ctx<'_>) -> R {
    let (n, block) = (1000usize, 128u32);
    let grid = blocks(n, block);
    let x = Rng::new(19).dyadics(n, -100, 100, 8);
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![0f32; grid as usize]));
    cx.launch(
        [grid, 1, 1],
        [block, 1, 1],
        4 * block,
        &[a(xd), a(od), a(n as u64)],
    )?;
    for (b, got) in cx.get::<f32>(od, grid as usize).into_iter().enumerate() {
        let want: f64 = x
            .iter()
            .skip(b * block as usize)
            .take(block as usize)
            .map(|&v| f64::from(v))
            .sum();
        cx.f32_exact("out", b, got, want as f32);
    }
    Ok(())
}

/// Per-block maxima of a grid-stride loop through typed dynamic LDS:
/// comparisons, exact.
fn block_max_f32(cx: &mut Ctx<'_>) -> R {
    let (n, grid, block) = (2000usize, 6u32, 128usize);
    let x = Rng::new(20).f32s(n, -1e6, 1e6);
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![0f32; grid as usize]));
    let args = [a(xd), a(od), a(n as u32), a(f32::NEG_INFINITY)];
    cx.launch([grid, 1, 1], [block as u32, 1, 1], 4 * block as u32, &args)?;
    let stride = block * grid as usize;
    for (b, got) in cx.get::<f32>(od, grid as usize).into_iter().enumerate() {
        let want = (0..n)
            .filter(|i| (i % stride) / block == b)
            .fold(f32::NEG_INFINITY, |m, i| m.max(x[i]));
        cx.f32_exact("out", b, got, want);
    }
    Ok(())
}

/// The f64 instantiation: exact.
fn block_max_f64(cx: &mut Ctx<'_>) -> R {
    let (n, grid, block) = (2000usize, 6u32, 128usize);
    let mut rng = Rng::new(21);
    // 53-bit values in [-4096, 4096): maxima that f32 could not tell apart.
    let x: Vec<f64> = (0..n)
        .map(|_| (rng.u64() >> 11) as f64 * 2f64.powi(-40) - 4096.0)
        .collect();
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![0f64; grid as usize]));
    let args = [a(xd), a(od), a(n as u32), a(f64::NEG_INFINITY)];
    cx.launch([grid, 1, 1], [block as u32, 1, 1], 8 * block as u32, &args)?;
    let stride = block * grid as usize;
    for (b, got) in cx.get::<f64>(od, grid as usize).into_iter().enumerate() {
        let want = (0..n)
            .filter(|i| (i % stride) / block == b)
            .fold(f64::NEG_INFINITY, |m, i| m.max(x[i]));
        cx.f64_exact("out", b, got, want);
    }
    Ok(())
}

/// Row argmax, the first index among equal maxima (the kernel breaks ties
/// toward the smaller index): small integers, so rows have ties. Exact.
fn argmax_rows(cx: &mut Ctx<'_>) -> R {
    let (rows, cols) = (7usize, 1000usize);
    let x = Rng::new(22).dyadics(rows * cols, -50, 50, 1);
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![-1i32; rows]));
    cx.launch1(rows as u32, 256, &[a(xd), a(od), a(cols as i32)])?;
    for (r, got) in cx.get::<i32>(od, rows).into_iter().enumerate() {
        let row = &x[r * cols..][..cols];
        let max = row.iter().fold(f32::NEG_INFINITY, |m, &v| m.max(v));
        let want = row.iter().position(|&v| v == max).unwrap() as i32;
        cx.exact("idx", r, got, want);
    }
    Ok(())
}

// ---- double_constant.cu --------------------------------------------------

/// The Gaussian density in f64 with mean and deviation in __constant__
/// memory: the reference computes the kernel's expression in the same
/// order, so only exp differs (OCML's and the host's, each within 1 ulp;
/// its argument is the same double): rel 2^-50 (4 ulp).
fn gaussian_pdf_f64(cx: &mut Ctx<'_>) -> R {
    let (mu, sigma) = (0.5f64, 1.3f64);
    cx.l.write_global("c_gauss", &crate::common::launch::bytes(&[mu, sigma]));
    let x: Vec<f64> = Rng::new(23)
        .f32s(N, -6.0, 7.0)
        .into_iter()
        .map(|v| f64::from(v) + 1e-9)
        .collect();
    let (xd, yd) = (cx.buf(&x), cx.buf(&vec![0f64; N]));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(xd), a(yd), a(N as u64)])?;
    let norm = 1.0 / (sigma * (2.0 * std::f64::consts::PI).sqrt());
    for (i, got) in cx.get::<f64>(yd, N).into_iter().enumerate() {
        let z = (x[i] - mu) / sigma;
        cx.close(
            "y",
            i,
            got,
            norm * (-0.5 * z * z).exp(),
            0.0,
            2f64.powi(-50),
        );
    }
    Ok(())
}

/// Row norms in f64, one warp per row (4 per block of 128, 13 rows: the
/// last block's last warps exit): multiples of 1/16 have exact squares
/// and sums, and sqrt is correctly rounded (IEEE): exact.
fn row_norm_f64(cx: &mut Ctx<'_>) -> R {
    let (rows, cols) = (13usize, 100usize);
    let x: Vec<f64> = Rng::new(24)
        .dyadics(rows * cols, -8, 8, 16)
        .into_iter()
        .map(f64::from)
        .collect();
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![0f64; rows]));
    cx.launch1(
        blocks(rows * 32, 128),
        128,
        &[a(xd), a(od), a(rows as i32), a(cols as i32)],
    )?;
    for (r, got) in cx.get::<f64>(od, rows).into_iter().enumerate() {
        let ss: f64 = x[r * cols..][..cols].iter().map(|v| v * v).sum();
        cx.f64_exact("norms", r, got, ss.sqrt());
    }
    Ok(())
}

/// Horner with fmaf and coefficients from __constant__ memory: the same
/// fused operations on the host, exact.
fn poly_eval_const(cx: &mut Ctx<'_>) -> R {
    let c: Vec<f32> = Rng::new(25).f32s(8, -2.0, 2.0);
    cx.l.write_global("c_poly", &crate::common::launch::bytes(&c));
    let x = inputs(&mut Rng::new(26), -2.0, 2.0);
    let (xd, yd) = (cx.buf(&x), cx.buf(&vec![0f32; N]));
    cx.launch1(blocks(N, BLOCK), BLOCK, &[a(xd), a(yd), a(N as u32)])?;
    for (i, got) in cx.get::<f32>(yd, N).into_iter().enumerate() {
        let want = (0..7).rev().fold(c[7], |acc, k| acc.mul_add(x[i], c[k]));
        cx.f32_exact("y", i, got, want);
    }
    Ok(())
}

/// Welford mean and variance per row, merged across the warp: against the
/// exact two-pass values. Each value passes through at most 4 sequential
/// merges and 5 butterfly merges of a few roundings each, on values below
/// 5 and their squares: abs and rel 2^-16 (about 250 f32 ulp of 1).
fn welford_rows(cx: &mut Ctx<'_>) -> R {
    let (rows, cols) = (13usize, 100usize);
    let x = Rng::new(27).f32s(rows * cols, -3.0, 5.0);
    let (xd, md, vd) = (
        cx.buf(&x),
        cx.buf(&vec![0f32; rows]),
        cx.buf(&vec![0f32; rows]),
    );
    cx.launch1(
        blocks(rows * 32, 128),
        128,
        &[a(xd), a(md), a(vd), a(rows as i32), a(cols as i32)],
    )?;
    let (mean, var) = (cx.get::<f32>(md, rows), cx.get::<f32>(vd, rows));
    let tol = 2f64.powi(-16);
    for r in 0..rows {
        let row: Vec<f64> = x[r * cols..][..cols]
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        let m = row.iter().sum::<f64>() / cols as f64;
        let v = row.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / cols as f64;
        cx.close("mean", r, f64::from(mean[r]), m, tol, tol);
        cx.close("var", r, f64::from(var[r]), v, tol, tol);
    }
    Ok(())
}

// ---- half_precision.cu ---------------------------------------------------

fn halves(rng: &mut Rng, n: usize, lo: f32, hi: f32) -> Vec<u16> {
    rng.f32s(n, lo, hi)
        .into_iter()
        .map(|v| to_f16(f64::from(v)))
        .collect()
}

fn h(v: u16) -> f64 {
    f64::from(f16_to_f32(v))
}

/// y = fma(a, x, y) in f16: the exact value (f64 holds it: 22-bit
/// products, exponents within 40 bits) rounded once. Exact.
fn haxpy(cx: &mut Ctx<'_>) -> R {
    let mut rng = Rng::new(28);
    let (x, y) = (
        halves(&mut rng, N, -10.0, 10.0),
        halves(&mut rng, N, -10.0, 10.0),
    );
    let alpha = 0.7f32;
    let (xd, yd) = (cx.buf(&x), cx.buf(&y));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(N as u64), a(alpha), a(xd), a(yd)])?;
    let ah = h(to_f16(f64::from(alpha)));
    for (i, got) in cx.get::<u16>(yd, N).into_iter().enumerate() {
        cx.exact("y", i, got, to_f16(ah * h(x[i]) + h(y[i])));
    }
    Ok(())
}

/// __hfma2 per lane: as haxpy, exact.
fn half2_scale_bias(cx: &mut Ctx<'_>) -> R {
    let n2 = 700usize;
    let mut rng = Rng::new(29);
    let (x, b) = (
        halves(&mut rng, 2 * n2, -30.0, 30.0),
        halves(&mut rng, 2 * n2, -30.0, 30.0),
    );
    let scale = -1.37f32;
    let (xd, bd, od) = (cx.buf(&x), cx.buf(&b), cx.buf(&vec![0u16; 2 * n2]));
    cx.launch1(
        blocks(n2, BLOCK),
        BLOCK,
        &[a(xd), a(bd), a(od), a(scale), a(n2 as u32)],
    )?;
    let s = h(to_f16(f64::from(scale)));
    for (i, got) in cx.get::<u16>(od, 2 * n2).into_iter().enumerate() {
        cx.exact("out", i, got, to_f16(h(x[i]) * s + h(b[i])));
    }
    Ok(())
}

/// __hadd(a, __hmul(b, gamma)) in f16 (each rounded once), clamped to
/// the finite range in f32: exact, overflow to the clamp included.
fn half_residual_add(cx: &mut Ctx<'_>) -> R {
    let mut rng = Rng::new(30);
    let (mut x, mut y) = (
        halves(&mut rng, N, -100.0, 100.0),
        halves(&mut rng, N, -100.0, 100.0),
    );
    for (i, (p, q)) in [(60000.0, 30000.0), (-60000.0, -30000.0), (65504.0, 0.0)]
        .into_iter()
        .enumerate()
    {
        x[i] = to_f16(p);
        y[i] = to_f16(q);
    }
    let gamma = 0.5f32;
    let (xd, yd, od) = (cx.buf(&x), cx.buf(&y), cx.buf(&vec![0u16; N]));
    cx.launch1(
        blocks(N, BLOCK),
        BLOCK,
        &[a(xd), a(yd), a(od), a(gamma), a(N as i32)],
    )?;
    let g = h(to_f16(f64::from(gamma)));
    for (i, got) in cx.get::<u16>(od, N).into_iter().enumerate() {
        let sum = h(to_f16(h(x[i]) + h(to_f16(h(y[i]) * g))));
        cx.exact("out", i, got, to_f16(sum.clamp(-65504.0, 65504.0)));
    }
    Ok(())
}

/// atomicAdd on f16 segments: integers in [-8, 8], about 20 per segment,
/// so every partial sum is an exact f16 integer. Exact.
fn half_segment_sum(cx: &mut Ctx<'_>) -> R {
    let segments = 50usize;
    let mut rng = Rng::new(31);
    let v: Vec<u16> = rng
        .dyadics(N, -8, 9, 1)
        .into_iter()
        .map(|v| to_f16(f64::from(v)))
        .collect();
    let seg: Vec<i32> = (0..N).map(|_| rng.int(0, segments as i64) as i32).collect();
    let (vd, sd, od) = (cx.buf(&v), cx.buf(&seg), cx.buf(&vec![0u16; segments]));
    cx.launch1(blocks(N, BLOCK), BLOCK, &[a(vd), a(sd), a(od), a(N as i32)])?;
    for (s, got) in cx.get::<u16>(od, segments).into_iter().enumerate() {
        let want: f64 = (0..N)
            .filter(|&i| seg[i] == s as i32)
            .map(|i| h(v[i]))
            .sum();
        cx.exact("out", s, got, to_f16(want));
    }
    Ok(())
}

/// Dot product of __half2 vectors: integer lanes in [-8, 8] have exact
/// f16 products and exact f32 sums. Exact.
fn half2_dot(cx: &mut Ctx<'_>) -> R {
    let n2 = 700usize;
    let mut rng = Rng::new(32);
    let [x, y] = [(); 2].map(|_| {
        rng.dyadics(2 * n2, -8, 9, 1)
            .into_iter()
            .map(|v| to_f16(f64::from(v)))
            .collect::<Vec<u16>>()
    });
    let (xd, yd, rd) = (cx.buf(&x), cx.buf(&y), cx.buf(&[0f32]));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(xd), a(yd), a(rd), a(n2 as u32)])?;
    let want: f64 = (0..2 * n2).map(|i| h(x[i]) * h(y[i])).sum();
    cx.f32_exact("result", 0, cx.get::<f32>(rd, 1)[0], want as f32);
    Ok(())
}

// ---- matmul.cu -----------------------------------------------------------

/// M x K and K x N of integers in [-8, 8]: every fused partial product sum
/// is an integer below 2^12, exact in f32.
struct Gemm {
    m: usize,
    n: usize,
    k: usize,
    a: Vec<f32>,
    b: Vec<f32>,
}

impl Gemm {
    fn new(seed: u64) -> Gemm {
        let (m, n, k) = (37, 45, 29);
        let mut rng = Rng::new(seed);
        Gemm {
            m,
            n,
            k,
            a: rng.dyadics(m * k, -8, 9, 1),
            b: rng.dyadics(k * n, -8, 9, 1),
        }
    }

    fn product(&self, r: usize, c: usize) -> f32 {
        (0..self.k)
            .map(|t| self.a[r * self.k + t] * self.b[t * self.n + c])
            .sum()
    }

    fn dims(&self) -> [Vec<u8>; 3] {
        [a(self.m as i32), a(self.n as i32), a(self.k as i32)]
    }
}

/// The 16 x 16 tiled SGEMM (blocks of 16 x 16, partial tiles at the
/// edges): exact.
fn sgemm_tiled16(cx: &mut Ctx<'_>) -> R {
    let g = Gemm::new(33);
    let (ad, bd, cd) = (
        cx.buf(&g.a),
        cx.buf(&g.b),
        cx.buf(&vec![f32::NAN; g.m * g.n]),
    );
    let mut args = vec![a(ad), a(bd), a(cd)];
    args.extend(g.dims());
    cx.launch([blocks(g.n, 16), blocks(g.m, 16), 1], [16, 16, 1], 0, &args)?;
    for (i, got) in cx.get::<f32>(cd, g.m * g.n).into_iter().enumerate() {
        cx.f32_exact("C", i, got, g.product(i / g.n, i % g.n));
    }
    Ok(())
}

/// C = alpha A B + beta C with TILE x TILE blocks, twice: beta = 0 over a
/// C of NaN (the kernel must not read C), and beta = -2 over integers.
/// alpha = 0.5: every value is exact. Exact.
fn sgemm_tiled(cx: &mut Ctx<'_>, tile: u32, seed: u64) -> R {
    let g = Gemm::new(seed);
    let c0 = Rng::new(seed + 1).dyadics(g.m * g.n, -8, 9, 1);
    for (beta, init) in [(0f32, vec![f32::NAN; g.m * g.n]), (-2f32, c0)] {
        let (ad, bd, cd) = (cx.buf(&g.a), cx.buf(&g.b), cx.buf(&init));
        let mut args = vec![a(ad), a(bd), a(cd)];
        args.extend(g.dims());
        args.extend([a(0.5f32), a(beta)]);
        cx.launch(
            [blocks(g.n, tile), blocks(g.m, tile), 1],
            [tile, tile, 1],
            0,
            &args,
        )?;
        for (i, got) in cx.get::<f32>(cd, g.m * g.n).into_iter().enumerate() {
            let keep = if beta == 0.0 { 0.0 } else { beta * init[i] };
            let want = 0.5 * g.product(i / g.n, i % g.n) + keep;
            cx.f32_exact(if beta == 0.0 { "C (beta 0)" } else { "C" }, i, got, want);
        }
    }
    Ok(())
}

fn sgemm_tiled8(cx: &mut Ctx<'_>) -> R {
    sgemm_tiled(cx, 8, 34)
}

fn sgemm_tiled32(cx: &mut Ctx<'_>) -> R {
    sgemm_tiled(cx, 32, 36)
}

/// y = A x, one warp per row, fmaf and shuffles: integers, exact.
fn gemv(cx: &mut Ctx<'_>) -> R {
    let g = Gemm::new(38);
    let (rows, cols) = (g.m, g.k);
    let x = &g.b[..cols];
    let (ad, xd, yd) = (cx.buf(&g.a), cx.buf(x), cx.buf(&vec![f32::NAN; rows]));
    cx.launch1(
        blocks(rows * 32, 128),
        128,
        &[a(ad), a(xd), a(yd), a(rows as i32), a(cols as i32)],
    )?;
    for (r, got) in cx.get::<f32>(yd, rows).into_iter().enumerate() {
        let want: f32 = (0..cols).map(|c| g.a[r * cols + c] * x[c]).sum();
        cx.f32_exact("y", r, got, want);
    }
    Ok(())
}

// ---- quantize.cu ---------------------------------------------------------

const FP8_SCALE: f32 = 0.37;

/// x * (1 / scale) in f32 (the division correctly rounded, HIP's default)
/// to E4M3 with CUDA's rounding and saturation: exact, NaN, infinities,
/// saturation and E4M3 subnormals included.
fn quantize_fp8_e4m3(cx: &mut Ctx<'_>) -> R {
    let mut x = inputs(&mut Rng::new(39), -200.0, 200.0);
    let special = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        1e-3,
        -2e-3,
        448.0 * FP8_SCALE,
        -464.0 * FP8_SCALE,
    ];
    x[4..4 + special.len()].copy_from_slice(&special);
    let (xd, qd, sd) = (cx.buf(&x), cx.buf(&vec![0u8; N]), cx.buf(&[FP8_SCALE]));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(xd), a(qd), a(sd), a(N as u64)])?;
    let inv = 1.0 / FP8_SCALE;
    for (i, got) in cx.get::<u8>(qd, N).into_iter().enumerate() {
        cx.exact("q", i, got, to_e4m3(x[i] * inv));
    }
    Ok(())
}

/// Every E4M3 code, decoded and scaled in f32: exact (NaN codes to NaN).
fn dequantize_fp8_e4m3(cx: &mut Ctx<'_>) -> R {
    let q: Vec<u8> = (0..N).map(|i| (i * 7 % 256) as u8).collect();
    let (qd, xd, sd) = (cx.buf(&q), cx.buf(&vec![0f32; N]), cx.buf(&[FP8_SCALE]));
    cx.launch1(STRIDE_GRID, BLOCK, &[a(qd), a(xd), a(sd), a(N as u64)])?;
    for (i, got) in cx.get::<f32>(xd, N).into_iter().enumerate() {
        cx.f32_exact("x", i, got, e4m3_to_f32(q[i]) * FP8_SCALE);
    }
    Ok(())
}

/// `__dp4a` element-wise, signed and unsigned, at the edges: bytes 0x00,
/// 0x01, 0x7f, 0x80, 0xff and random ones, accumulators near both ends of
/// the range so the sum wraps (IDP4A does not clamp). Exact.
fn dp4a_edges(cx: &mut Ctx<'_>) -> R {
    const EDGE_BYTES: [u32; 5] = [0x00, 0x01, 0x7f, 0x80, 0xff];
    const EDGE_ACC: [u32; 6] = [0, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x7fff_0000];
    let n = 300usize;
    let mut rng = Rng::new(57);
    let word = |i: usize, rng: &mut Rng| -> u32 {
        if i % 3 == 0 {
            rng.u32()
        } else {
            (0..4).fold(0u32, |w, k| {
                w | EDGE_BYTES[(rng.u32() % 5) as usize] << (8 * k)
            })
        }
    };
    let av: Vec<u32> = (0..n).map(|i| word(i, &mut rng)).collect();
    let bv: Vec<u32> = (0..n).map(|i| word(i + 1, &mut rng)).collect();
    let cv: Vec<u32> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                EDGE_ACC[i / 2 % EDGE_ACC.len()]
            } else {
                rng.u32()
            }
        })
        .collect();
    let (ad, bd, cd, sd, ud) = (
        cx.buf(&av),
        cx.buf(&bv),
        cx.buf(&cv),
        cx.buf(&vec![0i32; n]),
        cx.buf(&vec![0u32; n]),
    );
    cx.launch1(
        blocks(n, 64),
        64,
        &[a(ad), a(bd), a(cd), a(sd), a(ud), a(n as i32)],
    )?;
    let byte = |w: u32, k: u32| (w >> (8 * k)) & 0xff;
    let signed = |p: u32, q: u32, c: u32| -> i32 {
        (0..4).fold(c as i32, |acc, k| {
            acc.wrapping_add(i32::from(byte(p, k) as u8 as i8) * i32::from(byte(q, k) as u8 as i8))
        })
    };
    let unsigned = |p: u32, q: u32, c: u32| -> u32 {
        (0..4).fold(c, |acc, k| acc.wrapping_add(byte(p, k) * byte(q, k)))
    };
    for (i, got) in cx.get::<i32>(sd, n).into_iter().enumerate() {
        cx.exact("signed", i, got, signed(av[i], bv[i], cv[i]));
    }
    for (i, got) in cx.get::<u32>(ud, n).into_iter().enumerate() {
        cx.exact("unsigned", i, got, unsigned(av[i], bv[i], cv[i]));
    }
    Ok(())
}

/// int8 GEMV with __dp4a (signed bytes): the integer sum is exact, its
/// conversion to f32 too (below 2^24), and the scale one f32 product
/// rounded as on the host. Exact.
fn int8_gemv_dp4a(cx: &mut Ctx<'_>) -> R {
    let (rows, cols4) = (13usize, 50usize);
    let mut rng = Rng::new(40);
    let aq: Vec<u32> = (0..rows * cols4).map(|_| rng.u32()).collect();
    let xq: Vec<u32> = (0..cols4).map(|_| rng.u32()).collect();
    let scale = rng.f32s(rows, 0.001, 0.1);
    let (ad, xd, sd, yd) = (
        cx.buf(&aq),
        cx.buf(&xq),
        cx.buf(&scale),
        cx.buf(&vec![0f32; rows]),
    );
    cx.launch1(
        blocks(rows * 32, 128),
        128,
        &[a(ad), a(xd), a(sd), a(yd), a(rows as i32), a(cols4 as i32)],
    )?;
    let dp4a = |p: u32, q: u32| -> i32 {
        (0..4)
            .map(|k| i32::from((p >> (8 * k)) as u8 as i8) * i32::from((q >> (8 * k)) as u8 as i8))
            .sum()
    };
    for (r, got) in cx.get::<f32>(yd, rows).into_iter().enumerate() {
        let acc: i32 = (0..cols4).map(|c| dp4a(aq[r * cols4 + c], xq[c])).sum();
        cx.f32_exact("y", r, got, acc as f32 * scale[r]);
    }
    Ok(())
}

// ---- rotary_gather.cu ----------------------------------------------------

/// Sequence, heads and head size of the rotary kernels: 7 x 3 x 12 pairs,
/// 252 threads in blocks of 64 (the last one partial).
const SEQ: usize = 7;
const HEADS: usize = 3;
const HEAD_DIM: usize = 24;

/// GPT-J rotary embedding in place, the angle pos * theta^(-2i/d) from
/// powf and sincosf. The reference takes the exponent as the kernel
/// rounds it (f32) and is exact from there; the kernel's angle is then
/// within 2.5 ulp (powf's 2 and the product's 0.5), sincosf within 2 ulp
/// of values below 1, and each output's two products and difference add
/// 1.5 ulp of the larger term: |err| <= (|a| + |b|) (2^-21.7 |angle| +
/// 2^-21) with margin.
fn rope_interleaved(cx: &mut Ctx<'_>) -> R {
    let half = HEAD_DIM / 2;
    let total = SEQ * HEADS * half;
    let theta = 10000f32;
    let mut rng = Rng::new(41);
    let x = rng.f32s(SEQ * HEADS * HEAD_DIM, -2.0, 2.0);
    let pos: Vec<i32> = (0..SEQ).map(|_| rng.int(0, 200) as i32).collect();
    let (xd, pd) = (cx.buf(&x), cx.buf(&pos));
    let mut shape = crate::common::launch::bytes(&[SEQ as i32, HEADS as i32, HEAD_DIM as i32]);
    shape.extend(theta.to_le_bytes());
    cx.launch1(blocks(total, 64), 64, &[a(xd), a(pd), shape])?;
    let got = cx.get::<f32>(xd, x.len());
    for idx in 0..total {
        let i = idx % half;
        let tok = idx / (half * HEADS);
        let e = (-2.0f32 * i as f32) / HEAD_DIM as f32;
        let angle = f64::from(pos[tok]) * f64::from(theta).powf(f64::from(e));
        let (sn, cs) = angle.sin_cos();
        let p = (idx / half) * HEAD_DIM + 2 * i;
        let (va, vb) = (f64::from(x[p]), f64::from(x[p + 1]));
        let tol = (va.abs() + vb.abs()) * (3.0 * 2f64.powi(-23) * angle + 2f64.powi(-21));
        cx.close("x", p, f64::from(got[p]), va * cs - vb * sn, tol, 0.0);
        cx.close(
            "x",
            p + 1,
            f64::from(got[p + 1]),
            va * sn + vb * cs,
            tol,
            0.0,
        );
    }
    Ok(())
}

/// NeoX rotary embedding from cos/sin tables: two products and a sum or
/// difference, fused or not: within 2^-23 (|a c| + |b s|) of the exact
/// value.
fn rope_neox_table(cx: &mut Ctx<'_>) -> R {
    let half = HEAD_DIM / 2;
    let total = SEQ * HEADS * half;
    let mut rng = Rng::new(42);
    let x = rng.f32s(SEQ * HEADS * HEAD_DIM, -2.0, 2.0);
    let (c, s) = (
        rng.f32s(SEQ * half, -1.0, 1.0),
        rng.f32s(SEQ * half, -1.0, 1.0),
    );
    let (xd, cd, sd, yd) = (
        cx.buf(&x),
        cx.buf(&c),
        cx.buf(&s),
        cx.buf(&vec![f32::NAN; x.len()]),
    );
    cx.launch1(
        blocks(total, 64),
        64,
        &[
            a(xd),
            a(cd),
            a(sd),
            a(yd),
            a(SEQ as i32),
            a(HEADS as i32),
            a(HEAD_DIM as i32),
        ],
    )?;
    let y = cx.get::<f32>(yd, x.len());
    for idx in 0..total {
        let (i, tok) = (idx % half, idx / (half * HEADS));
        let base = (idx / half) * HEAD_DIM;
        let (va, vb) = (f64::from(x[base + i]), f64::from(x[base + i + half]));
        let (vc, vs) = (f64::from(c[tok * half + i]), f64::from(s[tok * half + i]));
        let e = 2f64.powi(-23);
        let t1 = e * ((va * vc).abs() + (vb * vs).abs());
        let t2 = e * ((va * vs).abs() + (vb * vc).abs());
        cx.close(
            "y",
            base + i,
            f64::from(y[base + i]),
            va * vc - vb * vs,
            t1,
            0.0,
        );
        let j = base + i + half;
        cx.close("y", j, f64::from(y[j]), va * vs + vb * vc, t2, 0.0);
    }
    Ok(())
}

/// Embedding rows copied per token, ids clamped to the vocabulary:
/// exact.
fn embedding_gather(cx: &mut Ctx<'_>) -> R {
    let (tokens, dim, vocab) = (20usize, 100usize, 30i32);
    let mut rng = Rng::new(43);
    let table = rng.f32s(vocab as usize * dim, -5.0, 5.0);
    let mut ids: Vec<i32> = (0..tokens)
        .map(|_| rng.int(0, vocab as i64) as i32)
        .collect();
    ids[..3].copy_from_slice(&[-5, vocab, 1000]);
    let (td, idd, od) = (
        cx.buf(&table),
        cx.buf(&ids),
        cx.buf(&vec![0f32; tokens * dim]),
    );
    cx.launch1(
        tokens as u32,
        64,
        &[a(td), a(idd), a(od), a(dim as i32), a(vocab)],
    )?;
    for (i, got) in cx.get::<f32>(od, tokens * dim).into_iter().enumerate() {
        let id = ids[i / dim].clamp(0, vocab - 1) as usize;
        cx.f32_exact("out", i, got, table[id * dim + i % dim]);
    }
    Ok(())
}

/// out[index[r]] += src[r] by float atomicAdd: multiples of 1/8 below
/// 16, exact in any order.
fn index_add_rows(cx: &mut Ctx<'_>) -> R {
    let (rows, dim, out_rows) = (40usize, 33usize, 10usize);
    let mut rng = Rng::new(44);
    let src = rng.dyadics(rows * dim, -16, 16, 8);
    let index: Vec<i64> = (0..rows).map(|_| rng.int(0, out_rows as i64)).collect();
    let out0 = rng.dyadics(out_rows * dim, -16, 16, 8);
    let (sd, id, od) = (cx.buf(&src), cx.buf(&index), cx.buf(&out0));
    cx.launch1(
        blocks(rows * dim, 128),
        128,
        &[a(sd), a(id), a(od), a(rows as i32), a(dim as i32)],
    )?;
    let mut want: Vec<f64> = out0.iter().map(|&v| f64::from(v)).collect();
    for r in 0..rows {
        for c in 0..dim {
            want[index[r] as usize * dim + c] += f64::from(src[r * dim + c]);
        }
    }
    for (i, got) in cx.get::<f32>(od, out_rows * dim).into_iter().enumerate() {
        cx.f32_exact("out", i, got, want[i] as f32);
    }
    Ok(())
}

// ---- softmax_norm.cu -----------------------------------------------------

/// NormParams by value: rows, cols, eps.
fn norm_params(rows: usize, cols: usize, eps: f32) -> Vec<u8> {
    let mut p = crate::common::launch::bytes(&[rows as i32, cols as i32]);
    p.extend(eps.to_le_bytes());
    p
}

/// Softmax, one warp per row, against the exact value: expf (1 ulp) of
/// x - max, whose rounding (0.5 ulp of at most 10) is a relative error of
/// 10 * 2^-24 in the exponential; the row sum's error at most
/// (cols / 32 + 5) * 2^-24; the reciprocal and the product 0.5 ulp each.
/// rel 2^-19.
fn softmax_rows(cx: &mut Ctx<'_>) -> R {
    let (rows, cols) = (13usize, 100usize);
    let x = Rng::new(45).f32s(rows * cols, -5.0, 5.0);
    let (xd, yd) = (cx.buf(&x), cx.buf(&vec![0f32; rows * cols]));
    cx.launch1(
        blocks(rows * 32, 128),
        128,
        &[a(xd), a(yd), a(rows as i32), a(cols as i32)],
    )?;
    let y = cx.get::<f32>(yd, rows * cols);
    for r in 0..rows {
        let row: Vec<f64> = x[r * cols..][..cols]
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        let m = row.iter().fold(f64::MIN, |m, &v| m.max(v));
        let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
        for (c, &v) in row.iter().enumerate() {
            let i = r * cols + c;
            cx.close(
                "y",
                i,
                f64::from(y[i]),
                (v - m).exp() / s,
                0.0,
                2f64.powi(-19),
            );
        }
    }
    Ok(())
}

/// LayerNorm, one block of 256 per row of 300: outputs up to ~10; the
/// mean's error at most ~12 roundings (3 per thread, 5 shuffles, 3 over
/// the warps) of sums of |x| <= 900, /300; the variance's likewise,
/// rsqrtf 1 ulp; through (x - mean) * rstd * gamma + beta that is at most
/// 2^-15 absolute.
fn layernorm(cx: &mut Ctx<'_>) -> R {
    let (rows, cols, eps) = (5usize, 300usize, 1e-5f32);
    let mut rng = Rng::new(46);
    let x = rng.f32s(rows * cols, -3.0, 3.0);
    let (g, b) = (rng.f32s(cols, -2.0, 2.0), rng.f32s(cols, -2.0, 2.0));
    let (xd, gd, bd, yd) = (
        cx.buf(&x),
        cx.buf(&g),
        cx.buf(&b),
        cx.buf(&vec![0f32; rows * cols]),
    );
    cx.launch1(
        rows as u32,
        256,
        &[a(xd), a(gd), a(bd), a(yd), norm_params(rows, cols, eps)],
    )?;
    let y = cx.get::<f32>(yd, rows * cols);
    for r in 0..rows {
        let row: Vec<f64> = x[r * cols..][..cols]
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        let mean = row.iter().sum::<f64>() / cols as f64;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / cols as f64;
        let rstd = 1.0 / (var + f64::from(eps)).sqrt();
        for c in 0..cols {
            let want = (row[c] - mean) * rstd * f64::from(g[c]) + f64::from(b[c]);
            let i = r * cols + c;
            cx.close("y", i, f64::from(y[i]), want, 2f64.powi(-15), 0.0);
        }
    }
    Ok(())
}

/// RMSNorm with the row cached in dynamic LDS: multiples of 1/8 below 4
/// have exact squares and sum; the mean's division and the eps sum round
/// once each (0.5 ulp), rsqrtf is within 1 ulp, the two products 0.5
/// each: rel 2^-21 (4 ulp).
fn rmsnorm(cx: &mut Ctx<'_>) -> R {
    let (rows, cols, eps) = (5usize, 300usize, 1e-5f32);
    let mut rng = Rng::new(47);
    let x = rng.dyadics(rows * cols, -4, 4, 8);
    let w = rng.f32s(cols, -2.0, 2.0);
    let (xd, wd, yd) = (cx.buf(&x), cx.buf(&w), cx.buf(&vec![0f32; rows * cols]));
    cx.launch(
        [rows as u32, 1, 1],
        [256, 1, 1],
        4 * cols as u32,
        &[a(xd), a(wd), a(yd), norm_params(rows, cols, eps)],
    )?;
    let y = cx.get::<f32>(yd, rows * cols);
    for r in 0..rows {
        let row: Vec<f64> = x[r * cols..][..cols]
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        let ms = row.iter().map(|v| v * v).sum::<f64>() / cols as f64;
        let scale = 1.0 / (ms + f64::from(eps)).sqrt();
        for c in 0..cols {
            let i = r * cols + c;
            let want = row[c] * scale * f64::from(w[c]);
            cx.close("y", i, f64::from(y[i]), want, 0.0, 2f64.powi(-21));
        }
    }
    Ok(())
}

/// Log-softmax, one block of 256 per row of 1000: __expf of x - max
/// (v_exp_f32 of a product rounded to 2^-24 relative, |x - max| log2 e
/// <= 15: rel 2^-20 per term), the sum's ~12 roundings, logf (2 ulp of
/// values near 7), the two final differences (0.5 ulp of values below
/// 20): at most 2^-17 absolute.
fn log_softmax_block(cx: &mut Ctx<'_>) -> R {
    let (rows, cols) = (4usize, 1000usize);
    let x = Rng::new(48).f32s(rows * cols, -5.0, 5.0);
    let (xd, yd) = (cx.buf(&x), cx.buf(&vec![0f32; rows * cols]));
    cx.launch1(rows as u32, 256, &[a(xd), a(yd), a(cols as i32)])?;
    let y = cx.get::<f32>(yd, rows * cols);
    for r in 0..rows {
        let row: Vec<f64> = x[r * cols..][..cols]
            .iter()
            .map(|&v| f64::from(v))
            .collect();
        let m = row.iter().fold(f64::MIN, |m, &v| m.max(v));
        let lse = m + row.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
        for (c, &v) in row.iter().enumerate() {
            let i = r * cols + c;
            cx.close("y", i, f64::from(y[i]), v - lse, 2f64.powi(-17), 0.0);
        }
    }
    Ok(())
}

// ---- transpose_hist_scan.cu ----------------------------------------------

/// 45 x 70 transposed by 32 x 32 tiles with blocks of 32 x 8: exact.
fn transpose_padded(cx: &mut Ctx<'_>) -> R {
    let (rows, cols) = (45usize, 70usize);
    let x = Rng::new(49).f32s(rows * cols, -1.0, 1.0);
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![f32::NAN; rows * cols]));
    cx.launch(
        [blocks(cols, 32), blocks(rows, 32), 1],
        [32, 8, 1],
        0,
        &[a(xd), a(od), a(rows as i32), a(cols as i32)],
    )?;
    for (i, got) in cx.get::<f32>(od, rows * cols).into_iter().enumerate() {
        let (c, r) = (i / rows, i % rows);
        cx.f32_exact("out", i, got, x[r * cols + c]);
    }
    Ok(())
}

/// A 256-bin byte histogram (LDS atomics, then global): exact.
fn histogram256(cx: &mut Ctx<'_>) -> R {
    let n = 10_000usize;
    let mut rng = Rng::new(50);
    // Skewed, so some bins are hot and some empty.
    let data: Vec<u8> = (0..n)
        .map(|_| (rng.u32() % 256) as u8 & (rng.u32() % 256) as u8)
        .collect();
    let (dd, bd) = (cx.buf(&data), cx.buf(&vec![0u32; 256]));
    cx.launch1(8, 256, &[a(dd), a(bd), a(n as u64)])?;
    for (b, got) in cx.get::<u32>(bd, 256).into_iter().enumerate() {
        let want = data.iter().filter(|&&v| usize::from(v) == b).count() as u32;
        cx.exact("bins", b, got, want);
    }
    Ok(())
}

/// Exclusive scan of each block of 256 (u32, wrapping) and the blocks'
/// totals: exact.
fn block_exclusive_scan(cx: &mut Ctx<'_>) -> R {
    let (n, block) = (1000usize, 256usize);
    let grid = blocks(n, block as u32) as usize;
    let mut rng = Rng::new(51);
    let x: Vec<u32> = (0..n).map(|_| rng.u32()).collect();
    let (xd, od, sd) = (
        cx.buf(&x),
        cx.buf(&vec![0u32; n]),
        cx.buf(&vec![0u32; grid]),
    );
    cx.launch1(
        grid as u32,
        block as u32,
        &[a(xd), a(od), a(sd), a(n as u32)],
    )?;
    let (out, sums) = (cx.get::<u32>(od, n), cx.get::<u32>(sd, grid));
    for (b, &sum) in sums.iter().enumerate() {
        let mut acc = 0u32;
        for i in b * block..((b + 1) * block).min(n) {
            cx.exact("out", i, out[i], acc);
            acc = acc.wrapping_add(x[i]);
        }
        cx.exact("sums", b, sum, acc);
    }
    Ok(())
}

/// Blelloch exclusive scan of 2 x 64 elements per block in dynamic LDS:
/// multiples of 1/8 below 100, exact.
fn blelloch_scan(cx: &mut Ctx<'_>) -> R {
    let (n, block) = (300usize, 64u32);
    let m = 2 * block as usize;
    let x = Rng::new(52).dyadics(n, -100, 100, 8);
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![f32::NAN; n]));
    cx.launch(
        [blocks(n, 2 * block), 1, 1],
        [block, 1, 1],
        8 * block,
        &[a(xd), a(od), a(n as i32)],
    )?;
    let out = cx.get::<f32>(od, n);
    let mut acc = 0f32;
    for i in 0..n {
        if i % m == 0 {
            acc = 0.0;
        }
        cx.f32_exact("out", i, out[i], acc);
        acc += x[i];
    }
    Ok(())
}

// ---- warp_primitives.cu --------------------------------------------------

/// Row sums, one warp per row (13 rows, warps 13-15 of the grid exit):
/// multiples of 1/8, exact.
fn warp_row_sum(cx: &mut Ctx<'_>) -> R {
    let (rows, cols) = (13usize, 70usize);
    let x = Rng::new(53).dyadics(rows * cols, -100, 100, 8);
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![f32::NAN; rows]));
    cx.launch1(
        blocks(rows * 32, 128),
        128,
        &[a(xd), a(od), a(rows as i32), a(cols as i32)],
    )?;
    for (r, got) in cx.get::<f32>(od, rows).into_iter().enumerate() {
        let want: f32 = x[r * cols..][..cols].iter().sum();
        cx.f32_exact("out", r, got, want);
    }
    Ok(())
}

/// Per-warp f64 sums by __shfl_down_sync (zeros past n): exact inputs.
fn warp_sum_down_f64(cx: &mut Ctx<'_>) -> R {
    let (n, block) = (1000usize, 128u32);
    let grid = blocks(n, block);
    let warps = (grid * block / 32) as usize;
    let x: Vec<f64> = Rng::new(54)
        .dyadics(n, -100, 100, 8)
        .into_iter()
        .map(f64::from)
        .collect();
    let (xd, pd) = (cx.buf(&x), cx.buf(&vec![f64::NAN; warps]));
    cx.launch1(grid, block, &[a(xd), a(pd), a(n as u32)])?;
    for (w, got) in cx.get::<f64>(pd, warps).into_iter().enumerate() {
        let want: f64 = x.iter().skip(w * 32).take(32).sum();
        cx.f64_exact("partial", w, got, want);
    }
    Ok(())
}

/// Inclusive scans of 32-element segments (int): exact.
fn warp_inclusive_scan(cx: &mut Ctx<'_>) -> R {
    let (n, block) = (1000usize, 128u32);
    let mut rng = Rng::new(55);
    let x: Vec<i32> = (0..n).map(|_| rng.int(-1000, 1000) as i32).collect();
    let (xd, od) = (cx.buf(&x), cx.buf(&vec![0i32; n]));
    cx.launch1(blocks(n, block), block, &[a(xd), a(od), a(n as u32)])?;
    let out = cx.get::<i32>(od, n);
    let mut acc = 0;
    for i in 0..n {
        acc = if i % 32 == 0 { x[i] } else { acc + x[i] };
        cx.exact("out", i, out[i], acc);
    }
    Ok(())
}

/// x[i] *= scales[i / 32], the scale broadcast from lane 0: one f32
/// product, exact.
fn warp_broadcast_scale(cx: &mut Ctx<'_>) -> R {
    let (n, block) = (1000usize, 128u32);
    let grid = blocks(n, block);
    let mut rng = Rng::new(56);
    let scales = rng.f32s((grid * block / 32) as usize, -3.0, 3.0);
    let x = rng.f32s(n, -3.0, 3.0);
    let (sd, xd) = (cx.buf(&scales), cx.buf(&x));
    cx.launch1(grid, block, &[a(sd), a(xd), a(n as u32)])?;
    for (i, got) in cx.get::<f32>(xd, n).into_iter().enumerate() {
        cx.f32_exact("x", i, got, x[i] * scales[i / 32]);
    }
    Ok(())
}

/// Per-warp votes: the count of positive values, any NaN, all finite
/// (zeros past n). The counts exact; the flags as CUDA defines them,
/// nonzero or zero.
fn warp_vote_stats(cx: &mut Ctx<'_>) -> R {
    let (n, block) = (1000usize, 128u32);
    let grid = blocks(n, block);
    let warps = (grid * block / 32) as usize;
    let mut x = Rng::new(57).f32s(n, -1.0, 1.0);
    x[3 * 32 + 7] = f32::NAN;
    x[5 * 32 + 31] = f32::INFINITY;
    x[7 * 32] = f32::NEG_INFINITY;
    x[9 * 32 + 1] = f32::NAN;
    x[9 * 32 + 2] = f32::INFINITY;
    let bufs = [
        cx.buf(&vec![u32::MAX; warps]),
        cx.buf(&vec![-7i32; warps]),
        cx.buf(&vec![-7i32; warps]),
    ];
    let xd = cx.buf(&x);
    cx.launch1(
        grid,
        block,
        &[a(xd), a(bufs[0]), a(bufs[1]), a(bufs[2]), a(n as u32)],
    )?;
    let positive = cx.get::<u32>(bufs[0], warps);
    let any_nan = cx.get::<i32>(bufs[1], warps);
    let all_finite = cx.get::<i32>(bufs[2], warps);
    for w in 0..warps {
        let v: Vec<f32> = (w * 32..w * 32 + 32)
            .map(|i| if i < n { x[i] } else { 0.0 })
            .collect();
        let pos = v.iter().filter(|&&v| v > 0.0).count() as u32;
        cx.exact("positive", w, positive[w], pos);
        cx.exact(
            "any_nan != 0",
            w,
            any_nan[w] != 0,
            v.iter().any(|v| v.is_nan()),
        );
        cx.exact(
            "all_finite != 0",
            w,
            all_finite[w] != 0,
            v.iter().all(|v| v.is_finite()),
        );
    }
    Ok(())
}

/// Each warp packs its non-zero values to the front of its segment, in
/// lane order, and counts them; the rest of the segment stays unwritten.
/// Exact.
fn warp_compact(cx: &mut Ctx<'_>) -> R {
    const UNWRITTEN: i32 = 0x7777_7777;
    let (n, block) = (1000usize, 256u32);
    let grid = blocks(n, block);
    let slots = (grid * block) as usize;
    let mut rng = Rng::new(58);
    let x: Vec<i32> = (0..n)
        .map(|_| {
            if rng.u32() & 1 == 0 {
                0
            } else {
                rng.int(1, 1000) as i32
            }
        })
        .collect();
    let (xd, od, cd) = (
        cx.buf(&x),
        cx.buf(&vec![UNWRITTEN; slots]),
        cx.buf(&vec![u32::MAX; slots / 32]),
    );
    cx.launch1(grid, block, &[a(xd), a(od), a(cd), a(n as u32)])?;
    let (out, counts) = (cx.get::<i32>(od, slots), cx.get::<u32>(cd, slots / 32));
    for w in 0..slots / 32 {
        let kept: Vec<i32> = (w * 32..w * 32 + 32)
            .filter(|&i| i < n && x[i] != 0)
            .map(|i| x[i])
            .collect();
        cx.exact("counts", w, counts[w], kept.len() as u32);
        for lane in 0..32 {
            let want = kept.get(lane).copied().unwrap_or(UNWRITTEN);
            cx.exact("out", w * 32 + lane, out[w * 32 + lane], want);
        }
    }
    Ok(())
}
