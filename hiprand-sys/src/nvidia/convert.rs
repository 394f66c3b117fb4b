//! hipRAND's arguments as cuRAND takes them ([`ToCuda`], the adapter kit's
//! conversion), and hipRAND's enum values <-> cuRAND's, both ways, one table
//! per enum.
//!
//! cuRAND takes every hipRAND function's parameters in the same order:
//! handles and pointers to the same layouts (the generator and discrete
//! distribution are opaque pointers on both sides, the direction-vector
//! arrays `unsigned int[32]` and `unsigned long long[64]` on both) pass
//! unchanged, and each enum goes through its table; a value hipRAND's
//! header does not declare has no cuRAND number and is refused before
//! cuRAND is called.
//!
//! The cuRAND side of every row is a constant of `curand_values.rs`, which
//! the generator writes from cuRAND's own `curand.h` (`[[header_enums]]` of
//! the manifest): no cuRAND number here is typed by hand. The tests below
//! check that each table is one-to-one and covers every enumerator of both
//! headers (hipRAND's `HIPRAND_STATUS_NOT_IMPLEMENTED` alone has no cuRAND
//! counterpart).

use super::curand_values::{curandDirectionVectorSet as dv, curandOrdering as ord};
use super::curand_values::{curandRngType as rng, curandStatus as st};
use crate::{hiprandDirectionVectorSet_t, hiprandOrdering_t, hiprandRngType_t, hiprandStatus_t};
use hip_sys::loader::adapter::{Library, ToCuda};
use std::ffi::{c_uint, c_ulonglong};

/// The library these conversions belong to, for hip-sys's adapter kit.
impl Library for hiprandStatus_t {
    type Status = hiprandStatus_t;
}

hip_sys::cuda_unchanged!(hiprandStatus_t: usize, f32, f64, c_uint, c_ulonglong);
hip_sys::cuda_unchanged!(hiprandStatus_t: pointers);

/// An enum through its table, refused with `status` when it has no row.
macro_rules! translated {
    ($($t:ty => $table:ident, $status:ident;)*) => {$(
        impl ToCuda<hiprandStatus_t> for $t {
            type Held = c_uint;
            fn to_cuda(self) -> Result<c_uint, hiprandStatus_t> {
                to_curand($table, self).ok_or(hiprandStatus_t::$status)
            }
        }
    )*};
}
translated! {
    hiprandRngType_t => RNG_TYPE, HIPRAND_STATUS_TYPE_ERROR;
    hiprandOrdering_t => ORDERING, HIPRAND_STATUS_OUT_OF_RANGE;
    hiprandDirectionVectorSet_t => DIRECTION_VECTOR_SET, HIPRAND_STATUS_OUT_OF_RANGE;
}

/// One enum's rows: hipRAND's value, cuRAND's value.
pub(crate) type Table<H> = &'static [(H, u32)];

/// `hiprandStatus_t` <-> `curandStatus_t`.
pub(crate) const STATUS: Table<hiprandStatus_t> = &[
    (
        hiprandStatus_t::HIPRAND_STATUS_SUCCESS,
        st::CURAND_STATUS_SUCCESS,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_VERSION_MISMATCH,
        st::CURAND_STATUS_VERSION_MISMATCH,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_NOT_INITIALIZED,
        st::CURAND_STATUS_NOT_INITIALIZED,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_ALLOCATION_FAILED,
        st::CURAND_STATUS_ALLOCATION_FAILED,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_TYPE_ERROR,
        st::CURAND_STATUS_TYPE_ERROR,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_OUT_OF_RANGE,
        st::CURAND_STATUS_OUT_OF_RANGE,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_LENGTH_NOT_MULTIPLE,
        st::CURAND_STATUS_LENGTH_NOT_MULTIPLE,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_DOUBLE_PRECISION_REQUIRED,
        st::CURAND_STATUS_DOUBLE_PRECISION_REQUIRED,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_LAUNCH_FAILURE,
        st::CURAND_STATUS_LAUNCH_FAILURE,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_PREEXISTING_FAILURE,
        st::CURAND_STATUS_PREEXISTING_FAILURE,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_INITIALIZATION_FAILED,
        st::CURAND_STATUS_INITIALIZATION_FAILED,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_ARCH_MISMATCH,
        st::CURAND_STATUS_ARCH_MISMATCH,
    ),
    (
        hiprandStatus_t::HIPRAND_STATUS_INTERNAL_ERROR,
        st::CURAND_STATUS_INTERNAL_ERROR,
    ),
];

/// `hiprandRngType_t` <-> `curandRngType_t` (numbered differently: 400..
/// and 500.. against 100.. and 200..).
pub(crate) const RNG_TYPE: Table<hiprandRngType_t> = &[
    (hiprandRngType_t::HIPRAND_RNG_TEST, rng::CURAND_RNG_TEST),
    (
        hiprandRngType_t::HIPRAND_RNG_PSEUDO_DEFAULT,
        rng::CURAND_RNG_PSEUDO_DEFAULT,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_PSEUDO_XORWOW,
        rng::CURAND_RNG_PSEUDO_XORWOW,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_PSEUDO_MRG32K3A,
        rng::CURAND_RNG_PSEUDO_MRG32K3A,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_PSEUDO_MTGP32,
        rng::CURAND_RNG_PSEUDO_MTGP32,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_PSEUDO_MT19937,
        rng::CURAND_RNG_PSEUDO_MT19937,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_PSEUDO_PHILOX4_32_10,
        rng::CURAND_RNG_PSEUDO_PHILOX4_32_10,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_QUASI_DEFAULT,
        rng::CURAND_RNG_QUASI_DEFAULT,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_QUASI_SOBOL32,
        rng::CURAND_RNG_QUASI_SOBOL32,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL32,
        rng::CURAND_RNG_QUASI_SCRAMBLED_SOBOL32,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_QUASI_SOBOL64,
        rng::CURAND_RNG_QUASI_SOBOL64,
    ),
    (
        hiprandRngType_t::HIPRAND_RNG_QUASI_SCRAMBLED_SOBOL64,
        rng::CURAND_RNG_QUASI_SCRAMBLED_SOBOL64,
    ),
];

/// `hiprandOrdering_t` <-> `curandOrdering_t`.
pub(crate) const ORDERING: Table<hiprandOrdering_t> = &[
    (
        hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_BEST,
        ord::CURAND_ORDERING_PSEUDO_BEST,
    ),
    (
        hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_DEFAULT,
        ord::CURAND_ORDERING_PSEUDO_DEFAULT,
    ),
    (
        hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_SEEDED,
        ord::CURAND_ORDERING_PSEUDO_SEEDED,
    ),
    (
        hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_LEGACY,
        ord::CURAND_ORDERING_PSEUDO_LEGACY,
    ),
    (
        hiprandOrdering_t::HIPRAND_ORDERING_PSEUDO_DYNAMIC,
        ord::CURAND_ORDERING_PSEUDO_DYNAMIC,
    ),
    (
        hiprandOrdering_t::HIPRAND_ORDERING_QUASI_DEFAULT,
        ord::CURAND_ORDERING_QUASI_DEFAULT,
    ),
];

/// `hiprandDirectionVectorSet_t` <-> `curandDirectionVectorSet_t`.
pub(crate) const DIRECTION_VECTOR_SET: Table<hiprandDirectionVectorSet_t> = &[
    (
        hiprandDirectionVectorSet_t::HIPRAND_DIRECTION_VECTORS_32_JOEKUO6,
        dv::CURAND_DIRECTION_VECTORS_32_JOEKUO6,
    ),
    (
        hiprandDirectionVectorSet_t::HIPRAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6,
        dv::CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6,
    ),
    (
        hiprandDirectionVectorSet_t::HIPRAND_DIRECTION_VECTORS_64_JOEKUO6,
        dv::CURAND_DIRECTION_VECTORS_64_JOEKUO6,
    ),
    (
        hiprandDirectionVectorSet_t::HIPRAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6,
        dv::CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6,
    ),
];

/// cuRAND's value for hipRAND's `value`, `None` when it has none.
pub(crate) fn to_curand<H: Copy + PartialEq>(table: Table<H>, value: H) -> Option<u32> {
    table.iter().find(|(h, _)| *h == value).map(|(_, c)| *c)
}

/// hipRAND's value for cuRAND's `value`, `None` when it has none.
pub(crate) fn from_curand<H: Copy>(table: Table<H>, value: u32) -> Option<H> {
    table.iter().find(|(_, c)| *c == value).map(|(h, _)| *h)
}

/// A status cuRAND returned, as hipRAND's; a value cuRAND's header does not
/// declare (a newer cuRAND) is passed on unchanged rather than guessed (the
/// two headers number every shared status alike).
pub(crate) fn status_from_curand(status: u32) -> hiprandStatus_t {
    from_curand(STATUS, status).unwrap_or(hiprandStatus_t(status))
}

#[cfg(test)]
mod tests {
    use super::super::curand_values;
    use super::*;

    /// Checks a table against both headers: rows one-to-one, every cuRAND
    /// enumerator present, every hipRAND enumerator (found through
    /// `name()` over 0..=2000, beyond every value either header uses)
    /// present except those in `hip_only`.
    fn check<H: Copy + PartialEq + std::fmt::Debug>(
        table: Table<H>,
        curand: &[(&str, i64)],
        hip_name: impl Fn(u32) -> Option<H>,
        hip_only: &[H],
    ) {
        for (i, (h, c)) in table.iter().enumerate() {
            for (h2, c2) in &table[i + 1..] {
                assert_ne!(h, h2, "hipRAND value twice");
                assert_ne!(c, c2, "cuRAND value twice");
            }
            assert_eq!(to_curand(table, *h), Some(*c));
            assert_eq!(from_curand(table, *c), Some(*h));
        }
        for (name, value) in curand {
            let value = u32::try_from(*value).unwrap();
            assert!(from_curand(table, value).is_some(), "{name} has no row");
        }
        assert_eq!(
            table.len(),
            curand.len(),
            "a row is not a cuRAND enumerator"
        );
        let mut hip_count = 0;
        for v in 0..=2000u32 {
            if let Some(h) = hip_name(v) {
                hip_count += 1;
                if !hip_only.contains(&h) {
                    assert!(to_curand(table, h).is_some(), "{h:?} has no row");
                }
            }
        }
        assert_eq!(hip_count, table.len() + hip_only.len());
    }

    #[test]
    fn status_table_matches_both_headers() {
        check(
            STATUS,
            curand_values::curandStatus::ALL,
            |v| hiprandStatus_t(v).name().map(|_| hiprandStatus_t(v)),
            &[hiprandStatus_t::HIPRAND_STATUS_NOT_IMPLEMENTED],
        );
        assert_eq!(
            status_from_curand(curand_values::curandStatus::CURAND_STATUS_LENGTH_NOT_MULTIPLE),
            hiprandStatus_t::HIPRAND_STATUS_LENGTH_NOT_MULTIPLE
        );
        assert_eq!(status_from_curand(7777), hiprandStatus_t(7777));
    }

    #[test]
    fn rng_type_table_matches_both_headers() {
        check(
            RNG_TYPE,
            curand_values::curandRngType::ALL,
            |v| hiprandRngType_t(v).name().map(|_| hiprandRngType_t(v)),
            &[],
        );
        // The numbering really differs: the table is not the identity.
        assert_eq!(
            to_curand(RNG_TYPE, hiprandRngType_t::HIPRAND_RNG_PSEUDO_XORWOW),
            Some(101)
        );
        assert_eq!(
            from_curand(RNG_TYPE, 201),
            Some(hiprandRngType_t::HIPRAND_RNG_QUASI_SOBOL32)
        );
        assert_eq!(to_curand(RNG_TYPE, hiprandRngType_t(101)), None);
    }

    #[test]
    fn ordering_and_direction_tables_match_both_headers() {
        check(
            ORDERING,
            curand_values::curandOrdering::ALL,
            |v| hiprandOrdering_t(v).name().map(|_| hiprandOrdering_t(v)),
            &[],
        );
        check(
            DIRECTION_VECTOR_SET,
            curand_values::curandDirectionVectorSet::ALL,
            |v| {
                hiprandDirectionVectorSet_t(v)
                    .name()
                    .map(|_| hiprandDirectionVectorSet_t(v))
            },
            &[],
        );
        assert_eq!(curand_values::ENUMS.len(), 4);
    }
}
