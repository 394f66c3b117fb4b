//! cudarc's thin cuBLAS layer (`cudarc::cublas::result`): one function per
//! cuBLAS call, same names and signatures as cudarc's, each turning the
//! status into a `Result`. Each calls the `hipblas` crate's
//! [`result`](hipblas::result) layer and turns its error into a
//! [`CublasError`] that keeps the message ([`last_error_detail`]: the C
//! function, its status and what it means, or the paths tried when no
//! library loads).
//!
//! Unlike cuBLAS, which dereferences a null scalar pointer, each function
//! first rejects, as `CUBLAS_STATUS_INVALID_VALUE` and before any call, the
//! arguments cuBLAS documents as invalid: negative sizes or batch counts,
//! leading dimensions below the rows they hold, zero vector increments,
//! unknown operations, null scalars. hipBLAS answers some of these with
//! other statuses; here every platform answers the same. The safe types
//! ([`CudaBlas`](super::CudaBlas)) run the same checks (and the buffers')
//! once, then call the `hipblas` result layer as these functions do.
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
use hipblas::result as ours_result;
use std::ffi::{c_int, c_longlong, c_void};

status_error! {
    /// A failed cuBLAS call: the status, HIP's value (cudarc's
    /// `CublasError`). Its reason (an argument rejected before any call,
    /// or hipBLAS's words for its status) is in [`last_error_detail`], and
    /// `Debug` and `Display` print it when the status matches.
    pub struct CublasError(pub sys::cublasStatus_t);
    /// The reason for the last cuBLAS error this thread got, with its
    /// status: why an argument was rejected before any call (a leading
    /// dimension below its rows, a buffer shorter than the shape spans, a
    /// null scalar, ...), or the `hipblas` crate's message for a failed
    /// call (the C function, its status and what it means, or the library
    /// paths tried); `None` after an error that is a raw status
    /// (`cublasStatus_t::result`). cudarc's `CublasError` holds only the
    /// status; this is where the words are.
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
    /// assert!(why.contains("lda"), "{why}");
    /// ```
    detail;
    from hipblas {
        load: CUBLAS_STATUS_NOT_INITIALIZED,
        invalid: CUBLAS_STATUS_INVALID_VALUE,
        unsupported: CUBLAS_STATUS_NOT_SUPPORTED,
        other: CUBLAS_STATUS_NOT_INITIALIZED,
    }
}

impl sys::cublasStatus_t {
    /// `Ok(())` for `CUBLAS_STATUS_SUCCESS`, else the error (the raw
    /// status: no reason of an earlier error is printed with it).
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
/// (named `name` in the reason) spans, after checking `ld >= max(1, rows)`.
fn matrix_span(
    name: &'static str,
    rows: usize,
    cols: usize,
    ld: c_int,
) -> Result<usize, CublasError> {
    hipblas::validate::matrix_span(name, rows, cols, dim(ld)?).map_err(rejected)
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
        matrix_span("lda", ar, ac, lda)?,
        matrix_span("ldb", br, bc, ldb)?,
        matrix_span("ldc", m, n, ldc)?,
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
    matrix_span("lda", dim(m)?, dim(n)?, lda)?;
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
/// on the current device, working on its null stream until
/// [`set_stream`]. It acts on the whole device, which CUDA forbids while
/// any stream of it captures: it waits for the device's open captures to
/// end (`hip`'s capture gate), and fails when this thread captures.
pub fn create_handle() -> Result<sys::cublasHandle_t, CublasError> {
    crate::gate::holding_current("cublasCreate_v2", ours_result::create).map_err(ours)
}

/// Destroys a handle from [`create_handle`] (`cublasDestroy_v2`), holding
/// the capture gate as [`create_handle`] does.
///
/// # Safety
///
/// `handle` is live (not destroyed yet) and is not used afterwards.
pub unsafe fn destroy_handle(handle: sys::cublasHandle_t) -> Result<(), CublasError> {
    crate::gate::holding_current("cublasDestroy_v2", |held| {
        // SAFETY: the caller's promise.
        unsafe { ours_result::destroy(handle, held) }
    })
    .map_err(ours)
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
    unsafe { ours_result::set_stream(handle, stream) }.map_err(ours)
}

/// Where scalars and results live (`cublasSetPointerMode_v2`), for
/// [`CudaBlas::set_pointer_mode`](super::CudaBlas::set_pointer_mode).
///
/// # Safety
///
/// `handle` is live.
pub(crate) unsafe fn set_pointer_mode(
    handle: sys::cublasHandle_t,
    mode: sys::cublasPointerMode_t,
) -> Result<(), CublasError> {
    // SAFETY: the caller's promise.
    unsafe { ours_result::set_pointer_mode(handle, mode.into()) }.map_err(ours)
}

/// Where scalars and results live (`cublasGetPointerMode_v2`).
///
/// # Safety
///
/// `handle` is live.
pub(crate) unsafe fn get_pointer_mode(
    handle: sys::cublasHandle_t,
) -> Result<sys::cublasPointerMode_t, CublasError> {
    // SAFETY: the caller's promise.
    unsafe { ours_result::get_pointer_mode(handle) }
        .map(Into::into)
        .map_err(ours)
}

macro_rules! gemv {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
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
            unsafe {
                ours_result::$name(
                    handle,
                    trans.into(),
                    m,
                    n,
                    alpha,
                    a,
                    lda,
                    x,
                    incx,
                    beta,
                    y,
                    incy,
                )
            }
            .map_err(ours)
        }
    };
}

gemv!(
    /// Single-precision matrix-vector product (`cublasSgemv_v2`, hipBLAS's
    /// `hipblasSgemv`).
    sgemv, f32
);
gemv!(
    /// Double-precision matrix-vector product (`cublasDgemv_v2`, hipBLAS's
    /// `hipblasDgemv`).
    dgemv, f64
);

macro_rules! gemm {
    ($(#[$doc:meta])* $name:ident, $t:ty, $raw_t:ty) => {
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
            // the caller's (this function's `# Safety`).
            // `$t` has the layout of hipBLAS's element type `$raw_t`.
            unsafe {
                ours_result::$name(
                    handle,
                    transa.into(),
                    transb.into(),
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
            .map_err(ours)
        }
    };
}

macro_rules! gemm_strided_batched {
    ($(#[$doc:meta])* $name:ident, $t:ty, $raw_t:ty) => {
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
            // the caller's (this function's `# Safety`).
            // `$t` has the layout of hipBLAS's element type `$raw_t`.
            unsafe {
                ours_result::$name(
                    handle,
                    transa.into(),
                    transb.into(),
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
            .map_err(ours)
        }
    };
}

// `half::f16` is a transparent `u16`, hipBLAS's `hipblasHalf`.
#[cfg(feature = "f16")]
gemm!(
    /// Half-precision matrix product, accumulated in half precision
    /// (`cublasHgemm`, hipBLAS's `hipblasHgemm`; cudarc's `Gemm<f16>` uses
    /// [`gemm_ex`] with `f32` accumulation instead).
    hgemm, half::f16, hipblas_sys::hipblasHalf
);
gemm!(
    /// Single-precision matrix product (`cublasSgemm_v2`, hipBLAS's
    /// `hipblasSgemm`).
    sgemm, f32, f32
);
gemm!(
    /// Double-precision matrix product (`cublasDgemm_v2`, hipBLAS's
    /// `hipblasDgemm`).
    dgemm, f64, f64
);
#[cfg(feature = "f16")]
gemm_strided_batched!(
    /// Half-precision strided batch of matrix products
    /// (`cublasHgemmStridedBatched`).
    hgemm_strided_batched, half::f16, hipblas_sys::hipblasHalf
);
gemm_strided_batched!(
    /// Single-precision strided batch of matrix products
    /// (`cublasSgemmStridedBatched`).
    sgemm_strided_batched, f32, f32
);
gemm_strided_batched!(
    /// Double-precision strided batch of matrix products
    /// (`cublasDgemmStridedBatched`).
    dgemm_strided_batched, f64, f64
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
        ours_result::gemm_ex_v2(
            handle,
            transa.into(),
            transb.into(),
            m,
            n,
            k,
            alpha,
            a,
            a_type.into(),
            lda,
            b,
            b_type.into(),
            ldb,
            beta,
            c,
            c_type.into(),
            ldc,
            compute_type.into(),
            algo.into(),
        )
    }
    .map_err(ours)
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
        ours_result::gemm_strided_batched_ex_v2(
            handle,
            transa.into(),
            transb.into(),
            m,
            n,
            k,
            alpha,
            a,
            a_type.into(),
            lda,
            stride_a,
            b,
            b_type.into(),
            ldb,
            stride_b,
            beta,
            c,
            c_type.into(),
            ldc,
            stride_c,
            batch_count,
            compute_type.into(),
            algo.into(),
        )
    }
    .map_err(ours)
}

macro_rules! asum {
    ($(#[$doc:meta])* $name:ident, $t:ty) => {
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
            unsafe { ours_result::$name(handle, n, x, incx, result) }.map_err(ours)
        }
    };
}

asum!(
    /// Single-precision sum of absolute values (`cublasSasum_v2`,
    /// hipBLAS's `hipblasSasum`).
    sasum, f32
);
asum!(
    /// Double-precision sum of absolute values (`cublasDasum_v2`,
    /// hipBLAS's `hipblasDasum`).
    dasum, f64
);
