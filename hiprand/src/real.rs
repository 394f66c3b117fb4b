//! The floating-point element types of uniform, normal and log-normal
//! fills (`f32`, `f64`, `half::f16`), each with its hipRAND calls.

use crate::error::Result;
use crate::result;
use ::half::f16;
use hiprand_sys::{half, hiprandGenerator_t};

/// A floating-point type hipRAND generates: `f32`, `f64` and `half::f16`
/// (cuRAND has no half-precision generation: on the NVIDIA platform the
/// `f16` fills return `HIPRAND_STATUS_NOT_IMPLEMENTED`).
pub trait Real: hip::Element {
    /// The C functions for uniform, normal and log-normal values.
    const CALLS: [&'static str; 3];
    /// The value as `f64` (for checking parameters).
    fn to_f64(self) -> f64;
    /// Calls `hiprandGenerateUniform*` (through [`crate::result`]).
    ///
    /// # Safety
    /// `generator` is live and `out` is device memory of `n` elements on
    /// its device.
    #[doc(hidden)]
    unsafe fn uniform(generator: hiprandGenerator_t, out: *mut Self, n: usize) -> Result<()>;
    /// Calls `hiprandGenerateLogNormal*` when `log`, else
    /// `hiprandGenerateNormal*`.
    ///
    /// # Safety
    /// As [`Real::uniform`].
    #[doc(hidden)]
    unsafe fn gaussian(
        log: bool,
        generator: hiprandGenerator_t,
        out: *mut Self,
        n: usize,
        mean: Self,
        stddev: Self,
    ) -> Result<()>;
}

/// One impl per type: `$conv` turns a value into the C parameter type,
/// `$ptr` the element pointer.
macro_rules! real {
    ($t:ty, $c:ty, $to_f64:expr, $conv:expr, $calls:expr, [$u:ident, $n:ident, $l:ident]) => {
        impl Real for $t {
            const CALLS: [&'static str; 3] = $calls;
            fn to_f64(self) -> f64 {
                $to_f64(self)
            }
            unsafe fn uniform(g: hiprandGenerator_t, out: *mut Self, n: usize) -> Result<()> {
                // SAFETY: the caller's contract; `$t` has the C type's layout.
                unsafe { result::$u(g, out.cast::<$c>(), n) }
            }
            unsafe fn gaussian(
                log: bool,
                g: hiprandGenerator_t,
                out: *mut Self,
                n: usize,
                mean: Self,
                stddev: Self,
            ) -> Result<()> {
                let (out, mean, stddev) = (out.cast::<$c>(), $conv(mean), $conv(stddev));
                // SAFETY: the caller's contract; `$t` has the C type's layout.
                unsafe {
                    if log {
                        result::$l(g, out, n, mean, stddev)
                    } else {
                        result::$n(g, out, n, mean, stddev)
                    }
                }
            }
        }
    };
}

real!(
    f32,
    f32,
    f64::from,
    |v: f32| v,
    [
        "hiprandGenerateUniform",
        "hiprandGenerateNormal",
        "hiprandGenerateLogNormal"
    ],
    [generate_uniform, generate_normal, generate_log_normal]
);
real!(
    f64,
    f64,
    |v: f64| v,
    |v: f64| v,
    [
        "hiprandGenerateUniformDouble",
        "hiprandGenerateNormalDouble",
        "hiprandGenerateLogNormalDouble"
    ],
    [
        generate_uniform_double,
        generate_normal_double,
        generate_log_normal_double
    ]
);
// `half` is hipRAND's 16-bit float (AMD's `__half`: the IEEE binary16
// bits); `half::f16` is the same two bytes.
real!(
    f16,
    half,
    f16::to_f64,
    |v: f16| half { data: v.to_bits() },
    [
        "hiprandGenerateUniformHalf",
        "hiprandGenerateNormalHalf",
        "hiprandGenerateLogNormalHalf"
    ],
    [
        generate_uniform_half,
        generate_normal_half,
        generate_log_normal_half
    ]
);
