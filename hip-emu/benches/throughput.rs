//! How fast the interpreter runs, in lane-instructions per second (each
//! vector instruction counted once per active lane, as
//! `Counters::lane_instructions` counts), on one core: the interpreter
//! runs a dispatch on the calling thread.
//!
//! Two kernels of `tests/kernels/isa_basic.hip`, on gfx942 (wave64) and
//! gfx1100 (wave32): `saxpy` over `N` elements (element-wise: loads, one
//! FMA, a store) and `reduce` over `N` elements (an LDS tree with a
//! barrier per level, then one atomic add per block).
//!
//! The statistic, fixed before any data: per kernel and target, one
//! warm-up dispatch, then 5 timed ones; the median rate is the result,
//! printed with the minimum and maximum. The time is the dispatching
//! thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): "on one core", whatever
//! else the machine runs; the wall time of the median run is printed
//! beside it. The last line compares every
//! median with the target of 50 million lane-instructions per second.
//!
//! `cargo bench -p hip-emu --bench throughput`; the kernels are compiled
//! by HIP's clang as for the tests (`tests/common`).

#[path = "../tests/common/mod.rs"]
mod common;

use common::launch::{bytes, Loaded};
use hip_emu::isa::{Counters, Target};
use std::time::Instant;

/// Elements per dispatch.
const N: u32 = 1 << 20;
/// Threads per block.
const BLOCK: u32 = 256;
const WARM_UP: usize = 1;
const RUNS: usize = 5;
/// The rate the interpreter is meant to reach.
const TARGET_RATE: f64 = 50e6;

/// This thread's CPU time in seconds.
fn thread_cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write; the clock id is a constant
    // every Linux kernel since 2.6.12 provides.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// One timed dispatch: its counters, its CPU time and its wall time, in
/// seconds.
fn timed(run: &dyn Fn() -> Counters) -> (Counters, f64, f64) {
    let (wall, cpu) = (Instant::now(), thread_cpu_seconds());
    let counters = run();
    (
        counters,
        thread_cpu_seconds() - cpu,
        wall.elapsed().as_secs_f64(),
    )
}

/// One benchmarked dispatch, repeatable: each call launches it once.
type Case<'a> = Box<dyn Fn() -> Counters + 'a>;

/// The kernels of one target, loaded, with their buffers.
fn cases(loaded: &Loaded) -> Vec<(&'static str, Case<'_>)> {
    let x: Vec<f32> = (0..N).map(|i| (i % 1000) as f32 * 0.25).collect();
    let y: Vec<f32> = (0..N).map(|i| 1.0 - (i % 7) as f32).collect();
    let xd = loaded.mem.alloc(&bytes(&x));
    let yd = loaded.mem.alloc(&bytes(&y));
    let sum = loaded.mem.alloc(&0f32.to_le_bytes());
    let target = loaded.target;
    let grid = N.div_ceil(BLOCK);
    let saxpy = move || {
        loaded
            .launch(
                "saxpy",
                grid,
                BLOCK,
                &[
                    &2.5f32.to_le_bytes(),
                    &xd.to_le_bytes(),
                    &yd.to_le_bytes(),
                    &N.to_le_bytes(),
                ],
            )
            .unwrap_or_else(|e| panic!("saxpy on {target}: {e}"))
    };
    let reduce = move || {
        loaded
            .launch(
                "reduce",
                grid,
                BLOCK,
                &[&xd.to_le_bytes(), &sum.to_le_bytes(), &N.to_le_bytes()],
            )
            .unwrap_or_else(|e| panic!("reduce on {target}: {e}"))
    };
    vec![("saxpy", Box::new(saxpy)), ("reduce", Box::new(reduce))]
}

fn main() {
    // Arguments (`cargo bench` passes `--bench`) are ignored: the cases are fixed.
    println!(
        "hip-emu interpreter throughput: {N} elements, blocks of {BLOCK}; \
         median of {RUNS} runs after {WARM_UP} warm-up, one core"
    );
    println!(
        "{:<8} {:<7} {:>14} {:>10} {:>10} {:>22} {:>22}",
        "target", "kernel", "lane-instr.", "cpu s", "wall s", "median lane-instr./s", "min .. max"
    );
    let mut medians = Vec::new();
    for target in Target::ALL {
        let elf = common::code_object("isa_basic", target).expect("tests/kernels/isa_basic.hip");
        let loaded = Loaded::new(&elf, target);
        for (name, run) in cases(&loaded) {
            for _ in 0..WARM_UP {
                timed(&*run);
            }
            let mut samples: Vec<(f64, f64, f64, u64)> = (0..RUNS)
                .map(|_| {
                    let (c, cpu, wall) = timed(&*run);
                    (
                        c.lane_instructions as f64 / cpu,
                        cpu,
                        wall,
                        c.lane_instructions,
                    )
                })
                .collect();
            samples.sort_by(|a, b| a.0.total_cmp(&b.0));
            let (rate, secs, wall, lanes) = samples[RUNS / 2];
            println!(
                "{:<8} {:<7} {:>14} {:>10.3} {:>10.3} {:>22} {:>22}",
                target.name(),
                name,
                lanes,
                secs,
                wall,
                millions(rate),
                format!(
                    "{} .. {}",
                    millions(samples[0].0),
                    millions(samples[RUNS - 1].0)
                )
            );
            medians.push((format!("{target} {name}"), rate));
        }
    }
    let below: Vec<&str> = medians
        .iter()
        .filter(|(_, rate)| *rate < TARGET_RATE)
        .map(|(case, _)| case.as_str())
        .collect();
    if below.is_empty() {
        println!("target {}: met by every median", millions(TARGET_RATE));
    } else {
        println!(
            "target {}: NOT met ({} below it: {})",
            millions(TARGET_RATE),
            below.len(),
            below.join(", ")
        );
    }
}

/// A rate in millions of lane-instructions per second.
fn millions(rate: f64) -> String {
    format!("{:.1} M/s", rate / 1e6)
}
