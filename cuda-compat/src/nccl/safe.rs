//! cudarc's safe NCCL types on `rccl::Comm`: each call takes its buffers'
//! addresses through cuda-compat's stream tracking (`DevicePtr`), views
//! them as `hip` memory of their own device, and lets `rccl` check
//! lengths, ranks and devices before the library.

use super::result::{self, NcclError, NcclStatus};
use super::sys;
use crate::driver::{
    CudaContext, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, SyncOnDrop,
};
use hip::{DeviceSlice as HipSlice, DeviceSliceMut as HipSliceMut};
use std::ffi::c_char;
use std::sync::Arc;

pub use super::result::{group_end, group_start};

/// A communicator's unique id (cudarc's `Id`): made by one rank with
/// [`Id::new`], sent to the others as [`Id::internal`]'s bytes, rebuilt
/// there with [`Id::uninit`].
#[derive(Debug, Clone, Copy)]
pub struct Id {
    id: sys::ncclUniqueId,
}

impl Id {
    /// `ncclGetUniqueId`.
    pub fn new() -> Result<Self, NcclError> {
        Ok(Id {
            id: result::get_uniqueid()?,
        })
    }

    /// The id of these bytes (another rank's [`Id::internal`]).
    pub fn uninit(internal: [c_char; 128]) -> Self {
        Id {
            id: sys::ncclUniqueId { internal },
        }
    }

    /// The id's bytes, to send to the other ranks.
    pub fn internal(&self) -> &[c_char; 128] {
        &self.id.internal
    }
}

/// The reduction of a collective (cudarc's `ReduceOp`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// `ncclSum`.
    Sum,
    /// `ncclProd`.
    Prod,
    /// `ncclMax`.
    Max,
    /// `ncclMin`.
    Min,
    /// `ncclAvg`.
    Avg,
}

impl ReduceOp {
    fn rccl(&self) -> rccl::ReduceOp {
        match self {
            ReduceOp::Sum => rccl::ReduceOp::Sum,
            ReduceOp::Prod => rccl::ReduceOp::Prod,
            ReduceOp::Max => rccl::ReduceOp::Max,
            ReduceOp::Min => rccl::ReduceOp::Min,
            ReduceOp::Avg => rccl::ReduceOp::Avg,
        }
    }
}

/// An element type NCCL moves (cudarc's `NcclType`): the integers, f32,
/// f64, and with the `f16` feature `half::f16`/`half::bf16`. (cudarc also
/// maps `char` to `ncclUint8`, though a `char` is four bytes; not here.)
pub trait NcclType: rccl::Element {
    /// Its `ncclDataType_t`.
    fn as_nccl_type() -> sys::ncclDataType_t {
        Self::DATA_TYPE
    }
}

impl NcclType for f32 {}
impl NcclType for f64 {}
impl NcclType for i8 {}
impl NcclType for i32 {}
impl NcclType for i64 {}
impl NcclType for u8 {}
impl NcclType for u32 {}
impl NcclType for u64 {}
#[cfg(feature = "f16")]
impl NcclType for half::f16 {}
#[cfg(feature = "f16")]
impl NcclType for half::bf16 {}

/// One rank of a communicator on a stream (cudarc's `Comm`): every call
/// is enqueued on [`Comm::stream`]. One thread driving several
/// communicators calls them between [`group_start`] and [`group_end`].
///
/// Dropping it destroys the communicator (`ncclCommDestroy`; errors go to
/// `rccl::take_drop_errors`).
#[derive(Debug)]
pub struct Comm {
    comm: rccl::Comm,
    stream: Arc<CudaStream>,
}

/// `rccl`'s error as the NCCL status cudarc would see, its message kept as
/// this thread's reason ([`result::last_error_detail`]): the library's own
/// status; `ncclSystemError` for no library (or a failed rendezvous);
/// `ncclUnhandledCudaError` for a failed HIP call; `ncclRemoteError` for
/// a wait that timed out; `ncclInvalidArgument` for what `rccl` rejected
/// before the call.
fn nccl_error(e: rccl::Error) -> NcclError {
    use sys::ncclResult_t as R;
    let status = match &e {
        rccl::Error::Nccl { .. } | rccl::Error::Load(_) | rccl::Error::Runtime(_) => {
            return result::ours(e)
        }
        rccl::Error::Rendezvous(_) => R::ncclSystemError,
        rccl::Error::Timeout { .. } => R::ncclRemoteError,
        _ => R::ncclInvalidArgument,
    };
    result::fail(status, &e.to_string())
}

/// `ncclInvalidArgument` for an argument refused here, before any call,
/// with `why` as this thread's reason.
fn invalid(why: impl std::fmt::Display) -> NcclError {
    result::fail(
        sys::ncclResult_t::ncclInvalidArgument,
        &format!("invalid argument: {why}"),
    )
}

/// `n` when the buffer (of `len` elements) holds at least that many.
fn fits(len: usize, n: usize) -> Result<usize, NcclError> {
    if n <= len {
        Ok(n)
    } else {
        Err(invalid(format_args!(
            "the call needs {n} elements, the buffer holds {len}"
        )))
    }
}

/// A rank argument of cudarc's API (`i32`) as an index.
fn rank_index(rank: i32) -> Result<usize, NcclError> {
    usize::try_from(rank).map_err(|_| invalid(format_args!("rank {rank} is negative")))
}

/// `count` times the world size (a buffer's length for every rank).
fn times_world(count: usize, world_size: usize) -> Result<usize, NcclError> {
    count.checked_mul(world_size).ok_or_else(|| {
        invalid(format_args!(
            "{count} elements for each of {world_size} ranks overflow usize"
        ))
    })
}

/// The error of a root without the buffer it must have.
fn root_without(what: &str, root: usize) -> NcclError {
    invalid(format_args!(
        "the root (rank {root}) needs a {what} buffer; None was given"
    ))
}

/// The first `len` elements of `buf` (which holds at least that many)
/// as `hip` memory of `buf`'s own device, read on `stream`; the guard
/// records the read when dropped, after the call.
fn read_view<'a, T: NcclType, S: DevicePtr<T>>(
    buf: &'a S,
    len: usize,
    stream: &'a CudaStream,
) -> Result<(HipSlice<'a, T>, SyncOnDrop<'a>), NcclError> {
    fits(buf.len(), len)?;
    let device = &buf.stream().ctx.device;
    let (ptr, guard) = buf.device_ptr(stream);
    // SAFETY: `ptr` is the address of `buf`, a live buffer of at least
    // `len` elements (checked) on `device`, borrowed for `'a`; the view is
    // only read.
    let view = unsafe { HipSlice::from_raw_parts(ptr as usize as *const T, len, device) };
    Ok((view, guard))
}

/// Runs `f` with the first `len` elements of `buf` (which holds at least
/// that many) as writable `hip` memory of `buf`'s own device, written on
/// `stream`; the guard records the write after `f` enqueued it.
fn with_write_view<T: NcclType, R: DevicePtrMut<T>>(
    buf: &mut R,
    len: usize,
    stream: &CudaStream,
    f: impl FnOnce(&mut HipSliceMut<'_, T>) -> rccl::Result<()>,
) -> Result<NcclStatus, NcclError> {
    fits(buf.len(), len)?;
    let device = Arc::clone(&buf.stream().ctx.device);
    let (ptr, _write) = buf.device_ptr_mut(stream);
    // SAFETY: `ptr` is the address of `buf`, a live buffer of at least
    // `len` elements (checked) on `device`, borrowed mutably while the view
    // lives.
    let mut view = unsafe { HipSliceMut::from_raw_parts(ptr as usize as *mut T, len, &device) };
    f(&mut view).map_err(nccl_error)?;
    Ok(NcclStatus::Success)
}

impl Comm {
    /// `ncclCommInitAll` over the streams' devices: rank `i` on
    /// `streams[i]`.
    pub fn from_devices(streams: Vec<Arc<CudaStream>>) -> Result<Vec<Self>, NcclError> {
        let devices: Vec<Arc<hip::Device>> =
            streams.iter().map(|s| Arc::clone(&s.ctx.device)).collect();
        let comms = rccl::Comm::from_devices(&devices).map_err(nccl_error)?;
        Ok(comms
            .into_iter()
            .zip(streams)
            .map(|(comm, stream)| Comm { comm, stream })
            .collect())
    }

    /// `ncclCommInitRank`: rank `rank` of `world_size` on `stream`'s
    /// device, joining the communicator of `id`.
    pub fn from_rank(
        stream: Arc<CudaStream>,
        rank: usize,
        world_size: usize,
        id: Id,
    ) -> Result<Self, NcclError> {
        let bytes = id.id.internal.map(|c| c as u8);
        let comm = rccl::Comm::from_rank(
            &stream.ctx.device,
            &rccl::UniqueId::from_bytes(bytes),
            rank,
            world_size,
        )
        .map_err(nccl_error)?;
        Ok(Comm { comm, stream })
    }

    /// The stream every call is enqueued on.
    pub fn stream(&self) -> Arc<CudaStream> {
        Arc::clone(&self.stream)
    }

    /// The stream's context.
    pub fn context(&self) -> &Arc<CudaContext> {
        self.stream.context()
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.stream.ctx.ordinal
    }

    /// This rank.
    pub fn rank(&self) -> usize {
        self.comm.rank()
    }

    /// How many ranks the communicator has.
    pub fn world_size(&self) -> usize {
        self.comm.world_size()
    }

    /// The `rccl` communicator underneath (`abort`, `wait`, ...).
    pub fn rccl(&self) -> &rccl::Comm {
        &self.comm
    }

    fn hip_stream(&self) -> &hip::Stream {
        &self.stream.stream
    }

    /// `ncclSend` of `data` to rank `peer`.
    pub fn send<S: DevicePtr<T>, T: NcclType>(&self, data: &S, peer: i32) -> Result<(), NcclError> {
        let peer = rank_index(peer)?;
        let (view, _read) = read_view(data, data.len(), &self.stream)?;
        self.comm
            .send(&view, peer, self.hip_stream())
            .map_err(nccl_error)
    }

    /// `ncclRecv` into `buff` (all of it) from rank `peer`.
    pub fn recv<R: DevicePtrMut<T>, T: NcclType>(
        &self,
        buff: &mut R,
        peer: i32,
    ) -> Result<NcclStatus, NcclError> {
        let peer = rank_index(peer)?;
        let len = buff.len();
        with_write_view(buff, len, &self.stream, |buf| {
            self.comm.recv(buf, peer, self.hip_stream())
        })
    }

    /// `ncclBroadcast` of rank `root`'s `sendbuff` into every rank's
    /// `recvbuff` (its length is the count). `sendbuff` is read on the
    /// root only: `None` elsewhere; `None` on the root is
    /// `ncclInvalidArgument`.
    pub fn broadcast<S: DevicePtr<T>, R: DevicePtrMut<T>, T: NcclType>(
        &self,
        sendbuff: Option<&S>,
        recvbuff: &mut R,
        root: i32,
    ) -> Result<NcclStatus, NcclError> {
        let root_index = rank_index(root)?;
        let count = recvbuff.len();
        match sendbuff {
            None if root_index == self.rank() => Err(root_without("send", root_index)),
            // Not the root: RCCL does not read the send buffer.
            None => self.broadcast_in_place(recvbuff, root),
            Some(send) => {
                let (send, _read) = read_view(send, count, &self.stream)?;
                with_write_view(recvbuff, count, &self.stream, |recv| {
                    self.comm
                        .broadcast(&send, recv, root_index, self.hip_stream())
                })
            }
        }
    }

    /// `ncclBroadcast` in place: every rank's `recvbuff` gets the root's.
    pub fn broadcast_in_place<R: DevicePtrMut<T>, T: NcclType>(
        &self,
        recvbuff: &mut R,
        root: i32,
    ) -> Result<NcclStatus, NcclError> {
        let root = rank_index(root)?;
        let len = recvbuff.len();
        with_write_view(recvbuff, len, &self.stream, |buf| {
            self.comm.broadcast_in_place(buf, root, self.hip_stream())
        })
    }

    /// `ncclAllGather`: `recvbuff` gets every rank's `sendbuff` in rank
    /// order; it holds at least world size x `sendbuff.len()`.
    pub fn all_gather<S: DevicePtr<T>, R: DevicePtrMut<T>, T: NcclType>(
        &self,
        sendbuff: &S,
        recvbuff: &mut R,
    ) -> Result<NcclStatus, NcclError> {
        let count = sendbuff.len();
        let whole = times_world(count, self.world_size())?;
        let (send, _read) = read_view(sendbuff, count, &self.stream)?;
        with_write_view(recvbuff, whole, &self.stream, |recv| {
            self.comm.all_gather(&send, recv, self.hip_stream())
        })
    }

    /// `ncclAllReduce` of `sendbuff` (its length is the count) into
    /// `recvbuff` (at least as long).
    pub fn all_reduce<S: DevicePtr<T>, R: DevicePtrMut<T>, T: NcclType>(
        &self,
        sendbuff: &S,
        recvbuff: &mut R,
        reduce_op: &ReduceOp,
    ) -> Result<NcclStatus, NcclError> {
        let count = sendbuff.len();
        fits(recvbuff.len(), count)?;
        let (send, _read) = read_view(sendbuff, count, &self.stream)?;
        with_write_view(recvbuff, count, &self.stream, |recv| {
            self.comm
                .all_reduce(&send, recv, reduce_op.rccl(), self.hip_stream())
        })
    }

    /// `ncclAllReduce` in place.
    pub fn all_reduce_in_place<R: DevicePtrMut<T>, T: NcclType>(
        &self,
        buff: &mut R,
        reduce_op: &ReduceOp,
    ) -> Result<NcclStatus, NcclError> {
        let len = buff.len();
        with_write_view(buff, len, &self.stream, |buf| {
            self.comm
                .all_reduce_in_place(buf, reduce_op.rccl(), self.hip_stream())
        })
    }

    /// `ncclReduce` of every rank's `sendbuff` (its length is the count)
    /// into rank `root`'s `recvbuff`: `None` on the other ranks; `None` on
    /// the root is `ncclInvalidArgument`.
    pub fn reduce<S: DevicePtr<T>, R: DevicePtrMut<T>, T: NcclType>(
        &self,
        sendbuff: &S,
        recvbuff: Option<&mut R>,
        reduce_op: &ReduceOp,
        root: i32,
    ) -> Result<NcclStatus, NcclError> {
        let root_index = rank_index(root)?;
        let count = sendbuff.len();
        let op = reduce_op.rccl();
        match recvbuff {
            None if root_index == self.rank() => Err(root_without("receive", root_index)),
            None => {
                // Not the root: RCCL reads `sendbuff` and writes no
                // receive buffer, so the call is made in place on it.
                let device = &sendbuff.stream().ctx.device;
                let (ptr, _read) = sendbuff.device_ptr(&self.stream);
                // SAFETY: `sendbuff` is a live buffer of `count` elements
                // on `device`, borrowed for the call; on a rank other than
                // the root `ncclReduce` only reads it (NCCL's contract:
                // the receive buffer is used on the root only), so the
                // writable view is never written through.
                let mut buf =
                    unsafe { HipSliceMut::from_raw_parts(ptr as usize as *mut T, count, device) };
                self.comm
                    .reduce_in_place(&mut buf, op, root_index, self.hip_stream())
                    .map_err(nccl_error)?;
                Ok(NcclStatus::Success)
            }
            Some(recvbuff) => {
                fits(recvbuff.len(), count)?;
                let (send, _read) = read_view(sendbuff, count, &self.stream)?;
                with_write_view(recvbuff, count, &self.stream, |recv| {
                    self.comm
                        .reduce(&send, recv, op, root_index, self.hip_stream())
                })
            }
        }
    }

    /// `ncclReduce` in place: rank `root`'s `recvbuff` gets the reduction.
    pub fn reduce_in_place<R: DevicePtrMut<T>, T: NcclType>(
        &self,
        recvbuff: &mut R,
        reduce_op: &ReduceOp,
        root: i32,
    ) -> Result<NcclStatus, NcclError> {
        let root = rank_index(root)?;
        let len = recvbuff.len();
        with_write_view(recvbuff, len, &self.stream, |buf| {
            self.comm
                .reduce_in_place(buf, reduce_op.rccl(), root, self.hip_stream())
        })
    }

    /// `ncclReduceScatter`: `recvbuff` (its length is the count) gets the
    /// reduction of every rank's part `rank` of `sendbuff`, which holds at
    /// least world size x the count.
    pub fn reduce_scatter<S: DevicePtr<T>, R: DevicePtrMut<T>, T: NcclType>(
        &self,
        sendbuff: &S,
        recvbuff: &mut R,
        reduce_op: &ReduceOp,
    ) -> Result<NcclStatus, NcclError> {
        let count = recvbuff.len();
        let whole = times_world(count, self.world_size())?;
        let (send, _read) = read_view(sendbuff, whole, &self.stream)?;
        with_write_view(recvbuff, count, &self.stream, |recv| {
            self.comm
                .reduce_scatter(&send, recv, reduce_op.rccl(), self.hip_stream())
        })
    }
}

/// An open NCCL group made by [`Comm::group`] (cudarc's `Group`): the calls
/// made through it are launched together when it drops (`ncclGroupEnd`).
///
/// The calls take views ([`CudaView`], [`CudaViewMut`]) that outlive the
/// group, since NCCL reads and writes them only once the group ends: each
/// buffer's access is recorded when the group drops, after
/// `ncclGroupEnd`, so later work on other streams waits for it. Make the
/// views before the group.
///
/// Groups nest (one per communicator when one thread drives several):
/// NCCL launches the calls when the outermost group ends. An inner group's
/// accesses are recorded when it drops, before that launch, so work on the
/// communicator's own stream is ordered after the calls but work on another
/// stream is ordered only after the outermost group has dropped.
///
/// Unlike cudarc, nothing here panics: a failed `ncclGroupStart` is
/// returned by each call on the group, and a failed `ncclGroupEnd` (in
/// drop) is recorded for `rccl::take_drop_errors`.
///
/// **Threads**: neither `Send` nor `Sync`: NCCL keeps the open group per
/// thread, so it ends on the thread that started it.
#[derive(Debug)]
pub struct Group<'a> {
    comm: &'a Comm,
    // Field order is drop order: the group ends (its calls are launched)
    // before the accesses of `syncs` are recorded.
    group: Result<rccl::Group, NcclError>,
    syncs: Vec<SyncOnDrop<'a>>,
}

impl Comm {
    /// Starts a group (`ncclGroupStart`) whose calls run on this
    /// communicator; it ends when the [`Group`] drops.
    pub fn group(&self) -> Group<'_> {
        Group {
            comm: self,
            group: rccl::Group::start().map_err(nccl_error),
            syncs: Vec::new(),
        }
    }
}

impl<'g> Group<'g> {
    /// The communicator.
    pub fn comm(&self) -> &'g Comm {
        self.comm
    }

    /// The error of `ncclGroupStart`, if it failed.
    fn started(&self) -> Result<(), NcclError> {
        self.group.as_ref().map(|_| ()).map_err(|e| *e)
    }

    /// The guard that records an access of `events` on the communicator's
    /// stream, after the stream waited for the accesses it conflicts with.
    fn access(&self, events: &'g hip::AccessEvents, write: bool) -> SyncOnDrop<'g> {
        use crate::driver::result::ToDriver;
        let comm: &'g Comm = self.comm;
        let stream = &comm.stream.stream;
        let waited = if write {
            events.wait_before_write(stream)
        } else {
            events.wait_before_read(stream)
        };
        comm.stream.ctx.record_err(waited.drv());
        SyncOnDrop::Access(Some(hip::AccessGuard::recording(events, stream, write)))
    }

    /// The first `len` elements of `view` (which holds at least that
    /// many) as `hip` memory to read, its access kept until the group ends.
    fn read<'s: 'g, T: NcclType>(
        &mut self,
        view: CudaView<'s, T>,
        len: usize,
    ) -> Result<HipSlice<'s, T>, NcclError> {
        fits(view.len, len)?;
        let guard = self.access(view.events, false);
        self.syncs.push(guard);
        // SAFETY: the view is at least `len` (checked) live elements at
        // `ptr` on its stream's device, borrowed for `'s`, which outlives
        // the group; it is only read.
        Ok(unsafe {
            HipSlice::from_raw_parts(view.ptr as usize as *const T, len, &view.stream.ctx.device)
        })
    }

    /// The first `len` elements of `view` (which holds at least that
    /// many) as `hip` memory to write, its access kept until the group
    /// ends.
    fn write<'r: 'g, T: NcclType>(
        &mut self,
        view: CudaViewMut<'r, T>,
        len: usize,
    ) -> Result<HipSliceMut<'r, T>, NcclError> {
        fits(view.len, len)?;
        let guard = self.access(view.events, true);
        self.syncs.push(guard);
        // SAFETY: the view is at least `len` (checked) live elements at
        // `ptr` on its stream's device, borrowed mutably for `'r`, which
        // outlives the group.
        Ok(unsafe {
            HipSliceMut::from_raw_parts(view.ptr as usize as *mut T, len, &view.stream.ctx.device)
        })
    }

    /// `ncclSend` of `data` to rank `peer`.
    pub fn send<'s: 'g, T: NcclType>(
        &mut self,
        data: CudaView<'s, T>,
        peer: i32,
    ) -> Result<(), NcclError> {
        self.started()?;
        let peer = rank_index(peer)?;
        let len = data.len;
        let data = self.read(data, len)?;
        let comm = self.comm;
        comm.comm
            .send(&data, peer, comm.hip_stream())
            .map_err(nccl_error)
    }

    /// `ncclRecv` into `buff` (all of it) from rank `peer`.
    pub fn recv<'r: 'g, T: NcclType>(
        &mut self,
        buff: CudaViewMut<'r, T>,
        peer: i32,
    ) -> Result<NcclStatus, NcclError> {
        self.started()?;
        let peer = rank_index(peer)?;
        let len = buff.len;
        let mut buff = self.write(buff, len)?;
        let comm = self.comm;
        comm.comm
            .recv(&mut buff, peer, comm.hip_stream())
            .map_err(nccl_error)?;
        Ok(NcclStatus::Success)
    }

    /// As [`Comm::broadcast`]: `sendbuff` is `None` except on the root.
    pub fn broadcast<'s: 'g, 'r: 'g, T: NcclType>(
        &mut self,
        sendbuff: Option<CudaView<'s, T>>,
        recvbuff: CudaViewMut<'r, T>,
        root: i32,
    ) -> Result<NcclStatus, NcclError> {
        self.started()?;
        let root_index = rank_index(root)?;
        let comm = self.comm;
        match sendbuff {
            None if root_index == comm.rank() => Err(root_without("send", root_index)),
            // Not the root: RCCL does not read the send buffer.
            None => self.broadcast_in_place(recvbuff, root),
            Some(send) => {
                let count = recvbuff.len;
                let send = self.read(send, count)?;
                let mut recv = self.write(recvbuff, count)?;
                comm.comm
                    .broadcast(&send, &mut recv, root_index, comm.hip_stream())
                    .map_err(nccl_error)?;
                Ok(NcclStatus::Success)
            }
        }
    }

    /// As [`Comm::broadcast_in_place`].
    pub fn broadcast_in_place<'r: 'g, T: NcclType>(
        &mut self,
        recvbuff: CudaViewMut<'r, T>,
        root: i32,
    ) -> Result<NcclStatus, NcclError> {
        self.started()?;
        let root = rank_index(root)?;
        let len = recvbuff.len;
        let mut buf = self.write(recvbuff, len)?;
        let comm = self.comm;
        comm.comm
            .broadcast_in_place(&mut buf, root, comm.hip_stream())
            .map_err(nccl_error)?;
        Ok(NcclStatus::Success)
    }

    /// As [`Comm::all_gather`]: `recvbuff` holds at least world size x
    /// `sendbuff`'s length.
    pub fn all_gather<'s: 'g, 'r: 'g, T: NcclType>(
        &mut self,
        sendbuff: CudaView<'s, T>,
        recvbuff: CudaViewMut<'r, T>,
    ) -> Result<NcclStatus, NcclError> {
        self.started()?;
        let comm = self.comm;
        let whole = times_world(sendbuff.len, comm.world_size())?;
        let count = sendbuff.len;
        let send = self.read(sendbuff, count)?;
        let mut recv = self.write(recvbuff, whole)?;
        comm.comm
            .all_gather(&send, &mut recv, comm.hip_stream())
            .map_err(nccl_error)?;
        Ok(NcclStatus::Success)
    }

    /// As [`Comm::all_reduce`].
    pub fn all_reduce<'s: 'g, 'r: 'g, T: NcclType>(
        &mut self,
        sendbuff: CudaView<'s, T>,
        recvbuff: CudaViewMut<'r, T>,
        reduce_op: &ReduceOp,
    ) -> Result<NcclStatus, NcclError> {
        self.started()?;
        let count = sendbuff.len;
        let send = self.read(sendbuff, count)?;
        let mut recv = self.write(recvbuff, count)?;
        let comm = self.comm;
        comm.comm
            .all_reduce(&send, &mut recv, reduce_op.rccl(), comm.hip_stream())
            .map_err(nccl_error)?;
        Ok(NcclStatus::Success)
    }

    /// As [`Comm::all_reduce_in_place`].
    pub fn all_reduce_in_place<'r: 'g, T: NcclType>(
        &mut self,
        buff: CudaViewMut<'r, T>,
        reduce_op: &ReduceOp,
    ) -> Result<NcclStatus, NcclError> {
        self.started()?;
        let len = buff.len;
        let mut buf = self.write(buff, len)?;
        let comm = self.comm;
        comm.comm
            .all_reduce_in_place(&mut buf, reduce_op.rccl(), comm.hip_stream())
            .map_err(nccl_error)?;
        Ok(NcclStatus::Success)
    }

    /// As [`Comm::reduce`]: `recvbuff` is `None` except on the root.
    pub fn reduce<'s: 'g, 'r: 'g, T: NcclType>(
        &mut self,
        sendbuff: CudaView<'s, T>,
        recvbuff: Option<CudaViewMut<'r, T>>,
        reduce_op: &ReduceOp,
        root: i32,
    ) -> Result<NcclStatus, NcclError> {
        self.started()?;
        let root_index = rank_index(root)?;
        let comm = self.comm;
        let op = reduce_op.rccl();
        let count = sendbuff.len;
        match recvbuff {
            None if root_index == comm.rank() => Err(root_without("receive", root_index)),
            None => {
                // Not the root: RCCL reads `sendbuff` and writes no
                // receive buffer, so the call is made in place on it.
                let guard = self.access(sendbuff.events, false);
                self.syncs.push(guard);
                // SAFETY: `sendbuff` is `count` live elements on its
                // stream's device, borrowed for `'s`, which outlives the
                // group; on a rank other than the root `ncclReduce` only
                // reads it (NCCL's contract), so the writable view is
                // never written through.
                let mut buf = unsafe {
                    HipSliceMut::from_raw_parts(
                        sendbuff.ptr as usize as *mut T,
                        count,
                        &sendbuff.stream.ctx.device,
                    )
                };
                comm.comm
                    .reduce_in_place(&mut buf, op, root_index, comm.hip_stream())
                    .map_err(nccl_error)?;
                Ok(NcclStatus::Success)
            }
            Some(recvbuff) => {
                let send = self.read(sendbuff, count)?;
                let mut recv = self.write(recvbuff, count)?;
                comm.comm
                    .reduce(&send, &mut recv, op, root_index, comm.hip_stream())
                    .map_err(nccl_error)?;
                Ok(NcclStatus::Success)
            }
        }
    }

    /// As [`Comm::reduce_in_place`].
    pub fn reduce_in_place<'s: 'g, T: NcclType>(
        &mut self,
        recvbuff: CudaViewMut<'s, T>,
        reduce_op: &ReduceOp,
        root: i32,
    ) -> Result<NcclStatus, NcclError> {
        self.started()?;
        let root = rank_index(root)?;
        let len = recvbuff.len;
        let mut buf = self.write(recvbuff, len)?;
        let comm = self.comm;
        comm.comm
            .reduce_in_place(&mut buf, reduce_op.rccl(), root, comm.hip_stream())
            .map_err(nccl_error)?;
        Ok(NcclStatus::Success)
    }

    /// As [`Comm::reduce_scatter`]: `sendbuff` holds at least world size x
    /// `recvbuff`'s length.
    pub fn reduce_scatter<'s: 'g, 'r: 'g, T: NcclType>(
        &mut self,
        sendbuff: CudaView<'s, T>,
        recvbuff: CudaViewMut<'r, T>,
        reduce_op: &ReduceOp,
    ) -> Result<NcclStatus, NcclError> {
        self.started()?;
        let comm = self.comm;
        let count = recvbuff.len;
        let whole = times_world(count, comm.world_size())?;
        let send = self.read(sendbuff, whole)?;
        let mut recv = self.write(recvbuff, count)?;
        comm.comm
            .reduce_scatter(&send, &mut recv, reduce_op.rccl(), comm.hip_stream())
            .map_err(nccl_error)?;
        Ok(NcclStatus::Success)
    }
}

/// Runs a block between `ncclGroupStart` and `ncclGroupEnd` (cudarc's
/// `group!`, with the `nccl` feature): `group!({ ... })`.
///
/// As in cudarc, a failed start or end panics (the macro has no value to
/// return it in); [`Comm::group`] or `rccl::group` return it instead.
#[macro_export]
macro_rules! group {
    ($x:block) => {
        $crate::nccl::result::group_start().expect("ncclGroupStart");
        $x
        $crate::nccl::result::group_end().expect("ncclGroupEnd");
    };
}
