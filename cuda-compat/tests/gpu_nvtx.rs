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

/// cudarc's `nvtx::result` functions (over `hip::result`'s roctx calls)
/// around a real copy and computation on the platform's library: domains,
/// `Ex` calls with ASCII, wide and registered messages, nested push/pop
/// levels. NVTX returns no status, so there is no failure to keep a reason
/// for.
#[test]
#[ignore = "needs a GPU"]
fn gpu_result_functions_annotate_a_real_computation() {
    use cuda_compat::nvtx::sys;
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let wide: Vec<sys::wchar_t> = "gpu_nvtx: wide"
        .chars()
        .map(|c| c as sys::wchar_t)
        .chain([0])
        .collect();
    let domain = result::domain_create("gpu_nvtx domain");
    assert!(!domain.is_null());
    let attributes = |kind: sys::nvtxMessageType_t, message| sys::nvtxEventAttributes_t {
        version: 3,
        size: size_of::<sys::nvtxEventAttributes_t>() as u16,
        category: 0,
        colorType: sys::nvtxColorType_t::NVTX_COLOR_ARGB as u32 as i32,
        color: 0xff0000ff,
        payloadType: 0,
        reserved0: 0,
        payload: sys::nvtxEventAttributes_v2_payload_t { ullValue: 0 },
        messageType: kind as u32 as i32,
        message,
    };
    // SAFETY: a NUL-terminated string.
    let registered =
        unsafe { sys::nvtxDomainRegisterStringA(domain, c"gpu_nvtx: registered".as_ptr()) };
    let ascii = attributes(
        sys::nvtxMessageType_t::NVTX_MESSAGE_TYPE_ASCII,
        sys::nvtxMessageValue_t {
            ascii: c"gpu_nvtx: ascii".as_ptr(),
        },
    );
    let unicode = attributes(
        sys::nvtxMessageType_t::NVTX_MESSAGE_TYPE_UNICODE,
        sys::nvtxMessageValue_t {
            unicode: wide.as_ptr(),
        },
    );
    let named = attributes(
        sys::nvtxMessageType_t::NVTX_MESSAGE_TYPE_REGISTERED,
        sys::nvtxMessageValue_t { registered },
    );

    result::mark_ex(&ascii);
    let started = result::range_start_ex(&unicode);
    // SAFETY: `domain` is live until destroyed below; the attributes'
    // messages are what their types say, and outlive the calls.
    let (outer, inner) = unsafe {
        result::domain_mark(domain, &named);
        let outer = result::domain_range_push(domain, &ascii);
        let inner = result::range_push_ex(&named);
        (outer, inner)
    };
    let x: Vec<f32> = test_kit::random_nonzero(4096, 0.5f32..2.0);
    let device = stream.clone_htod(&x).unwrap();
    assert_eq!(stream.clone_dtoh(&device).unwrap(), x);
    let inner_popped = result::range_pop();
    // SAFETY: as above.
    let outer_popped = unsafe { result::domain_range_pop(domain) };
    // SAFETY: `started` came from `range_start_ex`, ended once.
    unsafe { result::range_end(started) };
    println!("levels {outer} {inner}, pops {inner_popped} {outer_popped}, range id {started}");
    if outer >= 0 {
        assert_eq!(
            (inner, inner_popped, outer_popped),
            (outer + 1, outer + 1, outer)
        );
    } else {
        // Nothing tracked (-2: NVTX without a profiler; -1: no library).
        assert_eq!((inner, inner_popped, outer_popped), (outer, outer, outer));
    }
    // SAFETY: made by `domain_create`, destroyed once.
    unsafe { result::domain_destroy(domain) };
}
