//! Loader scenarios, each in a process of its own: the runtime is loaded
//! once per process, so a test that needs a fresh load with its own
//! variables, working folder or application folder runs its body in a
//! child: the same test executable started again for just that test.
//!
//! ```no_run
//! # use test_kit::{Scenario, in_scenario};
//! #[test]
//! fn override_wins() {
//!     if in_scenario("override_wins") {
//!         // The child: load, assert, print.
//!         return;
//!     }
//!     Scenario::new("override_wins").var("HIP_SYS_LIBRARY_PATH", "C:\\sdk\\bin").run();
//! }
//! ```
//!
//! Also the stub HIP SDKs of the Wine tier (`scripts/wine-tier.sh`, built
//! by `scripts/windows/build-stubs.sh`): [`stub_sdks`] and [`stub_bin`].

use std::ffi::OsString;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The variable naming the folder of the stub HIP SDKs
/// (`<it>\ROCm\<release>\bin`, `<it>\planted`), set by
/// `scripts/wine-tier.sh`.
pub const STUB_SDKS_VAR: &str = "HIP_TEST_WINDOWS_STUBS";

/// The variable that tells a child process which scenario it is.
const SCENARIO_VAR: &str = "HIP_TEST_SCENARIO";

/// The variables a scenario starts without unless it sets them: those the
/// loader reads.
const LOADER_VARS: &[&str] = &[
    "HIP_SYS_LIBRARY_PATH",
    "HIP_PATH",
    "ROCM_PATH",
    "HIP_PLATFORM",
    "CUDA_PATH",
    "CUDA_HOME",
];

/// The folder of the stub HIP SDKs. Panics (failing the test, never
/// skipping it) when [`STUB_SDKS_VAR`] is unset: these tests exist to run.
pub fn stub_sdks() -> PathBuf {
    match std::env::var_os(STUB_SDKS_VAR) {
        Some(v) if !v.is_empty() => PathBuf::from(v),
        _ => panic!(
            "{STUB_SDKS_VAR} is unset: run the Windows tests with scripts/wine-tier.sh, which builds the stub SDKs and sets it"
        ),
    }
}

/// The `bin` folder of the stub SDK of `release` (`"6.1"`), as AMD's
/// installer lays it out.
pub fn stub_bin(release: &str) -> PathBuf {
    stub_sdk(release).join("bin")
}

/// The root of the stub SDK of `release`: what `HIP_PATH` names.
pub fn stub_sdk(release: &str) -> PathBuf {
    let dir = stub_sdks().join("ROCm").join(release);
    assert!(dir.is_dir(), "no stub SDK {release} at {}", dir.display());
    dir
}

/// A copy of the stub SDK of `release` holding only the files `keep` of
/// its `bin` (an SDK that lost its runtime, or its COMGR), in a fresh
/// folder named after `scenario`; returns its root, what `HIP_PATH` names.
/// The root keeps the release as its folder name, as AMD's installer does.
pub fn partial_sdk(scenario: &str, release: &str, keep: &[&str]) -> PathBuf {
    let root = scratch_dir(scenario).join(release);
    copy_files(&stub_bin(release), &root.join("bin"), keep);
    root
}

/// A fresh empty folder for one scenario.
pub fn scratch_dir(name: &str) -> PathBuf {
    // These tests run under Wine (scripts/wine-tier.sh), where cargo's
    // scratch space is a Unix path; the copies are a few stub DLLs.
    #[allow(clippy::disallowed_methods)]
    let dir = std::env::temp_dir().join(format!("hip-scenario-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Copies the named files of `from` into `to` (made when missing).
pub fn copy_files(from: &Path, to: &Path, names: &[&str]) {
    std::fs::create_dir_all(to).expect("the target folder");
    for name in names {
        std::fs::copy(from.join(name), to.join(name)).unwrap_or_else(|e| {
            panic!(
                "copy {} to {}: {e}",
                from.join(name).display(),
                to.display()
            )
        });
    }
}

/// Whether two paths name the same file, whatever their spelling (Windows'
/// `\\?\` prefix, case, separators); false when either does not exist.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Whether this process is the child started for `test`.
pub fn in_scenario(test: &str) -> bool {
    std::env::var(SCENARIO_VAR).is_ok_and(|v| v == test)
}

/// A child process that runs one test of this executable with its own
/// variables, working folder and, optionally, application folder.
#[derive(Debug)]
pub struct Scenario {
    test: String,
    vars: Vec<(String, Option<OsString>)>,
    cwd: Option<PathBuf>,
    app_dir: Option<PathBuf>,
}

impl Scenario {
    /// The scenario of the test function `test` (its name without the
    /// module path), with every loader variable unset.
    pub fn new(test: &str) -> Scenario {
        Scenario {
            test: test.to_owned(),
            vars: LOADER_VARS
                .iter()
                .map(|v| ((*v).to_owned(), None))
                .collect(),
            cwd: None,
            app_dir: None,
        }
    }

    /// The scenario of `test` on the AMD platform (`HIP_PLATFORM=amd`):
    /// only AMD's libraries are searched, so nothing else can be found
    /// instead.
    pub fn amd(test: &str) -> Scenario {
        Scenario::new(test).var("HIP_PLATFORM", "amd")
    }

    /// Sets a variable in the child.
    pub fn var(mut self, name: &str, value: impl Into<OsString>) -> Scenario {
        self.vars.retain(|(n, _)| n != name);
        self.vars.push((name.to_owned(), Some(value.into())));
        self
    }

    /// Runs the child in `dir`.
    pub fn cwd(mut self, dir: &Path) -> Scenario {
        self.cwd = Some(dir.to_path_buf());
        self
    }

    /// Runs a copy of this executable placed in `dir`, so that `dir` is the
    /// child's application folder (on Windows, one of the folders the
    /// system searches for DLLs).
    pub fn app_dir(mut self, dir: &Path) -> Scenario {
        self.app_dir = Some(dir.to_path_buf());
        self
    }

    /// Runs the child and returns its output; panics, with that output,
    /// unless the child ran exactly this test and it passed.
    pub fn run(self) -> String {
        let me = std::env::current_exe().expect("this test executable");
        let exe = match &self.app_dir {
            Some(dir) => {
                let copy = dir.join(me.file_name().expect("a file name"));
                std::fs::copy(&me, &copy).expect("copy of the test executable");
                copy
            }
            None => me,
        };
        let mut cmd = Command::new(&exe);
        cmd.args([
            self.test.as_str(),
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ]);
        // `--exact`: the scenarios are top-level test functions, whose
        // full name is the bare name.
        cmd.env(SCENARIO_VAR, &self.test);
        for (name, value) in &self.vars {
            match value {
                Some(v) => cmd.env(name, v),
                None => cmd.env_remove(name),
            };
        }
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        let out = output_of(&mut cmd);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        println!(
            "--- scenario {} ---\n{text}--- end of scenario ---",
            self.test
        );
        assert!(
            out.status.success(),
            "scenario {} failed:\n{text}",
            self.test
        );
        assert!(
            // `--nocapture` puts the test's own output between its name
            // and its `ok`.
            text.contains(&format!("test {} ...", self.test))
                && text.contains("test result: ok. 1 passed; 0 failed"),
            "scenario {} did not run its test:\n{text}",
            self.test
        );
        text
    }
}

/// Windows' `ERROR_INTERNAL_ERROR`: what Wine's `CreateProcess` returns
/// when the new process dies before its start-up finishes without an exit
/// code of its own (Wine's `NtCreateUserProcess` turns a failed start with
/// exit code 0 into `STATUS_INTERNAL_ERROR`). The child has run none of
/// the program's code; CI saw it once in a few hundred starts, under load.
const ERROR_INTERNAL_ERROR: i32 = 1359;

/// How many times a child whose start failed with
/// [`ERROR_INTERNAL_ERROR`] is started.
const START_TRIES: u32 = 3;

/// Runs `cmd` to its end and returns its output, as [`Command::output`]
/// does; panics, naming the program, when it cannot be started.
///
/// A start that failed with Windows' `ERROR_INTERNAL_ERROR` (1359, a child
/// that died before its own code ran) is tried again, up to three starts
/// in all, each retry written to standard error past libtest's capture,
/// so that a passing test's log still shows it; every other failure to
/// start, and every child that started, is reported as it is. Tests that
/// start a program under the Wine tier go through here.
pub fn output_of(cmd: &mut Command) -> Output {
    let mut tries = 1;
    loop {
        match cmd.output() {
            Ok(out) => return out,
            Err(e) if retry_start(&e, tries) => {
                // `io::stderr()` itself, not `eprintln!`: libtest captures
                // the macros' output and shows it only for a failure.
                let _ = writeln!(
                    io::stderr(),
                    "start {:?}: {e}; the child died before its own code ran, start {} of {START_TRIES} follows",
                    cmd.get_program(),
                    tries + 1
                );
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            Err(e) => panic!(
                "start {:?} (start {tries} of at most {START_TRIES}): {e}",
                cmd.get_program()
            ),
        }
    }
}

/// Whether a start that failed with `e`, after `tries` starts, is tried
/// again.
fn retry_start(e: &io::Error, tries: u32) -> bool {
    cfg!(windows) && e.raw_os_error() == Some(ERROR_INTERNAL_ERROR) && tries < START_TRIES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_start_that_died_early_on_windows_is_tried_again() {
        let died = io::Error::from_raw_os_error(ERROR_INTERNAL_ERROR);
        assert_eq!(retry_start(&died, 1), cfg!(windows));
        assert_eq!(retry_start(&died, START_TRIES - 1), cfg!(windows));
        assert!(!retry_start(&died, START_TRIES));
        // Not found, access denied: never tried again.
        for code in [2, 5] {
            assert!(!retry_start(&io::Error::from_raw_os_error(code), 1));
        }
        assert!(!retry_start(&io::Error::other("no"), 1));
    }

    #[test]
    fn a_program_that_cannot_start_is_named() {
        let err = std::panic::catch_unwind(|| {
            output_of(&mut Command::new("no-such-program-hip-rs"));
        })
        .expect_err("a missing program cannot start");
        let text = err.downcast_ref::<String>().cloned().unwrap_or_default();
        assert!(
            text.contains("no-such-program-hip-rs") && text.contains("start 1 of at most 3"),
            "{text}"
        );
    }
}
