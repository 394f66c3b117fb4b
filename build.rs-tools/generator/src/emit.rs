//! Turns bindgen's output into the committed `types.rs` and `functions.rs`.
//!
//! bindgen's `extern "C"` declarations are not used as such: each function
//! becomes a field of a table of optional function pointers (filled once by
//! the loader, or by a platform backend) and a wrapper with the C signature
//! that calls through the table or returns an error status when the symbol is
//! unavailable.

use crate::filter::Filter;
use crate::library::Library;
use anyhow::{Context, Result};
use proc_macro2::Ident;
use quote::{format_ident, quote};
use std::collections::BTreeMap;
use syn::visit_mut::VisitMut;
use syn::{Attribute, ForeignItemFn, Item, ReturnType};

pub(crate) struct Split {
    pub(crate) functions: Vec<ForeignItemFn>,
    pub(crate) items: Vec<Item>,
    /// Newtype enums: name -> constants in declaration order.
    pub(crate) enums: BTreeMap<String, Vec<Ident>>,
}

impl Split {
    pub(crate) fn type_count(&self) -> usize {
        self.items
            .iter()
            .filter(|i| matches!(i, Item::Struct(_) | Item::Union(_) | Item::Type(_)))
            .count()
    }
}

pub(crate) fn split(file: syn::File, _function_files: &[std::path::PathBuf]) -> Result<Split> {
    let mut functions = Vec::new();
    let mut items = Vec::new();
    let mut enums: BTreeMap<String, Vec<Ident>> = BTreeMap::new();
    for item in file.items {
        match item {
            Item::ForeignMod(m) => {
                for fi in m.items {
                    match fi {
                        syn::ForeignItem::Fn(f) => {
                            anyhow::ensure!(
                                f.sig.variadic.is_none(),
                                "variadic function {} cannot be called through a table",
                                f.sig.ident
                            );
                            functions.push(f);
                        }
                        other => anyhow::bail!("unexpected foreign item: {}", quote!(#other)),
                    }
                }
            }
            Item::Impl(imp) => {
                if let syn::Type::Path(tp) = &*imp.self_ty {
                    let name = tp.path.segments.last().unwrap().ident.to_string();
                    let consts: Vec<Ident> = imp
                        .items
                        .iter()
                        .filter_map(|ii| match ii {
                            syn::ImplItem::Const(c) => Some(c.ident.clone()),
                            _ => None,
                        })
                        .collect();
                    if !consts.is_empty() && consts.len() == imp.items.len() {
                        enums.entry(name).or_default().extend(consts);
                    }
                }
                items.push(Item::Impl(imp));
            }
            other => items.push(other),
        }
    }
    functions.sort_by_key(|f| f.sig.ident.to_string());
    Ok(Split {
        functions,
        items,
        enums,
    })
}

/// `types.rs` before formatting: bindgen's items with each enum's struct
/// replaced by a marker item, which [`splice_enums`] replaces by the enum's
/// `open_enum!` call once the file is formatted (rustfmt leaves the body of
/// a macro call alone, so it is written here line by line).
pub(crate) fn types(split: &Split) -> Result<String> {
    let mut items = Vec::new();
    let mut docs = DocCleaner;
    for item in &split.items {
        let mut item = item.clone();
        match &item {
            // The enum's constants: written by its `open_enum!` call.
            Item::Impl(imp) if enum_impl_of(imp, split).is_some() => continue,
            Item::Struct(s) if split.enums.contains_key(&s.ident.to_string()) => {
                let marker = format_ident!("{ENUM_MARKER}");
                let name = &s.ident;
                items.push(quote!(#marker!(#name);));
                continue;
            }
            _ => {}
        }
        docs.visit_item_mut(&mut item);
        items.push(quote!(#item));
    }
    Ok(quote! { #(#items)* }.to_string())
}

/// Name of the marker macro [`types`] leaves where an enum goes.
const ENUM_MARKER: &str = "hip_generator_enum_here";

/// The enum a bindgen `impl` block of constants belongs to.
fn enum_impl_of<'s>(imp: &syn::ItemImpl, split: &'s Split) -> Option<&'s String> {
    let syn::Type::Path(tp) = &*imp.self_ty else {
        return None;
    };
    let name = tp.path.segments.last()?.ident.to_string();
    let all_consts = imp
        .items
        .iter()
        .all(|ii| matches!(ii, syn::ImplItem::Const(_)));
    if !all_consts || imp.items.is_empty() {
        return None;
    }
    split.enums.get_key_value(&name).map(|(k, _)| k)
}

/// Replaces each enum marker of the formatted `types.rs` with the enum's
/// `open_enum!` call (`macros` is the path of the crate defining it).
pub(crate) fn splice_enums(formatted: &str, split: &Split, macros: &str) -> Result<String> {
    let mut structs: BTreeMap<String, &syn::ItemStruct> = BTreeMap::new();
    let mut values: BTreeMap<String, Vec<&syn::ImplItemConst>> = BTreeMap::new();
    for item in &split.items {
        match item {
            Item::Struct(s) if split.enums.contains_key(&s.ident.to_string()) => {
                structs.insert(s.ident.to_string(), s);
            }
            Item::Impl(imp) => {
                if let Some(name) = enum_impl_of(imp, split) {
                    let consts = imp.items.iter().filter_map(|ii| match ii {
                        syn::ImplItem::Const(c) => Some(c),
                        _ => None,
                    });
                    values.entry(name.clone()).or_default().extend(consts);
                }
            }
            _ => {}
        }
    }
    let mut out = String::with_capacity(formatted.len() * 2);
    let mut spliced = 0;
    for line in formatted.lines() {
        let marker = line
            .strip_prefix(ENUM_MARKER)
            .and_then(|r| r.strip_prefix("!("))
            .and_then(|r| r.strip_suffix(");"));
        match marker {
            Some(name) => {
                let s = structs
                    .get(name)
                    .with_context(|| format!("enum {name} has no struct"))?;
                let consts = values.get(name).map(Vec::as_slice).unwrap_or_default();
                out.push_str(&enum_call(s, consts, macros)?);
                spliced += 1;
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    anyhow::ensure!(
        spliced == split.enums.len(),
        "{} enums, {spliced} written",
        split.enums.len()
    );
    Ok(out)
}

/// One enum as an `open_enum!` call. Fails on anything the macro would not
/// reproduce (another derive list, attributes it does not pass on), so the
/// generated type stays what bindgen declared.
fn enum_call(s: &syn::ItemStruct, consts: &[&syn::ImplItemConst], macros: &str) -> Result<String> {
    let name = s.ident.to_string();
    let mut text = format!("{macros}::open_enum! {{\n");
    for line in clean_doc_lines(&s.attrs) {
        push_doc(&mut text, "    ", &line);
    }
    for attr in &s.attrs {
        let path = attr.path();
        if path.is_ident("doc") {
            continue;
        } else if path.is_ident("must_use") {
            text.push_str("    #[must_use]\n");
        } else if path.is_ident("repr") {
            let repr = quote!(#attr).to_string();
            anyhow::ensure!(repr.contains("transparent"), "{name}: {repr}");
        } else if path.is_ident("derive") {
            let list = attr.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )?;
            let derives: Vec<String> = list
                .iter()
                .map(|p| quote!(#p).to_string())
                .filter(|d| d != "Debug")
                .collect();
            anyhow::ensure!(
                derives == ["Copy", "Clone", "Hash", "PartialEq", "Eq"],
                "enum {name} derives {derives:?}, which open_enum! does not reproduce"
            );
        } else {
            anyhow::bail!("enum {name}: attribute {} not passed on", quote!(#attr));
        }
    }
    let syn::Fields::Unnamed(fields) = &s.fields else {
        anyhow::bail!("enum {name} is not a newtype");
    };
    anyhow::ensure!(fields.unnamed.len() == 1, "enum {name} is not a newtype");
    let repr = type_text(&fields.unnamed[0].ty);
    text.push_str(&format!("    pub struct {name}({repr}) {{\n"));
    for c in consts {
        for line in clean_doc_lines(&c.attrs) {
            push_doc(&mut text, "        ", &line);
        }
        anyhow::ensure!(
            c.attrs.iter().all(|a| a.path().is_ident("doc")),
            "{name}::{}: attributes other than docs",
            c.ident
        );
        let syn::Expr::Call(call) = &c.expr else {
            anyhow::bail!("{name}::{}: value is not `{name}(..)`", c.ident);
        };
        anyhow::ensure!(call.args.len() == 1, "{name}::{}: value", c.ident);
        let value =
            value_text(&call.args[0]).with_context(|| format!("{name}::{}: value", c.ident))?;
        text.push_str(&format!("        {} = {value},\n", c.ident));
    }
    text.push_str("    }\n}\n");
    Ok(text)
}

/// A `///` line: the line's text is the doc attribute's value after its
/// leading space, so `/// text` and `#[doc = " text"]` are the same doc.
fn push_doc(out: &mut String, indent: &str, line: &str) {
    out.push_str(indent);
    out.push_str("///");
    if !line.is_empty() {
        out.push(' ');
        out.push_str(line);
    }
    out.push('\n');
}

/// An enumerator's value: an integer literal, possibly negated.
fn value_text(e: &syn::Expr) -> Result<String> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => Ok(i.to_string()),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => {
            Ok(format!("-{}", value_text(&u.expr)?))
        }
        syn::Expr::Paren(p) => value_text(&p.expr),
        other => anyhow::bail!("not an integer literal: {}", quote!(#other)),
    }
}

/// A type written as rustfmt writes it (`*mut *const c_void`,
/// `::std::option::Option<unsafe extern "C" fn(arg1: i32) -> i32>`), for the
/// lines of a macro call, which rustfmt does not format.
pub(crate) fn type_text(t: &syn::Type) -> String {
    match t {
        syn::Type::Ptr(p) => {
            let kind = if p.mutability.is_some() {
                "mut"
            } else {
                "const"
            };
            format!("*{kind} {}", type_text(&p.elem))
        }
        syn::Type::Path(p) if p.qself.is_none() => path_text(&p.path),
        syn::Type::Tuple(t) => {
            let elems: Vec<String> = t.elems.iter().map(type_text).collect();
            if elems.len() == 1 {
                format!("({},)", elems[0])
            } else {
                format!("({})", elems.join(", "))
            }
        }
        syn::Type::Array(a) => {
            let len = &a.len;
            format!("[{}; {}]", type_text(&a.elem), quote!(#len))
        }
        syn::Type::Paren(p) => format!("({})", type_text(&p.elem)),
        syn::Type::BareFn(f) => {
            let mut s = String::new();
            if f.unsafety.is_some() {
                s.push_str("unsafe ");
            }
            if let Some(abi) = &f.abi {
                s.push_str("extern ");
                if let Some(name) = &abi.name {
                    s.push_str(&format!("{:?} ", name.value()));
                }
            }
            let mut params: Vec<String> = f
                .inputs
                .iter()
                .map(|a| match &a.name {
                    Some((name, _)) => format!("{name}: {}", type_text(&a.ty)),
                    None => type_text(&a.ty),
                })
                .collect();
            if f.variadic.is_some() {
                params.push("...".to_owned());
            }
            s.push_str(&format!("fn({})", params.join(", ")));
            s.push_str(&return_text(&f.output));
            s
        }
        other => quote!(#other).to_string(),
    }
}

fn path_text(p: &syn::Path) -> String {
    let mut s = String::new();
    if p.leading_colon.is_some() {
        s.push_str("::");
    }
    for (i, seg) in p.segments.iter().enumerate() {
        if i > 0 {
            s.push_str("::");
        }
        s.push_str(&seg.ident.to_string());
        if let syn::PathArguments::AngleBracketed(args) = &seg.arguments {
            let args: Vec<String> = args
                .args
                .iter()
                .map(|a| match a {
                    syn::GenericArgument::Type(t) => type_text(t),
                    other => quote!(#other).to_string(),
                })
                .collect();
            s.push_str(&format!("<{}>", args.join(", ")));
        }
    }
    s
}

/// ` -> T`, or nothing for a function returning nothing.
fn return_text(r: &ReturnType) -> String {
    match r {
        ReturnType::Default => String::new(),
        ReturnType::Type(_, t) => format!(" -> {}", type_text(t)),
    }
}

/// `functions.rs`: the module's attributes and imports, then one
/// `loaded_functions!` call holding every function's declaration (see
/// `hip-sys/src/binding.rs` for what it expands to).
pub(crate) fn functions(lib: &Library, split: &Split, filter: &Filter) -> Result<String> {
    let mut s = String::new();
    s.push_str(
        "#![allow(non_snake_case, clippy::too_many_arguments, clippy::missing_safety_doc)]\n\
         #![allow(\n    rustdoc::broken_intra_doc_links,\n    rustdoc::invalid_html_tags,\n    \
         rustdoc::bare_urls\n)]\n\
         use super::types::*;\n\
         #[allow(unused_imports)]\n\
         use ::core::ffi::*;\n",
    );
    s.push_str(&lib.prelude);
    s.push_str(&format!("{}::loaded_functions! {{\n", lib.macros));
    s.push_str(&format!("    library: {:?},\n", lib.library_doc));
    s.push_str(&format!("    table: {},\n", lib.table));
    s.push_str(&format!("    accessor: {},\n", lib.accessor));
    s.push_str(&format!("    unavailable: {},\n", lib.unavailable));
    s.push_str("    legacy_symbols: [");
    for l in &filter.legacy_symbol {
        s.push_str(&format!(
            "\n        ({:?}, {:?}, {}),",
            l.binding, l.symbol, l.before_major
        ));
    }
    if !filter.legacy_symbol.is_empty() {
        s.push_str("\n    ");
    }
    s.push_str("],\n    functions: {\n");
    for f in &split.functions {
        for line in clean_doc_lines(&f.attrs) {
            push_doc(&mut s, "        ", &line);
        }
        let params: Vec<String> = f
            .sig
            .inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(pt) => {
                    let syn::Pat::Ident(name) = &*pt.pat else {
                        anyhow::bail!("{}: a parameter without a name", f.sig.ident);
                    };
                    Ok(format!("{}: {}", name.ident, type_text(&pt.ty)))
                }
                syn::FnArg::Receiver(_) => anyhow::bail!("{}: a receiver", f.sig.ident),
            })
            .collect::<Result<_>>()?;
        // The macro takes the return type always: `-> ()` for none.
        let ret = match &f.sig.output {
            ReturnType::Default => " -> ()".to_owned(),
            r => return_text(r),
        };
        s.push_str(&format!(
            "        pub unsafe fn {}({}){ret};\n",
            f.sig.ident,
            params.join(", ")
        ));
    }
    s.push_str("    }\n}\n");
    Ok(s)
}

/// Rewrites doxygen comments into rustdoc that renders and never becomes a
/// doctest: directives turned into words, indentation dropped (an indented
/// line would be a Rust code block), brackets escaped.
struct DocCleaner;

impl VisitMut for DocCleaner {
    fn visit_attributes_mut(&mut self, attrs: &mut Vec<Attribute>) {
        let lines = clean_doc_lines(attrs);
        attrs.retain(|a| !a.path().is_ident("doc"));
        for (i, l) in lines.into_iter().enumerate() {
            let l = format!(" {l}");
            attrs.insert(i, syn::parse_quote!(#[doc = #l]));
        }
    }
}

fn clean_doc_lines(attrs: &[Attribute]) -> Vec<String> {
    let mut raw = String::new();
    for a in attrs {
        if !a.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &a.meta {
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
            {
                raw.push_str(&s.value());
                raw.push('\n');
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in raw.lines() {
        let mut l = line.trim().to_owned();
        // `///<` documents the member before it: the `<` is only a marker.
        if let Some(rest) = l.strip_prefix('<') {
            l = rest.trim_start().to_owned();
        }
        if l.starts_with("@code") || l.starts_with("```") {
            in_code = !in_code;
            out.push("```text".to_owned());
            if l.starts_with("```") && !in_code {
                out.pop();
                out.push("```".to_owned());
            }
            continue;
        }
        if l.starts_with("@endcode") {
            in_code = false;
            out.push("```".to_owned());
            continue;
        }
        if in_code {
            out.push(line.to_owned());
            continue;
        }
        for (from, to) in [
            ("@brief ", ""),
            ("@returns ", "Returns "),
            ("@return ", "Returns "),
            ("@note ", "Note: "),
            ("@warning ", "Warning: "),
            ("@see ", "See also: "),
            ("@param[in,out] ", "- in/out "),
            ("@param[out] ", "- out "),
            ("@param[in] ", "- in "),
            ("@param ", "- "),
            ("@p ", ""),
            ("@ref ", ""),
        ] {
            l = l.replace(from, to);
        }
        if l.starts_with('@') {
            // Grouping and other doxygen-only directives carry no prose.
            if ["@{", "@}", "@defgroup", "@ingroup", "@addtogroup", "@{"]
                .iter()
                .any(|d| l.starts_with(d))
            {
                continue;
            }
            l = l.trim_start_matches('@').to_owned();
        }
        let l = l
            .replace('\\', "\\\\")
            .replace('[', "\\[")
            .replace(']', "\\]")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        let l = if l.starts_with('#') {
            format!("\\{l}")
        } else {
            l
        };
        out.push(l);
    }
    if in_code {
        out.push("```".to_owned());
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    out
}

/// Applies the filter's alignment overrides to the formatted `types.rs`:
/// `#[repr(align(N))]` on the struct, and its compile-time assert updated.
/// Fails when a listed type is not there, so a stale filter is noticed.
pub(crate) fn apply_alignment(
    text: &str,
    overrides: &[crate::filter::AlignOverride],
) -> Result<String> {
    let mut text = text.to_owned();
    for o in overrides {
        let decl = format!(
            "#[repr(C)]\n#[derive(Debug, Default, Copy, Clone, PartialEq)]\npub struct {} {{",
            o.item
        );
        anyhow::ensure!(
            text.contains(&decl),
            "align override: struct `{}` not found",
            o.item
        );
        let doc = format!(
            "#[doc = \" Aligned to {} bytes: {}\"]\n#[repr(C, align({}))]\n#[derive(Debug, Default, Copy, Clone, PartialEq)]\npub struct {} {{",
            o.align, o.reason, o.align, o.item
        );
        text = text.replace(&decl, &doc);
        let assert = regex::Regex::new(&format!(
            r"(align_of::<{}>\(\) - )\d+usize",
            regex::escape(&o.item)
        ))?;
        anyhow::ensure!(
            assert.is_match(&text),
            "align override: no alignment assert for `{}`",
            o.item
        );
        text = assert
            .replace(&text, format!("${{1}}{}usize", o.align))
            .into_owned();
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_written_as_rustfmt_writes_them() {
        for text in [
            "*mut *const ::std::os::raw::c_void",
            "::std::option::Option<unsafe extern \"C\" fn(arg1: *mut f32, arg2: i32) -> i32>",
            "[u8; 16usize]",
            "()",
            "hipblasStatus_t",
        ] {
            let ty: syn::Type = syn::parse_str(text).unwrap();
            assert_eq!(type_text(&ty), text);
        }
    }

    #[test]
    fn enum_values_keep_their_sign() {
        let minus: syn::Expr = syn::parse_str("-5").unwrap();
        assert_eq!(value_text(&minus).unwrap(), "-5");
        let call: syn::Expr = syn::parse_str("f(1)").unwrap();
        assert!(value_text(&call).is_err());
    }
}
