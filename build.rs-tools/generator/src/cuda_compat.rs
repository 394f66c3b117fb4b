//! `cargo run -p hip-generator -- cuda-compat`: generates cuda-compat's CUDA
//! named modules from hipify-perl's CUDA->HIP table, the CUDA 12.x headers
//! and the committed bindings of hip-sys and hipblas-sys.
//!
//! Every CUDA name goes through the same decision:
//! - hipify-perl maps it to a HIP name that our -sys crates bind: emitted
//!   (function wrapper, enum newtype, type alias or constant);
//! - otherwise it is listed in `cuda-compat/COVERAGE.md` with the reason.
//!
//! Enumerators of a mapped CUDA enum that have no HIP counterpart are emitted
//! behind the `synthesized-enums` feature with values disjoint from HIP's.

use crate::cuda_compat_input::{self as input, Decls, Mapping, Module, Sig, Ty};
use anyhow::{bail, Context, Result};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use syn::Type;

/// The feature that turns on synthesized enumerators.
const FEATURE: &str = "synthesized-enums";
/// First value tried for a synthesized enumerator.
const SYNTH_BASE: i64 = 0x4000_0000;
/// Status enums: `#[must_use]`, `ok()`, `Error`.
const STATUS: &[&str] = &[
    "cudaError",
    "cudaError_enum",
    "nvrtcResult",
    "cublasStatus_t",
];

/// `filters/cuda-compat.toml`: decisions the tables cannot make.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Overrides {
    /// HIP structs of identical layout that a CUDA type may stand for (the
    /// first is what CUDA's type resolves to, the second what HIP takes).
    #[serde(default)]
    layout_equivalent: Vec<(String, String)>,
    /// Use hipBLAS's `_v2` function (hipDataType, hipComplex: CUDA's
    /// types and values) where hipify-perl names the v1 one.
    #[serde(default)]
    prefer_hipblas_v2: bool,
    /// CUDA function -> HIP function, replacing hipify-perl's target.
    #[serde(default)]
    hip_target: BTreeMap<String, String>,
    /// CUDA inline helpers written by hand in `cuda-compat/src/inline.rs`
    /// (HIP's are inline header functions, not symbols): name -> module.
    #[serde(default)]
    handwritten: BTreeMap<String, String>,
    /// CUDA function -> values for HIP's trailing parameters CUDA lacks.
    #[serde(default)]
    extra_args: BTreeMap<String, Vec<String>>,
}

impl Overrides {
    fn load(path: &Path) -> Result<Overrides> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        toml::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }
}

/// Where a HIP name lives.
struct Hip {
    all: Decls,
    crate_of: BTreeMap<String, &'static str>,
    renames: BTreeMap<String, String>,
    macros: BTreeSet<String>,
    /// `#define hipCpuDeviceId ((int)-1)`: name -> (type, literal).
    cast_macros: BTreeMap<String, (String, String)>,
    /// Every identifier in the ROCm headers.
    in_headers: BTreeSet<String>,
    have_blas: bool,
    prefer_hipblas_v2: bool,
}

impl Hip {
    fn path(&self, name: &str) -> TokenStream {
        let krate = format_ident!("{}", self.crate_of.get(name).copied().unwrap_or("hip_sys"));
        let n = format_ident!("{name}");
        quote!(::#krate::#n)
    }

    /// The bound HIP function for a hipify target, following HIP's own
    /// `#define hipFoo hipFooR0600` renames.
    fn function(&self, name: &str) -> Option<String> {
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

    fn type_name(&self, name: &str) -> Option<String> {
        if self.all.has_type(name) {
            return Some(name.to_owned());
        }
        let r = self.renames.get(name)?;
        self.all.has_type(r).then(|| r.clone())
    }

    /// Enum a HIP constant belongs to, following HIP's `#define` renames
    /// (`hipKernelNodeAttributeCooperative` -> `hipLaunchAttributeCooperative`).
    fn enum_of_const(&self, name: &str) -> Option<(String, i64)> {
        self.enum_of_const_exact(name).or_else(|| {
            let r = self.renames.get(name)?;
            self.enum_of_const_exact(r)
        })
    }

    /// The HIP constant a hipify target names (itself or its rename).
    fn const_name(&self, name: &str) -> String {
        if self.enum_of_const_exact(name).is_none() {
            if let Some(r) = self.renames.get(name) {
                if self.enum_of_const_exact(r).is_some() {
                    return r.clone();
                }
            }
        }
        name.to_owned()
    }

    fn enum_of_const_exact(&self, name: &str) -> Option<(String, i64)> {
        for (e, (_, consts)) in &self.all.enums {
            if let Some((_, v)) = consts.iter().find(|(c, _)| c == name) {
                return Some((e.clone(), *v));
            }
        }
        None
    }

    /// Why a hipify target is not usable.
    fn missing_reason(&self, hip: &str) -> String {
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

/// One emitted enum.
struct EnumDef {
    module: Module,
    name: String,
    aliases: Vec<String>,
    hip: String,
    inner: Type,
    /// (CUDA name, HIP const name) of mapped enumerators.
    mapped: Vec<(String, String)>,
    /// (CUDA name, value) of synthesized ones.
    synthesized: Vec<(String, i64)>,
    /// Every CUDA enumerator in CUDA's order.
    order: Vec<String>,
}

/// What a CUDA type name is in cuda-compat.
#[derive(Clone)]
enum TypeDef {
    Enum(String /* HIP enum */),
    Alias(String /* HIP type */),
    /// CUDA's own definition, a primitive (`CUdeviceptr = u64`).
    Own(String),
    /// Another name of cuda-compat's enum (module, enum, HIP enum).
    CompatAlias(Module, String, String),
}

#[derive(Default)]
struct Report {
    /// module -> (CUDA name, what, detail)
    mapped: BTreeMap<Module, Vec<(String, &'static str, String)>>,
    /// module -> (CUDA name, reason)
    unmapped: BTreeMap<Module, Vec<(String, String)>>,
    synthesized: BTreeMap<Module, Vec<(String, String)>>,
    /// hipify mappings in scope, and those whose HIP target we bind.
    hipify_in_scope: usize,
    hipify_target_bound: usize,
    hipify_bound_emitted: usize,
    not_emitted_but_bound: Vec<String>,
}

pub(crate) fn generate(root: &Path) -> Result<()> {
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
    let overrides =
        Overrides::load(&root.join("build.rs-tools/generator/filters/cuda-compat.toml"))?;
    for m in &mut maps {
        if let Some(h) = overrides.hip_target.get(&m.cuda) {
            m.hip = h.clone();
        }
    }
    let hipify: BTreeMap<&str, &Mapping> = maps.iter().map(|m| (m.cuda.as_str(), m)).collect();

    // HIP side.
    let sys = input::parse_bindings(&root.join("hip-sys/src/generated"))?
        .context("hip-sys/src/generated missing: run `cargo run -p hip-generator -- hip`")?;
    let blas = input::parse_bindings(&root.join("hipblas-sys/src/generated"))?;
    let mut crate_of = BTreeMap::new();
    let mut all = Decls::default();
    let have_blas = blas.is_some();
    for (krate, d) in [("hip_sys", Some(sys)), ("hipblas_sys", blas)] {
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
        prefer_hipblas_v2: overrides.prefer_hipblas_v2,
    };

    // CUDA side.
    let mut cuda: BTreeMap<Module, Decls> = BTreeMap::new();
    for m in Module::ALL {
        cuda.insert(m, input::cuda_decls(&cuda_inc, m)?);
    }
    let mut cuda_files: Vec<_> = Module::ALL
        .iter()
        .flat_map(|m| m.headers().iter().map(|h| cuda_inc.join(h)))
        .collect();
    // `#define cublasSgemm cublasSgemm_v2` and the like.
    cuda_files.push(cuda_inc.join("cublas_v2.h"));
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
    let handwritten: BTreeMap<String, Module> = overrides
        .handwritten
        .iter()
        .map(|(n, m)| {
            let module = Module::ALL
                .into_iter()
                .find(|x| x.name() == m)
                .with_context(|| format!("handwritten {n}: no module {m}"))?;
            Ok((n.clone(), module))
        })
        .collect::<Result<_>>()?;
    let module_of = |name: &str| {
        handwritten
            .get(name)
            .copied()
            .or_else(|| home.get(name).copied())
            .or_else(|| Module::by_prefix(name))
    };

    let mut report = Report::default();
    let mut emitted: BTreeSet<String> = BTreeSet::new();

    // 1. Enums.
    let mut enums: Vec<EnumDef> = Vec::new();
    let mut types: BTreeMap<String, (Module, TypeDef)> = BTreeMap::new();
    for (m, d) in &cuda {
        for ename in &d.enum_order {
            let (_, consts) = &d.enums[ename];
            let aliases: Vec<String> = d
                .aliases
                .keys()
                .filter(|a| d.enum_of(a).as_deref() == Some(ename.as_str()))
                .cloned()
                .collect();
            let by_name = std::iter::once(ename)
                .chain(aliases.iter())
                .filter_map(|n| hipify.get(n.as_str()))
                .filter_map(|mp| hip.type_name(&mp.hip))
                .find_map(|h| hip.all.enum_of(&h));
            let target = by_name.or_else(|| {
                let mut count: BTreeMap<String, usize> = BTreeMap::new();
                for (c, _) in consts {
                    if let Some(mp) = hipify.get(c.as_str()) {
                        if let Some((e, _)) = hip.enum_of_const(&mp.hip) {
                            *count.entry(e).or_default() += 1;
                        }
                    }
                }
                count.into_iter().max_by_key(|(_, n)| *n).map(|(e, _)| e)
            });
            let Some(h) = target else {
                let reason = match hipify
                    .get(ename.as_str())
                    .or_else(|| aliases.iter().find_map(|a| hipify.get(a.as_str())))
                {
                    Some(mp) => hip.missing_reason(&mp.hip),
                    None => "no HIP counterpart in hipify-perl".to_owned(),
                };
                for n in std::iter::once(ename).chain(aliases.iter()) {
                    report
                        .unmapped
                        .entry(*m)
                        .or_default()
                        .push((n.clone(), format!("enum: {reason}")));
                }
                for (c, _) in consts {
                    let r = match hipify.get(c.as_str()) {
                        Some(mp) if hip.enum_of_const(&mp.hip).is_none() => {
                            hip.missing_reason(&mp.hip)
                        }
                        _ => format!("its enum `{ename}` is not mapped"),
                    };
                    report.unmapped.entry(*m).or_default().push((c.clone(), r));
                }
                continue;
            };
            let (inner, hip_consts) = hip.all.enums[&h].clone();
            let hip_values: BTreeSet<i64> = hip_consts.iter().map(|(_, v)| *v).collect();
            let mut mapped = Vec::new();
            let mut synthesized = Vec::new();
            let mut next = SYNTH_BASE;
            for (c, _) in consts {
                let hip_const = hipify.get(c.as_str()).and_then(|mp| {
                    let (e, _) = hip.enum_of_const(&mp.hip)?;
                    (e == h).then(|| hip.const_name(&mp.hip))
                });
                match hip_const {
                    Some(hc) => {
                        report.mapped.entry(*m).or_default().push((
                            c.clone(),
                            "enumerator",
                            format!("`{h}::{hc}`"),
                        ));
                        mapped.push((c.clone(), hc));
                    }
                    None => {
                        while hip_values.contains(&next) {
                            next += 1;
                        }
                        let reason = match hipify.get(c.as_str()) {
                            None => "no HIP counterpart in hipify-perl".to_owned(),
                            Some(mp) => match hip.enum_of_const(&mp.hip) {
                                Some((e, _)) => {
                                    format!("HIP target `{}` is in enum `{e}`, not `{h}`", mp.hip)
                                }
                                None => hip.missing_reason(&mp.hip),
                            },
                        };
                        report
                            .unmapped
                            .entry(*m)
                            .or_default()
                            .push((c.clone(), reason.clone()));
                        report
                            .synthesized
                            .entry(*m)
                            .or_default()
                            .push((c.clone(), format!("`{next:#x}` ({reason})")));
                        synthesized.push((c.clone(), next));
                        next += 1;
                    }
                }
            }
            for n in std::iter::once(ename).chain(aliases.iter()) {
                types.insert(n.clone(), (*m, TypeDef::Enum(h.clone())));
                emitted.insert(n.clone());
                report
                    .mapped
                    .entry(*m)
                    .or_default()
                    .push((n.clone(), "enum", format!("`{h}`")));
            }
            for (c, _) in &mapped {
                emitted.insert(c.clone());
            }
            enums.push(EnumDef {
                module: *m,
                name: ename.clone(),
                aliases,
                hip: h,
                inner,
                mapped,
                synthesized,
                order: consts.iter().map(|(c, _)| c.clone()).collect(),
            });
        }
    }

    // 2. Other types: those hipify maps, and CUDA's typedefs of primitives.
    let mut type_names: BTreeSet<String> = BTreeSet::new();
    for d in cuda.values() {
        type_names.extend(d.aliases.keys().cloned());
        type_names.extend(d.structs.iter().cloned());
    }
    for mp in &maps {
        if mp.kind == "type" {
            type_names.insert(mp.cuda.clone());
        }
    }
    for t in &type_names {
        if types.contains_key(t) {
            continue;
        }
        let Some(m) = module_of(t) else { continue };
        let cuda_decl = cuda
            .get(&m)
            .filter(|d| d.aliases.contains_key(t) || d.structs.contains(t));
        let cuda_prim = cuda_decl.and_then(|d| match d.resolve(&syn::parse_str(t).ok()?) {
            Ty::Prim(p) => Some(p),
            _ => None,
        });
        // HIP keeps some CUDA names as they are (`dim3`): no hipify entry.
        let hip_t = match hipify.get(t.as_str()) {
            Some(mp) => hip.type_name(&mp.hip),
            None => hip.type_name(t),
        };
        let def = match (hip_t, cuda_prim) {
            (Some(h), Some(p)) => {
                if hip.all.resolve(&syn::parse_str(&h)?) == Ty::Prim(p.clone()) {
                    TypeDef::Alias(h)
                } else {
                    TypeDef::Own(p)
                }
            }
            (Some(h), None) => {
                // A CUDA alias of an enum (`cublasStatus`): an alias of
                // cuda-compat's enum over the same HIP enum.
                let compat = hip.all.enum_of(&h).and_then(|he| {
                    enums
                        .iter()
                        .filter(|e| e.hip == he)
                        .min_by_key(|e| (e.module != m, e.module))
                });
                match compat {
                    Some(e) => TypeDef::CompatAlias(e.module, e.name.clone(), e.hip.clone()),
                    None => TypeDef::Alias(h),
                }
            }
            (None, Some(p)) => TypeDef::Own(p),
            (None, None) => {
                if cuda_decl.is_some() || hipify.contains_key(t.as_str()) {
                    let reason = match hipify.get(t.as_str()) {
                        Some(mp) => hip.missing_reason(&mp.hip),
                        None => "no HIP counterpart in hipify-perl".to_owned(),
                    };
                    report
                        .unmapped
                        .entry(m)
                        .or_default()
                        .push((t.clone(), reason));
                }
                continue;
            }
        };
        let detail = match &def {
            TypeDef::Alias(h) => format!("`{h}`"),
            TypeDef::Own(p) => format!("`{p}` (CUDA's own typedef, ABI-identical)"),
            TypeDef::Enum(h) => format!("`{h}`"),
            TypeDef::CompatAlias(em, e, h) => format!("`{h}` (alias of `{}::{e}`)", em.name()),
        };
        report
            .mapped
            .entry(m)
            .or_default()
            .push((t.clone(), "type", detail));
        emitted.insert(t.clone());
        types.insert(t.clone(), (m, def));
    }

    // 3. Functions.
    let mut functions: BTreeMap<Module, Vec<TokenStream>> = BTreeMap::new();
    let mut fn_names: BTreeSet<String> = BTreeSet::new();
    for d in cuda.values() {
        fn_names.extend(d.functions.keys().cloned());
    }
    for mp in &maps {
        if hip.function(&mp.hip).is_some() || cuda_renames.contains_key(&mp.cuda) {
            fn_names.insert(mp.cuda.clone());
        }
    }
    fn_names.retain(|n| {
        !types.contains_key(n) && !home.get(n).is_some_and(|_| is_enumerator(&cuda, n))
    });
    let ctx = SigCtx {
        hip: &hip,
        extra_args: &overrides.extra_args,
        layout_equivalent: &overrides.layout_equivalent,
        types: &types,
        enums: &enums,
    };
    for f in &fn_names {
        let Some(m) = module_of(f) else { continue };
        let Some(mp) = hipify.get(f.as_str()) else {
            if cuda[&m].functions.contains_key(f) {
                report
                    .unmapped
                    .entry(m)
                    .or_default()
                    .push((f.clone(), "no HIP counterpart in hipify-perl".to_owned()));
            }
            continue;
        };
        let Some(h) = hip.function(&mp.hip) else {
            let cuda_fn = cuda[&m].functions.contains_key(f)
                || cuda_renames
                    .get(f)
                    .is_some_and(|r| cuda[&m].functions.contains_key(r));
            if !cuda_fn {
                continue; // not a function: a type or constant, handled elsewhere
            }
            report
                .unmapped
                .entry(m)
                .or_default()
                .push((f.clone(), hip.missing_reason(&mp.hip)));
            continue;
        };
        let cuda_sig = cuda[&m]
            .functions
            .get(f)
            .or_else(|| cuda_renames.get(f).and_then(|r| cuda[&m].functions.get(r)));
        let (tokens, note) = ctx.wrapper(m, f, &h, cuda_sig, &hip.all.functions[&h])?;
        functions.entry(m).or_default().push(tokens);
        let detail = if h == mp.hip {
            format!("`{h}`{note}")
        } else if h.starts_with(&mp.hip) {
            format!(
                "`{h}` (hipify-perl: `{}`; the v2 form takes CUDA's types){note}",
                mp.hip
            )
        } else {
            format!("`{h}` (HIP's `{}` is a macro for it){note}", mp.hip)
        };
        report
            .mapped
            .entry(m)
            .or_default()
            .push((f.clone(), "function", detail));
        emitted.insert(f.clone());
    }

    // 4. Constants: HIP `#define`s bound as constants, and enumerators whose
    //    CUDA enum is not mapped but whose HIP target is an enumerator.
    let mut consts: BTreeMap<Module, Vec<TokenStream>> = BTreeMap::new();
    let mut cuda_consts: BTreeSet<String> = BTreeSet::new();
    for d in cuda.values() {
        cuda_consts.extend(d.consts.keys().cloned());
    }
    for mp in &maps {
        if emitted.contains(&mp.cuda) {
            continue;
        }
        let Some(m) = module_of(&mp.cuda) else {
            continue;
        };
        if let Some(t) = hip.all.consts.get(&mp.hip) {
            let name = format_ident!("{}", mp.cuda);
            let path = hip.path(&mp.hip);
            let doc = format!(" CUDA `{}`: HIP's `{}`.", mp.cuda, mp.hip);
            consts.entry(m).or_default().push(quote! {
                #[doc = #doc]
                pub const #name: #t = #path;
            });
            report.mapped.entry(m).or_default().push((
                mp.cuda.clone(),
                "constant",
                format!("`{}`", mp.hip),
            ));
            emitted.insert(mp.cuda.clone());
        } else if let Some((e, _)) = hip.enum_of_const(&mp.hip) {
            if is_enumerator(&cuda, &mp.cuda) {
                continue; // reported with its enum
            }
            let name = format_ident!("{}", mp.cuda);
            let ty = hip.path(&e);
            let hc = format_ident!("{}", hip.const_name(&mp.hip));
            let doc = format!(" CUDA `{}`: HIP's `{e}::{}`.", mp.cuda, mp.hip);
            consts.entry(m).or_default().push(quote! {
                #[doc = #doc]
                pub const #name: #ty = #ty::#hc;
            });
            report.mapped.entry(m).or_default().push((
                mp.cuda.clone(),
                "constant",
                format!("`{e}::{}`", mp.hip),
            ));
            emitted.insert(mp.cuda.clone());
        }
    }
    // HIP's `#define hipCpuDeviceId ((int)-1)`-style constants.
    for mp in &maps {
        if emitted.contains(&mp.cuda) {
            continue;
        }
        let Some(m) = module_of(&mp.cuda) else {
            continue;
        };
        let Some((cty, lit)) = hip.cast_macros.get(&mp.hip) else {
            continue;
        };
        let (ty, value) = match cty.as_str() {
            "int" => (quote!(::core::ffi::c_int), lit.clone()),
            "unsigned" | "unsigned int" => (quote!(::core::ffi::c_uint), lit.clone()),
            t if hip.all.has_type(t) => {
                let path = hip.path(t);
                match hip.all.resolve(&syn::parse_str(t)?) {
                    Ty::Ptr { .. } => (path.clone(), format!("{lit}usize as {path}")),
                    _ => continue,
                }
            }
            _ => continue,
        };
        let name = format_ident!("{}", mp.cuda);
        let value: syn::Expr = syn::parse_str(&value)?;
        let doc = format!(" CUDA `{}`: HIP's `{}`, `(({cty}){lit})`.", mp.cuda, mp.hip);
        consts.entry(m).or_default().push(quote! {
            #[doc = #doc]
            pub const #name: #ty = #value;
        });
        report.mapped.entry(m).or_default().push((
            mp.cuda.clone(),
            "constant",
            format!("`{}` (HIP macro `(({cty}){lit})`)", mp.hip),
        ));
        emitted.insert(mp.cuda.clone());
    }
    for c in &cuda_consts {
        if emitted.contains(c) {
            continue;
        }
        let Some(m) = module_of(c) else { continue };
        let reason = match hipify.get(c.as_str()) {
            Some(mp) => hip.missing_reason(&mp.hip),
            None => "no HIP counterpart in hipify-perl".to_owned(),
        };
        report
            .unmapped
            .entry(m)
            .or_default()
            .push((c.clone(), reason));
    }
    // CUDA's inline helpers, written by hand (HIP's are header-only).
    for (name, m) in &handwritten {
        let ni = format_ident!("{name}");
        consts.entry(*m).or_default().push(quote! {
            pub use crate::inline::#ni;
        });
        let hip_name = hipify.get(name.as_str()).map_or("-", |mp| mp.hip.as_str());
        report.mapped.entry(*m).or_default().push((
            name.clone(),
            "function",
            format!(
                "hand-written in `src/inline.rs` (HIP's `{hip_name}` is an inline header function)"
            ),
        ));
        emitted.insert(name.clone());
    }
    // hipify entries of our modules not yet accounted for.
    let mut accounted: BTreeSet<String> = emitted.clone();
    for v in report.unmapped.values() {
        accounted.extend(v.iter().map(|(n, _)| n.clone()));
    }
    for mp in &maps {
        let Some(m) = module_of(&mp.cuda) else {
            continue;
        };
        if !accounted.contains(&mp.cuda) {
            let bound = hip.function(&mp.hip).is_some() || hip.type_name(&mp.hip).is_some();
            let reason = if bound {
                "CUDA name is not a function, type or constant of the CUDA 12.x headers".to_owned()
            } else {
                hip.missing_reason(&mp.hip)
            };
            report
                .unmapped
                .entry(m)
                .or_default()
                .push((mp.cuda.clone(), reason));
            accounted.insert(mp.cuda.clone());
        }
    }
    // The coverage figure: hipify mappings whose HIP target we bind.
    for mp in &maps {
        if module_of(&mp.cuda).is_none() {
            continue;
        }
        report.hipify_in_scope += 1;
        let bound = hip.function(&mp.hip).is_some()
            || hip.type_name(&mp.hip).is_some()
            || hip.all.consts.contains_key(&mp.hip)
            || hip.cast_macros.contains_key(&mp.hip)
            || hip.enum_of_const(&mp.hip).is_some();
        if bound {
            report.hipify_target_bound += 1;
            if emitted.contains(&mp.cuda) {
                report.hipify_bound_emitted += 1;
            } else {
                report.not_emitted_but_bound.push(mp.cuda.clone());
            }
        }
    }

    // Emit.
    let out_dir = root.join("cuda-compat/src/generated");
    std::fs::create_dir_all(&out_dir)?;
    let header = "// @generated by hip-generator (build.rs-tools/generator/src/cuda_compat.rs). Do not edit.\n\
                  // Regenerate with `cargo run -p hip-generator -- cuda-compat`.\n\
                  // Inputs: hipify-perl (ROCm), CUDA 12.9 headers, hip-sys and hipblas-sys bindings.\n\n";
    for m in Module::ALL {
        let mut body = TokenStream::new();
        body.extend(quote! {
            #[allow(unused_imports)]
            use ::core::ffi::*;
        });
        for (name, (tm, def)) in &types {
            if *tm != m {
                continue;
            }
            let n = format_ident!("{name}");
            match def {
                TypeDef::Enum(_) => {}
                TypeDef::Alias(h) => {
                    let p = hip.path(h);
                    let doc = format!(" CUDA `{name}`: HIP's `{h}`.");
                    body.extend(quote! { #[doc = #doc] pub type #n = #p; });
                }
                TypeDef::CompatAlias(em, e, h) => {
                    let (mi, ei) = (format_ident!("{}", em.name()), format_ident!("{e}"));
                    let doc = format!(
                        " CUDA `{name}`: another name of [`{e}`](crate::{}::{e}) (HIP's `{h}`).",
                        em.name()
                    );
                    body.extend(quote! { #[doc = #doc] pub type #n = crate::#mi::#ei; });
                }
                TypeDef::Own(p) => {
                    let t: Type = syn::parse_str(p)?;
                    let hip_name = hipify
                        .get(name.as_str())
                        .map(|mp| mp.hip.as_str())
                        .unwrap_or("-");
                    let doc = format!(
                        " CUDA `{name}`, CUDA's own definition (`{p}`); HIP's counterpart: `{hip_name}` (ABI-identical)."
                    );
                    body.extend(quote! { #[doc = #doc] pub type #n = #t; });
                }
            }
        }
        let mut tables = Vec::new();
        for e in enums.iter().filter(|e| e.module == m) {
            body.extend(emit_enum(e, &hip)?);
            let (n, h) = (format_ident!("{}", e.name), &e.hip);
            let cn = &e.name;
            tables.push(quote! {
                crate::EnumTable {
                    cuda: #cn,
                    hip: #h,
                    variants: #n::VARIANTS
                        .iter()
                        .map(|(name, v)| crate::EnumVariant {
                            name,
                            value: v.0 as i64,
                            synthesized: v.is_synthesized(),
                            hip_name: v.to_hip().name(),
                            debug: format!("{v:?}"),
                        })
                        .collect(),
                    no_hip_counterpart: &#n::NO_HIP_COUNTERPART,
                }
            });
        }
        let mdoc = format!(
            " Every enum of `{}` with its enumerators and values.",
            m.name()
        );
        body.extend(quote! {
            #[doc = #mdoc]
            pub fn enums() -> Vec<crate::EnumTable> {
                vec![#(#tables),*]
            }
        });
        body.extend(consts.remove(&m).unwrap_or_default());
        body.extend(functions.remove(&m).unwrap_or_default());
        let path = out_dir.join(format!("{}.rs", m.name()));
        std::fs::write(&path, format!("{header}{body}"))?;
        crate::rustfmt(&path)?;
    }

    let mut asserts = TokenStream::new();
    for (a, b) in &overrides.layout_equivalent {
        let (pa, pb) = (hip.path(a), hip.path(b));
        asserts.extend(quote! {
            const _: () = assert!(
                ::core::mem::size_of::<#pa>() == ::core::mem::size_of::<#pb>()
                    && ::core::mem::align_of::<#pa>() >= ::core::mem::align_of::<#pb>()
            );
        });
    }
    let path = out_dir.join("layout.rs");
    std::fs::write(
        &path,
        format!(
            "{header}//! Struct pairs the wrappers pass one for the other (from\n\
             //! `filters/cuda-compat.toml`): same size, and the CUDA side at least as aligned.\n\n{asserts}"
        ),
    )?;
    crate::rustfmt(&path)?;

    write_coverage(root, &report, &maps, &module_of)?;
    let mapped: usize = report.mapped.values().map(Vec::len).sum();
    let unmapped: usize = report.unmapped.values().map(Vec::len).sum();
    eprintln!(
        "hip-generator: cuda-compat: {mapped} names mapped, {unmapped} unmapped; hipify mappings with a bound HIP target: {}/{} emitted",
        report.hipify_bound_emitted, report.hipify_target_bound
    );
    Ok(())
}

fn is_enumerator(cuda: &BTreeMap<Module, Decls>, name: &str) -> bool {
    cuda.values().any(|d| {
        d.enums
            .values()
            .any(|(_, cs)| cs.iter().any(|(c, _)| c == name))
    })
}

fn emit_enum(e: &EnumDef, hip: &Hip) -> Result<TokenStream> {
    let name = format_ident!("{}", e.name);
    let inner = &e.inner;
    let hip_ty = hip.path(&e.hip);
    let status = STATUS.contains(&e.name.as_str());
    let must_use = if status {
        quote!(#[must_use])
    } else {
        quote!()
    };
    let doc = format!(
        " CUDA `{}`, with HIP's values: a value equals the CUDA-named constant of \
         the same meaning. Same layout as HIP's [`{}`]({}); converts with `From` both ways.",
        e.name,
        e.hip,
        hip_ty.to_string().replace(' ', "").trim_start_matches("::")
    );
    let mut assoc = Vec::new();
    let mut plain = Vec::new();
    let mut names_mapped = Vec::new();
    let mut names_synth = Vec::new();
    for (c, hc) in &e.mapped {
        let ci = format_ident!("{c}");
        let hi = format_ident!("{hc}");
        let d = format!(" CUDA `{c}` = HIP `{hc}`.");
        assoc.push(quote! { #[doc = #d] pub const #ci: Self = Self(#hip_ty::#hi.0); });
        let d2 = format!(" CUDA `{c}` (= [`{}::{c}`]).", e.name);
        plain.push(quote! { #[doc = #d2] pub const #ci: #name = #name::#ci; });
        names_mapped.push((ci, c.clone()));
    }
    let feat = FEATURE;
    for (c, v) in &e.synthesized {
        let ci = format_ident!("{c}");
        let lit = proc_macro2::Literal::i64_unsuffixed(*v);
        let d = format!(
            " CUDA `{c}`: synthesized, HIP has no counterpart. Never returned by any function; \
             its value ({v:#x}) is disjoint from every HIP value of `{}`.",
            e.hip
        );
        assoc.push(quote! {
            #[cfg(feature = #feat)]
            #[doc = #d]
            pub const #ci: Self = Self(#lit);
        });
        let d2 = format!(" CUDA `{c}`, synthesized (= [`{}::{c}`]).", e.name);
        plain.push(quote! {
            #[cfg(feature = #feat)]
            #[doc = #d2]
            pub const #ci: #name = #name::#ci;
        });
        names_synth.push((ci, c.clone()));
    }
    let aliases = e.aliases.iter().map(|a| {
        let ai = format_ident!("{a}");
        let d = format!(" CUDA `{a}` (= [`{}`]).", e.name);
        quote! { #[doc = #d] pub type #ai = #name; }
    });
    let mapped_match = names_mapped
        .iter()
        .map(|(i, s)| quote! { Self::#i => Some(#s), });
    let synth_match = names_synth
        .iter()
        .map(|(i, s)| quote! { #[cfg(feature = #feat)] Self::#i => Some(#s), });
    let synth_is = names_synth
        .iter()
        .map(|(i, _)| quote! { #[cfg(feature = #feat)] Self::#i => true, });
    let variants = e.order.iter().filter_map(|c| {
        let i = format_ident!("{c}");
        if e.mapped.iter().any(|(m, _)| m == c) {
            Some(quote! { (#c, Self::#i), })
        } else if e.synthesized.iter().any(|(m, _)| m == c) {
            Some(quote! { #[cfg(feature = #feat)] (#c, Self::#i), })
        } else {
            None
        }
    });
    let synth_list = names_synth.iter().map(|(_, s)| quote! { #s, });
    let n_synth = names_synth.len();
    let status_impl = if status {
        quote! {
            impl #name {
                /// `Ok(())` for success, else `Err(self)`.
                pub fn ok(self) -> Result<(), Self> {
                    if self.0 == 0 { Ok(()) } else { Err(self) }
                }
            }
            impl ::std::error::Error for #name {}
        }
    } else {
        quote!()
    };
    let ename = &e.name;
    Ok(quote! {
        #[doc = #doc]
        #[repr(transparent)]
        #must_use
        #[derive(Copy, Clone, Hash, PartialEq, Eq)]
        pub struct #name(pub #inner);
        #(#aliases)*
        impl #name {
            #(#assoc)*
            /// Every CUDA enumerator defined here with its value (synthesized
            /// ones only with the `synthesized-enums` feature), in CUDA's order.
            pub const VARIANTS: &'static [(&'static str, Self)] = &[#(#variants)*];
            /// The CUDA enumerators of this enum that HIP lacks (defined
            /// only with the `synthesized-enums` feature).
            pub const NO_HIP_COUNTERPART: [&'static str; #n_synth] = [#(#synth_list)*];
            /// The CUDA name of this value (the first of CUDA's order when
            /// several CUDA names share one HIP value), or `None`.
            #[allow(unreachable_patterns)]
            pub const fn name(self) -> Option<&'static str> {
                match self {
                    #(#mapped_match)*
                    #(#synth_match)*
                    _ => None,
                }
            }
            /// Whether this value is a synthesized enumerator (CUDA has it,
            /// HIP does not): never returned by any function.
            #[allow(clippy::match_like_matches_macro, unreachable_patterns)]
            pub const fn is_synthesized(self) -> bool {
                match self {
                    #(#synth_is)*
                    _ => false,
                }
            }
            /// The HIP value.
            pub const fn to_hip(self) -> #hip_ty {
                #hip_ty(self.0)
            }
            /// The CUDA-named value of a HIP value.
            pub const fn from_hip(h: #hip_ty) -> Self {
                Self(h.0)
            }
        }
        impl From<#hip_ty> for #name {
            fn from(h: #hip_ty) -> Self { Self(h.0) }
        }
        impl From<#name> for #hip_ty {
            fn from(c: #name) -> Self { Self(c.0) }
        }
        impl PartialEq<#hip_ty> for #name {
            fn eq(&self, other: &#hip_ty) -> bool { self.0 == other.0 }
        }
        impl PartialEq<#name> for #hip_ty {
            fn eq(&self, other: &#name) -> bool { self.0 == other.0 }
        }
        impl ::core::fmt::Debug for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    Some(n) if self.is_synthesized() => write!(f, "{} (synthesized)", n),
                    Some(n) => f.write_str(n),
                    None => write!(f, concat!(#ename, "({})"), self.0),
                }
            }
        }
        impl ::core::fmt::Display for #name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(self, f)
            }
        }
        #status_impl
        #(#plain)*
    })
}

struct SigCtx<'a> {
    hip: &'a Hip,
    /// CUDA function -> values of HIP's trailing parameters CUDA lacks.
    extra_args: &'a BTreeMap<String, Vec<String>>,
    /// HIP struct pairs with one layout (checked by generated asserts).
    layout_equivalent: &'a [(String, String)],
    types: &'a BTreeMap<String, (Module, TypeDef)>,
    enums: &'a [EnumDef],
}

/// A type resolved down to what the compiler sees, for comparing the CUDA
/// and HIP sides.
#[derive(Clone, Debug, PartialEq)]
enum Rt {
    /// cuda-compat's enum newtype (name), over the HIP enum.
    Compat(String, String),
    /// Any other resolved type.
    T(Ty),
}

impl SigCtx<'_> {
    /// The cuda-compat tokens and resolved form of a CUDA-declared type;
    /// `None` when it names a CUDA type cuda-compat lacks.
    fn cuda_type(&self, t: &Type) -> Option<(TokenStream, Rt)> {
        match input::ty_of(t) {
            Ty::Named(n) => {
                let (m, def) = self.types.get(&n)?;
                let path = {
                    let mi = format_ident!("{}", m.name());
                    let ni = format_ident!("{n}");
                    quote!(crate::#mi::#ni)
                };
                let rt = match def {
                    TypeDef::Enum(h) => {
                        let e = self
                            .enums
                            .iter()
                            .find(|e| e.name == n || e.aliases.contains(&n))?;
                        Rt::Compat(e.name.clone(), h.clone())
                    }
                    TypeDef::Alias(h) => self.hip_rt(&syn::parse_str(h).ok()?),
                    TypeDef::Own(p) => Rt::T(Ty::Prim(p.clone())),
                    TypeDef::CompatAlias(_, e, h) => Rt::Compat(e.clone(), h.clone()),
                };
                Some((path, rt))
            }
            Ty::Ptr { mutable, to } => {
                let Type::Ptr(p) = t else { return None };
                let (inner, rt) = self.cuda_type(&p.elem)?;
                let tokens = if mutable {
                    quote!(*mut #inner)
                } else {
                    quote!(*const #inner)
                };
                let rt = match rt {
                    Rt::T(ty) => Rt::T(Ty::Ptr {
                        mutable,
                        to: Box::new(ty),
                    }),
                    // Pointer to cuda-compat's enum: same layout as the HIP
                    // enum (both `repr(transparent)` over the same integer).
                    Rt::Compat(_, h) => Rt::T(Ty::Ptr {
                        mutable,
                        to: Box::new(Ty::Other(format!("compat:{h}"))),
                    }),
                };
                let _ = to;
                Some((tokens, rt))
            }
            Ty::Other(_) => None,
            ty => Some((quote!(#t), Rt::T(ty))),
        }
    }

    fn hip_rt(&self, t: &Type) -> Rt {
        let ty = self.hip.all.resolve(t);
        Rt::T(ty)
    }

    /// HIP tokens for a HIP-declared type (names qualified with their crate).
    fn hip_tokens(&self, t: &Type) -> TokenStream {
        match t {
            Type::Ptr(p) => {
                let inner = self.hip_tokens(&p.elem);
                if p.mutability.is_some() {
                    quote!(*mut #inner)
                } else {
                    quote!(*const #inner)
                }
            }
            Type::Path(tp) if tp.path.segments.len() == 1 && tp.qself.is_none() => {
                let n = tp.path.segments[0].ident.to_string();
                if self.hip.crate_of.contains_key(&n) {
                    self.hip.path(&n)
                } else {
                    quote!(#t)
                }
            }
            other => quote!(#other),
        }
    }

    /// Generates one wrapper; returns it and a note for the coverage report.
    fn wrapper(
        &self,
        m: Module,
        cuda: &str,
        hip: &str,
        cuda_sig: Option<&Sig>,
        hip_sig: &Sig,
    ) -> Result<(TokenStream, String)> {
        let name = format_ident!("{cuda}");
        let hip_path = self.hip.path(hip);
        let mut params = Vec::new();
        let mut args = Vec::new();
        let mut fallbacks = Vec::new();
        // HIP parameters CUDA lacks, passed as fixed values (from the
        // overrides file): the trailing ones.
        let extra: &[String] = self
            .extra_args
            .get(cuda)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let n_hip = hip_sig.params.len() - extra.len().min(hip_sig.params.len());
        let usable = cuda_sig.filter(|s| s.params.len() == n_hip);
        for (i, (hname, hty)) in hip_sig.params.iter().enumerate() {
            if usable.is_some() && i >= n_hip {
                let lit: syn::Expr = syn::parse_str(&extra[i - n_hip])?;
                args.push(quote!(#lit));
                continue;
            }
            let pname = usable
                .map(|s| s.params[i].0.clone())
                .unwrap_or_else(|| hname.clone());
            let pname = if pname.starts_with("r#") || pname.is_empty() {
                format!("arg{i}")
            } else {
                pname
            };
            let pi = format_ident!("{pname}");
            let hip_rt = self.hip_rt(hty);
            let hip_tokens = self.hip_tokens(hty);
            let chosen = usable
                .and_then(|s| self.cuda_type(&s.params[i].1))
                .and_then(|(ct, crt)| {
                    convert(self, &crt, &hip_rt, quote!(#pi)).map(|expr| (ct, expr))
                });
            match chosen {
                Some((ct, expr)) => {
                    params.push(quote!(#pi: #ct));
                    args.push(expr);
                }
                None => {
                    // HIP's own type for this parameter.
                    let ty = self
                        .compat_for_hip(m, hty)
                        .map(|(t, _)| t)
                        .unwrap_or(hip_tokens.clone());
                    let expr = match self.compat_for_hip(m, hty) {
                        Some(_) => quote!(#pi.into()),
                        None => quote!(#pi),
                    };
                    if usable.is_some() {
                        fallbacks.push(pname.clone());
                    }
                    params.push(quote!(#pi: #ty));
                    args.push(expr);
                }
            }
        }
        // Return type.
        let (ret_ty, ret_conv) = match &hip_sig.ret {
            None => (quote!(), false),
            Some(hr) => {
                let hip_rt = self.hip_rt(hr);
                let cuda_ret = usable
                    .and_then(|s| s.ret.as_ref())
                    .and_then(|r| self.cuda_type(r));
                match cuda_ret {
                    Some((ct, Rt::Compat(_, h))) if hip_rt == Rt::T(Ty::Named(h.clone())) => {
                        (quote!(-> #ct), true)
                    }
                    Some((ct, crt)) if crt == hip_rt => (quote!(-> #ct), false),
                    _ => match self.compat_for_hip(m, hr) {
                        Some((t, _)) => (quote!(-> #t), true),
                        None => {
                            let t = self.hip_tokens(hr);
                            (quote!(-> #t), false)
                        }
                    },
                }
            }
        };
        let call = quote! { unsafe { #hip_path(#(#args),*) } };
        let body = if ret_conv { quote!(#call.into()) } else { call };
        let mut note = String::new();
        if usable.is_some() && !extra.is_empty() {
            let _ = write!(
                note,
                "; HIP's extra arguments fixed to `{}`",
                extra.join("`, `")
            );
        }
        if cuda_sig.is_none() {
            note.push_str("; not in the CUDA 12.x headers, HIP's parameter types");
        } else if usable.is_none() {
            note.push_str("; CUDA's parameter list differs, HIP's parameters");
        } else if !fallbacks.is_empty() {
            let _ = write!(note, "; HIP's type for `{}`", fallbacks.join("`, `"));
        }
        let hip_doc = hip_path.to_string().replace(' ', "");
        let doc1 = format!(
            " CUDA `{cuda}`: calls HIP's [`{hip}`]({}).",
            hip_doc.trim_start_matches("::")
        );
        let doc2 = if note.is_empty() {
            " CUDA's signature; arguments pass unchanged or as ABI-identical types.".to_owned()
        } else {
            format!(" Signature note{}.", note)
        };
        Ok((
            quote! {
                #[doc = #doc1]
                #[doc = ""]
                #[doc = #doc2]
                #[doc = ""]
                #[doc = " # Safety"]
                #[doc = ""]
                #[doc = " The contract of the CUDA/HIP function: valid pointers for what it reads and writes, live handles, sizes that match the buffers."]
                #[inline]
                pub unsafe fn #name(#(#params),*) #ret_ty {
                    #body
                }
            },
            note,
        ))
    }

    /// cuda-compat's enum standing for a HIP enum type, preferring the
    /// module's own (`hipError_t` is `cudaError_t` in `runtime`, `CUresult`
    /// in `driver`).
    fn compat_for_hip(&self, m: Module, hty: &Type) -> Option<(TokenStream, String)> {
        let Ty::Named(h) = self.hip.all.resolve(hty) else {
            return None;
        };
        let e = self
            .enums
            .iter()
            .filter(|e| e.hip == h)
            .min_by_key(|e| (e.module != m, e.module))?;
        let mi = format_ident!("{}", e.module.name());
        let ni = format_ident!("{}", e.name);
        Some((quote!(crate::#mi::#ni), e.name.clone()))
    }
}

/// The expression passing CUDA-typed `x` where HIP's type is expected, when
/// the two are ABI-identical; `None` when they are not.
fn convert(ctx: &SigCtx<'_>, cuda: &Rt, hip: &Rt, x: TokenStream) -> Option<TokenStream> {
    let enum_width = |h: &str| {
        let (inner, _) = ctx.hip.all.enums.get(h)?;
        match input::ty_of(inner) {
            Ty::Prim(p) => width(&p),
            _ => None,
        }
    };
    match (cuda, hip) {
        (Rt::Compat(_, h), Rt::T(Ty::Named(hn))) if h == hn => Some(quote!(#x.into())),
        // CUDA's enum where HIP takes a plain integer of the same width.
        (Rt::Compat(_, h), Rt::T(Ty::Prim(p)))
            if enum_width(h).is_some() && enum_width(h) == width(p) =>
        {
            Some(quote!(#x.0 as _))
        }
        // CUDA's plain integer where HIP takes an enum of the same width.
        (Rt::T(Ty::Prim(p)), Rt::T(Ty::Named(h)))
            if enum_width(h).is_some() && enum_width(h) == width(p) =>
        {
            let path = ctx.hip.path(h);
            Some(quote!(#path(#x as _)))
        }
        (Rt::T(a), Rt::T(b)) if a == b => Some(x),
        (Rt::T(a), Rt::T(b)) if abi_same(ctx, a, b) => Some(quote!(#x as _)),
        _ => None,
    }
}

fn width(p: &str) -> Option<(u32, bool)> {
    Some(match p {
        "i8" | "u8" => (8, true),
        "i16" | "u16" => (16, true),
        "i32" | "u32" => (32, true),
        "i64" | "u64" | "usize" | "isize" => (64, true),
        "f32" => (32, false),
        "f64" => (64, false),
        _ => return None,
    })
}

/// ABI-identical on the 64-bit targets cuda-compat supports (the crate
/// asserts `usize` is 64 bits).
fn abi_same(ctx: &SigCtx<'_>, a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        _ if a == b => true,
        (Ty::Prim(x), Ty::Prim(y)) => width(x).is_some() && width(x) == width(y),
        (Ty::Ptr { to: ta, .. }, Ty::Ptr { to: tb, .. }) => {
            **ta == Ty::Void || **tb == Ty::Void || pointee_same(ctx, ta, tb)
        }
        (Ty::Ptr { .. }, Ty::Prim(p)) | (Ty::Prim(p), Ty::Ptr { .. }) => {
            matches!(p.as_str(), "u64" | "i64" | "usize" | "isize")
        }
        _ => false,
    }
}

fn pointee_same(ctx: &SigCtx<'_>, a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        _ if a == b => true,
        (Ty::Other(c), Ty::Named(h)) | (Ty::Named(h), Ty::Other(c)) => {
            c.strip_prefix("compat:") == Some(h.as_str())
        }
        (Ty::Named(x), Ty::Named(y)) => ctx
            .layout_equivalent
            .iter()
            .any(|(p, q)| (p == x && q == y) || (p == y && q == x)),
        _ => abi_same(ctx, a, b),
    }
}

fn write_coverage(
    root: &Path,
    r: &Report,
    maps: &[Mapping],
    module_of: &dyn Fn(&str) -> Option<Module>,
) -> Result<()> {
    let mut s = String::new();
    let mapped: usize = r.mapped.values().map(Vec::len).sum();
    let unmapped: usize = r.unmapped.values().map(Vec::len).sum();
    let synth: usize = r.synthesized.values().map(Vec::len).sum();
    let experimental = maps
        .iter()
        .filter(|m| m.experimental && module_of(&m.cuda).is_some())
        .count();
    writeln!(s, "# cuda-compat coverage\n")?;
    writeln!(
        s,
        "@generated by `cargo run -p hip-generator -- cuda-compat` from hipify-perl's CUDA->HIP table, \
         the CUDA 12.9 headers and the committed hip-sys / hipblas-sys bindings. Do not edit.\n"
    )?;
    writeln!(s, "## Summary\n")?;
    writeln!(
        s,
        "- hipify-perl mappings in scope (runtime, driver, nvrtc, cuBLAS host API): {} ({experimental} of them from `--experimental`)",
        r.hipify_in_scope
    )?;
    writeln!(
        s,
        "- of those, HIP target bound by our -sys crates: {}",
        r.hipify_target_bound
    )?;
    let pct = if r.hipify_target_bound == 0 {
        100.0
    } else {
        100.0 * r.hipify_bound_emitted as f64 / r.hipify_target_bound as f64
    };
    writeln!(
        s,
        "- of those, emitted under the CUDA name: {} (**{pct:.1}%**)",
        r.hipify_bound_emitted
    )?;
    if !r.not_emitted_but_bound.is_empty() {
        writeln!(
            s,
            "  - bound but not emitted: `{}`",
            r.not_emitted_but_bound.join("`, `")
        )?;
    }
    writeln!(s, "- CUDA names defined by cuda-compat: {mapped}")?;
    writeln!(s, "- CUDA names not defined (with reason): {unmapped}")?;
    writeln!(
        s,
        "- of those, enumerators synthesized with the `{FEATURE}` feature: {synth}\n"
    )?;
    let handwritten = r
        .mapped
        .values()
        .flatten()
        .filter(|(_, _, d)| d.starts_with("hand-written"))
        .count();
    writeln!(
        s,
        "- CUDA inline helpers written by hand (HIP's are header-only, see `src/inline.rs`): {handwritten}\n"
    )?;
    // Why names are not defined, by kind of reason.
    let mut why: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, reason) in r.unmapped.values().flatten() {
        let kind = if reason.contains("no HIP counterpart") {
            "no HIP counterpart in hipify-perl"
        } else if reason.contains("is a macro") {
            "HIP target is a macro (not a constant, type or function)"
        } else if reason.contains("newer hipify-perl") {
            "HIP target not in the ROCm 6.4 headers (hipify-perl is 7.0)"
        } else if reason.contains("hipBLASLt") {
            "HIP target is in hipBLASLt (not bound)"
        } else if reason.contains("not bound") {
            "HIP target not bound by hip-sys/hipblas-sys"
        } else if reason.contains("is not mapped") {
            "enumerator of a CUDA enum with no HIP enum"
        } else if reason.contains("is in enum") {
            "HIP target is an enumerator of another enum"
        } else {
            "other (see the tables)"
        };
        *why.entry(kind).or_default() += 1;
    }
    writeln!(
        s,
        "| reason a CUDA name is not defined | names |\n| --- | ---: |"
    )?;
    for (k, n) in &why {
        writeln!(s, "| {k} | {n} |")?;
    }
    writeln!(s)?;
    writeln!(
        s,
        "| module | mapped | unmapped | synthesized |\n| --- | ---: | ---: | ---: |"
    )?;
    for m in Module::ALL {
        writeln!(
            s,
            "| `{}` | {} | {} | {} |",
            m.name(),
            r.mapped.get(&m).map_or(0, Vec::len),
            r.unmapped.get(&m).map_or(0, Vec::len),
            r.synthesized.get(&m).map_or(0, Vec::len)
        )?;
    }
    for m in Module::ALL {
        writeln!(s, "\n## `{}`\n", m.name())?;
        writeln!(
            s,
            "### Mapped\n\n| CUDA | kind | HIP |\n| --- | --- | --- |"
        )?;
        let mut v = r.mapped.get(&m).cloned().unwrap_or_default();
        v.sort();
        for (n, k, d) in v {
            writeln!(s, "| `{n}` | {k} | {} |", d.replace('|', "\\|"))?;
        }
        writeln!(s, "\n### Not mapped\n\n| CUDA | reason |\n| --- | --- |")?;
        let mut v = r.unmapped.get(&m).cloned().unwrap_or_default();
        v.sort();
        for (n, why) in v {
            writeln!(s, "| `{n}` | {why} |")?;
        }
        writeln!(
            s,
            "\n### Synthesized with `{FEATURE}`\n\n| CUDA | value (reason) |\n| --- | --- |"
        )?;
        let mut v = r.synthesized.get(&m).cloned().unwrap_or_default();
        v.sort();
        for (n, d) in v {
            writeln!(s, "| `{n}` | {d} |")?;
        }
    }
    std::fs::write(root.join("cuda-compat/COVERAGE.md"), s)?;
    Ok(())
}
