//! The per-op benchmark's work and timing, shared by the `hip` build
//! (`benches/src/bin/per_op.rs`) and the cudarc builds
//! (`benches/cudarc/per_op.rs`, real cudarc and cuda-compat), so that the
//! two sides of the ratio run the same loop; each includes this file with
//! `#[path]` and supplies the calls ([`PerOpApi`]).
//!
//! Each op allocates a buffer of [`LEN`] floats, launches `y = a * x + 1`
//! ([`KERNEL`]) from the previous op's buffer into it, and drops the
//! previous buffer. A chain of [`CHAIN`] ops is checked against the host's
//! result first. Then the host's time per op: bursts of [`BURST`] ops,
//! each timed from an idle stream until its last op is enqueued (too few
//! to fill the GPU's queue, so the host never waits for the GPU), the
//! median over [`ROUNDS`] bursts printed as `step_us`; and the median time
//! of each call (allocate, launch, free).

use std::error::Error;
use std::time::Instant;

/// The kernel, `y = a * x + 1` over `n` floats.
pub(crate) const KERNEL: &str = r#"
extern "C" __global__ void scale_plus_one(float* y, const float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + 1.0f;
}
"#;
/// Floats per buffer.
pub(crate) const LEN: usize = 1024;
/// Ops in the checked chain (and in the per-call timing).
pub(crate) const CHAIN: usize = 2000;
/// Rounds of `BURST` ops timed (the median is printed).
pub(crate) const ROUNDS: usize = 200;
/// Ops per timed burst: well under the GPU's queue of pending work.
pub(crate) const BURST: usize = 100;
/// The scale: the chain's values stay near 2/3 (the fixed point of
/// y = a * x + 1), exact enough to check.
pub(crate) const A: f32 = -0.5;

/// What one build calls for each step of an op, on its stream.
pub(crate) trait PerOpApi {
    /// A device buffer of `LEN` floats.
    type Buffer;
    /// A new buffer holding `x`.
    fn upload(&self, x: &[f32]) -> Result<Self::Buffer, Box<dyn Error>>;
    /// The buffer's values, after the stream's work.
    fn download(&self, b: &Self::Buffer) -> Result<Vec<f32>, Box<dyn Error>>;
    /// Waits for the stream.
    fn synchronize(&self) -> Result<(), Box<dyn Error>>;
    /// An uninitialised buffer (stream-ordered, tracked).
    fn alloc(&self) -> Result<Self::Buffer, Box<dyn Error>>;
    /// Enqueues `y = A * x + 1`.
    fn launch(&self, y: &mut Self::Buffer, x: &Self::Buffer) -> Result<(), Box<dyn Error>>;
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Checks the chain, times it, and prints `{name}: per call (median ns):
/// ...` and `{name}: {which} stream, ... step_us N` (the lines the
/// runners read).
pub(crate) fn run<P: PerOpApi>(api: &P, name: &str, which: &str) -> Result<(), Box<dyn Error>> {
    let x_host: Vec<f32> = (0..LEN).map(|i| (i % 17) as f32 * 0.25).collect();
    let op = |x: &P::Buffer| -> Result<P::Buffer, Box<dyn Error>> {
        let mut y = api.alloc()?;
        api.launch(&mut y, x)?;
        Ok(y)
    };
    // The result: the chain applied on the host.
    let mut x = api.upload(&x_host)?;
    for _ in 0..CHAIN {
        x = op(&x)?;
    }
    let got = api.download(&x)?;
    for (i, (g, x0)) in got.iter().zip(&x_host).enumerate() {
        let want = (0..CHAIN).fold(*x0, |v, _| A * v + 1.0);
        if (g - want).abs() > 1e-4 {
            return Err(format!("y[{i}] = {g}, expected {want}").into());
        }
    }
    // The host's time per op: bursts from an idle stream, the stream
    // synchronized outside the timing.
    let mut times = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        api.synchronize()?;
        let t = Instant::now();
        for _ in 0..BURST {
            x = op(&x)?;
        }
        times.push(t.elapsed().as_secs_f64() * 1e6 / BURST as f64);
    }
    api.synchronize()?;
    // Where one op's host time goes: each call of the chain timed alone.
    let (mut t_alloc, mut t_launch, mut t_free) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..CHAIN {
        if i % BURST == 0 {
            api.synchronize()?;
        }
        let t0 = Instant::now();
        let mut y = api.alloc()?;
        let t1 = Instant::now();
        api.launch(&mut y, &x)?;
        let t2 = Instant::now();
        drop(std::mem::replace(&mut x, y));
        let t3 = Instant::now();
        t_alloc.push((t1 - t0).as_nanos() as f64);
        t_launch.push((t2 - t1).as_nanos() as f64);
        t_free.push((t3 - t2).as_nanos() as f64);
    }
    api.synchronize()?;
    println!(
        "{name}: per call (median ns): alloc {:.0}, launch {:.0}, free {:.0}",
        median(&mut t_alloc),
        median(&mut t_launch),
        median(&mut t_free)
    );
    println!(
        "{name}: {which} stream, {CHAIN} ops a chain checked; host time per op (bursts of {BURST}, median of {ROUNDS}): step_us {:.3}",
        median(&mut times)
    );
    Ok(())
}
