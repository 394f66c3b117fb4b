//! The error type, with cudaforge's variants (names and payloads).

use std::path::PathBuf;

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong while building kernels.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No nvcc could be run, and no kernels built earlier were found.
    #[error("nvcc not found: {0}")]
    NvccNotFound(String),
    /// A CUDA toolkit folder named by the caller lacks `bin/nvcc`.
    #[error("CUDA toolkit not found at {0}")]
    CudaToolkitNotFound(PathBuf),
    /// No compute capability was given and none could be detected.
    #[error("failed to detect the compute capability: {0}")]
    ComputeCapDetectionFailed(String),
    /// nvcc failed on one source file.
    #[error("kernel compilation failed for {path}: {message}")]
    CompilationFailed {
        /// The source file.
        path: PathBuf,
        /// nvcc's output.
        message: String,
    },
    /// Making the static library failed.
    #[error("linking failed: {0}")]
    LinkingFailed(String),
    /// A source file or folder does not exist.
    #[error("source path does not exist: {0}")]
    SourcePathNotFound(PathBuf),
    /// A git dependency was asked for: this builder fetches nothing.
    #[error("git dependencies are not supported: {0}")]
    GitOperationFailed(String),
    /// Reading or writing a file failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// Kernels built earlier exist but do not match what they claim.
    #[error("prebuilt kernels: {0}")]
    CacheError(String),
    /// The builder's settings contradict each other.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
}
