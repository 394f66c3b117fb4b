//! hipSOLVER's own-API size queries for routines that take no workspace in
//! cuSOLVER (`getrs`, `potrs`, the batched `potrf`/`potrs`): they report 0
//! bytes without calling cuSOLVER. They are not adapters (no cuSOLVER
//! function has their role), so they are written here rather than
//! generated; the generator skips them because no `cusolverDn*_bufferSize`
//! of theirs is declared.

use crate::*;
use core::ffi::*;
use hip_sys::{hipDoubleComplex, hipFloatComplex};

macro_rules! zero_workspace {
    ($( $hip:ident ( $h:ident : hipsolverHandle_t $(, $a:ident : $t:ty)* ) -> $out:ident ; )*) => {
        $(
            #[doc = concat!("`", stringify!($hip), "`: cuSOLVER's counterpart takes no workspace.")]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            unsafe extern "C" fn $hip($h: hipsolverHandle_t $(, $a: $t)*) -> hipsolverStatus_t {
                $(let _ = $a;)*
                if $h.is_null() {
                    return hipsolverStatus_t::HIPSOLVER_STATUS_HANDLE_IS_NULLPTR;
                }
                if $out.is_null() {
                    return hipsolverStatus_t::HIPSOLVER_STATUS_INVALID_VALUE;
                }
                // SAFETY: `lwork` is the caller's non-null out-pointer, valid
                // for a write by the binding's contract.
                unsafe { $out.write(0) };
                hipsolverStatus_t::HIPSOLVER_STATUS_SUCCESS
            }
        )*

        /// The size queries answered without cuSOLVER (0 bytes).
        pub(crate) const ZERO_WORKSPACE: &[&str] = &[$(stringify!($hip)),*];

        /// Puts the size queries into `table` (once cuSOLVER is loaded).
        pub(crate) fn install_zero_workspace(table: &mut crate::generated::functions::HipsolverFunctions) {
            $(table.$hip = Some($hip);)*
        }
    };
}

zero_workspace! {
hipsolverCgetrs_bufferSize(handle: hipsolverHandle_t, trans: hipsolverOperation_t, n: c_int, nrhs: c_int, A: *mut hipFloatComplex, lda: c_int, devIpiv: *mut c_int, B: *mut hipFloatComplex, ldb: c_int, lwork: *mut c_int) -> lwork;
hipsolverCpotrfBatched_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, A: *mut *mut hipFloatComplex, lda: c_int, lwork: *mut c_int, batch_count: c_int) -> lwork;
hipsolverCpotrsBatched_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, nrhs: c_int, A: *mut *mut hipFloatComplex, lda: c_int, B: *mut *mut hipFloatComplex, ldb: c_int, lwork: *mut c_int, batch_count: c_int) -> lwork;
hipsolverCpotrs_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, nrhs: c_int, A: *mut hipFloatComplex, lda: c_int, B: *mut hipFloatComplex, ldb: c_int, lwork: *mut c_int) -> lwork;
hipsolverDgetrs_bufferSize(handle: hipsolverHandle_t, trans: hipsolverOperation_t, n: c_int, nrhs: c_int, A: *mut f64, lda: c_int, devIpiv: *mut c_int, B: *mut f64, ldb: c_int, lwork: *mut c_int) -> lwork;
hipsolverDpotrfBatched_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, A: *mut *mut f64, lda: c_int, lwork: *mut c_int, batch_count: c_int) -> lwork;
hipsolverDpotrsBatched_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, nrhs: c_int, A: *mut *mut f64, lda: c_int, B: *mut *mut f64, ldb: c_int, lwork: *mut c_int, batch_count: c_int) -> lwork;
hipsolverDpotrs_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, nrhs: c_int, A: *mut f64, lda: c_int, B: *mut f64, ldb: c_int, lwork: *mut c_int) -> lwork;
hipsolverSgetrs_bufferSize(handle: hipsolverHandle_t, trans: hipsolverOperation_t, n: c_int, nrhs: c_int, A: *mut f32, lda: c_int, devIpiv: *mut c_int, B: *mut f32, ldb: c_int, lwork: *mut c_int) -> lwork;
hipsolverSpotrfBatched_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, A: *mut *mut f32, lda: c_int, lwork: *mut c_int, batch_count: c_int) -> lwork;
hipsolverSpotrsBatched_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, nrhs: c_int, A: *mut *mut f32, lda: c_int, B: *mut *mut f32, ldb: c_int, lwork: *mut c_int, batch_count: c_int) -> lwork;
hipsolverSpotrs_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, nrhs: c_int, A: *mut f32, lda: c_int, B: *mut f32, ldb: c_int, lwork: *mut c_int) -> lwork;
hipsolverZgetrs_bufferSize(handle: hipsolverHandle_t, trans: hipsolverOperation_t, n: c_int, nrhs: c_int, A: *mut hipDoubleComplex, lda: c_int, devIpiv: *mut c_int, B: *mut hipDoubleComplex, ldb: c_int, lwork: *mut c_int) -> lwork;
hipsolverZpotrfBatched_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, A: *mut *mut hipDoubleComplex, lda: c_int, lwork: *mut c_int, batch_count: c_int) -> lwork;
hipsolverZpotrsBatched_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, nrhs: c_int, A: *mut *mut hipDoubleComplex, lda: c_int, B: *mut *mut hipDoubleComplex, ldb: c_int, lwork: *mut c_int, batch_count: c_int) -> lwork;
hipsolverZpotrs_bufferSize(handle: hipsolverHandle_t, uplo: hipsolverFillMode_t, n: c_int, nrhs: c_int, A: *mut hipDoubleComplex, lda: c_int, B: *mut hipDoubleComplex, ldb: c_int, lwork: *mut c_int) -> lwork;
}
