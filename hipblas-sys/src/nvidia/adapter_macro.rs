//! `cublas_adapters!`: one line per hipBLAS function implemented over the
//! cuBLAS function that takes the same arguments in the same order.
//!
//! ```text
//! binding(handle: T, arg: T, arg @ kind: T, ...; unused flags: T) => "cublasName";
//! ```
//!
//! The parameter list is the binding's own (its first parameter is the
//! handle), so the adapter has the binding's exact signature. Each argument
//! is converted with its type's [`ToCu`](super::convert::ToCu) unless a
//! `@ kind` says otherwise:
//!
//! - `v1_compute`: a v1 `computeType` (a datatype) becomes a
//!   `cublasComputeType_t` as cuBLAS's own migration does
//!   ([`v1_compute_type`](super::convert::v1_compute_type));
//! - `scalar16`: a double-complex host scalar cuBLAS reads with 16-byte
//!   aligned loads goes through an aligned copy
//!   ([`HostScalar16`](super::convert::HostScalar16));
//! - `result16`: a double-complex host result is written to an aligned slot
//!   and copied back on success
//!   ([`HostResult16`](super::convert::HostResult16));
//!
//! and the parameter after `; unused` (hipBLAS's GEMM `flags`) is not
//! passed on. The lines are written by `cargo run -p hip-generator --
//! nvidia-tables` (`adapters.rs`), which checks each one against
//! `cublas_api.h` first: a `cublasStatus_t` return, as many parameters as
//! are passed on, and each parameter's C type equal to the C type that the
//! `[nvidia]` table of `build.rs-tools/generator/libraries/hipblas.toml`
//! gives for the binding's type (`c_types`, the types `ToCu` converts to) or
//! for its kind, pointers with their const-ness (a pointer hipBLAS declares
//! mutable may be const in cuBLAS). That `ToCu` yields values of those C
//! types (an `i32` for each C enum, integers, floats and pointers unchanged)
//! is `convert.rs`'s claim, not something the generator checks.
//!
//! Each adapter's cuBLAS symbol is a [`Symbol`](hip_sys::loader::common::Symbol)
//! of the [`CUBLAS`](super::CUBLAS) slot, in a module named after the
//! binding (modules and functions have separate namespaces), so `install`
//! can ask whether it exists.

/// One argument's conversion, type and use, by its `@ kind` (none: `ToCu`).
macro_rules! cu_arg {
    (convert [] $h:ident, $a:ident) => {
        match $crate::nvidia::convert::ToCu::to_cu($a) {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
    (convert [v1_compute] $h:ident, $a:ident) => {
        match $crate::nvidia::convert::v1_compute_type($h, $a) {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
    (convert [scalar16] $h:ident, $a:ident) => {
        // SAFETY: in host pointer mode a non-null double-complex scalar has
        // 16 readable bytes (the caller's contract for the binding).
        match unsafe { $crate::nvidia::convert::HostScalar16::new($h, $a) } {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
    (convert [result16] $h:ident, $a:ident) => {
        match $crate::nvidia::convert::HostResult16::new($h, $a) {
            Ok(v) => v,
            Err(e) => return e,
        }
    };
    (type [] $t:ty) => {
        <$t as $crate::nvidia::convert::ToCu>::Cu
    };
    (type [v1_compute] $t:ty) => {
        i32
    };
    (type [scalar16] $t:ty) => {
        $t
    };
    (type [result16] $t:ty) => {
        $t
    };
    (pass [] $a:ident) => {
        $a
    };
    (pass [v1_compute] $a:ident) => {
        $a
    };
    (pass [scalar16] $a:ident) => {
        $a.as_ptr()
    };
    (pass [result16] $a:ident) => {
        $a.as_mut_ptr()
    };
    (finish [result16] $a:ident, $ok:expr) => {
        // SAFETY: in host pointer mode a non-null double-complex result has
        // 16 writable bytes (the caller's contract for the binding), and
        // cuBLAS has written the slot before returning.
        unsafe { $a.finish($ok) }
    };
    (finish [$($kind:ident)?] $a:ident, $ok:expr) => {};
}
pub(crate) use cu_arg;

/// The adapters, `ADAPTERS` and `install`; see the module documentation.
macro_rules! cublas_adapters {
    ($(
        $hip:ident (
            $h:ident : $ht:ty
            $(, $a:ident $(@ $kind:ident)? : $t:ty)*
            $(; unused $u:ident : $ut:ty)?
        ) => $cu:literal;
    )*) => {
        $(
            #[allow(non_snake_case)]
            mod $hip {
                /// The cuBLAS function this adapter calls.
                pub(super) static SYMBOL: ::hip_sys::loader::common::Symbol =
                    ::hip_sys::loader::common::Symbol::new(
                        &$crate::nvidia::CUBLAS,
                        match ::core::ffi::CStr::from_bytes_with_nul(concat!($cu, "\0").as_bytes()) {
                            Ok(name) => name,
                            Err(_) => panic!("a cuBLAS name without NUL bytes"),
                        },
                    );
            }

            #[doc = concat!("`", stringify!($hip), "` over `", $cu, "`.")]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            unsafe extern "C" fn $hip(
                $h: $ht $(, $a: $t)* $(, $u: $ut)?
            ) -> $crate::hipblasStatus_t {
                let Some(f) = $hip::SYMBOL.address() else {
                    return $crate::hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED;
                };
                // cuBLAS has no GEMM flags: they steer rocBLAS's kernels only.
                $(let _ = $u;)?
                let $h = $crate::nvidia::adapter_macro::cu_arg!(convert [] $h, $h);
                $(
                    let $a = $crate::nvidia::adapter_macro::cu_arg!(convert [$($kind)?] $h, $a);
                )*
                // SAFETY: `f` is the address of the cuBLAS function. The
                // generator compared its declaration in cublas_api.h with this
                // line: a cublasStatus_t return, as many parameters as are
                // passed here, and each parameter's C type equal to the one
                // hipblas.toml's `c_types` names for the binding type (or its
                // rule's), which is the C type of what `ToCu` (or the kind's
                // conversion) yields; C enums are `int`-sized, like the `i32`
                // they become.
                let f = unsafe {
                    ::core::mem::transmute::<
                        *mut ::core::ffi::c_void,
                        unsafe extern "C" fn(
                            $crate::nvidia::adapter_macro::cu_arg!(type [] $ht)
                            $(, $crate::nvidia::adapter_macro::cu_arg!(type [$($kind)?] $t))*
                        ) -> $crate::nvidia::convert::CublasStatus,
                    >(f)
                };
                // SAFETY: the caller upholds the binding's contract, which is
                // the cuBLAS function's; the aligned slots live until after
                // the call.
                let status = $crate::nvidia::convert::from_cublas(unsafe {
                    f($h $(, $crate::nvidia::adapter_macro::cu_arg!(pass [$($kind)?] $a))*)
                });
                $(
                    $crate::nvidia::adapter_macro::cu_arg!(
                        finish [$($kind)?] $a,
                        status == $crate::hipblasStatus_t::HIPBLAS_STATUS_SUCCESS
                    );
                )*
                status
            }
        )*

        /// (hipBLAS binding, cuBLAS symbol) for every adapter.
        pub(crate) const ADAPTERS: &[(&str, &str)] = &[$((stringify!($hip), $cu)),*];

        /// Puts every adapter whose cuBLAS symbol the loaded library has into
        /// `table` (each symbol is looked up here, once).
        pub(crate) fn install(table: &mut $crate::generated::functions::HipblasFunctions) {
            $(
                if $hip::SYMBOL.address().is_some() {
                    table.$hip = Some($hip);
                }
            )*
        }
    };
}
pub(crate) use cublas_adapters;

#[cfg(test)]
mod tests {
    use crate::generated::functions::HipblasFunctions;
    use crate::*;
    use core::ffi::*;

    // Every conversion kind, in adapters of this test's own (the generated
    // ones are the same expansion): `result16`, `scalar16`, `v1_compute`
    // and an unused last parameter.
    cublas_adapters! {
    hipblasZaxpy_v2(handle: hipblasHandle_t, n: c_int, alpha @ scalar16: *const hipDoubleComplex, x: *const hipDoubleComplex, incx: c_int, y: *mut hipDoubleComplex, incy: c_int) => "cublasZaxpy_v2";
    hipblasZdotc_v2(handle: hipblasHandle_t, n: c_int, x: *const hipDoubleComplex, incx: c_int, y: *const hipDoubleComplex, incy: c_int, result @ result16: *mut hipDoubleComplex) => "cublasZdotc_v2";
    hipblasGemmExWithFlags(handle: hipblasHandle_t, transA: hipblasOperation_t, transB: hipblasOperation_t, m: c_int, n: c_int, k: c_int, alpha: *const c_void, A: *const c_void, aType: hipblasDatatype_t, lda: c_int, B: *const c_void, bType: hipblasDatatype_t, ldb: c_int, beta: *const c_void, C: *mut c_void, cType: hipblasDatatype_t, ldc: c_int, computeType @ v1_compute: hipblasDatatype_t, algo: hipblasGemmAlgo_t; unused flags: hipblasGemmFlags_t) => "cublasGemmEx";
    }

    #[test]
    fn without_cublas_an_adapter_reports_not_supported_and_is_not_installed() {
        assert!(
            !super::super::CUBLAS.is_filled(),
            "this test needs a process in which cuBLAS was not loaded"
        );
        let mut table = HipblasFunctions::EMPTY;
        install(&mut table);
        assert!(table.hipblasZdotc_v2.is_none() && table.hipblasZaxpy_v2.is_none());
        assert!(table.hipblasGemmExWithFlags.is_none());
        assert_eq!(
            ADAPTERS,
            &[
                ("hipblasZaxpy_v2", "cublasZaxpy_v2"),
                ("hipblasZdotc_v2", "cublasZdotc_v2"),
                ("hipblasGemmExWithFlags", "cublasGemmEx"),
            ]
        );
        let x = [hipDoubleComplex { x: 1.5, y: -2.0 }; 2];
        let mut result = hipDoubleComplex { x: 7.0, y: 8.0 };
        // SAFETY: valid vectors of 2 and a valid result; the adapter returns
        // before reading any of them (no cuBLAS symbol).
        let status = unsafe {
            hipblasZdotc_v2(
                std::ptr::null_mut(),
                2,
                x.as_ptr(),
                1,
                x.as_ptr(),
                1,
                &mut result,
            )
        };
        assert_eq!(status, hipblasStatus_t::HIPBLAS_STATUS_NOT_SUPPORTED);
        assert_eq!((result.x, result.y), (7.0, 8.0), "the result was touched");
    }
}
