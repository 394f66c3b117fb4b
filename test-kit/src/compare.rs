//! Comparisons against CPU references, each with its tolerance stated by
//! the caller.

/// `max |got - want| / max |want|`: the error of a whole result relative to
/// its largest reference value. Fails when the reference is all zero (the
/// comparison would then prove nothing).
pub fn max_rel_err(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "result and reference lengths differ");
    let num = got
        .iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max);
    let den = want.iter().map(|w| w.abs()).fold(0.0, f64::max);
    assert!(den > 0.0, "the reference is all zero");
    num / den
}

/// `|got - want| / |want|` of one value (`|want|` at least the smallest
/// positive f64).
pub fn rel(got: f64, want: f64) -> f64 {
    (got - want).abs() / want.abs().max(f64::MIN_POSITIVE)
}

/// Asserts `|got[i] - want[i]| <= tol * max(|want[i]|, 1)` for every
/// element (relative, or absolute below 1), naming the first element
/// outside it.
pub fn assert_close(got: &[f32], want: &[f32], tol: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}[{i}]: got {g}, want {w} (tolerance {tol:e} relative)"
        );
    }
}

/// The first index where `got` and `want` differ, for exact comparisons
/// with a short message.
pub fn first_difference<T: PartialEq>(got: &[T], want: &[T]) -> Option<usize> {
    assert_eq!(got.len(), want.len(), "lengths differ");
    got.iter().zip(want).position(|(g, w)| g != w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_errors_are_measured_against_the_largest_reference() {
        assert_eq!(max_rel_err(&[1.0, 2.5], &[1.0, 2.0]), 0.25);
        assert_eq!(rel(1.5, 1.0), 0.5);
        assert_eq!(first_difference(&[1, 2, 3], &[1, 5, 3]), Some(1));
        assert_eq!(first_difference(&[1, 2], &[1, 2]), None);
        assert_close(&[1.0, 100.0], &[1.0, 100.00001], 1e-6, "close");
    }

    #[test]
    #[should_panic(expected = "all zero")]
    fn an_all_zero_reference_proves_nothing() {
        max_rel_err(&[0.0], &[0.0]);
    }

    #[test]
    #[should_panic(expected = "x[1]")]
    fn a_value_outside_the_tolerance_is_named() {
        assert_close(&[1.0, 2.0], &[1.0, 2.1], 1e-3, "x");
    }
}
