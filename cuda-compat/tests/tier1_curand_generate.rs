//! Tier 1 and 2: cudarc's `curand::result::generate` functions: cudarc's
//! signatures (checked at compile time), and a call on no generator is an
//! error from hipRAND (or from its absence), never a success.

#![cfg(feature = "curand")]

use cuda_compat::curand::result::{generate, CurandError, NormalFill, UniformFill};
use cuda_compat::curand::sys::curandGenerator_t;

#[allow(clippy::type_complexity)]
const _: () = {
    const _: unsafe fn(curandGenerator_t, *mut f32, usize) -> Result<(), CurandError> =
        generate::uniform_f32;
    const _: unsafe fn(curandGenerator_t, *mut f64, usize) -> Result<(), CurandError> =
        generate::uniform_f64;
    const _: unsafe fn(curandGenerator_t, *mut u32, usize) -> Result<(), CurandError> =
        generate::uniform_u32;
    const _: unsafe fn(curandGenerator_t, *mut u64, usize) -> Result<(), CurandError> =
        generate::uniform_u64;
    const _: unsafe fn(curandGenerator_t, *mut f32, usize, f32, f32) -> Result<(), CurandError> =
        generate::normal_f32;
    const _: unsafe fn(curandGenerator_t, *mut f64, usize, f64, f64) -> Result<(), CurandError> =
        generate::normal_f64;
    const _: unsafe fn(curandGenerator_t, *mut f32, usize, f32, f32) -> Result<(), CurandError> =
        generate::log_normal_f32;
    const _: unsafe fn(curandGenerator_t, *mut f64, usize, f64, f64) -> Result<(), CurandError> =
        generate::log_normal_f64;
    const _: unsafe fn(curandGenerator_t, *mut u32, usize, f64) -> Result<(), CurandError> =
        generate::poisson_u32;
};

#[test]
fn no_generator_is_an_error_and_the_fill_traits_agree() {
    let g: curandGenerator_t = std::ptr::null_mut();
    let out = std::ptr::null_mut();
    // SAFETY: hipRAND rejects the null generator before touching `out`
    // (and without the library nothing is called).
    let direct = unsafe { generate::uniform_f32(g, out, 4) };
    let err = direct.expect_err("a null generator cannot generate");
    // SAFETY: as above.
    let through_trait = unsafe { UniformFill::<f32>::fill(g, out, 4) };
    assert_eq!(through_trait, Err(err));
    // SAFETY: as above.
    unsafe {
        assert!(generate::uniform_u32(g, std::ptr::null_mut(), 4).is_err());
        assert!(generate::uniform_u64(g, std::ptr::null_mut(), 4).is_err());
        assert!(generate::uniform_f64(g, std::ptr::null_mut(), 4).is_err());
        assert!(generate::normal_f32(g, out, 4, 0.0, 1.0).is_err());
        assert!(generate::normal_f64(g, std::ptr::null_mut(), 4, 0.0, 1.0).is_err());
        assert!(generate::log_normal_f32(g, out, 4, 0.0, 1.0).is_err());
        assert!(generate::log_normal_f64(g, std::ptr::null_mut(), 4, 0.0, 1.0).is_err());
        assert!(generate::poisson_u32(g, std::ptr::null_mut(), 4, 2.0).is_err());
        assert_eq!(
            NormalFill::<f32>::fill(g, out, 4, 0.0, 1.0),
            generate::normal_f32(g, out, 4, 0.0, 1.0)
        );
    }
}
