//! The written model read back with the crates mistral.rs reads it with:
//! safetensors 0.7 (names, shapes, dtype, values), tokenizers 0.21 (the
//! tokenizer mistral.rs builds from tokenizer.json), serde_json (configs).

use std::collections::BTreeMap;

use safetensors::{Dtype, SafeTensors};
use seeded_model::{generate, ModelFiles, BOS_ID, DIMS, EOS_ID, FILES, UNK_ID};
use serde_json::Value;

fn model(seed: u64) -> ModelFiles {
    generate(&DIMS, seed).expect("the model generates")
}

fn json(m: &ModelFiles, name: &str) -> Value {
    serde_json::from_slice(m.get(name).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn f32s(view: &safetensors::tensor::TensorView) -> Vec<f32> {
    view.data()
        .chunks_exact(2)
        .map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32())
        .collect()
}

#[test]
fn deterministic_per_seed() {
    let (a, b, c) = (model(1), model(1), model(2));
    assert_eq!(a, b);
    assert_eq!(
        a.files.iter().map(|f| f.0).collect::<Vec<_>>(),
        FILES.to_vec()
    );
    // Another seed: other weights, the same tokenizer.
    assert_ne!(a.get("model.safetensors"), c.get("model.safetensors"));
    assert_eq!(a.get("tokenizer.json"), c.get("tokenizer.json"));
    let (ta, tc) = (
        SafeTensors::deserialize(a.get("model.safetensors").unwrap()).unwrap(),
        SafeTensors::deserialize(c.get("model.safetensors").unwrap()).unwrap(),
    );
    for name in ta.names() {
        assert_ne!(
            ta.tensor(name).unwrap().data(),
            tc.tensor(name).unwrap().data(),
            "{name} is the same for seeds 1 and 2"
        );
    }
}

/// The names and shapes the Mistral model of mistralrs-core 0.8.1
/// (models/mistral.rs, layers.rs's Mlp) loads, from config.json's fields.
fn expected_tensors(cfg: &Value) -> BTreeMap<String, Vec<usize>> {
    let n = |k: &str| {
        cfg[k]
            .as_u64()
            .unwrap_or_else(|| panic!("config.json: {k}")) as usize
    };
    let (v, h, i) = (n("vocab_size"), n("hidden_size"), n("intermediate_size"));
    let hd = n("head_dim");
    let (q, kv) = (n("num_attention_heads") * hd, n("num_key_value_heads") * hd);
    let mut t = BTreeMap::new();
    t.insert("model.embed_tokens.weight".to_string(), vec![v, h]);
    t.insert("model.norm.weight".to_string(), vec![h]);
    t.insert("lm_head.weight".to_string(), vec![v, h]);
    for l in 0..n("num_hidden_layers") {
        for (name, shape) in [
            ("input_layernorm", vec![h]),
            ("post_attention_layernorm", vec![h]),
            ("self_attn.q_proj", vec![q, h]),
            ("self_attn.k_proj", vec![kv, h]),
            ("self_attn.v_proj", vec![kv, h]),
            ("self_attn.o_proj", vec![h, q]),
            ("mlp.gate_proj", vec![i, h]),
            ("mlp.up_proj", vec![i, h]),
            ("mlp.down_proj", vec![h, i]),
        ] {
            t.insert(format!("model.layers.{l}.{name}.weight"), shape);
        }
    }
    t
}

#[test]
fn config_fits_mistral_and_q4k() {
    let m = model(0);
    let cfg = json(&m, "config.json");
    assert_eq!(
        cfg["architectures"],
        serde_json::json!(["MistralForCausalLM"])
    );
    assert_eq!(cfg["hidden_act"], "silu");
    assert_eq!(cfg["tie_word_embeddings"], false);
    assert!(cfg["sliding_window"].is_null());
    assert_eq!(cfg["bos_token_id"], BOS_ID);
    assert_eq!(cfg["eos_token_id"], EOS_ID);
    assert_eq!(cfg["seeded_model"]["seed"], 0);
    let n = |k: &str| cfg[k].as_u64().unwrap() as usize;
    // mistral.rs shards k/v by hidden_size / num_attention_heads: the head
    // size must be that.
    assert_eq!(n("head_dim") * n("num_attention_heads"), n("hidden_size"));
    assert_eq!(n("num_attention_heads") % n("num_key_value_heads"), 0);
    assert!(n("num_key_value_heads") < n("num_attention_heads"), "GQA");
    // Q4K blocks are 256 wide: every linear layer's input, and the sizes.
    for k in ["vocab_size", "hidden_size", "intermediate_size"] {
        assert_eq!(n(k) % 256, 0, "{k}");
    }
    assert_eq!(n("num_attention_heads") * n("head_dim") % 256, 0);
    let gen = json(&m, "generation_config.json");
    assert_eq!(gen["eos_token_id"], EOS_ID);
    assert_eq!(gen["do_sample"], false);
}

#[test]
fn safetensors_read_back() {
    let m = model(3);
    let cfg = json(&m, "config.json");
    let st = SafeTensors::deserialize(m.get("model.safetensors").unwrap()).unwrap();
    let got: BTreeMap<String, Vec<usize>> = st
        .tensors()
        .into_iter()
        .map(|(n, v)| (n, v.shape().to_vec()))
        .collect();
    assert_eq!(got, expected_tensors(&cfg));
    let mut params = 0;
    for (name, view) in st.tensors() {
        assert_eq!(view.dtype(), Dtype::BF16, "{name}");
        let xs = f32s(&view);
        params += xs.len();
        assert!(xs.iter().all(|x| x.is_finite()), "{name}");
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len() as f64;
        let std =
            (xs.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
        let shape = view.shape();
        if name.ends_with("norm.weight") {
            assert!(
                (mean - 1.0).abs() < 0.02 && std > 0.02 && std < 0.1,
                "{name}: {mean} {std}"
            );
        } else {
            // 1/sqrt(fan_in), embeddings 1.
            let want = if name == "model.embed_tokens.weight" {
                1.0
            } else {
                1.0 / (shape[1] as f64).sqrt()
            };
            assert!(mean.abs() < 0.1 * want, "{name}: mean {mean}");
            assert!(
                (std / want - 1.0).abs() < 0.1,
                "{name}: std {std}, want {want}"
            );
        }
    }
    // A few MB: about 4.4 M parameters, 2 bytes each.
    assert_eq!(params, 4_458_752);
    assert!(m.get("model.safetensors").unwrap().len() < 10_000_000);
}

#[test]
fn tokenizer_round_trip() {
    let m = model(0);
    let tok = tokenizers::Tokenizer::from_bytes(m.get("tokenizer.json").unwrap())
        .expect("tokenizers 0.21 loads tokenizer.json");
    let cfg = json(&m, "config.json");
    assert_eq!(
        tok.get_vocab_size(true) as u64,
        cfg["vocab_size"].as_u64().unwrap()
    );
    assert_eq!(tok.token_to_id("<unk>"), Some(UNK_ID));
    assert_eq!(tok.token_to_id("<s>"), Some(BOS_ID));
    assert_eq!(tok.token_to_id("</s>"), Some(EOS_ID));
    assert_eq!(tok.id_to_token(1023).as_deref(), Some("\u{2581}w1023"));

    let enc = tok.encode("w5 w17 w1023 w3", true).unwrap();
    assert_eq!(enc.get_ids(), &[BOS_ID, 5, 17, 1023, 3]);
    let plain = tok.encode("w5 w17", false).unwrap();
    assert_eq!(plain.get_ids(), &[5, 17]);
    // Words outside the vocabulary are <unk>.
    assert_eq!(
        tok.encode("w1024 hello", false).unwrap().get_ids(),
        &[UNK_ID, UNK_ID]
    );

    assert_eq!(tok.decode(enc.get_ids(), true).unwrap(), "w5 w17 w1023 w3");
    assert_eq!(
        tok.decode(enc.get_ids(), false).unwrap(),
        "<s> w5 w17 w1023 w3"
    );
    // Each id decodes alone to its word (mistral.rs's logprobs carry that
    // text; the runner maps it back to the id).
    for id in 0..1024u32 {
        assert_eq!(
            tok.decode(&[id], false).unwrap(),
            seeded_model::token_word(id)
        );
    }
    // A sample text round-trips.
    let words: Vec<String> = (3..1024)
        .step_by(37)
        .map(seeded_model::token_word)
        .collect();
    let text = words.join(" ");
    let ids = tok.encode(text.as_str(), false).unwrap().get_ids().to_vec();
    assert_eq!(ids.len(), words.len());
    assert_eq!(tok.decode(&ids, false).unwrap(), text);
}

/// What mistral.rs's grammar support (toktrie_hf_tokenizers 1.4, which it
/// runs on every tokenizer it loads) asks of the decoder: ByteLevel, or a
/// Sequence holding ByteFallback (then a Replace of one char by a space
/// gives the space mark).
#[test]
fn decoder_is_one_mistral_rs_accepts() {
    let m = model(0);
    let tj = json(&m, "tokenizer.json");
    let decoders = tj["decoder"]["decoders"].as_array().expect("a Sequence");
    assert_eq!(tj["decoder"]["type"], "Sequence");
    assert!(decoders.iter().any(|d| d["type"] == "ByteFallback"));
    assert!(decoders.iter().any(|d| d["type"] == "Replace"
        && d["content"] == " "
        && d["pattern"]["String"] == "\u{2581}"));
    // mistral.rs adds added tokens missing from model.vocab: none are.
    for t in tj["added_tokens"].as_array().unwrap() {
        let content = t["content"].as_str().unwrap();
        assert_eq!(tj["model"]["vocab"][content], t["id"], "{content}");
    }
}

#[test]
fn tokenizer_config_names_the_specials() {
    let m = model(0);
    let tc = json(&m, "tokenizer_config.json");
    assert_eq!(tc["bos_token"], "<s>");
    assert_eq!(tc["eos_token"], "</s>");
    assert_eq!(tc["unk_token"], "<unk>");
    assert!(tc["chat_template"].as_str().unwrap().contains("bos_token"));
}

#[test]
fn writes_the_folder() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("seeded-model-folder");
    let paths = seeded_model::write_model(&dir, 5).unwrap();
    assert_eq!(paths.len(), FILES.len());
    let m = model(5);
    for (name, bytes) in &m.files {
        assert_eq!(&std::fs::read(dir.join(name)).unwrap(), bytes, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
