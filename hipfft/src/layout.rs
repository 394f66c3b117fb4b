//! The geometry of a plan: transform kind, sizes, batch and the data
//! layout on each side, resolved and checked before any hipFFT call.

use crate::error::{Error, Result};

/// What a plan transforms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transform {
    /// Complex to complex, forward (`HIPFFT_FORWARD`) or inverse
    /// (`HIPFFT_BACKWARD`).
    C2C,
    /// Real to complex (forward only): `n` reals give `n/2 + 1` complex
    /// values along the last dimension (the rest are their conjugates).
    R2C,
    /// Complex to real (inverse only): `n/2 + 1` complex values along the
    /// last dimension give `n` reals.
    C2R,
}

/// An advanced data layout (hipFFT's `embed`/`stride`/`dist`, in elements
/// of that side's type): element `(x0, .., x(r-1))` of transform `b` is at
/// `b * dist + stride * (x(r-1) + embed[r-1] * (x(r-2) + embed[r-2] * ..))`.
/// `embed[0]` only documents the outermost extent; `dist` places the
/// transforms of a batch.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    /// The storage extent of each dimension (outermost first).
    pub embed: Vec<usize>,
    /// The distance between two consecutive elements of the innermost
    /// dimension.
    pub stride: usize,
    /// The distance between the first elements of two transforms of a
    /// batch.
    pub dist: usize,
}

impl Layout {
    /// A layout of the given storage extents, stride and batch distance.
    pub fn new(embed: &[usize], stride: usize, dist: usize) -> Layout {
        Layout {
            embed: embed.to_vec(),
            stride,
            dist,
        }
    }

    /// The packed layout of `dims`: stride 1, transforms one after another.
    /// Where the sizes' product overflows `usize`, `dist` is `usize::MAX`
    /// (no plan accepts such sizes).
    pub fn packed(dims: &[usize]) -> Layout {
        Layout {
            embed: dims.to_vec(),
            stride: 1,
            dist: dims
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(d))
                .unwrap_or(usize::MAX),
        }
    }

    /// How many elements a batch of `batch` transforms of logical sizes
    /// `dims` reaches in this layout (the largest offset plus one); `None`
    /// when that overflows `usize`.
    pub fn required_len(&self, dims: &[usize], batch: usize) -> Option<usize> {
        let mut last = 0usize;
        // A dimension's scale matters only where it has more than one
        // element: an outer extent too large to multiply (`embed[0]`, or
        // any extent outside dimensions of size 1) is no overflow.
        let mut scale = Some(self.stride);
        for (d, e) in dims.iter().zip(&self.embed).rev() {
            let steps = d.checked_sub(1)?;
            if steps > 0 {
                last = last.checked_add(steps.checked_mul(scale?)?)?;
            }
            scale = scale.and_then(|s| s.checked_mul(*e));
        }
        let batches = batch.checked_sub(1)?;
        if batches > 0 {
            last = last.checked_add(batches.checked_mul(self.dist)?)?;
        }
        last.checked_add(1)
    }
}

/// A plan's geometry, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub(crate) transform: Transform,
    pub(crate) dims: Vec<usize>,
    pub(crate) batch: usize,
    pub(crate) in_place: bool,
    pub(crate) input: Layout,
    pub(crate) output: Layout,
    /// Logical sizes on the input side (`n/2 + 1` last for C2R).
    pub(crate) input_dims: Vec<usize>,
    /// Logical sizes on the output side (`n/2 + 1` last for R2C).
    pub(crate) output_dims: Vec<usize>,
    /// Elements the input reaches.
    pub(crate) input_len: usize,
    /// Elements the output reaches.
    pub(crate) output_len: usize,
}

/// The sizes with the last one as the complex side of a real transform
/// holds it: `n/2 + 1`.
pub fn half_complex_dims(dims: &[usize]) -> Vec<usize> {
    let mut c = dims.to_vec();
    if let Some(last) = c.last_mut() {
        *last = *last / 2 + 1;
    }
    c
}

/// The largest size hipFFT takes in one dimension (a `long long`, and the
/// products must fit too).
const MAX_LEN: usize = i64::MAX as usize;

fn check_layout(
    name: &'static str,
    layout: &Layout,
    dims: &[usize],
    batch: usize,
) -> Result<usize> {
    if layout.embed.len() != dims.len() {
        return Err(Error::plan(
            name,
            format!(
                "embed has {} extents for a {}-dimensional transform",
                layout.embed.len(),
                dims.len()
            ),
        ));
    }
    if layout.stride == 0 {
        return Err(Error::plan(name, "stride must be at least 1"));
    }
    if layout.dist == 0 && batch > 1 {
        return Err(Error::plan(name, "dist must be at least 1 for a batch"));
    }
    for (i, (e, d)) in layout.embed.iter().zip(dims).enumerate().skip(1) {
        if e < d {
            return Err(Error::plan(
                name,
                format!("embed[{i}] = {e} is smaller than the transform's size {d} there"),
            ));
        }
    }
    match layout.required_len(dims, batch) {
        Some(len) if len <= MAX_LEN => Ok(len),
        _ => Err(Error::plan(name, "the layout's extent overflows")),
    }
}

/// Checks the sizes, batch and layouts and fills in the defaults: packed
/// layouts, and for an in-place real transform the real side's rows padded
/// to `2 * (n/2 + 1)` reals so the complex output fits in the same memory.
pub(crate) fn resolve(
    transform: Transform,
    dims: &[usize],
    batch: usize,
    in_place: bool,
    input: Option<Layout>,
    output: Option<Layout>,
) -> Result<Shape> {
    if dims.is_empty() || dims.len() > 3 {
        return Err(Error::plan(
            "dims",
            format!(
                "{} dimensions given; hipFFT plans have 1, 2 or 3",
                dims.len()
            ),
        ));
    }
    if let Some(i) = dims.iter().position(|&d| d == 0) {
        return Err(Error::plan("dims", format!("dims[{i}] is 0")));
    }
    if batch == 0 {
        return Err(Error::plan("batch", "must be at least 1"));
    }
    let total = dims
        .iter()
        .try_fold(batch, |acc, &d| acc.checked_mul(d))
        .filter(|&t| t <= MAX_LEN);
    if total.is_none() {
        return Err(Error::plan("dims", "the batch's element count overflows"));
    }
    let complex = half_complex_dims(dims);
    let (input_dims, output_dims) = match transform {
        Transform::C2C => (dims.to_vec(), dims.to_vec()),
        Transform::R2C => (dims.to_vec(), complex.clone()),
        Transform::C2R => (complex.clone(), dims.to_vec()),
    };
    // The real side of an in-place real transform: rows of 2 * (n/2 + 1)
    // reals, which is exactly the complex side's bytes.
    let padded_real = || {
        let mut e = dims.to_vec();
        if let Some(last) = e.last_mut() {
            *last = 2 * (*last / 2 + 1);
        }
        Layout::packed(&e)
    };
    let default_for = |side_dims: &[usize], real_side: bool| {
        if in_place && real_side && transform != Transform::C2C {
            padded_real()
        } else {
            Layout::packed(side_dims)
        }
    };
    let input = input.unwrap_or_else(|| default_for(&input_dims, transform == Transform::R2C));
    let output = output.unwrap_or_else(|| default_for(&output_dims, transform == Transform::C2R));
    let input_len = check_layout("input layout", &input, &input_dims, batch)?;
    let output_len = check_layout("output layout", &output, &output_dims, batch)?;
    if in_place && transform == Transform::C2C && input != output {
        return Err(Error::plan(
            "output layout",
            "an in-place C2C transform reads and writes one layout: the two must be equal",
        ));
    }
    Ok(Shape {
        transform,
        dims: dims.to_vec(),
        batch,
        in_place,
        input,
        output,
        input_dims,
        output_dims,
        input_len,
        output_len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzz/fuzz_targets/hipfft_layout.rs: the product of sizes
    /// overflowed (a panic with overflow checks).
    #[test]
    fn packed_layout_of_overflowing_sizes_is_refused_not_a_panic() {
        let dims = [usize::MAX, 3];
        assert_eq!(Layout::packed(&dims).dist, usize::MAX);
        assert_eq!(Layout::packed(&dims).required_len(&dims, 1), None);
        assert!(resolve(Transform::C2C, &dims, 1, false, None, None).is_err());
    }

    /// An outermost extent (or any scale no element uses) too large to
    /// multiply refused a layout whose elements all fit (seen while
    /// writing fuzz/fuzz_targets/hipfft_layout.rs's completeness check).
    #[test]
    fn unused_scales_do_not_overflow() {
        let l = Layout::new(&[usize::MAX, 8], 1, 64);
        assert_eq!(l.required_len(&[4, 8], 2), Some(64 + 3 * 8 + 7 + 1));
        let s = resolve(Transform::C2C, &[4, 8], 2, false, Some(l.clone()), Some(l));
        assert_eq!(s.unwrap().input_len, 96);
        // A size-1 dimension never steps, whatever its scale.
        let l = Layout::new(&[1, usize::MAX, 2], 1, 0);
        assert_eq!(l.required_len(&[1, 1, 2], 1), Some(2));
    }

    #[test]
    fn packed_layouts_reach_every_element_once() {
        let l = Layout::packed(&[4, 6]);
        assert_eq!(l.required_len(&[4, 6], 3), Some(72));
        let strided = Layout::new(&[8], 2, 20);
        // last element: 2 * 7 + 19 * 20 = 394
        assert_eq!(strided.required_len(&[8], 20), Some(395));
    }

    #[test]
    fn in_place_real_rows_are_padded() {
        let s = resolve(Transform::R2C, &[5, 9], 2, true, None, None).unwrap();
        assert_eq!(s.input.embed, [5, 10]);
        assert_eq!(s.output.embed, [5, 5]);
        // The last row's padding is not read: 50 + 4 * 10 + 8 + 1.
        assert_eq!(s.input_len, 99);
        assert_eq!(s.output_len, 50);
        let s = resolve(Transform::C2R, &[8], 1, false, None, None).unwrap();
        assert_eq!((s.input_len, s.output_len), (5, 8));
    }
}
