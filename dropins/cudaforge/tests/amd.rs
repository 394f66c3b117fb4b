//! The AMD path, end to end through cargo, with a stand-in HIP compiler
//! (tests/fixtures/fake-hipcc: the real one takes minutes per source;
//! scripts/candle.sh amd runs the real one on candle-kernels): PTX files
//! become envelopes naming their targets and unavailable kernels, sources
//! are retried at lower `__CUDA_ARCH__` levels, a launcher that does not
//! compile becomes a stub that aborts naming itself, and `-lcudart` links
//! the HIP runtime.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A fresh copy of the AMD downstream crate, named `name` (cargo names
/// build-script folders by package: one name per test).
fn downstream(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cudaforge-amd-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let from = fixtures().join("downstream-amd");
    for rel in [
        "build.rs",
        "src/main.rs",
        "kernels/a.cu",
        "kernels/c.cu",
        "kernels/lib_one.cu",
        "kernels/lib_two.cu",
    ] {
        let dest = dir.join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(from.join(rel), dest).unwrap();
    }
    let manifest = std::fs::read_to_string(from.join("Cargo.toml.in"))
        .unwrap()
        .replace("@CUDAFORGE@", env!("CARGO_MANIFEST_DIR"))
        .replace("@NAME@", &format!("downstream-amd-{name}"));
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    // The folder is reused by every run: forget the last run's build of
    // this package (its build script's outputs among them), or the build
    // would be a cached one that calls no compiler.
    let o = cargo(
        &dir,
        &["clean", "-p", &format!("downstream-amd-{name}")],
        &[],
    );
    assert!(o.status.success(), "cargo clean failed:\n{}", text(&o));
    dir
}

fn cargo(dir: &Path, args: &[&str], vars: &[(&str, &str)]) -> Output {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.args(args).arg("--offline").current_dir(dir);
    // One target folder for every run, under cargo's own scratch space:
    // a folder per process was left behind in /tmp by each run (243 MB
    // each since cudaforge depends on hip).
    c.env(
        "CARGO_TARGET_DIR",
        Path::new(env!("CARGO_TARGET_TMPDIR")).join("cudaforge-amd-target"),
    );
    for v in [
        "CUDAFORGE_PREBUILT",
        "CUDAFORGE_CHECK_ONLY",
        "CUDAFORGE_AMD_CACHE",
        "ROCM_PATH",
        "HIP_PATH",
        "HIP_CLANG_PATH",
    ] {
        c.env_remove(v);
    }
    let hipcc = fixtures().join("fake-hipcc");
    c.env("HIP_PLATFORM", "amd")
        .env("HIPCC", &hipcc)
        .env("HIP_BUILD_OFFLOAD_ARCH", "gfx90a,gfx1100")
        .env("NVCC", "/nonexistent/bin/nvcc");
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

/// The header lines of the envelope printed after `== NAME`.
fn envelope<'a>(stdout: &'a str, name: &str) -> Vec<&'a str> {
    stdout
        .split(&format!("== {name}\n"))
        .nth(1)
        .unwrap_or_default()
        .lines()
        .take_while(|l| !l.starts_with("// begin"))
        .collect()
}

#[test]
fn amd_builds_envelopes_retries_lower_levels_and_stubs_launchers() {
    let dir = downstream("build");
    let log = dir.join("hipcc.log");
    let o = cargo(
        &dir,
        &["run", "-q"],
        &[("FAKE_HIPCC_LOG", log.to_str().unwrap())],
    );
    assert!(o.status.success(), "cargo run failed:\n{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let a = envelope(&stdout, "A");
    assert_eq!(
        a,
        [
            "// hip-rs amdgpu code object envelope v1",
            "// source: a.cu",
            "// targets: gfx90a gfx1100",
            a.get(3).copied().unwrap_or("(no sha256 line)"),
        ],
        "{stdout}"
    );
    assert!(a[3].starts_with("// sha256: "), "{stdout}");
    // c.cu compiled at 700: c_tensor (800 and up only) is listed with the
    // reason of the failure at 890.
    let c = envelope(&stdout, "C");
    assert!(
        c.contains(&"// unavailable: c_tensor: uses inline PTX assembly, which only NVIDIA GPUs run (first error: c.cu:3:15: error: invalid input constraint 'l' in asm)"),
        "{stdout}"
    );
    assert!(!stdout.contains("unavailable: c_portable"), "{stdout}");
    // The envelope's payload is what the compiler wrote, in base64.
    let payload: String = stdout
        .split("== C\n")
        .nth(1)
        .unwrap()
        .lines()
        .skip_while(|l| !l.starts_with("// begin"))
        .skip(1)
        .take_while(|l| !l.starts_with("// end"))
        .collect();
    assert_eq!(
        payload,
        "ZmFrZSBidW5kbGUgb2YgYy5jdSBhdCA3MDAgZm9yIGdmeDkwYSBnZngxMTAwCg=="
    );
    assert!(stdout.contains("lib_one: 4"), "{stdout}");

    let calls = std::fs::read_to_string(&log).unwrap();
    for want in [
        "-x hip",
        "-include hiprs_cuda.h -DHIPRS_CUDA_ARCH=890 --offload-arch=gfx90a --offload-arch=gfx1100 -O3",
        "--cuda-device-only --gpu-bundle-output -c a.cu",
        "-DHIPRS_CUDA_ARCH=700",
        "-fPIC -c lib_one.cu",
        "-x c++ -O2 -fPIC -c",
    ] {
        assert!(calls.contains(want), "no `{want}` in the compiler's calls:\n{calls}");
    }
    // nvcc-only arguments do not reach clang.
    assert!(!calls.contains("expt-relaxed-constexpr"), "{calls}");
    assert!(!calls.contains("-Xcompiler"), "{calls}");
    // a.cu compiled at the first level: no retry, no preprocessing.
    assert!(!calls.contains("-DHIPRS_CUDA_ARCH=800 --offload-arch=gfx90a --offload-arch=gfx1100 -O3 --cuda-device-only --gpu-bundle-output -c a.cu"), "{calls}");

    // The launcher that never compiled stops the program and says why.
    let o = cargo(&dir, &["run", "-q", "--", "two"], &[]);
    assert!(!o.status.success(), "{}", text(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("fake_lib_two (from lib_two.cu) is not available on AMD GPUs: uses WMMA tensor-core fragments (nvcuda::wmma), which HIP does not provide"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&o.stdout).contains("lib_two:"));
    // And cargo was told so at build time.
    let o = cargo(
        &dir,
        &["build", "-vv"],
        &[("HIP_BUILD_OFFLOAD_ARCH", "gfx90a,gfx1100,gfx1030")],
    );
    assert!(o.status.success(), "{}", text(&o));
    let out = text(&o);
    assert!(
        out.contains("unavailable fake_lib_two (lib_two.cu): uses WMMA"),
        "{out}"
    );
    assert!(
        out.contains("unavailable c_tensor (c.cu): uses inline PTX"),
        "{out}"
    );
}

#[test]
fn launch_bounds_reach_the_compiler_and_the_report() {
    let dir = downstream("bounds");
    let log = dir.join("hipcc.log");
    let o = cargo(
        &dir,
        &["build", "-q"],
        &[
            ("FAKE_HIPCC_LOG", log.to_str().unwrap()),
            ("CUDAFORGE_LAUNCH_BOUNDS", "a.cu=256, lib_*.cu=128"),
        ],
    );
    assert!(o.status.success(), "cargo build failed:\n{}", text(&o));
    let calls = std::fs::read_to_string(&log).unwrap();
    let compiles = |src: &str| -> Vec<&str> {
        calls
            .lines()
            .filter(|l| l.contains(&format!("-c {src} ")))
            .collect()
    };
    assert!(!compiles("a.cu").is_empty(), "{calls}");
    for l in compiles("a.cu") {
        assert!(l.contains("--gpu-max-threads-per-block=256"), "{l}");
    }
    for l in compiles("lib_one.cu") {
        assert!(l.contains("--gpu-max-threads-per-block=128"), "{l}");
    }
    for l in compiles("c.cu") {
        assert!(!l.contains("--gpu-max-threads-per-block"), "{l}");
    }
    // The build's report says which source has which bound, and why.
    let reports: Vec<String> = glob_reports(&dir);
    let all = reports.join("\n");
    assert!(
        all.contains("bound a.cu 256 threads (CUDAFORGE_LAUNCH_BOUNDS a.cu=256)"),
        "{all}"
    );
    assert!(
        all.contains("bound lib_one.cu 128 threads (CUDAFORGE_LAUNCH_BOUNDS lib_*.cu=128)"),
        "{all}"
    );
    assert!(!all.contains("bound c.cu"), "{all}");

    let o = cargo(
        &dir,
        &["build", "-q"],
        &[("CUDAFORGE_LAUNCH_BOUNDS", "a.cu=4096")],
    );
    assert!(!o.status.success());
    assert!(
        text(&o)
            .contains("CUDAFORGE_LAUNCH_BOUNDS: `a.cu=4096` is not a thread count from 1 to 1024"),
        "{}",
        text(&o)
    );
}

/// The AMD build reports of the downstream crate built in `dir`.
fn glob_reports(dir: &Path) -> Vec<String> {
    let name = dir
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace("cudaforge-amd-", "downstream-amd-");
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cudaforge-amd-target/debug/build");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&build).unwrap().flatten() {
        let f = e.file_name().to_string_lossy().into_owned();
        if !f.starts_with(&format!("{name}-")) {
            continue;
        }
        let Ok(keys) = std::fs::read_dir(e.path().join("out/cudaforge-amd")) else {
            continue;
        };
        for k in keys.flatten() {
            if let Ok(r) = std::fs::read_to_string(k.path().join("cudaforge-amd-report.txt")) {
                out.push(r);
            }
        }
    }
    out
}

#[cfg(unix)]
#[test]
fn native_builds_for_the_gpus_the_machine_reports() {
    use std::os::unix::fs::PermissionsExt;
    let dir = downstream("native");
    // A stand-in for ROCm's amdgpu-arch, first on PATH: the first tool
    // that names a GPU wins, so the machine's own GPUs (if any) don't count.
    let bin = dir.join("fake-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let tool = bin.join("amdgpu-arch");
    std::fs::write(
        &tool,
        "#!/bin/sh\necho gfx1100\necho gfx942\necho gfx1100\n",
    )
    .unwrap();
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let o = cargo(
        &dir,
        &["run", "-q"],
        &[
            ("HIP_BUILD_OFFLOAD_ARCH", "native"),
            ("PATH", path.to_str().unwrap()),
        ],
    );
    assert!(o.status.success(), "cargo run failed:\n{}", text(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        envelope(&stdout, "A").contains(&"// targets: gfx1100 gfx942"),
        "{stdout}"
    );
}

#[test]
fn bad_targets_and_platforms_are_named() {
    let dir = downstream("bad");
    let o = cargo(
        &dir,
        &["build"],
        &[("HIP_BUILD_OFFLOAD_ARCH", "gfx90a,sm_90")],
    );
    assert!(!o.status.success());
    assert!(
        text(&o).contains("HIP_BUILD_OFFLOAD_ARCH: sm_90 is not an AMD GPU target"),
        "{}",
        text(&o)
    );
    let o = cargo(&dir, &["build"], &[("HIP_PLATFORM", "intel")]);
    assert!(!o.status.success());
    assert!(
        text(&o).contains("HIP_PLATFORM=intel: expected amd or nvidia"),
        "{}",
        text(&o)
    );
}
