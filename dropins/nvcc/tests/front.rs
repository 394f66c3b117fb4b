//! The `nvcc` binary, run as build scripts run it: `--version` parsed as
//! mistralrs-quant's build script parses it, a mistral.rs compile line
//! through a stand-in HIP compiler (the cudaforge drop-in's
//! tests/fixtures/fake-hipcc, which logs its arguments), refusals, and the
//! NVIDIA path through a stand-in nvcc (fixtures/fake-nvcc).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const FRONT: &str = env!("CARGO_BIN_EXE_nvcc");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../cudaforge/tests/fixtures")
        .join(name)
}

fn folder(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hip-nvcc-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The front with a clean environment: no toolkit variables, `HIP_PLATFORM`
/// as given, `PATH` as given (default: only the system folders).
fn front(platform: Option<&str>, path: Option<&Path>) -> Command {
    let mut c = Command::new(FRONT);
    for v in [
        "NVCC",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "HIP_PLATFORM",
        "HIP_NVCC_CUDA_VERSION",
        "HIPCC",
        "HIP_BUILD_OFFLOAD_ARCH",
    ] {
        c.env_remove(v);
    }
    if let Some(p) = platform {
        c.env("HIP_PLATFORM", p);
    }
    c.env(
        "PATH",
        path.map_or_else(|| "/usr/bin:/bin".into(), |p| p.as_os_str().to_owned()),
    );
    c
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// mistralrs-quant's parse: the 4th line, split on ", ", the 2nd field,
/// its 2nd whitespace word.
fn mistral_release(stdout: &str) -> String {
    let line = stdout.lines().nth(3).expect("a 4th line");
    let field = line.split(", ").nth(1).expect("a 2nd field");
    field
        .split_whitespace()
        .nth(1)
        .expect("a 2nd word")
        .to_owned()
}

#[test]
fn version_says_what_it_is_and_the_release() {
    for flag in ["--version", "-V"] {
        let o = front(Some("amd"), None).arg(flag).output().unwrap();
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.len() >= 4, "{out}");
        assert_eq!(
            lines[0],
            "nvcc: hip-rs's front for CUDA code on AMD GPUs (not NVIDIA's nvcc)"
        );
        assert!(!out.contains("NVIDIA (R)"), "{out}");
        assert!(lines[1].contains("AMD GPUs"), "{out}");
        assert!(
            lines[2].starts_with(&format!("hip-nvcc {},", env!("CARGO_PKG_VERSION"))),
            "{out}"
        );
        assert_eq!(mistral_release(&out), "13.0");
        assert_eq!(
            lines[3],
            format!(
                "hip-nvcc {}, release 13.0, stands in for CUDA 13.0",
                env!("CARGO_PKG_VERSION")
            )
        );
    }
    let o = front(Some("amd"), None)
        .env("HIP_NVCC_CUDA_VERSION", "12.8")
        .arg("--version")
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(mistral_release(&text(&o).0), "12.8");
    for bad in ["12", "twelve", "12.8.1", "9.2"] {
        let o = front(Some("amd"), None)
            .env("HIP_NVCC_CUDA_VERSION", bad)
            .arg("--version")
            .output()
            .unwrap();
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{bad}: {out}");
        assert!(out.is_empty(), "{bad}: {out}");
        assert!(
            err.contains(&format!("HIP_NVCC_CUDA_VERSION={bad}")),
            "{err}"
        );
    }
}

#[test]
fn help_prints_the_usage() {
    let o = front(Some("amd"), None).arg("--help").output().unwrap();
    let (out, _) = text(&o);
    assert!(o.status.success());
    assert!(out.starts_with("Usage: nvcc"), "{out}");
    assert!(out.contains("not NVIDIA's nvcc") && out.contains("HIP_NVCC_CUDA_VERSION"));
}

#[test]
fn a_mistral_rs_line_compiles_through_the_layer() {
    let dir = folder("mistral");
    std::fs::write(
        dir.join("x.cu"),
        "__global__ void k(float* x) { x[0] = 1.f; }\n",
    )
    .unwrap();
    let log = dir.join("hipcc.log");
    let line = "-std=c++17 -O3 -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ \
                -U__CUDA_NO_HALF2_OPERATORS__ -U__CUDA_NO_BFLOAT16_CONVERSIONS__ \
                --expt-relaxed-constexpr --expt-extended-lambda --use_fast_math --verbose \
                --compiler-options -fPIC -c x.cu -o x.o";
    let o = front(Some("amd"), None)
        .env("HIPCC", fixture("fake-hipcc"))
        .env("FAKE_HIPCC_LOG", &log)
        .env("HIP_BUILD_OFFLOAD_ARCH", "gfx90a,gfx1100")
        .current_dir(&dir)
        .args(line.split_whitespace())
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(dir.join("x.o").is_file());
    // --verbose: the command, as nvcc's `#$` lines.
    assert!(err.contains("#$ ") && err.contains("fake-hipcc"), "{err}");
    let logged = std::fs::read_to_string(&log).unwrap();
    let args = logged.lines().next().expect("one compile");
    assert!(args.starts_with("-x hip -I "), "{args}");
    assert!(
        args.contains("/include -include hiprs_cuda.h -DHIPRS_CUDA_ARCH=890 --offload-arch=gfx90a --offload-arch=gfx1100 \
         -std=c++17 -O3 -U__CUDA_NO_HALF_OPERATORS__ -U__CUDA_NO_HALF_CONVERSIONS__ \
         -U__CUDA_NO_HALF2_OPERATORS__ -U__CUDA_NO_BFLOAT16_CONVERSIONS__ -ffast-math -fPIC -c x.cu -o x.o"),
        "{args}"
    );
    assert!(
        !args.contains("expt") && !args.contains("verbose"),
        "{args}"
    );
    // The layer's folder is this run's own, and gone.
    let include = args.split_whitespace().nth(3).unwrap();
    assert!(!Path::new(include).exists(), "{include}");
}

#[test]
fn a_source_is_retried_at_lower_levels() {
    let dir = folder("levels");
    std::fs::write(
        dir.join("a.cu"),
        "// fake: fails above 800\n__global__ void k() {}\n",
    )
    .unwrap();
    let o = front(Some("amd"), None)
        .env("HIPCC", fixture("fake-hipcc"))
        .env("HIP_BUILD_OFFLOAD_ARCH", "gfx90a")
        .current_dir(&dir)
        .args(["-c", "a.cu"])
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(dir.join("a.o").is_file());
    assert!(
        err.contains("a.cu compiled for AMD with __CUDA_ARCH__=800; at 890 it does not: uses inline PTX assembly"),
        "{err}"
    );
    std::fs::write(dir.join("b.cu"), "// fake: never compiles\n").unwrap();
    let o = front(Some("amd"), None)
        .env("HIPCC", fixture("fake-hipcc"))
        .env("HIP_BUILD_OFFLOAD_ARCH", "gfx90a")
        .current_dir(&dir)
        .args(["-c", "b.cu"])
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("b.cu compiles for AMD GPUs at no __CUDA_ARCH__ level"),
        "{err}"
    );
    assert!(err.contains("uses WMMA"), "{err}");
}

#[test]
fn refusals_exit_1_naming_the_option() {
    for (args, want) in [
        (&["--ptx", "x.cu"][..], "--ptx: AMD GPUs have no PTX"),
        (
            &["-c", "--fatbin", "x.cu"],
            "--fatbin: AMD GPUs have no NVIDIA GPU binaries",
        ),
        (
            &["-c", "--frobnicate", "x.cu"],
            "--frobnicate: unknown or unsupported nvcc option",
        ),
    ] {
        let o = front(Some("amd"), None)
            .env("HIPCC", fixture("fake-hipcc"))
            .args(args)
            .output()
            .unwrap();
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("nvcc (hip-nvcc): error: ") && err.contains(want),
            "{err}"
        );
    }
}

#[test]
fn nvidia_runs_the_real_nvcc_with_the_arguments_unchanged() {
    let dir = folder("nvidia");
    let bin = dir.join("cuda/bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(fixture("fake-nvcc"), bin.join("nvcc")).unwrap();
    let log = dir.join("nvcc.log");
    std::fs::write(dir.join("x.cu"), "__global__ void k() {}\n").unwrap();
    // Found through CUDA_HOME with HIP_PLATFORM unset; --ptx is NVIDIA's to take.
    let o = front(None, None)
        .env("CUDA_HOME", dir.join("cuda"))
        .env("FAKE_NVCC_LOG", &log)
        .current_dir(&dir)
        .args(["--ptx", "-arch=sm_80", "-o", "x.ptx", "x.cu"])
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert!(o.status.success(), "{err}");
    // (The first line is the toolkit search's --version.)
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().lines().last(),
        Some("--ptx -arch=sm_80 -o x.ptx x.cu")
    );
    // --version is the front's, naming that nvcc and its release.
    let o = front(None, None)
        .env("CUDA_HOME", dir.join("cuda"))
        .arg("--version")
        .output()
        .unwrap();
    let (out, _) = text(&o);
    assert!(
        out.lines().nth(1).unwrap().contains("NVIDIA's nvcc at"),
        "{out}"
    );
    assert_eq!(mistral_release(&out), "13.0");
    // HIP_PLATFORM=nvidia without an NVIDIA nvcc: an error, not the AMD path.
    let o = front(Some("nvidia"), None)
        .args(["-c", "x.cu"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err.contains("HIP_PLATFORM=nvidia, but no NVIDIA nvcc was found"),
        "{err}"
    );
}
