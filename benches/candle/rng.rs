//! The benchmarks' random numbers: splitmix64, the same stream on every
//! machine and in both builds (a module of each candle benchmark binary).

/// splitmix64.
pub struct Rng(pub u64);

impl Rng {
    /// The next value, uniform in [-1, 1).
    pub fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }

    /// `n` values uniform in [-scale, scale).
    #[allow(dead_code)]
    pub fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| scale * self.next_f32()).collect()
    }
}
