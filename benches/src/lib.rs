//! Shared pieces of the hip workspace's benchmarks.
//!
//! - `src/bin/call_overhead.rs` (criterion, also the bench target
//!   `call_overhead`): the CPU-side time of safe `hip` calls and of the raw
//!   `hip_sys` calls they wrap, each on its own.
//! - `src/bin/soak.rs`: minutes of mixed, checked work on up to two GPUs,
//!   memory bounds and injected faults (`scripts/gpu-session.sh soak`).
//! - `src/bin/launch_rate.rs`: the CPU cost of one launch call (safe typed
//!   launch, raw `hip_sys`, raw `cuLaunchKernel`) and of stream query and
//!   event record, measured with the paths interleaved round by round and
//!   reported as medians with 95% confidence intervals; then, apart, the GPU's
//!   empty-kernel throughput.
//!
//! The statistics ([`median_ci`], [`paired_ratio_ci`]) are distribution-free:
//! confidence intervals of a median from order statistics, so no assumption
//! about the shape of timing noise is made.

pub mod cuda_driver;

use criterion::{black_box, Criterion};
use hip::{Device, Event, Stream};
use hip_sys as sys;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// The verdict rule (one crate, shared with xtask): the paired median
/// with its 95% interval for ours against a baseline timed in the same
/// rounds ([`bench_verdict::Verdict`]), and [`bench_verdict::single_value`]
/// for one value that is not a paired comparison. Every target line ends
/// with the outcome's word (`met`, `NOT met`, `undecided`);
/// `scripts/gpu-session.sh` counts those lines and fails any other than
/// `met`.
pub use bench_verdict::{median_ci_ranks, single_value, Outcome, Verdict};

/// The median of a sample (the mean of the two middle values when the
/// length is even); `None` for an empty sample or one holding a NaN.
pub fn median(v: &[f64]) -> Option<f64> {
    let s = sorted(v)?;
    let n = s.len();
    Some(if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    })
}

fn sorted(v: &[f64]) -> Option<Vec<f64>> {
    if v.is_empty() || v.iter().any(|x| x.is_nan()) {
        return None;
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    Some(s)
}

/// An endless deterministic pseudo-random sequence in [-1, 1) (xorshift64,
/// 53-bit mantissas), seeded by `seed`: cheap enough to fill gigabyte
/// benchmark inputs, and the same on every run.
pub fn signed_unit_noise(seed: u64) -> impl Iterator<Item = f64> {
    let mut s = 0x9E37_79B9_7F4A_7C15u64 ^ seed;
    std::iter::repeat_with(move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    })
}

/// GPU time of one call of `f`, in milliseconds, timed with HIP events on
/// `stream`: `warmup` untimed calls, then `repeats` event pairs, each
/// around `calls` back-to-back calls; the median over the repeats of the
/// pair's time divided by `calls`. `f` must enqueue its work on `stream`.
pub fn event_median_ms<E: std::error::Error + 'static>(
    stream: &Stream,
    warmup: usize,
    repeats: usize,
    calls: usize,
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<f64, Box<dyn std::error::Error>> {
    if repeats == 0 || calls == 0 {
        return Err("event_median_ms needs at least one repeat of one call".into());
    }
    for _ in 0..warmup {
        f()?;
    }
    stream.synchronize()?;
    let dev = stream.device();
    let events: Vec<(Event, Event)> = (0..repeats)
        .map(|_| {
            Ok((
                Event::with_timing(dev, true)?,
                Event::with_timing(dev, true)?,
            ))
        })
        .collect::<hip::Result<_>>()?;
    for (start, end) in &events {
        start.record(stream)?;
        for _ in 0..calls {
            f()?;
        }
        end.record(stream)?;
    }
    stream.synchronize()?;
    let times: Vec<f64> = events
        .iter()
        .map(|(s, e)| e.elapsed_ms_since(s).map(|t| t as f64 / calls as f64))
        .collect::<hip::Result<_>>()?;
    median(&times).ok_or_else(|| "the event times hold a NaN".into())
}

/// `main` of a benchmark compared with a torch baseline: reads the file
/// named by the first argument with `read`, then measures with `run`; on
/// any error (no argument, an unreadable file, no GPU) prints
/// `program: why` and returns a failure, so that a benchmark that cannot
/// measure or compare never passes. `script` is the python script that
/// writes the baseline, named in the hint when the argument is missing.
pub fn torch_baseline_main<B>(
    program: &str,
    script: &str,
    read: impl FnOnce(&str) -> Result<B, Box<dyn std::error::Error>>,
    run: impl FnOnce(&B) -> Result<(), Box<dyn std::error::Error>>,
) -> ExitCode {
    let baseline = match std::env::args().nth(1) {
        Some(path) => read(&path),
        None => Err(format!(
            "no torch baseline given: run `python3 benches/{script} > baseline.txt` \
             on the same GPU and pass baseline.txt"
        )
        .into()),
    };
    match baseline.and_then(|b| run(&b)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{program}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A median with a confidence interval: `low <= median <= high`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MedianCi {
    /// The sample median.
    pub median: f64,
    /// Lower end of the interval (an order statistic of the sample).
    pub low: f64,
    /// Upper end of the interval (an order statistic of the sample).
    pub high: f64,
    /// The interval's exact coverage, at least the level asked for.
    pub coverage: f64,
}

/// The median of `v` with a distribution-free confidence interval of
/// coverage at least `level` (see [`median_ci_ranks`]). `None` when the
/// sample is too small for that level or holds a NaN.
pub fn median_ci(v: &[f64], level: f64) -> Option<MedianCi> {
    let s = sorted(v)?;
    let (j, k, coverage) = median_ci_ranks(s.len(), level)?;
    Some(MedianCi {
        median: median(&s)?,
        low: s[j - 1],
        high: s[k - 1],
        coverage,
    })
}

/// The median, with its confidence interval, of the per-round ratios
/// `a[i] / b[i]`: the paired comparison of two paths timed in the same
/// rounds, so that drift between rounds (clocks, other load) cancels.
/// `None` when the lengths differ, a `b` is not positive, or the sample is
/// too small.
pub fn paired_ratio_ci(a: &[f64], b: &[f64], level: f64) -> Option<MedianCi> {
    if a.len() != b.len() || b.iter().any(|&x| x.is_nan() || x <= 0.0) {
        return None;
    }
    let ratios: Vec<f64> = a.iter().zip(b).map(|(x, y)| x / y).collect();
    median_ci(&ratios, level)
}

/// One way of making the call being measured, with the synchronisation that
/// drains what it queued.
pub struct TimedPath<'a> {
    /// The row label.
    pub name: &'a str,
    /// The call measured; its status is checked inside the timed loop, as
    /// any caller would.
    pub call: Box<dyn FnMut() -> Result<(), String> + 'a>,
    /// Drains the queue after a burst; never timed.
    pub settle: Box<dyn FnMut() -> Result<(), String> + 'a>,
}

impl std::fmt::Debug for TimedPath<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TimedPath")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// How a CPU-cost measurement is shaped.
#[derive(Clone, Copy, Debug)]
pub struct BurstPlan {
    /// Rounds; each round measures every path once, in an order rotated by
    /// one each round, so that no path is always first or last.
    pub rounds: usize,
    /// Bursts per path per round.
    pub bursts: usize,
    /// Calls per burst: short enough that what the calls queue never fills
    /// the device's queue, so a call is never made to wait for the GPU.
    pub burst_len: usize,
}

/// The CPU time of one call of each path, in nanoseconds, one value per
/// round (`result[path][round]`). Only the calls are timed: each burst of
/// `burst_len` calls is followed by the path's `settle`, outside the timed
/// region, so the queue stays short. Stops at the first error a call or a
/// settle returns.
pub fn time_interleaved(
    paths: &mut [TimedPath<'_>],
    plan: BurstPlan,
) -> Result<Vec<Vec<f64>>, String> {
    if plan.rounds == 0 || plan.bursts == 0 || plan.burst_len == 0 || paths.is_empty() {
        return Err(format!("empty measurement plan: {plan:?}"));
    }
    let mut out = vec![Vec::with_capacity(plan.rounds); paths.len()];
    let calls = (plan.bursts * plan.burst_len) as f64;
    for round in 0..plan.rounds {
        for step in 0..paths.len() {
            let i = (round + step) % paths.len();
            let path = &mut paths[i];
            (path.settle)().map_err(|e| format!("{}: {e}", path.name))?;
            let mut busy_ns = 0u128;
            for _ in 0..plan.bursts {
                let start = Instant::now();
                for _ in 0..plan.burst_len {
                    (path.call)().map_err(|e| format!("{}: {e}", path.name))?;
                }
                busy_ns += start.elapsed().as_nanos();
                (path.settle)().map_err(|e| format!("{}: {e}", path.name))?;
            }
            out[i].push(busy_ns as f64 / calls);
        }
    }
    Ok(out)
}

/// Bursts per path per round of the call-cost measurements.
pub const CALL_BURSTS: usize = 16;
/// Calls per timed burst: far below the depth of a launch queue.
pub const CALL_BURST_LEN: usize = 64;

/// A call's CPU cost per round: (call, safe hip, raw hip-sys).
pub type SafeRaw = (&'static str, Vec<f64>, Vec<f64>);

/// CPU cost of stream query and event record, safe against raw, measured
/// like `launch_rate`'s launches (paths interleaved, order rotated each
/// round; [`CALL_BURSTS`] bursts of [`CALL_BURST_LEN`] calls a round): `(call, safe per round, raw per round)`.
pub fn call_cost(
    dev: &Arc<Device>,
    stream: &Stream,
    rounds: usize,
) -> Result<Vec<SafeRaw>, String> {
    let event = Event::with_timing(dev, false).map_err(|e| e.to_string())?;
    let (raw_s, raw_e) = (stream.as_raw(), event.as_raw());
    let plan = BurstPlan {
        rounds,
        bursts: CALL_BURSTS,
        burst_len: CALL_BURST_LEN,
    };
    let sync = || stream.synchronize().map_err(|e| e.to_string());
    let mut query = [
        TimedPath {
            name: "stream query (safe)",
            call: Box::new(|| stream.query().map(|_| ()).map_err(|e| e.to_string())),
            settle: Box::new(sync),
        },
        TimedPath {
            name: "stream query (raw)",
            call: Box::new(|| {
                // SAFETY: a live stream.
                let st = unsafe { sys::hipStreamQuery(std::hint::black_box(raw_s)) };
                if st.is_success() || st == sys::hipError_t::hipErrorNotReady {
                    Ok(())
                } else {
                    Err(st.to_string())
                }
            }),
            settle: Box::new(sync),
        },
    ];
    let q = time_interleaved(&mut query, plan)?;
    let mut record = [
        TimedPath {
            name: "event record (safe)",
            call: Box::new(|| event.record(stream).map_err(|e| e.to_string())),
            settle: Box::new(sync),
        },
        TimedPath {
            name: "event record (raw)",
            call: Box::new(|| {
                // SAFETY: a live event and stream of the same device.
                let st = unsafe { sys::hipEventRecord(std::hint::black_box(raw_e), raw_s) };
                if st.is_success() {
                    Ok(())
                } else {
                    Err(st.to_string())
                }
            }),
            settle: Box::new(sync),
        },
    ];
    let r = time_interleaved(&mut record, plan)?;
    let [qs, qr] = <[Vec<f64>; 2]>::try_from(q).map_err(|_| "two paths expected")?;
    let [rs, rr] = <[Vec<f64>; 2]>::try_from(r).map_err(|_| "two paths expected")?;
    Ok(vec![("stream query", qs, qr), ("event record", rs, rr)])
}

/// Formats `median [low, high]` with `digits` decimals.
pub fn format_ci(ci: &MedianCi, digits: usize) -> String {
    format!(
        "{:.d$} [{:.d$}, {:.d$}]",
        ci.median,
        ci.low,
        ci.high,
        d = digits
    )
}

/// The GPU the benchmarks measure, or why there is none: a benchmark that
/// cannot measure fails instead of reporting nothing as success.
pub fn gpu() -> Result<Arc<Device>, String> {
    Device::get(0).map_err(|e| format!("cannot measure, no usable GPU: {e}"))
}

/// The safe stream query's and event record's target: at least 0.97 of the
/// raw call's speed (raw time / safe time per round, paired). On one H100
/// (hip/TESTING.md, 101 rounds) safe/raw measured 1.003 [1.000, 1.004] and
/// 1.000 [0.999, 1.002]: the safe call adds nothing measurable, so the
/// target is the workspace's "keeps up" (a few percent of noise below 1,
/// as for cuda-compat against real cudarc).
pub const TARGET_CALL: f64 = 0.97;

/// Rounds of the paired safe-against-raw measurement `call_overhead` judges
/// by: as many as `launch_rate`'s (a 95% interval between the 40th and
/// 62nd of the per-round ratios).
pub const CALL_ROUNDS: usize = 101;

/// The verdicts of [`call_cost`]'s paired rounds: one per call, ours
/// (safe) against raw hip-sys, target [`TARGET_CALL`]. The lines, and how
/// many missed.
pub fn call_verdicts(calls: &[SafeRaw]) -> Result<(Vec<String>, usize), String> {
    let mut lines = Vec::new();
    let mut missed = 0;
    for (name, safe, raw) in calls {
        let v = Verdict::of_times(safe, raw, TARGET_CALL)?;
        missed += usize::from(!v.outcome.passed());
        lines.extend(v.lines(
            &format!("call_overhead: {name}, safe against raw hip-sys"),
            "speed (raw ns / safe ns, per round)",
            "",
        ));
    }
    Ok((lines, missed))
}

/// `main` of the `call_overhead` binary and bench target: fails (status 1,
/// with the reason) when there is no GPU, else runs the criterion groups of
/// [`call_overhead`]. Run it with `--bench` for real measurements; without
/// it criterion runs each benchmark once (its test mode). Criterion times
/// one function after the other, so its rows are information; the verdict
/// comes after them from [`CALL_ROUNDS`] paired rounds ([`call_cost`]),
/// one line per call ([`call_verdicts`]), and a target not met fails.
pub fn call_overhead_main() -> ExitCode {
    let dev = match gpu() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("call_overhead: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut c = Criterion::default().configure_from_args();
    if let Err(e) = call_overhead(&mut c, &dev) {
        eprintln!("call_overhead: {e}");
        return ExitCode::FAILURE;
    }
    c.final_summary();
    let judged = Stream::new(&dev)
        .map_err(|e| e.to_string())
        .and_then(|stream| {
            call_cost(&dev, &stream, 7)?; // warm-up, discarded
            call_verdicts(&call_cost(&dev, &stream, CALL_ROUNDS)?)
        });
    match judged {
        Ok((lines, missed)) => {
            println!(
                "\ncall_overhead: paired rounds, safe against raw: {CALL_ROUNDS} rounds, each \
                 {CALL_BURSTS} bursts of {CALL_BURST_LEN} calls per path, the order rotated each round"
            );
            for l in &lines {
                println!("{l}");
            }
            if missed > 0 {
                eprintln!("call_overhead: {missed} target(s) not met");
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("call_overhead: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Criterion: the CPU-side time of a safe `hip` call and of the raw
/// `hip_sys` call it wraps (stream query, event record), each measured on
/// its own. Criterion measures one function after the other, so the
/// difference of two rows is not a measured comparison: `launch_rate`'s
/// interleaved, paired table is the one that compares safe with raw.
pub fn call_overhead(c: &mut Criterion, dev: &Arc<Device>) -> Result<(), hip::Error> {
    let stream = Stream::new(dev)?;
    let event = Event::with_timing(dev, false)?;
    let (raw_s, raw_e) = (stream.as_raw(), event.as_raw());
    // Warm the driver's paths up before measuring, so the first group
    // measured does not pay for lazy initialisation.
    for _ in 0..1000 {
        black_box(stream.query()?);
        event.record(&stream)?;
    }
    stream.synchronize()?;

    let mut g = c.benchmark_group("stream_query");
    g.bench_function("safe", |b| {
        b.iter(|| black_box(stream.query().expect("hipStreamQuery")))
    });
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

    // Each iteration records one event into the stream: batches of 64, the
    // stream drained between batches (untimed), keep the queue short so a
    // record never waits for the GPU (as in launch_rate).
    let mut g = c.benchmark_group("event_record");
    g.bench_function("safe", |b| {
        b.iter_batched(
            || stream.synchronize().expect("hipStreamSynchronize"),
            |()| event.record(&stream).expect("hipEventRecord"),
            criterion::BatchSize::NumIterations(64),
        )
    });
    g.bench_function("raw", |b| {
        b.iter_batched(
            || stream.synchronize().expect("hipStreamSynchronize"),
            |()| {
                // SAFETY: a live event and stream of one device.
                let st = unsafe { sys::hipEventRecord(black_box(raw_e), raw_s) };
                assert!(st.is_success(), "{st}");
            },
            criterion::BatchSize::NumIterations(64),
        )
    });
    g.finish();
    stream.synchronize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_samples() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn call_verdicts_judge_each_call_by_its_paired_rounds() {
        // Stream query: safe as fast as raw in every round; event record:
        // safe 10% slower in every round, whatever the fastest round says.
        let same: Vec<f64> = (0..9).map(|i| 1000.0 + f64::from(i)).collect();
        let slower: Vec<f64> = same.iter().map(|t| t * 1.1).collect();
        let mut lucky = slower.clone();
        lucky[0] = 900.0;
        let calls = vec![
            ("stream query", same.clone(), same.clone()),
            ("event record", lucky, same.clone()),
        ];
        let (lines, missed) = call_verdicts(&calls).unwrap();
        assert_eq!(missed, 1);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(
            lines[0].starts_with("call_overhead: stream query, safe against raw hip-sys: speed")
        );
        assert!(lines[0].ends_with("target >= 0.97: met"), "{}", lines[0]);
        assert!(lines[1].contains("median 0.909"), "{}", lines[1]);
        assert!(
            lines[1].ends_with("target >= 0.97: NOT met"),
            "{}",
            lines[1]
        );
        // Rounds that do not pair are refused.
        assert!(call_verdicts(&[("x", vec![1.0; 9], vec![1.0; 8])]).is_err());
    }

    #[test]
    fn median_ci_of_a_known_sample() {
        // 1..=20 shuffled: the median is 10.5, the 95% interval is
        // [x_(6), x_(15)] = [6, 15].
        let v: Vec<f64> = [
            14, 3, 19, 8, 1, 20, 11, 6, 16, 9, 2, 13, 18, 5, 10, 7, 17, 4, 12, 15,
        ]
        .iter()
        .map(|&x| f64::from(x))
        .collect();
        let ci = median_ci(&v, 0.95).unwrap();
        assert_eq!((ci.median, ci.low, ci.high), (10.5, 6.0, 15.0));
        assert!(ci.coverage >= 0.95);
        assert_eq!(format_ci(&ci, 1), "10.5 [6.0, 15.0]");
    }

    #[test]
    fn paired_ratio_ci_uses_per_round_ratios() {
        // Each round's a is 1.1 x its b while the rounds drift a lot: the
        // paired ratios are all 1.1, so the interval is exactly 1.1.
        let b: Vec<f64> = (1..=12).map(|i| f64::from(i) * 10.0).collect();
        let a: Vec<f64> = b.iter().map(|x| x * 1.1).collect();
        let ci = paired_ratio_ci(&a, &b, 0.95).unwrap();
        for x in [ci.median, ci.low, ci.high] {
            assert!((x - 1.1).abs() < 1e-12, "{ci:?}");
        }
        assert!(paired_ratio_ci(&a[..11], &b, 0.95).is_none());
        let mut zero = b.clone();
        zero[3] = 0.0;
        assert!(paired_ratio_ci(&a, &zero, 0.95).is_none());
    }

    #[test]
    fn time_interleaved_rotates_and_settles_outside_the_timing() {
        use std::cell::RefCell;
        let order = RefCell::new(Vec::new());
        let calls = RefCell::new([0usize; 3]);
        let settles = RefCell::new([0usize; 3]);
        let names = ["a", "b", "c"];
        let mut paths: Vec<TimedPath<'_>> = (0..3)
            .map(|i| TimedPath {
                name: names[i],
                call: Box::new({
                    let (order, calls) = (&order, &calls);
                    move || {
                        let mut c = calls.borrow_mut();
                        if c[i] % 8 == 0 {
                            order.borrow_mut().push(i);
                        }
                        c[i] += 1;
                        Ok(())
                    }
                }),
                settle: Box::new({
                    let settles = &settles;
                    move || {
                        settles.borrow_mut()[i] += 1;
                        Ok(())
                    }
                }),
            })
            .collect();
        let plan = BurstPlan {
            rounds: 3,
            bursts: 2,
            burst_len: 4,
        };
        let t = time_interleaved(&mut paths, plan).unwrap();
        assert_eq!(t.len(), 3);
        assert!(t
            .iter()
            .all(|r| r.len() == 3 && r.iter().all(|x| *x >= 0.0)));
        assert_eq!(*calls.borrow(), [24, 24, 24]);
        // One settle before each path's turn and one after each burst.
        assert_eq!(*settles.borrow(), [9, 9, 9]);
        // Each path's turn is 8 calls; the starting path rotates per round.
        assert_eq!(*order.borrow(), [0, 1, 2, 1, 2, 0, 2, 0, 1]);

        // An error stops the measurement and names the path.
        let mut failing = vec![TimedPath {
            name: "bad",
            call: Box::new(|| Err("status 7".to_owned())),
            settle: Box::new(|| Ok(())),
        }];
        let e = time_interleaved(&mut failing, plan).unwrap_err();
        assert_eq!(e, "bad: status 7");
    }
}
