//! Tier-3 tests of the raw functions on a real GPU (NVIDIA, through the
//! NVIDIA backend). Run with `HIP_PLATFORM=nvidia cargo test -p hip-sys
//! --test gpu_nvidia -- --ignored --test-threads=1` on a machine with CUDA,
//! or through `scripts/gpu-bundle.sh` and `gpu-bundle/run.sh`.
//!
//! Every test uses fresh random data and compares against a CPU reference;
//! the tolerance is stated where results are not exact.

use hip_sys::*;
use rand::Rng;
use std::ffi::{c_void, CStr, CString};
use std::ptr::null_mut;
use test_kit::{random_bytes, random_nonzero, rng};

/// Fails the test with the status's name when a call does not succeed.
macro_rules! ok {
    ($e:expr) => {{
        // SAFETY: each call site passes valid pointers for its function.
        let status = unsafe { $e };
        assert_eq!(status, hipError_t::hipSuccess, "{}", stringify!($e));
    }};
}

macro_rules! rtc_ok {
    ($e:expr) => {{
        // SAFETY: as in `ok!`.
        let status = unsafe { $e };
        assert_eq!(status, hiprtcResult::HIPRTC_SUCCESS, "{}", stringify!($e));
    }};
}

fn setup() {
    test_kit::require_platform("nvidia");
    ok!(hipSetDevice(0));
}

/// Compiles HIP source with hiprtc and loads it as a module.
fn compile(src: &str) -> hipModule_t {
    let src = CString::new(src).unwrap();
    let mut prog: hiprtcProgram = null_mut();
    rtc_ok!(hiprtcCreateProgram(
        &mut prog,
        src.as_ptr(),
        c"test.hip".as_ptr(),
        0,
        null_mut(),
        null_mut()
    ));
    // An AMD option, as a HIP program would pass: dropped on NVIDIA.
    let mut opts = [c"--offload-arch=gfx90a".as_ptr(), c"-DSCALE=1".as_ptr()];
    // SAFETY: two valid option strings.
    let r = unsafe { hiprtcCompileProgram(prog, 2, opts.as_mut_ptr()) };
    if r != hiprtcResult::HIPRTC_SUCCESS {
        let mut n = 0;
        // SAFETY: `n` is a size_t to write to.
        let _ = unsafe { hiprtcGetProgramLogSize(prog, &mut n) };
        let mut log = vec![0u8; n.max(1)];
        // SAFETY: `log` holds `n` bytes.
        let _ = unsafe { hiprtcGetProgramLog(prog, log.as_mut_ptr().cast()) };
        panic!(
            "compilation failed: {r:?}\n{}",
            String::from_utf8_lossy(&log)
        );
    }
    let mut size = 0;
    rtc_ok!(hiprtcGetCodeSize(prog, &mut size));
    assert!(size > 0);
    let mut code = vec![0u8; size];
    rtc_ok!(hiprtcGetCode(prog, code.as_mut_ptr().cast()));
    rtc_ok!(hiprtcDestroyProgram(&mut prog));
    let mut module: hipModule_t = null_mut();
    ok!(hipModuleLoadData(&mut module, code.as_ptr().cast()));
    module
}

fn function(module: hipModule_t, name: &CStr) -> hipFunction_t {
    let mut f: hipFunction_t = null_mut();
    ok!(hipModuleGetFunction(&mut f, module, name.as_ptr()));
    f
}

fn device_alloc(bytes: usize) -> *mut c_void {
    let mut p = null_mut();
    ok!(hipMalloc(&mut p, bytes));
    p
}

/// Fresh non-zero values in [-100, 100), from the test's printed seed.
fn random_f32(n: usize) -> Vec<f32> {
    random_nonzero(n, -100.0f32..100.0)
}

const VADD: &str = r#"
#include <hip/hip_runtime.h>
extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    if (i < n) c[i] = (a[i] + b[i]) * SCALE;
}
extern "C" __global__ void increment(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}
extern "C" __global__ void mixed(float a, int b, short c, int d, float e, float* out) {
    int i = hipThreadIdx_x;
    out[i] = a * i + (float)b + (float)c * 2.0f + (float)d * 3.0f + e;
}
"#;

#[test]
#[ignore = "needs a GPU"]
fn loader_reports_nvidia_and_its_libraries() {
    setup();
    let rt = loader::runtime().unwrap();
    let roles: Vec<_> = rt.libraries.iter().map(|l| l.role).collect();
    assert!(
        roles.contains(&"CUDA runtime")
            && roles.contains(&"CUDA driver")
            && roles.contains(&"nvrtc"),
        "{roles:?}"
    );
    assert!(rt.version.major >= 12, "{}", rt.version);
    assert!(rt.is_available("hipModuleLaunchKernel"));
    println!(
        "{} {} via {:?}, {} functions",
        rt.platform,
        rt.version,
        roles,
        rt.available_count()
    );
}

#[test]
#[ignore = "needs a GPU"]
fn vector_add_compiled_by_hiprtc() {
    setup();
    let module = compile(VADD);
    let f = function(module, c"vadd");
    let n = 100_003usize;
    let (a, b) = (random_f32(n), random_f32(n));
    let bytes = n * 4;
    let (da, db, dc) = (
        device_alloc(bytes),
        device_alloc(bytes),
        device_alloc(bytes),
    );
    ok!(hipMemcpy(
        da,
        a.as_ptr().cast(),
        bytes,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    ok!(hipMemcpy(
        db,
        b.as_ptr().cast(),
        bytes,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    let mut n_arg = n as i32;
    let (mut pa, mut pb, mut pc) = (da, db, dc);
    let mut params: [*mut c_void; 4] = [
        (&mut pa as *mut *mut c_void).cast(),
        (&mut pb as *mut *mut c_void).cast(),
        (&mut pc as *mut *mut c_void).cast(),
        (&mut n_arg as *mut i32).cast(),
    ];
    let blocks = n.div_ceil(256) as u32;
    ok!(hipModuleLaunchKernel(
        f,
        blocks,
        1,
        1,
        256,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut()
    ));
    ok!(hipDeviceSynchronize());
    let mut c = vec![0f32; n];
    ok!(hipMemcpy(
        c.as_mut_ptr().cast(),
        dc,
        bytes,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    // Exact: one IEEE addition per element on both sides.
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i], "element {i}");
    }
    for p in [da, db, dc] {
        ok!(hipFree(p));
    }
    ok!(hipModuleUnload(module));
}

#[test]
#[ignore = "needs a GPU"]
fn memcpy_round_trips_are_byte_exact() {
    setup();
    let n = (1 << 20) + 13;
    let data = random_bytes(n);
    let d = device_alloc(n);
    let d2 = device_alloc(n);
    // Pageable.
    let mut back = vec![0u8; n];
    ok!(hipMemcpy(
        d,
        data.as_ptr().cast(),
        n,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    ok!(hipMemcpy(d2, d, n, hipMemcpyKind::hipMemcpyDeviceToDevice));
    ok!(hipMemcpy(
        back.as_mut_ptr().cast(),
        d2,
        n,
        hipMemcpyKind::hipMemcpyDefault
    ));
    assert!(back == data, "pageable round trip");
    eprintln!("pageable ok");
    // Pinned, async on a created stream.
    let mut pinned_in = null_mut();
    let mut pinned_out = null_mut();
    ok!(hipHostMalloc(&mut pinned_in, n, hipHostMallocCoherent));
    ok!(hipHostMalloc(&mut pinned_out, n, 0));
    // SAFETY: both pinned buffers hold `n` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(data.as_ptr(), pinned_in.cast::<u8>(), n);
        std::ptr::write_bytes(pinned_out.cast::<u8>(), 0, n);
    }
    let mut stream: hipStream_t = null_mut();
    ok!(hipStreamCreateWithFlags(&mut stream, hipStreamNonBlocking));
    ok!(hipMemsetAsync(d, 0, n, stream));
    ok!(hipMemcpyAsync(
        d,
        pinned_in,
        n,
        hipMemcpyKind::hipMemcpyHostToDevice,
        stream
    ));
    ok!(hipMemcpyDtoDAsync(d2, d, n, stream));
    ok!(hipMemcpyAsync(
        pinned_out,
        d2,
        n,
        hipMemcpyKind::hipMemcpyDeviceToHost,
        stream
    ));
    ok!(hipStreamSynchronize(stream));
    // SAFETY: `pinned_out` holds `n` initialized bytes.
    let out = unsafe { std::slice::from_raw_parts(pinned_out.cast::<u8>(), n) };
    assert!(out == &data[..], "pinned async round trip");
    eprintln!("pinned ok");
    // The driver-style async copies, through a zeroed buffer and back.
    // SAFETY: `pinned_out` holds `n` bytes and no copy is in flight.
    unsafe { std::ptr::write_bytes(pinned_out.cast::<u8>(), 0, n) };
    ok!(hipMemsetAsync(d2, 0, n, stream));
    ok!(hipMemcpyHtoDAsync(d2, pinned_in, n, stream));
    ok!(hipMemcpyDtoHAsync(pinned_out, d2, n, stream));
    ok!(hipStreamSynchronize(stream));
    // SAFETY: `pinned_out` holds `n` initialized bytes.
    let out = unsafe { std::slice::from_raw_parts(pinned_out.cast::<u8>(), n) };
    assert!(out == &data[..], "HtoDAsync/DtoHAsync round trip");
    eprintln!("driver async copies ok");
    // The driver-style copies and pointer attributes.
    let mut back2 = vec![0u8; n];
    ok!(hipMemcpyHtoD(d, data.as_ptr() as *mut c_void, n));
    ok!(hipMemcpyDtoH(back2.as_mut_ptr().cast(), d, n));
    assert!(back2 == data, "HtoD/DtoH");
    eprintln!("driver copies ok");
    // SAFETY: all-zero is a valid attribute struct.
    let mut attr: hipPointerAttribute_t = unsafe { std::mem::zeroed() };
    ok!(hipPointerGetAttributes(&mut attr, d));
    assert_eq!(attr.type_, hipMemoryType::hipMemoryTypeDevice);
    ok!(hipPointerGetAttributes(&mut attr, pinned_in));
    assert_eq!(attr.type_, hipMemoryType::hipMemoryTypeHost);
    eprintln!("pointer attributes ok");
    // Registered pageable memory.
    let mut reg = random_bytes(4096);
    let want = reg.clone();
    ok!(hipHostRegister(reg.as_mut_ptr().cast(), reg.len(), 0));
    ok!(hipMemcpy(
        d,
        reg.as_ptr().cast(),
        4096,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    reg.fill(0);
    ok!(hipMemcpy(
        reg.as_mut_ptr().cast(),
        d,
        4096,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    ok!(hipHostUnregister(reg.as_mut_ptr().cast()));
    assert_eq!(reg, want);
    ok!(hipStreamDestroy(stream));
    ok!(hipHostFree(pinned_in));
    ok!(hipHostFree(pinned_out));
    ok!(hipFree(d));
    ok!(hipFree(d2));
}

#[test]
#[ignore = "needs a GPU"]
fn copies_2d_with_odd_pitches() {
    setup();
    let (width, height, host_pitch) = (37usize, 29usize, 41usize);
    let src = random_bytes(host_pitch * height);
    let mut dptr = null_mut();
    let mut dpitch = 0usize;
    ok!(hipMallocPitch(&mut dptr, &mut dpitch, width, height));
    assert!(dpitch >= width);
    ok!(hipMemset2D(dptr, dpitch, 0, width, height));
    ok!(hipMemcpy2D(
        dptr,
        dpitch,
        src.as_ptr().cast(),
        host_pitch,
        width,
        height,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    let out_pitch = 53usize;
    let mut out = vec![0xAAu8; out_pitch * height];
    ok!(hipMemcpy2D(
        out.as_mut_ptr().cast(),
        out_pitch,
        dptr,
        dpitch,
        width,
        height,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    for r in 0..height {
        assert_eq!(
            &out[r * out_pitch..r * out_pitch + width],
            &src[r * host_pitch..r * host_pitch + width],
            "row {r}"
        );
        assert!(
            out[r * out_pitch + width..(r + 1) * out_pitch]
                .iter()
                .all(|b| *b == 0xAA),
            "row {r} padding"
        );
    }
    // The same through the driver-style description, device to host.
    let mut out2 = vec![0u8; width * height];
    // SAFETY: all-zero is a valid description.
    let mut p: hip_Memcpy2D = unsafe { std::mem::zeroed() };
    p.srcMemoryType = hipMemoryType::hipMemoryTypeDevice;
    p.srcDevice = dptr;
    p.srcPitch = dpitch;
    p.dstMemoryType = hipMemoryType::hipMemoryTypeHost;
    p.dstHost = out2.as_mut_ptr().cast();
    p.dstPitch = width;
    p.WidthInBytes = width;
    p.Height = height;
    ok!(hipMemcpyParam2D(&p));
    for r in 0..height {
        assert_eq!(
            &out2[r * width..(r + 1) * width],
            &src[r * host_pitch..r * host_pitch + width],
            "param row {r}"
        );
    }
    ok!(hipFree(dptr));
}

#[test]
#[ignore = "needs a GPU"]
fn memsets_of_every_width() {
    setup();
    let n = 10_007usize;
    let d = device_alloc(n * 4);
    let mut rng = rng();
    let v8: u8 = rng.gen_range(1..=255);
    let v16: u16 = rng.gen_range(1..=u16::MAX);
    let v32: u32 = rng.gen_range(1..=u32::MAX);
    let mut out = vec![0u8; n * 4];
    ok!(hipMemset(d, v8 as i32, n * 4));
    ok!(hipMemcpy(
        out.as_mut_ptr().cast(),
        d,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    assert!(out.iter().all(|b| *b == v8));
    ok!(hipMemsetD16(d, v16, n * 2));
    ok!(hipMemcpy(
        out.as_mut_ptr().cast(),
        d,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    assert!(out
        .chunks(2)
        .all(|c| u16::from_ne_bytes([c[0], c[1]]) == v16));
    ok!(hipMemsetD32(d, v32 as i32, n));
    ok!(hipMemcpy(
        out.as_mut_ptr().cast(),
        d,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    assert!(out
        .chunks(4)
        .all(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]) == v32));
    // Async 8-bit on part of the buffer: the rest keeps the 32-bit pattern.
    ok!(hipMemsetD8Async(d, v8, 1001, null_mut()));
    ok!(hipStreamSynchronize(null_mut()));
    ok!(hipMemcpy(
        out.as_mut_ptr().cast(),
        d,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    assert!(out[..1001].iter().all(|b| *b == v8));
    assert_eq!(&out[1004..1008], &v32.to_ne_bytes());
    ok!(hipFree(d));
}

/// The CPU reference of the `mixed` kernel.
fn mixed_reference(a: f32, b: i32, c: i16, d: i32, e: f32, i: usize) -> f32 {
    a * i as f32 + b as f32 + c as f32 * 2.0 + d as f32 * 3.0 + e
}

#[test]
#[ignore = "needs a GPU"]
fn mixed_arguments_through_extra_and_kernel_params() {
    setup();
    let module = compile(VADD);
    let f = function(module, c"mixed");
    let mut rng = rng();
    let a: f32 = rng.gen_range(-4.0..4.0);
    let b: i32 = rng.gen_range(-1000..1000);
    let c: i16 = rng.gen_range(-300..300);
    let d: i32 = rng.gen_range(-1000..1000);
    let e: f32 = rng.gen_range(-4.0..4.0);
    let threads = 64usize;
    let out = device_alloc(threads * 4);
    // The packed buffer with C's alignment: float@0 int@4 short@8 int@12
    // float@16 pointer@24, 32 bytes.
    let mut buf = [0u8; 32];
    buf[0..4].copy_from_slice(&a.to_ne_bytes());
    buf[4..8].copy_from_slice(&b.to_ne_bytes());
    buf[8..10].copy_from_slice(&c.to_ne_bytes());
    buf[12..16].copy_from_slice(&d.to_ne_bytes());
    buf[16..20].copy_from_slice(&e.to_ne_bytes());
    buf[24..32].copy_from_slice(&(out as usize).to_ne_bytes());
    let mut size = buf.len();
    let mut extra: [*mut c_void; 5] = [
        1 as *mut c_void, // HIP_LAUNCH_PARAM_BUFFER_POINTER
        buf.as_mut_ptr().cast(),
        2 as *mut c_void, // HIP_LAUNCH_PARAM_BUFFER_SIZE
        (&mut size as *mut usize).cast(),
        3 as *mut c_void, // HIP_LAUNCH_PARAM_END
    ];
    let check = |label: &str| {
        let mut host = vec![0f32; threads];
        ok!(hipMemcpy(
            host.as_mut_ptr().cast(),
            out,
            threads * 4,
            hipMemcpyKind::hipMemcpyDeviceToHost
        ));
        for (i, v) in host.iter().enumerate() {
            let want = mixed_reference(a, b, c, d, e, i);
            // Tolerance: the GPU may contract a*i+... into an FMA.
            assert!(
                (v - want).abs() <= 1e-3 * want.abs().max(1.0),
                "{label} [{i}]: {v} vs {want}"
            );
        }
    };
    ok!(hipMemset(out, 0, threads * 4));
    ok!(hipModuleLaunchKernel(
        f,
        1,
        1,
        1,
        threads as u32,
        1,
        1,
        0,
        null_mut(),
        null_mut(),
        extra.as_mut_ptr()
    ));
    ok!(hipDeviceSynchronize());
    check("extra");

    let (mut pa, mut pb, mut pc, mut pd, mut pe, mut pout) = (a, b, c, d, e, out);
    let mut params: [*mut c_void; 6] = [
        (&mut pa as *mut f32).cast(),
        (&mut pb as *mut i32).cast(),
        (&mut pc as *mut i16).cast(),
        (&mut pd as *mut i32).cast(),
        (&mut pe as *mut f32).cast(),
        (&mut pout as *mut *mut c_void).cast(),
    ];
    ok!(hipMemset(out, 0, threads * 4));
    ok!(hipModuleLaunchKernel(
        f,
        1,
        1,
        1,
        threads as u32,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut()
    ));
    ok!(hipDeviceSynchronize());
    check("kernelParams");
    ok!(hipFree(out));
    ok!(hipModuleUnload(module));
}

#[test]
#[ignore = "needs a GPU"]
fn captured_graph_replayed_1000_times() {
    setup();
    let module = compile(VADD);
    let f = function(module, c"increment");
    let n = 4099usize;
    let init = random_f32(n);
    let x = device_alloc(n * 4);
    ok!(hipMemcpy(
        x,
        init.as_ptr().cast(),
        n * 4,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    let mut stream: hipStream_t = null_mut();
    ok!(hipStreamCreateWithFlags(&mut stream, hipStreamNonBlocking));
    let (mut px, mut pn) = (x, n as i32);
    let mut params: [*mut c_void; 2] = [
        (&mut px as *mut *mut c_void).cast(),
        (&mut pn as *mut i32).cast(),
    ];
    ok!(hipStreamBeginCapture(
        stream,
        hipStreamCaptureMode::hipStreamCaptureModeGlobal
    ));
    let mut status = hipStreamCaptureStatus::hipStreamCaptureStatusNone;
    ok!(hipStreamIsCapturing(stream, &mut status));
    assert_eq!(status, hipStreamCaptureStatus::hipStreamCaptureStatusActive);
    ok!(hipModuleLaunchKernel(
        f,
        n.div_ceil(128) as u32,
        1,
        1,
        128,
        1,
        1,
        0,
        stream,
        params.as_mut_ptr(),
        null_mut()
    ));
    let mut graph: hipGraph_t = null_mut();
    ok!(hipStreamEndCapture(stream, &mut graph));
    let mut exec: hipGraphExec_t = null_mut();
    ok!(hipGraphInstantiate(
        &mut exec,
        graph,
        null_mut(),
        null_mut(),
        0
    ));
    for _ in 0..1000 {
        ok!(hipGraphLaunch(exec, stream));
    }
    ok!(hipStreamSynchronize(stream));
    let mut out = vec![0f32; n];
    ok!(hipMemcpy(
        out.as_mut_ptr().cast(),
        x,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    // Tolerance: the same 1000 float additions of 1.0 on the CPU, exactly.
    for i in 0..n {
        let mut want = init[i];
        for _ in 0..1000 {
            want += 1.0;
        }
        assert_eq!(out[i], want, "element {i}");
    }
    // Updating the executable graph with the same topology succeeds.
    let mut err_node: hipGraphNode_t = null_mut();
    let mut result = hipGraphExecUpdateResult(99);
    ok!(hipGraphExecUpdate(exec, graph, &mut err_node, &mut result));
    assert_eq!(result, hipGraphExecUpdateResult::hipGraphExecUpdateSuccess);
    ok!(hipGraphExecDestroy(exec));
    ok!(hipGraphDestroy(graph));
    ok!(hipStreamDestroy(stream));
    ok!(hipFree(x));
    ok!(hipModuleUnload(module));
}

#[test]
#[ignore = "needs a GPU"]
fn stream_ordered_allocation_in_a_loop() {
    setup();
    let mut stream: hipStream_t = null_mut();
    ok!(hipStreamCreate(&mut stream));
    let mut pool: hipMemPool_t = null_mut();
    ok!(hipDeviceGetDefaultMemPool(&mut pool, 0));
    let mut threshold: u64 = 64 << 20;
    ok!(hipMemPoolSetAttribute(
        pool,
        hipMemPoolAttr::hipMemPoolAttrReleaseThreshold,
        (&mut threshold as *mut u64).cast()
    ));
    let mut rng = rng();
    for round in 0..200 {
        let n = rng.gen_range(1..4096usize);
        let v: u32 = rng.gen_range(1..u32::MAX);
        let mut p = null_mut();
        ok!(hipMallocAsync(&mut p, n * 4, stream));
        ok!(hipMemsetD32Async(p, v as i32, n, stream));
        let mut out = vec![0u32; n];
        ok!(hipMemcpyAsync(
            out.as_mut_ptr().cast(),
            p,
            n * 4,
            hipMemcpyKind::hipMemcpyDeviceToHost,
            stream
        ));
        ok!(hipFreeAsync(p, stream));
        ok!(hipStreamSynchronize(stream));
        assert!(out.iter().all(|x| *x == v), "round {round}");
    }
    let mut used: u64 = 1;
    ok!(hipMemPoolGetAttribute(
        pool,
        hipMemPoolAttr::hipMemPoolAttrUsedMemCurrent,
        (&mut used as *mut u64).cast()
    ));
    assert_eq!(used, 0, "everything was freed");
    ok!(hipMemPoolTrimTo(pool, 0));
    ok!(hipStreamDestroy(stream));
}

#[test]
#[ignore = "needs a GPU"]
fn event_timing_is_positive_and_plausible() {
    setup();
    let bytes = 256usize << 20;
    let d = device_alloc(bytes);
    let (mut start, mut stop): (hipEvent_t, hipEvent_t) = (null_mut(), null_mut());
    ok!(hipEventCreate(&mut start));
    ok!(hipEventCreateWithFlags(&mut stop, hipEventDefault));
    ok!(hipEventRecord(start, null_mut()));
    for i in 0..8 {
        ok!(hipMemsetAsync(d, i, bytes, null_mut()));
    }
    ok!(hipEventRecord(stop, null_mut()));
    ok!(hipEventSynchronize(stop));
    assert_eq!(unsafe_query(stop), hipError_t::hipSuccess);
    let mut ms = 0f32;
    ok!(hipEventElapsedTime(&mut ms, start, stop));
    // 2 GiB of memset: more than a microsecond, less than ten seconds.
    assert!(ms > 0.001 && ms < 10_000.0, "{ms} ms");
    println!(
        "8 x 256 MiB memset: {ms:.3} ms ({:.0} GB/s)",
        8.0 * bytes as f64 / (ms as f64 * 1e6)
    );
    ok!(hipEventDestroy(start));
    ok!(hipEventDestroy(stop));
    ok!(hipFree(d));
}

fn unsafe_query(e: hipEvent_t) -> hipError_t {
    // SAFETY: `e` is a live event.
    unsafe { hipEventQuery(e) }
}

#[test]
#[ignore = "needs a GPU"]
fn device_properties_match_the_hardware() {
    setup();
    // SAFETY: all-zero is a valid property struct.
    let mut p: hipDeviceProp_tR0600 = unsafe { std::mem::zeroed() };
    ok!(hipGetDevicePropertiesR0600(&mut p, 0));
    // SAFETY: the name is NUL-terminated.
    let name = unsafe { CStr::from_ptr(p.name.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: as above.
    let arch = unsafe { CStr::from_ptr(p.gcnArchName.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    println!(
        "device 0: {name}, {arch}, {} SMs, {} bytes",
        p.multiProcessorCount, p.totalGlobalMem
    );
    assert!(name.contains("H100") || name.contains("H200"), "{name}");
    assert_eq!(p.warpSize, 32);
    assert_eq!(arch, format!("sm_{}{}", p.major, p.minor));
    assert!(p.major >= 9);
    let (mut free, mut total) = (0usize, 0usize);
    ok!(hipMemGetInfo(&mut free, &mut total));
    assert_eq!(p.totalGlobalMem, total);
    assert!(free > 0 && free <= total);
    let mut sms = 0;
    ok!(hipDeviceGetAttribute(
        &mut sms,
        hipDeviceAttribute_t::hipDeviceAttributeMultiprocessorCount,
        0
    ));
    assert_eq!(sms, p.multiProcessorCount);
    // Attributes and properties agree where both exist (the engine count is
    // not the deprecated overlap flag; the PCI domain is mapped).
    for (attr, expected) in [
        (
            hipDeviceAttribute_t::hipDeviceAttributeAsyncEngineCount,
            p.asyncEngineCount,
        ),
        (
            hipDeviceAttribute_t::hipDeviceAttributePciDomainID,
            p.pciDomainID,
        ),
        (hipDeviceAttribute_t::hipDeviceAttributePciBusId, p.pciBusID),
        (
            hipDeviceAttribute_t::hipDeviceAttributeMaxThreadsPerBlock,
            p.maxThreadsPerBlock,
        ),
    ] {
        let mut v = -1;
        ok!(hipDeviceGetAttribute(&mut v, attr, 0));
        assert_eq!(v, expected, "{attr:?}");
    }
    assert!(
        p.asyncEngineCount > 1,
        "H100/H200 have several copy engines"
    );
    let mut overlap = -1;
    ok!(hipDeviceGetAttribute(
        &mut overlap,
        hipDeviceAttribute_t::hipDeviceAttributeDeviceOverlap,
        0
    ));
    assert_eq!(overlap, 1);
    let mut bus = [0 as std::ffi::c_char; 32];
    ok!(hipDeviceGetPCIBusId(bus.as_mut_ptr(), 32, 0));
    // SAFETY: NUL-terminated by the call.
    let bus = unsafe { CStr::from_ptr(bus.as_ptr()) }
        .to_string_lossy()
        .into_owned();
    assert!(
        bus.to_lowercase().contains(&format!("{:02x}:", p.pciBusID)),
        "{bus} vs {}",
        p.pciBusID
    );
    let mut count = 0;
    ok!(hipGetDeviceCount(&mut count));
    assert!(count >= 1);
    // The pre-6.0 layout says the same.
    // SAFETY: all-zero is a valid property struct.
    let mut old: hipDeviceProp_tR0000 = unsafe { std::mem::zeroed() };
    ok!(hipGetDevicePropertiesR0000(&mut old, 0));
    assert_eq!(
        (
            old.name,
            old.totalGlobalMem,
            old.multiProcessorCount,
            old.major,
            old.warpSize
        ),
        (p.name, p.totalGlobalMem, p.multiProcessorCount, p.major, 32)
    );
}

#[test]
#[ignore = "needs a GPU"]
fn errors_are_hips_and_the_device_survives() {
    setup();
    let module = compile(VADD);
    let mut f: hipFunction_t = null_mut();
    // SAFETY: valid output and name.
    let r = unsafe { hipModuleGetFunction(&mut f, module, c"no_such_kernel".as_ptr()) };
    assert_eq!(r, hipError_t::hipErrorNotFound);
    let mut count = 0;
    ok!(hipGetDeviceCount(&mut count));
    // SAFETY: no pointers.
    let r = unsafe { hipSetDevice(count) };
    assert_eq!(r, hipError_t::hipErrorInvalidDevice);
    let mut p = null_mut();
    // SAFETY: valid output.
    let r = unsafe { hipMalloc(&mut p, 1usize << 50) };
    assert_eq!(r, hipError_t::hipErrorOutOfMemory);
    // SAFETY: no arguments.
    let r = unsafe { hipPeekAtLastError() };
    assert_eq!(r, hipError_t::hipErrorOutOfMemory);
    // SAFETY: no arguments.
    let r = unsafe { hipGetLastError() };
    assert_eq!(r, hipError_t::hipErrorOutOfMemory);
    // SAFETY: no arguments.
    let r = unsafe { hipGetLastError() };
    assert_eq!(r, hipError_t::hipSuccess);
    // SAFETY: returns a static string.
    let name = unsafe { CStr::from_ptr(hipGetErrorName(hipError_t::hipErrorOutOfMemory)) };
    assert_eq!(name.to_str().unwrap(), "hipErrorOutOfMemory");
    // SAFETY: as above.
    let text = unsafe { CStr::from_ptr(hipGetErrorString(hipError_t::hipErrorInvalidDevice)) };
    assert!(!text.to_bytes().is_empty());
    // The device still works.
    ok!(hipSetDevice(0));
    let data = random_bytes(4096);
    let d = device_alloc(4096);
    let mut back = vec![0u8; 4096];
    ok!(hipMemcpy(
        d,
        data.as_ptr().cast(),
        4096,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    ok!(hipMemcpy(
        back.as_mut_ptr().cast(),
        d,
        4096,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    assert_eq!(back, data);
    ok!(hipFree(d));
    ok!(hipModuleUnload(module));
}

extern "C" fn set_flag(user: *mut c_void) {
    // SAFETY: `user` is the `AtomicU32` passed below, alive until the sync.
    let flag = unsafe { &*(user as *const std::sync::atomic::AtomicU32) };
    flag.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
#[ignore = "needs a GPU"]
fn host_functions_run_in_stream_order() {
    setup();
    let flag = std::sync::atomic::AtomicU32::new(0);
    let mut stream: hipStream_t = null_mut();
    ok!(hipStreamCreateWithPriority(&mut stream, 0, 0));
    for _ in 0..5 {
        ok!(hipLaunchHostFunc(
            stream,
            Some(set_flag),
            (&flag as *const std::sync::atomic::AtomicU32) as *mut c_void
        ));
    }
    ok!(hipStreamSynchronize(stream));
    assert_eq!(flag.load(std::sync::atomic::Ordering::SeqCst), 5);
    ok!(hipStreamDestroy(stream));
}

const EXTRA_SRC: &str = r#"
#include <hip/hip_runtime.h>
__device__ float scale_global;
extern "C" __global__ void scale(float* x, int n) {
    int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    if (i < n) x[i] *= scale_global;
}
template <typename T> __global__ void add_value(T* x, T v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}
extern "C" __global__ void warp_sum(const int* x, int* out) {
    int v = x[hipThreadIdx_x];
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor(v, o);
    if (hipThreadIdx_x == 0) *out = v;
}
"#;

#[test]
#[ignore = "needs a GPU"]
fn module_globals_lowered_names_and_hip_shuffles() {
    setup();
    let src = CString::new(EXTRA_SRC).unwrap();
    let mut prog: hiprtcProgram = null_mut();
    rtc_ok!(hiprtcCreateProgram(
        &mut prog,
        src.as_ptr(),
        c"extra.hip".as_ptr(),
        0,
        null_mut(),
        null_mut()
    ));
    rtc_ok!(hiprtcAddNameExpression(prog, c"add_value<int>".as_ptr()));
    rtc_ok!(hiprtcCompileProgram(prog, 0, null_mut()));
    let mut lowered = std::ptr::null();
    rtc_ok!(hiprtcGetLoweredName(
        prog,
        c"add_value<int>".as_ptr(),
        &mut lowered
    ));
    // SAFETY: nvrtc returns a NUL-terminated name owned by the program.
    let lowered = unsafe { CStr::from_ptr(lowered) }.to_owned();
    assert!(lowered.to_str().unwrap().starts_with("_Z"), "{lowered:?}");
    let mut size = 0;
    rtc_ok!(hiprtcGetCodeSize(prog, &mut size));
    let mut code = vec![0u8; size];
    rtc_ok!(hiprtcGetCode(prog, code.as_mut_ptr().cast()));
    rtc_ok!(hiprtcDestroyProgram(&mut prog));

    // Load from a file this time.
    #[allow(clippy::disallowed_methods)]
    // runs on the GPU machine, where cargo's scratch space is absent; removed below
    let path = std::env::temp_dir().join(format!("hip-sys-gpu-{}.bin", std::process::id()));
    std::fs::write(&path, &code).unwrap();
    let cpath = CString::new(path.to_str().unwrap()).unwrap();
    let mut module: hipModule_t = null_mut();
    ok!(hipModuleLoad(&mut module, cpath.as_ptr()));
    std::fs::remove_file(&path).unwrap();

    // A global set from the host.
    let mut rng = rng();
    let factor: f32 = rng.gen_range(0.5..2.0);
    let mut global: hipDeviceptr_t = null_mut();
    let mut global_size = 0usize;
    ok!(hipModuleGetGlobal(
        &mut global,
        &mut global_size,
        module,
        c"scale_global".as_ptr()
    ));
    assert_eq!(global_size, 4);
    ok!(hipMemcpyHtoD(
        global,
        (&factor as *const f32) as *mut c_void,
        4
    ));
    let n = 3000usize;
    let x = random_f32(n);
    let d = device_alloc(n * 4);
    ok!(hipMemcpy(
        d,
        x.as_ptr().cast(),
        n * 4,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    let f = function(module, c"scale");
    let mut grid = 0;
    let mut block = 0;
    ok!(hipModuleOccupancyMaxPotentialBlockSize(
        &mut grid, &mut block, f, 0, 0
    ));
    assert!(block > 0 && block <= 1024 && grid > 0, "{grid} x {block}");
    let mut max_threads = 0;
    ok!(hipFuncGetAttribute(
        &mut max_threads,
        hipFunction_attribute::HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        f
    ));
    assert!(max_threads >= block);
    // SAFETY: all-zero is a valid attribute struct.
    let mut attrs: hipFuncAttributes = unsafe { std::mem::zeroed() };
    ok!(hipFuncGetAttributes(&mut attrs, f as *const c_void));
    assert_eq!(attrs.maxThreadsPerBlock, max_threads);
    let (mut pd, mut pn) = (d, n as i32);
    let mut params: [*mut c_void; 2] = [
        (&mut pd as *mut *mut c_void).cast(),
        (&mut pn as *mut i32).cast(),
    ];
    let blocks = n.div_ceil(block as usize) as u32;
    ok!(hipModuleLaunchKernel(
        f,
        blocks,
        1,
        1,
        block as u32,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut()
    ));
    let mut out = vec![0f32; n];
    ok!(hipMemcpy(
        out.as_mut_ptr().cast(),
        d,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    for i in 0..n {
        // Exact: one multiplication on both sides.
        assert_eq!(out[i], x[i] * factor, "scale [{i}]");
    }
    ok!(hipFree(d));

    // The template instance, by its lowered name.
    let add = function(module, &lowered);
    let ints: Vec<i32> = (0..n).map(|_| rng.gen_range(-1000..1000)).collect();
    let v: i32 = rng.gen_range(1..100);
    let d = device_alloc(n * 4);
    ok!(hipMemcpy(
        d,
        ints.as_ptr().cast(),
        n * 4,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    let (mut pd, mut pv, mut pn) = (d, v, n as i32);
    let mut params: [*mut c_void; 3] = [
        (&mut pd as *mut *mut c_void).cast(),
        (&mut pv as *mut i32).cast(),
        (&mut pn as *mut i32).cast(),
    ];
    ok!(hipModuleLaunchKernel(
        add,
        n.div_ceil(256) as u32,
        1,
        1,
        256,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut()
    ));
    let mut back = vec![0i32; n];
    ok!(hipMemcpy(
        back.as_mut_ptr().cast(),
        d,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    for i in 0..n {
        assert_eq!(back[i], ints[i] + v);
    }

    // HIP's warp shuffle spelling.
    let lanes: Vec<i32> = (0..32).map(|_| rng.gen_range(-1000..1000)).collect();
    ok!(hipMemcpy(
        d,
        lanes.as_ptr().cast(),
        32 * 4,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    let sum_dev = device_alloc(4);
    let (mut px, mut po) = (d, sum_dev);
    let mut params: [*mut c_void; 2] = [
        (&mut px as *mut *mut c_void).cast(),
        (&mut po as *mut *mut c_void).cast(),
    ];
    let ws = function(module, c"warp_sum");
    ok!(hipModuleLaunchKernel(
        ws,
        1,
        1,
        1,
        32,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut()
    ));
    let mut sum = 0i32;
    ok!(hipMemcpy(
        (&mut sum as *mut i32).cast(),
        sum_dev,
        4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    assert_eq!(sum, lanes.iter().sum::<i32>());
    ok!(hipFree(d));
    ok!(hipFree(sum_dev));
    ok!(hipModuleUnload(module));
}

#[test]
#[ignore = "needs a GPU"]
fn graph_built_by_hand_with_kernel_and_memset_nodes() {
    setup();
    let module = compile(VADD);
    let f = function(module, c"increment");
    let n = 1000usize;
    let x = device_alloc(n * 4);
    let mut graph: hipGraph_t = null_mut();
    ok!(hipGraphCreate(&mut graph, 0));
    // memset x to 2.0f, then increment: 3.0 everywhere.
    let memset = hipMemsetParams {
        dst: x,
        elementSize: 4,
        height: 1,
        pitch: 0,
        value: 2.0f32.to_bits(),
        width: n,
    };
    let mut set_node: hipGraphNode_t = null_mut();
    ok!(hipGraphAddMemsetNode(
        &mut set_node,
        graph,
        std::ptr::null(),
        0,
        &memset
    ));
    let (mut px, mut pn) = (x, n as i32);
    let mut params: [*mut c_void; 2] = [
        (&mut px as *mut *mut c_void).cast(),
        (&mut pn as *mut i32).cast(),
    ];
    let kp = hipKernelNodeParams {
        blockDim: dim3 { x: 128, y: 1, z: 1 },
        extra: null_mut(),
        func: f.cast(),
        gridDim: dim3 {
            x: n.div_ceil(128) as u32,
            y: 1,
            z: 1,
        },
        kernelParams: params.as_mut_ptr(),
        sharedMemBytes: 0,
    };
    let mut kernel_node: hipGraphNode_t = null_mut();
    ok!(hipGraphAddKernelNode(
        &mut kernel_node,
        graph,
        &set_node,
        1,
        &kp
    ));
    // SAFETY: all-zero is a valid params struct.
    let mut back: hipKernelNodeParams = unsafe { std::mem::zeroed() };
    ok!(hipGraphKernelNodeGetParams(kernel_node, &mut back));
    assert_eq!(
        (back.gridDim.x, back.blockDim.x, back.func),
        (kp.gridDim.x, 128, kp.func)
    );
    // SAFETY: all-zero is a valid params struct.
    let mut mback: hipMemsetParams = unsafe { std::mem::zeroed() };
    ok!(hipGraphMemsetNodeGetParams(set_node, &mut mback));
    assert_eq!(
        (mback.value, mback.width, mback.elementSize),
        (memset.value, n, 4)
    );
    let mut kind = hipGraphNodeType(99);
    ok!(hipGraphNodeGetType(kernel_node, &mut kind));
    assert_eq!(kind, hipGraphNodeType::hipGraphNodeTypeKernel);
    ok!(hipGraphNodeGetType(set_node, &mut kind));
    assert_eq!(kind, hipGraphNodeType::hipGraphNodeTypeMemset);
    // SAFETY: `f` is a live function; the name is static.
    let name = unsafe { CStr::from_ptr(hipKernelNameRef(f)) };
    assert_eq!(name.to_str().unwrap(), "increment");
    let mut count = 0usize;
    ok!(hipGraphGetNodes(graph, null_mut(), &mut count));
    assert_eq!(count, 2);
    let mut exec: hipGraphExec_t = null_mut();
    ok!(hipGraphInstantiateWithFlags(&mut exec, graph, 0));
    ok!(hipGraphLaunch(exec, null_mut()));
    ok!(hipStreamSynchronize(null_mut()));
    let mut out = vec![0f32; n];
    ok!(hipMemcpy(
        out.as_mut_ptr().cast(),
        x,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    assert!(out.iter().all(|v| *v == 3.0), "{:?}", &out[..4]);
    // Kernel-node parameters changed in the graph read back, and changed in
    // the executable graph take effect: only the first half is incremented.
    let (mut px2, mut half) = (x, (n / 2) as i32);
    let mut params2: [*mut c_void; 2] = [
        (&mut px2 as *mut *mut c_void).cast(),
        (&mut half as *mut i32).cast(),
    ];
    let kp2 = hipKernelNodeParams {
        kernelParams: params2.as_mut_ptr(),
        gridDim: dim3 {
            x: (n / 2).div_ceil(128) as u32,
            y: 1,
            z: 1,
        },
        ..kp
    };
    ok!(hipGraphKernelNodeSetParams(kernel_node, &kp2));
    ok!(hipGraphKernelNodeGetParams(kernel_node, &mut back));
    assert_eq!(back.gridDim.x, kp2.gridDim.x);
    ok!(hipGraphExecKernelNodeSetParams(exec, kernel_node, &kp2));
    ok!(hipGraphLaunch(exec, null_mut()));
    ok!(hipStreamSynchronize(null_mut()));
    ok!(hipMemcpy(
        out.as_mut_ptr().cast(),
        x,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    assert!(out[..n / 2].iter().all(|v| *v == 3.0), "{:?}", &out[..4]);
    assert!(
        out[n / 2..].iter().all(|v| *v == 2.0),
        "{:?}",
        &out[n / 2..n / 2 + 4]
    );
    ok!(hipGraphExecDestroy(exec));
    ok!(hipGraphDestroy(graph));
    ok!(hipFree(x));
    ok!(hipModuleUnload(module));
}

#[test]
#[ignore = "needs a GPU"]
fn created_pools_managed_memory_peers_and_queries() {
    setup();
    // A created pool.
    // SAFETY: all-zero is a valid props struct.
    let mut props: hipMemPoolProps = unsafe { std::mem::zeroed() };
    props.allocType = hipMemAllocationType::hipMemAllocationTypePinned;
    props.handleTypes = hipMemAllocationHandleType::hipMemHandleTypeNone;
    props.location = hipMemLocation {
        type_: hipMemLocationType::hipMemLocationTypeDevice,
        id: 0,
    };
    let mut pool: hipMemPool_t = null_mut();
    ok!(hipMemPoolCreate(&mut pool, &props));
    let mut stream: hipStream_t = null_mut();
    ok!(hipStreamCreate(&mut stream));
    let data = random_bytes(12345);
    let mut p = null_mut();
    ok!(hipMallocFromPoolAsync(&mut p, data.len(), pool, stream));
    ok!(hipMemcpyAsync(
        p,
        data.as_ptr().cast(),
        data.len(),
        hipMemcpyKind::hipMemcpyHostToDevice,
        stream
    ));
    let mut back = vec![0u8; data.len()];
    ok!(hipMemcpyAsync(
        back.as_mut_ptr().cast(),
        p,
        data.len(),
        hipMemcpyKind::hipMemcpyDeviceToHost,
        stream
    ));
    ok!(hipFreeAsync(p, stream));
    ok!(hipStreamSynchronize(stream));
    assert_eq!(back, data);
    ok!(hipMemPoolDestroy(pool));

    // Managed memory, written by the host and the device.
    let module = compile(VADD);
    let f = function(module, c"increment");
    let n = 777usize;
    let init = random_f32(n);
    let mut m = null_mut();
    ok!(hipMallocManaged(&mut m, n * 4, hipMemAttachGlobal));
    // SAFETY: managed memory is host-accessible while no kernel runs.
    unsafe { std::ptr::copy_nonoverlapping(init.as_ptr(), m.cast::<f32>(), n) };
    let (mut pm, mut pn) = (m, n as i32);
    let mut params: [*mut c_void; 2] = [
        (&mut pm as *mut *mut c_void).cast(),
        (&mut pn as *mut i32).cast(),
    ];
    ok!(hipModuleLaunchKernel(
        f,
        n.div_ceil(128) as u32,
        1,
        1,
        128,
        1,
        1,
        0,
        stream,
        params.as_mut_ptr(),
        null_mut()
    ));
    ok!(hipStreamSynchronize(stream));
    // SAFETY: as above, after the kernel finished.
    let got = unsafe { std::slice::from_raw_parts(m.cast::<f32>(), n) };
    for i in 0..n {
        assert_eq!(got[i], init[i] + 1.0);
    }
    let mut mem_type = 0u32;
    ok!(hipPointerGetAttribute(
        (&mut mem_type as *mut u32).cast(),
        hipPointer_attribute::HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
        m
    ));
    assert_eq!(mem_type, hipMemoryType::hipMemoryTypeManaged.0);
    // The several-attribute form translates memory types the same way.
    let (mut many_type, mut many_managed) = (0u32, 0i32);
    let mut which = [
        hipPointer_attribute::HIP_POINTER_ATTRIBUTE_MEMORY_TYPE,
        hipPointer_attribute::HIP_POINTER_ATTRIBUTE_IS_MANAGED,
    ];
    let mut outs: [*mut c_void; 2] = [
        (&mut many_type as *mut u32).cast(),
        (&mut many_managed as *mut i32).cast(),
    ];
    ok!(hipDrvPointerGetAttributes(
        2,
        which.as_mut_ptr(),
        outs.as_mut_ptr(),
        m
    ));
    assert_eq!(
        (many_type, many_managed),
        (hipMemoryType::hipMemoryTypeManaged.0, 1)
    );
    // SAFETY: all-zero is a valid attribute struct.
    let mut attr: hipPointerAttribute_t = unsafe { std::mem::zeroed() };
    ok!(hipPointerGetAttributes(&mut attr, m));
    assert_eq!(
        (attr.type_, attr.isManaged),
        (hipMemoryType::hipMemoryTypeManaged, 1)
    );
    ok!(hipFree(m));

    // Peer copies within one device, and the peer query.
    let mut can = -1;
    ok!(hipDeviceCanAccessPeer(&mut can, 0, 0));
    assert_eq!(can, 0, "a device is not its own peer");
    let a = device_alloc(data.len());
    let b = device_alloc(data.len());
    ok!(hipMemcpy(
        a,
        data.as_ptr().cast(),
        data.len(),
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    ok!(hipMemcpyPeer(b, 0, a, 0, data.len()));
    back.fill(0);
    ok!(hipMemcpy(
        back.as_mut_ptr().cast(),
        b,
        data.len(),
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    assert_eq!(back, data);

    // Capture info, stream and device queries.
    ok!(hipStreamBeginCapture(
        stream,
        hipStreamCaptureMode::hipStreamCaptureModeThreadLocal
    ));
    let mut status = hipStreamCaptureStatus::hipStreamCaptureStatusNone;
    let mut id = 0u64;
    ok!(hipStreamGetCaptureInfo(stream, &mut status, &mut id));
    assert_eq!(status, hipStreamCaptureStatus::hipStreamCaptureStatusActive);
    assert!(id > 0);
    let mut g: hipGraph_t = null_mut();
    ok!(hipStreamEndCapture(stream, &mut g));
    ok!(hipGraphDestroy(g));
    let mut dev = -1;
    ok!(hipStreamGetDevice(stream, &mut dev));
    assert_eq!(dev, 0);
    let (mut lo, mut hi) = (0, 0);
    ok!(hipDeviceGetStreamPriorityRange(&mut lo, &mut hi));
    assert!(
        hi <= lo,
        "greatest priority is the smallest number: {lo} {hi}"
    );
    let mut stack = 0usize;
    ok!(hipDeviceGetLimit(&mut stack, hipLimit_t::hipLimitStackSize));
    assert!(stack > 0);
    ok!(hipStreamQuery(stream));
    ok!(hipStreamDestroy(stream));
    ok!(hipFree(a));
    ok!(hipFree(b));
    ok!(hipModuleUnload(module));
}

#[test]
#[ignore = "needs a GPU"]
fn device_reset_leaves_a_working_device() {
    setup();
    let d = device_alloc(1024);
    ok!(hipFree(d));
    // Driver-level calls (module load, launch) after each kind of reset:
    // both leave the primary context inactive until it is set up again.
    for primary in [false, true] {
        if primary {
            ok!(hipDevicePrimaryCtxReset(0));
        } else {
            ok!(hipDeviceReset());
        }
        let module = compile(VADD);
        let f = function(module, c"vadd");
        let n = 512usize;
        let (a, b) = (random_f32(n), random_f32(n));
        let (da, db, dc) = (
            device_alloc(n * 4),
            device_alloc(n * 4),
            device_alloc(n * 4),
        );
        ok!(hipMemcpy(
            da,
            a.as_ptr().cast(),
            n * 4,
            hipMemcpyKind::hipMemcpyHostToDevice
        ));
        ok!(hipMemcpy(
            db,
            b.as_ptr().cast(),
            n * 4,
            hipMemcpyKind::hipMemcpyHostToDevice
        ));
        let (mut pa, mut pb, mut pc, mut pn) = (da, db, dc, n as i32);
        let mut params: [*mut c_void; 4] = [
            (&mut pa as *mut *mut c_void).cast(),
            (&mut pb as *mut *mut c_void).cast(),
            (&mut pc as *mut *mut c_void).cast(),
            (&mut pn as *mut i32).cast(),
        ];
        ok!(hipModuleLaunchKernel(
            f,
            2,
            1,
            1,
            256,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut()
        ));
        let mut c = vec![0f32; n];
        ok!(hipMemcpy(
            c.as_mut_ptr().cast(),
            dc,
            n * 4,
            hipMemcpyKind::hipMemcpyDeviceToHost
        ));
        for i in 0..n {
            assert_eq!(c[i], a[i] + b[i]);
        }
        for p in [da, db, dc] {
            ok!(hipFree(p));
        }
        ok!(hipModuleUnload(module));
    }
}

#[test]
#[ignore = "needs a GPU"]
fn ptx_linked_by_the_jit_linker_and_loaded_with_options() {
    setup();
    let src = CString::new(VADD).unwrap();
    let mut prog: hiprtcProgram = null_mut();
    rtc_ok!(hiprtcCreateProgram(
        &mut prog,
        src.as_ptr(),
        c"ptx.hip".as_ptr(),
        0,
        null_mut(),
        null_mut()
    ));
    // A virtual architecture: nvrtc makes PTX only, which hiprtcGetCode returns.
    let mut opts = [
        c"--gpu-architecture=compute_80".as_ptr(),
        c"-DSCALE=1".as_ptr(),
    ];
    rtc_ok!(hiprtcCompileProgram(prog, 2, opts.as_mut_ptr()));
    let mut size = 0;
    rtc_ok!(hiprtcGetCodeSize(prog, &mut size));
    let mut ptx = vec![0u8; size];
    rtc_ok!(hiprtcGetCode(prog, ptx.as_mut_ptr().cast()));
    rtc_ok!(hiprtcDestroyProgram(&mut prog));
    assert!(
        String::from_utf8_lossy(&ptx).contains(".entry vadd"),
        "PTX expected"
    );

    // hipModuleLoadDataEx with an error log option.
    let mut log = vec![0u8; 4096];
    let mut jit_opts = [
        hipJitOption::hipJitOptionErrorLogBuffer,
        hipJitOption::hipJitOptionErrorLogBufferSizeBytes,
    ];
    let mut values: [*mut c_void; 2] = [log.as_mut_ptr().cast(), log.len() as *mut c_void];
    let mut module: hipModule_t = null_mut();
    ok!(hipModuleLoadDataEx(
        &mut module,
        ptx.as_ptr().cast(),
        2,
        jit_opts.as_mut_ptr(),
        values.as_mut_ptr()
    ));
    let _ = function(module, c"vadd");
    ok!(hipModuleUnload(module));

    // The JIT linker, through hip's and hiprtc's spellings.
    let mut state: hipLinkState_t = null_mut();
    ok!(hipLinkCreate(0, null_mut(), null_mut(), &mut state));
    ok!(hipLinkAddData(
        state,
        hipJitInputType::hipJitInputPtx,
        ptx.as_mut_ptr().cast(),
        ptx.len(),
        c"vadd.ptx".as_ptr(),
        0,
        null_mut(),
        null_mut()
    ));
    let mut cubin = null_mut();
    let mut cubin_size = 0usize;
    ok!(hipLinkComplete(state, &mut cubin, &mut cubin_size));
    assert!(cubin_size > 0);
    ok!(hipModuleLoadData(&mut module, cubin));
    ok!(hipLinkDestroy(state));
    let f = function(module, c"vadd");
    let n = 1000usize;
    let (a, b) = (random_f32(n), random_f32(n));
    let (da, db, dc) = (
        device_alloc(n * 4),
        device_alloc(n * 4),
        device_alloc(n * 4),
    );
    ok!(hipMemcpy(
        da,
        a.as_ptr().cast(),
        n * 4,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    ok!(hipMemcpy(
        db,
        b.as_ptr().cast(),
        n * 4,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    let (mut pa, mut pb, mut pc, mut pn) = (da, db, dc, n as i32);
    let mut params: [*mut c_void; 4] = [
        (&mut pa as *mut *mut c_void).cast(),
        (&mut pb as *mut *mut c_void).cast(),
        (&mut pc as *mut *mut c_void).cast(),
        (&mut pn as *mut i32).cast(),
    ];
    ok!(hipModuleLaunchKernel(
        f,
        4,
        1,
        1,
        256,
        1,
        1,
        0,
        null_mut(),
        params.as_mut_ptr(),
        null_mut()
    ));
    let mut c = vec![0f32; n];
    ok!(hipMemcpy(
        c.as_mut_ptr().cast(),
        dc,
        n * 4,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    for i in 0..n {
        assert_eq!(c[i], a[i] + b[i]);
    }
    for p in [da, db, dc] {
        ok!(hipFree(p));
    }
    ok!(hipModuleUnload(module));

    let mut state: hiprtcLinkState = null_mut();
    rtc_ok!(hiprtcLinkCreate(0, null_mut(), null_mut(), &mut state));
    rtc_ok!(hiprtcLinkAddData(
        state,
        hipJitInputType::hipJitInputPtx,
        ptx.as_mut_ptr().cast(),
        ptx.len(),
        c"vadd.ptx".as_ptr(),
        0,
        null_mut(),
        null_mut()
    ));
    let mut bin = null_mut();
    let mut bin_size = 0usize;
    rtc_ok!(hiprtcLinkComplete(state, &mut bin, &mut bin_size));
    assert!(bin_size > 0);
    rtc_ok!(hiprtcLinkDestroy(state));
}

/// What the stream callback saw: how often it ran, and the status it got.
static CALLBACK_CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
static CALLBACK_STATUS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(u32::MAX);

unsafe extern "C" fn record_status(_stream: hipStream_t, status: hipError_t, data: *mut c_void) {
    assert_eq!(data as usize, 0x5eed, "the callback gets its own data back");
    CALLBACK_STATUS.store(status.0, std::sync::atomic::Ordering::SeqCst);
    CALLBACK_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
#[ignore = "needs a GPU"]
fn stream_callbacks_get_hip_statuses_and_allocation_props_ignore_padding() {
    setup();
    let mut stream: hipStream_t = null_mut();
    ok!(hipStreamCreate(&mut stream));
    // Work before the callback, so that it runs after real work completes.
    let n = 1 << 20;
    let host: Vec<u8> = random_bytes(n);
    let dev = device_alloc(n);
    ok!(hipMemcpyAsync(
        dev,
        host.as_ptr().cast(),
        n,
        hipMemcpyKind::hipMemcpyHostToDevice,
        stream
    ));
    ok!(hipStreamAddCallback(
        stream,
        Some(record_status),
        0x5eed as *mut c_void,
        0
    ));
    ok!(hipStreamSynchronize(stream));
    assert_eq!(CALLBACK_CALLS.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(
        CALLBACK_STATUS.load(std::sync::atomic::Ordering::SeqCst),
        hipError_t::hipSuccess.0
    );
    // No callback function at all is refused, not passed on.
    // SAFETY: nothing is registered.
    let s = unsafe { hipStreamAddCallback(stream, None, null_mut(), 0) };
    assert_eq!(s, hipError_t::hipErrorInvalidValue);

    // Allocation properties whose tail padding (CUDA's reserved bytes)
    // holds garbage: the adapter sends zeros, so the driver accepts them.
    let mut prop = hipMemAllocationProp {
        type_: hipMemAllocationType::hipMemAllocationTypePinned,
        location: hipMemLocation {
            type_: hipMemLocationType::hipMemLocationTypeDevice,
            id: 0,
        },
        ..Default::default()
    };
    let tail = (&mut prop as *mut hipMemAllocationProp).cast::<u8>();
    // SAFETY: bytes 28..32 lie inside the 32-byte struct.
    unsafe { std::ptr::write_bytes(tail.add(28), 0xAB, 4) };
    let mut granularity = 0usize;
    ok!(hipMemGetAllocationGranularity(
        &mut granularity,
        &prop,
        hipMemAllocationGranularity_flags::hipMemAllocationGranularityMinimum
    ));
    assert!(
        granularity >= 4096 && granularity.is_power_of_two(),
        "{granularity}"
    );
    let mut handle: hipMemGenericAllocationHandle_t = null_mut();
    ok!(hipMemCreate(&mut handle, granularity, &prop, 0));
    ok!(hipMemRelease(handle));
    ok!(hipFree(dev));
    ok!(hipStreamDestroy(stream));
}

#[test]
#[ignore = "needs a GPU"]
fn per_thread_default_stream_functions_copy_and_set_memory() {
    setup();
    // `hipStreamPerThread` is the C macro `(hipStream_t)2`.
    let per_thread = 2usize as hipStream_t;
    let n = 1 << 20;
    let host: Vec<u8> = random_bytes(n);
    let dev = device_alloc(n);
    ok!(hipMemcpy_spt(
        dev,
        host.as_ptr().cast(),
        n,
        hipMemcpyKind::hipMemcpyHostToDevice
    ));
    let mut back = vec![0u8; n];
    ok!(hipMemcpyAsync_spt(
        back.as_mut_ptr().cast(),
        dev,
        n,
        hipMemcpyKind::hipMemcpyDeviceToHost,
        per_thread
    ));
    ok!(hipStreamSynchronize_spt(per_thread));
    assert!(
        back == host,
        "the round trip through the _spt copies differs"
    );

    // A memset of the second half on the per-thread stream, an event after
    // it, and a query once the stream is drained.
    let mut event: hipEvent_t = null_mut();
    ok!(hipEventCreate(&mut event));
    // SAFETY: `dev + n/2` lies inside the allocation.
    let half = unsafe { dev.cast::<u8>().add(n / 2) }.cast::<c_void>();
    ok!(hipMemsetAsync_spt(half, 0x5a, n / 2, per_thread));
    ok!(hipEventRecord_spt(event, per_thread));
    ok!(hipStreamSynchronize_spt(per_thread));
    ok!(hipStreamQuery_spt(per_thread));
    ok!(hipEventQuery(event));
    ok!(hipMemcpy_spt(
        back.as_mut_ptr().cast(),
        dev,
        n,
        hipMemcpyKind::hipMemcpyDeviceToHost
    ));
    let mut want = host.clone();
    want[n / 2..].fill(0x5a);
    assert!(back == want, "the _spt memset did not land where it should");
    let mut flags = u32::MAX;
    ok!(hipStreamGetFlags_spt(per_thread, &mut flags));
    assert_eq!(flags, 0, "the per-thread stream is a blocking stream");
    ok!(hipEventDestroy(event));
    ok!(hipFree(dev));
}
