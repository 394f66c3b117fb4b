//! Tier 3: cudarc's `driver::result` wrappers on a real GPU, end to end:
//! device queries, the primary context, a stream, stream-ordered memory, a
//! module from `nvrtc::compile_ptx`, a raw launch, events, occupancy and
//! function attributes. Run with `--ignored` (`HIP_PLATFORM=nvidia` on an
//! NVIDIA GPU). The launch is checked against a CPU reference on fresh
//! random non-zero data.

use cuda_compat::driver::result::{self, stream::StreamKind};
use cuda_compat::driver::sys;
use cuda_compat::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};
use test_kit::{assert_close, random_nonzero};

const AFFINE: &str = r#"
extern "C" __global__ void affine(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 3.0f * x[i] - 0.5f;
}
"#;

#[test]
#[ignore = "needs a GPU"]
fn raw_wrappers_run_a_kernel_end_to_end() {
    let _dev = test_kit::device();
    result::init().expect("cuInit");
    assert!(result::device::get_count().unwrap() >= 1);
    let dev = result::device::get(0).unwrap();
    assert!(!result::device::get_name(dev).unwrap().is_empty());
    // SAFETY: `dev` is device 0 of this process.
    let total = unsafe { result::device::total_mem(dev) }.unwrap();
    // SAFETY: as above.
    let sms = unsafe {
        result::device::get_attribute(
            dev,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
    }
    .unwrap();
    assert!(total > (1 << 30) && sms > 0, "{total} bytes, {sms} SMs");

    // SAFETY: released at the end of the test.
    let ctx = unsafe { result::primary_ctx::retain(dev) }.unwrap();
    // SAFETY: `ctx` is live.
    unsafe { result::ctx::set_current(ctx) }.unwrap();
    assert_eq!(result::ctx::get_current().unwrap(), Some(ctx));
    let (free, all) = result::mem_get_info().unwrap();
    assert!(
        free <= all && all == total,
        "{free} of {all}, device says {total}"
    );

    let ptx = compile_ptx(AFFINE).expect("compiles");
    let mut image = ptx.as_bytes().expect("compiled code").to_vec();
    if image.last() != Some(&0) {
        image.push(0);
    }
    // SAFETY: a whole compiled image, NUL-terminated.
    let module = unsafe { result::module::load_data(image.as_ptr().cast()) }.unwrap();
    // SAFETY: `module` is live.
    let f =
        unsafe { result::module::get_function(module, CString::new("affine").unwrap()) }.unwrap();
    // SAFETY: `f` is live.
    let max_threads = unsafe {
        result::function::get_function_attribute(
            f,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        )
    }
    .unwrap();
    assert!(max_threads >= 256, "{max_threads}");
    // SAFETY: `f` is live.
    unsafe {
        result::function::set_function_attribute(
            f,
            sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            1024,
        )
    }
    .unwrap();
    // SAFETY: `f` is live.
    let blocks =
        unsafe { result::occupancy::max_active_block_per_multiprocessor(f, 256, 0) }.unwrap();
    // SAFETY: `f` is live.
    let (grid, block) =
        unsafe { result::occupancy::max_potential_block_size(f, None, 0, 0) }.unwrap();
    assert!(
        blocks >= 1 && grid >= 1 && block >= 32,
        "{blocks} {grid} {block}"
    );

    let n = 1 << 20;
    let host: Vec<f32> = random_nonzero(n, -4.0..4.0);
    let want: Vec<f32> = host.iter().map(|x| 3.0 * x - 0.5).collect();
    let stream = result::stream::create(StreamKind::NonBlocking).unwrap();
    let start = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).unwrap();
    let end = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT).unwrap();
    let mut got = vec![0f32; n];
    // SAFETY: every pointer below is live and sized for `n` floats; the
    // stream is synchronized before `host`/`got` are touched again.
    unsafe {
        let buf = result::malloc_async(stream, n * 4).unwrap();
        result::memcpy_htod_async(buf, &host, stream).unwrap();
        result::event::record(start, stream).unwrap();
        let mut ptr = buf;
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
        assert_eq!(result::event::query(end), Ok(()));
        let ms = result::event::elapsed(start, end).unwrap();
        assert!(ms > 0.0 && ms < 1000.0, "{ms} ms");
        result::event::destroy(start).unwrap();
        result::event::destroy(end).unwrap();
        result::stream::destroy(stream).unwrap();
        result::module::unload(module).unwrap();
        result::primary_ctx::release(dev).unwrap();
    }
    assert_close(&got, &want, 1e-6, "3x - 0.5 through result::launch_kernel");
}

/// The wrappers call the `hip` crate's result layer: a real fill and copy
/// round trip and a limit round trip, then failures whose reason names the
/// HIP call.
#[test]
#[ignore = "needs a GPU"]
fn a_failure_keeps_hips_message_naming_the_call() {
    use result::last_error_detail;
    let _dev = test_kit::device();
    result::init().expect("cuInit");
    let dev = result::device::get(0).unwrap();
    // SAFETY: released at the end of the test.
    let ctx = unsafe { result::primary_ctx::retain(dev) }.unwrap();
    // SAFETY: `ctx` is live.
    unsafe { result::ctx::set_current(ctx) }.unwrap();

    let host: Vec<u8> = (0..4099u32).map(|i| (i * 7 + 3) as u8).collect();
    let mut back = vec![0u8; host.len()];
    // SAFETY: `p` is live and `host.len()` bytes long until freed.
    unsafe {
        let p = result::malloc_sync(host.len()).unwrap();
        result::memset_d8_sync(p, 0x5a, host.len()).unwrap();
        result::memcpy_dtoh_sync(&mut back, p).unwrap();
        assert!(back.iter().all(|&x| x == 0x5a), "memset");
        result::memcpy_htod_sync(p, &host).unwrap();
        result::memcpy_dtoh_sync(&mut back, p).unwrap();
        result::free_sync(p).unwrap();
    }
    assert!(back == host, "round trip differs");

    let stack = result::ctx::get_limit(sys::CUlimit::CU_LIMIT_STACK_SIZE).unwrap();
    result::ctx::set_limit(sys::CUlimit::CU_LIMIT_STACK_SIZE, stack).unwrap();
    assert_eq!(
        result::ctx::get_limit(sys::CUlimit::CU_LIMIT_STACK_SIZE),
        Ok(stack)
    );
    result::ctx::synchronize().unwrap();

    let count = result::device::get_count().unwrap();
    let e = result::device::get(count + 7).unwrap_err();
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("hipDeviceGet"), "{why}");
    assert!(format!("{e:?}").contains("hipDeviceGet"), "{e:?}");

    let ptx = compile_ptx(AFFINE).expect("compiles");
    let mut image = ptx.as_bytes().expect("compiled code").to_vec();
    if image.last() != Some(&0) {
        image.push(0);
    }
    // SAFETY: a whole compiled image, NUL-terminated.
    let module = unsafe { result::module::load_data(image.as_ptr().cast()) }.unwrap();
    // SAFETY: `module` is live.
    let e = unsafe { result::module::get_function(module, CString::new("absent").unwrap()) }
        .unwrap_err();
    assert_eq!(e.0, sys::CUresult::CUDA_ERROR_NOT_FOUND);
    let (_, why) = last_error_detail().expect("a reason");
    assert!(why.contains("hipModuleGetFunction"), "{why}");
    // SAFETY: nothing of the module is used afterwards.
    unsafe { result::module::unload(module) }.unwrap();
    // SAFETY: matches the retain above.
    unsafe { result::primary_ctx::release(dev) }.unwrap();
}
