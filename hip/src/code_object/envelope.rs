//! The text envelope of an AMD code-object bundle: what a kernel builder
//! writes into a `.ptx` file on AMD, where it cannot produce PTX.

use super::{validate, ImageKind, InvalidImage};
use hip_sys::loader::Platform;
use sha2::{Digest, Sha256};
use std::fmt;

/// What every envelope's first line starts with, whatever its version.
pub(super) const FAMILY: &str = "// hip-rs amdgpu code object envelope v";
/// The longest base64 line.
const MAX_BASE64_LINE: usize = 76;
/// How much of an offending line an error quotes.
const QUOTED: usize = 60;

/// An AMD code-object bundle carried as text, parsed and checked.
///
/// Kernel builders (hip-rs's `cudaforge` drop-in) write one
/// into the `.ptx` file a crate embeds with `include_str!` when they
/// compile for AMD, where no PTX exists; `cuda_compat`'s
/// `Ptx::from_src`/`Ptx::from_file` and `CudaContext::load_module` read it.
///
/// # Format, version 1
///
/// ASCII text; lines end in `\n` or `\r\n`:
///
/// ```text
/// // hip-rs amdgpu code object envelope v1
/// // source: affine.cu
/// // targets: gfx90a gfx942 gfx1030 gfx1100
/// // unavailable: kernel_name: free-text reason
/// // sha256: <64 lowercase hex digits>
/// // begin base64 <N>
/// <base64 lines>
/// // end
/// ```
///
/// - Line 1 is exactly the magic line above. A first line that names
///   another version is refused as such.
/// - Then the header lines, in this order: `source` (optional: the file
///   the kernels came from), `targets` (required: one or more
///   `--offload-arch` names separated by spaces, a processor `gfx...`
///   followed by `:feature+`/`:feature-` parts, e.g. `gfx90a:xnack+`),
///   `unavailable` (zero or more: a kernel name, a colon, and why that
///   kernel could not be built for AMD), `sha256` (required: the SHA-256 of
///   the decoded bytes, 64 lowercase hex digits). Any other
///   `// key: value` line (key of ASCII letters, digits, `_`, `-`) before
///   `// begin` is ignored, for forward compatibility; anything else
///   there is an error.
/// - `// begin base64 N`: `N`, in decimal, is the number of decoded bytes.
/// - The payload in standard base64 (alphabet `A-Z a-z 0-9 + /`, `=`
///   padding only at the very end), at most 76 characters a line.
/// - `// end`, followed by nothing but blank lines.
///
/// The decoded bytes are a clang offload bundle (`__CLANG_OFFLOAD_BUNDLE__`,
/// or `CCOB` compressed) holding one AMD code object per target: what
/// [`Module::load_data`](crate::Module::load_data) takes on AMD. Parsing
/// checks them with [`validate`](super::validate).
///
/// ```
/// use hip::code_object::Envelope;
/// let text = "// hip-rs amdgpu code object envelope v1\n// targets: gfx90a\n";
/// assert!(Envelope::is_envelope(text));
/// let e = Envelope::parse(text).unwrap_err();
/// assert_eq!(e.line, 3);
/// assert!(e.to_string().contains("no `// begin base64 N` line"), "{e}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Envelope {
    image: Vec<u8>,
    kind: ImageKind,
    source: Option<String>,
    targets: Vec<String>,
    unavailable: Vec<Unavailable>,
}

/// A kernel the builder could not compile for AMD, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unavailable {
    /// The kernel's (symbol) name.
    pub kernel: String,
    /// The builder's reason, as written.
    pub reason: String,
}

/// Why a text is not a valid envelope, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidEnvelope {
    /// The line (from 1) where the problem lies: for a missing line, the
    /// line where it was expected.
    pub line: usize,
    /// The column (from 1, in characters), for a bad base64 character.
    pub column: Option<usize>,
    /// What is wrong.
    pub reason: String,
    /// When the payload decoded but is not a valid AMD bundle: why
    /// [`validate`](super::validate) refused it.
    pub payload: Option<InvalidImage>,
}

impl fmt::Display for InvalidEnvelope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid code-object envelope, line {}", self.line)?;
        if let Some(c) = self.column {
            write!(f, ", column {c}")?;
        }
        write!(f, ": {}", self.reason)
    }
}

impl std::error::Error for InvalidEnvelope {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.payload
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

fn wrong(line: usize, reason: impl Into<String>) -> InvalidEnvelope {
    InvalidEnvelope {
        line,
        column: None,
        reason: reason.into(),
        payload: None,
    }
}

/// `line` for an error message: escaped, and cut after [`QUOTED`]
/// characters.
fn quoted(line: &str) -> String {
    match line.char_indices().nth(QUOTED) {
        Some((at, _)) => format!("{:?}...", &line[..at]),
        None => format!("{line:?}"),
    }
}

impl Envelope {
    /// The first line of a version-1 envelope.
    pub const MAGIC: &'static str = "// hip-rs amdgpu code object envelope v1";

    /// Whether `text` claims to be an envelope (of any version): its first
    /// line starts like [`Envelope::MAGIC`]. Reads only that far; whether
    /// the rest is valid is [`Envelope::parse`]'s question.
    pub fn is_envelope(text: &str) -> bool {
        text.starts_with(FAMILY)
    }

    /// Parses and checks `text`: the header, the base64, its length and
    /// SHA-256, and the decoded bundle ([`validate`](super::validate) for
    /// AMD). Never panics, whatever the text.
    pub fn parse(text: &str) -> Result<Envelope, InvalidEnvelope> {
        // The `\n` ending the last line does not start another.
        let body = text.strip_suffix('\n').unwrap_or(text);
        let mut lines = body
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .enumerate()
            .map(|(i, l)| (i + 1, l));
        let total_lines = body.split('\n').count();
        let (_, first) = lines.next().unwrap_or((1, ""));
        if first != Self::MAGIC {
            return Err(wrong(
                1,
                match first.strip_prefix(FAMILY) {
                    Some(v) => format!(
                        "envelope version {} is not known to this reader (it reads v1)",
                        quoted(v)
                    ),
                    None => format!(
                        "the first line is {}, not the magic line {:?}",
                        quoted(first),
                        Self::MAGIC
                    ),
                },
            ));
        }

        let header = Header::read(&mut lines, total_lines)?;

        let mut decoder = Base64::with_capacity(header.declared.min(text.len()));
        let mut last_data_line = header.begin_line;
        let end_line = loop {
            let Some((n, line)) = lines.next() else {
                return Err(wrong(
                    total_lines + 1,
                    format!("no `// end` line: the text ends at line {total_lines}"),
                ));
            };
            if line == "// end" {
                break n;
            }
            decoder.line(n, line)?;
            last_data_line = n;
        };
        for (n, line) in lines {
            if !line.trim().is_empty() {
                return Err(wrong(
                    n,
                    format!(
                        "text after `// end` (line {end_line}): {}; only blank lines may follow",
                        quoted(line)
                    ),
                ));
            }
        }
        let image = decoder.finish(last_data_line)?;
        if image.len() != header.declared {
            return Err(wrong(
                header.begin_line,
                format!(
                    "`// begin base64` declares {} bytes; the base64 decodes to {}",
                    header.declared,
                    image.len()
                ),
            ));
        }
        let digest: [u8; 32] = Sha256::digest(&image).into();
        if digest != header.sha256 {
            return Err(wrong(
                header.sha256_line,
                format!(
                    "sha256 mismatch: the header says {}, the decoded bytes hash to {}",
                    hex(&header.sha256),
                    hex(&digest)
                ),
            ));
        }
        let kind = match validate(&image, Platform::Amd) {
            Ok(k @ (ImageKind::OffloadBundle { .. } | ImageKind::CompressedBundle)) => k,
            Ok(other) => {
                return Err(wrong(
                    header.begin_line,
                    format!("the payload is a {other:?}, not a clang offload bundle"),
                ))
            }
            Err(e) => {
                return Err(InvalidEnvelope {
                    payload: Some(e.clone()),
                    ..wrong(
                        header.begin_line,
                        format!("the payload is not a valid AMD code-object bundle: {e}"),
                    )
                })
            }
        };
        Ok(Envelope {
            image,
            kind,
            source: header.source,
            targets: header.targets,
            unavailable: header.unavailable,
        })
    }

    /// The decoded bundle: what `hipModuleLoadData` takes.
    pub fn image(&self) -> &[u8] {
        &self.image
    }

    /// What [`validate`](super::validate) recognised the bundle as.
    pub fn kind(&self) -> ImageKind {
        self.kind
    }

    /// The `--offload-arch` targets the bundle was built for.
    pub fn targets(&self) -> &[String] {
        &self.targets
    }

    /// The source file the kernels came from, when the header names it.
    pub fn source(&self) -> Option<&str> {
        self.source.as_deref()
    }

    /// The kernels the builder could not compile for AMD.
    pub fn unavailable(&self) -> &[Unavailable] {
        &self.unavailable
    }

    /// Why `kernel` is unavailable on AMD (the first reason listed), or
    /// `None` when it is not listed.
    pub fn unavailable_reason(&self, kernel: &str) -> Option<&str> {
        self.unavailable
            .iter()
            .find(|u| u.kernel == kernel)
            .map(|u| u.reason.as_str())
    }

    /// Whether one of the targets runs on a device whose architecture
    /// string (`gcnArchName`, e.g. `gfx90a:sramecc+:xnack-`) is
    /// `device_arch`: the same processor, and every feature the target
    /// fixes set the same way on the device (hip-build's rule).
    pub fn runs_on(&self, device_arch: &str) -> bool {
        self.targets.iter().any(|t| target_runs_on(t, device_arch))
    }
}

/// hip-build's `target_runs_on` (build.rs-tools/hip-build/src/select.rs),
/// restated: that file belongs to another package, which `hip` cannot
/// include and still package. The tests check that the two agree.
fn target_runs_on(target: &str, device: &str) -> bool {
    let mut target_parts = target.trim().split(':');
    let mut device_parts = device.trim().split(':');
    if target_parts.next() != device_parts.next() {
        return false;
    }
    let device_features: Vec<&str> = device_parts.collect();
    target_parts.all(|feature| device_features.contains(&feature))
}

/// hip-build's target syntax: `gfx` + letters/digits, then `:feature+` or
/// `:feature-` parts.
fn valid_target(t: &str) -> bool {
    let mut parts = t.split(':');
    let processor = parts.next().unwrap_or_default();
    let alnum = |s: &str| s.chars().all(|c| c.is_ascii_alphanumeric());
    processor.len() > 3
        && processor.starts_with("gfx")
        && alnum(&processor[3..])
        && parts.all(|f| {
            f.len() > 1 && (f.ends_with('+') || f.ends_with('-')) && alnum(&f[..f.len() - 1])
        })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The header lines between the magic line and `// begin base64 N`.
struct Header {
    source: Option<String>,
    targets: Vec<String>,
    unavailable: Vec<Unavailable>,
    sha256: [u8; 32],
    sha256_line: usize,
    declared: usize,
    begin_line: usize,
}

/// The known header keys, in the order they must come.
const ORDER: [&str; 4] = ["source", "targets", "unavailable", "sha256"];

impl Header {
    fn read<'a>(
        lines: &mut impl Iterator<Item = (usize, &'a str)>,
        total_lines: usize,
    ) -> Result<Header, InvalidEnvelope> {
        let mut source = None;
        let mut targets: Option<Vec<String>> = None;
        let mut unavailable = Vec::new();
        let mut sha256: Option<([u8; 32], usize)> = None;
        // The rank in ORDER of the last known key seen.
        let mut last: Option<usize> = None;
        loop {
            let Some((n, line)) = lines.next() else {
                return Err(wrong(
                    total_lines + 1,
                    format!("no `// begin base64 N` line: the text ends at line {total_lines}"),
                ));
            };
            if line == "// begin" || line.starts_with("// begin ") {
                let declared = begin_count(n, line)?;
                let Some(targets) = targets else {
                    return Err(wrong(n, "no `// targets:` line before `// begin`"));
                };
                let Some((sha256, sha256_line)) = sha256 else {
                    return Err(wrong(n, "no `// sha256:` line before `// begin`"));
                };
                return Ok(Header {
                    source,
                    targets,
                    unavailable,
                    sha256,
                    sha256_line,
                    declared,
                    begin_line: n,
                });
            }
            let Some((key, value)) = key_value(line) else {
                return Err(wrong(
                    n,
                    format!(
                        "expected a `// key: value` header line or `// begin base64 N`, found {}",
                        quoted(line)
                    ),
                ));
            };
            let Some(rank) = ORDER.iter().position(|k| *k == key) else {
                continue; // a later version's header line
            };
            if let Some(before) = last {
                if rank < before || (rank == before && key != "unavailable") {
                    return Err(wrong(
                        n,
                        format!(
                            "`// {key}:` comes after `// {}:`; the header lines go in the order \
                             source, targets, unavailable, sha256, each once (unavailable \
                             repeats)",
                            ORDER[before]
                        ),
                    ));
                }
            }
            last = Some(rank);
            match key {
                "source" => {
                    if value.is_empty() {
                        return Err(wrong(n, "`// source:` names no file"));
                    }
                    source = Some(value.to_owned());
                }
                "targets" => {
                    let list: Vec<String> = value.split_whitespace().map(str::to_owned).collect();
                    if list.is_empty() {
                        return Err(wrong(n, "`// targets:` lists no target"));
                    }
                    if let Some(bad) = list.iter().find(|t| !valid_target(t)) {
                        return Err(wrong(
                            n,
                            format!(
                                "target {} is not an AMDGPU target (expected e.g. gfx90a or \
                                 gfx90a:xnack+)",
                                quoted(bad)
                            ),
                        ));
                    }
                    targets = Some(list);
                }
                "unavailable" => {
                    let entry = value
                        .split_once(':')
                        .map(|(k, r)| (k.trim(), r.trim()))
                        .filter(|(k, r)| {
                            !k.is_empty() && !r.is_empty() && !k.contains(char::is_whitespace)
                        });
                    let Some((kernel, reason)) = entry else {
                        return Err(wrong(
                            n,
                            format!(
                                "`// unavailable:` expects `kernel_name: reason`, found {}",
                                quoted(value)
                            ),
                        ));
                    };
                    unavailable.push(Unavailable {
                        kernel: kernel.to_owned(),
                        reason: reason.to_owned(),
                    });
                }
                _ => {
                    let digest = sha256_digits(value).ok_or_else(|| {
                        wrong(
                            n,
                            format!(
                                "`// sha256:` expects 64 lowercase hex digits, found {}",
                                quoted(value)
                            ),
                        )
                    })?;
                    sha256 = Some((digest, n));
                }
            }
        }
    }
}

/// `// key: value` as (key, trimmed value); `None` for any other line.
fn key_value(line: &str) -> Option<(&str, &str)> {
    let (key, value) = line.strip_prefix("// ")?.split_once(':')?;
    let key_chars = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    (!key.is_empty() && key.chars().all(key_chars)).then_some((key, value.trim()))
}

/// The `N` of `// begin base64 N`.
fn begin_count(n: usize, line: &str) -> Result<usize, InvalidEnvelope> {
    let digits = line.strip_prefix("// begin base64 ").ok_or_else(|| {
        wrong(
            n,
            format!("expected `// begin base64 N`, found {}", quoted(line)),
        )
    })?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(wrong(
            n,
            format!(
                "`// begin base64` expects a decimal byte count, found {}",
                quoted(digits)
            ),
        ));
    }
    digits.parse().map_err(|_| {
        wrong(
            n,
            format!("`// begin base64` declares {digits} bytes, more than memory can hold"),
        )
    })
}

fn sha256_digits(value: &str) -> Option<[u8; 32]> {
    let digit = |b: u8| match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    };
    let bytes = value.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, o) in out.iter_mut().enumerate() {
        *o = (digit(bytes[2 * i])? << 4) | digit(bytes[2 * i + 1])?;
    }
    Some(out)
}

/// A base64 decoder fed line by line, which names the line and column of
/// the first character it cannot take.
struct Base64 {
    out: Vec<u8>,
    /// The sextets of the group being read.
    group: [u8; 4],
    filled: usize,
    /// `=` characters in the group being read.
    padding: usize,
    /// Whether a padded group has ended the data.
    done: bool,
}

impl Base64 {
    fn with_capacity(bytes: usize) -> Base64 {
        Base64 {
            out: Vec::with_capacity(bytes),
            group: [0; 4],
            filled: 0,
            padding: 0,
            done: false,
        }
    }

    fn line(&mut self, n: usize, line: &str) -> Result<(), InvalidEnvelope> {
        for (i, c) in line.chars().enumerate() {
            let at = |reason: String| InvalidEnvelope {
                column: Some(i + 1),
                ..wrong(n, reason)
            };
            if self.done {
                return Err(at(format!(
                    "bad base64 character {c:?}: nothing may follow the final `=` padding"
                )));
            }
            let sextet = match c {
                'A'..='Z' => c as u8 - b'A',
                'a'..='z' => c as u8 - b'a' + 26,
                '0'..='9' => c as u8 - b'0' + 52,
                '+' => 62,
                '/' => 63,
                '=' if self.filled >= 2 => {
                    self.padding += 1;
                    0
                }
                '=' => {
                    return Err(at(format!(
                        "bad base64 character '=': padding at position {} of a group of 4",
                        self.filled + 1
                    )))
                }
                _ => return Err(at(format!("bad base64 character {c:?}"))),
            };
            if self.padding > 0 && c != '=' {
                return Err(at(format!(
                    "bad base64 character {c:?}: only `=` may follow `=` in a group"
                )));
            }
            self.group[self.filled] = sextet;
            self.filled += 1;
            if self.filled == 4 {
                self.flush().map_err(at)?;
            }
        }
        let len = line.chars().count();
        if len > MAX_BASE64_LINE {
            return Err(InvalidEnvelope {
                column: Some(MAX_BASE64_LINE + 1),
                ..wrong(
                    n,
                    format!(
                        "a base64 line holds at most {MAX_BASE64_LINE} characters; this one \
                         holds {len}"
                    ),
                )
            });
        }
        Ok(())
    }

    /// Emits the bytes of a full group.
    fn flush(&mut self) -> Result<(), String> {
        let g = self.group;
        let n = (u32::from(g[0]) << 18)
            | (u32::from(g[1]) << 12)
            | (u32::from(g[2]) << 6)
            | u32::from(g[3]);
        let bytes = n.to_be_bytes();
        let keep = 3 - self.padding;
        // The bits a padded group drops must be zero (canonical base64),
        // so that one payload has one encoding.
        let dropped = match self.padding {
            1 => g[2] & 0x03,
            2 => g[1] & 0x0f,
            _ => 0,
        };
        if dropped != 0 {
            return Err("the group before the `=` padding has non-zero unused bits".into());
        }
        self.out.extend_from_slice(&bytes[1..1 + keep]);
        self.done = self.padding > 0;
        self.filled = 0;
        self.padding = 0;
        Ok(())
    }

    fn finish(self, last_line: usize) -> Result<Vec<u8>, InvalidEnvelope> {
        if self.filled != 0 {
            return Err(wrong(
                last_line,
                format!(
                    "the base64 ends inside a group of 4 characters ({} left over)",
                    self.filled
                ),
            ));
        }
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests;
