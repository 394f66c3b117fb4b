//! `LaunchConfig` and the launch builder `LaunchArgs`/`PushKernelArg`.

use super::context::{CudaEvent, CudaStream};
use super::memory::{CudaSlice, CudaView, CudaViewMut, DeviceRepr};
use super::module::CudaFunction;
use crate::driver::result::{DriverError, ToDriver};
use crate::driver::sys;
use std::ffi::c_void;

/// Grid, block and dynamic shared memory of a launch (cudarc's fields).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LaunchConfig {
    /// Blocks in the grid (x, y, z).
    pub grid_dim: (u32, u32, u32),
    /// Threads in a block (x, y, z).
    pub block_dim: (u32, u32, u32),
    /// Dynamic shared memory per block, bytes.
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// One thread per element in blocks of 1024 (cudarc's choice):
    /// `ceil(n / 1024)` blocks, no shared memory.
    ///
    /// ```
    /// use cuda_compat::driver::LaunchConfig;
    /// let c = LaunchConfig::for_num_elems(1025);
    /// assert_eq!((c.grid_dim, c.block_dim), ((2, 1, 1), (1024, 1, 1)));
    /// ```
    pub fn for_num_elems(n: u32) -> LaunchConfig {
        const THREADS: u32 = 1024;
        LaunchConfig {
            grid_dim: (n.div_ceil(THREADS), 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        }
    }
}

/// The launch builder (cudarc's `LaunchArgs`): made by
/// [`CudaStream::launch_builder`], arguments pushed in the kernel's order
/// with [`PushKernelArg::arg`], launched with [`LaunchArgs::launch`].
///
/// Buffers pushed as `&CudaSlice`/`&CudaView` are read, as
/// `&mut CudaSlice`/`&mut CudaViewMut` written: before the launch the
/// stream waits for their last write (and, for written ones, last read);
/// after it their events are recorded. A buffer of another device is
/// rejected at launch with `CUDA_ERROR_INVALID_VALUE`.
///
/// The list is `hip`'s [`hip::LaunchArgs`] and the launch `hip`'s
/// [`hip::Stream::launch_with`]: the same argument storage (in place for
/// the first 16 arguments, no allocation) and the same ordering of tracked
/// buffers as `hip`'s own launches.
#[derive(Debug)]
pub struct LaunchArgs<'a> {
    pub(crate) stream: &'a CudaStream,
    func: &'a CudaFunction,
    /// The parameters, and the tracked buffers with how they are used.
    args: hip::LaunchArgs<'a>,
    /// Unified memory's events, waited for and recorded.
    unified: Vec<&'a hip::Event>,
    flags: Option<sys::CUevent_flags>,
    /// An argument of another device that `hip`'s launch will not see
    /// (unified memory, or a buffer whose accesses are not tracked): `hip`
    /// checks the tracked buffers and the kernel itself, with messages
    /// naming the devices, so only these are checked here.
    wrong_device: bool,
}

impl CudaStream {
    /// A launch builder for `func` on this stream.
    pub fn launch_builder<'a>(&'a self, func: &'a CudaFunction) -> LaunchArgs<'a> {
        LaunchArgs {
            stream: self,
            func,
            args: hip::LaunchArgs::new(),
            unified: Vec::new(),
            flags: None,
            wrong_device: false,
        }
    }
}

/// Pushing one kernel argument (cudarc's `PushKernelArg`).
///
/// # Safety
///
/// An implementation pushes a pointer to the argument's value that stays
/// valid for the builder's lifetime, and registers the events of the memory
/// it lets the kernel touch.
pub unsafe trait PushKernelArg<T> {
    /// Pushes `arg` as the next kernel parameter.
    fn arg(&mut self, arg: T) -> &mut Self;
}

// SAFETY: the value lives for 'b: 'a; DeviceRepr types have a C layout.
unsafe impl<'a, 'b: 'a, T: DeviceRepr> PushKernelArg<&'b T> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b T) -> &mut Self {
        // SAFETY: the value lives for 'b: 'a, as long as the list.
        unsafe { self.args.push_param(arg as *const T as *mut c_void) };
        self
    }
}

impl<'a> LaunchArgs<'a> {
    /// One event both waited for and recorded (unified memory's).
    pub(crate) fn track_event(&mut self, ordinal: usize, event: &'a CudaEvent) {
        if ordinal != self.stream.ctx.ordinal {
            self.wrong_device = true;
        }
        self.unified.push(&event.event);
    }

    /// Pushes the address of a device pointer as the next parameter.
    pub(crate) fn push_ptr(&mut self, ptr: &'a sys::CUdeviceptr) -> &mut Self {
        // SAFETY: the pointer field lives for 'a, as long as the list.
        unsafe {
            self.args
                .push_param(ptr as *const sys::CUdeviceptr as *mut c_void)
        };
        self
    }

    fn track(&mut self, ordinal: usize, events: &'a hip::AccessEvents, writes: bool) {
        if self.stream.ctx.is_event_tracking() && events.is_tracked() {
            // hip's launch checks its device, naming both.
            self.args.access(events, writes, ordinal);
        } else if ordinal != self.stream.ctx.ordinal {
            self.wrong_device = true;
        }
    }
}

// SAFETY: pushes the address of the slice's pointer field, which lives for
// 'b: 'a; registers its events as a read.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b CudaSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b CudaSlice<T>) -> &mut Self {
        self.track(arg.stream.ctx.ordinal, arg.alloc.events(), false);
        self.push_ptr(&arg.cu_device_ptr)
    }
}

// SAFETY: as above, registering a write.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b mut CudaSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut CudaSlice<T>) -> &mut Self {
        let arg: &'b CudaSlice<T> = arg;
        self.track(arg.stream.ctx.ordinal, arg.alloc.events(), true);
        self.push_ptr(&arg.cu_device_ptr)
    }
}

// SAFETY: the view's pointer field lives for 'b: 'a; registers a read.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b CudaView<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b CudaView<'c, T>) -> &mut Self {
        self.track(arg.stream.ctx.ordinal, arg.events, false);
        self.push_ptr(&arg.ptr)
    }
}

// SAFETY: as above, registering a write.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b mut CudaViewMut<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut CudaViewMut<'c, T>) -> &mut Self {
        let arg: &'b CudaViewMut<'c, T> = arg;
        self.track(arg.stream.ctx.ordinal, arg.events, true);
        self.push_ptr(&arg.ptr)
    }
}

impl LaunchArgs<'_> {
    /// Makes [`LaunchArgs::launch`] also return events recorded just
    /// before and after the kernel (for timing: pass
    /// `CU_EVENT_DEFAULT`).
    pub fn record_kernel_launch(&mut self, flags: sys::CUevent_flags) -> &mut Self {
        self.flags = Some(flags);
        self
    }

    /// Enqueues the kernel (`hipModuleLaunchKernel`). The configuration
    /// is checked against the device's limits first (a zero dimension, too
    /// many threads, too much shared memory: `CUDA_ERROR_INVALID_VALUE`).
    ///
    /// # Safety
    ///
    /// The arguments match the kernel's parameters in number, order and
    /// type; the kernel stays within the buffers; buffers it writes were
    /// pushed as `&mut`.
    pub unsafe fn launch(
        &mut self,
        cfg: LaunchConfig,
    ) -> Result<Option<(CudaEvent, CudaEvent)>, DriverError> {
        // SAFETY: the caller's contract.
        unsafe { self.launch_inner(cfg, false) }
    }

    /// Enqueues a cooperative kernel (`hipModuleLaunchCooperativeKernel`).
    ///
    /// # Safety
    ///
    /// As [`LaunchArgs::launch`]; the grid fits on the device at once.
    pub unsafe fn launch_cooperative(
        &mut self,
        cfg: LaunchConfig,
    ) -> Result<Option<(CudaEvent, CudaEvent)>, DriverError> {
        // SAFETY: the caller's contract.
        unsafe { self.launch_inner(cfg, true) }
    }

    unsafe fn launch_inner(
        &mut self,
        cfg: LaunchConfig,
        cooperative: bool,
    ) -> Result<Option<(CudaEvent, CudaEvent)>, DriverError> {
        // An error recorded by an argument (a refused unified-memory
        // access) or an earlier asynchronous use, as cudarc's launch
        // returns it through bind_to_thread.
        self.stream.ctx.check_err()?;
        // The kernel's device and the tracked buffers' are hip's to check
        // (`launch_with`, whose message names the devices); what hip does
        // not see is checked here.
        if self.wrong_device {
            return Err(crate::driver::result::fail(
                sys::CUresult::CUDA_ERROR_INVALID_VALUE,
                "a kernel argument (unified memory, or an untracked buffer) belongs to another device than the stream",
            ));
        }
        let timing = match self.flags {
            Some(f) => Some((
                self.stream.ctx.new_event(Some(f))?,
                self.stream.ctx.new_event(Some(f))?,
            )),
            None => None,
        };
        let hs = &self.stream.stream;
        for &e in &self.unified {
            hs.wait_event(e).drv()?;
        }
        // `hip` checks the configuration against the device's limits (a
        // clear `CUDA_ERROR_INVALID_VALUE`, the reason in
        // `last_error_detail`), binds the device, orders the tracked
        // buffers around the kernel and records the timing events.
        let options = hip::LaunchOptions {
            cooperative,
            timing: timing.as_ref().map(|(s, e)| (&s.event, &e.event)),
        };
        let hip_cfg = hip::LaunchConfig {
            grid: cfg.grid_dim,
            block: cfg.block_dim,
            shared_mem_bytes: cfg.shared_mem_bytes,
        };
        // SAFETY: every parameter points at a live argument value (the
        // PushKernelArg contract); the caller vouches for the kernel.
        unsafe { hs.launch_with(&self.func.function, hip_cfg, &mut self.args, options) }.drv()?;
        for &e in &self.unified {
            e.record(hs).drv()?;
        }
        Ok(timing)
    }
}
