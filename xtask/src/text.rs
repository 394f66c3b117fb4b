//! Reading logs, and the line shapes every command looks for: libtest's
//! per-test lines and summaries, and numbers printed the way awk prints
//! them (the GPU scripts' earlier lines keep their look).

use std::io::Read;
use std::path::Path;

/// A file's lines, split at `\n`, `\r\n` and a lone `\r`, invalid UTF-8
/// replaced: how Python reads text, which test.sh's counts did before.
/// A missing file has no lines.
pub(crate) fn universal_lines(path: &Path) -> Vec<String> {
    match std::fs::read(path) {
        Ok(bytes) => split_universal(&String::from_utf8_lossy(&bytes)),
        Err(_) => Vec::new(),
    }
}

/// [`universal_lines`] of text in hand.
pub(crate) fn split_universal(text: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find(['\n', '\r']) {
            None => {
                lines.push(rest.to_string());
                break;
            }
            Some(i) => {
                lines.push(rest[..i].to_string());
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
            }
        }
    }
    lines
}

/// A file's lines split at `\n` only, as grep and sed see them.
pub(crate) fn grep_lines(path: &Path) -> std::io::Result<Vec<String>> {
    let bytes = std::fs::read(path)?;
    Ok(split_newlines(&String::from_utf8_lossy(&bytes)))
}

/// Text split at `\n`, without an empty last line for a final newline.
pub(crate) fn split_newlines(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

/// Standard input's lines, split at `\n`.
pub(crate) fn stdin_lines() -> std::io::Result<Vec<String>> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes)?;
    Ok(split_newlines(&String::from_utf8_lossy(&bytes)))
}

/// A test's outcome on libtest's per-test line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Outcome {
    /// `ok`
    Ok,
    /// `FAILED`
    Failed,
    /// `ignored`
    Ignored,
}

impl Outcome {
    const ALL: [Outcome; 3] = [Outcome::Ok, Outcome::Failed, Outcome::Ignored];

    /// The word libtest prints.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Failed => "FAILED",
            Outcome::Ignored => "ignored",
        }
    }

    /// The outcome `s` starts with, and the rest.
    fn prefix_of(s: &str) -> Option<(Outcome, &str)> {
        Outcome::ALL
            .into_iter()
            .find_map(|o| s.strip_prefix(o.word()).map(|rest| (o, rest)))
    }
}

/// `test NAME ... OUTCOME` (optionally `, REASON` after it): the name and
/// outcome. The name runs to the last ` ... ` that is followed by an
/// outcome and the line's end or `, `.
pub(crate) fn test_line(line: &str) -> Option<(&str, Outcome)> {
    test_line_by(line, |rest| rest.is_empty() || rest.starts_with(", "))
}

/// [`test_line`] as `sed 's/^test (.+) \.\.\. (ok|FAILED|ignored).*$/'`
/// reads it: anything may follow the outcome.
pub(crate) fn test_line_loose(line: &str) -> Option<(&str, Outcome)> {
    test_line_by(line, |_| true)
}

fn test_line_by(line: &str, tail_ok: impl Fn(&str) -> bool) -> Option<(&str, Outcome)> {
    let body = line.strip_prefix("test ")?;
    // Every ` ... `, overlapping ones too, the rightmost first (the name
    // is greedy).
    let bytes = body.as_bytes();
    (1..bytes.len())
        .rev()
        .filter(|&at| bytes[at..].starts_with(b" ... "))
        .find_map(|at| {
            let (outcome, rest) = Outcome::prefix_of(&body[at + 5..])?;
            tail_ok(rest).then_some((&body[..at], outcome))
        })
}

/// libtest's summary counts: passed, failed, ignored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Tests that passed.
    pub(crate) passed: u64,
    /// Tests that failed.
    pub(crate) failed: u64,
    /// Tests ignored.
    pub(crate) ignored: u64,
}

impl Counts {
    /// Adds `other` to these counts.
    pub(crate) fn add(&mut self, other: Counts) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.ignored += other.ignored;
    }
}

/// `test result: WORD. N passed; N failed; N ignored...`.
pub(crate) fn summary_line(line: &str) -> Option<Counts> {
    let rest = line.strip_prefix("test result: ")?;
    let word_len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    if word_len == 0 {
        return None;
    }
    let rest = rest[word_len..].strip_prefix(". ")?;
    let (passed, rest) = number_then(rest, " passed; ")?;
    let (failed, rest) = number_then(rest, " failed; ")?;
    let (ignored, _) = number_then(rest, " ignored")?;
    Some(Counts {
        passed,
        failed,
        ignored,
    })
}

/// Leading decimal digits of `s`, then `literal`: the number and the rest.
fn number_then<'a>(s: &'a str, literal: &str) -> Option<(u64, &'a str)> {
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits == 0 {
        return None;
    }
    let n = s[..digits].parse().ok()?;
    Some((n, s[digits..].strip_prefix(literal)?))
}

/// The number in the last ` N WORD` of `line` (as
/// `sed -E 's/.* ([0-9]+) WORD.*/\1/'` finds it).
pub(crate) fn last_number_before(line: &str, word: &str) -> Option<u64> {
    last_number_between(line, " ", &format!(" {word}"))
}

/// The number in the last `BEFORE N AFTER` of `line`, `N` being every
/// digit between the two.
pub(crate) fn last_number_between(line: &str, before: &str, after: &str) -> Option<u64> {
    let mut end = line.len();
    while let Some(at) = line[..end].rfind(after) {
        let head = &line[..at];
        let start = head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        if start < head.len() && head[..start].ends_with(before) {
            return head[start..].parse().ok();
        }
        if at == 0 {
            break;
        }
        end = at + after.len() - 1;
    }
    None
}

/// A number as awk's `print` shows it: an integral value as an integer,
/// any other with `%.6g`.
pub(crate) fn awk_number(v: f64) -> String {
    if v.is_finite() && v == v.trunc() && v.abs() < 1e16 {
        format!("{v:.0}")
    } else {
        format_g(v, 6)
    }
}

/// C's `%.{precision}g`.
pub(crate) fn format_g(v: f64, precision: usize) -> String {
    if !v.is_finite() {
        return if v.is_nan() {
            "nan".into()
        } else if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let p = precision.max(1);
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to p significant digits.
    let sci = format!("{:.*e}", p - 1, v);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e}'s exponent is a number");
    if exp < -4 || exp >= p as i32 {
        let mantissa = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// A number that keeps the text it was read from (awk and `sort -g` print
/// a value as it was written).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Number {
    /// The value.
    pub(crate) value: f64,
    /// The text it was read from.
    pub(crate) text: String,
}

impl Number {
    /// Reads `text` as a decimal number.
    pub(crate) fn parse(text: &str) -> Option<Number> {
        let value = text.trim().parse::<f64>().ok()?;
        Some(Number {
            value,
            text: text.trim().to_string(),
        })
    }
}

/// Sorts as `sort -g` does: by value, ties by the text.
pub(crate) fn sort_numbers(numbers: &mut [Number]) {
    numbers.sort_by(|a, b| {
        a.value
            .partial_cmp(&b.value)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.text.cmp(&b.text))
    });
}

/// Which middle an even count's median takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Middle {
    /// The mean of the two middle values (cudarc's launch benchmark).
    Mean,
    /// The lower of the two (candle's step times).
    Lower,
}

/// The median of `numbers` as text: an odd count's middle value as it was
/// written; an even count's per `middle`. `None` for no numbers.
pub(crate) fn median(numbers: &[Number], middle: Middle) -> Option<String> {
    if numbers.is_empty() {
        return None;
    }
    let mut sorted = numbers.to_vec();
    sort_numbers(&mut sorted);
    let n = sorted.len();
    if n % 2 == 1 || middle == Middle::Lower {
        return Some(sorted[n.div_ceil(2) - 1].text.clone());
    }
    Some(awk_number(
        (sorted[n / 2 - 1].value + sorted[n / 2].value) / 2.0,
    ))
}

/// Words that mark a reason as a placeholder, not a reason: every reviewed
/// list (the cudarc API residue, the AMD spill list) refuses a line whose
/// reason holds one (any case), and their `--write`s refuse to give them
/// to new lines. A reason states the fact that rules the entry in (the HIP
/// fact, the measured register demand) or the design choice and why.
pub(crate) const PROVISIONAL: &[&str] = &["not yet reviewed", "not yet examined", "(issue 33)"];

/// The placeholder `reason` holds, if any ([`PROVISIONAL`]).
pub(crate) fn provisional(reason: &str) -> Option<&'static str> {
    let lower = reason.to_lowercase();
    PROVISIONAL.iter().copied().find(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn universal_newlines_split_like_python() {
        assert_eq!(
            split_universal("a\r\nb\rc\n\nd"),
            vec!["a", "b", "c", "", "d"]
        );
        assert_eq!(split_universal("a\n"), vec!["a"]);
        assert!(split_universal("").is_empty());
    }

    #[test]
    fn test_lines_with_reasons_and_dots_in_names() {
        assert_eq!(
            test_line("test gpu::copies ... ok"),
            Some(("gpu::copies", Outcome::Ok))
        );
        assert_eq!(
            test_line("test gpu::sgemm ... ignored, needs a GPU"),
            Some(("gpu::sgemm", Outcome::Ignored))
        );
        assert_eq!(
            test_line("test a ... b ... FAILED"),
            Some(("a ... b", Outcome::Failed))
        );
        // A doc-test's name holds " - " and a line number.
        assert_eq!(
            test_line("test hip/src/lib.rs - Device (line 12) ... ok"),
            Some(("hip/src/lib.rs - Device (line 12)", Outcome::Ok))
        );
        assert_eq!(test_line("test x ... okay"), None);
        assert_eq!(test_line_loose("test x ... okay"), Some(("x", Outcome::Ok)));
        assert_eq!(test_line("test  ... ok"), None, "an empty name");
        assert_eq!(test_line("running 3 tests"), None);
        assert_eq!(test_line("test x ... "), None);
    }

    #[test]
    fn summaries() {
        assert_eq!(
            summary_line("test result: FAILED. 3 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.01s"),
            Some(Counts { passed: 3, failed: 1, ignored: 2 })
        );
        assert_eq!(summary_line("test result: ok. 0 passed; 0 failed"), None);
        assert_eq!(
            summary_line(" test result: ok. 1 passed; 0 failed; 0 ignored"),
            None
        );
    }

    #[test]
    fn last_number_before_a_word() {
        let s = "test result: FAILED. 12 passed; 3 failed; 0 ignored";
        assert_eq!(last_number_before(s, "passed"), Some(12));
        assert_eq!(last_number_before(s, "failed"), Some(3));
        assert_eq!(
            last_number_before("========= ERROR SUMMARY: 7 errors", "error"),
            Some(7)
        );
        assert_eq!(
            last_number_before("1 passed", "passed"),
            None,
            "needs a space before"
        );
        assert_eq!(
            last_number_before("a 1 passed, b 22 passed", "passed"),
            Some(22)
        );
    }

    #[test]
    fn awk_prints_integers_plainly_and_the_rest_with_6_digits() {
        assert_eq!(awk_number(1234568.0), "1234568");
        assert_eq!(awk_number(1234567.85), "1.23457e+06");
        assert_eq!(awk_number(2.5), "2.5");
        assert_eq!(awk_number(0.000012345), "1.2345e-05");
        assert_eq!(format_g(0.0001, 6), "0.0001");
        assert_eq!(format_g(999999.5, 6), "1e+06");
        assert_eq!(format_g(-3.0, 6), "-3");
    }

    fn numbers(texts: &[&str]) -> Vec<Number> {
        texts.iter().map(|t| Number::parse(t).unwrap()).collect()
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        // Odd: the middle value as written, after a numeric (not text) sort.
        assert_eq!(
            median(&numbers(&["10.50", "9", "100"]), Middle::Mean).unwrap(),
            "10.50"
        );
        // Even: the mean of the middle two, or the lower one.
        assert_eq!(
            median(&numbers(&["4", "1", "3", "2"]), Middle::Mean).unwrap(),
            "2.5"
        );
        assert_eq!(
            median(&numbers(&["4", "1", "3", "2"]), Middle::Lower).unwrap(),
            "2"
        );
        assert_eq!(
            median(&numbers(&["1234567.2", "1234568.5"]), Middle::Mean).unwrap(),
            "1.23457e+06"
        );
        assert_eq!(median(&numbers(&["7"]), Middle::Lower).unwrap(), "7");
        assert_eq!(median(&[], Middle::Mean), None);
    }
}
