//! All-reduce bandwidth over every visible GPU from one process
//! (`Comm::from_devices`, one call per rank inside a `Group`), the way
//! nccl-tests' `all_reduce_perf` reports it, beside `torch.distributed`'s
//! all-reduce measured on the same machine.
//!
//! ```text
//! python3 benches/torch_allreduce.py > torch_allreduce.txt    # the baseline
//! HIP_PLATFORM=nvidia ./target/release/examples/allreduce_bench torch_allreduce.txt
//! ```
//!
//! Under a launcher's variables (torchrun's, srun's, mpirun's: see
//! [`rccl::Job::from_env`]) it runs one rank per process instead, on the
//! GPU of its local rank, joined by `Comm::from_job`; rank 0 reads the
//! baseline and prints the table.
//!
//! Message sizes 8 MiB to 1 GiB (powers of two), f32, sum, out-of-place
//! (`all_reduce`) and in-place (`all_reduce_in_place`). For each: 5 warm-up
//! all-reduces, then 20 back to back on each rank's stream between two HIP
//! events; the time of one is the slowest rank's elapsed time / 20 (an
//! all-reduce with `Max` of every rank's time).
//! `algbw = bytes / time`, `busbw = algbw * 2 (n - 1) / n` for n GPUs
//! (GB = 1e9 bytes), as `all_reduce_perf` prints them; torch_allreduce.py
//! measures the same way. torch's all-reduce is in place only, so the
//! ratio is in-place against in-place; the out-of-place column is shown
//! beside it.
//!
//! Before timing, one out-of-place all-reduce of random data (different
//! on every rank) is checked against the sum computed on the CPU, element
//! by element, within `1e-6 * sum |x|` (n f32 additions).
//!
//! The last line is
//! `allreduce_bench: ratio at 256 MiB X.XX, at 1 GiB X.XX; target >= 0.95: met`
//! (or `NOT met`): the lower of the two against the target.
//! Exits with status 1 when it cannot measure (fewer than two GPUs,
//! saying what it found; no RCCL/NCCL), when the check fails, or when the
//! baseline is missing, unreadable, from another number of GPUs, or lacks
//! a size (the table is printed first).

#[path = "common/mod.rs"]
mod common;

use hip::{Device, DeviceBuffer, Event, Stream};
use rand::{Rng, SeedableRng};
use rccl::{Comm, Element, Job, ReduceOp, RendezvousError};
use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

const WARMUP: usize = 5;
const ITERS: usize = 20;
const MIB: usize = 1 << 20;
/// 8 MiB, 16 MiB, ..., 1 GiB.
const SIZES: [usize; 8] = [
    8 * MIB,
    16 * MIB,
    32 * MIB,
    64 * MIB,
    128 * MIB,
    256 * MIB,
    512 * MIB,
    1024 * MIB,
];
/// The sizes of the summary line.
const HEADLINE: [usize; 2] = [256 * MIB, 1024 * MIB];
const CHECK_BOUND: f64 = 1e-6;
/// How long a rank waits for the others to join (one rank per process).
const RENDEZVOUS_TIMEOUT: Duration = Duration::from_secs(120);

fn main() -> ExitCode {
    match measure_against_torch() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("allreduce_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The baseline named by the first argument (read by rank 0, before any
/// rank joins, so that a bad one stops the job before a collective could
/// wait for rank 0 forever), the communicators, then the table.
fn measure_against_torch() -> BoxResult<()> {
    let baseline = || -> BoxResult<Baseline> {
        let path = std::env::args().nth(1).ok_or(
            "no torch baseline given: run `python3 benches/torch_allreduce.py > torch_allreduce.txt` \
             on the same machine and pass torch_allreduce.txt",
        )?;
        read_torch(&path)
    };
    match Job::from_env() {
        Err(RendezvousError::NoLauncher) => {
            let baseline = baseline()?;
            let devices =
                common::devices(2).map_err(|why| format!("needs two or more GPUs.\n{why}"))?;
            check_world_size(&baseline, devices.len())?;
            let comms = Comm::from_devices(&devices)?;
            run(&comms, &devices, Some(&baseline))
        }
        Ok(job) => {
            let baseline = if job.rank == 0 {
                let b = baseline()?;
                check_world_size(&b, job.world_size)?;
                Some(b)
            } else {
                None
            };
            if job.world_size < 2 {
                return Err(
                    format!("the job has {} rank(s); needs two or more", job.world_size).into(),
                );
            }
            let all = common::devices(job.local_rank + 1)
                .map_err(|why| format!("rank {} takes GPU {}.\n{why}", job.rank, job.local_rank))?;
            let device = Arc::clone(&all[job.local_rank]);
            let comm = Comm::from_job(&job, &device, RENDEZVOUS_TIMEOUT)?;
            run(&[comm], &[device], baseline.as_ref())
        }
        Err(e) => Err(e.into()),
    }
}

fn check_world_size(torch: &Baseline, n: usize) -> BoxResult<()> {
    if torch.world_size != n {
        return Err(format!(
            "the torch baseline was measured on {} GPUs, this run has {n}",
            torch.world_size
        )
        .into());
    }
    Ok(())
}

/// torch_allreduce.py's output: the world size and busbw (GB/s) by bytes.
struct Baseline {
    world_size: usize,
    busbw: HashMap<usize, f64>,
}

fn read_torch(path: &str) -> BoxResult<Baseline> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the torch baseline {path}: {e}"))?;
    let mut world_size = None;
    let mut busbw = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let bad = || format!("the torch baseline {path} has a bad row: {line}");
        match f.as_slice() {
            ["world_size", n] => world_size = Some(n.parse::<usize>().map_err(|_| bad())?),
            ["allreduce", bytes, _time_us, _algbw, bus] => {
                let bytes: usize = bytes.parse().map_err(|_| bad())?;
                let bus: f64 = bus.parse().map_err(|_| bad())?;
                if !(bus.is_finite() && bus > 0.0) {
                    return Err(bad().into());
                }
                busbw.insert(bytes, bus);
            }
            _ => {}
        }
    }
    match world_size {
        Some(world_size) if !busbw.is_empty() => Ok(Baseline { world_size, busbw }),
        _ => Err(format!(
            "the torch baseline {path} holds no `world_size N` line or no `allreduce BYTES TIME_US ALGBW BUSBW` rows \
             (did torch_allreduce.py fail?)"
        )
        .into()),
    }
}

/// One rank's stream, buffers (of the largest size) and timing events.
struct Rank {
    stream: Stream,
    send: DeviceBuffer<f32>,
    recv: DeviceBuffer<f32>,
    start: Event,
    end: Event,
}

/// One all-reduce on every rank, of the first `len` elements.
fn all_reduce_once(
    comms: &[Comm],
    ranks: &mut [Rank],
    len: usize,
    in_place: bool,
) -> rccl::Result<()> {
    rccl::group(|| {
        for (comm, r) in comms.iter().zip(ranks.iter_mut()) {
            let mut recv = r.recv.slice_mut(..len)?;
            if in_place {
                comm.all_reduce_in_place(&mut recv, ReduceOp::Sum, &r.stream)?;
            } else {
                let send = r.send.slice(..len)?;
                comm.all_reduce(&send, &mut recv, ReduceOp::Sum, &r.stream)?;
            }
        }
        Ok(())
    })
}

/// Microseconds per all-reduce of `bytes`: warm-up, then `ITERS` between
/// events on each rank's stream; the slowest rank's.
fn time_us(comms: &[Comm], ranks: &mut [Rank], bytes: usize, in_place: bool) -> BoxResult<f64> {
    let len = bytes / size_of::<f32>();
    if in_place {
        // Zeros stay zeros: repeated in-place sums would otherwise grow
        // to infinity.
        for r in ranks.iter_mut() {
            r.stream.memset_zeros(&mut r.recv.slice_mut(..len)?)?;
        }
    }
    for _ in 0..WARMUP {
        all_reduce_once(comms, ranks, len, in_place)?;
    }
    for r in ranks.iter() {
        r.stream.synchronize()?;
    }
    for r in ranks.iter() {
        r.start.record(&r.stream)?;
    }
    for _ in 0..ITERS {
        all_reduce_once(comms, ranks, len, in_place)?;
    }
    for r in ranks.iter() {
        r.end.record(&r.stream)?;
    }
    let mut elapsed_ms = Vec::new();
    for r in ranks.iter() {
        r.end.synchronize()?;
        elapsed_ms.push(r.end.elapsed_ms_since(&r.start)?);
    }
    let slowest = combine(comms, ranks, &elapsed_ms, ReduceOp::Max)?;
    Ok(slowest as f64 * 1e3 / ITERS as f64)
}

/// Combines one value per rank of this process over every rank of the
/// job (`op` over a one-element all-reduce), for what all ranks must agree
/// on.
fn combine<T: Element + Copy>(
    comms: &[Comm],
    ranks: &[Rank],
    values: &[T],
    op: ReduceOp,
) -> BoxResult<T> {
    let mut bufs = ranks
        .iter()
        .zip(values)
        .map(|(r, v)| r.stream.clone_htod(std::slice::from_ref(v)))
        .collect::<hip::Result<Vec<_>>>()?;
    rccl::group(|| {
        for ((comm, r), buf) in comms.iter().zip(ranks).zip(bufs.iter_mut()) {
            comm.all_reduce_in_place(buf, op, &r.stream)?;
        }
        Ok(())
    })?;
    Ok(ranks[0].stream.clone_dtoh(&bufs[0])?[0])
}

/// Out-of-place all-reduce of random data against the CPU's sum.
/// Every rank's input comes from one seed, rank 0's (the sum of rank 0's
/// seed and everyone else's 0), so each process can compute the sum.
fn check(comms: &[Comm], ranks: &mut [Rank], len: usize) -> BoxResult<()> {
    let mine: Vec<u64> = comms
        .iter()
        .map(|c| if c.rank() == 0 { rand::random() } else { 0 })
        .collect();
    let seed = combine(comms, ranks, &mine, ReduceOp::Sum)?;
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let inputs: Vec<Vec<f32>> = (0..comms[0].world_size())
        .map(|_| (0..len).map(|_| rng.gen_range(-1.0..1.0)).collect())
        .collect();
    for (comm, r) in comms.iter().zip(ranks.iter_mut()) {
        r.stream
            .copy_htod(&inputs[comm.rank()], &mut r.send.slice_mut(..len)?)?;
    }
    all_reduce_once(comms, ranks, len, false)?;
    let mut wrong = Vec::new();
    for (comm, r) in comms.iter().zip(ranks.iter()) {
        let got = r.stream.clone_dtoh(&r.recv.slice(..len)?)?;
        let mut bad = 0u64;
        for (i, g) in got.iter().enumerate() {
            let want: f64 = inputs.iter().map(|x| x[i] as f64).sum();
            let scale: f64 = inputs.iter().map(|x| (x[i] as f64).abs()).sum();
            let err = (*g as f64 - want).abs();
            if err.is_nan() || err > CHECK_BOUND * scale {
                if bad == 0 {
                    eprintln!(
                        "rank {}: element {i} is {g}, the CPU's sum {want} (seed {seed})",
                        comm.rank()
                    );
                }
                bad += 1;
            }
        }
        wrong.push(bad);
    }
    // Every rank learns the verdict, so that all stop together instead of
    // the others waiting in the next all-reduce for one that left.
    let wrong = combine(comms, ranks, &wrong, ReduceOp::Sum)?;
    if wrong > 0 {
        return Err(format!(
            "check failed: {wrong} elements over all ranks differ from the CPU's sum (seed {seed})"
        )
        .into());
    }
    if comms[0].rank() == 0 {
        println!(
            "check: {len} elements on {} ranks equal the CPU's sum within {CHECK_BOUND:.0e} * sum |x| (seed {seed})",
            inputs.len()
        );
    }
    Ok(())
}

/// Measures every size on `comms` (this process's ranks, on `devices`);
/// the process holding rank 0 has the baseline, prints the table and
/// compares.
fn run(comms: &[Comm], devices: &[Arc<Device>], torch: Option<&Baseline>) -> BoxResult<()> {
    let n = comms[0].world_size();
    let leader = comms[0].rank() == 0;
    if leader {
        let version = rccl::version()?;
        println!(
            "{n} ranks, {} process(es); {}; RCCL/NCCL {}.{}.{}; f32 sum; {WARMUP} warm-up, {ITERS} timed per size; GB = 1e9 bytes",
            if comms.len() == n { 1 } else { n },
            devices[0].name()?,
            version / 10000,
            version / 100 % 100,
            version % 100
        );
    }
    let largest = SIZES[SIZES.len() - 1] / size_of::<f32>();
    let mut ranks = devices
        .iter()
        .map(|d| {
            Ok(Rank {
                stream: Stream::new(d)?,
                send: DeviceBuffer::zeroed(d, largest)?,
                recv: DeviceBuffer::zeroed(d, largest)?,
                start: Event::new(d)?,
                end: Event::new(d)?,
            })
        })
        .collect::<hip::Result<Vec<_>>>()?;
    check(comms, &mut ranks, SIZES[0] / size_of::<f32>())?;
    let mut times = Vec::new();
    for bytes in SIZES {
        let oop = time_us(comms, &mut ranks, bytes, false)?;
        let ip = time_us(comms, &mut ranks, bytes, true)?;
        times.push((bytes, oop, ip));
    }
    match torch {
        Some(torch) if leader => report(&times, n, torch),
        _ => Ok(()),
    }
}

/// Prints the table from `(bytes, out-of-place us, in-place us)` rows and
/// the summary line; fails when the baseline lacks a size.
fn report(times: &[(usize, f64, f64)], n: usize, torch: &Baseline) -> BoxResult<()> {
    let factor = 2.0 * (n - 1) as f64 / n as f64;
    println!(
        "\n{:>12} {:>10} | {:>9} {:>7} {:>7} | {:>9} {:>7} {:>7} | {:>12} {:>10}",
        "size (B)",
        "count",
        "oop us",
        "algbw",
        "busbw",
        "ip us",
        "algbw",
        "busbw",
        "torch busbw",
        "ip/torch"
    );
    let mut ratios = HashMap::new();
    let mut missing = Vec::new();
    for &(bytes, oop, ip) in times {
        let algbw = |us: f64| bytes as f64 / (us * 1e-6) / 1e9;
        let (oop_alg, ip_alg) = (algbw(oop), algbw(ip));
        let ours = ip_alg * factor;
        let (theirs, ratio) = match torch.busbw.get(&bytes) {
            Some(t) => {
                ratios.insert(bytes, ours / t);
                (format!("{t:.2}"), format!("{:.3}", ours / t))
            }
            None => {
                missing.push(bytes);
                ("missing".to_owned(), "-".to_owned())
            }
        };
        println!(
            "{bytes:>12} {:>10} | {oop:>9.1} {oop_alg:>7.2} {:>7.2} | {ip:>9.1} {ip_alg:>7.2} {ours:>7.2} | {theirs:>12} {ratio:>10}",
            bytes / 4,
            oop_alg * factor,
        );
    }
    if !missing.is_empty() {
        return Err(
            format!("the torch baseline has no row for size(s) {missing:?} (bytes)").into(),
        );
    }
    let headline = |s: usize| {
        ratios
            .get(&s)
            .copied()
            .ok_or_else(|| format!("no ratio at {s} bytes"))
    };
    let (a, b) = (headline(HEADLINE[0])?, headline(HEADLINE[1])?);
    let met = bench_verdict::single_value(a.min(b), 0.95);
    println!("allreduce_bench: ratio at 256 MiB {a:.2}, at 1 GiB {b:.2}; target >= 0.95: {met}");
    Ok(())
}
