//! cudarc's grouped GEMM (`GroupedGemm`, `GroupedGemmConfig`,
//! `GroupedGemmDtype`; cuBLAS's `cublasGemmGroupedBatchedEx`).
//!
//! hipBLAS has no grouped GEMM: [`GroupedGemm::grouped_gemm`] runs one
//! `hipblasGemmEx` per problem, in order, on the handle's stream. The result
//! is the same as cuBLAS's; the launches are one per problem instead of one
//! in all, and no array of device pointers is copied to the device.

use super::super::result::{self, invalid_because, ours};
use super::super::sys as raw;
use super::{CublasError, CudaBlas};
use crate::driver::{DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice};
use hipblas::result as ours_result;
use std::ffi::c_int;

/// An element type of [`GroupedGemm`]: its cuBLAS data type, compute type,
/// and the type of its scalars (`alpha`, `beta`).
pub trait GroupedGemmDtype: DeviceRepr {
    /// The type of `alpha` and `beta`: the compute type's.
    type ComputeType: DeviceRepr + Copy;

    /// The elements' `cudaDataType_t`.
    fn data_type() -> raw::cudaDataType_t;
    /// The accumulation's `cublasComputeType_t`.
    fn compute_type() -> raw::cublasComputeType_t;
}

#[cfg(feature = "f16")]
impl GroupedGemmDtype for half::f16 {
    type ComputeType = f32;

    fn data_type() -> raw::cudaDataType_t {
        raw::cudaDataType_t::CUDA_R_16F
    }

    fn compute_type() -> raw::cublasComputeType_t {
        raw::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

#[cfg(feature = "f16")]
impl GroupedGemmDtype for half::bf16 {
    type ComputeType = f32;

    fn data_type() -> raw::cudaDataType_t {
        raw::cudaDataType_t::CUDA_R_16BF
    }

    fn compute_type() -> raw::cublasComputeType_t {
        raw::cublasComputeType_t::CUBLAS_COMPUTE_32F
    }
}

/// The problems of a grouped GEMM, column-major: group `g` has
/// `problem_sizes[g]` problems `C = alpha[g] * op(A) op(B) + beta[g] * C`
/// of the same shape (`ms[g]`, `ns[g]`, `ks[g]`, the leading dimensions
/// and operations of entry `g`). Every vector but `problem_sizes` has one
/// entry per group.
pub struct GroupedGemmConfig<T: GroupedGemmDtype> {
    /// `op(B)` of each group.
    pub transbs: Vec<raw::cublasOperation_t>,
    /// `op(A)` of each group.
    pub transas: Vec<raw::cublasOperation_t>,
    /// Rows of `op(A)` and `C`, per group.
    pub ms: Vec<usize>,
    /// Columns of `op(B)` and `C`, per group.
    pub ns: Vec<usize>,
    /// Columns of `op(A)`, rows of `op(B)`, per group.
    pub ks: Vec<usize>,
    /// Scale of the product, per group.
    pub alphas: Vec<T::ComputeType>,
    /// Scale of `C`, per group.
    pub betas: Vec<T::ComputeType>,
    /// Leading dimension of `A`, per group.
    pub ldas: Vec<usize>,
    /// Leading dimension of `B`, per group.
    pub ldbs: Vec<usize>,
    /// Leading dimension of `C`, per group.
    pub ldcs: Vec<usize>,
    /// How many problems each group has.
    pub problem_sizes: Vec<usize>,
}

impl<T: GroupedGemmDtype> std::fmt::Debug for GroupedGemmConfig<T>
where
    T::ComputeType: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GroupedGemmConfig")
            .field("transbs", &self.transbs)
            .field("transas", &self.transas)
            .field("ms", &self.ms)
            .field("ns", &self.ns)
            .field("ks", &self.ks)
            .field("alphas", &self.alphas)
            .field("betas", &self.betas)
            .field("ldas", &self.ldas)
            .field("ldbs", &self.ldbs)
            .field("ldcs", &self.ldcs)
            .field("problem_sizes", &self.problem_sizes)
            .finish()
    }
}

impl<T: GroupedGemmDtype> GroupedGemmConfig<T> {
    /// Problems in all groups.
    pub fn problem_count(&self) -> usize {
        self.problem_sizes.iter().sum()
    }

    /// Groups.
    pub fn group_count(&self) -> usize {
        self.problem_sizes.len()
    }

    /// Panics unless every per-group vector has one entry per group (as
    /// cudarc's). [`GroupedGemm::grouped_gemm`] checks the same and returns
    /// `CUBLAS_STATUS_INVALID_VALUE` instead.
    #[inline]
    pub fn validate(&self) {
        if let Err(field) = self.check_lengths() {
            panic!(
                "GroupedGemmConfig: `{field}` has not one entry per group ({})",
                self.group_count()
            );
        }
    }

    /// The name of the first per-group vector whose length is not the
    /// group count.
    fn check_lengths(&self) -> Result<(), &'static str> {
        let n = self.group_count();
        let lens = [
            ("transbs", self.transbs.len()),
            ("transas", self.transas.len()),
            ("ms", self.ms.len()),
            ("ns", self.ns.len()),
            ("ks", self.ks.len()),
            ("alphas", self.alphas.len()),
            ("betas", self.betas.len()),
            ("ldas", self.ldas.len()),
            ("ldbs", self.ldbs.len()),
            ("ldcs", self.ldcs.len()),
        ];
        match lens.iter().find(|(_, len)| *len != n) {
            Some((name, _)) => Err(name),
            None => Ok(()),
        }
    }
}

/// Grouped GEMM (cudarc's `GroupedGemm`), over hipBLAS as one
/// `hipblasGemmEx` per problem (see the module docs).
pub trait GroupedGemm<T: GroupedGemmDtype> {
    /// Every problem of `config`, problem `p` reading `a_slices[p]` and
    /// `b_slices[p]` and writing `c_slices[p]` (problems in group order).
    ///
    /// Checked before any call, each `CUBLAS_STATUS_INVALID_VALUE`: one
    /// entry per group in every per-group vector, one slice per problem,
    /// sizes and leading dimensions that fit `c_int` and cuBLAS's rules,
    /// every slice long enough for its problem and on the handle's device.
    ///
    /// # Safety
    /// The slices hold valid `T`s, and no output overlaps another operand
    /// (cuBLAS's contract).
    unsafe fn grouped_gemm<A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(
        &self,
        config: GroupedGemmConfig<T>,
        a_slices: &[&A],
        b_slices: &[&B],
        c_slices: &mut [&mut C],
    ) -> Result<(), CublasError>;
}

/// A `usize` size as cuBLAS's `int`.
fn c_dim(v: usize) -> Result<c_int, CublasError> {
    c_int::try_from(v).map_err(|_| invalid_because(&format!("{v} does not fit in a C int")))
}

/// One problem's shape, as cuBLAS's arguments.
struct Shape {
    transa: raw::cublasOperation_t,
    transb: raw::cublasOperation_t,
    m: c_int,
    n: c_int,
    k: c_int,
    lda: c_int,
    ldb: c_int,
    ldc: c_int,
}

impl<T: GroupedGemmDtype> GroupedGemm<T> for CudaBlas {
    unsafe fn grouped_gemm<A: DevicePtr<T>, B: DevicePtr<T>, C: DevicePtrMut<T>>(
        &self,
        config: GroupedGemmConfig<T>,
        a_slices: &[&A],
        b_slices: &[&B],
        c_slices: &mut [&mut C],
    ) -> Result<(), CublasError> {
        config.check_lengths().map_err(invalid_because)?;
        let problems = config.problem_count();
        if a_slices.len() != problems || b_slices.len() != problems || c_slices.len() != problems {
            return Err(invalid_because(&format!(
                "{problems} problems, but {} A, {} B and {} C slices",
                a_slices.len(),
                b_slices.len(),
                c_slices.len()
            )));
        }
        // Every check first: nothing is enqueued unless all problems pass.
        let mut shapes = Vec::with_capacity(config.group_count());
        let mut p = 0;
        for g in 0..config.group_count() {
            let shape = Shape {
                transa: config.transas[g],
                transb: config.transbs[g],
                m: c_dim(config.ms[g])?,
                n: c_dim(config.ns[g])?,
                k: c_dim(config.ks[g])?,
                lda: c_dim(config.ldas[g])?,
                ldb: c_dim(config.ldbs[g])?,
                ldc: c_dim(config.ldcs[g])?,
            };
            let (sa, sb, sc) = result::gemm_spans(
                shape.transa,
                shape.transb,
                shape.m,
                shape.n,
                shape.k,
                shape.lda,
                shape.ldb,
                shape.ldc,
            )?;
            for _ in 0..config.problem_sizes[g] {
                let c: &dyn DeviceSlice<T> = &*c_slices[p];
                self.check_operands::<T>(&[(a_slices[p], sa), (b_slices[p], sb), (c, sc)])?;
                p += 1;
            }
            shapes.push(shape);
        }
        let stream = self.stream();
        let (data, compute) = (T::data_type(), T::compute_type());
        let mut p = 0;
        for (g, shape) in shapes.iter().enumerate() {
            let alpha: *const T::ComputeType = &config.alphas[g];
            let beta: *const T::ComputeType = &config.betas[g];
            for _ in 0..config.problem_sizes[g] {
                let (a, _ra) = a_slices[p].device_ptr(stream);
                let (b, _rb) = b_slices[p].device_ptr(stream);
                let (c, _rc) = c_slices[p].device_ptr_mut(stream);
                // SAFETY: the shape, leading dimensions and every slice's
                // length and device were checked above; the scalars are
                // host values of the compute type's scalar type; the
                // caller's contract covers the contents.
                unsafe {
                    ours_result::gemm_ex_v2(
                        *self.handle(),
                        shape.transa.into(),
                        shape.transb.into(),
                        shape.m,
                        shape.n,
                        shape.k,
                        alpha.cast(),
                        a as *const _,
                        data.into(),
                        shape.lda,
                        b as *const _,
                        data.into(),
                        shape.ldb,
                        beta.cast(),
                        c as *mut _,
                        data.into(),
                        shape.ldc,
                        compute.into(),
                        raw::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT.into(),
                    )
                }
                .map_err(ours)?;
                p += 1;
            }
        }
        Ok(())
    }
}
