//! The error type of every safe call.

use hipfft_sys::hipfftResult;
use hipfft_sys::loader::LoadError;

hip::library_error! {
    library: "hipFFT",
    status: Fft(hipfftResult),
    load: LoadError,
    example_call: "hipfftMakePlanMany64",
}

impl Error {
    /// Builds an [`Error::Fft`] for `status` returned by `call`: its
    /// meaning, and whether the loaded library lacks `call`; or
    /// [`Error::Load`] when `HIPFFT_SETUP_FAILED` means no library.
    #[cold]
    #[inline(never)]
    pub fn from_fft(call: &'static str, status: hipfftResult) -> Error {
        let library = hipfft_sys::loader::hipfft();
        if status == hipfftResult::HIPFFT_SETUP_FAILED {
            if let Err(e) = library {
                return Error::Load(e.clone());
            }
        }
        let mut message = status.description().to_string();
        if status == hipfftResult::HIPFFT_NOT_IMPLEMENTED
            && library.is_ok_and(|l| !l.is_available(call))
        {
            message.push_str(" (the loaded library does not provide this function)");
        }
        Error::Fft {
            call,
            status,
            message,
        }
    }
}

/// The operation of every plan parameter check (they run in
/// [`PlanBuilder::build`](crate::PlanBuilder::build) and
/// [`PlanBuilder::validate`](crate::PlanBuilder::validate)).
pub(crate) const BUILD: &str = "PlanBuilder::build";

impl Error {
    /// A plan parameter `name` (`dims`, `batch`, `input.stride`, ...) is
    /// invalid.
    #[cold]
    pub(crate) fn plan(name: &'static str, problem: impl std::fmt::Display) -> Error {
        Error::invalid(BUILD, format!("{name}: {problem}"))
    }
}
