//! cudarc's thin layer over NCCL: each call's status as a `Result` of
//! [`NcclError`]. Each function calls the `rccl` crate's
//! [`result`](rccl::result) layer and turns its error into an
//! [`NcclError`] that keeps the message ([`last_error_detail`]).
//!
//! `ncclInProgress` (7), which a non-blocking communicator answers, is an
//! error to `rccl` and success to cudarc: these functions return it as
//! `Ok(NcclStatus::InProgress)` (with what the library wrote to the
//! caller's places), and those returning a value return the place's
//! initial value, as cudarc does.

use super::sys;
use rccl::result as ours_result;
use std::ffi::{c_int, c_void};

status_error! {
    /// A failed NCCL status (cudarc's `NcclError`). `Debug` and `Display`
    /// print this thread's reason ([`last_error_detail`]) when the status
    /// matches.
    pub struct NcclError(pub sys::ncclResult_t);
    /// The reason for the last NCCL error this thread got, with its
    /// status: the `rccl` crate's message (the call, its status and the
    /// library's words, or the paths tried when no library loads); `None`
    /// after an error that is a raw status.
    ///
    /// ```no_run
    /// use cuda_compat::nccl::result::{get_uniqueid, last_error_detail};
    /// if let Err(e) = get_uniqueid() {
    ///     let (status, why) = last_error_detail().unwrap();
    ///     assert_eq!(status, e.0);
    ///     println!("{why}");
    /// }
    /// ```
    detail;
    from rccl {
        load: ncclSystemError,
        invalid: ncclInvalidArgument,
        unsupported: ncclInvalidUsage,
        other: ncclUnhandledCudaError,
    }
}

/// A successful NCCL status (cudarc's `NcclStatus`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NcclStatus {
    /// `ncclSuccess`.
    Success,
    /// `ncclInProgress` (NCCL 2.14+, value 7: a non-blocking communicator
    /// still working).
    InProgress,
    /// `ncclNumResults` (value 7 in RCCL 5.4's header; never returned by a
    /// call, kept for cudarc's variant list).
    NumResults,
}

/// `ncclInProgress`'s value.
const IN_PROGRESS: u32 = 7;

/// cudarc's `ncclResult_t::result`: success (and value 7, in progress) as
/// `Ok`, every other status as `Err` (the raw status: no reason of an
/// earlier error is printed with it).
pub fn status(r: sys::ncclResult_t) -> Result<NcclStatus, NcclError> {
    match r.0 {
        0 => Ok(NcclStatus::Success),
        IN_PROGRESS => Ok(NcclStatus::InProgress),
        _ => {
            clear_detail();
            Err(NcclError(r))
        }
    }
}

/// Whether `rccl` refused `ncclInProgress` (success to cudarc).
fn in_progress(e: &rccl::Error) -> bool {
    e.status().is_some_and(|s| s.0 == IN_PROGRESS)
}

/// An `rccl` call's result as cudarc's status.
fn done(r: rccl::Result<()>) -> Result<NcclStatus, NcclError> {
    match r {
        Ok(()) => Ok(NcclStatus::Success),
        Err(e) if in_progress(&e) => Ok(NcclStatus::InProgress),
        Err(e) => Err(ours(e)),
    }
}

/// An `rccl` query's value as cudarc's: on `ncclInProgress` the initial
/// value of cudarc's place (`T::default()`), which the library leaves.
fn value<T: Default>(r: rccl::Result<T>) -> Result<T, NcclError> {
    match r {
        Ok(v) => Ok(v),
        Err(e) if in_progress(&e) => Ok(T::default()),
        Err(e) => Err(ours(e)),
    }
}

/// `ncclCommDestroy`.
///
/// # Safety
///
/// `comm` is a live communicator, not used afterwards.
pub unsafe fn comm_destroy(comm: sys::ncclComm_t) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::comm_destroy(comm) })
}

/// `ncclCommAbort`.
///
/// # Safety
///
/// `comm` is a live communicator, not used afterwards.
pub unsafe fn comm_abort(comm: sys::ncclComm_t) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::comm_abort(comm) })
}

/// `ncclGetVersion`.
pub fn get_nccl_version() -> Result<c_int, NcclError> {
    value(ours_result::version())
}

/// `ncclGetUniqueId`.
pub fn get_uniqueid() -> Result<sys::ncclUniqueId, NcclError> {
    value(ours_result::get_unique_id())
}

/// `ncclCommInitRank`.
///
/// # Safety
///
/// `comm` is a valid place to write a communicator; the device of `rank`
/// is current.
pub unsafe fn comm_init_rank(
    comm: *mut sys::ncclComm_t,
    nranks: c_int,
    comm_id: sys::ncclUniqueId,
    rank: c_int,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::comm_init_rank_into(comm, nranks, comm_id, rank) })
}

/// `ncclCommInitRankConfig` (NCCL 2.14+; a current RCCL): [`comm_init_rank`]
/// with a config started from [`sys::nccl_config_initializer`].
///
/// # Safety
///
/// As [`comm_init_rank`]; `config` points to a config made from
/// `NCCL_CONFIG_INITIALIZER`, whose strings live across the call.
pub unsafe fn comm_init_rank_config(
    comm: *mut sys::ncclComm_t,
    nranks: c_int,
    comm_id: sys::ncclUniqueId,
    rank: c_int,
    config: *mut sys::ncclConfig_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::comm_init_rank_config_into(comm, nranks, comm_id, rank, config) })
}

/// `ncclCommSplit` (NCCL 2.18+; a current RCCL): `newcomm` gets the
/// communicator of the ranks with the same `color`, ordered by `key`, or
/// null for `NCCL_SPLIT_NOCOLOR`.
///
/// # Safety
///
/// `comm` is a live communicator, `newcomm` a valid place to write one,
/// `config` null (inherit `comm`'s) or as in [`comm_init_rank_config`].
pub unsafe fn comm_split(
    comm: sys::ncclComm_t,
    color: c_int,
    key: c_int,
    newcomm: *mut sys::ncclComm_t,
    config: *mut sys::ncclConfig_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::comm_split(comm, color, key, newcomm, config) })
}

/// `ncclCommFinalize` (NCCL 2.14+; a current RCCL): waits for the
/// communicator's work and releases what it shares with its peers; then
/// [`comm_destroy`].
///
/// # Safety
///
/// `comm` is a live communicator; afterwards only `ncclCommDestroy` may
/// take it.
pub unsafe fn comm_finalize(comm: sys::ncclComm_t) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::comm_finalize(comm) })
}

/// `ncclCommInitAll`.
///
/// # Safety
///
/// `comm` has room for `ndev` communicators and `devlist` names `ndev`
/// devices.
pub unsafe fn comm_init_all(
    comm: *mut sys::ncclComm_t,
    ndev: c_int,
    devlist: *const c_int,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::comm_init_all_into(comm, ndev, devlist) })
}

/// `ncclCommCount`.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_count(comm: sys::ncclComm_t) -> Result<c_int, NcclError> {
    // SAFETY: the caller's contract.
    value(unsafe { ours_result::comm_count(comm) })
}

/// `ncclCommCuDevice`.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_cu_device(comm: sys::ncclComm_t) -> Result<c_int, NcclError> {
    // SAFETY: the caller's contract.
    value(unsafe { ours_result::comm_cu_device(comm) })
}

/// `ncclCommUserRank`.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_user_rank(comm: sys::ncclComm_t) -> Result<c_int, NcclError> {
    // SAFETY: the caller's contract.
    value(unsafe { ours_result::comm_user_rank(comm) })
}

/// `ncclRedOpCreatePreMulSum`.
///
/// # Safety
///
/// `op` is a valid place; `scalar` points at one `datatype` value where
/// `residence` says; `comm` is live.
pub unsafe fn reduce_op_create_pre_mul_sum(
    op: *mut sys::ncclRedOp_t,
    scalar: *mut c_void,
    datatype: sys::ncclDataType_t,
    residence: sys::ncclScalarResidence_t,
    comm: sys::ncclComm_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    let made = unsafe { ours_result::red_op_create_pre_mul_sum(scalar, datatype, residence, comm) };
    match made {
        Ok(made) => {
            // SAFETY: `op` is a valid place (the caller's contract).
            unsafe { op.write(made) };
            Ok(NcclStatus::Success)
        }
        Err(e) => done(Err(e)),
    }
}

/// `ncclRedOpDestroy`.
///
/// # Safety
///
/// `op` was created on the live `comm` and is not used afterwards.
pub unsafe fn reduce_op_destroy(
    op: sys::ncclRedOp_t,
    comm: sys::ncclComm_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::red_op_destroy(op, comm) })
}

/// `ncclReduce`.
///
/// # Safety
///
/// The buffers hold `count` elements of `datatype` on the communicator's
/// device (`recvbuff` on the root); `comm` and `stream` are live.
#[allow(clippy::too_many_arguments)]
pub unsafe fn reduce(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    count: usize,
    datatype: sys::ncclDataType_t,
    op: sys::ncclRedOp_t,
    root: c_int,
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe {
        ours_result::reduce(sendbuff, recvbuff, count, datatype, op, root, comm, stream)
    })
}

/// `ncclBroadcast`.
///
/// # Safety
///
/// The buffers hold `count` elements of `datatype` on the communicator's
/// device (`sendbuff` on the root); `comm` and `stream` are live.
pub unsafe fn broadcast(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    count: usize,
    datatype: sys::ncclDataType_t,
    root: c_int,
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::broadcast(sendbuff, recvbuff, count, datatype, root, comm, stream) })
}

/// `ncclAllReduce`.
///
/// # Safety
///
/// The buffers hold `count` elements of `datatype` on the communicator's
/// device; `comm` and `stream` are live.
pub unsafe fn all_reduce(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    count: usize,
    datatype: sys::ncclDataType_t,
    op: sys::ncclRedOp_t,
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::all_reduce(sendbuff, recvbuff, count, datatype, op, comm, stream) })
}

/// `ncclReduceScatter`.
///
/// # Safety
///
/// `recvbuff` holds `recvcount` elements and `sendbuff` world size times
/// that, on the communicator's device; `comm` and `stream` are live.
pub unsafe fn reduce_scatter(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    recvcount: usize,
    datatype: sys::ncclDataType_t,
    op: sys::ncclRedOp_t,
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe {
        ours_result::reduce_scatter(sendbuff, recvbuff, recvcount, datatype, op, comm, stream)
    })
}

/// `ncclAllGather`.
///
/// # Safety
///
/// `sendbuff` holds `sendcount` elements and `recvbuff` world size times
/// that, on the communicator's device; `comm` and `stream` are live.
pub unsafe fn all_gather(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    sendcount: usize,
    datatype: sys::ncclDataType_t,
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::all_gather(sendbuff, recvbuff, sendcount, datatype, comm, stream) })
}

/// `ncclSend`.
///
/// # Safety
///
/// `sendbuff` holds `count` elements of `datatype` on the communicator's
/// device; `comm` and `stream` are live.
pub unsafe fn send(
    sendbuff: *const c_void,
    count: usize,
    datatype: sys::ncclDataType_t,
    peer: c_int,
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::send(sendbuff, count, datatype, peer, comm, stream) })
}

/// `ncclRecv`.
///
/// # Safety
///
/// `recvbuff` holds `count` elements of `datatype` on the communicator's
/// device; `comm` and `stream` are live.
pub unsafe fn recv(
    recvbuff: *mut c_void,
    count: usize,
    datatype: sys::ncclDataType_t,
    peer: c_int,
    comm: sys::ncclComm_t,
    stream: sys::cudaStream_t,
) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    done(unsafe { ours_result::recv(recvbuff, count, datatype, peer, comm, stream) })
}

/// `ncclGroupEnd`.
pub fn group_end() -> Result<NcclStatus, NcclError> {
    // SAFETY: the calls of the group were made through this layer's
    // unsafe functions, whose callers promised their buffers, places and
    // communicators for the call; cudarc's `group_end` is safe and relies
    // on them (the library refuses an end without a start).
    done(unsafe { ours_result::group_end() })
}

/// `ncclGroupStart`.
pub fn group_start() -> Result<NcclStatus, NcclError> {
    done(ours_result::group_start())
}
