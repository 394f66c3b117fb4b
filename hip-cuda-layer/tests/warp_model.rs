//! The layer's CUDA warp functions (`include/hiprs_cuda_warp.h`) against
//! CUDA's documented semantics, on the host, with no AMD GPU: the C++
//! harness `tests/warp/model.cpp` compiles the header over a lane-by-lane
//! model of the HIP device functions it calls (wavefronts of 32 and 64
//! lanes, partially active ones included) and checks every lane's result.
//! Here it is compiled with the C++ compiler (`$CXX`, else `c++`), for each
//! wave size and each model of HIP's shuffles, and run; a missing compiler
//! fails the tests.
//!
//! The number of checks each function gets is fixed below, so a harness
//! that checks less fails too; and a model broken on purpose
//! (`--mutate=...`) must report mismatches, so the harness can fail.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// Checks per function, wave32: the harness's plan.
const CHECKS_WAVE32: &[(&str, u64)] = &[
    ("__activemask", 133),
    ("__all_sync", 3724),
    ("__any_sync", 3724),
    ("__ballot_sync", 3724),
    ("__reduce_add_sync", 5320),
    ("__reduce_and_sync", 2660),
    ("__reduce_max_sync", 5320),
    ("__reduce_min_sync", 5320),
    ("__reduce_or_sync", 2660),
    ("__reduce_xor_sync", 2660),
    ("__shfl_down_sync", 166_842),
    ("__shfl_sync", 189_432),
    ("__shfl_up_sync", 172_602),
    ("__shfl_xor_sync", 157_329),
    ("__syncwarp", 798),
];

/// Checks per function, wave64.
const CHECKS_WAVE64: &[(&str, u64)] = &[
    ("__activemask", 281),
    ("__all_sync", 7868),
    ("__any_sync", 7868),
    ("__ballot_sync", 7868),
    ("__reduce_add_sync", 11240),
    ("__reduce_and_sync", 5620),
    ("__reduce_max_sync", 11240),
    ("__reduce_min_sync", 11240),
    ("__reduce_or_sync", 5620),
    ("__reduce_xor_sync", 5620),
    ("__shfl_down_sync", 355_419),
    ("__shfl_sync", 408_924),
    ("__shfl_up_sync", 361_899),
    ("__shfl_xor_sync", 336_015),
    ("__syncwarp", 1686),
];

const SHUFFLES: &[&str] = &[
    "__shfl_sync",
    "__shfl_xor_sync",
    "__shfl_up_sync",
    "__shfl_down_sync",
];
const TYPES: &[&str] = &[
    "int",
    "unsigned",
    "long_long",
    "unsigned_long_long",
    "float",
    "double",
    "short",
    "h16",
    "h16x2",
];
const WIDTHS: &[&str] = &["1", "2", "4", "8", "16", "32", "default"];

/// Which HIP device functions the layer is compiled over.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Hip {
    /// ROCm 5.2 to 5.6, written out in the harness.
    Rocm52,
    /// ROCm 5.7 and later, written out in the harness.
    Rocm57,
    /// HIP's own `amd_warp_functions.h`, from this include folder.
    Headers(PathBuf),
}

impl Hip {
    fn define(&self) -> &'static str {
        match self {
            Hip::Headers(_) => "0",
            Hip::Rocm52 => "1",
            Hip::Rocm57 => "2",
        }
    }

    fn folder(&self) -> String {
        match self {
            Hip::Rocm52 => "rocm-5.2".into(),
            Hip::Rocm57 => "rocm-5.7".into(),
            Hip::Headers(root) => {
                let name: String = root
                    .to_string_lossy()
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                    .collect();
                format!("headers{name}")
            }
        }
    }
}

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The C++ compiler: `$CXX` (a program and its arguments), else `c++`.
fn cxx() -> Vec<String> {
    let words: Vec<String> = std::env::var("CXX")
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    if words.is_empty() {
        vec!["c++".into()]
    } else {
        words
    }
}

/// Compiles the harness for `hip` and `wave` (once per test process) and
/// returns the program.
fn harness(hip: &Hip, wave: u32) -> PathBuf {
    type Built = Arc<OnceLock<Result<PathBuf, String>>>;
    static BUILT: OnceLock<Mutex<BTreeMap<(Hip, u32), Built>>> = OnceLock::new();
    let cell = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry((hip.clone(), wave))
        .or_default()
        .clone();
    cell.get_or_init(|| compile(hip, wave))
        .clone()
        .unwrap_or_else(|e| panic!("{e}"))
}

fn compile(hip: &Hip, wave: u32) -> Result<PathBuf, String> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("warp-model")
        .join(hip.folder());
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    let exe = dir.join(format!("model-wave{wave}"));
    // Written beside and renamed, so that two test processes never run a
    // half-written program.
    let partial = dir.join(format!("model-wave{wave}.{}", std::process::id()));
    let cxx = cxx();
    let mut cmd = Command::new(&cxx[0]);
    cmd.args(&cxx[1..])
        .args(["-std=c++17", "-O1", "-Wall", "-Wextra"])
        .arg(format!("-DHIPRS_MODEL_WAVE={wave}"))
        .arg(format!("-DHIPRS_MODEL_HIP={}", hip.define()))
        .arg("-I")
        .arg(crate_dir().join("include"));
    if let Hip::Headers(root) = hip {
        cmd.arg("-I").arg(root);
    }
    cmd.arg(crate_dir().join("tests/warp/model.cpp"))
        .arg("-o")
        .arg(&partial);
    let out = cmd.output().map_err(|e| {
        format!(
            "cannot run the C++ compiler `{}` ({e}): the warp model needs one (C++17; \
             set CXX, or install g++)",
            cxx.join(" ")
        )
    })?;
    if !out.status.success() {
        return Err(format!(
            "{:?} failed ({}):\n{}{}",
            cmd,
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    std::fs::rename(&partial, &exe).map_err(|e| format!("renaming {}: {e}", partial.display()))?;
    Ok(exe)
}

/// What a run of the harness printed.
#[derive(Debug)]
struct Report {
    success: bool,
    stdout: String,
    total: u64,
    mismatches: u64,
    model_errors: u64,
    /// Per function: checks, mismatches, and the lanes checked (a bit per
    /// lane).
    functions: BTreeMap<String, (u64, u64, u64)>,
    /// Checks per "function type width".
    combos: BTreeMap<String, u64>,
}

impl Report {
    /// The harness's output, its mismatches first, cut to a readable size.
    fn excerpt(&self) -> String {
        let lines: Vec<&str> = self.stdout.lines().collect();
        let mut shown: Vec<&str> = lines
            .iter()
            .copied()
            .filter(|l| !l.starts_with("combo "))
            .take(150)
            .collect();
        if let Some(last) = lines.last() {
            if shown.last() != Some(last) {
                shown.push("...");
                shown.push(last);
            }
        }
        shown.join("\n")
    }
}

fn run(exe: &Path, args: &[&str]) -> Report {
    let out = Command::new(exe)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut report = Report {
        success: out.status.success(),
        stdout: stdout.clone(),
        total: 0,
        mismatches: 0,
        model_errors: 0,
        functions: BTreeMap::new(),
        combos: BTreeMap::new(),
    };
    let number = |s: &str| -> u64 {
        s.parse()
            .unwrap_or_else(|_| panic!("a number, not {s:?}:\n{stdout}"))
    };
    let mut saw_total = false;
    for line in stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["total", "checks", n, "mismatches", m, "model-errors", e] => {
                report.total = number(n);
                report.mismatches = number(m);
                report.model_errors = number(e);
                saw_total = true;
            }
            ["function", name, "checks", n, "mismatches", m, "lanes", lanes] => {
                let lanes = u64::from_str_radix(lanes, 16)
                    .unwrap_or_else(|_| panic!("lanes in hex, not {lanes:?}"));
                report
                    .functions
                    .insert((*name).to_owned(), (number(n), number(m), lanes));
            }
            ["combo", function, ty, width, "checks", n] => {
                report
                    .combos
                    .insert(format!("{function} {ty} {width}"), number(n));
            }
            _ => {}
        }
    }
    assert!(
        saw_total,
        "{} printed no total line (status {}):\n{stdout}{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    report
}

/// The harness for `hip` passes at both wave sizes (compiled and run side
/// by side), with every check of its plan made.
fn passes(hip: &Hip) {
    std::thread::scope(|s| {
        let waves = [32u32, 64].map(|wave| s.spawn(move || passes_at(hip, wave)));
        for w in waves {
            if let Err(panic) = w.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

fn passes_at(hip: &Hip, wave: u32) {
    let report = run(&harness(hip, wave), &[]);
    let what = format!("{hip:?}, wave{wave}");
    assert!(
        report.success && report.mismatches == 0 && report.model_errors == 0,
        "{what}: the layer does not match CUDA:\n{}",
        report.excerpt()
    );
    let want = if wave == 32 {
        CHECKS_WAVE32
    } else {
        CHECKS_WAVE64
    };
    let every_lane = if wave == 32 { 0xffff_ffff } else { u64::MAX };
    let got: Vec<(&str, u64)> = report
        .functions
        .iter()
        .map(|(f, (n, _, _))| (f.as_str(), *n))
        .collect();
    assert_eq!(got, want, "{what}: checks per function");
    for (function, (_, _, lanes)) in &report.functions {
        assert_eq!(
            *lanes, every_lane,
            "{what}: {function} was not checked on every lane"
        );
    }
    assert_eq!(
        report.total,
        want.iter().map(|(_, n)| n).sum::<u64>(),
        "{what}: total"
    );
    for function in SHUFFLES {
        for ty in TYPES {
            for width in WIDTHS {
                let key = format!("{function} {ty} {width}");
                let n = report.combos.get(&key).copied().unwrap_or(0);
                assert!(n > 0, "{what}: no checks of {key}");
            }
        }
    }
}

/// HIP's shuffles as ROCm 5.7 and later define them.
#[test]
fn matches_cuda_over_rocm_5_7_and_later() {
    passes(&Hip::Rocm57);
}

/// HIP's shuffles as ROCm 5.2 to 5.6 define them: `__shfl` does not reduce
/// `src_lane` modulo `width` there, which the layer makes up for.
#[test]
fn matches_cuda_over_rocm_5_2_to_5_6() {
    passes(&Hip::Rocm52);
}

/// HIP's own headers where this machine has them (`$HIPRS_WARP_MODEL_HIP`,
/// folders separated by `:`, then ROCm's usual places and the workspace's
/// `build.rs-tools/rocm-headers`): the written-out models above must agree
/// with the real ones. None found is not a failure: the models above
/// still ran.
#[test]
fn matches_cuda_over_the_hip_headers_found() {
    let mut roots: Vec<PathBuf> = std::env::var_os("HIPRS_WARP_MODEL_HIP")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    for var in ["ROCM_PATH", "HIP_PATH"] {
        if let Some(p) = std::env::var_os(var) {
            roots.push(PathBuf::from(p).join("include"));
        }
    }
    roots.push("/opt/rocm/include".into());
    roots.push("/usr/include".into());
    roots.push(crate_dir().join("../build.rs-tools/rocm-headers/usr/include"));
    let mut seen = Vec::new();
    for root in roots {
        let header = root.join("hip/amd_detail/amd_warp_functions.h");
        if !header.is_file() || !root.join("hip/hip_version.h").is_file() {
            continue;
        }
        let Ok(canonical) = root.canonicalize() else {
            continue;
        };
        if seen.contains(&canonical) {
            continue;
        }
        eprintln!("warp model over {}", header.display());
        seen.push(canonical);
    }
    std::thread::scope(|s| {
        let runs: Vec<_> = seen
            .iter()
            .map(|root| s.spawn(move || passes(&Hip::Headers(root.clone()))))
            .collect();
        for r in runs {
            if let Err(panic) = r.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
    if seen.is_empty() {
        eprintln!("no HIP headers found: only the written-out models ran");
    }
}

/// Each way of breaking the model or the reference is caught, at both wave
/// sizes: the harness can fail.
#[test]
fn a_broken_model_or_reference_is_caught() {
    // The mutation, and a function whose checks must then fail.
    let mutations = [
        ("bpermute", "__shfl_sync"),
        ("mbcnt", "__shfl_xor_sync"),
        ("ballot", "__ballot_sync"),
        ("barrier", "__syncwarp"),
        ("reference", "__shfl_up_sync"),
    ];
    std::thread::scope(|s| {
        let waves = [32u32, 64].map(|wave| {
            s.spawn(move || {
                let exe = harness(&Hip::Rocm57, wave);
                for (mutation, function) in mutations {
                    let report = run(&exe, &["--quick", &format!("--mutate={mutation}")]);
                    assert!(
                        !report.success && report.mismatches > 0,
                        "wave{wave}: --mutate={mutation} went unnoticed:\n{}",
                        report.excerpt()
                    );
                    let failed = report.functions.get(function).map_or(0, |f| f.1);
                    assert!(
                        failed > 0,
                        "wave{wave}: --mutate={mutation} did not fail {function}:\n{}",
                        report.excerpt()
                    );
                }
            })
        });
        for w in waves {
            if let Err(panic) = w.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}
