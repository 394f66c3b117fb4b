//! Tier 3: `hip::roctx` on the GPU machine. On NVIDIA (CUDA 13, which has
//! no `libnvToolsExt`) the annotations must reach NVTX's
//! `libnvtx3interop.so.1`; without a profiler NVTX tracks nothing (push and
//! pop return -2), which the checks accept and print. Run with `cargo test
//! -p hip --test gpu_roctx -- --ignored`.

#[path = "roctx_checks/mod.rs"]
mod roctx_checks;

use hip::roctx;
use roctx_checks::*;

#[test]
#[ignore = "needs a GPU"]
fn nvidia_annotations_reach_nvtx() {
    let runtime = hip::sys::loader::runtime().expect("the GPU machine has a HIP or CUDA runtime");
    let backend = backend();
    if runtime.platform == hip::sys::loader::common::Platform::Nvidia {
        let lib = roctx::library().unwrap_or_else(|e| {
            panic!("CUDA 13 ships libnvtx3interop.so.1, but no NVTX library loaded:\n{e}")
        });
        assert_eq!(
            lib.available_count(),
            5,
            "the five NVTX counterparts: {lib:?}"
        );
        assert_eq!(roctx::version(), None, "NVTX has no version call");
    } else {
        println!("AMD: {backend:?}");
    }
}

#[test]
#[ignore = "needs a GPU"]
fn ranges_nest_on_the_gpu_platform() {
    // Around real work, as a profiled program has them.
    let device = hip::Device::get(0).unwrap();
    let stream = hip::Stream::new(&device).unwrap();
    let _r = roctx::range("gpu_roctx: copy").unwrap();
    let buffer = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
    assert_eq!(stream.clone_dtoh(&buffer).unwrap(), [1.0, 2.0, 3.0]);
    drop(_r);
    ranges_nest(backend());
}

#[test]
#[ignore = "needs a GPU"]
fn guards_pop_on_drop_and_on_panic_on_the_gpu_platform() {
    guards_pop_on_drop_and_on_panic(backend());
}

#[test]
#[ignore = "needs a GPU"]
fn marks_and_process_ranges_on_the_gpu_platform() {
    marks_and_process_ranges(backend());
}
