//! cudarc's cuSOLVER handles: [`DnHandle`] (dense), [`DnParams`] (the
//! 64-bit API's options), [`SpHandle`] (sparse) and [`RfHandle`]
//! (refactorization). Each destroys its handle on drop; an error there is
//! recorded (see [`take_drop_errors`]), never a panic.

use super::result::{self, ours};
use hipsolver::result as ours_result;
// cudarc re-exports the error type beside the handles.
pub use super::result::CusolverError;
use super::sys;
use crate::driver::CudaStream;
use std::sync::Arc;

static DROP_ERRORS: hip::DropErrorRegistry<CusolverError> = hip::DropErrorRegistry::new();

/// Takes the errors seen while destroying cuSOLVER handles in `Drop`,
/// oldest first.
pub fn take_drop_errors() -> Vec<CusolverError> {
    DROP_ERRORS.take_all()
}

fn record(r: Result<(), CusolverError>) {
    if let Err(e) = r {
        DROP_ERRORS.record_error(e);
    }
}

/// Holds `device`'s capture gate (see
/// [`hip::Device::hold_captures`]): a capture on this thread is
/// `CUSOLVER_STATUS_NOT_SUPPORTED`, with `hip`'s words as its reason.
fn hold<'d>(
    device: &'d hip::Device,
    operation: &'static str,
) -> Result<hip::CaptureHold<'d>, CusolverError> {
    device.hold_captures(operation).map_err(|e| {
        result::fail(
            sys::cusolverStatus_t::CUSOLVER_STATUS_NOT_SUPPORTED,
            &e.to_string(),
        )
    })
}

/// A dense (`cusolverDn*`) handle bound to a stream.
#[derive(Debug)]
pub struct DnHandle {
    handle: sys::cusolverDnHandle_t,
    stream: Arc<CudaStream>,
}

// SAFETY: cuSOLVER's (and hipSOLVER's) handles may be used from any thread;
// calls on one handle are serialized by the library's stream order, as
// cudarc states for its own `DnHandle`.
unsafe impl Send for DnHandle {}
// SAFETY: as above; every method takes the raw handle by value.
unsafe impl Sync for DnHandle {}

impl Drop for DnHandle {
    fn drop(&mut self) {
        let handle = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        if !handle.is_null() {
            // Destroying a handle acts on the whole device: made once no
            // capture of it is open (hip's capture gate).
            let handle = hip::SendPtr(handle);
            let device = &self.stream.context().device;
            device.release_outside_captures(move |held| {
                // SAFETY: made by `hipsolverDnCreate`, destroyed once, here.
                record(unsafe { ours_result::destroy(handle.get(), held) }.map_err(ours));
            });
        }
    }
}

impl DnHandle {
    /// `cusolverDnCreate`, then `cusolverDnSetStream` to `stream`.
    pub fn new(stream: Arc<CudaStream>) -> Result<Self, CusolverError> {
        // Creating a handle acts on the whole device: not during a capture.
        let device = stream.context().device.clone();
        let held = hold(&device, "cusolverDnCreate")?;
        let handle = ours_result::create(&held).map_err(ours)?;
        let me = DnHandle { handle, stream };
        // SAFETY: a live handle; the handle keeps the stream alive.
        unsafe { result::dn_set_stream(me.handle, me.stream.cu_stream()) }?;
        Ok(me)
    }

    /// The raw handle, for the `sys` functions.
    pub fn cu(&self) -> sys::cusolverDnHandle_t {
        self.handle
    }

    /// The stream the handle's work runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Moves the handle's work to `stream`.
    ///
    /// # Safety
    /// Work already enqueued on the old stream is not ordered with work on
    /// the new one; the caller orders them.
    pub unsafe fn set_stream(&mut self, stream: Arc<CudaStream>) -> Result<(), CusolverError> {
        self.stream = stream;
        // SAFETY: a live handle; the handle keeps the stream alive.
        unsafe { result::dn_set_stream(self.handle, self.stream.cu_stream()) }
    }

    /// `cusolverDnSetDeterministicMode`.
    pub fn set_deterministic_mode(
        &self,
        mode: sys::cusolverDeterministicMode_t,
    ) -> Result<(), CusolverError> {
        // SAFETY: a live handle.
        unsafe { result::dn_set_deterministic_mode(self.handle, mode) }
    }

    /// `cusolverDnGetDeterministicMode`. cudarc returns the mode itself;
    /// here a library without the call (an older hipSOLVER) is an error
    /// rather than a panic.
    pub fn get_deterministic_mode(
        &self,
    ) -> Result<sys::cusolverDeterministicMode_t, CusolverError> {
        // SAFETY: a live handle.
        unsafe { result::dn_get_deterministic_mode(self.handle) }
    }
}

/// Options of the 64-bit dense API (`cusolverDnParams_t`).
#[derive(Debug)]
pub struct DnParams {
    params: sys::cusolverDnParams_t,
}

impl Drop for DnParams {
    fn drop(&mut self) {
        let params = std::mem::replace(&mut self.params, std::ptr::null_mut());
        if !params.is_null() {
            // SAFETY: made by `dn_create_params`, destroyed once, here.
            record(unsafe { result::dn_destroy_params(params) });
        }
    }
}

impl DnParams {
    /// `cusolverDnCreateParams`, then `cusolverDnSetAdvOptions(function,
    /// algo)`.
    pub fn new(
        function: sys::cusolverDnFunction_t,
        algo: sys::cusolverAlgMode_t,
    ) -> Result<Self, CusolverError> {
        let me = DnParams {
            params: result::dn_create_params()?,
        };
        // SAFETY: live parameters.
        unsafe { result::dn_set_adv_options(me.params, function, algo) }?;
        Ok(me)
    }

    /// The raw parameters, for the `sys` functions.
    pub fn cu(&self) -> sys::cusolverDnParams_t {
        self.params
    }
}

/// A sparse (`cusolverSp*`) handle bound to a stream.
#[derive(Debug)]
pub struct SpHandle {
    handle: sys::cusolverSpHandle_t,
    stream: Arc<CudaStream>,
}

// SAFETY: as for `DnHandle`.
unsafe impl Send for SpHandle {}
// SAFETY: as for `DnHandle`.
unsafe impl Sync for SpHandle {}

impl Drop for SpHandle {
    fn drop(&mut self) {
        let handle = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        if !handle.is_null() {
            // As `DnHandle`'s.
            let handle = hip::SendPtr(handle);
            let device = &self.stream.context().device;
            device.release_outside_captures(move |held| {
                // SAFETY: made by `hipsolverSpCreate`, destroyed once, here.
                record(unsafe { ours_result::sp_destroy(handle.get(), held) }.map_err(ours));
            });
        }
    }
}

impl SpHandle {
    /// `cusolverSpCreate`, then `cusolverSpSetStream` to `stream`.
    pub fn new(stream: Arc<CudaStream>) -> Result<Self, CusolverError> {
        let device = stream.context().device.clone();
        let held = hold(&device, "cusolverSpCreate")?;
        let handle = ours_result::sp_create(&held).map_err(ours)?;
        let me = SpHandle { handle, stream };
        // SAFETY: a live handle; the handle keeps the stream alive.
        unsafe { result::sp_set_stream(me.handle, me.stream.cu_stream()) }?;
        Ok(me)
    }

    /// The raw handle, for the `sys` functions.
    pub fn cu(&self) -> sys::cusolverSpHandle_t {
        self.handle
    }

    /// The stream the handle's work runs on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// Moves the handle's work to `stream`.
    ///
    /// # Safety
    /// As [`DnHandle::set_stream`].
    pub unsafe fn set_stream(&mut self, stream: Arc<CudaStream>) -> Result<(), CusolverError> {
        self.stream = stream;
        // SAFETY: a live handle; the handle keeps the stream alive.
        unsafe { result::sp_set_stream(self.handle, self.stream.cu_stream()) }
    }
}

/// A refactorization (`cusolverRf*`) handle, of the device current when
/// it was made.
#[derive(Debug)]
pub struct RfHandle {
    handle: sys::cusolverRfHandle_t,
    device: Arc<hip::Device>,
}

// SAFETY: as for `DnHandle`.
unsafe impl Send for RfHandle {}
// SAFETY: as for `DnHandle`.
unsafe impl Sync for RfHandle {}

impl Drop for RfHandle {
    fn drop(&mut self) {
        let handle = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        if !handle.is_null() {
            // As `DnHandle`'s, on the device it was made on.
            let handle = hip::SendPtr(handle);
            self.device.release_outside_captures(move |held| {
                // SAFETY: made by `hipsolverRfCreate`, destroyed once, here.
                record(unsafe { ours_result::rf_destroy(handle.get(), held) }.map_err(ours));
            });
        }
    }
}

impl RfHandle {
    /// `cusolverRfCreate`, on the current device (as cudarc: the handle
    /// takes no stream), holding its capture gate as [`DnHandle::new`]
    /// does.
    pub fn new() -> Result<Self, CusolverError> {
        let device = crate::gate::current_device().map_err(|e| {
            result::fail(
                sys::cusolverStatus_t::CUSOLVER_STATUS_NOT_INITIALIZED,
                &e.to_string(),
            )
        })?;
        let held = hold(&device, "cusolverRfCreate")?;
        let handle = ours_result::rf_create(&held).map_err(ours)?;
        drop(held);
        Ok(RfHandle { handle, device })
    }

    /// The raw handle, for the `sys` functions.
    pub fn cu(&self) -> sys::cusolverRfHandle_t {
        self.handle
    }

    /// `cusolverRfSetMatrixFormat`. cudarc panics on an error; here it is
    /// returned.
    pub fn set_matrix_format(
        &self,
        format: sys::cusolverRfMatrixFormat_t,
        diag: sys::cusolverRfUnitDiagonal_t,
    ) -> Result<(), CusolverError> {
        // SAFETY: a live handle.
        unsafe { result::rf_set_matrix_format(self.handle, format, diag) }
    }

    /// `cusolverRfSetNumericProperties`.
    pub fn set_numeric_properties(&self, zero: f64, boost: f64) -> Result<(), CusolverError> {
        // SAFETY: a live handle.
        unsafe { result::rf_set_numeric_properties(self.handle, zero, boost) }
    }

    /// `cusolverRfSetResetValuesFastMode`.
    pub fn set_reset_values_fast_mode(
        &self,
        fast_mode: sys::cusolverRfResetValuesFastMode_t,
    ) -> Result<(), CusolverError> {
        // SAFETY: a live handle.
        unsafe { result::rf_set_reset_values_fast_mode(self.handle, fast_mode) }
    }

    /// `cusolverRfSetAlgs`.
    pub fn set_algs(
        &self,
        fact_alg: sys::cusolverRfFactorization_t,
        alg: sys::cusolverRfTriangularSolve_t,
    ) -> Result<(), CusolverError> {
        // SAFETY: a live handle.
        unsafe { result::rf_set_algs(self.handle, fact_alg, alg) }
    }
}
