//! Tier 1 (pure Rust): the generated table has every function of
//! `hiprand/hiprand.h` (host API) and nothing of the device API, and the
//! enums have hipRAND's values.

use hiprand_sys::*;

#[test]
fn every_host_function_is_bound() {
    let expected = [
        "hiprandCreateGenerator",
        "hiprandCreateGeneratorHost",
        "hiprandCreatePoissonDistribution",
        "hiprandDestroyDistribution",
        "hiprandDestroyGenerator",
        "hiprandGenerate",
        "hiprandGenerateChar",
        "hiprandGenerateLogNormal",
        "hiprandGenerateLogNormalDouble",
        "hiprandGenerateLogNormalHalf",
        "hiprandGenerateLongLong",
        "hiprandGenerateNormal",
        "hiprandGenerateNormalDouble",
        "hiprandGenerateNormalHalf",
        "hiprandGeneratePoisson",
        "hiprandGenerateSeeds",
        "hiprandGenerateShort",
        "hiprandGenerateUniform",
        "hiprandGenerateUniformDouble",
        "hiprandGenerateUniformHalf",
        "hiprandGetDirectionVectors32",
        "hiprandGetDirectionVectors64",
        "hiprandGetScrambleConstants32",
        "hiprandGetScrambleConstants64",
        "hiprandGetVersion",
        "hiprandSetGeneratorOffset",
        "hiprandSetGeneratorOrdering",
        "hiprandSetPseudoRandomGeneratorSeed",
        "hiprandSetQuasiRandomGeneratorDimensions",
        "hiprandSetStream",
    ];
    assert_eq!(FUNCTION_NAMES, expected);
}

#[test]
fn enums_have_hiprands_values_and_half_is_two_bytes() {
    assert_eq!(hiprandRngType_t::HIPRAND_RNG_PSEUDO_XORWOW.0, 401);
    assert_eq!(hiprandRngType_t::HIPRAND_RNG_PSEUDO_PHILOX4_32_10.0, 405);
    assert_eq!(hiprandRngType_t::HIPRAND_RNG_QUASI_SOBOL32.0, 501);
    assert_eq!(hiprandStatus_t::HIPRAND_STATUS_NOT_IMPLEMENTED.0, 1000);
    assert_eq!(hiprandOrdering_t::HIPRAND_ORDERING_QUASI_DEFAULT.0, 201);
    assert_eq!(size_of::<half>(), 2);
    assert_eq!(align_of::<half>(), 2);
}

#[test]
fn nvidia_coverage_lists_every_binding() {
    let rows = nvidia_coverage();
    assert_eq!(rows.len(), FUNCTION_NAMES.len());
    assert_eq!(rows.iter().filter(|(_, c)| c.is_none()).count(), 5);
}
