//! Tier 3: cudarc's safe API on a real GPU. Run with `--ignored`
//! (`HIP_PLATFORM=nvidia` on an NVIDIA GPU, or an AMD GPU). Every test
//! compares with a CPU reference on fresh random non-zero data.
//!
//! The cross-stream tests use a kernel that spins for about 100 ms of
//! `clock64()` before touching memory, so that without the per-buffer event
//! tracking the other stream would certainly run first and the result be
//! wrong.

use cuda_compat::driver::{
    sys, CudaContext, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg,
};
use cuda_compat::nvrtc::{compile_ptx, CompileError, Ptx};
use std::sync::Arc;
use test_kit::{assert_close, Trans};

mod common;
use common::random;

const KERNELS: &str = concat!(
    test_kit::cycle_stopwatch_cuda!(),
    r#"
__constant__ float coefficients[4];

// out[i] = 2 * in[i] + 1, after spinning `spin` clock cycles: long enough
// that an unordered reader or writer on another stream runs first.
extern "C" __global__ void slow_affine(float* out, const float* in, int n, long long spin) {
    hiprs_spin(spin);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i] + 1.0f;
}

extern "C" __global__ void add_one(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

// At most 64 threads a block: a larger launch must fail, naming it.
extern "C" __global__ void __launch_bounds__(64) bounded_add_one(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

extern "C" __global__ void polynomial(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[i] = coefficients[0] + coefficients[1] * x + coefficients[2] * x * x
               + coefficients[3] * x * x * x;
    }
}
"#
);

/// About 100 ms at up to 2 GHz.
const SPIN: i64 = 200_000_000;
const N: usize = 4096;

fn affine(x: &[f32]) -> Vec<f32> {
    x.iter().map(|v| 2.0 * v + 1.0).collect()
}

fn setup() -> (Arc<CudaContext>, Arc<cuda_compat::driver::CudaModule>) {
    common::setup(KERNELS)
}

fn launch_slow(
    stream: &Arc<CudaStream>,
    module: &Arc<cuda_compat::driver::CudaModule>,
    out: &mut CudaSlice<f32>,
    input: &CudaSlice<f32>,
) -> Result<(), DriverError> {
    let f = module.load_function("slow_affine")?;
    let n = input.len() as i32;
    // SAFETY: slow_affine(float*, const float*, int, long long) touches
    // [0, n) of both, and both hold n elements.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(out)
            .arg(input)
            .arg(&n)
            .arg(&SPIN)
            .launch(LaunchConfig::for_num_elems(n as u32))
    }?;
    Ok(())
}

/// Exact in f32 up to one rounding of 2x+1: tolerance 1e-6 relative.
const TOL: f32 = 1e-6;

#[test]
#[ignore = "needs a GPU"]
fn reader_on_another_stream_waits_for_a_slow_writer() {
    let (ctx, module) = setup();
    let a = ctx.new_stream().unwrap();
    let b = ctx.new_stream().unwrap();
    let x_host = random(N);
    let x = a.clone_htod(&x_host).unwrap();
    let mut y = a.alloc_zeros::<f32>(N).unwrap();
    launch_slow(&a, &module, &mut y, &x).unwrap();
    // Read y on stream b: must wait for the slow write on a.
    let y_host = b.clone_dtoh(&y).unwrap();
    assert_close(&y_host, &affine(&x_host), TOL, "y read on the other stream");
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn writer_on_another_stream_waits_for_a_slow_reader() {
    let (ctx, module) = setup();
    let a = ctx.new_stream().unwrap();
    let b = ctx.new_stream().unwrap();
    let old = random(N);
    let new = random(N);
    let mut x = a.clone_htod(&old).unwrap();
    let mut y = a.alloc_zeros::<f32>(N).unwrap();
    launch_slow(&a, &module, &mut y, &x).unwrap();
    // Overwrite x on stream b: must wait for the slow read on a.
    b.memcpy_htod(&new, &mut x).unwrap();
    assert_close(
        &a.clone_dtoh(&y).unwrap(),
        &affine(&old),
        TOL,
        "y from the old x",
    );
    assert_eq!(b.clone_dtoh(&x).unwrap(), new);
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn free_is_stream_ordered_after_a_reader_on_another_stream() {
    let (ctx, module) = setup();
    let a = ctx.new_stream().unwrap();
    let b = ctx.new_stream().unwrap();
    let x_host = random(N);
    let x = a.clone_htod(&x_host).unwrap();
    let mut y = b.alloc_zeros::<f32>(N).unwrap();
    launch_slow(&b, &module, &mut y, &x).unwrap();
    let start = std::time::Instant::now();
    // Freed on a, after a waits for the read on b; the host does not wait.
    drop(x);
    let drop_time = start.elapsed();
    // A new buffer of the same size on a (the pool may hand back x's
    // memory) gets other data at once; the slow kernel must still see x's.
    let other = random(N);
    let z = a.clone_htod(&other).unwrap();
    assert_close(
        &b.clone_dtoh(&y).unwrap(),
        &affine(&x_host),
        TOL,
        "y from the freed x",
    );
    assert_eq!(a.clone_dtoh(&z).unwrap(), other);
    if ctx.has_async_alloc() {
        assert!(
            drop_time < std::time::Duration::from_millis(50),
            "a stream-ordered free must not wait for the device: {drop_time:?}"
        );
    }
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn launch_timing_events_measure_the_spin() {
    let (ctx, module) = setup();
    let s = ctx.default_stream();
    let f = module.load_function("slow_affine").unwrap();
    let x_host = random(N);
    let x = s.clone_htod(&x_host).unwrap();
    let mut y = s.alloc_zeros::<f32>(N).unwrap();
    let n = N as i32;
    let mut builder = s.launch_builder(&f);
    builder.arg(&mut y).arg(&x).arg(&n).arg(&SPIN);
    builder.record_kernel_launch(sys::CUevent_flags::CU_EVENT_DEFAULT);
    // SAFETY: as in `launch_slow`.
    let (start, end) = unsafe { builder.launch(LaunchConfig::for_num_elems(n as u32)) }
        .unwrap()
        .expect("events were asked for");
    end.synchronize().unwrap();
    let ms = start.elapsed_ms(&end).unwrap();
    // 2e8 cycles at no more than ~3 GHz is at least ~60 ms.
    assert!((20.0..10_000.0).contains(&ms), "elapsed {ms} ms");
    assert_close(&s.clone_dtoh(&y).unwrap(), &affine(&x_host), TOL, "y");
}

#[test]
#[ignore = "needs a GPU"]
fn a_launch_over_the_kernels_bound_is_out_of_resources_naming_it() {
    let (ctx, module) = setup();
    let s = ctx.default_stream();
    let input = random(N);
    let mut x = s.clone_htod(&input).unwrap();
    let f = module.load_function("bounded_add_one").unwrap();
    assert_eq!(f.max_threads_per_block().unwrap(), 64);
    let n = N as i32;
    let launch = |x: &mut CudaSlice<f32>, threads: u32| {
        let cfg = LaunchConfig {
            grid_dim: ((N as u32).div_ceil(threads), 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: bounded_add_one(float*, int) touches [0, n) of x, which
        // holds n elements.
        unsafe { s.launch_builder(&f).arg(x).arg(&n).launch(cfg) }
    };
    // Within the bound it runs.
    launch(&mut x, 64).unwrap();
    // 128 threads: refused, with CUDA's status and a reason naming the
    // kernel, the block and the bound; nothing ran.
    let e = launch(&mut x, 128).unwrap_err();
    assert_eq!(
        e.0,
        sys::CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
        "{e:?}"
    );
    let (status, detail) = cuda_compat::driver::result::last_error_detail().expect("a reason");
    assert_eq!(status, sys::CUresult::CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    for want in ["bounded_add_one", "(128, 1, 1)", "launch bound of 64"] {
        assert!(detail.contains(want), "no `{want}` in: {detail}");
    }
    // The stream is still usable, and x was incremented exactly once.
    let got = s.clone_dtoh(&x).unwrap();
    let want: Vec<f32> = input.iter().map(|v| v + 1.0).collect();
    assert_close(&got, &want, TOL, "bounded_add_one");
}

#[test]
#[ignore = "needs a GPU"]
fn every_layer_reports_cudas_warp_of_32() {
    // CUDA code sizes its launches by this value (candle's quantized
    // matmul: `warp x 256 / warp` threads, indexed as 32-lane warps), and
    // the layer's warps are 32 lanes on every target.
    let (ctx, _module) = setup();
    let warp = sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_WARP_SIZE;
    assert_eq!(ctx.attribute(warp).unwrap(), 32);
    let dev = cuda_compat::driver::result::device::get(0).unwrap();
    // SAFETY: device 0 exists (the context above is on it).
    let v = unsafe { cuda_compat::driver::result::device::get_attribute(dev, warp) }.unwrap();
    assert_eq!(v, 32);
    use cuda_compat::runtime::{result::device as rt, sys as rsys};
    // SAFETY: device 0 exists; the attribute is a device attribute.
    let v = unsafe { rt::get_attribute(0, rsys::cudaDeviceAttr::cudaDevAttrWarpSize) }.unwrap();
    assert_eq!(v, 32);
    assert_eq!(rt::get_device_prop(0).unwrap().warpSize, 32);
}

#[test]
#[ignore = "needs a GPU"]
fn constant_memory_through_get_global() {
    let (ctx, module) = setup();
    let s = ctx.default_stream();
    let coeffs: Vec<f32> = random(4);
    let mut symbol = module.get_global("coefficients", &s).unwrap();
    assert_eq!(symbol.len(), 16);
    // SAFETY: refused: 5 f32 would be 20 bytes, more than the symbol has.
    assert!(unsafe { symbol.transmute_mut::<f32>(5) }.is_none());
    // SAFETY: 16 bytes hold 4 f32, any bits of which are valid.
    let mut as_f32 = unsafe { symbol.transmute_mut::<f32>(4) }.unwrap();
    s.memcpy_htod(&coeffs, &mut as_f32).unwrap();
    let input = random(N);
    let x = s.clone_htod(&input).unwrap();
    let mut y = s.alloc_zeros::<f32>(N).unwrap();
    let f = module.load_function("polynomial").unwrap();
    let n = N as i32;
    // SAFETY: polynomial(float*, const float*, int) touches [0, n) of both.
    unsafe {
        s.launch_builder(&f)
            .arg(&mut y)
            .arg(&x)
            .arg(&n)
            .launch(LaunchConfig::for_num_elems(n as u32))
    }
    .unwrap();
    let got = s.clone_dtoh(&y).unwrap();
    for (i, (&g, &v)) in got.iter().zip(&input).enumerate() {
        let v = v as f64;
        let want = coeffs[0] as f64
            + coeffs[1] as f64 * v
            + coeffs[2] as f64 * v * v
            + coeffs[3] as f64 * v * v * v;
        // f32 evaluation (maybe contracted into FMAs): 1e-5 relative.
        assert!(
            ((g as f64) - want).abs() <= 1e-5 * want.abs(),
            "[{i}] {g} vs {want}"
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn copies_into_longer_destinations_and_through_pinned_memory() {
    let (ctx, _module) = setup();
    let s = ctx.default_stream();
    let data = random(N);
    let mut longer = s.alloc_zeros::<f32>(N + 100).unwrap();
    s.memcpy_htod(&data, &mut longer).unwrap();
    let back = s.clone_dtoh(&longer).unwrap();
    assert_eq!(&back[..N], &data[..]);
    assert!(back[N..].iter().all(|&v| v == 0.0), "the rest stays zero");

    // SAFETY: zero-filled f32, a valid value.
    let mut pinned = unsafe { ctx.alloc_pinned::<f32>(N) }.unwrap();
    pinned.as_mut_slice().unwrap().copy_from_slice(&data);
    let from_pinned = s.clone_htod(&pinned).unwrap();
    assert_eq!(s.clone_dtoh(&from_pinned).unwrap(), data);
    let other = random(N);
    let dev = s.clone_htod(&other).unwrap();
    s.memcpy_dtoh(&dev, &mut pinned).unwrap();
    // as_slice waits for the asynchronous copy.
    assert_eq!(pinned.as_slice().unwrap(), &other[..]);

    // Arrays and slices as sources; views as destinations.
    let arr: [f32; 4] = [data[0], data[1], data[2], data[3]];
    let mut d = s.clone_htod(&arr).unwrap();
    let mut tail = d.try_slice_mut(2..).unwrap();
    s.memcpy_htod(&other[..2], &mut tail).unwrap();
    assert_eq!(
        s.clone_dtoh(&d).unwrap(),
        [data[0], data[1], other[0], other[1]]
    );
    {
        let (mut lo, mut hi) = d.split_at_mut(1);
        s.memcpy_htod(&[other[2]], &mut lo).unwrap();
        s.memcpy_htod(&other[3..6], &mut hi).unwrap();
    }
    assert!(d.try_slice(3..5).is_none(), "past the end");
    assert!(d.try_split_at(5).is_none());
    let mid = d.slice(1..3);
    assert_eq!(s.clone_dtoh(&mid).unwrap(), [other[3], other[4]]);
    let back: Vec<f32> = Vec::try_from(d).unwrap();
    assert_eq!(back, [other[2], other[3], other[4], other[5]]);
    ctx.check_err().unwrap();
}

/// Elements of the staged-copy test: 24 MiB and 3 elements of f32, so
/// the copies go through `hip`'s staging (4 MiB and more) and end in a
/// partial chunk.
const STAGED_N: usize = (24 << 20) / 4 + 3;

#[test]
#[ignore = "needs a GPU"]
fn large_pageable_copies_are_staged_exact_and_ordered_across_streams() {
    let (ctx, module) = setup();
    let a = ctx.new_stream().unwrap();
    let b = ctx.new_stream().unwrap();
    let host = random(STAGED_N);
    // Host to device, staged, into a new buffer and into a longer one.
    let x = a.clone_htod(&host).unwrap();
    assert_eq!(a.clone_dtoh(&x).unwrap(), host, "clone_htod, clone_dtoh");
    let mut longer = a.alloc_zeros::<f32>(STAGED_N + 5).unwrap();
    a.memcpy_htod(&host, &mut longer).unwrap();
    let back = a.clone_dtoh(&longer).unwrap();
    assert_eq!(&back[..STAGED_N], &host[..], "into a longer destination");
    assert!(
        back[STAGED_N..].iter().all(|&v| v == 0.0),
        "the rest stays zero"
    );
    // Into a view at an odd offset.
    let mut view = longer.try_slice_mut(5..).unwrap();
    a.memcpy_htod(&host, &mut view).unwrap();
    let back = a.clone_dtoh(&longer).unwrap();
    assert_eq!(&back[5..], &host[..], "into a view");

    // A slow writer on a; the staged reads on b wait for it.
    let mut y = a.alloc_zeros::<f32>(STAGED_N).unwrap();
    launch_slow(&a, &module, &mut y, &x).unwrap();
    let want = affine(&host);
    assert_close(&b.clone_dtoh(&y).unwrap(), &want, TOL, "clone_dtoh on b");
    let mut out = vec![0f32; STAGED_N];
    b.memcpy_dtoh(&y, &mut out).unwrap();
    assert_close(&out, &want, TOL, "memcpy_dtoh on b");

    // A slow reader of x on a; a staged overwrite of x on b waits for it.
    let fresh = random(STAGED_N);
    let mut x = x;
    launch_slow(&a, &module, &mut y, &x).unwrap();
    b.memcpy_htod(&fresh, &mut x).unwrap();
    assert_close(&a.clone_dtoh(&y).unwrap(), &want, TOL, "y from the old x");
    assert_eq!(b.clone_dtoh(&x).unwrap(), fresh, "x overwritten on b");

    // A length mismatch is still an error naming the copy, nothing copied.
    let mut short = vec![0f32; STAGED_N - 1];
    let e = a.memcpy_dtoh(&x, &mut short).unwrap_err();
    assert_eq!(e.0, sys::CUresult::CUDA_ERROR_INVALID_VALUE, "{e:?}");
    let (_, detail) = cuda_compat::driver::result::last_error_detail().expect("a reason");
    assert!(detail.contains("memcpy_dtoh"), "{detail}");
    assert!(short.iter().all(|&v| v == 0.0));
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn graph_capture_replays_the_launch() {
    let (ctx, module) = setup();
    // Capture waits only on work inside the capture: no buffer events.
    // SAFETY: every buffer here is used on one stream only.
    unsafe { ctx.disable_event_tracking() };
    let s = ctx.new_stream().unwrap();
    let data = random(N);
    let mut x = s.clone_htod(&data).unwrap();
    let f = module.load_function("add_one").unwrap();
    let n = N as i32;
    s.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    assert_eq!(
        s.capture_status().unwrap(),
        sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE
    );
    // SAFETY: add_one(float*, int) touches [0, n) of x, which has n elements
    // and outlives the graph.
    unsafe {
        s.launch_builder(&f)
            .arg(&mut x)
            .arg(&n)
            .launch(LaunchConfig::for_num_elems(n as u32))
    }
    .unwrap();
    let graph = s
        .end_capture(sys::CUgraphInstantiate_flags_enum(0))
        .unwrap()
        .expect("one node captured");
    graph.upload().unwrap();
    for _ in 0..3 {
        graph.launch().unwrap();
    }
    drop(graph);
    let want: Vec<f32> = data.iter().map(|v| v + 3.0).collect();
    assert_close(&s.clone_dtoh(&x).unwrap(), &want, TOL, "x + 3");
}

#[test]
#[ignore = "needs a GPU"]
fn bad_input_is_a_clear_error_and_nothing_panics() {
    let (ctx, module) = setup();
    let s = ctx.default_stream();
    let invalid = Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE));
    let mut short = s.alloc_zeros::<f32>(5).unwrap();
    let long = s.clone_htod(&random(10)).unwrap();
    assert_eq!(s.memcpy_htod(&random(10), &mut short), invalid);
    let (status, why) = cuda_compat::driver::result::last_error_detail().expect("a reason");
    assert_eq!(status, sys::CUresult::CUDA_ERROR_INVALID_VALUE);
    assert!(why.contains("10 elements do not fit"), "{why}");
    let mut out = vec![0.0f32; 7];
    assert_eq!(s.memcpy_dtoh(&long, &mut out), invalid);
    assert_eq!(s.memcpy_dtod(&long, &mut short), invalid);
    assert!(module.load_function("no_such_kernel").is_err());
    assert!(module.get_global("no_such_symbol", &s).is_err());
    assert!(module.load_function("with\0nul").is_err());
    match compile_ptx("extern \"C\" __global__ void k( { }") {
        Err(CompileError::CompileError { log, .. }) => {
            assert!(!log.as_bytes().is_empty(), "the log says why")
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    if cuda_compat::backend().unwrap().platform == cuda_compat::Platform::Amd {
        let e = ctx.load_module(Ptx::from_src(".version 7.0")).unwrap_err();
        assert_eq!(e.0, sys::CUresult::CUDA_ERROR_INVALID_PTX);
    }
    // An AMD code-object envelope in place of PTX: on NVIDIA, refused by
    // load_module before the driver sees it. (On AMD it loads; no AMD GPU
    // runs these tests yet, so that path is tier 1 only.)
    if cuda_compat::backend().unwrap().platform == cuda_compat::Platform::Nvidia {
        let text = test_kit::code_object::envelope(
            &test_kit::code_object::tiny_bundle(),
            Some("affine.cu"),
            &["gfx90a"],
            &[],
        );
        let e = ctx.load_module(Ptx::from_src(text)).unwrap_err();
        let detail = cuda_compat::driver::result::last_error_detail();
        assert_eq!(e.0, sys::CUresult::CUDA_ERROR_INVALID_IMAGE, "{e:?}");
        let (_, why) = detail.expect("a reason");
        assert!(
            why.contains("built for AMD GPUs (gfx90a, from affine.cu)"),
            "{why}"
        );
        assert!(why.contains("built by nvcc"), "{why}");
    }
    let add_one = module.load_function("add_one").unwrap();
    let four = 4i32;
    // SAFETY: refused before the launch (a block of 4096 threads).
    let r = unsafe {
        s.launch_builder(&add_one)
            .arg(&mut short)
            .arg(&four)
            .launch(LaunchConfig {
                grid_dim: (1, 1, 1),
                block_dim: (4096, 1, 1),
                shared_mem_bytes: 0,
            })
    };
    assert_eq!(r.unwrap_err().0, sys::CUresult::CUDA_ERROR_INVALID_VALUE);
    let (_, why) = cuda_compat::driver::result::last_error_detail().expect("a reason");
    assert!(why.contains("4096"), "{why}");
    assert_eq!(
        ctx.get_limit(sys::CUlimit::CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH),
        Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED))
    );
    // The buffers still hold what they held.
    assert_eq!(s.clone_dtoh(&short).unwrap(), [0.0; 5]);
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn context_queries_and_cache_config_round_trip() {
    let (ctx, module) = setup();
    assert!(!ctx.name().unwrap().is_empty());
    let (free, total) = ctx.mem_get_info().unwrap();
    assert!(0 < free && free <= total);
    let stack = ctx.get_limit(sys::CUlimit::CU_LIMIT_STACK_SIZE).unwrap();
    assert!(stack > 0);
    let cfg = ctx.get_cache_config().unwrap();
    ctx.set_cache_config(cfg).unwrap();
    let f = module.load_function("add_one").unwrap();
    assert!(f.max_threads_per_block().unwrap() >= 256);
    assert!(f.num_regs().unwrap() >= 0);
    extern "C" fn no_smem(_b: std::ffi::c_int) -> usize {
        0
    }
    let (grid, block) = f
        .occupancy_max_potential_block_size(no_smem, 0, 256, None)
        .unwrap();
    assert!(grid >= 1 && (1..=256).contains(&block), "{grid} {block}");
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_buffers_of_another_device_are_rejected_and_peer_copies_work() {
    let (ctx0, module0) = setup();
    let ctx1 = CudaContext::new(1).expect("a second GPU");
    let s0 = ctx0.default_stream();
    let s1 = ctx1.default_stream();
    let data = random(N);
    let mut on1 = s1.clone_htod(&data).unwrap();
    let f = module0.load_function("add_one").unwrap();
    let n = N as i32;
    // `add_one` (of device 0) over `on1` on `stream`: refused before the
    // call; hip's reason.
    let mut refused_on = |stream: &CudaStream| {
        // SAFETY: never launched: rejected before the call.
        let r = unsafe {
            stream
                .launch_builder(&f)
                .arg(&mut on1)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n as u32))
        };
        assert_eq!(r.unwrap_err().0, sys::CUresult::CUDA_ERROR_INVALID_VALUE);
        cuda_compat::driver::result::last_error_detail()
            .expect("a reason")
            .1
    };
    // hip's own check decides, and its message names both devices.
    let why = refused_on(&s0);
    assert!(
        why.contains("on device 1") && why.contains("device 0"),
        "{why}"
    );
    // A kernel of device 0 on device 1's stream: hip's message names the
    // kernel.
    let why = refused_on(&s1);
    assert!(
        why.contains("`add_one`") && why.contains("device 0"),
        "{why}"
    );
    let mut on0 = s0.alloc_zeros::<f32>(N).unwrap();
    assert!(
        s0.memcpy_dtod(&on1, &mut on0).is_err(),
        "another device's buffer"
    );
    // A peer copy through clone_dtod.
    let copy = s0.clone_dtod(&on1).unwrap();
    assert_eq!(s0.clone_dtoh(&copy).unwrap(), data);
    ctx0.check_err().unwrap();
    ctx1.check_err().unwrap();
}

/// Column-major reference: C = alpha op(A) op(B) + beta C, computed in
/// f64 by the test kit, rounded to f32 in place.
#[allow(clippy::too_many_arguments)]
fn gemm_ref(
    ta: bool,
    tb: bool,
    m: usize,
    n: usize,
    k: usize,
    alpha: f32,
    a: &[f32],
    lda: usize,
    b: &[f32],
    ldb: usize,
    beta: f32,
    c: &mut [f32],
    ldc: usize,
) {
    let wide = |v: &[f32]| v.iter().map(|x| f64::from(*x)).collect::<Vec<f64>>();
    let op = |t: bool| if t { Trans::T } else { Trans::N };
    let out = test_kit::gemm_ref_real(
        (op(ta), op(tb)),
        (m, n, k),
        f64::from(alpha),
        (&wide(a), lda),
        (&wide(b), ldb),
        f64::from(beta),
        (&wide(c), ldc),
    );
    for (c, o) in c.iter_mut().zip(out) {
        *c = o as f32;
    }
}

#[test]
#[ignore = "needs a GPU"]
fn cublas_gemm_gemv_asum_match_the_cpu() {
    use cuda_compat::cublas::{
        sys::cublasOperation_t as Op, Asum, AsumConfig, CudaBlas, Gemm, GemmConfig, Gemv,
        GemvConfig, StridedBatchedConfig,
    };
    let (ctx, _module) = setup();
    let s = ctx.new_stream().unwrap();
    let blas = CudaBlas::new(s.clone()).unwrap();
    let (m, n, k) = (37usize, 29usize, 41usize);
    let (lda, ldb, ldc) = (k + 3, k + 1, m + 2); // A is k x m (transposed), B is k x n
    let a = random(lda * m);
    let b = random(ldb * n);
    let c0 = random(ldc * n);
    let (alpha, beta) = (1.5f32, 0.5f32);
    let da = s.clone_htod(&a).unwrap();
    let db = s.clone_htod(&b).unwrap();
    let mut dc = s.clone_htod(&c0).unwrap();
    let cfg = GemmConfig {
        transa: Op::CUBLAS_OP_T,
        transb: Op::CUBLAS_OP_N,
        m: m as i32,
        n: n as i32,
        k: k as i32,
        alpha,
        lda: lda as i32,
        ldb: ldb as i32,
        beta,
        ldc: ldc as i32,
    };
    // SAFETY: shapes checked by the call; no aliasing.
    unsafe { blas.gemm(cfg, &da, &db, &mut dc) }.unwrap();
    let mut want = c0.clone();
    gemm_ref(
        true, false, m, n, k, alpha, &a, lda, &b, ldb, beta, &mut want, ldc,
    );
    let got = s.clone_dtoh(&dc).unwrap();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        // k = 41 products of values below 2: relative 1e-4 covers f32 sums.
        assert!(
            (g - w).abs() <= 1e-4 * w.abs().max(1.0),
            "C[{i}]: {g} vs {w}"
        );
    }

    // Strided batch of 3 plain GEMMs.
    let (bm, bn, bk, batch) = (8usize, 6usize, 5usize, 3usize);
    let ba = random(bm * bk * batch);
    let bb = random(bk * bn * batch);
    let dba = s.clone_htod(&ba).unwrap();
    let dbb = s.clone_htod(&bb).unwrap();
    let mut dbc = s.alloc_zeros::<f32>(bm * bn * batch).unwrap();
    let one = GemmConfig {
        transa: Op::CUBLAS_OP_N,
        transb: Op::CUBLAS_OP_N,
        m: bm as i32,
        n: bn as i32,
        k: bk as i32,
        alpha: 1.0f32,
        lda: bm as i32,
        ldb: bk as i32,
        beta: 0.0,
        ldc: bm as i32,
    };
    let cfg = StridedBatchedConfig {
        gemm: one,
        batch_size: batch as i32,
        stride_a: (bm * bk) as i64,
        stride_b: (bk * bn) as i64,
        stride_c: (bm * bn) as i64,
    };
    // SAFETY: shapes checked by the call; no aliasing.
    unsafe { blas.gemm_strided_batched(cfg, &dba, &dbb, &mut dbc) }.unwrap();
    let got = s.clone_dtoh(&dbc).unwrap();
    for p in 0..batch {
        let mut want = vec![0.0f32; bm * bn];
        gemm_ref(
            false,
            false,
            bm,
            bn,
            bk,
            1.0,
            &ba[p * bm * bk..],
            bm,
            &bb[p * bk * bn..],
            bk,
            0.0,
            &mut want,
            bm,
        );
        for (i, (g, w)) in got[p * bm * bn..(p + 1) * bm * bn]
            .iter()
            .zip(&want)
            .enumerate()
        {
            assert!(
                (g - w).abs() <= 1e-5 * w.abs().max(1.0),
                "batch {p} C[{i}]: {g} vs {w}"
            );
        }
    }

    // GEMV and ASUM.
    let x = random(n);
    let dx = s.clone_htod(&x).unwrap();
    let mut dy = s.alloc_zeros::<f32>(m).unwrap();
    let gv = GemvConfig {
        trans: Op::CUBLAS_OP_N,
        m: m as i32,
        n: n as i32,
        alpha: 1.0f32,
        lda: ldc as i32,
        incx: 1,
        beta: 0.0,
        incy: 1,
    };
    // SAFETY: shapes checked by the call; no aliasing.
    unsafe { blas.gemv(gv, &dc, &dx, &mut dy) }.unwrap();
    let y = s.clone_dtoh(&dy).unwrap();
    let c = s.clone_dtoh(&dc).unwrap();
    for i in 0..m {
        let w: f64 = (0..n).map(|j| c[i + j * ldc] as f64 * x[j] as f64).sum();
        assert!(
            ((y[i] as f64) - w).abs() <= 1e-4 * w.abs(),
            "y[{i}]: {} vs {w}",
            y[i]
        );
    }
    let mut sum = 0.0f32;
    // SAFETY: host pointer mode (the default).
    unsafe {
        blas.asum(
            AsumConfig {
                n: m as i32,
                incx: 1,
            },
            &dy,
            &mut sum,
        )
    }
    .unwrap();
    let w: f64 = y.iter().map(|v| v.abs() as f64).sum();
    assert!(((sum as f64) - w).abs() <= 1e-5 * w, "asum {sum} vs {w}");

    // Bad shapes are refused before hipBLAS.
    let bad = GemmConfig {
        ldc: (bm - 1) as i32,
        ..one
    };
    // SAFETY: refused before any call.
    let e = unsafe { blas.gemm(bad, &dba, &dbb, &mut dbc) }.unwrap_err();
    assert_eq!(
        e.0,
        cuda_compat::cublas::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
    );
    // With hipBLAS's own words for the check that failed.
    let (_, why) = cuda_compat::cublas::result::last_error_detail().expect("a reason");
    assert!(why.contains("ld"), "{why}");
    let too_big = GemmConfig {
        m: 1000,
        lda: 1000,
        ldc: 1000,
        ..one
    };
    // SAFETY: refused before any call (the buffers are too short).
    let e = unsafe { blas.gemm(too_big, &dba, &dbb, &mut dbc) }.unwrap_err();
    assert_eq!(
        e.0,
        cuda_compat::cublas::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
    );
    let (_, why) = cuda_compat::cublas::result::last_error_detail().expect("a reason");
    assert!(why.contains("operand 1 holds"), "{why}");
    ctx.check_err().unwrap();
}

/// Checks a HIP status in the external-memory test's setup.
#[cfg(unix)]
fn hip_ok(what: &str, status: hip_sys::hipError_t) {
    assert_eq!(status, hip_sys::hipError_t::hipSuccess, "{what}");
}

/// A VMM allocation's POSIX file descriptor (`hipMemExportToShareableHandle`).
#[cfg(unix)]
fn export_fd(handle: hip_sys::hipMemGenericAllocationHandle_t) -> std::fs::File {
    use std::os::fd::FromRawFd;
    let mut fd: std::ffi::c_int = -1;
    // SAFETY: `handle` is a live allocation made exportable as a POSIX
    // descriptor; that handle type writes an int to the out-pointer.
    hip_ok("hipMemExportToShareableHandle", unsafe {
        hip_sys::hipMemExportToShareableHandle(
            (&mut fd as *mut std::ffi::c_int).cast(),
            handle,
            hip_sys::hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor,
            0,
        )
    });
    // SAFETY: a descriptor just made for us, owned by nothing else.
    unsafe { std::fs::File::from_raw_fd(fd) }
}

/// External memory from this process's own export: a VMM allocation
/// (`hipMemCreate` with a POSIX file descriptor handle type) is filled
/// through its own mapping, exported as a file descriptor, imported with
/// `import_external_memory` and read back through `map_all`'s buffer.
#[cfg(unix)]
#[test]
#[ignore = "needs a GPU"]
fn external_memory_maps_an_exported_vmm_allocation() {
    use hip_sys as hs;
    use std::ffi::c_void;
    let (ctx, _module) = setup();
    let stream = ctx.default_stream();
    // SAFETY: a plain C struct; zero is valid for every field.
    let mut prop: hs::hipMemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = hs::hipMemAllocationType::hipMemAllocationTypePinned;
    prop.requestedHandleType = hs::hipMemAllocationHandleType::hipMemHandleTypePosixFileDescriptor;
    prop.location.type_ = hs::hipMemLocationType::hipMemLocationTypeDevice;
    prop.location.id = 0;
    let mut granularity = 0usize;
    // SAFETY: valid out-pointer and properties.
    hip_ok("hipMemGetAllocationGranularity", unsafe {
        hs::hipMemGetAllocationGranularity(
            &mut granularity,
            &prop,
            hs::hipMemAllocationGranularity_flags::hipMemAllocationGranularityMinimum,
        )
    });
    let data = random(N);
    let size = (N * 4).div_ceil(granularity) * granularity;
    let mut handle: hs::hipMemGenericAllocationHandle_t = std::ptr::null_mut();
    // SAFETY: valid out-pointer and properties; released below.
    hip_ok("hipMemCreate", unsafe {
        hs::hipMemCreate(&mut handle, size, &prop, 0)
    });
    // Fill it through a mapping of its own.
    let mut va: *mut c_void = std::ptr::null_mut();
    // SAFETY: valid out-pointer; freed below.
    hip_ok("hipMemAddressReserve", unsafe {
        hs::hipMemAddressReserve(&mut va, size, 0, std::ptr::null_mut(), 0)
    });
    // SAFETY: the reserved range and the allocation are both `size` bytes.
    hip_ok("hipMemMap", unsafe {
        hs::hipMemMap(va, size, 0, handle, 0)
    });
    let access = hs::hipMemAccessDesc {
        location: prop.location,
        flags: hs::hipMemAccessFlags::hipMemAccessFlagsProtReadWrite,
    };
    // SAFETY: the mapped range, one descriptor.
    hip_ok("hipMemSetAccess", unsafe {
        hs::hipMemSetAccess(va, size, &access, 1)
    });
    // SAFETY: `va` holds `size` >= N * 4 bytes; `data` N floats.
    hip_ok("hipMemcpy", unsafe {
        hs::hipMemcpy(
            va,
            data.as_ptr().cast(),
            N * 4,
            hs::hipMemcpyKind::hipMemcpyHostToDevice,
        )
    });
    let file = export_fd(handle);
    // SAFETY: `size` is the exported allocation's size.
    let memory = unsafe { ctx.import_external_memory(file, size as u64) }.unwrap_or_else(|e| {
        panic!(
            "importing a VMM allocation's POSIX descriptor as opaque-fd external memory: {e:?} \
             ({:?})",
            cuda_compat::driver::result::last_error_detail()
        )
    });
    assert_eq!(memory.size(), size as u64);
    let mapped = memory.map_all().unwrap();
    let bytes: Vec<u8> = stream.clone_dtoh(&mapped).unwrap();
    assert_eq!(bytes.len(), size);
    let got: Vec<f32> = (bytes[..N * 4].chunks_exact(4))
        .map(|b| f32::from_ne_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    assert_eq!(got, data, "the imported memory holds what was written");
    drop(mapped);
    // A second export: a range past the end is refused before the runtime.
    let file2 = export_fd(handle);
    // SAFETY: as the first.
    let memory2 = unsafe { ctx.import_external_memory(file2, size as u64) }.unwrap();
    let e = memory2.map_range(size - 4..size + 4).unwrap_err();
    assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE));
    ctx.check_err().unwrap();
    // SAFETY: mapped above; nothing uses it any more.
    hip_ok("hipMemUnmap", unsafe { hs::hipMemUnmap(va, size) });
    // SAFETY: reserved above, now unmapped.
    hip_ok("hipMemAddressFree", unsafe {
        hs::hipMemAddressFree(va, size)
    });
    // SAFETY: created above; its mappings and imports are gone.
    hip_ok("hipMemRelease", unsafe { hs::hipMemRelease(handle) });
}

#[cfg(unix)]
#[test]
#[ignore = "needs a GPU"]
fn external_memory_rejects_bad_input() {
    let ctx = CudaContext::new(0).unwrap();
    let invalid = DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE);
    // SAFETY: refused before the runtime (zero bytes).
    let e = unsafe { ctx.import_external_memory(std::fs::File::open("/dev/null").unwrap(), 0) };
    assert_eq!(e.unwrap_err(), invalid);
    // A file that is no exported memory handle: the runtime's error.
    // SAFETY: the size is what is claimed; the runtime checks the handle.
    let e = unsafe { ctx.import_external_memory(std::fs::File::open("/dev/null").unwrap(), 4096) };
    assert!(e.is_err(), "/dev/null imported as device memory");
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn non_primary_and_raw_contexts_are_the_devices_context() {
    let ctx = CudaContext::new_non_primary(0, 0).unwrap();
    assert!(!ctx.is_primary());
    assert!(CudaContext::new(0).unwrap().is_primary());
    // It works as a context: a round trip and a kernel.
    let (_primary, module) = setup();
    let s = ctx.new_stream().unwrap();
    let data = random(N);
    let mut d = s.clone_htod(&data).unwrap();
    let f = module.load_function("add_one").unwrap();
    let n = N as i32;
    // SAFETY: add_one(float*, int) touches [0, n) of d.
    unsafe {
        s.launch_builder(&f)
            .arg(&mut d)
            .arg(&n)
            .launch(LaunchConfig::for_num_elems(n as u32))
    }
    .unwrap();
    let want: Vec<f32> = data.iter().map(|v| v + 1.0).collect();
    assert_close(
        &s.clone_dtoh(&d).unwrap(),
        &want,
        TOL,
        "x + 1 in new_non_primary's context",
    );
    // The device's primary context is accepted as a raw context ...
    let dev = ctx.cu_device();
    // SAFETY: a retain handed over to from_raw_context (which keeps it).
    let raw = unsafe { cuda_compat::driver::result::primary_ctx::retain(dev) }.unwrap();
    // SAFETY: the primary context of `dev`, live, handed over.
    let wrapped = unsafe { CudaContext::from_raw_context(0, dev, raw) }.unwrap();
    assert!(!wrapped.is_primary());
    let again = wrapped.default_stream().clone_htod(&data).unwrap();
    assert_eq!(wrapped.default_stream().clone_dtoh(&again).unwrap(), data);
    // ... another handle is refused before it is used.
    let other: sys::CUcontext = std::ptr::NonNull::<u8>::dangling().as_ptr().cast();
    // SAFETY: never used: it is compared with the primary context first.
    let e = unsafe { CudaContext::from_raw_context(0, dev, other) }.unwrap_err();
    assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED));
    // SAFETY: as above; the device handle is checked first.
    let e = unsafe { CudaContext::from_raw_context(0, dev + 1, raw) }.unwrap_err();
    assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE));
    // Flags without a HIP equivalent: refused.
    assert_eq!(
        CudaContext::new_non_primary(0, 0x80).unwrap_err(),
        DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE)
    );
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn unified_views_address_parts_of_the_slice() {
    let (ctx, module) = setup();
    let s = ctx.new_stream().unwrap();
    // SAFETY: zeroed f32 is valid.
    let mut u = unsafe { ctx.alloc_unified::<f32>(N, true) }.unwrap();
    let data = random(N);
    u.as_mut_slice().unwrap().copy_from_slice(&data);
    let half = N / 3;
    let f = module.load_function("add_one").unwrap();
    let n = (N - half) as i32;
    {
        let (head, mut tail) = u.split_at_mut(half);
        assert_eq!((head.len(), tail.len()), (half, N - half));
        // SAFETY: add_one(float*, int) touches [0, n) of the tail.
        unsafe {
            s.launch_builder(&f)
                .arg(&mut tail)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n as u32))
        }
        .unwrap();
    }
    let want: Vec<f32> = (data.iter().enumerate())
        .map(|(i, v)| if i >= half { v + 1.0 } else { *v })
        .collect();
    // A copy out of a view waits for the kernel through the shared event.
    let tail_back = ctx.default_stream().clone_dtoh(&u.slice(half..)).unwrap();
    assert_close(&tail_back, &want[half..], TOL, "the tail, +1");
    assert_close(
        u.as_slice().unwrap(),
        &want,
        TOL,
        "the whole slice on the host",
    );
    let (a, b) = u.split_at(half);
    assert_eq!(a.len() + b.len(), N);
    assert!(u.try_slice(..N + 1).is_none());
    assert!(u.try_split_at(N + 1).is_none());
    assert!(u.as_view().try_slice(N..).is_some_and(|v| v.is_empty()));
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn unified_memory_is_written_by_the_host_and_the_kernel() {
    let (ctx, module) = setup();
    let s = ctx.new_stream().unwrap();
    // SAFETY: zeroed f32 is valid.
    let mut u = unsafe { ctx.alloc_unified::<f32>(N, true) }.unwrap();
    assert!(u.as_slice().unwrap().iter().all(|&v| v == 0.0), "zeroed");
    let data = random(N);
    u.as_mut_slice().unwrap().copy_from_slice(&data);
    u.prefetch().unwrap();
    let f = module.load_function("add_one").unwrap();
    let n = N as i32;
    // SAFETY: add_one(float*, int) touches [0, n) of u.
    unsafe {
        s.launch_builder(&f)
            .arg(&mut u)
            .arg(&n)
            .launch(LaunchConfig::for_num_elems(n as u32))
    }
    .unwrap();
    // as_slice waits for the kernel through the slice's event.
    let want: Vec<f32> = data.iter().map(|v| v + 1.0).collect();
    assert_close(u.as_slice().unwrap(), &want, TOL, "u + 1");
    // And it copies like device memory.
    assert_close(&s.clone_dtoh(&u).unwrap(), &want, TOL, "copied back");
    ctx.check_err().unwrap();
}

/// An error recorded where none could be returned keeps the reason it was
/// recorded with, from whichever thread recorded it; `check_err` hands that
/// reason on, or none, never an unrelated one of the same status.
#[test]
#[ignore = "needs a GPU"]
fn check_err_gives_the_recorded_reason_never_a_stale_one() {
    let ctx = CudaContext::new(0).unwrap();
    let invalid = DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE);
    // Recorded on another thread: CU_CTX_SYNC_MEMOPS, refused with a reason.
    std::thread::scope(|s| {
        s.spawn(|| ctx.record_err(CudaContext::new_non_primary(0, 0x80)));
    });
    // This thread's own, unrelated error of the same status.
    // SAFETY: a null context is refused before anything uses it.
    let e = unsafe { CudaContext::from_raw_context(0, 0, std::ptr::null_mut()) }.unwrap_err();
    assert_eq!(e, invalid);
    let recorded = ctx.check_err().unwrap_err();
    assert_eq!(recorded, invalid);
    let shown = format!("{recorded:?}");
    assert!(shown.contains("no HIP equivalent"), "{shown}");
    assert!(!shown.contains("null"), "{shown}");
    assert!(ctx.check_err().is_ok(), "taken once");
    // Recorded with no reason (on a thread that has none): none is shown,
    // though this thread's last error had one of the same status.
    let _ = CudaContext::new_non_primary(0, 0x80);
    std::thread::scope(|s| {
        s.spawn(|| ctx.record_err::<()>(Err(invalid)));
    });
    let shown = format!("{:?}", ctx.check_err().unwrap_err());
    assert!(!shown.contains("no HIP equivalent"), "{shown}");
}
