//! The generator types and orderings, as Rust enums over hipRAND's values.

use hiprand_sys::{hiprandOrdering_t, hiprandRngType_t};

/// A generator algorithm (`hiprandRngType_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RngType {
    /// XORWOW (`HIPRAND_RNG_PSEUDO_XORWOW`): cuRAND's default, fast.
    Xorwow,
    /// MRG32k3a (`HIPRAND_RNG_PSEUDO_MRG32K3A`): combined multiple
    /// recursive, long period.
    Mrg32k3a,
    /// Mersenne Twister for GPUs (`HIPRAND_RNG_PSEUDO_MTGP32`); its offset
    /// cannot be set.
    Mtgp32,
    /// Mersenne Twister 19937 (`HIPRAND_RNG_PSEUDO_MT19937`); its offset
    /// cannot be set.
    Mt19937,
    /// Philox 4x32 with 10 rounds (`HIPRAND_RNG_PSEUDO_PHILOX4_32_10`):
    /// counter based, usually the fastest.
    Philox4x32_10,
    /// Sobol 32-bit quasi-random sequences (`HIPRAND_RNG_QUASI_SOBOL32`),
    /// one per dimension; no seed.
    Sobol32,
}

impl RngType {
    /// Every type, in declaration order.
    pub const ALL: [RngType; 6] = [
        RngType::Xorwow,
        RngType::Mrg32k3a,
        RngType::Mtgp32,
        RngType::Mt19937,
        RngType::Philox4x32_10,
        RngType::Sobol32,
    ];

    /// hipRAND's value.
    pub const fn raw(self) -> hiprandRngType_t {
        match self {
            RngType::Xorwow => hiprandRngType_t::HIPRAND_RNG_PSEUDO_XORWOW,
            RngType::Mrg32k3a => hiprandRngType_t::HIPRAND_RNG_PSEUDO_MRG32K3A,
            RngType::Mtgp32 => hiprandRngType_t::HIPRAND_RNG_PSEUDO_MTGP32,
            RngType::Mt19937 => hiprandRngType_t::HIPRAND_RNG_PSEUDO_MT19937,
            RngType::Philox4x32_10 => hiprandRngType_t::HIPRAND_RNG_PSEUDO_PHILOX4_32_10,
            RngType::Sobol32 => hiprandRngType_t::HIPRAND_RNG_QUASI_SOBOL32,
        }
    }

    /// Whether this is a quasi-random generator (dimensions, no seed).
    pub const fn is_quasi(self) -> bool {
        matches!(self, RngType::Sobol32)
    }

    /// Whether [`crate::Generator::set_offset`] is allowed (hipRAND and
    /// cuRAND refuse it for the two Mersenne Twisters).
    pub const fn takes_offset(self) -> bool {
        !matches!(self, RngType::Mtgp32 | RngType::Mt19937)
    }
}

/// How results are laid out in memory (`hiprandOrdering_t`): pseudo-random
/// orderings for pseudo-random generators, [`Ordering::QuasiDefault`] for
/// quasi-random ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Ordering {
    /// `HIPRAND_ORDERING_PSEUDO_BEST`.
    PseudoBest,
    /// `HIPRAND_ORDERING_PSEUDO_DEFAULT` (the pseudo-random default).
    PseudoDefault,
    /// `HIPRAND_ORDERING_PSEUDO_SEEDED`: faster seeding, lower quality.
    PseudoSeeded,
    /// `HIPRAND_ORDERING_PSEUDO_LEGACY`: stable across releases of one
    /// backend (not across backends).
    PseudoLegacy,
    /// `HIPRAND_ORDERING_PSEUDO_DYNAMIC`: adjusted to the device.
    PseudoDynamic,
    /// `HIPRAND_ORDERING_QUASI_DEFAULT`: n-dimensional ordering.
    QuasiDefault,
}

impl Ordering {
    /// hipRAND's value.
    pub const fn raw(self) -> hiprandOrdering_t {
        match self {
            Ordering::PseudoBest => hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_BEST,
            Ordering::PseudoDefault => hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_DEFAULT,
            Ordering::PseudoSeeded => hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_SEEDED,
            Ordering::PseudoLegacy => hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_LEGACY,
            Ordering::PseudoDynamic => hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_DYNAMIC,
            Ordering::QuasiDefault => hiprandOrdering_t::HIPRAND_ORDERING_QUASI_DEFAULT,
        }
    }

    /// Whether this ordering is for quasi-random generators.
    pub const fn is_quasi(self) -> bool {
        matches!(self, Ordering::QuasiDefault)
    }
}
