//! `cudarc-tests`: cudarc's own unit tests as a conformance suite for the
//! drop-in (issue 33), driven by `scripts/cudarc-tests.sh`.
//!
//! cudarc's published crate keeps its tests in `#[cfg(test)] mod tests`
//! blocks beside the code. They see the crate's private items (`use
//! super::*`), so not every one can be built from outside. The suite is
//! what can:
//!
//! - `extract SRC OUT`: every `mod tests` of `SRC/src` (skipping the
//!   modules of libraries neither side compares: cuDNN, cuFile, CUPTI,
//!   cuTENSOR, cuSOLVERMg) becomes `OUT/tests/<module>.rs`. `use super::*`
//!   becomes a glob import of the module's nearest public ancestor, the
//!   file's own `use` items come along, and `crate` is read as `cudarc`.
//!   Each item is written on lines of its own, and `OUT/items.tsv` maps
//!   every item to its lines, so that a compiler error can be traced to
//!   the item it is in.
//! - `prune OUT MESSAGES REPORT LABEL`: reads cargo's JSON messages of a
//!   `cargo test --no-run` of the suite and removes every item an error
//!   points into, appending `LABEL<TAB>file<TAB>item<TAB>first error` to
//!   `REPORT`. Prints how many items it removed; the script builds and
//!   prunes until nothing is removed.
//! - `list OUT`: the suite's test functions, `file::name` per line.
//! - `features MANIFEST FEATURE...`: the scratch package's `[features]`
//!   table, so that the tests' `#[cfg(feature = ...)]` mean what they mean
//!   in cudarc: every feature of cudarc's manifest, empty, and `default`
//!   turning on the FEATUREs it has (those compared).
//!
//! The script builds the suite against real cudarc first (what does not
//! build there uses cudarc's private items, and is out of the suite), then
//! against the drop-in, where every test that does not build is an API
//! difference: listed, and checked against a reviewed file.
//!
//! Nothing of cudarc is committed: the suite is written under `target/`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use quote::ToTokens;

/// Modules whose libraries neither cudarc's build here nor the drop-in
/// enables (their features are not compared).
const SKIPPED: &[&str] = &["cudnn", "cufile", "cupti", "cutensor", "cusolvermg"];

/// One item of a generated file and where it sits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    pub(crate) file: String,
    pub(crate) name: String,
    pub(crate) is_test: bool,
    pub(crate) first_line: usize,
    pub(crate) last_line: usize,
}

/// The module path of a source file relative to `src/` (`driver/safe/
/// core.rs` -> `driver::safe::core`, `cublas/safe/mod.rs` ->
/// `cublas::safe`, `lib.rs` -> ``).
pub(crate) fn module_path(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if stem != "mod" && stem != "lib" {
            parts.push(stem.to_string());
        }
    }
    parts
}

/// Whether module `child` is declared `pub mod` in the file `parent`.
fn declares_pub(parent: &syn::File, child: &str) -> bool {
    parent.items.iter().any(|item| match item {
        syn::Item::Mod(m) => m.ident == child && matches!(m.vis, syn::Visibility::Public(_)),
        _ => false,
    })
}

/// The source file of module `path` under `src`.
fn module_file(src: &Path, path: &[String]) -> Option<PathBuf> {
    if path.is_empty() {
        return Some(src.join("lib.rs"));
    }
    let joined: PathBuf = path.iter().collect();
    let flat = src.join(&joined).with_extension("rs");
    let nested = src.join(&joined).join("mod.rs");
    [flat, nested].into_iter().find(|p| p.is_file())
}

/// The longest prefix of `path` that is public from the crate root.
fn public_prefix(src: &Path, path: &[String]) -> Result<Vec<String>, String> {
    let mut public = Vec::new();
    for (i, part) in path.iter().enumerate() {
        let Some(parent) = module_file(src, &path[..i]) else {
            break;
        };
        let text =
            std::fs::read_to_string(&parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", parent.display()))?;
        if !declares_pub(&file, part) {
            break;
        }
        public.push(part.clone());
    }
    Ok(public)
}

/// `tokens` as text, with `crate` read as `cudarc` and `super`/`self` at
/// the start of a `use` path resolved against `module` (`self` to its
/// nearest public ancestor `public`, since `module` may be private).
fn rewrite(tokens: &str, module: &[String], public: &[String]) -> String {
    let absolute = |depth: usize| -> String {
        let keep = module.len().saturating_sub(depth);
        std::iter::once("cudarc".to_string())
            .chain(module[..keep].iter().cloned())
            .collect::<Vec<_>>()
            .join(" :: ")
    };
    let mut out = tokens.replace("crate ::", "cudarc ::");
    // `use super :: super :: x` at file level, longest first.
    for depth in (1..=3).rev() {
        let from = vec!["super"; depth].join(" :: ") + " ::";
        out = out.replace(
            &format!("use {from}"),
            &format!("use {} ::", absolute(depth)),
        );
    }
    out.replace("use self ::", &format!("use {} ::", path_tokens(public)))
}

/// `cudarc :: a :: b` for `[a, b]`.
fn path_tokens(module: &[String]) -> String {
    std::iter::once("cudarc")
        .chain(module.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" :: ")
}

/// The leaves of a `use` tree, one `use` each (`use a::{b, c::*}` ->
/// `use a :: b ;`, `use a :: c :: * ;`), so that one import that does not
/// resolve takes no other with it.
fn use_leaves(tree: &syn::UseTree, prefix: &str, out: &mut Vec<String>) {
    match tree {
        syn::UseTree::Path(p) => use_leaves(&p.tree, &format!("{prefix}{} :: ", p.ident), out),
        // `use a::{self}` imports `a` itself.
        syn::UseTree::Name(n) if n.ident == "self" => {
            out.push(format!("use {} ;", prefix.trim_end_matches(" :: ")));
        }
        syn::UseTree::Name(n) => out.push(format!("use {prefix}{} ;", n.ident)),
        syn::UseTree::Rename(r) => out.push(format!("use {prefix}{} as {} ;", r.ident, r.rename)),
        syn::UseTree::Glob(_) => out.push(format!("use {prefix}* ;")),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.to_token_stream()
                .to_string()
                .replace(' ', "")
                .contains("(test)")
    })
}

fn is_test_fn(f: &syn::ItemFn) -> bool {
    f.attrs.iter().any(|a| a.path().is_ident("test"))
}

fn item_name(item: &syn::Item, index: usize) -> String {
    match item {
        syn::Item::Fn(f) => f.sig.ident.to_string(),
        syn::Item::Struct(s) => s.ident.to_string(),
        syn::Item::Enum(e) => e.ident.to_string(),
        syn::Item::Const(c) => c.ident.to_string(),
        syn::Item::Static(s) => s.ident.to_string(),
        syn::Item::Mod(m) => m.ident.to_string(),
        syn::Item::Type(t) => t.ident.to_string(),
        syn::Item::Macro(m) => m
            .ident
            .as_ref()
            .map_or_else(|| format!("macro#{index}"), |i| i.to_string()),
        syn::Item::Use(_) => format!("use#{index}"),
        syn::Item::Impl(_) => format!("impl#{index}"),
        _ => format!("item#{index}"),
    }
}

/// The generated test file of one source file, or `None` when it has no
/// test module; its items with their lines.
pub(crate) fn extract_file(
    src: &Path,
    rel: &Path,
    text: &str,
) -> Result<Option<(String, Vec<Item>)>, String> {
    let file = syn::parse_file(text).map_err(|e| format!("{}: {e}", rel.display()))?;
    let module = module_path(rel);
    let tests: Vec<&syn::ItemMod> = file
        .items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Mod(m) if m.content.is_some() && is_cfg_test(&m.attrs) => Some(m),
            _ => None,
        })
        .collect();
    if tests.is_empty() {
        return Ok(None);
    }
    let name = if module.is_empty() {
        "lib".to_string()
    } else {
        module.join("__")
    };
    let public = public_prefix(src, &module)?;
    let mut out = String::new();
    let mut items = Vec::new();
    let _ = writeln!(
        out,
        "// Extracted from cudarc's src/{} by `xtask cudarc-tests` (not committed).",
        rel.display()
    );
    out.push_str(
        "#![allow(unused_imports, unused_mut, unused_variables, dead_code, clippy::all)]\n",
    );
    let push =
        |out: &mut String, items: &mut Vec<Item>, name: String, is_test: bool, text: String| {
            let first = out.lines().count() + 1;
            out.push_str(&text);
            out.push('\n');
            let last = out.lines().count();
            items.push(Item {
                file: String::new(),
                name,
                is_test,
                first_line: first,
                last_line: last,
            });
        };
    let glob = path_tokens(&public).replace(' ', "");
    push(
        &mut out,
        &mut items,
        "use#super".into(),
        false,
        format!("use {glob}::*;"),
    );
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            if is_cfg_test(&u.attrs) {
                continue;
            }
            let mut leaves = Vec::new();
            use_leaves(
                &u.tree,
                if u.leading_colon.is_some() { ":: " } else { "" },
                &mut leaves,
            );
            for leaf in leaves {
                let t = rewrite(&leaf, &module, &public);
                let name = format!("use#file{}", items.len());
                push(&mut out, &mut items, name, false, t);
            }
        }
    }
    for m in tests {
        let Some((_, content)) = &m.content else {
            continue;
        };
        for (i, item) in content.iter().enumerate() {
            // `super` inside the test module is the file's module, reached
            // through its nearest public ancestor; `super::super` is the
            // file module's parent.
            let inner = |text: String| {
                let parent = &module[..module.len().saturating_sub(1)];
                let text = text
                    .replace("super :: super ::", &format!("{} ::", path_tokens(parent)))
                    .replace("super ::", &format!("{} ::", path_tokens(&public)));
                rewrite(&text, &module, &public)
            };
            if let syn::Item::Use(u) = item {
                let mut leaves = Vec::new();
                use_leaves(&u.tree, "", &mut leaves);
                for (k, leaf) in leaves.into_iter().enumerate() {
                    if leaf.replace(' ', "") == "usesuper::*;" {
                        continue;
                    }
                    push(
                        &mut out,
                        &mut items,
                        format!("use#{i}.{k}"),
                        false,
                        inner(leaf),
                    );
                }
                continue;
            }
            let is_test = matches!(item, syn::Item::Fn(f) if is_test_fn(f));
            let text = inner(item.to_token_stream().to_string());
            push(&mut out, &mut items, item_name(item, i), is_test, text);
        }
    }
    for it in &mut items {
        it.file = format!("{name}.rs");
    }
    Ok(Some((out, items)))
}

/// `extract SRC OUT`: writes `OUT/tests/*.rs` and `OUT/items.tsv`.
pub(crate) fn extract(src_root: &Path, out: &Path) -> Result<(usize, usize), String> {
    let src = src_root.join("src");
    let mut files = Vec::new();
    collect_rs(&src, &mut files)?;
    files.sort();
    let tests_dir = out.join("tests");
    let _ = std::fs::remove_dir_all(&tests_dir);
    std::fs::create_dir_all(&tests_dir).map_err(|e| e.to_string())?;
    let mut table = String::new();
    let (mut n_files, mut n_tests) = (0, 0);
    for path in files {
        let rel = path
            .strip_prefix(&src)
            .map_err(|e| e.to_string())?
            .to_path_buf();
        if rel
            .iter()
            .next()
            .is_some_and(|c| SKIPPED.contains(&&*c.to_string_lossy()))
        {
            continue;
        }
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let Some((body, items)) = extract_file(&src, &rel, &text)? else {
            continue;
        };
        let name = &items[0].file;
        std::fs::write(tests_dir.join(name), body).map_err(|e| e.to_string())?;
        n_files += 1;
        for it in &items {
            n_tests += usize::from(it.is_test);
            let _ = writeln!(
                table,
                "{}\t{}\t{}\t{}\t{}",
                it.file, it.name, it.is_test, it.first_line, it.last_line
            );
        }
    }
    std::fs::write(out.join("items.tsv"), table).map_err(|e| e.to_string())?;
    Ok((n_files, n_tests))
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect_rs(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

pub(crate) fn read_items(out: &Path) -> Result<Vec<Item>, String> {
    let text =
        std::fs::read_to_string(out.join("items.tsv")).map_err(|e| format!("items.tsv: {e}"))?;
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            if f.len() != 5 {
                return Err(format!("items.tsv: bad line {l:?}"));
            }
            let num = |s: &str| {
                s.parse::<usize>()
                    .map_err(|_| format!("items.tsv: bad line {l:?}"))
            };
            Ok(Item {
                file: f[0].to_string(),
                name: f[1].to_string(),
                is_test: f[2] == "true",
                first_line: num(f[3])?,
                last_line: num(f[4])?,
            })
        })
        .collect()
}

/// The errors of cargo's JSON `messages`: (file name, line, message), for
/// files of the suite's `tests/`.
pub(crate) fn errors(messages: &str) -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    for line in messages.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["reason"] != "compiler-message" || v["message"]["level"] != "error" {
            continue;
        }
        let text = v["message"]["message"].as_str().unwrap_or("").to_string();
        let Some(spans) = v["message"]["spans"].as_array() else {
            continue;
        };
        for s in spans.iter().filter(|s| s["is_primary"] == true) {
            let file = s["file_name"].as_str().unwrap_or("");
            if let Some(name) = file.strip_prefix("tests/") {
                let line = s["line_start"].as_u64().unwrap_or(0) as usize;
                out.push((name.to_string(), line, text.clone()));
            }
        }
    }
    out
}

/// The items the `errors` point into, each with its first error.
pub(crate) fn failing_items<'a>(
    items: &'a [Item],
    errors: &[(String, usize, String)],
) -> BTreeMap<(String, String), (&'a Item, String)> {
    let mut hit = BTreeMap::new();
    for (file, line, message) in errors {
        if let Some(it) = items
            .iter()
            .find(|it| &it.file == file && (it.first_line..=it.last_line).contains(line))
        {
            hit.entry((it.file.clone(), it.name.clone()))
                .or_insert((it, message.clone()));
        }
    }
    hit
}

/// `prune OUT MESSAGES REPORT LABEL`: removes the failing items from the
/// suite's files (blanking their lines, so that the others keep theirs)
/// and from `items.tsv`; appends them to `REPORT`. Returns how many.
pub(crate) fn prune(
    out: &Path,
    messages: &str,
    report: &Path,
    label: &str,
) -> Result<usize, String> {
    let items = read_items(out)?;
    let errs = errors(messages);
    let hit = failing_items(&items, &errs);
    if hit.is_empty() {
        if errs.is_empty() && messages.contains("\"level\":\"error\"") {
            return Err("the build failed outside the suite's files".into());
        }
        return Ok(0);
    }
    let mut by_file: BTreeMap<&str, Vec<&Item>> = BTreeMap::new();
    for (it, _) in hit.values() {
        by_file.entry(&it.file).or_default().push(it);
    }
    for (file, dead) in &by_file {
        let path = out.join("tests").join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let kept: Vec<&str> = text
            .split('\n')
            .enumerate()
            .map(|(i, l)| {
                let n = i + 1;
                if dead
                    .iter()
                    .any(|d| (d.first_line..=d.last_line).contains(&n))
                {
                    ""
                } else {
                    l
                }
            })
            .collect();
        std::fs::write(&path, kept.join("\n")).map_err(|e| e.to_string())?;
    }
    let gone: BTreeSet<(String, String)> = hit.keys().cloned().collect();
    let mut table = String::new();
    for it in items
        .iter()
        .filter(|it| !gone.contains(&(it.file.clone(), it.name.clone())))
    {
        let _ = writeln!(
            table,
            "{}\t{}\t{}\t{}\t{}",
            it.file, it.name, it.is_test, it.first_line, it.last_line
        );
    }
    std::fs::write(out.join("items.tsv"), table).map_err(|e| e.to_string())?;
    let mut lines = String::new();
    for (it, message) in hit.values() {
        let first = message.lines().next().unwrap_or("").replace('\t', " ");
        let kind = if it.is_test { "test" } else { "helper" };
        let _ = writeln!(
            lines,
            "{label}\t{}::{}\t{kind}\t{first}",
            it.file.trim_end_matches(".rs"),
            it.name
        );
    }
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(report)
        .map_err(|e| format!("{}: {e}", report.display()))?;
    f.write_all(lines.as_bytes()).map_err(|e| e.to_string())?;
    Ok(hit.len())
}

/// `list OUT`: the suite's tests, `file::name`.
pub(crate) fn list(out: &Path) -> Result<Vec<String>, String> {
    Ok(read_items(out)?
        .into_iter()
        .filter(|it| it.is_test)
        .map(|it| format!("{}::{}", it.file.trim_end_matches(".rs"), it.name))
        .collect())
}

/// The `[features]` table of the scratch package (after an empty line)
/// for cudarc's `manifest`: `default` lists the features of `on` that
/// cudarc has, in that order; then every feature but `default`, sorted,
/// as `"NAME" = []`.
pub(crate) fn features_table(manifest: &str, on: &[String]) -> Result<Vec<String>, String> {
    let doc: toml::Table = manifest.parse().map_err(|e| format!("{e}"))?;
    let features: BTreeSet<&str> = match doc.get("features") {
        None => BTreeSet::new(),
        Some(toml::Value::Table(t)) => t.keys().map(String::as_str).collect(),
        Some(_) => return Err("[features] is not a table".into()),
    };
    let default: Vec<String> = on
        .iter()
        .filter(|f| features.contains(f.as_str()))
        .map(|f| format!("\"{f}\""))
        .collect();
    let mut lines = vec![
        String::new(),
        "[features]".to_owned(),
        format!("default = [{}]", default.join(", ")),
    ];
    lines.extend(
        features
            .iter()
            .filter(|f| **f != "default")
            .map(|f| format!("\"{f}\" = []")),
    );
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_trees_split_into_one_import_each() {
        let u: syn::ItemUse = syn::parse_str("use crate::a::{self, b, c::*, d as e};").unwrap();
        let mut out = Vec::new();
        use_leaves(&u.tree, "", &mut out);
        assert_eq!(
            out,
            [
                "use crate :: a ;",
                "use crate :: a :: b ;",
                "use crate :: a :: c :: * ;",
                "use crate :: a :: d as e ;"
            ]
        );
    }

    #[test]
    fn module_paths_follow_rusts_file_layout() {
        assert_eq!(
            module_path(Path::new("driver/safe/core.rs")),
            ["driver", "safe", "core"]
        );
        assert_eq!(
            module_path(Path::new("cublas/safe/mod.rs")),
            ["cublas", "safe"]
        );
        assert!(module_path(Path::new("lib.rs")).is_empty());
    }

    #[test]
    fn crate_super_and_self_become_public_paths() {
        let m: Vec<String> = ["driver", "safe", "core"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let p = &m[..2];
        assert_eq!(
            rewrite("use crate :: driver :: sys ;", &m, p),
            "use cudarc :: driver :: sys ;"
        );
        assert_eq!(
            rewrite("use super :: result ;", &m, p),
            "use cudarc :: driver :: safe :: result ;"
        );
        assert_eq!(
            rewrite("use super :: super :: sys ;", &m, p),
            "use cudarc :: driver :: sys ;"
        );
        // `core` is private: `self` is reached through `safe`.
        assert_eq!(
            rewrite("use self :: x ;", &m, p),
            "use cudarc :: driver :: safe :: x ;"
        );
    }

    fn scratch(name: &str) -> PathBuf {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let d =
            std::env::temp_dir().join(format!("xtask-cudarc-tests-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(d.join("src/a")).unwrap();
        d
    }

    #[test]
    fn a_test_module_becomes_a_file_and_its_failing_items_are_pruned() {
        let root = scratch("extract");
        std::fs::write(root.join("src/lib.rs"), "pub mod a;\n").unwrap();
        std::fs::write(root.join("src/a/mod.rs"), "mod inner;\npub use inner::*;\n").unwrap();
        std::fs::write(
            root.join("src/a/inner.rs"),
            "use crate::a::Thing;\npub struct Thing;\n#[cfg(test)]\nmod tests {\n    use super::*;\n    fn helper() -> u32 { 1 }\n    #[test]\n    fn one() { assert_eq!(helper(), 1); }\n    #[test]\n    fn two() {\n        let s = r\"multi\nline\";\n        assert!(!s.is_empty());\n    }\n}\n",
        )
        .unwrap();
        let out = root.join("out");
        let (files, tests) = extract(&root, &out).unwrap();
        assert_eq!((files, tests), (1, 2));
        let body = std::fs::read_to_string(out.join("tests/a__inner.rs")).unwrap();
        // `inner` is private: the glob is of `a`, its public parent.
        assert!(body.contains("use cudarc::a::*;"), "{body}");
        assert!(body.contains("use cudarc :: a :: Thing ;"), "{body}");
        assert!(!body.contains("use super"), "{body}");
        let items = read_items(&out).unwrap();
        let two = items.iter().find(|i| i.name == "two").unwrap();
        // The raw string spans two lines: the item's range covers both.
        assert_eq!(two.last_line, two.first_line + 1);
        assert_eq!(list(&out).unwrap(), ["a__inner::one", "a__inner::two"]);
        // An error inside `two` (its second line) removes `two` only.
        let msg = format!(
            "{{\"reason\":\"compiler-message\",\"message\":{{\"level\":\"error\",\"message\":\"cannot find value `x`\",\"spans\":[{{\"file_name\":\"tests/a__inner.rs\",\"line_start\":{},\"is_primary\":true}}]}}}}",
            two.last_line
        );
        let report = out.join("report.tsv");
        assert_eq!(prune(&out, &msg, &report, "real").unwrap(), 1);
        assert_eq!(list(&out).unwrap(), ["a__inner::one"]);
        let after = std::fs::read_to_string(out.join("tests/a__inner.rs")).unwrap();
        assert!(
            !after.contains("multi") && after.contains("fn helper"),
            "{after}"
        );
        assert_eq!(
            after.lines().count(),
            body.lines().count(),
            "other items keep their lines"
        );
        let r = std::fs::read_to_string(&report).unwrap();
        assert_eq!(r, "real\ta__inner::two\ttest\tcannot find value `x`\n");
        // Nothing failing: nothing removed.
        assert_eq!(prune(&out, "", &report, "real").unwrap(), 0);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn the_features_table_mirrors_cudarcs() {
        // The shape of cudarc 0.19.10's published manifest.
        let manifest = r#"
[package]
name = "cudarc"
version = "0.19.10"

[features]
default = ["std", "cuda-version-from-build-system", "dynamic-loading"]
std = []
f16 = ["dep:half"]
cuda-13000 = []
cuda-12080 = []
driver = []
nvrtc = []
"dynamic-loading" = []

[dependencies.half]
version = "2"
optional = true
"#;
        let on: Vec<String> = ["std", "cuda-13000", "f16", "driver", "cudnn", "nvrtc"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            features_table(manifest, &on).unwrap(),
            [
                "",
                "[features]",
                // Those cudarc has, in the order given; cudnn it lacks.
                r#"default = ["std", "cuda-13000", "f16", "driver", "nvrtc"]"#,
                r#""cuda-12080" = []"#,
                r#""cuda-13000" = []"#,
                r#""driver" = []"#,
                r#""dynamic-loading" = []"#,
                r#""f16" = []"#,
                r#""nvrtc" = []"#,
                r#""std" = []"#,
            ]
        );
        assert_eq!(
            features_table("[package]\nname = \"x\"\n", &on).unwrap(),
            ["", "[features]", "default = []"]
        );
        assert!(features_table("[features\n", &on).is_err());
        assert!(features_table("features = 1\n", &on).is_err());
    }
}
