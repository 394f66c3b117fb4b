//! Memory functions whose flags, structs or memory types need translating.

use super::{cuda_fn, driver_fn, drv_status, record, rt_status};
use crate::generated::functions::HipFunctions;
use crate::*;
use core::ffi::{c_int, c_uint, c_void};

pub(super) fn register(t: &mut HipFunctions) {
    t.hipDrvPointerGetAttributes = Some(hipDrvPointerGetAttributes);
    t.hipHostMalloc = Some(hipHostMalloc);
    t.hipHostAlloc = Some(hipHostMalloc);
    t.hipExtMallocWithFlags = Some(hipExtMallocWithFlags);
    t.hipPointerGetAttributes = Some(hipPointerGetAttributes);
    t.hipPointerGetAttribute = Some(hipPointerGetAttribute);
    t.hipMemcpyParam2D = Some(hipMemcpyParam2D);
    t.hipMemcpyParam2DAsync = Some(hipMemcpyParam2DAsync);
    t.hipDrvMemcpy2DUnaligned = Some(hipDrvMemcpy2DUnaligned);
    t.hipMemcpyWithStream = Some(hipMemcpyWithStream);
    t.hipMemPtrGetInfo = Some(hipMemPtrGetInfo);
    t.hipMemCreate = Some(hipMemCreate);
    t.hipMemGetAllocationGranularity = Some(hipMemGetAllocationGranularity);
    t.hipStreamAddCallback = Some(hipStreamAddCallback);
}

/// The host-allocation flags CUDA knows (portable, mapped, write-combined:
/// the same bits in both); HIP's coherence and NUMA hints have no CUDA
/// meaning and are dropped.
pub(crate) const fn host_malloc_flags_to_cuda(flags: c_uint) -> c_uint {
    flags & (hipHostMallocPortable | hipHostMallocMapped | hipHostMallocWriteCombined)
}

unsafe extern "C" fn hipHostMalloc(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaHostAlloc",
        unsafe extern "C" fn(*mut *mut c_void, usize, c_uint) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: the caller's pointer is passed on under the same contract.
    rt_status(unsafe { f(ptr, size, host_malloc_flags_to_cuda(flags)) })
}

unsafe extern "C" fn hipExtMallocWithFlags(
    ptr: *mut *mut c_void,
    size: usize,
    flags: c_uint,
) -> hipError_t {
    // Only the default (coarse-grained) kind exists on NVIDIA.
    if flags != 0 {
        return record(hipError_t::hipErrorNotSupported);
    }
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaMalloc",
        unsafe extern "C" fn(*mut *mut c_void, usize) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: the caller's pointer is passed on under the same contract.
    rt_status(unsafe { f(ptr, size) })
}

/// `cudaPointerAttributes` (CUDA 11 and later), with room for the reserved
/// words later releases append.
#[repr(C)]
struct CudaPointerAttributes {
    type_: c_int,
    device: c_int,
    device_pointer: *mut c_void,
    host_pointer: *mut c_void,
    reserved: [i64; 16],
}

/// A CUDA memory type (`cudaMemoryType`, 0..=3) as HIP's.
pub(crate) const fn runtime_memory_type(t: c_int) -> hipMemoryType {
    match t {
        1 => hipMemoryType::hipMemoryTypeHost,
        2 => hipMemoryType::hipMemoryTypeDevice,
        3 => hipMemoryType::hipMemoryTypeManaged,
        _ => hipMemoryType::hipMemoryTypeUnregistered,
    }
}

/// A driver memory type (`CUmemorytype`: host 1, device 2, array 3,
/// unified 4) as HIP's.
pub(crate) const fn driver_memory_type(t: u32) -> hipMemoryType {
    match t {
        1 => hipMemoryType::hipMemoryTypeHost,
        2 => hipMemoryType::hipMemoryTypeDevice,
        3 => hipMemoryType::hipMemoryTypeArray,
        4 => hipMemoryType::hipMemoryTypeUnified,
        _ => hipMemoryType::hipMemoryTypeUnregistered,
    }
}

/// HIP's memory type as the driver's (`CUmemorytype`); managed memory is
/// addressed as unified.
pub(crate) const fn memory_type_to_driver(t: hipMemoryType) -> Option<u32> {
    match t {
        hipMemoryType::hipMemoryTypeHost => Some(1),
        hipMemoryType::hipMemoryTypeDevice => Some(2),
        hipMemoryType::hipMemoryTypeArray => Some(3),
        hipMemoryType::hipMemoryTypeUnified | hipMemoryType::hipMemoryTypeManaged => Some(4),
        _ => None,
    }
}

unsafe extern "C" fn hipPointerGetAttributes(
    attributes: *mut hipPointerAttribute_t,
    ptr: *const c_void,
) -> hipError_t {
    if attributes.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaPointerGetAttributes",
        unsafe extern "C" fn(*mut CudaPointerAttributes, *const c_void) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    let mut a = CudaPointerAttributes {
        type_: 0,
        device: 0,
        device_pointer: core::ptr::null_mut(),
        host_pointer: core::ptr::null_mut(),
        reserved: [0; 16],
    };
    // SAFETY: `a` is a `cudaPointerAttributes` to write to.
    let s = unsafe { f(&mut a, ptr) };
    if s != 0 {
        return rt_status(s);
    }
    let type_ = runtime_memory_type(a.type_);
    let out = hipPointerAttribute_t {
        type_,
        device: a.device,
        devicePointer: a.device_pointer,
        hostPointer: a.host_pointer,
        isManaged: (type_ == hipMemoryType::hipMemoryTypeManaged) as c_int,
        allocationFlags: 0,
    };
    // SAFETY: `attributes` is non-null and, by contract, writable.
    unsafe { attributes.write(out) };
    hipError_t::hipSuccess
}

/// `HIP_POINTER_ATTRIBUTE_MEMORY_TYPE`, whose value needs translating.
const POINTER_ATTRIBUTE_MEMORY_TYPE: u32 = 2;
/// `HIP_POINTER_ATTRIBUTE_IS_MANAGED` (CUDA's value too).
const POINTER_ATTRIBUTE_IS_MANAGED: u32 = 8;

unsafe extern "C" fn hipPointerGetAttribute(
    data: *mut c_void,
    attribute: hipPointer_attribute,
    ptr: hipDeviceptr_t,
) -> hipError_t {
    let f = driver_fn!(
        "cuPointerGetAttribute",
        unsafe extern "C" fn(*mut c_void, u32, hipDeviceptr_t) -> i32
    );
    // SAFETY: HIP's pointer attribute values are CUDA's; the caller's
    // buffer is sized for the attribute, as CUDA requires.
    let s = unsafe { f(data, attribute.0, ptr) };
    if s == 0 && attribute.0 == POINTER_ATTRIBUTE_MEMORY_TYPE && !data.is_null() {
        // The driver says "device" for managed memory; HIP (and the CUDA
        // runtime) say "managed".
        let mut managed = 0 as c_int;
        // SAFETY: `managed` is an int for POINTER_ATTRIBUTE_IS_MANAGED.
        let is_managed = unsafe {
            f(
                (&mut managed as *mut c_int).cast(),
                POINTER_ATTRIBUTE_IS_MANAGED,
                ptr,
            )
        } == 0
            && managed != 0;
        // SAFETY: for this attribute the driver wrote an unsigned int.
        unsafe {
            let t = data.cast::<u32>();
            *t = if is_managed {
                hipMemoryType::hipMemoryTypeManaged.0
            } else {
                driver_memory_type(*t).0
            };
        }
    }
    drv_status(s)
}

/// `hipDrvPointerGetAttributes`: each attribute through
/// [`hipPointerGetAttribute`], which gives memory types HIP's values
/// (`cuPointerGetAttributes` would return CUDA's, where 3 means array, not
/// managed).
unsafe extern "C" fn hipDrvPointerGetAttributes(
    num_attributes: c_uint,
    attributes: *mut hipPointer_attribute,
    data: *mut *mut c_void,
    ptr: hipDeviceptr_t,
) -> hipError_t {
    if num_attributes > 0 && (attributes.is_null() || data.is_null()) {
        return record(hipError_t::hipErrorInvalidValue);
    }
    for i in 0..num_attributes as usize {
        // SAFETY: the caller passes `num_attributes` attributes and as many
        // output pointers.
        let (attribute, out) = unsafe { (*attributes.add(i), *data.add(i)) };
        // SAFETY: `out` is the caller's buffer for this attribute.
        let s = unsafe { hipPointerGetAttribute(out, attribute, ptr) };
        if s != hipError_t::hipSuccess {
            return s;
        }
    }
    hipError_t::hipSuccess
}

/// HIP's 2D copy description with CUDA's memory types (the layouts of
/// `hip_Memcpy2D` and `CUDA_MEMCPY2D` are the same field for field).
pub(crate) fn memcpy2d_to_cuda(p: &hip_Memcpy2D) -> Result<hip_Memcpy2D, hipError_t> {
    let mut c = *p;
    c.srcMemoryType = hipMemoryType(
        memory_type_to_driver(p.srcMemoryType).ok_or(hipError_t::hipErrorInvalidValue)?,
    );
    c.dstMemoryType = hipMemoryType(
        memory_type_to_driver(p.dstMemoryType).ok_or(hipError_t::hipErrorInvalidValue)?,
    );
    Ok(c)
}

unsafe fn memcpy2d(
    p: *const hip_Memcpy2D,
    stream: Option<hipStream_t>,
    unaligned: bool,
) -> hipError_t {
    if p.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    // SAFETY: `p` is non-null and points to a `hip_Memcpy2D` by contract.
    let c = match memcpy2d_to_cuda(unsafe { &*p }) {
        Ok(c) => c,
        Err(e) => return record(e),
    };
    let s = match (stream, unaligned) {
        (Some(stream), _) => {
            let f = driver_fn!(
                "cuMemcpy2DAsync_v2",
                unsafe extern "C" fn(*const hip_Memcpy2D, hipStream_t) -> i32
            );
            // SAFETY: `c` has CUDA_MEMCPY2D's layout and values.
            unsafe { f(&c, stream) }
        }
        (None, false) => {
            let f = driver_fn!(
                "cuMemcpy2D_v2",
                unsafe extern "C" fn(*const hip_Memcpy2D) -> i32
            );
            // SAFETY: as above.
            unsafe { f(&c) }
        }
        (None, true) => {
            let f = driver_fn!(
                "cuMemcpy2DUnaligned_v2",
                unsafe extern "C" fn(*const hip_Memcpy2D) -> i32
            );
            // SAFETY: as above.
            unsafe { f(&c) }
        }
    };
    drv_status(s)
}

unsafe extern "C" fn hipMemcpyParam2D(p: *const hip_Memcpy2D) -> hipError_t {
    // SAFETY: the caller's contract is passed on.
    unsafe { memcpy2d(p, None, false) }
}

unsafe extern "C" fn hipMemcpyParam2DAsync(
    p: *const hip_Memcpy2D,
    stream: hipStream_t,
) -> hipError_t {
    // SAFETY: the caller's contract is passed on.
    unsafe { memcpy2d(p, Some(stream), false) }
}

unsafe extern "C" fn hipDrvMemcpy2DUnaligned(p: *const hip_Memcpy2D) -> hipError_t {
    // SAFETY: the caller's contract is passed on.
    unsafe { memcpy2d(p, None, true) }
}

unsafe extern "C" fn hipMemcpyWithStream(
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    kind: hipMemcpyKind,
    stream: hipStream_t,
) -> hipError_t {
    let (Some(copy), Some(sync)) = (
        cuda_fn!(
            Runtime,
            "cudaMemcpyAsync",
            unsafe extern "C" fn(
                *mut c_void,
                *const c_void,
                usize,
                hipMemcpyKind,
                hipStream_t,
            ) -> i32
        ),
        cuda_fn!(
            Runtime,
            "cudaStreamSynchronize",
            unsafe extern "C" fn(hipStream_t) -> i32
        ),
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: same arguments as cudaMemcpyAsync; HIP's copy kinds are CUDA's.
    let s = unsafe { copy(dst, src, size, kind, stream) };
    if s != 0 {
        return rt_status(s);
    }
    // SAFETY: waits on the caller's stream.
    rt_status(unsafe { sync(stream) })
}

unsafe extern "C" fn hipMemPtrGetInfo(ptr: *mut c_void, size: *mut usize) -> hipError_t {
    let f = driver_fn!(
        "cuMemGetAddressRange_v2",
        unsafe extern "C" fn(*mut hipDeviceptr_t, *mut usize, hipDeviceptr_t) -> i32
    );
    // SAFETY: the base output may be null; `size` is the caller's.
    drv_status(unsafe { f(core::ptr::null_mut(), size, ptr) })
}

/// CUDA's `CUmemAllocationProp`: HIP's `hipMemAllocationProp` with the four
/// bytes after `allocFlags` named `reserved`, which the driver requires to be
/// zero. In HIP's struct they are tail padding, so a caller's value may hold
/// anything there: the adapters copy the fields into this, zeroed.
#[repr(C)]
struct CuMemAllocationProp {
    type_: hipMemAllocationType,
    requested_handle_types: hipMemAllocationHandleType,
    location: hipMemLocation,
    win32_handle_meta_data: *mut c_void,
    compression_type: u8,
    gpu_direct_rdma_capable: u8,
    usage: u16,
    reserved: [u8; 4],
}

const _: () = assert!(size_of::<CuMemAllocationProp>() == 32);
const _: () = assert!(size_of::<hipMemAllocationProp>() == 32);

impl CuMemAllocationProp {
    /// The CUDA form of `*prop`, reserved bytes zero; `None` for null.
    ///
    /// # Safety
    /// `prop` is null or valid for a read.
    unsafe fn from_hip(prop: *const hipMemAllocationProp) -> Option<CuMemAllocationProp> {
        // SAFETY: null or valid for a read, by the caller.
        let p = unsafe { prop.as_ref() }?;
        Some(CuMemAllocationProp {
            type_: p.type_,
            requested_handle_types: p.requestedHandleType,
            location: p.location,
            win32_handle_meta_data: p.win32HandleMetaData,
            compression_type: p.allocFlags.compressionType,
            gpu_direct_rdma_capable: p.allocFlags.gpuDirectRDMACapable,
            usage: p.allocFlags.usage,
            reserved: [0; 4],
        })
    }
}

/// `hipMemCreate` over `cuMemCreate`, the properties passed with CUDA's
/// reserved bytes zeroed.
unsafe extern "C" fn hipMemCreate(
    handle: *mut hipMemGenericAllocationHandle_t,
    size: usize,
    prop: *const hipMemAllocationProp,
    flags: core::ffi::c_ulonglong,
) -> hipError_t {
    let f = driver_fn!(
        "cuMemCreate",
        unsafe extern "C" fn(
            *mut hipMemGenericAllocationHandle_t,
            usize,
            *const CuMemAllocationProp,
            core::ffi::c_ulonglong,
        ) -> i32
    );
    // SAFETY: `prop` is null or valid for a read (the caller's contract).
    let Some(cu) = (unsafe { CuMemAllocationProp::from_hip(prop) }) else {
        return record(hipError_t::hipErrorInvalidValue);
    };
    // SAFETY: `cu` lives across the call; the rest is the caller's.
    drv_status(unsafe { f(handle, size, &cu, flags) })
}

/// `hipMemGetAllocationGranularity` over `cuMemGetAllocationGranularity`,
/// the properties passed with CUDA's reserved bytes zeroed.
unsafe extern "C" fn hipMemGetAllocationGranularity(
    granularity: *mut usize,
    prop: *const hipMemAllocationProp,
    option: hipMemAllocationGranularity_flags,
) -> hipError_t {
    let f = driver_fn!(
        "cuMemGetAllocationGranularity",
        unsafe extern "C" fn(
            *mut usize,
            *const CuMemAllocationProp,
            hipMemAllocationGranularity_flags,
        ) -> i32
    );
    // SAFETY: `prop` is null or valid for a read (the caller's contract).
    let Some(cu) = (unsafe { CuMemAllocationProp::from_hip(prop) }) else {
        return record(hipError_t::hipErrorInvalidValue);
    };
    // SAFETY: `cu` lives across the call; the rest is the caller's.
    drv_status(unsafe { f(granularity, &cu, option) })
}

/// What `hipStreamAddCallback` hands the trampoline: the caller's callback
/// and data.
struct StreamCallback {
    callback: unsafe extern "C" fn(hipStream_t, hipError_t, *mut c_void),
    user_data: *mut c_void,
}

/// Called by CUDA once per registered callback: gives the caller HIP's
/// status instead of CUDA's number, then frees the registration.
unsafe extern "C" fn stream_callback_trampoline(
    stream: hipStream_t,
    status: i32,
    data: *mut c_void,
) {
    // SAFETY: `data` is the `Box<StreamCallback>` leaked by
    // `hipStreamAddCallback` for exactly this one call.
    let cb = unsafe { Box::from_raw(data.cast::<StreamCallback>()) };
    let status = super::status::from_cuda_runtime(status);
    // SAFETY: the caller registered this callback with this data.
    unsafe { (cb.callback)(stream, status, cb.user_data) };
}

/// `hipStreamAddCallback` over `cudaStreamAddCallback`, with the status the
/// callback receives translated to HIP's value.
unsafe extern "C" fn hipStreamAddCallback(
    stream: hipStream_t,
    callback: hipStreamCallback_t,
    user_data: *mut c_void,
    flags: c_uint,
) -> hipError_t {
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaStreamAddCallback",
        unsafe extern "C" fn(
            hipStream_t,
            unsafe extern "C" fn(hipStream_t, i32, *mut c_void),
            *mut c_void,
            c_uint,
        ) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    let Some(callback) = callback else {
        return record(hipError_t::hipErrorInvalidValue);
    };
    let data = Box::into_raw(Box::new(StreamCallback {
        callback,
        user_data,
    }));
    // SAFETY: the trampoline takes CUDA's callback arguments; `data` stays
    // valid until the trampoline frees it.
    let s = unsafe { f(stream, stream_callback_trampoline, data.cast(), flags) };
    if s != 0 {
        // Not registered: the trampoline will never run.
        // SAFETY: `data` came from `Box::into_raw` above and was not handed on.
        drop(unsafe { Box::from_raw(data) });
    }
    rt_status(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocation_properties_reach_cuda_with_zero_reserved_bytes() {
        let mut with_garbage = hipMemAllocationProp {
            type_: hipMemAllocationType::hipMemAllocationTypePinned,
            requestedHandleType: hipMemAllocationHandleType(0),
            location: hipMemLocation {
                type_: hipMemLocationType::hipMemLocationTypeDevice,
                id: 3,
            },
            win32HandleMetaData: core::ptr::null_mut(),
            allocFlags: hipMemAllocationProp__bindgen_ty_1 {
                compressionType: 1,
                gpuDirectRDMACapable: 1,
                usage: 7,
            },
        };
        // The caller's struct, with garbage in its tail padding (bytes
        // 28..32, CUDA's `reserved`).
        let tail = (&mut with_garbage as *mut hipMemAllocationProp).cast::<u8>();
        // SAFETY: bytes 28..32 lie inside the 32-byte struct.
        unsafe { core::ptr::write_bytes(tail.add(28), 0xAB, 4) };
        // SAFETY: a valid struct.
        let cu = unsafe { CuMemAllocationProp::from_hip(&with_garbage) }.unwrap();
        assert_eq!(cu.reserved, [0; 4]);
        assert_eq!((cu.location.id, cu.usage, cu.compression_type), (3, 7, 1));
        assert_eq!(cu.type_, hipMemAllocationType::hipMemAllocationTypePinned);
        // SAFETY: null is allowed and gives `None`.
        assert!(unsafe { CuMemAllocationProp::from_hip(core::ptr::null()) }.is_none());
    }
}
