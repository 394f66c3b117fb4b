//! Collectives for HIP programs: RCCL on AMD, NCCL on NVIDIA.
//!
//! The distributed engine is RCCL/NCCL itself; this crate binds it safely.
//! What is here so far is the part every multi-process job needs first and
//! that depends on no GPU library: the [`rendezvous`], which reads the
//! variables `torchrun`, Slurm and `mpirun` set and hands every rank the
//! communicator's unique id over TCP. The communicator and the typed
//! collectives build on `rccl-sys` (RCCL's bindings), which comes next.
//!
//! ```no_run
//! use rccl::rendezvous::{Job, UniqueId};
//! use std::time::Duration;
//!
//! let job = Job::from_env()?;
//! // Rank 0 makes the id (with `ncclGetUniqueId`); the others receive it.
//! let mine = (job.rank == 0).then(|| UniqueId::from_bytes([7; 128]));
//! let id = job.exchange(mine, Duration::from_secs(60))?;
//! println!("rank {} of {} has id {id:?}", job.rank, job.world_size);
//! # Ok::<(), rccl::rendezvous::RendezvousError>(())
//! ```

pub mod rendezvous;
