//! The report over faked environments (variables and folders made in a temp
//! dir, load attempts made by hip-sys's real search over them), and tier 2
//! with the machine's real runtime.

// Tests marked `#[cfg(unix)]` build a ROCm tree as Linux lays it out
// (lib/, versioned .so files behind symbolic links, file modes, /dev/kfd); the
// Windows layout is tested under Wine by
// tests/tier1_windows_diagnostics.rs.

use super::*;
#[cfg(unix)]
use hip_sys::loader::search::{amd_locations_from, open_first, Location, Os};
#[cfg(unix)]
use hip_sys::loader::Attempt;
use hip_sys::loader::LoadedLibrary;
use std::sync::atomic::{AtomicUsize, Ordering};

#[cfg(unix)]
const RUNTIME_NAMES: &[&str] = &[
    "libamdhip64.so.7",
    "libamdhip64.so.6",
    "libamdhip64.so.5",
    "libamdhip64.so",
];

/// A fresh folder of its own for each test.
fn temp_root(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    #[allow(clippy::disallowed_methods)] // a unit test's few files
    let d = std::env::temp_dir().join(format!(
        "hip-diagnostics-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(path: &Path, contents: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, contents).unwrap();
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// A runtime that loaded from `path`, with no device.
fn amd_loaded(path: &Path, version: Version) -> RuntimeFacts {
    RuntimeFacts {
        loaded: Some(LoadedRuntime {
            platform: Platform::Amd,
            reason: "AMD runtime found".into(),
            libraries: vec![LoadedLibrary {
                role: "HIP runtime",
                path: path.to_path_buf(),
            }],
            version,
        }),
        load_problem: None,
        attempts: Vec::new(),
        runtime_version: Ok(60_443_483),
        driver_version: Ok(60_443_483),
        devices: Err("hipErrorNoDevice".into()),
        collectives: Err("no RCCL found for the amd platform; tried 4 paths".into()),
    }
}

fn v(major: u32, minor: u32, patch: u32) -> Version {
    Version {
        major,
        minor,
        patch,
    }
}

#[cfg(unix)]
fn device(ordinal: i32, name: &str, arch: &str) -> DeviceFacts {
    DeviceFacts {
        ordinal,
        name: name.into(),
        arch: arch.into(),
        total_memory: 16 << 30,
        compute_units: 40,
        compute_capability: (9, 0),
        error: None,
    }
}

fn has_warning(r: &Report, severity: Severity, parts: &[&str]) -> bool {
    r.warnings
        .iter()
        .any(|w| w.severity == severity && parts.iter().all(|p| w.message.contains(p)))
}

#[cfg(unix)]
fn variable<'a>(r: &'a Report, name: &str) -> &'a Variable {
    r.variables.iter().find(|v| v.name == name).unwrap()
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn hip_path_naming_another_sdk_is_a_warning() {
    let root = temp_root("hip-path");
    // The SDK HIP_PATH names: a ROCm 6.4 tree whose runtime is broken.
    let sdk = root.join("rocm-6.4.3");
    write(&sdk.join("lib/libamdhip64.so.6.4.43483"), "not a library");
    symlink(
        Path::new("libamdhip64.so.6.4.43483"),
        &sdk.join("lib/libamdhip64.so.6"),
    );
    write(&sdk.join(".info/version"), "6.4.3-43483\n");
    // The runtime actually in use, in a system folder.
    let system = root.join("usr-lib");
    let in_use = system.join("libamdhip64.so.5.2.21153");
    write(&in_use, "stands for the loaded runtime");

    let env = Environment::empty()
        .with_var("HIP_PATH", sdk.display().to_string())
        .with_system_lib_dirs(vec![system.clone()]);
    let mut rt = amd_loaded(&in_use, v(5, 2, 21153));
    let lookup = |k: &str| env.nonempty(k).map(PathBuf::from);
    let hip_path_only: Vec<Location> = amd_locations_from(Os::Unix, &lookup)
        .into_iter()
        .filter(|l| l.source == "HIP_PATH")
        .collect();
    assert_eq!(hip_path_only.len(), 1);
    assert!(open_first(
        "HIP runtime",
        &hip_path_only,
        RUNTIME_NAMES,
        &mut rt.attempts
    )
    .is_none());

    let r = report_from(&env, &rt);
    // The broken candidate: found, but not a library.
    let c = r
        .candidates
        .iter()
        .find(|c| c.path.ends_with("libamdhip64.so.6"))
        .unwrap();
    assert!(
        matches!(&c.result, CandidateResult::NotALibrary { detail } if detail.contains("file too short") || detail.contains("invalid ELF header")),
        "{c:?}"
    );
    assert!(r
        .candidates
        .iter()
        .any(|c| c.path.ends_with("libamdhip64.so.7") && c.result == CandidateResult::NotFound));
    assert!(
        has_warning(
            &r,
            Severity::Warning,
            &[
                "HIP_PATH=",
                "names a different HIP SDK (ROCm 6.4.3-43483)",
                "libamdhip64.so.6.4.43483",
                "libamdhip64.so.5.2.21153",
                "did not load",
            ]
        ),
        "{r}"
    );
    let var = variable(&r, "HIP_PATH");
    assert!(
        var.assessment
            .as_deref()
            .unwrap()
            .starts_with("names a different SDK"),
        "{var:?}"
    );
    // Pointing it at the SDK in use removes the warning.
    let env = env.with_var(
        "HIP_PATH",
        system.parent().unwrap().join("usr").display().to_string(),
    );
    let r = report_from(&env, &amd_loaded(&in_use, v(5, 2, 21153)));
    assert!(
        !has_warning(&r, Severity::Warning, &["names a different HIP SDK"]),
        "{r}"
    );
    assert!(
        has_warning(&r, Severity::Warning, &["HIP_PATH=", "does not exist"]),
        "{r}"
    );
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn a_runtime_in_a_folder_anyone_can_write_is_a_warning() {
    use std::os::unix::fs::PermissionsExt;
    let root = temp_root("world-writable");
    let in_use = root.join("lib/libamdhip64.so.6.4.43483");
    write(&in_use, "runtime");
    let lib = root.join("lib");
    let env = Environment::empty();
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o755)).unwrap();
    let r = report_from(&env, &amd_loaded(&in_use, v(6, 4, 43483)));
    assert!(
        !has_warning(&r, Severity::Warning, &["where anyone can write"]),
        "{r}"
    );
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o777)).unwrap();
    let r = report_from(&env, &amd_loaded(&in_use, v(6, 4, 43483)));
    assert!(
        has_warning(
            &r,
            Severity::Warning,
            &[
                "HIP runtime in use",
                "where anyone can write",
                "folder",
                "writable by all users"
            ]
        ),
        "{r}"
    );
    // The file itself writable by all, in a private folder.
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&in_use, std::fs::Permissions::from_mode(0o666)).unwrap();
    let r = report_from(&env, &amd_loaded(&in_use, v(6, 4, 43483)));
    assert!(
        has_warning(
            &r,
            Severity::Warning,
            &["the file", "writable by all users"]
        ),
        "{r}"
    );
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn an_sdk_root_with_a_multiarch_folder_holds_the_runtime() {
    // Debian: HIP_PATH=/usr, runtime in /usr/lib/<arch>-linux-gnu.
    let root = temp_root("multiarch");
    let multiarch = root.join(format!("lib/{}-linux-gnu", std::env::consts::ARCH));
    let in_use = multiarch.join("libamdhip64.so.5.2.21153");
    write(&in_use, "runtime");
    let env = Environment::empty().with_var("HIP_PATH", root.display().to_string());
    let r = report_from(&env, &amd_loaded(&in_use, v(5, 2, 21153)));
    assert_eq!(
        variable(&r, "HIP_PATH").assessment.as_deref(),
        Some("holds the runtime in use")
    );
    assert!(
        r.warnings.iter().all(|w| !w.message.contains("HIP_PATH")),
        "{r}"
    );
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn rocm_path_holding_the_runtime_in_use_is_fine() {
    let root = temp_root("rocm-path");
    let lib = root.join("lib");
    write(&lib.join("libamdhip64.so.6.4.43483"), "runtime");
    symlink(
        Path::new("libamdhip64.so.6.4.43483"),
        &lib.join("libamdhip64.so.6"),
    );
    let env = Environment::empty().with_var("ROCM_PATH", root.display().to_string());
    let r = report_from(
        &env,
        &amd_loaded(&lib.join("libamdhip64.so.6"), v(6, 4, 43483)),
    );
    assert_eq!(
        variable(&r, "ROCM_PATH").assessment.as_deref(),
        Some("holds the runtime in use")
    );
    assert!(
        r.warnings.iter().all(|w| !w.message.contains("ROCM_PATH")),
        "{r}"
    );
    assert_eq!(r.libraries[0].file_version.as_deref(), Some("6.4.43483"));
    assert_eq!(r.versions.consistent, Some(true));
    assert_eq!(r.versions.runtime.as_deref(), Some("6.4.43483"));
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
/// A rocBLAS installation with kernels for gfx90a and gfx1030 only.
fn fake_rocblas(lib: &Path, kernel_dir: &Path) {
    write(&lib.join("librocblas.so.4.2.0"), "rocblas");
    symlink(
        Path::new("librocblas.so.4.2.0"),
        &lib.join("librocblas.so.4"),
    );
    write(&lib.join("libhipblas.so.2.4.0"), "hipblas");
    symlink(Path::new("libhipblas.so.2.4.0"), &lib.join("libhipblas.so"));
    for f in [
        "TensileLibrary_gfx90a.dat",
        "TensileLibrary_Type_HH_Contraction_l_Ailk_Bljk_Cijk_Dijk_gfx90a.co",
        "Kernels.so-000-gfx90a-xnack+.hsaco",
        "TensileLibrary_Type_SS_Contraction_l_Alik_Bjlk_Cijk_Dijk_gfx1030.co",
    ] {
        write(&kernel_dir.join(f), "kernels");
    }
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn a_device_without_rocblas_kernels_is_an_error() {
    let root = temp_root("rocblas");
    let lib = root.join("lib");
    fake_rocblas(&lib, &lib.join("rocblas/library"));
    write(&lib.join("libamdhip64.so.6"), "runtime");
    let env = Environment::empty().with_var("ROCM_PATH", root.display().to_string());
    let mut rt = amd_loaded(&lib.join("libamdhip64.so.6"), v(6, 4, 0));
    rt.devices = Ok(vec![
        device(0, "AMD Instinct MI210", "gfx90a:sramecc+:xnack-"),
        device(1, "AMD Radeon RX 5700 XT", "gfx1010:xnack-"),
    ]);
    let r = report_from(&env, &rt);

    let rocblas = r.rocblas.as_ref().expect("rocBLAS section on AMD");
    assert!(rocblas
        .library
        .as_deref()
        .unwrap()
        .ends_with("librocblas.so.4.2.0"));
    assert!(rocblas
        .kernel_dir
        .as_deref()
        .unwrap()
        .ends_with("rocblas/library"));
    assert_eq!(rocblas.processors_available, ["gfx1030", "gfx90a"]);
    assert_eq!(
        rocblas.per_processor,
        [
            ProcessorKernels {
                processor: "gfx90a".into(),
                files: 3
            },
            ProcessorKernels {
                processor: "gfx1010".into(),
                files: 0
            },
        ]
    );
    assert_eq!(r.devices[0].rocblas_kernels, Some(true));
    assert_eq!(r.devices[1].rocblas_kernels, Some(false));
    assert!(
        has_warning(
            &r,
            Severity::Error,
            &["device 1", "RX 5700 XT", "names gfx1010", "gfx1030, gfx90a"]
        ),
        "{r}"
    );
    assert!(!has_warning(&r, Severity::Error, &["device 0"]), "{r}");
    assert_eq!(r.worst(), Some(Severity::Error));
    assert_eq!(r.warnings[0].severity, Severity::Error, "most severe first");

    // Devices' precision support comes from their architecture.
    assert!(r.devices[0].f16 && r.devices[0].bf16);
    assert!(r.devices[1].f16 && !r.devices[1].bf16);

    // Versions come from the file names.
    let versions: Vec<(&str, Option<&str>)> = r
        .blas_libraries
        .iter()
        .map(|b| (b.name.as_str(), b.version.as_deref()))
        .collect();
    assert_eq!(
        versions,
        [("rocBLAS", Some("4.2.0")), ("hipBLAS", Some("2.4.0"))]
    );
    let text = r.to_string();
    assert!(text.contains("rocBLAS kernels no"), "{text}");
    assert!(text.contains("gfx1010: 0 files"), "{text}");
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn debian_layout_and_tensile_override_are_followed() {
    let root = temp_root("rocblas-debian");
    let lib = root.join("usr-lib");
    fake_rocblas(&lib, &lib.join("rocblas/5.3.3/library"));
    let env = Environment::empty().with_system_lib_dirs(vec![lib.clone()]);
    let mut rt = amd_loaded(&lib.join("libamdhip64.so.5"), v(5, 7, 0));
    rt.devices = Ok(vec![device(0, "gfx1030 card", "gfx1030")]);
    let r = report_from(&env, &rt);
    let rocblas = r.rocblas.as_ref().unwrap();
    assert!(rocblas
        .kernel_dir
        .as_deref()
        .unwrap()
        .ends_with("rocblas/5.3.3/library"));
    assert_eq!(r.devices[0].rocblas_kernels, Some(true), "{r}");

    // ROCBLAS_TENSILE_LIBPATH replaces the folder: an empty one has nothing.
    let empty = root.join("empty-kernels");
    std::fs::create_dir_all(&empty).unwrap();
    let env = env.with_var("ROCBLAS_TENSILE_LIBPATH", empty.display().to_string());
    let r = report_from(&env, &rt);
    assert_eq!(r.devices[0].rocblas_kernels, Some(false), "{r}");
    assert!(
        has_warning(&r, Severity::Error, &["names gfx1030", "kernels for: none"]),
        "{r}"
    );
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
/// Builds `libname` as a real shared library that needs `needed`, then
/// removes `needed`: the loader finds the candidate but not its dependency.
fn library_with_missing_dependency(dir: &Path, libname: &str, needed: &str) {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    write(&src.join("dep.c"), "int hip_diag_dep(void) { return 1; }\n");
    write(
        &src.join("top.c"),
        "int hip_diag_dep(void);\nint hip_diag_top(void) { return hip_diag_dep(); }\n",
    );
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let run = |args: &[&str]| {
        let out = std::process::Command::new(&cc)
            .args(args)
            .current_dir(&src)
            .output()
            .unwrap_or_else(|e| panic!("this test needs a C compiler ({cc}): {e}"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let soname = format!("-Wl,-soname,{needed}");
    run(&["-shared", "-fPIC", "-o", needed, &soname, "dep.c"]);
    let output = dir.join(libname);
    let link = format!("-l:{needed}");
    run(&[
        "-shared",
        "-fPIC",
        "-o",
        output.to_str().unwrap(),
        "top.c",
        "-L.",
        "-Wl,--no-as-needed",
        &link,
    ]);
    std::fs::remove_file(src.join(needed)).unwrap();
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn unreadable_and_incomplete_libraries_are_named() {
    let root = temp_root("unreadable");
    let lib = root.join("lib");
    std::fs::create_dir_all(&lib).unwrap();
    library_with_missing_dependency(&lib, "libamdhip64.so.7", "libhipdiag_comgr.so.2");
    // A link left behind by an uninstall.
    symlink(
        &lib.join("libamdhip64.so.6.4.43483"),
        &lib.join("libamdhip64.so.6"),
    );
    // A folder where a file should be.
    std::fs::create_dir_all(lib.join("libamdhip64.so.5")).unwrap();

    let env = Environment::empty().with_var(OVERRIDE, lib.display().to_string());
    let lookup = |k: &str| env.nonempty(k).map(PathBuf::from);
    let locations = amd_locations_from(Os::Unix, &lookup);
    let mut attempts: Vec<Attempt> = Vec::new();
    assert!(open_first("HIP runtime", &locations, RUNTIME_NAMES, &mut attempts).is_none());
    let rt = RuntimeFacts {
        loaded: None,
        load_problem: Some("no HIP runtime found".into()),
        attempts,
        runtime_version: Err("no runtime loaded".into()),
        driver_version: Err("no runtime loaded".into()),
        devices: Err("no runtime loaded".into()),
        collectives: Err("no HIP runtime loaded".into()),
    };
    let r = report_from(&env, &rt);
    let results: Vec<&CandidateResult> = r.candidates.iter().map(|c| &c.result).collect();
    assert_eq!(results.len(), 4, "{r}");
    assert_eq!(
        results[0],
        &CandidateResult::MissingDependency {
            name: "libhipdiag_comgr.so.2".into()
        }
    );
    assert!(
        matches!(results[1], CandidateResult::Unreadable { detail } if detail.contains("which does not exist")),
        "{:?}",
        results[1]
    );
    assert!(
        matches!(results[2], CandidateResult::Unreadable { detail } if detail.contains("Is a directory")),
        "{:?}",
        results[2]
    );
    assert_eq!(results[3], &CandidateResult::NotFound);

    assert_eq!(r.platform, None);
    assert!(
        has_warning(&r, Severity::Error, &["no HIP runtime loaded"]),
        "{r}"
    );
    assert!(
        has_warning(
            &r,
            Severity::Error,
            &[
                "libamdhip64.so.7",
                "needs libhipdiag_comgr.so.2",
                "LD_LIBRARY_PATH"
            ]
        ),
        "{r}"
    );
    assert!(
        has_warning(&r, Severity::Error, &["libamdhip64.so.5", "unreadable"]),
        "{r}"
    );
    assert_eq!(r.versions.consistent, None);
    assert!(r.rocblas.is_none() || r.blas_libraries.is_empty());

    // The JSON form exists with the `json` feature (on in the workspace's
    // test runs: the examples enable it).
    #[cfg(feature = "json")]
    {
        let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(json["platform"], serde_json::Value::Null);
        assert_eq!(
            json["candidates"][0]["result"]["kind"],
            "missing_dependency"
        );
        assert_eq!(
            json["candidates"][0]["result"]["name"],
            "libhipdiag_comgr.so.2"
        );
        assert_eq!(json["warnings"][0]["severity"], "error");
    }
}

#[cfg(unix)]
const OVERRIDE: &str = hip_sys::loader::OVERRIDE_VAR;

#[test]
fn a_missing_windows_comgr_is_named_with_a_windows_remedy() {
    let candidate = Path::new("C:/sdk/bin/amdhip64_6.dll");
    let outcome: Result<(), String> = Err(
        "needs amd_comgr_2.dll, found in none of: C:/sdk/bin, C:/windows/system32 (LoadLibraryExW: os error 126)".into(),
    );
    assert_eq!(
        CandidateResult::classify(candidate, &outcome),
        CandidateResult::MissingDependency {
            name: "amd_comgr_2.dll".into()
        }
    );
    let c = Candidate {
        role: "HIP runtime".into(),
        path: candidate.display().to_string(),
        source: "HIP_PATH".into(),
        result: CandidateResult::classify(candidate, &outcome),
    };
    let mut warnings = Vec::new();
    candidate_warnings(&[c], false, &mut warnings);
    let text = &warnings[0].message;
    assert!(text.contains("needs amd_comgr_2.dll"), "{text}");
    assert!(
        text.contains("HIP SDK installs it in its bin folder"),
        "{text}"
    );
    assert!(
        text.contains("folder of the library that needs it"),
        "{text}"
    );
    assert!(!text.contains("LD_LIBRARY_PATH"), "{text}");
    assert_eq!(
        CandidateResult::classify(
            Path::new("amdhip64_6.dll"),
            &Err(
                "no such file in the application folder or the system folder (LoadLibraryExW: 126)"
                    .into()
            )
        ),
        CandidateResult::NotFound
    );
}

#[test]
fn hip_path_of_another_major_release_than_the_runtime_is_a_warning() {
    let root = temp_root("sdk-mismatch");
    let sdk = root.join("6.1");
    std::fs::create_dir_all(sdk.join("bin")).unwrap();
    let in_use = root.join("system32").join("amdhip64_7.dll");
    write(&in_use, "stands for the driver's runtime");
    let env = Environment::empty().with_var("HIP_PATH", sdk.display().to_string());
    let r = report_from(&env, &amd_loaded(&in_use, v(7, 1, 51803)));
    assert!(
        has_warning(
            &r,
            Severity::Warning,
            &["names HIP SDK 6.1", "7.1.51803", "amdhip64_7.dll"]
        ),
        "{:#?}",
        r.warnings
    );
    let r = report_from(&env, &amd_loaded(&in_use, v(6, 4, 50101)));
    assert!(
        r.warnings
            .iter()
            .all(|w| !w.message.contains("names HIP SDK")),
        "{:#?}",
        r.warnings
    );
}

#[test]
fn loader_messages_are_classified() {
    let c = Path::new("/opt/rocm/lib/libamdhip64.so.6");
    let r = |m: &str| CandidateResult::classify(c, &Err(m.to_owned()));
    assert_eq!(
        r("libamd_comgr.so.2: cannot open shared object file: No such file or directory"),
        CandidateResult::MissingDependency {
            name: "libamd_comgr.so.2".into()
        }
    );
    assert_eq!(
        r("/opt/rocm/lib/libamdhip64.so.6: cannot open shared object file: No such file or directory"),
        CandidateResult::NotFound
    );
    assert_eq!(
        CandidateResult::classify(
            Path::new("libamdhip64.so.7"),
            &Err(
                "libamdhip64.so.7: cannot open shared object file: No such file or directory"
                    .into()
            )
        ),
        CandidateResult::NotFound
    );
    assert!(matches!(
        r("/opt/rocm/lib/libamdhip64.so.6: symbol hsa_amd_x version ROCR_1 not defined in file libhsa-runtime64.so.1 with link time reference: version `ROCR_1' not found"),
        CandidateResult::WrongVersion { .. }
    ));
    assert!(matches!(
        r("/opt/rocm/lib/libamdhip64.so.6: wrong ELF class: ELFCLASS32"),
        CandidateResult::NotALibrary { .. }
    ));
    assert!(matches!(
        r("/opt/rocm/lib/libamdhip64.so.6: cannot open shared object file: Permission denied"),
        CandidateResult::Unreadable { .. }
    ));
    assert!(matches!(r("something new"), CandidateResult::Failed { .. }));
    assert_eq!(
        CandidateResult::classify(c, &Ok(())),
        CandidateResult::Loaded
    );
}

#[test]
fn versions_are_compared_per_platform() {
    let mut rt = amd_loaded(Path::new("/x/libamdhip64.so.6"), v(6, 4, 0));
    rt.driver_version = Ok(60_200_000);
    let r = report_from(&Environment::empty(), &rt);
    assert_eq!(r.versions.consistent, Some(false));
    assert!(
        has_warning(&r, Severity::Warning, &["HIP 6.4", "6.2", "mixed"]),
        "{r}"
    );

    let mut nv = rt.clone();
    nv.loaded.as_mut().unwrap().platform = Platform::Nvidia;
    nv.runtime_version = Ok(13_000);
    nv.driver_version = Ok(12_080);
    let r = report_from(&Environment::empty(), &nv);
    assert_eq!(r.versions.runtime.as_deref(), Some("13.0.0"));
    assert_eq!(r.versions.consistent, Some(false));
    assert!(
        has_warning(
            &r,
            Severity::Warning,
            &["CUDA 12.8 only", "update the NVIDIA driver"]
        ),
        "{r}"
    );
    assert!(r.rocblas.is_none(), "no rocBLAS section on nvidia");
    nv.driver_version = Ok(13_000);
    assert_eq!(
        report_from(&Environment::empty(), &nv).versions.consistent,
        Some(true)
    );

    let mut old = amd_loaded(Path::new("/x/libamdhip64.so.5"), v(5, 2, 21153));
    old.runtime_version = Ok(50_221_153);
    old.driver_version = Ok(50_221_153);
    let r = report_from(&Environment::empty(), &old);
    assert_eq!(r.versions.consistent, Some(true));
    assert!(
        has_warning(&r, Severity::Warning, &["5.2.21153 is older than 5.7"]),
        "{r}"
    );
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn visibility_and_override_variables_are_explained() {
    let root = temp_root("visibility");
    let kfd = root.join("kfd");
    let env = Environment::empty()
        .with_var("HIP_VISIBLE_DEVICES", "")
        .with_var("ROCR_VISIBLE_DEVICES", "1")
        .with_var("HSA_OVERRIDE_GFX_VERSION", "10.3.0")
        .with_kfd(&kfd);
    let r = report_from(
        &env,
        &amd_loaded(Path::new("/x/libamdhip64.so.6"), v(6, 4, 0)),
    );
    assert!(
        has_warning(
            &r,
            Severity::Warning,
            &["HIP_VISIBLE_DEVICES=\"\" hides every device"]
        ),
        "{r}"
    );
    assert_eq!(
        variable(&r, "ROCR_VISIBLE_DEVICES").assessment.as_deref(),
        Some("only devices 1 are visible")
    );
    assert!(
        has_warning(&r, Severity::Info, &["present themselves as gfx1030"]),
        "{r}"
    );
    assert!(
        has_warning(
            &r,
            Severity::Error,
            &[
                "no GPU device",
                "HIP_VISIBLE_DEVICES=\"\"",
                "kfd does not exist"
            ]
        ),
        "{r}"
    );
    assert_eq!(r.versions.kernel_driver, None);
    std::fs::write(&kfd, "").unwrap();
    let module = root.join("amdgpu");
    std::fs::create_dir_all(&module).unwrap();
    let env = env.with_amdgpu_module(&module);
    assert_eq!(
        report_from(
            &env,
            &amd_loaded(Path::new("/x/libamdhip64.so.6"), v(6, 4, 0))
        )
        .versions
        .kernel_driver
        .as_deref(),
        Some("amdgpu of the Linux kernel (no separate version)")
    );
    std::fs::write(module.join("version"), "6.10.5\n").unwrap();
    let r = report_from(
        &env,
        &amd_loaded(Path::new("/x/libamdhip64.so.6"), v(6, 4, 0)),
    );
    assert!(
        has_warning(&r, Severity::Error, &["kfd exists", "render"]),
        "{r}"
    );
    assert_eq!(r.versions.kernel_driver.as_deref(), Some("amdgpu 6.10.5"));
    assert!(r.to_string().contains("kernel driver: amdgpu 6.10.5"));

    let env = Environment::empty()
        .with_var("HIP_VISIBLE_DEVICES", "0")
        .with_var("HSA_OVERRIDE_GFX_VERSION", "10.3");
    let mut nv = amd_loaded(Path::new("/x/libcudart.so.13"), v(13, 0, 0));
    nv.loaded.as_mut().unwrap().platform = Platform::Nvidia;
    let r = report_from(&env, &nv);
    assert!(
        has_warning(
            &r,
            Severity::Info,
            &["HIP_VISIBLE_DEVICES=0 is read by ROCm only"]
        ),
        "{r}"
    );
    assert!(
        has_warning(
            &r,
            Severity::Warning,
            &["HSA_OVERRIDE_GFX_VERSION=10.3 is not"]
        ),
        "{r}"
    );
    assert!(has_warning(&r, Severity::Error, &["nvidia-smi"]), "{r}");
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn cuda_folders_are_checked_against_the_cuda_runtime_in_use() {
    let root = temp_root("cuda");
    let in_use = root.join("cuda-13.0/lib64/libcudart.so.13.0.96");
    write(&in_use, "cudart 13");
    let other = root.join("cuda-12.9/lib64/libcudart.so.12.9.79");
    write(&other, "cudart 12");
    let mut nv = amd_loaded(&in_use, v(13, 0, 0));
    let loaded = nv.loaded.as_mut().unwrap();
    loaded.platform = Platform::Nvidia;
    loaded.libraries[0].role = "CUDA runtime";
    let env = Environment::empty()
        .with_var("CUDA_PATH", root.join("cuda-13.0").display().to_string())
        .with_var("CUDA_HOME", root.join("cuda-12.9").display().to_string());
    let r = report_from(&env, &nv);
    assert_eq!(
        variable(&r, "CUDA_PATH").assessment.as_deref(),
        Some("holds the CUDA runtime in use")
    );
    assert!(
        has_warning(
            &r,
            Severity::Warning,
            &["CUDA_HOME=", "names another CUDA", "libcudart.so.12.9.79"]
        ),
        "{r}"
    );
    assert!(
        r.warnings.iter().all(|w| !w.message.contains("CUDA_PATH")),
        "{r}"
    );
}

#[cfg(unix)] // a Linux ROCm tree: see the top of this file
#[test]
fn text_and_json_carry_the_same_facts() {
    let mut rt = amd_loaded(Path::new("/x/libamdhip64.so.6.4.43483"), v(6, 4, 43483));
    rt.devices = Ok(vec![device(
        0,
        "AMD Instinct MI210",
        "gfx90a:sramecc+:xnack-",
    )]);
    let r = report_from(&Environment::empty().with_var("HIP_PLATFORM", "amd"), &rt);
    let text = r.to_string();
    for part in [
        "platform: amd (AMD runtime found)",
        "HIP runtime: /x/libamdhip64.so.6.4.43483 (file version 6.4.43483)",
        "[0] AMD Instinct MI210, arch gfx90a:sramecc+:xnack-, 16.0 GiB, 40 compute units",
        "f16 yes, bf16 yes",
        "HIP_PLATFORM=\"amd\": asks for the amd platform",
        "consistent: runtime and driver are both HIP 6.4",
    ] {
        assert!(text.contains(part), "missing {part:?} in:\n{text}");
    }
    #[cfg(feature = "json")]
    {
        let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(json["platform"], "amd");
        assert_eq!(json["devices"][0]["processor"], "gfx90a");
        assert_eq!(json["devices"][0]["total_memory_bytes"], 16u64 << 30);
        assert_eq!(json["devices"][0]["bf16"], true);
        assert_eq!(json["versions"]["runtime_raw"], 60_443_483);
        assert_eq!(json["libraries"][0]["file_version"], "6.4.43483");
    }

    // A bare soname names no version worth showing.
    let mut nv = amd_loaded(Path::new("libcuda.so.1"), v(13, 0, 0));
    nv.loaded.as_mut().unwrap().platform = Platform::Nvidia;
    let r = report_from(&Environment::empty(), &nv);
    assert_eq!(r.libraries[0].file_version, None);
}

/// Tier 2: the machine's real runtime. CI installs Debian 12's ROCm 5.2.3
/// (`libamdhip64-5`) and has no GPU.
#[cfg(unix)] // tier 2: Debian's AMD runtime for Linux
#[test]
fn tier2_real_runtime_is_named_and_says_no_device() {
    let r = report();
    assert_eq!(
        r.platform.as_deref(),
        Some("amd"),
        "tier 2 needs the AMD runtime: apt-get install libamdhip64-5 rocm-device-libs (Debian 12)\n{r}"
    );
    let lib = &r.libraries[0];
    assert!(lib.path.contains("libamdhip64.so.5"), "{r}");
    assert_eq!(
        lib.file_version.as_deref().map(|v| &v[..4]),
        Some("5.2."),
        "{r}"
    );
    assert!(r
        .candidates
        .iter()
        .any(|c| c.result == CandidateResult::Loaded && c.path.contains("libamdhip64.so.5")));
    assert_eq!(
        r.versions.runtime.as_deref().map(|v| &v[..4]),
        Some("5.2."),
        "{r}"
    );
    assert!(r.devices.is_empty());
    assert!(
        r.device_error
            .as_deref()
            .unwrap_or("")
            .contains("hipErrorNoDevice"),
        "{r}"
    );
    assert!(
        has_warning(&r, Severity::Error, &["no GPU device", "hipErrorNoDevice"]),
        "{r}"
    );
    println!("{r}");
}

/// Tier 3: on a GPU machine (`HIP_PLATFORM=nvidia` on the NVIDIA runner),
/// the report lists every device with plausible properties.
#[test]
#[ignore = "needs a GPU"]
fn gpu_devices_are_listed() {
    let r = report();
    println!("{r}");
    assert!(r.platform.is_some(), "{r}");
    assert!(!r.devices.is_empty(), "{r}");
    for d in &r.devices {
        assert!(d.error.is_none(), "{d:?}");
        assert!(!d.name.is_empty(), "{d:?}");
        assert!(!d.arch.is_empty(), "{d:?}");
        assert!(d.total_memory_bytes >= 1 << 30, "{d:?}");
        assert!(d.compute_units > 0, "{d:?}");
        assert!(d.f16, "every GPU HIP supports has native f16: {d:?}");
    }
    assert!(
        r.warnings.iter().all(|w| w.severity != Severity::Error),
        "{r}"
    );
}

#[test]
fn the_collectives_library_is_named_with_its_version_or_why_not() {
    let env = Environment::empty();
    let mut rt = amd_loaded(Path::new("/opt/rocm/lib/libamdhip64.so.6"), v(6, 4, 0));
    let r = report_from(&env, &rt);
    assert_eq!(r.collectives.library, None);
    let text = r.to_string();
    assert!(
        text.contains(
            "collectives library: none (no RCCL found for the amd platform; tried 4 paths)"
        ),
        "{text}"
    );

    rt.collectives = Ok(CollectivesFacts {
        role: "RCCL",
        path: PathBuf::from("/opt/rocm/lib/librccl.so.1"),
        file_version: Some(v(1, 0, 60403)),
        api_version: Ok(21304),
    });
    let r = report_from(&env, &rt);
    assert_eq!(r.collectives.api_version.as_deref(), Some("2.13.4 (21304)"));
    let text = r.to_string();
    assert!(
        text.contains("collectives library: RCCL at /opt/rocm/lib/librccl.so.1 (file version 1.0.60403), NCCL API 2.13.4 (21304)"),
        "{text}"
    );

    rt.collectives = Ok(CollectivesFacts {
        role: "NCCL",
        path: PathBuf::from("libnccl.so.2"),
        file_version: None,
        api_version: Err("the library has no ncclGetVersion".into()),
    });
    let text = report_from(&env, &rt).to_string();
    assert!(
        text.contains("collectives library: NCCL at libnccl.so.2, version unknown: the library has no ncclGetVersion"),
        "{text}"
    );
}
