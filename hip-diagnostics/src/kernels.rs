//! `hip-info kernels`: what each kernel of a build's AMD code objects uses
//! (registers, spills, scratch, LDS, maximum workgroup, waves per SIMD), as
//! a table or JSON. The reading is `hip::code_object::kernels`; this module
//! finds the files and lays the answer out.

use hip::code_object::{kernels, Envelope, KernelInfo, SpillSummary};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One file read, and what it held.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelFile {
    /// The file.
    pub path: PathBuf,
    /// Its kernels, or why it could not be read.
    pub kernels: Result<Vec<KernelInfo>, String>,
}

/// What `hip-info kernels` read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelReport {
    /// Every file, in the order given (a folder's files sorted by name).
    pub files: Vec<KernelFile>,
}

impl KernelReport {
    /// Reads `paths`. A file that is none of the formats
    /// `hip::code_object::kernels` reads is an error in the report; a
    /// folder stands for the files directly inside it, of which those that
    /// hold no AMD GPU code (sources, host-only objects) are passed over.
    pub fn read(paths: &[PathBuf]) -> KernelReport {
        let mut files = Vec::new();
        for path in paths {
            if path.is_dir() {
                let mut inside: Vec<PathBuf> = match std::fs::read_dir(path) {
                    Ok(d) => d.filter_map(|e| e.ok().map(|e| e.path())).collect(),
                    Err(e) => {
                        files.push(KernelFile {
                            path: path.clone(),
                            kernels: Err(format!("cannot list the folder: {e}")),
                        });
                        continue;
                    }
                };
                inside.sort();
                files.extend(
                    inside
                        .iter()
                        .filter(|p| p.is_file())
                        .filter_map(|p| read_file(p, true)),
                );
            } else {
                files.extend(read_file(path, false));
            }
        }
        KernelReport { files }
    }

    /// Every kernel read, in order.
    pub fn all(&self) -> Vec<KernelInfo> {
        self.files
            .iter()
            .filter_map(|f| f.kernels.as_ref().ok())
            .flatten()
            .cloned()
            .collect()
    }

    /// Whether some file could not be read.
    pub fn has_errors(&self) -> bool {
        self.files.iter().any(|f| f.kernels.is_err())
    }

    /// The table: per file, one line per kernel (only the spilling ones
    /// when `spilling_only`), then the spill summary.
    pub fn to_text(&self, spilling_only: bool) -> String {
        let mut s = String::new();
        for f in &self.files {
            match &f.kernels {
                Err(e) => {
                    let _ = writeln!(s, "{}: error: {e}\n", f.path.display());
                }
                Ok(ks) => {
                    let shown: Vec<&KernelInfo> =
                        ks.iter().filter(|k| !spilling_only || k.spills()).collect();
                    let _ = writeln!(
                        s,
                        "{}: kernel instances: {}, spilling: {}",
                        f.path.display(),
                        ks.len(),
                        ks.iter().filter(|k| k.spills()).count()
                    );
                    if !shown.is_empty() {
                        s += &table(&shown);
                    }
                    s.push('\n');
                }
            }
        }
        let _ = writeln!(s, "{}", SpillSummary::of(&self.all()));
        s
    }

    /// The report as JSON: `files` (each `path` with `kernels` or
    /// `error`) and `summary` (`instances`, `spilling`, `by_processor`).
    #[cfg(feature = "json")]
    pub fn to_json(&self, spilling_only: bool) -> String {
        use serde_json::{json, Map, Value};
        let files: Vec<Value> = self
            .files
            .iter()
            .map(|f| match &f.kernels {
                Err(e) => json!({ "path": f.path.display().to_string(), "error": e }),
                Ok(ks) => json!({
                    "path": f.path.display().to_string(),
                    "kernels": ks
                        .iter()
                        .filter(|k| !spilling_only || k.spills())
                        .map(|k| json!({
                            "target": k.target,
                            "name": k.name,
                            "wavefront_size": k.wavefront_size,
                            "vgprs": k.vgprs,
                            "sgprs": k.sgprs,
                            "agprs": k.agprs,
                            "vgpr_spills": k.vgpr_spills,
                            "sgpr_spills": k.sgpr_spills,
                            "spills": k.spills(),
                            "scratch_bytes": k.scratch_bytes,
                            "dynamic_stack": k.dynamic_stack,
                            "lds_bytes": k.lds_bytes,
                            "max_workgroup_size": k.max_workgroup_size,
                            "waves_per_simd": k.waves_per_simd,
                            "vgpr_cap": k.vgpr_cap,
                        }))
                        .collect::<Vec<_>>(),
                }),
            })
            .collect();
        let summary = SpillSummary::of(&self.all());
        let by: Map<String, Value> = summary
            .by_processor
            .iter()
            .map(|(p, n)| (p.clone(), json!(n)))
            .collect();
        json!({
            "files": files,
            "summary": {
                "instances": summary.instances,
                "spilling": summary.spilling,
                "by_processor": by,
            },
        })
        .to_string()
    }
}

/// One file; `None` for a file inside a folder that holds no GPU code.
fn read_file(path: &Path, in_folder: bool) -> Option<KernelFile> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            return Some(KernelFile {
                path: path.to_owned(),
                kernels: Err(format!("cannot read it: {e}")),
            })
        }
    };
    match kernels(&bytes) {
        Ok(ks) => Some(KernelFile {
            path: path.to_owned(),
            kernels: Ok(ks),
        }),
        // In a folder: text and host-only objects are not what was asked
        // about; a broken code object, bundle or envelope is.
        Err(e) if in_folder && e.kind.is_none() && !looks_like_envelope(&bytes) => None,
        Err(e) => Some(KernelFile {
            path: path.to_owned(),
            kernels: Err(e.to_string()),
        }),
    }
}

fn looks_like_envelope(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(80)];
    let text = match std::str::from_utf8(head) {
        Ok(t) => t,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).unwrap_or_default(),
    };
    Envelope::is_envelope(text)
}

/// The columns, the kernel's name last (mangled names are long).
fn table(ks: &[&KernelInfo]) -> String {
    let opt = |v: Option<u32>| v.map_or("-".to_owned(), |v| v.to_string());
    let rows: Vec<[String; 11]> = ks
        .iter()
        .map(|k| {
            [
                k.target.clone(),
                k.vgprs.to_string(),
                k.sgprs.to_string(),
                opt(k.agprs),
                format!("{}/{}", k.vgpr_spills, k.sgpr_spills),
                format!(
                    "{}{}",
                    k.scratch_bytes,
                    if k.dynamic_stack { "+" } else { "" }
                ),
                k.lds_bytes.to_string(),
                k.max_workgroup_size.to_string(),
                opt(k.waves_per_simd),
                opt(k.vgpr_cap),
                k.name.clone(),
            ]
        })
        .collect();
    let header = [
        "target",
        "VGPR",
        "SGPR",
        "AGPR",
        "spill v/s",
        "scratch",
        "LDS",
        "max WG",
        "waves",
        "VGPR cap",
        "kernel",
    ];
    let mut width: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let mut s = String::new();
    let mut line = |cells: &[&str]| {
        let mut l = String::from("  ");
        for (i, c) in cells.iter().enumerate() {
            let w = width[i];
            if i == 0 {
                let _ = write!(l, "{c:<w$}");
            } else if i == cells.len() - 1 {
                let _ = write!(l, "  {c}");
            } else {
                let _ = write!(l, "  {c:>w$}");
            }
        }
        s += l.trim_end();
        s.push('\n');
    };
    line(&header);
    for r in &rows {
        let cells: Vec<&str> = r.iter().map(String::as_str).collect();
        line(&cells);
    }
    s
}
