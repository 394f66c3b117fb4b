//! Device memory: the emulated GPUs' address space, backed by host memory.
//!
//! Device `N`'s allocations live at [`DEVICE_BASE`]` + N * `[`DEVICE_SPAN`]
//! upward: above every Linux user-space address (47 bits), below the LDS
//! and scratch apertures ([`SHARED_APERTURE_BASE`] at 2^48,
//! [`PRIVATE_APERTURE_BASE`] at 2^49). Each allocation is page-aligned,
//! backed by a zeroed host buffer that never moves, and never reuses an
//! address once freed (a bump allocator: a stale pointer faults instead of
//! reaching a newer allocation).
//!
//! Pinned host memory (`hipHostMalloc`) and registered host ranges
//! (`hipHostRegister`) are mapped at their host addresses, since an AMD GPU
//! reaches them there.
//!
//! One read-write lock guards the map. A dispatch holds it shared for its
//! whole run ([`AddressSpace::dispatch`]), so nothing is unmapped while
//! kernels run; `free` takes it exclusively and so waits for running
//! dispatches, as HIP's `hipFree` waits for the device.
//!
//! [`SHARED_APERTURE_BASE`]: crate::isa::SHARED_APERTURE_BASE
//! [`PRIVATE_APERTURE_BASE`]: crate::isa::PRIVATE_APERTURE_BASE

use crate::isa::{Mapping, Memory};
use std::alloc::{self, Layout};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The first device address of device 0.
pub const DEVICE_BASE: u64 = 0x8000_0000_0000;

/// The address range each device's allocations get (1 TiB).
pub const DEVICE_SPAN: u64 = 1 << 40;

/// The end of the device address ranges: the LDS aperture's base.
pub const DEVICE_END: u64 = crate::isa::SHARED_APERTURE_BASE;

/// The alignment of every device allocation and its host buffer.
pub const PAGE: u64 = 4096;

/// Whether `addr` lies in the range where device allocations live (mapped
/// or not).
pub fn is_device_address(addr: u64) -> bool {
    (DEVICE_BASE..DEVICE_END).contains(&addr)
}

/// What a mapped range is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// A device allocation of the given device (`hipMalloc`, a pool, a
    /// loaded code object, a kernarg segment).
    Device(i32),
    /// Pinned host memory from `hipHostMalloc`, at its host address.
    Pinned,
    /// Host memory the caller registered (`hipHostRegister`), at its host
    /// address; not owned.
    Registered,
    /// Managed memory (`hipMallocManaged`): a device-range allocation the
    /// host reads and writes at the same address is impossible here, so it
    /// is host memory mapped at its host address.
    Managed,
}

/// One mapped range.
#[derive(Debug)]
pub struct Region {
    /// First address (device address; for host kinds, the host address).
    pub base: u64,
    /// Bytes requested.
    pub len: u64,
    /// What it is.
    pub kind: RegionKind,
    /// The allocation flags given when it was made.
    pub flags: u32,
    /// The host buffer holding its bytes.
    host: *mut u8,
    /// The layout it was allocated with, when this module owns the buffer.
    owned: Option<Layout>,
}

impl Region {
    /// The host address of its first byte.
    pub fn host(&self) -> *mut u8 {
        self.host
    }

    /// Whether `[addr, addr + len)` lies inside this region.
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        addr >= self.base
            && addr
                .checked_add(len)
                .is_some_and(|end| end <= self.base + self.len)
    }
}

// SAFETY: the host buffer is owned by the region (or, for registered
// ranges, by the caller who promised it stays valid until unregistered);
// every access through it goes through the address-space lock or through a
// dispatch that holds that lock shared, so moving or sharing the record
// between threads adds no aliasing the lock does not already govern.
unsafe impl Send for Region {}
// SAFETY: as for `Send`: `&Region` only exposes the pointer value.
unsafe impl Sync for Region {}

impl Drop for Region {
    fn drop(&mut self) {
        if let Some(layout) = self.owned {
            // SAFETY: `host` was returned by `alloc_zeroed(layout)` in
            // `allocate_owned` and is freed once, here.
            unsafe { alloc::dealloc(self.host, layout) };
        }
    }
}

/// Why a memory operation was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemoryError {
    /// No host memory for the backing buffer.
    OutOfMemory {
        /// Bytes asked for.
        bytes: u64,
    },
    /// The device's address range is used up.
    AddressSpaceExhausted {
        /// The device.
        device: i32,
    },
    /// An address (or part of the range from it) that no mapping holds.
    Unmapped {
        /// The address.
        address: u64,
        /// The bytes from it that were to be accessed.
        len: u64,
    },
    /// A free or unregister of an address that does not start a range of
    /// the right kind.
    NotAnAllocation {
        /// The address.
        address: u64,
    },
    /// A host range that overlaps one already registered or pinned.
    AlreadyRegistered {
        /// The address.
        address: u64,
    },
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryError::OutOfMemory { bytes } => {
                write!(f, "out of memory: no host memory backs {bytes} bytes")
            }
            MemoryError::AddressSpaceExhausted { device } => {
                write!(f, "device {device}'s 1 TiB address range is used up")
            }
            MemoryError::Unmapped { address, len } => write!(
                f,
                "the range of {len} bytes at {address:#x} is not (wholly) inside one allocation of \
                 device or pinned host memory"
            ),
            MemoryError::NotAnAllocation { address } => {
                write!(f, "{address:#x} is not the start of an allocation")
            }
            MemoryError::AlreadyRegistered { address } => write!(
                f,
                "the host range at {address:#x} overlaps memory already registered or pinned"
            ),
        }
    }
}

impl std::error::Error for MemoryError {}

#[derive(Debug, Default)]
struct Map {
    regions: BTreeMap<u64, Region>,
    /// Next free address of each device, by device.
    next: Vec<u64>,
    /// Bytes allocated on each device.
    used: Vec<u64>,
}

/// The address space of every emulated device, with pinned and registered
/// host memory.
#[derive(Debug, Default)]
pub struct AddressSpace {
    map: RwLock<Map>,
}

/// The address space held shared for one dispatch: it implements
/// [`Memory`], and nothing is unmapped while it lives.
#[derive(Debug)]
pub struct DispatchView<'a> {
    map: RwLockReadGuard<'a, Map>,
}

impl Memory for DispatchView<'_> {
    fn mapping(&self, addr: u64) -> Option<Mapping> {
        find(&self.map, addr, 1).map(|r| Mapping {
            base: r.base,
            len: r.len,
            host: r.host,
        })
    }
}

fn find(map: &Map, addr: u64, len: u64) -> Option<&Region> {
    let (_, r) = map.regions.range(..=addr).next_back()?;
    r.contains(addr, len.max(1)).then_some(r)
}

impl AddressSpace {
    /// An empty address space.
    pub fn new() -> AddressSpace {
        AddressSpace::default()
    }

    fn read(&self) -> RwLockReadGuard<'_, Map> {
        self.map.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Map> {
        self.map.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Holds the map shared for a dispatch (see the module docs).
    pub fn dispatch(&self) -> DispatchView<'_> {
        DispatchView { map: self.read() }
    }

    /// Allocates `bytes` (at least 1) of zeroed device memory on `device`.
    pub fn allocate(&self, device: i32, bytes: u64, flags: u32) -> Result<u64, MemoryError> {
        let dev =
            usize::try_from(device).map_err(|_| MemoryError::AddressSpaceExhausted { device })?;
        let size = bytes.max(1);
        let span = size
            .checked_add(PAGE - 1)
            .map(|s| s & !(PAGE - 1))
            .ok_or(MemoryError::OutOfMemory { bytes })?;
        let region_start = DEVICE_BASE + dev as u64 * DEVICE_SPAN;
        if region_start >= DEVICE_END {
            return Err(MemoryError::AddressSpaceExhausted { device });
        }
        let host = allocate_owned(span)?;
        let mut map = self.write();
        if map.next.len() <= dev {
            map.next.resize(dev + 1, 0);
            map.used.resize(dev + 1, 0);
        }
        let base = if map.next[dev] == 0 {
            region_start
        } else {
            map.next[dev]
        };
        if base + span > region_start + DEVICE_SPAN {
            drop(map);
            // SAFETY: `host.0` came from `allocate_owned(span)` just above and
            // was not handed out.
            unsafe { alloc::dealloc(host.0, host.1) };
            return Err(MemoryError::AddressSpaceExhausted { device });
        }
        // Leave one unmapped page after each allocation, so that running
        // off its end faults rather than reaching the next one.
        map.next[dev] = base + span + PAGE;
        map.used[dev] += span;
        map.regions.insert(
            base,
            Region {
                base,
                len: size,
                kind: RegionKind::Device(device),
                flags,
                host: host.0,
                owned: Some(host.1),
            },
        );
        Ok(base)
    }

    /// Allocates `bytes` of zeroed host memory mapped at its own address
    /// (`hipHostMalloc`, `hipMallocManaged`); returns the host pointer.
    pub fn allocate_host(
        &self,
        bytes: u64,
        kind: RegionKind,
        flags: u32,
    ) -> Result<*mut u8, MemoryError> {
        let size = bytes.max(1);
        let span = size
            .checked_add(PAGE - 1)
            .map(|s| s & !(PAGE - 1))
            .ok_or(MemoryError::OutOfMemory { bytes })?;
        let (host, layout) = allocate_owned(span)?;
        let base = host as u64;
        self.write().regions.insert(
            base,
            Region {
                base,
                len: size,
                kind,
                flags,
                host,
                owned: Some(layout),
            },
        );
        Ok(host)
    }

    /// Maps the caller's host range `[ptr, ptr + bytes)` at its own address
    /// (`hipHostRegister`).
    ///
    /// # Safety
    ///
    /// The range must stay valid for reads and writes until
    /// [`unregister`](Self::unregister) is called for `ptr`.
    pub unsafe fn register(&self, ptr: *mut u8, bytes: u64, flags: u32) -> Result<(), MemoryError> {
        let base = ptr as u64;
        let mut map = self.write();
        let end = base.saturating_add(bytes.max(1));
        let overlaps = map
            .regions
            .range(..end)
            .next_back()
            .is_some_and(|(_, r)| r.base + r.len > base);
        if overlaps {
            return Err(MemoryError::AlreadyRegistered { address: base });
        }
        map.regions.insert(
            base,
            Region {
                base,
                len: bytes.max(1),
                kind: RegionKind::Registered,
                flags,
                host: ptr,
                owned: None,
            },
        );
        Ok(())
    }

    /// Removes the registered range starting at `ptr`.
    pub fn unregister(&self, ptr: u64) -> Result<(), MemoryError> {
        self.remove(ptr, |k| k == RegionKind::Registered)
    }

    /// Frees the allocation starting at `addr` whose kind `accept` allows;
    /// waits for running dispatches.
    pub fn remove(
        &self,
        addr: u64,
        accept: impl Fn(RegionKind) -> bool,
    ) -> Result<(), MemoryError> {
        let mut map = self.write();
        match map.regions.get(&addr) {
            Some(r) if accept(r.kind) => {}
            _ => return Err(MemoryError::NotAnAllocation { address: addr }),
        }
        let region = map.regions.remove(&addr);
        if let Some(Region {
            kind: RegionKind::Device(d),
            len,
            ..
        }) = &region
        {
            let span = (len + PAGE - 1) & !(PAGE - 1);
            if let Some(u) = map.used.get_mut(*d as usize) {
                *u = u.saturating_sub(span);
            }
        }
        drop(map);
        drop(region);
        Ok(())
    }

    /// Frees every device allocation of `device` (`hipDeviceReset`).
    pub fn remove_device(&self, device: i32) {
        let mut map = self.write();
        let doomed: Vec<u64> = map
            .regions
            .values()
            .filter(|r| r.kind == RegionKind::Device(device))
            .map(|r| r.base)
            .collect();
        let mut dropped = Vec::with_capacity(doomed.len());
        for b in doomed {
            dropped.extend(map.regions.remove(&b));
        }
        if let Some(u) = map.used.get_mut(device as usize) {
            *u = 0;
        }
        drop(map);
        drop(dropped);
    }

    /// Bytes allocated on `device` (whole pages).
    pub fn used(&self, device: i32) -> u64 {
        self.read().used.get(device as usize).copied().unwrap_or(0)
    }

    /// The region holding `addr`: (base, len, kind, flags).
    pub fn region_of(&self, addr: u64) -> Option<(u64, u64, RegionKind, u32)> {
        find(&self.read(), addr, 1).map(|r| (r.base, r.len, r.kind, r.flags))
    }

    /// Runs `f` with the host addresses of the given ranges: each
    /// `(address, len, must_be_mapped)`; a range inside a mapped region is
    /// translated to its host buffer; one in the device range but not
    /// mapped, or one with `must_be_mapped` set that no region holds, is an
    /// error naming its address. Other addresses are host memory, passed
    /// through unchanged. The map is held shared while `f` runs.
    pub fn with_host<R>(
        &self,
        ranges: &[(u64, u64, bool)],
        f: impl FnOnce(&[*mut u8]) -> R,
    ) -> Result<R, MemoryError> {
        let map = self.read();
        let mut out = Vec::with_capacity(ranges.len());
        for &(addr, len, must) in ranges {
            match find(&map, addr, len) {
                Some(r) => out.push(r.host.wrapping_add((addr - r.base) as usize)),
                None if must
                    || is_device_address(addr)
                    || is_device_address(addr.wrapping_add(len)) =>
                {
                    return Err(MemoryError::Unmapped { address: addr, len })
                }
                None => out.push(addr as *mut u8),
            }
        }
        Ok(f(&out))
    }
}

fn allocate_owned(span: u64) -> Result<(*mut u8, Layout), MemoryError> {
    let size = usize::try_from(span).map_err(|_| MemoryError::OutOfMemory { bytes: span })?;
    let layout = Layout::from_size_align(size, PAGE as usize)
        .map_err(|_| MemoryError::OutOfMemory { bytes: span })?;
    // SAFETY: `layout` has a non-zero size (`span` >= PAGE).
    let host = unsafe { alloc::alloc_zeroed(layout) };
    if host.is_null() {
        return Err(MemoryError::OutOfMemory { bytes: span });
    }
    Ok((host, layout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_page_aligned_in_the_device_range_and_mapped() {
        let space = AddressSpace::new();
        let a = space.allocate(0, 10, 0).unwrap();
        let b = space.allocate(1, 5000, 0).unwrap();
        assert_eq!(a, DEVICE_BASE);
        assert_eq!(b, DEVICE_BASE + DEVICE_SPAN);
        assert_eq!(a % PAGE, 0);
        let view = space.dispatch();
        let m = view.mapping(a + 9).unwrap();
        assert_eq!((m.base, m.len), (a, 10));
        assert!(view.mapping(a + 10).is_none());
        drop(view);
        space.remove(a, |_| true).unwrap();
        assert!(space.dispatch().mapping(a).is_none());
        assert!(space.remove(a, |_| true).is_err());
        let c = space.allocate(0, 1, 0).unwrap();
        assert_ne!(c, a, "addresses are not reused");
    }

    #[test]
    fn with_host_checks_device_ranges_and_passes_host_ones() {
        let space = AddressSpace::new();
        let a = space.allocate(0, 64, 0).unwrap();
        let r = space.with_host(&[(a, 64, true)], |p| p[0] as u64);
        assert!(r.is_ok());
        let e = space.with_host(&[(a + 1, 64, true)], |_| ()).unwrap_err();
        assert_eq!(
            e,
            MemoryError::Unmapped {
                address: a + 1,
                len: 64
            }
        );
        assert!(e.to_string().contains(&format!("{:#x}", a + 1)));
        let host = 0x1000u64;
        assert_eq!(
            space
                .with_host(&[(host, 8, false)], |p| p[0] as u64)
                .unwrap(),
            host
        );
        assert!(space.with_host(&[(host, 8, true)], |_| ()).is_err());
    }
}
