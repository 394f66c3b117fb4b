//! RCCL's `ncclGather`, `ncclScatter`, `ncclAllToAll` and `ncclAllToAllv`
//! over NCCL, which lacks them (NCCL 2.28's own all-to-all is named
//! `ncclAlltoAll`): each is one NCCL group of point-to-point `ncclSend`/
//! `ncclRecv` calls (a rank's transfer to itself included, which NCCL
//! supports), with RCCL's argument meanings:
//!
//! - gather: every rank sends `sendcount` elements to `root`, which receives
//!   rank `r`'s at element `r * sendcount` of `recvbuff`;
//! - scatter: `root` sends elements `r * recvcount ..` of `sendbuff` to rank
//!   `r`, which receives `recvcount` elements into `recvbuff`;
//! - all-to-all: each rank sends elements `r * count ..` of `sendbuff` to
//!   rank `r`, and receives `count` elements from rank `r` at element
//!   `r * count` of `recvbuff`;
//! - all-to-all-v: each rank sends `sendcounts[r]` elements from element
//!   `sdispls[r]` of `sendbuff` to rank `r`, and receives `recvcounts[r]`
//!   elements from rank `r` at element `rdispls[r]` of `recvbuff`.
//!
//! Called inside a caller's group (one thread driving several GPUs), the
//! group here nests, and NCCL runs the transfers at the outer
//! `ncclGroupEnd`, as it would RCCL's own calls.
//!
//! The datatype, communicator and root are checked before any NCCL call
//! (`ncclInvalidArgument`); the NCCL symbols are resolved once through
//! [`NCCL`], which the backend's `load` fills with the library it opened.

use crate::{hipStream_t, ncclComm_t, ncclDataType_t, ncclResult_t};
use hip_sys::loader::common::{LibrarySlot, Symbol};
use std::ffi::{c_int, c_void};

/// NCCL, as the backend opened it.
pub(super) static NCCL: LibrarySlot = LibrarySlot::new("NCCL");
static SEND: Symbol = Symbol::new(&NCCL, c"ncclSend");
static RECV: Symbol = Symbol::new(&NCCL, c"ncclRecv");
static GROUP_START: Symbol = Symbol::new(&NCCL, c"ncclGroupStart");
static GROUP_END: Symbol = Symbol::new(&NCCL, c"ncclGroupEnd");
static COMM_COUNT: Symbol = Symbol::new(&NCCL, c"ncclCommCount");
static COMM_USER_RANK: Symbol = Symbol::new(&NCCL, c"ncclCommUserRank");

type SendFn = unsafe extern "C" fn(
    *const c_void,
    usize,
    ncclDataType_t,
    c_int,
    ncclComm_t,
    hipStream_t,
) -> ncclResult_t;
type RecvFn = unsafe extern "C" fn(
    *mut c_void,
    usize,
    ncclDataType_t,
    c_int,
    ncclComm_t,
    hipStream_t,
) -> ncclResult_t;
type GroupFn = unsafe extern "C" fn() -> ncclResult_t;
type CommIntFn = unsafe extern "C" fn(ncclComm_t, *mut c_int) -> ncclResult_t;

/// NCCL's point-to-point and group functions, typed.
struct P2p {
    send: SendFn,
    recv: RecvFn,
    group_start: GroupFn,
    group_end: GroupFn,
}

/// The NCCL functions the adapters call, or `ncclInvalidUsage` (the
/// crate's "symbol missing" status) when NCCL lacks one (before 2.7).
fn p2p() -> Result<P2p, ncclResult_t> {
    let missing = ncclResult_t::ncclInvalidUsage;
    let (Some(send), Some(recv), Some(start), Some(end)) = (
        SEND.address(),
        RECV.address(),
        GROUP_START.address(),
        GROUP_END.address(),
    ) else {
        return Err(missing);
    };
    // SAFETY: each address is NCCL's function of that name, whose nccl.h
    // declaration is the type it is given here (the same as rccl.h's).
    unsafe {
        Ok(P2p {
            send: std::mem::transmute::<*mut c_void, SendFn>(send),
            recv: std::mem::transmute::<*mut c_void, RecvFn>(recv),
            group_start: std::mem::transmute::<*mut c_void, GroupFn>(start),
            group_end: std::mem::transmute::<*mut c_void, GroupFn>(end),
        })
    }
}

/// `(rank, number of ranks)` of a communicator, from NCCL.
///
/// # Safety
/// `comm` is a live communicator (checked non-null by the caller).
unsafe fn rank_and_count(comm: ncclComm_t) -> Result<(c_int, c_int), ncclResult_t> {
    let (Some(count_fn), Some(rank_fn)) = (COMM_COUNT.address(), COMM_USER_RANK.address()) else {
        return Err(ncclResult_t::ncclInvalidUsage);
    };
    // SAFETY: NCCL's functions of these names, of this type in nccl.h.
    let (count_fn, rank_fn) = unsafe {
        (
            std::mem::transmute::<*mut c_void, CommIntFn>(count_fn),
            std::mem::transmute::<*mut c_void, CommIntFn>(rank_fn),
        )
    };
    let (mut count, mut rank) = (0, 0);
    // SAFETY: the caller's live communicator and two valid out-pointers.
    unsafe {
        count_fn(comm, &mut count).ok()?;
        rank_fn(comm, &mut rank).ok()?;
    }
    Ok((rank, count))
}

/// Bytes per element of a datatype rccl.h declares, `None` for any other
/// value.
pub(super) fn element_size(datatype: ncclDataType_t) -> Option<usize> {
    Some(match datatype {
        ncclDataType_t::ncclInt8 | ncclDataType_t::ncclUint8 => 1,
        ncclDataType_t::ncclFloat16 | ncclDataType_t::ncclBfloat16 => 2,
        ncclDataType_t::ncclInt32 | ncclDataType_t::ncclUint32 | ncclDataType_t::ncclFloat32 => 4,
        ncclDataType_t::ncclInt64 | ncclDataType_t::ncclUint64 | ncclDataType_t::ncclFloat64 => 8,
        _ => return None,
    })
}

/// `base + elements * size` bytes, or `ncclInvalidArgument` when the byte
/// offset overflows. The pointer is a device address: it is only carried
/// to NCCL, never dereferenced here, so `wrapping_add` (no provenance
/// claim) is the right arithmetic.
fn offset(
    base: *const c_void,
    elements: usize,
    size: usize,
) -> Result<*const c_void, ncclResult_t> {
    let bytes = elements
        .checked_mul(size)
        .ok_or(ncclResult_t::ncclInvalidArgument)?;
    Ok(base.cast::<u8>().wrapping_add(bytes).cast())
}

/// Runs `body` between NCCL's group start and end; the first failure is
/// returned, and the group is ended even when a call inside it failed (NCCL
/// requires the end to match the start).
///
/// # Safety
/// `body` makes only NCCL calls valid inside a group.
unsafe fn grouped(p2p: &P2p, body: impl FnOnce(&P2p) -> Result<(), ncclResult_t>) -> ncclResult_t {
    // SAFETY: NCCL's ncclGroupStart, no arguments.
    let started = unsafe { (p2p.group_start)() };
    if started.ok().is_err() {
        return started;
    }
    let inside = body(p2p);
    // SAFETY: NCCL's ncclGroupEnd, matching the start above.
    let ended = unsafe { (p2p.group_end)() };
    match inside {
        Err(e) => e,
        Ok(()) => ended,
    }
}

/// The common checks: a known datatype, a live communicator's rank and
/// size, and `root` among its ranks (`None`: no root).
///
/// # Safety
/// `comm`, when not null, is a live communicator.
unsafe fn checked(
    datatype: ncclDataType_t,
    comm: ncclComm_t,
    root: Option<c_int>,
) -> Result<(usize, c_int, c_int, P2p), ncclResult_t> {
    let invalid = ncclResult_t::ncclInvalidArgument;
    let size = element_size(datatype).ok_or(invalid)?;
    if comm.is_null() {
        return Err(invalid);
    }
    let p2p = p2p()?;
    // SAFETY: the caller's communicator, not null.
    let (rank, count) = unsafe { rank_and_count(comm)? };
    if root.is_some_and(|r| r < 0 || r >= count) {
        return Err(invalid);
    }
    Ok((size, rank, count, p2p))
}

/// `ncclGather` over NCCL (see the module doc).
///
/// # Safety
/// RCCL's contract for `ncclGather`: `sendbuff` holds `sendcount`
/// elements on the communicator's device; on `root`, `recvbuff` holds
/// `nranks * sendcount`; `comm` and `stream` are live.
pub(super) unsafe extern "C" fn gather(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    sendcount: usize,
    datatype: ncclDataType_t,
    root: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's communicator.
    let (size, rank, count, p2p) = match unsafe { checked(datatype, comm, Some(root)) } {
        Ok(c) => c,
        Err(e) => return e,
    };
    // SAFETY: every call is NCCL's with the caller's buffers at offsets
    // inside them (RCCL's contract above).
    unsafe {
        grouped(&p2p, |p| {
            if rank == root {
                for peer in 0..count {
                    let at = offset(recvbuff, peer as usize * sendcount, size)?;
                    (p.recv)(at.cast_mut(), sendcount, datatype, peer, comm, stream).ok()?;
                }
            }
            (p.send)(sendbuff, sendcount, datatype, root, comm, stream).ok()
        })
    }
}

/// `ncclScatter` over NCCL (see the module doc).
///
/// # Safety
/// RCCL's contract for `ncclScatter`: on `root`, `sendbuff` holds
/// `nranks * recvcount` elements; `recvbuff` holds `recvcount` on every
/// rank; `comm` and `stream` are live.
pub(super) unsafe extern "C" fn scatter(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    recvcount: usize,
    datatype: ncclDataType_t,
    root: c_int,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's communicator.
    let (size, rank, count, p2p) = match unsafe { checked(datatype, comm, Some(root)) } {
        Ok(c) => c,
        Err(e) => return e,
    };
    // SAFETY: as for `gather`.
    unsafe {
        grouped(&p2p, |p| {
            if rank == root {
                for peer in 0..count {
                    let at = offset(sendbuff, peer as usize * recvcount, size)?;
                    (p.send)(at, recvcount, datatype, peer, comm, stream).ok()?;
                }
            }
            (p.recv)(recvbuff, recvcount, datatype, root, comm, stream).ok()
        })
    }
}

/// `ncclAllToAll` over NCCL (see the module doc).
///
/// # Safety
/// RCCL's contract for `ncclAllToAll`: both buffers hold `nranks * count`
/// elements on the communicator's device; `comm` and `stream` are live.
pub(super) unsafe extern "C" fn all_to_all(
    sendbuff: *const c_void,
    recvbuff: *mut c_void,
    count: usize,
    datatype: ncclDataType_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's communicator.
    let (size, _rank, ranks, p2p) = match unsafe { checked(datatype, comm, None) } {
        Ok(c) => c,
        Err(e) => return e,
    };
    // SAFETY: as for `gather`.
    unsafe {
        grouped(&p2p, |p| {
            for peer in 0..ranks {
                let at = (peer as usize)
                    .checked_mul(count)
                    .ok_or(ncclResult_t::ncclInvalidArgument)?;
                let from = offset(sendbuff, at, size)?;
                let into = offset(recvbuff, at, size)?;
                (p.send)(from, count, datatype, peer, comm, stream).ok()?;
                (p.recv)(into.cast_mut(), count, datatype, peer, comm, stream).ok()?;
            }
            Ok(())
        })
    }
}

/// `ncclAllToAllv` over NCCL (see the module doc).
///
/// # Safety
/// RCCL's contract for `ncclAllToAllv`: the four arrays hold `nranks`
/// element counts or displacements each, and the buffers hold the elements
/// they name; `comm` and `stream` are live.
#[allow(clippy::too_many_arguments)] // RCCL's signature
pub(super) unsafe extern "C" fn all_to_all_v(
    sendbuff: *const c_void,
    sendcounts: *const usize,
    sdispls: *const usize,
    recvbuff: *mut c_void,
    recvcounts: *const usize,
    rdispls: *const usize,
    datatype: ncclDataType_t,
    comm: ncclComm_t,
    stream: hipStream_t,
) -> ncclResult_t {
    if [sendcounts, sdispls, recvcounts, rdispls]
        .iter()
        .any(|p| p.is_null())
    {
        return ncclResult_t::ncclInvalidArgument;
    }
    // SAFETY: the caller's communicator.
    let (size, _rank, count, p2p) = match unsafe { checked(datatype, comm, None) } {
        Ok(c) => c,
        Err(e) => return e,
    };
    let n = count as usize;
    // SAFETY: the caller's arrays hold `nranks` values each (not null,
    // checked above).
    let (sendcounts, sdispls, recvcounts, rdispls) = unsafe {
        (
            std::slice::from_raw_parts(sendcounts, n),
            std::slice::from_raw_parts(sdispls, n),
            std::slice::from_raw_parts(recvcounts, n),
            std::slice::from_raw_parts(rdispls, n),
        )
    };
    // SAFETY: as for `gather`.
    unsafe {
        grouped(&p2p, |p| {
            for peer in 0..count {
                let i = peer as usize;
                let from = offset(sendbuff, sdispls[i], size)?;
                let into = offset(recvbuff, rdispls[i], size)?;
                (p.send)(from, sendcounts[i], datatype, peer, comm, stream).ok()?;
                (p.recv)(into.cast_mut(), recvcounts[i], datatype, peer, comm, stream).ok()?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_sizes_are_rccls() {
        assert_eq!(element_size(ncclDataType_t::ncclChar), Some(1));
        assert_eq!(element_size(ncclDataType_t::ncclBfloat16), Some(2));
        assert_eq!(element_size(ncclDataType_t::ncclHalf), Some(2));
        assert_eq!(element_size(ncclDataType_t::ncclFloat), Some(4));
        assert_eq!(element_size(ncclDataType_t::ncclUint64), Some(8));
        assert_eq!(element_size(ncclDataType_t::ncclDouble), Some(8));
        assert_eq!(element_size(ncclDataType_t::ncclNumTypes), None);
        assert_eq!(element_size(ncclDataType_t(42)), None);
    }

    #[test]
    fn offsets_are_in_bytes_and_overflow_is_rejected() {
        let base = 0x1000 as *const c_void;
        assert_eq!(offset(base, 3, 4).unwrap() as usize, 0x100c);
        assert_eq!(
            offset(base, usize::MAX, 2),
            Err(ncclResult_t::ncclInvalidArgument)
        );
    }

    /// Bad arguments are refused before NCCL is needed (no library is
    /// loaded in unit tests: a call that reached NCCL would return
    /// `ncclInvalidUsage`, the symbol-missing status, instead).
    #[test]
    fn bad_arguments_are_rejected_before_nccl() {
        let null: *mut c_void = std::ptr::null_mut();
        let comm_null: ncclComm_t = std::ptr::null_mut();
        let no_stream: hipStream_t = std::ptr::null_mut();
        let float = ncclDataType_t::ncclFloat32;
        // SAFETY: the adapters return before touching any pointer.
        unsafe {
            let invalid = ncclResult_t::ncclInvalidArgument;
            assert_eq!(
                gather(null, null, 1, float, 0, comm_null, no_stream),
                invalid
            );
            assert_eq!(
                scatter(null, null, 1, float, 0, comm_null, no_stream),
                invalid
            );
            let bad_type = ncclDataType_t(42);
            let comm = 0x10 as ncclComm_t;
            assert_eq!(gather(null, null, 1, bad_type, 0, comm, no_stream), invalid);
            let counts = [1usize; 2];
            assert_eq!(
                all_to_all_v(
                    null,
                    std::ptr::null(),
                    counts.as_ptr(),
                    null,
                    counts.as_ptr(),
                    counts.as_ptr(),
                    float,
                    comm,
                    no_stream
                ),
                invalid
            );
            let bad = ncclDataType_t(42);
            assert_eq!(all_to_all(null, null, 1, bad, comm, no_stream), invalid);
            assert_eq!(
                all_to_all(null, null, 1, float, comm_null, no_stream),
                invalid
            );
            // A well-formed call with NCCL absent: the symbol-missing status.
            assert_eq!(
                scatter(null, null, 1, float, 0, comm, no_stream),
                ncclResult_t::ncclInvalidUsage
            );
        }
    }
}
