//! The result layer: one thin function per hipFFT call the safe types
//! make (and the others of cuFFT's plan API, in C's shape, for callers that
//! hold C's arguments such as cuda-compat's cudarc layer), each turning the
//! status into a [`Result`] ([`Error::Fft`] with the call's name) and output
//! parameters into return values. Handles stay raw: the caller owns them
//! ([`Plan`](crate::Plan) is the safe owner).
//!
//! This is the only place in the crate that calls `hipfft_sys`'s
//! functions. A function is `unsafe` when the call's soundness depends on
//! its arguments (a live plan handle, device pointers its layouts fit in);
//! its `# Safety` section says what must hold.
//!
//! ```no_run
//! # fn main() -> hipfft::Result<()> {
//! use hipfft::result;
//! println!("hipFFT {}", result::get_version()?);
//! let dev = hip::Device::get(0)?;
//! let held = dev.hold_captures("example")?;
//! let plan = result::create(&held)?;
//! // SAFETY: `plan` was made by `create` and is destroyed once.
//! unsafe { result::destroy(plan, &held) }?;
//! # Ok(()) }
//! ```

use crate::error::{Error, Result};
use hipfft_sys as sys;
use hipfft_sys::{
    hipStream_t, hipfftComplex, hipfftDoubleComplex, hipfftDoubleReal, hipfftHandle,
    hipfftLibraryPropertyType, hipfftReal, hipfftResult, hipfftType,
};
use std::ffi::{c_int, c_longlong, c_void};

/// The loaded hipFFT (cuFFT on the NVIDIA platform), or [`Error::Load`]
/// with every path tried.
pub fn library() -> Result<&'static sys::loader::Hipfft> {
    sys::loader::hipfft().map_err(|e| Error::Load(e.clone()))
}

/// `Ok(())` for `HIPFFT_SUCCESS`, else [`Error::Fft`] naming `call` (see
/// [`Error::from_fft`]).
#[inline]
pub fn check(call: &'static str, status: hipfftResult) -> Result<()> {
    if status.is_success() {
        Ok(())
    } else {
        Err(Error::from_fft(call, status))
    }
}

/// `hipfftGetVersion`: the loaded library's version number.
pub fn get_version() -> Result<i32> {
    let mut version = 0;
    // SAFETY: `version` is a valid place to write an int.
    check("hipfftGetVersion", unsafe {
        sys::hipfftGetVersion(&mut version)
    })?;
    Ok(version)
}

/// `hipfftGetProperty`: the loaded library's major or minor version or
/// patch level.
pub fn get_property(property: hipfftLibraryPropertyType) -> Result<c_int> {
    let mut value = 0;
    // SAFETY: `value` is a valid place to write an int.
    check("hipfftGetProperty", unsafe {
        sys::hipfftGetProperty(property, &mut value)
    })?;
    Ok(value)
}

/// `hipfftCreate`: a new, empty plan handle (destroy it with [`destroy`]).
///
/// It may act on the whole device, which CUDA forbids during any capture
/// of the device: `_held` proves the caller holds the device's capture
/// gate ([`hip::Device::hold_captures`], or
/// [`hip::Device::release_outside_captures`] in `Drop`).
pub fn create(_held: &hip::CaptureHold<'_>) -> Result<hipfftHandle> {
    let mut plan: hipfftHandle = std::ptr::null_mut();
    // SAFETY: `plan` is a valid place for the new handle.
    check("hipfftCreate", unsafe { sys::hipfftCreate(&mut plan) })?;
    Ok(plan)
}

/// `hipfftDestroy`.
///
/// # Safety
///
/// `plan` was made by [`create`], is not used after this call, and is
/// destroyed once. As [`create`], `_held` proves the capture gate is held.
pub unsafe fn destroy(plan: hipfftHandle, _held: &hip::CaptureHold<'_>) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipfftDestroy", unsafe { sys::hipfftDestroy(plan) })
}

/// `hipfftPlan1d`: a new plan of `batch` 1-D transforms of `nx` points
/// (destroy it with [`destroy`]).
///
/// It creates a handle and allocates the plan's work area: `_held` proves
/// the capture gate is held, as for [`create`].
pub fn plan_1d(
    nx: c_int,
    type_: hipfftType,
    batch: c_int,
    _held: &hip::CaptureHold<'_>,
) -> Result<hipfftHandle> {
    let mut plan: hipfftHandle = std::ptr::null_mut();
    // SAFETY: `plan` is a valid place for the new handle.
    check("hipfftPlan1d", unsafe {
        sys::hipfftPlan1d(&mut plan, nx, type_, batch)
    })?;
    Ok(plan)
}

/// `hipfftPlan2d`: a new 2-D plan of `nx` x `ny` points (`nx` the outer,
/// slower size); `_held` as in [`plan_1d`].
pub fn plan_2d(
    nx: c_int,
    ny: c_int,
    type_: hipfftType,
    _held: &hip::CaptureHold<'_>,
) -> Result<hipfftHandle> {
    let mut plan: hipfftHandle = std::ptr::null_mut();
    // SAFETY: `plan` is a valid place for the new handle.
    check("hipfftPlan2d", unsafe {
        sys::hipfftPlan2d(&mut plan, nx, ny, type_)
    })?;
    Ok(plan)
}

/// `hipfftPlan3d`: a new 3-D plan of `nx` x `ny` x `nz` points; `_held`
/// as in [`plan_1d`].
pub fn plan_3d(
    nx: c_int,
    ny: c_int,
    nz: c_int,
    type_: hipfftType,
    _held: &hip::CaptureHold<'_>,
) -> Result<hipfftHandle> {
    let mut plan: hipfftHandle = std::ptr::null_mut();
    // SAFETY: `plan` is a valid place for the new handle.
    check("hipfftPlan3d", unsafe {
        sys::hipfftPlan3d(&mut plan, nx, ny, nz, type_)
    })?;
    Ok(plan)
}

/// `hipfftPlanMany`: a new plan of `batch` transforms of `rank`
/// dimensions with the advanced layout, in C's shape (see
/// [`make_plan_many`]); `_held` as in [`plan_1d`].
///
/// # Safety
///
/// `n` points to `rank` sizes; `inembed` and `onembed` are each null
/// (both layouts packed, strides and distances ignored) or point to `rank`
/// extents. hipFFT only reads them, during the call.
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
    type_: hipfftType,
    batch: c_int,
    _held: &hip::CaptureHold<'_>,
) -> Result<hipfftHandle> {
    let mut plan: hipfftHandle = std::ptr::null_mut();
    // SAFETY: the caller's contract for the arrays; `plan` is a valid place
    // for the new handle.
    check("hipfftPlanMany", unsafe {
        sys::hipfftPlanMany(
            &mut plan, rank, n, inembed, istride, idist, onembed, ostride, odist, type_, batch,
        )
    })?;
    Ok(plan)
}

/// `hipfftSetAutoAllocation`: whether hipFFT allocates the plan's work
/// area when the plan is made (`false`: the caller gives one with
/// [`set_work_area`]).
///
/// # Safety
///
/// `plan` is a live handle, not yet made into a plan.
pub unsafe fn set_auto_allocation(plan: hipfftHandle, auto: bool) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipfftSetAutoAllocation", unsafe {
        sys::hipfftSetAutoAllocation(plan, c_int::from(auto))
    })
}

/// `hipfftSetStream`: executions of `plan` are enqueued on `stream`.
///
/// # Safety
///
/// `plan` is a live handle and `stream` a stream that outlives every
/// execution of it.
pub unsafe fn set_stream(plan: hipfftHandle, stream: hipStream_t) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipfftSetStream", unsafe {
        sys::hipfftSetStream(plan, stream)
    })
}

/// `hipfftMakePlanMany64` with slices: makes `plan` a batched, strided
/// transform of `type_`, with `n.len()` dimensions; returns the work area
/// size in bytes. `inembed`/`onembed` hold as many values as `n` (checked:
/// [`Error::Invalid`] otherwise). [`make_plan_many64`] takes C's pointers
/// instead.
///
/// # Safety
///
/// `plan` is a live handle made by [`create`] and not yet made into a
/// plan.
#[allow(clippy::too_many_arguments)]
pub unsafe fn make_plan_many64_slices(
    plan: hipfftHandle,
    n: &mut [c_longlong],
    inembed: &mut [c_longlong],
    istride: c_longlong,
    idist: c_longlong,
    onembed: &mut [c_longlong],
    ostride: c_longlong,
    odist: c_longlong,
    type_: hipfftType,
    batch: c_longlong,
) -> Result<usize> {
    const WHAT: &str = "result::make_plan_many64_slices";
    let rank = n.len();
    if inembed.len() != rank || onembed.len() != rank {
        return Err(Error::invalid(
            WHAT,
            format!(
                "inembed ({}) and onembed ({}) must hold as many values as n ({rank})",
                inembed.len(),
                onembed.len()
            ),
        ));
    }
    let rank = c_int::try_from(rank)
        .map_err(|_| Error::invalid(WHAT, format!("rank {rank} too large")))?;
    // SAFETY: the caller's contract for `plan`; the arrays hold `rank`
    // values each (checked) and live across the call.
    unsafe {
        make_plan_many64(
            plan,
            rank,
            n.as_mut_ptr(),
            inembed.as_mut_ptr(),
            istride,
            idist,
            onembed.as_mut_ptr(),
            ostride,
            odist,
            type_,
            batch,
        )
    }
}

/// Writes the functions of hipFFT calls whose last argument is the work
/// area size they write: each takes the call's other arguments, in C's
/// order and types, and returns that size in bytes. An entry is
/// `DOCS pub [unsafe] fn NAME(ARGS) = hipfftCall;`; an `unsafe` one's docs
/// say what its arguments must be.
macro_rules! work_size {
    () => {};
    ($(#[$doc:meta])* pub fn $name:ident($($arg:ident: $ty:ty),* $(,)?) = $c:ident; $($rest:tt)*) => {
        $(#[$doc])*
        pub fn $name($($arg: $ty),*) -> Result<usize> {
            let mut work_size = 0usize;
            // SAFETY: the arguments are values; `work_size` is a valid
            // place to write.
            check(stringify!($c), unsafe { sys::$c($($arg,)* &mut work_size) })?;
            Ok(work_size)
        }
        work_size!($($rest)*);
    };
    ($(#[$doc:meta])* pub unsafe fn $name:ident($($arg:ident: $ty:ty),* $(,)?) = $c:ident; $($rest:tt)*) => {
        $(#[$doc])*
        #[allow(clippy::too_many_arguments)]
        pub unsafe fn $name($($arg: $ty),*) -> Result<usize> {
            let mut work_size = 0usize;
            // SAFETY: the caller's contract for the arguments; `work_size`
            // is a valid place to write.
            check(stringify!($c), unsafe { sys::$c($($arg,)* &mut work_size) })?;
            Ok(work_size)
        }
        work_size!($($rest)*);
    };
}

work_size! {
    /// `hipfftMakePlan1d`: makes `plan` `batch` 1-D transforms of `nx`
    /// points; returns the work area size in bytes.
    ///
    /// # Safety
    ///
    /// `plan` is a live handle made by [`create`] and not yet made into a
    /// plan.
    pub unsafe fn make_plan_1d(plan: hipfftHandle, nx: c_int, type_: hipfftType, batch: c_int)
        = hipfftMakePlan1d;

    /// `hipfftMakePlan2d`: as [`make_plan_1d`], `nx` x `ny` points.
    ///
    /// # Safety
    ///
    /// As [`make_plan_1d`].
    pub unsafe fn make_plan_2d(plan: hipfftHandle, nx: c_int, ny: c_int, type_: hipfftType)
        = hipfftMakePlan2d;

    /// `hipfftMakePlan3d`: as [`make_plan_1d`], `nx` x `ny` x `nz` points.
    ///
    /// # Safety
    ///
    /// As [`make_plan_1d`].
    pub unsafe fn make_plan_3d(
        plan: hipfftHandle, nx: c_int, ny: c_int, nz: c_int, type_: hipfftType,
    ) = hipfftMakePlan3d;

    /// `hipfftMakePlanMany`: makes `plan` `batch` transforms of `rank`
    /// dimensions with the advanced layout, in C's shape: `rank` and arrays
    /// as pointers, which may alias and, for the embeds, be null (both
    /// layouts packed, strides and distances ignored, as in cuFFT). Returns
    /// the work area size in bytes.
    ///
    /// # Safety
    ///
    /// As [`make_plan_1d`] for `plan`; the arrays as in [`plan_many`].
    pub unsafe fn make_plan_many(
        plan: hipfftHandle, rank: c_int, n: *mut c_int,
        inembed: *mut c_int, istride: c_int, idist: c_int,
        onembed: *mut c_int, ostride: c_int, odist: c_int,
        type_: hipfftType, batch: c_int,
    ) = hipfftMakePlanMany;

    /// `hipfftMakePlanMany64`: [`make_plan_many`] with 64-bit sizes, in
    /// C's shape; [`make_plan_many64_slices`] checks slices instead.
    ///
    /// # Safety
    ///
    /// As [`make_plan_1d`] for `plan`; `n` points to `rank` sizes,
    /// `inembed` and `onembed` are each null or point to `rank` extents.
    pub unsafe fn make_plan_many64(
        plan: hipfftHandle, rank: c_int, n: *mut c_longlong,
        inembed: *mut c_longlong, istride: c_longlong, idist: c_longlong,
        onembed: *mut c_longlong, ostride: c_longlong, odist: c_longlong,
        type_: hipfftType, batch: c_longlong,
    ) = hipfftMakePlanMany64;

    /// `hipfftEstimate1d`: the work area a 1-D plan of these sizes would
    /// need, in bytes (an estimate; no plan is made).
    pub fn estimate_1d(nx: c_int, type_: hipfftType, batch: c_int) = hipfftEstimate1d;

    /// `hipfftEstimate2d`: as [`estimate_1d`], for a 2-D plan.
    pub fn estimate_2d(nx: c_int, ny: c_int, type_: hipfftType) = hipfftEstimate2d;

    /// `hipfftEstimate3d`: as [`estimate_1d`], for a 3-D plan.
    pub fn estimate_3d(nx: c_int, ny: c_int, nz: c_int, type_: hipfftType) = hipfftEstimate3d;

    /// `hipfftEstimateMany`: as [`estimate_1d`], for a plan of
    /// [`plan_many`]'s arguments.
    ///
    /// # Safety
    ///
    /// The arrays as in [`plan_many`].
    pub unsafe fn estimate_many(
        rank: c_int, n: *mut c_int,
        inembed: *mut c_int, istride: c_int, idist: c_int,
        onembed: *mut c_int, ostride: c_int, odist: c_int,
        type_: hipfftType, batch: c_int,
    ) = hipfftEstimateMany;

    /// `hipfftGetSize`: the work area of the plan `plan`, in bytes.
    ///
    /// # Safety
    ///
    /// `plan` is a live handle.
    pub unsafe fn get_size(plan: hipfftHandle) = hipfftGetSize;

    /// `hipfftGetSize1d`: the work area `plan` would need as a 1-D plan of
    /// these sizes, in bytes (a closer estimate than [`estimate_1d`]).
    ///
    /// # Safety
    ///
    /// `plan` is a live handle.
    pub unsafe fn get_size_1d(plan: hipfftHandle, nx: c_int, type_: hipfftType, batch: c_int)
        = hipfftGetSize1d;

    /// `hipfftGetSize2d`: as [`get_size_1d`], for a 2-D plan.
    ///
    /// # Safety
    ///
    /// `plan` is a live handle.
    pub unsafe fn get_size_2d(plan: hipfftHandle, nx: c_int, ny: c_int, type_: hipfftType)
        = hipfftGetSize2d;

    /// `hipfftGetSize3d`: as [`get_size_1d`], for a 3-D plan.
    ///
    /// # Safety
    ///
    /// `plan` is a live handle.
    pub unsafe fn get_size_3d(
        plan: hipfftHandle, nx: c_int, ny: c_int, nz: c_int, type_: hipfftType,
    ) = hipfftGetSize3d;

    /// `hipfftGetSizeMany`: as [`get_size_1d`], for a plan of
    /// [`plan_many`]'s arguments.
    ///
    /// # Safety
    ///
    /// `plan` is a live handle; the arrays as in [`plan_many`].
    pub unsafe fn get_size_many(
        plan: hipfftHandle, rank: c_int, n: *mut c_int,
        inembed: *mut c_int, istride: c_int, idist: c_int,
        onembed: *mut c_int, ostride: c_int, odist: c_int,
        type_: hipfftType, batch: c_int,
    ) = hipfftGetSizeMany;

    /// `hipfftGetSizeMany64`: [`get_size_many`] with 64-bit sizes.
    ///
    /// # Safety
    ///
    /// As [`make_plan_many64`]'s arrays; `plan` is a live handle.
    pub unsafe fn get_size_many64(
        plan: hipfftHandle, rank: c_int, n: *mut c_longlong,
        inembed: *mut c_longlong, istride: c_longlong, idist: c_longlong,
        onembed: *mut c_longlong, ostride: c_longlong, odist: c_longlong,
        type_: hipfftType, batch: c_longlong,
    ) = hipfftGetSizeMany64;
}

/// `hipfftSetWorkArea`: the work area of a plan made without automatic
/// allocation.
///
/// # Safety
///
/// `plan` is a live plan; `area` is device memory on the plan's device of
/// at least the plan's work size, alive and unused by others until the
/// plan is destroyed or given another area.
pub unsafe fn set_work_area(plan: hipfftHandle, area: *mut c_void) -> Result<()> {
    // SAFETY: the caller's contract.
    check("hipfftSetWorkArea", unsafe {
        sys::hipfftSetWorkArea(plan, area)
    })
}

macro_rules! exec {
    ($(#[$doc:meta])* $name:ident, $call:ident, $i:ty, $o:ty $(, $direction:ident)?) => {
        $(#[$doc])*
        ///
        /// # Safety
        ///
        /// `plan` is a live plan made for this transform and precision;
        /// `input` and `output` are device memory on its device that its
        /// layouts fit in (the same pointer for an in-place plan), not used
        /// by other streams until the plan's stream reaches the transform.
        pub unsafe fn $name(
            plan: hipfftHandle,
            input: *mut $i,
            output: *mut $o,
            $($direction: c_int,)?
        ) -> Result<()> {
            // SAFETY: the caller's contract.
            check(stringify!($call), unsafe {
                sys::$call(plan, input, output $(, $direction)?)
            })
        }
    };
}

exec!(
    /// `hipfftExecC2C`: single-precision complex to complex, in
    /// `direction` (`HIPFFT_FORWARD` or `HIPFFT_BACKWARD`).
    exec_c2c, hipfftExecC2C, hipfftComplex, hipfftComplex, direction
);
exec!(
    /// `hipfftExecR2C`: single-precision real to complex (forward).
    exec_r2c, hipfftExecR2C, hipfftReal, hipfftComplex
);
exec!(
    /// `hipfftExecC2R`: single-precision complex to real (inverse; may
    /// overwrite the input).
    exec_c2r, hipfftExecC2R, hipfftComplex, hipfftReal
);
exec!(
    /// `hipfftExecZ2Z`: double-precision complex to complex, in
    /// `direction` (`HIPFFT_FORWARD` or `HIPFFT_BACKWARD`).
    exec_z2z, hipfftExecZ2Z, hipfftDoubleComplex, hipfftDoubleComplex, direction
);
exec!(
    /// `hipfftExecD2Z`: double-precision real to complex (forward).
    exec_d2z, hipfftExecD2Z, hipfftDoubleReal, hipfftDoubleComplex
);
exec!(
    /// `hipfftExecZ2D`: double-precision complex to real (inverse; may
    /// overwrite the input).
    exec_z2d, hipfftExecZ2D, hipfftDoubleComplex, hipfftDoubleReal
);
