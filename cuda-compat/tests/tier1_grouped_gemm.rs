//! Tier 1: cudarc's `cublas::GroupedGemm*` (cuBLAS's grouped GEMM, here a
//! loop of hipBLAS GEMMs): cudarc's shapes (checked at compile time), the
//! config's counts and checks, and the element types' cuBLAS types. The
//! GEMMs themselves run in `gpu_grouped_gemm`.

#![cfg(feature = "f16")]

use cuda_compat::cublas::safe::GroupedGemmDtype as SafePath;
use cuda_compat::cublas::sys::{cublasComputeType_t, cublasOperation_t, cudaDataType_t};
use cuda_compat::cublas::{
    CublasError, CudaBlas, GroupedGemm, GroupedGemmConfig, GroupedGemmDtype,
};
use cuda_compat::driver::{CudaSlice, CudaView};
use half::{bf16, f16};

/// cudarc's call shape: slices of references, any `DevicePtr`s.
#[allow(dead_code)]
fn call_shape(
    blas: &CudaBlas,
    config: GroupedGemmConfig<f16>,
    a: &CudaSlice<f16>,
    b: &CudaView<'_, f16>,
    c: &mut CudaSlice<f16>,
) -> Result<(), CublasError> {
    // SAFETY: never called.
    unsafe { blas.grouped_gemm(config, &[a], &[b], &mut [c]) }
}

fn config(groups: usize, problems: Vec<usize>) -> GroupedGemmConfig<f16> {
    GroupedGemmConfig {
        transbs: vec![cublasOperation_t::CUBLAS_OP_N; groups],
        transas: vec![cublasOperation_t::CUBLAS_OP_T; groups],
        ms: vec![2; groups],
        ns: vec![3; groups],
        ks: vec![4; groups],
        alphas: vec![1.0; groups],
        betas: vec![0.0; groups],
        ldas: vec![4; groups],
        ldbs: vec![4; groups],
        ldcs: vec![2; groups],
        problem_sizes: problems,
    }
}

#[test]
fn counts_are_groups_and_problems() {
    let c = config(3, vec![2, 0, 5]);
    assert_eq!(c.group_count(), 3);
    assert_eq!(c.problem_count(), 7);
    c.validate();
    let shown = format!("{c:?}");
    assert!(shown.contains("problem_sizes: [2, 0, 5]"), "{shown}");
}

#[test]
#[should_panic(expected = "`betas` has not one entry per group (2)")]
fn validate_names_the_short_vector() {
    let mut c = config(2, vec![1, 1]);
    c.betas.pop();
    c.validate();
}

#[test]
fn element_types_are_cublass_16_bit_with_f32_accumulation() {
    assert_eq!(
        <f16 as GroupedGemmDtype>::data_type(),
        cudaDataType_t::CUDA_R_16F
    );
    assert_eq!(<bf16 as SafePath>::data_type(), cudaDataType_t::CUDA_R_16BF);
    assert_eq!(f16::compute_type(), cublasComputeType_t::CUBLAS_COMPUTE_32F);
    assert_eq!(
        bf16::compute_type(),
        cublasComputeType_t::CUBLAS_COMPUTE_32F
    );
    let _: <f16 as GroupedGemmDtype>::ComputeType = 1.0f32;
    let _: <bf16 as GroupedGemmDtype>::ComputeType = 1.0f32;
}
