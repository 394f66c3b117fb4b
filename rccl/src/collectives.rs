//! The collectives and point-to-point calls of [`Comm`], typed over `hip`
//! buffers and streams.
//!
//! Each method checks, before the library is called: the communicator is
//! not aborted, the lengths fit the collective, the ranks named are below
//! the world size, and the buffers and the stream are on the
//! communicator's device. Then it makes the device current and enqueues
//! the call on the stream; the host does not wait ([`Comm::wait`],
//! [`hip::Stream::synchronize`]).
//!
//! Buffers that track their accesses (those of [`hip::Stream::alloc`] and
//! their views) are ordered across streams as every `hip` operation orders
//! them ([`hip::Stream::enqueue_tracked`]): the call waits for the last
//! write of what it reads, and for every access of what it writes, made on
//! other streams, and records its own. Untracked memory (`hipMalloc`
//! buffers) is ordered by the stream alone: memory written on another
//! stream needs an event first ([`hip::Stream::wait_event`]).

use crate::comm::Comm;
use crate::element::{Element, ReduceOp, AVG_SINCE};
use crate::error::{Error, Result};
use crate::result::{self, library, version};
use crate::validate;
use hip::{AccessEvents, DeviceMemory, DeviceMemoryMut, Stream};
use rccl_sys::ncclRedOp_t;
use std::ffi::c_int;
use std::ffi::c_void;
use std::sync::OnceLock;

/// One buffer as a call sees it: address, length, device and access
/// events, with the argument's name for messages.
struct Operand<'a> {
    name: &'static str,
    ptr: *mut c_void,
    len: usize,
    device: usize,
    events: &'a AccessEvents,
}

/// A buffer the call reads.
fn input<'a, T: Element>(name: &'static str, memory: &'a impl DeviceMemory<T>) -> Operand<'a> {
    Operand {
        name,
        ptr: memory.device_ptr().cast_mut().cast(),
        len: memory.len(),
        device: memory.device().ordinal(),
        events: memory.access_events(),
    }
}

/// A buffer the call writes (or reads and writes).
fn output<'a, T: Element>(
    name: &'static str,
    memory: &'a mut impl DeviceMemoryMut<T>,
) -> Operand<'a> {
    let ptr = memory.device_ptr_mut().cast();
    Operand {
        name,
        ptr,
        len: memory.len(),
        device: memory.device().ordinal(),
        events: memory.access_events(),
    }
}

/// The loaded library's version, asked once.
fn loaded_version() -> Result<i32> {
    static VERSION: OnceLock<i32> = OnceLock::new();
    if let Some(v) = VERSION.get() {
        return Ok(*v);
    }
    let v = version()?;
    Ok(*VERSION.get_or_init(|| v))
}

/// One library call with its non-buffer arguments (ranks already checked
/// and converted).
#[derive(Clone, Copy)]
enum Call {
    AllReduce(ncclRedOp_t),
    Broadcast(c_int),
    Reduce(ncclRedOp_t, c_int),
    AllGather,
    ReduceScatter(ncclRedOp_t),
    AllToAll,
    Send(c_int),
    Recv(c_int),
}

impl Comm {
    /// The one path of every call: checks the communicator, the stream's
    /// and the buffers' devices, makes the device current and calls the
    /// library with `count` (the C API's count: per rank where it says so)
    /// elements of `T`. `send` and `recv` are the same operand for the
    /// in-place forms and the point-to-point calls.
    fn enqueue<T: Element>(
        &self,
        operation: &'static str,
        call: Call,
        (send, recv): (&Operand<'_>, &Operand<'_>),
        count: usize,
        stream: &Stream,
    ) -> Result<()> {
        let comm = self.live(operation)?;
        let own = self.device().ordinal();
        validate::same_device(operation, "the stream", stream.device().ordinal(), own)?;
        for o in [send, recv] {
            validate::same_device(operation, o.name, o.device, own)?;
        }
        library()?;
        self.device().bind()?;
        let (s, r, t, st) = (
            send.ptr.cast_const(),
            recv.ptr,
            T::DATA_TYPE,
            stream.as_raw(),
        );
        let enqueue = || {
            // SAFETY: the buffers hold what `call` reads and writes for
            // `count` elements of `T` (each public method checks the
            // lengths against the collective), on the communicator's device
            // (checked above), and stay borrowed for this call; ranks are
            // below the world size; the communicator and the stream are
            // live.
            unsafe {
                match call {
                    Call::AllReduce(op) => result::all_reduce(s, r, count, t, op, comm, st),
                    Call::Broadcast(root) => result::broadcast(s, r, count, t, root, comm, st),
                    Call::Reduce(op, root) => result::reduce(s, r, count, t, op, root, comm, st),
                    Call::AllGather => result::all_gather(s, r, count, t, comm, st),
                    Call::ReduceScatter(op) => result::reduce_scatter(s, r, count, t, op, comm, st),
                    Call::AllToAll => result::all_to_all(s, r, count, t, comm, st),
                    Call::Send(peer) => result::send(s, count, t, peer, comm, st),
                    Call::Recv(peer) => result::recv(r, count, t, peer, comm, st),
                }
            }
        };
        // `send` is read (a send, or the input of a collective), `recv`
        // written; in place, the one buffer is both.
        let (reads, writes): (&[&AccessEvents], &[&AccessEvents]) = match call {
            Call::Send(_) => (&[send.events], &[]),
            Call::Recv(_) => (&[], &[recv.events]),
            _ => (&[send.events], &[recv.events]),
        };
        stream.enqueue_tracked(reads, writes, enqueue)
    }

    /// RCCL's reduction for `op`: `ncclAvg` only where the loaded library
    /// has it (NCCL API 2.10 and later).
    fn reduction(&self, operation: &'static str, op: ReduceOp) -> Result<ncclRedOp_t> {
        if op == ReduceOp::Avg {
            let v = loaded_version()?;
            if v < AVG_SINCE {
                return Err(Error::Unsupported {
                    operation,
                    reason: format!(
                        "ReduceOp::Avg (ncclAvg) needs NCCL API 2.10 or later; the loaded library is {}.{}.{} ({v})",
                        v / 10000,
                        v / 100 % 100,
                        v % 100
                    ),
                });
            }
        }
        Ok(op.raw())
    }

    /// `ncclAllReduce`: every rank's `recv` gets the reduction (`op`) of
    /// every rank's `send`, element by element. Equal lengths.
    ///
    /// ```no_run
    /// use hip::{DeviceBuffer, Stream};
    /// use rccl::{Comm, ReduceOp};
    /// let comms = Comm::from_devices(&hip::Device::all()?)?;
    /// let mut work = Vec::new();
    /// for comm in &comms {
    ///     let stream = Stream::new(comm.device())?;
    ///     let send = stream.clone_htod(&[comm.rank() as f32; 4])?;
    ///     let recv = DeviceBuffer::<f32>::zeroed(comm.device(), 4)?;
    ///     work.push((stream, send, recv));
    /// }
    /// // One thread, several communicators: inside a group.
    /// rccl::group(|| {
    ///     for (comm, (stream, send, recv)) in comms.iter().zip(&mut work) {
    ///         comm.all_reduce(send, recv, ReduceOp::Sum, stream)?;
    ///     }
    ///     Ok(())
    /// })?;
    /// # Ok::<(), rccl::Error>(())
    /// ```
    pub fn all_reduce<T: Element>(
        &self,
        send: &impl DeviceMemory<T>,
        recv: &mut impl DeviceMemoryMut<T>,
        op: ReduceOp,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::all_reduce";
        let (s, r) = (input("send", send), output("recv", recv));
        validate::same_len(OP, ("send", s.len), ("recv", r.len))?;
        let count = validate::count::<T>(OP, s.len)?;
        let call = Call::AllReduce(self.reduction(OP, op)?);
        self.enqueue::<T>(OP, call, (&s, &r), count, stream)
    }

    /// `ncclAllReduce` in place: `buf` is replaced by the reduction of
    /// every rank's `buf`.
    pub fn all_reduce_in_place<T: Element>(
        &self,
        buf: &mut impl DeviceMemoryMut<T>,
        op: ReduceOp,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::all_reduce_in_place";
        let b = output("buf", buf);
        let count = validate::count::<T>(OP, b.len)?;
        let call = Call::AllReduce(self.reduction(OP, op)?);
        self.enqueue::<T>(OP, call, (&b, &b), count, stream)
    }

    /// `ncclBroadcast`: every rank's `recv` gets rank `root`'s `send` (read
    /// on the root only). Equal lengths on every rank.
    pub fn broadcast<T: Element>(
        &self,
        send: &impl DeviceMemory<T>,
        recv: &mut impl DeviceMemoryMut<T>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::broadcast";
        let root = validate::rank(OP, "root", root, self.world_size())?;
        let (s, r) = (input("send", send), output("recv", recv));
        validate::same_len(OP, ("send", s.len), ("recv", r.len))?;
        let count = validate::count::<T>(OP, s.len)?;
        self.enqueue::<T>(OP, Call::Broadcast(root), (&s, &r), count, stream)
    }

    /// `ncclBroadcast` in place: every rank's `buf` gets rank `root`'s.
    pub fn broadcast_in_place<T: Element>(
        &self,
        buf: &mut impl DeviceMemoryMut<T>,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::broadcast_in_place";
        let root = validate::rank(OP, "root", root, self.world_size())?;
        let b = output("buf", buf);
        let count = validate::count::<T>(OP, b.len)?;
        self.enqueue::<T>(OP, Call::Broadcast(root), (&b, &b), count, stream)
    }

    /// `ncclReduce`: rank `root`'s `recv` gets the reduction of every
    /// rank's `send`; the other ranks' `recv` is not written. Equal
    /// lengths on every rank.
    pub fn reduce<T: Element>(
        &self,
        send: &impl DeviceMemory<T>,
        recv: &mut impl DeviceMemoryMut<T>,
        op: ReduceOp,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::reduce";
        let root = validate::rank(OP, "root", root, self.world_size())?;
        let (s, r) = (input("send", send), output("recv", recv));
        validate::same_len(OP, ("send", s.len), ("recv", r.len))?;
        let count = validate::count::<T>(OP, s.len)?;
        let call = Call::Reduce(self.reduction(OP, op)?, root);
        self.enqueue::<T>(OP, call, (&s, &r), count, stream)
    }

    /// `ncclReduce` in place: rank `root`'s `buf` gets the reduction of
    /// every rank's `buf`; the others' is only read.
    pub fn reduce_in_place<T: Element>(
        &self,
        buf: &mut impl DeviceMemoryMut<T>,
        op: ReduceOp,
        root: usize,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::reduce_in_place";
        let root = validate::rank(OP, "root", root, self.world_size())?;
        let b = output("buf", buf);
        let count = validate::count::<T>(OP, b.len)?;
        let call = Call::Reduce(self.reduction(OP, op)?, root);
        self.enqueue::<T>(OP, call, (&b, &b), count, stream)
    }

    /// `ncclAllGather`: every rank's `recv` gets every rank's `send`, in
    /// rank order; `recv` holds world size x `send`'s length.
    pub fn all_gather<T: Element>(
        &self,
        send: &impl DeviceMemory<T>,
        recv: &mut impl DeviceMemoryMut<T>,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::all_gather";
        let (s, r) = (input("send", send), output("recv", recv));
        validate::world_multiple(OP, ("recv", r.len), ("send", s.len), self.world_size())?;
        validate::count::<T>(OP, r.len)?;
        self.enqueue::<T>(OP, Call::AllGather, (&s, &r), s.len, stream)
    }

    /// `ncclReduceScatter`: rank `i`'s `recv` gets the reduction of every
    /// rank's `i`-th part of `send`; `send` holds world size x `recv`'s
    /// length.
    pub fn reduce_scatter<T: Element>(
        &self,
        send: &impl DeviceMemory<T>,
        recv: &mut impl DeviceMemoryMut<T>,
        op: ReduceOp,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::reduce_scatter";
        let (s, r) = (input("send", send), output("recv", recv));
        validate::world_multiple(OP, ("send", s.len), ("recv", r.len), self.world_size())?;
        validate::count::<T>(OP, s.len)?;
        let call = Call::ReduceScatter(self.reduction(OP, op)?);
        self.enqueue::<T>(OP, call, (&s, &r), r.len, stream)
    }

    /// `ncclAllToAll`: rank `i`'s `j`-th part of `recv` gets rank `j`'s
    /// `i`-th part of `send`. Equal lengths, a multiple of the world size.
    pub fn all_to_all<T: Element>(
        &self,
        send: &impl DeviceMemory<T>,
        recv: &mut impl DeviceMemoryMut<T>,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::all_to_all";
        let (s, r) = (input("send", send), output("recv", recv));
        validate::same_len(OP, ("send", s.len), ("recv", r.len))?;
        let part = validate::divisible(OP, "send", s.len, self.world_size())?;
        validate::count::<T>(OP, s.len)?;
        self.enqueue::<T>(OP, Call::AllToAll, (&s, &r), part, stream)
    }

    /// `ncclSend`: sends `buf` to rank `peer`, which calls [`Comm::recv`]
    /// with as many elements. Pair them inside a [`crate::group`] when a
    /// rank both sends and receives, or they may wait for each other.
    ///
    /// ```no_run
    /// # fn f(comm: &rccl::Comm, out: &hip::DeviceBuffer<f32>, inc: &mut hip::DeviceBuffer<f32>, s: &hip::Stream) -> rccl::Result<()> {
    /// let n = comm.world_size();
    /// let (next, prev) = ((comm.rank() + 1) % n, (comm.rank() + n - 1) % n);
    /// rccl::group(|| {
    ///     comm.send(out, next, s)?;
    ///     comm.recv(inc, prev, s)
    /// })?;
    /// # Ok(()) }
    /// ```
    pub fn send<T: Element>(
        &self,
        buf: &impl DeviceMemory<T>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::send";
        let peer = validate::rank(OP, "peer", peer, self.world_size())?;
        let b = input("buf", buf);
        let count = validate::count::<T>(OP, b.len)?;
        self.enqueue::<T>(OP, Call::Send(peer), (&b, &b), count, stream)
    }

    /// `ncclRecv`: receives into `buf` what rank `peer` sends with
    /// [`Comm::send`] (as many elements as `buf` holds).
    pub fn recv<T: Element>(
        &self,
        buf: &mut impl DeviceMemoryMut<T>,
        peer: usize,
        stream: &Stream,
    ) -> Result<()> {
        const OP: &str = "Comm::recv";
        let peer = validate::rank(OP, "peer", peer, self.world_size())?;
        let b = output("buf", buf);
        let count = validate::count::<T>(OP, b.len)?;
        self.enqueue::<T>(OP, Call::Recv(peer), (&b, &b), count, stream)
    }
}
