//! Launch-bound candle workloads at small configurations with seeded
//! weights, for the host cost of each op: built twice by
//! `scripts/candle.sh`, once with cudarc patched to this repository's
//! drop-in (cuda-compat) and once with real cudarc; the source is the same.
//!
//! ```text
//! candle_models WORKLOAD [--rounds R] [--out FILE] [--compare FILE]
//! ```
//! Workloads (each its own kind of model, batch and sizes a user meets):
//! - `ops`: a chain of 3,000 tiny element-wise ops (unary, binary, affine)
//!   on 1,024 floats; the time is per op;
//! - `bert`: a BERT encoder's f32 forward pass (6 layers, hidden 384,
//!   batch 4 x 96 tokens);
//! - `qwen3`: a Qwen3 decoder's bf16 decode step with its KV cache (4
//!   layers, hidden 512, grouped-query attention), after a 32-token prompt;
//! - `resnet`: ResNet-18's bf16 forward pass on 2 x 3 x 96 x 96.
//!
//! `--rounds R` times R repetitions after a warm-up and prints
//! `candle_models: WORKLOAD ... step_us N`, the median time of one
//! repetition (of one op for `ops`). `--out FILE` writes the workload's
//! output (f32, little endian); `--compare FILE` fails unless this run's
//! output matches another build's within the dtype's tolerance.
//!
//! Nothing is downloaded: the weights and inputs come from a fixed-seed
//! generator, the same values in both builds.

use candle_core::{DType, Device, Module, Result, Tensor, D};
use candle_transformers::models::{bert, qwen3, resnet};
use std::time::Instant;

mod seeded;
use seeded::{seeded, Rng};

/// One workload: run it once (its output), as often as timed.
trait Workload {
    /// One repetition; returns its output.
    fn run(&mut self) -> Result<Tensor>;
    /// How many ops one repetition is, for the per-op time (1: per run).
    fn ops(&self) -> usize {
        1
    }
    /// The output comparison's tolerance, relative to the largest value.
    fn tolerance(&self) -> f32;
}

const OPS_LEN: usize = 1024;
const OPS_CHAIN: usize = 3000;

/// A chain of tiny element-wise ops: unary, binary and affine kernels.
struct Ops {
    x: Tensor,
    y: Tensor,
}

impl Workload for Ops {
    fn run(&mut self) -> Result<Tensor> {
        let mut x = self.x.clone();
        for i in 0..OPS_CHAIN / 3 {
            x = match i % 4 {
                0 => x.tanh()?,
                1 => x.sin()?,
                2 => x.neg()?,
                _ => x.abs()?,
            };
            x = (&x * &self.y)?;
            x = x.affine(0.5, 0.25)?;
        }
        Ok(x)
    }
    fn ops(&self) -> usize {
        OPS_CHAIN / 3 * 3
    }
    fn tolerance(&self) -> f32 {
        1e-5
    }
}

/// A BERT encoder forward pass, f32.
struct Bert {
    model: bert::BertModel,
    ids: Tensor,
    types: Tensor,
    mask: Tensor,
}

impl Bert {
    const BATCH: usize = 4;
    const TOKENS: usize = 96;

    fn new(dev: &Device) -> Result<Bert> {
        let cfg = bert::Config {
            vocab_size: 4096,
            hidden_size: 384,
            num_hidden_layers: 6,
            num_attention_heads: 6,
            intermediate_size: 1536,
            hidden_act: bert::HiddenAct::Gelu,
            hidden_dropout_prob: 0.0,
            max_position_embeddings: 512,
            type_vocab_size: 2,
            initializer_range: 0.02,
            layer_norm_eps: 1e-12,
            pad_token_id: 0,
            position_embedding_type: bert::PositionEmbeddingType::Absolute,
            use_cache: false,
            classifier_dropout: None,
            model_type: None,
        };
        let vb = seeded(
            |vb| bert::BertModel::load(vb, &cfg).map(drop),
            DType::F32,
            dev,
        )?;
        let model = bert::BertModel::load(vb, &cfg)?;
        let n = Bert::BATCH * Bert::TOKENS;
        let ids: Vec<u32> = (0..n as u32).map(|i| (i * 131 + 7) % 4096).collect();
        let types: Vec<u32> = (0..n as u32)
            .map(|i| u32::from(i % Bert::TOKENS as u32 >= 48))
            .collect();
        // The last sequence is padded after 80 tokens.
        let mask: Vec<u32> = (0..n).map(|i| u32::from(i < n - 16)).collect();
        let shape = (Bert::BATCH, Bert::TOKENS);
        Ok(Bert {
            model,
            ids: Tensor::from_vec(ids, shape, dev)?,
            types: Tensor::from_vec(types, shape, dev)?,
            mask: Tensor::from_vec(mask, shape, dev)?,
        })
    }
}

impl Workload for Bert {
    fn run(&mut self) -> Result<Tensor> {
        self.model.forward(&self.ids, &self.types, Some(&self.mask))
    }
    fn tolerance(&self) -> f32 {
        1e-4
    }
}

/// A Qwen3 decoder's decode step with its KV cache, bf16.
struct Qwen3 {
    model: qwen3::ModelForCausalLM,
    dev: Device,
    position: usize,
    next: u32,
}

impl Qwen3 {
    const PROMPT: usize = 32;
    /// Steps before the cache is cleared and the prompt run again, so that
    /// every timed step sees a cache of about the same length.
    const STEPS_PER_PROMPT: usize = 64;

    fn new(dev: &Device) -> Result<Qwen3> {
        let cfg = qwen3::Config {
            vocab_size: 4096,
            hidden_size: 512,
            intermediate_size: 1536,
            num_hidden_layers: 4,
            num_attention_heads: 8,
            head_dim: 64,
            attention_bias: false,
            num_key_value_heads: 2,
            max_position_embeddings: 1024,
            sliding_window: None,
            max_window_layers: 4,
            tie_word_embeddings: true,
            rope_theta: 1_000_000.0,
            rms_norm_eps: 1e-6,
            use_sliding_window: false,
            hidden_act: candle_nn::Activation::Silu,
        };
        let vb = seeded(
            |vb| qwen3::ModelForCausalLM::new(&cfg, vb).map(drop),
            DType::BF16,
            dev,
        )?;
        let model = qwen3::ModelForCausalLM::new(&cfg, vb)?;
        let mut q = Qwen3 {
            model,
            dev: dev.clone(),
            position: 0,
            next: 0,
        };
        q.prompt()?;
        Ok(q)
    }

    fn prompt(&mut self) -> Result<()> {
        self.model.clear_kv_cache();
        let prompt: Vec<u32> = (0..Qwen3::PROMPT as u32)
            .map(|i| (i * 37 + 11) % 4096)
            .collect();
        let input = Tensor::new(prompt.as_slice(), &self.dev)?.unsqueeze(0)?;
        let logits = self.model.forward(&input, 0)?;
        self.next = logits
            .squeeze(0)?
            .flatten_all()?
            .argmax(D::Minus1)?
            .to_scalar::<u32>()?;
        self.position = Qwen3::PROMPT;
        Ok(())
    }
}

impl Workload for Qwen3 {
    fn run(&mut self) -> Result<Tensor> {
        if self.position >= Qwen3::PROMPT + Qwen3::STEPS_PER_PROMPT {
            self.prompt()?;
        }
        let input = Tensor::new(&[self.next], &self.dev)?.unsqueeze(0)?;
        let logits = self.model.forward(&input, self.position)?.flatten_all()?;
        self.next = logits.argmax(D::Minus1)?.to_scalar::<u32>()?;
        self.position += 1;
        Ok(logits)
    }
    fn tolerance(&self) -> f32 {
        2e-2
    }
}

/// ResNet-18's forward pass, bf16.
struct ResNet {
    model: candle_nn::Func<'static>,
    x: Tensor,
}

impl ResNet {
    fn new(dev: &Device) -> Result<ResNet> {
        let vb = seeded(|vb| resnet::resnet18(100, vb).map(drop), DType::BF16, dev)?;
        let model = resnet::resnet18(100, vb)?;
        let x = Tensor::from_vec(Rng(0x1a6e).vec(2 * 3 * 96 * 96, 1.0), (2, 3, 96, 96), dev)?
            .to_dtype(DType::BF16)?;
        Ok(ResNet { model, x })
    }
}

impl Workload for ResNet {
    fn run(&mut self) -> Result<Tensor> {
        self.model.forward(&self.x)
    }
    fn tolerance(&self) -> f32 {
        2e-2
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The output as f32 values, on the host (waits for the work).
fn host(t: &Tensor) -> Result<Vec<f32>> {
    t.to_dtype(DType::F32)?.flatten_all()?.to_vec1()
}

/// Compares with another build's output; the error says where they differ.
fn compare(ours: &[f32], path: &str, tol: f32) -> std::result::Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    if bytes.len() != 4 * ours.len() {
        return Err(format!(
            "{path}: {} values, this run has {}",
            bytes.len() / 4,
            ours.len()
        ));
    }
    let theirs = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")));
    let scale = ours.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
    let mut worst = 0f32;
    for (i, (o, t)) in ours.iter().zip(theirs).enumerate() {
        if !o.is_finite() || !t.is_finite() {
            return Err(format!("value {i}: ours {o}, theirs {t}"));
        }
        worst = worst.max((o - t).abs() / scale);
    }
    if worst > tol {
        return Err(format!(
            "outputs differ by {worst:.3e} of their largest magnitude (tolerance {tol:.0e})"
        ));
    }
    Ok(format!(
        "{} values equal within {worst:.3e} of their largest magnitude (tolerance {tol:.0e})",
        ours.len()
    ))
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let name = args.next().ok_or(
        "usage: candle_models ops|bert|qwen3|resnet [--rounds R] [--out FILE] [--compare FILE]",
    )?;
    let (mut rounds, mut out, mut cmp) = (0usize, None, None);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--rounds" => rounds = value()?.parse()?,
            "--out" => out = Some(value()?),
            "--compare" => cmp = Some(value()?),
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let dev = Device::new_cuda(0)?;
    let mut work: Box<dyn Workload> = match name.as_str() {
        "ops" => {
            let mut rng = Rng(0x0b5);
            Box::new(Ops {
                x: Tensor::from_vec(rng.vec(OPS_LEN, 1.0), OPS_LEN, &dev)?,
                y: Tensor::from_vec(rng.vec(OPS_LEN, 1.0), OPS_LEN, &dev)?,
            })
        }
        "bert" => Box::new(Bert::new(&dev)?),
        "qwen3" => Box::new(Qwen3::new(&dev)?),
        "resnet" => Box::new(ResNet::new(&dev)?),
        other => {
            return Err(format!("unknown workload {other}: ops, bert, qwen3 or resnet").into())
        }
    };
    let output = host(&work.run()?)?;
    println!("candle_models: {name}: {} output values", output.len());
    if let Some(path) = &out {
        let bytes: Vec<u8> = output.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(path, bytes)?;
    }
    if let Some(path) = &cmp {
        match compare(&output, path, work.tolerance()) {
            Ok(msg) => println!("candle_models: {name}: compare: {msg}"),
            Err(msg) => return Err(format!("{name}: compare with {path}: {msg}").into()),
        }
    }
    if rounds > 0 {
        // Warm-up: module loads, the allocator's pool, cuBLAS's choices.
        for _ in 0..rounds.min(10) {
            work.run()?;
        }
        dev.synchronize()?;
        let mut times = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let t = Instant::now();
            let y = work.run()?;
            dev.synchronize()?;
            drop(y);
            times.push(t.elapsed().as_secs_f64() * 1e6 / work.ops() as f64);
        }
        println!(
            "candle_models: {name} rounds {rounds} step_us {:.2}",
            median(&mut times)
        );
    }
    Ok(())
}
