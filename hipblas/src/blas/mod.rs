//! The handle: creation, stream, math mode, the checks every call shares,
//! and the errors seen in `Drop`. The calls are in `level1.rs`, `level2.rs`,
//! `level3.rs` and `ext.rs`, each an `impl Blas` block.

mod ext;
mod level1;
mod level2;
mod level3;

use crate::error::DROP_ERRORS;
use crate::error::{Error, Result};
use crate::validate::{self, int};
use crate::{result, MathMode};
use hip::{AccessEvents, DeviceMemory, Stream};
use hipblas_sys::hipblasHandle_t;
use std::fmt;

/// A hipBLAS handle bound to one HIP stream: every call it makes is
/// enqueued on that stream, in order.
///
/// Matrices are **column-major**, as in BLAS. Row-major callers use
/// [`Blas::gemm_row_major`] (it computes `Cᵀ = Bᵀ Aᵀ`, which is the
/// row-major product, without moving any data) or describe their data as the
/// transpose.
///
/// Every call checks shapes, leading dimensions, strides, batch counts,
/// buffer lengths and devices before calling hipBLAS, and names the
/// offending value when one is wrong.
///
/// **Threads**: `Send` but not `Sync`: a hipBLAS handle may move between
/// threads but must not be used by two at once (rocBLAS and cuBLAS handles
/// are not safe for concurrent use). Make one `Blas` per thread.
pub struct Blas {
    raw: hipblasHandle_t,
    stream: Stream,
}

// SAFETY: the handle is a pointer into the library that any thread may use,
// one at a time; `Blas` is not `Sync`, so two threads never use it at once.
unsafe impl Send for Blas {}

impl fmt::Debug for Blas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Blas")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .finish()
    }
}

impl Drop for Blas {
    fn drop(&mut self) {
        // The handle belongs to the stream's device: destroyed there, once
        // no capture of the device is open.
        let raw = hip::SendPtr(self.raw);
        self.stream.device().release_outside_captures(move |held| {
            // SAFETY: the handle was created by `hipblasCreate` and is
            // destroyed once, here.
            if let Err(e) = unsafe { result::destroy(raw.get(), held) } {
                DROP_ERRORS.record_error(e);
            }
        });
    }
}

impl Blas {
    /// Creates a handle (`hipblasCreate`) on the stream's device and binds
    /// it to the stream (`hipblasSetStream`).
    pub fn new(stream: &Stream) -> Result<Blas> {
        result::library()?;
        let held = stream
            .device()
            .hold_captures("Blas::new")
            .map_err(Error::Runtime)?;
        stream.device().bind().map_err(Error::Runtime)?;
        let blas = Blas {
            raw: result::create(&held)?,
            stream: stream.clone(),
        };
        // SAFETY: live handle; the stream outlives it (`blas` holds a clone).
        unsafe { result::set_stream(blas.raw, stream.as_raw()) }?;
        Ok(blas)
    }

    /// The stream the calls are enqueued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The raw handle, for calls this crate does not wrap. It stays owned
    /// by `self`.
    pub fn as_raw(&self) -> hipblasHandle_t {
        self.raw
    }

    /// Sets the math mode (`hipblasSetMathMode`). The default lets the
    /// library pick its fastest exact-precision kernels; `Tf32` lets f32
    /// GEMMs use TF32 tensor cores (NVIDIA).
    pub fn set_math_mode(&mut self, mode: MathMode) -> Result<()> {
        // SAFETY: live handle.
        unsafe { result::set_math_mode(self.raw, mode.raw()) }
    }

    /// The math mode (`hipblasGetMathMode`).
    pub fn math_mode(&self) -> Result<MathMode> {
        // SAFETY: live handle.
        let m = unsafe { result::get_math_mode(self.raw) }?;
        MathMode::from_raw(m).ok_or_else(|| {
            Error::unsupported(
                "Blas::math_mode",
                format!("the library reports math mode {m:?}, which this crate does not know"),
            )
        })
    }

    /// Checks that `m` is memory of the handle's device.
    fn same_device<T: hip::DeviceRepr>(
        &self,
        op: &'static str,
        name: &str,
        m: &dyn DeviceMemory<T>,
    ) -> Result<()> {
        let want = self.stream.device().ordinal();
        let got = m.device().ordinal();
        if want != got {
            return Err(Error::invalid(
                op,
                format!(
                    "buffer {name} is on device {got} but the handle's stream is on device {want}"
                ),
            ));
        }
        Ok(())
    }

    fn prepare(&self) -> Result<()> {
        self.stream.device().bind().map_err(Error::Runtime)
    }

    /// Binds the device and runs `call` (hipBLAS work on the handle's
    /// stream) in order with the tracked memory it reads and writes (the
    /// buffers of `Stream::alloc`, see `hip::Stream::enqueue_tracked`):
    /// the stream first waits for their conflicting accesses on other
    /// streams, and the call's own are recorded, so that their stream-
    /// ordered frees wait for it. Untracked memory costs nothing.
    fn tracked<R>(
        &self,
        reads: &[&AccessEvents],
        writes: &[&AccessEvents],
        call: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        self.prepare()?;
        self.stream.enqueue_tracked(reads, writes, call)
    }

    /// Checks a vector argument of `op`: its increment, its length for `n`
    /// elements, its device.
    fn vec_arg<T: hip::DeviceRepr>(
        &self,
        op: &'static str,
        name: &'static str,
        inc_name: &'static str,
        v: &dyn DeviceMemory<T>,
        n: usize,
        inc: usize,
    ) -> Result<()> {
        let span = validate::vector(op, inc_name, n, inc)?;
        int(op, inc_name, inc)?;
        validate::length(op, name, v.len(), span)?;
        self.same_device(op, name, v)
    }
}

#[cfg(test)]
mod drop_error_tests {
    use super::*;
    use crate::take_drop_errors;

    #[test]
    fn drop_errors_are_capped_oldest_first() {
        take_drop_errors();
        for i in 0..hip::MAX_RECORDED + 3 {
            DROP_ERRORS.record_error(Error::unsupported("Blas::drop", format!("error {i}")));
        }
        let v = take_drop_errors();
        assert_eq!(v.len(), hip::MAX_RECORDED);
        assert_eq!(v[0].to_string(), "Blas::drop is not supported: error 3");
        assert!(take_drop_errors().is_empty());
    }
}
