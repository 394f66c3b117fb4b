//! `cargo run -p hip-generator -- check`: regenerates every committed
//! generated file of the workspace and fails, naming the commands, when the
//! result differs from what is committed or a generated file is not
//! committed. CI runs it (through `build.rs-tools/scripts/check-generated.sh`).

use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// One command that writes committed generated files.
enum Step {
    /// This generator's own regeneration (`cargo run -p hip-generator`),
    /// run in this process.
    Generator,
    /// Another command, run with `bash -c` from the workspace root.
    Shell(&'static str),
}

impl Step {
    fn command(&self) -> &'static str {
        match self {
            Step::Generator => "cargo run -p hip-generator",
            Step::Shell(c) => c,
        }
    }
}

/// THE LIST of commands that write committed files, in the order they run:
/// the generator first (bindings, then the NVIDIA tables read from them),
/// then the coverage tests, which read its output (the adapter tables,
/// `gpu_tested.txt`), then the lock files outside the workspace.
const REGENERATE: &[Step] = &[
    Step::Generator,
    Step::Shell("HIP_SYS_BLESS=1 cargo test -q -p hip-sys --lib coverage"),
    Step::Shell("HIPBLAS_SYS_BLESS=1 cargo test -q -p hipblas-sys --lib coverage"),
    Step::Shell("HIPRAND_SYS_BLESS=1 cargo test -q -p hiprand-sys --lib coverage"),
    Step::Shell("HIPFFT_SYS_BLESS=1 cargo test -q -p hipfft-sys --lib coverage"),
    Step::Shell("HIPBLASLT_SYS_BLESS=1 cargo test -q -p hipblaslt-sys --lib coverage"),
    Step::Shell("HIPSOLVER_SYS_BLESS=1 cargo test -q -p hipsolver-sys --lib coverage"),
    Step::Shell("HIPSPARSE_SYS_BLESS=1 cargo test -q -p hipsparse-sys --lib coverage"),
    Step::Shell("ROCTX_SYS_BLESS=1 cargo test -q -p roctx-sys --lib coverage"),
    // The fuzz workspace's lock file, which no workspace command touches:
    // scripts/fuzz.sh builds with --locked, so a new path dependency of a
    // fuzzed crate must be locked here first.
    Step::Shell("cargo update -q -w --manifest-path fuzz/Cargo.toml"),
];

/// What the commands above write (a folder: every file in it). Every tracked
/// file that says it is generated must be under one of these, so a new
/// generated file cannot be left out of the check.
const GENERATED: &[&str] = &[
    // cargo run -p hip-generator: bindings, reports, cuda-compat, the enum
    // tests' header data (header-values) and what the GPU tests call
    // (gpu-tested).
    "hip-sys/src/generated",
    "hip-sys/BINDINGS.md",
    "hipblas-sys/src/generated",
    "hipblas-sys/BINDINGS.md",
    "rccl-sys/src/generated",
    "rccl-sys/BINDINGS.md",
    "hiprand-sys/src/generated",
    "hiprand-sys/BINDINGS.md",
    // header-values, from each manifest's [[header_enums]]
    "hiprand-sys/src/nvidia/curand_values.rs",
    "hipfft-sys/src/generated",
    "hipfft-sys/BINDINGS.md",
    "hipfft-sys/src/nvidia/cufft_enumerators.rs",
    "hipblaslt-sys/src/generated",
    "hipblaslt-sys/BINDINGS.md",
    "hipblaslt-sys/src/nvidia/cublaslt_enumerators.rs",
    "hipsolver-sys/src/generated",
    "hipsolver-sys/BINDINGS.md",
    "hipsolver-sys/src/nvidia/cusolver_enumerators.rs",
    "hipsparse-sys/src/generated",
    "hipsparse-sys/BINDINGS.md",
    "hipsparse-sys/src/nvidia/cusparse_enumerators.rs",
    "roctx-sys/src/generated",
    "roctx-sys/BINDINGS.md",
    "cuda-compat/src/generated",
    "cuda-compat/COVERAGE.md",
    "hip-sys/src/nvidia/header_enumerators.txt",
    "cuda-compat/tests/data",
    "cuda-compat/tests/enumerator_paths.rs",
    "rccl-sys/tests/tier1_nccl_enumerators.rs",
    "hip-sys/src/nvidia/gpu_tested.txt",
    "hipblas-sys/src/nvidia/gpu_tested.txt",
    // the NVIDIA backends' tables (also alone: cargo run -p hip-generator --
    // nvidia-tables)
    "hip-sys/src/nvidia/status.rs",
    "hip-sys/src/nvidia/attributes.rs",
    "hip-sys/src/nvidia/messages.rs",
    "hip-sys/src/nvidia/passthrough.rs",
    "hipblas-sys/src/nvidia/adapters.rs",
    "hipsparse-sys/src/nvidia/adapters.rs",
    // the coverage tests (HIP_SYS_BLESS=1 / HIPBLAS_SYS_BLESS=1)
    "hip-sys/NVIDIA_COVERAGE.md",
    "hipblas-sys/NVIDIA_COVERAGE.md",
    "hiprand-sys/NVIDIA_COVERAGE.md",
    "hipfft-sys/NVIDIA_COVERAGE.md",
    "hipblaslt-sys/NVIDIA_COVERAGE.md",
    "hipsolver-sys/NVIDIA_COVERAGE.md",
    "hipsparse-sys/NVIDIA_COVERAGE.md",
    "roctx-sys/NVIDIA_COVERAGE.md",
    // cargo update -w (fuzz/)
    "fuzz/Cargo.lock",
];

/// Runs the check; `regenerate` is the generator's own regeneration of
/// everything (what `cargo run -p hip-generator` does).
pub(crate) fn run(root: &Path, regenerate: impl Fn() -> Result<()>) -> Result<()> {
    let unlisted = unlisted_generated_files(root)?;
    if !unlisted.is_empty() {
        bail!(
            "marked as generated but not checked: {}. Add them to GENERATED in \
             build.rs-tools/generator/src/check.rs.",
            unlisted.join(", ")
        );
    }
    for path in GENERATED {
        if !root.join(path).exists() {
            bail!("{path} is missing. {}", commands_to_run());
        }
    }

    // The CUDA headers the generator reads (cuda-compat, the NVIDIA tables).
    shell(root, "bash build.rs-tools/scripts/fetch-cuda-headers.sh")?;
    for step in REGENERATE {
        eprintln!("check: {}", step.command());
        match step {
            Step::Generator => regenerate()?,
            Step::Shell(command) => shell(root, command)?,
        }
    }

    let diff = git(root, &["diff", "--exit-code", "--stat", "--"])?;
    if !diff.status.success() {
        eprint!("{}", String::from_utf8_lossy(&diff.stdout));
        bail!(
            "the committed generated files are stale. {}",
            commands_to_run()
        );
    }
    let untracked = git(root, &["ls-files", "--others", "--exclude-standard", "--"])?;
    let untracked = String::from_utf8_lossy(&untracked.stdout).trim().to_owned();
    if !untracked.is_empty() {
        bail!(
            "the generators wrote files that are not committed: {}. {}",
            untracked.replace('\n', ", "),
            commands_to_run()
        );
    }
    println!(
        "check: all {} generated paths are up to date",
        GENERATED.len()
    );
    Ok(())
}

/// Says how to regenerate: this check's run already did, so what is left is
/// to review and commit; the commands are listed for running them one by one.
fn commands_to_run() -> String {
    let mut s = String::from(
        "This run has regenerated them; review and commit the result. \
         The commands (all of them: `cargo run -p hip-generator -- check`):",
    );
    for step in REGENERATE {
        s.push_str("\n    ");
        s.push_str(step.command());
    }
    s
}

/// Tracked files (outside the generator's own folder) whose first three lines
/// say they are generated, but that no entry of [`GENERATED`] covers.
fn unlisted_generated_files(root: &Path) -> Result<Vec<String>> {
    let listed = git(
        root,
        &["ls-files", "--", ".", ":!Cargo.lock", ":!build.rs-tools"],
    )?;
    let mut unlisted = Vec::new();
    for file in String::from_utf8_lossy(&listed.stdout).lines() {
        // Cargo's lockfiles (the workspace's, excluded above, and fuzz/'s
        // own) say `@generated` too, but they are cargo's, not ours.
        if file.ends_with("/Cargo.lock") {
            continue;
        }
        let Ok(text) = std::fs::read(root.join(file)) else {
            continue; // deleted in the work tree
        };
        let head: String = String::from_utf8_lossy(&text)
            .lines()
            .take(3)
            .collect::<Vec<_>>()
            .join("\n")
            .to_lowercase();
        let marked = head.contains("@generated") || head.contains("do not edit");
        let covered = GENERATED.iter().any(|p| {
            file == *p
                || file
                    .strip_prefix(p)
                    .is_some_and(|rest| rest.starts_with('/'))
        });
        if marked && !covered {
            unlisted.push(file.to_owned());
        }
    }
    Ok(unlisted)
}

/// `git ARGS -- GENERATED...` from the workspace root.
fn git(root: &Path, args: &[&str]) -> Result<std::process::Output> {
    let mut command = Command::new("git");
    command.current_dir(root).args(args);
    if args.last() == Some(&"--") {
        command.args(GENERATED);
    }
    let output = command
        .output()
        .with_context(|| format!("running git {}", args.join(" ")))?;
    // `diff --exit-code` exits 1 for a difference; anything else is a failure.
    if !output.status.success() && output.status.code() != Some(1) {
        bail!(
            "git {} failed ({}): {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(output)
}

fn shell(root: &Path, command: &str) -> Result<()> {
    let status = Command::new("bash")
        .current_dir(root)
        .args(["-c", command])
        .status()
        .with_context(|| format!("running {command}"))?;
    if !status.success() {
        bail!("`{command}` failed ({status})");
    }
    Ok(())
}
