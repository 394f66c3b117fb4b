//! GPU FFT benchmark: hipFFT (cuFFT on NVIDIA) C2C f32 transforms against
//! `torch.fft` measured in the same run, on the same shapes:
//!
//! - 1D, 2^20 points, a batch of 64 (`torch.fft.fft` over the last axis of a
//!   64 x 2^20 tensor);
//! - 2D, 4096 x 4096 (`torch.fft.fft2`).
//!
//! ```text
//! python3 benches/torch_fft.py > torch_fft.txt    # the baseline
//! HIP_PLATFORM=nvidia fft_bench torch_fft.txt     # prints the table
//! ```
//!
//! Each case: the plan is made once (hipFFT allocates its work area), then
//! 5 warm-up executions and the median of 50 timed ones, each between a
//! pair of HIP events on the plan's stream; out of place, forward, inputs
//! random in [-1, 1) for both parts. torch_fft.py does the same with CUDA
//! events, `out=` tensors allocated once and cuFFT's plan cache warm.
//! "GB/s" is the equivalent bandwidth of reading the input and writing the
//! output once (2 x 8 bytes per complex64 point) in the median time. The
//! ratio is torch's time over ours (>= 1: we are as fast); the target is
//! >= 0.95.
//!
//! Before timing, one execution is checked on the CPU: a few sampled bins
//! of the first and last transform of the batch against a direct f64 DFT of
//! the same f32 inputs (the GPU tests check correctness in full; this only
//! proves the timed work is the transform asked for).
//!
//! It fails (status 1, saying why) when it cannot measure or compare: no
//! GPU or no FFT library, no baseline file, a file that cannot be read or
//! has no row for a case, or a result that fails the check.

use hip::{c32, Device, DeviceBuffer, Stream};
use hip_benches::{event_median_ms, signed_unit_noise, single_value, torch_baseline_main};
use hipfft::{PlanBuilder, Transform};
use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Arc;

const WARMUP: usize = 5;
const REPEATS: usize = 50;
/// The ratio torch_time / our_time the summary line compares with.
const TARGET: f64 = 0.95;

/// One benchmark case: its name in torch_fft.py's output, the transform's
/// sizes (outermost first) and the batch.
struct Case {
    name: &'static str,
    dims: &'static [usize],
    batch: usize,
}

const CASES: [Case; 2] = [
    Case {
        name: "c2c_f32_1d_1048576_batch64",
        dims: &[1 << 20],
        batch: 64,
    },
    Case {
        name: "c2c_f32_2d_4096x4096",
        dims: &[4096, 4096],
        batch: 1,
    },
];

fn main() -> ExitCode {
    torch_baseline_main("fft_bench", "torch_fft.py", read_torch, |torch| {
        let lowest = run(torch)?;
        println!(
            "fft_bench: lowest ratio {lowest:.2}; target >= {TARGET}: {}",
            single_value(lowest, TARGET)
        );
        Ok(())
    })
}

/// torch_fft.py's output: one line `case milliseconds` per case.
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
            "the torch baseline {path} holds no `case milliseconds` rows (did torch_fft.py fail?)"
        )
        .into());
    }
    Ok(out)
}

/// Measures every case, prints the table, and returns the lowest ratio.
fn run(torch: &HashMap<String, f64>) -> Result<f64, Box<dyn std::error::Error>> {
    let dev = hip_benches::gpu()?;
    let stream = Stream::new(&dev)?;
    let lib = hipfft::sys::loader::hipfft().map_err(|e| format!("cannot measure: {e}"))?;
    println!(
        "device: {}; FFT: {} {}; plan once, {WARMUP} warm-up + median of {REPEATS} timed executions (HIP events)",
        dev.name()?,
        lib.libraries[0].path.display(),
        lib.version.map(|v| v.to_string()).unwrap_or_default(),
    );
    println!();
    println!(
        "| {:<28} | {:>9} | {:>8} | {:>9} | {:>8} | {:>11} |",
        "case", "ours ms", "ours GB/s", "torch ms", "torch GB/s", "torch/ours"
    );
    println!(
        "|{:-<30}|{:->11}|{:->10}|{:->11}|{:->10}|{:->13}|",
        "", "", "", "", "", ""
    );
    let mut lowest = f64::INFINITY;
    let mut missing = Vec::new();
    for case in &CASES {
        let ours = bench_case(&dev, &stream, case)?;
        let points: usize = case.dims.iter().product::<usize>() * case.batch;
        let gbps = |ms: f64| (2 * points * 8) as f64 / (ms * 1e-3) / 1e9;
        let (t_ms, t_gbps, ratio) = match torch.get(case.name) {
            Some(&t) => {
                let r = t / ours;
                lowest = lowest.min(r);
                (
                    format!("{t:.3}"),
                    format!("{:.0}", gbps(t)),
                    format!("{r:.3}"),
                )
            }
            None => {
                missing.push(case.name);
                ("MISSING".into(), "-".into(), "-".into())
            }
        };
        println!(
            "| {:<28} | {:>9.3} | {:>9.0} | {:>9} | {:>10} | {:>11} |",
            case.name,
            ours,
            gbps(ours),
            t_ms,
            t_gbps,
            ratio
        );
    }
    if !missing.is_empty() {
        return Err(format!("the torch baseline has no row for {}", missing.join(", ")).into());
    }
    Ok(lowest)
}

/// Plans, checks and times one case; the median time of one execution in
/// milliseconds.
fn bench_case(
    dev: &Arc<Device>,
    stream: &Stream,
    case: &Case,
) -> Result<f64, Box<dyn std::error::Error>> {
    let n: usize = case.dims.iter().product();
    let len = n * case.batch;
    let mut noise = signed_unit_noise(len as u64);
    let x: Vec<c32> = (0..len)
        .map(|_| {
            let re = noise.next().unwrap_or(0.5) as f32;
            let im = noise.next().unwrap_or(0.5) as f32;
            c32::new(re, im)
        })
        .collect();
    let mut input = DeviceBuffer::uninit(dev, x.len())?;
    stream.copy_htod(&x, &mut input)?;
    let mut output = DeviceBuffer::<c32>::zeroed(dev, len)?;
    let plan = PlanBuilder::<f32>::new(Transform::C2C, case.dims)
        .batch(case.batch)
        .build(stream)?;
    plan.execute_forward(&input, &mut output)?;
    stream.synchronize()?;
    let mut checked = vec![0, case.batch - 1];
    checked.dedup();
    for b in checked {
        let got = stream.clone_dtoh(&output.slice(b * n..(b + 1) * n)?)?;
        check_transform(case, &x[b * n..(b + 1) * n], &got)
            .map_err(|e| format!("{} (transform {b} of the batch): {e}", case.name))?;
    }
    event_median_ms(stream, WARMUP, REPEATS, 1, || {
        plan.execute_forward(&input, &mut output)
    })
}

/// Compares sampled bins of one transform's output `got` with a direct f64
/// DFT of its input `x`. The bound is the usual one for an FFT's rounding:
/// the error vector's L2 norm is at most `C * log2(N) * eps_f32 * ||X||_2`
/// (`||X||_2 = sqrt(N) * ||x||_2`, unnormalised), with C = 5, and one bin's
/// error is at most that norm. Wrong work (a zero, stale or permuted output)
/// misses it: a bin is about `||x||_2` in size, the bound is a few percent
/// of that here (1.2% at N = 2^20, 5.8% at 2^24).
fn check_transform(case: &Case, x: &[c32], got: &[c32]) -> Result<(), String> {
    if let Some(i) = got
        .iter()
        .position(|v| !(v.re.is_finite() && v.im.is_finite()))
    {
        return Err(format!("output {i} is not finite: {:?}", got[i]));
    }
    let n = x.len();
    let norm_x = x
        .iter()
        .map(|v| f64::from(v.re).powi(2) + f64::from(v.im).powi(2))
        .sum::<f64>()
        .sqrt();
    let bound = 5.0 * (n as f64).log2() * f64::from(f32::EPSILON) * (n as f64).sqrt() * norm_x;
    // Bins: DC, the first, one in the middle of each axis, the last.
    let samples: Vec<Vec<usize>> = vec![
        case.dims.iter().map(|_| 0).collect(),
        case.dims.iter().map(|_| 1).collect(),
        case.dims.iter().map(|d| d / 3).collect(),
        case.dims.iter().map(|d| d - 1).collect(),
    ];
    for k in &samples {
        let (re, im) = dft_bin(x, case.dims, k);
        let flat = k.iter().zip(case.dims).fold(0, |acc, (k, d)| acc * d + k);
        let g = got[flat];
        let err = ((f64::from(g.re) - re).powi(2) + (f64::from(g.im) - im).powi(2)).sqrt();
        if err > bound {
            return Err(format!(
                "bin {k:?} is {g:?}, the CPU's DFT gives ({re}, {im}): error {err:.3e} > bound {bound:.3e}"
            ));
        }
    }
    Ok(())
}

/// One bin `k` (an index per axis) of the unnormalised forward DFT
/// (exponent -2πi) of the row-major array `x` of sizes `dims`, in f64.
fn dft_bin(x: &[c32], dims: &[usize], k: &[usize]) -> (f64, f64) {
    let twiddles: Vec<Vec<(f64, f64)>> = dims
        .iter()
        .map(|&n| {
            (0..n)
                .map(|m| {
                    let a = -2.0 * std::f64::consts::PI * m as f64 / n as f64;
                    (a.cos(), a.sin())
                })
                .collect()
        })
        .collect();
    let (mut re, mut im) = (0.0, 0.0);
    for (j, v) in x.iter().enumerate() {
        let mut rest = j;
        let mut w = (1.0, 0.0);
        for a in (0..dims.len()).rev() {
            let ja = rest % dims[a];
            rest /= dims[a];
            let t = twiddles[a][(k[a] * ja) % dims[a]];
            w = (w.0 * t.0 - w.1 * t.1, w.0 * t.1 + w.1 * t.0);
        }
        let (xr, xi) = (f64::from(v.re), f64::from(v.im));
        re += xr * w.0 - xi * w.1;
        im += xr * w.1 + xi * w.0;
    }
    (re, im)
}
