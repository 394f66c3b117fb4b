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
//!   functions of the same crate;
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

/// A function of a scanned file: the type of its `impl` block, if any, its
/// name and its body's tokens (macro arguments included).
struct Function {
    self_ty: Option<String>,
    name: String,
    body: TokenStream,
    gpu_test: bool,
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
                    match &tt[i - 3] {
                        TokenTree::Ident(p) => Call::Path(p.to_string(), name),
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

fn functions_of(items: &[Item], out: &mut Vec<Function>) {
    for item in items {
        match item {
            Item::Fn(f) => out.push(Function {
                self_ty: None,
                name: f.sig.ident.to_string(),
                body: quote::quote!(#f),
                gpu_test: f.attrs.iter().any(is_gpu_ignore),
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
                        });
                    }
                }
            }
            Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    functions_of(items, out);
                }
            }
            // Functions a macro call declares, one per `;`-ended entry of
            // the form `... fn NAME(..) ... ;` (cuda-compat's generated
            // `cuda_functions!`): each is a free function whose body is
            // its entry.
            Item::Macro(m) => macro_functions(m.mac.tokens.clone(), out),
            _ => {}
        }
    }
}

fn macro_functions(tokens: TokenStream, out: &mut Vec<Function>) {
    let mut entry: Vec<TokenTree> = Vec::new();
    let mut flush = |entry: &mut Vec<TokenTree>| {
        let name = entry.windows(2).find_map(|w| match (&w[0], &w[1]) {
            (TokenTree::Ident(f), TokenTree::Ident(n)) if f == "fn" => Some(n.to_string()),
            _ => None,
        });
        if let Some(name) = name {
            out.push(Function {
                self_ty: None,
                name,
                body: entry.iter().cloned().collect(),
                gpu_test: false,
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

fn parse_file(path: &Path) -> Result<Vec<Function>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let file = syn::parse_file(&text).with_context(|| format!("parsing {}", path.display()))?;
    let mut out = Vec::new();
    functions_of(&file.items, &mut out);
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
    functions: Vec<(Function, Names)>,
}

impl Crate {
    fn load(src: &Path) -> Result<Crate> {
        let mut files = Vec::new();
        rust_files_below(src, &mut files)?;
        let mut functions = Vec::new();
        for f in files {
            let mut fns = Vec::new();
            functions_of(
                &syn::parse_file(&std::fs::read_to_string(&f)?)
                    .with_context(|| format!("parsing {}", f.display()))?
                    .items,
                &mut fns,
            );
            for func in fns {
                let mut names = Names::default();
                scan(func.body.clone(), &mut names);
                functions.push((func, names));
            }
        }
        Ok(Crate { functions })
    }

    /// The one function a call names, if exactly one; `self_ty` is the type
    /// `Self` stands for where the call is.
    fn resolve(&self, call: &Call, self_ty: Option<&str>) -> Option<usize> {
        let found: Vec<usize> = self
            .functions
            .iter()
            .enumerate()
            .filter(|(_, (f, _))| match call {
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
            })
            .map(|(i, _)| i)
            .collect();
        match found.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Every HIP-looking identifier function `i` reaches.
    fn reach(&self, i: usize, seen: &mut BTreeSet<usize>, hip: &mut BTreeSet<String>) {
        if !seen.insert(i) {
            return;
        }
        let (f, names) = &self.functions[i];
        hip.extend(names.hip.iter().cloned());
        for c in &names.calls {
            if let Some(j) = self.resolve(c, f.self_ty.as_deref()) {
                self.reach(j, seen, hip);
            }
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
    let crates = [
        Crate::load(&root.join("hip/src"))?,
        Crate::load(&root.join("hipblas/src"))?,
        Crate::load(&root.join("cuda-compat/src"))?,
    ];
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
    for f in &kit_files {
        let file = syn::parse_file(&std::fs::read_to_string(f)?)
            .with_context(|| format!("parsing {}", f.display()))?;
        let items: Vec<Item> = file
            .items
            .into_iter()
            .filter(|i| !matches!(i, Item::Mod(m) if m.ident == "tests"))
            .collect();
        functions_of(&items, &mut kit);
    }
    kit.retain(|f| f.self_ty.is_none() && !f.gpu_test);

    // function -> first "file::test" reaching it.
    let mut tested: BTreeMap<String, String> = BTreeMap::new();
    let mut gpu_tests = 0;
    for path in &test_files {
        let mut fns = parse_file(path)?;
        let local_count = fns.len();
        fns.extend(kit.iter().map(|f| Function {
            self_ty: None,
            name: f.name.clone(),
            body: f.body.clone(),
            gpu_test: false,
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
            for krate in &crates {
                let mut seen = BTreeSet::new();
                for c in &names.calls {
                    if let Some(i) = krate.resolve(c, None) {
                        krate.reach(i, &mut seen, &mut hip);
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
}
