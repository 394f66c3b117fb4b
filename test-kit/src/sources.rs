//! Checks of a crate's own source files (tier 1: no runtime, no GPU).

use std::path::Path;

/// Asserts that none of `files` (paths under the crate's `src/`, e.g.
/// `"nvidia/mod.rs"`) contains `name`, e.g. that a -sys crate's platform
/// backends do not import the loader that chooses between them
/// (`"crate::loader"`). `manifest_dir` is the crate's
/// `env!("CARGO_MANIFEST_DIR")`. Panics, failing the test, naming the file
/// that contains it or cannot be read.
pub fn assert_sources_do_not_name(manifest_dir: &str, files: &[&str], name: &str) {
    assert!(!files.is_empty(), "no files to check for {name}");
    let src = Path::new(manifest_dir).join("src");
    for file in files {
        let path = src.join(file);
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{} could not be read: {e}", path.display()));
        assert!(!text.contains(name), "{file} names {name}");
    }
}

/// The C functions a -sys crate binds: every `pub unsafe fn NAME(` of its
/// generated `src/generated/functions.rs`. `sys_dir` is the -sys crate's
/// folder. Panics when the file cannot be read or names no function.
pub fn sys_functions(sys_dir: &Path) -> Vec<String> {
    let path = sys_dir.join("src/generated/functions.rs");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{} could not be read: {e}", path.display()));
    let names: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub unsafe fn "))
        .filter_map(|rest| rest.split('(').next())
        .map(|name| name.trim().to_string())
        .collect();
    assert!(!names.is_empty(), "{} binds no function", path.display());
    names
}

/// Where the safe crate in `crate_dir` names a function of one of the -sys
/// crates in `sys_dirs` outside its result layer (`src/result.rs`, or
/// `src/result/` when the layer is a folder), comments and string literals
/// left out: one `file:line: function` per use. Panics when the crate has
/// no result layer or a file cannot be read.
pub fn raw_calls_outside_result(crate_dir: &Path, sys_dirs: &[std::path::PathBuf]) -> Vec<String> {
    let src = crate_dir.join("src");
    let result_file = src.join("result.rs");
    let result_dir = src.join("result");
    assert!(result_file.is_file(), "{} has no result.rs", src.display());
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.retain(|f| *f != result_file && !f.starts_with(&result_dir));
    raw_calls_in(&files, sys_dirs)
}

/// Where `files` name a function of one of the -sys crates in `sys_dirs`,
/// comments and string literals left out: one `file:line: function` per
/// use, files in path order. Panics when a file cannot be read.
pub fn raw_calls_in(files: &[std::path::PathBuf], sys_dirs: &[std::path::PathBuf]) -> Vec<String> {
    let functions: std::collections::HashSet<String> =
        sys_dirs.iter().flat_map(|d| sys_functions(d)).collect();
    uses_in(files, &functions)
}

/// Where `files` name one of `functions`, comments and string literals
/// left out, and `use` declarations too unless they rename (a re-export
/// is not a call, and every call names the function again; a renaming
/// `use` would hide the calls, so it counts): one `file:line: function`
/// per use, files in path order. Panics when a file cannot be read.
pub fn uses_in(
    files: &[std::path::PathBuf],
    functions: &std::collections::HashSet<String>,
) -> Vec<String> {
    let mut files = files.to_vec();
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("{} could not be read: {e}", file.display()));
        for (n, line) in without_plain_uses(&code_only(&text)).lines().enumerate() {
            for name in identifiers(line) {
                if functions.contains(name) {
                    found.push(format!("{}:{}: {name}", file.display(), n + 1));
                }
            }
        }
    }
    found
}

/// `code` with each `use` declaration that renames nothing blanked out
/// (lines kept).
fn without_plain_uses(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = find_use(rest) {
        out.push_str(&rest[..at]);
        let end = rest[at..].find(';').map_or(rest.len(), |e| at + e + 1);
        let decl = &rest[at..end];
        if decl.split_whitespace().any(|w| w == "as") {
            out.push_str(decl);
        } else {
            out.extend(decl.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The byte offset of the next `use` keyword that starts a declaration
/// (at a line's first word, after an optional `pub`/`pub(crate)`).
fn find_use(code: &str) -> Option<usize> {
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let after_pub = if let Some(r) = trimmed.strip_prefix("pub") {
            let r2 = r.trim_start();
            let r3 = if r2.starts_with('(') {
                r2.find(')').map_or(r2, |e| &r2[e + 1..]).trim_start()
            } else {
                r2
            };
            Some(r3)
        } else {
            None
        };
        for candidate in [Some(trimmed), after_pub].into_iter().flatten() {
            if candidate.starts_with("use ") || candidate.starts_with("use\t") {
                return Some(offset + indent + (trimmed.len() - candidate.len()));
            }
        }
        offset += line.len();
    }
    None
}

/// Every Rust source file under `dir`, recursively, in no set order.
pub fn rust_sources(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files
}

/// `text` with comments and the contents of string and character literals
/// blanked out (lines kept): what the skeleton's checks read.
pub fn code_without_comments(text: &str) -> String {
    code_only(text)
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let entries = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{} could not be read: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` with comments and the contents of string and character literals
/// blanked out (lines kept, so line numbers stay true).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                if chars[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal ('x', '\n', '\''), not a lifetime.
            i += 2;
            while i < chars.len() && chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                if chars.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The identifiers of a line of code.
fn identifiers(line: &str) -> impl Iterator<Item = &str> {
    line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_name_in_a_source_file() {
        let dir = env!("CARGO_MANIFEST_DIR");
        assert_sources_do_not_name(dir, &["compare.rs"], "crate::loader");
        let found = std::panic::catch_unwind(|| {
            assert_sources_do_not_name(dir, &["sources.rs"], "assert_sources_do_not_name")
        });
        assert!(found.is_err(), "this file names the function");
        let missing =
            std::panic::catch_unwind(|| assert_sources_do_not_name(dir, &["no_such_file.rs"], "x"));
        assert!(missing.is_err(), "a missing file must fail");
    }

    #[test]
    fn finds_raw_calls_outside_the_result_layer_only() {
        // Removed at the end of the test; a few bytes.
        #[allow(clippy::disallowed_methods)]
        let dir = std::env::temp_dir().join(format!("test-kit-layering-{}", std::process::id()));
        let sys = dir.join("demo-sys");
        let lib = dir.join("demo");
        std::fs::create_dir_all(sys.join("src/generated")).unwrap();
        std::fs::create_dir_all(lib.join("src/result")).unwrap();
        std::fs::write(
            sys.join("src/generated/functions.rs"),
            "    pub unsafe fn demoRun(x: i32) -> i32;\n    pub unsafe fn demoStop() -> i32;\n",
        )
        .unwrap();
        std::fs::write(lib.join("src/result.rs"), "fn a() { demoRun(1); }").unwrap();
        std::fs::write(lib.join("src/result/more.rs"), "fn b() { demoStop(); }").unwrap();
        std::fs::write(
            lib.join("src/safe.rs"),
            "// demoRun in a comment\nfn c() { let s = \"demoRun\"; }\nfn d() { sys::demoStop(); }\n",
        )
        .unwrap();
        let found = raw_calls_outside_result(&lib, &[sys]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].ends_with("safe.rs:3: demoStop"), "{found:?}");
    }

    #[test]
    fn code_only_drops_comments_and_strings() {
        let code = "call(1); // hipX(2)\nlet s = \"hipY(\\\"\"; let q = '\"'; f::<'a>(hipW);\n/* hipZ(\n */ go();";
        let kept = code_only(code);
        assert_eq!(kept.lines().count(), 4, "{kept}");
        let names: Vec<&str> = identifiers(&kept).collect();
        assert!(names.contains(&"call") && names.contains(&"go"), "{kept}");
        assert!(names.contains(&"hipW"), "{kept}");
        for hidden in ["hipX", "hipY", "hipZ"] {
            assert!(!names.contains(&hidden), "{hidden} in {kept}");
        }
    }
}
