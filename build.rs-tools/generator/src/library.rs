//! The libraries the generator knows, and the bindgen run for each.

use crate::{emit, filter, report};
use anyhow::{Context, Result};
use bindgen::EnumVariation;
use std::path::{Path, PathBuf};

/// One -sys crate's generation settings.
pub(crate) struct Library {
    /// Name on the command line: `hip`, `hipblas`.
    pub(crate) name: &'static str,
    /// Headers the wrapper includes.
    pub(crate) includes: &'static [&'static str],
    pub(crate) filter: PathBuf,
    /// `src/generated/` of the crate.
    pub(crate) out_dir: PathBuf,
    /// Where the report goes (`<crate>/BINDINGS.md`).
    pub(crate) report: PathBuf,
    /// Name of the generated function-table struct.
    pub(crate) table: &'static str,
    /// Expression returning `Option<&'static Table>`.
    pub(crate) accessor: &'static str,
    /// Path of the `Unavailable` trait.
    pub(crate) unavailable: &'static str,
    /// Extra lines at the top of `types.rs`/`functions.rs` (imports).
    pub(crate) prelude: &'static str,
    /// Status types marked `#[must_use]`.
    pub(crate) must_use: &'static [&'static str],
    /// The runtime library named in docs.
    pub(crate) library_doc: &'static str,
}

pub(crate) fn all(root: &Path) -> Vec<Library> {
    let gen = root.join("build.rs-tools/generator/filters");
    vec![
        Library {
            name: "hip",
            includes: &[
                "hip/hip_runtime_api.h",
                "hip/hiprtc.h",
                "hip/hip_deprecated.h",
            ],
            filter: gen.join("hip.toml"),
            out_dir: root.join("hip-sys/src/generated"),
            report: root.join("hip-sys/BINDINGS.md"),
            table: "HipFunctions",
            accessor: "crate::loader::hip_table()",
            unavailable: "crate::Unavailable",
            prelude: "",
            must_use: &["hipError_t", "hiprtcResult"],
            library_doc: "the HIP runtime (`libamdhip64`, or hiprtc for `hiprtc*`)",
        },
        Library {
            name: "hipblas",
            includes: &["hipblas/hipblas.h"],
            filter: gen.join("hipblas.toml"),
            out_dir: root.join("hipblas-sys/src/generated"),
            report: root.join("hipblas-sys/BINDINGS.md"),
            table: "HipblasFunctions",
            accessor: "crate::loader::hipblas_table()",
            unavailable: "hip_sys::Unavailable",
            prelude: "#[allow(unused_imports)]\nuse hip_sys::*;\n",
            must_use: &["hipblasStatus_t"],
            library_doc: "hipBLAS (`libhipblas`)",
        },
    ]
}

pub(crate) fn generate(lib: &Library, include: &Path, provenance: &[String]) -> Result<()> {
    if !lib.filter.exists() {
        eprintln!(
            "hip-generator: {} has no filter file yet, skipped",
            lib.name
        );
        return Ok(());
    }
    let filter = filter::load(&lib.filter)?;
    let wrapper: String = lib
        .includes
        .iter()
        .map(|h| format!("#include <{h}>\n"))
        .collect();

    let mut builder = bindgen::Builder::default()
        .header_contents("hip_rs_wrapper.h", &wrapper)
        .clang_args([
            "-x".to_owned(),
            "c".to_owned(),
            "-std=c11".to_owned(),
            format!("-I{}", include.display()),
            "-D__HIP_PLATFORM_AMD__".to_owned(),
            // hipblas.h spells the v2 API only when asked; bind both forms.
            "-DHIPBLAS_V2".to_owned(),
        ])
        .default_enum_style(EnumVariation::NewType {
            is_bitfield: false,
            is_global: false,
        })
        .prepend_enum_name(false)
        .derive_default(true)
        .derive_debug(true)
        .derive_copy(true)
        .derive_eq(true)
        .derive_hash(true)
        .derive_partialeq(true)
        .layout_tests(true)
        .generate_comments(true)
        .size_t_is_usize(true)
        .merge_extern_blocks(true)
        .sort_semantically(true)
        .formatter(bindgen::Formatter::None)
        .rust_target(bindgen::RustTarget::stable(80, 0).map_err(|e| anyhow::anyhow!("{e}"))?);
    for file in &filter.files {
        builder = builder.allowlist_file(format!(".*/{}", regex_escape(file)));
    }
    for file in &filter.reuse_files {
        builder = builder.blocklist_file(format!(".*/{}", regex_escape(file)));
    }
    for block in &filter.block {
        builder = builder
            .blocklist_item(&block.item)
            .blocklist_function(&block.item);
    }
    for t in lib.must_use {
        builder = builder.must_use_type(*t);
    }
    let bindings = builder
        .generate()
        .map_err(|e| anyhow::anyhow!("bindgen failed: {e}"))?
        .to_string();

    let parsed = syn::parse_file(&bindings).context("parsing bindgen output")?;
    let function_files: Vec<PathBuf> = filter
        .function_files
        .iter()
        .map(|f| include.join(f))
        .collect();
    let split = emit::split(parsed, &function_files)?;

    std::fs::create_dir_all(&lib.out_dir)?;
    let header = generated_header(provenance);
    let types_path = lib.out_dir.join("types.rs");
    std::fs::write(
        &types_path,
        format!("{header}{}{}", lib.prelude, emit::types(&split)?),
    )?;
    crate::rustfmt(&types_path)?;
    let fns_path = lib.out_dir.join("functions.rs");
    std::fs::write(
        &fns_path,
        format!("{header}{}", emit::functions(lib, &split, &filter)?),
    )?;
    crate::rustfmt(&fns_path)?;

    let declared = report::declared_functions(&function_files)?;
    let text = report::render(lib, &declared, &split, provenance);
    std::fs::write(&lib.report, text)?;
    eprintln!(
        "hip-generator: {}: {} functions bound of {} declared, {} types -> {}",
        lib.name,
        split.functions.len(),
        declared.len(),
        split.type_count(),
        lib.out_dir.display()
    );
    Ok(())
}

fn generated_header(provenance: &[String]) -> String {
    let mut s = String::from(
        "// @generated by hip-generator (build.rs-tools/generator). Do not edit.\n\
         // Regenerate with `cargo run -p hip-generator`.\n",
    );
    if !provenance.is_empty() {
        s.push_str("// Input headers from Debian packages:");
        for p in provenance {
            s.push_str("\n//   ");
            s.push_str(p);
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

fn regex_escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
