//! `hiprandStatus_t` as a Rust error.

use crate::hiprandStatus_t;
use core::fmt;

hip_sys::status_result!(hiprandStatus_t, HIPRAND_STATUS_SUCCESS);

impl hiprandStatus_t {
    /// What the status means (hiprand.h's description; hipRAND has no
    /// function that returns a status's text).
    pub const fn description(self) -> &'static str {
        match self.0 {
            0 => "success",
            100 => "header file and linked library version do not match",
            101 => "generator not created",
            102 => "memory allocation failed",
            103 => "generator type is wrong",
            104 => "argument out of range",
            105 => "size is not a multiple of the quasi-random generator's dimension, or not even where it must be, or the pointer is misaligned",
            106 => "GPU does not have double precision",
            201 => "kernel launch failure",
            202 => "preexisting failure on library entry",
            203 => "initialization of HIP failed (or no hipRAND/cuRAND library could be loaded)",
            204 => "architecture mismatch: the GPU does not support the requested feature",
            999 => "internal library error",
            1000 => "feature not implemented (or not provided by the loaded library)",
            _ => "unknown hipRAND status",
        }
    }
}

impl fmt::Display for hiprandStatus_t {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} ({}): {}", self, self.0, self.description())
    }
}

impl std::error::Error for hiprandStatus_t {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_status_has_a_description() {
        for v in 0..=2000 {
            let s = hiprandStatus_t(v);
            assert_eq!(
                s.name().is_some(),
                s.description() != "unknown hipRAND status",
                "{v}"
            );
        }
        assert!(hiprandStatus_t::HIPRAND_STATUS_SUCCESS.ok().is_ok());
        let e = hiprandStatus_t::HIPRAND_STATUS_LENGTH_NOT_MULTIPLE
            .ok()
            .unwrap_err();
        assert!(e
            .to_string()
            .starts_with("HIPRAND_STATUS_LENGTH_NOT_MULTIPLE (105): "));
        assert!(hiprandStatus_t(4242).to_string().contains("4242"));
    }
}
