//! Reading the committed bindings back with `syn`: each function's
//! parameters and return type, and the associated constants (with their doc
//! text) of the status and attribute newtypes.

use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::path::Path;
use syn::parse::Parser;

/// One bound function: `(name, type)` per parameter, types written as the
/// adapters spell them (`*mut c_int`, `hipStream_t`), and the return type.
#[derive(Clone, Debug)]
pub(crate) struct Signature {
    pub(crate) params: Vec<(String, String)>,
    pub(crate) ret: String,
}

/// Every function of a generated `functions.rs`, by name. Two layouts are
/// read: `pub unsafe fn` wrappers, and a macro call whose body declares the
/// functions as foreign items (`pub fn name(args) -> ret;`).
pub(crate) fn functions(path: &Path) -> Result<BTreeMap<String, Signature>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let file = syn::parse_file(&text).with_context(|| format!("parsing {}", path.display()))?;
    let mut out = BTreeMap::new();
    for item in &file.items {
        match item {
            syn::Item::Fn(f) if matches!(f.vis, syn::Visibility::Public(_)) => {
                out.insert(f.sig.ident.to_string(), signature(&f.sig)?);
            }
            syn::Item::Macro(m) => {
                let parse_all = |input: syn::parse::ParseStream<'_>| {
                    let mut items = Vec::new();
                    while !input.is_empty() {
                        items.push(input.parse::<syn::ForeignItem>()?);
                    }
                    Ok(items)
                };
                // A macro whose body is not a list of foreign items is some
                // other macro: it declares no function.
                if let Ok(items) = parse_all.parse2(m.mac.tokens.clone()) {
                    for item in items {
                        if let syn::ForeignItem::Fn(f) = item {
                            out.insert(f.sig.ident.to_string(), signature(&f.sig)?);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    if out.is_empty() {
        bail!("{} declares no function", path.display());
    }
    Ok(out)
}

fn signature(sig: &syn::Signature) -> Result<Signature> {
    let mut params = Vec::new();
    for input in &sig.inputs {
        let syn::FnArg::Typed(p) = input else {
            bail!("{}: a `self` parameter", sig.ident);
        };
        let syn::Pat::Ident(name) = &*p.pat else {
            bail!("{}: a parameter that is not a name", sig.ident);
        };
        params.push((name.ident.to_string(), type_text(&p.ty)?));
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => String::new(),
        syn::ReturnType::Type(_, t) => type_text(t)?,
    };
    Ok(Signature { params, ret })
}

/// A type as Rust source, with the C-type paths (`::std::os::raw::c_int`,
/// `::core::ffi::c_void`) reduced to their last segment.
pub(crate) fn type_text(ty: &syn::Type) -> Result<String> {
    Ok(match ty {
        syn::Type::Ptr(p) => format!(
            "*{} {}",
            if p.mutability.is_some() {
                "mut"
            } else {
                "const"
            },
            type_text(&p.elem)?
        ),
        syn::Type::Path(p) if p.qself.is_none() => {
            let mut segments = Vec::new();
            for s in &p.path.segments {
                let mut text = s.ident.to_string();
                match &s.arguments {
                    syn::PathArguments::None => {}
                    syn::PathArguments::AngleBracketed(a) => {
                        let mut args = Vec::new();
                        for arg in &a.args {
                            match arg {
                                syn::GenericArgument::Type(t) => args.push(type_text(t)?),
                                _ => bail!("unsupported generic argument in a parameter type"),
                            }
                        }
                        text = format!("{text}<{}>", args.join(", "));
                    }
                    syn::PathArguments::Parenthesized(_) => {
                        bail!("unsupported parenthesized path in a parameter type")
                    }
                }
                segments.push(text);
            }
            let full = format!(
                "{}{}",
                if p.path.leading_colon.is_some() {
                    "::"
                } else {
                    ""
                },
                segments.join("::")
            );
            [
                "::std::os::raw::",
                "::core::ffi::",
                "core::ffi::",
                "std::os::raw::",
            ]
            .iter()
            .find_map(|prefix| full.strip_prefix(prefix).map(str::to_owned))
            .unwrap_or(full)
        }
        other => bail!("unsupported parameter type `{}`", quote::quote!(#other)),
    })
}

/// One associated constant of a newtype: `pub const NAME: T = T(value);`.
#[derive(Clone, Debug)]
pub(crate) struct Constant {
    pub(crate) name: String,
    pub(crate) value: i64,
    /// The `#[doc = "..."]` attributes just above it, each as written in
    /// the source between its quotes (escapes kept).
    pub(crate) docs: Vec<String>,
}

/// The constants of every `impl <type_name> { ... }` block of a generated
/// `types.rs`, in source order; `first_block_only` stops after the first
/// block that declares any.
pub(crate) fn constants(
    types: &syn::File,
    type_name: &str,
    first_block_only: bool,
) -> Result<Vec<Constant>> {
    let mut out = Vec::new();
    for item in &types.items {
        let syn::Item::Impl(block) = item else {
            continue;
        };
        let syn::Type::Path(self_ty) = &*block.self_ty else {
            continue;
        };
        if block.trait_.is_some() || !self_ty.path.is_ident(type_name) {
            continue;
        }
        let before = out.len();
        for member in &block.items {
            let syn::ImplItem::Const(c) = member else {
                continue;
            };
            let Some(value) = newtype_value(&c.expr, type_name) else {
                continue;
            };
            // Doc lines count only when nothing else comes between them and
            // the constant (as the table scripts always read them).
            let mut docs = Vec::new();
            for attr in &c.attrs {
                match doc_literal(attr) {
                    Some(d) => docs.push(d),
                    None => docs.clear(),
                }
            }
            out.push(Constant {
                name: c.ident.to_string(),
                value,
                docs,
            });
        }
        if first_block_only && out.len() > before {
            break;
        }
    }
    if out.is_empty() {
        bail!("no constant of {type_name} in the generated types");
    }
    Ok(out)
}

/// `T(N)` -> N.
fn newtype_value(expr: &syn::Expr, type_name: &str) -> Option<i64> {
    let syn::Expr::Call(call) = expr else {
        return None;
    };
    let syn::Expr::Path(f) = &*call.func else {
        return None;
    };
    if !f.path.is_ident(type_name) || call.args.len() != 1 {
        return None;
    }
    match &call.args[0] {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// The text between the quotes of `#[doc = "..."]` (a plain string literal,
/// not a raw one), escapes kept.
fn doc_literal(attr: &syn::Attribute) -> Option<String> {
    let syn::Meta::NameValue(nv) = &attr.meta else {
        return None;
    };
    if !nv.path.is_ident("doc") {
        return None;
    }
    let syn::Expr::Lit(syn::ExprLit {
        lit: syn::Lit::Str(s),
        ..
    }) = &nv.value
    else {
        return None;
    };
    let repr = s.token().to_string();
    repr.strip_prefix('"')?.strip_suffix('"').map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_wrappers_and_foreign_declarations_alike() {
        let dir = std::env::temp_dir().join(format!("nvidia-tables-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let wrappers = dir.join("wrappers.rs");
        std::fs::write(
            &wrappers,
            "pub unsafe fn hipFoo(p: *mut ::std::os::raw::c_int, s: hipStream_t) -> hipError_t { loop {} }",
        )
        .unwrap();
        let declared = dir.join("declared.rs");
        std::fs::write(
            &declared,
            "functions! { #[doc = \"x\"] pub fn hipFoo(p: *mut c_int, s: hipStream_t) -> hipError_t; }",
        )
        .unwrap();
        for path in [&wrappers, &declared] {
            let f = functions(path).unwrap();
            let sig = &f["hipFoo"];
            assert_eq!(
                sig.params,
                vec![
                    ("p".to_owned(), "*mut c_int".to_owned()),
                    ("s".to_owned(), "hipStream_t".to_owned())
                ]
            );
            assert_eq!(sig.ret, "hipError_t");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn constants_keep_their_escaped_docs() {
        let file: syn::File = syn::parse_str(
            "impl E { #[doc = \" a \\\"b\\\"\"] pub const X: E = E(3); #[doc = \"d\"] #[deprecated] pub const Y: E = E(4); }",
        )
        .unwrap();
        let c = constants(&file, "E", true).unwrap();
        assert_eq!(c[0].name, "X");
        assert_eq!(c[0].value, 3);
        assert_eq!(c[0].docs, vec![" a \\\"b\\\"".to_owned()]);
        assert!(
            c[1].docs.is_empty(),
            "an attribute between doc and constant drops the doc"
        );
    }
}
