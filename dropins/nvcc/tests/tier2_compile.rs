//! Tier 2: the front compiles a small CUDA source to an object for gfx90a
//! with this machine's HIP compiler (hip-build's search: `HIPCC`,
//! `ROCM_PATH`, ..., Debian's `/usr/bin/hipcc`).
//!
//! - A compiler whose HIP has `hip/hip_bf16.h` (ROCm 6 and later, e.g.
//!   `ROCM_PATH=$(bash scripts/hip-toolchain.sh)`): the object holds AMD
//!   code for gfx90a.
//! - Debian 12's hipcc (ROCm 5.2) has no `hip_bf16.h`, which the layer
//!   includes: the front must fail with exit status 1, naming that header
//!   and the reason, after trying every `__CUDA_ARCH__` level.
//! - No compiler: with `HIP_TEST_EXPECT_RUNTIME=amd` (scripts/test.sh sets
//!   it where the AMD packages, hipcc among them, are installed) the test
//!   fails; otherwise the front must fail saying no HIP compiler was found.

use std::path::Path;
use std::process::Command;

const SOURCE: &str = r#"#include <cuda_fp16.h>
extern "C" __global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = __half2float(__float2half(x[i])) * a;
}
"#;

fn amd_runtime_expected() -> bool {
    match std::env::var("HIP_TEST_EXPECT_RUNTIME") {
        Ok(v) if v == "amd" => true,
        Ok(v) if v.is_empty() => false,
        Ok(v) => panic!("HIP_TEST_EXPECT_RUNTIME={v}: the only value it takes is `amd`"),
        Err(_) => false,
    }
}

#[test]
fn a_cuda_source_becomes_a_gfx90a_object() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hip-nvcc-tier2");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("k.cu"), SOURCE).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_nvcc"))
        .env("HIP_PLATFORM", "amd")
        .env("HIP_BUILD_OFFLOAD_ARCH", "gfx90a")
        .current_dir(&dir)
        .args([
            "-std=c++17",
            "-O3",
            "--use_fast_math",
            "-Xcompiler",
            "-fPIC",
        ])
        .args(["-arch=sm_80", "-c", "k.cu", "-o", "k.o"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    let toolchain = cudaforge::amd::toolchain();
    println!("toolchain: {toolchain:?}");
    let Ok(tc) = toolchain else {
        assert!(
            !amd_runtime_expected(),
            "HIP_TEST_EXPECT_RUNTIME=amd, but no HIP compiler was found:\n{err}"
        );
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("no HIP compiler to compile CUDA sources for AMD GPUs"),
            "{err}"
        );
        return;
    };
    let headers = tc
        .rocm_path
        .as_ref()
        .map(|r| r.join("include/hip/hip_bf16.h"));
    if headers.as_ref().is_some_and(|h| h.is_file()) || o.status.success() {
        assert!(o.status.success(), "{}:\n{err}", tc.compiler.display());
        let object = std::fs::read(dir.join("k.o")).unwrap();
        assert!(object.starts_with(b"\x7fELF"), "not an ELF object");
        let has = |needle: &[u8]| object.windows(needle.len()).any(|w| w == needle);
        assert!(has(b"amdgcn-amd-amdhsa--gfx90a"), "no gfx90a code in k.o");
        assert!(has(b"scale"), "no kernel symbol in k.o");
    } else {
        // An old HIP (Debian 12's ROCm 5.2): the layer's bf16 header is
        // missing, and the front says so.
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("hip/hip_bf16.h"), "{err}");
        assert!(
            err.contains("k.cu compiles for AMD GPUs at no __CUDA_ARCH__ level"),
            "{err}"
        );
        assert!(!dir.join("k.o").exists());
    }
}
