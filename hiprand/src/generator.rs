//! The generator handle and its fills.

use crate::error::DROP_ERRORS;
use crate::error::{Error, Result};
use crate::real::Real;
use crate::result;
use crate::validate::{self, Distribution};
use crate::{Ordering, RngType};
use hip::{AccessEvents, DeviceMemoryMut, Stream};
use hiprand_sys::hiprandGenerator_t;
use std::cell::Cell;
use std::fmt;

/// A hipRAND generator (`hiprandGenerator_t`) on one stream: every fill is
/// enqueued there, asynchronously; order other streams' uses of the
/// buffer after it (an event, or [`Stream::synchronize`]).
///
/// **Threads**: `Send`, not `Sync`: the handle may move between threads
/// but hipRAND does not allow two threads to use one generator at once.
///
/// ```no_run
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use hiprand::{Generator, RngType};
/// let dev = hip::Device::get(0)?;
/// let stream = hip::Stream::new(&dev)?;
/// let mut rng = Generator::new(&stream, RngType::Philox4x32_10)?;
/// rng.set_seed(1234)?;
/// let mut buf = hip::DeviceBuffer::<f32>::zeroed(&dev, 1 << 20)?;
/// rng.fill_normal(&mut buf, 0.0, 1.0)?;
/// stream.synchronize()?;
/// # Ok(()) }
/// ```
pub struct Generator {
    raw: hiprandGenerator_t,
    kind: RngType,
    dimensions: u32,
    stream: Stream,
    /// Whether the next fill seeds the generator's state: true after
    /// creating it and after every change of seed, offset, ordering or
    /// dimensions. See [`Generator::enqueue`].
    seeding: Cell<bool>,
}

// SAFETY: the handle is a pointer into the library that any thread may use,
// one at a time; `Generator` is not `Sync` and its calls take `&mut self`
// or only read fields, so two threads never call hipRAND on it at once.
unsafe impl Send for Generator {}

impl fmt::Debug for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Generator")
            .field("kind", &self.kind)
            .field("dimensions", &self.dimensions)
            .field("stream", &self.stream)
            .finish()
    }
}

impl Drop for Generator {
    fn drop(&mut self) {
        let raw = hip::SendPtr(self.raw);
        self.stream.device().release_outside_captures(move |held| {
            // SAFETY: the handle was created by `hiprandCreateGenerator`
            // and is destroyed once, here.
            if let Err(e) = unsafe { result::destroy_generator(raw.get(), held) } {
                DROP_ERRORS.record_error(e);
            }
        });
    }
}

impl Generator {
    /// `hiprandCreateGenerator` on the stream's device, then
    /// `hiprandSetStream`: a generator of `kind` whose fills run on
    /// `stream`. Quasi-random generators start with 1 dimension.
    pub fn new(stream: &Stream, kind: RngType) -> Result<Generator> {
        result::library()?;
        let held = stream
            .device()
            .hold_captures("Generator::new")
            .map_err(Error::Runtime)?;
        stream.device().bind().map_err(Error::Runtime)?;
        let raw = result::create_generator(kind.raw(), &held)?;
        let generator = Generator {
            raw,
            kind,
            dimensions: 1,
            stream: stream.clone(),
            seeding: Cell::new(true),
        };
        // SAFETY: live handle; the stream outlives it (held by `generator`).
        unsafe { result::set_stream(generator.raw, stream.as_raw()) }?;
        Ok(generator)
    }

    /// The generator's type.
    pub fn kind(&self) -> RngType {
        self.kind
    }

    /// The dimensions of a quasi-random generator (1 for pseudo-random).
    pub fn dimensions(&self) -> u32 {
        self.dimensions
    }

    /// The stream fills are enqueued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The raw handle, for calls this crate does not wrap (it stays owned
    /// by `self`).
    pub fn as_raw(&self) -> hiprandGenerator_t {
        self.raw
    }

    /// `hiprandSetPseudoRandomGeneratorSeed`: the seed of a pseudo-random
    /// generator (resets its state; refused for Sobol).
    pub fn set_seed(&mut self, seed: u64) -> Result<()> {
        validate::check_seed(self.kind).map_err(|e| e.at("Generator::set_seed"))?;
        self.bind()?;
        // SAFETY: live handle.
        unsafe { result::set_pseudo_random_generator_seed(self.raw, seed) }?;
        self.seeding.set(true);
        Ok(())
    }

    /// `hiprandSetGeneratorOffset`: skip `offset` values of the sequence
    /// (refused for MTGP32 and MT19937, which cannot skip ahead).
    pub fn set_offset(&mut self, offset: u64) -> Result<()> {
        validate::check_offset(self.kind).map_err(|e| e.at("Generator::set_offset"))?;
        self.bind()?;
        // SAFETY: live handle.
        unsafe { result::set_generator_offset(self.raw, offset) }?;
        self.seeding.set(true);
        Ok(())
    }

    /// `hiprandSetGeneratorOrdering`: how results are laid out (a pseudo
    /// ordering for pseudo-random generators, [`Ordering::QuasiDefault`]
    /// for quasi-random ones).
    pub fn set_ordering(&mut self, ordering: Ordering) -> Result<()> {
        validate::check_ordering(self.kind, ordering)
            .map_err(|e| e.at("Generator::set_ordering"))?;
        self.bind()?;
        // SAFETY: live handle.
        unsafe { result::set_generator_ordering(self.raw, ordering.raw()) }?;
        self.seeding.set(true);
        Ok(())
    }

    /// `hiprandSetQuasiRandomGeneratorDimensions`: the number of
    /// dimensions of a quasi-random generator, 1 to
    /// [`validate::MAX_SOBOL_DIMENSIONS`]. A fill of `n` values then holds
    /// `n / dimensions` consecutive values of each dimension in turn.
    pub fn set_dimensions(&mut self, dimensions: u32) -> Result<()> {
        validate::check_dimensions(self.kind, dimensions)
            .map_err(|e| e.at("Generator::set_dimensions"))?;
        self.bind()?;
        // SAFETY: live handle.
        unsafe { result::set_quasi_random_generator_dimensions(self.raw, dimensions) }?;
        self.dimensions = dimensions;
        self.seeding.set(true);
        Ok(())
    }

    /// `hiprandSetStream`: enqueue later fills on `stream`, which must be
    /// on the generator's device.
    pub fn set_stream(&mut self, stream: &Stream) -> Result<()> {
        validate::check_device(self.stream.device().ordinal(), stream.device().ordinal())
            .map_err(|e| e.at("Generator::set_stream"))?;
        self.bind()?;
        // SAFETY: live handle; the stream outlives its use (held by `self`).
        unsafe { result::set_stream(self.raw, stream.as_raw()) }?;
        self.stream = stream.clone();
        Ok(())
    }

    /// `hiprandGenerate`: uniformly distributed 32-bit integers.
    pub fn fill_u32(&mut self, out: &mut impl DeviceMemoryMut<u32>) -> Result<()> {
        let (ptr, len) = (
            self.prepare(out, Distribution::Bits, "Generator::fill_u32")?,
            out.len(),
        );
        self.enqueue(out.access_events(), || {
            // SAFETY: live handle; `ptr` is `len` elements of device memory
            // on the generator's device (checked), borrowed mutably.
            unsafe { result::generate(self.raw, ptr, len) }
        })
    }

    /// `hiprandGenerateUniform` (f32), `...Double` (f64), `...Half` (f16):
    /// uniformly distributed values in (0, 1].
    pub fn fill_uniform<T: Real>(&mut self, out: &mut impl DeviceMemoryMut<T>) -> Result<()> {
        let (ptr, len) = (
            self.prepare(out, Distribution::Uniform, "Generator::fill_uniform")?,
            out.len(),
        );
        self.enqueue(out.access_events(), || {
            // SAFETY: as in `fill_u32`.
            unsafe { T::uniform(self.raw, ptr, len) }
        })
    }

    /// `hiprandGenerateNormal` (f32), `...Double`, `...Half`: normally
    /// distributed values of `mean` and `stddev`. Pseudo-random generators
    /// need an even length and a buffer aligned to two elements;
    /// quasi-random ones a multiple of the dimensions.
    pub fn fill_normal<T: Real>(
        &mut self,
        out: &mut impl DeviceMemoryMut<T>,
        mean: T,
        stddev: T,
    ) -> Result<()> {
        self.fill_gaussian(
            out,
            mean,
            stddev,
            Distribution::Normal,
            "Generator::fill_normal",
        )
    }

    /// `hiprandGenerateLogNormal` (f32), `...Double`, `...Half`: values
    /// whose logarithm is normal of `mean` and `stddev`; the length rules
    /// of [`Generator::fill_normal`].
    pub fn fill_log_normal<T: Real>(
        &mut self,
        out: &mut impl DeviceMemoryMut<T>,
        mean: T,
        stddev: T,
    ) -> Result<()> {
        self.fill_gaussian(
            out,
            mean,
            stddev,
            Distribution::LogNormal,
            "Generator::fill_log_normal",
        )
    }

    /// `hiprandGeneratePoisson`: Poisson-distributed counts of mean
    /// `lambda` (finite, positive).
    pub fn fill_poisson(&mut self, out: &mut impl DeviceMemoryMut<u32>, lambda: f64) -> Result<()> {
        validate::check_poisson(lambda).map_err(|e| e.at("Generator::fill_poisson"))?;
        let (ptr, len) = (
            self.prepare(out, Distribution::Poisson, "Generator::fill_poisson")?,
            out.len(),
        );
        self.enqueue(out.access_events(), || {
            // SAFETY: as in `fill_u32`.
            unsafe { result::generate_poisson(self.raw, ptr, len, lambda) }
        })
    }

    /// A normal or log-normal fill, after every check.
    fn fill_gaussian<T: Real>(
        &mut self,
        out: &mut impl DeviceMemoryMut<T>,
        mean: T,
        stddev: T,
        distribution: Distribution,
        operation: &'static str,
    ) -> Result<()> {
        validate::check_normal(mean.to_f64(), stddev.to_f64()).map_err(|e| e.at(operation))?;
        let (ptr, len) = (self.prepare(out, distribution, operation)?, out.len());
        let log = distribution == Distribution::LogNormal;
        self.enqueue(out.access_events(), || {
            // SAFETY: as in `fill_u32`.
            unsafe { T::gaussian(log, self.raw, ptr, len, mean, stddev) }
        })
    }

    /// Enqueues one fill (`fill`, a call of [`crate::result`]) on the generator's
    /// stream through `hip`'s access tracking: a buffer that tracks its
    /// accesses (`Stream::alloc`'s) is first waited for where other streams
    /// use it, and the fill is recorded as its write, so that those streams
    /// and its stream-ordered free wait for the fill in turn. Untracked
    /// memory costs nothing more.
    ///
    /// The first fill after the state was reset seeds it, and cuRAND's
    /// seeding synchronizes the whole device (`curandGenerateSeeds` calls
    /// `cuCtxSynchronize`), which CUDA forbids while any stream of the
    /// device captures: measured on CUDA 13, a capture on another thread
    /// is invalidated and the process soon crashes in the driver. That
    /// fill therefore holds the device's captures back
    /// ([`hip::Device::hold_captures`]); the others cost nothing more.
    fn enqueue(&self, out: &AccessEvents, fill: impl FnOnce() -> Result<()>) -> Result<()> {
        let hold = || {
            self.stream
                .device()
                .hold_captures("hiprand::Generator (seeding on first use)")
                .map_err(Error::Runtime)
        };
        let _hold = self.seeding.get().then(hold).transpose()?;
        self.stream.enqueue_tracked(&[], &[out], fill)?;
        self.seeding.set(false);
        Ok(())
    }

    fn bind(&self) -> Result<()> {
        self.stream.device().bind().map_err(Error::Runtime)
    }

    /// Every check of a fill, then the device bound: the pointer to write.
    fn prepare<T: hip::DeviceRepr>(
        &self,
        out: &mut impl DeviceMemoryMut<T>,
        distribution: Distribution,
        operation: &'static str,
    ) -> Result<*mut T> {
        validate::check_device(self.stream.device().ordinal(), out.device().ordinal())
            .map_err(|e| e.at(operation))?;
        let ptr = out.device_ptr_mut();
        validate::check_fill(
            self.kind,
            self.dimensions,
            distribution,
            out.len(),
            ptr as usize,
            size_of::<T>(),
        )
        .map_err(|e| e.at(operation))?;
        self.bind()?;
        Ok(ptr)
    }
}
