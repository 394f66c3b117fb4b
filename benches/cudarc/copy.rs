//! cudarc's copies of an ordinary `Vec` between host and device:
//! `memcpy_htod` and `memcpy_dtoh` of SIZE MiB, as a program loading
//! weights or reading results back makes them. Built by
//! `scripts/cudarc-examples.sh bench-build` against the real cudarc 0.19.10
//! (`cudarc-copy-real`) and against cuda-compat (`cudarc-copy-compat`),
//! whose copies of 4 MiB and more go through `hip`'s staging;
//! `cudarc-examples.sh copy-run` compares the two.
//!
//! ```text
//! cudarc-copy-{real,compat} htod|dtoh SIZE_MIB
//! ```
//!
//! Prints the median time of one copy (each waited for) over the timed
//! repetitions as `step_us N`, and the bandwidth; the data that arrives is
//! checked byte for byte first.

use cudarc::driver::CudaContext;
use std::error::Error;
use std::time::Instant;

/// Copies before timing (first touches, pinned rings, thread pools).
const WARMUP: usize = 2;
/// Timed copies; the median is printed.
const TIMED: usize = 9;

fn main() {
    if let Err(e) = run() {
        eprintln!("{}: {e}", env!("CARGO_BIN_NAME"));
        std::process::exit(1);
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let usage = "usage: htod|dtoh SIZE_MIB";
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or(usage)?;
    let mib: usize = args
        .next()
        .and_then(|m| m.parse().ok())
        .filter(|m| *m > 0)
        .ok_or(usage)?;
    let len = mib << 20;
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    // A pattern that no offset or truncation reproduces.
    let host: Vec<u8> = (0..len).map(|i| (i % 251) as u8 ^ (i >> 20) as u8).collect();
    let mut dev = stream.alloc_zeros::<u8>(len)?;
    let mut back = vec![0u8; len];
    if dir == "dtoh" {
        stream.memcpy_htod(&host, &mut dev)?;
    }
    let mut copy = |timed: &mut Vec<f64>| -> Result<(), Box<dyn Error>> {
        let t = Instant::now();
        match dir.as_str() {
            "htod" => stream.memcpy_htod(&host, &mut dev)?,
            "dtoh" => stream.memcpy_dtoh(&dev, &mut back)?,
            _ => return Err(usage.into()),
        }
        stream.synchronize()?;
        timed.push(t.elapsed().as_secs_f64() * 1e6);
        Ok(())
    };
    let mut times = Vec::new();
    for _ in 0..WARMUP {
        copy(&mut times)?;
    }
    times.clear();
    for _ in 0..TIMED {
        copy(&mut times)?;
    }
    let arrived = if dir == "htod" {
        stream.clone_dtoh(&dev)?
    } else {
        back
    };
    if let Some(at) = arrived.iter().zip(&host).position(|(a, b)| a != b) {
        return Err(format!("{dir} of {mib} MiB: byte {at} differs").into());
    }
    times.sort_by(f64::total_cmp);
    let us = times[TIMED / 2];
    println!(
        "{}: {dir} {mib} MiB of a Vec, median of {TIMED}: {:.1} GB/s; step_us {us:.1}",
        env!("CARGO_BIN_NAME"),
        len as f64 / us / 1e3
    );
    Ok(())
}
