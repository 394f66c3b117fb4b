//! Tier 2: the diagnostics report against the real runtime and, in the
//! ROCm 6.4 sysroot (`HIP_TEST_EXPECT_ROCM=6.4`, see
//! `scripts/tier2-sysroots.sh`), the real rocBLAS 6.4.4 kernel folder.
//!
//! There are no devices here, so the runtime's real facts are kept and one
//! device per processor of interest is put in their place: the report's
//! per-processor answer is then checked against a listing of the kernel
//! folder made here, independently of the report's own code.

use hip_diagnostics::{report_from, DeviceFacts, Environment, RuntimeFacts, Severity};
use std::path::Path;
use test_kit::Rocm;

/// The processors the issue asks about.
const PROCESSORS: [&str; 5] = ["gfx1010", "gfx1030", "gfx1100", "gfx90a", "gfx942"];

/// The real runtime's facts with one made-up device per processor.
fn facts_with_devices() -> RuntimeFacts {
    let mut rt = RuntimeFacts::query();
    assert!(rt.loaded.is_some(), "the AMD runtime did not load: {rt:?}");
    let devices = PROCESSORS
        .iter()
        .enumerate()
        .map(|(i, p)| DeviceFacts {
            ordinal: i as i32,
            name: format!("test device {p}"),
            arch: format!("{p}:sramecc-:xnack-"),
            total_memory: 1 << 34,
            compute_units: 40,
            compute_capability: (9, 0),
            error: None,
        })
        .collect();
    rt.devices = Ok(devices);
    rt
}

/// How many files in `dir` name `processor` as a whole token.
fn files_naming(dir: &Path, processor: &str) -> usize {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| {
            f.match_indices(processor).any(|(at, _)| {
                let before = f[..at].chars().next_back();
                let after = f[at + processor.len()..].chars().next();
                let edge = |c: Option<char>| c.map_or(true, |c| !c.is_ascii_alphanumeric());
                edge(before) && edge(after)
            })
        })
        .count()
}

#[test]
fn rocblas_kernel_coverage_matches_the_kernel_folder() {
    let report = report_from(&Environment::from_process(), &facts_with_devices());
    println!("{report}");
    assert_eq!(report.devices.len(), PROCESSORS.len());
    if !Rocm::expected().has_hipblas() {
        // No rocBLAS in this release's environment: nothing to check, and
        // the report says so.
        assert!(report.rocblas.is_none(), "{report}");
        assert!(report.devices.iter().all(|d| d.rocblas_kernels.is_none()));
        assert!(
            report
                .warnings
                .iter()
                .any(|w| w.message.contains("no rocBLAS or hipBLAS library found")),
            "{report}"
        );
        return;
    }
    let rocblas = report
        .rocblas
        .as_ref()
        .expect("the 6.4 sysroot has rocBLAS");
    let library = rocblas.library.as_deref().unwrap_or_default();
    assert!(library.contains("librocblas.so.4"), "{library}");
    let dir = rocblas.kernel_dir.as_deref().expect("a kernel folder");
    // Debian's layout: rocblas/<version>/library beside the library.
    assert!(dir.ends_with("rocblas/4.4.1/library"), "{dir}");
    let dir = Path::new(dir);
    let mut table = Vec::new();
    for d in &report.devices {
        let files = files_naming(dir, &d.processor);
        table.push(format!("{}: {files} files", d.processor));
        assert_eq!(d.rocblas_kernels, Some(files > 0), "{}", d.processor);
        let warned = report.warnings.iter().any(|w| {
            w.severity == Severity::Error
                && w.message.contains("has no rocBLAS kernels")
                && w.message.contains(&format!("names {} ", d.processor))
        });
        assert_eq!(warned, files == 0, "{}: {report}", d.processor);
    }
    println!("rocBLAS 6.4.4 kernel files: {}", table.join(", "));
    // Both outcomes are exercised: the sysroot keeps gfx1100's kernels
    // (scripts/rocm-runtimes.sh keeps those of hip-emu's targets only, the
    // others' files are left out), and Debian's librocblas4 6.4.4 has none
    // for gfx942.
    assert!(files_naming(dir, "gfx1100") > 0, "{report}");
    assert_eq!(files_naming(dir, "gfx942"), 0);
    let gfx942 = report
        .devices
        .iter()
        .find(|d| d.processor == "gfx942")
        .unwrap();
    assert_eq!(gfx942.rocblas_kernels, Some(false));
}
