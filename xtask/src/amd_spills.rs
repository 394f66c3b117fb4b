//! `amd-spills`: which kernels of an AMD build spill registers, against a
//! committed list that names each one with its reason, and whether each
//! source's launch bound reached its kernels' code objects
//! (scripts/candle.sh amd).
//!
//! The build is cudaforge's: `OUT_DIR/cudaforge-amd/<key>/` holds
//! `cudaforge-amd-report.txt` (`source REL ...` and `bound REL N threads
//! (...)` lines) and `obj/`, one file per source in the report's order
//! (`<stem>.bundle` for PTX builds, `<index>-<stem>.o` for libraries).
//!
//! The list has one line per kernel, tab-separated: the kernel's name, the
//! processors it spills on (comma-separated), and why. Only the processors
//! built are compared, so CI's two targets and the developers' four share
//! one list. A spilling kernel not on the list fails, and so does a listed
//! one that no longer spills on a processor built (the list only shrinks).
//! A placeholder reason ([`crate::text::PROVISIONAL`]'s words, among them
//! [`UNREVIEWED`], which `--write` gives new kernels) fails on any line:
//! each reason is the measured register demand.

use hip::code_object::KernelInfo;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One listed kernel: its processors and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    pub(crate) processors: BTreeSet<String>,
    pub(crate) reason: String,
}

/// Parses the list: `KERNEL<TAB>PROCESSORS<TAB>REASON` lines; `#` comments.
pub(crate) fn parse_list(text: &str) -> Result<BTreeMap<String, Listed>, String> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, '\t');
        let (Some(kernel), Some(procs), Some(reason)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(format!(
                "line {}: expected KERNEL<TAB>PROCESSORS<TAB>REASON: {line}",
                n + 1
            ));
        };
        if reason.trim().is_empty() {
            return Err(format!("line {}: {kernel} has no reason", n + 1));
        }
        let processors = procs.split(',').map(|p| p.trim().to_owned()).collect();
        if out
            .insert(
                kernel.to_owned(),
                Listed {
                    processors,
                    reason: reason.to_owned(),
                },
            )
            .is_some()
        {
            return Err(format!("line {}: {kernel} is listed twice", n + 1));
        }
    }
    Ok(out)
}

/// A source of the build, its launch bound, and its kernels.
struct Source {
    rel: String,
    bound: Option<u32>,
    kernels: Vec<KernelInfo>,
}

/// One finished cudaforge AMD build: `OUT_DIR/cudaforge-amd/<key>/`.
#[derive(Debug)]
pub(crate) struct Build {
    /// When its report was written.
    pub(crate) when: std::time::SystemTime,
    /// Its folder.
    pub(crate) dir: PathBuf,
    /// Its report, `cudaforge-amd-report.txt`.
    pub(crate) report: String,
}

/// The current cudaforge AMD builds under `out_dir` for `processors`,
/// keyed by their sources (the report's `source` lines' paths): the
/// folder keeps every key it was ever built with, so of the builds of one
/// set of sources for these targets, the newest. A folder without a report,
/// or named `.partial-` (a build under way, or stopped), is no build; none
/// at all is an empty map.
pub(crate) fn current_builds(
    out_dir: &Path,
    processors: &[String],
) -> Result<BTreeMap<String, Build>, String> {
    let root = out_dir.join("cudaforge-amd");
    let mut newest: BTreeMap<String, Build> = BTreeMap::new();
    let wanted = format!("# targets: {}", processors.join(" "));
    // No folder: no build.
    let entries = std::fs::read_dir(&root).into_iter().flatten();
    for e in entries {
        let dir = e.map_err(|e| format!("{}: {e}", root.display()))?.path();
        let name = dir.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with('.') || name.contains(".partial-") {
            continue;
        }
        let path = dir.join("cudaforge-amd-report.txt");
        let Ok(report) = std::fs::read_to_string(&path) else {
            continue;
        };
        if !report.lines().any(|l| l == wanted) {
            continue;
        }
        let when = std::fs::metadata(&path)
            .and_then(|m| m.modified())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        let sources: String = report
            .lines()
            .filter(|l| l.starts_with("source "))
            .filter_map(|l| l.split(' ').nth(1))
            .collect::<Vec<_>>()
            .join(" ");
        if newest.get(&sources).map_or(true, |b| when > b.when) {
            newest.insert(sources, Build { when, dir, report });
        }
    }
    Ok(newest)
}

/// The launch bound of each bounded source of the current builds under
/// `out_dir` for `processors` (the report's `bound REL N threads` lines).
pub(crate) fn bounds(
    out_dir: &Path,
    processors: &[String],
) -> Result<BTreeMap<String, u32>, String> {
    Ok(sources(out_dir, processors)?
        .into_iter()
        .filter_map(|s| Some((s.rel, s.bound?)))
        .collect())
}

/// The sources of the current builds under `out_dir` for `processors`.
fn sources(out_dir: &Path, processors: &[String]) -> Result<Vec<Source>, String> {
    let builds = current_builds(out_dir, processors)?;
    if builds.is_empty() {
        return Err(format!(
            "no finished cudaforge AMD build for {} in {}",
            processors.join(","),
            out_dir.join("cudaforge-amd").display()
        ));
    }
    let mut out = Vec::new();
    for Build { dir: b, report, .. } in builds.into_values() {
        let rels: Vec<&str> = report
            .lines()
            .filter_map(|l| l.strip_prefix("source "))
            .filter_map(|l| l.split(' ').next())
            .collect();
        let bounds: BTreeMap<&str, u32> = report
            .lines()
            .filter_map(|l| l.strip_prefix("bound "))
            .filter_map(|l| {
                let mut w = l.split(' ');
                Some((w.next()?, w.next()?.parse().ok()?))
            })
            .collect();
        let mut objs: Vec<PathBuf> = std::fs::read_dir(b.join("obj"))
            .map_err(|e| format!("{}: {e}", b.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "bundle" || e == "o"))
            .collect();
        objs.sort();
        for (i, rel) in rels.iter().enumerate() {
            let stem = Path::new(rel)
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let file = objs.iter().find(|o| {
                let name = o.file_name().unwrap_or_default().to_string_lossy();
                name == format!("{stem}.bundle") || name == format!("{i:03}-{stem}.o")
            });
            let Some(file) = file else {
                return Err(format!("{}: no object for {rel}", b.display()));
            };
            let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
            let kernels = kernels_of(file, &bytes)?;
            out.push(Source {
                rel: rel.to_string(),
                bound: bounds.get(rel).copied(),
                kernels,
            });
        }
    }
    Ok(out)
}

/// The kernels of one object of the build. A source whose launchers are
/// unavailable on AMD gets a host-only stub (cudaforge's `stub`: a host
/// object, no GPU code), which has no kernels; any other object that
/// cannot be read fails, naming it: counting it as no kernels would hide
/// its spills.
fn kernels_of(path: &Path, bytes: &[u8]) -> Result<Vec<KernelInfo>, String> {
    match hip::code_object::kernels(bytes) {
        Ok(kernels) => Ok(kernels),
        Err(_) if host_only(bytes) => Ok(Vec::new()),
        Err(e) => Err(format!("{}: cannot read its kernels: {e}", path.display())),
    }
}

/// Whether `bytes` is host code only: an ELF of a machine other than
/// AMDGPU, or an `ar` archive, that nowhere names a `.hip_fatbin` section
/// (where device code would be). An AMDGPU ELF, a bundle, or an object
/// that names `.hip_fatbin` is not, so a malformed one of those fails.
fn host_only(bytes: &[u8]) -> bool {
    const EM_AMDGPU: u16 = 224;
    let names_fatbin = bytes.windows(11).any(|w| w == b".hip_fatbin");
    let host_elf = bytes.starts_with(b"\x7fELF")
        && bytes.len() >= 20
        && u16::from_le_bytes([bytes[18], bytes[19]]) != EM_AMDGPU;
    !names_fatbin && (host_elf || bytes.starts_with(b"!<arch>\n"))
}

/// Runs the check; returns the report lines and whether it passed.
/// The reason `--write` gives a kernel it adds: the check refuses it until
/// someone writes the real one.
pub(crate) const UNREVIEWED: &str = crate::text::PROVISIONAL[0];

/// What the build holds: the processors each spilling kernel spills on,
/// and per processor (instances, spilling).
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub(crate) spilling: BTreeMap<String, BTreeSet<String>>,
    pub(crate) per_proc: BTreeMap<String, (usize, usize)>,
}

/// Compares what was found on `processors` with the list: the failures.
pub(crate) fn compare(
    found: &Found,
    listed: &BTreeMap<String, Listed>,
    processors: &[String],
) -> Vec<String> {
    let mut fails = Vec::new();
    for p in processors {
        if !found.per_proc.contains_key(p.as_str()) {
            fails.push(format!("no kernel was built for {p}"));
        }
    }
    for (kernel, procs) in &found.spilling {
        let on_list = listed.get(kernel);
        for p in procs {
            if !on_list.is_some_and(|l| l.processors.contains(p)) {
                fails.push(format!(
                    "{kernel} spills on {p} and is not listed with a reason"
                ));
            }
        }
    }
    for (kernel, l) in listed {
        if let Some(w) = crate::text::provisional(&l.reason) {
            fails.push(format!(
                "{kernel}'s reason says {w:?}, a placeholder: write why it spills, as measured"
            ));
        }
    }
    for (kernel, l) in listed {
        for p in l.processors.iter().filter(|p| processors.contains(p)) {
            if !found.spilling.get(kernel).is_some_and(|s| s.contains(p)) {
                fails.push(format!(
                    "{kernel} is listed as spilling on {p}, and no longer does: take it off"
                ));
            }
        }
    }
    fails
}

/// The list rewritten for what was found on `processors`: reasons kept,
/// processors built brought up to date (others kept), new kernels added as
/// [`UNREVIEWED`], kernels that spill nowhere dropped.
pub(crate) fn rewrite(
    found: &Found,
    listed: &BTreeMap<String, Listed>,
    processors: &[String],
) -> String {
    let mut out: BTreeMap<String, Listed> = BTreeMap::new();
    let names: BTreeSet<&String> = listed.keys().chain(found.spilling.keys()).collect();
    for name in names {
        let mut procs: BTreeSet<String> = listed
            .get(name)
            .map(|l| l.processors.clone())
            .unwrap_or_default();
        procs.retain(|p| !processors.contains(p));
        procs.extend(found.spilling.get(name).cloned().unwrap_or_default());
        if procs.is_empty() {
            continue;
        }
        let reason = listed
            .get(name)
            .map_or(UNREVIEWED.to_owned(), |l| l.reason.clone());
        out.insert(
            name.clone(),
            Listed {
                processors: procs,
                reason,
            },
        );
    }
    let mut text = String::from(HEADER);
    for (name, l) in out {
        let procs: Vec<&str> = l.processors.iter().map(String::as_str).collect();
        text.push_str(&format!("{name}\t{}\t{}\n", procs.join(","), l.reason));
    }
    text
}

/// One spilling kernel instance as its code object's metadata gives it
/// (`--detail`): the measures a reason is written from.
fn spill_detail(k: &KernelInfo) -> String {
    // On gfx90a and later `vgprs` counts the AGPRs too (one file).
    let agprs = k
        .agprs
        .map_or(String::new(), |a| format!(" ({a} of them AGPRs)"));
    let cap = k
        .vgpr_cap
        .map_or(String::new(), |c| format!(" of the {c} a lane may have"));
    format!(
        "spill: {}\t{}\t{} VGPRs{agprs}{cap}, {} spilled, {} bytes of scratch a lane, {} SGPRs spilled, LDS {} bytes, at most {} threads",
        k.name,
        k.processor(),
        k.vgprs,
        k.vgpr_spills,
        k.scratch_bytes,
        k.sgpr_spills,
        k.lds_bytes,
        k.max_workgroup_size
    )
}

/// The list's opening comment, which `--write` keeps.
const HEADER: &str = "\
# Kernels of candle-kernels' AMD build (scripts/candle.sh amd) that spill
# registers, each with the processors it spills on and why; checked by
# cargo xtask amd-spills, rewritten by its --write (new kernels come in as
# `not yet reviewed`, which the check refuses). Tab-separated:
# KERNEL, PROCESSORS, REASON.
";

/// Runs the check, or with `write` rewrites the list; returns the report
/// lines and whether it passed.
pub(crate) fn check(
    out_dir: &Path,
    list: &Path,
    processors: &[String],
    write: bool,
    detail: bool,
) -> Result<(Vec<String>, bool), String> {
    let text = match std::fs::read_to_string(list) {
        Ok(t) => t,
        Err(e) if write && e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", list.display())),
    };
    let listed = parse_list(&text)?;
    let sources = sources(out_dir, processors)?;
    let mut lines = Vec::new();
    let mut ok = true;
    let mut found = Found::default();
    let mut bounded = 0;
    for s in &sources {
        for k in &s.kernels {
            let p = k.processor().to_owned();
            let e = found.per_proc.entry(p.clone()).or_default();
            e.0 += 1;
            if k.spills() {
                e.1 += 1;
                if detail {
                    lines.push(spill_detail(k));
                }
                found.spilling.entry(k.name.clone()).or_default().insert(p);
            }
            if let Some(bound) = s.bound {
                bounded += 1;
                if k.max_workgroup_size > bound {
                    ok = false;
                    lines.push(format!(
                        "FAILED: {} on {} has a maximum workgroup of {}, above its source's bound {bound} ({})",
                        k.name, k.target, k.max_workgroup_size, s.rel
                    ));
                }
            }
        }
    }
    if write {
        std::fs::write(list, rewrite(&found, &listed, processors))
            .map_err(|e| format!("{}: {e}", list.display()))?;
        lines.push(format!("wrote {}", list.display()));
    } else {
        for f in compare(&found, &listed, processors) {
            ok = false;
            lines.push(format!("FAILED: {f} ({})", list.display()));
        }
    }
    for (p, (all, spill)) in &found.per_proc {
        lines.push(format!("{p}: {spill} of {all} kernel instances spill"));
    }
    lines.push(format!(
        "{bounded} kernel instances of bounded sources, each within its source's bound"
    ));
    Ok((lines, ok))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An ELF header (64-bit, little-endian) of `machine`, then `tail`.
    fn elf(machine: u16, tail: &[u8]) -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2; // ELFCLASS64
        b[5] = 1; // little-endian
        b[6] = 1; // version
        b[16] = 1; // ET_REL
        b[18..20].copy_from_slice(&machine.to_le_bytes());
        b.extend_from_slice(tail);
        b
    }

    #[test]
    fn an_object_that_cannot_be_read_fails_and_a_host_stub_has_no_kernels() {
        let path = Path::new("obj/003-softmax.o");
        // A host-only stub (x86-64, no .hip_fatbin): no kernels.
        assert_eq!(kernels_of(path, &elf(62, b"")).unwrap(), []);
        assert_eq!(kernels_of(path, b"!<arch>\n").unwrap(), []);
        // Not an object at all: an error naming it (it used to count as
        // zero kernels).
        let e = kernels_of(path, b"garbage").unwrap_err();
        assert!(
            e.starts_with("obj/003-softmax.o: cannot read its kernels: "),
            "{e}"
        );
        // A truncated AMDGPU object, or a host object that names
        // .hip_fatbin but cannot be read: errors too.
        assert!(kernels_of(path, &elf(224, b"")).is_err());
        assert!(kernels_of(path, &elf(62, b"\0.hip_fatbin\0")).is_err());
        assert!(!host_only(&elf(62, b"..hip_fatbin")));
        assert!(host_only(&elf(62, b"")));
    }

    #[test]
    fn the_list_is_three_columns_with_a_reason() {
        let l = parse_list("# comment\nmul_mat_q2_K\tgfx942,gfx1100\tneeds more than 512 VGPRs\n")
            .unwrap();
        assert_eq!(
            l["mul_mat_q2_K"].processors,
            BTreeSet::from(["gfx942".to_owned(), "gfx1100".to_owned()])
        );
        assert!(parse_list("k\tgfx942\n").is_err());
        assert!(parse_list("k\tgfx942\t \n").is_err());
        assert!(parse_list("k\tgfx942\ta\nk\tgfx90a\tb\n").is_err());
    }

    fn found(spills: &[(&str, &str)], procs: &[&str]) -> Found {
        let mut f = Found::default();
        for p in procs {
            f.per_proc.insert(p.to_string(), (10, 0));
        }
        for (k, p) in spills {
            f.spilling
                .entry(k.to_string())
                .or_default()
                .insert(p.to_string());
        }
        f
    }

    #[test]
    fn only_the_processors_built_are_compared() {
        let listed = parse_list("a\tgfx90a,gfx942\tits tile\nb\tgfx1030\tits tile\n").unwrap();
        let procs = vec!["gfx942".to_owned(), "gfx1100".to_owned()];
        // a spills on gfx942 as listed; gfx90a and gfx1030 were not built.
        let f = found(&[("a", "gfx942")], &["gfx942", "gfx1100"]);
        assert!(compare(&f, &listed, &procs).is_empty());
        // A new spill, and a listed one that stopped.
        let f = found(&[("c", "gfx1100")], &["gfx942", "gfx1100"]);
        let fails = compare(&f, &listed, &procs);
        assert_eq!(fails.len(), 2, "{fails:?}");
        assert!(fails[0].starts_with("c spills on gfx1100"), "{fails:?}");
        assert!(
            fails[1].starts_with("a is listed as spilling on gfx942"),
            "{fails:?}"
        );
        // A processor asked for and not built.
        let f = found(&[("a", "gfx942")], &["gfx942"]);
        assert_eq!(
            compare(&f, &listed, &procs),
            ["no kernel was built for gfx1100"]
        );
    }

    #[test]
    fn placeholder_reasons_are_refused_on_every_line() {
        // A placeholder inside a longer reason, on a processor not built
        // too: the list is reviewed as a whole.
        let [reviewed, examined] = [0, 1].map(|i| crate::text::PROVISIONAL[i]);
        let listed = parse_list(&format!(
            "a\tgfx942\t256 VGPRs; why clang needs more is {}\n\
             b\tgfx1030\t{reviewed}\n\
             c\tgfx942\t64 accumulators and the tile's loads: 256 VGPRs, 12 spilled\n",
            examined.to_uppercase()
        ))
        .unwrap();
        let procs = vec!["gfx942".to_owned()];
        let f = found(&[("a", "gfx942"), ("c", "gfx942")], &["gfx942"]);
        let fails = compare(&f, &listed, &procs);
        assert_eq!(fails.len(), 2, "{fails:?}");
        assert!(
            fails[0].starts_with(&format!("a's reason says {examined:?}")),
            "{fails:?}"
        );
        assert!(
            fails[1].starts_with(&format!("b's reason says {reviewed:?}")),
            "{fails:?}"
        );
    }

    #[test]
    fn write_keeps_reasons_and_marks_new_kernels_unreviewed() {
        let listed = parse_list("a\tgfx90a,gfx942\tits tile\nb\tgfx942\tgone\n").unwrap();
        let procs = vec!["gfx942".to_owned()];
        let f = found(&[("a", "gfx942"), ("c", "gfx942")], &["gfx942"]);
        let text = rewrite(&f, &listed, &procs);
        let again = parse_list(&text).unwrap();
        assert_eq!(again["a"].reason, "its tile");
        assert_eq!(again["a"].processors.len(), 2);
        assert!(!again.contains_key("b"));
        assert_eq!(again["c"].reason, UNREVIEWED);
        // And the check refuses the unreviewed line.
        assert!(compare(&f, &again, &procs)
            .iter()
            .any(|m| m.starts_with(&format!("c's reason says {UNREVIEWED:?}"))));
        assert!(text.starts_with("# Kernels of candle-kernels"));
    }
}
