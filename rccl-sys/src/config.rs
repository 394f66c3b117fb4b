//! `NCCL_CONFIG_INITIALIZER` of NCCL's `nccl.h`: the only valid starting
//! value of an [`ncclConfig_t`] (the library rejects a config whose magic
//! number it does not find, and reads only the fields that the config's
//! `size` and `version` say it has).

use crate::ncclConfig_t;
use std::os::raw::{c_int, c_uint};

/// `NCCL_CONFIG_UNDEF_INT` (`INT_MIN`): "not set, use the library's default"
/// for every integer field of [`ncclConfig_t`]. bindgen cannot evaluate the
/// C macro, hence this constant.
pub const NCCL_CONFIG_UNDEF_INT: c_int = c_int::MIN;

/// The magic number `NCCL_CONFIG_INITIALIZER` stores (`0xcafebeef`): NCCL
/// checks it to tell an initialised config from stray memory.
pub const NCCL_CONFIG_MAGIC: c_uint = 0xcafe_beef;

/// `NCCL_VERSION(2, 27, 3)`: the version of the NCCL header whose
/// `ncclConfig_t` layout (`ncclConfig_v22700`) is bound, stored in the
/// config's `version` field so the library knows which fields it carries.
pub const NCCL_CONFIG_VERSION: c_uint = 22703;

/// The value of `NCCL_CONFIG_INITIALIZER`: its own size, the magic number,
/// the header's version, every integer field [`NCCL_CONFIG_UNDEF_INT`] and
/// every pointer null. (The derived `Default` is all zeros, which NCCL
/// rejects: start from this instead.)
///
/// ```
/// let mut config = rccl_sys::nccl_config_initializer();
/// config.blocking = 0;
/// assert_eq!(config.magic, rccl_sys::NCCL_CONFIG_MAGIC);
/// ```
pub const fn nccl_config_initializer() -> ncclConfig_t {
    ncclConfig_t {
        size: size_of::<ncclConfig_t>(),
        magic: NCCL_CONFIG_MAGIC,
        version: NCCL_CONFIG_VERSION,
        blocking: NCCL_CONFIG_UNDEF_INT,
        cgaClusterSize: NCCL_CONFIG_UNDEF_INT,
        minCTAs: NCCL_CONFIG_UNDEF_INT,
        maxCTAs: NCCL_CONFIG_UNDEF_INT,
        netName: std::ptr::null(),
        splitShare: NCCL_CONFIG_UNDEF_INT,
        trafficClass: NCCL_CONFIG_UNDEF_INT,
        commName: std::ptr::null(),
        collnetEnable: NCCL_CONFIG_UNDEF_INT,
        CTAPolicy: NCCL_CONFIG_UNDEF_INT,
        shrinkShare: NCCL_CONFIG_UNDEF_INT,
        nvlsCTAs: NCCL_CONFIG_UNDEF_INT,
    }
}
