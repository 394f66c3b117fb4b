//! How copies between ordinary (pageable) host memory and the device are
//! staged through reused pinned buffers, and the knobs for measuring it.
//!
//! Nothing here is needed to copy: [`Stream::copy_htod`] and
//! [`Stream::copy_dtoh`] stage large copies of ordinary memory by
//! themselves. This module holds the thresholds ([`CHUNK_BYTES`],
//! [`MIN_BYTES`]), the alternative strategies ([`StagingStrategy`]) and the
//! copies that take one explicitly ([`copy_htod_with`], [`copy_dtoh_with`]),
//! for benchmarks, and the copies between raw addresses
//! ([`copy_htod_pageable`], [`copy_dtoh_pageable`]) for layers that keep
//! their own account of device memory, such as `cuda-compat`.
//!
//! A copy from pageable memory cannot be done by the GPU's DMA engines
//! directly: the runtime copies through its own small staging buffers one
//! piece at a time, which reaches a fraction of the link's bandwidth
//! (the measurements are in `benches/NOTES.md`, "Staging of pageable
//! copies").
//!
//! Here a copy is cut into chunks of [`CHUNK_BYTES`] (smaller ones
//! first, so that the pipeline fills quickly) that go through a ring of
//! pinned buffers. The calling thread alone talks to the
//! runtime: it enqueues one `hipMemcpyAsync` per chunk, in address order,
//! on the caller's stream, and records an event after each. The host-side
//! `memcpy` between the caller's memory and the pinned buffers (one thread
//! alone moves a fraction of the link's bandwidth) is cut into pieces that a pool of persistent
//! host threads copies in parallel, several chunks ahead of the DMA
//! (host-to-device) or right behind it (device-to-host). Those threads
//! never call the runtime, so they pay no per-thread runtime setup, and
//! they live for the whole process, so a copy starts no thread.
//!
//! The pinned rings are allocated on first use (`hipHostMalloc`) and kept
//! in a pool per device for the life of the process, so steady-state copies
//! allocate nothing. Copies below [`MIN_BYTES`] go directly, and so does
//! a staged copy that cannot allocate a ring (page-locked memory
//! exhausted): slower, never an error of its own.
//!
//! The number of host copy threads is at most 12 and two
//! less than the processors available; the environment variable
//! `HIP_STAGING_THREADS` (read once, on the first staged copy) sets it
//! instead, for measuring. A copy never waits for a thread that is not
//! there: while it waits for its host pieces, the calling thread copies
//! queued pieces itself.
//!
//! Two other ways to make a large pageable copy can be chosen with the
//! environment variable `HIP_STAGING_STRATEGY` (read once), or per copy
//! ([`copy_htod_with`]), for measuring them against the
//! default on a given machine ([`StagingStrategy`]): the same ring with
//! the host pieces written by non-temporal stores (`ring-nt`), and
//! page-locking the caller's memory for the copy (`register`).

mod chunks;
mod pool;
mod ring;
mod stores;

use super::{
    check_device, check_same_len, checked_bytes, DeviceMemory, DeviceMemoryMut, DeviceRepr,
};
use crate::error::{Error, Result};
use crate::result;
use crate::stream::Stream;
use hip_sys as sys;
use ring::copy_staged;
#[doc(hidden)]
pub use ring::{fail_next_pinned_allocations, pinned_failures_armed};
use std::sync::OnceLock;
use stores::Stores;

/// Bytes per staging chunk (one DMA): large enough that each DMA runs near
/// full speed, small enough that the first DMA starts soon after the copy
/// does.
pub const CHUNK_BYTES: usize = 4 << 20;

/// Copies of fewer bytes go directly: below this, staging costs more than
/// it saves.
pub const MIN_BYTES: usize = 4 << 20;

/// How a pageable copy of [`MIN_BYTES`] or more is made. The
/// default comes from the environment variable `HIP_STAGING_STRATEGY`
/// (`ring`, `ring-nt` or `register`; read once), else [`StagingStrategy::Ring`].
/// The alternatives are there to be measured against the default
/// (`copy_bandwidth` in `benches` runs all three side by side).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StagingStrategy {
    /// Through a ring of reused pinned buffers, the host half copied by
    /// the host threads with ordinary `memcpy` (the default; the last 16
    /// MiB of a host-to-device copy are then moved out of the writing
    /// cores' private caches with `cldemote`, or written with streaming
    /// stores where the processor lacks it, which their DMAs read faster).
    Ring,
    /// The same ring, the host pieces written with non-temporal (streaming)
    /// stores on x86-64: writing a destination then costs no read of it
    /// into the cache first (a third of the memory traffic of an ordinary
    /// copy), which matters when the host memcpy, not the DMA, is the
    /// bottleneck. Elsewhere the same as `Ring`.
    RingNonTemporal,
    /// Page-locks the caller's memory for the copy (`hipHostRegister`),
    /// makes one DMA straight from or into it, and unlocks it
    /// (`hipHostUnregister`): no host copy at all, but registration costs
    /// time per page. When the memory cannot be registered (e.g. a page
    /// another copy has registered), the copy goes through the ring.
    Register,
}

impl StagingStrategy {
    /// The strategy named by `HIP_STAGING_STRATEGY` (read once), or
    /// [`StagingStrategy::Ring`] when it is not set. Another value is an
    /// error naming the accepted ones (an override that silently fell back
    /// would hide the mistake it was set to explore).
    pub fn from_env() -> Result<StagingStrategy> {
        static CHOSEN: OnceLock<std::result::Result<StagingStrategy, String>> = OnceLock::new();
        CHOSEN
            .get_or_init(|| match std::env::var("HIP_STAGING_STRATEGY") {
                Err(_) => Ok(StagingStrategy::Ring),
                Ok(v) => StagingStrategy::parse(&v).ok_or(v),
            })
            .clone()
            .map_err(|v| {
                Error::invalid(
                    "HIP_STAGING_STRATEGY",
                    format!("{v:?} is none of `ring`, `ring-nt`, `register`"),
                )
            })
    }

    /// The strategy of a name (`ring`, `ring-nt`, `register`; surrounding
    /// blanks ignored).
    pub fn parse(name: &str) -> Option<StagingStrategy> {
        match name.trim() {
            "ring" => Some(StagingStrategy::Ring),
            "ring-nt" => Some(StagingStrategy::RingNonTemporal),
            "register" => Some(StagingStrategy::Register),
            _ => None,
        }
    }

    /// Its name, as [`StagingStrategy::parse`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            StagingStrategy::Ring => "ring",
            StagingStrategy::RingNonTemporal => "ring-nt",
            StagingStrategy::Register => "register",
        }
    }
}

/// Which way a staged copy goes.
#[derive(Clone, Copy)]
enum Direction {
    /// `host` is read, `device` written.
    HostToDevice,
    /// `device` is read, `host` written.
    DeviceToHost,
}

/// Host and device addresses of one copy.
#[derive(Clone, Copy)]
struct CopyEnds {
    host: *mut u8,
    device: *mut u8,
}

/// A copy of `bytes` bytes between pageable host memory and the device:
/// directly (one `hipMemcpyAsync`) below [`MIN_BYTES`], staged
/// from there on; waits for it either way. Calls neither
/// [`Stream::copy_htod`] nor [`Stream::copy_dtoh`], so those may route
/// through here.
///
/// # Safety
///
/// As [`copy_staged`], except that the stream may be capturing (staged
/// copies are then refused).
unsafe fn copy_pageable(
    operation: &'static str,
    stream: &Stream,
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
    strategy: StagingStrategy,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    if bytes < MIN_BYTES {
        // SAFETY: the caller's promise.
        return unsafe { copy_direct(stream, ends, bytes, dir) };
    }
    // A replay of a captured copy would read staging buffers that other
    // copies have refilled since (or memory registered only for the copy).
    stream.refuse_while_capturing(operation)?;
    if strategy == StagingStrategy::Register {
        // SAFETY: the caller's promise.
        if let Some(outcome) = unsafe { copy_registered(stream, ends, bytes, dir) } {
            return outcome;
        }
    }
    let stores = match strategy {
        StagingStrategy::RingNonTemporal => Stores::Streaming,
        StagingStrategy::Ring | StagingStrategy::Register => Stores::Cached,
    };
    // SAFETY: the caller's promise; the stream is not capturing.
    unsafe { copy_staged(stream, ends, bytes, dir, stores) }
}

/// [`StagingStrategy::Register`]: page-locks the host end
/// (`hipHostRegister`), copies directly and waits, then unlocks it.
/// `None` when the memory cannot be registered (nothing was done then).
///
/// # Safety
///
/// As [`copy_staged`].
unsafe fn copy_registered(
    stream: &Stream,
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
) -> Option<Result<()>> {
    // Registering and unregistering host memory act on the whole device:
    // held for the copy, since the pages must be unlocked before we return.
    let held = match stream.device().hold_captures("staging (register)") {
        Ok(held) => held,
        Err(e) => return Some(Err(e)),
    };
    if let Err(e) = stream.bind_for_copy() {
        return Some(Err(e));
    }
    let host = ends.host.cast::<std::ffi::c_void>();
    // SAFETY: the host end is valid for `bytes` bytes until we return
    // (the caller's promise), and is unregistered before that.
    if unsafe { result::host_register(host, bytes, sys::hipHostRegisterDefault, &held) }.is_err() {
        return None;
    }
    // SAFETY: the caller's promise; it waits for the copy.
    match unsafe { copy_direct(stream, ends, bytes, dir) } {
        // SAFETY: registered above; the copy is over.
        Ok(()) => Some(unsafe { result::host_unregister(host, &held) }),
        Err(e) => {
            // Unlock only when no DMA can still use the pages; else they
            // stay locked (a leak of locked pages, never a DMA into
            // unlocked memory).
            if stream.synchronize().is_ok() {
                // SAFETY: as above, the copy is over.
                crate::error::record_result(unsafe { result::host_unregister(host, &held) });
            }
            Some(Err(e))
        }
    }
}

/// One `hipMemcpyAsync` between the two ends, waited for.
///
/// # Safety
///
/// As [`copy_staged`].
unsafe fn copy_direct(stream: &Stream, ends: CopyEnds, bytes: usize, dir: Direction) -> Result<()> {
    // SAFETY: the caller's promise; we wait for the copy below.
    unsafe { enqueue_direct(stream, ends, bytes, dir) }?;
    stream.synchronize()
}

/// Enqueues one direct copy (`hipMemcpyAsync`) without waiting for it.
/// From pageable host memory the runtime has read the host end when this
/// returns (CUDA and HIP both take pageable memory into their own staging,
/// or copy synchronously, before returning); the device end is written in
/// stream order.
///
/// # Safety
///
/// Both ends hold `bytes` bytes; the host end is pageable memory, valid
/// until this returns; the device end stays allocated until the copy has
/// run in stream order.
unsafe fn enqueue_direct(
    stream: &Stream,
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
) -> Result<()> {
    stream.bind_for_copy()?;
    let (to, from, kind) = match dir {
        Direction::HostToDevice => (
            ends.device,
            ends.host.cast_const(),
            sys::hipMemcpyKind::hipMemcpyHostToDevice,
        ),
        Direction::DeviceToHost => (
            ends.host,
            ends.device.cast_const(),
            sys::hipMemcpyKind::hipMemcpyDeviceToHost,
        ),
    };
    // SAFETY: both ends hold `bytes` bytes (the caller's promise); the
    // runtime is done with the pageable host end when it returns.
    unsafe { result::memcpy_async(to.cast(), from.cast(), bytes, kind, stream.as_raw()) }
}

/// Copies `bytes` bytes of device memory at `src` into host memory at
/// `dst`, staged when large (as [`Stream::copy_dtoh`]), and waits.
///
/// # Safety
///
/// `src` holds `bytes` bytes on `stream`'s device; `dst` is writable for
/// `bytes` bytes and not otherwise accessed until this returns.
pub(crate) unsafe fn copy_dtoh_raw(
    operation: &'static str,
    stream: &Stream,
    src: *const u8,
    dst: *mut u8,
    bytes: usize,
) -> Result<()> {
    let ends = CopyEnds {
        host: dst,
        device: src.cast_mut(),
    };
    // SAFETY: the caller's promise.
    unsafe { copy_pageable_as_env_says(operation, stream, ends, bytes, Direction::DeviceToHost) }
}

/// [`copy_pageable`] with the strategy `HIP_STAGING_STRATEGY` gives.
///
/// # Safety
///
/// As [`copy_pageable`].
unsafe fn copy_pageable_as_env_says(
    operation: &'static str,
    stream: &Stream,
    ends: CopyEnds,
    bytes: usize,
    dir: Direction,
) -> Result<()> {
    let strategy = StagingStrategy::from_env()?;
    // SAFETY: the caller's promise.
    unsafe { copy_pageable(operation, stream, ends, bytes, dir, strategy) }
}

/// Copies `bytes` bytes of ordinary host memory at `src` to device memory
/// at the raw address `dst`, on `stream` after its earlier work, and waits
/// for the copy: staged through the pinned rings from [`MIN_BYTES`] on
/// (as `HIP_STAGING_STRATEGY` says), one direct copy below.
///
/// For layers that keep their own account of device memory and order
/// its uses themselves, such as `cuda-compat`'s cudarc API, whose
/// `memcpy_htod` of a `Vec` goes through here. Code that holds `hip`
/// buffers uses [`Stream::copy_htod`], which also orders the copy after
/// the buffer's tracked uses on other streams.
///
/// A staged copy is refused while the stream captures a graph (a replay
/// would read staging buffers that other copies have refilled since):
/// the caller makes a direct copy instead, or none.
///
/// # Safety
///
/// `src` is readable for `bytes` bytes and not written until this
/// returns; `dst` holds `bytes` bytes of `stream`'s device, and every
/// earlier use of them on another stream is ordered before this stream's
/// work (or finished).
///
/// # Example
///
/// ```no_run
/// # fn main() -> hip::Result<()> {
/// let dev = hip::Device::get(0)?;
/// let stream = hip::Stream::new(&dev)?;
/// let host = vec![7u8; 64 << 20];
/// let mut buf = stream.alloc::<u8>(host.len())?;
/// # use hip::DeviceMemoryMut;
/// // SAFETY: `host` and `buf` hold `host.len()` bytes; only this stream
/// // uses `buf`.
/// unsafe {
///     hip::staging::copy_htod_pageable(&stream, host.as_ptr(), buf.device_ptr_mut().cast(), host.len())
/// }?;
/// # Ok(())
/// # }
/// ```
pub unsafe fn copy_htod_pageable(
    stream: &Stream,
    src: *const u8,
    dst: *mut u8,
    bytes: usize,
) -> Result<()> {
    let ends = CopyEnds {
        host: src.cast_mut(),
        device: dst,
    };
    // SAFETY: the caller's promise; host-to-device only reads `src`.
    unsafe {
        copy_pageable_as_env_says(
            "staging::copy_htod_pageable",
            stream,
            ends,
            bytes,
            Direction::HostToDevice,
        )
    }
}

/// Copies `bytes` bytes of device memory at the raw address `src` into
/// ordinary host memory at `dst`, on `stream` after its earlier work, and
/// waits for the copy: the device-to-host twin of
/// [`copy_htod_pageable`], with the same staging and capture rule.
///
/// # Safety
///
/// `src` holds `bytes` bytes of `stream`'s device, and every earlier
/// write of them on another stream is ordered before this stream's work
/// (or finished); `dst` is writable for `bytes` bytes and not otherwise
/// accessed until this returns.
pub unsafe fn copy_dtoh_pageable(
    stream: &Stream,
    src: *const u8,
    dst: *mut u8,
    bytes: usize,
) -> Result<()> {
    // SAFETY: the caller's promise.
    unsafe { copy_dtoh_raw("staging::copy_dtoh_pageable", stream, src, dst, bytes) }
}

/// [`Stream::copy_htod`] from ordinary memory with large copies made as
/// `strategy` says, whatever `HIP_STAGING_STRATEGY` is: for measuring the
/// strategies side by side in one process (`copy_bandwidth` in `benches`).
///
/// Lengths must match and `dst` must be on `stream`'s device; `src` may be
/// reused when the call returns. Below [`MIN_BYTES`] it is one direct copy,
/// which into tracked memory ([`crate::AccessEvents`]) runs in stream order
/// without being waited for (later uses on any stream wait for it through
/// the tracking; refused while the stream captures a graph), and into
/// untracked memory is over when the call returns;
/// from there on the stream must not be capturing a graph (a replay would
/// read staging buffers reused since).
///
/// # Example
///
/// ```no_run
/// # fn main() -> hip::Result<()> {
/// use hip::staging::{copy_dtoh_with, copy_htod_with, StagingStrategy};
/// let dev = hip::Device::get(0)?;
/// let stream = hip::Stream::new(&dev)?;
/// let host = vec![1.5f32; 64 << 20];
/// let mut dev_buf = stream.alloc::<f32>(host.len())?;
/// copy_htod_with(&stream, &host, &mut dev_buf, StagingStrategy::RingNonTemporal)?;
/// let mut back = vec![0f32; host.len()];
/// copy_dtoh_with(&stream, &dev_buf, &mut back, StagingStrategy::Register)?;
/// assert_eq!(back, host);
/// # Ok(())
/// # }
/// ```
pub fn copy_htod_with<T: DeviceRepr>(
    stream: &Stream,
    src: &[T],
    dst: &mut impl DeviceMemoryMut<T>,
    strategy: StagingStrategy,
) -> Result<()> {
    const OP: &str = "Stream::copy_htod";
    check_same_len(OP, src.len(), dst.len())?;
    check_device(OP, "the destination", stream.device(), dst.device())?;
    let bytes = checked_bytes::<T>(OP, src.len())?;
    let ends = CopyEnds {
        host: src.as_ptr().cast_mut().cast(),
        device: dst.device_ptr_mut().cast(),
    };
    if bytes > 0 && bytes < MIN_BYTES && dst.access_events().is_tracked() {
        // A small copy into tracked memory need not be waited for: the
        // runtime has read `src` when the call returns, and every later use
        // of `dst`, on any stream, is ordered after it by the tracking (a
        // wait per copy would stall a launch-bound program on each one).
        // A graph would keep the host address, to be read at each replay.
        stream.refuse_while_capturing(OP)?;
        // SAFETY: as below; the allocation outlives the copy in stream
        // order (its free is ordered after its tracked accesses).
        return stream.enqueue_tracked(&[], &[dst.access_events()], || unsafe {
            enqueue_direct(stream, ends, bytes, Direction::HostToDevice)
        });
    }
    // SAFETY: `src` holds `bytes` readable bytes and is only read
    // (host-to-device); `dst` holds `bytes` bytes on this stream's device
    // (checked above); both borrows outlive the call, which waits for the
    // copy (ordered after `dst`'s tracked accesses).
    stream.enqueue_tracked(&[], &[dst.access_events()], || unsafe {
        copy_pageable(OP, stream, ends, bytes, Direction::HostToDevice, strategy)
    })
}

/// [`Stream::copy_dtoh`] into ordinary memory with large copies made as
/// `strategy` says (see [`copy_htod_with`]). The copy starts after the
/// stream's earlier work and is over when the call returns.
pub fn copy_dtoh_with<T: DeviceRepr>(
    stream: &Stream,
    src: &impl DeviceMemory<T>,
    dst: &mut [T],
    strategy: StagingStrategy,
) -> Result<()> {
    const OP: &str = "Stream::copy_dtoh";
    check_same_len(OP, src.len(), dst.len())?;
    check_device(OP, "the source", stream.device(), src.device())?;
    let bytes = checked_bytes::<T>(OP, dst.len())?;
    let ends = CopyEnds {
        host: dst.as_mut_ptr().cast(),
        device: src.device_ptr().cast_mut().cast(),
    };
    // SAFETY: `dst` holds `bytes` writable bytes, exclusively borrowed;
    // any bytes are a valid `T` (DeviceRepr); `src` holds `bytes` bytes on
    // this stream's device and is only read; the call waits for the copy
    // (ordered after `src`'s last tracked write).
    stream.enqueue_tracked(&[src.access_events()], &[], || unsafe {
        copy_pageable(OP, stream, ends, bytes, Direction::DeviceToHost, strategy)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_their_names_and_nothing_else() {
        for s in [
            StagingStrategy::Ring,
            StagingStrategy::RingNonTemporal,
            StagingStrategy::Register,
        ] {
            assert_eq!(StagingStrategy::parse(s.name()), Some(s));
            assert_eq!(StagingStrategy::parse(&format!(" {} ", s.name())), Some(s));
        }
        for bad in ["", "Ring", "nt", "ring_nt", "registered"] {
            assert_eq!(StagingStrategy::parse(bad), None, "{bad:?}");
        }
    }
}
