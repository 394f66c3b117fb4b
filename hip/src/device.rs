//! Devices: enumeration, properties, attributes, capabilities, limits and
//! peer access.

use crate::capture_gate::{CaptureGate, CaptureHold};
use crate::error::{Error, Result};
use crate::result;
use hip_sys as sys;
use hip_sys::loader::{Platform, Version};
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// One GPU, by ordinal.
///
/// Obtained with [`Device::get`], which returns the same `Arc` for the same
/// ordinal every time. Streams, buffers, modules and events hold an
/// `Arc<Device>`, so a device object outlives everything made on it.
///
/// **Threads**: `Device` is `Send + Sync`. It holds only the ordinal and
/// values read once at open; every method that needs the runtime's
/// per-thread "current device" first makes this device current on the
/// calling thread ([`Device::bind`]), so a device can be used from any
/// thread.
pub struct Device {
    ordinal: i32,
    limits: LaunchLimits,
    props: OnceLock<DeviceProperties>,
    memory_pools: OnceLock<bool>,
    captures: CaptureGate,
    /// A non-blocking stream for this crate's own synchronous work (see
    /// [`Device::quiet_stream`]), made on first use and never destroyed.
    quiet: OnceLock<usize>,
}

/// The launch limits of a device, read once when it is opened and used to
/// reject bad launch configurations before any runtime call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchLimits {
    /// Most threads in one block.
    pub max_threads_per_block: u32,
    /// Most threads along each block dimension.
    pub max_block_dim: [u32; 3],
    /// Most blocks along each grid dimension.
    pub max_grid_dim: [u32; 3],
    /// Most shared memory one block may use, in bytes (opt-in maximum
    /// where the device has one).
    pub max_shared_mem_per_block: u32,
    /// Most threads (blocks times block size) along one grid dimension:
    /// `u32::MAX` on AMD, whose runtime counts a dimension's work items in
    /// 32 bits; unbounded (`u64::MAX`) on NVIDIA.
    pub max_threads_per_grid_dim: u64,
}

impl LaunchLimits {
    /// Limits common to every HIP device (AMD and NVIDIA), used by tests
    /// and by callers without a device at hand.
    pub const COMMON: LaunchLimits = LaunchLimits {
        max_threads_per_block: 1024,
        max_block_dim: [1024, 1024, 64],
        max_grid_dim: [i32::MAX as u32, 65535, 65535],
        max_shared_mem_per_block: 48 * 1024,
        max_threads_per_grid_dim: u32::MAX as u64,
    };
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device")
            .field("ordinal", &self.ordinal)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl PartialEq for Device {
    fn eq(&self, other: &Device) -> bool {
        self.ordinal == other.ordinal
    }
}
impl Eq for Device {}

static DEVICES: Mutex<Vec<Option<Arc<Device>>>> = Mutex::new(Vec::new());

/// The device properties this crate reads, independent of the runtime's
/// struct layout.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceProperties {
    /// Marketing name, e.g. `"AMD Instinct MI210"` or `"NVIDIA H100"`.
    pub name: String,
    /// Architecture: `gcnArchName` (`"gfx90a:sramecc+:xnack-"`) on AMD,
    /// `"sm_90"` style on NVIDIA.
    pub arch: String,
    /// Global memory in bytes.
    pub total_memory: usize,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    /// Number of multiprocessors (compute units).
    pub multiprocessor_count: i32,
    /// Threads per warp (wavefront).
    pub warp_size: i32,
    /// Most threads per block.
    pub max_threads_per_block: i32,
    /// Shared memory per block in bytes.
    pub shared_mem_per_block: usize,
    /// Core clock in kHz.
    pub clock_rate_khz: i32,
    /// L2 cache in bytes.
    pub l2_cache_size: i32,
    /// PCI domain, bus and device.
    pub pci: (i32, i32, i32),
    /// Whether managed memory is supported.
    pub managed_memory: bool,
    /// Whether device and host may access managed memory concurrently.
    pub concurrent_managed_access: bool,
    /// Which `hipGetDeviceProperties` variant filled this in.
    pub layout: PropertiesLayout,
}

/// Which `hipDeviceProp_t` layout the loaded runtime uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropertiesLayout {
    /// `hipGetDevicePropertiesR0600`, the HIP 6.0 layout.
    R0600,
    /// `hipGetDevicePropertiesR0000`, the layout before HIP 6.0.
    R0000,
}

impl PropertiesLayout {
    /// The layout for a platform and runtime version: R0600 on NVIDIA and
    /// from HIP 6 on, R0000 before. Decided from the loaded runtime, never
    /// guessed.
    pub fn for_runtime(platform: Platform, version: Version) -> PropertiesLayout {
        if platform == Platform::Nvidia || version.major >= 6 {
            PropertiesLayout::R0600
        } else {
            PropertiesLayout::R0000
        }
    }
}

impl Device {
    /// How many devices are visible (`hipGetDeviceCount`).
    ///
    /// A machine without devices returns the runtime's error
    /// (`hipErrorNoDevice` on AMD), not zero, so the reason is kept.
    pub fn count() -> Result<usize> {
        loaded()?;
        Ok(result::get_device_count()?.max(0) as usize)
    }

    /// The device of this ordinal, opened on first use; the same `Arc` is
    /// returned for the same ordinal afterwards.
    pub fn get(ordinal: usize) -> Result<Arc<Device>> {
        let count = Device::count()?;
        if ordinal >= count {
            return Err(Error::invalid(
                "Device::get",
                format!("ordinal {ordinal} is out of range: {count} devices are visible"),
            ));
        }
        let mut devs = DEVICES.lock().unwrap_or_else(|p| p.into_inner());
        if devs.len() < count {
            devs.resize(count, None);
        }
        if let Some(d) = &devs[ordinal] {
            return Ok(d.clone());
        }
        let d = Arc::new(Device::open(ordinal as i32)?);
        devs[ordinal] = Some(d.clone());
        Ok(d)
    }

    /// Every visible device, in ordinal order.
    pub fn all() -> Result<Vec<Arc<Device>>> {
        (0..Device::count()?).map(Device::get).collect()
    }

    fn open(ordinal: i32) -> Result<Device> {
        use sys::hipDeviceAttribute_t as A;
        let a = |attr| result::device_get_attribute(attr, ordinal).map(|v| v.max(0) as u32);
        let shared = a(A::hipDeviceAttributeSharedMemPerBlockOptin)
            .ok()
            .filter(|v| *v > 0)
            .map_or_else(|| a(A::hipDeviceAttributeMaxSharedMemoryPerBlock), Ok)?;
        let limits = LaunchLimits {
            max_threads_per_block: a(A::hipDeviceAttributeMaxThreadsPerBlock)?,
            max_block_dim: [
                a(A::hipDeviceAttributeMaxBlockDimX)?,
                a(A::hipDeviceAttributeMaxBlockDimY)?,
                a(A::hipDeviceAttributeMaxBlockDimZ)?,
            ],
            max_grid_dim: [
                a(A::hipDeviceAttributeMaxGridDimX)?,
                a(A::hipDeviceAttributeMaxGridDimY)?,
                a(A::hipDeviceAttributeMaxGridDimZ)?,
            ],
            max_shared_mem_per_block: shared,
            max_threads_per_grid_dim: match sys::loader::runtime().map(|r| r.platform) {
                Ok(Platform::Nvidia) => u64::MAX,
                _ => u32::MAX as u64,
            },
        };
        Ok(Device {
            ordinal,
            limits,
            props: OnceLock::new(),
            memory_pools: OnceLock::new(),
            captures: CaptureGate::default(),
            quiet: OnceLock::new(),
        })
    }

    /// A device object that never asked the runtime (the common launch
    /// limits), for unit tests on the fake runtime.
    #[cfg(test)]
    pub(crate) fn fake(ordinal: i32) -> Device {
        Device {
            ordinal,
            limits: LaunchLimits::COMMON,
            props: OnceLock::new(),
            memory_pools: OnceLock::new(),
            captures: CaptureGate::default(),
            quiet: OnceLock::new(),
        }
    }

    /// This device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal as usize
    }

    pub(crate) fn raw_ordinal(&self) -> i32 {
        self.ordinal
    }

    /// Launch limits read when the device was opened.
    pub fn launch_limits(&self) -> &LaunchLimits {
        &self.limits
    }

    /// Makes this device current on the calling thread (`hipSetDevice`),
    /// skipping the call when it already is (`hipGetDevice`).
    ///
    /// Methods of this crate do this themselves where the runtime needs it;
    /// call it before raw `hip_sys` calls that use the current device.
    #[inline]
    pub fn bind(&self) -> Result<()> {
        if result::get_device()? != self.ordinal {
            result::set_device(self.ordinal)?;
        }
        Ok(())
    }

    /// The device's name (`hipDeviceGetName`).
    pub fn name(&self) -> Result<String> {
        result::device_get_name(self.ordinal)
    }

    /// The architecture name: `gcnArchName` such as `gfx90a:sramecc+:xnack-`
    /// on AMD, `sm_90` style on NVIDIA.
    pub fn arch(&self) -> Result<String> {
        Ok(self.properties()?.arch.clone())
    }

    /// The value given as `--offload-arch=` when compiling for this device:
    /// the full architecture name (hiprtc accepts the feature flags; the
    /// NVIDIA backend compiles for the device instead).
    pub fn offload_arch(&self) -> Result<String> {
        self.arch()
    }

    /// The device's properties, read once (`hipGetDevicePropertiesR0600` or
    /// `R0000` as the loaded runtime requires; see [`PropertiesLayout`]).
    pub fn properties(&self) -> Result<&DeviceProperties> {
        if let Some(p) = self.props.get() {
            return Ok(p);
        }
        let p = self.read_properties()?;
        Ok(self.props.get_or_init(|| p))
    }

    fn read_properties(&self) -> Result<DeviceProperties> {
        let rt = loaded()?;
        let layout = PropertiesLayout::for_runtime(rt.platform, rt.version);
        macro_rules! fill {
            ($p:expr) => {{
                let p = $p;
                DeviceProperties {
                    name: result::c_chars_to_string(&p.name),
                    arch: result::c_chars_to_string(&p.gcnArchName),
                    total_memory: p.totalGlobalMem,
                    compute_capability: (p.major, p.minor),
                    multiprocessor_count: p.multiProcessorCount,
                    warp_size: p.warpSize,
                    max_threads_per_block: p.maxThreadsPerBlock,
                    shared_mem_per_block: p.sharedMemPerBlock,
                    clock_rate_khz: p.clockRate,
                    l2_cache_size: p.l2CacheSize,
                    pci: (p.pciDomainID, p.pciBusID, p.pciDeviceID),
                    managed_memory: p.managedMemory != 0,
                    concurrent_managed_access: p.concurrentManagedAccess != 0,
                    layout,
                }
            }};
        }
        Ok(match layout {
            PropertiesLayout::R0600 => fill!(result::get_device_properties_r0600(self.ordinal)?),
            PropertiesLayout::R0000 => fill!(result::get_device_properties_r0000(self.ordinal)?),
        })
    }

    /// Total global memory in bytes (`hipDeviceTotalMem`).
    pub fn total_memory(&self) -> Result<usize> {
        result::device_total_mem(self.ordinal)
    }

    /// Free and total global memory in bytes (`hipMemGetInfo`).
    pub fn memory_info(&self) -> Result<MemoryInfo> {
        self.bind()?;
        let (free, total) = result::mem_get_info()?;
        Ok(MemoryInfo { free, total })
    }

    /// Compute capability (`hipDeviceComputeCapability`): on AMD a HIP
    /// convention (e.g. 9.0 for gfx90a), on NVIDIA the real one.
    pub fn compute_capability(&self) -> Result<(i32, i32)> {
        result::device_compute_capability(self.ordinal)
    }

    /// One attribute (`hipDeviceGetAttribute`).
    pub fn attribute(&self, attr: DeviceAttribute) -> Result<i32> {
        result::device_get_attribute(attr.raw(), self.ordinal)
    }

    /// The device's UUID (`hipDeviceGetUuid`).
    pub fn uuid(&self) -> Result<[u8; 16]> {
        let u = result::device_get_uuid(self.ordinal)?;
        Ok(u.bytes.map(|b| b as u8))
    }

    /// The flags of this device (`hipGetDeviceFlags`), e.g.
    /// `hipDeviceScheduleBlockingSync`.
    pub fn flags(&self) -> Result<u32> {
        self.bind()?;
        result::get_device_flags()
    }

    /// Sets the flags of this device (`hipSetDeviceFlags`).
    pub fn set_flags(&self, flags: u32) -> Result<()> {
        self.bind()?;
        result::set_device_flags(flags)
    }

    /// The cache preference (`hipDeviceGetCacheConfig`).
    pub fn cache_config(&self) -> Result<sys::hipFuncCache_t> {
        self.bind()?;
        result::device_get_cache_config()
    }

    /// Sets the cache preference (`hipDeviceSetCacheConfig`).
    pub fn set_cache_config(&self, config: sys::hipFuncCache_t) -> Result<()> {
        self.bind()?;
        result::device_set_cache_config(config)
    }

    /// Whether the device has stream-ordered memory pools
    /// (`hipDeviceAttributeMemoryPoolsSupported`), read once; an error
    /// reading it counts as no.
    pub fn supports_memory_pools(&self) -> bool {
        *self.memory_pools.get_or_init(|| {
            self.attribute(DeviceAttribute::MemoryPoolsSupported)
                .map(|v| v != 0)
                .unwrap_or(false)
        })
    }

    /// What this device can do.
    pub fn capabilities(&self) -> Result<Capabilities> {
        let platform = loaded()?.platform;
        let props = self.properties()?;
        let managed = self.attribute(DeviceAttribute::ManagedMemory)? != 0;
        let concurrent = self.attribute(DeviceAttribute::ConcurrentManagedAccess)? != 0;
        let pools = self
            .attribute(DeviceAttribute::MemoryPoolsSupported)
            .unwrap_or(0)
            != 0;
        let (f16, bf16) = arithmetic_support(platform, &props.arch, props.compute_capability);
        Ok(Capabilities {
            f16_arithmetic: f16,
            bf16_arithmetic: bf16,
            managed_memory: managed,
            concurrent_managed_access: concurrent,
            memory_pools: pools,
        })
    }

    /// Whether this device can access `peer`'s memory directly
    /// (`hipDeviceCanAccessPeer`). A device is not its own peer.
    pub fn can_access_peer(&self, peer: &Device) -> Result<bool> {
        if peer.ordinal == self.ordinal {
            return Ok(false);
        }
        result::device_can_access_peer(self.ordinal, peer.ordinal)
    }

    /// Lets kernels on this device access `peer`'s memory
    /// (`hipDeviceEnablePeerAccess`). Enabling twice is not an error.
    pub fn enable_peer_access(&self, peer: &Device) -> Result<()> {
        if peer.ordinal == self.ordinal {
            return Err(Error::invalid(
                "Device::enable_peer_access",
                format!("device {} cannot be its own peer", self.ordinal),
            ));
        }
        let held = self.hold_captures("Device::enable_peer_access")?;
        self.bind()?;
        match result::device_enable_peer_access(peer.ordinal, &held) {
            Err(e) if e.hip_status() == Some(sys::hipError_t::hipErrorPeerAccessAlreadyEnabled) => {
                Ok(())
            }
            r => r,
        }
    }

    /// A runtime limit of this device (`hipDeviceGetLimit`).
    pub fn limit(&self, limit: Limit) -> Result<usize> {
        self.bind()?;
        result::device_get_limit(limit.raw())
    }

    /// Sets a runtime limit of this device (`hipDeviceSetLimit`).
    ///
    /// Changing a limit may synchronize the device, so this waits for the
    /// captures of other threads as [`Device::synchronize`] does.
    pub fn set_limit(&self, limit: Limit, value: usize) -> Result<()> {
        let held = self.hold_captures("Device::set_limit")?;
        self.bind()?;
        result::device_set_limit(limit.raw(), value, &held)
    }

    /// Waits for all work on this device (`hipDeviceSynchronize`).
    ///
    /// A device-wide synchronization is not allowed while a stream of the
    /// device is capturing (on CUDA it invalidates the capture and can
    /// crash the driver), so this first waits until the captures begun
    /// through this crate on other threads have ended ([`Device::hold_captures`]).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] at once if this thread is capturing a stream of
    /// the device.
    pub fn synchronize(&self) -> Result<()> {
        let held = self.hold_captures("Device::synchronize")?;
        self.bind()?;
        result::device_synchronize(&held)
    }

    /// Waits until no stream of this device is capturing, and holds new
    /// captures back until the guard drops: for a call that synchronizes
    /// the whole device, which CUDA forbids during any capture of the
    /// device (measured on CUDA 13: the capture on the other thread is
    /// invalidated and the process can crash in `cuCtxSynchronize`).
    /// cuRAND's seeding is such a call, and `hiprand` holds captures back
    /// around it; [`Device::synchronize`] holds them itself.
    ///
    /// Only captures begun through this crate ([`Stream::capture`],
    /// [`Stream::begin_capture`]) are seen.
    ///
    /// `operation` names the caller in the error.
    ///
    /// [`Stream::capture`]: crate::Stream::capture
    /// [`Stream::begin_capture`]: crate::Stream::begin_capture
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] at once if this thread is capturing a stream of
    /// the device: the capture would never end while this thread waits.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// let dev = hip::Device::get(0)?;
    /// {
    ///     let _hold = dev.hold_captures("my_library_init")?;
    ///     // ... a call that synchronizes the whole device ...
    /// }
    /// # Ok::<(), hip::Error>(())
    /// ```
    pub fn hold_captures(&self, operation: &'static str) -> Result<CaptureHold<'_>> {
        self.captures.hold(operation)
    }

    /// Runs `release` with this device current (the caller's current
    /// device is restored afterwards) at a moment when no stream of the
    /// device captures, holding new captures back while it runs: at once
    /// when none is open, else as soon as the last open capture ends, on
    /// the thread that ends it. Never waits and never fails, so that
    /// `Drop` can use it for releases that act on the whole device (a
    /// `hipFree`, a module unload, a library handle's destruction), which
    /// CUDA forbids during any capture of the device.
    ///
    /// Errors of `release` are its own to record (this crate's go to
    /// [`take_drop_errors`](crate::take_drop_errors)); an error making the
    /// device current is recorded there, and `release` is then not run.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// # struct Handle(usize);
    /// # fn destroy(_: usize) -> Result<(), String> { Ok(()) }
    /// # fn record(_: Result<(), String>) {}
    /// # let handle = Handle(1);
    /// let dev = hip::Device::get(0)?;
    /// let raw = handle.0;
    /// dev.release_outside_captures(move |_held| record(destroy(raw)));
    /// # Ok::<(), hip::Error>(())
    /// ```
    pub fn release_outside_captures<F>(&self, release: F)
    where
        F: FnOnce(&CaptureHold<'_>) + Send + 'static,
    {
        let ordinal = self.ordinal;
        self.captures.release(move |held| {
            let r = with_current_device(ordinal, || {
                release(held);
                Ok(())
            });
            crate::error::record_result(r);
        });
    }

    /// A non-blocking stream of this device for this crate's own
    /// synchronous work (zero-filling a new buffer, a copy the caller
    /// waits for), which must not touch the null stream: work there waits
    /// for every blocking stream of the device, and CUDA invalidates the
    /// capture of any blocking stream it would wait for. Made on first use
    /// and kept for the life of the process.
    pub(crate) fn quiet_stream(self: &Arc<Device>) -> Result<crate::Stream> {
        let raw = match self.quiet.get() {
            Some(&raw) => raw,
            None => {
                let s = crate::Stream::with_options(
                    self,
                    crate::StreamOptions {
                        non_blocking: true,
                        priority: 0,
                    },
                )?;
                let raw = s.as_raw() as usize;
                // Kept for the process: never destroyed.
                std::mem::forget(s);
                match self.quiet.set(raw) {
                    Ok(()) => raw,
                    // Another thread made one first: ours stays unused.
                    Err(_) => *self.quiet.get().unwrap_or(&raw),
                }
            }
        };
        // SAFETY: the stream is this device's and is never destroyed.
        Ok(unsafe { crate::Stream::from_raw_borrowed(self, raw as sys::hipStream_t) })
    }

    /// [`Device::release_outside_captures`] on the calling thread's current
    /// device: for host-side releases (page-locked memory), which the
    /// runtime makes in the current context. An error finding the device
    /// is recorded (see [`take_drop_errors`](crate::take_drop_errors)) and
    /// `release` is then not run: the resource leaks, which is safe.
    pub(crate) fn release_on_current_device<F>(release: F)
    where
        F: FnOnce(&CaptureHold<'_>) + Send + 'static,
    {
        match result::get_device().and_then(|d| Device::get(d.max(0) as usize)) {
            Ok(dev) => dev.release_outside_captures(release),
            Err(e) => crate::error::record(e),
        }
    }

    pub(crate) fn capture_gate(&self) -> &CaptureGate {
        &self.captures
    }

    /// The stream priorities allowed on this device, as (least, greatest)
    /// (`hipDeviceGetStreamPriorityRange`); numerically, greatest <= least.
    pub fn stream_priority_range(&self) -> Result<(i32, i32)> {
        self.bind()?;
        result::device_get_stream_priority_range()
    }
}

/// Free and total device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryInfo {
    /// Free bytes.
    pub free: usize,
    /// Total bytes.
    pub total: usize,
}

/// Capability probes of one device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Capabilities {
    /// Native half-precision (`f16`) arithmetic.
    pub f16_arithmetic: bool,
    /// Native `bf16` arithmetic.
    pub bf16_arithmetic: bool,
    /// Managed (unified) memory.
    pub managed_memory: bool,
    /// Host and device may touch managed memory at the same time.
    pub concurrent_managed_access: bool,
    /// Stream-ordered allocation from memory pools.
    pub memory_pools: bool,
}

/// Whether a device has native f16 and bf16 arithmetic, from its platform,
/// architecture name and compute capability.
///
/// NVIDIA: f16 from compute capability 5.3, bf16 from 8.0. AMD: f16 on every
/// GCN/CDNA/RDNA part from gfx8 on; bf16 on gfx90a, gfx94x/gfx95x (CDNA2+),
/// and gfx11/gfx12 (RDNA3+).
pub fn arithmetic_support(platform: Platform, arch: &str, cc: (i32, i32)) -> (bool, bool) {
    match platform {
        Platform::Nvidia => (cc >= (5, 3), cc >= (8, 0)),
        Platform::Amd => {
            let base = arch.split(':').next().unwrap_or("");
            let Some(num) = base.strip_prefix("gfx") else {
                return (false, false);
            };
            let major: String = num.chars().take(num.len().saturating_sub(2)).collect();
            let major: u32 = major.parse().unwrap_or(0);
            let f16 = major >= 8;
            let bf16 = base == "gfx90a"
                || base.starts_with("gfx94")
                || base.starts_with("gfx95")
                || major >= 11;
            (f16, bf16)
        }
    }
}

pub(crate) fn loaded() -> Result<&'static hip_sys::loader::Runtime> {
    hip_sys::loader::runtime().map_err(|e| Error::Load(e.clone()))
}

/// A runtime limit (`hipLimit_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// Stack size per thread (`hipLimitStackSize`).
    StackSize,
    /// Size of the device `printf` buffer (`hipLimitPrintfFifoSize`).
    PrintfFifoSize,
    /// Size of the device `malloc` heap (`hipLimitMallocHeapSize`).
    MallocHeapSize,
}

impl Limit {
    /// The raw value.
    pub fn raw(self) -> sys::hipLimit_t {
        match self {
            Limit::StackSize => sys::hipLimit_t::hipLimitStackSize,
            Limit::PrintfFifoSize => sys::hipLimit_t::hipLimitPrintfFifoSize,
            Limit::MallocHeapSize => sys::hipLimit_t::hipLimitMallocHeapSize,
        }
    }
}

macro_rules! device_attributes {
    ($($variant:ident => $raw:ident),* $(,)?) => {
        /// Every device attribute (`hipDeviceAttribute_t`), by name.
        ///
        /// Each variant reads the attribute of the same C name
        /// (`hipDeviceAttribute<Variant>`) through [`Device::attribute`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum DeviceAttribute {
            $(
                #[doc = concat!("`", stringify!($raw), "`")]
                $variant,
            )*
        }

        impl DeviceAttribute {
            /// Every attribute, in the order of the C enum.
            pub const ALL: &'static [DeviceAttribute] = &[$(DeviceAttribute::$variant),*];

            /// The raw value.
            pub fn raw(self) -> sys::hipDeviceAttribute_t {
                match self {
                    $(DeviceAttribute::$variant => sys::hipDeviceAttribute_t::$raw,)*
                }
            }
        }
    };
}

device_attributes! {
    EccEnabled => hipDeviceAttributeEccEnabled,
    AccessPolicyMaxWindowSize => hipDeviceAttributeAccessPolicyMaxWindowSize,
    AsyncEngineCount => hipDeviceAttributeAsyncEngineCount,
    CanMapHostMemory => hipDeviceAttributeCanMapHostMemory,
    CanUseHostPointerForRegisteredMem => hipDeviceAttributeCanUseHostPointerForRegisteredMem,
    ClockRate => hipDeviceAttributeClockRate,
    ComputeMode => hipDeviceAttributeComputeMode,
    ComputePreemptionSupported => hipDeviceAttributeComputePreemptionSupported,
    ConcurrentKernels => hipDeviceAttributeConcurrentKernels,
    ConcurrentManagedAccess => hipDeviceAttributeConcurrentManagedAccess,
    CooperativeLaunch => hipDeviceAttributeCooperativeLaunch,
    CooperativeMultiDeviceLaunch => hipDeviceAttributeCooperativeMultiDeviceLaunch,
    DeviceOverlap => hipDeviceAttributeDeviceOverlap,
    DirectManagedMemAccessFromHost => hipDeviceAttributeDirectManagedMemAccessFromHost,
    GlobalL1CacheSupported => hipDeviceAttributeGlobalL1CacheSupported,
    HostNativeAtomicSupported => hipDeviceAttributeHostNativeAtomicSupported,
    Integrated => hipDeviceAttributeIntegrated,
    IsMultiGpuBoard => hipDeviceAttributeIsMultiGpuBoard,
    KernelExecTimeout => hipDeviceAttributeKernelExecTimeout,
    L2CacheSize => hipDeviceAttributeL2CacheSize,
    LocalL1CacheSupported => hipDeviceAttributeLocalL1CacheSupported,
    Luid => hipDeviceAttributeLuid,
    LuidDeviceNodeMask => hipDeviceAttributeLuidDeviceNodeMask,
    ComputeCapabilityMajor => hipDeviceAttributeComputeCapabilityMajor,
    ManagedMemory => hipDeviceAttributeManagedMemory,
    MaxBlocksPerMultiProcessor => hipDeviceAttributeMaxBlocksPerMultiProcessor,
    MaxBlockDimX => hipDeviceAttributeMaxBlockDimX,
    MaxBlockDimY => hipDeviceAttributeMaxBlockDimY,
    MaxBlockDimZ => hipDeviceAttributeMaxBlockDimZ,
    MaxGridDimX => hipDeviceAttributeMaxGridDimX,
    MaxGridDimY => hipDeviceAttributeMaxGridDimY,
    MaxGridDimZ => hipDeviceAttributeMaxGridDimZ,
    MaxSurface1D => hipDeviceAttributeMaxSurface1D,
    MaxSurface1DLayered => hipDeviceAttributeMaxSurface1DLayered,
    MaxSurface2D => hipDeviceAttributeMaxSurface2D,
    MaxSurface2DLayered => hipDeviceAttributeMaxSurface2DLayered,
    MaxSurface3D => hipDeviceAttributeMaxSurface3D,
    MaxSurfaceCubemap => hipDeviceAttributeMaxSurfaceCubemap,
    MaxSurfaceCubemapLayered => hipDeviceAttributeMaxSurfaceCubemapLayered,
    MaxTexture1DWidth => hipDeviceAttributeMaxTexture1DWidth,
    MaxTexture1DLayered => hipDeviceAttributeMaxTexture1DLayered,
    MaxTexture1DLinear => hipDeviceAttributeMaxTexture1DLinear,
    MaxTexture1DMipmap => hipDeviceAttributeMaxTexture1DMipmap,
    MaxTexture2DWidth => hipDeviceAttributeMaxTexture2DWidth,
    MaxTexture2DHeight => hipDeviceAttributeMaxTexture2DHeight,
    MaxTexture2DGather => hipDeviceAttributeMaxTexture2DGather,
    MaxTexture2DLayered => hipDeviceAttributeMaxTexture2DLayered,
    MaxTexture2DLinear => hipDeviceAttributeMaxTexture2DLinear,
    MaxTexture2DMipmap => hipDeviceAttributeMaxTexture2DMipmap,
    MaxTexture3DWidth => hipDeviceAttributeMaxTexture3DWidth,
    MaxTexture3DHeight => hipDeviceAttributeMaxTexture3DHeight,
    MaxTexture3DDepth => hipDeviceAttributeMaxTexture3DDepth,
    MaxTexture3DAlt => hipDeviceAttributeMaxTexture3DAlt,
    MaxTextureCubemap => hipDeviceAttributeMaxTextureCubemap,
    MaxTextureCubemapLayered => hipDeviceAttributeMaxTextureCubemapLayered,
    MaxThreadsDim => hipDeviceAttributeMaxThreadsDim,
    MaxThreadsPerBlock => hipDeviceAttributeMaxThreadsPerBlock,
    MaxThreadsPerMultiProcessor => hipDeviceAttributeMaxThreadsPerMultiProcessor,
    MaxPitch => hipDeviceAttributeMaxPitch,
    MemoryBusWidth => hipDeviceAttributeMemoryBusWidth,
    MemoryClockRate => hipDeviceAttributeMemoryClockRate,
    ComputeCapabilityMinor => hipDeviceAttributeComputeCapabilityMinor,
    MultiGpuBoardGroupId => hipDeviceAttributeMultiGpuBoardGroupID,
    MultiprocessorCount => hipDeviceAttributeMultiprocessorCount,
    PageableMemoryAccess => hipDeviceAttributePageableMemoryAccess,
    PageableMemoryAccessUsesHostPageTables => hipDeviceAttributePageableMemoryAccessUsesHostPageTables,
    PciBusId => hipDeviceAttributePciBusId,
    PciDeviceId => hipDeviceAttributePciDeviceId,
    PciDomainId => hipDeviceAttributePciDomainID,
    PersistingL2CacheMaxSize => hipDeviceAttributePersistingL2CacheMaxSize,
    MaxRegistersPerBlock => hipDeviceAttributeMaxRegistersPerBlock,
    MaxRegistersPerMultiprocessor => hipDeviceAttributeMaxRegistersPerMultiprocessor,
    ReservedSharedMemPerBlock => hipDeviceAttributeReservedSharedMemPerBlock,
    MaxSharedMemoryPerBlock => hipDeviceAttributeMaxSharedMemoryPerBlock,
    SharedMemPerBlockOptin => hipDeviceAttributeSharedMemPerBlockOptin,
    SharedMemPerMultiprocessor => hipDeviceAttributeSharedMemPerMultiprocessor,
    SingleToDoublePrecisionPerfRatio => hipDeviceAttributeSingleToDoublePrecisionPerfRatio,
    StreamPrioritiesSupported => hipDeviceAttributeStreamPrioritiesSupported,
    SurfaceAlignment => hipDeviceAttributeSurfaceAlignment,
    TccDriver => hipDeviceAttributeTccDriver,
    TextureAlignment => hipDeviceAttributeTextureAlignment,
    TexturePitchAlignment => hipDeviceAttributeTexturePitchAlignment,
    TotalConstantMemory => hipDeviceAttributeTotalConstantMemory,
    TotalGlobalMem => hipDeviceAttributeTotalGlobalMem,
    UnifiedAddressing => hipDeviceAttributeUnifiedAddressing,
    WarpSize => hipDeviceAttributeWarpSize,
    MemoryPoolsSupported => hipDeviceAttributeMemoryPoolsSupported,
    VirtualMemoryManagementSupported => hipDeviceAttributeVirtualMemoryManagementSupported,
    HostRegisterSupported => hipDeviceAttributeHostRegisterSupported,
    MemoryPoolSupportedHandleTypes => hipDeviceAttributeMemoryPoolSupportedHandleTypes,
    ClockInstructionRate => hipDeviceAttributeClockInstructionRate,
    MaxSharedMemoryPerMultiprocessor => hipDeviceAttributeMaxSharedMemoryPerMultiprocessor,
    HdpMemFlushCntl => hipDeviceAttributeHdpMemFlushCntl,
    HdpRegFlushCntl => hipDeviceAttributeHdpRegFlushCntl,
    CooperativeMultiDeviceUnmatchedFunc => hipDeviceAttributeCooperativeMultiDeviceUnmatchedFunc,
    CooperativeMultiDeviceUnmatchedGridDim => hipDeviceAttributeCooperativeMultiDeviceUnmatchedGridDim,
    CooperativeMultiDeviceUnmatchedBlockDim => hipDeviceAttributeCooperativeMultiDeviceUnmatchedBlockDim,
    CooperativeMultiDeviceUnmatchedSharedMem => hipDeviceAttributeCooperativeMultiDeviceUnmatchedSharedMem,
    IsLargeBar => hipDeviceAttributeIsLargeBar,
    AsicRevision => hipDeviceAttributeAsicRevision,
    CanUseStreamWaitValue => hipDeviceAttributeCanUseStreamWaitValue,
    ImageSupport => hipDeviceAttributeImageSupport,
    PhysicalMultiProcessorCount => hipDeviceAttributePhysicalMultiProcessorCount,
    FineGrainSupport => hipDeviceAttributeFineGrainSupport,
    WallClockRate => hipDeviceAttributeWallClockRate,
}

/// The environment variables that choose which devices are visible, and
/// the AMD architecture override, as set in this process.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct VisibleDevices {
    /// `HIP_VISIBLE_DEVICES` (read by the AMD runtime; on the NVIDIA platform
    /// the CUDA driver reads `CUDA_VISIBLE_DEVICES` instead).
    pub hip_visible_devices: Option<String>,
    /// `CUDA_VISIBLE_DEVICES` (NVIDIA; also honoured by ROCm).
    pub cuda_visible_devices: Option<String>,
    /// `ROCR_VISIBLE_DEVICES` (AMD, below HIP).
    pub rocr_visible_devices: Option<String>,
    /// `HSA_OVERRIDE_GFX_VERSION` (AMD: pretend to be another gfx version).
    pub hsa_override_gfx_version: Option<String>,
}

impl VisibleDevices {
    /// Reads the variables from the environment.
    pub fn from_env() -> VisibleDevices {
        let get = |k| std::env::var(k).ok();
        VisibleDevices {
            hip_visible_devices: get("HIP_VISIBLE_DEVICES"),
            cuda_visible_devices: get("CUDA_VISIBLE_DEVICES"),
            rocr_visible_devices: get("ROCR_VISIBLE_DEVICES"),
            hsa_override_gfx_version: get("HSA_OVERRIDE_GFX_VERSION"),
        }
    }
}

impl fmt::Display for VisibleDevices {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows = [
            ("HIP_VISIBLE_DEVICES", &self.hip_visible_devices),
            ("CUDA_VISIBLE_DEVICES", &self.cuda_visible_devices),
            ("ROCR_VISIBLE_DEVICES", &self.rocr_visible_devices),
            ("HSA_OVERRIDE_GFX_VERSION", &self.hsa_override_gfx_version),
        ];
        for (i, (k, v)) in rows.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            match v {
                Some(v) => write!(f, "{k}={v:?}")?,
                None => write!(f, "{k} (unset)")?,
            }
        }
        Ok(())
    }
}

/// The loaded runtime's version (`hipRuntimeGetVersion`), decoded.
pub fn runtime_version() -> Result<Version> {
    let rt = loaded()?;
    let v = result::runtime_get_version()?;
    Ok(match rt.platform {
        Platform::Amd => Version::from_hip(v),
        Platform::Nvidia => Version::from_cuda(v),
    })
}

/// The driver's version (`hipDriverGetVersion`), raw.
pub fn driver_version() -> Result<i32> {
    loaded()?;
    result::driver_get_version()
}

/// Runs `f` with device `want` current on this thread, restoring the
/// previous current device afterwards.
pub(crate) fn with_current_device<T>(want: i32, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let previous = result::get_device()?;
    if previous == want {
        return f();
    }
    result::set_device(want)?;
    let out = f();
    let restored = result::set_device(previous);
    let out = out?;
    restored?;
    Ok(out)
}
