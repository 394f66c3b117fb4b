//! `tally`: scripts/test.sh's count of every pass and tier, and
//! `wine-summary`: scripts/wine-tier.sh's per-binary lines.
//!
//! test.sh leaves its logs in one folder: `1-all-targets.log`,
//! `2-doc.log`, `3-rerun.log` (cuda-compat with `synthesized-enums`),
//! `4-cudarc.log`, `5-sysroots.log`, `6-wine.log`, `7-candle.log`, `7-mistral.log`,
//! `8-host-cost.log` (scripts/host-cost.sh), `9-cudarc-api.log`
//! (scripts/cudarc-api.sh), `10-emu.log` (scripts/emu-tier.sh),
//! `11-candle-emu.log` (scripts/candle.sh emu-ci), and
//! cargo's JSON of the first and third passes (`1.json`, `3.json`), which
//! map executables to packages. A missing file is a pass that did not run.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::cargo_json;
use crate::text::{self, Counts, Outcome};

/// One test binary's or doc-test run's part of a cargo test log.
#[derive(Debug, Default)]
pub(crate) struct Section {
    /// Package (or `doc`) and target: tests of equal names in different
    /// binaries are different tests.
    pub(crate) key: (String, String),
    /// Each test's outcome, from libtest's per-test lines before the
    /// summary.
    pub(crate) tests: HashMap<String, Outcome>,
    /// libtest's first summary; none for a program without libtest's
    /// harness, or a binary that ended before its summary.
    pub(crate) summary: Option<Counts>,
}

/// The text after a line's leading whitespace, of which there is some.
fn after_indent(line: &str) -> Option<&str> {
    let rest = line.trim_start();
    (rest.len() < line.len()).then_some(rest)
}

/// `WORD (INSIDE)` to the end of the line: the word and what is inside.
fn word_then_paren(s: &str) -> Option<(&str, &str)> {
    let end = s.find(char::is_whitespace)?;
    if end == 0 {
        return None;
    }
    let inside = s[end..].strip_prefix(" (")?.strip_suffix(')')?;
    (!inside.is_empty()).then_some((&s[..end], inside))
}

/// cargo's `     Running [unittests ]TARGET (EXE)`: the target and the
/// executable.
pub(crate) fn running_line(line: &str) -> Option<(&str, &str)> {
    let rest = after_indent(line)?.strip_prefix("Running ")?;
    rest.strip_prefix("unittests ")
        .and_then(word_then_paren)
        .or_else(|| word_then_paren(rest))
}

/// cargo's `   Doc-tests CRATE`: the crate.
pub(crate) fn doctests_line(line: &str) -> Option<&str> {
    let name = after_indent(line)?.strip_prefix("Doc-tests ")?;
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
}

/// tier2-sysroots.sh's `     Running@rocm-V DIR/tests/FILE (EXE)`, keyed
/// `DIR@rocm-V DIR/tests/FILE`.
pub(crate) fn sysroot_key(line: &str) -> Option<String> {
    let rest = after_indent(line)?.strip_prefix("Running@rocm-")?;
    let end = rest.find(char::is_whitespace)?;
    if end == 0 {
        return None;
    }
    let (version, rest) = (&rest[..end], rest[end..].strip_prefix(' ')?);
    let (target, _) = word_then_paren(rest)?;
    let krate = target.split('/').next().unwrap_or(target);
    Some(format!("{krate}@rocm-{version} {target}"))
}

/// emu-tier.sh's `     Running@emu-DEV DIR/tests/FILE (EXE)`, keyed
/// `DIR@emu-DEV DIR/tests/FILE`.
pub(crate) fn emu_key(line: &str) -> Option<String> {
    let rest = after_indent(line)?.strip_prefix("Running@emu-")?;
    let end = rest.find(char::is_whitespace).filter(|&e| e > 0)?;
    let (device, rest) = (&rest[..end], rest[end..].strip_prefix(' ')?);
    let (target, _) = word_then_paren(rest)?;
    let krate = target.split('/').next().unwrap_or(target);
    Some(format!("{krate}@emu-{device} {target}"))
}

/// wine-tier.sh's `     Running@wine DIR/FILE (EXE)`, keyed
/// `DIR@wine DIR/FILE`.
pub(crate) fn wine_key(line: &str) -> Option<String> {
    let rest = after_indent(line)?.strip_prefix("Running@wine ")?;
    let (target, _) = word_then_paren(rest)?;
    let krate = target.split('/').next().unwrap_or(target);
    Some(format!("{krate}@wine {target}"))
}

/// Executable file name -> package, from cargo's JSON messages.
pub(crate) fn packages(json: &Path) -> HashMap<String, String> {
    let lines = match text::grep_lines(json) {
        Ok(lines) => lines,
        Err(_) => return HashMap::new(),
    };
    cargo_json::executables(&lines)
        .into_iter()
        .map(|e| (file_name(&e.path).to_string(), e.package))
        .collect()
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A cargo test log cut into its binaries' sections.
pub(crate) fn parse_pass(lines: &[String], packages: &HashMap<String, String>) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    for line in lines {
        let key = if let Some((target, exe)) = running_line(line) {
            let exe = file_name(exe);
            let stem = exe.rsplit_once('-').map_or(exe, |(stem, _)| stem);
            let package = packages.get(exe).map_or(stem, String::as_str);
            Some((package.to_string(), target.to_string()))
        } else {
            doctests_line(line).map(|name| ("doc".to_string(), name.to_string()))
        };
        if let Some(key) = key {
            sections.push(Section {
                key,
                ..Section::default()
            });
            continue;
        }
        let Some(current) = sections.last_mut() else {
            continue;
        };
        if current.summary.is_some() {
            continue;
        }
        if let Some((name, outcome)) = text::test_line(line) {
            current.tests.insert(name.to_string(), outcome);
        } else if let Some(counts) = text::summary_line(line) {
            current.summary = Some(counts);
        }
    }
    sections
}

/// The summaries' sum, and the sections without one (programs).
pub(crate) fn tally(sections: &[Section]) -> (Counts, u64) {
    let mut counts = Counts::default();
    let mut programs = 0;
    for s in sections {
        match s.summary {
            Some(c) => counts.add(c),
            None => programs += 1,
        }
    }
    (counts, programs)
}

/// A tier run by its own script: its counts and its binaries that ended
/// without a summary.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Tier {
    /// Summed summaries, plus a failure for each unfinished binary and each
    /// `DID NOT RUN` line.
    pub(crate) counts: Counts,
    /// Keys of the binaries without a summary.
    pub(crate) unfinished: Vec<String>,
}

/// Each line that `key_of` reads opens a binary's section; the section's
/// last summary is the binary's own (a failing scenario test prints its
/// child's summary before it).
pub(crate) fn tier_counts(lines: &[String], key_of: fn(&str) -> Option<String>) -> Tier {
    let mut tier = Tier::default();
    let mut sections: Vec<(String, Option<Counts>)> = Vec::new();
    for line in lines {
        if let Some(key) = key_of(line) {
            sections.push((key, None));
        } else if line.contains("DID NOT RUN") {
            tier.counts.failed += 1;
        } else if let (Some(counts), Some(last)) = (text::summary_line(line), sections.last_mut()) {
            last.1 = Some(counts);
        }
    }
    for (key, counts) in sections {
        match counts {
            Some(c) => tier.counts.add(c),
            None => {
                tier.unfinished.push(key);
                tier.counts.failed += 1;
            }
        }
    }
    tier
}

/// cudarc-examples.sh build's lines: compiled, did not, not built.
pub(crate) fn cudarc_counts(lines: &[String]) -> [u64; 3] {
    let mut counts = [0; 3];
    for line in lines {
        let Some(end) = line.find(char::is_whitespace).filter(|&e| e > 0) else {
            continue;
        };
        let rest = line[end..].trim_start();
        for (i, word) in ["compiles", "does NOT compile", "not built"]
            .iter()
            .enumerate()
        {
            if rest.starts_with(word) {
                counts[i] += 1;
            }
        }
    }
    counts
}

/// candle.sh check's `candle check: NAME ... ok|FAILED` lines and candle.sh
/// amd's `candle amd: NAME ... ok|FAILED`: ok, failed.
pub(crate) fn candle_counts(lines: &[String]) -> [u64; 2] {
    check_counts(lines, &["candle check: ", "candle amd: "])
}

/// candle.sh emu-ci's last `candle emu total: N passed, N failed, N
/// explained by the residue`: passed, failed, explained (neither passed
/// nor failed: tests that cannot pass on the emulated devices, each with
/// its cause in the residue file).
pub(crate) fn candle_emu_counts(lines: &[String]) -> [u64; 3] {
    let Some(rest) = lines
        .iter()
        .rev()
        .find_map(|l| l.strip_prefix("candle emu total: "))
    else {
        return [0; 3];
    };
    let mut counts = [0; 3];
    for (i, word) in [" passed", " failed", " explained"].iter().enumerate() {
        counts[i] = rest
            .split(", ")
            .find_map(|part| {
                part.find(word)
                    .and_then(|at| part[..at].trim().parse().ok())
            })
            .unwrap_or(0);
    }
    counts
}

/// `PREFIX NAME ... ok|FAILED` lines, for any of `prefixes`: ok, failed.
fn check_counts(lines: &[String], prefixes: &[&str]) -> [u64; 2] {
    let mut counts = [0; 2];
    for line in lines {
        let Some(rest) = prefixes.iter().find_map(|p| line.strip_prefix(p)) else {
            continue;
        };
        for (i, tail) in [" ... ok", " ... FAILED"].iter().enumerate() {
            if rest.len() > tail.len() && rest.ends_with(tail) {
                counts[i] += 1;
            }
        }
    }
    counts
}

/// test.sh's last lines, from its logs folder and the exit status of its
/// passes; the very last is `N passed, N failed, N skipped`.
pub(crate) fn report(logs: &Path, status: i32) -> Vec<String> {
    let read = |name: &str| text::universal_lines(&logs.join(name));
    let pass1 = parse_pass(&read("1-all-targets.log"), &packages(&logs.join("1.json")));
    let pass2 = parse_pass(&read("2-doc.log"), &HashMap::new());
    let pass3 = parse_pass(&read("3-rerun.log"), &packages(&logs.join("3.json")));
    let sysroots = tier_counts(&read("5-sysroots.log"), sysroot_key);
    let wine = tier_counts(&read("6-wine.log"), wine_key);
    let emu = tier_counts(&read("10-emu.log"), emu_key);
    let cudarc = cudarc_counts(&read("4-cudarc.log"));
    let candle = candle_counts(&read("7-candle.log"));
    let candle_emu = candle_emu_counts(&read("11-candle-emu.log"));
    let mistral = check_counts(&read("7-mistral.log"), &["mistral check: "]);
    let host_cost = check_counts(&read("8-host-cost.log"), &["host cost: "]);
    // test.sh writes a FAILED line when tier 2's packages could not be
    // installed (and HIP_TEST_SKIP_TIER2 is not 1): the tier did not run.
    let tier2 = check_counts(&read("0-tier2.log"), &["tier 2: "]);
    let api = check_counts(
        &read("9-cudarc-api.log"),
        &["cudarc api: ", "feature check: "],
    );

    let (c1, programs1) = tally(&pass1);
    let (c2, programs2) = tally(&pass2);
    // A program (a target without libtest's harness) is known to have
    // passed only if the pass went on after it: cargo stops at the first
    // failure.
    let mut programs = programs1 + programs2;

    // The feature pass: re-runs (same package, target and name seen in the
    // first two passes) and tests that exist only with the feature.
    let seen: HashSet<(&(String, String), &String)> = pass1
        .iter()
        .chain(&pass2)
        .flat_map(|s| s.tests.keys().map(move |name| (&s.key, name)))
        .collect();
    let mut rerun = Counts::default();
    let mut new = Counts::default();
    let mut split_ok = true;
    for s in &pass3 {
        let Some(summary) = s.summary else {
            programs += 1;
            continue;
        };
        let mut listed = Counts::default();
        for (name, outcome) in &s.tests {
            let one = count_of(*outcome);
            listed.add(one);
            if seen.contains(&(&s.key, name)) {
                rerun.add(one);
            } else {
                new.add(one);
            }
        }
        if listed != summary {
            split_ok = false;
        }
    }
    if !split_ok {
        // The per-test lines did not add up to libtest's summaries: count
        // the whole pass as re-runs rather than guess.
        rerun = tally(&pass3).0;
        new = Counts::default();
    }

    let distinct_passed = c1.passed
        + c2.passed
        + new.passed
        + sysroots.counts.passed
        + wine.counts.passed
        + emu.counts.passed;
    let distinct_failed = c1.failed
        + c2.failed
        + new.failed
        + sysroots.counts.failed
        + wine.counts.failed
        + emu.counts.failed;
    let distinct_ignored = c1.ignored
        + c2.ignored
        + new.ignored
        + sysroots.counts.ignored
        + wine.counts.ignored
        + emu.counts.ignored;
    let passed = distinct_passed
        + programs
        + cudarc[0]
        + candle[0]
        + candle_emu[0]
        + mistral[0]
        + host_cost[0]
        + api[0]
        + tier2[0];
    let mut failed = distinct_failed
        + rerun.failed
        + cudarc[1]
        + candle[1]
        + candle_emu[1]
        + mistral[1]
        + host_cost[1]
        + api[1]
        + tier2[1];
    if status != 0 && failed == 0 {
        failed = 1; // a build error or a crash before any summary
    }

    let unfinished = |tier: &Tier| {
        if tier.unfinished.is_empty() {
            String::new()
        } else {
            format!("; ended without a summary: {}", tier.unfinished.join(", "))
        }
    };
    let mut out = vec![
        format!(
            "distinct tests: {distinct_passed} passed, {distinct_failed} failed, {distinct_ignored} ignored \
             (each once; doc-tests: {} passed, {} failed, {} ignored; only with synthesized-enums: {} passed, {} failed)",
            c2.passed, c2.failed, c2.ignored, new.passed, new.failed
        ),
        format!(
            "re-runs (cuda-compat with synthesized-enums, tests already counted): {} passed, {} failed, {} ignored{}",
            rerun.passed,
            rerun.failed,
            rerun.ignored,
            if split_ok { "" } else { " (not split by name: per-test lines and summaries disagree)" }
        ),
        format!(
            "tier 2 on ROCm 5.7 and 6.4 (sysroots; counted above as tests of their own): {} passed, {} failed, {} ignored{}",
            sysroots.counts.passed,
            sysroots.counts.failed,
            sysroots.counts.ignored,
            unfinished(&sysroots)
        ),
        format!(
            "Wine tier (Windows builds under Wine; counted above as tests of their own): {} passed, {} failed, {} ignored{}",
            wine.counts.passed,
            wine.counts.failed,
            wine.counts.ignored,
            unfinished(&wine)
        ),
        format!(
            "software AMD GPU tier (hip's, hipblas's and cuda-compat's GPU tests and the nvrtc corpus on hip-emu's gfx942 and gfx1100; counted above as tests of their own): {} passed, {} failed, {} ignored{}",
            emu.counts.passed,
            emu.counts.failed,
            emu.counts.ignored,
            unfinished(&emu)
        ),
        format!("programs (targets without libtest's harness, one each): {programs}"),
        format!(
            "cudarc's examples built against cuda-compat: {} compile, {} do not, {} not built (need CUPTI or cuFile)",
            cudarc[0], cudarc[1], cudarc[2]
        ),
        format!(
            "candle 0.11.1 through the cudarc drop-in (scripts/candle.sh check): {} passed, {} failed",
            candle[0], candle[1]
        ),
        format!(
            "candle 0.11.1 on hip-emu's gfx942 and gfx1100 (scripts/candle.sh emu-ci: candle-core's tensor_tests, candle-nn's ops, the seeded models): {} passed, {} failed, {} explained by the residue",
            candle_emu[0], candle_emu[1], candle_emu[2]
        ),
        format!(
            "mistral.rs 0.8.1 through the drop-ins (scripts/mistral.sh check): {} passed, {} failed",
            mistral[0], mistral[1]
        ),
        format!(
            "host cost per op on a stand-in driver (scripts/host-cost.sh): {} passed, {} failed",
            host_cost[0], host_cost[1]
        ),
        format!(
            "cudarc's API and features through the drop-in (scripts/cudarc-api.sh, feature-check.sh): {} passed, {} failed",
            api[0], api[1]
        ),
        format!(
            "not run: {distinct_ignored} ignored tests (the GPU tier, #[ignore = \"needs a GPU\"], \
             and any other #[ignore]d test; reasons in the lines above)"
        ),
    ];
    if status != 0 {
        out.push(format!(
            "a cargo test pass failed (exit status {status}); later passes did not run"
        ));
    }
    out.push(format!(
        "{passed} passed, {failed} failed, {distinct_ignored} skipped"
    ));
    out
}

fn count_of(outcome: Outcome) -> Counts {
    let mut c = Counts::default();
    match outcome {
        Outcome::Ok => c.passed = 1,
        Outcome::Failed => c.failed = 1,
        Outcome::Ignored => c.ignored = 1,
    }
    c
}

/// wine-tier.sh's summary of its log: one line per binary (`wine-tier:
/// took N s` lines give the times), the build and run times, and `wine: N
/// passed, N failed, N skipped`. True when nothing failed.
pub(crate) fn wine_summary(lines: &[String], build_s: &str, run_s: &str) -> (Vec<String>, bool) {
    let mut sections: Vec<(String, Option<Counts>, String)> = Vec::new();
    for line in lines {
        if let Some(rest) = after_indent(line).and_then(|r| r.strip_prefix("Running@wine ")) {
            if let Some((src, _)) = word_then_paren(rest) {
                sections.push((src.to_string(), None, "?".to_string()));
                continue;
            }
        }
        if let Some(took) = line
            .strip_prefix("wine-tier: took ")
            .and_then(|r| r.strip_suffix(" s"))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        {
            if let Some(last) = sections.last_mut() {
                last.2 = took.to_string();
                continue;
            }
        }
        if let (Some(counts), Some(last)) = (text::summary_line(line), sections.last_mut()) {
            last.1 = Some(counts);
        }
    }
    let mut total = Counts::default();
    let mut out = vec![
        String::new(),
        "== wine tier (x86_64-pc-windows-gnu under Wine) ==".to_string(),
    ];
    for (src, counts, took) in &sections {
        match counts {
            None => {
                out.push(format!(
                    "  {src}: NO SUMMARY (crashed or did not start): counted as 1 failed ({took} s)"
                ));
                total.failed += 1;
            }
            Some(c) => {
                out.push(format!(
                    "  {src}: {} passed, {} failed, {} skipped ({took} s)",
                    c.passed, c.failed, c.ignored
                ));
                total.add(*c);
            }
        }
    }
    out.push(format!(
        "wine tier: built in {build_s} s, ran in {run_s} s, {} binaries",
        sections.len()
    ));
    out.push(format!(
        "wine: {} passed, {} failed, {} skipped",
        total.passed, total.failed, total.ignored
    ));
    (out, total.failed == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        text::split_universal(s)
    }

    /// A first pass: a unit-test binary with a failure, an integration
    /// test binary with ignored GPU tests (one with a reason), and a
    /// program without libtest's harness.
    const PASS1: &str = "\
   Compiling hip v0.1.0 (/w/hip)
    Finished `test` profile [unoptimized + debuginfo] target(s) in 9.1s
     Running unittests src/lib.rs (target/debug/deps/hip-1fd0f63d66e7ab43)

running 3 tests
test staging::tests::chunks ... ok
test staging::tests::ring ... FAILED
test version::tests::parse ... ok

failures:

---- staging::tests::ring stdout ----
thread 'staging::tests::ring' panicked at hip/src/staging.rs:10:5

test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s

     Running tests/gpu.rs (target/debug/deps/gpu-2a8c089bc5fc0193)

running 2 tests
test copies ... ignored, needs a GPU
test two_gpus_peer ... ignored, needs two GPUs

test result: ok. 0 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running tests/tier2_loader.rs (target/debug/deps/tier2_loader-59935e3fef19fab7)

running 1 test
test loads ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running unittests src/main.rs (target/debug/deps/prog-0123456789abcdef)
a program's own output
";

    #[test]
    fn sections_keyed_by_package_and_target() {
        let mut packages = HashMap::new();
        packages.insert(
            "tier2_loader-59935e3fef19fab7".to_string(),
            "hipblas-sys".to_string(),
        );
        let s = parse_pass(&lines(PASS1), &packages);
        let keys: Vec<_> = s
            .iter()
            .map(|s| (s.key.0.as_str(), s.key.1.as_str()))
            .collect();
        // Without cargo's JSON a package is the executable's stem.
        assert_eq!(
            keys,
            [
                ("hip", "src/lib.rs"),
                ("gpu", "tests/gpu.rs"),
                ("hipblas-sys", "tests/tier2_loader.rs"),
                ("prog", "src/main.rs")
            ]
        );
        assert_eq!(
            s[0].tests.get("staging::tests::ring"),
            Some(&Outcome::Failed)
        );
        assert_eq!(s[1].tests.get("two_gpus_peer"), Some(&Outcome::Ignored));
        assert_eq!(s[3].summary, None);
        let (counts, programs) = tally(&s);
        assert_eq!(
            counts,
            Counts {
                passed: 3,
                failed: 1,
                ignored: 2
            }
        );
        assert_eq!(programs, 1);
    }

    #[test]
    fn doc_tests_are_sections_of_their_own() {
        let log = "   Doc-tests hip

running 2 tests
test hip/src/lib.rs - Device (line 12) ... ok
test hip/src/stream.rs - Stream::new (line 40) - compile ... ignored

test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 1.20s
";
        let s = parse_pass(&lines(log), &HashMap::new());
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].key, ("doc".to_string(), "hip".to_string()));
        assert_eq!(s[0].tests.len(), 2);
        assert_eq!(
            tally(&s).0,
            Counts {
                passed: 1,
                failed: 0,
                ignored: 1
            }
        );
    }

    #[test]
    fn a_section_keeps_its_first_summary() {
        // A scenario test prints its child's output into the parent's.
        let log = "     Running tests/t.rs (target/debug/deps/t-1)\ntest a ... ok\n\
                   test result: ok. 1 passed; 0 failed; 0 ignored\ntest b ... FAILED\n\
                   test result: FAILED. 0 passed; 1 failed; 0 ignored\n";
        let s = parse_pass(&lines(log), &HashMap::new());
        assert_eq!(
            s[0].summary,
            Some(Counts {
                passed: 1,
                failed: 0,
                ignored: 0
            })
        );
        assert_eq!(s[0].tests.len(), 1);
    }

    #[test]
    fn sysroot_and_wine_tiers_count_last_summaries_and_crashes() {
        let sysroots = "\
rocm-runtimes: 6.4: cached in /c/rocm-6.4
     Running@rocm-6.4 hip/tests/tier2_amd_runtime.rs (/w/target/debug/deps/tier2_amd_runtime-e30a)
test result: FAILED. 0 passed; 1 failed; 0 ignored
test result: ok. 9 passed; 0 failed; 1 ignored; 0 measured
     Running@rocm-6.4 rccl-sys/tests/tier2_loader.rs (/w/target/debug/deps/tier2_loader-e3bd)
Segmentation fault
tier2-sysroots: rocm-5.7 DID NOT RUN: its sysroot could not be made
";
        let t = tier_counts(&lines(sysroots), sysroot_key);
        assert_eq!(
            t.counts,
            Counts {
                passed: 9,
                failed: 2,
                ignored: 1
            }
        );
        assert_eq!(
            t.unfinished,
            ["rccl-sys@rocm-6.4 rccl-sys/tests/tier2_loader.rs"]
        );

        // Wine's output ends lines with \r\n.
        let wine = "     Running@wine hip-sys/src/lib.rs (/w/t/hip_sys-1.exe)\r\n\
                    test result: ok. 40 passed; 0 failed; 3 ignored; 0 measured\r\nwine-tier: took 2 s\r\n";
        let t = tier_counts(&lines(wine), wine_key);
        assert_eq!(
            t.counts,
            Counts {
                passed: 40,
                failed: 0,
                ignored: 3
            }
        );
        assert!(t.unfinished.is_empty());
        assert_eq!(wine_key("     Running@wine  x (y)"), None);

        // The emulator tier: one section per device and binary; a binary
        // that crashed (no summary) counts as a failure, named.
        let emu = concat!(
            "     Running@emu-gfx942 hip/tests/gpu_memory.rs (/t/gpu_memory-1)\n",
            "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured\n",
            "emu-tier: gfx1100: not run: some_test: needs two devices\n",
            "     Running@emu-gfx1100 hip/tests/gpu_memory.rs (/t/gpu_memory-1)\n",
        );
        let t = tier_counts(&lines(emu), emu_key);
        assert_eq!(
            t.counts,
            Counts {
                passed: 12,
                failed: 1,
                ignored: 0
            }
        );
        assert_eq!(t.unfinished, ["hip@emu-gfx1100 hip/tests/gpu_memory.rs"]);
        assert_eq!(emu_key("     Running@emu- x (y)"), None);

        // cudarc's examples on each device: a section of their own, its
        // summary from `xtask examples-result`; a run that stopped before
        // it is a failure.
        let examples = concat!(
            "     Running@emu-gfx942 cudarc-examples (scripts/cudarc-examples.sh run-built)\n",
            "01-allocate              passed   exit 0, output checked\n",
            "7 passed, 1 failed\n",
            "test result: FAILED. 7 passed; 1 failed; 4 ignored; 0 measured; 0 filtered out\n",
            "     Running@emu-gfx1100 cudarc-examples (scripts/cudarc-examples.sh run-built)\n",
        );
        let t = tier_counts(&lines(examples), emu_key);
        assert_eq!(
            t.counts,
            Counts {
                passed: 7,
                failed: 2,
                ignored: 4
            }
        );
        assert_eq!(
            t.unfinished,
            ["cudarc-examples@emu-gfx1100 cudarc-examples"]
        );
    }

    #[test]
    fn candle_emu_total_line() {
        let l = lines("x\ncandle emu total: 12 passed, 0 failed, 3 explained by the residue\n");
        assert_eq!(candle_emu_counts(&l), [12, 0, 3]);
        assert_eq!(candle_emu_counts(&lines("no total\n")), [0, 0, 0]);
    }

    #[test]
    fn cudarc_and_candle_lines() {
        let cudarc = lines(
            "building cudarc's examples\n01-allocate              compiles\n\
             02-copy                  does NOT compile\n08-cupti                 not built: needs CUPTI\n\
             12 of 14 compile\n  indented compiles\n",
        );
        assert_eq!(cudarc_counts(&cudarc), [1, 1, 1]);
        let candle = lines(
            "candle check: the patch takes effect ... ok\ncandle check: candle-nn type-checks ... FAILED\n\
             candle check:  ... ok\nerror: could not compile\ncandle amd: comgr reads ... ok\n\
             candle amd: built for gfx90a in /x\n    candle amd: indented ... ok\n",
        );
        assert_eq!(candle_counts(&candle), [2, 1]);
    }

    /// A folder of logs, deleted when the test ends (passed or not).
    struct Logs(std::path::PathBuf);
    impl std::ops::Deref for Logs {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }
    impl Drop for Logs {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn logs(files: &[(&str, &str)]) -> Logs {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let dir = std::env::temp_dir().join(format!(
            "xtask-tally-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (name, body) in files {
            std::fs::write(dir.join(name), body).unwrap();
        }
        Logs(dir)
    }

    #[test]
    fn report_splits_reruns_from_tests_only_with_the_feature() {
        let pass1 = "     Running unittests src/lib.rs (target/debug/deps/cuda_compat-30b5)\n\
                     test a ... ok\ntest b ... ignored\ntest result: ok. 1 passed; 0 failed; 1 ignored\n";
        let pass3 = "     Running unittests src/lib.rs (target/debug/deps/cuda_compat-8495)\n\
                     test a ... ok\ntest b ... ignored\ntest only_with_enums ... ok\n\
                     test result: ok. 2 passed; 0 failed; 1 ignored\n";
        let dir = logs(&[("1-all-targets.log", pass1), ("3-rerun.log", pass3)]);
        let out = report(&dir, 0);
        assert!(
            out[0].starts_with("distinct tests: 2 passed, 0 failed, 1 ignored"),
            "{}",
            out[0]
        );
        assert!(
            out[0].ends_with("only with synthesized-enums: 1 passed, 0 failed)"),
            "{}",
            out[0]
        );
        assert_eq!(
            out[1],
            "re-runs (cuda-compat with synthesized-enums, tests already counted): 1 passed, 0 failed, 1 ignored"
        );
        assert_eq!(out.last().unwrap(), "2 passed, 0 failed, 1 skipped");

        // Per-test lines that disagree with the summary: all re-runs.
        let bad3 = pass3.replace("2 passed", "3 passed");
        let dir = logs(&[("1-all-targets.log", pass1), ("3-rerun.log", &bad3)]);
        let out = report(&dir, 0);
        assert!(out[1].ends_with("3 passed, 0 failed, 1 ignored (not split by name: per-test lines and summaries disagree)"));
        assert_eq!(out.last().unwrap(), "1 passed, 0 failed, 1 skipped");
    }

    #[test]
    fn report_counts_failures_and_a_failed_pass_without_one() {
        let dir = logs(&[("1-all-targets.log", PASS1)]);
        let out = report(&dir, 101);
        assert_eq!(
            out[out.len() - 2],
            "a cargo test pass failed (exit status 101); later passes did not run"
        );
        // 3 passed + 1 program; the failed test; the two ignored GPU tests.
        assert_eq!(out.last().unwrap(), "4 passed, 1 failed, 2 skipped");

        // A build error: no test ran, the pass failed.
        let dir = logs(&[("1-all-targets.log", "error[E0425]: cannot find value `x`\n")]);
        assert_eq!(
            report(&dir, 101).last().unwrap(),
            "0 passed, 1 failed, 0 skipped"
        );
        // Nothing at all, and nothing failed.
        let dir = logs(&[]);
        assert_eq!(
            report(&dir, 0).last().unwrap(),
            "0 passed, 0 failed, 0 skipped"
        );
    }

    #[test]
    fn report_adds_tiers_examples_and_candle() {
        let dir = logs(&[
            ("5-sysroots.log", "tier2-sysroots: rocm-6.4 DID NOT RUN: no dynamic loader at /x\n"),
            ("6-wine.log", "     Running@wine hip/src/lib.rs (/w/hip-1.exe)\ntest result: ok. 5 passed; 0 failed; 2 ignored\n"),
            ("4-cudarc.log", "01-allocate              compiles\n08-cupti                 not built: needs CUPTI\n"),
            ("7-candle.log", "candle check: candle-core type-checks ... ok\n"),
            (
                "7-mistral.log",
                "mistral check: cudarc resolves to dropins/cudarc ... ok\nmistral check: 1 of 1 ok, 0 failed\n",
            ),
            (
                "8-host-cost.log",
                "host cost: default stream: driver calls per op ... ok\nhost cost: x ... FAILED\n",
            ),
            (
                "9-cudarc-api.log",
                "cudarc api: residue ... ok\noutside sys: 1 of 2\nfeature check: cusparse alone ... ok\n",
            ),
        ]);
        let out = report(&dir, 0);
        assert!(out.contains(&"tier 2 on ROCm 5.7 and 6.4 (sysroots; counted above as tests of their own): 0 passed, 1 failed, 0 ignored".to_string()));
        assert!(out.contains(&"cudarc's examples built against cuda-compat: 1 compile, 0 do not, 1 not built (need CUPTI or cuFile)".to_string()));
        assert!(out.contains(
            &"host cost per op on a stand-in driver (scripts/host-cost.sh): 1 passed, 1 failed"
                .to_string()
        ));
        assert!(out.contains(
            &"mistral.rs 0.8.1 through the drop-ins (scripts/mistral.sh check): 1 passed, 0 failed"
                .to_string()
        ));
        assert!(out.contains(
            &"cudarc's API and features through the drop-in (scripts/cudarc-api.sh, feature-check.sh): 2 passed, 0 failed"
                .to_string()
        ));
        assert_eq!(out.last().unwrap(), "11 passed, 2 failed, 2 skipped");
    }

    #[test]
    fn tier_2_that_did_not_run_is_a_failure() {
        let dir = logs(&[(
            "0-tier2.log",
            "tier 2: the AMD runtime packages are installed (scripts/install-deps.sh) ... FAILED\n",
        )]);
        assert_eq!(
            report(&dir, 0).last().unwrap(),
            "0 passed, 1 failed, 0 skipped"
        );
        // No line (it ran, or HIP_TEST_SKIP_TIER2=1 skipped it): nothing.
        let dir = logs(&[("0-tier2.log", "")]);
        assert_eq!(
            report(&dir, 0).last().unwrap(),
            "0 passed, 0 failed, 0 skipped"
        );
    }

    #[test]
    fn wine_summary_lines() {
        let log = lines(
            "     Running@wine hip/src/lib.rs (/w/hip-1.exe)\ntest result: ok. 5 passed; 0 failed; 2 ignored\n\
             wine-tier: took 3 s\n     Running@wine rccl/src/lib.rs (/w/rccl-1.exe)\nwine: Unhandled page fault\n",
        );
        let (out, ok) = wine_summary(&log, "61", "32");
        assert!(!ok);
        assert_eq!(
            out[2],
            "  hip/src/lib.rs: 5 passed, 0 failed, 2 skipped (3 s)"
        );
        assert_eq!(
            out[3],
            "  rccl/src/lib.rs: NO SUMMARY (crashed or did not start): counted as 1 failed (? s)"
        );
        assert_eq!(out[4], "wine tier: built in 61 s, ran in 32 s, 2 binaries");
        assert_eq!(out[5], "wine: 5 passed, 1 failed, 2 skipped");
    }
}
