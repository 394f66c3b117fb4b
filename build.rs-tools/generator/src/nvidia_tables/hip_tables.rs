//! The value tables of a HIP-runtime-style NVIDIA backend, as its manifest
//! describes them: status translations, the device-attribute mapping, the
//! error messages and the pass-through adapters.

use super::manifest::{Attributes, Messages, Passthrough, Status};
use super::rust_bindings::{self, Signature};
use anyhow::{bail, Context, Result};
use regex::Regex;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// What the tables are made from: the CUDA headers, hipify-perl's name
/// mapping and the crate's generated HIP values.
pub(crate) struct Inputs<'a> {
    pub(crate) cuda: &'a Path,
    /// hipify-perl's `subst("cudaName", "hipName", "numeric_literal")` pairs.
    pub(crate) hipify: HashMap<String, String>,
    pub(crate) types: syn::File,
}

impl Inputs<'_> {
    fn header(&self, relative: &str) -> Result<String> {
        let path = self.cuda.join(relative);
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
    }

    /// `name -> value` of a newtype's constants (the last of equal names).
    fn values(&self, type_name: &str) -> Result<HashMap<String, i64>> {
        Ok(rust_bindings::constants(&self.types, type_name, false)?
            .into_iter()
            .map(|c| (c.name, c.value))
            .collect())
    }
}

/// hipify-perl's numeric-literal name pairs.
pub(crate) fn hipify_pairs(text: &str) -> HashMap<String, String> {
    let re = Regex::new(r#"subst\("(\w+)", "(\w+)", "numeric_literal"\)"#).expect("a valid regex");
    re.captures_iter(text)
        .map(|c| (c[1].to_owned(), c[2].to_owned()))
        .collect()
}

/// The enumerators (`PREFIX... = value`) of the C enum that starts at the
/// first `start` of `text` and ends at the next `end`, in header order.
fn c_enum(text: &str, start: &str, end: &str, prefix: &str) -> Result<Vec<(String, i64)>> {
    let from = text
        .find(start)
        .with_context(|| format!("no `{start}` in the header"))?;
    let body = &text[from..];
    let body = &body[..body
        .find(end)
        .with_context(|| format!("`{start}` has no `{end}`"))?];
    let re = Regex::new(&format!(
        r"(?m)^\s*({}\w*)\s*=\s*(-?\w+)",
        regex::escape(prefix)
    ))?;
    let mut out = Vec::new();
    for c in re.captures_iter(body) {
        let v = &c[2];
        let (negative, digits) = match v.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, v),
        };
        let value = match digits
            .strip_prefix("0x")
            .or_else(|| digits.strip_prefix("0X"))
        {
            Some(hex) => i64::from_str_radix(hex, 16),
            None => digits.parse(),
        }
        .with_context(|| format!("{}: value `{v}` is not a number", &c[1]))?;
        out.push((c[1].to_owned(), if negative { -value } else { value }));
    }
    Ok(out)
}

/// The HIP counterpart of a CUDA status name and how it was chosen:
/// hipify-perl's, else the first `nearest` rule whose key is part of the
/// name, else the table's default.
fn pick<'a>(
    name: &str,
    hip_values: &HashMap<String, i64>,
    hipify: &'a HashMap<String, String>,
    nearest: &'a [[String; 2]],
    default: &'a str,
) -> (&'a str, &'static str) {
    if let Some(h) = hipify.get(name) {
        if hip_values.contains_key(h) {
            return (h, "hipify-perl");
        }
    }
    for [key, hip] in nearest {
        if name.contains(key.as_str()) && hip_values.contains_key(hip) {
            return (hip, "nearest");
        }
    }
    (default, "fallback")
}

pub(crate) fn status(inputs: &Inputs<'_>, status: &Status, header_line: &str) -> Result<String> {
    let mut out = vec![
        format!("{header_line} from the CUDA 12.9"),
        "// headers, hipify-perl's name mapping and hip-sys's HIP values. Do not edit.".to_owned(),
        String::new(),
        "//! Status translation tables: every `cudaError_t`, `CUresult` and".to_owned(),
        "//! `nvrtcResult` value of CUDA 12.9 with the HIP status of the same meaning.".to_owned(),
        String::new(),
        format!("use {};", status.imports),
        String::new(),
    ];
    for table in &status.tables {
        let rows = c_enum(
            &inputs.header(&table.header)?,
            &table.enum_start,
            &table.enum_end,
            &table.prefix,
        )?;
        let hip_values = inputs.values(&table.hip_type)?;
        let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
        for (n, _) in &rows {
            *kinds
                .entry(pick(n, &hip_values, &inputs.hipify, &status.nearest, "x").1)
                .or_default() += 1;
        }
        println!("nvidia-tables: {} {} {kinds:?}", table.function, rows.len());
        // No table of the pairs is written beside the function: the tests
        // compare the function itself with values read from the headers
        // (header_enumerators.txt), not with another output of this module.
        let (c_type, rtype, default) = (&table.c_type, &table.hip_type, &table.default);
        out.push(format!(
            "/// The HIP status for a `{c_type}` value: hipify-perl's counterpart where HIP"
        ));
        out.push(format!(
            "/// has one, else the nearest meaning; values CUDA 12.9 lacks give `{default}`."
        ));
        out.push(format!(
            "pub(crate) const fn {}(v: i32) -> {rtype} {{",
            table.function
        ));
        out.push("    match v {".to_owned());
        let mut seen = HashSet::new();
        for (n, v) in &rows {
            if !seen.insert(*v) {
                continue;
            }
            let (h, how) = pick(n, &hip_values, &inputs.hipify, &status.nearest, default);
            out.push(format!("        {v} => {rtype}::{h}, // {n} ({how})"));
        }
        out.push(format!("        _ => {rtype}::{default},"));
        out.push("    }".to_owned());
        out.push("}".to_owned());
        out.push(String::new());
    }
    Ok(out.join("\n"))
}

pub(crate) fn attributes(inputs: &Inputs<'_>, a: &Attributes, header_line: &str) -> Result<String> {
    let hip = inputs.values(&a.hip_type)?;
    let cuda = c_enum(
        &inputs.header(&a.header)?,
        &a.enum_start,
        &a.enum_end,
        &a.prefix,
    )?;
    let overrides: HashMap<&str, &str> = a
        .overrides
        .iter()
        .map(|[c, h]| (c.as_str(), h.as_str()))
        .collect();
    let overridden: HashSet<&str> = overrides.values().copied().collect();
    let mut pairs: BTreeMap<i64, (&str, &str, i64)> = BTreeMap::new();
    for (n, v) in &cuda {
        let by_hipify = inputs.hipify.get(n).map(String::as_str);
        // A HIP name that an override gives to another CUDA attribute is not
        // also taken from hipify-perl.
        if !overrides.contains_key(n.as_str()) && by_hipify.is_some_and(|h| overridden.contains(h))
        {
            continue;
        }
        let Some(h) = overrides.get(n.as_str()).copied().or(by_hipify) else {
            continue;
        };
        if let Some(&hv) = hip.get(h) {
            if !pairs.contains_key(&hv) && !n.ends_with("MAX") {
                pairs.insert(hv, (h, n, *v));
            }
        }
    }
    for (c, h) in &overrides {
        if !hip.contains_key(*h) || !cuda.iter().any(|(n, _)| n == c) {
            bail!("attribute override {c} -> {h}: one of the two names does not exist");
        }
    }
    println!(
        "nvidia-tables: device attributes {} of {}",
        pairs.len(),
        hip.len()
    );
    let mut out = vec![
        format!("{header_line} from the CUDA 12.9"),
        "// headers, hipify-perl's name mapping and hip-sys's HIP values. Do not edit.".to_owned(),
        String::new(),
        "//! `hipDeviceAttribute_t` -> `CUdevice_attribute` for every attribute both know."
            .to_owned(),
        String::new(),
        format!("use crate::{};", a.hip_type),
        String::new(),
        "/// The `CUdevice_attribute` for a HIP attribute, or `None` when CUDA has none."
            .to_owned(),
        format!(
            "pub(crate) const fn {}(a: {}) -> Option<i32> {{",
            a.function, a.hip_type
        ),
        "    match a.0 {".to_owned(),
    ];
    for (k, (h, n, v)) in &pairs {
        out.push(format!("        {k} => Some({v}), // {h} -> {n}"));
    }
    out.extend(["        _ => None,", "    }", "}", ""].map(str::to_owned));
    Ok(out.join("\n"))
}

pub(crate) fn messages(inputs: &Inputs<'_>, m: &Messages, header_line: &str) -> Result<String> {
    let values = inputs.values(&m.hip_type)?;
    let mut out = vec![
        format!("{header_line} from the doc comments"),
        format!(
            "// of hip-sys's generated `{}` values. Do not edit.",
            m.hip_type
        ),
        String::new(),
        "//! `hipGetErrorString` messages.".to_owned(),
        String::new(),
        "use core::ffi::CStr;".to_owned(),
        String::new(),
        "/// `(HIP status value, NUL-terminated name, NUL-terminated message)`.".to_owned(),
        "pub(crate) const ERROR_TEXT: &[(u32, &CStr, &CStr)] = &[".to_owned(),
    ];
    let consts = rust_bindings::constants(&inputs.types, &m.hip_type, true)?;
    for c in &consts {
        let docs: Vec<String> = c
            .docs
            .iter()
            .map(|d| d.replace("&lt;", "").trim().to_owned())
            .collect();
        let joined = docs
            .iter()
            .filter(|d| !d.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join(" ");
        let text = if joined.is_empty() {
            c.name.clone()
        } else {
            joined
        };
        // The message is written back as a C string literal: escapes are
        // dropped and double quotes become single ones.
        let text = text.replace('\\', "").replace('"', "'");
        out.push(format!(
            "    ({}, c\"{}\", c\"{text}\"),",
            values[&c.name], c.name
        ));
    }
    println!("nvidia-tables: messages {}", consts.len());
    out.extend(["];", ""].map(str::to_owned));
    Ok(out.join("\n"))
}

pub(crate) fn passthrough(
    functions: &BTreeMap<String, Signature>,
    p: &Passthrough,
    header_line: &str,
) -> Result<String> {
    let mut out = vec![
        format!("{header_line}. Do not edit."),
        String::new(),
        "//! HIP functions that are CUDA functions under another name: same".to_owned(),
        "//! arguments, same layouts, same enum values; only the status is translated.".to_owned(),
        String::new(),
        "#![allow(non_snake_case)]".to_owned(),
        String::new(),
        "use super::Lib;".to_owned(),
        "use crate::*;".to_owned(),
        "use core::ffi::*;".to_owned(),
        String::new(),
        format!("super::{}! {{", p.macro_name),
    ];
    let mut seen = HashSet::new();
    for [hip, lib, cuda] in &p.functions {
        if !seen.insert(hip) {
            bail!("pass-through {hip} listed twice");
        }
        let sig = functions
            .get(hip)
            .with_context(|| format!("pass-through {hip}: no such binding"))?;
        if sig.ret != p.status_type {
            bail!(
                "pass-through {hip} returns `{}`, not `{}`",
                sig.ret,
                p.status_type
            );
        }
        if !p.libraries.contains(lib) {
            bail!(
                "pass-through {hip}: unknown library {lib} (known: {:?})",
                p.libraries
            );
        }
        let args: Vec<String> = sig
            .params
            .iter()
            .map(|(n, t)| format!("{n}: {t}"))
            .collect();
        out.push(format!(
            "    {hip}({}) => {lib} \"{cuda}\" as SYM_{hip};",
            args.join(", ")
        ));
    }
    println!(
        "nvidia-tables: {} pass-through functions",
        p.functions.len()
    );
    out.push("}".to_owned());
    Ok(out.join("\n") + "\n")
}
