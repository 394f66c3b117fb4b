//! Tier 3: cudarc's `runtime::result` wrappers on a real GPU: versions,
//! device queries, streams, stream-ordered and synchronous memory (round
//! trips against their input), events (elapsed time of real work),
//! occupancy within the device's limits, and a launch of an nvrtc-compiled
//! module function checked against a CPU reference on fresh random data.
//! Run with `--ignored` (`HIP_PLATFORM=nvidia` on an NVIDIA GPU).

use cuda_compat::driver::result as driver;
use cuda_compat::driver::sys as dsys;
use cuda_compat::nvrtc::compile_ptx;
use cuda_compat::runtime::result::{self, stream::StreamKind, RuntimeError};
use cuda_compat::runtime::sys;
use std::ffi::{c_void, CString};
use test_kit::{assert_close, random_bytes, random_nonzero};

const AFFINE: &str = r#"
extern "C" __global__ void affine(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 3.0f * x[i] - 0.5f;
}
"#;

/// Device 0 made current through the runtime (its primary context).
fn use_device_0() {
    let _dev = test_kit::device();
    result::device::set(0).expect("cudaSetDevice(0)");
    assert_eq!(result::device::get(), Ok(0));
    // SAFETY: freeing null does nothing; it makes the context current.
    unsafe { result::device::free(std::ptr::null_mut()) }.expect("cudaFree(NULL)");
}

/// The affine kernel from nvrtc, loaded into the current context.
fn affine_function() -> (dsys::CUmodule, dsys::CUfunction) {
    let ptx = compile_ptx(AFFINE).expect("compiles");
    let mut image = ptx.as_bytes().expect("compiled code").to_vec();
    if image.last() != Some(&0) {
        image.push(0);
    }
    // SAFETY: a whole compiled image, NUL-terminated.
    let module = unsafe { driver::module::load_data(image.as_ptr().cast()) }.unwrap();
    // SAFETY: `module` is live.
    let f =
        unsafe { driver::module::get_function(module, CString::new("affine").unwrap()) }.unwrap();
    (module, f)
}

#[test]
#[ignore = "needs a GPU"]
fn versions_and_device_queries_agree() {
    use_device_0();
    let runtime = result::version::get().unwrap();
    assert_eq!(result::version::get_runtime_version(), Ok(runtime));
    let driver_version = result::version::get_driver_version().unwrap();
    assert!(
        runtime > 0 && driver_version > 0,
        "{runtime} {driver_version}"
    );
    let count = result::device::get_count().unwrap();
    assert!(count >= 1, "{count}");

    let prop = result::device::get_device_prop(0).unwrap();
    // SAFETY: device 0 exists; the attribute is a valid one.
    let sms = unsafe {
        result::device::get_attribute(0, sys::cudaDeviceAttr::cudaDevAttrMultiProcessorCount)
    }
    .unwrap();
    assert!(
        sms > 0 && sms == prop.multiProcessorCount,
        "{sms} vs {}",
        prop.multiProcessorCount
    );
    assert!(
        prop.maxThreadsPerBlock >= 256,
        "{}",
        prop.maxThreadsPerBlock
    );

    let (free, total) = result::mem_get_info().unwrap();
    assert!(free > 0 && free <= total, "{free} of {total}");
    assert_eq!(result::device::total_mem(), Ok(total));
    assert!(result::device::free_mem().unwrap() <= total);
    assert_eq!(result::get_mem_info().unwrap().1, total);
    assert_eq!(
        prop.totalGlobalMem, total,
        "cudaDeviceProp vs cudaMemGetInfo"
    );

    assert!(result::device::set(count).is_err(), "ordinal past the last");
}

#[test]
#[ignore = "needs a GPU"]
fn memory_round_trips_equal_their_input() {
    use_device_0();
    let n = (1 << 20) + 3;
    let host = random_bytes(n);
    let fill = host[0].wrapping_add(1);
    let stream = result::stream::create(StreamKind::NonBlocking).unwrap();
    let mut back = vec![0u8; n];
    let mut filled = vec![0u8; n];
    let mut sync_back = vec![0u8; n];
    // SAFETY: every device pointer is live and `n` bytes long; the host
    // buffers are not touched until the stream is synchronized.
    unsafe {
        let a = result::malloc_async(stream, n).unwrap();
        let b = result::malloc_async(stream, n).unwrap();
        result::memcpy_htod_async(a, &host, stream).unwrap();
        result::memcpy_dtod_async(b, a, n, stream).unwrap();
        result::memcpy_dtoh_async(&mut back, b, stream).unwrap();
        result::memset_d8_async(a, fill, n, stream).unwrap();
        result::memcpy_dtoh_async(&mut filled, a, stream).unwrap();
        result::free_async(a, stream).unwrap();
        result::free_async(b, stream).unwrap();
        result::stream::synchronize(stream).unwrap();
        result::stream::destroy(stream).unwrap();

        let c = result::malloc_sync(n).unwrap();
        let d = result::malloc_sync(n).unwrap();
        result::memcpy_htod_sync(c, &host).unwrap();
        result::memcpy_dtod_sync(d, c, n).unwrap();
        result::memset_d8_sync(c, 0, n / 2).unwrap();
        result::memcpy_dtoh_sync(&mut sync_back, d).unwrap();
        let mut half = vec![1u8; n];
        result::memcpy_dtoh_sync(&mut half, c).unwrap();
        assert!(half[..n / 2].iter().all(|&x| x == 0));
        assert_eq!(half[n / 2..], host[n / 2..]);
        result::free_sync(c).unwrap();
        result::memory_free(d).unwrap();
    }
    assert!(back == host, "async round trip differs");
    assert!(filled.iter().all(|&x| x == fill), "memset");
    assert!(sync_back == host, "sync round trip differs");
}

#[test]
#[ignore = "needs a GPU"]
fn a_launch_is_timed_by_events_and_matches_the_cpu() {
    use_device_0();
    let (module, f) = affine_function();
    let n = 1 << 22;
    let host: Vec<f32> = random_nonzero(n, -4.0..4.0);
    let want: Vec<f32> = host.iter().map(|x| 3.0 * x - 0.5).collect();
    let mut got = vec![0f32; n];
    let stream = result::stream::create(StreamKind::Default).unwrap();
    let start = result::event::create(sys::cudaEventDefault).unwrap();
    let end = result::event::create(sys::cudaEventDefault).unwrap();
    // SAFETY: the buffer is live and `n` floats long; the parameters
    // outlive the launch call; the stream is synchronized before `got` is
    // read.
    let ms = unsafe {
        let buf = result::malloc_async(stream, n * 4).unwrap();
        result::memcpy_htod_async(buf, &host, stream).unwrap();
        result::event::record(start, stream).unwrap();
        let mut ptr = buf as u64;
        let mut count = n as i32;
        let mut params = [
            (&mut ptr as *mut u64).cast::<c_void>(),
            (&mut count as *mut i32).cast::<c_void>(),
        ];
        result::launch_kernel(
            f,
            ((n as u32).div_ceil(256), 1, 1),
            (256, 1, 1),
            0,
            stream,
            &mut params,
        )
        .unwrap();
        result::event::record(end, stream).unwrap();
        result::memcpy_dtoh_async(&mut got, buf, stream).unwrap();
        result::free_async(buf, stream).unwrap();
        result::stream::synchronize(stream).unwrap();
        let ms = result::event::elapsed(start, end).unwrap();
        result::event::destroy(start).unwrap();
        result::event::destroy(end).unwrap();
        result::stream::destroy(stream).unwrap();
        driver::module::unload(module).unwrap();
        ms
    };
    assert!(ms > 0.0 && ms < 1000.0, "{ms} ms");
    assert_close(
        &got,
        &want,
        1e-6,
        "affine via runtime::result::launch_kernel",
    );
}

#[test]
#[ignore = "needs a GPU"]
fn a_stream_waits_for_an_event_of_another() {
    use_device_0();
    let n = 1 << 24;
    let first = result::stream::create(StreamKind::NonBlocking).unwrap();
    let second = result::stream::create(StreamKind::NonBlocking).unwrap();
    let done = result::event::create(sys::cudaEventDisableTiming).unwrap();
    let mut got = vec![0u8; n];
    // SAFETY: both buffers are live and `n` bytes long; `got` is read only
    // after `second` is synchronized.
    unsafe {
        let a = result::malloc_sync(n).unwrap();
        let b = result::malloc_sync(n).unwrap();
        result::memset_d8_sync(b, 0, n).unwrap();
        result::memset_d8_async(a, 0x5a, n, first).unwrap();
        result::event::record(done, first).unwrap();
        result::stream::wait_event(second, done, 0).unwrap();
        result::memcpy_dtod_async(b, a, n, second).unwrap();
        result::memcpy_dtoh_async(&mut got, b, second).unwrap();
        result::stream::synchronize(second).unwrap();
        result::stream::synchronize(first).unwrap();
        result::free_sync(a).unwrap();
        result::free_sync(b).unwrap();
        result::event::destroy(done).unwrap();
        result::stream::destroy(first).unwrap();
        result::stream::destroy(second).unwrap();
    }
    assert!(
        got.iter().all(|&x| x == 0x5a),
        "the copy ran before the memset"
    );
}

#[test]
#[ignore = "needs a GPU"]
fn occupancy_is_within_the_devices_limits() {
    use_device_0();
    let prop = result::device::get_device_prop(0).unwrap();
    let (module, f) = affine_function();
    // SAFETY: `f` is a live function of the current context.
    let (grid, block) = unsafe {
        result::occupancy::max_potential_block_size(f as sys::cudaFunction_t, None, 0, 0)
    }
    .unwrap();
    assert!(grid >= 1, "{grid}");
    assert!(
        block >= 32 && block <= prop.maxThreadsPerBlock && block % 32 == 0,
        "{block} of {}",
        prop.maxThreadsPerBlock
    );
    // SAFETY: as above.
    let (grid2, block2) = unsafe {
        result::occupancy::max_potential_block_size_with_flags(
            f as sys::cudaFunction_t,
            None,
            0,
            128,
            0,
        )
    }
    .unwrap();
    assert!(
        grid2 >= 1 && (32..=128).contains(&block2),
        "{grid2} {block2}"
    );
    // SAFETY: `module` is live and not used afterwards.
    unsafe { driver::module::unload(module) }.unwrap();
}

/// The calls that take a kernel's host symbol reject a null one (a Rust
/// program has no host symbols of its own; their success path needs a
/// kernel compiled into the program).
#[test]
#[ignore = "needs a GPU"]
fn calls_on_a_null_host_symbol_fail() {
    use_device_0();
    let null = std::ptr::null();
    // SAFETY: the runtime checks the symbol before using it.
    unsafe {
        assert!(result::function::get_function_attributes(null).is_err());
        assert!(result::function::get_function_by_symbol(null).is_err());
        assert!(result::occupancy::max_active_block_per_multiprocessor(null, 128, 0).is_err());
        assert!(
            result::occupancy::max_active_block_per_multiprocessor_with_flags(null, 128, 0, 0)
                .is_err()
        );
        assert_eq!(
            result::occupancy::available_dynamic_shared_mem_per_block(null, 1, 128),
            Err(RuntimeError(sys::cudaError_t::cudaErrorNotSupported))
        );
    }
}

/// The wrappers call the `hip` crate's result layer: a real fill and copy
/// round trip, then a failure whose reason names the HIP call.
#[test]
#[ignore = "needs a GPU"]
fn a_failure_keeps_hips_message_naming_the_call() {
    use result::last_error_detail;
    use_device_0();
    let host = random_bytes(4099);
    let mut back = vec![0u8; host.len()];
    // SAFETY: `p` is live and `host.len()` bytes long until freed.
    unsafe {
        let p = result::malloc_sync(host.len()).unwrap();
        result::memset_d8_sync(p, 0xa5, host.len()).unwrap();
        result::memcpy_dtoh_sync(&mut back, p).unwrap();
        assert!(back.iter().all(|&x| x == 0xa5), "memset");
        result::memcpy_htod_sync(p, &host).unwrap();
        result::memcpy_dtoh_sync(&mut back, p).unwrap();
        result::free_sync(p).unwrap();
    }
    assert!(back == host, "round trip differs");

    let count = result::device::get_count().unwrap();
    let e = result::device::set(count + 7).unwrap_err();
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("hipSetDevice"), "{why}");
    assert!(format!("{e:?}").contains("hipSetDevice"), "{e:?}");
    // A raw status afterwards forgets it.
    assert_eq!(e.0.result(), Err(e));
    assert_eq!(last_error_detail(), None);
}
