//! The error type: bindgen_cuda's name, carrying cudaforge's reasons.

use std::fmt;
use std::path::PathBuf;

/// Why kernels could not be built or their constants written.
///
/// bindgen_cuda's own `Error` has no variants (it panics instead); this
/// one says what went wrong, and its `Debug` is that text, so the
/// `.unwrap()` of a build script prints the reason readably.
#[non_exhaustive]
pub enum Error {
    /// The kernels could not be built (no nvcc and no kernels built
    /// elsewhere, a compile error, a missing file, ...).
    Build(cudaforge::Error),
    /// A file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// The reason.
        source: std::io::Error,
    },
}

impl From<cudaforge::Error> for Error {
    fn from(e: cudaforge::Error) -> Self {
        Error::Build(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Build(e) => write!(f, "bindgen_cuda (hip-rs drop-in): {e}"),
            Error::Io { path, source } => write!(
                f,
                "bindgen_cuda (hip-rs drop-in): {}: {source}",
                path.display()
            ),
        }
    }
}

/// The message itself, not a structure: build scripts `.unwrap()` this.
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Build(e) => Some(e),
            Error::Io { source, .. } => Some(source),
        }
    }
}
