//! hipFFT's plan geometry (hipfft/src/layout.rs) on arbitrary sizes,
//! batches and layouts: an accepted plan's buffer lengths are exactly one
//! past the largest offset any transform touches (computed here again in
//! 128-bit arithmetic), fit hipFFT's 64-bit sizes, and default layouts of
//! in-place real transforms give both sides the same bytes.
#![no_main]

use hipfft::fuzzing::resolve;
use hipfft::{half_complex_dims, Layout, Transform};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct ArbLayout {
    embed: Vec<usize>,
    stride: usize,
    dist: usize,
}

#[derive(Arbitrary, Debug)]
struct Input {
    transform: u8,
    dims: Vec<usize>,
    batch: usize,
    in_place: bool,
    input: Option<ArbLayout>,
    output: Option<ArbLayout>,
}

/// One past the largest offset `layout` reaches for `batch` transforms of
/// `dims`, or `None` when that is not a positive count.
fn reach(layout: &Layout, dims: &[usize], batch: usize) -> Option<u128> {
    if batch == 0 || dims.iter().any(|&d| d == 0) {
        return None;
    }
    // A dimension's scale matters only where it has more than one element.
    let mut last = 0u128;
    let mut scale = Some(layout.stride as u128);
    for (i, &d) in dims.iter().enumerate().rev() {
        if d > 1 {
            last = last.checked_add((d as u128 - 1).checked_mul(scale?)?)?;
        }
        let e = *layout.embed.get(i)? as u128;
        scale = scale.and_then(|s| s.checked_mul(e));
    }
    last.checked_add((batch as u128 - 1).checked_mul(layout.dist as u128)?)?
        .checked_add(1)
}

fuzz_target!(|input: Input| {
    let transform =
        [Transform::C2C, Transform::R2C, Transform::C2R][usize::from(input.transform % 3)];
    let to_layout = |l: &ArbLayout| Layout::new(&l.embed, l.stride, l.dist);
    let (input_layout, output_layout) = (
        input.input.as_ref().map(to_layout),
        input.output.as_ref().map(to_layout),
    );
    // The public pieces alone never panic, and agree with the reference
    // where the extent fits.
    for l in input_layout.iter().chain(&output_layout) {
        if l.embed.len() == input.dims.len() {
            let got = l.required_len(&input.dims, input.batch);
            let want = reach(l, &input.dims, input.batch);
            if let Some(got) = got {
                assert_eq!(Some(got as u128), want);
            }
        }
    }
    let packed = Layout::packed(&input.dims);
    assert_eq!(packed.stride, 1);
    let half = half_complex_dims(&input.dims);
    assert_eq!(half.len(), input.dims.len());

    let resolved = resolve(
        transform,
        &input.dims,
        input.batch,
        input.in_place,
        input_layout.clone(),
        output_layout.clone(),
    );
    let (want_in, want_out) = match transform {
        Transform::C2C => (input.dims.clone(), input.dims.clone()),
        Transform::R2C => (input.dims.clone(), half.clone()),
        Transform::C2R => (half.clone(), input.dims.clone()),
    };
    // Complete: two given layouts that fit are accepted.
    if let (Some(i), Some(o)) = (&input_layout, &output_layout) {
        let max = i64::MAX as u128;
        let fits = |l: &Layout, dims: &[usize]| {
            l.embed.len() == dims.len()
                && l.stride >= 1
                && (l.dist >= 1 || input.batch == 1)
                && l.embed.iter().zip(dims).skip(1).all(|(e, d)| e >= d)
                && reach(l, dims, input.batch).is_some_and(|n| n <= max)
        };
        let count = input
            .dims
            .iter()
            .map(|&d| d as u128)
            .try_fold(input.batch as u128, |a, d| a.checked_mul(d));
        let valid = (1..=3).contains(&input.dims.len())
            && count.is_some_and(|c| c >= 1 && c <= max)
            && fits(i, &want_in)
            && fits(o, &want_out)
            && !(input.in_place && transform == Transform::C2C && i != o);
        assert_eq!(resolved.is_ok(), valid, "{input:?}: {resolved:?}");
    }
    let Ok(r) = resolved else {
        return;
    };
    assert!((1..=3).contains(&input.dims.len()) && input.batch >= 1);
    assert_eq!((&r.input_dims, &r.output_dims), (&want_in, &want_out));
    for (layout, dims, len) in [
        (&r.input, &r.input_dims, r.input_len),
        (&r.output, &r.output_dims, r.output_len),
    ] {
        assert_eq!(layout.embed.len(), dims.len());
        assert!(layout.stride >= 1);
        assert_eq!(reach(layout, dims, input.batch), Some(len as u128));
        assert!(len as u128 <= i64::MAX as u128);
    }
    if let Some(l) = &input_layout {
        assert_eq!(&r.input, l);
    }
    if let Some(l) = &output_layout {
        assert_eq!(&r.output, l);
    }
    if input.in_place && transform == Transform::C2C {
        assert_eq!(r.input, r.output);
    }
    if input.in_place
        && transform != Transform::C2C
        && input_layout.is_none()
        && output_layout.is_none()
    {
        // Reals padded to the complex side's rows: the real side reaches
        // no further than the complex side's bytes (2 reals per complex).
        let (real, complex) = if transform == Transform::R2C {
            (r.input_len, r.output_len)
        } else {
            (r.output_len, r.input_len)
        };
        assert!(
            real as u128 <= 2 * complex as u128,
            "{real} reals for {complex} complex"
        );
    }
});
