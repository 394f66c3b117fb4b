//! Kernels compiled into a program or library (`hipcc`'s fat binaries):
//! the registration calls that each object's constructor makes, and
//! launches by host function pointer (`hipLaunchKernel`, the triple
//! chevron's `__hipPushCallConfiguration`/`__hipPopCallConfiguration`).
//!
//! A constructor calls `__hipRegisterFatBinary` with the wrapper of its
//! offload bundle, then `__hipRegisterFunction` for each kernel: the host
//! stub's address and the kernel's name. These run while the library
//! loads, before any device is touched, so they only record. The first
//! launch of a kernel on a device loads the bundle's code object for that
//! device as a module (once per bundle and device) and looks the kernel up
//! in it; AMD's libraries (rocBLAS) launch their kernels this way.

// The C names are reached by symbol name from the cdylib, not through
// Rust paths.
#![allow(unreachable_pub)]

use super::module::{function_of_module, load};
use super::{rt, Fail, R};
use hip_sys::{dim3, hipError_t, hipFunction_t, hipStream_t};
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// The fat binary wrapper's magic, "HIPF".
const WRAPPER_MAGIC: u32 = 0x4849_5046;

/// `__hipRegisterFatBinary`'s argument, as the compiler emits it.
#[repr(C)]
struct Wrapper {
    magic: u32,
    version: u32,
    binary: *const c_void,
    unused: *const c_void,
}

/// One registered bundle: where its image is, and its module per device
/// once loaded.
struct FatBinary {
    image: usize,
    modules: HashMap<i32, usize>,
}

struct Kernel {
    /// The handle `__hipRegisterFatBinary` returned.
    fatbin: usize,
    name: String,
    /// The function handle per device, once resolved.
    functions: HashMap<i32, usize>,
}

#[derive(Default)]
struct Registry {
    fatbins: HashMap<usize, FatBinary>,
    kernels: HashMap<usize, Kernel>,
}

fn registry() -> MutexGuard<'static, Registry> {
    static R: OnceLock<Mutex<Registry>> = OnceLock::new();
    R.get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

/// Registers an offload bundle; returns the handle its kernels are
/// registered under.
///
/// # Safety
///
/// `data` is null or points to the compiler's fat binary wrapper, whose
/// bundle stays mapped while registered.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterFatBinary(data: *const c_void) -> *mut *mut c_void {
    let handle = Box::into_raw(Box::new(std::ptr::null_mut::<c_void>()));
    let image = if data.is_null() {
        0
    } else {
        // SAFETY: the caller's contract: `data` points to a wrapper.
        let w = unsafe { data.cast::<Wrapper>().read_unaligned() };
        if w.magic == WRAPPER_MAGIC {
            w.binary as usize
        } else {
            0
        }
    };
    registry().fatbins.insert(
        handle as usize,
        FatBinary {
            image,
            modules: HashMap::new(),
        },
    );
    handle
}

/// Registers kernel `deviceName` of the bundle `modules` under the host
/// stub `hostFunction`.
///
/// # Safety
///
/// `deviceName` is null or NUL-terminated; the other pointers are not
/// read.
#[no_mangle]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn __hipRegisterFunction(
    modules: *mut *mut c_void,
    hostFunction: *const c_void,
    _deviceFunction: *mut c_char,
    deviceName: *const c_char,
    _threadLimit: c_uint,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _blockDim: *mut dim3,
    _gridDim: *mut dim3,
    _wSize: *mut c_int,
) {
    if hostFunction.is_null() || deviceName.is_null() {
        return;
    }
    // SAFETY: NUL-terminated by the contract.
    let name = unsafe { CStr::from_ptr(deviceName) }
        .to_string_lossy()
        .into_owned();
    registry().kernels.insert(
        hostFunction as usize,
        Kernel {
            fatbin: modules as usize,
            name,
            functions: HashMap::new(),
        },
    );
}

/// Forgets a bundle and its kernels (its modules stay loaded until the
/// process ends: the library unloads only then).
///
/// # Safety
///
/// `modules` is a handle from [`__hipRegisterFatBinary`], or null.
#[no_mangle]
pub unsafe extern "C" fn __hipUnregisterFatBinary(modules: *mut *mut c_void) {
    let mut r = registry();
    if r.fatbins.remove(&(modules as usize)).is_some() {
        r.kernels.retain(|_, k| k.fatbin != modules as usize);
        // SAFETY: made by `Box::into_raw` in `__hipRegisterFatBinary`, and
        // removed from the registry just now, so freed once.
        drop(unsafe { Box::from_raw(modules) });
    }
}

/// The function handle of the kernel registered under host stub `f` on
/// the current device, loading its bundle there on first use; `None` when
/// `f` is not a registered stub.
pub(crate) fn registered_function(f: *const c_void) -> R<Option<hipFunction_t>> {
    let device = rt().current()?.ordinal;
    let (image, name, cached_module) = {
        let r = registry();
        let Some(k) = r.kernels.get(&(f as usize)) else {
            return Ok(None);
        };
        if let Some(h) = k.functions.get(&device) {
            return Ok(Some(*h as hipFunction_t));
        }
        let Some(fb) = r.fatbins.get(&k.fatbin) else {
            return Ok(None);
        };
        (fb.image, k.name.clone(), fb.modules.get(&device).copied())
    };
    if image == 0 {
        return Err(Fail {
            code: hipError_t::hipErrorInvalidImage,
            message: format!("kernel `{name}` was registered without a fat binary"),
        });
    }
    let module = match cached_module {
        Some(m) => m,
        None => {
            // SAFETY: `image` is the registered bundle, mapped while the
            // library that registered it is loaded.
            let m = unsafe { load_image(image as *const u8) }.map_err(|e| Fail {
                code: e.code,
                message: format!("the fat binary of kernel `{name}`: {}", e.message),
            })?;
            let mut r = registry();
            if let Some(k) = r.kernels.get(&(f as usize)) {
                let fatbin = k.fatbin;
                if let Some(fb) = r.fatbins.get_mut(&fatbin) {
                    fb.modules.insert(device, m);
                }
            }
            m
        }
    };
    let h = function_of_module(module, &name)?;
    if let Some(k) = registry().kernels.get_mut(&(f as usize)) {
        k.functions.insert(device, h);
    }
    Ok(Some(h as hipFunction_t))
}

/// Loads the module of a bundle in memory, its length read from its
/// headers.
///
/// # Safety
///
/// `image` points to a whole bundle or code object.
unsafe fn load_image(image: *const u8) -> R<usize> {
    // SAFETY: the caller's contract.
    let len = unsafe { super::module::image_len(image) }?;
    // SAFETY: `len` bytes from `image` are the image, per its headers.
    load(unsafe { std::slice::from_raw_parts(image, len) })
}

/// A launch configuration pushed by `<<<...>>>`, popped by the stub.
struct Config {
    grid: dim3,
    block: dim3,
    shared: usize,
    stream: hipStream_t,
}

thread_local! {
    static CONFIGS: RefCell<Vec<Config>> = const { RefCell::new(Vec::new()) };
}

/// Pushes a triple-chevron launch's configuration.
///
/// # Safety
///
/// Always safe; `unsafe` for the C ABI's sake.
#[no_mangle]
#[allow(non_snake_case)]
pub unsafe extern "C" fn __hipPushCallConfiguration(
    gridDim: dim3,
    blockDim: dim3,
    sharedMem: usize,
    stream: hipStream_t,
) -> hipError_t {
    CONFIGS.with(|c| {
        c.borrow_mut().push(Config {
            grid: gridDim,
            block: blockDim,
            shared: sharedMem,
            stream,
        })
    });
    hipError_t::hipSuccess
}

/// Pops the configuration the last `__hipPushCallConfiguration` of this
/// thread pushed.
///
/// # Safety
///
/// Each pointer is null or valid for a write of its type.
#[no_mangle]
#[allow(non_snake_case)]
pub unsafe extern "C" fn __hipPopCallConfiguration(
    gridDim: *mut dim3,
    blockDim: *mut dim3,
    sharedMem: *mut usize,
    stream: *mut hipStream_t,
) -> hipError_t {
    let Some(c) = CONFIGS.with(|c| c.borrow_mut().pop()) else {
        return hipError_t::hipErrorMissingConfiguration;
    };
    // SAFETY: each pointer is null or writable (the caller's contract).
    unsafe {
        if !gridDim.is_null() {
            gridDim.write(c.grid);
        }
        if !blockDim.is_null() {
            blockDim.write(c.block);
        }
        if !sharedMem.is_null() {
            sharedMem.write(c.shared);
        }
        if !stream.is_null() {
            stream.write(c.stream);
        }
    }
    hipError_t::hipSuccess
}
