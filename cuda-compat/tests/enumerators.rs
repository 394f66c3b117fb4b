//! Tier 1 (pure Rust): the CUDA enums, their values and the synthesized
//! enumerators, checked against CUDA's and HIP's headers:
//! `tests/data/header_enumerators.txt` holds the enumerators of the four CUDA
//! 12.9 status enums and of their ROCm 6.4 HIP counterparts with their values,
//! and hipify-perl's name pairs between them. It is written by
//! `cargo run -p hip-generator -- header-values`, whose own C enum parser
//! shares nothing with the code that generates cuda-compat, and is checked
//! for staleness by `build.rs-tools/scripts/check-generated.sh`.
//!
//! Run both ways: `cargo test -p cuda-compat` and
//! `cargo test -p cuda-compat --features synthesized-enums`.

use cuda_compat::{enums, EnumTable};
use std::collections::{BTreeMap, BTreeSet};

/// The CUDA status enums (as cuda-compat names them) with their HIP enum.
const STATUS_ENUMS: [(&str, &str); 4] = [
    ("cudaError", "hipError_t"),
    ("cudaError_enum", "hipError_t"),
    ("nvrtcResult", "hiprtcResult"),
    ("cublasStatus_t", "hipblasStatus_t"),
];

/// The header data: C enum -> (enumerator, value) in header order, and
/// CUDA enumerator -> its hipify-perl counterpart in the HIP enum.
struct Headers {
    enums: BTreeMap<&'static str, Vec<(&'static str, i64)>>,
    hipify: BTreeMap<&'static str, &'static str>,
}

fn headers() -> Headers {
    let mut enums: BTreeMap<&str, Vec<(&str, i64)>> = BTreeMap::new();
    let mut hipify = BTreeMap::new();
    for line in include_str!("data/header_enumerators.txt").lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        match f.as_slice() {
            [] => {}
            [c, ..] if c.starts_with('#') => {}
            ["enum", e, n, v] => enums
                .entry(*e)
                .or_default()
                .push((*n, v.parse().expect("a value"))),
            ["hipify", c, h] => assert!(hipify.insert(*c, *h).is_none(), "{c} twice"),
            _ => panic!("bad line {line:?}"),
        }
    }
    Headers { enums, hipify }
}

impl Headers {
    fn enumerators(&self, e: &str) -> &[(&'static str, i64)] {
        self.enums
            .get(e)
            .unwrap_or_else(|| panic!("the data file lacks {e}"))
    }

    /// The CUDA enumerator names of `e`, in CUDA's order, each once.
    fn names(&self, e: &str) -> Vec<&'static str> {
        let mut seen = BTreeSet::new();
        self.enumerators(e)
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| seen.insert(*n))
            .collect()
    }

    /// The value HIP's header gives the hipify-perl counterpart of `cuda`.
    fn hip_value(&self, hip_enum: &str, cuda: &str) -> Option<(&'static str, i64)> {
        let h = self.hipify.get(cuda)?;
        let v = self
            .enumerators(hip_enum)
            .iter()
            .find(|(n, _)| n == h)
            .unwrap_or_else(|| panic!("{hip_enum} has no {h}"))
            .1;
        Some((h, v))
    }
}

fn table(cuda: &str) -> EnumTable {
    enums()
        .into_iter()
        .find(|t| t.cuda == cuda)
        .unwrap_or_else(|| panic!("cuda-compat has no enum {cuda}"))
}

#[test]
fn the_data_file_has_the_status_enums_of_both_headers() {
    let h = headers();
    let names: Vec<&str> = h.enums.keys().copied().collect();
    assert_eq!(
        names,
        [
            "cublasStatus_t",
            "cudaError",
            "cudaError_enum",
            "hipError_t",
            "hipblasStatus_t",
            "hiprtcResult",
            "nvrtcResult"
        ]
    );
    // CUDA 12.9 / ROCm 6.4 sizes: enough to notice a truncated list.
    assert!(h.enumerators("cudaError").len() > 100);
    assert!(h.enumerators("cudaError_enum").len() > 90);
    assert!(h.enumerators("nvrtcResult").len() >= 12);
    assert!(h.enumerators("cublasStatus_t").len() >= 10);
    assert!(h.enumerators("hipError_t").len() > 70);
    assert!(h.hipify.len() > 150, "{} hipify pairs", h.hipify.len());
}

/// Every CUDA status enumerator with a hipify-perl counterpart is defined
/// (with or without the feature), is not synthesized, and has the value HIP's
/// header gives the counterpart; one without a counterpart is not a HIP value:
/// absent and listed as lacking one without the feature, synthesized with it.
#[test]
fn status_values_are_those_of_their_hip_counterparts_in_hips_header() {
    let h = headers();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (cuda, hip) in STATUS_ENUMS {
        let t = table(cuda);
        assert_eq!(t.hip, hip, "{cuda}");
        let hip_values: BTreeSet<i64> = h.enumerators(hip).iter().map(|(_, v)| *v).collect();
        for name in h.names(cuda) {
            let defined = t.variants.iter().find(|v| v.name == name);
            match (h.hip_value(hip, name), defined) {
                (Some((hn, hv)), Some(v)) => {
                    checked += 1;
                    if v.value != hv || v.synthesized {
                        wrong.push(format!(
                            "{cuda}::{name} = {} (synthesized: {}), HIP's header: {hn} = {hv}",
                            v.value, v.synthesized
                        ));
                    }
                }
                (Some((hn, _)), None) => {
                    wrong.push(format!("{cuda}::{name} missing, HIP has {hn}"))
                }
                (None, Some(v)) => {
                    if !v.synthesized || hip_values.contains(&v.value) {
                        wrong.push(format!(
                            "{cuda}::{name} = {} has no HIP counterpart yet is not a synthesized, non-HIP value",
                            v.value
                        ));
                    }
                }
                (None, None) => {
                    if cfg!(feature = "synthesized-enums") {
                        wrong.push(format!("{cuda}::{name} missing with the feature"));
                    } else if !t.no_hip_counterpart.contains(&name) {
                        wrong.push(format!(
                            "{cuda}::{name} absent but not listed as lacking a counterpart"
                        ));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked > 150, "only {checked} enumerators compared");
}

/// With the feature, every enumerator of the four CUDA 12.x status enums
/// exists, mapped or synthesized, in CUDA's order.
#[cfg(feature = "synthesized-enums")]
#[test]
fn every_cuda12_status_enumerator_exists() {
    let h = headers();
    for (e, _) in STATUS_ENUMS {
        let t = table(e);
        let have: Vec<&str> = t.variants.iter().map(|v| v.name).collect();
        assert_eq!(have, h.names(e), "{e}: enumerators differ from CUDA 12.9's");
        let synthesized = t.variants.iter().filter(|v| v.synthesized).count();
        assert_eq!(synthesized, t.no_hip_counterpart.len(), "{e}");
    }
}

/// Without the feature, only enumerators HIP has exist: the CUDA list is
/// exactly the defined ones plus those listed as lacking a HIP counterpart.
#[cfg(not(feature = "synthesized-enums"))]
#[test]
fn feature_off_leaves_only_mapped_enumerators() {
    let h = headers();
    for (e, _) in STATUS_ENUMS {
        let t = table(e);
        let have: BTreeSet<&str> = t.variants.iter().map(|v| v.name).collect();
        let missing: BTreeSet<&str> = t.no_hip_counterpart.iter().copied().collect();
        assert!(have.is_disjoint(&missing), "{e}");
        let all: BTreeSet<&str> = have.union(&missing).copied().collect();
        let cuda: BTreeSet<&str> = h.names(e).into_iter().collect();
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
