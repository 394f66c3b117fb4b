//! Where a plan's outputs come from: nvcc here, a job script for a machine
//! with nvcc, kernels that such a job built earlier, or (check-only)
//! placeholders that can never pass for kernels.

use crate::error::{Error, Result};
use crate::plan::{shell_quote, Arg, Plan, Step};
use crate::toolkit::CudaToolkit;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The file whose content, the plan's key, marks a finished build folder.
pub(crate) const KEY_FILE: &str = "KEY";
/// Link-time libraries a job copies from the toolkit (the CUDA runtime
/// that nvcc-compiled host code calls), beside the outputs.
pub(crate) const LINK_DIR: &str = "lib";

/// The first line of every placeholder PTX file: not PTX, so loading it
/// fails, and it says why.
pub(crate) const PLACEHOLDER_PTX: &str =
    "// cudaforge check-only build (CUDAFORGE_CHECK_ONLY): no kernel was compiled; this is not PTX\n";
/// The library a check-only build asks the linker for: it exists nowhere,
/// so linking such a build fails and names the reason.
pub(crate) const PLACEHOLDER_LINK_LIB: &str = "cudaforge-check-only-build-has-no-kernels";

/// Whether `dir` holds the finished outputs of `plan`.
pub(crate) fn is_complete(plan: &Plan, dir: &Path) -> Result<bool> {
    let key_path = dir.join(KEY_FILE);
    if !key_path.is_file() {
        return Ok(false);
    }
    let key = std::fs::read_to_string(&key_path)?;
    if key.trim() != plan.key {
        return Err(Error::CacheError(format!(
            "{} says {} but its folder is named for {}",
            key_path.display(),
            key.trim(),
            plan.key
        )));
    }
    match plan.products.iter().find(|p| !dir.join(p).is_file()) {
        Some(missing) => Err(Error::CacheError(format!(
            "{} has a key but lacks {missing}",
            dir.display()
        ))),
        None => Ok(true),
    }
}

/// Runs the plan with nvcc into `dir` (skipped when `dir` is complete).
pub(crate) fn run_here(
    plan: &Plan,
    toolkit: &CudaToolkit,
    dir: &Path,
    threads: usize,
) -> Result<()> {
    if is_complete(plan, dir)? {
        return Ok(());
    }
    std::fs::create_dir_all(dir.join("obj"))?;
    let ccbin = std::env::var("NVCC_CCBIN").ok();
    let command = |step: &Step| {
        let mut c = Command::new(&toolkit.nvcc_path);
        c.current_dir(&plan.root);
        if let (Some(cc), Some(_)) = (&ccbin, &step.source) {
            c.args(["-allow-unsupported-compiler", "-ccbin", cc]);
        }
        for a in &step.args {
            match a {
                Arg::Lit(s) => c.arg(s),
                Arg::Src(rel) => c.arg(rel),
                Arg::Out(f) => c.arg(dir.join(f)),
                Arg::Inc(i) => c.arg(format!("-I{}", plan.includes[*i].display())),
            };
        }
        c
    };
    let run = |step: &Step| -> Result<()> {
        let out = command(step)
            .output()
            .map_err(|e| Error::NvccNotFound(format!("{}: {e}", toolkit.nvcc_path.display())))?;
        if out.status.success() {
            return Ok(());
        }
        let message = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        Err(match &step.source {
            Some(src) => Error::CompilationFailed {
                path: plan.root.join(src),
                message,
            },
            None => Error::LinkingFailed(message),
        })
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Result<()>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.clamp(1, plan.compile.len()))
            .map(|_| {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    match plan.compile.get(i) {
                        Some(step) => run(step)?,
                        None => return Ok(()),
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("nvcc worker"))
            .collect()
    });
    results.into_iter().collect::<Result<()>>()?;
    if let Some(archive) = &plan.archive {
        run(archive)?;
    }
    std::fs::remove_dir_all(dir.join("obj"))?;
    std::fs::write(dir.join(KEY_FILE), &plan.key)?;
    Ok(())
}

/// The job script: `bash build.sh OUTDIR` runs the plan's nvcc commands on
/// a machine with nvcc and leaves in OUTDIR what [`is_complete`] accepts,
/// plus the CUDA runtime to link a library against.
pub(crate) fn job_script(plan: &Plan) -> String {
    let render = |step: &Step| {
        step.args
            .iter()
            .map(|a| match a {
                Arg::Lit(s) => shell_quote(s),
                Arg::Src(rel) => shell_quote(&rel.to_string_lossy()),
                Arg::Out(f) => format!("\"$out\"/{}", shell_quote(f)),
                Arg::Inc(i) => format!("-I\"$here\"/inc{i}"),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut s = format!(
        r#"#!/usr/bin/env bash
# cudaforge job {key}: {n} nvcc compile(s){lib}. Written by the hip-rs
# cudaforge drop-in on a machine without nvcc; run it where nvcc exists:
#   bash build.sh OUTDIR
# then make OUTDIR available as $CUDAFORGE_PREBUILT/{key} to the build.
# nvcc: $NVCC, else the one on PATH, else /usr/local/cuda/bin/nvcc.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
nvcc=${{NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}}
ccbin=()
if [ -n "${{NVCC_CCBIN:-}}" ]; then ccbin=(-allow-unsupported-compiler -ccbin "$NVCC_CCBIN"); fi
par=${{CUDAFORGE_PARALLEL:-$(nproc)}}
rm -f "$out/{keyfile}"
mkdir -p "$out/obj" "$out/.log"
cd "$here/src"
step() {{
    local n=$1
    shift
    if "$nvcc" "${{ccbin[@]}}" "$@" >"$out/.log/$n" 2>&1; then echo 0 >"$out/.log/$n.rc"; else echo 1 >"$out/.log/$n.rc"; fi
}}
throttle() {{ while [ "$(jobs -rp | wc -l)" -ge "$par" ]; do wait -n || true; done; }}
"#,
        key = plan.key,
        n = plan.compile.len(),
        lib = if plan.archive.is_some() {
            " and an archive"
        } else {
            ""
        },
        keyfile = KEY_FILE,
    );
    for (i, step) in plan.compile.iter().enumerate() {
        s += &format!("throttle; step {i} {} &\n", render(step));
    }
    s += "wait\nfail=0\n";
    for (i, step) in plan.compile.iter().enumerate() {
        let src = step
            .source
            .as_deref()
            .unwrap_or(Path::new(""))
            .to_string_lossy();
        s += &format!(
            "if [ \"$(cat \"$out/.log/{i}.rc\")\" != 0 ]; then echo \"nvcc failed on {src}:\" >&2; cat \"$out/.log/{i}\" >&2; fail=1; fi\n",
        );
    }
    s += "[ \"$fail\" = 0 ] || exit 1\n";
    if let Some(archive) = &plan.archive {
        s += &format!("\"$nvcc\" {}\n", render(archive));
        // The CUDA runtime the objects call, for linking where no toolkit is.
        s += &format!(
            "cudart=\"$(dirname \"$nvcc\")/../lib64/libcudart.so\"\n\
             if [ -f \"$cudart\" ]; then mkdir -p \"$out/{LINK_DIR}\"; cp -L \"$cudart\" \"$out/{LINK_DIR}/\"; \
             else echo \"note: no $cudart: the library's users find the CUDA runtime themselves\" >&2; fi\n"
        );
    }
    s += &format!(
        "\"$nvcc\" --version >\"$out/NVCC_VERSION\"\nrm -rf \"$out/obj\" \"$out/.log\"\necho {} >\"$out/{KEY_FILE}\"\n",
        plan.key
    );
    s
}

/// Writes the job folder `<jobs>/<key>/` (build.sh, the sources' folder as
/// `src/`, include folders as `inc<N>/`); returns its path.
pub(crate) fn write_job(plan: &Plan, jobs: &Path) -> Result<PathBuf> {
    let dir = jobs.join(&plan.key);
    if dir.join("build.sh").is_file() {
        return Ok(dir);
    }
    let tmp = jobs.join(format!(".{}.tmp{}", plan.key, std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let folders = std::iter::once((plan.root.clone(), tmp.join("src"))).chain(
        plan.includes
            .iter()
            .enumerate()
            .map(|(i, inc)| (inc.clone(), tmp.join(format!("inc{i}")))),
    );
    for (from, to) in folders {
        for file in crate::plan::source_files(&from)? {
            let dest = to.join(file.strip_prefix(&from).expect("walked from it"));
            std::fs::create_dir_all(dest.parent().expect("a file's folder"))?;
            std::fs::copy(&file, dest)?;
        }
    }
    std::fs::write(tmp.join("build.sh"), job_script(plan))?;
    std::fs::write(tmp.join(KEY_FILE), &plan.key)?;
    match std::fs::rename(&tmp, &dir) {
        Ok(()) => Ok(dir),
        // Another build wrote the same job first.
        Err(_) if dir.join("build.sh").is_file() => {
            let _ = std::fs::remove_dir_all(&tmp);
            Ok(dir)
        }
        Err(e) => Err(e.into()),
    }
}

/// Writes check-only placeholders where the outputs would go.
pub(crate) fn write_placeholders(plan: &Plan, dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    for p in &plan.products {
        let body: &[u8] = if p.ends_with(".ptx") {
            PLACEHOLDER_PTX.as_bytes()
        } else {
            // An empty ar archive.
            b"!<arch>\n"
        };
        std::fs::write(dir.join(p), body)?;
    }
    Ok(())
}
