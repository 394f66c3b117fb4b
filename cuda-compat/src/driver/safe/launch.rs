//! `LaunchConfig` and the launch builder `LaunchArgs`/`PushKernelArg`.

use super::context::{CudaEvent, CudaStream};
use super::memory::{CudaSlice, CudaView, CudaViewMut, DeviceRepr};
use super::module::CudaFunction;
use crate::driver::result::{check, DriverError, ToDriver};
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
#[derive(Debug)]
pub struct LaunchArgs<'a> {
    stream: &'a CudaStream,
    func: &'a CudaFunction,
    /// Buffers the kernel reads (`false`) or writes (`true`).
    accesses: Vec<(&'a hip::AccessEvents, bool)>,
    /// Unified memory's events, waited for and recorded.
    unified: Vec<&'a hip::Event>,
    args: Vec<*mut c_void>,
    flags: Option<sys::CUevent_flags>,
    wrong_device: bool,
}

impl CudaStream {
    /// A launch builder for `func` on this stream.
    pub fn launch_builder<'a>(&'a self, func: &'a CudaFunction) -> LaunchArgs<'a> {
        LaunchArgs {
            stream: self,
            func,
            accesses: Vec::new(),
            unified: Vec::new(),
            args: Vec::new(),
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
        self.args.push(arg as *const T as *mut c_void);
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
        self.args
            .push(ptr as *const sys::CUdeviceptr as *mut c_void);
        self
    }

    fn track(&mut self, ordinal: usize, events: &'a hip::AccessEvents, writes: bool) {
        if ordinal != self.stream.ctx.ordinal {
            self.wrong_device = true;
        }
        if self.stream.ctx.is_event_tracking() && events.is_tracked() {
            self.accesses.push((events, writes));
        }
    }
}

// SAFETY: pushes the address of the slice's pointer field, which lives for
// 'b: 'a; registers its events as a read.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b CudaSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b CudaSlice<T>) -> &mut Self {
        self.track(arg.stream.ctx.ordinal, arg.alloc.events(), false);
        self.args
            .push(&arg.cu_device_ptr as *const sys::CUdeviceptr as *mut c_void);
        self
    }
}

// SAFETY: as above, registering a write.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b mut CudaSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut CudaSlice<T>) -> &mut Self {
        let arg: &'b CudaSlice<T> = arg;
        self.track(arg.stream.ctx.ordinal, arg.alloc.events(), true);
        self.args
            .push(&arg.cu_device_ptr as *const sys::CUdeviceptr as *mut c_void);
        self
    }
}

// SAFETY: the view's pointer field lives for 'b: 'a; registers a read.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b CudaView<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b CudaView<'c, T>) -> &mut Self {
        self.track(arg.stream.ctx.ordinal, arg.events, false);
        self.args
            .push(&arg.ptr as *const sys::CUdeviceptr as *mut c_void);
        self
    }
}

// SAFETY: as above, registering a write.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b mut CudaViewMut<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut CudaViewMut<'c, T>) -> &mut Self {
        let arg: &'b CudaViewMut<'c, T> = arg;
        self.track(arg.stream.ctx.ordinal, arg.events, true);
        self.args
            .push(&arg.ptr as *const sys::CUdeviceptr as *mut c_void);
        self
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
        if self.wrong_device || self.func.module.ctx.ordinal != self.stream.ctx.ordinal {
            return Err(crate::driver::result::fail(
                sys::CUresult::CUDA_ERROR_INVALID_VALUE,
                "a kernel argument or the kernel belongs to another device than the stream",
            ));
        }
        // Checked against the device's limits first: a clear
        // `CUDA_ERROR_INVALID_VALUE` (the reason in `last_error_detail`).
        hip::LaunchConfig {
            grid: cfg.grid_dim,
            block: cfg.block_dim,
            shared_mem_bytes: cfg.shared_mem_bytes,
        }
        .validate(self.stream.ctx.device.launch_limits())
        .drv()?;
        self.stream.ctx.bind_to_thread()?;
        self.order_accesses(Phase::BeforeLaunch)?;
        let start = self.timing_event()?;
        let (g, b) = (cfg.grid_dim, cfg.block_dim);
        let f = self.func.function.as_raw();
        let s = self.stream.cu_stream();
        let params = self.args.as_mut_ptr();
        // SAFETY: every pointer in `args` points at a live argument value
        // (the PushKernelArg contract); the caller vouches for the kernel.
        let status = unsafe {
            if cooperative {
                hip::sys::hipModuleLaunchCooperativeKernel(
                    f,
                    g.0,
                    g.1,
                    g.2,
                    b.0,
                    b.1,
                    b.2,
                    cfg.shared_mem_bytes,
                    s,
                    params,
                )
            } else {
                hip::sys::hipModuleLaunchKernel(
                    f,
                    g.0,
                    g.1,
                    g.2,
                    b.0,
                    b.1,
                    b.2,
                    cfg.shared_mem_bytes,
                    s,
                    params,
                    std::ptr::null_mut(),
                )
            }
        };
        check(status)?;
        let end = self.timing_event()?;
        self.order_accesses(Phase::AfterLaunch)?;
        Ok(start.zip(end))
    }

    /// Before the launch, makes the stream wait for every argument's last
    /// conflicting use; after it, records the launch as each argument's
    /// new read or write (and into each unified buffer's event).
    fn order_accesses(&self, phase: Phase) -> Result<(), DriverError> {
        let hs = &self.stream.stream;
        for &(events, writes) in &self.accesses {
            match (phase, writes) {
                (Phase::BeforeLaunch, true) => events.wait_before_write(hs),
                (Phase::BeforeLaunch, false) => events.wait_before_read(hs),
                (Phase::AfterLaunch, true) => events.record_write(hs),
                (Phase::AfterLaunch, false) => events.record_read(hs),
            }
            .drv()?;
        }
        for &e in &self.unified {
            match phase {
                Phase::BeforeLaunch => hs.wait_event(e),
                Phase::AfterLaunch => e.record(hs),
            }
            .drv()?;
        }
        Ok(())
    }

    /// An event recorded on the stream with the flags given to
    /// [`LaunchArgs::record_kernel_launch`], if it was called.
    fn timing_event(&self) -> Result<Option<CudaEvent>, DriverError> {
        self.flags
            .map(|f| self.stream.record_event(Some(f)))
            .transpose()
    }
}

/// Which side of the kernel launch [`LaunchArgs::order_accesses`] works on.
#[derive(Clone, Copy)]
enum Phase {
    BeforeLaunch,
    AfterLaunch,
}
