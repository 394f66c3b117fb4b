//! What a raw hipBLASLt function returns when it cannot call into a
//! library: decided elsewhere, shared with hipBLAS and the HIP runtime.
//!
//! The generated wrappers return `hip_sys::Unavailable`'s value for their
//! return type (the manifest's `unavailable = "hip_sys::Unavailable"`,
//! `build.rs-tools/generator/libraries/hipblaslt.toml`), and every return
//! type hipBLASLt has is implemented outside this crate:
//!
//! - `hipblasStatus_t` (every `hipblasLt*` function, and the extensions that
//!   report a status): hipBLAS's own choice, in
//!   `hipblas-sys/src/unavailable.rs`, shared with every hipBLAS function.
//!   No library loaded (none found, or a hipBLASLt built for another HIP
//!   runtime major, which [`crate::loader`] refuses):
//!   `HIPBLAS_STATUS_NOT_INITIALIZED`; the loaded library lacks the symbol
//!   (an older hipBLASLt, or a function cuBLASLt has no counterpart for on
//!   the NVIDIA platform): `HIPBLAS_STATUS_NOT_SUPPORTED`. This crate cannot
//!   choose other values: the trait is hip-sys's and the type hipblas-sys's,
//!   so only those crates may implement one for the other;
//! - `double` (the granularity and tile queries): NaN; `size_t` (the
//!   byte-count queries): 0; `int` (`hipblasltGetCUs`): -1; `void` (the
//!   tuning setters): nothing. hip-sys's, in `hip-sys/src/unavailable.rs`.

#[cfg(test)]
mod tests {
    use crate::hipblasStatus_t;
    use core::ffi::c_int;
    use hip_sys::Unavailable;

    #[test]
    fn cannot_call_values() {
        assert_eq!(
            hipblasStatus_t::library_missing(),
            hipblasStatus_t::HIPBLAS_STATUS_NOT_INITIALIZED
        );
        assert_eq!(
            hipblasStatus_t::symbol_missing(),
            hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED
        );
        assert!(f64::library_missing().is_nan() && f64::symbol_missing().is_nan());
        assert_eq!((usize::library_missing(), usize::symbol_missing()), (0, 0));
        assert_eq!(
            (c_int::library_missing(), c_int::symbol_missing()),
            (-1, -1)
        );
    }

    /// The list above is every return type of the bindings: a new one fails
    /// here, so that its value is chosen (and written above), not taken
    /// unread from whatever hip-sys implements.
    #[test]
    fn every_return_type_is_listed() {
        let functions = include_str!("generated/functions.rs");
        let mut count = 0;
        for line in functions
            .lines()
            .filter(|l| l.trim_start().starts_with("pub unsafe fn "))
        {
            let returns = line
                .rsplit_once(") -> ")
                .map(|(_, r)| r.trim_end_matches(';'))
                .unwrap_or_else(|| panic!("no return type in {line}"));
            assert!(
                [
                    "hipblasStatus_t",
                    "f64",
                    "usize",
                    "::std::os::raw::c_int",
                    "()"
                ]
                .contains(&returns),
                "{line}"
            );
            count += 1;
        }
        assert_eq!(count, crate::FUNCTION_NAMES.len());
    }
}
