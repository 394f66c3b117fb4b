//! Tier 1 (pure Rust): the CUDA enums, their values and the synthesized
//! enumerators, checked against the enumerator lists of the CUDA 12.9
//! headers (`tests/data/cuda12_status_enumerators.txt`, generated from the
//! headers).
//!
//! Run both ways: `cargo test -p cuda-compat` and
//! `cargo test -p cuda-compat --features synthesized-enums`.

use cuda_compat::{enums, EnumTable};
use std::collections::BTreeMap;

/// (enum, enumerator names in CUDA's order) from the CUDA 12.9 headers.
fn cuda12_status_enums() -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in include_str!("data/cuda12_status_enumerators.txt").lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 4, "bad line {line:?}");
        out.entry(f[1].to_owned())
            .or_default()
            .push(f[2].to_owned());
    }
    out
}

fn table(cuda: &str) -> EnumTable {
    enums()
        .into_iter()
        .find(|t| t.cuda == cuda)
        .unwrap_or_else(|| panic!("cuda-compat has no enum {cuda}"))
}

#[test]
fn the_data_file_has_the_four_status_enums() {
    let data = cuda12_status_enums();
    let names: Vec<&str> = data.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "cublasStatus_t",
            "cudaError",
            "cudaError_enum",
            "nvrtcResult"
        ]
    );
    // CUDA 12.9 sizes: enough to notice a truncated list.
    assert!(data["cudaError"].len() > 100, "{}", data["cudaError"].len());
    assert!(data["cudaError_enum"].len() > 90);
    assert!(data["nvrtcResult"].len() >= 12);
    assert!(data["cublasStatus_t"].len() >= 10);
}

/// With the feature, every enumerator of the four CUDA 12.x status enums
/// exists, mapped or synthesized.
#[cfg(feature = "synthesized-enums")]
#[test]
fn every_cuda12_status_enumerator_exists() {
    for (e, names) in cuda12_status_enums() {
        let t = table(&e);
        let have: Vec<&str> = t.variants.iter().map(|v| v.name).collect();
        assert_eq!(have, names, "{e}: enumerators differ from CUDA 12.9's");
        let synthesized = t.variants.iter().filter(|v| v.synthesized).count();
        assert_eq!(synthesized, t.no_hip_counterpart.len(), "{e}");
    }
}

/// Without the feature, only enumerators HIP has exist: the CUDA list is
/// exactly the defined ones plus those listed as lacking a HIP counterpart.
#[cfg(not(feature = "synthesized-enums"))]
#[test]
fn feature_off_leaves_only_mapped_enumerators() {
    use std::collections::BTreeSet;
    for (e, names) in cuda12_status_enums() {
        let t = table(&e);
        let have: BTreeSet<&str> = t.variants.iter().map(|v| v.name).collect();
        let missing: BTreeSet<&str> = t.no_hip_counterpart.iter().copied().collect();
        assert!(have.is_disjoint(&missing), "{e}");
        let all: BTreeSet<&str> = have.union(&missing).copied().collect();
        let cuda: BTreeSet<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(all, cuda, "{e}");
    }
    // cudaError has enumerators HIP lacks: they are absent here.
    assert!(!table("cudaError").no_hip_counterpart.is_empty());
    for t in enums() {
        for v in &t.variants {
            assert!(
                !v.synthesized,
                "{}::{} synthesized without the feature",
                t.cuda, v.name
            );
            assert!(
                v.hip_name.is_some(),
                "{}::{} = {} is not a {} value",
                t.cuda,
                v.name,
                v.value,
                t.hip
            );
        }
    }
}

/// Synthesized enumerators take values no HIP enumerator of the enum has,
/// equal only themselves, and print their CUDA name marked as synthesized.
#[test]
fn synthesized_values_are_disjoint_from_hip_and_unique() {
    let mut synthesized_total = 0;
    for t in enums() {
        for (i, v) in t.variants.iter().enumerate() {
            if !v.synthesized {
                assert!(v.hip_name.is_some(), "{}::{}", t.cuda, v.name);
                assert!(!v.debug.contains("synthesized"), "{}", v.debug);
                continue;
            }
            synthesized_total += 1;
            assert_eq!(v.hip_name, None, "{}::{} collides with HIP", t.cuda, v.name);
            assert_eq!(v.debug, format!("{} (synthesized)", v.name));
            for (j, w) in t.variants.iter().enumerate() {
                if i != j {
                    assert_ne!(v.value, w.value, "{}::{} == {}", t.cuda, v.name, w.name);
                }
            }
        }
    }
    if cfg!(feature = "synthesized-enums") {
        assert!(synthesized_total > 400, "{synthesized_total}");
    } else {
        assert_eq!(synthesized_total, 0);
    }
}

#[test]
fn every_enum_maps_onto_its_hip_enum_values() {
    let all = enums();
    assert!(all.len() > 100, "{} enums", all.len());
    for t in &all {
        let mapped: Vec<_> = t.variants.iter().filter(|v| !v.synthesized).collect();
        assert!(!mapped.is_empty(), "{} has no mapped enumerator", t.cuda);
    }
    let pairs: Vec<(&str, &str)> = all.iter().map(|t| (t.cuda, t.hip)).collect();
    for expected in [
        ("cudaError", "hipError_t"),
        ("cudaError_enum", "hipError_t"),
        ("nvrtcResult", "hiprtcResult"),
        ("cublasStatus_t", "hipblasStatus_t"),
        ("cudaMemcpyKind", "hipMemcpyKind"),
    ] {
        assert!(pairs.contains(&expected), "{expected:?} missing");
    }
}

#[test]
fn status_values_compare_with_both_path_styles_and_hip() {
    use cuda_compat::cublas::*;
    use cuda_compat::driver::*;
    use cuda_compat::nvrtc::*;
    use cuda_compat::runtime::*;
    use hip_sys::{hipError_t, hiprtcResult};
    use hipblas_sys::hipblasStatus_t;

    assert_eq!(
        cudaError_t::cudaErrorMemoryAllocation,
        hipError_t::hipErrorOutOfMemory
    );
    assert_eq!(
        cudaErrorMemoryAllocation,
        cudaError_t::cudaErrorMemoryAllocation
    );
    assert_eq!(
        CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        hipError_t::hipErrorOutOfMemory
    );
    assert_eq!(CUDA_ERROR_NO_DEVICE, CUresult::CUDA_ERROR_NO_DEVICE);
    assert_eq!(cudaErrorNoDevice.0, CUDA_ERROR_NO_DEVICE.0);
    assert_eq!(
        nvrtcResult::NVRTC_ERROR_COMPILATION,
        hiprtcResult::HIPRTC_ERROR_COMPILATION
    );
    assert_eq!(
        CUBLAS_STATUS_NOT_INITIALIZED,
        hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED
    );
    // Conversions both ways keep the value.
    let h: hipError_t = cudaErrorInvalidValue.into();
    assert_eq!(h, hipError_t::hipErrorInvalidValue);
    assert_eq!(cudaError_t::from(h), cudaErrorInvalidValue);
    // Printing: the CUDA name, or the raw value when unknown.
    assert_eq!(
        format!("{cudaErrorMemoryAllocation:?}"),
        "cudaErrorMemoryAllocation"
    );
    assert_eq!(
        format!("{}", CUDA_ERROR_OUT_OF_MEMORY),
        "CUDA_ERROR_OUT_OF_MEMORY"
    );
    assert_eq!(format!("{:?}", cudaError(123_456)), "cudaError(123456)");
    assert_eq!(cudaSuccess.ok(), Ok(()));
    assert_eq!(cudaErrorNoDevice.ok(), Err(cudaErrorNoDevice));
    assert_eq!(NVRTC_SUCCESS.ok(), Ok(()));
    assert_eq!(CUBLAS_STATUS_SUCCESS.ok(), Ok(()));
    // Non-status enums too.
    assert_eq!(
        cudaMemcpyKind::cudaMemcpyHostToDevice,
        cudaMemcpyHostToDevice
    );
    assert_eq!(
        cudaMemcpyHostToDevice.to_hip(),
        hip_sys::hipMemcpyKind::hipMemcpyHostToDevice
    );
    assert_eq!(
        cublasOperation_t::CUBLAS_OP_T,
        hipblas_sys::hipblasOperation_t::HIPBLAS_OP_T
    );
}

#[cfg(feature = "synthesized-enums")]
#[test]
fn a_synthesized_status_is_distinct_and_marked() {
    use cuda_compat::runtime::*;
    let e = cudaErrorStubLibrary;
    assert_eq!(e, cudaError_t::cudaErrorStubLibrary);
    assert!(e.is_synthesized());
    assert!(!cudaErrorNoDevice.is_synthesized());
    assert_eq!(format!("{e:?}"), "cudaErrorStubLibrary (synthesized)");
    assert_eq!(e.to_hip().name(), None);
    for (name, v) in cudaError::VARIANTS {
        assert_eq!(*v == e, *name == "cudaErrorStubLibrary", "{name}");
    }
    assert_eq!(e.ok(), Err(e));
}

#[test]
fn hip_backed_probe_constant() {
    const { assert!(cuda_compat::HIP_BACKED) };
}
