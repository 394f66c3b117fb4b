//! Tier 2: CUDA C++ compiled at run time for AMD GPUs through cuda-compat's
//! nvrtc, which hands it to hiprtc behind the CUDA-over-HIP layer
//! (`hip-cuda-layer`), without a GPU.
//!
//! On ROCm 6.4 (the sysroot tier, `HIP_TEST_EXPECT_ROCM=6.4`), the whole
//! corpus, each program for gfx90a (wave64) and gfx1100 (wave32):
//! - the kernels written for it here, the way CUDA programs are written
//!   (`tests/nvrtc_corpus/own/*.cu`, their kernels in `MANIFEST.txt`);
//! - the CUDA kernels of cudarc 0.19.10's examples (its `.cu` files and
//!   the kernel strings of its `.rs` files);
//! - candle-kernels 0.11.1's eleven PTX modules, whose kernels must be
//!   the ones nvcc builds (`benches/candle/candle-kernels-0.11.1.nvcc-kernels.txt`).
//!
//! Each code object is validated, its kernels are exactly the expected
//! ones, and the static kernel report reads it: the corpus's own kernels
//! and cudarc's must not spill; candle's spills are printed (at run time
//! nothing bounds its quantized kernels' blocks, as cudaforge's table does
//! at build time, so they spill more; a program can pass
//! `--gpu-max-threads-per-block=N` in its options).
//! `scripts/nvrtc-corpus.sh` fetches the two crates (versions and
//! checksums pinned) and gives the folder in `HIPRS_NVRTC_CORPUS`, with
//! HIP's headers (`hip-include`, from `scripts/hip-toolchain.sh`: the
//! sysroot has only the runtime) for bf16; `scripts/tier2-sysroots.sh`
//! sets it.
//!
//! On ROCm 5.7 (no HIP headers beside the runtime): a source of warp
//! functions, fp16, fp8 and `__dp4a` compiles through the layer, and a
//! source that includes `cuda_bf16.h` fails with the layer's message
//! saying that HIP's bf16 header is missing. On ROCm 5.2, whose hiprtc is
//! not given the layer, CUDA's headers are missing and the log says why.

use cuda_compat::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions};
use cuda_compat::Platform;
use hip::code_object::{kernels, validate, KernelInfo};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use test_kit::Rocm;

const TARGETS: [&str; 2] = ["gfx90a", "gfx1100"];
const CORPUS_VAR: &str = "HIPRS_NVRTC_CORPUS";

fn amd_runtime() {
    let rt = cuda_compat::backend().unwrap_or_else(|e| panic!("the AMD runtime: {e}"));
    assert_eq!(rt.platform, Platform::Amd, "loaded {rt:?}");
}

/// One program of the corpus.
struct Program {
    name: String,
    source: String,
    include_paths: Vec<String>,
    kernels: BTreeSet<String>,
}

/// Compiles `p` for each target; the failures, one line each, and the
/// kernel reports of what compiled.
fn compile(p: &Program, hip_include: &Path) -> (Vec<String>, Vec<KernelInfo>) {
    let mut failures = Vec::new();
    let mut reports = Vec::new();
    for target in TARGETS {
        let mut include_paths = p.include_paths.clone();
        include_paths.push(hip_include.display().to_string());
        let opts = CompileOptions {
            arch: Some(target),
            include_paths,
            name: Some(p.name.clone()),
            ..Default::default()
        };
        let ptx = match compile_ptx_with_opts(&p.source, opts) {
            Ok(ptx) => ptx,
            Err(e) => {
                let text = e.to_string();
                let head: String = text.lines().take(4).collect::<Vec<_>>().join(" | ");
                failures.push(format!("{} for {target}: {head}", p.name));
                continue;
            }
        };
        let code = ptx.as_bytes().expect("compiled code");
        if let Err(e) = validate(code, Platform::Amd) {
            failures.push(format!("{} for {target}: invalid code object: {e}", p.name));
            continue;
        }
        let found = match kernels(code) {
            Ok(k) => k,
            Err(e) => {
                failures.push(format!("{} for {target}: no kernel report: {e}", p.name));
                continue;
            }
        };
        let names: BTreeSet<String> = found.iter().map(|k| k.name.clone()).collect();
        if names != p.kernels {
            let missing: Vec<_> = p.kernels.difference(&names).collect();
            let extra: Vec<_> = names.difference(&p.kernels).collect();
            failures.push(format!(
                "{} for {target}: kernels missing {missing:?}, unexpected {extra:?}",
                p.name
            ));
        }
        if let Some(k) = found.iter().find(|k| k.processor() != target) {
            failures.push(format!(
                "{} for {target}: a kernel for {}",
                p.name, k.target
            ));
        }
        reports.extend(found);
    }
    (failures, reports)
}

/// The corpus folder made by `scripts/nvrtc-corpus.sh`.
fn corpus() -> PathBuf {
    let dir = std::env::var_os(CORPUS_VAR).unwrap_or_else(|| {
        panic!("{CORPUS_VAR} is not set: run scripts/nvrtc-corpus.sh, which prints the folder")
    });
    PathBuf::from(dir)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A list of `KEY<sep>KERNEL` lines (`#` comments) as each key's kernels.
fn grouped(path: &Path, sep: char) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in read(path).lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (key, kernel) = line
            .split_once(sep)
            .unwrap_or_else(|| panic!("{}: not KEY{sep:?}KERNEL: {line}", path.display()));
        out.entry(key.to_owned())
            .or_default()
            .insert(kernel.to_owned());
    }
    out
}

/// The corpus's own programs and their kernels (`MANIFEST.txt`).
fn own_programs() -> Vec<Program> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvrtc_corpus/own");
    let by_file = grouped(&dir.join("MANIFEST.txt"), '\t');
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cu"))
        .collect();
    on_disk.sort();
    assert_eq!(
        on_disk,
        by_file.keys().cloned().collect::<Vec<_>>(),
        "every .cu file has its kernels in MANIFEST.txt, and only those"
    );
    by_file
        .into_iter()
        .map(|(file, kernels)| Program {
            source: read(&dir.join(&file)),
            name: file,
            include_paths: Vec::new(),
            kernels,
        })
        .collect()
}

/// The string literals of Rust source `text` (plain, with escapes, and
/// raw), in order.
fn rust_strings(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'\'' => {
                // A char literal ('"', '\'') or a lifetime: skip the char.
                if b.get(i + 1) == Some(&b'\\') {
                    i += 4;
                } else if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            b'r' if matches!(b.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                let start = i + 1 + hashes + 1;
                let close = format!("\"{}", "#".repeat(hashes));
                let end = text[start..]
                    .find(&close)
                    .map(|e| start + e)
                    .expect("a closed raw string");
                out.push(text[start..end].to_owned());
                i = end + close.len();
            }
            b'"' => {
                let mut s = String::new();
                i += 1;
                while b[i] != b'"' {
                    if b[i] == b'\\' {
                        match b[i + 1] {
                            b'n' => s.push('\n'),
                            b't' => s.push('\t'),
                            b'\n' => {
                                // A line continuation: the next line's
                                // leading blanks go too.
                                i += 2;
                                while b[i] == b' ' || b[i] == b'\t' {
                                    i += 1;
                                }
                                continue;
                            }
                            c => s.push(c as char),
                        }
                        i += 2;
                    } else {
                        let ch = text[i..].chars().next().unwrap();
                        s.push(ch);
                        i += ch.len_utf8();
                    }
                }
                out.push(s);
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// The names of the `extern "C"` kernels in CUDA source.
fn extern_c_kernels(source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in source.match_indices("__global__") {
        let mut rest = &source[at..];
        // `__launch_bounds__(...)` comes before the name.
        let mut head = String::new();
        while let Some(b) = rest.find("__launch_bounds__") {
            match (rest.find('('), rest[b..].find(')')) {
                (Some(p), Some(close)) if b < p => {
                    head.push_str(&rest[..b]);
                    rest = &rest[b + close + 1..];
                }
                _ => break,
            }
        }
        head.push_str(rest);
        let rest = head.as_str();
        let Some(paren) = rest.find('(') else {
            continue;
        };
        let name = rest[..paren]
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .rfind(|w| !w.is_empty())
            .unwrap_or_default();
        if source[..at].trim_end().ends_with("extern \"C\"") {
            names.insert(name.to_owned());
        }
    }
    names
}

/// cudarc's examples: their `.cu` files, and the string literals of their
/// `.rs` files that hold a kernel.
fn cudarc_programs(dir: &Path) -> Vec<Program> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("examples"))
        .unwrap_or_else(|e| panic!("{}/examples: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let file = f.file_name().unwrap().to_string_lossy().into_owned();
        let sources: Vec<String> = match f.extension().and_then(|e| e.to_str()) {
            Some("cu") => vec![read(&f)],
            Some("rs") => rust_strings(&read(&f))
                .into_iter()
                .filter(|s| s.contains("__global__"))
                .collect(),
            _ => continue,
        };
        for (i, source) in sources.into_iter().enumerate() {
            let kernels = extern_c_kernels(&source);
            assert!(
                !kernels.is_empty(),
                "{file}: a kernel source without extern \"C\" kernels"
            );
            out.push(Program {
                name: if i == 0 {
                    file.clone()
                } else {
                    format!("{file}#{i}")
                },
                source,
                include_paths: Vec::new(),
                kernels,
            });
        }
    }
    out
}

/// candle-kernels' PTX modules and the kernels nvcc builds from each.
fn candle_programs(dir: &Path) -> Vec<Program> {
    let list = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../benches/candle/candle-kernels-0.11.1.nvcc-kernels.txt");
    let by_module = grouped(&list, ' ');
    let src = dir.join("src");
    by_module
        .into_iter()
        .map(|(module, kernels)| Program {
            source: read(&src.join(format!("{module}.cu"))),
            name: format!("candle-kernels {module}.cu"),
            include_paths: vec![src.display().to_string()],
            kernels,
        })
        .collect()
}

/// Compiles every program; fails listing every failure.
fn compile_all(what: &str, programs: &[Program], hip_include: &Path, no_spills: bool) {
    let mut failures = Vec::new();
    let mut spilling = Vec::new();
    let mut count = 0;
    for p in programs {
        let (f, reports) = compile(p, hip_include);
        failures.extend(f);
        count += reports.len();
        spilling.extend(
            reports
                .iter()
                .filter(|k| k.spills())
                .map(|k| format!("{} {} ({} VGPRs spilled)", k.target, k.name, k.vgpr_spills)),
        );
    }
    println!(
        "{what}: {} programs, {count} kernels for {}, {} spilling",
        programs.len(),
        TARGETS.join(" and "),
        spilling.len()
    );
    for s in &spilling {
        println!("    spills: {s}");
    }
    assert!(failures.is_empty(), "{what}:\n{}", failures.join("\n"));
    if no_spills {
        assert!(spilling.is_empty(), "{what}: kernels spill");
    }
}

/// On ROCm 6.4 the whole corpus; on older releases what their hiprtc
/// must do without HIP's headers.
#[test]
fn corpus_compiles_for_amd_through_the_layer() {
    amd_runtime();
    let own = own_programs();
    assert!(own.iter().map(|p| p.kernels.len()).sum::<usize>() >= 30);
    match Rocm::expected() {
        Rocm::V5_2 => return without_the_layer(),
        Rocm::V5_7 => return older_hiprtc(),
        Rocm::V6_4 => {}
    }
    let dir = corpus();
    let hip_include = dir.join("hip-include");
    assert!(
        hip_include.join("hip/hip_bf16.h").is_file(),
        "{}: no HIP headers",
        hip_include.display()
    );
    compile_all("own corpus", &own, &hip_include, true);
    let cudarc = cudarc_programs(&dir.join("cudarc"));
    assert!(cudarc.len() >= 6, "{} kernel sources", cudarc.len());
    compile_all("cudarc 0.19.10 examples", &cudarc, &hip_include, true);
    let candle = candle_programs(&dir.join("candle-kernels"));
    assert_eq!(candle.len(), 11, "candle-kernels' PTX modules");
    compile_all("candle-kernels 0.11.1", &candle, &hip_include, false);
}

/// ROCm 5.2's hiprtc gets the source unchanged (it corrupts memory in
/// compiles through the layer): CUDA's headers are missing, and the log
/// says why.
fn without_the_layer() {
    let log = failed_log(
        "#include <cuda_fp16.h>\nextern \"C\" __global__ void k(__half* x) { x[0] = __float2half(1.0f); }\n",
    );
    assert!(
        log.contains("is used with ROCm 5.7 and later (this is 5.2)"),
        "{log}"
    );
    assert!(log.contains("cuda_fp16.h"), "{log}");
}

/// The log of `src`'s compile for gfx90a, which must fail to compile.
fn failed_log(src: &str) -> String {
    let opts = CompileOptions {
        arch: Some("gfx90a"),
        ..Default::default()
    };
    match compile_ptx_with_opts(src, opts) {
        Err(CompileError::CompileError { log, .. }) => log.to_string_lossy().into_owned(),
        other => panic!("expected a compile error: {other:?}\n{src}"),
    }
}

/// What an older hiprtc, with no HIP headers beside it, must do.
fn older_hiprtc() {
    const PORTABLE: &str = r#"
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <stdint.h>
#include <math.h>
extern "C" __global__ void warp_sum(const float* x, float* out) {
  float v = x[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  if ((threadIdx.x & 31) == 0) out[threadIdx.x / 32] = v * (float)M_PI;
}
extern "C" __global__ void mixed(__half* h, __nv_fp8_e4m3* q, const int* a, int* c, uint8_t* b) {
  h[threadIdx.x] = __hadd(h[threadIdx.x], __float2half(1.0f));
  q[threadIdx.x] = __nv_fp8_e4m3((float)h[threadIdx.x]);
  c[threadIdx.x] = __dp4a(a[0], a[1], 0) + (int)__ballot_sync(0xffffffffu, a[2] > 0);
  b[threadIdx.x] = (uint8_t)INT8_MAX;
}
"#;
    let program = Program {
        name: "portable.cu".into(),
        source: PORTABLE.into(),
        include_paths: Vec::new(),
        kernels: ["mixed", "warp_sum"].map(String::from).into(),
    };
    // No HIP include folder: the runtime's prefix has none here.
    let (failures, _) = compile(&program, Path::new("/nonexistent"));
    assert!(failures.is_empty(), "{failures:?}");
    let log = failed_log(
        "#include <cuda_bf16.h>\nextern \"C\" __global__ void k(__nv_bfloat16* x) { x[0] = __float2bfloat16(1.0f); }\n",
    );
    assert!(
        log.contains("has no HIP bf16 header (hip/hip_bf16.h)"),
        "{log}"
    );
    assert!(
        log.contains("does not compile for AMD through hip-rs's CUDA layer"),
        "{log}"
    );
}

#[test]
fn rust_string_literals_are_read_as_rustc_reads_them() {
    let text = r####"
// a "comment"
let c = '"';
let a = "one \"two\"\n\
         three";
let b = r#"raw "quoted" text"#;
fn f<'a>(x: &'a str) {}
"####;
    assert_eq!(
        rust_strings(text),
        ["one \"two\"\nthree", "raw \"quoted\" text"]
    );
    let src = "extern \"C\" __global__ void a(int* x) {}\n__global__ void b() {}\nextern \"C\" __global__ void __launch_bounds__(64) c(float* y) {}";
    assert_eq!(extern_c_kernels(src), ["a", "c"].map(String::from).into());
}
