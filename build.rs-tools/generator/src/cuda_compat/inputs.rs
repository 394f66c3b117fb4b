//! Phase 1: the inputs. hipify-perl's CUDA->HIP table (with the manifest's
//! replacements), the HIP side (the committed hip-sys and hipblas-sys
//! bindings, HIP's `#define`s) and the CUDA side (the CUDA 12.x headers per
//! module, their renames, the home module of every CUDA name).

use super::manifest::{Manifest, Prefixes};
use crate::cuda_compat_input::{self as input, Decls, Mapping, Module};
use anyhow::{bail, Context, Result};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Everything the decision phases read.
pub(super) struct Inputs {
    /// hipify-perl's entries, in its order, targets replaced per the manifest.
    pub(super) maps: Vec<Mapping>,
    /// The same by CUDA name (the last entry of a name wins).
    pub(super) hipify: BTreeMap<String, Mapping>,
    pub(super) hip: Hip,
    /// CUDA declarations per module.
    pub(super) cuda: BTreeMap<Module, Decls>,
    /// CUDA's `#define cublasSgemm cublasSgemm_v2` and the like.
    pub(super) cuda_renames: BTreeMap<String, String>,
    /// Home module of every CUDA name declared in the headers.
    pub(super) home: BTreeMap<String, Module>,
    /// Hand-written inline helpers (manifest) -> module.
    pub(super) handwritten: BTreeMap<String, Module>,
    /// The module of a name by its prefix, from the manifest.
    prefixes: Prefixes,
}

impl Inputs {
    /// The module a CUDA name belongs to: hand-written, declared in a
    /// module's headers, or by prefix; `None` when out of scope.
    pub(super) fn module_of(&self, name: &str) -> Option<Module> {
        self.handwritten
            .get(name)
            .copied()
            .or_else(|| self.home.get(name).copied())
            .or_else(|| self.prefixes.module_of(name))
    }

    /// Whether a CUDA name is an enumerator of some CUDA enum.
    pub(super) fn is_enumerator(&self, name: &str) -> bool {
        self.cuda.values().any(|d| {
            d.enums
                .values()
                .any(|(_, cs)| cs.iter().any(|(c, _)| c == name))
        })
    }
}

/// Reads the inputs (fetching the CUDA headers on first use): hipify-perl
/// from the unpacked ROCm packages, the HIP bindings from hip-sys and
/// hipblas-sys's `src/generated`, the CUDA headers through bindgen.
pub(super) fn load(root: &Path, manifest: &Manifest) -> Result<Inputs> {
    let rocm = root.join("build.rs-tools/rocm-headers/usr");
    let cuda_inc = root.join("build.rs-tools/cuda-headers/include");
    if !cuda_inc.join("cuda.h").exists() {
        eprintln!("hip-generator: CUDA headers missing, fetching them");
        let status = std::process::Command::new("bash")
            .arg(root.join("build.rs-tools/scripts/fetch-cuda-headers.sh"))
            .status()
            .context("running fetch-cuda-headers.sh")?;
        if !status.success() {
            bail!("fetch-cuda-headers.sh failed ({status})");
        }
    }
    let hipify_path = rocm.join("bin/hipify-perl");
    if !hipify_path.exists() {
        bail!("no hipify-perl: run build.rs-tools/scripts/fetch-rocm-headers.sh");
    }
    let mut maps = input::hipify(&hipify_path)?;
    for m in &mut maps {
        if let Some(h) = manifest.hip_target.get(&m.cuda) {
            m.hip = h.clone();
        }
    }
    let hipify: BTreeMap<String, Mapping> =
        maps.iter().map(|m| (m.cuda.clone(), m.clone())).collect();
    // HIP side.
    let sys = input::parse_bindings(&root.join("hip-sys/src/generated"))?
        .context("hip-sys/src/generated missing: run `cargo run -p hip-generator -- hip`")?;
    let blas = input::parse_bindings(&root.join("hipblas-sys/src/generated"))?;
    let rand = input::parse_bindings(&root.join("hiprand-sys/src/generated"))?;
    let fft = input::parse_bindings(&root.join("hipfft-sys/src/generated"))?;
    let lt = input::parse_bindings(&root.join("hipblaslt-sys/src/generated"))?;
    let solver = input::parse_bindings(&root.join("hipsolver-sys/src/generated"))?;
    let sparse = input::parse_bindings(&root.join("hipsparse-sys/src/generated"))?;
    let mut crate_of = BTreeMap::new();
    let mut all = Decls::default();
    let have_blas = blas.is_some();
    for (krate, d) in [
        ("hip_sys", Some(sys)),
        ("hipblas_sys", blas),
        ("hiprand_sys", rand),
        ("hipfft_sys", fft),
        ("hipblaslt_sys", lt),
        // hipSPARSE before hipSOLVER: hipsolver-sys declares hipSPARSE's
        // handle types too, and the first crate to declare a name binds
        // it, so cuSPARSE's names must come from hipsparse-sys (the
        // `cusparse` feature does not pull in hipsolver-sys).
        ("hipsparse_sys", sparse),
        ("hipsolver_sys", solver),
    ] {
        let Some(d) = d else { continue };
        for n in d
            .functions
            .keys()
            .chain(d.aliases.keys())
            .chain(d.structs.iter())
            .chain(d.enums.keys())
            .chain(d.consts.keys())
        {
            crate_of.entry(n.clone()).or_insert(krate);
        }
        all.functions.extend(d.functions);
        all.aliases.extend(d.aliases);
        all.structs.extend(d.structs);
        for (k, v) in d.enums {
            all.enums.entry(k).or_insert(v);
        }
        all.consts.extend(d.consts);
    }
    let mut hip_headers = input::headers_below(&rocm.join("include/hip"));
    hip_headers.extend(input::headers_below(&rocm.join("include/hipblas")));
    hip_headers.extend(input::headers_below(&rocm.join("include/hipblas-common")));
    hip_headers.extend(input::headers_below(&rocm.join("include/hiprand")));
    hip_headers.extend(input::headers_below(&rocm.join("include/hipfft")));
    hip_headers.extend(input::headers_below(&rocm.join("include/hipblaslt")));
    hip_headers.extend(input::headers_below(&rocm.join("include/hipsolver")));
    hip_headers.extend(input::headers_below(&rocm.join("include/hipsparse")));
    let (renames, macros) = input::defines(&hip_headers)?;
    let cast_macros = input::cast_macros(&hip_headers)?;
    let in_headers = input::identifiers(&hip_headers)?;
    let hip = Hip {
        all,
        crate_of,
        renames,
        macros,
        cast_macros,
        in_headers,
        have_blas,
        prefer_hipblas_v2: manifest.prefer_hipblas_v2,
    };

    // CUDA side.
    let mut cuda: BTreeMap<Module, Decls> = BTreeMap::new();
    let includes: Vec<&str> = manifest
        .bindgen_includes
        .iter()
        .map(String::as_str)
        .collect();
    for m in Module::ALL {
        let headers = &manifest.module(m).headers;
        cuda.insert(m, input::cuda_decls(&cuda_inc, &includes, headers)?);
    }
    let mut cuda_files: Vec<_> = manifest
        .modules
        .iter()
        .flat_map(|spec| spec.headers.iter().map(|h| cuda_inc.join(h)))
        .collect();
    // `#define cublasSgemm cublasSgemm_v2` and the like.
    cuda_files.extend(manifest.rename_headers.iter().map(|h| cuda_inc.join(h)));
    let (cuda_renames, _) = input::defines(&cuda_files)?;
    // Home module of every CUDA name declared in the headers.
    let mut home: BTreeMap<String, Module> = BTreeMap::new();
    for (m, d) in &cuda {
        for n in d
            .functions
            .keys()
            .chain(d.aliases.keys())
            .chain(d.structs.iter())
            .chain(d.enums.keys())
            .chain(d.consts.keys())
        {
            home.entry(n.clone()).or_insert(*m);
        }
        for (_, consts) in d.enums.values() {
            for (c, _) in consts {
                home.entry(c.clone()).or_insert(*m);
            }
        }
    }
    for (from, to) in &cuda_renames {
        if let Some(m) = home.get(to).copied() {
            home.entry(from.clone()).or_insert(m);
        }
    }
    let handwritten: BTreeMap<String, Module> = manifest
        .handwritten
        .iter()
        .map(|(n, m)| {
            let module =
                Module::from_name(m).with_context(|| format!("handwritten {n}: no module {m}"))?;
            Ok((n.clone(), module))
        })
        .collect::<Result<_>>()?;
    Ok(Inputs {
        maps,
        hipify,
        hip,
        cuda,
        cuda_renames,
        home,
        handwritten,
        prefixes: manifest.prefixes(),
    })
}

/// Where a HIP name lives.
pub(super) struct Hip {
    pub(super) all: Decls,
    pub(super) crate_of: BTreeMap<String, &'static str>,
    pub(super) renames: BTreeMap<String, String>,
    pub(super) macros: BTreeSet<String>,
    /// `#define hipCpuDeviceId ((int)-1)`: name -> (type, literal).
    pub(super) cast_macros: BTreeMap<String, (String, String)>,
    /// Every identifier in the ROCm headers.
    pub(super) in_headers: BTreeSet<String>,
    pub(super) have_blas: bool,
    pub(super) prefer_hipblas_v2: bool,
}

impl Hip {
    /// The crate binding a HIP name (`hip_sys` unless hipblas-sys has it).
    pub(super) fn crate_name(&self, name: &str) -> &'static str {
        self.crate_of.get(name).copied().unwrap_or("hip_sys")
    }

    /// `::hip_sys::NAME` or `::hipblas_sys::NAME`.
    pub(super) fn path(&self, name: &str) -> TokenStream {
        let krate = format_ident!("{}", self.crate_of.get(name).copied().unwrap_or("hip_sys"));
        let n = format_ident!("{name}");
        quote!(::#krate::#n)
    }

    /// The bound HIP function for a hipify target, following HIP's own
    /// `#define hipFoo hipFooR0600` renames.
    pub(super) fn function(&self, name: &str) -> Option<String> {
        if self.prefer_hipblas_v2 && name.starts_with("hipblas") && !name.contains("_v2") {
            let v2 = match name.strip_suffix("_64") {
                Some(base) => format!("{base}_v2_64"),
                None => format!("{name}_v2"),
            };
            if self.all.functions.contains_key(&v2) {
                return Some(v2);
            }
        }
        if self.all.functions.contains_key(name) {
            return Some(name.to_owned());
        }
        let r = self.renames.get(name)?;
        self.all.functions.contains_key(r).then(|| r.clone())
    }

    pub(super) fn type_name(&self, name: &str) -> Option<String> {
        if self.all.has_type(name) {
            return Some(name.to_owned());
        }
        let r = self.renames.get(name)?;
        self.all.has_type(r).then(|| r.clone())
    }

    /// Enum a HIP constant belongs to, following HIP's `#define` renames
    /// (`hipKernelNodeAttributeCooperative` -> `hipLaunchAttributeCooperative`).
    pub(super) fn enum_of_const(&self, name: &str) -> Option<(String, i64)> {
        self.enum_of_const_exact(name).or_else(|| {
            let r = self.renames.get(name)?;
            self.enum_of_const_exact(r)
        })
    }

    /// The HIP constant a hipify target names (itself or its rename).
    pub(super) fn const_name(&self, name: &str) -> String {
        if self.enum_of_const_exact(name).is_none() {
            if let Some(r) = self.renames.get(name) {
                if self.enum_of_const_exact(r).is_some() {
                    return r.clone();
                }
            }
        }
        name.to_owned()
    }

    pub(super) fn enum_of_const_exact(&self, name: &str) -> Option<(String, i64)> {
        for (e, (_, consts)) in &self.all.enums {
            if let Some((_, v)) = consts.iter().find(|(c, _)| c == name) {
                return Some((e.clone(), *v));
            }
        }
        None
    }

    /// Why a hipify target is not usable.
    pub(super) fn missing_reason(&self, hip: &str) -> String {
        if self.macros.contains(hip) {
            format!("HIP target `{hip}` is a macro")
        } else if !self.in_headers.contains(hip) {
            format!("HIP target `{hip}` is not in the ROCm 6.4 headers (newer hipify-perl)")
        } else if hip.starts_with("hipblas") && !self.have_blas {
            format!("HIP target `{hip}`: hipblas-sys bindings not generated yet")
        } else if hip.starts_with("hipblasLt") {
            format!("HIP target `{hip}` is in hipBLASLt, not bound")
        } else {
            format!("HIP target `{hip}` not bound")
        }
    }
}
