//! `seeded-model DIR [--seed N]`: writes the tiny Mistral-architecture model
//! of the `seeded_model` library (seeded random weights, a WordLevel
//! tokenizer) into DIR, in the layout mistral.rs loads from a local folder.
//! The same seed writes the same bytes. Default seed: 0.

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: seeded-model DIR [--seed N]";

fn parse(args: &[String]) -> Result<(PathBuf, u64), String> {
    let mut dir = None;
    let mut seed = 0u64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--seed" => {
                let v = it.next().ok_or("--seed wants a value")?;
                seed = v
                    .parse()
                    .map_err(|e| format!("--seed {v}: not an unsigned 64-bit integer ({e})"))?;
            }
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s if dir.is_none() => dir = Some(PathBuf::from(s)),
            s => return Err(format!("one DIR only (also given: {s})")),
        }
    }
    Ok((dir.ok_or("no DIR given")?, seed))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, seed) = match parse(&args) {
        Ok(v) => v,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("seeded-model: {e}");
            }
            eprintln!("{USAGE}");
            return if e.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            };
        }
    };
    match seeded_model::write_model(&dir, seed) {
        Ok(paths) => {
            for p in paths {
                let len = std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0);
                println!("{} {len}", p.display());
            }
            let d = seeded_model::DIMS;
            println!(
                "seeded-model: seed {seed}: MistralForCausalLM, vocab {}, hidden {}, intermediate {}, layers {}, heads {}/{} of {}, bf16",
                d.vocab_size,
                d.hidden_size,
                d.intermediate_size,
                d.num_hidden_layers,
                d.num_attention_heads,
                d.num_key_value_heads,
                d.head_dim
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("seeded-model: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn arguments() {
        assert_eq!(parse(&s(&["d"])).unwrap(), ("d".into(), 0));
        assert_eq!(parse(&s(&["--seed", "9", "d"])).unwrap(), ("d".into(), 9));
        assert!(parse(&s(&[])).is_err());
        assert!(parse(&s(&["d", "--seed"])).is_err());
        assert!(parse(&s(&["d", "--seed", "x"])).is_err());
        assert!(parse(&s(&["d", "e"])).is_err());
        assert!(parse(&s(&["d", "--bogus"])).is_err());
    }
}
