//! cudarc's `curand::result`: every cuRAND status as a `Result`, and the
//! fill traits that pick the C function by element type. Each function
//! calls the `hiprand` crate's [`result`](hiprand::result) layer and turns
//! its error into a [`CurandError`] that keeps the message
//! ([`last_error_detail`]).

use super::sys;
use hiprand::result as ours_result;

status_error! {
    /// A cuRAND status other than `CURAND_STATUS_SUCCESS` (hipRAND's
    /// value). `Debug` and `Display` print this thread's reason
    /// ([`last_error_detail`]) when the status matches.
    pub struct CurandError(pub sys::curandStatus_t);
    /// The reason for the last cuRAND error this thread got, with its
    /// status: the `hiprand` crate's message (the call, its status and
    /// what it means, or the paths tried when no library loads); `None`
    /// after an error that is a raw status.
    ///
    /// ```no_run
    /// use cuda_compat::curand::result::{create_generator, last_error_detail};
    /// if let Err(e) = create_generator() {
    ///     let (status, why) = last_error_detail().unwrap();
    ///     assert_eq!(status, e.0);
    ///     println!("{why}");
    /// }
    /// ```
    detail;
    from hiprand {
        load: CURAND_STATUS_INITIALIZATION_FAILED,
        invalid: CURAND_STATUS_OUT_OF_RANGE,
        unsupported: CURAND_STATUS_ARCH_MISMATCH,
        other: CURAND_STATUS_INITIALIZATION_FAILED,
    }
}

impl sys::curandStatus_t {
    /// `Ok(())` for `CURAND_STATUS_SUCCESS`, else the error (the raw
    /// status: no reason of an earlier error is printed with it).
    pub fn result(self) -> Result<(), CurandError> {
        if self == sys::curandStatus_t::CURAND_STATUS_SUCCESS {
            Ok(())
        } else {
            clear_detail();
            Err(CurandError(self))
        }
    }
}

/// `curandCreateGenerator` with `CURAND_RNG_PSEUDO_DEFAULT` (XORWOW).
pub fn create_generator() -> Result<sys::curandGenerator_t, CurandError> {
    create_generator_kind(sys::curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT)
}

/// `curandCreateGenerator` of `kind`, on the current device. It acts on the
/// whole device, which CUDA forbids while any stream of it captures: it
/// waits for the device's open captures to end (`hip`'s capture gate), and
/// fails when this thread captures.
pub fn create_generator_kind(
    kind: sys::curandRngType_t,
) -> Result<sys::curandGenerator_t, CurandError> {
    crate::gate::holding_current("curandCreateGenerator", |held| {
        ours_result::create_generator(kind.into(), held)
    })
    .map_err(ours)
}

/// `curandSetPseudoRandomGeneratorSeed`.
///
/// # Safety
/// `generator` is a live generator.
pub unsafe fn set_seed(generator: sys::curandGenerator_t, seed: u64) -> Result<(), CurandError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::set_pseudo_random_generator_seed(generator, seed) }.map_err(ours)
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
    unsafe { ours_result::set_generator_offset(generator, offset) }.map_err(ours)
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
    unsafe { ours_result::set_stream(generator, stream) }.map_err(ours)
}

/// `curandDestroyGenerator`, holding the capture gate as
/// [`create_generator_kind`] does.
///
/// # Safety
/// `generator` is a live generator, not used afterwards.
pub unsafe fn destroy_generator(generator: sys::curandGenerator_t) -> Result<(), CurandError> {
    crate::gate::holding_current("curandDestroyGenerator", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::destroy_generator(generator, held) }
    })
    .map_err(ours)
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
    use super::{ours, ours_result, sys, CurandError};

    /// Wrappers of one generate call each: `name(extra args) => call;`
    /// (the `hiprand` result function).
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
                unsafe { ours_result::$call(gen, out, num $(, $p)*) }.map_err(ours)
            }
        )+};
    }

    generate_calls! {
        /// `curandGenerateUniform`: `f32` in (0, 1].
        uniform_f32(f32) => generate_uniform;
        /// `curandGenerateUniformDouble`: `f64` in (0, 1].
        uniform_f64(f64) => generate_uniform_double;
        /// `curandGenerate`: `u32` with every bit random.
        uniform_u32(u32) => generate;
        /// `curandGenerateLongLong`: `u64` with every bit random.
        uniform_u64(u64) => generate_long_long;
        /// `curandGenerateNormal`: `f32` of mean `mean` and standard
        /// deviation `std`.
        normal_f32(f32, mean: f32, std: f32) => generate_normal;
        /// `curandGenerateNormalDouble`: `f64` of mean `mean` and
        /// standard deviation `std`.
        normal_f64(f64, mean: f64, std: f64) => generate_normal_double;
        /// `curandGenerateLogNormal`: `f32` whose logarithm has mean
        /// `mean` and standard deviation `std`.
        log_normal_f32(f32, mean: f32, std: f32) => generate_log_normal;
        /// `curandGenerateLogNormalDouble`: `f64` whose logarithm has
        /// mean `mean` and standard deviation `std`.
        log_normal_f64(f64, mean: f64, std: f64) => generate_log_normal_double;
        /// `curandGeneratePoisson`: `u32` of a Poisson distribution of
        /// mean `lambda`.
        poisson_u32(u32, lambda: f64) => generate_poisson;
    }
}
