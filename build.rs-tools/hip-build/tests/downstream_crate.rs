//! Tier 2: a downstream crate whose build script uses hip-build, built by
//! cargo: the kernels compile with the machine's hipcc, the generated file
//! compiles into the crate, and editing an included header reruns the
//! build script. Needs hipcc (Debian: `apt install hipcc rocm-device-libs
//! libamdhip64-dev`); without it this test fails and says so.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

fn cargo(dir: &Path, args: &[&str]) -> Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .arg("--offline")
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("HIP_BUILD_OFFLOAD_ARCH")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Whether cargo's verbose output shows the downstream build script run.
fn build_script_ran(out: &Output) -> bool {
    String::from_utf8_lossy(&out.stderr).lines().any(|l| {
        l.contains("Running") && l.contains("downstream") && l.contains("build-script-build")
    })
}

#[test]
fn a_downstream_build_script_embeds_kernels_and_tracks_headers() {
    if let Err(e) = hip_build::Toolchain::find() {
        panic!("this test needs ROCm's hipcc and none was found:\n{e}");
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hip-build-downstream");
    let _ = std::fs::remove_dir_all(&dir);
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/downstream");
    copy_dir(&fixture, &dir);
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml.in")).unwrap();
    let hip_build = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    std::fs::write(
        dir.join("Cargo.toml"),
        manifest.replace("@HIP_BUILD@", &hip_build.display().to_string()),
    )
    .unwrap();

    let run = cargo(&dir, &["run", "--quiet"]);
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(
        lines[0].starts_with("gfx90a:sramecc+:xnack-: ") && lines[0].ends_with("bytes, ELF true"),
        "{stdout}"
    );
    assert!(
        lines[1].starts_with("gfx1010:xnack-: ") && lines[1].ends_with("bytes, ELF true"),
        "{stdout}"
    );
    assert_eq!(lines[2], "gfx1100: none");

    // Nothing changed: the build script does not run again.
    let again = cargo(&dir, &["build", "-v"]);
    assert!(
        !build_script_ran(&again),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );

    // An included header changed: it does.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(
        dir.join("kernels/scale.h"),
        "#define SCALE(a) (2.0f * (a))\n",
    )
    .unwrap();
    let rebuilt = cargo(&dir, &["build", "-v"]);
    assert!(
        build_script_ran(&rebuilt),
        "{}",
        String::from_utf8_lossy(&rebuilt.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
