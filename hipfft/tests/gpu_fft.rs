//! GPU tests of hipFFT plans against a CPU reference (`rustfft`, in f64).
//!
//! # Error bound
//! For a Cooley–Tukey FFT in floating point with accurate twiddle factors,
//! the relative L2 error of the result is bounded by `c * log2(n) * eps`
//! (each of the `log2 n` stages adds a rounding error of a few `eps` to
//! every value; e.g. Higham, *Accuracy and Stability of Numerical
//! Algorithms*, §24.1). Sizes with a prime factor above 7 (17, 1009) go
//! through Bluestein's algorithm in hipFFT/cuFFT: three transforms of size
//! `m >= 2n - 1` and two pointwise products, which we count as `log2(4n)`
//! stages. With `c = 8` this gives, for f32 (`eps = 2^-24`... we use
//! `f32::EPSILON = 2^-23`, the larger): 1.9e-5 at n = 2^20, 5.4e-6 at n = 360;
//! for f64 the reference has an error of the same order, so the bound is
//! doubled. Multi-dimensional sizes use `n` = the product of the sizes.
//! A wrong result (a wrong sign, scale, layout or missing batch) has a
//! relative error of order 1, far above every bound here.
//!
//! Each test draws fresh random non-zero data (seed printed; replay with
//! `HIP_TEST_SEED`).

use hip::{c32, c64, DeviceBuffer};
use hipfft::{Error, Layout, PlanBuilder, Transform, WorkArea};
use rustfft::num_complex::Complex;
use rustfft::FftPlanner;
use test_kit::{device, download, random_nonzero, stream, upload};

type C64 = Complex<f64>;

/// The bound of the module doc for a transform of `n` points.
fn bound(n: usize, eps: f64, double: bool) -> f64 {
    let smooth = {
        let mut m = n;
        for p in [2, 3, 5, 7] {
            while m % p == 0 {
                m /= p;
            }
        }
        m == 1
    };
    let stages = if smooth {
        n.max(2) as f64
    } else {
        4.0 * n as f64
    }
    .log2();
    8.0 * stages * eps * if double { 2.0 } else { 1.0 }
}

fn rel_l2(got: &[C64], want: &[C64]) -> f64 {
    assert_eq!(got.len(), want.len());
    let num: f64 = got.iter().zip(want).map(|(g, w)| (g - w).norm_sqr()).sum();
    let den: f64 = want.iter().map(|w| w.norm_sqr()).sum();
    (num / den).sqrt()
}

fn check(what: &str, got: &[C64], want: &[C64], tol: f64) {
    let err = rel_l2(got, want);
    println!("{what}: relative L2 error {err:.3e} (bound {tol:.3e})");
    assert!(err <= tol, "{what}: relative L2 error {err:e} > {tol:e}");
}

/// The n-dimensional transform of every batch entry (packed, row-major,
/// outermost first), one axis at a time with rustfft.
fn fft_nd(data: &mut [C64], dims: &[usize], inverse: bool) {
    let total: usize = dims.iter().product();
    let mut planner = FftPlanner::<f64>::new();
    for axis in 0..dims.len() {
        let len = dims[axis];
        let inner: usize = dims[axis + 1..].iter().product();
        let fft = if inverse {
            planner.plan_fft_inverse(len)
        } else {
            planner.plan_fft_forward(len)
        };
        let mut line = vec![C64::default(); len];
        for batch in data.chunks_mut(total) {
            let outer = total / (len * inner);
            for o in 0..outer {
                for i in 0..inner {
                    let at = |k: usize| o * len * inner + k * inner + i;
                    for (k, v) in line.iter_mut().enumerate() {
                        *v = batch[at(k)];
                    }
                    fft.process(&mut line);
                    for (k, v) in line.iter().enumerate() {
                        batch[at(k)] = *v;
                    }
                }
            }
        }
    }
}

fn random_complex(n: usize) -> Vec<C64> {
    let v = random_nonzero::<f64>(2 * n, -1.0..1.0);
    v.chunks(2).map(|p| C64::new(p[0], p[1])).collect()
}

fn to_c32(v: &[C64]) -> Vec<c32> {
    v.iter()
        .map(|z| c32::new(z.re as f32, z.im as f32))
        .collect()
}
fn to_c64(v: &[C64]) -> Vec<c64> {
    v.iter().map(|z| c64::new(z.re, z.im)).collect()
}
fn from_c32(v: &[c32]) -> Vec<C64> {
    v.iter()
        .map(|z| C64::new(z.re as f64, z.im as f64))
        .collect()
}
fn from_c64(v: &[c64]) -> Vec<C64> {
    v.iter().map(|z| C64::new(z.re, z.im)).collect()
}
/// The f32-rounded values, as f64: the reference transforms exactly what
/// the GPU got.
fn rounded(v: &[C64]) -> Vec<C64> {
    from_c32(&to_c32(v))
}

/// C2C forward and inverse, out of place, f32, against the reference.
fn c2c_f32(dims: &[usize], batch: usize) {
    let dev = device();
    let s = stream(&dev);
    let n: usize = dims.iter().product();
    let x = rounded(&random_complex(n * batch));
    let plan = PlanBuilder::<f32>::new(Transform::C2C, dims)
        .batch(batch)
        .build(&s)
        .unwrap();
    let input = upload(&dev, &to_c32(&x));
    let mut out = DeviceBuffer::<c32>::zeroed(&dev, n * batch).unwrap();
    plan.execute_forward(&input, &mut out).unwrap();
    let mut want = x.clone();
    fft_nd(&mut want, dims, false);
    let tol = bound(n, f32::EPSILON as f64, false);
    check(
        &format!("C2C f32 forward {dims:?} x{batch}"),
        &from_c32(&download(&s, &out)),
        &want,
        tol,
    );
    let mut input = upload(&dev, &to_c32(&x));
    plan.execute_inverse(&mut input, &mut out).unwrap();
    let mut want = x.clone();
    fft_nd(&mut want, dims, true);
    check(
        &format!("C2C f32 inverse {dims:?} x{batch}"),
        &from_c32(&download(&s, &out)),
        &want,
        tol,
    );
}

/// C2C forward then inverse, in place, f64: each against the reference.
fn c2c_f64_in_place(dims: &[usize], batch: usize) {
    let dev = device();
    let s = stream(&dev);
    let n: usize = dims.iter().product();
    let x = random_complex(n * batch);
    let plan = PlanBuilder::<f64>::new(Transform::C2C, dims)
        .batch(batch)
        .in_place()
        .build(&s)
        .unwrap();
    let mut data = upload(&dev, &to_c64(&x));
    plan.execute_forward_in_place(&mut data).unwrap();
    let mut want = x.clone();
    fft_nd(&mut want, dims, false);
    let tol = bound(n, f64::EPSILON, true);
    let spectrum = from_c64(&download(&s, &data));
    check(
        &format!("C2C f64 in-place forward {dims:?} x{batch}"),
        &spectrum,
        &want,
        tol,
    );
    plan.execute_inverse_in_place(&mut data).unwrap();
    let scaled: Vec<C64> = x.iter().map(|v| v * n as f64).collect();
    check(
        &format!("C2C f64 in-place round trip {dims:?} x{batch} = n*x"),
        &from_c64(&download(&s, &data)),
        &scaled,
        2.0 * tol,
    );
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_c2c_1d_f32_powers_of_two_primes_and_mixed() {
    for (n, batch) in [
        (256, 3),
        (1 << 20, 2),
        (17, 5),
        (1009, 2),
        (360, 4),
        (1000, 3),
    ] {
        c2c_f32(&[n], batch);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_c2c_1d_f64_in_place() {
    for (n, batch) in [(4096, 2), (17, 3), (1009, 1), (360, 2), (1000, 2)] {
        c2c_f64_in_place(&[n], batch);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_c2c_2d_and_3d() {
    c2c_f32(&[64, 360], 2);
    c2c_f32(&[16, 17, 20], 1);
    c2c_f64_in_place(&[128, 100], 1);
    c2c_f64_in_place(&[8, 16, 9], 2);
}

/// R2C against the reference's first n/2 + 1 outputs per row, then C2R of
/// that spectrum back to n * x; out of place or in place (padded rows).
fn real_round_trip<T: RealTest>(dims: &[usize], batch: usize, in_place: bool) {
    let dev = device();
    let s = stream(&dev);
    let n: usize = dims.iter().product();
    let last = *dims.last().unwrap();
    let half = last / 2 + 1;
    let rows = n / last * batch;
    let x = T::round(random_nonzero::<f64>(n * batch, -1.0..1.0));
    let r2c = T::plan(Transform::R2C, dims, batch, in_place, &s);
    let c2r = T::plan(Transform::C2R, dims, batch, in_place, &s);
    // The reference spectrum: full complex transform, first `half` per row.
    let mut full: Vec<C64> = x.iter().map(|&v| C64::new(v, 0.0)).collect();
    fft_nd(&mut full, dims, false);
    let want: Vec<C64> = full.chunks(last).flat_map(|r| r[..half].to_vec()).collect();
    let tol = bound(n, T::EPS, T::DOUBLE);
    let what = format!(
        "{} {dims:?} x{batch} {}",
        T::LABEL,
        if in_place { "in place" } else { "out of place" }
    );
    let (spectrum, back) = T::run(&dev, &s, &r2c, &c2r, &x, rows, last, half, in_place);
    check(&format!("R2C {what}"), &spectrum, &want, tol);
    let scaled: Vec<C64> = x.iter().map(|&v| C64::new(v * n as f64, 0.0)).collect();
    let back: Vec<C64> = back.iter().map(|&v| C64::new(v, 0.0)).collect();
    check(
        &format!("C2R(R2C(x)) = n*x {what}"),
        &back,
        &scaled,
        2.0 * tol,
    );
}

/// The precision-specific parts of `real_round_trip`.
trait RealTest: hipfft::Float {
    const LABEL: &'static str;
    const EPS: f64;
    const DOUBLE: bool;
    fn round(v: Vec<f64>) -> Vec<f64>;
    fn plan(
        t: Transform,
        dims: &[usize],
        batch: usize,
        in_place: bool,
        s: &hip::Stream,
    ) -> hipfft::Plan<Self> {
        let b = PlanBuilder::<Self>::new(t, dims).batch(batch);
        let b = if in_place { b.in_place() } else { b };
        b.build(s).unwrap()
    }
    #[allow(clippy::too_many_arguments)]
    fn run(
        dev: &std::sync::Arc<hip::Device>,
        s: &hip::Stream,
        r2c: &hipfft::Plan<Self>,
        c2r: &hipfft::Plan<Self>,
        x: &[f64],
        rows: usize,
        last: usize,
        half: usize,
        in_place: bool,
    ) -> (Vec<C64>, Vec<f64>);
}

macro_rules! real_test {
    ($t:ty, $c:ty, $name:literal, $eps:expr, $double:expr, $mk:expr) => {
        impl RealTest for $t {
            const LABEL: &'static str = $name;
            const EPS: f64 = $eps;
            const DOUBLE: bool = $double;
            fn round(v: Vec<f64>) -> Vec<f64> {
                v.into_iter().map(|x| x as $t as f64).collect()
            }
            fn run(
                dev: &std::sync::Arc<hip::Device>,
                s: &hip::Stream,
                r2c: &hipfft::Plan<$t>,
                c2r: &hipfft::Plan<$t>,
                x: &[f64],
                rows: usize,
                last: usize,
                half: usize,
                in_place: bool,
            ) -> (Vec<C64>, Vec<f64>) {
                let real: Vec<$t> = x.iter().map(|&v| v as $t).collect();
                if in_place {
                    // Rows of 2 * half reals, the complex rows in the same bytes.
                    let mut padded = vec![0.0 as $t; r2c.in_place_len()];
                    for (r, row) in real.chunks(last).enumerate() {
                        padded[r * 2 * half..r * 2 * half + last].copy_from_slice(row);
                    }
                    let mut data = upload(dev, &padded);
                    r2c.execute_forward_in_place(&mut data).unwrap();
                    let bytes = download(s, &data);
                    let spectrum: Vec<C64> = bytes
                        .chunks(2)
                        .take(rows * half)
                        .map(|p| C64::new(p[0] as f64, p[1] as f64))
                        .collect();
                    let mut complex = upload(
                        dev,
                        &bytes
                            .chunks(2)
                            .map(|p| <$c>::new(p[0], p[1]))
                            .collect::<Vec<_>>(),
                    );
                    c2r.execute_inverse_in_place(&mut complex).unwrap();
                    let out = download(s, &complex);
                    let reals: Vec<$t> = out.iter().flat_map(|z| [z.re, z.im]).collect();
                    let back = reals
                        .chunks(2 * half)
                        .take(rows)
                        .flat_map(|r| r[..last].iter().map(|&v| v as f64).collect::<Vec<_>>())
                        .collect();
                    (spectrum, back)
                } else {
                    let input = upload(dev, &real);
                    let mut spectrum = DeviceBuffer::<$c>::zeroed(dev, r2c.output_len()).unwrap();
                    r2c.execute_forward(&input, &mut spectrum).unwrap();
                    let got = download(s, &spectrum);
                    let mut back = DeviceBuffer::<$t>::zeroed(dev, c2r.output_len()).unwrap();
                    c2r.execute_inverse(&mut spectrum, &mut back).unwrap();
                    let back = download(s, &back).iter().map(|&v| v as f64).collect();
                    ($mk(&got), back)
                }
            }
        }
    };
}
real_test!(f32, c32, "f32", f32::EPSILON as f64, false, from_c32);
real_test!(f64, c64, "f64", f64::EPSILON, true, from_c64);

#[test]
#[ignore = "needs a GPU"]
fn gpu_r2c_c2r_round_trips_1d() {
    for n in [1024, 17, 1009, 360, 1000] {
        real_round_trip::<f32>(&[n], 3, false);
        real_round_trip::<f64>(&[n], 2, false);
        real_round_trip::<f32>(&[n], 2, true);
        real_round_trip::<f64>(&[n], 1, true);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_r2c_c2r_round_trips_2d_and_3d() {
    real_round_trip::<f32>(&[64, 100], 2, false);
    real_round_trip::<f64>(&[30, 17], 1, true);
    real_round_trip::<f32>(&[8, 12, 10], 2, true);
    real_round_trip::<f64>(&[9, 8, 16], 1, false);
}

/// The "many" form: every other element of the input, transforms 2n + 3
/// apart; output packed.
#[test]
#[ignore = "needs a GPU"]
fn gpu_strided_batched_c2c() {
    let dev = device();
    let s = stream(&dev);
    let (n, batch) = (360, 5);
    let dist = 2 * n + 3;
    let plan = PlanBuilder::<f32>::new(Transform::C2C, &[n])
        .batch(batch)
        .input_layout(Layout::new(&[n], 2, dist))
        .build(&s)
        .unwrap();
    assert_eq!(plan.input_len(), (batch - 1) * dist + 2 * (n - 1) + 1);
    let raw = rounded(&random_complex(plan.input_len()));
    let mut x = Vec::new();
    for b in 0..batch {
        x.extend((0..n).map(|k| raw[b * dist + 2 * k]));
    }
    let input = upload(&dev, &to_c32(&raw));
    let mut out = DeviceBuffer::<c32>::zeroed(&dev, n * batch).unwrap();
    plan.execute_forward(&input, &mut out).unwrap();
    fft_nd(&mut x, &[n], false);
    check(
        "strided C2C f32",
        &from_c32(&download(&s, &out)),
        &x,
        bound(n, f32::EPSILON as f64, false),
    );
}

/// `e` is an [`Error::Invalid`] from `operation` whose reason contains
/// `part`.
fn assert_invalid(e: &Error, operation: &str, part: &str) {
    match e {
        Error::Invalid {
            operation: op,
            reason,
        } => {
            assert_eq!(*op, operation, "{e}");
            assert!(reason.contains(part), "{e}");
        }
        other => panic!("expected Invalid from {operation}, got {other}"),
    }
}

/// A user work area: refused execution without one, right results with one.
#[test]
#[ignore = "needs a GPU"]
fn gpu_user_work_area() {
    let dev = device();
    let s = stream(&dev);
    let n = 1009;
    let mut plan = PlanBuilder::<f64>::new(Transform::C2C, &[n])
        .batch(4)
        .work_area(WorkArea::User)
        .build(&s)
        .unwrap();
    println!("work size: {} bytes", plan.work_size());
    let x = random_complex(4 * n);
    let input = upload(&dev, &to_c64(&x));
    let mut out = DeviceBuffer::<c64>::zeroed(&dev, 4 * n).unwrap();
    if plan.work_size() > 0 {
        let e = plan.execute_forward(&input, &mut out).unwrap_err();
        assert_invalid(&e, "Plan::execute_forward", "needs a work area");
        let small = DeviceBuffer::<u8>::zeroed(&dev, plan.work_size() - 1).unwrap();
        let e = plan.set_work_area(small).unwrap_err();
        assert_invalid(&e, "Plan::set_work_area", "the work area holds");
    }
    let area = DeviceBuffer::<u8>::zeroed(&dev, plan.work_size().max(1)).unwrap();
    assert!(plan.set_work_area(area).unwrap().is_none());
    plan.execute_forward(&input, &mut out).unwrap();
    let mut want = x.clone();
    fft_nd(&mut want, &[n], false);
    check(
        "C2C f64 with a user work area",
        &from_c64(&download(&s, &out)),
        &want,
        bound(n, f64::EPSILON, true),
    );
}

/// Plans used with the wrong types, lengths or direction give errors, and
/// leave the buffers untouched.
#[test]
#[ignore = "needs a GPU"]
fn gpu_bad_input_is_an_error() {
    let dev = device();
    let s = stream(&dev);
    let n = 64;
    let r2c = PlanBuilder::<f32>::new(Transform::R2C, &[n])
        .batch(2)
        .build(&s)
        .unwrap();
    let real = upload(&dev, &random_nonzero::<f32>(2 * n, -1.0..1.0));
    let complex_in = upload(&dev, &to_c32(&random_complex(2 * n)));
    let mut out = DeviceBuffer::<c32>::zeroed(&dev, 2 * (n / 2 + 1)).unwrap();
    let mut short = DeviceBuffer::<c32>::zeroed(&dev, 2 * (n / 2 + 1) - 1).unwrap();
    let mut out64 = DeviceBuffer::<c64>::zeroed(&dev, 2 * (n / 2 + 1)).unwrap();
    let e = r2c.execute_forward(&complex_in, &mut out).unwrap_err();
    assert_invalid(&e, "Plan::execute_forward", "input holds");
    let e = r2c.execute_forward(&real, &mut out64).unwrap_err();
    assert_invalid(&e, "Plan::execute_forward", "output holds");
    let e = r2c.execute_forward(&real, &mut short).unwrap_err();
    assert_invalid(&e, "Plan::execute_forward", "output holds 65 elements");
    let mut real_mut = upload(&dev, &random_nonzero::<f32>(2 * n, -1.0..1.0));
    let e = r2c.execute_inverse(&mut out, &mut real_mut).unwrap_err();
    assert_invalid(&e, "Plan::execute_inverse", "only runs forward");
    let e = r2c.execute_forward_in_place(&mut real_mut).unwrap_err();
    assert_invalid(&e, "Plan::execute_forward_in_place", ".in_place()");
    assert!(
        download(&s, &out)
            .iter()
            .all(|z| z.re == 0.0 && z.im == 0.0),
        "output written"
    );
    let e = r2c
        .execute_forward(&real.slice(..n).unwrap(), &mut out)
        .unwrap_err();
    assert_invalid(&e, "Plan::execute_forward", "input holds 64 elements");
    println!("every bad input was refused: last error: {e}");
}

/// A buffer on the second GPU given to a plan of the first.
#[test]
#[ignore = "needs two GPUs"]
fn two_gpus_buffer_on_another_device_is_an_error() {
    let dev0 = device();
    let count = hip::Device::count().unwrap();
    assert!(count >= 2, "needs two GPUs ({count} found)");
    let dev1 = hip::Device::get(1).unwrap();
    let s = stream(&dev0);
    let plan = PlanBuilder::<f32>::new(Transform::C2C, &[128])
        .build(&s)
        .unwrap();
    let input = upload(&dev1, &to_c32(&random_complex(128)));
    let mut out = DeviceBuffer::<c32>::zeroed(&dev0, 128).unwrap();
    let e = plan.execute_forward(&input, &mut out).unwrap_err();
    assert_invalid(
        &e,
        "Plan::execute_forward",
        "input is on device 1 but the plan is on device 0",
    );
}
