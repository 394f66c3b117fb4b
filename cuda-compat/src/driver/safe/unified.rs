//! `UnifiedSlice`: managed memory (`hipMallocManaged`), usable from the host
//! and the device.

use super::context::{CudaContext, CudaEvent, CudaStream};
use super::launch::{LaunchArgs, PushKernelArg};
use super::memory::{
    host_slice_with_event, wait_then_record, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice,
    HostSlice, SyncOnDrop, ValidAsZeroBits,
};
use crate::driver::result::{check, fail, invalid, DriverError};
use crate::driver::sys;
use hip::sys as hs;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::Arc;

/// Managed memory of `len` elements (cudarc's `UnifiedSlice`), zeroed at
/// allocation. One event records the last device use: host access
/// ([`UnifiedSlice::as_slice`]) waits for it, and device work on any stream
/// waits for it first.
///
/// **Threads**: `Send + Sync`: an address and thread-safe handles; host
/// writes need `&mut`.
#[derive(Debug)]
pub struct UnifiedSlice<T> {
    pub(crate) cu_device_ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) event: CudaEvent,
    attach_mode: u32,
    marker: PhantomData<*const T>,
}

// SAFETY: see the type's docs.
unsafe impl<T> Send for UnifiedSlice<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for UnifiedSlice<T> {}

impl<T> Drop for UnifiedSlice<T> {
    fn drop(&mut self) {
        let ctx = &self.stream.ctx;
        ctx.record_err(self.event.synchronize());
        if self.cu_device_ptr != 0 {
            // SAFETY: we own the allocation; its last use has finished.
            ctx.record_err(check(unsafe {
                hs::hipFree(self.cu_device_ptr as *mut c_void)
            }));
        }
    }
}

impl CudaContext {
    /// `len` elements of managed memory (`hipMallocManaged`), zeroed;
    /// attached globally (`hipMemAttachGlobal`) or to the host
    /// (`hipMemAttachHost`). A device without managed memory is
    /// `CUDA_ERROR_NOT_SUPPORTED` (HIP has no `NOT_PERMITTED`).
    ///
    /// # Safety
    ///
    /// None beyond cudarc's signature: the memory is zeroed, so reading it
    /// as `T` (`ValidAsZeroBits` for host access) is sound.
    pub unsafe fn alloc_unified<T: DeviceRepr>(
        self: &Arc<Self>,
        len: usize,
        attach_global: bool,
    ) -> Result<UnifiedSlice<T>, DriverError> {
        if self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY)? == 0 {
            return Err(fail(
                sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
                "this device has no managed memory",
            ));
        }
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(invalid)?;
        let attach_mode = if attach_global {
            hs::hipMemAttachGlobal
        } else {
            hs::hipMemAttachHost
        };
        self.bind_to_thread()?;
        let event = self.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))?;
        let mut p = std::ptr::null_mut();
        if bytes > 0 {
            // SAFETY: `p` is a valid place.
            check(unsafe { hs::hipMallocManaged(&mut p, bytes, attach_mode) })?;
            // SAFETY: `p` holds `bytes` bytes; the blocking memset finishes
            // before any other use.
            let zeroed = check(unsafe { hs::hipMemset(p, 0, bytes) });
            if let Err(e) = zeroed {
                // SAFETY: we own it and nothing uses it.
                self.record_err(check(unsafe { hs::hipFree(p) }));
                return Err(e);
            }
        }
        Ok(UnifiedSlice {
            cu_device_ptr: p as sys::CUdeviceptr,
            len,
            stream: self.default_stream(),
            event,
            attach_mode,
            marker: PhantomData,
        })
    }
}

impl<T> UnifiedSlice<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len * size_of::<T>()
    }
    /// `hipMemAttachGlobal` or `hipMemAttachHost`.
    pub fn attach_mode(&self) -> u32 {
        self.attach_mode
    }
    /// Migrates the memory to the device ahead of use, on its stream
    /// (`hipMemPrefetchAsync`).
    pub fn prefetch(&self) -> Result<(), DriverError> {
        if self.cu_device_ptr == 0 {
            return Ok(());
        }
        let ctx = &self.stream.ctx;
        ctx.bind_to_thread()?;
        self.stream.wait(&self.event)?;
        // SAFETY: the range is this allocation.
        check(unsafe {
            hs::hipMemPrefetchAsync(
                self.cu_device_ptr as *const c_void,
                self.num_bytes(),
                ctx.ordinal as i32,
                self.stream.cu_stream(),
            )
        })?;
        self.event.record(&self.stream)
    }
    fn host(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `len` initialised (zeroed, then device- or host-written)
        // elements; the caller waited for device work.
        unsafe { std::slice::from_raw_parts(self.cu_device_ptr as *const T, self.len) }
    }
}

impl<T: ValidAsZeroBits> UnifiedSlice<T> {
    /// The contents on the host, after the last device use.
    pub fn as_slice(&self) -> Result<&[T], DriverError> {
        self.event.synchronize()?;
        Ok(self.host())
    }
    /// The contents on the host, mutably, after the last device use.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T], DriverError> {
        self.event.synchronize()?;
        if self.len == 0 {
            return Ok(&mut []);
        }
        // SAFETY: as `host`, and `&mut self` is exclusive.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.cu_device_ptr as *mut T, self.len) })
    }
}

impl<T> DeviceSlice<T> for UnifiedSlice<T> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

impl<T> DevicePtr<T> for UnifiedSlice<T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (self.cu_device_ptr, wait_then_record(&self.event, stream))
    }
}

impl<T> DevicePtrMut<T> for UnifiedSlice<T> {
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (self.cu_device_ptr, wait_then_record(&self.event, stream))
    }
}

host_slice_with_event!(UnifiedSlice, |this| this.cu_device_ptr as *mut T);

// SAFETY: pushes the address of the pointer field (lives for 'b: 'a) and
// orders the launch after, and records it into, the slice's event.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b UnifiedSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b UnifiedSlice<T>) -> &mut Self {
        self.track_event(arg.stream.ctx.ordinal, &arg.event);
        self.push_ptr(&arg.cu_device_ptr)
    }
}

// SAFETY: as above.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b mut UnifiedSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut UnifiedSlice<T>) -> &mut Self {
        let arg: &'b UnifiedSlice<T> = arg;
        self.track_event(arg.stream.ctx.ordinal, &arg.event);
        self.push_ptr(&arg.cu_device_ptr)
    }
}
