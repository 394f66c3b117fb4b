//! A systest-style check, as git2's: compile C against the real headers with
//! the system C compiler and compare every size, alignment and field offset
//! with the ones the committed Rust bindings assert at compile time.
//!
//! The Rust side needs no compiling here: the generated `types.rs` holds a
//! compile-time assert per size, alignment and offset, so the numbers in
//! those asserts are the Rust layout whenever the crate builds.

use crate::library::Library;
use anyhow::{bail, Context, Result};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// What one library's check found.
pub(crate) struct Outcome {
    pub(crate) checked: usize,
    pub(crate) mismatches: Vec<String>,
}

pub(crate) fn run(lib: &Library, include: &Path) -> Result<Outcome> {
    let types_rs = lib.out_dir.join("types.rs");
    let rust = std::fs::read_to_string(&types_rs)
        .with_context(|| format!("reading {}", types_rs.display()))?;
    // A library whose types are only handles, enums and aliases (hipSOLVER)
    // has no struct, so no layout to compare; every struct bindgen writes
    // is `#[repr(C)]` and has asserts, which `parse_asserts` requires.
    if !rust.contains("#[repr(C)]") {
        return Ok(Outcome {
            checked: 0,
            mismatches: Vec::new(),
        });
    }
    let expected = parse_asserts(&rust)?;
    // Alignments raised on purpose (see the filter) differ from C mode's.
    let raised: BTreeMap<String, usize> = lib
        .filter
        .align
        .iter()
        .map(|a| (format!("align {}", a.item), a.align))
        .collect();
    let headers: String = lib
        .includes
        .iter()
        .map(|h| std::fs::read_to_string(include.join(h)).unwrap_or_default())
        .collect();
    // Headers included by the main ones hold most of the types.
    // The C text the bindings were generated from (the manifest's prelude,
    // its headers, its later-API declarations).
    let wrapper = crate::library::wrapper(lib)?;
    let mut all_headers = headers.clone() + &wrapper;
    // The top folders of every header the manifest names.
    let dirs: std::collections::BTreeSet<&str> = lib
        .includes
        .iter()
        .chain(&lib.filter.files)
        .chain(&lib.filter.reuse_files)
        .filter_map(|h| h.split_once('/').map(|(dir, _)| dir))
        .collect();
    for dir in dirs {
        if let Ok(rd) = std::fs::read_dir(include.join(dir)) {
            for e in rd.flatten() {
                all_headers.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
            }
        }
    }

    // That text, with the manifest's C stand-ins for C++ headers on the
    // path, as bindgen read it.
    let mut c = String::from("#include <stdio.h>\n#include <stddef.h>\n");
    c.push_str(&wrapper);
    c.push_str("int main(void) {\n");
    for key in expected.keys() {
        let (kind, rest) = key.split_once(' ').unwrap();
        let ty = |name: &str| c_type(name, &all_headers);
        match kind {
            "size" => {
                let _ = writeln!(c, "  printf(\"size {rest} %zu\\n\", sizeof({}));", ty(rest));
            }
            "align" => {
                let _ = writeln!(
                    c,
                    "  printf(\"align {rest} %zu\\n\", _Alignof({}));",
                    ty(rest)
                );
            }
            "offset" => {
                let (s, f) = rest.split_once('.').unwrap();
                let _ = writeln!(
                    c,
                    "  printf(\"offset {rest} %zu\\n\", offsetof({}, {}));",
                    ty(s),
                    c_field(f)
                );
            }
            _ => unreachable!(),
        }
    }
    c.push_str("  return 0;\n}\n");

    // One folder per library, rewritten by each run (one per process was
    // left behind by every CI run).
    #[allow(clippy::disallowed_methods)]
    let dir = std::env::temp_dir().join(format!("hip-systest-{}", lib.name));
    std::fs::create_dir_all(&dir)?;
    let src = dir.join("layout.c");
    let exe = dir.join("layout");
    std::fs::write(&src, &c)?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let mut compile = Command::new(&cc);
    compile.args(["-std=c11", "-D__HIP_PLATFORM_AMD__", "-DHIPBLAS_V2", "-w"]);
    // The headers bindgen read: the manifest's C rewrites before the rest.
    if let Some(overlay) = crate::library::write_c_rewrites(lib, include)? {
        compile.arg(format!("-I{}", overlay.display()));
    }
    compile.arg(format!("-I{}", include.display()));
    if let Some(shims) = crate::library::write_c_shims(lib)? {
        compile.arg(format!("-idirafter{}", shims.display()));
    }
    let out = compile
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .with_context(|| format!("running {cc}"))?;
    if !out.status.success() {
        bail!(
            "{cc} could not compile the layout program ({}):\n{}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let run = Command::new(&exe).output()?;
    let mut mismatches = Vec::new();
    let mut seen = 0;
    for line in String::from_utf8_lossy(&run.stdout).lines() {
        let (key, value) = line.rsplit_once(' ').unwrap();
        let c_value: usize = value.parse()?;
        seen += 1;
        match expected.get(key) {
            Some(&rust_value) if rust_value == c_value => {}
            Some(&rust_value) if raised.get(key) == Some(&rust_value) && rust_value > c_value => {}
            Some(&rust_value) => mismatches.push(format!("{key}: C {c_value}, Rust {rust_value}")),
            None => mismatches.push(format!("{key}: printed by C but not asserted in Rust")),
        }
    }
    if seen != expected.len() {
        bail!("the C program printed {seen} of {} values", expected.len());
    }
    std::fs::remove_dir_all(&dir).ok();
    Ok(Outcome {
        checked: seen,
        mismatches,
    })
}

/// `"size T" | "align T" | "offset T.f"` -> the value asserted in Rust.
fn parse_asserts(rust: &str) -> Result<BTreeMap<String, usize>> {
    let size = regex::Regex::new(
        r#"\["Size of (\w+)"\]\s*\[\s*::std::mem::size_of::<\w+>\(\)\s*-\s*(\d+)usize\]"#,
    )?;
    let align = regex::Regex::new(
        r#"\["Alignment of (\w+)"\]\s*\[\s*::std::mem::align_of::<\w+>\(\)\s*-\s*(\d+)usize\]"#,
    )?;
    let offset = regex::Regex::new(
        r#"\["Offset of field: (\w+)::(\w+)"\]\s*\[\s*::std::mem::offset_of!\(\w+,\s*\w+\)\s*-\s*(\d+)usize\]"#,
    )?;
    let mut out = BTreeMap::new();
    // Anonymous nested types (`X__bindgen_ty_1`) have no C name; their
    // layout is checked through their parent's size and offsets.
    let named = |t: &str| !t.contains("__bindgen_ty_");
    for c in size.captures_iter(rust).filter(|c| named(&c[1])) {
        out.insert(format!("size {}", &c[1]), c[2].parse()?);
    }
    for c in align.captures_iter(rust).filter(|c| named(&c[1])) {
        out.insert(format!("align {}", &c[1]), c[2].parse()?);
    }
    for c in offset.captures_iter(rust).filter(|c| named(&c[1])) {
        // bindgen-internal members (anonymous unions, bitfield storage) have
        // no C name.
        if c[2].starts_with("__bindgen") || c[2].starts_with("_bitfield") {
            continue;
        }
        out.insert(format!("offset {}.{}", &c[1], &c[2]), c[3].parse()?);
    }
    if out.is_empty() {
        bail!("no layout asserts found in the generated types");
    }
    Ok(out)
}

/// The C spelling of a bound type: `struct T`/`union T` when the headers
/// declare a tag of that name, else the typedef name itself.
///
/// bindgen names a tagged type declared inside another `Outer_tag`; C puts
/// such tags at file scope, so the longest suffix that is a tag is used.
fn c_type(name: &str, headers: &str) -> String {
    let tagged = |tag: &str| {
        ["struct", "union"].into_iter().find_map(|kw| {
            let pat = format!("{kw} {tag}");
            headers
                .match_indices(&pat)
                .any(|(i, _)| {
                    headers[i + pat.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| !(c.is_alphanumeric() || c == '_'))
                })
                .then_some(pat)
        })
    };
    if let Some(t) = tagged(name) {
        return t;
    }
    if !headers.contains(&format!("}} {name};")) && !headers.contains(&format!(" {name};")) {
        for (i, _) in name.match_indices('_') {
            if let Some(t) = tagged(&name[i + 1..]) {
                return t;
            }
        }
    }
    name.to_owned()
}

/// bindgen appends `_` to C members named like Rust keywords.
fn c_field(field: &str) -> &str {
    match field {
        "type_" | "fn_" | "ref_" | "self_" | "match_" | "mod_" | "in_" | "loop_" | "move_"
        | "box_" => field.trim_end_matches('_'),
        f => f,
    }
}
