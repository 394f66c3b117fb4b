//! Tier 2: compiles a real `.hip` kernel with the machine's hipcc for
//! gfx90a and gfx1010 and checks the embedded code objects. Needs hipcc
//! (Debian: `apt install hipcc rocm-device-libs libamdhip64-dev`); without
//! it these tests fail and say so.

use hip_build::{elf, Compiler, Error, KernelBuild, Toolchain};
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn temp_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hip-build-test-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn toolchain() -> Toolchain {
    match Toolchain::find() {
        Ok(t) => t,
        Err(e) => panic!("this test needs ROCm's hipcc and none was found:\n{e}"),
    }
}

/// Compiles `main.rs` (which includes a generated file) with rustc, runs
/// it, and returns its stdout; panics with rustc's or the program's output.
fn compile_and_run(dir: &Path, main: &str) -> String {
    let main_rs = dir.join("main.rs");
    std::fs::write(&main_rs, main).unwrap();
    let exe = dir.join("check");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc)
        .args(["--edition", "2021", "-D", "warnings", "-o"])
        .arg(&exe)
        .arg(&main_rs)
        .output()
        .expect("rustc runs");
    assert!(
        out.status.success(),
        "the generated file does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(
        run.status.success(),
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    String::from_utf8_lossy(&run.stdout).into_owned()
}

#[test]
fn compiles_gfx90a_and_gfx1010_code_objects() {
    let tc = toolchain();
    println!(
        "hipcc: {} (found by {}), {:?}",
        tc.compiler.display(),
        tc.found_by,
        tc.version()
    );
    check_aot_build(tc, "aot");
}

/// The clang hipcc drives: ROCm's `<root>/llvm/bin/clang++`, or on Debian
/// `/usr/lib/llvm-<major>/bin/clang++` of the major hipcc reports.
fn hips_clang(hipcc: &Toolchain) -> Toolchain {
    let root = hipcc.rocm_path.clone().expect("hipcc's ROCm folder");
    let mut candidates = vec![root.join("llvm/bin/clang++")];
    let out = Command::new(&hipcc.compiler)
        .arg("--version")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if let Some(major) = text
        .split("clang version ")
        .nth(1)
        .and_then(|v| v.split('.').next())
    {
        candidates.push(PathBuf::from(format!("/usr/lib/llvm-{major}/bin/clang++")));
    }
    let clang = candidates
        .iter()
        .find(|c| c.is_file())
        .unwrap_or_else(|| panic!("no clang beside hipcc among {candidates:?}:\n{text}"));
    Toolchain::clang(clang.clone(), root).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn rocm_clang_alone_compiles_the_same_kernels() {
    let tc = hips_clang(&toolchain());
    assert!(matches!(tc.kind, Compiler::Clang { .. }));
    println!("clang: {} {:?}", tc.compiler.display(), tc.version());
    check_aot_build(tc, "aot-clang");
}

/// Builds the fixture for gfx90a and gfx1010 with `tc` and checks the code
/// objects, the dependency output and the generated Rust file.
fn check_aot_build(tc: Toolchain, name: &str) {
    let out = temp_dir(name);
    let built = KernelBuild::new()
        .file(fixture("saxpy.hip"))
        .targets(["gfx90a", "gfx1010"])
        .toolchain(tc)
        .out_dir(&out)
        .cargo_directives(false)
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));

    let src = &built.sources[0];
    assert_eq!(src.rust_file, out.join("saxpy.rs"));
    let targets: Vec<&str> = src.code_objects.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(targets, ["gfx90a", "gfx1010"]);
    for (target, path) in &src.code_objects {
        let bytes = std::fs::read(path).unwrap();
        let co = elf::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(co.machine, elf::EM_AMDGPU, "{target}: e_machine");
        assert_eq!(
            Some(co.mach()),
            elf::amdgpu_mach(target),
            "{target}: EF_AMDGPU_MACH in e_flags {:#x}",
            co.flags
        );
        assert!(co.has_kernel("saxpy"), "{target}: symbols {:?}", co.symbols);
        assert!(
            co.has_kernel("_Z4fillIdEvPT_S0_i"),
            "{target}: the template instance fill<double> is missing: {:?}",
            co.symbols
        );
    }

    // The project header is a dependency; system headers are not.
    let header = std::fs::canonicalize(fixture("include/scale.h")).unwrap();
    assert!(src.includes.contains(&header), "{:?}", src.includes);
    assert!(src.includes.iter().all(|p| !p.starts_with("/usr")));
    let rerun = format!("cargo:rerun-if-changed={}", header.display());
    assert!(built.directives.contains(&rerun), "{:?}", built.directives);
    assert!(built
        .directives
        .contains(&"cargo:rerun-if-env-changed=ROCM_PATH".to_owned()));

    // The generated file compiles, embeds exactly these bytes, and picks
    // the right one for device architecture strings.
    let gfx90a = src.code_objects[0].1.display().to_string();
    let gfx1010 = src.code_objects[1].1.display().to_string();
    let main = format!(
        r#"
mod saxpy {{
    include!({rust_file:?});
}}
fn main() {{
    assert!(saxpy::PRECOMPILED);
    assert!(saxpy::SOURCE.contains("saxpy"));
    assert_eq!(saxpy::CODE_OBJECTS.len(), 2);
    let a = saxpy::code_object_for("gfx90a:sramecc+:xnack-").expect("gfx90a");
    assert_eq!(a, &include_bytes!({gfx90a:?})[..]);
    let b = saxpy::code_object_for("gfx1010:xnack-").expect("gfx1010");
    assert_eq!(b, &include_bytes!({gfx1010:?})[..]);
    assert!(saxpy::code_object_for("gfx1030").is_none());
    assert!(saxpy::code_object_for("sm_90").is_none());
    println!("selected {{}} and {{}} bytes", a.len(), b.len());
}}
"#,
        rust_file = src.rust_file.display().to_string(),
    );
    let printed = compile_and_run(&out, &main);
    assert!(printed.starts_with("selected "), "{printed}");
}

#[test]
fn a_compile_error_names_the_source_and_target() {
    let tc = toolchain();
    let out = temp_dir("bad");
    let bad = out.join("broken.hip");
    std::fs::write(&bad, "__global__ void k() { this is not C++ }\n").unwrap();
    let err = KernelBuild::new()
        .file(&bad)
        .target("gfx90a")
        .toolchain(tc)
        .out_dir(&out)
        .cargo_directives(false)
        .compile()
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Compile { .. }), "{text}");
    assert!(
        text.contains("broken.hip") && text.contains("gfx90a"),
        "{text}"
    );
    assert!(
        text.contains("error"),
        "the compiler's message is kept: {text}"
    );
}

#[test]
fn without_a_toolchain_the_error_lists_where_it_looked() {
    let out = temp_dir("none");
    let err = KernelBuild::new()
        .file(fixture("saxpy.hip"))
        .target("gfx90a")
        .out_dir(&out)
        .environment([
            ("PATH", out.as_os_str().to_owned()),
            ("ROCM_PATH", out.join("no-rocm").into_os_string()),
        ])
        .cargo_directives(false)
        .compile()
        .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::ToolchainNotFound(_)), "{text}");
    assert!(text.contains("no-rocm/bin/hipcc (ROCM_PATH)"), "{text}");
    assert!(text.contains("hipcc on PATH"), "{text}");
    assert!(text.contains("runtime_compilation_fallback"), "{text}");
    assert!(!out.join("saxpy.rs").exists());
}

#[test]
fn the_fallback_embeds_the_source_for_hiprtc() {
    let out = temp_dir("fallback");
    let built = KernelBuild::new()
        .file(fixture("saxpy.hip"))
        .target("gfx90a")
        .out_dir(&out)
        .environment([("PATH", out.as_os_str().to_owned())])
        .runtime_compilation_fallback(true)
        .cargo_directives(false)
        .compile()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(built.toolchain.is_none());
    assert!(built
        .directives
        .iter()
        .any(|d| d.starts_with("cargo:warning=hip-build: no HIP compiler")));
    let main = format!(
        r#"
mod saxpy {{
    include!({:?});
}}
fn main() {{
    assert!(!saxpy::PRECOMPILED);
    assert!(saxpy::CODE_OBJECTS.is_empty());
    assert!(saxpy::code_object_for("gfx90a").is_none());
    assert!(saxpy::SOURCE.contains("extern \"C\" __global__ void saxpy"));
    println!("source of {{}} bytes", saxpy::SOURCE.len());
}}
"#,
        built.sources[0].rust_file.display().to_string()
    );
    let printed = compile_and_run(&out, &main);
    assert!(printed.starts_with("source of "), "{printed}");
}
