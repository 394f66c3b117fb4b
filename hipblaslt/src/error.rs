//! The error type of every safe call: the vocabulary of `hipblas::Error`
//! (hipBLASLt returns hipBLAS's status type).

use hipblaslt_sys::hipblasStatus_t;
use hipblaslt_sys::loader::LoadError;

hip::library_error! {
    library: "hipBLASLt",
    status: Blas(hipblasStatus_t),
    load: LoadError,
    example_call: "hipblasLtMatmul",
}

impl Error {
    /// The error for `status` returned by `call`: the load error when no
    /// library could be loaded (the status then only says that).
    #[cold]
    #[inline(never)]
    pub fn from_status(call: &'static str, status: hipblasStatus_t) -> Error {
        let library = hipblaslt_sys::loader::hipblaslt();
        if status == hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_owned();
        if status == hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Blas {
            call,
            status,
            message,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_operation_and_the_reason() {
        let e = Error::invalid("LtHandle::matmul", "lda = 7 is less than 8");
        assert_eq!(
            e.to_string(),
            "invalid argument to LtHandle::matmul: lda = 7 is less than 8"
        );
        assert_eq!((e.status(), e.call()), (None, None));
        let e = Error::from_status(
            "hipblasLtMatmul",
            hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE,
        );
        assert_eq!(e.call(), Some("hipblasLtMatmul"));
        assert_eq!(
            e.status(),
            Some(hipblasStatus_t::HIPBLAS_STATUS_INVALID_VALUE)
        );
        assert!(e.to_string().starts_with("hipblasLtMatmul failed with"));
    }
}
