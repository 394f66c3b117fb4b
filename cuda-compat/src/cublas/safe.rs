//! cudarc's safe cuBLAS API (`CudaBlas`, `Gemm`, `Gemv`, `Asum`) over
//! hipBLAS. Shapes, leading dimensions, increments and buffer lengths are
//! checked before any call: a bad one is `CUBLAS_STATUS_INVALID_VALUE`,
//! never an out-of-bounds access. After these checks each call goes to the
//! `hipblas` crate's result layer, as [`result`]'s functions do after
//! theirs (each check runs once), and an error keeps hipBLAS's message
//! ([`result::last_error_detail`]).

use super::result::{self, dim, fail, invalid_because, ours, rejected};
use super::sys as raw;
use crate::driver::{CudaStream, DevicePtr, DevicePtrMut, DeviceSlice};
use hipblas::result as ours_result;
use std::ffi::{c_int, c_longlong};
use std::sync::Arc;

pub use super::result::CublasError;

mod grouped_gemm;
pub use grouped_gemm::*;

/// A hipBLAS handle bound to one stream (cudarc's `CudaBlas`).
///
/// **Threads**: `Send + Sync`: hipBLAS handles may be used from any thread;
/// calls on one handle are serialised by the caller's `&`/`&mut` use as in
/// cudarc.
#[derive(Debug)]
pub struct CudaBlas {
    handle: raw::cublasHandle_t,
    stream: Arc<CudaStream>,
}

// SAFETY: see the type's docs.
unsafe impl Send for CudaBlas {}
// SAFETY: as above.
unsafe impl Sync for CudaBlas {}

impl CudaBlas {
    /// A handle working on `stream` (`hipblasCreate`, `hipblasSetStream`).
    pub fn new(stream: Arc<CudaStream>) -> Result<CudaBlas, CublasError> {
        // Creating a handle acts on the whole device, which CUDA forbids
        // during any capture of it: hip's capture gate is held.
        let device = stream.context().device.clone();
        let held = device.hold_captures("CudaBlas::new").map_err(|e| {
            fail(
                raw::cublasStatus_t::CUBLAS_STATUS_NOT_SUPPORTED,
                &e.to_string(),
            )
        })?;
        stream.context().bind_to_thread().map_err(|e| {
            fail(
                raw::cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED,
                &e.to_string(),
            )
        })?;
        let handle = hipblas::result::create(&held).map_err(ours)?;
        // Owned from here: dropped (destroyed) if setting the stream fails.
        let blas = CudaBlas { handle, stream };
        // SAFETY: both handles are live, on the same device.
        unsafe { result::set_stream(blas.handle, blas.stream.cu_stream()) }?;
        Ok(blas)
    }

    /// The raw handle.
    pub fn handle(&self) -> &raw::cublasHandle_t {
        &self.handle
    }

    /// The stream it works on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Moves the handle to another stream (`hipblasSetStream`).
    ///
    /// # Safety
    ///
    /// Work enqueued on the old stream is not ordered before work on the new
    /// one by this call.
    pub unsafe fn set_stream(&mut self, stream: Arc<CudaStream>) -> Result<(), CublasError> {
        // SAFETY: both handles are live.
        unsafe { result::set_stream(self.handle, stream.cu_stream()) }?;
        self.stream = stream;
        Ok(())
    }

    /// Where scalars live (`hipblasSetPointerMode`).
    pub fn set_pointer_mode(&self, mode: raw::cublasPointerMode_t) -> Result<(), CublasError> {
        // SAFETY: the handle is live.
        unsafe { result::set_pointer_mode(self.handle, mode) }
    }

    /// Where scalars live (`hipblasGetPointerMode`).
    pub fn get_pointer_mode(&self) -> Result<raw::cublasPointerMode_t, CublasError> {
        // SAFETY: the handle is live.
        unsafe { result::get_pointer_mode(self.handle) }
    }

    /// Rejects the call unless every operand holds at least the elements
    /// the call touches and lives on this handle's device. Only checks:
    /// nothing is enqueued, so a rejected call leaves every buffer as it was.
    fn check_operands<T>(
        &self,
        operands: &[(&dyn DeviceSlice<T>, usize)],
    ) -> Result<(), CublasError> {
        let ordinal = self.stream.context().ordinal();
        let fits = |&(m, elements): &(&dyn DeviceSlice<T>, usize)| {
            m.len() >= elements && m.stream().context().ordinal() == ordinal
        };
        match operands.iter().position(|o| !fits(o)) {
            None => Ok(()),
            Some(i) => {
                let (m, elements) = operands[i];
                Err(invalid_because(&format!(
                    "operand {} holds {} elements on device {}; the shape spans {elements} \
                     on device {ordinal}",
                    i + 1,
                    m.len(),
                    m.stream().context().ordinal()
                )))
            }
        }
    }
}

impl Drop for CudaBlas {
    fn drop(&mut self) {
        // Destroyed once no capture of the device is open (hip's capture
        // gate): cuBLAS synchronizes the device there.
        let handle = hip::SendPtr(self.handle);
        self.stream.context().release_outside_captures(move |held| {
            // SAFETY: we own the handle, and nothing uses it after this.
            unsafe { hipblas::result::destroy(handle.get(), held) }.map_err(|e| {
                crate::driver::result::fail(
                    crate::driver::CUresult::CUDA_ERROR_UNKNOWN,
                    &e.to_string(),
                )
            })
        });
    }
}

/// One GEMM, column-major: `C = alpha * op(A) op(B) + beta * C`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmConfig<T> {
    /// `op(A)`.
    pub transa: raw::cublasOperation_t,
    /// `op(B)`.
    pub transb: raw::cublasOperation_t,
    /// Rows of `op(A)` and `C`.
    pub m: c_int,
    /// Columns of `op(B)` and `C`.
    pub n: c_int,
    /// Columns of `op(A)`, rows of `op(B)`.
    pub k: c_int,
    /// Scale of the product.
    pub alpha: T,
    /// Leading dimension of `A`.
    pub lda: c_int,
    /// Leading dimension of `B`.
    pub ldb: c_int,
    /// Scale of `C`.
    pub beta: T,
    /// Leading dimension of `C`.
    pub ldc: c_int,
}

/// A strided batch of GEMMs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StridedBatchedConfig<T> {
    /// Each GEMM.
    pub gemm: GemmConfig<T>,
    /// How many.
    pub batch_size: c_int,
    /// Elements between consecutive `A`s.
    pub stride_a: c_longlong,
    /// Elements between consecutive `B`s.
    pub stride_b: c_longlong,
    /// Elements between consecutive `C`s.
    pub stride_c: c_longlong,
}

/// One GEMV: `y = alpha * op(A) x + beta * y`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemvConfig<T> {
    /// `op(A)`.
    pub trans: raw::cublasOperation_t,
    /// Rows of `A`.
    pub m: c_int,
    /// Columns of `A`.
    pub n: c_int,
    /// Scale of the product.
    pub alpha: T,
    /// Leading dimension of `A`.
    pub lda: c_int,
    /// Increment of `x`.
    pub incx: c_int,
    /// Scale of `y`.
    pub beta: T,
    /// Increment of `y`.
    pub incy: c_int,
}

/// A sum of absolute values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AsumConfig {
    /// Elements.
    pub n: c_int,
    /// Increment.
    pub incx: c_int,
}

/// Elements `A`, `B`, `C` of one GEMM span, after checking the shape.
fn gemm_spans<T>(cfg: &GemmConfig<T>) -> Result<(usize, usize, usize), CublasError> {
    result::gemm_spans(
        cfg.transa, cfg.transb, cfg.m, cfg.n, cfg.k, cfg.lda, cfg.ldb, cfg.ldc,
    )
}

/// Elements a strided batch spans, for one operand.
fn batch_span(one: usize, stride: c_longlong, batch: usize) -> Result<usize, CublasError> {
    if batch == 0 {
        return Ok(0);
    }
    let stride = usize::try_from(stride)
        .map_err(|_| invalid_because(&format!("a negative stride ({stride})")))?;
    stride
        .checked_mul(batch - 1)
        .and_then(|v| v.checked_add(one))
        .ok_or_else(|| invalid_because("the batch spans more elements than memory holds"))
}

fn gemv_spans<T>(cfg: &GemvConfig<T>) -> Result<(usize, usize, usize), CublasError> {
    let (m, n) = (dim(cfg.m)?, dim(cfg.n)?);
    let a = hipblas::validate::matrix_span("lda", m, n, dim(cfg.lda)?).map_err(rejected)?;
    let (xn, yn) = if result::is_trans(cfg.trans)? {
        (m, n)
    } else {
        (n, m)
    };
    let vec = |name, len, inc: c_int| {
        hipblas::validate::vector_span(name, len, dim(inc)?).map_err(rejected)
    };
    Ok((a, vec("incx", xn, cfg.incx)?, vec("incy", yn, cfg.incy)?))
}

/// GEMM (cudarc's `Gemm`): `f32`, `f64`, and with feature `f16`,
/// `half::f16` and `half::bf16` (as cudarc: [`result::gemm_ex`] with `f32`
/// accumulation and `f32` scalars).
pub trait Gemm<T> {
    /// One GEMM.
    ///
    /// # Safety
    ///
    /// Shapes and lengths are checked; the caller still answers for the
    /// aliasing of `c` with `a` or `b` (undefined results, as in cuBLAS).
    unsafe fn gemm<A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(
        &self,
        cfg: GemmConfig<T>,
        a: &A,
        b: &B,
        c: &mut C,
    ) -> Result<(), CublasError>;

    /// A strided batch of GEMMs.
    ///
    /// # Safety
    ///
    /// As [`Gemm::gemm`]; overlapping `C` matrices give undefined results.
    unsafe fn gemm_strided_batched<A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(
        &self,
        cfg: StridedBatchedConfig<T>,
        a: &A,
        b: &B,
        c: &mut C,
    ) -> Result<(), CublasError>;
}

/// How one element type's GEMMs reach the `hipblas` result layer, on
/// device addresses and a shape the caller checked.
trait GemmElement: Sized {
    /// One GEMM.
    ///
    /// # Safety
    ///
    /// The shape was checked and the addresses hold what it spans.
    unsafe fn gemm(
        handle: raw::cublasHandle_t,
        cfg: &GemmConfig<Self>,
        a: u64,
        b: u64,
        c: u64,
    ) -> Result<(), CublasError>;

    /// A strided batch of GEMMs.
    ///
    /// # Safety
    ///
    /// As [`GemmElement::gemm`], for every matrix of the batch.
    unsafe fn gemm_strided_batched(
        handle: raw::cublasHandle_t,
        cfg: &StridedBatchedConfig<Self>,
        a: u64,
        b: u64,
        c: u64,
    ) -> Result<(), CublasError>;
}

macro_rules! gemm_element {
    ($t:ty, $gemm:ident, $batched:ident) => {
        impl GemmElement for $t {
            unsafe fn gemm(
                handle: raw::cublasHandle_t,
                g: &GemmConfig<$t>,
                a: u64,
                b: u64,
                c: u64,
            ) -> Result<(), CublasError> {
                // SAFETY: the caller's promise; scalars are host values.
                unsafe {
                    ours_result::$gemm(
                        handle,
                        g.transa.into(),
                        g.transb.into(),
                        g.m,
                        g.n,
                        g.k,
                        &g.alpha,
                        a as *const $t,
                        g.lda,
                        b as *const $t,
                        g.ldb,
                        &g.beta,
                        c as *mut $t,
                        g.ldc,
                    )
                }
                .map_err(ours)
            }

            unsafe fn gemm_strided_batched(
                handle: raw::cublasHandle_t,
                cfg: &StridedBatchedConfig<$t>,
                a: u64,
                b: u64,
                c: u64,
            ) -> Result<(), CublasError> {
                let g = &cfg.gemm;
                // SAFETY: the caller's promise; scalars are host values.
                unsafe {
                    ours_result::$batched(
                        handle,
                        g.transa.into(),
                        g.transb.into(),
                        g.m,
                        g.n,
                        g.k,
                        &g.alpha,
                        a as *const $t,
                        g.lda,
                        cfg.stride_a,
                        b as *const $t,
                        g.ldb,
                        cfg.stride_b,
                        &g.beta,
                        c as *mut $t,
                        g.ldc,
                        cfg.stride_c,
                        cfg.batch_size,
                    )
                }
                .map_err(ours)
            }
        }
    };
}

gemm_element!(f32, sgemm, sgemm_strided_batched);
gemm_element!(f64, dgemm, dgemm_strided_batched);

/// 16-bit elements through [`result::gemm_ex`]: `f32` accumulation
/// (`CUBLAS_COMPUTE_32F`), `f32` scalars, the default algorithm, as cudarc.
#[cfg(feature = "f16")]
macro_rules! gemm_element_ex {
    ($t:ty, $data:ident) => {
        impl GemmElement for $t {
            unsafe fn gemm(
                handle: raw::cublasHandle_t,
                g: &GemmConfig<$t>,
                a: u64,
                b: u64,
                c: u64,
            ) -> Result<(), CublasError> {
                let (alpha, beta) = (g.alpha.to_f32(), g.beta.to_f32());
                let data = raw::cudaDataType_t::$data;
                // SAFETY: the caller's promise; the scalars are host `f32`s,
                // the compute type's scalar type.
                unsafe {
                    ours_result::gemm_ex_v2(
                        handle,
                        g.transa.into(),
                        g.transb.into(),
                        g.m,
                        g.n,
                        g.k,
                        (&alpha as *const f32).cast(),
                        a as *const _,
                        data.into(),
                        g.lda,
                        b as *const _,
                        data.into(),
                        g.ldb,
                        (&beta as *const f32).cast(),
                        c as *mut _,
                        data.into(),
                        g.ldc,
                        raw::cublasComputeType_t::CUBLAS_COMPUTE_32F.into(),
                        raw::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT.into(),
                    )
                }
                .map_err(ours)
            }

            unsafe fn gemm_strided_batched(
                handle: raw::cublasHandle_t,
                cfg: &StridedBatchedConfig<$t>,
                a: u64,
                b: u64,
                c: u64,
            ) -> Result<(), CublasError> {
                let g = &cfg.gemm;
                let (alpha, beta) = (g.alpha.to_f32(), g.beta.to_f32());
                let data = raw::cudaDataType_t::$data;
                // SAFETY: as in `gemm`, for every matrix of the batch.
                unsafe {
                    ours_result::gemm_strided_batched_ex_v2(
                        handle,
                        g.transa.into(),
                        g.transb.into(),
                        g.m,
                        g.n,
                        g.k,
                        (&alpha as *const f32).cast(),
                        a as *const _,
                        data.into(),
                        g.lda,
                        cfg.stride_a,
                        b as *const _,
                        data.into(),
                        g.ldb,
                        cfg.stride_b,
                        (&beta as *const f32).cast(),
                        c as *mut _,
                        data.into(),
                        g.ldc,
                        cfg.stride_c,
                        cfg.batch_size,
                        raw::cublasComputeType_t::CUBLAS_COMPUTE_32F.into(),
                        raw::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT.into(),
                    )
                }
                .map_err(ours)
            }
        }
    };
}

#[cfg(feature = "f16")]
gemm_element_ex!(half::f16, CUDA_R_16F);
#[cfg(feature = "f16")]
gemm_element_ex!(half::bf16, CUDA_R_16BF);

impl CudaBlas {
    /// [`Gemm::gemm`] for every element type: the checks, then the call.
    unsafe fn checked_gemm<T: GemmElement, A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(
        &self,
        cfg: GemmConfig<T>,
        a: &A,
        b: &B,
        c: &mut C,
    ) -> Result<(), CublasError> {
        let (sa, sb, sc) = gemm_spans(&cfg)?;
        self.check_operands::<T>(&[(a, sa), (b, sb), (&*c, sc)])?;
        let (a, _ra) = a.device_ptr(&self.stream);
        let (b, _rb) = b.device_ptr(&self.stream);
        let (c, _rc) = c.device_ptr_mut(&self.stream);
        // SAFETY: shapes, leading dimensions and lengths were checked
        // above; the addresses are live memory of this handle's device.
        unsafe { T::gemm(self.handle, &cfg, a, b, c) }
    }

    /// [`Gemm::gemm_strided_batched`] for every element type.
    unsafe fn checked_gemm_strided_batched<
        T: GemmElement,
        A: DevicePtr<T>,
        B: DevicePtr<T>,
        C: DevicePtrMut<T>,
    >(
        &self,
        cfg: StridedBatchedConfig<T>,
        a: &A,
        b: &B,
        c: &mut C,
    ) -> Result<(), CublasError> {
        let (sa, sb, sc) = gemm_spans(&cfg.gemm)?;
        let batch = dim(cfg.batch_size)?;
        if batch > 1 && i128::from(cfg.stride_c) < sc as i128 {
            // Overlapping outputs would race.
            return Err(invalid_because(&format!(
                "stride_c {} is below the {sc} elements one C spans: the outputs would overlap",
                cfg.stride_c
            )));
        }
        self.check_operands::<T>(&[
            (a, batch_span(sa, cfg.stride_a, batch)?),
            (b, batch_span(sb, cfg.stride_b, batch)?),
            (&*c, batch_span(sc, cfg.stride_c, batch)?),
        ])?;
        let (a, _ra) = a.device_ptr(&self.stream);
        let (b, _rb) = b.device_ptr(&self.stream);
        let (c, _rc) = c.device_ptr_mut(&self.stream);
        // SAFETY: as in `checked_gemm`, for every matrix of the batch.
        unsafe { T::gemm_strided_batched(self.handle, &cfg, a, b, c) }
    }
}

macro_rules! gemm_impl {
    ($($(#[$attr:meta])* $t:ty),*) => {$(
        $(#[$attr])*
        impl Gemm<$t> for CudaBlas {
            unsafe fn gemm<A: DevicePtr<$t>, B: DevicePtr<$t>, C: DevicePtrMut<$t>>(
                &self,
                cfg: GemmConfig<$t>,
                a: &A,
                b: &B,
                c: &mut C,
            ) -> Result<(), CublasError> {
                // SAFETY: the caller's contract (`Gemm::gemm`).
                unsafe { self.checked_gemm(cfg, a, b, c) }
            }

            unsafe fn gemm_strided_batched<
                A: DevicePtr<$t>,
                B: DevicePtr<$t>,
                C: DevicePtrMut<$t>,
            >(
                &self,
                cfg: StridedBatchedConfig<$t>,
                a: &A,
                b: &B,
                c: &mut C,
            ) -> Result<(), CublasError> {
                // SAFETY: the caller's contract (`Gemm::gemm_strided_batched`).
                unsafe { self.checked_gemm_strided_batched(cfg, a, b, c) }
            }
        }
    )*};
}

gemm_impl!(
    f32,
    f64,
    #[cfg(feature = "f16")]
    half::f16,
    #[cfg(feature = "f16")]
    half::bf16
);

/// GEMV (cudarc's `Gemv`): `f32`, `f64`.
pub trait Gemv<T> {
    /// One GEMV ([`result::sgemv`], [`result::dgemv`]).
    ///
    /// # Safety
    ///
    /// Shapes and lengths are checked; `y` must not alias `a` or `x`.
    unsafe fn gemv<A: DevicePtr<T>, X: DevicePtr<T>, Y: DevicePtrMut<T>>(
        &self,
        cfg: GemvConfig<T>,
        a: &A,
        x: &X,
        y: &mut Y,
    ) -> Result<(), CublasError>;
}

macro_rules! gemv_impl {
    ($t:ty, $gemv:ident) => {
        impl Gemv<$t> for CudaBlas {
            unsafe fn gemv<A: DevicePtr<$t>, X: DevicePtr<$t>, Y: DevicePtrMut<$t>>(
                &self,
                cfg: GemvConfig<$t>,
                a: &A,
                x: &X,
                y: &mut Y,
            ) -> Result<(), CublasError> {
                let (sa, sx, sy) = gemv_spans(&cfg)?;
                self.check_operands::<$t>(&[(a, sa), (x, sx), (&*y, sy)])?;
                let (a, _ra) = a.device_ptr(&self.stream);
                let (x, _rx) = x.device_ptr(&self.stream);
                let (y, _ry) = y.device_ptr_mut(&self.stream);
                // SAFETY: shapes and lengths were checked above.
                unsafe {
                    ours_result::$gemv(
                        self.handle,
                        cfg.trans.into(),
                        cfg.m,
                        cfg.n,
                        &cfg.alpha,
                        a as *const $t,
                        cfg.lda,
                        x as *const $t,
                        cfg.incx,
                        &cfg.beta,
                        y as *mut $t,
                        cfg.incy,
                    )
                }
                .map_err(ours)
            }
        }
    };
}

gemv_impl!(f32, sgemv);
gemv_impl!(f64, dgemv);

/// Sum of absolute values (cudarc's `Asum`): `f32`, `f64`; the result is
/// written to a host value.
pub trait Asum<T> {
    /// `sum |x[i * incx]|` ([`result::sasum`], [`result::dasum`]), host
    /// pointer mode.
    ///
    /// # Safety
    ///
    /// Lengths are checked; the handle is in host pointer mode (the
    /// default).
    unsafe fn asum<X: DevicePtr<T>>(
        &self,
        cfg: AsumConfig,
        x: &X,
        result: &mut T,
    ) -> Result<(), CublasError>;
}

macro_rules! asum_impl {
    ($t:ty, $asum:ident) => {
        impl Asum<$t> for CudaBlas {
            unsafe fn asum<X: DevicePtr<$t>>(
                &self,
                cfg: AsumConfig,
                x: &X,
                out: &mut $t,
            ) -> Result<(), CublasError> {
                let span = hipblas::validate::vector_span("incx", dim(cfg.n)?, dim(cfg.incx)?)
                    .map_err(rejected)?;
                self.check_operands::<$t>(&[(x, span)])?;
                let (xp, _rx) = x.device_ptr(&self.stream);
                // SAFETY: `x` spans `span` elements (checked); `out` is a
                // valid host place (host pointer mode: the call returns
                // after writing it).
                unsafe { ours_result::$asum(self.handle, cfg.n, xp as *const $t, cfg.incx, out) }
                    .map_err(ours)
            }
        }
    };
}

asum_impl!(f32, sasum);
asum_impl!(f64, dasum);
