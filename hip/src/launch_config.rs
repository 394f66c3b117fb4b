//! Launch configurations: grid and block dimensions and dynamic shared
//! memory, checked against a device's limits.
//!
//! A leaf module (it needs only the device's limits and the error type), so
//! `launch` and `module` both use it without importing each other.

use crate::device::LaunchLimits;
use crate::error::{Error, Result};

/// Grid and block dimensions and dynamic shared memory of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks along x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block along x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// Threads per block used by [`LaunchConfig::for_num_elems`].
    pub const DEFAULT_BLOCK: u32 = 256;

    /// One thread per element in 1-D: blocks of 256, enough blocks to cover
    /// `n` (at least one, so `n == 0` is a valid no-op launch for kernels
    /// that check their bounds). For `n` above `u32::MAX - 255` that takes
    /// 2^32 threads, which AMD's runtime cannot launch along one dimension
    /// ([`LaunchConfig::validate`] says so): use a grid-stride loop there.
    pub const fn for_num_elems(n: u32) -> LaunchConfig {
        let blocks = n.div_ceil(Self::DEFAULT_BLOCK);
        LaunchConfig {
            grid: (if blocks == 0 { 1 } else { blocks }, 1, 1),
            block: (Self::DEFAULT_BLOCK, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// Total threads per block, or `None` when that exceeds `u32::MAX`.
    pub fn threads_per_block(&self) -> Option<u32> {
        let (x, y, z) = self.block;
        // A zero dimension makes zero, whatever the two others multiply to.
        if x == 0 || y == 0 || z == 0 {
            return Some(0);
        }
        x.checked_mul(y)?.checked_mul(z)
    }

    /// Checks the configuration against a device's limits: no zero
    /// dimension, per-dimension and total block limits, grid limits, the
    /// threads along each grid dimension, and shared memory.
    pub fn validate(&self, limits: &LaunchLimits) -> Result<()> {
        let bad = |reason: String| Err(Error::invalid("LaunchConfig::validate", reason));
        let g = [self.grid.0, self.grid.1, self.grid.2];
        let b = [self.block.0, self.block.1, self.block.2];
        if g.contains(&0) || b.contains(&0) {
            return bad(format!(
                "zero dimension in grid {:?} / block {:?}",
                self.grid, self.block
            ));
        }
        for (i, axis) in ["x", "y", "z"].iter().enumerate() {
            if b[i] > limits.max_block_dim[i] {
                return bad(format!(
                    "block.{axis} = {} exceeds the device's {}",
                    b[i], limits.max_block_dim[i]
                ));
            }
            if g[i] > limits.max_grid_dim[i] {
                return bad(format!(
                    "grid.{axis} = {} exceeds the device's {}",
                    g[i], limits.max_grid_dim[i]
                ));
            }
            let threads = u64::from(g[i]) * u64::from(b[i]);
            if threads > limits.max_threads_per_grid_dim {
                return bad(format!(
                    "grid.{axis} * block.{axis} = {threads} threads exceeds the device's {}",
                    limits.max_threads_per_grid_dim
                ));
            }
        }
        match self.threads_per_block() {
            Some(t) if t <= limits.max_threads_per_block => {}
            t => {
                return bad(format!(
                    "block {:?} has {} threads; the device allows {}",
                    self.block,
                    t.map_or_else(|| "too many".to_string(), |t| t.to_string()),
                    limits.max_threads_per_block
                ))
            }
        }
        if self.shared_mem_bytes > limits.max_shared_mem_per_block {
            return bad(format!(
                "{} bytes of shared memory exceed the device's {}",
                self.shared_mem_bytes, limits.max_shared_mem_per_block
            ));
        }
        Ok(())
    }
}
