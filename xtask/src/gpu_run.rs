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

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        text::split_newlines(s)
    }

    #[test]
    fn two_gpu_tests_by_last_path_component() {
        let list = lines(
            "gpu::copies: test\ngpu::two_gpus_peer_access: test\ntwo_gpus_top: test\n\
             two_gpus_mod::single: test\ngpu::two_gpus_bench: benchmark\n\n2 tests, 0 benchmarks\n",
        );
        assert_eq!(
            two_gpu_tests(&list),
            ["gpu::two_gpus_peer_access", "two_gpus_top"]
        );
    }

    const FAILING: &str = "running 3 tests\ntest sgemm ... ok\ntest dgemm ... FAILED\ntest zgemm ... FAILED\n\n\
                           test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 1 filtered out\n";

    #[test]
    fn a_binary_with_failed_tests_names_them() {
        let v = judge_test(&lines(FAILING), 101, "300", false);
        assert_eq!((v.passed, v.failed), (1, 2));
        assert_eq!(v.problems, ["2 failed: dgemm zgemm"]);
        let (out, records) = test_lines("hipblas--gpu", &v);
        assert_eq!(
            out,
            ["--- test hipblas--gpu: FAILED (1 passed; 2 failed: dgemm zgemm)"]
        );
        assert_eq!(
            records,
            [
                "binary\t1\t2",
                "failure\ttest hipblas--gpu: 2 failed: dgemm zgemm"
            ]
        );
    }

    #[test]
    fn crashes_timeouts_and_bad_exits_are_problems() {
        let crash = judge_test(&lines("running 2 tests\n"), 134, "300", false);
        assert_eq!(crash.problems, ["no test summary (exit 134)"]);
        // A failing binary counts one failure even with none reported.
        assert_eq!(test_lines("x", &crash).1[0], "binary\t0\t1");
        let slow = judge_test(&[], 124, "1", false);
        assert_eq!(slow.problems, ["timed out after 1s"]);
        assert_eq!(
            judge_test(&[], 137, "9", false).problems,
            ["timed out after 9s"]
        );
        let ok_summary = "test result: ok. 3 passed; 0 failed; 0 ignored\n";
        assert_eq!(
            judge_test(&lines(ok_summary), 1, "300", false).problems,
            ["exit 1 with no failed test"]
        );
        let good = judge_test(&lines(ok_summary), 0, "300", false);
        assert!(good.problems.is_empty());
        assert_eq!(
            test_lines("hip--gpu", &good).0,
            ["--- test hip--gpu: ok (3 passed)"]
        );
    }

    #[test]
    fn the_last_summary_counts() {
        // A scenario test's child prints a summary before the binary's own.
        let log = "test result: FAILED. 0 passed; 1 failed; 0 ignored\ntest result: ok. 4 passed; 0 failed; 0 ignored\n";
        let v = judge_test(&lines(log), 0, "300", false);
        assert_eq!((v.passed, v.failed), (4, 0));
    }

    #[test]
    fn memcheck_needs_a_clean_error_summary() {
        let ok =
            "test result: ok. 1 passed; 0 failed; 0 ignored\n========= ERROR SUMMARY: 0 errors\n";
        let v = judge_test(&lines(ok), 0, "300", true);
        assert!(v.problems.is_empty());
        assert_eq!(
            test_lines("hip--gpu", &v).0[0],
            "[hip--gpu] ERROR SUMMARY: 0"
        );
        let bad = ok.replace("0 errors", "3 errors");
        assert_eq!(
            judge_test(&lines(&bad), 99, "300", true).problems,
            ["exit 99 with no failed test", "memcheck: 3 errors"]
        );
        let none = judge_test(
            &lines("test result: ok. 1 passed; 0 failed; 0 ignored\n"),
            0,
            "300",
            true,
        );
        assert_eq!(none.problems, ["no compute-sanitizer ERROR SUMMARY"]);
        assert_eq!(
            test_lines("hip--gpu", &none).0[0],
            "[hip--gpu] ERROR SUMMARY: missing"
        );
    }

    #[test]
    fn programs_and_the_platform_check() {
        assert_eq!(
            program_lines("program", "saxpy", 0, "300").0,
            ["--- program saxpy: ok"]
        );
        let (out, records) = program_lines("bench", "hip--call_overhead", 124, "300");
        assert_eq!(
            out,
            ["--- bench hip--call_overhead: FAILED (timed out after 300s)"]
        );
        assert_eq!(
            records[1],
            "failure\tbench hip--call_overhead: timed out after 300s"
        );
        assert_eq!(
            program_lines("program", "broken", 3, "300").0,
            ["--- program broken: FAILED (exit 3)"]
        );

        let report = lines("hip-rs diagnostics\nplatform: nvidia (devices: 2)\n");
        assert_eq!(
            platform_lines(&report, 0).0,
            ["--- program info-platform-unset: ok (platform: nvidia (devices: 2))"]
        );
        let amd = lines("platform: amd\n");
        assert_eq!(
            platform_lines(&amd, 0).1[1],
            "failure\tprogram info-platform-unset: exit 0, platform: amd"
        );
        assert_eq!(
            platform_lines(&[], 1).1[1],
            "failure\tprogram info-platform-unset: exit 1, no platform line"
        );
    }

    #[test]
    fn tally_of_a_ledger() {
        let ledger = lines(
            "not-run\thip--gpu gpu::two_gpus_peer_access: needs two GPUs (1 found)\nbinary\t2\t0\n\
             binary\t1\t2\nfailure\ttest hipblas--gpu: 2 failed: dgemm zgemm\nprogram\tok\nprogram\tFAILED\n\
             failure\tprogram broken: exit 3\n",
        );
        let (out, ok) = tally(&ledger, "tests", "/b");
        assert!(!ok);
        assert_eq!(
            out,
            [
                "",
                "== counts (tests)",
                "tests (each test function once): 3 passed, 2 failed, in 2 test binaries",
                "programs (examples, binaries, benches; one each): 1 passed, 1 failed",
                "not run: 1",
                "  not run: hip--gpu gpu::two_gpus_peer_access: needs two GPUs (1 found)",
                "  FAILED: test hipblas--gpu: 2 failed: dgemm zgemm",
                "  FAILED: program broken: exit 3",
                "4 passed, 3 failed, 1 skipped",
            ]
        );
        // memcheck has no programs line; nothing skipped, no skipped count.
        let (out, ok) = tally(&lines("binary\t1\t0\n"), "memcheck", "/b");
        assert!(ok);
        assert_eq!(out[3], "not run: 0");
        assert_eq!(out.last().unwrap(), "1 passed, 0 failed");
        // Nothing ran: a failure.
        let (out, ok) = tally(&[], "tests", "/b");
        assert!(!ok);
        assert_eq!(
            out[out.len() - 2],
            "  FAILED: nothing ran: no test binary or program selected in /b"
        );
        assert_eq!(out.last().unwrap(), "0 passed, 1 failed");
    }
}
