//! `LaunchConfig::validate` against arbitrary device limits: it accepts a
//! configuration exactly when every limit holds, computed here again in
//! 128-bit arithmetic.
#![no_main]

use hip::{LaunchConfig, LaunchLimits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    |input: ([u32; 3], [u32; 3], u32, u32, [u32; 3], [u32; 3], u32, u64)| {
        let (grid, block, shared, max_tpb, max_block, max_grid, max_shared, max_tpg) = input;
        let config = LaunchConfig {
            grid: (grid[0], grid[1], grid[2]),
            block: (block[0], block[1], block[2]),
            shared_mem_bytes: shared,
        };
        let limits = LaunchLimits {
            max_threads_per_block: max_tpb,
            max_block_dim: max_block,
            max_grid_dim: max_grid,
            max_shared_mem_per_block: max_shared,
            max_threads_per_grid_dim: max_tpg,
        };
        let threads: u128 = block.iter().map(|&b| u128::from(b)).product();
        let fits = !grid.contains(&0)
            && !block.contains(&0)
            && (0..3).all(|i| {
                block[i] <= max_block[i]
                    && grid[i] <= max_grid[i]
                    && u128::from(grid[i]) * u128::from(block[i]) <= u128::from(max_tpg)
            })
            && threads <= u128::from(max_tpb)
            && shared <= max_shared;
        let r = config.validate(&limits);
        assert_eq!(r.is_ok(), fits, "{config:?} {limits:?}: {r:?}");
        assert_eq!(
            config.threads_per_block().map(u128::from),
            Some(threads).filter(|&t| t <= u128::from(u32::MAX))
        );
        // Every default configuration is valid on the common limits.
        let n = grid[0];
        let d = LaunchConfig::for_num_elems(n);
        assert_eq!(
            d.validate(&LaunchLimits::COMMON).is_ok(),
            n <= u32::MAX - 255
        );
    }
);
