//! The emulated runtime with `HIP_EMU_DEVICES` unset (one gfx942), loaded
//! through hip-sys with `HIP_PLATFORM=emulated`, which finds
//! `libhip_emu.so` beside the test on its own.

use hip_sys::*;
use std::ffi::CStr;
use std::sync::Once;

fn setup() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::env::remove_var("HIP_EMU_DEVICES");
        std::env::remove_var("HIP_SYS_LIBRARY_PATH");
        std::env::set_var("HIP_PLATFORM", "emulated");
        loader::runtime().expect("hip-sys finds the emulator beside the test");
    });
}

#[test]
fn one_mi300x_by_default() {
    setup();
    // SAFETY: valid out-pointers.
    unsafe {
        let mut n = 0;
        assert!(hipGetDeviceCount(&mut n).is_success());
        assert_eq!(n, 1);
        let mut p: hipDeviceProp_tR0600 = std::mem::zeroed();
        assert!(hipGetDevicePropertiesR0600(&mut p, 0).is_success());
        assert_eq!(
            CStr::from_ptr(p.gcnArchName.as_ptr()).to_str().unwrap(),
            "gfx942:sramecc+:xnack-"
        );
        assert_eq!((p.major, p.minor, p.warpSize), (9, 4, 64));
        let (mut rt, mut drv) = (0, 0);
        assert!(hipRuntimeGetVersion(&mut rt).is_success());
        assert!(hipDriverGetVersion(&mut drv).is_success());
        assert_eq!(rt / 100_000, 604);
        assert_eq!(rt, drv);
        let mut total = 0;
        assert!(hipDeviceTotalMem(&mut total, 0).is_success());
        assert_eq!(total, 192 << 30);
    }
}
