//! Tier 1: cuRAND's C names in `cuda_compat::curand::sys`, with hipRAND's
//! values (the functions pass them to hipRAND unchanged), and cudarc's
//! `curand` paths; the length rules refuse a bad fill before any call
//! (no library or GPU here).

#![cfg(feature = "curand")]

use cuda_compat::curand::{result, sys, CudaRng};
use hiprand_sys::{hiprandOrdering_t, hiprandRngType_t, hiprandStatus_t};

#[test]
fn curand_names_carry_hiprands_values() {
    use sys::curandRngType_t as R;
    let pairs = [
        (
            R::CURAND_RNG_PSEUDO_DEFAULT,
            hiprandRngType_t::HIPRAND_RNG_PSEUDO_DEFAULT,
        ),
        (
            R::CURAND_RNG_PSEUDO_XORWOW,
            hiprandRngType_t::HIPRAND_RNG_PSEUDO_XORWOW,
        ),
        (
            R::CURAND_RNG_PSEUDO_MRG32K3A,
            hiprandRngType_t::HIPRAND_RNG_PSEUDO_MRG32K3A,
        ),
        (
            R::CURAND_RNG_PSEUDO_MTGP32,
            hiprandRngType_t::HIPRAND_RNG_PSEUDO_MTGP32,
        ),
        (
            R::CURAND_RNG_PSEUDO_MT19937,
            hiprandRngType_t::HIPRAND_RNG_PSEUDO_MT19937,
        ),
        (
            R::CURAND_RNG_PSEUDO_PHILOX4_32_10,
            hiprandRngType_t::HIPRAND_RNG_PSEUDO_PHILOX4_32_10,
        ),
        (
            R::CURAND_RNG_QUASI_SOBOL32,
            hiprandRngType_t::HIPRAND_RNG_QUASI_SOBOL32,
        ),
    ];
    for (cuda, hip) in pairs {
        assert_eq!(cuda.0, hip.0, "{cuda:?}");
        assert_eq!(hiprandRngType_t::from(cuda), hip);
    }
    assert_eq!(
        sys::curandStatus_t::CURAND_STATUS_LENGTH_NOT_MULTIPLE.0,
        hiprandStatus_t::HIPRAND_STATUS_LENGTH_NOT_MULTIPLE.0
    );
    assert_eq!(
        sys::curandOrdering_t::CURAND_ORDERING_QUASI_DEFAULT.0,
        hiprandOrdering_t::HIPRAND_ORDERING_QUASI_DEFAULT.0
    );
    assert_eq!(
        sys::curandDirectionVectorSet_t::CURAND_DIRECTION_VECTORS_32_JOEKUO6.0,
        101
    );
}

#[test]
fn every_host_function_of_curand_h_is_defined() {
    // Each name below must resolve to a function of the C signature
    // (a compile-time check: the casts name every parameter type).
    type Gen = sys::curandGenerator_t;
    type S = sys::curandStatus_t;
    let _: unsafe fn(*mut Gen, sys::curandRngType_t) -> S = sys::curandCreateGenerator;
    let _: unsafe fn(*mut Gen, sys::curandRngType_t) -> S = sys::curandCreateGeneratorHost;
    let _: unsafe fn(Gen) -> S = sys::curandDestroyGenerator;
    let _: unsafe fn(Gen, *mut u32, usize) -> S = sys::curandGenerate;
    let _: unsafe fn(Gen, *mut u64, usize) -> S = sys::curandGenerateLongLong;
    let _: unsafe fn(Gen, *mut f32, usize) -> S = sys::curandGenerateUniform;
    let _: unsafe fn(Gen, *mut f64, usize) -> S = sys::curandGenerateUniformDouble;
    let _: unsafe fn(Gen, *mut f32, usize, f32, f32) -> S = sys::curandGenerateNormal;
    let _: unsafe fn(Gen, *mut f64, usize, f64, f64) -> S = sys::curandGenerateNormalDouble;
    let _: unsafe fn(Gen, *mut f32, usize, f32, f32) -> S = sys::curandGenerateLogNormal;
    let _: unsafe fn(Gen, *mut f64, usize, f64, f64) -> S = sys::curandGenerateLogNormalDouble;
    let _: unsafe fn(Gen, *mut u32, usize, f64) -> S = sys::curandGeneratePoisson;
    let _: unsafe fn(Gen) -> S = sys::curandGenerateSeeds;
    let _: unsafe fn(Gen, u64) -> S = sys::curandSetPseudoRandomGeneratorSeed;
    let _: unsafe fn(Gen, u64) -> S = sys::curandSetGeneratorOffset;
    let _: unsafe fn(Gen, sys::curandOrdering_t) -> S = sys::curandSetGeneratorOrdering;
    let _: unsafe fn(Gen, u32) -> S = sys::curandSetQuasiRandomGeneratorDimensions;
    let _: unsafe fn(Gen, sys::cudaStream_t) -> S = sys::curandSetStream;
    let _: unsafe fn(*mut i32) -> S = sys::curandGetVersion;
    let _: unsafe fn(f64, *mut sys::curandDiscreteDistribution_t) -> S =
        sys::curandCreatePoissonDistribution;
    let _: unsafe fn(sys::curandDiscreteDistribution_t) -> S = sys::curandDestroyDistribution;
    // cudarc's paths.
    let _: fn() -> Result<Gen, result::CurandError> = result::create_generator;
    let _ = CudaRng::fill_with_normal::<f32, cuda_compat::driver::CudaSlice<f32>>;
}

#[test]
fn cudarc_enum_table_lists_the_curand_module() {
    let tables = cuda_compat::enums();
    let names: Vec<&str> = tables.iter().map(|t| t.cuda).collect();
    for n in [
        "curandStatus",
        "curandRngType",
        "curandOrdering",
        "curandDirectionVectorSet",
    ] {
        assert!(names.contains(&n), "{n} missing from cuda_compat::enums()");
    }
}

#[test]
fn raw_calls_without_hiprand_report_it() {
    // No hipRAND on this machine (or a GPU machine without it): the raw
    // name returns hipRAND's "initialization failed"; with a library
    // present this is skipped by the status it returns.
    let mut version = 0;
    // SAFETY: `version` is a valid place for an int.
    let status = unsafe { sys::curandGetVersion(&mut version) };
    if hiprand_sys::loader::is_available() {
        assert_eq!(status, sys::curandStatus_t::CURAND_STATUS_SUCCESS);
        assert!(version > 0);
    } else {
        assert_eq!(
            status.result(),
            Err(result::CurandError(
                sys::curandStatus_t::CURAND_STATUS_INITIALIZATION_FAILED
            ))
        );
    }
}

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    // Without a device or a hipRAND (this machine), creating a generator
    // fails; the error keeps the words of the layer that refused it (no
    // device, or the library paths tried), printed by `Debug`.
    let Err(e) = result::create_generator() else {
        // A machine with both: nothing fails here.
        assert!(hiprand_sys::loader::is_available());
        return;
    };
    assert_eq!(
        e.0,
        sys::curandStatus_t::CURAND_STATUS_INITIALIZATION_FAILED
    );
    test_kit::assert_reason_kept(&e, e.0, result::last_error_detail());
    // A raw status afterwards says only itself.
    let raw = sys::curandStatus_t::CURAND_STATUS_INITIALIZATION_FAILED.result();
    assert_eq!(raw, Err(e));
    assert_eq!(result::last_error_detail(), None);
}
