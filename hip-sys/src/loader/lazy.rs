//! A library built on the HIP runtime, loaded once on first use: the
//! `static` every -sys crate's loader keeps, with its two backends.

use super::common::{Library, LibraryError, LibrarySpec, Loaded, Platform};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// A platform backend: resolves the table `T` from the library the loader
/// core opened at the path.
pub type Backend<T> = fn(&Arc<libloading::Library>, &Path) -> Loaded<T>;

/// A library described by `spec`, opened through [`super::load_library`]
/// on first use with the AMD or NVIDIA backend, and kept (or its error)
/// for the process:
///
/// ```text
/// static HIPRAND: LazyLibrary<HiprandFunctions> =
///     LazyLibrary::new(&SPEC, crate::amd::load, crate::nvidia::load);
/// pub fn hiprand() -> Result<&'static Hiprand, &'static LoadError> { HIPRAND.get() }
/// ```
#[derive(Debug)]
pub struct LazyLibrary<T: 'static> {
    spec: &'static LibrarySpec,
    amd: Backend<T>,
    nvidia: Backend<T>,
    loaded: OnceLock<Result<Library<T>, LibraryError>>,
}

impl<T: 'static> LazyLibrary<T> {
    /// The library of `spec`, with its two backends; nothing is loaded yet.
    pub const fn new(spec: &'static LibrarySpec, amd: Backend<T>, nvidia: Backend<T>) -> Self {
        LazyLibrary {
            spec,
            amd,
            nvidia,
            loaded: OnceLock::new(),
        }
    }

    /// The loaded library, loading it (and the HIP runtime) on first use.
    pub fn get(&'static self) -> Result<&'static Library<T>, &'static LibraryError> {
        self.loaded
            .get_or_init(|| {
                super::load_library(self.spec, |platform, lib, path| match platform {
                    Platform::Amd => Ok((self.amd)(lib, path)),
                    Platform::Nvidia => Ok((self.nvidia)(lib, path)),
                })
            })
            .as_ref()
    }

    /// The function table the raw wrappers call through: `None` when
    /// nothing could be loaded.
    #[inline]
    pub fn table(&'static self) -> Option<&'static T> {
        self.get().ok().map(|l| &l.table)
    }

    /// Whether the library could be loaded (loading it on first use).
    pub fn is_available(&'static self) -> bool {
        self.get().is_ok()
    }
}
