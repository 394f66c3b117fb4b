//! GPU benchmark: host-to-device and device-to-host bandwidth of copies
//! from ordinary (pageable) memory, directly (`Stream::copy_htod`, one
//! `hipMemcpyAsync` from the pageable slice) and staged through reused
//! pinned buffers (`Stream::copy_htod` of a slice, here through
//! `hip::staging::copy_htod_with` to name the strategy), against copies
//! from pinned memory (`Stream::copy_htod` of a `PinnedHostBuffer`),
//! for sizes from 1 MiB to 1 GiB, in one run, rounds interleaved.
//!
//! The target: staged copies of 64 MiB and more reach at least 0.8 of the
//! pinned bandwidth. Every staged copy's result is checked against its
//! source once per size.
//!
//! First it measures the host side alone: `memcpy` bandwidth between
//! pageable and pinned memory with 1 to 16 threads, the ceiling of the
//! staged copies' host half (which moves every byte once more than the
//! DMA does). Then the DMA side under that load: pinned host-to-device
//! bandwidth alone and while 12 host threads copy memory (the staging
//! pool's size on a 16-processor machine), since the host copies and the
//! DMA share the host's memory bandwidth.
//!
//! Beside the default staging (`StagingStrategy::Ring`, the "staged"
//! columns) it measures the two alternatives in the same rounds:
//! `ring-nt` (the same ring, host pieces written with non-temporal
//! stores) and `register` (`hipHostRegister` of the caller's memory for
//! the copy, one DMA, `hipHostUnregister`), and prints each one's lowest
//! ratio to pinned from 64 MiB on: the strategy to make the default is
//! the one whose lowest ratio is highest in both directions.
//!
//! Usage: `copy_bandwidth [max-MiB] [rounds]` (defaults 1024, 5);
//! `HIP_STAGING_THREADS` sets the staging host threads. Exits non-zero
//! when it cannot measure (no GPU) or a copy is wrong.

use hip::staging::{copy_dtoh_with, copy_htod_with, StagingStrategy};
use hip::{Device, DeviceBuffer, PinnedHostBuffer, Stream};
use hip_benches::median;
use std::time::Instant;

/// The size from which the staged/pinned target applies.
const TARGET_FROM_BYTES: usize = 64 << 20;
const TARGET_RATIO: f64 = 0.8;

fn main() {
    if let Err(e) = run() {
        eprintln!("copy_bandwidth: {e}");
        std::process::exit(1);
    }
}

/// Non-zero pseudo-random bytes (xorshift64), cheap enough for 1 GiB.
fn pseudo_random(len: usize, seed: u64) -> Vec<u8> {
    let mut s = seed | 1;
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out.extend(s.to_le_bytes().iter().map(|&b| b | 1).take(len - out.len()));
    }
    out
}

fn gbps(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

/// A direct copy between pageable host memory and the device: one
/// `hipMemcpyAsync` and a stream synchronize, bypassing the staging that
/// `Stream::copy_htod`/`copy_dtoh` now do (the baseline column).
fn direct_copy(
    stream: &Stream,
    dst: *mut std::ffi::c_void,
    src: *const std::ffi::c_void,
    bytes: usize,
    kind: hip::sys::hipMemcpyKind,
) -> hip::Result<()> {
    stream.device().bind()?;
    // SAFETY: the callers pass ranges of `bytes` bytes that stay valid and
    // untouched until the synchronize below returns.
    let st = unsafe { hip::sys::hipMemcpyAsync(dst, src, bytes, kind, stream.as_raw()) };
    if st != hip::sys::hipError_t::hipSuccess {
        return Err(hip::Error::Hip {
            call: "hipMemcpyAsync",
            status: st,
            message: format!("{st:?}"),
            symbol_missing: false,
        });
    }
    stream.synchronize()
}

/// Seconds one call of `f` takes.
fn time_once(f: &mut dyn FnMut() -> hip::Result<()>) -> hip::Result<f64> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64())
}

/// Seconds `threads` threads take to copy `from` into `to`, each a
/// contiguous share.
fn parallel_memcpy(from: &[u8], to: &mut [u8], threads: usize) -> f64 {
    let share = from.len().div_ceil(threads);
    let t = Instant::now();
    std::thread::scope(|s| {
        for (f, d) in from.chunks(share).zip(to.chunks_mut(share)) {
            s.spawn(move || d.copy_from_slice(f));
        }
    });
    t.elapsed().as_secs_f64()
}

/// Host-only `memcpy` bandwidth, pageable to pinned and back, by thread
/// count (median of `rounds`).
fn host_memcpy_table(bytes: usize, rounds: usize) -> Result<(), Box<dyn std::error::Error>> {
    let pageable = pseudo_random(bytes, 0x5151 ^ bytes as u64);
    let mut pageable_dst = vec![0u8; bytes];
    let mut pinned = PinnedHostBuffer::<u8>::zeroed(bytes)?;
    let pinned = pinned.as_mut_slice()?;
    print!(
        "host memcpy of {} MiB, GB/s (pageable->pinned / pinned->pageable):",
        bytes >> 20
    );
    for threads in [1, 2, 4, 6, 8, 12, 16] {
        let mut to_pinned = Vec::new();
        let mut from_pinned = Vec::new();
        for _ in 0..=rounds {
            to_pinned.push(gbps(bytes, parallel_memcpy(&pageable, pinned, threads)));
            from_pinned.push(gbps(
                bytes,
                parallel_memcpy(pinned, &mut pageable_dst, threads),
            ));
        }
        print!(
            " {threads}t {:.1}/{:.1};",
            median(&to_pinned[1..]).ok_or("no rounds measured")?,
            median(&from_pinned[1..]).ok_or("no rounds measured")?
        );
    }
    println!();
    if pageable_dst != pageable {
        return Err("host memcpy probe copied wrong bytes".into());
    }
    Ok(())
}

/// Pinned host-to-device bandwidth alone and while `threads` host threads
/// copy memory among themselves (each between two private 32 MiB
/// buffers, never touching the DMA's buffers), median of `rounds`: how
/// much of the DMA's speed the host memory traffic of staging costs on
/// this machine, a ceiling the staged copies cannot pass.
fn dma_under_host_load(
    dev: &std::sync::Arc<Device>,
    stream: &Stream,
    bytes: usize,
    rounds: usize,
    threads: usize,
) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    use std::sync::atomic::{AtomicBool, Ordering};
    let pinned = PinnedHostBuffer::from_slice(&pseudo_random(bytes, 0xd1a))?;
    let mut dev_buf = DeviceBuffer::<u8>::uninit(dev, bytes)?;
    let mut measure = || -> hip::Result<f64> {
        let mut v = Vec::new();
        for _ in 0..=rounds {
            let t = time_once(&mut || {
                stream.copy_htod(&pinned, &mut dev_buf)?;
                stream.synchronize()
            })?;
            v.push(gbps(bytes, t));
        }
        Ok(median(&v[1..]).unwrap_or(0.0))
    };
    let alone = measure()?;
    let stop = AtomicBool::new(false);
    let loaded = std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let from = pseudo_random(32 << 20, 7);
                let mut to = vec![0u8; 32 << 20];
                while !stop.load(Ordering::Relaxed) {
                    to.copy_from_slice(&from);
                    std::hint::black_box(&mut to);
                }
            });
        }
        // Let every thread reach its copy loop.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let r = measure();
        stop.store(true, Ordering::Relaxed);
        r
    })?;
    Ok((alone, loaded))
}

struct Row {
    bytes: usize,
    direction: &'static str,
    direct: f64,
    staged: f64,
    /// A staged copy right after another.
    staged_again: f64,
    pinned: f64,
    /// `StagingStrategy::RingNonTemporal`.
    ring_nt: f64,
    /// `StagingStrategy::Register`.
    registered: f64,
}

/// A row's bandwidth column.
type Column = fn(&Row) -> f64;

/// The alternatives measured beside the default ring, with their columns.
const ALTERNATIVES: [(StagingStrategy, Column); 2] = [
    (StagingStrategy::RingNonTemporal, |r| r.ring_nt),
    (StagingStrategy::Register, |r| r.registered),
];

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let max_mib: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(1024);
    let rounds: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(5);
    if rounds == 0 {
        return Err("rounds must be at least 1".into());
    }

    let dev = Device::get(0).map_err(|e| format!("cannot measure, no GPU: {e}"))?;
    println!(
        "device 0: {}; staging chunks of {} MiB, staged from {} MiB; {rounds} rounds, interleaved",
        dev.name()?,
        hip::staging::CHUNK_BYTES >> 20,
        hip::staging::MIN_BYTES >> 20
    );
    println!(
        "HIP_STAGING_THREADS={}",
        std::env::var("HIP_STAGING_THREADS").unwrap_or_else(|_| "(default)".into())
    );
    host_memcpy_table(max_mib.min(256) << 20, rounds)?;
    let stream = Stream::new(&dev)?;
    let load_threads = 12;
    let (alone, loaded) = dma_under_host_load(&dev, &stream, 64 << 20, rounds, load_threads)?;
    println!(
        "pinned host-to-device 64 MiB: {alone:.1} GB/s alone, {loaded:.1} GB/s while {load_threads} host threads copy memory ({:.3}): the DMA's speed when the staging threads run",
        loaded / alone
    );

    let mut rows = Vec::new();
    let mut mib = 1;
    while mib <= max_mib {
        let bytes = mib << 20;
        let src = pseudo_random(bytes, 0x9e37_79b9_7f4a_7c15 ^ bytes as u64);
        let pinned_src = PinnedHostBuffer::from_slice(&src)?;
        let mut pinned_dst = PinnedHostBuffer::<u8>::zeroed(bytes)?;
        let mut dev_buf = DeviceBuffer::<u8>::uninit(&dev, bytes)?;
        let mut host_dst = pseudo_random(bytes, 0x1234_5678 ^ bytes as u64);

        // Correctness of the staged paths at this size, each strategy
        // (also the warm-up: pages touched, staging buffers allocated).
        for strategy in [StagingStrategy::Ring, ALTERNATIVES[0].0, ALTERNATIVES[1].0] {
            let name = strategy.name();
            copy_htod_with(&stream, &src, &mut dev_buf, strategy)?;
            if stream.clone_dtoh(&dev_buf)? != src {
                return Err(format!("{name} host-to-device copy of {mib} MiB is wrong").into());
            }
            host_dst.fill(0);
            copy_dtoh_with(&stream, &dev_buf, &mut host_dst, strategy)?;
            if host_dst != src {
                return Err(format!("{name} device-to-host copy of {mib} MiB is wrong").into());
            }
        }
        let ring = StagingStrategy::Ring;

        let mut htod: [Vec<f64>; 6] = Default::default();
        let mut dtoh: [Vec<f64>; 6] = Default::default();
        // One warm-up round, then `rounds` measured, each method once per
        // round so drifts hit all alike.
        for round in 0..=rounds {
            let t = [
                time_once(&mut || {
                    direct_copy(
                        &stream,
                        dev_buf.as_device_ptr_mut().cast(),
                        src.as_ptr().cast(),
                        bytes,
                        hip::sys::hipMemcpyKind::hipMemcpyHostToDevice,
                    )
                })?,
                time_once(&mut || copy_htod_with(&stream, &src, &mut dev_buf, ring))?,
                // Right after another staged copy: its host threads are
                // still awake.
                time_once(&mut || copy_htod_with(&stream, &src, &mut dev_buf, ring))?,
                time_once(&mut || {
                    stream.copy_htod(&pinned_src, &mut dev_buf)?;
                    stream.synchronize()
                })?,
                time_once(&mut || copy_htod_with(&stream, &src, &mut dev_buf, ALTERNATIVES[0].0))?,
                time_once(&mut || copy_htod_with(&stream, &src, &mut dev_buf, ALTERNATIVES[1].0))?,
            ];
            let f = [
                time_once(&mut || {
                    direct_copy(
                        &stream,
                        host_dst.as_mut_ptr().cast(),
                        dev_buf.as_device_ptr().cast(),
                        bytes,
                        hip::sys::hipMemcpyKind::hipMemcpyDeviceToHost,
                    )
                })?,
                time_once(&mut || copy_dtoh_with(&stream, &dev_buf, &mut host_dst, ring))?,
                time_once(&mut || copy_dtoh_with(&stream, &dev_buf, &mut host_dst, ring))?,
                time_once(&mut || {
                    stream.copy_dtoh(&dev_buf, &mut pinned_dst)?;
                    stream.synchronize()
                })?,
                time_once(&mut || {
                    copy_dtoh_with(&stream, &dev_buf, &mut host_dst, ALTERNATIVES[0].0)
                })?,
                time_once(&mut || {
                    copy_dtoh_with(&stream, &dev_buf, &mut host_dst, ALTERNATIVES[1].0)
                })?,
            ];
            if round > 0 {
                for i in 0..6 {
                    htod[i].push(gbps(bytes, t[i]));
                    dtoh[i].push(gbps(bytes, f[i]));
                }
            }
        }
        if pinned_dst.as_slice()? != src.as_slice() {
            return Err(format!("pinned device-to-host copy of {mib} MiB is wrong").into());
        }
        for (direction, m) in [("HtoD", &htod), ("DtoH", &dtoh)] {
            let row = Row {
                bytes,
                direction,
                direct: median(&m[0]).ok_or("no rounds measured")?,
                staged: median(&m[1]).ok_or("no rounds measured")?,
                staged_again: median(&m[2]).ok_or("no rounds measured")?,
                pinned: median(&m[3]).ok_or("no rounds measured")?,
                ring_nt: median(&m[4]).ok_or("no rounds measured")?,
                registered: median(&m[5]).ok_or("no rounds measured")?,
            };
            rows.push(row);
        }
        mib *= 4;
    }

    println!();
    println!("| size | dir | pageable direct | staged | staged, back-to-back | pinned | staged/pinned | back-to-back/pinned | ring-nt | ring-nt/pinned | register | register/pinned |");
    println!(
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for r in &rows {
        println!(
            "| {} MiB | {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.3} | {:.3} | {:.1} | {:.3} | {:.1} | {:.3} |",
            r.bytes >> 20,
            r.direction,
            r.direct,
            r.staged,
            r.staged_again,
            r.pinned,
            r.staged / r.pinned,
            r.staged_again / r.pinned,
            r.ring_nt,
            r.ring_nt / r.pinned,
            r.registered,
            r.registered / r.pinned
        );
    }
    println!("(GB/s, medians; \"staged\": the default strategy, `ring`; \"back-to-back\": a staged copy right after another)");
    let judged: Vec<&Row> = rows
        .iter()
        .filter(|r| r.bytes >= TARGET_FROM_BYTES)
        .collect();
    match judged
        .iter()
        .min_by(|a, b| (a.staged / a.pinned).total_cmp(&(b.staged / b.pinned)))
    {
        Some(worst) => {
            let ratio = worst.staged / worst.pinned;
            println!(
                "lowest staged/pinned at >= 64 MiB: {ratio:.3} ({} MiB {}); target >= {TARGET_RATIO}: {}",
                worst.bytes >> 20,
                worst.direction,
                hip_benches::single_value(ratio, TARGET_RATIO)
            );
        }
        None => {
            println!("no size of 64 MiB or more measured (max-MiB {max_mib}); target not judged")
        }
    }
    // The alternatives' lowest ratios, to compare with the default's.
    for (strategy, column) in ALTERNATIVES {
        let worst = judged
            .iter()
            .map(|r| (column(r) / r.pinned, r))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        if let Some((ratio, r)) = worst {
            println!(
                "lowest {}/pinned at >= 64 MiB: {ratio:.3} ({} MiB {})",
                strategy.name(),
                r.bytes >> 20,
                r.direction
            );
        }
    }
    Ok(())
}
