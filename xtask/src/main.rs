//! `cargo xtask`: the half of the workspace's scripts that parses or
//! checks. The shell scripts in `scripts/` install packages, download,
//! build and run programs; what they read back (libtest's output, cargo's
//! JSON, benchmark and example outputs) is read here, where it has unit
//! tests.
//!
//! On the GPU machine, which has no Rust, the scripts call the release
//! binary that `scripts/gpu-bundle.sh` puts in the bundle (`gpu-bundle/xtask`).

mod amd_cvt;
mod amd_launches;
mod amd_spills;
mod candle;
mod candle_amd;
mod candle_emu;
mod cargo_json;
mod cudarc_api;
mod cudarc_outcomes;
mod cudarc_tests;
mod examples;
mod gpu_run;
mod host_cost;
mod mistral;
mod session;
mod tally;
mod text;
mod wheel_headers;

use cudarc_api::signatures;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "\
usage: cargo xtask COMMAND ARGS...

Here (scripts/test.sh, tier2-sysroots.sh, wine-tier.sh, gpu-bundle.sh, candle.sh):
  executables [--kinds|--test-targets]
                                     cargo's --message-format=json on stdin: one line per
                                     test-harness build (SRC EXE), or with --kinds per
                                     executable (KIND PACKAGE TARGET EXE tab-separated),
                                     or with --test-targets the executables of test
                                     targets (tests/*.rs), one path a line
  candle-amd-check OUT_DIR NVCC_LIST CORE_SRC NN_SRC TARGETS CO_DIR
                                     candle.sh amd: the static checks of candle-kernels
                                     built for AMD (xtask/src/candle_amd.rs); fails on a miss
  amd-spills OUT_DIR LIST PROCESSORS [--write] [--detail]
                                     candle.sh amd: every spilling kernel of the AMD build
                                     listed with its reason, every bound in the code
                                     objects (xtask/src/amd_spills.rs); fails on a miss;
                                     --write rewrites the list (new kernels unreviewed);
                                     --detail prints each spilling instance's measures
  amd-launches OUT_DIR LIST PROCESSORS CORE_SRC KERNELS_SRC
                                     candle.sh amd: candle's launches of the bounded
                                     sources' kernels, against a committed list, each
                                     within its bound (xtask/src/amd_launches.rs)
  amd-cvt TARGET ASM                 candle.sh amd: the layer's bf16/fp8 conversions
                                     (hip-cuda-layer/tests/cvt.cu's assembly) use the
                                     hardware's instructions where the format is CUDA's,
                                     and only there (xtask/src/amd_cvt.rs)
  out-dir PACKAGE                    candle.sh: the OUT_DIR of PACKAGE's build script (cargo JSON on stdin)
  patch-used METADATA REPO           candle.sh: cudarc and cudaforge resolve to dropins/ alone
  resolved METADATA NAME...          mistral.sh check: the resolve's packages named, one line
                                     each: NAME VERSION SOURCE MANIFEST DEPENDENT,DEPENDENT...
  only-for RESOLVED NAME USER        mistral.sh check: the lines of `resolved`'s output
                                     of a crates.io NAME with a dependent other than USER
  rust-errors                        mistral.sh amd: rustc's errors in cargo's JSON (stdin),
                                     `PACKAGE@VERSION: MESSAGE (FILE:LINE, ...)` each
  mistral-amd builds OUT_DIRS TARGETS | kernels JSON | list TARGETS JSON_DIR BUILDS
             | summary LIST
                                     mistral.sh amd: the current build folders, a kernel
                                     report's count, the kernel list's lines, the list's
                                     counts per crate (xtask/src/mistral.rs)
  manifest-dir PACKAGE               cudarc-tests.sh: the folder of PACKAGE's manifest
                                     (cargo metadata on stdin)
  cudarc-tests extract SRC OUT | prune OUT MESSAGES REPORT LABEL | list OUT
             | features MANIFEST FEATURE...
                                     cudarc-tests.sh: cudarc's own unit tests as a suite
                                     for the drop-in (xtask/src/cudarc_tests.rs)
  cudarc-api CUDARC_JSON OURS_JSON RESIDUE SIGNATURES [--details FILE] [--foreign CRATE=JSON]... [--write REASON]
                                     cudarc-api.sh: cudarc's public paths (rustdoc JSON)
                                     against cuda-compat's and the residue, the
                                     signatures of both crates' items against the
                                     list; --details writes every signature
                                     difference; --write rewrites both lists
  tally LOGS STATUS                  test.sh's counts from its logs folder; last line
                                     `N passed, N failed, N skipped`
  examples-result LOG STATUS         emu-tier.sh: a cudarc-examples.sh run's output and exit
                                     status as one `test result:` line (differing and not
                                     run examples ignored; a run without its counts fails)
  wine-summary LOG BUILD_S RUN_S     wine-tier.sh's per-binary lines and total; fails on a failure
  host-cost per-op COUNTS | top COUNTS
                                     host-cost.sh: the stand-in driver's call counts as
                                     calls per op, and the calls made once per op or more
                                     (`none` without a launch)
  wheel-headers DEST WHEEL...        fetch-cuda-headers.sh: the nvidia/*/include headers of
                                     NVIDIA's wheels into DEST, merged into DEST/include but
                                     NCCL's, each wheel's name appended to DEST/PACKAGES

On the GPU machine (gpu-run.sh, gpu-session.sh, candle-gpu.sh, cudarc-examples.sh, cudarc-tests.sh):
  two-gpu-tests                      `--list --format terse` on stdin: the two_gpus_* tests
  gpu-run test LEDGER MODE NAME RC LIMIT LOG     one test binary's verdict
  gpu-run program LEDGER KIND NAME RC LIMIT      one program's verdict
  gpu-run platform LEDGER RC                     the info report (stdin) chose nvidia
  gpu-run not-run LEDGER TEXT                    a test not run, and why
  gpu-run tally LEDGER MODE BUNDLE               the runner's counts; fails on a failure
  session begin|runner|summary|step|bench|control|skip|allreduce|report ...   gpu-session.sh's tables, verdict counts, steps not run
  cudarc-tests outcomes DIR [CRASHED...]
                                     cudarc-tests.sh run: each test's outcome through the
                                     drop-in against real cudarc's and the bundled lists;
                                     fails on a failure (xtask/src/cudarc_outcomes.rs)
  check-example NAME OUTPUT          a cudarc example's output is right (else prints why)
  example-differs NAME OUTPUT        it stopped where HIP differs from CUDA as documented (prints why)
  launch-round LEDGER ROUND IMPL     a launch benchmark's RESULT line (stdin), recorded
  launch-summary LEDGER              medians and verdicts of the recorded rounds (fails unless both met)
  candle-results NAME RC LOG RESULTS SUITES     one candle test binary's outcomes
  candle-suites OUT                  candle's suites, ours vs real cudarc
  candle-step-us                     step times (stdin) -> one number a line
  candle-bench LABEL ROUNDS OURS REAL RESULTS [TARGET]   a workload's time verdict, ours/real paired by round (speed target, default 0.97)
  candle-total RESULTS...            `N passed, N failed` of result files; fails on a failure
  free-port                          a free local TCP port

Here, for candle on hip-emu (scripts/candle.sh emu):
  emu-models-results DEV PART RC LOG ERR RESULTS   `emu_models PART`'s checks as result lines; its kernels' scratch per launch
  candle-emu-report OUT RESIDUE DEVICES       each device's suites against the residue; fails on an unexplained failure
  emu-proxy OUT DEVICES              the quantized kernels' counters per output (OUT/DEV-models-quantized.err) as a Markdown table
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::from(2)
        }
    }
}

/// An error for the user: what went wrong, in words.
type Result<T> = std::result::Result<T, String>;

/// `ExitCode::SUCCESS` when `ok`, else 1.
fn status(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn print_lines(lines: &[String]) {
    for l in lines {
        println!("{l}");
    }
}

/// The arguments after the command, exactly `n` of them.
fn args_n<'a>(args: &'a [String], n: usize, what: &str) -> Result<&'a [String]> {
    if args.len() == n {
        Ok(args)
    } else {
        Err(format!(
            "{what}: expected {n} arguments, got {}\n{USAGE}",
            args.len()
        ))
    }
}

fn number<T: std::str::FromStr>(s: &str, what: &str) -> Result<T> {
    s.parse()
        .map_err(|_| format!("{what}: not a number: {s:?}"))
}

fn run(args: &[String]) -> Result<ExitCode> {
    let Some((command, rest)) = args.split_first() else {
        eprint!("{USAGE}");
        return Ok(ExitCode::from(2));
    };
    match command.as_str() {
        "executables" => {
            let flag = match rest {
                [] => "",
                [flag] if flag == "--kinds" || flag == "--test-targets" => flag.as_str(),
                _ => {
                    return Err(format!(
                        "executables: [--kinds|--test-targets] only\n{USAGE}"
                    ))
                }
            };
            let lines = text::stdin_lines().map_err(|e| format!("standard input: {e}"))?;
            let cwd = std::env::current_dir().map_err(|e| format!("working folder: {e}"))?;
            for e in cargo_json::executables(&lines) {
                match flag {
                    "--kinds" => println!("{}", cargo_json::line(&e, true, &cwd)),
                    "--test-targets" if e.test_target => println!("{}", e.path),
                    // The tiers' list, test-harness builds only
                    // (hip-diagnostics's hip-info, built for its
                    // integration tests, is no test).
                    "" if e.test_harness => println!("{}", cargo_json::line(&e, false, &cwd)),
                    _ => {}
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        "candle-amd-check" => {
            let a = args_n(rest, 6, "candle-amd-check")?;
            let targets: Vec<String> = a[4].split(',').map(str::to_owned).collect();
            let (lines, ok) = candle_amd::check(
                Path::new(&a[0]),
                Path::new(&a[1]),
                &[PathBuf::from(&a[2]), PathBuf::from(&a[3])],
                &targets,
                Path::new(&a[5]),
            )?;
            print_lines(&lines);
            Ok(status(ok))
        }
        "amd-spills" => {
            let write = rest.iter().any(|a| a == "--write");
            let detail = rest.iter().any(|a| a == "--detail");
            let rest: Vec<String> = rest
                .iter()
                .filter(|a| *a != "--write" && *a != "--detail")
                .cloned()
                .collect();
            let a = args_n(&rest, 3, "amd-spills")?;
            let processors: Vec<String> = a[2].split(',').map(str::to_owned).collect();
            let (lines, ok) = amd_spills::check(
                Path::new(&a[0]),
                Path::new(&a[1]),
                &processors,
                write,
                detail,
            )?;
            print_lines(&lines);
            Ok(status(ok))
        }
        "amd-launches" => {
            let a = args_n(rest, 5, "amd-launches")?;
            let processors: Vec<String> = a[2].split(',').map(str::to_owned).collect();
            let (lines, ok) = amd_launches::check(
                Path::new(&a[0]),
                Path::new(&a[1]),
                &processors,
                Path::new(&a[3]),
                Path::new(&a[4]),
            )?;
            print_lines(&lines);
            Ok(status(ok))
        }
        "amd-cvt" => amd_cvt::command(rest),
        "out-dir" => {
            let a = args_n(rest, 1, "out-dir")?;
            let lines = text::stdin_lines().map_err(|e| format!("standard input: {e}"))?;
            match cargo_json::out_dir(&lines, &a[0]) {
                Some(dir) => {
                    println!("{dir}");
                    Ok(ExitCode::SUCCESS)
                }
                None => Err(format!("out-dir: no build script of {} ran", a[0])),
            }
        }
        "patch-used" => {
            let a = args_n(rest, 2, "patch-used")?;
            let metadata = std::fs::read_to_string(&a[0]).map_err(|e| format!("{}: {e}", a[0]))?;
            let mut ok = true;
            for (line, complaint) in cargo_json::patch_used(&metadata, &a[1])? {
                println!("{line}");
                if let Some(c) = complaint {
                    eprintln!("{c}");
                    ok = false;
                }
            }
            Ok(status(ok))
        }
        "resolved" => {
            let (metadata, names) = rest
                .split_first()
                .ok_or_else(|| format!("resolved: METADATA NAME...\n{USAGE}"))?;
            let text = std::fs::read_to_string(metadata).map_err(|e| format!("{metadata}: {e}"))?;
            print_lines(&cargo_json::resolved(&text, names)?);
            Ok(ExitCode::SUCCESS)
        }
        "only-for" => {
            let a = args_n(rest, 3, "only-for")?;
            let lines = text::grep_lines(Path::new(&a[0])).map_err(|e| format!("{}: {e}", a[0]))?;
            for line in cargo_json::not_only_for(&lines, &a[1], &a[2]) {
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        "rust-errors" => {
            args_n(rest, 0, "rust-errors")?;
            let lines = text::stdin_lines().map_err(|e| format!("standard input: {e}"))?;
            print_lines(&cargo_json::rust_errors(&lines)?);
            Ok(ExitCode::SUCCESS)
        }
        "manifest-dir" => {
            let a = args_n(rest, 1, "manifest-dir")?;
            let metadata = std::io::read_to_string(std::io::stdin())
                .map_err(|e| format!("standard input: {e}"))?;
            println!("{}", cargo_json::manifest_dir(&metadata, &a[0])?);
            Ok(ExitCode::SUCCESS)
        }
        "mistral-amd" => mistral::command(rest),
        "cudarc-tests" => match rest {
            [c, dir, crashed @ ..] if c == "outcomes" => {
                cudarc_outcomes::command(Path::new(dir), crashed).map(status)
            }
            _ => cudarc_tests_command(rest).map(|()| ExitCode::SUCCESS),
        },
        "cudarc-api" => {
            const ARGS: &str =
                "cudarc-api: CUDARC_JSON OURS_JSON RESIDUE SIGNATURES [--details FILE] [--foreign CRATE=JSON]... [--write REASON]";
            let (a, mut flags) = (
                rest.get(..4).ok_or_else(|| format!("{ARGS}\n{USAGE}"))?,
                &rest[4..],
            );
            let (mut write, mut details, mut foreign_args) = (None, None, Vec::new());
            while let [flag, value, more @ ..] = flags {
                match flag.as_str() {
                    "--write" => write = Some(value),
                    "--details" => details = Some(value),
                    "--foreign" => foreign_args.push(value),
                    _ => return Err(format!("{ARGS}\n{USAGE}")),
                }
                flags = more;
            }
            if !flags.is_empty() {
                return Err(format!("{ARGS}\n{USAGE}"));
            }
            if let Some(w) = write.and_then(|r| text::provisional(r)) {
                return Err(format!(
                    "cudarc-api: --write's reason says {w:?}, a placeholder the check refuses: give the HIP fact"
                ));
            }
            let read_json = |path: &str| -> Result<serde_json::Value> {
                let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
                serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))
            };
            // A reviewed file that `--write` may create.
            let read_list = |path: &str| -> Result<String> {
                match std::fs::read_to_string(path) {
                    Ok(t) => Ok(t),
                    Err(e) if write.is_some() && e.kind() == std::io::ErrorKind::NotFound => {
                        Ok(String::new())
                    }
                    Err(e) => Err(format!("{path}: {e}")),
                }
            };
            let (theirs_doc, ours_doc) = (read_json(&a[0])?, read_json(&a[1])?);
            let cudarc = cudarc_api::public_api(&theirs_doc)?;
            let mut foreign = Vec::new();
            for f in foreign_args {
                let (krate, path) = f
                    .split_once('=')
                    .ok_or_else(|| format!("--foreign {f}: not CRATE=JSON"))?;
                foreign.push((krate.to_owned(), read_json(path)?));
            }
            let ours = cudarc_api::public_api_with(&ours_doc, &foreign)?;
            let residue = cudarc_api::parse_residue(&read_list(&a[2])?)
                .map_err(|e| format!("{}: {e}", a[2]))?;
            let listed =
                signatures::parse_list(&read_list(&a[3])?).map_err(|e| format!("{}: {e}", a[3]))?;
            let outcome = signatures::compare(
                &signatures::Side::new(&theirs_doc, &cudarc)?,
                &signatures::Side::new(&ours_doc, &ours)?,
            );
            if let Some(path) = details {
                std::fs::write(path, signatures::details(&outcome))
                    .map_err(|e| format!("{path}: {e}"))?;
            }
            if let Some(reason) = write {
                let lacking = cudarc_api::missing(&cudarc.paths, &ours.paths);
                let text = cudarc_api::residue_file(&lacking, &residue, reason);
                std::fs::write(&a[2], text).map_err(|e| format!("{}: {e}", a[2]))?;
                println!("cudarc-api: wrote {} entries to {}", lacking.len(), a[2]);
                let text = signatures::list_file(&outcome, &listed, reason);
                std::fs::write(&a[3], text).map_err(|e| format!("{}: {e}", a[3]))?;
                println!(
                    "cudarc-api: wrote {} entries to {}",
                    outcome.diffs.len(),
                    a[3]
                );
                return Ok(ExitCode::SUCCESS);
            }
            let (mut lines, ok) = cudarc_api::check(&cudarc.paths, &ours.paths, &residue);
            let (more, sig_ok) = signatures::check(&outcome, &listed);
            lines.extend(more);
            print_lines(&lines);
            Ok(status(ok && sig_ok))
        }
        "tally" => {
            let a = args_n(rest, 2, "tally")?;
            print_lines(&tally::report(Path::new(&a[0]), number(&a[1], "status")?));
            Ok(ExitCode::SUCCESS)
        }
        "wine-summary" => {
            let a = args_n(rest, 3, "wine-summary")?;
            let (lines, ok) =
                tally::wine_summary(&text::universal_lines(Path::new(&a[0])), &a[1], &a[2]);
            print_lines(&lines);
            Ok(status(ok))
        }
        "host-cost" => host_cost::command(rest),
        "wheel-headers" => {
            let (dest, wheels) = rest
                .split_first()
                .filter(|(_, w)| !w.is_empty())
                .ok_or_else(|| format!("wheel-headers: DEST WHEEL...\n{USAGE}"))?;
            for wheel in wheels {
                wheel_headers::extract(Path::new(dest), Path::new(wheel))?;
            }
            Ok(ExitCode::SUCCESS)
        }
        "two-gpu-tests" => {
            let lines = text::stdin_lines().map_err(|e| format!("standard input: {e}"))?;
            print_lines(&gpu_run::two_gpu_tests(&lines));
            Ok(ExitCode::SUCCESS)
        }
        "gpu-run" => gpu_run::command(rest),
        "session" => session::command(rest),
        "check-example" => {
            let a = args_n(rest, 2, "check-example")?;
            let output =
                text::grep_lines(Path::new(&a[1])).map_err(|e| format!("{}: {e}", a[1]))?;
            match examples::check_output(&a[0], &output) {
                Ok(()) => Ok(ExitCode::SUCCESS),
                Err(why) => {
                    println!("{why}");
                    Ok(ExitCode::from(1))
                }
            }
        }
        "examples-result" => {
            let a = args_n(rest, 2, "examples-result")?;
            let output =
                text::grep_lines(Path::new(&a[0])).map_err(|e| format!("{}: {e}", a[0]))?;
            let exit_status = a[1]
                .parse()
                .map_err(|_| format!("examples-result: exit status {:?} is not a number", a[1]))?;
            println!("{}", examples::examples_result(&output, exit_status));
            Ok(ExitCode::SUCCESS)
        }
        "example-differs" => {
            let a = args_n(rest, 2, "example-differs")?;
            let output =
                text::grep_lines(Path::new(&a[1])).map_err(|e| format!("{}: {e}", a[1]))?;
            match examples::differs_as_documented(&a[0], &output) {
                Some(why) => {
                    println!("{why}");
                    Ok(ExitCode::SUCCESS)
                }
                None => Ok(ExitCode::from(1)),
            }
        }
        "launch-round" => {
            let a = args_n(rest, 3, "launch-round")?;
            let out = text::stdin_lines().map_err(|e| format!("standard input: {e}"))?;
            match examples::launch_round(&a[1], &a[2], &out) {
                Ok((line, record)) => {
                    gpu_run::append(Path::new(&a[0]), &record)?;
                    println!("{line}");
                    Ok(ExitCode::SUCCESS)
                }
                Err(why) => {
                    eprintln!("cudarc-examples: {why}");
                    Ok(ExitCode::from(1))
                }
            }
        }
        "launch-summary" => {
            let a = args_n(rest, 1, "launch-summary")?;
            let ledger =
                text::grep_lines(Path::new(&a[0])).map_err(|e| format!("{}: {e}", a[0]))?;
            let (lines, met) = examples::launch_summary(&ledger)?;
            print_lines(&lines);
            Ok(status(met))
        }
        "candle-results" | "candle-suites" | "candle-step-us" | "candle-bench" | "candle-total" => {
            candle::command(command, rest)
        }
        "emu-models-results" | "candle-emu-report" | "emu-proxy" => {
            candle_emu::command(command, rest)
        }
        "free-port" => {
            let listener =
                std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| format!("bind: {e}"))?;
            let port = listener
                .local_addr()
                .map_err(|e| format!("local address: {e}"))?
                .port();
            println!("{port}");
            Ok(ExitCode::SUCCESS)
        }
        "help" | "-h" | "--help" => {
            print!("{USAGE}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!("unknown command {other:?}\n{USAGE}")),
    }
}

/// `cudarc-tests extract|prune|list|features ...` (xtask/src/cudarc_tests.rs).
fn cudarc_tests_command(rest: &[String]) -> Result<()> {
    let usage = "cudarc-tests: extract SRC OUT | prune OUT MESSAGES REPORT LABEL | list OUT | features MANIFEST FEATURE... | outcomes DIR [CRASHED...]";
    match rest.first().map(String::as_str) {
        Some("extract") if rest.len() == 3 => {
            let (files, tests) = cudarc_tests::extract(Path::new(&rest[1]), Path::new(&rest[2]))?;
            println!("cudarc-tests: {tests} tests in {files} files extracted");
            Ok(())
        }
        Some("prune") if rest.len() == 5 => {
            let messages =
                std::fs::read_to_string(&rest[2]).map_err(|e| format!("{}: {e}", rest[2]))?;
            let n = cudarc_tests::prune(
                Path::new(&rest[1]),
                &messages,
                Path::new(&rest[3]),
                &rest[4],
            )?;
            println!("{n}");
            Ok(())
        }
        Some("list") if rest.len() == 2 => {
            for t in cudarc_tests::list(Path::new(&rest[1]))? {
                println!("{t}");
            }
            Ok(())
        }
        Some("features") if rest.len() >= 2 => {
            let manifest =
                std::fs::read_to_string(&rest[1]).map_err(|e| format!("{}: {e}", rest[1]))?;
            let table = cudarc_tests::features_table(&manifest, &rest[2..])
                .map_err(|e| format!("{}: {e}", rest[1]))?;
            print_lines(&table);
            Ok(())
        }
        _ => Err(usage.into()),
    }
}
