//! Adapters over a CUDA library with the binding's argument order (hipBLAS
//! over cuBLAS): the pairs come from the manifest's families, and each pair
//! is checked against the CUDA header before it is written: the same number
//! of arguments, and each binding parameter's converted C type equal to the
//! header's parameter type.

use super::manifest::{Adapters, ArgumentRule};
use super::rust_bindings::Signature;
use anyhow::{bail, Context, Result};
use regex::Regex;
use std::collections::BTreeMap;

/// One C declaration of the CUDA header: return type and parameter types,
/// each written as a Rust-like pointer chain over the C base type
/// (`const float* const A[]` -> `*const *const float`).
#[derive(Debug, PartialEq)]
pub(crate) struct CDeclaration {
    pub(crate) ret: String,
    pub(crate) params: Vec<String>,
}

/// Every function declared with `marker` (`CUBLASWINAPI`) in `header`.
pub(crate) fn c_declarations(header: &str, marker: &str) -> Result<BTreeMap<String, CDeclaration>> {
    let comments = Regex::new(r"(?s)/\*.*?\*/|//[^\n]*")?;
    let text = comments.replace_all(header, " ");
    let decl = Regex::new(&format!(
        r"(\w[\w\s\*]*?)\s*\b{}\s+(\w+)\s*\(([^()]*)\)\s*;",
        regex::escape(marker)
    ))?;
    let mut out = BTreeMap::new();
    for c in decl.captures_iter(&text) {
        let ret = c[1]
            .split_whitespace()
            .last()
            .unwrap_or_default()
            .to_owned();
        let mut params = Vec::new();
        for p in c[3].split(',') {
            let p = p.trim();
            if p.is_empty() || p == "void" {
                continue;
            }
            params
                .push(c_parameter_type(p).with_context(|| format!("{}: parameter `{p}`", &c[2]))?);
        }
        out.insert(c[2].to_owned(), CDeclaration { ret, params });
    }
    Ok(out)
}

/// `const float* const Aarray[]` -> `*const *const float`: the parameter's
/// name dropped, an array parameter read as the pointer it is, and each
/// pointer's `const`/`mut` taken from the qualifier of what it points to.
fn c_parameter_type(param: &str) -> Result<String> {
    let token = Regex::new(r"\w+|\*|\[|\]|\S")?;
    let mut tokens: Vec<&str> = token.find_iter(param).map(|m| m.as_str()).collect();
    let mut array = false;
    if tokens.ends_with(&["[", "]"]) {
        tokens.truncate(tokens.len() - 2);
        array = true;
    }
    let words = tokens
        .iter()
        .filter(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_') && **t != "const")
        .count();
    // The last word is the parameter's name when there is a type before it.
    if words >= 2
        && tokens
            .last()
            .is_some_and(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_'))
    {
        tokens.pop();
    }
    let star = tokens
        .iter()
        .position(|t| *t == "*")
        .unwrap_or(tokens.len());
    let base: Vec<&str> = tokens[..star]
        .iter()
        .copied()
        .filter(|t| *t != "const")
        .collect();
    if base.is_empty() {
        bail!("cannot read the base type");
    }
    // `long long int` stays three words.
    let mut ty = base.join(" ");
    let mut pointee_const = tokens[..star].contains(&"const");
    let mut rest = tokens[star..].iter().peekable();
    while let Some(t) = rest.next() {
        if *t != "*" {
            bail!("unexpected `{t}`");
        }
        ty = format!("*{} {ty}", if pointee_const { "const" } else { "mut" });
        pointee_const = rest.next_if(|t| **t == "const").is_some();
    }
    if array {
        ty = format!("*{} {ty}", if pointee_const { "const" } else { "mut" });
    }
    Ok(ty)
}

/// The C type a binding type becomes once converted: pointers kept, each
/// base type looked up in the manifest's `c_types`.
fn converted_c_type(binding_type: &str, c_types: &BTreeMap<String, String>) -> Result<String> {
    for prefix in ["*const ", "*mut "] {
        if let Some(rest) = binding_type.strip_prefix(prefix) {
            return Ok(format!("{prefix}{}", converted_c_type(rest, c_types)?));
        }
    }
    let last = binding_type.rsplit("::").next().unwrap_or(binding_type);
    c_types
        .get(last)
        .cloned()
        .with_context(|| format!("no C type for `{binding_type}` in the manifest's c_types"))
}

/// Whether a value of C type `given` (what the adapter passes) may be passed
/// where the header declares `declared`: the same base type and pointer
/// depth, each pointer level equal, or `*mut` given where the header says
/// `*const` (the library promises not to write through it; hipBLAS declares
/// `const void* A[]` where cuBLAS has `const void* const A[]`). The reverse,
/// a `*const` the library would write through, is refused.
fn passes_as(given: &str, declared: &str) -> bool {
    match (split_pointer(given), split_pointer(declared)) {
        (Some((g, g_rest)), Some((d, d_rest))) => {
            (g == d || (g == "mut" && d == "const")) && passes_as(g_rest, d_rest)
        }
        (None, None) => given == declared,
        _ => false,
    }
}

/// A declared C type with its base type's typedef resolved through
/// `aliases` (`*mut cusolver_int_t` -> `*mut int`).
fn unalias(ty: &str, aliases: &BTreeMap<String, String>) -> String {
    for prefix in ["*const ", "*mut "] {
        if let Some(rest) = ty.strip_prefix(prefix) {
            return format!("{prefix}{}", unalias(rest, aliases));
        }
    }
    aliases.get(ty).cloned().unwrap_or_else(|| ty.to_owned())
}

/// `*const T` -> `("const", "T")`.
fn split_pointer(ty: &str) -> Option<(&str, &str)> {
    let rest = ty.strip_prefix('*')?;
    rest.split_once(' ')
}

/// `[binding pattern, CUDA pattern, letters, forms]` -> binding -> CUDA name.
/// A `prefix` family takes its names from `bindings`, less `exclude`.
fn expand_families<'a>(
    families: &[[String; 4]],
    bindings: impl Iterator<Item = &'a String> + Clone,
    exclude: &[String],
) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for [hip, cuda, letters, forms] in families {
        if forms == "prefix" {
            for name in bindings.clone() {
                let Some(rest) = name.strip_prefix(hip.as_str()) else {
                    continue;
                };
                if exclude.contains(name) {
                    continue;
                }
                // `cusolver|cusolverDn`: alternatives, the first that the
                // headers declare wins (resolved in `generate`).
                let c = cuda
                    .split('|')
                    .map(|c| format!("{c}{rest}"))
                    .collect::<Vec<_>>()
                    .join("|");
                if let Some(earlier) = out.insert(name.clone(), c.clone()) {
                    bail!("{name} comes from two families ({earlier} and {c})");
                }
            }
            continue;
        }
        let suffixes: &[(&str, &str)] = match forms.as_str() {
            "plain" => &[("", "")],
            "64" => &[("", ""), ("_64", "_64")],
            "64+v2" => &[("", ""), ("_64", "_64"), ("_v2", ""), ("_v2_64", "_64")],
            other => bail!("family {hip}: unknown forms `{other}` (plain, 64, 64+v2, prefix)"),
        };
        let letters: Vec<String> = if letters.is_empty() {
            vec![String::new()]
        } else {
            letters.chars().map(String::from).collect()
        };
        for letter in &letters {
            let fill = |p: &str| {
                p.replace("{t}", letter)
                    .replace("{l}", &letter.to_lowercase())
            };
            for (hs, cs) in suffixes {
                let (h, c) = (format!("{}{hs}", fill(hip)), format!("{}{cs}", fill(cuda)));
                if let Some(earlier) = out.insert(h.clone(), c.clone()) {
                    bail!("{h} comes from two families ({earlier} and {c})");
                }
            }
        }
    }
    Ok(out)
}

fn rule_for<'a>(rules: &'a [ArgumentRule], name: &str, ty: &str) -> Option<&'a ArgumentRule> {
    rules.iter().find(|r| {
        r.names.iter().any(|n| n == name) && (r.types.is_empty() || r.types.iter().any(|t| t == ty))
    })
}

/// The adapter lines, sorted by binding name, and how many were written.
pub(crate) fn generate(
    functions: &BTreeMap<String, Signature>,
    header: &str,
    a: &Adapters,
    header_line: &str,
) -> Result<(String, usize)> {
    let mut declarations = c_declarations(header, &a.declaration_marker)?;
    for d in declarations.values_mut() {
        for p in &mut d.params {
            *p = unalias(p, &a.c_aliases);
        }
    }
    let headers = a
        .headers
        .iter()
        .map(|h| h.rsplit('/').next().unwrap_or(h))
        .collect::<Vec<_>>()
        .join("`, `");
    let mut pairs = expand_families(&a.families, functions.keys(), &a.exclude)?;
    for c in pairs.values_mut() {
        if c.contains('|') {
            let first = c.split('|').next().unwrap_or_default().to_owned();
            *c = c
                .split('|')
                .find(|x| declarations.contains_key(*x))
                .map_or(first, str::to_owned);
        }
    }
    let reshapes = a
        .reshape
        .iter()
        .map(|r| {
            let patterns = r
                .functions
                .iter()
                .map(|f| Regex::new(&format!("^(?:{f})$")))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((patterns, r))
        })
        .collect::<Result<Vec<_>>>()?;
    let no_binding: Vec<String> = pairs
        .keys()
        .filter(|h| !functions.contains_key(*h))
        .cloned()
        .collect();
    if !no_binding.is_empty() {
        println!("nvidia-tables: skipped (no such binding): {no_binding:?}");
    }
    let no_cuda: Vec<(String, String)> = pairs
        .iter()
        .filter(|(h, c)| functions.contains_key(*h) && !declarations.contains_key(*c))
        .map(|(h, c)| (h.clone(), c.clone()))
        .collect();
    if !no_cuda.is_empty() {
        println!("nvidia-tables: skipped (not declared in `{headers}`): {no_cuda:?}");
    }
    pairs.retain(|h, c| functions.contains_key(h) && declarations.contains_key(c));

    // The kinds and reshape constants the lines name, imported from the
    // kit's `kinds` module.
    let mut imported = std::collections::BTreeSet::new();
    let mut lines = Vec::new();
    let mut mismatches = Vec::new();
    let mut checked_params = 0;
    for (hip, cuda) in &pairs {
        let sig = &functions[hip];
        let decl = &declarations[cuda];
        if sig.ret != a.status_type || decl.ret != a.c_status {
            mismatches.push(format!(
                "{hip} -> {cuda}: returns {} / {}",
                sig.ret, decl.ret
            ));
            continue;
        }
        let Some(((first, first_ty), rest)) = sig.params.split_first() else {
            mismatches.push(format!(
                "{hip}: no parameters (exclude it: the kit needs a first argument)"
            ));
            continue;
        };
        let mut args = vec![format!("{first}: {first_ty}")];
        // The first argument takes no kind (kinds receive it), but a rule
        // may still name its C type.
        let first_rule = rule_for(&a.argument_rules, first, first_ty);
        if first_rule.is_some_and(|r| r.kind.is_some()) {
            bail!("{hip}: `{first}` is the first parameter, which no kind may convert");
        }
        let mut passed = vec![(first.as_str(), first_ty.as_str(), first_rule)];
        let mut unused = None;
        let reshape = reshapes
            .iter()
            .find(|(patterns, _)| patterns.iter().any(|p| p.is_match(hip)))
            .map(|(_, r)| *r);
        for (i, (name, ty)) in rest.iter().enumerate() {
            if let Some(r) = reshape {
                for [before, constant, constant_ty] in &r.insert {
                    if before == name {
                        imported.insert(constant.clone());
                        passed.push((constant, constant_ty, None));
                    }
                }
                if r.drop.contains(name) {
                    args.push(format!("{name}: {ty}"));
                    continue;
                }
            }
            match rule_for(&a.argument_rules, name, ty) {
                Some(r) if r.kind.as_deref() == Some("unused") => {
                    if i + 1 != rest.len() {
                        bail!("{hip}: `{name}` is not passed on, so it must be the last parameter");
                    }
                    unused = Some(format!("unused {name}: {ty}"));
                }
                Some(r) => {
                    match &r.kind {
                        Some(kind) => {
                            imported.insert(kind.clone());
                            args.push(format!("{name} @ {kind}: {ty}"));
                        }
                        None => args.push(format!("{name}: {ty}")),
                    }
                    passed.push((name, ty, Some(r)));
                }
                None => {
                    args.push(format!("{name}: {ty}"));
                    passed.push((name, ty, None));
                }
            }
        }
        if passed.len() != decl.params.len() {
            mismatches.push(format!(
                "{hip} -> {cuda}: {} arguments passed vs {} declared",
                passed.len(),
                decl.params.len()
            ));
            continue;
        }
        for ((name, ty, rule), c) in passed.iter().zip(&decl.params) {
            let want = match rule.and_then(|r| r.c_type.clone()) {
                Some(t) => t,
                None => {
                    converted_c_type(ty, &a.c_types).with_context(|| format!("{hip}: `{name}`"))?
                }
            };
            checked_params += 1;
            if !passes_as(&want, c) {
                mismatches.push(format!(
                    "{hip} -> {cuda}: `{name}: {ty}` converts to `{want}`, the header has `{c}`"
                ));
            }
        }
        let mut list = args.join(", ");
        if let Some(u) = unused {
            list.push_str("; ");
            list.push_str(&u);
        }
        let pass_list = match reshape {
            None => String::new(),
            Some(_) => {
                if list.contains(" @ ") {
                    bail!("{hip}: a reshaped call passes its arguments by type; no kind may apply");
                }
                let pass: Vec<String> =
                    passed.iter().map(|(n, t, _)| format!("{n}: {t}")).collect();
                format!("({})", pass.join(", "))
            }
        };
        lines.push(format!("    {hip}({list}) => \"{cuda}\"{pass_list};"));
    }
    if !mismatches.is_empty() {
        bail!(
            "adapters that do not match `{headers}`:\n{}",
            mismatches.join("\n")
        );
    }
    println!(
        "nvidia-tables: {} adapters, {checked_params} parameter types checked against `{headers}`",
        lines.len(),
    );
    let kinds = match (&a.kit.kinds, imported.is_empty()) {
        (_, true) => String::new(),
        (Some(module), false) => format!(
            "use {module}::{{{}}};\n",
            imported.into_iter().collect::<Vec<_>>().join(", ")
        ),
        (None, false) => {
            bail!("lines name kinds or reshape constants, but the kit has no `kinds` module")
        }
    };
    let k = &a.kit;
    let header_text = format!(
        "{header_line}. Do not edit.\n\n\
         //! {lib} functions over {cu}, one line per adapter, expanded by\n\
         //! hip-sys's `cuda_adapters!` (`hip_sys::loader::adapter`). Each line\n\
         //! was checked by the generator against `{headers}`: the status\n\
         //! return, as many parameters as are passed on, and each parameter's\n\
         //! C type equal to the manifest's C type for the binding's type or\n\
         //! conversion kind (a pointer {lib} declares mutable may be const in\n\
         //! {cu}).\n\n\
         // The kit's paths are absolute: each adapter's symbol lives in a\n\
         // module of its own.\n\
         #![allow(unused_qualifications)]\n\n\
         use crate::*;\n\
         use core::ffi::*;\n\
         #[allow(unused_imports)]\n\
         use hip_sys::*;\n\
         {kinds}\n\
         hip_sys::cuda_adapters! {{\n\
         slot: {},\n\
         library: {},\n\
         missing: {},\n\
         cuda_status: {},\n\
         from_cuda: {},\n\
         table: {};\n",
        k.slot,
        k.library.as_deref().unwrap_or(&a.status_type),
        k.missing,
        k.cuda_status,
        k.from_cuda,
        k.table,
        lib = a.library,
        cu = a.cuda_library,
    );
    Ok((
        format!("{header_text}{}\n}}\n", lines.join("\n")),
        lines.len(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_parameters_read_as_pointer_chains() {
        for (c, want) in [
            ("cublasHandle_t handle", "cublasHandle_t"),
            ("int n", "int"),
            ("const float* alpha", "*const float"),
            ("float* result", "*mut float"),
            ("const float* const Aarray[]", "*const *const float"),
            ("float* const Carray[]", "*const *mut float"),
            ("void** p", "*mut *mut void"),
            ("const cuComplex *x", "*const cuComplex"),
            ("cublasHandle_t", "cublasHandle_t"),
            ("long long int strideA", "long long int"),
        ] {
            assert_eq!(c_parameter_type(c).unwrap(), want, "{c}");
        }
    }

    #[test]
    fn declarations_keep_return_type_and_parameters() {
        let h = "/* x */ CUBLASAPI cublasStatus_t CUBLASWINAPI cublasSscal_v2(cublasHandle_t handle, int n,\n const float* alpha, // the scale\n float* x, int incx);\nCUBLASAPI const char* CUBLASWINAPI cublasGetStatusName(cublasStatus_t status);";
        let d = c_declarations(h, "CUBLASWINAPI").unwrap();
        assert_eq!(d["cublasSscal_v2"].ret, "cublasStatus_t");
        assert_eq!(
            d["cublasSscal_v2"].params,
            ["cublasHandle_t", "int", "*const float", "*mut float", "int"]
        );
        assert_eq!(d["cublasGetStatusName"].ret, "char*");
    }

    #[test]
    fn a_mutable_pointer_passes_where_const_is_declared_not_the_reverse() {
        assert!(passes_as("*mut *const void", "*const *const void"));
        assert!(passes_as("*const float", "*const float"));
        assert!(passes_as("int", "int"));
        assert!(!passes_as("*const float", "*mut float"));
        assert!(!passes_as("*mut float", "*mut double"));
        assert!(!passes_as("*mut float", "*mut *mut float"));
        assert!(!passes_as("int", "int64_t"));
    }

    #[test]
    fn families_expand_letters_and_forms() {
        let f = [
            [
                "hipblasI{l}amax".into(),
                "cublasI{l}amax_v2".into(),
                "CS".into(),
                "64+v2".into(),
            ],
            [
                "hipblasCreate".into(),
                "cublasCreate_v2".into(),
                "".into(),
                "plain".into(),
            ],
        ];
        let none: Vec<String> = Vec::new();
        let m = expand_families(&f, none.iter(), &[]).unwrap();
        assert_eq!(m["hipblasIcamax_v2_64"], "cublasIcamax_v2_64");
        assert_eq!(m["hipblasIsamax_v2"], "cublasIsamax_v2");
        assert_eq!(m["hipblasCreate"], "cublasCreate_v2");
        assert_eq!(m.len(), 9);
        let twice = [f[1].clone(), f[1].clone()];
        assert!(expand_families(&twice, none.iter(), &[]).is_err());
        let prefix = [[
            "hipsparse".into(),
            "cusparse".into(),
            "".into(),
            "prefix".into(),
        ]];
        let names: Vec<String> = ["hipsparseSpMV", "hipsparseGetErrorName", "hipOther"]
            .map(String::from)
            .into();
        let m = expand_families(&prefix, names.iter(), &["hipsparseGetErrorName".into()]).unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(m["hipsparseSpMV"], "cusparseSpMV");
    }
}
