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
        // The software AMD GPU (hip-emu) is loaded through the AMD backend.
        let platform = match p.trim() {
            "emulated" | "emu" | "hcc" => "amd",
            "nvcc" => "nvidia",
            other => other,
        };
        require_platform(platform);
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

/// CUDA C++ (a string literal, for `concat!` in front of a test's kernels)
/// for kernels that wait by the cycle counter: a stopwatch that counts the
/// cycles since `hiprs_stopwatch_start`, and `hiprs_spin(cycles)`.
///
/// `clock64() - start` is not that count everywhere: on RDNA 3 (gfx11)
/// `clock64()` reads SHADER_CYCLES, a 20-bit counter, so a difference
/// never reaches a spin of 2^20 cycles or more (the kernel spins forever)
/// and goes negative when the counter wraps (an unsigned comparison ends
/// at once). The stopwatch adds each step modulo the counter's width,
/// which is exact while two reads are less than 2^20 cycles apart; where
/// `clock64()` is 64 bits wide (NVIDIA, CDNA) it is the plain difference.
///
/// ```
/// const KERNELS: &str = concat!(
///     test_kit::cycle_stopwatch_cuda!(),
///     r#"extern "C" __global__ void spin(long long cycles) { hiprs_spin(cycles); }"#
/// );
/// assert!(KERNELS.contains("hiprs_stopwatch_read"));
/// ```
#[macro_export]
macro_rules! cycle_stopwatch_cuda {
    () => {
        r#"
#if defined(__AMDGCN__)
#if !__has_builtin(__builtin_amdgcn_s_memtime)
#define HIPRS_CLOCK_MASK ((1LL << 20) - 1)
#endif
#endif
struct hiprs_stopwatch { long long last; long long elapsed; };
__device__ inline void hiprs_stopwatch_start(hiprs_stopwatch* s) {
    s->last = clock64();
    s->elapsed = 0;
}
__device__ inline long long hiprs_stopwatch_read(hiprs_stopwatch* s) {
    long long now = clock64();
    long long step = now - s->last;
#ifdef HIPRS_CLOCK_MASK
    step &= HIPRS_CLOCK_MASK;
#endif
    s->last = now;
    s->elapsed += step;
    return s->elapsed;
}
__device__ inline void hiprs_spin(long long cycles) {
    hiprs_stopwatch s;
    hiprs_stopwatch_start(&s);
    while (hiprs_stopwatch_read(&s) < cycles) {}
}
"#
    };
}
