//! Device setup for GPU tests, under the `HIP_PLATFORM` rules of docs/ARCHITECTURE.md:
//! when `HIP_PLATFORM` is set, the loaded runtime must be that platform's
//! (a test meant for NVIDIA must not silently run on something else).

use hip::{Device, DeviceBuffer, DeviceMemory, DeviceRepr, Stream, StreamOptions};
use std::sync::Arc;

/// Fails the test unless the loaded HIP runtime is `platform` (`"amd"` or
/// `"nvidia"`), naming what was loaded instead.
pub fn require_platform(platform: &str) {
    let rt = hip_sys::loader::runtime().unwrap_or_else(|e| {
        panic!("needs a GPU and its runtime (set HIP_PLATFORM=nvidia on NVIDIA): {e}")
    });
    let loaded = rt.platform.to_string();
    assert_eq!(
        loaded, platform,
        "the loaded runtime is {loaded}; run with HIP_PLATFORM={platform}"
    );
}

/// Device 0, after checking the platform against `HIP_PLATFORM` when that
/// is set. Fails with a message saying what is missing when there is no
/// GPU: a GPU test never passes without one.
pub fn device() -> Arc<Device> {
    if let Ok(p) = std::env::var("HIP_PLATFORM") {
        require_platform(p.trim());
    }
    Device::get(0)
        .unwrap_or_else(|e| panic!("needs a GPU (set HIP_PLATFORM=nvidia on NVIDIA): {e}"))
}

/// A new stream on `dev` (blocking with respect to the null stream).
pub fn stream(dev: &Arc<Device>) -> Stream {
    Stream::new(dev).unwrap_or_else(|e| panic!("creating a stream: {e}"))
}

/// A new non-blocking stream on `dev`, priority 0: work on it does not
/// wait for the null stream, so ordering between streams is the test's.
pub fn non_blocking_stream(dev: &Arc<Device>) -> Stream {
    let opts = StreamOptions {
        non_blocking: true,
        priority: 0,
    };
    Stream::with_options(dev, opts).unwrap_or_else(|e| panic!("creating a stream: {e}"))
}

/// A `hipMalloc` device buffer (untracked, see [`DeviceBuffer::uninit`])
/// holding `data`, copied on the null stream before this returns.
pub fn upload<T: DeviceRepr>(dev: &Arc<Device>, data: &[T]) -> DeviceBuffer<T> {
    let mut buf = DeviceBuffer::uninit(dev, data.len()).unwrap_or_else(|e| panic!("upload: {e}"));
    Stream::default_for(dev)
        .copy_htod(data, &mut buf)
        .unwrap_or_else(|e| panic!("upload: {e}"));
    buf
}

/// The contents of `src` after everything enqueued on `stream` so far:
/// waits for the stream, then copies back on it.
pub fn download<T: DeviceRepr>(stream: &Stream, src: &impl DeviceMemory<T>) -> Vec<T> {
    stream
        .synchronize()
        .unwrap_or_else(|e| panic!("synchronize: {e}"));
    stream
        .clone_dtoh(src)
        .unwrap_or_else(|e| panic!("download: {e}"))
}
