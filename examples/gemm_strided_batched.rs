//! A batch of small GEMMs in one call (`hipblasSgemmStridedBatched`): 64
//! products of 96x80x48, each checked against a float64 CPU reference.
//!
//! ```text
//! cargo run --release -p hip-examples --example gemm_strided_batched
//! ```
//!
//! Exits with status 1 when there is no GPU or a check fails.

use hip::{Device, DeviceBuffer, Stream};
use hipblas::{Blas, GemmShape, Op};
use rand::{Rng, SeedableRng};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("gemm_strided_batched: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let (m, n, k, batch) = (96, 80, 48, 64);
    let dev = Device::get(0)?;
    let stream = Stream::new(&dev)?;
    let blas = Blas::new(&stream)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(rand::random());
    // A is used transposed: stored k x m.
    let shape = GemmShape::new(Op::T, Op::N, m, n, k);
    let (sa, sb, sc) = (k * m, k * n, m * n);
    let a: Vec<f32> = (0..sa * batch).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let b: Vec<f32> = (0..sb * batch).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let da = stream.clone_htod(&a)?;
    let db = stream.clone_htod(&b)?;
    let mut dc = DeviceBuffer::<f32>::zeroed(&dev, sc * batch)?;
    blas.gemm_strided_batched(&shape, 1.0, &da, sa, &db, sb, 0.0, &mut dc, sc, batch)?;
    stream.synchronize()?;
    let c = stream.clone_dtoh(&dc)?;
    let mut worst = 0.0f64;
    for p in 0..batch {
        let (mut num, mut den) = (0.0f64, 0.0f64);
        for j in 0..n {
            for i in 0..m {
                let want: f64 = (0..k)
                    .map(|l| a[p * sa + l + i * k] as f64 * b[p * sb + l + j * k] as f64)
                    .sum();
                num = num.max((c[p * sc + i + j * m] as f64 - want).abs());
                den = den.max(want.abs());
            }
        }
        worst = worst.max(num / den);
    }
    let ok = worst <= 1e-5;
    println!(
        "{batch} products C_i = A_i^T B_i ({m}x{n}x{k}, f32): worst relative error {worst:.2e} (bound 1e-5) {}",
        if ok { "ok" } else { "FAIL" }
    );
    Ok(ok)
}
