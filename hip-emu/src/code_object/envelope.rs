//! hip-rs's text envelope of a code-object bundle: what the `cudaforge`
//! drop-in writes where a PTX file would be (`dropins/cudaforge/src/envelope.rs`
//! writes it; `hip::code_object::Envelope` documents and fully validates it).
//!
//! ```text
//! // hip-rs amdgpu code object envelope v1
//! // source: affine.cu                      (optional)
//! // targets: gfx90a gfx942                 (required)
//! // unavailable: kernel: reason            (zero or more)
//! // sha256: <64 lowercase hex digits>      (required)
//! // begin base64 <decoded byte count>
//! <standard base64, `=` padded, at most 76 characters a line>
//! // end
//! ```
//!
//! The emulator needs only the payload, so this reader checks what makes
//! the payload trustworthy (magic line, byte count, SHA-256, base64) and
//! passes over the other header lines; the stricter header rules are the
//! `hip` crate's to enforce.

use super::Error;
use sha2::{Digest, Sha256};

/// Every version's first line starts so.
const FAMILY: &str = "// hip-rs amdgpu code object envelope v";
/// The version-1 magic line.
const MAGIC: &str = "// hip-rs amdgpu code object envelope v1";

/// Whether `image` claims to be an envelope (of any version).
pub(super) fn is_envelope(image: &[u8]) -> bool {
    image.starts_with(FAMILY.as_bytes())
}

fn wrong(line: usize, reason: impl Into<String>) -> Error {
    Error::Envelope {
        line,
        reason: reason.into(),
    }
}

/// The payload (a clang offload bundle) of an envelope, checked against
/// its declared length and SHA-256.
pub(super) fn decode(image: &[u8]) -> Result<Vec<u8>, Error> {
    let text = std::str::from_utf8(image).map_err(|e| {
        let line = 1 + image[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        wrong(line, "the text is not UTF-8")
    })?;
    // A missing line is reported at the line after the last.
    let total = text.lines().count();
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, MAGIC)) => {}
        Some((_, first)) => {
            let version = first.strip_prefix(FAMILY).unwrap_or(first);
            return Err(wrong(
                1,
                format!("envelope version {version:?} is not known to this reader (it reads v1)"),
            ));
        }
        None => return Err(wrong(1, "empty text")),
    }

    let mut sha256: Option<[u8; 32]> = None;
    let (begin_line, declared) = loop {
        let Some((n, line)) = lines.next() else {
            return Err(wrong(total + 1, "no `// begin base64 N` line"));
        };
        if let Some(count) = line.strip_prefix("// begin base64 ") {
            let declared: usize = count
                .parse()
                .map_err(|_| wrong(n, format!("`{count}` is not a byte count")))?;
            break (n, declared);
        }
        if let Some(digits) = line.strip_prefix("// sha256: ") {
            sha256 = Some(
                hex32(digits.trim())
                    .ok_or_else(|| wrong(n, "`// sha256:` expects 64 lowercase hex digits"))?,
            );
        } else if !line.starts_with("// ") {
            return Err(wrong(
                n,
                format!("expected a `// key: value` header line, found {line:?}"),
            ));
        }
    };
    let Some(sha256) = sha256 else {
        return Err(wrong(begin_line, "no `// sha256:` line before `// begin`"));
    };

    let mut payload = Vec::with_capacity(declared.min(image.len()));
    let mut group = Vec::with_capacity(4);
    let mut ended = false;
    for (n, line) in lines.by_ref() {
        if line == "// end" {
            ended = true;
            break;
        }
        for (col, c) in line.chars().enumerate() {
            let v = match c {
                'A'..='Z' => c as u8 - b'A',
                'a'..='z' => c as u8 - b'a' + 26,
                '0'..='9' => c as u8 - b'0' + 52,
                '+' => 62,
                '/' => 63,
                '=' => 64,
                _ => {
                    return Err(wrong(
                        n,
                        format!("bad base64 character {c:?} at column {}", col + 1),
                    ))
                }
            };
            group.push(v);
            if group.len() == 4 {
                base64_group(&group, &mut payload).map_err(|r| wrong(n, r))?;
                group.clear();
            }
        }
    }
    if !ended {
        return Err(wrong(total + 1, "no `// end` line"));
    }
    if !group.is_empty() {
        return Err(wrong(
            total + 1,
            "the base64 ends inside a group of 4 characters",
        ));
    }
    if payload.len() != declared {
        return Err(wrong(
            begin_line,
            format!(
                "`// begin base64` declares {declared} bytes; the base64 decodes to {}",
                payload.len()
            ),
        ));
    }
    let digest: [u8; 32] = Sha256::digest(&payload).into();
    if digest != sha256 {
        return Err(wrong(
            begin_line,
            "the payload's SHA-256 differs from the `// sha256:` line",
        ));
    }
    Ok(payload)
}

/// Appends the 1 to 3 bytes of one group of 4 sextets (64 for `=`).
fn base64_group(g: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    let pad = g.iter().rev().take_while(|&&v| v == 64).count();
    if pad > 2 || g[..4 - pad].contains(&64) {
        return Err("misplaced `=` padding".into());
    }
    let n = g
        .iter()
        .fold(0u32, |acc, &v| (acc << 6) | u32::from(v & 63));
    out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
    Ok(())
}

fn hex32(s: &str) -> Option<[u8; 32]> {
    let b = s.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = (digit(b[2 * i])? << 4) | digit(b[2 * i + 1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(payload: &[u8], base64: &str) -> String {
        let sha: String = Sha256::digest(payload)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!(
            "{MAGIC}\n// targets: gfx942\n// sha256: {sha}\n// begin base64 {}\n{base64}\n// end\n",
            payload.len()
        )
    }

    #[test]
    fn decodes_and_checks_the_payload() {
        let text = envelope(b"foobar!", "Zm9vYmFyIQ==");
        assert_eq!(decode(text.as_bytes()).unwrap(), b"foobar!");
        let bad = text.replace("Zm9vYmFyIQ==", "Zm9vYmFyIg==");
        assert!(decode(bad.as_bytes())
            .unwrap_err()
            .to_string()
            .contains("SHA-256"));
        let bad = text.replace("Zm9vYmFyIQ==", "Zm9v*mFyIQ==");
        let e = decode(bad.as_bytes()).unwrap_err();
        assert!(
            e.to_string().contains("line 5") && e.to_string().contains("column 5"),
            "{e}"
        );
        let v2 = text.replace("envelope v1", "envelope v2");
        assert!(decode(v2.as_bytes())
            .unwrap_err()
            .to_string()
            .contains("\"2\""));
        let short = text.replace("// end\n", "");
        assert!(decode(short.as_bytes()).is_err());
    }
}
