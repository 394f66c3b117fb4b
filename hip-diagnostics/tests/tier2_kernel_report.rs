//! Tier 2: the kernel report on code objects the machine's HIP compiler
//! makes, checked against the compiler's own account of each kernel
//! (`-Rpass-analysis=kernel-resource-usage`): registers, spills, scratch,
//! LDS and waves per SIMD, for a wave64 target with unified AGPRs
//! (gfx90a), one with separate AGPRs (gfx908) and a wave32 one (gfx1030).
//! Needs hipcc (Debian: `apt install hipcc rocm-device-libs
//! libamdhip64-dev`, as `scripts/install-deps.sh` does); without it these
//! tests fail and say so.

use hip::code_object::{kernels, KernelInfo};
use hip_build::Toolchain;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A kernel with `__launch_bounds__(64)` and LDS, one made to spill (24
/// VGPRs for 64 live values), one with a private array in scratch.
const SOURCE: &str = r#"
#include <hip/hip_runtime.h>
extern "C" __global__ void __launch_bounds__(64) bounded(float* x) {
  __shared__ float s[256];
  s[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = s[(threadIdx.x + 1) % 64];
}
extern "C" __global__ void __attribute__((amdgpu_num_vgpr(24))) spiller(const float* x, float* y) {
  float a[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) a[i] = x[i * 1024 + threadIdx.x];
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < 64; ++i) s += a[i] * a[63 - i] + a[(i * 5) % 64];
#pragma unroll
  for (int i = 0; i < 64; ++i) y[i * 1024 + threadIdx.x] = a[i] * s;
}
extern "C" __global__ void private_array(float* x, int n) {
  float a[200];
  for (int i = 0; i < 200; ++i) a[i] = x[i * n + threadIdx.x];
  for (int i = 0; i < 200; ++i) a[(i * 7 + n) % 200] += a[i];
  x[threadIdx.x] = a[n % 200];
}
"#;

fn temp_dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hip-kernel-report-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn toolchain() -> Toolchain {
    Toolchain::find()
        .unwrap_or_else(|e| panic!("this test needs ROCm's hipcc and none was found:\n{e}"))
}

/// Compiles `src` for `targets` into `out` (`extra` decides the
/// container); returns the compiler's remarks.
fn compile(tc: &Toolchain, src: &Path, targets: &[&str], out: &Path, extra: &[&str]) -> String {
    let mut c = tc.hip_command();
    c.args(targets.iter().map(|t| format!("--offload-arch={t}")));
    c.args(["-O3", "-Rpass-analysis=kernel-resource-usage"]);
    c.args(extra).arg("-c").arg(src).arg("-o").arg(out);
    let o = c.output().expect("the compiler runs");
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{c:?} failed:\n{stderr}");
    stderr
}

/// The compiler's remarks per kernel: `Function Name: k` then
/// `    VGPRs: 24` and so on.
fn remarks(stderr: &str) -> BTreeMap<String, BTreeMap<String, u32>> {
    let mut out: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    let mut current = None;
    for line in stderr.lines() {
        let Some((_, rest)) = line.split_once("remark: ") else {
            continue;
        };
        let rest = rest.split(" [-Rpass").next().unwrap_or(rest);
        if let Some(name) = rest.strip_prefix("Function Name: ") {
            current = Some(name.trim().to_owned());
        } else if let (Some(k), Some((key, value))) = (&current, rest.trim().split_once(": ")) {
            if let Ok(v) = value.trim().parse() {
                out.entry(k.clone()).or_default().insert(key.to_owned(), v);
            }
        }
    }
    out
}

fn check(k: &KernelInfo, r: &BTreeMap<String, u32>) {
    let field = |key: &str| {
        *r.get(key)
            .unwrap_or_else(|| panic!("no remark {key:?} for {}: {r:?}", k.name))
    };
    let what = format!("{} on {}", k.name, k.target);
    let (v, a) = (field("VGPRs"), r.get("AGPRs").copied().unwrap_or(0));
    // .vgpr_count (LLVM's getTotalNumVGPRs): with AGPRs on gfx90a, one
    // file (VGPRs in blocks of 4, then AGPRs); else the larger of the two.
    let total = if k.processor() == "gfx90a" && a > 0 {
        v.next_multiple_of(4) + a
    } else {
        v.max(a)
    };
    assert_eq!(k.vgprs, total, "{what}: VGPRs");
    assert_eq!(k.agprs, r.get("AGPRs").copied(), "{what}: AGPRs");
    assert_eq!(k.sgprs, field("SGPRs"), "{what}: SGPRs");
    assert_eq!(k.vgpr_spills, field("VGPRs Spill"), "{what}: VGPR spills");
    assert_eq!(k.sgpr_spills, field("SGPRs Spill"), "{what}: SGPR spills");
    assert_eq!(
        k.scratch_bytes,
        field("ScratchSize [bytes/lane]"),
        "{what}: scratch"
    );
    assert_eq!(k.lds_bytes, field("LDS Size [bytes/block]"), "{what}: LDS");
    assert_eq!(
        k.waves_per_simd,
        Some(field("Occupancy [waves/SIMD]")),
        "{what}: waves per SIMD"
    );
}

#[test]
fn the_report_agrees_with_the_compilers_remarks() {
    let tc = toolchain();
    println!("compiler: {} {:?}", tc.compiler.display(), tc.version());
    let dir = temp_dir("remarks");
    let src = dir.join("k.hip");
    std::fs::write(&src, SOURCE).unwrap();
    let mut spilling = 0;
    for target in ["gfx90a", "gfx908", "gfx1030"] {
        // A host object: the bundle sits in its .hip_fatbin section.
        let obj = dir.join(format!("{target}.o"));
        let stderr = compile(&tc, &src, &[target], &obj, &[]);
        let r = remarks(&stderr);
        let ks = kernels(&std::fs::read(&obj).unwrap()).unwrap_or_else(|e| panic!("{target}: {e}"));
        let names: Vec<&str> = ks.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names.len(), 3, "{target}: {names:?}");
        for k in &ks {
            assert_eq!(k.processor(), target);
            check(
                k,
                r.get(&k.name)
                    .unwrap_or_else(|| panic!("no remarks for {}: {stderr}", k.name)),
            );
            let bound = if k.name == "bounded" { 64 } else { 1024 };
            assert_eq!(k.max_workgroup_size, bound, "{} on {target}", k.name);
        }
        let find = |n: &str| ks.iter().find(|k| k.name == n).unwrap();
        assert!(
            find("spiller").vgpr_spills > 0,
            "{target}: the spiller does not spill"
        );
        assert!(
            !find("private_array").spills(),
            "{target}: an array in scratch is no spill"
        );
        assert!(find("private_array").scratch_bytes >= 800, "{target}");
        assert_eq!(find("bounded").lds_bytes, 1024, "{target}");
        spilling += ks.iter().filter(|k| k.spills()).count();
    }
    assert_eq!(spilling, 3, "one spilling kernel per target");
}

#[test]
fn bare_code_objects_bundles_and_the_program_agree() {
    let tc = toolchain();
    let dir = temp_dir("containers");
    let src = dir.join("k.hip");
    std::fs::write(&src, SOURCE).unwrap();
    let bundle = dir.join("k.bundle");
    compile(
        &tc,
        &src,
        &["gfx90a", "gfx1030"],
        &bundle,
        &["--cuda-device-only"],
    );
    let from_bundle = kernels(&std::fs::read(&bundle).unwrap()).unwrap();
    assert_eq!(from_bundle.len(), 6);
    let bare = dir.join("k.gfx1030.co");
    compile(
        &tc,
        &src,
        &["gfx1030"],
        &bare,
        &["--cuda-device-only", "--no-gpu-bundle-output"],
    );
    let from_bare = kernels(&std::fs::read(&bare).unwrap()).unwrap();
    let gfx1030: Vec<&KernelInfo> = from_bundle
        .iter()
        .filter(|k| k.processor() == "gfx1030")
        .collect();
    assert_eq!(from_bare.iter().collect::<Vec<_>>(), gfx1030);
    assert!(from_bare.iter().all(|k| k.wavefront_size == 32));

    // 20,000 corruptions of the real bundle (truncations, bit flips,
    // random words) never panic; both answers occur.
    let image = std::fs::read(&bundle).unwrap();
    let mut x = 0x5eed_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (mut read, mut refused) = (0, 0);
    for i in 0..20_000u64 {
        let mut img = image.clone();
        let at = (next() % img.len() as u64) as usize;
        match i % 3 {
            0 => img.truncate(at),
            1 => img[at] ^= 1 << (next() % 8),
            _ => {
                let at = at.min(img.len() - 8);
                img[at..at + 8].copy_from_slice(&next().to_le_bytes());
            }
        }
        match kernels(&img) {
            Ok(_) => read += 1,
            Err(e) => {
                assert!(!e.reason.is_empty());
                refused += 1;
            }
        }
    }
    println!("corruptions: {read} read, {refused} refused");
    assert!(
        refused >= 6_666 && read > 0,
        "{read} read, {refused} refused"
    );

    // The program: a table naming each kernel, and JSON with the numbers.
    let out = Command::new(env!("CARGO_BIN_EXE_hip-info"))
        .arg("kernels")
        .arg(&bundle)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("kernel instances: 6, spilling: 2"), "{text}");
    let summary = text.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("2 of 6 kernel instances spill registers (")
            && summary.contains("gfx90a 1")
            && summary.contains("gfx1030 1"),
        "{text}"
    );
    #[cfg(feature = "json")]
    {
        let out = Command::new(env!("CARGO_BIN_EXE_hip-info"))
            .args(["kernels", "--json", "--spilling"])
            .arg(&bundle)
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let listed = json["files"][0]["kernels"].as_array().unwrap();
        assert_eq!(listed.len(), 2, "{json}");
        assert!(listed.iter().all(|k| k["name"] == "spiller"), "{json}");
        let spiller = from_bundle.iter().find(|k| k.name == "spiller").unwrap();
        assert_eq!(listed[0]["vgpr_spills"], spiller.vgpr_spills, "{json}");
        assert_eq!(json["summary"]["spilling"], 2);
    }
}
