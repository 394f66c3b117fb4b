//! Communicators made with settings or from another communicator, and
//! their orderly end: `ncclCommInitRankConfig`, `ncclCommSplit`,
//! `ncclCommFinalize` (NCCL 2.14 to 2.18, and a current RCCL; RCCL 5.4.3
//! lacks them, and these methods then return [`Error::Unsupported`]).

use crate::comm::raw_id;
use crate::config::CommConfig;
use crate::error::{Error, Result};
use crate::group::group;
use crate::result::{self, library};
use crate::validate;
use crate::{Comm, UniqueId};
use hip::Device;
use rccl_sys::ncclComm_t;
use std::ffi::c_int;
use std::sync::Arc;

/// `Err` when the loaded library lacks `function` (an RCCL older than the
/// NCCL API that added it), before anything is called.
fn require(operation: &'static str, function: &'static str) -> Result<()> {
    let lib = library()?;
    if lib.is_available(function) {
        return Ok(());
    }
    Err(Error::Unsupported {
        operation,
        reason: format!(
            "{function} is missing from {} (version {}); it needs a current RCCL (ROCm 6) or NCCL",
            lib.libraries.first().map_or_else(
                || "the library".to_string(),
                |p| p.path.display().to_string()
            ),
            lib.version
                .map_or_else(|| "unknown".to_string(), |v| v.to_string()),
        ),
    })
}

/// A split's color (`None`: `NCCL_SPLIT_NOCOLOR`) and key as the C API's
/// ints.
fn color_and_key(
    operation: &'static str,
    color: Option<u32>,
    key: usize,
) -> Result<(c_int, c_int)> {
    let color = match color {
        None => rccl_sys::NCCL_SPLIT_NOCOLOR,
        Some(c) => c_int::try_from(c).map_err(|_| Error::Invalid {
            operation,
            reason: format!("color {c} does not fit the C API's int"),
        })?,
    };
    let key = c_int::try_from(key).map_err(|_| Error::Invalid {
        operation,
        reason: format!("key {key} does not fit the C API's int"),
    })?;
    Ok((color, key))
}

/// A communicator the library has finished making: its size and this
/// rank asked of it (`ncclCommCount`, `ncclCommUserRank`). On an error the
/// communicator is aborted, so nothing leaks.
fn adopt(raw: ncclComm_t, device: &Arc<Device>) -> Result<Comm> {
    // SAFETY: `raw` is a live communicator the library made (its group has
    // ended).
    let queried = unsafe { result::comm_count(raw) }
        .and_then(|count| Ok((count, unsafe { result::comm_user_rank(raw) }?)));
    let sizes =
        queried.and_then(
            |(count, rank)| match (usize::try_from(rank), usize::try_from(count)) {
                (Ok(r), Ok(n)) if r < n => Ok((r, n)),
                _ => Err(Error::Unsupported {
                    operation: "Comm::split",
                    reason: format!("the library reported rank {rank} of {count}"),
                }),
            },
        );
    match sizes {
        Ok((rank, world_size)) => Ok(Comm::from_parts(raw, device, rank, world_size)),
        Err(e) => {
            // SAFETY: `raw` is live and never used again.
            let _ = unsafe { result::comm_abort(raw) };
            Err(e)
        }
    }
}

impl Comm {
    /// `ncclCommInitRankConfig`: [`Comm::from_rank`] with `config`'s
    /// settings (blocking, thread blocks, network).
    ///
    /// Rejected before the call: `world_size` 0, `rank >= world_size`, a
    /// config field the library would reject; [`Error::Unsupported`] when
    /// the library lacks the call (RCCL before ROCm 6).
    ///
    /// ```no_run
    /// use rccl::{Comm, CommConfig, UniqueId};
    /// let device = hip::Device::get(0)?;
    /// let id = UniqueId::new()?;
    /// let config = CommConfig { max_ctas: Some(8), ..Default::default() };
    /// let comm = Comm::from_rank_with_config(&device, &id, 0, 1, &config)?;
    /// assert_eq!(comm.world_size(), 1);
    /// # Ok::<(), rccl::Error>(())
    /// ```
    pub fn from_rank_with_config(
        device: &Arc<Device>,
        id: &UniqueId,
        rank: usize,
        world_size: usize,
        config: &CommConfig,
    ) -> Result<Comm> {
        const OP: &str = "Comm::from_rank_with_config";
        let n = validate::world_size(OP, world_size)?;
        let r = validate::rank(OP, "rank", rank, world_size)?;
        let mut raw_config = config.to_raw(OP)?;
        require(OP, "ncclCommInitRankConfig")?;
        device.bind()?;
        // SAFETY: `raw_config` (and the name it points to) lives across
        // the call; the rank's device is current.
        let raw =
            unsafe { result::comm_init_rank_config(n, raw_id(id), r, raw_config.as_mut_ptr()) }?;
        Ok(Comm::from_parts(raw, device, rank, world_size))
    }

    /// `ncclCommSplit`: the ranks of this communicator that give the same
    /// `color` form a new one, ordered by `key` (ties by their rank here);
    /// `None` as the color (`NCCL_SPLIT_NOCOLOR`) joins none, and this rank
    /// gets `None`. The new communicator keeps this one's settings and
    /// device. Every rank of this communicator must call it.
    ///
    /// For one rank per process. A process driving several ranks uses
    /// [`Comm::split_all`], which groups the calls as NCCL requires; do not
    /// call this inside a [`crate::group`] (the new communicator is only
    /// made when the group ends).
    ///
    /// Rejected before the call: a color or key above `i32::MAX`, an
    /// aborted communicator; [`Error::Unsupported`] when the library lacks
    /// the call.
    ///
    /// ```no_run
    /// # fn f(comm: &rccl::Comm) -> rccl::Result<()> {
    /// // Even and odd ranks apart, in the same order.
    /// let half = comm.split(Some((comm.rank() % 2) as u32), comm.rank())?;
    /// assert!(half.is_some());
    /// # Ok(()) }
    /// ```
    pub fn split(&self, color: Option<u32>, key: usize) -> Result<Option<Comm>> {
        let mut split = Comm::split_all(std::slice::from_ref(self), &[color], &[key])?;
        Ok(split.pop().flatten())
    }

    /// `ncclCommSplit` for several ranks of one process, in one group:
    /// `comms[i]` splits with `colors[i]` and `keys[i]` (see
    /// [`Comm::split`]); the result's `i`th entry is its new communicator.
    ///
    /// Rejected before the call: lengths that differ, an empty list, a
    /// color or key above `i32::MAX`, an aborted communicator.
    ///
    /// ```no_run
    /// let comms = rccl::Comm::from_devices(&hip::Device::all()?)?;
    /// // Every rank alone: colors all different.
    /// let colors: Vec<Option<u32>> = (0..comms.len() as u32).map(Some).collect();
    /// let keys = vec![0; comms.len()];
    /// let alone = rccl::Comm::split_all(&comms, &colors, &keys)?;
    /// assert!(alone.iter().all(|c| c.as_ref().unwrap().world_size() == 1));
    /// # Ok::<(), rccl::Error>(())
    /// ```
    pub fn split_all(
        comms: &[Comm],
        colors: &[Option<u32>],
        keys: &[usize],
    ) -> Result<Vec<Option<Comm>>> {
        const OP: &str = "Comm::split";
        if comms.is_empty() || colors.len() != comms.len() || keys.len() != comms.len() {
            return Err(Error::Invalid {
                operation: OP,
                reason: format!(
                    "{} communicators, {} colors and {} keys: one of each per communicator, at least one",
                    comms.len(),
                    colors.len(),
                    keys.len()
                ),
            });
        }
        let mut args = Vec::with_capacity(comms.len());
        for ((comm, &color), &key) in comms.iter().zip(colors).zip(keys) {
            args.push((comm.live(OP)?, color_and_key(OP, color, key)?));
        }
        require(OP, "ncclCommSplit")?;
        let mut children: Vec<ncclComm_t> = vec![std::ptr::null_mut(); comms.len()];
        let grouped = group(|| {
            for ((comm, &(raw, (color, key))), child) in
                comms.iter().zip(&args).zip(children.iter_mut())
            {
                comm.device().bind()?;
                // SAFETY: `raw` is live (checked above); `child` is a valid
                // place for the new communicator; a null config inherits
                // the parent's; the parent's device is current.
                unsafe { result::comm_split(raw, color, key, child, std::ptr::null_mut()) }?;
            }
            Ok(())
        });
        let mut out = Vec::with_capacity(comms.len());
        let mut first_error = grouped.err();
        for (comm, child) in comms.iter().zip(children) {
            if child.is_null() {
                out.push(None);
            } else if first_error.is_some() {
                // SAFETY: the library made `child`; it is never used again.
                let _ = unsafe { result::comm_abort(child) };
            } else {
                match adopt(child, comm.device()) {
                    Ok(c) => out.push(Some(c)),
                    Err(e) => first_error = Some(e),
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// `ncclCommFinalize`, then `ncclCommDestroy`: NCCL's orderly end.
    /// Finalizing waits for the communicator's pending work and releases
    /// what it shares with its peers (every rank finalizes); destroying
    /// then frees the local rest. Dropping a [`Comm`] only destroys it.
    /// The first error of either step is returned.
    ///
    /// For one rank per process; a process driving several ranks uses
    /// [`Comm::finalize_all`] (one group, as NCCL requires).
    pub fn finalize(self) -> Result<()> {
        Comm::finalize_all(vec![self])
    }

    /// [`Comm::finalize`] for several ranks of one process: every
    /// `ncclCommFinalize` in one group, then every `ncclCommDestroy`.
    /// Aborted communicators are only dropped.
    ///
    /// ```no_run
    /// let comms = rccl::Comm::from_devices(&hip::Device::all()?)?;
    /// rccl::Comm::finalize_all(comms)?;
    /// # Ok::<(), rccl::Error>(())
    /// ```
    pub fn finalize_all(comms: Vec<Comm>) -> Result<()> {
        const OP: &str = "Comm::finalize";
        let live: Vec<&Comm> = comms.iter().filter(|c| c.live(OP).is_ok()).collect();
        if live.is_empty() {
            return Ok(());
        }
        require(OP, "ncclCommFinalize")?;
        let finalized = group(|| {
            for comm in &live {
                comm.device().bind()?;
                // SAFETY: the communicator is live (filtered above) and
                // owned by `comms`, which this function consumes.
                unsafe { result::comm_finalize(comm.as_raw()) }?;
            }
            Ok(())
        });
        let mut first_error = finalized.err();
        for comm in &live {
            if let Err(e) = comm.destroy() {
                first_error.get_or_insert(e);
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
