//! `y = a x + y` on the GPU with hipBLAS (`hipblasSaxpy`), checked on the
//! CPU.
//!
//! ```text
//! cargo run --release -p hip-examples --example saxpy
//! ```
//!
//! Exits with status 1 when there is no GPU or the check fails.

use hip::{Device, Stream};
use hipblas::Blas;
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("saxpy: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<bool, Box<dyn std::error::Error>> {
    let n = 1 << 20;
    let a = 2.5f32;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - (i % 777) as f32 * 0.002).collect();
    let dev = Device::get(0)?;
    // Which device and runtime this runs on: with HIP_PLATFORM=emulated,
    // the software AMD GPU says so here.
    if let Ok(rt) = hip_sys::loader::runtime() {
        let lib = rt.libraries.first().map(|l| l.path.display().to_string());
        println!(
            "device 0: {} ({}), {} runtime {} ({})",
            dev.name()?,
            dev.arch()?,
            rt.platform,
            lib.unwrap_or_default(),
            rt.platform_reason
        );
    }
    let stream = Stream::new(&dev)?;
    let blas = Blas::new(&stream)?;
    let dx = stream.clone_htod(&x)?;
    let mut dy = stream.clone_htod(&y)?;
    blas.axpy(n, a, &dx, 1, &mut dy, 1)?;
    stream.synchronize()?;
    let got = stream.clone_dtoh(&dy)?;
    let worst = (0..n)
        .map(|i| ((got[i] as f64) - (a as f64 * x[i] as f64 + y[i] as f64)).abs())
        .fold(0.0f64, f64::max);
    let ok = worst <= 1e-5;
    println!(
        "saxpy n={n}: y[1] = {} (expected {}), max abs error {worst:.2e} {}",
        got[1],
        a * x[1] + y[1],
        if ok { "ok" } else { "FAIL" }
    );
    Ok(ok)
}
