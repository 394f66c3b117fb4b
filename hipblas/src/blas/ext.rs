//! Extensions: mixed-precision GEMM (`GemmEx`, `GemmStridedBatchedEx`)
//! and the choice between their v1 and v2 ABIs.

use super::Blas;
use crate::error::{Error, Result};
use crate::result;
use crate::scalar::Scalar;
use crate::validate::{self, GemmShape};
use crate::Compute;
use hip::{DeviceMemory, DeviceMemoryMut};
use hipblas_sys::*;

/// Whether the loaded library needs the v1 (`hipblasDatatype_t`) form of
/// the `Ex` functions.
fn use_v1_ex(op: &'static str) -> Result<bool> {
    let lib = result::library()?;
    if lib.is_available("hipblasGemmEx_v2") {
        Ok(false)
    } else if lib.is_available("hipblasGemmEx") {
        Ok(true)
    } else {
        Err(Error::unsupported(
            op,
            format!(
                "the loaded hipBLAS provides neither form of hipblasGemmEx (ABI {:?})",
                lib.datatype_abi
            ),
        ))
    }
}

impl Blas {
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
        const OP: &str = "Blas::gemm_ex";
        let sp = shape.spans_for(OP)?;
        validate::length(OP, "a", a.len(), sp.a)?;
        validate::length(OP, "b", b.len(), sp.b)?;
        validate::length(OP, "c", c.len(), sp.c)?;
        self.same_device(OP, "a", a)?;
        self.same_device(OP, "b", b)?;
        self.same_device(OP, "c", c)?;
        compute.check_types_for(OP, TA::NAME, TC::NAME)?;
        if shape.m == 0 || shape.n == 0 {
            return Ok(());
        }
        let c_ptr = c.device_ptr_mut();
        let (reads, writes) = ([a.access_events(), b.access_events()], [c.access_events()]);
        self.tracked(&reads, &writes, || {
            self.strided_ex_raw(
                OP,
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
        const OP: &str = "Blas::gemm_strided_batched_ex";
        let one = shape.spans_for(OP)?;
        let sp = validate::strided(OP, one, stride_a, stride_b, stride_c, batch)?;
        validate::length(OP, "a", a.len(), sp.a)?;
        validate::length(OP, "b", b.len(), sp.b)?;
        validate::length(OP, "c", c.len(), sp.c)?;
        self.same_device(OP, "a", a)?;
        self.same_device(OP, "b", b)?;
        self.same_device(OP, "c", c)?;
        compute.check_types_for(OP, TA::NAME, TC::NAME)?;
        if shape.m == 0 || shape.n == 0 || batch == 0 {
            return Ok(());
        }
        let c_ptr = c.device_ptr_mut();
        let (reads, writes) = ([a.access_events(), b.access_events()], [c.access_events()]);
        self.tracked(&reads, &writes, || {
            self.strided_ex_raw(
                OP,
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
        op: &'static str,
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
        let v1 = use_v1_ex(op)?;
        let scalars = Scalars::new(compute, alpha, beta);
        let (m, n, k) = (shape.m as i32, shape.n as i32, shape.k as i32);
        let (lda, ldb, ldc) = (shape.lda as i32, shape.ldb as i32, shape.ldc as i32);
        let (ta, tb) = (shape.transa.raw(), shape.transb.raw());
        let algo = hipblasGemmAlgo_t::HIPBLAS_GEMM_DEFAULT;
        let (pa, pb) = (scalars.alpha(), scalars.beta());
        match (batch, v1) {
            (0, false) => {
                // SAFETY: buffers checked by the caller against the shape;
                // alpha/beta point to the compute type's scalars.
                unsafe {
                    result::gemm_ex_v2(
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
            }
            (0, true) => {
                let ct = compute.raw_v1_for(op)?;
                // SAFETY: as above, v1 form.
                unsafe {
                    result::gemm_ex(
                        self.raw, ta, tb, m, n, k, pa, a.0, a.2, lda, b.0, b.2, ldb, pb, c.0, c.2,
                        ldc, ct, algo,
                    )
                }
            }
            (_, false) => {
                // SAFETY: as above, for every product of the batch.
                unsafe {
                    result::gemm_strided_batched_ex_v2(
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
            }
            (_, true) => {
                let ct = compute.raw_v1_for(op)?;
                // SAFETY: as above, v1 form.
                unsafe {
                    result::gemm_strided_batched_ex(
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
            }
        }
    }
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
