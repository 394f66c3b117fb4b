//! Tier 1 (pure Rust): every input a fill or setter refuses is refused by
//! the rules it runs before any hipRAND call (no library, no GPU here), with
//! an error naming the argument; and what the library accepts passes.

use hiprand::validate::{self, Distribution, MAX_SOBOL_DIMENSIONS};
use hiprand::{Error, Ordering, RngType};

/// The argument an [`Error::Invalid`] of a rule names (its reason's
/// first word), else a panic.
fn invalid_name(e: Error) -> String {
    match e {
        Error::Invalid { operation, reason } => {
            assert!(operation.starts_with("validate::check_"), "{operation}");
            let (name, _) = reason.split_once(": ").expect("`name: what`");
            name.to_string()
        }
        other => panic!("not Invalid: {other}"),
    }
}

const PSEUDO: [RngType; 5] = [
    RngType::Xorwow,
    RngType::Mrg32k3a,
    RngType::Mtgp32,
    RngType::Mt19937,
    RngType::Philox4x32_10,
];

#[test]
fn normal_and_log_normal_from_pseudo_generators_need_even_aligned_pairs() {
    for kind in PSEUDO {
        for d in [Distribution::Normal, Distribution::LogNormal] {
            let e = validate::check_fill(kind, 1, d, 1001, 0x1000, 4).unwrap_err();
            assert!(e.to_string().contains("even"), "{e}");
            assert_eq!(invalid_name(e), "length");
            // A slice starting one f32 into a buffer: not pair-aligned.
            let e = validate::check_fill(kind, 1, d, 1000, 0x1004, 4).unwrap_err();
            assert_eq!(invalid_name(e), "buffer");
            let e = validate::check_fill(kind, 1, d, 10, 0x1008, 8).unwrap_err();
            assert!(e.to_string().contains("16 bytes"), "{e}");
            validate::check_fill(kind, 1, d, 1000, 0x1008, 4).unwrap();
            validate::check_fill(kind, 1, d, 0, 0x1000, 2).unwrap();
        }
        // Other distributions take any length and address.
        for d in [
            Distribution::Uniform,
            Distribution::Bits,
            Distribution::Poisson,
        ] {
            validate::check_fill(kind, 1, d, 1001, 0x1004, 4).unwrap();
        }
    }
}

#[test]
fn quasi_fills_need_a_multiple_of_the_dimensions() {
    for d in [
        Distribution::Uniform,
        Distribution::Normal,
        Distribution::LogNormal,
        Distribution::Bits,
        Distribution::Poisson,
    ] {
        let e = validate::check_fill(RngType::Sobol32, 3, d, 1000, 0x1000, 4).unwrap_err();
        assert!(
            e.to_string().contains("multiple of its 3 dimensions"),
            "{e}"
        );
        validate::check_fill(RngType::Sobol32, 3, d, 999, 0x1000, 4).unwrap();
        // Odd lengths and odd addresses are fine for quasi normals.
        validate::check_fill(RngType::Sobol32, 1, d, 7, 0x1004, 4).unwrap();
        assert!(validate::check_fill(RngType::Sobol32, 0, d, 7, 0, 4).is_err());
    }
}

#[test]
fn dimensions_only_for_sobol_from_one_to_the_maximum() {
    assert_eq!(
        invalid_name(validate::check_dimensions(RngType::Sobol32, 0).unwrap_err()),
        "dimensions"
    );
    assert!(validate::check_dimensions(RngType::Sobol32, MAX_SOBOL_DIMENSIONS + 1).is_err());
    validate::check_dimensions(RngType::Sobol32, 1).unwrap();
    validate::check_dimensions(RngType::Sobol32, MAX_SOBOL_DIMENSIONS).unwrap();
    for kind in PSEUDO {
        let e = validate::check_dimensions(kind, 4).unwrap_err();
        assert!(e.to_string().contains("pseudo-random"), "{e}");
    }
}

#[test]
fn seeds_offsets_and_orderings_follow_the_generator_type() {
    assert_eq!(
        invalid_name(validate::check_seed(RngType::Sobol32).unwrap_err()),
        "seed"
    );
    for kind in PSEUDO {
        validate::check_seed(kind).unwrap();
    }
    for kind in [RngType::Mtgp32, RngType::Mt19937] {
        assert_eq!(
            invalid_name(validate::check_offset(kind).unwrap_err()),
            "offset"
        );
    }
    for kind in [
        RngType::Xorwow,
        RngType::Mrg32k3a,
        RngType::Philox4x32_10,
        RngType::Sobol32,
    ] {
        validate::check_offset(kind).unwrap();
    }
    let pseudo_orderings = [
        Ordering::PseudoBest,
        Ordering::PseudoDefault,
        Ordering::PseudoSeeded,
        Ordering::PseudoLegacy,
        Ordering::PseudoDynamic,
    ];
    for o in pseudo_orderings {
        validate::check_ordering(RngType::Philox4x32_10, o).unwrap();
        assert!(validate::check_ordering(RngType::Sobol32, o).is_err());
    }
    validate::check_ordering(RngType::Sobol32, Ordering::QuasiDefault).unwrap();
    assert_eq!(
        invalid_name(
            validate::check_ordering(RngType::Xorwow, Ordering::QuasiDefault).unwrap_err()
        ),
        "ordering"
    );
}

#[test]
fn distribution_parameters_and_devices_are_checked() {
    for bad in [f64::NAN, f64::INFINITY, -1.0] {
        assert_eq!(
            invalid_name(validate::check_normal(0.0, bad).unwrap_err()),
            "stddev"
        );
    }
    assert_eq!(
        invalid_name(validate::check_normal(f64::NAN, 1.0).unwrap_err()),
        "mean"
    );
    validate::check_normal(-3.0, 0.0).unwrap();
    for bad in [0.0, -2.0, f64::NAN, f64::INFINITY] {
        assert_eq!(
            invalid_name(validate::check_poisson(bad).unwrap_err()),
            "lambda"
        );
    }
    validate::check_poisson(0.5).unwrap();
    assert_eq!(
        invalid_name(validate::check_device(0, 1).unwrap_err()),
        "device"
    );
    let text = validate::check_device(1, 0).unwrap_err().to_string();
    assert_eq!(
        text,
        "invalid argument to validate::check_device: device: the buffer is on device 0 but the generator's stream is on device 1"
    );
    validate::check_device(2, 2).unwrap();
}

#[test]
fn rng_types_map_to_hiprands_values() {
    use hiprand_sys::hiprandRngType_t as T;
    let raw: Vec<T> = RngType::ALL.iter().map(|k| k.raw()).collect();
    assert_eq!(
        raw,
        [
            T::HIPRAND_RNG_PSEUDO_XORWOW,
            T::HIPRAND_RNG_PSEUDO_MRG32K3A,
            T::HIPRAND_RNG_PSEUDO_MTGP32,
            T::HIPRAND_RNG_PSEUDO_MT19937,
            T::HIPRAND_RNG_PSEUDO_PHILOX4_32_10,
            T::HIPRAND_RNG_QUASI_SOBOL32,
        ]
    );
    assert_eq!(
        Ordering::QuasiDefault.raw(),
        hiprand_sys::hiprandOrdering_t::HIPRAND_ORDERING_QUASI_DEFAULT
    );
}
