//! Windows: the HIP runtime's search order, hijack-proof loading, a missing
//! COMGR DLL and an SDK/runtime mismatch, against the stub HIP SDKs of
//! scripts/windows/build-stubs.sh, under Wine (scripts/wine-tier.sh).
//!
//! Each test runs its body in a child process of its own ([`Scenario`]):
//! the runtime is loaded once per process, and each needs its own
//! variables, working folder or application folder. A test without the
//! stub SDKs (`HIP_TEST_WINDOWS_STUBS`) fails; it never skips.
#![cfg(windows)]

use hip_sys::loader::{self, Attempt, Runtime, Version, OVERRIDE_VAR};
use std::path::{Path, PathBuf};
use test_kit::{
    copy_files, in_scenario, partial_sdk, same_file, scratch_dir, stub_bin, stub_sdk, stub_sdks,
    Scenario,
};

/// The stubs' `hipRuntimeGetVersion` answers, per SDK (build-stubs.sh).
fn hip_version(release: &str) -> Version {
    let v = match release {
        "5.7" => 50_731_921,
        "6.1" => 60_140_252,
        "6.2" => 60_241_512,
        "6.4" => 60_450_101,
        "7.1" => 70_151_803,
        other => panic!("no stub SDK {other}"),
    };
    Version::from_hip(v)
}

/// The loaded runtime, printed with every attempt.
fn loaded() -> &'static Runtime {
    let rt = match loader::runtime() {
        Ok(rt) => rt,
        Err(e) => panic!("no runtime loaded:\n{e}"),
    };
    println!(
        "loaded {:?} {} ({})",
        rt.libraries, rt.version, rt.platform_reason
    );
    print_attempts(&rt.attempts);
    rt
}

fn print_attempts(attempts: &[Attempt]) {
    for a in attempts {
        println!("  [{}] {a}", a.role);
    }
}

/// The sources of the runtime's attempts, each once, in order.
fn sources_in_order(attempts: &[Attempt]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for a in attempts.iter().filter(|a| a.role == "HIP runtime") {
        if out.last() != Some(&a.source) {
            out.push(a.source.clone());
        }
    }
    out
}

fn assert_runtime_from(rt: &Runtime, bin: &Path, file: &str, release: &str) {
    assert!(
        same_file(&rt.libraries[0].path, &bin.join(file)),
        "loaded {} instead of {}",
        rt.libraries[0].path.display(),
        bin.join(file).display()
    );
    assert_eq!(rt.version, hip_version(release));
}

/// An application folder holding the 7.1 runtime and its COMGR: what the
/// system search (`LOAD_LIBRARY_SEARCH_DEFAULT_DIRS`) finds, standing in
/// for the driver's copy in System32.
fn app_dir_with_the_7_1_runtime(name: &str) -> PathBuf {
    let dir = scratch_dir(name);
    copy_files(
        &stub_bin("7.1"),
        &dir,
        &["amdhip64_7.dll", "amd_comgr0701.dll"],
    );
    dir
}

/// `PATH` of one folder that holds nothing.
fn empty_path(name: &str) -> PathBuf {
    scratch_dir(&format!("{name}-empty-path"))
}

#[test]
fn override_wins_over_every_other_place() {
    if in_scenario("override_wins_over_every_other_place") {
        let rt = loaded();
        assert_runtime_from(rt, &stub_bin("6.4"), "amdhip64_6.dll", "6.4");
        assert_eq!(sources_in_order(&rt.attempts), [OVERRIDE_VAR]);
        return;
    }
    Scenario::amd("override_wins_over_every_other_place")
        .var(OVERRIDE_VAR, stub_bin("6.4"))
        .var("HIP_PATH", stub_sdk("6.1"))
        .var("ROCM_PATH", stub_sdk("6.2"))
        .var("PATH", stub_bin("5.7"))
        .app_dir(&app_dir_with_the_7_1_runtime("override"))
        .run();
}

#[test]
fn hip_path_wins_over_rocm_path_path_and_the_system() {
    if in_scenario("hip_path_wins_over_rocm_path_path_and_the_system") {
        let rt = loaded();
        assert_runtime_from(rt, &stub_bin("6.1"), "amdhip64_6.dll", "6.1");
        assert_eq!(sources_in_order(&rt.attempts), ["HIP_PATH"]);
        // amdhip64_7.dll first (not there), then amdhip64_6.dll.
        let runtime: Vec<&Attempt> = rt
            .attempts
            .iter()
            .filter(|a| a.role == "HIP runtime")
            .collect();
        assert_eq!(runtime.len(), 2, "{runtime:?}");
        assert!(runtime[0].candidate.ends_with("amdhip64_7.dll"));
        assert_eq!(runtime[0].outcome, Err("no such file".into()));
        // Its hiprtc, beside it, named by the runtime's version.
        assert!(same_file(
            &rt.libraries[1].path,
            &stub_bin("6.1").join("hiprtc0601.dll")
        ));
        assert!(rt.warnings.is_empty(), "{:?}", rt.warnings);
        return;
    }
    // HIP_PATH as AMD's installer sets it, with a trailing backslash.
    let mut hip_path = stub_sdk("6.1").into_os_string();
    hip_path.push("\\");
    Scenario::amd("hip_path_wins_over_rocm_path_path_and_the_system")
        .var("HIP_PATH", hip_path)
        .var("ROCM_PATH", stub_sdk("6.2"))
        .var("PATH", stub_bin("5.7"))
        .app_dir(&app_dir_with_the_7_1_runtime("hip-path"))
        .run();
}

#[test]
fn rocm_path_wins_over_path_and_the_system() {
    if in_scenario("rocm_path_wins_over_path_and_the_system") {
        let rt = loaded();
        assert_runtime_from(rt, &stub_bin("6.2"), "amdhip64_6.dll", "6.2");
        // HIP_PATH (an SDK without a runtime) was tried first.
        assert_eq!(sources_in_order(&rt.attempts), ["HIP_PATH", "ROCM_PATH"]);
        return;
    }
    Scenario::amd("rocm_path_wins_over_path_and_the_system")
        .var("HIP_PATH", scratch_dir("sdk-without-runtime"))
        .var("ROCM_PATH", stub_sdk("6.2"))
        .var("PATH", stub_bin("5.7"))
        .app_dir(&app_dir_with_the_7_1_runtime("rocm-path"))
        .run();
}

#[test]
fn path_entries_win_over_the_system_in_order() {
    if in_scenario("path_entries_win_over_the_system_in_order") {
        let rt = loaded();
        assert_runtime_from(rt, &stub_bin("5.7"), "amdhip64.dll", "5.7");
        assert_eq!(
            sources_in_order(&rt.attempts),
            [
                "PATH entry 1",
                "PATH entry 2",
                "PATH entry 3",
                "PATH entry 4"
            ]
        );
        let by = |source: &str| -> Vec<&Attempt> {
            rt.attempts.iter().filter(|a| a.source == source).collect()
        };
        assert_eq!(
            by("PATH entry 2")[0].outcome,
            Err(loader::search::RELATIVE.into())
        );
        assert_eq!(
            by("PATH entry 3")[0].outcome,
            Err(loader::search::EMPTY.into())
        );
        // SDK 5.7: hiprtc is a DLL of its own there too.
        assert!(same_file(
            &rt.libraries[1].path,
            &stub_bin("5.7").join("hiprtc0507.dll")
        ));
        return;
    }
    let missing = stub_sdks().join("no-such-folder");
    let path = format!(
        "{};relative\\bin;;{};{}",
        missing.display(),
        stub_bin("5.7").display(),
        stub_bin("6.4").display()
    );
    Scenario::amd("path_entries_win_over_the_system_in_order")
        .var("PATH", path)
        .app_dir(&app_dir_with_the_7_1_runtime("path"))
        .run();
}

#[test]
fn the_system_is_searched_last() {
    if in_scenario("the_system_is_searched_last") {
        let rt = loaded();
        let app = std::env::current_exe().unwrap();
        assert_runtime_from(rt, app.parent().unwrap(), "amdhip64_7.dll", "7.1");
        assert_eq!(
            sources_in_order(&rt.attempts),
            ["PATH entry 1", "system loader"]
        );
        let last = rt
            .attempts
            .iter()
            .rfind(|a| a.role == "HIP runtime")
            .unwrap();
        assert_eq!(last.candidate, Path::new("amdhip64_7.dll"));
        return;
    }
    Scenario::amd("the_system_is_searched_last")
        .var("PATH", empty_path("system"))
        .app_dir(&app_dir_with_the_7_1_runtime("system"))
        .run();
}

#[test]
fn hip_path_at_sdk_6_with_a_7_runtime_found_later_is_a_warning() {
    if in_scenario("hip_path_at_sdk_6_with_a_7_runtime_found_later_is_a_warning") {
        let rt = loaded();
        assert_runtime_from(rt, &stub_bin("7.1"), "amdhip64_7.dll", "7.1");
        assert_eq!(rt.warnings.len(), 1, "{:?}", rt.warnings);
        let w = &rt.warnings[0];
        println!("warning: {w}");
        assert!(w.contains("names HIP SDK 6.1"), "{w}");
        assert!(w.contains("7.1.51803"), "{w}");
        assert!(w.contains("amdhip64_7.dll"), "{w}");
        return;
    }
    // SDK 6.1 whose bin lost its runtime (its .hipVersion stays), and the
    // 7.1 runtime on PATH.
    let sdk = partial_sdk("sdk61", "6.1", &[".hipVersion", "hiprtc0601.dll"]);
    Scenario::amd("hip_path_at_sdk_6_with_a_7_runtime_found_later_is_a_warning")
        .var("HIP_PATH", &sdk)
        .var("PATH", stub_bin("7.1"))
        .run();
}

#[test]
fn a_missing_comgr_dll_is_named() {
    if in_scenario("a_missing_comgr_dll_is_named") {
        let e = loader::runtime().expect_err("the runtime cannot load without its COMGR");
        let text = e.to_string();
        println!("{text}");
        let bin = PathBuf::from(std::env::var_os("HIP_PATH").unwrap()).join("bin");
        let tried = e
            .attempts
            .iter()
            .find(|a| a.candidate.ends_with("amdhip64_6.dll"))
            .expect("amdhip64_6.dll was tried");
        let reason = tried.outcome.as_ref().unwrap_err();
        assert!(
            reason.starts_with(&format!(
                "needs amd_comgr_2.dll, found in none of: {}",
                bin.display()
            )),
            "{reason}"
        );
        assert!(reason.to_ascii_lowercase().contains("system32"), "{reason}");
        assert!(
            text.contains("but it needs amd_comgr_2.dll, which the loader cannot find (put it in the folder of the library that needs it)"),
            "{text}"
        );
        return;
    }
    let sdk = partial_sdk(
        "no-comgr",
        "6.4",
        &["amdhip64_6.dll", "hiprtc0604.dll", ".hipVersion"],
    );
    Scenario::amd("a_missing_comgr_dll_is_named")
        .var("HIP_PATH", &sdk)
        .var("PATH", empty_path("no-comgr"))
        .run();
}

#[link(name = "kernel32")]
extern "system" {
    fn LoadLibraryW(name: *const u16) -> isize;
    fn GetProcAddress(module: isize, name: *const u8) -> *const core::ffi::c_void;
}

#[test]
fn a_runtime_planted_in_the_working_folder_is_not_loaded() {
    if in_scenario("a_runtime_planted_in_the_working_folder_is_not_loaded") {
        let cwd = std::env::current_dir().unwrap();
        assert!(cwd.join("amdhip64_6.dll").is_file());
        // Ours first: the plain load below would make the planted module
        // the process's `amdhip64_6.dll` for every later load by name.
        match loader::runtime() {
            Ok(rt) => panic!("loaded {:?} with nothing installed", rt.libraries),
            Err(e) => {
                print_attempts(&e.attempts);
                for a in &e.attempts {
                    let inside =
                        std::fs::canonicalize(a.candidate.parent().unwrap_or(Path::new("")))
                            .is_ok_and(|d| same_file(&d, &cwd));
                    assert!(!inside, "the working folder was searched: {a}");
                }
            }
        }
        // The control: Windows' standard search (LoadLibraryW, no flags)
        // does take the planted DLL from the working folder.
        let name: Vec<u16> = "amdhip64_6.dll\0".encode_utf16().collect();
        // SAFETY: a NUL-terminated wide string; the planted stub's
        // initialiser has no preconditions.
        let module = unsafe { LoadLibraryW(name.as_ptr()) };
        assert_ne!(module, 0, "the control load found no amdhip64_6.dll");
        // SAFETY: `module` is loaded; the name is NUL-terminated.
        let f = unsafe { GetProcAddress(module, c"hipRuntimeGetVersion".as_ptr().cast()) };
        assert!(!f.is_null());
        // SAFETY: the stub's `hipRuntimeGetVersion(int*)`.
        let f: unsafe extern "C" fn(*mut i32) -> i32 = unsafe { std::mem::transmute(f) };
        let mut v = 0;
        // SAFETY: `v` is a valid int to write.
        assert_eq!(unsafe { f(&mut v) }, 0);
        assert_eq!(v, 69_990_001, "the control loaded another amdhip64_6.dll");
        println!("control: LoadLibraryW took the planted amdhip64_6.dll (version {v})");
        return;
    }
    let planted = scratch_dir("planted");
    copy_files(
        &stub_sdks().join("planted"),
        &planted,
        &["amdhip64_6.dll", "amd_comgr_2.dll"],
    );
    // No loader variable set; Wine's own PATH (system32, windows).
    Scenario::new("a_runtime_planted_in_the_working_folder_is_not_loaded")
        .cwd(&planted)
        .run();
}

#[test]
fn an_override_without_the_runtime_fails_and_names_it() {
    if in_scenario("an_override_without_the_runtime_fails_and_names_it") {
        let dir = PathBuf::from(std::env::var_os(OVERRIDE_VAR).unwrap());
        let e = loader::runtime().expect_err("nothing in the override's folder");
        let text = e.to_string();
        println!("{text}");
        assert_eq!(e.attempts.len(), 3, "{text}");
        for a in &e.attempts {
            assert!(
                a.candidate.starts_with(&dir),
                "searched outside the override: {a}"
            );
            assert_eq!(a.source, OVERRIDE_VAR);
        }
        assert!(
            text.contains(&dir.join("amdhip64_6.dll").display().to_string()),
            "{text}"
        );
        return;
    }
    // Everything else would find a runtime: the override allows no fallback.
    Scenario::amd("an_override_without_the_runtime_fails_and_names_it")
        .var(OVERRIDE_VAR, scratch_dir("empty-override"))
        .var("HIP_PATH", stub_sdk("6.4"))
        .var("PATH", stub_bin("6.4"))
        .app_dir(&app_dir_with_the_7_1_runtime("empty-override-app"))
        .run();
}
