//! `scripts/candle.sh emu`'s reading: candle's suites and the seeded
//! models run on hip-emu's emulated devices, against the residue of tests
//! expected to fail there (each with its cause), and the scratch traffic of
//! the quantized kernels from the emulator's counters.
//!
//! The residue file has one `TEST<TAB>TARGETS<TAB>CAUSE` line per test
//! (`#` starts a comment): `TEST` is `SUITE::NAME` as the result files
//! spell it, or a prefix ending in `*`; `TARGETS` is `all` or a comma list
//! of devices.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use crate::candle::lines_of;
use crate::gpu_run::append;
use crate::{args_n, number, print_lines, status, text, Result};

/// The suite name the models' checks are filed under.
const MODELS: &str = "llama-steps--emu_models";

/// One residue entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Expected {
    test: String,
    targets: Vec<String>,
    cause: String,
}

impl Expected {
    fn applies_to(&self, dev: &str) -> bool {
        self.targets.iter().any(|t| t == "all" || t == dev)
    }

    fn matches(&self, test: &str) -> bool {
        match self.test.strip_suffix('*') {
            Some(prefix) => test.starts_with(prefix),
            None => test == self.test,
        }
    }
}

/// The residue's entries; an error names a malformed line.
pub(crate) fn parse_residue(lines: &[String]) -> Result<Vec<Expected>> {
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim().is_empty() || l.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = l.split('\t').collect();
        if f.len() != 3 || f.iter().any(|x| x.trim().is_empty()) {
            return Err(format!(
                "residue line {}: expected TEST<TAB>TARGETS<TAB>CAUSE, got {l:?}",
                i + 1
            ));
        }
        out.push(Expected {
            test: f[0].to_string(),
            targets: f[1].split(',').map(str::to_string).collect(),
            cause: f[2].to_string(),
        });
    }
    Ok(out)
}

/// The models' result lines (`llama-steps--emu_models::NAME OUTCOME`) from
/// the output of `emu_models PART`, and a failure for that run when it
/// printed no count line (a crash, a timeout).
pub(crate) fn models_results(part: &str, log: &[String], rc: i32) -> Vec<String> {
    let mut out = Vec::new();
    let mut counted = false;
    for l in log {
        let Some(rest) = l.strip_prefix("emu_models: ") else {
            continue;
        };
        if let Some((name, tail)) = rest.split_once(" ... ") {
            let outcome = if tail.starts_with("ok") {
                "ok"
            } else {
                "FAILED"
            };
            out.push(format!("{MODELS}::{name} {outcome}"));
        } else if rest.ends_with(" failed") && rest.contains(" passed, ") {
            counted = true;
        }
    }
    if !counted {
        out.push(format!(
            "{MODELS}::{part} (the whole program: exit {rc}, no count) FAILED"
        ));
    }
    out
}

/// One launch's counters, from the line hip-emu prints for it with
/// `HIP_EMU_COUNTERS=1` (`hip-emu: KERNEL on TARGET grid G block B: W
/// waves, N instructions (...), L lane-instructions, global G B, LDS D B,
/// scratch S B`). LDS and scratch are bytes moved, not bytes allocated.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Launch {
    pub instructions: u64,
    pub lane_instructions: u64,
    pub lds: u64,
    pub scratch: u64,
}

/// The kernel's name and its counters from a counter line without its
/// `hip-emu: ` prefix; `None` for any other line.
fn parse_launch(rest: &str) -> Option<(String, Launch)> {
    let (kernel, _) = rest.split_once(" on ")?;
    let (_, counts) = rest.rsplit_once("]: ")?;
    let field = |text: &str, before: &str| -> Option<u64> {
        let (head, _) = text.split_once(before)?;
        head.rsplit([' ', '(', ','])
            .find(|w| !w.is_empty())?
            .parse()
            .ok()
    };
    let (_, tail) = counts.rsplit_once(')')?;
    Some((
        short(kernel),
        Launch {
            instructions: field(counts, " instructions (")?,
            lane_instructions: field(tail, " lane-instructions")?,
            lds: tail.split_once("LDS ").and_then(|(_, t)| field(t, " B"))?,
            scratch: tail
                .split_once("scratch ")
                .and_then(|(_, t)| field(t, " B"))?,
        },
    ))
}

/// One check of emu_models as its standard error tells it: the name, the
/// outputs it computes (`emu_models: outputs N`, where printed), and each
/// kernel's launches in order.
#[derive(Debug, Default)]
pub(crate) struct Check {
    pub name: String,
    pub outputs: Option<u64>,
    pub kernels: BTreeMap<String, Vec<Launch>>,
}

/// The checks in the standard error of emu_models run with
/// `HIP_EMU_COUNTERS=1`: `emu_models: begin NAME`, its counter lines,
/// `emu_models: end NAME`. A check that did not end (a crash) is dropped.
pub(crate) fn checks(err: &[String]) -> Vec<Check> {
    let mut out = Vec::new();
    let mut current: Option<Check> = None;
    for l in err {
        if let Some(name) = l.strip_prefix("emu_models: begin ") {
            current = Some(Check {
                name: name.to_string(),
                ..Check::default()
            });
        } else if l.starts_with("emu_models: end ") {
            out.extend(current.take());
        } else if let (Some(c), Some(n)) =
            (current.as_mut(), l.strip_prefix("emu_models: outputs "))
        {
            c.outputs = n.trim().parse().ok();
        } else if let (Some(c), Some((k, launch))) = (
            current.as_mut(),
            l.strip_prefix("hip-emu: ").and_then(parse_launch),
        ) {
            c.kernels.entry(k).or_default().push(launch);
        }
    }
    out
}

/// The scratch traffic of each check's kernels, one line per check and
/// kernel: `NAME: KERNEL: N launches, B B of scratch per launch` (the
/// largest launch's). A check without launches says so.
pub(crate) fn scratch_lines(err: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for c in checks(err) {
        if c.kernels.is_empty() {
            out.push(format!("{}: no launches counted", c.name));
        }
        for (k, launches) in &c.kernels {
            let bytes = launches.iter().map(|l| l.scratch).max().unwrap_or(0);
            out.push(format!(
                "{}: {k}: {} launches, {bytes} B of scratch per launch",
                c.name,
                launches.len()
            ));
        }
    }
    out
}

/// The performance proxy of the quantized kernels (no AMD GPU exists
/// here, so the emulator's counts stand in for time): per device, check
/// and kernel, the instructions executed (per wave, and per lane) for each
/// output element of the check, and the LDS and scratch bytes moved per
/// launch (the largest launch's), as a Markdown table. A check without an
/// output count, or with no launches, is an error: the table would hide it.
pub(crate) fn proxy_table(devices: &[(String, Vec<Check>)]) -> Result<Vec<String>> {
    let mut out = vec![
        "| target | check | kernel | launches | instructions per output | lane-instructions per output | LDS B per launch | scratch B per launch |".to_string(),
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |".to_string(),
    ];
    for (dev, checks) in devices {
        if checks.is_empty() {
            return Err(format!("emu-proxy: no checks counted on {dev}"));
        }
        for c in checks {
            let outputs = c
                .outputs
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("emu-proxy: {dev}: {}: no output count", c.name))?;
            if c.kernels.is_empty() {
                return Err(format!("emu-proxy: {dev}: {}: no launches counted", c.name));
            }
            for (k, launches) in &c.kernels {
                let sum = |f: fn(&Launch) -> u64| launches.iter().map(f).sum::<u64>();
                let max = |f: fn(&Launch) -> u64| launches.iter().map(f).max().unwrap_or(0);
                out.push(format!(
                    "| {dev} | {} | `{k}` | {} | {:.1} | {:.1} | {} | {} |",
                    c.name,
                    launches.len(),
                    sum(|l| l.instructions) as f64 / outputs as f64,
                    sum(|l| l.lane_instructions) as f64 / outputs as f64,
                    max(|l| l.lds),
                    max(|l| l.scratch),
                ));
            }
        }
    }
    Ok(out)
}

/// A kernel's name for a report line: whole up to 80 characters, else
/// its first 60 and `...` (rocBLAS's Tensile names run past 600).
fn short(name: &str) -> String {
    if name.chars().count() <= 80 {
        name.to_string()
    } else {
        format!("{}...", name.chars().take(60).collect::<String>())
    }
}

/// The report over every device: per device, the suites' counts, the
/// failures the residue names (with their cause), those it does not (each
/// a failure of the run), and residue entries for that device that matched
/// no failure (a failure too: the list must stay true). The lines, and
/// whether the run passed.
pub(crate) fn report(
    results: &[(String, Vec<String>)],
    residue: &[Expected],
) -> (Vec<String>, bool) {
    let mut out = Vec::new();
    let (mut passed, mut failed, mut explained) = (0usize, 0usize, 0usize);
    for (dev, lines) in results {
        let mut suites: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
        let mut unexpected = Vec::new();
        let mut expected = Vec::new();
        let mut used = vec![false; residue.len()];
        for l in lines {
            let (test, outcome) = l.rsplit_once(' ').unwrap_or((l, ""));
            let suite = test.split("::").next().unwrap_or(test);
            let c = suites.entry(suite).or_default();
            match outcome {
                "ok" => c[0] += 1,
                "FAILED" => c[1] += 1,
                _ => c[2] += 1,
            }
            let hit = residue
                .iter()
                .enumerate()
                .find(|(_, e)| e.applies_to(dev) && e.matches(test));
            match (outcome, hit) {
                ("FAILED", Some((i, e))) => {
                    used[i] = true;
                    expected.push(format!("  {test}: {}", e.cause));
                }
                ("FAILED", None) => unexpected.push(format!("  {test}")),
                ("ok", Some((_, e))) if !e.test.ends_with('*') => unexpected.push(format!(
                    "  {test}: passes, but the residue says: {}",
                    e.cause
                )),
                ("ok", _) => passed += 1,
                _ => {}
            }
        }
        // A prefix that matched no failure, in a suite that ran (a subset
        // run leaves suites out).
        let stale: Vec<String> = residue
            .iter()
            .zip(&used)
            .filter(|(e, u)| {
                e.applies_to(dev)
                    && !**u
                    && e.test.ends_with('*')
                    && suites.contains_key(e.test.split("::").next().unwrap_or(&e.test))
            })
            .map(|(e, _)| format!("  {}: no test failed", e.test))
            .collect();
        let (ok, bad, ign) = suites
            .values()
            .fold((0, 0, 0), |a, c| (a.0 + c[0], a.1 + c[1], a.2 + c[2]));
        out.push(format!(
            "== candle on emulated {dev}: {ok} ok, {bad} failed ({} in the residue), {ign} ignored",
            expected.len()
        ));
        for (s, c) in &suites {
            out.push(format!(
                "| {s:<40} | {:>5} ok | {:>4} failed | {:>4} ignored |",
                c[0], c[1], c[2]
            ));
        }
        out.push(format!("{dev}: failures the residue explains:"));
        out.extend(expected.iter().cloned());
        if expected.is_empty() {
            out.push("  none".to_string());
        }
        if !unexpected.is_empty() || !stale.is_empty() {
            out.push(format!(
                "{dev}: NOT explained (fix it, or name the cause in the residue):"
            ));
            out.extend(unexpected.iter().cloned());
            out.extend(stale.iter().cloned());
        }
        failed += unexpected.len() + stale.len();
        explained += expected.len();
    }
    out.push(format!(
        "candle emu total: {passed} passed, {failed} failed, {explained} explained by the residue"
    ));
    (out, failed == 0)
}

/// `emu-models-results` and `candle-emu-report`.
pub(crate) fn command(command: &str, args: &[String]) -> Result<ExitCode> {
    match command {
        "emu-models-results" => {
            // DEV PART RC LOG ERR RESULTS
            let a = args_n(args, 6, command)?;
            let rc = number(&a[2], "exit status")?;
            for l in models_results(&a[1], &lines_of(Path::new(&a[3])), rc) {
                append(Path::new(&a[5]), &l)?;
            }
            for l in scratch_lines(&lines_of(Path::new(&a[4]))) {
                println!("    scratch on {}: {l}", a[0]);
            }
            Ok(ExitCode::SUCCESS)
        }
        "emu-proxy" => {
            // OUT DEVICES
            let a = args_n(args, 2, command)?;
            let devices: Vec<(String, Vec<Check>)> = a[1]
                .split(',')
                .map(|d| {
                    let err = Path::new(&a[0]).join(format!("{d}-models-quantized.err"));
                    (d.to_string(), checks(&lines_of(&err)))
                })
                .collect();
            print_lines(&proxy_table(&devices)?);
            Ok(ExitCode::SUCCESS)
        }
        "candle-emu-report" => {
            // OUT RESIDUE DEVICES
            let a = args_n(args, 3, command)?;
            let residue_lines =
                text::grep_lines(Path::new(&a[1])).map_err(|e| format!("{}: {e}", a[1]))?;
            let residue = parse_residue(&residue_lines)?;
            let results: Vec<(String, Vec<String>)> = a[2]
                .split(',')
                .map(|d| {
                    (
                        d.to_string(),
                        lines_of(&Path::new(&a[0]).join(format!("{d}.results"))),
                    )
                })
                .collect();
            if let Some((d, _)) = results.iter().find(|(_, r)| r.is_empty()) {
                return Err(format!("{command}: no results for {d}"));
            }
            let (lines, ok) = report(&results, &residue);
            print_lines(&lines);
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
    fn models_and_their_scratch() {
        let log = lines("emu_models: llama f32 ... ok (d)\nemu_models: quantized Q4K batch 8 ... FAILED (x)\nemu_models: 1 passed, 1 failed\n");
        assert_eq!(
            models_results("quantized", &log, 1),
            [
                "llama-steps--emu_models::llama f32 ok",
                "llama-steps--emu_models::quantized Q4K batch 8 FAILED"
            ]
        );
        let crash = models_results("llama", &lines("emu_models: llama f32 ... ok (d)\n"), 139);
        assert_eq!(
            crash[1],
            "llama-steps--emu_models::llama (the whole program: exit 139, no count) FAILED"
        );
        let err = lines(
            "emu_models: begin quantized Q4_0 batch 1\n\
             hip-emu: quantize_q8_1 on gfx942 grid [1, 1, 1] block [256, 1, 1]: 4 waves, 10 instructions (), 40 lane-instructions, global 8 B, LDS 0 B, scratch 0 B\n\
             hip-emu: mul_mat_vec_q4_0_q8_1_cuda1 on gfx942 grid [256, 1, 1] block [32, 4, 1]: 1 waves, 9 instructions (), 9 lane-instructions, global 8 B, LDS 0 B, scratch 96 B\n\
             hip-emu: mul_mat_vec_q4_0_q8_1_cuda1 on gfx942 grid [256, 1, 1] block [32, 4, 1]: 1 waves, 9 instructions (), 9 lane-instructions, global 8 B, LDS 0 B, scratch 128 B\n\
             emu_models: end quantized Q4_0 batch 1\n\
             emu_models: begin quantized Q8_0 batch 1\nemu_models: end quantized Q8_0 batch 1\n",
        );
        assert_eq!(
            scratch_lines(&err),
            [
                "quantized Q4_0 batch 1: mul_mat_vec_q4_0_q8_1_cuda1: 2 launches, 128 B of scratch per launch",
                "quantized Q4_0 batch 1: quantize_q8_1: 1 launches, 0 B of scratch per launch",
                "quantized Q8_0 batch 1: no launches counted"
            ]
        );
    }

    #[test]
    fn counters_per_output_as_a_table() {
        let err = lines(
            "emu_models: begin quantized Q4_0 batch 2\n\
             emu_models: outputs 512\n\
             hip-emu: quantize_q8_1 on gfx942 grid [1, 1, 1] block [256, 1, 1]: 4 waves, 1024 instructions (SOPP 24, VOP2 1000), 40960 lane-instructions, global 8 B, LDS 0 B, scratch 0 B\n\
             hip-emu: mmq on gfx942 grid [2, 1, 1] block [32, 8, 1]: 16 waves, 2048 instructions (DS 48), 65536 lane-instructions, global 8 B, LDS 4096 B, scratch 96 B\n\
             hip-emu: mmq on gfx942 grid [2, 1, 1] block [32, 8, 1]: 16 waves, 1024 instructions (DS 48), 65536 lane-instructions, global 8 B, LDS 8192 B, scratch 32 B\n\
             emu_models: end quantized Q4_0 batch 2\n",
        );
        let c = checks(&err);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].outputs, Some(512));
        assert_eq!(
            c[0].kernels["mmq"][1],
            Launch {
                instructions: 1024,
                lane_instructions: 65536,
                lds: 8192,
                scratch: 32
            }
        );
        let t = proxy_table(&[("gfx942".to_string(), c)]).unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(
            t[2],
            "| gfx942 | quantized Q4_0 batch 2 | `mmq` | 2 | 6.0 | 256.0 | 8192 | 96 |"
        );
        assert_eq!(
            t[3],
            "| gfx942 | quantized Q4_0 batch 2 | `quantize_q8_1` | 1 | 2.0 | 80.0 | 0 | 0 |"
        );
        // A check without its output count, or without launches, or a
        // device without checks, is refused rather than shown as zero.
        let no_count = checks(&lines(
            "emu_models: begin q\nhip-emu: k on gfx942 grid [1, 1, 1] block [1, 1, 1]: 1 waves, 1 instructions (), 1 lane-instructions, global 0 B, LDS 0 B, scratch 0 B\nemu_models: end q\n",
        ));
        assert!(proxy_table(&[("gfx942".to_string(), no_count)]).is_err());
        let empty = checks(&lines(
            "emu_models: begin q\nemu_models: outputs 4\nemu_models: end q\n",
        ));
        assert!(proxy_table(&[("gfx942".to_string(), empty)]).is_err());
        assert!(proxy_table(&[("gfx1100".to_string(), Vec::new())]).is_err());
        // A check that never ended (the process died) is not counted.
        assert!(checks(&lines("emu_models: begin q\nemu_models: outputs 4\n")).is_empty());
    }

    #[test]
    fn the_residue_explains_failures_and_stays_true() {
        let residue = parse_residue(&lines(
            "# comment\ns::a\tgfx942\trocBLAS has no gfx942 kernels\ns::q*\tall\tno hipRAND\ns::gone\tgfx1100\tfixed since\n",
        ))
        .unwrap();
        assert!(parse_residue(&lines("s::a gfx942 no tabs\n")).is_err());
        let ok = [(
            "gfx942".to_string(),
            lines("s::a FAILED\ns::q1 FAILED\ns::b ok\ns::c ignored\n"),
        )];
        let (out, passed) = report(&ok, &residue);
        assert!(passed, "{out:?}");
        assert_eq!(
            out.last().unwrap(),
            "candle emu total: 1 passed, 0 failed, 2 explained by the residue"
        );
        assert!(out.contains(&"  s::a: rocBLAS has no gfx942 kernels".to_string()));
        // An unexplained failure, a listed test that passes, and a prefix
        // that matched nothing: each fails the run.
        let bad = [
            ("gfx942".to_string(), lines("s::a ok\ns::b FAILED\n")),
            ("gfx1100".to_string(), lines("s::gone FAILED\ns::z ok\n")),
        ];
        // A prefix of a suite that did not run is not stale.
        let other = parse_residue(&lines("t::q*\tall\tnot run here\n")).unwrap();
        let clean = [("gfx942".to_string(), lines("s::b ok\n"))];
        assert!(report(&clean, &other).1);
        let (out, passed) = report(&bad, &residue);
        assert!(!passed);
        assert_eq!(
            out.last().unwrap(),
            "candle emu total: 1 passed, 4 failed, 1 explained by the residue",
            "{out:?}"
        );
        assert!(out
            .iter()
            .any(|l| l.contains("s::a: passes, but the residue says")));
        assert!(out.iter().any(|l| l == "  s::q*: no test failed"));
    }
}
