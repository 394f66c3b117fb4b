//! `amd-launches`: candle's launches of the kernels that an AMD build
//! bounds (cudaforge's launch-bound table), read from candle's own
//! sources and held against a committed list (scripts/candle.sh amd).
//!
//! A bound is a promise that no launch of the source's kernels has more
//! threads per block; the table in `dropins/cudaforge/src/bounds.rs` was
//! written from reading candle's launch sites. This check keeps that
//! reading true: it collects every launch configuration that can reach a
//! bounded source's kernels —
//! - the `block_dim:` lines of candle-core's Rust files that load the
//!   quantized module (`QUANTIZED`), and
//! - the `dim3 block...` declarations of the bounded sources' own host
//!   launchers (`mmvq_gguf.cu`, `mmq_gguf/*.cu`, `quantized.cu`) —
//!
//! and compares them with the list, where each one has the most threads
//! it can ask for and the sources whose kernels it launches. A launch site
//! not on the list fails (a new candle reads differently), so does a
//! listed one no longer there, a listed maximum above the bound the build
//! recorded for the source (`bound REL N threads` in cudaforge's report),
//! and a bounded source that no listed launch covers.
//!
//! The list: `FILE<TAB>MAX<TAB>SOURCES<TAB>LINE` lines, `#` comments;
//! FILE relative to candle-core's or candle-kernels' folder
//! (`candle-core/src/quantized/cuda.rs`), SOURCES a comma-separated list
//! of patterns of bounded sources (`mmq_gguf/mmq_instance_*.cu`), LINE the
//! launch line with its blanks collapsed and a macro's trailing `\`
//! dropped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One launch site, as the list names it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Site {
    pub(crate) file: String,
    pub(crate) line: String,
}

/// A listed site: its maximum threads per block and the sources it
/// launches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    pub(crate) max: u32,
    pub(crate) sources: Vec<String>,
}

/// The line as the list keeps it.
pub(crate) fn normalize(line: &str) -> String {
    let line = line.trim().trim_end_matches('\\').trim();
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Parses the list; a site listed twice is counted twice (the same line
/// may launch twice).
pub(crate) fn parse_list(text: &str) -> Result<Vec<(Site, Listed)>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let parts: Vec<&str> = line.splitn(4, '\t').collect();
        let [file, max, sources, code] = parts[..] else {
            return Err(format!(
                "line {}: expected FILE<TAB>MAX<TAB>SOURCES<TAB>LINE: {line}",
                n + 1
            ));
        };
        let max = max
            .parse()
            .map_err(|_| format!("line {}: MAX {max:?} is not a number", n + 1))?;
        out.push((
            Site {
                file: file.to_owned(),
                line: normalize(code),
            },
            Listed {
                max,
                sources: sources.split(',').map(str::to_owned).collect(),
            },
        ));
    }
    Ok(out)
}

/// Whether `pattern` (`*` = any run of characters but `/`) matches `rel`,
/// as cudaforge's bound patterns do.
pub(crate) fn matches(pattern: &str, rel: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((b'*', rest)) => (0..=s.len())
                .take_while(|&i| i == 0 || s[i - 1] != b'/')
                .any(|i| go(rest, &s[i..])),
            Some((c, rest)) => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    go(pattern.as_bytes(), rel.as_bytes())
}

/// The launch lines of one file's text: `block_dim:` in Rust, the
/// `dim3 block`, `dim3 block_dims` and `dim3 block_size` declarations in
/// CUDA.
pub(crate) fn launch_lines(text: &str, rust: bool) -> Vec<String> {
    text.lines()
        .filter(|l| {
            let t = l.trim_start();
            if rust {
                t.starts_with("block_dim:")
            } else {
                ["dim3 block(", "dim3 block_dims(", "dim3 block_size("]
                    .iter()
                    .any(|p| t.trim_start_matches("const ").starts_with(p))
            }
        })
        .map(normalize)
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let p = e.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if p.is_dir() {
            rust_files(&p, out)?;
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
    Ok(())
}

/// Every launch site found: candle-core's Rust files that load the
/// quantized module, and the bounded sources' own launchers.
fn found_sites(
    core_src: &Path,
    kernels_src: &Path,
    bounded: &[String],
) -> Result<Vec<Site>, String> {
    let mut out = Vec::new();
    let mut files = Vec::new();
    rust_files(core_src, &mut files)?;
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        if !text.contains("QUANTIZED") {
            continue;
        }
        let rel = f
            .strip_prefix(core_src)
            .unwrap_or(&f)
            .to_string_lossy()
            .replace('\\', "/");
        for line in launch_lines(&text, true) {
            out.push(Site {
                file: format!("candle-core/src/{rel}"),
                line,
            });
        }
    }
    for rel in bounded {
        let f = kernels_src.join(rel);
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        for line in launch_lines(&text, false) {
            out.push(Site {
                file: format!("candle-kernels/src/{rel}"),
                line,
            });
        }
    }
    out.sort();
    Ok(out)
}

/// Runs the check; the report's lines, and whether it passed.
pub(crate) fn check(
    out_dir: &Path,
    list: &Path,
    processors: &[String],
    core_src: &Path,
    kernels_src: &Path,
) -> Result<(Vec<String>, bool), String> {
    let bounds: BTreeMap<String, u32> = crate::amd_spills::bounds(out_dir, processors)?;
    if bounds.is_empty() {
        return Err(format!(
            "no bounded source in the builds under {}",
            out_dir.display()
        ));
    }
    let text = std::fs::read_to_string(list).map_err(|e| format!("{}: {e}", list.display()))?;
    let listed = parse_list(&text)?;
    let rels: Vec<String> = bounds.keys().cloned().collect();
    let mut found = found_sites(core_src, kernels_src, &rels)?;
    let mut lines = Vec::new();
    let mut ok = true;
    let mut covered: BTreeMap<&str, u32> = BTreeMap::new();
    for (site, l) in &listed {
        match found.iter().position(|f| f == site) {
            Some(i) => {
                found.remove(i);
            }
            None => {
                ok = false;
                lines.push(format!(
                    "FAILED: listed, not in candle's sources: {}: {}",
                    site.file, site.line
                ));
            }
        }
        let mut any = false;
        for (rel, &bound) in &bounds {
            if !l.sources.iter().any(|p| matches(p, rel)) {
                continue;
            }
            any = true;
            let c = covered.entry(rel).or_default();
            *c = (*c).max(l.max);
            if l.max > bound {
                ok = false;
                lines.push(format!(
                    "FAILED: {}: {} launches up to {} threads, above {rel}'s bound {bound}",
                    site.file, site.line, l.max
                ));
            }
        }
        if !any {
            ok = false;
            lines.push(format!(
                "FAILED: {}: {}: its sources {:?} match no bounded source",
                site.file, site.line, l.sources
            ));
        }
    }
    for f in &found {
        ok = false;
        lines.push(format!(
            "FAILED: a launch site not on the list (read it, then list it with its maximum): {}: {}",
            f.file, f.line
        ));
    }
    for rel in bounds.keys() {
        if !covered.contains_key(rel.as_str()) {
            ok = false;
            lines.push(format!(
                "FAILED: bounded source {rel}: no listed launch reaches it"
            ));
        }
    }
    lines.push(format!(
        "{} launch sites of {} bounded sources{}",
        listed.len(),
        bounds.len(),
        if ok { ", each within its bound" } else { "" }
    ));
    Ok((lines, ok))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_lines_of_rust_and_cuda() {
        let rust = "        block_dim: (WARP_SIZE as u32, nwarps, 1),\n  grid_dim: (1, 1, 1),\n";
        assert_eq!(
            launch_lines(rust, true),
            ["block_dim: (WARP_SIZE as u32, nwarps, 1),"]
        );
        let cuda = "    dim3 grid(n, 1, 1);  \\\n    dim3 block(WARP_SIZE, nwarps, 1);    \\\n  const dim3 block_dims(w, n, 1);\n  const dim3 block_nums(a, b, 1);\n";
        assert_eq!(
            launch_lines(cuda, false),
            [
                "dim3 block(WARP_SIZE, nwarps, 1);",
                "const dim3 block_dims(w, n, 1);"
            ]
        );
    }

    #[test]
    fn the_list_parses_and_patterns_match_as_cudaforges() {
        let list = "# c\nx.rs\t256\tquantized.cu,mmq/*.cu\tblock_dim:   (a, 1, 1),\n";
        let l = parse_list(list).unwrap();
        assert_eq!(l[0].0.line, "block_dim: (a, 1, 1),");
        assert_eq!(l[0].1.max, 256);
        assert_eq!(l[0].1.sources, ["quantized.cu", "mmq/*.cu"]);
        assert!(parse_list("x.rs\tmany\ty\tz\n").is_err());
        assert!(parse_list("x.rs\t1\n").is_err());
        assert!(matches(
            "mmq_gguf/mmq_instance_*.cu",
            "mmq_gguf/mmq_instance_q4_k.cu"
        ));
        assert!(!matches("*.cu", "mmq_gguf/x.cu"));
        assert!(matches("quantized.cu", "quantized.cu"));
    }
}
