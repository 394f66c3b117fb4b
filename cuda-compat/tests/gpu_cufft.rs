//! Tier 3: cudarc's `CudaFft` over hipFFT on a real GPU, against a naive
//! DFT computed on the CPU in f64, on fresh random data (seed printed;
//! replay with `HIP_TEST_SEED`). Run with `cargo test -p cuda-compat --test
//! gpu_cufft -- --ignored` (`HIP_PLATFORM=nvidia` on NVIDIA).
//!
//! # Tolerance
//! The relative L2 error of an FFT is at most `c * log2(n) * eps` (a few
//! roundings per stage; Bluestein's algorithm for sizes with a large prime
//! factor, such as 1003 = 17 * 59, is three transforms of `>= 2n` points,
//! counted as `log2(4n)` stages). With `c = 8`: `8 * log2(4n) * eps`, plus
//! the f64 reference's own error (`n * 2^-52`, a summation of `n` terms).
//! For f32 that is 1.1e-5 at n = 1003; for f64 2.4e-13. A wrong sign,
//! scale, layout or batch has a relative error of order 1.

use cuda_compat::cufft::result::CufftError;
use cuda_compat::cufft::sys::{self, cufftResult, cufftType, double2, float2};
use cuda_compat::cufft::{CudaFft, FftDirection};
use cuda_compat::driver::{CudaContext, CudaSlice, CudaStream};
use std::f64::consts::PI;
use std::sync::Arc;
use test_kit::random_nonzero;

type C = (f64, f64);

fn stream() -> Arc<CudaStream> {
    CudaContext::new(0).expect("a GPU").default_stream()
}

/// The unnormalised DFT of each of `batch` signals of sizes `dims`
/// (row-major, outermost first): `sign` -1 forward, +1 inverse.
fn dft(x: &[C], dims: &[usize], batch: usize, sign: f64) -> Vec<C> {
    let n: usize = dims.iter().product();
    let mut out = vec![(0.0, 0.0); n * batch];
    // Index -> multi-index.
    let split = |mut i: usize| -> Vec<usize> {
        let mut idx = vec![0; dims.len()];
        for d in (0..dims.len()).rev() {
            idx[d] = i % dims[d];
            i /= dims[d];
        }
        idx
    };
    let points: Vec<Vec<usize>> = (0..n).map(split).collect();
    for b in 0..batch {
        for (k, kk) in points.iter().enumerate() {
            let (mut re, mut im) = (0.0, 0.0);
            for (j, jj) in points.iter().enumerate() {
                // The phase as an exact fraction of a turn per dimension.
                let turn: f64 = dims
                    .iter()
                    .zip(jj.iter().zip(kk))
                    .map(|(&d, (&a, &b))| ((a * b) % d) as f64 / d as f64)
                    .sum();
                let (s, c) = (sign * 2.0 * PI * turn).sin_cos();
                let (xr, xi) = x[b * n + j];
                re += xr * c - xi * s;
                im += xr * s + xi * c;
            }
            out[b * n + k] = (re, im);
        }
    }
    out
}

fn bound(n: usize, eps: f64) -> f64 {
    8.0 * ((4 * n) as f64).log2() * eps + n as f64 * f64::EPSILON
}

/// Relative L2 error; on failure prints the worst element.
fn check(what: &str, got: &[C], want: &[C], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    let (mut num, mut den, mut worst) = (0.0, 0.0, (0, 0.0));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let e = (g.0 - w.0).powi(2) + (g.1 - w.1).powi(2);
        num += e;
        den += w.0 * w.0 + w.1 * w.1;
        if e > worst.1 {
            worst = (i, e);
        }
    }
    let rel = (num / den.max(f64::MIN_POSITIVE)).sqrt();
    let i = worst.0;
    println!("{what}: relative L2 error {rel:.3e} (bound {tol:.3e})");
    assert!(
        rel <= tol,
        "{what}: relative L2 error {rel:.3e} > {tol:.3e}; worst at [{i}]: got {:?}, want {:?}",
        got[i],
        want[i]
    );
}

fn random_complex(n: usize) -> Vec<C> {
    let v = random_nonzero(2 * n, -1.0f64..1.0);
    v.chunks(2).map(|p| (p[0], p[1])).collect()
}

fn to_f32(x: &[C]) -> Vec<float2> {
    x.iter()
        .map(|&(re, im)| float2 {
            x: re as f32,
            y: im as f32,
        })
        .collect()
}
fn to_f64(x: &[C]) -> Vec<double2> {
    x.iter().map(|&(re, im)| double2 { x: re, y: im }).collect()
}
fn from_f32(x: &[float2]) -> Vec<C> {
    x.iter().map(|c| (c.x as f64, c.y as f64)).collect()
}
fn from_f64(x: &[double2]) -> Vec<C> {
    x.iter().map(|c| (c.x, c.y)).collect()
}
const SIZES: [usize; 4] = [1, 7, 1003, 1024];

#[test]
#[ignore = "needs a GPU"]
fn c2c_f32_matches_the_dft_both_ways() {
    let stream = stream();
    for (n, batch) in SIZES.iter().map(|&n| (n, if n < 100 { 3 } else { 2 })) {
        let x = random_complex(n * batch);
        let fft =
            CudaFft::plan_1d(n as i32, cufftType::CUFFT_C2C, batch as i32, stream.clone()).unwrap();
        let mut input: CudaSlice<float2> = stream.clone_htod(&to_f32(&x)).unwrap();
        let mut output = stream.alloc_zeros::<float2>(n * batch).unwrap();
        fft.exec_c2c(&mut input, &mut output, FftDirection::Forward)
            .unwrap();
        let got = from_f32(&stream.clone_dtoh(&output).unwrap());
        check(
            &format!("C2C forward n={n} batch={batch}"),
            &got,
            &dft(&x, &[n], batch, -1.0),
            bound(n, f32::EPSILON as f64),
        );
        fft.exec_c2c(&mut input, &mut output, FftDirection::Inverse)
            .unwrap();
        let got = from_f32(&stream.clone_dtoh(&output).unwrap());
        check(
            &format!("C2C inverse n={n} batch={batch}"),
            &got,
            &dft(&x, &[n], batch, 1.0),
            bound(n, f32::EPSILON as f64),
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn r2c_and_c2r_f32_match_the_dft() {
    let stream = stream();
    for n in SIZES {
        let real = random_nonzero(n, -1.0f64..1.0);
        let x: Vec<C> = real.iter().map(|&r| (r, 0.0)).collect();
        let spectrum = dft(&x, &[n], 1, -1.0);
        let h = n / 2 + 1;
        let r2c = CudaFft::plan_1d(n as i32, cufftType::CUFFT_R2C, 1, stream.clone()).unwrap();
        let input = stream
            .clone_htod(&real.iter().map(|&r| r as f32).collect::<Vec<f32>>())
            .unwrap();
        let mut output = stream.alloc_zeros::<float2>(h).unwrap();
        r2c.exec_r2c(&input, &mut output).unwrap();
        let got = from_f32(&stream.clone_dtoh(&output).unwrap());
        check(
            &format!("R2C n={n}"),
            &got,
            &spectrum[..h],
            bound(n, f32::EPSILON as f64),
        );

        // C2R of the half spectrum gives n times the signal.
        let c2r = CudaFft::plan_1d(n as i32, cufftType::CUFFT_C2R, 1, stream.clone()).unwrap();
        let mut half_spectrum = stream.clone_htod(&to_f32(&spectrum[..h])).unwrap();
        let mut back = stream.alloc_zeros::<f32>(n).unwrap();
        c2r.exec_c2r(&mut half_spectrum, &mut back).unwrap();
        let got: Vec<C> = stream
            .clone_dtoh(&back)
            .unwrap()
            .iter()
            .map(|&r| (r as f64, 0.0))
            .collect();
        let want: Vec<C> = real.iter().map(|&r| (r * n as f64, 0.0)).collect();
        check(
            &format!("C2R n={n}"),
            &got,
            &want,
            bound(n, f32::EPSILON as f64),
        );
    }
}

#[test]
#[ignore = "needs a GPU"]
fn z2z_d2z_z2d_f64_match_the_dft() {
    let stream = stream();
    for n in SIZES {
        let tol = 2.0 * bound(n, f64::EPSILON);
        let x = random_complex(n);
        let fft = CudaFft::plan_1d(n as i32, cufftType::CUFFT_Z2Z, 1, stream.clone()).unwrap();
        let mut input = stream.clone_htod(&to_f64(&x)).unwrap();
        let mut output = stream.alloc_zeros::<double2>(n).unwrap();
        fft.exec_z2z(&mut input, &mut output, FftDirection::Forward)
            .unwrap();
        check(
            &format!("Z2Z n={n}"),
            &from_f64(&stream.clone_dtoh(&output).unwrap()),
            &dft(&x, &[n], 1, -1.0),
            tol,
        );

        let real = random_nonzero(n, -1.0f64..1.0);
        let spectrum = dft(
            &real.iter().map(|&r| (r, 0.0)).collect::<Vec<_>>(),
            &[n],
            1,
            -1.0,
        );
        let h = n / 2 + 1;
        let d2z = CudaFft::plan_1d(n as i32, cufftType::CUFFT_D2Z, 1, stream.clone()).unwrap();
        let input = stream.clone_htod(&real).unwrap();
        let mut output = stream.alloc_zeros::<double2>(h).unwrap();
        d2z.exec_d2z(&input, &mut output).unwrap();
        check(
            &format!("D2Z n={n}"),
            &from_f64(&stream.clone_dtoh(&output).unwrap()),
            &spectrum[..h],
            tol,
        );

        let z2d = CudaFft::plan_1d(n as i32, cufftType::CUFFT_Z2D, 1, stream.clone()).unwrap();
        let mut half_spectrum = stream.clone_htod(&to_f64(&spectrum[..h])).unwrap();
        let mut back = stream.alloc_zeros::<f64>(n).unwrap();
        z2d.exec_z2d(&mut half_spectrum, &mut back).unwrap();
        let got: Vec<C> = stream
            .clone_dtoh(&back)
            .unwrap()
            .iter()
            .map(|&r| (r, 0.0))
            .collect();
        let want: Vec<C> = real.iter().map(|&r| (r * n as f64, 0.0)).collect();
        check(&format!("Z2D n={n}"), &got, &want, tol);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn multi_dimensional_plans_match_the_dft() {
    let stream = stream();
    // 2-D C2C of 6 x 10, 2-D R2C of 5 x 7, 3-D Z2Z of 2 x 3 x 5.
    let x = random_complex(60);
    let fft = CudaFft::plan_2d(6, 10, cufftType::CUFFT_C2C, stream.clone()).unwrap();
    let mut input = stream.clone_htod(&to_f32(&x)).unwrap();
    let mut output = stream.alloc_zeros::<float2>(60).unwrap();
    fft.exec_c2c(&mut input, &mut output, FftDirection::Forward)
        .unwrap();
    check(
        "2-D C2C 6x10",
        &from_f32(&stream.clone_dtoh(&output).unwrap()),
        &dft(&x, &[6, 10], 1, -1.0),
        bound(60, f32::EPSILON as f64),
    );

    let real = random_nonzero(35, -1.0f64..1.0);
    let spectrum = dft(
        &real.iter().map(|&r| (r, 0.0)).collect::<Vec<_>>(),
        &[5, 7],
        1,
        -1.0,
    );
    let fft = CudaFft::plan_2d(5, 7, cufftType::CUFFT_R2C, stream.clone()).unwrap();
    let input = stream
        .clone_htod(&real.iter().map(|&r| r as f32).collect::<Vec<_>>())
        .unwrap();
    let mut output = stream.alloc_zeros::<float2>(5 * 4).unwrap();
    fft.exec_r2c(&input, &mut output).unwrap();
    let want: Vec<C> = spectrum
        .chunks(7)
        .flat_map(|row| row[..4].to_vec())
        .collect();
    check(
        "2-D R2C 5x7",
        &from_f32(&stream.clone_dtoh(&output).unwrap()),
        &want,
        bound(35, f32::EPSILON as f64),
    );

    let x = random_complex(30);
    let fft = CudaFft::plan_3d(2, 3, 5, cufftType::CUFFT_Z2Z, stream.clone()).unwrap();
    let mut input = stream.clone_htod(&to_f64(&x)).unwrap();
    let mut output = stream.alloc_zeros::<double2>(30).unwrap();
    fft.exec_z2z(&mut input, &mut output, FftDirection::Inverse)
        .unwrap();
    check(
        "3-D Z2Z 2x3x5 inverse",
        &from_f64(&stream.clone_dtoh(&output).unwrap()),
        &dft(&x, &[2, 3, 5], 1, 1.0),
        2.0 * bound(30, f64::EPSILON),
    );
}

#[test]
#[ignore = "needs a GPU"]
fn plan_many_reads_strided_batches() {
    let stream = stream();
    // 3 transforms of 7 points, input stride 2 and distance 16 (45
    // elements reached), output packed.
    let (n, batch, stride, dist) = (7usize, 3usize, 2usize, 16usize);
    let storage = random_complex(45);
    let fft = CudaFft::plan_many(
        &[n as i32],
        Some(&[16]),
        stride as i32,
        dist as i32,
        Some(&[n as i32]),
        1,
        n as i32,
        cufftType::CUFFT_C2C,
        batch as i32,
        stream.clone(),
    )
    .unwrap();
    let gathered: Vec<C> = (0..batch)
        .flat_map(|b| (0..n).map(move |j| (b, j)))
        .map(|(b, j)| storage[b * dist + j * stride])
        .collect();
    let mut input = stream.clone_htod(&to_f32(&storage)).unwrap();
    let mut output = stream.alloc_zeros::<float2>(n * batch).unwrap();
    fft.exec_c2c(&mut input, &mut output, FftDirection::Forward)
        .unwrap();
    check(
        "plan_many stride 2 dist 16",
        &from_f32(&stream.clone_dtoh(&output).unwrap()),
        &dft(&gathered, &[n], batch, -1.0),
        bound(n, f32::EPSILON as f64),
    );

    // One element short of the 45 the plan reads: refused before hipFFT.
    let mut short = stream.clone_htod(&to_f32(&storage[..44])).unwrap();
    let before = stream.clone_dtoh(&output).unwrap();
    let e = fft
        .exec_c2c(&mut short, &mut output, FftDirection::Forward)
        .unwrap_err();
    assert_eq!(e, CufftError(cufftResult::CUFFT_INVALID_VALUE));
    let after = stream.clone_dtoh(&output).unwrap();
    assert!(
        before
            .iter()
            .zip(&after)
            .all(|(a, b)| a.x == b.x && a.y == b.y),
        "the output was not touched"
    );
}

#[test]
#[ignore = "needs a GPU"]
fn wrong_types_and_short_buffers_are_refused() {
    let stream = stream();
    let fft = CudaFft::plan_1d(8, cufftType::CUFFT_R2C, 2, stream.clone()).unwrap();
    let input = stream.alloc_zeros::<f32>(16).unwrap();
    let mut output = stream.alloc_zeros::<float2>(10).unwrap();
    fft.exec_r2c(&input, &mut output).unwrap();
    let mut short = stream.alloc_zeros::<float2>(9).unwrap();
    assert_eq!(
        fft.exec_r2c(&input, &mut short),
        Err(CufftError(cufftResult::CUFFT_INVALID_VALUE))
    );
    let mut c = stream.alloc_zeros::<float2>(16).unwrap();
    assert_eq!(
        fft.exec_c2c(&mut c, &mut output, FftDirection::Forward),
        Err(CufftError(cufftResult::CUFFT_INVALID_TYPE))
    );
    assert_eq!(
        CudaFft::plan_1d(0, cufftType::CUFFT_C2C, 1, stream.clone()).unwrap_err(),
        CufftError(cufftResult::CUFFT_INVALID_SIZE)
    );
    assert!(!fft.handle().is_null());
    let _: sys::cufftHandle = fft.handle();
}

#[test]
#[ignore = "needs a GPU"]
fn raw_result_functions_transform_and_keep_hipffts_message() {
    use cuda_compat::cufft::result::{self, last_error_detail};
    use cuda_compat::driver::DevicePtrMut;
    let _ = test_kit::device();
    let stream = stream();
    let cu_stream: sys::cudaStream_t = stream.cu_stream().cast();

    // C2C in f32 through create, make_plan_1d, set_stream, exec, destroy.
    let (n, batch) = (64, 2);
    let x = random_complex(n * batch);
    let mut input: CudaSlice<float2> = stream.clone_htod(&to_f32(&x)).unwrap();
    let mut output = stream.alloc_zeros::<float2>(n * batch).unwrap();
    let plan = result::create().unwrap();
    // SAFETY: `plan` is live until destroyed below; the buffers hold the
    // plan's `n * batch` elements on this device; the stream is synchronized
    // (by `clone_dtoh`) before the output is read.
    unsafe {
        result::set_stream(plan, cu_stream).unwrap();
        let work =
            result::make_plan_1d(plan, n as i32, cufftType::CUFFT_C2C, batch as i32).unwrap();
        assert_eq!(result::get_size(plan).unwrap(), work);
        let (i, _gi) = input.device_ptr_mut(&stream);
        let (o, _go) = output.device_ptr_mut(&stream);
        result::exec_c2c(plan, i as *mut _, o as *mut _, sys::CUFFT_FORWARD).unwrap();
    }
    let got = from_f32(&stream.clone_dtoh(&output).unwrap());
    check(
        "result C2C forward",
        &got,
        &dft(&x, &[n], batch, -1.0),
        bound(n, f32::EPSILON as f64),
    );
    // SAFETY: made by `create`, destroyed once, its work done.
    unsafe { result::destroy(plan) }.unwrap();

    // Z2Z in f64 through plan_many (packed: null embeds), inverse.
    let mut dims = [4, 8];
    let m: usize = 32;
    let y = random_complex(m);
    let mut zin: CudaSlice<double2> = stream.clone_htod(&to_f64(&y)).unwrap();
    let mut zout = stream.alloc_zeros::<double2>(m).unwrap();
    let null = std::ptr::null_mut();
    // SAFETY: `dims` holds rank 2 sizes; null embeds are packed layouts.
    let plan = unsafe {
        result::plan_many(
            2,
            dims.as_mut_ptr(),
            null,
            1,
            0,
            null,
            1,
            0,
            cufftType::CUFFT_Z2Z,
            1,
        )
    }
    .unwrap();
    // SAFETY: as above, for a Z2Z plan of `m` points.
    unsafe {
        result::set_stream(plan, cu_stream).unwrap();
        let (i, _gi) = zin.device_ptr_mut(&stream);
        let (o, _go) = zout.device_ptr_mut(&stream);
        result::exec_z2z(plan, i as *mut _, o as *mut _, sys::CUFFT_INVERSE as i32).unwrap();
    }
    let got = from_f64(&stream.clone_dtoh(&zout).unwrap());
    check(
        "result Z2Z inverse 4x8",
        &got,
        &dft(&y, &[4, 8], 1, 1.0),
        bound(m, f64::EPSILON),
    );
    // SAFETY: made by `plan_many`, destroyed once.
    unsafe { result::destroy(plan) }.unwrap();

    // A size hipFFT refuses: the error keeps its words, naming the call.
    let plan = result::create().unwrap();
    // SAFETY: a live handle from `create`, not yet made into a plan.
    let e = unsafe { result::make_plan_1d(plan, 0, cufftType::CUFFT_C2C, 1) }.unwrap_err();
    assert_ne!(e.0, cufftResult::CUFFT_SUCCESS);
    let (status, why) = last_error_detail().expect("a reason");
    assert_eq!(status, e.0);
    assert!(why.contains("hipfftMakePlan1d"), "{why}");
    assert!(format!("{e:?}").contains("hipfftMakePlan1d"), "{e:?}");
    // SAFETY: made by `create`, destroyed once.
    unsafe { result::destroy(plan) }.unwrap();
}
