//! Collectives for HIP programs: RCCL on AMD, NCCL on NVIDIA
//! (`HIP_PLATFORM=nvidia`), over `hip`'s devices, buffers and streams.
//!
//! The distributed engine is RCCL/NCCL itself; this crate binds it safely:
//!
//! - [`Comm`]: one rank of a communicator, on one device; for one process
//!   driving several GPUs ([`Comm::from_devices`]) or one rank per process
//!   ([`Comm::from_rank`] with a [`UniqueId`] sent over any channel, or
//!   [`Comm::from_job`] for jobs launched by `torchrun`, `srun` or
//!   `mpirun`, through the [`rendezvous`]).
//! - Typed collectives on [`Element`] types (f32, f64, f16, bf16, i8, u8,
//!   i32, u32, i64, u64) with a [`ReduceOp`]: all-reduce, broadcast,
//!   reduce, all-gather, reduce-scatter, all-to-all, send/recv, and the
//!   in-place forms. Lengths, ranks and devices are checked before the
//!   library is called ([`Error`] says which).
//! - [`Group`] and [`group`]: calls launched together.
//! - [`result`]: the thin layer under the safe one, one function per
//!   RCCL/NCCL call with the status made a [`Result`]; the only code that
//!   calls the raw bindings ([`sys`]).
//! - Failures of other ranks: [`Comm::async_error`], [`Comm::abort`], and
//!   [`Comm::wait`], which aborts after a timeout, so a dead peer gives an
//!   error, not a hang.
//!
//! ```no_run
//! use hip::Stream;
//! use rccl::{Comm, Job, ReduceOp};
//! use std::time::Duration;
//!
//! // Under `torchrun --nproc-per-node=2 ./my-program`:
//! let job = Job::from_env()?;
//! let device = hip::Device::get(job.local_rank)?;
//! let comm = Comm::from_job(&job, &device, Duration::from_secs(60))?;
//! let stream = Stream::new(&device)?;
//! let mut grads = stream.clone_htod(&vec![1.0f32; 1 << 20])?;
//! comm.all_reduce_in_place(&mut grads, ReduceOp::Avg, &stream)?;
//! comm.wait(&stream, Duration::from_secs(30))?;
//! # Ok::<(), rccl::Error>(())
//! ```
#![deny(missing_docs)]

mod collectives;
mod comm;
mod config;
mod element;
mod error;
mod group;
pub mod rendezvous;
pub mod result;
mod split;
mod validate;

pub use comm::Comm;
pub use config::CommConfig;
pub use element::{Element, ReduceOp};
pub use error::{take_drop_errors, Error, Result};
pub use group::{group, Group};
pub use rendezvous::{Job, Launcher, RendezvousError, UniqueId};
pub use result::version;

/// The raw bindings this crate is built on.
pub use rccl_sys as sys;

/// The README's examples, compiled and run by `cargo test --doc`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
