//! Tier 3: cudarc's `curand::result::generate` functions on a real GPU,
//! one generator per test, 2^20 values each (a fresh random seed, printed):
//! every value in its distribution's range, and the sample mean (and for
//! the normal ones the variance) within 6 standard errors of the asked
//! parameters, f64 accumulation. Run with `--ignored`
//! (`HIP_PLATFORM=nvidia` on an NVIDIA GPU).

#![cfg(feature = "curand")]

use cuda_compat::curand::result::{self, generate};
use cuda_compat::curand::sys;
use cuda_compat::driver::{CudaContext, DevicePtrMut, DeviceRepr, ValidAsZeroBits};
use rand::Rng;

const N: usize = 1 << 20;

/// `N` values from `f` (called with a live generator of `kind`, seeded
/// with a fresh random seed, and device memory of `N` values on the
/// generator's stream), read back.
fn generated<T: DeviceRepr + ValidAsZeroBits + Default + Clone + Unpin>(
    kind: sys::curandRngType_t,
    f: impl FnOnce(sys::curandGenerator_t, *mut T) -> Result<(), result::CurandError>,
) -> Vec<T> {
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let mut buf = stream.alloc_zeros::<T>(N).unwrap();
    let g = result::create_generator_kind(kind).unwrap();
    // SAFETY: `g` is live; the stream is of the same device.
    unsafe { result::set_stream(g, stream.cu_stream()) }.unwrap();
    if kind == sys::curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT {
        let seed: u64 = test_kit::rng().gen();
        println!("seed {seed}");
        // SAFETY: `g` is live.
        unsafe { result::set_seed(g, seed) }.unwrap();
    }
    {
        let (ptr, _write) = buf.device_ptr_mut(&stream);
        f(g, ptr as usize as *mut T).unwrap();
    }
    let host = stream.clone_dtoh(&buf).unwrap();
    // SAFETY: `g` is live and not used afterwards; its work is done (the
    // stream was read after it).
    unsafe { result::destroy_generator(g) }.unwrap();
    host
}

fn mean_var(x: impl Iterator<Item = f64>) -> (f64, f64) {
    let v: Vec<f64> = x.collect();
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
    (m, var)
}

/// Mean within 6 standard errors of `mean` for a variance of `var`.
fn assert_mean(m: f64, mean: f64, var: f64, what: &str) {
    let se = (var / N as f64).sqrt();
    assert!(
        (m - mean).abs() <= 6.0 * se,
        "{what}: mean {m}, want {mean} +- {}",
        6.0 * se
    );
}

/// Variance within 6 standard errors of `var` (normal data).
fn assert_var(v: f64, var: f64, what: &str) {
    let se = var * (2.0 / N as f64).sqrt();
    assert!(
        (v - var).abs() <= 6.0 * se,
        "{what}: variance {v}, want {var} +- {}",
        6.0 * se
    );
}

const PSEUDO: sys::curandRngType_t = sys::curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT;

#[test]
#[ignore = "needs a GPU"]
fn uniform_floats_are_in_0_1_with_mean_one_half() {
    let f = generated::<f32>(PSEUDO, |g, out| {
        // SAFETY: `out` is `N` values of the generator's device.
        unsafe { generate::uniform_f32(g, out, N) }
    });
    let d = generated::<f64>(PSEUDO, |g, out| {
        // SAFETY: `out` is `N` values of the generator's device.
        unsafe { generate::uniform_f64(g, out, N) }
    });
    assert!(f.iter().all(|x| *x > 0.0 && *x <= 1.0));
    assert!(d.iter().all(|x| *x > 0.0 && *x <= 1.0));
    assert_mean(
        mean_var(f.iter().map(|x| f64::from(*x))).0,
        0.5,
        1.0 / 12.0,
        "f32",
    );
    assert_mean(mean_var(d.iter().copied()).0, 0.5, 1.0 / 12.0, "f64");
}

#[test]
#[ignore = "needs a GPU"]
fn uniform_integers_cover_their_range() {
    let u = generated::<u32>(PSEUDO, |g, out| {
        // SAFETY: `out` is `N` values of the generator's device.
        unsafe { generate::uniform_u32(g, out, N) }
    });
    let (m, _) = mean_var(u.iter().map(|x| f64::from(*x) / 2f64.powi(32)));
    assert_mean(m, 0.5, 1.0 / 12.0, "u32");
    assert!(u.iter().any(|x| *x > u32::MAX / 4 * 3) && u.iter().any(|x| *x < u32::MAX / 4));
    // 64-bit values need a 64-bit quasi-random generator (cuRAND's rule).
    let sobol = sys::curandRngType_t::CURAND_RNG_QUASI_SOBOL64;
    let l = generated::<u64>(sobol, |g, out| {
        // SAFETY: `out` is `N` values of the generator's device.
        unsafe { generate::uniform_u64(g, out, N) }
    });
    let (m, _) = mean_var(l.iter().map(|x| *x as f64 / 2f64.powi(64)));
    assert_mean(m, 0.5, 1.0 / 12.0, "u64");
    assert!(l.iter().any(|x| *x > u64::MAX / 4 * 3) && l.iter().any(|x| *x >> 32 != 0));
}

#[test]
#[ignore = "needs a GPU"]
fn normals_have_the_asked_mean_and_variance() {
    let (mean, std) = (2.0, 3.0);
    let f = generated::<f32>(PSEUDO, |g, out| {
        // SAFETY: `out` is `N` values of the generator's device.
        unsafe { generate::normal_f32(g, out, N, mean as f32, std as f32) }
    });
    let d = generated::<f64>(PSEUDO, |g, out| {
        // SAFETY: `out` is `N` values of the generator's device.
        unsafe { generate::normal_f64(g, out, N, mean, std) }
    });
    for (what, (m, v)) in [
        ("f32", mean_var(f.iter().map(|x| f64::from(*x)))),
        ("f64", mean_var(d.iter().copied())),
    ] {
        assert_mean(m, mean, std * std, what);
        assert_var(v, std * std, what);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn log_normals_have_normal_logarithms() {
    let (mean, std) = (0.5, 0.25);
    let f = generated::<f32>(PSEUDO, |g, out| {
        // SAFETY: `out` is `N` values of the generator's device.
        unsafe { generate::log_normal_f32(g, out, N, mean as f32, std as f32) }
    });
    let d = generated::<f64>(PSEUDO, |g, out| {
        // SAFETY: `out` is `N` values of the generator's device.
        unsafe { generate::log_normal_f64(g, out, N, mean, std) }
    });
    assert!(f.iter().all(|x| *x > 0.0) && d.iter().all(|x| *x > 0.0));
    for (what, (m, v)) in [
        ("f32", mean_var(f.iter().map(|x| f64::from(*x).ln()))),
        ("f64", mean_var(d.iter().map(|x| x.ln()))),
    ] {
        assert_mean(m, mean, std * std, what);
        assert_var(v, std * std, what);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn poisson_counts_have_mean_lambda() {
    let lambda = 4.0;
    let p = generated::<u32>(PSEUDO, |g, out| {
        // SAFETY: `out` is `N` values of the generator's device.
        unsafe { generate::poisson_u32(g, out, N, lambda) }
    });
    let (m, v) = mean_var(p.iter().map(|x| f64::from(*x)));
    assert_mean(m, lambda, lambda, "poisson");
    // The variance of a Poisson count is lambda too; its estimate's
    // standard error is about sqrt((mu4 - var^2) / n), mu4 = l + 3 l^2.
    let se = ((lambda + 2.0 * lambda * lambda) / N as f64).sqrt();
    assert!((v - lambda).abs() <= 6.0 * se, "variance {v}");
    assert!(p.contains(&0) && p.iter().any(|x| *x >= 10));
}
