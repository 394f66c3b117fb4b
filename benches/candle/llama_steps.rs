//! A reduced Llama from candle-transformers with seeded weights: a prefill
//! forward pass and greedy generation steps on the GPU. Built twice by
//! `scripts/candle.sh`, once with cudarc patched to this repository's
//! drop-in (cuda-compat) and once with real cudarc; the source is the same.
//!
//! ```text
//! llama_steps [--dtype f32|bf16] [--steps N] [--out FILE] [--compare FILE] [--rounds R]
//! ```
//! - `--out FILE`: the logits of the prefill and of every step (f32, little
//!   endian) and the generated tokens, for `--compare` in the other build.
//! - `--compare FILE`: reads another build's `--out` and fails unless the
//!   tokens are the same and every logit is within the dtype's tolerance.
//! - `--rounds R`: then times R fresh generations and prints the median
//!   time of one generation step (`step_us`) and of the prefill.
//!
//! Nothing is downloaded: the weights come from a fixed-seed generator, the
//! same values in both builds.

use candle_core::{DType, Device, Result, Tensor, D};
use candle_transformers::models::llama::{Cache, Config, Llama};
use std::time::Instant;

mod seeded;
use seeded::seeded;

const PROMPT_LEN: usize = 24;

fn config() -> Config {
    Config {
        hidden_size: 1024,
        intermediate_size: 2816,
        vocab_size: 4096,
        num_hidden_layers: 8,
        num_attention_heads: 16,
        num_key_value_heads: 4,
        use_flash_attn: false,
        rms_norm_eps: 1e-5,
        rope_theta: 10_000.0,
        bos_token_id: None,
        eos_token_id: None,
        rope_scaling: None,
        max_position_embeddings: 512,
        tie_word_embeddings: false,
    }
}

/// The model with seeded weights ([`seeded`]: the same rule as the other
/// candle benchmarks').
fn load(cfg: &Config, dtype: DType, dev: &Device) -> Result<Llama> {
    let vb = seeded(|vb| Llama::load(vb, cfg).map(drop), dtype, dev)?;
    Llama::load(vb, cfg)
}

struct Run {
    logits: Vec<Vec<f32>>,
    tokens: Vec<u32>,
    prefill_us: f64,
    step_us: Vec<f64>,
}

fn generate(model: &Llama, cfg: &Config, dtype: DType, dev: &Device, steps: usize) -> Result<Run> {
    let mut cache = Cache::new(true, dtype, cfg, dev)?;
    let prompt: Vec<u32> = (0..PROMPT_LEN as u32).map(|i| (i * 37 + 11) % cfg.vocab_size as u32).collect();
    let mut run = Run {
        logits: Vec::new(),
        tokens: Vec::new(),
        prefill_us: 0.0,
        step_us: Vec::new(),
    };
    dev.synchronize()?;
    let t0 = Instant::now();
    let input = Tensor::new(prompt.as_slice(), dev)?.unsqueeze(0)?;
    let mut logits = model.forward(&input, 0, &mut cache)?.squeeze(0)?;
    let mut next = logits.argmax(D::Minus1)?.to_scalar::<u32>()?;
    run.prefill_us = t0.elapsed().as_secs_f64() * 1e6;
    for pos in PROMPT_LEN..PROMPT_LEN + steps {
        run.logits.push(logits.to_dtype(DType::F32)?.to_vec1()?);
        run.tokens.push(next);
        let t = Instant::now();
        let input = Tensor::new(&[next], dev)?.unsqueeze(0)?;
        logits = model.forward(&input, pos, &mut cache)?.squeeze(0)?;
        next = logits.argmax(D::Minus1)?.to_scalar::<u32>()?;
        run.step_us.push(t.elapsed().as_secs_f64() * 1e6);
    }
    run.logits.push(logits.to_dtype(DType::F32)?.to_vec1()?);
    run.tokens.push(next);
    Ok(run)
}

fn save(run: &Run, path: &str) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    bytes.extend((run.tokens.len() as u32).to_le_bytes());
    bytes.extend((run.logits[0].len() as u32).to_le_bytes());
    for t in &run.tokens {
        bytes.extend(t.to_le_bytes());
    }
    for row in &run.logits {
        for v in row {
            bytes.extend(v.to_le_bytes());
        }
    }
    std::fs::write(path, bytes)
}

/// Compares with another build's output; the error says where they differ.
fn compare(run: &Run, path: &str, tol: f32) -> std::result::Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let word = |i: usize| u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    let (steps, vocab) = (word(0) as usize, word(1) as usize);
    if steps != run.tokens.len() || vocab != run.logits[0].len() || bytes.len() != 4 * (2 + steps + steps * vocab) {
        return Err(format!("{path}: {steps} steps of {vocab} logits, expected {} of {}", run.tokens.len(), run.logits[0].len()));
    }
    let theirs: Vec<u32> = (0..steps).map(|i| word(2 + i)).collect();
    if theirs != run.tokens {
        return Err(format!("tokens differ: ours {:?}, theirs {theirs:?}", run.tokens));
    }
    let mut worst = 0f32;
    for (s, row) in run.logits.iter().enumerate() {
        let scale = row.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
        for (j, v) in row.iter().enumerate() {
            let other = f32::from_bits(word(2 + steps + s * vocab + j));
            if !other.is_finite() || !v.is_finite() {
                return Err(format!("step {s} logit {j}: ours {v}, theirs {other}"));
            }
            worst = worst.max((v - other).abs() / scale);
        }
    }
    if worst > tol {
        return Err(format!("logits differ by {worst:.3e} of their largest magnitude (tolerance {tol:.0e})"));
    }
    Ok(format!("{steps} steps equal: same tokens, logits within {worst:.3e} of their largest magnitude (tolerance {tol:.0e})"))
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut dtype = DType::F32;
    let (mut steps, mut rounds) = (16usize, 0usize);
    let (mut out, mut cmp) = (None, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--dtype" => {
                dtype = match value()?.as_str() {
                    "f32" => DType::F32,
                    "bf16" => DType::BF16,
                    other => return Err(format!("--dtype {other}: f32 or bf16").into()),
                }
            }
            "--steps" => steps = value()?.parse()?,
            "--rounds" => rounds = value()?.parse()?,
            "--out" => out = Some(value()?),
            "--compare" => cmp = Some(value()?),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    if steps == 0 {
        return Err("--steps must be at least 1".into());
    }
    let dev = Device::new_cuda(0)?;
    let cfg = config();
    let model = load(&cfg, dtype, &dev)?;
    let run = generate(&model, &cfg, dtype, &dev, steps)?;
    println!("llama_steps: {dtype:?}, {} tokens generated: {:?}", run.tokens.len(), run.tokens);
    if let Some(path) = &out {
        save(&run, path)?;
    }
    if let Some(path) = &cmp {
        // Same kernels and the same BLAS: only the GEMM algorithm choice
        // may differ between the builds.
        let tol = if dtype == DType::F32 { 1e-4 } else { 2e-2 };
        match compare(&run, path, tol) {
            Ok(msg) => println!("llama_steps: compare: {msg}"),
            Err(msg) => return Err(format!("compare with {path}: {msg}").into()),
        }
    }
    if rounds > 0 {
        let (mut prefill, mut step) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let r = generate(&model, &cfg, dtype, &dev, steps)?;
            prefill.push(r.prefill_us);
            step.extend(r.step_us);
        }
        println!(
            "llama_steps: timing {dtype:?} rounds {rounds} steps {steps} prefill_us {:.1} step_us {:.1}",
            median(&mut prefill),
            median(&mut step)
        );
    }
    Ok(())
}
