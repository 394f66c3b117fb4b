//! The `[nvidia]` table of a library manifest
//! (`build.rs-tools/generator/libraries/<name>.toml`): what the library's
//! NVIDIA backend maps to CUDA, as data. The rest of the manifest belongs
//! to the bindings and is not read here.

use anyhow::{Context, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct ManifestFile {
    nvidia: Option<Nvidia>,
}

/// One library's NVIDIA mapping. Each part is optional: a library has the
/// tables its backend uses.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Nvidia {
    /// The -sys crate's folder, relative to the workspace root.
    #[serde(rename = "crate")]
    pub(crate) krate: String,
    /// Its generated functions, relative to the crate.
    pub(crate) functions: String,
    /// Its generated types, relative to the crate (needed by the status,
    /// attribute and message tables).
    pub(crate) types: Option<String>,
    pub(crate) status: Option<Status>,
    pub(crate) attributes: Option<Attributes>,
    pub(crate) messages: Option<Messages>,
    pub(crate) passthrough: Option<Passthrough>,
    pub(crate) adapters: Option<Adapters>,
}

/// Status translation functions, one per CUDA status enum.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Status {
    pub(crate) output: String,
    /// The `use` line's path list (`crate::{hipError_t, hiprtcResult}`).
    pub(crate) imports: String,
    /// `[part of a CUDA name, HIP name]`, tried in order when hipify-perl
    /// has no counterpart in the HIP enum.
    pub(crate) nearest: Vec<[String; 2]>,
    pub(crate) tables: Vec<StatusTable>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StatusTable {
    pub(crate) function: String,
    pub(crate) c_type: String,
    /// Relative to the CUDA headers' `nvidia/` folder.
    pub(crate) header: String,
    pub(crate) enum_start: String,
    pub(crate) enum_end: String,
    pub(crate) prefix: String,
    pub(crate) hip_type: String,
    pub(crate) default: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Attributes {
    pub(crate) output: String,
    pub(crate) function: String,
    pub(crate) hip_type: String,
    pub(crate) header: String,
    pub(crate) enum_start: String,
    pub(crate) enum_end: String,
    pub(crate) prefix: String,
    /// `[CUDA attribute, HIP attribute]` where hipify-perl's pair is wrong.
    pub(crate) overrides: Vec<[String; 2]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Messages {
    pub(crate) output: String,
    pub(crate) hip_type: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Passthrough {
    pub(crate) output: String,
    /// The backend's macro that takes one line per function.
    pub(crate) macro_name: String,
    /// The return type every pass-through binding must have.
    pub(crate) status_type: String,
    /// The backend's library names (variants of its `Lib`).
    pub(crate) libraries: Vec<String>,
    /// `[HIP function, library, CUDA function]`.
    pub(crate) functions: Vec<[String; 3]>,
}

/// Adapters over a CUDA library whose functions take the binding's
/// arguments in the same order, converted one by one.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Adapters {
    pub(crate) output: String,
    /// The header of hip-sys's `cuda_adapters!` invocation.
    pub(crate) kit: Kit,
    /// The CUDA headers declaring the functions, relative to the CUDA
    /// headers' `nvidia/` folder.
    pub(crate) headers: Vec<String>,
    /// The macro that marks a declaration in it (`CUBLASWINAPI`).
    pub(crate) declaration_marker: String,
    /// The C return type every declaration must have.
    pub(crate) c_status: String,
    /// The return type every binding must have.
    pub(crate) status_type: String,
    /// Binding type (last path segment) -> the C type the conversion
    /// produces, as the header spells it.
    pub(crate) c_types: std::collections::BTreeMap<String, String>,
    /// Parameters converted otherwise than by their type's `ToCu`.
    pub(crate) argument_rules: Vec<ArgumentRule>,
    /// `[binding pattern, CUDA pattern, letters, forms]`: see hipblas.toml;
    /// the form `prefix` pairs every binding that starts with the binding
    /// pattern with the CUDA pattern plus the rest of its name.
    pub(crate) families: Vec<[String; 4]>,
    /// Bindings a `prefix` family leaves out (the manifest says why).
    #[serde(default)]
    pub(crate) exclude: Vec<String>,
    /// C typedef -> the type it names, for declarations that spell a
    /// parameter through a typedef (`cusolver_int_t` -> `int`).
    #[serde(default)]
    pub(crate) c_aliases: std::collections::BTreeMap<String, String>,
    /// Calls whose CUDA function takes fewer or more parameters than the
    /// binding: each with its reason in the manifest.
    #[serde(default)]
    pub(crate) reshape: Vec<Reshape>,
    /// The HIP library's name as the generated file's docs give it.
    #[serde(default = "default_library")]
    pub(crate) library: String,
    /// The CUDA library's name as the generated file's docs give it.
    #[serde(default = "default_cuda_library")]
    pub(crate) cuda_library: String,
}

/// What `hip_sys::cuda_adapters!` needs besides the lines: Rust paths and
/// expressions of the -sys crate, written into the generated invocation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Kit {
    /// The CUDA library's `LibrarySlot` (an absolute `crate::` path).
    pub(crate) slot: String,
    /// The status returned when the loaded library lacks a function.
    pub(crate) missing: String,
    /// CUDA's status type as the adapters receive it (an integer).
    pub(crate) cuda_status: String,
    /// The function that translates it into `status_type`.
    pub(crate) from_cuda: String,
    /// The crate's function table.
    pub(crate) table: String,
    /// The HIP library marker of the crate's conversions (hip-sys's
    /// `loader::adapter::Library`); none: the status type itself.
    #[serde(default)]
    pub(crate) library: Option<String>,
    /// The module whose types the argument rules' kinds name.
    #[serde(default)]
    pub(crate) kinds: Option<String>,
}

fn default_library() -> String {
    "hipBLAS".to_owned()
}

fn default_cuda_library() -> String {
    "cuBLAS".to_owned()
}

/// How the bindings whose names match `functions` (regular expressions,
/// matched whole) reach a CUDA function of another shape: parameters
/// dropped (not passed on) and constants inserted before a parameter.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Reshape {
    pub(crate) functions: Vec<String>,
    #[serde(default)]
    pub(crate) drop: Vec<String>,
    /// `[parameter, constant, its binding type]`: the constant (a name in
    /// the kit's `kinds` module) is passed just before the parameter.
    #[serde(default)]
    pub(crate) insert: Vec<[String; 3]>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ArgumentRule {
    /// Parameter names the rule applies to.
    pub(crate) names: Vec<String>,
    /// Binding types it applies to (any when empty).
    #[serde(default)]
    pub(crate) types: Vec<String>,
    /// The conversion: `unused` (not passed on; must be last), or the name
    /// of a type of the kit's `kinds` module that implements hip-sys's
    /// `loader::adapter::Kind`; none: the type's own conversion, with
    /// `c_type` as what it gives.
    #[serde(default)]
    pub(crate) kind: Option<String>,
    /// The C type the conversion produces, when not the binding type's.
    pub(crate) c_type: Option<String>,
}

/// Every manifest with an `[nvidia]` table, with its path.
pub(crate) fn all(root: &Path) -> Result<Vec<(PathBuf, Nvidia)>> {
    let dir = root.join("build.rs-tools/generator/libraries");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    paths.retain(|p| p.extension().is_some_and(|e| e == "toml"));
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let file: ManifestFile =
            toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        if let Some(nvidia) = file.nvidia {
            out.push((path, nvidia));
        }
    }
    Ok(out)
}
