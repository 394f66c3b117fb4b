//! GPU benchmark: a loop of stream-ordered allocate, launch, free, through
//! 1. the safe API: `Stream::alloc`, `TypedKernel::launch`, dropping the
//!    buffer;
//! 2. raw hip-sys: `hipMallocAsync`, `hipModuleLaunchKernel`,
//!    `hipFreeAsync`;
//!
//! in one run, rounds interleaved (the order alternating), printed with the
//! ratio safe/raw of iterations per second. The target is >= 0.90: a drop
//! that synchronizes the device (instead of freeing in stream order) makes
//! the safe loop wait for every kernel and misses it by far.
//!
//! Each iteration computes `y = a * x + 1` into the fresh buffer from a
//! long-lived input `x`. Both paths' results are checked against a CPU
//! reference before timing.
//!
//! Usage: `alloc_loop [iterations-per-round] [rounds]` (defaults 20000, 7).
//! Exits non-zero when it cannot measure (no GPU) or a result is wrong.

use hip::{Device, DeviceBuffer, LaunchConfig, Module, Stream, TypedKernel};
use hip_benches::median;
use hip_sys as sys;
use std::ffi::c_void;
use std::time::Instant;

const KERNEL: &str = r#"
extern "C" __global__ void scale_plus_one(float* y, const float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + 1.0f;
}
"#;

/// Elements per buffer (1 MiB of f32): a typical temporary.
const LEN: usize = 1 << 18;
const TARGET_RATIO: f64 = 0.90;

fn main() {
    if let Err(e) = run() {
        eprintln!("alloc_loop: {e}");
        std::process::exit(1);
    }
}

fn check(call: &str, st: sys::hipError_t) -> Result<(), String> {
    if st.is_success() {
        Ok(())
    } else {
        Err(format!("{call} failed with {st}"))
    }
}

/// The raw path's state: function, stream, input and launch shape.
struct Raw {
    func: sys::hipFunction_t,
    stream: sys::hipStream_t,
    x: *const f32,
    a: f32,
    n: u32,
    cfg: LaunchConfig,
}

impl Raw {
    /// hipMallocAsync + hipModuleLaunchKernel; returns the new buffer.
    ///
    /// # Safety
    ///
    /// `func` is `scale_plus_one` loaded on the stream's device, `x` holds
    /// `n` floats there, and the stream is live.
    unsafe fn alloc_and_launch(&self) -> Result<*mut c_void, String> {
        let mut y: *mut c_void = std::ptr::null_mut();
        // SAFETY: a live stream; `y` receives the allocation.
        check("hipMallocAsync", unsafe {
            sys::hipMallocAsync(&mut y, LEN * 4, self.stream)
        })?;
        let (mut x, mut a, mut n) = (self.x, self.a, self.n);
        let mut params: [*mut c_void; 4] = [
            (&mut y as *mut *mut c_void).cast(),
            (&mut x as *mut *const f32).cast(),
            (&mut a as *mut f32).cast(),
            (&mut n as *mut u32).cast(),
        ];
        // SAFETY: the parameters match scale_plus_one(float*, const float*,
        // float, unsigned); y and x hold n floats; the runtime copies the
        // parameter values before returning.
        let st = unsafe {
            sys::hipModuleLaunchKernel(
                self.func,
                self.cfg.grid.0,
                self.cfg.grid.1,
                self.cfg.grid.2,
                self.cfg.block.0,
                self.cfg.block.1,
                self.cfg.block.2,
                0,
                self.stream,
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        if let Err(e) = check("hipModuleLaunchKernel", st) {
            // SAFETY: our allocation, unused (the launch failed). The launch
            // error is the one worth reporting; a failed free only leaks.
            let _ = unsafe { sys::hipFreeAsync(y, self.stream) };
            return Err(e);
        }
        Ok(y)
    }

    /// One iteration: allocate, launch, free in stream order.
    fn iteration(&self) -> Result<(), String> {
        // SAFETY: `Raw` is built from a loaded function, a live stream and
        // an input of `n` floats, all alive while `self` is used.
        let y = unsafe { self.alloc_and_launch() }?;
        // SAFETY: freed in stream order after the kernel that writes it.
        check("hipFreeAsync", unsafe { sys::hipFreeAsync(y, self.stream) })
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let iters: usize = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(20_000);
    let rounds: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(7);
    if iters == 0 || rounds == 0 {
        return Err("iterations and rounds must be at least 1".into());
    }
    let dev = Device::get(0).map_err(|e| format!("cannot measure, no GPU: {e}"))?;
    println!("device 0: {} ({})", dev.name()?, dev.arch()?);

    let module = Module::compile(&dev, KERNEL)?;
    let func = module.function("scale_plus_one")?;
    // SAFETY: the parameter list matches the kernel's signature.
    let kernel = unsafe { TypedKernel::<(*mut f32, *const f32, f32, u32)>::new(func.clone()) };
    let stream = Stream::new(&dev)?;
    let cfg = LaunchConfig::for_num_elems(LEN as u32);

    // Non-zero input varying per element; a differs per run.
    let x_host: Vec<f32> = (0..LEN)
        .map(|i| ((i * 7919) % 1000) as f32 * 0.01 - 4.995)
        .collect();
    let a = 1.0 + (std::process::id() % 100) as f32 * 0.01;
    let x = DeviceBuffer::from_slice(&dev, &x_host)?;
    let n = LEN as u32;
    let reference: Vec<f32> = x_host.iter().map(|&v| a * v + 1.0).collect();
    let compare = |what: &str, got: &[f32]| -> Result<(), String> {
        // GPU and CPU may round a * x + 1 differently (fused or not).
        match got
            .iter()
            .zip(&reference)
            .position(|(g, r)| (g - r).abs() > 1e-6 * (1.0 + r.abs()))
        {
            Some(i) => Err(format!(
                "{what}: y[{i}] = {}, expected {} (tolerance 1e-6 relative)",
                got[i], reference[i]
            )),
            None => Ok(()),
        }
    };

    let safe_iteration = || -> hip::Result<()> {
        let mut y = stream.alloc::<f32>(LEN)?;
        // SAFETY: scale_plus_one touches y[..n] and x[..n]; both hold n.
        unsafe { kernel.launch(&stream, cfg, (&mut y, &x, a, n)) }?;
        drop(y);
        Ok(())
    };
    let raw = Raw {
        func: func.as_raw(),
        stream: stream.as_raw(),
        x: x.as_device_ptr(),
        a,
        n,
        cfg,
    };

    // Results of both paths, before timing.
    {
        let mut y = stream.alloc::<f32>(LEN)?;
        // SAFETY: as in safe_iteration.
        unsafe { kernel.launch(&stream, cfg, (&mut y, &x, a, n)) }?;
        compare("safe path", &stream.copy_to_vec(&y)?)?;
    }
    {
        // SAFETY: raw holds a loaded function, a live stream and x (n floats).
        let y = unsafe { raw.alloc_and_launch() }?;
        let mut got = vec![0f32; LEN];
        stream.synchronize()?;
        // SAFETY: y holds LEN floats, complete after the synchronize; `got`
        // has room for them.
        check("hipMemcpy", unsafe {
            sys::hipMemcpy(
                got.as_mut_ptr().cast(),
                y,
                LEN * 4,
                sys::hipMemcpyKind::hipMemcpyDeviceToHost,
            )
        })?;
        // SAFETY: our allocation, no longer used.
        check("hipFreeAsync", unsafe { sys::hipFreeAsync(y, raw.stream) })?;
        compare("raw path", &got)?;
    }

    let time = |f: &dyn Fn() -> Result<(), String>| -> Result<f64, String> {
        let t = Instant::now();
        for _ in 0..iters {
            f()?;
        }
        stream.synchronize().map_err(|e| e.to_string())?;
        Ok(iters as f64 / t.elapsed().as_secs_f64())
    };
    let safe = || safe_iteration().map_err(|e| e.to_string());
    let raw_it = || raw.iteration();
    // Warm-up: pool growth, first launches.
    time(&safe)?;
    time(&raw_it)?;
    let (mut r_safe, mut r_raw) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        if round % 2 == 0 {
            r_safe.push(time(&safe)?);
            r_raw.push(time(&raw_it)?);
        } else {
            r_raw.push(time(&raw_it)?);
            r_safe.push(time(&safe)?);
        }
    }
    let ratios: Vec<f64> = r_safe.iter().zip(&r_raw).map(|(s, r)| s / r).collect();
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| {
        (lo.min(r), hi.max(r))
    });
    println!(
        "{iters} iterations per round, {rounds} rounds, buffers of {} KiB",
        LEN * 4 / 1024
    );
    let safe_median = median(&r_safe).ok_or("no rounds measured")?;
    let raw_median = median(&r_raw).ok_or("no rounds measured")?;
    println!("| path | iterations/s (median) |");
    println!("| --- | ---: |");
    println!("| safe: Stream::alloc + TypedKernel::launch + drop | {safe_median:.0} |");
    println!("| raw: hipMallocAsync + hipModuleLaunchKernel + hipFreeAsync | {raw_median:.0} |");
    let ratio = safe_median / raw_median;
    println!(
        "ratio safe/raw: {ratio:.3} (per-round {lo:.3}..{hi:.3}); target >= {TARGET_RATIO}: {}",
        if ratio >= TARGET_RATIO {
            "met"
        } else {
            "NOT met"
        }
    );
    Ok(())
}
