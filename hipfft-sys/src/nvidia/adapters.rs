//! hipFFT's functions over cuFFT, one line each: the binding's parameters
//! (as in `src/generated/functions.rs`) and the cuFFT function of the same
//! arguments in the same order. `cufft_adapters!` gives each line a function
//! with the binding's exact signature that converts every argument with
//! [`ToCu`] (refusing a bad handle before cuFFT is called), calls cuFFT and
//! translates its status; its cuFFT symbol is a
//! [`Symbol`](hip_sys::loader::common::Symbol) of the [`CUFFT`] slot, looked
//! up once.
//!
//! What is checked: `ToCu` is implemented only for the binding types whose
//! cuFFT counterpart is known (so a new parameter type fails to compile);
//! every cuFFT name here is declared in cuFFT 11.4's `cufft.h`/`cufftXt.h`
//! (the test in `mod.rs`); the parameter lists were taken from the
//! generated bindings and compared with cuFFT's headers by reading.
//! `hipfftExtPlanScaleFactor` has no cuFFT counterpart and is left out.

use super::convert::{from_cufft, Held, ToCu};
use super::CUFFT;
use crate::*;
use core::ffi::*;
use hip_sys::hipDataType;

macro_rules! cufft_adapters {
    ($( $hip:ident ( $($a:ident : $t:ty),* ) => $cu:literal; )*) => {
        $(
            #[allow(non_snake_case)]
            mod $hip {
                /// The cuFFT function this adapter calls.
                pub(super) static SYMBOL: ::hip_sys::loader::common::Symbol =
                    ::hip_sys::loader::common::Symbol::new(
                        &super::CUFFT,
                        match ::core::ffi::CStr::from_bytes_with_nul(concat!($cu, "\0").as_bytes()) {
                            Ok(name) => name,
                            Err(_) => panic!("a cuFFT name without NUL bytes"),
                        },
                    );
            }

            #[doc = concat!("`", stringify!($hip), "` over `", $cu, "`.")]
            #[allow(non_snake_case, clippy::too_many_arguments)]
            unsafe extern "C" fn $hip($($a: $t),*) -> hipfftResult {
                let Some(f) = $hip::SYMBOL.address() else {
                    return hipfftResult::HIPFFT_NOT_IMPLEMENTED;
                };
                $(
                    let mut $a = match ToCu::to_cu($a) {
                        Ok(v) => v,
                        Err(e) => return e,
                    };
                )*
                // SAFETY: `f` is the address of the cuFFT function, which
                // takes the same parameters in the same order as the
                // binding, each of the C type that `Held::Cu` is for the
                // binding's type (module doc), and returns a cufftResult, an
                // int-sized C enum.
                let f = unsafe {
                    ::core::mem::transmute::<
                        *mut c_void,
                        unsafe extern "C" fn($(<<$t as ToCu>::Held as Held>::Cu),*) -> c_int,
                    >(f)
                };
                // SAFETY: the caller upholds the binding's contract, which
                // is the cuFFT function's; out-handles point into this frame
                // until `finish`.
                let status = from_cufft(unsafe { f($(Held::pass(&mut $a)),*) });
                $(Held::finish($a, status.is_success());)*
                status
            }
        )*

        /// (hipFFT binding, cuFFT symbol) for every adapter.
        pub(crate) const ADAPTERS: &[(&str, &str)] = &[$((stringify!($hip), $cu)),*];

        /// Puts every adapter whose cuFFT symbol the loaded library has into
        /// `table`.
        pub(crate) fn install(table: &mut crate::generated::functions::HipfftFunctions) {
            $(
                if $hip::SYMBOL.address().is_some() {
                    table.$hip = Some($hip);
                }
            )*
        }
    };
}

cufft_adapters! {
hipfftCreate(plan: *mut hipfftHandle) => "cufftCreate";
hipfftDestroy(plan: hipfftHandle) => "cufftDestroy";
hipfftEstimate1d(nx: c_int, type_: hipfftType, batch: c_int, workSize: *mut usize) => "cufftEstimate1d";
hipfftEstimate2d(nx: c_int, ny: c_int, type_: hipfftType, workSize: *mut usize) => "cufftEstimate2d";
hipfftEstimate3d(nx: c_int, ny: c_int, nz: c_int, type_: hipfftType, workSize: *mut usize) => "cufftEstimate3d";
hipfftEstimateMany(rank: c_int, n: *mut c_int, inembed: *mut c_int, istride: c_int, idist: c_int, onembed: *mut c_int, ostride: c_int, odist: c_int, type_: hipfftType, batch: c_int, workSize: *mut usize) => "cufftEstimateMany";
hipfftExecC2C(plan: hipfftHandle, idata: *mut hipfftComplex, odata: *mut hipfftComplex, direction: c_int) => "cufftExecC2C";
hipfftExecC2R(plan: hipfftHandle, idata: *mut hipfftComplex, odata: *mut hipfftReal) => "cufftExecC2R";
hipfftExecD2Z(plan: hipfftHandle, idata: *mut hipfftDoubleReal, odata: *mut hipfftDoubleComplex) => "cufftExecD2Z";
hipfftExecR2C(plan: hipfftHandle, idata: *mut hipfftReal, odata: *mut hipfftComplex) => "cufftExecR2C";
hipfftExecZ2D(plan: hipfftHandle, idata: *mut hipfftDoubleComplex, odata: *mut hipfftDoubleReal) => "cufftExecZ2D";
hipfftExecZ2Z(plan: hipfftHandle, idata: *mut hipfftDoubleComplex, odata: *mut hipfftDoubleComplex, direction: c_int) => "cufftExecZ2Z";
hipfftGetProperty(type_: hipfftLibraryPropertyType, value: *mut c_int) => "cufftGetProperty";
hipfftGetSize(plan: hipfftHandle, workSize: *mut usize) => "cufftGetSize";
hipfftGetSize1d(plan: hipfftHandle, nx: c_int, type_: hipfftType, batch: c_int, workSize: *mut usize) => "cufftGetSize1d";
hipfftGetSize2d(plan: hipfftHandle, nx: c_int, ny: c_int, type_: hipfftType, workSize: *mut usize) => "cufftGetSize2d";
hipfftGetSize3d(plan: hipfftHandle, nx: c_int, ny: c_int, nz: c_int, type_: hipfftType, workSize: *mut usize) => "cufftGetSize3d";
hipfftGetSizeMany(plan: hipfftHandle, rank: c_int, n: *mut c_int, inembed: *mut c_int, istride: c_int, idist: c_int, onembed: *mut c_int, ostride: c_int, odist: c_int, type_: hipfftType, batch: c_int, workSize: *mut usize) => "cufftGetSizeMany";
hipfftGetSizeMany64(plan: hipfftHandle, rank: c_int, n: *mut c_longlong, inembed: *mut c_longlong, istride: c_longlong, idist: c_longlong, onembed: *mut c_longlong, ostride: c_longlong, odist: c_longlong, type_: hipfftType, batch: c_longlong, workSize: *mut usize) => "cufftGetSizeMany64";
hipfftGetVersion(version: *mut c_int) => "cufftGetVersion";
hipfftMakePlan1d(plan: hipfftHandle, nx: c_int, type_: hipfftType, batch: c_int, workSize: *mut usize) => "cufftMakePlan1d";
hipfftMakePlan2d(plan: hipfftHandle, nx: c_int, ny: c_int, type_: hipfftType, workSize: *mut usize) => "cufftMakePlan2d";
hipfftMakePlan3d(plan: hipfftHandle, nx: c_int, ny: c_int, nz: c_int, type_: hipfftType, workSize: *mut usize) => "cufftMakePlan3d";
hipfftMakePlanMany(plan: hipfftHandle, rank: c_int, n: *mut c_int, inembed: *mut c_int, istride: c_int, idist: c_int, onembed: *mut c_int, ostride: c_int, odist: c_int, type_: hipfftType, batch: c_int, workSize: *mut usize) => "cufftMakePlanMany";
hipfftMakePlanMany64(plan: hipfftHandle, rank: c_int, n: *mut c_longlong, inembed: *mut c_longlong, istride: c_longlong, idist: c_longlong, onembed: *mut c_longlong, ostride: c_longlong, odist: c_longlong, type_: hipfftType, batch: c_longlong, workSize: *mut usize) => "cufftMakePlanMany64";
hipfftPlan1d(plan: *mut hipfftHandle, nx: c_int, type_: hipfftType, batch: c_int) => "cufftPlan1d";
hipfftPlan2d(plan: *mut hipfftHandle, nx: c_int, ny: c_int, type_: hipfftType) => "cufftPlan2d";
hipfftPlan3d(plan: *mut hipfftHandle, nx: c_int, ny: c_int, nz: c_int, type_: hipfftType) => "cufftPlan3d";
hipfftPlanMany(plan: *mut hipfftHandle, rank: c_int, n: *mut c_int, inembed: *mut c_int, istride: c_int, idist: c_int, onembed: *mut c_int, ostride: c_int, odist: c_int, type_: hipfftType, batch: c_int) => "cufftPlanMany";
hipfftSetAutoAllocation(plan: hipfftHandle, autoAllocate: c_int) => "cufftSetAutoAllocation";
hipfftSetStream(plan: hipfftHandle, stream: hipStream_t) => "cufftSetStream";
hipfftSetWorkArea(plan: hipfftHandle, workArea: *mut c_void) => "cufftSetWorkArea";
hipfftXtClearCallback(plan: hipfftHandle, cbtype: hipfftXtCallbackType) => "cufftXtClearCallback";
hipfftXtExec(plan: hipfftHandle, input: *mut c_void, output: *mut c_void, direction: c_int) => "cufftXtExec";
hipfftXtExecDescriptor(plan: hipfftHandle, input: *mut hipLibXtDesc, output: *mut hipLibXtDesc, direction: c_int) => "cufftXtExecDescriptor";
hipfftXtExecDescriptorC2C(plan: hipfftHandle, input: *mut hipLibXtDesc, output: *mut hipLibXtDesc, direction: c_int) => "cufftXtExecDescriptorC2C";
hipfftXtExecDescriptorC2R(plan: hipfftHandle, input: *mut hipLibXtDesc, output: *mut hipLibXtDesc) => "cufftXtExecDescriptorC2R";
hipfftXtExecDescriptorD2Z(plan: hipfftHandle, input: *mut hipLibXtDesc, output: *mut hipLibXtDesc) => "cufftXtExecDescriptorD2Z";
hipfftXtExecDescriptorR2C(plan: hipfftHandle, input: *mut hipLibXtDesc, output: *mut hipLibXtDesc) => "cufftXtExecDescriptorR2C";
hipfftXtExecDescriptorZ2D(plan: hipfftHandle, input: *mut hipLibXtDesc, output: *mut hipLibXtDesc) => "cufftXtExecDescriptorZ2D";
hipfftXtExecDescriptorZ2Z(plan: hipfftHandle, input: *mut hipLibXtDesc, output: *mut hipLibXtDesc, direction: c_int) => "cufftXtExecDescriptorZ2Z";
hipfftXtFree(desc: *mut hipLibXtDesc) => "cufftXtFree";
hipfftXtGetSizeMany(plan: hipfftHandle, rank: c_int, n: *mut c_longlong, inembed: *mut c_longlong, istride: c_longlong, idist: c_longlong, inputType: hipDataType, onembed: *mut c_longlong, ostride: c_longlong, odist: c_longlong, outputType: hipDataType, batch: c_longlong, workSize: *mut usize, executionType: hipDataType) => "cufftXtGetSizeMany";
hipfftXtMakePlanMany(plan: hipfftHandle, rank: c_int, n: *mut c_longlong, inembed: *mut c_longlong, istride: c_longlong, idist: c_longlong, inputType: hipDataType, onembed: *mut c_longlong, ostride: c_longlong, odist: c_longlong, outputType: hipDataType, batch: c_longlong, workSize: *mut usize, executionType: hipDataType) => "cufftXtMakePlanMany";
hipfftXtMalloc(plan: hipfftHandle, desc: *mut *mut hipLibXtDesc, format: hipfftXtSubFormat) => "cufftXtMalloc";
hipfftXtMemcpy(plan: hipfftHandle, dest: *mut c_void, src: *mut c_void, type_: hipfftXtCopyType) => "cufftXtMemcpy";
hipfftXtSetCallback(plan: hipfftHandle, callbacks: *mut *mut c_void, cbtype: hipfftXtCallbackType, callbackData: *mut *mut c_void) => "cufftXtSetCallback";
hipfftXtSetCallbackSharedSize(plan: hipfftHandle, cbtype: hipfftXtCallbackType, sharedSize: usize) => "cufftXtSetCallbackSharedSize";
hipfftXtSetGPUs(plan: hipfftHandle, count: c_int, gpus: *mut c_int) => "cufftXtSetGPUs";}
