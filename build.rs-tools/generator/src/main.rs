//! Regenerates every committed binding of the workspace from the ROCm headers.
//!
//! ```text
//! cargo run -p hip-generator            # fetch the headers if missing, regenerate all
//! cargo run -p hip-generator -- check   # regenerate everything, fail when it differs from git
//! cargo run -p hip-generator -- hip     # only hip-sys (a library's manifest name)
//! cargo run -p hip-generator -- cuda-compat  # cuda-compat from hipify-perl + CUDA headers
//! cargo run -p hip-generator -- header-values  # the enum tests' reference data
//! cargo run -p hip-generator -- gpu-tested     # what the GPU tests call
//! cargo run -p hip-generator -- nvidia-tables  # the NVIDIA backends' tables and adapters
//! cargo run -p hip-generator -- --headers DIR
//! cargo run -p hip-generator -- systest # compare layouts with the C compiler's
//! ```
//!
//! bindgen runs here and only here: users of the crates never need libclang or
//! ROCm to build them. The output is committed; CI regenerates it and fails
//! when it differs.
//!
//! # A manifest per library
//!
//! Each -sys crate is described by one file,
//! `build.rs-tools/generator/libraries/<name>.toml`; the generator has no
//! code specific to a library, so **adding a library is adding a manifest**
//! (its `[loader]` table gives the crate's loader, which provides the table
//! accessor). Its `[bindings]` table says where the output goes and how it
//! is written:
//!
//! - `crate`: the crate's folder (output in `<crate>/src/generated/`, report
//!   in `<crate>/BINDINGS.md`);
//! - `includes`: the headers bindgen reads;
//! - `macros`: the crate defining `loaded_functions!` and `open_enum!`
//!   (`crate` in hip-sys, `hip_sys` in every other -sys crate);
//! - `table`, `accessor`, `unavailable`: the function table's name, an
//!   expression giving `Option<&'static Table>`, and the `Unavailable` trait;
//! - `prelude` (lines at the top of both files), `must_use` (status types),
//!   `library_doc` (the library as the docs name it), `function_prefixes`
//!   (the C names `BINDINGS.md` counts in the headers' text, to check
//!   bindgen's output against), `v1_types` (types bound from a second pass
//!   without `-DHIPBLAS_V2`), `c_prelude` (C declarations put before the
//!   includes: what a header takes from C++ that C mode lacks).
//!
//! Its `[filter]` table says what bindgen takes: `files`, `function_files`,
//! `reuse_files` (types another crate provides), `block` (each with its
//! reason), `align` (alignment overrides, with reasons), `legacy_symbol`
//! (bindings resolved from another symbol on old runtimes).
//!
//! Its `[loader]` table is the library's `LibrarySpec`, kept nowhere else:
//! `name`, and `[loader.amd]` and `[loader.nvidia]`, each with `role`,
//! `unix` and `windows` (file names in the order tried) and `hint` (what to
//! install). With `[loader.module]` the whole `loader` module is generated
//! (`src/generated/loader.rs`, mounted by the crate's `lib.rs`): `what`,
//! `getter`, `record`, `record_doc`, `failure_status`, `amd_doc`,
//! `nvidia_doc` (the docs' words), `loaded_library_doc` (when present,
//! `LoadedLibrary` is re-exported) and `backend_files` (which must not name
//! the loader); without it only `src/generated/spec.rs`, for a loader
//! written by hand (see `loader.rs`). Other tables of a manifest are read by
//! other parts of the generator.
//!
//! # What is written
//!
//! `types.rs` is bindgen's output, with each C enum as one `open_enum!`
//! call; `functions.rs` is one `loaded_functions!` call holding each
//! function's C declaration once (both macros are in
//! `hip-sys/src/binding.rs`). `check` also runs the other commands that write
//! committed files (listed once, in `check.rs`).

mod check;
mod cuda_compat;
mod cuda_compat_input;
mod emit;
mod filter;
mod gpu_tested;
mod header_enums;
mod header_values;
mod library;
mod loader;
mod nvidia_tables;
mod report;
mod systest;

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() -> Result<()> {
    let root = workspace_root();
    match std::env::args().nth(1).as_deref() {
        Some("cuda-compat") => return cuda_compat::generate(&root),
        Some("header-values") => return header_values::generate(&root),
        Some("gpu-tested") => return gpu_tested::generate(&root),
        Some("nvidia-tables") => return nvidia_tables::generate(&root),
        Some("check") => return check::run(&root, || regenerate(&root, None, &[])),
        _ => {}
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
                    "usage: cargo run -p hip-generator [-- [--headers DIR] [LIBRARY|cuda-compat|header-values|gpu-tested|nvidia-tables|systest]...]\n\
                     \x20      cargo run -p hip-generator -- check\n\
                     With no library named, regenerates all of them (cuda-compat last). LIBRARY is a\n\
                     manifest's name in build.rs-tools/generator/libraries/. `check` regenerates\n\
                     everything the workspace commits as generated and fails when git sees a change."
                );
                return Ok(());
            }
            "systest" => systest = true,
            name => only.push(name.to_owned()),
        }
    }
    if systest {
        let include = headers_include(&root, headers)?;
        return run_systest(&root, &include, &only);
    }
    regenerate(&root, headers, &only)
}

/// Regenerates the libraries named in `only` (all when empty), then
/// cuda-compat and the test data, which read them.
fn regenerate(root: &Path, headers: Option<PathBuf>, only: &[String]) -> Result<()> {
    let headers = match headers {
        Some(h) => h,
        None => default_headers(root)?,
    };
    let include = headers_include(root, Some(headers.clone()))?;
    let provenance = std::fs::read_to_string(headers.join("PACKAGES"))
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim_end_matches(".deb").to_owned())
        .collect::<Vec<_>>();

    let libraries = library::all(root)?;
    for name in only {
        let known = ["cuda-compat", "header-values", "gpu-tested"];
        if !known.contains(&name.as_str()) && !libraries.iter().any(|l| l.name == *name) {
            bail!(
                "no library `{name}`: the libraries are the manifests in {}",
                library::manifest_dir(root).display()
            );
        }
    }
    for lib in &libraries {
        if !only.is_empty() && !only.contains(&lib.name) {
            continue;
        }
        library::generate(lib, root, &include, &provenance)
            .with_context(|| format!("generating {} ({})", lib.name, lib.manifest.display()))?;
    }
    let wanted = |what: &str| only.is_empty() || only.iter().any(|o| o == what);
    // cuda-compat is generated from the bindings above, so it comes last.
    if wanted("cuda-compat") {
        cuda_compat::generate(root).context("generating cuda-compat")?;
    }
    // The NVIDIA backends' tables, read from the bindings above.
    if wanted("nvidia-tables") {
        nvidia_tables::generate(root).context("writing the NVIDIA tables")?;
    }
    // The tests' reference data, read from the headers on their own.
    if wanted("header-values") {
        header_values::generate(root).context("writing the header reference data")?;
    }
    // The coverage tables' GPU-tested column, from the GPU tests' sources.
    if wanted("gpu-tested") {
        gpu_tested::generate(root).context("finding what the GPU tests call")?;
    }
    Ok(())
}

/// `usr/include` of the unpacked header packages (fetched on first use when
/// no folder is given), checked to hold the HIP headers.
fn headers_include(root: &Path, headers: Option<PathBuf>) -> Result<PathBuf> {
    let headers = match headers {
        Some(h) => h,
        None => default_headers(root)?,
    };
    let include = headers.join("usr/include");
    if !include.join("hip/hip_runtime_api.h").exists() {
        bail!(
            "no ROCm headers under {}: run build.rs-tools/scripts/fetch-rocm-headers.sh",
            include.display()
        );
    }
    Ok(include)
}

fn run_systest(root: &Path, include: &Path, only: &[String]) -> Result<()> {
    let mut failed = false;
    for lib in library::all(root)? {
        if (!only.is_empty() && !only.contains(&lib.name)) || !lib.out_dir.join("types.rs").exists()
        {
            continue;
        }
        let types = std::fs::read_to_string(lib.out_dir.join("types.rs"))?;
        if !types.contains("[\"Size of ") {
            // hipSPARSE's types are all enums and opaque handles.
            println!(
                "systest: {}: no struct with a layout (enums and opaque handles only), nothing to compare",
                lib.name
            );
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

/// `text` formatted by the toolchain's rustfmt (read from its standard
/// input), as `cargo fmt` would leave it.
pub(crate) fn rustfmt_text(text: &str) -> Result<String> {
    use std::io::Write as _;
    use std::process::Stdio;
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running rustfmt")?;
    let mut stdin = child.stdin.take().context("rustfmt's standard input")?;
    stdin.write_all(text.as_bytes())?;
    drop(stdin);
    let output = child.wait_with_output().context("waiting for rustfmt")?;
    if !output.status.success() {
        bail!(
            "rustfmt failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(String::from_utf8(output.stdout)?)
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
