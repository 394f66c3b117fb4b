//! Devices: which are emulated, their properties and attributes, the
//! current device of each thread, primary contexts, versions and limits.
//!
//! The properties are those the real parts report under ROCm 6.4:
//!
//! | | gfx942 | gfx1100 |
//! | --- | --- | --- |
//! | name | AMD Instinct MI300X | Radeon RX 7900 XTX |
//! | `gcnArchName` | `gfx942:sramecc+:xnack-` | `gfx1100` |
//! | `multiProcessorCount` | 304 CUs | 48 (HIP counts WGPs on RDNA in WGP mode; 96 CUs, `hipDeviceAttributePhysicalMultiProcessorCount`) |
//! | wave | 64 | 32 |
//! | memory | 192 GiB, HBM3, 8192-bit, 1.3 GHz | 24 GiB, GDDR6, 384-bit, 1.25 GHz |
//! | clock | 2.1 GHz | 2.5 GHz |
//! | L2 | 4 MiB | 6 MiB |
//! | compute capability | 9.4 | 11.0 |
//! | PCI device id | 0x74a1 | 0x744c |
//!
//! Both: 1,024 threads per block (1,024 in each of x, y, z), 64 KiB of LDS
//! per block and per CU, 65,536 registers per block, 2,048 threads per CU,
//! grid limits (2^31-1, 65,536, 65,536). `totalGlobalMem` is the real
//! part's; allocations are host memory taken on demand, so what can
//! actually be allocated is what the host has.

use super::{fail, invalid, lock, put, rt, Runtime, R};
use crate::isa::Target;
use hip_sys::{
    hipCtx_t, hipDeviceAttribute_t as A, hipDeviceProp_tR0600, hipDevice_t, hipError_t, hipLimit_t,
    hipUUID,
};
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_uint, CStr};
use std::sync::Mutex;

/// The environment variable that chooses the emulated devices.
pub const DEVICES_VAR: &str = "HIP_EMU_DEVICES";

/// The HIP version reported by `hipRuntimeGetVersion` and
/// `hipDriverGetVersion`: ROCm 6.4.3's (`HIP_VERSION` = major * 10^7 +
/// minor * 10^5 + patch).
pub(crate) const HIP_VERSION: c_int = 60_443_483;

/// What a real part reports, for one emulated processor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceSpec {
    /// Marketing name (`hipDeviceProp_t::name`).
    pub name: &'static str,
    /// `multiProcessorCount`.
    pub multiprocessors: i32,
    /// Compute units.
    pub physical_cus: i32,
    /// `clockRate`, kHz.
    pub clock_khz: i32,
    /// `memoryClockRate`, kHz.
    pub memory_clock_khz: i32,
    /// `memoryBusWidth`, bits.
    pub memory_bus_width: i32,
    /// `l2CacheSize`, bytes.
    pub l2_bytes: i32,
    /// `totalGlobalMem`, bytes.
    pub total_memory: u64,
    /// `major`, `minor`.
    pub compute_capability: (i32, i32),
    /// `pciDeviceID`.
    pub pci_device_id: i32,
    /// LDS per CU (or WGP), bytes.
    pub lds_per_cu: u32,
}

impl DeviceSpec {
    /// The spec of `target`'s part.
    pub fn of(target: Target) -> DeviceSpec {
        match target {
            Target::Gfx942 => DeviceSpec {
                name: "AMD Instinct MI300X",
                multiprocessors: 304,
                physical_cus: 304,
                clock_khz: 2_100_000,
                memory_clock_khz: 1_300_000,
                memory_bus_width: 8192,
                l2_bytes: 4 << 20,
                total_memory: 192 << 30,
                compute_capability: (9, 4),
                pci_device_id: 0x74a1,
                lds_per_cu: 64 << 10,
            },
            Target::Gfx1100 => DeviceSpec {
                name: "Radeon RX 7900 XTX",
                multiprocessors: 48,
                physical_cus: 96,
                clock_khz: 2_500_000,
                memory_clock_khz: 1_250_000,
                memory_bus_width: 384,
                l2_bytes: 6 << 20,
                total_memory: 24 << 30,
                compute_capability: (11, 0),
                pci_device_id: 0x744c,
                lds_per_cu: 64 << 10,
            },
        }
    }
}

/// One emulated device.
#[derive(Debug)]
pub(crate) struct Device {
    pub(crate) ordinal: i32,
    pub(crate) target: Target,
    pub(crate) spec: DeviceSpec,
    /// The handle of its null stream.
    pub(crate) default_stream: usize,
    /// The handle of its default memory pool.
    pub(crate) default_pool: usize,
    /// The pool `hipMallocAsync` uses (`hipDeviceSetMemPool`).
    pub(crate) current_pool: Mutex<usize>,
    /// Stack size, printf FIFO size, malloc heap size.
    pub(crate) limits: Mutex<[usize; 3]>,
    /// Primary context: retain count, flags.
    pub(crate) primary: Mutex<(u32, u32)>,
    /// `hipSetDeviceFlags`.
    pub(crate) flags: Mutex<u32>,
    /// Peers whose memory this device may access.
    pub(crate) peers: Mutex<Vec<i32>>,
}

impl Device {
    pub(crate) fn new(
        ordinal: i32,
        target: Target,
        default_stream: usize,
        default_pool: usize,
    ) -> Device {
        Device {
            ordinal,
            target,
            spec: DeviceSpec::of(target),
            default_stream,
            default_pool,
            current_pool: Mutex::new(default_pool),
            limits: Mutex::new([1024, 4 << 20, 8 << 20]),
            primary: Mutex::new((0, 0)),
            flags: Mutex::new(0),
            peers: Mutex::new(Vec::new()),
        }
    }

    /// The value of device attribute `attr`.
    fn attribute(&self, attr: A) -> Option<i64> {
        let s = &self.spec;
        let wave = self.target.wave_size() as i64;
        Some(match attr {
            A::hipDeviceAttributeEccEnabled => i64::from(self.target == Target::Gfx942),
            A::hipDeviceAttributeAccessPolicyMaxWindowSize => 0,
            A::hipDeviceAttributeAsyncEngineCount => 1,
            A::hipDeviceAttributeCanMapHostMemory => 1,
            A::hipDeviceAttributeCanUseHostPointerForRegisteredMem => 1,
            A::hipDeviceAttributeClockRate => s.clock_khz as i64,
            A::hipDeviceAttributeComputeMode => 0,
            A::hipDeviceAttributeComputePreemptionSupported => 0,
            A::hipDeviceAttributeConcurrentKernels => 1,
            A::hipDeviceAttributeConcurrentManagedAccess => 0,
            A::hipDeviceAttributeCooperativeLaunch => 1,
            A::hipDeviceAttributeCooperativeMultiDeviceLaunch => 0,
            A::hipDeviceAttributeDeviceOverlap => 1,
            A::hipDeviceAttributeDirectManagedMemAccessFromHost => 0,
            A::hipDeviceAttributeGlobalL1CacheSupported => 1,
            A::hipDeviceAttributeHostNativeAtomicSupported => 1,
            A::hipDeviceAttributeIntegrated => 0,
            A::hipDeviceAttributeIsMultiGpuBoard => 0,
            A::hipDeviceAttributeKernelExecTimeout => 0,
            A::hipDeviceAttributeL2CacheSize => s.l2_bytes as i64,
            A::hipDeviceAttributeLocalL1CacheSupported => 1,
            A::hipDeviceAttributeLuid | A::hipDeviceAttributeLuidDeviceNodeMask => 0,
            A::hipDeviceAttributeComputeCapabilityMajor => s.compute_capability.0 as i64,
            A::hipDeviceAttributeComputeCapabilityMinor => s.compute_capability.1 as i64,
            A::hipDeviceAttributeManagedMemory => 1,
            A::hipDeviceAttributeMaxBlocksPerMultiProcessor => 2048 / wave,
            A::hipDeviceAttributeMaxBlockDimX
            | A::hipDeviceAttributeMaxBlockDimY
            | A::hipDeviceAttributeMaxBlockDimZ => 1024,
            A::hipDeviceAttributeMaxGridDimX => i32::MAX as i64,
            A::hipDeviceAttributeMaxGridDimY | A::hipDeviceAttributeMaxGridDimZ => 65536,
            A::hipDeviceAttributeMaxSurface1D
            | A::hipDeviceAttributeMaxSurface1DLayered
            | A::hipDeviceAttributeMaxSurface2D
            | A::hipDeviceAttributeMaxSurface2DLayered
            | A::hipDeviceAttributeMaxSurface3D
            | A::hipDeviceAttributeMaxSurfaceCubemap
            | A::hipDeviceAttributeMaxSurfaceCubemapLayered
            | A::hipDeviceAttributeMaxTexture1DLayered
            | A::hipDeviceAttributeMaxTexture1DMipmap
            | A::hipDeviceAttributeMaxTexture2DGather
            | A::hipDeviceAttributeMaxTexture2DLayered
            | A::hipDeviceAttributeMaxTexture2DLinear
            | A::hipDeviceAttributeMaxTexture2DMipmap
            | A::hipDeviceAttributeMaxTexture3DAlt
            | A::hipDeviceAttributeMaxTextureCubemap
            | A::hipDeviceAttributeMaxTextureCubemapLayered => 0,
            A::hipDeviceAttributeMaxTexture1DWidth => 16384,
            A::hipDeviceAttributeMaxTexture1DLinear => 1 << 27,
            A::hipDeviceAttributeMaxTexture2DWidth | A::hipDeviceAttributeMaxTexture2DHeight => {
                16384
            }
            A::hipDeviceAttributeMaxTexture3DWidth
            | A::hipDeviceAttributeMaxTexture3DHeight
            | A::hipDeviceAttributeMaxTexture3DDepth => 8192,
            A::hipDeviceAttributeMaxThreadsDim => 1024,
            A::hipDeviceAttributeMaxThreadsPerBlock => 1024,
            A::hipDeviceAttributeMaxThreadsPerMultiProcessor => 2048,
            A::hipDeviceAttributeMaxPitch => i32::MAX as i64,
            A::hipDeviceAttributeMemoryBusWidth => s.memory_bus_width as i64,
            A::hipDeviceAttributeMemoryClockRate => s.memory_clock_khz as i64,
            A::hipDeviceAttributeMultiGpuBoardGroupID => 0,
            A::hipDeviceAttributeMultiprocessorCount => s.multiprocessors as i64,
            A::hipDeviceAttributePageableMemoryAccess => 0,
            A::hipDeviceAttributePageableMemoryAccessUsesHostPageTables => 0,
            A::hipDeviceAttributePciBusId => self.pci_bus() as i64,
            A::hipDeviceAttributePciDeviceId => 0,
            A::hipDeviceAttributePciDomainID => 0,
            A::hipDeviceAttributePersistingL2CacheMaxSize => 0,
            A::hipDeviceAttributeMaxRegistersPerBlock => 65536,
            A::hipDeviceAttributeMaxRegistersPerMultiprocessor => 65536,
            A::hipDeviceAttributeReservedSharedMemPerBlock => 0,
            A::hipDeviceAttributeMaxSharedMemoryPerBlock => 65536,
            A::hipDeviceAttributeSharedMemPerBlockOptin => 65536,
            A::hipDeviceAttributeSharedMemPerMultiprocessor => s.lds_per_cu as i64,
            A::hipDeviceAttributeSingleToDoublePrecisionPerfRatio => 0,
            A::hipDeviceAttributeStreamPrioritiesSupported => 1,
            A::hipDeviceAttributeSurfaceAlignment => 256,
            A::hipDeviceAttributeTccDriver => 0,
            A::hipDeviceAttributeTextureAlignment => 256,
            A::hipDeviceAttributeTexturePitchAlignment => 256,
            A::hipDeviceAttributeTotalConstantMemory => i32::MAX as i64,
            A::hipDeviceAttributeTotalGlobalMem => s.total_memory.min(i32::MAX as u64) as i64,
            A::hipDeviceAttributeUnifiedAddressing => 1,
            A::hipDeviceAttributeWarpSize => wave,
            A::hipDeviceAttributeMemoryPoolsSupported => 1,
            A::hipDeviceAttributeVirtualMemoryManagementSupported => 0,
            A::hipDeviceAttributeHostRegisterSupported => 1,
            A::hipDeviceAttributeMemoryPoolSupportedHandleTypes => 0,
            A::hipDeviceAttributeClockInstructionRate => 100_000,
            A::hipDeviceAttributeMaxSharedMemoryPerMultiprocessor => s.lds_per_cu as i64,
            A::hipDeviceAttributeHdpMemFlushCntl | A::hipDeviceAttributeHdpRegFlushCntl => 0,
            A::hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc
            | A::hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim
            | A::hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim
            | A::hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem => 0,
            A::hipDeviceAttributeIsLargeBar => 1,
            A::hipDeviceAttributeAsicRevision => 0,
            A::hipDeviceAttributeCanUseStreamWaitValue => 0,
            A::hipDeviceAttributeImageSupport => 0,
            A::hipDeviceAttributePhysicalMultiProcessorCount => s.physical_cus as i64,
            A::hipDeviceAttributeFineGrainSupport => 1,
            A::hipDeviceAttributeWallClockRate => 100_000,
            _ => return None,
        })
    }

    /// Its PCI bus number: devices sit on buses 0x03, 0x04, ...
    fn pci_bus(&self) -> i32 {
        3 + self.ordinal
    }

    /// `hipDeviceGetPCIBusId`'s text.
    fn pci_bus_id(&self) -> String {
        format!("0000:{:02x}:00.0", self.pci_bus())
    }

    /// The `hipDeviceProp_tR0600` of this device.
    fn properties(&self) -> hipDeviceProp_tR0600 {
        let s = &self.spec;
        // SAFETY: the struct is plain C data (integers, arrays, two
        // pointers): all zeroes is a valid value of it, as C's `= {}` is.
        let mut p: hipDeviceProp_tR0600 = unsafe { std::mem::zeroed() };
        copy_name(&mut p.name, s.name);
        copy_name(
            &mut p.gcnArchName,
            crate::code_object::device_target_id(self.target),
        );
        let uuid = self.uuid();
        for (d, s) in p.uuid.bytes.iter_mut().zip(uuid.bytes) {
            *d = s;
        }
        let a = |attr| self.attribute(attr).unwrap_or(0) as c_int;
        p.totalGlobalMem = s.total_memory as usize;
        p.sharedMemPerBlock = 65536;
        p.regsPerBlock = 65536;
        p.warpSize = self.target.wave_size() as c_int;
        p.memPitch = i32::MAX as usize;
        p.maxThreadsPerBlock = 1024;
        p.maxThreadsDim = [1024, 1024, 1024];
        p.maxGridSize = [i32::MAX, 65536, 65536];
        p.clockRate = s.clock_khz;
        p.totalConstMem = i32::MAX as usize;
        p.major = s.compute_capability.0;
        p.minor = s.compute_capability.1;
        p.textureAlignment = 256;
        p.texturePitchAlignment = 256;
        p.deviceOverlap = 1;
        p.multiProcessorCount = s.multiprocessors;
        p.canMapHostMemory = 1;
        p.maxTexture1D = 16384;
        p.maxTexture1DLinear = 1 << 27;
        p.maxTexture2D = [16384, 16384];
        p.maxTexture3D = [8192, 8192, 8192];
        p.surfaceAlignment = 256;
        p.concurrentKernels = 1;
        p.ECCEnabled = a(A::hipDeviceAttributeEccEnabled);
        p.pciBusID = self.pci_bus();
        p.pciDeviceID = 0;
        p.pciDomainID = 0;
        p.asyncEngineCount = 1;
        p.unifiedAddressing = 1;
        p.memoryClockRate = s.memory_clock_khz;
        p.memoryBusWidth = s.memory_bus_width;
        p.l2CacheSize = s.l2_bytes;
        p.maxThreadsPerMultiProcessor = 2048;
        p.streamPrioritiesSupported = 1;
        p.globalL1CacheSupported = 1;
        p.localL1CacheSupported = 1;
        p.sharedMemPerMultiprocessor = s.lds_per_cu as usize;
        p.regsPerMultiprocessor = 65536;
        p.managedMemory = 1;
        p.hostNativeAtomicSupported = 1;
        p.canUseHostPointerForRegisteredMem = 1;
        p.cooperativeLaunch = 1;
        p.sharedMemPerBlockOptin = 65536;
        p.maxBlocksPerMultiProcessor = a(A::hipDeviceAttributeMaxBlocksPerMultiProcessor);
        p.hostRegisterSupported = 1;
        p.memoryPoolsSupported = 1;
        p.maxSharedMemoryPerMultiProcessor = s.lds_per_cu as usize;
        p.clockInstructionRate = 100_000;
        p.isLargeBar = 1;
        p
    }

    /// A UUID that names the emulated part and its ordinal.
    fn uuid(&self) -> hipUUID {
        let mut bytes = [0 as c_char; 16];
        let text = format!("hip-emu-{}-{:02}", self.target.name(), self.ordinal);
        for (d, s) in bytes.iter_mut().zip(text.bytes()) {
            *d = s as c_char;
        }
        hipUUID { bytes }
    }

    /// The primary context's handle.
    pub(crate) fn context(&self) -> hipCtx_t {
        context_handle(self.ordinal)
    }
}

fn copy_name(dest: &mut [c_char], s: &str) {
    let room = dest.len().saturating_sub(1);
    for (d, b) in dest.iter_mut().zip(s.bytes().take(room)) {
        *d = b as c_char;
    }
}

/// The devices `HIP_EMU_DEVICES` names, and why there are none when it
/// names something else.
pub(crate) fn targets_from_env() -> (Vec<Target>, Option<String>) {
    let value = std::env::var(DEVICES_VAR).unwrap_or_default();
    parse_devices(&value)
}

/// Parses a `HIP_EMU_DEVICES` value.
pub(crate) fn parse_devices(value: &str) -> (Vec<Target>, Option<String>) {
    let value = value.trim();
    if value.is_empty() {
        return (vec![Target::Gfx942], None);
    }
    if value.eq_ignore_ascii_case("none") {
        return (Vec::new(), None);
    }
    let mut out = Vec::new();
    for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match Target::from_name(part) {
            Some(t) => out.push(t),
            None => {
                return (
                    Vec::new(),
                    Some(format!(
                        "{DEVICES_VAR}={value}: `{part}` is not a device hip-emu emulates (gfx942, gfx1100)"
                    )),
                )
            }
        }
    }
    (out, None)
}

/// Context handles: 0x1000 + 16 * ordinal (never a `Handles` value).
const CONTEXT_BASE: usize = 0x1000;

pub(crate) fn context_handle(ordinal: i32) -> hipCtx_t {
    (CONTEXT_BASE + 16 * ordinal as usize) as hipCtx_t
}

thread_local! {
    /// The current device of this thread.
    static CURRENT: Cell<i32> = const { Cell::new(0) };
    /// Devices saved by `hipCtxPushCurrent`.
    static STACK: RefCell<Vec<i32>> = const { RefCell::new(Vec::new()) };
}

impl Runtime {
    /// Device `ordinal`, or `hipErrorInvalidDevice`.
    pub(crate) fn device(&self, ordinal: c_int) -> R<&Device> {
        self.any_device()?;
        match usize::try_from(ordinal)
            .ok()
            .and_then(|i| self.devices.get(i))
        {
            Some(d) => Ok(d),
            None => fail(
                hipError_t::hipErrorInvalidDevice,
                format!(
                    "device {ordinal} does not exist ({} devices)",
                    self.devices.len()
                ),
            ),
        }
    }

    /// Fails with `hipErrorNoDevice` when there is no device.
    pub(crate) fn any_device(&self) -> R {
        if self.devices.is_empty() {
            let why = self
                .config_error
                .clone()
                .unwrap_or_else(|| format!("{DEVICES_VAR}=none: no device is emulated"));
            return fail(hipError_t::hipErrorNoDevice, why);
        }
        Ok(())
    }

    /// This thread's current device.
    pub(crate) fn current(&self) -> R<&Device> {
        self.device(CURRENT.with(Cell::get))
    }

    /// The device of context handle `ctx`.
    fn context_device(&self, ctx: hipCtx_t) -> R<&Device> {
        let h = ctx as usize;
        if h >= CONTEXT_BASE && (h - CONTEXT_BASE) % 16 == 0 {
            if let Some(d) = self.devices.get((h - CONTEXT_BASE) / 16) {
                return Ok(d);
            }
        }
        fail(
            hipError_t::hipErrorInvalidContext,
            format!("{h:#x} is not a context"),
        )
    }

    /// Waits for everything queued on `device`: nothing, since operations
    /// run when enqueued.
    pub(crate) fn synchronize(&self, _device: &Device) -> R {
        Ok(())
    }
}

/// Writes `s` NUL-terminated into `dest` of `len` bytes.
///
/// # Safety
///
/// `dest` must be null or valid for `len` bytes of writes.
unsafe fn put_text(dest: *mut c_char, len: c_int, s: &str, what: &str) -> R {
    if dest.is_null() {
        return invalid(format!("`{what}` is null"));
    }
    let len = usize::try_from(len).unwrap_or(0);
    if len == 0 {
        return invalid(format!("`len` of `{what}` is {len}"));
    }
    let n = s.len().min(len - 1);
    // SAFETY: `dest` holds `len` bytes (the caller's contract) and `n + 1 <= len`.
    unsafe {
        std::ptr::copy_nonoverlapping(s.as_ptr().cast::<c_char>(), dest, n);
        dest.add(n).write(0);
    }
    Ok(())
}

export! {
    /// Initializes the runtime (nothing to do beyond reading
    /// `HIP_EMU_DEVICES`); `flags` must be 0.
    fn hipInit(flags: c_uint) {
        if flags != 0 {
            return invalid(format!("flags must be 0, not {flags}"));
        }
        rt().any_device()
    }

    /// The HIP version this runtime implements: 6.4 (`60443483`).
    fn hipRuntimeGetVersion(runtimeVersion: *mut c_int) {
        // SAFETY: `runtimeVersion` is null or a valid `int*`.
        unsafe { put(runtimeVersion, HIP_VERSION, "runtimeVersion") }
    }

    /// As [`hipRuntimeGetVersion`] (ROCm reports the same number).
    fn hipDriverGetVersion(driverVersion: *mut c_int) {
        // SAFETY: `driverVersion` is null or a valid `int*`.
        unsafe { put(driverVersion, HIP_VERSION, "driverVersion") }
    }

    /// The number of emulated devices; `hipErrorNoDevice` when none.
    fn hipGetDeviceCount(count: *mut c_int) {
        let r = rt();
        // SAFETY: `count` is null or a valid `int*`.
        unsafe { put(count, r.devices.len() as c_int, "count") }?;
        r.any_device()
    }

    /// Makes `deviceId` this thread's current device.
    fn hipSetDevice(deviceId: c_int) {
        rt().device(deviceId)?;
        CURRENT.with(|c| c.set(deviceId));
        Ok(())
    }

    /// This thread's current device.
    fn hipGetDevice(deviceId: *mut c_int) {
        let d = rt().current()?.ordinal;
        // SAFETY: `deviceId` is null or a valid `int*`.
        unsafe { put(deviceId, d, "deviceId") }
    }

    /// The device of ordinal `ordinal`.
    fn hipDeviceGet(device: *mut hipDevice_t, ordinal: c_int) {
        let d = rt().device(ordinal)?.ordinal;
        // SAFETY: `device` is null or a valid `hipDevice_t*`.
        unsafe { put(device, d, "device") }
    }

    /// The device's marketing name.
    fn hipDeviceGetName(name: *mut c_char, len: c_int, device: hipDevice_t) {
        let d = rt().device(device)?;
        // SAFETY: `name` is null or holds `len` bytes.
        unsafe { put_text(name, len, d.spec.name, "name") }
    }

    /// The device's UUID.
    fn hipDeviceGetUuid(uuid: *mut hipUUID, device: hipDevice_t) {
        let d = rt().device(device)?;
        // SAFETY: `uuid` is null or a valid `hipUUID*`.
        unsafe { put(uuid, d.uuid(), "uuid") }
    }

    /// The device's global memory, bytes.
    fn hipDeviceTotalMem(bytes: *mut usize, device: hipDevice_t) {
        let d = rt().device(device)?;
        // SAFETY: `bytes` is null or a valid `size_t*`.
        unsafe { put(bytes, d.spec.total_memory as usize, "bytes") }
    }

    /// The device's compute capability (9.4 for gfx942, 11.0 for gfx1100).
    fn hipDeviceComputeCapability(major: *mut c_int, minor: *mut c_int, device: hipDevice_t) {
        let d = rt().device(device)?;
        // SAFETY: `major` and `minor` are null or valid `int*`s.
        unsafe {
            put(major, d.spec.compute_capability.0, "major")?;
            put(minor, d.spec.compute_capability.1, "minor")
        }
    }

    /// The device's PCI address, `domain:bus:device.function`.
    fn hipDeviceGetPCIBusId(pciBusId: *mut c_char, len: c_int, device: c_int) {
        let d = rt().device(device)?;
        // SAFETY: `pciBusId` is null or holds `len` bytes.
        unsafe { put_text(pciBusId, len, &d.pci_bus_id(), "pciBusId") }
    }

    /// The device at a PCI address.
    fn hipDeviceGetByPCIBusId(device: *mut c_int, pciBusId: *const c_char) {
        if pciBusId.is_null() {
            return invalid("`pciBusId` is null");
        }
        // SAFETY: non-null, and NUL-terminated by the caller's contract.
        let id = unsafe { CStr::from_ptr(pciBusId) }.to_string_lossy().to_ascii_lowercase();
        let r = rt();
        let found = r.devices.iter().find(|d| {
            let own = d.pci_bus_id();
            own == id || own.trim_start_matches("0000:") == id
        });
        match found {
            // SAFETY: `device` is null or a valid `int*`.
            Some(d) => unsafe { put(device, d.ordinal, "device") },
            None => invalid(format!("no device has PCI bus id `{id}`")),
        }
    }

    /// Every device property, in ROCm 6's layout.
    fn hipGetDevicePropertiesR0600(prop: *mut hipDeviceProp_tR0600, deviceId: c_int) {
        let p = rt().device(deviceId)?.properties();
        // SAFETY: `prop` is null or a valid `hipDeviceProp_tR0600*`.
        unsafe { put(prop, p, "prop") }
    }

    /// One device attribute.
    fn hipDeviceGetAttribute(pi: *mut c_int, attr: hipDeviceAttribute_t, deviceId: c_int) {
        let d = rt().device(deviceId)?;
        match d.attribute(attr) {
            // SAFETY: `pi` is null or a valid `int*`.
            Some(v) => unsafe { put(pi, v.clamp(i32::MIN as i64, i32::MAX as i64) as c_int, "pi") },
            None => invalid(format!("{attr:?} is not a device attribute hip-emu knows")),
        }
    }

    /// Waits for the current device: returns at once (operations run when
    /// enqueued).
    fn hipDeviceSynchronize() {
        let r = rt();
        r.synchronize(r.current()?)
    }

    /// Frees every allocation of the current device and unloads its
    /// modules; its streams, events and pools stay valid handles.
    fn hipDeviceReset() {
        let r = rt();
        let d = r.current()?;
        for (h, m) in r.modules.all() {
            if m.device == d.ordinal {
                let _ = r.modules.remove(h);
            }
        }
        r.memory.remove_device(d.ordinal);
        *lock(&d.primary) = (0, 0);
        lock(&d.peers).clear();
        Ok(())
    }

    /// Whether `deviceId` can access `peerDeviceId`'s memory: every pair of
    /// distinct emulated devices can.
    fn hipDeviceCanAccessPeer(canAccessPeer: *mut c_int, deviceId: c_int, peerDeviceId: c_int) {
        let r = rt();
        r.device(deviceId)?;
        r.device(peerDeviceId)?;
        // SAFETY: `canAccessPeer` is null or a valid `int*`.
        unsafe { put(canAccessPeer, c_int::from(deviceId != peerDeviceId), "canAccessPeer") }
    }

    /// Lets the current device access `peerDeviceId`'s memory.
    fn hipDeviceEnablePeerAccess(peerDeviceId: c_int, flags: c_uint) {
        let r = rt();
        let d = r.current()?;
        r.device(peerDeviceId)?;
        if flags != 0 {
            return invalid(format!("flags must be 0, not {flags}"));
        }
        if peerDeviceId == d.ordinal {
            return invalid("a device cannot be its own peer");
        }
        let mut peers = lock(&d.peers);
        if peers.contains(&peerDeviceId) {
            return fail(
                hipError_t::hipErrorPeerAccessAlreadyEnabled,
                format!("device {} already accesses device {peerDeviceId}", d.ordinal),
            );
        }
        peers.push(peerDeviceId);
        Ok(())
    }

    /// Undoes [`hipDeviceEnablePeerAccess`].
    fn hipDeviceDisablePeerAccess(peerDeviceId: c_int) {
        let r = rt();
        let d = r.current()?;
        r.device(peerDeviceId)?;
        let mut peers = lock(&d.peers);
        match peers.iter().position(|p| *p == peerDeviceId) {
            Some(i) => {
                peers.remove(i);
                Ok(())
            }
            None => fail(
                hipError_t::hipErrorPeerAccessNotEnabled,
                format!("device {} does not access device {peerDeviceId}", d.ordinal),
            ),
        }
    }

    /// Free and total memory of the current device: the total less what is
    /// allocated.
    fn hipMemGetInfo(free: *mut usize, total: *mut usize) {
        let r = rt();
        let d = r.current()?;
        let t = d.spec.total_memory;
        let used = r.memory.used(d.ordinal);
        // SAFETY: `free` and `total` are null or valid `size_t*`s.
        unsafe {
            put(free, t.saturating_sub(used) as usize, "free")?;
            put(total, t as usize, "total")
        }
    }

    /// A limit of the current device (stack, printf FIFO, malloc heap).
    fn hipDeviceGetLimit(pValue: *mut usize, limit: hipLimit_t) {
        let d = rt().current()?;
        let i = limit_index(limit)?;
        let v = lock(&d.limits)[i];
        // SAFETY: `pValue` is null or a valid `size_t*`.
        unsafe { put(pValue, v, "pValue") }
    }

    /// Sets a limit of the current device (kept and reported; the
    /// interpreter's scratch is sized from the kernel, not from it).
    fn hipDeviceSetLimit(limit: hipLimit_t, value: usize) {
        let d = rt().current()?;
        let i = limit_index(limit)?;
        lock(&d.limits)[i] = value;
        Ok(())
    }

    /// Sets the current device's flags.
    fn hipSetDeviceFlags(flags: c_uint) {
        let d = rt().current()?;
        *lock(&d.flags) = flags;
        Ok(())
    }

    /// The current device's flags.
    fn hipGetDeviceFlags(flags: *mut c_uint) {
        let d = rt().current()?;
        let f = *lock(&d.flags);
        // SAFETY: `flags` is null or a valid `unsigned*`.
        unsafe { put(flags, f, "flags") }
    }

    /// The cache configuration: always "prefer none" (AMD GPUs have none).
    fn hipDeviceGetCacheConfig(cacheConfig: *mut hip_sys::hipFuncCache_t) {
        rt().current()?;
        // SAFETY: `cacheConfig` is null or a valid `hipFuncCache_t*`.
        unsafe { put(cacheConfig, hip_sys::hipFuncCache_t::hipFuncCachePreferNone, "cacheConfig") }
    }

    /// Accepted and ignored, as on ROCm.
    fn hipDeviceSetCacheConfig(_cacheConfig: hip_sys::hipFuncCache_t) {
        rt().current().map(drop)
    }

    /// Stream priorities: 0 (least) to -1 (greatest), as ROCm reports.
    fn hipDeviceGetStreamPriorityRange(leastPriority: *mut c_int, greatestPriority: *mut c_int) {
        // SAFETY: each is null or a valid `int*`; ROCm accepts null for either.
        unsafe {
            if !leastPriority.is_null() {
                put(leastPriority, 0, "leastPriority")?;
            }
            if !greatestPriority.is_null() {
                put(greatestPriority, -1, "greatestPriority")?;
            }
        }
        Ok(())
    }

    /// Retains the device's primary context.
    fn hipDevicePrimaryCtxRetain(pctx: *mut hipCtx_t, dev: hipDevice_t) {
        let d = rt().device(dev)?;
        // SAFETY: `pctx` is null or a valid `hipCtx_t*`.
        unsafe { put(pctx, d.context(), "pctx") }?;
        lock(&d.primary).0 += 1;
        Ok(())
    }

    /// Releases the device's primary context.
    fn hipDevicePrimaryCtxRelease(dev: hipDevice_t) {
        let d = rt().device(dev)?;
        let mut p = lock(&d.primary);
        p.0 = p.0.saturating_sub(1);
        Ok(())
    }

    /// The primary context's flags and whether it is retained.
    fn hipDevicePrimaryCtxGetState(dev: hipDevice_t, flags: *mut c_uint, active: *mut c_int) {
        let d = rt().device(dev)?;
        let (count, f) = *lock(&d.primary);
        // SAFETY: `flags` and `active` are null or valid pointers.
        unsafe {
            put(flags, f, "flags")?;
            put(active, c_int::from(count > 0), "active")
        }
    }

    /// Resets the primary context (as [`hipDeviceReset`] for `dev`).
    fn hipDevicePrimaryCtxReset(dev: hipDevice_t) {
        let r = rt();
        let d = r.device(dev)?;
        for (h, m) in r.modules.all() {
            if m.device == d.ordinal {
                let _ = r.modules.remove(h);
            }
        }
        r.memory.remove_device(d.ordinal);
        *lock(&d.primary) = (0, 0);
        Ok(())
    }

    /// Sets the primary context's flags.
    fn hipDevicePrimaryCtxSetFlags(dev: hipDevice_t, flags: c_uint) {
        let d = rt().device(dev)?;
        lock(&d.primary).1 = flags;
        Ok(())
    }

    /// The current device's primary context.
    fn hipCtxGetCurrent(ctx: *mut hipCtx_t) {
        let c = rt().current()?.context();
        // SAFETY: `ctx` is null or a valid `hipCtx_t*`.
        unsafe { put(ctx, c, "ctx") }
    }

    /// Makes `ctx`'s device current (null: leaves the device as it is).
    fn hipCtxSetCurrent(ctx: hipCtx_t) {
        if ctx.is_null() {
            return Ok(());
        }
        let d = rt().context_device(ctx)?.ordinal;
        CURRENT.with(|c| c.set(d));
        Ok(())
    }

    /// Saves the current device and makes `ctx`'s current.
    fn hipCtxPushCurrent(ctx: hipCtx_t) {
        let d = rt().context_device(ctx)?.ordinal;
        CURRENT.with(|c| STACK.with(|s| s.borrow_mut().push(c.replace(d))));
        Ok(())
    }

    /// Restores the device saved by [`hipCtxPushCurrent`]; writes the
    /// context popped.
    fn hipCtxPopCurrent(ctx: *mut hipCtx_t) {
        let popped = CURRENT.with(Cell::get);
        let Some(prev) = STACK.with(|s| s.borrow_mut().pop()) else {
            return fail(hipError_t::hipErrorInvalidContext, "no context was pushed on this thread");
        };
        CURRENT.with(|c| c.set(prev));
        if !ctx.is_null() {
            // SAFETY: non-null and a valid `hipCtx_t*` by the contract.
            unsafe { put(ctx, context_handle(popped), "ctx") }?;
        }
        Ok(())
    }

    /// The current context's device.
    fn hipCtxGetDevice(device: *mut hipDevice_t) {
        let d = rt().current()?.ordinal;
        // SAFETY: `device` is null or a valid `hipDevice_t*`.
        unsafe { put(device, d, "device") }
    }

    /// The current context's flags.
    fn hipCtxGetFlags(flags: *mut c_uint) {
        let d = rt().current()?;
        let f = lock(&d.primary).1;
        // SAFETY: `flags` is null or a valid `unsigned*`.
        unsafe { put(flags, f, "flags") }
    }

    /// Waits for the current context: returns at once.
    fn hipCtxSynchronize() {
        let r = rt();
        r.synchronize(r.current()?)
    }

    /// Returns `device`'s primary context and makes it current (HIP has
    /// one context per device).
    fn hipCtxCreate(ctx: *mut hipCtx_t, _flags: c_uint, device: hipDevice_t) {
        let d = rt().device(device)?;
        // SAFETY: `ctx` is null or a valid `hipCtx_t*`.
        unsafe { put(ctx, d.context(), "ctx") }?;
        CURRENT.with(|c| c.set(d.ordinal));
        Ok(())
    }

    /// Accepts a context from [`hipCtxCreate`]; the primary context lives on.
    fn hipCtxDestroy(ctx: hipCtx_t) {
        rt().context_device(ctx).map(drop)
    }

    /// Accepted: there is no profiler to start.
    fn hipProfilerStart() {
        Ok(())
    }

    /// Accepted: there is no profiler to stop.
    fn hipProfilerStop() {
        Ok(())
    }
}

use hip_sys::hipDeviceAttribute_t;

fn limit_index(limit: hipLimit_t) -> R<usize> {
    match limit {
        hipLimit_t::hipLimitStackSize => Ok(0),
        hipLimit_t::hipLimitPrintfFifoSize => Ok(1),
        hipLimit_t::hipLimitMallocHeapSize => Ok(2),
        other => fail(
            hipError_t::hipErrorUnsupportedLimit,
            format!("{other:?} is not a limit hip-emu keeps"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_come_from_the_list() {
        assert_eq!(parse_devices("").0, [Target::Gfx942]);
        assert_eq!(
            parse_devices("gfx942, gfx1100").0,
            [Target::Gfx942, Target::Gfx1100]
        );
        assert!(parse_devices("none").0.is_empty());
        let (none, why) = parse_devices("gfx942,gfx90a");
        assert!(none.is_empty());
        assert!(why.unwrap().contains("gfx90a"));
    }
}
