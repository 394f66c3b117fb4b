//! Conveniences on the status types, in the style of windows-rs's `HRESULT`.

use crate::{hipError_t, hiprtcResult};
use core::fmt;

impl hipError_t {
    /// `Ok(())` for `hipSuccess`, else `Err(self)`.
    ///
    /// ```
    /// use hip_sys::hipError_t;
    /// assert_eq!(hipError_t::hipSuccess.ok(), Ok(()));
    /// assert!(hipError_t::hipErrorNoDevice.ok().is_err());
    /// ```
    #[inline]
    pub const fn ok(self) -> Result<(), hipError_t> {
        if self.0 == hipError_t::hipSuccess.0 {
            Ok(())
        } else {
            Err(self)
        }
    }

    /// Whether this is `hipSuccess`.
    #[inline]
    pub const fn is_success(self) -> bool {
        self.0 == hipError_t::hipSuccess.0
    }
}

impl fmt::Display for hipError_t {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n} ({})", self.0),
            None => write!(f, "unknown HIP status {}", self.0),
        }
    }
}

impl std::error::Error for hipError_t {}

impl hiprtcResult {
    /// `Ok(())` for `HIPRTC_SUCCESS`, else `Err(self)`.
    #[inline]
    pub const fn ok(self) -> Result<(), hiprtcResult> {
        if self.0 == hiprtcResult::HIPRTC_SUCCESS.0 {
            Ok(())
        } else {
            Err(self)
        }
    }
}

impl fmt::Display for hiprtcResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{n} ({})", self.0),
            None => write!(f, "unknown hiprtc status {}", self.0),
        }
    }
}

impl std::error::Error for hiprtcResult {}
