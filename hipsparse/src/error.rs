//! The error type of every safe call.

use hipsparse_sys::hipsparseStatus_t;
use hipsparse_sys::loader::LoadError;

hip::library_error! {
    library: "hipSPARSE",
    status: Sparse(hipsparseStatus_t),
    load: LoadError,
    example_call: "hipsparseSpMV",
}

impl Error {
    /// The operation that refused an argument, for [`Error::Invalid`].
    pub fn operation(&self) -> Option<&'static str> {
        match self {
            Error::Invalid { operation, .. } => Some(operation),
            _ => None,
        }
    }

    /// Builds an [`Error::Sparse`] for `status` returned by `call`: its
    /// meaning, and whether the loaded library lacks `call`; or
    /// [`Error::Load`] when `HIPSPARSE_STATUS_NOT_INITIALIZED` means no
    /// library.
    #[cold]
    #[inline(never)]
    pub fn from_sparse(call: &'static str, status: hipsparseStatus_t) -> Error {
        let library = hipsparse_sys::loader::hipsparse();
        if status == hipsparseStatus_t::HIPSPARSE_STATUS_NOT_INITIALIZED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_string();
        if status == hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Sparse {
            call,
            status,
            message,
        }
    }
}
