//! The error kit of the library crates (`hipblas`, `hipfft`, `rccl`, ...):
//! one macro that writes each crate's `Error`, `Result` and drop-error
//! registry in the workspace's one shape, so that someone who has learned
//! one crate's errors knows them all (docs/ARCHITECTURE.md, "One
//! skeleton").

/// Writes a library crate's error type in the workspace's shape, in its
/// `src/error.rs`:
///
/// - `pub enum Error` (`Debug`, `thiserror::Error`, `#[non_exhaustive]`)
///   with the variants every library has: `Load` (no library: the loader's
///   report), the library's status variant (`call`, the `status` as the
///   error's `#[source]`, `message`), `Runtime` (a [`hip::Error`](crate::Error)),
///   `Invalid` (an argument refused before any call) and `Unsupported` (the
///   loaded library lacks what the call needs); then the crate's own
///   variants, given after `extra:`;
/// - `Error::status()`, `Error::call()` (the runtime's call included),
///   `pub(crate)` constructors `invalid` and
///   `unsupported`, and `From` the loader's error;
/// - `pub type Result<T, E = Error>`;
/// - the registry of errors seen in `Drop` (`pub(crate) static
///   DROP_ERRORS`) and `pub fn take_drop_errors()`.
///
/// The crate adds its own constructor from a status (it knows how to word
/// one) in a second `impl Error` block, and depends on `thiserror`.
///
/// An extra variant that wraps another error says `#[error("{0}")]` with
/// `#[from]`, as `Runtime` does: `#[error(transparent)]` cannot be used
/// there, because thiserror binds the wrapped value under a name whose
/// hygiene comes from this macro while the attribute's comes from the
/// caller, and the two do not meet.
///
/// ```
/// # mod demo {
/// #[derive(Clone, Copy, Debug, PartialEq, Eq)]
/// pub struct Status(pub i32);
/// impl std::fmt::Display for Status {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         write!(f, "status {}", self.0)
///     }
/// }
/// impl std::error::Error for Status {}
///
/// hip::library_error! {
///     library: "hipDEMO",
///     status: Demo(Status),
///     load: hip_sys::loader::LoadError,
///     example_call: "hipdemoRun",
///     extra: {
///         /// A demo of a crate's own variant.
///         #[error("{operation} timed out")]
///         Timeout {
///             /// The operation.
///             operation: &'static str,
///         },
///     }
/// }
///
/// pub fn check() {
///     let e = Error::Demo { call: "hipdemoRun", status: Status(3), message: "bad".into() };
///     assert_eq!(e.to_string(), "hipdemoRun failed with Status(3) (3): bad");
///     assert_eq!((e.status(), e.call()), (Some(Status(3)), Some("hipdemoRun")));
///     assert!(std::error::Error::source(&e).is_some());
///     let e = Error::invalid("Demo::run", "n = 0: must be positive");
///     assert_eq!(e.to_string(), "invalid argument to Demo::run: n = 0: must be positive");
///     DROP_ERRORS.record_error(Error::unsupported("Demo::drop", "no destroy"));
///     assert_eq!(take_drop_errors().len(), 1);
/// }
/// # }
/// # demo::check();
/// ```
#[macro_export]
macro_rules! library_error {
    (
        library: $library:literal,
        status: $variant:ident($status:ty),
        load: $load:ty,
        example_call: $example:literal,
        $(extra: { $($extra:tt)* })?
    ) => {
        #[doc = concat!("What went wrong in a ", $library, " call, or before it.")]
        ///
        /// The workspace's one shape (`hip::library_error!`): [`Error::Load`]
        /// (no library), the library's status, [`Error::Runtime`] (a `hip`
        /// call), [`Error::Invalid`] for every argument refused before any
        /// call, and [`Error::Unsupported`] for what the loaded library
        /// lacks; then this crate's own variants, if any.
        #[derive(Debug, thiserror::Error)]
        #[non_exhaustive]
        pub enum Error {
            #[doc = concat!(
                "No ", $library, " could be loaded: the loader's report of every path ",
                "tried (its `Display` is this error's message)."
            )]
            #[error(transparent)]
            Load($load),
            #[doc = concat!("A ", $library, " function returned a failure status.")]
            #[error("{call} failed with {status:?} ({}): {message}", .status.0)]
            $variant {
                #[doc = concat!("The C function called, e.g. `\"", $example, "\"`.")]
                call: &'static str,
                /// Its status (also this error's `source()`).
                #[source]
                status: $status,
                /// The library's words for the status, or this crate's when
                /// the library has none, and whether the loaded library
                /// lacks the function.
                message: String,
            },
            /// A HIP runtime call (device, stream, memory) failed.
            #[error("{0}")]
            Runtime(#[from] $crate::Error),
            #[doc = concat!("An argument was rejected before any call into ", $library, ".")]
            #[error("invalid argument to {operation}: {reason}")]
            Invalid {
                /// The operation that rejected it.
                operation: &'static str,
                /// What was wrong, with the offending values.
                reason: String,
            },
            /// The loaded library lacks what the call needs (an older
            /// version, or a function its NVIDIA counterpart does not have).
            #[error("{operation} is not supported: {reason}")]
            Unsupported {
                /// The operation that needed it.
                operation: &'static str,
                /// What is missing.
                reason: String,
            },
            $($($extra)*)?
        }

        impl Error {
            #[doc = concat!("The ", $library, " status, for [`Error::", stringify!($variant), "`].")]
            pub fn status(&self) -> Option<$status> {
                match self {
                    Error::$variant { status, .. } => Some(*status),
                    _ => None,
                }
            }

            /// The C function that failed: the library's, or the HIP
            /// runtime's for [`Error::Runtime`].
            pub fn call(&self) -> Option<&'static str> {
                match self {
                    Error::$variant { call, .. } => Some(call),
                    Error::Runtime(e) => e.call(),
                    _ => None,
                }
            }

            /// An [`Error::Invalid`].
            #[cold]
            #[inline(never)]
            #[allow(dead_code)]
            pub(crate) fn invalid(operation: &'static str, reason: impl Into<String>) -> Error {
                Error::Invalid {
                    operation,
                    reason: reason.into(),
                }
            }

            /// An [`Error::Unsupported`].
            #[cold]
            #[inline(never)]
            #[allow(dead_code)]
            pub(crate) fn unsupported(operation: &'static str, reason: impl Into<String>) -> Error {
                Error::Unsupported {
                    operation,
                    reason: reason.into(),
                }
            }
        }

        impl From<$load> for Error {
            fn from(e: $load) -> Error {
                Error::Load(e)
            }
        }

        /// `Result` with this crate's [`Error`].
        pub type Result<T, E = Error> = std::result::Result<T, E>;

        /// Errors seen where they could not be returned (in `Drop`).
        pub(crate) static DROP_ERRORS: $crate::DropErrorRegistry<Error> =
            $crate::DropErrorRegistry::new();

        /// Takes the errors seen in this crate's `Drop` implementations
        /// (destroy calls, which cannot return them), oldest first; at most
        /// `hip::MAX_RECORDED` are kept.
        pub fn take_drop_errors() -> Vec<Error> {
            DROP_ERRORS.take_all()
        }
    };
}
