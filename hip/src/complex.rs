//! A complex number with the layout of `hipComplex`/`hipDoubleComplex`,
//! shared by the math libraries (hipBLAS, hipFFT) so that one buffer type
//! serves them all.

use crate::memory::{DeviceRepr, ValidAsZeroBits};

/// A complex number as HIP's libraries store it: real part, then imaginary
/// part (the layout of `hipComplex`/`hipDoubleComplex`, and of
/// `num_complex::Complex`).
///
/// ```
/// let z = hip::c32::new(1.0, -2.0);
/// assert_eq!((z.re, z.im), (1.0, -2.0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Complex<T> {
    /// Real part.
    pub re: T,
    /// Imaginary part.
    pub im: T,
}

impl<T> Complex<T> {
    /// `re + i im`.
    pub const fn new(re: T, im: T) -> Self {
        Complex { re, im }
    }
}

/// Single-precision complex.
#[allow(non_camel_case_types)]
pub type c32 = Complex<f32>;
/// Double-precision complex.
#[allow(non_camel_case_types)]
pub type c64 = Complex<f64>;

// SAFETY: repr(C) pair of floats: no padding, every bit pattern valid.
unsafe impl DeviceRepr for Complex<f32> {}
// SAFETY: as above, for doubles.
unsafe impl DeviceRepr for Complex<f64> {}
// SAFETY: two zero floats are the complex zero.
unsafe impl ValidAsZeroBits for Complex<f32> {}
// SAFETY: as above, for doubles.
unsafe impl ValidAsZeroBits for Complex<f64> {}
