//! The emulated runtime with `HIP_EMU_DEVICES` naming a device it does not
//! emulate: no device, and the message says why.

use hip_sys::*;
use std::ffi::CStr;

#[test]
fn an_unknown_device_leaves_none_and_says_why() {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let lib = [
        deps.join("libhip_emu.so"),
        deps.parent().unwrap().join("libhip_emu.so"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("libhip_emu.so beside the test");
    std::env::set_var("HIP_PLATFORM", "amd");
    std::env::set_var("HIP_SYS_LIBRARY_PATH", &lib);
    std::env::set_var("HIP_EMU_DEVICES", "gfx942,gfx90a");
    // SAFETY: valid out-pointers; hipGetErrorString returns a static string.
    unsafe {
        let mut n = -1;
        let e = hipGetDeviceCount(&mut n);
        assert_eq!(e, hipError_t::hipErrorNoDevice);
        assert_eq!(n, 0);
        let text = CStr::from_ptr(hipGetErrorString(e))
            .to_string_lossy()
            .into_owned();
        assert!(
            text.contains("gfx90a") && text.contains("HIP_EMU_DEVICES"),
            "{text}"
        );
        let mut p = std::ptr::null_mut();
        assert_eq!(hipMalloc(&mut p, 16), hipError_t::hipErrorNoDevice);
    }
}
