//! Tier 1: cuSOLVER's names in `cuda_compat::cusolver` (the `cusolver`
//! feature), as cudarc 0.19 has them: the raw functions with cuSOLVER's
//! signatures (checked by the compiler: `const` items of function-pointer
//! types spelled as `cusolverDn.h` declares them), the enums with
//! hipSOLVER's values under CUDA's names, the `result` layer and the
//! handles. `cudarc_style_syevd` is cudarc's own raw-API usage (its
//! `cusolver` test, written against `cudarc::cusolver::sys`), compiled
//! here unchanged but for the crate name; it needs a GPU and is not run.

use cuda_compat::cusolver::result::{self, CusolverError};
use cuda_compat::cusolver::sys::*;
use cuda_compat::cusolver::{DnHandle, DnParams, RfHandle, SpHandle};
use cuda_compat::driver::{CudaContext, CudaStream, DevicePtr};
use std::ffi::c_int;
use std::sync::Arc;

const _: () = {
    const _: unsafe fn(*mut cusolverDnHandle_t) -> cusolverStatus_t = cusolverDnCreate;
    const _: unsafe fn(cusolverDnHandle_t) -> cusolverStatus_t = cusolverDnDestroy;
    const _: unsafe fn(cusolverDnHandle_t, cudaStream_t) -> cusolverStatus_t = cusolverDnSetStream;
    const _: unsafe fn(
        cusolverDnHandle_t,
        c_int,
        c_int,
        *mut f32,
        c_int,
        *mut c_int,
    ) -> cusolverStatus_t = cusolverDnSgetrf_bufferSize;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cusolverDnHandle_t,
        c_int,
        c_int,
        *mut f64,
        c_int,
        *mut f64,
        *mut c_int,
        *mut c_int,
    ) -> cusolverStatus_t = cusolverDnDgetrf;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cusolverDnHandle_t,
        cublasFillMode_t,
        c_int,
        *mut cuComplex,
        c_int,
        *mut cuComplex,
        c_int,
        *mut c_int,
    ) -> cusolverStatus_t = cusolverDnCpotrf;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cusolverDnHandle_t,
        cusolverEigMode_t,
        cublasFillMode_t,
        c_int,
        *mut f32,
        c_int,
        *mut f32,
        *mut f32,
        c_int,
        *mut c_int,
    ) -> cusolverStatus_t = cusolverDnSsyevd;
    #[allow(clippy::type_complexity)]
    const _: unsafe fn(
        cusolverDnHandle_t,
        i8,
        i8,
        c_int,
        c_int,
        *mut cuDoubleComplex,
        c_int,
        *mut f64,
        *mut cuDoubleComplex,
        c_int,
        *mut cuDoubleComplex,
        c_int,
        *mut cuDoubleComplex,
        c_int,
        *mut f64,
        *mut c_int,
    ) -> cusolverStatus_t = cusolverDnZgesvd;
    const _: unsafe fn(*mut gesvdjInfo_t) -> cusolverStatus_t = cusolverDnCreateGesvdjInfo;
    const _: unsafe fn(*mut cusolverRfHandle_t) -> cusolverStatus_t = cusolverRfCreate;
};

/// cudarc's own use of the raw API (its `cusolver` sys test): compiled, not
/// run (it needs a GPU).
#[allow(dead_code)]
fn cudarc_style_syevd() {
    let ctx = CudaContext::new(0).unwrap();
    let stream = ctx.default_stream();
    let n: usize = 5;
    let a: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
    let a = stream.clone_htod(&a).unwrap();
    let w = stream.alloc_zeros::<f32>(n).unwrap();
    let work = stream.alloc_zeros::<f32>(1024).unwrap();
    let info = stream.alloc_zeros::<c_int>(1).unwrap();
    let mut handle = std::mem::MaybeUninit::uninit();
    // SAFETY: a valid place for the handle.
    let stat = unsafe { cusolverDnCreate(handle.as_mut_ptr()) };
    assert_eq!(stat, cusolverStatus_t::CUSOLVER_STATUS_SUCCESS);
    // SAFETY: written by the successful call above.
    let handle = unsafe { handle.assume_init() };
    let jobz = cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR;
    let uplo = cublasFillMode_t::CUBLAS_FILL_MODE_UPPER;
    let (a_ptr, _ga) = a.device_ptr(&stream);
    let (w_ptr, _gw) = w.device_ptr(&stream);
    let (work_ptr, _gk) = work.device_ptr(&stream);
    let (info_ptr, _gi) = info.device_ptr(&stream);
    // SAFETY: device buffers of the sizes the call reads and writes.
    let stat = unsafe {
        cusolverDnSsyevd(
            handle,
            jobz,
            uplo,
            n as c_int,
            a_ptr as *mut f32,
            n as c_int,
            w_ptr as *mut f32,
            work_ptr as *mut f32,
            1024,
            info_ptr as *mut c_int,
        )
    };
    assert_eq!(stat, cusolverStatus_t::CUSOLVER_STATUS_SUCCESS);
}

/// cudarc's safe handles, as a cudarc program builds them.
#[allow(dead_code)]
fn cudarc_style_handles(stream: Arc<CudaStream>) -> Result<(), CusolverError> {
    let dn = DnHandle::new(stream.clone())?;
    let _raw: cusolverDnHandle_t = dn.cu();
    dn.set_deterministic_mode(cusolverDeterministicMode_t::CUSOLVER_DETERMINISTIC_RESULTS)?;
    let _params = DnParams::new(
        cusolverDnFunction_t::CUSOLVERDN_GETRF,
        cusolverAlgMode_t::CUSOLVER_ALG_0,
    )?;
    let sp = SpHandle::new(stream)?;
    let _raw: cusolverSpHandle_t = sp.cu();
    let rf = RfHandle::new()?;
    rf.set_algs(
        cusolverRfFactorization_t::CUSOLVERRF_FACTORIZATION_ALG0,
        cusolverRfTriangularSolve_t::CUSOLVERRF_TRIANGULAR_SOLVE_ALG1,
    )?;
    Ok(())
}

#[test]
fn enums_carry_hipsolvers_values_under_cudas_names() {
    use hipsolver_sys as h;
    assert_eq!(
        h::hipsolverStatus_t::from(cusolverStatus_t::CUSOLVER_STATUS_ZERO_PIVOT),
        h::hipsolverStatus_t::HIPSOLVER_STATUS_ZERO_PIVOT
    );
    assert_eq!(
        h::hipsolverEigMode_t::from(cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR),
        h::hipsolverEigMode_t::HIPSOLVER_EIG_MODE_VECTOR
    );
    assert_eq!(
        h::hipsolverEigRange_t::from(cusolverEigRange_t::CUSOLVER_EIG_RANGE_I),
        h::hipsolverEigRange_t::HIPSOLVER_EIG_RANGE_I
    );
    assert_eq!(cusolverStatus_t::CUSOLVER_STATUS_SUCCESS.result(), Ok(()));
    let e = cusolverStatus_t::CUSOLVER_STATUS_NOT_SUPPORTED
        .result()
        .unwrap_err();
    assert!(
        e.to_string().contains("CUSOLVER_STATUS_NOT_SUPPORTED"),
        "{e}"
    );
    assert!(cuda_compat::enums()
        .iter()
        .any(|t| t.cuda == "cusolverStatus_t"));
}

#[test]
fn without_a_solver_library_creating_a_handle_is_an_error_not_a_panic() {
    // On a machine with hipSOLVER (or cuSOLVER) this creates and destroys
    // a handle; without one (CI) it reports the missing library.
    match result::dn_create() {
        // SAFETY: made above, destroyed once.
        Ok(h) => unsafe { result::dn_destroy(h) }.unwrap(),
        Err(e) => assert_eq!(
            e.0,
            cusolverStatus_t::CUSOLVER_STATUS_NOT_INITIALIZED,
            "{e}"
        ),
    }
}

#[test]
fn result_functions_keep_the_reason_of_their_failure() {
    // Without a device or a hipSOLVER (this machine), creating a handle
    // fails; the error keeps the words of the layer that refused it (no
    // device, or the library paths tried), printed by `Debug`.
    let Err(e) = result::dn_create() else {
        // A machine with both: nothing fails here.
        assert!(hipsolver_sys::loader::hipsolver().is_ok());
        return;
    };
    assert_eq!(e.0, cusolverStatus_t::CUSOLVER_STATUS_NOT_INITIALIZED);
    test_kit::assert_reason_kept(&e, e.0, result::last_error_detail());
    // Options need no device: without a library their creation names the
    // paths tried.
    if let Err(p) = result::dn_create_params() {
        assert_eq!(p.0, cusolverStatus_t::CUSOLVER_STATUS_NOT_INITIALIZED);
        let (_, why) = result::last_error_detail().expect("a reason");
        assert!(format!("{p:?}").contains(why.lines().next().unwrap()));
    }
    // A raw status afterwards says only itself.
    let raw = cusolverStatus_t::CUSOLVER_STATUS_NOT_INITIALIZED.result();
    assert_eq!(raw, Err(e));
    assert_eq!(result::last_error_detail(), None);
    assert_eq!(
        format!("{e:?}"),
        "CusolverError(CUSOLVER_STATUS_NOT_INITIALIZED)"
    );
}
