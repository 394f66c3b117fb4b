//! Code objects, kernels and runtime compilation (hiprtc).

use crate::device::Device;
use crate::error;
use crate::error::{Error, Result};
use crate::launch_config::LaunchConfig;
use crate::memory::{DeviceSlice, DeviceSliceMut};
use crate::result;
use hip_sys as sys;
use std::collections::HashMap;
use std::ffi::CString;
use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// A loaded code object (`hipModule_t`).
///
/// Cheap to clone (shared handle); unloaded when the last clone and the last
/// [`Function`] from it are gone.
///
/// **Threads**: `Send + Sync`: module handles are only passed to
/// thread-safe runtime calls.
#[derive(Clone)]
pub struct Module {
    inner: Arc<ModuleInner>,
}

struct ModuleInner {
    raw: sys::hipModule_t,
    device: Arc<Device>,
    /// The kernels looked up so far, by name: frameworks look a kernel up
    /// before each launch (candle does), and the runtime's lookup costs a
    /// name copy, a device bind and a driver call each time. A handle is
    /// valid as long as the module is loaded, which the cache does not
    /// outlive.
    functions: Mutex<FunctionCache>,
}

/// Kernels by name: the handle, and the name shared with each `Function`.
type FunctionCache = HashMap<Box<str>, (sys::hipFunction_t, Arc<str>)>;

// SAFETY: an opaque runtime handle; the runtime is thread-safe.
unsafe impl Send for ModuleInner {}
// SAFETY: as above.
unsafe impl Sync for ModuleInner {}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module")
            .field("raw", &self.inner.raw)
            .field("device", &self.inner.device.ordinal())
            .finish()
    }
}

impl Module {
    /// Loads a code object (or, on NVIDIA, PTX/cubin/fatbin) from memory
    /// (`hipModuleLoadData`) onto `device`.
    ///
    /// The runtime trusts the offsets inside an image, so the image is
    /// checked first ([`code_object::validate`](crate::code_object::validate)):
    /// one that is malformed, truncated or for the other platform is an
    /// [`Error::Invalid`] naming what is wrong, and never reaches the
    /// runtime.
    pub fn load_data(device: &Arc<Device>, image: &[u8]) -> Result<Module> {
        if image.is_empty() {
            return Err(Error::invalid(
                "Module::load_data",
                "the code object is empty",
            ));
        }
        let platform = hip_sys::loader::runtime()
            .map_err(|e| Error::Load(e.clone()))?
            .platform;
        crate::code_object::validate(image, platform)
            .map_err(|e| Error::invalid("Module::load_data", e.to_string()))?;
        // Text images (PTX) must be NUL-terminated; a trailing NUL after a
        // binary image is ignored by the loaders.
        let mut owned;
        let bytes = if image.last() == Some(&0) {
            image
        } else {
            owned = Vec::with_capacity(image.len() + 1);
            owned.extend_from_slice(image);
            owned.push(0);
            &owned[..]
        };
        device.bind()?;
        // SAFETY: `bytes` is readable for the call and NUL-terminated.
        let raw = unsafe { result::module_load_data(bytes.as_ptr().cast()) }?;
        Ok(Module {
            inner: Arc::new(ModuleInner {
                raw,
                device: device.clone(),
                functions: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// Loads a code object file onto `device`.
    pub fn load_file(device: &Arc<Device>, path: impl AsRef<Path>) -> Result<Module> {
        let path = path.as_ref();
        let image = std::fs::read(path).map_err(|e| {
            Error::invalid(
                "Module::load_file",
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        Module::load_data(device, &image)
    }

    /// Compiles HIP source for `device` (its architecture, see
    /// [`CompileOptions::for_device`]) and loads the result.
    pub fn compile(device: &Arc<Device>, source: &str) -> Result<Module> {
        let code = compile(source, &CompileOptions::for_device(device)?)?;
        Module::load_data(device, &code.code)
    }

    /// The kernel called `name` (`hipModuleGetFunction`). Use `extern "C"`
    /// kernels, or the mangled name.
    ///
    /// Each name is looked up in the runtime once per module; later calls
    /// return the same kernel from a cache, without a runtime call.
    pub fn function(&self, name: &str) -> Result<Function> {
        let mut cache = self
            .inner
            .functions
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if let Some((raw, name)) = cache.get(name) {
            return Ok(Function {
                raw: *raw,
                name: name.clone(),
                module: self.clone(),
            });
        }
        let c = CString::new(name).map_err(|_| {
            Error::invalid(
                "Module::function",
                format!("kernel name {name:?} contains a NUL byte"),
            )
        })?;
        self.inner.device.bind()?;
        // SAFETY: the module is live; `c` is NUL-terminated.
        let raw = unsafe { result::module_get_function(self.inner.raw, &c) }?;
        let shared: Arc<str> = Arc::from(name);
        cache.insert(name.into(), (raw, shared.clone()));
        Ok(Function {
            raw,
            name: shared,
            module: self.clone(),
        })
    }

    /// The device the module is loaded on.
    pub fn device(&self) -> &Arc<Device> {
        &self.inner.device
    }

    /// Address and size of the module global `name` (`__device__` or
    /// `__constant__`) (`hipModuleGetGlobal`).
    fn global_raw(&self, name: &str) -> Result<(*mut std::ffi::c_void, usize)> {
        let c = CString::new(name).map_err(|_| {
            Error::invalid(
                "Module::global",
                format!("global name {name:?} contains a NUL byte"),
            )
        })?;
        self.inner.device.bind()?;
        // SAFETY: the module is live.
        unsafe { result::module_get_global(self.inner.raw, &c) }
    }

    /// The module global `name` (`__device__` or `__constant__`) as bytes
    /// (`hipModuleGetGlobal`): a view that does not own the memory and
    /// cannot outlive the module. Read it with [`Stream::copy_dtoh`].
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// let dev = hip::Device::get(0)?;
    /// let m = hip::Module::compile(&dev, "__constant__ float coefficients[4];")?;
    /// assert_eq!(m.global("coefficients")?.len(), 16);
    /// # Ok(()) }
    /// ```
    ///
    /// [`Stream::copy_dtoh`]: crate::Stream::copy_dtoh
    pub fn global(&self, name: &str) -> Result<DeviceSlice<'_, u8>> {
        let (ptr, bytes) = self.global_raw(name)?;
        // SAFETY: the runtime gave `bytes` bytes at `ptr` on the module's
        // device; the global lives as long as the module, which the view
        // borrows.
        Ok(unsafe { DeviceSlice::from_raw_parts(ptr.cast(), bytes, &self.inner.device) })
    }

    /// The module global `name` as writable bytes, e.g. to fill constant
    /// memory with [`Stream::copy_htod`](crate::Stream::copy_htod).
    ///
    /// # Safety
    ///
    /// No other view of this global (from this or a clone of this module)
    /// is used while the returned one lives, and no kernel reading it runs
    /// concurrently with a write through it on another stream.
    pub unsafe fn global_mut(&self, name: &str) -> Result<DeviceSliceMut<'_, u8>> {
        let (ptr, bytes) = self.global_raw(name)?;
        // SAFETY: as in `global`; no other view is used meanwhile (the
        // caller's promise).
        Ok(unsafe { DeviceSliceMut::from_raw_parts(ptr.cast(), bytes, &self.inner.device) })
    }

    /// The raw handle.
    pub fn as_raw(&self) -> sys::hipModule_t {
        self.inner.raw
    }
}

impl Drop for ModuleInner {
    fn drop(&mut self) {
        let raw = crate::SendPtr(self.raw);
        self.device.release_outside_captures(move |held| {
            // SAFETY: the last handle to the module (every Function holds
            // one).
            error::record_result(unsafe { result::module_unload(raw.get(), held) });
        });
    }
}

/// A kernel in a loaded module; keeps the module alive.
///
/// **Threads**: `Send + Sync`: a function handle is immutable and only
/// passed to thread-safe calls.
#[derive(Clone)]
pub struct Function {
    raw: sys::hipFunction_t,
    name: Arc<str>,
    module: Module,
}

// SAFETY: an opaque, immutable runtime handle; the module is Send + Sync.
unsafe impl Send for Function {}
// SAFETY: as above.
unsafe impl Sync for Function {}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Function")
            .field("name", &self.name)
            .field("raw", &self.raw)
            .field("module", &self.module)
            .finish()
    }
}

/// A kernel attribute (`hipFunction_attribute`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FunctionAttribute {
    /// Most threads per block this kernel can be launched with.
    MaxThreadsPerBlock,
    /// Static shared memory in bytes.
    SharedSizeBytes,
    /// Constant memory in bytes.
    ConstSizeBytes,
    /// Local (private) memory per thread in bytes.
    LocalSizeBytes,
    /// Registers per thread.
    NumRegs,
    /// PTX version (NVIDIA) the kernel was compiled for.
    PtxVersion,
    /// Binary version the kernel was compiled for.
    BinaryVersion,
    /// Most dynamic shared memory per block, in bytes.
    MaxDynamicSharedSizeBytes,
}

impl FunctionAttribute {
    /// The raw value.
    pub fn raw(self) -> sys::hipFunction_attribute {
        use sys::hipFunction_attribute as A;
        match self {
            FunctionAttribute::MaxThreadsPerBlock => A::HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
            FunctionAttribute::SharedSizeBytes => A::HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
            FunctionAttribute::ConstSizeBytes => A::HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
            FunctionAttribute::LocalSizeBytes => A::HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
            FunctionAttribute::NumRegs => A::HIP_FUNC_ATTRIBUTE_NUM_REGS,
            FunctionAttribute::PtxVersion => A::HIP_FUNC_ATTRIBUTE_PTX_VERSION,
            FunctionAttribute::BinaryVersion => A::HIP_FUNC_ATTRIBUTE_BINARY_VERSION,
            FunctionAttribute::MaxDynamicSharedSizeBytes => {
                A::HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            }
        }
    }
}

impl Function {
    /// The raw handle; valid while this `Function` lives.
    #[inline]
    pub fn as_raw(&self) -> sys::hipFunction_t {
        self.raw
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The module it belongs to.
    pub fn module(&self) -> &Module {
        &self.module
    }

    /// The device it runs on.
    #[inline]
    pub fn device(&self) -> &Arc<Device> {
        &self.module.inner.device
    }

    /// One attribute (`hipFuncGetAttribute`).
    pub fn attribute(&self, attr: FunctionAttribute) -> Result<i32> {
        self.device().bind()?;
        // SAFETY: the function is live.
        unsafe { result::func_get_attribute(attr.raw(), self.raw) }
    }

    /// `e`, from launching this kernel with `block`, as
    /// [`Error::LaunchBound`] when the runtime refused a block larger than
    /// the kernel's bound. Asks the runtime for the bound only on this
    /// error path: a launch that succeeds pays nothing.
    #[cold]
    #[inline(never)]
    pub(crate) fn launch_error(&self, block: (u32, u32, u32), e: Error) -> Error {
        use sys::hipError_t as S;
        let (call, status) = match &e {
            Error::Hip { call, status, .. }
                if matches!(
                    *status,
                    S::hipErrorLaunchFailure
                        | S::hipErrorLaunchOutOfResources
                        | S::hipErrorInvalidConfiguration
                        | S::hipErrorInvalidValue
                ) =>
            {
                (*call, *status)
            }
            _ => return e,
        };
        let threads = u64::from(block.0) * u64::from(block.1) * u64::from(block.2);
        match self.attribute(FunctionAttribute::MaxThreadsPerBlock) {
            Ok(bound) if bound > 0 && threads > bound as u64 => Error::LaunchBound {
                kernel: self.name.to_string(),
                block,
                threads,
                bound: bound as u32,
                call,
                status,
            },
            _ => e,
        }
    }

    /// The block size that maximises occupancy and the smallest grid that
    /// fills the device with it
    /// (`hipModuleOccupancyMaxPotentialBlockSize`), as (grid, block).
    pub fn max_potential_block_size(&self, dynamic_shared_bytes: u32) -> Result<(u32, u32)> {
        self.device().bind()?;
        // SAFETY: the function is live.
        let (g, b) = unsafe {
            result::module_occupancy_max_potential_block_size(
                self.raw,
                dynamic_shared_bytes as usize,
                0,
            )
        }?;
        Ok((g.max(1) as u32, b.max(1) as u32))
    }

    /// As [`Function::max_potential_block_size`] with a block-size limit
    /// (0: none) and occupancy flags (`hipOccupancyDefault`, ...)
    /// (`hipModuleOccupancyMaxPotentialBlockSizeWithFlags`), as (grid,
    /// block).
    pub fn max_potential_block_size_with_flags(
        &self,
        dynamic_shared_bytes: usize,
        block_size_limit: u32,
        flags: u32,
    ) -> Result<(u32, u32)> {
        let limit = i32::try_from(block_size_limit).map_err(|_| {
            Error::invalid(
                "Function::max_potential_block_size_with_flags",
                format!("block size limit {block_size_limit} does not fit in an int"),
            )
        })?;
        self.device().bind()?;
        // SAFETY: the function is live.
        let (grid, block) = unsafe {
            result::module_occupancy_max_potential_block_size_with_flags(
                self.raw,
                dynamic_shared_bytes,
                limit,
                flags,
            )
        }?;
        Ok((grid.max(0) as u32, block.max(0) as u32))
    }

    /// Allows launches with up to `bytes` of dynamic shared memory
    /// (`hipFuncSetAttribute` with
    /// `hipFuncAttributeMaxDynamicSharedMemorySize`). On AMD the runtime
    /// may refuse a module function here; the error says so.
    pub fn set_max_dynamic_shared_memory(&self, bytes: u32) -> Result<()> {
        let v = i32::try_from(bytes).map_err(|_| {
            Error::invalid(
                "Function::set_max_dynamic_shared_memory",
                format!("{bytes} bytes do not fit in an int"),
            )
        })?;
        self.device().bind()?;
        // SAFETY: the function is live; HIP takes the function handle here.
        unsafe {
            result::func_set_attribute(
                self.raw as *const std::ffi::c_void,
                sys::hipFuncAttribute::hipFuncAttributeMaxDynamicSharedMemorySize,
                v,
            )
        }
    }

    /// How many blocks of `block_size` threads fit on one multiprocessor
    /// (`hipModuleOccupancyMaxActiveBlocksPerMultiprocessor`).
    pub fn max_active_blocks_per_multiprocessor(
        &self,
        block_size: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<u32> {
        if block_size == 0 || block_size > self.device().launch_limits().max_threads_per_block {
            return Err(Error::invalid(
                "Function::max_active_blocks_per_multiprocessor",
                format!(
                    "block size {block_size} is not within 1..={}",
                    self.device().launch_limits().max_threads_per_block
                ),
            ));
        }
        self.device().bind()?;
        // SAFETY: the function is live.
        let n = unsafe {
            result::module_occupancy_max_active_blocks(
                self.raw,
                block_size as i32,
                dynamic_shared_bytes as usize,
            )
        }?;
        Ok(n.max(0) as u32)
    }

    /// A 1-D launch configuration for `n` elements (one thread each) with
    /// the occupancy-maximising block size.
    pub fn launch_config_for_num_elems(
        &self,
        n: u32,
        dynamic_shared_bytes: u32,
    ) -> Result<LaunchConfig> {
        let (_, block) = self.max_potential_block_size(dynamic_shared_bytes)?;
        Ok(LaunchConfig {
            grid: (n.div_ceil(block).max(1), 1, 1),
            block: (block, 1, 1),
            shared_mem_bytes: dynamic_shared_bytes,
        })
    }
}

// ---- hiprtc -----------------------------------------------------------------

/// Options for [`compile`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CompileOptions {
    /// The program's name in messages (default `"program.hip"`).
    pub name: Option<String>,
    /// The target architecture, passed as `--offload-arch=<arch>`; `None`
    /// passes none (hiprtc then uses the current device).
    pub arch: Option<String>,
    /// Further options, e.g. `-O3`, `-DN=4`, `-std=c++17`.
    pub options: Vec<String>,
    /// Headers the source may include, held in memory: the name it is
    /// included under, and its text (hiprtc's headers, ahead of the include
    /// folders).
    pub headers: Vec<(String, String)>,
}

impl CompileOptions {
    /// Options targeting `device`'s architecture ([`Device::offload_arch`]).
    pub fn for_device(device: &Device) -> Result<CompileOptions> {
        Ok(CompileOptions {
            arch: Some(device.offload_arch()?),
            ..CompileOptions::default()
        })
    }

    /// Options for an explicit architecture, e.g. `"gfx90a"`.
    pub fn for_arch(arch: &str) -> CompileOptions {
        CompileOptions {
            arch: Some(arch.to_string()),
            ..CompileOptions::default()
        }
    }

    /// Adds an option.
    pub fn option(mut self, opt: impl Into<String>) -> CompileOptions {
        self.options.push(opt.into());
        self
    }

    /// Adds a header the source may include (see
    /// [`CompileOptions::headers`]).
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// let opts = hip::CompileOptions::for_arch("gfx90a")
    ///     .header("scale.h", "#define SCALE 2.0f")
    ///     .option("-O3");
    /// let src = r#"#include "scale.h"
    /// extern "C" __global__ void k(float* x) { x[threadIdx.x] *= SCALE; }"#;
    /// let code = hip::compile(src, &opts)?;
    /// # let _ = code;
    /// # Ok(())
    /// # }
    /// ```
    pub fn header(mut self, name: impl Into<String>, text: impl Into<String>) -> CompileOptions {
        self.headers.push((name.into(), text.into()));
        self
    }

    /// Every option as passed to hiprtc.
    pub fn to_args(&self) -> Vec<String> {
        let mut v = Vec::with_capacity(self.options.len() + 1);
        if let Some(a) = &self.arch {
            v.push(format!("--offload-arch={a}"));
        }
        v.extend(self.options.iter().cloned());
        v
    }
}

/// A compiled program: the code object and the compiler's log (warnings).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledCode {
    /// The code object, ready for [`Module::load_data`].
    pub code: Vec<u8>,
    /// The compiler's log; often empty on success.
    pub log: String,
}

/// Holds hiprtc for the caller: hiprtc is not thread-safe in every ROCm
/// release (5.x crashes on concurrent compiles), so this crate's compiles
/// ([`compile`], [`Module::compile`]) run one at a time process-wide. Code
/// that calls hiprtc directly (`hip_sys::hiprtcCompileProgram`) takes this
/// guard around the call to join that order.
///
/// ```no_run
/// let _hiprtc = hip::rtc_lock();
/// // ... hiprtcCreateProgram, hiprtcCompileProgram, ...
/// ```
pub fn rtc_lock() -> std::sync::MutexGuard<'static, ()> {
    static COMPILE_LOCK: Mutex<()> = Mutex::new(());
    COMPILE_LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Compiles HIP source with hiprtc (`hiprtcCreateProgram`,
/// `hiprtcCompileProgram`, `hiprtcGetCode`). A failed compile returns
/// [`Error::Compile`] with the full log.
pub fn compile(source: &str, options: &CompileOptions) -> Result<CompiledCode> {
    crate::device::loaded()?;
    let name = options.name.as_deref().unwrap_or("program.hip");
    let src = CString::new(source)
        .map_err(|_| Error::invalid("compile", "the source contains a NUL byte"))?;
    let cname = CString::new(name).map_err(|_| {
        Error::invalid(
            "compile",
            format!("program name {name:?} contains a NUL byte"),
        )
    })?;
    let args = options.to_args();
    let cargs = args
        .iter()
        .map(|a| CString::new(a.as_str()))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|_| {
            Error::invalid(
                "compile",
                format!("an option contains a NUL byte: {args:?}"),
            )
        })?;
    let ptrs: Vec<_> = cargs.iter().map(|c| c.as_ptr()).collect();
    let mut header_names = Vec::with_capacity(options.headers.len());
    let mut header_texts = Vec::with_capacity(options.headers.len());
    for (header, text) in &options.headers {
        let nul = |what: &str| {
            Error::invalid(
                "compile",
                format!("the {what} of header {header:?} contains a NUL byte"),
            )
        };
        header_names.push(CString::new(header.as_str()).map_err(|_| nul("name"))?);
        header_texts.push(CString::new(text.as_str()).map_err(|_| nul("text"))?);
    }

    // The arrays themselves live as long as the program too: hiprtc's
    // contract does not say that it copies them at creation.
    let text_ptrs: Vec<_> = header_texts.iter().map(|c| c.as_ptr()).collect();
    let name_ptrs: Vec<_> = header_names.iter().map(|c| c.as_ptr()).collect();

    let _serial = rtc_lock();
    // SAFETY: the strings and both arrays live until this function returns,
    // after the program is destroyed (`guard` is dropped first).
    let prog = unsafe { result::rtc_create_program(&src, &cname, &text_ptrs, &name_ptrs) }?;
    struct Guard(sys::hiprtcProgram);
    impl Drop for Guard {
        fn drop(&mut self) {
            // SAFETY: we own the program.
            error::record_result(unsafe { result::rtc_destroy_program(self.0) });
        }
    }
    let guard = Guard(prog);
    // SAFETY: a live program; options are NUL-terminated and outlive the call.
    let status = unsafe { result::rtc_compile_program(guard.0, &ptrs) };
    // SAFETY: a live program.
    let log = unsafe { result::rtc_get_program_log(guard.0) }.unwrap_or_default();
    if status != sys::hiprtcResult::HIPRTC_SUCCESS {
        return Err(Error::Compile {
            program: name.to_string(),
            options: args,
            status,
            log,
        });
    }
    // SAFETY: a live, successfully compiled program.
    let code = unsafe { result::rtc_get_code(guard.0) }?;
    Ok(CompiledCode { code, log })
}

/// The kernel cache, on the fake runtime: which lookups reach the runtime.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake_runtime::{self, Call, FakeRuntime};

    /// A module the fake runtime stands behind, with handle `raw`.
    fn fake_module(device: &Arc<Device>, raw: usize) -> Module {
        Module {
            inner: Arc::new(ModuleInner {
                raw: fake_runtime::handle(raw),
                device: device.clone(),
                functions: Mutex::new(HashMap::new()),
            }),
        }
    }

    fn lookup(module: usize) -> Call {
        Call::ModuleGetFunction { module }
    }

    #[test]
    fn each_name_is_looked_up_in_the_runtime_once_per_module() {
        let fake = FakeRuntime::new();
        let _on = fake.install();
        let dev = fake_runtime::device(0);
        let (m1, m2) = (fake_module(&dev, 0x100), fake_module(&dev, 0x200));
        let a = m1.function("a").unwrap();
        let again = m1.function("a").unwrap();
        assert_eq!(again.as_raw(), a.as_raw());
        assert_eq!(again.name(), "a");
        let b = m1.function("b").unwrap();
        assert_ne!(b.as_raw(), a.as_raw());
        let other = m2.function("a").unwrap();
        assert_ne!(other.as_raw(), a.as_raw(), "another module's kernel");
        assert_eq!(
            fake.take_calls(false),
            [lookup(0x100), lookup(0x100), lookup(0x200)]
        );
        // A failed lookup is not kept: the next asks the runtime again.
        fake.fail_next(|c| matches!(c, Call::ModuleGetFunction { .. }));
        assert!(m1.function("c").is_err());
        m1.function("c").unwrap();
        assert_eq!(fake.take_calls(false), [lookup(0x100)]);
        assert!(m1.function("bad\0name").is_err());
        assert_eq!(fake.take_calls(false), []);
        // Functions keep their module: unloaded once the last one goes.
        drop((m1, m2, other, b, again));
        assert_eq!(fake.take_calls(false), [Call::ModuleUnload(0x200)]);
        drop(a);
        assert_eq!(fake.take_calls(false), [Call::ModuleUnload(0x100)]);
    }

    #[test]
    fn a_module_dropped_during_a_capture_is_unloaded_when_it_ends() {
        let fake = FakeRuntime::new();
        let _on = fake.install();
        let dev = fake_runtime::device(0);
        let m = fake_module(&dev, 0x300);
        // This thread captures: the unload would invalidate the capture,
        // and Drop can neither wait nor fail, so it is queued.
        dev.capture_gate().enter(0x10);
        drop(m);
        assert_eq!(fake.take_calls(false), []);
        assert_eq!(dev.capture_gate().deferred(), 1);
        dev.capture_gate().leave(0x10);
        assert_eq!(fake.take_calls(false), [Call::ModuleUnload(0x300)]);
        assert_eq!(dev.capture_gate().deferred(), 0);
    }
}
