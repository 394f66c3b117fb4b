//! A communicator's settings (`ncclConfig_t`), for
//! [`crate::Comm::from_rank_with_config`] and [`crate::Comm::split`].

use crate::error::{Error, Result};
use rccl_sys::ncclConfig_t;
use std::ffi::{c_int, CString};

/// The settings of a new communicator: the fields of NCCL's `ncclConfig_t`
/// this crate exposes. `None` (the default) leaves a field to the library
/// (`NCCL_CONFIG_UNDEF_INT`).
///
/// Communicators made here are always blocking (`blocking = 1`): every
/// call of this crate expects the library's work to be enqueued when the
/// call returns, which a non-blocking communicator does not promise.
///
/// ```
/// let config = rccl::CommConfig {
///     min_ctas: Some(4),
///     max_ctas: Some(16),
///     ..Default::default()
/// };
/// assert_eq!(config.net_name, None);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommConfig {
    /// `cgaClusterSize`: the CUDA thread-block cluster size of the
    /// library's kernels (NCCL on sm_90 and later; 0 to 8).
    pub cga_cluster_size: Option<u32>,
    /// `minCTAs`: the fewest thread blocks a collective uses (at least 1).
    pub min_ctas: Option<u32>,
    /// `maxCTAs`: the most thread blocks a collective uses (at least 1 and
    /// at least `min_ctas`).
    pub max_ctas: Option<u32>,
    /// `netName`: the network module to use (e.g. `"IB"`, `"Socket"`).
    pub net_name: Option<String>,
}

/// An `ncclConfig_t` and the string its `netName` points into: the config
/// is valid while this value lives.
pub(crate) struct RawConfig {
    raw: ncclConfig_t,
    _net_name: Option<CString>,
}

impl RawConfig {
    /// The config, for the C call; valid while `self` lives.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut ncclConfig_t {
        &mut self.raw
    }
}

fn int_field(operation: &'static str, name: &str, value: Option<u32>) -> Result<c_int> {
    match value {
        None => Ok(rccl_sys::NCCL_CONFIG_UNDEF_INT),
        Some(v) => c_int::try_from(v).map_err(|_| Error::Invalid {
            operation,
            reason: format!("{name} {v} does not fit the C API's int"),
        }),
    }
}

impl CommConfig {
    /// Checks every field and builds NCCL's config from
    /// `NCCL_CONFIG_INITIALIZER` ([`rccl_sys::nccl_config_initializer`]).
    pub(crate) fn to_raw(&self, operation: &'static str) -> Result<RawConfig> {
        let invalid = |reason: String| Error::Invalid { operation, reason };
        if let Some(size) = self.cga_cluster_size {
            if size > 8 {
                return Err(invalid(format!(
                    "cga_cluster_size {size} is above NCCL's largest, 8"
                )));
            }
        }
        for (name, value) in [("min_ctas", self.min_ctas), ("max_ctas", self.max_ctas)] {
            if value == Some(0) {
                return Err(invalid(format!("{name} 0: a collective needs a block")));
            }
        }
        if let (Some(min), Some(max)) = (self.min_ctas, self.max_ctas) {
            if min > max {
                return Err(invalid(format!("min_ctas {min} is above max_ctas {max}")));
            }
        }
        let net_name = match &self.net_name {
            None => None,
            Some(name) if name.is_empty() => return Err(invalid("net_name is empty".to_string())),
            Some(name) => Some(
                CString::new(name.as_str())
                    .map_err(|_| invalid(format!("net_name {name:?} holds a NUL byte")))?,
            ),
        };
        let mut raw = rccl_sys::nccl_config_initializer();
        raw.blocking = 1;
        raw.cgaClusterSize = int_field(operation, "cga_cluster_size", self.cga_cluster_size)?;
        raw.minCTAs = int_field(operation, "min_ctas", self.min_ctas)?;
        raw.maxCTAs = int_field(operation, "max_ctas", self.max_ctas)?;
        if let Some(name) = &net_name {
            raw.netName = name.as_ptr();
        }
        Ok(RawConfig {
            raw,
            _net_name: net_name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_nccls_initializer_made_blocking() {
        let raw = CommConfig::default().to_raw("test").unwrap().raw;
        let mut expected = rccl_sys::nccl_config_initializer();
        expected.blocking = 1;
        assert_eq!(raw, expected);
    }

    #[test]
    fn fields_are_copied_and_the_name_outlives_the_pointer() {
        let config = CommConfig {
            cga_cluster_size: Some(2),
            min_ctas: Some(3),
            max_ctas: Some(5),
            net_name: Some("Socket".to_string()),
        };
        let raw = config.to_raw("test").unwrap();
        assert_eq!(
            (raw.raw.cgaClusterSize, raw.raw.minCTAs, raw.raw.maxCTAs),
            (2, 3, 5)
        );
        // SAFETY: `netName` points into `raw`'s own CString, alive here.
        let name = unsafe { std::ffi::CStr::from_ptr(raw.raw.netName) };
        assert_eq!(name.to_str().unwrap(), "Socket");
    }

    #[test]
    fn bad_fields_are_rejected() {
        let bad = [
            CommConfig {
                cga_cluster_size: Some(9),
                ..Default::default()
            },
            CommConfig {
                min_ctas: Some(0),
                ..Default::default()
            },
            CommConfig {
                min_ctas: Some(8),
                max_ctas: Some(4),
                ..Default::default()
            },
            CommConfig {
                max_ctas: Some(u32::MAX),
                ..Default::default()
            },
            CommConfig {
                net_name: Some("I\0B".to_string()),
                ..Default::default()
            },
            CommConfig {
                net_name: Some(String::new()),
                ..Default::default()
            },
        ];
        for config in bad {
            let err = config.to_raw("Comm::split").err().unwrap();
            assert!(
                matches!(
                    err,
                    Error::Invalid {
                        operation: "Comm::split",
                        ..
                    }
                ),
                "{config:?}: {err}"
            );
        }
    }
}
