//! Phase 0: cuda-compat's manifest, `libraries/cuda-compat.toml`: its
//! modules (CUDA headers and name prefixes) and the decisions hipify-perl's
//! table and the headers cannot make.

use crate::cuda_compat_input::Module;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// Where the manifest lives, relative to the workspace root.
pub(super) const PATH: &str = "build.rs-tools/generator/libraries/cuda-compat.toml";

/// `libraries/cuda-compat.toml`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Manifest {
    /// cuda-compat's modules, in [`Module::ALL`]'s order.
    #[serde(rename = "module")]
    pub(super) modules: Vec<ModuleSpec>,
    /// Prefixes of CUDA libraries no module covers (`cublasLt`).
    #[serde(default)]
    pub(super) out_of_scope_prefixes: Vec<String>,
    /// The headers bindgen's wrapper includes, in order.
    pub(super) bindgen_includes: Vec<String>,
    /// CUDA headers read only for their `#define` renames.
    #[serde(default)]
    pub(super) rename_headers: Vec<String>,
    /// HIP structs of identical layout that a CUDA type may stand for (the
    /// first is what CUDA's type resolves to, the second what HIP takes).
    #[serde(default)]
    pub(super) layout_equivalent: Vec<(String, String)>,
    /// Use hipBLAS's `_v2` function (hipDataType, hipComplex: CUDA's
    /// types and values) where hipify-perl names the v1 one.
    #[serde(default)]
    pub(super) prefer_hipblas_v2: bool,
    /// CUDA function -> HIP function, replacing hipify-perl's target.
    #[serde(default)]
    pub(super) hip_target: BTreeMap<String, String>,
    /// CUDA inline helpers written by hand in `cuda-compat/src/inline.rs`
    /// (HIP's are inline header functions, not symbols): name -> module.
    #[serde(default)]
    pub(super) handwritten: BTreeMap<String, String>,
    /// CUDA function -> values for HIP's trailing parameters CUDA lacks.
    #[serde(default)]
    pub(super) extra_args: BTreeMap<String, Vec<String>>,
    /// CUDA enumerator HIP lacks -> the HIP enumerator CUDA documents it as
    /// equivalent to: emitted without the feature, with CUDA's value, and
    /// converted to the HIP enumerator when passed to HIP.
    #[serde(default)]
    pub(super) equivalent_enumerators: BTreeMap<String, String>,
}

/// One `[[module]]` of the manifest.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModuleSpec {
    /// The Rust module (`runtime`): one of [`Module::ALL`]'s names.
    pub(super) name: String,
    /// CUDA headers whose declarations belong to the module.
    pub(super) headers: Vec<String>,
    /// Prefixes of the module's names, matched as they are.
    #[serde(default)]
    pub(super) prefixes: Vec<String>,
    /// Prefixes matched only when an uppercase letter, `_` or a digit
    /// follows (`cu` matches `cuInit`, not `cudaMalloc`).
    #[serde(default)]
    pub(super) word_prefixes: Vec<String>,
}

impl Manifest {
    /// Reads and parses the manifest (unknown keys are an error) and checks
    /// that its modules are cuda-compat's, in order, each with a header.
    pub(super) fn load(root: &Path) -> Result<Manifest> {
        let path = root.join(PATH);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let manifest: Manifest =
            toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        let names: Vec<&str> = manifest.modules.iter().map(|m| m.name.as_str()).collect();
        let expected: Vec<&str> = Module::ALL.iter().map(|m| m.name()).collect();
        if names != expected {
            bail!(
                "{}: the modules are {names:?}; cuda-compat mounts {expected:?}, in that order",
                path.display()
            );
        }
        if let Some(m) = manifest.modules.iter().find(|m| m.headers.is_empty()) {
            bail!("{}: module {} lists no header", path.display(), m.name);
        }
        Ok(manifest)
    }

    /// The manifest's entry for a module.
    pub(super) fn module(&self, m: Module) -> &ModuleSpec {
        // `load` checked that the modules are `Module::ALL`, in order.
        &self.modules[Module::ALL.iter().position(|x| *x == m).unwrap_or(0)]
    }

    /// The manifest's prefix rules, for [`Prefixes::module_of`].
    pub(super) fn prefixes(&self) -> Prefixes {
        let mut rules: Vec<(String, bool, Option<Module>)> = self
            .out_of_scope_prefixes
            .iter()
            .map(|p| (p.clone(), false, None))
            .collect();
        for (spec, m) in self.modules.iter().zip(Module::ALL) {
            rules.extend(spec.prefixes.iter().map(|p| (p.clone(), false, Some(m))));
            rules.extend(
                spec.word_prefixes
                    .iter()
                    .map(|p| (p.clone(), true, Some(m))),
            );
        }
        Prefixes { rules }
    }
}

/// Which module a CUDA name belongs to by its prefix.
pub(super) struct Prefixes {
    /// (prefix, only before an uppercase letter, `_` or digit, module or
    /// `None` for out of scope).
    rules: Vec<(String, bool, Option<Module>)>,
}

impl Prefixes {
    /// The module of a CUDA name the headers do not declare: the one with
    /// the longest matching prefix; `None` when that prefix is out of scope
    /// or nothing matches.
    pub(super) fn module_of(&self, name: &str) -> Option<Module> {
        let matches = |p: &str, word: bool| match name.strip_prefix(p) {
            None => false,
            Some(_) if !word => true,
            Some(rest) => rest
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit()),
        };
        self.rules
            .iter()
            .filter(|(p, word, _)| matches(p, *word))
            .max_by_key(|(p, _, _)| p.len())
            .and_then(|(_, _, m)| *m)
    }
}
