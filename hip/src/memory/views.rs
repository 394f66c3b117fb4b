//! Borrowed views of device memory: [`DeviceSlice`] (read-only, like
//! `&[T]`) and [`DeviceSliceMut`] (exclusive, like `&mut [T]`).

use super::buffer::{offset, DeviceBuffer};
use super::managed::ManagedBuffer;
use super::validate::check_range;
use super::DeviceRepr;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::tracking::{AccessEvents, UNTRACKED};
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;
use std::ops::RangeBounds;
use std::sync::Arc;

/// A borrowed, read-only view of device memory; cannot outlive its buffer.
///
/// **Threads**: `Send + Sync` like `&[T]`.
pub struct DeviceSlice<'a, T: DeviceRepr> {
    pub(super) ptr: *const T,
    pub(super) len: usize,
    pub(super) device: &'a Arc<Device>,
    /// The owner's access events (untracked for untracked memory).
    pub(super) events: &'a AccessEvents,
    pub(super) _p: PhantomData<&'a [T]>,
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
    /// A view of `len` elements at `ptr` with its owner's events.
    ///
    /// # Safety
    ///
    /// As [`DeviceSlice::from_raw_parts`], and `events` are the owner's.
    pub(crate) unsafe fn from_parts(
        ptr: *const T,
        len: usize,
        device: &'a Arc<Device>,
        events: &'a AccessEvents,
    ) -> Self {
        DeviceSlice {
            ptr,
            len,
            device,
            events,
            _p: PhantomData,
        }
    }

    /// A view of `len` elements at the device address `ptr` on `device`,
    /// for memory another crate's type owns (e.g. `cuda-compat`'s
    /// `CudaSlice`), to pass where this crate's memory traits are taken.
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// use hip::{Device, DeviceSlice, Stream};
    /// let dev = Device::get(0)?;
    /// let stream = Stream::new(&dev)?;
    /// let buf = stream.clone_htod(&[1.0f32, 2.0])?;
    /// // SAFETY: `buf` holds 2 elements on `dev` and outlives the view.
    /// let view = unsafe { DeviceSlice::from_raw_parts(buf.as_device_ptr(), 2, &dev) };
    /// assert_eq!(stream.clone_dtoh(&view)?, [1.0, 2.0]);
    /// # Ok(()) }
    /// ```
    ///
    /// # Safety
    ///
    /// `ptr` is the address of `len` elements of `T` of device memory on
    /// `device` (or `len` is 0), which stays allocated, and is not written
    /// through any other path, for `'a`. The view is untracked: work on
    /// other streams that touches the memory is not waited for (order it
    /// yourself, as the owner's type does).
    pub unsafe fn from_raw_parts(ptr: *const T, len: usize, device: &'a Arc<Device>) -> Self {
        DeviceSlice {
            ptr,
            len,
            device,
            events: &UNTRACKED,
            _p: PhantomData,
        }
    }

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
            events: self.events,
            _p: PhantomData,
        })
    }
}

/// A borrowed, writable view of device memory; exclusive like `&mut [T]`,
/// and cannot outlive its buffer.
///
/// **Threads**: `Send + Sync` like `&mut [T]`.
pub struct DeviceSliceMut<'a, T: DeviceRepr> {
    pub(super) ptr: *mut T,
    pub(super) len: usize,
    pub(super) device: &'a Arc<Device>,
    /// The owner's access events (untracked for untracked memory).
    pub(super) events: &'a AccessEvents,
    pub(super) _p: PhantomData<&'a mut [T]>,
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
    /// A writable view of `len` elements at `ptr` with its owner's
    /// events.
    ///
    /// # Safety
    ///
    /// As [`DeviceSliceMut::from_raw_parts`], and `events` are the owner's.
    pub(crate) unsafe fn from_parts(
        ptr: *mut T,
        len: usize,
        device: &'a Arc<Device>,
        events: &'a AccessEvents,
    ) -> Self {
        DeviceSliceMut {
            ptr,
            len,
            device,
            events,
            _p: PhantomData,
        }
    }

    /// A writable view of `len` elements at the device address `ptr` on
    /// `device`, for memory another crate's type owns (see
    /// [`DeviceSlice::from_raw_parts`]).
    ///
    /// # Safety
    ///
    /// `ptr` is the address of `len` elements of `T` of device memory on
    /// `device` (or `len` is 0), which stays allocated, and is neither read
    /// nor written through any other path, for `'a`. The view is untracked
    /// (see [`DeviceSlice::from_raw_parts`]).
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize, device: &'a Arc<Device>) -> Self {
        DeviceSliceMut {
            ptr,
            len,
            device,
            events: &UNTRACKED,
            _p: PhantomData,
        }
    }

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
            events: self.events,
            _p: PhantomData,
        }
    }
    /// A read-only view of the same memory.
    pub fn as_slice(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            ptr: self.ptr,
            len: self.len,
            device: self.device,
            events: self.events,
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
            events: self.events,
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
            events: self.events,
            _p: PhantomData,
        };
        let b = DeviceSliceMut {
            ptr: offset(self.ptr, mid),
            len: self.len - mid,
            device: self.device,
            events: self.events,
            _p: PhantomData,
        };
        Ok((a, b))
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
    /// The owner's access events, for as long as the view.
    pub(crate) fn events_of_owner(&self) -> &'a AccessEvents {
        self.events
    }
}

impl<'a, T: DeviceRepr> DeviceSliceMut<'a, T> {
    /// The owner's access events, for as long as the view.
    pub(crate) fn events_of_owner(&self) -> &'a AccessEvents {
        self.events
    }
}

impl<T: DeviceRepr> DeviceSlice<'_, T> {
    /// Address of the device-pointer field (see `DeviceBuffer`'s).
    pub(crate) fn ptr_field_addr(&self) -> *mut c_void {
        (&self.ptr as *const *const T).cast_mut().cast()
    }
}
