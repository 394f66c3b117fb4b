//! The nvrtc corpus of `cuda-compat/tests/tier2_nvrtc_corpus.rs` executed:
//! every kernel of the own corpus (`cuda-compat/tests/nvrtc_corpus/own`,
//! templates as `MANIFEST.txt` instantiates them) and of cudarc 0.19.10's
//! examples, compiled by ROCm's clang with hip-cuda-layer force-included
//! (as `tests/warp.rs` compiles CUDA source) for gfx942 (wave64) and
//! gfx1100 (wave32), run on the interpreter on fixed-seed inputs, and
//! every output element compared with a reference computed here.
//!
//! Each kernel's spec (`corpus/own.rs`, `corpus/cudarc.rs`) states its
//! tolerance and why: exact for integers and for what IEEE rounds exactly
//! (inputs of reductions are chosen so every order of summation is
//! exact), a few ulp where a device library approximates (expf, erff,
//! tanhf, sinf, powf, rsqrtf), one rounding for f16/bf16/fp8 results.
//! A kernel without a spec, a spec without a kernel, and a kernel that
//! cannot run but is not in [`CANNOT_RUN`] all fail the test.

#[path = "corpus/build.rs"]
mod build;
#[path = "corpus/check.rs"]
mod check;
mod common;
#[path = "corpus/cudarc.rs"]
mod cudarc;
#[path = "corpus/own.rs"]
mod own;

use build::Program;
use check::Ctx;
use common::launch::Loaded;
use hip_emu::isa::{LaunchError, Target};
use std::collections::BTreeSet;

/// One kernel's check: its program (the file name within its group), its
/// symbol, and what runs it and compares.
pub(crate) struct Spec {
    pub(crate) program: &'static str,
    pub(crate) kernel: &'static str,
    pub(crate) run: fn(&mut Ctx<'_>) -> Result<(), LaunchError>,
}

/// Kernels that cannot be run here, with the reason: each is still
/// launched and must fail (so an emulator that learns to run it fails
/// this test until the kernel gets a spec).
const CANNOT_RUN: &[(&str, &str, &str)] = &[];

/// Kernels of the own corpus: `MANIFEST.txt`'s lines.
const OWN_KERNELS: usize = 57;
/// Kernels of cudarc's examples: 6 programs of one kernel each.
const CUDARC_KERNELS: usize = 6;

/// The spec of `kernel` of `program`, from the group's table.
fn find<'a>(specs: &'a [Spec], program: &str, kernel: &str) -> Option<&'a Spec> {
    specs
        .iter()
        .find(|s| s.program == program && s.kernel == kernel)
}

/// Per target: kernels checked, elements checked, failures.
#[derive(Default)]
struct Tally {
    kernels: usize,
    checks: usize,
    failures: Vec<String>,
}

fn run_program(p: &Program, specs: &[Spec], group: &str, target: Target, t: &mut Tally) {
    let elf = build::Compiler::chosen().compile(p, target);
    let loaded_names: BTreeSet<String> = Loaded::new(&elf, target)
        .co
        .kernels()
        .iter()
        .map(|k| k.name.clone())
        .collect();
    if loaded_names != p.kernels {
        t.failures.push(format!(
            "{target} {}: the code object's kernels {loaded_names:?}, the corpus's {:?}",
            p.name, p.kernels
        ));
    }
    let file = p.name.strip_prefix(group).expect("a program of the group");
    for kernel in &p.kernels {
        if !selected(target, kernel) {
            continue;
        }
        let l = Loaded::new(&elf, target);
        if let Some((_, _, why)) = CANNOT_RUN
            .iter()
            .find(|(prog, k, _)| *prog == p.name && k == kernel)
        {
            let args: Vec<Vec<u8>> =
                l.co.kernel(kernel)
                    .expect("the kernel")
                    .explicit_args()
                    .map(|arg| vec![0u8; arg.size as usize])
                    .collect();
            let args: Vec<&[u8]> = args.iter().map(|v| v.as_slice()).collect();
            match l.launch(kernel, 1, 1, &args) {
                Ok(_) => t.failures.push(format!(
                    "{target} {} {kernel}: listed as unable to run ({why}) but ran: give it a spec",
                    p.name
                )),
                Err(e @ LaunchError::NoHostService { .. }) => println!(
                    "  {target} {} {kernel}: cannot run: {why}\n    ({e})",
                    p.name
                ),
                Err(e) => t.failures.push(format!(
                    "{target} {} {kernel}: listed as unable to run ({why}) but failed otherwise: {e}",
                    p.name
                )),
            }
            continue;
        }
        let Some(spec) = find(specs, file, kernel) else {
            t.failures
                .push(format!("{target} {} {kernel}: no spec", p.name));
            continue;
        };
        let mut cx = Ctx::new(&l, kernel);
        match (spec.run)(&mut cx) {
            Err(e) => t
                .failures
                .push(format!("{target} {} {kernel}: {e}", p.name)),
            Ok(()) if cx.checked == 0 => t
                .failures
                .push(format!("{target} {} {kernel}: nothing checked", p.name)),
            Ok(()) if cx.mismatches > 0 => t.failures.push(format!(
                "{target} {} {kernel}: {} of {} checks failed:\n    {}",
                p.name,
                cx.mismatches,
                cx.checked,
                cx.first.join("\n    ")
            )),
            Ok(()) => {
                t.kernels += 1;
                t.checks += cx.checked;
            }
        }
    }
}

/// The targets to run: both, or `HIP_EMU_CORPUS_TARGETS` (a comma list,
/// as `scripts/emu-tier.sh` gives one device at a time); an unknown name
/// fails.
fn targets() -> Vec<Target> {
    match std::env::var("HIP_EMU_CORPUS_TARGETS") {
        Err(_) => Target::ALL.to_vec(),
        Ok(list) => list
            .split(',')
            .map(|n| {
                Target::ALL
                    .into_iter()
                    .find(|t| t.name() == n)
                    .unwrap_or_else(|| {
                        panic!("HIP_EMU_CORPUS_TARGETS: {n} is not an emulated target")
                    })
            })
            .collect(),
    }
}

/// `HIP_EMU_CORPUS_ONLY=TEXT` runs only the kernels whose target and
/// symbol (`gfx942 softplus`) contain TEXT, for a trace
/// (`HIP_EMU_TRACE=1`); the test then fails, having checked only a part.
fn selected(target: Target, kernel: &str) -> bool {
    std::env::var("HIP_EMU_CORPUS_ONLY")
        .map_or(true, |only| format!("{target} {kernel}").contains(&only))
}

#[test]
fn every_corpus_kernel_matches_the_host_on_both_targets() {
    let own = build::own_programs();
    let cudarc = build::cudarc_programs();
    let count = |ps: &[Program]| ps.iter().map(|p| p.kernels.len()).sum::<usize>();
    assert_eq!(count(&own), OWN_KERNELS, "MANIFEST.txt's kernels");
    assert_eq!(count(&cudarc), CUDARC_KERNELS, "cudarc's example kernels");

    // Every spec names a kernel of the corpus, and the table of kernels
    // that cannot run is exactly what it says.
    for (specs, programs, group) in [
        (own::SPECS, &own, "own/"),
        (cudarc::SPECS, &cudarc, "cudarc/"),
    ] {
        for s in specs {
            let name = format!("{group}{}", s.program);
            assert!(
                programs
                    .iter()
                    .any(|p| p.name == name && p.kernels.contains(s.kernel)),
                "a spec for {name} {}, which the corpus does not have",
                s.kernel
            );
        }
    }
    let runnable = OWN_KERNELS + CUDARC_KERNELS - CANNOT_RUN.len();
    assert_eq!(own::SPECS.len() + cudarc::SPECS.len(), runnable);

    let mut failures = Vec::new();
    for target in targets() {
        let mut t = Tally::default();
        for p in &own {
            run_program(p, own::SPECS, "own/", target, &mut t);
        }
        for p in &cudarc {
            run_program(p, cudarc::SPECS, "cudarc/", target, &mut t);
        }
        println!(
            "{target}: {} of {} kernels compiled by {}, executed and checked ({} own, {} of cudarc's examples; {} cannot run), {} elements compared",
            t.kernels,
            OWN_KERNELS + CUDARC_KERNELS,
            build::Compiler::chosen().name(),
            OWN_KERNELS,
            CUDARC_KERNELS,
            CANNOT_RUN.len(),
            t.checks
        );
        if let Ok(only) = std::env::var("HIP_EMU_CORPUS_ONLY") {
            t.failures.push(format!(
                "HIP_EMU_CORPUS_ONLY={only}: only a part of the corpus ran"
            ));
        } else if t.failures.is_empty() {
            assert_eq!(t.kernels, runnable, "{target}");
        }
        failures.extend(t.failures);
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
