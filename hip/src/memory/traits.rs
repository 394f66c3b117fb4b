//! The traits every kind of device memory implements: what a copy, a
//! fill or a launch needs to know of it.

use super::{DeviceBuffer, DeviceRepr, DeviceSlice, DeviceSliceMut, ManagedBuffer};
use crate::device::Device;
use crate::tracking::AccessEvents;
use std::sync::Arc;

mod sealed {
    /// Keeps [`DeviceMemory`](super::DeviceMemory) to this crate's types.
    pub trait Sealed {}
}

/// Device memory holding `len()` elements of `T`: buffers and views.
/// Sealed: only this crate's types, whose pointers and lengths are right.
///
/// Copies take it as their device side ([`crate::Stream::copy_dtoh`],
/// [`crate::Stream::copy_dtod`], ...).
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
}

/// Device memory that may be written.
pub trait DeviceMemoryMut<T: DeviceRepr>: DeviceMemory<T> {
    /// Device address of the first element, for writing.
    fn device_ptr_mut(&mut self) -> *mut T;
}

impl<T: DeviceRepr> sealed::Sealed for DeviceBuffer<T> {}
impl<T: DeviceRepr> sealed::Sealed for DeviceSlice<'_, T> {}
impl<T: DeviceRepr> sealed::Sealed for DeviceSliceMut<'_, T> {}
impl<T: DeviceRepr> sealed::Sealed for ManagedBuffer<T> {}

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
