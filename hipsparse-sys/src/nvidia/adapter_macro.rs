//! `cusparse_adapters!`: one line per hipSPARSE function implemented over
//! the cuSPARSE function that takes the same arguments in the same order.
//!
//! ```text
//! binding(first: T, arg: T, ...) => "cusparseName";
//! ```
//!
//! The parameter list is the binding's own, so the adapter has the
//! binding's exact signature. Each argument is converted with its type's
//! [`ToCu`](super::convert::ToCu). The lines are written by `cargo run -p
//! hip-generator -- nvidia-tables` (`adapters.rs`), which checks each one
//! against `cusparse.h` first: a `cusparseStatus_t` return, as many
//! parameters, and each parameter's C type equal to the C type that the
//! `[nvidia]` table of `build.rs-tools/generator/libraries/hipsparse.toml`
//! gives for the binding's type (`c_types`), pointers with their const-ness
//! (a pointer hipSPARSE declares mutable may be const in cuSPARSE). That
//! `ToCu` yields values of those C types (an `i32` for each C enum,
//! integers, floats and pointers unchanged) is `convert.rs`'s claim.
//!
//! Each adapter's cuSPARSE symbol is a
//! [`Symbol`](hip_sys::loader::common::Symbol) of the
//! [`CUSPARSE`](super::CUSPARSE) slot, in a module named after the binding,
//! so `install` can ask whether it exists.

/// The adapters, `ADAPTERS` and `install`; see the module documentation.
macro_rules! cusparse_adapters {
    ($(
        $hip:ident ( $($a:ident : $t:ty),* ) => $cu:literal;
    )*) => {
        $(
            #[allow(non_snake_case)]
            mod $hip {
                /// The cuSPARSE function this adapter calls.
                pub(super) static SYMBOL: ::hip_sys::loader::common::Symbol =
                    ::hip_sys::loader::common::Symbol::new(
                        &$crate::nvidia::CUSPARSE,
                        match ::core::ffi::CStr::from_bytes_with_nul(concat!($cu, "\0").as_bytes()) {
                            Ok(name) => name,
                            Err(_) => panic!("a cuSPARSE name without NUL bytes"),
                        },
                    );
            }

            #[doc = concat!("`", stringify!($hip), "` over `", $cu, "`.")]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            unsafe extern "C" fn $hip($($a: $t),*) -> $crate::hipsparseStatus_t {
                let Some(f) = $hip::SYMBOL.address() else {
                    return $crate::hipsparseStatus_t::HIPSPARSE_STATUS_NOT_SUPPORTED;
                };
                $(
                    let $a = match $crate::nvidia::convert::ToCu::to_cu($a) {
                        Ok(v) => v,
                        Err(e) => return e,
                    };
                )*
                // SAFETY: `f` is the address of the cuSPARSE function. The
                // generator compared its declaration in cusparse.h with this
                // line: a cusparseStatus_t return, as many parameters, and
                // each parameter's C type equal to the one hipsparse.toml's
                // `c_types` names for the binding type, which is the C type
                // of what `ToCu` yields; C enums are `int`-sized, like the
                // `i32` they become.
                let f = unsafe {
                    ::core::mem::transmute::<
                        *mut ::core::ffi::c_void,
                        unsafe extern "C" fn(
                            $(<$t as $crate::nvidia::convert::ToCu>::Cu),*
                        ) -> $crate::nvidia::convert::CusparseStatus,
                    >(f)
                };
                // SAFETY: the caller upholds the binding's contract, which is
                // the cuSPARSE function's.
                $crate::nvidia::convert::from_cusparse(unsafe { f($($a),*) })
            }
        )*

        /// (hipSPARSE binding, cuSPARSE symbol) for every adapter.
        pub(crate) const ADAPTERS: &[(&str, &str)] = &[$((stringify!($hip), $cu)),*];

        /// Puts every adapter whose cuSPARSE symbol the loaded library has
        /// into `table` (each symbol is looked up here, once).
        pub(crate) fn install(table: &mut $crate::generated::functions::HipsparseFunctions) {
            $(
                if $hip::SYMBOL.address().is_some() {
                    table.$hip = Some($hip);
                }
            )*
        }
    };
}
pub(crate) use cusparse_adapters;
