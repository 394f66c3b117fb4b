//! A crate whose build script uses this cudaforge, built by cargo in each of
//! the ways its kernels can come: nvcc here (a stand-in nvcc, since this
//! machine has none), a job run elsewhere and brought back, check-only, and
//! none at all.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const NO_NVCC: &str = "/nonexistent/bin/nvcc";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A fresh copy of the downstream crate in its own folder, named `name`
/// (cargo names build-script folders by package: one name per test).
fn downstream(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cudaforge-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let from = fixtures().join("downstream");
    for rel in [
        "build.rs",
        "src/main.rs",
        "kernels/a.cu",
        "kernels/b.cu",
        "kernels/lib_one.cu",
        "kernels/common.cuh",
    ] {
        let dest = dir.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(from.join(rel), dest).unwrap();
    }
    let manifest = std::fs::read_to_string(from.join("Cargo.toml.in"))
        .unwrap()
        .replace("@CUDAFORGE@", env!("CARGO_MANIFEST_DIR"))
        .replace("@NAME@", &format!("downstream-{name}"));
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    // The folder is reused by every run: forget the last run's build of
    // this package, or the build would be a cached one that compiles
    // nothing.
    let o = cargo(&dir, &["clean", "-p", &format!("downstream-{name}")], &[]);
    assert!(o.status.success(), "cargo clean failed: {o:?}");
    dir
}

/// cargo in `dir` with only the variables given (of cudaforge's own).
fn cargo(dir: &Path, args: &[&str], vars: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.args(args).arg("--offline").current_dir(dir);
    // Shared by the tests of this process: the dependencies build once.
    c.env(
        "CARGO_TARGET_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("cudaforge-target"),
    );
    for v in [
        "CUDAFORGE_PREBUILT",
        "CUDAFORGE_JOBS",
        "CUDAFORGE_CHECK_ONLY",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "NVCC_CCBIN",
    ] {
        c.env_remove(v);
    }
    // The NVIDIA path unless a test asks for AMD: a HIP compiler on this
    // machine must not take over the builds that test nvcc's.
    c.env("CUDA_COMPUTE_CAP", "90")
        .env("NVCC", NO_NVCC)
        .env("HIP_PLATFORM", "nvidia");
    for (k, v) in vars {
        c.env(k, v);
    }
    c.output().expect("cargo runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn expect_kernels(o: &Output) {
    assert!(o.status.success(), "cargo run failed:\n{}", text(o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // What the stand-in nvcc made of each source: the PTX consts and the
    // archive's object are there, built from these files.
    assert!(stdout.contains("a: fake ptx of a.cu, 2 lines"), "{stdout}");
    assert!(stdout.contains("b: fake ptx of b.cu, 3 lines"), "{stdout}");
    assert!(stdout.contains("lib_one: 4"), "{stdout}");
}

fn jobs_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.join("build.sh").is_file())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn nvcc_here_builds_ptx_and_a_library() {
    let dir = downstream("here");
    let log = dir.join("nvcc.log");
    let nvcc = fixtures().join("fake-nvcc");
    let o = cargo(
        &dir,
        &["run", "-q"],
        &[("NVCC", &nvcc), ("FAKE_NVCC_LOG", &log)],
    );
    expect_kernels(&o);
    let calls = std::fs::read_to_string(&log).unwrap();
    for want in [
        "-gencode=arch=compute_90a,code=sm_90a --ptx -o ",
        "--default-stream per-thread -O3 a.cu",
        "-Xcompiler -fPIC lib_one.cu",
        "--lib -o ",
    ] {
        assert!(
            calls.contains(want),
            "no `{want}` in nvcc's calls:\n{calls}"
        );
    }
}

#[test]
fn without_nvcc_the_build_fails_and_writes_its_job() {
    let dir = downstream("nonvcc");
    let jobs = dir.join("jobs");
    let o = cargo(&dir, &["build"], &[("CUDAFORGE_JOBS", &jobs)]);
    assert!(
        !o.status.success(),
        "built without nvcc or kernels:\n{}",
        text(&o)
    );
    let t = text(&o);
    assert!(
        t.contains("NVCC=/nonexistent/bin/nvcc does not exist"),
        "{t}"
    );
    assert!(t.contains("CUDAFORGE_PREBUILT"), "{t}");
    let made = jobs_in(&jobs);
    // The PTX build's job; the build stopped there.
    assert_eq!(made.len(), 1, "{made:?}");
    assert!(
        t.contains(&made[0].display().to_string()),
        "the error does not name the job:\n{t}"
    );
    assert!(
        made[0].join("src/common.cuh").is_file(),
        "the job lacks the header"
    );
}

#[test]
fn a_job_run_elsewhere_is_used_only_for_its_own_sources() {
    let dir = downstream("prebuilt");
    let (jobs, prebuilt) = (dir.join("jobs"), dir.join("prebuilt"));
    let nvcc = fixtures().join("fake-nvcc");
    // Each failed build writes the job it needed; run it "on the machine
    // with nvcc", then build again.
    for round in 0.. {
        let o = cargo(
            &dir,
            &["run", "-q"],
            &[("CUDAFORGE_JOBS", &jobs), ("CUDAFORGE_PREBUILT", &prebuilt)],
        );
        if o.status.success() {
            expect_kernels(&o);
            assert_eq!(round, 2, "expected two jobs (PTX, library) before success");
            break;
        }
        assert!(round < 2, "still failing after two jobs:\n{}", text(&o));
        for job in jobs_in(&jobs) {
            let key = job.file_name().unwrap();
            if prebuilt.join(key).exists() {
                continue;
            }
            let st = Command::new("bash")
                .arg(job.join("build.sh"))
                .arg(prebuilt.join(key))
                .env("NVCC", &nvcc)
                .status()
                .unwrap();
            assert!(st.success(), "job {} failed", job.display());
            assert_eq!(
                std::fs::read_to_string(prebuilt.join(key).join("KEY"))
                    .unwrap()
                    .trim(),
                key.to_str().unwrap()
            );
        }
    }
    // A header changes: the kernels brought back are no longer this
    // build's, and are not used.
    std::fs::write(dir.join("kernels/common.cuh"), "#pragma once\n// changed\n").unwrap();
    let o = cargo(
        &dir,
        &["build"],
        &[("CUDAFORGE_JOBS", &jobs), ("CUDAFORGE_PREBUILT", &prebuilt)],
    );
    assert!(
        !o.status.success(),
        "stale kernels were used:\n{}",
        text(&o)
    );
    assert_eq!(
        jobs_in(&jobs).len(),
        3,
        "the changed sources' job was not written"
    );
}

#[test]
fn check_only_type_checks_but_never_links() {
    let dir = downstream("checkonly");
    let jobs = dir.join("jobs");
    let one: &Path = Path::new("1");
    let vars = [("CUDAFORGE_CHECK_ONLY", one), ("CUDAFORGE_JOBS", &jobs)];
    let o = cargo(&dir, &["check"], &vars);
    assert!(o.status.success(), "cargo check failed:\n{}", text(&o));
    assert!(
        text(&o).contains("CHECK-ONLY build: no kernels compiled"),
        "{}",
        text(&o)
    );
    assert_eq!(jobs_in(&jobs).len(), 2, "check-only writes both jobs");
    let o = cargo(&dir, &["build"], &vars);
    assert!(
        !o.status.success(),
        "a check-only build linked:\n{}",
        text(&o)
    );
    assert!(
        text(&o).contains("cudaforge-check-only-build-has-no-kernels"),
        "the link error does not say why:\n{}",
        text(&o)
    );
}
