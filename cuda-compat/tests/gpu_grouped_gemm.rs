//! Tier 3: cudarc's `GroupedGemm` (here one hipBLAS GEMM per problem) on a
//! real GPU: cudarc's own example (exact small integers), and groups of
//! random problems with transposes, padded leading dimensions and a
//! non-zero beta against an f64 CPU reference computed from the values the
//! GPU got (after rounding to f16/bf16): within `k x 2^-10` (f16 output
//! rounding plus f32 accumulation) relative to the largest value, and
//! `k x 2^-7` for bf16. Argument errors leave the outputs untouched. Run
//! with `--ignored` (`HIP_PLATFORM=nvidia` on an NVIDIA GPU).

#![cfg(feature = "f16")]

use cuda_compat::cublas::sys::cublasOperation_t as Op;
use cuda_compat::cublas::sys::cublasStatus_t;
use cuda_compat::cublas::{
    CublasError, CudaBlas, GroupedGemm, GroupedGemmConfig, GroupedGemmDtype,
};
use cuda_compat::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr};
use half::{bf16, f16};
use std::sync::Arc;
use test_kit::{random_nonzero, Trans};

fn setup() -> (Arc<CudaStream>, CudaBlas) {
    let _ = test_kit::device();
    let ctx = CudaContext::new(0).expect("a GPU");
    let stream = ctx.default_stream();
    let blas = CudaBlas::new(stream.clone()).expect("a cuBLAS handle");
    (stream, blas)
}

/// cudarc's own test: two 2x2 problems and one 3x3, exact in f16.
#[test]
#[ignore = "needs a GPU"]
fn cudarcs_example_is_exact() {
    let (stream, blas) = setup();
    let h = |v: &[f32]| v.iter().map(|x| f16::from_f32(*x)).collect::<Vec<_>>();
    let a = [
        h(&[1.0, 3.0, 2.0, 4.0]),
        h(&[5.0, 7.0, 6.0, 8.0]),
        h(&[1.0, 4.0, 7.0, 2.0, 5.0, 8.0, 3.0, 6.0, 9.0]),
    ];
    let b = [
        h(&[5.0, 7.0, 6.0, 8.0]),
        h(&[9.0, 11.0, 10.0, 12.0]),
        h(&[4.0, 7.0, 10.0, 5.0, 8.0, 11.0, 6.0, 9.0, 12.0]),
    ];
    let da: Vec<_> = a.iter().map(|x| stream.clone_htod(x).unwrap()).collect();
    let db: Vec<_> = b.iter().map(|x| stream.clone_htod(x).unwrap()).collect();
    let mut dc: Vec<CudaSlice<f16>> = [4, 4, 9]
        .iter()
        .map(|&n| stream.alloc_zeros(n).unwrap())
        .collect();
    let config = GroupedGemmConfig {
        transbs: vec![Op::CUBLAS_OP_N; 2],
        transas: vec![Op::CUBLAS_OP_N; 2],
        ms: vec![2, 3],
        ns: vec![2, 3],
        ks: vec![2, 3],
        alphas: vec![1.0; 2],
        betas: vec![0.0; 2],
        ldas: vec![2, 3],
        ldbs: vec![2, 3],
        ldcs: vec![2, 3],
        problem_sizes: vec![2, 1],
    };
    let a_refs: Vec<_> = da.iter().collect();
    let b_refs: Vec<_> = db.iter().collect();
    let mut c_refs: Vec<_> = dc.iter_mut().collect();
    // SAFETY: the slices hold f16s and do not overlap.
    unsafe { blas.grouped_gemm(config, &a_refs, &b_refs, &mut c_refs) }.unwrap();
    let got: Vec<Vec<f32>> = dc
        .iter()
        .map(|c| {
            stream
                .clone_dtoh(c)
                .unwrap()
                .iter()
                .map(|x| x.to_f32())
                .collect()
        })
        .collect();
    assert_eq!(got[0], [19.0, 43.0, 22.0, 50.0]);
    assert_eq!(got[1], [111.0, 151.0, 122.0, 166.0]);
    assert_eq!(
        got[2],
        [48.0, 111.0, 174.0, 54.0, 126.0, 198.0, 60.0, 141.0, 222.0]
    );
}

/// One group's shape.
struct GroupShape {
    ta: bool,
    tb: bool,
    m: usize,
    n: usize,
    k: usize,
    pad: usize,
    alpha: f32,
    beta: f32,
    problems: usize,
}

fn random_groups<T>(tol_per_k: f64, to: fn(f32) -> T, from: fn(T) -> f32)
where
    T: GroupedGemmDtype<ComputeType = f32> + DeviceRepr + Copy + Default + Unpin,
    CudaBlas: GroupedGemm<T>,
{
    let (stream, blas) = setup();
    let groups = [
        GroupShape {
            ta: false,
            tb: false,
            m: 33,
            n: 17,
            k: 64,
            pad: 0,
            alpha: 1.0,
            beta: 0.0,
            problems: 3,
        },
        GroupShape {
            ta: true,
            tb: false,
            m: 8,
            n: 40,
            k: 19,
            pad: 3,
            alpha: 0.5,
            beta: 2.0,
            problems: 1,
        },
        GroupShape {
            ta: false,
            tb: true,
            m: 1,
            n: 1,
            k: 1,
            pad: 1,
            alpha: -1.0,
            beta: 1.0,
            problems: 0,
        },
        GroupShape {
            ta: true,
            tb: true,
            m: 65,
            n: 9,
            k: 128,
            pad: 5,
            alpha: 1.5,
            beta: -0.5,
            problems: 2,
        },
    ];
    let op = |t: bool| if t { Op::CUBLAS_OP_T } else { Op::CUBLAS_OP_N };
    let tr = |t: bool| if t { Trans::T } else { Trans::N };
    let mut config = GroupedGemmConfig::<T> {
        transbs: vec![],
        transas: vec![],
        ms: vec![],
        ns: vec![],
        ks: vec![],
        alphas: vec![],
        betas: vec![],
        ldas: vec![],
        ldbs: vec![],
        ldcs: vec![],
        problem_sizes: vec![],
    };
    // Host data (rounded to T, as the GPU sees it) and the references.
    let (mut want, mut da, mut db, mut dc) = (vec![], vec![], vec![], vec![]);
    let mut tols = vec![];
    for g in &groups {
        let (ar, ac) = if g.ta { (g.k, g.m) } else { (g.m, g.k) };
        let (br, bc) = if g.tb { (g.n, g.k) } else { (g.k, g.n) };
        let (lda, ldb, ldc) = (ar + g.pad, br + g.pad, g.m + g.pad);
        config.transas.push(op(g.ta));
        config.transbs.push(op(g.tb));
        config.ms.push(g.m);
        config.ns.push(g.n);
        config.ks.push(g.k);
        config.alphas.push(g.alpha);
        config.betas.push(g.beta);
        config.ldas.push(lda);
        config.ldbs.push(ldb);
        config.ldcs.push(ldc);
        config.problem_sizes.push(g.problems);
        for _ in 0..g.problems {
            let mk = |n: usize| -> Vec<T> {
                random_nonzero(n, 0.5f32..2.0).into_iter().map(to).collect()
            };
            let (a, b, c) = (mk(lda * ac), mk(ldb * bc), mk(ldc * g.n));
            let f = |v: &[T]| v.iter().map(|x| f64::from(from(*x))).collect::<Vec<_>>();
            let r = test_kit::gemm_ref_real(
                (tr(g.ta), tr(g.tb)),
                (g.m, g.n, g.k),
                f64::from(g.alpha),
                (&f(&a), lda),
                (&f(&b), ldb),
                f64::from(g.beta),
                (&f(&c), ldc),
            );
            tols.push(tol_per_k * g.k as f64);
            da.push(stream.clone_htod(&a).unwrap());
            db.push(stream.clone_htod(&b).unwrap());
            dc.push(stream.clone_htod(&c).unwrap());
            want.push(r);
        }
    }
    let a_refs: Vec<_> = da.iter().collect();
    let b_refs: Vec<_> = db.iter().collect();
    let mut c_refs: Vec<_> = dc.iter_mut().collect();
    // SAFETY: the slices hold `T`s and do not overlap.
    unsafe { blas.grouped_gemm(config, &a_refs, &b_refs, &mut c_refs) }.unwrap();
    for (p, (c, want)) in dc.iter().zip(&want).enumerate() {
        let got: Vec<f64> = stream
            .clone_dtoh(c)
            .unwrap()
            .iter()
            .map(|x| f64::from(from(*x)))
            .collect();
        let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
        let worst = got
            .iter()
            .zip(want)
            .map(|(g, w)| (g - w).abs() / scale)
            .fold(0.0, f64::max);
        assert!(worst <= tols[p], "problem {p}: {worst} > {}", tols[p]);
    }
}

#[test]
#[ignore = "needs a GPU"]
fn f16_groups_match_the_cpu() {
    random_groups::<f16>(2f64.powi(-10), f16::from_f32, f16::to_f32);
}

#[test]
#[ignore = "needs a GPU"]
fn bf16_groups_match_the_cpu() {
    random_groups::<bf16>(2f64.powi(-7), bf16::from_f32, bf16::to_f32);
}

/// Each bad argument is `CUBLAS_STATUS_INVALID_VALUE`, and no problem runs
/// (C keeps its values) even when an earlier one was fine.
#[test]
#[ignore = "needs a GPU"]
fn bad_arguments_are_refused_before_any_gemm() {
    let (stream, blas) = setup();
    let one = f16::from_f32(1.0);
    let a = stream.clone_htod(&[one; 4]).unwrap();
    let short = stream.clone_htod(&[one; 3]).unwrap();
    let mut c0 = stream.clone_htod(&[one; 4]).unwrap();
    let mut c1 = stream.clone_htod(&[one; 4]).unwrap();
    let config = |problems| GroupedGemmConfig::<f16> {
        transbs: vec![Op::CUBLAS_OP_N],
        transas: vec![Op::CUBLAS_OP_N],
        ms: vec![2],
        ns: vec![2],
        ks: vec![2],
        alphas: vec![1.0],
        betas: vec![0.0],
        ldas: vec![2],
        ldbs: vec![2],
        ldcs: vec![2],
        problem_sizes: vec![problems],
    };
    let invalid = Err(CublasError(cublasStatus_t::CUBLAS_STATUS_INVALID_VALUE));
    // SAFETY: refused before any GEMM.
    unsafe {
        // Second problem's B is too short.
        assert_eq!(
            blas.grouped_gemm(config(2), &[&a, &a], &[&a, &short], &mut [&mut c0, &mut c1]),
            invalid
        );
        // Two problems, one set of slices.
        assert_eq!(
            blas.grouped_gemm(config(2), &[&a], &[&a], &mut [&mut c0]),
            invalid
        );
        // A per-group vector too short.
        let mut bad = config(1);
        bad.ldcs.clear();
        assert_eq!(
            blas.grouped_gemm(bad, &[&a], &[&a], &mut [&mut c0]),
            invalid
        );
        // A leading dimension below the rows.
        let mut bad = config(1);
        bad.ldas = vec![1];
        assert_eq!(
            blas.grouped_gemm(bad, &[&a], &[&a], &mut [&mut c0]),
            invalid
        );
    }
    for c in [&c0, &c1] {
        assert!(stream.clone_dtoh(c).unwrap().iter().all(|x| *x == one));
    }
    // And a good call changes C: 2 x 2 ones times ones is 2s.
    // SAFETY: the slices hold f16s and do not overlap.
    unsafe { blas.grouped_gemm(config(1), &[&a], &[&a], &mut [&mut c0]) }.unwrap();
    assert!(stream
        .clone_dtoh(&c0)
        .unwrap()
        .iter()
        .all(|x| x.to_f32() == 2.0));
}
