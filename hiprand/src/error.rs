//! The error type of every safe call.

use hiprand_sys::hiprandStatus_t;
use hiprand_sys::loader::LoadError;

hip::library_error! {
    library: "hipRAND",
    status: Rand(hiprandStatus_t),
    load: LoadError,
    example_call: "hiprandGenerateNormal",
}

impl Error {
    /// Builds an [`Error::Rand`] for `status` returned by `call`: its
    /// meaning, and whether the loaded library lacks `call`; or
    /// [`Error::Load`] when `HIPRAND_STATUS_INITIALIZATION_FAILED` means no
    /// library.
    #[cold]
    #[inline(never)]
    pub fn from_rand(call: &'static str, status: hiprandStatus_t) -> Error {
        let library = hiprand_sys::loader::hiprand();
        if status == hiprandStatus_t::HIPRAND_STATUS_INITIALIZATION_FAILED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_string();
        if status == hiprandStatus_t::HIPRAND_STATUS_NOT_IMPLEMENTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Rand {
            call,
            status,
            message,
        }
    }

    /// The same error, an argument refused on behalf of `operation` (the
    /// generator method the user called) rather than the rule's own name.
    pub(crate) fn at(self, operation: &'static str) -> Error {
        match self {
            Error::Invalid { reason, .. } => Error::Invalid { operation, reason },
            other => other,
        }
    }

    /// An [`Error::Invalid`] from the rule `operation`: argument `name`
    /// and what was wrong with it.
    #[cold]
    #[inline(never)]
    pub(crate) fn invalid_argument(
        operation: &'static str,
        name: &str,
        requirement: impl std::fmt::Display,
    ) -> Error {
        Error::Invalid {
            operation,
            reason: format!("{name}: {requirement}"),
        }
    }
}
