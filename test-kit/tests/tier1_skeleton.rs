//! The workspace's skeleton (docs/ARCHITECTURE.md, "One skeleton"),
//! checked in every library crate and every -sys crate at once.
//!
//! The crates are found from the workspace's folders, not listed here: a
//! library is a top-level folder `NAME/` with a sibling `NAME-sys/`, and a
//! -sys crate is a top-level folder ending in `-sys`. A new library is
//! therefore checked from its first commit. Each test gathers every
//! violation of its rule in every crate and fails once, listing them all.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The workspace root (this crate is `test-kit/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-kit sits in the workspace")
        .to_path_buf()
}

fn crate_folders() -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root())
        .expect("the workspace root can be read")
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The safe library crates: `NAME/` beside `NAME-sys/`.
fn libraries() -> Vec<String> {
    let folders = crate_folders();
    let found: Vec<String> = folders
        .iter()
        .filter(|n| folders.contains(&format!("{n}-sys")))
        .cloned()
        .collect();
    assert!(found.len() >= 8, "only {found:?} found as library crates");
    found
}

/// The -sys crates.
fn sys_crates() -> Vec<String> {
    let found: Vec<String> = crate_folders()
        .into_iter()
        .filter(|n| n.ends_with("-sys"))
        .collect();
    assert!(found.len() >= 9, "only {found:?} found as -sys crates");
    found
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{} could not be read: {e}", path.display()))
}

/// The -sys crates a library depends on (its `[dependencies]` named
/// `*-sys` that are workspace folders).
fn sys_dependencies(library: &str) -> Vec<PathBuf> {
    let manifest = read(&root().join(library).join("Cargo.toml"));
    let mut in_dependencies = false;
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if !in_dependencies {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or("");
        if name.ends_with("-sys") && root().join(name).join("Cargo.toml").is_file() {
            found.push(root().join(name));
        }
    }
    found
}

fn fail_on(violations: Vec<String>, rule: &str) {
    assert!(
        violations.is_empty(),
        "{rule} (docs/ARCHITECTURE.md, \"One skeleton\"):\n{}",
        violations.join("\n")
    );
}

#[test]
fn every_library_has_a_public_result_layer_that_alone_calls_its_sys_crates() {
    let mut violations = Vec::new();
    for library in libraries() {
        let dir = root().join(&library);
        let lib = test_kit::code_without_comments(&read(&dir.join("src/lib.rs")));
        if !lib.lines().any(|l| l.trim() == "pub mod result;") {
            violations.push(format!("{library}: lib.rs has no `pub mod result;`"));
        }
        let sys = sys_dependencies(&library);
        if sys.is_empty() {
            violations.push(format!("{library}: depends on no -sys crate"));
        }
        violations.extend(test_kit::raw_calls_outside_result(&dir, &sys));
    }
    fail_on(
        violations,
        "`result` is public, and only it calls the -sys crates",
    );
}

/// The raw functions cuda-compat itself defines under CUDA's names (its
/// `sys` modules: `cuda_functions!` entries of `src/generated/`, and the
/// hand-written `pub unsafe fn`s beside them): each calls one -sys
/// function.
fn cuda_compat_raw_functions() -> HashSet<String> {
    let src = root().join("cuda-compat/src");
    let mut names = HashSet::new();
    for file in test_kit::rust_sources(&src) {
        let rel = file.strip_prefix(&src).expect("under src");
        let generated = rel.starts_with("generated");
        let raw_module = rel.file_name().is_some_and(|n| n == "sys.rs");
        if !generated && !raw_module {
            continue;
        }
        for line in read(&file).lines() {
            let line = line.trim_start();
            let rest = line
                .strip_prefix("pub unsafe fn ")
                .or_else(|| line.strip_prefix("fn ").filter(|_| generated));
            if let Some(name) = rest.and_then(|r| r.split(['(', '<']).next()) {
                names.insert(name.trim().to_string());
            }
        }
    }
    assert!(
        names.len() > 1000,
        "only {} raw CUDA names found under {}",
        names.len(),
        src.display()
    );
    names
}

#[test]
fn cuda_compat_calls_our_result_layers_not_raw_names() {
    let src = root().join("cuda-compat/src");
    let mut raw = cuda_compat_raw_functions();
    for c in sys_crates() {
        raw.extend(test_kit::sys_functions(&root().join(c)));
    }
    // Everything but the raw half itself: `src/generated/` and the `sys`
    // modules.
    let files: Vec<PathBuf> = test_kit::rust_sources(&src)
        .into_iter()
        .filter(|f| {
            let rel = f.strip_prefix(&src).expect("under src");
            !rel.starts_with("generated") && !rel.ends_with("sys.rs")
        })
        .collect();
    assert!(files.len() >= 40, "only {} files found", files.len());
    fail_on(
        test_kit::uses_in(&files, &raw),
        "cuda-compat calls the safe crates' `result` layers, never a raw name \
         (its own CUDA names or the -sys crates'), outside its raw half \
         (`src/generated/`, the `sys` modules)",
    );
}

#[test]
fn every_library_re_exports_its_sys_crate_as_sys() {
    let mut violations = Vec::new();
    for library in libraries() {
        let lib = read(&root().join(&library).join("src/lib.rs"));
        let line = format!("pub use {}_sys as sys;", library.replace('-', "_"));
        if !lib.lines().any(|l| l.trim() == line) {
            violations.push(format!("{library}: lib.rs lacks `{line}`"));
        }
    }
    fail_on(
        violations,
        "every library re-exports its -sys crate as `sys`",
    );
}

#[test]
fn every_library_has_one_error_shape_and_its_drop_errors_in_error_rs() {
    let mut violations = Vec::new();
    for library in libraries() {
        let src = root().join(&library).join("src");
        let error = test_kit::code_without_comments(&read(&src.join("error.rs")));
        // hip's error type is written by hand (its runtime errors are
        // richer) and is the model; every other crate's is the kit's.
        let (text, kit) = if library == "hip" {
            (error.clone(), "hip")
        } else {
            if !error.contains("hip::library_error! {") {
                violations.push(format!(
                    "{library}: src/error.rs does not write its Error with hip::library_error!"
                ));
            }
            (
                test_kit::code_without_comments(&read(&root().join("hip/src/library_error.rs"))),
                "hip::library_error!",
            )
        };
        for (needle, what) in [
            ("Load(", "an `Error::Load` variant"),
            ("Invalid {", "an `Error::Invalid { .. }` variant"),
            ("Unsupported {", "an `Error::Unsupported { .. }` variant"),
            ("#[source]", "its status as the `#[source]`"),
            ("pub type Result<T, E = Error>", "the `Result` alias"),
            ("pub fn take_drop_errors(", "`take_drop_errors`"),
        ] {
            if !text.contains(needle) {
                violations.push(format!("{library}: {kit} lacks {what}"));
            }
        }
        for file in test_kit::rust_sources(&src) {
            if file.ends_with("error.rs") || file.ends_with("library_error.rs") {
                continue;
            }
            let code = test_kit::code_without_comments(&read(&file));
            if code.contains("fn take_drop_errors(") {
                violations.push(format!(
                    "{}: defines take_drop_errors (it belongs in src/error.rs)",
                    file.display()
                ));
            }
        }
        let lib = read(&src.join("lib.rs"));
        if !lib.contains("pub use error::{") || !lib.contains("take_drop_errors") {
            violations.push(format!(
                "{library}: lib.rs does not re-export error::{{Error, Result, take_drop_errors}}"
            ));
        }
    }
    fail_on(
        violations,
        "one error shape (Load, the status as source, Invalid, Unsupported) and drop errors in error.rs",
    );
}

#[test]
fn argument_checks_have_one_name() {
    let mut violations = Vec::new();
    for library in libraries() {
        let src = root().join(&library).join("src");
        for other in ["rules.rs", "checks.rs", "rules", "checks"] {
            if src.join(other).exists() {
                violations.push(format!(
                    "{library}: src/{other} (argument checks live in src/validate.rs)"
                ));
            }
        }
    }
    fail_on(violations, "argument checks live in `validate`");
}

#[test]
fn element_types_are_sealed_once_by_hip_element() {
    // Every library's element traits extend `hip::Element`, which is
    // sealed; a crate's own sealed module would be a second family.
    let mut violations = Vec::new();
    for library in libraries().into_iter().filter(|l| l != "hip") {
        for file in test_kit::rust_sources(&root().join(&library).join("src")) {
            let code = test_kit::code_without_comments(&read(&file));
            // A sealed module of element types (other sealed modules, e.g.
            // hipsparse's matrix formats, are not this family).
            let seals_elements = [
                "Sealed for f32",
                "Sealed for f64",
                "Sealed for half",
                "Sealed for ::half",
                "Sealed for c32",
                "Sealed for hip::c",
                "Sealed for super::c",
                "Sealed for $t",
            ]
            .iter()
            .any(|n| code.contains(n));
            if seals_elements {
                violations.push(format!(
                    "{}: seals element types itself (hip::Element does)",
                    file.display()
                ));
            }
            for line in code
                .lines()
                .filter(|l| l.trim_start().starts_with("pub trait "))
            {
                let element_like = ["Scalar", "Element", "Real", "Float", "Lapack", "Gemm"]
                    .iter()
                    .any(|n| line.contains(&format!("trait {n}")) || line.contains("Element:"));
                let rooted = line.contains("hip::Element")
                    || ["Scalar", "Lapack", "LtElement", "Float", "Real", "Element"]
                        .iter()
                        .any(|t| line.contains(&format!(": {t}")));
                if element_like && !rooted {
                    violations.push(format!(
                        "{}: `{}` does not extend hip::Element",
                        file.display(),
                        line.trim()
                    ));
                }
            }
        }
    }
    fail_on(
        violations,
        "one element-type family, rooted in hip::Element",
    );
}

#[test]
fn there_is_one_load_error() {
    // The one definition: hip-sys's loader core. Every other -sys crate
    // re-exports it (`pub use hip_sys::loader::LoadError`, or through
    // `lazy_library!`), and no crate defines another type of that name or
    // an alias of it.
    let home = root().join("hip-sys/src/loader/common.rs");
    let mut definitions = Vec::new();
    for krate in crate_folders() {
        let src = root().join(&krate).join("src");
        if !src.is_dir() {
            continue; // e.g. examples/, whose programs live elsewhere
        }
        for file in test_kit::rust_sources(&src) {
            let code = test_kit::code_without_comments(&read(&file));
            for (n, line) in code.lines().enumerate() {
                let line = line.trim_start().trim_start_matches("pub ");
                let defines = ["struct LoadError", "enum LoadError", "type LoadError"]
                    .iter()
                    .any(|d| line.starts_with(d));
                if defines {
                    definitions.push((file.clone(), n + 1));
                }
            }
        }
    }
    let elsewhere: Vec<String> = definitions
        .iter()
        .filter(|(f, _)| *f != home)
        .map(|(f, n)| format!("{}:{n}: defines a LoadError", f.display()))
        .collect();
    fail_on(elsewhere, "one LoadError, hip-sys's");
    assert_eq!(
        definitions.len(),
        1,
        "hip-sys/src/loader/common.rs defines LoadError once: {definitions:?}"
    );
}

#[test]
fn every_sys_crate_has_the_same_files() {
    let mut violations = Vec::new();
    for sys in sys_crates() {
        let dir = root().join(&sys);
        for file in [
            "build.rs",
            "README.md",
            "BINDINGS.md",
            "NVIDIA_COVERAGE.md",
            "src/lib.rs",
            "src/amd.rs",
            "src/status.rs",
            "src/unavailable.rs",
            "src/generated/functions.rs",
            "src/generated/types.rs",
        ] {
            if !dir.join(file).is_file() {
                violations.push(format!("{sys}: no {file}"));
            }
        }
        if !dir.join("src/nvidia/mod.rs").is_file() {
            violations.push(format!("{sys}: no src/nvidia/mod.rs"));
        }
        let loader = [
            "src/loader.rs",
            "src/loader/mod.rs",
            "src/generated/loader.rs",
        ];
        if !loader.iter().any(|f| dir.join(f).is_file()) {
            violations.push(format!("{sys}: no loader (one of {loader:?})"));
        }
        // Every generated file under `src/` lives in `src/generated/`: no
        // file elsewhere in `src/` says in its first three lines that it is
        // generated (`@generated`, `do not edit`, in any case).
        let src = dir.join("src");
        let mut folders = vec![src.clone()];
        while let Some(folder) = folders.pop() {
            if folder == src.join("generated") {
                continue;
            }
            let entries = fs::read_dir(&folder)
                .unwrap_or_else(|e| panic!("{} could not be read: {e}", folder.display()));
            for entry in entries {
                let path = entry.expect("a directory entry").path();
                if path.is_dir() {
                    folders.push(path);
                    continue;
                }
                let bytes = fs::read(&path)
                    .unwrap_or_else(|e| panic!("{} could not be read: {e}", path.display()));
                let head = String::from_utf8_lossy(&bytes)
                    .lines()
                    .take(3)
                    .collect::<Vec<_>>()
                    .join("\n")
                    .to_lowercase();
                if head.contains("@generated") || head.contains("do not edit") {
                    let relative = path.strip_prefix(&dir).unwrap_or(&path);
                    violations.push(format!(
                        "{sys}: {} is marked as generated but is outside src/generated/",
                        relative.display()
                    ));
                }
            }
        }
    }
    fail_on(violations, "every -sys crate has the same files");
}

/// An NVIDIA backend's adapters expand hip-sys's one kit
/// (`hip_sys::cuda_adapters!`, docs/ARCHITECTURE.md, "The NVIDIA
/// backends"): a -sys crate with adapter lines has them generated in
/// `src/generated/nvidia/adapters.rs`, invoking the kit, with its
/// conversions in `src/nvidia/convert.rs`; no crate defines an adapter
/// macro of its own (`macro_rules! NAME_adapters`, as each crate once did).
#[test]
fn nvidia_adapters_expand_the_one_kit() {
    let mut violations = Vec::new();
    let mut with_adapters = Vec::new();
    for sys in sys_crates() {
        let dir = root().join(&sys);
        for file in test_kit::rust_sources(&dir.join("src")) {
            let text = test_kit::code_without_comments(&read(&file));
            for (i, line) in text.lines().enumerate() {
                let Some(rest) = line.trim_start().strip_prefix("macro_rules!") else {
                    continue;
                };
                let name = rest
                    .trim_start()
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or_default();
                if name.ends_with("_adapters") && sys != "hip-sys" {
                    let relative = file.strip_prefix(&dir).unwrap_or(&file);
                    violations.push(format!(
                        "{sys}: {}:{} defines its own adapter macro `{name}`",
                        relative.display(),
                        i + 1
                    ));
                }
            }
        }
        let generated = dir.join("src/generated/nvidia/adapters.rs");
        if !generated.is_file() {
            continue;
        }
        with_adapters.push(sys.clone());
        if !read(&generated).contains("hip_sys::cuda_adapters!") {
            violations.push(format!(
                "{sys}: src/generated/nvidia/adapters.rs does not expand hip_sys::cuda_adapters!"
            ));
        }
        if !dir.join("src/nvidia/convert.rs").is_file() {
            violations.push(format!(
                "{sys}: adapters without src/nvidia/convert.rs (its conversions)"
            ));
        }
    }
    assert!(
        with_adapters.len() >= 6,
        "only {with_adapters:?} have generated adapters"
    );
    fail_on(violations, "NVIDIA adapters expand the one kit");
}

#[test]
fn the_crate_lists_are_found() {
    // The rules above would pass vacuously on an empty list.
    let libraries = libraries();
    for expected in ["hip", "hipblas", "hipsparse", "rccl"] {
        assert!(libraries.iter().any(|l| l == expected), "{libraries:?}");
    }
    assert!(sys_crates().iter().any(|s| s == "roctx-sys"));
    assert_eq!(
        sys_dependencies("hip")
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect::<Vec<_>>(),
        ["hip-sys", "roctx-sys"]
    );
}
