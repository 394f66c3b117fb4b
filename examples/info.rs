//! Prints what this machine offers HIP programs: the platform chosen, the
//! library loaded, the runtime version and each device (name, architecture,
//! memory), or, when that fails, the reason and every place searched.
//!
//! ```text
//! cargo run --release -p hip-examples --example info
//! ```
//!
//! Exits with status 1 when no runtime or no device is found.

use hip_sys::*;
use std::ffi::CStr;
use std::process::ExitCode;

fn main() -> ExitCode {
    let rt = match loader::runtime() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    println!("platform: {} ({})", rt.platform, rt.platform_reason);
    for lib in &rt.libraries {
        println!("{}: {}", lib.role, lib.path.display());
    }
    println!("runtime version: {}", rt.version);
    println!(
        "functions available: {} of {}",
        rt.available_count(),
        FUNCTION_NAMES.len()
    );

    let mut count = 0;
    // SAFETY: `count` is a valid int to write to.
    let status = unsafe { hipGetDeviceCount(&mut count) };
    if status != hipError_t::hipSuccess {
        println!("devices: none ({})", describe(status));
        println!(
            "searched: {}",
            rt.attempts
                .iter()
                .map(|a| a.candidate.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
        return ExitCode::FAILURE;
    }
    println!("devices: {count}");
    for ordinal in 0..count {
        let mut props = hipDeviceProp_tR0600::default();
        // SAFETY: `props` is a valid, writable hipDeviceProp_tR0600.
        let s = unsafe { hipGetDevicePropertiesR0600(&mut props, ordinal) };
        if s != hipError_t::hipSuccess {
            println!("  [{ordinal}] properties unavailable: {}", describe(s));
            continue;
        }
        // SAFETY: the runtime writes NUL-terminated strings into these arrays.
        let name = unsafe { CStr::from_ptr(props.name.as_ptr()) }.to_string_lossy();
        // SAFETY: as above.
        let arch = unsafe { CStr::from_ptr(props.gcnArchName.as_ptr()) }.to_string_lossy();
        println!(
            "  [{ordinal}] {name}, arch {arch}, {:.1} GiB, {} compute units",
            props.totalGlobalMem as f64 / (1u64 << 30) as f64,
            props.multiProcessorCount
        );
    }
    ExitCode::SUCCESS
}

/// The status's name and the runtime's own message for it.
fn describe(status: hipError_t) -> String {
    // SAFETY: hipGetErrorString returns a static NUL-terminated string.
    let msg = unsafe { CStr::from_ptr(hipGetErrorString(status)) };
    format!("{status:?}: {}", msg.to_string_lossy())
}
