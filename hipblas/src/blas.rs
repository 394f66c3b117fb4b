//! The handle and the safe calls.

use crate::error::{check, Error, Result};
use crate::routines::Blas1;
use crate::scalar::{Gemm, GemmRoute, Scalar};
use crate::validate::{self, int, GemmShape};
use crate::{Compute, Diag, Fill, MathMode, Op, Side};
use hip::{AccessEvents, DeviceBuffer, DeviceMemory, DeviceMemoryMut, Stream};
use hipblas_sys::{loader, *};
use std::fmt;

/// A host scalar passed by pointer, aligned to 16 bytes: cuBLAS reads
/// `cuDoubleComplex` (declared 16-byte aligned) with aligned loads, so a
/// `c64` at an 8-byte boundary would fault.
#[repr(C, align(16))]
struct Aligned<T>(T);

/// Errors seen while dropping handles, in `hip`'s registry type (same cap,
/// same order), holding this crate's [`Error`].
static DROP_ERRORS: hip::DropErrorRegistry<Error> = hip::DropErrorRegistry::new();

/// Errors seen while dropping handles (`hipblasDestroy`), oldest first;
/// taking them empties the list. At most the last
/// [`hip::MAX_RECORDED`] (1024) are kept. `Drop` never panics.
pub fn take_drop_errors() -> Vec<Error> {
    DROP_ERRORS.take_all()
}

/// A hipBLAS handle bound to one HIP stream: every call it makes is
/// enqueued on that stream, in order.
///
/// Matrices are **column-major**, as in BLAS. Row-major callers use
/// [`Blas::gemm_row_major`] (it computes `Cᵀ = Bᵀ Aᵀ`, which is the
/// row-major product, without moving any data) or describe their data as the
/// transpose.
///
/// Every call checks shapes, leading dimensions, strides, batch counts,
/// buffer lengths and devices before calling hipBLAS, and names the
/// offending value when one is wrong.
///
/// **Threads**: `Send` but not `Sync`: a hipBLAS handle may move between
/// threads but must not be used by two at once (rocBLAS and cuBLAS handles
/// are not safe for concurrent use). Make one `Blas` per thread.
pub struct Blas {
    raw: hipblasHandle_t,
    stream: Stream,
}

// SAFETY: the handle is a pointer into the library that any thread may use,
// one at a time; `Blas` is not `Sync`, so two threads never use it at once.
unsafe impl Send for Blas {}

impl fmt::Debug for Blas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blas")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .finish()
    }
}

impl Drop for Blas {
    fn drop(&mut self) {
        // The handle belongs to the stream's device: destroy it there.
        if let Err(e) = self.stream.device().bind() {
            DROP_ERRORS.record_error(Error::Runtime(e));
        }
        // SAFETY: the handle was created by `hipblasCreate` and is destroyed
        // once, here.
        if let Err(e) = check("hipblasDestroy", unsafe { hipblasDestroy(self.raw) }) {
            DROP_ERRORS.record_error(e);
        }
    }
}

/// Whether the loaded library needs the v1 (`hipblasDatatype_t`) form of
/// the `Ex` functions.
fn use_v1_ex() -> Result<bool> {
    let lib = loader::hipblas().map_err(Error::Load)?;
    if lib.is_available("hipblasGemmEx_v2") {
        Ok(false)
    } else if lib.is_available("hipblasGemmEx") {
        Ok(true)
    } else {
        Err(Error::Unsupported(format!(
            "the loaded hipBLAS provides neither form of hipblasGemmEx (ABI {:?})",
            lib.datatype_abi
        )))
    }
}

impl Blas {
    /// Creates a handle (`hipblasCreate`) on the stream's device and binds
    /// it to the stream (`hipblasSetStream`).
    pub fn new(stream: &Stream) -> Result<Blas> {
        loader::hipblas().map_err(Error::Load)?;
        stream.device().bind().map_err(Error::Runtime)?;
        let mut raw: hipblasHandle_t = std::ptr::null_mut();
        // SAFETY: `raw` is a valid place for the new handle.
        check("hipblasCreate", unsafe { hipblasCreate(&mut raw) })?;
        let blas = Blas {
            raw,
            stream: stream.clone(),
        };
        // SAFETY: live handle; the stream outlives it (`blas` holds a clone).
        check("hipblasSetStream", unsafe {
            hipblasSetStream(blas.raw, stream.as_raw())
        })?;
        Ok(blas)
    }

    /// The stream the calls are enqueued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The raw handle, for calls this crate does not wrap. It stays owned
    /// by `self`.
    pub fn as_raw(&self) -> hipblasHandle_t {
        self.raw
    }

    /// Sets the math mode (`hipblasSetMathMode`). The default lets the
    /// library pick its fastest exact-precision kernels; `Tf32` lets f32
    /// GEMMs use TF32 tensor cores (NVIDIA).
    pub fn set_math_mode(&mut self, mode: MathMode) -> Result<()> {
        // SAFETY: live handle.
        check("hipblasSetMathMode", unsafe {
            hipblasSetMathMode(self.raw, mode.raw())
        })
    }

    /// The math mode (`hipblasGetMathMode`).
    pub fn math_mode(&self) -> Result<MathMode> {
        let mut m = hipblasMath_t::HIPBLAS_DEFAULT_MATH;
        // SAFETY: live handle, valid out-pointer.
        check("hipblasGetMathMode", unsafe {
            hipblasGetMathMode(self.raw, &mut m)
        })?;
        MathMode::from_raw(m).ok_or_else(|| Error::Unsupported(format!("unknown math mode {m:?}")))
    }

    fn same_device<T: hip::DeviceRepr>(
        &self,
        name: &'static str,
        m: &dyn DeviceMemory<T>,
    ) -> Result<()> {
        let want = self.stream.device().ordinal();
        let got = m.device().ordinal();
        if want != got {
            return Err(Error::invalid(
                name,
                got as u64,
                format!("buffer is on device {got} but the handle's stream is on device {want}"),
            ));
        }
        Ok(())
    }

    fn prepare(&self) -> Result<()> {
        self.stream.device().bind().map_err(Error::Runtime)
    }

    /// Binds the device and runs `call` (hipBLAS work on the handle's
    /// stream) in order with the tracked memory it reads and writes (the
    /// buffers of `Stream::alloc`, see `hip::Stream::enqueue_tracked`):
    /// the stream first waits for their conflicting accesses on other
    /// streams, and the call's own are recorded, so that their stream-
    /// ordered frees wait for it. Untracked memory costs nothing.
    fn tracked<R>(
        &self,
        reads: &[&AccessEvents],
        writes: &[&AccessEvents],
        call: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        self.prepare()?;
        self.stream.enqueue_tracked(reads, writes, call)
    }

    /// `C = alpha op(A) op(B) + beta C`, column-major (`hipblas<T>gemm`;
    /// bf16 goes through `hipblasGemmEx` with f32 accumulation).
    ///
    /// `shape` gives the operations, `m`, `n`, `k` and leading dimensions
    /// ([`GemmShape::new`] has the tightest ones). `a`, `b`, `c` must hold
    /// the elements the shape spans.
    pub fn gemm<T: Gemm>(
        &self,
        shape: &GemmShape,
        alpha: T,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        beta: T,
        c: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        if T::ROUTE == GemmRoute::ExF32 {
            return self.gemm_ex(
                shape,
                to_f64(&alpha)?,
                a,
                b,
                to_f64(&beta)?,
                c,
                Compute::F32,
            );
        }
        let sp = shape.spans()?;
        validate::buffer("a", a.len(), sp.a)?;
        validate::buffer("b", b.len(), sp.b)?;
        validate::buffer("c", c.len(), sp.c)?;
        self.same_device("a", a)?;
        self.same_device("b", b)?;
        self.same_device("c", c)?;
        if shape.m == 0 || shape.n == 0 {
            return Ok(());
        }
        let c_ptr = c.device_ptr_mut();
        let (reads, writes) = ([a.access_events(), b.access_events()], [c.access_events()]);
        self.tracked(&reads, &writes, || {
            // SAFETY: every buffer is on the stream's device and spans what the
            // checked shape reads and writes; `c` is borrowed mutably.
            check(T::GEMM_CALL, unsafe {
                T::gemm(
                    self.raw,
                    shape.transa.raw(),
                    shape.transb.raw(),
                    shape.m as i32,
                    shape.n as i32,
                    shape.k as i32,
                    &Aligned(alpha).0,
                    a.device_ptr(),
                    shape.lda as i32,
                    b.device_ptr(),
                    shape.ldb as i32,
                    &Aligned(beta).0,
                    c_ptr,
                    shape.ldc as i32,
                )
            })
        })
    }

    /// Row-major GEMM: `C = alpha op(A) op(B) + beta C` where A, B, C are
    /// stored row by row, `op(A)` is `m x k`, and `lda`/`ldb`/`ldc` are row
    /// strides (elements between the starts of two rows).
    ///
    /// Computed as the column-major `Cᵀ = alpha op(B)ᵀ op(A)ᵀ + beta Cᵀ`,
    /// i.e. [`Blas::gemm`] with A and B swapped and `m`, `n` swapped: no
    /// data is moved or transposed.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_row_major<T: Gemm>(
        &self,
        shape: &GemmShape,
        alpha: T,
        a: &impl DeviceMemory<T>,
        b: &impl DeviceMemory<T>,
        beta: T,
        c: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        self.gemm(&shape.row_major_as_column_major(), alpha, b, a, beta, c)
    }

    /// `gemm` for `batch` products whose matrices lie `stride_a`,
    /// `stride_b`, `stride_c` elements apart in one buffer each
    /// (`hipblas<T>gemmStridedBatched`). Outputs must not overlap
    /// (`stride_c` at least one C).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_strided_batched<T: Gemm>(
        &self,
        shape: &GemmShape,
        alpha: T,
        a: &impl DeviceMemory<T>,
        stride_a: usize,
        b: &impl DeviceMemory<T>,
        stride_b: usize,
        beta: T,
        c: &mut impl DeviceMemoryMut<T>,
        stride_c: usize,
        batch: usize,
    ) -> Result<()> {
        if T::ROUTE == GemmRoute::ExF32 {
            // As `gemm`: bf16 through the Ex form with f32 accumulation.
            let (alpha, beta) = (to_f64(&alpha)?, to_f64(&beta)?);
            return self.gemm_strided_batched_ex(
                shape,
                alpha,
                a,
                stride_a,
                b,
                stride_b,
                beta,
                c,
                stride_c,
                batch,
                Compute::F32,
            );
        }
        let one = shape.spans()?;
        let sp = validate::strided_spans(one, stride_a, stride_b, stride_c, batch)?;
        validate::buffer("a", a.len(), sp.a)?;
        validate::buffer("b", b.len(), sp.b)?;
        validate::buffer("c", c.len(), sp.c)?;
        self.same_device("a", a)?;
        self.same_device("b", b)?;
        self.same_device("c", c)?;
        if shape.m == 0 || shape.n == 0 || batch == 0 {
            return Ok(());
        }
        let c_ptr = c.device_ptr_mut();
        let (reads, writes) = ([a.access_events(), b.access_events()], [c.access_events()]);
        self.tracked(&reads, &writes, || {
            // SAFETY: as in `gemm`, for every product: the strided spans were
            // checked against each buffer.
            check(T::GEMM_STRIDED_BATCHED_CALL, unsafe {
                T::gemm_strided_batched(
                    self.raw,
                    shape.transa.raw(),
                    shape.transb.raw(),
                    shape.m as i32,
                    shape.n as i32,
                    shape.k as i32,
                    &Aligned(alpha).0,
                    a.device_ptr(),
                    shape.lda as i32,
                    stride_a as i64,
                    b.device_ptr(),
                    shape.ldb as i32,
                    stride_b as i64,
                    &Aligned(beta).0,
                    c_ptr,
                    shape.ldc as i32,
                    stride_c as i64,
                    batch as i32,
                )
            })
        })
    }

    /// `gemm` for a batch of separate matrices (`hipblas<T>gemmBatched`):
    /// `a[i]`, `b[i]`, `c[i]` form product `i`. The device arrays of
    /// pointers hipBLAS needs are built here; the call waits for the stream
    /// before freeing them, so it returns with the products done.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_batched<T: Gemm, A: DeviceMemory<T>, B: DeviceMemory<T>, C: DeviceMemoryMut<T>>(
        &self,
        shape: &GemmShape,
        alpha: T,
        a: &[&A],
        b: &[&B],
        beta: T,
        c: &mut [&mut C],
    ) -> Result<()> {
        let batch = c.len();
        int("batch_count", batch)?;
        if a.len() != batch {
            return Err(Error::invalid(
                "a.len()",
                a.len() as u64,
                format!("must equal the batch count c.len() = {batch}"),
            ));
        }
        if b.len() != batch {
            return Err(Error::invalid(
                "b.len()",
                b.len() as u64,
                format!("must equal the batch count c.len() = {batch}"),
            ));
        }
        if T::ROUTE == GemmRoute::ExF32 {
            return Err(Error::Unsupported(
                "batched bf16 GEMM: use gemm_strided_batched".into(),
            ));
        }
        let sp = shape.spans()?;
        for i in 0..batch {
            validate::buffer("a[i]", a[i].len(), sp.a)?;
            validate::buffer("b[i]", b[i].len(), sp.b)?;
            validate::buffer("c[i]", c[i].len(), sp.c)?;
            self.same_device("a[i]", a[i])?;
            self.same_device("b[i]", b[i])?;
            self.same_device("c[i]", &*c[i])?;
        }
        let mut cp: Vec<usize> = Vec::with_capacity(batch);
        for ci in c.iter_mut() {
            let p = ci.device_ptr_mut() as usize;
            if cp.contains(&p) && sp.c > 0 {
                return Err(Error::invalid(
                    "c[i]",
                    p as u64,
                    "two products of the batch would write the same C",
                ));
            }
            cp.push(p);
        }
        if shape.m == 0 || shape.n == 0 || batch == 0 {
            return Ok(());
        }
        let reads: Vec<&AccessEvents> = (a.iter().map(|x| x.access_events()))
            .chain(b.iter().map(|x| x.access_events()))
            .collect();
        let writes: Vec<&AccessEvents> = c.iter().map(|x| x.access_events()).collect();
        self.prepare()?;
        let dev = self.stream.device();
        let ap: Vec<usize> = a.iter().map(|x| x.device_ptr() as usize).collect();
        let bp: Vec<usize> = b.iter().map(|x| x.device_ptr() as usize).collect();
        let ad = DeviceBuffer::from_slice(dev, &ap).map_err(Error::Runtime)?;
        let bd = DeviceBuffer::from_slice(dev, &bp).map_err(Error::Runtime)?;
        let cd = DeviceBuffer::from_slice(dev, &cp).map_err(Error::Runtime)?;
        let status = self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: the pointer arrays hold `batch` device addresses of
            // buffers checked above, alive (borrowed) for this call, which waits
            // for the stream before the arrays are freed.
            Ok::<_, Error>(unsafe {
                T::gemm_batched(
                    self.raw,
                    shape.transa.raw(),
                    shape.transb.raw(),
                    shape.m as i32,
                    shape.n as i32,
                    shape.k as i32,
                    &Aligned(alpha).0,
                    ad.as_device_ptr().cast(),
                    shape.lda as i32,
                    bd.as_device_ptr().cast(),
                    shape.ldb as i32,
                    &Aligned(beta).0,
                    cd.as_device_ptr().cast(),
                    shape.ldc as i32,
                    batch as i32,
                )
            })
        })?;
        let sync = self.stream.synchronize().map_err(Error::Runtime);
        check(T::GEMM_BATCHED_CALL, status)?;
        sync
    }

    /// Mixed-precision GEMM (`hipblasGemmEx`): A and B of type `TA`, C of
    /// type `TC`, computed as `compute` says (f32 accumulation for f16/bf16
    /// inputs with [`Compute::F32`]; TF32 tensor cores with
    /// [`Compute::F32FastTf32`]). `alpha` and `beta` are given as f64 and
    /// passed in the compute type's precision.
    ///
    /// Uses the v2 form (`hipDataType`, `hipblasComputeType_t`) when the
    /// loaded hipBLAS has it, else the v1 form.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_ex<TA: Scalar, TC: Scalar>(
        &self,
        shape: &GemmShape,
        alpha: f64,
        a: &impl DeviceMemory<TA>,
        b: &impl DeviceMemory<TA>,
        beta: f64,
        c: &mut impl DeviceMemoryMut<TC>,
        compute: Compute,
    ) -> Result<()> {
        let sp = shape.spans()?;
        validate::buffer("a", a.len(), sp.a)?;
        validate::buffer("b", b.len(), sp.b)?;
        validate::buffer("c", c.len(), sp.c)?;
        self.same_device("a", a)?;
        self.same_device("b", b)?;
        self.same_device("c", c)?;
        compute.check_types(TA::NAME, TC::NAME)?;
        if shape.m == 0 || shape.n == 0 {
            return Ok(());
        }
        let c_ptr = c.device_ptr_mut();
        let (reads, writes) = ([a.access_events(), b.access_events()], [c.access_events()]);
        self.tracked(&reads, &writes, || {
            self.strided_ex_raw(
                shape,
                alpha,
                (a.device_ptr().cast(), TA::DATA_TYPE, TA::DATATYPE_V1, 0),
                (b.device_ptr().cast(), TA::DATA_TYPE, TA::DATATYPE_V1, 0),
                beta,
                (c_ptr.cast(), TC::DATA_TYPE, TC::DATATYPE_V1, 0),
                0,
                compute,
            )
        })
    }

    /// Strided-batched mixed-precision GEMM
    /// (`hipblasGemmStridedBatchedEx`); see [`Blas::gemm_ex`] and
    /// [`Blas::gemm_strided_batched`].
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_strided_batched_ex<TA: Scalar, TC: Scalar>(
        &self,
        shape: &GemmShape,
        alpha: f64,
        a: &impl DeviceMemory<TA>,
        stride_a: usize,
        b: &impl DeviceMemory<TA>,
        stride_b: usize,
        beta: f64,
        c: &mut impl DeviceMemoryMut<TC>,
        stride_c: usize,
        batch: usize,
        compute: Compute,
    ) -> Result<()> {
        let one = shape.spans()?;
        let sp = validate::strided_spans(one, stride_a, stride_b, stride_c, batch)?;
        validate::buffer("a", a.len(), sp.a)?;
        validate::buffer("b", b.len(), sp.b)?;
        validate::buffer("c", c.len(), sp.c)?;
        self.same_device("a", a)?;
        self.same_device("b", b)?;
        self.same_device("c", c)?;
        compute.check_types(TA::NAME, TC::NAME)?;
        if shape.m == 0 || shape.n == 0 || batch == 0 {
            return Ok(());
        }
        let c_ptr = c.device_ptr_mut();
        let (reads, writes) = ([a.access_events(), b.access_events()], [c.access_events()]);
        self.tracked(&reads, &writes, || {
            self.strided_ex_raw(
                shape,
                alpha,
                (
                    a.device_ptr().cast(),
                    TA::DATA_TYPE,
                    TA::DATATYPE_V1,
                    stride_a,
                ),
                (
                    b.device_ptr().cast(),
                    TA::DATA_TYPE,
                    TA::DATATYPE_V1,
                    stride_b,
                ),
                beta,
                (c_ptr.cast(), TC::DATA_TYPE, TC::DATATYPE_V1, stride_c),
                batch,
                compute,
            )
        })
    }

    /// The `Ex` call on checked arguments; `batch == 0` means a single
    /// product (`hipblasGemmEx`), otherwise the strided-batched form.
    #[allow(clippy::too_many_arguments)]
    fn strided_ex_raw(
        &self,
        shape: &GemmShape,
        alpha: f64,
        a: (
            *const std::ffi::c_void,
            hipDataType,
            hipblasDatatype_t,
            usize,
        ),
        b: (
            *const std::ffi::c_void,
            hipDataType,
            hipblasDatatype_t,
            usize,
        ),
        beta: f64,
        c: (*mut std::ffi::c_void, hipDataType, hipblasDatatype_t, usize),
        batch: usize,
        compute: Compute,
    ) -> Result<()> {
        let v1 = use_v1_ex()?;
        let scalars = Scalars::new(compute, alpha, beta);
        let (m, n, k) = (shape.m as i32, shape.n as i32, shape.k as i32);
        let (lda, ldb, ldc) = (shape.lda as i32, shape.ldb as i32, shape.ldc as i32);
        let (ta, tb) = (shape.transa.raw(), shape.transb.raw());
        let algo = hipblasGemmAlgo_t::HIPBLAS_GEMM_DEFAULT;
        let (pa, pb) = (scalars.alpha(), scalars.beta());
        let (name, status) = match (batch, v1) {
            (0, false) => ("hipblasGemmEx_v2", {
                // SAFETY: buffers checked by the caller against the shape;
                // alpha/beta point to the compute type's scalars.
                unsafe {
                    hipblasGemmEx_v2(
                        self.raw,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        pa,
                        a.0,
                        a.1,
                        lda,
                        b.0,
                        b.1,
                        ldb,
                        pb,
                        c.0,
                        c.1,
                        ldc,
                        compute.raw(),
                        algo,
                    )
                }
            }),
            (0, true) => ("hipblasGemmEx", {
                let ct = compute.raw_v1()?;
                // SAFETY: as above, v1 form.
                unsafe {
                    hipblasGemmEx(
                        self.raw, ta, tb, m, n, k, pa, a.0, a.2, lda, b.0, b.2, ldb, pb, c.0, c.2,
                        ldc, ct, algo,
                    )
                }
            }),
            (_, false) => ("hipblasGemmStridedBatchedEx_v2", {
                // SAFETY: as above, for every product of the batch.
                unsafe {
                    hipblasGemmStridedBatchedEx_v2(
                        self.raw,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        pa,
                        a.0,
                        a.1,
                        lda,
                        a.3 as i64,
                        b.0,
                        b.1,
                        ldb,
                        b.3 as i64,
                        pb,
                        c.0,
                        c.1,
                        ldc,
                        c.3 as i64,
                        batch as i32,
                        compute.raw(),
                        algo,
                    )
                }
            }),
            (_, true) => ("hipblasGemmStridedBatchedEx", {
                let ct = compute.raw_v1()?;
                // SAFETY: as above, v1 form.
                unsafe {
                    hipblasGemmStridedBatchedEx(
                        self.raw,
                        ta,
                        tb,
                        m,
                        n,
                        k,
                        pa,
                        a.0,
                        a.2,
                        lda,
                        a.3 as i64,
                        b.0,
                        b.2,
                        ldb,
                        b.3 as i64,
                        pb,
                        c.0,
                        c.2,
                        ldc,
                        c.3 as i64,
                        batch as i32,
                        ct,
                        algo,
                    )
                }
            }),
        };
        check(name, status)
    }

    // ---- level 1 ---------------------------------------------------------

    fn vec_arg<T: hip::DeviceRepr>(
        &self,
        name: &'static str,
        inc_name: &'static str,
        v: &dyn DeviceMemory<T>,
        n: usize,
        inc: usize,
    ) -> Result<()> {
        let span = validate::vector_span(inc_name, n, inc)?;
        int(inc_name, inc)?;
        validate::buffer(name, v.len(), span)?;
        self.same_device(name, v)
    }

    /// `y = alpha x + y` over `n` elements with increments `incx`, `incy`
    /// (`hipblas<T>axpy`).
    pub fn axpy<T: Blas1>(
        &self,
        n: usize,
        alpha: T,
        x: &impl DeviceMemory<T>,
        incx: usize,
        y: &mut impl DeviceMemoryMut<T>,
        incy: usize,
    ) -> Result<()> {
        let ni = int("n", n)?;
        self.vec_arg("x", "incx", x, n, incx)?;
        self.vec_arg("y", "incy", y, n, incy)?;
        let y_ptr = y.device_ptr_mut();
        self.tracked(&[x.access_events()], &[y.access_events()], || {
            // SAFETY: x and y span n elements at their increments.
            check("hipblas<T>axpy", unsafe {
                T::axpy(
                    self.raw,
                    ni,
                    &Aligned(alpha).0,
                    x.device_ptr(),
                    incx as i32,
                    y_ptr,
                    incy as i32,
                )
            })
        })
    }

    /// The dot product `sum x_i y_i` (unconjugated for complex;
    /// `hipblas<T>dot`/`dotu`). Waits for the result.
    pub fn dot<T: Blas1 + Default>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
        y: &impl DeviceMemory<T>,
        incy: usize,
    ) -> Result<T> {
        let ni = int("n", n)?;
        self.vec_arg("x", "incx", x, n, incx)?;
        self.vec_arg("y", "incy", y, n, incy)?;
        let mut r = Aligned(T::default());
        let reads = [x.access_events(), y.access_events()];
        self.tracked(&reads, &[], || {
            // SAFETY: x and y span n elements; the result goes to host memory
            // (host pointer mode, the default), written before the call returns.
            check("hipblas<T>dot", unsafe {
                T::dot(
                    self.raw,
                    ni,
                    x.device_ptr(),
                    incx as i32,
                    y.device_ptr(),
                    incy as i32,
                    &mut r.0,
                )
            })
        })?;
        Ok(r.0)
    }

    /// The Euclidean norm of `x` (`hipblas<T>nrm2`). Waits for the result.
    pub fn nrm2<T: Blas1>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
    ) -> Result<T::Real> {
        let ni = int("n", n)?;
        self.vec_arg("x", "incx", x, n, incx)?;
        let mut r = Aligned(T::Real::default());
        self.tracked(&[x.access_events()], &[], || {
            // SAFETY: x spans n elements; host result.
            check("hipblas<T>nrm2", unsafe {
                T::nrm2(self.raw, ni, x.device_ptr(), incx as i32, &mut r.0)
            })
        })?;
        Ok(r.0)
    }

    /// The sum of magnitudes `sum |re| + |im|` (`hipblas<T>asum`). Waits
    /// for the result.
    pub fn asum<T: Blas1>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
    ) -> Result<T::Real> {
        let ni = int("n", n)?;
        self.vec_arg("x", "incx", x, n, incx)?;
        let mut r = Aligned(T::Real::default());
        self.tracked(&[x.access_events()], &[], || {
            // SAFETY: x spans n elements; host result.
            check("hipblas<T>asum", unsafe {
                T::asum(self.raw, ni, x.device_ptr(), incx as i32, &mut r.0)
            })
        })?;
        Ok(r.0)
    }

    /// `x = alpha x` (`hipblas<T>scal`).
    pub fn scal<T: Blas1>(
        &self,
        n: usize,
        alpha: T,
        x: &mut impl DeviceMemoryMut<T>,
        incx: usize,
    ) -> Result<()> {
        let ni = int("n", n)?;
        self.vec_arg("x", "incx", x, n, incx)?;
        let x_ptr = x.device_ptr_mut();
        self.tracked(&[], &[x.access_events()], || {
            // SAFETY: x spans n elements.
            check("hipblas<T>scal", unsafe {
                T::scal(self.raw, ni, &Aligned(alpha).0, x_ptr, incx as i32)
            })
        })
    }

    /// The 0-based index of the first element of largest magnitude
    /// (`hipblasI<T>amax`, which counts from 1), or `None` for `n == 0`.
    pub fn iamax<T: Blas1>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
    ) -> Result<Option<usize>> {
        let ni = int("n", n)?;
        self.vec_arg("x", "incx", x, n, incx)?;
        let mut r = 0i32;
        self.tracked(&[x.access_events()], &[], || {
            // SAFETY: x spans n elements; host result.
            check("hipblasI<T>amax", unsafe {
                T::iamax(self.raw, ni, x.device_ptr(), incx as i32, &mut r)
            })
        })?;
        Ok(if r >= 1 { Some(r as usize - 1) } else { None })
    }

    /// `y = x` (`hipblas<T>copy`).
    pub fn copy<T: Blas1>(
        &self,
        n: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
        y: &mut impl DeviceMemoryMut<T>,
        incy: usize,
    ) -> Result<()> {
        let ni = int("n", n)?;
        self.vec_arg("x", "incx", x, n, incx)?;
        self.vec_arg("y", "incy", y, n, incy)?;
        let y_ptr = y.device_ptr_mut();
        self.tracked(&[x.access_events()], &[y.access_events()], || {
            // SAFETY: x and y span n elements.
            check("hipblas<T>copy", unsafe {
                T::copy(
                    self.raw,
                    ni,
                    x.device_ptr(),
                    incx as i32,
                    y_ptr,
                    incy as i32,
                )
            })
        })
    }

    /// Exchanges `x` and `y` (`hipblas<T>swap`).
    pub fn swap<T: Blas1>(
        &self,
        n: usize,
        x: &mut impl DeviceMemoryMut<T>,
        incx: usize,
        y: &mut impl DeviceMemoryMut<T>,
        incy: usize,
    ) -> Result<()> {
        let ni = int("n", n)?;
        self.vec_arg("x", "incx", x, n, incx)?;
        self.vec_arg("y", "incy", y, n, incy)?;
        let (x_ptr, y_ptr) = (x.device_ptr_mut(), y.device_ptr_mut());
        let writes = [x.access_events(), y.access_events()];
        self.tracked(&[], &writes, || {
            // SAFETY: x and y span n elements; both borrowed mutably, so they
            // are distinct buffers.
            check("hipblas<T>swap", unsafe {
                T::swap(self.raw, ni, x_ptr, incx as i32, y_ptr, incy as i32)
            })
        })
    }

    // ---- level 2 / 3 -------------------------------------------------------

    /// `y = alpha op(A) x + beta y` with A `m x n` column-major
    /// (`hipblas<T>gemv`).
    #[allow(clippy::too_many_arguments)]
    pub fn gemv<T: Blas1>(
        &self,
        trans: Op,
        m: usize,
        n: usize,
        alpha: T,
        a: &impl DeviceMemory<T>,
        lda: usize,
        x: &impl DeviceMemory<T>,
        incx: usize,
        beta: T,
        y: &mut impl DeviceMemoryMut<T>,
        incy: usize,
    ) -> Result<()> {
        let (mi, ni) = (int("m", m)?, int("n", n)?);
        int("lda", lda)?;
        validate::buffer("a", a.len(), validate::matrix_span("lda", m, n, lda)?)?;
        self.same_device("a", a)?;
        let (xl, yl) = match trans {
            Op::N => (n, m),
            Op::T | Op::C => (m, n),
        };
        self.vec_arg("x", "incx", x, xl, incx)?;
        self.vec_arg("y", "incy", y, yl, incy)?;
        let y_ptr = y.device_ptr_mut();
        let reads = [a.access_events(), x.access_events()];
        self.tracked(&reads, &[y.access_events()], || {
            // SAFETY: A spans m x n at lda; x and y span op(A)'s sizes.
            check("hipblas<T>gemv", unsafe {
                T::gemv(
                    self.raw,
                    trans.raw(),
                    mi,
                    ni,
                    &Aligned(alpha).0,
                    a.device_ptr(),
                    lda as i32,
                    x.device_ptr(),
                    incx as i32,
                    &Aligned(beta).0,
                    y_ptr,
                    incy as i32,
                )
            })
        })
    }

    /// Solves `op(A) X = alpha B` (`side == Left`) or `X op(A) = alpha B`
    /// for X, overwriting B (`m x n`); A is triangular (`hipblas<T>trsm`).
    #[allow(clippy::too_many_arguments)]
    pub fn trsm<T: Blas1>(
        &self,
        side: Side,
        fill: Fill,
        trans: Op,
        diag: Diag,
        m: usize,
        n: usize,
        alpha: T,
        a: &impl DeviceMemory<T>,
        lda: usize,
        b: &mut impl DeviceMemoryMut<T>,
        ldb: usize,
    ) -> Result<()> {
        let (mi, ni) = (int("m", m)?, int("n", n)?);
        int("lda", lda)?;
        int("ldb", ldb)?;
        let ka = match side {
            Side::Left => m,
            Side::Right => n,
        };
        validate::buffer("a", a.len(), validate::matrix_span("lda", ka, ka, lda)?)?;
        validate::buffer("b", b.len(), validate::matrix_span("ldb", m, n, ldb)?)?;
        self.same_device("a", a)?;
        self.same_device("b", b)?;
        let b_ptr = b.device_ptr_mut();
        self.tracked(&[a.access_events()], &[b.access_events()], || {
            // SAFETY: A spans its triangle's square, B spans m x n.
            check("hipblas<T>trsm", unsafe {
                T::trsm(
                    self.raw,
                    side.raw(),
                    fill.raw(),
                    trans.raw(),
                    diag.raw(),
                    mi,
                    ni,
                    &Aligned(alpha).0,
                    a.device_ptr(),
                    lda as i32,
                    b_ptr,
                    ldb as i32,
                )
            })
        })
    }
}

/// A real scalar as f64 (bf16 routes through `GemmEx`).
fn to_f64<T: Scalar>(v: &T) -> Result<f64> {
    let any: &dyn std::any::Any = v;
    if let Some(x) = any.downcast_ref::<half::bf16>() {
        return Ok(x.to_f64());
    }
    if let Some(x) = any.downcast_ref::<f32>() {
        return Ok(*x as f64);
    }
    Err(Error::Unsupported(format!(
        "{} scalars through GemmEx",
        T::NAME
    )))
}

/// alpha and beta in the compute type's precision, kept alive for the call.
enum Scalars {
    F16(half::f16, half::f16),
    F32(f32, f32),
    F64(f64, f64),
}

impl Scalars {
    fn new(c: Compute, alpha: f64, beta: f64) -> Scalars {
        match c {
            Compute::F16 => Scalars::F16(half::f16::from_f64(alpha), half::f16::from_f64(beta)),
            Compute::F64 => Scalars::F64(alpha, beta),
            _ => Scalars::F32(alpha as f32, beta as f32),
        }
    }
    fn alpha(&self) -> *const std::ffi::c_void {
        match self {
            Scalars::F16(a, _) => (a as *const half::f16).cast(),
            Scalars::F32(a, _) => (a as *const f32).cast(),
            Scalars::F64(a, _) => (a as *const f64).cast(),
        }
    }
    fn beta(&self) -> *const std::ffi::c_void {
        match self {
            Scalars::F16(_, b) => (b as *const half::f16).cast(),
            Scalars::F32(_, b) => (b as *const f32).cast(),
            Scalars::F64(_, b) => (b as *const f64).cast(),
        }
    }
}

#[cfg(test)]
mod drop_error_tests {
    use super::*;

    #[test]
    fn drop_errors_are_capped_oldest_first() {
        take_drop_errors();
        for i in 0..hip::MAX_RECORDED + 3 {
            DROP_ERRORS.record_error(Error::Unsupported(format!("error {i}")));
        }
        let v = take_drop_errors();
        assert_eq!(v.len(), hip::MAX_RECORDED);
        assert_eq!(v[0].to_string(), "not supported: error 3");
        assert!(take_drop_errors().is_empty());
    }
}

#[cfg(test)]
mod call_name_tests {
    //! Each GEMM path reports the C function it called: a failed strided or
    //! batched call must not be reported as the plain `hipblas<T>gemm`.
    use super::*;
    use crate::{c32, c64};

    fn calls<T: Gemm>() -> [&'static str; 3] {
        [
            T::GEMM_CALL,
            T::GEMM_STRIDED_BATCHED_CALL,
            T::GEMM_BATCHED_CALL,
        ]
    }

    #[test]
    fn plain_gemm_names_the_typed_function() {
        assert_eq!(calls::<f32>()[0], "hipblasSgemm");
        assert_eq!(calls::<f64>()[0], "hipblasDgemm");
        assert_eq!(calls::<half::f16>()[0], "hipblasHgemm");
        assert_eq!(calls::<c32>()[0], "hipblasCgemm_v2");
        assert_eq!(calls::<c64>()[0], "hipblasZgemm_v2");
        assert_eq!(calls::<half::bf16>()[0], "hipblasGemmEx");
    }

    #[test]
    fn strided_batched_gemm_names_the_strided_function() {
        assert_eq!(calls::<f32>()[1], "hipblasSgemmStridedBatched");
        assert_eq!(calls::<f64>()[1], "hipblasDgemmStridedBatched");
        assert_eq!(calls::<half::f16>()[1], "hipblasHgemmStridedBatched");
        assert_eq!(calls::<c32>()[1], "hipblasCgemmStridedBatched_v2");
        assert_eq!(calls::<c64>()[1], "hipblasZgemmStridedBatched_v2");
        assert_eq!(calls::<half::bf16>()[1], "hipblasGemmStridedBatchedEx");
    }

    #[test]
    fn batched_gemm_names_the_batched_function() {
        assert_eq!(calls::<f32>()[2], "hipblasSgemmBatched");
        assert_eq!(calls::<f64>()[2], "hipblasDgemmBatched");
        assert_eq!(calls::<half::f16>()[2], "hipblasHgemmBatched");
        assert_eq!(calls::<c32>()[2], "hipblasCgemmBatched_v2");
        assert_eq!(calls::<c64>()[2], "hipblasZgemmBatched_v2");
        assert_eq!(calls::<half::bf16>()[2], "hipblasGemmBatchedEx");
    }

    #[test]
    fn the_error_message_carries_the_call_name() {
        let e = check(
            <f32 as Gemm>::GEMM_STRIDED_BATCHED_CALL,
            hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE,
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("hipblasSgemmStridedBatched failed: "),
            "{text}"
        );
        assert_eq!(
            e.status(),
            Some(hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE)
        );
        assert!(std::error::Error::source(&e).is_some());
    }
}
