//! Pipeline parallelism on two GPUs: a model of eight dense layers
//! (`y = tanh(W x + b)`, hipBLAS SGEMM plus a bias/tanh kernel compiled
//! with hiprtc) split into two stages of four, stage 0 on GPU 0 and stage 1
//! on GPU 1. Micro-batches flow GPU 0 -> GPU 1 through peer copies.
//!
//! ```text
//! cargo run --release -p hip-examples --example pipeline
//! cargo run --release -p hip-examples --example pipeline -- HIDDEN COLUMNS MICRO_BATCHES
//! HIP_PLATFORM=nvidia ./target/release/examples/pipeline
//! ```
//!
//! How the two GPUs are kept busy:
//! - each stage has its own stream on its own device, and the peer copies
//!   have a third stream on GPU 0; they are ordered only by events (no
//!   device-wide synchronization in the loop);
//! - stage 0's outputs and stage 1's inputs are double-buffered: stage 0
//!   writes micro-batch `i + 1` into one buffer while the other is copied,
//!   and the copy into GPU 1's buffer `i % 2` waits for stage 1 to finish
//!   reading micro-batch `i - 2` from it;
//! - the host issues stage 0 of micro-batch `i + 1` before the copy of
//!   micro-batch `i`, because `Stream::copy_peer` returns only when its
//!   copy is done: GPU 0 has the next micro-batch queued while the host
//!   waits for the copy, and GPU 1 still has micro-batch `i - 1` to work on.
//!
//! The default size (hidden width 4096, micro-batches of 1024 columns, 16
//! micro-batches) gives each stage 137 GFLOP per micro-batch against a
//! 16 MiB activation copy: milliseconds of GEMM against tens of
//! microseconds of copy over NVLink (about a millisecond even when the
//! copy is staged through the host), so compute dominates and the best
//! possible speed-up is `2 M / (M + 1)` = 1.88 for M = 16.
//!
//! Printed: a timeline (start and end of each stage and copy per
//! micro-batch, in milliseconds from an origin event recorded on each
//! device's stream when both were idle), the throughput of the same work
//! on one GPU (both stages on GPU 0, one stream) and on two, and
//! the verdict line `pipeline: speed-up ... median M [95% interval L, H]
//! ...; target >= 1.5: met` (or `NOT met`, or `undecided`, which fails).
//!
//! After a warm-up run of each, the two configurations are timed in 9
//! paired rounds in ABBA order (each round's order printed); the verdict
//! is the median of the per-round speed-ups with its 95% interval
//! (`bench_verdict`); the times printed are the medians.
//!
//! Checked: the two-GPU outputs against the one-GPU outputs, and two
//! columns of the first and the last micro-batch against a float64 CPU
//! reference, both within 1e-4 absolute. Every output is a tanh, so
//! |y| < 1. The same SGEMMs on the same inputs on the same model of GPU
//! normally give the same bits; a different algorithm choice on the
//! second device, or the CPU's exact sums, differ by rounding: about
//! `2^-24 sqrt(hidden)` = 4e-6 per layer at width 4096, carried through
//! the later layers without growth on average (weights of variance
//! 1/hidden, tanh' <= 1). A wrong order of the streams (a stage reading a
//! buffer still being written) gives differences of order 0.1.
//! Exits with status 1 when there are fewer than two GPUs (saying what it
//! found), when a check fails, or when the speed target is not met.

#[path = "common/mod.rs"]
mod common;

use bench_verdict::Verdict;
use common::{Activation, LayerKernels};
use hip::{Device, DeviceBuffer, Event, Stream};
use hipblas::{Blas, GemmShape, Op};
use rand::{Rng, SeedableRng};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

const LAYERS_PER_STAGE: usize = 4;
const STAGES: usize = 2;
/// Paired rounds of the speed comparison (one-GPU and two-GPU run each, in
/// ABBA order): 9 give a 95% interval of the median between the 2nd and
/// 8th per-round ratios (bench_verdict).
const ROUNDS: usize = 9;
/// The two-GPU pipeline must reach 1.5 times the one-GPU speed (the best
/// possible is 1.88 at 16 micro-batches).
const TARGET_SPEEDUP: f64 = 1.5;
/// Two-GPU output against one-GPU output (absolute; outputs are in (-1, 1)).
const TWO_VS_ONE_TOLERANCE: f64 = 1e-4;
/// GPU output against the float64 CPU reference (absolute).
const CPU_TOLERANCE: f64 = 1e-4;

/// The model's size.
#[derive(Clone, Copy, Debug)]
struct Sizes {
    /// Width of every layer (rows of each activation).
    hidden: usize,
    /// Samples per micro-batch (columns of each activation).
    columns: usize,
    /// Micro-batches per run.
    micro_batches: usize,
}

impl Sizes {
    fn activation_len(&self) -> usize {
        self.hidden * self.columns
    }
    fn stage_flops(&self) -> f64 {
        LAYERS_PER_STAGE as f64 * 2.0 * (self.hidden * self.hidden * self.columns) as f64
    }
}

/// One layer's parameters on the host: `W` (hidden x hidden,
/// column-major) and `b`.
struct HostLayer {
    weights: Vec<f32>,
    bias: Vec<f32>,
}

fn main() -> ExitCode {
    let args: Vec<usize> = match std::env::args().skip(1).map(|a| a.parse()).collect() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("usage: pipeline [HIDDEN COLUMNS MICRO_BATCHES] ({e})");
            return ExitCode::from(2);
        }
    };
    let sizes = match args.as_slice() {
        [] => Sizes {
            hidden: 4096,
            columns: 1024,
            micro_batches: 16,
        },
        [h, c, m] if *h > 0 && *c > 0 && *m > 0 => Sizes {
            hidden: *h,
            columns: *c,
            micro_batches: *m,
        },
        _ => {
            eprintln!("usage: pipeline [HIDDEN COLUMNS MICRO_BATCHES] (all positive)");
            return ExitCode::from(2);
        }
    };
    let devices = match common::devices(STAGES) {
        Ok(d) => d,
        Err(why) => {
            eprintln!("pipeline: needs two GPUs, one per stage.\n{why}");
            return ExitCode::FAILURE;
        }
    };
    match run(&devices, sizes) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("pipeline: a result exceeded its tolerance");
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("pipeline: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(devices: &[Arc<Device>], sizes: Sizes) -> BoxResult<bool> {
    let (d0, d1) = (&devices[0], &devices[1]);
    println!(
        "GPU 0: {}; GPU 1: {}{}",
        d0.name()?,
        d1.name()?,
        if devices.len() > 2 {
            format!(" ({} more not used)", devices.len() - 2)
        } else {
            String::new()
        }
    );
    let act_mib = (sizes.activation_len() * 4) as f64 / (1 << 20) as f64;
    println!(
        "{STAGES} stages x {LAYERS_PER_STAGE} layers of width {}; {} micro-batches of {} columns; \
         per stage and micro-batch {:.1} GFLOP, activation copy {act_mib:.1} MiB",
        sizes.hidden,
        sizes.micro_batches,
        sizes.columns,
        sizes.stage_flops() / 1e9
    );

    let seed: u64 = rand::random();
    println!("seed {seed}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    // Weights with variance 1/hidden keep pre-activations of order one.
    let scale = (3.0 / sizes.hidden as f32).sqrt();
    let layers: Vec<HostLayer> = (0..STAGES * LAYERS_PER_STAGE)
        .map(|_| HostLayer {
            weights: (0..sizes.hidden * sizes.hidden)
                .map(|_| rng.gen_range(-scale..scale))
                .collect(),
            bias: (0..sizes.hidden)
                .map(|_| rng.gen_range(-0.1..0.1))
                .collect(),
        })
        .collect();
    let inputs: Vec<Vec<f32>> = (0..sizes.micro_batches)
        .map(|_| {
            (0..sizes.activation_len())
                .map(|_| rng.gen_range(-1.0..1.0))
                .collect()
        })
        .collect();
    let inputs_d0 = inputs
        .iter()
        .map(|x| Stream::default_for(d0).clone_htod(x))
        .collect::<hip::Result<Vec<_>>>()?;

    // One GPU: both stages on GPU 0, one stream, one micro-batch after the
    // other. The first micro-batch is run once before timing (library
    // set-up, kernel loading).
    let stream = Stream::new(d0)?;
    let mut first = Stage::new(&stream, &layers[..LAYERS_PER_STAGE], sizes)?;
    let mut second = Stage::new(&stream, &layers[LAYERS_PER_STAGE..], sizes)?;
    let mut mid = DeviceBuffer::<f32>::zeroed(d0, sizes.activation_len())?;
    let mut outs = (0..sizes.micro_batches)
        .map(|_| DeviceBuffer::<f32>::zeroed(d0, sizes.activation_len()))
        .collect::<hip::Result<Vec<_>>>()?;
    first.forward(&inputs_d0[0], &mut mid)?;
    second.forward(&mid, &mut outs[0])?;
    stream.synchronize()?;
    let mut run_single = || -> BoxResult<f64> {
        let t = Instant::now();
        for (x, out) in inputs_d0.iter().zip(outs.iter_mut()) {
            first.forward(x, &mut mid)?;
            second.forward(&mid, out)?;
        }
        stream.synchronize()?;
        Ok(t.elapsed().as_secs_f64())
    };

    // Two GPUs.
    for (a, b) in [(d0, d1), (d1, d0)] {
        if a.can_access_peer(b)? {
            a.enable_peer_access(b)?;
        } else {
            println!(
                "GPU {} cannot access GPU {} directly: the runtime stages the copies",
                a.ordinal(),
                b.ordinal()
            );
        }
    }
    let mut pipeline = Pipeline::new(d0, d1, &layers, sizes)?;
    pipeline.run(&inputs_d0)?; // warm-up: library set-up, kernel loading
                               // Paired rounds in ABBA order (printed): each round times the one-GPU
                               // run and the two-GPU run, one right after the other.
    let (mut single_secs, mut pipe_secs) = (Vec::new(), Vec::new());
    let mut timeline = Vec::new();
    for round in 0..ROUNDS {
        let single_first = round % 2 == 0;
        println!(
            "round {} of {ROUNDS}: {}",
            round + 1,
            if single_first {
                "one GPU, then two"
            } else {
                "two GPUs, then one"
            }
        );
        if single_first {
            single_secs.push(run_single()?);
        }
        pipe_secs.push(pipeline.run(&inputs_d0)?);
        timeline = pipeline.timeline()?;
        if !single_first {
            single_secs.push(run_single()?);
        }
    }
    // The last round's timeline, as an example of one run.
    print_timeline(&timeline);
    let single_out = outs
        .iter()
        .map(|o| stream.clone_dtoh(o))
        .collect::<hip::Result<Vec<_>>>()?;
    let pipe_out = pipeline
        .outputs
        .iter()
        .map(|o| pipeline.stage1.stream.clone_dtoh(o))
        .collect::<hip::Result<Vec<_>>>()?;

    let mut ok = report(
        "two GPUs vs one GPU",
        max_abs_diff(
            pipe_out.iter().flatten().copied(),
            single_out.iter().flatten().map(|&v| v as f64),
        ),
        TWO_VS_ONE_TOLERANCE,
    );
    let last = sizes.micro_batches - 1;
    for (mb, col) in [
        (0, 0),
        (0, sizes.columns - 1),
        (last, 0),
        (last, sizes.columns - 1),
    ] {
        let want = cpu_forward(&layers, &inputs[mb], col, sizes.hidden);
        let got = &single_out[mb][col * sizes.hidden..(col + 1) * sizes.hidden];
        ok &= report(
            &format!("micro-batch {mb} column {col} vs float64 CPU"),
            max_abs_diff(got.iter().copied(), want.into_iter()),
            CPU_TOLERANCE,
        );
    }

    let samples = (sizes.micro_batches * sizes.columns) as f64;
    let total_flops = sizes.stage_flops() * (STAGES * sizes.micro_batches) as f64;
    let median = |v: &[f64]| {
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        s[s.len() / 2]
    };
    let verdict = Verdict::of_times(&pipe_secs, &single_secs, TARGET_SPEEDUP)?;
    let (single_secs, pipe_secs) = (median(&single_secs), median(&pipe_secs));
    println!(
        "one GPU:  {:8.2} ms, {:10.0} samples/s, {:6.1} TFLOP/s",
        single_secs * 1e3,
        samples / single_secs,
        total_flops / single_secs / 1e12
    );
    println!(
        "two GPUs: {:8.2} ms, {:10.0} samples/s, {:6.1} TFLOP/s (best possible speed-up {:.2})",
        pipe_secs * 1e3,
        samples / pipe_secs,
        total_flops / pipe_secs / 1e12,
        2.0 * sizes.micro_batches as f64 / (sizes.micro_batches + 1) as f64
    );
    for l in verdict.lines(
        "pipeline",
        "speed-up, one GPU's time / two GPUs', per round",
        "",
    ) {
        println!("{l}");
    }
    ok &= verdict.outcome.passed();
    Ok(ok)
}

/// One stage: dense layers `y = tanh(W x + b)` on one stream.
struct Stage {
    stream: Stream,
    blas: Blas,
    kernels: LayerKernels,
    weights: Vec<DeviceBuffer<f32>>,
    biases: Vec<DeviceBuffer<f32>>,
    /// Intermediate activations, alternately written and read.
    scratch: [DeviceBuffer<f32>; 2],
    shape: GemmShape,
}

impl Stage {
    fn new(stream: &Stream, layers: &[HostLayer], sizes: Sizes) -> BoxResult<Stage> {
        let dev = stream.device();
        Ok(Stage {
            stream: stream.clone(),
            blas: Blas::new(stream)?,
            kernels: LayerKernels::compile(dev)?,
            weights: layers
                .iter()
                .map(|l| stream.clone_htod(&l.weights))
                .collect::<hip::Result<_>>()?,
            biases: layers
                .iter()
                .map(|l| stream.clone_htod(&l.bias))
                .collect::<hip::Result<_>>()?,
            scratch: [
                DeviceBuffer::zeroed(dev, sizes.activation_len())?,
                DeviceBuffer::zeroed(dev, sizes.activation_len())?,
            ],
            shape: GemmShape::new(Op::N, Op::N, sizes.hidden, sizes.columns, sizes.hidden),
        })
    }

    /// Enqueues the stage's layers on its stream: `input` -> scratch ->
    /// ... -> `output`.
    fn forward(
        &mut self,
        input: &DeviceBuffer<f32>,
        output: &mut DeviceBuffer<f32>,
    ) -> BoxResult<()> {
        let Stage {
            stream,
            blas,
            kernels,
            weights,
            biases,
            scratch,
            shape,
        } = self;
        let dense = |l: usize, x: &DeviceBuffer<f32>, y: &mut DeviceBuffer<f32>| -> BoxResult<()> {
            blas.gemm(shape, 1.0f32, &weights[l], x, 0.0, y)?;
            kernels.bias_act(
                stream,
                Activation::Tanh,
                y.as_slice_mut(),
                biases[l].as_slice(),
            )
        };
        let last = weights.len() - 1;
        let [a, b] = scratch;
        dense(0, input, a)?;
        let (mut cur, mut next) = (a, b);
        for l in 1..last {
            dense(l, cur, next)?;
            std::mem::swap(&mut cur, &mut next);
        }
        dense(last, cur, output)
    }
}

/// Timing events of one micro-batch: stage 0 and the copy on GPU 0,
/// stage 1 on GPU 1.
struct MicroBatchEvents {
    stage0: (Event, Event),
    copy: (Event, Event),
    stage1: (Event, Event),
}

/// The two-GPU pipeline: stages, double buffers, streams and events.
struct Pipeline {
    stage0: Stage,
    stage1: Stage,
    /// Stream on GPU 0 that runs the peer copies.
    copies: Stream,
    /// Stage 0's outputs on GPU 0, by micro-batch parity.
    sent: [DeviceBuffer<f32>; 2],
    /// Stage 1's inputs on GPU 1, by micro-batch parity.
    received: [DeviceBuffer<f32>; 2],
    outputs: Vec<DeviceBuffer<f32>>,
    /// Recorded after stage 0 wrote `sent[k]`.
    stage0_done: [Event; 2],
    /// Recorded after the copy of `sent[k]` into `received[k]`.
    copied: [Event; 2],
    /// Recorded after stage 1 read `received[k]`.
    stage1_done: [Event; 2],
    /// Time zero of each device's timeline.
    origin: (Event, Event),
    timeline: Vec<MicroBatchEvents>,
}

fn untimed_pair(dev: &Arc<Device>) -> hip::Result<[Event; 2]> {
    Ok([
        Event::with_timing(dev, false)?,
        Event::with_timing(dev, false)?,
    ])
}

fn timed_pair(dev: &Arc<Device>) -> hip::Result<(Event, Event)> {
    Ok((Event::new(dev)?, Event::new(dev)?))
}

impl Pipeline {
    fn new(
        d0: &Arc<Device>,
        d1: &Arc<Device>,
        layers: &[HostLayer],
        sizes: Sizes,
    ) -> BoxResult<Pipeline> {
        let zeroed = |d: &Arc<Device>| DeviceBuffer::<f32>::zeroed(d, sizes.activation_len());
        Ok(Pipeline {
            stage0: Stage::new(&Stream::new(d0)?, &layers[..LAYERS_PER_STAGE], sizes)?,
            stage1: Stage::new(&Stream::new(d1)?, &layers[LAYERS_PER_STAGE..], sizes)?,
            copies: Stream::new(d0)?,
            sent: [zeroed(d0)?, zeroed(d0)?],
            received: [zeroed(d1)?, zeroed(d1)?],
            outputs: (0..sizes.micro_batches)
                .map(|_| zeroed(d1))
                .collect::<hip::Result<_>>()?,
            stage0_done: untimed_pair(d0)?,
            copied: untimed_pair(d0)?,
            stage1_done: untimed_pair(d1)?,
            origin: (Event::new(d0)?, Event::new(d1)?),
            timeline: (0..sizes.micro_batches)
                .map(|_| {
                    Ok(MicroBatchEvents {
                        stage0: timed_pair(d0)?,
                        copy: timed_pair(d0)?,
                        stage1: timed_pair(d1)?,
                    })
                })
                .collect::<hip::Result<_>>()?,
        })
    }

    /// Runs every micro-batch through both stages; returns the seconds
    /// from the first issue to stage 1's last micro-batch done.
    fn run(&mut self, inputs: &[DeviceBuffer<f32>]) -> BoxResult<f64> {
        let m = inputs.len();
        self.stage0.stream.synchronize()?;
        self.copies.synchronize()?;
        self.stage1.stream.synchronize()?;
        // Both streams are idle: the two origins happen within
        // microseconds of each other, which is the timeline's precision.
        self.origin.0.record(&self.stage0.stream)?;
        self.origin.1.record(&self.stage1.stream)?;
        let t = Instant::now();
        self.issue_stage0(0, &inputs[0])?;
        for i in 0..m {
            if i + 1 < m {
                self.issue_stage0(i + 1, &inputs[i + 1])?;
            }
            let k = i % 2;
            let ev = &self.timeline[i];
            self.copies.wait_event(&self.stage0_done[k])?;
            if i >= 2 {
                // received[k] is free once stage 1 has read micro-batch i - 2.
                self.copies.wait_event(&self.stage1_done[k])?;
            }
            ev.copy.0.record(&self.copies)?;
            // Returns when the copy is done (see the module docs).
            self.copies
                .copy_peer(&self.sent[k], &mut self.received[k])?;
            ev.copy.1.record(&self.copies)?;
            self.copied[k].record(&self.copies)?;

            let s1 = &self.stage1.stream;
            s1.wait_event(&self.copied[k])?;
            ev.stage1.0.record(s1)?;
            self.stage1
                .forward(&self.received[k], &mut self.outputs[i])?;
            let s1 = &self.stage1.stream;
            self.timeline[i].stage1.1.record(s1)?;
            self.stage1_done[k].record(s1)?;
        }
        self.stage1.stream.synchronize()?;
        let secs = t.elapsed().as_secs_f64();
        self.stage0.stream.synchronize()?;
        self.copies.synchronize()?;
        Ok(secs)
    }

    /// Enqueues stage 0 of micro-batch `i` into `sent[i % 2]`, after the
    /// copy of micro-batch `i - 2` has read that buffer.
    fn issue_stage0(&mut self, i: usize, input: &DeviceBuffer<f32>) -> BoxResult<()> {
        let k = i % 2;
        let s0 = &self.stage0.stream;
        if i >= 2 {
            s0.wait_event(&self.copied[k])?;
        }
        self.timeline[i].stage0.0.record(s0)?;
        self.stage0.forward(input, &mut self.sent[k])?;
        let s0 = &self.stage0.stream;
        self.timeline[i].stage0.1.record(s0)?;
        self.stage0_done[k].record(s0)?;
        Ok(())
    }

    /// Per micro-batch, when stage 0, the copy and stage 1 started and
    /// ended, in milliseconds from their device's origin event.
    fn timeline(&self) -> hip::Result<Vec<[f64; 6]>> {
        let (o0, o1) = (&self.origin.0, &self.origin.1);
        let since = |e: &Event, origin: &Event| -> hip::Result<f64> {
            Ok(e.elapsed_ms_since(origin)? as f64)
        };
        self.timeline
            .iter()
            .map(|ev| {
                Ok([
                    since(&ev.stage0.0, o0)?,
                    since(&ev.stage0.1, o0)?,
                    since(&ev.copy.0, o0)?,
                    since(&ev.copy.1, o0)?,
                    since(&ev.stage1.0, o1)?,
                    since(&ev.stage1.1, o1)?,
                ])
            })
            .collect()
    }
}

/// Prints the timeline rows of [`Pipeline::timeline`] and how busy each
/// GPU was.
fn print_timeline(rows: &[[f64; 6]]) {
    println!("\ntimeline of the fastest two-GPU run (ms; each GPU from its own origin)");
    println!(
        "{:>5}  {:>17}  {:>17}  {:>17}",
        "batch", "stage 0 (GPU 0)", "copy 0 -> 1", "stage 1 (GPU 1)"
    );
    let (mut busy0, mut busy1, mut end0, mut end1) = (0.0, 0.0, 0.0f64, 0.0f64);
    for (i, r) in rows.iter().enumerate() {
        println!(
            "{i:>5}  {:>8.2}-{:<8.2}  {:>8.2}-{:<8.2}  {:>8.2}-{:<8.2}",
            r[0], r[1], r[2], r[3], r[4], r[5]
        );
        busy0 += r[1] - r[0];
        busy1 += r[5] - r[4];
        end0 = end0.max(r[1]);
        end1 = end1.max(r[5]);
    }
    println!(
        "GPU 0 computing {:.0}% of its {end0:.2} ms, GPU 1 computing {:.0}% of its {end1:.2} ms\n",
        100.0 * busy0 / end0,
        100.0 * busy1 / end1
    );
}

/// The largest `|a - b|`, NaN when any difference is NaN.
fn max_abs_diff(a: impl Iterator<Item = f32>, b: impl Iterator<Item = f64>) -> f64 {
    a.zip(b)
        .map(|(a, b)| (a as f64 - b).abs())
        .fold(
            0.0,
            |worst, d| if d.is_nan() || d > worst { d } else { worst },
        )
}

/// Prints a check's outcome; whether `err` is within `tolerance` (a NaN
/// is not).
fn report(what: &str, err: f64, tolerance: f64) -> bool {
    let ok = err <= tolerance;
    println!(
        "{what}: max |difference| {err:.2e} (tolerance {tolerance:.0e}) {}",
        if ok { "ok" } else { "MISMATCH" }
    );
    ok
}

/// Column `col` of the model's output for `input`, in float64: every
/// layer's `tanh(W x + b)` in turn.
fn cpu_forward(layers: &[HostLayer], input: &[f32], col: usize, hidden: usize) -> Vec<f64> {
    let mut x: Vec<f64> = input[col * hidden..(col + 1) * hidden]
        .iter()
        .map(|&v| v as f64)
        .collect();
    for layer in layers {
        let mut y: Vec<f64> = layer.bias.iter().map(|&b| b as f64).collect();
        for (c, &xc) in x.iter().enumerate() {
            let column = &layer.weights[c * hidden..(c + 1) * hidden];
            for (yr, &w) in y.iter_mut().zip(column) {
                *yr += w as f64 * xc;
            }
        }
        x = y.into_iter().map(f64::tanh).collect();
    }
    x
}
