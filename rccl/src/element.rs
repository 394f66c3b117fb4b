//! The element types collectives take, and the reductions.

use rccl_sys::{ncclDataType_t, ncclRedOp_t};

/// An element type RCCL reduces and moves: its `ncclDataType_t`.
///
/// Sealed: f32, f64, `half::f16`, `half::bf16`, i8, u8, i32, u32, i64,
/// u64, the types of RCCL 5.4's `ncclDataType_t`.
pub trait Element: hip::Element {
    /// RCCL's data type for `Self`.
    const DATA_TYPE: ncclDataType_t;
}

macro_rules! elements {
    ($($t:ty => $dt:ident),* $(,)?) => {$(
        impl Element for $t {
            const DATA_TYPE: ncclDataType_t = ncclDataType_t::$dt;
        }
    )*};
}

elements! {
    i8 => ncclInt8,
    u8 => ncclUint8,
    i32 => ncclInt32,
    u32 => ncclUint32,
    i64 => ncclInt64,
    u64 => ncclUint64,
    half::f16 => ncclFloat16,
    f32 => ncclFloat32,
    f64 => ncclFloat64,
    half::bf16 => ncclBfloat16,
}

/// How a reducing collective combines the ranks' elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// `ncclSum`.
    Sum,
    /// `ncclProd`.
    Prod,
    /// `ncclMin`.
    Min,
    /// `ncclMax`.
    Max,
    /// `ncclAvg`: the sum divided by the world size (NCCL 2.10 and later;
    /// RCCL 5.4's API is NCCL 2.13). Integers divide with truncation.
    Avg,
}

/// The first NCCL API version with `ncclAvg` (`NCCL_VERSION_CODE` form).
pub(crate) const AVG_SINCE: i32 = 21000;

impl ReduceOp {
    /// RCCL's value.
    pub const fn raw(self) -> ncclRedOp_t {
        match self {
            ReduceOp::Sum => ncclRedOp_t::ncclSum,
            ReduceOp::Prod => ncclRedOp_t::ncclProd,
            ReduceOp::Min => ncclRedOp_t::ncclMin,
            ReduceOp::Max => ncclRedOp_t::ncclMax,
            ReduceOp::Avg => ncclRedOp_t::ncclAvg,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_types_match_rccl_and_sizes() {
        fn check<T: Element>(expected: ncclDataType_t, bytes: usize) {
            assert_eq!(T::DATA_TYPE, expected, "{}", T::NAME);
            assert_eq!(size_of::<T>(), bytes, "{}", T::NAME);
        }
        check::<i8>(ncclDataType_t::ncclInt8, 1);
        check::<u8>(ncclDataType_t::ncclUint8, 1);
        check::<i32>(ncclDataType_t::ncclInt32, 4);
        check::<u32>(ncclDataType_t::ncclUint32, 4);
        check::<i64>(ncclDataType_t::ncclInt64, 8);
        check::<u64>(ncclDataType_t::ncclUint64, 8);
        check::<half::f16>(ncclDataType_t::ncclFloat16, 2);
        check::<f32>(ncclDataType_t::ncclFloat32, 4);
        check::<f64>(ncclDataType_t::ncclFloat64, 8);
        check::<half::bf16>(ncclDataType_t::ncclBfloat16, 2);
    }

    #[test]
    fn reduce_ops_match_rccl() {
        assert_eq!(ReduceOp::Sum.raw().0, 0);
        assert_eq!(ReduceOp::Prod.raw().0, 1);
        assert_eq!(ReduceOp::Max.raw().0, 2);
        assert_eq!(ReduceOp::Min.raw().0, 3);
        assert_eq!(ReduceOp::Avg.raw().0, 4);
    }
}
