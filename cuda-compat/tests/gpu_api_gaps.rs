//! Tier 3: the last of cudarc's safe API cuda-compat gained (issue 33) on
//! a real GPU: views split and chunked and written through each part,
//! `view_ptr` addresses and their event tracking, the occupancy
//! calculator, kernel attributes and cache preferences, the device's
//! context handle, unified memory's access checks. Run with `--ignored`
//! (`HIP_PLATFORM=nvidia` on an NVIDIA GPU, or an AMD GPU). Results are
//! compared with a CPU reference on fresh random non-zero data.

use cuda_compat::driver::{
    result, sys, CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, CudaViewMut,
    DevicePtr, DriverError, LaunchConfig, PushKernelArg,
};

use cuda_compat::Platform;
use std::sync::Arc;
use test_kit::assert_close;

mod common;
use common::random;

const KERNELS: &str = concat!(
    test_kit::cycle_stopwatch_cuda!(),
    r#"
// x[i] = a * x[i] + b
extern "C" __global__ void affine_in_place(float* x, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i] + b;
}

// x[i] += 1 after spinning `spin` clock cycles: long enough that a reader
// on another stream that does not wait for it runs first.
extern "C" __global__ void slow_add_one(float* x, int n, long long spin) {
    hiprs_spin(spin);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

// out[i] = 2 * in[i], staged through dynamic shared memory: each thread
// writes its slot, and the block reads its neighbour's after a barrier.
extern "C" __global__ void through_shared(float* out, const float* in, int n) {
    extern __shared__ float tile[];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    tile[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    int mirror = blockDim.x - 1 - t;
    int j = blockIdx.x * blockDim.x + mirror;
    if (j < n) out[j] = 2.0f * tile[mirror];
}
"#
);

const N: usize = 4096;
const TOL: f32 = 1e-6;
/// About 100 ms at up to 2 GHz.
const SPIN: i64 = 200_000_000;

fn setup() -> (Arc<CudaContext>, Arc<CudaModule>) {
    common::setup(KERNELS)
}

fn platform() -> Platform {
    cuda_compat::backend().expect("a runtime").platform
}

/// `x = a * x + b` on the view, on `stream`.
fn affine(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    x: &mut CudaViewMut<'_, f32>,
    a: f32,
    b: f32,
) -> Result<(), DriverError> {
    let n = x.len() as i32;
    // SAFETY: affine_in_place(float*, float, float, int) touches [0, n)
    // of x, which holds n elements.
    unsafe {
        stream
            .launch_builder(f)
            .arg(x)
            .arg(&a)
            .arg(&b)
            .arg(&n)
            .launch(LaunchConfig::for_num_elems(n as u32))
    }
    .map(|_| ())
}

#[test]
#[ignore = "needs a GPU"]
fn views_split_and_chunked_are_written_through_each_part() {
    let (ctx, module) = setup();
    let s = ctx.new_stream().unwrap();
    let f = module.load_function("affine_in_place").unwrap();
    let data = random(N);
    let mut d: CudaSlice<f32> = s.clone_htod(&data).unwrap();
    let mut want = data.clone();
    let cpu = |want: &mut [f32], range: std::ops::Range<usize>, a: f32, b: f32| {
        for v in &mut want[range] {
            *v = a * *v + b;
        }
    };

    // split_at_mut, then each half split again with try_split_at_mut.
    let (q1, q2, q3) = (N / 4, N / 2, 3 * N / 4);
    {
        let mut whole = d.as_view_mut();
        let (mut left, mut right) = whole.split_at_mut(q2);
        assert_eq!((left.len(), right.len()), (q2, N - q2));
        let (mut a, mut b) = left.try_split_at_mut(q1).unwrap();
        affine(&s, &f, &mut a, 2.0, 1.0).unwrap();
        affine(&s, &f, &mut b, 3.0, -1.0).unwrap();
        assert!(right.try_split_at_mut(N - q2 + 1).is_none());
        let (mut c, mut e) = right.split_at_mut(q3 - q2);
        affine(&s, &f, &mut c, 0.5, 4.0).unwrap();
        affine(&s, &f, &mut e, -1.0, 0.25).unwrap();
    }
    cpu(&mut want, 0..q1, 2.0, 1.0);
    cpu(&mut want, q1..q2, 3.0, -1.0);
    cpu(&mut want, q2..q3, 0.5, 4.0);
    cpu(&mut want, q3..N, -1.0, 0.25);
    assert_close(&s.clone_dtoh(&d).unwrap(), &want, TOL, "the four quarters");

    // chunks_exact_mut: each chunk scaled by its index.
    let chunk = 256;
    for (i, mut part) in d.as_view_mut().chunks_exact_mut(chunk).enumerate() {
        assert_eq!(part.len(), chunk);
        affine(&s, &f, &mut part, 1.0, i as f32).unwrap();
    }
    for i in 0..N / chunk {
        cpu(&mut want, i * chunk..(i + 1) * chunk, 1.0, i as f32);
    }
    assert_close(&s.clone_dtoh(&d).unwrap(), &want, TOL, "the chunks");

    // Read-only parts: CudaView's split_at and chunks_exact, and
    // CudaViewMut's slice and try_slice, read back what is there.
    let view = d.as_view();
    let (head, tail) = view.split_at(q1);
    assert_close(&s.clone_dtoh(&head).unwrap(), &want[..q1], TOL, "head");
    assert_close(&s.clone_dtoh(&tail).unwrap(), &want[q1..], TOL, "tail");
    let parts: Vec<_> = view.chunks_exact(N / 8).collect();
    assert_eq!(parts.len(), 8);
    for (i, p) in parts.iter().enumerate() {
        let range = i * N / 8..(i + 1) * N / 8;
        assert_close(&s.clone_dtoh(p).unwrap(), &want[range], TOL, "a chunk");
    }
    let whole = d.as_view_mut();
    let middle = whole.slice(q1..q3);
    assert_close(&s.clone_dtoh(&middle).unwrap(), &want[q1..q3], TOL, "slice");
    assert!(whole.try_slice(q3..N + 1).is_none());
    let last = whole.try_slice(N - 1..).unwrap();
    assert_close(&s.clone_dtoh(&last).unwrap(), &want[N - 1..], TOL, "last");
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn view_ptr_gives_the_parts_address_and_tracks_the_access() {
    let (ctx, module) = setup();
    let writer = ctx.new_stream().unwrap();
    let reader = ctx.new_stream().unwrap();
    let f = module.load_function("slow_add_one").unwrap();
    let data = random(N);
    let mut d = writer.clone_htod(&data).unwrap();
    writer.synchronize().unwrap();
    let base = {
        let (p, _read) = d.device_ptr(&writer);
        p
    };
    let at = |i: usize| base + (i * size_of::<f32>()) as u64;
    let offset = N / 4;
    {
        let (p, read) = d.as_view().slice(offset..).view_ptr(&writer);
        assert_eq!(p, at(offset));
        drop(read);
        let (p, _read) = d.as_view_mut().view_ptr(&writer);
        assert_eq!(p, base);
    }

    // A slow kernel writes the tail through view_ptr_mut's address; the
    // guard records the write, so a copy on another stream waits for it.
    let n = (N - offset) as i32;
    {
        let mut whole = d.as_view_mut();
        let (_head, tail) = whole.split_at_mut(offset);
        let (p, _write) = tail.view_ptr_mut(&writer);
        assert_eq!(p, at(offset));
        // SAFETY: slow_add_one(float*, int, long long) touches [0, n) of
        // the tail's n elements at p (a device address as a 64-bit
        // argument).
        unsafe {
            writer
                .launch_builder(&f)
                .arg(&p)
                .arg(&n)
                .arg(&SPIN)
                .launch(LaunchConfig::for_num_elems(n as u32))
        }
        .unwrap();
    }
    let got = reader.clone_dtoh(&d).unwrap();
    let want: Vec<f32> = (data.iter().enumerate())
        .map(|(i, v)| if i >= offset { v + 1.0 } else { *v })
        .collect();
    assert_close(&got, &want, TOL, "read on another stream after the write");
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn occupancy_numbers_are_consistent() {
    let (ctx, module) = setup();
    let f = module.load_function("through_shared").unwrap();
    let max_threads = f.max_threads_per_block().unwrap() as u32;
    assert!(max_threads >= 64, "{max_threads}");
    for block in [64, max_threads] {
        let blocks = f
            .occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
            .unwrap();
        assert!(blocks >= 1, "{blocks} blocks of {block}");
        let flagged = f
            .occupancy_max_active_blocks_per_multiprocessor(
                block,
                0,
                Some(sys::CUoccupancy_flags::CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE),
            )
            .unwrap();
        assert!(
            flagged >= 1,
            "{flagged} blocks of {block}, caching override off"
        );
    }
    // Beyond the kernel's largest block nothing fits (an error or 0).
    if let Ok(n) = f.occupancy_max_active_blocks_per_multiprocessor(max_threads + 1, 0, None) {
        assert_eq!(n, 0, "blocks of {} threads", max_threads + 1);
    }
    // More shared memory never fits more blocks.
    let b0 = f
        .occupancy_max_active_blocks_per_multiprocessor(64, 0, None)
        .unwrap();
    let b1 = f
        .occupancy_max_active_blocks_per_multiprocessor(64, 16 * 1024, None)
        .unwrap();
    assert!(b1 <= b0, "{b1} with 16 KiB, {b0} without");

    // The potential block size is one the kernel can run, at occupancy.
    extern "C" fn no_smem(_b: std::ffi::c_int) -> usize {
        0
    }
    let (grid, block) = f
        .occupancy_max_potential_block_size(no_smem, 0, 0, None)
        .unwrap();
    assert!(
        grid >= 1 && (1..=max_threads).contains(&block),
        "{grid} {block}"
    );
    assert!(
        f.occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
            .unwrap()
            >= 1
    );

    // Available dynamic shared memory: the size still fits, one byte more
    // does not (unless the kernel's own limit capped it), fewer blocks
    // get at least as much, and the size launches.
    let kernel_limit = f
        .get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
        .unwrap() as usize;
    let block = 256;
    let most = f
        .occupancy_max_active_blocks_per_multiprocessor(block, 0, None)
        .unwrap();
    let one = f
        .occupancy_available_dynamic_smem_per_block(1, block)
        .unwrap();
    assert!(one > 0 && one <= kernel_limit, "{one} of {kernel_limit}");
    for want_blocks in [1, 2, most] {
        let smem = f
            .occupancy_available_dynamic_smem_per_block(want_blocks, block)
            .unwrap();
        assert!(smem <= one, "{smem} for {want_blocks} blocks, {one} for 1");
        let fits = f
            .occupancy_max_active_blocks_per_multiprocessor(block, smem, None)
            .unwrap();
        assert!(fits >= want_blocks, "{fits} blocks with {smem} bytes");
        if smem < kernel_limit {
            let over = f
                .occupancy_max_active_blocks_per_multiprocessor(block, smem + 1, None)
                .unwrap_or(0);
            assert!(over < want_blocks, "{over} blocks with {} bytes", smem + 1);
        }
    }
    let e = f
        .occupancy_available_dynamic_smem_per_block(most + 1, block)
        .unwrap_err();
    assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE));
    let e = f
        .occupancy_available_dynamic_smem_per_block(0, block)
        .unwrap_err();
    assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE));

    let s = ctx.new_stream().unwrap();
    let data = random(N);
    let input = s.clone_htod(&data).unwrap();
    let mut out = s.alloc_zeros::<f32>(N).unwrap();
    let n = N as i32;
    let cfg = LaunchConfig {
        grid_dim: ((N as u32).div_ceil(block), 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: one as u32,
    };
    assert!(one >= block as usize * size_of::<f32>(), "{one} bytes");
    // SAFETY: through_shared(float*, const float*, int) touches [0, n) of
    // both, and uses block_dim floats of dynamic shared memory, within
    // `one` bytes (checked above).
    unsafe {
        s.launch_builder(&f)
            .arg(&mut out)
            .arg(&input)
            .arg(&n)
            .launch(cfg)
    }
    .unwrap();
    let want: Vec<f32> = data.iter().map(|v| 2.0 * v).collect();
    assert_close(&s.clone_dtoh(&out).unwrap(), &want, TOL, "launched with it");

    // Clusters: none under HIP.
    let cfg = LaunchConfig::for_num_elems(N as u32);
    for e in [
        f.occupancy_max_active_clusters(cfg, &s).unwrap_err(),
        f.occupancy_max_potential_cluster_size(cfg, &s).unwrap_err(),
    ] {
        assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED));
    }
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn kernel_attributes_and_cache_preferences_are_accepted() {
    let (ctx, module) = setup();
    let f = module.load_function("affine_in_place").unwrap();
    use sys::CUfunction_attribute as A;
    f.set_attribute(A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024)
        .unwrap();
    if platform() == Platform::Nvidia {
        // CUDA's own attribute, read back.
        assert_eq!(
            f.get_attribute(A::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
                .unwrap(),
            1024
        );
    }
    f.set_attribute(A::CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, 50)
        .unwrap();
    // A read-only attribute is refused, with the reason.
    let e = f
        .set_attribute(A::CU_FUNC_ATTRIBUTE_NUM_REGS, 8)
        .unwrap_err();
    assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_INVALID_VALUE));
    assert!(result::last_error_detail().is_some());
    // Every cache preference is accepted.
    use sys::CUfunc_cache as C;
    for config in [
        C::CU_FUNC_CACHE_PREFER_NONE,
        C::CU_FUNC_CACHE_PREFER_SHARED,
        C::CU_FUNC_CACHE_PREFER_L1,
        C::CU_FUNC_CACHE_PREFER_EQUAL,
    ] {
        f.set_function_cache_config(config).unwrap();
    }
    // The kernel still computes.
    let s = ctx.new_stream().unwrap();
    let data = random(N);
    let mut d = s.clone_htod(&data).unwrap();
    affine(&s, &f, &mut d.as_view_mut(), 2.0, 1.0).unwrap();
    let want: Vec<f32> = data.iter().map(|v| 2.0 * v + 1.0).collect();
    assert_close(&s.clone_dtoh(&d).unwrap(), &want, TOL, "2x + 1");
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn the_context_handle_is_the_devices_primary_context() {
    let ctx = CudaContext::new(0).expect("a GPU");
    let handle = ctx.cu_ctx();
    assert!(!handle.is_null());
    assert_eq!(ctx.cu_ctx(), handle, "read once, then kept");
    let other = CudaContext::new_non_primary(0, 0).unwrap();
    assert_eq!(other.cu_ctx(), handle);
    let dev = ctx.cu_device();
    // SAFETY: one retain, released right after; the handle is compared only.
    let retained = unsafe { result::primary_ctx::retain(dev) }.unwrap();
    // SAFETY: matches the retain.
    unsafe { result::primary_ctx::release(dev) }.unwrap();
    assert_eq!(retained, handle);
    ctx.bind_to_thread().unwrap();
    assert_eq!(result::ctx::get_current().unwrap(), Some(handle));
    // No CIG contexts under HIP.
    let mut cig = sys::CUctxCigParam {
        sharedDataType: sys::CUcigDataType::CIG_DATA_TYPE_NV_BLOB,
        sharedData: std::ptr::null_mut(),
    };
    let e = CudaContext::new_cig(0, 0, &mut cig).unwrap_err();
    assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED));
    ctx.check_err().unwrap();
}

#[test]
#[ignore = "needs a GPU"]
fn unified_memory_access_checks_follow_the_attach_mode() {
    let (ctx, module) = setup();
    let s = ctx.new_stream().unwrap();
    let other = ctx.new_stream().unwrap();
    // SAFETY: zeroed f32 is valid.
    let mut u = unsafe { ctx.alloc_unified::<f32>(N, true) }.unwrap();
    assert_eq!(
        u.attach_mode(),
        sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL
    );
    u.check_device_access(&s).unwrap();
    u.check_device_access(&other).unwrap();
    u.check_host_access().unwrap();

    // Attached to one stream: only that stream, and the host once it is
    // idle, which check_host_access waits for.
    u.attach(&s, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE)
        .unwrap();
    u.check_device_access(&s).unwrap();
    let e = u.check_device_access(&other).unwrap_err();
    assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED));
    let data = random(N);
    u.as_mut_slice().unwrap().copy_from_slice(&data);
    let f = module.load_function("affine_in_place").unwrap();
    let n = N as i32;
    // SAFETY: affine_in_place(float*, float, float, int) touches [0, n) of u.
    unsafe {
        s.launch_builder(&f)
            .arg(&mut u)
            .arg(&3.0f32)
            .arg(&0.5f32)
            .arg(&n)
            .launch(LaunchConfig::for_num_elems(n as u32))
    }
    .unwrap();
    u.check_host_access().unwrap();
    let want: Vec<f32> = data.iter().map(|v| 3.0 * v + 0.5).collect();
    assert_close(u.as_slice().unwrap(), &want, TOL, "3x + 0.5");
    // As in cudarc, a use from another stream is refused where it is
    // made: a launch fails before it runs, and a copy through a view
    // records the error, which the next context call returns.
    // SAFETY: as above.
    let refused = unsafe {
        other
            .launch_builder(&f)
            .arg(&mut u)
            .arg(&3.0f32)
            .arg(&0.5f32)
            .arg(&n)
            .launch(LaunchConfig::for_num_elems(n as u32))
    };
    assert_eq!(
        refused.unwrap_err(),
        DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED)
    );
    assert_close(u.as_slice().unwrap(), &want, TOL, "not run");
    let _ = other.clone_dtoh(&u.slice(0..4));
    assert_eq!(
        ctx.check_err(),
        Err(DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED))
    );
    assert_eq!(ctx.check_err(), Ok(()), "returned once");
    let back = s.clone_dtoh(&u.slice(0..4)).unwrap();
    assert_close(&back, &want[..4], TOL, "its own stream");

    // Attached to the host: device access only with concurrent managed
    // access.
    // SAFETY: zeroed f32 is valid.
    let host = unsafe { ctx.alloc_unified::<f32>(N, false) }.unwrap();
    assert_eq!(
        host.attach_mode(),
        sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST
    );
    host.check_host_access().unwrap();
    let concurrent = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS)
        .unwrap()
        != 0;
    match host.check_device_access(&s) {
        Ok(()) => assert!(concurrent),
        Err(e) => {
            assert!(!concurrent);
            assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED));
        }
    }
    ctx.check_err().unwrap();
}
