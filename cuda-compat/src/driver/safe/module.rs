//! `CudaModule`, `CudaFunction`: loading code, kernels, attributes,
//! globals.

use super::context::{CudaContext, CudaStream};
use super::memory::CudaViewMut;
use crate::driver::result::{check, invalid, DriverError, ToDriver};
use crate::driver::sys;
use crate::nvrtc::safe::{compile_for, PtxKind};
use crate::nvrtc::Ptx;
use hip_sys::loader::Platform;
use std::ffi::c_int;
use std::marker::PhantomData;
use std::sync::Arc;

/// A loaded module (cudarc's `CudaModule`) over `hip::Module`.
#[derive(Debug)]
pub struct CudaModule {
    pub(crate) module: hip::Module,
    pub(crate) ctx: Arc<CudaContext>,
}

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
    /// - A file that cannot be read is `CUDA_ERROR_FILE_NOT_FOUND`.
    pub fn load_module(self: &Arc<Self>, ptx: Ptx) -> Result<Arc<CudaModule>, DriverError> {
        let platform = crate::backend()
            .map_err(|_| DriverError(sys::CUresult::CUDA_ERROR_SHARED_OBJECT_INIT_FAILED))?
            .platform;
        ptx.loads_on(platform)?;
        let image: Vec<u8> = match ptx.0 {
            PtxKind::Src(s) if platform == Platform::Nvidia => s.into_bytes(),
            PtxKind::File(p) if platform == Platform::Nvidia => std::fs::read(&p)
                .map_err(|_| DriverError(sys::CUresult::CUDA_ERROR_FILE_NOT_FOUND))?,
            PtxKind::Src(_) | PtxKind::File(_) => return Err(invalid()),
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
    /// `CUDA_ERROR_NOT_FOUND`.
    pub fn load_function(self: &Arc<Self>, name: &str) -> Result<CudaFunction, DriverError> {
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
