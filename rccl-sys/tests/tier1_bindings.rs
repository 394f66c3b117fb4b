//! Tier 1 (pure Rust): the generated table has every public `nccl*`
//! function of `rccl/rccl.h`, none of the `pnccl*` profiling duplicates,
//! and the types have RCCL's layout.

use rccl_sys::*;

#[test]
fn every_public_function_is_bound_and_no_profiling_duplicate() {
    let expected = [
        "ncclAllGather",
        "ncclAllReduce",
        "ncclAllToAll",
        "ncclAllToAllv",
        "ncclBcast",
        "ncclBroadcast",
        "ncclCommAbort",
        "ncclCommCount",
        "ncclCommCuDevice",
        "ncclCommDeregister",
        "ncclCommDestroy",
        "ncclCommFinalize",
        "ncclCommGetAsyncError",
        "ncclCommInitAll",
        "ncclCommInitRank",
        "ncclCommInitRankConfig",
        "ncclCommInitRankMulti",
        "ncclCommInitRankScalable",
        "ncclCommRegister",
        "ncclCommShrink",
        "ncclCommSplit",
        "ncclCommUserRank",
        "ncclCommWindowDeregister",
        "ncclCommWindowRegister",
        "ncclGather",
        "ncclGetErrorString",
        "ncclGetLastError",
        "ncclGetUniqueId",
        "ncclGetVersion",
        "ncclGroupEnd",
        "ncclGroupSimulateEnd",
        "ncclGroupStart",
        "ncclMemAlloc",
        "ncclMemFree",
        "ncclRecv",
        "ncclRedOpCreatePreMulSum",
        "ncclRedOpDestroy",
        "ncclReduce",
        "ncclReduceScatter",
        "ncclScatter",
        "ncclSend",
    ];
    assert_eq!(FUNCTION_NAMES, expected);
    assert!(FUNCTION_NAMES.iter().all(|n| !n.starts_with("pnccl")));
    // RCCL's own calls are bound, and the NVIDIA backend knows they are
    // RCCL's only.
    // `ncclAllToAll` counts as RCCL's: NCCL's (2.28 on) is `ncclAlltoAll`.
    for name in [
        "ncclAllToAll",
        "ncclAllToAllv",
        "ncclGather",
        "ncclScatter",
        "ncclCommInitRankMulti",
    ] {
        assert!(FUNCTION_NAMES.contains(&name), "{name}");
        assert!(RCCL_ONLY.contains(&name), "{name}");
    }
    assert_eq!(RCCL_ONLY.len(), 5);
    assert_eq!(
        NVIDIA_ADAPTERS,
        ["ncclAllToAll", "ncclAllToAllv", "ncclGather", "ncclScatter"]
    );
}

/// NCCL_CONFIG_INITIALIZER's values (nccl.h 2.27.3), in NCCL 2.27's layout:
/// 72 bytes, the size stored first, the magic number, the version code.
#[test]
fn the_config_initializer_is_nccls() {
    let config = nccl_config_initializer();
    assert_eq!(size_of::<ncclConfig_t>(), 72);
    assert_eq!(config.size, 72);
    assert_eq!(config.magic, 0xcafe_beef);
    assert_eq!(config.version, 2 * 10000 + 27 * 100 + 3);
    assert_eq!(NCCL_CONFIG_UNDEF_INT, i32::MIN);
    for field in [
        config.blocking,
        config.cgaClusterSize,
        config.minCTAs,
        config.maxCTAs,
        config.splitShare,
        config.trafficClass,
        config.collnetEnable,
        config.CTAPolicy,
        config.shrinkShare,
        config.nvlsCTAs,
    ] {
        assert_eq!(field, i32::MIN);
    }
    assert!(config.netName.is_null() && config.commName.is_null());
    assert_eq!(NCCL_SPLIT_NOCOLOR, -1);
}

#[test]
fn types_have_rccls_layout_and_values() {
    assert_eq!(size_of::<ncclUniqueId>(), NCCL_UNIQUE_ID_BYTES as usize);
    assert_eq!(size_of::<ncclResult_t>(), 4);
    assert_eq!(size_of::<ncclDataType_t>(), 4);
    assert_eq!(size_of::<ncclRedOp_t>(), 4);
    assert_eq!(ncclDataType_t::ncclBfloat16.0, 9);
    assert_eq!(ncclRedOp_t::ncclAvg.0, 4);
    assert_eq!(NCCL_VERSION_CODE, 21304);
    assert_eq!(ncclDataType_t::ncclFloat.name(), Some("ncclFloat32"));
}

#[test]
fn the_empty_table_has_nothing_available() {
    let t = RcclFunctions::EMPTY;
    assert_eq!(t.available_count(), 0);
    assert!(!t.is_available("ncclAllReduce"));
    assert!(!t.is_available("pncclAllReduce"));
    assert!(!t.is_available("ncclCommSplit"));
}
