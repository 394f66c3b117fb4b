//! One adapter per hipRAND function that cuRAND has: hipRAND's signature,
//! each argument converted by [`ToCurand`] (enums through the tables of
//! [`super::translate`], everything else unchanged), the cuRAND function of
//! the same role called through a [`Symbol`] of [`CURAND`], and its status
//! translated back.
//!
//! Each row names the cuRAND function and the hipRAND parameter list; the
//! cuRAND function's type is derived from it (`<T as ToCurand>::Curand` per
//! parameter, a C `unsigned` status). Written from `curand.h` (CUDA 12.9's
//! cuRAND 10.3.10): every cuRAND function here takes the hipRAND
//! function's parameters in the same order, pointers to the same layouts
//! (the generator handle and discrete distribution are opaque pointers on
//! both sides, the direction-vector arrays are `unsigned int[32]` and
//! `unsigned long long[64]` on both), and enums where hipRAND takes enums.
//! The compiler checks the rows against hipRAND's generated signatures (the
//! table field takes exactly this function type); the cuRAND side is taken
//! on trust from the header as written here.

use super::translate::{self, DIRECTION_VECTOR_SET, ORDERING, RNG_TYPE};
use crate::{
    hipStream_t, hiprandDirectionVectorSet_t, hiprandDirectionVectors32_t,
    hiprandDirectionVectors64_t, hiprandDiscreteDistribution_t, hiprandGenerator_t,
    hiprandOrdering_t, hiprandRngType_t, hiprandStatus_t, HiprandFunctions, Unavailable,
};
use hip_sys::loader::common::{LibrarySlot, Symbol};
use std::ffi::{c_int, c_uint, c_ulonglong};

/// cuRAND, as the backend opened it.
pub(crate) static CURAND: LibrarySlot = LibrarySlot::new("cuRAND");

/// An argument as cuRAND takes it: the same value, or an enum's cuRAND
/// number (`Err` is the status to return when it has none).
pub(crate) trait ToCurand {
    /// The cuRAND parameter type.
    type Curand;
    /// The value to pass to cuRAND.
    fn to_curand(self) -> Result<Self::Curand, hiprandStatus_t>;
}

macro_rules! unchanged {
    ($($t:ty),*) => {$(
        impl ToCurand for $t {
            type Curand = $t;
            fn to_curand(self) -> Result<$t, hiprandStatus_t> {
                Ok(self)
            }
        }
    )*};
}
unchanged!(usize, f32, f64, c_uint, c_ulonglong);

impl<T> ToCurand for *mut T {
    type Curand = *mut T;
    fn to_curand(self) -> Result<*mut T, hiprandStatus_t> {
        Ok(self)
    }
}

impl<T> ToCurand for *const T {
    type Curand = *const T;
    fn to_curand(self) -> Result<*const T, hiprandStatus_t> {
        Ok(self)
    }
}

/// An enum through its table; a value hipRAND's header does not declare
/// has no cuRAND number and is refused with `status` before cuRAND is
/// called.
macro_rules! translated {
    ($($t:ty => $table:ident, $status:ident;)*) => {$(
        impl ToCurand for $t {
            type Curand = c_uint;
            fn to_curand(self) -> Result<c_uint, hiprandStatus_t> {
                translate::to_curand($table, self).ok_or(hiprandStatus_t::$status)
            }
        }
    )*};
}
translated! {
    hiprandRngType_t => RNG_TYPE, HIPRAND_STATUS_TYPE_ERROR;
    hiprandOrdering_t => ORDERING, HIPRAND_STATUS_OUT_OF_RANGE;
    hiprandDirectionVectorSet_t => DIRECTION_VECTOR_SET, HIPRAND_STATUS_OUT_OF_RANGE;
}

/// Writes the adapters, the list of (hipRAND, cuRAND) pairs and the
/// function that installs them in a table.
macro_rules! curand_adapters {
    ($($hip:ident => $cu:ident($($arg:ident: $ty:ty),* $(,)?);)*) => {
        $(
            #[allow(non_snake_case)]
            unsafe extern "C" fn $hip($($arg: $ty),*) -> hiprandStatus_t {
                static SYMBOL: Symbol = Symbol::new(
                    &CURAND,
                    match std::ffi::CStr::from_bytes_with_nul(
                        concat!(stringify!($cu), "\0").as_bytes(),
                    ) {
                        Ok(name) => name,
                        Err(_) => panic!("a C name has no interior NUL"),
                    },
                );
                type CurandFn = unsafe extern "C" fn($(<$ty as ToCurand>::Curand),*) -> c_uint;
                let Some(address) = SYMBOL.address() else {
                    return hiprandStatus_t::symbol_missing();
                };
                $(
                    let $arg = match ToCurand::to_curand($arg) {
                        Ok(v) => v,
                        Err(status) => return status,
                    };
                )*
                // SAFETY: `address` is cuRAND's function of this row, whose
                // curand.h declaration takes these parameters (see the
                // module doc) and returns a C enum (`unsigned`); the
                // arguments are the caller's, who upholds the hipRAND
                // function's contract, which is cuRAND's for the same role.
                unsafe {
                    let function = std::mem::transmute::<*mut std::ffi::c_void, CurandFn>(address);
                    translate::status_from_curand(function($($arg),*))
                }
            }
        )*

        /// Each adapted hipRAND function with the cuRAND function it calls.
        pub(crate) const ADAPTED: &[(&str, &str)] = &[$((stringify!($hip), stringify!($cu))),*];

        /// Fills every adapted entry of `table`.
        pub(crate) fn install(table: &mut HiprandFunctions) {
            $(table.$hip = Some($hip);)*
        }
    };
}

curand_adapters! {
    hiprandCreateGenerator => curandCreateGenerator(generator: *mut hiprandGenerator_t, rng_type: hiprandRngType_t);
    hiprandCreateGeneratorHost => curandCreateGeneratorHost(generator: *mut hiprandGenerator_t, rng_type: hiprandRngType_t);
    hiprandCreatePoissonDistribution => curandCreatePoissonDistribution(lambda: f64, discrete_distribution: *mut hiprandDiscreteDistribution_t);
    hiprandDestroyDistribution => curandDestroyDistribution(discrete_distribution: hiprandDiscreteDistribution_t);
    hiprandDestroyGenerator => curandDestroyGenerator(generator: hiprandGenerator_t);
    hiprandGenerate => curandGenerate(generator: hiprandGenerator_t, output_data: *mut c_uint, n: usize);
    hiprandGenerateLogNormal => curandGenerateLogNormal(generator: hiprandGenerator_t, output_data: *mut f32, n: usize, mean: f32, stddev: f32);
    hiprandGenerateLogNormalDouble => curandGenerateLogNormalDouble(generator: hiprandGenerator_t, output_data: *mut f64, n: usize, mean: f64, stddev: f64);
    hiprandGenerateLongLong => curandGenerateLongLong(generator: hiprandGenerator_t, output_data: *mut c_ulonglong, n: usize);
    hiprandGenerateNormal => curandGenerateNormal(generator: hiprandGenerator_t, output_data: *mut f32, n: usize, mean: f32, stddev: f32);
    hiprandGenerateNormalDouble => curandGenerateNormalDouble(generator: hiprandGenerator_t, output_data: *mut f64, n: usize, mean: f64, stddev: f64);
    hiprandGeneratePoisson => curandGeneratePoisson(generator: hiprandGenerator_t, output_data: *mut c_uint, n: usize, lambda: f64);
    hiprandGenerateSeeds => curandGenerateSeeds(generator: hiprandGenerator_t);
    hiprandGenerateUniform => curandGenerateUniform(generator: hiprandGenerator_t, output_data: *mut f32, n: usize);
    hiprandGenerateUniformDouble => curandGenerateUniformDouble(generator: hiprandGenerator_t, output_data: *mut f64, n: usize);
    hiprandGetDirectionVectors32 => curandGetDirectionVectors32(vectors: *mut *mut hiprandDirectionVectors32_t, set: hiprandDirectionVectorSet_t);
    hiprandGetDirectionVectors64 => curandGetDirectionVectors64(vectors: *mut *mut hiprandDirectionVectors64_t, set: hiprandDirectionVectorSet_t);
    hiprandGetScrambleConstants32 => curandGetScrambleConstants32(constants: *mut *const c_uint);
    hiprandGetScrambleConstants64 => curandGetScrambleConstants64(constants: *mut *const c_ulonglong);
    hiprandGetVersion => curandGetVersion(version: *mut c_int);
    hiprandSetGeneratorOffset => curandSetGeneratorOffset(generator: hiprandGenerator_t, offset: c_ulonglong);
    hiprandSetGeneratorOrdering => curandSetGeneratorOrdering(generator: hiprandGenerator_t, order: hiprandOrdering_t);
    hiprandSetPseudoRandomGeneratorSeed => curandSetPseudoRandomGeneratorSeed(generator: hiprandGenerator_t, seed: c_ulonglong);
    hiprandSetQuasiRandomGeneratorDimensions => curandSetQuasiRandomGeneratorDimensions(generator: hiprandGenerator_t, dimensions: c_uint);
    hiprandSetStream => curandSetStream(generator: hiprandGenerator_t, stream: hipStream_t);
}
