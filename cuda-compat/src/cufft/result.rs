//! cudarc's `cufft::result`: one thin function per cuFFT call, the status
//! as a [`Result`] with [`CufftError`], output parameters as return values.
//! Each calls the `hipfft` crate's [`result`](hipfft::result) layer (hipFFT,
//! or cuFFT itself on the NVIDIA platform) and turns its error into a
//! [`CufftError`] that keeps the message ([`last_error_detail`]).
//!
//! cuFFT 11.2's plan properties ([`get_plan_property_i64`],
//! [`set_plan_property_i64`], [`reset_plan_property`]; CUDA 12.4 and later
//! in cudarc) have no hipFFT counterpart: they return
//! `CufftError(CUFFT_NOT_SUPPORTED)`, calling nothing.

use super::sys;
use core::ffi::{c_int, c_longlong, c_void};
use hipfft::result as ours_result;

status_error! {
    /// A cuFFT status other than `CUFFT_SUCCESS` (hipFFT's value). `Debug`
    /// and `Display` print this thread's reason ([`last_error_detail`])
    /// when the status matches.
    pub struct CufftError(pub sys::cufftResult);
    /// The reason for the last cuFFT error this thread got, with its
    /// status: the `hipfft` crate's message (the call, its status and what
    /// it means, or the paths tried when no library loads); `None` after an
    /// error that is a raw status.
    ///
    /// ```no_run
    /// use cuda_compat::cufft::result::{create, last_error_detail};
    /// if let Err(e) = create() {
    ///     let (status, why) = last_error_detail().unwrap();
    ///     assert_eq!(status, e.0);
    ///     println!("{why}");
    /// }
    /// ```
    detail;
    from hipfft {
        load: CUFFT_SETUP_FAILED,
        invalid: CUFFT_INVALID_VALUE,
        unsupported: CUFFT_NOT_SUPPORTED,
        other: CUFFT_SETUP_FAILED,
    }
}

impl sys::cufftResult {
    /// `Ok(())` for `CUFFT_SUCCESS`, else the status as a [`CufftError`]
    /// (the raw status: no reason of an earlier error is printed with it).
    #[inline]
    pub fn result(self) -> Result<(), CufftError> {
        if self == sys::cufftResult::CUFFT_SUCCESS {
            Ok(())
        } else {
            clear_detail();
            Err(CufftError(self))
        }
    }
}

/// `CUFFT_NOT_SUPPORTED` for a cuFFT call hipFFT lacks, `call` named in
/// the reason (nothing is called).
#[cold]
fn not_supported(call: &str) -> CufftError {
    fail(
        sys::cufftResult::CUFFT_NOT_SUPPORTED,
        &format!("{call}: hipFFT has no plan properties (cuFFT 11.2's), so no such call"),
    )
}

/// `cufftCreate`: a new, empty plan handle, on the current device. It may
/// act on the whole device, which CUDA forbids while any stream of it
/// captures: it waits for the device's open captures to end (`hip`'s
/// capture gate), and fails when this thread captures.
pub fn create() -> Result<sys::cufftHandle, CufftError> {
    crate::gate::holding_current("cufftCreate", ours_result::create).map_err(ours)
}

/// `cufftDestroy`, holding the capture gate as [`create`] does.
///
/// # Safety
/// `plan` is a live handle, not used after this call.
pub unsafe fn destroy(plan: sys::cufftHandle) -> Result<(), CufftError> {
    crate::gate::holding_current("cufftDestroy", |held| {
        // SAFETY: the caller's contract.
        unsafe { ours_result::destroy(plan, held) }
    })
    .map_err(ours)
}

/// Writes cudarc functions that pass their arguments to the `hipfft`
/// result function of the same name, converted with `Into` (cuFFT's enums
/// to hipFFT's; the rest are the same types), and turn its error into a
/// [`CufftError`]. An entry is `DOCS pub [unsafe] fn NAME(ARGS) -> T;`, `T`
/// the value of `Ok`; an `unsafe` one's contract is the `hipfft`
/// function's, and its docs say so.
macro_rules! forward {
    () => {};
    ($(#[$doc:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ok:ty; $($rest:tt)*) => {
        $(#[$doc])*
        #[allow(clippy::useless_conversion)]
        pub fn $name($($arg: $ty),*) -> Result<$ok, CufftError> {
            ours_result::$name($($arg.into()),*).map_err(ours)
        }
        forward!($($rest)*);
    };
    ($(#[$doc:meta])* pub unsafe fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ok:ty; $($rest:tt)*) => {
        $(#[$doc])*
        #[allow(clippy::useless_conversion, clippy::too_many_arguments)]
        pub unsafe fn $name($($arg: $ty),*) -> Result<$ok, CufftError> {
            // SAFETY: the caller's contract, which is the callee's.
            unsafe { ours_result::$name($($arg.into()),*) }.map_err(ours)
        }
        forward!($($rest)*);
    };
}

forward! {
    /// `cufftEstimate1d`: the work area a 1-D plan would need, in bytes.
    pub fn estimate_1d(nx: c_int, type_: sys::cufftType, batch: c_int) -> usize;

    /// `cufftEstimate2d`.
    pub fn estimate_2d(nx: c_int, ny: c_int, type_: sys::cufftType) -> usize;

    /// `cufftEstimate3d`.
    pub fn estimate_3d(nx: c_int, ny: c_int, nz: c_int, type_: sys::cufftType) -> usize;

    /// `cufftEstimateMany`.
    ///
    /// # Safety
    /// `n` points to `rank` sizes; `inembed`/`onembed` are null or point to
    /// `rank` extents.
    pub unsafe fn estimate_many(
        rank: c_int, n: *mut c_int,
        inembed: *mut c_int, istride: c_int, idist: c_int,
        onembed: *mut c_int, ostride: c_int, odist: c_int,
        type_: sys::cufftType, batch: c_int,
    ) -> usize;

    /// `cufftExecC2C`; `direction` is `CUFFT_FORWARD` or `CUFFT_INVERSE`.
    ///
    /// # Safety
    /// `plan` is a live C2C plan; the buffers hold what it reads and writes.
    pub unsafe fn exec_c2c(
        plan: sys::cufftHandle, idata: *mut sys::cufftComplex, odata: *mut sys::cufftComplex,
        direction: c_int,
    ) -> ();

    /// `cufftExecC2R`.
    ///
    /// # Safety
    /// As [`exec_c2c`], for a C2R plan.
    pub unsafe fn exec_c2r(
        plan: sys::cufftHandle, idata: *mut sys::cufftComplex, odata: *mut sys::cufftReal,
    ) -> ();

    /// `cufftExecR2C`.
    ///
    /// # Safety
    /// As [`exec_c2c`], for an R2C plan.
    pub unsafe fn exec_r2c(
        plan: sys::cufftHandle, idata: *mut sys::cufftReal, odata: *mut sys::cufftComplex,
    ) -> ();

    /// `cufftExecD2Z`.
    ///
    /// # Safety
    /// As [`exec_c2c`], for a D2Z plan.
    pub unsafe fn exec_d2z(
        plan: sys::cufftHandle, idata: *mut sys::cufftDoubleReal,
        odata: *mut sys::cufftDoubleComplex,
    ) -> ();

    /// `cufftExecZ2D`.
    ///
    /// # Safety
    /// As [`exec_c2c`], for a Z2D plan.
    pub unsafe fn exec_z2d(
        plan: sys::cufftHandle, idata: *mut sys::cufftDoubleComplex,
        odata: *mut sys::cufftDoubleReal,
    ) -> ();

    /// `cufftExecZ2Z`.
    ///
    /// # Safety
    /// As [`exec_c2c`], for a Z2Z plan.
    pub unsafe fn exec_z2z(
        plan: sys::cufftHandle, idata: *mut sys::cufftDoubleComplex,
        odata: *mut sys::cufftDoubleComplex, direction: c_int,
    ) -> ();
}

/// `cufftGetProperty`: the library's major or minor version or patch level.
pub fn get_property(property: sys::libraryPropertyType) -> Result<c_int, CufftError> {
    // The values are hipFFT's `HIPFFT_MAJOR_VERSION`, ... (0, 1, 2).
    let property = hipfft::sys::hipfftLibraryPropertyType(property as u32);
    ours_result::get_property(property).map_err(ours)
}

/// `cufftGetVersion`.
pub fn get_version() -> Result<c_int, CufftError> {
    ours_result::get_version().map_err(ours)
}

/// `cufftGetPlanPropertyInt64`: always `CUFFT_NOT_SUPPORTED` (hipFFT has
/// no plan properties).
///
/// # Safety
/// `plan` is a live handle (nothing is called).
pub unsafe fn get_plan_property_i64(
    plan: sys::cufftHandle,
    property: sys::cufftProperty,
) -> Result<c_longlong, CufftError> {
    let _ = (plan, property);
    Err(not_supported("cufftGetPlanPropertyInt64"))
}

/// `cufftSetPlanPropertyInt64`: always `CUFFT_NOT_SUPPORTED` (hipFFT has
/// no plan properties).
///
/// # Safety
/// `plan` is a live handle (nothing is called).
pub unsafe fn set_plan_property_i64(
    plan: sys::cufftHandle,
    property: sys::cufftProperty,
    value: c_longlong,
) -> Result<(), CufftError> {
    let _ = (plan, property, value);
    Err(not_supported("cufftSetPlanPropertyInt64"))
}

/// `cufftResetPlanProperty`: always `CUFFT_NOT_SUPPORTED` (hipFFT has no
/// plan properties).
///
/// # Safety
/// `plan` is a live handle (nothing is called).
pub unsafe fn reset_plan_property(
    plan: sys::cufftHandle,
    property: sys::cufftProperty,
) -> Result<(), CufftError> {
    let _ = (plan, property);
    Err(not_supported("cufftResetPlanProperty"))
}

forward! {
    /// `cufftGetSize`: the plan's work area, in bytes.
    ///
    /// # Safety
    /// `plan` is a live handle.
    pub unsafe fn get_size(plan: sys::cufftHandle) -> usize;

    /// `cufftGetSize1d`.
    ///
    /// # Safety
    /// `plan` is a live handle.
    pub unsafe fn get_size_1d(
        plan: sys::cufftHandle, nx: c_int, type_: sys::cufftType, batch: c_int,
    ) -> usize;

    /// `cufftGetSize2d`.
    ///
    /// # Safety
    /// `plan` is a live handle.
    pub unsafe fn get_size_2d(
        plan: sys::cufftHandle, nx: c_int, ny: c_int, type_: sys::cufftType,
    ) -> usize;

    /// `cufftGetSize3d`.
    ///
    /// # Safety
    /// `plan` is a live handle.
    pub unsafe fn get_size_3d(
        plan: sys::cufftHandle, nx: c_int, ny: c_int, nz: c_int, type_: sys::cufftType,
    ) -> usize;

    /// `cufftGetSizeMany`.
    ///
    /// # Safety
    /// `plan` is a live handle; the arrays as in [`estimate_many`].
    pub unsafe fn get_size_many(
        plan: sys::cufftHandle, rank: c_int, n: *mut c_int,
        inembed: *mut c_int, istride: c_int, idist: c_int,
        onembed: *mut c_int, ostride: c_int, odist: c_int,
        type_: sys::cufftType, batch: c_int,
    ) -> usize;

    /// `cufftGetSizeMany64`.
    ///
    /// # Safety
    /// As [`get_size_many`].
    pub unsafe fn get_size_many64(
        plan: sys::cufftHandle, rank: c_int, n: *mut c_longlong,
        inembed: *mut c_longlong, istride: c_longlong, idist: c_longlong,
        onembed: *mut c_longlong, ostride: c_longlong, odist: c_longlong,
        type_: sys::cufftType, batch: c_longlong,
    ) -> usize;

    /// `cufftMakePlan1d` on a handle from [`create`]: the work area's size.
    ///
    /// # Safety
    /// `plan` is a live handle from [`create`].
    pub unsafe fn make_plan_1d(
        plan: sys::cufftHandle, nx: c_int, type_: sys::cufftType, batch: c_int,
    ) -> usize;

    /// `cufftMakePlan2d`.
    ///
    /// # Safety
    /// As [`make_plan_1d`].
    pub unsafe fn make_plan_2d(
        plan: sys::cufftHandle, nx: c_int, ny: c_int, type_: sys::cufftType,
    ) -> usize;

    /// `cufftMakePlan3d`.
    ///
    /// # Safety
    /// As [`make_plan_1d`].
    pub unsafe fn make_plan_3d(
        plan: sys::cufftHandle, nx: c_int, ny: c_int, nz: c_int, type_: sys::cufftType,
    ) -> usize;

    /// `cufftMakePlanMany`.
    ///
    /// # Safety
    /// As [`make_plan_1d`]; the arrays as in [`estimate_many`].
    pub unsafe fn make_plan_many(
        plan: sys::cufftHandle, rank: c_int, n: *mut c_int,
        inembed: *mut c_int, istride: c_int, idist: c_int,
        onembed: *mut c_int, ostride: c_int, odist: c_int,
        type_: sys::cufftType, batch: c_int,
    ) -> usize;

    /// `cufftMakePlanMany64`.
    ///
    /// # Safety
    /// As [`make_plan_many`], with 64-bit sizes.
    pub unsafe fn make_plan_many64(
        plan: sys::cufftHandle, rank: c_int, n: *mut c_longlong,
        inembed: *mut c_longlong, istride: c_longlong, idist: c_longlong,
        onembed: *mut c_longlong, ostride: c_longlong, odist: c_longlong,
        type_: sys::cufftType, batch: c_longlong,
    ) -> usize;
}

/// `cufftPlan1d`: a new 1-D plan, on the current device, holding the
/// capture gate as [`create`] does (making a plan allocates its work
/// area).
pub fn plan_1d(
    nx: c_int,
    type_: sys::cufftType,
    batch: c_int,
) -> Result<sys::cufftHandle, CufftError> {
    crate::gate::holding_current("cufftPlan1d", |held| {
        ours_result::plan_1d(nx, type_.into(), batch, held)
    })
    .map_err(ours)
}

/// `cufftPlan2d`: a new 2-D plan (`nx` the outer size), as [`plan_1d`].
pub fn plan_2d(
    nx: c_int,
    ny: c_int,
    type_: sys::cufftType,
) -> Result<sys::cufftHandle, CufftError> {
    crate::gate::holding_current("cufftPlan2d", |held| {
        ours_result::plan_2d(nx, ny, type_.into(), held)
    })
    .map_err(ours)
}

/// `cufftPlan3d`: a new 3-D plan, as [`plan_1d`].
pub fn plan_3d(
    nx: c_int,
    ny: c_int,
    nz: c_int,
    type_: sys::cufftType,
) -> Result<sys::cufftHandle, CufftError> {
    crate::gate::holding_current("cufftPlan3d", |held| {
        ours_result::plan_3d(nx, ny, nz, type_.into(), held)
    })
    .map_err(ours)
}

/// `cufftPlanMany`: a new batched plan with an advanced layout, as
/// [`plan_1d`].
///
/// # Safety
/// The arrays as in [`estimate_many`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn plan_many(
    rank: c_int,
    n: *mut c_int,
    inembed: *mut c_int,
    istride: c_int,
    idist: c_int,
    onembed: *mut c_int,
    ostride: c_int,
    odist: c_int,
    type_: sys::cufftType,
    batch: c_int,
) -> Result<sys::cufftHandle, CufftError> {
    crate::gate::holding_current("cufftPlanMany", |held| {
        // SAFETY: the caller's contract.
        unsafe {
            ours_result::plan_many(
                rank,
                n,
                inembed,
                istride,
                idist,
                onembed,
                ostride,
                odist,
                type_.into(),
                batch,
                held,
            )
        }
    })
    .map_err(ours)
}

forward! {
    /// `cufftSetAutoAllocation`.
    ///
    /// # Safety
    /// `plan` is a live handle.
    pub unsafe fn set_auto_allocation(plan: sys::cufftHandle, auto_allocate: bool) -> ();

    /// `cufftSetWorkArea`.
    ///
    /// # Safety
    /// `plan` is live; `work_area` is device memory of at least its work
    /// size, kept while the plan runs.
    pub unsafe fn set_work_area(plan: sys::cufftHandle, work_area: *mut c_void) -> ();
}

/// `cufftSetStream`.
///
/// # Safety
/// `plan` and `stream` are live.
pub unsafe fn set_stream(
    plan: sys::cufftHandle,
    stream: sys::cudaStream_t,
) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { ours_result::set_stream(plan, stream.cast()) }.map_err(ours)
}
