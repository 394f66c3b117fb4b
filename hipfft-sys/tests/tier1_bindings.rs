//! Tier 1 (pure Rust): the generated table has every function that
//! libhipfft.so.0 6.4.3 exports (Debian's libhipfft0 6.4.3-2, read with
//! `nm -D --defined-only`), the NVIDIA adapters cover all but the one cuFFT
//! lacks, and the types have hipFFT's layout.

use hipfft_sys::*;
use std::mem::{align_of, offset_of, size_of};

/// The hipfft* symbols libhipfft.so.0 6.4.3 exports, sorted.
const EXPORTED: [&str; 50] = [
    "hipfftCreate",
    "hipfftDestroy",
    "hipfftEstimate1d",
    "hipfftEstimate2d",
    "hipfftEstimate3d",
    "hipfftEstimateMany",
    "hipfftExecC2C",
    "hipfftExecC2R",
    "hipfftExecD2Z",
    "hipfftExecR2C",
    "hipfftExecZ2D",
    "hipfftExecZ2Z",
    "hipfftExtPlanScaleFactor",
    "hipfftGetProperty",
    "hipfftGetSize",
    "hipfftGetSize1d",
    "hipfftGetSize2d",
    "hipfftGetSize3d",
    "hipfftGetSizeMany",
    "hipfftGetSizeMany64",
    "hipfftGetVersion",
    "hipfftMakePlan1d",
    "hipfftMakePlan2d",
    "hipfftMakePlan3d",
    "hipfftMakePlanMany",
    "hipfftMakePlanMany64",
    "hipfftPlan1d",
    "hipfftPlan2d",
    "hipfftPlan3d",
    "hipfftPlanMany",
    "hipfftSetAutoAllocation",
    "hipfftSetStream",
    "hipfftSetWorkArea",
    "hipfftXtClearCallback",
    "hipfftXtExec",
    "hipfftXtExecDescriptor",
    "hipfftXtExecDescriptorC2C",
    "hipfftXtExecDescriptorC2R",
    "hipfftXtExecDescriptorD2Z",
    "hipfftXtExecDescriptorR2C",
    "hipfftXtExecDescriptorZ2D",
    "hipfftXtExecDescriptorZ2Z",
    "hipfftXtFree",
    "hipfftXtGetSizeMany",
    "hipfftXtMakePlanMany",
    "hipfftXtMalloc",
    "hipfftXtMemcpy",
    "hipfftXtSetCallback",
    "hipfftXtSetCallbackSharedSize",
    "hipfftXtSetGPUs",
];

#[test]
fn every_exported_function_is_bound() {
    let mut bound = FUNCTION_NAMES.to_vec();
    bound.sort_unstable();
    assert_eq!(bound, EXPORTED);
}

#[test]
fn every_binding_but_the_scale_factor_is_adapted_to_cufft() {
    assert_eq!(NVIDIA_ADAPTERS.len(), FUNCTION_NAMES.len() - 1);
    assert!(!NVIDIA_ADAPTERS
        .iter()
        .any(|(h, _)| *h == "hipfftExtPlanScaleFactor"));
    assert!(NVIDIA_ADAPTERS.contains(&("hipfftExecC2C", "cufftExecC2C")));
}

#[test]
fn layouts_match_hipffts_and_cuffts() {
    // The handle is a pointer (hipFFT on AMD); cuFFT's int handle is
    // carried in it by the NVIDIA backend.
    assert_eq!(size_of::<hipfftHandle>(), size_of::<*mut u8>());
    assert_eq!(size_of::<hipfftComplex>(), 8);
    assert_eq!(size_of::<hipfftDoubleComplex>(), 16);
    assert_eq!(align_of::<hipfftDoubleComplex>(), 16);
    // hipXtDesc/hipLibXtDesc as cudaXtDesc/cudaLibXtDesc (cudalibxt.h).
    assert_eq!(MAX_HIP_DESCRIPTOR_GPUS, 64);
    assert_eq!(offset_of!(hipXtDesc, GPUs), 8);
    assert_eq!(offset_of!(hipXtDesc, data), 8 + 64 * 4);
    assert_eq!(offset_of!(hipXtDesc, size), 8 + 64 * 4 + 64 * 8);
    assert_eq!(size_of::<hipXtDesc>(), 8 + 64 * 4 + 64 * 8 * 2 + 8);
    assert_eq!(offset_of!(hipLibXtDesc, descriptor), 8);
    assert_eq!(offset_of!(hipLibXtDesc, library), 16);
    assert_eq!(offset_of!(hipLibXtDesc, subFormat), 20);
    assert_eq!(offset_of!(hipLibXtDesc, libDescriptor), 24);
    assert_eq!(HIPFFT_FORWARD, -1);
    assert_eq!(HIPFFT_BACKWARD, 1);
}
