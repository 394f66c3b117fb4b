//! How a CUDA function's wrapper passes its arguments: CUDA's parameter
//! types where they are ABI-identical to HIP's, converted at no cost; HIP's
//! types otherwise.

use super::emit::rust_text;
use super::inputs::Hip;
use super::{EnumDef, TypeDef};
use crate::cuda_compat_input::{self as input, Module, Sig, Ty};
use anyhow::Result;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use syn::Type;

pub(super) struct SigCtx<'a> {
    pub(super) hip: &'a Hip,
    /// CUDA function -> values of HIP's trailing parameters CUDA lacks.
    pub(super) extra_args: &'a BTreeMap<String, Vec<String>>,
    /// HIP struct pairs with one layout (checked by generated asserts).
    pub(super) layout_equivalent: &'a [(String, String)],
    pub(super) types: &'a BTreeMap<String, (Module, TypeDef)>,
    pub(super) enums: &'a [EnumDef],
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

    /// One entry of the module's `cuda_functions!` call (its doc line and
    /// `fn NAME(PARAMS) -> RET = HIP_CALL;`) and a note for the coverage
    /// report.
    pub(super) fn wrapper(
        &self,
        m: Module,
        cuda: &str,
        hip: &str,
        cuda_sig: Option<&Sig>,
        hip_sig: &Sig,
    ) -> Result<(String, String)> {
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
            None => (None, false),
            Some(hr) => {
                let hip_rt = self.hip_rt(hr);
                let cuda_ret = usable
                    .and_then(|s| s.ret.as_ref())
                    .and_then(|r| self.cuda_type(r));
                match cuda_ret {
                    Some((ct, Rt::Compat(_, h))) if hip_rt == Rt::T(Ty::Named(h.clone())) => {
                        (Some(ct), true)
                    }
                    Some((ct, crt)) if crt == hip_rt => (Some(ct), false),
                    _ => match self.compat_for_hip(m, hr) {
                        Some((t, _)) => (Some(t), true),
                        None => {
                            let t = self.hip_tokens(hr);
                            (Some(t), false)
                        }
                    },
                }
            }
        };
        let call = quote! { #hip_path(#(#args),*) };
        let call = if ret_conv { quote!(#call.into()) } else { call };
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
        let mut doc = format!(
            "CUDA `{cuda}`: calls HIP's [`{hip}`]({}).",
            hip_doc.trim_start_matches("::")
        );
        if !note.is_empty() {
            let _ = write!(doc, " Signature note{note}.");
        }
        let params: Vec<String> = params.iter().map(rust_text).collect();
        let ret = match ret_ty {
            Some(t) => format!(" -> {}", rust_text(&t)),
            None => String::new(),
        };
        let entry = format!(
            "    /// {doc}\n    fn {cuda}({}){ret} = {};\n",
            params.join(", "),
            rust_text(&call)
        );
        Ok((entry, note))
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
