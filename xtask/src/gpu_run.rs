//! `gpu-run`: the verdicts and counts of scripts/gpu-run.sh (the bundle's
//! `run.sh`), and `two-gpu-tests`.
//!
//! The runner runs each program itself and hands its exit status and log
//! here; each verdict prints the runner's `--- ...` line and appends a
//! record to a ledger file, whose `tally` prints the counts and the last
//! line. Ledger lines are `KIND<TAB>...`: `binary P F` (a test binary's
//! passed and failed, a failing binary's extra failure included),
//! `program ok|FAILED`, `not-run TEXT`, `failure TEXT`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use crate::text;
use crate::{args_n, number, status, Result};

/// The tests of `--list --ignored --format terse` whose last path
/// component starts with `two_gpus_`.
pub(crate) fn two_gpu_tests(list: &[String]) -> Vec<String> {
    list.iter()
        .filter_map(|l| l.strip_suffix(": test"))
        .filter(|name| {
            name.rsplit("::")
                .next()
                .is_some_and(|last| last.starts_with("two_gpus_"))
        })
        .map(str::to_string)
        .collect()
}

/// Appends one record to a ledger (created when missing).
pub(crate) fn append(ledger: &Path, record: &str) -> Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(ledger)
        .map_err(|e| format!("{}: {e}", ledger.display()))?;
    writeln!(f, "{}", record.replace('\n', " ")).map_err(|e| format!("{}: {e}", ledger.display()))
}

fn timed_out(rc: i32) -> bool {
    rc == 124 || rc == 137
}

/// One test binary's verdict.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TestVerdict {
    /// Tests passed, from the last summary.
    pub(crate) passed: u64,
    /// Tests failed, from the last summary.
    pub(crate) failed: u64,
    /// What went wrong; empty when the binary passed.
    pub(crate) problems: Vec<String>,
    /// Under memcheck: compute-sanitizer's error count, `None` if it
    /// printed none.
    pub(crate) errors: Option<Option<u64>>,
}

/// Judges a test binary from its log and exit status: the last libtest
/// summary counts; a timeout (exit 124 or 137), a missing summary, a
/// failing exit without a failed test and (memcheck) a missing or non-zero
/// `ERROR SUMMARY` are problems.
pub(crate) fn judge_test(log: &[String], rc: i32, limit: &str, memcheck: bool) -> TestVerdict {
    let summary = log.iter().rev().find(|l| l.starts_with("test result:"));
    let mut v = TestVerdict {
        passed: 0,
        failed: 0,
        problems: Vec::new(),
        errors: None,
    };
    if let Some(s) = summary {
        v.passed = text::last_number_before(s, "passed").unwrap_or(0);
        v.failed = text::last_number_before(s, "failed").unwrap_or(0);
        if v.failed > 0 {
            let names: Vec<&str> = log
                .iter()
                .filter_map(|l| l.strip_prefix("test ")?.strip_suffix(" ... FAILED"))
                .collect();
            v.problems
                .push(format!("{} failed: {}", v.failed, names.join(" ")));
        }
    }
    if timed_out(rc) {
        v.problems.push(format!("timed out after {limit}s"));
    } else if summary.is_none() {
        v.problems.push(format!("no test summary (exit {rc})"));
    } else if rc != 0 && v.failed == 0 {
        v.problems.push(format!("exit {rc} with no failed test"));
    }
    if memcheck {
        let errors = log
            .iter()
            .rev()
            .find_map(|l| text::last_number_between(l, "ERROR SUMMARY: ", " error"));
        match errors {
            None => v.problems.push("no compute-sanitizer ERROR SUMMARY".into()),
            Some(0) => {}
            Some(n) => v.problems.push(format!("memcheck: {n} errors")),
        }
        v.errors = Some(errors);
    }
    v
}

/// The runner's lines for a judged test binary, and its ledger records.
pub(crate) fn test_lines(name: &str, v: &TestVerdict) -> (Vec<String>, Vec<String>) {
    let mut lines = Vec::new();
    if let Some(errors) = v.errors {
        let shown = errors.map_or("missing".to_string(), |n| n.to_string());
        lines.push(format!("[{name}] ERROR SUMMARY: {shown}"));
    }
    let mut records = Vec::new();
    if v.problems.is_empty() {
        lines.push(format!("--- test {name}: ok ({} passed)", v.passed));
        records.push(format!("binary\t{}\t{}", v.passed, v.failed));
    } else {
        // A failing binary counts at least one failure, even when no test
        // in it reported one (timeout, crash, memory errors).
        let failed = v.failed.max(1);
        let text = v.problems.join("; ");
        lines.push(format!(
            "--- test {name}: FAILED ({} passed; {text})",
            v.passed
        ));
        records.push(format!("binary\t{}\t{failed}", v.passed));
        records.push(format!("failure\ttest {name}: {text}"));
    }
    (lines, records)
}

/// A program's line and records: exit 0 passes.
pub(crate) fn program_lines(
    kind: &str,
    name: &str,
    rc: i32,
    limit: &str,
) -> (Vec<String>, Vec<String>) {
    if rc == 0 {
        return (
            vec![format!("--- {kind} {name}: ok")],
            vec!["program\tok".into()],
        );
    }
    let why = if timed_out(rc) {
        format!("timed out after {limit}s")
    } else {
        format!("exit {rc}")
    };
    (
        vec![format!("--- {kind} {name}: FAILED ({why})")],
        vec![
            "program\tFAILED".into(),
            format!("failure\t{kind} {name}: {why}"),
        ],
    )
}

/// The `info` example run with HIP_PLATFORM unset: it must exit 0 and
/// report `platform: nvidia`.
pub(crate) fn platform_lines(report: &[String], rc: i32) -> (Vec<String>, Vec<String>) {
    let first = report.iter().find(|l| l.starts_with("platform:"));
    if rc == 0 && report.iter().any(|l| l.starts_with("platform: nvidia")) {
        let first = first.map_or("", String::as_str);
        return (
            vec![format!("--- program info-platform-unset: ok ({first})")],
            vec!["program\tok".into()],
        );
    }
    let first = first.map_or("no platform line", String::as_str);
    (
        vec![format!(
            "--- program info-platform-unset: FAILED (exit {rc})"
        )],
        vec![
            "program\tFAILED".into(),
            format!("failure\tprogram info-platform-unset: exit {rc}, {first}"),
        ],
    )
}

/// The runner's counts from its ledger: the lines after the programs'
/// output, the last `N passed, N failed` (`, N skipped` when tests did not
/// run), and whether nothing failed.
pub(crate) fn tally(ledger: &[String], mode: &str, bundle: &str) -> (Vec<String>, bool) {
    let (mut tests_passed, mut tests_failed, mut binaries) = (0u64, 0u64, 0u64);
    let (mut programs_passed, mut programs_failed) = (0u64, 0u64);
    let mut not_run = Vec::new();
    let mut failures = Vec::new();
    for record in ledger {
        let (kind, rest) = record.split_once('\t').unwrap_or((record, ""));
        match kind {
            "binary" => {
                let mut n = rest.split('\t').map(|x| x.parse::<u64>().unwrap_or(0));
                binaries += 1;
                tests_passed += n.next().unwrap_or(0);
                tests_failed += n.next().unwrap_or(0);
            }
            "program" if rest == "ok" => programs_passed += 1,
            "program" => programs_failed += 1,
            "not-run" => not_run.push(rest.to_string()),
            "failure" => failures.push(rest.to_string()),
            _ => {}
        }
    }
    let passed = tests_passed + programs_passed;
    let mut failed = tests_failed + programs_failed;
    if passed == 0 && failed == 0 && not_run.is_empty() {
        failures.push(format!(
            "nothing ran: no test binary or program selected in {bundle}"
        ));
        failed = 1;
    }
    let mut out = vec![
        String::new(),
        format!("== counts ({mode})"),
        format!("tests (each test function once): {tests_passed} passed, {tests_failed} failed, in {binaries} test binaries"),
    ];
    if mode == "tests" {
        out.push(format!(
            "programs (examples, binaries, benches; one each): {programs_passed} passed, {programs_failed} failed"
        ));
    }
    out.push(format!("not run: {}", not_run.len()));
    out.extend(not_run.iter().map(|n| format!("  not run: {n}")));
    out.extend(failures.iter().map(|f| format!("  FAILED: {f}")));
    if not_run.is_empty() {
        out.push(format!("{passed} passed, {failed} failed"));
    } else {
        out.push(format!(
            "{passed} passed, {failed} failed, {} skipped",
            not_run.len()
        ));
    }
    (out, failed == 0)
}

fn emit(ledger: &Path, (lines, records): (Vec<String>, Vec<String>)) -> Result<ExitCode> {
    for r in &records {
        append(ledger, r)?;
    }
    for l in &lines {
        println!("{l}");
    }
    Ok(ExitCode::SUCCESS)
}

fn read_ledger(path: &Path) -> Vec<String> {
    text::grep_lines(path).unwrap_or_default()
}

/// `gpu-run SUBCOMMAND ...`.
pub(crate) fn command(args: &[String]) -> Result<ExitCode> {
    let Some((sub, rest)) = args.split_first() else {
        return Err("gpu-run: test|program|platform|not-run|tally".into());
    };
    match sub.as_str() {
        "test" => {
            let a = args_n(rest, 6, "gpu-run test")?;
            let log = text::grep_lines(Path::new(&a[5])).unwrap_or_default();
            let v = judge_test(
                &log,
                number(&a[3], "exit status")?,
                &a[4],
                a[1] == "memcheck",
            );
            emit(Path::new(&a[0]), test_lines(&a[2], &v))
        }
        "program" => {
            let a = args_n(rest, 5, "gpu-run program")?;
            emit(
                Path::new(&a[0]),
                program_lines(&a[1], &a[2], number(&a[3], "exit status")?, &a[4]),
            )
        }
        "platform" => {
            let a = args_n(rest, 2, "gpu-run platform")?;
            let report = text::stdin_lines().map_err(|e| format!("standard input: {e}"))?;
            emit(
                Path::new(&a[0]),
                platform_lines(&report, number(&a[1], "exit status")?),
            )
        }
        "not-run" => {
            let a = args_n(rest, 2, "gpu-run not-run")?;
            emit(
                Path::new(&a[0]),
                (
                    vec![format!("--- not run {}", a[1])],
                    vec![format!("not-run\t{}", a[1])],
                ),
            )
        }
        "tally" => {
            let a = args_n(rest, 3, "gpu-run tally")?;
            let (lines, ok) = tally(&read_ledger(Path::new(&a[0])), &a[1], &a[2]);
            for l in &lines {
                println!("{l}");
            }
            Ok(status(ok))
        }
        other => Err(format!("gpu-run: unknown subcommand {other:?}")),
    }
}
