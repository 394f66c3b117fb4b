//! Tier 1: the `nccl` module's names, at cudarc's paths, and what is
//! rejected before the library (the tests build with the `nccl` feature:
//! see the dev-dependency in Cargo.toml).

use cuda_compat::nccl::result::{NcclError, NcclStatus};
use cuda_compat::nccl::{group_end, group_start, result, sys, Comm, Id, NcclType, ReduceOp};
use std::ffi::{c_char, c_int, c_void};

#[test]
fn cudarcs_names_and_ncclss_c_names_are_here() {
    // The C names are RCCL's functions themselves, at both paths.
    type AllReduce = unsafe fn(
        *const c_void,
        *mut c_void,
        usize,
        sys::ncclDataType_t,
        sys::ncclRedOp_t,
        sys::ncclComm_t,
        sys::cudaStream_t,
    ) -> sys::ncclResult_t;
    let raw: AllReduce = sys::ncclAllReduce;
    let top: AllReduce = cuda_compat::nccl::ncclAllReduce;
    assert_eq!(raw as usize, top as usize);
    assert_eq!(raw as usize, rccl::sys::ncclAllReduce as AllReduce as usize);
    assert_eq!(sys::NCCL_UNIQUE_ID_BYTES, 128);
    assert_eq!(sys::ncclRedOp_t::ncclAvg.0, 4);
    let _: fn() -> Result<NcclStatus, NcclError> = group_start;
    let _: fn() -> Result<NcclStatus, NcclError> = group_end;
    let _: fn() -> Result<c_int, NcclError> = result::get_nccl_version;
    // The calls newer than rccl.h 5.4.3 (from NCCL's header), at both
    // paths and under cudarc's result-layer names.
    type Split = unsafe fn(
        sys::ncclComm_t,
        c_int,
        c_int,
        *mut sys::ncclComm_t,
        *mut sys::ncclConfig_t,
    ) -> sys::ncclResult_t;
    let raw: Split = sys::ncclCommSplit;
    let top: Split = cuda_compat::nccl::ncclCommSplit;
    assert_eq!(raw as usize, top as usize);
    let _: unsafe fn(sys::ncclComm_t) -> Result<NcclStatus, NcclError> = result::comm_finalize;
    let _: unsafe fn(
        sys::ncclComm_t,
        c_int,
        c_int,
        *mut sys::ncclComm_t,
        *mut sys::ncclConfig_t,
    ) -> Result<NcclStatus, NcclError> = result::comm_split;
    let _: unsafe fn(
        *mut sys::ncclComm_t,
        c_int,
        sys::ncclUniqueId,
        c_int,
        *mut sys::ncclConfig_t,
    ) -> Result<NcclStatus, NcclError> = result::comm_init_rank_config;
    assert_eq!(cuda_compat::nccl::NCCL_SPLIT_NOCOLOR, -1);
    assert_eq!(sys::nccl_config_initializer().magic, 0xcafe_beef);
    let _ = [
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::Avg,
    ];
    assert_eq!(f32::as_nccl_type(), sys::ncclDataType_t::ncclFloat32);
    assert_eq!(u8::as_nccl_type(), sys::ncclDataType_t::ncclUint8);
}

#[test]
fn ids_round_trip_through_their_bytes() {
    let mut bytes = [0 as c_char; 128];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(7) as c_char;
    }
    let id = Id::uninit(bytes);
    assert_eq!(id.internal(), &bytes);
    let copy = Id::uninit(*id.internal());
    assert_eq!(copy.internal(), &bytes);
}

#[test]
fn result_maps_statuses_as_cudarc_does() {
    assert_eq!(
        result::status(sys::ncclResult_t::ncclSuccess),
        Ok(NcclStatus::Success)
    );
    assert_eq!(
        result::status(sys::ncclResult_t(7)),
        Ok(NcclStatus::InProgress)
    );
    let e = result::status(sys::ncclResult_t::ncclRemoteError).unwrap_err();
    assert_eq!(e, NcclError(sys::ncclResult_t::ncclRemoteError));
    assert!(format!("{e:?}").contains("ncclRemoteError"), "{e:?}");
}

#[test]
fn no_streams_is_an_invalid_argument_before_the_library() {
    let e = Comm::from_devices(Vec::new()).unwrap_err();
    assert_eq!(e, NcclError(sys::ncclResult_t::ncclInvalidArgument));
}

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    // Without an RCCL/NCCL (this machine), making an id fails; the error
    // keeps the words of the `rccl` crate (the call, its status and why),
    // printed by `Debug`.
    let Err(e) = result::get_uniqueid() else {
        // A machine with the library: nothing fails here.
        assert!(rccl::sys::loader::rccl().is_ok());
        return;
    };
    assert_eq!(e, NcclError(sys::ncclResult_t::ncclSystemError));
    let why = test_kit::assert_reason_kept(&e, e.0, result::last_error_detail());
    assert!(why.contains("ncclGetUniqueId"), "{why}");
    // The version query loads the library first: its reason is the
    // loader's (what was tried); a group call names itself.
    let v = result::get_nccl_version().unwrap_err();
    assert_eq!(v.0, sys::ncclResult_t::ncclSystemError);
    assert!(format!("{v:?}").contains("RCCL"), "{v:?}");
    let g = group_start().unwrap_err();
    assert!(format!("{g:?}").contains("ncclGroupStart"), "{g:?}");
    // A raw status afterwards says only itself.
    let raw = result::status(sys::ncclResult_t::ncclSystemError);
    assert_eq!(raw, Err(e));
    assert_eq!(result::last_error_detail(), None);
    assert!(!format!("{e:?}").contains("ncclGetUniqueId"), "{e:?}");
}

#[test]
fn the_safe_layers_refusals_say_why() {
    let e = Comm::from_devices(Vec::new()).unwrap_err();
    assert_eq!(e, NcclError(sys::ncclResult_t::ncclInvalidArgument));
    let (status, why) = result::last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(
        format!("{e:?}").contains(why.lines().next().unwrap()),
        "{e:?}"
    );
}
