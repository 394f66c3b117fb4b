//! This package can stand in for bindgen_cuda in candle 0.8/0.9's builds:
//! its version satisfies what they ask for, and their build scripts' calls
//! (rewritten here from reading candle-kernels 0.9.1 and 0.9.2 and
//! candle-flash-attn 0.9.1 and 0.9.2, not copied) compile against it, with
//! the signatures bindgen_cuda 0.1.6 has.

use std::path::{Path, PathBuf};

/// `bindgen_cuda` requirements in published candle crates (their
/// `[build-dependencies]`), each with who asks.
const REQUIREMENTS: &[(&str, &str)] = &[
    ("candle-kernels 0.8.0 to 0.9.1", "0.1.1"),
    ("candle-flash-attn 0.8.4, 0.9.1", "0.1.1"),
    ("candle-flash-attn 0.9.2", "0.1.5"),
    ("candle-kernels 0.9.2", "0.1.6"),
];

fn parse(v: &str) -> (u64, u64, u64) {
    let mut it = v.split('.').map(|n| n.parse::<u64>().unwrap());
    (it.next().unwrap(), it.next().unwrap(), it.next().unwrap())
}

/// Cargo's default (caret) requirement `^req`, for a 0.x version.
fn caret_0x_matches(req: &str, version: &str) -> bool {
    let (rmaj, rmin, rpat) = parse(req);
    let (maj, min, pat) = parse(version);
    assert_eq!(rmaj, 0, "only 0.x requirements here");
    maj == 0 && min == rmin && pat >= rpat
}

#[test]
fn name_and_version_take_the_patch() {
    assert_eq!(env!("CARGO_PKG_NAME"), "bindgen_cuda");
    let version = env!("CARGO_PKG_VERSION");
    for (who, req) in REQUIREMENTS {
        assert!(
            caret_0x_matches(req, version),
            "{who} asks for bindgen_cuda ^{req}; this package is {version}, so \
             [patch.crates-io] would not apply"
        );
    }
    // Sanity of the matcher itself.
    assert!(!caret_0x_matches("0.1.6", "0.1.5"));
    assert!(!caret_0x_matches("0.1.1", "0.2.0"));
}

/// bindgen_cuda 0.1.6's public signatures, pinned as function pointers: a
/// changed parameter or receiver fails to compile here.
#[test]
fn signatures_are_bindgen_cudas() {
    use bindgen_cuda::{Bindings, Builder, Error};
    let _: fn() -> Builder = Builder::default;
    let _: fn(Builder, Vec<&'static str>) -> Builder = Builder::kernel_paths::<&'static str>;
    let _: fn(Builder, Vec<&'static &'static str>) -> Builder =
        Builder::kernel_paths::<&'static &'static str>;
    let _: fn(Builder, Vec<&'static str>) -> Builder =
        Builder::watch::<Vec<&'static str>, &'static str>;
    let _: fn(Builder, Vec<PathBuf>) -> Builder = Builder::include_paths::<PathBuf>;
    let _: fn(Builder, &str) -> Builder = Builder::kernel_paths_glob;
    let _: fn(Builder, &str) -> Builder = Builder::include_paths_glob;
    let _: fn(Builder, PathBuf) -> Builder = Builder::out_dir::<PathBuf>;
    let _: fn(Builder, &'static str) -> Builder = Builder::arg;
    let _: fn(&mut Builder, &'static str) = Builder::cuda_root::<&'static str>;
    let _: fn(Builder, usize) -> Builder = Builder::compute_cap;
    let _: fn(Builder, PathBuf) = Builder::build_lib::<PathBuf>;
    let _: fn(Builder) -> Result<Bindings, Error> = Builder::build_ptx;
    let _: fn(&Bindings, &'static Path) -> Result<(), Error> = Bindings::write::<&'static Path>;
    // Build scripts print the builder and unwrap the error.
    fn debug<T: std::fmt::Debug>() {}
    debug::<Builder>();
    debug::<Error>();
    // The crate's own: the error is a real error, usable with `?` into
    // `Box<dyn Error>` and across threads.
    fn error<T: std::error::Error + Send + Sync + 'static>() {}
    error::<Error>();
}

// The calls of candle's build scripts. They compile (that is the test);
// they are not run, as they need a build script's environment.

/// candle-kernels 0.9.1: every `src/**/*.cu` as PTX, constants into a
/// source file, the builder printed.
#[allow(dead_code)]
fn candle_kernels_0_9_1() {
    let builder = bindgen_cuda::Builder::default();
    println!("cargo:info={builder:?}");
    let bindings = builder.build_ptx().unwrap();
    bindings.write("src/ptx.rs").unwrap();
}

/// candle-kernels 0.9.2: PTX with extra arguments, constants into
/// `OUT_DIR`, then the MoE kernels as a static library, the arguments
/// chosen by target.
#[allow(dead_code)]
fn candle_kernels_0_9_2() {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let ptx_path = out_dir.join("ptx.rs");
    let builder = bindgen_cuda::Builder::default()
        .arg("--expt-relaxed-constexpr")
        .arg("-std=c++17")
        .arg("-O3");
    let bindings = builder.build_ptx().unwrap();
    bindings.write(&ptx_path).unwrap();

    let mut lib = bindgen_cuda::Builder::default().arg("-O3");
    if std::env::var("TARGET").is_ok_and(|t| t.contains("msvc")) {
        lib = lib.arg("-D_USE_MATH_DEFINES");
    } else {
        lib = lib.arg("-Xcompiler").arg("-fPIC");
    }
    let lib = lib.kernel_paths(vec!["src/moe/moe_gguf.cu", "src/moe/moe_wmma.cu"]);
    lib.build_lib(out_dir.join("libmoe.a"));
    println!("cargo:rustc-link-search={}", out_dir.display());
    println!("cargo:rustc-link-lib=moe");
}

/// candle-flash-attn 0.9.x: a constant list of kernels collected as
/// `Vec<&&str>`, another output folder, a leaked include argument, a
/// mutable builder, `build_lib` into that folder.
// `.arg(&include)` borrows a `&'static str` as candle does: it must compile.
#[allow(dead_code, clippy::needless_borrow)]
fn candle_flash_attn_0_9() {
    const KERNELS: [&str; 2] = [
        "kernels/flash_api.cu",
        "kernels/flash_fwd_hdim64_fp16_sm80.cu",
    ];
    let build_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let include: &'static str = Box::leak(String::from("-Icutlass/include").into_boxed_str());
    let kernels = KERNELS.iter().collect();
    let mut builder = bindgen_cuda::Builder::default()
        .kernel_paths(kernels)
        .out_dir(build_dir.clone())
        .arg("-std=c++17")
        .arg(&include)
        .arg("--use_fast_math");
    builder = builder.arg("-Xcompiler").arg("-fPIC");
    builder.build_lib(build_dir.join("libflashattention.a"));
}

/// The rest of bindgen_cuda's builder, as other crates use it.
#[allow(dead_code)]
fn the_other_settings() -> Result<(), bindgen_cuda::Error> {
    let mut builder = bindgen_cuda::Builder::default()
        .kernel_paths_glob("kernels/**/*.cu")
        .include_paths_glob("kernels/**/*.cuh")
        .include_paths(vec!["kernels/common.cuh"])
        .watch(vec!["kernels/"])
        .compute_cap(86);
    builder.cuda_root("/usr/local/cuda");
    builder.build_ptx()?.write("src/kernels.rs")?;
    Ok(())
}
