//! `mistral-on-hip`: runs a local model folder through mistral.rs 0.8.1's
//! Rust API (issue 36, item 3), to compare this repository's drop-ins
//! (cudarc = cuda-compat, cudaforge) with real cudarc on one GPU: the same
//! folder, written by `seeded-model` (benches/mistral/seeded-model), run by
//! a build through each; the generated tokens must be equal, and prefill and
//! decode tokens/s through ours at least 0.97 of real cudarc's.
//!
//! ```text
//! mistral-on-hip run DIR [--prompt-len N] [--max-tokens N] [--rounds R]
//!                        [--warmup W] [--no-isq] [--no-paged-attn] [--log] [--cpu]
//! ```
//!
//! What it does:
//! - Loads DIR with `TextModelBuilder` (the architecture from config.json),
//!   bf16, in-situ quantization Q4K (`--no-isq`: none), PagedAttention with
//!   block size 32 and a KV cache for the prompt and the generated tokens
//!   (`--no-paged-attn`: none), on mistral.rs's default device, the first
//!   CUDA device (CUDA_VISIBLE_DEVICES picks it), prefix cache off (every
//!   round runs its prefill), one sequence at a time. `--cpu`: on the CPU,
//!   in f32 (candle's CPU matmul has no bf16), without paged attention: a
//!   smoke test where no GPU is (mistral.rs's CUDA build otherwise stops
//!   when it finds no device).
//! - Offline: DIR must be a folder with config.json, tokenizer.json and
//!   model.safetensors; mistral.rs then lists and reads it from the disk
//!   (pipeline/hf.rs: a model id that exists as a path is never asked of
//!   the Hub). HF_HUB_OFFLINE=1 is set as well, and no token is read
//!   (TokenSource::None). mistral.rs still creates an empty
//!   $HF_HOME/hub (default ~/.cache/huggingface/hub).
//! - The prompt: token ids (a completion request of raw tokens, so no chat
//!   template and no tokenizer choice in between): `<s>`, then N-1 words of
//!   the vocabulary in a fixed order (printed as `prompt: ...`).
//! - Greedy: temperature 0 and top-k 1, so mistral.rs takes the argmax of
//!   the logits (without a temperature it would sample at temperature 1).
//! - EOS: mistral.rs stops a sequence at its EOS tokens; TextModelBuilder
//!   has no "ignore EOS" setting (and SamplingParams::logits_bias is not
//!   read in 0.8.1), so a
//!   logits processor of ours sets the logits of the special tokens (unk,
//!   BOS, EOS) to -inf: the model never picks them, and every round
//!   generates exactly --max-tokens tokens (max_len).
//! - Timing: the same logits processor notes when it is called, which is
//!   right after each step's logits reached the host (mistral.rs copies them
//!   to the CPU before it samples). prefill_tok_s = prompt tokens / (first
//!   call - request sent); decode_tok_s = (generated - 1) / (last call -
//!   first call). mistral.rs's own figures (usage, whole milliseconds) are
//!   printed beside them.
//! - Warm-up rounds (default 2), then --rounds measured rounds (default 5);
//!   every round must generate the same tokens.
//!
//! Output, one `key: value` line each (for scripts):
//! ```text
//! model: DIR
//! settings: device gpu 0, isq Q4K, paged_attn on, dtype bf16, prompt_len N, ...
//! prompt: <s> w.. w..
//! load_s: S
//! warmup: K prefill_tok_s X decode_tok_s Y usage_prefill_tok_s A usage_decode_tok_s B
//! round: K prefill_tok_s X decode_tok_s Y usage_prefill_tok_s A usage_decode_tok_s B
//! tokens: ID ID ...
//! text: w.. w..
//! prefill_tok_s: X      (median of the measured rounds)
//! decode_tok_s: Y       (median)
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, ensure, Context, Result};
use mistralrs::{
    paged_attn_supported, Constraint, CustomLogitsProcessor, DType, IsqType, MemoryGpuConfig,
    ModelDType, NormalRequest, PagedAttentionMetaBuilder, Request, RequestMessage, Response,
    SamplingParams, Tensor, TextModelBuilder, TokenSource,
};

const USAGE: &str = "usage: mistral-on-hip run DIR [--prompt-len N] [--max-tokens N] [--rounds R] [--warmup W] [--no-isq] [--no-paged-attn] [--log] [--cpu]";

/// The command line of `run`.
#[derive(Clone, Debug, PartialEq)]
struct Options {
    dir: PathBuf,
    prompt_len: usize,
    max_tokens: usize,
    rounds: usize,
    warmup: usize,
    isq: bool,
    paged_attn: bool,
    log: bool,
    cpu: bool,
}

fn parse_args(args: &[String]) -> Result<Options> {
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("run") => {}
        Some(other) => bail!("unknown command {other:?}\n{USAGE}"),
        None => bail!("no command\n{USAGE}"),
    }
    let mut o = Options {
        dir: PathBuf::new(),
        prompt_len: 128,
        max_tokens: 128,
        rounds: 5,
        warmup: 2,
        isq: true,
        paged_attn: true,
        log: false,
        cpu: false,
    };
    let mut dir = None;
    while let Some(a) = it.next() {
        let mut number = |name: &str| -> Result<usize> {
            let v = it.next().with_context(|| format!("{name} wants a value"))?;
            v.parse()
                .with_context(|| format!("{name} {v}: not a non-negative integer"))
        };
        match a.as_str() {
            "--prompt-len" => o.prompt_len = number(a)?,
            "--max-tokens" => o.max_tokens = number(a)?,
            "--rounds" => o.rounds = number(a)?,
            "--warmup" => o.warmup = number(a)?,
            "--no-isq" => o.isq = false,
            "--no-paged-attn" => o.paged_attn = false,
            "--log" => o.log = true,
            "--cpu" => o.cpu = true,
            s if s.starts_with('-') => bail!("unknown option {s}\n{USAGE}"),
            s if dir.is_none() => dir = Some(PathBuf::from(s)),
            s => bail!("one DIR only (also given: {s})\n{USAGE}"),
        }
    }
    o.dir = dir.with_context(|| format!("no DIR given\n{USAGE}"))?;
    ensure!(
        o.prompt_len >= 2,
        "--prompt-len must be at least 2 (<s> and a word)"
    );
    ensure!(
        o.max_tokens >= 2,
        "--max-tokens must be at least 2 (decode is timed from the first token to the last)"
    );
    ensure!(o.rounds >= 1, "--rounds must be at least 1");
    Ok(o)
}

/// What the runner reads of the model folder itself.
struct ModelInfo {
    /// Absolute, so that mistral.rs sees a path that exists.
    dir: PathBuf,
    vocab_size: usize,
    max_position_embeddings: usize,
    /// Token text of each id (tokenizer.json's WordLevel/BPE vocabulary and
    /// its added tokens), as [`word`] reads it.
    text_of: Vec<Option<String>>,
    /// The ids the model must not generate: unk, BOS, EOS and every added
    /// special token.
    special: Vec<u32>,
    bos: u32,
    /// The bytes one token takes in the KV cache, in bf16: keys and values
    /// of every layer's KV heads.
    kv_bytes_per_token: usize,
}

fn read_json(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).with_context(|| {
        format!(
            "reading {} (write the folder with seeded-model)",
            path.display()
        )
    })?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
}

fn model_info(dir: &Path) -> Result<ModelInfo> {
    let dir = dir
        .canonicalize()
        .with_context(|| format!("model folder {}", dir.display()))?;
    ensure!(dir.is_dir(), "{} is not a folder", dir.display());
    let weights = dir.join("model.safetensors");
    ensure!(
        weights.is_file(),
        "{}: no such file (mistral.rs would look for the model on the Hugging Face Hub)",
        weights.display()
    );
    let cfg = read_json(&dir.join("config.json"))?;
    let field = |k: &str| -> Result<u64> {
        cfg[k]
            .as_u64()
            .with_context(|| format!("config.json: no integer {k}"))
    };
    let vocab_size = field("vocab_size")? as usize;
    let max_position_embeddings = field("max_position_embeddings")? as usize;
    let bos = field("bos_token_id")? as u32;
    let eos = field("eos_token_id")? as u32;
    let layers = field("num_hidden_layers")? as usize;
    let heads = field("num_attention_heads")? as usize;
    let kv_heads = field("num_key_value_heads")? as usize;
    let head_dim = match cfg["head_dim"].as_u64() {
        Some(d) => d as usize,
        None => field("hidden_size")? as usize / heads.max(1),
    };
    let kv_bytes_per_token = 2 * layers * 2 * kv_heads * head_dim;

    let tok = read_json(&dir.join("tokenizer.json"))?;
    let mut text_of = vec![None; vocab_size];
    let mut put = |word: &str, id: u64| -> Result<()> {
        let slot = text_of.get_mut(id as usize).with_context(|| {
            format!("tokenizer.json: id {id} of {word:?} >= vocab_size {vocab_size}")
        })?;
        *slot = Some(self::word(word));
        Ok(())
    };
    let vocab = tok["model"]["vocab"]
        .as_object()
        .context("tokenizer.json: no model.vocab object")?;
    for (word, id) in vocab {
        put(
            word,
            id.as_u64()
                .context("tokenizer.json: a vocab id is not an integer")?,
        )?;
    }
    let mut special = vec![bos, eos];
    if let Some(unk) = tok["model"]["unk_token"]
        .as_str()
        .and_then(|u| vocab.get(u))
    {
        special.extend(unk.as_u64().map(|x| x as u32));
    }
    for t in tok["added_tokens"].as_array().into_iter().flatten() {
        let (Some(id), Some(content)) = (t["id"].as_u64(), t["content"].as_str()) else {
            bail!("tokenizer.json: an added token without id or content: {t}");
        };
        put(content, id)?;
        if t["special"].as_bool() == Some(true) {
            special.push(id as u32);
        }
    }
    special.sort_unstable();
    special.dedup();
    Ok(ModelInfo {
        dir,
        vocab_size,
        max_position_embeddings,
        text_of,
        special,
        bos,
        kv_bytes_per_token,
    })
}

/// The KV cache to ask mistral.rs for, in MiB: room for `tokens` tokens
/// (the prompt and the generated ones), in blocks of 32, rounded up to a
/// whole MiB. Not `MemoryGpuConfig::ContextSize`: mistral.rs 0.8.1 turns a
/// context into MiB rounding down (paged_attention/mod.rs), which is 0 for
/// a model this small ("Num GPU blocks is 0"), and too few blocks for the
/// sequence otherwise (the engine then drops the request unanswered).
fn kv_cache_mib(tokens: usize, kv_bytes_per_token: usize) -> usize {
    (tokens.div_ceil(32) * 32 * kv_bytes_per_token).div_ceil(1 << 20)
}

/// A vocabulary entry as text: SentencePiece's word-start mark `▁` is a
/// space, and a token decoded alone has no leading or trailing space
/// (Llama's decoder strips one).
fn word(token: &str) -> String {
    token.replace('\u{2581}', " ").trim().to_string()
}

/// The prompt: BOS, then `len - 1` ordinary tokens, id 3 + (17 k mod the
/// number of ordinary ids) in order of the ordinary ids (a fixed walk over
/// the vocabulary, no randomness).
fn prompt_ids(info: &ModelInfo, len: usize) -> Result<Vec<u32>> {
    let ordinary: Vec<u32> = (0..info.vocab_size as u32)
        .filter(|id| !info.special.contains(id) && info.text_of[*id as usize].is_some())
        .collect();
    ensure!(!ordinary.is_empty(), "the vocabulary has no ordinary token");
    let mut ids = vec![info.bos];
    ids.extend((0..len - 1).map(|k| ordinary[(17 * k + 5) % ordinary.len()]));
    Ok(ids)
}

/// One round's notes, filled by [`Recorder`].
#[derive(Default)]
struct Notes {
    calls: Vec<Instant>,
    /// The context of the last call: the prompt and every generated token
    /// but the last.
    last_context: Vec<u32>,
}

/// The logits processor: masks the special tokens (EOS never ends a round
/// early) and notes the time of every sampling step.
struct Recorder {
    masked: Vec<u32>,
    notes: Arc<Mutex<Notes>>,
}

impl CustomLogitsProcessor for Recorder {
    fn apply(&self, logits: &Tensor, context: &[u32]) -> mistralrs::Result<Tensor> {
        let now = Instant::now();
        if let Ok(mut n) = self.notes.lock() {
            n.calls.push(now);
            n.last_context.clear();
            n.last_context.extend_from_slice(context);
        }
        let dtype = logits.dtype();
        let mut v: Vec<f32> = logits.to_dtype(DType::F32)?.to_vec1()?;
        for &id in &self.masked {
            if let Some(x) = v.get_mut(id as usize) {
                *x = f32::NEG_INFINITY;
            }
        }
        Tensor::from_vec(v, logits.shape().clone(), logits.device())?.to_dtype(dtype)
    }
}

/// One round's result.
struct Round {
    tokens: Vec<u32>,
    text: String,
    prefill_tok_s: f64,
    decode_tok_s: f64,
    usage_prefill_tok_s: f32,
    usage_decode_tok_s: f32,
}

fn per_s(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64().max(1e-9)
}

async fn round(
    model: &mistralrs::Model,
    info: &ModelInfo,
    prompt: &[u32],
    max_tokens: usize,
) -> Result<Round> {
    let notes = Arc::new(Mutex::new(Notes::default()));
    let recorder = Recorder {
        masked: info.special.clone(),
        notes: notes.clone(),
    };
    // Greedy: mistral.rs samples at temperature 1 when none is given
    // (engine/add_request.rs); below 1e-7 it takes the argmax of the logits
    // (Sampler::new, sample_argmax). top_k 1 as well, should that change.
    let mut sampling = SamplingParams::deterministic();
    sampling.temperature = Some(0.0);
    sampling.max_len = Some(max_tokens);
    let (tx, mut rx) = tokio::sync::mpsc::channel(1);
    let request = Request::Normal(Box::new(NormalRequest {
        messages: RequestMessage::CompletionTokens(prompt.to_vec()),
        sampling_params: sampling,
        response: tx,
        return_logprobs: true,
        is_streaming: false,
        id: 0,
        constraint: Constraint::None,
        suffix: None,
        tools: None,
        tool_choice: None,
        logits_processors: Some(vec![Arc::new(recorder) as Arc<dyn CustomLogitsProcessor>]),
        return_raw_logits: false,
        web_search_options: None,
        model_id: None,
        truncate_sequence: false,
    }));
    let sender = model
        .inner()
        .get_sender(None)
        .map_err(|e| anyhow!("mistral.rs has no model to send to: {e:?}"))?;
    let sent = Instant::now();
    sender
        .send(request)
        .await
        .map_err(|_| anyhow!("mistral.rs's engine stopped"))?;
    let response = match rx.recv().await {
        Some(Response::CompletionDone(r)) => r,
        Some(Response::CompletionModelError(e, _)) => bail!("mistral.rs: model error: {e}"),
        Some(Response::InternalError(e)) => bail!("mistral.rs: internal error: {e}"),
        Some(Response::ValidationError(e)) => bail!("mistral.rs: request refused: {e}"),
        Some(_) => bail!("mistral.rs answered a completion request with another kind of response"),
        None => bail!("mistral.rs closed the response channel"),
    };
    let choice = response
        .choices
        .first()
        .context("mistral.rs's response has no choice")?;
    // Every generated token's text, from the logprobs (each is the
    // tokenizer's decoding of that one id), mapped back to ids.
    let by_text: HashMap<&str, u32> = info
        .text_of
        .iter()
        .enumerate()
        .filter_map(|(id, t)| Some((t.as_deref()?, id as u32)))
        .collect();
    let tokens = choice
        .logprobs
        .as_ref()
        .and_then(|l| l.content.as_ref())
        .context("mistral.rs's response has no logprobs")?
        .iter()
        .map(|l| {
            by_text
                .get(word(&l.token).as_str())
                .copied()
                .with_context(|| {
                    format!(
                        "generated token text {:?} is not in the vocabulary",
                        l.token
                    )
                })
        })
        .collect::<Result<Vec<u32>>>()?;
    ensure!(
        tokens.len() == max_tokens,
        "generated {} tokens, not {max_tokens} (finish reason {:?})",
        tokens.len(),
        choice.finish_reason
    );
    let notes = notes
        .lock()
        .map_err(|_| anyhow!("the logits processor panicked"))?;
    ensure!(
        notes.calls.len() == max_tokens,
        "the logits processor ran {} times for {max_tokens} tokens",
        notes.calls.len()
    );
    // The processor saw the prompt and the tokens before the last: they
    // must be those of the logprobs.
    let mut seen = prompt.to_vec();
    seen.extend_from_slice(&tokens[..max_tokens - 1]);
    ensure!(
        notes.last_context == seen,
        "the tokens of the logprobs differ from the context the logits processor saw"
    );
    let first = notes.calls[0];
    let last = notes.calls[max_tokens - 1];
    Ok(Round {
        tokens,
        text: choice.text.clone(),
        prefill_tok_s: per_s(prompt.len(), first - sent),
        decode_tok_s: per_s(max_tokens - 1, last - first),
        usage_prefill_tok_s: response.usage.avg_prompt_tok_per_sec,
        usage_decode_tok_s: response.usage.avg_compl_tok_per_sec,
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

fn join<T: ToString>(xs: &[T]) -> String {
    xs.iter().map(T::to_string).collect::<Vec<_>>().join(" ")
}

async fn run(o: Options) -> Result<()> {
    let info = model_info(&o.dir)?;
    let needed = o.prompt_len + o.max_tokens;
    ensure!(
        needed <= info.max_position_embeddings,
        "--prompt-len + --max-tokens = {needed} is more than the model's max_position_embeddings {}",
        info.max_position_embeddings
    );
    let prompt = prompt_ids(&info, o.prompt_len)?;
    // mistral.rs: "Do not use PagedAttention with [the CPU]".
    let paged_wanted = o.paged_attn && !o.cpu;
    let paged = paged_wanted && paged_attn_supported();
    let dtype = if o.cpu {
        ModelDType::F32
    } else {
        ModelDType::BF16
    };
    println!("model: {}", info.dir.display());
    println!(
        "settings: device {}, isq {}, paged_attn {}, dtype {dtype}, prompt_len {}, max_tokens {}, warmup {}, rounds {}",
        if o.cpu { "cpu" } else { "gpu 0" },
        if o.isq { "Q4K" } else { "none" },
        if paged { "on" } else { "off" },
        o.prompt_len,
        o.max_tokens,
        o.warmup,
        o.rounds
    );
    ensure!(
        paged || !paged_wanted,
        "PagedAttention is not supported by this build of mistral.rs (not CUDA?); --no-paged-attn runs without it"
    );
    println!(
        "prompt: {}",
        join(
            &prompt
                .iter()
                .map(|&id| info.text_of[id as usize].clone().unwrap_or_default())
                .collect::<Vec<_>>()
        )
    );

    let mut builder = TextModelBuilder::new(info.dir.to_string_lossy())
        .with_token_source(TokenSource::None)
        .with_dtype(dtype)
        .with_prefix_cache_n(None)
        .with_max_num_seqs(1);
    if o.isq {
        builder = builder.with_isq(IsqType::Q4K);
    }
    if o.cpu {
        builder = builder.with_force_cpu();
    }
    if paged {
        builder = builder.with_paged_attn(
            PagedAttentionMetaBuilder::default()
                .with_block_size(32)
                .with_gpu_memory(MemoryGpuConfig::MbAmount(kv_cache_mib(
                    needed,
                    info.kv_bytes_per_token,
                )))
                .build()?,
        );
    }
    if o.log {
        builder = builder.with_logging();
    }
    let load = Instant::now();
    let model = builder
        .build()
        .await
        .with_context(|| format!("mistral.rs could not load {}", info.dir.display()))?;
    println!("load_s: {:.3}", load.elapsed().as_secs_f64());

    let mut reference: Option<Round> = None;
    let (mut prefill, mut decode) = (Vec::new(), Vec::new());
    for k in 0..o.warmup + o.rounds {
        let r = round(&model, &info, &prompt, o.max_tokens).await?;
        let kind = if k < o.warmup { "warmup" } else { "round" };
        println!(
            "{kind}: {} prefill_tok_s {:.1} decode_tok_s {:.1} usage_prefill_tok_s {:.1} usage_decode_tok_s {:.1}",
            if k < o.warmup { k } else { k - o.warmup },
            r.prefill_tok_s,
            r.decode_tok_s,
            r.usage_prefill_tok_s,
            r.usage_decode_tok_s
        );
        if let Some(first) = &reference {
            ensure!(
                first.tokens == r.tokens,
                "round {k} generated other tokens than round 0:\n  {}\n  {}",
                join(&first.tokens),
                join(&r.tokens)
            );
        }
        if k >= o.warmup {
            prefill.push(r.prefill_tok_s);
            decode.push(r.decode_tok_s);
        }
        if reference.is_none() {
            reference = Some(r);
        }
    }
    let r = reference.context("no round ran")?;
    println!("tokens: {}", join(&r.tokens));
    println!("text: {}", r.text);
    println!("prefill_tok_s: {:.1}", median(prefill));
    println!("decode_tok_s: {:.1}", median(decode));
    Ok(())
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if matches!(args.first().map(String::as_str), Some("-h" | "--help")) {
        println!("{USAGE}");
        return Ok(());
    }
    let options = parse_args(&args)?;
    // Before any thread starts: mistral.rs never needs the Hub for a local
    // folder; this makes sure nothing of it tries.
    if std::env::var_os("HF_HUB_OFFLINE").is_none() {
        std::env::set_var("HF_HUB_OFFLINE", "1");
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting tokio")?
        .block_on(run(options))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn arguments() {
        let o = parse_args(&s(&["run", "m"])).unwrap();
        assert_eq!(
            (o.dir.to_str(), o.prompt_len, o.max_tokens),
            (Some("m"), 128, 128)
        );
        assert!(o.isq && o.paged_attn && !o.log && !o.cpu);
        let o = parse_args(&s(&[
            "run",
            "--prompt-len",
            "512",
            "m",
            "--max-tokens",
            "64",
            "--rounds",
            "3",
            "--no-isq",
            "--no-paged-attn",
            "--warmup",
            "0",
            "--cpu",
        ]))
        .unwrap();
        assert_eq!(
            (o.prompt_len, o.max_tokens, o.rounds, o.warmup),
            (512, 64, 3, 0)
        );
        assert!(!o.isq && !o.paged_attn && o.cpu);
        for bad in [
            &["run"][..],
            &["bench", "m"],
            &["run", "m", "n"],
            &["run", "m", "--rounds"],
            &["run", "m", "--rounds", "x"],
            &["run", "m", "--rounds", "0"],
            &["run", "m", "--max-tokens", "1"],
            &["run", "m", "--bogus"],
        ] {
            assert!(parse_args(&s(bad)).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn words() {
        assert_eq!(word("\u{2581}w17"), "w17");
        assert_eq!(word(" w17"), "w17");
        assert_eq!(word("</s>"), "</s>");
    }

    #[test]
    fn medians() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
    }

    #[test]
    fn prompt_walks_the_ordinary_tokens() {
        let info = ModelInfo {
            dir: PathBuf::new(),
            vocab_size: 8,
            max_position_embeddings: 64,
            text_of: (0..8).map(|i| Some(format!("t{i}"))).collect(),
            special: vec![0, 1, 2],
            bos: 1,
            kv_bytes_per_token: 4096,
        };
        // 768 tokens of this seeded model (4 layers, 2 KV heads of 64,
        // bf16: 2 KiB a token) need 1.5 MiB: 2, never 0 or 1.
        assert_eq!(kv_cache_mib(768, 2048), 2);
        assert_eq!(kv_cache_mib(80, 2048), 1);
        assert!(kv_cache_mib(770, 2048) * (1 << 20) >= 800 * 2048);
        let p = prompt_ids(&info, 6).unwrap();
        assert_eq!(p[0], 1);
        assert_eq!(p.len(), 6);
        assert!(p[1..].iter().all(|id| *id >= 3));
        assert_eq!(p, prompt_ids(&info, 6).unwrap());
    }
}
