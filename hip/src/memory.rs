//! Device, pinned-host and managed memory; views; copies; pools.

use crate::device::Device;
use crate::drop_errors;
use crate::error::{Error, Result};
use crate::result;
use crate::stream::{Event, Stream, StreamInner};
use hip_sys as sys;
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Bound, Range, RangeBounds};
use std::sync::{Arc, Mutex};

/// Element types that may live in GPU memory and be passed to kernels by
/// value.
///
/// # Safety
///
/// Implement only for `Copy` types with a fixed C layout (`#[repr(C)]` or
/// `#[repr(transparent)]` over such types) that hold no references or host
/// pointers, and for which **every bit pattern is a valid value**. The last
/// condition is what makes device memory safe to read back: whatever a kernel
/// wrote (even racing or uninitialised data) is a valid `T` on the host.
/// So `bool`, `char`, references and enums must not implement it.
///
/// ```
/// #[derive(Clone, Copy)]
/// #[repr(C)]
/// struct Particle { x: f32, y: f32, mass: f32, id: u32 }
/// // SAFETY: repr(C), no padding, every bit pattern of each field is valid.
/// unsafe impl hip::DeviceRepr for Particle {}
/// ```
pub unsafe trait DeviceRepr: Copy + Send + Sync + 'static {}

/// Types for which all-zero bytes are a valid value, so zero-filling
/// (`hipMemset` with 0) produces valid `T`s.
///
/// # Safety
///
/// All-zero bytes must be a valid value of the type.
pub unsafe trait ValidAsZeroBits {}

macro_rules! impl_plain {
    ($($t:ty),*) => {$(
        // SAFETY: a primitive number: fixed layout, every bit pattern valid.
        unsafe impl DeviceRepr for $t {}
        // SAFETY: zero is a valid value of a primitive number.
        unsafe impl ValidAsZeroBits for $t {}
    )*};
}
impl_plain!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    half::f16,
    half::bf16
);

// SAFETY: an array of valid-for-all-bits elements is valid for all bits.
unsafe impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] {}
// SAFETY: an array of zero-valid elements is zero-valid.
unsafe impl<T: ValidAsZeroBits, const N: usize> ValidAsZeroBits for [T; N] {}

// ---- validators ----------------------------------------------------------

/// Size in bytes of `len` elements of `T`, or an error on overflow.
///
/// Zero-sized element types are rejected: device memory of them would be
/// empty whatever its length, which no runtime call can represent.
pub fn checked_bytes<T>(operation: &'static str, len: usize) -> Result<usize> {
    if size_of::<T>() == 0 {
        return Err(Error::invalid(
            operation,
            format!(
                "{} is zero-sized; buffers need elements of at least one byte",
                std::any::type_name::<T>()
            ),
        ));
    }
    len.checked_mul(size_of::<T>()).ok_or_else(|| {
        Error::invalid(
            operation,
            format!(
                "{len} elements of {} ({} bytes each) overflow usize",
                std::any::type_name::<T>(),
                size_of::<T>()
            ),
        )
    })
}

/// Resolves `range` against a buffer of `len` elements, rejecting ranges
/// that are reversed, overflow, or end past `len`.
pub fn check_range(
    operation: &'static str,
    len: usize,
    range: impl RangeBounds<usize>,
) -> Result<Range<usize>> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    match (start, end) {
        (Some(s), Some(e)) if s <= e && e <= len => Ok(s..e),
        _ => Err(Error::invalid(
            operation,
            format!(
                "range {:?}..{:?} is not within 0..{len}",
                range.start_bound(),
                range.end_bound()
            ),
        )),
    }
}

/// Rejects copies between different lengths.
pub fn check_same_len(operation: &'static str, src: usize, dst: usize) -> Result<()> {
    if src == dst {
        Ok(())
    } else {
        Err(Error::invalid(
            operation,
            format!("source has {src} elements but destination has {dst}"),
        ))
    }
}

fn check_device(
    operation: &'static str,
    what: &str,
    expected: &Device,
    got: &Device,
) -> Result<()> {
    if expected.ordinal() == got.ordinal() {
        Ok(())
    } else {
        Err(Error::invalid(
            operation,
            format!(
                "{what} is on device {} but the stream is on device {}",
                got.ordinal(),
                expected.ordinal()
            ),
        ))
    }
}

// ---- device memory traits ------------------------------------------------

mod sealed {
    pub trait Sealed {}
}

/// Device memory holding `len()` elements of `T`: buffers and views.
/// Sealed: only this crate's types, whose pointers and lengths are right.
pub trait DeviceMemory<T: DeviceRepr>: sealed::Sealed {
    /// Device address of the first element.
    fn device_ptr(&self) -> *const T;
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The device the memory is on.
    fn device(&self) -> &Arc<Device>;
}

/// Device memory that may be written.
pub trait DeviceMemoryMut<T: DeviceRepr>: DeviceMemory<T> {
    /// Device address of the first element, for writing.
    fn device_ptr_mut(&mut self) -> *mut T;
}

enum Owner {
    /// `hipMalloc`: freed with `hipFree`, which waits for the device.
    Sync,
    /// `hipMallocAsync`/`hipMallocFromPoolAsync`: freed in order on the
    /// stream; the pool (if any) is kept alive until then.
    Stream {
        stream: Arc<StreamInner>,
        _pool: Option<MemPool>,
    },
}

/// A typed allocation of `len` elements in device memory.
///
/// Not `Clone` (copy explicitly); freed on drop. Zero-length buffers
/// allocate nothing.
///
/// **Threads**: `Send + Sync`. The buffer is just a device address; shared
/// references only allow reading it (copies out, kernel inputs), and
/// writing takes `&mut`.
pub struct DeviceBuffer<T: DeviceRepr> {
    ptr: *mut T,
    len: usize,
    device: Arc<Device>,
    owner: Owner,
}

// SAFETY: see the type's docs: device memory is not tied to a host thread.
unsafe impl<T: DeviceRepr> Send for DeviceBuffer<T> {}
// SAFETY: `&DeviceBuffer` only permits reads of device memory.
unsafe impl<T: DeviceRepr> Sync for DeviceBuffer<T> {}

impl<T: DeviceRepr> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("device", &self.device.ordinal())
            .field(
                "stream_ordered",
                &matches!(self.owner, Owner::Stream { .. }),
            )
            .finish()
    }
}

impl<T: DeviceRepr> DeviceBuffer<T> {
    /// Allocates `len` elements without initialising them (`hipMalloc`).
    ///
    /// Safe because every bit pattern is a valid `T` ([`DeviceRepr`]): the
    /// contents are unspecified values, never undefined behaviour.
    pub fn uninit(device: &Arc<Device>, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = checked_bytes::<T>("DeviceBuffer::uninit", len)?;
        let ptr = if bytes == 0 {
            std::ptr::null_mut()
        } else {
            device.bind()?;
            result::malloc(bytes)?.cast::<T>()
        };
        Ok(DeviceBuffer {
            ptr,
            len,
            device: device.clone(),
            owner: Owner::Sync,
        })
    }

    /// Allocates `len` zeroed elements.
    pub fn zeroed(device: &Arc<Device>, len: usize) -> Result<DeviceBuffer<T>>
    where
        T: ValidAsZeroBits,
    {
        let mut b = DeviceBuffer::uninit(device, len)?;
        let stream = Stream::default_for(device);
        stream.memset_zeros(&mut b)?;
        stream.synchronize()?;
        Ok(b)
    }

    /// Allocates a buffer holding a copy of `data` (blocking copy).
    pub fn from_slice(device: &Arc<Device>, data: &[T]) -> Result<DeviceBuffer<T>> {
        let mut b = DeviceBuffer::uninit(device, data.len())?;
        b.copy_from_slice(data)?;
        Ok(b)
    }

    /// Number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device holding the memory.
    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// The device address (null for an empty buffer).
    #[inline]
    pub fn as_device_ptr(&self) -> *const T {
        self.ptr
    }

    /// The device address, for writing (null for an empty buffer).
    #[inline]
    pub fn as_device_ptr_mut(&mut self) -> *mut T {
        self.ptr
    }

    /// Copies `data` into the buffer and waits for the copy (`hipMemcpy`).
    /// The lengths must be equal.
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<()> {
        check_same_len("DeviceBuffer::copy_from_slice", data.len(), self.len)?;
        if self.len == 0 {
            return Ok(());
        }
        self.device.bind()?;
        let bytes = checked_bytes::<T>("DeviceBuffer::copy_from_slice", self.len)?;
        // SAFETY: both ranges hold `bytes` bytes; hipMemcpy returns when done.
        unsafe {
            result::memcpy(
                self.ptr.cast(),
                data.as_ptr().cast(),
                bytes,
                sys::hipMemcpyKind::hipMemcpyHostToDevice,
            )
        }
    }

    /// Copies the buffer into `out` and waits (`hipMemcpy`). The lengths
    /// must be equal.
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        self.as_slice().copy_to_slice(out)
    }

    /// Copies the buffer into a new `Vec` (blocking).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.as_slice().to_vec()
    }

    /// A view of the whole buffer.
    #[inline]
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            ptr: self.ptr,
            len: self.len,
            device: &self.device,
            _p: PhantomData,
        }
    }

    /// A writable view of the whole buffer.
    #[inline]
    pub fn as_slice_mut(&mut self) -> DeviceSliceMut<'_, T> {
        DeviceSliceMut {
            ptr: self.ptr,
            len: self.len,
            device: &self.device,
            _p: PhantomData,
        }
    }

    /// A view of `range` (checked).
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'_, T>> {
        self.as_slice().slice(range)
    }

    /// A writable view of `range` (checked).
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'_, T>> {
        let r = check_range("DeviceBuffer::slice_mut", self.len, range)?;
        Ok(DeviceSliceMut {
            ptr: offset(self.ptr, r.start),
            len: r.len(),
            device: &self.device,
            _p: PhantomData,
        })
    }

    /// Frees a buffer from [`Stream::alloc`] in that stream's order
    /// (`hipFreeAsync`) without waiting, where dropping it would first wait
    /// for the whole device. A buffer from `hipMalloc` is dropped as usual.
    ///
    /// # Safety
    /// Every use of the buffer on any stream other than the allocating one
    /// must be ordered before this point of the allocating stream (for
    /// example with an event it waits on), or be complete: the memory goes
    /// back to the pool, where a later allocation or a trim takes it.
    pub unsafe fn free_async(mut self) -> Result<()> {
        let Owner::Stream { stream, .. } = &self.owner else {
            return Ok(()); // dropped below with hipFree
        };
        if self.ptr.is_null() {
            return Ok(());
        }
        let ptr = std::mem::replace(&mut self.ptr, std::ptr::null_mut());
        // SAFETY: we own this stream-ordered allocation; the caller ordered
        // every other use before this point of the allocating stream.
        unsafe { result::free_async(ptr.cast(), stream.raw()) }
    }

    /// Two disjoint writable views, `[0, mid)` and `[mid, len)` (checked).
    pub fn split_at_mut(
        &mut self,
        mid: usize,
    ) -> Result<(DeviceSliceMut<'_, T>, DeviceSliceMut<'_, T>)> {
        self.as_slice_mut().into_split_at_mut(mid)
    }
}

#[inline]
fn offset<T>(p: *mut T, n: usize) -> *mut T {
    // Device addresses are never dereferenced on the host, so plain address
    // arithmetic is enough; wrapping_add avoids claiming an in-bounds host
    // allocation. Null (empty buffers) stays null for n == 0.
    p.wrapping_add(n)
}

impl<T: DeviceRepr> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        let r = match &self.owner {
            Owner::Sync => self.device.bind().and_then(|()| {
                // SAFETY: we own this hipMalloc allocation; hipFree waits
                // for work on the device, so no kernel still uses it.
                unsafe { result::free(self.ptr.cast()) }
            }),
            Owner::Stream { stream, .. } => {
                // Work on other streams may still use the buffer, and nothing
                // orders the allocating stream after it: wait for the whole
                // device, as hipFree does, before giving the memory back to
                // the pool (where a later allocation, or a trim, could take
                // it). `free_async` is the unsafe opt-out.
                self.device.synchronize().and_then(|()| {
                    // SAFETY: we own this stream-ordered allocation, and no
                    // work on the device uses it any more.
                    unsafe { result::free_async(self.ptr.cast(), stream.raw()) }
                })
            }
        };
        drop_errors::record_result(r);
    }
}

/// A borrowed, read-only view of device memory; cannot outlive its buffer.
///
/// **Threads**: `Send + Sync` like `&[T]`.
pub struct DeviceSlice<'a, T: DeviceRepr> {
    ptr: *const T,
    len: usize,
    device: &'a Arc<Device>,
    _p: PhantomData<&'a [T]>,
}

// SAFETY: behaves like `&'a [T]` for a `T: Sync`; the pointer is a device address.
unsafe impl<T: DeviceRepr> Send for DeviceSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: DeviceRepr> Sync for DeviceSlice<'_, T> {}

impl<T: DeviceRepr> Clone for DeviceSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: DeviceRepr> Copy for DeviceSlice<'_, T> {}

impl<T: DeviceRepr> fmt::Debug for DeviceSlice<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceSlice")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("device", &self.device.ordinal())
            .finish()
    }
}

impl<'a, T: DeviceRepr> DeviceSlice<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device address.
    pub fn as_device_ptr(&self) -> *const T {
        self.ptr
    }
    /// The device holding the memory.
    pub fn device(&self) -> &'a Arc<Device> {
        self.device
    }
    /// A sub-view of `range` (checked).
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Result<DeviceSlice<'a, T>> {
        let r = check_range("DeviceSlice::slice", self.len, range)?;
        Ok(DeviceSlice {
            ptr: offset(self.ptr.cast_mut(), r.start),
            len: r.len(),
            device: self.device,
            _p: PhantomData,
        })
    }
    /// Copies the view into `out` and waits (`hipMemcpy`).
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        check_same_len("DeviceSlice::copy_to_slice", self.len, out.len())?;
        if self.len == 0 {
            return Ok(());
        }
        self.device.bind()?;
        let bytes = checked_bytes::<T>("DeviceSlice::copy_to_slice", self.len)?;
        // SAFETY: both ranges hold `bytes` bytes; hipMemcpy returns when done;
        // any bytes are a valid T (DeviceRepr).
        unsafe {
            result::memcpy(
                out.as_mut_ptr().cast(),
                self.ptr.cast(),
                bytes,
                sys::hipMemcpyKind::hipMemcpyDeviceToHost,
            )
        }
    }
    /// Copies the view into a new `Vec` (blocking).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut v: Vec<T> = Vec::with_capacity(self.len);
        let bytes = checked_bytes::<T>("DeviceSlice::to_vec", self.len)?;
        if self.len > 0 {
            self.device.bind()?;
            // SAFETY: `v` has capacity for `len` elements; the copy fills
            // all of them before `set_len`, and any bytes are a valid T.
            unsafe {
                result::memcpy(
                    v.as_mut_ptr().cast(),
                    self.ptr.cast(),
                    bytes,
                    sys::hipMemcpyKind::hipMemcpyDeviceToHost,
                )?;
                v.set_len(self.len);
            }
        }
        Ok(v)
    }
}

/// A borrowed, writable view of device memory; exclusive like `&mut [T]`,
/// and cannot outlive its buffer.
///
/// **Threads**: `Send + Sync` like `&mut [T]`.
pub struct DeviceSliceMut<'a, T: DeviceRepr> {
    ptr: *mut T,
    len: usize,
    device: &'a Arc<Device>,
    _p: PhantomData<&'a mut [T]>,
}

// SAFETY: behaves like `&'a mut [T]` for `T: Send + Sync`.
unsafe impl<T: DeviceRepr> Send for DeviceSliceMut<'_, T> {}
// SAFETY: as above; `&DeviceSliceMut` only permits reads.
unsafe impl<T: DeviceRepr> Sync for DeviceSliceMut<'_, T> {}

impl<T: DeviceRepr> fmt::Debug for DeviceSliceMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceSliceMut")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("device", &self.device.ordinal())
            .finish()
    }
}

impl<'a, T: DeviceRepr> DeviceSliceMut<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device address.
    pub fn as_device_ptr_mut(&mut self) -> *mut T {
        self.ptr
    }
    /// The device holding the memory.
    pub fn device(&self) -> &'a Arc<Device> {
        self.device
    }
    /// A shorter-lived writable view of the same memory.
    pub fn reborrow(&mut self) -> DeviceSliceMut<'_, T> {
        DeviceSliceMut {
            ptr: self.ptr,
            len: self.len,
            device: self.device,
            _p: PhantomData,
        }
    }
    /// A read-only view of the same memory.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            ptr: self.ptr,
            len: self.len,
            device: self.device,
            _p: PhantomData,
        }
    }
    /// A writable sub-view of `range` (checked), consuming this view.
    pub fn into_slice_mut(self, range: impl RangeBounds<usize>) -> Result<DeviceSliceMut<'a, T>> {
        let r = check_range("DeviceSliceMut::into_slice_mut", self.len, range)?;
        Ok(DeviceSliceMut {
            ptr: offset(self.ptr, r.start),
            len: r.len(),
            device: self.device,
            _p: PhantomData,
        })
    }
    /// Splits into `[0, mid)` and `[mid, len)` (checked), consuming this view.
    pub fn into_split_at_mut(
        self,
        mid: usize,
    ) -> Result<(DeviceSliceMut<'a, T>, DeviceSliceMut<'a, T>)> {
        if mid > self.len {
            return Err(Error::invalid(
                "DeviceSliceMut::split_at_mut",
                format!("mid {mid} is past the length {}", self.len),
            ));
        }
        let a = DeviceSliceMut {
            ptr: self.ptr,
            len: mid,
            device: self.device,
            _p: PhantomData,
        };
        let b = DeviceSliceMut {
            ptr: offset(self.ptr, mid),
            len: self.len - mid,
            device: self.device,
            _p: PhantomData,
        };
        Ok((a, b))
    }
    /// Copies `data` into the view and waits (`hipMemcpy`).
    pub fn copy_from_slice(&mut self, data: &[T]) -> Result<()> {
        check_same_len("DeviceSliceMut::copy_from_slice", data.len(), self.len)?;
        if self.len == 0 {
            return Ok(());
        }
        self.device.bind()?;
        let bytes = checked_bytes::<T>("DeviceSliceMut::copy_from_slice", self.len)?;
        // SAFETY: both ranges hold `bytes` bytes; hipMemcpy returns when done.
        unsafe {
            result::memcpy(
                self.ptr.cast(),
                data.as_ptr().cast(),
                bytes,
                sys::hipMemcpyKind::hipMemcpyHostToDevice,
            )
        }
    }
}

impl<T: DeviceRepr> sealed::Sealed for DeviceBuffer<T> {}
impl<T: DeviceRepr> sealed::Sealed for DeviceSlice<'_, T> {}
impl<T: DeviceRepr> sealed::Sealed for DeviceSliceMut<'_, T> {}
impl<T: DeviceRepr> sealed::Sealed for ManagedBuffer<T> {}

impl<T: DeviceRepr> DeviceMemory<T> for DeviceBuffer<T> {
    fn device_ptr(&self) -> *const T {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn device(&self) -> &Arc<Device> {
        &self.device
    }
}
impl<T: DeviceRepr> DeviceMemoryMut<T> for DeviceBuffer<T> {
    fn device_ptr_mut(&mut self) -> *mut T {
        self.ptr
    }
}
impl<T: DeviceRepr> DeviceMemory<T> for DeviceSlice<'_, T> {
    fn device_ptr(&self) -> *const T {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn device(&self) -> &Arc<Device> {
        self.device
    }
}
impl<T: DeviceRepr> DeviceMemory<T> for DeviceSliceMut<'_, T> {
    fn device_ptr(&self) -> *const T {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn device(&self) -> &Arc<Device> {
        self.device
    }
}
impl<T: DeviceRepr> DeviceMemoryMut<T> for DeviceSliceMut<'_, T> {
    fn device_ptr_mut(&mut self) -> *mut T {
        self.ptr
    }
}

macro_rules! ptr_field_addr {
    ($($ty:ty),*) => {$(
        impl<T: DeviceRepr> $ty {
            /// Address of the device-pointer field, which kernel argument
            /// lists point at so the runtime copies the pointer value.
            pub(crate) fn ptr_field_addr(&self) -> *mut c_void {
                (&self.ptr as *const *mut T).cast_mut().cast()
            }
        }
    )*};
}
ptr_field_addr!(DeviceBuffer<T>, DeviceSliceMut<'_, T>, ManagedBuffer<T>);

impl<'a, T: DeviceRepr> DeviceSlice<'a, T> {
    /// A view of memory owned elsewhere (a module global).
    pub(crate) fn from_raw_parts(ptr: *const T, len: usize, device: &'a Arc<Device>) -> Self {
        DeviceSlice {
            ptr,
            len,
            device,
            _p: PhantomData,
        }
    }
}

impl<'a, T: DeviceRepr> DeviceSliceMut<'a, T> {
    /// A mutable view of memory owned elsewhere (a module global).
    pub(crate) fn from_raw_parts(ptr: *mut T, len: usize, device: &'a Arc<Device>) -> Self {
        DeviceSliceMut {
            ptr,
            len,
            device,
            _p: PhantomData,
        }
    }
}

impl<T: DeviceRepr> DeviceSlice<'_, T> {
    /// Address of the device-pointer field (see `DeviceBuffer`'s).
    pub(crate) fn ptr_field_addr(&self) -> *mut c_void {
        (&self.ptr as *const *const T).cast_mut().cast()
    }
}

// ---- stream-ordered operations ----------------------------------------------

impl Stream {
    /// Allocates `len` elements in stream order from the device's current
    /// pool (`hipMallocAsync`); the buffer is freed in order on this stream
    /// (`hipFreeAsync`) when dropped.
    ///
    /// The buffer is ready in this stream's order: work on other streams,
    /// and the blocking copies (`DeviceBuffer::to_vec` and the like, on the
    /// null stream, which does not wait for non-blocking streams), must be
    /// ordered after it with an event or a synchronize, or they may see the
    /// memory before this stream's earlier writes (wrong values, never
    /// undefined behaviour: any bits are a valid [`DeviceRepr`]). Dropping
    /// the buffer waits for the device first, so no use on any stream can
    /// outlive it; [`DeviceBuffer::free_async`] frees without waiting.
    pub fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = checked_bytes::<T>("Stream::alloc", len)?;
        let ptr = if bytes == 0 {
            std::ptr::null_mut()
        } else {
            self.bind_if_default()?;
            // SAFETY: the stream is live.
            unsafe { result::malloc_async(bytes, self.as_raw()) }?.cast()
        };
        Ok(DeviceBuffer {
            ptr,
            len,
            device: self.device().clone(),
            owner: Owner::Stream {
                stream: self.inner().clone(),
                _pool: None,
            },
        })
    }

    /// Allocates `len` zeroed elements in stream order (see [`Stream::alloc`]).
    pub fn alloc_zeroed<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<DeviceBuffer<T>> {
        let mut b = self.alloc(len)?;
        self.memset_zeros(&mut b)?;
        Ok(b)
    }

    /// Allocates `len` elements in stream order from `pool`
    /// (`hipMallocFromPoolAsync`); the buffer keeps the pool alive.
    pub fn alloc_from_pool<T: DeviceRepr>(
        &self,
        pool: &MemPool,
        len: usize,
    ) -> Result<DeviceBuffer<T>> {
        check_device(
            "Stream::alloc_from_pool",
            "the pool",
            self.device(),
            &pool.inner.device,
        )?;
        let bytes = checked_bytes::<T>("Stream::alloc_from_pool", len)?;
        let ptr = if bytes == 0 {
            std::ptr::null_mut()
        } else {
            self.bind_if_default()?;
            // SAFETY: pool and stream are live.
            unsafe { result::malloc_from_pool_async(bytes, pool.inner.raw, self.as_raw()) }?.cast()
        };
        Ok(DeviceBuffer {
            ptr,
            len,
            device: self.device().clone(),
            owner: Owner::Stream {
                stream: self.inner().clone(),
                _pool: Some(pool.clone()),
            },
        })
    }

    /// Copies `src` from the host into `dst` on this stream and waits for
    /// the copy to finish. Lengths must match and `dst` must be on this
    /// stream's device. Copies of [`STAGING_MIN_BYTES`](crate::STAGING_MIN_BYTES)
    /// or more go through reused pinned buffers and host threads
    /// ([`Stream::copy_htod_pageable`]), so ordinary memory moves near
    /// pinned-memory speed; they are refused while the stream is capturing.
    pub fn copy_htod<T: DeviceRepr>(
        &self,
        src: &[T],
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        // Pageable host memory: large copies are staged through reused
        // pinned buffers (5-6x a direct copy at 64 MiB-1 GiB on an H100; see
        // `Stream::copy_htod_pageable`), small ones go directly.
        self.copy_htod_pageable(src, dst)
    }

    /// Copies `src` into the host slice `dst` on this stream (after the
    /// stream's earlier work) and waits for the copy to finish. Large copies
    /// are staged as in [`Stream::copy_htod`] ([`Stream::copy_dtoh_pageable`]).
    pub fn copy_dtoh<T: DeviceRepr>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut [T],
    ) -> Result<()> {
        // As `copy_htod`: staged through pinned buffers when large.
        self.copy_dtoh_pageable(src, dst)
    }

    /// Copies `src` into a new `Vec` on this stream and waits.
    pub fn copy_to_vec<T: DeviceRepr>(&self, src: &impl DeviceMemory<T>) -> Result<Vec<T>> {
        let mut v: Vec<T> = Vec::with_capacity(src.len());
        let bytes = checked_bytes::<T>("Stream::copy_to_vec", src.len())?;
        check_device(
            "Stream::copy_to_vec",
            "the source",
            self.device(),
            src.device(),
        )?;
        // SAFETY: capacity for `len` elements (`bytes` bytes) that nothing
        // else touches; the copy (staged when large, as `copy_dtoh`) fills
        // them all before it returns, and any bytes are a valid T.
        unsafe {
            crate::staging::copy_dtoh_raw(
                "Stream::copy_to_vec",
                self,
                src.device_ptr().cast(),
                v.as_mut_ptr().cast(),
                bytes,
            )?;
            v.set_len(src.len());
        }
        Ok(v)
    }

    /// Copies device memory to device memory on this stream, without
    /// waiting. Both must be on this stream's device (use
    /// [`Stream::copy_peer`] across devices).
    pub fn copy_dtod<T: DeviceRepr>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        check_same_len("Stream::copy_dtod", src.len(), dst.len())?;
        check_device(
            "Stream::copy_dtod",
            "the source",
            self.device(),
            src.device(),
        )?;
        check_device(
            "Stream::copy_dtod",
            "the destination",
            self.device(),
            dst.device(),
        )?;
        if src.is_empty() {
            return Ok(());
        }
        let bytes = checked_bytes::<T>("Stream::copy_dtod", src.len())?;
        self.bind_for_copy()?;
        // SAFETY: both are device ranges of `bytes` bytes, kept allocated
        // until the device's work is done (hipFree waits for the device).
        unsafe {
            result::memcpy_async(
                dst.device_ptr_mut().cast(),
                src.device_ptr().cast(),
                bytes,
                sys::hipMemcpyKind::hipMemcpyDeviceToDevice,
                self.as_raw(),
            )
        }
    }

    /// Copies between devices on this stream (`hipMemcpyPeerAsync`) and
    /// waits for the copy. Works without peer access (the runtime stages the
    /// copy); faster with it ([`Device::enable_peer_access`]). The stream
    /// must be on the source's or the destination's device.
    ///
    /// It waits because freeing either buffer waits only for its own
    /// device's work, and a managed destination may be read on the host:
    /// neither would otherwise be ordered after a copy run by another device.
    pub fn copy_peer<T: DeviceRepr>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        check_same_len("Stream::copy_peer", src.len(), dst.len())?;
        let here = self.device().ordinal();
        if here != src.device().ordinal() && here != dst.device().ordinal() {
            return Err(Error::invalid(
                "Stream::copy_peer",
                format!(
                    "the stream is on device {here}, but the copy is from device {} to device {}",
                    src.device().ordinal(),
                    dst.device().ordinal()
                ),
            ));
        }
        if src.is_empty() {
            return Ok(());
        }
        let bytes = checked_bytes::<T>("Stream::copy_peer", src.len())?;
        self.bind_if_default()?;
        let (dd, sd) = (dst.device().raw_ordinal(), src.device().raw_ordinal());
        // SAFETY: both are device ranges of `bytes` bytes on the named
        // devices; we wait below, so both outlive the copy.
        unsafe {
            result::memcpy_peer_async(
                dst.device_ptr_mut().cast(),
                dd,
                src.device_ptr().cast(),
                sd,
                bytes,
                self.as_raw(),
            )?;
        }
        self.synchronize()
    }

    /// Fills `dst` with zero bytes on this stream (`hipMemsetAsync`),
    /// only for types where all-zero bits are valid.
    pub fn memset_zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        self.memset_bytes(dst, 0)
    }

    /// Fills every byte of `dst` with `value` on this stream
    /// (`hipMemsetAsync`). Valid for any [`DeviceRepr`] type, since every
    /// bit pattern is a valid value.
    pub fn memset_bytes<T: DeviceRepr>(
        &self,
        dst: &mut impl DeviceMemoryMut<T>,
        value: u8,
    ) -> Result<()> {
        check_device(
            "Stream::memset",
            "the destination",
            self.device(),
            dst.device(),
        )?;
        if dst.is_empty() {
            return Ok(());
        }
        let bytes = checked_bytes::<T>("Stream::memset", dst.len())?;
        self.bind_if_default()?;
        // SAFETY: a device range of `bytes` bytes on this device.
        unsafe { result::memset_async(dst.device_ptr_mut().cast(), value, bytes, self.as_raw()) }
    }

    /// Copies pinned host memory to the device **asynchronously**. The
    /// pinned buffer remembers the copy: writing to it from the host, or
    /// dropping it, first waits for the copy.
    pub fn copy_htod_async<T: DeviceRepr>(
        &self,
        src: &PinnedHostBuffer<T>,
        dst: &mut impl DeviceMemoryMut<T>,
    ) -> Result<()> {
        check_same_len("Stream::copy_htod_async", src.len, dst.len())?;
        check_device(
            "Stream::copy_htod_async",
            "the destination",
            self.device(),
            dst.device(),
        )?;
        if src.len == 0 {
            return Ok(());
        }
        // The pinned buffer tracks the copy with an event, which a graph
        // replay would not record.
        self.refuse_while_capturing("Stream::copy_htod_async")?;
        let bytes = checked_bytes::<T>("Stream::copy_htod_async", src.len)?;
        let done = Event::with_timing(self.device(), false)?;
        self.bind_for_copy()?;
        // SAFETY: both ranges hold `bytes` bytes; the pinned buffer waits for
        // `done` before host writes or its free, so it outlives the copy.
        unsafe {
            result::memcpy_async(
                dst.device_ptr_mut().cast(),
                src.ptr.cast(),
                bytes,
                sys::hipMemcpyKind::hipMemcpyHostToDevice,
                self.as_raw(),
            )?;
        }
        if let Err(e) = done.record(self) {
            // The copy is enqueued but cannot be tracked: wait for it here so
            // the pinned buffer is never released or touched while in use.
            self.synchronize()?;
            return Err(e);
        }
        src.add_pending(done, false);
        Ok(())
    }

    /// Copies device memory into pinned host memory **asynchronously**.
    /// Any host access to `dst`, or dropping it, first waits for the copy.
    pub fn copy_dtoh_async<T: DeviceRepr>(
        &self,
        src: &impl DeviceMemory<T>,
        dst: &mut PinnedHostBuffer<T>,
    ) -> Result<()> {
        check_same_len("Stream::copy_dtoh_async", src.len(), dst.len)?;
        check_device(
            "Stream::copy_dtoh_async",
            "the source",
            self.device(),
            src.device(),
        )?;
        if dst.len == 0 {
            return Ok(());
        }
        // The pinned buffer tracks the copy with an event, which a graph
        // replay would not record.
        self.refuse_while_capturing("Stream::copy_dtoh_async")?;
        let bytes = checked_bytes::<T>("Stream::copy_dtoh_async", dst.len)?;
        let done = Event::with_timing(self.device(), false)?;
        self.bind_for_copy()?;
        // SAFETY: both ranges hold `bytes` bytes; every host access to
        // `dst` and its free wait for `done`; any bytes are a valid T.
        unsafe {
            result::memcpy_async(
                dst.ptr.cast(),
                src.device_ptr().cast(),
                bytes,
                sys::hipMemcpyKind::hipMemcpyDeviceToHost,
                self.as_raw(),
            )?;
        }
        if let Err(e) = done.record(self) {
            // The copy is enqueued but cannot be tracked: wait for it here so
            // the pinned buffer is never released or touched while in use.
            self.synchronize()?;
            return Err(e);
        }
        dst.add_pending(done, true);
        Ok(())
    }
}

// ---- pinned host memory ----------------------------------------------------

/// Page-locked host memory (`hipHostMalloc`), the source and destination
/// of truly asynchronous copies.
///
/// The buffer tracks the asynchronous copies that use it: host access
/// waits for copies that write it, host writes wait for copies that read
/// it, and drop waits for all, so an in-flight copy never touches freed or
/// borrowed memory.
///
/// **Threads**: `Send + Sync`; the pending-copy list is behind a mutex.
pub struct PinnedHostBuffer<T: DeviceRepr> {
    ptr: *mut T,
    len: usize,
    /// In-flight copies: (completion event, whether the device writes).
    pending: Mutex<Vec<(Event, bool)>>,
}

// SAFETY: owns host memory like a Vec<T>; pending events are Send.
unsafe impl<T: DeviceRepr> Send for PinnedHostBuffer<T> {}
// SAFETY: `&self` gives only reads (after waiting for device writes) and
// mutex-guarded bookkeeping.
unsafe impl<T: DeviceRepr> Sync for PinnedHostBuffer<T> {}

impl<T: DeviceRepr> fmt::Debug for PinnedHostBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnedHostBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl<T: DeviceRepr> PinnedHostBuffer<T> {
    /// Allocates `len` zeroed elements of page-locked, portable host memory.
    pub fn zeroed(len: usize) -> Result<PinnedHostBuffer<T>>
    where
        T: ValidAsZeroBits,
    {
        let bytes = checked_bytes::<T>("PinnedHostBuffer::zeroed", len)?;
        crate::device::loaded()?;
        let ptr = if bytes == 0 {
            std::ptr::NonNull::<T>::dangling().as_ptr()
        } else {
            let p = result::host_malloc(bytes, sys::hipHostMallocPortable)?.cast::<T>();
            // SAFETY: `p` is a fresh host allocation of `bytes` bytes.
            unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
            p
        };
        Ok(PinnedHostBuffer {
            ptr,
            len,
            pending: Mutex::new(Vec::new()),
        })
    }

    /// Allocates page-locked memory holding a copy of `data`.
    pub fn from_slice(data: &[T]) -> Result<PinnedHostBuffer<T>> {
        let bytes = checked_bytes::<T>("PinnedHostBuffer::from_slice", data.len())?;
        crate::device::loaded()?;
        let ptr = if bytes == 0 {
            std::ptr::NonNull::<T>::dangling().as_ptr()
        } else {
            let p = result::host_malloc(bytes, sys::hipHostMallocPortable)?.cast::<T>();
            // SAFETY: `p` is a fresh allocation of `len` elements, disjoint from `data`.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), p, data.len()) };
            p
        };
        Ok(PinnedHostBuffer {
            ptr,
            len: data.len(),
            pending: Mutex::new(Vec::new()),
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn add_pending(&self, e: Event, device_writes: bool) {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((e, device_writes));
    }

    /// Waits for pending copies: those writing the buffer, or all.
    fn wait(&self, all: bool) -> Result<()> {
        let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        let mut first_err = None;
        p.retain(|(e, writes)| {
            if !(all || *writes) {
                return true;
            }
            if let Err(err) = e.synchronize() {
                first_err.get_or_insert(err);
                return true;
            }
            false
        });
        match first_err {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The contents, after waiting for in-flight copies into the buffer.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait(false)?;
        // SAFETY: `len` initialised elements (zeroed or copied in; device
        // writes produce valid T); no device write is in flight, and new
        // ones need `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The contents for writing, after waiting for every in-flight copy.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait(true)?;
        // SAFETY: as in `as_slice`, and no copy reads or writes it now;
        // new ones need a borrow of `self`.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }
}

impl<T: DeviceRepr> Drop for PinnedHostBuffer<T> {
    fn drop(&mut self) {
        if let Err(e) = self.wait(true) {
            // The copy state is unknown: leaking is the only safe choice.
            drop_errors::record(e);
            return;
        }
        if self.len > 0 && size_of::<T>() > 0 {
            // SAFETY: we own this hipHostMalloc allocation; no copy uses it.
            drop_errors::record_result(unsafe { result::host_free(self.ptr.cast()) });
        }
    }
}

// ---- managed memory ----------------------------------------------------------

/// Managed (unified) memory (`hipMallocManaged`), addressable from host
/// and device.
///
/// Host access synchronises the device first, because a kernel launched
/// earlier (on any stream) may still be writing.
///
/// **Threads**: `Send + Sync`, like [`DeviceBuffer`].
pub struct ManagedBuffer<T: DeviceRepr> {
    ptr: *mut T,
    len: usize,
    device: Arc<Device>,
}

// SAFETY: as for DeviceBuffer; host access goes through `&`/`&mut` methods
// that synchronise first.
unsafe impl<T: DeviceRepr> Send for ManagedBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: DeviceRepr> Sync for ManagedBuffer<T> {}

impl<T: DeviceRepr> fmt::Debug for ManagedBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ManagedBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .field("device", &self.device.ordinal())
            .finish()
    }
}

impl<T: DeviceRepr> ManagedBuffer<T> {
    /// Allocates `len` zeroed elements of managed memory.
    pub fn zeroed(device: &Arc<Device>, len: usize) -> Result<ManagedBuffer<T>>
    where
        T: ValidAsZeroBits,
    {
        let bytes = checked_bytes::<T>("ManagedBuffer::zeroed", len)?;
        let ptr = if bytes == 0 {
            std::ptr::null_mut()
        } else {
            device.bind()?;
            let p = result::malloc_managed(bytes)?.cast::<T>();
            // SAFETY: fresh managed memory is host-accessible and unused.
            unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
            p
        };
        Ok(ManagedBuffer {
            ptr,
            len,
            device: device.clone(),
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The contents, after waiting for the device (`hipDeviceSynchronize`).
    pub fn as_slice(&self) -> Result<&[T]> {
        if self.ptr.is_null() {
            return Ok(&[]);
        }
        self.device.synchronize()?;
        // SAFETY: `len` valid elements (any bits are valid); the device is
        // idle, and new kernels writing it need `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The contents for writing, after waiting for the device.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        if self.ptr.is_null() {
            return Ok(&mut []);
        }
        self.device.synchronize()?;
        // SAFETY: as in `as_slice`; exclusive through `&mut self`.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }

    /// Asks the runtime to move the memory to this buffer's device ahead of
    /// use, in order on `stream` (`hipMemPrefetchAsync`).
    pub fn prefetch_to_device(&self, stream: &Stream) -> Result<()> {
        if self.ptr.is_null() {
            return Ok(());
        }
        let bytes = checked_bytes::<T>("ManagedBuffer::prefetch_to_device", self.len)?;
        stream.bind_if_default()?;
        // SAFETY: a managed range we own, and a live stream.
        unsafe {
            result::mem_prefetch_async(
                self.ptr.cast(),
                bytes,
                self.device.raw_ordinal(),
                stream.as_raw(),
            )
        }
    }
}

impl<T: DeviceRepr> DeviceMemory<T> for ManagedBuffer<T> {
    fn device_ptr(&self) -> *const T {
        self.ptr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn device(&self) -> &Arc<Device> {
        &self.device
    }
}
impl<T: DeviceRepr> DeviceMemoryMut<T> for ManagedBuffer<T> {
    fn device_ptr_mut(&mut self) -> *mut T {
        self.ptr
    }
}

impl<T: DeviceRepr> Drop for ManagedBuffer<T> {
    fn drop(&mut self) {
        if self.ptr.is_null() {
            return;
        }
        let r = self.device.bind().and_then(|()| {
            // SAFETY: we own the allocation; hipFree waits for the device.
            unsafe { result::free(self.ptr.cast()) }
        });
        drop_errors::record_result(r);
    }
}

// ---- pools ---------------------------------------------------------------------

/// A memory pool for stream-ordered allocation ([`Stream::alloc_from_pool`]).
///
/// Cheap to clone (shared handle). Buffers from the pool keep it alive.
///
/// **Threads**: `Send + Sync`: pool handles are used by thread-safe calls only.
#[derive(Clone)]
pub struct MemPool {
    inner: Arc<PoolInner>,
}

struct PoolInner {
    raw: sys::hipMemPool_t,
    device: Arc<Device>,
    owned: bool,
}

// SAFETY: a pool handle is an opaque runtime handle; the runtime is thread-safe.
unsafe impl Send for PoolInner {}
// SAFETY: as above.
unsafe impl Sync for PoolInner {}

impl fmt::Debug for MemPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemPool")
            .field("raw", &self.inner.raw)
            .field("device", &self.inner.device.ordinal())
            .field("owned", &self.inner.owned)
            .finish()
    }
}

impl MemPool {
    /// The device's default pool (`hipDeviceGetDefaultMemPool`), the one
    /// [`Stream::alloc`] uses unless changed.
    pub fn default_for(device: &Arc<Device>) -> Result<MemPool> {
        let raw = result::device_get_default_mem_pool(device.raw_ordinal())?;
        Ok(MemPool {
            inner: Arc::new(PoolInner {
                raw,
                device: device.clone(),
                owned: false,
            }),
        })
    }

    /// A new pool of device memory on `device` (`hipMemPoolCreate`).
    pub fn new(device: &Arc<Device>) -> Result<MemPool> {
        // SAFETY: hipMemPoolProps is plain data; all-zero is its documented
        // "defaults" state, completed below.
        let mut props: sys::hipMemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = sys::hipMemAllocationType::hipMemAllocationTypePinned;
        props.handleTypes = sys::hipMemAllocationHandleType::hipMemHandleTypeNone;
        props.location.type_ = sys::hipMemLocationType::hipMemLocationTypeDevice;
        props.location.id = device.raw_ordinal();
        device.bind()?;
        let raw = result::mem_pool_create(&props)?;
        Ok(MemPool {
            inner: Arc::new(PoolInner {
                raw,
                device: device.clone(),
                owned: true,
            }),
        })
    }

    /// The raw handle.
    pub fn as_raw(&self) -> sys::hipMemPool_t {
        self.inner.raw
    }

    /// Keeps up to `bytes` of freed memory reserved instead of returning it
    /// at synchronisation (`hipMemPoolAttrReleaseThreshold`).
    pub fn set_release_threshold(&self, bytes: u64) -> Result<()> {
        // SAFETY: a live pool; this attribute's value is a u64.
        unsafe {
            result::mem_pool_set_attribute_u64(
                self.inner.raw,
                sys::hipMemPoolAttr::hipMemPoolAttrReleaseThreshold,
                bytes,
            )
        }
    }

    /// Releases reserved memory down to `keep_bytes` (`hipMemPoolTrimTo`).
    pub fn trim_to(&self, keep_bytes: usize) -> Result<()> {
        // SAFETY: a live pool.
        unsafe { result::mem_pool_trim_to(self.inner.raw, keep_bytes) }
    }
}

impl Drop for PoolInner {
    fn drop(&mut self) {
        if self.owned {
            // SAFETY: we created the pool, and no buffer from it is left
            // (each holds a clone of this Arc).
            drop_errors::record_result(unsafe { result::mem_pool_destroy(self.raw) });
        }
    }
}
