//! NCCL over RCCL (NCCL itself on the NVIDIA platform), in cudarc's
//! layout: the raw C names ([`sys`], also here: `ncclAllReduce`, ...,
//! identical to NCCL's, since RCCL keeps them), the [`result`] layer, and
//! cudarc's safe [`Comm`] on [`CudaStream`](crate::driver::CudaStream)
//! and [`CudaSlice`](crate::driver::CudaSlice), built on the `rccl`
//! crate's checked communicator.
//!
//! Behind the `nccl` feature, as in cudarc. Where it differs from cudarc:
//!
//! - RCCL 5.4's API is NCCL 2.13's: the NCCL 2.14 to 2.28 names it lacks
//!   (`ncclCommShrink`, the window and parameter APIs, ...) are not here,
//!   each listed with its reason in `cuda-compat/cudarc-api-residue.tsv`.
//!   `ncclCommFinalize`, `ncclCommSplit` and `ncclCommInitRankConfig` are
//!   (rccl-sys binds them, and [`result`] wraps them), and NCCL 2.28's
//!   `ncclAlltoAll` is RCCL's `ncclAllToAll`.
//! - The safe calls check lengths, ranks and devices before the library
//!   and return `NcclError(ncclInvalidArgument)` where cudarc would pass
//!   them on (or `debug_assert!`); a missing library is
//!   `NcclError(ncclSystemError)`.
//! - [`Comm`] destroys its communicator when dropped (`ncclCommDestroy`;
//!   cudarc aborts it) and never panics there.
//!
//! ```no_run
//! use cuda_compat::driver::CudaContext;
//! use cuda_compat::nccl::{group_end, group_start, Comm, ReduceOp};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let streams = (0..2)
//!     .map(|i| Ok(CudaContext::new(i)?.default_stream()))
//!     .collect::<Result<Vec<_>, cuda_compat::driver::DriverError>>()?;
//! let comms = Comm::from_devices(streams).map_err(|e| format!("{e:?}"))?;
//! let mut bufs = Vec::new();
//! for c in &comms {
//!     bufs.push(c.stream().clone_htod(&[c.rank() as f32 + 1.0; 4])?);
//! }
//! group_start().map_err(|e| format!("{e:?}"))?;
//! for (c, b) in comms.iter().zip(&mut bufs) {
//!     c.all_reduce_in_place(b, &ReduceOp::Sum).map_err(|e| format!("{e:?}"))?;
//! }
//! group_end().map_err(|e| format!("{e:?}"))?;
//! # Ok(()) }
//! ```

pub mod result;
pub mod safe;

pub mod sys;

pub use safe::*;
pub use sys::{
    ncclAllGather, ncclAllReduce, ncclAllToAll, ncclAllToAllv, ncclBcast, ncclBroadcast, ncclComm,
    ncclCommAbort, ncclCommCount, ncclCommCuDevice, ncclCommDeregister, ncclCommDestroy,
    ncclCommFinalize, ncclCommGetAsyncError, ncclCommInitAll, ncclCommInitRank,
    ncclCommInitRankConfig, ncclCommInitRankMulti, ncclCommRegister, ncclCommSplit,
    ncclCommUserRank, ncclComm_t, ncclConfig_t, ncclDataType_t, ncclGather, ncclGetErrorString,
    ncclGetLastError, ncclGetUniqueId, ncclGetVersion, ncclGroupEnd, ncclGroupStart, ncclMemAlloc,
    ncclMemFree, ncclRecv, ncclRedOpCreatePreMulSum, ncclRedOpDestroy, ncclRedOp_t, ncclReduce,
    ncclReduceScatter, ncclResult_t, ncclScalarResidence_t, ncclScatter, ncclSend, ncclUniqueId,
    NCCL_SPLIT_NOCOLOR, NCCL_UNIQUE_ID_BYTES,
};
