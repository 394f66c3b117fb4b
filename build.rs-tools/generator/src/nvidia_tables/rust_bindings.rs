//! Reading the committed bindings back with `syn`: each function's
//! parameters and return type, and the values (with their doc text) of the
//! status and attribute newtypes.

use anyhow::{bail, Context, Result};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::BTreeMap;
use std::path::Path;
use syn::parse::Parser;

/// One bound function: `(name, type)` per parameter, types written as the
/// adapters spell them (`*mut c_int`, `hipStream_t`), and the return type
/// (empty for none).
#[derive(Clone, Debug)]
pub(crate) struct Signature {
    pub(crate) params: Vec<(String, String)>,
    pub(crate) ret: String,
}

/// Every function of a generated `functions.rs`, by name. Two layouts are
/// read: `pub unsafe fn` wrappers with bodies, and a macro call
/// (`loaded_functions!`) that declares the functions without bodies
/// (`pub unsafe fn name(args) -> ret;`) anywhere in its tokens.
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
            syn::Item::Macro(m) => declared_functions(m.mac.tokens.clone(), &mut out)?,
            _ => {}
        }
    }
    if out.is_empty() {
        bail!("{} declares no function", path.display());
    }
    Ok(out)
}

/// The `fn name(args) -> ret;` declarations anywhere in a macro's tokens.
fn declared_functions(tokens: TokenStream, out: &mut BTreeMap<String, Signature>) -> Result<()> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        if let TokenTree::Group(g) = &trees[i] {
            declared_functions(g.stream(), out)?;
        }
        let is_declaration = matches!(
            (&trees[i], trees.get(i + 1), trees.get(i + 2)),
            (TokenTree::Ident(kw), Some(TokenTree::Ident(_)), Some(TokenTree::Group(args)))
                if kw == "fn" && args.delimiter() == Delimiter::Parenthesis
        );
        if !is_declaration {
            i += 1;
            continue;
        }
        // The declaration runs to its `;`.
        let end = (i + 3..trees.len())
            .find(|&j| matches!(&trees[j], TokenTree::Punct(p) if p.as_char() == ';'))
            .unwrap_or(trees.len());
        let decl: TokenStream = trees[i..end].iter().cloned().collect();
        let sig: syn::Signature = syn::parse2(decl)
            .with_context(|| format!("reading the declaration of {}", trees[i + 1]))?;
        out.insert(sig.ident.to_string(), signature(&sig)?);
        i = end;
    }
    Ok(())
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
        syn::ReturnType::Type(_, t) if !matches!(&**t, syn::Type::Tuple(u) if u.elems.is_empty()) => {
            type_text(t)?
        }
        _ => String::new(),
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

/// One value of a newtype.
#[derive(Clone, Debug)]
pub(crate) struct Constant {
    pub(crate) name: String,
    pub(crate) value: i64,
    /// The doc lines just above it (`///` or `#[doc = "..."]`), their text.
    pub(crate) docs: Vec<String>,
}

/// The values of a newtype in a generated `types.rs`, in source order: the
/// `Name = value,` lines of its `open_enum!` call, or else the constants
/// `pub const NAME: T = T(value);` of every `impl T { ... }` block
/// (`first_block_only`: of the first block that declares any).
pub(crate) fn constants(
    types: &syn::File,
    type_name: &str,
    first_block_only: bool,
) -> Result<Vec<Constant>> {
    for item in &types.items {
        if let syn::Item::Macro(m) = item {
            if let Some(out) = open_enum_values(m.mac.tokens.clone(), type_name)? {
                return Ok(out);
            }
        }
    }
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
            out.push(Constant {
                name: c.ident.to_string(),
                value,
                docs: doc_lines(&c.attrs),
            });
        }
        if first_block_only && out.len() > before {
            break;
        }
    }
    if out.is_empty() {
        bail!("no value of {type_name} in the generated types");
    }
    Ok(out)
}

/// The enumerators of `struct <type_name>(repr) { ... }` in a macro's
/// tokens, or `None` when the macro declares no such struct.
fn open_enum_values(tokens: TokenStream, type_name: &str) -> Result<Option<Vec<Constant>>> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for w in trees.windows(4) {
        let [TokenTree::Ident(kw), TokenTree::Ident(name), TokenTree::Group(repr), TokenTree::Group(body)] =
            w
        else {
            continue;
        };
        if kw != "struct"
            || name != type_name
            || repr.delimiter() != Delimiter::Parenthesis
            || body.delimiter() != Delimiter::Brace
        {
            continue;
        }
        let parse = |input: syn::parse::ParseStream<'_>| {
            let mut entries = Vec::new();
            while !input.is_empty() {
                let attrs = input.call(syn::Attribute::parse_outer)?;
                let name: syn::Ident = input.parse()?;
                input.parse::<syn::Token![=]>()?;
                let value: syn::Expr = input.parse()?;
                if !input.is_empty() {
                    input.parse::<syn::Token![,]>()?;
                }
                entries.push((attrs, name, value));
            }
            Ok(entries)
        };
        let entries = parse
            .parse2(body.stream())
            .with_context(|| format!("reading the enumerators of {type_name}"))?;
        let mut out = Vec::new();
        for (attrs, name, value) in entries {
            let value = int_value(&value)
                .with_context(|| format!("{type_name}::{name}: a value that is not a number"))?;
            out.push(Constant {
                name: name.to_string(),
                value,
                docs: doc_lines(&attrs),
            });
        }
        return Ok(Some(out));
    }
    for tree in trees {
        if let TokenTree::Group(g) = tree {
            if let Some(found) = open_enum_values(g.stream(), type_name)? {
                return Ok(Some(found));
            }
        }
    }
    Ok(None)
}

/// `N` or `-N`.
fn int_value(e: &syn::Expr) -> Option<i64> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => int_value(expr).map(|v| -v),
        _ => None,
    }
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
    int_value(&call.args[0])
}

/// The doc lines just above an item: only those with nothing else between
/// them and the item count.
fn doc_lines(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut docs = Vec::new();
    for attr in attrs {
        match doc_text(attr) {
            Some(d) => docs.push(d),
            None => docs.clear(),
        }
    }
    docs
}

/// The text of a doc attribute (`///` comment or `#[doc = "..."]`).
fn doc_text(attr: &syn::Attribute) -> Option<String> {
    let syn::Meta::NameValue(nv) = &attr.meta else {
        return None;
    };
    if !nv.path.is_ident("doc") {
        return None;
    }
    match &nv.value {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_wrappers_and_macro_declarations_alike() {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
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
            "crate::loaded_functions! { table: T, functions: { /// x\n pub unsafe fn hipFoo(p: *mut c_int, s: hipStream_t) -> hipError_t; pub unsafe fn hipBar() -> (); } }",
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
        assert_eq!(functions(&declared).unwrap()["hipBar"].ret, "");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn values_and_docs_of_open_enums_and_impl_blocks() {
        let open: syn::File = syn::parse_str(
            "crate::open_enum! { /// E\n #[must_use] pub struct E(u32) { /// a \"b\"\n X = 3, #[doc = \"d\"] #[deprecated] Y = -4, } }",
        )
        .unwrap();
        let old: syn::File = syn::parse_str(
            "impl E { #[doc = \" a \\\"b\\\"\"] pub const X: E = E(3); #[doc = \"d\"] #[deprecated] pub const Y: E = E(-4); }",
        )
        .unwrap();
        for file in [&open, &old] {
            let c = constants(file, "E", true).unwrap();
            assert_eq!((c[0].name.as_str(), c[0].value), ("X", 3));
            assert_eq!(c[0].docs, vec![" a \"b\"".to_owned()]);
            assert_eq!(c[1].value, -4);
            assert!(
                c[1].docs.is_empty(),
                "an attribute between doc and value drops the doc"
            );
        }
        assert!(constants(&open, "F", true).is_err());
    }
}
