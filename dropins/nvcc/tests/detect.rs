//! The cudaforge drop-in's CUDA toolkit search passes over the front: with
//! the front installed as `nvcc` on `PATH` (or named by `NVCC`) and no
//! NVIDIA toolkit, no nvcc is found, so the drop-in takes its AMD path; an
//! NVIDIA nvcc later in the search is found past it. One test: it changes
//! the process environment.

use cudaforge::CudaToolkit;
use std::path::Path;

#[test]
fn the_drop_in_passes_over_the_front() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hip-nvcc-detect");
    let _ = std::fs::remove_dir_all(&dir);
    let front_bin = dir.join("cargo/bin");
    let cuda_bin = dir.join("cuda/bin");
    std::fs::create_dir_all(&front_bin).unwrap();
    std::fs::create_dir_all(&cuda_bin).unwrap();
    let front = front_bin.join("nvcc");
    std::fs::copy(env!("CARGO_BIN_EXE_nvcc"), &front).unwrap();
    for v in [
        "NVCC",
        "CUDA_HOME",
        "CUDA_PATH",
        "CUDA_ROOT",
        "HIP_PLATFORM",
    ] {
        std::env::remove_var(v);
    }
    std::env::set_var("PATH", &front_bin);
    let found = CudaToolkit::detect();
    if Path::new("/usr/local/cuda/bin/nvcc").is_file() {
        // A machine with CUDA: that nvcc, never the front.
        assert_ne!(found.unwrap().nvcc_path, front);
    } else {
        let e = found.unwrap_err().to_string();
        assert!(
            e.contains(&format!("{} is hip-nvcc", front.display())),
            "{e}"
        );
    }
    // Named by NVCC: refused as no toolkit.
    std::env::set_var("NVCC", &front);
    let e = CudaToolkit::detect().unwrap_err().to_string();
    assert!(e.contains("is hip-nvcc"), "{e}");
    std::env::remove_var("NVCC");
    assert!(CudaToolkit::from_nvcc_path(front.clone()).is_err());
    // An NVIDIA nvcc after it on PATH is found.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../cudaforge/tests/fixtures/fake-nvcc"),
        cuda_bin.join("nvcc"),
    )
    .unwrap();
    // (The system folders for the stand-in's bash.)
    let path = [
        &front_bin,
        &cuda_bin,
        Path::new("/usr/bin"),
        Path::new("/bin"),
    ];
    std::env::set_var("PATH", std::env::join_paths(path).unwrap());
    let tk = CudaToolkit::detect().unwrap();
    assert_eq!(tk.nvcc_path, cuda_bin.join("nvcc"));
    assert_eq!(tk.version, Some((13, 0)));
    let _ = std::fs::remove_dir_all(&dir);
}
