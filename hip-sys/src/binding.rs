//! The two macros every generated binding is written with, so that each C
//! function and each C enum appears once in the generated files, as its
//! declaration, and the code around it (function table, resolver, wrapper,
//! constant names, `Debug`) is written here once for every -sys crate.
//!
//! - [`loaded_functions!`](crate::loaded_functions) turns a list of C
//!   function declarations into a table of optional function pointers filled
//!   when the library is loaded, and a wrapper per function that calls
//!   through that table.
//! - [`open_enum!`](crate::open_enum) turns a C enum into an open newtype
//!   with one associated constant per enumerator: a value the library returns
//!   that the bindings do not know stays a valid value (no undefined
//!   behaviour), as `Debug` and `name()` show.
//!
//! Both are exported so that the other -sys crates of the workspace
//! (`hipblas-sys`, and the crates for the next libraries) use them as
//! `hip_sys::loaded_functions!` and `hip_sys::open_enum!`; they are written
//! by `hip-generator`, not by hand.

/// Declares the functions of a library that is opened at run time.
///
/// Written once per -sys crate by `hip-generator`, in
/// `src/generated/functions.rs`. From one declaration per C function it
/// produces:
///
/// - `FUNCTION_NAMES: [&str; N]`, the C names in declaration order;
/// - `LEGACY_SYMBOLS`, the bindings resolved from another symbol on older
///   runtimes, as given;
/// - the table struct, one `Option<unsafe extern "C" fn(..) -> R>` field per
///   function, with `EMPTY`, `resolve` (fills it through a symbol lookup),
///   `present`, `is_available`, `available_count` and a short `Debug`;
/// - one `pub unsafe fn` per function with the C signature, which calls the
///   table's pointer, returns [`Unavailable::symbol_missing`] when the
///   loaded library lacks the symbol and [`Unavailable::library_missing`]
///   when no library is loaded (see [`Unavailable`] for the statuses).
///
/// The `accessor` is an expression of type `Option<&'static Table>` (the
/// loader's table, or `None` before a library is loaded). The return type of
/// every function must implement the `unavailable` trait (which is
/// [`Unavailable`] or a trait with the same two functions).
///
/// [`Unavailable`]: crate::Unavailable
/// [`Unavailable::symbol_missing`]: crate::Unavailable::symbol_missing
/// [`Unavailable::library_missing`]: crate::Unavailable::library_missing
///
/// # Example
///
/// ```
/// use std::ffi::{c_int, c_void, CStr};
///
/// /// The status type of a made-up library.
/// #[derive(Debug, PartialEq)]
/// pub struct status_t(c_int);
/// impl hip_sys::Unavailable for status_t {
///     fn library_missing() -> Self {
///         status_t(-1)
///     }
///     fn symbol_missing() -> Self {
///         status_t(-2)
///     }
/// }
///
/// static TABLE: std::sync::OnceLock<ExampleFunctions> = std::sync::OnceLock::new();
///
/// hip_sys::loaded_functions! {
///     library: "the example library (`libexample`)",
///     table: ExampleFunctions,
///     accessor: TABLE.get(),
///     unavailable: hip_sys::Unavailable,
///     legacy_symbols: [("exampleAdd", "exampleAddOld", 2)],
///     functions: {
///         /// Adds `a` and `b` into `*sum`.
///         pub unsafe fn exampleAdd(a: c_int, b: c_int, sum: *mut c_int) -> status_t;
///     }
/// }
///
/// unsafe extern "C" fn add(a: c_int, b: c_int, sum: *mut c_int) -> status_t {
///     // SAFETY: the caller passes a valid `sum`.
///     unsafe { *sum = a + b };
///     status_t(0)
/// }
///
/// // No table yet: the wrapper reports the missing library.
/// let mut sum = 0;
/// // SAFETY: `sum` is a valid place to write.
/// assert_eq!(unsafe { exampleAdd(1, 2, &mut sum) }, status_t(-1));
///
/// let mut lookup = |name: &'static CStr| -> *mut c_void {
///     if name == c"exampleAdd" { add as *mut c_void } else { std::ptr::null_mut() }
/// };
/// // SAFETY: the address given for `exampleAdd` is a function of its signature.
/// let table = unsafe { ExampleFunctions::resolve(&mut lookup) };
/// assert!(table.is_available("exampleAdd"));
/// assert_eq!(FUNCTION_NAMES, ["exampleAdd"]);
/// TABLE.set(table).unwrap();
/// // SAFETY: as above.
/// assert_eq!(unsafe { exampleAdd(1, 2, &mut sum) }, status_t(0));
/// assert_eq!(sum, 3);
/// ```
#[macro_export]
macro_rules! loaded_functions {
    // The matcher takes each function's attributes, parameters and return
    // type as token trees and leaves their parsing to the small per-function
    // helpers below: matching 1,849 declarations' parameters and doc
    // attributes as fragments here took rustc 25 s, token trees take 2 s.
    (
        library: $library:literal,
        table: $table:ident,
        accessor: $accessor:expr,
        unavailable: $unavailable:path,
        legacy_symbols: [$(($binding:literal, $symbol:literal, $before_major:literal)),* $(,)?],
        functions: {
            $(
                $(#$attr:tt)*
                pub unsafe fn $name:ident $params:tt -> $ret:ty;
            )*
        }
    ) => {
        /// Names of every bound function, in the order of the table's fields.
        pub const FUNCTION_NAMES: [&str; [$(stringify!($name)),*].len()] =
            [$(stringify!($name)),*];

        /// Bindings resolved from another symbol when the loaded runtime's
        /// major version is below the third value: (binding, symbol, major).
        pub const LEGACY_SYMBOLS: &[(&str, &str, u32)] =
            &[$(($binding, $symbol, $before_major)),*];

        #[doc = concat!(
            "Every function of ", $library, " as an optional pointer, resolved once when the \
             library is loaded (or filled by a platform backend). `None` means the symbol is \
             unavailable."
        )]
        #[derive(Clone, Copy)]
        pub struct $table {
            $(
                #[doc = concat!("`", stringify!($name), "`, when available.")]
                pub $name: ::core::option::Option<
                    $crate::__loaded_function_pointer!($params -> $ret)
                >,
            )*
        }

        impl $table {
            /// A table with no function available.
            pub const EMPTY: Self = Self {
                $($name: ::core::option::Option::None,)*
            };

            /// Resolves every function through `lookup`, which returns the
            /// symbol's address for a name, or null when it is absent.
            ///
            /// # Safety
            /// A non-null address returned for a name must be the function of
            /// that name with the C signature declared in the header.
            pub unsafe fn resolve(
                lookup: &mut dyn FnMut(&'static ::core::ffi::CStr) -> *mut ::core::ffi::c_void,
            ) -> Self {
                Self {
                    $($name: {
                        // SAFETY: a Rust identifier holds no NUL byte, and
                        // `concat!` ends the bytes with one: a C string.
                        let c_name = unsafe {
                            ::core::ffi::CStr::from_bytes_with_nul_unchecked(
                                concat!(stringify!($name), "\0").as_bytes(),
                            )
                        };
                        let address = lookup(c_name);
                        if address.is_null() {
                            ::core::option::Option::None
                        } else {
                            // SAFETY: the caller guarantees that a non-null
                            // address for this name is the C function of this
                            // name, whose signature is the one declared here
                            // (generated from its header).
                            ::core::option::Option::Some(unsafe {
                                ::core::mem::transmute::<
                                    *mut ::core::ffi::c_void,
                                    $crate::__loaded_function_pointer!($params -> $ret),
                                >(address)
                            })
                        }
                    },)*
                }
            }

            /// Which functions are available, in the order of [`FUNCTION_NAMES`].
            pub fn present(&self) -> [bool; FUNCTION_NAMES.len()] {
                [$(self.$name.is_some()),*]
            }

            /// Whether the function of this C name is available (false for
            /// names these bindings do not have).
            pub fn is_available(&self, name: &str) -> bool {
                FUNCTION_NAMES
                    .iter()
                    .position(|n| *n == name)
                    .is_some_and(|i| self.present()[i])
            }

            /// How many of the bound functions are available.
            pub fn available_count(&self) -> usize {
                self.present().iter().filter(|p| **p).count()
            }
        }

        impl $crate::loader::common::FunctionTable for $table {
            fn is_available(&self, name: &str) -> bool {
                $table::is_available(self, name)
            }

            fn available_count(&self) -> usize {
                $table::available_count(self)
            }
        }

        impl ::core::fmt::Debug for $table {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                ::core::write!(
                    f,
                    concat!(stringify!($table), " {{ {} of {} available }}"),
                    self.available_count(),
                    FUNCTION_NAMES.len()
                )
            }
        }

        $(
            $crate::__loaded_function_wrapper! {
                [$(#$attr)*]
                library: $library,
                accessor: $accessor,
                unavailable: $unavailable,
                fn $name $params -> $ret
            }
        )*
    };
}

/// The function-pointer type of one declaration of
/// [`loaded_functions!`](crate::loaded_functions): `(a: A, b: B) -> R` gives
/// `unsafe extern "C" fn(A, B) -> R`. Not API: used by that macro only.
#[doc(hidden)]
#[macro_export]
macro_rules! __loaded_function_pointer {
    (($($param:ident: $ty:ty),* $(,)?) -> $ret:ty) => {
        unsafe extern "C" fn($($ty),*) -> $ret
    };
}

/// The wrapper of one declaration of
/// [`loaded_functions!`](crate::loaded_functions). Not API: used by that
/// macro only.
#[doc(hidden)]
#[macro_export]
macro_rules! __loaded_function_wrapper {
    (
        [$(#$attr:tt)*]
        library: $library:literal,
        accessor: $accessor:expr,
        unavailable: $unavailable:path,
        fn $name:ident($($param:ident: $ty:ty),* $(,)?) -> $ret:ty
    ) => {
        $(#$attr)*
        #[doc = ""]
        #[doc = concat!(
            " Calls `", stringify!($name), "` from ", $library, ". When the library is not \
             loaded, or lacks this symbol, returns the status that [`Unavailable`](",
            stringify!($unavailable), ") gives for the return type."
        )]
        #[doc = ""]
        #[doc = " # Safety"]
        #[doc = ""]
        #[doc = " A raw FFI call: the caller upholds the C function's contract (valid \
                 pointers for what it reads and writes, live handles, sizes that match the \
                 buffers)."]
        #[inline]
        pub unsafe fn $name($($param: $ty),*) -> $ret {
            match $accessor {
                ::core::option::Option::Some(table) => match table.$name {
                    // SAFETY: forwarded to the C function with the caller's
                    // arguments; the caller upholds its contract.
                    ::core::option::Option::Some(c_function) => unsafe {
                        c_function($($param),*)
                    },
                    ::core::option::Option::None => <$ret as $unavailable>::symbol_missing(),
                },
                ::core::option::Option::None => <$ret as $unavailable>::library_missing(),
            }
        }
    };
}

/// Declares a C enum as an open newtype: `#[repr(transparent)] pub struct
/// Name(pub Repr)` with one associated constant per enumerator.
///
/// Written by `hip-generator`, once per enum, in `src/generated/types.rs`.
/// The struct derives `Copy`, `Clone`, `Hash`, `PartialEq` and `Eq`; it
/// gets `name()` (the C name of a known value: the first enumerator of that
/// value, `None` for a value the bindings do not know) and a `Debug` that
/// prints that name, or `Name(value)` for an unknown value. Any value of the
/// representation is a valid value of the type, so a status a newer library
/// returns is never undefined behaviour.
///
/// # Example
///
/// ```
/// hip_sys::open_enum! {
///     /// What a made-up call returns.
///     #[must_use]
///     pub struct exampleStatus_t(std::ffi::c_int) {
///         /// It worked.
///         exampleSuccess = 0,
///         exampleFailure = -1,
///     }
/// }
///
/// assert_eq!(exampleStatus_t::exampleFailure.name(), Some("exampleFailure"));
/// assert_eq!(format!("{:?}", exampleStatus_t::exampleSuccess), "exampleSuccess");
/// assert_eq!(format!("{:?}", exampleStatus_t(7)), "exampleStatus_t(7)");
/// ```
#[macro_export]
macro_rules! open_enum {
    (
        $(#$attr:tt)*
        pub struct $name:ident($repr:ty) {
            $(
                $(#$value_attr:tt)*
                $value_name:ident = $value:expr,
            )*
        }
    ) => {
        $(#$attr)*
        #[repr(transparent)]
        #[derive(Copy, Clone, Hash, PartialEq, Eq)]
        pub struct $name(pub $repr);

        impl $name {
            $(
                $(#$value_attr)*
                pub const $value_name: $name = $name($value);
            )*

            /// The C name of this value, or `None` for a value these
            /// bindings do not know (a newer runtime may return one).
            #[allow(unreachable_patterns)]
            pub const fn name(self) -> ::core::option::Option<&'static str> {
                match self {
                    $(Self::$value_name => ::core::option::Option::Some(stringify!($value_name)),)*
                    _ => ::core::option::Option::None,
                }
            }
        }

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    ::core::option::Option::Some(n) => f.write_str(n),
                    ::core::option::Option::None => {
                        ::core::write!(f, concat!(stringify!($name), "({})"), self.0)
                    }
                }
            }
        }
    };
}

/// `is_success()` and `ok()` for a status type made by [`open_enum!`]: the
/// two methods every -sys crate's status has, with `success` its success
/// value.
///
/// ```
/// hip_sys::open_enum! {
///     /// A status.
///     #[must_use]
///     pub struct demoStatus_t(u32) { demoSuccess = 0, demoFailure = 1, }
/// }
/// hip_sys::status_result!(demoStatus_t, demoSuccess);
///
/// assert!(demoStatus_t::demoSuccess.ok().is_ok());
/// assert_eq!(demoStatus_t::demoFailure.ok(), Err(demoStatus_t::demoFailure));
/// assert!(!demoStatus_t(9).is_success());
/// ```
#[macro_export]
macro_rules! status_result {
    ($status:ident, $success:ident) => {
        impl $status {
            #[doc = concat!("Whether this is `", stringify!($success), "`.")]
            pub const fn is_success(self) -> bool {
                self.0 == $status::$success.0
            }

            #[doc = concat!("`Ok(())` for `", stringify!($success), "`, else `Err(self)`.")]
            pub const fn ok(self) -> ::core::result::Result<(), $status> {
                if self.is_success() {
                    Ok(())
                } else {
                    Err(self)
                }
            }
        }
    };
}

/// The macros' generated code run end to end on a made-up library whose
/// functions are Rust `extern "C"` functions, and the real generated table
/// resolved through a fake lookup: no library is opened, so Miri checks the
/// transmutes of addresses to function pointers and the calls through them
/// (`scripts/miri.sh`).
#[cfg(test)]
#[allow(
    non_camel_case_types,
    non_snake_case,
    non_upper_case_globals,
    unreachable_pub
)] // as generated
mod tests {
    use core::ffi::{c_int, c_void, CStr};
    use std::sync::OnceLock;

    crate::open_enum! {
        /// The made-up library's status.
        pub struct fakeStatus_t(c_int) {
            fakeSuccess = 0,
            fakeFailure = 1,
            fakeNoLibrary = -1,
            fakeNoSymbol = -2,
        }
    }
    crate::status_result!(fakeStatus_t, fakeSuccess);

    impl crate::Unavailable for fakeStatus_t {
        fn library_missing() -> Self {
            fakeStatus_t::fakeNoLibrary
        }
        fn symbol_missing() -> Self {
            fakeStatus_t::fakeNoSymbol
        }
    }

    static TABLE: OnceLock<FakeFunctions> = OnceLock::new();

    crate::loaded_functions! {
        library: "the fake library",
        table: FakeFunctions,
        accessor: TABLE.get(),
        unavailable: crate::Unavailable,
        legacy_symbols: [("fakeSum", "fakeSumOld", 3)],
        functions: {
            /// Writes the sum of `n` values at `values` to `*sum`.
            pub unsafe fn fakeSum(values: *const i64, n: usize, sum: *mut i64) -> fakeStatus_t;
            /// Absent from the fake library.
            pub unsafe fn fakeAbsent(x: c_int) -> fakeStatus_t;
            /// Fills `n` bytes at `out` with `byte`.
            pub unsafe fn fakeFill(out: *mut u8, n: usize, byte: u8) -> fakeStatus_t;
        }
    }

    unsafe extern "C" fn sum(values: *const i64, n: usize, out: *mut i64) -> fakeStatus_t {
        if values.is_null() || out.is_null() {
            return fakeStatus_t::fakeFailure;
        }
        // SAFETY: the caller passes `n` readable values and a writable sum.
        unsafe { *out = std::slice::from_raw_parts(values, n).iter().sum() };
        fakeStatus_t::fakeSuccess
    }

    unsafe extern "C" fn fill(out: *mut u8, n: usize, byte: u8) -> fakeStatus_t {
        // SAFETY: the caller passes `n` writable bytes.
        unsafe { out.write_bytes(byte, n) };
        fakeStatus_t::fakeSuccess
    }

    fn lookup(name: &'static CStr) -> *mut c_void {
        match name.to_bytes() {
            b"fakeSum" => sum as *mut c_void,
            b"fakeFill" => fill as *mut c_void,
            _ => std::ptr::null_mut(),
        }
    }

    #[test]
    fn wrappers_report_the_library_then_call_through_the_resolved_table() {
        let values = [3i64, -1, 40];
        let mut total = 0;
        // SAFETY: three values to read and a sum to write.
        let status = unsafe { fakeSum(values.as_ptr(), values.len(), &mut total) };
        // Another test may have filled the table already.
        if TABLE.get().is_none() {
            assert_eq!(status, fakeStatus_t::fakeNoLibrary);
            assert_eq!(total, 0);
        }
        let mut names = Vec::new();
        let mut record = |name: &'static CStr| {
            names.push(name.to_str().unwrap());
            lookup(name)
        };
        // SAFETY: `lookup` gives each name its function, of the declared
        // signature, or null.
        let table = unsafe { FakeFunctions::resolve(&mut record) };
        assert_eq!(names, FUNCTION_NAMES);
        assert_eq!(FakeFunctions::EMPTY.available_count(), 0);
        assert_eq!(FUNCTION_NAMES, ["fakeSum", "fakeAbsent", "fakeFill"]);
        assert_eq!(LEGACY_SYMBOLS, [("fakeSum", "fakeSumOld", 3)]);
        assert_eq!(table.present(), [true, false, true]);
        assert!(table.is_available("fakeFill"));
        assert!(!table.is_available("fakeAbsent"));
        assert!(!table.is_available("fakeUnknown"));
        assert_eq!(table.available_count(), 2);
        assert_eq!(format!("{table:?}"), "FakeFunctions { 2 of 3 available }");
        let _ = TABLE.set(table);

        // SAFETY: as above.
        assert!(unsafe { fakeSum(values.as_ptr(), values.len(), &mut total) }.is_success());
        assert_eq!(total, 42);
        // SAFETY: takes a value.
        assert_eq!(unsafe { fakeAbsent(1) }, fakeStatus_t::fakeNoSymbol);
        let mut bytes = [0u8; 9];
        // SAFETY: nine writable bytes.
        assert!(unsafe { fakeFill(bytes.as_mut_ptr().add(2), 5, 7) }
            .ok()
            .is_ok());
        assert_eq!(bytes, [0, 0, 7, 7, 7, 7, 7, 0, 0]);
        // SAFETY: null pointers are refused by the fake.
        let refused = unsafe { fakeSum(std::ptr::null(), 0, std::ptr::null_mut()) };
        assert_eq!(refused.ok(), Err(fakeStatus_t::fakeFailure));
    }

    #[test]
    fn open_enums_name_known_values_and_keep_unknown_ones() {
        assert_eq!(fakeStatus_t::fakeFailure.name(), Some("fakeFailure"));
        assert_eq!(fakeStatus_t(77).name(), None);
        assert_eq!(format!("{:?}", fakeStatus_t(77)), "fakeStatus_t(77)");
        assert_eq!(format!("{:?}", fakeStatus_t(-2)), "fakeNoSymbol");
        assert!(!fakeStatus_t(77).is_success());
        assert_eq!(
            crate::hipError_t::hipErrorInvalidValue.name(),
            Some("hipErrorInvalidValue")
        );
    }

    #[test]
    fn the_generated_runtime_table_resolves_only_what_the_lookup_gives() {
        unsafe extern "C" fn count(n: *mut c_int) -> crate::hipError_t {
            // SAFETY: the caller passes a writable int.
            unsafe { *n = 3 };
            crate::hipError_t::hipSuccess
        }
        let mut asked = 0usize;
        let mut lookup = |name: &'static CStr| {
            asked += 1;
            if name == c"hipGetDeviceCount" {
                count as *mut c_void
            } else {
                std::ptr::null_mut()
            }
        };
        // SAFETY: the only address given is a function of the declared
        // signature of `hipGetDeviceCount`.
        let table = unsafe { crate::HipFunctions::resolve(&mut lookup) };
        assert!(asked > 100, "{asked} names asked");
        assert_eq!(table.available_count(), 1);
        assert!(table.is_available("hipGetDeviceCount"));
        let mut n = 0;
        let f = table.hipGetDeviceCount.unwrap();
        // SAFETY: `n` is writable; `f` is `count`.
        assert!(unsafe { f(&mut n) }.is_success());
        assert_eq!(n, 3);
    }
}
