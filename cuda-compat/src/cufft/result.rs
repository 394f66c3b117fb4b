//! cudarc's `cufft::result`: one thin function per cuFFT call, the status
//! as a [`Result`] with [`CufftError`], output parameters as return values.
//! Each calls cuFFT's name in [`sys`], which is hipFFT (cuFFT itself on the
//! NVIDIA platform, behind hipfft-sys's adapters).
//!
//! cuFFT 11.2's plan properties ([`get_plan_property_i64`],
//! [`set_plan_property_i64`], [`reset_plan_property`]; CUDA 12.4 and later
//! in cudarc) have no hipFFT counterpart: they return
//! `CufftError(CUFFT_NOT_SUPPORTED)`.

use super::sys;
use core::ffi::{c_int, c_longlong, c_void};

/// A cuFFT status other than `CUFFT_SUCCESS`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CufftError(pub sys::cufftResult);

impl sys::cufftResult {
    /// `Ok(())` for `CUFFT_SUCCESS`, else the status as a [`CufftError`].
    #[inline]
    pub fn result(self) -> Result<(), CufftError> {
        if self == sys::cufftResult::CUFFT_SUCCESS {
            Ok(())
        } else {
            Err(CufftError(self))
        }
    }
}

impl std::fmt::Display for CufftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl std::error::Error for CufftError {}

/// `cufftCreate`: a new, empty plan handle.
pub fn create() -> Result<sys::cufftHandle, CufftError> {
    let mut handle: sys::cufftHandle = std::ptr::null_mut();
    // SAFETY: `handle` is a valid place for the new handle.
    unsafe { sys::cufftCreate(&mut handle) }.result()?;
    Ok(handle)
}

/// `cufftDestroy`.
///
/// # Safety
/// `plan` is a live handle, not used after this call.
pub unsafe fn destroy(plan: sys::cufftHandle) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cufftDestroy(plan) }.result()
}

/// `cufftEstimate1d`: the work area a 1-D plan would need, in bytes.
pub fn estimate_1d(nx: c_int, type_: sys::cufftType, batch: c_int) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: `size` is a valid place to write the size.
    unsafe { sys::cufftEstimate1d(nx, type_, batch, &mut size) }.result()?;
    Ok(size)
}

/// `cufftEstimate2d`.
pub fn estimate_2d(nx: c_int, ny: c_int, type_: sys::cufftType) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: as in `estimate_1d`.
    unsafe { sys::cufftEstimate2d(nx, ny, type_, &mut size) }.result()?;
    Ok(size)
}

/// `cufftEstimate3d`.
pub fn estimate_3d(
    nx: c_int,
    ny: c_int,
    nz: c_int,
    type_: sys::cufftType,
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: as in `estimate_1d`.
    unsafe { sys::cufftEstimate3d(nx, ny, nz, type_, &mut size) }.result()?;
    Ok(size)
}

/// `cufftEstimateMany`.
///
/// # Safety
/// `n` points to `rank` sizes; `inembed`/`onembed` are null or point to
/// `rank` extents.
#[allow(clippy::too_many_arguments)]
pub unsafe fn estimate_many(
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
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe {
        sys::cufftEstimateMany(
            rank, n, inembed, istride, idist, onembed, ostride, odist, type_, batch, &mut size,
        )
    }
    .result()?;
    Ok(size)
}

/// `cufftExecC2C`; `direction` is `CUFFT_FORWARD` or `CUFFT_INVERSE`.
///
/// # Safety
/// `plan` is a live C2C plan; the buffers hold what it reads and writes.
pub unsafe fn exec_c2c(
    plan: sys::cufftHandle,
    idata: *mut sys::cufftComplex,
    odata: *mut sys::cufftComplex,
    direction: c_int,
) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cufftExecC2C(plan, idata, odata, direction) }.result()
}

/// `cufftExecC2R`.
///
/// # Safety
/// As [`exec_c2c`], for a C2R plan.
pub unsafe fn exec_c2r(
    plan: sys::cufftHandle,
    idata: *mut sys::cufftComplex,
    odata: *mut sys::cufftReal,
) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cufftExecC2R(plan, idata, odata) }.result()
}

/// `cufftExecR2C`.
///
/// # Safety
/// As [`exec_c2c`], for an R2C plan.
pub unsafe fn exec_r2c(
    plan: sys::cufftHandle,
    idata: *mut sys::cufftReal,
    odata: *mut sys::cufftComplex,
) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cufftExecR2C(plan, idata, odata) }.result()
}

/// `cufftExecD2Z`.
///
/// # Safety
/// As [`exec_c2c`], for a D2Z plan.
pub unsafe fn exec_d2z(
    plan: sys::cufftHandle,
    idata: *mut sys::cufftDoubleReal,
    odata: *mut sys::cufftDoubleComplex,
) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cufftExecD2Z(plan, idata, odata) }.result()
}

/// `cufftExecZ2D`.
///
/// # Safety
/// As [`exec_c2c`], for a Z2D plan.
pub unsafe fn exec_z2d(
    plan: sys::cufftHandle,
    idata: *mut sys::cufftDoubleComplex,
    odata: *mut sys::cufftDoubleReal,
) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cufftExecZ2D(plan, idata, odata) }.result()
}

/// `cufftExecZ2Z`.
///
/// # Safety
/// As [`exec_c2c`], for a Z2Z plan.
pub unsafe fn exec_z2z(
    plan: sys::cufftHandle,
    idata: *mut sys::cufftDoubleComplex,
    odata: *mut sys::cufftDoubleComplex,
    direction: c_int,
) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cufftExecZ2Z(plan, idata, odata, direction) }.result()
}

/// `cufftGetProperty`: the library's major or minor version or patch level.
pub fn get_property(property: sys::libraryPropertyType) -> Result<c_int, CufftError> {
    let mut value = 0;
    let property = hipfft_sys::hipfftLibraryPropertyType(property as u32);
    // SAFETY: `value` is a valid place to write an int.
    unsafe { sys::cufftGetProperty(property, &mut value) }.result()?;
    Ok(value)
}

/// `cufftGetVersion`.
pub fn get_version() -> Result<c_int, CufftError> {
    let mut version = 0;
    // SAFETY: `version` is a valid place to write an int.
    unsafe { sys::cufftGetVersion(&mut version) }.result()?;
    Ok(version)
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
    let mut value = 0;
    // SAFETY: the caller's contract; `value` is a valid place.
    unsafe { sys::cufftGetPlanPropertyInt64(plan, property, &mut value) }.result()?;
    Ok(value)
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
    // SAFETY: the caller's contract.
    unsafe { sys::cufftSetPlanPropertyInt64(plan, property, value) }.result()
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
    // SAFETY: the caller's contract.
    unsafe { sys::cufftResetPlanProperty(plan, property) }.result()
}

/// `cufftGetSize`: the plan's work area, in bytes.
///
/// # Safety
/// `plan` is a live handle.
pub unsafe fn get_size(plan: sys::cufftHandle) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe { sys::cufftGetSize(plan, &mut size) }.result()?;
    Ok(size)
}

/// `cufftGetSize1d`.
///
/// # Safety
/// `plan` is a live handle.
pub unsafe fn get_size_1d(
    plan: sys::cufftHandle,
    nx: c_int,
    type_: sys::cufftType,
    batch: c_int,
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe { sys::cufftGetSize1d(plan, nx, type_, batch, &mut size) }.result()?;
    Ok(size)
}

/// `cufftGetSize2d`.
///
/// # Safety
/// `plan` is a live handle.
pub unsafe fn get_size_2d(
    plan: sys::cufftHandle,
    nx: c_int,
    ny: c_int,
    type_: sys::cufftType,
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe { sys::cufftGetSize2d(plan, nx, ny, type_, &mut size) }.result()?;
    Ok(size)
}

/// `cufftGetSize3d`.
///
/// # Safety
/// `plan` is a live handle.
pub unsafe fn get_size_3d(
    plan: sys::cufftHandle,
    nx: c_int,
    ny: c_int,
    nz: c_int,
    type_: sys::cufftType,
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe { sys::cufftGetSize3d(plan, nx, ny, nz, type_, &mut size) }.result()?;
    Ok(size)
}

/// `cufftGetSizeMany`.
///
/// # Safety
/// `plan` is a live handle; the arrays as in [`estimate_many`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn get_size_many(
    plan: sys::cufftHandle,
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
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe {
        sys::cufftGetSizeMany(
            plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type_, batch,
            &mut size,
        )
    }
    .result()?;
    Ok(size)
}

/// `cufftGetSizeMany64`.
///
/// # Safety
/// As [`get_size_many`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn get_size_many64(
    plan: sys::cufftHandle,
    rank: c_int,
    n: *mut c_longlong,
    inembed: *mut c_longlong,
    istride: c_longlong,
    idist: c_longlong,
    onembed: *mut c_longlong,
    ostride: c_longlong,
    odist: c_longlong,
    type_: sys::cufftType,
    batch: c_longlong,
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe {
        sys::cufftGetSizeMany64(
            plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type_, batch,
            &mut size,
        )
    }
    .result()?;
    Ok(size)
}

/// `cufftMakePlan1d` on a handle from [`create`]: the work area's size.
///
/// # Safety
/// `plan` is a live handle from [`create`].
pub unsafe fn make_plan_1d(
    plan: sys::cufftHandle,
    nx: c_int,
    type_: sys::cufftType,
    batch: c_int,
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe { sys::cufftMakePlan1d(plan, nx, type_, batch, &mut size) }.result()?;
    Ok(size)
}

/// `cufftMakePlan2d`.
///
/// # Safety
/// As [`make_plan_1d`].
pub unsafe fn make_plan_2d(
    plan: sys::cufftHandle,
    nx: c_int,
    ny: c_int,
    type_: sys::cufftType,
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe { sys::cufftMakePlan2d(plan, nx, ny, type_, &mut size) }.result()?;
    Ok(size)
}

/// `cufftMakePlan3d`.
///
/// # Safety
/// As [`make_plan_1d`].
pub unsafe fn make_plan_3d(
    plan: sys::cufftHandle,
    nx: c_int,
    ny: c_int,
    nz: c_int,
    type_: sys::cufftType,
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe { sys::cufftMakePlan3d(plan, nx, ny, nz, type_, &mut size) }.result()?;
    Ok(size)
}

/// `cufftMakePlanMany`.
///
/// # Safety
/// As [`make_plan_1d`]; the arrays as in [`estimate_many`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn make_plan_many(
    plan: sys::cufftHandle,
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
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe {
        sys::cufftMakePlanMany(
            plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type_, batch,
            &mut size,
        )
    }
    .result()?;
    Ok(size)
}

/// `cufftMakePlanMany64`.
///
/// # Safety
/// As [`make_plan_many`], with 64-bit sizes.
#[allow(clippy::too_many_arguments)]
pub unsafe fn make_plan_many64(
    plan: sys::cufftHandle,
    rank: c_int,
    n: *mut c_longlong,
    inembed: *mut c_longlong,
    istride: c_longlong,
    idist: c_longlong,
    onembed: *mut c_longlong,
    ostride: c_longlong,
    odist: c_longlong,
    type_: sys::cufftType,
    batch: c_longlong,
) -> Result<usize, CufftError> {
    let mut size = 0;
    // SAFETY: the caller's contract; `size` is a valid place.
    unsafe {
        sys::cufftMakePlanMany64(
            plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type_, batch,
            &mut size,
        )
    }
    .result()?;
    Ok(size)
}

/// `cufftPlan1d`: a new 1-D plan.
pub fn plan_1d(
    nx: c_int,
    type_: sys::cufftType,
    batch: c_int,
) -> Result<sys::cufftHandle, CufftError> {
    let mut plan: sys::cufftHandle = std::ptr::null_mut();
    // SAFETY: `plan` is a valid place for the new handle.
    unsafe { sys::cufftPlan1d(&mut plan, nx, type_, batch) }.result()?;
    Ok(plan)
}

/// `cufftPlan2d`: a new 2-D plan (`nx` the outer size).
pub fn plan_2d(
    nx: c_int,
    ny: c_int,
    type_: sys::cufftType,
) -> Result<sys::cufftHandle, CufftError> {
    let mut plan: sys::cufftHandle = std::ptr::null_mut();
    // SAFETY: `plan` is a valid place for the new handle.
    unsafe { sys::cufftPlan2d(&mut plan, nx, ny, type_) }.result()?;
    Ok(plan)
}

/// `cufftPlan3d`: a new 3-D plan.
pub fn plan_3d(
    nx: c_int,
    ny: c_int,
    nz: c_int,
    type_: sys::cufftType,
) -> Result<sys::cufftHandle, CufftError> {
    let mut plan: sys::cufftHandle = std::ptr::null_mut();
    // SAFETY: `plan` is a valid place for the new handle.
    unsafe { sys::cufftPlan3d(&mut plan, nx, ny, nz, type_) }.result()?;
    Ok(plan)
}

/// `cufftPlanMany`: a new batched plan with an advanced layout.
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
    let mut plan: sys::cufftHandle = std::ptr::null_mut();
    // SAFETY: the caller's contract; `plan` is a valid place.
    unsafe {
        sys::cufftPlanMany(
            &mut plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type_, batch,
        )
    }
    .result()?;
    Ok(plan)
}

/// `cufftSetAutoAllocation`.
///
/// # Safety
/// `plan` is a live handle.
pub unsafe fn set_auto_allocation(
    plan: sys::cufftHandle,
    auto_allocate: bool,
) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cufftSetAutoAllocation(plan, auto_allocate as c_int) }.result()
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
    unsafe { sys::cufftSetStream(plan, stream) }.result()
}

/// `cufftSetWorkArea`.
///
/// # Safety
/// `plan` is live; `work_area` is device memory of at least its work size,
/// kept while the plan runs.
pub unsafe fn set_work_area(
    plan: sys::cufftHandle,
    work_area: *mut c_void,
) -> Result<(), CufftError> {
    // SAFETY: the caller's contract.
    unsafe { sys::cufftSetWorkArea(plan, work_area) }.result()
}
