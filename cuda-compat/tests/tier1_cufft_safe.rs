//! Tier 1: cudarc's safe cuFFT API at cudarc's paths, written as cudarc's
//! users write it (the `uses_*` functions are type checks, compiled and not
//! run), and the result layer's error without a GPU.

#![allow(dead_code)]

use cuda_compat::cufft::result::{self, CufftError};
use cuda_compat::cufft::{sys, CudaFft, FftDirection};
use cuda_compat::driver::{CudaContext, CudaSlice, DriverError};
use std::error::Error;

fn uses_cufft_like_cudarc() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let c2c = CudaFft::plan_1d(256, sys::cufftType::CUFFT_C2C, 1, stream.clone())?;
    let mut a: CudaSlice<sys::float2> = stream.alloc_zeros(256)?;
    let mut b: CudaSlice<sys::float2> = stream.alloc_zeros(256)?;
    c2c.exec_c2c(&mut a, &mut b, FftDirection::Forward)?;
    c2c.exec_c2c(&mut b, &mut a, FftDirection::Inverse)?;
    let r2c = CudaFft::plan_2d(64, 64, sys::cufftType::CUFFT_R2C, stream.clone())?;
    let real: CudaSlice<f32> = stream.alloc_zeros(64 * 64)?;
    let mut half: CudaSlice<sys::float2> = stream.alloc_zeros(64 * 33)?;
    r2c.exec_r2c(&real, &mut half)?;
    let mut c2r = CudaFft::plan_3d(4, 4, 4, sys::cufftType::CUFFT_C2R, stream.clone())?;
    let mut out: CudaSlice<f32> = stream.alloc_zeros(64)?;
    let mut spectrum: CudaSlice<sys::float2> = stream.alloc_zeros(4 * 4 * 3)?;
    c2r.exec_c2r(&mut spectrum, &mut out)?;
    // SAFETY: never run (a type check).
    unsafe { c2r.set_stream(ctx.new_stream()?) }?;
    let z2z = CudaFft::plan_many(
        &[16],
        None,
        1,
        16,
        None,
        1,
        16,
        sys::cufftType::CUFFT_Z2Z,
        4,
        stream.clone(),
    )?;
    let mut z: CudaSlice<sys::double2> = stream.alloc_zeros(64)?;
    let mut w: CudaSlice<sys::double2> = stream.alloc_zeros(64)?;
    z2z.exec_z2z(&mut z, &mut w, FftDirection::Forward)?;
    let d2z = CudaFft::plan_1d(16, sys::cufftType::CUFFT_D2Z, 1, stream.clone())?;
    let d: CudaSlice<f64> = stream.alloc_zeros(16)?;
    d2z.exec_d2z(&d, &mut w)?;
    let z2d = CudaFft::plan_1d(16, sys::cufftType::CUFFT_Z2D, 1, stream.clone())?;
    let mut back: CudaSlice<f64> = stream.alloc_zeros(16)?;
    z2d.exec_z2d(&mut w, &mut back)?;
    let _: sys::cufftHandle = z2d.handle();
    let _: usize = result::estimate_1d(1024, sys::cufftType::CUFFT_C2C, 1)?;
    let plan = result::create()?;
    // SAFETY: never run (a type check).
    unsafe {
        let _: usize = result::make_plan_1d(plan, 1024, sys::cufftType::CUFFT_C2C, 1)?;
        let _: usize = result::get_size(plan)?;
        result::set_auto_allocation(plan, true)?;
        result::destroy(plan)?;
    }
    let _: std::os::raw::c_int = result::get_property(sys::libraryPropertyType::MAJOR_VERSION)?;
    Ok(())
}

/// The errors convert the way cudarc programs use them with `?`.
fn errors_box(e: CufftError) -> Box<dyn Error> {
    Box::new(e)
}

fn driver_errors_box(e: DriverError) -> Box<dyn Error> {
    Box::new(e)
}

#[test]
fn the_result_layer_reports_statuses_as_errors() {
    assert_eq!(sys::cufftResult::CUFFT_SUCCESS.result(), Ok(()));
    let e = sys::cufftResult::CUFFT_INVALID_SIZE.result().unwrap_err();
    assert_eq!(e, CufftError(sys::cufftResult::CUFFT_INVALID_SIZE));
    assert!(e.to_string().contains("CUFFT_INVALID_SIZE"), "{e}");
    // Without hipFFT (CI), the version call fails cleanly; with it, the
    // version is positive.
    match result::get_version() {
        Ok(v) => assert!(v > 0, "version {v}"),
        Err(e) => assert_ne!(e.0, sys::cufftResult::CUFFT_SUCCESS),
    }
    assert_eq!(FftDirection::Forward as i32, sys::CUFFT_FORWARD);
}
