//! Device, pinned-host and managed memory; views; copies; pools.
//!
//! One module per concern: element types ([`DeviceRepr`]), argument checks,
//! the [`DeviceMemory`] traits with the blocking copies every type shares,
//! owned device buffers, borrowed views, stream-ordered operations, pinned
//! host memory, managed memory and pools.

mod buffer;
mod managed;
mod pinned;
mod pool;
mod repr;
mod stream_ops;
mod traits;
mod validate;
mod views;

pub use buffer::DeviceBuffer;
pub use managed::ManagedBuffer;
pub use pinned::PinnedHostBuffer;
pub use pool::MemPool;
pub use repr::{DeviceRepr, ValidAsZeroBits};
pub use traits::{DeviceMemory, DeviceMemoryMut};
pub use validate::{check_range, check_same_len, checked_bytes};
pub use views::{DeviceSlice, DeviceSliceMut};
