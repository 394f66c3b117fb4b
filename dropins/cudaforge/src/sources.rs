//! Which `.cu` files a build compiles: folders (recursive), files, globs,
//! less the excluded names.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
enum Include {
    Dir(PathBuf),
    File(PathBuf),
    Glob(String),
}

/// The sources of one build: what is included and what is excluded.
#[derive(Debug, Clone, Default)]
pub struct SourceSelector {
    includes: Vec<Include>,
    excludes: Vec<String>,
    watch: Vec<PathBuf>,
}

impl SourceSelector {
    /// Nothing selected: [`SourceSelector::resolve`] then takes `src/**/*.cu`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Every `.cu` file under `dir`, recursively.
    pub fn add_directory<P: AsRef<Path>>(mut self, dir: P) -> Self {
        self.includes.push(Include::Dir(dir.as_ref().to_path_buf()));
        self
    }

    /// These files (any extension).
    pub fn add_files<I, P>(mut self, files: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        self.includes.extend(
            files
                .into_iter()
                .map(|f| Include::File(f.as_ref().to_path_buf())),
        );
        self
    }

    /// The `.cu` files matching a glob: `*` within a name, `**` across
    /// folders (`src/**/*.cu`).
    pub fn add_glob(mut self, pattern: &str) -> Self {
        self.includes.push(Include::Glob(pattern.to_owned()));
        self
    }

    /// Leaves out files whose name matches a pattern (`moe_*.cu`, one `*`)
    /// or that lie in a named folder (`deprecated/*`).
    pub fn exclude(mut self, patterns: &[&str]) -> Self {
        self.excludes
            .extend(patterns.iter().map(|p| (*p).to_owned()));
        self
    }

    /// Files that are not compiled but whose change must rebuild (headers).
    pub fn watch<I, P>(mut self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        self.watch
            .extend(paths.into_iter().map(|p| p.as_ref().to_path_buf()));
        self
    }

    /// The watched files.
    pub fn watch_paths(&self) -> &[PathBuf] {
        &self.watch
    }

    /// The selected files, sorted, each once.
    pub fn resolve(&self) -> Result<Vec<PathBuf>> {
        let default = [Include::Glob("src/**/*.cu".into())];
        let includes = if self.includes.is_empty() {
            &default[..]
        } else {
            &self.includes[..]
        };
        let mut files = Vec::new();
        for inc in includes {
            match inc {
                Include::File(f) => {
                    if !f.is_file() {
                        return Err(Error::SourcePathNotFound(f.clone()));
                    }
                    files.push(f.clone());
                }
                Include::Dir(d) => {
                    if !d.is_dir() {
                        return Err(Error::SourcePathNotFound(d.clone()));
                    }
                    walk(d, &mut |p| {
                        if is_cu(p) {
                            files.push(p.to_path_buf());
                        }
                    })?;
                }
                Include::Glob(g) => {
                    let base = glob_base(g);
                    if base.is_dir() {
                        walk(&base, &mut |p| {
                            if is_cu(p) && glob_matches(g, &p.to_string_lossy()) {
                                files.push(p.to_path_buf());
                            }
                        })?;
                    }
                }
            }
        }
        files.retain(|f| !self.is_excluded(f));
        files.sort();
        files.dedup();
        Ok(files)
    }

    fn is_excluded(&self, path: &Path) -> bool {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        self.excludes.iter().any(|p| match p.strip_suffix("/*") {
            Some(dir) => path
                .parent()
                .is_some_and(|parent| parent.components().any(|c| c.as_os_str() == dir)),
            None => name_matches(name, p),
        })
    }
}

fn is_cu(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "cu")
}

/// Calls `f` on every file under `dir`, in name order.
pub(crate) fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) -> Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let path = e.path();
        if e.file_type()?.is_dir() {
            walk(&path, f)?;
        } else {
            f(&path);
        }
    }
    Ok(())
}

/// A file name against a pattern with at most one `*`.
pub(crate) fn name_matches(name: &str, pattern: &str) -> bool {
    match pattern.split_once('*') {
        Some((prefix, suffix)) => {
            name.len() >= prefix.len() + suffix.len()
                && name.starts_with(prefix)
                && name.ends_with(suffix)
        }
        None => name == pattern,
    }
}

/// The folder a glob's first wildcard lies in.
fn glob_base(pattern: &str) -> PathBuf {
    let mut base = PathBuf::new();
    for part in pattern.split('/') {
        if part.contains('*') || part.contains('?') {
            break;
        }
        base.push(if part.is_empty() { "/" } else { part });
    }
    if base.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        base
    }
}

/// A `/`-separated path against a glob: `*` and `?` within a component,
/// `**` for any number of components.
fn glob_matches(pattern: &str, path: &str) -> bool {
    let path = path.strip_prefix("./").unwrap_or(path);
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let pat: Vec<&str> = pattern.split('/').collect();
    let comps: Vec<&str> = path.split('/').collect();
    components_match(&pat, &comps)
}

fn components_match(pat: &[&str], comps: &[&str]) -> bool {
    match pat.split_first() {
        None => comps.is_empty(),
        Some((&"**", rest)) => (0..=comps.len()).any(|i| components_match(rest, &comps[i..])),
        Some((p, rest)) => match comps.split_first() {
            Some((c, crest)) => {
                wildcard(p.as_bytes(), c.as_bytes()) && components_match(rest, crest)
            }
            None => false,
        },
    }
}

fn wildcard(p: &[u8], s: &[u8]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|i| wildcard(rest, &s[i..])),
        Some((b'?', rest)) => !s.is_empty() && wildcard(rest, &s[1..]),
        Some((c, rest)) => s.first() == Some(c) && wildcard(rest, &s[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_globs() {
        assert!(name_matches("moe_gguf.cu", "moe_*.cu"));
        assert!(!name_matches("mmvq_gguf.cu", "moe_*.cu"));
        assert!(name_matches("mmvq_gguf.cu", "mmvq_gguf.cu"));
        assert!(!name_matches("a.cu", "ab*.cu"));
        assert!(glob_matches("src/**/*.cu", "src/a.cu"));
        assert!(glob_matches("src/**/*.cu", "src/x/y/a.cu"));
        assert!(!glob_matches("src/**/*.cu", "lib/a.cu"));
        assert!(glob_matches("src/k?.cu", "src/k1.cu"));
        assert_eq!(glob_base("src/**/*.cu"), PathBuf::from("src"));
    }

    #[test]
    fn resolves_folders_less_exclusions() {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let dir = std::env::temp_dir().join(format!("cudaforge-src-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for f in ["a.cu", "moe_x.cu", "sub/b.cu", "old/c.cu", "h.cuh"] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let got = SourceSelector::new()
            .add_directory(&dir)
            .exclude(&["moe_*.cu", "old/*"])
            .resolve()
            .unwrap();
        let names: Vec<_> = got
            .iter()
            .map(|p| p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["a.cu", "sub/b.cu"]);
        let missing = SourceSelector::new()
            .add_files([dir.join("nope.cu")])
            .resolve();
        assert!(matches!(missing, Err(Error::SourcePathNotFound(_))));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
