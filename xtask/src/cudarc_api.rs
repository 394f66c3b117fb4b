//! `cudarc-api`: cudarc's public API against cuda-compat's, read from both
//! crates' rustdoc JSON (`scripts/cudarc-api.sh` makes it with a pinned
//! nightly), and checked against the reviewed residue
//! (`cuda-compat/cudarc-api-residue.tsv`).
//!
//! A public path is what a program can name: every module, function,
//! type, trait, constant, static and macro reachable from the crate root
//! through public modules and re-exports, each enum's variants, each
//! trait's items, and the inherent methods and associated items of each
//! public type. Paths are compared without the crate name
//! (`driver::safe::CudaSlice::split_at`). Kinds are compared modulo the
//! shapes cuda-compat gives CUDA's C types on purpose ([`same_kind`]):
//! open newtypes for C enums (a `struct` whose enumerators are associated
//! constants) and type aliases for C structs.
//!
//! The check fails when a cudarc path is missing from cuda-compat and not
//! in the residue, and when the residue lists a path cuda-compat now has
//! or cudarc no longer has: the residue can only shrink to what is true.

use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

pub(crate) mod signatures;

/// Public paths (without the crate name) and their kinds (rustdoc's:
/// `function`, `struct`, `variant`, ...).
pub(crate) type Paths = BTreeMap<String, String>;

/// Where a public path's item is: its id, and for an inherent item or a
/// trait's item the id of its impl or trait (whose generics are in scope).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Loc {
    pub(crate) id: String,
    pub(crate) parent: Option<String>,
}

/// A crate's public API: every public path with its kind, where each
/// path's item is, and every (id, path) pair (an item re-exported under
/// several paths has several).
#[derive(Debug, Default)]
pub(crate) struct Api {
    pub(crate) paths: Paths,
    pub(crate) locs: BTreeMap<String, Loc>,
    pub(crate) names: Vec<(String, String)>,
}

/// Every public path of a crate's rustdoc JSON, with where its item is.
pub(crate) fn public_api(doc: &Value) -> Result<Api, String> {
    public_api_with(doc, &[])
}

/// [`public_api`], following glob re-exports of other crates' modules
/// (`pub use rccl::sys::*`) into `foreign`: those crates' rustdoc JSON by
/// crate name. rustdoc's JSON does not inline such a glob, so without the
/// other crate's JSON its items are invisible; with it, each public item
/// of the module is a path of this crate, whose location is marked
/// foreign (`CRATE:ID`, in no index: its signature is not compared). A
/// glob into a crate not given is an error, not a silent gap.
pub(crate) fn public_api_with(doc: &Value, foreign: &[(String, Value)]) -> Result<Api, String> {
    let index = doc
        .get("index")
        .and_then(Value::as_object)
        .ok_or("rustdoc JSON: no `index` object")?;
    let summaries = doc.get("paths").and_then(Value::as_object);
    let root = doc
        .get("root")
        .map(id_key)
        .ok_or("rustdoc JSON: no `root`")?;
    let mut walk = Walk {
        index,
        summaries,
        out: Api::default(),
        seen: HashSet::new(),
        foreign,
        errors: Vec::new(),
    };
    let root_item = index
        .get(&root)
        .ok_or("rustdoc JSON: the root item is not in the index")?;
    for child in module_items(root_item) {
        walk.item(&child, "", None);
    }
    if !walk.errors.is_empty() {
        return Err(walk.errors.join("; "));
    }
    Ok(walk.out)
}

/// The module at `path` (`[crate, module, ...]`) of a crate's rustdoc
/// JSON: its id, following public modules by name from the root.
fn module_at<'d>(
    doc: &'d Value,
    path: &[&str],
) -> Option<(String, &'d serde_json::Map<String, Value>)> {
    let index = doc.get("index").and_then(Value::as_object)?;
    let mut id = doc.get("root").map(id_key)?;
    for seg in path.iter().skip(1) {
        let here = index.get(&id)?;
        id = module_items(here).into_iter().find(|c| {
            index
                .get(c)
                .is_some_and(|i| name(i) == Some(*seg) && matches!(inner(i), Some(("module", _))))
        })?;
    }
    Some((id, index))
}

/// An item id as the index's key (ids are numbers in recent formats,
/// strings in older ones).
fn id_key(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An item's kind and its kind-specific object (`inner: {KIND: {...}}`).
fn inner(item: &Value) -> Option<(&str, &Value)> {
    match item.get("inner")? {
        Value::Object(m) => m.iter().next().map(|(k, v)| (k.as_str(), v)),
        Value::String(s) => Some((s.as_str(), &Value::Null)),
        _ => None,
    }
}

fn ids(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(id_key).collect())
        .unwrap_or_default()
}

fn module_items(item: &Value) -> Vec<String> {
    match inner(item) {
        Some(("module", m)) => ids(m.get("items")),
        _ => Vec::new(),
    }
}

fn is_public(item: &Value) -> bool {
    item.get("visibility").and_then(Value::as_str) == Some("public")
}

fn name(item: &Value) -> Option<&str> {
    item.get("name").and_then(Value::as_str)
}

struct Walk<'a> {
    index: &'a serde_json::Map<String, Value>,
    summaries: Option<&'a serde_json::Map<String, Value>>,
    out: Api,
    /// (id, path) pairs walked, so that re-export cycles end.
    seen: HashSet<(String, String)>,
    /// Other crates' JSON, by crate name, for their globbed modules.
    foreign: &'a [(String, Value)],
    errors: Vec<String>,
}

impl Walk<'_> {
    fn add(&mut self, path: String, kind: &str, id: &str, parent: Option<&str>) {
        self.out.names.push((id.to_owned(), path.clone()));
        self.out.locs.entry(path.clone()).or_insert_with(|| Loc {
            id: id.to_owned(),
            parent: parent.map(str::to_owned),
        });
        self.out
            .paths
            .entry(path)
            .or_insert_with(|| kind.to_owned());
    }

    /// The item `id` under `prefix`, named `rename` when re-exported
    /// under another name.
    fn item(&mut self, id: &str, prefix: &str, rename: Option<&str>) {
        let Some(item) = self.index.get(id) else {
            // An item of another crate, re-exported: its summary's kind.
            let summary = self.summaries.and_then(|s| s.get(id));
            if let Some(s) = summary {
                let last = s
                    .get("path")
                    .and_then(Value::as_array)
                    .and_then(|p| p.last())
                    .and_then(Value::as_str);
                let kind = s.get("kind").and_then(Value::as_str).unwrap_or("unknown");
                if let Some(n) = rename.or(last) {
                    self.add(format!("{prefix}::{n}"), kind, id, None);
                }
            }
            return;
        };
        let Some((kind, body)) = inner(item) else {
            return;
        };
        if kind == "use" {
            let Some(target) = body.get("id").filter(|v| !v.is_null()).map(id_key) else {
                return; // a primitive or an unresolved path
            };
            if body.get("is_glob").and_then(Value::as_bool) == Some(true) {
                let Some(t) = self.index.get(&target) else {
                    self.foreign_glob(&target, prefix);
                    return;
                };
                let children = match inner(t) {
                    Some(("module", m)) => ids(m.get("items")),
                    Some(("enum", e)) => ids(e.get("variants")),
                    _ => Vec::new(),
                };
                for c in children {
                    self.item(&c, prefix, None);
                }
            } else {
                let as_name = body.get("name").and_then(Value::as_str);
                self.item(&target, prefix, as_name);
            }
            return;
        }
        if kind != "variant" && !is_public(item) {
            return;
        }
        let Some(n) = rename.or(name(item)) else {
            return;
        };
        let path = format!("{prefix}::{n}");
        if !self.seen.insert((id.to_owned(), path.clone())) {
            return;
        }
        self.add(path.clone(), kind, id, None);
        match kind {
            "module" => {
                for c in ids(body.get("items")) {
                    self.item(&c, &path, None);
                }
            }
            "struct" | "enum" | "union" => {
                if kind == "enum" {
                    for v in ids(body.get("variants")) {
                        self.item(&v, &path, None);
                    }
                }
                for imp in ids(body.get("impls")) {
                    self.inherent_items(&imp, &path);
                }
            }
            "type_alias" => {
                // An alias of a type of this crate names that type's
                // variants and inherent items too (`cudaDataType::CUDA_R_32F`
                // through `type cudaDataType = cudaDataType_t`), though
                // rustdoc lists none under the alias.
                let target = body
                    .get("type")
                    .and_then(|t| t.get("resolved_path"))
                    .and_then(|r| r.get("id"))
                    .map(id_key);
                if let Some((tk, tb)) = target
                    .as_ref()
                    .and_then(|t| self.index.get(t))
                    .and_then(inner)
                {
                    if matches!(tk, "struct" | "enum" | "union") {
                        let tb = tb.clone();
                        if tk == "enum" {
                            for v in ids(tb.get("variants")) {
                                self.item(&v, &path, None);
                            }
                        }
                        for imp in ids(tb.get("impls")) {
                            self.inherent_items(&imp, &path);
                        }
                    }
                }
            }
            "trait" => {
                for m in ids(body.get("items")) {
                    if let Some(mi) = self.index.get(&m) {
                        if let (Some(mn), Some((mk, _))) = (name(mi), inner(mi)) {
                            self.add(format!("{path}::{mn}"), mk, &m, Some(id));
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// A glob re-export of another crate's module (`target`, known here
    /// only by its summary): that crate's public items of the module,
    /// walked in its own JSON, under `prefix`.
    fn foreign_glob(&mut self, target: &str, prefix: &str) {
        let summary = self.summaries.and_then(|s| s.get(target));
        let path: Vec<&str> = summary
            .and_then(|s| s.get("path"))
            .and_then(Value::as_array)
            .map(|p| p.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(krate) = path.first() else {
            self.errors.push(format!(
                "{prefix}: a glob re-export of an item with no known path"
            ));
            return;
        };
        let Some((_, doc)) = self.foreign.iter().find(|(n, _)| n == krate) else {
            self.errors.push(format!(
                "{prefix}: `pub use {}::*` re-exports another crate's module: its rustdoc JSON is needed (--foreign {krate}=JSON)",
                path.join("::")
            ));
            return;
        };
        let Some((module, index)) = module_at(doc, &path) else {
            self.errors.push(format!(
                "{prefix}: no module {} in {krate}'s JSON",
                path.join("::")
            ));
            return;
        };
        let mut walk = Walk {
            index,
            summaries: doc.get("paths").and_then(Value::as_object),
            out: Api::default(),
            seen: HashSet::new(),
            foreign: self.foreign,
            errors: Vec::new(),
        };
        for child in index.get(&module).map(module_items).unwrap_or_default() {
            walk.item(&child, prefix, None);
        }
        self.errors.append(&mut walk.errors);
        for (p, kind) in walk.out.paths {
            let id = walk
                .out
                .locs
                .get(&p)
                .map(|l| l.id.clone())
                .unwrap_or_default();
            self.add(p, &kind, &format!("{krate}:{id}"), None);
        }
    }

    /// The public items of an inherent impl (not of a trait impl, a
    /// blanket or an auto-trait one) under the type's path.
    fn inherent_items(&mut self, impl_id: &str, type_path: &str) {
        let Some((_, imp)) = self.index.get(impl_id).and_then(inner) else {
            return;
        };
        let is_trait_impl = imp.get("trait").is_some_and(|t| !t.is_null());
        let synthetic = imp.get("is_synthetic").and_then(Value::as_bool) == Some(true);
        let blanket = imp.get("blanket_impl").is_some_and(|b| !b.is_null());
        if is_trait_impl || synthetic || blanket {
            return;
        }
        for m in ids(imp.get("items")) {
            if let Some(mi) = self.index.get(&m) {
                if is_public(mi) {
                    if let (Some(mn), Some((mk, _))) = (name(mi), inner(mi)) {
                        self.add(format!("{type_path}::{mn}"), mk, &m, Some(impl_id));
                    }
                }
            }
        }
    }
}

/// Whether cuda-compat's kind `ours` serves where cudarc has `theirs`:
/// the same kind, or the shapes cuda-compat gives CUDA's C types on
/// purpose. A C enum is an open newtype (`struct`, its enumerators
/// associated constants), so that values HIP returns and CUDA lacks stay
/// representable; a C struct or union may be a type alias of HIP's.
pub(crate) fn same_kind(theirs: &str, ours: &str) -> bool {
    theirs == ours
        || matches!(
            (theirs, ours),
            ("variant", "assoc_const")
                | ("enum", "struct")
                | ("enum", "type_alias")
                | ("struct", "type_alias")
                | ("union", "type_alias")
                | ("type_alias", "struct")
        )
}

/// One residue entry: a cudarc path cuda-compat does not have, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Residue {
    pub(crate) path: String,
    pub(crate) kind: String,
    pub(crate) reason: String,
}

/// A reviewed list: `PATH<TAB>FIELD<TAB>REASON` lines (`shape` names the
/// three for errors, e.g. `PATH<TAB>KIND<TAB>REASON`); `#` comments and
/// blank lines are passed over. A line without all three fields, with an
/// empty reason or a placeholder one ([`crate::text::PROVISIONAL`]), is an error, as is
/// a path listed twice. The residue and the signature list share it.
pub(crate) fn parse_reviewed(text: &str, shape: &str) -> Result<Vec<[String; 3]>, String> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut f = line.splitn(3, '\t');
        let (Some(path), Some(field), Some(reason)) = (f.next(), f.next(), f.next()) else {
            return Err(format!("line {}: not {shape}: {line:?}", i + 1));
        };
        if reason.trim().is_empty() {
            return Err(format!("line {}: {path} has no reason", i + 1));
        }
        if let Some(w) = crate::text::provisional(reason) {
            return Err(format!(
                "line {}: {path}'s reason says {w:?}, a placeholder: state the HIP fact or the design choice",
                i + 1
            ));
        }
        if !seen.insert(path.to_owned()) {
            return Err(format!("line {}: {path} is listed twice", i + 1));
        }
        out.push([path.to_owned(), field.to_owned(), reason.trim().to_owned()]);
    }
    Ok(out)
}

/// The residue file: `PATH<TAB>KIND<TAB>REASON` lines ([`parse_reviewed`]).
pub(crate) fn parse_residue(text: &str) -> Result<Vec<Residue>, String> {
    Ok(parse_reviewed(text, "PATH<TAB>KIND<TAB>REASON")
        .map_err(|e| format!("residue {e}"))?
        .into_iter()
        .map(|[path, kind, reason]| Residue { path, kind, reason })
        .collect())
}

/// Whether a path is in a `sys` module (raw bindings).
fn in_sys(path: &str) -> bool {
    path.split("::").any(|seg| seg == "sys")
}

/// What cuda-compat lacks of cudarc: each missing path (or one of another
/// kind) with cudarc's kind.
pub(crate) fn missing(cudarc: &Paths, ours: &Paths) -> Paths {
    cudarc
        .iter()
        .filter(|(p, k)| !ours.get(*p).is_some_and(|o| same_kind(k, o)))
        .map(|(p, k)| (p.clone(), k.clone()))
        .collect()
}

/// The check's lines (`cudarc api: NAME ... ok|FAILED`, then the
/// coverage and the first offending paths) and whether it passed.
pub(crate) fn check(cudarc: &Paths, ours: &Paths, residue: &[Residue]) -> (Vec<String>, bool) {
    let lacking = missing(cudarc, ours);
    let listed: HashSet<&str> = residue.iter().map(|r| r.path.as_str()).collect();
    let unlisted: Vec<&String> = lacking
        .keys()
        .filter(|p| !listed.contains(p.as_str()))
        .collect();
    let stale: Vec<&Residue> = residue
        .iter()
        .filter(|r| !lacking.contains_key(&r.path))
        .collect();
    let verdict = |ok: bool| if ok { "ok" } else { "FAILED" };
    let mut lines = Vec::new();
    let (mut total, mut have) = ([0usize; 2], [0usize; 2]);
    for p in cudarc.keys() {
        let side = usize::from(in_sys(p));
        total[side] += 1;
        if !lacking.contains_key(p) {
            have[side] += 1;
        }
    }
    let pct = |h: usize, t: usize| {
        if t == 0 {
            100.0
        } else {
            100.0 * h as f64 / t as f64
        }
    };
    lines.push(format!(
        "cudarc api: every cudarc path is in cuda-compat or in the residue ({} missing, {} of them unlisted) ... {}",
        lacking.len(),
        unlisted.len(),
        verdict(unlisted.is_empty())
    ));
    lines.push(format!(
        "cudarc api: the residue lists only paths cudarc has and cuda-compat lacks ({} stale) ... {}",
        stale.len(),
        verdict(stale.is_empty())
    ));
    lines.push(format!(
        "outside sys: {} of {} cudarc paths ({:.1}%); in sys: {} of {} ({:.1}%); residue: {} entries",
        have[0],
        total[0],
        pct(have[0], total[0]),
        have[1],
        total[1],
        pct(have[1], total[1]),
        residue.len()
    ));
    lines.extend(reason_counts(residue));
    const SHOWN: usize = 40;
    for p in unlisted.iter().take(SHOWN) {
        let theirs = &cudarc[*p];
        let note = match ours.get(*p) {
            Some(o) => format!("cuda-compat has a {o}"),
            None => "absent".to_owned(),
        };
        lines.push(format!("  unlisted: {p} ({theirs}; {note})"));
    }
    if unlisted.len() > SHOWN {
        lines.push(format!(
            "  ... and {} more unlisted",
            unlisted.len() - SHOWN
        ));
    }
    for r in stale.iter().take(SHOWN) {
        let why = if cudarc.contains_key(&r.path) {
            "cuda-compat has it now: remove the line"
        } else {
            "cudarc has no such path: remove the line"
        };
        lines.push(format!("  stale: {} ({why})", r.path));
    }
    if stale.len() > SHOWN {
        lines.push(format!("  ... and {} more stale", stale.len() - SHOWN));
    }
    (lines, unlisted.is_empty() && stale.is_empty())
}

/// The residue's entries counted by reason, most first (`  N  REASON`,
/// the reason cut at 100 characters; the first [`REASONS_SHOWN`], then one
/// line for the rest): what CI prints, so that a growing reason shows.
pub(crate) fn reason_counts(residue: &[Residue]) -> Vec<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in residue {
        *counts.entry(r.reason.as_str()).or_default() += 1;
    }
    let mut by: Vec<(&str, usize)> = counts.into_iter().collect();
    by.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut out = vec![format!("residue by reason ({} reasons):", by.len())];
    out.extend(by.iter().take(REASONS_SHOWN).map(|(reason, n)| {
        let cut: String = reason.chars().take(100).collect();
        let more = if cut.len() < reason.len() { "..." } else { "" };
        format!("  {n:5}  {cut}{more}")
    }));
    if by.len() > REASONS_SHOWN {
        let rest = &by[REASONS_SHOWN..];
        let n: usize = rest.iter().map(|(_, n)| n).sum();
        out.push(format!("  {n:5}  ({} other reasons)", rest.len()));
    }
    out
}

/// How many reasons [`reason_counts`] names.
pub(crate) const REASONS_SHOWN: usize = 25;

/// The residue file for what cuda-compat lacks now, keeping the reasons
/// of `old` entries and giving new ones `reason`.
pub(crate) fn residue_file(lacking: &Paths, old: &[Residue], reason: &str) -> String {
    let reasons: BTreeMap<&str, &str> = old
        .iter()
        .map(|r| (r.path.as_str(), r.reason.as_str()))
        .collect();
    let mut out = String::from(
        "# cudarc 0.19.10's public paths that cuda-compat lacks, each with its\n\
         # reason: PATH<TAB>KIND<TAB>REASON. Checked by scripts/cudarc-api.sh\n\
         # (xtask/src/cudarc_api.rs): a missing path not listed here fails, and\n\
         # so does a line for a path cuda-compat has or cudarc lacks. Reasons\n\
         # ending in (COVERAGE.md) are the generator's for that CUDA name (see\n\
         # cuda-compat/COVERAGE.md); the others were reviewed. A placeholder\n\
         # reason (xtask/src/text.rs, PROVISIONAL) fails the check.\n",
    );
    for (p, k) in lacking {
        let why = reasons.get(p.as_str()).copied().unwrap_or(reason);
        out.push_str(&format!("{p}\t{k}\t{why}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A crate `c` with a module `m` (a function, an enum with a variant,
    /// a struct with an inherent method and a trait-impl method), a
    /// private function, a glob re-export of `m` at the root, a renamed
    /// re-export, and a trait with one item.
    fn doc() -> Value {
        json!({
            "root": 0,
            "index": {
                "0": {"name": "c", "visibility": "public", "inner": {"module": {"items": [1, 20, 21, 30]}}},
                "1": {"name": "m", "visibility": "public", "inner": {"module": {"items": [2, 3, 5, 8]}}},
                "2": {"name": "f", "visibility": "public", "inner": {"function": {}}},
                "3": {"name": "E", "visibility": "public", "inner": {"enum": {"variants": [4], "impls": []}}},
                "4": {"name": "A", "visibility": "default", "inner": {"variant": {}}},
                "5": {"name": "S", "visibility": "public", "inner": {"struct": {"impls": [6, 9]}}},
                "6": {"name": null, "visibility": "default", "inner": {"impl": {"trait": null, "items": [7, 10]}}},
                "7": {"name": "new", "visibility": "public", "inner": {"function": {}}},
                "10": {"name": "hidden", "visibility": "crate", "inner": {"function": {}}},
                "8": {"name": "g", "visibility": "crate", "inner": {"function": {}}},
                "9": {"name": null, "visibility": "default", "inner": {"impl": {"trait": {"path": "Clone"}, "items": [11]}}},
                "11": {"name": "clone", "visibility": "default", "inner": {"function": {}}},
                "20": {"name": null, "visibility": "public", "inner": {"use": {"source": "m", "name": "m", "id": 1, "is_glob": true}}},
                "21": {"name": null, "visibility": "public", "inner": {"use": {"source": "m::f", "name": "h", "id": 2, "is_glob": false}}},
                "30": {"name": "T", "visibility": "public", "inner": {"trait": {"items": [31]}}},
                "31": {"name": "go", "visibility": "default", "inner": {"function": {}}}
            },
            "paths": {}
        })
    }

    #[test]
    fn public_paths_follow_modules_reexports_variants_and_inherent_items() {
        let p = public_api(&doc()).unwrap().paths;
        let got: Vec<String> = p.iter().map(|(k, v)| format!("{k} {v}")).collect();
        assert_eq!(
            got,
            [
                "::E enum",
                "::E::A variant",
                "::S struct",
                "::S::new function",
                "::T trait",
                "::T::go function",
                "::f function",
                "::h function",
                "::m module",
                "::m::E enum",
                "::m::E::A variant",
                "::m::S struct",
                "::m::S::new function",
                "::m::f function",
            ]
        );
    }

    fn paths(v: &[(&str, &str)]) -> Paths {
        v.iter()
            .map(|(p, k)| (p.to_string(), k.to_string()))
            .collect()
    }

    #[test]
    fn the_check_fails_on_unlisted_and_on_stale_lines() {
        let cudarc = paths(&[
            ("::driver::f", "function"),
            ("::driver::g", "function"),
            ("::driver::sys::E", "enum"),
            ("::driver::sys::E::A", "variant"),
        ]);
        // Newtype enums count as present; `g` is missing.
        let ours = paths(&[
            ("::driver::f", "function"),
            ("::driver::sys::E", "struct"),
            ("::driver::sys::E::A", "assoc_const"),
        ]);
        let (lines, ok) = check(&cudarc, &ours, &[]);
        assert!(!ok);
        assert!(
            lines[0].ends_with("(1 missing, 1 of them unlisted) ... FAILED"),
            "{}",
            lines[0]
        );
        assert!(lines
            .iter()
            .any(|l| l == "  unlisted: ::driver::g (function; absent)"));
        assert_eq!(
            lines[2],
            "outside sys: 1 of 2 cudarc paths (50.0%); in sys: 2 of 2 (100.0%); residue: 0 entries"
        );
        let listed = parse_residue("# why\n::driver::g\tfunction\tno HIP counterpart\n").unwrap();
        let (_, ok) = check(&cudarc, &ours, &listed);
        assert!(ok);
        // Once cuda-compat has it, the line must go.
        let mut more = ours.clone();
        more.insert("::driver::g".into(), "function".into());
        let (lines, ok) = check(&cudarc, &more, &listed);
        assert!(!ok);
        assert!(lines
            .iter()
            .any(|l| l.contains("stale: ::driver::g (cuda-compat has it now")));
    }

    #[test]
    fn a_kind_that_cannot_serve_is_missing() {
        let cudarc = paths(&[("::x", "function")]);
        let ours = paths(&[("::x", "struct")]);
        assert_eq!(missing(&cudarc, &ours).len(), 1);
        let (lines, _) = check(&cudarc, &ours, &[]);
        assert!(lines
            .iter()
            .any(|l| l == "  unlisted: ::x (function; cuda-compat has a struct)"));
    }

    #[test]
    fn residue_lines_need_three_fields_a_reason_and_one_line_a_path() {
        assert!(parse_residue("::a\tfunction\n").is_err());
        assert!(parse_residue("::a\tfunction\t \n").is_err());
        assert!(parse_residue("::a\tfunction\tx\n::a\tfunction\ty\n").is_err());
        let r = parse_residue("\n# c\n::a\tfunction\tcuDNN: no MIOpen binding\n").unwrap();
        assert_eq!(r[0].reason, "cuDNN: no MIOpen binding");
    }

    #[test]
    fn a_new_residue_file_keeps_old_reasons() {
        let lacking = paths(&[("::a", "function"), ("::b", "struct")]);
        let old = parse_residue("::a\tfunction\tcuFile: no HIP counterpart\n").unwrap();
        let text = residue_file(&lacking, &old, "cuFile's type: no HIP counterpart");
        let r = parse_residue(&text).unwrap();
        assert_eq!(r[0].reason, "cuFile: no HIP counterpart");
        assert_eq!(r[1].reason, "cuFile's type: no HIP counterpart");
    }

    #[test]
    fn placeholder_reasons_are_refused_in_any_case() {
        for w in crate::text::PROVISIONAL {
            // Inside other words, and in another case.
            for reason in [format!("HIP counterpart {w}"), w.to_uppercase()] {
                let e = parse_residue(&format!("::a\tfunction\t{reason}\n")).unwrap_err();
                assert!(e.contains("placeholder"), "{e}");
            }
        }
        // The words inside a real reason's other words do not count.
        assert!(parse_residue("::a\tfunction\tHIP 6.4 has not yet got it: no hipA\n").is_ok());
    }

    #[test]
    fn reasons_are_counted_most_first() {
        let r = parse_residue("::a\tf\tx\n::b\tf\ty\n::c\tf\ty\n").unwrap();
        assert_eq!(
            reason_counts(&r),
            ["residue by reason (2 reasons):", "      2  y", "      1  x"]
        );
    }
}
