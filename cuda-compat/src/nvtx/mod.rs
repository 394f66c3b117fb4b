//! NVTX over roctx, in cudarc's layout (`nvtx` feature): the safe API
//! ([`scoped_range`], [`mark`], [`Event`], [`Range`]), the [`result`] layer
//! and NVTX's C names ([`sys`]).
//!
//! The annotations go to roctx-sys: on NVIDIA that is NVTX itself
//! (`libnvtx3interop.so.1` in CUDA 13, `libnvToolsExt.so.1` before), so
//! Nsight Systems shows them; on AMD `libroctx64.so.4`, which rocprof
//! shows. Categories, colors and payloads are dropped (roctx has none).
//!
//! Two differences from cudarc, both where cudarc panics: without a
//! library (CUDA 13 has no `libnvToolsExt`) every call does nothing, and a
//! message with a NUL byte is cut at it. `roctx_sys::loader::is_available()`
//! (or `hip::roctx::is_available()`) says whether anything is recorded.
//!
//! ```no_run
//! use cuda_compat::nvtx::{mark, scoped_range, Event};
//! mark("start");
//! let _outer = scoped_range("epoch");
//! let r = Event::message("step").range();
//! drop(r);
//! ```

pub mod result;
pub mod safe;
pub mod sys;

pub use safe::*;
