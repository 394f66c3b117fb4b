//! Which element types may live in device memory ([`DeviceRepr`]) and be
//! zero-filled ([`ValidAsZeroBits`]).

/// Element types that may live in GPU memory and be passed to kernels by
/// value.
///
/// # Safety
///
/// Implement only for `Copy` types with a fixed C layout (`#[repr(C)]` or
/// `#[repr(transparent)]` over such types) that hold no references or host
/// pointers, and for which **every bit pattern is a valid value**. The last
/// condition is what makes device memory safe to read back: whatever a kernel
/// wrote (even racing or uninitialised data) is a valid `T` on the host.
/// So `bool`, `char`, references and enums must not implement it.
///
/// ```
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Particle { x: f32, y: f32, mass: f32, id: u32 }
/// // SAFETY: repr(C), no padding, every bit pattern of each field is valid.
/// unsafe impl hip::DeviceRepr for Particle {}
/// ```
pub unsafe trait DeviceRepr: Copy + Send + Sync + 'static {}

/// Types for which all-zero bytes are a valid value, so zero-filling
/// (`hipMemset` with 0) produces valid `T`s.
///
/// # Safety
///
/// All-zero bytes must be a valid value of the type.
pub unsafe trait ValidAsZeroBits {}

macro_rules! impl_plain {
    ($($t:ty),*) => {$(
        // SAFETY: a primitive number: fixed layout, every bit pattern valid.
        unsafe impl DeviceRepr for $t {}
        // SAFETY: zero is a valid value of a primitive number.
        unsafe impl ValidAsZeroBits for $t {}
    )*};
}
impl_plain!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    half::f16,
    half::bf16
);

// SAFETY: an array of valid-for-all-bits elements is valid for all bits.
unsafe impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] {}
// SAFETY: an array of zero-valid elements is zero-valid.
unsafe impl<T: ValidAsZeroBits, const N: usize> ValidAsZeroBits for [T; N] {}
