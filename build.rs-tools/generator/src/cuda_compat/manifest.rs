//! Phase 0: cuda-compat's manifest, `filters/cuda-compat.toml`: the
//! decisions hipify-perl's table and the headers cannot make.

use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::path::Path;

/// Where the manifest lives, relative to the workspace root.
pub(super) const PATH: &str = "build.rs-tools/generator/filters/cuda-compat.toml";

/// `filters/cuda-compat.toml`: decisions the tables cannot make.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(super) struct Manifest {
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
}

impl Manifest {
    /// Reads and parses the manifest (unknown keys are an error).
    pub(super) fn load(root: &Path) -> Result<Manifest> {
        let path = root.join(PATH);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }
}
