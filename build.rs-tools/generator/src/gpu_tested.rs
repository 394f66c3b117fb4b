//! `cargo run -p hip-generator -- gpu-tested`: which HIP and hipBLAS
//! functions the GPU tests call, for the "GPU-tested" column of
//! `hip-sys/NVIDIA_COVERAGE.md` and `hipblas-sys/NVIDIA_COVERAGE.md`.
//!
//! Derived from the test sources, not kept by hand. The rule, stated in both
//! coverage files:
//! - a GPU test is a function marked `#[ignore = "needs a GPU"]` in a
//!   `tests/*.rs` file of a workspace member (by convention named `gpu_*.rs`);
//!   helper functions of the same file that it calls by plain name count as
//!   part of it, and so do the free functions of the shared test kit
//!   (`test-kit/src/*.rs`, outside its `mod tests`) that it calls by plain
//!   name or as `test_kit::f`, a same-file helper winning over a kit function
//!   of the same name;
//! - a function is GPU-tested when such a test names it (`hipMalloc`,
//!   `sys::hipMalloc`), or calls a function of the safe crates (`hip`,
//!   `hipblas`, `cuda-compat`) that names it, directly or through other
//!   functions of the same crate, or of another of them through its
//!   `result` layer (`hip::result::f(..)`, or `m::f(..)` after
//!   `use hip::result as m;` in that file: cuda-compat reaches the layers
//!   below only that way);
//! - a call is followed only when its target is unambiguous by name:
//!   `Type::f(..)` to `f` in `impl Type`, `module::f(..)` or `f(..)` to the one
//!   free function `f`, `.f(..)` to the one method `f` of the crate. A method
//!   name several types share (`.synchronize()`) is not followed, and a
//!   generic call (`T::gemm`) is not resolved per type, so the column can
//!   miss a tested function;
//! - a `yes` says the code of a GPU test reaches a call to the function, not
//!   which branches that test takes nor which arguments it tries.
//!
//! The result, one `function test-file::test` line per function (the first
//! test that reaches it), goes to
//! `hip-sys/src/generated/nvidia/gpu_tested.txt` and
//! `hipblas-sys/src/generated/nvidia/gpu_tested.txt`.

use anyhow::{Context, Result};
use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use syn::{ImplItem, Item};

/// The safe crates whose functions are followed, by their name in paths
/// (the folder is the name with `-` for `_`).
const SAFE_CRATES: [&str; 3] = ["hip", "hipblas", "cuda_compat"];

/// A function of a scanned file: the type of its `impl` block, if any, its
/// name and its body's tokens (macro arguments included).
struct Function {
    self_ty: Option<String>,
    name: String,
    body: TokenStream,
    gpu_test: bool,
    /// Whether it is a free function of the crate's `src/result.rs`.
    in_result: bool,
    /// The module it is declared in, as a path below the crate's `src/`
    /// (`cublas/result` for `cublas/result.rs`, `driver/result/ctx` for its
    /// `mod ctx { .. }`, `driver` for `driver/mod.rs`).
    module: String,
    /// Declared by a macro call's entry, whose expansion may prefix the
    /// calls it names (`=> ctx_set_current(ctx)` becoming
    /// `ours_result::ctx_set_current(ctx)`).
    from_macro: bool,
}

/// A call found in a body.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Call {
    /// `f(..)`
    Plain(String),
    /// `Prefix::f(..)`: a type or a module.
    Path(String, String),
    /// `.f(..)` or `.f::<..>(..)`
    Method(String),
    /// `krate::module::f(..)`, `krate` a safe crate (`hip::result::f`).
    Crate(String, String, String),
}

/// What one body names: HIP-looking identifiers and calls.
#[derive(Default)]
struct Names {
    hip: BTreeSet<String>,
    calls: BTreeSet<Call>,
}

fn scan(tokens: TokenStream, out: &mut Names) {
    let tt: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, t) in tt.iter().enumerate() {
        match t {
            TokenTree::Group(g) => scan(g.stream(), out),
            TokenTree::Ident(id) => {
                let name = id.to_string();
                // `hipMalloc`, `hiprtcCompileProgram`, `hipblasSgemm`; not `hip_sys`.
                if name.len() > 3 && name.starts_with("hip") && !name[3..].starts_with('_') {
                    out.hip.insert(name.clone());
                }
                let is_punct = |k: usize, c: char| matches!(tt.get(k), Some(TokenTree::Punct(p)) if p.as_char() == c);
                let called = matches!(tt.get(i + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
                    || (is_punct(i + 1, ':') && is_punct(i + 2, ':') && is_punct(i + 3, '<'));
                if !called {
                    continue;
                }
                let call = if i >= 1 && is_punct(i - 1, '.') {
                    Call::Method(name)
                } else if i >= 3 && is_punct(i - 1, ':') && is_punct(i - 2, ':') {
                    match (&tt[i - 3], i.checked_sub(6).map(|k| &tt[k])) {
                        (TokenTree::Ident(m), Some(TokenTree::Ident(k)))
                            if is_punct(i - 4, ':')
                                && is_punct(i - 5, ':')
                                && SAFE_CRATES.contains(&k.to_string().as_str()) =>
                        {
                            Call::Crate(k.to_string(), m.to_string(), name)
                        }
                        (TokenTree::Ident(p), _) => Call::Path(p.to_string(), name),
                        _ => continue,
                    }
                } else {
                    Call::Plain(name)
                };
                out.calls.insert(call);
            }
            _ => {}
        }
    }
}

fn functions_of(items: &[Item], in_result: bool, module: &str, out: &mut Vec<Function>) {
    for item in items {
        match item {
            Item::Fn(f) => out.push(Function {
                self_ty: None,
                name: f.sig.ident.to_string(),
                body: quote::quote!(#f),
                gpu_test: f.attrs.iter().any(is_gpu_ignore),
                in_result,
                module: module.to_owned(),
                from_macro: false,
            }),
            Item::Impl(i) => {
                let self_ty = match &*i.self_ty {
                    syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                };
                for it in &i.items {
                    if let ImplItem::Fn(f) = it {
                        out.push(Function {
                            self_ty: self_ty.clone(),
                            name: f.sig.ident.to_string(),
                            body: quote::quote!(#f),
                            gpu_test: false,
                            in_result: false,
                            module: module.to_owned(),
                            from_macro: false,
                        });
                    }
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    functions_of(items, false, &format!("{module}/{}", m.ident), out);
                }
            }
            // Functions a macro call declares, one per `;`-ended entry of
            // the form `... fn NAME(..) ... ;` (cuda-compat's generated
            // `cuda_functions!`): each is a free function whose body is
            // its entry.
            Item::Macro(m) => macro_functions(m.mac.tokens.clone(), in_result, module, out),
            _ => {}
        }
    }
}

fn macro_functions(tokens: TokenStream, in_result: bool, module: &str, out: &mut Vec<Function>) {
    let mut entry: Vec<TokenTree> = Vec::new();
    let mut flush = |entry: &mut Vec<TokenTree>| {
        let name = entry
            .windows(2)
            .find_map(|w| match (&w[0], &w[1]) {
                (TokenTree::Ident(f), TokenTree::Ident(n)) if f == "fn" => Some(n.to_string()),
                _ => None,
            })
            // `name = hipCall(..)` (hipblas's `raw!`): a function `name`.
            .or_else(|| {
                entry
                    .windows(4)
                    .find_map(|w| match (&w[0], &w[1], &w[2], &w[3]) {
                        (
                            TokenTree::Ident(n),
                            TokenTree::Punct(eq),
                            TokenTree::Ident(_),
                            TokenTree::Group(g),
                        ) if eq.as_char() == '='
                            && eq.spacing() == proc_macro2::Spacing::Alone
                            && g.delimiter() == Delimiter::Parenthesis =>
                        {
                            Some(n.to_string())
                        }
                        _ => None,
                    })
            });
        if let Some(name) = name {
            out.push(Function {
                self_ty: None,
                name,
                body: entry.iter().cloned().collect(),
                gpu_test: false,
                in_result,
                module: module.to_owned(),
                from_macro: true,
            });
        }
        entry.clear();
    };
    for t in tokens {
        let end = matches!(&t, TokenTree::Punct(p) if p.as_char() == ';');
        entry.push(t);
        if end {
            flush(&mut entry);
        }
    }
    flush(&mut entry);
}

fn is_gpu_ignore(a: &syn::Attribute) -> bool {
    let syn::Meta::NameValue(nv) = &a.meta else {
        return false;
    };
    nv.path.is_ident("ignore")
        && matches!(&nv.value, syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) if s.value() == "needs a GPU")
}

/// The safe crates a file names (`hip::Stream`, `use hipblas::Blas;`, `use
/// cuda_compat as cudarc;`): a test's calls are resolved in those only, so a
/// cuda-compat test's `result::destroy()` is not taken for hipblas's.
fn crates_named(text: &str) -> Result<BTreeSet<&'static str>> {
    fn walk(tokens: TokenStream, out: &mut BTreeSet<&'static str>) {
        for t in tokens {
            match t {
                TokenTree::Group(g) => walk(g.stream(), out),
                TokenTree::Ident(id) => {
                    if let Some(k) = SAFE_CRATES.iter().find(|k| id == **k) {
                        out.insert(k);
                    }
                }
                _ => {}
            }
        }
    }
    let tokens: TokenStream = text
        .parse()
        .map_err(|e| anyhow::anyhow!("tokenizing: {e}"))?;
    let mut out = BTreeSet::new();
    walk(tokens, &mut out);
    Ok(out)
}

/// A file's module path below `src` (`cublas/result` for
/// `src/cublas/result.rs`, `driver` for `src/driver/mod.rs`).
fn module_of(src: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(src).unwrap_or(path).with_extension("");
    let rel = rel.to_string_lossy().replace('\\', "/");
    match rel.rsplit_once('/') {
        Some((dir, "mod")) => dir.to_owned(),
        _ if rel == "mod" || rel == "lib" => String::new(),
        _ => rel,
    }
}

fn parse_file(path: &Path) -> Result<Vec<Function>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let file = syn::parse_file(&text).with_context(|| format!("parsing {}", path.display()))?;
    let mut out = Vec::new();
    functions_of(
        &file.items,
        false,
        &module_of(Path::new(""), path),
        &mut out,
    );
    Ok(out)
}

fn rust_files_below(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            rust_files_below(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    Ok(())
}

/// A safe crate's functions, with what each names, for resolving calls.
struct Crate {
    /// The crate's name in paths (`hip`, `cuda_compat`).
    name: &'static str,
    /// Each function, what it names, and the index of its file's aliases.
    functions: Vec<(Function, Names, usize)>,
    /// Per file: `use hip::result as ours;` as `ours` -> (`hip`, `result`).
    aliases: Vec<BTreeMap<String, (String, String)>>,
}

/// The `use K::M as A;` declarations of `items` (K a safe crate), as
/// `A` -> (`K`, `M`).
fn crate_aliases(items: &[Item]) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for item in items {
        let Item::Use(u) = item else { continue };
        let syn::UseTree::Path(k) = &u.tree else {
            continue;
        };
        let krate = k.ident.to_string();
        if !SAFE_CRATES.contains(&krate.as_str()) {
            continue;
        }
        if let syn::UseTree::Rename(r) = &*k.tree {
            out.insert(r.rename.to_string(), (krate, r.ident.to_string()));
        }
    }
    out
}

/// A test file's `use` of a safe crate's module (`use
/// cuda_compat::cublas::{result, sys};`): each name it brings in, as
/// `result` -> (`cuda_compat`, `cublas/result`).
fn used_modules(items: &[Item]) -> BTreeMap<String, (String, String)> {
    fn walk(
        tree: &syn::UseTree,
        krate: Option<&str>,
        path: &mut Vec<String>,
        out: &mut BTreeMap<String, (String, String)>,
    ) {
        match tree {
            syn::UseTree::Path(p) => {
                let name = p.ident.to_string();
                match krate {
                    None if SAFE_CRATES.contains(&name.as_str()) => {
                        walk(&p.tree, Some(&name), path, out)
                    }
                    None => {}
                    Some(k) => {
                        path.push(name);
                        walk(&p.tree, Some(k), path, out);
                        path.pop();
                    }
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    walk(t, krate, path, out);
                }
            }
            syn::UseTree::Name(n) => {
                if let Some(k) = krate {
                    let mut full = path.clone();
                    full.push(n.ident.to_string());
                    out.insert(n.ident.to_string(), (k.to_owned(), full.join("/")));
                }
            }
            syn::UseTree::Rename(r) => {
                if let Some(k) = krate {
                    let mut full = path.clone();
                    full.push(r.ident.to_string());
                    out.insert(r.rename.to_string(), (k.to_owned(), full.join("/")));
                }
            }
            syn::UseTree::Glob(_) => {}
        }
    }
    let mut out = BTreeMap::new();
    for item in items {
        if let Item::Use(u) = item {
            walk(&u.tree, None, &mut Vec::new(), &mut out);
        }
    }
    out
}

impl Crate {
    fn load(name: &'static str, src: &Path) -> Result<Crate> {
        let mut files = Vec::new();
        rust_files_below(src, &mut files)?;
        let mut functions = Vec::new();
        let mut aliases = Vec::new();
        for f in files {
            let file = syn::parse_file(&std::fs::read_to_string(&f)?)
                .with_context(|| format!("parsing {}", f.display()))?;
            let mut fns = Vec::new();
            functions_of(
                &file.items,
                f == src.join("result.rs"),
                &module_of(src, &f),
                &mut fns,
            );
            aliases.push(crate_aliases(&file.items));
            for func in fns {
                let mut names = Names::default();
                scan(func.body.clone(), &mut names);
                functions.push((func, names, aliases.len() - 1));
            }
        }
        Ok(Crate {
            name,
            functions,
            aliases,
        })
    }

    /// The one function a call names, if exactly one; `self_ty` is the type
    /// `Self` stands for where the call is.
    fn resolve(&self, call: &Call, self_ty: Option<&str>) -> Option<usize> {
        let found: Vec<usize> = self
            .functions
            .iter()
            .enumerate()
            .filter(|(_, (f, _, _))| match call {
                Call::Plain(n) => f.self_ty.is_none() && &f.name == n,
                Call::Method(n) => f.self_ty.is_some() && &f.name == n,
                Call::Path(p, n) => {
                    let p = if p == "Self" {
                        self_ty.unwrap_or("Self")
                    } else {
                        p
                    };
                    &f.name == n
                        && match &f.self_ty {
                            Some(t) => t == p,
                            // `module::f`: a free function, when no type of
                            // that name has an `f`.
                            None => p.starts_with(|c: char| c.is_ascii_lowercase()),
                        }
                }
                // `krate::result::f`: the free function of `result.rs`.
                Call::Crate(k, m, n) => {
                    k == self.name && m == "result" && f.in_result && &f.name == n
                }
            })
            .map(|(i, _)| i)
            .collect();
        match found.as_slice() {
            [one] => Some(*one),
            // `m::f` with several free `f`: the one declared in module `m`.
            [_, _, ..] => match call {
                Call::Path(m, _) => {
                    let in_m: Vec<usize> = found
                        .iter()
                        .copied()
                        .filter(|&i| {
                            let f = &self.functions[i].0;
                            f.self_ty.is_none() && f.module.rsplit('/').next() == Some(m.as_str())
                        })
                        .collect();
                    match in_m.as_slice() {
                        [one] => Some(*one),
                        _ => None,
                    }
                }
                _ => None,
            },
            [] => None,
        }
    }
}

impl Crate {
    /// The one free function `name` of module `module` (a path below
    /// `src/`), if exactly one.
    fn resolve_in(&self, name: &str, module: &str) -> Option<usize> {
        let found: Vec<usize> = self
            .functions
            .iter()
            .enumerate()
            .filter(|(_, (f, _, _))| f.self_ty.is_none() && f.name == name && f.module == module)
            .map(|(i, _)| i)
            .collect();
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

/// Every HIP-looking identifier function `i` of crate `c` reaches, through
/// its crate's functions and the other crates' `result` layers.
fn reach(
    crates: &[Crate],
    c: usize,
    i: usize,
    seen: &mut BTreeSet<(usize, usize)>,
    hip: &mut BTreeSet<String>,
) {
    if !seen.insert((c, i)) {
        return;
    }
    let krate = &crates[c];
    let (f, names, file) = &krate.functions[i];
    hip.extend(names.hip.iter().cloned());
    for call in &names.calls {
        // `ours::f` after `use hip::result as ours;` is `hip::result::f`.
        let aliased = match call {
            Call::Path(p, n) => krate.aliases[*file]
                .get(p)
                .map(|(k, m)| Call::Crate(k.clone(), m.clone(), n.clone())),
            _ => None,
        };
        let call = aliased.as_ref().unwrap_or(call);
        let target = match call {
            Call::Crate(k, _, _) => crates.iter().position(|x| x.name == k),
            _ => Some(c),
        };
        let mut found = target.and_then(|t| {
            crates[t]
                .resolve(call, f.self_ty.as_deref())
                .map(|j| (t, j))
        });
        // A macro entry's plain call the crate lacks: the one function of
        // that name in the `result` layers this file imports, if exactly
        // one (the macro's expansion prefixes it).
        if let (None, true, Call::Plain(n)) = (found, f.from_macro, call) {
            let hits: Vec<(usize, usize)> = krate.aliases[*file]
                .values()
                .filter(|(_, m)| m == "result")
                .filter_map(|(k, m)| {
                    let t = crates.iter().position(|x| x.name == k)?;
                    let j =
                        crates[t].resolve(&Call::Crate(k.clone(), m.clone(), n.clone()), None)?;
                    Some((t, j))
                })
                .collect();
            if let [one] = hits.as_slice() {
                found = Some(*one);
            }
        }
        if let Some((t, j)) = found {
            reach(crates, t, j, seen, hip);
        }
    }
}

/// The function names a generated `functions.rs` binds.
fn bound_functions(path: &Path) -> Result<BTreeSet<String>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    // One declaration per line in the `loaded_functions!` call.
    let names: BTreeSet<String> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub unsafe fn "))
        .filter_map(|l| l.split_once('(').map(|(name, _)| name.to_owned()))
        .collect();
    anyhow::ensure!(!names.is_empty(), "no functions in {}", path.display());
    Ok(names)
}

pub(crate) fn generate(root: &Path) -> Result<()> {
    let crates = SAFE_CRATES
        .iter()
        .map(|name| Crate::load(name, &root.join(name.replace('_', "-")).join("src")))
        .collect::<Result<Vec<_>>>()?;
    // GPU test files: `tests/*.rs` of every workspace member.
    let manifest: toml::Value = std::fs::read_to_string(root.join("Cargo.toml"))?
        .parse()
        .context("parsing the workspace Cargo.toml")?;
    let members = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .context("no workspace.members")?;
    let mut test_files = Vec::new();
    for m in members {
        let tests = root
            .join(m.as_str().context("a member that is not a string")?)
            .join("tests");
        if tests.is_dir() {
            for e in std::fs::read_dir(&tests)? {
                let p = e?.path();
                if p.extension().is_some_and(|x| x == "rs") {
                    test_files.push(p);
                }
            }
        }
    }
    test_files.sort();
    // The shared test kit's free functions: helpers of every test file.
    let mut kit = Vec::new();
    let mut kit_files = Vec::new();
    rust_files_below(&root.join("test-kit/src"), &mut kit_files)?;
    let mut kit_crates = BTreeSet::new();
    for f in &kit_files {
        let text = std::fs::read_to_string(f)?;
        kit_crates.extend(crates_named(&text).with_context(|| f.display().to_string())?);
        let file = syn::parse_file(&text).with_context(|| format!("parsing {}", f.display()))?;
        let items: Vec<Item> = file
            .items
            .into_iter()
            .filter(|i| !matches!(i, Item::Mod(m) if m.ident == "tests"))
            .collect();
        functions_of(&items, false, &module_of(Path::new(""), f), &mut kit);
    }
    kit.retain(|f| f.self_ty.is_none() && !f.gpu_test);

    // function -> first "file::test" reaching it.
    let mut tested: BTreeMap<String, String> = BTreeMap::new();
    let mut gpu_tests = 0;
    for path in &test_files {
        let mut fns = parse_file(path)?;
        let text = std::fs::read_to_string(path)?;
        // The crates this file's tests may reach: those it names, and
        // those of the kit it calls.
        let mut named = crates_named(&text).with_context(|| path.display().to_string())?;
        let modules = used_modules(
            &syn::parse_file(&text)
                .with_context(|| format!("parsing {}", path.display()))?
                .items,
        );
        named.extend(kit_crates.iter().copied());
        let local_count = fns.len();
        fns.extend(kit.iter().map(|f| Function {
            self_ty: None,
            name: f.name.clone(),
            body: f.body.clone(),
            gpu_test: false,
            in_result: false,
            module: f.module.clone(),
            from_macro: f.from_macro,
        }));
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let mut by_name: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, f) in fns.iter().enumerate().filter(|(_, f)| f.self_ty.is_none()) {
            // A same-file helper wins over a kit function of the same name.
            if i < local_count || !by_name.contains_key(f.name.as_str()) {
                by_name.insert(f.name.as_str(), i);
            }
        }
        let kit_by_name: BTreeMap<&str, usize> = (local_count..fns.len())
            .map(|i| (fns[i].name.as_str(), i))
            .collect();
        for (t, test) in fns.iter().enumerate().filter(|(_, f)| f.gpu_test) {
            gpu_tests += 1;
            // The test and the same-file helpers it calls by plain name.
            let mut local = BTreeSet::new();
            let mut todo = vec![t];
            let mut names = Names::default();
            while let Some(i) = todo.pop() {
                if !local.insert(i) {
                    continue;
                }
                let mut n = Names::default();
                scan(fns[i].body.clone(), &mut n);
                for c in &n.calls {
                    match c {
                        Call::Plain(p) => {
                            if let Some(&j) = by_name.get(p.as_str()) {
                                todo.push(j);
                            }
                        }
                        Call::Path(m, p) if m == "test_kit" => {
                            if let Some(&j) = kit_by_name.get(p.as_str()) {
                                todo.push(j);
                            }
                        }
                        _ => {}
                    }
                }
                names.hip.extend(n.hip);
                names.calls.extend(n.calls);
            }
            let mut hip = names.hip.clone();
            let mut seen = BTreeSet::new();
            for (k, krate) in crates.iter().enumerate() {
                if !named.contains(krate.name) {
                    continue;
                }
                for c in &names.calls {
                    // `result::f` after `use cuda_compat::cublas::result`:
                    // cublas's `f`, not cublaslt's of the same name.
                    let used = match c {
                        Call::Path(m, n) => modules
                            .get(m)
                            .filter(|(uk, _)| uk == krate.name)
                            .map(|(_, module)| krate.resolve_in(n, module)),
                        _ => None,
                    };
                    if let Some(i) = used.flatten().or_else(|| krate.resolve(c, None)) {
                        reach(&crates, k, i, &mut seen, &mut hip);
                    }
                }
            }
            for h in hip {
                tested
                    .entry(h)
                    .or_insert_with(|| format!("{rel}::{}", test.name));
            }
        }
    }
    if gpu_tests == 0 {
        anyhow::bail!("no test marked #[ignore = \"needs a GPU\"] found");
    }
    for (krate, functions) in [
        ("hip-sys", "hip-sys/src/generated/functions.rs"),
        ("hipblas-sys", "hipblas-sys/src/generated/functions.rs"),
    ] {
        let bound = bound_functions(&root.join(functions))?;
        let mut s = format!(
            "# @generated by `cargo run -p hip-generator -- gpu-tested`. Do not edit.\n\
             # The {krate} functions that a GPU test reaches (`function test-file::test`,\n\
             # the first such test): the rule is in build.rs-tools/generator/src/gpu_tested.rs\n\
             # and in NVIDIA_COVERAGE.md.\n"
        );
        let mut n = 0;
        for (f, by) in &tested {
            if bound.contains(f) {
                writeln!(s, "{f} {by}")?;
                n += 1;
            }
        }
        std::fs::write(
            root.join(krate).join("src/generated/nvidia/gpu_tested.txt"),
            s,
        )?;
        println!("gpu-tested: {krate}: {n} functions reached by {gpu_tests} GPU tests");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_classified() {
        let mut n = Names::default();
        scan(
            quote::quote! {
                let a = sys::hipMalloc(p, 4);
                Stream::new(&d).synchronize();
                helper(x.len());
                b.copy::<f32>(1);
                check!(hipblasSgemm(h));
            },
            &mut n,
        );
        assert_eq!(
            n.hip.iter().map(String::as_str).collect::<Vec<_>>(),
            ["hipMalloc", "hipblasSgemm"]
        );
        for c in [
            Call::Path("sys".into(), "hipMalloc".into()),
            Call::Path("Stream".into(), "new".into()),
            Call::Method("synchronize".into()),
            Call::Plain("helper".into()),
            Call::Method("len".into()),
            Call::Method("copy".into()),
            Call::Plain("hipblasSgemm".into()),
        ] {
            assert!(n.calls.contains(&c), "{c:?} in {:?}", n.calls);
        }
    }
    /// What lets a call cross from cuda-compat into another safe crate's
    /// `result` layer, and pick one of two same-named functions: a file's
    /// `use hip::result as ours;`, a test's `use cuda_compat::cublas::result`,
    /// a `name = hipCall(..)` macro entry, `krate::result::f(..)` paths.
    #[test]
    fn cross_crate_calls_are_resolved() {
        let file: syn::File = syn::parse_quote! {
            use hip::result as ours;
            use cuda_compat::cublas::{result, sys as s};
            use std::ffi::c_int;
            raw!("doc", gemm_ex = hipblasGemmEx(h: H));
        };
        let aliases = crate_aliases(&file.items);
        assert_eq!(aliases.get("ours"), Some(&("hip".into(), "result".into())));
        assert_eq!(aliases.len(), 1, "{aliases:?}");
        let used = used_modules(&file.items);
        assert_eq!(
            used.get("result"),
            Some(&("cuda_compat".into(), "cublas/result".into()))
        );
        assert_eq!(
            used.get("s"),
            Some(&("cuda_compat".into(), "cublas/sys".into()))
        );
        assert!(!used.contains_key("c_int"));
        let mut fns = Vec::new();
        functions_of(&file.items, true, "result", &mut fns);
        assert_eq!(fns.len(), 1);
        assert!(fns[0].name == "gemm_ex" && fns[0].from_macro && fns[0].in_result);
        let mut n = Names::default();
        scan(quote::quote! { hip::result::ctx_set_current(c); }, &mut n);
        assert!(n.calls.contains(&Call::Crate(
            "hip".into(),
            "result".into(),
            "ctx_set_current".into()
        )));
        assert_eq!(
            module_of(Path::new("src"), Path::new("src/driver/mod.rs")),
            "driver"
        );
        assert_eq!(
            module_of(Path::new("src"), Path::new("src/cublas/result.rs")),
            "cublas/result"
        );
    }
}
