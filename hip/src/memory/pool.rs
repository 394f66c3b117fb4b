//! [`MemPool`]: memory pools for stream-ordered allocation.

use crate::device::Device;
use crate::error;
use crate::error::Result;
use crate::result;
use hip_sys as sys;
use std::fmt;
use std::sync::Arc;

/// A memory pool for stream-ordered allocation ([`Stream::alloc_from_pool`](crate::Stream::alloc_from_pool)).
///
/// Cheap to clone (shared handle). Buffers from the pool keep it alive.
///
/// **Threads**: `Send + Sync`: pool handles are used by thread-safe calls only.
#[derive(Clone)]
pub struct MemPool {
    pub(super) inner: Arc<PoolInner>,
}

pub(super) struct PoolInner {
    pub(super) raw: sys::hipMemPool_t,
    pub(super) device: Arc<Device>,
    owned: bool,
}

// SAFETY: a pool handle is an opaque runtime handle; the runtime is thread-safe.
unsafe impl Send for PoolInner {}
// SAFETY: as above.
unsafe impl Sync for PoolInner {}

impl fmt::Debug for MemPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemPool")
            .field("raw", &self.inner.raw)
            .field("device", &self.inner.device.ordinal())
            .field("owned", &self.inner.owned)
            .finish()
    }
}

impl MemPool {
    /// The device's default pool (`hipDeviceGetDefaultMemPool`), the one
    /// [`Stream::alloc`](crate::Stream::alloc) uses unless changed.
    pub fn default_for(device: &Arc<Device>) -> Result<MemPool> {
        let raw = result::device_get_default_mem_pool(device.raw_ordinal())?;
        Ok(MemPool {
            inner: Arc::new(PoolInner {
                raw,
                device: device.clone(),
                owned: false,
            }),
        })
    }

    /// A new pool of device memory on `device` (`hipMemPoolCreate`).
    pub fn new(device: &Arc<Device>) -> Result<MemPool> {
        // SAFETY: hipMemPoolProps is plain data; all-zero is its documented
        // "defaults" state, completed below.
        let mut props: sys::hipMemPoolProps = unsafe { std::mem::zeroed() };
        props.allocType = sys::hipMemAllocationType::hipMemAllocationTypePinned;
        props.handleTypes = sys::hipMemAllocationHandleType::hipMemHandleTypeNone;
        props.location.type_ = sys::hipMemLocationType::hipMemLocationTypeDevice;
        props.location.id = device.raw_ordinal();
        device.bind()?;
        let raw = result::mem_pool_create(&props)?;
        Ok(MemPool {
            inner: Arc::new(PoolInner {
                raw,
                device: device.clone(),
                owned: true,
            }),
        })
    }

    /// The raw handle.
    pub fn as_raw(&self) -> sys::hipMemPool_t {
        self.inner.raw
    }

    /// Keeps up to `bytes` of freed memory reserved instead of returning it
    /// at synchronisation (`hipMemPoolAttrReleaseThreshold`).
    pub fn set_release_threshold(&self, bytes: u64) -> Result<()> {
        // SAFETY: a live pool; this attribute's value is a u64.
        unsafe {
            result::mem_pool_set_attribute_u64(
                self.inner.raw,
                sys::hipMemPoolAttr::hipMemPoolAttrReleaseThreshold,
                bytes,
            )
        }
    }

    /// Releases reserved memory down to `keep_bytes` (`hipMemPoolTrimTo`).
    pub fn trim_to(&self, keep_bytes: usize) -> Result<()> {
        // SAFETY: a live pool.
        unsafe { result::mem_pool_trim_to(self.inner.raw, keep_bytes) }
    }
}

impl Drop for PoolInner {
    fn drop(&mut self) {
        if self.owned {
            let raw = crate::SendPtr(self.raw);
            self.device.release_outside_captures(move |held| {
                // SAFETY: we created the pool, and no buffer from it is
                // left (each holds a clone of this Arc).
                error::record_result(unsafe { result::mem_pool_destroy(raw.get(), held) });
            });
        }
    }
}
