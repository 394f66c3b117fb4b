//! A crate whose build script uses this bindgen_cuda as candle-kernels
//! 0.9.2's does (PTX and constants, then a static library), built by cargo
//! with nvcc here (the cudaforge drop-in's stand-in nvcc: this machine has
//! none), check-only, and with no nvcc at all.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const NO_NVCC: &str = "/nonexistent/bin/nvcc";

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/downstream")
}

/// The cudaforge drop-in's stand-in nvcc, shared rather than copied.
fn fake_nvcc() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cudaforge/tests/fixtures/fake-nvcc")
}

/// The tests' folder under the workspace's target folder: the copies of
/// the crate, and their target folder, kept between runs.
fn scratch() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("bindgen-cuda-downstream")
}

/// A fresh copy of the downstream crate in its own folder.
fn downstream(name: &str) -> PathBuf {
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    // And no build-script output of an earlier run: cudaforge would reuse
    // the kernels it built then, and call no nvcc.
    let builds = scratch().join("target/debug/build");
    let prefix = format!("downstream-{name}-");
    for e in std::fs::read_dir(&builds).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            std::fs::remove_dir_all(e.path()).unwrap();
        }
    }
    let from = fixture();
    for rel in [
        "build.rs",
        "src/main.rs",
        "src/affine.cu",
        "src/fill.v2.cu",
        "src/zeta.cu",
        "src/cuda_utils.cuh",
        "src/moe/moe_one.cu",
        "src/moe/moe_two.cu",
        "src/moe/moe_utils.cuh",
    ] {
        let dest = dir.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(from.join(rel), dest).unwrap();
    }
    let manifest = std::fs::read_to_string(from.join("Cargo.toml.in"))
        .unwrap()
        .replace("@BINDGEN_CUDA@", env!("CARGO_MANIFEST_DIR"))
        // A name per test: the tests share a target folder, and cargo names
        // a build script's folders by package name, not by path, so one
        // test's build would overwrite another's.
        .replace("@NAME@", &format!("downstream-{name}"));
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    dir
}

/// cargo in `dir` with only the variables given (of the builders' own); an
/// empty value unsets the variable.
fn cargo(dir: &Path, args: &[&str], vars: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.args(args).arg("--offline").current_dir(dir);
    // Shared by the tests of this process: the dependencies build once.
    c.env("CARGO_TARGET_DIR", scratch().join("target"));
    for v in [
        "CUDAFORGE_PREBUILT",
        "CUDAFORGE_JOBS",
        "CUDAFORGE_CHECK_ONLY",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "CUDA_TOOLKIT_ROOT_DIR",
        "CUDNN_LIB",
        "NVCC_CCBIN",
        "RAYON_NUM_THREADS",
    ] {
        c.env_remove(v);
    }
    // The NVIDIA path, even where a HIP compiler is installed (CI has one).
    c.env("HIP_PLATFORM", "nvidia");
    c.env("CUDA_COMPUTE_CAP", "90").env("NVCC", NO_NVCC);
    for (k, v) in vars {
        if v.as_os_str().is_empty() {
            c.env_remove(k);
        } else {
            c.env(k, v);
        }
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

/// The build's `OUT_DIR` (the fixture's build script records it).
fn out_dir(dir: &Path) -> PathBuf {
    PathBuf::from(std::fs::read_to_string(dir.join("out-dir.txt")).unwrap())
}

/// The `cargo:` lines the build script printed, as cargo kept them.
fn build_output(dir: &Path) -> Vec<String> {
    let out = out_dir(dir);
    std::fs::read_to_string(out.parent().unwrap().join("output"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn lines_starting<'a>(lines: &'a [String], prefix: &str) -> Vec<&'a str> {
    lines
        .iter()
        .filter(|l| l.starts_with(prefix))
        .map(String::as_str)
        .collect()
}

/// The constants bindgen_cuda writes for the fixture: every src/**/*.cu in
/// the glob crate's order (by path: `moe/` before `zeta.cu`), named by stem
/// with `.` as `_`.
const PTX_RS: &str = r#"pub const AFFINE: &str = include_str!(concat!(env!("OUT_DIR"), "/affine.ptx"));
pub const FILL_V2: &str = include_str!(concat!(env!("OUT_DIR"), "/fill.v2.ptx"));
pub const MOE_ONE: &str = include_str!(concat!(env!("OUT_DIR"), "/moe_one.ptx"));
pub const MOE_TWO: &str = include_str!(concat!(env!("OUT_DIR"), "/moe_two.ptx"));
pub const ZETA: &str = include_str!(concat!(env!("OUT_DIR"), "/zeta.ptx"));
"#;

#[test]
fn nvcc_here_builds_ptx_constants_and_a_library() {
    let dir = downstream("here");
    let log = dir.join("nvcc.log");
    let o = cargo(
        &dir,
        &["run", "-q"],
        &[("NVCC", &fake_nvcc()), ("FAKE_NVCC_LOG", &log)],
    );
    assert!(o.status.success(), "cargo run failed:\n{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // The program saw each PTX through its constant, and called the
    // archive's objects (each returns its source's line count).
    for want in [
        "compute cap: Some(\"90\")",
        "AFFINE: fake ptx of affine.cu, 2 lines",
        "FILL_V2: fake ptx of fill.v2.cu, 3 lines",
        "MOE_ONE: fake ptx of moe_one.cu, 2 lines",
        "ZETA: fake ptx of zeta.cu, 4 lines",
        "moe: 2 3",
    ] {
        assert!(stdout.contains(want), "no `{want}` in:\n{stdout}");
    }

    let out = out_dir(&dir);
    assert_eq!(std::fs::read_to_string(out.join("ptx.rs")).unwrap(), PTX_RS);
    assert_eq!(
        std::fs::read_to_string(out.join("moe_two.ptx")).unwrap(),
        "fake ptx of moe_two.cu, 3 lines\n"
    );
    // The headers, copied beside the PTX as bindgen_cuda does.
    for h in ["cuda_utils.cuh", "moe_utils.cuh"] {
        assert!(
            out.join(h).is_file(),
            "{h} not copied into {}",
            out.display()
        );
    }
    let lib = std::fs::read(out.join("libmoe.a")).unwrap();
    assert!(lib.starts_with(b"!<arch>\n"), "libmoe.a is not an archive");
    let members = Command::new("ar")
        .arg("t")
        .arg(out.join("libmoe.a"))
        .output()
        .unwrap();
    let members = String::from_utf8_lossy(&members.stdout);
    assert!(
        members.contains("moe_one") && members.contains("moe_two"),
        "libmoe.a holds:\n{members}"
    );

    let lines = build_output(&dir);
    // Linking: the crate's own two lines and cudaforge's toolkit folder;
    // no check-only placeholder.
    assert_eq!(
        lines_starting(&lines, "cargo:rustc-link-lib="),
        ["cargo:rustc-link-lib=moe"],
        "{lines:#?}"
    );
    let search = lines_starting(&lines, "cargo:rustc-link-search=");
    assert!(
        search.contains(&format!("cargo:rustc-link-search={}", out.display()).as_str()),
        "{search:#?}"
    );
    for want in [
        "cargo:rustc-env=CUDA_COMPUTE_CAP=90",
        "cargo:rerun-if-changed=src/cuda_utils.cuh",
        "cargo:rerun-if-changed=src/moe/moe_utils.cuh",
        "cargo:rerun-if-env-changed=CUDA_COMPUTE_CAP",
    ] {
        assert!(lines.iter().any(|l| l == want), "no `{want}` in {lines:#?}");
    }

    // What nvcc was asked: PTX with the arguments and both header folders,
    // objects without them, then the archive.
    let calls = std::fs::read_to_string(&log).unwrap();
    let src = std::fs::canonicalize(dir.join("src")).unwrap();
    let ptx_call = calls
        .lines()
        .find(|l| l.contains("--ptx") && l.ends_with("affine.cu"))
        .unwrap_or_else(|| panic!("no PTX call for affine.cu:\n{calls}"));
    for want in [
        "-gencode=arch=compute_90a,code=sm_90a",
        "--default-stream per-thread --expt-relaxed-constexpr -O3",
        &format!("-I{}", src.display()),
        &format!("-I{}", src.join("moe").display()),
    ] {
        assert!(ptx_call.contains(want), "no `{want}` in `{ptx_call}`");
    }
    let obj_call = calls
        .lines()
        .find(|l| l.contains(" -c ") && l.ends_with("moe_one.cu"))
        .unwrap_or_else(|| panic!("no object call for moe_one.cu:\n{calls}"));
    assert!(!obj_call.contains("-I"), "`{obj_call}`");
    assert!(
        calls.lines().any(|l| l.starts_with("--lib -o ")),
        "no archive call:\n{calls}"
    );
}

#[test]
fn check_only_type_checks_but_never_links() {
    let dir = downstream("checkonly");
    let jobs = dir.join("jobs");
    let one: &Path = Path::new("1");
    let vars = [("CUDAFORGE_CHECK_ONLY", one), ("CUDAFORGE_JOBS", &jobs)];
    // No GPU named and none to ask (bindgen_cuda itself would panic here):
    // a check needs none.
    let unset = [("CUDA_COMPUTE_CAP", Path::new("")), vars[0], vars[1]];
    let o = cargo(&dir, &["check"], &unset);
    assert!(
        o.status.success(),
        "cargo check without CUDA_COMPUTE_CAP failed:\n{}",
        text(&o)
    );
    let o = cargo(&dir, &["check"], &vars);
    assert!(o.status.success(), "cargo check failed:\n{}", text(&o));
    let out = out_dir(&dir);
    assert_eq!(std::fs::read_to_string(out.join("ptx.rs")).unwrap(), PTX_RS);
    let placeholder = std::fs::read_to_string(out.join("affine.ptx")).unwrap();
    assert!(
        placeholder.contains("check-only build") && placeholder.contains("this is not PTX"),
        "{placeholder}"
    );
    let lines = build_output(&dir);
    assert!(
        lines
            .iter()
            .any(|l| l == "cargo:rustc-link-lib=dylib=cudaforge-check-only-build-has-no-kernels"),
        "{lines:#?}"
    );
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

#[test]
fn without_nvcc_the_build_fails_naming_its_job() {
    let dir = downstream("nonvcc");
    let jobs = dir.join("jobs");
    let o = cargo(&dir, &["build"], &[("CUDAFORGE_JOBS", &jobs)]);
    let t = text(&o);
    assert!(!o.status.success(), "built without nvcc or kernels:\n{t}");
    // The build script's `.unwrap()` prints the reason as text.
    assert!(
        t.contains("`Err` value: bindgen_cuda (hip-rs drop-in): nvcc not found:"),
        "{t}"
    );
    assert!(
        t.contains("NVCC=/nonexistent/bin/nvcc does not exist"),
        "{t}"
    );
    assert!(
        !t.contains("NvccNotFound("),
        "a Debug structure, not the message:\n{t}"
    );
    let job = std::fs::read_dir(&jobs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.join("build.sh").is_file())
        .unwrap_or_else(|| panic!("no job in {}", jobs.display()));
    assert!(
        t.contains(&job.display().to_string()),
        "the error does not name the job:\n{t}"
    );
    assert!(
        job.join("src/moe/moe_utils.cuh").is_file(),
        "the job lacks a header"
    );
}

#[test]
fn jobs_run_elsewhere_bring_the_kernels_back() {
    let dir = downstream("prebuilt");
    let (jobs, prebuilt) = (dir.join("jobs"), dir.join("prebuilt"));
    let log = dir.join("nvcc.log");
    let vars = [
        ("CUDAFORGE_JOBS", jobs.as_path()),
        ("CUDAFORGE_PREBUILT", prebuilt.as_path()),
    ];
    // Each failed build writes the job it needed (PTX with the header
    // folders as -I, then the library); run it "on the machine with nvcc"
    // and build again.
    for round in 0.. {
        let o = cargo(&dir, &["run", "-q"], &vars);
        if o.status.success() {
            assert_eq!(round, 2, "expected two jobs (PTX, library) first");
            let stdout = String::from_utf8_lossy(&o.stdout);
            for want in ["AFFINE: fake ptx of affine.cu, 2 lines", "moe: 2 3"] {
                assert!(stdout.contains(want), "no `{want}` in:\n{stdout}");
            }
            break;
        }
        assert!(round < 2, "still failing after two jobs:\n{}", text(&o));
        for job in std::fs::read_dir(&jobs).unwrap().map(|e| e.unwrap().path()) {
            let key = job.file_name().unwrap();
            if !job.join("build.sh").is_file() || prebuilt.join(key).exists() {
                continue;
            }
            let st = Command::new("bash")
                .arg(job.join("build.sh"))
                .arg(prebuilt.join(key))
                .env("NVCC", fake_nvcc())
                .env("FAKE_NVCC_LOG", &log)
                .status()
                .unwrap();
            assert!(st.success(), "job {} failed", job.display());
        }
    }
    // The PTX job compiled with both header folders, as copied into it.
    let calls = std::fs::read_to_string(&log).unwrap();
    let affine = calls
        .lines()
        .find(|l| l.contains("--ptx") && l.ends_with("affine.cu"))
        .unwrap_or_else(|| panic!("no PTX call for affine.cu:\n{calls}"));
    let includes: Vec<&str> = affine.split(' ').filter(|t| t.starts_with("-I")).collect();
    assert!(
        includes.len() == 2 && includes[0].ends_with("/inc0") && includes[1].ends_with("/inc1"),
        "`{affine}`"
    );
}
