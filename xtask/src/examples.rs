//! scripts/cudarc-examples.sh's checks on the GPU machine: each example's
//! output (`check-example`, `example-differs`), and the launch benchmark's
//! rounds, medians and ratios (`launch-round`, `launch-summary`).
//!
//! Values are read as awk reads them (a field's leading number, 0 when it
//! has none) and printed as they were written, so the lines read as before.

use crate::text::{self, Counts, Middle, Number};
use bench_verdict::Verdict;

/// A field's value as awk's arithmetic reads it: its leading decimal
/// number, 0 when it starts with none.
pub(crate) fn awk_value(field: &str) -> f64 {
    let s = field.trim_start();
    let b = s.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits_from = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i == digits_from || &s[digits_from..i] == "." {
        return 0.0;
    }
    let mantissa_end = i;
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        let exp_from = j;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_from {
            i = j;
        }
    }
    s[..i]
        .parse()
        .or_else(|_| s[..mantissa_end].parse())
        .unwrap_or(0.0)
}

/// The values of the last `Found [a, b, ...]` line.
fn found_values(output: &[String]) -> Option<Vec<String>> {
    let line = output.iter().rev().find(|l| l.starts_with("Found ["))?;
    let inner = &line["Found [".len()..];
    let inner = inner.split_once(']').map_or(inner, |(before, _)| before);
    if inner.is_empty() {
        return Some(Vec::new());
    }
    Some(
        inner
            .split(',')
            .enumerate()
            .map(|(i, v)| if i == 0 { v } else { v.trim_start_matches(' ') })
            .map(str::to_string)
            .collect(),
    )
}

/// `Found [...]` holds `want`, each within `tolerance`; `name(i, value,
/// want)` says what is wrong with the `i`th (from 1).
fn check_found(
    output: &[String],
    want: &[f64],
    tolerance: f64,
    name: impl Fn(usize, &str, f64) -> String,
) -> Result<(), String> {
    let values = found_values(output).ok_or("no \"Found [...]\" line")?;
    if values.len() != want.len() {
        return Err(format!(
            "expected {} values, got {}",
            want.len(),
            values.len()
        ));
    }
    for (i, (v, w)) in values.iter().zip(want).enumerate() {
        if (awk_value(v) - w).abs() > tolerance {
            return Err(name(i + 1, v, *w));
        }
    }
    Ok(())
}

/// 03-launch-kernel and 04-streams: `Found [..]` equal to sin(1), sin(2),
/// sin(3) within 1e-6.
fn check_sin_found(output: &[String]) -> Result<(), String> {
    let want = [1f64.sin(), 2f64.sin(), 3f64.sin()];
    check_found(output, &want, 1e-6, |i, v, w| {
        format!("value {i} is {v}, sin({i}) = {w:.8}")
    })
}

/// matmul-kernel: `Found [7.0, 10.0, 15.0, 22.0]`, `[[1,2],[3,4]]` squared,
/// within 1e-5.
fn check_matmul(output: &[String]) -> Result<(), String> {
    check_found(output, &[7.0, 10.0, 15.0, 22.0], 1e-5, |i, v, w| {
        format!("C[{}] is {v}, expected {w}", i - 1)
    })
}

/// 06-threading: 20 launches (threads 0..9, twice each: shared and own
/// contexts) of one block of 1024 threads, every thread printing.
fn check_threading(output: &[String]) -> Result<(), String> {
    let mut seen = std::collections::HashMap::<&str, u64>::new();
    let mut total = 0;
    for line in output {
        let Some(n) = line.strip_prefix("Hello from the cuda kernel in thread ") else {
            continue;
        };
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            *seen.entry(n).or_default() += 1;
            total += 1;
        }
    }
    if total != 20 * 1024 {
        return Err(format!(
            "expected 20480 kernel printf lines (20 launches of 1024 threads), got {total}"
        ));
    }
    for i in 0..10 {
        let n = seen.get(i.to_string().as_str()).copied().unwrap_or(0);
        if n != 2 * 1024 {
            return Err(format!("argument {i} printed {n} times, expected 2048"));
        }
    }
    Ok(())
}

fn last_field(line: &str) -> &str {
    line.split_whitespace().last().unwrap_or("")
}

/// Whether a field looks like a number to awk (then it compares as one).
fn numeric(field: &str) -> Option<f64> {
    field.trim().parse::<f64>().ok().filter(|v| v.is_finite())
}

/// `field > 0` as awk compares a field with a number: numerically when
/// it looks like one, else as text against "0"; an unset field is 0.
fn above_zero(field: Option<&str>) -> bool {
    match field {
        None => false,
        Some(f) => match numeric(f) {
            Some(v) => v > 0.0,
            None => f > "0",
        },
    }
}

/// 10-function-attributes: registers, maximum threads per block and a
/// suggested block size in 1..=maximum.
fn check_function_attributes(output: &[String]) -> Result<(), String> {
    let (mut regs, mut maxt, mut block) = (None, None, None);
    for line in output {
        if line.contains("Registers per thread:") {
            regs = Some(last_field(line));
        }
        if line.contains("Max threads per block:") {
            maxt = Some(last_field(line));
        }
        if line.contains("Suggested block size:") {
            block = Some(last_field(line));
        }
    }
    if !above_zero(regs) {
        return Err("registers per thread missing or 0".into());
    }
    if !above_zero(maxt) {
        return Err("max threads per block missing or 0".into());
    }
    let within = match (block.and_then(numeric), maxt.and_then(numeric)) {
        (Some(b), Some(m)) => b <= m,
        _ => block.unwrap_or("") <= maxt.unwrap_or(""),
    };
    if !(above_zero(block) && within) {
        return Err(format!(
            "suggested block size {} not in 1..{}",
            block.unwrap_or(""),
            maxt.unwrap_or("")
        ));
    }
    Ok(())
}

/// The `n`th whitespace field (from 1) of `line`.
fn field(line: &str, n: usize) -> &str {
    line.split_whitespace().nth(n - 1).unwrap_or("")
}

/// `PREFIX` then digits then ` bytes`, at the line's start.
fn digits_then_bytes(line: &str, prefix: &str) -> bool {
    line.strip_prefix(prefix).is_some_and(|rest| {
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        n > 0 && rest[n..].starts_with(" bytes")
    })
}

/// 12-context-config: the stack limit set to twice its value reads back
/// at least that much, and the example got to its end.
fn check_context_config(output: &[String]) -> Result<(), String> {
    let (mut want, mut got, mut restored) = (None, None, false);
    for line in output {
        if digits_then_bytes(line, "Setting stack size to ") {
            want = Some(field(line, 5));
        }
        if digits_then_bytes(line, "Updated stack size: ") {
            got = Some(field(line, 4));
        }
        if line.starts_with("Restored cache config to") {
            restored = true;
        }
    }
    let (Some(want), Some(got)) = (
        want.filter(|w| !w.is_empty()),
        got.filter(|g| !g.is_empty()),
    ) else {
        return Err("no stack size lines".into());
    };
    if awk_value(want) == 0.0 {
        return Err("stack size limit reads 0".into());
    }
    if awk_value(got) < awk_value(want) {
        return Err(format!("stack size set to {want} reads back {got}"));
    }
    if !restored {
        return Err("did not finish (no \"Restored cache config\")".into());
    }
    Ok(())
}

fn check_line(output: &[String], want: &str) -> Result<(), String> {
    if output.iter().any(|l| l.contains(want)) {
        Ok(())
    } else {
        Err(format!("no line \"{want}\""))
    }
}

/// Checks what the cudarc example `name` printed; the error says what is
/// wrong.
pub(crate) fn check_output(name: &str, output: &[String]) -> Result<(), String> {
    match name {
        "03-launch-kernel" | "04-streams" => check_sin_found(output),
        "06-threading" => check_threading(output),
        "09-constant-memory" => check_line(output, "All results match expected values!"),
        "10-function-attributes" => check_function_attributes(output),
        "12-context-config" => check_context_config(output),
        "matmul-kernel" => check_matmul(output),
        "nvrtc-compile" => check_line(output, "Compilation succeeded!"),
        // These print nothing: their asserts and Results are the check.
        "01-allocate" | "02-copy" | "05-device-repr" | "13-copy-multi-gpu" => Ok(()),
        _ => Err(format!("no output check for {name}")),
    }
}

/// Why the example stopped where HIP differs from CUDA as documented, or
/// `None` when it did not:
/// - 12-context-config read the three limits HIP has, then got
///   CUDA_ERROR_NOT_SUPPORTED for the device runtime's sync depth, which
///   HIP has not;
/// - 03-launch-kernel, 04-streams and 10-function-attributes load the PTX
///   text of `examples/sin.ptx`, which on AMD is CUDA_ERROR_INVALID_PTX
///   (cuda-compat's `Ptx`: PTX runs on the NVIDIA platform only), their
///   last line that error.
pub(crate) fn differs_as_documented(name: &str, output: &[String]) -> Option<&'static str> {
    match name {
        "12-context-config" => context_config_differs(output).then_some(
            "HIP has no device-runtime limits: CUDA_ERROR_NOT_SUPPORTED for \
             CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH, as documented (stack, heap and printf limits read)",
        ),
        "03-launch-kernel" | "04-streams" | "10-function-attributes" => {
            let last = output.iter().rev().find(|l| !l.trim().is_empty())?;
            (last.starts_with("Error: DriverError(CUDA_ERROR_INVALID_PTX")
                && last.contains("PTX runs only on the NVIDIA platform"))
            .then_some(
                "PTX text (examples/sin.ptx) does not load on AMD: CUDA_ERROR_INVALID_PTX, \
                 as documented (cuda-compat's Ptx)",
            )
        }
        _ => None,
    }
}

fn context_config_differs(output: &[String]) -> bool {
    let limit = |prefix: &str| {
        output.iter().any(|l| {
            l.strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
    };
    limit("Stack size per thread: ")
        && limit("Malloc heap size: ")
        && limit("Printf buffer size: ")
        && output
            .iter()
            .any(|l| l.contains("CUDA_ERROR_NOT_SUPPORTED"))
        && !output
            .iter()
            .any(|l| l.starts_with("Device runtime sync depth"))
}

/// A run of cudarc-examples.sh's `run`/`run-built` as one libtest-style
/// summary (`test result: ...`), for the tallies that count those: its
/// last `N passed, N failed` line, its differing and not-run examples as
/// ignored. A run that ended without its counts, or exited non-zero with
/// no failure counted, is one failure more.
pub(crate) fn examples_result(output: &[String], exit_status: i32) -> String {
    let count = |line: &str, tail: &str| -> Option<u64> { line.strip_suffix(tail)?.parse().ok() };
    let mut counts = Counts::default();
    let mut finished = false;
    for line in output {
        let line = line.trim_end();
        if let Some((p, f)) = line.split_once(" passed, ") {
            if let (Ok(p), Some(f)) = (p.parse::<u64>(), count(f, " failed")) {
                (counts.passed, counts.failed) = (p, f);
                finished = true;
            }
        } else if let Some(n) = count(
            line,
            " differ from CUDA as documented (neither passed nor failed)",
        )
        .or_else(|| count(line, " not run"))
        {
            counts.ignored += n;
        }
    }
    if !finished || (exit_status != 0 && counts.failed == 0) {
        counts.failed += 1;
    }
    let word = if counts.failed == 0 { "ok" } else { "FAILED" };
    format!(
        "test result: {word}. {} passed; {} failed; {} ignored; 0 measured; 0 filtered out",
        counts.passed, counts.failed, counts.ignored
    )
}

/// The `[0-9.]*` after the last `KEY=` of `line`, or `None` without one.
fn value_after(line: &str, key: &str) -> Option<String> {
    let at = line.rfind(&format!("{key}="))?;
    let rest = &line[at + key.len() + 1..];
    Some(
        rest.chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect(),
    )
}

/// One launch-benchmark run's `RESULT ... launches_per_s=R
/// cpu_ns_per_launch=C` line: the round's line to print and its ledger
/// record (`IMPL<TAB>R<TAB>C`).
pub(crate) fn launch_round(
    round: &str,
    implementation: &str,
    out: &[String],
) -> Result<(String, String), String> {
    let result = out
        .iter()
        .find(|l| l.starts_with("RESULT "))
        .ok_or_else(|| {
            format!(
                "round {round}, {implementation} printed no RESULT line: {}",
                out.join("\n")
            )
        })?;
    let unreadable =
        || format!("round {round}, {implementation}: unreadable RESULT line: {result}");
    let rate = value_after(result, "launches_per_s").and_then(|r| Number::parse(&r));
    let cpu = value_after(result, "cpu_ns_per_launch").and_then(|c| Number::parse(&c));
    let (Some(rate), Some(cpu)) = (rate, cpu) else {
        return Err(unreadable());
    };
    Ok((
        format!(
            "round {round} {implementation:<7} {:>12.0} launches/s {:>9.1} ns CPU per launch",
            rate.value, cpu.value
        ),
        format!("{implementation}\t{}\t{}", rate.text, cpu.text),
    ))
}

/// The speed target of the facade's launches against real cudarc's.
const LAUNCH_TARGET: f64 = 0.95;

/// The launch benchmark's medians and verdicts: per round, cuda-compat's
/// throughput over real cudarc's, and real's CPU cost per launch over
/// cuda-compat's (above 1 means the facade is faster); each judged by
/// bench-verdict (the median of the paired per-round ratios with its 95%
/// interval) against the 0.95 target. The records are in the order they
/// ran; the `i`-th of each implementation pair as round `i`. The lines,
/// and whether both targets are met.
pub(crate) fn launch_summary(ledger: &[String]) -> Result<(Vec<String>, bool), String> {
    let (mut rate_real, mut rate_compat, mut cpu_real, mut cpu_compat) =
        (vec![], vec![], vec![], vec![]);
    for record in ledger {
        let f: Vec<&str> = record.split('\t').collect();
        let [implementation, rate, cpu] = f[..] else {
            return Err(format!("launch-summary: bad record {record:?}"));
        };
        let (rate, cpu) = (
            Number::parse(rate).ok_or(format!("bad rate {rate:?}"))?,
            Number::parse(cpu).ok_or(format!("bad CPU cost {cpu:?}"))?,
        );
        match implementation {
            "real" => {
                rate_real.push(rate);
                cpu_real.push(cpu);
            }
            "compat" => {
                rate_compat.push(rate);
                cpu_compat.push(cpu);
            }
            other => return Err(format!("launch-summary: unknown implementation {other:?}")),
        }
    }
    let median =
        |v: &[Number]| text::median(v, Middle::Mean).ok_or("launch-summary: no rounds".to_string());
    let (med_rr, med_rc) = (median(&rate_real)?, median(&rate_compat)?);
    let (med_cr, med_cc) = (median(&cpu_real)?, median(&cpu_compat)?);
    let values = |v: &[Number]| v.iter().map(|n| n.value).collect::<Vec<f64>>();
    let ratios = |a: &[Number], b: &[Number]| -> Result<Vec<f64>, String> {
        if a.len() != b.len() {
            return Err(format!(
                "launch-summary: {} compat rounds against {} real ones: the rounds do not pair",
                rate_compat.len(),
                rate_real.len()
            ));
        }
        Ok(values(a)
            .iter()
            .zip(values(b))
            .map(|(x, y)| x / y)
            .collect())
    };
    let throughput = Verdict::of_ratios(&ratios(&rate_compat, &rate_real)?, LAUNCH_TARGET)
        .map_err(|e| format!("launch-summary: {e}"))?;
    let from_cpu = Verdict::of_ratios(&ratios(&cpu_real, &cpu_compat)?, LAUNCH_TARGET)
        .map_err(|e| format!("launch-summary: {e}"))?;
    let mut out = vec![format!(
        "median throughput: real {med_rr}, compat {med_rc} launches/s"
    )];
    out.extend(throughput.lines("throughput ratio compat/real", "per round", ""));
    out.push(format!(
        "median CPU cost per launch: real {med_cr} ns, compat {med_cc} ns"
    ));
    out.extend(from_cpu.lines(
        "launch rate ratio from CPU cost, compat/real",
        "per round (real ns / compat ns)",
        "",
    ));
    Ok((
        out,
        throughput.outcome.passed() && from_cpu.outcome.passed(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        text::split_newlines(s)
    }

    #[test]
    fn awk_reads_leading_numbers() {
        assert_eq!(awk_value("0.5"), 0.5);
        assert_eq!(awk_value(" 1e3x"), 1000.0);
        assert_eq!(awk_value("12abc"), 12.0);
        assert_eq!(awk_value("abc"), 0.0);
        assert_eq!(awk_value("-.25"), -0.25);
        assert_eq!(awk_value("."), 0.0);
        assert_eq!(awk_value("2e"), 2.0);
    }

    #[test]
    fn sines_within_1e_6_and_no_further() {
        let s = |d: f64| {
            lines(&format!(
                "Found [{}, {}, {}]\n",
                1f64.sin() + d,
                2f64.sin(),
                3f64.sin()
            ))
        };
        assert_eq!(check_output("03-launch-kernel", &s(0.0)), Ok(()));
        assert_eq!(check_output("04-streams", &s(9e-7)), Ok(()));
        let err = check_output("04-streams", &s(2e-6)).unwrap_err();
        assert!(err.starts_with("value 1 is 0.8414729"), "{err}");
        assert!(err.ends_with("sin(1) = 0.84147098"), "{err}");
        assert_eq!(
            check_output("04-streams", &lines("Found [1, 2]\n")),
            Err("expected 3 values, got 2".into())
        );
        assert_eq!(
            check_output("04-streams", &lines("done\n")),
            Err("no \"Found [...]\" line".into())
        );
        // The last Found line counts, its text after `]` ignored.
        let last = format!(
            "Found [1, 2, 3]\nFound [{},{},  {}] in 3ms\n",
            1f64.sin(),
            2f64.sin(),
            3f64.sin()
        );
        assert_eq!(check_output("03-launch-kernel", &lines(&last)), Ok(()));
    }

    #[test]
    fn matmul_within_1e_5() {
        assert_eq!(
            check_output(
                "matmul-kernel",
                &lines("Found [7.0, 10.0, 15.0, 22.0] in 1ms\n")
            ),
            Ok(())
        );
        assert_eq!(
            check_output(
                "matmul-kernel",
                &lines("Found [7.0, 10.0, 15.000009, 22.0]\n")
            ),
            Ok(())
        );
        assert_eq!(
            check_output(
                "matmul-kernel",
                &lines("Found [7.0, 10.0, 15.00002, 22.0]\n")
            ),
            Err("C[2] is 15.00002, expected 15".into())
        );
        assert_eq!(
            check_output("matmul-kernel", &lines("Found []\n")),
            Err("expected 4 values, got 0".into())
        );
    }

    #[test]
    fn threading_counts_every_threads_line() {
        let out = |n: usize, arg: &dyn Fn(usize) -> usize| {
            (0..n)
                .map(|i| format!("Hello from the cuda kernel in thread {}", arg(i)))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            check_output("06-threading", &out(20480, &|i| i % 10)),
            Ok(())
        );
        assert_eq!(
            check_output("06-threading", &out(20479, &|i| i % 10)),
            Err(
                "expected 20480 kernel printf lines (20 launches of 1024 threads), got 20479"
                    .into()
            )
        );
        assert_eq!(
            check_output(
                "06-threading",
                &out(20480, &|i| if i < 4096 { 0 } else { 1 + i % 9 })
            ),
            Err("argument 0 printed 4096 times, expected 2048".into())
        );
    }

    #[test]
    fn function_attributes_and_context_config() {
        let fa = |regs: &str, block: &str| {
            lines(&format!("Registers per thread: {regs}\nMax threads per block: 1024\nSuggested block size: {block}\n"))
        };
        assert_eq!(
            check_output("10-function-attributes", &fa("16", "256")),
            Ok(())
        );
        assert_eq!(
            check_output("10-function-attributes", &fa("16", "1024")),
            Ok(())
        );
        assert_eq!(
            check_output("10-function-attributes", &fa("16", "2048")),
            Err("suggested block size 2048 not in 1..1024".into())
        );
        assert_eq!(
            check_output("10-function-attributes", &fa("0", "256")),
            Err("registers per thread missing or 0".into())
        );

        let cc = |want: &str, got: &str, end: &str| {
            lines(&format!(
                "Setting stack size to {want} bytes\nUpdated stack size: {got} bytes\n{end}"
            ))
        };
        let done = "Restored cache config to PreferNone\n";
        assert_eq!(
            check_output("12-context-config", &cc("2048", "2048", done)),
            Ok(())
        );
        assert_eq!(
            check_output("12-context-config", &cc("2048", "1024", done)),
            Err("stack size set to 2048 reads back 1024".into())
        );
        assert_eq!(
            check_output("12-context-config", &cc("0", "0", done)),
            Err("stack size limit reads 0".into())
        );
        assert_eq!(
            check_output("12-context-config", &cc("2048", "4096", "")),
            Err("did not finish (no \"Restored cache config\")".into())
        );
        assert_eq!(
            check_output("12-context-config", &[]),
            Err("no stack size lines".into())
        );
    }

    #[test]
    fn lines_silent_examples_and_unknown_ones() {
        assert_eq!(
            check_output("nvrtc-compile", &lines("Compilation succeeded!\n")),
            Ok(())
        );
        assert_eq!(
            check_output("09-constant-memory", &lines("mismatch\n")),
            Err("no line \"All results match expected values!\"".into())
        );
        assert_eq!(check_output("02-copy", &[]), Ok(()));
        assert_eq!(
            check_output("08-cupti", &[]),
            Err("no output check for 08-cupti".into())
        );
    }

    #[test]
    fn the_documented_difference_of_12_context_config() {
        let out = lines(
            "Stack size per thread: 1024\nMalloc heap size: 8388608\nPrintf buffer size: 1048576\n\
             Error: DriverError(CUDA_ERROR_NOT_SUPPORTED)\n",
        );
        assert!(differs_as_documented("12-context-config", &out)
            .is_some_and(|why| why.contains("CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH")));
        assert_eq!(differs_as_documented("06-threading", &out), None);
        let mut more = out.clone();
        more.push("Device runtime sync depth: 2".into());
        assert_eq!(differs_as_documented("12-context-config", &more), None);
        assert_eq!(differs_as_documented("12-context-config", &out[1..]), None);
    }

    #[test]
    fn ptx_text_on_amd_is_a_documented_difference() {
        let out = lines(
            "Device: AMD Instinct MI300X\n\nError: DriverError(CUDA_ERROR_INVALID_PTX, \"a PTX JIT \
             compilation failed\", \"PTX runs only on the NVIDIA platform (HIP_PLATFORM=nvidia); \
             on AMD, compile ...\")\n",
        );
        for name in ["03-launch-kernel", "04-streams", "10-function-attributes"] {
            assert!(differs_as_documented(name, &out).is_some_and(|why| why.contains("sin.ptx")));
        }
        assert_eq!(differs_as_documented("matmul-kernel", &out), None);
        // Another invalid-PTX error (NVIDIA's own), or output after the
        // error, is not the documented difference.
        let nvidia =
            lines("Error: DriverError(CUDA_ERROR_INVALID_PTX, \"a PTX JIT compilation failed\")\n");
        assert_eq!(differs_as_documented("03-launch-kernel", &nvidia), None);
        let mut after = out.clone();
        after.push("Found [0.84]".into());
        assert_eq!(differs_as_documented("03-launch-kernel", &after), None);
        assert_eq!(differs_as_documented("03-launch-kernel", &[]), None);
    }

    #[test]
    fn a_run_as_one_libtest_summary() {
        let run = lines(
            "running cudarc's examples from /w (HIP_PLATFORM=emulated, 1 GPUs, 120s each)\n\
             example                  result   detail\n\
             01-allocate              passed   exit 0, output checked\n\
             03-launch-kernel         differs  PTX text\n\
             06-threading             FAILED   timed out after 120s\n\
             outputs: /w/logs/\n\
             1 differ from CUDA as documented (neither passed nor failed)\n\
             1 not run\n\
             1 passed, 1 failed\n",
        );
        let result = examples_result(&run, 1);
        assert_eq!(
            result,
            "test result: FAILED. 1 passed; 1 failed; 2 ignored; 0 measured; 0 filtered out"
        );
        // What the tallies read.
        assert_eq!(
            text::summary_line(&result),
            Some(Counts {
                passed: 1,
                failed: 1,
                ignored: 2
            })
        );
        let ok = lines("0 differ from CUDA as documented (neither passed nor failed)\n0 not run\n9 passed, 0 failed\n");
        assert_eq!(
            examples_result(&ok, 0),
            "test result: ok. 9 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out"
        );
        // Non-zero exit with no failure counted, or no counts at all (the
        // script died): a failure.
        assert!(examples_result(&ok, 1).starts_with("test result: FAILED. 9 passed; 1 failed;"));
        assert_eq!(
            examples_result(&lines("running cudarc's examples\n"), 0),
            "test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out"
        );
    }

    #[test]
    fn launch_rounds_and_their_summary() {
        let out = lines(
            "warming up\nRESULT impl=real launches_per_s=1000000.5 cpu_ns_per_launch=850.25 x=1\n",
        );
        let (line, record) = launch_round("1", "real", &out).unwrap();
        assert_eq!(
            line,
            "round 1 real         1000000 launches/s     850.2 ns CPU per launch"
        );
        assert_eq!(record, "real\t1000000.5\t850.25");
        assert!(launch_round("2", "compat", &lines("crashed\n"))
            .unwrap_err()
            .contains("printed no RESULT line"));
        let bad = lines("RESULT launches_per_s= cpu_ns_per_launch=1\n");
        assert!(launch_round("2", "compat", &bad)
            .unwrap_err()
            .contains("unreadable RESULT line"));

        // Six rounds in ABBA order (the records as they ran): an even
        // count's median is the mean of the middle two.
        let ledger = lines(
            "real\t1234567.2\t850\ncompat\t1100000\t1000\ncompat\t1100001\t1001\nreal\t1234568.5\t900\n\
             real\t1300000\t870\ncompat\t1000000.1\t999.5\ncompat\t1200000\t998.25\nreal\t1200000\t860\n\
             real\t1250000\t880\ncompat\t1190000\t990\ncompat\t1180000\t995\nreal\t1240000\t875\n",
        );
        let (s, met) = launch_summary(&ledger).unwrap();
        assert!(!met);
        assert_eq!(
            s[0],
            "median throughput: real 1.23728e+06, compat 1.14e+06 launches/s"
        );
        assert_eq!(
            s[1],
            "throughput ratio compat/real: per round median 0.922 [95% interval 0.769, 1.000] of 6 \
             paired rounds; quartiles 0.891, 0.952; range 0.769..1.000; target >= 0.95: undecided"
        );
        assert!(s[2].starts_with("  undecided (counts as failed): the 95% interval 0.769..1.000 holds the target 0.95"), "{}", s[2]);
        assert_eq!(
            s[3],
            "median CPU cost per launch: real 872.5 ns, compat 998.875 ns"
        );
        assert!(s[4].starts_with("launch rate ratio from CPU cost, compat/real: per round (real ns / compat ns) median 0.875"), "{}", s[4]);
        assert!(s[4].ends_with("target >= 0.95: NOT met"), "{}", s[4]);
        assert_eq!(s.len(), 5);

        // The target is met at 0.95 exactly, in every round.
        let (s, met) =
            launch_summary(&lines(&"real\t100\t10\ncompat\t95\t10\n".repeat(6))).unwrap();
        assert!(met);
        assert!(s[1].ends_with("target >= 0.95: met"), "{}", s[1]);
        // Fewer than 6 rounds: undecided, a failure.
        let (s, met) =
            launch_summary(&lines(&"real\t100\t10\ncompat\t200\t5\n".repeat(5))).unwrap();
        assert!(!met);
        assert!(s[1].ends_with("undecided"), "{}", s[1]);
        // Rounds that do not pair.
        assert!(
            launch_summary(&lines("real\t100\t10\nreal\t100\t10\ncompat\t100\t10\n"))
                .unwrap_err()
                .contains("do not pair")
        );
        assert!(launch_summary(&[]).is_err());
    }
}
