//! Graph functions whose structs differ between HIP and CUDA (HIP orders
//! some fields alphabetically) or whose signatures changed in CUDA 12.

use super::launch::read_extra_for_node;
use super::{cuda_fn, driver_fn, drv_status, record, rt_status};
use crate::generated::functions::HipFunctions;
use crate::*;
use core::ffi::{c_char, c_uint, c_ulonglong, c_void};

pub(super) fn register(t: &mut HipFunctions) {
    t.hipGraphNodeGetType = Some(hipGraphNodeGetType);
    t.hipGraphInstantiate = Some(hipGraphInstantiate);
    t.hipGraphInstantiateWithParams = Some(hipGraphInstantiateWithParams);
    t.hipGraphExecUpdate = Some(hipGraphExecUpdate);
    t.hipGraphAddKernelNode = Some(hipGraphAddKernelNode);
    t.hipGraphKernelNodeGetParams = Some(hipGraphKernelNodeGetParams);
    t.hipGraphKernelNodeSetParams = Some(hipGraphKernelNodeSetParams);
    t.hipGraphExecKernelNodeSetParams = Some(hipGraphExecKernelNodeSetParams);
    t.hipGraphAddMemsetNode = Some(hipGraphAddMemsetNode);
    t.hipGraphMemsetNodeGetParams = Some(hipGraphMemsetNodeGetParams);
    t.hipGraphMemsetNodeSetParams = Some(hipGraphMemsetNodeSetParams);
    t.hipGraphExecMemsetNodeSetParams = Some(hipGraphExecMemsetNodeSetParams);
}

type InstantiateWithFlags =
    unsafe extern "C" fn(*mut hipGraphExec_t, hipGraph_t, c_ulonglong) -> i32;

unsafe extern "C" fn hipGraphInstantiate(
    exec: *mut hipGraphExec_t,
    graph: hipGraph_t,
    error_node: *mut hipGraphNode_t,
    log: *mut c_char,
    log_size: usize,
) -> hipError_t {
    let f = driver_fn!("cuGraphInstantiateWithFlags", InstantiateWithFlags);
    if !error_node.is_null() {
        // SAFETY: a non-null output is, by contract, writable.
        unsafe { *error_node = core::ptr::null_mut() };
    }
    if !log.is_null() && log_size > 0 {
        // SAFETY: the log buffer holds at least one byte.
        unsafe { *log = 0 };
    }
    // SAFETY: the caller's output and graph are passed on.
    drv_status(unsafe { f(exec, graph, 0) })
}

/// `CUDA_GRAPH_INSTANTIATE_PARAMS`.
#[repr(C)]
struct CudaInstantiateParams {
    flags: u64,
    upload_stream: hipStream_t,
    err_node_out: hipGraphNode_t,
    result_out: u32,
}

unsafe extern "C" fn hipGraphInstantiateWithParams(
    exec: *mut hipGraphExec_t,
    graph: hipGraph_t,
    params: *mut hipGraphInstantiateParams,
) -> hipError_t {
    if params.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let f = driver_fn!(
        "cuGraphInstantiateWithParams",
        unsafe extern "C" fn(*mut hipGraphExec_t, hipGraph_t, *mut CudaInstantiateParams) -> i32
    );
    // SAFETY: `params` is non-null and points to HIP's struct by contract.
    let p = unsafe { &mut *params };
    let mut c = CudaInstantiateParams {
        flags: p.flags,
        upload_stream: p.uploadStream,
        err_node_out: core::ptr::null_mut(),
        result_out: 0,
    };
    // SAFETY: `c` has CUDA's layout; the rest is the caller's.
    let s = unsafe { f(exec, graph, &mut c) };
    p.errNode_out = c.err_node_out;
    // The instantiate results (success, error, invalid structure, node
    // operation not supported, multiple devices) have CUDA's values.
    p.result_out = hipGraphInstantiateResult(c.result_out);
    drv_status(s)
}

/// `CUgraphExecUpdateResultInfo`.
#[repr(C)]
struct CudaUpdateResultInfo {
    result: u32,
    error_node: hipGraphNode_t,
    error_from_node: hipGraphNode_t,
}

unsafe extern "C" fn hipGraphExecUpdate(
    exec: hipGraphExec_t,
    graph: hipGraph_t,
    error_node: *mut hipGraphNode_t,
    result: *mut hipGraphExecUpdateResult,
) -> hipError_t {
    let f = driver_fn!(
        "cuGraphExecUpdate_v2",
        unsafe extern "C" fn(hipGraphExec_t, hipGraph_t, *mut CudaUpdateResultInfo) -> i32
    );
    let mut info = CudaUpdateResultInfo {
        result: 0,
        error_node: core::ptr::null_mut(),
        error_from_node: core::ptr::null_mut(),
    };
    // SAFETY: `info` has CUDA's layout.
    let s = unsafe { f(exec, graph, &mut info) };
    if !error_node.is_null() {
        // SAFETY: a non-null output is, by contract, writable.
        unsafe { *error_node = info.error_node };
    }
    if !result.is_null() {
        // SAFETY: as above; the update results have CUDA's values.
        unsafe { *result = hipGraphExecUpdateResult(info.result) };
    }
    drv_status(s)
}

/// `CUDA_KERNEL_NODE_PARAMS_v2`.
#[repr(C)]
#[derive(Clone, Copy)]
struct CudaKernelNodeParams {
    func: *mut c_void,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
    kern: *mut c_void,
    ctx: *mut c_void,
}

/// HIP's kernel node parameters as CUDA's; `extra` is translated into
/// `storage`, which must outlive the call that reads the result.
///
/// # Safety
/// `p.extra`, when non-null, must be a HIP `extra` array.
unsafe fn kernel_params_to_cuda(
    p: &hipKernelNodeParams,
    storage: &mut [*mut c_void; 5],
) -> Result<CudaKernelNodeParams, hipError_t> {
    let extra = if p.extra.is_null() {
        core::ptr::null_mut()
    } else {
        // SAFETY: by this function's contract.
        *storage = unsafe { read_extra_for_node(p.extra) }?;
        storage.as_mut_ptr()
    };
    Ok(CudaKernelNodeParams {
        func: p.func,
        grid: [p.gridDim.x, p.gridDim.y, p.gridDim.z],
        block: [p.blockDim.x, p.blockDim.y, p.blockDim.z],
        shared: p.sharedMemBytes,
        kernel_params: p.kernelParams,
        extra,
        kern: core::ptr::null_mut(),
        ctx: core::ptr::null_mut(),
    })
}

unsafe extern "C" fn hipGraphAddKernelNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    num_deps: usize,
    params: *const hipKernelNodeParams,
) -> hipError_t {
    if params.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let f = driver_fn!(
        "cuGraphAddKernelNode_v2",
        unsafe extern "C" fn(
            *mut hipGraphNode_t,
            hipGraph_t,
            *const hipGraphNode_t,
            usize,
            *const CudaKernelNodeParams,
        ) -> i32
    );
    let mut storage = [core::ptr::null_mut(); 5];
    // SAFETY: `params` is non-null and HIP's struct by contract.
    let c = match unsafe { kernel_params_to_cuda(&*params, &mut storage) } {
        Ok(c) => c,
        Err(e) => return record(e),
    };
    // SAFETY: `c` (and `storage`) live until the call returns; the driver
    // copies them.
    drv_status(unsafe { f(node, graph, deps, num_deps, &c) })
}

unsafe extern "C" fn hipGraphKernelNodeGetParams(
    node: hipGraphNode_t,
    params: *mut hipKernelNodeParams,
) -> hipError_t {
    if params.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let f = driver_fn!(
        "cuGraphKernelNodeGetParams_v2",
        unsafe extern "C" fn(hipGraphNode_t, *mut CudaKernelNodeParams) -> i32
    );
    let mut c = CudaKernelNodeParams {
        func: core::ptr::null_mut(),
        grid: [0; 3],
        block: [0; 3],
        shared: 0,
        kernel_params: core::ptr::null_mut(),
        extra: core::ptr::null_mut(),
        kern: core::ptr::null_mut(),
        ctx: core::ptr::null_mut(),
    };
    // SAFETY: `c` has CUDA's layout.
    let s = unsafe { f(node, &mut c) };
    if s == 0 {
        let out = hipKernelNodeParams {
            blockDim: dim3 {
                x: c.block[0],
                y: c.block[1],
                z: c.block[2],
            },
            // CUDA keeps the arguments as `kernelParams`; its own `extra`
            // array has CUDA's keys, so it is not handed out.
            extra: core::ptr::null_mut(),
            func: c.func,
            gridDim: dim3 {
                x: c.grid[0],
                y: c.grid[1],
                z: c.grid[2],
            },
            kernelParams: c.kernel_params,
            sharedMemBytes: c.shared,
        };
        // SAFETY: `params` is non-null and, by contract, writable.
        unsafe { params.write(out) };
    }
    drv_status(s)
}

unsafe extern "C" fn hipGraphKernelNodeSetParams(
    node: hipGraphNode_t,
    params: *const hipKernelNodeParams,
) -> hipError_t {
    if params.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let f = driver_fn!(
        "cuGraphKernelNodeSetParams_v2",
        unsafe extern "C" fn(hipGraphNode_t, *const CudaKernelNodeParams) -> i32
    );
    let mut storage = [core::ptr::null_mut(); 5];
    // SAFETY: `params` is non-null and HIP's struct by contract.
    let c = match unsafe { kernel_params_to_cuda(&*params, &mut storage) } {
        Ok(c) => c,
        Err(e) => return record(e),
    };
    // SAFETY: `c` lives until the call returns.
    drv_status(unsafe { f(node, &c) })
}

unsafe extern "C" fn hipGraphExecKernelNodeSetParams(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const hipKernelNodeParams,
) -> hipError_t {
    if params.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let f = driver_fn!(
        "cuGraphExecKernelNodeSetParams_v2",
        unsafe extern "C" fn(hipGraphExec_t, hipGraphNode_t, *const CudaKernelNodeParams) -> i32
    );
    let mut storage = [core::ptr::null_mut(); 5];
    // SAFETY: `params` is non-null and HIP's struct by contract.
    let c = match unsafe { kernel_params_to_cuda(&*params, &mut storage) } {
        Ok(c) => c,
        Err(e) => return record(e),
    };
    // SAFETY: `c` lives until the call returns.
    drv_status(unsafe { f(exec, node, &c) })
}

/// `cudaMemsetParams`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CudaMemsetParams {
    pub(crate) dst: *mut c_void,
    pub(crate) pitch: usize,
    pub(crate) value: c_uint,
    pub(crate) element_size: c_uint,
    pub(crate) width: usize,
    pub(crate) height: usize,
}

pub(crate) fn memset_to_cuda(p: &hipMemsetParams) -> CudaMemsetParams {
    CudaMemsetParams {
        dst: p.dst,
        pitch: p.pitch,
        value: p.value,
        element_size: p.elementSize,
        width: p.width,
        height: p.height,
    }
}

pub(crate) fn memset_from_cuda(c: &CudaMemsetParams) -> hipMemsetParams {
    hipMemsetParams {
        dst: c.dst,
        elementSize: c.element_size,
        height: c.height,
        pitch: c.pitch,
        value: c.value,
        width: c.width,
    }
}

unsafe extern "C" fn hipGraphAddMemsetNode(
    node: *mut hipGraphNode_t,
    graph: hipGraph_t,
    deps: *const hipGraphNode_t,
    num_deps: usize,
    params: *const hipMemsetParams,
) -> hipError_t {
    if params.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaGraphAddMemsetNode",
        unsafe extern "C" fn(
            *mut hipGraphNode_t,
            hipGraph_t,
            *const hipGraphNode_t,
            usize,
            *const CudaMemsetParams,
        ) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: `params` is non-null and HIP's struct by contract.
    let c = memset_to_cuda(unsafe { &*params });
    // SAFETY: `c` has CUDA's layout and lives until the call returns.
    rt_status(unsafe { f(node, graph, deps, num_deps, &c) })
}

unsafe extern "C" fn hipGraphMemsetNodeGetParams(
    node: hipGraphNode_t,
    params: *mut hipMemsetParams,
) -> hipError_t {
    if params.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaGraphMemsetNodeGetParams",
        unsafe extern "C" fn(hipGraphNode_t, *mut CudaMemsetParams) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    let mut c = CudaMemsetParams {
        dst: core::ptr::null_mut(),
        pitch: 0,
        value: 0,
        element_size: 0,
        width: 0,
        height: 0,
    };
    // SAFETY: `c` has CUDA's layout.
    let s = unsafe { f(node, &mut c) };
    if s == 0 {
        // SAFETY: `params` is non-null and, by contract, writable.
        unsafe { params.write(memset_from_cuda(&c)) };
    }
    rt_status(s)
}

unsafe extern "C" fn hipGraphMemsetNodeSetParams(
    node: hipGraphNode_t,
    params: *const hipMemsetParams,
) -> hipError_t {
    if params.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaGraphMemsetNodeSetParams",
        unsafe extern "C" fn(hipGraphNode_t, *const CudaMemsetParams) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: `params` is non-null and HIP's struct by contract.
    let c = memset_to_cuda(unsafe { &*params });
    // SAFETY: `c` has CUDA's layout.
    rt_status(unsafe { f(node, &c) })
}

unsafe extern "C" fn hipGraphExecMemsetNodeSetParams(
    exec: hipGraphExec_t,
    node: hipGraphNode_t,
    params: *const hipMemsetParams,
) -> hipError_t {
    if params.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaGraphExecMemsetNodeSetParams",
        unsafe extern "C" fn(hipGraphExec_t, hipGraphNode_t, *const CudaMemsetParams) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: `params` is non-null and HIP's struct by contract.
    let c = memset_to_cuda(unsafe { &*params });
    // SAFETY: `c` has CUDA's layout.
    rt_status(unsafe { f(exec, node, &c) })
}

/// CUDA's graph node type as HIP's: 0-11 are the same; CUDA's 12 (the
/// driver's batch memory operation) is HIP's 14, and CUDA's 13
/// (conditional) has no HIP counterpart, where HIP's 12 and 13 are the
/// symbol copies.
pub(crate) const fn node_type_from_cuda(t: u32) -> Option<hipGraphNodeType> {
    match t {
        0..=11 => Some(hipGraphNodeType(t)),
        12 => Some(hipGraphNodeType::hipGraphNodeTypeBatchMemOp),
        _ => None,
    }
}

/// `hipGraphNodeGetType` -> `cudaGraphNodeGetType`, with the node type
/// translated; a conditional node, which HIP cannot name, is
/// `hipErrorNotSupported`.
unsafe extern "C" fn hipGraphNodeGetType(
    node: hipGraphNode_t,
    p_type: *mut hipGraphNodeType,
) -> hipError_t {
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaGraphNodeGetType",
        unsafe extern "C" fn(hipGraphNode_t, *mut u32) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    if p_type.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let mut t = 0u32;
    // SAFETY: the caller's node; `t` is writable.
    let s = unsafe { f(node, &mut t) };
    if s != 0 {
        return rt_status(s);
    }
    match node_type_from_cuda(t) {
        Some(h) => {
            // SAFETY: checked non-null; the caller's output.
            unsafe { p_type.write(h) };
            hipError_t::hipSuccess
        }
        None => record(hipError_t::hipErrorNotSupported),
    }
}
