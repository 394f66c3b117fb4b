//! GPU tests of `LtHandle::matmul` against a CPU reference in f64.
//!
//! # Error bound
//! Each element of `D` is a dot product of length `k` accumulated in f32
//! (f16/bf16 inputs are exact in f32), plus `beta * C` and the bias. The
//! classical bound for such a sum (Higham, *Accuracy and Stability of
//! Numerical Algorithms*, §3.1) is `|got - want| <= gamma_k * M` with
//! `gamma_k ~ k * eps32` and `M = sum_l |a_il b_lj| + |beta c_ij| + |bias|`
//! the same sum of absolute values; blocked and split-k kernels only lower
//! the constant. We allow `2 (k + 2) eps32 * M`, times 1.2 after GELU (whose
//! derivative is below 1.13 in absolute value, so it amplifies an input error
//! at most that much), plus, for an f16/bf16 output, its rounding:
//! `eps_out * |want|`, and `4 eps32 (1 + |want|)` for the activation's own
//! evaluation in f32. A wrong transpose, leading dimension, bias or
//! activation errs by the order of `M`, far above the bound.
//!
//! The GELU of hipBLASLt and cuBLASLt is the tanh approximation, which the
//! reference computes too (it differs from the erf form by up to 1e-3).
//! cuBLASLt evaluates that tanh with a fast approximation (measured on an
//! H100: 4.7e-6 off in f32 and 1.1e-4 in f16 for |x| near 2, where the f32
//! bound above is 2e-6), so after GELU we allow `0.5 M 2^-10` more: GELU is
//! `0.5 x (1 + tanh(u))`, `|x| <= M`, and CUDA's `tanh.approx` errs by up
//! to 2^-10.99. With an f16/bf16 output the library may also round the
//! pre-activation to the output type before the activation (measured on an
//! H100: a bf16 GELU 2 ulps off, 7.7e-3 at 0.89), so an activation adds
//! `1.2 eps_out M`. A wrong activation still errs by the order of `M`.
//!
//! Each test draws fresh random non-zero data in [-1, 1) (seed printed;
//! replay with `HIP_TEST_SEED`). A failure prints the configuration, the
//! worst element's position, both values and the bound.

use half::{bf16, f16};
use hipblaslt::{Activation, Epilogue, Error, LtElement, LtHandle, MatmulConfig, Order};
use test_kit::{device, download, random_nonzero, stream, upload};

/// The element types under test, with their conversions and unit roundoff.
trait Elem: LtElement + Copy + std::fmt::Debug {
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// Unit roundoff of the output type.
    const EPS: f64;
}
impl Elem for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    const EPS: f64 = f32::EPSILON as f64 / 2.0;
}
impl Elem for f16 {
    fn from_f64(v: f64) -> Self {
        f16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        f16::to_f64(self)
    }
    const EPS: f64 = 1.0 / 2048.0;
}
impl Elem for bf16 {
    fn from_f64(v: f64) -> Self {
        bf16::from_f64(v)
    }
    fn to_f64(self) -> f64 {
        bf16::to_f64(self)
    }
    const EPS: f64 = 1.0 / 256.0;
}

const EPS32: f64 = f32::EPSILON as f64 / 2.0;

/// The error allowed in the library's evaluation of GELU's tanh (see the
/// module docs).
const GELU_TANH_ERR: f64 = 1.0 / 1024.0;

fn gelu(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
}

/// Element `(i, j)` of a matrix stored `rows x cols` in `order` with `ld`.
fn at(order: Order, ld: usize, i: usize, j: usize) -> usize {
    match order {
        Order::ColMajor => i + j * ld,
        Order::RowMajor => i * ld + j,
    }
}

/// The tight leading dimension of a stored `rows x cols` matrix.
fn tight(order: Order, rows: usize, cols: usize) -> usize {
    match order {
        Order::ColMajor => rows,
        Order::RowMajor => cols,
    }
}

/// Elements one stored matrix spans, and the buffer length of the batch.
fn extent(
    order: Order,
    rows: usize,
    cols: usize,
    ld: usize,
    stride: usize,
    batch: usize,
) -> (usize, usize) {
    let (contiguous, lines) = match order {
        Order::ColMajor => (rows, cols),
        Order::RowMajor => (cols, rows),
    };
    let span = ld * (lines - 1) + contiguous;
    let stride = if stride == 0 { span } else { stride };
    (stride, stride * (batch - 1) + span)
}

/// `(want, M)` for every element of `D` (module doc), in `c`'s layout;
/// elements outside the matrices keep `c`'s values (and M = 0).
fn reference(
    cfg: &MatmulConfig,
    a: &[f64],
    b: &[f64],
    c: &[f64],
    bias: Option<&[f64]>,
    act: Activation,
) -> (Vec<f64>, Vec<f64>) {
    let o = cfg.order;
    let (ar, ac) = if cfg.transa {
        (cfg.k, cfg.m)
    } else {
        (cfg.m, cfg.k)
    };
    let (br, bc) = if cfg.transb {
        (cfg.n, cfg.k)
    } else {
        (cfg.k, cfg.n)
    };
    let lda = if cfg.lda == 0 {
        tight(o, ar, ac)
    } else {
        cfg.lda
    };
    let ldb = if cfg.ldb == 0 {
        tight(o, br, bc)
    } else {
        cfg.ldb
    };
    let ldc = if cfg.ldc == 0 {
        tight(o, cfg.m, cfg.n)
    } else {
        cfg.ldc
    };
    let (sa, _) = extent(o, ar, ac, lda, cfg.stride_a, cfg.batch);
    let (sb, _) = extent(o, br, bc, ldb, cfg.stride_b, cfg.batch);
    let (sc, _) = extent(o, cfg.m, cfg.n, ldc, cfg.stride_c, cfg.batch);
    let mut want = c.to_vec();
    let mut mag = vec![0.0; c.len()];
    for p in 0..cfg.batch {
        for i in 0..cfg.m {
            for j in 0..cfg.n {
                let (mut sum, mut abs) = (0.0, 0.0);
                for l in 0..cfg.k {
                    let x = if cfg.transa {
                        a[p * sa + at(o, lda, l, i)]
                    } else {
                        a[p * sa + at(o, lda, i, l)]
                    };
                    let y = if cfg.transb {
                        b[p * sb + at(o, ldb, j, l)]
                    } else {
                        b[p * sb + at(o, ldb, l, j)]
                    };
                    sum += x * y;
                    abs += (x * y).abs();
                }
                let ci = p * sc + at(o, ldc, i, j);
                let mut v = cfg.alpha as f64 * sum + cfg.beta as f64 * c[ci];
                abs = (cfg.alpha as f64).abs() * abs + (cfg.beta as f64 * c[ci]).abs();
                if let Some(bias) = bias {
                    let bv = match o {
                        Order::ColMajor => bias[i],
                        Order::RowMajor => bias[j],
                    };
                    v += bv;
                    abs += bv.abs();
                }
                v = match act {
                    Activation::None => v,
                    Activation::Relu => v.max(0.0),
                    Activation::Gelu => gelu(v),
                };
                want[ci] = v;
                mag[ci] = abs;
            }
        }
    }
    (want, mag)
}

/// Runs `cfg` with `act` (and a bias when `with_bias`) on fresh data and
/// compares with the reference.
fn run<T: Elem>(cfg: MatmulConfig, act: Activation, with_bias: bool) {
    let what = format!(
        "{} {:?} m {} n {} k {} ta {} tb {} ld ({},{},{}) batch {} strides ({},{},{}) alpha {} beta {} act {:?} bias {}",
        T::NAME, cfg.order, cfg.m, cfg.n, cfg.k, cfg.transa, cfg.transb, cfg.lda, cfg.ldb, cfg.ldc,
        cfg.batch, cfg.stride_a, cfg.stride_b, cfg.stride_c, cfg.alpha, cfg.beta, act, with_bias
    );
    let o = cfg.order;
    let (ar, ac) = if cfg.transa {
        (cfg.k, cfg.m)
    } else {
        (cfg.m, cfg.k)
    };
    let (br, bc) = if cfg.transb {
        (cfg.n, cfg.k)
    } else {
        (cfg.k, cfg.n)
    };
    let ld = |given: usize, r, c| if given == 0 { tight(o, r, c) } else { given };
    let (_, a_len) = extent(o, ar, ac, ld(cfg.lda, ar, ac), cfg.stride_a, cfg.batch);
    let (_, b_len) = extent(o, br, bc, ld(cfg.ldb, br, bc), cfg.stride_b, cfg.batch);
    let (_, c_len) = extent(
        o,
        cfg.m,
        cfg.n,
        ld(cfg.ldc, cfg.m, cfg.n),
        cfg.stride_c,
        cfg.batch,
    );
    let bias_len = match o {
        Order::ColMajor => cfg.m,
        Order::RowMajor => cfg.n,
    };
    // Values as the GPU sees them (rounded to T), then widened.
    let draw = |n: usize| -> Vec<T> {
        random_nonzero(n, -1.0f64..1.0)
            .into_iter()
            .map(T::from_f64)
            .collect()
    };
    let (a, b, c, bias) = (draw(a_len), draw(b_len), draw(c_len), draw(bias_len));
    let wide = |v: &[T]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
    let (want, mag) = reference(
        &cfg,
        &wide(&a),
        &wide(&b),
        &wide(&c),
        with_bias.then(|| wide(&bias)).as_deref(),
        act,
    );

    let dev = device();
    let s = stream(&dev);
    let mut lt = LtHandle::new(&s).expect("LtHandle::new");
    let (da, db, dbias) = (upload(&dev, &a), upload(&dev, &b), upload(&dev, &bias));
    let mut dc = upload(&dev, &c);
    let mut epilogue = Epilogue::activation(act);
    if with_bias {
        epilogue = epilogue.with_bias(&dbias);
    }
    if let Err(e) = lt.matmul(&cfg, &da, &db, &mut dc, epilogue) {
        panic!("{what}: {e}");
    }
    let got = wide(&download(&s, &dc));
    let amplify = if act == Activation::Gelu { 1.2 } else { 1.0 };
    let mut worst = (0.0f64, 0usize, 0.0f64);
    for (idx, ((g, w), m)) in got.iter().zip(&want).zip(&mag).enumerate() {
        let tol = amplify * 2.0 * (cfg.k as f64 + 2.0) * EPS32 * m
            + T::EPS * w.abs()
            + 4.0 * EPS32 * (1.0 + w.abs())
            + if act == Activation::Gelu {
                0.5 * m * GELU_TANH_ERR
            } else {
                0.0
            }
            + if act == Activation::None {
                0.0
            } else {
                amplify * T::EPS * m
            };
        let ratio = (g - w).abs() / tol;
        // A NaN ratio (a NaN result) is the worst of all.
        if ratio.is_nan() || ratio > worst.0 {
            worst = (ratio, idx, tol);
        }
    }
    let (ratio, idx, tol) = worst;
    let ratio = if got[idx].is_nan() {
        f64::INFINITY
    } else {
        ratio
    };
    println!("{what}: worst error / bound = {ratio:.3} at element {idx}");
    assert!(
        ratio <= 1.0,
        "{what}: element {idx} (of {}): got {}, want {}, |diff| {:e} > bound {tol:e} (M = {})",
        got.len(),
        got[idx],
        want[idx],
        (got[idx] - want[idx]).abs(),
        mag[idx]
    );
}

/// The sizes every layout is tried with: 1, 7, 33 and 1000 + 3.
const SIZES: [(usize, usize, usize); 5] = [
    (1, 1, 1),
    (7, 33, 5),
    (33, 7, 1003),
    (1003, 33, 7),
    (64, 1003, 33),
];

#[test]
#[ignore = "needs a GPU"]
fn gpu_plain_f32_all_orders_and_transposes() {
    for order in [Order::ColMajor, Order::RowMajor] {
        for (m, n, k) in SIZES {
            for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                let mut cfg = MatmulConfig::new(m, n, k, order);
                cfg.transa = ta;
                cfg.transb = tb;
                run::<f32>(cfg, Activation::None, false);
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_each_epilogue_f32() {
    for order in [Order::ColMajor, Order::RowMajor] {
        for (m, n, k) in [(7, 33, 5), (33, 1003, 64), (1, 7, 1)] {
            for act in [Activation::None, Activation::Relu, Activation::Gelu] {
                for bias in [false, true] {
                    let mut cfg = MatmulConfig::new(m, n, k, order);
                    // F.linear's shape: y = x w^T.
                    cfg.transb = order == Order::RowMajor;
                    run::<f32>(cfg, act, bias);
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_leading_dimensions_scalars_and_batches() {
    for order in [Order::ColMajor, Order::RowMajor] {
        let mut cfg = MatmulConfig::new(33, 7, 1003, order);
        cfg.transa = true;
        // Wider than tight: A stored 1003 x 33.
        cfg.lda = tight(order, 1003, 33) + 3;
        cfg.ldb = tight(order, 1003, 7) + 1;
        cfg.ldc = tight(order, 33, 7) + 5;
        cfg.alpha = 1.5;
        cfg.beta = 0.5;
        run::<f32>(cfg, Activation::Gelu, true);

        let mut cfg = MatmulConfig::new(7, 33, 5, order);
        cfg.batch = 3;
        cfg.stride_c = 7 * 33 + 11;
        cfg.beta = -1.0;
        run::<f32>(cfg, Activation::Relu, true);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_half_precisions_with_bias_and_gelu() {
    for order in [Order::ColMajor, Order::RowMajor] {
        for (m, n, k) in [(7, 33, 5), (64, 1003, 33), (1003, 64, 256)] {
            let mut cfg = MatmulConfig::new(m, n, k, order);
            cfg.transb = true;
            run::<f16>(cfg, Activation::Gelu, true);
            run::<bf16>(cfg, Activation::Gelu, true);
            run::<f16>(cfg, Activation::None, false);
        }
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_a_kept_plan_serves_fresh_data() {
    // The same problem twice: the second call reuses the plan and the
    // workspace, and must still read the new data.
    let cfg = MatmulConfig::new(33, 1003, 64, Order::RowMajor);
    run::<f32>(cfg, Activation::Gelu, true);
    run::<f32>(cfg, Activation::Gelu, true);
    let dev = device();
    let s = stream(&dev);
    let mut lt = LtHandle::new(&s).unwrap();
    let a = upload(&dev, &[1.0f32; 6]);
    let b = upload(&dev, &[2.0f32; 6]);
    let mut c = upload(&dev, &[0.0f32; 4]);
    let cfg = MatmulConfig::new(2, 2, 3, Order::ColMajor);
    for scale in [1.0f32, 3.0] {
        let mut cfg = cfg;
        cfg.alpha = scale;
        lt.matmul(&cfg, &a, &b, &mut c, Epilogue::none()).unwrap();
        assert_eq!(download(&s, &c), vec![6.0 * scale; 4], "alpha {scale}");
    }
}

#[test]
#[ignore = "needs a GPU"]
fn gpu_bad_buffers_are_refused_before_the_call() {
    let dev = device();
    let s = stream(&dev);
    let mut lt = LtHandle::new(&s).unwrap();
    let a = upload(&dev, &[1.0f32; 20]);
    let b = upload(&dev, &[1.0f32; 20]);
    let short = upload(&dev, &[1.0f32; 3]);
    let mut c = upload(&dev, &[0.0f32; 20]);
    let cfg = MatmulConfig::new(4, 5, 4, Order::RowMajor);
    // B (4 x 5) needs 20 elements: 3 is short.
    match lt.matmul(&cfg, &a, &short, &mut c, Epilogue::none()) {
        Err(Error::Invalid { reason, .. }) => assert!(reason.contains("B has 3"), "{reason}"),
        other => panic!("expected Invalid, got {other:?}"),
    }
    // A row-major bias needs n = 5 values.
    let bias = upload(&dev, &[1.0f32; 4]);
    match lt.matmul(&cfg, &a, &b, &mut c, Epilogue::none().with_bias(&bias)) {
        Err(Error::Invalid { reason, .. }) => assert!(reason.contains("column (n): 5"), "{reason}"),
        other => panic!("expected Invalid, got {other:?}"),
    }
    // C was never written.
    assert_eq!(download(&s, &c), vec![0.0; 20]);
}
