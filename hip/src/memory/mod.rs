//! Device, pinned-host and managed memory; views; copies; pools.
//!
//! One module per concern: element types ([`DeviceRepr`]), argument checks,
//! the [`DeviceMemory`] traits (the device side of a copy) and the
//! [`HostMemory`] traits (its host side), owned device buffers, borrowed
//! views, stream-ordered operations (the copies among them), pinned host
//! memory, managed memory and pools.

mod buffer;
mod host;
mod managed;
mod pinned;
mod pool;
mod repr;
pub mod staging;
mod stream_allocation;
mod stream_ops;
mod traits;
mod validate;
mod views;

pub use buffer::DeviceBuffer;
pub use host::{HostMemory, HostMemoryMut};
pub use managed::ManagedBuffer;
pub use pinned::PinnedHostBuffer;
pub use pool::MemPool;
pub use repr::{DeviceRepr, ValidAsZeroBits};
pub use stream_allocation::StreamAllocation;
pub use traits::{DeviceMemory, DeviceMemoryMut};
pub(crate) use validate::check_device;
pub use validate::{check_range, check_same_len, checked_bytes};
pub use views::{DeviceSlice, DeviceSliceMut};
