//! `UnifiedSlice`: managed memory (`hipMallocManaged`), usable from the host
//! and the device; `UnifiedView`/`UnifiedViewMut`: borrowed parts of it,
//! as `&[T]`/`&mut [T]` are of a `Vec`.

use super::context::{CudaContext, CudaEvent, CudaStream};
use super::launch::{LaunchArgs, PushKernelArg};
use super::memory::{
    describe, host_slice_with_event, out_of_range, range, wait_then_record, DevicePtr,
    DevicePtrMut, DeviceRepr, DeviceSlice, HostSlice, SyncOnDrop, ValidAsZeroBits,
};
use crate::driver::result::{fail, invalid, DriverError, ToDriver};
use crate::driver::sys;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::RangeBounds;
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
    attach_mode: sys::CUmemAttach_flags,
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
            // hipFree acts on the whole device: made once no capture of it
            // is open (hip's capture gate).
            let p = self.cu_device_ptr;
            ctx.release_outside_captures(move |held| {
                // SAFETY: we own the allocation; its last use has finished.
                unsafe { hip::result::free(p as *mut c_void, held) }.drv()
            });
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
            sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL
        } else {
            sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST
        };
        self.bind_to_thread()?;
        let event = self.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))?;
        let mut p = std::ptr::null_mut();
        if bytes > 0 {
            p = hip::result::malloc_managed_with_flags(bytes, attach_mode as u32).drv()?;
            // Zeroed on a stream of its own, waited for: not on the null
            // stream, which would wait for every blocking stream and
            // invalidate their captures on other threads.
            let zeroed = hip::Stream::with_options(
                &self.device,
                hip::StreamOptions {
                    non_blocking: true,
                    priority: 0,
                },
            )
            .drv()
            .and_then(|s| {
                // SAFETY: `p` holds `bytes` bytes; the memset is waited for
                // before any other use.
                unsafe { hip::result::memset_async(p, 0, bytes, s.as_raw()) }.drv()?;
                s.synchronize().drv()
            });
            if let Err(e) = zeroed {
                let p = hip::SendPtr(p);
                self.release_outside_captures(move |held| {
                    // SAFETY: we own it and nothing uses it.
                    unsafe { hip::result::free(p.get(), held) }.drv()
                });
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
    /// Who may access the memory: `CU_MEM_ATTACH_GLOBAL` or
    /// `CU_MEM_ATTACH_HOST` from [`CudaContext::alloc_unified`], or what
    /// [`UnifiedSlice::attach`] set.
    pub fn attach_mode(&self) -> sys::CUmemAttach_flags {
        self.attach_mode
    }

    /// Attaches the memory to `stream` with `flags`
    /// (`hipStreamAttachMemAsync`) once its last recorded use has
    /// finished; later uses go through `stream`. The runtime refuses the
    /// null stream with `CU_MEM_ATTACH_SINGLE`, as CUDA's does; on an
    /// error nothing changes.
    pub fn attach(
        &mut self,
        stream: &Arc<CudaStream>,
        flags: sys::CUmemAttach_flags,
    ) -> Result<(), DriverError> {
        self.event.synchronize()?;
        stream.ctx.bind_to_thread()?;
        // SAFETY: the range is this whole allocation, and no recorded use
        // of it is pending (waited for above).
        unsafe {
            crate::driver::result::stream::attach_mem_async(
                stream.cu_stream(),
                self.cu_device_ptr,
                self.num_bytes(),
                flags,
            )
        }?;
        self.stream = stream.clone();
        self.attach_mode = flags;
        Ok(())
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
        unsafe {
            hip::result::mem_prefetch_async(
                self.cu_device_ptr as *const c_void,
                self.num_bytes(),
                ctx.ordinal as i32,
                self.stream.cu_stream(),
            )
        }
        .drv()?;
        self.event.record(&self.stream)
    }
    /// Makes host access to the memory allowed as its attach mode asks
    /// (cudarc's `check_host_access`): memory attached to one stream
    /// (`CU_MEM_ATTACH_SINGLE`) may be touched by the host only once that
    /// stream is idle, so this waits for the stream
    /// (`hipStreamSynchronize`); for `CU_MEM_ATTACH_GLOBAL` and
    /// `CU_MEM_ATTACH_HOST` there is nothing to wait for, as in cudarc.
    /// The same on AMD and NVIDIA. ([`UnifiedSlice::as_slice`] waits for
    /// the slice's own last device use in any case.)
    pub fn check_host_access(&self) -> Result<(), DriverError> {
        if host_access_waits_for_stream(self.attach_mode) {
            self.stream.synchronize()?;
        }
        Ok(())
    }

    /// Whether work on `stream` may access the memory under its attach
    /// mode (cudarc's `check_device_access`), answered without touching
    /// the memory:
    ///
    /// - `CU_MEM_ATTACH_GLOBAL`: any stream may.
    /// - `CU_MEM_ATTACH_HOST`: a stream may when its device can access
    ///   managed memory concurrently with the host
    ///   (`CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS`, asked of the
    ///   stream's device; on AMD, HIP typically says yes only where XNACK
    ///   is on).
    /// - `CU_MEM_ATTACH_SINGLE`: only the stream it is attached to
    ///   ([`UnifiedSlice::attach`]).
    ///
    /// A refusal is `CUDA_ERROR_NOT_SUPPORTED` with the reason in
    /// [`last_error_detail`](crate::driver::result::last_error_detail)
    /// where cudarc has `CUDA_ERROR_NOT_PERMITTED`, a status HIP lacks (as
    /// for [`CudaContext::alloc_unified`]).
    pub fn check_device_access(&self, stream: &CudaStream) -> Result<(), DriverError> {
        check_access(self.attach_mode, &self.stream, stream)
    }

    fn host(&self) -> &[T] {
        // SAFETY: the whole allocation, alive as long as `self`.
        unsafe { host_part(self.cu_device_ptr, self.len) }
    }
}

/// [`UnifiedSlice::check_device_access`] for memory attached with `mode`
/// to `owner`, asked by `stream`.
fn check_access(
    mode: sys::CUmemAttach_flags,
    owner: &CudaStream,
    stream: &CudaStream,
) -> Result<(), DriverError> {
    device_access(mode, *owner == *stream, || {
        stream.ctx.concurrent_managed_access()
    })
}

/// A device use of unified memory on `stream`: a refused access (its
/// attach mode, [`UnifiedSlice::check_device_access`]) is recorded in the
/// stream's context, as cudarc does, and returned by the next
/// `bind_to_thread`, copy or launch there.
fn note_access(mode: sys::CUmemAttach_flags, owner: &CudaStream, stream: &CudaStream) {
    if mode != sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL {
        stream.ctx.record_err(check_access(mode, owner, stream));
    }
}

/// Whether host access to managed memory attached with `mode` waits for
/// its stream first (`check_host_access`): only memory attached to one
/// stream.
fn host_access_waits_for_stream(mode: sys::CUmemAttach_flags) -> bool {
    mode == sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE
}

/// `check_device_access`'s answer for memory attached with `mode`, asked
/// by a stream that is (`own_stream`) or is not the memory's, whose device
/// `concurrent` says can or cannot access managed memory alongside the
/// host (asked only for `CU_MEM_ATTACH_HOST`).
fn device_access(
    mode: sys::CUmemAttach_flags,
    own_stream: bool,
    concurrent: impl FnOnce() -> Result<bool, DriverError>,
) -> Result<(), DriverError> {
    use sys::CUmemAttach_flags as A;
    match mode {
        A::CU_MEM_ATTACH_GLOBAL => Ok(()),
        A::CU_MEM_ATTACH_HOST => {
            if concurrent()? {
                Ok(())
            } else {
                Err(fail(
                    sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
                    "the memory is attached to the host (CU_MEM_ATTACH_HOST) and the \
                     stream's device cannot access managed memory concurrently with the host",
                ))
            }
        }
        A::CU_MEM_ATTACH_SINGLE => {
            if own_stream {
                Ok(())
            } else {
                Err(fail(
                    sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
                    "the memory is attached to one stream (CU_MEM_ATTACH_SINGLE), not this one",
                ))
            }
        }
    }
}

/// `len` elements of managed memory at `ptr`, on the host.
///
/// # Safety
///
/// `ptr` is `len` elements of a live [`UnifiedSlice`] (initialised: zeroed,
/// then device- or host-written) that outlives `'a`, and the caller waited
/// for device work on it.
unsafe fn host_part<'a, T>(ptr: sys::CUdeviceptr, len: usize) -> &'a [T] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's promise.
    unsafe { std::slice::from_raw_parts(ptr as *const T, len) }
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
        note_access(self.attach_mode, &self.stream, stream);
        (self.cu_device_ptr, wait_then_record(&self.event, stream))
    }
}

impl<T> DevicePtrMut<T> for UnifiedSlice<T> {
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        note_access(self.attach_mode, &self.stream, stream);
        (self.cu_device_ptr, wait_then_record(&self.event, stream))
    }
}

host_slice_with_event!(UnifiedSlice<T>, |this| this.cu_device_ptr as *mut T);
host_slice_with_event!(UnifiedView<'_, T>, |this| this.ptr as *mut T);
host_slice_with_event!(UnifiedViewMut<'_, T>, |this| this.ptr as *mut T);

// SAFETY: pushes the address of the pointer field (lives for 'b: 'a) and
// orders the launch after, and records it into, the slice's event.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b UnifiedSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b UnifiedSlice<T>) -> &mut Self {
        note_access(arg.attach_mode, &arg.stream, self.stream);
        self.track_event(arg.stream.ctx.ordinal, &arg.event);
        self.push_ptr(&arg.cu_device_ptr)
    }
}

// SAFETY: as above.
unsafe impl<'a, 'b: 'a, T> PushKernelArg<&'b mut UnifiedSlice<T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut UnifiedSlice<T>) -> &mut Self {
        let arg: &'b UnifiedSlice<T> = arg;
        note_access(arg.attach_mode, &arg.stream, self.stream);
        self.track_event(arg.stream.ctx.ordinal, &arg.event);
        self.push_ptr(&arg.cu_device_ptr)
    }
}

// ---- views -------------------------------------------------------------------

/// `&[T]` of unified memory (cudarc's `UnifiedView`): a part of a
/// [`UnifiedSlice`], from [`UnifiedSlice::as_view`] or
/// [`UnifiedSlice::slice`]. It shares the slice's event: device work and
/// host access through it wait for the slice's last device use, and device
/// work records into it.
///
/// **Threads**: `Send + Sync`, like `&[T]`.
#[derive(Debug)]
pub struct UnifiedView<'a, T> {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) event: &'a CudaEvent,
    pub(crate) stream: &'a Arc<CudaStream>,
    /// The slice's attach mode when the view was made (as cudarc's views).
    pub(crate) attach_mode: sys::CUmemAttach_flags,
    marker: PhantomData<&'a [T]>,
}

/// `&mut [T]` of unified memory (cudarc's `UnifiedViewMut`), from
/// [`UnifiedSlice::as_view_mut`] or [`UnifiedSlice::slice_mut`]; as
/// [`UnifiedView`], exclusive.
///
/// **Threads**: `Send + Sync`, like `&mut [T]`.
#[derive(Debug)]
pub struct UnifiedViewMut<'a, T> {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) event: &'a CudaEvent,
    pub(crate) stream: &'a Arc<CudaStream>,
    /// The slice's attach mode when the view was made (as cudarc's views).
    pub(crate) attach_mode: sys::CUmemAttach_flags,
    marker: PhantomData<&'a mut [T]>,
}

// SAFETY: an address and references to thread-safe handles, like `&[T]`.
unsafe impl<T> Send for UnifiedView<'_, T> {}
// SAFETY: as above.
unsafe impl<T> Sync for UnifiedView<'_, T> {}
// SAFETY: as above, like `&mut [T]`; host writes need `&mut`.
unsafe impl<T> Send for UnifiedViewMut<'_, T> {}
// SAFETY: as above.
unsafe impl<T> Sync for UnifiedViewMut<'_, T> {}

impl<T> Clone for UnifiedView<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for UnifiedView<'_, T> {}

/// `mid` past the end of a view of `len`, as slice splitting panics.
#[cold]
#[track_caller]
fn split_out_of_range(mid: usize, len: usize) -> ! {
    out_of_range(Some(mid), None, len)
}

impl<T> UnifiedSlice<T> {
    /// The whole slice as a view.
    pub fn as_view(&self) -> UnifiedView<'_, T> {
        UnifiedView {
            ptr: self.cu_device_ptr,
            len: self.len,
            event: &self.event,
            stream: &self.stream,
            attach_mode: self.attach_mode,
            marker: PhantomData,
        }
    }
    /// The whole slice as a mutable view.
    pub fn as_view_mut(&mut self) -> UnifiedViewMut<'_, T> {
        UnifiedViewMut {
            ptr: self.cu_device_ptr,
            len: self.len,
            event: &self.event,
            stream: &self.stream,
            attach_mode: self.attach_mode,
            marker: PhantomData,
        }
    }
}

impl<'a, T> UnifiedView<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// A sub-view of `bounds`; `None` out of range.
    pub fn try_slice(&self, bounds: impl RangeBounds<usize>) -> Option<UnifiedView<'a, T>> {
        let (start, end) = range(bounds, self.len)?;
        Some(UnifiedView {
            ptr: self.ptr + (start * size_of::<T>()) as u64,
            len: end - start,
            ..*self
        })
    }
    /// A sub-view of `bounds`.
    ///
    /// # Panics
    ///
    /// When `bounds` is out of range; [`UnifiedView::try_slice`] returns
    /// `None` instead.
    #[track_caller]
    pub fn slice(&self, bounds: impl RangeBounds<usize>) -> UnifiedView<'a, T> {
        let (start, end) = describe(&bounds);
        self.try_slice(bounds)
            .unwrap_or_else(|| out_of_range(start, end, self.len))
    }
    /// The two halves at `mid`; `None` past the end.
    pub fn try_split_at(&self, mid: usize) -> Option<(UnifiedView<'a, T>, UnifiedView<'a, T>)> {
        Some((self.try_slice(..mid)?, self.try_slice(mid..)?))
    }
    /// The two halves at `mid`.
    ///
    /// # Panics
    ///
    /// When `mid > len`; [`UnifiedView::try_split_at`] returns `None`.
    #[track_caller]
    pub fn split_at(&self, mid: usize) -> (UnifiedView<'a, T>, UnifiedView<'a, T>) {
        self.try_split_at(mid)
            .unwrap_or_else(|| split_out_of_range(mid, self.len))
    }
    fn host(&self) -> &[T] {
        // SAFETY: a part of a live UnifiedSlice, borrowed for 'a.
        unsafe { host_part(self.ptr, self.len) }
    }
}

impl<'a, T> UnifiedViewMut<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// A read-only view of it.
    pub fn as_view(&self) -> UnifiedView<'_, T> {
        UnifiedView {
            ptr: self.ptr,
            len: self.len,
            event: self.event,
            stream: self.stream,
            attach_mode: self.attach_mode,
            marker: PhantomData,
        }
    }
    /// A shorter-lived mutable view of the same memory.
    fn reborrow(&mut self) -> UnifiedViewMut<'_, T> {
        UnifiedViewMut {
            marker: PhantomData,
            ..*self
        }
    }
    /// The sub-view of `bounds`, consuming this one (keeps `'a`).
    fn into_slice_mut(self, bounds: impl RangeBounds<usize>) -> Option<UnifiedViewMut<'a, T>> {
        let (start, end) = range(bounds, self.len)?;
        Some(UnifiedViewMut {
            ptr: self.ptr + (start * size_of::<T>()) as u64,
            len: end - start,
            ..self
        })
    }
    /// The two halves at `mid`, consuming this view: disjoint, so both
    /// may be mutable.
    fn into_split_at_mut(
        self,
        mid: usize,
    ) -> Option<(UnifiedViewMut<'a, T>, UnifiedViewMut<'a, T>)> {
        (mid <= self.len).then(|| {
            let tail = UnifiedViewMut {
                ptr: self.ptr + (mid * size_of::<T>()) as u64,
                len: self.len - mid,
                marker: PhantomData,
                ..self
            };
            (UnifiedViewMut { len: mid, ..self }, tail)
        })
    }
    /// As `into_slice_mut`, panicking out of range (cudarc's contract).
    #[track_caller]
    fn into_slice_mut_or_panic(self, bounds: impl RangeBounds<usize>) -> UnifiedViewMut<'a, T> {
        let ((start, end), len) = (describe(&bounds), self.len);
        self.into_slice_mut(bounds)
            .unwrap_or_else(|| out_of_range(start, end, len))
    }
    /// As `into_split_at_mut`, panicking past the end (cudarc's contract).
    #[track_caller]
    fn into_split_at_mut_or_panic(
        self,
        mid: usize,
    ) -> (UnifiedViewMut<'a, T>, UnifiedViewMut<'a, T>) {
        let len = self.len;
        self.into_split_at_mut(mid)
            .unwrap_or_else(|| split_out_of_range(mid, len))
    }
    fn host(&self) -> &[T] {
        // SAFETY: a part of a live UnifiedSlice, borrowed for 'a.
        unsafe { host_part(self.ptr, self.len) }
    }
}

/// The slicing methods of a [`UnifiedSlice`] and a [`UnifiedViewMut`], as
/// cudarc names them: each goes through the read-only view (`as_view`) or
/// a mutable view of the whole (`$whole_mut`). The panicking forms panic
/// as slice indexing does (cudarc's contract); the `try_` forms return
/// `None` instead.
macro_rules! unified_slicing {
    ($ty:ty, $whole_mut:ident) => {
        impl<T> $ty {
            /// A view of `bounds`; `None` out of range.
            pub fn try_slice(&self, bounds: impl RangeBounds<usize>) -> Option<UnifiedView<'_, T>> {
                self.as_view().try_slice(bounds)
            }
            /// A view of `bounds`, as `&slice[bounds]`.
            ///
            /// # Panics
            ///
            /// When `bounds` is out of range; [`Self::try_slice`] returns
            /// `None` instead.
            #[track_caller]
            pub fn slice(&self, bounds: impl RangeBounds<usize>) -> UnifiedView<'_, T> {
                self.as_view().slice(bounds)
            }
            /// A mutable view of `bounds`; `None` out of range.
            pub fn try_slice_mut(
                &mut self,
                bounds: impl RangeBounds<usize>,
            ) -> Option<UnifiedViewMut<'_, T>> {
                self.$whole_mut().into_slice_mut(bounds)
            }
            /// A mutable view of `bounds`.
            ///
            /// # Panics
            ///
            /// When `bounds` is out of range; [`Self::try_slice_mut`]
            /// returns `None` instead.
            #[track_caller]
            pub fn slice_mut(&mut self, bounds: impl RangeBounds<usize>) -> UnifiedViewMut<'_, T> {
                self.$whole_mut().into_slice_mut_or_panic(bounds)
            }
            /// The two halves at `mid`; `None` past the end.
            pub fn try_split_at(
                &self,
                mid: usize,
            ) -> Option<(UnifiedView<'_, T>, UnifiedView<'_, T>)> {
                self.as_view().try_split_at(mid)
            }
            /// The two halves at `mid`.
            ///
            /// # Panics
            ///
            /// When `mid > len`; [`Self::try_split_at`] returns `None`.
            #[track_caller]
            pub fn split_at(&self, mid: usize) -> (UnifiedView<'_, T>, UnifiedView<'_, T>) {
                self.as_view().split_at(mid)
            }
            /// The two mutable halves at `mid`; `None` past the end.
            pub fn try_split_at_mut(
                &mut self,
                mid: usize,
            ) -> Option<(UnifiedViewMut<'_, T>, UnifiedViewMut<'_, T>)> {
                self.$whole_mut().into_split_at_mut(mid)
            }
            /// The two mutable halves at `mid`.
            ///
            /// # Panics
            ///
            /// When `mid > len`; [`Self::try_split_at_mut`] returns `None`.
            #[track_caller]
            pub fn split_at_mut(
                &mut self,
                mid: usize,
            ) -> (UnifiedViewMut<'_, T>, UnifiedViewMut<'_, T>) {
                self.$whole_mut().into_split_at_mut_or_panic(mid)
            }
        }
    };
}
unified_slicing!(UnifiedSlice<T>, as_view_mut);
unified_slicing!(UnifiedViewMut<'_, T>, reborrow);

/// The device-side traits of a view: its length and the slice's stream;
/// its address for work on `stream`, which waits for the slice's last
/// device use and records into its event when the guard drops.
macro_rules! unified_view_device_traits {
    ($($ty:ident),*) => {$(
        impl<T> DeviceSlice<T> for $ty<'_, T> {
            fn len(&self) -> usize {
                self.len
            }
            fn stream(&self) -> &Arc<CudaStream> {
                self.stream
            }
        }

        impl<T> DevicePtr<T> for $ty<'_, T> {
            fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
                note_access(self.attach_mode, self.stream, stream);
                (self.ptr, wait_then_record(self.event, stream))
            }
        }

        // SAFETY: pushes the address of the view's pointer field (lives for
        // 'b: 'a) and orders the launch after, and records it into, the
        // slice's event.
        unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b $ty<'c, T>> for LaunchArgs<'a> {
            #[inline(always)]
            fn arg(&mut self, arg: &'b $ty<'c, T>) -> &mut Self {
                note_access(arg.attach_mode, arg.stream, self.stream);
                self.track_event(arg.stream.ctx.ordinal, arg.event);
                self.push_ptr(&arg.ptr)
            }
        }
    )*};
}
unified_view_device_traits!(UnifiedView, UnifiedViewMut);

impl<T> DevicePtrMut<T> for UnifiedViewMut<'_, T> {
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        note_access(self.attach_mode, self.stream, stream);
        (self.ptr, wait_then_record(self.event, stream))
    }
}

// SAFETY: as for `&UnifiedViewMut`.
unsafe impl<'a, 'b: 'a, 'c: 'b, T> PushKernelArg<&'b mut UnifiedViewMut<'c, T>> for LaunchArgs<'a> {
    #[inline(always)]
    fn arg(&mut self, arg: &'b mut UnifiedViewMut<'c, T>) -> &mut Self {
        let arg: &'b UnifiedViewMut<'c, T> = arg;
        note_access(arg.attach_mode, arg.stream, self.stream);
        self.track_event(arg.stream.ctx.ordinal, arg.event);
        self.push_ptr(&arg.ptr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::result::last_error_detail;
    use sys::CUmemAttach_flags as A;

    fn never_asked() -> Result<bool, DriverError> {
        panic!("the device's concurrent access is asked only for CU_MEM_ATTACH_HOST")
    }

    #[test]
    fn global_memory_is_open_to_every_stream() {
        assert_eq!(
            device_access(A::CU_MEM_ATTACH_GLOBAL, true, never_asked),
            Ok(())
        );
        assert_eq!(
            device_access(A::CU_MEM_ATTACH_GLOBAL, false, never_asked),
            Ok(())
        );
    }

    #[test]
    fn single_stream_memory_is_open_to_its_stream_only() {
        assert_eq!(
            device_access(A::CU_MEM_ATTACH_SINGLE, true, never_asked),
            Ok(())
        );
        let e = device_access(A::CU_MEM_ATTACH_SINGLE, false, never_asked).unwrap_err();
        assert_eq!(e.0, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
        let (status, why) = last_error_detail().expect("a reason");
        assert_eq!(status, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
        assert!(why.contains("CU_MEM_ATTACH_SINGLE"), "{why}");
    }

    #[test]
    fn host_memory_needs_concurrent_managed_access() {
        for own in [true, false] {
            assert_eq!(
                device_access(A::CU_MEM_ATTACH_HOST, own, || Ok(true)),
                Ok(())
            );
            let e = device_access(A::CU_MEM_ATTACH_HOST, own, || Ok(false)).unwrap_err();
            assert_eq!(e.0, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
            let (_, why) = last_error_detail().expect("a reason");
            assert!(why.contains("concurrently"), "{why}");
        }
        // The attribute's own error is returned as it is.
        let failed = DriverError(sys::CUresult::CUDA_ERROR_INVALID_DEVICE);
        assert_eq!(
            device_access(A::CU_MEM_ATTACH_HOST, true, || Err(failed)),
            Err(failed)
        );
    }

    #[test]
    fn host_access_waits_only_for_single_stream_memory() {
        assert!(host_access_waits_for_stream(A::CU_MEM_ATTACH_SINGLE));
        assert!(!host_access_waits_for_stream(A::CU_MEM_ATTACH_GLOBAL));
        assert!(!host_access_waits_for_stream(A::CU_MEM_ATTACH_HOST));
    }
}
