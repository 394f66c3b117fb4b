//! `session`: the tables and counts of scripts/gpu-session.sh.
//!
//! The session runs the bundle's runner, cudarc's examples, candle and the
//! benchmarks; each step's outcome goes into a ledger file as lines
//! `MODE<TAB>line<TAB>TEXT` (a table line), `MODE<TAB>count<TAB>P<TAB>F<TAB>S`
//! and `MODE<TAB>subtotal` (the mode's count so far, as a table line).
//! `report` prints one table per mode and the session's last line.

use std::path::Path;
use std::process::ExitCode;

use crate::gpu_run::append;
use crate::text;
use crate::{args_n, number, status, Result};
use bench_verdict::Outcome;

/// A table row: `| LABEL (44 wide) | VALUE |`.
pub(crate) fn row(label: &str, value: &str) -> String {
    format!("| {label:<44} | {value} |")
}

/// What one step adds to its mode's table and counts.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Table lines, in order.
    pub(crate) lines: Vec<String>,
    /// Passed, failed, skipped.
    pub(crate) counts: [u64; 3],
    /// Whether the mode's subtotal line follows the lines.
    pub(crate) subtotal: bool,
    /// A step not run for a missing input: its name (the word
    /// `GPU_SESSION_ALLOW_SKIP` lists to allow it) and why.
    pub(crate) not_run: Option<(String, String)>,
}

/// A step not run for a missing input (a pack not bundled, fewer than two
/// GPUs, the other benchmark part): one row, counted as skipped, and a
/// "not run" record that [`report`] lists at the end and fails unless the
/// session's allowed names (`GPU_SESSION_ALLOW_SKIP`) include `name`.
pub(crate) fn not_run(name: &str, label: &str, why: &str) -> Entry {
    Entry {
        lines: vec![row(label, why)],
        counts: [0, 0, 1],
        subtotal: false,
        not_run: Some((name.to_string(), format!("{label}: {why}"))),
    }
}

fn last_line(log: &[String]) -> &str {
    log.last().map_or("", String::as_str)
}

/// Leading digits of `s`: the number and the rest.
fn leading_number(s: &str) -> Option<(u64, &str)> {
    let n = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if n == 0 {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}

/// `N passed, N failed` at the start of `line`: the counts and the rest.
fn summary_counts(line: &str) -> Option<(u64, u64, &str)> {
    let (p, rest) = leading_number(line)?;
    let (f, rest) = leading_number(rest.strip_prefix(" passed, ")?)?;
    Some((p, f, rest.strip_prefix(" failed")?))
}

/// `line` is exactly a runner's last line, `N passed, N failed` with
/// `, N skipped` or not: passed, failed, skipped.
fn exact_summary(line: &str) -> Option<(u64, u64, u64)> {
    let (p, f, rest) = summary_counts(line)?;
    if rest.is_empty() {
        return Some((p, f, 0));
    }
    let (s, rest) = leading_number(rest.strip_prefix(", ")?)?;
    (rest == " skipped").then_some((p, f, s))
}

/// The runner's (`run.sh MODE`) part: its `--- ` lines and memcheck
/// verdicts as rows, its count lines, and its last line's counts; a missing
/// last line, or a failing exit with no failure counted, is a failure.
pub(crate) fn runner(mode: &str, log: &[String], rc: i32, log_path: &str) -> Entry {
    let mut e = Entry {
        subtotal: true,
        ..Entry::default()
    };
    for line in log.iter().filter(|l| l.starts_with("--- ")) {
        // As `read -r` and `${line#--- }` left it.
        let line = line.trim_end_matches([' ', '\t']);
        let line = line.strip_prefix("--- ").unwrap_or(line);
        let key = line.split_once(": ").map_or(line, |(k, _)| k);
        let value = line.split_once(": ").map_or(line, |(_, v)| v);
        e.lines.push(row(key, value));
    }
    for line in log
        .iter()
        .filter(|l| l.starts_with('[') && l.contains("] ERROR SUMMARY"))
    {
        let line = line.trim();
        let key = line.split_once(']').map_or(line, |(k, _)| k);
        let value = line.split_once("] ").map_or(line, |(_, v)| v);
        e.lines.push(row(&format!("memcheck {key}]"), value));
    }
    if let Some(start) = log.iter().position(|l| l.starts_with("== counts")) {
        let counts = &log[start + 1..];
        e.lines
            .extend(counts[..counts.len().saturating_sub(1)].iter().cloned());
    }
    match exact_summary(last_line(log)) {
        Some((p, f, s)) => {
            e.counts = [p, f, s];
            if rc != 0 && f == 0 {
                e.counts[1] = 1;
                e.lines.push(format!(
                    "FAILED: run.sh {mode} exited {rc} with no failure counted"
                ));
            }
        }
        None => {
            e.counts = [0, 1, 0];
            e.lines.push(format!(
                "FAILED: run.sh {mode} printed no summary (exit {rc}); see {log_path}"
            ));
        }
    }
    e
}

/// A script's part whose last line is `N passed, N failed` (cudarc's
/// examples, candle): a row, and its counts; a missing line, or a failing
/// exit with no failure counted, is a failure. cudarc's examples that did
/// not run or differ as documented count as skipped.
pub(crate) fn script(
    kind: &str,
    label: &str,
    log: &[String],
    rc: i32,
    expected_verdicts: Option<usize>,
) -> Entry {
    let shown: Vec<&str> = match kind {
        "cudarc" => log[log.len().saturating_sub(2)..]
            .iter()
            .map(String::as_str)
            .collect(),
        _ => log
            .iter()
            .filter(|l| l.starts_with("| total") || l.starts_with("llama"))
            .map(String::as_str)
            .collect(),
    };
    let mut e = Entry {
        lines: vec![row(label, &format!("exit {rc}: {}", shown.join(" ")))],
        ..Entry::default()
    };
    match summary_counts(last_line(log)) {
        Some((p, f, _)) => {
            e.counts = [p, f, 0];
            if rc != 0 && f == 0 {
                e.counts[1] = 1;
            }
        }
        None => e.counts[1] = 1,
    }
    // A benchmark script: its verdict lines counted, each met.
    if let Some(why) = expected_verdicts.and_then(|n| verdicts(log, n)) {
        e.lines.push(format!("FAILED: {label}: {why}"));
        e.counts[1] = e.counts[1].max(1);
    }
    if kind == "cudarc" {
        let last_count = |word: &str| {
            log.iter()
                .rev()
                .find_map(|l| {
                    let (n, rest) = leading_number(l)?;
                    rest.starts_with(word).then_some(n)
                })
                .unwrap_or(0)
        };
        e.counts[2] += last_count(" not run") + last_count(" differ") + last_count(" explained");
    }
    e
}

/// A verdict line ends with its outcome: `met`, `NOT met` or `undecided`
/// (bench-verdict's words, after `: `).
fn verdict_word(line: &str) -> Option<Outcome> {
    let line = line.trim_end();
    [Outcome::Met, Outcome::NotMet, Outcome::Undecided]
        .into_iter()
        .find(|o| line.ends_with(&format!(": {}", o.word())))
}

/// What a log's verdict lines say against the `expected` count: `None`
/// when there are exactly that many and all are `met`, else why not (a
/// missing verdict line, a target NOT met, an undecided one).
pub(crate) fn verdicts(log: &[String], expected: usize) -> Option<String> {
    let found: Vec<Outcome> = log.iter().filter_map(|l| verdict_word(l)).collect();
    let mut why = Vec::new();
    if found.len() != expected {
        why.push(format!(
            "{} verdict line(s) where {expected} were expected",
            found.len()
        ));
    }
    for o in [Outcome::NotMet, Outcome::Undecided] {
        let n = found.iter().filter(|&&f| f == o).count();
        if n > 0 {
            why.push(format!("{n} target(s) {}", o.word()));
        }
    }
    (!why.is_empty()).then(|| why.join(", "))
}

/// A benchmark step with `expected` verdict lines in `log`: it passes when
/// it exits 0 and prints exactly that many, all `met`. A missing verdict
/// line, a `NOT met` or an `undecided` fails it, whatever its exit status.
pub(crate) fn bench(label: &str, rc: i32, expected: usize, log: &[String], note: &str) -> Entry {
    match verdicts(log, expected) {
        Some(why) if rc == 0 => step(
            label,
            1,
            &if note.is_empty() {
                why
            } else {
                format!("{why}: {note}")
            },
        ),
        _ => step(label, rc, note),
    }
}

/// The capture tests' negative control: with the capture gate off
/// (`HIP_TEST_CAPTURE_GATE=off`) the tests that the gate keeps safe must
/// fail, or the tests do not test the gate. Passes when every test named
/// in `must_fail` failed (`test NAME ... FAILED`) or the binary crashed
/// before reporting it (no `test NAME ... ok` and a non-zero exit other
/// than a timeout); fails when one passed, the binary exited 0, or it
/// timed out (no verdict).
pub(crate) fn negative_control(
    label: &str,
    rc: i32,
    log: &[String],
    must_fail: &[String],
) -> Entry {
    let outcome = |name: &str| {
        log.iter()
            .filter_map(|l| text::test_line_loose(l))
            .find(|(t, _)| *t == name)
            .map(|(_, o)| o.word())
    };
    let passed: Vec<&str> = must_fail
        .iter()
        .map(String::as_str)
        .filter(|t| outcome(t) == Some("ok"))
        .collect();
    let value = if rc == 124 || rc == 137 {
        Err("timed out: no outcome with the gate off".to_string())
    } else if !passed.is_empty() {
        Err(format!(
            "passed with the capture gate off, so they do not test the gate: {}",
            passed.join(", ")
        ))
    } else if rc == 0 {
        Err("the binary exited 0 with the capture gate off".to_string())
    } else if must_fail.is_empty() {
        Err("no test named to fail".to_string())
    } else {
        Ok(format!(
            "failed as it must with the capture gate off (exit {rc}): {}",
            must_fail
                .iter()
                .map(|t| format!("{t} {}", outcome(t).unwrap_or("no outcome (crashed)")))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    };
    match value {
        Ok(v) => Entry {
            lines: vec![row(label, &format!("ok ({v})"))],
            counts: [1, 0, 0],
            ..Entry::default()
        },
        Err(why) => Entry {
            lines: vec![row(label, &format!("FAILED: {why}"))],
            counts: [0, 1, 0],
            ..Entry::default()
        },
    }
}

/// A benchmark step: exit 0 passes; the note is what it printed of note.
pub(crate) fn step(label: &str, rc: i32, note: &str) -> Entry {
    let value = if rc == 0 {
        e_ok(note)
    } else {
        let why = if rc == 124 || rc == 137 {
            "timed out".to_string()
        } else {
            format!("exit {rc}")
        };
        if note.is_empty() {
            format!("FAILED ({why})")
        } else {
            format!("FAILED ({why}): {note}")
        }
    };
    Entry {
        lines: vec![row(label, &value)],
        counts: if rc == 0 { [1, 0, 0] } else { [0, 1, 0] },
        ..Entry::default()
    }
}

fn e_ok(note: &str) -> String {
    if note.is_empty() {
        "ok".into()
    } else {
        format!("ok ({note})")
    }
}

/// torch_allreduce.py's bus bandwidths at 256 MiB and 1 GiB:
/// `256 MiB busbw X GB/s, 1024 MiB busbw Y GB/s`.
pub(crate) fn allreduce_note(lines: &[String]) -> String {
    lines
        .iter()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.first() != Some(&"allreduce") {
                return None;
            }
            let bytes: f64 = f.get(1)?.parse().ok()?;
            if bytes != 268435456.0 && bytes != 1073741824.0 {
                return None;
            }
            Some(format!(
                "{} MiB busbw {} GB/s",
                (bytes / 1048576.0) as u64,
                f.get(4).copied().unwrap_or("")
            ))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn records(mode: &str, e: &Entry) -> Vec<String> {
    let mut r: Vec<String> = e
        .lines
        .iter()
        .map(|l| format!("{mode}\tline\t{l}"))
        .collect();
    r.push(format!(
        "{mode}\tcount\t{}\t{}\t{}",
        e.counts[0], e.counts[1], e.counts[2]
    ));
    if e.subtotal {
        r.push(format!("{mode}\tsubtotal"));
    }
    if let Some((name, what)) = &e.not_run {
        r.push(format!("{mode}\tnotrun\t{name}\t{what}"));
    }
    r
}

/// The session's tables and last lines from its ledger, for the session
/// mode `whole` (`all` makes memcheck a re-run); true when nothing failed
/// and every step not run is named in `allowed` (`GPU_SESSION_ALLOW_SKIP`,
/// space-separated). The steps not run are listed before the last line.
pub(crate) fn report(ledger: &[String], whole: &str, allowed: &str) -> (Vec<String>, bool) {
    let allowed: Vec<&str> = allowed.split_whitespace().collect();
    let mut not_run: Vec<(String, String)> = Vec::new();
    // Per mode, in order of first appearance: table lines and counts.
    let mut modes: Vec<(String, Vec<String>, [u64; 3])> = Vec::new();
    for record in ledger {
        let mut f = record.splitn(3, '\t');
        let (Some(mode), Some(kind)) = (f.next(), f.next()) else {
            continue;
        };
        let rest = f.next().unwrap_or("");
        let i = match modes.iter().position(|m| m.0 == mode) {
            Some(i) => i,
            None => {
                modes.push((mode.to_string(), Vec::new(), [0; 3]));
                modes.len() - 1
            }
        };
        let m = &mut modes[i];
        match kind {
            "line" => m.1.push(rest.to_string()),
            "count" => {
                for (c, v) in m.2.iter_mut().zip(rest.split('\t')) {
                    *c += v.parse::<u64>().unwrap_or(0);
                }
            }
            "subtotal" => m.1.push(format!(
                "{}: {} passed, {} failed, {} skipped",
                m.0, m.2[0], m.2[1], m.2[2]
            )),
            "notrun" => {
                let (name, what) = rest.split_once('\t').unwrap_or((rest, ""));
                not_run.push((name.to_string(), what.to_string()));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    let mut rerun = None;
    for (mode, lines, [p, f, s]) in &modes {
        out.push(String::new());
        out.extend(lines.iter().cloned());
        if mode == "bench" {
            out.push(if *s > 0 {
                format!("bench: {p} passed, {f} failed, {s} skipped")
            } else {
                format!("bench: {p} passed, {f} failed")
            });
        }
        if mode == "memcheck" && whole == "all" {
            rerun = Some(format!(
                "re-runs under memcheck (the same tests again): {p} passed, {f} failed"
            ));
            failed += f;
        } else {
            passed += p;
            failed += f;
            skipped += s;
        }
    }
    out.push(String::new());
    // The steps not run, each once (the multi-GPU steps share a name).
    let mut refused = Vec::new();
    if !not_run.is_empty() {
        out.push(format!(
            "not run ({} steps; GPU_SESSION_ALLOW_SKIP={:?}):",
            not_run.len(),
            allowed.join(" ")
        ));
        for (name, what) in &not_run {
            let ok = allowed.contains(&name.as_str());
            if !ok && !refused.contains(name) {
                refused.push(name.clone());
            }
            out.push(format!(
                "  {name}: {what}{}",
                if ok { " (allowed)" } else { " (NOT allowed)" }
            ));
        }
        if !refused.is_empty() {
            out.push(format!(
                "FAILED: steps not run and not allowed: {}; GPU_SESSION_ALLOW_SKIP=\"{}\" allows them",
                refused.join(" "),
                refused.join(" ")
            ));
        }
    }
    out.extend(rerun);
    out.push(if skipped > 0 {
        format!("{passed} passed, {failed} failed, {skipped} skipped")
    } else {
        format!("{passed} passed, {failed} failed")
    });
    (out, failed == 0 && refused.is_empty())
}

fn log_of(path: &str) -> Vec<String> {
    text::grep_lines(Path::new(path)).unwrap_or_default()
}

/// `session SUBCOMMAND LEDGER ...`.
pub(crate) fn command(args: &[String]) -> Result<ExitCode> {
    let Some((sub, rest)) = args.split_first() else {
        return Err(
            "session: begin|runner|summary|step|bench|control|skip|allreduce|report".into(),
        );
    };
    let write = |ledger: &str, mode: &str, e: Entry| -> Result<ExitCode> {
        for r in records(mode, &e) {
            append(Path::new(ledger), &r)?;
        }
        Ok(ExitCode::SUCCESS)
    };
    match sub.as_str() {
        "begin" => {
            let a = args_n(rest, 3, "session begin")?;
            let e = Entry {
                lines: vec![format!("== GPU session: {}", a[1]), row("device", &a[2])],
                ..Entry::default()
            };
            write(&a[0], &a[1], e)
        }
        "runner" => {
            let a = args_n(rest, 4, "session runner")?;
            write(
                &a[0],
                &a[1],
                runner(&a[1], &log_of(&a[2]), number(&a[3], "exit status")?, &a[2]),
            )
        }
        "summary" => {
            // LEDGER MODE LABEL LOG RC KIND [EXPECTED-VERDICTS]
            let a = if rest.len() == 7 {
                rest
            } else {
                args_n(rest, 6, "session summary")?
            };
            let expected = match a.get(6) {
                Some(n) => Some(number::<usize>(n, "expected verdicts")?),
                None => None,
            };
            write(
                &a[0],
                &a[1],
                script(
                    &a[5],
                    &a[2],
                    &log_of(&a[3]),
                    number(&a[4], "exit status")?,
                    expected,
                ),
            )
        }
        "bench" => {
            // LEDGER MODE LABEL RC EXPECTED-VERDICTS LOG NOTE
            let a = args_n(rest, 7, "session bench")?;
            let e = bench(
                &a[2],
                number(&a[3], "exit status")?,
                number::<usize>(&a[4], "expected verdicts")?,
                &log_of(&a[5]),
                &a[6],
            );
            write(&a[0], &a[1], e)
        }
        "control" => {
            // LEDGER MODE LABEL RC LOG TEST...
            if rest.len() < 5 {
                return Err("session control LEDGER MODE LABEL RC LOG TEST...".into());
            }
            let e = negative_control(
                &rest[2],
                number(&rest[3], "exit status")?,
                &log_of(&rest[4]),
                &rest[5..],
            );
            write(&rest[0], &rest[1], e)
        }
        "step" => {
            let a = args_n(rest, 5, "session step")?;
            write(
                &a[0],
                &a[1],
                step(&a[2], number(&a[3], "exit status")?, &a[4]),
            )
        }
        "skip" => {
            // LEDGER MODE NAME LABEL WHY
            let a = args_n(rest, 5, "session skip")?;
            write(&a[0], &a[1], not_run(&a[2], &a[3], &a[4]))
        }
        "allreduce" => {
            let a = args_n(rest, 1, "session allreduce")?;
            println!("{}", allreduce_note(&log_of(&a[0])));
            Ok(ExitCode::SUCCESS)
        }
        "report" => {
            // LEDGER WHOLE-MODE [ALLOWED-NOT-RUN]
            let a = if rest.len() == 3 {
                rest
            } else {
                args_n(rest, 2, "session report")?
            };
            let (lines, ok) = report(&log_of(&a[0]), &a[1], a.get(2).map_or("", String::as_str));
            for l in &lines {
                println!("{l}");
            }
            Ok(status(ok))
        }
        other => Err(format!("session: unknown subcommand {other:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        text::split_newlines(s)
    }

    const RUNNER: &str = "\
GPUs: 1 (nvidia-smi -L)
=== test hip--gpu
--- not run hip--gpu gpu::two_gpus_peer_access: needs two GPUs (1 found)
test gpu::copies ... ok
[hip--gpu] ERROR SUMMARY: 0
--- test hip--gpu: ok (1 passed)

== counts (memcheck)
tests (each test function once): 1 passed, 0 failed, in 1 test binaries
not run: 1
  not run: hip--gpu gpu::two_gpus_peer_access: needs two GPUs (1 found)
1 passed, 0 failed, 1 skipped
";

    #[test]
    fn the_runners_lines_become_rows() {
        let e = runner("memcheck", &lines(RUNNER), 0, "/o/memcheck.log");
        assert_eq!(e.counts, [1, 0, 1]);
        assert_eq!(
            e.lines[0],
            row(
                "not run hip--gpu gpu::two_gpus_peer_access",
                "needs two GPUs (1 found)"
            )
        );
        assert_eq!(e.lines[1], row("test hip--gpu", "ok (1 passed)"));
        assert_eq!(e.lines[2], row("memcheck [hip--gpu]", "ERROR SUMMARY: 0"));
        assert_eq!(
            e.lines[3],
            "tests (each test function once): 1 passed, 0 failed, in 1 test binaries"
        );
        assert_eq!(e.lines.len(), 6);
        assert!(e.subtotal);
    }

    #[test]
    fn a_runner_without_summary_or_with_a_silent_failure_fails() {
        let e = runner(
            "tests",
            &lines("=== test x\nSegmentation fault\n"),
            139,
            "/o/tests.log",
        );
        assert_eq!(e.counts, [0, 1, 0]);
        assert_eq!(
            e.lines.last().unwrap(),
            "FAILED: run.sh tests printed no summary (exit 139); see /o/tests.log"
        );
        let e = runner("tests", &lines("2 passed, 0 failed\n"), 1, "/o/tests.log");
        assert_eq!(e.counts, [2, 1, 0]);
        assert_eq!(
            e.lines.last().unwrap(),
            "FAILED: run.sh tests exited 1 with no failure counted"
        );
        // Not exactly the last line's shape: no summary.
        assert_eq!(
            runner("tests", &lines("2 passed, 0 failed, soon\n"), 0, "l").counts,
            [0, 1, 0]
        );
    }

    #[test]
    fn scripts_summaries_and_cudarcs_skips() {
        let cudarc = lines("13-copy-multi-gpu not run\n1 differ from CUDA as documented\n2 not run\n2 explained: by design\n9 passed, 0 failed\n");
        let e = script(
            "cudarc",
            "cudarc examples (cuda-compat as cudarc)",
            &cudarc,
            0,
            None,
        );
        assert_eq!(e.counts, [9, 0, 5]);
        assert_eq!(
            e.lines,
            [row(
                "cudarc examples (cuda-compat as cudarc)",
                "exit 0: 2 explained: by design 9 passed, 0 failed"
            )]
        );
        let candle = lines("| total | 10/1/0 | 11/0/0 |\nllama f32: ok: x\nllama bf16: FAILED\n11 passed, 2 failed\n");
        let e = script("candle", "candle run", &candle, 1, None);
        assert_eq!(e.counts, [11, 2, 0]);
        assert!(e.lines[0]
            .contains("exit 1: | total | 10/1/0 | 11/0/0 | llama f32: ok: x llama bf16: FAILED"));
        assert_eq!(
            script("candle", "c", &lines("killed\n"), 137, None).counts,
            [0, 1, 0]
        );
        assert_eq!(
            script("candle", "c", &lines("3 passed, 0 failed\n"), 2, None).counts,
            [3, 1, 0]
        );
    }

    #[test]
    fn steps_and_the_allreduce_note() {
        assert_eq!(
            step("gemm_bench", 0, "worst ratio 0.99").lines[0],
            row("gemm_bench", "ok (worst ratio 0.99)")
        );
        assert_eq!(step("x", 124, "").lines[0], row("x", "FAILED (timed out)"));
        assert_eq!(step("x", 2, "n").lines[0], row("x", "FAILED (exit 2): n"));
        assert_eq!(step("x", 2, "n").counts, [0, 1, 0]);
        let torch = lines("world_size 2\nallreduce 1048576 9.0 100.0 110.5\nallreduce 268435456 900.0 298.3 298.3\nallreduce 1073741824 3400 310.2 315.0\n");
        assert_eq!(
            allreduce_note(&torch),
            "256 MiB busbw 298.3 GB/s, 1024 MiB busbw 315.0 GB/s"
        );
    }

    #[test]
    fn report_of_all_counts_memcheck_as_reruns() {
        let mut ledger = Vec::new();
        for (mode, e) in [
            (
                "tests",
                runner(
                    "tests",
                    &lines("--- test a: ok (2 passed)\n2 passed, 0 failed, 1 skipped\n"),
                    0,
                    "l",
                ),
            ),
            (
                "tests",
                script(
                    "cudarc",
                    "cudarc",
                    &lines("1 not run\n3 passed, 0 failed\n"),
                    0,
                    None,
                ),
            ),
            (
                "memcheck",
                runner("memcheck", &lines("1 passed, 1 failed\n"), 1, "l"),
            ),
            ("bench", step("gemm_bench", 0, "")),
            ("bench", step("launch_rate", 1, "")),
        ] {
            ledger.extend(records(mode, &e));
        }
        let (out, ok) = report(&ledger, "all", "");
        assert!(!ok);
        assert!(
            out.contains(&"tests: 2 passed, 0 failed, 1 skipped".to_string()),
            "{out:?}"
        );
        assert!(out.contains(&"bench: 1 passed, 1 failed".to_string()));
        assert_eq!(
            out[out.len() - 2],
            "re-runs under memcheck (the same tests again): 1 passed, 1 failed"
        );
        assert_eq!(out.last().unwrap(), "6 passed, 2 failed, 2 skipped");
        // memcheck alone is its own count.
        let (out, _) = report(&ledger, "memcheck", "");
        assert_eq!(out.last().unwrap(), "7 passed, 2 failed, 2 skipped");
    }

    #[test]
    fn verdict_lines_are_counted_and_each_must_be_met() {
        let log = lines(
            "lt_bench: lowest ratio vs torch 1.00; target >= 0.95: met\n\
             lt_bench: lowest fused speed-up 1.20; target >= 1.1: met\n",
        );
        assert_eq!(verdicts(&log, 2), None);
        let e = bench("lt_bench", 0, 2, &log, "note");
        assert_eq!(e.counts, [1, 0, 0]);
        assert_eq!(e.lines[0], row("lt_bench", "ok (note)"));
        // One verdict line missing: failed, though the program exited 0.
        let e = bench("lt_bench", 0, 2, &log[..1], "");
        assert_eq!(e.counts, [0, 1, 0]);
        assert_eq!(
            e.lines[0],
            row(
                "lt_bench",
                "FAILED (exit 1): 1 verdict line(s) where 2 were expected"
            )
        );
        // Undecided fails as NOT met does; the indented explanation after
        // it is not a verdict line.
        let log = lines(
            "x: speed median 0.98 [95% interval 0.96, 1.00] of 9 paired rounds; target >= 0.97: undecided\n\
             \x20 undecided (counts as failed): the 95% interval 0.960..1.000 holds the target 0.97; about 20 more rounds\n\
             y: ratio 0.5; target >= 0.9: NOT met\n",
        );
        assert_eq!(
            verdicts(&log, 2).as_deref(),
            Some("1 target(s) NOT met, 1 target(s) undecided")
        );
        assert_eq!(bench("x", 0, 2, &log, "").counts, [0, 1, 0]);
        // A failing exit stays the failure it was.
        assert_eq!(
            bench("x", 124, 2, &log, "").lines[0],
            row("x", "FAILED (timed out)")
        );
        // "met" inside a word or mid-line is not a verdict.
        assert_eq!(
            verdicts(&lines("the target was met earlier\nunmet\n"), 0),
            None
        );
        // A script's summary with its verdicts counted (candle bench).
        let candle = lines("llama step f32: speed ...; target >= 0.97: met\n1 passed, 0 failed\n");
        assert_eq!(
            script("candle", "candle bench", &candle, 0, Some(1)).counts,
            [1, 0, 0]
        );
        let e = script("candle", "candle bench", &candle, 0, Some(6));
        assert_eq!(e.counts, [1, 1, 0]);
        assert_eq!(
            e.lines[1],
            "FAILED: candle bench: 1 verdict line(s) where 6 were expected"
        );
    }

    #[test]
    fn the_negative_control_must_fail_with_the_gate_off() {
        let must = [
            "device_synchronize".to_string(),
            "untracked_stream_allocation".to_string(),
        ];
        let failed = lines(
            "test device_synchronize ... FAILED\ntest untracked_stream_allocation ... FAILED\n\
             test result: FAILED. 0 passed; 2 failed\n",
        );
        let e = negative_control("capture gate off", 101, &failed, &must);
        assert_eq!(e.counts, [1, 0, 0]);
        assert!(e.lines[0].contains("ok (failed as it must with the capture gate off (exit 101): device_synchronize FAILED, untracked_stream_allocation FAILED)"), "{}", e.lines[0]);
        // A crash before the second test reported: still a failure of it.
        let crashed = lines("test device_synchronize ... FAILED\n");
        let e = negative_control("capture gate off", 139, &crashed, &must);
        assert_eq!(e.counts, [1, 0, 0]);
        assert!(e.lines[0].contains("untracked_stream_allocation no outcome (crashed)"));
        // One passed with the gate off: the tests do not test the gate.
        let passed =
            lines("test device_synchronize ... ok\ntest untracked_stream_allocation ... FAILED\n");
        let e = negative_control("capture gate off", 101, &passed, &must);
        assert_eq!(e.counts, [0, 1, 0]);
        assert!(e.lines[0].contains("FAILED: passed with the capture gate off, so they do not test the gate: device_synchronize"));
        // Exit 0, or a timeout: no proof either.
        assert_eq!(
            negative_control("c", 0, &lines(""), &must).counts,
            [0, 1, 0]
        );
        assert!(negative_control("c", 124, &crashed, &must).lines[0].contains("timed out"));
        assert_eq!(negative_control("c", 1, &crashed, &[]).counts, [0, 1, 0]);
    }

    #[test]
    fn steps_not_run_fail_the_session_unless_allowed() {
        let mut ledger = Vec::new();
        for (mode, e) in [
            ("bench", step("gemm_bench", 0, "")),
            (
                "bench",
                not_run(
                    "multi-gpu",
                    "allreduce_bench",
                    "not run: needs two GPUs (1 found)",
                ),
            ),
            (
                "bench",
                not_run("multi-gpu", "pipeline", "not run: needs two GPUs (1 found)"),
            ),
            (
                "bench",
                not_run(
                    "candle-bench",
                    "candle bench (cuda-compat vs real cudarc)",
                    "not run: no gpu-bundle/candle.tar.xz",
                ),
            ),
        ] {
            ledger.extend(records(mode, &e));
        }
        let (out, ok) = report(&ledger, "bench", "");
        assert!(!ok);
        assert_eq!(out.last().unwrap(), "1 passed, 0 failed, 3 skipped");
        assert!(
            out.contains(&"not run (3 steps; GPU_SESSION_ALLOW_SKIP=\"\"):".to_string()),
            "{out:?}"
        );
        assert!(
            out.contains(
                &"  multi-gpu: pipeline: not run: needs two GPUs (1 found) (NOT allowed)"
                    .to_string()
            ),
            "{out:?}"
        );
        assert_eq!(
            out[out.len() - 2],
            "FAILED: steps not run and not allowed: multi-gpu candle-bench; GPU_SESSION_ALLOW_SKIP=\"multi-gpu candle-bench\" allows them"
        );
        // Allowing one of the two names is not enough.
        let (out, ok) = report(&ledger, "bench", "multi-gpu");
        assert!(!ok);
        assert!(
            out[out.len() - 2].contains("not allowed: candle-bench;"),
            "{out:?}"
        );
        // Both allowed: passes, still listed.
        let (out, ok) = report(&ledger, "bench", "candle-bench multi-gpu");
        assert!(ok, "{out:?}");
        assert!(out.contains(&"  candle-bench: candle bench (cuda-compat vs real cudarc): not run: no gpu-bundle/candle.tar.xz (allowed)".to_string()));
        // A session with nothing skipped lists nothing.
        let (out, ok) = report(&records("bench", &step("x", 0, "")), "bench", "");
        assert!(ok);
        assert!(!out.iter().any(|l| l.starts_with("not run")));
    }
}
