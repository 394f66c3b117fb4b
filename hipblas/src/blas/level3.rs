//! Level 3: the GEMM family (plain, row-major, strided-batched, batched)
//! and trsm.

use super::Blas;
use crate::error::{Error, Result};
use crate::routines::Blas1;
use crate::scalar::{Gemm, GemmRoute, Scalar};
use crate::validate::{self, int, GemmShape};
use crate::{Compute, Diag, Fill, Op, Side};
use hip::{AccessEvents, DeviceMemory, DeviceMemoryMut};

impl Blas {
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
        const OP: &str = "Blas::gemm";
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
        let sp = shape.spans_for(OP)?;
        validate::length(OP, "a", a.len(), sp.a)?;
        validate::length(OP, "b", b.len(), sp.b)?;
        validate::length(OP, "c", c.len(), sp.c)?;
        self.same_device(OP, "a", a)?;
        self.same_device(OP, "b", b)?;
        self.same_device(OP, "c", c)?;
        if shape.m == 0 || shape.n == 0 {
            return Ok(());
        }
        let c_ptr = c.device_ptr_mut();
        let (reads, writes) = ([a.access_events(), b.access_events()], [c.access_events()]);
        self.tracked(&reads, &writes, || {
            // SAFETY: every buffer is on the stream's device and spans what the
            // checked shape reads and writes; `c` is borrowed mutably.
            unsafe {
                T::gemm(
                    self.raw,
                    shape.transa.raw(),
                    shape.transb.raw(),
                    shape.m as i32,
                    shape.n as i32,
                    shape.k as i32,
                    &alpha,
                    a.device_ptr(),
                    shape.lda as i32,
                    b.device_ptr(),
                    shape.ldb as i32,
                    &beta,
                    c_ptr,
                    shape.ldc as i32,
                )
            }
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
        const OP: &str = "Blas::gemm_strided_batched";
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
        let one = shape.spans_for(OP)?;
        let sp = validate::strided(OP, one, stride_a, stride_b, stride_c, batch)?;
        validate::length(OP, "a", a.len(), sp.a)?;
        validate::length(OP, "b", b.len(), sp.b)?;
        validate::length(OP, "c", c.len(), sp.c)?;
        self.same_device(OP, "a", a)?;
        self.same_device(OP, "b", b)?;
        self.same_device(OP, "c", c)?;
        if shape.m == 0 || shape.n == 0 || batch == 0 {
            return Ok(());
        }
        let c_ptr = c.device_ptr_mut();
        let (reads, writes) = ([a.access_events(), b.access_events()], [c.access_events()]);
        self.tracked(&reads, &writes, || {
            // SAFETY: as in `gemm`, for every product: the strided spans were
            // checked against each buffer.
            unsafe {
                T::gemm_strided_batched(
                    self.raw,
                    shape.transa.raw(),
                    shape.transb.raw(),
                    shape.m as i32,
                    shape.n as i32,
                    shape.k as i32,
                    &alpha,
                    a.device_ptr(),
                    shape.lda as i32,
                    stride_a as i64,
                    b.device_ptr(),
                    shape.ldb as i32,
                    stride_b as i64,
                    &beta,
                    c_ptr,
                    shape.ldc as i32,
                    stride_c as i64,
                    batch as i32,
                )
            }
        })
    }

    /// `gemm` for a batch of separate matrices (`hipblas<T>gemmBatched`):
    /// `a[i]`, `b[i]`, `c[i]` form product `i`. The device arrays of
    /// pointers hipBLAS needs are built here, in this stream's order, and
    /// freed in that order after the products (no wait for them).
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
        const OP: &str = "Blas::gemm_batched";
        let batch = c.len();
        int(OP, "batch_count", batch)?;
        for (name, len) in [("a", a.len()), ("b", b.len())] {
            if len != batch {
                return Err(Error::invalid(
                    OP,
                    format!("{name}.len() = {len}: must equal the batch count c.len() = {batch}"),
                ));
            }
        }
        if T::ROUTE == GemmRoute::ExF32 {
            return Err(Error::unsupported(
                OP,
                "hipBLAS has no batched bf16 GEMM here: use gemm_strided_batched",
            ));
        }
        let sp = shape.spans_for(OP)?;
        for i in 0..batch {
            let (an, bn, cn) = (format!("a[{i}]"), format!("b[{i}]"), format!("c[{i}]"));
            validate::length(OP, &an, a[i].len(), sp.a)?;
            validate::length(OP, &bn, b[i].len(), sp.b)?;
            validate::length(OP, &cn, c[i].len(), sp.c)?;
            self.same_device(OP, &an, a[i])?;
            self.same_device(OP, &bn, b[i])?;
            self.same_device(OP, &cn, &*c[i])?;
        }
        let mut cp: Vec<usize> = Vec::with_capacity(batch);
        for (i, ci) in c.iter_mut().enumerate() {
            let p = ci.device_ptr_mut() as usize;
            if let Some(j) = cp.iter().position(|&q| q == p).filter(|_| sp.c > 0) {
                return Err(Error::invalid(
                    OP,
                    format!("c[{j}] and c[{i}] are the same C ({p:#x}): two products of the batch would write it"),
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
        let ap: Vec<usize> = a.iter().map(|x| x.device_ptr() as usize).collect();
        let bp: Vec<usize> = b.iter().map(|x| x.device_ptr() as usize).collect();
        let ad = self.stream.clone_htod(&ap).map_err(Error::Runtime)?;
        let bd = self.stream.clone_htod(&bp).map_err(Error::Runtime)?;
        let cd = self.stream.clone_htod(&cp).map_err(Error::Runtime)?;
        let called = self.stream.enqueue_tracked(&reads, &writes, || {
            // SAFETY: the pointer arrays hold `batch` device addresses of
            // buffers checked above, alive (borrowed) for this call; the
            // arrays are stream-ordered on this stream, so their free
            // follows the GEMM.
            unsafe {
                T::gemm_batched(
                    self.raw,
                    shape.transa.raw(),
                    shape.transb.raw(),
                    shape.m as i32,
                    shape.n as i32,
                    shape.k as i32,
                    &alpha,
                    ad.as_device_ptr().cast(),
                    shape.lda as i32,
                    bd.as_device_ptr().cast(),
                    shape.ldb as i32,
                    &beta,
                    cd.as_device_ptr().cast(),
                    shape.ldc as i32,
                    batch as i32,
                )
            }
        });
        // The pointer arrays are freed in this stream's order, after the
        // GEMM: no wait for it here.
        called
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
        const OP: &str = "Blas::trsm";
        let (mi, ni) = (int(OP, "m", m)?, int(OP, "n", n)?);
        int(OP, "lda", lda)?;
        int(OP, "ldb", ldb)?;
        let ka = match side {
            Side::Left => m,
            Side::Right => n,
        };
        validate::length(OP, "a", a.len(), validate::matrix(OP, "lda", ka, ka, lda)?)?;
        validate::length(OP, "b", b.len(), validate::matrix(OP, "ldb", m, n, ldb)?)?;
        self.same_device(OP, "a", a)?;
        self.same_device(OP, "b", b)?;
        let b_ptr = b.device_ptr_mut();
        self.tracked(&[a.access_events()], &[b.access_events()], || {
            // SAFETY: A spans its triangle's square, B spans m x n.
            unsafe {
                T::trsm(
                    self.raw,
                    side.raw(),
                    fill.raw(),
                    trans.raw(),
                    diag.raw(),
                    mi,
                    ni,
                    &alpha,
                    a.device_ptr(),
                    lda as i32,
                    b_ptr,
                    ldb as i32,
                )
            }
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
    Err(Error::unsupported(
        "Blas::gemm",
        format!("{} scalars through GemmEx", T::NAME),
    ))
}

#[cfg(test)]
mod call_name_tests {
    //! Each GEMM path reports the C function it called: a failed strided or
    //! batched call must not be reported as the plain `hipblas<T>gemm`.
    use super::*;
    use crate::{c32, c64};
    use hipblas_sys::hipblasStatus_t;

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
        let e = crate::result::check(
            <f32 as Gemm>::GEMM_STRIDED_BATCHED_CALL,
            hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE,
        )
        .unwrap_err();
        let text = e.to_string();
        assert!(
            text.starts_with("hipblasSgemmStridedBatched failed with "),
            "{text}"
        );
        assert_eq!(
            e.status(),
            Some(hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE)
        );
        assert!(std::error::Error::source(&e).is_some());
    }
}
