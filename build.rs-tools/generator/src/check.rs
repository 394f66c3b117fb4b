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
    Shell(String),
}

impl Step {
    fn command(&self) -> &str {
        match self {
            Step::Generator => "cargo run -p hip-generator",
            Step::Shell(c) => c,
        }
    }
}

/// What the check regenerates and compares: the commands, in the order
/// they run, and the paths they write (a folder: every file in it).
struct Plan {
    steps: Vec<Step>,
    paths: Vec<String>,
}

/// The commands and paths. Each library's part is derived from its
/// manifest (`build.rs-tools/generator/libraries/<name>.toml`) and its
/// crate's folder, so adding a library adds nothing here: its
/// `src/generated/` and `BINDINGS.md`; its `NVIDIA_COVERAGE.md` with the
/// bless run of its coverage test (`src/coverage.rs` or
/// `src/nvidia/coverage.rs`, blessed by `<CRATE>_BLESS=1`). Its NVIDIA
/// tables and `[[header_enums]]` outputs are under `src/generated/` (the
/// skeleton test holds every -sys crate to that, and a marked file outside
/// the plan fails [`run`]). Then [`SHARED`], the files that cross
/// libraries. The generator runs first (bindings, then the NVIDIA tables
/// read from them), then the coverage tests, which read its output (the
/// adapter tables, `gpu_tested.txt`), then the lock files outside the
/// workspace.
fn plan(root: &Path) -> Result<Plan> {
    let mut steps = vec![Step::Generator];
    let mut paths = Vec::new();
    for library in crate::library::all(root)? {
        let generated = relative(root, &library.out_dir)?;
        let krate = generated
            .strip_suffix("/src/generated")
            .with_context(|| format!("{generated}: not a crate's src/generated"))?
            .to_owned();
        paths.push(generated);
        paths.push(relative(root, &library.report)?);
        let coverage = ["src/coverage.rs", "src/nvidia/coverage.rs"]
            .iter()
            .any(|f| root.join(&krate).join(f).is_file());
        if coverage {
            paths.push(format!("{krate}/NVIDIA_COVERAGE.md"));
            let bless = format!("{}_BLESS", krate.to_uppercase().replace('-', "_"));
            steps.push(Step::Shell(format!(
                "{bless}=1 cargo test -q -p {krate} --lib coverage"
            )));
        }
    }
    // The fuzz workspace's lock file, which no workspace command touches:
    // scripts/fuzz.sh builds with --locked, so a new path dependency of a
    // fuzzed crate must be locked here first.
    steps.push(Step::Shell(
        "cargo update -q -w --manifest-path fuzz/Cargo.toml".into(),
    ));
    // benches/mistral's lock (mistral.rs's own, plus our path crates):
    // scripts/mistral.sh check reads it with --locked.
    steps.push(Step::Shell(
        "bash scripts/mistral.sh lock >/dev/null".into(),
    ));
    paths.extend(SHARED.iter().map(|p| p.to_string()));
    Ok(Plan { steps, paths })
}

fn relative(root: &Path, path: &Path) -> Result<String> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    anyhow::ensure!(
        rel.is_relative(),
        "{} is outside the workspace",
        path.display()
    );
    Ok(rel.to_string_lossy().into_owned())
}

/// The generated files that no library's `src/generated/` entry covers:
/// cuda-compat's (CUDA's names over every library), the enum tests' header
/// data kept beside those tests (`header-values`; what it writes into a -sys
/// crate's `src/generated/nvidia/`, as `gpu-tested` does, is covered by that
/// crate's entry), and the lock files of fuzz/ and benches/mistral/.
const SHARED: &[&str] = &[
    "cuda-compat/src/generated",
    "cuda-compat/COVERAGE.md",
    "cuda-compat/tests/data",
    "cuda-compat/tests/enumerator_paths.rs",
    // header-values
    "rccl-sys/tests/tier1_nccl_enumerators.rs",
    // cargo update -w (fuzz/)
    "fuzz/Cargo.lock",
    // scripts/mistral.sh lock
    "benches/mistral/Cargo.lock",
];

/// Runs the check; `regenerate` is the generator's own regeneration of
/// everything (what `cargo run -p hip-generator` does).
pub(crate) fn run(root: &Path, regenerate: impl Fn() -> Result<()>) -> Result<()> {
    let plan = plan(root)?;
    let unlisted = unlisted_generated_files(root, &plan.paths)?;
    if !unlisted.is_empty() {
        bail!(
            "marked as generated but not checked: {}. Add them to SHARED in \
             build.rs-tools/generator/src/check.rs (a library's own files are \
             found from its manifest).",
            unlisted.join(", ")
        );
    }
    for path in &plan.paths {
        if !root.join(path).exists() {
            bail!("{path} is missing. {}", commands_to_run(&plan));
        }
    }

    // The CUDA headers the generator reads (cuda-compat, the NVIDIA tables).
    shell(root, "bash build.rs-tools/scripts/fetch-cuda-headers.sh")?;
    for step in &plan.steps {
        eprintln!("check: {}", step.command());
        match step {
            Step::Generator => regenerate()?,
            Step::Shell(command) => shell(root, command)?,
        }
    }

    let diff = git(root, &["diff", "--exit-code", "--stat", "--"], &plan.paths)?;
    if !diff.status.success() {
        eprint!("{}", String::from_utf8_lossy(&diff.stdout));
        bail!(
            "the committed generated files are stale. {}",
            commands_to_run(&plan)
        );
    }
    let untracked = git(
        root,
        &["ls-files", "--others", "--exclude-standard", "--"],
        &plan.paths,
    )?;
    let untracked = String::from_utf8_lossy(&untracked.stdout).trim().to_owned();
    if !untracked.is_empty() {
        bail!(
            "the generators wrote files that are not committed: {}. {}",
            untracked.replace('\n', ", "),
            commands_to_run(&plan)
        );
    }
    println!(
        "check: all {} generated paths are up to date",
        plan.paths.len()
    );
    Ok(())
}

/// Says how to regenerate: this check's run already did, so what is left is
/// to review and commit; the commands are listed for running them one by one.
fn commands_to_run(plan: &Plan) -> String {
    let mut s = String::from(
        "This run has regenerated them; review and commit the result. \
         The commands (all of them: `cargo run -p hip-generator -- check`):",
    );
    for step in &plan.steps {
        s.push_str("\n    ");
        s.push_str(step.command());
    }
    s
}

/// Tracked files (outside the generator's own folder) whose first three lines
/// say they are generated, but that no entry of `paths` covers.
fn unlisted_generated_files(root: &Path, paths: &[String]) -> Result<Vec<String>> {
    let listed = git(
        root,
        &["ls-files", "--", ".", ":!Cargo.lock", ":!build.rs-tools"],
        &[],
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
        if marked && !covered(paths, file) {
            unlisted.push(file.to_owned());
        }
    }
    Ok(unlisted)
}

/// Whether `file` is one of `paths` or inside one of them (a folder).
fn covered(paths: &[String], file: &str) -> bool {
    paths.iter().any(|p| {
        file == p
            || file
                .strip_prefix(p.as_str())
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// `git ARGS PATHS...` from the workspace root.
fn git(root: &Path, args: &[&str], paths: &[String]) -> Result<std::process::Output> {
    let mut command = Command::new("git");
    command.current_dir(root).args(args).args(paths);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The derived plan covers every library's files, as the hand-kept
    /// list did before it was derived (the NVIDIA tables through their
    /// crate's `src/generated`), plus each library's bless run.
    #[test]
    fn the_plan_is_derived_from_the_manifests() {
        let root = crate::workspace_root();
        let plan = plan(&root).unwrap();
        for path in [
            "hip-sys/src/generated",
            "hip-sys/BINDINGS.md",
            "hip-sys/NVIDIA_COVERAGE.md",
            "hip-sys/src/generated/nvidia/status.rs",
            "hip-sys/src/generated/nvidia/passthrough.rs",
            "hipblas-sys/src/generated/nvidia/adapters.rs",
            "hipsparse-sys/src/generated/nvidia/adapters.rs",
            "hipfft-sys/src/generated/nvidia/adapters.rs",
            "hiprand-sys/src/generated/nvidia/adapters.rs",
            "hipsolver-sys/src/generated/nvidia/adapters.rs",
            "hipblaslt-sys/src/generated/nvidia/adapters.rs",
            "hiprand-sys/src/generated/nvidia/curand_values.rs",
            "rccl-sys/NVIDIA_COVERAGE.md",
            "roctx-sys/src/generated",
            "fuzz/Cargo.lock",
            "benches/mistral/Cargo.lock",
        ] {
            assert!(covered(&plan.paths, path), "{path} not in the plan");
        }
        let libraries = crate::library::all(&root).unwrap().len();
        let blessed = plan
            .steps
            .iter()
            .filter(|s| s.command().contains("_SYS_BLESS=1 cargo test"))
            .count();
        assert_eq!(blessed, libraries, "one coverage bless per library");
        assert!(matches!(plan.steps[0], Step::Generator));
        let mut unique = plan.paths.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), plan.paths.len(), "a path listed twice");
    }
}
