//! `Builder`: bindgen_cuda's settings, built by the cudaforge drop-in.

use crate::bindings::Bindings;
use crate::error::Error;
use std::path::{Path, PathBuf};

/// The kernels to build and how, as bindgen_cuda's `Builder` has them.
///
/// [`Builder::build_ptx`] and [`Builder::build_lib`] hand the work to
/// [`cudaforge::KernelBuilder`], which takes the kernels from nvcc, from a
/// job run earlier on a machine with nvcc (`CUDAFORGE_PREBUILT`), or, with
/// `CUDAFORGE_CHECK_ONLY=1`, from placeholders that type-check but never
/// link.
#[derive(Debug)]
pub struct Builder {
    /// Where CUDA's `include/cuda.h` is: given, or found as bindgen_cuda
    /// looks for it. Only announced as `CUDA_INCLUDE_DIR`.
    cuda_root: Option<PathBuf>,
    /// Given with [`Builder::cuda_root`]: its `bin/nvcc`, when there is
    /// one, is the nvcc used.
    cuda_root_given: bool,
    kernel_paths: Vec<PathBuf>,
    watch: Vec<PathBuf>,
    include_paths: Vec<PathBuf>,
    compute_cap: Option<usize>,
    out_dir: PathBuf,
    extra_args: Vec<&'static str>,
}

impl Default for Builder {
    /// Every `src/**/*.cu` as a kernel, every `src/**/*.cuh` as a header,
    /// output in `OUT_DIR`.
    ///
    /// # Panics
    ///
    /// Outside a build script (no `OUT_DIR`), as bindgen_cuda does.
    fn default() -> Self {
        let out_dir = std::env::var_os("OUT_DIR")
            .expect("bindgen_cuda: OUT_DIR is not set: the Builder is meant for build scripts");
        Self::in_dir(PathBuf::from(out_dir))
    }
}

impl Builder {
    fn in_dir(out_dir: PathBuf) -> Self {
        Self {
            cuda_root: find_cuda_root(),
            cuda_root_given: false,
            kernel_paths: glob_files("src/**/*.cu"),
            watch: Vec::new(),
            include_paths: glob_files("src/**/*.cuh"),
            compute_cap: None,
            out_dir,
            extra_args: Vec::new(),
        }
    }

    /// The kernels, replacing the default `src/**/*.cu`.
    ///
    /// # Panics
    ///
    /// When a path does not exist.
    pub fn kernel_paths<P: Into<PathBuf>>(mut self, paths: Vec<P>) -> Self {
        self.kernel_paths = existing(paths, "kernel");
        self
    }

    /// Files the kernels depend on but that are not compiled: a change to
    /// one rebuilds. Replaces earlier ones.
    ///
    /// # Panics
    ///
    /// When a path does not exist.
    pub fn watch<T, P>(mut self, paths: T) -> Self
    where
        T: IntoIterator<Item = P>,
        P: Into<PathBuf>,
    {
        self.watch = existing(paths, "watched");
        self
    }

    /// The headers, replacing the default `src/**/*.cuh`: each one's folder
    /// is an include folder (`-I`) of [`Builder::build_ptx`], and the
    /// header is copied into the output folder. A folder given here is an
    /// include folder as it is.
    pub fn include_paths<P: Into<PathBuf>>(mut self, paths: Vec<P>) -> Self {
        self.include_paths = paths.into_iter().map(Into::into).collect();
        self
    }

    /// The kernels matching a glob (`kernels/**/*.cu`).
    ///
    /// # Panics
    ///
    /// When the pattern is invalid or a folder cannot be read.
    pub fn kernel_paths_glob(mut self, glob: &str) -> Self {
        self.kernel_paths = glob_files(glob);
        self
    }

    /// The headers matching a glob (`kernels/**/*.cuh`), as
    /// [`Builder::include_paths`].
    ///
    /// # Panics
    ///
    /// When the pattern is invalid or a folder cannot be read.
    pub fn include_paths_glob(mut self, glob: &str) -> Self {
        self.include_paths = glob_files(glob);
        self
    }

    /// Where the PTX files go (default `OUT_DIR`).
    pub fn out_dir<P: Into<PathBuf>>(mut self, out_dir: P) -> Self {
        self.out_dir = out_dir.into();
        self
    }

    /// One more nvcc argument.
    pub fn arg(mut self, arg: &'static str) -> Self {
        self.extra_args.push(arg);
        self
    }

    /// The CUDA toolkit's folder: announced as `CUDA_INCLUDE_DIR`, and its
    /// `bin/nvcc`, if it has one, compiles the kernels.
    pub fn cuda_root<P>(&mut self, path: P)
    where
        P: Into<PathBuf>,
    {
        self.cuda_root = Some(path.into());
        self.cuda_root_given = true;
    }

    /// The GPU architecture (86 for `sm_86`), instead of `CUDA_COMPUTE_CAP`
    /// or `nvidia-smi`.
    pub fn compute_cap(mut self, compute_cap: usize) -> Self {
        self.compute_cap = Some(compute_cap);
        self
    }

    /// Builds every kernel into one static library at `out_file`; the build
    /// script links it (`cargo:rustc-link-lib=NAME`).
    ///
    /// # Panics
    ///
    /// When the library cannot be built, with the reason (bindgen_cuda's
    /// signature has no `Result`).
    pub fn build_lib<P>(self, out_file: P)
    where
        P: Into<PathBuf>,
    {
        if self.kernel_paths.is_empty() {
            panic!("bindgen_cuda (hip-rs drop-in): build_lib has no kernel to build");
        }
        if let Err(e) = self.kernel_builder(&[]).build_lib(out_file) {
            panic!("{}", Error::from(e));
        }
    }

    /// Builds each kernel into `<out_dir>/<stem>.ptx`; the [`Bindings`]
    /// write the Rust constants that include them.
    pub fn build_ptx(self) -> Result<Bindings, Error> {
        if let Some(root) = &self.cuda_root {
            println!(
                "cargo:rustc-env=CUDA_INCLUDE_DIR={}",
                root.join("include").display()
            );
        }
        let include_dirs = self.stage_headers()?;
        if !self.kernel_paths.is_empty() {
            self.kernel_builder(&include_dirs).build_ptx()?;
        }
        Ok(Bindings::new(self.kernel_paths))
    }

    /// Copies each header into the output folder, as bindgen_cuda does,
    /// and returns the include folders: each header's folder, sorted, each
    /// once.
    fn stage_headers(&self) -> Result<Vec<PathBuf>, Error> {
        let mut dirs = Vec::new();
        for path in &self.include_paths {
            println!("cargo:rerun-if-changed={}", path.display());
            if path.is_dir() {
                dirs.push(path.clone());
                continue;
            }
            if let Some(name) = path.file_name() {
                let dest = self.out_dir.join(name);
                std::fs::create_dir_all(&self.out_dir)
                    .and_then(|()| std::fs::copy(path, &dest))
                    .map_err(|source| Error::Io {
                        path: path.clone(),
                        source,
                    })?;
            }
            dirs.push(match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            });
        }
        dirs.sort();
        dirs.dedup();
        Ok(dirs)
    }

    /// The cudaforge build of these kernels.
    fn kernel_builder(&self, include_dirs: &[PathBuf]) -> cudaforge::KernelBuilder {
        let mut kb = cudaforge::KernelBuilder::new()
            .source_files(&self.kernel_paths)
            .watch(&self.watch)
            .out_dir(&self.out_dir)
            .args(self.extra_args.iter().copied());
        for dir in include_dirs {
            kb = kb.include_path(dir);
        }
        kb = match (self.compute_cap, detected_compute_cap()) {
            (Some(cap), _) => kb.compute_cap(cap),
            (None, Some(arch)) => kb.compute_cap_arch(&arch),
            // cudaforge says why it needs one (or, check-only, needs none).
            (None, None) => kb,
        };
        if let Some(root) = self
            .cuda_root
            .as_deref()
            .filter(|r| self.cuda_root_given && r.join("bin").join(nvcc_name()).is_file())
        {
            kb = kb.cuda_root(root);
        }
        // bindgen_cuda's limit on parallel nvcc runs.
        if let Some(n) = std::env::var("RAYON_NUM_THREADS")
            .ok()
            .and_then(|s| s.parse::<usize>().ok())
        {
            kb = kb.max_threads(n);
        }
        kb
    }
}

/// `CUDA_COMPUTE_CAP`, else `nvidia-smi`'s first GPU, announced to the
/// crate as `CUDA_COMPUTE_CAP` as bindgen_cuda does.
fn detected_compute_cap() -> Option<String> {
    let arch = match std::env::var("CUDA_COMPUTE_CAP") {
        Ok(v) => v,
        Err(_) => cudaforge::detect_compute_cap().ok()?.base().to_string(),
    };
    println!("cargo:rustc-env=CUDA_COMPUTE_CAP={arch}");
    Some(arch)
}

fn nvcc_name() -> &'static str {
    if cfg!(windows) {
        "nvcc.exe"
    } else {
        "nvcc"
    }
}

/// The first folder with `include/cuda.h`: `CUDA_PATH`, `CUDA_ROOT`,
/// `CUDA_TOOLKIT_ROOT_DIR`, `CUDNN_LIB`, then the usual install places.
fn find_cuda_root() -> Option<PathBuf> {
    let from_env = [
        "CUDA_PATH",
        "CUDA_ROOT",
        "CUDA_TOOLKIT_ROOT_DIR",
        "CUDNN_LIB",
    ]
    .into_iter()
    .filter_map(std::env::var_os)
    .map(PathBuf::from);
    let usual = [
        "/usr",
        "/usr/local/cuda",
        "/opt/cuda",
        "/usr/lib/cuda",
        "C:/Program Files/NVIDIA GPU Computing Toolkit",
        "C:/CUDA",
    ]
    .into_iter()
    .map(PathBuf::from);
    from_env
        .chain(usual)
        .find(|root| root.join("include").join("cuda.h").is_file())
}

/// The paths matching `pattern`, in the glob crate's order.
fn glob_files(pattern: &str) -> Vec<PathBuf> {
    glob::glob(pattern)
        .unwrap_or_else(|e| panic!("bindgen_cuda: invalid glob `{pattern}`: {e}"))
        .map(|p| p.unwrap_or_else(|e| panic!("bindgen_cuda: glob `{pattern}`: {e}")))
        .collect()
}

/// The paths, all of which must exist.
fn existing<T, P>(paths: T, what: &str) -> Vec<PathBuf>
where
    T: IntoIterator<Item = P>,
    P: Into<PathBuf>,
{
    let paths: Vec<PathBuf> = paths.into_iter().map(Into::into).collect();
    let missing: Vec<&Path> = paths
        .iter()
        .filter(|p| !p.exists())
        .map(PathBuf::as_path)
        .collect();
    assert!(
        missing.is_empty(),
        "bindgen_cuda: {what} paths do not exist: {missing:?}"
    );
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let dir = std::env::temp_dir().join(format!("bindgen-cuda-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn headers_are_copied_and_their_folders_included() {
        let dir = scratch("headers");
        for f in ["k/a.cuh", "k/b.cuh", "k/moe/c.cuh", "inc/d.h"] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, f).unwrap();
        }
        let out = dir.join("out");
        let b = Builder::in_dir(out.clone()).include_paths(vec![
            dir.join("k/b.cuh"),
            dir.join("k/moe/c.cuh"),
            dir.join("k/a.cuh"),
            dir.join("inc"),
        ]);
        let dirs = b.stage_headers().unwrap();
        assert_eq!(
            dirs,
            [dir.join("inc"), dir.join("k"), dir.join("k/moe")],
            "one include folder per header folder, sorted"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("c.cuh")).unwrap(),
            "k/moe/c.cuh"
        );
        assert_eq!(
            std::fs::read_to_string(out.join("a.cuh")).unwrap(),
            "k/a.cuh"
        );
        // A folder is an include folder, not copied.
        assert!(!out.join("inc").exists());
        let missing = Builder::in_dir(out)
            .include_paths(vec![dir.join("k/none.cuh")])
            .stage_headers();
        assert!(matches!(missing, Err(Error::Io { .. })), "{missing:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn setters_replace_and_globs_select() {
        let dir = scratch("globs");
        for f in ["a.cu", "b.cu", "sub/c.cu", "h.cuh"] {
            let p = dir.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let b = Builder::in_dir(dir.clone())
            .kernel_paths(vec![dir.join("a.cu")])
            .kernel_paths_glob(&format!("{}/**/*.cu", dir.display()))
            .include_paths_glob(&format!("{}/*.cuh", dir.display()))
            .watch([dir.join("h.cuh")])
            .compute_cap(86);
        assert_eq!(
            b.kernel_paths,
            [dir.join("a.cu"), dir.join("b.cu"), dir.join("sub/c.cu")]
        );
        assert_eq!(b.include_paths, [dir.join("h.cuh")]);
        assert_eq!(b.watch, [dir.join("h.cuh")]);
        assert_eq!(b.compute_cap, Some(86));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    #[should_panic(expected = "kernel paths do not exist")]
    fn a_missing_kernel_panics() {
        #[allow(clippy::disallowed_methods)] // a unit test's few files
        let _ = Builder::in_dir(std::env::temp_dir()).kernel_paths(vec!["/nonexistent/k.cu"]);
    }
}
