//! The error type of every safe call.

use hipblas_sys::hipblasStatus_t;
use hipblas_sys::loader::LoadError;

hip::library_error! {
    library: "hipBLAS",
    status: Blas(hipblasStatus_t),
    load: LoadError,
    example_call: "hipblasSgemm",
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_operation_and_the_reason() {
        let e = Error::invalid("Blas::gemm", "lda = 7: must be >= 8");
        assert_eq!(
            e.to_string(),
            "invalid argument to Blas::gemm: lda = 7: must be >= 8"
        );
        assert_eq!((e.status(), e.call()), (None, None));
        let e = Error::unsupported("Blas::gemm_ex", "no GemmEx");
        assert_eq!(e.to_string(), "Blas::gemm_ex is not supported: no GemmEx");
    }
}
