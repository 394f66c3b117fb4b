//! The result layer: the library loaded (or [`Error::Load`]), and one
//! thin function per RCCL/NCCL call the safe types make, each turning the
//! status into a [`Result`] with the library's own words ([`Error::Nccl`])
//! and output parameters into return values. Handles stay raw: the caller
//! owns them ([`Comm`](crate::Comm) is the safe owner).
//!
//! This is the only place in the crate that calls `rccl_sys`'s functions.
//! A function is `unsafe` when the call's soundness depends on its
//! arguments (a live communicator, device pointers, a stream); its
//! `# Safety` section says what must hold. No argument is checked here.
//!
//! ```no_run
//! # fn main() -> rccl::Result<()> {
//! use rccl::result;
//! let id = result::get_unique_id()?;
//! let comm = result::comm_init_rank(1, id, 0)?;
//! // SAFETY: made above, destroyed once, not used after.
//! unsafe { result::comm_destroy(comm) }?;
//! # Ok(()) }
//! ```

use crate::error::{Error, Result};
use rccl_sys::{
    hipStream_t, ncclComm_t, ncclConfig_t, ncclDataType_t, ncclRedOp_t, ncclResult_t,
    ncclScalarResidence_t, ncclUniqueId,
};
use std::ffi::{c_char, c_int, c_void, CStr};

/// The loaded RCCL (NCCL on NVIDIA), or [`Error::Load`] with every path
/// tried.
pub fn library() -> Result<&'static rccl_sys::loader::Rccl> {
    rccl_sys::loader::rccl().map_err(|e| Error::Load(e.clone()))
}

/// `Ok` for `ncclSuccess`; else [`Error::Nccl`] with
/// `ncclGetErrorString`, and `ncclGetLastError` of `comm` (null: the last
/// error of any communicator) when it says more. `ncclInProgress` (7),
/// which only a non-blocking communicator returns (this crate's are
/// blocking), is such an error too: the functions that can meet it say so,
/// and a caller that made a non-blocking communicator tells it apart by
/// its status.
pub(crate) fn check(call: &'static str, status: ncclResult_t, comm: ncclComm_t) -> Result<()> {
    if status.is_success() {
        return Ok(());
    }
    Err(Error::Nccl {
        call,
        status,
        message: message(status, comm),
    })
}

/// The library's text for `status` (`ncclGetErrorString`), and its last
/// error for `comm` (`ncclGetLastError`; null: of any communicator) when
/// it says more.
pub(crate) fn message(status: ncclResult_t, comm: ncclComm_t) -> String {
    // SAFETY: both return a static (or library-owned, NUL-terminated) C
    // string, or this crate's unavailable message; never freed by us.
    let (text, last) = unsafe {
        (
            text_of(rccl_sys::ncclGetErrorString(status)),
            text_of(rccl_sys::ncclGetLastError(comm)),
        )
    };
    let text = if text.is_empty() {
        status.description().to_string()
    } else {
        text
    };
    if last.is_empty() || last == text {
        text
    } else {
        format!("{text} ({last})")
    }
}

/// # Safety
///
/// `p` is null or a NUL-terminated string alive for this call.
unsafe fn text_of(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: non-null and NUL-terminated (the caller's promise).
    unsafe { CStr::from_ptr(p) }
        .to_string_lossy()
        .trim()
        .to_string()
}

/// `ncclGetVersion`: the loaded library's NCCL API version code, e.g.
/// `21304` for 2.13.4 (RCCL 5.4) or `22805` for NCCL 2.28.5.
///
/// ```no_run
/// match rccl::version() {
///     Ok(v) => println!("NCCL API {}.{}.{}", v / 10000, v / 100 % 100, v % 100),
///     Err(e) => println!("{e}"), // every path tried
/// }
/// ```
pub fn version() -> Result<i32> {
    library()?;
    let mut v = 0;
    // SAFETY: `v` is a valid place to write an int.
    let status = unsafe { rccl_sys::ncclGetVersion(&mut v) };
    check("ncclGetVersion", status, std::ptr::null_mut())?;
    Ok(v)
}

const NO_COMM: ncclComm_t = std::ptr::null_mut();

/// `ncclGetUniqueId`: a fresh communicator id (rank 0 makes it and sends
/// it to every rank).
pub fn get_unique_id() -> Result<ncclUniqueId> {
    let mut id = ncclUniqueId::default();
    check(
        "ncclGetUniqueId",
        // SAFETY: `id` is a valid place to write an `ncclUniqueId`.
        unsafe { rccl_sys::ncclGetUniqueId(&mut id) },
        NO_COMM,
    )?;
    Ok(id)
}

/// `ncclCommInitAll`: one communicator per device of `devices` (ordinals),
/// rank `i` on `devices[i]`, for one process driving them all.
pub fn comm_init_all(devices: &[c_int]) -> Result<Vec<ncclComm_t>> {
    let n = c_int::try_from(devices.len()).map_err(|_| {
        Error::invalid(
            "result::comm_init_all",
            format!("{} devices do not fit the C API's int", devices.len()),
        )
    })?;
    let mut comms: Vec<ncclComm_t> = vec![std::ptr::null_mut(); devices.len()];
    // SAFETY: `comms` has room for `n` communicators and `devices` holds
    // `n` ordinals (the library refuses invalid or repeated ones).
    unsafe { comm_init_all_into(comms.as_mut_ptr(), n, devices.as_ptr()) }?;
    Ok(comms)
}

/// `ncclCommInitAll` writing to the caller's places: [`comm_init_all`]
/// for callers that hold raw arrays (a null `devlist` is devices `0` to
/// `ndev - 1`). Under a non-blocking default (`NCCL_COMM_BLOCKING=0`)
/// the library may answer `ncclInProgress`, an [`Error::Nccl`] of status
/// 7, with the communicators written.
///
/// # Safety
///
/// `comms` is valid for writing `ndev` communicators; `devlist` is null
/// or points to `ndev` ordinals.
pub unsafe fn comm_init_all_into(
    comms: *mut ncclComm_t,
    ndev: c_int,
    devlist: *const c_int,
) -> Result<()> {
    check(
        "ncclCommInitAll",
        // SAFETY: the caller's contract.
        unsafe { rccl_sys::ncclCommInitAll(comms, ndev, devlist) },
        NO_COMM,
    )
}

/// `ncclCommInitRank`: this process's rank `rank` of `nranks` in the
/// communicator `id`, on the current device. Blocks until every rank has
/// joined.
pub fn comm_init_rank(nranks: c_int, id: ncclUniqueId, rank: c_int) -> Result<ncclComm_t> {
    let mut comm: ncclComm_t = std::ptr::null_mut();
    // SAFETY: `comm` is a valid place for the communicator.
    unsafe { comm_init_rank_into(&mut comm, nranks, id, rank) }?;
    Ok(comm)
}

/// `ncclCommInitRank` writing the communicator to the caller's place
/// `comm`: [`comm_init_rank`] for callers that hold one. Under a
/// non-blocking default (`NCCL_COMM_BLOCKING=0`) the library may answer
/// `ncclInProgress`, an [`Error::Nccl`] of status 7, with `*comm` written.
///
/// # Safety
///
/// `comm` is valid for writing a communicator.
pub unsafe fn comm_init_rank_into(
    comm: *mut ncclComm_t,
    nranks: c_int,
    id: ncclUniqueId,
    rank: c_int,
) -> Result<()> {
    check(
        "ncclCommInitRank",
        // SAFETY: the caller's contract; the id is passed by value.
        unsafe { rccl_sys::ncclCommInitRank(comm, nranks, id, rank) },
        NO_COMM,
    )
}

/// `ncclCommInitRankConfig`: [`comm_init_rank`] with `config`'s settings.
///
/// # Safety
///
/// `config` points to a valid `ncclConfig_t` (from
/// `rccl_sys::nccl_config_initializer`), whose strings live across the
/// call.
pub unsafe fn comm_init_rank_config(
    nranks: c_int,
    id: ncclUniqueId,
    rank: c_int,
    config: *mut ncclConfig_t,
) -> Result<ncclComm_t> {
    let mut comm: ncclComm_t = std::ptr::null_mut();
    // SAFETY: `comm` is a valid place; `config` is the caller's promise.
    unsafe { comm_init_rank_config_into(&mut comm, nranks, id, rank, config) }?;
    Ok(comm)
}

/// `ncclCommInitRankConfig` writing the communicator to the caller's
/// place `comm`. With a non-blocking config (`blocking = 0`) the library
/// answers `ncclInProgress`, an [`Error::Nccl`] of status 7, with `*comm`
/// written: poll [`comm_get_async_error`] until it is ready.
///
/// # Safety
///
/// `comm` is valid for writing a communicator; `config` as in
/// [`comm_init_rank_config`].
pub unsafe fn comm_init_rank_config_into(
    comm: *mut ncclComm_t,
    nranks: c_int,
    id: ncclUniqueId,
    rank: c_int,
    config: *mut ncclConfig_t,
) -> Result<()> {
    check(
        "ncclCommInitRankConfig",
        // SAFETY: the caller's contract.
        unsafe { rccl_sys::ncclCommInitRankConfig(comm, nranks, id, rank, config) },
        NO_COMM,
    )
}

/// `ncclCommSplit`: writes to `new` the communicator of this rank's
/// `color` (null for `NCCL_SPLIT_NOCOLOR`), ordered by `key`. Inside a
/// group the library writes it when the group ends.
///
/// # Safety
///
/// `comm` is live; `new` is valid for writes until the call (or its
/// group) ends; `config` is null (inherit `comm`'s settings) or points to
/// a valid `ncclConfig_t`.
pub unsafe fn comm_split(
    comm: ncclComm_t,
    color: c_int,
    key: c_int,
    new: *mut ncclComm_t,
    config: *mut ncclConfig_t,
) -> Result<()> {
    check(
        "ncclCommSplit",
        // SAFETY: the caller's contract.
        unsafe { rccl_sys::ncclCommSplit(comm, color, key, new, config) },
        comm,
    )
}

macro_rules! comm_call {
    ($(#[$doc:meta])* $name:ident, $call:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// `comm` is a live communicator; after this call it is freed and
        /// must not be used again.
        pub unsafe fn $name(comm: ncclComm_t) -> Result<()> {
            // SAFETY: the caller's contract. The communicator is freed:
            // its last error is not asked for.
            check(stringify!($call), unsafe { rccl_sys::$call(comm) }, NO_COMM)
        }
    };
}

comm_call!(
    /// `ncclCommDestroy`: frees the communicator after its pending work.
    comm_destroy,
    ncclCommDestroy
);
comm_call!(
    /// `ncclCommAbort`: stops the communicator's pending work and frees it.
    comm_abort,
    ncclCommAbort
);

/// `ncclCommFinalize`: waits for the communicator's pending work and
/// releases what it shares with its peers (then [`comm_destroy`] it).
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_finalize(comm: ncclComm_t) -> Result<()> {
    check(
        "ncclCommFinalize",
        // SAFETY: the caller's contract.
        unsafe { rccl_sys::ncclCommFinalize(comm) },
        comm,
    )
}

/// `ncclCommGetAsyncError`: the communicator's asynchronous status
/// (`ncclSuccess`, `ncclInProgress` or the failure); `Err` only when the
/// query itself fails.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_get_async_error(comm: ncclComm_t) -> Result<ncclResult_t> {
    let mut status = ncclResult_t::ncclSuccess;
    check(
        "ncclCommGetAsyncError",
        // SAFETY: the caller's contract; `status` is a valid place.
        unsafe { rccl_sys::ncclCommGetAsyncError(comm, &mut status) },
        comm,
    )?;
    Ok(status)
}

/// `ncclCommCount`: the communicator's number of ranks.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_count(comm: ncclComm_t) -> Result<c_int> {
    let mut count = 0;
    check(
        "ncclCommCount",
        // SAFETY: the caller's contract; `count` is a valid place.
        unsafe { rccl_sys::ncclCommCount(comm, &mut count) },
        comm,
    )?;
    Ok(count)
}

/// `ncclCommCuDevice`: the ordinal of the communicator's device.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_cu_device(comm: ncclComm_t) -> Result<c_int> {
    let mut device = 0;
    check(
        "ncclCommCuDevice",
        // SAFETY: the caller's contract; `device` is a valid place.
        unsafe { rccl_sys::ncclCommCuDevice(comm, &mut device) },
        comm,
    )?;
    Ok(device)
}

/// `ncclRedOpCreatePreMulSum`: a reduction of `comm` that multiplies each
/// rank's input by `scalar` before summing.
///
/// # Safety
///
/// `comm` is a live communicator; `scalar` points to one `datatype`
/// value in host memory (`ncclScalarHostImmediate`, read during the call)
/// or device memory of `comm`'s device (`ncclScalarDevice`, read by every
/// collective that uses the reduction until it is destroyed).
pub unsafe fn red_op_create_pre_mul_sum(
    scalar: *mut c_void,
    datatype: ncclDataType_t,
    residence: ncclScalarResidence_t,
    comm: ncclComm_t,
) -> Result<ncclRedOp_t> {
    let mut op = ncclRedOp_t::ncclSum;
    check(
        "ncclRedOpCreatePreMulSum",
        // SAFETY: the caller's contract; `op` is a valid place.
        unsafe { rccl_sys::ncclRedOpCreatePreMulSum(&mut op, scalar, datatype, residence, comm) },
        comm,
    )?;
    Ok(op)
}

/// `ncclRedOpDestroy`: frees a reduction made by
/// [`red_op_create_pre_mul_sum`].
///
/// # Safety
///
/// `op` was made on the live `comm`, and no call using it is still to be
/// enqueued.
pub unsafe fn red_op_destroy(op: ncclRedOp_t, comm: ncclComm_t) -> Result<()> {
    check(
        "ncclRedOpDestroy",
        // SAFETY: the caller's contract.
        unsafe { rccl_sys::ncclRedOpDestroy(op, comm) },
        comm,
    )
}

/// `ncclCommUserRank`: this communicator's rank.
///
/// # Safety
///
/// `comm` is a live communicator.
pub unsafe fn comm_user_rank(comm: ncclComm_t) -> Result<c_int> {
    let mut rank = 0;
    check(
        "ncclCommUserRank",
        // SAFETY: the caller's contract; `rank` is a valid place.
        unsafe { rccl_sys::ncclCommUserRank(comm, &mut rank) },
        comm,
    )?;
    Ok(rank)
}

/// `ncclGroupStart`: later calls of this thread are launched together at
/// [`group_end`].
pub fn group_start() -> Result<()> {
    check(
        "ncclGroupStart",
        // SAFETY: no arguments; the library keeps the group per thread.
        unsafe { rccl_sys::ncclGroupStart() },
        NO_COMM,
    )
}

/// `ncclGroupEnd`: launches the calls of this thread's group.
///
/// # Safety
///
/// A group started on this thread ([`group_start`]) is open; the buffers,
/// places and communicators of its calls are still valid.
pub unsafe fn group_end() -> Result<()> {
    // SAFETY: the caller's contract.
    check("ncclGroupEnd", unsafe { rccl_sys::ncclGroupEnd() }, NO_COMM)
}

/// The `# Safety` of every collective and point-to-point call.
macro_rules! collective {
    ($(#[$doc:meta])* $name:ident, $call:ident, ($($arg:ident: $t:ty),*)) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// `comm` and `stream` are live and on one device; the buffers are
        /// device memory there holding what the call reads and writes for
        /// `count` elements of `datatype`, not used by others until the
        /// stream reaches the call; ranks are below the world size; every
        /// rank makes the matching call.
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name($($arg: $t,)* comm: ncclComm_t, stream: hipStream_t) -> Result<()> {
            // SAFETY: the caller's contract.
            check(stringify!($call), unsafe { rccl_sys::$call($($arg,)* comm, stream) }, comm)
        }
    };
}

collective!(
    /// `ncclAllReduce`: `recv` = the reduction with `op` of every rank's `send`.
    all_reduce,
    ncclAllReduce,
    (send: *const c_void, recv: *mut c_void, count: usize, datatype: ncclDataType_t, op: ncclRedOp_t)
);
collective!(
    /// `ncclBroadcast`: `recv` = `root`'s `send`.
    broadcast,
    ncclBroadcast,
    (send: *const c_void, recv: *mut c_void, count: usize, datatype: ncclDataType_t, root: c_int)
);
collective!(
    /// `ncclReduce`: `root`'s `recv` = the reduction with `op` of every
    /// rank's `send`.
    reduce,
    ncclReduce,
    (
        send: *const c_void,
        recv: *mut c_void,
        count: usize,
        datatype: ncclDataType_t,
        op: ncclRedOp_t,
        root: c_int
    )
);
collective!(
    /// `ncclAllGather`: `recv` = every rank's `send` (`count` each), in
    /// rank order.
    all_gather,
    ncclAllGather,
    (send: *const c_void, recv: *mut c_void, count: usize, datatype: ncclDataType_t)
);
collective!(
    /// `ncclReduceScatter`: `recv` (`count`) = this rank's share of the
    /// reduction with `op` of every rank's `send`.
    reduce_scatter,
    ncclReduceScatter,
    (send: *const c_void, recv: *mut c_void, count: usize, datatype: ncclDataType_t, op: ncclRedOp_t)
);
collective!(
    /// `ncclAllToAll`: `count` elements from each rank to each rank.
    all_to_all,
    ncclAllToAll,
    (send: *const c_void, recv: *mut c_void, count: usize, datatype: ncclDataType_t)
);
collective!(
    /// `ncclSend`: `send` to rank `peer`.
    send,
    ncclSend,
    (send: *const c_void, count: usize, datatype: ncclDataType_t, peer: c_int)
);
collective!(
    /// `ncclRecv`: `recv` from rank `peer`.
    recv,
    ncclRecv,
    (recv: *mut c_void, count: usize, datatype: ncclDataType_t, peer: c_int)
);
