//! A build as data: the nvcc commands it needs, the key that names its
//! outputs, and the two ways to run the commands (here, or as a job
//! script on a machine that has nvcc).
//!
//! Everything that decides what nvcc produces goes into the key: the
//! commands, every source and header under the sources' common folder
//! and the include folders. Kernels built elsewhere are used only under
//! their own key, so a stale or foreign build is never picked up.

use crate::arch::GpuArch;
use crate::error::{Error, Result};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Bumped whenever the commands or the job layout change meaning.
const FORMAT: &str = "hip-rs cudaforge drop-in, plan v1";

/// Extensions of the files that can affect nvcc's output.
const SOURCE_EXTENSIONS: &[&str] = &[
    "cu", "cuh", "h", "hh", "hpp", "hxx", "c", "cc", "cpp", "cxx", "inc", "inl", "def",
];

/// What a build produces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Output {
    /// One `<stem>.ptx` per source.
    Ptx,
    /// One static library of every source's object.
    Lib {
        /// The archive's file name (`libmoe.a`).
        name: String,
    },
}

/// One token of an nvcc command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Arg {
    /// Passed as it is.
    Lit(String),
    /// A file under the sources' folder, relative to it.
    Src(PathBuf),
    /// A file under the output folder, relative to it.
    Out(String),
    /// `-I` and the include folder with this index.
    Inc(usize),
}

/// One nvcc run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    /// The source it compiles, for error messages (none for the archive).
    pub(crate) source: Option<PathBuf>,
    pub(crate) args: Vec<Arg>,
}

/// Everything one `build_ptx` or `build_lib` call needs.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The common folder of the sources (absolute).
    pub(crate) root: PathBuf,
    /// Extra include folders (absolute).
    pub(crate) includes: Vec<PathBuf>,
    /// Compile steps, then for a library the archive step.
    pub(crate) compile: Vec<Step>,
    pub(crate) archive: Option<Step>,
    /// The files the outputs are made of: `<stem>.ptx` or the archive.
    pub(crate) products: Vec<String>,
    pub(crate) key: String,
    /// Every file hashed into the key (for rerun-if-changed).
    pub(crate) inputs: Vec<PathBuf>,
}

/// The settings that shape the commands.
pub(crate) struct Request<'a> {
    pub(crate) output: Output,
    pub(crate) sources: &'a [(PathBuf, GpuArch)],
    pub(crate) args: &'a [String],
    pub(crate) includes: &'a [PathBuf],
    /// `-Xcompiler -fPIC` for objects (every target but MSVC).
    pub(crate) pic: bool,
}

impl Plan {
    pub(crate) fn new(req: Request<'_>) -> Result<Plan> {
        if req.sources.is_empty() {
            return Err(Error::InvalidConfig(
                "no kernel source files selected".into(),
            ));
        }
        let absolute = |p: &Path| -> Result<PathBuf> { Ok(std::fs::canonicalize(p)?) };
        let sources: Vec<(PathBuf, &GpuArch)> = req
            .sources
            .iter()
            .map(|(p, a)| {
                Ok((
                    absolute(p).map_err(|_| Error::SourcePathNotFound(p.clone()))?,
                    a,
                ))
            })
            .collect::<Result<_>>()?;
        let root = common_folder(sources.iter().map(|(p, _)| p.as_path()));
        let includes: Vec<PathBuf> = req
            .includes
            .iter()
            .map(|p| absolute(p).map_err(|_| Error::SourcePathNotFound(p.clone())))
            .collect::<Result<_>>()?;
        let inc_args = (0..includes.len()).map(Arg::Inc);
        let lit = |s: &str| Arg::Lit(s.to_owned());

        let mut compile = Vec::new();
        let mut products = Vec::new();
        let mut objects = Vec::new();
        for (path, arch) in &sources {
            let rel = path
                .strip_prefix(&root)
                .expect("under the common folder")
                .to_path_buf();
            let mut args = vec![Arg::Lit(arch.to_gencode_arg())];
            match &req.output {
                Output::Ptx => {
                    let stem = rel.file_stem().unwrap_or_default().to_string_lossy();
                    let ptx = format!("{stem}.ptx");
                    if products.contains(&ptx) {
                        return Err(Error::InvalidConfig(format!(
                            "two sources would both write {ptx}"
                        )));
                    }
                    args.extend([lit("--ptx"), Arg::Lit("-o".into()), Arg::Out(ptx.clone())]);
                    products.push(ptx);
                }
                Output::Lib { .. } => {
                    let obj = format!(
                        "obj/{}.o",
                        rel.with_extension("")
                            .to_string_lossy()
                            .replace(['/', '\\'], "__")
                    );
                    args.extend([lit("-c"), lit("-o"), Arg::Out(obj.clone())]);
                    objects.push(obj);
                }
            }
            args.extend([lit("--default-stream"), lit("per-thread")]);
            args.extend(req.args.iter().map(|a| Arg::Lit(a.clone())));
            args.extend(inc_args.clone());
            if req.pic && matches!(req.output, Output::Lib { .. }) {
                args.extend([lit("-Xcompiler"), lit("-fPIC")]);
            }
            args.push(Arg::Src(rel.clone()));
            compile.push(Step {
                source: Some(rel),
                args,
            });
        }
        let archive = match &req.output {
            Output::Ptx => None,
            Output::Lib { name } => {
                products.push(name.clone());
                let mut args = vec![lit("--lib"), lit("-o"), Arg::Out(name.clone())];
                args.extend(objects.into_iter().map(Arg::Out));
                Some(Step { source: None, args })
            }
        };

        // The key: the format, the commands, then every file that can reach
        // nvcc, each with its place.
        let mut h = Sha256::new();
        let field = |h: &mut Sha256, bytes: &[u8]| {
            h.update(bytes.len().to_le_bytes());
            h.update(bytes);
        };
        field(&mut h, FORMAT.as_bytes());
        for step in compile.iter().chain(&archive) {
            field(&mut h, format!("{:?}", step.args).as_bytes());
        }
        let mut inputs = Vec::new();
        for (i, folder) in std::iter::once(&root).chain(&includes).enumerate() {
            for file in source_files(folder)? {
                let rel = file.strip_prefix(folder).expect("walked from it");
                field(&mut h, format!("{i}:{}", rel.to_string_lossy()).as_bytes());
                field(&mut h, &std::fs::read(&file)?);
                inputs.push(file);
            }
        }
        let digest = h.finalize();
        let key = digest[..16].iter().fold(String::new(), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        });
        Ok(Plan {
            root,
            includes,
            compile,
            archive,
            products,
            key,
            inputs,
        })
    }
}

/// The files under `folder` that can affect a compile, skipping build
/// output (`target`) and hidden folders.
pub(crate) fn source_files(folder: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    collect(folder, &mut out)?;
    out.sort();
    Ok(out)
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let path = e.path();
        let name = e.file_name();
        let name = name.to_string_lossy();
        if e.file_type()?.is_dir() {
            if !name.starts_with('.') && name != "target" {
                collect(&path, out)?;
            }
        } else if path
            .extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| SOURCE_EXTENSIONS.contains(&x))
        {
            out.push(path);
        }
    }
    Ok(())
}

fn common_folder<'a>(mut paths: impl Iterator<Item = &'a Path>) -> PathBuf {
    let first = paths.next().expect("at least one source");
    let mut common = first.parent().unwrap_or(first).to_path_buf();
    for p in paths {
        while !p.starts_with(&common) {
            if !common.pop() {
                break;
            }
        }
    }
    common
}

/// Quotes a word for POSIX shells.
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_=.,/:+@%".contains(&b))
    {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_what_needs_it() {
        assert_eq!(
            shell_quote("-gencode=arch=compute_90a,code=sm_90a"),
            "-gencode=arch=compute_90a,code=sm_90a"
        );
        assert_eq!(shell_quote("a b"), "'a b'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
    }

    /// A plan of `a.cu` (including `h.cuh`) in a fresh folder.
    fn plan_in(dir: &Path, args: &[&str], cap: usize, header: &str) -> Plan {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("a.cu"), "#include \"h.cuh\"\n").unwrap();
        std::fs::write(dir.join("h.cuh"), header).unwrap();
        if !dir.join("notes.txt").exists() {
            std::fs::write(dir.join("notes.txt"), "not a source").unwrap();
        }
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        Plan::new(Request {
            output: Output::Ptx,
            sources: &[(dir.join("a.cu"), GpuArch::auto_suffix(cap))],
            args: &args,
            includes: &[],
            pic: false,
        })
        .unwrap()
    }

    #[test]
    fn the_key_names_exactly_what_reaches_nvcc() {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let base = std::env::temp_dir().join(format!("cudaforge-key-{}", std::process::id()));
        let key = |sub: &str, args: &[&str], cap: usize, header: &str| {
            plan_in(&base.join(sub), args, cap, header).key
        };
        let k = key("a", &["-O3"], 90, "// v1");
        assert_eq!(k.len(), 32);
        // The same sources and flags elsewhere: the same key.
        assert_eq!(key("b", &["-O3"], 90, "// v1"), k);
        // A flag, the architecture or a header changes it.
        assert_ne!(key("c", &["-O2"], 90, "// v1"), k);
        assert_ne!(key("d", &["-O3"], 80, "// v1"), k);
        assert_ne!(key("e", &["-O3"], 90, "// v2"), k);
        // Files nvcc never reads do not.
        std::fs::write(base.join("a/notes.txt"), "changed").unwrap();
        assert_eq!(plan_in(&base.join("a"), &["-O3"], 90, "// v1").key, k);
        let p = plan_in(&base.join("a"), &["-O3"], 90, "// v1");
        assert_eq!(p.products, ["a.ptx"]);
        assert_eq!(p.inputs.len(), 2, "{:?}", p.inputs);
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn the_common_folder() {
        let paths = [
            Path::new("/a/src/moe/x.cu"),
            Path::new("/a/src/y.cu"),
            Path::new("/a/src/q/z.cu"),
        ];
        assert_eq!(common_folder(paths.into_iter()), PathBuf::from("/a/src"));
    }
}
