//! cuBLASLt's logger controls, accepted and ignored.
//!
//! hipBLASLt has no logger API: its logging is chosen when the library
//! loads, by the variables `HIPBLASLT_LOG_LEVEL`, `HIPBLASLT_LOG_MASK` and
//! `HIPBLASLT_LOG_FILE`, which these calls cannot change afterwards (and
//! setting a process's environment while other threads run is unsound).
//! So each call checks its arguments as cuBLASLt does and then does
//! nothing: code that quiets or raises cuBLASLt's logging (cudarc's own
//! matmul tests call `cublasLtLoggerSetLevel`) runs unchanged, and the
//! log, if any, is hipBLASLt's. A callback set here is never called.
//!
//! ```
//! use cuda_compat::cublaslt::sys;
//! // SAFETY: the calls take plain values and touch no memory.
//! unsafe {
//!     assert_eq!(sys::cublasLtLoggerSetLevel(0), sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS);
//!     assert_eq!(sys::cublasLtLoggerSetLevel(6), sys::cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE);
//! }
//! ```

#![allow(non_camel_case_types, non_snake_case)]

use crate::cublas::sys::cublasStatus_t;
use std::ffi::{c_char, c_int};

/// cuBLASLt's logger callback: the level, the function's name, the message.
pub type cublasLtLoggerCallback_t = Option<
    unsafe extern "C" fn(logLevel: c_int, functionName: *const c_char, message: *const c_char),
>;

/// The highest level cuBLASLt documents (5, API trace; 0 is off).
const MAX_LEVEL: c_int = 5;

/// The mask bits cuBLASLt documents: error 1, trace 2, hints 4, info 8,
/// API trace 16.
const ALL_MASK_BITS: c_int = 0x1f;

/// `cublasLtLoggerSetLevel`: a level from 0 (off) to 5 (API trace) is
/// accepted and ignored (hipBLASLt's logging is set by its variables when
/// it loads, `HIPBLASLT_LOG_LEVEL`); another is
/// `CUBLAS_STATUS_INVALID_VALUE`, as in cuBLASLt.
///
/// # Safety
///
/// None beyond cuBLASLt's: the call reads nothing but its argument. It is
/// `unsafe` as every function of cudarc's `sys` is.
pub unsafe fn cublasLtLoggerSetLevel(level: c_int) -> cublasStatus_t {
    if (0..=MAX_LEVEL).contains(&level) {
        cublasStatus_t::CUBLAS_STATUS_SUCCESS
    } else {
        cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
    }
}

/// `cublasLtLoggerSetMask`: a combination of cuBLASLt's mask bits (error
/// 1, trace 2, hints 4, info 8, API trace 16) is accepted and ignored;
/// another bit is `CUBLAS_STATUS_INVALID_VALUE`.
///
/// # Safety
///
/// None: the call reads nothing but its argument.
pub unsafe fn cublasLtLoggerSetMask(mask: c_int) -> cublasStatus_t {
    if mask & !ALL_MASK_BITS == 0 {
        cublasStatus_t::CUBLAS_STATUS_SUCCESS
    } else {
        cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
    }
}

/// `cublasLtLoggerForceDisable`: accepted; there is no cuBLASLt logger to
/// disable (hipBLASLt's is set by its variables when it loads).
///
/// # Safety
///
/// None: the call takes no argument.
pub unsafe fn cublasLtLoggerForceDisable() -> cublasStatus_t {
    cublasStatus_t::CUBLAS_STATUS_SUCCESS
}

/// `cublasLtLoggerSetCallback`: accepted; the callback is never called.
///
/// # Safety
///
/// None: the callback is not kept.
pub unsafe fn cublasLtLoggerSetCallback(_callback: cublasLtLoggerCallback_t) -> cublasStatus_t {
    cublasStatus_t::CUBLAS_STATUS_SUCCESS
}

/// `cublasLtLoggerOpenFile`: a null path is `CUBLAS_STATUS_INVALID_VALUE`;
/// another is accepted and neither opened nor created (hipBLASLt logs to
/// `HIPBLASLT_LOG_FILE`, chosen when it loads).
///
/// # Safety
///
/// None: the path is not read.
pub unsafe fn cublasLtLoggerOpenFile(logFile: *const c_char) -> cublasStatus_t {
    if logFile.is_null() {
        cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
    } else {
        cublasStatus_t::CUBLAS_STATUS_SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_masks_are_checked_as_cublaslt_does() {
        // SAFETY: plain values; nothing is dereferenced.
        unsafe {
            for level in 0..=5 {
                assert_eq!(
                    cublasLtLoggerSetLevel(level),
                    cublasStatus_t::CUBLAS_STATUS_SUCCESS
                );
            }
            for level in [-1, 6, 100] {
                assert_eq!(
                    cublasLtLoggerSetLevel(level),
                    cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
                );
            }
            assert_eq!(
                cublasLtLoggerSetMask(0x1f),
                cublasStatus_t::CUBLAS_STATUS_SUCCESS
            );
            assert_eq!(
                cublasLtLoggerSetMask(0),
                cublasStatus_t::CUBLAS_STATUS_SUCCESS
            );
            assert_eq!(
                cublasLtLoggerSetMask(0x20),
                cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
            );
            assert_eq!(
                cublasLtLoggerOpenFile(std::ptr::null()),
                cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE
            );
            assert_eq!(
                cublasLtLoggerOpenFile(c"log.txt".as_ptr()),
                cublasStatus_t::CUBLAS_STATUS_SUCCESS
            );
            assert_eq!(
                cublasLtLoggerForceDisable(),
                cublasStatus_t::CUBLAS_STATUS_SUCCESS
            );
            assert_eq!(
                cublasLtLoggerSetCallback(None),
                cublasStatus_t::CUBLAS_STATUS_SUCCESS
            );
        }
    }
}
