//! Tier 2 (the real AMD runtime, no GPU): whether the test run demands the
//! AMD runtime.

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
