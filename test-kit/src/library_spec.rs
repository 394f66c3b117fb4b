//! Checks of a -sys crate's `LibrarySpec` (tier 1: data only).

use hip_sys::loader::common::LibrarySpec;

/// Asserts that `spec` names each platform's library as the loader expects:
/// the Unix names are sonames of the unversioned names (which only a
/// development package installs) that come last, usually one; Windows names are DLLs, and
/// the AMD library has one (NVIDIA's may have none: NCCL); each hint says
/// to install that platform's library. Panics, failing the test, naming the
/// name or hint at fault.
pub fn assert_library_spec(spec: &LibrarySpec) {
    assert!(!spec.amd.windows.is_empty(), "{}: no AMD DLL", spec.name);
    for (names, hint) in [(spec.amd, spec.amd_hint), (spec.nvidia, spec.nvidia_hint)] {
        // The unversioned names (only a development package installs them)
        // come last; most platforms have one library, NVTX two.
        let split = names
            .unix
            .iter()
            .rposition(|n| !n.ends_with(".so"))
            .map_or(0, |i| i + 1);
        let (versioned, unversioned) = names.unix.split_at(split);
        assert!(
            !unversioned.is_empty(),
            "{}: no unversioned Unix name last",
            names.role
        );
        for name in unversioned {
            assert!(
                name.starts_with("lib"),
                "{name} is not an unversioned library name"
            );
        }
        for soname in versioned {
            assert!(
                unversioned
                    .iter()
                    .any(|u| soname.starts_with(&format!("{u}."))),
                "{soname} is not a version of {unversioned:?}"
            );
        }
        for dll in names.windows {
            assert!(dll.ends_with(".dll"), "{dll} is not a DLL");
        }
        assert!(
            hint.starts_with(&format!("Install {}", names.role)),
            "the hint does not say to install {}: {hint}",
            names.role
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hip_sys::loader::common::LibraryNames;

    const GOOD: LibrarySpec = LibrarySpec {
        name: "demoLIB",
        amd: LibraryNames {
            role: "demoLIB",
            unix: &["libdemo.so.2", "libdemo.so"],
            windows: &["demo.dll"],
        },
        nvidia: LibraryNames {
            role: "cuDEMO",
            unix: &["libcudemo.so"],
            windows: &[],
        },
        amd_hint: "Install demoLIB.",
        nvidia_hint: "Install cuDEMO.",
    };

    fn fails(spec: LibrarySpec) -> bool {
        std::panic::catch_unwind(|| assert_library_spec(&spec)).is_err()
    }

    #[test]
    fn a_misnamed_library_fails() {
        assert_library_spec(&GOOD);
        let mut spec = GOOD;
        spec.amd.unix = &["libdemo.so", "libdemo.so.2"];
        assert!(fails(spec), "the unversioned name first");
        let mut spec = GOOD;
        spec.amd.unix = &["libdemo.so.2", "libother.so"];
        assert!(fails(spec), "sonames of another library");
        let mut spec = GOOD;
        spec.nvidia.windows = &["cudemo.so"];
        assert!(fails(spec), "a Windows name that is no DLL");
        let mut spec = GOOD;
        spec.amd.windows = &[];
        assert!(fails(spec), "no AMD DLL");
        let mut spec = GOOD;
        spec.nvidia_hint = "Install demoLIB.";
        assert!(fails(spec), "a hint naming the other library");
        // Two libraries (NVTX's), each with its unversioned name last.
        let mut spec = GOOD;
        spec.nvidia.unix = &["libcua.so.1", "libcub.so.1", "libcua.so", "libcub.so"];
        assert_library_spec(&spec);
        spec.nvidia.unix = &["libcua.so.1", "libcub.so.1", "libcua.so"];
        assert!(fails(spec), "a soname without its unversioned name");
    }
}
