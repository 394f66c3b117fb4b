//! Tier 3: every public function on a real GPU, against CPU references on
//! fresh random data. Run with `cargo test -p hip --test gpu -- --ignored`
//! (`HIP_PLATFORM=nvidia` on NVIDIA).

use hip::{
    CompileOptions, Device, DeviceAttribute, DeviceBuffer, DeviceMemory, Error, Event,
    FunctionAttribute, LaunchArgs, LaunchConfig, LaunchOptions, Limit, ManagedBuffer, MemPool,
    Module, PinnedHostBuffer, Stream, StreamOptions, TypedKernel, VisibleDevices,
};
use rand::Rng;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use test_kit::{random_nonzero, rng};

const KERNELS: &str = concat!(
    test_kit::cycle_stopwatch_cuda!(),
    r#"
struct Params { float scale; float offset; unsigned n; unsigned pad; };

extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}
extern "C" __global__ void affine(Params p, const float* x, float* y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) y[i] = p.scale * x[i] + p.offset;
}
extern "C" __global__ void add_one(int* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}
extern "C" __global__ void sum12(float* out, float a, float b, float c, float d, float e,
                                 float f, float g, float h, float i, float j, int k) {
    if (blockIdx.x == 0 && threadIdx.x == 0) out[0] = a + b + c + d + e + f + g + h + i + j + (float)k;
}
extern "C" __global__ void spin(unsigned long long cycles) {
    hiprs_spin((long long)cycles);
}
extern "C" __global__ void empty() {}
// Waits until the host sets *flag (host memory mapped into the device), or
// until timeout_cycles clock cycles have passed, so that a bug fails the
// test instead of hanging it. status[0]: 1 released by the flag, 2 timed out.
extern "C" __global__ void wait_for_flag(const volatile int* flag, int* status,
                                         unsigned long long timeout_cycles) {
    hiprs_stopwatch clock;
    hiprs_stopwatch_start(&clock);
    int result = 2;
    while ((unsigned long long)hiprs_stopwatch_read(&clock) < timeout_cycles) {
        if (*flag != 0) {
            result = 1;
            break;
        }
    }
    status[0] = result;
}
"#
);

/// `wait_for_flag`'s status when the flag released it.
const RELEASED: i32 = 1;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Params {
    scale: f32,
    offset: f32,
    n: u32,
    pad: u32,
}
// SAFETY: repr(C), four 4-byte fields, no padding; every bit pattern valid.
unsafe impl hip::DeviceRepr for Params {}

fn dev() -> Arc<Device> {
    test_kit::device()
}

fn module() -> &'static Module {
    static M: OnceLock<Module> = OnceLock::new();
    M.get_or_init(|| Module::compile(&dev(), KERNELS).unwrap_or_else(|e| panic!("{e}")))
}

/// Fresh non-zero values in [-10, 10), from the test's printed seed.
fn random_f32(n: usize) -> Vec<f32> {
    random_nonzero(n, -10.0f32..10.0)
}

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * (1.0 + b.abs())
}

/// A host `int` mapped into the device's address space
/// (`hipHostMalloc(hipHostMallocMapped)`): a kernel polls it while the host
/// sets it. `hip` has no safe type for mapped memory, hence the raw calls.
struct MappedFlag {
    host: *mut i32,
    device: *mut std::ffi::c_void,
}

// SAFETY: the flag is only written with volatile stores of a whole `int`
// (`set`) and freed once, in drop; sharing it between host threads for
// that is sound.
unsafe impl Sync for MappedFlag {}

impl MappedFlag {
    fn new() -> MappedFlag {
        use hip::sys::{hipHostMallocMapped, hipHostMallocPortable};
        // hipHostMalloc needs the runtime up and a device: open it first.
        let _ = dev();
        let mut host = std::ptr::null_mut();
        // SAFETY: `host` is a valid place for the returned pointer.
        unsafe {
            hip::sys::hipHostMalloc(
                &mut host,
                size_of::<i32>(),
                hipHostMallocMapped | hipHostMallocPortable,
            )
        }
        .ok()
        .unwrap_or_else(|e| panic!("hipHostMalloc(mapped): {e}"));
        let host = host.cast::<i32>();
        // SAFETY: a fresh host allocation of one int, unused by the device.
        unsafe { std::ptr::write_volatile(host, 0) };
        let mut device = std::ptr::null_mut();
        // SAFETY: `host` came from hipHostMalloc with the mapped flag.
        unsafe { hip::sys::hipHostGetDevicePointer(&mut device, host.cast(), 0) }
            .ok()
            .unwrap_or_else(|e| panic!("hipHostGetDevicePointer: {e}"));
        assert!(!device.is_null());
        MappedFlag { host, device }
    }

    /// Releases every kernel waiting on the flag.
    fn set(&self) {
        // SAFETY: `host` is a live, aligned int; the device only reads it.
        unsafe { std::ptr::write_volatile(self.host, 1) };
        std::sync::atomic::fence(Ordering::SeqCst);
    }
}

impl Drop for MappedFlag {
    fn drop(&mut self) {
        // SAFETY: allocated by hipHostMalloc; every kernel reading it has
        // finished (each test waits for its stream before dropping it).
        let r = unsafe { hip::sys::hipHostFree(self.host.cast()) };
        if !std::thread::panicking() {
            r.ok().unwrap_or_else(|e| panic!("hipHostFree: {e}"));
        }
    }
}

/// Clock cycles in five seconds on `d` (2 GHz assumed if the clock rate
/// cannot be read): `wait_for_flag`'s timeout.
fn five_seconds_of_cycles(d: &Device) -> u64 {
    let khz = d
        .attribute(DeviceAttribute::ClockRate)
        .ok()
        .filter(|k| *k > 0)
        .unwrap_or(2_000_000);
    khz as u64 * 1000 * 5
}

/// Enqueues `wait_for_flag` on `s`: everything enqueued after it on `s`
/// waits until `flag` is set (or the kernel times out, writing 2 to
/// `status[0]`).
fn launch_wait_for_flag(s: &Stream, flag: &MappedFlag, status: &DeviceBuffer<i32>) {
    let f = module().function("wait_for_flag").unwrap();
    let timeout = five_seconds_of_cycles(s.device());
    let flag_ptr = hip::RawPtr(flag.device);
    let mut args = LaunchArgs::new();
    args.arg(&flag_ptr).arg(status).arg(&timeout);
    let one = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: (const volatile int*, int*, unsigned long long) as the kernel
    // declares; it reads the mapped flag, which outlives the kernel (the
    // callers wait for the stream before dropping it), and writes status[0]
    // of a one-element buffer.
    unsafe { s.launch(&f, one, &mut args) }.unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn device_information() {
    let n = Device::count().unwrap();
    assert!(n >= 1);
    let d = dev();
    assert!(
        Arc::ptr_eq(&d, &Device::get(0).unwrap()),
        "one Arc per ordinal"
    );
    assert_eq!(Device::all().unwrap().len(), n);
    assert!(Device::get(n).is_err());
    let name = d.name().unwrap();
    assert!(!name.is_empty());
    let p = d.properties().unwrap();
    assert_eq!(p.name, name);
    let arch = d.arch().unwrap();
    assert!(arch.starts_with("sm_") || arch.starts_with("gfx"), "{arch}");
    let total = d.total_memory().unwrap();
    assert!(total > 1 << 30);
    assert_eq!(p.total_memory, total);
    let mem = d.memory_info().unwrap();
    assert!(mem.free <= mem.total && mem.free > 0, "{mem:?}");
    let cc = d.compute_capability().unwrap();
    assert_eq!(cc, p.compute_capability);
    assert_eq!(
        d.attribute(DeviceAttribute::ComputeCapabilityMajor)
            .unwrap(),
        cc.0
    );
    assert_eq!(
        d.attribute(DeviceAttribute::MaxThreadsPerBlock).unwrap(),
        p.max_threads_per_block
    );
    assert_eq!(d.attribute(DeviceAttribute::WarpSize).unwrap(), p.warp_size);
    assert_eq!(
        d.attribute(DeviceAttribute::MultiprocessorCount).unwrap(),
        p.multiprocessor_count
    );
    assert_eq!(
        d.launch_limits().max_threads_per_block as i32,
        p.max_threads_per_block
    );
    let (mut ok, mut failed) = (0, Vec::new());
    for a in DeviceAttribute::ALL {
        match d.attribute(*a) {
            Ok(_) => ok += 1,
            Err(e) => {
                assert!(matches!(e, Error::Hip { .. }), "{e}");
                failed.push(*a)
            }
        }
    }
    println!("{name} {arch} cc {cc:?}: {ok} attributes readable, not on this platform: {failed:?}");
    assert!(ok >= 60, "only {ok} attributes readable");
    let caps = d.capabilities().unwrap();
    println!("{caps:?}");
    if arch.starts_with("sm_") && cc >= (8, 0) {
        assert!(caps.f16_arithmetic && caps.bf16_arithmetic && caps.managed_memory);
    }
    println!("{}", VisibleDevices::from_env());
    let v = hip::runtime_version().unwrap();
    assert!(v.major >= 5, "{v}");
    assert!(hip::driver_version().unwrap() > 0);
}

#[test]
#[ignore = "needs a GPU"]
fn limits_and_priorities() {
    let d = dev();
    let stack = d.limit(Limit::StackSize).unwrap();
    assert!(stack > 0);
    d.set_limit(Limit::StackSize, stack + 1024).unwrap();
    assert!(d.limit(Limit::StackSize).unwrap() >= stack + 1024);
    d.set_limit(Limit::StackSize, stack).unwrap();
    assert!(d.limit(Limit::MallocHeapSize).unwrap() > 0);
    let (least, greatest) = d.stream_priority_range().unwrap();
    assert!(greatest <= least);
    let s = Stream::with_options(
        &d,
        StreamOptions {
            non_blocking: true,
            priority: greatest,
        },
    )
    .unwrap();
    assert!(s.query().unwrap());
    s.synchronize().unwrap();
}

/// `launch_with`: parameters pushed by address with their accesses named
/// (as cuda-compat's builder does), a cooperative launch, and timing
/// events around a kernel that spins for a known number of cycles.
#[test]
#[ignore = "needs a GPU"]
fn launch_with_options_pushed_params_cooperative_and_timed() {
    let d = dev();
    let (s1, s2) = (Stream::new(&d).unwrap(), Stream::new(&d).unwrap());
    let n = 4096usize;
    let x = random_f32(n);
    let y0 = random_f32(n);
    // Tracked buffers written on `s1`, read and written by a kernel on
    // `s2`: the launch must wait for the uploads (named with `access`).
    let xd = s1.clone_htod(&x).unwrap();
    let mut yd = s1.clone_htod(&y0).unwrap();
    let a: f32 = rng().gen_range(-2.0..2.0);
    let len = n as u32;
    let (xp, yp) = (xd.as_device_ptr(), yd.as_device_ptr_mut());
    let mut args = LaunchArgs::new();
    // SAFETY: each pointer addresses a local of the parameter's type
    // (float, const float*, float*, unsigned) that outlives `args`.
    unsafe {
        args.push_param((&a as *const f32).cast_mut().cast())
            .push_param((&xp as *const *const f32).cast_mut().cast())
            .push_param((&yp as *const *mut f32).cast_mut().cast())
            .push_param((&len as *const u32).cast_mut().cast());
    }
    args.access(xd.access_events(), false, d.ordinal()).access(
        yd.access_events(),
        true,
        d.ordinal(),
    );
    assert_eq!(args.len(), 4);
    let f = module().function("axpy").unwrap();
    let cfg = LaunchConfig::for_num_elems(len);
    let cooperative = LaunchOptions {
        cooperative: true,
        ..Default::default()
    };
    // SAFETY: axpy(float, const float*, float*, unsigned) over n elements;
    // its grid of 4 blocks fits on any device at once.
    unsafe { s2.launch_with(&f, cfg, &mut args, cooperative) }.unwrap();
    drop(args);
    let y = s2.clone_dtoh(&yd).unwrap();
    for i in 0..n {
        assert!(close(y[i], y0[i] + a * x[i]), "cooperative y[{i}]");
    }

    // Timing: the events bracket a kernel that spins for ~2 ms.
    let (start, end) = (Event::new(&d).unwrap(), Event::new(&d).unwrap());
    let cycles = five_seconds_of_cycles(&d) / 2500;
    let mut args = LaunchArgs::new();
    args.arg(&cycles);
    let timed = LaunchOptions {
        timing: Some((&start, &end)),
        ..Default::default()
    };
    let one = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: spin(unsigned long long).
    unsafe { s1.launch_with(&module().function("spin").unwrap(), one, &mut args, timed) }.unwrap();
    end.synchronize().unwrap();
    let ms = end.elapsed_ms_since(&start).unwrap();
    assert!((1.0..1000.0).contains(&ms), "timed spin took {ms} ms");
}

#[test]
#[ignore = "needs a GPU"]
fn typed_launch_matches_cpu() {
    let d = dev();
    let s = Stream::new(&d).unwrap();
    let n = 100_003usize;
    let (x, y0) = (random_f32(n), random_f32(n));
    let a: f32 = rng().gen_range(-3.0..3.0);
    let xd = test_kit::upload(&d, &x);
    let mut yd = test_kit::upload(&d, &y0);
    // SAFETY: matches `axpy`'s C signature.
    let k = unsafe {
        TypedKernel::<(f32, *const f32, *mut f32, u32)>::new(module().function("axpy").unwrap())
    };
    // SAFETY: axpy touches [0, n) of both buffers, which have n elements.
    unsafe {
        k.launch(
            &s,
            LaunchConfig::for_num_elems(n as u32),
            (a, &xd, &mut yd, n as u32),
        )
    }
    .unwrap();
    let y = s.clone_dtoh(&yd).unwrap();
    for i in 0..n {
        let want = y0[i] + a * x[i];
        assert!(close(y[i], want), "y[{i}] = {} want {want}", y[i]);
    }
    // Sub-ranges: launch on the second half only.
    let half = n / 2;
    let mut yd2 = test_kit::upload(&d, &y0);
    let xs = xd.slice(half..).unwrap();
    let ys = yd2.slice_mut(half..).unwrap();
    let m = (n - half) as u32;
    // SAFETY: both views have m elements.
    unsafe { k.launch(&s, LaunchConfig::for_num_elems(m), (a, xs, ys, m)) }.unwrap();
    let y2 = s.clone_dtoh(&yd2).unwrap();
    for i in 0..n {
        let want = if i < half { y0[i] } else { y0[i] + a * x[i] };
        assert!(close(y2[i], want), "y2[{i}]");
    }
}

#[test]
#[ignore = "needs a GPU"]
fn struct_args_builder_and_twelve_args() {
    let d = dev();
    let s = Stream::new(&d).unwrap();
    let n = 4097usize;
    let x = random_f32(n);
    let p = Params {
        scale: rng().gen_range(0.5..2.0),
        offset: rng().gen_range(-5.0..5.0),
        n: n as u32,
        pad: 0,
    };
    let xd = test_kit::upload(&d, &x);
    let mut yd = DeviceBuffer::<f32>::zeroed(&d, n).unwrap();
    // SAFETY: matches `affine(Params, const float*, float*)`.
    let k = unsafe {
        TypedKernel::<(Params, *const f32, *mut f32)>::new(module().function("affine").unwrap())
    };
    // SAFETY: affine touches [0, p.n) and both buffers have p.n elements.
    unsafe { k.launch(&s, LaunchConfig::for_num_elems(n as u32), (p, &xd, &mut yd)) }.unwrap();
    let y = s.clone_dtoh(&yd).unwrap();
    for i in 0..n {
        assert!(close(y[i], p.scale * x[i] + p.offset), "y[{i}]");
    }

    // The unsafe builder, same kernel, other data.
    let x2 = random_f32(n);
    let xd2 = test_kit::upload(&d, &x2);
    let mut args = LaunchArgs::new();
    args.arg(&p).arg(&xd2).arg(&yd);
    assert_eq!(args.len(), 3);
    let f = module().function("affine").unwrap();
    // SAFETY: three arguments of the kernel's types; buffers hold p.n elements.
    unsafe { s.launch(&f, LaunchConfig::for_num_elems(n as u32), &mut args) }.unwrap();
    drop(args);
    let y = s.clone_dtoh(&yd).unwrap();
    for i in 0..n {
        assert!(close(y[i], p.scale * x2[i] + p.offset), "builder y[{i}]");
    }

    // Twelve parameters.
    let v = random_f32(10);
    let kk: i32 = rng().gen_range(-100..100);
    let mut out = DeviceBuffer::<f32>::zeroed(&d, 1).unwrap();
    // SAFETY: matches sum12's C signature.
    let k12 = unsafe {
        TypedKernel::<(
            *mut f32,
            f32,
            f32,
            f32,
            f32,
            f32,
            f32,
            f32,
            f32,
            f32,
            f32,
            i32,
        )>::new(module().function("sum12").unwrap())
    };
    let cfg = LaunchConfig {
        grid: (1, 1, 1),
        block: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: writes out[0] only.
    unsafe {
        k12.launch(
            &s,
            cfg,
            (
                &mut out, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], kk,
            ),
        )
    }
    .unwrap();
    let got = s.clone_dtoh(&out).unwrap()[0];
    let want: f32 = v.iter().sum::<f32>() + kk as f32;
    assert!((got - want).abs() < 1e-3, "{got} vs {want}");

    // Invalid configurations are rejected before the runtime.
    let bad = LaunchConfig {
        grid: (1, 1, 1),
        block: (4096, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: never launched: rejected by validation.
    let e = unsafe {
        k12.launch(
            &s,
            bad,
            (&mut out, 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0),
        )
    }
    .unwrap_err();
    assert!(matches!(e, Error::Invalid { .. }), "{e}");
}

#[test]
#[ignore = "needs a GPU"]
fn functions_attributes_and_occupancy() {
    let d = dev();
    let f = module().function("axpy").unwrap();
    assert_eq!(f.name(), "axpy");
    assert!(f.attribute(FunctionAttribute::MaxThreadsPerBlock).unwrap() > 0);
    assert!(f.attribute(FunctionAttribute::NumRegs).unwrap() >= 0);
    let (grid, block) = f.max_potential_block_size(0).unwrap();
    assert!(
        block >= 32 && block <= d.launch_limits().max_threads_per_block,
        "{block}"
    );
    assert!(grid >= 1);
    let per_sm = f.max_active_blocks_per_multiprocessor(block, 0).unwrap();
    assert!(per_sm >= 1);
    assert!(f.max_active_blocks_per_multiprocessor(0, 0).is_err());
    let cfg = f.launch_config_for_num_elems(1_000_000, 0).unwrap();
    assert!(cfg.grid.0 as u64 * cfg.block.0 as u64 >= 1_000_000);
    assert!(module().function("no_such_kernel").is_err());
    assert!(module().function("a\0b").is_err());
}

#[test]
#[ignore = "needs a GPU"]
fn modules_from_bytes_and_files_and_compile_errors() {
    let d = dev();
    let code = hip::compile(KERNELS, &CompileOptions::for_device(&d).unwrap()).unwrap();
    let m = Module::load_data(&d, &code.code).unwrap();
    m.function("empty").unwrap();
    #[allow(clippy::disallowed_methods)]
    // runs on the GPU machine, where cargo's scratch space is absent; removed below
    let path = std::env::temp_dir().join(format!("hip-test-{}.co", std::process::id()));
    std::fs::write(&path, &code.code).unwrap();
    let m2 = Module::load_file(&d, &path).unwrap();
    std::fs::remove_file(&path).ok();
    let f = m2.function("add_one").unwrap();
    drop(m2); // the function keeps the module alive
    let s = Stream::new(&d).unwrap();
    let host: Vec<i32> = random_nonzero(1000, -1000..1000);
    let mut buf = test_kit::upload(&d, &host);
    // SAFETY: add_one(int*, unsigned) touches [0, n).
    let k = unsafe { TypedKernel::<(*mut i32, u32)>::new(f) };
    // SAFETY: n is the buffer's length.
    unsafe { k.launch(&s, LaunchConfig::for_num_elems(1000), (&mut buf, 1000u32)) }.unwrap();
    let out = s.clone_dtoh(&buf).unwrap();
    assert!(out.iter().zip(&host).all(|(o, h)| *o == h + 1));
    assert!(Module::load_file(&d, "/nonexistent/file.co").is_err());
    assert!(Module::load_data(&d, &[]).is_err());
    // A damaged image is refused by the validator, naming what is wrong,
    // before the runtime could read past its end; the intact one still
    // loads after it.
    let half = &code.code[..code.code.len() / 2];
    let e = Module::load_data(&d, half).unwrap_err().to_string();
    if code.code.starts_with(b"\x7fELF") {
        // A binary: its section table is cut off, which the validator sees.
        assert!(
            e.contains("outside"),
            "a truncated {}-byte image: {e}",
            code.code.len()
        );
    }
    let mut bad = code.code.clone();
    bad.iter_mut().take(4).for_each(|b| *b = b'Z');
    assert!(Module::load_data(&d, &bad).is_err());
    Module::load_data(&d, &code.code).unwrap();
    let e =
        Module::compile(&d, "extern \"C\" __global__ void k() { this is not code }").unwrap_err();
    let log = e.compile_log().expect("a compile error").to_string();
    assert!(log.contains("error"), "{log}");
    println!("compile error log as returned:\n{log}");
}

/// A kernel looked up twice is the same kernel (the second time from the
/// module's cache), in each of two modules of the same code; a name that
/// is not there fails every time (failures are not cached); a function
/// from the cache launches.
#[test]
#[ignore = "needs a GPU"]
fn kernel_lookups_are_cached_per_module() {
    let d = dev();
    let code = hip::compile(KERNELS, &CompileOptions::for_device(&d).unwrap()).unwrap();
    let (m1, m2) = (
        Module::load_data(&d, &code.code).unwrap(),
        Module::load_data(&d, &code.code).unwrap(),
    );
    let a = m1.function("add_one").unwrap();
    let b = m1.function("add_one").unwrap();
    assert_eq!(a.as_raw(), b.as_raw());
    assert_eq!(b.name(), "add_one");
    let other = m2.function("add_one").unwrap();
    assert_ne!(other.as_raw(), a.as_raw(), "another module's kernel");
    assert_ne!(m1.function("axpy").unwrap().as_raw(), a.as_raw());
    for _ in 0..2 {
        assert!(m1.function("no_such_kernel").is_err());
    }
    assert!(m1.function("bad\0name").is_err());
    drop((m1, a));
    let s = Stream::new(&d).unwrap();
    let host: Vec<i32> = random_nonzero(256, -1000..1000);
    let mut buf = test_kit::upload(&d, &host);
    // SAFETY: add_one(int*, unsigned) touches [0, n); `b` keeps its module.
    let k = unsafe { TypedKernel::<(*mut i32, u32)>::new(b) };
    // SAFETY: n is the buffer's length.
    unsafe { k.launch(&s, LaunchConfig::for_num_elems(256), (&mut buf, 256u32)) }.unwrap();
    let out = s.clone_dtoh(&buf).unwrap();
    assert!(out.iter().zip(&host).all(|(o, h)| *o == h + 1));
}

#[test]
#[ignore = "needs a GPU"]
fn copies_views_memset_and_length_checks() {
    let d = dev();
    let s = Stream::new(&d).unwrap();
    let n = 10_000;
    let x = random_f32(n);
    let mut a = DeviceBuffer::<f32>::uninit(&d, n).unwrap();
    s.copy_htod(&x, &mut a).unwrap();
    let mut back = vec![0f32; n];
    s.copy_dtoh(&a, &mut back).unwrap();
    assert_eq!(back, x);
    // dtod into a sub-range.
    let mut b = DeviceBuffer::<f32>::zeroed(&d, 2 * n).unwrap();
    {
        let mut hi = b.slice_mut(n..).unwrap();
        s.copy_dtod(&a, &mut hi).unwrap();
    }
    let bv = s.clone_dtoh(&b).unwrap();
    assert!(bv[..n].iter().all(|v| *v == 0.0));
    assert_eq!(&bv[n..], &x[..]);
    // split_at_mut and per-half copies.
    let (mut lo, mut hi) = b.split_at_mut(n).unwrap();
    s.copy_htod(&x, &mut lo).unwrap();
    s.memset_zeros(&mut hi).unwrap();
    s.synchronize().unwrap();
    let bv = s.clone_dtoh(&b).unwrap();
    assert_eq!(&bv[..n], &x[..]);
    assert!(bv[n..].iter().all(|v| *v == 0.0));
    // memset with a byte pattern: 0x3f3f3f3f as f32.
    s.memset_bytes(&mut b, 0x3f).unwrap();
    let bv = s.clone_dtoh(&b).unwrap();
    assert!(bv.iter().all(|v| v.to_bits() == 0x3f3f3f3f));
    // Length mismatches are rejected.
    assert!(matches!(
        s.copy_htod(&x[1..], &mut a),
        Err(Error::Invalid { .. })
    ));
    assert!(matches!(
        s.copy_dtod(&a, &mut b),
        Err(Error::Invalid { .. })
    ));
    assert!(b.slice(0..2 * n + 1).is_err());
    assert!(b.split_at_mut(2 * n + 1).is_err());
    let mut small = [0f32; 3];
    assert!(matches!(
        s.copy_dtoh(&a, &mut small),
        Err(Error::Invalid { .. })
    ));
    // Zero-length buffers work without allocating.
    let z = DeviceBuffer::<f32>::zeroed(&d, 0).unwrap();
    assert!(z.is_empty() && s.clone_dtoh(&z).unwrap().is_empty());
    // f16 / bf16 round trip.
    let h: Vec<half::f16> = x.iter().map(|v| half::f16::from_f32(*v)).collect();
    let hd = test_kit::upload(&d, &h);
    assert_eq!(s.clone_dtoh(&hd).unwrap(), h);
    let bh: Vec<half::bf16> = x.iter().map(|v| half::bf16::from_f32(*v)).collect();
    assert_eq!(s.clone_dtoh(&s.clone_htod(&bh).unwrap()).unwrap(), bh);
}

#[test]
#[ignore = "needs a GPU"]
fn pinned_managed_and_pool_memory() {
    let d = dev();
    let s = Stream::with_options(
        &d,
        StreamOptions {
            non_blocking: true,
            priority: 0,
        },
    )
    .unwrap();
    let n = 1 << 20;
    let x = random_f32(n);
    let pinned = PinnedHostBuffer::from_slice(&x).unwrap();
    let mut dev_buf = s.alloc::<f32>(n).unwrap();
    s.copy_htod(&pinned, &mut dev_buf).unwrap();
    let mut out = PinnedHostBuffer::<f32>::zeroed(n).unwrap();
    s.copy_dtoh(&dev_buf, &mut out).unwrap();
    assert_eq!(out.as_slice().unwrap(), &x[..]); // waits for the copy itself
    drop(pinned);

    // Pools: default and a new one.
    let pool = MemPool::default_for(&d).unwrap();
    pool.set_release_threshold(64 << 20).unwrap();
    let own = MemPool::new(&d).unwrap();
    let mut p = s.alloc_from_pool::<f32>(&own, n).unwrap();
    s.copy_dtod(&dev_buf, &mut p).unwrap();
    let z = s.alloc_zeroed::<u32>(1000).unwrap();
    assert!(s.clone_dtoh(&z).unwrap().iter().all(|v| *v == 0));
    assert_eq!(s.clone_dtoh(&p).unwrap(), x);
    drop(own); // buffers keep the pool alive
    drop(p);
    s.synchronize().unwrap();
    pool.trim_to(0).unwrap();

    // Managed memory written by a kernel, read by the host.
    let mut m = ManagedBuffer::<i32>::zeroed(&d, 5000).unwrap();
    let init: Vec<i32> = random_nonzero(5000, 0..1000);
    m.as_mut_slice().unwrap().copy_from_slice(&init);
    m.prefetch_to_device(&s).unwrap();
    // SAFETY: add_one(int*, unsigned).
    let k = unsafe { TypedKernel::<(*mut i32, u32)>::new(module().function("add_one").unwrap()) };
    // SAFETY: n is the buffer's length.
    unsafe { k.launch(&s, LaunchConfig::for_num_elems(5000), (&mut m, 5000u32)) }.unwrap();
    let got = m.as_slice().unwrap();
    assert!(got.iter().zip(&init).all(|(g, i)| *g == i + 1));
    assert_eq!(m.len(), 5000);
}

#[test]
#[ignore = "needs a GPU"]
fn streams_events_and_host_callbacks() {
    let d = dev();
    let s = Stream::new(&d).unwrap();
    let start = Event::new(&d).unwrap();
    let stop = Event::new(&d).unwrap();
    // SAFETY: spin(unsigned long long) touches no memory.
    let spin = unsafe { TypedKernel::<(u64,)>::new(module().function("spin").unwrap()) };
    start.record(&s).unwrap();
    // SAFETY: touches no memory.
    unsafe {
        spin.launch(
            &s,
            LaunchConfig {
                grid: (1, 1, 1),
                block: (1, 1, 1),
                shared_mem_bytes: 0,
            },
            (20_000_000u64,),
        )
    }
    .unwrap();
    s.record_event(&stop).unwrap();
    stop.synchronize().unwrap();
    assert!(stop.query().unwrap() && s.query().unwrap());
    let ms = stop.elapsed_ms_since(&start).unwrap();
    assert!(ms > 0.0, "{ms} ms");
    println!("spin kernel took {ms:.3} ms");

    // "Not finished yet": a kernel waiting for a flag only the host sets is
    // still running, whatever the timing, until the host sets it.
    let flag = MappedFlag::new();
    let status = DeviceBuffer::<i32>::zeroed(&d, 1).unwrap();
    let gate_done = Event::new(&d).unwrap();
    launch_wait_for_flag(&s, &flag, &status);
    s.record_event(&gate_done).unwrap();
    assert!(
        !s.query().unwrap(),
        "Stream::query says finished while its kernel waits for the host"
    );
    assert!(
        !gate_done.query().unwrap(),
        "Event::query says finished before the kernel it follows"
    );
    flag.set();
    gate_done.synchronize().unwrap();
    assert!(gate_done.query().unwrap(), "Event::query after synchronize");
    assert!(s.query().unwrap(), "Stream::query after the event");
    assert_eq!(
        s.clone_dtoh(&status).unwrap(),
        [RELEASED],
        "wait_for_flag timed out: it never saw the flag"
    );
    drop(flag);
    let no_timing = Event::with_timing(&d, false).unwrap();
    assert!(no_timing.elapsed_ms_since(&start).is_err());

    // Cross-stream ordering.
    let s2 = Stream::new(&d).unwrap();
    s2.wait_event(&stop).unwrap();
    s2.wait_for(&s).unwrap();
    s2.synchronize().unwrap();

    // Host callbacks run in order; a panic is caught and recorded.
    let order = Arc::new(Mutex::new(Vec::new()));
    for i in 0..5 {
        let o = order.clone();
        s.launch_host_fn(move || o.lock().unwrap().push(i)).unwrap();
    }
    let _ = hip::take_drop_errors();
    s.launch_host_fn(|| panic!("boom from a host callback"))
        .unwrap();
    let o = order.clone();
    s.launch_host_fn(move || o.lock().unwrap().push(99))
        .unwrap();
    s.synchronize().unwrap();
    assert_eq!(*order.lock().unwrap(), vec![0, 1, 2, 3, 4, 99]);
    let errs = hip::take_drop_errors();
    assert!(
        errs.iter()
            .any(|e| matches!(e, Error::CallbackPanicked { message } if message.contains("boom"))),
        "{errs:?}"
    );

    // Default stream.
    let ds = Stream::default_for(&d);
    assert!(ds.is_default());
    let mut b = DeviceBuffer::<i32>::zeroed(&d, 10).unwrap();
    ds.copy_htod(&[7; 10], &mut b).unwrap();
    assert_eq!(ds.clone_dtoh(&b).unwrap(), vec![7; 10]);
    // SAFETY: never run: the default stream cannot capture.
    assert!(unsafe { ds.capture(|_| Ok(())) }.is_err());
    d.synchronize().unwrap();
}

/// `Device::synchronize` on one thread while another captures a graph of
/// the same device. CUDA forbids a device-wide synchronization during any
/// capture of the device; without the capture gate this mix invalidated
/// the capture and crashed in `cuCtxSynchronize` within a second (CUDA 13,
/// H200). Now both sides must succeed every time, and the graphs must
/// compute what they captured.
#[test]
#[ignore = "needs a GPU"]
fn device_synchronize_waits_for_captures_on_other_threads() {
    use std::sync::atomic::AtomicBool;
    use std::time::{Duration, Instant};
    const RUN: Duration = Duration::from_secs(3);
    const N: u32 = 4096;
    const KERNELS: i32 = 20;
    let d = dev();
    let stop = Arc::new(AtomicBool::new(false));
    let capturer = {
        let (d, stop) = (d.clone(), stop.clone());
        std::thread::spawn(move || -> (u32, Vec<String>) {
            let s = test_kit::non_blocking_stream(&d);
            // SAFETY: add_one(int*, unsigned).
            let k = unsafe {
                TypedKernel::<(*mut i32, u32)>::new(module().function("add_one").unwrap())
            };
            let cfg = LaunchConfig::for_num_elems(N);
            let mut a = test_kit::upload(&d, &vec![0i32; N as usize]);
            let (mut captures, mut failures, mut want) = (0u32, Vec::new(), 0i32);
            while !stop.load(Ordering::Relaxed) {
                let (buf, k) = (&mut a, &k);
                // SAFETY: the graph uses only `a`, borrowed while it lives;
                // add_one stays within N elements.
                let replayed = unsafe {
                    s.capture(move |s| {
                        for _ in 0..KERNELS {
                            k.launch(s, cfg, (&mut *buf, N))?;
                        }
                        Ok(())
                    })
                }
                .and_then(|g| g.instantiate())
                .and_then(|mut x| {
                    x.launch(&s)?;
                    s.synchronize()
                });
                match replayed {
                    Ok(()) => want += KERNELS,
                    Err(e) => failures.push(format!("capture {captures}: {e}")),
                }
                captures += 1;
            }
            let got = s.clone_dtoh(&a).unwrap();
            if let Some(i) = got.iter().position(|&v| v != want) {
                failures.push(format!("element {i} is {}, want {want}", got[i]));
            }
            (captures, failures)
        })
    };
    let s = Stream::new(&d).unwrap();
    let mut x = test_kit::upload(&d, &vec![0i32; N as usize]);
    // SAFETY: add_one(int*, unsigned).
    let k = unsafe { TypedKernel::<(*mut i32, u32)>::new(module().function("add_one").unwrap()) };
    let (start, mut syncs, mut sync_failures) = (Instant::now(), 0u32, Vec::new());
    while start.elapsed() < RUN {
        // SAFETY: add_one stays within N elements of `x`.
        unsafe { k.launch(&s, LaunchConfig::for_num_elems(N), (&mut x, N)) }.unwrap();
        match d.synchronize() {
            Ok(()) => syncs += 1,
            Err(e) => sync_failures.push(format!("synchronize {syncs}: {e}")),
        }
    }
    stop.store(true, Ordering::Relaxed);
    let (captures, capture_failures) = capturer.join().expect("the capturing thread");
    eprintln!("{syncs} device synchronizations, {captures} captures in {RUN:?}");
    assert!(
        sync_failures.is_empty() && capture_failures.is_empty(),
        "{} synchronizations and {} of {captures} captures failed; first: {:?} {:?}",
        sync_failures.len(),
        capture_failures.len(),
        sync_failures.first(),
        capture_failures.first()
    );
    assert!(
        syncs > 0 && captures > 0,
        "{syncs} syncs, {captures} captures"
    );
    let got = s.clone_dtoh(&x).unwrap();
    assert!(
        got.iter().all(|&v| v == syncs as i32),
        "want {syncs} everywhere"
    );
    // On the capturing thread itself, a device synchronization is refused
    // at once (it would wait for its own capture).
    let c = test_kit::non_blocking_stream(&d);
    // SAFETY: records nothing that outlives the closure.
    let e = unsafe { c.capture(|_| d.synchronize()) }.unwrap_err();
    assert!(e.to_string().contains("this thread is capturing"), "{e}");
    d.synchronize().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn graphs_capture_replay_and_update() {
    let d = dev();
    let s = Stream::new(&d).unwrap();
    let n = 1000u32;
    let init: Vec<i32> = random_nonzero(n as usize, -1000..1000);
    let mut a = test_kit::upload(&d, &init);
    let mut b = test_kit::upload(&d, &init);
    // SAFETY: add_one(int*, unsigned).
    let k = unsafe { TypedKernel::<(*mut i32, u32)>::new(module().function("add_one").unwrap()) };
    let cfg = LaunchConfig::for_num_elems(n);
    let kernels = 100;
    {
        // SAFETY: the graph only uses `a`/`b`, borrowed for its lifetime;
        // add_one stays within n elements.
        let graph = unsafe {
            s.capture(|s| {
                for _ in 0..kernels {
                    k.launch(s, cfg, (&mut a, n))?;
                }
                Ok(())
            })
        }
        .unwrap();
        assert_eq!(graph.node_count().unwrap(), kernels);
        let mut exec = graph.instantiate().unwrap();
        for _ in 0..3 {
            exec.launch(&s).unwrap();
        }
        s.synchronize().unwrap();
        // Same topology, other buffer: update in place and replay.
        // SAFETY: as above, for `b`.
        let graph_b = unsafe {
            s.capture(|s| {
                for _ in 0..kernels {
                    k.launch(s, cfg, (&mut b, n))?;
                }
                Ok(())
            })
        }
        .unwrap();
        exec.update(&graph_b).unwrap();
        exec.launch(&s).unwrap();
        s.synchronize().unwrap();
        // A failing closure ends capture and returns its error.
        // SAFETY: records nothing.
        let e = unsafe {
            s.capture(|_| {
                Err(Error::CallbackPanicked {
                    message: "x".into(),
                })
            })
        }
        .unwrap_err();
        assert!(matches!(e, Error::CallbackPanicked { .. }));
        assert!(s.query().unwrap());
        // A panicking closure also ends capture: the stream stays usable.
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: records nothing.
            unsafe { s.capture(|_| panic!("inside capture")) }
        }));
        assert!(caught.is_err());
        assert!(s.query().unwrap());
        s.synchronize().unwrap();
    }
    let av = s.clone_dtoh(&a).unwrap();
    let bv = s.clone_dtoh(&b).unwrap();
    for i in 0..n as usize {
        assert_eq!(av[i], init[i] + 3 * kernels as i32);
        assert_eq!(bv[i], init[i] + kernels as i32);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn sharing_across_threads() {
    let d = dev();
    let n = 50_000usize;
    let x = random_f32(n);
    let xd = Arc::new(test_kit::upload(&d, &x));
    let shared_stream = Stream::new(&d).unwrap();
    let done = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for t in 0..4 {
            let (xd, x, shared_stream, done) = (xd.clone(), &x, shared_stream.clone(), &done);
            scope.spawn(move || {
                // The device object from another thread, a stream per thread.
                let d = Device::get(0).unwrap();
                let s = Stream::new(&d).unwrap();
                let a = t as f32 + 1.0;
                let mut y = DeviceBuffer::<f32>::zeroed(&d, n).unwrap();
                // SAFETY: matches axpy's signature.
                let k = unsafe {
                    TypedKernel::<(f32, *const f32, *mut f32, u32)>::new(
                        module().function("axpy").unwrap(),
                    )
                };
                // SAFETY: n elements in both buffers.
                unsafe {
                    k.launch(
                        &s,
                        LaunchConfig::for_num_elems(n as u32),
                        (a, &*xd, &mut y, n as u32),
                    )
                }
                .unwrap();
                let got = s.clone_dtoh(&y).unwrap();
                assert!(got.iter().zip(x).all(|(g, x)| close(*g, a * x)));
                // A shared stream used from every thread, a shared buffer read.
                let back = shared_stream.clone_dtoh(&*xd).unwrap();
                assert_eq!(&back, x);
                done.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    assert_eq!(done.load(Ordering::SeqCst), 4);
    // Buffers move between threads.
    let b = test_kit::upload(&d, &x);
    let v = std::thread::spawn(move || Stream::default_for(b.device()).clone_dtoh(&b).unwrap())
        .join()
        .unwrap();
    assert_eq!(v, x);
    assert_eq!(hip::drop_error_count(), 0, "{:?}", hip::take_drop_errors());
}

/// Two devices, or a failure saying so: tests named `two_gpus_` are listed
/// as not run on one-GPU machines by the GPU runner and run on the 2-GPU
/// machine, where fewer than two devices is an error.
fn two_devices() -> Vec<Arc<Device>> {
    let devs = Device::all().unwrap_or_else(|e| panic!("needs two GPUs: {e}"));
    assert!(
        devs.len() >= 2,
        "needs two GPUs but {} visible: run `two_gpus_` tests on the 2-GPU machine",
        devs.len()
    );
    devs
}

#[test]
#[ignore = "needs a GPU"]
fn a_device_is_not_its_own_peer() {
    let d = dev();
    assert!(!d.can_access_peer(&d).unwrap());
    assert!(d.enable_peer_access(&d).is_err());
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_peer_access_and_peer_copies() {
    let devs = two_devices();
    let (d0, d1) = (&devs[0], &devs[1]);
    let can = d0.can_access_peer(d1).unwrap();
    if can {
        d0.enable_peer_access(d1).unwrap();
        d0.enable_peer_access(d1).unwrap(); // twice is fine
    }
    let x = random_f32(100_000);
    let a = test_kit::upload(d0, &x);
    let mut b = DeviceBuffer::<f32>::zeroed(d1, x.len()).unwrap();
    let s = Stream::new(d1).unwrap();
    s.copy_peer(&a, &mut b).unwrap();
    s.synchronize().unwrap();
    assert_eq!(b.device().ordinal(), 1);
    assert_eq!(s.clone_dtoh(&b).unwrap(), x);
    // Memory on the wrong device is rejected before the runtime.
    let s0 = Stream::new(d0).unwrap();
    assert!(matches!(
        s0.copy_dtod(&a, &mut b),
        Err(Error::Invalid { .. })
    ));
    // A peer copy runs on the source's or the destination's device.
    let mut b2 = DeviceBuffer::<f32>::zeroed(d1, x.len()).unwrap();
    assert!(matches!(
        s0.copy_peer(&b, &mut b2),
        Err(Error::Invalid { .. })
    ));
    // SAFETY: never launched: rejected (buffer on device 1, stream on 0).
    let k = unsafe {
        TypedKernel::<(*mut i32, u32)>::new(
            Module::compile(d0, KERNELS)
                .unwrap()
                .function("add_one")
                .unwrap(),
        )
    };
    let mut c = DeviceBuffer::<i32>::zeroed(d1, 4).unwrap();
    // SAFETY: rejected before launch.
    let e = unsafe { k.launch(&s0, LaunchConfig::for_num_elems(4), (&mut c, 4u32)) }.unwrap_err();
    assert!(matches!(e, Error::Invalid { .. }), "{e}");
    println!(
        "peer access 0->1: {can}; peer copy of {} floats checked",
        x.len()
    );
}

#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_split_work_and_gather_with_peer_copies() {
    let devs = two_devices();
    let n = 1 << 20;
    let (x, y0) = (random_f32(n), random_f32(n));
    let a: f32 = rng().gen_range(-3.0..3.0);
    // Uneven halves, so that an offset mistake cannot cancel out.
    let split = n / 2 + 7;
    let s0 = Stream::new(&devs[0]).unwrap();
    let mut gathered = DeviceBuffer::<f32>::zeroed(&devs[0], n).unwrap();
    for (i, d) in devs[..2].iter().enumerate() {
        let range = if i == 0 { 0..split } else { split..n };
        let len = range.len();
        let s = Stream::new(d).unwrap();
        let f = Module::compile(d, KERNELS)
            .unwrap()
            .function("axpy")
            .unwrap();
        // SAFETY: matches axpy's C signature.
        let k = unsafe { TypedKernel::<(f32, *const f32, *mut f32, u32)>::new(f) };
        let xd = test_kit::upload(d, &x[range.clone()]);
        let mut yd = test_kit::upload(d, &y0[range.clone()]);
        // SAFETY: both buffers hold `len` elements, the kernel touches [0, len).
        unsafe {
            k.launch(
                &s,
                LaunchConfig::for_num_elems(len as u32),
                (a, &xd, &mut yd, len as u32),
            )
        }
        .unwrap();
        s.synchronize().unwrap();
        assert_eq!(yd.device().ordinal(), i);
        let mut part = gathered.slice_mut(range).unwrap();
        s0.copy_peer(&yd, &mut part).unwrap();
    }
    let got = s0.clone_dtoh(&gathered).unwrap();
    for i in 0..n {
        let want = y0[i] + a * x[i];
        assert!(close(got[i], want), "y[{i}] = {} want {want}", got[i]);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn drops_record_no_errors() {
    let d = dev();
    let _ = hip::take_drop_errors();
    {
        let s = Stream::new(&d).unwrap();
        let _a = DeviceBuffer::<u8>::zeroed(&d, 1 << 20).unwrap();
        let _b = s.alloc::<u8>(1 << 20).unwrap();
        let _e = Event::new(&d).unwrap();
        let _m = ManagedBuffer::<u8>::zeroed(&d, 4096).unwrap();
        let _p = PinnedHostBuffer::<u8>::zeroed(4096).unwrap();
        let _pool = MemPool::new(&d).unwrap();
    }
    d.synchronize().unwrap();
    let errs = hip::take_drop_errors();
    assert!(errs.is_empty(), "{errs:?}");
    assert_eq!(
        DeviceMemory::len(&DeviceBuffer::<u8>::zeroed(&d, 3).unwrap()),
        3
    );
}

#[test]
#[ignore = "needs a GPU"]
fn view_methods_and_pinned_reuse() {
    let d = dev();
    let s = Stream::new(&d).unwrap();
    let n = 3000;
    let x = random_f32(n);
    let mut buf = test_kit::upload(&d, &x);
    assert!(!buf.as_device_ptr().is_null());
    assert_eq!(buf.as_device_ptr_mut() as *const f32, buf.as_device_ptr());
    // Read-only views: nested slicing, copies out of them.
    let v = buf.slice(100..2100).unwrap();
    let w = v.slice(50..150).unwrap();
    assert_eq!(w.len(), 100);
    assert_eq!(w.as_device_ptr(), buf.as_device_ptr().wrapping_add(150));
    assert_eq!(s.clone_dtoh(&w).unwrap(), &x[150..250]);
    let mut out = vec![0f32; 2000];
    s.copy_dtoh(&v, &mut out).unwrap();
    assert_eq!(out, &x[100..2100]);
    assert!(v.slice(0..2001).is_err());
    assert_eq!(w.device().ordinal(), 0);
    // Writable views: reborrow, as_slice, into_slice_mut.
    let y = random_f32(10);
    {
        let mut m = buf.as_slice_mut();
        {
            let r = m.reborrow();
            let mut tail = r.into_slice_mut(n - 10..).unwrap();
            s.copy_htod(&y, &mut tail).unwrap();
        }
        assert_eq!(
            s.clone_dtoh(&m.as_slice().slice(n - 10..).unwrap())
                .unwrap(),
            y
        );
        assert!(m.reborrow().into_slice_mut(..n + 1).is_err());
    }
    let all = s.clone_dtoh(&buf).unwrap();
    assert_eq!(&all[..n - 10], &x[..n - 10]);
    assert_eq!(&all[n - 10..], &y[..]);
    // Pinned buffers written from the host between asynchronous copies.
    let mut pinned = PinnedHostBuffer::<f32>::zeroed(n).unwrap();
    for round in 0..3 {
        let data = random_f32(n);
        pinned.as_mut_slice().unwrap().copy_from_slice(&data);
        s.copy_htod(&pinned, &mut buf).unwrap();
        // Host writes wait for the copy that reads the buffer.
        pinned.as_mut_slice().unwrap().fill(-1.0);
        assert_eq!(s.clone_dtoh(&buf).unwrap(), data, "round {round}");
    }
    assert!(pinned.as_slice().unwrap().iter().all(|v| *v == -1.0));
    assert_eq!(pinned.len(), n);
    assert!(!MemPool::default_for(&d).unwrap().as_raw().is_null());
    // The typed kernel's function and module stay reachable.
    // SAFETY: matches `add_one`'s signature.
    let k = unsafe { TypedKernel::<(*mut i32, u32)>::new(module().function("add_one").unwrap()) };
    assert_eq!(k.function().name(), "add_one");
    assert_eq!(k.function().module().device().ordinal(), 0);
    let e = Event::new(&d).unwrap();
    assert_eq!(e.device().ordinal(), 0);
}

#[test]
#[ignore = "needs a GPU"]
fn capture_refuses_work_tracked_on_the_host() {
    let d = dev();
    let s = Stream::new(&d).unwrap();
    let x = random_f32(4096);
    let pinned = PinnedHostBuffer::from_slice(&x).unwrap();
    let mut buf = DeviceBuffer::<f32>::zeroed(&d, x.len()).unwrap();
    let mut out = PinnedHostBuffer::<f32>::zeroed(x.len()).unwrap();
    let ran = Arc::new(AtomicUsize::new(0));
    let r = Arc::clone(&ran);
    // A host function would run once per replay but can be freed only once,
    // and the pinned buffers' completion events are not replayed: both are
    // refused while capturing, before anything is recorded.
    // SAFETY: every call inside is refused, so the graph records nothing.
    let graph = unsafe {
        s.capture(|s| {
            let host = s.launch_host_fn(move || {
                r.fetch_add(1, Ordering::SeqCst);
            });
            assert!(matches!(host, Err(Error::Invalid { .. })), "{host:?}");
            let up = s.copy_htod(&pinned, &mut buf);
            assert!(matches!(up, Err(Error::Invalid { .. })), "{up:?}");
            let down = s.copy_dtoh(&buf, &mut out);
            assert!(matches!(down, Err(Error::Invalid { .. })), "{down:?}");
            Ok(())
        })
    }
    .unwrap();
    assert_eq!(graph.node_count().unwrap(), 0);
    drop(graph);
    // The same work outside capture runs.
    s.copy_htod(&pinned, &mut buf).unwrap();
    s.copy_dtoh(&buf, &mut out).unwrap();
    let r = Arc::clone(&ran);
    s.launch_host_fn(move || {
        r.fetch_add(1, Ordering::SeqCst);
    })
    .unwrap();
    s.synchronize().unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    assert_eq!(out.as_slice().unwrap(), &x[..]);
}

#[test]
#[ignore = "needs a GPU"]
fn stream_ordered_buffers_outlive_work_on_other_streams() {
    let d = dev();
    let s1 = Stream::new(&d).unwrap();
    let s2 = Stream::new(&d).unwrap();
    let n = 1 << 22;
    // Never zero, so a copy landing in zeroed memory shows.
    let x: Vec<f32> = random_f32(n).into_iter().map(|v| v + 20.0).collect();
    let src = test_kit::upload(&d, &x);
    for round in 0..3 {
        let mut tmp = s1.alloc::<f32>(n).unwrap();
        s1.synchronize().unwrap();
        // On s2: a kernel that waits for the host's flag, then a copy into
        // `tmp`. The copy cannot start before the flag is set, so it is
        // provably pending when `tmp` is dropped.
        let flag = MappedFlag::new();
        let status = DeviceBuffer::<i32>::zeroed(&d, 1).unwrap();
        launch_wait_for_flag(&s2, &flag, &status);
        s2.copy_dtod(&src, &mut tmp).unwrap();
        assert!(
            !s2.query().unwrap(),
            "round {round}: the gated copy finished before the flag was set"
        );
        let (fresh_ready, wait_fresh) = std::sync::mpsc::channel::<()>();
        let (fresh, before) = std::thread::scope(|scope| {
            // The flag is set once the fresh buffer is zeroed and read (so
            // a drop that gave `tmp` back early gets the late copy written
            // over fresh memory every time), or after 300 ms when the drop
            // itself waits for the copy, as it must.
            let flag = &flag;
            scope.spawn(move || {
                let _ = wait_fresh.recv_timeout(std::time::Duration::from_millis(300));
                flag.set();
            });
            drop(tmp);
            let fresh = s1.alloc_zeroed::<f32>(n).unwrap();
            let before = s1.clone_dtoh(&fresh).unwrap();
            let _ = fresh_ready.send(());
            (fresh, before)
        });
        s2.synchronize().unwrap();
        let after = s1.clone_dtoh(&fresh).unwrap();
        assert_eq!(
            s2.clone_dtoh(&status).unwrap(),
            [RELEASED],
            "round {round}: wait_for_flag timed out"
        );
        assert!(
            before.iter().all(|e| *e == 0.0),
            "round {round}: fresh memory was written"
        );
        assert!(
            after.iter().all(|e| *e == 0.0),
            "round {round}: the copy into the dropped buffer landed in a fresh one"
        );
        drop(flag);
    }
    // The unsafe opt-out frees in stream order without waiting.
    let mut own = s1.alloc::<f32>(n).unwrap();
    s1.copy_dtod(&src, &mut own).unwrap();
    assert_eq!(s1.clone_dtoh(&own).unwrap(), x);
    // SAFETY: only `s1`, the allocating stream, ever used `own`.
    unsafe { own.free_async() }.unwrap();
    let again = s1.alloc_zeroed::<f32>(n).unwrap();
    assert!(s1.clone_dtoh(&again).unwrap().iter().all(|e| *e == 0.0));
    // A hipMalloc buffer given to it is freed as its drop would.
    let plain = DeviceBuffer::<f32>::zeroed(&d, 16).unwrap();
    // SAFETY: no work uses `plain`.
    unsafe { plain.free_async() }.unwrap();
    s1.synchronize().unwrap();
    assert_eq!(hip::drop_error_count(), 0, "{:?}", hip::take_drop_errors());
}
