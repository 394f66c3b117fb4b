//! hip-cuda-layer's CUDA warp functions (`include/hiprs_cuda_warp.h`) as
//! ROCm's clang compiles them, executed on the interpreter and checked,
//! lane by lane, against CUDA's semantics for 32-lane warps.
//!
//! `tests/kernels/warp_layer.hip` is CUDA source, compiled with the layer
//! force-included as the cudaforge drop-in does, for gfx942 (a wave64
//! holds two CUDA warps) and gfx1100 (a wave32 is one warp). Each launch
//! runs the whole table of cases (the plan below) on the threads of one
//! active pattern; the others return at once, as lanes that diverged away
//! or exited. hip-cuda-layer's own check (`tests/warp/model.cpp`) runs the
//! header on the host over a hand-written model of HIP's builtins; here
//! the compiler's real output runs instead.
//!
//! The reference follows the CUDA C++ Programming Guide ("Warp Shuffle
//! Functions", "Warp Vote Functions", "Warp Reduce Functions") and checks
//! a lane only where CUDA defines its result, as model.cpp does: a shuffle
//! that reads a lane that is not active is undefined; laneMask 33-63 and
//! delta past 32 are not in the plan (the Guide and NVIDIA's hardware
//! differ there). Masks are those CUDA code passes: the warp's active
//! lanes, all 32 lanes (named lanes that exited are allowed), or one group
//! of a partition of the warp.
//!
//! The number of checks per function is fixed below, so a plan or a
//! checker that shrinks fails; and a copy of the layer with one lane
//! mapping broken must fail on wave64 and pass on wave32.

mod common;

use common::launch::{bytes, Loaded};
use hip_emu::isa::Target;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Checks per function the plan makes on each target (the same on both:
/// CUDA's semantics do not depend on the wave size). A shuffle lane that
/// reads an inactive lane is not counted; every other active lane is, so a
/// vote or a reduction gets (its cases) x 402 (the active lanes of all
/// launches), which the test also computes from the plan. The last row:
/// the slots of lanes that returned at once, which must stay unwritten.
const CHECKS: &[(&str, u64)] = &[
    ("__shfl_sync", 197_896),
    ("__shfl_xor_sync", 163_524),
    ("__shfl_up_sync", 178_366),
    ("__shfl_down_sync", 175_606),
    ("__ballot_sync", 11_256),
    ("__any_sync", 11_256),
    ("__all_sync", 11_256),
    ("__activemask", 402),
    ("__reduce_add_sync", 16_080),
    ("__reduce_min_sync", 16_080),
    ("__reduce_max_sync", 16_080),
    ("__reduce_and_sync", 8_040),
    ("__reduce_or_sync", 8_040),
    ("__reduce_xor_sync", 8_040),
    (EXITED, 1_192_442),
];

/// The row of the report for lanes that returned at once.
const EXITED: &str = "(exited lanes write nothing)";

/// The functions, numbered as the kernel numbers them.
const SHUFFLES: [&str; 4] = [
    "__shfl_sync",
    "__shfl_xor_sync",
    "__shfl_up_sync",
    "__shfl_down_sync",
];
const BALLOT: i32 = 8;
const ANY: i32 = 9;
const ALL: i32 = 10;
const ACTIVEMASK: i32 = 11;
/// A reduction: its name, its type, and its operation on 32-bit values.
type Reduction = (&'static str, &'static str, fn(u32, u32) -> u32);
/// `__reduce_*_sync`, from 12.
const REDUCTIONS: [Reduction; 9] = [
    ("__reduce_add_sync", "int", |a, b| a.wrapping_add(b)),
    ("__reduce_add_sync", "unsigned", |a, b| a.wrapping_add(b)),
    ("__reduce_min_sync", "int", |a, b| {
        (a as i32).min(b as i32) as u32
    }),
    ("__reduce_min_sync", "unsigned", |a, b| a.min(b)),
    ("__reduce_max_sync", "int", |a, b| {
        (a as i32).max(b as i32) as u32
    }),
    ("__reduce_max_sync", "unsigned", |a, b| a.max(b)),
    ("__reduce_and_sync", "unsigned", |a, b| a & b),
    ("__reduce_or_sync", "unsigned", |a, b| a | b),
    ("__reduce_xor_sync", "unsigned", |a, b| a ^ b),
];
const FIRST_REDUCTION: i32 = 12;

/// Shuffle widths; 0 is the call without one (CUDA's default, warpSize).
const WIDTHS: [i32; 7] = [1, 2, 4, 8, 16, 32, 0];

/// Which mask a vote or a reduction passes (the kernel's `vote_mask`).
const MASKS: [&str; 4] = ["active", "all-32", "groups-of-4-lanes", "tiles-of-16"];

/// One row of the kernel's case table, as the kernel reads it.
#[derive(Clone, Copy)]
#[repr(C)]
struct WarpCase {
    function: i32,
    width: i32,
    arg: i32,
    mode: i32,
}

/// A case and what the checker needs to know of it.
struct Case {
    row: WarpCase,
    /// The function's name, its type, and the argument in words.
    name: &'static str,
    ty: &'static str,
    arg: String,
    /// Thread t's value, predicate or data (`values[t]`, t < 64).
    values: [u64; 64],
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// The plan: every case the kernel runs, in order.
fn plan() -> Vec<Case> {
    let mut cases = Vec::new();
    let mut seed = 0u64;
    // Shuffles: each function with int (the 4-byte path) and double (the
    // 8-byte one), every width, a spread of arguments. (mode, arg, words):
    // mode 0 the same argument on every lane; 1 lane + arg; 2 arg - lane;
    // 3 lane * 5 + arg.
    for (f, name) in SHUFFLES.iter().enumerate() {
        let mut args: Vec<(i32, i32, String)> = Vec::new();
        match f {
            0 => {
                // srcLane past the width, past the warp, negative.
                for k in [-33, -1, 32, 33, 63, 64, 1000].into_iter().chain(0..32) {
                    args.push((0, k, k.to_string()));
                }
                args.push((1, 1, "lane+1".into()));
                args.push((1, -1, "lane-1".into()));
                args.push((2, 31, "31-lane".into()));
                args.push((3, 3, "lane*5+3".into()));
            }
            // laneMask 32 and 64: the caller's own value.
            1 => args.extend((0..=32).chain([64]).map(|k| (0, k, k.to_string()))),
            _ => args.extend((0..=32).map(|k| (0, k, k.to_string()))),
        }
        for (double, ty) in [(false, "int"), (true, "double")] {
            for width in WIDTHS {
                for (mode, arg, words) in &args {
                    seed += 1;
                    let mut values = [0u64; 64];
                    for (t, v) in values.iter_mut().enumerate() {
                        *v = splitmix(seed * 131 + t as u64);
                        if !double {
                            *v &= 0xffff_ffff;
                        }
                    }
                    cases.push(Case {
                        row: WarpCase {
                            function: f as i32 + if double { 4 } else { 0 },
                            width,
                            arg: *arg,
                            mode: *mode,
                        },
                        name,
                        ty,
                        arg: format!("{words} width={}", width_name(width)),
                        values,
                    });
                }
            }
        }
    }
    // Votes, with predicates of every density, under every mask.
    type Predicate = (&'static str, fn(usize) -> i32);
    let predicates: [Predicate; 7] = [
        ("none", |_| 0),
        ("all-1", |_| 1),
        ("all-other-nonzero", |t| [2, -1, 0x100, i32::MIN][t & 3]),
        ("random-1", |t| (splitmix(100 + t as u64) & 1) as i32),
        ("random-2", |t| {
            i32::from(splitmix(200 + t as u64) % 3 == 0) * 0x10000
        }),
        ("only-lanes-5-and-37", |t| i32::from(t == 5 || t == 37)),
        ("all-but-lane-9", |t| i32::from(t & 31 != 9)),
    ];
    for (function, name) in [
        (BALLOT, "__ballot_sync"),
        (ANY, "__any_sync"),
        (ALL, "__all_sync"),
    ] {
        for (mode, mask) in MASKS.iter().enumerate() {
            for (pname, p) in &predicates {
                let mut values = [0u64; 64];
                for (t, v) in values.iter_mut().enumerate() {
                    *v = u64::from(p(t) as u32);
                }
                cases.push(Case {
                    row: WarpCase {
                        function,
                        width: 0,
                        arg: 0,
                        mode: mode as i32,
                    },
                    name,
                    ty: "int",
                    arg: format!("{mask}/{pname}"),
                    values,
                });
            }
        }
    }
    cases.push(Case {
        row: WarpCase {
            function: ACTIVEMASK,
            width: 0,
            arg: 0,
            mode: 0,
        },
        name: "__activemask",
        ty: "-",
        arg: "-".into(),
        values: [0; 64],
    });
    // Reductions: random values, and the extremes of both types.
    for (i, (name, ty, _)) in REDUCTIONS.iter().enumerate() {
        for (mode, mask) in MASKS.iter().enumerate() {
            for set in 0..5u64 {
                let mut values = [0u64; 64];
                for (t, v) in values.iter_mut().enumerate() {
                    *v = if set < 4 {
                        splitmix(set * 1000 + t as u64) & 0xffff_ffff
                    } else {
                        let x = [0u32, 1, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xffff_fffe];
                        u64::from(x[(splitmix(t as u64 + 77) % 6) as usize])
                    };
                }
                cases.push(Case {
                    row: WarpCase {
                        function: FIRST_REDUCTION + i as i32,
                        width: 0,
                        arg: 0,
                        mode: mode as i32,
                    },
                    name,
                    ty,
                    arg: format!("{mask}/values-{set}"),
                    values,
                });
            }
        }
    }
    cases
}

fn width_name(width: i32) -> String {
    if width == 0 {
        "default".into()
    } else {
        width.to_string()
    }
}

/// Active patterns: which threads of the block run the cases.
fn patterns() -> Vec<(&'static str, u64)> {
    vec![
        ("all-64", !0),
        ("lanes-0-31", 0xffff_ffff),
        ("lanes-32-63", 0xffff_ffff_0000_0000),
        ("even-lanes", 0x5555_5555_5555_5555),
        // A block of 48 threads, or a tail that exited: 16 lanes in the
        // second warp.
        ("prefix-48", 0x0000_ffff_ffff_ffff),
        ("one-lane-per-warp", 0x0000_1000_0000_0004),
        ("random-1", splitmix(1) & splitmix(2)),
        ("random-2", splitmix(3) | splitmix(4)),
        ("random-3", splitmix(5)),
        ("single-lane-37", 1 << 37),
        ("single-lane-5", 1 << 5),
    ]
}

/// Block sizes: two warps, and one.
const BLOCKS: [u32; 2] = [64, 32];

/// What CUDA says a lane gets: the exact bits, or (`__any_sync`,
/// `__all_sync`) whether the result is nonzero.
enum Want {
    Bits(u64),
    Nonzero(bool),
}

/// The lane of its warp a shuffle reads, or `None` where CUDA gives the
/// caller its own value. `l` is the caller's lane, `width` a power of two
/// up to 32 ("Warp Shuffle Functions": the warp splits into segments of
/// `width` lanes).
fn shuffle_source(function: usize, l: i64, arg: i64, width: i64) -> Option<i64> {
    let segment = l & !(width - 1);
    match function {
        // srcLane modulo width, within the caller's segment.
        0 => Some(segment + (arg & (width - 1))),
        // laneMask: a lane of a later segment (or past the warp: only
        // laneMask 32 and 64 are planned) leaves the caller's value.
        1 => {
            let s = l ^ arg;
            (arg < 32 && s <= (l | (width - 1))).then_some(s)
        }
        // delta below the segment's first lane, or past its last: the
        // caller's own value.
        2 => (l - arg >= segment).then_some(l - arg),
        _ => (l + arg <= (l | (width - 1))).then_some(l + arg),
    }
}

/// The mask lane `l` of a warp whose active lanes are `warp` passes in
/// mode `mode` (the kernel's `vote_mask`).
fn vote_mask(mode: i32, l: usize, warp: u32) -> u32 {
    match mode {
        1 => !0,
        2 => {
            warp & if l >> 2 & 1 == 1 {
                0xf0f0_f0f0
            } else {
                0x0f0f_0f0f
            }
        }
        3 => 0xffff << (l & 16),
        _ => warp,
    }
}

/// CUDA's result for thread `t` of case `c` when the threads of `active`
/// run it; `None` where CUDA leaves it undefined.
fn want(c: &Case, t: usize, active: u64) -> Option<Want> {
    let base = t & 32;
    let l = t & 31;
    let warp = (active >> base) as u32;
    let f = c.row.function;
    if f < BALLOT {
        let width = if c.row.width == 0 {
            32
        } else {
            c.row.width as i64
        };
        let (l64, a) = (l as i64, c.row.arg as i64);
        let arg = match c.row.mode {
            1 => l64 + a,
            2 => a - l64,
            3 => l64 * 5 + a,
            _ => a,
        };
        let src = match shuffle_source(f as usize % 4, l64, arg, width) {
            Some(s) => base + s as usize,
            None => t,
        };
        // Reading a lane that is not active: undefined.
        return (active >> src & 1 == 1).then(|| Want::Bits(c.values[src]));
    }
    if f == ACTIVEMASK {
        return Some(Want::Bits(u64::from(warp)));
    }
    // Votes and reductions are over the lanes the mask names that have not
    // exited; a lane not named takes no part.
    let named = warp & vote_mask(c.row.mode, l, warp);
    let lanes = (0..32).filter(|j| named >> j & 1 == 1);
    if f <= ALL {
        let ballot = lanes
            .filter(|&j| c.values[base + j] as u32 != 0)
            .fold(0u32, |b, j| b | 1 << j);
        return Some(match f {
            BALLOT => Want::Bits(u64::from(ballot)),
            ANY => Want::Nonzero(ballot != 0),
            _ => Want::Nonzero(ballot == named),
        });
    }
    let op = REDUCTIONS[(f - FIRST_REDUCTION) as usize].2;
    let r = lanes
        .map(|j| c.values[base + j] as u32)
        .reduce(op)
        .expect("a lane names itself");
    Some(Want::Bits(u64::from(r)))
}

/// What a slot of `out` holds before the launch: a thread that returned at
/// once must leave it so.
const UNWRITTEN: u64 = 0xcdcd_cdcd_cdcd_cdcd;

/// One run of the plan on one target: checks and mismatches per function,
/// and the first mismatches in words.
#[derive(Default)]
struct Report {
    by_function: BTreeMap<&'static str, (u64, u64)>,
    first: Vec<String>,
    /// Active lanes, summed over the launches.
    lanes: u64,
}

impl Report {
    fn checks(&self) -> u64 {
        self.by_function.values().map(|v| v.0).sum()
    }

    fn mismatches(&self) -> u64 {
        self.by_function.values().map(|v| v.1).sum()
    }

    fn record(&mut self, function: &'static str, ok: bool, what: impl FnOnce() -> String) {
        let entry = self.by_function.entry(function).or_default();
        entry.0 += 1;
        if !ok {
            entry.1 += 1;
            // The first few of each function.
            if entry.1 <= 4 && self.first.len() < 60 {
                self.first.push(what());
            }
        }
    }

    fn summary(&self, target: Target) -> String {
        let mut s = format!(
            "{target}: {} checks, {} mismatches\n",
            self.checks(),
            self.mismatches()
        );
        for (f, (checks, bad)) in &self.by_function {
            s += &format!("  {f:<22} checks {checks:>7} mismatches {bad}\n");
        }
        for m in &self.first {
            s += &format!("  mismatch {m}\n");
        }
        s
    }
}

/// Compiles the kernel with the layer in `include` force-included, as the
/// cudaforge drop-in does (`dropins/cudaforge/src/amd.rs`,
/// `layer_command`), for `target`.
fn compile(include: &Path, target: Target) -> Vec<u8> {
    let flags: Vec<String> = [
        "-I",
        &include.display().to_string(),
        "-include",
        "hiprs_cuda.h",
        // The drop-in's first claimed architecture.
        "-DHIPRS_CUDA_ARCH=890",
    ]
    .map(String::from)
    .to_vec();
    common::code_object_with("warp_layer", target, &flags).expect("tests/kernels/warp_layer.hip")
}

/// Runs every case on every active pattern and block size, and checks.
fn run_plan(target: Target, elf: &[u8]) -> Report {
    let cases = plan();
    let rows: Vec<WarpCase> = cases.iter().map(|c| c.row).collect();
    let mut report = Report::default();
    for block in BLOCKS {
        let threads = block as usize;
        let in_block = if block == 64 { !0u64 } else { (1 << block) - 1 };
        let mut seen = Vec::new();
        for (pattern, bits) in patterns() {
            let active = bits & in_block;
            if active == 0 || seen.contains(&active) {
                continue;
            }
            seen.push(active);
            report.lanes += u64::from(active.count_ones());
            let l = Loaded::new(elf, target);
            let values: Vec<u64> = cases
                .iter()
                .flat_map(|c| c.values[..threads].iter().copied())
                .collect();
            let out_len = cases.len() * threads;
            let cases_d = l.mem.alloc(&bytes(&rows));
            let values_d = l.mem.alloc(&bytes(&values));
            let out_d = l.mem.alloc(&bytes(&vec![UNWRITTEN; out_len]));
            l.launch(
                "warp_cases",
                1,
                block,
                &[
                    &cases_d.to_le_bytes(),
                    &(cases.len() as i32).to_le_bytes(),
                    &active.to_le_bytes(),
                    &values_d.to_le_bytes(),
                    &out_d.to_le_bytes(),
                ],
            )
            .unwrap_or_else(|e| panic!("{target} block {block} {pattern}: {e}"));
            let out: Vec<u64> = l
                .mem
                .read(out_d, 8 * out_len)
                .chunks(8)
                .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
                .collect();
            for (i, c) in cases.iter().enumerate() {
                for t in 0..threads {
                    let got = out[i * threads + t];
                    let where_ = || {
                        format!(
                            "{} {} {} pattern={pattern} block={block} lane={t}",
                            c.name, c.ty, c.arg
                        )
                    };
                    if active >> t & 1 == 0 {
                        report.record(EXITED, got == UNWRITTEN, || {
                            format!("{} wrote {got:#x}", where_())
                        });
                        continue;
                    }
                    match want(c, t, active) {
                        None => {}
                        Some(Want::Bits(w)) => report.record(c.name, got == w, || {
                            format!("{} got={got:#x} want={w:#x}", where_())
                        }),
                        Some(Want::Nonzero(w)) => report.record(c.name, (got != 0) == w, || {
                            let w = if w { "nonzero" } else { "0" };
                            format!("{} got={got:#x} want={w}", where_())
                        }),
                    }
                }
            }
        }
    }
    report
}

fn layer_include() -> PathBuf {
    common::workspace().join("hip-cuda-layer/include")
}

#[test]
fn the_layers_warp_functions_match_cuda_on_both_targets() {
    for target in Target::ALL {
        let report = run_plan(target, &compile(&layer_include(), target));
        let summary = report.summary(target);
        println!("{summary}");
        assert_eq!(report.mismatches(), 0, "{summary}");
        let checks = |f: &str| report.by_function.get(f).map_or(0, |v| v.0);
        for (f, n) in CHECKS {
            let got = checks(f);
            assert!(
                got >= *n,
                "{target}: {f} made {got} checks, the plan {n}\n{summary}"
            );
        }
        // Every active lane of every vote and reduction is checked.
        let cases = plan();
        for f in CHECKS.iter().map(|c| c.0) {
            if !SHUFFLES.contains(&f) && f != EXITED {
                let n = cases.iter().filter(|c| c.name == f).count() as u64;
                assert_eq!(checks(f), n * report.lanes, "{target}: {f}\n{summary}");
            }
        }
        assert_eq!(report.lanes, 402, "{target}: the plan's active lanes");
    }
}

/// Copies the folder `from` to `to`, recursively.
fn copy_folder(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("creating {}: {e}", to.display()));
    for entry in
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("reading {}: {e}", from.display()))
    {
        let path = entry.expect("a folder entry").path();
        let dest = to.join(path.file_name().expect("a named entry"));
        if path.is_dir() {
            copy_folder(&path, &dest);
        } else {
            std::fs::copy(&path, &dest).unwrap_or_else(|e| {
                panic!("copying {} to {}: {e}", path.display(), dest.display())
            });
        }
    }
}

#[test]
fn a_broken_lane_mapping_fails_on_wave64_only() {
    // The layer, with the second warp of a wave64 reading the first warp's
    // bits of every ballot (hiprs_warp_bits shifts by 0 instead of 32).
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("warp-mutant/include");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap_or_else(|e| panic!("removing {}: {e}", dir.display()));
    }
    copy_folder(&layer_include(), &dir);
    let header = dir.join("hiprs_cuda_warp.h");
    let text = std::fs::read_to_string(&header).expect("the copied warp header");
    let mapping = "__lane_id() & 32u & (unsigned)(warpSize - 1)";
    assert_eq!(
        text.matches(mapping).count(),
        1,
        "hiprs_cuda_warp.h no longer maps lanes to warps with `{mapping}`: update this test"
    );
    std::fs::write(&header, text.replace(mapping, "0u")).expect("writing the mutant");

    let wave64 = run_plan(Target::Gfx942, &compile(&dir, Target::Gfx942));
    let summary = wave64.summary(Target::Gfx942);
    println!("mutant {summary}");
    for (f, (_, bad)) in &wave64.by_function {
        let uses_ballot_bits = !SHUFFLES.contains(f) && *f != EXITED;
        if uses_ballot_bits {
            assert!(*bad > 0, "the mutant's {f} passed on gfx942\n{summary}");
        } else {
            assert_eq!(*bad, 0, "the mutant's {f} failed on gfx942\n{summary}");
        }
    }
    assert!(wave64.checks() > 0);

    // On wave32 the wavefront is the warp: the shift was 0 already.
    let wave32 = run_plan(Target::Gfx1100, &compile(&dir, Target::Gfx1100));
    let summary = wave32.summary(Target::Gfx1100);
    println!("mutant {summary}");
    assert_eq!(wave32.mismatches(), 0, "{summary}");
    assert!(wave32.checks() > 0);
}
