//! What is underneath the CUDA names.

pub use hip_sys::loader::{LoadError, Platform, Runtime, Version};

/// `true`: every CUDA name of this crate is served by HIP (the counterpart
/// of hip-python's `cuda.HIP_PYTHON`). Code can test it at compile time,
/// e.g. to skip CUDA-only paths.
pub const HIP_BACKED: bool = true;

/// The HIP runtime actually loaded (platform, libraries, version), loading
/// it on first use; or what was tried and why it failed.
pub fn backend() -> Result<&'static Runtime, &'static LoadError> {
    hip_sys::loader::runtime()
}

/// One line saying what serves the CUDA names: the platform and why, the
/// main library's path and the runtime version; or why none loaded.
pub fn backend_summary() -> String {
    match backend() {
        Ok(rt) => {
            let lib = rt
                .libraries
                .first()
                .map(|l| format!("{} {}", l.role, l.path.display()))
                .unwrap_or_else(|| "no library".to_owned());
            format!(
                "HIP-backed: platform {} ({}), {lib}, version {}",
                rt.platform, rt.platform_reason, rt.version
            )
        }
        Err(e) => format!("HIP-backed: no runtime loaded: {e}"),
    }
}
