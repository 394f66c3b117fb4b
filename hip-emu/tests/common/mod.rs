//! The test kernels (`tests/kernels/*.hip`) compiled to real AMD code
//! objects, shared by hip-emu's integration tests (`mod common;`).
//!
//! The compiler is the HIP clang that `scripts/hip-toolchain.sh` provides
//! (or the ROCm folder in `HIP_EMU_ROCM_PATH`). Outputs are cached under
//! `$CARGO_TARGET_TMPDIR/hip-emu-kernels` (integration tests only), keyed by a hash of the source,
//! the compiler folder and the flags, so a second run compiles nothing.
//! Without a compiler the helpers panic saying how to get one: a test
//! never passes by skipping.

// Each test binary uses a part, and `pub` is for the test files that
// include this module, which the crate-level lint cannot see.
#![allow(dead_code, unreachable_pub)]

use hip_emu::isa::Target;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

pub mod launch;

/// The workspace root (hip-emu's parent folder).
pub fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("hip-emu sits in the workspace")
        .to_path_buf()
}

/// The ROCm folder holding `llvm/bin/clang++`, `include` and
/// `amdgcn/bitcode`: `HIP_EMU_ROCM_PATH`, else what
/// `scripts/hip-toolchain.sh` prints. Panics, saying how to get one, when
/// neither gives a compiler.
pub fn rocm_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let how = "hip-emu's tests compile tests/kernels/*.hip with HIP's clang: set \
                   HIP_EMU_ROCM_PATH to a ROCm folder (with llvm/bin/clang++, include, \
                   amdgcn/bitcode), or let `bash scripts/hip-toolchain.sh` make one (it downloads \
                   Debian's hipcc 7.0 packages the first time and caches them in \
                   ~/.cache/hip-rs)";
        let path = match std::env::var_os("HIP_EMU_ROCM_PATH") {
            Some(p) => PathBuf::from(p),
            None => {
                let script = workspace().join("scripts/hip-toolchain.sh");
                let out = Command::new("bash")
                    .arg(&script)
                    .output()
                    .unwrap_or_else(|e| panic!("running {}: {e}\n{how}", script.display()));
                let stdout = String::from_utf8_lossy(&out.stdout);
                let last = stdout.lines().last().unwrap_or("").trim().to_owned();
                if !out.status.success() || last.is_empty() {
                    panic!(
                        "{} failed ({}):\n{}\n{how}",
                        script.display(),
                        out.status,
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
                PathBuf::from(last)
            }
        };
        if !path.join("llvm/bin/clang++").exists() {
            panic!("no llvm/bin/clang++ in {}\n{how}", path.display());
        }
        path
    })
}

/// The code object (a plain ELF) of `tests/kernels/<source>.hip` for
/// `target`; `None` when no such source exists. Panics with the
/// compiler's output when it fails.
pub fn code_object(source: &str, target: Target) -> Option<Vec<u8>> {
    compile(source, &[target], true, &[])
}

/// [`code_object`] with `extra` flags appended to the compile command
/// (`-include`, `-I`, `-D`). The files under every folder an `-I` flag
/// names are part of the cache key, so an edited header recompiles.
pub fn code_object_with(source: &str, target: Target, extra: &[String]) -> Option<Vec<u8>> {
    compile(source, &[target], true, extra)
}

/// A clang offload bundle of `tests/kernels/<source>.hip` built for every
/// target in `targets` (what `hipModuleLoadData` usually gets); `None`
/// when no such source exists.
pub fn bundle(source: &str, targets: &[Target]) -> Option<Vec<u8>> {
    compile(source, targets, false, &[])
}

/// [`bundle`] with `extra` flags appended (`--offload-compress`: a
/// compressed bundle, `CCOB`).
pub fn bundle_with(source: &str, targets: &[Target], extra: &[String]) -> Option<Vec<u8>> {
    compile(source, targets, false, extra)
}

/// A plain ELF code object of the HIP source at `path` (a file the test
/// wrote: a kernel translated first), for `target`, cached by `source`
/// and the text.
#[allow(dead_code)]
pub fn code_object_of_file(
    path: &Path,
    source: &str,
    target: Target,
    extra: &[String],
) -> Option<Vec<u8>> {
    compile_file(path, source, &[target], true, extra)
}

fn compile(source: &str, targets: &[Target], plain_elf: bool, extra: &[String]) -> Option<Vec<u8>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels")
        .join(format!("{source}.hip"));
    compile_file(&path, source, targets, plain_elf, extra)
}

fn compile_file(
    path: &Path,
    source: &str,
    targets: &[Target],
    plain_elf: bool,
    extra: &[String],
) -> Option<Vec<u8>> {
    let path = path.to_path_buf();
    let text = std::fs::read(&path).ok()?;
    let rocm = rocm_path();
    let mut flags: Vec<String> = ["-x", "hip", "-O3", "-c", "--cuda-device-only", "-std=c++17"]
        .into_iter()
        .map(String::from)
        .collect();
    flags.push(format!("--rocm-path={}", rocm.display()));
    flags.push("-isystem".into());
    flags.push(rocm.join("include").display().to_string());
    flags.push(format!(
        "--hip-device-lib-path={}",
        rocm.join("amdgcn/bitcode").display()
    ));
    for t in targets {
        flags.push(format!("--offload-arch={}", t.name()));
    }
    if plain_elf {
        flags.push("--no-gpu-bundle-output".into());
    }
    flags.extend(extra.iter().cloned());

    let mut key = Fnv::new();
    key.add(&text);
    for f in &flags {
        key.add(f.as_bytes());
        key.add(&[0]);
    }
    for pair in extra.windows(2) {
        if pair[0] == "-I" {
            add_folder(&mut key, Path::new(&pair[1]));
        }
    }
    let names: Vec<&str> = targets.iter().map(|t| t.name()).collect();
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hip-emu-kernels");
    let out = cache.join(format!(
        "{source}.{}.{:016x}.{}",
        names.join("-"),
        key.0,
        if plain_elf { "co" } else { "bundle" }
    ));
    if let Ok(bytes) = std::fs::read(&out) {
        return Some(bytes);
    }
    std::fs::create_dir_all(&cache).unwrap_or_else(|e| panic!("creating {}: {e}", cache.display()));
    // Tests run in parallel: write beside, then rename into place.
    let tmp = out.with_extension(format!(
        "tmp{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let clang = rocm.join("llvm/bin/clang++");
    let result = Command::new(&clang)
        .args(&flags)
        .arg(&path)
        .arg("-o")
        .arg(&tmp)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", clang.display()));
    if !result.status.success() {
        panic!(
            "{} {} {} failed ({}):\n{}",
            clang.display(),
            flags.join(" "),
            path.display(),
            result.status,
            String::from_utf8_lossy(&result.stderr)
        );
    }
    std::fs::rename(&tmp, &out)
        .unwrap_or_else(|e| panic!("renaming {} to {}: {e}", tmp.display(), out.display()));
    Some(std::fs::read(&out).unwrap_or_else(|e| panic!("reading {}: {e}", out.display())))
}

/// Adds every file below `folder` (names and contents, in name order) to
/// `key`.
fn add_folder(key: &mut Fnv, folder: &Path) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("reading {}: {e}", folder.display()))
        .map(|e| e.expect("a folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        key.add(path.file_name().expect("a named entry").as_encoded_bytes());
        key.add(&[0]);
        if path.is_dir() {
            add_folder(key, &path);
        } else {
            key.add(
                &std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display())),
            );
        }
        key.add(&[0]);
    }
}

/// FNV-1a, 64 bits: a hash that stays the same across Rust releases, so
/// the cache keys do too.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
