//! Tier 3: per-buffer event tracking and stream-ordered frees
//! ([`hip::StreamAllocation`], and `Stream::alloc`'s [`hip::DeviceBuffer`]s)
//! on a real GPU. Run with `--ignored`
//! (`HIP_PLATFORM=nvidia` on an NVIDIA GPU, or an AMD GPU). Every test
//! compares with a CPU reference on fresh random non-zero data.
//!
//! The kernel spins for about 100 ms of `clock64()` cycles before touching
//! memory, so that without the tracking the other stream would certainly
//! run first and the result be wrong.

use hip::{
    AccessEvents, Device, DeviceBuffer, DeviceMemory, Event, LaunchArgs, LaunchConfig, Module,
    RawPtr, Stream, StreamAllocation, StreamOptions, TypedKernel,
};
use std::ffi::c_void;
use std::sync::Arc;
use std::time::{Duration, Instant};
use test_kit::{assert_close, non_blocking_stream, random_nonzero};

const KERNEL: &str = concat!(
    test_kit::cycle_stopwatch_cuda!(),
    r#"
extern "C" __global__ void slow_affine(float* out, const float* in, int n, long long spin) {
    hiprs_spin(spin);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i] + 1.0f;
}
"#
);

/// About 100 ms at up to 2 GHz.
const SPIN: i64 = 200_000_000;
const N: usize = 4096;
const BYTES: usize = N * 4;

fn random(n: usize) -> Vec<f32> {
    random_nonzero(n, 0.5f32..2.0)
}

fn affine(x: &[f32]) -> Vec<f32> {
    x.iter().map(|v| 2.0 * v + 1.0).collect()
}

fn setup() -> (Arc<Device>, Module, Stream, Stream) {
    let dev = test_kit::device();
    let module = Module::compile(&dev, KERNEL).expect("the kernel compiles");
    let a = non_blocking_stream(&dev);
    let b = non_blocking_stream(&dev);
    (dev, module, a, b)
}

/// Enqueues slow_affine(out, input) on `stream`; the launch orders itself
/// after the allocations' earlier uses and records its own
/// ([`LaunchArgs::arg_write`], [`LaunchArgs::arg_read`]).
fn launch_slow(
    module: &Module,
    stream: &Stream,
    out: &mut StreamAllocation,
    input: &StreamAllocation,
) {
    let f = module.function("slow_affine").unwrap();
    let n = N as i32;
    let mut args = LaunchArgs::new();
    args.arg_write(out).arg_read(input).arg(&n).arg(&SPIN);
    // SAFETY: slow_affine(float*, const float*, int, long long) touches
    // [0, N) of both, and both hold N floats.
    unsafe { stream.launch(&f, LaunchConfig::for_num_elems(N as u32), &mut args) }.unwrap();
}

/// The same through the guards, for callers that launch by other means.
fn launch_slow_with_guards(
    module: &Module,
    stream: &Stream,
    out: &mut StreamAllocation,
    input: &StreamAllocation,
) {
    let f = module.function("slow_affine").unwrap();
    let (xp, read) = input.ptr_for_read(stream).unwrap();
    let (yp, write) = out.ptr_for_write(stream).unwrap();
    let (y, x) = (RawPtr(yp), RawPtr(xp as *mut c_void));
    let n = N as i32;
    let mut args = LaunchArgs::new();
    args.arg(&y).arg(&x).arg(&n).arg(&SPIN);
    // SAFETY: as in `launch_slow`.
    unsafe { stream.launch(&f, LaunchConfig::for_num_elems(N as u32), &mut args) }.unwrap();
    drop((read, write));
}

/// One rounding of 2x+1 in f32: 1e-6 relative.
const TOL: f32 = 1e-6;

fn no_drop_errors() {
    let errors = hip::take_drop_errors();
    assert!(errors.is_empty(), "errors in drop: {errors:?}");
}

#[test]
#[ignore = "needs a GPU"]
fn reader_on_another_stream_waits_for_a_slow_writer() {
    let (_dev, module, a, b) = setup();
    let data = random(N);
    let mut x = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&data, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let mut y = StreamAllocation::new(&a, BYTES, true).unwrap();
    launch_slow(&module, &a, &mut y, &x);
    let mut out = vec![0.0f32; N];
    b.copy_dtoh(&y.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_close(&out, &affine(&data), TOL, "y read on the other stream");
    no_drop_errors();
}

#[test]
#[ignore = "needs a GPU"]
fn writer_on_another_stream_waits_for_a_slow_reader() {
    let (_dev, module, a, b) = setup();
    let old = random(N);
    let new = random(N);
    let mut x = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&old, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let mut y = StreamAllocation::new(&a, BYTES, true).unwrap();
    launch_slow_with_guards(&module, &a, &mut y, &x);
    b.copy_htod(&new, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let mut out = vec![0.0f32; N];
    a.copy_dtoh(&y.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_close(&out, &affine(&old), TOL, "y from the old x");
    b.copy_dtoh(&x.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, new);
    no_drop_errors();
}

#[test]
#[ignore = "needs a GPU"]
fn free_after_a_reader_on_another_stream_is_stream_ordered() {
    let (dev, module, a, b) = setup();
    let data = random(N);
    let mut x = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&data, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let mut y = StreamAllocation::new(&b, BYTES, true).unwrap();
    launch_slow(&module, &b, &mut y, &x);
    let start = Instant::now();
    drop(x); // a waits for the read on b, then frees; the host goes on
    let drop_time = start.elapsed();
    // Same size on a: the pool may hand back x's memory; filling it must
    // wait for the free, which waits for the slow read.
    let other = random(N);
    let mut z = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&other, &mut z.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let mut out = vec![0.0f32; N];
    b.copy_dtoh(&y.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_close(&out, &affine(&data), TOL, "y from the freed x");
    a.copy_dtoh(&z.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, other);
    if dev.supports_memory_pools() {
        assert!(
            drop_time < Duration::from_millis(50),
            "a stream-ordered free must not wait for the device: {drop_time:?}"
        );
    }
    no_drop_errors();
}

#[test]
#[ignore = "needs a GPU"]
fn raw_round_trip_and_bad_sizes() {
    let (dev, _module, a, _b) = setup();
    let data = random(N);
    let mut x = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&data, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let too_long = random(N + 1);
    let e = a
        .copy_htod(&too_long, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap_err();
    assert!(matches!(e, hip::Error::Invalid { .. }), "{e}");
    let mut long_out = vec![0.0f32; N + 1];
    assert!(a
        .copy_dtoh(&x.as_slice::<f32>().unwrap(), &mut long_out)
        .is_err());
    // A shorter copy into the start is fine.
    let mut start = x
        .as_slice_mut::<f32>()
        .unwrap()
        .into_slice_mut(..10)
        .unwrap();
    a.copy_htod(&too_long[..10], &mut start).unwrap();
    let (ptr, ordered) = x.into_raw();
    assert!(!ptr.is_null());
    // SAFETY: the allocation just given up, as it was made.
    let x = unsafe {
        StreamAllocation::from_raw(&a, ptr, BYTES, AccessEvents::new(&dev).unwrap(), ordered)
    };
    let mut out = vec![0.0f32; N];
    a.copy_dtoh(&x.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_eq!(&out[..10], &too_long[..10]);
    assert_eq!(&out[10..], &data[10..]);
    // Untracked allocations work on their own stream.
    let mut u = StreamAllocation::new(&a, BYTES, false).unwrap();
    assert!(!u.events().is_tracked());
    a.copy_htod(&data, &mut u.as_slice_mut::<f32>().unwrap())
        .unwrap();
    a.copy_dtoh(&u.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, data);
    no_drop_errors();
}

#[test]
#[ignore = "needs a GPU"]
fn event_flags_choose_timing() {
    let (dev, _module, a, _b) = setup();
    let blocking = Event::with_flags(&dev, hip::sys::hipEventBlockingSync).unwrap();
    assert!(blocking.has_timing());
    let start = Event::with_flags(&dev, hip::sys::hipEventDisableTiming).unwrap();
    assert!(!start.has_timing());
    start.record(&a).unwrap();
    blocking.record(&a).unwrap();
    blocking.synchronize().unwrap();
    assert!(matches!(
        blocking.elapsed_ms_since(&start),
        Err(hip::Error::Invalid { .. })
    ));
    let timed = Event::with_flags(&dev, hip::sys::hipEventDefault).unwrap();
    timed.record(&a).unwrap();
    timed.synchronize().unwrap();
    let ms = timed.elapsed_ms_since(&blocking).unwrap();
    assert!((0.0..1000.0).contains(&ms), "{ms}");
    let per_thread = Stream::per_thread(&dev);
    let mut x = StreamAllocation::new(&per_thread, BYTES, true).unwrap();
    let data = random(N);
    per_thread
        .copy_htod(&data, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let mut out = vec![0.0f32; N];
    a.copy_dtoh(&x.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, data);
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_tracked_copies_refuse_another_devices_stream() {
    let (_dev0, _module, a, _b) = setup();
    let dev1 = Device::get(1).expect("a second GPU");
    let s1 = Stream::new(&dev1).unwrap();
    let data = random(N);
    let mut x = StreamAllocation::new(&a, BYTES, true).unwrap();
    let e = s1
        .copy_htod(&data, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap_err();
    assert!(matches!(e, hip::Error::Invalid { .. }), "{e}");
    // Recording device 0's events on device 1's stream is refused.
    assert!(x.events().record_read(&s1).is_err());
    // A launch on device 1 with device 0's allocation is refused.
    let m1 = Module::compile(&dev1, KERNEL).unwrap();
    let f1 = m1.function("slow_affine").unwrap();
    let mut y1 = StreamAllocation::new(&s1, BYTES, true).unwrap();
    let (n, no_spin) = (N as i32, 0i64);
    let mut args = LaunchArgs::new();
    args.arg_write(&mut y1).arg_read(&x).arg(&n).arg(&no_spin);
    // SAFETY: refused before the launch.
    let e =
        unsafe { s1.launch(&f1, LaunchConfig::for_num_elems(N as u32), &mut args) }.unwrap_err();
    assert!(matches!(e, hip::Error::Invalid { .. }), "{e}");
    // Waiting across devices is allowed.
    x.events().wait_before_write(&s1).unwrap();
    a.copy_htod(&data, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let mut out = vec![0.0f32; N];
    a.copy_dtoh(&x.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, data);
    no_drop_errors();
}

const GLOBALS: &str = r#"
__constant__ float coefficients[4];
extern "C" __global__ void poly(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        out[i] = coefficients[0] + x * (coefficients[1] + x * (coefficients[2] + x * coefficients[3]));
    }
}
"#;

#[test]
#[ignore = "needs a GPU"]
fn module_globals_occupancy_and_begin_end_capture() {
    let (dev, _module, a, _b) = setup();
    let m = Module::compile(&dev, GLOBALS).unwrap();
    assert_eq!(m.global("coefficients").unwrap().len(), 16);
    assert!(m.global("no_such_symbol").is_err());
    let coeffs = random(4);
    let bytes: Vec<u8> = coeffs.iter().flat_map(|c| c.to_ne_bytes()).collect();
    {
        // SAFETY: the only view of the global while it lives; no kernel runs.
        let mut g = unsafe { m.global_mut("coefficients") }.unwrap();
        a.copy_htod(&bytes, &mut g).unwrap();
    }
    let f = m.function("poly").unwrap();
    let (grid, block) = f
        .max_potential_block_size_with_flags(0, 128, hip::sys::hipOccupancyDefault)
        .unwrap();
    assert!(grid >= 1 && (1..=128).contains(&block), "{grid} {block}");

    let input = random(N);
    let x = test_kit::upload(&dev, &input);
    let mut y = DeviceBuffer::<f32>::zeroed(&dev, N).unwrap();
    let (xp, yp) = (
        RawPtr(x.as_device_ptr() as *mut c_void),
        RawPtr(y.as_device_ptr_mut().cast()),
    );
    let n = N as i32;
    assert_eq!(
        a.capture_status().unwrap(),
        hip::sys::hipStreamCaptureStatus::hipStreamCaptureStatusNone
    );
    // SAFETY: x, y and the module outlive the graph and its replays.
    unsafe { a.begin_capture(hip::sys::hipStreamCaptureMode::hipStreamCaptureModeThreadLocal) }
        .unwrap();
    assert_eq!(
        a.capture_status().unwrap(),
        hip::sys::hipStreamCaptureStatus::hipStreamCaptureStatusActive
    );
    let mut args = LaunchArgs::new();
    args.arg(&yp).arg(&xp).arg(&n);
    // SAFETY: poly(float*, const float*, int) touches [0, N) of both.
    unsafe { a.launch(&f, LaunchConfig::for_num_elems(N as u32), &mut args) }.unwrap();
    let graph = a.end_capture().unwrap().expect("one node");
    assert_eq!(graph.node_count().unwrap(), 1);
    let mut exec = graph.instantiate_with_flags(0).unwrap();
    exec.upload(&a).unwrap();
    exec.launch(&a).unwrap();
    a.synchronize().unwrap();
    let got = a.clone_dtoh(&y).unwrap();
    for (i, (&g, &v)) in got.iter().zip(&input).enumerate() {
        let v = v as f64;
        let c: Vec<f64> = coeffs.iter().map(|&c| c as f64).collect();
        let want = c[0] + v * (c[1] + v * (c[2] + v * c[3]));
        // f32 Horner (maybe with FMAs): 1e-5 relative.
        assert!(
            ((g as f64) - want).abs() <= 1e-5 * want.abs(),
            "[{i}] {g} vs {want}"
        );
    }
    assert_eq!(dev.uuid().unwrap().len(), 16);
    let cfg = dev.cache_config().unwrap();
    dev.set_cache_config(cfg).unwrap();
    // Reading the flags works; setting them is refused by CUDA once the
    // context is active, so it is not asserted here.
    dev.flags().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn free_waits_for_every_reader_not_only_the_last() {
    let (dev, module, a, b) = setup();
    let c = Stream::with_options(
        &dev,
        StreamOptions {
            non_blocking: true,
            priority: 0,
        },
    )
    .unwrap();
    let data = random(N);
    let mut x = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&data, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    // A slow reader on b, then a quick reader on c: the read event must
    // still end b's read (c chains to it), or the free below would let
    // the new buffer overwrite x while b still reads it.
    let mut y = StreamAllocation::new(&b, BYTES, true).unwrap();
    launch_slow(&module, &b, &mut y, &x);
    let mut quick = vec![0.0f32; N];
    c.copy_dtoh(&x.as_slice::<f32>().unwrap(), &mut quick)
        .unwrap();
    assert_eq!(quick, data);
    drop(x);
    let other = random(N);
    let mut z = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&other, &mut z.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let mut out = vec![0.0f32; N];
    b.copy_dtoh(&y.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_close(
        &out,
        &affine(&data),
        TOL,
        "y from x, freed after both reads",
    );
    no_drop_errors();
}

/// The event is recorded on the writer's stream when another stream first
/// waits for it; a later write on the same stream must make the next
/// waiter record it again, not wait for the stale record.
#[test]
#[ignore = "needs a GPU"]
fn a_second_write_on_one_stream_is_waited_for_again() {
    let (_dev, module, a, b) = setup();
    let first = random(N);
    let second = random(N);
    let mut x = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&first, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let mut y = StreamAllocation::new(&a, BYTES, true).unwrap();
    launch_slow(&module, &a, &mut y, &x);
    let mut out = vec![0.0f32; N];
    b.copy_dtoh(&y.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_close(&out, &affine(&first), TOL, "y after the first write");
    a.copy_htod(&second, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    // y still holds affine(first) for the ~100 ms the kernel spins.
    launch_slow(&module, &a, &mut y, &x);
    b.copy_dtoh(&y.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_close(&out, &affine(&second), TOL, "y after the second write");
    no_drop_errors();
}

/// `hipStreamPerThread` is another stream on each thread: a write there
/// must be recorded on the writing thread's stream, so that a reader on
/// another thread's stream waits for it. The writing thread stays alive
/// until the reads are done.
#[test]
#[ignore = "needs a GPU"]
fn a_write_on_another_threads_per_thread_stream_is_waited_for() {
    let (dev, module, a, b) = setup();
    let data = random(N);
    let mut x = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&data, &mut x.as_slice_mut::<f32>().unwrap())
        .unwrap();
    let y = StreamAllocation::new(&a, BYTES, true).unwrap();
    let (launched_tx, launched_rx) = std::sync::mpsc::channel();
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let (dev_ref, module_ref, x_ref) = (&dev, &module, &x);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let mut y = y;
            let per_thread = Stream::per_thread(dev_ref);
            launch_slow(module_ref, &per_thread, &mut y, x_ref);
            launched_tx.send(y).unwrap();
            // Ends when the reader is done (or has panicked).
            let _ = done_rx.recv();
        });
        let y = launched_rx.recv().expect("the writer thread launched");
        // This thread's per-thread stream has no work: waiting on it
        // alone would read y before the kernel writes it.
        let mine = Stream::per_thread(&dev);
        let mut out = vec![0.0f32; N];
        mine.copy_dtoh(&y.as_slice::<f32>().unwrap(), &mut out)
            .unwrap();
        assert_close(
            &out,
            &affine(&data),
            TOL,
            "y read on this thread's per-thread stream",
        );
        b.copy_dtoh(&y.as_slice::<f32>().unwrap(), &mut out)
            .unwrap();
        assert_close(&out, &affine(&data), TOL, "y read on a named stream");
        drop(done_tx);
    });
    no_drop_errors();
}

// ---- `Stream::alloc` buffers (`DeviceBuffer`) -------------------------------
//
// They track their accesses like `StreamAllocation`s: dropping one frees it
// in its stream's order after the last use on any stream, without a
// device-wide wait.

/// Far below the spin: a drop that waited for the kernel takes ~100 ms.
const DROP_LIMIT: Duration = Duration::from_millis(20);

type SlowAffine = TypedKernel<(*mut f32, *const f32, i32, i64)>;

/// How the slow kernel is launched: through the typed API or the untyped
/// argument builder (both must track `Stream::alloc` buffers).
#[derive(Clone, Copy, Debug)]
enum Launch {
    Typed,
    Untyped,
}

/// Stream `a` allocates `x` and fills it; the slow kernel on `b` reads it
/// into `y`; `x` is dropped right after the launch and `a` at once
/// allocates the same size again (the pool may hand back x's memory) and
/// fills it with another pattern. `y` must hold `affine` of the first
/// pattern exactly, and the drop must not have waited for the kernel.
fn drop_while_another_stream_reads(launch: Launch) {
    let (dev, module, a, b) = setup();
    let f = module.function("slow_affine").unwrap();
    let first = random(N);
    let mut x = a.alloc::<f32>(N).unwrap();
    a.copy_htod(&first, &mut x).unwrap();
    let mut y = b.alloc_zeroed::<f32>(N).unwrap();
    let x_address = x.as_device_ptr() as usize;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    match launch {
        Launch::Typed => {
            // SAFETY: the parameter list is slow_affine's.
            let k = unsafe { SlowAffine::new(f) };
            // SAFETY: slow_affine touches [0, n) of both, which hold N floats.
            unsafe { k.launch(&b, cfg, (&mut y, &x, n, SPIN)) }.unwrap();
        }
        Launch::Untyped => {
            let input = x.as_slice();
            let mut args = LaunchArgs::new();
            args.arg(&y).arg(&input).arg(&n).arg(&SPIN);
            // SAFETY: as above, for slow_affine(float*, const float*, int,
            // long long).
            unsafe { b.launch(&f, cfg, &mut args) }.unwrap();
        }
    }
    let start = Instant::now();
    drop(x);
    let drop_time = start.elapsed();
    let kernel_still_running = !b.query().unwrap();
    // Same size on `a`, written at once with another pattern: without the
    // ordering the kernel, still spinning, reads these values.
    let mut again = a.alloc::<f32>(N).unwrap();
    let reused = again.as_device_ptr() as usize == x_address;
    a.memset_bytes(&mut again, 0x7f).unwrap();
    let got = b.clone_dtoh(&y).unwrap();
    let want = affine(&first);
    if let Some(i) = test_kit::first_difference(&got, &want) {
        panic!(
            "{launch:?}: y[{i}] = {} but the first buffer gives {} (address reused: {reused})",
            got[i], want[i]
        );
    }
    let refilled = a.clone_dtoh(&again).unwrap();
    let pattern = f32::from_bits(0x7f7f_7f7f);
    assert!(refilled.iter().all(|v| v.to_bits() == pattern.to_bits()));
    println!(
        "{launch:?}: drop took {drop_time:?}; kernel still running after it: \
         {kernel_still_running}; address reused: {reused}; memory pools: {}",
        dev.supports_memory_pools()
    );
    if dev.supports_memory_pools() {
        assert!(
            kernel_still_running && drop_time < DROP_LIMIT,
            "{launch:?}: the drop waited for the kernel ({drop_time:?}, still running after: \
             {kernel_still_running}); a stream-ordered free must not wait for the device"
        );
    }
    let errors = hip::take_drop_errors();
    assert!(errors.is_empty(), "errors in drop: {errors:?}");
}

#[test]
#[ignore = "needs a GPU"]
fn drop_of_a_stream_buffer_waits_in_stream_order_for_a_typed_kernel() {
    drop_while_another_stream_reads(Launch::Typed);
}

#[test]
#[ignore = "needs a GPU"]
fn drop_of_a_stream_buffer_waits_in_stream_order_for_an_untyped_kernel() {
    drop_while_another_stream_reads(Launch::Untyped);
}

/// A copy on `b` out of a buffer that a slow kernel on `a` writes waits
/// for the kernel by itself (the write is tracked), and the free of the
/// source after a cross-stream device-to-device copy waits for the copy.
#[test]
#[ignore = "needs a GPU"]
fn copies_on_another_stream_wait_for_a_tracked_kernel_write() {
    let (dev, module, a, b) = setup();
    // SAFETY: the parameter list is slow_affine's.
    let k = unsafe { SlowAffine::new(module.function("slow_affine").unwrap()) };
    let data = random(N);
    let x = test_kit::upload(&dev, &data);
    let mut y = a.alloc_zeroed::<f32>(N).unwrap();
    let cfg = LaunchConfig::for_num_elems(N as u32);
    // SAFETY: slow_affine touches [0, N) of both, which hold N floats.
    unsafe { k.launch(&a, cfg, (&mut y, &x, N as i32, SPIN)) }.unwrap();
    // On b: copy y (written by the slow kernel on a) into z, then read z.
    let mut z = b.alloc::<f32>(N).unwrap();
    b.copy_dtod(&y, &mut z).unwrap();
    drop(y); // a waits for the copy's read on b, then frees
    let got = b.clone_dtoh(&z).unwrap();
    assert_eq!(
        got,
        affine(&data),
        "z copied on b before the kernel on a wrote y"
    );
    let errors = hip::take_drop_errors();
    assert!(errors.is_empty(), "errors in drop: {errors:?}");
}

/// `DeviceBuffer::stream` names the allocating stream; `hipMalloc`
/// buffers have none and are untracked.
#[test]
#[ignore = "needs a GPU"]
fn stream_buffers_know_their_stream() {
    let (dev, _module, a, _b) = setup();
    let x = a.alloc::<u32>(16).unwrap();
    assert_eq!(x.stream().map(|s| s.as_raw()), Some(a.as_raw()));
    assert!(DeviceMemory::access_events(&x).is_tracked());
    let plain = DeviceBuffer::<u32>::zeroed(&dev, 16).unwrap();
    assert!(plain.stream().is_none());
    assert!(!DeviceMemory::access_events(&plain).is_tracked());
    assert!(!DeviceMemory::access_events(&plain.as_slice()).is_tracked());
}

/// A small upload into tracked memory is not waited for on the host: it is
/// ordered after the slow kernel that writes the buffer on another stream,
/// the host memory is overwritten and freed right after the call (the
/// runtime has read it by then), and the values read back are the
/// upload's, not the kernel's.
#[test]
#[ignore = "needs a GPU"]
fn a_small_upload_is_ordered_by_tracking_and_frees_its_host_memory_at_once() {
    let (_dev, module, a, b) = setup();
    let x_host = random(N);
    let mut y = StreamAllocation::new(&a, BYTES, true).unwrap();
    let mut input = StreamAllocation::new(&a, BYTES, true).unwrap();
    a.copy_htod(&x_host, &mut input.as_slice_mut::<f32>().unwrap())
        .unwrap();
    // The kernel writes y on `a` for about 100 ms.
    launch_slow(&module, &a, &mut y, &input);
    // The upload on `b` must land after it.
    let mut upload: Vec<f32> = random(N);
    let want = upload.clone();
    b.copy_htod(&upload, &mut y.as_slice_mut::<f32>().unwrap())
        .unwrap();
    upload.fill(-7.0);
    drop(upload);
    let mut out = vec![0.0f32; N];
    a.copy_dtoh(&y.as_slice::<f32>().unwrap(), &mut out)
        .unwrap();
    assert_eq!(out, want, "the upload, after the kernel's write");
    no_drop_errors();
}
