//! A complex number with the layout of `hipComplex`/`hipDoubleComplex`,
//! shared by the math libraries (hipBLAS, hipFFT) so that one buffer type
//! serves them all.

use crate::memory::{DeviceRepr, ValidAsZeroBits};
use std::fmt;

/// A complex number as HIP's libraries store it: real part, then imaginary
/// part, aligned as HIP's and CUDA's complex types are: [`c32`] is 8 bytes
/// aligned to 8 (`hipFloatComplex`, `float2`), [`c64`] 16 bytes aligned to
/// 16 (`hipDoubleComplex`, `double2`, `cuDoubleComplex`). So a `&c64`
/// can be handed to a library that reads it with aligned 16-byte loads,
/// and arrays keep the C layout (the size is two parts, no padding).
///
/// Made with [`Complex::new`] (the alignment is a private zero-sized
/// field); `re` and `im` are public.
///
/// ```
/// let z = hip::c32::new(1.0, -2.0);
/// assert_eq!((z.re, z.im), (1.0, -2.0));
/// assert_eq!(std::mem::align_of::<hip::c64>(), 16);
/// assert_eq!(std::mem::size_of::<[hip::c64; 3]>(), 48);
/// ```
#[derive(Clone, Copy, Default, PartialEq)]
#[repr(C)]
pub struct Complex<T: ComplexPart> {
    /// Real part.
    pub re: T,
    /// Imaginary part.
    pub im: T,
    /// Zero bytes, aligning the pair as the C type does.
    _align: [T::Align; 0],
}

impl<T: ComplexPart> Complex<T> {
    /// `re + i im`.
    pub const fn new(re: T, im: T) -> Self {
        Complex { re, im, _align: [] }
    }
}

impl<T: ComplexPart + fmt::Debug> fmt::Debug for Complex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Complex")
            .field("re", &self.re)
            .field("im", &self.im)
            .finish()
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// A part (real or imaginary) of a [`Complex`]: `f32` or `f64`. Sealed.
pub trait ComplexPart: Copy + sealed::Sealed {
    /// A zero-sized type with the alignment of the C complex type of this
    /// part (8 for `float2`, 16 for `double2`).
    #[doc(hidden)]
    type Align: Copy + Default + PartialEq;
}

/// Alignment 8, as `float2`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(align(8))]
pub struct Align8;

/// Alignment 16, as `double2`.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(align(16))]
pub struct Align16;

impl ComplexPart for f32 {
    type Align = Align8;
}
impl ComplexPart for f64 {
    type Align = Align16;
}

const _: () = {
    assert!(size_of::<Complex<f32>>() == 8 && align_of::<Complex<f32>>() == 8);
    assert!(size_of::<Complex<f64>>() == 16 && align_of::<Complex<f64>>() == 16);
};

/// Single-precision complex.
#[allow(non_camel_case_types)]
pub type c32 = Complex<f32>;
/// Double-precision complex.
#[allow(non_camel_case_types)]
pub type c64 = Complex<f64>;

// SAFETY: repr(C) pair of floats and a zero-sized alignment: no padding
// (size 8, align 8), every bit pattern valid.
unsafe impl DeviceRepr for Complex<f32> {}
// SAFETY: as above, for doubles (size 16, align 16).
unsafe impl DeviceRepr for Complex<f64> {}
// SAFETY: two zero floats are the complex zero.
unsafe impl ValidAsZeroBits for Complex<f32> {}
// SAFETY: as above, for doubles.
unsafe impl ValidAsZeroBits for Complex<f64> {}
