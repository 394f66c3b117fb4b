//! How each hipFFT argument type reaches cuFFT, and cuFFT's status back.
//!
//! cuFFT declares every function hipFFT has with the same parameters in the
//! same order; what differs is:
//!
//! - **the plan handle**: hipFFT's `hipfftHandle` is an opaque pointer,
//!   cuFFT's `cufftHandle` an `int`. A handle this backend hands out is the
//!   cuFFT handle plus one, as a pointer ([`encode_handle`]): never null
//!   (cuFFT's handles start at 0), and turned back by [`decode_handle`],
//!   which refuses null and values no `int` handle gives with
//!   `HIPFFT_INVALID_PLAN` before cuFFT is called. Plan-creating calls get
//!   an `int` of the adapter's frame to write and store the encoded handle
//!   only when cuFFT succeeded;
//! - **`HIPFFT_FORMAT_UNDEFINED`** (5) is cuFFT's `CUFFT_FORMAT_UNDEFINED`
//!   (7), cuFFT's 5 and 6 being its distributed formats, which hipFFT does
//!   not declare; every other enum value is cuFFT's (checked by the
//!   generated `cufft_enumerators.rs`); `hipDataType` values are
//!   `cudaDataType`'s for every type cuFFT takes (R/C 16F, 32F, 64F, 16BF);
//! - **statuses**: cuFFT's values are hipFFT's (`cufft_enumerators.rs`),
//!   except `CUFFT_LICENSE_ERROR` (15, which hipFFT does not declare) and any
//!   value a newer cuFFT adds: those become `HIPFFT_INTERNAL_ERROR`.
//!
//! Everything else (sizes, strides, data pointers, streams, descriptors,
//! whose layouts `hiplibxt.h` and `cudalibxt.h` declare alike) is passed
//! unchanged.

use crate::*;
use core::ffi::{c_int, c_longlong, c_void};
use hip_sys::hipDataType;
use hip_sys::loader::adapter::{Held, Library, ToCuda};

/// The library these conversions belong to, for hip-sys's adapter kit.
impl Library for hipfftResult {
    type Status = hipfftResult;
}

// Types cuFFT takes as they are.
hip_sys::cuda_unchanged!(
    hipfftResult:
    c_int,
    c_longlong,
    usize,
    *mut c_int,
    *mut c_longlong,
    *mut usize,
    *mut c_void,
    *mut *mut c_void,
    *mut hipfftComplex,
    *mut hipfftDoubleComplex,
    *mut hipfftReal,
    *mut hipfftDoubleReal,
    *mut hipLibXtDesc,
    *mut *mut hipLibXtDesc,
    hipStream_t,
);

// C enums whose values cuFFT shares: passed as the `int` cuFFT's enum is.
hip_sys::cuda_same_values!(
    hipfftResult,
    hipfftResult::HIPFFT_INVALID_VALUE;
    hipfftType,
    hipfftLibraryPropertyType,
    hipfftXtCallbackType,
    hipfftXtCopyType,
    hipDataType,
);

impl ToCuda<hipfftResult> for hipfftXtSubFormat {
    type Held = c_int;
    fn to_cuda(self) -> Result<c_int, hipfftResult> {
        Ok(to_cufft_hipfftxtsubformat(self))
    }
}

/// A `hipfftXtSubFormat` as cuFFT's `cufftXtSubFormat`.
pub(crate) fn to_cufft_hipfftxtsubformat(format: hipfftXtSubFormat) -> c_int {
    if format == hipfftXtSubFormat::HIPFFT_FORMAT_UNDEFINED {
        7 // CUFFT_FORMAT_UNDEFINED
    } else {
        c_int::try_from(format.0).unwrap_or(7)
    }
}

/// The handle this backend gives for cuFFT's `handle`: `handle + 1`.
pub(crate) fn encode_handle(handle: c_int) -> hipfftHandle {
    (handle as u32 as usize).wrapping_add(1) as hipfftHandle
}

/// The cuFFT handle of a handle from [`encode_handle`]; `None` for null or
/// a value it never gives.
pub(crate) fn decode_handle(plan: hipfftHandle) -> Option<c_int> {
    let value = (plan as usize).checked_sub(1)?;
    c_int::try_from(value).ok()
}

impl ToCuda<hipfftResult> for hipfftHandle {
    type Held = c_int;
    fn to_cuda(self) -> Result<c_int, hipfftResult> {
        decode_handle(self).ok_or(hipfftResult::HIPFFT_INVALID_PLAN)
    }
}

/// A plan-creating call's out-handle: cuFFT writes `value`, and the caller's
/// `dest` receives the encoded handle when the call succeeded.
#[derive(Debug)]
pub struct HandleOut {
    dest: *mut hipfftHandle,
    value: c_int,
}

impl ToCuda<hipfftResult> for *mut hipfftHandle {
    type Held = HandleOut;
    fn to_cuda(self) -> Result<HandleOut, hipfftResult> {
        if self.is_null() {
            return Err(hipfftResult::HIPFFT_INVALID_VALUE);
        }
        Ok(HandleOut {
            dest: self,
            value: -1,
        })
    }
}

impl Held for HandleOut {
    type Cuda = *mut c_int;
    fn pass(&mut self) -> *mut c_int {
        &mut self.value
    }
    unsafe fn finish(self, ok: bool) {
        if ok {
            // SAFETY: `dest` is the caller's non-null out-pointer (checked in
            // `to_cuda`), which the binding's contract says is writable
            // (`Held::finish`'s contract).
            unsafe { self.dest.write(encode_handle(self.value)) };
        }
    }
}

/// cuFFT's status as hipFFT's.
pub(crate) fn from_cufft(status: c_int) -> hipfftResult {
    match status {
        0..=14 | 16 => hipfftResult(status as u32),
        _ => hipfftResult::HIPFFT_INTERNAL_ERROR,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_round_trip_and_are_never_null() {
        for h in [0, 1, 7, 4096, c_int::MAX] {
            let p = encode_handle(h);
            assert!(!p.is_null(), "{h}");
            assert_eq!(decode_handle(p), Some(h));
        }
        assert_eq!(decode_handle(std::ptr::null_mut()), None);
        assert_eq!(
            std::ptr::null_mut::<hipfftHandle_t>().to_cuda(),
            Err(hipfftResult::HIPFFT_INVALID_PLAN)
        );
        let too_big = (c_int::MAX as usize + 2) as hipfftHandle;
        assert_eq!(decode_handle(too_big), None);
    }

    #[test]
    fn out_handles_are_written_only_on_success() {
        let mut plan: hipfftHandle = std::ptr::null_mut();
        let mut held = (&mut plan as *mut hipfftHandle).to_cuda().unwrap();
        // SAFETY: the pointer is into `held`, which stays put.
        unsafe { *held.pass() = 41 };
        // SAFETY: `plan` is writable and the "call" is over.
        unsafe { held.finish(false) };
        assert!(plan.is_null());
        let mut held = (&mut plan as *mut hipfftHandle).to_cuda().unwrap();
        // SAFETY: as above.
        unsafe { *held.pass() = 41 };
        // SAFETY: as above.
        unsafe { held.finish(true) };
        assert_eq!(decode_handle(plan), Some(41));
        assert!(matches!(
            std::ptr::null_mut::<hipfftHandle>().to_cuda(),
            Err(hipfftResult::HIPFFT_INVALID_VALUE)
        ));
    }

    #[test]
    fn statuses_and_formats_translate() {
        assert_eq!(from_cufft(0), hipfftResult::HIPFFT_SUCCESS);
        assert_eq!(from_cufft(8), hipfftResult::HIPFFT_INVALID_SIZE);
        assert_eq!(from_cufft(16), hipfftResult::HIPFFT_NOT_SUPPORTED);
        assert_eq!(from_cufft(15), hipfftResult::HIPFFT_INTERNAL_ERROR);
        assert_eq!(from_cufft(-3), hipfftResult::HIPFFT_INTERNAL_ERROR);
        assert_eq!(
            to_cufft_hipfftxtsubformat(hipfftXtSubFormat::HIPFFT_XT_FORMAT_INPLACE),
            2
        );
        assert_eq!(hipfftType::HIPFFT_Z2Z.to_cuda(), Ok(0x69), "CUFFT_Z2Z");
    }
}
