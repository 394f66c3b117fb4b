//! `CudaModule`, `CudaFunction`: loading code, kernels, attributes,
//! globals.

use super::context::{CudaContext, CudaStream};
use super::memory::CudaViewMut;
use crate::driver::result::{invalid, invalid_because, DriverError, ToDriver};
use crate::driver::sys;
use crate::nvrtc::safe::{compile_for, PtxKind, Text};
use crate::nvrtc::Ptx;
use hip::code_object::{Envelope, Unavailable};
use hip_sys::loader::Platform;
use std::ffi::c_int;
use std::marker::PhantomData;
use std::sync::Arc;

/// A loaded module (cudarc's `CudaModule`) over `hip::Module`.
#[derive(Debug)]
pub struct CudaModule {
    pub(crate) module: hip::Module,
    pub(crate) ctx: Arc<CudaContext>,
    /// What an AMD code-object envelope said its builder left out.
    pub(crate) missing: MissingKernels,
}

/// The kernels a code-object envelope lists as unavailable on AMD, and
/// the source file they came from; empty for other modules.
#[derive(Debug, Default)]
pub(crate) struct MissingKernels {
    pub(crate) source: Option<String>,
    pub(crate) unavailable: Vec<Unavailable>,
}

impl MissingKernels {
    fn of(envelope: &Envelope) -> MissingKernels {
        MissingKernels {
            source: envelope.source().map(str::to_owned),
            unavailable: envelope.unavailable().to_vec(),
        }
    }

    /// `CUDA_ERROR_NOT_SUPPORTED`, with the builder's reason, when `name`
    /// is listed.
    pub(crate) fn check(&self, name: &str) -> Result<(), DriverError> {
        let Some(u) = self.unavailable.iter().find(|u| u.kernel == name) else {
            return Ok(());
        };
        let from = self
            .source
            .as_deref()
            .map_or(String::new(), |s| format!(" (from {s})"));
        Err(crate::driver::result::fail(
            sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
            &format!(
                "kernel `{name}` is not available on AMD: {}{from}",
                u.reason
            ),
        ))
    }
}

/// `CUDA_ERROR_NO_BINARY_FOR_GPU` unless one of the envelope's targets
/// runs on a device whose architecture string is `arch`
/// (`gfx90a:sramecc+:xnack-`).
pub(crate) fn check_targets(envelope: &Envelope, arch: &str) -> Result<(), DriverError> {
    if envelope.runs_on(arch) {
        return Ok(());
    }
    let processor = arch.split(':').next().unwrap_or(arch);
    let from = envelope
        .source()
        .map_or(String::new(), |s| format!(" (from {s})"));
    Err(crate::driver::result::fail(
        sys::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU,
        &format!(
            "this device is {arch}, and the kernels{from} were built for {} only, none of \
             which runs on it: rebuild them with {TARGETS_VAR}={processor} (or add \
             {processor} to the list it holds)",
            envelope.targets().join(" ")
        ),
    ))
}

/// hip-build's variable for the `--offload-arch` list, which the
/// cudaforge drop-in also reads.
const TARGETS_VAR: &str = "HIP_BUILD_OFFLOAD_ARCH";

/// A kernel of a module (cudarc's `CudaFunction`) over `hip::Function`;
/// keeps its module loaded.
#[derive(Debug, Clone)]
pub struct CudaFunction {
    pub(crate) function: hip::Function,
    pub(crate) module: Arc<CudaModule>,
}

impl CudaContext {
    /// Loads compiled code (`hipModuleLoadData`).
    ///
    /// - Code from `compile_ptx` on AMD loads as is on a device of the
    ///   architecture it was compiled for; on another architecture the kept
    ///   source is recompiled for this device first.
    /// - PTX text (`Ptx::from_file`, `Ptx::from_src`) loads on the NVIDIA
    ///   platform only; on AMD it is `CUDA_ERROR_INVALID_PTX`, before any
    ///   device work.
    /// - An AMD code-object envelope in place of the PTX text (what the
    ///   hip-rs `cudaforge` drop-in writes on AMD; see
    ///   [`hip::code_object::Envelope`]) loads on AMD: its bundle is
    ///   loaded when one of its targets runs on this device, else it is
    ///   `CUDA_ERROR_NO_BINARY_FOR_GPU`, the reason naming the device's
    ///   architecture, the targets and `HIP_BUILD_OFFLOAD_ARCH` to rebuild
    ///   with. A kernel the envelope lists as unavailable is
    ///   `CUDA_ERROR_NOT_SUPPORTED` from [`CudaModule::load_function`],
    ///   with the builder's reason. On NVIDIA, and when malformed, an
    ///   envelope is `CUDA_ERROR_INVALID_IMAGE`, before any device work.
    /// - A file that cannot be read is `CUDA_ERROR_FILE_NOT_FOUND`.
    ///
    /// The reasons are in [`crate::driver::result::last_error_detail`]
    /// and the error's `Debug`.
    pub fn load_module(self: &Arc<Self>, ptx: Ptx) -> Result<Arc<CudaModule>, DriverError> {
        let platform = crate::probe::backend()
            .map_err(|e| {
                crate::driver::result::fail(
                    sys::CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED,
                    &e.to_string(),
                )
            })?
            .platform;
        // Text is checked as it is read, below: once.
        if !matches!(ptx.0, PtxKind::Src(_) | PtxKind::File(_)) {
            ptx.loads_on(platform)?;
        }
        let image: Vec<u8> = match ptx.0 {
            PtxKind::Src(_) | PtxKind::File(_) => match ptx.text_for(platform)? {
                Some(Text::Ptx(bytes)) => bytes,
                Some(Text::Envelope(envelope)) => return self.load_envelope(&envelope),
                None => return Err(invalid()),
            },
            PtxKind::Binary(b) => b,
            PtxKind::Compiled(c) => {
                if c.platform == Platform::Amd {
                    let arch = self.device.offload_arch().drv()?;
                    if c.arch.as_deref() == Some(arch.as_str()) {
                        c.code
                    } else {
                        match compile_for(&c.source, c.options, platform, Some(arch))
                            .map_err(recompile_failed)?
                            .0
                        {
                            PtxKind::Compiled(r) => r.code,
                            _ => return Err(invalid()),
                        }
                    }
                } else {
                    c.code
                }
            }
        };
        let module = hip::Module::load_data(&self.device, &image).drv()?;
        Ok(Arc::new(CudaModule {
            module,
            ctx: self.clone(),
            missing: MissingKernels::default(),
        }))
    }

    /// Loads an envelope's bundle when one of its targets runs on this
    /// device.
    fn load_envelope(
        self: &Arc<Self>,
        envelope: &Envelope,
    ) -> Result<Arc<CudaModule>, DriverError> {
        let arch = self.device.offload_arch().drv()?;
        check_targets(envelope, &arch)?;
        let module = hip::Module::load_data(&self.device, envelope.image()).drv()?;
        Ok(Arc::new(CudaModule {
            module,
            ctx: self.clone(),
            missing: MissingKernels::of(envelope),
        }))
    }
}

fn recompile_failed(e: crate::nvrtc::CompileError) -> DriverError {
    crate::driver::result::fail(
        sys::CUresult::CUDA_ERROR_INVALID_SOURCE,
        &format!("recompiling for this device failed: {e}"),
    )
}

impl CudaModule {
    /// The kernel `name` (`hipModuleGetFunction`); a missing one is
    /// `CUDA_ERROR_NOT_FOUND`. A kernel that the module's code-object
    /// envelope lists as unavailable on AMD is `CUDA_ERROR_NOT_SUPPORTED`,
    /// the builder's reason in
    /// [`crate::driver::result::last_error_detail`].
    pub fn load_function(self: &Arc<Self>, name: &str) -> Result<CudaFunction, DriverError> {
        self.missing.check(name)?;
        let function = self.module.function(name).drv()?;
        Ok(CudaFunction {
            function,
            module: self.clone(),
        })
    }

    /// The raw handle.
    pub fn cu_module(&self) -> sys::CUmodule {
        self.module.as_raw()
    }

    /// Its context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// A module global (`__device__` or `__constant__`) as bytes
    /// (`hipModuleGetGlobal`): a view that does not own the memory, tied to
    /// the module's and the stream's lifetimes. Copies into it order on
    /// `stream`; globals are not event-tracked.
    pub fn get_global<'a>(
        self: &'a Arc<Self>,
        name: &str,
        stream: &'a Arc<CudaStream>,
    ) -> Result<CudaViewMut<'a, u8>, DriverError> {
        if stream.ctx.ordinal != self.ctx.ordinal {
            return Err(invalid());
        }
        // SAFETY: only the address and size leave here, inside a
        // `CudaViewMut` whose copies are ordered on `stream` (cudarc's
        // API). Two such views of one global alias device memory, never
        // host memory, and any bytes are valid `u8`s: wrong values at
        // worst, never undefined behaviour on the host.
        let (ptr, bytes) = unsafe { self.module.global_mut(name) }
            .map(|mut g| (g.as_device_ptr_mut(), g.len()))
            .drv()?;
        Ok(CudaViewMut {
            ptr: ptr as sys::CUdeviceptr,
            len: bytes,
            events: &super::memory::UNTRACKED,
            stream,
            marker: PhantomData,
        })
    }
}

impl CudaFunction {
    /// The raw handle.
    pub fn cu_function(&self) -> sys::CUfunction {
        self.function.as_raw()
    }

    /// Its module.
    pub fn module(&self) -> &Arc<CudaModule> {
        &self.module
    }

    /// One attribute (`hipFuncGetAttribute`).
    pub fn get_attribute(&self, attribute: sys::CUfunction_attribute) -> Result<i32, DriverError> {
        self.module.ctx.bind_to_thread()?;
        // SAFETY: the function is live (its module is held).
        unsafe { hip::result::func_get_attribute(attribute.into(), self.function.as_raw()) }.drv()
    }

    /// Registers per thread.
    pub fn num_regs(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS)
    }
    /// Static shared memory per block, bytes.
    pub fn shared_size_bytes(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
    }
    /// Constant memory, bytes.
    pub fn const_size_bytes(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)
    }
    /// Local memory per thread, bytes.
    pub fn local_size_bytes(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
    }
    /// The largest block this kernel can be launched with.
    pub fn max_threads_per_block(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    }
    /// The PTX version (major * 10 + minor); HIP's value on AMD.
    pub fn ptx_version(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_PTX_VERSION)
    }
    /// The binary version (major * 10 + minor); HIP's value on AMD.
    pub fn binary_version(&self) -> Result<i32, DriverError> {
        self.get_attribute(sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_BINARY_VERSION)
    }

    /// The block size that maximises occupancy and the smallest grid that
    /// reaches it, as (min grid size, block size)
    /// (`hipModuleOccupancyMaxPotentialBlockSizeWithFlags`; on NVIDIA,
    /// CUDA's `cuOccupancyMaxPotentialBlockSizeWithFlags` underneath).
    /// `block_size_limit` 0 is no limit; one beyond `i32::MAX` is
    /// `CUDA_ERROR_INVALID_VALUE`. `None` flags are
    /// `CU_OCCUPANCY_DEFAULT`.
    ///
    /// HIP takes one dynamic shared-memory size for every block size, so
    /// `block_size_to_dynamic_smem_size` is asked once, for
    /// `block_size_limit` (or the kernel's maximum when 0), and the answer
    /// used throughout: exact for callbacks that return a constant.
    pub fn occupancy_max_potential_block_size(
        &self,
        block_size_to_dynamic_smem_size: extern "C" fn(block_size: c_int) -> usize,
        dynamic_smem_size: usize,
        block_size_limit: u32,
        flags: Option<sys::CUoccupancy_flags_enum>,
    ) -> Result<(u32, u32), DriverError> {
        let limit = as_c_int(block_size_limit, "block_size_limit")?;
        let probe = if limit > 0 {
            limit
        } else {
            self.max_threads_per_block()?
        };
        let smem = dynamic_smem_size.max(block_size_to_dynamic_smem_size(probe));
        let flags = flags.unwrap_or(sys::CUoccupancy_flags_enum::CU_OCCUPANCY_DEFAULT);
        self.function
            .max_potential_block_size_with_flags(smem, block_size_limit, flags as u32)
            .drv()
    }

    /// How many blocks of `block_size` threads, each with
    /// `dynamic_smem_size` bytes of dynamic shared memory, can be resident
    /// on one multiprocessor at once
    /// (`hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`; on
    /// AMD a multiprocessor is a compute unit, on NVIDIA this is CUDA's
    /// `cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags`
    /// underneath). 0 when such a block cannot run at all. `None` flags
    /// are `CU_OCCUPANCY_DEFAULT`; `CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE`
    /// changes nothing on AMD, which has no cache preference to override.
    /// A `block_size` beyond `i32::MAX` is `CUDA_ERROR_INVALID_VALUE`; the
    /// runtime refuses others it cannot place.
    pub fn occupancy_max_active_blocks_per_multiprocessor(
        &self,
        block_size: u32,
        dynamic_smem_size: usize,
        flags: Option<sys::CUoccupancy_flags_enum>,
    ) -> Result<u32, DriverError> {
        let block = as_c_int(block_size, "block_size")?;
        let flags = flags.unwrap_or(sys::CUoccupancy_flags_enum::CU_OCCUPANCY_DEFAULT);
        self.module.ctx.bind_to_thread()?;
        self.active_blocks(block, dynamic_smem_size, flags as u32)
    }

    /// The most dynamic shared memory, in bytes, that each block of
    /// `block_size` threads may use for `num_blocks` such blocks to be
    /// resident on one multiprocessor at once (CUDA's
    /// `cuOccupancyAvailableDynamicSMemPerBlock`).
    ///
    /// **Where HIP differs**: HIP has no such call, so the answer is
    /// derived, on AMD and on NVIDIA alike, from the occupancy calculator
    /// HIP does have
    /// ([`CudaFunction::occupancy_max_active_blocks_per_multiprocessor`]):
    /// the largest size, up to the kernel's
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` (what a launch may
    /// ask for: on AMD the compute unit's LDS beside the kernel's static
    /// share, on NVIDIA 48 KiB less the static share unless raised with
    /// [`CudaFunction::set_attribute`]), for which it still places
    /// `num_blocks` blocks; a size it refuses counts as one that does not
    /// fit. Found by a doubling and then a bisection: some 30 calls, all
    /// computed on the host. That is what CUDA's answer means, and on
    /// NVIDIA the same number wherever CUDA's calculator and its own
    /// closed form agree.
    ///
    /// `num_blocks` 0, sizes beyond `i32::MAX`, and a `num_blocks` that
    /// does not fit even without dynamic shared memory (registers or
    /// threads run out first) are `CUDA_ERROR_INVALID_VALUE`, the reason
    /// in
    /// [`last_error_detail`](crate::driver::result::last_error_detail).
    pub fn occupancy_available_dynamic_smem_per_block(
        &self,
        num_blocks: u32,
        block_size: u32,
    ) -> Result<usize, DriverError> {
        as_c_int(num_blocks, "num_blocks")?;
        let block = as_c_int(block_size, "block_size")?;
        if num_blocks == 0 {
            return Err(invalid_because("num_blocks is 0"));
        }
        self.module.ctx.bind_to_thread()?;
        let without_smem = self.active_blocks(block, 0, 0)?;
        if without_smem < num_blocks {
            return Err(invalid_because(&format!(
                "{num_blocks} blocks of {block_size} threads do not fit on one multiprocessor \
                 even without dynamic shared memory (at most {without_smem} do)"
            )));
        }
        let kernel_limit = self
            .get_attribute(
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            )
            .ok()
            .filter(|&bytes| bytes > 0)
            .map_or(LARGEST_SMEM, |bytes| bytes as usize);
        // A size the calculator refuses (some refuse more than a block may
        // have) is one that does not fit: 0 bytes fit, checked above.
        Ok(largest_fitting(kernel_limit, |smem| {
            self.active_blocks(block, smem, 0)
                .is_ok_and(|blocks| blocks >= num_blocks)
        }))
    }

    /// cudarc's `cuOccupancyMaxActiveClusters`: how many thread-block
    /// clusters of a launch of `config` on `stream` can be resident at
    /// once.
    ///
    /// **Where HIP differs**: thread-block clusters are a CUDA (Hopper and
    /// later) feature HIP does not expose: AMD GPUs have none, and HIP's
    /// NVIDIA platform offers only HIP's calls. So this is always
    /// `CUDA_ERROR_NOT_SUPPORTED`, with the reason in
    /// [`last_error_detail`](crate::driver::result::last_error_detail);
    /// the arguments are not looked at. A program that asks it to decide
    /// on clusters should fall back to plain blocks
    /// ([`CudaFunction::occupancy_max_active_blocks_per_multiprocessor`]).
    pub fn occupancy_max_active_clusters(
        &self,
        config: crate::driver::LaunchConfig,
        stream: &CudaStream,
    ) -> Result<u32, DriverError> {
        let _ = (config, stream);
        Err(no_clusters("cuOccupancyMaxActiveClusters"))
    }

    /// cudarc's `cuOccupancyMaxPotentialClusterSize`: the largest cluster
    /// size `config` could be launched with.
    ///
    /// **Where HIP differs**: as
    /// [`CudaFunction::occupancy_max_active_clusters`], always
    /// `CUDA_ERROR_NOT_SUPPORTED` with its reason, on AMD and through HIP's
    /// NVIDIA platform.
    pub fn occupancy_max_potential_cluster_size(
        &self,
        config: crate::driver::LaunchConfig,
        stream: &CudaStream,
    ) -> Result<u32, DriverError> {
        let _ = (config, stream);
        Err(no_clusters("cuOccupancyMaxPotentialClusterSize"))
    }

    /// Sets one attribute of the kernel (`hipFuncSetAttribute`; on NVIDIA,
    /// CUDA's `cuFuncSetAttribute` underneath).
    ///
    /// The attributes a program may set are the two HIP has:
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` and
    /// `CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`. Any other
    /// (the read-only ones, and CUDA's cluster attributes, which HIP
    /// lacks) is `CUDA_ERROR_INVALID_VALUE` with the reason, before any
    /// call. On AMD the runtime checks the value (the dynamic shared
    /// memory must fit the compute unit's LDS beside the kernel's static
    /// share, the carve-out be a percentage or -1) and records the
    /// maximum; a carve-out changes nothing there, AMD having no L1/LDS
    /// split to choose. Older AMD runtimes may refuse a module's kernel
    /// here, with their status. On NVIDIA CUDA checks and applies both.
    pub fn set_attribute(
        &self,
        attribute: sys::CUfunction_attribute_enum,
        value: i32,
    ) -> Result<(), DriverError> {
        self.module.ctx.bind_to_thread()?;
        // SAFETY: the function is live (`self` holds it and its module).
        unsafe {
            crate::driver::result::function::set_function_attribute(
                self.function.as_raw(),
                attribute,
                value,
            )
        }
    }

    /// Sets the kernel's cache preference (`hipFuncSetCacheConfig`; on
    /// NVIDIA, CUDA's `cuFuncSetCacheConfig` underneath). A preference
    /// only: on AMD, which has no configurable L1/shared split, the
    /// runtime accepts it and nothing changes.
    pub fn set_function_cache_config(
        &self,
        attribute: sys::CUfunc_cache_enum,
    ) -> Result<(), DriverError> {
        self.module.ctx.bind_to_thread()?;
        // SAFETY: the function is live (`self` holds it and its module).
        unsafe {
            crate::driver::result::function::set_function_cache_config(
                self.function.as_raw(),
                attribute,
            )
        }
    }

    /// Resident blocks of `block` threads with `smem` dynamic bytes, with
    /// occupancy `flags`; the context is current.
    fn active_blocks(&self, block: c_int, smem: usize, flags: u32) -> Result<u32, DriverError> {
        // SAFETY: the function is live (`self` holds it and its module).
        let n = unsafe {
            crate::driver::result::occupancy::max_active_block_per_multiprocessor_with_flags(
                self.function.as_raw(),
                block,
                smem,
                flags,
            )
        }?;
        Ok(n.max(0) as u32)
    }

    /// Sets the largest dynamic shared memory a launch may ask for
    /// (`hipFuncSetAttribute` with `hipFuncAttributeMaxDynamicSharedMemorySize`;
    /// on AMD the runtime may refuse a module function, and says so).
    pub fn set_max_dynamic_shared_memory(&self, bytes: i32) -> Result<(), DriverError> {
        let bytes = u32::try_from(bytes).map_err(|_| invalid())?;
        self.function.set_max_dynamic_shared_memory(bytes).drv()
    }
}

/// `value` as the C `int` HIP's call takes; beyond `i32::MAX` it is
/// `CUDA_ERROR_INVALID_VALUE`, naming `what` (cudarc's cast would have
/// made it negative, which CUDA refuses the same way).
fn as_c_int(value: u32, what: &str) -> Result<c_int, DriverError> {
    c_int::try_from(value)
        .map_err(|_| invalid_because(&format!("{what} {value} does not fit in a C int")))
}

/// `CUDA_ERROR_NOT_SUPPORTED` for the cluster call `call`.
#[cold]
fn no_clusters(call: &str) -> DriverError {
    crate::driver::result::fail(
        sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
        &format!(
            "{call}: thread-block clusters have no HIP counterpart (AMD GPUs have none, and \
             HIP's NVIDIA platform offers only HIP's calls)"
        ),
    )
}

/// The largest size in `0..=ceiling` for which `fits` holds, for a `fits`
/// that holds at 0 and, once false for a size, is false for every larger
/// one (the occupancy calculator's blocks, which only fall as shared
/// memory grows): doubling from 1 KiB until it fails or reaches
/// `ceiling`, then bisecting between the last size that fits and the
/// first that does not. Some 2 log2(ceiling) calls of `fits` at most.
fn largest_fitting(ceiling: usize, mut fits: impl FnMut(usize) -> bool) -> usize {
    let mut fitting = 0;
    let mut probe = ceiling.min(1024);
    while probe > fitting {
        if !fits(probe) {
            break;
        }
        fitting = probe;
        probe = probe.saturating_mul(2).min(ceiling);
    }
    if probe == fitting {
        return fitting;
    }
    let mut failing = probe;
    while failing - fitting > 1 {
        let mid = fitting + (failing - fitting) / 2;
        if fits(mid) {
            fitting = mid;
        } else {
            failing = mid;
        }
    }
    fitting
}

/// How far [`largest_fitting`] looks when the kernel reports no limit of
/// its own: 2 GiB, far beyond any multiprocessor's shared memory (a
/// calculator that never says no ends there).
const LARGEST_SMEM: usize = 1 << 31;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::result::last_error_detail;
    use test_kit::code_object::{envelope, tiny_bundle};

    fn parsed(source: Option<&str>, targets: &[&str], unavailable: &[(&str, &str)]) -> Envelope {
        Envelope::parse(&envelope(&tiny_bundle(), source, targets, unavailable)).unwrap()
    }

    #[test]
    fn largest_fitting_finds_the_last_size_that_fits() {
        for limit in [
            0,
            1,
            1023,
            1024,
            1025,
            48 * 1024,
            65_535,
            65_536,
            228 * 1024 - 1,
        ] {
            let mut asked = 0;
            let found = largest_fitting(LARGEST_SMEM, |smem| {
                asked += 1;
                smem <= limit
            });
            assert_eq!(found, limit, "limit {limit}");
            assert!(asked <= 2 * 32, "{asked} calls for {limit}");
        }
        // A calculator that never says no stops at the ceiling, whatever
        // it is, and is never asked beyond it.
        for ceiling in [0, 1, 1000, 1024, 49_152, 65_536, LARGEST_SMEM] {
            let found = largest_fitting(ceiling, |smem| {
                assert!(smem <= ceiling, "{smem} asked, ceiling {ceiling}");
                true
            });
            assert_eq!(found, ceiling);
        }
        // Below the ceiling, the calculator's answer.
        assert_eq!(largest_fitting(49_152, |smem| smem <= 28_000), 28_000);
        assert_eq!(largest_fitting(49_152, |smem| smem <= 60_000), 49_152);
    }

    #[test]
    fn sizes_beyond_a_c_int_are_invalid_values() {
        assert_eq!(as_c_int(256, "block_size"), Ok(256));
        assert_eq!(as_c_int(i32::MAX as u32, "block_size"), Ok(i32::MAX));
        let e = as_c_int(i32::MAX as u32 + 1, "block_size").unwrap_err();
        assert_eq!(e.0, sys::CUresult::CUDA_ERROR_INVALID_VALUE);
        let (_, why) = last_error_detail().expect("a reason");
        assert_eq!(why, "block_size 2147483648 does not fit in a C int");
    }

    #[test]
    fn cluster_calls_say_why_they_are_not_supported() {
        let e = no_clusters("cuOccupancyMaxActiveClusters");
        assert_eq!(e.0, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
        let (_, why) = last_error_detail().expect("a reason");
        assert!(
            why.starts_with("cuOccupancyMaxActiveClusters: thread-block clusters"),
            "{why}"
        );
    }

    #[test]
    fn no_target_for_the_device_is_no_binary_for_gpu() {
        let e = parsed(Some("affine.cu"), &["gfx90a:xnack+", "gfx1100"], &[]);
        assert!(check_targets(&e, "gfx90a:sramecc+:xnack+").is_ok());
        assert!(check_targets(&e, "gfx1100").is_ok());
        let err = check_targets(&e, "gfx90a:sramecc+:xnack-").unwrap_err();
        assert_eq!(err.0, sys::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU);
        let (status, why) = last_error_detail().expect("a reason");
        assert_eq!(status, sys::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU);
        assert_eq!(
            why,
            "this device is gfx90a:sramecc+:xnack-, and the kernels (from affine.cu) were \
             built for gfx90a:xnack+ gfx1100 only, none of which runs on it: rebuild them \
             with HIP_BUILD_OFFLOAD_ARCH=gfx90a (or add gfx90a to the list it holds)"
        );
        assert!(
            format!("{err:?}").contains("HIP_BUILD_OFFLOAD_ARCH=gfx90a"),
            "{err:?}"
        );
        // Without a source line, no "(from ...)".
        let e = parsed(None, &["gfx942"], &[]);
        check_targets(&e, "gfx1030").unwrap_err();
        let (_, why) = last_error_detail().unwrap();
        assert!(
            why.starts_with("this device is gfx1030, and the kernels were built for gfx942 only"),
            "{why}"
        );
    }

    #[test]
    fn an_unavailable_kernel_is_not_supported_with_its_reason() {
        let e = parsed(
            Some("affine.cu"),
            &["gfx90a"],
            &[
                ("affine_f64", "needs fp64 atomics"),
                ("affine_f64", "second reason"),
            ],
        );
        let missing = MissingKernels::of(&e);
        assert!(missing.check("affine_f32").is_ok());
        let err = missing.check("affine_f64").unwrap_err();
        assert_eq!(err.0, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
        let (status, why) = last_error_detail().expect("a reason");
        assert_eq!(status, sys::CUresult::CUDA_ERROR_NOT_SUPPORTED);
        assert_eq!(
            why,
            "kernel `affine_f64` is not available on AMD: needs fp64 atomics (from affine.cu)"
        );
        let none = MissingKernels::of(&parsed(None, &["gfx90a"], &[("k", "why")]));
        none.check("k").unwrap_err();
        assert_eq!(
            last_error_detail().unwrap().1,
            "kernel `k` is not available on AMD: why"
        );
        // Modules not loaded from an envelope list nothing.
        assert!(MissingKernels::default().check("affine_f64").is_ok());
    }
}
