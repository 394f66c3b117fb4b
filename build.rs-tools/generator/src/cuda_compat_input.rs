//! Inputs of the cuda-compat generation: hipify-perl's CUDA->HIP table, the
//! CUDA 12.x headers (through bindgen) and our committed HIP bindings (parsed
//! with syn).

use anyhow::{Context, Result};
use bindgen::EnumVariation;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use syn::parse::Parser;
use syn::{Item, ReturnType, Type};

/// The CUDA libraries cuda-compat mirrors, one Rust module each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Module {
    Runtime,
    Driver,
    Nvrtc,
    Cublas,
    Curand,
    Cufft,
    Cublaslt,
    Cusolver,
    Cusparse,
}

impl Module {
    pub(crate) const ALL: [Module; 9] = [
        Module::Runtime,
        Module::Driver,
        Module::Nvrtc,
        Module::Cublas,
        Module::Curand,
        Module::Cufft,
        Module::Cublaslt,
        Module::Cusolver,
        Module::Cusparse,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Module::Runtime => "runtime",
            Module::Driver => "driver",
            Module::Nvrtc => "nvrtc",
            Module::Cublas => "cublas",
            Module::Curand => "curand",
            Module::Cufft => "cufft",
            Module::Cublaslt => "cublaslt",
            Module::Cusolver => "cusolver",
            Module::Cusparse => "cusparse",
        }
    }

    /// The module of this name (`"runtime"`, ...), as cuda-compat's
    /// manifest names it.
    pub(crate) fn from_name(name: &str) -> Option<Module> {
        Module::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// One `subst("cuda", "hip", "kind")` of hipify-perl.
#[derive(Clone, Debug)]
pub(crate) struct Mapping {
    pub(crate) cuda: String,
    pub(crate) hip: String,
    pub(crate) kind: String,
    /// Only applied by `hipify-perl --experimental`.
    pub(crate) experimental: bool,
}

/// Kinds of hipify-perl entries that are device code or include lines, not
/// host API names.
const DEVICE_KINDS: &[&str] = &[
    "include",
    "include_cuda_main_header",
    "include_cuda_main_header_v2",
    "device_function",
    "device_library",
    "device_type",
];

pub(crate) fn hipify(path: &Path) -> Result<Vec<Mapping>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let sub = Regex::new(r"^sub (\w+)")?;
    let subst = Regex::new(r#"^\s*subst\("([^"]+)", "([^"]+)", "([^"]+)"\);"#)?;
    let mut current = String::new();
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for line in text.lines() {
        if let Some(c) = sub.captures(line) {
            current = c[1].to_owned();
            continue;
        }
        let experimental = match current.as_str() {
            "simpleSubstitutions" => false,
            "experimentalSubstitutions" => true,
            _ => continue,
        };
        if let Some(c) = subst.captures(line) {
            if DEVICE_KINDS.contains(&&c[3])
                || !c[1].chars().all(|ch| ch.is_alphanumeric() || ch == '_')
            {
                continue;
            }
            if seen.insert(c[1].to_owned()) {
                out.push(Mapping {
                    cuda: c[1].to_owned(),
                    hip: c[2].to_owned(),
                    kind: c[3].to_owned(),
                    experimental,
                });
            }
        }
    }
    Ok(out)
}

/// A bindgen/syn type reduced to what the generator compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Void,
    /// Primitive by its Rust name (`i32`, `u64`, `usize`, `f32`, `i8`...).
    Prim(String),
    Ptr {
        mutable: bool,
        to: Box<Ty>,
    },
    /// A named type of the library (alias, struct, enum newtype).
    Named(String),
    /// Anything else (function pointers, arrays): compared as text.
    Other(String),
}

pub(crate) fn ty_of(t: &Type) -> Ty {
    match t {
        Type::Ptr(p) => Ty::Ptr {
            mutable: p.mutability.is_some(),
            to: Box::new(ty_of(&p.elem)),
        },
        Type::Tuple(t) if t.elems.is_empty() => Ty::Void,
        Type::Path(p) => {
            let last = p.path.segments.last().unwrap().ident.to_string();
            let prim = match last.as_str() {
                "c_void" => return Ty::Void,
                "c_char" | "c_schar" | "i8" => "i8",
                "c_uchar" | "u8" => "u8",
                "c_short" | "i16" => "i16",
                "c_ushort" | "u16" => "u16",
                "c_int" | "i32" => "i32",
                "c_uint" | "u32" => "u32",
                "c_long" | "c_longlong" | "i64" => "i64",
                "c_ulong" | "c_ulonglong" | "u64" => "u64",
                "usize" => "usize",
                "isize" => "isize",
                "c_float" | "f32" => "f32",
                "c_double" | "f64" => "f64",
                "bool" => "bool",
                _ => {
                    if p.path.segments.len() == 1 && p.qself.is_none() {
                        return Ty::Named(last);
                    }
                    return Ty::Other(quote::quote!(#t).to_string());
                }
            };
            Ty::Prim(prim.to_owned())
        }
        other => Ty::Other(quote::quote!(#other).to_string()),
    }
}

/// A function's parameters and return type.
#[derive(Clone, Debug)]
pub(crate) struct Sig {
    pub(crate) params: Vec<(String, Type)>,
    pub(crate) ret: Option<Type>,
}

fn sig_of(inputs: impl Iterator<Item = syn::FnArg>, output: &ReturnType) -> Sig {
    let params = inputs
        .map(|a| match a {
            syn::FnArg::Typed(pt) => {
                let name = match &*pt.pat {
                    syn::Pat::Ident(i) => i.ident.to_string(),
                    other => quote::quote!(#other).to_string(),
                };
                (name, (*pt.ty).clone())
            }
            syn::FnArg::Receiver(_) => unreachable!("C functions have no receiver"),
        })
        .collect();
    let ret = match output {
        ReturnType::Default => None,
        ReturnType::Type(_, t) => Some((**t).clone()),
    };
    Sig { params, ret }
}

/// What a bindings file declares.
#[derive(Default, Debug)]
pub(crate) struct Decls {
    pub(crate) functions: BTreeMap<String, Sig>,
    /// `pub type X = T;` and `pub use self::T as X;`.
    pub(crate) aliases: BTreeMap<String, Type>,
    pub(crate) structs: BTreeSet<String>,
    /// Newtype enums: name -> inner type and constants (name, value) in order.
    pub(crate) enums: BTreeMap<String, (Type, Vec<(String, i64)>)>,
    /// Top-level constants: name -> type.
    pub(crate) consts: BTreeMap<String, Type>,
    /// Declaration order of enums (bindgen sorts semantically).
    pub(crate) enum_order: Vec<String>,
}

impl Decls {
    pub(crate) fn add_file(&mut self, file: syn::File) {
        // bindgen writes an enum's `impl` (its constants) before its struct.
        let (impls, rest): (Vec<Item>, Vec<Item>) = file
            .items
            .into_iter()
            .partition(|i| matches!(i, Item::Impl(_)));
        for item in rest.into_iter().chain(impls) {
            self.add_item(item);
        }
    }

    fn add_item(&mut self, item: Item) {
        match item {
            Item::Fn(f) => {
                self.functions.insert(
                    f.sig.ident.to_string(),
                    sig_of(f.sig.inputs.into_iter(), &f.sig.output),
                );
            }
            Item::ForeignMod(m) => {
                for fi in m.items {
                    if let syn::ForeignItem::Fn(f) = fi {
                        self.functions.insert(
                            f.sig.ident.to_string(),
                            sig_of(f.sig.inputs.into_iter(), &f.sig.output),
                        );
                    }
                }
            }
            Item::Type(t) => {
                self.aliases.insert(t.ident.to_string(), *t.ty);
            }
            Item::Use(u) => {
                // `pub use self::Tag as Alias;`
                if let syn::UseTree::Path(p) = &u.tree {
                    if let syn::UseTree::Rename(r) = &*p.tree {
                        let target: Type = syn::parse_str(&r.ident.to_string()).unwrap();
                        self.aliases.insert(r.rename.to_string(), target);
                    }
                }
            }
            Item::Struct(s) => {
                let name = s.ident.to_string();
                if let syn::Fields::Unnamed(f) = &s.fields {
                    if f.unnamed.len() == 1 && is_repr_transparent(&s.attrs) {
                        let inner = f.unnamed[0].ty.clone();
                        self.enums
                            .entry(name.clone())
                            .or_insert((inner, Vec::new()));
                        self.enum_order.push(name);
                        return;
                    }
                }
                self.structs.insert(name);
            }
            Item::Union(u) => {
                self.structs.insert(u.ident.to_string());
            }
            Item::Const(c) => {
                self.consts.insert(c.ident.to_string(), *c.ty);
            }
            Item::Impl(imp) => {
                let Type::Path(tp) = &*imp.self_ty else {
                    return;
                };
                let name = tp.path.segments.last().unwrap().ident.to_string();
                for ii in imp.items {
                    if let syn::ImplItem::Const(c) = ii {
                        if let Some(v) = newtype_value(&c.expr) {
                            if let Some(e) = self.enums.get_mut(&name) {
                                e.1.push((c.ident.to_string(), v));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// The declarations of a `loaded_functions!` or `open_enum!` call (see
    /// `hip-sys/src/binding.rs`); other macro calls are not bindings. A call
    /// that does not parse is an error, not skipped: cuda-compat would lose
    /// its functions or enums without a word.
    fn add_binding_macro(&mut self, mac: &syn::Macro) -> Result<()> {
        let Some(last) = mac.path.segments.last() else {
            return Ok(());
        };
        match last.ident.to_string().as_str() {
            "loaded_functions" => {
                let functions = parse_loaded_functions
                    .parse2(mac.tokens.clone())
                    .context("parsing the loaded_functions! call")?;
                for f in functions {
                    // The macro takes `-> ()` for a function returning nothing.
                    let output = match &f.sig.output {
                        ReturnType::Type(_, t) if matches!(&**t, Type::Tuple(t) if t.elems.is_empty()) => {
                            ReturnType::Default
                        }
                        other => other.clone(),
                    };
                    self.functions.insert(
                        f.sig.ident.to_string(),
                        sig_of(f.sig.inputs.into_iter(), &output),
                    );
                }
            }
            "open_enum" => {
                let e = parse_open_enum
                    .parse2(mac.tokens.clone())
                    .context("parsing an open_enum! call")?;
                self.enum_order.push(e.name.clone());
                self.enums.insert(e.name, (e.repr, e.values));
            }
            _ => {}
        }
        Ok(())
    }

    /// Follows aliases to the type they name in the end.
    pub(crate) fn resolve(&self, t: &Type) -> Ty {
        let mut ty = ty_of(t);
        for _ in 0..16 {
            match &ty {
                Ty::Named(n) if self.aliases.contains_key(n) => ty = ty_of(&self.aliases[n]),
                _ => break,
            }
        }
        match ty {
            Ty::Ptr { mutable, to } => {
                let inner = match *to {
                    Ty::Named(n) => self.resolve(&syn::parse_str(&n).unwrap()),
                    other => other,
                };
                Ty::Ptr {
                    mutable,
                    to: Box::new(inner),
                }
            }
            other => other,
        }
    }

    /// The enum (after aliases) a name denotes, if it is one.
    pub(crate) fn enum_of(&self, name: &str) -> Option<String> {
        match self.resolve(&syn::parse_str(name).ok()?) {
            Ty::Named(n) if self.enums.contains_key(&n) => Some(n),
            _ => None,
        }
    }

    pub(crate) fn has_type(&self, name: &str) -> bool {
        self.aliases.contains_key(name)
            || self.structs.contains(name)
            || self.enums.contains_key(name)
    }
}

fn is_repr_transparent(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("repr") && quote::quote!(#a).to_string().contains("transparent"))
}

/// The value of `Name(5)` / `Name(-5)`.
fn newtype_value(e: &syn::Expr) -> Option<i64> {
    let syn::Expr::Call(c) = e else { return None };
    lit_value(c.args.first()?)
}

fn lit_value(e: &syn::Expr) -> Option<i64> {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse::<i64>().ok(),
            _ => None,
        },
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => lit_value(&u.expr).map(|v| -v),
        syn::Expr::Paren(p) => lit_value(&p.expr),
        _ => None,
    }
}

/// The function declarations of a `loaded_functions!` call: the braces
/// after `functions:`, each `pub unsafe fn name(args) -> R;`.
fn parse_loaded_functions(
    input: syn::parse::ParseStream<'_>,
) -> syn::Result<Vec<syn::ForeignItemFn>> {
    while !input.is_empty() {
        let key: syn::Ident = input.parse()?;
        input.parse::<syn::Token![:]>()?;
        if key == "functions" {
            let body;
            syn::braced!(body in input);
            let mut functions = Vec::new();
            while !body.is_empty() {
                functions.push(body.parse::<syn::ForeignItemFn>()?);
            }
            return Ok(functions);
        }
        // Another setting: its value runs to the next comma at this level.
        while !input.is_empty() && !input.peek(syn::Token![,]) {
            input.parse::<proc_macro2::TokenTree>()?;
        }
        if !input.is_empty() {
            input.parse::<syn::Token![,]>()?;
        }
    }
    Err(input.error("no `functions: { .. }`"))
}

/// What an `open_enum!` call declares.
struct OpenEnum {
    name: String,
    repr: Type,
    /// (name, value) in declaration order.
    values: Vec<(String, i64)>,
}

/// An `open_enum!` call: name, representation and the values in order.
fn parse_open_enum(input: syn::parse::ParseStream<'_>) -> syn::Result<OpenEnum> {
    input.call(syn::Attribute::parse_outer)?;
    input.parse::<syn::Token![pub]>()?;
    input.parse::<syn::Token![struct]>()?;
    let name: syn::Ident = input.parse()?;
    let repr;
    syn::parenthesized!(repr in input);
    let repr: Type = repr.parse()?;
    let body;
    syn::braced!(body in input);
    let mut values = Vec::new();
    while !body.is_empty() {
        body.call(syn::Attribute::parse_outer)?;
        let value_name: syn::Ident = body.parse()?;
        body.parse::<syn::Token![=]>()?;
        let expr: syn::Expr = body.parse()?;
        body.parse::<syn::Token![,]>()?;
        let value = lit_value(&expr)
            .ok_or_else(|| syn::Error::new_spanned(&expr, "not an integer literal"))?;
        values.push((value_name.to_string(), value));
    }
    Ok(OpenEnum {
        name: name.to_string(),
        repr,
        values,
    })
}

/// Parses committed generated bindings (`types.rs`, `functions.rs`).
pub(crate) fn parse_bindings(dir: &Path) -> Result<Option<Decls>> {
    let types = dir.join("types.rs");
    let functions = dir.join("functions.rs");
    if !types.exists() || !functions.exists() {
        return Ok(None);
    }
    let mut d = Decls::default();
    for p in [types, functions] {
        let text = std::fs::read_to_string(&p)?;
        let file = syn::parse_file(&text).with_context(|| format!("parsing {}", p.display()))?;
        // Functions and enums are macro calls (`loaded_functions!`,
        // `open_enum!`), read in file order with the other items, so that
        // `enum_order` is the order of declaration; impls last, as
        // `add_file` does.
        let (impls, rest): (Vec<Item>, Vec<Item>) = file
            .items
            .into_iter()
            .partition(|i| matches!(i, Item::Impl(_)));
        for item in rest.into_iter().chain(impls) {
            match item {
                Item::Macro(m) => d
                    .add_binding_macro(&m.mac)
                    .with_context(|| format!("in {}", p.display()))?,
                other => d.add_item(other),
            }
        }
    }
    Ok(Some(d))
}

/// The CUDA declarations of one module (those of `headers`), through
/// bindgen; `includes` are the headers the bindgen wrapper includes.
pub(crate) fn cuda_decls(include: &Path, includes: &[&str], headers: &[String]) -> Result<Decls> {
    // `crt/host_defines.h` ships with nvcc, not with the runtime wheel: a
    // stand-in with the few macros the host API headers use.
    let shim = include.parent().unwrap_or(include).join("shim");
    std::fs::create_dir_all(shim.join("crt"))?;
    std::fs::write(shim.join("crt/host_defines.h"), HOST_DEFINES_SHIM)?;
    // cuda_fp16.h/cuda_bf16.h are device headers (they need nv/target); the
    // host API only names the 16-bit storage types.
    std::fs::write(
        shim.join("cuda_fp16.h"),
        "#pragma once\ntypedef struct __half { unsigned short __x; } __half;\n",
    )?;
    // cuda_runtime.h is the C++ runtime (templates over crt/ headers that
    // ship with nvcc); a C header that includes it for the host API (curand.h)
    // needs only cuda_runtime_api.h.
    std::fs::write(
        shim.join("cuda_runtime.h"),
        "#pragma once\n#include <cuda_runtime_api.h>\n",
    )?;
    std::fs::write(
        shim.join("cuda_bf16.h"),
        "#pragma once\ntypedef struct __nv_bfloat16 { unsigned short __x; } __nv_bfloat16;\n",
    )?;
    let wrapper: String = includes
        .iter()
        .map(|h| format!("#include <{h}>\n"))
        .collect();
    let mut builder = bindgen::Builder::default()
        .header_contents("cuda_compat_wrapper.h", &wrapper)
        .clang_args([
            "-x".to_owned(),
            "c".to_owned(),
            "-std=c11".to_owned(),
            format!("-I{}", shim.display()),
            format!("-I{}", include.display()),
            "-DCUBLASAPI=".to_owned(),
        ])
        .default_enum_style(EnumVariation::NewType {
            is_bitfield: false,
            is_global: false,
        })
        .prepend_enum_name(false)
        .layout_tests(false)
        .generate_comments(false)
        .size_t_is_usize(true)
        .allowlist_recursively(false)
        .formatter(bindgen::Formatter::None);
    for h in headers {
        builder = builder.allowlist_file(format!(".*/{}", h.replace('.', "\\.")));
    }
    let text = builder
        .generate()
        .map_err(|e| anyhow::anyhow!("bindgen on the CUDA headers failed: {e}"))?
        .to_string();
    let mut d = Decls::default();
    d.add_file(syn::parse_file(&text).context("parsing bindgen output for CUDA")?);
    Ok(d)
}

const HOST_DEFINES_SHIM: &str = "#pragma once
#define __host__
#define __device__
#define __global__
#define __managed__
#define __constant__
#define __shared__
#define __inline__ inline
#define __forceinline__ inline
#define __cudart_builtin__
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __builtin_align__(n) __attribute__((aligned(n)))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __location__(a) __annotate__(a)
#define __annotate__(a)
#define CUDARTAPI
#define CUDARTAPI_CDECL
#define CUDART_CB
#define __CUDA_ALIGN__(n) __attribute__((aligned(n)))
";

/// `#define name other_name` lines of headers: CUDA's versioned function
/// names (`cuMemAlloc` -> `cuMemAlloc_v2`) and HIP's (`hipGetDeviceProperties`
/// -> `hipGetDevicePropertiesR0600`). Also returns every macro name defined.
pub(crate) fn defines(
    files: &[std::path::PathBuf],
) -> Result<(BTreeMap<String, String>, BTreeSet<String>)> {
    // `__CUDA_API_PTDS(x)`/`__CUDA_API_PTSZ(x)` are `x` without per-thread
    // default streams, the default.
    let re = Regex::new(
        r"^\s*#\s*define\s+([A-Za-z_]\w*)(?:\s+(?:__CUDA_API_PT(?:DS|SZ)\()?([A-Za-z_]\w*)\)?)?\s*(?:$|//|/\*)",
    )?;
    let any = Regex::new(r"^\s*#\s*define\s+([A-Za-z_]\w*)")?;
    let mut renames = BTreeMap::new();
    let mut all = BTreeSet::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for line in text.lines() {
            if let Some(c) = any.captures(line) {
                all.insert(c[1].to_owned());
            }
            if let Some(c) = re.captures(line) {
                if let Some(t) = c.get(2) {
                    renames
                        .entry(c[1].to_owned())
                        .or_insert_with(|| t.as_str().to_owned());
                }
            }
        }
    }
    Ok((renames, all))
}

/// `#define NAME ((type)literal)` lines: name -> (type, literal).
pub(crate) fn cast_macros(
    files: &[std::path::PathBuf],
) -> Result<BTreeMap<String, (String, String)>> {
    let re = Regex::new(
        r"^\s*#\s*define\s+([A-Za-z_]\w*)\s+\(\s*\(\s*(\w+(?:\s+int)?)\s*\)\s*(-?(?:0x[0-9a-fA-F]+|\d+))[uUlL]*\s*\)\s*(?:$|//|/\*)",
    )?;
    let mut out = BTreeMap::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for line in text.lines() {
            if let Some(c) = re.captures(line) {
                out.entry(c[1].to_owned())
                    .or_insert_with(|| (c[2].to_owned(), c[3].to_owned()));
            }
        }
    }
    Ok(out)
}

/// Every identifier written in the given files.
pub(crate) fn identifiers(files: &[std::path::PathBuf]) -> Result<BTreeSet<String>> {
    let re = Regex::new(r"[A-Za-z_]\w*")?;
    let mut out = BTreeSet::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        out.extend(re.find_iter(&text).map(|m| m.as_str().to_owned()));
    }
    Ok(out)
}

/// Every `.h` file below a folder.
pub(crate) fn headers_below(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(headers_below(&p));
        } else if p.extension().is_some_and(|x| x == "h") {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `parse_bindings` reads the two macros as the generator writes them.
    #[test]
    fn reads_function_and_enum_macro_calls() {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let dir = std::env::temp_dir().join(format!("hip-generator-parse-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("types.rs"),
            "pub type handle_t = *mut u8;\n\
             crate::open_enum! {\n    /// doc\n    #[must_use]\n    \
             pub struct status_t(::std::os::raw::c_int) {\n        /// ok\n        OK = 0,\n        \
             BAD = -3,\n    }\n}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("functions.rs"),
            "crate::loaded_functions! {\n    library: \"x\",\n    table: T,\n    \
             accessor: crate::t(),\n    unavailable: crate::Unavailable,\n    \
             legacy_symbols: [(\"a\", \"b\", 6)],\n    functions: {\n        /// doc\n        \
             pub unsafe fn f(h: handle_t, n: *mut f32) -> status_t;\n        \
             pub unsafe fn g() -> ();\n    }\n}\n",
        )
        .unwrap();
        let decls = parse_bindings(&dir).unwrap().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(
            decls.enums["status_t"].1,
            [("OK".to_owned(), 0), ("BAD".to_owned(), -3)]
        );
        assert_eq!(decls.enum_order, ["status_t"]);
        let f = &decls.functions["f"];
        assert_eq!(f.params.len(), 2);
        assert_eq!(f.params[0].0, "h");
        assert!(f.ret.is_some());
        assert!(
            decls.functions["g"].ret.is_none(),
            "`-> ()` is no return type"
        );
    }
}
