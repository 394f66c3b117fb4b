//! Tier 1: the last of cudarc's safe API cuda-compat gained (issue 33),
//! without a GPU. `uses_*` are type checks (compiled, never run): each
//! call is written as a cudarc program writes it, with the types cudarc
//! gives. The tests check what runs without a device: the refusals made
//! before any runtime call, and the new raw types' values and layouts.
//! (The arithmetic of splitting and chunking, the occupancy search and
//! the access rules are unit-tested in the crate; the rest is in
//! `gpu_api_gaps.rs`.)

#![allow(dead_code)]

use cuda_compat::driver::{
    result::last_error_detail, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, CudaView,
    CudaViewMut, DriverError, LaunchConfig, SyncOnDrop, UnifiedSlice,
};
use std::sync::Arc;

fn uses_contexts() -> Result<(), DriverError> {
    let ctx: Arc<CudaContext> = CudaContext::new(0)?;
    let _: sys::CUcontext = ctx.cu_ctx();
    let mut cig = sys::CUctxCigParam {
        sharedDataType: sys::CUcigDataType::CIG_DATA_TYPE_D3D12_COMMAND_QUEUE,
        sharedData: std::ptr::null_mut(),
    };
    let _: Arc<CudaContext> = CudaContext::new_cig(0, 0, &mut cig)?;
    Ok(())
}

fn uses_functions(f: &CudaFunction, stream: &CudaStream) -> Result<(), DriverError> {
    let _: usize = f.occupancy_available_dynamic_smem_per_block(2, 256)?;
    let _: u32 = f.occupancy_max_active_blocks_per_multiprocessor(256, 0, None)?;
    let _: u32 = f.occupancy_max_active_blocks_per_multiprocessor(
        256,
        1024,
        Some(sys::CUoccupancy_flags_enum::CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE),
    )?;
    let cfg = LaunchConfig::for_num_elems(4096);
    let _: u32 = f.occupancy_max_active_clusters(cfg, stream)?;
    let _: u32 = f.occupancy_max_potential_cluster_size(cfg, stream)?;
    extern "C" fn smem(_block: std::ffi::c_int) -> usize {
        0
    }
    let _: (u32, u32) = f.occupancy_max_potential_block_size(
        smem,
        0,
        256u32,
        Some(sys::CUoccupancy_flags::CU_OCCUPANCY_DEFAULT),
    )?;
    f.set_attribute(
        sys::CUfunction_attribute_enum::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        1024,
    )?;
    f.set_function_cache_config(sys::CUfunc_cache_enum::CU_FUNC_CACHE_PREFER_SHARED)?;
    Ok(())
}

/// The views' new methods, with the lifetimes cudarc gives them: parts of
/// a `CudaView` live as long as the buffer's borrow, `CudaViewMut::slice`
/// and `split_at_mut` borrow the view, `chunks_exact_mut` and the
/// `view_ptr`s consume it.
fn uses_views(d: &mut CudaSlice<f32>, stream: &Arc<CudaStream>) {
    {
        let view: CudaView<'_, f32> = d.as_view();
        let (a, b): (CudaView<'_, f32>, CudaView<'_, f32>) = view.split_at(8);
        let chunks: Vec<CudaView<'_, f32>> = view.chunks_exact(4).collect();
        let (_, _guard): (sys::CUdeviceptr, SyncOnDrop<'_>) = a.view_ptr(stream);
        drop((b, chunks));
    }
    let mut view_mut: CudaViewMut<'_, f32> = d.as_view_mut();
    {
        let _: CudaView<'_, f32> = view_mut.slice(1..3);
        let _: Option<CudaView<'_, f32>> = view_mut.try_slice(..);
    }
    {
        let (_x, _y): (CudaViewMut<'_, f32>, CudaViewMut<'_, f32>) = view_mut.split_at_mut(2);
    }
    {
        let _: Option<(CudaViewMut<'_, f32>, CudaViewMut<'_, f32>)> = view_mut.try_split_at_mut(2);
    }
    let (first, rest) = view_mut.split_at_mut(4);
    let (_, _read): (sys::CUdeviceptr, SyncOnDrop<'_>) = first.view_ptr(stream);
    for chunk in rest.chunks_exact_mut(2) {
        let (_, _write): (sys::CUdeviceptr, SyncOnDrop<'_>) = chunk.view_ptr_mut(stream);
    }
}

fn uses_unified(u: &UnifiedSlice<f32>, stream: &CudaStream) -> Result<(), DriverError> {
    u.check_host_access()?;
    u.check_device_access(stream)?;
    Ok(())
}

#[test]
fn cig_contexts_are_not_supported_before_any_call() {
    for data_type in [
        sys::CUcigDataType::CIG_DATA_TYPE_D3D12_COMMAND_QUEUE,
        sys::CUcigDataType_enum::CIG_DATA_TYPE_NV_BLOB,
    ] {
        let mut shared = 0u64;
        let mut cig = sys::CUctxCigParam_st {
            sharedDataType: data_type,
            sharedData: (&mut shared as *mut u64).cast(),
        };
        let before = cig;
        let e = CudaContext::new_cig(0, 0, &mut cig).unwrap_err();
        assert_eq!(e, DriverError(sys::CUresult::CUDA_ERROR_NOT_SUPPORTED));
        let (status, why) = last_error_detail().expect("a reason");
        assert_eq!(status, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
        assert!(why.contains("CIG"), "{why}");
        assert!(format!("{e:?}").contains("CIG"), "{e:?}");
        assert_eq!(cig, before, "the parameters are left as they are");
    }
}

#[test]
fn occupancy_flags_have_hips_values() {
    use sys::CUoccupancy_flags as F;
    assert_eq!(F::CU_OCCUPANCY_DEFAULT as u32, hip_sys::hipOccupancyDefault);
    assert_eq!(
        F::CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE as u32,
        hip_sys::hipOccupancyDisableCachingOverride
    );
    // CUDA's values too.
    assert_eq!(F::CU_OCCUPANCY_DEFAULT as u32, 0);
    assert_eq!(
        sys::CUoccupancy_flags_enum::CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE as u32,
        1
    );
    assert!(F::CU_OCCUPANCY_DEFAULT < F::CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE);
}

#[test]
fn cig_types_have_cudas_values_and_layout() {
    assert_eq!(
        sys::CUcigDataType::CIG_DATA_TYPE_D3D12_COMMAND_QUEUE as u32,
        1
    );
    assert_eq!(sys::CUcigDataType::CIG_DATA_TYPE_NV_BLOB as u32, 2);
    // CUDA's `{ CUcigDataType sharedDataType; void *sharedData; }`.
    assert_eq!(size_of::<sys::CUctxCigParam>(), 16);
    assert_eq!(align_of::<sys::CUctxCigParam>(), 8);
    assert_eq!(std::mem::offset_of!(sys::CUctxCigParam, sharedData), 8);
}
