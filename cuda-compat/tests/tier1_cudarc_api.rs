//! Tier 1: cudarc's API at cudarc's paths, with cudarc's shapes (compiled,
//! not run: the `uses_*` functions are type checks), and the pure logic
//! behind it: launch configurations, compile-option translation, the
//! closed enums' checked conversions.

#![allow(dead_code)]

use cuda_compat::driver::{
    self, sys, CudaContext, CudaFunction, CudaGraph, CudaModule, CudaSlice, CudaStream, CudaView,
    CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, DeviceSlice, DriverError, HostSlice,
    LaunchArgs, LaunchConfig, PinnedHostSlice, PushKernelArg, UnifiedSlice, UnifiedView,
    UnifiedViewMut, ValidAsZeroBits,
};
use cuda_compat::nvrtc::{
    self, compile_ptx, compile_ptx_with_opts, CompileError, CompileOptions, Ptx,
};
use cuda_compat::Platform;
use std::sync::Arc;

#[repr(C)]
struct Params {
    a: f32,
    n: u32,
}
// SAFETY: repr(C) plain numbers: every bit pattern is valid.
unsafe impl DeviceRepr for Params {}

/// The README's and examples' flow, in the order cudarc users write it.
fn uses_the_driver_like_cudarc() -> Result<(), DriverError> {
    let ctx: Arc<CudaContext> = CudaContext::new(0)?;
    let _: Arc<CudaContext> = CudaContext::new_non_primary(0, 0)?;
    let _: bool = ctx.is_primary();
    // SAFETY: never run (a type check); the arguments fit the call.
    let _: Arc<CudaContext> =
        unsafe { CudaContext::from_raw_context(0, ctx.cu_device(), std::ptr::null_mut()) }?;
    let stream: Arc<CudaStream> = ctx.default_stream();
    // SAFETY: never run (a type check); the arguments fit the call.
    let _: CudaSlice<f32> = unsafe { stream.alloc::<f32>(10) }?;
    let _: CudaSlice<usize> = stream.clone_htod(&[0usize; 10])?;
    let host = vec![1.0f32; 8];
    let from_vec: CudaSlice<f32> = stream.clone_htod(&host)?;
    let from_slice: CudaSlice<f32> = stream.clone_htod(&host[..4])?;
    // SAFETY: never run (a type check); the arguments fit the call.
    let mut pinned: PinnedHostSlice<f32> = unsafe { ctx.alloc_pinned::<f32>(8) }?;
    pinned.as_mut_slice()?.copy_from_slice(&host);
    let from_pinned = stream.clone_htod(&pinned)?;
    let mut longer = stream.alloc_zeros::<f32>(16)?;
    stream.memcpy_htod(&host, &mut longer)?;
    stream.memcpy_htod(&[3.0f32; 4], &mut longer)?;
    stream.memcpy_dtod(&from_vec, &mut from_pinned.clone())?;
    let back: Vec<f32> = stream.clone_dtoh(&from_slice)?;
    let mut out = vec![0.0f32; 8];
    stream.memcpy_dtoh(&from_vec, &mut out)?;
    stream.memcpy_dtoh(&from_vec, &mut pinned)?;
    let _ = (back, out);

    let module: Arc<CudaModule> = ctx.load_module(Ptx::from_file("kernel.ptx"))?;
    let f: CudaFunction = module.load_function("k")?;
    let n = 8i32;
    let mut b = stream.alloc_zeros::<f32>(8)?;
    let mut builder: LaunchArgs<'_> = stream.launch_builder(&f);
    builder.arg(&mut b);
    builder.arg(&from_vec);
    builder.arg(&n);
    builder.arg(&Params { a: 1.0, n: 8 });
    let view: CudaView<'_, f32> = from_vec.as_view();
    builder.arg(&view);
    // SAFETY: never run (a type check); the arguments fit the call.
    let _ = unsafe { builder.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    // SAFETY: never run (a type check); the arguments fit the call.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut b)
            .arg(&(n + 1))
            .launch(LaunchConfig {
                grid_dim: (1, 1, 1),
                block_dim: (8, 1, 1),
                shared_mem_bytes: 0,
            })
    }?;
    let mut view_mut: CudaViewMut<'_, f32> = b.as_view_mut();
    let mut builder = stream.launch_builder(&f);
    builder.arg(&mut view_mut);
    builder.record_kernel_launch(sys::CUevent_flags::CU_EVENT_DEFAULT);
    if let Some((start, end)) =
        // SAFETY: never run (a type check); the arguments fit the call.
        unsafe { builder.launch_cooperative(LaunchConfig::for_num_elems(1)) }?
    {
        let _ms: f32 = start.elapsed_ms(&end)?;
    }

    let stream2 = stream.fork()?;
    stream.join(&stream2)?;
    let e = stream2.record_event(None)?;
    stream.wait(&e)?;
    let _ = ctx.per_thread_stream();
    let _ = ctx.new_stream()?;

    let mut global: CudaViewMut<'_, u8> = module.get_global("coefficients", &stream)?;
    // SAFETY: never run (a type check); the arguments fit the call.
    let mut as_f32 = unsafe { global.transmute_mut::<f32>(4) }.expect("16 bytes");
    stream.memcpy_htod(&[1.0f32, 2.0, 3.0, 4.0], &mut as_f32)?;
    // SAFETY: never run (a type check); the arguments fit the call.
    let _: Option<CudaView<'_, u32>> = unsafe { from_vec.transmute::<u32>(8) };

    let _: i32 = f.num_regs()? + f.shared_size_bytes()? + f.const_size_bytes()?;
    let _: i32 = f.local_size_bytes()? + f.max_threads_per_block()?;
    let _: i32 = f.ptx_version()? + f.binary_version()?;
    extern "C" fn no_smem(_block: std::ffi::c_int) -> usize {
        0
    }
    let (_grid, _block): (u32, u32) = f.occupancy_max_potential_block_size(no_smem, 0, 0, None)?;
    f.set_max_dynamic_shared_memory(1024)?;

    let stack: usize = ctx.get_limit(sys::CUlimit::CU_LIMIT_STACK_SIZE)?;
    ctx.set_limit(sys::CUlimit::CU_LIMIT_STACK_SIZE, stack)?;
    let cache = ctx.get_cache_config()?;
    // cudarc's exhaustive match (example 12) compiles: the enum is closed.
    let _ = match cache {
        sys::CUfunc_cache::CU_FUNC_CACHE_PREFER_NONE => "none",
        sys::CUfunc_cache::CU_FUNC_CACHE_PREFER_SHARED => "shared",
        sys::CUfunc_cache::CU_FUNC_CACHE_PREFER_L1 => "l1",
        sys::CUfunc_cache::CU_FUNC_CACHE_PREFER_EQUAL => "equal",
    };
    ctx.set_cache_config(cache)?;
    let _: sys::CUuuid = ctx.uuid()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    let _: sys::CUstreamCaptureStatus = stream.capture_status()?;
    let graph: Option<CudaGraph> = stream.end_capture(
        sys::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH,
    )?;
    if let Some(g) = graph {
        g.upload()?;
        g.launch()?;
    }

    let (ptr, _guard) = from_vec.device_ptr(&stream);
    let _: sys::CUdeviceptr = ptr;
    drop(_guard);
    let (_ptr, _guard) = b.device_ptr_mut(&stream);
    drop(_guard);
    let raw = b.leak();
    // SAFETY: never run (a type check); the arguments fit the call.
    let _back: CudaSlice<f32> = unsafe { stream.upgrade_device_ptr(raw, 8) };
    // SAFETY: never run (a type check); the arguments fit the call.
    let mut unified: UnifiedSlice<f32> = unsafe { ctx.alloc_unified::<f32>(8, true) }?;
    unified.as_mut_slice()?[0] = 1.0;
    {
        // cudarc's unified views: slices and splits, then kernel arguments,
        // copies and host slices like the slice itself.
        let view: UnifiedView<'_, f32> = unified.slice(2..);
        let (_a, _b): (UnifiedView<'_, f32>, UnifiedView<'_, f32>) = view.split_at(1);
        let _: Option<UnifiedView<'_, f32>> = unified.try_slice(..9);
        let _: Vec<f32> = stream.clone_dtoh(&unified.as_view())?;
        let mut tail: UnifiedViewMut<'_, f32> = unified.slice_mut(4..);
        let (mut c, d) = tail.split_at_mut(2);
        let _: UnifiedView<'_, f32> = d.as_view();
        // SAFETY: never run (a type check); the arguments fit the call.
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&mut c)
                .arg(&d)
                .launch(LaunchConfig::for_num_elems(2))
        }?;
        generic_over_the_traits::<f32, _>(&d, &d);
    }
    // SAFETY: never run (a type check); the arguments fit the call.
    unsafe {
        stream
            .launch_builder(&f)
            .arg(&mut unified)
            .launch(LaunchConfig::for_num_elems(8))
    }?;
    ctx.check_err()?;
    Ok(())
}

fn generic_over_the_traits<T: DeviceRepr + ValidAsZeroBits, D: DevicePtr<T> + DeviceSlice<T>>(
    d: &D,
    h: &impl HostSlice<T>,
) -> usize {
    d.len() + h.len()
}

fn generic_mut<T, D: DevicePtrMut<T>>(d: &D) -> usize {
    d.num_bytes()
}

fn uses_nvrtc_like_cudarc() -> Result<(), CompileError> {
    let _: Ptx = compile_ptx("extern \"C\" __global__ void k() {}")?;
    let opts = CompileOptions {
        ftz: Some(true),
        prec_div: Some(false),
        prec_sqrt: Some(false),
        fmad: Some(true),
        ..Default::default()
    };
    let _: Ptx = compile_ptx_with_opts("extern \"C\" __global__ void k() {}", opts)?;
    Ok(())
}

/// Compiles only when both paths name the same function item (each item
/// has its own type).
macro_rules! same_item {
    ($a:path, $b:path) => {{
        let mut f = $a;
        f = $b;
        let _ = f;
    }};
}

#[test]
#[allow(unused_assignments)]
fn raw_names_are_reachable_at_both_paths() {
    same_item!(driver::cuInit, sys::cuInit);
    same_item!(
        cuda_compat::runtime::cudaMalloc,
        cuda_compat::runtime::sys::cudaMalloc
    );
    same_item!(nvrtc::nvrtcCreateProgram, nvrtc::sys::nvrtcCreateProgram);
    same_item!(
        cuda_compat::cublas::cublasCreate_v2,
        cuda_compat::cublas::sys::cublasCreate_v2
    );
    // The open newtypes stay at the old path; the enum tables are intact.
    assert!(cuda_compat::enums().iter().any(|e| e.cuda == "cudaError"));
}

#[test]
fn the_safe_types_are_send_and_sync_as_in_cudarc() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<CudaContext>();
    send_sync::<CudaStream>();
    send_sync::<CudaSlice<f32>>();
    send_sync::<CudaModule>();
    send_sync::<CudaFunction>();
    send_sync::<CudaGraph>();
    send_sync::<driver::CudaEvent>();
    send_sync::<PinnedHostSlice<f32>>();
    send_sync::<UnifiedSlice<f32>>();
    send_sync::<cuda_compat::cublas::CudaBlas>();
}

#[test]
fn for_num_elems_is_cudarcs_1024_thread_blocks() {
    for (n, grid) in [
        (0u32, 0u32),
        (1, 1),
        (1023, 1),
        (1024, 1),
        (1025, 2),
        (u32::MAX, 4194304),
    ] {
        let c = LaunchConfig::for_num_elems(n);
        assert_eq!(c.grid_dim, (grid, 1, 1), "n = {n}");
        assert_eq!(c.block_dim, (1024, 1, 1));
        assert_eq!(c.shared_mem_bytes, 0);
    }
}

#[test]
fn compile_options_translate_per_platform() {
    let o = CompileOptions {
        ftz: Some(false),
        prec_div: Some(true),
        prec_sqrt: Some(false),
        fmad: Some(true),
        use_fast_math: Some(true),
        maxrregcount: Some(32),
        include_paths: vec!["/inc".into()],
        arch: Some("sm_80"),
        options: vec!["-DN=4".into()],
        name: None,
    };
    assert_eq!(
        o.to_hiprtc_flags(Platform::Amd),
        [
            "-fno-gpu-flush-denormals-to-zero",
            // One clang flag for both: `false` in either wins.
            "-fno-hip-fp32-correctly-rounded-divide-sqrt",
            "-ffp-contract=fast",
            "-ffast-math",
            "-I/inc",
            "-DN=4",
        ]
    );
    assert_eq!(
        o.to_hiprtc_flags(Platform::Nvidia),
        [
            "--ftz=false",
            "--prec-div=true",
            "--prec-sqrt=false",
            "--fmad=true",
            "--use_fast_math",
            "--maxrregcount=32",
            "--include-path=/inc",
            "--gpu-architecture=sm_80",
            "-DN=4",
        ]
    );
    let precise = CompileOptions {
        prec_div: Some(true),
        ..Default::default()
    };
    assert_eq!(
        precise.to_hiprtc_flags(Platform::Amd),
        ["-fhip-fp32-correctly-rounded-divide-sqrt"]
    );
    assert!(CompileOptions::default()
        .to_hiprtc_flags(Platform::Amd)
        .is_empty());
    // An AMD arch is not an nvrtc flag.
    let gfx = CompileOptions {
        arch: Some("gfx90a"),
        ..Default::default()
    };
    assert!(gfx.to_hiprtc_flags(Platform::Nvidia).is_empty());
}

#[test]
fn closed_cache_enum_round_trips_and_rejects_unknown_values() {
    use driver::CUfunc_cache_enum as Open;
    use sys::CUfunc_cache as Closed;
    for c in [
        Closed::CU_FUNC_CACHE_PREFER_NONE,
        Closed::CU_FUNC_CACHE_PREFER_SHARED,
        Closed::CU_FUNC_CACHE_PREFER_L1,
        Closed::CU_FUNC_CACHE_PREFER_EQUAL,
    ] {
        let open = Open::from(c);
        assert_eq!(open.0, c as u32, "the variant's value is the newtype's");
        assert_eq!(Closed::try_from(open), Ok(c));
        let hip: hip::sys::hipFuncCache_t = c.into();
        assert_eq!(hip.0, c as u32);
    }
    for unknown in [4u32, 5, 0x7fff_ffff, u32::MAX] {
        assert_eq!(Closed::try_from(Open(unknown)), Err(Open(unknown)));
    }
}

#[test]
fn limits_hip_lacks_are_refused_before_any_call() {
    use sys::CUlimit as L;
    assert_eq!(
        L::CU_LIMIT_STACK_SIZE.to_hip(),
        Some(hip::sys::hipLimit_t::hipLimitStackSize)
    );
    assert_eq!(
        L::CU_LIMIT_MALLOC_HEAP_SIZE.to_hip(),
        Some(hip::sys::hipLimit_t::hipLimitMallocHeapSize)
    );
    for l in [
        L::CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH,
        L::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT,
        L::CU_LIMIT_MAX_L2_FETCH_GRANULARITY,
        L::CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
    ] {
        assert_eq!(l.to_hip(), None);
        let mut v = 7usize;
        // SAFETY: `v` is a valid place; the call returns before HIP.
        let status = unsafe { sys::cuCtxGetLimit(&mut v, l) };
        assert_eq!(status, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
        assert_eq!(v, 7, "nothing written");
        // SAFETY: takes values.
        let status = unsafe { sys::cuCtxSetLimit(l, 1) };
        assert_eq!(status, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
    }
}

#[test]
fn event_flags_have_hips_values() {
    use sys::CUevent_flags as F;
    assert_eq!(F::CU_EVENT_DEFAULT as u32, hip::sys::hipEventDefault);
    assert_eq!(
        F::CU_EVENT_BLOCKING_SYNC as u32,
        hip::sys::hipEventBlockingSync
    );
    assert_eq!(
        F::CU_EVENT_DISABLE_TIMING as u32,
        hip::sys::hipEventDisableTiming
    );
}

#[test]
fn driver_error_result_and_ptx_accessors() {
    assert_eq!(sys::CUresult::CUDA_SUCCESS.result(), Ok(()));
    assert_eq!(
        sys::CUresult::CUDA_ERROR_INVALID_VALUE.result(),
        Err(DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE))
    );
    let p = Ptx::from_src(".version 7.0");
    assert_eq!(p.to_src(), ".version 7.0");
    assert!(p.as_bytes().is_none());
    assert!(p.arch().is_none());
    let b = Ptx::from_binary(vec![1, 2, 3]);
    assert_eq!(b.as_bytes(), Some(&[1u8, 2, 3][..]));
}

fn uses_cublas_like_cudarc() -> Result<(), cuda_compat::cublas::CublasError> {
    use cuda_compat::cublas::{
        sys as blas_sys, Asum, AsumConfig, CudaBlas, Gemm, GemmConfig, Gemv, GemvConfig,
        StridedBatchedConfig,
    };
    let ctx = CudaContext::new(0).expect("type check only");
    let stream = ctx.default_stream();
    let blas = CudaBlas::new(stream.clone())?;
    let a = stream.alloc_zeros::<f32>(16).expect("type check only");
    let b = stream.alloc_zeros::<f32>(16).expect("type check only");
    let mut c = stream.alloc_zeros::<f32>(16).expect("type check only");
    let cfg = GemmConfig {
        transa: blas_sys::cublasOperation_t::CUBLAS_OP_N,
        transb: blas_sys::cublasOperation_t::CUBLAS_OP_T,
        m: 4,
        n: 4,
        k: 4,
        alpha: 1.0f32,
        lda: 4,
        ldb: 4,
        beta: 0.0,
        ldc: 4,
    };
    // SAFETY: never run (a type check); the arguments fit the call.
    unsafe { blas.gemm(cfg, &a, &b, &mut c) }?;
    let batched = StridedBatchedConfig {
        gemm: cfg,
        batch_size: 1,
        stride_a: 16,
        stride_b: 16,
        stride_c: 16,
    };
    // SAFETY: never run (a type check); the arguments fit the call.
    unsafe { blas.gemm_strided_batched(batched, &a, &b, &mut c) }?;
    let gemv = GemvConfig {
        trans: blas_sys::cublasOperation_t::CUBLAS_OP_N,
        m: 4,
        n: 4,
        alpha: 1.0f32,
        lda: 4,
        incx: 1,
        beta: 0.0,
        incy: 1,
    };
    let x = a.as_view();
    // SAFETY: never run (a type check); the arguments fit the call.
    unsafe { blas.gemv(gemv, &b, &x, &mut c) }?;
    let mut sum = 0.0f32;
    // SAFETY: never run (a type check); the arguments fit the call.
    unsafe { blas.asum(AsumConfig { n: 16, incx: 1 }, &a, &mut sum) }?;
    Ok(())
}

/// The crate root only declares modules and re-exports: no item is defined
/// in lib.rs, so no module of the crate depends upward on the root (the
/// shared items live in leaf modules: `macros`, `probe`, `enum_tables`,
/// `lib_names`).
#[test]
fn lib_rs_defines_no_item() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let lib = std::fs::read_to_string(format!("{dir}/src/lib.rs")).unwrap();
    let defined: Vec<&str> = lib
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with("//"))
        .filter(|l| {
            [
                "fn ",
                "pub fn ",
                "struct ",
                "pub struct ",
                "enum ",
                "pub enum ",
                "static ",
                "pub static ",
                "macro_rules!",
                "impl ",
                "impl<",
                "trait ",
                "pub trait ",
                "type ",
                "pub type ",
                "pub const ",
                "pub(crate) ",
            ]
            .iter()
            .any(|k| l.starts_with(k))
                || (l.starts_with("const ") && !l.starts_with("const _:"))
        })
        .collect();
    assert!(
        defined.is_empty(),
        "lib.rs defines items; move them to a leaf module: {defined:?}"
    );
}

/// `get_lib_name_candidates` knows the release of every `cuda-NNNNN`
/// feature the crate accepts: each is in lib_names.rs's `CUDA_RELEASE` list with
/// the major and minor its name says (a feature added to Cargo.toml alone
/// would report another release's library names).
#[test]
fn every_cuda_version_feature_has_its_release() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let manifest = std::fs::read_to_string(format!("{dir}/Cargo.toml")).unwrap();
    let lib = std::fs::read_to_string(format!("{dir}/src/lib_names.rs")).unwrap();
    let features: Vec<&str> = manifest
        .lines()
        .filter_map(|l| l.split_once(" = ").map(|(k, _)| k.trim()))
        .filter(|k| {
            k.len() == 10 && k.starts_with("cuda-") && k[5..].bytes().all(|b| b.is_ascii_digit())
        })
        .collect();
    assert!(features.len() >= 15, "{features:?}");
    for f in features {
        // cuda-MMmm0: major MM, minor mm.
        let (major, minor): (u32, u32) = (f[5..7].parse().unwrap(), f[7..9].parse().unwrap());
        let line = format!("\"{f}\" => ({major}, {minor}),");
        assert!(
            lib.contains(&line),
            "lib_names.rs's CUDA_RELEASE lacks `{line}`"
        );
    }
    // Without a version feature (as here): 13.0's sonames.
    let names = cuda_compat::get_lib_name_candidates("nvrtc");
    if cfg!(target_os = "linux") {
        assert!(names.contains(&"libnvrtc.so.13".to_string()), "{names:?}");
    }
}

/// cuBLAS arguments rejected before any call say why, in
/// `cublas::result::last_error_detail` and the error's `Debug`; a status
/// of the library's own carries no earlier reason. (No runtime: the
/// checks come before the handle or any address is used.)
#[test]
fn cublas_rejections_say_why() {
    use cuda_compat::cublas::result::{last_error_detail, sgemm, CublasError};
    use cuda_compat::cublas::sys::{cublasOperation_t, cublasStatus_t};
    let (one, zero) = (1.0f32, 0.0f32);
    let null = std::ptr::null::<f32>();
    let n = cublasOperation_t::CUBLAS_OP_N;
    let gemm = |op: cublasOperation_t, m: i32, lda: i32, alpha: *const f32| -> CublasError {
        // SAFETY: every call below is refused by the argument checks, before
        // the handle or any address is used.
        unsafe {
            sgemm(
                std::ptr::null_mut(),
                op,
                n,
                m,
                4,
                4,
                alpha,
                null,
                lda,
                null,
                4,
                &zero,
                std::ptr::null_mut(),
                4,
            )
        }
        .unwrap_err()
    };
    let cases: [(&dyn Fn() -> CublasError, &str); 4] = [
        (&|| gemm(n, 4, 1, &one), "ld"),
        (&|| gemm(n, -3, 4, &one), "-3 is negative"),
        (&|| gemm(n, 4, 4, null), "null pointer"),
        (
            &|| gemm(cublasOperation_t(77), 4, 4, &one),
            "not an operation",
        ),
    ];
    for (call, want) in cases {
        let e = call();
        assert_eq!(e.0, cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
        let (status, why) = last_error_detail().expect("a reason");
        assert_eq!(status, e.0);
        assert!(why.contains(want), "{want:?} not in {why:?}");
        let shown = format!("{e:?}");
        assert!(shown.contains(&why), "{shown}");
    }
    // The library's own status: no reason, and none printed.
    let own = cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
        .result()
        .unwrap_err();
    assert_eq!(last_error_detail(), None);
    assert_eq!(
        format!("{own:?}"),
        "CublasError(CUBLAS_STATUS_INVALID_VALUE)"
    );
}

/// `is_culib_present` answers for the HIP library each module calls
/// through: the runtime for the driver and runtime APIs, hiprtc inside it
/// for nvrtc, and each library's own loader (compared where its feature
/// is on).
#[test]
fn is_culib_present_reports_each_modules_hip_library() {
    fn present(f: unsafe fn() -> bool) -> bool {
        // SAFETY: every is_culib_present is always sound to call; `unsafe`
        // only for cudarc's signature.
        unsafe { f() }
    }
    let runtime = hip_sys::loader::runtime().is_ok();
    assert_eq!(present(sys::is_culib_present), runtime);
    assert_eq!(
        present(cuda_compat::runtime::sys::is_culib_present),
        runtime
    );
    let rtc = present(nvrtc::sys::is_culib_present);
    assert!(!rtc || runtime, "hiprtc present without the runtime");
    assert_eq!(
        present(cuda_compat::cublas::sys::is_culib_present),
        hipblas_sys::loader::hipblas().is_ok()
    );
    #[cfg(feature = "cublaslt")]
    assert_eq!(
        present(cuda_compat::cublaslt::sys::is_culib_present),
        hipblaslt_sys::loader::is_available()
    );
    #[cfg(feature = "curand")]
    assert_eq!(
        present(cuda_compat::curand::sys::is_culib_present),
        hiprand_sys::loader::is_available()
    );
}

/// The flag enums HIP has only as `#define`s carry CUDA's numbers (HIP's
/// macros have the same), so `as u32` passes the bits CUDA code expects.
#[test]
fn macro_valued_flag_enums_have_cudas_numbers() {
    use sys::{CUctx_flags, CUevent_record_flags, CUipcMem_flags, CUstreamWaitValue_flags};
    let cases: [(u32, u32); 11] = [
        (sys::CUstream_flags::CU_STREAM_DEFAULT as u32, 0),
        (sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32, 1),
        (CUevent_record_flags::CU_EVENT_RECORD_DEFAULT as u32, 0),
        (CUevent_record_flags::CU_EVENT_RECORD_EXTERNAL as u32, 1),
        (CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32, 1),
        (CUstreamWaitValue_flags::CU_STREAM_WAIT_VALUE_GEQ as u32, 0),
        (CUstreamWaitValue_flags::CU_STREAM_WAIT_VALUE_EQ as u32, 1),
        (CUstreamWaitValue_flags::CU_STREAM_WAIT_VALUE_AND as u32, 2),
        (CUstreamWaitValue_flags::CU_STREAM_WAIT_VALUE_NOR as u32, 3),
        (CUctx_flags::CU_CTX_SCHED_MASK as u32, 7),
        (CUctx_flags::CU_CTX_BLOCKING_SYNC as u32, 4),
    ];
    for (i, (ours, cuda)) in cases.into_iter().enumerate() {
        assert_eq!(ours, cuda, "case {i}");
    }
}

/// cudarc's bitfield enums combine with `|` and `&`, and an enum's CUDA
/// alias is a constructor too, as in cudarc's bindings (its own graph
/// tests write `Flags(0)` and `A | B`).
#[test]
fn bitfield_enums_combine_and_aliases_construct() {
    use sys::CUgraphInstantiate_flags as Flags;
    let both = Flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH
        | Flags::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    assert_eq!(
        both.0,
        Flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH.0
            | Flags::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY.0
    );
    assert_eq!(
        both & Flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH,
        Flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH
    );
    let mut f = Flags(0);
    f |= Flags::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    f &= both;
    assert_eq!(f, Flags::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY);
    let handles = sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
        | sys::CUmemAllocationHandleType(0);
    assert_eq!(
        handles,
        sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
    );
}
