//! Tier 2: the real loader on this machine. With Debian's ROCm runtime
//! and no RCCL, every call that needs the library returns `Error::Load`,
//! whose message names every `librccl` path tried; nothing panics. Where a
//! library loads (a GPU machine), the same calls succeed.
//!
//! `HIP_TEST_EXPECT_RUNTIME=amd` (exported by `scripts/test.sh` when the
//! AMD runtime packages are installed) says the AMD runtime must be the
//! one loaded, so the absence of RCCL must be reported.

use rccl::{Error, Group, UniqueId};

fn amd_runtime_expected() -> bool {
    match std::env::var("HIP_TEST_EXPECT_RUNTIME") {
        Ok(v) if v == "amd" => true,
        Ok(v) if v.is_empty() => false,
        Ok(v) => panic!("HIP_TEST_EXPECT_RUNTIME={v}: the only value it takes is `amd`"),
        Err(_) => false,
    }
}

/// Asserts `e` is the loader's report naming RCCL's files (or, without any
/// HIP runtime, the runtime's failure).
fn assert_load_error(what: &str, e: &Error) {
    let Error::Load(load) = e else {
        panic!("{what}: expected Error::Load, got {e:?}");
    };
    assert!(!e.reached_library());
    let text = e.to_string();
    match hip::sys::loader::runtime() {
        Ok(rt) if rt.platform == hip::sys::loader::Platform::Amd => {
            assert!(text.contains("librccl.so.1"), "{what}: {text}");
            assert!(text.contains("librccl.so"), "{what}: {text}");
            assert!(text.contains("HIP_SYS_LIBRARY_PATH"), "{what}: {text}");
        }
        Ok(_) => assert!(text.contains("libnccl.so.2"), "{what}: {text}"),
        Err(_) => assert!(load.runtime.is_some(), "{what}: {text}"),
    }
}

#[test]
fn calls_needing_the_library_report_every_path_tried() {
    if amd_runtime_expected() {
        let rt = hip::sys::loader::runtime()
            .expect("HIP_TEST_EXPECT_RUNTIME=amd: the AMD runtime must load");
        assert_eq!(rt.platform, hip::sys::loader::Platform::Amd);
    }
    match rccl::version() {
        Ok(v) => {
            println!("branch: a collectives library loaded, NCCL API {v}");
            assert!(v >= 2000, "{v}");
            assert!(!amd_runtime_expected() || rccl::sys::loader::is_available());
            let id = UniqueId::new().expect("ncclGetUniqueId");
            assert_ne!(id.as_bytes(), &[0u8; 128], "an id says something");
        }
        Err(e) => {
            println!("branch: no collectives library:\n{e}");
            assert_load_error("rccl::version", &e);
            assert_load_error("UniqueId::new", &UniqueId::new().unwrap_err());
            assert_load_error("Group::start", &Group::start().unwrap_err());
            let e = rccl::group(|| Ok(())).unwrap_err();
            assert_load_error("rccl::group", &e);
            assert!(
                rccl::take_drop_errors().is_empty(),
                "no group was left open"
            );
        }
    }
}
