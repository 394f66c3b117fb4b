//! The emulated runtime through `hip-sys`, as users load it: the cdylib
//! (`libhip_emu.so`, built beside this test) opened by hip-sys's AMD
//! backend with `HIP_PLATFORM=amd` and `HIP_SYS_LIBRARY_PATH`, with two
//! devices (`HIP_EMU_DEVICES=gfx942,gfx1100`).

mod common;

use hip_emu::isa::Target;
use hip_sys::*;
use std::ffi::{c_void, CStr};
use std::ptr::null_mut;
use std::sync::Once;

/// Points hip-sys at the emulator before its first call.
fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let exe = std::env::current_exe().expect("the test's path");
        let deps = exe.parent().expect("the test's folder");
        let lib = [
            deps.join("libhip_emu.so"),
            deps.parent().unwrap().join("libhip_emu.so"),
        ]
        .into_iter()
        .find(|p| p.exists())
        .expect("libhip_emu.so beside the test (cargo builds it with the crate)");
        std::env::set_var("HIP_PLATFORM", "amd");
        std::env::set_var("HIP_SYS_LIBRARY_PATH", &lib);
        std::env::set_var("HIP_EMU_DEVICES", "gfx942,gfx1100");
        let rt = loader::runtime().expect("hip-sys loads the emulator");
        assert!(rt.is_available("hipMalloc"));
    });
}

/// Panics with the runtime's message unless `status` is success.
fn ok(status: hipError_t) {
    if !status.is_success() {
        // SAFETY: hipGetErrorString returns a static NUL-terminated string.
        let text = unsafe { CStr::from_ptr(hipGetErrorString(status)) };
        panic!("{status:?}: {}", text.to_string_lossy());
    }
}

/// The message of the failure `status` (this thread's latest).
fn message(status: hipError_t) -> String {
    // SAFETY: as in `ok`.
    unsafe { CStr::from_ptr(hipGetErrorString(status)) }
        .to_string_lossy()
        .into_owned()
}

fn malloc(bytes: usize) -> *mut c_void {
    let mut p = null_mut();
    // SAFETY: `p` is a valid `void*` to write.
    ok(unsafe { hipMalloc(&mut p, bytes) });
    p
}

#[test]
fn devices_and_properties_follow_the_list() {
    setup();
    let mut n = 0;
    // SAFETY: valid out-pointers throughout.
    unsafe {
        ok(hipGetDeviceCount(&mut n));
        assert_eq!(n, 2);
        let mut v = 0;
        ok(hipRuntimeGetVersion(&mut v));
        assert_eq!(v / 100_000, 604, "HIP 6.4: {v}");
        for (dev, arch, wave, cus, name) in [
            (0, "gfx942:sramecc+:xnack-", 64, 304, "AMD Instinct MI300X"),
            (1, "gfx1100", 32, 48, "Radeon RX 7900 XTX"),
        ] {
            let mut p: hipDeviceProp_tR0600 = std::mem::zeroed();
            ok(hipGetDevicePropertiesR0600(&mut p, dev));
            assert_eq!(
                CStr::from_ptr(p.gcnArchName.as_ptr()).to_str().unwrap(),
                arch
            );
            assert_eq!(CStr::from_ptr(p.name.as_ptr()).to_str().unwrap(), name);
            assert_eq!(p.warpSize, wave);
            assert_eq!(p.multiProcessorCount, cus);
            assert_eq!(p.maxThreadsPerBlock, 1024);
            assert_eq!(p.sharedMemPerBlock, 65536);
            let mut a = 0;
            ok(hipDeviceGetAttribute(
                &mut a,
                hipDeviceAttribute_t::hipDeviceAttributeWarpSize,
                dev,
            ));
            assert_eq!(a, wave);
            ok(hipDeviceGetAttribute(
                &mut a,
                hipDeviceAttribute_t::hipDeviceAttributeMultiprocessorCount,
                dev,
            ));
            assert_eq!(a, cus);
            let mut buf = [0i8; 64];
            ok(hipDeviceGetName(buf.as_mut_ptr(), 64, dev));
            assert_eq!(CStr::from_ptr(buf.as_ptr()).to_str().unwrap(), name);
            ok(hipDeviceGetPCIBusId(buf.as_mut_ptr(), 64, dev));
            let mut back = -1;
            ok(hipDeviceGetByPCIBusId(&mut back, buf.as_ptr()));
            assert_eq!(back, dev);
        }
        let mut p: hipDeviceProp_tR0600 = std::mem::zeroed();
        let e = hipGetDevicePropertiesR0600(&mut p, 2);
        assert_eq!(e, hipError_t::hipErrorInvalidDevice);
        assert_eq!(hipGetLastError(), hipError_t::hipErrorInvalidDevice);
        assert_eq!(hipGetLastError(), hipError_t::hipSuccess);
        // HIP 7's name for it (rocBLAS 7 calls it) resets it too.
        assert_eq!(
            hipGetDevicePropertiesR0600(&mut p, 2),
            hipError_t::hipErrorInvalidDevice
        );
        assert_eq!(hipExtGetLastError(), hipError_t::hipErrorInvalidDevice);
        assert_eq!(hipExtGetLastError(), hipError_t::hipSuccess);
        assert_eq!(hipSetDevice(5), hipError_t::hipErrorInvalidDevice);
        assert!(message(hipError_t::hipErrorInvalidDevice).contains("hipSetDevice"));
        let mut ctx = null_mut();
        ok(hipDevicePrimaryCtxRetain(&mut ctx, 1));
        ok(hipCtxPushCurrent(ctx));
        let mut d = -1;
        ok(hipGetDevice(&mut d));
        assert_eq!(d, 1);
        let mut popped = null_mut();
        ok(hipCtxPopCurrent(&mut popped));
        assert_eq!(popped, ctx);
        ok(hipGetDevice(&mut d));
        assert_eq!(d, 0);
        ok(hipDevicePrimaryCtxRelease(1));
    }
}

#[test]
fn copies_in_every_direction_keep_the_data() {
    setup();
    let n = 1 << 16;
    let src: Vec<u8> = (0..n).map(|i| (i * 7 + 3) as u8).collect();
    let mut back = vec![0u8; n];
    let a = malloc(n);
    let b = malloc(n);
    // SAFETY: device ranges of `n` bytes and host vectors of `n` bytes.
    unsafe {
        ok(hipMemcpy(
            a,
            src.as_ptr().cast(),
            n,
            hipMemcpyKind::hipMemcpyHostToDevice,
        ));
        ok(hipMemcpyDtoD(b, a, n));
        ok(hipMemcpyDtoH(back.as_mut_ptr().cast(), b, n));
        assert_eq!(back, src);
        let mut c = vec![0u8; n];
        ok(hipMemcpy(
            c.as_mut_ptr().cast(),
            back.as_ptr().cast(),
            n,
            hipMemcpyKind::hipMemcpyHostToHost,
        ));
        assert_eq!(c, src);
        // hipMemcpyDefault infers both ends.
        back.fill(0);
        ok(hipMemcpy(
            back.as_mut_ptr().cast(),
            a,
            n,
            hipMemcpyKind::hipMemcpyDefault,
        ));
        assert_eq!(back, src);
        // Across devices.
        ok(hipSetDevice(1));
        let other = malloc(n);
        ok(hipMemcpyPeer(other, 1, a, 0, n));
        back.fill(0);
        ok(hipMemcpyDtoH(back.as_mut_ptr().cast(), other, n));
        assert_eq!(back, src);
        ok(hipFree(other));
        ok(hipSetDevice(0));
        ok(hipFree(a));
        ok(hipFree(b));
        ok(hipFree(null_mut()));
    }
}

#[test]
fn copies_2d_and_memsets() {
    setup();
    let (w, h, pitch) = (10usize, 4usize, 16usize);
    let d = malloc(pitch * h);
    let host: Vec<u8> = (0..w * h).map(|i| i as u8 + 1).collect();
    // SAFETY: `d` holds pitch * h bytes; host buffers as sized.
    unsafe {
        ok(hipMemset(d, 0xee, pitch * h));
        ok(hipMemcpy2D(
            d,
            pitch,
            host.as_ptr().cast(),
            w,
            w,
            h,
            hipMemcpyKind::hipMemcpyHostToDevice,
        ));
        let mut all = vec![0u8; pitch * h];
        ok(hipMemcpyDtoH(all.as_mut_ptr().cast(), d, pitch * h));
        for r in 0..h {
            assert_eq!(&all[r * pitch..r * pitch + w], &host[r * w..r * w + w]);
            assert!(all[r * pitch + w..(r + 1) * pitch]
                .iter()
                .all(|&b| b == 0xee));
        }
        let mut packed = vec![0u8; w * h];
        ok(hipMemcpy2D(
            packed.as_mut_ptr().cast(),
            w,
            d,
            pitch,
            w,
            h,
            hipMemcpyKind::hipMemcpyDeviceToHost,
        ));
        assert_eq!(packed, host);
        ok(hipMemset2D(d, pitch, 7, w, h));
        ok(hipMemcpyDtoH(all.as_mut_ptr().cast(), d, pitch * h));
        assert!((0..h).all(|r| all[r * pitch..r * pitch + w].iter().all(|&b| b == 7)));
        assert_eq!(
            hipMemcpy2D(
                d,
                4,
                host.as_ptr().cast(),
                w,
                w,
                h,
                hipMemcpyKind::hipMemcpyHostToDevice
            ),
            hipError_t::hipErrorInvalidPitchValue
        );
        ok(hipMemsetD32(d, 0x1234_5678, 4));
        ok(hipMemsetD16(d.byte_add(16), 0xabcd, 2));
        ok(hipMemsetD8(d.byte_add(20), 0x5a, 3));
        let mut words = [0u8; 24];
        ok(hipMemcpyDtoH(words.as_mut_ptr().cast(), d, 24));
        assert_eq!(&words[..4], &0x1234_5678u32.to_le_bytes());
        assert_eq!(&words[16..20], &[0xcd, 0xab, 0xcd, 0xab]);
        assert_eq!(&words[20..23], &[0x5a; 3]);
        ok(hipFree(d));
    }
}

#[test]
fn out_of_range_copies_fail_naming_the_address() {
    setup();
    let d = malloc(256);
    let mut host = [0u8; 512];
    // SAFETY: the emulator checks the device ends; host buffers as sized.
    unsafe {
        let e = hipMemcpy(
            host.as_mut_ptr().cast(),
            d,
            512,
            hipMemcpyKind::hipMemcpyDeviceToHost,
        );
        assert_eq!(e, hipError_t::hipErrorInvalidValue);
        let text = message(e);
        assert!(text.contains(&format!("{:#x}", d as u64)), "{text}");
        assert!(text.contains("hipMemcpy"), "{text}");
        let e = hipMemset(d.byte_add(200), 0, 100);
        assert_eq!(e, hipError_t::hipErrorInvalidValue);
        ok(hipFree(d));
        // A freed allocation is unmapped: use after free is an error.
        let e = hipMemcpyHtoD(d, host.as_mut_ptr().cast(), 16);
        assert_eq!(e, hipError_t::hipErrorInvalidValue);
        assert_eq!(hipFree(d), hipError_t::hipErrorInvalidValue);
        assert_eq!(hipMalloc(null_mut(), 16), hipError_t::hipErrorInvalidValue);
    }
}

#[test]
fn pinned_and_registered_host_memory_is_mapped() {
    setup();
    // SAFETY: sizes as allocated; registered memory outlives its registration.
    unsafe {
        let mut p = null_mut();
        ok(hipHostMalloc(&mut p, 4096, 0));
        ok(hipMemset(p, 3, 4096));
        assert!(std::slice::from_raw_parts(p.cast::<u8>(), 4096)
            .iter()
            .all(|&b| b == 3));
        let mut attr: hipPointerAttribute_t = std::mem::zeroed();
        ok(hipPointerGetAttributes(&mut attr, p));
        assert_eq!(attr.type_, hipMemoryType::hipMemoryTypeHost);
        let mut dp = null_mut();
        ok(hipHostGetDevicePointer(&mut dp, p, 0));
        assert_eq!(dp, p);
        ok(hipHostFree(p));

        let mut buf = vec![0u32; 1024];
        ok(hipHostRegister(buf.as_mut_ptr().cast(), 4096, 0));
        ok(hipMemsetD32(buf.as_mut_ptr().cast(), 9, 1024));
        ok(hipHostUnregister(buf.as_mut_ptr().cast()));
        assert!(buf.iter().all(|&v| v == 9));
        assert_eq!(
            hipHostUnregister(buf.as_mut_ptr().cast()),
            hipError_t::hipErrorHostMemoryNotRegistered
        );

        let d = malloc(100);
        ok(hipPointerGetAttributes(&mut attr, d));
        assert_eq!(attr.type_, hipMemoryType::hipMemoryTypeDevice);
        assert_eq!(attr.device, 0);
        let (mut base, mut size) = (null_mut(), 0);
        ok(hipMemGetAddressRange(&mut base, &mut size, d.byte_add(50)));
        assert_eq!((base, size), (d, 100));
        ok(hipFree(d));
    }
}

#[test]
fn streams_events_and_capture_keep_order() {
    setup();
    let n = 1024;
    let d = malloc(n);
    let mut host = vec![0u8; n];
    // SAFETY: handles from the runtime; buffers as sized.
    unsafe {
        let mut s = null_mut();
        ok(hipStreamCreateWithFlags(&mut s, hipStreamNonBlocking));
        let mut flags = 0;
        ok(hipStreamGetFlags(s, &mut flags));
        assert_eq!(flags, hipStreamNonBlocking);
        // ROCm's device-of-a-stream extension (rocRAND calls it): the
        // stream's device, the null stream's, and -1 for no stream.
        assert_eq!(hipGetStreamDeviceId(s), 0);
        assert_eq!(hipGetStreamDeviceId(null_mut()), 0);
        assert_eq!(hipGetStreamDeviceId(0x7777 as hipStream_t), -1);
        let (mut e0, mut e1) = (null_mut(), null_mut());
        ok(hipEventCreate(&mut e0));
        ok(hipEventCreate(&mut e1));
        ok(hipEventRecord(e0, s));
        ok(hipMemsetAsync(d, 1, n, s));
        ok(hipMemcpyDtoHAsync(host.as_mut_ptr().cast(), d, n, s));
        ok(hipEventRecord(e1, s));
        ok(hipStreamWaitEvent(null_mut(), e1, 0));
        ok(hipStreamSynchronize(s));
        ok(hipEventSynchronize(e1));
        ok(hipEventQuery(e1));
        ok(hipStreamQuery(s));
        assert!(host.iter().all(|&b| b == 1));
        let mut ms = -1.0f32;
        ok(hipEventElapsedTime(&mut ms, e0, e1));
        assert!(ms >= 0.0);

        // Capture: nothing runs until the graph is launched.
        ok(hipStreamBeginCapture(
            s,
            hipStreamCaptureMode::hipStreamCaptureModeRelaxed,
        ));
        let mut status = hipStreamCaptureStatus::hipStreamCaptureStatusNone;
        ok(hipStreamIsCapturing(s, &mut status));
        assert_eq!(status, hipStreamCaptureStatus::hipStreamCaptureStatusActive);
        ok(hipMemsetAsync(d, 2, n, s));
        ok(hipMemcpyDtoHAsync(host.as_mut_ptr().cast(), d, n, s));
        let mut graph = null_mut();
        ok(hipStreamEndCapture(s, &mut graph));
        assert!(host.iter().all(|&b| b == 1), "captured work ran early");
        let mut exec = null_mut();
        ok(hipGraphInstantiate(
            &mut exec,
            graph,
            null_mut(),
            null_mut(),
            0,
        ));
        ok(hipGraphLaunch(exec, s));
        assert!(host.iter().all(|&b| b == 2));
        ok(hipGraphExecDestroy(exec));
        ok(hipGraphDestroy(graph));

        ok(hipEventDestroy(e0));
        ok(hipEventDestroy(e1));
        ok(hipStreamDestroy(s));
        assert_eq!(hipStreamSynchronize(s), hipError_t::hipErrorInvalidHandle);
        // The per-thread stream is `(hipStream_t)2`.
        ok(hipStreamSynchronize(2 as hipStream_t));
        ok(hipFree(d));
    }
}

#[test]
fn pools_allocate_in_stream_order() {
    setup();
    // SAFETY: handles from the runtime.
    unsafe {
        let mut pool = null_mut();
        ok(hipDeviceGetDefaultMemPool(&mut pool, 0));
        let mut threshold = u64::MAX;
        ok(hipMemPoolSetAttribute(
            pool,
            hipMemPoolAttr::hipMemPoolAttrReleaseThreshold,
            (&mut threshold as *mut u64).cast(),
        ));
        let mut p = null_mut();
        ok(hipMallocFromPoolAsync(&mut p, 1000, pool, null_mut()));
        let mut used = 0u64;
        ok(hipMemPoolGetAttribute(
            pool,
            hipMemPoolAttr::hipMemPoolAttrUsedMemCurrent,
            (&mut used as *mut u64).cast(),
        ));
        assert!(used >= 1000);
        ok(hipMemsetAsync(p, 0, 1000, null_mut()));
        ok(hipFreeAsync(p, null_mut()));
        let mut free = 0;
        let mut total = 0;
        ok(hipMemGetInfo(&mut free, &mut total));
        assert!(free <= total && total > 0);
    }
}

/// A module of `stem` for device `dev`'s target.
fn module(stem: &str, target: Target) -> hipModule_t {
    let image = common::code_object(stem, target).expect("the kernel source exists");
    let mut m = null_mut();
    // SAFETY: a whole code object.
    ok(unsafe { hipModuleLoadData(&mut m, image.as_ptr().cast()) });
    m
}

#[test]
fn modules_load_and_report_their_kernels() {
    setup();
    let m = module("saxpy", Target::Gfx942);
    // SAFETY: handles from the runtime; names NUL-terminated.
    unsafe {
        let mut f = null_mut();
        ok(hipModuleGetFunction(&mut f, m, c"saxpy".as_ptr()));
        assert_eq!(
            hipModuleGetFunction(&mut f, m, c"nope".as_ptr()),
            hipError_t::hipErrorNotFound
        );
        assert!(message(hipError_t::hipErrorNotFound).contains("saxpy"));
        ok(hipModuleGetFunction(&mut f, m, c"saxpy".as_ptr()));
        let mut v = 0;
        ok(hipFuncGetAttribute(
            &mut v,
            hipFunction_attribute::HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            f,
        ));
        assert_eq!(v, 1024);
        ok(hipFuncGetAttribute(
            &mut v,
            hipFunction_attribute::HIP_FUNC_ATTRIBUTE_NUM_REGS,
            f,
        ));
        assert!(v > 0);
        let mut attrs: hipFuncAttributes = std::mem::zeroed();
        ok(hipFuncGetAttributes(&mut attrs, f.cast()));
        assert_eq!(attrs.maxThreadsPerBlock, 1024);
        let mut blocks = 0;
        ok(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
            &mut blocks,
            f,
            256,
            0,
        ));
        assert!((1..=8).contains(&blocks), "{blocks}");
        let (mut grid, mut block) = (0, 0);
        ok(hipModuleOccupancyMaxPotentialBlockSize(
            &mut grid, &mut block, f, 0, 0,
        ));
        assert!(block > 0 && block <= 1024 && grid >= 304, "{grid} {block}");
        ok(hipModuleUnload(m));
        assert_eq!(
            hipFuncGetAttribute(
                &mut v,
                hipFunction_attribute::HIP_FUNC_ATTRIBUTE_NUM_REGS,
                f
            ),
            hipError_t::hipErrorInvalidHandle
        );
        // A gfx1100 code object does not load on the gfx942 device.
        let image = common::code_object("saxpy", Target::Gfx1100).unwrap();
        let mut m2 = null_mut();
        assert_eq!(
            hipModuleLoadData(&mut m2, image.as_ptr().cast()),
            hipError_t::hipErrorNoBinaryForGpu
        );
        ok(hipSetDevice(1));
        ok(hipModuleLoadData(&mut m2, image.as_ptr().cast()));
        ok(hipModuleUnload(m2));
        // An offload bundle for both targets loads on each device, its
        // size read from the bundle's header.
        let bundle = common::bundle("saxpy", &Target::ALL).unwrap();
        for dev in [0, 1] {
            ok(hipSetDevice(dev));
            let mut mb = null_mut();
            ok(hipModuleLoadData(&mut mb, bundle.as_ptr().cast()));
            ok(hipModuleGetFunction(&mut f, mb, c"saxpy".as_ptr()));
            ok(hipModuleUnload(mb));
        }
        ok(hipSetDevice(0));
    }
}

#[test]
fn launches_are_checked_before_they_run() {
    setup();
    let m = module("saxpy", Target::Gfx942);
    // SAFETY: handles from the runtime; argument arrays as the kernel takes.
    unsafe {
        let mut f = null_mut();
        ok(hipModuleGetFunction(&mut f, m, c"saxpy".as_ptr()));
        let d = malloc(64);
        let (mut n, mut a, mut x, mut y) = (16i32, 2.0f32, d, d);
        let mut params = [
            (&mut n as *mut i32).cast::<c_void>(),
            (&mut a as *mut f32).cast(),
            (&mut x as *mut *mut c_void).cast(),
            (&mut y as *mut *mut c_void).cast(),
        ];
        let p = params.as_mut_ptr();
        let launch = |g: [u32; 3], b: [u32; 3], shared: u32| {
            hipModuleLaunchKernel(
                f,
                g[0],
                g[1],
                g[2],
                b[0],
                b[1],
                b[2],
                shared,
                null_mut(),
                p,
                null_mut(),
            )
        };
        assert_eq!(
            launch([0, 1, 1], [64, 1, 1], 0),
            hipError_t::hipErrorInvalidValue
        );
        assert_eq!(
            launch([1, 1, 1], [0, 1, 1], 0),
            hipError_t::hipErrorInvalidValue
        );
        assert_eq!(
            launch([1, 1, 1], [1025, 1, 1], 0),
            hipError_t::hipErrorInvalidValue
        );
        assert_eq!(
            launch([1, 1, 1], [64, 1, 1], 65537),
            hipError_t::hipErrorInvalidValue
        );
        assert_eq!(
            launch([1, 65537, 1], [64, 1, 1], 0),
            hipError_t::hipErrorInvalidValue
        );
        assert_eq!(
            hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, null_mut(), p, p),
            hipError_t::hipErrorInvalidValue
        );
        assert_eq!(
            hipModuleLaunchKernel(null_mut(), 1, 1, 1, 64, 1, 1, 0, null_mut(), p, null_mut()),
            hipError_t::hipErrorInvalidHandle
        );
        ok(hipFree(d));
        ok(hipModuleUnload(m));
    }
}

/// Waits on the interpreter: saxpy through `kernelParams` and through
/// `extra`, results checked on the host.
#[test]
fn saxpy_runs_and_its_results_are_right() {
    setup();
    for (dev, target) in [(0, Target::Gfx942), (1, Target::Gfx1100)] {
        // SAFETY: the current device is set before its module loads.
        ok(unsafe { hipSetDevice(dev) });
        let m = module("saxpy", target);
        let count = 1000usize;
        let xs: Vec<f32> = (0..count).map(|i| i as f32).collect();
        let ys: Vec<f32> = (0..count).map(|i| 1.0 - i as f32).collect();
        let (x, y) = (malloc(count * 4), malloc(count * 4));
        // SAFETY: sizes as allocated; arguments laid out as the kernel takes.
        unsafe {
            let mut f = null_mut();
            ok(hipModuleGetFunction(&mut f, m, c"saxpy".as_ptr()));
            ok(hipMemcpyHtoD(x, xs.as_ptr() as *mut c_void, count * 4));
            ok(hipMemcpyHtoD(y, ys.as_ptr() as *mut c_void, count * 4));
            let (mut n, mut a, mut xp, mut yp) = (count as i32, 3.0f32, x, y);
            let mut params = [
                (&mut n as *mut i32).cast::<c_void>(),
                (&mut a as *mut f32).cast(),
                (&mut xp as *mut *mut c_void).cast(),
                (&mut yp as *mut *mut c_void).cast(),
            ];
            ok(hipModuleLaunchKernel(
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
                null_mut(),
            ));
            let mut out = vec![0f32; count];
            ok(hipMemcpyDtoH(out.as_mut_ptr().cast(), y, count * 4));
            for i in 0..count {
                assert_eq!(out[i], 3.0 * xs[i] + ys[i], "element {i} on {target}");
            }
            // The same through `extra`: n, a, x, y packed as the metadata
            // lays them out (4 + 4 + 8 + 8).
            let mut buf = Vec::new();
            buf.extend_from_slice(&(count as i32).to_le_bytes());
            buf.extend_from_slice(&1.0f32.to_le_bytes());
            buf.extend_from_slice(&(x as u64).to_le_bytes());
            buf.extend_from_slice(&(y as u64).to_le_bytes());
            let mut size = buf.len();
            let mut extra = [
                1usize as *mut c_void,
                buf.as_mut_ptr().cast(),
                2usize as *mut c_void,
                (&mut size as *mut usize).cast(),
                3usize as *mut c_void,
            ];
            ok(hipModuleLaunchKernel(
                f,
                4,
                1,
                1,
                256,
                1,
                1,
                0,
                null_mut(),
                null_mut(),
                extra.as_mut_ptr(),
            ));
            ok(hipMemcpyDtoH(out.as_mut_ptr().cast(), y, count * 4));
            for i in 0..count {
                assert_eq!(
                    out[i],
                    4.0 * xs[i] + ys[i],
                    "element {i} on {target} (extra)"
                );
            }
            // Captured into a graph: runs only when the graph is launched,
            // with the arguments as they were at capture.
            let mut s = null_mut();
            ok(hipStreamCreate(&mut s));
            ok(hipStreamBeginCapture(
                s,
                hipStreamCaptureMode::hipStreamCaptureModeGlobal,
            ));
            ok(hipModuleLaunchKernel(
                f,
                4,
                1,
                1,
                256,
                1,
                1,
                0,
                s,
                params.as_mut_ptr(),
                null_mut(),
            ));
            params[1].cast::<f32>().write(100.0);
            let mut graph = null_mut();
            ok(hipStreamEndCapture(s, &mut graph));
            let mut exec = null_mut();
            ok(hipGraphInstantiateWithFlags(&mut exec, graph, 0));
            ok(hipMemcpyDtoH(out.as_mut_ptr().cast(), y, count * 4));
            assert_eq!(
                out[10],
                4.0 * xs[10] + ys[10],
                "the captured launch ran early"
            );
            ok(hipGraphLaunch(exec, s));
            ok(hipStreamSynchronize(s));
            ok(hipMemcpyDtoH(out.as_mut_ptr().cast(), y, count * 4));
            for i in 0..count {
                assert_eq!(
                    out[i],
                    7.0 * xs[i] + ys[i],
                    "element {i} on {target} (graph)"
                );
            }
            ok(hipGraphExecDestroy(exec));
            ok(hipGraphDestroy(graph));
            ok(hipStreamDestroy(s));
            ok(hipFree(x));
            ok(hipFree(y));
            ok(hipModuleUnload(m));
        }
    }
    // SAFETY: plain call.
    ok(unsafe { hipSetDevice(0) });
}

#[test]
fn unsupported_and_failing_calls_say_why() {
    setup();
    // SAFETY: plain calls with valid or null pointers.
    unsafe {
        let p = malloc(64);
        let mut flags = 0u32;
        let e = hipPointerGetAttribute(
            (&mut flags as *mut u32).cast(),
            hipPointer_attribute::HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS,
            p as hipDeviceptr_t,
        );
        assert_eq!(e, hipError_t::hipErrorNotSupported);
        assert!(
            message(e).contains("hipPointerGetAttribute is not supported by hip-emu"),
            "{}",
            message(e)
        );
        assert_eq!(hipPeekAtLastError(), hipError_t::hipErrorNotSupported);
        assert_eq!(hipGetLastError(), hipError_t::hipErrorNotSupported);
        ok(hipFree(p));
        let n = 0usize;
        // A pointer that is no registered kernel's host function.
        let mut f = null_mut();
        let e = hipGetFuncBySymbol(&mut f, (&n as *const usize).cast());
        assert_eq!(e, hipError_t::hipErrorInvalidDeviceFunction);
        assert!(
            message(e).contains("not a registered kernel"),
            "{}",
            message(e)
        );
        let name = CStr::from_ptr(hipGetErrorName(hipError_t::hipErrorIllegalAddress));
        assert_eq!(name.to_str().unwrap(), "hipErrorIllegalAddress");
        let words = CStr::from_ptr(hipGetErrorString(hipError_t::hipErrorLaunchOutOfResources));
        assert_eq!(
            words.to_str().unwrap(),
            "too many resources requested for launch"
        );
        assert_eq!(
            hipGetDeviceCount(null_mut()),
            hipError_t::hipErrorInvalidValue
        );
    }
}

/// Waits on the interpreter: a kernel that writes an unmapped address
/// fails with `hipErrorIllegalAddress` naming the address, and the device
/// goes on working (the error is not sticky).
#[test]
fn a_memory_fault_is_reported_and_the_device_goes_on() {
    setup();
    let m = module("saxpy", Target::Gfx942);
    // SAFETY: handles from the runtime; `bad` is never dereferenced on the
    // host, only by the emulated kernel, which checks it.
    unsafe {
        let mut f = null_mut();
        ok(hipModuleGetFunction(&mut f, m, c"saxpy".as_ptr()));
        let good = malloc(256);
        let bad = (0x8000_0000_0000u64 + (1 << 39)) as *mut c_void;
        let (mut n, mut a, mut x, mut y) = (64i32, 1.0f32, good, bad);
        let mut params = [
            (&mut n as *mut i32).cast::<c_void>(),
            (&mut a as *mut f32).cast(),
            (&mut x as *mut *mut c_void).cast(),
            (&mut y as *mut *mut c_void).cast(),
        ];
        let e = hipModuleLaunchKernel(
            f,
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        );
        assert_eq!(e, hipError_t::hipErrorIllegalAddress);
        let text = message(e);
        assert!(text.contains("0x800") && text.contains("saxpy"), "{text}");
        assert_eq!(hipGetLastError(), hipError_t::hipErrorIllegalAddress);
        ok(hipDeviceSynchronize());
        // `params[3]` points at `y`: aim it at the good buffer.
        params[3].cast::<*mut c_void>().write(good);
        ok(hipModuleLaunchKernel(
            f,
            1,
            1,
            1,
            64,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        ));
        ok(hipFree(good));
        ok(hipModuleUnload(m));
    }
}

/// With `HIP_EMU_ON_FAULT=abort`, the same fault ends the process with
/// SIGABRT after printing the interpreter's message, as ROCm does, so that
/// a launcher that ignores the launch's status cannot go on. Run in a
/// child process: this test's binary again, with the fault test alone.
#[cfg(unix)]
#[test]
fn a_fault_ends_the_process_when_asked() {
    use std::os::unix::process::ExitStatusExt;
    let exe = std::env::current_exe().expect("the test's path");
    for (value, says) in [
        ("abort", "HIP_EMU_ON_FAULT=abort"),
        ("abrt", "is neither `report` nor `abort`"),
    ] {
        let out = std::process::Command::new(&exe)
            .args([
                "--exact",
                "a_memory_fault_is_reported_and_the_device_goes_on",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("HIP_EMU_ON_FAULT", value)
            .output()
            .expect("the test binary runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.signal(),
            Some(6),
            "{value}: {:?}\n{err}",
            out.status
        );
        assert!(err.contains(says), "{value}: {err}");
        assert!(
            err.contains("saxpy") && err.contains("0x800"),
            "{value}: {err}"
        );
    }
    // `report`, spelled out, is the default: the fault test passes.
    let out = std::process::Command::new(&exe)
        .args([
            "--exact",
            "a_memory_fault_is_reported_and_the_device_goes_on",
        ])
        .env("HIP_EMU_ON_FAULT", "report")
        .output()
        .expect("the test binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A kernel that calls `printf` gets a hostcall buffer for its launch
/// and runs to the end (its output goes to this process's standard
/// output; the interpreter's test checks the text, cudarc's
/// 06-threading on the emulated device checks it through this runtime).
#[test]
fn a_kernel_calling_printf_runs_with_a_hostcall_buffer() {
    setup();
    for (dev, target) in [(0, Target::Gfx942), (1, Target::Gfx1100)] {
        // SAFETY: plain call.
        ok(unsafe { hipSetDevice(dev) });
        let m = module("isa_basic", target);
        // SAFETY: handles from the runtime; the kernel reads x[0..32).
        unsafe {
            let mut f = null_mut();
            ok(hipModuleGetFunction(&mut f, m, c"says_hello".as_ptr()));
            let mut x = malloc(256);
            let mut params = [(&mut x as *mut *mut c_void).cast::<c_void>()];
            ok(hipModuleLaunchKernel(
                f,
                1,
                1,
                1,
                32,
                1,
                1,
                0,
                null_mut(),
                params.as_mut_ptr(),
                null_mut(),
            ));
            ok(hipDeviceSynchronize());
            ok(hipFree(x));
            ok(hipModuleUnload(m));
        }
    }
    // SAFETY: plain call.
    ok(unsafe { hipSetDevice(0) });
}
