//! `hip-info kernels`: its arguments, and files that are not code objects
//! (the readings themselves: `tier2_kernel_report.rs` on real code objects,
//! hip's unit tests on hand-built ones).

use std::path::PathBuf;
use std::process::{Command, Output};

fn hip_info(args: &[&str]) -> Output {
    let out = test_kit::output_of(Command::new(env!("CARGO_BIN_EXE_hip-info")).args(args));
    println!("{}", String::from_utf8_lossy(&out.stdout));
    eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    out
}

fn folder(name: &str) -> PathBuf {
    let d =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hip-info-kernels-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_file_of_no_accepted_format_is_status_1_naming_it() {
    let d = folder("text");
    let f = d.join("kernel.cu");
    std::fs::write(&f, "__global__ void k() {}\n").unwrap();
    let out = hip_info(&["kernels", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("kernel.cu: not a code object: none of the formats"),
        "{err}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("0 of 0 kernel instances spill registers"),
        "{text}"
    );
}

#[test]
fn a_truncated_bundle_is_refused_with_the_reason() {
    let d = folder("bundle");
    let f = d.join("k.bundle");
    let mut b = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    b.extend(3u64.to_le_bytes());
    std::fs::write(&f, &b).unwrap();
    let out = hip_info(&["kernels", f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("OffloadBundle"), "{err}");
    // In a folder too: a broken bundle is reported, text is passed over.
    std::fs::write(d.join("notes.txt"), "hello").unwrap();
    let out = hip_info(&["kernels", d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("k.bundle: error:"), "{text}");
    assert!(!text.contains("notes.txt"), "{text}");
}

#[test]
fn a_folder_of_sources_only_is_no_error() {
    let d = folder("sources");
    std::fs::write(d.join("a.cu"), "// nothing").unwrap();
    let out = hip_info(&["kernels", "--json", d.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    #[cfg(feature = "json")]
    {
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(json["files"], serde_json::json!([]));
        assert_eq!(json["summary"]["instances"], 0);
    }
}

#[test]
fn bad_arguments_are_status_2() {
    let out = hip_info(&["kernels"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no file given"));
    let out = hip_info(&["kernels", "--jsn", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown argument \"--jsn\""));
    let out = hip_info(&["kernels", "--help"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("hip-info kernels [--json]"));
}
