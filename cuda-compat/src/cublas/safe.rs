//! cudarc's safe cuBLAS API (`CudaBlas`, `Gemm`, `Gemv`, `Asum`) over
//! hipBLAS. Shapes, leading dimensions, increments and buffer lengths are
//! checked (with the `hipblas` crate's validators) before any call: a bad
//! one is `CUBLAS_STATUS_INVALID_VALUE`, never an out-of-bounds access.

use super::generated as raw;
use crate::driver::{CudaStream, DevicePtr, DevicePtrMut, DeviceSlice};
use std::ffi::{c_int, c_longlong};
use std::fmt;
use std::sync::Arc;

/// A failed cuBLAS call: the status, HIP's value (cudarc's `CublasError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CublasError(pub raw::cublasStatus_t);

impl fmt::Display for CublasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for CublasError {}

impl raw::cublasStatus_t {
    /// `Ok(())` for `CUBLAS_STATUS_SUCCESS`, else the error.
    pub fn result(self) -> Result<(), CublasError> {
        if self == raw::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            Ok(())
        } else {
            Err(CublasError(self))
        }
    }
}

fn invalid() -> CublasError {
    CublasError(raw::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE)
}

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
        stream
            .context()
            .bind_to_thread()
            .map_err(|_| CublasError(raw::cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED))?;
        let mut handle = std::ptr::null_mut();
        // SAFETY: `handle` is a valid place.
        unsafe { raw::cublasCreate_v2(&mut handle) }.result()?;
        let blas = CudaBlas { handle, stream };
        // SAFETY: both handles are live.
        unsafe { raw::cublasSetStream_v2(blas.handle, blas.stream.cu_stream()) }.result()?;
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
        unsafe { raw::cublasSetStream_v2(self.handle, stream.cu_stream()) }.result()?;
        self.stream = stream;
        Ok(())
    }

    /// Where scalars live (`hipblasSetPointerMode`).
    pub fn set_pointer_mode(&self, mode: raw::cublasPointerMode_t) -> Result<(), CublasError> {
        // SAFETY: the handle is live.
        unsafe { raw::cublasSetPointerMode_v2(self.handle, mode) }.result()
    }

    /// Where scalars live (`hipblasGetPointerMode`).
    pub fn get_pointer_mode(&self) -> Result<raw::cublasPointerMode_t, CublasError> {
        let mut m = raw::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST;
        // SAFETY: the handle is live; `m` is a valid place.
        unsafe { raw::cublasGetPointerMode_v2(self.handle, &mut m) }.result()?;
        Ok(m)
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
        if operands.iter().all(fits) {
            Ok(())
        } else {
            Err(invalid())
        }
    }
}

impl Drop for CudaBlas {
    fn drop(&mut self) {
        // SAFETY: we own the handle.
        let r = unsafe { raw::cublasDestroy_v2(self.handle) }.result();
        self.stream.context().record_err(
            r.map_err(|_| crate::driver::DriverError(crate::driver::CUresult::CUDA_ERROR_UNKNOWN)),
        );
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

fn dim(v: c_int) -> Result<usize, CublasError> {
    usize::try_from(v).map_err(|_| invalid())
}

fn is_trans(op: raw::cublasOperation_t) -> Result<bool, CublasError> {
    if op == raw::cublasOperation_t::CUBLAS_OP_N {
        Ok(false)
    } else if op == raw::cublasOperation_t::CUBLAS_OP_T || op == raw::cublasOperation_t::CUBLAS_OP_C
    {
        Ok(true)
    } else {
        Err(invalid())
    }
}

/// Elements `A`, `B`, `C` of one GEMM span, after checking the shape.
fn gemm_spans<T>(cfg: &GemmConfig<T>) -> Result<(usize, usize, usize), CublasError> {
    let (m, n, k) = (dim(cfg.m)?, dim(cfg.n)?, dim(cfg.k)?);
    let (ar, ac) = if is_trans(cfg.transa)? {
        (k, m)
    } else {
        (m, k)
    };
    let (br, bc) = if is_trans(cfg.transb)? {
        (n, k)
    } else {
        (k, n)
    };
    let span = |name, r, c, ld: c_int| {
        hipblas::validate::matrix_span(name, r, c, dim(ld)?).map_err(|_| invalid())
    };
    Ok((
        span("lda", ar, ac, cfg.lda)?,
        span("ldb", br, bc, cfg.ldb)?,
        span("ldc", m, n, cfg.ldc)?,
    ))
}

/// Elements a strided batch spans, for one operand.
fn batch_span(one: usize, stride: c_longlong, batch: usize) -> Result<usize, CublasError> {
    if batch == 0 {
        return Ok(0);
    }
    let stride = usize::try_from(stride).map_err(|_| invalid())?;
    stride
        .checked_mul(batch - 1)
        .and_then(|v| v.checked_add(one))
        .ok_or_else(invalid)
}

fn gemv_spans<T>(cfg: &GemvConfig<T>) -> Result<(usize, usize, usize), CublasError> {
    let (m, n) = (dim(cfg.m)?, dim(cfg.n)?);
    let a = hipblas::validate::matrix_span("lda", m, n, dim(cfg.lda)?).map_err(|_| invalid())?;
    let (xn, yn) = if is_trans(cfg.trans)? { (m, n) } else { (n, m) };
    let vec = |name, len, inc: c_int| {
        hipblas::validate::vector_span(name, len, dim(inc)?).map_err(|_| invalid())
    };
    Ok((a, vec("incx", xn, cfg.incx)?, vec("incy", yn, cfg.incy)?))
}

/// GEMM (cudarc's `Gemm`): `f32`, `f64`, and with feature `f16`,
/// `half::f16` (`hipblasHgemm`).
pub trait Gemm<T> {
    /// One GEMM (`hipblas?gemm`).
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

    /// A strided batch of GEMMs (`hipblas?gemmStridedBatched`).
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

macro_rules! gemm_impl {
    ($t:ty, $raw:ty, $gemm:ident, $batched:ident) => {
        impl Gemm<$t> for CudaBlas {
            unsafe fn gemm<A: DevicePtr<$t>, B: DevicePtr<$t>, C: DevicePtrMut<$t>>(
                &self,
                cfg: GemmConfig<$t>,
                a: &A,
                b: &B,
                c: &mut C,
            ) -> Result<(), CublasError> {
                let (sa, sb, sc) = gemm_spans(&cfg)?;
                self.check_operands::<$t>(&[(a, sa), (b, sb), (&*c, sc)])?;
                let (a, _ra) = a.device_ptr(&self.stream);
                let (b, _rb) = b.device_ptr(&self.stream);
                let (c, _rc) = c.device_ptr_mut(&self.stream);
                // SAFETY: shapes, leading dimensions and lengths were
                // checked above; the pointers are live device memory of
                // this handle's device; scalars are host values.
                unsafe {
                    raw::$gemm(
                        self.handle,
                        cfg.transa,
                        cfg.transb,
                        cfg.m,
                        cfg.n,
                        cfg.k,
                        (&cfg.alpha as *const $t).cast::<$raw>(),
                        a as *const $raw,
                        cfg.lda,
                        b as *const $raw,
                        cfg.ldb,
                        (&cfg.beta as *const $t).cast::<$raw>(),
                        c as *mut $raw,
                        cfg.ldc,
                    )
                }
                .result()
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
                let g = cfg.gemm;
                let (sa, sb, sc) = gemm_spans(&g)?;
                let batch = dim(cfg.batch_size)?;
                if batch > 1 && (cfg.stride_c as i128) < sc as i128 {
                    // Overlapping outputs would race.
                    return Err(invalid());
                }
                self.check_operands::<$t>(&[
                    (a, batch_span(sa, cfg.stride_a, batch)?),
                    (b, batch_span(sb, cfg.stride_b, batch)?),
                    (&*c, batch_span(sc, cfg.stride_c, batch)?),
                ])?;
                let (a, _ra) = a.device_ptr(&self.stream);
                let (b, _rb) = b.device_ptr(&self.stream);
                let (c, _rc) = c.device_ptr_mut(&self.stream);
                // SAFETY: as in `gemm`, for every matrix of the batch.
                unsafe {
                    raw::$batched(
                        self.handle,
                        g.transa,
                        g.transb,
                        g.m,
                        g.n,
                        g.k,
                        (&g.alpha as *const $t).cast::<$raw>(),
                        a as *const $raw,
                        g.lda,
                        cfg.stride_a,
                        b as *const $raw,
                        g.ldb,
                        cfg.stride_b,
                        (&g.beta as *const $t).cast::<$raw>(),
                        c as *mut $raw,
                        g.ldc,
                        cfg.stride_c,
                        cfg.batch_size,
                    )
                }
                .result()
            }
        }
    };
}

gemm_impl!(f32, f32, cublasSgemm_v2, cublasSgemmStridedBatched);
gemm_impl!(f64, f64, cublasDgemm_v2, cublasDgemmStridedBatched);
// half::f16 is a transparent u16, hipBLAS's `hipblasHalf`.
#[cfg(feature = "f16")]
gemm_impl!(
    half::f16,
    hipblas_sys::hipblasHalf,
    cublasHgemm,
    cublasHgemmStridedBatched
);

/// GEMV (cudarc's `Gemv`): `f32`, `f64`.
pub trait Gemv<T> {
    /// One GEMV (`hipblas?gemv`).
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
                    raw::$gemv(
                        self.handle,
                        cfg.trans,
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
                .result()
            }
        }
    };
}

gemv_impl!(f32, cublasSgemv_v2);
gemv_impl!(f64, cublasDgemv_v2);

/// Sum of absolute values (cudarc's `Asum`): `f32`, `f64`; the result is
/// written to a host value.
pub trait Asum<T> {
    /// `sum |x[i * incx]|` (`hipblas?asum`), host pointer mode.
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
                result: &mut $t,
            ) -> Result<(), CublasError> {
                let span = hipblas::validate::vector_span("incx", dim(cfg.n)?, dim(cfg.incx)?)
                    .map_err(|_| invalid())?;
                self.check_operands::<$t>(&[(x, span)])?;
                let (xp, _rx) = x.device_ptr(&self.stream);
                // SAFETY: `x` spans `span` elements (checked); `result` is a
                // valid host place (host pointer mode: the call returns
                // after writing it).
                unsafe { raw::$asum(self.handle, cfg.n, xp as *const $t, cfg.incx, result) }
                    .result()
            }
        }
    };
}

asum_impl!(f32, cublasSasum_v2);
asum_impl!(f64, cublasDasum_v2);
