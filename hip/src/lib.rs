//! Safe Rust API for AMD's HIP: devices, streams, events, memory, modules,
//! kernel launch, graphs, pools and multi-GPU work.
//!
//! The layers follow cudarc: `hip_sys` (raw, generated) -> the thin
//! [`result`] layer (one function per raw call, every status a [`Result`];
//! public, for code that needs a call the safe types do not make) -> the
//! safe types here. Children hold an `Arc` of their parent (stream -> device, function
//! -> module), so nothing outlives what it needs. Every error is one
//! [`Error`] type naming the failed call, the HIP status and its message,
//! or the rejected argument values.
//!
//! # Example
//!
//! ```no_run
//! use hip::{Device, LaunchConfig, Module, Stream, TypedKernel};
//!
//! fn main() -> hip::Result<()> {
//!     let dev = Device::get(0)?;
//!     println!("{} ({})", dev.name()?, dev.arch()?);
//!
//!     // Compile for this device's architecture with hiprtc.
//!     let module = Module::compile(&dev, r#"
//!         extern "C" __global__ void scale(const float* x, float* y, float a, unsigned n) {
//!             unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
//!             if (i < n) y[i] = a * x[i];
//!         }"#)?;
//!     // SAFETY: the parameter list matches the kernel's signature.
//!     let scale = unsafe {
//!         TypedKernel::<(*const f32, *mut f32, f32, u32)>::new(module.function("scale")?)
//!     };
//!
//!     let stream = Stream::new(&dev)?;
//!     let host: Vec<f32> = (0..4096).map(|i| i as f32).collect();
//!     let x = stream.clone_htod(&host)?;
//!     let mut y = stream.alloc_zeroed::<f32>(host.len())?;
//!     let n = host.len() as u32;
//!     // SAFETY: the kernel touches x[..n] and y[..n] only; n is their length.
//!     unsafe { scale.launch(&stream, LaunchConfig::for_num_elems(n), (&x, &mut y, 2.0f32, n))? };
//!     let out = stream.clone_dtoh(&y)?;
//!     assert!(out.iter().zip(&host).all(|(o, h)| *o == 2.0 * h));
//!     Ok(())
//! }
//! ```
//!
//! # Safety considerations
//!
//! GPU memory and kernels are outside the Rust compiler's sight; this crate
//! draws the line as follows.
//!
//! - **Element types** ([`DeviceRepr`]) accept every bit pattern. Whatever a
//!   kernel writes, even racing or uninitialised data, reads back as valid
//!   values, so device-side mistakes give wrong numbers, never undefined
//!   behaviour in host code. Zero-filling needs [`ValidAsZeroBits`].
//! - **Lifetimes**: buffers free on drop; views ([`DeviceSlice`],
//!   [`DeviceSliceMut`]) borrow their buffer and cannot outlive it.
//!   `hipFree` waits for the device, so a buffer dropped while a kernel
//!   still uses it is freed only after that kernel. Stream-ordered buffers
//!   ([`Stream::alloc`]) track their accesses ([`AccessEvents`]): every
//!   copy, fill, launch and `hipblas` call through the safe API is
//!   recorded, and the drop makes the allocating stream wait for the last
//!   of them on any stream before `hipFreeAsync`, so tracked work cannot
//!   outlive the memory and nobody waits for the device. Work enqueued on
//!   their raw address ([`DeviceBuffer::as_device_ptr`]) is the caller's
//!   to order or record ([`Stream::enqueue_tracked`]);
//!   [`DeviceBuffer::free_async`] is the `unsafe` way to free one without
//!   even the event waits. [`Stream::copy_peer`] waits for its copy,
//!   because a free waits only for its own device.
//! - **Copies** ([`Stream::copy_htod`], [`Stream::copy_dtoh`]) take any
//!   [`HostMemory`]: from or into a [`PinnedHostBuffer`] they are
//!   asynchronous, and the buffer tracks the copies in flight, waiting for
//!   them before host access or free; from or into ordinary memory they
//!   are over when the call returns.
//! - **Kernel launches are `unsafe`**: nothing can check what a kernel does.
//!   [`TypedKernel`] removes the most common mistake, wrong argument types or
//!   counts, at compile time, and buffers are passed as device pointers only
//!   from live buffers on the right device; the caller still promises that
//!   the kernel stays in bounds. Launch configurations are validated against
//!   the device's limits before the call.
//! - **Ordering between streams** is tracked for stream-ordered
//!   [`DeviceBuffer`]s ([`Stream::alloc`]) and [`StreamAllocation`]s:
//!   per-buffer read/write events ([`AccessEvents`]) make work on one
//!   stream wait for the conflicting accesses made on another through the
//!   safe API (copies, fills, launches, [`AccessGuard`]s), and free them in
//!   their stream's order after their last use on any stream, without
//!   synchronizing the device. `hipMalloc` buffers ([`DeviceBuffer::uninit`]
//!   and the like) are untracked: memory written on one stream and read on
//!   another needs an event ([`Stream::wait_event`]).
//! - **Graphs** replay captured work later, so [`Stream::capture`] is
//!   `unsafe`: captured memory must stay valid for every replay (borrows in
//!   the closure are enforced through the graph's lifetime, and dropping a
//!   [`GraphExec`] waits for its replays). Work tracked on the host (host
//!   functions, asynchronous copies of pinned memory) is refused while a
//!   stream is capturing, since a replay would bypass that tracking.
//! - **Host functions** must not call HIP, not even by dropping a HIP
//!   object they own (the runtime forbids calls from its callback thread,
//!   and such a call may deadlock): move results out through channels or
//!   atomics instead.
//! - **Host callbacks** ([`Stream::launch_host_fn`]) catch panics at the FFI
//!   boundary; they are recorded, like errors seen in `Drop`, and returned
//!   by [`take_drop_errors`].
//!
//! # Threads
//!
//! Each type's docs say whether it is `Send`/`Sync` and why. Devices,
//! streams, events, buffers, modules and functions are `Send + Sync`; an
//! executable graph is `Send` only. Methods make the right device current on
//! the calling thread themselves ([`Device::bind`]).
//!
//! # Platforms
//!
//! The same code runs on AMD (ROCm) and, with `HIP_PLATFORM=nvidia`, on
//! NVIDIA through hip-sys's backend. A function the loaded runtime lacks
//! returns [`Error::Hip`] with `symbol_missing: true`.
#![deny(missing_docs)]

mod capture_gate;
pub mod code_object;
mod complex;
mod device;
mod drop_errors;
mod element;
mod error;
#[cfg(test)]
mod fake_runtime;
mod graph;
mod launch;
mod launch_config;
mod library_error;
mod memory;
mod module;
pub mod result;
pub mod roctx;
mod stream;
mod tracking;

#[doc(hidden)]
pub use capture_gate::bypass as __bypass_capture_gate;
pub use capture_gate::{CaptureHold, SendPtr};
pub use complex::{c32, c64, Complex, ComplexPart};
pub use device::{
    arithmetic_support, driver_version, runtime_version, Capabilities, Device, DeviceAttribute,
    DeviceProperties, LaunchLimits, Limit, MemoryInfo, PropertiesLayout, VisibleDevices,
};
pub use drop_errors::{DropErrorRegistry, MAX_RECORDED};
pub use element::Element;
pub use error::{drop_error_count, take_drop_errors, Error, Result};
pub use graph::{Graph, GraphExec};
pub use launch::{
    KernelArg, KernelArgs, KernelParam, KernelParams, LaunchArgs, LaunchOptions, PushArg, RawPtr,
    TypedKernel,
};
pub use launch_config::LaunchConfig;
pub use memory::staging;
pub use memory::{
    check_range, check_same_len, checked_bytes, DeviceBuffer, DeviceMemory, DeviceMemoryMut,
    DeviceRepr, DeviceSlice, DeviceSliceMut, HostMemory, HostMemoryMut, ManagedBuffer, MemPool,
    PinnedHostBuffer, StreamAllocation, ValidAsZeroBits,
};
pub use module::{
    compile, rtc_lock, CompileOptions, CompiledCode, Function, FunctionAttribute, Module,
};
pub use stream::{Event, Stream, StreamOptions};
pub use tracking::{AccessEvents, AccessGuard};

/// The raw bindings this crate is built on.
pub use hip_sys as sys;

/// The README's examples, compiled and run by `cargo test --doc`.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
