//! cudarc's thin layer over the raw names: each call's status as a
//! `Result` of [`NcclError`].

use super::sys;
use std::ffi::{c_int, c_void};

/// A failed NCCL status (cudarc's `NcclError`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct NcclError(pub sys::ncclResult_t);

impl std::fmt::Debug for NcclError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NcclError({})", self.0)
    }
}

impl std::fmt::Display for NcclError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for NcclError {}

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

/// cudarc's `ncclResult_t::result`: success (and value 7, in progress) as
/// `Ok`, every other status as `Err`.
pub fn status(r: sys::ncclResult_t) -> Result<NcclStatus, NcclError> {
    match r.0 {
        0 => Ok(NcclStatus::Success),
        7 => Ok(NcclStatus::InProgress),
        _ => Err(NcclError(r)),
    }
}

/// `ncclCommDestroy`.
///
/// # Safety
///
/// `comm` is a live communicator, not used afterwards.
pub unsafe fn comm_destroy(comm: sys::ncclComm_t) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    status(unsafe { sys::ncclCommDestroy(comm) })
}

/// `ncclCommAbort`.
///
/// # Safety
///
/// `comm` is a live communicator, not used afterwards.
pub unsafe fn comm_abort(comm: sys::ncclComm_t) -> Result<NcclStatus, NcclError> {
    // SAFETY: the caller's contract.
    status(unsafe { sys::ncclCommAbort(comm) })
}

/// `ncclGetVersion`.
pub fn get_nccl_version() -> Result<c_int, NcclError> {
    let mut version: c_int = 0;
    // SAFETY: `version` is a valid place to write an int.
    status(unsafe { sys::ncclGetVersion(&mut version) })?;
    Ok(version)
}

/// `ncclGetUniqueId`.
pub fn get_uniqueid() -> Result<sys::ncclUniqueId, NcclError> {
    let mut id = sys::ncclUniqueId::default();
    // SAFETY: `id` is a valid place to write an id.
    status(unsafe { sys::ncclGetUniqueId(&mut id) })?;
    Ok(id)
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
    status(unsafe { sys::ncclCommInitRank(comm, nranks, comm_id, rank) })
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
    status(unsafe { sys::ncclCommInitRankConfig(comm, nranks, comm_id, rank, config) })
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
    status(unsafe { sys::ncclCommSplit(comm, color, key, newcomm, config) })
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
    status(unsafe { sys::ncclCommFinalize(comm) })
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
    status(unsafe { sys::ncclCommInitAll(comm, ndev, devlist) })
}

/// `ncclCommCount`.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_count(comm: sys::ncclComm_t) -> Result<c_int, NcclError> {
    let mut count = 0;
    // SAFETY: the caller's contract; `count` is a valid place.
    status(unsafe { sys::ncclCommCount(comm, &mut count) })?;
    Ok(count)
}

/// `ncclCommCuDevice`.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_cu_device(comm: sys::ncclComm_t) -> Result<c_int, NcclError> {
    let mut device = 0;
    // SAFETY: the caller's contract; `device` is a valid place.
    status(unsafe { sys::ncclCommCuDevice(comm, &mut device) })?;
    Ok(device)
}

/// `ncclCommUserRank`.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_user_rank(comm: sys::ncclComm_t) -> Result<c_int, NcclError> {
    let mut rank = 0;
    // SAFETY: the caller's contract; `rank` is a valid place.
    status(unsafe { sys::ncclCommUserRank(comm, &mut rank) })?;
    Ok(rank)
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
    status(unsafe { sys::ncclRedOpCreatePreMulSum(op, scalar, datatype, residence, comm) })
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
    status(unsafe { sys::ncclRedOpDestroy(op, comm) })
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
    status(unsafe { sys::ncclReduce(sendbuff, recvbuff, count, datatype, op, root, comm, stream) })
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
    status(unsafe { sys::ncclBroadcast(sendbuff, recvbuff, count, datatype, root, comm, stream) })
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
    status(unsafe { sys::ncclAllReduce(sendbuff, recvbuff, count, datatype, op, comm, stream) })
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
    status(unsafe {
        sys::ncclReduceScatter(sendbuff, recvbuff, recvcount, datatype, op, comm, stream)
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
    status(unsafe { sys::ncclAllGather(sendbuff, recvbuff, sendcount, datatype, comm, stream) })
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
    status(unsafe { sys::ncclSend(sendbuff, count, datatype, peer, comm, stream) })
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
    status(unsafe { sys::ncclRecv(recvbuff, count, datatype, peer, comm, stream) })
}

/// `ncclGroupEnd`.
pub fn group_end() -> Result<NcclStatus, NcclError> {
    // SAFETY: no arguments; RCCL keeps the group per thread.
    status(unsafe { sys::ncclGroupEnd() })
}

/// `ncclGroupStart`.
pub fn group_start() -> Result<NcclStatus, NcclError> {
    // SAFETY: no arguments; RCCL keeps the group per thread.
    status(unsafe { sys::ncclGroupStart() })
}
