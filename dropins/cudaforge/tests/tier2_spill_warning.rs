//! Tier 2: the one-line spill warning of AMD builds, on code objects the
//! machine's HIP compiler makes: a bundle (PTX builds) and a host object
//! (library builds) in a build folder's `obj/`. Needs hipcc (Debian: `apt
//! install hipcc rocm-device-libs libamdhip64-dev`); without it this test
//! fails and says so.

use cudaforge::amd::spill_warning;
use hip_build::Toolchain;
use std::path::{Path, PathBuf};

const SPILLS: &str = r#"
#include <hip/hip_runtime.h>
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
extern "C" __global__ void fine(float* x) { x[threadIdx.x] *= 2.0f; }
"#;

fn folder(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cudaforge-spills-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("obj")).unwrap();
    d
}

fn compile(src: &Path, targets: &[&str], out: &Path, extra: &[&str]) {
    let tc = Toolchain::find()
        .unwrap_or_else(|e| panic!("this test needs ROCm's hipcc and none was found:\n{e}"));
    let mut c = tc.hip_command();
    c.args(targets.iter().map(|t| format!("--offload-arch={t}")));
    c.args(["-O3", "-c"])
        .args(extra)
        .arg(src)
        .arg("-o")
        .arg(out);
    let o = c.output().expect("the compiler runs");
    assert!(
        o.status.success(),
        "{c:?}:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn spilling_kernels_make_one_line_naming_the_folder() {
    let dir = folder("spill");
    let src = dir.join("k.hip");
    std::fs::write(&src, SPILLS).unwrap();
    // A PTX build's bundle and a library build's host object.
    compile(
        &src,
        &["gfx90a", "gfx1030"],
        &dir.join("obj/k.bundle"),
        &["--cuda-device-only"],
    );
    compile(&src, &["gfx90a"], &dir.join("obj/000-k.o"), &[]);
    // What else lies there: sources and an unrelated file.
    std::fs::write(dir.join("obj/000-k.stub.cpp"), "// stub").unwrap();
    let line = spill_warning(&dir).expect("a warning");
    let tail = format!(
        "); run hip-info kernels {} for the list",
        dir.join("obj").display()
    );
    assert!(
        line.starts_with("3 of 6 kernel instances spill registers (") && line.ends_with(&tail),
        "{line}"
    );
    // Per processor, in the order the files list them.
    assert!(
        line.contains("gfx90a 2") && line.contains("gfx1030 1"),
        "{line}"
    );
}

#[test]
fn no_warning_without_spills_or_code_objects() {
    let dir = folder("fine");
    let src = dir.join("k.hip");
    std::fs::write(
        &src,
        "#include <hip/hip_runtime.h>\nextern \"C\" __global__ void fine(float* x) { x[threadIdx.x] *= 2.0f; }\n",
    )
    .unwrap();
    compile(
        &src,
        &["gfx90a"],
        &dir.join("obj/k.bundle"),
        &["--cuda-device-only"],
    );
    assert_eq!(spill_warning(&dir), None);
    assert_eq!(spill_warning(&folder("empty")), None);
}
