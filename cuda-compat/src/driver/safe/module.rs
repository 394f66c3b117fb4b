//! `CudaModule`, `CudaFunction`: loading code, kernels, attributes,
//! globals.

use super::context::{CudaContext, CudaStream};
use super::memory::CudaViewMut;
use crate::driver::result::{check, invalid, DriverError, ToDriver};
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
        let platform = crate::backend()
            .map_err(|_| DriverError(sys::CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED))?
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
        let mut v = 0;
        // SAFETY: the function is live; `v` is a valid place.
        check(unsafe {
            hip::sys::hipFuncGetAttribute(&mut v, attribute.into(), self.function.as_raw())
        })?;
        Ok(v)
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
    /// (`hipModuleOccupancyMaxPotentialBlockSizeWithFlags`).
    ///
    /// HIP takes one dynamic shared-memory size for every block size, so
    /// `block_size_to_dynamic_smem_size` is asked once, for
    /// `block_size_limit` (or the kernel's maximum when 0), and the answer
    /// used throughout: exact for callbacks that return a constant.
    pub fn occupancy_max_potential_block_size(
        &self,
        block_size_to_dynamic_smem_size: extern "C" fn(block_size: c_int) -> usize,
        dynamic_smem_size: usize,
        block_size_limit: i32,
        flags: Option<u32>,
    ) -> Result<(u32, u32), DriverError> {
        if block_size_limit < 0 {
            return Err(invalid());
        }
        let probe = if block_size_limit > 0 {
            block_size_limit
        } else {
            self.max_threads_per_block()?
        };
        let smem = dynamic_smem_size.max(block_size_to_dynamic_smem_size(probe));
        self.function
            .max_potential_block_size_with_flags(smem, block_size_limit as u32, flags.unwrap_or(0))
            .drv()
    }

    /// Sets the largest dynamic shared memory a launch may ask for
    /// (`hipFuncSetAttribute` with `hipFuncAttributeMaxDynamicSharedMemorySize`;
    /// on AMD the runtime may refuse a module function, and says so).
    pub fn set_max_dynamic_shared_memory(&self, bytes: i32) -> Result<(), DriverError> {
        let bytes = u32::try_from(bytes).map_err(|_| invalid())?;
        self.function.set_max_dynamic_shared_memory(bytes).drv()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::result::last_error_detail;
    use test_kit::code_object::{envelope, tiny_bundle};

    fn parsed(source: Option<&str>, targets: &[&str], unavailable: &[(&str, &str)]) -> Envelope {
        Envelope::parse(&envelope(&tiny_bundle(), source, targets, unavailable)).unwrap()
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
