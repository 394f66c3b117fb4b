//! Turns bindgen's output into the committed `types.rs` and `functions.rs`.
//!
//! bindgen's `extern "C"` declarations are not used as such: each function
//! becomes a field of a table of optional function pointers (filled once by
//! the loader, or by a platform backend) and a wrapper with the C signature
//! that calls through the table or returns an error status when the symbol is
//! unavailable.

use crate::filter::Filter;
use crate::library::Library;
use anyhow::Result;
use proc_macro2::{Ident, TokenStream};
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

pub(crate) fn types(split: &Split) -> Result<String> {
    let mut items = split.items.clone();
    let mut docs = DocCleaner;
    for item in &mut items {
        docs.visit_item_mut(item);
        if let Item::Struct(s) = item {
            if split.enums.contains_key(&s.ident.to_string()) {
                remove_derive(&mut s.attrs, "Debug");
            }
        }
    }
    let mut extra = TokenStream::new();
    for (name, consts) in &split.enums {
        let ty = format_ident!("{name}");
        let names = consts.iter().map(|c| c.to_string());
        extra.extend(quote! {
            impl #ty {
                /// The C name of this value, or `None` for a value these
                /// bindings do not know (a newer runtime may return one).
                #[allow(unreachable_patterns)]
                pub const fn name(self) -> Option<&'static str> {
                    match self {
                        #( Self::#consts => Some(#names), )*
                        _ => None,
                    }
                }
            }
            impl ::core::fmt::Debug for #ty {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    match self.name() {
                        Some(n) => f.write_str(n),
                        None => write!(f, concat!(stringify!(#ty), "({})"), self.0),
                    }
                }
            }
        });
    }
    let body = quote! { #(#items)* #extra };
    Ok(body.to_string())
}

fn remove_derive(attrs: &mut [Attribute], which: &str) {
    for attr in attrs.iter_mut() {
        if !attr.path().is_ident("derive") {
            continue;
        }
        let Ok(list) = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        ) else {
            continue;
        };
        let kept: Vec<_> = list.into_iter().filter(|p| !p.is_ident(which)).collect();
        *attr = syn::parse_quote!(#[derive(#(#kept),*)]);
    }
}

pub(crate) fn functions(lib: &Library, split: &Split, filter: &Filter) -> Result<String> {
    let table = format_ident!("{}", lib.table);
    let accessor: syn::Expr = syn::parse_str(lib.accessor)?;
    let unavailable: syn::Path = syn::parse_str(lib.unavailable)?;
    let n = split.functions.len();
    // The same imports as `types.rs`: the wrappers' signatures name types
    // another crate provides (hipblas-sys reuses hip-sys's).
    let prelude: TokenStream = lib
        .prelude
        .parse()
        .map_err(|e| anyhow::anyhow!("prelude of {}: {e}", lib.name))?;

    let mut fields = Vec::new();
    let mut resolves = Vec::new();
    let mut presents = Vec::new();
    let mut wrappers = Vec::new();
    let mut names = Vec::new();
    for f in &split.functions {
        let name = &f.sig.ident;
        let name_str = name.to_string();
        let inputs = &f.sig.inputs;
        let output = &f.sig.output;
        let ret_ty: syn::Type = match output {
            ReturnType::Default => syn::parse_quote!(()),
            ReturnType::Type(_, t) => (**t).clone(),
        };
        let fnptr = quote! { unsafe extern "C" fn(#inputs) #output };
        let cname = syn::LitCStr::new(
            &std::ffi::CString::new(name_str.clone())?,
            proc_macro2::Span::call_site(),
        );
        fields.push(quote! {
            #[doc = concat!("`", #name_str, "`, when available.")]
            pub #name: Option<#fnptr>
        });
        resolves.push(quote! {
            #name: {
                let p = lookup(#cname);
                if p.is_null() {
                    None
                } else {
                    // SAFETY: the symbol of this name has this C signature
                    // (it was generated from the declaration in the header).
                    Some(unsafe { ::core::mem::transmute::<*mut ::core::ffi::c_void, #fnptr>(p) })
                }
            }
        });
        presents.push(quote! { self.#name.is_some() });
        names.push(name_str.clone());

        let args: Vec<_> = inputs
            .iter()
            .map(|a| match a {
                syn::FnArg::Typed(pt) => pt.pat.clone(),
                syn::FnArg::Receiver(_) => unreachable!("C functions have no receiver"),
            })
            .collect();
        let mut doc = clean_doc_lines(&f.attrs);
        if !doc.is_empty() {
            doc.push(String::new());
        }
        doc.push(format!(
            "Calls `{name_str}` from {}. When the library is not loaded, or lacks this symbol, \
             returns the status that [`Unavailable`]({}) gives for the return type.",
            lib.library_doc,
            quote!(#unavailable).to_string().replace(' ', "")
        ));
        doc.push(String::new());
        doc.push("# Safety".to_owned());
        doc.push(String::new());
        doc.push(
            "A raw FFI call: the caller upholds the C function's contract (valid pointers for \
             what it reads and writes, live handles, sizes that match the buffers)."
                .to_owned(),
        );
        let doc_attrs = doc.iter().map(|l| {
            let l = format!(" {l}");
            quote!(#[doc = #l])
        });
        wrappers.push(quote! {
            #(#doc_attrs)*
            #[inline]
            pub unsafe fn #name(#inputs) #output {
                match #accessor {
                    Some(table) => match table.#name {
                        // SAFETY: forwarded to the C function with the caller's
                        // arguments; the caller upholds its contract.
                        Some(c_fn__) => unsafe { c_fn__(#(#args),*) },
                        None => <#ret_ty as #unavailable>::symbol_missing(),
                    },
                    None => <#ret_ty as #unavailable>::library_missing(),
                }
            }
        });
    }

    let legacy = filter.legacy_symbol.iter().map(|l| {
        let (b, s, m) = (&l.binding, &l.symbol, l.before_major);
        quote! { (#b, #s, #m) }
    });
    let table_doc = format!(
        "Every function of {} as an optional pointer, resolved once when the library is loaded \
         (or filled by a platform backend). `None` means the symbol is unavailable.",
        lib.library_doc
    );
    let out = quote! {
        #![allow(non_snake_case, clippy::too_many_arguments, clippy::missing_safety_doc)]
        #![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags, rustdoc::bare_urls)]
        use super::types::*;
        #prelude
        #[allow(unused_imports)]
        use ::core::ffi::*;

        /// Names of every bound function, in the order of the table's fields.
        pub const FUNCTION_NAMES: [&str; #n] = [#(#names),*];

        /// Bindings resolved from another symbol when the loaded runtime's
        /// major version is below the third value: (binding, symbol, major).
        pub const LEGACY_SYMBOLS: &[(&str, &str, u32)] = &[#(#legacy),*];

        #[doc = #table_doc]
        #[derive(Clone, Copy)]
        pub struct #table {
            #(#fields,)*
        }

        impl #table {
            /// A table with no function available.
            pub const EMPTY: Self = Self::empty();

            const fn empty() -> Self {
                // SAFETY: every field is an `Option` of a function pointer,
                // for which all-zero bits are `None`.
                unsafe { ::core::mem::zeroed() }
            }

            /// Resolves every function through `lookup`, which returns the
            /// symbol's address for a name, or null when it is absent.
            ///
            /// # Safety
            /// A non-null address returned for a name must be the function of
            /// that name with the C signature declared in the header.
            pub unsafe fn resolve(lookup: &mut dyn FnMut(&'static CStr) -> *mut c_void) -> Self {
                Self { #(#resolves,)* }
            }

            /// Which functions are available, in the order of [`FUNCTION_NAMES`].
            pub fn present(&self) -> [bool; #n] {
                [#(#presents),*]
            }

            /// Whether the function of this C name is available (false for
            /// names these bindings do not have).
            pub fn is_available(&self, name: &str) -> bool {
                FUNCTION_NAMES
                    .iter()
                    .position(|n| *n == name)
                    .is_some_and(|i| self.present()[i])
            }

            /// How many of the bound functions are available.
            pub fn available_count(&self) -> usize {
                self.present().iter().filter(|p| **p).count()
            }
        }

        impl ::core::fmt::Debug for #table {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, concat!(stringify!(#table), " {{ {} of {} available }}"), self.available_count(), #n)
            }
        }

        #(#wrappers)*
    };
    Ok(out.to_string())
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
