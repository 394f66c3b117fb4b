//! The traits every kind of device memory implements, and the blocking
//! copies between host slices and device memory, written once here for all
//! of them.

use super::validate::{check_same_len, checked_bytes};

/// What every blocking copy checks first: equal lengths (`src_len` and
/// `dst_len`, named in that order in the error), the byte count, and the
/// device made current. `None` when there is nothing to copy.
fn prepare_copy<T>(
    operation: &'static str,
    src_len: usize,
    dst_len: usize,
    device: &Device,
) -> Result<Option<usize>> {
    check_same_len(operation, src_len, dst_len)?;
    if src_len == 0 {
        return Ok(None);
    }
    let bytes = checked_bytes::<T>(operation, src_len)?;
    device.bind()?;
    Ok(Some(bytes))
}
use super::{DeviceBuffer, DeviceRepr, DeviceSlice, DeviceSliceMut, ManagedBuffer};
use crate::device::Device;
use crate::error::Result;
use crate::result;
use crate::tracking::AccessEvents;
use hip_sys as sys;
use std::sync::Arc;

mod sealed {
    /// Keeps [`DeviceMemory`](super::DeviceMemory) to this crate's types,
    /// and names each type's blocking copies in error messages.
    pub trait Sealed {
        /// The operation names the blocking copies report
        /// (`"DeviceBuffer::to_vec"`, ...). A method, not an associated
        /// const, so that `dyn DeviceMemory<T>` stays possible.
        fn copy_names(&self) -> CopyNames;
    }

    /// The operation names of one type's blocking copies, for
    /// [`Error::Invalid`](crate::Error::Invalid).
    #[derive(Clone, Copy, Debug)]
    pub struct CopyNames {
        pub copy_from_slice: &'static str,
        pub copy_to_slice: &'static str,
        pub to_vec: &'static str,
    }
}

/// Implements `Sealed` for a memory type, naming its blocking copies after
/// the type (`concat!` keeps the names `&'static str`).
macro_rules! sealed_memory_type {
    ($name:literal, $($ty:tt)*) => {
        impl<T: DeviceRepr> sealed::Sealed for $($ty)* {
            fn copy_names(&self) -> sealed::CopyNames {
                sealed::CopyNames {
                    copy_from_slice: concat!($name, "::copy_from_slice"),
                    copy_to_slice: concat!($name, "::copy_to_slice"),
                    to_vec: concat!($name, "::to_vec"),
                }
            }
        }
    };
}

/// Device memory holding `len()` elements of `T`: buffers and views.
/// Sealed: only this crate's types, whose pointers and lengths are right.
///
/// The blocking copies to the host ([`copy_to_slice`](Self::copy_to_slice),
/// [`to_vec`](Self::to_vec)) are provided here once for every type; the
/// types also have them as inherent methods, so calling them needs no
/// `use` of this trait.
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
    /// The events ordering accesses to the memory across streams: those of
    /// a stream-ordered [`DeviceBuffer`] (and its views); untracked (every
    /// method a no-op) for `hipMalloc` buffers, managed memory and module
    /// globals. Pass them to [`crate::Stream::enqueue_tracked`] when
    /// enqueueing work on the raw address.
    fn access_events(&self) -> &AccessEvents;

    /// `hipMemcpy` (device to host): copies the memory into `out` and waits
    /// for the copy. The lengths must be equal.
    ///
    /// It runs on the null stream, which does not wait for non-blocking
    /// streams: order it after their writes ([`crate::Stream::synchronize`],
    /// an event), or use [`crate::Stream::copy_dtoh`].
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// use hip::{Device, DeviceBuffer, DeviceMemory};
    /// let dev = Device::get(0)?;
    /// let buf = DeviceBuffer::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
    /// let mut out = [0.0f32; 2];
    /// DeviceMemory::copy_to_slice(&buf.slice(1..)?, &mut out)?;
    /// assert_eq!(out, [2.0, 3.0]);
    /// # Ok(()) }
    /// ```
    fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        let operation = self.copy_names().copy_to_slice;
        let Some(bytes) = prepare_copy::<T>(operation, self.len(), out.len(), self.device())?
        else {
            return Ok(());
        };
        // SAFETY: `out` holds `bytes` bytes (equal lengths, checked above) and
        // the device range as many; hipMemcpy returns when the copy is done,
        // and any bytes are a valid T (DeviceRepr).
        unsafe {
            result::memcpy(
                out.as_mut_ptr().cast(),
                self.device_ptr().cast(),
                bytes,
                sys::hipMemcpyKind::hipMemcpyDeviceToHost,
            )
        }
    }

    /// `hipMemcpy` (device to host) into a new `Vec`, waiting for the copy
    /// (see [`copy_to_slice`](Self::copy_to_slice) on stream order).
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// use hip::{Device, DeviceBuffer};
    /// let dev = Device::get(0)?;
    /// let buf = DeviceBuffer::from_slice(&dev, &[1u32, 2, 3])?;
    /// assert_eq!(buf.to_vec()?, [1, 2, 3]);
    /// # Ok(()) }
    /// ```
    fn to_vec(&self) -> Result<Vec<T>> {
        let len = self.len();
        let bytes = checked_bytes::<T>(self.copy_names().to_vec, len)?;
        let mut v: Vec<T> = Vec::with_capacity(len);
        if len > 0 {
            self.device().bind()?;
            // SAFETY: `v` has capacity for `len` elements (`bytes` bytes); the
            // copy fills all of them before `set_len`, and any bytes are a
            // valid T.
            unsafe {
                result::memcpy(
                    v.as_mut_ptr().cast(),
                    self.device_ptr().cast(),
                    bytes,
                    sys::hipMemcpyKind::hipMemcpyDeviceToHost,
                )?;
                v.set_len(len);
            }
        }
        Ok(v)
    }
}

/// Device memory that may be written.
///
/// The blocking copy from the host ([`copy_from_slice`](Self::copy_from_slice))
/// is provided here once for every type, and is also an inherent method of
/// each.
pub trait DeviceMemoryMut<T: DeviceRepr>: DeviceMemory<T> {
    /// Device address of the first element, for writing.
    fn device_ptr_mut(&mut self) -> *mut T;

    /// `hipMemcpy` (host to device): copies `data` into the memory and waits
    /// for the copy. The lengths must be equal.
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// use hip::{Device, DeviceBuffer, DeviceMemoryMut};
    /// let dev = Device::get(0)?;
    /// let mut buf = DeviceBuffer::<f32>::zeroed(&dev, 4)?;
    /// DeviceMemoryMut::copy_from_slice(&mut buf.slice_mut(2..)?, &[5.0, 6.0])?;
    /// assert_eq!(buf.to_vec()?, [0.0, 0.0, 5.0, 6.0]);
    /// # Ok(()) }
    /// ```
    fn copy_from_slice(&mut self, data: &[T]) -> Result<()> {
        let operation = self.copy_names().copy_from_slice;
        let Some(bytes) = prepare_copy::<T>(operation, data.len(), self.len(), self.device())?
        else {
            return Ok(());
        };
        // SAFETY: `data` holds `bytes` bytes (equal lengths, checked above)
        // and the writable device range as many; hipMemcpy returns when the
        // copy is done.
        unsafe {
            result::memcpy(
                self.device_ptr_mut().cast(),
                data.as_ptr().cast(),
                bytes,
                sys::hipMemcpyKind::hipMemcpyHostToDevice,
            )
        }
    }
}

/// Inherent forwarders to the traits' blocking copies, so that
/// `buffer.to_vec()` keeps working without importing [`DeviceMemory`]
/// (trait methods need the trait in scope; inherent ones do not).
macro_rules! blocking_copies_to_host {
    ($($ty:tt)*) => {
        impl<T: DeviceRepr> $($ty)* {
            /// Copies the memory into `out` and waits (`hipMemcpy`); the
            /// lengths must be equal. See [`DeviceMemory::copy_to_slice`].
            #[inline]
            pub fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
                DeviceMemory::copy_to_slice(self, out)
            }

            /// Copies the memory into a new `Vec` (blocking). See
            /// [`DeviceMemory::to_vec`].
            #[inline]
            pub fn to_vec(&self) -> Result<Vec<T>> {
                DeviceMemory::to_vec(self)
            }
        }
    };
}

/// As [`blocking_copies_to_host`], for the copy from the host.
macro_rules! blocking_copy_from_host {
    ($($ty:tt)*) => {
        impl<T: DeviceRepr> $($ty)* {
            /// Copies `data` into the memory and waits (`hipMemcpy`); the
            /// lengths must be equal. See [`DeviceMemoryMut::copy_from_slice`].
            #[inline]
            pub fn copy_from_slice(&mut self, data: &[T]) -> Result<()> {
                DeviceMemoryMut::copy_from_slice(self, data)
            }
        }
    };
}

sealed_memory_type!("DeviceBuffer", DeviceBuffer<T>);
sealed_memory_type!("DeviceSlice", DeviceSlice<'_, T>);
sealed_memory_type!("DeviceSliceMut", DeviceSliceMut<'_, T>);
sealed_memory_type!("ManagedBuffer", ManagedBuffer<T>);

blocking_copies_to_host!(DeviceBuffer<T>);
blocking_copies_to_host!(DeviceSlice<'_, T>);
blocking_copy_from_host!(DeviceBuffer<T>);
blocking_copy_from_host!(DeviceSliceMut<'_, T>);

// The accessors: each type hands out its own pointer, length and device
// (`device` is an `Arc` in owners and a reference to one in views); `mut`
// adds the writable pointer.
macro_rules! memory_accessors {
    (@device $self:ident, owned) => { &$self.device };
    (@device $self:ident, borrowed) => { $self.device };
    (@events $self:ident, owned) => { $self.events() };
    (@events $self:ident, borrowed) => { $self.events };
    (mut $ty:ty, $($device:tt)+) => {
        memory_accessors!($ty, $($device)+);
        impl<T: DeviceRepr> DeviceMemoryMut<T> for $ty {
            fn device_ptr_mut(&mut self) -> *mut T {
                self.ptr
            }
        }
    };
    ($ty:ty, $($device:tt)+) => {
        impl<T: DeviceRepr> DeviceMemory<T> for $ty {
            fn device_ptr(&self) -> *const T {
                self.ptr
            }
            fn len(&self) -> usize {
                self.len
            }
            fn device(&self) -> &Arc<Device> {
                memory_accessors!(@device self, $($device)+)
            }
            fn access_events(&self) -> &AccessEvents {
                memory_accessors!(@events self, $($device)+)
            }
        }
    };
}

memory_accessors!(mut DeviceBuffer<T>, owned);
memory_accessors!(DeviceSlice<'_, T>, borrowed);
memory_accessors!(mut DeviceSliceMut<'_, T>, borrowed);
memory_accessors!(mut ManagedBuffer<T>, owned);

#[cfg(test)]
mod tests {
    use super::*;

    /// Provided methods must not make the traits unusable as trait objects
    /// (hipblas takes `&dyn DeviceMemory<T>`): this fails to compile if
    /// they do.
    #[test]
    fn the_traits_stay_dyn_compatible() {
        fn lengths(r: &[&dyn DeviceMemory<f32>], w: &[&dyn DeviceMemoryMut<f32>]) -> usize {
            r.iter().map(|m| m.len()).sum::<usize>() + w.iter().map(|m| m.len()).sum::<usize>()
        }
        assert_eq!(lengths(&[], &[]), 0);
    }
}
