//! GPU benchmark: a loop of stream-ordered allocate, launch, free, through
//! 1. the safe buffer API: `Stream::alloc`, `TypedKernel::launch`,
//!    dropping the `DeviceBuffer` (tracked: a free in stream order after
//!    its tracked uses, no device synchronize);
//! 2. raw hip-sys: `hipMallocAsync`, `hipModuleLaunchKernel`,
//!    `hipFreeAsync` (the baseline);
//! 3. the safe tracked API: `StreamAllocation::new(.., true)`,
//!    `Stream::launch` with `LaunchArgs::arg_write`/`arg_read`, dropping the
//!    allocation (a free in stream order, after its tracked uses);
//! 4. cuda-compat's cudarc facade in multi-stream mode: `CudaStream::alloc`,
//!    `launch_builder(..).arg(..).launch(..)`, dropping the `CudaSlice`;
//!
//! in one run, rounds interleaved (the order rotating each round), printed
//! with each path's ratio to raw in iterations per second. The target, at
//! least 0.90 of raw by the median of the per-round ratios with its 95%
//! interval (`bench_verdict`), is for the tracked paths (3 and 4): their frees are
//! ordered by per-buffer tracking instead of a device synchronize, and work
//! that stays on one stream makes no event call.
//!
//! Each iteration computes `y = a * x + 1` into the fresh buffer from a
//! long-lived input `x`. Every path's result is checked against a CPU
//! reference before timing.
//!
//! Usage: `alloc_loop [iterations-per-round] [rounds] [elements]` (defaults
//! 20000, 9, 262144: buffers of 1 MiB; 9 rounds give a 95% interval of
//! the median between the 2nd and 8th of the per-round ratios). Small buffers make the kernels
//! short, so that the host's cost per iteration decides the rate rather
//! than the GPU's. Exits non-zero when it cannot measure (no GPU) or a result is wrong.

use cuda_compat::driver::{CudaContext, PushKernelArg};
use hip::{
    Device, DeviceBuffer, LaunchArgs, LaunchConfig, Module, Stream, StreamAllocation, TypedKernel,
};
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

/// Elements per buffer by default (1 MiB of f32): a typical temporary.
const DEFAULT_LEN: usize = 1 << 18;
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
    bytes: usize,
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
            sys::hipMallocAsync(&mut y, self.bytes, self.stream)
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
    let rounds: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(9);
    let len: usize = args
        .next()
        .map(|a| a.parse())
        .transpose()?
        .unwrap_or(DEFAULT_LEN);
    if iters == 0 || rounds == 0 || len == 0 || u32::try_from(len).is_err() {
        return Err(
            "iterations, rounds and elements must be at least 1 (elements below 2^32)".into(),
        );
    }
    let dev = Device::get(0).map_err(|e| format!("cannot measure, no GPU: {e}"))?;
    println!("device 0: {} ({})", dev.name()?, dev.arch()?);

    let module = Module::compile(&dev, KERNEL)?;
    let func = module.function("scale_plus_one")?;
    // SAFETY: the parameter list matches the kernel's signature.
    let kernel = unsafe { TypedKernel::<(*mut f32, *const f32, f32, u32)>::new(func.clone()) };
    let stream = Stream::new(&dev)?;
    let cfg = LaunchConfig::for_num_elems(len as u32);

    // Non-zero input varying per element; a differs per run.
    let x_host: Vec<f32> = (0..len)
        .map(|i| ((i * 7919) % 1000) as f32 * 0.01 - 4.995)
        .collect();
    let a = 1.0 + (std::process::id() % 100) as f32 * 0.01;
    let mut x = DeviceBuffer::uninit(&dev, len)?;
    stream.copy_htod(&x_host, &mut x)?;
    let n = len as u32;
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
        let mut y = stream.alloc::<f32>(len)?;
        // SAFETY: scale_plus_one touches y[..n] and x[..n]; both hold n.
        unsafe { kernel.launch(&stream, cfg, (&mut y, &x, a, n)) }?;
        drop(y);
        Ok(())
    };
    let raw = Raw {
        func: func.as_raw(),
        stream: stream.as_raw(),
        x: x.as_device_ptr(),
        bytes: len * 4,
        a,
        n,
        cfg,
    };

    // The tracked path: its own long-lived input, tracked too.
    let mut x_tracked = StreamAllocation::new(&stream, len * 4, true)?;
    stream.copy_htod(&x_host, &mut x_tracked.as_slice_mut::<f32>()?)?;
    let tracked_launch = |y: &mut StreamAllocation| -> hip::Result<()> {
        let mut args = LaunchArgs::new();
        args.arg_write(y).arg_read(&x_tracked).arg(&a).arg(&n);
        // SAFETY: the arguments match scale_plus_one(float*, const float*,
        // float, unsigned); it touches y[..n] and x[..n], both of n floats.
        unsafe { stream.launch(&func, cfg, &mut args) }
    };
    let tracked_iteration = || -> hip::Result<()> {
        let mut y = StreamAllocation::new(&stream, len * 4, true)?;
        tracked_launch(&mut y)?;
        drop(y);
        Ok(())
    };

    // The cudarc facade: a second stream puts the context in multi-stream
    // mode, where every buffer is tracked.
    let ctx = CudaContext::new(0)?;
    let cu_stream = ctx.new_stream()?;
    if !ctx.is_managing_stream_synchronization() {
        return Err("cuda-compat: tracking is off after new_stream(); path 4 needs it".into());
    }
    let cu_module = ctx.load_module(cuda_compat::nvrtc::compile_ptx(KERNEL)?)?;
    let cu_func = cu_module.load_function("scale_plus_one")?;
    let cu_x = cu_stream.clone_htod(&x_host)?;
    let cu_cfg = cuda_compat::driver::LaunchConfig::for_num_elems(n);
    let facade_launch = |y: &mut cuda_compat::driver::CudaSlice<f32>| {
        let mut builder = cu_stream.launch_builder(&cu_func);
        builder.arg(y).arg(&cu_x).arg(&a).arg(&n);
        // SAFETY: as for the tracked path.
        unsafe { builder.launch(cu_cfg) }.map(drop)
    };
    let facade_iteration = || -> Result<(), cuda_compat::driver::DriverError> {
        // SAFETY: the kernel writes all of y before anything reads it.
        let mut y = unsafe { cu_stream.alloc::<f32>(len) }?;
        facade_launch(&mut y)?;
        drop(y);
        Ok(())
    };

    // Results of every path, before timing.
    {
        let mut y = stream.alloc::<f32>(len)?;
        // SAFETY: as in safe_iteration.
        unsafe { kernel.launch(&stream, cfg, (&mut y, &x, a, n)) }?;
        compare("safe path", &stream.clone_dtoh(&y)?)?;
    }
    {
        // SAFETY: raw holds a loaded function, a live stream and x (n floats).
        let y = unsafe { raw.alloc_and_launch() }?;
        let mut got = vec![0f32; len];
        stream.synchronize()?;
        // SAFETY: y holds len floats, complete after the synchronize; `got`
        // has room for them.
        check("hipMemcpy", unsafe {
            sys::hipMemcpy(
                got.as_mut_ptr().cast(),
                y,
                len * 4,
                sys::hipMemcpyKind::hipMemcpyDeviceToHost,
            )
        })?;
        // SAFETY: our allocation, no longer used.
        check("hipFreeAsync", unsafe { sys::hipFreeAsync(y, raw.stream) })?;
        compare("raw path", &got)?;
    }
    {
        let mut y = StreamAllocation::new(&stream, len * 4, true)?;
        tracked_launch(&mut y)?;
        let mut got = vec![0f32; len];
        stream.copy_dtoh(&y.as_slice::<f32>()?, &mut got)?;
        compare("tracked path", &got)?;
    }
    {
        // SAFETY: written in full by the kernel before the read below.
        let mut y = unsafe { cu_stream.alloc::<f32>(len) }?;
        facade_launch(&mut y)?;
        compare("cudarc facade path", &cu_stream.clone_dtoh(&y)?)?;
    }

    struct Path<'a> {
        name: &'static str,
        iteration: &'a dyn Fn() -> Result<(), String>,
        sync: &'a dyn Fn() -> Result<(), String>,
        rates: Vec<f64>,
        /// Host time per iteration until the loop ends (before the final
        /// synchronize), in ns.
        enqueue_ns: Vec<f64>,
    }
    // Iterations per second, until all work is done, and host ns per
    // iteration until the loop ends.
    let time = |p: &Path<'_>| -> Result<(f64, f64), String> {
        let t = Instant::now();
        for _ in 0..iters {
            (p.iteration)()?;
        }
        let enqueued = t.elapsed();
        (p.sync)()?;
        Ok((
            iters as f64 / t.elapsed().as_secs_f64(),
            enqueued.as_nanos() as f64 / iters as f64,
        ))
    };
    let sync_hip = || stream.synchronize().map_err(|e| e.to_string());
    let sync_facade = || cu_stream.synchronize().map_err(|e| e.to_string());
    let safe = || safe_iteration().map_err(|e| e.to_string());
    let raw_it = || raw.iteration();
    let tracked = || tracked_iteration().map_err(|e| e.to_string());
    let facade = || facade_iteration().map_err(|e| e.to_string());
    let mut paths = [
        Path {
            name: "safe: Stream::alloc + TypedKernel::launch + drop (tracked)",
            iteration: &safe,
            sync: &sync_hip,
            rates: Vec::new(),
            enqueue_ns: Vec::new(),
        },
        Path {
            name: "raw: hipMallocAsync + hipModuleLaunchKernel + hipFreeAsync",
            iteration: &raw_it,
            sync: &sync_hip,
            rates: Vec::new(),
            enqueue_ns: Vec::new(),
        },
        Path {
            name: "tracked: StreamAllocation::new + Stream::launch(LaunchArgs) + drop",
            iteration: &tracked,
            sync: &sync_hip,
            rates: Vec::new(),
            enqueue_ns: Vec::new(),
        },
        Path {
            name: "cudarc facade: CudaStream::alloc + launch_builder + drop",
            iteration: &facade,
            sync: &sync_facade,
            rates: Vec::new(),
            enqueue_ns: Vec::new(),
        },
    ];
    const RAW: usize = 1;
    const TARGETED: [usize; 2] = [2, 3];
    // Warm-up: pool growth, first launches.
    for p in &paths {
        time(p)?;
    }
    for round in 0..rounds {
        for k in 0..paths.len() {
            let i = (round + k) % paths.len();
            let (rate, enqueue_ns) = time(&paths[i])?;
            paths[i].rates.push(rate);
            paths[i].enqueue_ns.push(enqueue_ns);
        }
    }
    println!(
        "{iters} iterations per round, {rounds} rounds (order rotating), buffers of {} bytes",
        len * 4
    );
    let raw_median = median(&paths[RAW].rates).ok_or("no rounds measured")?;
    println!(
        "| path | iterations/s (median) | ratio to raw | per-round ratios | host ns/iteration until enqueued (median) |"
    );
    println!("| --- | ---: | ---: | --- | ---: |");
    let mut ratios = Vec::new();
    for p in &paths {
        let m = median(&p.rates).ok_or("no rounds measured")?;
        let per_round: Vec<f64> = p
            .rates
            .iter()
            .zip(&paths[RAW].rates)
            .map(|(s, r)| s / r)
            .collect();
        let (lo, hi) = per_round
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| {
                (lo.min(r), hi.max(r))
            });
        let enqueue = median(&p.enqueue_ns).ok_or("no rounds measured")?;
        println!(
            "| {} | {m:.0} | {:.3} | {lo:.3}..{hi:.3} | {enqueue:.0} |",
            p.name,
            m / raw_median
        );
        ratios.push(m / raw_median);
    }
    // The verdict: the median of the per-round ratios to raw (each
    // round timed both paths, in rotating order), with its 95% interval
    // (bench_verdict); the ratio of medians above is information.
    let mut all_met = true;
    for i in TARGETED {
        let per_round: Vec<f64> = paths[i]
            .rates
            .iter()
            .zip(&paths[RAW].rates)
            .map(|(s, r)| s / r)
            .collect();
        let v = hip_benches::Verdict::of_ratios(&per_round, TARGET_RATIO)?;
        all_met &= v.outcome.passed();
        let label = paths[i].name.split(':').next().unwrap_or(paths[i].name);
        let extra = format!("ratio of medians {:.3}", ratios[i]);
        for l in v.lines(label, "rate / raw's", &extra) {
            println!("{l}");
        }
    }
    if !all_met {
        return Err("a target is not met".into());
    }
    Ok(())
}
