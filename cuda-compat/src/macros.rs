//! The macros the generated modules (`src/generated/*.rs`) are written in:
//! one call per CUDA enum (`cuda_enum!`), one call per module for the
//! function wrappers (`cuda_functions!`) and the enum table
//! (`cuda_enum_tables!`), so each fixed impl and the shared Safety text are
//! written once, here, as ash's `vk/macros.rs` does for Vulkan's enums.

/// A CUDA enum as an open newtype over its HIP enum's integer, with
/// CUDA-named associated constants, the same constants at module level, and
/// the fixed impls: `VARIANTS`, `NO_HIP_COUNTERPART`, `name`,
/// `is_synthesized`, `to_hip`/`from_hip`, `From` and `PartialEq` both ways
/// with the HIP enum, `Debug` and `Display` (plus `ok()` and
/// `std::error::Error` for a `status` enum).
///
/// ```text
/// crate::cuda_enum! {
///     #[doc = " CUDA `cudaError`, ..."]
///     #[must_use]
///     pub struct cudaError(u32) = hip_sys::hipError_t, status;
///     aliases [cudaError_t];
///     synthesized [cudaErrorStubLibrary];
///     cudaSuccess = hipSuccess,
///     #[cfg(feature = "synthesized-enums")] cudaErrorStubLibrary = 0x40000000,
/// }
/// ```
///
/// Each enumerator, in CUDA's order, is `NAME = hipNAME` (HIP's value),
/// `NAME = literal` (a synthesized value, disjoint from every HIP value of
/// the enum, listed again under `synthesized`: the generator puts such
/// enumerators behind the `synthesized-enums` feature), or
/// `NAME = literal => hipNAME`: an enumerator HIP lacks that CUDA documents
/// as equivalent to `hipNAME` (the generator manifest's
/// `equivalent_enumerators`). It keeps CUDA's value, disjoint from HIP's, so
/// it prints as itself, and `to_hip` (hence `From`, which every
/// wrapper uses to pass the enum to HIP) turns it into `hipNAME`: the one
/// place such a value is translated.
macro_rules! cuda_enum {
    (
        $(#[$meta:meta])*
        pub struct $name:ident($inner:ty) = $krate:ident::$hip:ident, $kind:ident;
        aliases [$($alias:ident),* $(,)?];
        synthesized [$($synth:ident),* $(,)?];
        $($(#[$attr:meta])* $cuda:ident = $value:tt $(=> $equiv:ident)?,)*
    ) => {
        $(#[$meta])*
        #[repr(transparent)]
        #[derive(Copy, Clone, Hash, PartialEq, Eq, PartialOrd, Ord)]
        pub struct $name(pub $inner);
        // A re-export, not a type alias, as cudarc's bindgen output has it,
        // so that the alias is a constructor too (`CUgraphInstantiate_flags(0)`).
        $(
            #[doc = concat!(" CUDA `", stringify!($alias), "` (= [`", stringify!($name), "`]).")]
            pub use self::$name as $alias;
        )*
        impl $name {
            $(cuda_enum_const!(assoc $name $krate::$hip; $(#[$attr])* $cuda = $value $(=> $equiv)?);)*
            /// Every CUDA enumerator defined here with its value (synthesized
            /// ones only with the `synthesized-enums` feature), in CUDA's order.
            pub const VARIANTS: &'static [(&'static str, Self)] =
                &[$($(#[$attr])* (stringify!($cuda), Self::$cuda),)*];
            /// The CUDA enumerators of this enum that HIP lacks (defined
            /// only with the `synthesized-enums` feature).
            pub const NO_HIP_COUNTERPART: [&'static str; <[&str]>::len(&[$(stringify!($synth)),*])] =
                [$(stringify!($synth)),*];
            /// The CUDA name of this value (the first of CUDA's order when
            /// several CUDA names share one HIP value), or `None`.
            #[allow(unreachable_patterns)]
            pub const fn name(self) -> Option<&'static str> {
                match self {
                    $($(#[$attr])* Self::$cuda => Some(stringify!($cuda)),)*
                    _ => None,
                }
            }
            /// Whether this value is a synthesized enumerator (CUDA has it,
            /// HIP does not): never returned by any function.
            #[allow(clippy::match_like_matches_macro, unreachable_patterns)]
            pub const fn is_synthesized(self) -> bool {
                match self {
                    $(#[cfg(feature = "synthesized-enums")] Self::$synth => true,)*
                    _ => false,
                }
            }
            /// The HIP value: the same integer, except for an enumerator
            /// HIP lacks that CUDA documents as equivalent to one HIP has,
            /// which becomes that one.
            pub const fn to_hip(self) -> ::$krate::$hip {
                $($(
                    if self.0 == Self::$cuda.0 {
                        return ::$krate::$hip::$equiv;
                    }
                )?)*
                ::$krate::$hip(self.0)
            }
            /// The CUDA-named value of a HIP value.
            pub const fn from_hip(h: ::$krate::$hip) -> Self {
                Self(h.0)
            }
        }
        impl From<::$krate::$hip> for $name {
            fn from(h: ::$krate::$hip) -> Self {
                Self(h.0)
            }
        }
        impl From<$name> for ::$krate::$hip {
            fn from(c: $name) -> Self {
                c.to_hip()
            }
        }
        impl PartialEq<::$krate::$hip> for $name {
            fn eq(&self, other: &::$krate::$hip) -> bool {
                self.0 == other.0
            }
        }
        impl PartialEq<$name> for ::$krate::$hip {
            fn eq(&self, other: &$name) -> bool {
                self.0 == other.0
            }
        }
        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    Some(n) if self.is_synthesized() => write!(f, "{} (synthesized)", n),
                    Some(n) => f.write_str(n),
                    None => write!(f, concat!(stringify!($name), "({})"), self.0),
                }
            }
        }
        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::fmt::Debug::fmt(self, f)
            }
        }
        cuda_enum_kind!($kind $name);
        $(cuda_enum_const!(plain $name $krate::$hip; $(#[$attr])* $cuda = $value $(=> $equiv)?);)*
    };
}

/// One enumerator of `cuda_enum!`: the associated constant (`assoc`) or
/// the module-level one (`plain`), HIP's value, a synthesized one, or CUDA's
/// value of an equivalent of a HIP enumerator.
macro_rules! cuda_enum_const {
    (assoc $name:ident $krate:ident::$hip:ident; $(#[$attr:meta])* $cuda:ident = $value:literal => $equiv:ident) => {
        $(#[$attr])*
        #[doc = concat!(
            " CUDA `", stringify!($cuda), "` (CUDA's value, ", stringify!($value),
            "): HIP lacks it, and CUDA documents it as equivalent to what HIP calls `",
            stringify!($equiv), "`, which it is passed to HIP as (`to_hip`, `From`)."
        )]
        pub const $cuda: Self = Self($value);
    };
    (plain $name:ident $krate:ident::$hip:ident; $(#[$attr:meta])* $cuda:ident = $value:literal => $equiv:ident) => {
        $(#[$attr])*
        #[doc = concat!(" CUDA `", stringify!($cuda), "`, passed to HIP as `", stringify!($equiv), "` (= [`", stringify!($name), "::", stringify!($cuda), "`]).")]
        pub const $cuda: $name = $name::$cuda;
    };
    (assoc $name:ident $krate:ident::$hip:ident; $(#[$attr:meta])* $cuda:ident = $hip_const:ident) => {
        $(#[$attr])*
        #[doc = concat!(" CUDA `", stringify!($cuda), "` = HIP `", stringify!($hip_const), "`.")]
        pub const $cuda: Self = Self(::$krate::$hip::$hip_const.0);
    };
    (assoc $name:ident $krate:ident::$hip:ident; $(#[$attr:meta])* $cuda:ident = $value:literal) => {
        $(#[$attr])*
        #[doc = concat!(
            " CUDA `", stringify!($cuda), "`: synthesized, HIP has no counterpart. Never returned ",
            "by any function; its value (", stringify!($value),
            ") is disjoint from every HIP value of `", stringify!($hip), "`."
        )]
        pub const $cuda: Self = Self($value);
    };
    (plain $name:ident $krate:ident::$hip:ident; $(#[$attr:meta])* $cuda:ident = $hip_const:ident) => {
        $(#[$attr])*
        #[doc = concat!(" CUDA `", stringify!($cuda), "` (= [`", stringify!($name), "::", stringify!($cuda), "`]).")]
        pub const $cuda: $name = $name::$cuda;
    };
    (plain $name:ident $krate:ident::$hip:ident; $(#[$attr:meta])* $cuda:ident = $value:literal) => {
        $(#[$attr])*
        #[doc = concat!(" CUDA `", stringify!($cuda), "`, synthesized (= [`", stringify!($name), "::", stringify!($cuda), "`]).")]
        pub const $cuda: $name = $name::$cuda;
    };
}

/// What a status enum of `cuda_enum!` adds: `ok()` and `std::error::Error`.
macro_rules! cuda_enum_kind {
    (status $name:ident) => {
        impl $name {
            /// `Ok(())` for success, else `Err(self)`.
            pub fn ok(self) -> Result<(), Self> {
                if self.0 == 0 {
                    Ok(())
                } else {
                    Err(self)
                }
            }
        }
        impl ::std::error::Error for $name {}
    };
    (plain $name:ident) => {};
}

/// A module's `enums()`: every enum of `cuda_enum!` in it with its
/// enumerators and values, as [`EnumTable`](crate::enum_tables::EnumTable)s.
///
/// ```text
/// crate::cuda_enum_tables!("runtime": cudaError = hipError_t, cudaMemcpyKind = hipMemcpyKind);
/// ```
macro_rules! cuda_enum_tables {
    ($module:literal: $($name:ident = $hip:ident),* $(,)?) => {
        #[doc = concat!(" Every enum of `", $module, "` with its enumerators and values.")]
        pub fn enums() -> Vec<crate::enum_tables::EnumTable> {
            vec![$(crate::enum_tables::EnumTable {
                cuda: stringify!($name),
                hip: stringify!($hip),
                variants: $name::VARIANTS
                    .iter()
                    .map(|(name, v)| crate::enum_tables::EnumVariant {
                        name,
                        value: v.0 as i64,
                        synthesized: v.is_synthesized(),
                        hip_name: v.to_hip().name(),
                        debug: format!("{v:?}"),
                    })
                    .collect(),
                no_hip_counterpart: &$name::NO_HIP_COUNTERPART,
            }),*]
        }
    };
}

/// CUDA-named type aliases of HIP types, each documented with the HIP name.
///
/// ```text
/// crate::cuda_type_aliases! { cudaEvent_t = hip_sys::hipEvent_t, }
/// ```
macro_rules! cuda_type_aliases {
    ($($cuda:ident = $krate:ident::$hip:ident,)*) => {
        $(
            #[doc = concat!(" CUDA `", stringify!($cuda), "`: HIP's `", stringify!($hip), "`.")]
            pub type $cuda = ::$krate::$hip;
        )*
    };
}

/// The CUDA-named function wrappers of a module: each entry is the
/// wrapper's doc line (the HIP function it calls, and how its signature
/// differs from CUDA's when it does), its signature and the HIP call with
/// the argument conversions the generator chose.
///
/// ```text
/// crate::cuda_functions! {
///     /// CUDA `cudaFree`: calls HIP's [`hipFree`](hip_sys::hipFree).
///     fn cudaFree(devPtr: *mut c_void) -> crate::runtime::cudaError = ::hip_sys::hipFree(devPtr).into();
/// }
/// ```
///
/// Every wrapper is `#[inline]` and `unsafe`, with the Safety section below
/// written once here.
macro_rules! cuda_functions {
    ($(
        $(#[$doc:meta])*
        fn $name:ident($($param:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? = $call:expr;
    )*) => {
        $(
            $(#[$doc])*
            ///
            /// Unless the line above says otherwise, this is CUDA's signature:
            /// arguments pass unchanged or as ABI-identical types.
            ///
            /// # Safety
            ///
            /// The contract of the CUDA/HIP function: valid pointers for what it
            /// reads and writes, live handles, sizes that match the buffers.
            #[inline]
            pub unsafe fn $name($($param: $ty),*) $(-> $ret)? {
                // SAFETY: the caller upholds the HIP function's contract (this
                // function's `# Safety`); the arguments are the caller's, passed
                // as the same or ABI-identical types.
                unsafe { $call }
            }
        )*
    };
}

/// Mounts one generated file of raw names as the private module `generated`
/// and re-exports all of it. The generated wrappers keep the C names and
/// hipify-perl's shapes, so the naming and style lints are off for them.
/// The path is relative to the invoking module's folder, as with `#[path]`.
///
/// `clippy::undocumented_unsafe_blocks` is off because each wrapper's unsafe
/// block only forwards the caller's arguments to the HIP function of the same
/// contract, stated in the wrapper's `# Safety`.
macro_rules! mount_generated {
    ($path:literal) => {
        #[allow(
            non_camel_case_types,
            non_upper_case_globals,
            non_snake_case,
            unused_qualifications,
            unreachable_pub,
            clippy::all,
            clippy::undocumented_unsafe_blocks,
            rustdoc::all
        )]
        #[path = $path]
        mod generated;
        pub use generated::*;
    };
}

/// The words behind a cudarc error type that holds only its status
/// (`DriverError(CUresult)`, `CublasError(cublasStatus_t)`): the reason
/// for the last error this thread got from the layer, kept per thread
/// beside the status, and printed by the error's `Debug` (and `Display`)
/// when the status matches. One call per error type, in the module that
/// defines it; it writes `fail`, `clear_detail` and the public
/// `last_error_detail` (whose doc the caller gives).
macro_rules! error_detail {
    ($(#[$doc:meta])* $error:ident($status:ty)) => {
        thread_local! {
            static DETAIL: std::cell::RefCell<Option<($status, String)>> =
                const { std::cell::RefCell::new(None) };
        }

        /// Forgets this thread's reason: the next error says only its status.
        /// (Unused where the status type's `result()` lives in another
        /// module: cuBLASLt shares cuBLAS's status.)
        #[allow(dead_code)]
        fn clear_detail() {
            DETAIL.with(|d| *d.borrow_mut() = None);
        }

        /// An error of `status` whose reason is `why`: kept for this thread
        /// and printed by `Debug`/`Display` of an error of the same status on
        /// this thread (see `last_error_detail`).
        #[cold]
        pub(crate) fn fail(status: $status, why: &str) -> $error {
            DETAIL.with(|d| *d.borrow_mut() = Some((status, why.to_owned())));
            $error(status)
        }

        $(#[$doc])*
        pub fn last_error_detail() -> Option<($status, String)> {
            DETAIL.with(|d| d.borrow().clone())
        }

        /// This error's reason on this thread, when the last error of the
        /// layer had one and the same status.
        #[allow(dead_code)]
        pub(crate) fn detail_of(status: $status) -> Option<String> {
            last_error_detail().and_then(|(s, why)| (s == status).then_some(why))
        }

        /// An error of `status` with exactly the reason `why` on this
        /// thread: `None` forgets any reason, so that an error handed on
        /// from elsewhere (a context's recorded error) never prints a stale
        /// one of the same status.
        #[allow(dead_code)]
        pub(crate) fn with_detail(status: $status, why: Option<String>) -> $error {
            DETAIL.with(|d| *d.borrow_mut() = why.map(|w| (status, w)));
            $error(status)
        }
    };
}

/// A cudarc error type that holds only its status (`CurandError(status)`,
/// `CufftError(status)`, ...), with the words kept beside it: the struct,
/// a `Debug` (and `Display`) that prints this thread's reason when the
/// status matches (see [`error_detail!`]), `std::error::Error`, and
/// `ours`, which turns the error of the safe crate underneath
/// (`hiprand::Error`, ...) into it, keeping that error's message as the
/// reason. cudarc's `result` functions call that crate's `result` layer
/// and end in `.map_err(ours)`, so the crate's checks run once and its
/// message reaches the user.
///
/// The crate's status becomes the CUDA-named status of the same value;
/// its other errors (no library loaded, an argument refused before any
/// call, a call the platform lacks, a runtime error underneath) become
/// the statuses named here.
macro_rules! status_error {
    (
        $(#[$doc:meta])*
        pub struct $error:ident(pub $status:ty);
        $(#[$ddoc:meta])*
        detail;
        from $ours:ident {
            load: $load:ident,
            invalid: $invalid:ident,
            unsupported: $unsupported:ident,
            other: $other:ident $(,)?
        }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        pub struct $error(pub $status);

        impl std::fmt::Debug for $error {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                let mut t = f.debug_tuple(stringify!($error));
                t.field(&self.0);
                if let Some(why) = detail_of(self.0) {
                    t.field(&why);
                }
                t.finish()
            }
        }

        impl std::fmt::Display for $error {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{self:?}")
            }
        }

        impl std::error::Error for $error {}

        error_detail! {
            $(#[$ddoc])*
            $error($status)
        }

        /// The error of the crate underneath as this layer's: its status
        /// when it has one, else the status its kind maps to, with its
        /// message as this thread's reason.
        #[cold]
        #[inline(never)]
        pub(crate) fn ours(e: $ours::Error) -> $error {
            let status = match (e.status(), &e) {
                (Some(s), _) => <$status>::from(s),
                (None, $ours::Error::Load(_)) => <$status>::$load,
                (None, $ours::Error::Invalid { .. }) => <$status>::$invalid,
                (None, $ours::Error::Unsupported { .. }) => <$status>::$unsupported,
                (None, _) => <$status>::$other,
            };
            fail(status, &e.to_string())
        }

        /// As [`ours`], with an argument refused before any call reported
        /// as `invalid`: the status CUDA gives for the rule the caller ran.
        #[cold]
        #[inline(never)]
        #[allow(dead_code)]
        pub(crate) fn ours_refused_as(e: $ours::Error, invalid: $status) -> $error {
            if matches!(e, $ours::Error::Invalid { .. }) {
                fail(invalid, &e.to_string())
            } else {
                ours(e)
            }
        }
    };
}

/// cudarc's `is_culib_present()` for one `sys` module: whether the HIP
/// library that module's calls go through can be loaded (loading it, and
/// the HIP runtime, on first use), as cudarc reports whether it finds the
/// CUDA library. `$library` names that library in the doc; `$present` is
/// the loader's answer.
///
/// cudarc's `culib()` has no counterpart: it hands out the CUDA library's
/// `libloading` handle for looking symbols up by their CUDA names, and the
/// HIP library standing for it exports none of those names.
macro_rules! culib_present {
    ($library:literal, $present:expr) => {
        #[doc = concat!(
                    "Whether ", $library, ", which this module's calls go through, can be\n",
                    "loaded: cudarc's `is_culib_present` for its CUDA library. Loads it (and\n",
                    "the HIP runtime) on first use; never panics.\n",
                    "\n",
                    "# Safety\n",
                    "\n",
                    "Always sound to call: it is `unsafe` only because cudarc's is (loading\n",
                    "a library runs its initialisers, as every first call into it does)."
                )]
        pub unsafe fn is_culib_present() -> bool {
            $present
        }
    };
}
