//! Errors, devices and their properties, and stream queries that need
//! translation.

use super::attributes::device_attribute_to_cuda;
use super::messages::ERROR_TEXT;
use super::{
    cu_attribute, cuda_fn, current_device, driver_fn, drv_status, last_error, record, rt_status,
};
use crate::generated::functions::HipFunctions;
use crate::*;
use core::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void, CStr};

pub(super) fn register(t: &mut HipFunctions) {
    t.hipDeviceReset = Some(hipDeviceReset);
    t.hipDevicePrimaryCtxReset = Some(hipDevicePrimaryCtxReset);
    t.hipDevicePrimaryCtxRelease = Some(hipDevicePrimaryCtxRelease);
    t.hipCtxDestroy = Some(hipCtxDestroy);
    t.hipGetDevice = Some(hipGetDevice);
    t.hipGetErrorName = Some(hipGetErrorName);
    t.hipGetErrorString = Some(hipGetErrorString);
    t.hipDrvGetErrorName = Some(hipDrvGetErrorName);
    t.hipDrvGetErrorString = Some(hipDrvGetErrorString);
    t.hipGetLastError = Some(hipGetLastError);
    t.hipPeekAtLastError = Some(hipPeekAtLastError);
    t.hipExtGetLastError = Some(hipGetLastError);
    t.hipDeviceGetAttribute = Some(hipDeviceGetAttribute);
    t.hipGetDevicePropertiesR0600 = Some(hipGetDevicePropertiesR0600);
    t.hipGetDevicePropertiesR0000 = Some(hipGetDevicePropertiesR0000);
    t.hipChooseDeviceR0600 = Some(hipChooseDeviceR0600);
    t.hipDeviceComputeCapability = Some(hipDeviceComputeCapability);
    t.hipDeviceGetP2PAttribute = Some(hipDeviceGetP2PAttribute);
    t.hipGetStreamDeviceId = Some(hipGetStreamDeviceId);
    t.hipStreamGetDevice = Some(hipStreamGetDevice);
    t.hipStreamGetCaptureInfo = Some(hipStreamGetCaptureInfo);
    t.hipStreamWaitValue32 = Some(hipStreamWaitValue32);
    t.hipStreamWaitValue64 = Some(hipStreamWaitValue64);
}

/// The name and message of a HIP status, NUL-terminated and static.
pub(crate) fn error_text(e: hipError_t) -> (&'static CStr, &'static CStr) {
    match ERROR_TEXT.iter().find(|(v, _, _)| *v == e.0) {
        Some((_, n, m)) => (n, m),
        None => (c"hipErrorUnknown", c"unknown error"),
    }
}

unsafe extern "C" fn hipGetErrorName(e: hipError_t) -> *const c_char {
    error_text(e).0.as_ptr()
}

unsafe extern "C" fn hipGetErrorString(e: hipError_t) -> *const c_char {
    error_text(e).1.as_ptr()
}

unsafe extern "C" fn hipDrvGetErrorName(e: hipError_t, out: *mut *const c_char) -> hipError_t {
    if out.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    // SAFETY: `out` is non-null and, by contract, writable.
    unsafe { *out = error_text(e).0.as_ptr() };
    if ERROR_TEXT.iter().any(|(v, _, _)| *v == e.0) {
        hipError_t::hipSuccess
    } else {
        record(hipError_t::hipErrorInvalidValue)
    }
}

unsafe extern "C" fn hipDrvGetErrorString(e: hipError_t, out: *mut *const c_char) -> hipError_t {
    if out.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    // SAFETY: `out` is non-null and, by contract, writable.
    unsafe { *out = error_text(e).1.as_ptr() };
    if ERROR_TEXT.iter().any(|(v, _, _)| *v == e.0) {
        hipError_t::hipSuccess
    } else {
        record(hipError_t::hipErrorInvalidValue)
    }
}

unsafe extern "C" fn hipGetLastError() -> hipError_t {
    last_error(true)
}

unsafe extern "C" fn hipPeekAtLastError() -> hipError_t {
    last_error(false)
}

/// Attributes HIP has and CUDA answers under another form.
fn derived_attribute(
    attr: hipDeviceAttribute_t,
    device: c_int,
) -> Option<Result<c_int, hipError_t>> {
    Some(match attr {
        // CUDA has no "shared memory per multiprocessor" under HIP's old
        // name; it is the same quantity as the maximum.
        hipDeviceAttribute_t::hipDeviceAttributeMaxSharedMemoryPerMultiprocessor => {
            cu_attribute(81, device)
        }
        hipDeviceAttribute_t::hipDeviceAttributeHostNativeAtomicSupported => {
            cu_attribute(86, device)
        }
        _ => return None,
    })
}

unsafe extern "C" fn hipDeviceGetAttribute(
    pi: *mut c_int,
    attr: hipDeviceAttribute_t,
    device: c_int,
) -> hipError_t {
    if pi.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let result = match device_attribute_to_cuda(attr) {
        Some(cu) => cu_attribute(cu, device),
        None => match derived_attribute(attr, device) {
            Some(r) => r,
            None => Err(hipError_t::hipErrorInvalidValue),
        },
    };
    match result {
        Ok(v) => {
            // SAFETY: `pi` is non-null and, by contract, writable.
            unsafe { *pi = v };
            hipError_t::hipSuccess
        }
        Err(e) => record(e),
    }
}

/// Copies `s` into a C string field, truncating, always NUL-terminated.
fn copy_c_string(dst: &mut [c_char], s: &[u8]) {
    let n = s.len().min(dst.len().saturating_sub(1));
    for (d, b) in dst.iter_mut().zip(&s[..n]) {
        *d = *b as c_char;
    }
    if let Some(end) = dst.get_mut(n) {
        *end = 0;
    }
}

/// Fills HIP's 6.x property struct from device attributes (the CUDA 13
/// `cudaDeviceProp` layout differs from 12's, so it is never used).
pub(crate) fn fill_properties(
    p: &mut hipDeviceProp_tR0600,
    device: c_int,
) -> Result<(), hipError_t> {
    let a = |attr: i32| cu_attribute(attr, device);
    // An attribute a driver no longer answers reads as 0 rather than
    // failing the whole query.
    let o = |attr: i32| cu_attribute(attr, device).unwrap_or(0);
    let name_fn = cuda_fn!(
        DriverNoContext,
        "cuDeviceGetName",
        unsafe extern "C" fn(*mut c_char, c_int, c_int) -> i32
    )
    .ok_or(hipError_t::hipErrorNotSupported)?;
    let mut name = [0 as c_char; 256];
    // SAFETY: `name` holds 256 chars, the length passed.
    let s = unsafe { name_fn(name.as_mut_ptr(), 256, device) };
    if s != 0 {
        return Err(super::status::from_cuda_driver(s));
    }
    p.name = name;
    p.name[255] = 0;
    if let Some(uuid) = cuda_fn!(
        DriverNoContext,
        "cuDeviceGetUuid",
        unsafe extern "C" fn(*mut hipUUID, c_int) -> i32
    ) {
        // SAFETY: `hipUUID` is 16 bytes, as `CUuuid`.
        let _ = unsafe { uuid(&mut p.uuid, device) };
    }
    if let Some(total) = cuda_fn!(
        DriverNoContext,
        "cuDeviceTotalMem_v2",
        unsafe extern "C" fn(*mut usize, c_int) -> i32
    ) {
        // SAFETY: `totalGlobalMem` is a size_t to write to.
        let s = unsafe { total(&mut p.totalGlobalMem, device) };
        if s != 0 {
            return Err(super::status::from_cuda_driver(s));
        }
    }
    let major = a(75)?;
    let minor = a(76)?;
    p.major = major;
    p.minor = minor;
    p.sharedMemPerBlock = o(8) as usize;
    p.regsPerBlock = o(12);
    p.warpSize = a(10)?;
    p.memPitch = o(11) as usize;
    p.maxThreadsPerBlock = a(1)?;
    p.maxThreadsDim = [o(2), o(3), o(4)];
    p.maxGridSize = [o(5), o(6), o(7)];
    p.clockRate = o(13);
    p.totalConstMem = o(9) as usize;
    p.textureAlignment = o(14) as usize;
    p.texturePitchAlignment = o(51) as usize;
    p.deviceOverlap = o(15);
    p.multiProcessorCount = a(16)?;
    p.kernelExecTimeoutEnabled = o(17);
    p.integrated = o(18);
    p.canMapHostMemory = o(19);
    p.computeMode = o(20);
    p.maxTexture1D = o(21);
    p.maxTexture1DMipmap = o(77);
    p.maxTexture1DLinear = o(69);
    p.maxTexture2D = [o(22), o(23)];
    p.maxTexture2DMipmap = [o(73), o(74)];
    p.maxTexture2DLinear = [o(70), o(71), o(72)];
    p.maxTexture2DGather = [o(45), o(46)];
    p.maxTexture3D = [o(24), o(25), o(26)];
    p.maxTexture3DAlt = [o(47), o(48), o(49)];
    p.maxTextureCubemap = o(52);
    p.maxTexture1DLayered = [o(42), o(43)];
    p.maxTexture2DLayered = [o(27), o(28), o(29)];
    p.maxTextureCubemapLayered = [o(53), o(54)];
    p.maxSurface1D = o(55);
    p.maxSurface2D = [o(56), o(57)];
    p.maxSurface3D = [o(58), o(59), o(60)];
    p.maxSurface1DLayered = [o(61), o(62)];
    p.maxSurface2DLayered = [o(63), o(64), o(65)];
    p.maxSurfaceCubemap = o(66);
    p.maxSurfaceCubemapLayered = [o(67), o(68)];
    p.surfaceAlignment = o(30) as usize;
    p.concurrentKernels = o(31);
    p.ECCEnabled = o(32);
    p.pciBusID = o(33);
    p.pciDeviceID = o(34);
    p.pciDomainID = o(50);
    p.tccDriver = o(35);
    p.asyncEngineCount = o(40);
    p.unifiedAddressing = o(41);
    p.memoryClockRate = o(36);
    p.memoryBusWidth = o(37);
    p.l2CacheSize = o(38);
    p.persistingL2CacheMaxSize = o(108);
    p.maxThreadsPerMultiProcessor = o(39);
    p.streamPrioritiesSupported = o(78);
    p.globalL1CacheSupported = o(79);
    p.localL1CacheSupported = o(80);
    p.sharedMemPerMultiprocessor = o(81) as usize;
    p.regsPerMultiprocessor = o(82);
    p.managedMemory = o(83);
    p.isMultiGpuBoard = o(84);
    p.multiGpuBoardGroupID = o(85);
    p.hostNativeAtomicSupported = o(86);
    p.singleToDoublePrecisionPerfRatio = o(87);
    p.pageableMemoryAccess = o(88);
    p.concurrentManagedAccess = o(89);
    p.computePreemptionSupported = o(90);
    p.canUseHostPointerForRegisteredMem = o(91);
    p.cooperativeLaunch = o(95);
    p.cooperativeMultiDeviceLaunch = o(96);
    p.sharedMemPerBlockOptin = o(97) as usize;
    p.pageableMemoryAccessUsesHostPageTables = o(100);
    p.directManagedMemAccessFromHost = o(101);
    p.maxBlocksPerMultiProcessor = o(106);
    p.accessPolicyMaxWindowSize = o(109);
    p.reservedSharedMemPerBlock = o(111) as usize;
    p.hostRegisterSupported = o(99);
    p.sparseHipArraySupported = o(112);
    p.hostRegisterReadOnlySupported = o(113);
    p.timelineSemaphoreInteropSupported = o(114);
    p.memoryPoolsSupported = o(115);
    p.gpuDirectRDMASupported = o(116);
    p.gpuDirectRDMAFlushWritesOptions = o(117) as c_uint;
    p.gpuDirectRDMAWritesOrdering = o(118);
    p.memoryPoolSupportedHandleTypes = o(119) as c_uint;
    p.deferredMappingHipArraySupported = o(121);
    p.ipcEventSupported = o(125);
    p.clusterLaunch = o(120);
    p.unifiedFunctionPointers = o(129);
    // HIP's architecture name on NVIDIA is the SM name, e.g. "sm_90".
    copy_c_string(&mut p.gcnArchName, format!("sm_{major}{minor}").as_bytes());
    p.maxSharedMemoryPerMultiProcessor = o(81) as usize;
    p.clockInstructionRate = o(13);
    p.isLargeBar = 0;
    p.asicRevision = 0;
    Ok(())
}

unsafe extern "C" fn hipGetDevicePropertiesR0600(
    prop: *mut hipDeviceProp_tR0600,
    device: c_int,
) -> hipError_t {
    if prop.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    let mut count = 0;
    if let Some(f) = cuda_fn!(
        Runtime,
        "cudaGetDeviceCount",
        unsafe extern "C" fn(*mut c_int) -> i32
    ) {
        // SAFETY: `count` is a valid int to write to.
        let s = unsafe { f(&mut count) };
        if s != 0 {
            return rt_status(s);
        }
    }
    if device < 0 || device >= count {
        return record(hipError_t::hipErrorInvalidDevice);
    }
    // SAFETY: all fields are integers, arrays of them or raw pointers, for
    // which all-zero is valid.
    let mut p: hipDeviceProp_tR0600 = unsafe { core::mem::zeroed() };
    match fill_properties(&mut p, device) {
        Ok(()) => {
            // SAFETY: `prop` is non-null and, by contract, points to a
            // writable `hipDeviceProp_tR0600`.
            unsafe { prop.write(p) };
            hipError_t::hipSuccess
        }
        Err(e) => record(e),
    }
}

/// HIP's pre-6.0 property struct from the 6.x one.
pub(crate) fn properties_r0000(p: &hipDeviceProp_tR0600) -> hipDeviceProp_tR0000 {
    // SAFETY: all fields are integers, arrays of them or raw pointers, for
    // which all-zero is valid.
    let mut o: hipDeviceProp_tR0000 = unsafe { core::mem::zeroed() };
    o.name = p.name;
    o.totalGlobalMem = p.totalGlobalMem;
    o.sharedMemPerBlock = p.sharedMemPerBlock;
    o.regsPerBlock = p.regsPerBlock;
    o.warpSize = p.warpSize;
    o.maxThreadsPerBlock = p.maxThreadsPerBlock;
    o.maxThreadsDim = p.maxThreadsDim;
    o.maxGridSize = p.maxGridSize;
    o.clockRate = p.clockRate;
    o.memoryClockRate = p.memoryClockRate;
    o.memoryBusWidth = p.memoryBusWidth;
    o.totalConstMem = p.totalConstMem;
    o.major = p.major;
    o.minor = p.minor;
    o.multiProcessorCount = p.multiProcessorCount;
    o.l2CacheSize = p.l2CacheSize;
    o.maxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    o.computeMode = p.computeMode;
    o.clockInstructionRate = p.clockInstructionRate;
    o.concurrentKernels = p.concurrentKernels;
    o.pciDomainID = p.pciDomainID;
    o.pciBusID = p.pciBusID;
    o.pciDeviceID = p.pciDeviceID;
    o.maxSharedMemoryPerMultiProcessor = p.maxSharedMemoryPerMultiProcessor;
    o.isMultiGpuBoard = p.isMultiGpuBoard;
    o.canMapHostMemory = p.canMapHostMemory;
    o.gcnArchName = p.gcnArchName;
    o.integrated = p.integrated;
    o.cooperativeLaunch = p.cooperativeLaunch;
    o.cooperativeMultiDeviceLaunch = p.cooperativeMultiDeviceLaunch;
    o.maxTexture1DLinear = p.maxTexture1DLinear;
    o.maxTexture1D = p.maxTexture1D;
    o.maxTexture2D = p.maxTexture2D;
    o.maxTexture3D = p.maxTexture3D;
    o.memPitch = p.memPitch;
    o.textureAlignment = p.textureAlignment;
    o.texturePitchAlignment = p.texturePitchAlignment;
    o.kernelExecTimeoutEnabled = p.kernelExecTimeoutEnabled;
    o.ECCEnabled = p.ECCEnabled;
    o.tccDriver = p.tccDriver;
    o.managedMemory = p.managedMemory;
    o.directManagedMemAccessFromHost = p.directManagedMemAccessFromHost;
    o.concurrentManagedAccess = p.concurrentManagedAccess;
    o.pageableMemoryAccess = p.pageableMemoryAccess;
    o.pageableMemoryAccessUsesHostPageTables = p.pageableMemoryAccessUsesHostPageTables;
    o
}

unsafe extern "C" fn hipGetDevicePropertiesR0000(
    prop: *mut hipDeviceProp_tR0000,
    device: c_int,
) -> hipError_t {
    if prop.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    // SAFETY: as in `hipGetDevicePropertiesR0600`.
    let mut p: hipDeviceProp_tR0600 = unsafe { core::mem::zeroed() };
    // SAFETY: `p` is a writable property struct.
    let e = unsafe { hipGetDevicePropertiesR0600(&mut p, device) };
    if e.is_success() {
        // SAFETY: `prop` is non-null and, by contract, writable.
        unsafe { prop.write(properties_r0000(&p)) };
    }
    e
}

unsafe extern "C" fn hipChooseDeviceR0600(
    device: *mut c_int,
    prop: *const hipDeviceProp_tR0600,
) -> hipError_t {
    if device.is_null() || prop.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    // SAFETY: `prop` is non-null and points to a property struct.
    let want = unsafe { &*prop };
    let mut count = 0;
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaGetDeviceCount",
        unsafe extern "C" fn(*mut c_int) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: `count` is a valid int to write to.
    let s = unsafe { f(&mut count) };
    if s != 0 {
        return rt_status(s);
    }
    // The first device with at least the compute capability asked for,
    // else device 0 (as CUDA and HIP do: the closest match, never a failure).
    let mut best = 0;
    for d in 0..count {
        let (Ok(major), Ok(minor)) = (cu_attribute(75, d), cu_attribute(76, d)) else {
            continue;
        };
        if (major, minor) >= (want.major, want.minor) {
            best = d;
            break;
        }
    }
    // SAFETY: `device` is non-null and, by contract, writable.
    unsafe { *device = best };
    hipError_t::hipSuccess
}

unsafe extern "C" fn hipDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    device: hipDevice_t,
) -> hipError_t {
    if major.is_null() || minor.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    match (cu_attribute(75, device), cu_attribute(76, device)) {
        (Ok(a), Ok(b)) => {
            // SAFETY: both pointers are non-null and, by contract, writable.
            unsafe {
                *major = a;
                *minor = b;
            }
            hipError_t::hipSuccess
        }
        (Err(e), _) | (_, Err(e)) => record(e),
    }
}

/// `hipDeviceP2PAttr` -> `cudaDeviceP2PAttr` (CUDA's count from 1).
pub(crate) const fn p2p_attribute_to_cuda(a: hipDeviceP2PAttr) -> Option<c_int> {
    match a {
        hipDeviceP2PAttr::hipDevP2PAttrPerformanceRank => Some(1),
        hipDeviceP2PAttr::hipDevP2PAttrAccessSupported => Some(2),
        hipDeviceP2PAttr::hipDevP2PAttrNativeAtomicSupported => Some(3),
        hipDeviceP2PAttr::hipDevP2PAttrHipArrayAccessSupported => Some(4),
        _ => None,
    }
}

unsafe extern "C" fn hipDeviceGetP2PAttribute(
    value: *mut c_int,
    attr: hipDeviceP2PAttr,
    src: c_int,
    dst: c_int,
) -> hipError_t {
    let Some(cu) = p2p_attribute_to_cuda(attr) else {
        return record(hipError_t::hipErrorInvalidValue);
    };
    let Some(f) = cuda_fn!(
        Runtime,
        "cudaDeviceGetP2PAttribute",
        unsafe extern "C" fn(*mut c_int, c_int, c_int, c_int) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: the caller's pointer is passed on under the same contract.
    rt_status(unsafe { f(value, cu, src, dst) })
}

/// The device a stream belongs to.
fn stream_device(stream: hipStream_t) -> Result<c_int, hipError_t> {
    // The null and per-thread streams belong to the current device.
    if stream.is_null() || stream as usize <= 2 {
        return current_device();
    }
    let get_ctx = cuda_fn!(
        Driver,
        "cuStreamGetCtx",
        unsafe extern "C" fn(hipStream_t, *mut hipCtx_t) -> i32
    )
    .ok_or(hipError_t::hipErrorNotSupported)?;
    super::ensure_context()?;
    let ctx_dev = cuda_fn!(
        DriverNoContext,
        "cuCtxPushCurrent_v2",
        unsafe extern "C" fn(hipCtx_t) -> i32
    )
    .ok_or(hipError_t::hipErrorNotSupported)?;
    let pop = cuda_fn!(
        DriverNoContext,
        "cuCtxPopCurrent_v2",
        unsafe extern "C" fn(*mut hipCtx_t) -> i32
    )
    .ok_or(hipError_t::hipErrorNotSupported)?;
    let get_dev = cuda_fn!(
        DriverNoContext,
        "cuCtxGetDevice",
        unsafe extern "C" fn(*mut c_int) -> i32
    )
    .ok_or(hipError_t::hipErrorNotSupported)?;
    let mut ctx = core::ptr::null_mut();
    // SAFETY: `ctx` is a valid place for a context handle.
    let s = unsafe { get_ctx(stream, &mut ctx) };
    if s != 0 {
        return Err(super::status::from_cuda_driver(s));
    }
    // SAFETY: `ctx` came from the driver; it is pushed and popped again.
    let s = unsafe { ctx_dev(ctx) };
    if s != 0 {
        return Err(super::status::from_cuda_driver(s));
    }
    let mut d = 0;
    // SAFETY: `d` is a valid int to write to.
    let s = unsafe { get_dev(&mut d) };
    let mut popped = core::ptr::null_mut();
    // SAFETY: pops the context pushed above.
    let _ = unsafe { pop(&mut popped) };
    if s != 0 {
        return Err(super::status::from_cuda_driver(s));
    }
    Ok(d)
}

unsafe extern "C" fn hipGetStreamDeviceId(stream: hipStream_t) -> c_int {
    stream_device(stream).unwrap_or(-1)
}

unsafe extern "C" fn hipStreamGetDevice(
    stream: hipStream_t,
    device: *mut hipDevice_t,
) -> hipError_t {
    if device.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    match stream_device(stream) {
        Ok(d) => {
            // SAFETY: `device` is non-null and, by contract, writable.
            unsafe { *device = d };
            hipError_t::hipSuccess
        }
        Err(e) => record(e),
    }
}

unsafe extern "C" fn hipStreamGetCaptureInfo(
    stream: hipStream_t,
    status: *mut hipStreamCaptureStatus,
    id: *mut c_ulonglong,
) -> hipError_t {
    let f = driver_fn!(
        "cuStreamGetCaptureInfo_v2",
        unsafe extern "C" fn(
            hipStream_t,
            *mut hipStreamCaptureStatus,
            *mut c_ulonglong,
            *mut hipGraph_t,
            *mut *const hipGraphNode_t,
            *mut usize,
        ) -> i32
    );
    let null = core::ptr::null_mut();
    // SAFETY: the caller's pointers are passed on; the optional outputs are
    // null, which the driver accepts. Capture status values are the same.
    drv_status(unsafe { f(stream, status, id, null, null as _, null as _) })
}

unsafe extern "C" fn hipStreamWaitValue32(
    stream: hipStream_t,
    ptr: *mut c_void,
    value: u32,
    flags: c_uint,
    mask: u32,
) -> hipError_t {
    // CUDA compares the whole word; HIP's mask is honoured only when full.
    if mask != u32::MAX {
        return record(hipError_t::hipErrorNotSupported);
    }
    let f = driver_fn!(
        "cuStreamWaitValue32_v2",
        unsafe extern "C" fn(hipStream_t, *mut c_void, u32, c_uint) -> i32
    );
    // SAFETY: same arguments; HIP's wait flags (GEQ, EQ, AND, NOR = 0..3)
    // are CUDA's.
    drv_status(unsafe { f(stream, ptr, value, flags) })
}

unsafe extern "C" fn hipStreamWaitValue64(
    stream: hipStream_t,
    ptr: *mut c_void,
    value: u64,
    flags: c_uint,
    mask: u64,
) -> hipError_t {
    if mask != u64::MAX {
        return record(hipError_t::hipErrorNotSupported);
    }
    let f = driver_fn!(
        "cuStreamWaitValue64_v2",
        unsafe extern "C" fn(hipStream_t, *mut c_void, u64, c_uint) -> i32
    );
    // SAFETY: as in `hipStreamWaitValue32`.
    drv_status(unsafe { f(stream, ptr, value, flags) })
}

/// `hipDeviceReset` -> `cudaDeviceReset`. The primary context stays current
/// but inactive afterwards, so every thread's verified context is dropped.
unsafe extern "C" fn hipDeviceReset() -> hipError_t {
    let Some(reset) = cuda_fn!(Runtime, "cudaDeviceReset", unsafe extern "C" fn() -> i32) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    super::context_reset();
    // SAFETY: takes no arguments.
    let status = rt_status(unsafe { reset() });
    super::context_reset();
    status
}

/// `hipDevicePrimaryCtxReset` -> `cuDevicePrimaryCtxReset_v2`, dropping
/// every thread's verified context as `hipDeviceReset` does.
unsafe extern "C" fn hipDevicePrimaryCtxReset(dev: hipDevice_t) -> hipError_t {
    let Some(reset) = cuda_fn!(
        DriverNoContext,
        "cuDevicePrimaryCtxReset_v2",
        unsafe extern "C" fn(c_int) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    super::context_reset();
    // SAFETY: takes a device ordinal by value; the driver checks it.
    let status = drv_status(unsafe { reset(dev) });
    super::context_reset();
    status
}

/// `hipDevicePrimaryCtxRelease` -> `cuDevicePrimaryCtxRelease_v2`: the last
/// release destroys the context, whose address a new one may take, so
/// every thread's verified context is dropped.
unsafe extern "C" fn hipDevicePrimaryCtxRelease(dev: hipDevice_t) -> hipError_t {
    let Some(release) = cuda_fn!(
        DriverNoContext,
        "cuDevicePrimaryCtxRelease_v2",
        unsafe extern "C" fn(c_int) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: takes a device ordinal by value; the driver checks it.
    let status = drv_status(unsafe { release(dev) });
    super::context_reset();
    status
}

/// `hipCtxDestroy` -> `cuCtxDestroy_v2`, dropping every thread's verified
/// context as `hipDevicePrimaryCtxRelease` does.
unsafe extern "C" fn hipCtxDestroy(ctx: hipCtx_t) -> hipError_t {
    let Some(destroy) = cuda_fn!(
        DriverNoContext,
        "cuCtxDestroy_v2",
        unsafe extern "C" fn(hipCtx_t) -> i32
    ) else {
        return record(hipError_t::hipErrorNotSupported);
    };
    // SAFETY: the caller passes a context it created; the driver checks it.
    let status = drv_status(unsafe { destroy(ctx) });
    super::context_reset();
    status
}

/// `hipGetDevice`: the device `cudaGetDevice` reports, asked once per
/// current context and thread ([`super::current_device_cached`]): the
/// device of a context never changes, and every launch, allocation and
/// free of the safe crates asks.
unsafe extern "C" fn hipGetDevice(device: *mut c_int) -> hipError_t {
    if device.is_null() {
        return record(hipError_t::hipErrorInvalidValue);
    }
    match super::current_device_cached() {
        Ok(d) => {
            // SAFETY: `device` is non-null and, by contract, writable.
            unsafe { *device = d };
            hipError_t::hipSuccess
        }
        Err(e) => record(e),
    }
}
