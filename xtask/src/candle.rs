//! scripts/candle-gpu.sh's reading of candle's suites and step times.
//!
//! Result files hold one `SUITE::TEST OUTCOME` line per test (`OUTCOME`
//! being libtest's `ok`, `FAILED` or `ignored`); the Llama comparisons and
//! the step-time verdicts are written to result files in the same shape
//! (`llama f32 ok`), so `candle-total` counts them all alike.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use crate::gpu_run::append;
use crate::text::{self, Number};
use crate::{args_n, number, status, Result};
use bench_verdict::Verdict;

/// A test binary's result lines: `NAME::TEST OUTCOME` for each per-test
/// line, and a failure for the whole binary when libtest printed no
/// summary (a crash, a timeout).
pub(crate) fn result_lines(name: &str, log: &[String], rc: i32) -> Vec<String> {
    let mut out: Vec<String> = log
        .iter()
        .filter_map(|l| text::test_line_loose(l))
        .map(|(test, outcome)| format!("{name}::{test} {}", outcome.word()))
        .collect();
    if !log.iter().any(|l| l.starts_with("test result: ")) {
        out.push(format!(
            "{name}::(the whole binary: exit {rc}, no summary) FAILED"
        ));
    }
    out
}

/// Lines of `results` ending ` WORD`.
fn count(results: &[String], word: &str) -> usize {
    let tail = format!(" {word}");
    results.iter().filter(|l| l.ends_with(&tail)).count()
}

/// A suite's line for the table: `NAME OK FAILED IGNORED`, over the result
/// lines of `NAME::`.
pub(crate) fn suite_line(name: &str, results: &[String]) -> String {
    let prefix = format!("{name}::");
    let mine: Vec<String> = results
        .iter()
        .filter(|l| l.starts_with(&prefix))
        .cloned()
        .collect();
    format!(
        "{name} {} {} {}",
        count(&mine, "ok"),
        count(&mine, "FAILED"),
        count(&mine, "ignored")
    )
}

/// A result line's test and outcome (split at its last space).
fn split_result(line: &str) -> (&str, &str) {
    line.rsplit_once(' ').unwrap_or((line, ""))
}

fn by_key(lines: &[String]) -> BTreeMap<&str, Vec<&str>> {
    let mut map: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for l in lines {
        let (k, v) = split_result(l);
        map.entry(k).or_default().push(v);
    }
    map
}

/// The two builds' results side by side, by test: `(test, ours, real)`,
/// `missing` where a build has no such test; in byte order of the test.
pub(crate) fn joined(ours: &[String], real: &[String]) -> Vec<(String, String, String)> {
    let (o, r) = (by_key(ours), by_key(real));
    let mut keys: Vec<&str> = o.keys().chain(r.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let missing = vec!["missing"];
    let mut out = Vec::new();
    for k in keys {
        for a in o.get(k).unwrap_or(&missing) {
            for b in r.get(k).unwrap_or(&missing) {
                out.push((k.to_string(), a.to_string(), b.to_string()));
            }
        }
    }
    out
}

fn table_row(a: &str, b: &str, c: &str) -> String {
    format!("| {a:<40} | {b:<22} | {c:<22} |")
}

/// The suites' report: a table of both builds' counts per suite, the tests
/// whose outcome differs, and those that fail in both; the second value is
/// the differing lines.
pub(crate) fn suites_report(
    ours: &[String],
    real: &[String],
    ours_suites: &[String],
    real_suites: &[String],
) -> (Vec<String>, Vec<String>) {
    let mut out = vec![
        "== candle suites, ours (cuda-compat) vs real cudarc".to_string(),
        table_row("suite", "ours ok/failed/ignored", "real ok/failed/ignored"),
    ];
    let suites = |lines: &[String]| -> BTreeMap<String, Vec<String>> {
        lines
            .iter()
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                Some((f.next()?.to_string(), f.map(str::to_string).collect()))
            })
            .collect()
    };
    let real_by_suite = suites(real_suites);
    for (suite, o) in suites(ours_suites) {
        if let Some(r) = real_by_suite.get(&suite) {
            out.push(table_row(&suite, &o.join("/"), &r.join("/")));
        }
    }
    let totals = |r: &[String]| {
        format!(
            "{}/{}/{}",
            count(r, "ok"),
            count(r, "FAILED"),
            count(r, "ignored")
        )
    };
    out.push(table_row("total", &totals(ours), &totals(real)));
    out.push("tests whose outcome differs (ours, real):".to_string());
    let all = joined(ours, real);
    let differ: Vec<String> = all
        .iter()
        .filter(|(_, a, b)| a != b)
        .map(|(k, a, b)| format!("{k} {a} {b}"))
        .collect();
    out.extend(differ.iter().cloned());
    if differ.is_empty() {
        out.push("  none".to_string());
    }
    out.push("tests that fail in both builds:".to_string());
    out.extend(
        all.iter()
            .filter(|(_, a, b)| a == "FAILED" && b == "FAILED")
            .map(|(k, a, b)| format!("{k} {a} {b}")),
    );
    (out, differ)
}

/// The step time of each line that has one (`... step_us N ...`, the last
/// on the line).
pub(crate) fn step_times(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .filter_map(|l| {
            let mut end = l.len();
            while let Some(at) = l[..end].rfind(" step_us ") {
                let n: String = l[at + 9..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                if !n.is_empty() {
                    return Some(n);
                }
                end = at;
            }
            None
        })
        .collect()
}

/// The speed target of a workload unless the caller names another: ours
/// keeps up with real (0.97 of its speed, a few percent of run-to-run
/// noise below 1).
pub(crate) const KEEP_UP: f64 = 0.97;

/// The time verdict of one workload (`label`, e.g. `llama step f32`): ours
/// must reach `target` times real's speed ([`KEEP_UP`] for most). Each
/// number is one process's time (a median over its own repetitions); round
/// `i` ran ours and real one right after the other, in ABBA order (the
/// runner prints it). The verdict is bench-verdict's: the median of the
/// rounds' paired ratios real/ours with its 95% interval, met when the
/// interval's lower end reaches the target, NOT met when its upper end is
/// below it, else undecided (a failure, with the rounds that would decide
/// it). The fastest process of each build and the ratios' quartiles are
/// printed as information only. The lines, and whether it passed.
pub(crate) fn bench_verdict(
    label: &str,
    rounds: usize,
    ours: &[String],
    real: &[String],
    target: f64,
) -> (Vec<String>, bool) {
    let numbers = |v: &[String]| -> Option<Vec<f64>> {
        v.iter()
            .map(|t| Number::parse(t).map(|n| n.value))
            .collect::<Option<Vec<_>>>()
    };
    let (Some(o), Some(r)) = (numbers(ours), numbers(real)) else {
        return (
            vec![format!("{label}: FAILED: a time is not a number")],
            false,
        );
    };
    if rounds == 0
        || o.len() != rounds
        || r.len() != rounds
        || o.iter().chain(&r).any(|&n| n <= 0.0)
    {
        return (
            vec![format!("{label}: FAILED: a run printed no timing")],
            false,
        );
    }
    let v = match Verdict::of_times(&o, &r, target) {
        Ok(v) => v,
        Err(e) => return (vec![format!("{label}: FAILED: {e}")], false),
    };
    let fastest = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let extra = format!(
        "fastest process ours {} us, real {} us",
        text::awk_number(fastest(&o)),
        text::awk_number(fastest(&r))
    );
    let joined = |v: &[String]| v.iter().map(|x| format!("{x} ")).collect::<String>();
    let mut lines = v.lines(label, "ours/real speed", &extra);
    lines.push(format!("  ours: {}", joined(ours)));
    lines.push(format!("  real: {}", joined(real)));
    (lines, v.outcome.passed())
}

/// `N passed, N failed` over result lines, and whether none failed.
pub(crate) fn total(results: &[String]) -> (String, bool) {
    let (p, f) = (count(results, "ok"), count(results, "FAILED"));
    (format!("{p} passed, {f} failed"), f == 0)
}

/// A result file's lines; none when it is missing or unreadable.
pub(crate) fn lines_of(path: &Path) -> Vec<String> {
    text::grep_lines(path).unwrap_or_default()
}

/// `candle-*` commands.
pub(crate) fn command(command: &str, args: &[String]) -> Result<ExitCode> {
    match command {
        "candle-results" => {
            let a = args_n(args, 5, command)?;
            let (name, rc) = (&a[0], number(&a[1], "exit status")?);
            let results = Path::new(&a[3]);
            for l in result_lines(name, &lines_of(Path::new(&a[2])), rc) {
                append(results, &l)?;
            }
            append(Path::new(&a[4]), &suite_line(name, &lines_of(results)))?;
            Ok(ExitCode::SUCCESS)
        }
        "candle-suites" => {
            let a = args_n(args, 1, command)?;
            let out = Path::new(&a[0]);
            let read = |f: &str| lines_of(&out.join(f));
            let (lines, differ) = suites_report(
                &read("ours.results"),
                &read("real.results"),
                &read("ours.suites"),
                &read("real.suites"),
            );
            let differ_file = out.join("differ.txt");
            let body: String = differ.iter().map(|l| format!("{l}\n")).collect();
            std::fs::write(&differ_file, body)
                .map_err(|e| format!("{}: {e}", differ_file.display()))?;
            for l in &lines {
                println!("{l}");
            }
            Ok(ExitCode::SUCCESS)
        }
        "candle-step-us" => {
            let lines = text::stdin_lines().map_err(|e| format!("standard input: {e}"))?;
            for t in step_times(&lines) {
                println!("{t}");
            }
            Ok(ExitCode::SUCCESS)
        }
        "candle-bench" => {
            // The speed target is optional: 0.97 (keep up with real) unless
            // a sixth argument names another (the staged copies' 1.5).
            let a = if args.len() == 6 {
                args
            } else {
                args_n(args, 5, command)?
            };
            let rounds = number(&a[1], "rounds")?;
            let target =
                match a.get(5) {
                    Some(t) => t.parse::<f64>().ok().filter(|t| *t > 0.0).ok_or_else(|| {
                        format!("{command}: target {t:?} is not a positive number")
                    })?,
                    None => KEEP_UP,
                };
            let (lines, met) = bench_verdict(
                &a[0],
                rounds,
                &lines_of(Path::new(&a[2])),
                &lines_of(Path::new(&a[3])),
                target,
            );
            let outcome = if met { "ok" } else { "FAILED" };
            append(
                Path::new(&a[4]),
                &format!("{} {outcome}", a[0].replace(' ', "-")),
            )?;
            for l in &lines {
                println!("{l}");
            }
            Ok(ExitCode::SUCCESS)
        }
        "candle-total" => {
            let mut all = Vec::new();
            for f in args {
                all.extend(lines_of(Path::new(f)));
            }
            let (line, ok) = total(&all);
            println!("{line}");
            Ok(status(ok))
        }
        _ => Err(format!("unknown command {command:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        text::split_newlines(s)
    }

    #[test]
    fn results_of_a_suite_and_of_a_crash() {
        let log = lines("running 3 tests\ntest add ... ok\ntest conv2d ... FAILED\ntest slow ... ignored, too slow\n\
                         test result: FAILED. 1 passed; 1 failed; 1 ignored\n");
        let r = result_lines("candle-core--tensor_tests", &log, 101);
        assert_eq!(
            r,
            [
                "candle-core--tensor_tests::add ok",
                "candle-core--tensor_tests::conv2d FAILED",
                "candle-core--tensor_tests::slow ignored"
            ]
        );
        assert_eq!(
            suite_line("candle-core--tensor_tests", &r),
            "candle-core--tensor_tests 1 1 1"
        );
        let crash = result_lines("candle-nn--ops", &lines("test softmax ... ok\n"), 139);
        assert_eq!(
            crash[1],
            "candle-nn--ops::(the whole binary: exit 139, no summary) FAILED"
        );
        assert_eq!(suite_line("candle-nn--ops", &crash), "candle-nn--ops 1 1 0");
    }

    #[test]
    fn the_builds_side_by_side() {
        let ours = lines("s::a ok\ns::b FAILED\ns::c FAILED\ns::only_ours ok\nt::(the whole binary: exit 139, no summary) FAILED\n");
        let real = lines("s::a ok\ns::b ok\ns::c FAILED\ns::only_real ok\n");
        let (out, differ) = suites_report(
            &ours,
            &real,
            &lines("s 2 2 0\nt 0 1 0\n"),
            &lines("s 3 1 0\n"),
        );
        assert_eq!(out[2], "| s                                        | 2/2/0                  | 3/1/0                  |");
        assert_eq!(out[3], "| total                                    | 2/3/0                  | 3/1/0                  |");
        assert_eq!(
            differ,
            [
                "s::b FAILED ok",
                "s::only_ours ok missing",
                "s::only_real missing ok",
                "t::(the whole binary: exit 139, no summary) FAILED missing"
            ]
        );
        assert_eq!(out.last().unwrap(), "s::c FAILED FAILED");
        let (out, _) = suites_report(&real, &real, &[], &[]);
        assert!(out.contains(&"  none".to_string()));
    }

    #[test]
    fn step_times_and_verdicts() {
        let out = lines("compiling\nllama f32 step_us 101.5 tokens 32\nstep_us 5\nx step_us  7\nllama step_us 1 step_us 99.25\n");
        assert_eq!(step_times(&out), ["101.5", "99.25"]);
        let s = |x: &[&str]| x.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        let v = |o: &[&str], r: &[&str]| {
            bench_verdict("llama step f32", o.len().max(3), &s(o), &s(r), KEEP_UP)
        };
        // What the fastest-process rule passed: the fastest of each is 96
        // (speed 1.000, "met"), but ours is slower in 2 of the 3 paired
        // rounds (0.97, 1.0, 0.9), and 3 rounds give no 95% interval.
        let (lines, met) = v(&["100", "96", "110"], &["97", "96", "99"]);
        assert!(!met, "{lines:?}");
        assert_eq!(
            lines[0],
            "llama step f32: ours/real speed median 0.970 [no 95% interval: fewer than 6 rounds] of 3 \
             paired rounds; quartiles 0.900, 1.000; range 0.900..1.000; fastest process ours 96 us, \
             real 96 us; target >= 0.97: undecided"
        );
        assert!(
            lines[1].starts_with("  undecided (counts as failed): 3 rounds give no 95% interval")
        );
        assert_eq!(lines[2], "  ours: 100 96 110 ");
        // Nine rounds, ours slower in 8: one undisturbed process of ours
        // (96 us) beats real's fastest (100 us), yet NOT met.
        let (lines, met) = v(
            &["96", "105", "106", "105", "106", "105", "107", "105", "106"],
            &[
                "100", "100", "100", "100", "100", "100", "100", "100", "100",
            ],
        );
        assert!(!met);
        assert!(
            lines[0].contains("median 0.952 [95% interval 0.943, 0.952] of 9 paired rounds"),
            "{}",
            lines[0]
        );
        assert!(
            lines[0].contains("fastest process ours 96 us, real 100 us"),
            "{}",
            lines[0]
        );
        assert!(
            lines[0].ends_with("target >= 0.97: NOT met"),
            "{}",
            lines[0]
        );
        // Slow processes (150) of either build in some rounds: paired,
        // they do not decide; ours keeps up in most rounds.
        let (lines, met) = v(
            &["150", "100", "101", "101", "150", "102", "100", "103", "99"],
            &[
                "150", "100", "100", "102", "150", "101", "101", "102", "100",
            ],
        );
        assert!(met, "{}", lines[0]);
        assert!(lines[0].ends_with("target >= 0.97: met"), "{}", lines[0]);
        // Another target: the staged copies must be 1.5 times as fast.
        let six = |x: &'static str| vec![x; 6];
        let (lines, met) = bench_verdict("copy", 6, &s(&six("40")), &s(&six("100")), 1.5);
        assert!(
            met && lines[0].ends_with("target >= 1.5: met"),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains("median 2.500"), "{}", lines[0]);
        let (lines, met) = bench_verdict("copy", 6, &s(&six("80")), &s(&six("100")), 1.5);
        assert!(
            !met && lines[0].ends_with("target >= 1.5: NOT met"),
            "{}",
            lines[0]
        );
        // A run that printed no time.
        let (lines, met) = v(&["100", "120"], &["95", "96", "94"]);
        assert!(!met);
        assert_eq!(lines, ["llama step f32: FAILED: a run printed no timing"]);
    }

    #[test]
    fn totals_count_ok_and_failed_lines() {
        let (line, ok) = total(&lines("s::a ok\ns::b FAILED\ns::c ignored\nllama f32 ok\n"));
        assert_eq!(line, "2 passed, 1 failed");
        assert!(!ok);
        assert_eq!(total(&[]), ("0 passed, 0 failed".to_string(), true));
    }
}
