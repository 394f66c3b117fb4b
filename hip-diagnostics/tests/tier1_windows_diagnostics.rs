//! Windows: `hip_diagnostics::report()` against the stub HIP SDKs of
//! scripts/windows/build-stubs.sh, under Wine (scripts/wine-tier.sh): the
//! runtime chosen and its version, the search attempts, and the warnings of
//! the usual Windows breakages. Each case in a process of its own (the
//! runtime is loaded once per process); without the stub SDKs it fails.
#![cfg(windows)]

use hip_diagnostics::{report, Severity};
use test_kit::{in_scenario, partial_sdk, stub_bin, Scenario};

/// The report's text, printed, and whether a warning holds every part.
fn report_text() -> (String, hip_diagnostics::Report) {
    let r = report();
    let text = r.to_string();
    println!("{text}");
    (text, r)
}

fn warns(r: &hip_diagnostics::Report, parts: &[&str]) -> bool {
    r.warnings
        .iter()
        .any(|w| w.severity >= Severity::Warning && parts.iter().all(|p| w.message.contains(p)))
}

#[test]
fn report_names_the_runtime_from_path_and_the_sdk_hip_path_names() {
    if in_scenario("report_names_the_runtime_from_path_and_the_sdk_hip_path_names") {
        let (text, r) = report_text();
        let runtime = stub_bin("7.1").join("amdhip64_7.dll");
        assert_eq!(r.platform.as_deref(), Some("amd"));
        assert!(
            r.libraries[0]
                .path
                .eq_ignore_ascii_case(&runtime.display().to_string()),
            "{:?}",
            r.libraries
        );
        assert_eq!(r.versions.runtime.as_deref(), Some("7.1.51803"));
        // The attempts in order: HIP_PATH's folder (no runtime), then PATH.
        let sources: Vec<&str> = r.candidates.iter().map(|c| c.source.as_str()).collect();
        let first_path = sources
            .iter()
            .position(|s| *s == "PATH entry 1")
            .expect("PATH searched");
        assert!(
            sources[..first_path].iter().all(|s| *s == "HIP_PATH"),
            "{sources:?}"
        );
        assert!(
            first_path >= 3,
            "HIP_PATH's three names tried first: {sources:?}"
        );
        assert!(
            warns(&r, &["names HIP SDK 6.1", "7.1.51803", "amdhip64_7.dll"]),
            "{text}"
        );
        assert!(
            text.contains("amdhip64_6.dll (HIP_PATH): not found"),
            "{text}"
        );
        assert!(
            !text.contains(r"\\?\"),
            "verbatim paths in the report: {text}"
        );
        return;
    }
    // SDK 6.1 whose bin lost its runtime; the 7.1 runtime on PATH.
    let sdk = partial_sdk("diag-sdk61", "6.1", &[".hipVersion"]);
    Scenario::amd("report_names_the_runtime_from_path_and_the_sdk_hip_path_names")
        .var("HIP_PATH", &sdk)
        .var("PATH", stub_bin("7.1"))
        .run();
}

#[test]
fn report_names_a_missing_comgr_dll() {
    if in_scenario("report_names_a_missing_comgr_dll") {
        let (text, r) = report_text();
        assert_eq!(r.versions.runtime.as_deref(), Some("7.1.51803"));
        assert!(
            warns(
                &r,
                &[
                    "amdhip64_6.dll",
                    "needs amd_comgr_2.dll",
                    "HIP SDK installs it in its bin folder"
                ]
            ),
            "{text}"
        );
        assert!(
            r.warnings
                .iter()
                .all(|w| !w.message.contains("LD_LIBRARY_PATH")),
            "{text}"
        );
        assert!(warns(&r, &["names HIP SDK 6.4", "7.1.51803"]), "{text}");
        return;
    }
    // SDK 6.4 without its COMGR: its runtime cannot load; 7.1 on PATH.
    let sdk = partial_sdk("diag-no-comgr", "6.4", &["amdhip64_6.dll", ".hipVersion"]);
    Scenario::amd("report_names_a_missing_comgr_dll")
        .var("HIP_PATH", &sdk)
        .var("PATH", stub_bin("7.1"))
        .run();
}

#[test]
fn report_of_a_whole_sdk_finds_its_runtime_and_blas_libraries() {
    if in_scenario("report_of_a_whole_sdk_finds_its_runtime_and_blas_libraries") {
        let (text, r) = report_text();
        let bin = stub_bin("6.4");
        assert_eq!(r.versions.runtime.as_deref(), Some("6.4.50101"));
        let hip_path = r.variables.iter().find(|v| v.name == "HIP_PATH").unwrap();
        assert_eq!(
            hip_path.assessment.as_deref(),
            Some("holds the runtime in use"),
            "{text}"
        );
        for (name, file) in [("rocBLAS", "rocblas.dll"), ("hipBLAS", "hipblas.dll")] {
            let found = r.blas_libraries.iter().find(|b| b.name == name);
            let found = found.unwrap_or_else(|| panic!("no {name} in the report:\n{text}"));
            assert!(
                found
                    .path
                    .eq_ignore_ascii_case(&bin.join(file).display().to_string()),
                "{text}"
            );
            assert_eq!(found.source, "HIP_PATH");
        }
        // Only the missing device is wrong with this machine.
        let others: Vec<_> = r
            .warnings
            .iter()
            .filter(|w| w.severity >= Severity::Warning && !w.message.starts_with("no GPU device"))
            .collect();
        assert!(others.is_empty(), "{others:#?}");
        return;
    }
    Scenario::amd("report_of_a_whole_sdk_finds_its_runtime_and_blas_libraries")
        .var("HIP_PATH", test_kit::stub_sdk("6.4"))
        .run();
}
