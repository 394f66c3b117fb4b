//! Signatures, not only names: for each item that cudarc and cuda-compat
//! both have under a public path, with the same kind, the parts a caller
//! compiles against are compared.
//!
//! What is compared, per kind (each a *component*, named in the list):
//! - functions and methods: `header` (`unsafe`, `const`, `async`, ABI),
//!   `generics` (lifetime, type and const parameters with their bounds and
//!   where-clauses), `receiver` (`self`'s type, or none), `inputs`
//!   (parameter types), `output`, `variadic`; for an inherent method also
//!   `impl` (the impl block's generics and self type, which decide where
//!   the method exists); for a trait's method `default` (whether it has a
//!   body, which decides what an implementor must write);
//! - structs and unions: `generics`, `fields` (public fields' types;
//!   whether private ones exist, which decides whether a literal can be
//!   written), `non_exhaustive`, `trait impls` (cudarc's must all exist,
//!   auto traits included);
//! - enums: `generics`, `non_exhaustive`, `extra variants` (a variant
//!   cudarc lacks breaks a caller's exhaustive `match`), `trait impls`;
//!   each variant: `shape` (unit, tuple or struct, and field types);
//! - traits: `header` (`unsafe`, auto, dyn-compatible), `generics`,
//!   `supertraits`, `extra required items` (an item an implementor must
//!   write that cudarc does not ask for), `implementors` (cudarc's must
//!   all exist: a caller relies on `DeviceRepr for u16`); each trait item
//!   at its own path;
//! - type aliases: `generics`, `target`; constants: `type`; statics:
//!   `type`, `mutable`, `unsafe`; associated types and constants: `type`,
//!   `bounds`, `default`.
//!
//! Compared modulo what cannot matter to a caller: parameter names, docs,
//! spans, attributes other than `#[non_exhaustive]`, constant values and
//! enum discriminants (HIP's values differ from CUDA's by design; the
//! type is what compiles), the names of generic parameters (they are
//! renamed by position, so `'a` and `'b` compare equal), the order of
//! bounds, whether a bound is written inline or in a where-clause, an
//! explicit `Sized` bound, and type aliases (one side's alias compares
//! equal to what it names, so a difference is reported once, at the
//! alias). Paths compare modulo the crate: an item of either crate is
//! named by its public paths (a re-export resolves to the same name as
//! its target) and names that share a public path are one name; items of
//! other crates by their crate path (`core::result::Result`). `core::ffi`'s
//! and `libc`'s C types are their x86_64 Linux primitives.
//!
//! Not compared: modules and macros (no signature), an item defined in
//! another crate and re-exported (rustdoc's JSON has no body for it), and
//! a pair whose kinds differ on purpose ([`super::same_kind`]: a C enum as
//! an open newtype, a C struct as a type alias).

use super::{Api, Paths};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// One crate's JSON and its public API, as the comparison reads them.
pub(crate) struct Side<'a> {
    index: &'a Map<String, Value>,
    summaries: Option<&'a Map<String, Value>>,
    crates: HashMap<String, String>,
    api: &'a Api,
    /// Every public path of each id.
    paths_of: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Side<'a> {
    pub(crate) fn new(doc: &'a Value, api: &'a Api) -> Result<Self, String> {
        let index = doc
            .get("index")
            .and_then(Value::as_object)
            .ok_or("rustdoc JSON: no `index` object")?;
        let crates = doc
            .get("external_crates")
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.get("name")?.as_str()?.to_owned())))
                    .collect()
            })
            .unwrap_or_default();
        let mut paths_of: HashMap<&str, Vec<&str>> = HashMap::new();
        for (id, path) in &api.names {
            paths_of.entry(id).or_default().push(path);
        }
        Ok(Side {
            index,
            summaries: doc.get("paths").and_then(Value::as_object),
            crates,
            api,
            paths_of,
        })
    }

    /// The name rustdoc's summary gives an id: `::a::b` for the crate's
    /// own items, `krate::a::b` for another crate's.
    fn summary_name(&self, id: &str) -> Option<String> {
        let s = self.summaries?.get(id)?;
        let segs: Vec<&str> = s
            .get("path")?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let krate = s.get("crate_id").map(super::id_key)?;
        if krate == "0" {
            Some(segs.iter().skip(1).map(|s| format!("::{s}")).collect())
        } else {
            let first = self.crates.get(&krate).map(String::as_str);
            let mut out = first.unwrap_or(segs.first().copied()?).to_owned();
            for s in segs.iter().skip(1) {
                out.push_str("::");
                out.push_str(s);
            }
            Some(out)
        }
    }

    /// Every name of an id: its public paths, then its summary's.
    fn names(&self, id: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .paths_of
            .get(id)
            .map(|v| v.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default();
        out.extend(self.summary_name(id));
        out
    }
}

/// Names that are one name: union-find over strings, the smallest of a
/// class its representative.
#[derive(Default)]
pub(crate) struct Names {
    parent: HashMap<String, String>,
}

impl Names {
    fn find(&self, n: &str) -> String {
        let mut cur = n.to_owned();
        while let Some(p) = self.parent.get(&cur) {
            if *p == cur {
                break;
            }
            cur = p.clone();
        }
        cur
    }

    fn union(&mut self, a: &str, b: &str) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return;
        }
        let (root, child) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent.insert(child, root);
    }

    /// Joins every id's names on both sides: a path into cudarc and the
    /// same path into cuda-compat are then one name.
    pub(crate) fn build(sides: &[&Side<'_>]) -> Names {
        let mut n = Names::default();
        for side in sides {
            let mut ids: Vec<&str> = side.paths_of.keys().copied().collect();
            ids.sort_unstable();
            for id in ids {
                let names = side.names(id);
                for pair in names.windows(2) {
                    n.union(&pair[0], &pair[1]);
                }
            }
        }
        n
    }
}

/// Whether `name` is the C type `c` of `core::ffi`, `std::os::raw`,
/// `std::ffi` or `libc`.
fn is_c_type(name: &str, c: &str) -> bool {
    let krate = name.split("::").next().unwrap_or("");
    matches!(krate, "core" | "std" | "libc") && name.rsplit("::").next() == Some(c)
}

/// `core::ffi`'s (and `std::os::raw`'s, `libc`'s) C types, and
/// `std::os::fd::RawFd`, on x86_64 Linux.
fn c_primitive(name: &str) -> Option<&'static str> {
    let krate = name.split("::").next()?;
    if !matches!(krate, "core" | "std" | "libc") {
        return None;
    }
    Some(match name.rsplit("::").next()? {
        "RawFd" => "i32",
        "c_char" | "c_schar" => "i8",
        "c_uchar" => "u8",
        "c_short" => "i16",
        "c_ushort" => "u16",
        "c_int" => "i32",
        "c_uint" => "u32",
        "c_long" | "c_longlong" => "i64",
        "c_ulong" | "c_ulonglong" => "u64",
        "c_float" => "f32",
        "c_double" => "f64",
        _ => return None,
    })
}

/// Keys of rustdoc's JSON that cannot matter to a caller.
const DROPPED: &[&str] = &[
    "id",
    "span",
    "docs",
    "links",
    "attrs",
    "deprecation",
    "crate_id",
];

/// Turns one side's rustdoc JSON into a form comparable with the other's:
/// paths become names ([`Names`]), generic parameters are renamed by
/// position, parameter names and docs are dropped.
struct Norm<'s, 'a> {
    side: &'s Side<'a>,
    names: &'s Names,
    /// Renamings in scope, innermost last.
    scopes: Vec<HashMap<String, String>>,
    /// Parameters numbered so far: lifetimes, types, consts.
    counter: [usize; 3],
    /// What `Self` is in an inherent impl: its self type.
    self_ty: Option<Value>,
}

impl<'s, 'a> Norm<'s, 'a> {
    fn new(side: &'s Side<'a>, names: &'s Names) -> Self {
        Norm {
            side,
            names,
            scopes: Vec::new(),
            counter: [0; 3],
            self_ty: None,
        }
    }

    fn rename(&self, n: &str) -> String {
        for s in self.scopes.iter().rev() {
            if let Some(r) = s.get(n) {
                return r.clone();
            }
        }
        n.to_owned()
    }

    /// Opens a scope for generic parameters (`params`), each renamed by
    /// its position in the item: `'l0`, `T1`, `C2`.
    fn open(&mut self, params: Option<&Value>) {
        let mut scope = HashMap::new();
        for p in params.and_then(Value::as_array).into_iter().flatten() {
            let Some(name) = p.get("name").and_then(Value::as_str) else {
                continue;
            };
            let kind = p
                .get("kind")
                .and_then(Value::as_object)
                .and_then(|m| m.keys().next())
                .map(String::as_str);
            let (slot, prefix) = match kind {
                Some("lifetime") => (0, "'l"),
                Some("const") => (2, "C"),
                _ => (1, "T"),
            };
            let new = format!("{prefix}{}", self.counter[slot]);
            self.counter[slot] += 1;
            scope.insert(name.to_owned(), new);
        }
        self.scopes.push(scope);
    }

    fn close(&mut self) {
        self.scopes.pop();
    }

    /// A path's name: its id's representative, else the path as written.
    fn name(&self, path: &Value) -> String {
        let by_id = path
            .get("id")
            .filter(|v| !v.is_null())
            .map(super::id_key)
            .and_then(|id| self.side.names(&id).into_iter().next());
        match by_id {
            Some(n) => self.names.find(&n),
            None => format!(
                "?{}",
                path.get("path").and_then(Value::as_str).unwrap_or("")
            ),
        }
    }

    /// Any piece of rustdoc JSON (a type, bounds, generic arguments).
    fn v(&mut self, x: &Value) -> Value {
        match x {
            Value::Object(m) => {
                if let Some(rp) = m.get("resolved_path") {
                    let mut name = self.name(rp);
                    if let Some(prim) = c_primitive(&name) {
                        return json!({ "primitive": prim });
                    }
                    if is_c_type(&name, "c_void") {
                        name = "core::ffi::c_void".to_owned();
                    }
                    return json!({ "resolved_path": {
                        "name": name,
                        "args": self.v(rp.get("args").unwrap_or(&Value::Null)),
                    }});
                }
                if m.get("path").is_some_and(Value::is_string) && m.contains_key("id") {
                    return json!({
                        "name": self.name(x),
                        "args": self.v(m.get("args").unwrap_or(&Value::Null)),
                    });
                }
                if let (Some(Value::String(g)), Some(t)) = (m.get("generic"), &self.self_ty) {
                    if g == "Self" {
                        return t.clone();
                    }
                }
                if let Some(Value::String(g)) = m.get("generic") {
                    return json!({ "generic": self.rename(g) });
                }
                // Higher-ranked (`for<'a>`) parameters open a scope.
                let hrtb = m
                    .get("generic_params")
                    .filter(|p| p.as_array().is_some_and(|a| !a.is_empty()));
                if hrtb.is_some() {
                    self.open(hrtb);
                }
                let mut out = Map::new();
                for (k, v) in m {
                    if DROPPED.contains(&k.as_str()) {
                        continue;
                    }
                    let nv = match (k.as_str(), v) {
                        // An array's length may name a const parameter.
                        ("lifetime" | "outlives" | "len", Value::String(l)) => {
                            Value::String(self.rename(l))
                        }
                        ("outlives", Value::Array(ls)) => {
                            let mut r: Vec<String> = ls
                                .iter()
                                .filter_map(Value::as_str)
                                .map(|l| self.rename(l))
                                .collect();
                            r.sort();
                            json!(r)
                        }
                        ("generic_params", Value::Array(ps)) => {
                            Value::Array(ps.iter().map(|p| self.param(p, Vec::new())).collect())
                        }
                        _ => self.v(v),
                    };
                    out.insert(k.clone(), nv);
                }
                if hrtb.is_some() {
                    self.close();
                }
                Value::Object(out)
            }
            Value::Array(a) => Value::Array(a.iter().map(|e| self.v(e)).collect()),
            Value::String(s) if s.starts_with('\'') => Value::String(self.rename(s)),
            other => other.clone(),
        }
    }

    /// Bounds as a sorted set, an explicit `Sized` dropped.
    fn bounds(&mut self, bs: &[&Value]) -> Value {
        let mut set = BTreeMap::new();
        for b in bs {
            let nb = self.v(b);
            let name = nb
                .pointer("/trait_bound/trait/name")
                .and_then(Value::as_str);
            let modifier = nb.pointer("/trait_bound/modifier").and_then(Value::as_str);
            if name == Some("core::marker::Sized") && modifier == Some("none") {
                continue;
            }
            set.insert(nb.to_string(), nb);
        }
        Value::Array(set.into_values().collect())
    }

    /// One generic parameter (already renamed), with extra bounds from
    /// where-clauses.
    fn param(&mut self, p: &Value, extra: Vec<&Value>) -> Value {
        let name = p.get("name").and_then(Value::as_str).unwrap_or("");
        let kind = p.get("kind").and_then(Value::as_object);
        let mut out = Map::new();
        out.insert("name".into(), json!(self.rename(name)));
        if let Some((k, body)) = kind.and_then(|m| m.iter().next()) {
            let nb = match k.as_str() {
                "lifetime" => {
                    let mut outl: Vec<String> = body
                        .get("outlives")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .chain(extra.iter().copied())
                        .filter_map(Value::as_str)
                        .map(|l| self.rename(l))
                        .collect();
                    outl.sort();
                    outl.dedup();
                    json!({ "outlives": outl })
                }
                "type" => {
                    let mut bs: Vec<&Value> = body
                        .get("bounds")
                        .and_then(Value::as_array)
                        .map(|a| a.iter().collect())
                        .unwrap_or_default();
                    bs.extend(extra);
                    json!({
                        "bounds": self.bounds(&bs),
                        "default": self.v(body.get("default").unwrap_or(&Value::Null)),
                        "is_synthetic": body.get("is_synthetic").cloned().unwrap_or(Value::Null),
                    })
                }
                _ => self.v(body),
            };
            out.insert(k.clone(), nb);
        }
        Value::Object(out)
    }

    /// Generics after [`Norm::open`]: parameters with their bounds, a
    /// where-clause on a parameter merged into it, other predicates sorted.
    fn generics(&mut self, g: Option<&Value>) -> Value {
        let params: Vec<&Value> = g
            .and_then(|g| g.get("params"))
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let names: HashSet<&str> = params
            .iter()
            .filter_map(|p| p.get("name").and_then(Value::as_str))
            .collect();
        let mut extra: HashMap<&str, Vec<&Value>> = HashMap::new();
        let mut rest = BTreeMap::new();
        for w in g
            .and_then(|g| g.get("where_predicates"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(bp) = w.get("bound_predicate") {
                let on = bp.pointer("/type/generic").and_then(Value::as_str);
                let hr = bp
                    .get("generic_params")
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty());
                if let (Some(on), false) = (on, hr) {
                    if names.contains(on) {
                        let bs = bp.get("bounds").and_then(Value::as_array);
                        extra
                            .entry(on)
                            .or_default()
                            .extend(bs.into_iter().flatten());
                        continue;
                    }
                }
            }
            if let Some(lp) = w.get("lifetime_predicate") {
                if let Some(on) = lp.get("lifetime").and_then(Value::as_str) {
                    if names.contains(on) {
                        let ls = lp.get("outlives").and_then(Value::as_array);
                        extra
                            .entry(on)
                            .or_default()
                            .extend(ls.into_iter().flatten());
                        continue;
                    }
                }
            }
            let nw = self.v(w);
            rest.insert(nw.to_string(), nw);
        }
        let ps: Vec<Value> = params
            .iter()
            .map(|p| {
                let n = p.get("name").and_then(Value::as_str).unwrap_or("");
                let e = extra.remove(n).unwrap_or_default();
                self.param(p, e)
            })
            .collect();
        json!({ "params": ps, "where": rest.into_values().collect::<Vec<_>>() })
    }
}

/// Traits whose impls cannot matter to a caller: `Drop` cannot be
/// called, and `Freeze` and `UnsafeUnpin` are the compiler's own, not
/// nameable on stable.
const IMPLS_PASSED_OVER: &[&str] = &[
    "core::ops::drop::Drop",
    "core::marker::Freeze",
    "core::marker::UnsafeUnpin",
];

/// How a component's two values must relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rule {
    /// The same (modulo aliases).
    Equal,
    /// Every element of cuda-compat's list is in cudarc's.
    OursWithin,
    /// Every element of cudarc's list is in cuda-compat's.
    TheirsWithin,
}

/// An item's signature: components, each a value and its rule.
type Sig = BTreeMap<&'static str, (Value, Rule)>;

fn is_non_exhaustive(item: &Value) -> bool {
    item.get("attrs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|a| a.as_str() == Some("non_exhaustive") || a.to_string().contains("non_exhaustive"))
}

fn kind_body(item: &Value) -> Option<(&str, &Value)> {
    super::inner(item)
}

fn flag(v: &Value, key: &str) -> Value {
    json!(v.get(key).and_then(Value::as_bool).unwrap_or(false))
}

fn ids_of(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(super::id_key).collect())
        .unwrap_or_default()
}

impl Norm<'_, '_> {
    fn item(&self, id: &str) -> Option<&Value> {
        self.side.index.get(id)
    }

    /// A function's components (`trait_item`: whether `default` counts).
    fn function(&mut self, f: &Value, sig: &mut Sig, trait_item: bool) {
        self.open(f.pointer("/generics/params"));
        let g = self.generics(f.get("generics"));
        sig.insert("generics", (g, Rule::Equal));
        let h = f.get("header").cloned().unwrap_or(Value::Null);
        sig.insert(
            "header",
            (
                json!({
                    "unsafe": flag(&h, "is_unsafe"),
                    "const": flag(&h, "is_const"),
                    "async": flag(&h, "is_async"),
                    "abi": self.v(h.get("abi").unwrap_or(&Value::Null)),
                }),
                Rule::Equal,
            ),
        );
        let inputs: Vec<&Value> = f
            .pointer("/sig/inputs")
            .and_then(Value::as_array)
            .map(|a| a.iter().collect())
            .unwrap_or_default();
        let mut receiver = Value::Null;
        let mut types = Vec::new();
        for (i, inp) in inputs.iter().enumerate() {
            let name = inp.get(0).and_then(Value::as_str);
            let ty = self.v(inp.get(1).unwrap_or(&Value::Null));
            if i == 0 && name == Some("self") {
                receiver = ty;
            } else {
                types.push(ty);
            }
        }
        sig.insert("receiver", (receiver, Rule::Equal));
        sig.insert("inputs", (Value::Array(types), Rule::Equal));
        let out = self.v(f.pointer("/sig/output").unwrap_or(&Value::Null));
        sig.insert("output", (out, Rule::Equal));
        sig.insert(
            "variadic",
            (
                flag(f.get("sig").unwrap_or(&Value::Null), "is_c_variadic"),
                Rule::Equal,
            ),
        );
        if trait_item {
            sig.insert("default", (flag(f, "has_body"), Rule::Equal));
        }
        self.close();
    }

    /// Public fields by name (tuple fields by position, a private one
    /// `null`) and whether private ones exist.
    fn fields(&mut self, kind: &Value) -> Value {
        if let Some(t) = kind.get("tuple").and_then(Value::as_array) {
            let fs: Vec<Value> = t
                .iter()
                .map(|f| {
                    let fi = (!f.is_null())
                        .then(|| self.item(&super::id_key(f)).cloned())
                        .flatten();
                    match fi.as_ref().and_then(kind_body) {
                        Some(("struct_field", ty)) if fi.as_ref().is_some_and(field_visible) => {
                            self.v(ty)
                        }
                        _ => Value::Null,
                    }
                })
                .collect();
            return json!({ "tuple": fs });
        }
        let body = kind
            .get("plain")
            .or_else(|| kind.get("struct"))
            .unwrap_or(kind);
        if body.is_null() || body.as_str() == Some("unit") || kind.as_str() == Some("unit") {
            return json!("unit");
        }
        let mut named = BTreeMap::new();
        for fid in ids_of(body.get("fields")) {
            let Some(fi) = self.item(&fid).cloned() else {
                continue;
            };
            if let (Some(n), Some(("struct_field", ty))) = (super::name(&fi), kind_body(&fi)) {
                if field_visible(&fi) {
                    named.insert(n.to_owned(), self.v(ty));
                }
            }
        }
        json!({
            "fields": named,
            "private fields": flag(body, "has_stripped_fields"),
        })
    }

    /// Names the lifetimes of an impl's self type `f` by where they
    /// appear in it: `impl<'a, T> View<'a, T>` and `impl<T> View<'_, T>`
    /// are the same impl, both `View<'i0, T0>`. The impl's lifetime
    /// parameters are renamed to match in the innermost scope.
    fn impl_lifetimes(&mut self, f: &mut Value) {
        let mut k = 0;
        let mut map: HashMap<String, String> = HashMap::new();
        let params: HashSet<String> = self
            .scopes
            .last()
            .map(|s| {
                s.values()
                    .filter(|v| v.starts_with("'l"))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        walk_lifetimes(f, &mut |l: &mut Value| {
            let Some(name) = l.as_str().map(str::to_owned) else {
                return;
            };
            if name == "'_" {
                *l = json!(format!("'i{k}"));
                k += 1;
            } else if params.contains(&name) {
                let new = map.entry(name).or_insert_with(|| {
                    k += 1;
                    format!("'i{}", k - 1)
                });
                *l = json!(new.clone());
            }
        });
        if let Some(scope) = self.scopes.last_mut() {
            for v in scope.values_mut() {
                if let Some(new) = map.get(v.as_str()) {
                    *v = new.clone();
                }
            }
        }
    }

    /// An impl's trait and self type, its parameters numbered from 0
    /// whatever came before (so the order of impls does not matter).
    fn impl_header(&mut self, imp: &Value) -> (Value, Value) {
        let before = self.counter;
        self.counter = [0; 3];
        self.open(imp.pointer("/generics/params"));
        let mut f = self.v(imp.get("for").unwrap_or(&Value::Null));
        self.impl_lifetimes(&mut f);
        let t = self.v(imp.get("trait").unwrap_or(&Value::Null));
        self.close();
        self.counter = before;
        (t, f)
    }

    /// Trait impls of a type that a caller can use: not blanket ones
    /// (they follow from the trait), not negative ones (a missing
    /// `!Send` only allows more), not [`IMPLS_PASSED_OVER`]:
    /// `Trait<Args> for Type`.
    fn trait_impls(&mut self, impls: &[String]) -> Value {
        let mut set = BTreeSet::new();
        for i in impls {
            let Some(("impl", imp)) = self.item(i).and_then(kind_body) else {
                continue;
            };
            let imp = imp.clone();
            if imp.get("trait").map_or(true, Value::is_null)
                || imp.get("blanket_impl").is_some_and(|b| !b.is_null())
            {
                continue;
            }
            let (t, f) = self.impl_header(&imp);
            let name = t.get("name").and_then(Value::as_str).unwrap_or("");
            if flag(&imp, "is_negative") == json!(true) || IMPLS_PASSED_OVER.contains(&name) {
                continue;
            }
            set.insert(format!("{} for {}", show_path(&t), show(&f)));
        }
        json!(set.into_iter().collect::<Vec<_>>())
    }

    /// The components of item `id` (whose parent, an impl or a trait,
    /// is `parent`); `None` when the item is not in this crate's index.
    fn sig(&mut self, id: &str, parent: Option<&str>) -> Option<Sig> {
        let item = self.item(id)?.clone();
        let (kind, body) = kind_body(&item)?;
        let body = body.clone();
        let mut sig = Sig::new();
        let parent_item = parent.and_then(|p| self.item(p)).cloned();
        let parent_kind = parent_item
            .as_ref()
            .and_then(kind_body)
            .map(|(k, b)| (k.to_owned(), b.clone()));
        let in_trait = matches!(&parent_kind, Some((k, _)) if k == "trait");
        if let Some((_, pb)) = &parent_kind {
            self.open(pb.pointer("/generics/params"));
            if !in_trait {
                let mut f = self.v(pb.get("for").unwrap_or(&Value::Null));
                self.impl_lifetimes(&mut f);
                let mut g = self.generics(pb.get("generics"));
                drop_anonymous(&mut g);
                self.self_ty = Some(f.clone());
                sig.insert("impl", (json!({ "generics": g, "for": f }), Rule::Equal));
            }
        }
        match kind {
            "function" => {
                self.function(&body, &mut sig, in_trait);
                explicit_elision(&mut sig);
            }
            "struct" | "union" => {
                self.open(body.pointer("/generics/params"));
                let g = self.generics(body.get("generics"));
                sig.insert("generics", (g, Rule::Equal));
                let fields = if kind == "union" {
                    let k = json!({ "plain": { "fields": body.get("fields").cloned().unwrap_or(Value::Null),
                        "has_stripped_fields": flag(&body, "has_stripped_fields") } });
                    self.fields(&k)
                } else {
                    self.fields(body.get("kind").unwrap_or(&Value::Null))
                };
                sig.insert("fields", (fields, Rule::Equal));
                self.close();
                sig.insert(
                    "non_exhaustive",
                    (json!(is_non_exhaustive(&item)), Rule::Equal),
                );
                let ti = self.trait_impls(&ids_of(body.get("impls")));
                sig.insert("trait impls", (ti, Rule::TheirsWithin));
            }
            "enum" => {
                self.open(body.pointer("/generics/params"));
                let g = self.generics(body.get("generics"));
                sig.insert("generics", (g, Rule::Equal));
                self.close();
                let ne = is_non_exhaustive(&item);
                sig.insert("non_exhaustive", (json!(ne), Rule::Equal));
                let names: Vec<String> = ids_of(body.get("variants"))
                    .iter()
                    .filter_map(|v| self.item(v).and_then(super::name).map(str::to_owned))
                    .collect();
                sig.insert("extra variants", (json!(names), Rule::OursWithin));
                let ti = self.trait_impls(&ids_of(body.get("impls")));
                sig.insert("trait impls", (ti, Rule::TheirsWithin));
            }
            "variant" => {
                let k = body.get("kind").cloned().unwrap_or(Value::Null);
                let shape = if k.as_str() == Some("plain") {
                    json!("unit")
                } else {
                    self.fields(&k)
                };
                sig.insert("shape", (shape, Rule::Equal));
            }
            "trait" => {
                self.open(body.pointer("/generics/params"));
                let g = self.generics(body.get("generics"));
                sig.insert("generics", (g, Rule::Equal));
                sig.insert(
                    "header",
                    (
                        json!({
                            "unsafe": flag(&body, "is_unsafe"),
                            "auto": flag(&body, "is_auto"),
                            "dyn_compatible": flag(&body, "is_dyn_compatible"),
                        }),
                        Rule::Equal,
                    ),
                );
                let bs: Vec<&Value> = body
                    .get("bounds")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().collect())
                    .unwrap_or_default();
                let sup = self.bounds(&bs);
                sig.insert("supertraits", (sup, Rule::Equal));
                self.close();
                let mut required = Vec::new();
                for m in ids_of(body.get("items")) {
                    let Some(mi) = self.item(&m) else { continue };
                    let provided = match kind_body(mi) {
                        Some(("function", f)) => {
                            f.get("has_body").and_then(Value::as_bool) == Some(true)
                        }
                        Some(("assoc_type", t)) => t.get("type").is_some_and(|t| !t.is_null()),
                        Some(("assoc_const", c)) => c.get("value").is_some_and(|v| !v.is_null()),
                        _ => true,
                    };
                    if !provided {
                        required.extend(super::name(mi).map(str::to_owned));
                    }
                }
                required.sort();
                sig.insert("extra required items", (json!(required), Rule::OursWithin));
                let mut implementors = BTreeSet::new();
                for i in ids_of(body.get("implementations")) {
                    let Some(("impl", imp)) = self.item(&i).and_then(kind_body) else {
                        continue;
                    };
                    let imp = imp.clone();
                    if imp.get("blanket_impl").is_some_and(|b| !b.is_null()) {
                        continue;
                    }
                    let (t, f) = self.impl_header(&imp);
                    implementors.insert(format!("{} for {}", show_path(&t), show(&f)));
                }
                sig.insert(
                    "implementors",
                    (
                        json!(implementors.into_iter().collect::<Vec<_>>()),
                        Rule::TheirsWithin,
                    ),
                );
            }
            "type_alias" => {
                self.open(body.pointer("/generics/params"));
                let g = self.generics(body.get("generics"));
                sig.insert("generics", (g, Rule::Equal));
                let t = self.v(body.get("type").unwrap_or(&Value::Null));
                sig.insert("target", (t, Rule::Equal));
                self.close();
            }
            "constant" => {
                let t = self.v(body.get("type").unwrap_or(&Value::Null));
                sig.insert("type", (t, Rule::Equal));
            }
            "static" => {
                let t = self.v(body.get("type").unwrap_or(&Value::Null));
                sig.insert("type", (t, Rule::Equal));
                sig.insert("mutable", (flag(&body, "is_mutable"), Rule::Equal));
                sig.insert("unsafe", (flag(&body, "is_unsafe"), Rule::Equal));
            }
            "assoc_const" => {
                let t = self.v(body.get("type").unwrap_or(&Value::Null));
                sig.insert("type", (t, Rule::Equal));
                if in_trait {
                    let d = body.get("value").is_some_and(|v| !v.is_null());
                    sig.insert("default", (json!(d), Rule::Equal));
                }
            }
            "assoc_type" => {
                self.open(body.pointer("/generics/params"));
                let g = self.generics(body.get("generics"));
                sig.insert("generics", (g, Rule::Equal));
                let bs: Vec<&Value> = body
                    .get("bounds")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().collect())
                    .unwrap_or_default();
                let b = self.bounds(&bs);
                sig.insert("bounds", (b, Rule::Equal));
                let t = self.v(body.get("type").unwrap_or(&Value::Null));
                sig.insert(if in_trait { "default" } else { "type" }, (t, Rule::Equal));
                self.close();
            }
            _ => {}
        }
        if parent_kind.is_some() {
            self.close();
        }
        Some(sig)
    }
}

/// Drops from an impl's generics the lifetime parameters that
/// [`Norm::impl_lifetimes`] named and nothing bounds: `impl<'a> View<'a>`
/// is `impl View<'_>`.
fn drop_anonymous(g: &mut Value) {
    if let Some(ps) = g.get_mut("params").and_then(Value::as_array_mut) {
        ps.retain(|p| {
            let name = p.get("name").and_then(Value::as_str).unwrap_or("");
            let unbounded = p
                .pointer("/lifetime/outlives")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty);
            !(name.starts_with("'i") && unbounded)
        });
    }
}

/// Calls `f` on every named lifetime in a normalized type (a
/// reference's, a generic argument's), in the order they are written.
fn walk_lifetimes(v: &mut Value, f: &mut dyn FnMut(&mut Value)) {
    match v {
        Value::Object(m) => {
            for (k, x) in m.iter_mut() {
                if k == "lifetime" && x.is_string() {
                    f(x);
                } else {
                    walk_lifetimes(x, f);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| walk_lifetimes(x, f)),
        _ => {}
    }
}

/// Makes lifetime elision explicit for a method on `&self`: the
/// receiver's lifetime is `'self`, and so are the output's elided ones;
/// a lifetime parameter of the method's own that only the receiver and
/// the output use is `'self` too (`fn f<'b>(&'b self) -> View<'b, T>` is
/// `fn f(&self) -> View<'_, T>`), and leaves the generics.
fn explicit_elision(sig: &mut Sig) {
    let Some(recv) = sig.get("receiver").map(|(v, _)| v.clone()) else {
        return;
    };
    let Some(own) = recv.pointer("/borrowed_ref/lifetime").cloned() else {
        return;
    };
    let mut target: Option<String> = None;
    if let Some(l) = own.as_str().filter(|l| *l != "'_") {
        // Only a parameter of the method's own, unbounded, unused by the
        // other inputs and the other parameters.
        let text = format!("\"{l}\"");
        let generics = sig
            .get("generics")
            .map(|(g, _)| g.clone())
            .unwrap_or_default();
        let params = generics
            .get("params")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let own_param = params.iter().any(|p| {
            p.get("name").and_then(Value::as_str) == Some(l)
                && p.pointer("/lifetime/outlives")
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
        });
        let elsewhere = sig
            .get("inputs")
            .is_some_and(|(v, _)| v.to_string().contains(&text))
            || generics
                .get("where")
                .is_some_and(|w| w.to_string().contains(&text))
            || params.iter().any(|p| {
                p.get("name").and_then(Value::as_str) != Some(l) && p.to_string().contains(&text)
            });
        if !own_param || elsewhere {
            return;
        }
        target = Some(l.to_owned());
        if let Some(ps) = sig
            .get_mut("generics")
            .and_then(|(g, _)| g.get_mut("params"))
            .and_then(Value::as_array_mut)
        {
            ps.retain(|p| p.get("name").and_then(Value::as_str) != Some(l));
        }
    }
    let to_self = |v: &mut Value| {
        walk_lifetimes(v, &mut |l: &mut Value| {
            if l.as_str() == Some("'_") || (target.is_some() && l.as_str() == target.as_deref()) {
                *l = json!("'self");
            }
        });
    };
    if let Some((r, _)) = sig.get_mut("receiver") {
        if let Some(x) = r.pointer_mut("/borrowed_ref/lifetime") {
            *x = json!("'self");
        }
    }
    if let Some((o, _)) = sig.get_mut("output") {
        // An elided reference lifetime is `null` in rustdoc's JSON.
        set_null_lifetimes(o);
        to_self(o);
    }
}

/// Writes `'_` for every elided (`null`) reference lifetime.
fn set_null_lifetimes(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Object(r)) = m.get_mut("borrowed_ref") {
                if r.get("lifetime").is_some_and(Value::is_null) {
                    r.insert("lifetime".into(), json!("'_"));
                }
            }
            m.values_mut().for_each(set_null_lifetimes);
        }
        Value::Array(a) => a.iter_mut().for_each(set_null_lifetimes),
        _ => {}
    }
}

fn field_visible(f: &Value) -> bool {
    matches!(
        f.get("visibility").and_then(Value::as_str),
        Some("public") | Some("default")
    )
}

/// Non-generic type aliases of one side, by name: what each names.
fn aliases(side: &Side<'_>, names: &Names) -> HashMap<String, Value> {
    let mut out = HashMap::new();
    for (id, item) in side.index {
        let Some(("type_alias", body)) = kind_body(item) else {
            continue;
        };
        let generic = body
            .pointer("/generics/params")
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty());
        if generic {
            continue;
        }
        let mut n = Norm::new(side, names);
        let Some(name) = side.names(id).into_iter().next() else {
            continue;
        };
        let target = n.v(body.get("type").unwrap_or(&Value::Null));
        out.insert(names.find(&name), target);
    }
    out
}

/// Each side's aliases, for [`same`].
struct Aliases<'a> {
    theirs: &'a HashMap<String, Value>,
    ours: &'a HashMap<String, Value>,
}

/// A resolved path's name, when `v` is one without arguments.
fn alias_name(v: &Value) -> Option<&str> {
    let rp = v.get("resolved_path")?;
    let no_args = rp.get("args").map_or(true, |a| {
        a.is_null()
            || a.pointer("/angle_bracketed/args")
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
    });
    if !no_args {
        return None;
    }
    rp.get("name")?.as_str()
}

/// Whether `a` (cudarc's) and `b` (cuda-compat's) are the same to a
/// caller: a type alias on either side is what it names, and a name in
/// cudarc's type is what the same path means in cuda-compat (a caller
/// writes the path, whatever it resolves to).
fn same(a: &Value, b: &Value, al: &Aliases<'_>, depth: usize) -> bool {
    same_in(a, b, al.theirs, al, depth)
}

/// `v`, then what it names while it is a type alias in `table`.
fn chain<'v>(v: &'v Value, table: &'v HashMap<String, Value>) -> Vec<&'v Value> {
    let mut out = vec![v];
    let mut cur = v;
    while let Some(t) = alias_name(cur).and_then(|n| table.get(n)) {
        if out.len() > 16 || out.contains(&t) {
            break;
        }
        out.push(t);
        cur = t;
    }
    out
}

/// [`same`] with `left` the alias table of `a`'s side (cudarc's, or
/// cuda-compat's once a name has been read as cuda-compat's).
fn same_in(
    a: &Value,
    b: &Value,
    left: &HashMap<String, Value>,
    al: &Aliases<'_>,
    depth: usize,
) -> bool {
    if a == b {
        return true;
    }
    if depth > 64 {
        return false;
    }
    let is_path = |v: &Value| v.get("resolved_path").is_some();
    if !is_path(a) && !is_path(b) {
        return match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.get(k).is_some_and(|w| same_in(v, w, left, al, depth + 1)))
            }
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(v, w)| same_in(v, w, left, al, depth + 1))
            }
            _ => false,
        };
    }
    // Every reading of `a`: through its own side's aliases, and each of
    // those names read as cuda-compat's.
    let mut readings: Vec<(&Value, &HashMap<String, Value>)> = Vec::new();
    for x in chain(a, left) {
        readings.push((x, left));
        if !std::ptr::eq(left, al.ours) && alias_name(x).is_some() {
            readings.extend(chain(x, al.ours).into_iter().skip(1).map(|y| (y, al.ours)));
        }
    }
    let ours = chain(b, al.ours);
    readings.iter().any(|(x, table)| {
        ours.iter().any(|y| {
            let (nx, ny) = (
                x.pointer("/resolved_path/name"),
                y.pointer("/resolved_path/name"),
            );
            match (nx, ny) {
                (Some(nx), Some(ny)) => {
                    nx == ny
                        && same_in(
                            x.pointer("/resolved_path/args").unwrap_or(&Value::Null),
                            y.pointer("/resolved_path/args").unwrap_or(&Value::Null),
                            table,
                            al,
                            depth + 1,
                        )
                }
                (None, None) => same_in(x, y, table, al, depth + 1),
                _ => false,
            }
        })
    })
}

/// Whether every element of `small` is (modulo aliases) in `big`.
fn within(small: &Value, big: &Value, al: &Aliases<'_>, theirs_small: bool) -> bool {
    let (s, b) = (
        small.as_array().cloned().unwrap_or_default(),
        big.as_array().cloned().unwrap_or_default(),
    );
    s.iter().all(|x| {
        b.iter().any(|y| {
            if theirs_small {
                same(x, y, al, 0)
            } else {
                same(y, x, al, 0)
            }
        })
    })
}

/// A path as Rust writes it: the last segment for the standard library's
/// items, the whole name for others, and its generic arguments.
fn show_path(p: &Value) -> String {
    let name = p.get("name").and_then(Value::as_str).unwrap_or("?");
    let short =
        if name.starts_with("core::") || name.starts_with("alloc::") || name.starts_with("std::") {
            name.rsplit("::").next().unwrap_or(name)
        } else {
            name
        };
    format!(
        "{short}{}",
        show_args(p.get("args").unwrap_or(&Value::Null))
    )
}

fn show_args(a: &Value) -> String {
    if let Some(ab) = a.get("angle_bracketed") {
        let mut parts: Vec<String> = ab
            .get("args")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|g| match g {
                Value::Object(m) => match m.iter().next().map(|(k, v)| (k.as_str(), v)) {
                    Some(("type", t)) => show(t),
                    Some(("lifetime", l)) => l.as_str().unwrap_or("'?").to_owned(),
                    Some(("const", c)) => c
                        .get("expr")
                        .and_then(Value::as_str)
                        .unwrap_or("{const}")
                        .to_owned(),
                    _ => g.to_string(),
                },
                _ => "_".to_owned(),
            })
            .collect();
        for c in ab
            .get("constraints")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let n = c.get("name").and_then(Value::as_str).unwrap_or("?");
            match c.pointer("/binding/equality/type") {
                Some(t) => parts.push(format!("{n} = {}", show(t))),
                None => parts.push(format!(
                    "{n}: {}",
                    c.get("binding").map(show).unwrap_or_default()
                )),
            }
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("<{}>", parts.join(", "))
        }
    } else if let Some(p) = a.get("parenthesized") {
        let ins: Vec<String> = p
            .get("inputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(show)
            .collect();
        let out = p
            .get("output")
            .filter(|o| !o.is_null())
            .map(|o| format!(" -> {}", show(o)));
        format!("({}){}", ins.join(", "), out.unwrap_or_default())
    } else {
        String::new()
    }
}

fn show_bounds(bs: &Value) -> String {
    let parts: Vec<String> = bs
        .as_array()
        .into_iter()
        .flatten()
        .map(|b| {
            if let Some(tb) = b.get("trait_bound") {
                let m = match tb.get("modifier").and_then(Value::as_str) {
                    Some("maybe") => "?",
                    Some("maybe_const") => "~const ",
                    _ => "",
                };
                format!("{m}{}", show_path(tb.get("trait").unwrap_or(&Value::Null)))
            } else if let Some(l) = b.get("outlives").and_then(Value::as_str) {
                l.to_owned()
            } else {
                b.to_string()
            }
        })
        .collect();
    parts.join(" + ")
}

/// A normalized value as Rust writes it, where it is a type, generics or
/// a list of those; compact JSON otherwise.
pub(crate) fn show(v: &Value) -> String {
    let Value::Object(m) = v else {
        return match v {
            Value::Array(a) => format!("[{}]", a.iter().map(show).collect::<Vec<_>>().join(", ")),
            Value::Null => "none".to_owned(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    };
    if m.len() == 1 {
        let (k, b) = m.iter().next().unwrap();
        let s = |x: &str| show(b.get(x).unwrap_or(&Value::Null));
        let mutability = |mutable: &str, other: &str| {
            if b.get("is_mutable").and_then(Value::as_bool) == Some(true) {
                mutable.to_owned()
            } else {
                other.to_owned()
            }
        };
        match k.as_str() {
            "resolved_path" => return show_path(b),
            "generic" | "primitive" => return b.as_str().unwrap_or("?").to_owned(),
            "tuple" => {
                let parts: Vec<String> = b.as_array().into_iter().flatten().map(show).collect();
                return format!("({})", parts.join(", "));
            }
            "slice" => return format!("[{}]", show(b)),
            "array" => {
                return format!(
                    "[{}; {}]",
                    s("type"),
                    b.get("len").and_then(Value::as_str).unwrap_or("?")
                )
            }
            "raw_pointer" => return format!("*{} {}", mutability("mut", "const"), s("type")),
            "borrowed_ref" => {
                let l = b
                    .get("lifetime")
                    .and_then(Value::as_str)
                    .map(|l| format!("{l} "));
                return format!(
                    "&{}{}{}",
                    l.unwrap_or_default(),
                    mutability("mut ", ""),
                    s("type")
                );
            }
            "impl_trait" => return format!("impl {}", show_bounds(b)),
            "dyn_trait" => {
                let ts: Vec<String> = b
                    .get("traits")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|t| show_path(t.get("trait").unwrap_or(&Value::Null)))
                    .collect();
                return format!("dyn {}", ts.join(" + "));
            }
            "qualified_path" => {
                return format!(
                    "<{} as {}>::{}",
                    s("self_type"),
                    b.get("trait").map(show_path).unwrap_or_default(),
                    b.get("name").and_then(Value::as_str).unwrap_or("?")
                )
            }
            "function_pointer" => {
                let ins: Vec<String> = b
                    .pointer("/sig/inputs")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|i| show(i.get(1).unwrap_or(i)))
                    .collect();
                let out = b
                    .pointer("/sig/output")
                    .filter(|o| !o.is_null())
                    .map(|o| format!(" -> {}", show(o)));
                let h = b.get("header").cloned().unwrap_or(Value::Null);
                let unsafe_ = if flag(&h, "is_unsafe") == json!(true) {
                    "unsafe "
                } else {
                    ""
                };
                let abi = match h.get("abi") {
                    Some(Value::String(a)) if a == "Rust" => String::new(),
                    Some(a) => format!("extern {} ", show(a)),
                    None => String::new(),
                };
                return format!(
                    "{unsafe_}{abi}fn({}){}",
                    ins.join(", "),
                    out.unwrap_or_default()
                );
            }
            _ => {}
        }
    }
    if let (Some(ps), Some(w)) = (m.get("params").and_then(Value::as_array), m.get("where")) {
        let parts: Vec<String> = ps
            .iter()
            .map(|p| {
                let n = p.get("name").and_then(Value::as_str).unwrap_or("?");
                if let Some(t) = p.get("type") {
                    let bs = show_bounds(t.get("bounds").unwrap_or(&Value::Null));
                    if bs.is_empty() {
                        n.to_owned()
                    } else {
                        format!("{n}: {bs}")
                    }
                } else if let Some(c) = p.get("const") {
                    format!("const {n}: {}", show(c.get("type").unwrap_or(&Value::Null)))
                } else if let Some(o) = p
                    .pointer("/lifetime/outlives")
                    .and_then(Value::as_array)
                    .filter(|o| !o.is_empty())
                {
                    format!(
                        "{n}: {}",
                        o.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join(" + ")
                    )
                } else {
                    n.to_owned()
                }
            })
            .collect();
        let mut out = format!("<{}>", parts.join(", "));
        if w.as_array().is_some_and(|a| !a.is_empty()) {
            out.push_str(&format!(" where {}", w));
        }
        return out;
    }
    let parts: Vec<String> = m.iter().map(|(k, v)| format!("{k}: {}", show(v))).collect();
    format!("{{{}}}", parts.join(", "))
}

/// One item's differences: each differing component with cudarc's and
/// cuda-compat's values as Rust writes them.
pub(crate) type Diff = Vec<(&'static str, String, String)>;

/// What the comparison found.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// Differing items by path (the first path of each item pair).
    pub(crate) diffs: BTreeMap<String, Diff>,
    /// Item pairs compared, outside `sys` and in it.
    pub(crate) compared: [usize; 2],
    /// Items not compared: kinds that differ on purpose, defined in
    /// another crate, no signature (modules, macros).
    pub(crate) other_shape: usize,
    pub(crate) foreign: usize,
    pub(crate) unsigned: usize,
}

/// Compares the signatures of the items both crates have under one
/// public path, each pair of items once.
pub(crate) fn compare(theirs: &Side<'_>, ours: &Side<'_>) -> Outcome {
    let names = Names::build(&[theirs, ours]);
    let (ta, oa) = (aliases(theirs, &names), aliases(ours, &names));
    let al = Aliases {
        theirs: &ta,
        ours: &oa,
    };
    let mut out = Outcome::default();
    let mut done = HashSet::new();
    let both: &Paths = &theirs.api.paths;
    for (path, kind) in both {
        let Some(okind) = ours.api.paths.get(path) else {
            continue;
        };
        if kind != okind {
            if super::same_kind(kind, okind) {
                out.other_shape += 1;
            }
            continue;
        }
        let (tl, ol) = (&theirs.api.locs[path], &ours.api.locs[path]);
        if !done.insert((tl.clone(), ol.clone())) {
            continue;
        }
        if matches!(
            kind.as_str(),
            "module" | "macro" | "proc_macro" | "primitive"
        ) {
            out.unsigned += 1;
            continue;
        }
        let ts = Norm::new(theirs, &names).sig(&tl.id, tl.parent.as_deref());
        let os = Norm::new(ours, &names).sig(&ol.id, ol.parent.as_deref());
        let (Some(ts), Some(os)) = (ts, os) else {
            out.foreign += 1;
            continue;
        };
        out.compared[usize::from(super::in_sys(path))] += 1;
        let mut diff = Diff::new();
        for (comp, (tv, rule)) in &ts {
            let ov = os.get(comp).map(|(v, _)| v).unwrap_or(&Value::Null);
            let ok = match rule {
                Rule::Equal => same(tv, ov, &al, 0),
                Rule::OursWithin => within(ov, tv, &al, false),
                Rule::TheirsWithin => within(tv, ov, &al, true),
            };
            if !ok {
                let (t, o) = match rule {
                    Rule::Equal => (show(tv), show(ov)),
                    // Only what is in one list and not the other.
                    Rule::OursWithin => {
                        (String::from("-"), show(&missing_from(ov, tv, &al, false)))
                    }
                    Rule::TheirsWithin => {
                        (show(&missing_from(tv, ov, &al, true)), String::from("-"))
                    }
                };
                diff.push((comp, t, o));
            }
        }
        if !diff.is_empty() {
            out.diffs.insert(path.clone(), diff);
        }
    }
    out
}

/// The elements of `list` not in `other`.
fn missing_from(list: &Value, other: &Value, al: &Aliases<'_>, list_theirs: bool) -> Value {
    let o = other.as_array().cloned().unwrap_or_default();
    let left: Vec<Value> = list
        .as_array()
        .into_iter()
        .flatten()
        .filter(|x| {
            !o.iter().any(|y| {
                if list_theirs {
                    same(x, y, al, 0)
                } else {
                    same(y, x, al, 0)
                }
            })
        })
        .cloned()
        .collect();
    Value::Array(left)
}

/// One line of the reviewed list: a path whose signature differs from
/// cudarc's on purpose, the components that differ, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Listed {
    pub(crate) path: String,
    pub(crate) what: String,
    pub(crate) reason: String,
}

/// The components of a difference as the list writes them: `inputs,output`.
fn what(diff: &Diff) -> String {
    let mut c: Vec<&str> = diff.iter().map(|(c, _, _)| *c).collect();
    c.sort_unstable();
    c.join(",")
}

/// The list file: `PATH<TAB>COMPONENTS<TAB>REASON` lines
/// ([`super::parse_reviewed`]).
pub(crate) fn parse_list(text: &str) -> Result<Vec<Listed>, String> {
    Ok(
        super::parse_reviewed(text, "PATH<TAB>COMPONENTS<TAB>REASON")?
            .into_iter()
            .map(|[path, what, reason]| Listed { path, what, reason })
            .collect(),
    )
}

/// The check's lines (`cudarc api: NAME ... ok|FAILED`, then the counts
/// and the first offending paths) and whether it passed. A difference
/// passes only when its path is listed with exactly the components that
/// differ; a listed path that no longer differs, or no longer in some
/// listed component, fails as stale.
pub(crate) fn check(out: &Outcome, list: &[Listed]) -> (Vec<String>, bool) {
    let listed: BTreeMap<&str, &Listed> = list.iter().map(|l| (l.path.as_str(), l)).collect();
    let mut unlisted = Vec::new();
    let mut stale = Vec::new();
    for (path, diff) in &out.diffs {
        let now = what(diff);
        match listed.get(path.as_str()) {
            None => unlisted.push((path.as_str(), diff, "not listed".to_owned())),
            Some(l) if l.what != now => {
                let was: BTreeSet<&str> = l.what.split(',').collect();
                let is: BTreeSet<&str> = now.split(',').collect();
                if !is.is_subset(&was) {
                    unlisted.push((path.as_str(), diff, format!("listed as {}", l.what)));
                }
                if !was.is_subset(&is) {
                    stale.push(format!(
                        "{path} (listed as {}, differs now in {now})",
                        l.what
                    ));
                }
            }
            Some(_) => {}
        }
    }
    for l in list {
        if !out.diffs.contains_key(&l.path) {
            stale.push(format!("{} (no longer differs: remove the line)", l.path));
        }
    }
    let verdict = |ok: bool| if ok { "ok" } else { "FAILED" };
    let compared = out.compared[0] + out.compared[1];
    let differ_sys = out.diffs.keys().filter(|p| super::in_sys(p)).count();
    let mut lines = vec![
        format!(
            "cudarc api: every signature that differs from cudarc's is listed ({compared} items compared, {} differ, {} of them unlisted) ... {}",
            out.diffs.len(),
            unlisted.len(),
            verdict(unlisted.is_empty())
        ),
        format!(
            "cudarc api: the signature list names only differences that exist ({} stale) ... {}",
            stale.len(),
            verdict(stale.is_empty())
        ),
    ];
    let mut by_comp: BTreeMap<&str, usize> = BTreeMap::new();
    for d in out.diffs.values() {
        for (c, _, _) in d {
            *by_comp.entry(c).or_default() += 1;
        }
    }
    let comps: Vec<String> = by_comp.iter().map(|(c, n)| format!("{c} {n}")).collect();
    lines.push(format!(
        "signatures: {} items compared outside sys ({} differ), {} in sys ({} differ); differing in: {}; not compared: {} of another shape on purpose, {} defined in another crate, {} modules and macros; list: {} entries",
        out.compared[0],
        out.diffs.len() - differ_sys,
        out.compared[1],
        differ_sys,
        if comps.is_empty() { "none".to_owned() } else { comps.join(", ") },
        out.other_shape,
        out.foreign,
        out.unsigned,
        list.len()
    ));
    const SHOWN: usize = 40;
    for (path, diff, note) in unlisted.iter().take(SHOWN) {
        lines.push(format!("  unlisted: {path} ({note})"));
        for (c, t, o) in diff.iter() {
            lines.push(format!("    {c}: cudarc {t} / cuda-compat {o}"));
        }
    }
    if unlisted.len() > SHOWN {
        lines.push(format!(
            "  ... and {} more unlisted",
            unlisted.len() - SHOWN
        ));
    }
    for s in stale.iter().take(SHOWN) {
        lines.push(format!("  stale: {s}"));
    }
    if stale.len() > SHOWN {
        lines.push(format!("  ... and {} more stale", stale.len() - SHOWN));
    }
    (lines, unlisted.is_empty() && stale.is_empty())
}

/// The list file for the differences now, keeping the reasons of `old`
/// lines for the same path and giving new ones `reason`.
pub(crate) fn list_file(out: &Outcome, old: &[Listed], reason: &str) -> String {
    let reasons: BTreeMap<&str, &str> = old
        .iter()
        .map(|l| (l.path.as_str(), l.reason.as_str()))
        .collect();
    let mut text = String::from(
        "# cudarc 0.19.10's items whose signature in cuda-compat differs on\n\
         # purpose: PATH<TAB>COMPONENTS<TAB>REASON, COMPONENTS the parts that\n\
         # differ (xtask/src/cudarc_api/signatures.rs says what each compares).\n\
         # Checked by scripts/cudarc-api.sh: a difference not listed with exactly\n\
         # its components fails, and so does a line for one that is gone. The\n\
         # differences themselves: target/cudarc-api/signature-differences.txt.\n",
    );
    for (path, diff) in &out.diffs {
        let why = reasons.get(path.as_str()).copied().unwrap_or(reason);
        text.push_str(&format!("{path}\t{}\t{why}\n", what(diff)));
    }
    text
}

/// Every difference, as Rust writes both sides: one block per path.
pub(crate) fn details(out: &Outcome) -> String {
    let mut text = String::new();
    for (path, diff) in &out.diffs {
        text.push_str(&format!("{path}\n"));
        for (c, t, o) in diff {
            text.push_str(&format!(
                "  {c}:\n    cudarc      {t}\n    cuda-compat {o}\n"
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cudarc_api::public_api;

    /// A crate named `krate` whose root has a function `f` (rustdoc's
    /// `function` object `f`) and a struct `S`; `Hidden` is a struct
    /// in no public module, known by its summary path only.
    fn doc(krate: &str, f: Value) -> Value {
        json!({
            "root": 0,
            "index": {
                "0": {"name": krate, "visibility": "public", "inner": {"module": {"items": [1, 2]}}},
                "1": {"name": "S", "visibility": "public", "inner": {"struct": {
                    "kind": {"plain": {"fields": [], "has_stripped_fields": true}},
                    "generics": {"params": [], "where_predicates": []}, "impls": []}}},
                "2": {"name": "f", "visibility": "public", "inner": {"function": f}},
                "3": {"name": "Hidden", "visibility": "public", "inner": {"struct": {
                    "kind": "unit", "generics": {"params": [], "where_predicates": []}, "impls": []}}}
            },
            "paths": {
                "1": {"crate_id": 0, "path": [krate, "S"], "kind": "struct"},
                "3": {"crate_id": 0, "path": [krate, "private", "Hidden"], "kind": "struct"},
                "50": {"crate_id": 1, "path": ["core", "clone", "Clone"], "kind": "trait"},
                "51": {"crate_id": 1, "path": ["core", "marker", "Copy"], "kind": "trait"}
            },
            "external_crates": {"1": {"name": "core"}}
        })
    }

    fn path(name: &str, id: u32) -> Value {
        json!({"resolved_path": {"path": name, "id": id, "args": null}})
    }

    /// `fn f<params>(inputs) -> output`, parameters named `x0`, `x1`...
    fn func(params: Value, inputs: &[Value], output: Value) -> Value {
        let ins: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| json!([format!("x{i}"), t]))
            .collect();
        json!({
            "sig": {"inputs": ins, "output": output, "is_c_variadic": false},
            "generics": {"params": params, "where_predicates": []},
            "header": {"is_const": false, "is_unsafe": false, "is_async": false, "abi": "Rust"},
            "has_body": true
        })
    }

    fn type_param(name: &str, bounds: &[(&str, u32)]) -> Value {
        let bs: Vec<Value> = bounds
            .iter()
            .map(|(p, id)| {
                json!({"trait_bound": {"trait": {"path": p, "id": id, "args": null},
                    "generic_params": [], "modifier": "none"}})
            })
            .collect();
        json!({"name": name, "kind": {"type": {"bounds": bs, "default": null, "is_synthetic": false}}})
    }

    fn lifetime(name: &str) -> Value {
        json!({"name": name, "kind": {"lifetime": {"outlives": []}}})
    }

    fn by_ref(l: &str, t: Value) -> Value {
        json!({"borrowed_ref": {"lifetime": l, "is_mutable": false, "type": t}})
    }

    /// The differing components of `f` (cudarc's `theirs`, cuda-compat's
    /// `ours`), and how many items were compared.
    fn differ(theirs: Value, ours: Value) -> (Vec<&'static str>, usize) {
        let (td, od) = (doc("cudarc", theirs), doc("cuda_compat", ours));
        let (ta, oa) = (public_api(&td).unwrap(), public_api(&od).unwrap());
        let out = compare(&Side::new(&td, &ta).unwrap(), &Side::new(&od, &oa).unwrap());
        let comps = out
            .diffs
            .get("::f")
            .map(|d| d.iter().map(|(c, _, _)| *c).collect())
            .unwrap_or_default();
        (comps, out.compared[0])
    }

    #[test]
    fn a_changed_parameter_type_differs_in_inputs() {
        let t = func(json!([]), &[json!({"primitive": "u32"})], Value::Null);
        let o = func(json!([]), &[json!({"primitive": "i32"})], Value::Null);
        assert_eq!(differ(t.clone(), o), (vec!["inputs"], 2));
        // The parameter's name does not matter.
        let mut renamed = t.clone();
        renamed["sig"]["inputs"][0][0] = json!("count");
        assert_eq!(differ(t, renamed).0, Vec::<&str>::new());
    }

    #[test]
    fn a_missing_bound_differs_in_generics() {
        let t = func(
            json!([type_param("T", &[("Clone", 50), ("Copy", 51)])]),
            &[json!({"generic": "T"})],
            Value::Null,
        );
        let o = func(
            json!([type_param("T", &[("Clone", 50)])]),
            &[json!({"generic": "T"})],
            Value::Null,
        );
        assert_eq!(differ(t.clone(), o).0, vec!["generics"]);
        // The same bounds in another order, or in a where-clause, do not differ.
        let mut moved = func(
            json!([type_param("T", &[])]),
            &[json!({"generic": "T"})],
            Value::Null,
        );
        moved["generics"]["where_predicates"] = json!([{"bound_predicate": {
            "type": {"generic": "T"},
            "bounds": t["generics"]["params"][0]["kind"]["type"]["bounds"].as_array().unwrap().iter().rev().cloned().collect::<Vec<_>>(),
            "generic_params": []}}]);
        assert_eq!(differ(t, moved).0, Vec::<&str>::new());
    }

    #[test]
    fn an_extra_generic_differs_in_generics() {
        let t = func(json!([]), &[json!({"primitive": "u8"})], Value::Null);
        let o = func(
            json!([type_param("U", &[])]),
            &[json!({"primitive": "u8"})],
            Value::Null,
        );
        assert_eq!(differ(t, o).0, vec!["generics"]);
    }

    #[test]
    fn a_path_that_differs_only_by_crate_is_the_same() {
        // `Hidden` is `cudarc::private::Hidden` on one side and
        // `cuda_compat::private::Hidden` on the other; `S` is public.
        let t = func(json!([]), &[path("Hidden", 3)], path("S", 1));
        let o = func(
            json!([]),
            &[path("crate::private::Hidden", 3)],
            path("crate::S", 1),
        );
        assert_eq!(differ(t.clone(), o).0, Vec::<&str>::new());
        // Returning the other struct does differ.
        let o = func(json!([]), &[path("Hidden", 3)], path("Hidden", 3));
        assert_eq!(differ(t, o).0, vec!["output"]);
    }

    #[test]
    fn a_renamed_lifetime_is_the_same() {
        let t = func(
            json!([lifetime("'a")]),
            &[by_ref("'a", json!({"primitive": "u8"}))],
            by_ref("'a", json!({"primitive": "u8"})),
        );
        let o = func(
            json!([lifetime("'b")]),
            &[by_ref("'b", json!({"primitive": "u8"}))],
            by_ref("'b", json!({"primitive": "u8"})),
        );
        assert_eq!(differ(t.clone(), o).0, Vec::<&str>::new());
        // A lifetime the output no longer ties to the input does differ.
        let o = func(
            json!([lifetime("'b")]),
            &[by_ref("'b", json!({"primitive": "u8"}))],
            by_ref("'static", json!({"primitive": "u8"})),
        );
        assert_eq!(differ(t, o).0, vec!["output"]);
    }

    #[test]
    fn unsafe_and_const_are_compared() {
        let t = func(json!([]), &[], Value::Null);
        let mut o = t.clone();
        o["header"]["is_unsafe"] = json!(true);
        assert_eq!(differ(t, o).0, vec!["header"]);
    }

    fn outcome(paths: &[(&str, &[&'static str])]) -> Outcome {
        let mut out = Outcome::default();
        for (p, comps) in paths {
            let d = comps
                .iter()
                .map(|c| (*c, String::new(), String::new()))
                .collect();
            out.diffs.insert(p.to_string(), d);
        }
        out.compared = [paths.len(), 0];
        out
    }

    #[test]
    fn the_list_must_name_each_difference_with_its_components() {
        let out = outcome(&[("::f", &["inputs", "output"])]);
        let (lines, ok) = check(&out, &[]);
        assert!(!ok);
        assert!(
            lines[0].ends_with("(1 items compared, 1 differ, 1 of them unlisted) ... FAILED"),
            "{}",
            lines[0]
        );
        let listed = parse_list("# why\n::f\tinputs,output\tHIP type\n").unwrap();
        assert!(check(&out, &listed).1);
        // Listed with fewer components: the new one is unlisted.
        let fewer = parse_list("::f\tinputs\tHIP type\n").unwrap();
        let (lines, ok) = check(&out, &fewer);
        assert!(
            !ok && lines[0].contains("1 of them unlisted"),
            "{}",
            lines[0]
        );
        // A line for a difference that is gone is stale.
        let (lines, ok) = check(&outcome(&[]), &listed);
        assert!(!ok);
        assert!(
            lines
                .iter()
                .any(|l| l.contains("stale: ::f (no longer differs")),
            "{lines:?}"
        );
        // Listed with more components than differ: stale.
        let more = parse_list("::f\tgenerics,inputs,output\tx\n").unwrap();
        let (lines, ok) = check(&out, &more);
        assert!(
            !ok && lines[1].contains("(1 stale) ... FAILED"),
            "{}",
            lines[1]
        );
    }

    #[test]
    fn a_rewritten_list_keeps_old_reasons_and_parses() {
        let out = outcome(&[("::f", &["inputs"]), ("::g", &["target"])]);
        let old = parse_list("::f\toutput\tHIP type in place of CUDA type\n").unwrap();
        let text = list_file(&out, &old, "not reviewed");
        let l = parse_list(&text).unwrap();
        assert_eq!(
            l[0],
            Listed {
                path: "::f".into(),
                what: "inputs".into(),
                reason: "HIP type in place of CUDA type".into()
            }
        );
        assert_eq!(l[1].reason, "not reviewed");
        assert!(parse_list("::f\tinputs\n").is_err());
        assert!(parse_list("::f\tinputs\t \n").is_err());
    }
}
