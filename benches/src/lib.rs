//! Shared pieces of the hip workspace's benchmarks.
//!
//! - `benches/call_overhead.rs` (criterion; also the binary `call_overhead`):
//!   CPU-side cost of a safe `hip` call against the raw `hip_sys` call.
//! - `src/bin/launch_rate.rs`: empty-kernel launches per second through the
//!   safe typed launch, raw `hip_sys`, and raw `cuLaunchKernel`, in one run.

pub mod cuda_driver;

use criterion::{black_box, Criterion};
use hip::{Device, Event, Stream};
use hip_sys as sys;
use std::time::{Duration, Instant};

/// Runs `f` `iters` times per round for `rounds` rounds and returns the
/// per-call time of each round, in nanoseconds.
pub fn time_rounds(rounds: usize, iters: u64, mut f: impl FnMut()) -> Vec<f64> {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            t.elapsed().as_nanos() as f64 / iters as f64
        })
        .collect()
}

/// The median of a sample.
pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    s[s.len() / 2]
}

/// The minimum of a sample.
pub fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

/// Formats a duration in nanoseconds.
pub fn ns(d: Duration) -> f64 {
    d.as_nanos() as f64
}

/// Criterion: CPU-side cost of a safe `hip` call against the raw `hip_sys`
/// call it wraps (stream query, event record). Needs a GPU to be
/// meaningful; without one it says so and measures nothing.
pub fn call_overhead(c: &mut Criterion) {
    let dev = match Device::get(0) {
        Ok(d) => d,
        Err(e) => {
            println!("call_overhead: not run, no GPU: {e}");
            return;
        }
    };
    let stream = Stream::new(&dev).expect("stream");
    let event = Event::with_timing(&dev, false).expect("event");
    let (raw_s, raw_e) = (stream.as_raw(), event.as_raw());
    // Warm the driver's paths up before measuring, so the first group
    // measured does not pay for lazy initialisation.
    for _ in 0..200_000 {
        black_box(stream.query().unwrap());
        event.record(&stream).unwrap();
    }
    stream.synchronize().expect("sync");

    let mut g = c.benchmark_group("stream_query");
    g.bench_function("safe", |b| b.iter(|| black_box(stream.query().unwrap())));
    g.bench_function("raw", |b| {
        b.iter(|| {
            // SAFETY: a live stream.
            let st = unsafe { sys::hipStreamQuery(black_box(raw_s)) };
            assert!(
                st.is_success() || st == sys::hipError_t::hipErrorNotReady,
                "{st}"
            );
        })
    });
    g.finish();

    let mut g = c.benchmark_group("event_record");
    g.bench_function("safe", |b| b.iter(|| event.record(&stream).unwrap()));
    g.bench_function("raw", |b| {
        b.iter(|| {
            // SAFETY: a live event and stream of one device.
            let st = unsafe { sys::hipEventRecord(black_box(raw_e), raw_s) };
            assert!(st.is_success(), "{st}");
        })
    });
    g.finish();
    stream.synchronize().expect("sync");
}
