//! Small seeded models and candle's quantized matmuls, each run on the GPU
//! (`Device::new_cuda(0)`) and on candle's CPU backend, the two compared.
//! Sized for a software GPU: `scripts/candle.sh emu` runs it on hip-emu's
//! emulated gfx942 and gfx1100, where every instruction is interpreted.
//!
//! ```text
//! emu_models [llama|bert|quantized]...      (default: all three)
//! ```
//! - `llama`: a two-layer Llama from candle-transformers (grouped-query
//!   attention, rotary embeddings, RMS norm, SiLU MLP): prefill of 12
//!   tokens and 3 decode steps with the KV cache, in f32 and bf16.
//! - `bert`: a two-layer BERT encoder (GELU, layer norm, an attention mask
//!   with padding), f32 (in bf16 candle's BERT is NaN on every backend: it
//!   masks with `f32::MIN`, which bf16 rounds to -inf).
//! - `quantized`: `QMatMul` of Q4_0, Q8_0, Q4K and Q6K weights (256 x 512)
//!   at batch 1, 8, 16 and 64, the kernels candle picks on the GPU (up to
//!   8 rows the matrix-vector kernels, above them the matrix-matrix
//!   `mul_mat_q` kernels, the ones that spill on AMD) against the CPU's
//!   vec-dot kernels.
//!
//! One line per check, `emu_models: NAME ... ok (DETAIL)` or `... FAILED
//! (DETAIL)`, then `emu_models: N passed, N failed`; the exit status is
//! non-zero when a check failed. The tolerances are candle's own: the
//! models' outputs within 1e-4 (f32) or 2e-2 (bf16) of their largest
//! magnitude (the tolerances of candle's bf16/f32 model comparisons and of
//! this repository's builds-compared runs); the quantized products within
//! `GGML_MAX_DOT_PRODUCT_ERROR` (0.02, candle-core's quantized tests) per
//! element of the dot product, against the unquantized product, and within
//! a tenth of that of the CPU's quantized product.
//!
//! Nothing is downloaded: the weights come from [`seeded`], the rule the
//! other candle benchmarks use.

use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{DType, Device, Module, Result, Tensor};
use candle_transformers::models::{bert, llama};

mod seeded;
use seeded::{seeded, Rng};

/// The largest absolute difference between `a` and `b`, relative to the
/// largest magnitude of `b`; an error when a value is not finite or the
/// lengths differ.
fn relative_difference(a: &[f32], b: &[f32]) -> std::result::Result<f32, String> {
    if a.len() != b.len() {
        return Err(format!("{} values, expected {}", a.len(), b.len()));
    }
    let scale = b.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-6);
    let mut worst = 0f32;
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if !x.is_finite() || !y.is_finite() {
            return Err(format!("value {i}: GPU {x}, CPU {y}"));
        }
        worst = worst.max((x - y).abs() / scale);
    }
    Ok(worst)
}

fn flat(t: &Tensor) -> Result<Vec<f32>> {
    t.to_dtype(DType::F32)?.flatten_all()?.to_vec1()
}

fn tolerance(dtype: DType) -> f32 {
    if dtype == DType::F32 {
        1e-4
    } else {
        2e-2
    }
}

fn llama_config() -> llama::Config {
    llama::Config {
        hidden_size: 64,
        intermediate_size: 160,
        vocab_size: 256,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        num_key_value_heads: 2,
        use_flash_attn: false,
        rms_norm_eps: 1e-5,
        rope_theta: 10_000.0,
        bos_token_id: None,
        eos_token_id: None,
        rope_scaling: None,
        max_position_embeddings: 64,
        tie_word_embeddings: false,
    }
}

/// The logits of a prefill and of decode steps fed the prefill's greedy
/// tokens, concatenated.
fn llama_logits(dtype: DType, dev: &Device) -> Result<Vec<f32>> {
    let cfg = llama_config();
    let vb = seeded(|vb| llama::Llama::load(vb, &cfg).map(drop), dtype, dev)?;
    let model = llama::Llama::load(vb, &cfg)?;
    let mut cache = llama::Cache::new(true, dtype, &cfg, dev)?;
    let prompt: Vec<u32> = (0..12u32).map(|i| (i * 37 + 11) % 256).collect();
    let input = Tensor::new(prompt.as_slice(), dev)?.unsqueeze(0)?;
    let mut out = flat(&model.forward(&input, 0, &mut cache)?)?;
    // Fixed next tokens, so that a GPU and a CPU that differ in an argmax
    // still compare the same steps.
    for (pos, token) in [(12usize, 5u32), (13, 77), (14, 200)] {
        let input = Tensor::new(&[token], dev)?.unsqueeze(0)?;
        out.extend(flat(&model.forward(&input, pos, &mut cache)?)?);
    }
    Ok(out)
}

fn bert_config() -> bert::Config {
    bert::Config {
        vocab_size: 256,
        hidden_size: 64,
        num_hidden_layers: 2,
        num_attention_heads: 4,
        intermediate_size: 128,
        hidden_act: bert::HiddenAct::Gelu,
        hidden_dropout_prob: 0.0,
        max_position_embeddings: 64,
        type_vocab_size: 2,
        initializer_range: 0.02,
        layer_norm_eps: 1e-12,
        pad_token_id: 0,
        position_embedding_type: bert::PositionEmbeddingType::Absolute,
        use_cache: false,
        classifier_dropout: None,
        model_type: None,
    }
}

fn bert_output(dtype: DType, dev: &Device) -> Result<Vec<f32>> {
    let cfg = bert_config();
    let vb = seeded(|vb| bert::BertModel::load(vb, &cfg).map(drop), dtype, dev)?;
    let model = bert::BertModel::load(vb, &cfg)?;
    let (batch, tokens) = (2usize, 16usize);
    let n = batch * tokens;
    let ids: Vec<u32> = (0..n as u32).map(|i| (i * 131 + 7) % 256).collect();
    let types: Vec<u32> = (0..n as u32).map(|i| u32::from(i % 16 >= 8)).collect();
    // The second sequence is padded after 12 tokens.
    let mask: Vec<u32> = (0..n).map(|i| u32::from(i < n - 4)).collect();
    let shape = (batch, tokens);
    let ids = Tensor::from_vec(ids, shape, dev)?;
    let types = Tensor::from_vec(types, shape, dev)?;
    let mask = Tensor::from_vec(mask, shape, dev)?;
    flat(&model.forward(&ids, &types, Some(&mask))?)
}

/// One model compared: its outputs on the GPU and on the CPU.
fn model_check(
    name: &str,
    dtype: DType,
    gpu: &Device,
    run: fn(DType, &Device) -> Result<Vec<f32>>,
) -> std::result::Result<String, String> {
    let ours = run(dtype, gpu).map_err(|e| format!("on the GPU: {e}"))?;
    let cpu = run(dtype, &Device::Cpu).map_err(|e| format!("on the CPU: {e}"))?;
    let worst = relative_difference(&ours, &cpu)?;
    let tol = tolerance(dtype);
    let detail = format!(
        "{name} {dtype:?}: {} outputs, largest difference {worst:.2e} of the largest magnitude, tolerance {tol:.0e}",
        ours.len()
    );
    if worst <= tol {
        Ok(detail)
    } else {
        Err(detail)
    }
}

/// candle-core's quantized tests' bound on a dot product's error, per
/// element of the product.
const GGML_MAX_DOT_PRODUCT_ERROR: f32 = 0.02;

/// The GPU's and the CPU's quantized products quantize the same weights
/// and differ only in how the activations are quantized (q8_1 on the GPU,
/// the type's vec-dot type on the CPU): their difference per element stays
/// within a tenth of [`GGML_MAX_DOT_PRODUCT_ERROR`] (measured: at most
/// 4.5e-4), so a kernel wrong in part of its tile cannot hide under the
/// wider bound.
const GPU_CPU_ERROR: f32 = GGML_MAX_DOT_PRODUCT_ERROR / 10.0;

/// The quantized weights' rows: each check computes this many outputs per
/// batch row.
const QUANTIZED_ROWS: usize = 256;

/// `QMatMul` of one quantized type at one batch size, on the GPU and the
/// CPU, against the unquantized product.
fn quantized_check(dtype: GgmlDType, batch: usize, gpu: &Device) -> std::result::Result<String, String> {
    let (n, k) = (QUANTIZED_ROWS, 512usize);
    let mut rng = Rng(0x9a11 + batch as u64);
    let w = rng.vec(n * k, 1.0);
    let x = rng.vec(batch * k, 1.0);
    // Only the quantized product runs on the GPU (no BLAS there); the
    // unquantized one is the CPU's.
    let run = |dev: &Device| -> Result<Vec<f32>> {
        let w = Tensor::from_vec(w.clone(), (n, k), dev)?;
        let x = Tensor::from_vec(x.clone(), (batch, k), dev)?;
        let q = QMatMul::from_qtensor(QTensor::quantize(&w, dtype)?)?;
        flat(&q.forward(&x)?)
    };
    let exact = || -> Result<Vec<f32>> {
        let w = Tensor::from_vec(w.clone(), (n, k), &Device::Cpu)?;
        let x = Tensor::from_vec(x.clone(), (batch, k), &Device::Cpu)?;
        flat(&x.matmul(&w.t()?)?)
    };
    let ours = run(gpu).map_err(|e| format!("on the GPU: {e}"))?;
    let cpu = run(&Device::Cpu).map_err(|e| format!("on the CPU: {e}"))?;
    let exact = exact().map_err(|e| format!("on the CPU: {e}"))?;
    // The largest error per element of the dot product, and where it is.
    let per_element = |a: &[f32], b: &[f32]| -> std::result::Result<(f32, usize), String> {
        if a.len() != b.len() {
            return Err(format!("{} values, expected {}", a.len(), b.len()));
        }
        let mut worst = (0f32, 0);
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            if !x.is_finite() {
                return Err(format!("value {i} is {x}"));
            }
            let e = (x - y).abs() / k as f32;
            if e > worst.0 {
                worst = (e, i);
            }
        }
        Ok(worst)
    };
    let (vs_exact, _) = per_element(&ours, &exact)?;
    let (vs_cpu, at) = per_element(&ours, &cpu)?;
    let detail = format!(
        "{dtype:?} batch {batch}: {n}x{k}, error per element {vs_exact:.2e} against f32, {vs_cpu:.2e} against the CPU (row {}, column {}: GPU {}, CPU {}), bounds {GGML_MAX_DOT_PRODUCT_ERROR} and {GPU_CPU_ERROR}",
        at / n,
        at % n,
        ours[at],
        cpu[at]
    );
    if vs_exact <= GGML_MAX_DOT_PRODUCT_ERROR && vs_cpu <= GPU_CPU_ERROR {
        Ok(detail)
    } else {
        Err(detail)
    }
}

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut parts: Vec<String> = std::env::args().skip(1).collect();
    if parts.is_empty() {
        parts = ["llama", "bert", "quantized"].map(String::from).to_vec();
    }
    let gpu = Device::new_cuda(0)?;
    let (mut passed, mut failed) = (0, 0);
    let mut report = |name: String, r: std::result::Result<String, String>| match r {
        Ok(d) => {
            passed += 1;
            println!("emu_models: {name} ... ok ({d})");
        }
        Err(d) => {
            failed += 1;
            println!("emu_models: {name} ... FAILED ({d})");
        }
    };
    for part in &parts {
        match part.as_str() {
            "llama" | "bert" => {
                let (run, dtypes): (fn(DType, &Device) -> Result<Vec<f32>>, &[DType]) = if part == "llama" {
                    (llama_logits, &[DType::F32, DType::BF16])
                } else {
                    // f32 only: candle's BERT masks with f32::MIN, which
                    // bf16 rounds to -inf, and 0 * -inf is NaN on every
                    // backend, the CPU's too.
                    (bert_output, &[DType::F32])
                };
                for &dtype in dtypes {
                    let name = format!("{part} {}", dtype.as_str());
                    report(name, model_check(part, dtype, &gpu, run));
                }
            }
            "quantized" => {
                for dtype in [GgmlDType::Q4_0, GgmlDType::Q8_0, GgmlDType::Q4K, GgmlDType::Q6K] {
                    // 1 and 8: candle's vector kernels (mmvq); 16, 32 and
                    // 64: its tiled ones (mmq_gguf) at three tile widths.
                    for batch in [1, 8, 16, 32, 64] {
                        let name = format!("quantized {dtype:?} batch {batch}");
                        // The kernels' names, for the emulator's counters
                        // (HIP_EMU_COUNTERS) that the runner reads.
                        eprintln!("emu_models: begin {name}");
                        // The output elements, for the counters per output.
                        eprintln!("emu_models: outputs {}", QUANTIZED_ROWS * batch);
                        report(name.clone(), quantized_check(dtype, batch, &gpu));
                        eprintln!("emu_models: end {name}");
                    }
                }
            }
            other => return Err(format!("{other}: expected llama, bert or quantized").into()),
        }
    }
    println!("emu_models: {passed} passed, {failed} failed");
    if failed > 0 {
        return Err(format!("{failed} checks failed").into());
    }
    Ok(())
}
