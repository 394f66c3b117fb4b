//! cudarc's `curand::result`: every cuRAND status as a `Result`, and the
//! fill traits that pick the C function by element type.

use super::sys;
use std::fmt;

/// A cuRAND status other than `CURAND_STATUS_SUCCESS` (hipRAND's value).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CurandError(pub sys::curandStatus_t);

impl sys::curandStatus_t {
    /// `Ok(())` for `CURAND_STATUS_SUCCESS`, else the error.
    pub fn result(self) -> Result<(), CurandError> {
        if self == sys::curandStatus_t::CURAND_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(CurandError(self))
        }
    }
}

impl fmt::Display for CurandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for CurandError {}

/// `curandCreateGenerator` with `CURAND_RNG_PSEUDO_DEFAULT` (XORWOW).
pub fn create_generator() -> Result<sys::curandGenerator_t, CurandError> {
    create_generator_kind(sys::curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT)
}

/// `curandCreateGenerator` of `kind`.
pub fn create_generator_kind(
    kind: sys::curandRngType_t,
) -> Result<sys::curandGenerator_t, CurandError> {
    let mut generator = std::ptr::null_mut();
    // SAFETY: `generator` is a valid place for the handle.
    unsafe { sys::curandCreateGenerator(&mut generator, kind) }.result()?;
    Ok(generator)
}

/// `curandSetPseudoRandomGeneratorSeed`.
///
/// # Safety
/// `generator` is a live generator.
pub unsafe fn set_seed(generator: sys::curandGenerator_t, seed: u64) -> Result<(), CurandError> {
    // SAFETY: the caller's contract.
    unsafe { sys::curandSetPseudoRandomGeneratorSeed(generator, seed) }.result()
}

/// `curandSetGeneratorOffset`.
///
/// # Safety
/// `generator` is a live generator.
pub unsafe fn set_offset(
    generator: sys::curandGenerator_t,
    offset: u64,
) -> Result<(), CurandError> {
    // SAFETY: the caller's contract.
    unsafe { sys::curandSetGeneratorOffset(generator, offset) }.result()
}

/// `curandSetStream`.
///
/// # Safety
/// `generator` is a live generator and `stream` a live stream (or null)
/// that outlives its use by the generator.
pub unsafe fn set_stream(
    generator: sys::curandGenerator_t,
    stream: sys::cudaStream_t,
) -> Result<(), CurandError> {
    // SAFETY: the caller's contract.
    unsafe { sys::curandSetStream(generator, stream) }.result()
}

/// `curandDestroyGenerator`.
///
/// # Safety
/// `generator` is a live generator, not used afterwards.
pub unsafe fn destroy_generator(generator: sys::curandGenerator_t) -> Result<(), CurandError> {
    // SAFETY: the caller's contract.
    unsafe { sys::curandDestroyGenerator(generator) }.result()
}

/// Uniform values: floats in (0, 1], integers over their whole range
/// (`u64` needs a 64-bit quasi-random generator).
pub trait UniformFill<T> {
    /// Fills `num` elements at `out`.
    ///
    /// # Safety
    /// `self` is a live generator and `out` device memory of `num` elements
    /// on its device, not used by other work until the fill is done on the
    /// generator's stream.
    unsafe fn fill(self, out: *mut T, num: usize) -> Result<(), CurandError>;
}

/// Normal values of mean `m` and standard deviation `s`.
pub trait NormalFill<T> {
    /// Fills `n` elements at `o`.
    ///
    /// # Safety
    /// As [`UniformFill::fill`].
    unsafe fn fill(self, o: *mut T, n: usize, m: T, s: T) -> Result<(), CurandError>;
}

/// Log-normal values whose logarithm has mean `m` and standard deviation
/// `s`.
pub trait LogNormalFill<T> {
    /// Fills `n` elements at `o`.
    ///
    /// # Safety
    /// As [`UniformFill::fill`].
    unsafe fn fill(self, o: *mut T, n: usize, m: T, s: T) -> Result<(), CurandError>;
}

/// One impl of a fill trait: the element type and its [`generate`]
/// function.
macro_rules! fill_impl {
    ($trait:ident<$t:ty> = $f:ident($($p:ident),*)) => {
        impl $trait<$t> for sys::curandGenerator_t {
            unsafe fn fill(self, out: *mut $t, num: usize $(, $p: $t)*) -> Result<(), CurandError> {
                // SAFETY: the caller's contract, which is `generate`'s.
                unsafe { generate::$f(self, out, num $(, $p)*) }
            }
        }
    };
}

fill_impl!(UniformFill<f32> = uniform_f32());
fill_impl!(UniformFill<f64> = uniform_f64());
fill_impl!(UniformFill<u32> = uniform_u32());
fill_impl!(UniformFill<u64> = uniform_u64());
fill_impl!(NormalFill<f32> = normal_f32(m, s));
fill_impl!(NormalFill<f64> = normal_f64(m, s));
fill_impl!(LogNormalFill<f32> = log_normal_f32(m, s));
fill_impl!(LogNormalFill<f64> = log_normal_f64(m, s));

/// One function per distribution and element type (cudarc's
/// `curand::result::generate`), each one `curandGenerate*` call.
///
/// Every function's contract (`# Safety`): `gen` is a live generator and
/// `out` device memory of at least `num` elements on its device, not used
/// by other work until the generation is done on the generator's stream.
/// hipRAND's own constraints apply as in cuRAND: a normal or log-normal
/// count must be even for the pseudo-random generators, `u64` needs a
/// 64-bit quasi-random generator.
pub mod generate {
    use super::{sys, CurandError};

    /// Wrappers of one generate call each: `name(extra args) => call;`.
    macro_rules! generate_calls {
        ($(
            $(#[$doc:meta])*
            $name:ident($t:ty $(, $p:ident: $pt:ty)*) => $call:ident;
        )+) => {$(
            $(#[$doc])*
            ///
            /// # Safety
            /// See the [module docs](self).
            pub unsafe fn $name(
                gen: sys::curandGenerator_t,
                out: *mut $t,
                num: usize,
                $($p: $pt,)*
            ) -> Result<(), CurandError> {
                // SAFETY: the caller's contract (the module docs); the
                // element type is the C function's.
                unsafe { sys::$call(gen, out.cast(), num $(, $p)*) }.result()
            }
        )+};
    }

    generate_calls! {
        /// `curandGenerateUniform`: `f32` in (0, 1].
        uniform_f32(f32) => curandGenerateUniform;
        /// `curandGenerateUniformDouble`: `f64` in (0, 1].
        uniform_f64(f64) => curandGenerateUniformDouble;
        /// `curandGenerate`: `u32` with every bit random.
        uniform_u32(u32) => curandGenerate;
        /// `curandGenerateLongLong`: `u64` with every bit random.
        uniform_u64(u64) => curandGenerateLongLong;
        /// `curandGenerateNormal`: `f32` of mean `mean` and standard
        /// deviation `std`.
        normal_f32(f32, mean: f32, std: f32) => curandGenerateNormal;
        /// `curandGenerateNormalDouble`: `f64` of mean `mean` and
        /// standard deviation `std`.
        normal_f64(f64, mean: f64, std: f64) => curandGenerateNormalDouble;
        /// `curandGenerateLogNormal`: `f32` whose logarithm has mean
        /// `mean` and standard deviation `std`.
        log_normal_f32(f32, mean: f32, std: f32) => curandGenerateLogNormal;
        /// `curandGenerateLogNormalDouble`: `f64` whose logarithm has
        /// mean `mean` and standard deviation `std`.
        log_normal_f64(f64, mean: f64, std: f64) => curandGenerateLogNormalDouble;
        /// `curandGeneratePoisson`: `u32` of a Poisson distribution of
        /// mean `lambda`.
        poisson_u32(u32, lambda: f64) => curandGeneratePoisson;
    }
}
