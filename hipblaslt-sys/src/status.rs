//! hipBLASLt's status: hipBLAS's `hipblasStatus_t`, not a type of its own.
//!
//! `hipblaslt.h` declares no status type: it includes `hipblas-common.h`,
//! and every `hipblasLt*` function (and the `hipblaslt*` extensions that
//! report one) returns that header's `hipblasStatus_t`. hipblas-sys binds
//! it, so the crate root re-exports hipblas-sys's type (the same type, not a
//! copy) and this crate defines nothing for it: `is_success`, `ok`,
//! `description`, `Display` and `std::error::Error` are hipblas-sys's
//! (`hipblas-sys/src/status.rs`), and a hipBLASLt status and a hipBLAS
//! status compare, print and convert alike. On the NVIDIA platform the
//! adapters turn cuBLASLt's `cublasStatus_t` into it as hipBLAS's own NVIDIA
//! backend does (`src/nvidia/convert.rs`). What a raw call returns when it
//! cannot call into a library is in `src/unavailable.rs`.

#[cfg(test)]
mod tests {
    use core::any::TypeId;

    #[test]
    fn the_status_is_hipblas_sys_own() {
        assert_eq!(
            TypeId::of::<crate::hipblasStatus_t>(),
            TypeId::of::<hipblas_sys::hipblasStatus_t>()
        );
        // The wrappers return it, so hipblas-sys's `ok` and `Display` apply.
        let create: unsafe fn(*mut crate::hipblasLtHandle_t) -> hipblas_sys::hipblasStatus_t =
            crate::hipblasLtCreate;
        let _ = create;
        let e = crate::hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED
            .ok()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "HIPBLAS_STATUS_NOT_SUPPORTED (7): function not implemented"
        );
    }
}
