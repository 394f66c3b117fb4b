//! The raw NCCL names at cudarc's path (`cudarc::nccl::sys`): RCCL's
//! functions, types and constants under their C names (the same as
//! NCCL's), from `rccl-sys`.

pub use crate::driver::CUstream_st;
pub use crate::runtime::cudaStream_t;
pub use rccl::sys::*;
culib_present!("RCCL", loader::is_available());

/// NCCL 2.28's `ncclAlltoAll`: RCCL's [`ncclAllToAll`] (the same
/// operation and arguments: `count` elements from each rank to each
/// rank, block `j` of `sendbuff` to rank `j`, block `i` of `recvbuff`
/// from rank `i`).
///
/// # Safety
///
/// As [`ncclAllToAll`]: `sendbuff` and `recvbuff` are device memory of
/// `count * nranks` elements of `datatype` on `comm`'s device, usable
/// on `stream` until the operation completes, and `comm` is live.
#[allow(non_snake_case)]
pub unsafe fn ncclAlltoAll(
    sendbuff: *const ::core::ffi::c_void,
    recvbuff: *mut ::core::ffi::c_void,
    count: usize,
    datatype: ncclDataType_t,
    comm: ncclComm_t,
    stream: cudaStream_t,
) -> ncclResult_t {
    // SAFETY: the caller's contract is ncclAllToAll's (above).
    unsafe { ncclAllToAll(sendbuff, recvbuff, count, datatype, comm, stream) }
}
