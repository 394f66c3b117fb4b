//! The adapter kit of the NVIDIA backends: a HIP library function
//! implemented over the CUDA library function that takes the same
//! arguments in the same order (`hipblasSaxpy` over `cublasSaxpy_v2`,
//! `hipfftPlan1d` over `cufftPlan1d`).
//!
//! Each -sys crate says how its argument types reach CUDA, by implementing
//! [`ToCuda`] for them (and [`Held`] for what must live across the call), and
//! lists its adapters in one invocation of [`cuda_adapters!`](crate::cuda_adapters),
//! which `cargo run -p hip-generator -- nvidia-tables` writes from the
//! `[nvidia.adapters]` table of the library's manifest after checking each
//! line against the CUDA header. The macro gives every line:
//!
//! - a function with the binding's exact signature (so it fits the field of
//!   the crate's function table), which converts each argument, calls the
//!   CUDA function and translates its status back; an argument whose
//!   conversion fails returns the HIP status the conversion chose, before
//!   CUDA is called;
//! - a [`Symbol`](super::common::Symbol) of the CUDA library's slot, looked
//!   up once, so that `install` puts an adapter in the table only when the
//!   loaded CUDA library has its function;
//! - a row of `ADAPTERS`, `(HIP name, CUDA name)`, which the crate's coverage
//!   test reads.
//!
//! ```text
//! hipblasZdotc_v2(handle: hipblasHandle_t, n: c_int, ..., result @ Result16: *mut hipDoubleComplex) => "cublasZdotc_v2";
//! hipblasGemmExWithFlags(handle: hipblasHandle_t, ...; unused flags: hipblasGemmFlags_t) => "cublasGemmEx";
//! ```
//!
//! An argument marked `@ Kind` is converted by that [`Kind`] instead of its
//! type's [`ToCuda`] (a kind sees the first argument too: hipBLAS's compute
//! type depends on the handle's math mode); the parameter after `; unused`
//! is taken and not passed on. A line that ends with a pass list calls the
//! CUDA function with exactly those values, in that order: arguments by
//! name and constants in scope, each with its binding type (hipSOLVER's own
//! API drops a `work`/`lwork` pair cuSOLVER does not take, or inserts the
//! null workspace a size query of cuSOLVER's takes and ignores):
//!
//! ```text
//! hipsolverSgetrs(handle: H, ..., work: *mut f32, lwork: c_int, devInfo: *mut c_int)
//!     => "cusolverDnSgetrs"(handle: H, ..., devInfo: *mut c_int);
//! ```

/// The HIP library a set of conversions belongs to: its status type, or,
/// where the status type is another crate's (hipBLASLt returns hipBLAS's
/// `hipblasStatus_t`), a marker type of the crate's own, which the orphan
/// rule requires.
pub trait Library {
    /// What the library's functions return.
    type Status;
}

/// A HIP library's argument type on its way to the CUDA library: `L` is
/// the HIP library ([`Library`]), whose status is returned instead of
/// calling CUDA when the value has no CUDA counterpart.
pub trait ToCuda<L: Library>: Sized {
    /// What the adapter keeps in its frame across the call.
    type Held: Held;
    /// Converts the value, or says which status to return instead.
    fn to_cuda(self) -> Result<Self::Held, L::Status>;
}

/// A converted argument, kept across the CUDA call.
///
/// Every `Copy` type is its own `Held`, passed as it is; an argument that
/// needs a slot in the adapter's frame (an out-handle CUDA writes in its own
/// form, an aligned copy of a scalar) implements it with a type of its own.
pub trait Held: Sized {
    /// The C type the CUDA function declares for the parameter.
    type Cuda;
    /// The value passed to CUDA. It may point into `self`, which stays where
    /// it is until [`Held::finish`].
    fn pass(&mut self) -> Self::Cuda;
    /// Runs after the call; `ok` says whether CUDA returned success.
    ///
    /// # Safety
    /// The value was converted from an argument of a call that upholds the
    /// binding's contract (an out-pointer it writes back to is valid), and
    /// the CUDA function has returned.
    unsafe fn finish(self, ok: bool) {
        let _ = ok;
    }
}

impl<T: Copy> Held for T {
    type Cuda = T;
    fn pass(&mut self) -> T {
        *self
    }
}

/// A conversion that an adapter line names with `@ Kind` for one argument
/// of type `T`, in place of `T`'s [`ToCuda`]. `F` is the type of the
/// function's first argument, which the conversion receives as the caller
/// passed it.
pub trait Kind<T, F, L: Library> {
    /// What the adapter keeps in its frame across the call.
    type Held: Held;
    /// Converts `arg`, or says which status to return instead.
    ///
    /// # Safety
    /// `first` and `arg` are arguments of one call that upholds the
    /// binding's contract (a conversion may read what `arg` points to).
    unsafe fn convert(first: F, arg: T) -> Result<Self::Held, L::Status>;
}

/// The kind of every argument without `@ Kind`: its type's [`ToCuda`].
#[derive(Debug)]
pub enum Plain {}

impl<T: ToCuda<L>, F, L: Library> Kind<T, F, L> for Plain {
    type Held = T::Held;
    unsafe fn convert(_first: F, arg: T) -> Result<T::Held, L::Status> {
        arg.to_cuda()
    }
}

/// The adapters of one library: see the [module documentation](crate::loader::adapter).
///
/// The header names the CUDA library's slot (an absolute path, because each
/// adapter's symbol lives in a module of its own), the HIP [`Library`], the
/// status returned when a symbol is missing, CUDA's status type (an integer,
/// 0 for success), the function that translates it, and the crate's function
/// table. Kinds are names of types in scope where the macro is invoked.
///
/// ```
/// use hip_sys::loader::adapter::{Library, ToCuda};
/// use hip_sys::loader::common::LibrarySlot;
///
/// #[derive(Clone, Copy, Debug, PartialEq)]
/// pub struct demoStatus(i32);
/// impl Library for demoStatus {
///     type Status = demoStatus;
/// }
/// type DemoFn = unsafe extern "C" fn(*mut f32, i32) -> demoStatus;
/// pub struct DemoFunctions {
///     demoScale: Option<DemoFn>,
/// }
/// static CUDEMO: LibrarySlot = LibrarySlot::new("cuDEMO");
///
/// impl ToCuda<demoStatus> for i32 {
///     type Held = i32;
///     fn to_cuda(self) -> Result<i32, demoStatus> {
///         if self < 0 { Err(demoStatus(3)) } else { Ok(self) }
///     }
/// }
/// impl<T> ToCuda<demoStatus> for *mut T {
///     type Held = *mut T;
///     fn to_cuda(self) -> Result<*mut T, demoStatus> {
///         Ok(self)
///     }
/// }
///
/// hip_sys::cuda_adapters! {
///     slot: crate::CUDEMO,
///     library: demoStatus,
///     missing: demoStatus(2),
///     cuda_status: i32,
///     from_cuda: demoStatus,
///     table: DemoFunctions;
///     demoScale(x: *mut f32, n: i32) => "cudemoScale";
/// }
///
/// fn main() {
///     assert_eq!(ADAPTERS, &[("demoScale", "cudemoScale")]);
///     let mut table = DemoFunctions { demoScale: None };
///     install(&mut table); // cuDEMO was never opened: nothing is installed
///     assert!(table.demoScale.is_none());
///     // SAFETY: the adapter returns before touching the pointer (no symbol).
///     assert_eq!(unsafe { demoScale(std::ptr::null_mut(), 4) }, demoStatus(2));
/// }
/// ```
#[macro_export]
macro_rules! cuda_adapters {
    (
        slot: $slot:path,
        library: $lib:ty,
        missing: $missing:expr,
        cuda_status: $cs:ty,
        from_cuda: $from:path,
        table: $table:ty;
        $(
            $hip:ident (
                $first:ident : $ft:ty
                $(, $a:ident $(@ $kind:ident)? : $t:ty)*
                $(; unused $u:ident : $ut:ty)?
            ) => $cu:literal $( ( $($b:ident : $bt:ty),+ ) )?;
        )*
    ) => {
        $(
            #[allow(non_snake_case)]
            mod $hip {
                /// The CUDA function this adapter calls.
                pub(super) static SYMBOL: $crate::loader::common::Symbol =
                    $crate::loader::common::Symbol::new(
                        &$slot,
                        match ::core::ffi::CStr::from_bytes_with_nul(concat!($cu, "\0").as_bytes()) {
                            Ok(name) => name,
                            Err(_) => panic!("a CUDA name without NUL bytes"),
                        },
                    );
            }

            #[doc = concat!("`", stringify!($hip), "` over `", $cu, "`.")]
            // `const_item_mutation`: a constant in a pass list goes through
            // `Held::pass(&mut ..)` like the arguments; the copy is the value
            // wanted.
            #[allow(non_snake_case, clippy::too_many_arguments, unused_mut, const_item_mutation)]
            unsafe extern "C" fn $hip(
                $first: $ft $(, $a: $t)* $(, $u: $ut)?
            ) -> <$lib as $crate::loader::adapter::Library>::Status {
                let Some(address) = $hip::SYMBOL.address() else {
                    return $missing;
                };
                $(let _ = $u;)?
                let first_as_given: $ft = $first;
                let mut $first = match <$ft as $crate::loader::adapter::ToCuda<$lib>>::to_cuda($first) {
                    Ok(held) => held,
                    Err(status) => return status,
                };
                $(
                    // SAFETY: the caller upholds the binding's contract for
                    // these arguments.
                    let converted = unsafe {
                        <$crate::__adapter_kind!($($kind)?) as $crate::loader::adapter::Kind<$t, $ft, $lib>>::convert(first_as_given, $a)
                    };
                    let mut $a = match converted {
                        Ok(held) => held,
                        Err(status) => return status,
                    };
                )*
                let _ = first_as_given;
                let raw = $crate::__adapter_call!(
                    address, $lib, $cs;
                    $first: $ft;
                    [$($a [$($kind)?]: $t),*];
                    [$($($b: $bt),+)?]
                );
                let ok = raw == (0 as $cs);
                // SAFETY: the held values come from this call's arguments,
                // whose contract the caller upholds; CUDA has returned.
                unsafe {
                    $crate::loader::adapter::Held::finish($first, ok);
                    $($crate::loader::adapter::Held::finish($a, ok);)*
                }
                $from(raw)
            }
        )*

        /// (HIP binding, CUDA symbol) for every adapter.
        pub(crate) const ADAPTERS: &[(&str, &str)] = &[$((stringify!($hip), $cu)),*];

        /// Puts every adapter whose CUDA symbol the loaded library has into
        /// `table` (each symbol is looked up here, once).
        pub(crate) fn install(table: &mut $table) {
            $(
                if $hip::SYMBOL.address().is_some() {
                    table.$hip = Some($hip);
                }
            )*
        }
    };
}

/// `cuda_adapters!`'s call: every argument in the binding's order, or the
/// pass list's (arguments by name and constants in scope, each with its
/// binding type, converted by its type's [`ToCuda`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __adapter_call {
    (
        $address:ident, $lib:ty, $cs:ty;
        $first:ident: $ft:ty;
        [$($a:ident [$($kind:ident)?]: $t:ty),*];
        []
    ) => {{
        // SAFETY: `address` is the CUDA function of this line. The
        // generator compared its C declaration with the line: a status
        // return, as many parameters as are passed here, and each
        // parameter's C type equal to the one the manifest's `c_types` (or
        // the kind's rule) names for the binding type, which is the C type
        // of the `Held::Cuda` the crate's conversions yield; C enums are
        // `int`-sized.
        let function = unsafe {
            ::core::mem::transmute::<
                *mut ::core::ffi::c_void,
                unsafe extern "C" fn(
                    <<$ft as $crate::loader::adapter::ToCuda<$lib>>::Held as $crate::loader::adapter::Held>::Cuda
                    $(, <<$crate::__adapter_kind!($($kind)?) as $crate::loader::adapter::Kind<$t, $ft, $lib>>::Held as $crate::loader::adapter::Held>::Cuda)*
                ) -> $cs,
            >($address)
        };
        // SAFETY: the caller upholds the binding's contract, which is the
        // CUDA function's for the same role; what the held values point
        // into lives until after `finish`.
        unsafe {
            function(
                $crate::loader::adapter::Held::pass(&mut $first)
                $(, $crate::loader::adapter::Held::pass(&mut $a))*
            )
        }
    }};
    (
        $address:ident, $lib:ty, $cs:ty;
        $first:ident: $ft:ty;
        [$($a:ident [$($kind:ident)?]: $t:ty),*];
        [$($b:ident: $bt:ty),+]
    ) => {{
        // SAFETY: as above, with the pass list's parameters, which the
        // generator compared with the declaration in the same way.
        let function = unsafe {
            ::core::mem::transmute::<
                *mut ::core::ffi::c_void,
                unsafe extern "C" fn(
                    $(<<$bt as $crate::loader::adapter::ToCuda<$lib>>::Held as $crate::loader::adapter::Held>::Cuda),+
                ) -> $cs,
            >($address)
        };
        // SAFETY: as above.
        unsafe { function($($crate::loader::adapter::Held::pass(&mut $b)),+) }
    }};
}

/// `cuda_adapters!`'s kind of an argument: the one named, or [`Plain`].
#[doc(hidden)]
#[macro_export]
macro_rules! __adapter_kind {
    () => {
        $crate::loader::adapter::Plain
    };
    ($kind:ident) => {
        $kind
    };
}

/// [`ToCuda`] for types CUDA takes as they are (integers, floats, structs of
/// the same layout, and with `pointers`, every raw pointer), for the
/// [`Library`] named first: `cuda_unchanged!(hipfooStatus_t: i32, f32)`,
/// `cuda_unchanged!(hipfooStatus_t: pointers)`.
#[macro_export]
macro_rules! cuda_unchanged {
    ($lib:ty: pointers) => {
        impl<T> $crate::loader::adapter::ToCuda<$lib> for *const T {
            type Held = *const T;
            fn to_cuda(self) -> Result<*const T, <$lib as $crate::loader::adapter::Library>::Status> {
                Ok(self)
            }
        }
        impl<T> $crate::loader::adapter::ToCuda<$lib> for *mut T {
            type Held = *mut T;
            fn to_cuda(self) -> Result<*mut T, <$lib as $crate::loader::adapter::Library>::Status> {
                Ok(self)
            }
        }
    };
    ($lib:ty: $($t:ty),* $(,)?) => {$(
        impl $crate::loader::adapter::ToCuda<$lib> for $t {
            type Held = $t;
            fn to_cuda(self) -> Result<$t, <$lib as $crate::loader::adapter::Library>::Status> {
                Ok(self)
            }
        }
    )*};
}

/// [`ToCuda`] for C enums whose values the CUDA library shares: passed as
/// the `int` a C enum is, and a value no `int` holds refused with
/// `invalid`: `cuda_same_values!(hipfooStatus_t, HIPFOO_INVALID; hipfooMode_t)`.
#[macro_export]
macro_rules! cuda_same_values {
    ($lib:ty, $invalid:expr; $($t:ty),* $(,)?) => {$(
        impl $crate::loader::adapter::ToCuda<$lib> for $t {
            type Held = ::core::ffi::c_int;
            fn to_cuda(self) -> Result<::core::ffi::c_int, <$lib as $crate::loader::adapter::Library>::Status> {
                ::core::ffi::c_int::try_from(self.0).map_err(|_| $invalid)
            }
        }
    )*};
}
