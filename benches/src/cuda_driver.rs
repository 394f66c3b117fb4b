//! The few CUDA driver calls the launch-rate baseline needs, opened straight
//! from `libcuda.so.1` so the baseline does not go through hip-sys at all.

use libloading::Library;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};

type CuResult = c_int;
type CuDevice = c_int;
type CuContext = *mut c_void;
type CuModule = *mut c_void;
type CuFunction = *mut c_void;
type CuStream = *mut c_void;

/// `cuLaunchKernel`'s signature.
pub type LaunchKernelFn = unsafe extern "C" fn(
    CuFunction,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    CuStream,
    *mut *mut c_void,
    *mut *mut c_void,
) -> CuResult;

/// An empty kernel loaded through the driver API, ready to launch.
pub struct DriverKernel {
    /// `cuLaunchKernel`.
    pub launch: LaunchKernelFn,
    /// The kernel.
    pub function: CuFunction,
    /// A stream created with `cuStreamCreate`.
    pub stream: CuStream,
    sync: unsafe extern "C" fn(CuStream) -> CuResult,
    _lib: Library,
}

impl std::fmt::Debug for DriverKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DriverKernel")
            .field("function", &self.function)
            .finish()
    }
}

fn check(call: &str, r: CuResult) -> Result<(), String> {
    if r == 0 {
        Ok(())
    } else {
        Err(format!("{call} failed with CUresult {r}"))
    }
}

impl DriverKernel {
    /// Loads `image` (PTX or cubin, as nvrtc made it) into device 0's
    /// primary context and looks up `name`.
    pub fn load(image: &[u8], name: &CStr) -> Result<DriverKernel, String> {
        // SAFETY: libcuda's initialisers are safe to run; it is the system's
        // CUDA driver.
        let lib = unsafe { Library::new("libcuda.so.1") };
        let lib = lib.map_err(|e| format!("libcuda.so.1: {e}"))?;
        macro_rules! sym {
            ($name:literal, $ty:ty) => {{
                // SAFETY: the symbol has this C signature in the CUDA driver API.
                let s = unsafe { lib.get::<$ty>($name) };
                *s.map_err(|e| format!("{e}"))?
            }};
        }
        let init = sym!(b"cuInit", unsafe extern "C" fn(c_uint) -> CuResult);
        let device_get = sym!(
            b"cuDeviceGet",
            unsafe extern "C" fn(*mut CuDevice, c_int) -> CuResult
        );
        let retain = sym!(
            b"cuDevicePrimaryCtxRetain",
            unsafe extern "C" fn(*mut CuContext, CuDevice) -> CuResult
        );
        let set_current = sym!(
            b"cuCtxSetCurrent",
            unsafe extern "C" fn(CuContext) -> CuResult
        );
        let load_data = sym!(
            b"cuModuleLoadData",
            unsafe extern "C" fn(*mut CuModule, *const c_void) -> CuResult
        );
        let get_function = sym!(
            b"cuModuleGetFunction",
            unsafe extern "C" fn(*mut CuFunction, CuModule, *const c_char) -> CuResult
        );
        let stream_create = sym!(
            b"cuStreamCreate",
            unsafe extern "C" fn(*mut CuStream, c_uint) -> CuResult
        );
        let sync = sym!(
            b"cuStreamSynchronize",
            unsafe extern "C" fn(CuStream) -> CuResult
        );
        let launch = sym!(b"cuLaunchKernel", LaunchKernelFn);
        let mut img = image.to_vec();
        img.push(0); // PTX must be NUL-terminated; harmless after a cubin
        let (mut dev, mut ctx, mut module, mut function, mut stream) = (
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        );
        // SAFETY: each call gets valid out-pointers and handles from the
        // previous calls; `img` outlives cuModuleLoadData.
        unsafe {
            check("cuInit", init(0))?;
            check("cuDeviceGet", device_get(&mut dev, 0))?;
            check("cuDevicePrimaryCtxRetain", retain(&mut ctx, dev))?;
            check("cuCtxSetCurrent", set_current(ctx))?;
            check(
                "cuModuleLoadData",
                load_data(&mut module, img.as_ptr().cast()),
            )?;
            check(
                "cuModuleGetFunction",
                get_function(&mut function, module, name.as_ptr()),
            )?;
            check("cuStreamCreate", stream_create(&mut stream, 0))?;
        }
        Ok(DriverKernel {
            launch,
            function,
            stream,
            sync,
            _lib: lib,
        })
    }

    /// Launches the (parameterless) kernel once, 1 block of 1 thread.
    #[inline]
    pub fn launch_once(&self) -> Result<(), String> {
        // SAFETY: a live function and stream; the kernel takes no parameters.
        let r = unsafe {
            (self.launch)(
                self.function,
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                self.stream,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        check("cuLaunchKernel", r)
    }

    /// `cuStreamSynchronize`.
    pub fn synchronize(&self) -> Result<(), String> {
        // SAFETY: a live stream.
        check("cuStreamSynchronize", unsafe { (self.sync)(self.stream) })
    }
}
