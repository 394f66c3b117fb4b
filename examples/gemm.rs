//! GEMM on the GPU through hipBLAS: SGEMM, HGEMM and BF16 GemmEx (f32
//! accumulation) on random matrices, each checked against a float64 CPU
//! reference and timed.
//!
//! ```text
//! cargo run --release -p hip-examples --example gemm            # 4096 x 4096 x 4096
//! cargo run --release -p hip-examples --example gemm -- 2048 1024 512
//! HIP_PLATFORM=nvidia cargo run --release -p hip-examples --example gemm
//! ```
//!
//! The reference is computed in f64 from the same (rounded) inputs for 512
//! output entries picked at random; the error printed is
//! `max |gpu - ref| / max |ref|` over them. Bounds: f32 1e-5, f16/bf16 1e-2.
//! TFLOP/s is `2 m n k` over the median of 10 runs after 3 warm-up runs,
//! timed with HIP events. Exits with status 1 when there is no GPU (saying
//! what was looked for) or a check fails.

#[path = "common/mod.rs"]
mod common;

use half::{bf16, f16};
use hip::{Device, DeviceBuffer, Event, Stream};
use hipblas::{Blas, Compute, GemmShape, Op};
use rand::{Rng, SeedableRng};
use std::process::ExitCode;
use std::sync::Arc;

const SAMPLES: usize = 512;

fn main() -> ExitCode {
    let dims: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (m, n, k) = match dims.as_slice() {
        [] => (4096, 4096, 4096),
        [s] => (*s, *s, *s),
        [m, n, k] => (*m, *n, *k),
        _ => {
            eprintln!("usage: gemm [N | M N K]");
            return ExitCode::from(2);
        }
    };
    let dev = match find_gpu() {
        Ok(d) => d,
        Err(why) => {
            eprintln!("gemm: no GPU to run on.\n{why}");
            return ExitCode::FAILURE;
        }
    };
    match run(&dev, m, n, k) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("gemm: a result exceeded its error bound");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("gemm: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Device 0, or a description of what was looked for.
fn find_gpu() -> Result<Arc<Device>, String> {
    common::devices(1).map(|mut all| all.swap_remove(0))
}

fn run(
    dev: &Arc<Device>,
    m: usize,
    n: usize,
    k: usize,
) -> Result<bool, Box<dyn std::error::Error>> {
    let rt = hip_sys::loader::runtime().map_err(|e| e.to_string())?;
    let lib = hipblas_sys::loader::hipblas().map_err(|e| e.to_string())?;
    println!(
        "device 0: {} ({} platform, runtime {}); BLAS: {} {}",
        dev.name()?,
        rt.platform,
        rt.version,
        lib.libraries[0].path.display(),
        lib.version.map(|v| v.to_string()).unwrap_or_default()
    );
    println!("C = A B with A {m}x{k}, B {k}x{n}, column-major, random entries in [-1, 1)\n");
    let stream = Stream::new(dev)?;
    let blas = Blas::new(&stream)?;
    let seed: u64 = rand::random();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let a64: Vec<f64> = (0..m * k).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let b64: Vec<f64> = (0..k * n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let shape = GemmShape::new(Op::N, Op::N, m, n, k);
    let picks: Vec<(usize, usize)> = (0..SAMPLES)
        .map(|_| (rng.gen_range(0..m), rng.gen_range(0..n)))
        .collect();
    let mut ok = true;

    // SGEMM
    {
        let a: Vec<f32> = a64.iter().map(|&v| v as f32).collect();
        let b: Vec<f32> = b64.iter().map(|&v| v as f32).collect();
        let (da, db) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
        let mut dc = DeviceBuffer::<f32>::zeroed(dev, m * n)?;
        let ms = time(&stream, || {
            blas.gemm(&shape, 1.0f32, &da, &db, 0.0, &mut dc)
        })?;
        let c = stream.clone_dtoh(&dc)?;
        let err = sampled_error(
            &picks,
            m,
            k,
            |i, l| a[i + l * m] as f64,
            |l, j| b[l + j * k] as f64,
            |i, j| c[i + j * m] as f64,
        );
        ok &= report("SGEMM  (f32)", err, 1e-5, &shape, ms);
    }
    // HGEMM
    {
        let a: Vec<f16> = a64.iter().map(|&v| f16::from_f64(v)).collect();
        let b: Vec<f16> = b64.iter().map(|&v| f16::from_f64(v)).collect();
        let (da, db) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
        let mut dc = DeviceBuffer::<f16>::zeroed(dev, m * n)?;
        let ms = time(&stream, || {
            blas.gemm(&shape, f16::ONE, &da, &db, f16::ZERO, &mut dc)
        })?;
        let c = stream.clone_dtoh(&dc)?;
        let err = sampled_error(
            &picks,
            m,
            k,
            |i, l| a[i + l * m].to_f64(),
            |l, j| b[l + j * k].to_f64(),
            |i, j| c[i + j * m].to_f64(),
        );
        ok &= report("HGEMM  (f16)", err, 1e-2, &shape, ms);
    }
    // BF16 GemmEx, f32 accumulation, bf16 output
    {
        let a: Vec<bf16> = a64.iter().map(|&v| bf16::from_f64(v)).collect();
        let b: Vec<bf16> = b64.iter().map(|&v| bf16::from_f64(v)).collect();
        let (da, db) = (stream.clone_htod(&a)?, stream.clone_htod(&b)?);
        let mut dc = DeviceBuffer::<bf16>::zeroed(dev, m * n)?;
        let ms = time(&stream, || {
            blas.gemm_ex(&shape, 1.0, &da, &db, 0.0, &mut dc, Compute::F32)
        })?;
        let c = stream.clone_dtoh(&dc)?;
        let err = sampled_error(
            &picks,
            m,
            k,
            |i, l| a[i + l * m].to_f64(),
            |l, j| b[l + j * k].to_f64(),
            |i, j| c[i + j * m].to_f64(),
        );
        ok &= report("GemmEx (bf16 in/out, f32 acc)", err, 1e-2, &shape, ms);
    }
    println!("\nseed {seed}");
    Ok(ok)
}

/// Median milliseconds of 10 runs after 3 warm-ups, timed with events.
fn time(
    stream: &Stream,
    mut f: impl FnMut() -> hipblas::Result<()>,
) -> Result<f64, Box<dyn std::error::Error>> {
    for _ in 0..3 {
        f()?;
    }
    stream.synchronize()?;
    let dev = stream.device();
    let mut times = Vec::new();
    for _ in 0..10 {
        let (start, end) = (
            Event::with_timing(dev, true)?,
            Event::with_timing(dev, true)?,
        );
        start.record(stream)?;
        f()?;
        end.record(stream)?;
        end.synchronize()?;
        times.push(end.elapsed_ms_since(&start)? as f64);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok((times[4] + times[5]) / 2.0)
}

/// max |gpu - ref| / max |ref| over the sampled entries, the reference in f64.
fn sampled_error(
    picks: &[(usize, usize)],
    _m: usize,
    k: usize,
    a: impl Fn(usize, usize) -> f64,
    b: impl Fn(usize, usize) -> f64,
    c: impl Fn(usize, usize) -> f64,
) -> f64 {
    let (mut num, mut den) = (0.0f64, 0.0f64);
    for &(i, j) in picks {
        let want: f64 = (0..k).map(|l| a(i, l) * b(l, j)).sum();
        num = num.max((c(i, j) - want).abs());
        den = den.max(want.abs());
    }
    num / den
}

fn report(name: &str, err: f64, bound: f64, shape: &GemmShape, ms: f64) -> bool {
    let tflops = shape.flops() / (ms * 1e-3) / 1e12;
    let ok = err <= bound;
    println!(
        "{name:<30} rel err {err:9.2e} (bound {bound:.0e}) {}   {ms:8.3} ms  {tflops:7.1} TFLOP/s",
        if ok { "ok  " } else { "FAIL" }
    );
    ok
}
