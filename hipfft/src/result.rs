//! The result layer: one thin function per hipFFT call the safe types
//! make, each turning the status into a [`Result`] ([`Error::Fft`] with the
//! call's name) and output parameters into return values. Handles stay
//! raw: the caller owns them ([`Plan`](crate::Plan) is the safe owner).
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
    hipStream_t, hipfftComplex, hipfftDoubleComplex, hipfftDoubleReal, hipfftHandle, hipfftReal,
    hipfftResult, hipfftType,
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

/// `hipfftMakePlanMany64`: makes `plan` a batched, strided transform of
/// `type_`, with `n.len()` dimensions; returns the work area size in bytes.
/// `inembed`/`onembed` hold as many values as `n`.
///
/// # Safety
///
/// `plan` is a live handle made by [`create`] and not yet made into a
/// plan.
#[allow(clippy::too_many_arguments)]
pub unsafe fn make_plan_many64(
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
    let rank = n.len();
    if inembed.len() != rank || onembed.len() != rank {
        return Err(Error::invalid(
            "result::make_plan_many64",
            format!(
                "inembed ({}) and onembed ({}) must hold as many values as n ({rank})",
                inembed.len(),
                onembed.len()
            ),
        ));
    }
    let rank = c_int::try_from(rank).map_err(|_| {
        Error::invalid("result::make_plan_many64", format!("rank {rank} too large"))
    })?;
    let mut work_size = 0usize;
    // SAFETY: the caller's contract for `plan`; the arrays hold `rank`
    // values each (checked) and live across the call; `work_size` is a
    // valid place to write.
    check("hipfftMakePlanMany64", unsafe {
        sys::hipfftMakePlanMany64(
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
            &mut work_size,
        )
    })?;
    Ok(work_size)
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
