//! The sources an AMD build compiles: a copy of the crate's C and C++
//! files with their inline PTX translated (`hip_cuda_layer::ptx`), so that
//! a source whose `asm` statements are known idioms compiles for AMD as
//! written, and one with an unknown instruction fails naming it.
//!
//! The copy is of the whole crate (`CARGO_MANIFEST_DIR`, else the
//! sources' folder), its folder layout kept, so `#include "../x.cuh"`
//! resolves as in the original. Include folders outside it are used as
//! they are.

use crate::error::Result;
use std::path::{Path, PathBuf};

/// Where the translated sources are.
#[derive(Debug, Clone)]
pub(crate) struct Mirror {
    /// The sources' folder in the copy.
    pub(crate) root: PathBuf,
    /// The include folders, those inside the crate mapped into the copy.
    pub(crate) includes: Vec<PathBuf>,
    /// Per file (relative to the crate) with translated statements: the
    /// instruction forms.
    pub(crate) translated: Vec<(PathBuf, Vec<String>)>,
    /// Per file with untranslated PTX: the instructions.
    pub(crate) untranslated: Vec<(PathBuf, Vec<String>)>,
}

/// The files copied: C, C++ and CUDA sources and headers.
const EXTENSIONS: &[&str] = &[
    "cu", "cuh", "h", "hh", "hpp", "hxx", "inc", "inl", "ipp", "tcc", "c", "cc", "cpp", "cxx",
    "def",
];

/// Copies the crate holding `root` into `into`, translating inline PTX.
pub(crate) fn mirror(root: &Path, includes: &[PathBuf], into: &Path) -> Result<Mirror> {
    let crate_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .filter(|d| root.starts_with(d))
        .unwrap_or_else(|| root.to_path_buf());
    let mut m = Mirror {
        root: into.join(root.strip_prefix(&crate_dir).unwrap_or(Path::new(""))),
        includes: includes
            .iter()
            .map(|i| match i.strip_prefix(&crate_dir) {
                Ok(rel) => into.join(rel),
                Err(_) => i.clone(),
            })
            .collect(),
        translated: Vec::new(),
        untranslated: Vec::new(),
    };
    copy(&crate_dir, into, Path::new(""), &mut m)?;
    Ok(m)
}

fn copy(from: &Path, to: &Path, rel: &Path, m: &mut Mirror) -> Result<()> {
    std::fs::create_dir_all(to)?;
    let mut entries: Vec<_> = std::fs::read_dir(from)?.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name();
        let path = e.path();
        let rel = rel.join(&name);
        let kind = e.file_type()?;
        if kind.is_dir() {
            // Build output and version control hold no sources.
            let n = name.to_string_lossy();
            if n == "target" || n.starts_with('.') {
                continue;
            }
            copy(&path, &to.join(&name), &rel, m)?;
        } else if path
            .extension()
            .is_some_and(|x| EXTENSIONS.contains(&x.to_string_lossy().as_ref()))
        {
            let bytes = std::fs::read(&path)?;
            let out = to.join(&name);
            match std::str::from_utf8(&bytes) {
                Ok(text) => {
                    let t = hip_cuda_layer::ptx::translate(text);
                    let mut done = t.translated;
                    done.extend(t.cxx.iter().map(|c| format!("`{c}` as decltype")));
                    if !done.is_empty() {
                        m.translated.push((rel.clone(), done));
                    }
                    if !t.untranslated.is_empty() {
                        m.untranslated.push((rel.clone(), t.untranslated));
                    }
                    std::fs::write(out, t.text)?;
                }
                Err(_) => {
                    std::fs::write(out, bytes)?;
                }
            }
        }
    }
    Ok(())
}

/// The report's lines on the translation: `ptx FILE: N instructions
/// translated (FORMS)` (C++ rewrites counted with them) and `ptx FILE:
/// untranslated INSTRUCTION`.
pub(crate) fn report_lines(m: &Mirror) -> Vec<String> {
    let mut out = Vec::new();
    for (file, forms) in &m.translated {
        let mut distinct = forms.clone();
        distinct.sort();
        distinct.dedup();
        out.push(format!(
            "ptx {}: {} instructions translated ({})",
            file.display(),
            forms.len(),
            distinct.join("; ")
        ));
    }
    for (file, instructions) in &m.untranslated {
        for i in instructions {
            out.push(format!("ptx {}: untranslated `{i}`", file.display()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    // A small folder, removed at the end.
    #[allow(clippy::disallowed_methods)]
    fn the_copy_keeps_the_layout_and_translates_headers() {
        let base = std::env::temp_dir().join(format!("cudaforge-mirror-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let krate = base.join("crate");
        std::fs::create_dir_all(krate.join("src/cuda/attention")).unwrap();
        std::fs::create_dir_all(krate.join("target/debug")).unwrap();
        std::fs::write(
            krate.join("src/cuda/attention/dtype.cuh"),
            "inline __device__ float f(unsigned short h) { float f;\n asm volatile(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n return f; }\n",
        )
        .unwrap();
        std::fs::write(
            krate.join("src/cuda/k.cu"),
            "#include \"attention/dtype.cuh\"\n__global__ void k() { asm(\"ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\" : \"=r\"(x) : \"r\"(s)); }\n",
        )
        .unwrap();
        std::fs::write(krate.join("src/lib.rs"), "fn main() {}\n").unwrap();
        std::fs::write(krate.join("target/debug/x.h"), "int x;\n").unwrap();
        let out = base.join("out");
        // Without CARGO_MANIFEST_DIR pointing at it, the sources' folder
        // is the copy's root.
        let m = mirror(
            &krate.join("src/cuda"),
            &[krate.join("src/cuda"), PathBuf::from("/usr/include")],
            &out,
        )
        .unwrap();
        assert_eq!(m.root, out.join(""));
        assert_eq!(m.includes, [out.join(""), PathBuf::from("/usr/include")]);
        let dtype = std::fs::read_to_string(out.join("attention/dtype.cuh")).unwrap();
        assert!(
            dtype.contains("__half2float") && !dtype.contains("asm"),
            "{dtype}"
        );
        assert!(std::fs::read_to_string(out.join("k.cu"))
            .unwrap()
            .contains("has no AMD translation"));
        assert!(!out.join("lib.rs").exists());
        assert_eq!(
            report_lines(&m),
            [
                "ptx attention/dtype.cuh: 1 instructions translated (cvt.f32.f16 _, _)",
                "ptx k.cu: untranslated `ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1]`"
            ]
        );
        let _ = std::fs::remove_dir_all(&base);
    }
}
