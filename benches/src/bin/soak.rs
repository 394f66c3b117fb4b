//! GPU soak: several threads mixing the workspace's libraries for minutes,
//! every result checked, memory sampled, then three injected faults.
//!
//! Usage: `soak [--seconds N] [--warmup N] [--bound-mib N]` (defaults 330,
//! 60 or a third of a shorter run, 256). Run on the GPU machine by `bash scripts/gpu-session.sh soak`.
//!
//! The mix, one thread each, until `--seconds` have passed (each loop
//! iteration is one check):
//! - `gemm`: SGEMM (hipBLAS) of 256x256 integer-valued matrices, compared
//!   exactly with a CPU product (every partial sum is an integer below
//!   2^24, so f32 is exact);
//! - `fft`: hipFFT C2C forward then inverse of 16 x 4096 points in
//!   [-1, 1), divided by 4096: within 1e-4 of the input;
//! - `rand`: hipRAND XORWOW uniform f32 fill of 2^22 values: all in
//!   (0, 1], mean within 0.5 +- 0.002 (14 sigma); normal fill: mean within
//!   0 +- 0.005, standard deviation within 1 +- 0.005 (10 sigma);
//! - `rccl`: all-reduce (sum) over every GPU from one process
//!   (`Comm::from_devices`), 2^20 f32 per rank: exact (integer values);
//! - `copy gpuN` (one per GPU, at most two): staged pageable copies of a
//!   24 MiB `Vec<u32>` there and back, bit-exact;
//! - `graph`: a captured graph of 10 counter bumps (`Stream::capture`, on
//!   a blocking stream), replayed 20 times (`GraphExec::launch`): the
//!   counter adds exactly 200;
//! - `device-wide releases`: what acts on the whole device, beside that
//!   capture: a zeroed buffer made, checked and freed (`hipFree`), a
//!   hipBLAS handle made and destroyed, a module loaded and unloaded,
//!   page-locked memory allocated and freed, and every tenth round
//!   `Device::synchronize`; the capture gate keeps them out of the graph
//!   thread's captures;
//! - `streams`: a buffer allocated on one stream (`Stream::alloc`), written
//!   by a kernel there, read by a kernel on a second stream into a buffer of
//!   that stream, read back on the first: exact (the access tracking orders
//!   the streams); both buffers freed across streams.
//!
//! Memory: the device's used memory (`Device::memory_info`, every GPU) and
//! the process's RSS (`/proc/self/status`) are sampled every 2 s. The
//! level at the end of the warm-up (`--warmup` seconds) is the baseline:
//! every later sample, and the level after the faults, must stay within
//! `--bound-mib` of it.
//!
//! Then the faults, in this order, each with memory measured before and
//! after (within 64 MiB of each other) and the process doing work
//! afterwards:
//! 1. pinned memory runs out while staging
//!    (`hip::staging::fail_next_pinned_allocations`): the copies fall back
//!    to direct copies, bit-exact, and the next copies are staged again;
//! 2. corrupted module images (truncated, magic flipped, every 97th byte
//!    flipped) are rejected by `Module::load_data`, and the correct image
//!    still loads and runs;
//! 3. a rank is killed in the middle of a collective (two GPUs; last, so
//!    that a wedged GPU spoils nothing else): this program re-executed as
//!    rank 1 of a two-process job (`Comm::from_job`) stops joining after
//!    40 all-reduces and is SIGKILLed while rank 0 is inside the next one;
//!    `Comm::wait` must return an error within 15 s (+20 s for the abort),
//!    the stream must come free, and a new communicator over every GPU must
//!    all-reduce (the child inherits the environment, NCCL_NVLS_ENABLE=0
//!    from `gpu-session.sh soak` too).
//!
//! Last, the drop errors of hip, hipBLAS, hipFFT, hipRAND and RCCL must be
//! none. Prints a table and the last line `soak: N checks passed, N
//! failed; device +X MiB, host +Y MiB; faults: 3 injected, 3 handled`;
//! exits non-zero on any failure, and when a fault could not be injected
//! (one GPU: the kill fault needs two).

use hip::{c32, CompileOptions, Device, DeviceBuffer, LaunchConfig, Module, Stream, TypedKernel};
use hipblas::{Blas, GemmShape, Op};
use hipfft::{PlanBuilder, Transform};
use hiprand::{Generator, RngType};
use rccl::{group, Comm, Job, ReduceOp};
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// One soak thread's body: its tally and the stop flag.
type SoakJob = Box<dyn FnOnce(&Tally, &AtomicBool) + Send>;

const MIB: f64 = 1024.0 * 1024.0;
/// How far memory may move across one fault.
const FAULT_BOUND_MIB: u64 = 64;
/// Set in the re-executed child rank of the kill fault.
const CHILD_VAR: &str = "SOAK_CHILD_RANK";
/// All-reduces the child joins before it stops (the parent enqueues more).
const CHILD_ROUNDS: usize = 40;

const KERNELS: &str = r#"
extern "C" __global__ void bump(unsigned* c) {
    if (blockIdx.x == 0 && threadIdx.x == 0) c[0] += 1u;
}
extern "C" __global__ void fill(float* y, float v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = v + (float)(i % 1024u);
}
extern "C" __global__ void twice(float* y, const float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}
"#;

/// The command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Args {
    seconds: u64,
    warmup: u64,
    bound_mib: u64,
}

impl Args {
    /// Parses `--seconds N`, `--warmup N`, `--bound-mib N`; the warm-up
    /// must end before the run does. Without `--warmup` it is 60 s, or a
    /// third of a shorter run (so that `--seconds 60` works alone).
    fn parse(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
        let mut a = Args {
            seconds: 330,
            warmup: u64::MAX,
            bound_mib: 256,
        };
        let mut it = args.into_iter();
        while let Some(flag) = it.next() {
            let slot = match flag.as_str() {
                "--seconds" => &mut a.seconds,
                "--warmup" => &mut a.warmup,
                "--bound-mib" => &mut a.bound_mib,
                other => return Err(format!("unknown argument {other:?}")),
            };
            let v = it.next().ok_or(format!("{flag} needs a number"))?;
            *slot = v
                .parse()
                .map_err(|_| format!("{flag}: {v:?} is not a whole number"))?;
        }
        if a.warmup == u64::MAX {
            a.warmup = 60.min(a.seconds / 3);
        }
        if a.warmup >= a.seconds {
            return Err(format!(
                "the warm-up ({} s) must end before the run ({} s)",
                a.warmup, a.seconds
            ));
        }
        Ok(a)
    }
}

/// The largest growth of `samples` over `baseline` (bytes; negative when
/// every sample is below it), and whether it stays within `bound`.
fn growth_within(baseline: u64, samples: &[u64], bound: u64) -> (i64, bool) {
    let worst = samples
        .iter()
        .map(|&s| s as i64 - baseline as i64)
        .max()
        .unwrap_or(0);
    (worst, worst <= bound as i64)
}

/// The program's last line.
fn summary_line(
    passed: u64,
    failed: u64,
    device: i64,
    host: i64,
    injected: usize,
    handled: usize,
) -> String {
    format!(
        "soak: {passed} checks passed, {failed} failed; device {:+.0} MiB, host {:+.0} MiB; \
         faults: {injected} injected, {handled} handled",
        device as f64 / MIB,
        host as f64 / MIB
    )
}

/// The resident set of this process (`VmRSS` in /proc/self/status), bytes;
/// an error when the file cannot be read or holds no readable `VmRSS`, so
/// that the host-memory check never passes on a 0 it did not measure.
fn rss_bytes() -> Result<u64, String> {
    let status = std::fs::read_to_string("/proc/self/status")
        .map_err(|e| format!("host memory: /proc/self/status: {e}"))?;
    vm_rss_bytes(&status)
}

/// `VmRSS:  N kB` of a /proc/PID/status text, in bytes.
fn vm_rss_bytes(status: &str) -> Result<u64, String> {
    let value = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .ok_or("host memory: /proc/self/status has no VmRSS line")?;
    let kb = value
        .trim()
        .strip_suffix("kB")
        .and_then(|v| v.trim().parse::<u64>().ok())
        .ok_or_else(|| format!("host memory: unreadable VmRSS {:?}", value.trim()))?;
    Ok(kb * 1024)
}

/// Used memory of each device, bytes.
fn device_used(devices: &[Arc<Device>]) -> Res<Vec<u64>> {
    devices
        .iter()
        .map(|d| {
            let m = d.memory_info()?;
            Ok((m.total - m.free) as u64)
        })
        .collect()
}

/// One memory sample: seconds since the start, used bytes per device, RSS.
#[derive(Clone, Debug)]
struct Sample {
    at: f64,
    device: Vec<u64>,
    host: u64,
}

/// Checks passed and failed under one name, with the first failures.
struct Tally {
    name: String,
    passed: AtomicU64,
    failed: AtomicU64,
    /// When the last check was counted: milliseconds since [`started`].
    last_ms: AtomicU64,
    notes: Mutex<Vec<String>>,
}

/// The program's start, for [`Tally::last_ms`].
fn started() -> Instant {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    *START.get_or_init(Instant::now)
}

impl Tally {
    fn new(name: impl Into<String>) -> Arc<Tally> {
        Arc::new(Tally {
            name: name.into(),
            passed: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            last_ms: AtomicU64::new(0),
            notes: Mutex::new(Vec::new()),
        })
    }

    /// Counts `outcome`; keeps the first three failures' messages.
    fn record(&self, outcome: Res<()>) -> bool {
        self.last_ms
            .store(started().elapsed().as_millis() as u64, Ordering::Relaxed);
        match outcome {
            Ok(()) => {
                self.passed.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(e) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                let mut notes = self.notes.lock().unwrap_or_else(|p| p.into_inner());
                if notes.len() < 3 {
                    eprintln!("soak: {}: FAILED: {e}", self.name);
                    notes.push(e.to_string());
                }
                false
            }
        }
    }

    fn counts(&self) -> (u64, u64) {
        (
            self.passed.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
        )
    }
}

/// A failure unless `ok`.
fn ensure(ok: bool, what: impl FnOnce() -> String) -> Res<()> {
    if ok {
        Ok(())
    } else {
        Err(what().into())
    }
}

/// Runs `setup`, then its iteration until `stop`, counting each one into
/// `tally`; stops early after 5 failures in a row (a broken worker).
fn worker<S, I>(tally: &Tally, stop: &AtomicBool, setup: S)
where
    S: FnOnce() -> Res<I>,
    I: FnMut(u64) -> Res<()>,
{
    let mut iteration = match setup() {
        Ok(i) => i,
        Err(e) => {
            tally.record(Err(format!("setup: {e}").into()));
            return;
        }
    };
    let mut in_a_row = 0;
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        if tally.record(iteration(i)) {
            in_a_row = 0;
        } else {
            in_a_row += 1;
            if in_a_row >= 5 {
                tally.record(Err("stopped after 5 failures in a row".into()));
                return;
            }
        }
        i += 1;
    }
}

/// A small integer in [-3, 3] for matrix entry (i, j), varying along
/// rows and columns (so a transposed or shifted operand shows).
fn small(i: usize, j: usize, salt: usize) -> f32 {
    ((i * 5 + j * 3 + i * j + salt) % 7) as f32 - 3.0
}

fn gemm_job(dev: &Arc<Device>) -> Res<impl FnMut(u64) -> Res<()>> {
    const N: usize = 256;
    let stream = Stream::new(dev)?;
    let blas = Blas::new(&stream)?;
    // Column-major A (N x N), B (N x N); C = A B exactly.
    let a: Vec<f32> = (0..N * N).map(|x| small(x % N, x / N, 1)).collect();
    let b: Vec<f32> = (0..N * N).map(|x| small(x % N, x / N, 4)).collect();
    let mut want = vec![0f32; N * N];
    for j in 0..N {
        for i in 0..N {
            want[i + j * N] = (0..N).map(|k| a[i + k * N] * b[k + j * N]).sum();
        }
    }
    let da = stream.clone_htod(&a)?;
    let db = stream.clone_htod(&b)?;
    let shape = GemmShape::new(Op::N, Op::N, N, N, N);
    Ok(move |_| -> Res<()> {
        let mut dc = stream.alloc::<f32>(N * N)?;
        blas.gemm(&shape, 1.0f32, &da, &db, 0.0, &mut dc)?;
        let got = stream.clone_dtoh(&dc)?;
        let bad = got.iter().zip(&want).filter(|(g, w)| g != w).count();
        ensure(bad == 0, || format!("{bad} of {} entries differ", N * N))
    })
}

fn fft_job(dev: &Arc<Device>) -> Res<impl FnMut(u64) -> Res<()>> {
    const N: usize = 4096;
    const BATCH: usize = 16;
    let stream = Stream::new(dev)?;
    let x: Vec<c32> = (0..N * BATCH)
        .map(|i| {
            let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
            c32::new(
                (h % 2000) as f32 / 1000.0 - 1.0,
                ((h / 2000) % 2000) as f32 / 1000.0 - 1.0,
            )
        })
        .collect();
    let input = stream.clone_htod(&x)?;
    let mut plan = None;
    Ok(move |i: u64| -> Res<()> {
        // A new plan now and then: creation and destruction soak too.
        if i % 25 == 0 {
            plan = None;
        }
        if plan.is_none() {
            plan = Some(
                PlanBuilder::<f32>::new(Transform::C2C, &[N])
                    .batch(BATCH)
                    .build(&stream)?,
            );
        }
        let p = plan.as_ref().ok_or("no plan")?;
        let mut freq = stream.alloc::<c32>(N * BATCH)?;
        let mut back = stream.alloc::<c32>(N * BATCH)?;
        p.execute_forward(&input, &mut freq)?;
        p.execute_inverse(&mut freq, &mut back)?;
        let got = stream.clone_dtoh(&back)?;
        let worst = got
            .iter()
            .zip(&x)
            .map(|(g, w)| {
                (g.re / N as f32 - w.re)
                    .abs()
                    .max((g.im / N as f32 - w.im).abs())
            })
            .fold(0f32, f32::max);
        ensure(worst <= 1e-4, || {
            format!("round trip off by {worst:e} (bound 1e-4)")
        })
    })
}

fn rand_job(dev: &Arc<Device>) -> Res<impl FnMut(u64) -> Res<()>> {
    const N: usize = 1 << 22;
    let stream = Stream::new(dev)?;
    let mut generator = None;
    let mut buf = DeviceBuffer::<f32>::zeroed(dev, N)?;
    Ok(move |i: u64| -> Res<()> {
        if i % 25 == 0 {
            generator = None;
        }
        if generator.is_none() {
            generator = Some(Generator::new(&stream, RngType::Xorwow)?);
        }
        let g = generator.as_mut().ok_or("no generator")?;
        g.set_seed(0x5EED + i)?;
        g.fill_uniform(&mut buf)?;
        let u = stream.clone_dtoh(&buf)?;
        let outside = u.iter().filter(|&&v| !(v > 0.0 && v <= 1.0)).count();
        let mean = u.iter().map(|&v| v as f64).sum::<f64>() / N as f64;
        ensure(outside == 0 && (mean - 0.5).abs() <= 0.002, || {
            format!("uniform: {outside} outside (0, 1], mean {mean} (want 0.5 +- 0.002)")
        })?;
        g.fill_normal(&mut buf, 0.0, 1.0)?;
        let z = stream.clone_dtoh(&buf)?;
        let mean = z.iter().map(|&v| v as f64).sum::<f64>() / N as f64;
        let var = z.iter().map(|&v| (v as f64 - mean).powi(2)).sum::<f64>() / N as f64;
        let sd = var.sqrt();
        ensure(mean.abs() <= 0.005 && (sd - 1.0).abs() <= 0.005, || {
            format!("normal: mean {mean}, sd {sd} (want 0 +- 0.005, 1 +- 0.005)")
        })
    })
}

/// Rank `r`'s all-reduce input: integers, so the sum is exact.
fn rank_value(r: usize, i: usize, round: u64) -> f32 {
    ((i + r * 31 + round as usize) % 1000) as f32
}

fn rccl_job(devices: &[Arc<Device>]) -> Res<impl FnMut(u64) -> Res<()>> {
    const N: usize = 1 << 20;
    let comms = Comm::from_devices(devices)?;
    let streams = devices
        .iter()
        .map(Stream::new)
        .collect::<hip::Result<Vec<_>>>()?;
    let ranks = devices.len();
    Ok(move |round: u64| -> Res<()> {
        let mut bufs = Vec::with_capacity(ranks);
        for (r, s) in streams.iter().enumerate() {
            let host: Vec<f32> = (0..N).map(|i| rank_value(r, i, round)).collect();
            bufs.push(s.clone_htod(&host)?);
        }
        group(|| {
            for ((c, s), b) in comms.iter().zip(&streams).zip(bufs.iter_mut()) {
                c.all_reduce_in_place(b, ReduceOp::Sum, s)?;
            }
            Ok(())
        })?;
        for (c, s) in comms.iter().zip(&streams) {
            c.wait(s, Duration::from_secs(60))?;
        }
        for (s, b) in streams.iter().zip(&bufs) {
            let got = s.clone_dtoh(b)?;
            let bad = (0..N)
                .filter(|&i| got[i] != (0..ranks).map(|r| rank_value(r, i, round)).sum::<f32>())
                .count();
            ensure(bad == 0, || format!("{bad} of {N} sums differ"))?;
        }
        Ok(())
    })
}

fn copy_job(dev: &Arc<Device>) -> Res<impl FnMut(u64) -> Res<()>> {
    // 24 MiB: above staging::MIN_BYTES, so staged, several chunks.
    const N: usize = 6 << 20;
    let stream = Stream::new(dev)?;
    let mut host = vec![0u32; N];
    let mut back = vec![0u32; N];
    let mut dbuf = DeviceBuffer::<u32>::zeroed(dev, N)?;
    Ok(move |i: u64| -> Res<()> {
        for (k, v) in host.iter_mut().enumerate() {
            *v = (k as u32).wrapping_mul(2_654_435_761) ^ i as u32;
        }
        stream.copy_htod(&host, &mut dbuf)?;
        stream.copy_dtoh(&dbuf, &mut back)?;
        let bad = host.iter().zip(&back).filter(|(a, b)| a != b).count();
        ensure(bad == 0, || format!("{bad} of {N} words differ"))
    })
}

/// The three kernels of [`KERNELS`] on one device.
struct Kernels {
    bump: TypedKernel<(*mut u32,)>,
    fill: TypedKernel<(*mut f32, f32, u32)>,
    twice: TypedKernel<(*mut f32, *const f32, u32)>,
}

impl Kernels {
    fn load(module: &Module) -> Res<Kernels> {
        // SAFETY: the parameter lists match KERNELS' declarations.
        unsafe {
            Ok(Kernels {
                bump: TypedKernel::new(module.function("bump")?),
                fill: TypedKernel::new(module.function("fill")?),
                twice: TypedKernel::new(module.function("twice")?),
            })
        }
    }
}

fn graph_job(module: &Module) -> Res<impl FnMut(u64) -> Res<()>> {
    const BUMPS: u32 = 10;
    const REPLAYS: u32 = 20;
    let k = Kernels::load(module)?;
    // Blocking, the strict case: work of ours on the legacy default
    // stream, on any thread, would invalidate its captures.
    let stream = Stream::new(module.device())?;
    let mut counter = DeviceBuffer::<u32>::zeroed(module.device(), 1)?;
    let mut want = 0u32;
    Ok(move |_| -> Res<()> {
        {
            let (bump, c) = (&k.bump, &mut counter);
            // SAFETY: the graph uses only `counter` (one element; bump
            // touches element 0), borrowed while the graph lives.
            let graph = unsafe {
                stream.capture(move |s| {
                    for _ in 0..BUMPS {
                        bump.launch(s, LaunchConfig::for_num_elems(1), (&mut *c,))?;
                    }
                    Ok(())
                })
            }?;
            let mut exec = graph.instantiate()?;
            for _ in 0..REPLAYS {
                exec.launch(&stream)?;
            }
            stream.synchronize()?;
        }
        want = want.wrapping_add(BUMPS * REPLAYS);
        let got = stream.clone_dtoh(&counter)?[0];
        ensure(got == want, || format!("counter {got}, want {want}"))
    })
}

fn releases_job(module: &Module) -> Res<impl FnMut(u64) -> Res<()>> {
    const N: usize = 1 << 16;
    let dev = module.device().clone();
    let image = hip::compile(KERNELS, &CompileOptions::for_device(&dev)?)?.code;
    let stream = Stream::new(&dev)?;
    Ok(move |i: u64| -> Res<()> {
        let b = DeviceBuffer::<u32>::zeroed(&dev, N)?;
        let v = stream.clone_dtoh(&b)?;
        let bad = v.iter().filter(|&&x| x != 0).count();
        ensure(bad == 0, || format!("{bad} of {N} words not zeroed"))?;
        drop(b);
        drop(Blas::new(&stream)?);
        drop(Module::load_data(&dev, &image)?);
        drop(hip::PinnedHostBuffer::<u32>::zeroed(N)?);
        if i % 10 == 0 {
            dev.synchronize()?;
        }
        Ok(())
    })
}

fn streams_job(module: &Module) -> Res<impl FnMut(u64) -> Res<()>> {
    const N: usize = 1 << 22;
    let k = Kernels::load(module)?;
    let dev = module.device().clone();
    let (s1, s2) = (Stream::new(&dev)?, Stream::new(&dev)?);
    let cfg = LaunchConfig::for_num_elems(N as u32);
    Ok(move |i: u64| -> Res<()> {
        let v = (i % 4096) as f32;
        let mut x = s1.alloc::<f32>(N)?;
        let mut y = s2.alloc::<f32>(N)?;
        // SAFETY: both kernels index below N, the buffers' length; the
        // tracking orders s2's read of `x` after s1's write, and s1's read
        // of `y` after s2's write.
        unsafe {
            k.fill.launch(&s1, cfg, (&mut x, v, N as u32))?;
            k.twice.launch(&s2, cfg, (&mut y, &x, N as u32))?;
        }
        let got = s1.clone_dtoh(&y)?;
        // `x` (of s1) was read on s2 and `y` (of s2) on s1: dropped here,
        // each free waits for the other stream's use.
        drop((x, y));
        let bad = (0..N)
            .filter(|&j| got[j] != 2.0 * (v + (j % 1024) as f32))
            .count();
        ensure(bad == 0, || format!("{bad} of {N} values differ"))
    })
}

/// Prints the checks' table; returns the passed and failed totals.
fn print_table(board: &[Arc<Tally>]) -> (u64, u64) {
    println!();
    println!("| what | checks passed | failed | last at | first failure |");
    println!("|---|---|---|---|---|");
    let (mut passed, mut failed) = (0, 0);
    for t in board {
        let (p, f) = t.counts();
        passed += p;
        failed += f;
        let notes = t.notes.lock().unwrap_or_else(|p| p.into_inner());
        println!(
            "| {} | {p} | {f} | {:.0} s | {} |",
            t.name,
            t.last_ms.load(Ordering::Relaxed) as f64 / 1000.0,
            notes.first().map_or("", |s| s.as_str()).replace('|', "/")
        );
    }
    (passed, failed)
}

/// Seconds past `--seconds` after which the program is taken as hung.
const WATCHDOG_SECONDS: u64 = 150;

/// Unless `done` by `limit` after `start`: prints the table so far and
/// the phase that hung, then aborts (a thread stuck inside the driver
/// could keep an orderly exit waiting too).
fn watchdog(
    start: Instant,
    limit: Duration,
    board: &[Arc<Tally>],
    phase: &Mutex<&str>,
    done: &AtomicBool,
) {
    while start.elapsed() < limit {
        if done.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    if done.load(Ordering::SeqCst) {
        return;
    }
    let at = *phase.lock().unwrap_or_else(|p| p.into_inner());
    let (passed, failed) = print_table(board);
    println!();
    println!("soak: watchdog: still in \"{at}\" after {limit:?}: hung; aborting");
    println!("soak: {passed} checks passed, {failed} failed, then hung in \"{at}\"");
    use std::io::Write;
    let _ = std::io::stdout().flush();
    std::process::abort();
}

/// The memory sampler: every 2 s until `stop`.
fn sampler(
    devices: Vec<Arc<Device>>,
    start: Instant,
    stop: Arc<AtomicBool>,
    samples: Arc<Mutex<Vec<Sample>>>,
    errors: Arc<Tally>,
) {
    while !stop.load(Ordering::Relaxed) {
        match device_used(&devices).map_err(|e| format!("memory_info: {e}")) {
            Ok(device) => match rss_bytes() {
                Ok(host) => samples
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push(Sample {
                        at: start.elapsed().as_secs_f64(),
                        device,
                        host,
                    }),
                Err(e) => {
                    errors.record(Err(e.into()));
                }
            },
            Err(e) => {
                errors.record(Err(e.into()));
            }
        }
        let until = Instant::now() + Duration::from_secs(2);
        while Instant::now() < until && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Memory of every device and the host now.
fn snapshot(devices: &[Arc<Device>]) -> Res<(Vec<u64>, u64)> {
    Ok((device_used(devices)?, rss_bytes()?))
}

/// Checks that memory moved by at most [`FAULT_BOUND_MIB`] from `before`,
/// looking again for up to 5 s (frees in stream order, and a killed
/// process's memory, are released asynchronously).
fn memory_kept(devices: &[Arc<Device>], before: &(Vec<u64>, u64)) -> Res<()> {
    let bound = FAULT_BOUND_MIB << 20;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let after = snapshot(devices)?;
        let mut verdict = Ok(());
        for (d, (b, a)) in before.0.iter().zip(&after.0).enumerate() {
            let (g, ok) = growth_within(*b, &[*a], bound);
            if !ok && verdict.is_ok() {
                verdict = Err(format!(
                    "device {d} grew {:.1} MiB (bound {FAULT_BOUND_MIB})",
                    g as f64 / MIB
                ));
            }
        }
        let (g, ok) = growth_within(before.1, &[after.1], bound);
        if !ok && verdict.is_ok() {
            verdict = Err(format!(
                "host RSS grew {:.1} MiB (bound {FAULT_BOUND_MIB})",
                g as f64 / MIB
            ));
        }
        match verdict {
            Ok(()) => return Ok(()),
            Err(e) if Instant::now() >= deadline => return Err(e.into()),
            Err(_) => std::thread::sleep(Duration::from_millis(250)),
        }
    }
}

/// No drop errors recorded since the last call, in any library.
fn no_drop_errors() -> Res<()> {
    let all: Vec<String> = hip::take_drop_errors()
        .iter()
        .map(|e| format!("hip: {e}"))
        .chain(
            hipblas::take_drop_errors()
                .iter()
                .map(|e| format!("hipblas: {e}")),
        )
        .chain(
            hipfft::take_drop_errors()
                .iter()
                .map(|e| format!("hipfft: {e}")),
        )
        .chain(
            hiprand::take_drop_errors()
                .iter()
                .map(|e| format!("hiprand: {e}")),
        )
        .chain(
            rccl::take_drop_errors()
                .iter()
                .map(|e| format!("rccl: {e}")),
        )
        .collect();
    ensure(all.is_empty(), || format!("drop errors: {all:?}"))
}

/// Fault 1: pinned allocations fail during staged copies.
fn fault_pinned(devices: &[Arc<Device>], tally: &Tally) {
    let dev = &devices[0];
    let run = || -> Res<()> {
        const N: usize = 4 << 20; // 16 MiB of u32: staged
        let stream = Stream::new(dev)?;
        let host: Vec<u32> = (0..N as u32)
            .map(|k| k.wrapping_mul(0x0101_0101) ^ 0xA5A5)
            .collect();
        let mut dbuf = DeviceBuffer::<u32>::zeroed(dev, N)?;
        let mut back = vec![0u32; N];
        // Warm: a staged copy each way, so the pool holds a ring.
        stream.copy_htod(&host, &mut dbuf)?;
        stream.copy_dtoh(&dbuf, &mut back)?;
        let before = snapshot(devices)?;
        hip::staging::fail_next_pinned_allocations(3);
        for round in 0..3 {
            // Both ends cleared: a copy that did nothing shows.
            back.iter_mut().for_each(|v| *v = 0);
            if round % 2 == 0 {
                stream.memset_zeros(&mut dbuf)?;
                stream.copy_htod(&host, &mut dbuf)?;
                stream.clone_dtoh(&dbuf)?.clone_into(&mut back);
            } else {
                stream.copy_dtoh(&dbuf, &mut back)?;
            }
            ensure(back == host, || {
                format!("copy {round} under the fault differs")
            })?;
        }
        let left = hip::staging::pinned_failures_armed();
        ensure(left == 0, || {
            format!("{left} armed pinned failures not reached: the copies did not stage")
        })?;
        // Staged again from the pool.
        back.iter_mut().for_each(|v| *v = 0);
        stream.memset_zeros(&mut dbuf)?;
        stream.copy_htod(&host, &mut dbuf)?;
        stream.copy_dtoh(&dbuf, &mut back)?;
        ensure(back == host, || {
            "the staged copy after the fault differs".into()
        })?;
        drop((dbuf, stream));
        memory_kept(devices, &before)?;
        no_drop_errors()
    };
    let outcome = run();
    hip::staging::fail_next_pinned_allocations(0);
    tally.record(outcome);
}

/// torchrun's variables for `rank` of 2 on `port`.
fn job_vars(rank: usize, port: u16, job_id: &str) -> HashMap<String, String> {
    [
        ("RANK", rank.to_string()),
        ("WORLD_SIZE", "2".to_string()),
        ("LOCAL_RANK", rank.to_string()),
        ("MASTER_ADDR", "127.0.0.1".to_string()),
        ("MASTER_PORT", port.to_string()),
        (rccl::rendezvous::JOB_ID_VAR, job_id.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The all-reduce buffer of the kill fault: 64 MiB of f32.
const KILL_LEN: usize = 16 << 20;

/// The child rank of fault 2: joins, all-reduces [`CHILD_ROUNDS`] times,
/// says `busy`, then waits to be killed.
fn child_rank() -> Res<()> {
    let job = Job::from_env()?;
    let device = Device::get(job.local_rank)?;
    let comm = Comm::from_job(&job, &device, Duration::from_secs(60))?;
    let stream = Stream::new(&device)?;
    let mut buf = DeviceBuffer::<f32>::zeroed(&device, KILL_LEN)?;
    for _ in 0..CHILD_ROUNDS {
        comm.all_reduce_in_place(&mut buf, ReduceOp::Sum, &stream)?;
    }
    comm.wait(&stream, Duration::from_secs(60))?;
    println!("busy");
    // Never joins the parent's next all-reduce: the parent is inside it
    // when this process is killed.
    std::thread::sleep(Duration::from_secs(600));
    Err("the child rank was not killed".into())
}

/// Rank 0's side of fault 2 once joined: the child's rounds and more it
/// never joins, the kill while inside them, and the wait that must fail.
fn kill_inside_collective(
    comm: &Comm,
    stream: &Stream,
    buf: &mut DeviceBuffer<f32>,
    child: &mut Child,
    said: &mpsc::Receiver<String>,
) -> Res<()> {
    for _ in 0..CHILD_ROUNDS + 8 {
        comm.all_reduce_in_place(buf, ReduceOp::Sum, stream)?;
    }
    let line = said.recv_timeout(Duration::from_secs(60))?;
    ensure(line == "busy", || format!("child said {line:?}"))?;
    std::thread::sleep(Duration::from_millis(500));
    ensure(!stream.query()?, || {
        "the all-reduces finished without the child".into()
    })?;
    child.kill()?; // SIGKILL, inside the collective
    let timeout = Duration::from_secs(15);
    let start = Instant::now();
    let r = comm.wait(stream, timeout);
    let took = start.elapsed();
    println!("soak: kill fault: Comm::wait returned after {took:.1?}: {r:?}");
    ensure(r.is_err(), || "the wait succeeded without the peer".into())?;
    ensure(took < timeout + Duration::from_secs(20), || {
        format!("the wait took {took:?}")
    })?;
    let again = comm.all_reduce_in_place(buf, ReduceOp::Sum, stream);
    ensure(again.is_err(), || {
        "the aborted communicator took work".into()
    })
}

/// Fault 2: a rank killed during a collective (needs two GPUs).
fn fault_kill(devices: &[Arc<Device>], tally: &Tally) {
    let run = || -> Res<()> {
        let dev = &devices[0];
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let job_id = format!("soak-{}-{port}", std::process::id());
        let before = snapshot(devices)?;
        let mut child: Child = Command::new(std::env::current_exe()?)
            .envs(job_vars(1, port, &job_id))
            .env(CHILD_VAR, "1")
            .stdout(Stdio::piped())
            .spawn()?;
        let stdout = child.stdout.take().ok_or("no child stdout")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let outcome = (|| -> Res<()> {
            let vars = job_vars(0, port, &job_id);
            let job = Job::from_vars(|k| vars.get(k).cloned())?;
            let comm = Comm::from_job(&job, dev, Duration::from_secs(60))?;
            let stream = Stream::new(dev)?;
            let mut buf = DeviceBuffer::<f32>::zeroed(dev, KILL_LEN)?;
            let inside = kill_inside_collective(&comm, &stream, &mut buf, &mut child, &rx);
            if inside.is_err() {
                // Whatever failed, no collective may stay stuck.
                let _ = comm.abort();
            }
            // The abort stops the stuck kernel: the stream must come free
            // (or report its own error). Polled, not synchronized, and the
            // buffer freed only then (hipFree waits for the device), so
            // that a stuck stream is a failure, not a hang.
            let freed = Instant::now();
            let free = loop {
                match stream.query() {
                    Ok(true) => break Ok(()),
                    Ok(false) if freed.elapsed() < Duration::from_secs(20) => {
                        std::thread::sleep(Duration::from_millis(50));
                    }
                    Ok(false) => break Err("the stream is still busy 20 s after the abort"),
                    Err(e) => {
                        println!("soak: kill fault: the stream reports {e}");
                        break Ok(());
                    }
                }
            };
            if free.is_err() {
                std::mem::forget((buf, comm, stream));
            } else {
                drop((buf, comm, stream));
            }
            inside?;
            Ok(free?)
        })();
        let _ = child.kill();
        let status = child.wait()?;
        outcome?;
        ensure(!status.success(), || "the child exited by itself".into())?;
        memory_kept(devices, &before)?;
        // A new communicator over every GPU works.
        let mut check = rccl_job(devices)?;
        check(7)?;
        drop(check);
        no_drop_errors()
    };
    tally.record(run());
}

/// Fault 3: corrupted module images.
fn fault_module(devices: &[Arc<Device>], tally: &Tally) {
    let run = || -> Res<()> {
        let dev = &devices[0];
        let image = hip::compile(KERNELS, &CompileOptions::for_device(dev)?)?.code;
        drop(Module::load_data(dev, &image)?);
        let before = snapshot(devices)?;
        let mut magic = image.clone();
        magic.iter_mut().take(4).for_each(|b| *b ^= 0xFF);
        let mut sprinkled = image.clone();
        sprinkled.iter_mut().step_by(97).for_each(|b| *b ^= 0xFF);
        let corrupt = [
            ("truncated to half", image[..image.len() / 2].to_vec()),
            ("magic flipped", magic),
            ("every 97th byte flipped", sprinkled),
        ];
        for (what, bad) in &corrupt {
            match Module::load_data(dev, bad) {
                Ok(_) => return Err(format!("an image {what} loaded").into()),
                Err(e) => println!("soak: module fault: {what}: rejected: {e}"),
            }
        }
        let module = Module::load_data(dev, &image)?;
        let mut graph = graph_job(&module)?;
        graph(0)?;
        drop((graph, module));
        memory_kept(devices, &before)?;
        no_drop_errors()
    };
    tally.record(run());
}

fn main() {
    if std::env::var_os(CHILD_VAR).is_some() {
        if let Err(e) = child_rank() {
            eprintln!("soak child rank: {e}");
        }
        std::process::exit(3);
    }
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("soak: {e}\nusage: soak [--seconds N] [--warmup N] [--bound-mib N]");
            std::process::exit(2);
        }
    };
    match run(args) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("soak: {e}");
            std::process::exit(1);
        }
    }
}

fn run(args: Args) -> Res<bool> {
    let start = started();
    let all = Device::all()?;
    let devices: Vec<Arc<Device>> = all.into_iter().take(2).collect();
    ensure(!devices.is_empty(), || "no GPU".into())?;
    let names = devices
        .iter()
        .map(|d| d.name())
        .collect::<hip::Result<Vec<_>>>()?;
    println!(
        "soak: {} s ({} s warm-up), bound +{} MiB; GPUs: {}",
        args.seconds,
        args.warmup,
        args.bound_mib,
        names.join(", ")
    );
    let d0 = devices[0].clone();
    let d_last = devices[devices.len() - 1].clone();
    let module = Module::compile(&d0, KERNELS)?;

    let stop = Arc::new(AtomicBool::new(false));
    let samples = Arc::new(Mutex::new(Vec::new()));
    let mem_errors = Tally::new("memory sampling");
    let mut tallies = Vec::new();
    let mut threads = Vec::new();
    {
        let (devs, st, sm, er) = (
            devices.clone(),
            stop.clone(),
            samples.clone(),
            mem_errors.clone(),
        );
        threads.push(std::thread::spawn(move || sampler(devs, start, st, sm, er)));
    }
    // SOAK_ONLY (comma-separated parts of job names): run only those
    // jobs, for narrowing down a failure; the faults still run.
    let only = std::env::var("SOAK_ONLY").ok();
    let mut spawn = |name: String, job: SoakJob| {
        if let Some(only) = &only {
            if !only.split(',').any(|w| !w.is_empty() && name.contains(w)) {
                return;
            }
        }
        let t = Tally::new(name);
        tallies.push(t.clone());
        let st = stop.clone();
        threads.push(std::thread::spawn(move || job(&t, &st)));
    };
    let d = d0.clone();
    spawn(
        "gemm (hipBLAS)".into(),
        Box::new(move |t, s| worker(t, s, || gemm_job(&d))),
    );
    let d = d_last.clone();
    spawn(
        "fft (hipFFT)".into(),
        Box::new(move |t, s| worker(t, s, || fft_job(&d))),
    );
    let d = d0.clone();
    spawn(
        "rand (hipRAND)".into(),
        Box::new(move |t, s| worker(t, s, || rand_job(&d))),
    );
    let ds = devices.clone();
    spawn(
        "all-reduce (RCCL, one process)".into(),
        Box::new(move |t, s| worker(t, s, || rccl_job(&ds))),
    );
    for dev in &devices {
        let d = dev.clone();
        spawn(
            format!("staged copies, GPU {}", d.ordinal()),
            Box::new(move |t, s| worker(t, s, || copy_job(&d))),
        );
    }
    let m = module.clone();
    spawn(
        "graph replays".into(),
        Box::new(move |t, s| worker(t, s, || graph_job(&m))),
    );
    let m = module.clone();
    spawn(
        "device-wide releases".into(),
        Box::new(move |t, s| worker(t, s, || releases_job(&m))),
    );
    let m = module.clone();
    spawn(
        "allocations across streams".into(),
        Box::new(move |t, s| worker(t, s, || streams_job(&m))),
    );

    let faults = [
        Tally::new("fault: pinned memory runs out while staging"),
        Tally::new("fault: a rank killed inside a collective"),
        Tally::new("fault: corrupted module images"),
    ];
    let checks = Tally::new("memory and drop errors");
    let board: Vec<Arc<Tally>> = tallies
        .iter()
        .chain(faults.iter())
        .chain([&mem_errors, &checks])
        .cloned()
        .collect();
    let phase = Arc::new(Mutex::new("mixing"));
    let done = Arc::new(AtomicBool::new(false));
    {
        let (board, phase, done) = (board.clone(), phase.clone(), done.clone());
        let limit = Duration::from_secs(args.seconds + WATCHDOG_SECONDS);
        std::thread::spawn(move || watchdog(start, limit, &board, &phase, &done));
    }
    let enter = |name: &'static str| {
        *phase.lock().unwrap_or_else(|p| p.into_inner()) = name;
    };

    while start.elapsed() < Duration::from_secs(args.seconds) {
        std::thread::sleep(Duration::from_millis(200));
    }
    enter("stopping the soak threads");
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        if t.join().is_err() {
            mem_errors.record(Err("a soak thread panicked".into()));
        }
    }
    let mixed_for = start.elapsed().as_secs_f64();
    for d in &devices {
        d.synchronize()?;
    }

    // The faults; the kill last: should it wedge a GPU, the others are
    // done. No device synchronize after it, for the same reason.
    enter("fault: pinned memory runs out while staging");
    fault_pinned(&devices, &faults[0]);
    enter("fault: corrupted module images");
    fault_module(&devices, &faults[2]);
    drop(module);
    enter("fault: a rank killed inside a collective");
    let injected = if devices.len() >= 2 {
        fault_kill(&devices, &faults[1]);
        3
    } else {
        println!("soak: the kill fault needs two GPUs: not injected");
        2
    };

    // Memory against the warm-up's level, and the drop errors.
    enter("the last checks");
    let final_level = snapshot(&devices)?;
    let samples = samples.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let baseline = samples
        .iter()
        .find(|s| s.at >= args.warmup as f64)
        .cloned()
        .ok_or("no memory sample after the warm-up")?;
    let later: Vec<&Sample> = samples.iter().filter(|s| s.at >= baseline.at).collect();
    let bound = args.bound_mib << 20;
    let mut worst_device = i64::MIN;
    let mut memory_rows = Vec::new();
    for (d, base) in baseline.device.iter().enumerate() {
        let mut series: Vec<u64> = later.iter().map(|s| s.device[d]).collect();
        series.push(final_level.0[d]);
        let (g, ok) = growth_within(*base, &series, bound);
        let end = final_level.0[d] as i64 - *base as i64;
        worst_device = worst_device.max(end);
        memory_rows.push(format!(
            "| device {d} used | {:.0} MiB | {:+.1} MiB | {:+.1} MiB |",
            *base as f64 / MIB,
            g as f64 / MIB,
            end as f64 / MIB
        ));
        checks.record(ensure(ok, || {
            format!(
                "device {d} grew {:.1} MiB after the warm-up (bound {})",
                g as f64 / MIB,
                args.bound_mib
            )
        }));
    }
    let mut host_series: Vec<u64> = later.iter().map(|s| s.host).collect();
    host_series.push(final_level.1);
    let (hg, hok) = growth_within(baseline.host, &host_series, bound);
    let host_end = final_level.1 as i64 - baseline.host as i64;
    memory_rows.push(format!(
        "| host RSS | {:.0} MiB | {:+.1} MiB | {:+.1} MiB |",
        baseline.host as f64 / MIB,
        hg as f64 / MIB,
        host_end as f64 / MIB
    ));
    checks.record(ensure(hok, || {
        format!(
            "host RSS grew {:.1} MiB after the warm-up (bound {})",
            hg as f64 / MIB,
            args.bound_mib
        )
    }));
    checks.record(no_drop_errors());

    // The table.
    done.store(true, Ordering::SeqCst);
    let (passed, failed) = print_table(&board);
    println!();
    println!(
        "memory: {} samples over {mixed_for:.0} s of mixing; baseline at {:.0} s",
        samples.len(),
        baseline.at
    );
    println!("| memory | baseline | worst after warm-up | at the end |");
    println!("|---|---|---|---|");
    for r in &memory_rows {
        println!("{r}");
    }
    let handled = faults
        .iter()
        .filter(|t| {
            let (p, f) = t.counts();
            p > 0 && f == 0
        })
        .count();
    println!();
    println!(
        "{}",
        summary_line(passed, failed, worst_device, host_end, injected, handled)
    );
    // Every fault must have been injected: a run that could not inject one
    // (one GPU: no kill fault) proves less, and says so by failing.
    let all = faults.len();
    if injected < all {
        println!("soak: FAILED: only {injected} of {all} faults were injected (the kill fault needs two GPUs)");
    }
    Ok(failed == 0 && handled == injected && injected == all && mixed_for >= args.seconds as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(v: &[&str]) -> Result<Args, String> {
        Args::parse(v.iter().map(|s| s.to_string()))
    }

    #[test]
    fn arguments_default_and_parse() {
        assert_eq!(
            parse(&[]).unwrap(),
            Args {
                seconds: 330,
                warmup: 60,
                bound_mib: 256
            }
        );
        assert_eq!(
            parse(&["--seconds", "20", "--warmup", "5", "--bound-mib", "64"]).unwrap(),
            Args {
                seconds: 20,
                warmup: 5,
                bound_mib: 64
            }
        );
        // A short run without --warmup warms up for a third of it.
        assert_eq!(parse(&["--seconds", "60"]).unwrap().warmup, 20);
        assert_eq!(parse(&["--seconds", "180"]).unwrap().warmup, 60);
    }

    #[test]
    fn bad_arguments_are_refused() {
        assert!(parse(&["--seconds"])
            .unwrap_err()
            .contains("needs a number"));
        assert!(parse(&["--seconds", "ten"])
            .unwrap_err()
            .contains("not a whole number"));
        assert!(parse(&["--minutes", "5"])
            .unwrap_err()
            .contains("unknown argument"));
        // The baseline is taken after the warm-up: it must fall in the run.
        assert!(parse(&["--seconds", "60", "--warmup", "60"])
            .unwrap_err()
            .contains("warm-up"));
        assert!(parse(&["--seconds", "0"]).unwrap_err().contains("warm-up"));
    }

    #[test]
    fn growth_is_the_worst_sample_over_the_baseline() {
        let mib = 1 << 20;
        assert_eq!(
            growth_within(100 * mib, &[90 * mib, 356 * mib], 256 * mib),
            (256 * mib as i64, true)
        );
        assert_eq!(
            growth_within(100 * mib, &[357 * mib, 90 * mib], 256 * mib),
            (257 * mib as i64, false)
        );
        assert_eq!(growth_within(100, &[40, 60], 0), (-40, true));
        assert_eq!(growth_within(100, &[], 0), (0, true));
    }

    #[test]
    fn the_last_line_has_the_promised_shape() {
        let mib = 1 << 20;
        assert_eq!(
            summary_line(10, 0, 12 * mib, -3 * mib, 3, 3),
            "soak: 10 checks passed, 0 failed; device +12 MiB, host -3 MiB; faults: 3 injected, 3 handled"
        );
    }

    #[test]
    fn a_tally_counts_and_keeps_the_first_failures() {
        let t = Tally::new("t");
        assert!(t.record(Ok(())));
        for i in 0..5 {
            assert!(!t.record(Err(format!("bad {i}").into())));
        }
        assert_eq!(t.counts(), (1, 5));
        assert_eq!(t.notes.lock().unwrap().len(), 3);
        assert_eq!(t.notes.lock().unwrap()[0], "bad 0");
    }

    #[test]
    fn the_rss_is_read_or_an_error() {
        // Linux only, as the GPU machine: a running test has some RSS.
        assert!(rss_bytes().unwrap() > 0);
        assert_eq!(
            vm_rss_bytes("Name:\tsoak\nVmRSS:\t  2048 kB\n"),
            Ok(2048 * 1024)
        );
        // What used to read as 0: no line, or one that is not a number.
        assert!(vm_rss_bytes("Name:\tsoak\n")
            .unwrap_err()
            .contains("no VmRSS line"));
        assert!(vm_rss_bytes("VmRSS:\t  lots kB\n")
            .unwrap_err()
            .contains("unreadable VmRSS"));
        assert!(vm_rss_bytes("VmRSS:\t  12 MB\n").is_err());
    }

    #[test]
    fn a_worker_stops_after_five_failures_in_a_row() {
        let t = Tally::new("w");
        let stop = AtomicBool::new(false);
        worker(&t, &stop, || {
            Ok(|i: u64| -> Res<()> { ensure(i < 3, || "late".into()) })
        });
        // 3 passes, 5 failures, then the stop note.
        assert_eq!(t.counts(), (3, 6));
    }
}
