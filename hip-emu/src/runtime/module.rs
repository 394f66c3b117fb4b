//! Modules, functions, launches and occupancy.
//!
//! A module load picks the code object for the current device's target
//! (`code_object::select`), parses it, and loads it into a device
//! allocation of `load_size()` bytes that lives until `hipModuleUnload`. A
//! launch is checked as ROCm checks it, builds the kernarg segment
//! (`code_object::kernarg`) into a device allocation of its own, runs
//! `isa::execute` on the calling thread while holding device memory
//! shared, and frees the kernarg segment.

use super::occupancy::blocks_per_multiprocessor;
use super::stream::{enqueue, stream};
use super::{fail, invalid, lock, put, rt, unsupported, Fail, R};
use crate::code_object::{self, CodeObject, KernelInfo, LaunchDims};
use crate::hostcall;
use crate::isa::{self, LaunchError, Target};
use crate::memory::RegionKind;
use hip_sys::{
    dim3, hipDeviceptr_t, hipError_t, hipEvent_t, hipFuncAttribute, hipFuncAttributes,
    hipFuncCache_t, hipFunction_attribute, hipFunction_t, hipJitOption, hipModule_t, hipStream_t,
};
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::{Arc, Mutex};

/// A loaded module.
#[derive(Debug)]
pub(crate) struct Module {
    pub(crate) device: i32,
    target: Target,
    /// Device address of the loaded image.
    base: u64,
    code: CodeObject,
    /// Function handles already handed out, by kernel name.
    functions: Mutex<HashMap<String, usize>>,
}

impl Drop for Module {
    fn drop(&mut self) {
        let _ = rt()
            .memory
            .remove(self.base, |k| matches!(k, RegionKind::Device(_)));
    }
}

/// A kernel of a loaded module.
#[derive(Debug)]
pub(crate) struct Function {
    module: Arc<Module>,
    info: KernelInfo,
}

/// Largest LDS one workgroup may use.
const MAX_LDS: u32 = 65536;

/// The length of the module image at `image`, read from its headers
/// (`hipModuleLoadData` is given no size): an ELF's furthest section,
/// segment or header table; a clang offload bundle's furthest entry; an
/// envelope's text up to its NUL (or its `// end` line).
///
/// # Safety
///
/// `image` must point to a whole image of one of these formats.
pub(crate) unsafe fn image_len(image: *const u8) -> R<usize> {
    let read = |off: usize, n: usize| -> u64 {
        let mut b = [0u8; 8];
        // SAFETY: reads within the image's headers, which the caller
        // promises are there (`n` <= 8).
        unsafe { std::ptr::copy_nonoverlapping(image.add(off), b.as_mut_ptr(), n) };
        u64::from_le_bytes(b)
    };
    // SAFETY: every image format is at least 24 bytes long.
    let head = unsafe { std::slice::from_raw_parts(image, 24) };
    if head.starts_with(b"\x7fELF") {
        if head[4] != 2 {
            return invalid("only 64-bit ELF code objects exist for AMD GPUs");
        }
        let phoff = read(0x20, 8) as usize;
        let shoff = read(0x28, 8) as usize;
        let phentsize = read(0x36, 2) as usize;
        let phnum = read(0x38, 2) as usize;
        let shentsize = read(0x3a, 2) as usize;
        let shnum = read(0x3c, 2) as usize;
        let mut end = 64usize
            .max(phoff + phnum * phentsize)
            .max(shoff + shnum * shentsize);
        for i in 0..phnum {
            let p = phoff + i * phentsize;
            end = end.max((read(p + 8, 8) + read(p + 32, 8)) as usize);
        }
        for i in 0..shnum {
            let s = shoff + i * shentsize;
            let kind = read(s + 4, 4);
            if kind != 8 {
                // Not SHT_NOBITS: its bytes are in the file.
                end = end.max((read(s + 24, 8) + read(s + 32, 8)) as usize);
            }
        }
        return Ok(end);
    }
    if head.starts_with(b"__CLANG_OFFLOAD_BUNDLE__") {
        let n = read(24, 8) as usize;
        let mut off = 32;
        let mut end = off;
        for _ in 0..n {
            let (o, size, id_len) = (read(off, 8), read(off + 8, 8), read(off + 16, 8));
            end = end.max((o + size) as usize);
            off += 24 + id_len as usize;
            end = end.max(off);
        }
        return Ok(end);
    }
    if head.starts_with(b"CCOB") {
        // Versions 2 and 3 record the total size (u32 or u64 at byte 8);
        // version 1 does not, and its end cannot be found from here.
        return match read(4, 2) {
            2 => Ok(read(8, 4) as usize),
            3 => Ok(read(8, 8) as usize),
            v => unsupported(
                "hipModuleLoadData",
                &format!(" for a version {v} compressed offload bundle (CCOB), which does not record its size (clang writes versions 2 and 3)"),
            ),
        };
    }
    if head.starts_with(b"// hip-rs") {
        // SAFETY: an envelope is NUL-terminated text, as PTX handed to the
        // module loader is.
        let text = unsafe { CStr::from_ptr(image.cast::<c_char>()) };
        return Ok(text.to_bytes().len());
    }
    fail(
        hipError_t::hipErrorInvalidImage,
        format!("the image is not an AMD code object, offload bundle or hip-rs envelope (it starts {:02x?})", &head[..8]),
    )
}

pub(crate) fn load(image: &[u8]) -> R<usize> {
    let r = rt();
    let d = r.current()?;
    let elf = code_object::select(image, d.target).map_err(|e| Fail {
        code: match e {
            code_object::Error::NoCompatibleTarget { .. } => hipError_t::hipErrorNoBinaryForGpu,
            _ => hipError_t::hipErrorInvalidImage,
        },
        message: e.to_string(),
    })?;
    let code = CodeObject::parse(&elf).map_err(|e| Fail {
        code: hipError_t::hipErrorInvalidImage,
        message: e.to_string(),
    })?;
    let size = code.load_size().max(1);
    let base = r.memory.allocate(d.ordinal, size, 0).map_err(|e| Fail {
        code: hipError_t::hipErrorOutOfMemory,
        message: format!("loading the code object: {e}"),
    })?;
    let loaded = r
        .memory
        .with_host(&[(base, size, true)], |p| {
            // SAFETY: `p[0]` is the host buffer of the `size`-byte
            // allocation just made, which nothing else uses yet.
            let dest = unsafe { std::slice::from_raw_parts_mut(p[0], size as usize) };
            code.load(base, dest)
        })
        .map_err(|e| Fail {
            code: hipError_t::hipErrorInvalidImage,
            message: e.to_string(),
        });
    let loaded = loaded.and_then(|l| {
        l.map_err(|e| Fail {
            code: hipError_t::hipErrorInvalidImage,
            message: e.to_string(),
        })
    });
    if let Err(e) = loaded {
        let _ = r.memory.remove(base, |_| true);
        return Err(e);
    }
    Ok(r.modules.insert(Module {
        device: d.ordinal,
        target: d.target,
        base,
        code,
        functions: Mutex::new(HashMap::new()),
    }))
}

fn function(f: hipFunction_t) -> R<Arc<Function>> {
    if f.is_null() {
        return fail(hipError_t::hipErrorInvalidHandle, "the function is null");
    }
    rt().functions.get(f as usize)
}

/// A function given as `const void*` (`hipLaunchKernel` and the
/// `hipFunc*` calls that take a host function), as
/// [`host_or_module_function`] finds it.
fn function_ptr(f: *const c_void) -> R<Arc<Function>> {
    function(host_or_module_function(f)?)
}

/// The function handle of kernel `name` of module handle `module`, made
/// on first request.
pub(crate) fn function_of_module(module: usize, name: &str) -> R<usize> {
    let r = rt();
    let m = r.modules.get(module)?;
    let mut known = lock(&m.functions);
    if let Some(h) = known.get(name) {
        return Ok(*h);
    }
    let Some(info) = m.code.kernel(name).cloned() else {
        let names: Vec<_> = m.code.kernels().iter().map(|k| k.name.as_str()).collect();
        return fail(
            hipError_t::hipErrorNotFound,
            format!(
                "the module has no kernel `{name}` (it has {})",
                names.join(", ")
            ),
        );
    };
    let h = r.functions.insert(Function {
        module: m.clone(),
        info,
    });
    known.insert(name.to_owned(), h);
    Ok(h)
}

/// The function handle a `const void*` names: a registered kernel's host
/// function (`__hipRegisterFunction`, what `kernel<<<...>>>` and
/// `hipFuncSetAttribute(kernel, ...)` pass), else a handle from
/// `hipModuleGetFunction`. Every call that takes a kernel as `const void*`
/// resolves it here, so none of them can miss registered kernels.
fn host_or_module_function(f: *const c_void) -> R<hipFunction_t> {
    if let Some(h) = super::register::registered_function(f)? {
        return Ok(h);
    }
    match rt().functions.get(f as usize) {
        Ok(_) => Ok(f.cast_mut().cast()),
        Err(_) => fail(
            hipError_t::hipErrorInvalidDeviceFunction,
            format!("{f:p} is neither a registered kernel's host function nor a function from hipModuleGetFunction"),
        ),
    }
}

/// How a launch passes its explicit arguments.
enum Args {
    Params(*mut *mut c_void),
    Extra(*mut *mut c_void),
}

/// Checks a launch as ROCm does, builds its kernarg segment, and runs it
/// on `hstream`.
fn launch(
    f: hipFunction_t,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    hstream: hipStream_t,
    args: Args,
) -> R {
    let func = function(f)?;
    let s = stream(hstream)?;
    let m = &func.module;
    if s.device != m.device {
        return fail(
            hipError_t::hipErrorInvalidHandle,
            format!(
                "the stream is on device {}, the function's module on device {}",
                s.device, m.device
            ),
        );
    }
    let k = &func.info;
    if grid.contains(&0) || block.contains(&0) {
        return invalid(format!(
            "grid {grid:?} or block {block:?} has a zero dimension"
        ));
    }
    if grid[0] > i32::MAX as u32 || grid[1] > 65536 || grid[2] > 65536 {
        return invalid(format!(
            "grid {grid:?} exceeds the device's (2147483647, 65536, 65536)"
        ));
    }
    for i in 0..3 {
        if u64::from(grid[i]) * u64::from(block[i]) > u64::from(u32::MAX) {
            return invalid(format!(
                "grid x block in dimension {i} exceeds 2^32 work-items"
            ));
        }
    }
    let threads = block.iter().map(|&b| u64::from(b)).product::<u64>();
    if threads > 1024 {
        return invalid(format!(
            "block {block:?} has {threads} threads; the device allows 1024"
        ));
    }
    if shared > MAX_LDS {
        return invalid(format!(
            "{shared} bytes of dynamic shared memory; the device has {MAX_LDS}"
        ));
    }
    if u64::from(k.group_segment_fixed_size) + u64::from(shared) > u64::from(MAX_LDS) {
        return invalid(format!(
            "kernel `{}` uses {} bytes of static LDS; with {shared} dynamic that exceeds {MAX_LDS}",
            k.name, k.group_segment_fixed_size
        ));
    }
    if k.max_flat_workgroup_size != 0 && threads > u64::from(k.max_flat_workgroup_size) {
        return fail(
            hipError_t::hipErrorLaunchFailure,
            format!(
                "block {block:?} ({threads} threads) exceeds kernel `{}`'s launch bound of {}",
                k.name, k.max_flat_workgroup_size
            ),
        );
    }
    let dims = LaunchDims {
        grid,
        block,
        dynamic_lds: shared,
    };
    let kernarg = match args {
        Args::Extra(extra) => {
            // SAFETY: `extra` is HIP's 5-entry array (the caller's contract):
            // BUFFER_POINTER, ptr, BUFFER_SIZE, &size, END.
            let e = unsafe { std::slice::from_raw_parts(extra.cast_const(), 5) };
            if e[0] as usize != 1 || e[2] as usize != 2 || e[4] as usize != 3 || e[3].is_null() {
                return invalid(
                    "`extra` must be {HIP_LAUNCH_PARAM_BUFFER_POINTER, buf, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END}",
                );
            }
            // SAFETY: `e[3]` points to the buffer's `size_t` size.
            let size = unsafe { e[3].cast::<usize>().read_unaligned() };
            let buf: &[u8] = if size == 0 {
                &[]
            } else if e[1].is_null() {
                return invalid("the argument buffer is null");
            } else {
                // SAFETY: `e[1]` holds `size` bytes of arguments.
                unsafe { std::slice::from_raw_parts(e[1].cast::<u8>(), size) }
            };
            code_object::kernarg_from_buffer(k, buf, &dims)
        }
        Args::Params(params) => {
            let explicit: Vec<_> = k.explicit_args().collect();
            if params.is_null() && !explicit.is_empty() {
                return invalid(format!(
                    "kernel `{}` takes {} arguments; kernelParams and extra are null",
                    k.name,
                    explicit.len()
                ));
            }
            let mut slices: Vec<&[u8]> = Vec::with_capacity(explicit.len());
            for (i, a) in explicit.iter().enumerate() {
                // SAFETY: `params` holds one pointer per explicit argument
                // (the caller's contract), each to the argument's bytes.
                let p = unsafe { params.add(i).read() };
                if p.is_null() {
                    return invalid(format!("kernelParams[{i}] is null"));
                }
                // SAFETY: as above: `p` points to `a.size` bytes.
                slices.push(unsafe { std::slice::from_raw_parts(p.cast::<u8>(), a.size as usize) });
            }
            code_object::kernarg(k, &slices, &dims)
        }
    }
    .map_err(|e| Fail {
        code: hipError_t::hipErrorInvalidValue,
        message: e.to_string(),
    })?;
    enqueue(hstream, move || run(&func, &kernarg, dims))
}

/// Runs one dispatch: the kernarg segment in device memory, then the
/// interpreter.
fn run(func: &Function, kernarg: &[u8], dims: LaunchDims) -> R {
    let r = rt();
    let m = &func.module;
    // Rounded up past the segment: the compiler loads arguments in wide
    // scalar loads (16 or 32 bytes) that may reach past the last one, as
    // ROCm's kernarg pool allows.
    let len = (kernarg.len() as u64).div_ceil(64) * 64 + 64;
    let ka = r.memory.allocate(m.device, len, 0).map_err(|e| Fail {
        code: hipError_t::hipErrorOutOfMemory,
        message: format!("the kernarg segment: {e}"),
    })?;
    // A kernel that calls printf gets a hostcall buffer of its own for
    // the launch (launches on other threads may run at the same time).
    let hostcall_buffer = if code_object::uses_hostcall(&func.info) {
        match r.memory.allocate(m.device, hostcall::buffer_size(), 0) {
            Ok(b) => Some(b),
            Err(e) => {
                let _ = r.memory.remove(ka, |_| true);
                return Err(Fail {
                    code: hipError_t::hipErrorOutOfMemory,
                    message: format!("the hostcall buffer (printf): {e}"),
                });
            }
        }
    } else {
        None
    };
    let mut kernarg = kernarg.to_vec();
    if let Some(b) = hostcall_buffer {
        code_object::set_hostcall_buffer(&func.info, &mut kernarg, b);
    }
    let written = r.memory.with_host(&[(ka, len, true)], |p| {
        // SAFETY: `p[0]` is the host buffer of the `len`-byte allocation
        // just made; `kernarg.len() <= len`.
        unsafe { std::ptr::copy_nonoverlapping(kernarg.as_ptr(), p[0], kernarg.len()) }
    });
    let result = written
        .map_err(|e| Fail {
            code: hipError_t::hipErrorLaunchFailure,
            message: e.to_string(),
        })
        .and_then(|()| {
            let view = r.memory.dispatch();
            let service = match hostcall_buffer {
                Some(b) => Some(hostcall::Service::new(&view, b).map_err(|e| Fail {
                    code: hipError_t::hipErrorLaunchFailure,
                    message: e,
                })?),
                None => None,
            };
            let dispatch = isa::Dispatch {
                target: m.target,
                kernel: &func.info.name,
                descriptor: m.base + func.info.descriptor_offset,
                grid: dims.grid,
                block: dims.block,
                kernarg: ka,
                dynamic_lds: dims.dynamic_lds,
                memory: &view,
                host: service.as_ref().map(|s| s as &dyn isa::HostServices),
            };
            isa::execute(&dispatch).map(drop).map_err(|e| {
                let code = match e {
                    LaunchError::MemoryFault { .. } | LaunchError::LdsOutOfRange { .. } => {
                        hipError_t::hipErrorIllegalAddress
                    }
                    LaunchError::TimedOut { .. } => hipError_t::hipErrorLaunchTimeOut,
                    LaunchError::NoHostService { .. } => hipError_t::hipErrorNotSupported,
                    _ => hipError_t::hipErrorLaunchFailure,
                };
                if code != hipError_t::hipErrorNotSupported && abort_on_fault() {
                    eprintln!(
                        "hip-emu: {e}; the process stops, as ROCm's does at a GPU fault \
                         ({ON_FAULT_VAR}=abort)"
                    );
                    std::process::abort();
                }
                Fail {
                    code,
                    message: e.to_string(),
                }
            })
        });
    let _ = r.memory.remove(ka, |_| true);
    if let Some(b) = hostcall_buffer {
        let _ = r.memory.remove(b, |_| true);
    }
    result
}

/// What a kernel's fault does: `report` (the default) returns it from the
/// launch and the device goes on; `abort` prints it and ends the process,
/// as ROCm does at a GPU fault, so that a caller that does not check its
/// launches (C++ `<<<...>>>` launchers) cannot go on with what the kernel
/// left unwritten.
pub(crate) const ON_FAULT_VAR: &str = "HIP_EMU_ON_FAULT";

/// Whether [`ON_FAULT_VAR`] asks to end the process at a fault; a value
/// other than `report` and `abort` does too, saying so (a misspelt
/// request to stop must not let a run go on). Read at each fault, not
/// cached: faults are rare, and tests set it per process.
fn abort_on_fault() -> bool {
    match std::env::var(ON_FAULT_VAR) {
        Err(_) => false,
        Ok(v) if v == "report" => false,
        Ok(v) if v == "abort" => true,
        Ok(v) => {
            eprintln!("hip-emu: {ON_FAULT_VAR}={v:?} is neither `report` nor `abort`: aborting");
            true
        }
    }
}

/// The attribute `attr` of kernel `k` on a device of `target`.
fn attribute(k: &KernelInfo, attr: hipFunction_attribute) -> R<c_int> {
    type F = hipFunction_attribute;
    Ok(match attr {
        F::HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK => k.max_flat_workgroup_size.min(1024) as c_int,
        F::HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES => k.group_segment_fixed_size as c_int,
        F::HIP_FUNC_ATTRIBUTE_CONST_SIZE_BYTES => 0,
        F::HIP_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES => k.private_segment_fixed_size as c_int,
        F::HIP_FUNC_ATTRIBUTE_NUM_REGS => k.vgpr_count as c_int,
        F::HIP_FUNC_ATTRIBUTE_PTX_VERSION | F::HIP_FUNC_ATTRIBUTE_BINARY_VERSION => 0,
        F::HIP_FUNC_ATTRIBUTE_CACHE_MODE_CA => 0,
        F::HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES => {
            MAX_LDS.saturating_sub(k.group_segment_fixed_size) as c_int
        }
        F::HIP_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT => 0,
        other => return invalid(format!("{other:?} is not a function attribute")),
    })
}

fn occupancy_blocks(num_blocks: *mut c_int, f: &Function, block_size: c_int, dynamic: usize) -> R {
    if block_size <= 0 {
        return invalid(format!("blockSize is {block_size}"));
    }
    let k = &f.info;
    let blocks = if block_size as u32 > k.max_flat_workgroup_size.clamp(1, 1024)
        || dynamic > MAX_LDS as usize
    {
        0
    } else {
        blocks_per_multiprocessor(f.module.target, k, block_size as u32, dynamic as u32)
    };
    // SAFETY: `num_blocks` is null or a valid `int*`.
    unsafe { put(num_blocks, blocks as c_int, "numBlocks") }
}

fn potential_block_size(
    grid: *mut c_int,
    block: *mut c_int,
    f: &Function,
    dynamic: usize,
    limit: c_int,
) -> R {
    let k = &f.info;
    let r = rt();
    let cus = r.device(f.module.device)?.spec.multiprocessors as u32;
    let wave = f.module.target.wave_size();
    let mut top = k.max_flat_workgroup_size.clamp(1, 1024);
    if limit > 0 {
        top = top.min(limit as u32);
    }
    let (mut best, mut best_blocks, mut best_threads) = (0u32, 0u32, 0u32);
    let mut size = top;
    while size > 0 {
        let blocks = blocks_per_multiprocessor(
            f.module.target,
            k,
            size,
            dynamic.min(u32::MAX as usize) as u32,
        );
        if blocks * size > best_threads {
            (best, best_blocks, best_threads) = (size, blocks, blocks * size);
        }
        size = if size % wave != 0 {
            size - size % wave
        } else {
            size - wave
        };
    }
    if best == 0 {
        return fail(
            hipError_t::hipErrorInvalidValue,
            format!(
                "no block size of kernel `{}` fits with {dynamic} bytes of dynamic LDS",
                k.name
            ),
        );
    }
    // SAFETY: `grid` and `block` are null or valid `int*`s.
    unsafe {
        put(grid, (best_blocks * cus) as c_int, "gridSize")?;
        put(block, best as c_int, "blockSize")
    }
}

/// Loads a module image from `image` (size read from its headers).
///
/// # Safety
///
/// As the exported loaders: `image` points to a whole image.
unsafe fn load_data(module: *mut hipModule_t, image: *const c_void) -> R {
    if module.is_null() || image.is_null() {
        return invalid("`module` or `image` is null");
    }
    // SAFETY: the caller gives a whole image.
    let len = unsafe { image_len(image.cast()) }?;
    // SAFETY: `len` bytes from `image` are the image, per its headers.
    let bytes = unsafe { std::slice::from_raw_parts(image.cast::<u8>(), len) };
    let h = load(bytes)?;
    // SAFETY: non-null and a valid `hipModule_t*` by the contract.
    unsafe { put(module, h as hipModule_t, "module") }
}

export! {
    /// Loads a module from memory: a code object, an offload bundle or a
    /// hip-rs envelope; the code object for the current device is chosen.
    fn hipModuleLoadData(module: *mut hipModule_t, image: *const c_void) {
        // SAFETY: the caller gives a whole image.
        unsafe { load_data(module, image) }
    }

    /// As [`hipModuleLoadData`]; JIT options are ignored.
    fn hipModuleLoadDataEx(
        module: *mut hipModule_t,
        image: *const c_void,
        _numOptions: c_uint,
        _options: *mut hipJitOption,
        _optionValues: *mut *mut c_void,
    ) {
        // SAFETY: the caller gives a whole image.
        unsafe { load_data(module, image) }
    }

    /// Loads a module from a file.
    fn hipModuleLoad(module: *mut hipModule_t, fname: *const c_char) {
        if module.is_null() || fname.is_null() {
            return invalid("`module` or `fname` is null");
        }
        // SAFETY: non-null and NUL-terminated by the contract.
        let name = unsafe { CStr::from_ptr(fname) }.to_string_lossy().into_owned();
        let bytes = std::fs::read(&name).map_err(|e| Fail {
            code: hipError_t::hipErrorFileNotFound,
            message: format!("{name}: {e}"),
        })?;
        let h = load(&bytes)?;
        // SAFETY: non-null and a valid `hipModule_t*` by the contract.
        unsafe { put(module, h as hipModule_t, "module") }
    }

    /// Unloads a module; its functions become invalid handles.
    fn hipModuleUnload(module: hipModule_t) {
        let r = rt();
        let m = r.modules.remove(module as usize)?;
        for h in lock(&m.functions).values() {
            let _ = r.functions.remove(*h);
        }
        Ok(())
    }

    /// A kernel of a module, by name.
    fn hipModuleGetFunction(function: *mut hipFunction_t, module: hipModule_t, kname: *const c_char) {
        if function.is_null() || kname.is_null() {
            return invalid("`function` or `kname` is null");
        }
        // SAFETY: non-null and NUL-terminated by the contract.
        let name = unsafe { CStr::from_ptr(kname) }.to_string_lossy().into_owned();
        let h = function_of_module(module as usize, &name)?;
        // SAFETY: non-null and a valid `hipFunction_t*` by the contract.
        unsafe { put(function, h as hipFunction_t, "function") }
    }

    /// A global variable of a module: its device address and size.
    fn hipModuleGetGlobal(dptr: *mut hipDeviceptr_t, bytes: *mut usize, hmod: hipModule_t, name: *const c_char) {
        if name.is_null() {
            return invalid("`name` is null");
        }
        let m = rt().modules.get(hmod as usize)?;
        // SAFETY: non-null and NUL-terminated by the contract.
        let n = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
        let Some((offset, size)) = m.code.global(&n) else {
            return fail(hipError_t::hipErrorNotFound, format!("the module has no global `{n}`"));
        };
        // SAFETY: each is null (skipped) or a valid pointer.
        unsafe {
            if !dptr.is_null() {
                put(dptr, (m.base + offset) as hipDeviceptr_t, "dptr")?;
            }
            if !bytes.is_null() {
                put(bytes, size as usize, "bytes")?;
            }
        }
        Ok(())
    }

    /// One attribute of a kernel, from its metadata.
    fn hipFuncGetAttribute(value: *mut c_int, attrib: hipFunction_attribute, hfunc: hipFunction_t) {
        let f = function(hfunc)?;
        let v = attribute(&f.info, attrib)?;
        // SAFETY: `value` is null or a valid `int*`.
        unsafe { put(value, v, "value") }
    }

    /// Every attribute of a kernel given by its `hipFunction_t`.
    fn hipFuncGetAttributes(attr: *mut hipFuncAttributes, func: *const c_void) {
        let f = function_ptr(func)?;
        let k = &f.info;
        type F = hipFunction_attribute;
        let a = hipFuncAttributes {
            binaryVersion: 0,
            cacheModeCA: 0,
            constSizeBytes: 0,
            localSizeBytes: k.private_segment_fixed_size as usize,
            maxDynamicSharedSizeBytes: attribute(k, F::HIP_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)?,
            maxThreadsPerBlock: attribute(k, F::HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            numRegs: k.vgpr_count as c_int,
            preferredShmemCarveout: 0,
            ptxVersion: 0,
            sharedSizeBytes: k.group_segment_fixed_size as usize,
        };
        // SAFETY: `attr` is null or a valid `hipFuncAttributes*`.
        unsafe { put(attr, a, "attr") }
    }

    /// Accepted for a kernel handle (ROCm keeps nothing either); a
    /// dynamic-LDS maximum above 64 KiB is refused.
    fn hipFuncSetAttribute(func: *const c_void, attr: hipFuncAttribute, value: c_int) {
        function_ptr(func)?;
        if attr == hipFuncAttribute::hipFuncAttributeMaxDynamicSharedMemorySize && !(0..=MAX_LDS as c_int).contains(&value) {
            return invalid(format!("{value} bytes of dynamic LDS; the device has {MAX_LDS}"));
        }
        Ok(())
    }

    /// Accepted for a kernel handle: AMD GPUs have no cache configuration.
    fn hipFuncSetCacheConfig(func: *const c_void, _config: hipFuncCache_t) {
        function_ptr(func).map(drop)
    }

    /// Workgroups of `blockSize` threads that fit on one multiprocessor.
    fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks: *mut c_int, f: hipFunction_t, blockSize: c_int, dynSharedMemPerBlk: usize) {
        occupancy_blocks(numBlocks, &*function(f)?, blockSize, dynSharedMemPerBlk)
    }

    /// As [`hipModuleOccupancyMaxActiveBlocksPerMultiprocessor`]; the flags
    /// change nothing.
    fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks: *mut c_int, f: hipFunction_t, blockSize: c_int, dynSharedMemPerBlk: usize, _flags: c_uint) {
        occupancy_blocks(numBlocks, &*function(f)?, blockSize, dynSharedMemPerBlk)
    }

    /// As the module form, for a kernel handle passed as `const void*`.
    fn hipOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks: *mut c_int, f: *const c_void, blockSize: c_int, dynSharedMemPerBlk: usize) {
        occupancy_blocks(numBlocks, &*function_ptr(f)?, blockSize, dynSharedMemPerBlk)
    }

    /// The block size with the most resident threads, and the grid that
    /// fills the device with it.
    fn hipModuleOccupancyMaxPotentialBlockSize(gridSize: *mut c_int, blockSize: *mut c_int, f: hipFunction_t, dynSharedMemPerBlk: usize, blockSizeLimit: c_int) {
        potential_block_size(gridSize, blockSize, &*function(f)?, dynSharedMemPerBlk, blockSizeLimit)
    }

    /// As [`hipModuleOccupancyMaxPotentialBlockSize`].
    fn hipModuleOccupancyMaxPotentialBlockSizeWithFlags(gridSize: *mut c_int, blockSize: *mut c_int, f: hipFunction_t, dynSharedMemPerBlk: usize, blockSizeLimit: c_int, _flags: c_uint) {
        potential_block_size(gridSize, blockSize, &*function(f)?, dynSharedMemPerBlk, blockSizeLimit)
    }

    /// Launches a kernel: arguments in `kernelParams` (one pointer per
    /// argument) or `extra` (`HIP_LAUNCH_PARAM_BUFFER_POINTER`, buffer,
    /// `HIP_LAUNCH_PARAM_BUFFER_SIZE`, &size, `HIP_LAUNCH_PARAM_END`). It
    /// has run when this returns (unless the stream captures).
    fn hipModuleLaunchKernel(
        f: hipFunction_t,
        gridDimX: c_uint,
        gridDimY: c_uint,
        gridDimZ: c_uint,
        blockDimX: c_uint,
        blockDimY: c_uint,
        blockDimZ: c_uint,
        sharedMemBytes: c_uint,
        stream: hipStream_t,
        kernelParams: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) {
        let args = match (kernelParams.is_null(), extra.is_null()) {
            (false, false) => return invalid("both kernelParams and extra are given"),
            (true, false) => Args::Extra(extra),
            _ => Args::Params(kernelParams),
        };
        launch(f, [gridDimX, gridDimY, gridDimZ], [blockDimX, blockDimY, blockDimZ], sharedMemBytes, stream, args)
    }

    /// A cooperative launch: as [`hipModuleLaunchKernel`], refused with
    /// `hipErrorCooperativeLaunchTooLarge` when the grid exceeds what fits
    /// on the device at once (workgroups run one after another here, so a
    /// grid-wide barrier cannot be honoured beyond that).
    fn hipModuleLaunchCooperativeKernel(
        f: hipFunction_t,
        gridDimX: c_uint,
        gridDimY: c_uint,
        gridDimZ: c_uint,
        blockDimX: c_uint,
        blockDimY: c_uint,
        blockDimZ: c_uint,
        sharedMemBytes: c_uint,
        stream: hipStream_t,
        kernelParams: *mut *mut c_void,
    ) {
        let func = function(f)?;
        let block = blockDimX.saturating_mul(blockDimY).saturating_mul(blockDimZ);
        let per_cu = blocks_per_multiprocessor(func.module.target, &func.info, block.max(1), sharedMemBytes);
        let cus = rt().device(func.module.device)?.spec.multiprocessors as u64;
        let grid = u64::from(gridDimX) * u64::from(gridDimY) * u64::from(gridDimZ);
        if grid > u64::from(per_cu) * cus {
            return fail(
                hipError_t::hipErrorCooperativeLaunchTooLarge,
                format!("{grid} workgroups; at most {} are resident at once", u64::from(per_cu) * cus),
            );
        }
        launch(f, [gridDimX, gridDimY, gridDimZ], [blockDimX, blockDimY, blockDimZ], sharedMemBytes, stream, Args::Params(kernelParams))
    }

    /// Launches a kernel handle from `hipModuleGetFunction` passed as
    /// `function_address` (hip-emu registers no host functions, so a host
    /// stub's address is `hipErrorInvalidDeviceFunction`).
    fn hipLaunchKernel(function_address: *const c_void, numBlocks: dim3, dimBlocks: dim3, args: *mut *mut c_void, sharedMemBytes: usize, stream: hipStream_t) {
        let f = host_or_module_function(function_address)?;
        let shared = u32::try_from(sharedMemBytes).unwrap_or(u32::MAX);
        launch(
            f,
            [numBlocks.x, numBlocks.y, numBlocks.z],
            [dimBlocks.x, dimBlocks.y, dimBlocks.z],
            shared,
            stream,
            Args::Params(args),
        )
    }

    /// The function of a kernel registered by its host stub
    /// (`__hipRegisterFunction`), on the current device.
    fn hipGetFuncBySymbol(functionPtr: *mut hipFunction_t, symbolPtr: *const c_void) {
        if functionPtr.is_null() || symbolPtr.is_null() {
            return invalid("`functionPtr` or `symbolPtr` is null");
        }
        let Some(f) = super::register::registered_function(symbolPtr)? else {
            return fail(
                hipError_t::hipErrorInvalidDeviceFunction,
                format!("{symbolPtr:p} is not a registered kernel's host function"),
            );
        };
        // SAFETY: non-null and a valid `hipFunction_t*` by the contract.
        unsafe { put(functionPtr, f, "function") }
    }

    /// Launches `f` over `globalWorkSize` work-items in workgroups of
    /// `localWorkSize` (whole workgroups only), between `startEvent` and
    /// `stopEvent` when given; `flags` are ignored.
    fn hipExtModuleLaunchKernel(
        f: hipFunction_t,
        globalWorkSizeX: u32,
        globalWorkSizeY: u32,
        globalWorkSizeZ: u32,
        localWorkSizeX: u32,
        localWorkSizeY: u32,
        localWorkSizeZ: u32,
        sharedMemBytes: usize,
        hStream: hipStream_t,
        kernelParams: *mut *mut c_void,
        extra: *mut *mut c_void,
        startEvent: hipEvent_t,
        stopEvent: hipEvent_t,
        _flags: u32,
    ) {
        let global = [globalWorkSizeX, globalWorkSizeY, globalWorkSizeZ];
        let local = [localWorkSizeX, localWorkSizeY, localWorkSizeZ];
        let mut grid = [0u32; 3];
        for i in 0..3 {
            if local[i] == 0 {
                return invalid(format!("localWorkSize {local:?} has a zero dimension"));
            }
            if global[i] % local[i] != 0 {
                return fail(
                    hipError_t::hipErrorNotSupported,
                    format!(
                        "hipExtModuleLaunchKernel: globalWorkSize {global:?} is not a multiple of localWorkSize {local:?}; hip-emu launches whole workgroups only"
                    ),
                );
            }
            grid[i] = global[i] / local[i];
        }
        let args = match (kernelParams.is_null(), extra.is_null()) {
            (_, false) => Args::Extra(extra),
            _ => Args::Params(kernelParams),
        };
        let record = |event: hipEvent_t, which: &str| -> R {
            if event.is_null() {
                return Ok(());
            }
            // SAFETY: the caller's event and stream.
            match unsafe { super::stream::hipEventRecord(event, hStream) } {
                hipError_t::hipSuccess => Ok(()),
                e => fail(e, format!("hipExtModuleLaunchKernel: recording {which}")),
            }
        };
        record(startEvent, "startEvent")?;
        let shared = u32::try_from(sharedMemBytes).unwrap_or(u32::MAX);
        launch(f, grid, local, shared, hStream, args)?;
        record(stopEvent, "stopEvent")?;
        Ok(())
    }
}
