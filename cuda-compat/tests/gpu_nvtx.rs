//! Tier 3: cudarc's `nvtx` module on the GPU machine. Real cudarc panics
//! there (CUDA 13 ships no `libnvToolsExt`); here the annotations reach
//! NVTX through `libnvtx3interop.so.1`. Run with `cargo test -p cuda-compat
//! --test gpu_nvtx -- --ignored` (`HIP_PLATFORM=nvidia` on NVIDIA).

use cuda_compat::driver::CudaContext;
use cuda_compat::nvtx::{mark, result, scoped_range, Event, Payload};

#[test]
#[ignore = "needs a GPU"]
fn cudarc_style_nvtx_reaches_the_platforms_library() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let platform = hip_sys::loader::runtime().map(|r| r.platform);
    let library = roctx_sys::loader::roctx();
    match &library {
        Ok(lib) => println!("nvtx over {:?}: {:?}", lib.platform, lib.libraries),
        Err(e) => println!("no annotation library:\n{e}"),
    }
    if platform == Ok(hip_sys::loader::common::Platform::Nvidia) {
        let lib = library.unwrap_or_else(|e| {
            panic!("CUDA 13 ships libnvtx3interop.so.1, but no NVTX library loaded:\n{e}")
        });
        assert!(lib.is_available("roctxRangePushA"), "{lib:?}");
    }

    mark("gpu_nvtx: start");
    let outer = scoped_range("gpu_nvtx: outer");
    let mut event = Event::message("gpu_nvtx: copy");
    event.argb(0xff00ff00).payload(Payload::U64(3));
    let inner = event.range();
    let device = stream.clone_htod(&[1u32, 2, 3]).unwrap();
    assert_eq!(stream.clone_dtoh(&device).unwrap(), [1, 2, 3]);
    drop(inner);
    drop(outer);

    let levels: Vec<i32> = (0..2)
        .map(|i| result::range_push(format!("level {i}")))
        .collect();
    let pops: Vec<i32> = (0..2).map(|_| result::range_pop()).collect();
    println!("push levels {levels:?}, pop levels {pops:?}");
    if levels[0] == -2 {
        // NVTX with no profiler attached tracks nothing.
        assert_eq!(
            (levels.as_slice(), pops.as_slice()),
            (&[-2, -2][..], &[-2, -2][..])
        );
    } else if levels[0] >= 0 {
        assert_eq!(levels, [levels[0], levels[0] + 1], "levels nest");
        assert_eq!(
            pops,
            [levels[0] + 1, levels[0]],
            "pops return the popped level"
        );
    } else {
        assert!(
            library.is_err(),
            "a negative level {levels:?} from a loaded library"
        );
    }
    // cudarc panics on a NUL byte; the message is cut here.
    mark("gpu_nvtx: cut\0here");
}
