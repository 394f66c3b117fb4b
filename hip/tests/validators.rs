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
