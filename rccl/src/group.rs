//! Groups: several calls launched together (`ncclGroupStart`/`End`).

use crate::comm::record_drop_result;
use crate::error::Result;
use crate::result::{self, library};
use std::marker::PhantomData;

/// An open group (`ncclGroupStart`): the calls made until
/// [`Group::end`] are launched together when it ends. Needed when one
/// thread drives several communicators, or pairs a rank's sends and
/// receives. Groups nest.
///
/// Dropping it without [`Group::end`] ends it anyway, recording an error
/// for [`crate::take_drop_errors`].
///
/// **Threads**: neither `Send` nor `Sync`: RCCL keeps the open group per
/// thread, so it must end on the thread that started it.
#[derive(Debug)]
#[must_use = "the group's calls are launched when it ends"]
pub struct Group {
    ended: bool,
    _per_thread: PhantomData<*const ()>,
}

impl Group {
    /// `ncclGroupStart`.
    pub fn start() -> Result<Group> {
        library()?;
        // SAFETY: no arguments; RCCL keeps the group per thread.
        result::group_start()?;
        Ok(Group {
            ended: false,
            _per_thread: PhantomData,
        })
    }

    /// `ncclGroupEnd`: launches the group's calls (on their streams; the
    /// host does not wait for them).
    pub fn end(mut self) -> Result<()> {
        self.ended = true;
        end_group()
    }
}

fn end_group() -> Result<()> {
    // SAFETY: a group started on this thread (`Group` is not `Send`) is
    // open.
    unsafe { result::group_end() }
}

impl Drop for Group {
    fn drop(&mut self) {
        if !self.ended {
            record_drop_result(end_group());
        }
    }
}

/// Runs `f` inside a group: [`Group::start`], `f`, [`Group::end`]. The
/// first error is returned (`f`'s before the end's); the group is ended
/// either way, launching the calls `f` made before failing.
///
/// ```no_run
/// # fn f(comms: &[rccl::Comm], bufs: &mut [hip::DeviceBuffer<f32>], streams: &[hip::Stream]) -> rccl::Result<()> {
/// rccl::group(|| {
///     for ((comm, buf), stream) in comms.iter().zip(bufs.iter_mut()).zip(streams) {
///         comm.all_reduce_in_place(buf, rccl::ReduceOp::Sum, stream)?;
///     }
///     Ok(())
/// })?;
/// # Ok(()) }
/// ```
pub fn group<R>(f: impl FnOnce() -> Result<R>) -> Result<R> {
    let g = Group::start()?;
    let out = f();
    let ended = g.end();
    let value = out?;
    ended?;
    Ok(value)
}
