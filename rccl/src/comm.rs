//! The communicator: one rank of a collective group, on one device.

use crate::error::DROP_ERRORS;
use crate::error::{Error, Result};
use crate::rendezvous::{Job, UniqueId, UNIQUE_ID_BYTES};
use crate::result::{self, library};
use crate::validate;
use hip::{Device, Stream};
use rccl_sys::{ncclComm_t, ncclUniqueId};
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Records `r`'s error, if any, for [`take_drop_errors`](crate::take_drop_errors).
pub(crate) fn record_drop_result(r: Result<()>) {
    DROP_ERRORS.record_result(r);
}

impl UniqueId {
    /// `ncclGetUniqueId`: a fresh communicator id, made by rank 0 and given
    /// to every rank (e.g. by [`Job::exchange`]). It holds rank 0's
    /// address for the library's own bootstrap.
    ///
    /// ```no_run
    /// let id = rccl::UniqueId::new()?;
    /// println!("{id:?}");
    /// # Ok::<(), rccl::Error>(())
    /// ```
    pub fn new() -> Result<UniqueId> {
        library()?;
        let raw = result::get_unique_id()?;
        Ok(UniqueId::from_bytes(raw.internal.map(|c| c as u8)))
    }
}

pub(crate) fn raw_id(id: &UniqueId) -> ncclUniqueId {
    let bytes: &[u8; UNIQUE_ID_BYTES] = id.as_bytes();
    ncclUniqueId {
        internal: bytes.map(|b| b as std::ffi::c_char),
    }
}

/// One rank of a communicator (`ncclComm_t`), on one device.
///
/// Made for every GPU of this process at once ([`Comm::from_devices`]),
/// or one per process ([`Comm::from_rank`], [`Comm::from_job`]). The
/// collectives are in this type's other methods; each checks its
/// arguments (lengths, ranks, devices) before calling the library, and
/// enqueues on a [`hip::Stream`] of the communicator's device.
///
/// **One thread drives several communicators only inside a group**
/// ([`crate::group`]): RCCL launches a collective on each device when the
/// group ends, and without the group the first call may wait for the
/// others, which this thread has not made yet.
///
/// Dropping it destroys it (`ncclCommDestroy`, or nothing after
/// [`Comm::abort`]); an error there goes to [`take_drop_errors`](crate::take_drop_errors). It holds
/// its device's `Arc`.
///
/// **Threads**: `Send`, not `Sync`: NCCL's communicators may move between
/// threads, but two threads must not use one at the same time.
pub struct Comm {
    raw: ncclComm_t,
    device: Arc<Device>,
    rank: usize,
    world_size: usize,
    /// Set by [`Comm::abort`]: `raw` is freed, and nothing may use it.
    aborted: Cell<bool>,
}

// SAFETY: an `ncclComm_t` may be used from any thread, one at a time; the
// `Cell` (which makes `Comm` `!Sync`) keeps it to one thread at a time.
unsafe impl Send for Comm {}

impl fmt::Debug for Comm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Comm")
            .field("rank", &self.rank)
            .field("world_size", &self.world_size)
            .field("device", &self.device.ordinal())
            .field("aborted", &self.aborted.get())
            .finish()
    }
}

impl Comm {
    /// `ncclCommInitAll`: one communicator per device, for one process
    /// driving them all; rank `i` is on `devices[i]`.
    ///
    /// Rejected before the call: an empty list, or a device listed twice.
    ///
    /// ```no_run
    /// let comms = rccl::Comm::from_devices(&hip::Device::all()?)?;
    /// assert_eq!(comms[1].rank(), 1);
    /// # Ok::<(), rccl::Error>(())
    /// ```
    pub fn from_devices(devices: &[Arc<Device>]) -> Result<Vec<Comm>> {
        const OP: &str = "Comm::from_devices";
        let ordinals: Vec<usize> = devices.iter().map(|d| d.ordinal()).collect();
        let list = validate::device_list(OP, &ordinals)?;
        library()?;
        let raws = result::comm_init_all(&list)?;
        let world_size = devices.len();
        Ok(raws
            .into_iter()
            .zip(devices)
            .enumerate()
            .map(|(rank, (raw, device))| Comm {
                raw,
                device: Arc::clone(device),
                rank,
                world_size,
                aborted: Cell::new(false),
            })
            .collect())
    }

    /// `ncclCommInitRank`: this process's rank `rank` of `world_size`, on
    /// `device`, joining the communicator of `id` (which every rank must
    /// share: [`UniqueId::new`] on one, sent to the others over any
    /// channel). Blocks until every rank has joined.
    ///
    /// Rejected before the call: `world_size` 0, `rank >= world_size`.
    ///
    /// ```no_run
    /// use rccl::{Comm, UniqueId};
    /// let device = hip::Device::get(0)?;
    /// let id = UniqueId::new()?; // rank 0; the others receive it
    /// let comm = Comm::from_rank(&device, &id, 0, 1)?;
    /// assert_eq!(comm.world_size(), 1);
    /// # Ok::<(), rccl::Error>(())
    /// ```
    pub fn from_rank(
        device: &Arc<Device>,
        id: &UniqueId,
        rank: usize,
        world_size: usize,
    ) -> Result<Comm> {
        const OP: &str = "Comm::from_rank";
        let n = validate::world_size(OP, world_size)?;
        let r = validate::rank(OP, "rank", rank, world_size)?;
        library()?;
        device.bind()?;
        // The device is current (the rank's device).
        let raw = result::comm_init_rank(n, raw_id(id), r)?;
        Ok(Comm {
            raw,
            device: Arc::clone(device),
            rank,
            world_size,
            aborted: Cell::new(false),
        })
    }

    /// This process's rank of a launched job: rank 0 makes the id
    /// ([`UniqueId::new`]), [`Job::exchange`] gives it to every rank (each
    /// step within `timeout`), then [`Comm::from_rank`].
    ///
    /// ```no_run
    /// use rccl::{Comm, Job};
    /// use std::time::Duration;
    /// let job = Job::from_env()?; // torchrun, srun or mpirun set it
    /// let device = hip::Device::get(job.local_rank)?;
    /// let comm = Comm::from_job(&job, &device, Duration::from_secs(60))?;
    /// println!("rank {} of {}", comm.rank(), comm.world_size());
    /// # Ok::<(), rccl::Error>(())
    /// ```
    pub fn from_job(job: &Job, device: &Arc<Device>, timeout: Duration) -> Result<Comm> {
        const OP: &str = "Comm::from_job";
        validate::world_size(OP, job.world_size)?;
        validate::rank(OP, "rank", job.rank, job.world_size)?;
        let mine = if job.rank == 0 {
            Some(UniqueId::new()?)
        } else {
            None
        };
        let id = job.exchange(mine, timeout)?;
        Comm::from_rank(device, &id, job.rank, job.world_size)
    }

    /// This rank, `0..world_size()`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// How many ranks the communicator has.
    pub fn world_size(&self) -> usize {
        self.world_size
    }

    /// The device of this rank.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The raw communicator, for calls this crate does not wrap. It stays
    /// owned by `self`; after [`Comm::abort`] it is freed.
    pub fn as_raw(&self) -> ncclComm_t {
        self.raw
    }

    /// Takes ownership of a live communicator made by the library.
    pub(crate) fn from_parts(
        raw: ncclComm_t,
        device: &Arc<Device>,
        rank: usize,
        world_size: usize,
    ) -> Comm {
        Comm {
            raw,
            device: Arc::clone(device),
            rank,
            world_size,
            aborted: Cell::new(false),
        }
    }

    /// `ncclCommDestroy` now, returning its error (instead of recording it
    /// as `Drop` does); afterwards the communicator counts as freed.
    pub(crate) fn destroy(&self) -> Result<()> {
        let raw = self.live("Comm::destroy")?;
        self.device.bind()?;
        self.aborted.set(true);
        // SAFETY: the communicator is live and is never used again (it is
        // marked freed above).
        unsafe { result::comm_destroy(raw) }
    }

    /// The communicator, or an error once it was aborted.
    pub(crate) fn live(&self, operation: &'static str) -> Result<ncclComm_t> {
        if self.aborted.get() {
            return Err(Error::Unsupported {
                operation,
                reason: "the communicator was aborted (Comm::abort or a timed-out Comm::wait); make a new one".to_string(),
            });
        }
        Ok(self.raw)
    }

    /// `ncclCommAbort`: stops the communicator's pending work and frees
    /// it, without waiting for the other ranks. Every later call on it
    /// returns an error; aborting twice does nothing.
    pub fn abort(&self) -> Result<()> {
        if self.aborted.get() {
            return Ok(());
        }
        library()?;
        self.device.bind()?;
        self.aborted.set(true);
        // SAFETY: the communicator is live (not aborted before), and is
        // never used again.
        unsafe { result::comm_abort(self.raw) }
    }

    /// `ncclCommGetAsyncError`: `Err` when the communicator has failed
    /// (e.g. a peer died, `ncclRemoteError`, or a network error); the
    /// communicator should then be aborted.
    pub fn async_error(&self) -> Result<()> {
        let raw = self.live("Comm::async_error")?;
        // SAFETY: the communicator is live.
        let status = unsafe { result::comm_get_async_error(raw) }?;
        // 7 is `ncclInProgress` in NCCL 2.14+: still working, not failed.
        if status.is_success() || status.0 == 7 {
            return Ok(());
        }
        Err(Error::Nccl {
            call: "ncclCommGetAsyncError",
            status,
            message: result::message(status, raw),
        })
    }

    /// Waits for the work enqueued on `stream` so far, polling the stream
    /// (`hipStreamQuery`) and [`Comm::async_error`], for at most `timeout`.
    /// When the communicator or the stream fails, or the time is up, it
    /// aborts the
    /// communicator ([`Comm::abort`]: the pending collectives stop) and
    /// returns the error ([`Error::Timeout`] for the time): a dead peer
    /// gives an error, not a hang.
    ///
    /// What it cannot bound: the library connects two ranks at their first
    /// collective together, in a handshake on the host inside the
    /// enqueueing call (NCCL's lazy connection setup; `NCCL_RUNTIME_CONNECT=0`
    /// moves it into the communicator's creation). A peer that dies before
    /// its first collective can leave that call waiting; once the ranks have
    /// run one collective together, a dead peer stalls only the device, and
    /// this wait ends it.
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # fn f(comm: &rccl::Comm, buf: &mut hip::DeviceBuffer<f32>, stream: &hip::Stream) -> rccl::Result<()> {
    /// comm.all_reduce_in_place(buf, rccl::ReduceOp::Sum, stream)?;
    /// comm.wait(stream, Duration::from_secs(30))?;
    /// # Ok(()) }
    /// ```
    pub fn wait(&self, stream: &Stream, timeout: Duration) -> Result<()> {
        const OP: &str = "Comm::wait";
        self.live(OP)?;
        validate::same_device(
            OP,
            "the stream",
            stream.device().ordinal(),
            self.device.ordinal(),
        )?;
        let start = Instant::now();
        let mut pause = Duration::from_micros(50);
        loop {
            match stream.query() {
                Ok(true) => return self.async_error(),
                Ok(false) => {}
                Err(e) => {
                    // The stream failed (e.g. a peer's memory vanished):
                    // the communicator's work cannot finish either.
                    let _ = self.abort();
                    return Err(e.into());
                }
            }
            if let Err(e) = self.async_error() {
                // A failure the library saw: stop the stuck work, then
                // report the failure (the abort's own error is secondary).
                let _ = self.abort();
                return Err(e);
            }
            if start.elapsed() >= timeout {
                let abort_error = self.abort().err().map(|e| e.to_string());
                return Err(Error::Timeout {
                    operation: OP,
                    timeout,
                    abort_error,
                });
            }
            std::thread::sleep(pause.min(timeout.saturating_sub(start.elapsed())));
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        if self.aborted.get() || self.raw.is_null() {
            return;
        }
        let r = self.device.bind().map_err(Error::from).and_then(|()| {
            // SAFETY: the communicator is live and owned by `self`, which
            // no one uses again.
            unsafe { result::comm_destroy(self.raw) }
        });
        record_drop_result(r);
    }
}
