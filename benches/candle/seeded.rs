//! What the candle benchmarks share (a module of each benchmark binary):
//! splitmix64 random numbers and seeded model weights, the same on every
//! machine and in both builds.

use candle_core::{DType, Device, Result, Tensor};
use candle_nn::{VarBuilder, VarMap};
use std::collections::HashMap;

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
    pub fn vec(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| scale * self.next_f32()).collect()
    }
}

/// A model's weights, seeded: names and shapes from a CPU build of the
/// model, values uniform in +-1/sqrt(fan-in); norm scales and variances
/// near 1, norm shifts and means near 0.
///
/// `shapes` builds the model on a throwaway builder, to name its weights;
/// the returned builder holds their seeded values.
pub fn seeded(
    shapes: impl Fn(VarBuilder) -> Result<()>,
    dtype: DType,
    dev: &Device,
) -> Result<VarBuilder<'static>> {
    let map = VarMap::new();
    shapes(VarBuilder::from_varmap(&map, DType::F32, &Device::Cpu))?;
    let vars = map.data().lock().expect("var map").clone();
    let mut names: Vec<_> = vars.keys().cloned().collect();
    names.sort();
    let mut rng = Rng(0x5eed);
    let mut tensors = HashMap::new();
    for name in names {
        let shape = vars[&name].shape().clone();
        let n = shape.elem_count();
        let fan_in = shape.dims().iter().skip(1).product::<usize>().max(1) as f32;
        let is_norm = name.contains("norm") || name.contains("bn") || name.contains("downsample.1");
        let values: Vec<f32> = if name.ends_with("running_var") {
            (0..n).map(|_| 1.0 + 0.1 * rng.next_f32().abs()).collect()
        } else if is_norm && (name.ends_with("weight") || name.ends_with("gamma")) {
            (0..n).map(|_| 1.0 + 0.1 * rng.next_f32()).collect()
        } else if is_norm || name.ends_with("bias") || name.ends_with("running_mean") {
            rng.vec(n, 0.02)
        } else {
            rng.vec(n, fan_in.sqrt().recip())
        };
        let t = Tensor::from_vec(values, shape, dev)?.to_dtype(dtype)?;
        tensors.insert(name, t);
    }
    Ok(VarBuilder::from_tensors(tensors, dtype, dev))
}
