//! The capture gate (`hip`'s) for cudarc's raw functions that act on the
//! whole device: creating or destroying a library handle, which CUDA
//! forbids while any stream of the device captures. cudarc's signatures
//! take no proof of the gate, so these functions take it themselves.

use std::sync::Arc;

/// The calling thread's current device.
pub(crate) fn current_device() -> Result<Arc<hip::Device>, hip::Error> {
    let ordinal = hip::result::get_device()?;
    // A negative ordinal (never returned on success) is refused by `get`.
    hip::Device::get(usize::try_from(ordinal).unwrap_or(usize::MAX))
}

/// Runs `f` holding the capture gate of the calling thread's current
/// device (see [`hip::Device::hold_captures`]): it waits for the device's
/// open captures to end, and fails when this thread captures.
pub(crate) fn holding_current<T, E: From<hip::Error>>(
    operation: &'static str,
    f: impl FnOnce(&hip::CaptureHold<'_>) -> Result<T, E>,
) -> Result<T, E> {
    let device = current_device()?;
    let held = device.hold_captures(operation)?;
    f(&held)
}
