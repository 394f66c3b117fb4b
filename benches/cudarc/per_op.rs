//! The per-op host path through cudarc's API: allocate, launch, free, as a
//! framework such as candle does for every op. Built by
//! `scripts/cudarc-examples.sh bench-build` against the real cudarc 0.19.10
//! (`cudarc-per-op-real`) and against cuda-compat (`cudarc-per-op-compat`);
//! `cudarc-examples.sh per-op-run` compares the real one with `hip`'s own
//! path (`benches/src/bin/per_op.rs`, the same work) and with cuda-compat.
//!
//! ```text
//! cudarc-per-op-{real,compat} default|per-thread
//! ```
//!
//! Each op allocates a buffer of 1,024 floats, launches `y = a * x + 1`
//! from the previous op's buffer into it, and drops the previous buffer.
//! A chain of `CHAIN` ops is checked against the host's result first. Then
//! the host's time per op: bursts of `BURST` ops, each timed from an idle
//! stream until its last op is enqueued (too few to fill the GPU's queue,
//! so the host never waits for the GPU), the median over `ROUNDS` bursts
//! printed as `step_us`; and the median time of each call (allocate,
//! launch, free). The stream is the context's default (null) stream or its
//! per-thread stream: cudarc's single-stream mode, where it records no
//! events.

use cudarc::driver::{CudaContext, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::time::Instant;

const KERNEL: &str = r#"
extern "C" __global__ void scale_plus_one(float* y, const float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + 1.0f;
}
"#;
const LEN: usize = 1024;
const CHAIN: usize = 2000;
/// Rounds of `BURST` ops timed (the median is printed).
const ROUNDS: usize = 200;
/// Ops per timed burst: well under the GPU's queue of pending work.
const BURST: usize = 100;
/// The scale: the chain's values stay near 2/3 (the fixed point of
/// y = a * x + 1), exact enough to check.
const A: f32 = -0.5;
const NAME: &str = env!("CARGO_BIN_NAME");

fn main() {
    if let Err(e) = run() {
        eprintln!("{}: {e}", env!("CARGO_BIN_NAME"));
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or_default();
    let ctx = CudaContext::new(0)?;
    let stream = match which.as_str() {
        "default" => ctx.default_stream(),
        "per-thread" => ctx.per_thread_stream(),
        other => return Err(format!("usage: default|per-thread (got {other:?})").into()),
    };
    let module = ctx.load_module(compile_ptx(KERNEL)?)?;
    let f = module.load_function("scale_plus_one")?;
    let cfg = LaunchConfig::for_num_elems(LEN as u32);
    let n = LEN as u32;
    let x_host: Vec<f32> = (0..LEN).map(|i| (i % 17) as f32 * 0.25).collect();
    let op = |x: &CudaSlice<f32>| -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
        // SAFETY: written whole by the kernel before any read.
        let mut y = unsafe { stream.alloc::<f32>(LEN) }?;
        let mut b = stream.launch_builder(&f);
        b.arg(&mut y).arg(x).arg(&A).arg(&n);
        // SAFETY: scale_plus_one(float*, const float*, float, unsigned)
        // matches; y and x hold n floats.
        unsafe { b.launch(cfg) }?;
        Ok(y)
    };
    let chain = |ops: usize| -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
        let mut x = stream.clone_htod(&x_host)?;
        for _ in 0..ops {
            x = op(&x)?;
        }
        Ok(x)
    };
    // The result: the chain applied on the host.
    let got = stream.clone_dtoh(&chain(CHAIN)?)?;
    for (i, (g, x0)) in got.iter().zip(&x_host).enumerate() {
        let want = (0..CHAIN).fold(*x0, |v, _| A * v + 1.0);
        if (g - want).abs() > 1e-4 {
            return Err(format!("y[{i}] = {g}, expected {want}").into());
        }
    }
    // The host's time per op: a burst of `BURST` ops timed from an idle
    // stream until the last is enqueued (few enough that the GPU's queue
    // never fills, so the host never waits for the GPU), then the stream
    // synchronized outside the timing.
    let mut times = Vec::with_capacity(ROUNDS);
    let mut x = stream.clone_htod(&x_host)?;
    for _ in 0..ROUNDS {
        stream.synchronize()?;
        let t = Instant::now();
        for _ in 0..BURST {
            x = op(&x)?;
        }
        times.push(t.elapsed().as_secs_f64() * 1e6 / BURST as f64);
    }
    stream.synchronize()?;
    drop(x);
    times.sort_by(f64::total_cmp);
    // Where one op's host time goes: each call of the chain timed alone.
    let (mut t_alloc, mut t_launch, mut t_free) = (Vec::new(), Vec::new(), Vec::new());
    let mut x = stream.clone_htod(&x_host)?;
    for i in 0..CHAIN {
        if i % BURST == 0 {
            stream.synchronize()?;
        }
        let t0 = Instant::now();
        // SAFETY: written whole by the kernel before any read.
        let mut y = unsafe { stream.alloc::<f32>(LEN) }?;
        let t1 = Instant::now();
        let mut b = stream.launch_builder(&f);
        b.arg(&mut y).arg(&x).arg(&A).arg(&n);
        // SAFETY: as in `op`.
        unsafe { b.launch(cfg) }?;
        let t2 = Instant::now();
        drop(std::mem::replace(&mut x, y));
        let t3 = Instant::now();
        t_alloc.push((t1 - t0).as_nanos() as f64);
        t_launch.push((t2 - t1).as_nanos() as f64);
        t_free.push((t3 - t2).as_nanos() as f64);
    }
    stream.synchronize()?;
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "{}: per call (median ns): alloc {:.0}, launch {:.0}, free {:.0}",
        NAME,
        med(&mut t_alloc),
        med(&mut t_launch),
        med(&mut t_free)
    );
    println!(
        "{}: {which} stream, {CHAIN} ops a chain checked; host time per op (bursts of {BURST}, median of {ROUNDS}): step_us {:.3}",
        env!("CARGO_BIN_NAME"),
        times[ROUNDS / 2]
    );
    Ok(())
}
