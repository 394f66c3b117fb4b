//! A library built on the HIP runtime, loaded once on first use: the
//! `static` every -sys crate's loader keeps, with its two backends.

use super::common::{Library, LibrarySpec, LoadError, Loaded, Platform};
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
///
/// A -sys crate's loader declares it, with the functions around it, through
/// [`crate::lazy_library!`].
#[derive(Debug)]
pub struct LazyLibrary<T: 'static> {
    spec: &'static LibrarySpec,
    amd: Backend<T>,
    nvidia: Backend<T>,
    loaded: OnceLock<Result<Library<T>, LoadError>>,
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
    pub fn get(&'static self) -> Result<&'static Library<T>, &'static LoadError> {
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

/// A -sys crate's loaded library: the [`LazyLibrary`] `static`, and around
/// it the crate's `LoadError`, its getter (`hiprand()`), `is_available()`
/// and the table accessor its raw wrappers call through (the functions every
/// loader of a library built on the HIP runtime has, with the same docs).
///
/// ```
/// use hip_sys::loader::common::{Library, LibraryNames, LibrarySpec, Loaded};
/// use hip_sys::loader::Platform;
/// use std::{path::Path, sync::Arc};
///
/// pub const SPEC: LibrarySpec = LibrarySpec {
///     name: "demoLIB",
///     amd: LibraryNames { role: "demoLIB", unix: &["libdemo-absent.so.9"], windows: &[] },
///     nvidia: LibraryNames { role: "cuDEMO", unix: &["libcudemo-absent.so.9"], windows: &[] },
///     amd_hint: "Install demoLIB.",
///     nvidia_hint: "Install cuDEMO.",
/// };
/// #[derive(Debug)]
/// pub struct DemoFunctions;
/// fn amd(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<DemoFunctions> {
///     Loaded::one_library(Platform::Amd, "demoLIB", lib, path, DemoFunctions)
/// }
/// fn nvidia(lib: &Arc<libloading::Library>, path: &Path) -> Loaded<DemoFunctions> {
///     Loaded::one_library(Platform::Nvidia, "cuDEMO", lib, path, DemoFunctions)
/// }
///
/// hip_sys::lazy_library! {
///     static DEMO: DemoFunctions = (SPEC, amd, nvidia);
///     "demoLIB" or "cuDEMO";
///     pub fn demo() -> Library<DemoFunctions>;
///     pub(crate) fn demo_table();
/// }
///
/// // Neither file exists, so the error names the library, and the answers agree.
/// let error: &LoadError = demo().unwrap_err();
/// assert_eq!(error.library, "demoLIB");
/// assert!(!is_available());
/// assert!(demo_table().is_none());
/// ```
#[macro_export]
macro_rules! lazy_library {
    (
        static $static:ident: $functions:ty = ($spec:expr, $amd:path, $nvidia:path);
        $name:literal or $counterpart:literal;
        pub fn $get:ident() -> $record:ty;
        pub(crate) fn $table:ident();
    ) => {
        // Why the library could not be loaded: the one `LoadError` of
        // every -sys crate (the HIP runtime's failure, or the platform,
        // every path tried and what to install).
        pub use $crate::loader::LoadError;

        static $static: $crate::loader::LazyLibrary<$functions> =
            $crate::loader::LazyLibrary::new(&$spec, $amd, $nvidia);

        #[doc = concat!(
                    "The loaded ", $name, " (or ", $counterpart, "), loading it (and the HIP\n",
                    "runtime) on first use."
                )]
        pub fn $get() -> ::core::result::Result<&'static $record, &'static LoadError> {
            $static.get()
        }

        #[doc = concat!(
                    "Whether ", $name, " (or ", $counterpart, ") could be loaded (loading it on\n",
                    "first use)."
                )]
        pub fn is_available() -> bool {
            $static.is_available()
        }

        /// The table every raw wrapper calls through: `None` when nothing
        /// could be loaded.
        #[inline]
        pub(crate) fn $table() -> ::core::option::Option<&'static $functions> {
            $static.table()
        }
    };
}
