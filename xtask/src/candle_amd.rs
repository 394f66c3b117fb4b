//! `candle-amd-check`: the static checks of candle-kernels built for AMD by
//! the cudaforge drop-in, standing in for the AMD GPU we do not have
//! (scripts/candle.sh amd).
//!
//! For every PTX module the build wrote (an envelope of an AMD bundle):
//! - the envelope parses and its bundle passes `hip::code_object::validate`;
//! - it holds exactly the requested targets, each one AMDGPU ELF code
//!   object for its own processor, itself valid (written out as
//!   `CO_DIR/<module>.<target>.co` for the ROCm 6.4 comgr check);
//! - every target defines the same kernels, except those listed
//!   unavailable;
//! - every kernel name that candle-core and candle-nn load from it exists
//!   in every target's code object, or is listed unavailable with a reason.
//!
//! Which names candle loads is read from their sources: the literal names
//! of `get_or_load_func("name", &kernels::MODULE)`, and for
//! `kernel_name::<T>("root")` (and the unary ops' `KERNEL` roots) every
//! `root_<dtype>` that candle-kernels' own sources spell out. Names built
//! at run time from other variables are counted and reported, not checked.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// candle's dtype suffixes (`DType::as_str`).
const DTYPES: &[&str] = &[
    "u8", "u32", "i16", "i32", "i64", "bf16", "f16", "f32", "f64", "f8_e4m3", "f8e4m3",
];

/// One load site in candle's sources.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Wanted {
    /// An exact kernel name.
    Name(String),
    /// `root_<dtype>` for the dtypes the kernels define.
    Root(String),
}

/// The load sites of one Rust source: (module constant, what), and how many
/// sites name their kernel only at run time.
pub(crate) fn load_sites(text: &str) -> (Vec<(String, Wanted)>, usize) {
    let mut out = Vec::new();
    let mut dynamic = 0;
    for (i, _) in text.match_indices("get_or_load_func(") {
        let args = &text[i + "get_or_load_func(".len()..];
        let Some(end) = matching_paren(args) else {
            continue;
        };
        let args = &args[..end];
        let Some(module) = args
            .rsplit("kernels::")
            .next()
            .filter(|_| args.contains("kernels::"))
            .map(|m| {
                m.chars()
                    .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                    .collect::<String>()
            })
            .filter(|m| !m.is_empty())
        else {
            dynamic += 1;
            continue;
        };
        let first = args.trim_start();
        if let Some(lit) = first.strip_prefix('"').and_then(|r| r.split('"').next()) {
            out.push((module, Wanted::Name(lit.to_owned())));
        } else if let Some(rest) = first
            .strip_prefix("&kernel_name::<")
            .and_then(|r| r.split_once(">(\""))
            .map(|(_, r)| r)
        {
            let root = rest.split('"').next().unwrap_or_default();
            out.push((module, Wanted::Root(root.to_owned())));
        } else {
            dynamic += 1;
        }
    }
    (out, dynamic)
}

/// The roots of the unary ops (`const KERNEL: &'static str = "uexp";`),
/// loaded from the UNARY module through `U::KERNEL`.
pub(crate) fn unary_roots(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("const KERNEL: &'static str = ") {
        let rest = &text[i + "const KERNEL: &'static str = ".len()..];
        let lit = if let Some(r) = rest.strip_prefix("concat!(\"u\", \"") {
            r.split('"').next().map(|n| format!("u{n}"))
        } else {
            rest.strip_prefix('"')
                .and_then(|r| r.split('"').next())
                .map(str::to_owned)
        };
        if let Some(l) = lit.filter(|l| !l.is_empty() && !l.contains('$')) {
            out.push(l);
        }
    }
    out
}

fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 1usize;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The entries of a clang offload bundle: (id, bytes).
pub(crate) fn bundle_entries(image: &[u8]) -> Result<Vec<(String, &[u8])>, String> {
    const MAGIC: &[u8] = b"__CLANG_OFFLOAD_BUNDLE__";
    let rd = |at: usize| -> Result<u64, String> {
        image
            .get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .ok_or_else(|| format!("bundle truncated at byte {at}"))
    };
    if !image.starts_with(MAGIC) {
        return Err("not an uncompressed clang offload bundle".into());
    }
    let n = rd(MAGIC.len())? as usize;
    let mut at = MAGIC.len() + 8;
    let mut out = Vec::new();
    for _ in 0..n {
        let (offset, size, id_len) = (
            rd(at)? as usize,
            rd(at + 8)? as usize,
            rd(at + 16)? as usize,
        );
        at += 24;
        let id = image
            .get(at..at + id_len)
            .ok_or("bundle entry id out of bounds")?;
        at += id_len;
        let bytes = image
            .get(offset..offset + size)
            .ok_or("bundle entry out of bounds")?;
        out.push((String::from_utf8_lossy(id).into_owned(), bytes));
    }
    Ok(out)
}

/// `NAME (TARGET)` for each of `names` that a target's code object lacks
/// and the envelope does not list as unavailable.
fn missing<'a>(
    names: impl IntoIterator<Item = &'a String>,
    per_target: &BTreeMap<String, BTreeSet<String>>,
    listed: &BTreeSet<&str>,
) -> Vec<String> {
    let mut out = Vec::new();
    for n in names {
        for (t, ks) in per_target {
            if !ks.contains(n) && !listed.contains(n.as_str()) {
                out.push(format!("{n} ({t})"));
            }
        }
    }
    out
}

/// `MODULE NAME` lines (`#` comments): nvcc's kernels per module.
fn nvcc_kernels(path: &Path) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (m, k) = line
            .split_once(' ')
            .ok_or_else(|| format!("{}: not `MODULE NAME`: {line}", path.display()))?;
        out.entry(m.to_owned())
            .or_default()
            .insert(k.trim().to_owned());
    }
    Ok(out)
}

/// The kernels of one AMDGPU code object: symbols with a `.kd` descriptor.
fn kernels_of(symbols: &[String]) -> BTreeSet<String> {
    symbols
        .iter()
        .filter_map(|s| s.strip_suffix(".kd"))
        .filter(|k| symbols.iter().any(|s| s == k))
        .map(str::to_owned)
        .collect()
}

/// Runs the checks; returns the report lines, and whether all passed.
pub(crate) fn check(
    out_dir: &Path,
    nvcc_list: &Path,
    candle_srcs: &[PathBuf],
    targets: &[String],
    co_dir: &Path,
) -> Result<(Vec<String>, bool), String> {
    let mut lines = Vec::new();
    let mut ok = true;
    let mut fail = |lines: &mut Vec<String>, msg: String| {
        lines.push(format!("FAILED: {msg}"));
        ok = false;
    };
    std::fs::create_dir_all(co_dir).map_err(|e| format!("{}: {e}", co_dir.display()))?;

    // What candle loads, per module constant.
    let mut wanted: BTreeMap<String, BTreeSet<Wanted>> = BTreeMap::new();
    let mut dynamic = 0;
    let mut files = Vec::new();
    for src in candle_srcs {
        rust_files(src, &mut files)?;
    }
    for f in &files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let (sites, d) = load_sites(&text);
        dynamic += d;
        for (module, w) in sites {
            wanted.entry(module).or_default().insert(w);
        }
        for root in unary_roots(&text) {
            wanted
                .entry("UNARY".into())
                .or_default()
                .insert(Wanted::Root(root));
        }
    }
    if wanted.is_empty() {
        fail(
            &mut lines,
            "no kernel load found in candle's sources".into(),
        );
    }
    let nvcc = nvcc_kernels(nvcc_list)?;
    let mut undefined = Vec::new();

    let mut modules = 0;
    let mut ptx: Vec<PathBuf> = std::fs::read_dir(out_dir)
        .map_err(|e| format!("{}: {e}", out_dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    ptx.sort();
    for path in ptx {
        modules += 1;
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let module = stem.to_uppercase();
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let envelope = match hip::code_object::Envelope::parse(&text) {
            Ok(e) => e,
            Err(e) => {
                fail(&mut lines, format!("{stem}: envelope: {e}"));
                continue;
            }
        };
        if envelope.targets() != targets {
            fail(
                &mut lines,
                format!(
                    "{stem}: targets {:?}, asked for {targets:?}",
                    envelope.targets()
                ),
            );
        }
        let entries = match bundle_entries(envelope.image()) {
            Ok(e) => e,
            Err(e) => {
                fail(&mut lines, format!("{stem}: {e}"));
                continue;
            }
        };
        let mut per_target: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (id, bytes) in entries {
            let Some(target) = id.strip_prefix("hipv4-amdgcn-amd-amdhsa--") else {
                if !id.starts_with("host-") {
                    fail(&mut lines, format!("{stem}: unexpected bundle entry {id}"));
                }
                continue;
            };
            if let Err(e) = hip::code_object::validate(bytes, hip_sys::loader::Platform::Amd) {
                fail(&mut lines, format!("{stem} {target}: {e}"));
                continue;
            }
            let co = match hip_build::elf::parse(bytes) {
                Ok(co) => co,
                Err(e) => {
                    fail(&mut lines, format!("{stem} {target}: {e}"));
                    continue;
                }
            };
            let processor = target.split(':').next().unwrap_or(target);
            if let Some(mach) = hip_build::elf::amdgpu_mach(processor) {
                if co.mach() != mach {
                    fail(
                        &mut lines,
                        format!(
                            "{stem} {target}: e_flags machine {:#x}, expected {mach:#x}",
                            co.mach()
                        ),
                    );
                }
            }
            let file = co_dir.join(format!("{stem}.{target}.co"));
            std::fs::write(&file, bytes).map_err(|e| format!("{}: {e}", file.display()))?;
            per_target.insert(target.to_owned(), kernels_of(&co.symbols));
        }
        let listed: BTreeSet<&str> = envelope
            .unavailable()
            .iter()
            .map(|u| u.kernel.as_str())
            .collect();
        let missing_targets: Vec<&String> = targets
            .iter()
            .filter(|t| !per_target.contains_key(*t))
            .collect();
        if !missing_targets.is_empty() {
            fail(
                &mut lines,
                format!("{stem}: no code object for {missing_targets:?}"),
            );
        }
        let union: BTreeSet<&String> = per_target.values().flatten().collect();
        let uneven = missing(union.iter().copied(), &per_target, &listed);
        if !uneven.is_empty() {
            fail(
                &mut lines,
                format!(
                    "{stem}: in another target's code object but not these: {}",
                    uneven.join(", ")
                ),
            );
        }
        // nvcc's kernels: each one in every target, or listed.
        let empty = BTreeSet::new();
        let nv = nvcc.get(&stem).unwrap_or(&empty);
        if nv.is_empty() {
            fail(
                &mut lines,
                format!(
                    "{stem}: no nvcc kernel list for it in {}",
                    nvcc_list.display()
                ),
            );
        }
        let absent = missing(nv, &per_target, &listed);
        if !absent.is_empty() {
            fail(
                &mut lines,
                format!(
                    "{stem}: kernels nvcc builds are missing and not listed: {}",
                    absent.join(", ")
                ),
            );
        }
        // Names candle loads from this module.
        let mut names = BTreeSet::new();
        for w in wanted.get(&module).into_iter().flatten() {
            match w {
                Wanted::Name(n) => {
                    names.insert(n.clone());
                }
                Wanted::Root(r) => {
                    let found: Vec<String> = DTYPES
                        .iter()
                        .map(|d| format!("{r}_{d}"))
                        .filter(|n| nv.contains(n) || union.contains(n))
                        .collect();
                    if found.is_empty() {
                        fail(&mut lines, format!("{stem}: candle loads {r}_<dtype>, and neither build has such a kernel"));
                    }
                    names.extend(found);
                }
            }
        }
        let (defined, nowhere): (Vec<&String>, Vec<&String>) = names
            .iter()
            .partition(|n| nv.contains(*n) || union.contains(n));
        undefined.extend(nowhere.iter().map(|n| format!("{stem}::{n}")));
        let absent = missing(defined, &per_target, &listed);
        if !absent.is_empty() {
            fail(
                &mut lines,
                format!(
                    "{stem}: candle loads kernels missing from the code objects: {}",
                    absent.join(", ")
                ),
            );
        }
        let extra = union.iter().filter(|k| !nv.contains(k.as_str())).count();
        let counts: Vec<String> = per_target
            .iter()
            .map(|(t, k)| format!("{t} {}", k.len()))
            .collect();
        lines.push(format!(
            "module {stem}: kernels per target: {}; nvcc's {}: all present{}; candle loads {} names; {} unavailable{}",
            counts.join(", "),
            nv.len(),
            if extra > 0 { format!(" (and {extra} nvcc lacks)") } else { String::new() },
            names.len(),
            listed.len(),
            if listed.is_empty() {
                String::new()
            } else {
                let mut s = String::from(":");
                for u in envelope.unavailable() {
                    let _ = write!(s, " {} ({})", u.kernel, u.reason);
                }
                s
            }
        ));
    }
    if modules == 0 {
        fail(
            &mut lines,
            format!("no .ptx module in {}", out_dir.display()),
        );
    }
    for module in wanted.keys() {
        if !out_dir
            .join(format!("{}.ptx", module.to_lowercase()))
            .is_file()
        {
            fail(
                &mut lines,
                format!("candle loads from {module}, which the build did not write"),
            );
        }
    }
    if !undefined.is_empty() {
        lines.push(format!(
            "note: candle loads {} names that neither nvcc's build nor this one has (candle-kernels defines them for no platform): {}",
            undefined.len(),
            undefined.join(", ")
        ));
    }
    lines.push(format!(
        "{modules} modules, {} targets; {} load sites read from candle's sources, {dynamic} named only at run time (not checked)",
        targets.len(),
        wanted.values().map(BTreeSet::len).sum::<usize>()
    ));
    Ok((lines, ok))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for entry in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            rust_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_sites_are_read_from_rust_text() {
        let text = r#"
            let f = dev.get_or_load_func(&kernel_name::<T>("affine"), &kernels::AFFINE)?;
            let g = dev.get_or_load_func("quantize_q8_1", &candle_kernels::QUANTIZED)?;
            let h = dev.get_or_load_func(kernel_name, &candle_kernels::QUANTIZED)?;
            let i = dev.get_or_load_func(&name, &self.module)?;
        "#;
        let (sites, dynamic) = load_sites(text);
        assert_eq!(
            sites,
            vec![
                ("AFFINE".into(), Wanted::Root("affine".into())),
                ("QUANTIZED".into(), Wanted::Name("quantize_q8_1".into())),
            ]
        );
        assert_eq!(dynamic, 2);
    }

    #[test]
    fn unary_roots_are_read() {
        let text = "const KERNEL: &'static str = concat!(\"u\", \"exp\");\nconst KERNEL: &'static str = \"ugelu\";\nconst KERNEL: &'static str = concat!(\"u\", $name);";
        assert_eq!(
            unary_roots(text),
            vec!["uexp".to_string(), "ugelu".to_string()]
        );
    }

    #[test]
    fn bundles_are_split_into_entries() {
        let mut b = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
        b.extend(2u64.to_le_bytes());
        let header = b.len() + 2 * 24 + 4 + 5;
        for (i, (off, id)) in [(header, "ab12"), (header + 3, "cdefg")]
            .into_iter()
            .enumerate()
        {
            b.extend((off as u64).to_le_bytes());
            b.extend((if i == 0 { 3u64 } else { 2 }).to_le_bytes());
            b.extend((id.len() as u64).to_le_bytes());
            b.extend(id.as_bytes());
        }
        b.extend(b"xyzUV");
        let e = bundle_entries(&b).unwrap();
        assert_eq!(
            e,
            vec![("ab12".into(), &b"xyz"[..]), ("cdefg".into(), &b"UV"[..])]
        );
        assert!(bundle_entries(&b[..30]).is_err());
        assert!(bundle_entries(b"CCOB").is_err());
    }
}
