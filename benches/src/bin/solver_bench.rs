//! GPU dense-solver benchmark: hipSOLVER (cuSOLVER on NVIDIA) against
//! `torch.linalg` measured in the same run, on the same f32 matrices:
//!
//! - `cholesky_f32_4096`: `Solver::potrf` (lower) of a 4096 x 4096
//!   symmetric positive definite matrix, against `torch.linalg.cholesky`;
//! - `qr_f32_4096`: `Solver::geqrf` then `Solver::orgqr` (the reduced `Q`;
//!   `R` is in the factored matrix), against `torch.linalg.qr(mode="reduced")`;
//! - `svd_gesvdj_f32_1024`: `Solver::gesvdj` with thin vectors, against
//!   `torch.linalg.svd(full_matrices=False, driver="gesvdj")`;
//! - `svd_gesvd_f32_1024`: `Solver::gesvd` with thin vectors, against the
//!   same with `driver="gesvd"`.
//!
//! ```text
//! python3 benches/torch_linalg.py > torch_linalg.txt   # the baseline
//! HIP_PLATFORM=nvidia solver_bench torch_linalg.txt    # prints the table
//! ```
//!
//! The matrices are a(i, j) = (hash32(i * n + j) mod 2001 - 1000) / 1000,
//! computed alike by both programs; the Cholesky input is (a + aᵀ)/2 + n I.
//! Each timed call copies the input into the routine's buffer (device to
//! device, as torch copies its input into its output) and runs the routine,
//! whose workspace and outputs are allocated in stream order and whose
//! `info` is read back (torch checks `info` too for Cholesky and SVD):
//! 2 warm-up calls, then the median of 10 timed ones between HIP events.
//! The ratio is torch's time over ours (>= 1: we are as fast); the target is
//! >= 0.95.
//!
//! Before timing, one result of each case is checked on the CPU at sampled
//! entries against the input (the GPU tests check correctness in full; this
//! proves the timed work is the factorization asked for), within the
//! backward-error bounds of each algorithm (see `check_*`).
//!
//! It fails (status 1, saying why) when it cannot measure or compare: no
//! GPU or no solver library, no baseline file, a file that cannot be read
//! or has no row for a case, or a result that fails the check.

use hip::{DeviceBuffer, Stream};
use hip_benches::{event_median_ms, single_value, torch_baseline_main};
use hipsolver::{Layout, Solver, SvdVectors, Uplo};
use std::collections::HashMap;
use std::process::ExitCode;

const WARMUP: usize = 2;
const REPEATS: usize = 10;
/// The ratio torch_time / our_time the summary line compares with.
const TARGET: f64 = 0.95;
const EPS: f64 = f32::EPSILON as f64;

#[derive(Clone, Copy)]
enum Kind {
    Cholesky,
    Qr,
    Gesvdj,
    Gesvd,
}

const CASES: [(&str, Kind, usize); 4] = [
    ("cholesky_f32_4096", Kind::Cholesky, 4096),
    ("qr_f32_4096", Kind::Qr, 4096),
    ("svd_gesvdj_f32_1024", Kind::Gesvdj, 1024),
    ("svd_gesvd_f32_1024", Kind::Gesvd, 1024),
];

/// The 32-bit integer hash both programs use for the matrices.
fn hash32(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x045d_9f3b);
    x ^= x >> 16;
    x = x.wrapping_mul(0x045d_9f3b);
    x ^ (x >> 16)
}

/// a(i, j) of the `n` x `n` benchmark matrix.
fn entry(n: usize, i: usize, j: usize) -> f64 {
    (f64::from(hash32((i * n + j) as u32) % 2001) - 1000.0) / 1000.0
}

/// The input of `kind`, column-major, rounded to f32 as torch's is.
fn input(kind: Kind, n: usize) -> Vec<f32> {
    let mut a = vec![0f32; n * n];
    for j in 0..n {
        for i in 0..n {
            let v = match kind {
                Kind::Cholesky => {
                    (entry(n, i, j) + entry(n, j, i)) * 0.5 + if i == j { n as f64 } else { 0.0 }
                }
                _ => entry(n, i, j),
            };
            a[i + j * n] = v as f32;
        }
    }
    a
}

fn main() -> ExitCode {
    torch_baseline_main("solver_bench", "torch_linalg.py", read_torch, |torch| {
        let lowest = run(torch)?;
        println!(
            "solver_bench: lowest ratio {lowest:.2}; target >= {TARGET}: {}",
            single_value(lowest, TARGET)
        );
        Ok(())
    })
}

/// torch_linalg.py's output: one line `case milliseconds` per case.
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
            "the torch baseline {path} holds no `case milliseconds` rows (did torch_linalg.py fail?)"
        )
        .into());
    }
    Ok(out)
}

fn run(torch: &HashMap<String, f64>) -> Result<f64, Box<dyn std::error::Error>> {
    let dev = hip_benches::gpu()?;
    let stream = Stream::new(&dev)?;
    let lib = hipsolver::result::library()?;
    let solver = Solver::new(&stream)?;
    println!(
        "device: {}; solver: {}; {WARMUP} warm-up + median of {REPEATS} timed calls (HIP events), f32",
        dev.name()?,
        lib.libraries[0].path.display(),
    );
    println!();
    println!(
        "| {:<22} | {:>10} | {:>10} | {:>11} |",
        "case", "ours ms", "torch ms", "torch/ours"
    );
    println!("|{:-<24}|{:->12}|{:->12}|{:->13}|", "", "", "", "");
    let mut lowest = f64::INFINITY;
    let mut missing = Vec::new();
    for (name, kind, n) in CASES {
        let ours = bench_case(&solver, &stream, kind, n).map_err(|e| format!("{name}: {e}"))?;
        let (t_ms, ratio) = match torch.get(name) {
            Some(&t) => {
                let r = t / ours;
                lowest = lowest.min(r);
                (format!("{t:.3}"), format!("{r:.3}"))
            }
            None => {
                missing.push(name);
                ("MISSING".into(), "-".into())
            }
        };
        println!("| {name:<22} | {ours:>10.3} | {t_ms:>10} | {ratio:>11} |");
    }
    if !missing.is_empty() {
        return Err(format!("the torch baseline has no row for {}", missing.join(", ")).into());
    }
    Ok(lowest)
}

/// Checks one result, then times the case: the median milliseconds of one
/// call.
fn bench_case(
    solver: &Solver,
    stream: &Stream,
    kind: Kind,
    n: usize,
) -> Result<f64, Box<dyn std::error::Error>> {
    let host = input(kind, n);
    let a0 = stream.clone_htod(&host)?;
    let mut a: DeviceBuffer<f32> = stream.alloc(n * n)?;
    let layout = Layout::square(n);
    stream.copy_dtod(&a0, &mut a)?;
    match kind {
        Kind::Cholesky => {
            solver.potrf(Uplo::Lower, &mut a, layout)?;
            check_cholesky(&host, &stream.clone_dtoh(&a)?, n)?;
            event_median_ms(stream, WARMUP, REPEATS, 1, || {
                stream.copy_dtod(&a0, &mut a)?;
                solver.potrf(Uplo::Lower, &mut a, layout)
            })
        }
        Kind::Qr => {
            let tau = solver.geqrf(&mut a, layout)?;
            let r = stream.clone_dtoh(&a)?;
            solver.orgqr(&mut a, layout, &tau, n)?;
            check_qr(&host, &stream.clone_dtoh(&a)?, &r, n)?;
            event_median_ms(stream, WARMUP, REPEATS, 1, || {
                stream.copy_dtod(&a0, &mut a)?;
                let tau = solver.geqrf(&mut a, layout)?;
                solver.orgqr(&mut a, layout, &tau, n)
            })
        }
        Kind::Gesvdj | Kind::Gesvd => {
            let jacobi = matches!(kind, Kind::Gesvdj);
            let svd = |a: &mut DeviceBuffer<f32>| {
                if jacobi {
                    solver.gesvdj(a, layout, SvdVectors::Thin)
                } else {
                    solver.gesvd(a, layout, SvdVectors::Thin)
                }
            };
            let out = svd(&mut a)?;
            let (Some(u), Some(v)) = (&out.u, &out.v) else {
                return Err("no singular vectors were returned".into());
            };
            check_svd(
                &host,
                &stream.clone_dtoh(u)?,
                &stream.clone_dtoh(&out.s)?,
                &stream.clone_dtoh(v)?,
                n,
                jacobi,
            )?;
            event_median_ms(stream, WARMUP, REPEATS, 1, || {
                stream.copy_dtod(&a0, &mut a)?;
                svd(&mut a).map(|_| ())
            })
        }
    }
}

/// Sampled entries (i, j) of the matrices: corners, diagonal and a spread.
fn samples(n: usize) -> Vec<(usize, usize)> {
    let mut v = vec![(0, 0), (n - 1, n - 1), (n - 1, 0), (n / 2, n / 3)];
    for k in 1..12 {
        v.push(((k * 7919) % n, (k * 104_729) % n));
    }
    v
}

fn compare(what: &str, i: usize, j: usize, got: f64, want: f64, bound: f64) -> Result<(), String> {
    if (got - want).abs() <= bound {
        Ok(())
    } else {
        Err(format!(
            "{what}: entry ({i}, {j}) is {got:e}, the input {want:e}: off by {:e} > {bound:e}",
            (got - want).abs()
        ))
    }
}

/// (L Lᵀ)(i, j) against a(i, j), within Cholesky's componentwise backward
/// error `2 (n + 1) eps (|L| |Lᵀ|)(i, j)` (Higham, Thm. 10.3, doubled).
fn check_cholesky(a: &[f32], l: &[f32], n: usize) -> Result<(), String> {
    for (i, j) in samples(n) {
        let (mut sum, mut abs) = (0.0, 0.0);
        for k in 0..=i.min(j) {
            let p = f64::from(l[i + k * n]) * f64::from(l[j + k * n]);
            sum += p;
            abs += p.abs();
        }
        compare(
            "L Lᵀ",
            i,
            j,
            sum,
            f64::from(a[i + j * n]),
            2.0 * (n + 1) as f64 * EPS * abs,
        )?;
    }
    Ok(())
}

fn column_norm(a: &[f32], n: usize, j: usize) -> f64 {
    a[j * n..(j + 1) * n]
        .iter()
        .map(|&x| f64::from(x).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// (Q R)(i, j) against a(i, j), within `10 n eps ‖a_j‖` (Householder QR's
/// columnwise backward error, Higham Thm. 19.4), and ‖q_j‖ = 1.
fn check_qr(a: &[f32], q: &[f32], r: &[f32], n: usize) -> Result<(), String> {
    for (i, j) in samples(n) {
        let sum: f64 = (0..=j)
            .map(|k| f64::from(q[i + k * n]) * f64::from(r[k + j * n]))
            .sum();
        let bound = 10.0 * n as f64 * EPS * column_norm(a, n, j);
        compare("Q R", i, j, sum, f64::from(a[i + j * n]), bound)?;
        let norm = column_norm(q, n, j);
        if (norm - 1.0).abs() > 10.0 * n as f64 * EPS {
            return Err(format!("Q's column {j} has norm {norm}, not 1"));
        }
    }
    Ok(())
}

/// (U diag(s) Vᵀ)(i, j) against a(i, j), within `10 n eps ‖A‖_F` (the SVD
/// algorithms' normwise backward error); `v` is V (gesvdj) or Vᵀ (gesvd).
fn check_svd(
    a: &[f32],
    u: &[f32],
    s: &[f32],
    v: &[f32],
    n: usize,
    v_not_transposed: bool,
) -> Result<(), String> {
    let fro = a.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
    for w in s[..n].windows(2) {
        if w[0] < w[1] {
            return Err(format!(
                "singular values not descending: {} < {}",
                w[0], w[1]
            ));
        }
    }
    for (i, j) in samples(n) {
        let sum: f64 = (0..n)
            .map(|k| {
                let vjk = if v_not_transposed {
                    v[j + k * n]
                } else {
                    v[k + j * n]
                };
                f64::from(u[i + k * n]) * f64::from(s[k]) * f64::from(vjk)
            })
            .sum();
        compare(
            "U S Vᵀ",
            i,
            j,
            sum,
            f64::from(a[i + j * n]),
            10.0 * n as f64 * EPS * fro,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The values torch_linalg.py's `matrix` gives (computed with its
    /// formula): both programs factor the same matrices.
    #[test]
    fn the_matrices_are_torch_linalg_pys() {
        assert_eq!(entry(4096, 0, 0), -1.0);
        assert_eq!(entry(4096, 0, 1), 0.444);
        assert_eq!(entry(4096, 0, 2), 0.374);
        assert_eq!(entry(4096, 3, 57), -0.455); // 3 * 4096 + 57 = 12345
        assert_eq!(entry(4096, 4095, 4095), -0.346); // 16777215
        let spd = input(Kind::Cholesky, 7);
        assert_eq!(spd[1], spd[7], "symmetric");
        assert_eq!(spd[0], 6.0, "a(0, 0) = -1, plus n = 7 on the diagonal");
    }
}
