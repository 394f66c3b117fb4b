//! The corpus's programs and their AMD code objects: the own corpus
//! (`cuda-compat/tests/nvrtc_corpus/own`, kernels in `MANIFEST.txt`) and
//! cudarc 0.19.10's example kernels (`.cu` files and the kernel strings of
//! `.rs` files, from the folder `scripts/nvrtc-corpus.sh` fills), each
//! compiled by ROCm's clang with hip-cuda-layer force-included, as
//! `tests/warp.rs` and the cudaforge drop-in compile CUDA sources.

use crate::common;
use hip_emu::isa::Target;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// One program of the corpus: a file to compile and its kernels.
pub(crate) struct Program {
    /// `own/FILE.cu`, or `cudarc/FILE` (`FILE#i` for the i-th kernel
    /// string of a `.rs` file past the first).
    pub(crate) name: String,
    /// The source file clang reads: the corpus file itself, or for a
    /// kernel string of a `.rs` file, the string written out.
    pub(crate) path: PathBuf,
    /// The kernels' symbols in the code object.
    pub(crate) kernels: BTreeSet<String>,
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The own corpus: every `.cu` file of the folder, with its kernels from
/// `MANIFEST.txt` (which must name exactly those files).
pub(crate) fn own_programs() -> Vec<Program> {
    let dir = common::workspace().join("cuda-compat/tests/nvrtc_corpus/own");
    let manifest = dir.join("MANIFEST.txt");
    let mut by_file: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in read(&manifest).lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (file, kernel) = line
            .split_once('\t')
            .unwrap_or_else(|| panic!("{}: not FILE<TAB>SYMBOL: {line}", manifest.display()));
        by_file
            .entry(file.to_owned())
            .or_default()
            .insert(kernel.to_owned());
    }
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cu"))
        .collect();
    on_disk.sort();
    assert_eq!(
        on_disk,
        by_file.keys().cloned().collect::<Vec<_>>(),
        "every .cu file of {} has its kernels in MANIFEST.txt, and only those",
        dir.display()
    );
    by_file
        .into_iter()
        .map(|(file, kernels)| Program {
            name: format!("own/{file}"),
            path: dir.join(&file),
            kernels,
        })
        .collect()
}

/// The folder `scripts/nvrtc-corpus.sh` fills (`HIPRS_NVRTC_CORPUS`, else
/// what the script prints; it fetches the pinned crates the first time).
fn corpus_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        if let Some(d) = std::env::var_os("HIPRS_NVRTC_CORPUS") {
            return PathBuf::from(d);
        }
        let script = common::workspace().join("scripts/nvrtc-corpus.sh");
        let out = Command::new("bash")
            .arg(&script)
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", script.display()));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let last = stdout.lines().last().unwrap_or("").trim().to_owned();
        assert!(
            out.status.success() && !last.is_empty(),
            "{} failed ({}), and HIPRS_NVRTC_CORPUS is not set:\n{}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        PathBuf::from(last)
    })
}

/// The string literals of Rust source `text` that hold a kernel
/// (`__global__`). cudarc's examples write kernels as plain literals with
/// `\"`, `\\` and `\n` escapes; another escape fails here rather than
/// being misread. (A kernel misread here fails later: each program's
/// kernels must be its code object's.)
fn kernel_strings(text: &str, file: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '\'' => {
                // A char literal ('"', '\'') or a lifetime.
                let mut look = chars.clone();
                match (look.next(), look.next()) {
                    (Some('\\'), _) => {
                        chars.nth(2);
                    }
                    (Some(_), Some('\'')) => {
                        chars.nth(1);
                    }
                    _ => {}
                }
            }
            '"' => {
                let mut s = String::new();
                loop {
                    match chars
                        .next()
                        .unwrap_or_else(|| panic!("{file}: an open string"))
                    {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('n') => s.push('\n'),
                            Some(c @ ('"' | '\\')) => s.push(c),
                            other => panic!("{file}: the escape \\{other:?} is not read here"),
                        },
                        c => s.push(c),
                    }
                }
                if s.contains("__global__") {
                    out.push(s);
                }
            }
            _ => {}
        }
    }
    out
}

/// The names of the `extern "C" __global__ void NAME(` kernels of CUDA
/// source (cudarc's examples write no launch bounds).
fn extern_c_kernels(source: &str) -> BTreeSet<String> {
    let pattern = "extern \"C\" __global__ void ";
    source
        .match_indices(pattern)
        .map(|(at, _)| {
            let rest = &source[at + pattern.len()..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            rest[..end].to_owned()
        })
        .collect()
}

/// cudarc's example kernels: its `examples/*.cu` files, and the kernel
/// strings of `examples/*.rs`, written out under the test's folder.
pub(crate) fn cudarc_programs() -> Vec<Program> {
    let dir = corpus_dir().join("cudarc/examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (scripts/nvrtc-corpus.sh fills it)", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let written = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hip-emu-corpus/cudarc-strings");
    std::fs::create_dir_all(&written).unwrap_or_else(|e| panic!("{}: {e}", written.display()));
    let mut out = Vec::new();
    for f in files {
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        match f.extension().and_then(|e| e.to_str()) {
            Some("cu") => out.push(Program {
                name: format!("cudarc/{file}"),
                kernels: extern_c_kernels(&read(&f)),
                path: f,
            }),
            Some("rs") => {
                for (i, source) in kernel_strings(&read(&f), &file).into_iter().enumerate() {
                    let name = if i == 0 {
                        file.clone()
                    } else {
                        format!("{file}#{i}")
                    };
                    let path = written.join(format!("{}.cu", name.replace('#', "-")));
                    // Rewritten only when different, so clang's cache key
                    // (the text) and the file agree.
                    if std::fs::read_to_string(&path).ok().as_deref() != Some(source.as_str()) {
                        std::fs::write(&path, &source)
                            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                    }
                    out.push(Program {
                        name: format!("cudarc/{name}"),
                        kernels: extern_c_kernels(&source),
                        path,
                    });
                }
            }
            _ => {}
        }
    }
    for p in &out {
        assert!(!p.kernels.is_empty(), "{}: no extern \"C\" kernel", p.name);
    }
    out
}

/// Which compiler builds the corpus: `HIP_EMU_CORPUS_COMPILER=nvrtc`
/// cuda-compat's nvrtc (hiprtc behind it, with hip-cuda-layer, as a CUDA
/// program compiles at run time on AMD), else ROCm's clang
/// ([`code_object`]). hiprtc comes from ROCm 6.4, whose glibc is newer than
/// the build machine's: `scripts/emu-tier.sh` runs this test through that
/// sysroot's loader with `nvrtc` set, and then nvrtc must work (no fallback).
#[derive(Clone, Copy)]
pub(crate) enum Compiler {
    Nvrtc,
    Clang,
}

impl Compiler {
    /// The one `HIP_EMU_CORPUS_COMPILER` chooses; another value panics.
    pub(crate) fn chosen() -> Compiler {
        match std::env::var("HIP_EMU_CORPUS_COMPILER").as_deref() {
            Ok("nvrtc") => Compiler::Nvrtc,
            Ok("clang") | Err(_) => Compiler::Clang,
            Ok(other) => panic!("HIP_EMU_CORPUS_COMPILER={other}: not nvrtc or clang"),
        }
    }

    /// In words, for the test's summary.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Compiler::Nvrtc => "cuda-compat's nvrtc (hiprtc)",
            Compiler::Clang => "ROCm's clang",
        }
    }

    /// The code object of `program` for `target`.
    pub(crate) fn compile(self, program: &Program, target: Target) -> Vec<u8> {
        match self {
            Compiler::Nvrtc => nvrtc_code_object(program, target),
            Compiler::Clang => code_object(program, target),
        }
    }
}

/// The code object of `program` for `target` compiled through cuda-compat's
/// nvrtc (`compile_ptx_with_opts` with the target as the architecture, as
/// `cuda-compat/tests/tier2_nvrtc_corpus.rs` compiles the corpus), HIP's
/// headers from the corpus folder (`hip-include`, for bf16).
fn nvrtc_code_object(program: &Program, target: Target) -> Vec<u8> {
    use cuda_compat::nvrtc::{compile_ptx_with_opts, CompileOptions};
    let hip_include = corpus_dir().join("hip-include");
    let opts = CompileOptions {
        arch: Some(target.name()),
        include_paths: vec![hip_include.display().to_string()],
        name: Some(program.name.clone()),
        ..Default::default()
    };
    let ptx = compile_ptx_with_opts(read(&program.path), opts).unwrap_or_else(|e| {
        panic!(
            "{} for {target} through cuda-compat's nvrtc: {e}",
            program.name
        )
    });
    let image = ptx
        .as_bytes()
        .unwrap_or_else(|| panic!("{} for {target}: nvrtc gave no code object", program.name));
    hip_emu::code_object::select(image, target)
        .unwrap_or_else(|e| panic!("{} for {target}: nvrtc's output: {e}", program.name))
}

/// The code object of `program` for `target`: its source compiled as
/// `tests/warp.rs` compiles CUDA source (hip-cuda-layer force-included,
/// the cudaforge drop-in's first claimed architecture), cached under the
/// test folder by a hash of the source, the layer's headers and the flags.
fn code_object(program: &Program, target: Target) -> Vec<u8> {
    let rocm = common::rocm_path();
    let layer = common::workspace().join("hip-cuda-layer/include");
    let mut flags: Vec<String> = ["-x", "hip", "-O3", "-c", "--cuda-device-only", "-std=c++17"]
        .map(String::from)
        .to_vec();
    flags.push(format!("--rocm-path={}", rocm.display()));
    flags.push("-isystem".into());
    flags.push(rocm.join("include").display().to_string());
    flags.push(format!(
        "--hip-device-lib-path={}",
        rocm.join("amdgcn/bitcode").display()
    ));
    flags.push(format!("--offload-arch={}", target.name()));
    flags.push("--no-gpu-bundle-output".into());
    flags.extend(
        [
            "-I",
            &layer.display().to_string(),
            "-include",
            "hiprs_cuda.h",
            "-DHIPRS_CUDA_ARCH=890",
        ]
        .map(String::from),
    );

    let mut key = Fnv::new();
    key.add(read(&program.path).as_bytes());
    for f in &flags {
        key.add(f.as_bytes());
        key.add(&[0]);
    }
    add_folder(&mut key, &layer);
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hip-emu-corpus/objects");
    let stem = program.name.replace(['/', '#'], "-");
    let out = cache.join(format!("{stem}.{}.{:016x}.co", target.name(), key.0));
    if let Ok(bytes) = std::fs::read(&out) {
        return bytes;
    }
    std::fs::create_dir_all(&cache).unwrap_or_else(|e| panic!("{}: {e}", cache.display()));
    let tmp = out.with_extension(format!("tmp{}", std::process::id()));
    let clang = rocm.join("llvm/bin/clang++");
    let result = Command::new(&clang)
        .args(&flags)
        .arg(&program.path)
        .arg("-o")
        .arg(&tmp)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", clang.display()));
    assert!(
        result.status.success(),
        "{} {} {} failed ({}):\n{}",
        clang.display(),
        flags.join(" "),
        program.path.display(),
        result.status,
        String::from_utf8_lossy(&result.stderr)
    );
    std::fs::rename(&tmp, &out).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    std::fs::read(&out).unwrap_or_else(|e| panic!("{}: {e}", out.display()))
}

/// Adds every file below `folder` (names and contents, in name order).
fn add_folder(key: &mut Fnv, folder: &Path) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        key.add(path.file_name().unwrap().as_encoded_bytes());
        if path.is_dir() {
            add_folder(key, &path);
        } else {
            key.add(&std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())));
        }
        key.add(&[0]);
    }
}

/// FNV-1a, 64 bits: stable across Rust releases, so cache keys are too.
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
