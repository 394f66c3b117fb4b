//! cudarc's thin cuBLAS layer (`cudarc::cublas::result`): one function per
//! cuBLAS call, same names and signatures as cudarc's, each turning the
//! status into a `Result`. They call the raw names of [`sys`] (hipBLAS).
//!
//! Unlike cuBLAS, which dereferences a null scalar pointer, each function
//! first rejects, as `CUBLAS_STATUS_INVALID_VALUE` and before any call, the
//! arguments cuBLAS documents as invalid: negative sizes or batch counts,
//! leading dimensions below the rows they hold, zero vector increments,
//! unknown operations, null scalars. hipBLAS answers some of these with
//! other statuses; here every platform answers the same.
//!
//! A GEMM algorithm is passed on as it is: `cublasGemmAlgo_t`'s conversion
//! to HIP's enum (`to_hip`) turns the deprecated tensor-op algorithms into
//! hipBLAS's default, for these functions and for the raw names alike.
//!
//! # Safety
//!
//! The `unsafe` functions take raw device pointers: the caller guarantees
//! they are live device memory of the handle's device, holding what the
//! shapes, leading dimensions and strides span, and that the handle (and
//! its stream) are live. Scalars (`alpha`, `beta`, `result`) are host
//! pointers in the default pointer mode, device pointers in
//! `CUBLAS_POINTER_MODE_DEVICE`.

use super::sys;
use std::ffi::{c_int, c_longlong, c_void};
use std::fmt;

/// A failed cuBLAS call: the status, HIP's value (cudarc's `CublasError`).
/// When an argument was rejected before any call, the reason is in
/// [`last_error_detail`], and `Debug` and `Display` print it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CublasError(pub sys::cublasStatus_t);

impl fmt::Debug for CublasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut t = f.debug_tuple("CublasError");
        t.field(&self.0);
        if let Some(why) = detail_of(self.0) {
            t.field(&why);
        }
        t.finish()
    }
}

error_detail! {
    /// The reason for the last cuBLAS error this thread got, with its
    /// status, when an argument was rejected before any call (a leading
    /// dimension below its rows, a buffer shorter than the shape spans, a
    /// null scalar, ...); `None` after an error that is the library's own
    /// status. cudarc's `CublasError` holds only the status; this is where
    /// the words are.
    ///
    /// ```no_run
    /// use cuda_compat::cublas::result::{last_error_detail, sgemm};
    /// use cuda_compat::cublas::sys::cublasOperation_t;
    /// const CUBLAS_OP_N: cublasOperation_t = cublasOperation_t::CUBLAS_OP_N;
    /// // lda = 1 is below A's 4 rows: refused before any call.
    /// let (alpha, beta) = (1.0f32, 0.0f32);
    /// // SAFETY: refused before the handle or any address is used.
    /// let e = unsafe {
    ///     sgemm(std::ptr::null_mut(), CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &alpha,
    ///           std::ptr::null(), 1, std::ptr::null(), 4, &beta, std::ptr::null_mut(), 4)
    /// }
    /// .unwrap_err();
    /// let (status, why) = last_error_detail().unwrap();
    /// assert_eq!(status, e.0);
    /// assert!(why.contains("ld"), "{why}");
    /// ```
    CublasError(sys::cublasStatus_t)
}

impl fmt::Display for CublasError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for CublasError {}

impl sys::cublasStatus_t {
    /// `Ok(())` for `CUBLAS_STATUS_SUCCESS`, else the error (the library's
    /// own status: no reason of an earlier error is printed with it).
    pub fn result(self) -> Result<(), CublasError> {
        if self == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
            Ok(())
        } else {
            clear_detail();
            Err(CublasError(self))
        }
    }
}

/// `CUBLAS_STATUS_INVALID_VALUE` with its reason.
#[cold]
pub(crate) fn invalid_because(why: &str) -> CublasError {
    fail(sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE, why)
}

/// A check of `hipblas::validate` failed: its message is the reason.
#[cold]
pub(crate) fn rejected(e: hipblas::Error) -> CublasError {
    invalid_because(&e.to_string())
}

/// A size or count: non-negative.
pub(crate) fn dim(v: c_int) -> Result<usize, CublasError> {
    usize::try_from(v)
        .map_err(|_| invalid_because(&format!("{v} is negative, as a size, count or stride")))
}

/// Whether `op` transposes (`T` or `C`), or an error for an unknown value.
pub(crate) fn is_trans(op: sys::cublasOperation_t) -> Result<bool, CublasError> {
    use sys::cublasOperation_t as Op;
    if op == Op::CUBLAS_OP_N {
        Ok(false)
    } else if op == Op::CUBLAS_OP_T || op == Op::CUBLAS_OP_C {
        Ok(true)
    } else {
        Err(invalid_because(&format!(
            "{op:?} is not an operation (CUBLAS_OP_N, _T or _C)"
        )))
    }
}

/// Elements a column-major `rows x cols` matrix with leading dimension `ld`
/// spans, after checking `ld >= max(1, rows)`.
fn matrix_span(rows: usize, cols: usize, ld: c_int) -> Result<usize, CublasError> {
    hipblas::validate::matrix_span("ld", rows, cols, dim(ld)?).map_err(rejected)
}

/// Checks one GEMM's sizes, operations and leading dimensions as cuBLAS
/// documents them (`m, n, k >= 0`, `lda >= max(1, rows of A)`, ...) and
/// returns the elements `A`, `B` and `C` span.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm_spans(
    transa: sys::cublasOperation_t,
    transb: sys::cublasOperation_t,
    m: c_int,
    n: c_int,
    k: c_int,
    lda: c_int,
    ldb: c_int,
    ldc: c_int,
) -> Result<(usize, usize, usize), CublasError> {
    let (m, n, k) = (dim(m)?, dim(n)?, dim(k)?);
    let (ar, ac) = if is_trans(transa)? { (k, m) } else { (m, k) };
    let (br, bc) = if is_trans(transb)? { (n, k) } else { (k, n) };
    Ok((
        matrix_span(ar, ac, lda)?,
        matrix_span(br, bc, ldb)?,
        matrix_span(m, n, ldc)?,
    ))
}

/// Checks one GEMV's sizes, operation, leading dimension and increments
/// (`m, n >= 0`, `lda >= max(1, m)`, `incx, incy != 0`: cuBLAS allows
/// negative increments).
fn gemv_args(
    trans: sys::cublasOperation_t,
    m: c_int,
    n: c_int,
    lda: c_int,
    incx: c_int,
    incy: c_int,
) -> Result<(), CublasError> {
    is_trans(trans)?;
    matrix_span(dim(m)?, dim(n)?, lda)?;
    if incx == 0 || incy == 0 {
        return Err(invalid_because(&format!(
            "a vector increment of 0 (incx {incx}, incy {incy})"
        )));
    }
    Ok(())
}

/// Rejects null scalar pointers (cuBLAS would dereference them).
fn scalars<T>(ptrs: &[*const T]) -> Result<(), CublasError> {
    if ptrs.iter().any(|p| p.is_null()) {
        Err(invalid_because(
            "a scalar (alpha, beta or the result) is a null pointer",
        ))
    } else {
        Ok(())
    }
}

/// Rejects a negative batch count.
fn batch(count: c_int) -> Result<(), CublasError> {
    dim(count).map(drop)
}

/// A new cuBLAS handle (`cublasCreate_v2`, hipBLAS's `hipblasCreate`),
/// working on the current device's null stream until [`set_stream`].
pub fn create_handle() -> Result<sys::cublasHandle_t, CublasError> {
    let mut handle = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the handle.
    unsafe { sys::cublasCreate_v2(&mut handle) }.result()?;
    Ok(handle)
}

/// Destroys a handle from [`create_handle`] (`cublasDestroy_v2`).
///
/// # Safety
///
/// `handle` is live (not destroyed yet) and is not used afterwards.
pub unsafe fn destroy_handle(handle: sys::cublasHandle_t) -> Result<(), CublasError> {
    // SAFETY: the caller's promise.
    unsafe { sys::cublasDestroy_v2(handle) }.result()
}

/// Makes `handle` enqueue its work on `stream` (`cublasSetStream_v2`).
///
/// # Safety
///
/// `handle` and `stream` are live, on the same device.
pub unsafe fn set_stream(
    handle: sys::cublasHandle_t,
    stream: sys::cudaStream_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's promise.
    unsafe { sys::cublasSetStream_v2(handle, stream) }.result()
}

macro_rules! gemv {
    ($(#[$doc:meta])* $name:ident, $t:ty, $raw:ident) => {
        $(#[$doc])*
        ///
        /// `y = alpha * op(A) x + beta * y`, column-major.
        ///
        /// # Safety
        ///
        /// `a`, `x` and `y` are live device memory spanning what `m`, `n`,
        /// `lda`, `incx` and `incy` describe; `alpha` and `beta` point to
        /// values (host or device, by the pointer mode); `y` does not
        /// overlap `a` or `x`.
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name(
            handle: sys::cublasHandle_t,
            trans: sys::cublasOperation_t,
            m: c_int,
            n: c_int,
            alpha: *const $t,
            a: *const $t,
            lda: c_int,
            x: *const $t,
            incx: c_int,
            beta: *const $t,
            y: *mut $t,
            incy: c_int,
        ) -> Result<(), CublasError> {
            gemv_args(trans, m, n, lda, incx, incy)?;
            scalars(&[alpha, beta])?;
            // SAFETY: the arguments were checked above; the pointers are
            // the caller's (this function's `# Safety`).
            unsafe { sys::$raw(handle, trans, m, n, alpha, a, lda, x, incx, beta, y, incy) }
                .result()
        }
    };
}

gemv!(
    /// Single-precision matrix-vector product (`cublasSgemv_v2`).
    sgemv, f32, cublasSgemv_v2
);
gemv!(
    /// Double-precision matrix-vector product (`cublasDgemv_v2`).
    dgemv, f64, cublasDgemv_v2
);

macro_rules! gemm {
    ($(#[$doc:meta])* $name:ident, $t:ty, $raw_t:ty, $raw:ident) => {
        $(#[$doc])*
        ///
        /// `C = alpha * op(A) op(B) + beta * C`, column-major.
        ///
        /// # Safety
        ///
        /// `a`, `b` and `c` are live device memory spanning what the shape
        /// and leading dimensions describe; `alpha` and `beta` point to
        /// values (host or device, by the pointer mode); `c` does not
        /// overlap `a` or `b`.
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name(
            handle: sys::cublasHandle_t,
            transa: sys::cublasOperation_t,
            transb: sys::cublasOperation_t,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const $t,
            a: *const $t,
            lda: c_int,
            b: *const $t,
            ldb: c_int,
            beta: *const $t,
            c: *mut $t,
            ldc: c_int,
        ) -> Result<(), CublasError> {
            gemm_spans(transa, transb, m, n, k, lda, ldb, ldc)?;
            scalars(&[alpha, beta])?;
            // SAFETY: the arguments were checked above; the pointers are
            // the caller's (this function's `# Safety`), of a type with
            // the layout of hipBLAS's element type.
            unsafe {
                sys::$raw(
                    handle,
                    transa,
                    transb,
                    m,
                    n,
                    k,
                    alpha.cast::<$raw_t>(),
                    a.cast::<$raw_t>(),
                    lda,
                    b.cast::<$raw_t>(),
                    ldb,
                    beta.cast::<$raw_t>(),
                    c.cast::<$raw_t>(),
                    ldc,
                )
            }
            .result()
        }
    };
}

macro_rules! gemm_strided_batched {
    ($(#[$doc:meta])* $name:ident, $t:ty, $raw_t:ty, $raw:ident) => {
        $(#[$doc])*
        ///
        /// `batch_size` GEMMs `C_i = alpha * op(A_i) op(B_i) + beta * C_i`,
        /// column-major, matrix `i` of each operand `i * stride` elements
        /// after its first.
        ///
        /// # Safety
        ///
        /// `a`, `b` and `c` are live device memory spanning every matrix
        /// of the batch; `alpha` and `beta` point to values (host or
        /// device, by the pointer mode); no `C_i` overlaps another matrix
        /// of the call.
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name(
            handle: sys::cublasHandle_t,
            transa: sys::cublasOperation_t,
            transb: sys::cublasOperation_t,
            m: c_int,
            n: c_int,
            k: c_int,
            alpha: *const $t,
            a: *const $t,
            lda: c_int,
            stride_a: c_longlong,
            b: *const $t,
            ldb: c_int,
            stride_b: c_longlong,
            beta: *const $t,
            c: *mut $t,
            ldc: c_int,
            stride_c: c_longlong,
            batch_size: c_int,
        ) -> Result<(), CublasError> {
            gemm_spans(transa, transb, m, n, k, lda, ldb, ldc)?;
            batch(batch_size)?;
            scalars(&[alpha, beta])?;
            // SAFETY: the arguments were checked above; the pointers are
            // the caller's (this function's `# Safety`), of a type with
            // the layout of hipBLAS's element type.
            unsafe {
                sys::$raw(
                    handle,
                    transa,
                    transb,
                    m,
                    n,
                    k,
                    alpha.cast::<$raw_t>(),
                    a.cast::<$raw_t>(),
                    lda,
                    stride_a,
                    b.cast::<$raw_t>(),
                    ldb,
                    stride_b,
                    beta.cast::<$raw_t>(),
                    c.cast::<$raw_t>(),
                    ldc,
                    stride_c,
                    batch_size,
                )
            }
            .result()
        }
    };
}

// `half::f16` is a transparent `u16`, hipBLAS's `hipblasHalf`.
#[cfg(feature = "f16")]
gemm!(
    /// Half-precision matrix product, accumulated in half precision
    /// (`cublasHgemm`; cudarc's `Gemm<f16>` uses [`gemm_ex`] with `f32`
    /// accumulation instead).
    hgemm, half::f16, hipblas_sys::hipblasHalf, cublasHgemm
);
gemm!(
    /// Single-precision matrix product (`cublasSgemm_v2`).
    sgemm, f32, f32, cublasSgemm_v2
);
gemm!(
    /// Double-precision matrix product (`cublasDgemm_v2`).
    dgemm, f64, f64, cublasDgemm_v2
);
#[cfg(feature = "f16")]
gemm_strided_batched!(
    /// Half-precision strided batch of matrix products
    /// (`cublasHgemmStridedBatched`).
    hgemm_strided_batched, half::f16, hipblas_sys::hipblasHalf, cublasHgemmStridedBatched
);
gemm_strided_batched!(
    /// Single-precision strided batch of matrix products
    /// (`cublasSgemmStridedBatched`).
    sgemm_strided_batched, f32, f32, cublasSgemmStridedBatched
);
gemm_strided_batched!(
    /// Double-precision strided batch of matrix products
    /// (`cublasDgemmStridedBatched`).
    dgemm_strided_batched, f64, f64, cublasDgemmStridedBatched
);

/// Matrix product with the element types, the compute type and the
/// algorithm as arguments (`cublasGemmEx`, hipBLAS's `hipblasGemmEx_v2`):
/// `C = alpha * op(A) op(B) + beta * C`, column-major. `alpha` and `beta`
/// have the scalar type of `compute_type` (`f32` for
/// `CUBLAS_COMPUTE_32F*`, `f16` for `CUBLAS_COMPUTE_16F`, ...). The
/// tensor-op algorithms are hipBLAS's default (see the module docs). A
/// combination of types hipBLAS does not support is its error
/// (`CUBLAS_STATUS_NOT_SUPPORTED` or `CUBLAS_STATUS_INVALID_VALUE`).
///
/// # Safety
///
/// `a`, `b` and `c` are live device memory of the given element types
/// spanning what the shape and leading dimensions describe; `alpha` and
/// `beta` point to values of the compute type's scalar type (host or
/// device, by the pointer mode); `c` does not overlap `a` or `b`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_ex(
    handle: sys::cublasHandle_t,
    transa: sys::cublasOperation_t,
    transb: sys::cublasOperation_t,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: sys::cudaDataType,
    lda: c_int,
    b: *const c_void,
    b_type: sys::cudaDataType,
    ldb: c_int,
    beta: *const c_void,
    c: *mut c_void,
    c_type: sys::cudaDataType,
    ldc: c_int,
    compute_type: sys::cublasComputeType_t,
    algo: sys::cublasGemmAlgo_t,
) -> Result<(), CublasError> {
    gemm_spans(transa, transb, m, n, k, lda, ldb, ldc)?;
    scalars(&[alpha, beta])?;
    // SAFETY: the arguments were checked above; the pointers are the
    // caller's (this function's `# Safety`).
    unsafe {
        sys::cublasGemmEx(
            handle,
            transa,
            transb,
            m,
            n,
            k,
            alpha,
            a,
            a_type,
            lda,
            b,
            b_type,
            ldb,
            beta,
            c,
            c_type,
            ldc,
            compute_type,
            algo,
        )
    }
    .result()
}

/// A strided batch of [`gemm_ex`] products
/// (`cublasGemmStridedBatchedEx`, hipBLAS's
/// `hipblasGemmStridedBatchedEx_v2`): matrix `i` of each operand is
/// `i * stride` elements after its first.
///
/// # Safety
///
/// As [`gemm_ex`], for every matrix of the batch; no `C_i` overlaps
/// another matrix of the call.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_strided_batched_ex(
    handle: sys::cublasHandle_t,
    transa: sys::cublasOperation_t,
    transb: sys::cublasOperation_t,
    m: c_int,
    n: c_int,
    k: c_int,
    alpha: *const c_void,
    a: *const c_void,
    a_type: sys::cudaDataType,
    lda: c_int,
    stride_a: c_longlong,
    b: *const c_void,
    b_type: sys::cudaDataType,
    ldb: c_int,
    stride_b: c_longlong,
    beta: *const c_void,
    c: *mut c_void,
    c_type: sys::cudaDataType,
    ldc: c_int,
    stride_c: c_longlong,
    batch_count: c_int,
    compute_type: sys::cublasComputeType_t,
    algo: sys::cublasGemmAlgo_t,
) -> Result<(), CublasError> {
    gemm_spans(transa, transb, m, n, k, lda, ldb, ldc)?;
    batch(batch_count)?;
    scalars(&[alpha, beta])?;
    // SAFETY: the arguments were checked above; the pointers are the
    // caller's (this function's `# Safety`).
    unsafe {
        sys::cublasGemmStridedBatchedEx(
            handle,
            transa,
            transb,
            m,
            n,
            k,
            alpha,
            a,
            a_type,
            lda,
            stride_a,
            b,
            b_type,
            ldb,
            stride_b,
            beta,
            c,
            c_type,
            ldc,
            stride_c,
            batch_count,
            compute_type,
            algo,
        )
    }
    .result()
}

macro_rules! asum {
    ($(#[$doc:meta])* $name:ident, $t:ty, $raw:ident) => {
        $(#[$doc])*
        ///
        /// `sum |x[i * incx]|` for `i < n`.
        ///
        /// # Safety
        ///
        /// `x` is live device memory spanning what `n` and `incx`
        /// describe; `result` points to a writable value (host or device,
        /// by the pointer mode).
        pub unsafe fn $name(
            handle: sys::cublasHandle_t,
            n: c_int,
            x: *const $t,
            incx: c_int,
            result: *mut $t,
        ) -> Result<(), CublasError> {
            scalars(&[result.cast_const()])?;
            // SAFETY: `result` is not null; the pointers are the caller's
            // (this function's `# Safety`).
            unsafe { sys::$raw(handle, n, x, incx, result) }.result()
        }
    };
}

asum!(
    /// Single-precision sum of absolute values (`cublasSasum_v2`).
    sasum, f32, cublasSasum_v2
);
asum!(
    /// Double-precision sum of absolute values (`cublasDasum_v2`).
    dasum, f64, cublasDasum_v2
);
