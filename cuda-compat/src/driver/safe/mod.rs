//! cudarc's safe driver types over the `hip` crate, at cudarc's path
//! (`driver::safe::CudaContext`; the same names are re-exported from
//! [`driver`](super)).

mod context;
mod external_memory;
mod graph;
mod launch;
mod memory;
mod module;
mod profile;
mod unified;

pub use crate::driver::result::DriverError;
pub use context::{CudaContext, CudaEvent, CudaStream};
pub use external_memory::{ExternalMemory, MappedBuffer};
pub use graph::CudaGraph;
pub use launch::{LaunchArgs, LaunchConfig, PushKernelArg};
pub use memory::{
    CudaSlice, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice, HostSlice,
    PinnedHostSlice, SyncOnDrop, ValidAsZeroBits,
};
pub use module::{CudaFunction, CudaModule};
pub use profile::{profiler_start, profiler_stop, Profiler};
pub use unified::{UnifiedSlice, UnifiedView, UnifiedViewMut};
