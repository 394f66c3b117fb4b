//! The `hip-info` program's arguments and exit statuses. The no-runtime
//! case points the loader at an empty folder, so it holds on any machine
//! (under Wine too).

use std::path::PathBuf;
use std::process::{Command, Output};

fn hip_info(args: &[&str], env: &[(&str, &PathBuf)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hip-info"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = test_kit::output_of(&mut cmd);
    println!("{}", String::from_utf8_lossy(&out.stdout));
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

/// An empty folder of its own, under cargo's scratch space. As an absolute
/// path of the platform: under Wine (the Windows build of this test) the
/// Unix path cargo gives has no drive, and the loader refuses a relative
/// `HIP_SYS_LIBRARY_PATH`.
fn empty_folder(name: &str) -> PathBuf {
    let d = std::path::absolute(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
        .join(format!("hip-info-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn help_prints_the_usage_and_succeeds() {
    let out = hip_info(&["--help"], &[]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("usage: hip-info [--json]"));
}

#[test]
fn an_unknown_argument_is_status_2() {
    let out = hip_info(&["--jsn"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown argument \"--jsn\""));
    assert!(out.stdout.is_empty());
}

#[test]
fn no_runtime_is_status_1_with_the_report() {
    let dir = empty_folder("text");
    let out = hip_info(
        &[],
        &[
            ("HIP_PLATFORM", &"amd".into()),
            ("HIP_SYS_LIBRARY_PATH", &dir),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("HIP diagnostics\nplatform: none"),
        "{text}"
    );
    assert!(text.contains("error: no HIP runtime loaded"), "{text}");
    assert!(text.contains("(HIP_SYS_LIBRARY_PATH): not found"), "{text}");
}

#[cfg(feature = "json")]
#[test]
fn json_without_a_runtime_says_platform_null() {
    let dir = empty_folder("json");
    let out = hip_info(
        &["--json"],
        &[
            ("HIP_PLATFORM", &"amd".into()),
            ("HIP_SYS_LIBRARY_PATH", &dir),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("not JSON");
    assert_eq!(json["platform"], serde_json::Value::Null);
    assert_eq!(json["devices"], serde_json::json!([]));
    assert_eq!(json["warnings"][0]["severity"], "error");
}

#[cfg(not(feature = "json"))]
#[test]
fn json_without_the_feature_is_status_2() {
    let out = hip_info(&["--json"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("without the `json` feature"));
}
