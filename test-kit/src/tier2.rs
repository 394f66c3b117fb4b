//! Tier 2 (the real AMD runtime, no GPU): whether the test run demands the
//! AMD runtime, and the check every -sys crate's loader test makes of its
//! library's load result.

use hip_sys::loader::common::{FunctionTable, Library, LoadError};
use hip_sys::loader::Platform;

/// The variable `scripts/test.sh` exports as `amd` when Debian's AMD runtime
/// packages are installed.
pub const EXPECT_RUNTIME_VAR: &str = "HIP_TEST_EXPECT_RUNTIME";

/// Whether [`EXPECT_RUNTIME_VAR`] says the AMD runtime must be the one
/// loaded (`amd`); unset or empty, any environment is accepted. Panics on
/// any other value, naming it (a typo must not turn the check off).
pub fn amd_runtime_expected() -> bool {
    match std::env::var(EXPECT_RUNTIME_VAR) {
        Ok(v) if v == "amd" => true,
        Ok(v) if v.is_empty() => false,
        Ok(v) => panic!("{EXPECT_RUNTIME_VAR}={v}: the only value it takes is `amd`"),
        Err(_) => false,
    }
}

/// What a -sys crate's tier-2 loader test expects of its library when it is
/// absent: the names its error must give.
#[derive(Clone, Copy, Debug)]
pub struct ExpectedLibrary {
    /// The library's name in the loader core (its `LibrarySpec::name`),
    /// which is also the role of its AMD file, e.g. `"hipFFT"`.
    pub name: &'static str,
    /// Every AMD file name that must have been tried, e.g.
    /// `["libhipfft.so.0", "libhipfft.so"]`.
    pub amd_files: &'static [&'static str],
    /// The AMD package the error must tell the user to install, e.g.
    /// `"libhipfft0"`.
    pub amd_package: &'static str,
    /// The NVIDIA file the error must name when the NVIDIA runtime loaded,
    /// e.g. `"libcufft.so.12"`.
    pub nvidia_file: &'static str,
}

/// The check every -sys crate's tier-2 loader test makes of its library's
/// load result, `loaded` (what its `loader::hipfft()` or the like returned),
/// before its own checks of the library or of the raw calls without it:
///
/// - with [`EXPECT_RUNTIME_VAR`]`=amd`, the HIP runtime loaded is AMD's;
/// - loaded: prints which library, and how many functions it has;
/// - not loaded: prints the error and asserts that it explains itself. No
///   HIP runtime: it carries the runtime's failure and the library's name.
///   The AMD runtime: it names the AMD file role and platform, tried every
///   one of `expected.amd_files`, and names them, the package to install
///   and `HIP_SYS_LIBRARY_PATH`. Another runtime: it names the NVIDIA
///   platform and `expected.nvidia_file`.
///
/// Returns `loaded`, for the caller's own checks. Panics (failing the
/// test) on any assertion that does not hold.
pub fn check_library_load<'l, T: FunctionTable>(
    loaded: Result<&'l Library<T>, &'l LoadError>,
    expected: &ExpectedLibrary,
) -> Result<&'l Library<T>, &'l LoadError> {
    let runtime = hip_sys::loader::runtime();
    if amd_runtime_expected() {
        match &runtime {
            Ok(rt) => assert_eq!(
                rt.platform,
                Platform::Amd,
                "{EXPECT_RUNTIME_VAR}=amd: {rt:?}"
            ),
            Err(e) => panic!("{EXPECT_RUNTIME_VAR}=amd, but the AMD runtime did not load:\n{e}"),
        }
    }
    let name = expected.name;
    let e = match loaded {
        Ok(lib) => {
            println!(
                "branch: {:?} loaded: {:?}, {} functions available",
                lib.platform,
                lib.libraries,
                lib.available_count()
            );
            return loaded;
        }
        Err(e) => e,
    };
    let text = e.to_string();
    println!("{text}");
    match runtime {
        Err(_) => {
            println!("branch: no HIP runtime loaded, so no {name}");
            assert!(e.runtime.is_some(), "{text}");
            assert_eq!(e.library, name);
        }
        Ok(rt) if rt.platform == Platform::Amd => {
            println!("branch: AMD runtime {} loaded, {name} absent", rt.version);
            assert_eq!(e.platform, Some(Platform::Amd));
            assert_eq!(e.role, Some(name));
            for file in expected.amd_files {
                assert!(
                    e.attempts.iter().any(|a| a.candidate.ends_with(file)),
                    "{file} not tried: {text}"
                );
                assert!(text.contains(file), "{file} not named: {text}");
            }
            assert!(
                text.contains(&format!("no {name} found for the amd platform")),
                "{text}"
            );
            assert!(text.contains(expected.amd_package), "{text}");
            assert!(text.contains("HIP_SYS_LIBRARY_PATH"), "{text}");
        }
        Ok(rt) => {
            println!(
                "branch: {} runtime loaded, {name}'s NVIDIA counterpart absent",
                rt.platform
            );
            assert_eq!(e.platform, Some(Platform::Nvidia));
            assert!(text.contains(expected.nvidia_file), "{text}");
        }
    }
    loaded
}
