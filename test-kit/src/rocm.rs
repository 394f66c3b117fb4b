//! Which AMD runtime a tier-2 run is against, and what that release must
//! show. `scripts/test.sh` runs the tier-2 test binaries once against
//! Debian 12's ROCm 5.2.3 (the variable unset) and once per sysroot made by
//! `scripts/rocm-runtimes.sh`, with [`EXPECT_ROCM_VAR`] naming the release.

/// The variable naming the ROCm release the tier-2 tests must find:
/// `5.7` or `6.4`; unset (or `5.2`) means Debian 12's ROCm 5.2.3.
pub const EXPECT_ROCM_VAR: &str = "HIP_TEST_EXPECT_ROCM";

/// A ROCm release tier 2 runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rocm {
    /// Debian 12's ROCm 5.2.3 (installed on the test machine).
    V5_2,
    /// Debian trixie's HIP 5.7.1 with comgr 2 (LLVM 17).
    V5_7,
    /// Debian unstable's HIP 6.4.3, hipBLAS 6.4.4, rocBLAS 6.4.4, comgr 3
    /// (LLVM 21).
    V6_4,
}

impl Rocm {
    /// The release named by [`EXPECT_ROCM_VAR`]; panics (the test fails)
    /// on a value it does not know, rather than testing the wrong thing.
    pub fn expected() -> Rocm {
        let value = std::env::var(EXPECT_ROCM_VAR).ok();
        Rocm::from_value(value.as_deref()).unwrap_or_else(|e| panic!("{e}"))
    }

    /// The release a value of [`EXPECT_ROCM_VAR`] names.
    pub fn from_value(value: Option<&str>) -> Result<Rocm, String> {
        match value {
            None | Some("") | Some("5.2") => Ok(Rocm::V5_2),
            Some("5.7") => Ok(Rocm::V5_7),
            Some("6.4") => Ok(Rocm::V6_4),
            Some(v) => Err(format!(
                "{EXPECT_ROCM_VAR}={v}: the values it takes are 5.2 (or unset), 5.7 and 6.4"
            )),
        }
    }

    /// The runtime's `major.minor` (`hipRuntimeGetVersion` / 10^5 and
    /// its remainder / 10^3 on AMD).
    pub fn major_minor(self) -> (u32, u32) {
        match self {
            Rocm::V5_2 => (5, 2),
            Rocm::V5_7 => (5, 7),
            Rocm::V6_4 => (6, 4),
        }
    }

    /// Whether the release has `hipGetDevicePropertiesR0600` (HIP 6.0 on).
    pub fn has_r0600(self) -> bool {
        self >= Rocm::V6_4
    }

    /// Whether hiprtc is a library of its own (`libhiprtc.so.6`, from HIP
    /// 6.0 on) rather than part of `libamdhip64`.
    pub fn hiprtc_is_separate(self) -> bool {
        self >= Rocm::V6_4
    }

    /// Whether this release's tier-2 environment ships hipBLAS and rocBLAS
    /// (only the 6.4 sysroot does: Debian 12 has no hipBLAS, and trixie's
    /// 5.5 would pull rocSOLVER's 450 MB).
    pub fn has_hipblas(self) -> bool {
        self == Rocm::V6_4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_name_releases() {
        assert_eq!(Rocm::from_value(None), Ok(Rocm::V5_2));
        assert_eq!(Rocm::from_value(Some("")), Ok(Rocm::V5_2));
        assert_eq!(Rocm::from_value(Some("5.7")), Ok(Rocm::V5_7));
        assert_eq!(
            Rocm::from_value(Some("6.4")).map(Rocm::major_minor),
            Ok((6, 4))
        );
        let e = Rocm::from_value(Some("6")).unwrap_err();
        assert!(e.contains("HIP_TEST_EXPECT_ROCM=6"), "{e}");
        assert!(!Rocm::V5_7.has_r0600() && Rocm::V6_4.has_r0600());
    }
}
