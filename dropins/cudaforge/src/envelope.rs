//! The text envelope of an AMD code-object bundle, written where a PTX file
//! would be, so that crates embedding PTX with `include_str!` embed it
//! unchanged; `hip::code_object::Envelope` reads it (the format is described
//! there and in docs/ARCHITECTURE.md).
//!
//! ```text
//! // hip-rs amdgpu code object envelope v1
//! // source: affine.cu
//! // targets: gfx90a gfx942 gfx1030 gfx1100
//! // unavailable: kernel_name: reason          (zero or more)
//! // sha256: <hex of the bytes>
//! // begin base64 <number of bytes>
//! <base64, 76 characters a line>
//! // end
//! ```

use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// The first line of every envelope.
pub const MAGIC: &str = "// hip-rs amdgpu code object envelope v1";

/// Writes `image` (a clang offload bundle) with its header.
pub fn encode(
    image: &[u8],
    source: Option<&str>,
    targets: &[String],
    unavailable: &[(String, String)],
) -> String {
    let mut s = format!("{MAGIC}\n");
    let one_line = |t: &str| t.replace(['\n', '\r'], " ");
    if let Some(source) = source {
        let _ = writeln!(s, "// source: {}", one_line(source));
    }
    let _ = writeln!(s, "// targets: {}", targets.join(" "));
    for (name, why) in unavailable {
        let _ = writeln!(s, "// unavailable: {name}: {}", one_line(why));
    }
    let _ = writeln!(s, "// sha256: {}", sha256_hex(image));
    let _ = writeln!(s, "// begin base64 {}", image.len());
    let encoded = base64(image);
    for chunk in encoded.as_bytes().chunks(76) {
        s.push_str(std::str::from_utf8(chunk).expect("base64 is ASCII"));
        s.push('\n');
    }
    s.push_str("// end\n");
    s
}

/// The lowercase hex sha256 of `bytes`, as the `// sha256:` line has it.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .fold(String::new(), |mut h, b| {
            let _ = write!(h, "{b:02x}");
            h
        })
}

/// Standard base64 with `=` padding.
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> shift) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_4648_vectors() {
        for (input, expected) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(input.as_bytes()), expected, "{input:?}");
        }
    }

    #[test]
    fn the_envelope_has_its_header_and_76_column_lines() {
        let image: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let text = encode(
            &image,
            Some("src/a.cu"),
            &["gfx90a".into(), "gfx1100".into()],
            &[("k".into(), "uses inline PTX\nassembly".into())],
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], MAGIC);
        assert_eq!(lines[1], "// source: src/a.cu");
        assert_eq!(lines[2], "// targets: gfx90a gfx1100");
        assert_eq!(lines[3], "// unavailable: k: uses inline PTX assembly");
        assert!(lines[4].starts_with("// sha256: ") && lines[4].len() == 11 + 64);
        assert_eq!(lines[5], "// begin base64 1000");
        assert_eq!(*lines.last().unwrap(), "// end");
        let body: String = lines[6..lines.len() - 1].concat();
        assert!(lines[6..lines.len() - 1].iter().all(|l| l.len() <= 76));
        assert_eq!(body, base64(&image));
    }
}
