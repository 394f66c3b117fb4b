//! A tiny Mistral-architecture language model with seeded random weights,
//! written in the layout mistral.rs loads from a local folder (issue 36,
//! item 3): nothing is downloaded, the same seed gives the same bytes.
//!
//! The folder holds:
//! - `config.json`: `MistralForCausalLM` (mistral.rs's auto-loader picks its
//!   Mistral loader from `architectures`), with the sizes of [`DIMS`];
//! - `model.safetensors`: every weight the Mistral model of mistralrs-core
//!   0.8.1 loads (see [`tensor_specs`]), bf16, drawn from [`SplitMix64`]
//!   seeded by the seed and the tensor's name;
//! - `tokenizer.json`: a Hugging Face `tokenizers` WordLevel tokenizer over
//!   [`vocab`] (`<unk>`, `<s>`, `</s>`, then the words `w3` ... `w1023`,
//!   stored as `▁w3` ...), in the SentencePiece style of Llama and Mistral's
//!   own tokenizers: a Metaspace pre-tokenizer (a space becomes `▁` and
//!   starts a word), `<s>` put in front of every encoding, and Llama's
//!   decoder (`▁` back to a space, byte fallback, fuse, strip the first
//!   space). mistral.rs wants that decoder: its grammar support
//!   (toktrie_hf_tokenizers) refuses a tokenizer whose decoder is neither
//!   ByteLevel nor a sequence with ByteFallback;
//! - `tokenizer_config.json`: the special tokens and a minimal chat template
//!   (mistral.rs reads its BOS/EOS from there);
//! - `generation_config.json`: BOS/EOS ids, greedy.
//!
//! Every matrix dimension is a multiple of 256, the block of the k-quants,
//! so mistral.rs's in-situ quantization (ISQ, e.g. Q4K) quantizes every
//! linear layer. Weights are scaled like an initializer (standard deviation
//! 1/sqrt(fan_in), embeddings 1, norms about 1), so the logits spread
//! (standard deviation about 1) and greedy decoding is not decided by ties.
//!
//! The JSON files are written from structs, so their key order does not
//! depend on serde_json's `preserve_order` feature (which mistral.rs turns
//! on in the workspace build).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use half::bf16;
use safetensors::{Dtype, View};
use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

/// The errors of this crate: a message with its context.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// The model's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub intermediate_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub num_key_value_heads: usize,
    pub head_dim: usize,
    pub max_position_embeddings: usize,
}

/// The sizes written: about 4.4 M parameters, 8.9 MB in bf16. hidden 256 =
/// 4 heads of 64 (a head size every attention kernel of mistral.rs has,
/// paged attention included), 2 key/value heads (grouped-query attention),
/// intermediate 1024, 4 layers, vocabulary 1024; all multiples of 256 (Q4K's
/// block) where a linear layer reads them.
pub const DIMS: Dims = Dims {
    vocab_size: 1024,
    hidden_size: 256,
    intermediate_size: 1024,
    num_hidden_layers: 4,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    head_dim: 64,
    max_position_embeddings: 4096,
};

/// The unknown token, its id.
pub const UNK: &str = "<unk>";
pub const UNK_ID: u32 = 0;
/// The beginning-of-sequence token, its id.
pub const BOS: &str = "<s>";
pub const BOS_ID: u32 = 1;
/// The end-of-sequence token, its id.
pub const EOS: &str = "</s>";
pub const EOS_ID: u32 = 2;
/// The number of special tokens (ids 0, 1, 2); words follow.
pub const SPECIAL_TOKENS: u32 = 3;

/// The files of a model folder, in the order they are written.
pub const FILES: [&str; 5] = [
    "config.json",
    "generation_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "model.safetensors",
];

/// SentencePiece's word-start mark, which stands for a space.
pub const SPACE_MARK: char = '\u{2581}';

/// How token `id` reads in text: a special token, or the word `w<id>`
/// (what the tokenizer decodes `id` alone to).
pub fn token_word(id: u32) -> String {
    match id {
        UNK_ID => UNK.to_string(),
        BOS_ID => BOS.to_string(),
        EOS_ID => EOS.to_string(),
        _ => format!("w{id}"),
    }
}

/// Token `id` in the vocabulary: a special token, or `▁w<id>` (a word after
/// a space).
pub fn token_text(id: u32) -> String {
    if id < SPECIAL_TOKENS {
        token_word(id)
    } else {
        format!("{SPACE_MARK}{}", token_word(id))
    }
}

/// The vocabulary, indexed by id.
pub fn vocab(dims: &Dims) -> Vec<String> {
    (0..dims.vocab_size as u32).map(token_text).collect()
}

/// splitmix64 (Steele, Lea and Flood's generator): the weights' only source
/// of randomness, so they are the same on every machine and build.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1), 53 bits.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// About standard normal: the sum of 12 uniforms less 6 (Irwin-Hall),
    /// in [-6, 6); additions only, so exact on every machine.
    pub fn next_normal(&mut self) -> f64 {
        (0..12).map(|_| self.next_f64()).sum::<f64>() - 6.0
    }
}

/// FNV-1a of a tensor's name: mixed into the seed, so a tensor's values do
/// not depend on the order the tensors are drawn in.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// How a tensor's values are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Init {
    /// Normal, mean 0, this standard deviation.
    Normal(f64),
    /// Normal, mean 1, this standard deviation (RMSNorm weights).
    AroundOne(f64),
}

/// One tensor of the safetensors file.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorSpec {
    pub name: String,
    pub shape: Vec<usize>,
    pub init: Init,
}

/// The tensors mistralrs-core 0.8.1's Mistral model (models/mistral.rs)
/// loads, with untied embeddings: `model.embed_tokens`, per layer
/// `input_layernorm`, `self_attn.{q,k,v,o}_proj` (no biases),
/// `post_attention_layernorm`, `mlp.{gate,up,down}_proj`, then `model.norm`
/// and `lm_head`. Linear weights are `[out, in]`.
pub fn tensor_specs(dims: &Dims) -> Vec<TensorSpec> {
    let h = dims.hidden_size;
    let q = dims.num_attention_heads * dims.head_dim;
    let kv = dims.num_key_value_heads * dims.head_dim;
    let i = dims.intermediate_size;
    let linear = |name: String, out: usize, inp: usize| TensorSpec {
        name,
        shape: vec![out, inp],
        init: Init::Normal(1.0 / (inp as f64).sqrt()),
    };
    let norm = |name: String| TensorSpec {
        name,
        shape: vec![h],
        init: Init::AroundOne(0.05),
    };
    let mut specs = vec![TensorSpec {
        name: "model.embed_tokens.weight".into(),
        shape: vec![dims.vocab_size, h],
        init: Init::Normal(1.0),
    }];
    for l in 0..dims.num_hidden_layers {
        let p = format!("model.layers.{l}");
        specs.push(norm(format!("{p}.input_layernorm.weight")));
        specs.push(linear(format!("{p}.self_attn.q_proj.weight"), q, h));
        specs.push(linear(format!("{p}.self_attn.k_proj.weight"), kv, h));
        specs.push(linear(format!("{p}.self_attn.v_proj.weight"), kv, h));
        specs.push(linear(format!("{p}.self_attn.o_proj.weight"), h, q));
        specs.push(norm(format!("{p}.post_attention_layernorm.weight")));
        specs.push(linear(format!("{p}.mlp.gate_proj.weight"), i, h));
        specs.push(linear(format!("{p}.mlp.up_proj.weight"), i, h));
        specs.push(linear(format!("{p}.mlp.down_proj.weight"), h, i));
    }
    specs.push(norm("model.norm.weight".into()));
    specs.push(linear("lm_head.weight".into(), dims.vocab_size, h));
    specs
}

/// A tensor's values, bf16 little-endian bytes.
fn draw(spec: &TensorSpec, seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed ^ name_hash(&spec.name));
    let n: usize = spec.shape.iter().product();
    let mut bytes = Vec::with_capacity(2 * n);
    for _ in 0..n {
        let x = match spec.init {
            Init::Normal(std) => std * rng.next_normal(),
            Init::AroundOne(std) => 1.0 + std * rng.next_normal(),
        };
        bytes.extend_from_slice(&bf16::from_f64(x).to_le_bytes());
    }
    bytes
}

struct Bf16Tensor<'a> {
    shape: &'a [usize],
    data: &'a [u8],
}

impl View for &Bf16Tensor<'_> {
    fn dtype(&self) -> Dtype {
        Dtype::BF16
    }
    fn shape(&self) -> &[usize] {
        self.shape
    }
    fn data(&self) -> std::borrow::Cow<'_, [u8]> {
        self.data.into()
    }
    fn data_len(&self) -> usize {
        self.data.len()
    }
}

/// `model.safetensors`'s bytes.
pub fn safetensors_bytes(dims: &Dims, seed: u64) -> Result<Vec<u8>, Error> {
    let specs = tensor_specs(dims);
    let data: Vec<Vec<u8>> = specs.iter().map(|s| draw(s, seed)).collect();
    let tensors: Vec<Bf16Tensor> = specs
        .iter()
        .zip(&data)
        .map(|(s, d)| Bf16Tensor {
            shape: &s.shape,
            data: d,
        })
        .collect();
    let metadata = HashMap::from([("format".to_string(), "pt".to_string())]);
    safetensors::serialize(
        specs.iter().map(|s| s.name.as_str()).zip(tensors.iter()),
        Some(metadata),
    )
    .map_err(|e| Error(format!("serializing the weights: {e}")))
}

/// Where the weights came from, kept in config.json (mistral.rs ignores it).
#[derive(Serialize)]
struct Origin {
    writer: &'static str,
    seed: u64,
}

#[derive(Serialize)]
struct ConfigJson {
    architectures: [&'static str; 1],
    model_type: &'static str,
    vocab_size: usize,
    hidden_size: usize,
    intermediate_size: usize,
    num_hidden_layers: usize,
    num_attention_heads: usize,
    num_key_value_heads: usize,
    head_dim: usize,
    hidden_act: &'static str,
    max_position_embeddings: usize,
    rms_norm_eps: f64,
    rope_theta: f64,
    sliding_window: Option<usize>,
    tie_word_embeddings: bool,
    bos_token_id: u32,
    eos_token_id: u32,
    torch_dtype: &'static str,
    seeded_model: Origin,
}

/// `config.json`: what mistralrs-core's Mistral `Config` reads (no sliding
/// window, untied embeddings), and the usual Hugging Face fields.
pub fn config_json(dims: &Dims, seed: u64) -> String {
    to_json(&ConfigJson {
        architectures: ["MistralForCausalLM"],
        model_type: "mistral",
        vocab_size: dims.vocab_size,
        hidden_size: dims.hidden_size,
        intermediate_size: dims.intermediate_size,
        num_hidden_layers: dims.num_hidden_layers,
        num_attention_heads: dims.num_attention_heads,
        num_key_value_heads: dims.num_key_value_heads,
        head_dim: dims.head_dim,
        hidden_act: "silu",
        max_position_embeddings: dims.max_position_embeddings,
        rms_norm_eps: 1e-5,
        rope_theta: 10000.0,
        sliding_window: None,
        tie_word_embeddings: false,
        bos_token_id: BOS_ID,
        eos_token_id: EOS_ID,
        torch_dtype: "bfloat16",
        seeded_model: Origin {
            writer: concat!("seeded-model ", env!("CARGO_PKG_VERSION")),
            seed,
        },
    })
}

#[derive(Serialize)]
struct GenerationConfigJson {
    bos_token_id: u32,
    eos_token_id: u32,
    do_sample: bool,
}

/// `generation_config.json`: BOS/EOS ids (mistral.rs adds this EOS to its
/// stop tokens) and greedy decoding.
pub fn generation_config_json() -> String {
    to_json(&GenerationConfigJson {
        bos_token_id: BOS_ID,
        eos_token_id: EOS_ID,
        do_sample: false,
    })
}

#[derive(Serialize)]
struct AddedToken {
    id: u32,
    content: &'static str,
    single_word: bool,
    lstrip: bool,
    rstrip: bool,
    normalized: bool,
    special: bool,
}

#[derive(Serialize)]
struct Metaspace {
    #[serde(rename = "type")]
    kind: &'static str,
    replacement: char,
    prepend_scheme: &'static str,
    split: bool,
}

#[derive(Serialize)]
enum Pattern {
    String(&'static str),
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum Decoder {
    Replace {
        pattern: Pattern,
        content: &'static str,
    },
    ByteFallback,
    Fuse,
    Strip {
        content: char,
        start: usize,
        stop: usize,
    },
}

#[derive(Serialize)]
struct DecoderSequence {
    #[serde(rename = "type")]
    kind: &'static str,
    decoders: [Decoder; 4],
}

#[derive(Serialize)]
enum Piece {
    SpecialToken { id: &'static str, type_id: u32 },
    Sequence { id: &'static str, type_id: u32 },
}

#[derive(Serialize)]
struct SpecialTokenIds {
    id: &'static str,
    ids: [u32; 1],
    tokens: [&'static str; 1],
}

#[derive(Serialize)]
struct SpecialTokens {
    #[serde(rename = "<s>")]
    bos: SpecialTokenIds,
}

#[derive(Serialize)]
struct TemplateProcessing {
    #[serde(rename = "type")]
    kind: &'static str,
    single: [Piece; 2],
    pair: [Piece; 4],
    special_tokens: SpecialTokens,
}

/// The vocabulary as a JSON object, in id order.
struct VocabMap<'a>(&'a [String]);

impl Serialize for VocabMap<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (id, word) in self.0.iter().enumerate() {
            map.serialize_entry(word, &id)?;
        }
        map.end()
    }
}

#[derive(Serialize)]
struct WordLevel<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    vocab: VocabMap<'a>,
    unk_token: &'static str,
}

#[derive(Serialize)]
struct TokenizerJson<'a> {
    version: &'static str,
    truncation: Option<()>,
    padding: Option<()>,
    added_tokens: Vec<AddedToken>,
    normalizer: Option<()>,
    pre_tokenizer: Metaspace,
    post_processor: TemplateProcessing,
    decoder: DecoderSequence,
    model: WordLevel<'a>,
}

/// `tokenizer.json`: WordLevel over [`vocab`], Metaspace pre-tokenizer, a
/// template that puts `<s>` first, Llama's decoder (see the module docs).
pub fn tokenizer_json(dims: &Dims) -> String {
    let words = vocab(dims);
    let special = |id, content| AddedToken {
        id,
        content,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
    };
    let bos = || Piece::SpecialToken {
        id: BOS,
        type_id: 0,
    };
    to_json(&TokenizerJson {
        version: "1.0",
        truncation: None,
        padding: None,
        added_tokens: vec![
            special(UNK_ID, UNK),
            special(BOS_ID, BOS),
            special(EOS_ID, EOS),
        ],
        normalizer: None,
        pre_tokenizer: Metaspace {
            kind: "Metaspace",
            replacement: SPACE_MARK,
            prepend_scheme: "always",
            split: true,
        },
        post_processor: TemplateProcessing {
            kind: "TemplateProcessing",
            single: [
                bos(),
                Piece::Sequence {
                    id: "A",
                    type_id: 0,
                },
            ],
            pair: [
                bos(),
                Piece::Sequence {
                    id: "A",
                    type_id: 0,
                },
                bos(),
                Piece::Sequence {
                    id: "B",
                    type_id: 1,
                },
            ],
            special_tokens: SpecialTokens {
                bos: SpecialTokenIds {
                    id: BOS,
                    ids: [BOS_ID],
                    tokens: [BOS],
                },
            },
        },
        decoder: DecoderSequence {
            kind: "Sequence",
            decoders: [
                Decoder::Replace {
                    pattern: Pattern::String("\u{2581}"),
                    content: " ",
                },
                Decoder::ByteFallback,
                Decoder::Fuse,
                Decoder::Strip {
                    content: ' ',
                    start: 1,
                    stop: 0,
                },
            ],
        },
        model: WordLevel {
            kind: "WordLevel",
            vocab: VocabMap(&words),
            unk_token: UNK,
        },
    })
}

#[derive(Serialize)]
struct TokenizerConfigJson {
    add_bos_token: bool,
    add_eos_token: bool,
    bos_token: &'static str,
    eos_token: &'static str,
    unk_token: &'static str,
    model_max_length: usize,
    tokenizer_class: &'static str,
    chat_template: &'static str,
}

/// The chat template: BOS, then the messages' contents separated by spaces.
/// The runner sends token ids, not messages; mistral.rs only wants one.
pub const CHAT_TEMPLATE: &str = "{{ bos_token }}{% for message in messages %}{{ message['content'] }}{% if not loop.last %} {% endif %}{% endfor %}";

/// `tokenizer_config.json`: special tokens and [`CHAT_TEMPLATE`].
pub fn tokenizer_config_json(dims: &Dims) -> String {
    to_json(&TokenizerConfigJson {
        add_bos_token: true,
        add_eos_token: false,
        bos_token: BOS,
        eos_token: EOS,
        unk_token: UNK,
        model_max_length: dims.max_position_embeddings,
        tokenizer_class: "PreTrainedTokenizerFast",
        chat_template: CHAT_TEMPLATE,
    })
}

fn to_json<T: Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("these structs serialize");
    s.push('\n');
    s
}

/// A model folder's files, as [`FILES`] names them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFiles {
    pub files: Vec<(&'static str, Vec<u8>)>,
}

impl ModelFiles {
    /// The bytes of the file named `name`.
    pub fn get(&self, name: &str) -> Option<&[u8]> {
        self.files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, b)| b.as_slice())
    }
}

/// The files of the model for `seed`, with the sizes of `dims`.
pub fn generate(dims: &Dims, seed: u64) -> Result<ModelFiles, Error> {
    Ok(ModelFiles {
        files: vec![
            (FILES[0], config_json(dims, seed).into_bytes()),
            (FILES[1], generation_config_json().into_bytes()),
            (FILES[2], tokenizer_json(dims).into_bytes()),
            (FILES[3], tokenizer_config_json(dims).into_bytes()),
            (FILES[4], safetensors_bytes(dims, seed)?),
        ],
    })
}

/// Writes the model of [`DIMS`] for `seed` into `dir` (created if need be;
/// files of the same names are replaced). Returns the paths written.
pub fn write_model(dir: &Path, seed: u64) -> Result<Vec<PathBuf>, Error> {
    let model = generate(&DIMS, seed)?;
    std::fs::create_dir_all(dir).map_err(|e| Error(format!("creating {}: {e}", dir.display())))?;
    let mut written = Vec::new();
    for (name, bytes) in &model.files {
        let path = dir.join(name);
        std::fs::write(&path, bytes)
            .map_err(|e| Error(format!("writing {}: {e}", path.display())))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_known_values() {
        // The first outputs for seed 0 of the reference implementation
        // (Vigna's splitmix64.c).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn normal_moments() {
        let mut r = SplitMix64::new(7);
        let n = 20000;
        let xs: Vec<f64> = (0..n).map(|_| r.next_normal()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.03, "mean {mean}");
        assert!((var - 1.0).abs() < 0.05, "variance {var}");
    }

    #[test]
    fn name_hash_separates_layers() {
        assert_ne!(
            name_hash("model.layers.0.mlp.up_proj.weight"),
            name_hash("model.layers.1.mlp.up_proj.weight")
        );
    }
}
