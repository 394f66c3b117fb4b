//! Tier 3: cudarc's `CudaRng` over hipRAND on a real GPU. Run with
//! `--ignored` (`HIP_PLATFORM=nvidia` on an NVIDIA GPU).

#![cfg(feature = "curand")]

use cuda_compat::curand::{result::CurandError, sys, CudaRng};
use cuda_compat::driver::CudaContext;
use rand::Rng;

/// `fill_with_normal` of 4,000,000 f32 values of mean 2 and standard
/// deviation 3: the sample mean within 6 standard errors (6 * 3 / 2000 =
/// 0.009) and the sample variance within 6 standard errors of the
/// variance's estimate (6 * 9 * sqrt(2 / 4e6) = 0.038), f64 accumulation;
/// the same seed reproduces the values bit for bit; an odd count is refused
/// with cuRAND's `CURAND_STATUS_LENGTH_NOT_MULTIPLE` before any call.
#[test]
#[ignore = "needs a GPU"]
fn gpu_cudarng_fill_with_normal_has_the_asked_mean_and_variance() {
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.new_stream().unwrap();
    let seed: u64 = test_kit::rng().gen();
    let n = 4_000_000;
    let (mean, std) = (2.0f32, 3.0f32);
    let mut a = stream.alloc_zeros::<f32>(n).unwrap();
    let rng = CudaRng::new(seed, stream.clone()).unwrap();
    rng.fill_with_normal(&mut a, mean, std).unwrap();
    let host = stream.clone_dtoh(&a).unwrap();
    let nf = n as f64;
    let m = host.iter().map(|v| f64::from(*v)).sum::<f64>() / nf;
    let var = host
        .iter()
        .map(|v| (f64::from(*v) - m).powi(2))
        .sum::<f64>()
        / (nf - 1.0);
    let (se_m, se_v) = (3.0 / nf.sqrt(), 9.0 * (2.0 / nf).sqrt());
    println!(
        "seed {seed}: mean {m:.5} (2 +- {:.4}), variance {var:.4} (9 +- {:.4})",
        6.0 * se_m,
        6.0 * se_v
    );
    assert!((m - 2.0).abs() <= 6.0 * se_m, "mean {m}");
    assert!((var - 9.0).abs() <= 6.0 * se_v, "variance {var}");

    let mut b = stream.alloc_zeros::<f32>(n).unwrap();
    let again = CudaRng::new(seed, stream.clone()).unwrap();
    again.fill_with_normal(&mut b, mean, std).unwrap();
    let host_b = stream.clone_dtoh(&b).unwrap();
    assert!(host
        .iter()
        .zip(&host_b)
        .all(|(x, y)| x.to_bits() == y.to_bits()));

    let mut odd = stream.alloc_zeros::<f32>(1001).unwrap();
    assert_eq!(
        rng.fill_with_normal(&mut odd, mean, std),
        Err(CurandError(
            sys::curandStatus_t::CURAND_STATUS_LENGTH_NOT_MULTIPLE
        ))
    );
    let mut u = stream.alloc_zeros::<f64>(1 << 16).unwrap();
    rng.fill_with_uniform(&mut u).unwrap();
    let hu = stream.clone_dtoh(&u).unwrap();
    assert!(hu.iter().all(|v| *v > 0.0 && *v <= 1.0));
}
