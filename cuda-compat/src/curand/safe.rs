//! cudarc's `CudaRng` over the `hiprand` crate's [`hiprand::Generator`]:
//! creation, seed, offset, stream and destruction are the generator's;
//! each fill runs hipRAND's length rules ([`hiprand::validate`]) before the
//! call and orders the destination through its access tracking (the
//! `DevicePtrMut` guard, as cudarc does).

use super::result::{self, CurandError, LogNormalFill, NormalFill, UniformFill};
use super::sys;
use crate::driver::{CudaStream, DevicePtrMut};
use hiprand::validate::{self, Distribution};
use hiprand::{Generator, RngType};
use std::sync::Arc;

/// cudarc's `CudaRng`: an XORWOW generator (cuRAND's
/// `CURAND_RNG_PSEUDO_DEFAULT`) on one stream.
///
/// **Threads**: `Send`, not `Sync`, like the generator it holds.
#[derive(Debug)]
pub struct CudaRng {
    generator: Generator,
    stream: Arc<CudaStream>,
}

/// `r` with an argument refused before any call reported as `invalid`
/// (the status cuRAND gives for the rule the call site ran), every error
/// keeping the `hiprand` crate's message.
fn map<T>(r: hiprand::Result<T>, invalid: sys::curandStatus_t) -> Result<T, CurandError> {
    r.map_err(|e| result::ours_refused_as(e, invalid))
}

impl CudaRng {
    /// A generator seeded with `seed` whose fills run on `stream`
    /// (`curandCreateGenerator`, `curandSetStream`,
    /// `curandSetPseudoRandomGeneratorSeed`).
    pub fn new(seed: u64, stream: Arc<CudaStream>) -> Result<CudaRng, CurandError> {
        stream.context().bind_to_thread().map_err(|e| {
            result::fail(
                sys::curandStatus_t::CURAND_STATUS_INITIALIZATION_FAILED,
                &e.to_string(),
            )
        })?;
        let generator = map(
            Generator::new(stream.hip_stream(), RngType::Xorwow),
            sys::curandStatus_t::CURAND_STATUS_OUT_OF_RANGE,
        )?;
        let mut rng = CudaRng { generator, stream };
        rng.set_seed(seed)?;
        Ok(rng)
    }

    /// `curandSetStream`: later fills run on `stream`.
    ///
    /// # Safety
    /// As in cudarc: work already enqueued on the previous stream is not
    /// ordered before the new stream's.
    pub unsafe fn set_stream(&mut self, stream: Arc<CudaStream>) -> Result<(), CurandError> {
        map(
            self.generator.set_stream(stream.hip_stream()),
            sys::curandStatus_t::CURAND_STATUS_ARCH_MISMATCH,
        )?;
        self.stream = stream;
        Ok(())
    }

    /// `curandSetPseudoRandomGeneratorSeed` (resets the state).
    pub fn set_seed(&mut self, seed: u64) -> Result<(), CurandError> {
        map(
            self.generator.set_seed(seed),
            sys::curandStatus_t::CURAND_STATUS_TYPE_ERROR,
        )
    }

    /// `curandSetGeneratorOffset`: skip `offset` values.
    pub fn set_offset(&mut self, offset: u64) -> Result<(), CurandError> {
        map(
            self.generator.set_offset(offset),
            sys::curandStatus_t::CURAND_STATUS_TYPE_ERROR,
        )
    }

    /// The `hiprand` generator underneath.
    pub fn generator(&self) -> &Generator {
        &self.generator
    }

    /// Checks a fill of `dst` with the library's rules, then calls `fill`
    /// with the address, ordered after `dst`'s earlier uses.
    fn fill<T, Dst: DevicePtrMut<T>>(
        &self,
        dst: &mut Dst,
        distribution: Distribution,
        fill: impl FnOnce(*mut T, usize) -> Result<(), CurandError>,
    ) -> Result<(), CurandError> {
        let num = dst.len();
        let (ptr, _record) = dst.device_ptr_mut(&self.stream);
        map(
            validate::check_fill(
                self.generator.kind(),
                self.generator.dimensions(),
                distribution,
                num,
                ptr as usize,
                size_of::<T>(),
            ),
            sys::curandStatus_t::CURAND_STATUS_LENGTH_NOT_MULTIPLE,
        )?;
        fill(ptr as *mut T, num)
    }

    /// `curandGenerateUniform` (f32), `...Double` (f64), `curandGenerate`
    /// (u32), `curandGenerateLongLong` (u64).
    pub fn fill_with_uniform<T, Dst: DevicePtrMut<T>>(
        &self,
        dst: &mut Dst,
    ) -> Result<(), CurandError>
    where
        sys::curandGenerator_t: UniformFill<T>,
    {
        let g = self.generator.as_raw();
        self.fill(dst, Distribution::Uniform, |ptr, num| {
            // SAFETY: live generator; `ptr` is `num` elements of `dst`,
            // ordered on the generator's stream by the guard above.
            unsafe { UniformFill::fill(g, ptr, num) }
        })
    }

    /// `curandGenerateNormal` (f32), `...Double` (f64): an even count (and
    /// a pair-aligned view), as cuRAND requires of XORWOW.
    pub fn fill_with_normal<T, Dst: DevicePtrMut<T>>(
        &self,
        dst: &mut Dst,
        mean: T,
        std: T,
    ) -> Result<(), CurandError>
    where
        sys::curandGenerator_t: NormalFill<T>,
    {
        let g = self.generator.as_raw();
        self.fill(dst, Distribution::Normal, |ptr, num| {
            // SAFETY: as in `fill_with_uniform`.
            unsafe { NormalFill::fill(g, ptr, num, mean, std) }
        })
    }

    /// `curandGenerateLogNormal` (f32), `...Double` (f64); the rules of
    /// [`CudaRng::fill_with_normal`].
    pub fn fill_with_log_normal<T, Dst: DevicePtrMut<T>>(
        &self,
        dst: &mut Dst,
        mean: T,
        std: T,
    ) -> Result<(), CurandError>
    where
        sys::curandGenerator_t: LogNormalFill<T>,
    {
        let g = self.generator.as_raw();
        self.fill(dst, Distribution::LogNormal, |ptr, num| {
            // SAFETY: as in `fill_with_uniform`.
            unsafe { LogNormalFill::fill(g, ptr, num, mean, std) }
        })
    }
}

// cudarc's free function path, kept for code that names it.
#[doc(hidden)]
pub use result::create_generator;
