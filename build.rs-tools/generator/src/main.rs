//! Regenerates every committed binding of the workspace from the ROCm headers.
//!
//! ```text
//! cargo run -p hip-generator            # fetch the headers if missing, regenerate all
//! cargo run -p hip-generator -- hip     # only hip-sys
//! cargo run -p hip-generator -- cuda-compat  # cuda-compat from hipify-perl + CUDA headers
//! cargo run -p hip-generator -- header-values  # the enum tests' reference data
//! cargo run -p hip-generator -- gpu-tested     # what the GPU tests call
//! cargo run -p hip-generator -- --headers DIR
//! cargo run -p hip-generator -- systest # compare layouts with the C compiler's
//! ```
//!
//! bindgen runs here and only here: users of the crates never need libclang or
//! ROCm to build them. The output is committed; CI regenerates it and fails
//! when it differs.

mod cuda_compat;
mod cuda_compat_input;
mod emit;
mod filter;
mod gpu_tested;
mod header_values;
mod library;
mod report;
mod systest;

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() -> Result<()> {
    let root = workspace_root();
    if std::env::args().nth(1).as_deref() == Some("cuda-compat") {
        return cuda_compat::generate(&root);
    }
    if std::env::args().nth(1).as_deref() == Some("header-values") {
        return header_values::generate(&root);
    }
    if std::env::args().nth(1).as_deref() == Some("gpu-tested") {
        return gpu_tested::generate(&root);
    }
    let mut headers: Option<PathBuf> = None;
    let mut only: Vec<String> = Vec::new();
    let mut systest = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--headers" => headers = Some(args.next().context("--headers needs a folder")?.into()),
            "-h" | "--help" => {
                println!(
                    "usage: cargo run -p hip-generator [-- [--headers DIR] [hip|hipblas|cuda-compat|header-values|gpu-tested|systest]...]\n\
                     With no library named, regenerates all of them (cuda-compat last)."
                );
                return Ok(());
            }
            "systest" => systest = true,
            name => only.push(name.to_owned()),
        }
    }
    let headers = match headers {
        Some(h) => h,
        None => default_headers(&root)?,
    };
    let include = headers.join("usr/include");
    if !include.join("hip/hip_runtime_api.h").exists() {
        bail!(
            "no ROCm headers under {}: run build.rs-tools/scripts/fetch-rocm-headers.sh",
            include.display()
        );
    }
    let provenance = std::fs::read_to_string(headers.join("PACKAGES"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim_end_matches(".deb").to_owned())
        .collect::<Vec<_>>();

    if systest {
        return run_systest(&root, &include, &only);
    }

    for lib in library::all(&root)? {
        if !only.is_empty() && !only.contains(&lib.name) {
            continue;
        }
        library::generate(&lib, &include, &provenance)
            .with_context(|| format!("generating {} ({})", lib.name, lib.manifest.display()))?;
    }
    // cuda-compat is generated from the bindings above, so it comes last.
    if only.is_empty() || only.iter().any(|o| o == "cuda-compat") {
        cuda_compat::generate(&root).context("generating cuda-compat")?;
    }
    // The tests' reference data, read from the headers on their own.
    if only.is_empty() || only.iter().any(|o| o == "header-values") {
        header_values::generate(&root).context("writing the header reference data")?;
    }
    // The coverage tables' GPU-tested column, from the GPU tests' sources.
    if only.is_empty() || only.iter().any(|o| o == "gpu-tested") {
        gpu_tested::generate(&root).context("finding what the GPU tests call")?;
    }
    Ok(())
}

fn run_systest(root: &Path, include: &Path, only: &[String]) -> Result<()> {
    let mut failed = false;
    for lib in library::all(root)? {
        if (!only.is_empty() && !only.contains(&lib.name)) || !lib.out_dir.join("types.rs").exists()
        {
            continue;
        }
        let outcome =
            systest::run(&lib, include).with_context(|| format!("systest of {}", lib.name))?;
        for m in &outcome.mismatches {
            eprintln!("systest {}: MISMATCH {m}", lib.name);
        }
        println!(
            "systest {}: {} sizes, alignments and offsets compared with the C compiler, {} mismatches",
            lib.name,
            outcome.checked,
            outcome.mismatches.len()
        );
        failed |= !outcome.mismatches.is_empty();
    }
    if failed {
        bail!("layouts differ between C and Rust");
    }
    Ok(())
}

fn workspace_root() -> PathBuf {
    // build.rs-tools/generator -> workspace root
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("the generator lives two folders below the workspace root")
        .to_path_buf()
}

/// The unpacked header packages: fetched on first use.
fn default_headers(root: &Path) -> Result<PathBuf> {
    let dir = root.join("build.rs-tools/rocm-headers");
    if !dir.join("usr/include/hip/hip_runtime_api.h").exists() {
        eprintln!("hip-generator: headers missing, fetching them");
        let status = Command::new("bash")
            .arg(root.join("build.rs-tools/scripts/fetch-rocm-headers.sh"))
            .status()
            .context("running fetch-rocm-headers.sh")?;
        if !status.success() {
            bail!("fetch-rocm-headers.sh failed ({status})");
        }
    }
    Ok(dir)
}

/// Formats a generated file in place with the toolchain's rustfmt, so the
/// committed output matches `cargo fmt`.
pub(crate) fn rustfmt(path: &Path) -> Result<()> {
    let status = Command::new("rustfmt")
        .args(["--edition", "2021"])
        .arg(path)
        .status()
        .context("running rustfmt")?;
    if !status.success() {
        bail!("rustfmt failed on {}", path.display());
    }
    Ok(())
}
