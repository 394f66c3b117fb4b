//! GPU sparse benchmark: hipSPARSE (cuSPARSE on NVIDIA) SpMV and SpMM on a
//! CSR f32 matrix against `torch.sparse` CSR measured in the same run, on
//! the same matrix (benches/torch_sparse.py builds it from the same
//! formula):
//!
//! - `spmv_csr_f32_4194304_nnz16`: `y = A x`, A square of 2^22 rows with 16
//!   entries per row (`torch.mv`);
//! - `spmm_csr_f32_1048576_nnz16_n64`: `C = A B`, A square of 2^20 rows
//!   with 16 entries per row, B and C dense row-major with 64 columns
//!   (`torch.mm`, torch's default strided layout).
//!
//! The matrix: row `i` has, for `k` in 0..16, the column
//! `k * (n / 16) + ((i * 2654435761 + k * 40503) mod (n / 16))` (one per
//! 16th of the columns, so sorted and unique) with the value
//! `((7 i + 13 k) mod 19 + 1) / 16`; `x_j` (and `B`'s entries) are
//! `(j mod 13 + 1) / 8` over the flat index. 32-bit indices on both sides.
//!
//! ```text
//! python3 benches/torch_sparse.py > torch_sparse.txt    # the baseline
//! HIP_PLATFORM=nvidia sparse_bench torch_sparse.txt     # prints the table
//! ```
//!
//! Each case: 5 warm-up calls and the median of 50 timed ones, each between
//! a pair of HIP events on the handle's stream; a call is what a user
//! makes (`Sparse::spmv`/`spmm`: descriptors, the buffer-size query, the
//! cached work buffer, the library call). torch_sparse.py does the same
//! with CUDA events and `out=` tensors allocated once. "GB/s" is the
//! equivalent bandwidth of reading the matrix (8 bytes per entry, 4 per
//! row offset) and the dense operands once and writing the output once.
//! The ratio is torch's time over ours (>= 1: we are as fast); the target
//! is >= 0.95.
//!
//! Before timing, sampled rows of one result are checked against the CPU
//! (in f64; relative error below 1e-5).
//!
//! It fails (status 1, saying why) when it cannot measure or compare: no
//! GPU or no sparse library, no baseline file, a file that cannot be read
//! or has no row for a case, or a result that fails the check.

use hip::Stream;
use hip_benches::{event_median_ms, single_value, torch_baseline_main};
use hipsparse::{Csr, DenseLayout, IndexBase, Operation, Sparse};
use std::collections::HashMap;
use std::process::ExitCode;

const WARMUP: usize = 5;
const REPEATS: usize = 50;
/// The ratio torch_time / our_time the summary line compares with.
const TARGET: f64 = 0.95;
/// Entries per row.
const PER_ROW: usize = 16;

const SPMV: &str = "spmv_csr_f32_4194304_nnz16";
const SPMV_N: usize = 1 << 22;
const SPMM: &str = "spmm_csr_f32_1048576_nnz16_n64";
const SPMM_N: usize = 1 << 20;
const SPMM_COLS: usize = 64;

fn main() -> ExitCode {
    torch_baseline_main("sparse_bench", "torch_sparse.py", read_torch, |torch| {
        let lowest = run(torch)?;
        println!(
            "sparse_bench: lowest ratio {lowest:.2}; target >= {TARGET}: {}",
            single_value(lowest, TARGET)
        );
        Ok(())
    })
}

/// torch_sparse.py's output: one line `case milliseconds` per case.
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
            "the torch baseline {path} holds no `case milliseconds` rows (did torch_sparse.py fail?)"
        )
        .into());
    }
    Ok(out)
}

/// The benchmark matrix of `n` rows (module doc): offsets, columns, values.
fn matrix(n: usize) -> (Vec<i32>, Vec<i32>, Vec<f32>) {
    let block = (n / PER_ROW) as u64;
    let mut cols = Vec::with_capacity(n * PER_ROW);
    let mut vals = Vec::with_capacity(n * PER_ROW);
    for i in 0..n as u64 {
        for k in 0..PER_ROW as u64 {
            let jitter = (i.wrapping_mul(2_654_435_761) + k * 40_503) % block;
            cols.push((k * block + jitter) as i32);
            vals.push(((7 * i + 13 * k) % 19 + 1) as f32 / 16.0);
        }
    }
    let offsets = (0..=n).map(|i| (i * PER_ROW) as i32).collect();
    (offsets, cols, vals)
}

/// `(j mod 13 + 1) / 8` for each flat index `j`.
fn dense_values(len: usize) -> Vec<f32> {
    (0..len).map(|j| (j % 13 + 1) as f32 / 8.0).collect()
}

/// Row `i` of `A * D` for a row-major `D` with `width` columns, in f64.
fn row_product(
    (offsets, cols, vals): &(Vec<i32>, Vec<i32>, Vec<f32>),
    d: &[f32],
    width: usize,
    i: usize,
) -> Vec<f64> {
    let mut out = vec![0.0; width];
    for k in offsets[i] as usize..offsets[i + 1] as usize {
        for (c, o) in out.iter_mut().enumerate() {
            *o += f64::from(vals[k]) * f64::from(d[cols[k] as usize * width + c]);
        }
    }
    out
}

fn check_rows(
    case: &str,
    a: &(Vec<i32>, Vec<i32>, Vec<f32>),
    d: &[f32],
    width: usize,
    got: &[f32],
) -> Result<(), String> {
    let n = a.0.len() - 1;
    for i in [0, 1, n / 3, n - 1] {
        let want = row_product(a, d, width, i);
        for (c, w) in want.iter().enumerate() {
            let g = f64::from(got[i * width + c]);
            if (g - w).abs() > 1e-5 * w.abs().max(1.0) {
                return Err(format!(
                    "{case}: row {i} column {c} is {g}, the CPU gives {w}"
                ));
            }
        }
    }
    Ok(())
}

/// Measures both cases, prints the table, and returns the lowest ratio.
fn run(torch: &HashMap<String, f64>) -> Result<f64, Box<dyn std::error::Error>> {
    let dev = hip_benches::gpu()?;
    let stream = Stream::new(&dev)?;
    let lib = hipsparse::result::library().map_err(|e| format!("cannot measure: {e}"))?;
    println!(
        "device: {}; sparse: {} {}; {WARMUP} warm-up + median of {REPEATS} timed calls (HIP events)",
        dev.name()?,
        lib.libraries[0].path.display(),
        lib.version.map(|v| v.to_string()).unwrap_or_default(),
    );
    let sparse = Sparse::new(&stream)?;
    let mut rows = Vec::new();

    // SpMV.
    let a = matrix(SPMV_N);
    let bytes = (a.1.len() * 8 + a.0.len() * 4 + 2 * SPMV_N * 4) as f64;
    let da = Csr::from_host(&stream, SPMV_N, SPMV_N, &a.0, &a.1, &a.2, IndexBase::Zero)?;
    let x = dense_values(SPMV_N);
    let dx = stream.clone_htod(&x)?;
    let mut dy = stream.alloc_zeroed::<f32>(SPMV_N)?;
    sparse.spmv(Operation::NonTranspose, 1.0, &da, &dx, 0.0, &mut dy)?;
    check_rows(SPMV, &a, &x, 1, &stream.clone_dtoh(&dy)?)?;
    let ms = event_median_ms(&stream, WARMUP, REPEATS, 1, || {
        sparse.spmv(Operation::NonTranspose, 1.0, &da, &dx, 0.0, &mut dy)
    })?;
    rows.push((SPMV, ms, bytes));
    drop((da, dx, dy, a));

    // SpMM, row-major B and C.
    let a = matrix(SPMM_N);
    let bytes = (a.1.len() * 8 + a.0.len() * 4 + 2 * SPMM_N * SPMM_COLS * 4) as f64;
    let da = Csr::from_host(&stream, SPMM_N, SPMM_N, &a.0, &a.1, &a.2, IndexBase::Zero)?;
    let b = dense_values(SPMM_N * SPMM_COLS);
    let db = stream.clone_htod(&b)?;
    let mut dc = stream.alloc_zeroed::<f32>(SPMM_N * SPMM_COLS)?;
    let layout = DenseLayout::row_major(SPMM_N, SPMM_COLS);
    sparse.spmm(
        Operation::NonTranspose,
        1.0,
        &da,
        (layout, &db),
        0.0,
        (layout, &mut dc),
    )?;
    check_rows(SPMM, &a, &b, SPMM_COLS, &stream.clone_dtoh(&dc)?)?;
    let ms = event_median_ms(&stream, WARMUP, REPEATS, 1, || {
        sparse.spmm(
            Operation::NonTranspose,
            1.0,
            &da,
            (layout, &db),
            0.0,
            (layout, &mut dc),
        )
    })?;
    rows.push((SPMM, ms, bytes));

    println!();
    println!(
        "| {:<32} | {:>9} | {:>9} | {:>9} | {:>10} | {:>11} |",
        "case", "ours ms", "ours GB/s", "torch ms", "torch GB/s", "torch/ours"
    );
    println!(
        "|{:-<34}|{:->11}|{:->11}|{:->11}|{:->12}|{:->13}|",
        "", "", "", "", "", ""
    );
    let mut lowest = f64::INFINITY;
    let mut missing = Vec::new();
    for (name, ours, bytes) in rows {
        let gbps = |ms: f64| bytes / (ms * 1e-3) / 1e9;
        let (t_ms, t_gbps, ratio) = match torch.get(name) {
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
                missing.push(name);
                ("MISSING".into(), "-".into(), "-".into())
            }
        };
        println!(
            "| {:<32} | {:>9.3} | {:>9.0} | {:>9} | {:>10} | {:>11} |",
            name,
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
