//! Allocation, memory pools, pinned and registered host memory, pointer
//! queries, copies and memsets.
//!
//! A device range is checked before every access: a copy or memset that
//! touches an address no allocation holds fails with
//! `hipErrorInvalidValue` and a message naming the address. Host pointers
//! (outside the device range) are the caller's promise, as in HIP.

use super::stream::enqueue;
use super::{fail, invalid, lock, put, rt, Fail, R};
use crate::memory::{MemoryError, RegionKind};
use hip_sys::{
    hipDeviceptr_t, hipError_t, hipMemPoolAttr, hipMemPoolProps, hipMemPool_t, hipMemcpyKind,
    hipMemoryType, hipPointerAttribute_t, hipPointer_attribute, hipStream_t,
};
use std::collections::HashMap;
use std::ffi::{c_int, c_uchar, c_uint, c_ushort, c_void};
use std::sync::{Mutex, OnceLock};

/// A memory pool: allocations from it are ordinary device allocations;
/// the pool keeps its attributes and counts its bytes.
#[derive(Debug)]
pub(crate) struct Pool {
    pub(crate) device: i32,
    /// Reuse flags (attributes 1-3) and the release threshold.
    settings: Mutex<[u64; 4]>,
    /// Bytes in use now, and the most ever.
    used: Mutex<(u64, u64)>,
}

impl Pool {
    pub(crate) fn new(device: i32) -> Pool {
        Pool {
            device,
            settings: Mutex::new([1, 1, 1, 0]),
            used: Mutex::new((0, 0)),
        }
    }
}

/// The pool each pool allocation came from, with its size.
fn pool_allocations() -> &'static Mutex<HashMap<u64, (usize, u64)>> {
    static MAP: OnceLock<Mutex<HashMap<u64, (usize, u64)>>> = OnceLock::new();
    MAP.get_or_init(Default::default)
}

fn memory_error(what: &str, e: MemoryError) -> Fail {
    let code = match e {
        MemoryError::OutOfMemory { .. } | MemoryError::AddressSpaceExhausted { .. } => {
            hipError_t::hipErrorOutOfMemory
        }
        MemoryError::AlreadyRegistered { .. } => hipError_t::hipErrorHostMemoryAlreadyRegistered,
        _ => hipError_t::hipErrorInvalidValue,
    };
    Fail {
        code,
        message: format!("{what}: {e}"),
    }
}

/// Allocates `size` bytes on device `device`; 0 bytes gives null.
fn allocate(device: i32, size: usize) -> R<u64> {
    if size == 0 {
        return Ok(0);
    }
    rt().memory
        .allocate(device, size as u64, 0)
        .map_err(|e| memory_error("allocation", e))
}

fn free_device(ptr: *mut c_void) -> R {
    if ptr.is_null() {
        return Ok(());
    }
    let addr = ptr as u64;
    rt().memory
        .remove(addr, |k| {
            matches!(k, RegionKind::Device(_) | RegionKind::Managed)
        })
        .map_err(|e| memory_error("free", e))?;
    if let Some((pool, size)) = lock(pool_allocations()).remove(&addr) {
        if let Ok(p) = rt().pools.get(pool) {
            let mut u = lock(&p.used);
            u.0 = u.0.saturating_sub(size);
        }
    }
    Ok(())
}

fn pool_allocate(pool: usize, size: usize) -> R<u64> {
    let p = rt().pools.get(pool)?;
    let addr = allocate(p.device, size)?;
    if addr != 0 {
        lock(pool_allocations()).insert(addr, (pool, size as u64));
        let mut u = lock(&p.used);
        u.0 += size as u64;
        u.1 = u.1.max(u.0);
    }
    Ok(addr)
}

/// Which ends of a copy must be mapped memory, by its kind.
fn ends(kind: hipMemcpyKind) -> R<(bool, bool)> {
    Ok(match kind {
        hipMemcpyKind::hipMemcpyHostToHost | hipMemcpyKind::hipMemcpyDefault => (false, false),
        hipMemcpyKind::hipMemcpyHostToDevice => (true, false),
        hipMemcpyKind::hipMemcpyDeviceToHost => (false, true),
        hipMemcpyKind::hipMemcpyDeviceToDevice | hipMemcpyKind::hipMemcpyDeviceToDeviceNoCU => {
            (true, true)
        }
        other => {
            return fail(
                hipError_t::hipErrorInvalidMemcpyDirection,
                format!("{other:?} is not a copy direction"),
            )
        }
    })
}

/// Copies `height` rows of `width` bytes, rows `dpitch` / `spitch` apart;
/// checks both ends before touching either.
fn copy_2d(
    dst: u64,
    dpitch: usize,
    src: u64,
    spitch: usize,
    width: usize,
    height: usize,
    kind: hipMemcpyKind,
) -> R {
    let (must_dst, must_src) = ends(kind)?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    if dst == 0 || src == 0 {
        return invalid(format!(
            "the {} pointer is null",
            if dst == 0 { "destination" } else { "source" }
        ));
    }
    if width > dpitch || width > spitch {
        return fail(
            hipError_t::hipErrorInvalidPitchValue,
            format!("width {width} exceeds a pitch (destination {dpitch}, source {spitch})"),
        );
    }
    let span = |pitch: usize| {
        (pitch as u64)
            .checked_mul(height as u64 - 1)
            .and_then(|s| s.checked_add(width as u64))
    };
    let (Some(dlen), Some(slen)) = (span(dpitch), span(spitch)) else {
        return invalid("the copy's extent overflows");
    };
    let space = &rt().memory;
    let ranges = [(dst, dlen, must_dst), (src, slen, must_src)];
    space
        .with_host(&ranges, |p| {
            for row in 0..height {
                // SAFETY: both ranges were found inside one mapped region
                // each (device ranges) or are host memory the caller
                // provides for the sizes given; rows stay within `dlen` /
                // `slen`. `copy` allows overlap (a device-to-device copy
                // within one allocation).
                unsafe {
                    std::ptr::copy(
                        p[1].wrapping_add(row * spitch).cast_const(),
                        p[0].wrapping_add(row * dpitch),
                        width,
                    )
                };
            }
        })
        .map_err(|e| memory_error(&which_end(&ranges, &e), e))
}

fn which_end(ranges: &[(u64, u64, bool)], e: &MemoryError) -> String {
    match e {
        MemoryError::Unmapped { address, .. } if ranges.len() == 2 && *address == ranges[1].0 => {
            "the source".to_owned()
        }
        MemoryError::Unmapped { .. } => "the destination".to_owned(),
        _ => "copy".to_owned(),
    }
}

fn copy(dst: u64, src: u64, n: usize, kind: hipMemcpyKind) -> R {
    copy_2d(dst, n, src, n, n, 1, kind)
}

/// Fills `height` rows of `count` elements of `value`'s bytes.
fn fill_2d(dst: u64, pitch: usize, value: &[u8], count: usize, height: usize) -> R {
    let width = count.checked_mul(value.len()).ok_or_else(|| Fail {
        code: hipError_t::hipErrorInvalidValue,
        message: "the fill's size overflows".into(),
    })?;
    if width == 0 || height == 0 {
        return Ok(());
    }
    if dst == 0 {
        return invalid("the destination pointer is null");
    }
    if width > pitch {
        return fail(
            hipError_t::hipErrorInvalidPitchValue,
            format!("width {width} exceeds the pitch {pitch}"),
        );
    }
    let len = (pitch as u64) * (height as u64 - 1) + width as u64;
    let ranges = [(dst, len, true)];
    rt().memory
        .with_host(&ranges, |p| {
            for row in 0..height {
                let base = p[0].wrapping_add(row * pitch);
                for i in 0..count {
                    // SAFETY: the range lies inside one mapped region
                    // (checked above with `must` set), so each element of
                    // each row is writable host memory of that region.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            value.as_ptr(),
                            base.add(i * value.len()),
                            value.len(),
                        )
                    };
                }
            }
        })
        .map_err(|e| memory_error("the destination", e))
}

fn fill(dst: u64, value: &[u8], count: usize) -> R {
    fill_2d(dst, count * value.len(), value, count, 1)
}

/// Runs a copy on `stream`.
fn copy_on(stream: hipStream_t, dst: u64, src: u64, n: usize, kind: hipMemcpyKind) -> R {
    ends(kind)?;
    enqueue(stream, move || copy(dst, src, n, kind))
}

/// Runs a fill on `stream`.
fn fill_on(stream: hipStream_t, dst: u64, value: Vec<u8>, count: usize) -> R {
    enqueue(stream, move || fill(dst, &value, count))
}

export! {
    /// Allocates device memory on the current device (null for 0 bytes).
    fn hipMalloc(ptr: *mut *mut c_void, size: usize) {
        let r = rt();
        let d = r.current()?.ordinal;
        if ptr.is_null() {
            return invalid("`ptr` is null");
        }
        let a = allocate(d, size)?;
        // SAFETY: non-null and a valid `void**` by the contract.
        unsafe { put(ptr, a as *mut c_void, "ptr") }
    }

    /// Frees device (or managed) memory; null is accepted. Waits for
    /// running kernels.
    fn hipFree(ptr: *mut c_void) {
        free_device(ptr)
    }

    /// Allocates from the current device's current pool, in stream order.
    fn hipMallocAsync(dev_ptr: *mut *mut c_void, size: usize, stream: hipStream_t) {
        let s = super::stream::stream(stream)?;
        let d = rt().device(s.device)?;
        if dev_ptr.is_null() {
            return invalid("`dev_ptr` is null");
        }
        let pool = *lock(&d.current_pool);
        let a = pool_allocate(pool, size)?;
        // SAFETY: non-null and a valid `void**` by the contract.
        unsafe { put(dev_ptr, a as *mut c_void, "dev_ptr") }
    }

    /// Frees memory in stream order (now).
    fn hipFreeAsync(dev_ptr: *mut c_void, stream: hipStream_t) {
        super::stream::stream(stream)?;
        free_device(dev_ptr)
    }

    /// Allocates from `mem_pool`, in stream order.
    fn hipMallocFromPoolAsync(dev_ptr: *mut *mut c_void, size: usize, mem_pool: hipMemPool_t, stream: hipStream_t) {
        super::stream::stream(stream)?;
        if dev_ptr.is_null() {
            return invalid("`dev_ptr` is null");
        }
        let a = pool_allocate(mem_pool as usize, size)?;
        // SAFETY: non-null and a valid `void**` by the contract.
        unsafe { put(dev_ptr, a as *mut c_void, "dev_ptr") }
    }

    /// A memory pool on the device `pool_props.location.id` names.
    fn hipMemPoolCreate(mem_pool: *mut hipMemPool_t, pool_props: *const hipMemPoolProps) {
        if mem_pool.is_null() || pool_props.is_null() {
            return invalid("`mem_pool` or `pool_props` is null");
        }
        // SAFETY: non-null and a valid `hipMemPoolProps*` by the contract.
        let props = unsafe { pool_props.read_unaligned() };
        let r = rt();
        let d = r.device(props.location.id)?.ordinal;
        let h = r.pools.insert(Pool::new(d));
        // SAFETY: non-null and a valid `hipMemPool_t*` by the contract.
        unsafe { put(mem_pool, h as hipMemPool_t, "mem_pool") }
    }

    /// Destroys a pool (not a device's default pool).
    fn hipMemPoolDestroy(mem_pool: hipMemPool_t) {
        let r = rt();
        let h = mem_pool as usize;
        if r.devices.iter().any(|d| d.default_pool == h) {
            return invalid("a device's default memory pool cannot be destroyed");
        }
        r.pools.remove(h).map(drop)
    }

    /// Sets a pool attribute (reuse flags: `int`; release threshold:
    /// `uint64_t`; the high-water marks may be reset to 0).
    fn hipMemPoolSetAttribute(mem_pool: hipMemPool_t, attr: hipMemPoolAttr, value: *mut c_void) {
        let p = rt().pools.get(mem_pool as usize)?;
        if value.is_null() {
            return invalid("`value` is null");
        }
        let i = attr.0 as usize;
        match attr.0 {
            1..=3 => {
                // SAFETY: an `int*` for these attributes, non-null.
                let v = unsafe { value.cast::<c_int>().read_unaligned() };
                lock(&p.settings)[i - 1] = v as u64;
            }
            4 => {
                // SAFETY: a `uint64_t*` for the threshold, non-null.
                let v = unsafe { value.cast::<u64>().read_unaligned() };
                lock(&p.settings)[3] = v;
            }
            6 | 8 => {
                let mut u = lock(&p.used);
                u.1 = u.0;
            }
            _ => return invalid(format!("{attr:?} cannot be set")),
        }
        Ok(())
    }

    /// A pool attribute.
    fn hipMemPoolGetAttribute(mem_pool: hipMemPool_t, attr: hipMemPoolAttr, value: *mut c_void) {
        let p = rt().pools.get(mem_pool as usize)?;
        let (used, high) = *lock(&p.used);
        // SAFETY: `value` is null or points to the attribute's type
        // (`int` for 1-3, `uint64_t` for 4-8); `put` rejects null.
        unsafe {
            match attr.0 {
                1..=3 => put(value.cast::<c_int>(), lock(&p.settings)[attr.0 as usize - 1] as c_int, "value"),
                4 => put(value.cast::<u64>(), lock(&p.settings)[3], "value"),
                5 | 7 => put(value.cast::<u64>(), used, "value"),
                6 | 8 => put(value.cast::<u64>(), high, "value"),
                _ => invalid(format!("{attr:?} is not a pool attribute")),
            }
        }
    }

    /// Accepted: freed pool memory goes back at once.
    fn hipMemPoolTrimTo(mem_pool: hipMemPool_t, _min_bytes_to_hold: usize) {
        rt().pools.get(mem_pool as usize).map(drop)
    }

    /// A device's default pool.
    fn hipDeviceGetDefaultMemPool(mem_pool: *mut hipMemPool_t, device: c_int) {
        let d = rt().device(device)?;
        // SAFETY: `mem_pool` is null or a valid `hipMemPool_t*`.
        unsafe { put(mem_pool, d.default_pool as hipMemPool_t, "mem_pool") }
    }

    /// A device's current pool.
    fn hipDeviceGetMemPool(mem_pool: *mut hipMemPool_t, device: c_int) {
        let d = rt().device(device)?;
        let h = *lock(&d.current_pool);
        // SAFETY: `mem_pool` is null or a valid `hipMemPool_t*`.
        unsafe { put(mem_pool, h as hipMemPool_t, "mem_pool") }
    }

    /// Sets a device's current pool.
    fn hipDeviceSetMemPool(device: c_int, mem_pool: hipMemPool_t) {
        let r = rt();
        let d = r.device(device)?;
        let p = r.pools.get(mem_pool as usize)?;
        if p.device != device {
            return invalid(format!("the pool belongs to device {}", p.device));
        }
        *lock(&d.current_pool) = mem_pool as usize;
        Ok(())
    }

    /// Pinned host memory, mapped for every device at its host address.
    fn hipHostMalloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) {
        host_malloc(ptr, size, flags)
    }

    /// As [`hipHostMalloc`].
    fn hipHostAlloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) {
        host_malloc(ptr, size, flags)
    }

    /// As [`hipHostMalloc`] with flags 0.
    fn hipMallocHost(ptr: *mut *mut c_void, size: usize) {
        host_malloc(ptr, size, 0)
    }

    /// Frees memory from [`hipHostMalloc`]; null is accepted.
    fn hipHostFree(ptr: *mut c_void) {
        host_free(ptr)
    }

    /// As [`hipHostFree`].
    fn hipFreeHost(ptr: *mut c_void) {
        host_free(ptr)
    }

    /// Maps the caller's host range for the devices, at its own address.
    fn hipHostRegister(hostPtr: *mut c_void, sizeBytes: usize, flags: c_uint) {
        if hostPtr.is_null() || sizeBytes == 0 {
            return invalid("`hostPtr` is null or `sizeBytes` is 0");
        }
        // SAFETY: the caller promises (as HIP requires) that the range stays
        // valid until `hipHostUnregister`.
        unsafe { rt().memory.register(hostPtr.cast(), sizeBytes as u64, flags) }
            .map_err(|e| memory_error("hostPtr", e))
    }

    /// Unmaps a range from [`hipHostRegister`].
    fn hipHostUnregister(hostPtr: *mut c_void) {
        rt().memory.unregister(hostPtr as u64).map_err(|e| Fail {
            code: hipError_t::hipErrorHostMemoryNotRegistered,
            message: format!("hostPtr: {e}"),
        })
    }

    /// The device address of pinned or registered host memory: the same
    /// address.
    fn hipHostGetDevicePointer(devPtr: *mut *mut c_void, hstPtr: *mut c_void, _flags: c_uint) {
        match rt().memory.region_of(hstPtr as u64) {
            Some((_, _, RegionKind::Pinned | RegionKind::Registered, _)) => {
                // SAFETY: `devPtr` is null or a valid `void**`.
                unsafe { put(devPtr, hstPtr, "devPtr") }
            }
            _ => invalid(format!("{hstPtr:p} is not pinned or registered host memory")),
        }
    }

    /// The flags pinned memory was allocated with.
    fn hipHostGetFlags(flagsPtr: *mut c_uint, hostPtr: *mut c_void) {
        match rt().memory.region_of(hostPtr as u64) {
            // SAFETY: `flagsPtr` is null or a valid `unsigned*`.
            Some((_, _, RegionKind::Pinned | RegionKind::Registered, f)) => unsafe { put(flagsPtr, f, "flagsPtr") },
            _ => invalid(format!("{hostPtr:p} is not pinned or registered host memory")),
        }
    }

    /// Managed memory: host memory every device maps at its host address
    /// (so the host may read and write it directly).
    fn hipMallocManaged(dev_ptr: *mut *mut c_void, size: usize, flags: c_uint) {
        rt().current()?;
        if dev_ptr.is_null() || size == 0 {
            return invalid("`dev_ptr` is null or `size` is 0");
        }
        let p = rt().memory
            .allocate_host(size as u64, RegionKind::Managed, flags)
            .map_err(|e| memory_error("allocation", e))?;
        // SAFETY: non-null and a valid `void**` by the contract.
        unsafe { put(dev_ptr, p.cast(), "dev_ptr") }
    }

    /// Accepted: managed memory needs no advice.
    fn hipMemAdvise(dev_ptr: *const c_void, count: usize, _advice: hip_sys::hipMemoryAdvise, _device: c_int) {
        managed_range(dev_ptr, count)
    }

    /// Accepted: managed memory is where every device reads it.
    fn hipMemPrefetchAsync(dev_ptr: *const c_void, count: usize, _device: c_int, stream: hipStream_t) {
        super::stream::stream(stream)?;
        managed_range(dev_ptr, count)
    }

    /// Accepted: managed memory is visible to every stream.
    fn hipStreamAttachMemAsync(stream: hipStream_t, dev_ptr: *mut c_void, length: usize, _flags: c_uint) {
        super::stream::stream(stream)?;
        managed_range(dev_ptr, length.max(1))
    }

    /// What a pointer is: device memory (with its device), pinned or
    /// registered host memory, managed memory, or unregistered host memory
    /// (`hipMemoryTypeUnregistered`). An unmapped address in the device
    /// range is `hipErrorInvalidValue`.
    fn hipPointerGetAttributes(attributes: *mut hipPointerAttribute_t, ptr: *const c_void) {
        let a = attributes_of(ptr)?;
        // SAFETY: `attributes` is null or a valid `hipPointerAttribute_t*`.
        unsafe { put(attributes, a, "attributes") }
    }

    /// One attribute of a pointer.
    fn hipPointerGetAttribute(data: *mut c_void, attribute: hipPointer_attribute, ptr: hipDeviceptr_t) {
        let a = attributes_of(ptr)?;
        let region = rt().memory.region_of(ptr as u64);
        type P = hipPointer_attribute;
        // SAFETY: `data` is null or points to the attribute's type, as HIP
        // documents for each; `put` rejects null.
        unsafe {
            match attribute {
                P::HIP_POINTER_ATTRIBUTE_CONTEXT => put(data.cast(), super::device::context_handle(a.device), "data"),
                P::HIP_POINTER_ATTRIBUTE_MEMORY_TYPE => put(data.cast::<c_uint>(), a.type_.0, "data"),
                P::HIP_POINTER_ATTRIBUTE_DEVICE_POINTER => put(data.cast(), a.devicePointer, "data"),
                P::HIP_POINTER_ATTRIBUTE_HOST_POINTER => put(data.cast(), a.hostPointer, "data"),
                P::HIP_POINTER_ATTRIBUTE_IS_MANAGED => put(data.cast::<c_int>(), a.isManaged, "data"),
                P::HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL => put(data.cast::<c_int>(), a.device, "data"),
                P::HIP_POINTER_ATTRIBUTE_MAPPED => put(data.cast::<c_int>(), c_int::from(region.is_some()), "data"),
                P::HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS => put(data.cast::<c_int>(), 1, "data"),
                P::HIP_POINTER_ATTRIBUTE_BUFFER_ID => put(data.cast::<u64>(), region.map_or(0, |r| r.0), "data"),
                P::HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR => {
                    put(data.cast::<*mut c_void>(), region.map_or(std::ptr::null_mut(), |r| r.0 as *mut c_void), "data")
                }
                P::HIP_POINTER_ATTRIBUTE_RANGE_SIZE => put(data.cast::<usize>(), region.map_or(0, |r| r.1 as usize), "data"),
                other => super::unsupported("hipPointerGetAttribute", &format!(" for {other:?}")),
            }
        }
    }

    /// The allocation holding `dptr`: its base and size.
    fn hipMemGetAddressRange(pbase: *mut hipDeviceptr_t, psize: *mut usize, dptr: hipDeviceptr_t) {
        let Some((base, len, _, _)) = rt().memory.region_of(dptr as u64) else {
            return fail(hipError_t::hipErrorNotFound, format!("{dptr:p} is in no allocation"));
        };
        // SAFETY: each is null or a valid pointer; null ones are skipped as
        // ROCm does.
        unsafe {
            if !pbase.is_null() {
                put(pbase, base as hipDeviceptr_t, "pbase")?;
            }
            if !psize.is_null() {
                put(psize, len as usize, "psize")?;
            }
        }
        Ok(())
    }

    /// Copies `sizeBytes` bytes (synchronous).
    fn hipMemcpy(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind) {
        copy(dst as u64, src as u64, sizeBytes, kind)
    }

    /// Copies in stream order (done when it returns, unless capturing).
    fn hipMemcpyAsync(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind, stream: hipStream_t) {
        copy_on(stream, dst as u64, src as u64, sizeBytes, kind)
    }

    /// Host to device.
    fn hipMemcpyHtoD(dst: hipDeviceptr_t, src: *mut c_void, sizeBytes: usize) {
        copy(dst as u64, src as u64, sizeBytes, hipMemcpyKind::hipMemcpyHostToDevice)
    }

    /// Device to host.
    fn hipMemcpyDtoH(dst: *mut c_void, src: hipDeviceptr_t, sizeBytes: usize) {
        copy(dst as u64, src as u64, sizeBytes, hipMemcpyKind::hipMemcpyDeviceToHost)
    }

    /// Device to device.
    fn hipMemcpyDtoD(dst: hipDeviceptr_t, src: hipDeviceptr_t, sizeBytes: usize) {
        copy(dst as u64, src as u64, sizeBytes, hipMemcpyKind::hipMemcpyDeviceToDevice)
    }

    /// Host to device, in stream order.
    fn hipMemcpyHtoDAsync(dst: hipDeviceptr_t, src: *mut c_void, sizeBytes: usize, stream: hipStream_t) {
        copy_on(stream, dst as u64, src as u64, sizeBytes, hipMemcpyKind::hipMemcpyHostToDevice)
    }

    /// Device to host, in stream order.
    fn hipMemcpyDtoHAsync(dst: *mut c_void, src: hipDeviceptr_t, sizeBytes: usize, stream: hipStream_t) {
        copy_on(stream, dst as u64, src as u64, sizeBytes, hipMemcpyKind::hipMemcpyDeviceToHost)
    }

    /// Device to device, in stream order.
    fn hipMemcpyDtoDAsync(dst: hipDeviceptr_t, src: hipDeviceptr_t, sizeBytes: usize, stream: hipStream_t) {
        copy_on(stream, dst as u64, src as u64, sizeBytes, hipMemcpyKind::hipMemcpyDeviceToDevice)
    }

    /// A 2D copy: `height` rows of `width` bytes.
    fn hipMemcpy2D(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind) {
        copy_2d(dst as u64, dpitch, src as u64, spitch, width, height, kind)
    }

    /// A 2D copy in stream order.
    fn hipMemcpy2DAsync(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) {
        ends(kind)?;
        let (d, s) = (dst as u64, src as u64);
        enqueue(stream, move || copy_2d(d, dpitch, s, spitch, width, height, kind))
    }

    /// A copy between devices' memory.
    fn hipMemcpyPeer(dst: *mut c_void, dstDeviceId: c_int, src: *const c_void, srcDeviceId: c_int, sizeBytes: usize) {
        rt().device(dstDeviceId)?;
        rt().device(srcDeviceId)?;
        copy(dst as u64, src as u64, sizeBytes, hipMemcpyKind::hipMemcpyDeviceToDevice)
    }

    /// A copy between devices' memory, in stream order.
    fn hipMemcpyPeerAsync(dst: *mut c_void, dstDeviceId: c_int, src: *const c_void, srcDevice: c_int, sizeBytes: usize, stream: hipStream_t) {
        rt().device(dstDeviceId)?;
        rt().device(srcDevice)?;
        copy_on(stream, dst as u64, src as u64, sizeBytes, hipMemcpyKind::hipMemcpyDeviceToDevice)
    }

    /// Sets `sizeBytes` bytes to `value`'s low byte.
    fn hipMemset(dst: *mut c_void, value: c_int, sizeBytes: usize) {
        fill(dst as u64, &[value as u8], sizeBytes)
    }

    /// [`hipMemset`] in stream order.
    fn hipMemsetAsync(dst: *mut c_void, value: c_int, sizeBytes: usize, stream: hipStream_t) {
        fill_on(stream, dst as u64, vec![value as u8], sizeBytes)
    }

    /// Sets `count` bytes.
    fn hipMemsetD8(dest: hipDeviceptr_t, value: c_uchar, count: usize) {
        fill(dest as u64, &[value], count)
    }

    /// Sets `count` 16-bit values.
    fn hipMemsetD16(dest: hipDeviceptr_t, value: c_ushort, count: usize) {
        fill(dest as u64, &value.to_le_bytes(), count)
    }

    /// Sets `count` 32-bit values.
    fn hipMemsetD32(dest: hipDeviceptr_t, value: c_int, count: usize) {
        fill(dest as u64, &value.to_le_bytes(), count)
    }

    /// [`hipMemsetD8`] in stream order.
    fn hipMemsetD8Async(dest: hipDeviceptr_t, value: c_uchar, count: usize, stream: hipStream_t) {
        fill_on(stream, dest as u64, vec![value], count)
    }

    /// [`hipMemsetD16`] in stream order.
    fn hipMemsetD16Async(dest: hipDeviceptr_t, value: c_ushort, count: usize, stream: hipStream_t) {
        fill_on(stream, dest as u64, value.to_le_bytes().to_vec(), count)
    }

    /// [`hipMemsetD32`] in stream order.
    fn hipMemsetD32Async(dst: hipDeviceptr_t, value: c_int, count: usize, stream: hipStream_t) {
        fill_on(stream, dst as u64, value.to_le_bytes().to_vec(), count)
    }

    /// Sets `height` rows of `width` bytes, rows `pitch` apart.
    fn hipMemset2D(dst: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) {
        fill_2d(dst as u64, pitch, &[value as u8], width, height)
    }

    /// [`hipMemset2D`] in stream order.
    fn hipMemset2DAsync(dst: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, stream: hipStream_t) {
        let d = dst as u64;
        enqueue(stream, move || fill_2d(d, pitch, &[value as u8], width, height))
    }
}

fn host_malloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> R {
    rt().any_device()?;
    if ptr.is_null() {
        return invalid("`ptr` is null");
    }
    if size == 0 {
        // SAFETY: non-null and a valid `void**` by the contract.
        return unsafe { put(ptr, std::ptr::null_mut(), "ptr") };
    }
    let p = rt()
        .memory
        .allocate_host(size as u64, RegionKind::Pinned, flags)
        .map_err(|e| memory_error("allocation", e))?;
    // SAFETY: non-null and a valid `void**` by the contract.
    unsafe { put(ptr, p.cast(), "ptr") }
}

fn host_free(ptr: *mut c_void) -> R {
    if ptr.is_null() {
        return Ok(());
    }
    rt().memory
        .remove(ptr as u64, |k| k == RegionKind::Pinned)
        .map_err(|e| memory_error("hipHostFree", e))
}

fn managed_range(ptr: *const c_void, count: usize) -> R {
    match rt().memory.region_of(ptr as u64) {
        Some((base, len, RegionKind::Managed, _)) if (ptr as u64) + count as u64 <= base + len => {
            Ok(())
        }
        _ => invalid(format!("{ptr:p} (+{count} bytes) is not managed memory")),
    }
}

fn attributes_of(ptr: *const c_void) -> R<hipPointerAttribute_t> {
    let r = rt();
    let addr = ptr as u64;
    let current = r.current().map(|d| d.ordinal).unwrap_or(0);
    let mut a = hipPointerAttribute_t {
        type_: hipMemoryType::hipMemoryTypeUnregistered,
        device: current,
        devicePointer: std::ptr::null_mut(),
        hostPointer: std::ptr::null_mut(),
        isManaged: 0,
        allocationFlags: 0,
    };
    match r.memory.region_of(addr) {
        Some((_, _, kind, flags)) => {
            a.allocationFlags = flags;
            match kind {
                RegionKind::Device(d) => {
                    a.type_ = hipMemoryType::hipMemoryTypeDevice;
                    a.device = d;
                    a.devicePointer = ptr.cast_mut();
                }
                RegionKind::Pinned | RegionKind::Registered => {
                    a.type_ = hipMemoryType::hipMemoryTypeHost;
                    a.devicePointer = ptr.cast_mut();
                    a.hostPointer = ptr.cast_mut();
                }
                RegionKind::Managed => {
                    a.type_ = hipMemoryType::hipMemoryTypeManaged;
                    a.isManaged = 1;
                    a.devicePointer = ptr.cast_mut();
                    a.hostPointer = ptr.cast_mut();
                }
            }
        }
        None if crate::memory::is_device_address(addr) => {
            return invalid(format!(
                "{addr:#x} is in the device range but in no allocation"
            ));
        }
        None if ptr.is_null() => return invalid("`ptr` is null"),
        None => {}
    }
    Ok(a)
}
