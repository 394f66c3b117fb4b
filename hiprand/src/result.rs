//! The result layer: one thin function per hipRAND call the safe types
//! make, each turning the status into a [`Result`] ([`Error::Rand`] with
//! the call's name) and output parameters into return values. Handles stay
//! raw: the caller owns them ([`Generator`](crate::Generator) is the safe
//! owner).
//!
//! This is the only place in the crate that calls `hiprand_sys`'s
//! functions. A function is `unsafe` when the call's soundness depends on
//! its arguments (a live generator, device pointers); its `# Safety`
//! section says what must hold. No [`validate`](crate::validate) are checked
//! here.
//!
//! ```no_run
//! # fn main() -> hiprand::Result<()> {
//! use hiprand::result;
//! use hiprand_sys::hiprandRngType_t;
//! println!("hipRAND {}", result::get_version()?);
//! let dev = hip::Device::get(0)?;
//! let held = dev.hold_captures("example")?;
//! let generator =
//!     result::create_generator(hiprandRngType_t::HIPRAND_RNG_PSEUDO_XORWOW, &held)?;
//! // SAFETY: made by `create_generator`, destroyed once.
//! unsafe { result::destroy_generator(generator, &held) }?;
//! # Ok(()) }
//! ```

use crate::error::{Error, Result};
use hiprand_sys as sys;
use hiprand_sys::{
    half, hipStream_t, hiprandGenerator_t, hiprandOrdering_t, hiprandRngType_t, hiprandStatus_t,
};

/// The loaded hipRAND (cuRAND on the NVIDIA platform), or [`Error::Load`]
/// with every path tried.
pub fn library() -> Result<&'static sys::loader::Hiprand> {
    sys::loader::hiprand().map_err(|e| Error::Load(e.clone()))
}

/// `Ok(())` for `HIPRAND_STATUS_SUCCESS`, else [`Error::Rand`] naming
/// `call` (see [`Error::from_rand`]).
#[inline]
pub fn check(call: &'static str, status: hiprandStatus_t) -> Result<()> {
    if status.is_success() {
        Ok(())
    } else {
        Err(Error::from_rand(call, status))
    }
}

/// `hiprandGetVersion`: the loaded library's version number.
pub fn get_version() -> Result<i32> {
    let mut version = 0;
    // SAFETY: `version` is a valid place to write an int.
    check("hiprandGetVersion", unsafe {
        sys::hiprandGetVersion(&mut version)
    })?;
    Ok(version)
}

/// `hiprandCreateGenerator`: a generator of `rng_type` on the current
/// device (destroy it with [`destroy_generator`]).
///
/// It may act on the whole device, which CUDA forbids during any capture
/// of the device: `_held` proves the caller holds the device's capture
/// gate ([`hip::Device::hold_captures`], or
/// [`hip::Device::release_outside_captures`] in `Drop`).
pub fn create_generator(
    rng_type: hiprandRngType_t,
    _held: &hip::CaptureHold<'_>,
) -> Result<hiprandGenerator_t> {
    let mut generator: hiprandGenerator_t = std::ptr::null_mut();
    // SAFETY: `generator` is a valid place for the new handle.
    check("hiprandCreateGenerator", unsafe {
        sys::hiprandCreateGenerator(&mut generator, rng_type)
    })?;
    Ok(generator)
}

/// `hiprandDestroyGenerator`.
///
/// # Safety
///
/// `generator` was made by [`create_generator`], is not used after this
/// call, and is destroyed once. As [`create_generator`], `_held` proves
/// the capture gate is held.
pub unsafe fn destroy_generator(
    generator: hiprandGenerator_t,
    _held: &hip::CaptureHold<'_>,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hiprandDestroyGenerator", unsafe {
        sys::hiprandDestroyGenerator(generator)
    })
}

/// `hiprandSetStream`: later fills are enqueued on `stream`.
///
/// # Safety
///
/// `generator` is live, and `stream` outlives every fill enqueued on it.
pub unsafe fn set_stream(generator: hiprandGenerator_t, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hiprandSetStream", unsafe {
        sys::hiprandSetStream(generator, stream)
    })
}

/// `hiprandSetPseudoRandomGeneratorSeed`.
///
/// # Safety
///
/// `generator` is live.
pub unsafe fn set_pseudo_random_generator_seed(
    generator: hiprandGenerator_t,
    seed: u64,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hiprandSetPseudoRandomGeneratorSeed", unsafe {
        sys::hiprandSetPseudoRandomGeneratorSeed(generator, seed)
    })
}

/// `hiprandSetGeneratorOffset`.
///
/// # Safety
///
/// `generator` is live.
pub unsafe fn set_generator_offset(generator: hiprandGenerator_t, offset: u64) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hiprandSetGeneratorOffset", unsafe {
        sys::hiprandSetGeneratorOffset(generator, offset)
    })
}

/// `hiprandSetGeneratorOrdering`.
///
/// # Safety
///
/// `generator` is live.
pub unsafe fn set_generator_ordering(
    generator: hiprandGenerator_t,
    ordering: hiprandOrdering_t,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hiprandSetGeneratorOrdering", unsafe {
        sys::hiprandSetGeneratorOrdering(generator, ordering)
    })
}

/// `hiprandSetQuasiRandomGeneratorDimensions`.
///
/// # Safety
///
/// `generator` is live.
pub unsafe fn set_quasi_random_generator_dimensions(
    generator: hiprandGenerator_t,
    dimensions: u32,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hiprandSetQuasiRandomGeneratorDimensions", unsafe {
        sys::hiprandSetQuasiRandomGeneratorDimensions(generator, dimensions)
    })
}

/// `hiprandGenerate`: `n` uniformly distributed 32-bit integers.
///
/// # Safety
///
/// `generator` is live; `out` is device memory of `n` elements on its
/// device, not used by other streams until the generator's stream reaches
/// the fill.
pub unsafe fn generate(generator: hiprandGenerator_t, out: *mut u32, n: usize) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hiprandGenerate", unsafe {
        sys::hiprandGenerate(generator, out, n)
    })
}

/// `hiprandGenerateLongLong`: `n` uniformly distributed 64-bit integers
/// (a 64-bit quasi-random generator only: the others answer
/// `HIPRAND_STATUS_TYPE_ERROR`).
///
/// # Safety
///
/// As [`generate`].
pub unsafe fn generate_long_long(
    generator: hiprandGenerator_t,
    out: *mut u64,
    n: usize,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hiprandGenerateLongLong", unsafe {
        sys::hiprandGenerateLongLong(generator, out, n)
    })
}

/// `hiprandGeneratePoisson`: `n` Poisson-distributed counts of mean
/// `lambda`.
///
/// # Safety
///
/// As [`generate`].
pub unsafe fn generate_poisson(
    generator: hiprandGenerator_t,
    out: *mut u32,
    n: usize,
    lambda: f64,
) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hiprandGeneratePoisson", unsafe {
        sys::hiprandGeneratePoisson(generator, out, n, lambda)
    })
}

macro_rules! uniform {
    ($(#[$doc:meta])* $name:ident, $call:ident, $t:ty) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// As [`generate`].
        pub unsafe fn $name(generator: hiprandGenerator_t, out: *mut $t, n: usize) -> Result<()> {
            // SAFETY: the caller's contract.
            check(stringify!($call), unsafe { sys::$call(generator, out, n) })
        }
    };
}

uniform!(
    /// `hiprandGenerateUniform`: `n` uniform `f32` values in (0, 1].
    generate_uniform, hiprandGenerateUniform, f32
);
uniform!(
    /// `hiprandGenerateUniformDouble`: `n` uniform `f64` values in (0, 1].
    generate_uniform_double, hiprandGenerateUniformDouble, f64
);
uniform!(
    /// `hiprandGenerateUniformHalf`: `n` uniform half values in (0, 1].
    generate_uniform_half, hiprandGenerateUniformHalf, half
);

macro_rules! gaussian {
    ($(#[$doc:meta])* $name:ident, $call:ident, $t:ty) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// As [`generate`].
        pub unsafe fn $name(
            generator: hiprandGenerator_t,
            out: *mut $t,
            n: usize,
            mean: $t,
            stddev: $t,
        ) -> Result<()> {
            // SAFETY: the caller's contract.
            check(stringify!($call), unsafe {
                sys::$call(generator, out, n, mean, stddev)
            })
        }
    };
}

gaussian!(
    /// `hiprandGenerateNormal`: `n` normal `f32` values.
    generate_normal, hiprandGenerateNormal, f32
);
gaussian!(
    /// `hiprandGenerateNormalDouble`: `n` normal `f64` values.
    generate_normal_double, hiprandGenerateNormalDouble, f64
);
gaussian!(
    /// `hiprandGenerateNormalHalf`: `n` normal half values.
    generate_normal_half, hiprandGenerateNormalHalf, half
);
gaussian!(
    /// `hiprandGenerateLogNormal`: `n` log-normal `f32` values.
    generate_log_normal, hiprandGenerateLogNormal, f32
);
gaussian!(
    /// `hiprandGenerateLogNormalDouble`: `n` log-normal `f64` values.
    generate_log_normal_double, hiprandGenerateLogNormalDouble, f64
);
gaussian!(
    /// `hiprandGenerateLogNormalHalf`: `n` log-normal half values.
    generate_log_normal_half, hiprandGenerateLogNormalHalf, half
);
