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

#[test]
#[ignore = "needs a GPU"]
fn gpu_raw_result_functions_fill_and_keep_hiprands_message() {
    use cuda_compat::curand::result::{self, generate, last_error_detail};
    use cuda_compat::driver::DevicePtrMut;
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let n = 1 << 16;
    let mut buf = stream.alloc_zeros::<f32>(n).unwrap();
    let gen = result::create_generator().unwrap();
    // SAFETY: `gen` is live until destroyed below; `buf` holds `n` floats
    // of this device, and the stream is synchronized before it is read.
    unsafe {
        result::set_seed(gen, 7).unwrap();
        result::set_stream(gen, stream.cu_stream().cast()).unwrap();
        let (ptr, _guard) = buf.device_ptr_mut(&stream);
        generate::uniform_f32(gen, ptr as *mut f32, n).unwrap();
    }
    let host = stream.clone_dtoh(&buf).unwrap();
    assert!(host.iter().all(|v| *v > 0.0 && *v <= 1.0));
    let mean = host.iter().map(|v| f64::from(*v)).sum::<f64>() / n as f64;
    assert!((mean - 0.5).abs() < 0.01, "mean {mean}");

    // 64-bit integers need a 64-bit quasi-random generator: XORWOW's
    // refusal keeps hipRAND's words (the call and the status's meaning).
    let mut wide = stream.alloc_zeros::<u64>(64).unwrap();
    // SAFETY: as above.
    let e = unsafe {
        let (ptr, _guard) = wide.device_ptr_mut(&stream);
        generate::uniform_u64(gen, ptr as *mut u64, 64)
    }
    .unwrap_err();
    assert_eq!(e.0, sys::curandStatus_t::CURAND_STATUS_TYPE_ERROR);
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("hiprandGenerateLongLong"), "{why}");
    assert!(
        format!("{e:?}").contains("hiprandGenerateLongLong"),
        "{e:?}"
    );
    // SAFETY: made by `create_generator`, destroyed once.
    unsafe { result::destroy_generator(gen) }.unwrap();
}
