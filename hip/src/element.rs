//! The root of the element-type traits of every library crate.

use crate::complex::{c32, c64};
use crate::memory::DeviceRepr;
use std::fmt::Debug;

mod sealed {
    /// Keeps [`Element`](super::Element), and so every library's element
    /// traits built on it, to the types listed there.
    pub trait Sealed {}
}

/// A number type the libraries compute on or move: `i8`, `u8`, `i32`,
/// `u32`, `i64`, `u64`, `half::f16`, `half::bf16`, `f32`, `f64`, [`c32`],
/// [`c64`]. Sealed.
///
/// Every library crate's element traits extend it (`hipblas::Scalar`,
/// `hipsolver::Scalar`, `hipsparse::Scalar`, `hipblaslt::LtElement`,
/// `hipfft::Float`, `hiprand::Real`, `rccl::Element`): each says which of
/// these types its library takes and how to call it for each, and none
/// can be implemented outside this workspace, because this one cannot.
///
/// ```
/// fn describe<T: hip::Element>() -> &'static str {
///     T::NAME
/// }
/// assert_eq!(describe::<f32>(), "f32");
/// assert_eq!(describe::<hip::c64>(), "c64");
/// ```
pub trait Element:
    DeviceRepr + Copy + Debug + PartialEq + Send + Sync + 'static + sealed::Sealed
{
    /// The Rust name, for messages: `"f32"`, `"f16"`, `"c64"`, ...
    const NAME: &'static str;
}

macro_rules! elements {
    ($($t:ty => $name:literal),* $(,)?) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            const NAME: &'static str = $name;
        }
    )*};
}

elements! {
    i8 => "i8",
    u8 => "u8",
    i32 => "i32",
    u32 => "u32",
    i64 => "i64",
    u64 => "u64",
    half::f16 => "f16",
    half::bf16 => "bf16",
    f32 => "f32",
    f64 => "f64",
    c32 => "c32",
    c64 => "c64",
}
