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
pub(crate) fn script(kind: &str, label: &str, log: &[String], rc: i32) -> Entry {
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
        e.counts[2] += last_count(" not run") + last_count(" differ");
    }
    e
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
        subtotal: false,
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
    r
}

/// The session's tables and last lines from its ledger, for the session
/// mode `whole` (`all` makes memcheck a re-run); true when nothing failed.
pub(crate) fn report(ledger: &[String], whole: &str) -> (Vec<String>, bool) {
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
    out.extend(rerun);
    out.push(if skipped > 0 {
        format!("{passed} passed, {failed} failed, {skipped} skipped")
    } else {
        format!("{passed} passed, {failed} failed")
    });
    (out, failed == 0)
}

fn log_of(path: &str) -> Vec<String> {
    text::grep_lines(Path::new(path)).unwrap_or_default()
}

/// `session SUBCOMMAND LEDGER ...`.
pub(crate) fn command(args: &[String]) -> Result<ExitCode> {
    let Some((sub, rest)) = args.split_first() else {
        return Err("session: begin|runner|summary|step|skip|allreduce|report".into());
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
            let a = args_n(rest, 6, "session summary")?;
            write(
                &a[0],
                &a[1],
                script(&a[5], &a[2], &log_of(&a[3]), number(&a[4], "exit status")?),
            )
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
            let a = args_n(rest, 4, "session skip")?;
            let e = Entry {
                lines: vec![row(&a[2], &a[3])],
                counts: [0, 0, 1],
                subtotal: false,
            };
            write(&a[0], &a[1], e)
        }
        "allreduce" => {
            let a = args_n(rest, 1, "session allreduce")?;
            println!("{}", allreduce_note(&log_of(&a[0])));
            Ok(ExitCode::SUCCESS)
        }
        "report" => {
            let a = args_n(rest, 2, "session report")?;
            let (lines, ok) = report(&log_of(&a[0]), &a[1]);
            for l in &lines {
                println!("{l}");
            }
            Ok(status(ok))
        }
        other => Err(format!("session: unknown subcommand {other:?}")),
    }
}
