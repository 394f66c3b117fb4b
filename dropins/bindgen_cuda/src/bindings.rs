//! `Bindings`: the Rust file naming each kernel's PTX.

use crate::error::Error;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The kernels a [`Builder::build_ptx`](crate::Builder::build_ptx) built,
/// one PTX file each in its output folder.
#[derive(Debug)]
pub struct Bindings {
    kernels: Vec<PathBuf>,
}

impl Bindings {
    pub(crate) fn new(kernels: Vec<PathBuf>) -> Self {
        Self { kernels }
    }

    /// Writes Rust source with one constant per kernel, in the order the
    /// kernels were given:
    /// `pub const UNARY: &str = include_str!(concat!(env!("OUT_DIR"), "/unary.ptx"));`.
    /// The name is the file's stem in upper case with `.` as `_`. A file
    /// that already says exactly this is left untouched, so a file in the
    /// crate's sources (candle-kernels 0.9.1 writes `src/ptx.rs`) keeps its
    /// timestamp.
    pub fn write<P>(&self, out: P) -> Result<(), Error>
    where
        P: AsRef<Path>,
    {
        let out = out.as_ref();
        let text = self.rust_source();
        if std::fs::read_to_string(out).is_ok_and(|old| old == text) {
            return Ok(());
        }
        std::fs::write(out, text).map_err(|source| Error::Io {
            path: out.to_path_buf(),
            source,
        })
    }

    fn rust_source(&self) -> String {
        let mut s = String::new();
        for kernel in &self.kernels {
            let stem = kernel.file_stem().unwrap_or_default().to_string_lossy();
            let _ = writeln!(
                s,
                r#"pub const {}: &str = include_str!(concat!(env!("OUT_DIR"), "/{stem}.ptx"));"#,
                const_name(&stem),
            );
        }
        s
    }
}

/// bindgen_cuda's constant name for a kernel file's stem: `fill.v2` ->
/// `FILL_V2` (only `.` is replaced; other characters stay).
pub(crate) fn const_name(stem: &str) -> String {
    stem.to_uppercase().replace('.', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_named_by_stem_in_given_order() {
        let b = Bindings::new(vec![
            PathBuf::from("src/unary.cu"),
            PathBuf::from("src/moe/moe_gguf.cu"),
            PathBuf::from("src/fill.v2.cu"),
        ]);
        assert_eq!(
            b.rust_source(),
            concat!(
                r#"pub const UNARY: &str = include_str!(concat!(env!("OUT_DIR"), "/unary.ptx"));"#,
                "\n",
                r#"pub const MOE_GGUF: &str = include_str!(concat!(env!("OUT_DIR"), "/moe_gguf.ptx"));"#,
                "\n",
                r#"pub const FILL_V2: &str = include_str!(concat!(env!("OUT_DIR"), "/fill.v2.ptx"));"#,
                "\n",
            )
        );
        // Only dots: a dash stays (bindgen_cuda's rule, not cudaforge's).
        assert_eq!(const_name("a-b.c"), "A-B_C");
    }

    #[test]
    fn an_unchanged_file_is_not_rewritten() {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let dir = std::env::temp_dir().join(format!("bindgen-cuda-write-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("ptx.rs");
        let b = Bindings::new(vec![PathBuf::from("src/a.cu")]);
        b.write(&out).unwrap();
        let first = std::fs::metadata(&out).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        b.write(&out).unwrap();
        assert_eq!(std::fs::metadata(&out).unwrap().modified().unwrap(), first);
        // Different kernels: rewritten.
        Bindings::new(vec![PathBuf::from("src/b.cu")])
            .write(&out)
            .unwrap();
        assert!(std::fs::read_to_string(&out)
            .unwrap()
            .contains("pub const B:"));
        let missing = b.write(dir.join("no/such/folder/ptx.rs"));
        assert!(matches!(missing, Err(Error::Io { .. })), "{missing:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
