//! GPU benchmark of hipBLASLt's fused matmul epilogue (cuBLASLt on NVIDIA),
//! two comparisons measured in the same run:
//!
//! 1. **Against torch**: `hipblaslt::LtHandle::matmul` with bias + GELU
//!    fused, `y = gelu(x w^T + b)` row-major, against
//!    `F.gelu(F.linear(x, w, b), approximate="tanh")` from
//!    `benches/torch_lt.py` on the same shapes (f16, bf16, and f32 without
//!    TF32). Ratio torch time / ours, target >= 0.95.
//! 2. **Against our own unfused path**: the same bf16 product as hipblas's
//!    GEMM (`Blas::gemm_row_major`, f32 accumulation) followed by two
//!    separate elementwise kernels (bias add, then GELU; each reads and
//!    writes the output once, two bf16 values per thread), against the
//!    fused LT matmul. Ratio unfused time / fused, target >= 1.1.
//!
//! ```text
//! python3 benches/torch_lt.py > torch_lt.txt   # the baseline
//! HIP_PLATFORM=nvidia lt_bench torch_lt.txt    # prints both tables
//! ```
//!
//! Each case: the handle's plan (descriptors, heuristic algorithm,
//! workspace) is made by a first call, which is also checked on the CPU
//! (nine sampled outputs against an f64 reference from the same rounded
//! inputs, with the bound of `hipblaslt/tests/gpu_lt.rs`, widened by the
//! output type's rounding at each unfused step); then 5 warm-up calls and
//! the median of 50 timed ones, each between a pair of HIP events on the
//! stream. Inputs are deterministic noise in [-1, 1).
//!
//! It fails (status 1, saying why) when it cannot measure or compare: no
//! GPU or library, no baseline file or a row missing, a result that fails
//! the check. Missing a target is reported, not an error.

use half::{bf16, f16};
use hip::{Device, DeviceBuffer, LaunchConfig, Module, Stream, TypedKernel};
use hip_benches::{event_median_ms, signed_unit_noise, single_value, torch_baseline_main};
use hipblas::{Blas, GemmShape, Op};
use hipblaslt::{Activation, Epilogue, LtElement, LtHandle, MatmulConfig, Order};
use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;

const WARMUP: usize = 5;
const REPEATS: usize = 50;
/// torch time / ours.
const TARGET_TORCH: f64 = 0.95;
/// Unfused time / fused.
const TARGET_FUSED: f64 = 1.1;

/// The element types measured.
#[derive(Clone, Copy, Debug)]
enum Ty {
    F16,
    Bf16,
    F32,
}

/// One case against torch: its name in torch_lt.py's output, the type, and
/// tokens (m), out features (n), in features (k).
struct Case {
    name: &'static str,
    ty: Ty,
    m: usize,
    n: usize,
    k: usize,
}

const TORCH_CASES: [Case; 4] = [
    Case {
        name: "linear_gelu_f16_8192x4096x4096",
        ty: Ty::F16,
        m: 8192,
        n: 4096,
        k: 4096,
    },
    Case {
        name: "linear_gelu_bf16_8192x4096x4096",
        ty: Ty::Bf16,
        m: 8192,
        n: 4096,
        k: 4096,
    },
    Case {
        name: "linear_gelu_bf16_16384x4096x1024",
        ty: Ty::Bf16,
        m: 16384,
        n: 4096,
        k: 1024,
    },
    Case {
        name: "linear_gelu_f32_4096x4096x1024",
        ty: Ty::F32,
        m: 4096,
        n: 4096,
        k: 1024,
    },
];

/// The bf16 shapes (m, n, k) of the fused-versus-unfused comparison: MLP
/// layers of a transformer's feed-forward block.
const UNFUSED_CASES: [(usize, usize, usize); 3] =
    [(16384, 4096, 1024), (8192, 4096, 4096), (32768, 1024, 1024)];

/// The unfused path's elementwise kernels: bf16 pairs read as one 32-bit
/// word (element `2i` in the low half), rounded to nearest even on the way
/// back; `n` (the row length) is even.
const KERNELS: &str = r#"
__device__ inline float bf_lo(unsigned v) { return __uint_as_float(v << 16); }
__device__ inline float bf_hi(unsigned v) { return __uint_as_float(v & 0xffff0000u); }
__device__ inline unsigned to_bf(float f) {
    unsigned u = __float_as_uint(f);
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}
__device__ inline float gelu(float x) {
    return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
extern "C" __global__ void bias_bf16(unsigned short* y16, const unsigned short* b16,
                                     unsigned pairs, unsigned row_pairs) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        unsigned* y = (unsigned*)y16;
        const unsigned* b = (const unsigned*)b16;
        unsigned v = y[i], c = b[i % row_pairs];
        y[i] = to_bf(bf_lo(v) + bf_lo(c)) | (to_bf(bf_hi(v) + bf_hi(c)) << 16);
    }
}
extern "C" __global__ void gelu_bf16(unsigned short* y16, unsigned pairs) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pairs) {
        unsigned* y = (unsigned*)y16;
        unsigned v = y[i];
        y[i] = to_bf(gelu(bf_lo(v))) | (to_bf(gelu(bf_hi(v))) << 16);
    }
}
"#;

fn main() -> ExitCode {
    torch_baseline_main("lt_bench", "torch_lt.py", read_torch, |torch| {
        let (vs_torch, vs_unfused) = run(torch)?;
        // One verdict a line: each line ends with its outcome's word.
        println!(
            "lt_bench: lowest ratio vs torch {vs_torch:.2}; target >= {TARGET_TORCH}: {}",
            single_value(vs_torch, TARGET_TORCH)
        );
        println!(
            "lt_bench: lowest fused speed-up vs GEMM + separate kernels {vs_unfused:.2}; target >= {TARGET_FUSED}: {}",
            single_value(vs_unfused, TARGET_FUSED)
        );
        Ok(())
    })
}

/// torch_lt.py's output: one line `case milliseconds` per case.
fn read_torch(path: &str) -> Result<HashMap<String, f64>, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the torch baseline {path}: {e}"))?;
    let mut out = HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        if let [name, ms] = line.split_whitespace().collect::<Vec<_>>()[..] {
            match ms.parse::<f64>() {
                Ok(ms) if ms.is_finite() && ms > 0.0 => {
                    out.insert(name.to_owned(), ms);
                }
                _ => return Err(format!("the torch baseline {path} has a bad row: {line}").into()),
            }
        }
    }
    if out.is_empty() {
        return Err(format!(
            "the torch baseline {path} holds no `case milliseconds` rows (did torch_lt.py fail?)"
        )
        .into());
    }
    Ok(out)
}

/// The element types' conversions and the output rounding.
trait Elem: LtElement + hip::ValidAsZeroBits + Copy {
    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    /// Unit roundoff.
    const EPS: f64;
}
impl Elem for f32 {
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
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

fn gelu(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    0.5 * x * (1.0 + (c * (x + 0.044715 * x * x * x)).tanh())
}

/// Deterministic inputs of one case, rounded to `T`: x (m x k), w (n x k),
/// b (n).
fn inputs<T: Elem>(m: usize, n: usize, k: usize) -> (Vec<T>, Vec<T>, Vec<T>) {
    let draw = |len: usize, seed: u64| -> Vec<T> {
        signed_unit_noise(seed).take(len).map(T::from_f64).collect()
    };
    (draw(m * k, 1), draw(n * k, 2), draw(n, 3))
}

/// Checks nine sampled outputs of `y = gelu(x w^T + b)`; `roundings` is the
/// number of times the output was rounded to `T` (1 fused, 3 unfused).
fn check<T: Elem>(
    what: &str,
    (x, w, b): (&[T], &[T], &[T]),
    (m, n, k): (usize, usize, usize),
    y: &[T],
    roundings: f64,
) -> Result<(), String> {
    for i in [0, m / 2, m - 1] {
        for j in [0, n / 3, n - 1] {
            let (mut s, mut mag) = (b[j].to_f64(), b[j].to_f64().abs());
            for l in 0..k {
                let p = x[i * k + l].to_f64() * w[j * k + l].to_f64();
                s += p;
                mag += p.abs();
            }
            let want = gelu(s);
            let got = y[i * n + j].to_f64();
            let tol = 1.2 * 2.0 * (k as f64 + 2.0) * EPS32 * mag
                + roundings * T::EPS * (mag + want.abs())
                + 4.0 * EPS32 * (1.0 + want.abs());
            // A NaN result fails too.
            if got.is_nan() || (got - want).abs() > tol {
                return Err(format!(
                    "{what}: y[{i}, {j}] is {got}, the CPU gives {want} (bound {tol:.3e})"
                ));
            }
        }
    }
    Ok(())
}

/// The fused LT matmul of one case: checked once, then timed (ms).
fn fused<T: Elem>(
    what: &str,
    dev: &Arc<Device>,
    stream: &Stream,
    lt: &mut LtHandle,
    (m, n, k): (usize, usize, usize),
) -> Result<f64, Box<dyn std::error::Error>> {
    let (xh, wh, bh) = inputs::<T>(m, n, k);
    let (x, w, b) = (
        stream.clone_htod(&xh)?,
        stream.clone_htod(&wh)?,
        stream.clone_htod(&bh)?,
    );
    let mut y = DeviceBuffer::<T>::zeroed(dev, m * n)?;
    let mut cfg = MatmulConfig::new(m, n, k, Order::RowMajor);
    cfg.transb = true;
    lt.matmul(
        &cfg,
        &x,
        &w,
        &mut y,
        Epilogue::activation(Activation::Gelu).with_bias(&b),
    )?;
    let got = stream.clone_dtoh(&y)?;
    check(what, (&xh, &wh, &bh), (m, n, k), &got, 1.0)?;
    event_median_ms(stream, WARMUP, REPEATS, 1, || {
        lt.matmul(
            &cfg,
            &x,
            &w,
            &mut y,
            Epilogue::activation(Activation::Gelu).with_bias(&b),
        )
    })
}

/// The unfused bf16 path of one case (hipblas GEMM, bias kernel, GELU
/// kernel): checked once, then timed (ms).
fn unfused(
    dev: &Arc<Device>,
    stream: &Stream,
    blas: &Blas,
    module: &Module,
    (m, n, k): (usize, usize, usize),
) -> Result<f64, Box<dyn std::error::Error>> {
    // SAFETY: the parameter lists match the kernels' signatures.
    let bias = unsafe {
        TypedKernel::<(*mut bf16, *const bf16, u32, u32)>::new(module.function("bias_bf16")?)
    };
    // SAFETY: as above.
    let act = unsafe { TypedKernel::<(*mut bf16, u32)>::new(module.function("gelu_bf16")?) };
    let (xh, wh, bh) = inputs::<bf16>(m, n, k);
    let (x, w, b) = (
        stream.clone_htod(&xh)?,
        stream.clone_htod(&wh)?,
        stream.clone_htod(&bh)?,
    );
    let mut y = DeviceBuffer::<bf16>::zeroed(dev, m * n)?;
    let shape = GemmShape::row_major(Op::N, Op::T, m, n, k);
    let pairs = u32::try_from(m * n / 2)?;
    let row_pairs = u32::try_from(n / 2)?;
    let cfg = LaunchConfig::for_num_elems(pairs);
    let step = |y: &mut DeviceBuffer<bf16>| -> Result<(), hipblas::Error> {
        blas.gemm_row_major(&shape, bf16::ONE, &x, &w, bf16::ZERO, y)?;
        // SAFETY: y holds 2 * pairs bf16 values (m x n, n even) and b holds
        // n = 2 * row_pairs; each thread touches one pair below `pairs`.
        unsafe { bias.launch(stream, cfg, (&mut *y, &b, pairs, row_pairs)) }?;
        // SAFETY: as above.
        unsafe { act.launch(stream, cfg, (&mut *y, pairs)) }?;
        Ok(())
    };
    step(&mut y)?;
    let got = stream.clone_dtoh(&y)?;
    check(
        &format!("unfused bf16 {m}x{n}x{k}"),
        (&xh, &wh, &bh),
        (m, n, k),
        &got,
        3.0,
    )?;
    event_median_ms(stream, WARMUP, REPEATS, 1, || step(&mut y))
}

/// Both tables; the lowest ratio of each.
fn run(torch: &HashMap<String, f64>) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let dev = hip_benches::gpu()?;
    let stream = Stream::new(&dev)?;
    let lib = hipblaslt::result::library().map_err(|e| format!("cannot measure: {e}"))?;
    println!(
        "device: {}; matmul library: {} {}; plan once, {WARMUP} warm-up + median of {REPEATS} timed calls (HIP events)",
        dev.name()?,
        lib.libraries[0].path.display(),
        lib.version.map(|v| v.to_string()).unwrap_or_default(),
    );
    let mut lt = LtHandle::new(&stream)?;
    let tflops =
        |m: usize, n: usize, k: usize, ms: f64| 2.0 * (m * n * k) as f64 / (ms * 1e-3) / 1e12;

    println!();
    println!("fused bias + GELU (LtHandle::matmul) vs torch F.linear + F.gelu(tanh):");
    println!(
        "| {:<34} | {:>8} | {:>7} | {:>8} | {:>10} |",
        "case", "ours ms", "TFLOP/s", "torch ms", "torch/ours"
    );
    println!(
        "|{:-<36}|{:->10}|{:->9}|{:->10}|{:->12}|",
        "", "", "", "", ""
    );
    let mut lowest_torch = f64::INFINITY;
    let mut missing = Vec::new();
    for case in &TORCH_CASES {
        let shape = (case.m, case.n, case.k);
        let ours = match case.ty {
            Ty::F16 => fused::<f16>(case.name, &dev, &stream, &mut lt, shape)?,
            Ty::Bf16 => fused::<bf16>(case.name, &dev, &stream, &mut lt, shape)?,
            Ty::F32 => fused::<f32>(case.name, &dev, &stream, &mut lt, shape)?,
        };
        let (t, ratio) = match torch.get(case.name) {
            Some(&t) => {
                lowest_torch = lowest_torch.min(t / ours);
                (format!("{t:.3}"), format!("{:.3}", t / ours))
            }
            None => {
                missing.push(case.name);
                ("MISSING".into(), "-".into())
            }
        };
        println!(
            "| {:<34} | {:>8.3} | {:>7.1} | {:>8} | {:>10} |",
            case.name,
            ours,
            tflops(case.m, case.n, case.k, ours),
            t,
            ratio
        );
    }
    if !missing.is_empty() {
        return Err(format!("the torch baseline has no row for {}", missing.join(", ")).into());
    }

    let blas = Blas::new(&stream)?;
    let module = Module::compile(&dev, KERNELS)?;
    println!();
    println!("bf16: fused (LtHandle::matmul) vs hipblas GEMM + bias kernel + GELU kernel:");
    println!(
        "| {:<22} | {:>8} | {:>10} | {:>13} |",
        "m x n x k", "fused ms", "unfused ms", "unfused/fused"
    );
    println!("|{:-<24}|{:->10}|{:->12}|{:->15}|", "", "", "", "");
    let mut lowest_fused = f64::INFINITY;
    for (m, n, k) in UNFUSED_CASES {
        let name = format!("bf16 {m}x{n}x{k}");
        let f = fused::<bf16>(&name, &dev, &stream, &mut lt, (m, n, k))?;
        let u = unfused(&dev, &stream, &blas, &module, (m, n, k))?;
        lowest_fused = lowest_fused.min(u / f);
        println!(
            "| {:<22} | {:>8.3} | {:>10.3} | {:>13.3} |",
            format!("{m}x{n}x{k}"),
            f,
            u,
            u / f
        );
    }
    println!();
    Ok((lowest_torch, lowest_fused))
}
