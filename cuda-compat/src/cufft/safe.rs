//! cudarc's safe cuFFT API: [`CudaFft`] (a plan bound to a stream) and
//! [`FftDirection`], over hipFFT.
//!
//! One addition to cudarc: every plan remembers its geometry, and each
//! `exec_*` checks, before hipFFT is called, that the plan is of that
//! transform's type and that both buffers hold every element the plan
//! reads or writes (the lengths come from hipfft's [`Layout`]). A wrong
//! type is `CUFFT_INVALID_TYPE`, a short buffer `CUFFT_INVALID_VALUE`;
//! cudarc passes both to cuFFT, where a short buffer is an out-of-bounds
//! access; either refusal keeps its reason
//! ([`last_error_detail`](super::result::last_error_detail)), as every
//! error from hipfft keeps hipfft's message. Dropping a plan never panics
//! (cudarc unwraps the destroy).

use super::result::{self, CufftError};
use super::sys;
use crate::driver::{CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, ValidAsZeroBits};
use core::ffi::c_int;
use hipfft::{half_complex_dims, Layout};
use std::sync::Arc;

// SAFETY: `float2` is two `f32`s in C layout: every bit pattern is a value.
unsafe impl DeviceRepr for sys::float2 {}
// SAFETY: zero bytes are `0.0 + 0.0i`.
unsafe impl ValidAsZeroBits for sys::float2 {}
// SAFETY: `double2` is two `f64`s in C layout: every bit pattern is a value.
unsafe impl DeviceRepr for sys::double2 {}
// SAFETY: zero bytes are `0.0 + 0.0i`.
unsafe impl ValidAsZeroBits for sys::double2 {}

/// The direction of a complex-to-complex transform (`CUFFT_FORWARD`,
/// `CUFFT_INVERSE`). Transforms are unnormalised: forward then inverse
/// multiplies by the number of points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FftDirection {
    /// `CUFFT_FORWARD` (-1): `exp(-2 pi i jk/n)`.
    Forward = -1,
    /// `CUFFT_INVERSE` (1): `exp(+2 pi i jk/n)`.
    Inverse = 1,
}

/// `status` for an argument `CudaFft` refuses before hipFFT is called,
/// with `why` as this thread's reason ([`result::last_error_detail`]).
#[cold]
fn refuse(status: sys::cufftResult, why: String) -> CufftError {
    result::fail(status, &format!("CudaFft: {why}"))
}

/// What a plan reads and writes: its type and the elements each side
/// reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Geometry {
    type_: sys::cufftType,
    /// Elements of the input's type the plan reads.
    input_len: usize,
    /// Elements of the output's type the plan writes.
    output_len: usize,
}

impl Geometry {
    /// The geometry of `batch` transforms of sizes `n` (outermost first)
    /// in the given layouts (`None`: packed), or the status cuFFT would
    /// return for such arguments.
    #[allow(clippy::too_many_arguments)]
    fn new(
        type_: sys::cufftType,
        n: &[c_int],
        batch: c_int,
        inembed: Option<(&[c_int], c_int, c_int)>,
        onembed: Option<(&[c_int], c_int, c_int)>,
    ) -> Result<Geometry, CufftError> {
        let invalid_size = |why: String| refuse(sys::cufftResult::CUFFT_INVALID_SIZE, why);
        let invalid_value = |why: String| refuse(sys::cufftResult::CUFFT_INVALID_VALUE, why);
        if n.is_empty() || n.len() > 3 || batch < 1 {
            return Err(invalid_size(format!(
                "sizes {n:?} (1 to 3 of them) and batch {batch} (at least 1)"
            )));
        }
        let dims: Vec<usize> = n
            .iter()
            .map(|&d| usize::try_from(d).ok().filter(|d| *d >= 1))
            .collect::<Option<_>>()
            .ok_or_else(|| invalid_size(format!("sizes {n:?}: each must be at least 1")))?;
        let t = type_;
        let (input_dims, output_dims) =
            if t == sys::cufftType::CUFFT_R2C || t == sys::cufftType::CUFFT_D2Z {
                (dims.clone(), half_complex_dims(&dims))
            } else if t == sys::cufftType::CUFFT_C2R || t == sys::cufftType::CUFFT_Z2D {
                (half_complex_dims(&dims), dims.clone())
            } else if t == sys::cufftType::CUFFT_C2C || t == sys::cufftType::CUFFT_Z2Z {
                (dims.clone(), dims.clone())
            } else {
                return Err(refuse(
                    sys::cufftResult::CUFFT_INVALID_TYPE,
                    format!("{t:?} is no cuFFT transform type"),
                ));
            };
        let batch = batch as usize;
        let len = |side: Option<(&[c_int], c_int, c_int)>,
                   logical: &[usize]|
         -> Result<usize, CufftError> {
            let layout = match side {
                // cuFFT ignores stride and distance without an embed array.
                None => Layout::packed(logical),
                Some((embed, stride, dist)) => {
                    if embed.len() != logical.len() {
                        return Err(invalid_value(format!(
                            "embed {embed:?} must hold {} extents",
                            logical.len()
                        )));
                    }
                    let extents: Vec<usize> = embed
                        .iter()
                        .map(|&e| usize::try_from(e).ok())
                        .collect::<Option<_>>()
                        .ok_or_else(|| {
                            invalid_value(format!("embed {embed:?} has a negative extent"))
                        })?;
                    // Each inner extent holds its dimension (cuFFT's rule).
                    if extents.iter().zip(logical).skip(1).any(|(e, d)| e < d) {
                        return Err(invalid_value(format!(
                            "embed {embed:?}: an inner extent is smaller than its size \
                             ({logical:?})"
                        )));
                    }
                    let stride = usize::try_from(stride)
                        .ok()
                        .filter(|s| *s >= 1)
                        .ok_or_else(|| invalid_value(format!("stride {stride} (at least 1)")))?;
                    let dist = usize::try_from(dist)
                        .map_err(|_| invalid_value(format!("distance {dist} is negative")))?;
                    Layout::new(&extents, stride, dist)
                }
            };
            layout.required_len(logical, batch).ok_or_else(|| {
                invalid_size(format!("the layout of {logical:?} x{batch} overflows"))
            })
        };
        // cuFFT ignores both advanced layouts when either embed array is
        // null; a side whose array was given must then also hold its
        // advanced reach, whichever reading the library takes.
        let both = inembed.is_some() && onembed.is_some();
        let reach = |side: Option<(&[c_int], c_int, c_int)>, logical: &[usize]| {
            let packed = len(None, logical)?;
            match side {
                Some(_) if both => len(side, logical),
                Some(_) => Ok(packed.max(len(side, logical)?)),
                None => Ok(packed),
            }
        };
        Ok(Geometry {
            type_,
            input_len: reach(inembed, &input_dims)?,
            output_len: reach(onembed, &output_dims)?,
        })
    }

    /// `Ok` when the plan is of type `want` and the buffers hold what it
    /// reaches.
    fn check(&self, want: sys::cufftType, input: usize, output: usize) -> Result<(), CufftError> {
        if self.type_ != want {
            return Err(refuse(
                sys::cufftResult::CUFFT_INVALID_TYPE,
                format!("the plan is {:?}, not {want:?}", self.type_),
            ));
        }
        if input < self.input_len || output < self.output_len {
            return Err(refuse(
                sys::cufftResult::CUFFT_INVALID_VALUE,
                format!(
                    "buffers of {input} and {output} elements; the plan reaches {} and {}",
                    self.input_len, self.output_len
                ),
            ));
        }
        Ok(())
    }
}

/// A cuFFT plan bound to a stream (cudarc's `CudaFft`): made by
/// [`CudaFft::plan_1d`], [`plan_2d`](CudaFft::plan_2d),
/// [`plan_3d`](CudaFft::plan_3d) or [`plan_many`](CudaFft::plan_many),
/// run with the `exec_*` of its type, destroyed when dropped.
#[derive(Debug)]
pub struct CudaFft {
    handle: sys::cufftHandle,
    stream: Arc<CudaStream>,
    geometry: Geometry,
}

// SAFETY: the plan handle is owned by this value alone; hipFFT and cuFFT
// plans may be used from any thread, one call at a time, which `&mut self`
// on `set_stream` and the stream's ordering of `exec_*` provide (cudarc
// makes the same choice).
unsafe impl Send for CudaFft {}
// SAFETY: as above: `exec_*` through `&self` only enqueue work on the
// plan's stream.
unsafe impl Sync for CudaFft {}

impl CudaFft {
    fn new(
        handle: sys::cufftHandle,
        stream: Arc<CudaStream>,
        geometry: Geometry,
    ) -> Result<Self, CufftError> {
        // The plan is owned from here: an error below destroys it on drop.
        let fft = Self {
            handle,
            stream,
            geometry,
        };
        // SAFETY: a live plan and the stream it is kept with.
        unsafe { result::set_stream(fft.handle, fft.stream.cu_stream() as _) }?;
        Ok(fft)
    }

    /// Makes the stream's device current and holds its capture gate
    /// (making a plan allocates its work area, which CUDA forbids during
    /// any capture of the device): a capture on this thread is
    /// `CUFFT_SETUP_FAILED`.
    fn bind<'d>(
        stream: &CudaStream,
        device: &'d hip::Device,
    ) -> Result<hip::CaptureHold<'d>, CufftError> {
        // A refusal is `CUFFT_SETUP_FAILED` (`ours`' status for hip's
        // errors), keeping hip's words.
        let held = device
            .hold_captures("CudaFft::plan")
            .map_err(|e| result::ours(e.into()))?;
        let ctx = stream.context();
        ctx.record_err(ctx.bind_to_thread());
        Ok(held)
    }

    /// A 1-D plan of `batch` transforms of `nx` points, on `stream`.
    pub fn plan_1d(
        nx: i32,
        type_: sys::cufftType,
        batch: i32,
        stream: Arc<CudaStream>,
    ) -> Result<Self, CufftError> {
        let geometry = Geometry::new(type_, &[nx], batch, None, None)?;
        let device = stream.context().device.clone();
        let held = Self::bind(&stream, &device)?;
        let handle =
            hipfft::result::plan_1d(nx, type_.into(), batch, &held).map_err(result::ours)?;
        Self::new(handle, stream, geometry)
    }

    /// A 2-D plan of `nx` x `ny` points (`nx` the outer, slower size).
    pub fn plan_2d(
        nx: i32,
        ny: i32,
        type_: sys::cufftType,
        stream: Arc<CudaStream>,
    ) -> Result<Self, CufftError> {
        let geometry = Geometry::new(type_, &[nx, ny], 1, None, None)?;
        let device = stream.context().device.clone();
        let held = Self::bind(&stream, &device)?;
        let handle = hipfft::result::plan_2d(nx, ny, type_.into(), &held).map_err(result::ours)?;
        Self::new(handle, stream, geometry)
    }

    /// A 3-D plan of `nx` x `ny` x `nz` points.
    pub fn plan_3d(
        nx: i32,
        ny: i32,
        nz: i32,
        type_: sys::cufftType,
        stream: Arc<CudaStream>,
    ) -> Result<Self, CufftError> {
        let geometry = Geometry::new(type_, &[nx, ny, nz], 1, None, None)?;
        let device = stream.context().device.clone();
        let held = Self::bind(&stream, &device)?;
        let handle =
            hipfft::result::plan_3d(nx, ny, nz, type_.into(), &held).map_err(result::ours)?;
        Self::new(handle, stream, geometry)
    }

    /// A batched plan with cuFFT's advanced layout: sizes `n` (rank 1 to
    /// 3), and per side the storage extents (`None`: packed, stride and
    /// distance ignored, as in cuFFT), the stride and the distance between
    /// transforms, in elements of that side's type.
    #[allow(clippy::too_many_arguments)]
    pub fn plan_many(
        n: &[c_int],
        inembed: Option<&[c_int]>,
        istride: i32,
        idist: i32,
        onembed: Option<&[c_int]>,
        ostride: i32,
        odist: i32,
        type_: sys::cufftType,
        batch: i32,
        stream: Arc<CudaStream>,
    ) -> Result<Self, CufftError> {
        let geometry = Geometry::new(
            type_,
            n,
            batch,
            inembed.map(|e| (e, istride, idist)),
            onembed.map(|e| (e, ostride, odist)),
        )?;
        let device = stream.context().device.clone();
        let held = Self::bind(&stream, &device)?;
        let mut n = n.to_vec();
        let mut inembed = inembed.map(<[c_int]>::to_vec);
        let mut onembed = onembed.map(<[c_int]>::to_vec);
        let ptr = |v: &mut Option<Vec<c_int>>| {
            v.as_mut().map_or(std::ptr::null_mut(), |v| v.as_mut_ptr())
        };
        // SAFETY: `n` holds `rank` sizes and each embed array, when given,
        // `rank` extents (checked by `Geometry::new`); hipFFT only reads them.
        let handle = unsafe {
            hipfft::result::plan_many(
                n.len() as c_int,
                n.as_mut_ptr(),
                ptr(&mut inembed),
                istride,
                idist,
                ptr(&mut onembed),
                ostride,
                odist,
                type_.into(),
                batch,
                &held,
            )
        }
        .map_err(result::ours)?;
        Self::new(handle, stream, geometry)
    }

    /// The raw plan handle (hipFFT's opaque pointer; see the module docs).
    pub fn handle(&self) -> sys::cufftHandle {
        self.handle
    }

    /// Moves the plan to `stream`.
    ///
    /// # Safety
    /// Work already enqueued with this plan on the old stream must not
    /// overlap what is enqueued next on `stream` (cudarc's contract).
    pub unsafe fn set_stream(&mut self, stream: Arc<CudaStream>) -> Result<(), CufftError> {
        self.stream = stream;
        // SAFETY: a live plan and the stream kept with it.
        unsafe { result::set_stream(self.handle, self.stream.cu_stream() as _) }
    }

    /// Real to complex, single precision (an R2C plan).
    pub fn exec_r2c<Src: DevicePtr<f32>, Dst: DevicePtrMut<sys::float2>>(
        &self,
        input: &Src,
        output: &mut Dst,
    ) -> Result<(), CufftError> {
        self.geometry
            .check(sys::cufftType::CUFFT_R2C, input.len(), output.len())?;
        let (idata, _record_src) = input.device_ptr(&self.stream);
        let (odata, _record_dst) = output.device_ptr_mut(&self.stream);
        // SAFETY: an R2C plan whose reach both buffers cover (checked
        // above), ordered on the plan's stream by the guards.
        unsafe {
            result::exec_r2c(
                self.handle,
                idata as *mut sys::cufftReal,
                odata as *mut sys::cufftComplex,
            )
        }
    }

    /// Complex to real, single precision (a C2R plan). hipFFT and cuFFT
    /// may overwrite the input, hence `&mut`.
    pub fn exec_c2r<Src: DevicePtrMut<sys::float2>, Dst: DevicePtrMut<f32>>(
        &self,
        input: &mut Src,
        output: &mut Dst,
    ) -> Result<(), CufftError> {
        self.geometry
            .check(sys::cufftType::CUFFT_C2R, input.len(), output.len())?;
        let (idata, _record_src) = input.device_ptr_mut(&self.stream);
        let (odata, _record_dst) = output.device_ptr_mut(&self.stream);
        // SAFETY: as in `exec_r2c`, for a C2R plan.
        unsafe {
            result::exec_c2r(
                self.handle,
                idata as *mut sys::cufftComplex,
                odata as *mut sys::cufftReal,
            )
        }
    }

    /// Complex to complex, single precision (a C2C plan).
    pub fn exec_c2c<Src: DevicePtrMut<sys::float2>, Dst: DevicePtrMut<sys::float2>>(
        &self,
        input: &mut Src,
        output: &mut Dst,
        direction: FftDirection,
    ) -> Result<(), CufftError> {
        self.geometry
            .check(sys::cufftType::CUFFT_C2C, input.len(), output.len())?;
        let (idata, _record_src) = input.device_ptr_mut(&self.stream);
        let (odata, _record_dst) = output.device_ptr_mut(&self.stream);
        // SAFETY: as in `exec_r2c`, for a C2C plan.
        unsafe {
            result::exec_c2c(
                self.handle,
                idata as *mut sys::cufftComplex,
                odata as *mut sys::cufftComplex,
                direction as c_int,
            )
        }
    }

    /// Real to complex, double precision (a D2Z plan).
    pub fn exec_d2z<Src: DevicePtr<f64>, Dst: DevicePtrMut<sys::double2>>(
        &self,
        input: &Src,
        output: &mut Dst,
    ) -> Result<(), CufftError> {
        self.geometry
            .check(sys::cufftType::CUFFT_D2Z, input.len(), output.len())?;
        let (idata, _record_src) = input.device_ptr(&self.stream);
        let (odata, _record_dst) = output.device_ptr_mut(&self.stream);
        // SAFETY: as in `exec_r2c`, for a D2Z plan.
        unsafe {
            result::exec_d2z(
                self.handle,
                idata as *mut sys::cufftDoubleReal,
                odata as *mut sys::cufftDoubleComplex,
            )
        }
    }

    /// Complex to real, double precision (a Z2D plan).
    pub fn exec_z2d<Src: DevicePtrMut<sys::double2>, Dst: DevicePtrMut<f64>>(
        &self,
        input: &mut Src,
        output: &mut Dst,
    ) -> Result<(), CufftError> {
        self.geometry
            .check(sys::cufftType::CUFFT_Z2D, input.len(), output.len())?;
        let (idata, _record_src) = input.device_ptr_mut(&self.stream);
        let (odata, _record_dst) = output.device_ptr_mut(&self.stream);
        // SAFETY: as in `exec_r2c`, for a Z2D plan.
        unsafe {
            result::exec_z2d(
                self.handle,
                idata as *mut sys::cufftDoubleComplex,
                odata as *mut sys::cufftDoubleReal,
            )
        }
    }

    /// Complex to complex, double precision (a Z2Z plan).
    pub fn exec_z2z<Src: DevicePtrMut<sys::double2>, Dst: DevicePtrMut<sys::double2>>(
        &self,
        input: &mut Src,
        output: &mut Dst,
        direction: FftDirection,
    ) -> Result<(), CufftError> {
        self.geometry
            .check(sys::cufftType::CUFFT_Z2Z, input.len(), output.len())?;
        let (idata, _record_src) = input.device_ptr_mut(&self.stream);
        let (odata, _record_dst) = output.device_ptr_mut(&self.stream);
        // SAFETY: as in `exec_r2c`, for a Z2Z plan.
        unsafe {
            result::exec_z2z(
                self.handle,
                idata as *mut sys::cufftDoubleComplex,
                odata as *mut sys::cufftDoubleComplex,
                direction as c_int,
            )
        }
    }
}

impl Drop for CudaFft {
    fn drop(&mut self) {
        let handle = std::mem::replace(&mut self.handle, std::ptr::null_mut());
        if !handle.is_null() {
            // Destroyed once no capture of the device is open (hip's
            // capture gate): it frees the work area.
            // Its error is recorded on the context, as cudarc's other
            // handles' drops are here: never a panic.
            let handle = hip::SendPtr(handle);
            self.stream.context().release_outside_captures(move |held| {
                // SAFETY: this value owns the plan; nothing uses it after
                // this.
                unsafe { hipfft::result::destroy(handle.get(), held) }.map_err(|e| {
                    crate::driver::result::fail(
                        crate::driver::CUresult::CUDA_ERROR_UNKNOWN,
                        &e.to_string(),
                    )
                })
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sys::cufftResult as R;
    use sys::cufftType as T;

    fn geometry(t: sys::cufftType, n: &[c_int], batch: c_int) -> Result<Geometry, CufftError> {
        Geometry::new(t, n, batch, None, None)
    }

    #[test]
    fn packed_plans_reach_their_sizes() {
        let g = geometry(T::CUFFT_C2C, &[7], 3).unwrap();
        assert_eq!((g.input_len, g.output_len), (21, 21));
        let g = geometry(T::CUFFT_R2C, &[1003], 2).unwrap();
        assert_eq!((g.input_len, g.output_len), (2006, 2 * 502));
        let g = geometry(T::CUFFT_Z2D, &[4, 6], 1).unwrap();
        assert_eq!((g.input_len, g.output_len), (16, 24));
        let g = geometry(T::CUFFT_D2Z, &[2, 3, 5], 1).unwrap();
        assert_eq!((g.input_len, g.output_len), (30, 18));
    }

    #[test]
    fn bad_sizes_are_refused_before_hipfft() {
        for (n, batch) in [
            (&[0][..], 1),
            (&[-4][..], 1),
            (&[8][..], 0),
            (&[][..], 1),
            (&[2, 2, 2, 2][..], 1),
        ] {
            assert_eq!(
                geometry(T::CUFFT_C2C, n, batch),
                Err(CufftError(R::CUFFT_INVALID_SIZE)),
                "{n:?} x{batch}"
            );
        }
        assert_eq!(
            geometry(sys::cufftType_t(0x7777), &[8], 1),
            Err(CufftError(R::CUFFT_INVALID_TYPE))
        );
    }

    #[test]
    fn advanced_layouts_reach_the_last_element() {
        // 2 transforms of 4 points, stride 3, distance 20: the last element
        // read is 1 * 20 + 3 * 3 = 29.
        let g = Geometry::new(
            T::CUFFT_C2C,
            &[4],
            2,
            Some((&[4], 3, 20)),
            Some((&[4], 1, 4)),
        )
        .unwrap();
        assert_eq!((g.input_len, g.output_len), (30, 8));
        // With one side null cuFFT packs both: the given side must hold
        // the larger of its two readings.
        let g = Geometry::new(T::CUFFT_C2C, &[4], 2, Some((&[4], 1, 2)), None).unwrap();
        assert_eq!((g.input_len, g.output_len), (8, 8));
        let g = Geometry::new(T::CUFFT_C2C, &[4], 2, Some((&[4], 3, 20)), None).unwrap();
        assert_eq!((g.input_len, g.output_len), (30, 8));
        // An inner extent smaller than its size, a zero stride, a wrong
        // rank: refused.
        for side in [(&[2, 3][..], 1, 12), (&[2, 4][..], 0, 12), (&[8][..], 1, 8)] {
            assert_eq!(
                Geometry::new(T::CUFFT_C2C, &[2, 4], 1, Some(side), None),
                Err(CufftError(R::CUFFT_INVALID_VALUE)),
                "{side:?}"
            );
        }
    }

    #[test]
    fn exec_checks_the_type_and_both_lengths() {
        let g = geometry(T::CUFFT_R2C, &[8], 1).unwrap();
        assert_eq!(g.check(T::CUFFT_R2C, 8, 5), Ok(()));
        assert_eq!(
            g.check(T::CUFFT_C2C, 8, 5),
            Err(CufftError(R::CUFFT_INVALID_TYPE))
        );
        assert_eq!(
            g.check(T::CUFFT_R2C, 7, 5),
            Err(CufftError(R::CUFFT_INVALID_VALUE))
        );
        assert_eq!(
            g.check(T::CUFFT_R2C, 8, 4),
            Err(CufftError(R::CUFFT_INVALID_VALUE))
        );
        // The refusal keeps its reason, printed by `Debug`.
        let e = g.check(T::CUFFT_R2C, 8, 4).unwrap_err();
        let (status, why) = result::last_error_detail().expect("a reason");
        assert_eq!(status, R::CUFFT_INVALID_VALUE);
        assert!(
            why.contains("CudaFft: buffers of 8 and 4 elements"),
            "{why}"
        );
        assert!(format!("{e:?}").contains(&why), "{e:?}");
    }

    #[test]
    fn directions_are_cuffts() {
        assert_eq!(FftDirection::Forward as c_int, sys::CUFFT_FORWARD);
        assert_eq!(FftDirection::Inverse as c_int, sys::CUFFT_INVERSE as c_int);
    }
}
