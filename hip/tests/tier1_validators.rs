//! Tier 1: every validator, with random inputs (proptest). No runtime is
//! needed: these checks run before any FFI call.

use hip::{
    arithmetic_support, check_range, check_same_len, checked_bytes, CompileOptions,
    DeviceAttribute, Error, LaunchConfig, LaunchLimits, PropertiesLayout,
};
use hip_sys::loader::{Platform, Version};
use proptest::prelude::*;
use std::ops::Bound;

fn is_invalid<T: std::fmt::Debug>(r: &hip::Result<T>) -> bool {
    matches!(r, Err(Error::Invalid { .. }))
}

proptest! {
    #[test]
    fn range_checks_match_a_model(len in 0usize..1 << 20, a in 0usize..1 << 21, b in 0usize..1 << 21) {
        let r = check_range("t", len, a..b);
        if a <= b && b <= len {
            prop_assert_eq!(r.unwrap(), a..b);
        } else {
            prop_assert!(is_invalid(&r), "{a}..{b} in {len} accepted");
        }
        let r = check_range("t", len, a..=b);
        if a <= b + 1 && b < len {
            prop_assert_eq!(r.unwrap(), a..b + 1);
        } else {
            prop_assert!(is_invalid(&r));
        }
        prop_assert_eq!(check_range("t", len, a..).ok(), (a <= len).then_some(a..len));
        prop_assert_eq!(check_range("t", len, ..b).ok(), (b <= len).then_some(0..b));
    }

    #[test]
    fn range_checks_never_overflow(len in any::<usize>(), a in any::<usize>(), b in any::<usize>()) {
        // Bounds at usize::MAX must be rejected, not wrap around.
        let _ = check_range("t", len, (Bound::Excluded(a), Bound::Included(b)));
        let r = check_range("t", len, (Bound::Excluded(usize::MAX), Bound::Unbounded));
        prop_assert!(is_invalid(&r));
        let r = check_range("t", len, ..=usize::MAX);
        prop_assert!(is_invalid(&r));
    }

    #[test]
    fn byte_sizes_are_checked(len in any::<usize>()) {
        let r = checked_bytes::<f64>("t", len);
        match len.checked_mul(8) {
            Some(b) => prop_assert_eq!(r.unwrap(), b),
            None => prop_assert!(is_invalid(&r)),
        }
        prop_assert_eq!(checked_bytes::<u8>("t", len).unwrap(), len);
        prop_assert!(is_invalid(&checked_bytes::<()>("t", len)));
        prop_assert!(is_invalid(&checked_bytes::<[f32; 0]>("t", len)));
    }

    #[test]
    fn copy_lengths_must_match(a in any::<usize>(), b in any::<usize>()) {
        let r = check_same_len("t", a, b);
        prop_assert_eq!(r.is_ok(), a == b);
        if a != b {
            let msg = r.unwrap_err().to_string();
            prop_assert!(msg.contains(&a.to_string()) && msg.contains(&b.to_string()), "{msg}");
        }
    }

    #[test]
    fn launch_configs_match_a_model(
        g in (0u32..70_000, 0u32..70_000, 0u32..70_000),
        b in (0u32..1100, 0u32..1100, 0u32..70),
        shared in 0u32..100_000,
    ) {
        let cfg = LaunchConfig { grid: g, block: b, shared_mem_bytes: shared };
        let l = LaunchLimits::COMMON;
        let threads = b.0 as u64 * b.1 as u64 * b.2 as u64;
        let ok = g.0 >= 1 && g.1 >= 1 && g.2 >= 1
            && g.1 <= 65535 && g.2 <= 65535
            && b.0 >= 1 && b.1 >= 1 && b.2 >= 1
            && b.0 <= 1024 && b.1 <= 1024 && b.2 <= 64
            && threads <= 1024
            && shared <= 48 * 1024;
        let r = cfg.validate(&l);
        prop_assert_eq!(r.is_ok(), ok, "{:?}: {:?}", cfg, r);
        if !ok {
            prop_assert!(is_invalid(&r));
        }
    }

    #[test]
    fn threads_along_a_grid_dimension_are_limited(gx in 1u32..=i32::MAX as u32, bx in 1u32..=1024) {
        let cfg = LaunchConfig { grid: (gx, 1, 1), block: (bx, 1, 1), shared_mem_bytes: 0 };
        let threads = gx as u64 * bx as u64;
        let amd = cfg.validate(&LaunchLimits::COMMON);
        prop_assert_eq!(amd.is_ok(), threads <= u32::MAX as u64, "{:?}", amd);
        let unbounded = LaunchLimits { max_threads_per_grid_dim: u64::MAX, ..LaunchLimits::COMMON };
        prop_assert!(cfg.validate(&unbounded).is_ok());
    }

    #[test]
    fn extreme_launch_configs_never_panic(g in any::<(u32, u32, u32)>(), b in any::<(u32, u32, u32)>(), s in any::<u32>()) {
        let cfg = LaunchConfig { grid: g, block: b, shared_mem_bytes: s };
        let _ = cfg.validate(&LaunchLimits::COMMON);
        let _ = cfg.threads_per_block();
    }

    /// Found by fuzz/fuzz_targets/launch_config.rs: `(u32::MAX,
    /// u32::MAX, 0)` gave `None` ("overflow") for a block of 0 threads.
    #[test]
    fn threads_per_block_is_the_exact_product(b in any::<(u32, u32, u32)>()) {
        let cfg = LaunchConfig { grid: (1, 1, 1), block: b, shared_mem_bytes: 0 };
        let exact = u128::from(b.0) * u128::from(b.1) * u128::from(b.2);
        prop_assert_eq!(cfg.threads_per_block().map(u128::from), u32::try_from(exact).ok().map(u128::from));
        let zero = LaunchConfig { block: (u32::MAX, u32::MAX, 0), ..cfg };
        prop_assert_eq!(zero.threads_per_block(), Some(0));
    }

    #[test]
    fn n_element_configs_cover_n_and_are_valid(n in any::<u32>()) {
        let cfg = LaunchConfig::for_num_elems(n);
        let threads = cfg.grid.0 as u64 * cfg.block.0 as u64;
        // AMD counts a dimension's threads in 32 bits: the last 255 values
        // of n need 2^32 threads, which validate rejects and names.
        if threads > u32::MAX as u64 {
            let r = cfg.validate(&LaunchLimits::COMMON);
            prop_assert!(is_invalid(&r) && r.unwrap_err().to_string().contains("4294967296"));
            return Ok(());
        }
        prop_assert!(cfg.validate(&LaunchLimits::COMMON).is_ok());
        let threads = cfg.grid.0 as u64 * cfg.block.0 as u64;
        prop_assert!(threads >= n as u64);
        prop_assert!(threads < n as u64 + cfg.block.0 as u64 || n == 0);
    }

    #[test]
    fn amd_arch_names_never_panic(s in "\\PC{0,24}") {
        let _ = arithmetic_support(Platform::Amd, &s, (0, 0));
    }

    #[test]
    fn compile_options_put_the_arch_first(arch in "[a-z0-9_:+-]{1,20}", opts in proptest::collection::vec("-[A-Za-z0-9=]{1,10}", 0..5)) {
        let mut o = CompileOptions::for_arch(&arch);
        for x in &opts {
            o = o.option(x.clone());
        }
        let args = o.to_args();
        prop_assert_eq!(&args[0], &format!("--offload-arch={arch}"));
        prop_assert_eq!(&args[1..], &opts[..]);
    }
}

// ---- launch configurations built valid or invalid on purpose ----------------
//
// A random configuration is almost never valid (about 1 in 7,500 of the
// model test's draws), so a validator rejecting everything would pass it.
// The strategies below build valid configurations by construction, with
// each limit reached exactly as often as not, and invalid ones by breaking
// exactly one rule of a valid one, by one or by a lot.

/// Limits to check against: the common ones, an NVIDIA-like device (opt-in
/// shared memory, no per-dimension thread cap) and a small made-up device,
/// so that no check can pass by matching `COMMON`'s numbers.
fn limits() -> impl Strategy<Value = LaunchLimits> {
    prop_oneof![
        Just(LaunchLimits::COMMON),
        Just(LaunchLimits {
            max_shared_mem_per_block: 227 * 1024,
            max_threads_per_grid_dim: u64::MAX,
            ..LaunchLimits::COMMON
        }),
        Just(LaunchLimits {
            max_threads_per_block: 256,
            max_block_dim: [256, 128, 8],
            max_grid_dim: [1000, 500, 70],
            max_shared_mem_per_block: 1000,
            max_threads_per_grid_dim: 100_000,
        }),
    ]
}

/// A value in `lo..=hi`: `lo` for selector 0, `hi` for 1, else anywhere.
fn pick(sel: u8, raw: u64, lo: u64, hi: u64) -> u64 {
    assert!(lo <= hi, "{lo}..={hi}");
    match sel % 3 {
        0 => lo,
        1 => hi,
        // The whole of u64 when `lo..=hi` is all of it.
        _ => (hi - lo).checked_add(1).map_or(raw, |n| lo + raw % n),
    }
}

/// A value above `limit`: exactly one above for even selectors, anywhere
/// up to `u32::MAX` for odd ones.
fn above(sel: u8, raw: u64, limit: u32) -> u32 {
    assert!(limit < u32::MAX);
    if sel % 2 == 0 {
        limit + 1
    } else {
        limit + 1 + (raw % u64::from(u32::MAX - limit)) as u32
    }
}

/// Threads a dimension may hold given the block's size along it.
fn grid_cap(l: &LaunchLimits, axis: usize, block: u32) -> u32 {
    let by_threads = (l.max_threads_per_grid_dim / u64::from(block)).min(u64::from(u32::MAX));
    l.max_grid_dim[axis].min(by_threads as u32)
}

/// A configuration every rule of `l` accepts, built dimension by dimension
/// from the room the previous ones left.
fn valid_config(l: &LaunchLimits, d: &[(u8, u64); 7]) -> LaunchConfig {
    let per_block = u64::from(l.max_threads_per_block);
    let bx = pick(
        d[0].0,
        d[0].1,
        1,
        u64::from(l.max_block_dim[0]).min(per_block),
    );
    let by = pick(
        d[1].0,
        d[1].1,
        1,
        u64::from(l.max_block_dim[1]).min(per_block / bx),
    );
    let bz = pick(
        d[2].0,
        d[2].1,
        1,
        u64::from(l.max_block_dim[2]).min(per_block / (bx * by)),
    );
    let block = (bx as u32, by as u32, bz as u32);
    let gx = pick(d[3].0, d[3].1, 1, u64::from(grid_cap(l, 0, block.0)));
    let gy = pick(d[4].0, d[4].1, 1, u64::from(grid_cap(l, 1, block.1)));
    let gz = pick(d[5].0, d[5].1, 1, u64::from(grid_cap(l, 2, block.2)));
    let shared = pick(d[6].0, d[6].1, 0, u64::from(l.max_shared_mem_per_block));
    LaunchConfig {
        grid: (gx as u32, gy as u32, gz as u32),
        block,
        shared_mem_bytes: shared as u32,
    }
}

fn set(t: &mut (u32, u32, u32), axis: usize, v: u32) {
    match axis {
        0 => t.0 = v,
        1 => t.1 = v,
        _ => t.2 = v,
    }
}

/// The rejection's reason, or a failure saying what was accepted.
fn rejection(cfg: &LaunchConfig, l: &LaunchLimits) -> Result<String, TestCaseError> {
    match cfg.validate(l) {
        Err(Error::Invalid { operation, reason }) => {
            prop_assert_eq!(operation, "LaunchConfig::validate");
            Ok(reason)
        }
        other => Err(TestCaseError::fail(format!(
            "{cfg:?} under {l:?}: expected Invalid, got {other:?}"
        ))),
    }
}

const AXES: [&str; 3] = ["x", "y", "z"];

proptest! {
    #[test]
    fn configs_built_within_every_limit_are_accepted(l in limits(), d in any::<[(u8, u64); 7]>()) {
        let cfg = valid_config(&l, &d);
        prop_assert!(cfg.validate(&l).is_ok(), "{:?} under {:?}: {:?}", cfg, l, cfg.validate(&l));
        let t = cfg.threads_per_block().unwrap();
        prop_assert!(t <= l.max_threads_per_block);
    }

    #[test]
    fn a_zero_dimension_is_rejected(l in limits(), d in any::<[(u8, u64); 7]>(), which in 0usize..6) {
        let mut cfg = valid_config(&l, &d);
        if which < 3 { set(&mut cfg.grid, which, 0) } else { set(&mut cfg.block, which - 3, 0) }
        let reason = rejection(&cfg, &l)?;
        prop_assert!(reason.contains("zero dimension"), "{}", reason);
    }

    #[test]
    fn a_block_dimension_over_its_limit_is_rejected_by_name(
        l in limits(), d in any::<[(u8, u64); 7]>(), axis in 0usize..3, sel in any::<u8>(), raw in any::<u64>(),
    ) {
        let mut cfg = valid_config(&l, &d);
        cfg.grid = (1, 1, 1);
        let v = above(sel, raw, l.max_block_dim[axis]);
        set(&mut cfg.block, axis, v);
        let reason = rejection(&cfg, &l)?;
        let want = format!("block.{} = {v} exceeds the device's {}", AXES[axis], l.max_block_dim[axis]);
        prop_assert!(reason.contains(&want), "{} lacks {}", reason, want);
    }

    #[test]
    fn a_grid_dimension_over_its_limit_is_rejected_by_name(
        l in limits(), d in any::<[(u8, u64); 7]>(), axis in 0usize..3, sel in any::<u8>(), raw in any::<u64>(),
    ) {
        let mut cfg = valid_config(&l, &d);
        // One thread per block: only the grid limit can be exceeded.
        cfg.block = (1, 1, 1);
        // The grid limit is checked before the threads along the axis.
        let v = above(sel, raw, l.max_grid_dim[axis]);
        set(&mut cfg.grid, axis, v);
        let reason = rejection(&cfg, &l)?;
        let want = format!("grid.{} = {v} exceeds the device's {}", AXES[axis], l.max_grid_dim[axis]);
        prop_assert!(reason.contains(&want), "{} lacks {}", reason, want);
    }

    #[test]
    fn too_many_threads_per_block_are_rejected(
        l in limits(), bx in any::<u64>(), by in any::<u64>(), bz in any::<u64>(), shared in any::<u64>(),
    ) {
        // Every dimension within its own limit, the product over the total.
        let per_block = u64::from(l.max_threads_per_block);
        let bx = 1 + bx % u64::from(l.max_block_dim[0]);
        let bz = 1 + bz % u64::from(l.max_block_dim[2]);
        let by_min = (per_block / (bx * bz) + 1).max(1);
        let by_max = u64::from(l.max_block_dim[1]);
        prop_assume!(by_min <= by_max);
        let by = by_min + by % (by_max - by_min + 1);
        let cfg = LaunchConfig {
            grid: (1, 1, 1),
            block: (bx as u32, by as u32, bz as u32),
            shared_mem_bytes: (shared % (u64::from(l.max_shared_mem_per_block) + 1)) as u32,
        };
        let reason = rejection(&cfg, &l)?;
        let want = format!("has {} threads; the device allows {}", bx * by * bz, per_block);
        prop_assert!(reason.contains(&want), "{} lacks {}", reason, want);
    }

    #[test]
    fn too_many_threads_along_a_grid_dimension_are_rejected(
        l in limits(), bx in any::<u64>(), sel in any::<u8>(), raw in any::<u64>(),
    ) {
        prop_assume!(l.max_threads_per_grid_dim < u64::MAX);
        let bx = 2 + bx % (u64::from(l.max_block_dim[0].min(l.max_threads_per_block)) - 1);
        // The fewest blocks that exceed the cap, or more, within grid.x's limit.
        let least = l.max_threads_per_grid_dim / bx + 1;
        let most = u64::from(l.max_grid_dim[0]);
        prop_assume!(least <= most);
        let gx = if sel % 2 == 0 { least } else { least + raw % (most - least + 1) };
        let cfg = LaunchConfig { grid: (gx as u32, 1, 1), block: (bx as u32, 1, 1), shared_mem_bytes: 0 };
        let reason = rejection(&cfg, &l)?;
        let want = format!("grid.x * block.x = {} threads exceeds", gx * bx);
        prop_assert!(reason.contains(&want), "{} lacks {}", reason, want);
    }

    #[test]
    fn shared_memory_over_the_limit_is_rejected(
        l in limits(), d in any::<[(u8, u64); 7]>(), sel in any::<u8>(), raw in any::<u64>(),
    ) {
        let mut cfg = valid_config(&l, &d);
        cfg.shared_mem_bytes = above(sel, raw, l.max_shared_mem_per_block);
        let reason = rejection(&cfg, &l)?;
        let want = format!("{} bytes of shared memory exceed the device's {}", cfg.shared_mem_bytes, l.max_shared_mem_per_block);
        prop_assert!(reason.contains(&want), "{} lacks {}", reason, want);
    }
}

/// The exact edges of `COMMON`, one by one.
#[test]
fn launch_limits_at_and_one_past_each_edge() {
    let l = LaunchLimits::COMMON;
    let cfg = |grid, block, shared_mem_bytes| LaunchConfig {
        grid,
        block,
        shared_mem_bytes,
    };
    let accepted = [
        cfg((1, 1, 1), (1, 1, 1), 0),
        cfg((1, 1, 1), (1024, 1, 1), 48 * 1024),
        cfg((1, 1, 1), (1, 1024, 1), 0),
        cfg((1, 1, 1), (16, 1, 64), 0),
        cfg((1, 1, 1), (32, 32, 1), 0),
        cfg((i32::MAX as u32, 65535, 65535), (1, 1, 1), 0),
        // 2^24 blocks of 255 threads: one block short of 2^32 threads.
        cfg((1 << 24, 1, 1), (255, 1, 1), 0),
        cfg((4_194_303, 1, 1), (1024, 1, 1), 0),
    ];
    for c in accepted {
        assert!(c.validate(&l).is_ok(), "{c:?}: {:?}", c.validate(&l));
    }
    let rejected = [
        (cfg((1, 1, 1), (1025, 1, 1), 0), "block.x = 1025"),
        (cfg((1, 1, 1), (1, 1025, 1), 0), "block.y = 1025"),
        (cfg((1, 1, 1), (1, 1, 65), 0), "block.z = 65"),
        (cfg((1, 1, 1), (41, 25, 1), 0), "has 1025 threads"),
        (cfg((1, 1, 1), (32, 32, 2), 0), "has 2048 threads"),
        (cfg((1, 1, 1), (1024, 1024, 64), 0), "has 67108864 threads"),
        (
            cfg((i32::MAX as u32 + 1, 1, 1), (1, 1, 1), 0),
            "grid.x = 2147483648",
        ),
        (cfg((1, 65536, 1), (1, 1, 1), 0), "grid.y = 65536"),
        (cfg((1, 1, 65536), (1, 1, 1), 0), "grid.z = 65536"),
        (
            cfg((1 << 24, 1, 1), (256, 1, 1), 0),
            "grid.x * block.x = 4294967296",
        ),
        (
            cfg((4_194_304, 1, 1), (1024, 1, 1), 0),
            "grid.x * block.x = 4294967296",
        ),
        (cfg((1, 1, 1), (1, 1, 1), 48 * 1024 + 1), "49153 bytes"),
        (cfg((1, 1, 1), (1, 1, 1), u32::MAX), "4294967295 bytes"),
        (cfg((0, 1, 1), (1, 1, 1), 0), "zero dimension"),
        (cfg((1, 1, 1), (1, 1, 0), 0), "zero dimension"),
        (
            cfg(
                (u32::MAX, u32::MAX, u32::MAX),
                (u32::MAX, u32::MAX, u32::MAX),
                u32::MAX,
            ),
            "block.x = 4294967295",
        ),
    ];
    for (c, want) in rejected {
        match c.validate(&l) {
            Err(Error::Invalid { reason, .. }) => assert!(reason.contains(want), "{c:?}: {reason}"),
            other => panic!("{c:?}: expected a rejection naming {want:?}, got {other:?}"),
        }
    }
}

// ---- ranges built on each boundary -----------------------------------------

/// A buffer length: small, or near the top of `usize` where `+ 1` wraps.
fn buffer_len() -> impl Strategy<Value = usize> {
    prop_oneof![
        0usize..64,
        Just(0usize),
        Just(usize::MAX - 1),
        Just(usize::MAX),
        any::<usize>()
    ]
}

fn rejects(len: usize, r: hip::Result<std::ops::Range<usize>>) -> Result<(), TestCaseError> {
    match r {
        Err(Error::Invalid { operation, reason }) => {
            prop_assert_eq!(operation, "t");
            prop_assert!(reason.contains(&format!("0..{len}")), "{}", reason);
            Ok(())
        }
        other => Err(TestCaseError::fail(format!(
            "within 0..{len}: expected Invalid, got {other:?}"
        ))),
    }
}

proptest! {
    #[test]
    fn ranges_inside_the_buffer_are_accepted_edges_included(len in buffer_len(), a in any::<u64>(), b in any::<u64>(), sa in any::<u8>(), sb in any::<u8>()) {
        let end = pick(sb, b, 0, len as u64) as usize;
        let start = pick(sa, a, 0, end as u64) as usize;
        prop_assert_eq!(check_range("t", len, start..end).unwrap(), start..end);
        prop_assert_eq!(check_range("t", len, start..start).unwrap(), start..start);
        prop_assert_eq!(check_range("t", len, start..len).unwrap(), start..len);
        prop_assert_eq!(check_range("t", len, len..len).unwrap(), len..len);
        prop_assert_eq!(check_range("t", len, start..).unwrap(), start..len);
        prop_assert_eq!(check_range("t", len, ..end).unwrap(), 0..end);
        prop_assert_eq!(check_range("t", len, ..).unwrap(), 0..len);
        if end > 0 {
            // An inclusive end one below `end`, up to the last element.
            prop_assert_eq!(check_range("t", len, start..=end - 1).unwrap(), start..end);
            prop_assert_eq!(check_range("t", len, ..=end - 1).unwrap(), 0..end);
        }
        if start > 0 {
            let excluded = (Bound::Excluded(start - 1), Bound::Excluded(end));
            prop_assert_eq!(check_range("t", len, excluded).unwrap(), start..end);
        }
    }

    #[test]
    fn ranges_past_the_buffer_or_reversed_are_rejected(len in buffer_len(), a in any::<u64>(), sel in any::<u8>(), over in any::<u64>()) {
        let start = pick(sel, a, 0, len as u64) as usize;
        if len < usize::MAX {
            // One past the end, and anywhere further.
            let past = len + 1 + (over % (usize::MAX - len) as u64) as usize;
            rejects(len, check_range("t", len, start..len + 1))?;
            rejects(len, check_range("t", len, start..past))?;
            rejects(len, check_range("t", len, ..len + 1))?;
            rejects(len, check_range("t", len, len + 1..))?;
            rejects(len, check_range("t", len, past..))?;
            rejects(len, check_range("t", len, past..past))?;
        }
        // An inclusive end at `len` is one past the last element.
        rejects(len, check_range("t", len, start..=len))?;
        rejects(len, check_range("t", len, ..=len))?;
        // Excluding `len` as the start begins one past the end.
        rejects(len, check_range("t", len, (Bound::Excluded(len), Bound::Unbounded)))?;
        if start > 0 {
            // Reversed: start one above the end, or far above it.
            rejects(len, check_range("t", len, start..start - 1))?;
            rejects(len, check_range("t", len, start..0))?;
        }
        if start > 1 {
            rejects(len, check_range("t", len, start..=start - 2))?;
        }
    }
}

#[test]
fn ranges_at_each_edge_of_a_ten_element_buffer() {
    let ok = |r: std::ops::Range<usize>, want: std::ops::Range<usize>| {
        assert_eq!(check_range("t", 10, r.clone()).unwrap(), want, "{r:?}");
    };
    ok(0..10, 0..10);
    ok(10..10, 10..10);
    ok(0..0, 0..0);
    ok(9..10, 9..10);
    ok(5..5, 5..5);
    assert_eq!(check_range("t", 10, 0..=9).unwrap(), 0..10);
    assert_eq!(check_range("t", 10, 10..).unwrap(), 10..10);
    assert_eq!(check_range("t", 0, ..).unwrap(), 0..0);
    // Reversed ranges are built from bounds: clippy rejects literal ones.
    let (six, ten) = (std::hint::black_box(6), std::hint::black_box(10));
    for bad in [0..11, 10..11, 11..11, 11..12, six..six - 1, ten..ten - 1] {
        assert!(is_invalid(&check_range("t", 10, bad.clone())), "{bad:?}");
    }
    assert!(is_invalid(&check_range("t", 10, 0..=10)));
    assert!(is_invalid(&check_range("t", 10, 11..)));
    assert!(is_invalid(&check_range("t", 0, 0..=0)));
    assert!(is_invalid(&check_range(
        "t",
        10,
        (Bound::Excluded(10), Bound::Unbounded)
    )));
}

#[test]
fn arithmetic_support_table() {
    assert_eq!(
        arithmetic_support(Platform::Nvidia, "sm_90", (9, 0)),
        (true, true)
    );
    assert_eq!(
        arithmetic_support(Platform::Nvidia, "sm_75", (7, 5)),
        (true, false)
    );
    assert_eq!(
        arithmetic_support(Platform::Nvidia, "sm_52", (5, 2)),
        (false, false)
    );
    assert_eq!(
        arithmetic_support(Platform::Amd, "gfx90a:sramecc+:xnack-", (9, 0)),
        (true, true)
    );
    assert_eq!(
        arithmetic_support(Platform::Amd, "gfx942", (9, 4)),
        (true, true)
    );
    assert_eq!(
        arithmetic_support(Platform::Amd, "gfx908", (9, 0)),
        (true, false)
    );
    assert_eq!(
        arithmetic_support(Platform::Amd, "gfx1100", (11, 0)),
        (true, true)
    );
    assert_eq!(
        arithmetic_support(Platform::Amd, "gfx1030", (10, 3)),
        (true, false)
    );
    assert_eq!(
        arithmetic_support(Platform::Amd, "gfx701", (7, 0)),
        (false, false)
    );
    assert_eq!(
        arithmetic_support(Platform::Amd, "", (0, 0)),
        (false, false)
    );
}

#[test]
fn properties_layout_follows_the_runtime_version() {
    let v = |major| Version {
        major,
        minor: 0,
        patch: 0,
    };
    assert_eq!(
        PropertiesLayout::for_runtime(Platform::Amd, v(5)),
        PropertiesLayout::R0000
    );
    assert_eq!(
        PropertiesLayout::for_runtime(Platform::Amd, v(6)),
        PropertiesLayout::R0600
    );
    assert_eq!(
        PropertiesLayout::for_runtime(Platform::Amd, v(7)),
        PropertiesLayout::R0600
    );
    assert_eq!(
        PropertiesLayout::for_runtime(Platform::Nvidia, v(12)),
        PropertiesLayout::R0600
    );
    assert_eq!(
        PropertiesLayout::for_runtime(Platform::Nvidia, v(5)),
        PropertiesLayout::R0600
    );
}

#[test]
fn every_device_attribute_maps_to_its_c_name() {
    let mut seen = std::collections::HashSet::new();
    for a in DeviceAttribute::ALL {
        let raw = a.raw();
        let name = raw.name().expect("a known value");
        assert!(name.starts_with("hipDeviceAttribute"), "{a:?} -> {name}");
        // `name()` gives the first C name of a value; the range markers
        // (`...Begin`) share their value with the first real attribute.
        if !name.ends_with("Begin") {
            let short = name
                .trim_start_matches("hipDeviceAttribute")
                .to_ascii_lowercase();
            assert_eq!(
                short,
                format!("{a:?}").to_ascii_lowercase(),
                "{a:?} -> {name}"
            );
        }
        assert!(seen.insert(raw.0), "{a:?} duplicates value {}", raw.0);
    }
    // Every real attribute of the C enum is covered: its named values below
    // the vendor-specific range, minus End markers and Unused placeholders.
    let covered = (0..20_000u32)
        .map(hip_sys::hipDeviceAttribute_t)
        .filter(|r| {
            r.name()
                .is_some_and(|n| !n.ends_with("End") && !n.contains("Unused"))
        })
        .count();
    assert_eq!(covered, DeviceAttribute::ALL.len());
}

#[test]
fn errors_say_what_and_with_which_values() {
    let e = check_range("DeviceBuffer::slice", 10, 4..12).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("DeviceBuffer::slice") && msg.contains("12") && msg.contains("10"),
        "{msg}"
    );
    let e = LaunchConfig {
        grid: (1, 1, 1),
        block: (2048, 1, 1),
        shared_mem_bytes: 0,
    }
    .validate(&LaunchLimits::COMMON)
    .unwrap_err();
    assert!(e.to_string().contains("2048"), "{e}");
}

/// The largest element counts need 2^32 threads, more than AMD's runtime can
/// count along one dimension: rejected before any runtime call, by name.
#[test]
fn the_largest_n_element_config_is_rejected_on_amd_limits() {
    let cfg = LaunchConfig::for_num_elems(u32::MAX);
    assert_eq!(cfg.grid.0 as u64 * cfg.block.0 as u64, 1 << 32);
    let err = cfg.validate(&LaunchLimits::COMMON).unwrap_err().to_string();
    assert!(err.contains("grid.x * block.x = 4294967296"), "{err}");
    let fits = LaunchConfig::for_num_elems(u32::MAX - 255);
    assert!(fits.validate(&LaunchLimits::COMMON).is_ok());
}
