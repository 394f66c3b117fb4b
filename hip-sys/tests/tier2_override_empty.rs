//! Tier 2: the override variable pointed at an empty folder.
//!
//! Its own test binary because the runtime is loaded once per process and
//! this test must set the variable before the first load.

use hip_sys::loader;
use hip_sys::*;

#[test]
fn override_to_an_empty_folder_lists_every_path_tried() {
    #[allow(clippy::disallowed_methods)] // an empty folder
    let dir = std::env::temp_dir().join(format!("hip-sys-override-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::env::set_var(loader::OVERRIDE_VAR, &dir);
    // Only AMD is searched, so nothing else can be found instead.
    std::env::set_var("HIP_PLATFORM", "amd");

    let err = loader::runtime().expect_err("nothing to load in an empty folder");
    assert_eq!(err.requested.as_deref(), Some("amd"));
    assert!(err.attempts.len() >= 4, "{err}");
    for a in &err.attempts {
        assert!(
            a.candidate.starts_with(&dir),
            "searched outside the override: {a}"
        );
        assert_eq!(a.outcome, Err("no such file".to_owned()));
    }
    let text = err.to_string();
    for name in [
        "libamdhip64.so.7",
        "libamdhip64.so.6",
        "libamdhip64.so.5",
        "libamdhip64.so",
    ] {
        assert!(
            text.contains(&dir.join(name).display().to_string()),
            "{name} missing in:\n{text}"
        );
    }
    assert!(text.contains(loader::OVERRIDE_VAR), "{text}");

    // Raw calls return an error status instead of panicking.
    let mut count = -1;
    // SAFETY: `count` is a valid int to write to.
    let status = unsafe { hipGetDeviceCount(&mut count) };
    assert_eq!(status, hipError_t::hipErrorSharedObjectInitFailed);
    assert_eq!(count, -1);
    // SAFETY: returns a static string.
    let msg = unsafe { std::ffi::CStr::from_ptr(hipGetErrorString(status)) };
    assert!(msg.to_string_lossy().contains("no HIP runtime is loaded"));
    std::fs::remove_dir_all(&dir).ok();
}
