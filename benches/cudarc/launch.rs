//! Launch rate through cudarc's API, built twice by
//! `scripts/cudarc-examples.sh bench-build`: once against the real cudarc
//! 0.19.10 (binary `cudarc-launch-real`) and once against `cuda-compat`
//! renamed to `cudarc` (binary `cudarc-launch-compat`).
//! `scripts/cudarc-examples.sh bench-run` runs the two alternately and
//! reports the ratio.
//!
//! The kernel takes two buffers (one written, one read) on a stream made
//! with `new_stream`, so the context is in multi-stream mode and every
//! launch goes through the read/write event tracking that the facade must
//! match.
//!
//! Measures, after a warm-up:
//! - CPU cost per launch: bursts of `BURST` launches timed with `Instant`,
//!   the stream synchronized outside the timed region; median over bursts.
//! - Throughput: `THROUGHPUT_LAUNCHES` launches and one synchronize, timed
//!   together.
//!
//! Then checks the result (every launch adds `A * x` to `y`, exactly
//! representable), and prints one `RESULT` line the runner parses. Exits
//! non-zero when there is no GPU or the result is wrong.

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::time::Instant;

const KERNEL_SRC: &str = r#"
extern "C" __global__ void add_scaled(float* y, const float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = y[i] + a * x[i];
    }
}
"#;

/// Elements per buffer: small, so the launch and not the kernel is measured.
const LEN: usize = 1024;
/// Launches per timed burst of the CPU-cost measurement.
const BURST: usize = 64;
/// Bursts measured (the median is reported).
const BURSTS: usize = 300;
/// Launches in the throughput measurement.
const THROUGHPUT_LAUNCHES: usize = 20_000;
/// Launches before any measurement (module load, first-launch costs).
const WARMUP_LAUNCHES: usize = 1_000;
/// The kernel's scale factor; with `x` in quarter steps every partial sum
/// below 2^21 is exact in f32, so the final check needs no tolerance.
const A: f32 = 0.5;

fn main() {
    if let Err(e) = run() {
        eprintln!("{}: {e}", env!("CARGO_BIN_NAME"));
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    // A second stream puts the context in multi-stream mode: launches then
    // record read/write events on their buffers.
    let stream = ctx.new_stream()?;
    let tracking = ctx.is_managing_stream_synchronization();
    if !tracking {
        return Err(
            "multi-stream tracking is off after new_stream(); the comparison needs it on".into(),
        );
    }
    let module = ctx.load_module(compile_ptx(KERNEL_SRC)?)?;
    let kernel = module.load_function("add_scaled")?;

    // Non-zero inputs that differ per element: 0.25, 0.5, ..., 1.75.
    let x_host: Vec<f32> = (0..LEN).map(|i| ((i * 37) % 7 + 1) as f32 * 0.25).collect();
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.alloc_zeros::<f32>(LEN)?;
    let n = LEN as i32;
    let cfg = LaunchConfig::for_num_elems(LEN as u32);

    let mut launches = 0usize;
    let launch_once =
        |y: &mut cudarc::driver::CudaSlice<f32>| -> Result<(), Box<dyn std::error::Error>> {
            let mut builder = stream.launch_builder(&kernel);
            builder.arg(y).arg(&x).arg(&A).arg(&n);
            // SAFETY: add_scaled(float*, const float*, float, int) matches the
            // four arguments; it touches y[..n] and x[..n], both of length n.
            unsafe { builder.launch(cfg) }?;
            Ok(())
        };

    for _ in 0..WARMUP_LAUNCHES {
        launch_once(&mut y)?;
    }
    launches += WARMUP_LAUNCHES;
    stream.synchronize()?;

    let mut per_launch_ns = Vec::with_capacity(BURSTS);
    for _ in 0..BURSTS {
        let start = Instant::now();
        for _ in 0..BURST {
            launch_once(&mut y)?;
        }
        per_launch_ns.push(start.elapsed().as_nanos() as f64 / BURST as f64);
        launches += BURST;
        stream.synchronize()?;
    }
    per_launch_ns.sort_by(f64::total_cmp);
    let cpu_ns = per_launch_ns[per_launch_ns.len() / 2];

    let start = Instant::now();
    for _ in 0..THROUGHPUT_LAUNCHES {
        launch_once(&mut y)?;
    }
    stream.synchronize()?;
    let seconds = start.elapsed().as_secs_f64();
    launches += THROUGHPUT_LAUNCHES;
    let launches_per_s = THROUGHPUT_LAUNCHES as f64 / seconds;

    let y_host = stream.clone_dtoh(&y)?;
    let total = launches as f32;
    let wrong = x_host
        .iter()
        .zip(&y_host)
        .enumerate()
        .find(|(_, (x, y))| **y != total * A * **x);
    if let Some((i, (x, y))) = wrong {
        return Err(format!(
            "wrong result after {launches} launches: y[{i}] = {y}, expected {} (exact)",
            total * A * x
        )
        .into());
    }

    println!(
        "{}: device {}, {launches} launches checked, multi-stream tracking on",
        env!("CARGO_BIN_NAME"),
        ctx.name()?
    );
    println!(
        "RESULT impl={} cpu_ns_per_launch={cpu_ns:.1} launches_per_s={launches_per_s:.0}",
        env!("CARGO_BIN_NAME")
    );
    Ok(())
}
