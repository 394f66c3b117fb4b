use super::*;
use proptest::prelude::*;
use test_kit::code_object::{bundle_of, envelope, sha256_hex, tiny_bundle, tiny_elf, EM_AMDGPU};

/// hip-build's own file, compiled here as text so that a change to its
/// rule that `target_runs_on` above does not follow fails these tests.
#[allow(dead_code, unreachable_pub)]
#[path = "../../../../build.rs-tools/hip-build/src/select.rs"]
mod hip_build_select;

fn plain(image: &[u8]) -> String {
    envelope(image, Some("affine.cu"), &["gfx90a"], &[])
}

/// The error `text` gets: line, column and reason.
fn refusal(text: &str) -> InvalidEnvelope {
    match Envelope::parse(text) {
        Ok(e) => panic!("accepted: {e:?}\n{text}"),
        Err(e) => e,
    }
}

fn assert_refused(text: &str, line: usize, column: Option<usize>, says: &str) {
    let e = refusal(text);
    assert_eq!((e.line, e.column), (line, column), "{e}\n{text}");
    assert!(e.to_string().contains(says), "{e:?} does not say {says:?}");
}

/// `text` with line `n` (from 1) replaced by `with`; `None` removes it.
fn replace_line(text: &str, n: usize, with: Option<&str>) -> String {
    let mut lines: Vec<&str> = text.split('\n').collect();
    match with {
        Some(w) => lines[n - 1] = w,
        None => {
            lines.remove(n - 1);
        }
    }
    lines.join("\n")
}

#[test]
fn round_trip_keeps_every_field() {
    let bundle = bundle_of(&[tiny_elf(EM_AMDGPU), tiny_elf(EM_AMDGPU)]);
    let text = envelope(
        &bundle,
        Some("affine.cu"),
        &["gfx90a", "gfx942", "gfx90a:xnack+"],
        &[
            ("affine_f64", "needs fp64 atomics"),
            ("_Z3fooPf", "uses __nanosleep: not on AMD"),
        ],
    );
    assert!(Envelope::is_envelope(&text));
    let e = Envelope::parse(&text).unwrap();
    assert_eq!(e.image(), &bundle[..]);
    assert_eq!(e.kind(), ImageKind::OffloadBundle { entries: 3 });
    assert_eq!(e.source(), Some("affine.cu"));
    assert_eq!(e.targets(), ["gfx90a", "gfx942", "gfx90a:xnack+"]);
    assert_eq!(e.unavailable().len(), 2);
    assert_eq!(e.unavailable()[1].kernel, "_Z3fooPf");
    assert_eq!(
        e.unavailable_reason("affine_f64"),
        Some("needs fp64 atomics")
    );
    // The reason keeps its own colons.
    assert_eq!(
        e.unavailable_reason("_Z3fooPf"),
        Some("uses __nanosleep: not on AMD")
    );
    assert_eq!(e.unavailable_reason("affine_f32"), None);
}

#[test]
fn crlf_no_source_unknown_keys_and_trailing_blanks_are_accepted() {
    let bundle = tiny_bundle();
    let text = envelope(&bundle, None, &["gfx1100"], &[]);
    let crlf = text.replace('\n', "\r\n");
    assert_eq!(Envelope::parse(&crlf).unwrap().image(), &bundle[..]);
    let e = Envelope::parse(&text).unwrap();
    assert_eq!(e.source(), None);
    assert!(e.unavailable().is_empty());
    // Keys of a later version, anywhere in the header.
    let later = replace_line(
        &text,
        2,
        Some("// compiler: clang 19.0 (-O3)\n// targets: gfx1100\n// x-y_2:"),
    );
    assert_eq!(Envelope::parse(&later).unwrap().targets(), ["gfx1100"]);
    // Blank lines after `// end`, and no newline after it.
    assert!(Envelope::parse(&format!("{text}\n  \n\t\n")).is_ok());
    assert!(Envelope::parse(text.trim_end()).is_ok());
}

#[test]
fn header_defects_are_named_with_their_line() {
    let text = plain(&tiny_bundle());
    // Lines: 1 magic, 2 source, 3 targets, 4 sha256, 5 begin, 6.. base64.
    assert_refused("", 1, None, "not the magic line");
    assert_refused(
        &replace_line(&text, 1, Some("// hip-rs amdgpu code object envelope v2")),
        1,
        None,
        "version \"2\" is not known",
    );
    assert_refused(
        &replace_line(&text, 1, Some(".version 8.0")),
        1,
        None,
        "not the magic line",
    );
    assert_refused(&replace_line(&text, 3, None), 4, None, "no `// targets:`");
    assert_refused(&replace_line(&text, 4, None), 4, None, "no `// sha256:`");
    assert_refused(
        &replace_line(&text, 3, Some("// targets:")),
        3,
        None,
        "lists no target",
    );
    assert_refused(
        &replace_line(&text, 3, Some("// targets: gfx90a sm_90")),
        3,
        None,
        "target \"sm_90\" is not an AMDGPU target",
    );
    assert_refused(
        &replace_line(&text, 3, Some("// targets: gfx90a:xnack")),
        3,
        None,
        "not an AMDGPU target",
    );
    assert_refused(
        &replace_line(&text, 2, Some("// source:")),
        2,
        None,
        "names no file",
    );
    // Order and repetition.
    let sha = text.lines().nth(3).unwrap().to_owned();
    let swapped = replace_line(
        &replace_line(&text, 3, Some(&sha)),
        4,
        Some("// targets: gfx90a"),
    );
    assert_refused(&swapped, 4, None, "`// targets:` comes after `// sha256:`");
    let twice = replace_line(&text, 3, Some("// targets: gfx90a\n// targets: gfx942"));
    assert_refused(&twice, 4, None, "each once");
    let source_late = replace_line(&text, 3, Some("// targets: gfx90a\n// source: b.cu"));
    assert_refused(
        &source_late,
        4,
        None,
        "`// source:` comes after `// targets:`",
    );
    // `unavailable` needs a kernel and a reason.
    for bad in ["k", "k:", ": why", "two words: why"] {
        let t = replace_line(
            &text,
            3,
            Some(&format!("// targets: gfx90a\n// unavailable: {bad}")),
        );
        assert_refused(&t, 4, None, "expects `kernel_name: reason`");
    }
    // sha256: 64 lowercase hex digits.
    let upper = sha.to_uppercase().replace("// SHA256:", "// sha256:");
    assert_refused(
        &replace_line(&text, 4, Some(&upper)),
        4,
        None,
        "64 lowercase hex",
    );
    assert_refused(
        &replace_line(&text, 4, Some(&sha[..sha.len() - 1])),
        4,
        None,
        "64 lowercase hex",
    );
    // Lines that are not headers.
    assert_refused(
        &replace_line(&text, 2, Some("affine.cu")),
        2,
        None,
        "expected a `// key: value` header line",
    );
    assert_refused(
        &replace_line(&text, 2, Some("// a comment")),
        2,
        None,
        "found \"// a comment\"",
    );
    // The begin line.
    for (bad, says) in [
        ("// begin base32 10", "expected `// begin base64 N`"),
        ("// begin", "expected `// begin base64 N`"),
        ("// begin base64 ", "a decimal byte count"),
        ("// begin base64 +12", "a decimal byte count"),
        (
            "// begin base64 99999999999999999999999",
            "more than memory",
        ),
    ] {
        assert_refused(&replace_line(&text, 5, Some(bad)), 5, None, says);
    }
    // No begin at all.
    let header_only: String = text.lines().take(4).map(|l| format!("{l}\n")).collect();
    assert_refused(
        &header_only,
        5,
        None,
        "no `// begin base64 N` line: the text ends at line 4",
    );
}

#[test]
fn base64_defects_are_named_with_line_and_column() {
    // 120 bytes of bundle and tail: base64 lines 6 (76 characters), 7, ...
    let mut image = tiny_bundle();
    image.extend([7u8; 3]);
    let text = plain(&image);
    let line6 = text.lines().nth(5).unwrap().to_owned();
    let with = |n: usize, col: usize, c: char| {
        let mut l: Vec<char> = text.lines().nth(n - 1).unwrap().chars().collect();
        l[col - 1] = c;
        replace_line(&text, n, Some(&l.into_iter().collect::<String>()))
    };
    assert_refused(&with(6, 10, '*'), 6, Some(10), "bad base64 character '*'");
    assert_refused(&with(7, 1, '-'), 7, Some(1), "bad base64 character '-'");
    assert_refused(&with(6, 3, 'é'), 6, Some(3), "bad base64 character 'é'");
    assert_refused(&with(6, 76, ' '), 6, Some(76), "bad base64 character ' '");
    // `=` inside the data.
    assert_refused(&with(6, 1, '='), 6, Some(1), "padding at position 1");
    // A line over 76 characters.
    let long = replace_line(&text, 6, Some(&format!("{line6}AAAA")));
    assert_refused(
        &long,
        6,
        Some(77),
        "at most 76 characters; this one holds 80",
    );
    // A group cut short, at the end of the data (line count: the tail).
    let last = text.lines().count() - 1; // the last base64 line
    let cut = text.lines().nth(last - 1).unwrap();
    let short = replace_line(&text, last, Some(&cut[..cut.len() - 1]));
    assert_refused(&short, last, None, "ends inside a group of 4");
}

#[test]
fn padding_must_be_canonical() {
    // One byte 0x41 is "QQ==": "QR==" carries non-zero dropped bits.
    let mut d = Base64::with_capacity(1);
    d.line(1, "QQ==").unwrap();
    assert_eq!(d.finish(1).unwrap(), b"A");
    let mut d = Base64::with_capacity(1);
    let e = d.line(3, "QR==").unwrap_err();
    assert_eq!((e.line, e.column), (3, Some(4)));
    assert!(e.reason.contains("non-zero unused bits"), "{e}");
    let mut d = Base64::with_capacity(2);
    d.line(1, "QUI=").unwrap();
    assert_eq!(d.finish(1).unwrap(), b"AB");
    let mut d = Base64::with_capacity(2);
    assert!(d.line(1, "QUJ=").is_err());
    // Data after a padded group, and `=` then data in the same group.
    let mut d = Base64::with_capacity(2);
    let e = d.line(2, "QQ==QUI=").unwrap_err();
    assert_eq!(e.column, Some(5));
    assert!(e.reason.contains("nothing may follow the final `=`"), "{e}");
    let mut d = Base64::with_capacity(2);
    d.line(1, "QQ==").unwrap();
    assert!(d.line(2, "QUI=").is_err());
    let mut d = Base64::with_capacity(2);
    let e = d.line(1, "QQ=Q").unwrap_err();
    assert!(e.reason.contains("only `=` may follow `=`"), "{e}");
}

#[test]
fn length_checksum_end_and_trailing_text_are_checked() {
    let image = tiny_bundle();
    let text = plain(&image);
    let n = image.len();
    assert_refused(
        &text.replace(
            &format!("// begin base64 {n}"),
            &format!("// begin base64 {}", n + 1),
        ),
        5,
        None,
        &format!("declares {} bytes; the base64 decodes to {n}", n + 1),
    );
    // The checksum of other bytes.
    let other = sha256_hex(b"other");
    let sha_line = format!("// sha256: {}", sha256_hex(&image));
    assert_refused(
        &text.replace(&sha_line, &format!("// sha256: {other}")),
        4,
        None,
        &format!(
            "header says {other}, the decoded bytes hash to {}",
            sha256_hex(&image)
        ),
    );
    // No end.
    let no_end = text.replace("// end\n", "");
    let lines = no_end.lines().count();
    assert_refused(
        &no_end,
        lines + 1,
        None,
        &format!("no `// end` line: the text ends at line {lines}"),
    );
    // Text after the end.
    let end_line = text.lines().count();
    assert_refused(
        &format!("{text}\n// end\n"),
        end_line + 2,
        None,
        "text after `// end` (line",
    );
    assert_refused(&format!("{text}x"), end_line + 1, None, "only blank lines");
}

#[test]
fn the_payload_must_be_an_amd_bundle() {
    let e = refusal(&plain(b"hello"));
    assert_eq!(e.line, 5);
    assert!(
        e.reason.contains("not a valid AMD code-object bundle"),
        "{e}"
    );
    assert!(e.payload.is_some());
    assert!(std::error::Error::source(&e).is_some());
    // A bare code object, a cubin, PTX, a truncated bundle.
    let e = refusal(&plain(&tiny_elf(EM_AMDGPU)));
    assert!(
        e.reason
            .contains("AmdCodeObject, not a clang offload bundle"),
        "{e}"
    );
    assert!(refusal(&plain(&tiny_elf(190))).payload.is_some());
    let ptx = b".version 8.0\n.target sm_90\n";
    assert!(refusal(&plain(ptx))
        .reason
        .contains("only on the NVIDIA platform"));
    let bundle = tiny_bundle();
    let e = refusal(&plain(&bundle[..bundle.len() - 1]));
    assert!(e.reason.contains("outside"), "{e}");
    assert!(refusal(&plain(&[])).reason.contains("empty"));
}

#[test]
fn runs_on_follows_hip_builds_rule() {
    let e = Envelope::parse(&envelope(
        &tiny_bundle(),
        None,
        &["gfx90a:xnack+", "gfx1100"],
        &[],
    ))
    .unwrap();
    assert!(e.runs_on("gfx90a:sramecc+:xnack+"));
    assert!(!e.runs_on("gfx90a:sramecc+:xnack-"));
    assert!(!e.runs_on("gfx90a"));
    assert!(e.runs_on("gfx1100"));
    assert!(!e.runs_on("gfx1030"));
    assert!(!e.runs_on("gfx110"));
    assert!(!e.runs_on(""));
}

#[test]
fn is_envelope_reads_only_the_magic() {
    assert!(Envelope::is_envelope(Envelope::MAGIC));
    assert!(Envelope::is_envelope(
        "// hip-rs amdgpu code object envelope v7\n"
    ));
    assert!(!Envelope::is_envelope(".version 8.0\n.target sm_90\n"));
    assert!(!Envelope::is_envelope(""));
    assert!(!Envelope::is_envelope(
        " // hip-rs amdgpu code object envelope v1"
    ));
}

fn arch() -> impl Strategy<Value = String> {
    let processor = prop::sample::select(vec!["gfx90a", "gfx942", "gfx1100", "gfx9"]);
    let feature = prop::sample::select(vec!["xnack+", "xnack-", "sramecc+", "sramecc-", ""]);
    (processor, prop::collection::vec(feature, 0..3)).prop_map(|(p, f)| {
        let mut s = p.to_owned();
        for x in f {
            s += ":";
            s += x;
        }
        s
    })
}

/// A mutation of a text: (kind, position, byte).
fn mutate(text: &str, edits: &[(u8, usize, u8)]) -> String {
    let mut b = text.as_bytes().to_vec();
    for &(kind, at, byte) in edits {
        let at = at % (b.len() + 1);
        match kind % 5 {
            0 if at < b.len() => b[at] = byte,
            1 => b.insert(at, byte),
            2 if at < b.len() => {
                b.remove(at);
            }
            3 => b.truncate(at),
            _ => {
                // Duplicate the line at `at`.
                let start = b[..at]
                    .iter()
                    .rposition(|&c| c == b'\n')
                    .map_or(0, |p| p + 1);
                let end = b[at..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| at + p + 1);
                let line = b[start..end].to_vec();
                b.splice(start..start, line);
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// The rule restated here and hip-build's agree.
    #[test]
    fn target_rule_matches_hip_build(target in arch(), device in arch()) {
        prop_assert_eq!(
            target_runs_on(&target, &device),
            hip_build_select::target_runs_on(&target, &device)
        );
    }

    /// Any bytes after a valid bundle, any source and kernel list: what
    /// was written is what is read.
    #[test]
    fn round_trips(
        tail in prop::collection::vec(any::<u8>(), 0..300),
        source in "[a-zA-Z0-9_.][a-zA-Z0-9_./ -]{0,19}",
        kernels in prop::collection::vec(("[a-zA-Z_][a-zA-Z0-9_]{0,12}", "[!-~][ -~]{0,29}"), 0..4),
        crlf in any::<bool>(),
    ) {
        let mut image = tiny_bundle();
        image.extend(&tail);
        let pairs: Vec<(&str, &str)> = kernels.iter().map(|(k, r)| (k.as_str(), r.as_str())).collect();
        let mut text = envelope(&image, Some(&source), &["gfx90a", "gfx1100"], &pairs);
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let e = Envelope::parse(&text).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(e.image(), &image[..]);
        prop_assert_eq!(e.source(), Some(source.trim()));
        prop_assert_eq!(e.unavailable().len(), pairs.len());
        for (u, (k, r)) in e.unavailable().iter().zip(&pairs) {
            prop_assert_eq!(&u.kernel, k);
            prop_assert_eq!(&u.reason, r.trim());
        }
    }

    /// Arbitrary text, and arbitrary text after the magic line, never
    /// panics.
    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,400}", magic in any::<bool>()) {
        let text = if magic { format!("{}\n{text}", Envelope::MAGIC) } else { text };
        if Envelope::parse(&text).is_ok() {
            prop_assert!(Envelope::is_envelope(&text));
        }
    }

    /// Edits of a valid envelope never panic; whatever is still accepted
    /// carries a valid AMD bundle whose checksum is the header's.
    #[test]
    fn mutated_envelopes_never_panic(
        edits in prop::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..6),
    ) {
        let text = envelope(&tiny_bundle(), Some("a.cu"), &["gfx90a"], &[("k", "why")]);
        let mutated = mutate(&text, &edits);
        if let Ok(e) = Envelope::parse(&mutated) {
            prop_assert!(validate(e.image(), Platform::Amd).is_ok());
            prop_assert!(mutated.contains(&sha256_hex(e.image())));
        }
    }
}
