//! `mistral-amd`: what `scripts/mistral.sh amd` reads back from its build
//! of mistral.rs's kernels for AMD GPUs by the cudaforge drop-in.
//!
//! - `builds OUT_DIRS TARGETS`: the current build folders of each crate
//!   (`CRATE OUT_DIR` lines in OUT_DIRS): of the cudaforge builds of one
//!   set of sources for these targets, the newest (`amd_spills`'s rule).
//! - `kernels JSON`: one build's kernel report (`hip-info kernels --json`)
//!   counted.
//! - `list TARGETS JSON_DIR BUILDS`: one line per source of each build,
//!   built or not, with its kernels and spills per target and the reasons
//!   the drop-in's report gives: the lines of
//!   `benches/mistral/mistral-0.8.1.amd-kernels.txt` (its header is the
//!   script's).
//! - `summary LIST`: that list counted, a line per crate: its sources,
//!   how many built (of them in part) and not.

use crate::amd_spills;
use crate::text;
use crate::Result;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The report of a cudaforge AMD build, in its folder.
const REPORT: &str = "cudaforge-amd-report.txt";

/// `mistral-amd builds|kernels|list|summary ...`.
pub(crate) fn command(rest: &[String]) -> Result<std::process::ExitCode> {
    const USAGE: &str =
        "mistral-amd: builds OUT_DIRS TARGETS | kernels JSON | list TARGETS JSON_DIR BUILDS | summary LIST";
    let targets = |s: &str| -> Vec<String> { s.split(',').map(str::to_owned).collect() };
    let lines = match rest {
        [c, out_dirs, t] if c == "builds" => {
            let out_dirs =
                text::grep_lines(Path::new(out_dirs)).map_err(|e| format!("{out_dirs}: {e}"))?;
            builds(&out_dirs, &targets(t))?
        }
        [c, json] if c == "kernels" => vec![kernel_count(&read_json(Path::new(json))?)?],
        [c, t, json_dir, builds] if c == "list" => {
            let builds = std::fs::read_to_string(builds).map_err(|e| format!("{builds}: {e}"))?;
            list(
                &targets(t),
                Path::new(json_dir),
                &text::split_universal(&builds),
            )?
        }
        [c, list] if c == "summary" => {
            let text = std::fs::read_to_string(list).map_err(|e| format!("{list}: {e}"))?;
            summary(&text)
        }
        _ => return Err(USAGE.into()),
    };
    crate::print_lines(&lines);
    Ok(std::process::ExitCode::SUCCESS)
}

/// The kernel list's counts per crate, sorted: `CRATE: N sources, N
/// built, N of them in part, N not built` (RESULT, the third column, is
/// `not built`, or holds `in part`).
pub(crate) fn summary(list: &str) -> Vec<String> {
    // Sources, not built, built in part.
    let mut crates: BTreeMap<&str, [usize; 3]> = BTreeMap::new();
    for line in list.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let n = crates.entry(fields[0]).or_default();
        n[0] += 1;
        match fields.get(2).copied().unwrap_or("") {
            "not built" => n[1] += 1,
            r if r.contains("in part") => n[2] += 1,
            _ => {}
        }
    }
    let mut lines: Vec<String> = crates
        .iter()
        .map(|(c, [all, not_built, part])| {
            format!(
                "{c}: {all} sources, {} built, {part} of them in part, {not_built} not built",
                all - not_built
            )
        })
        .collect();
    lines.sort();
    lines
}

fn read_json(path: &Path) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// `CRATE DIR` per current build folder of each crate of `out_dirs`
/// (`CRATE OUT_DIR` lines), oldest first; a crate without one fails,
/// naming the folder it looked in.
pub(crate) fn builds(out_dirs: &[String], targets: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for line in out_dirs.iter().filter(|l| !l.trim().is_empty()) {
        let (krate, dir) = line
            .trim()
            .split_once(|c: char| c.is_ascii_whitespace())
            .ok_or_else(|| format!("not `CRATE OUT_DIR`: {line}"))?;
        let dir = dir.trim();
        let mut found: Vec<(std::time::SystemTime, PathBuf)> =
            amd_spills::current_builds(Path::new(dir), targets)?
                .into_values()
                .map(|b| (b.when, b.dir))
                .collect();
        if found.is_empty() {
            return Err(format!(
                "{krate}: no finished AMD build for {} in {dir}/cudaforge-amd",
                targets.join(",")
            ));
        }
        found.sort();
        out.extend(
            found
                .into_iter()
                .map(|(_, d)| format!("{krate} {}", d.display())),
        );
    }
    Ok(out)
}

/// `N kernel instances in M objects with GPU code` of a kernel report.
pub(crate) fn kernel_count(report: &serde_json::Value) -> Result<String> {
    let files = report["files"]
        .as_array()
        .ok_or("the kernel report has no files")?;
    let instances: usize = files
        .iter()
        .map(|f| f["kernels"].as_array().map_or(0, Vec::len))
        .sum();
    Ok(format!(
        "{instances} kernel instances in {} objects with GPU code",
        files.len()
    ))
}

/// The list's lines (sorted), from the builds (`CRATE DIR` lines) and
/// their kernel reports, `JSON_DIR/CRATE-<DIR's name>.json`.
pub(crate) fn list(targets: &[String], json_dir: &Path, builds: &[String]) -> Result<Vec<String>> {
    let mut lines = Vec::new();
    for b in builds {
        let (krate, dir) = b
            .split_once(' ')
            .ok_or_else(|| format!("not `CRATE DIR`: {b:?}"))?;
        let key = dir.rsplit('/').next().unwrap_or(dir);
        let info = read_json(&json_dir.join(format!("{krate}-{key}.json")))?;
        let mut per_obj: BTreeMap<&str, &[serde_json::Value]> = BTreeMap::new();
        let files = info["files"]
            .as_array()
            .ok_or_else(|| format!("{krate}: the kernel report of {dir} has no files"))?;
        for f in files {
            let path = &f["path"];
            let path = path
                .as_str()
                .map_or_else(|| path.to_string(), str::to_owned);
            if let Some(e) = f.get("error") {
                let e = e.as_str().map_or_else(|| e.to_string(), str::to_owned);
                return Err(format!("{krate}: {path}: {e}"));
            }
            let kernels = f["kernels"]
                .as_array()
                .ok_or_else(|| format!("{krate}: {path}: no kernels"))?;
            let name = f["path"].as_str().unwrap_or("").rsplit('/').next();
            per_obj.insert(name.unwrap_or(""), kernels);
        }
        let report_path = Path::new(dir).join(REPORT);
        let report = text::split_universal(
            &std::fs::read_to_string(&report_path)
                .map_err(|e| format!("{}: {e}", report_path.display()))?,
        );
        // Per source, per reason, the launchers not built.
        let mut unavailable: BTreeMap<&str, BTreeMap<String, Vec<&str>>> = BTreeMap::new();
        for l in &report {
            if let Some((name, rel, why)) = unavailable_line(l) {
                unavailable
                    .entry(rel)
                    .or_default()
                    .entry(normalize(why))
                    .or_default()
                    .push(name);
            }
        }
        let sources = report.iter().filter(|l| l.starts_with("source "));
        for (i, l) in sources.enumerate() {
            let mut words = l.split(' ').skip(1);
            let (Some(rel), Some(arch)) = (words.next(), words.next()) else {
                return Err(format!(
                    "{}: not `source REL ARCH`: {l}",
                    report_path.display()
                ));
            };
            let arch = arch
                .split_once('=')
                .map(|(_, a)| a)
                .ok_or_else(|| format!("{}: no `=` in {arch:?}: {l}", report_path.display()))?;
            let stem = py_stem(rel);
            let kernels = per_obj
                .get(format!("{i:03}-{stem}.o").as_str())
                .or_else(|| per_obj.get(format!("{stem}.bundle").as_str()))
                .copied()
                .unwrap_or_default();
            let mut counts = Vec::new();
            for t in targets {
                let mut n = 0;
                let mut spilling = 0;
                for k in kernels {
                    let target = k["target"].as_str().unwrap_or("");
                    if processor(target) == t {
                        n += 1;
                        spilling += spills(&k["spills"]).ok_or_else(|| {
                            format!("{krate}: {rel}: a kernel's spills is not a count")
                        })?;
                    }
                }
                counts.push(format!("{t} {n} kernels, {spilling} spilling"));
            }
            let why: Vec<String> = unavailable
                .get(rel)
                .into_iter()
                .flatten()
                .map(|(why, names)| {
                    let mut names = names.clone();
                    names.sort_unstable();
                    format!("{}: {why}", names.join(", "))
                })
                .collect();
            let why = why.join("; ");
            let (status, detail) = if arch == "none" {
                ("not built".to_owned(), why)
            } else if !why.is_empty() {
                (
                    format!("built at __CUDA_ARCH__={arch}, in part"),
                    format!("{}; unavailable: {why}", counts.join("; ")),
                )
            } else {
                (format!("built at __CUDA_ARCH__={arch}"), counts.join("; "))
            };
            lines.push([krate, rel, &status, &detail].join("\t"));
        }
    }
    lines.sort();
    Ok(lines)
}

/// The processor of a kernel's target (`gfx942:sramecc+:xnack-` ->
/// `gfx942`), as `KernelInfo::processor` reads it.
fn processor(target: &str) -> &str {
    target.split(':').next().unwrap_or(target)
}

/// A kernel's `spills` (`true`/`false`, or a count) as a count.
fn spills(v: &serde_json::Value) -> Option<u64> {
    v.as_bool().map(u64::from).or_else(|| v.as_u64())
}

/// `unavailable NAME (REL): WHY`: the launcher, its source and the reason.
fn unavailable_line(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.strip_prefix("unavailable ")?;
    let name_end = rest.find(char::is_whitespace)?;
    let (name, rest) = rest.split_at(name_end);
    let rest = rest.strip_prefix(" (")?;
    let rel_end = rest.find(char::is_whitespace)?;
    let (token, rest) = rest.split_at(rel_end);
    let rel = token.strip_suffix("):")?;
    let why = rest.strip_prefix(' ')?;
    (!name.is_empty() && !rel.is_empty()).then_some((name, rel, why))
}

/// A reason without the paths that change from build to build: the
/// layer's headers in the build folder (`.../cudaforge-amd/KEY/include/`
/// becomes `<layer>/`) and cargo's registry (`.../registry/src/INDEX/`
/// goes).
fn normalize(why: &str) -> String {
    let layer = replace_token_prefix(why, layer_include, "<layer>/");
    replace_token_prefix(&layer, registry_src, "")
}

/// `/cudaforge-amd/HEX/include/` or `/cudaforge-amd/HEX.partial-N/include/`
/// at the start of `s`: its length.
fn layer_include(s: &str) -> Option<usize> {
    let rest = s.strip_prefix("/cudaforge-amd/")?;
    let hex = rest
        .find(|c: char| !matches!(c, '0'..='9' | 'a'..='f'))
        .unwrap_or(rest.len());
    if hex == 0 {
        return None;
    }
    let mut tail = &rest[hex..];
    if let Some(partial) = tail.strip_prefix(".partial-") {
        let digits = partial
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(partial.len());
        if digits == 0 {
            return None;
        }
        tail = &partial[digits..];
    }
    let end = tail.strip_prefix("/include/")?;
    Some(s.len() - end.len())
}

/// `/registry/src/INDEX/` at the start of `s`: its length.
fn registry_src(s: &str) -> Option<usize> {
    let rest = s.strip_prefix("/registry/src/")?;
    let index = rest.find('/').filter(|&n| n > 0)?;
    Some(s.len() - rest.len() + index + 1)
}

/// `s` with each match of `\S*P` replaced by `with`, as Python's `re.sub`
/// replaces them, `P` (which starts with `/`) matched at the start of a
/// string by `at`: the match starts where its run of non-space characters
/// does (not before the last match's end) and runs to the end of the last
/// `P` that starts in that run.
fn replace_token_prefix(s: &str, at: impl Fn(&str) -> Option<usize>, with: &str) -> String {
    let starts = |from: usize, to: usize| (from..=to).filter(|&j| s.is_char_boundary(j));
    let mut out = String::new();
    let mut pos = 0;
    while let Some(first) = starts(pos, s.len()).find(|&j| at(&s[j..]).is_some()) {
        let run_start = s[pos..first].rfind(char::is_whitespace).map_or(pos, |k| {
            pos + k + s[pos + k..].chars().next().map_or(1, char::len_utf8)
        });
        let run_end = s[first..]
            .find(char::is_whitespace)
            .map_or(s.len(), |k| first + k);
        let last = starts(first, run_end)
            .rev()
            .find(|&j| at(&s[j..]).is_some())
            .unwrap_or(first);
        out.push_str(&s[pos..run_start]);
        out.push_str(with);
        pos = last + at(&s[last..]).unwrap_or(0);
    }
    out.push_str(&s[pos..]);
    out
}

/// A file name's stem as Python's `os.path.splitext` gives it: up to the
/// last `.`, unless only dots are before it (`.hidden`).
fn py_stem(rel: &str) -> &str {
    let base = rel.rsplit('/').next().unwrap_or(rel);
    match base.rfind('.') {
        Some(dot) if base[..dot].chars().any(|c| c != '.') => &base[..dot],
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn the_list_is_counted_per_crate_as_sort_orders_the_lines() {
        // What mistral.sh's awk and sort printed for these lines.
        let list = "# header: `..., in part` when names are missing
mistralrs-quant\tmarlin/marlin_kernel.cu\tbuilt at __CUDA_ARCH__=800, in part\tgfx942 1 kernels, 0 spilling
mistralrs-core\tsort.cu\tbuilt at __CUDA_ARCH__=890\tgfx942 20 kernels, 0 spilling
mistralrs-core\tmoe_gemm.cu\tnot built\tmoe_gemm: uses inline PTX assembly
mistralrs-paged-attn\tflash_attn_sinks.cu\tbuilt at __CUDA_ARCH__=890\tgfx942 42 kernels
mistralrs-quant\tbitsandbytes/kernels.cu\tbuilt at __CUDA_ARCH__=890\tgfx942 9 kernels
mistralrs\tx.cu\tnot built\tx
";
        assert_eq!(
            summary(list),
            [
                "mistralrs-core: 2 sources, 1 built, 0 of them in part, 1 not built",
                "mistralrs-paged-attn: 1 sources, 1 built, 0 of them in part, 0 not built",
                "mistralrs-quant: 2 sources, 2 built, 1 of them in part, 0 not built",
                "mistralrs: 1 sources, 0 built, 0 of them in part, 1 not built",
            ]
        );
    }

    /// A scratch folder of this test (removed at its end).
    fn scratch(name: &str) -> PathBuf {
        #[allow(clippy::disallowed_methods)] // a few small files, removed by each test
        let d = std::env::temp_dir().join(format!("xtask-mistral-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A build folder `OUT/cudaforge-amd/KEY` whose report, written at
    /// `secs` past the epoch, names `targets` and `sources`.
    fn build(out: &Path, key: &str, targets: &str, sources: &[&str], secs: u64) -> PathBuf {
        let dir = out.join("cudaforge-amd").join(key);
        std::fs::create_dir_all(&dir).unwrap();
        let mut report = format!("# hip-rs cudaforge drop-in: AMD build\n# targets: {targets}\n");
        for s in sources {
            report.push_str(&format!("source {s} __CUDA_ARCH__=890\n"));
        }
        let path = dir.join(REPORT);
        std::fs::write(&path, report).unwrap();
        let f = std::fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
            .unwrap();
        dir
    }

    fn strings(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_newest_build_of_each_source_set_for_the_targets() {
        let root = scratch("builds");
        let (quant, core) = (root.join("quant"), root.join("core"));
        let targets = strings(&["gfx942", "gfx1100"]);
        // quant: two builds of one source set (the newer counts), one of
        // another set, one for other targets, one unfinished.
        build(&quant, "aa01", "gfx942 gfx1100", &["a.cu", "b.cu"], 100);
        let newer = build(&quant, "aa02", "gfx942 gfx1100", &["a.cu", "b.cu"], 200);
        let other = build(&quant, "bb01", "gfx942 gfx1100", &["a.cu"], 150);
        build(&quant, "cc01", "gfx90a", &["a.cu", "b.cu"], 300);
        build(
            &quant,
            "dd01.partial-77",
            "gfx942 gfx1100",
            &["a.cu", "b.cu"],
            400,
        );
        std::fs::create_dir_all(quant.join("cudaforge-amd/ee01/obj")).unwrap();
        let only = build(&core, "ff01", "gfx942 gfx1100", &["sort.cu"], 50);
        let out_dirs = vec![
            format!("mistralrs-quant {}", quant.display()),
            format!("mistralrs-core {}", core.display()),
        ];
        assert_eq!(
            builds(&out_dirs, &targets).unwrap(),
            [
                // Oldest first, per crate.
                format!("mistralrs-quant {}", other.display()),
                format!("mistralrs-quant {}", newer.display()),
                format!("mistralrs-core {}", only.display()),
            ]
        );
        // A crate with no finished build for these targets fails, naming
        // the folder; so does one whose OUT_DIR has no builds at all.
        let err = builds(&out_dirs, &strings(&["gfx1030"])).unwrap_err();
        assert_eq!(
            err,
            format!(
                "mistralrs-quant: no finished AMD build for gfx1030 in {}/cudaforge-amd",
                quant.display()
            )
        );
        let empty = root.join("paged-attn");
        let err = builds(
            &[format!("mistralrs-paged-attn {}", empty.display())],
            &targets,
        )
        .unwrap_err();
        assert_eq!(
            err,
            format!(
                "mistralrs-paged-attn: no finished AMD build for gfx942,gfx1100 in {}/cudaforge-amd",
                empty.display()
            )
        );
        assert!(builds(&strings(&["no-out-dir"]), &targets).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn a_kernel_report_counted() {
        let report = serde_json::json!({
            "files": [
                {"path": "/b/obj/000-gdn.o", "kernels": [{"name": "a"}, {"name": "b"}]},
                {"path": "/b/obj/001-sort.o", "kernels": [{"name": "c"}]},
                {"path": "/b/obj/002-bad.o", "error": "not an ELF"},
            ],
            "summary": {},
        });
        assert_eq!(
            kernel_count(&report).unwrap(),
            "3 kernel instances in 3 objects with GPU code"
        );
        assert!(kernel_count(&serde_json::json!({})).is_err());
    }

    #[test]
    fn reasons_lose_the_paths_that_change_between_builds() {
        let why = "uses inline PTX assembly, which only NVIDIA GPUs run (first error: \
            /t/build/mistralrs-core-1/out/cudaforge-amd/0a9f.partial-4242/include/cuda_fp16.h:12:3: \
            error: x; /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/mistralrs-core-0.8.1/src/cuda/moe_utils.h:21:45: error: y)";
        assert_eq!(
            normalize(why),
            "uses inline PTX assembly, which only NVIDIA GPUs run (first error: \
            <layer>/cuda_fp16.h:12:3: error: x; mistralrs-core-0.8.1/src/cuda/moe_utils.h:21:45: error: y)"
        );
        // `\S*` is greedy: in one word, up to the last match.
        assert_eq!(
            normalize("(a/cudaforge-amd/ab/include/b/cudaforge-amd/cd/include/c.h x"),
            "<layer>/c.h x"
        );
        // Not a key (upper case), no include/, no index folder: kept.
        for kept in [
            "/o/cudaforge-amd/AB/include/x.h",
            "/o/cudaforge-amd/ab/x.h",
            "/o/cudaforge-amd/ab.partial-/include/x.h",
            "/c/registry/src/index",
            "./moe_utils.h:21:45: error: invalid output constraint '=h' in asm",
        ] {
            assert_eq!(normalize(kept), kept);
        }
    }

    #[test]
    fn unavailable_lines_and_names() {
        assert_eq!(
            unavailable_line(
                "unavailable moe_gemm (moe_gemm.cu): uses inline PTX (first error: x)"
            ),
            Some((
                "moe_gemm",
                "moe_gemm.cu",
                "uses inline PTX (first error: x)"
            ))
        );
        assert_eq!(
            unavailable_line("unavailable k (marlin/a.cu):  two spaces"),
            Some(("k", "marlin/a.cu", " two spaces"))
        );
        assert_eq!(unavailable_line("unavailable k (a.cu) : x"), None);
        assert_eq!(unavailable_line("unavailable k a.cu): x"), None);
        assert_eq!(unavailable_line("source a.cu __CUDA_ARCH__=890"), None);
        assert_eq!(py_stem("marlin/marlin_kernel.cu"), "marlin_kernel");
        assert_eq!(py_stem("a.b.cu"), "a.b");
        assert_eq!(py_stem("dir.x/.hidden"), ".hidden");
        assert_eq!(py_stem("noext"), "noext");
        assert_eq!(processor("gfx942"), "gfx942");
        assert_eq!(processor("gfx942:sramecc+:xnack-"), "gfx942");
    }

    /// mistralrs-core's report from `mistral.sh amd` (gfx942 and gfx1100).
    const CORE_REPORT: &str = "\
# hip-rs cudaforge drop-in: AMD build
# compiler: Debian clang version 21.1.8 (14)
# targets: gfx942 gfx1100
source gdn.cu __CUDA_ARCH__=890
source moe_gemm.cu __CUDA_ARCH__=none
source moe_gemm_wmma.cu __CUDA_ARCH__=none
source moe_gemv.cu __CUDA_ARCH__=none
source sort.cu __CUDA_ARCH__=890
source ssm.cu __CUDA_ARCH__=890
unavailable moe_gemm (moe_gemm.cu): uses inline PTX assembly, which only NVIDIA GPUs run (first error: ./moe_utils.h:21:45: error: invalid output constraint '=h' in asm)
unavailable moe_gemm_transposed (moe_gemm.cu): uses inline PTX assembly, which only NVIDIA GPUs run (first error: ./moe_utils.h:21:45: error: invalid output constraint '=h' in asm)
unavailable moe_gemm_wmma (moe_gemm_wmma.cu): uses WMMA tensor-core fragments (nvcuda::wmma), which HIP does not provide (first error: ./moe_utils.h:21:45: error: invalid output constraint '=h' in asm)
unavailable moe_gemm_wmma_transposed (moe_gemm_wmma.cu): uses WMMA tensor-core fragments (nvcuda::wmma), which HIP does not provide (first error: ./moe_utils.h:21:45: error: invalid output constraint '=h' in asm)
unavailable moe_gemv (moe_gemv.cu): uses inline PTX assembly, which only NVIDIA GPUs run (first error: ./moe_utils.h:21:45: error: invalid output constraint '=h' in asm)
unavailable moe_gemv_transposed (moe_gemv.cu): uses inline PTX assembly, which only NVIDIA GPUs run (first error: ./moe_utils.h:21:45: error: invalid output constraint '=h' in asm)
";

    /// `n` kernels per target of `obj` (the first `spilling` of each
    /// spill), as `hip-info kernels --json` lists them.
    fn object(dir: &Path, obj: &str, n: usize, spilling: usize) -> serde_json::Value {
        let kernels: Vec<serde_json::Value> = ["gfx1100", "gfx942"]
            .iter()
            .flat_map(|t| {
                (0..n).map(move |i| {
                    serde_json::json!({"name": format!("k{i}"), "target": t, "spills": i < spilling})
                })
            })
            .collect();
        serde_json::json!({"path": dir.join("obj").join(obj), "kernels": kernels})
    }

    #[test]
    fn the_kernel_list_of_real_reports() {
        let root = scratch("list");
        let json_dir = root.join("amd-kernels");
        std::fs::create_dir_all(&json_dir).unwrap();
        let core = root.join("core/out/cudaforge-amd/e1b51cab148a3697b37b5551eaf79696");
        std::fs::create_dir_all(&core).unwrap();
        std::fs::write(core.join(REPORT), CORE_REPORT).unwrap();
        // The stubs of the sources not built hold no GPU code: not listed.
        let files = [
            object(&core, "000-gdn.o", 13, 4),
            object(&core, "004-sort.o", 20, 0),
            object(&core, "005-ssm.o", 4, 0),
        ];
        std::fs::write(
            json_dir.join("mistralrs-core-e1b51cab148a3697b37b5551eaf79696.json"),
            serde_json::json!({"files": files, "summary": {}}).to_string(),
        )
        .unwrap();
        // A PTX build (`<stem>.bundle`), built in part, its reason holding
        // the paths that change between builds.
        let ptx = root.join("pa/out/cudaforge-amd/56d7");
        std::fs::create_dir_all(&ptx).unwrap();
        std::fs::write(
            ptx.join(REPORT),
            format!(
                "# targets: gfx942 gfx1100\n\
                 source attention/paged.cu __CUDA_ARCH__=800\n\
                 unavailable fp8_b (attention/paged.cu): no fp8 (first error: {0}/o/cudaforge-amd/56d7.partial-9/include/cuda_fp8.h:3:1: error: x)\n\
                 unavailable fp8_a (attention/paged.cu): no fp8 (first error: {0}/o/cudaforge-amd/56d7/include/cuda_fp8.h:3:1: error: x)\n",
                root.display()
            ),
        )
        .unwrap();
        std::fs::write(
            json_dir.join("mistralrs-paged-attn-56d7.json"),
            serde_json::json!({"files": [object(&ptx, "paged.bundle", 2, 1)]}).to_string(),
        )
        .unwrap();
        let builds = [
            format!("mistralrs-paged-attn {}", ptx.display()),
            format!("mistralrs-core {}", core.display()),
        ];
        let targets = strings(&["gfx942", "gfx1100"]);
        // mistralrs-core's lines are benches/mistral/mistral-0.8.1.amd-kernels.txt's.
        assert_eq!(
            list(&targets, &json_dir, &builds).unwrap(),
            [
                "mistralrs-core\tgdn.cu\tbuilt at __CUDA_ARCH__=890\tgfx942 13 kernels, 4 spilling; gfx1100 13 kernels, 4 spilling",
                "mistralrs-core\tmoe_gemm.cu\tnot built\tmoe_gemm, moe_gemm_transposed: uses inline PTX assembly, which only NVIDIA GPUs run (first error: ./moe_utils.h:21:45: error: invalid output constraint '=h' in asm)",
                "mistralrs-core\tmoe_gemm_wmma.cu\tnot built\tmoe_gemm_wmma, moe_gemm_wmma_transposed: uses WMMA tensor-core fragments (nvcuda::wmma), which HIP does not provide (first error: ./moe_utils.h:21:45: error: invalid output constraint '=h' in asm)",
                "mistralrs-core\tmoe_gemv.cu\tnot built\tmoe_gemv, moe_gemv_transposed: uses inline PTX assembly, which only NVIDIA GPUs run (first error: ./moe_utils.h:21:45: error: invalid output constraint '=h' in asm)",
                "mistralrs-core\tsort.cu\tbuilt at __CUDA_ARCH__=890\tgfx942 20 kernels, 0 spilling; gfx1100 20 kernels, 0 spilling",
                "mistralrs-core\tssm.cu\tbuilt at __CUDA_ARCH__=890\tgfx942 4 kernels, 0 spilling; gfx1100 4 kernels, 0 spilling",
                "mistralrs-paged-attn\tattention/paged.cu\tbuilt at __CUDA_ARCH__=800, in part\tgfx942 2 kernels, 1 spilling; gfx1100 2 kernels, 1 spilling; unavailable: fp8_a, fp8_b: no fp8 (first error: <layer>/cuda_fp8.h:3:1: error: x)",
            ]
        );
        // A target not built: no kernels.
        let gfx90a = list(&strings(&["gfx90a"]), &json_dir, &builds[1..]).unwrap();
        assert!(
            gfx90a[0].ends_with("\tgfx90a 0 kernels, 0 spilling"),
            "{gfx90a:?}"
        );
        // An object the kernel report could not read fails, naming it.
        let bad = json_dir.join("mistralrs-core-e1b51cab148a3697b37b5551eaf79696.json");
        std::fs::write(
            &bad,
            r#"{"files": [{"path": "/b/obj/004-sort.o", "error": "not an ELF"}]}"#,
        )
        .unwrap();
        assert_eq!(
            list(&targets, &json_dir, &builds).unwrap_err(),
            "mistralrs-core: /b/obj/004-sort.o: not an ELF"
        );
        std::fs::write(&bad, "{}").unwrap();
        assert_eq!(
            list(&targets, &json_dir, &builds[1..]).unwrap_err(),
            format!(
                "mistralrs-core: the kernel report of {} has no files",
                core.display()
            )
        );
        assert!(list(&targets, &json_dir, &strings(&["no-dir"])).is_err());
        let _ = std::fs::remove_dir_all(&root);
    }
}
