//! Plans (`hipfftCreate` + `hipfftMakePlanMany64`) and their executions.

use crate::error::DROP_ERRORS;
use crate::error::{Error, Result};
use crate::layout::{resolve, Layout, Shape, Transform};
use crate::result;
use hip::{AccessEvents, Complex, DeviceBuffer, DeviceMemory, DeviceMemoryMut, DeviceRepr, Stream};
use hipfft_sys::{hipfftHandle, hipfftType, HIPFFT_BACKWARD, HIPFFT_FORWARD};
use std::any::{type_name, TypeId};
use std::ffi::{c_longlong, c_void};
use std::marker::PhantomData;

/// The real types hipFFT transforms: `f32` (C2C, R2C, C2R) and `f64`
/// (Z2Z, D2Z, Z2D). Sealed.
pub trait Float: hip::Element + hip::ComplexPart {
    /// The hipFFT transform type of `transform` in this precision.
    fn fft_type(transform: Transform) -> hipfftType;
    /// Runs the execution function of `transform` in this precision
    /// (through [`crate::result`]).
    ///
    /// # Safety
    /// `plan` is a live plan made for `transform` in this precision, and
    /// `input`/`output` are device buffers its layouts fit in.
    unsafe fn exec(
        plan: hipfftHandle,
        transform: Transform,
        input: *mut c_void,
        output: *mut c_void,
        direction: i32,
    ) -> Result<()>;
}

macro_rules! float {
    ($t:ty, $c2c:ident, $r2c:ident, $c2r:ident, $ec2c:ident, $er2c:ident, $ec2r:ident) => {
        impl Float for $t {
            fn fft_type(transform: Transform) -> hipfftType {
                match transform {
                    Transform::C2C => hipfftType::$c2c,
                    Transform::R2C => hipfftType::$r2c,
                    Transform::C2R => hipfftType::$c2r,
                }
            }
            unsafe fn exec(
                plan: hipfftHandle,
                transform: Transform,
                input: *mut c_void,
                output: *mut c_void,
                direction: i32,
            ) -> Result<()> {
                // SAFETY: the caller's contract: a live plan of this
                // transform and precision, buffers its layouts fit in; the
                // casts give the element types of that transform.
                unsafe {
                    match transform {
                        Transform::C2C => {
                            result::$ec2c(plan, input.cast(), output.cast(), direction)
                        }
                        Transform::R2C => result::$er2c(plan, input.cast(), output.cast()),
                        Transform::C2R => result::$ec2r(plan, input.cast(), output.cast()),
                    }
                }
            }
        }
    };
}
float!(f32, HIPFFT_C2C, HIPFFT_R2C, HIPFFT_C2R, exec_c2c, exec_r2c, exec_c2r);
float!(f64, HIPFFT_Z2Z, HIPFFT_D2Z, HIPFFT_Z2D, exec_z2z, exec_d2z, exec_z2d);

/// Who provides a plan's work area.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorkArea {
    /// hipFFT allocates it when the plan is made (the default).
    #[default]
    Auto,
    /// The caller gives one of at least [`Plan::work_size`] bytes with
    /// [`Plan::set_work_area`] before the first execution
    /// (`hipfftSetAutoAllocation(plan, 0)`); one buffer may then serve
    /// plans that never run at the same time.
    User,
}

/// Builds a [`Plan`]: sizes and transform first, then the optional batch,
/// layouts, placement and work area. Nothing is checked or called until
/// [`build`](Self::build).
#[derive(Debug, Clone)]
#[must_use]
pub struct PlanBuilder<T: Float> {
    transform: Transform,
    dims: Vec<usize>,
    batch: usize,
    input: Option<Layout>,
    output: Option<Layout>,
    in_place: bool,
    work_area: WorkArea,
    _precision: PhantomData<T>,
}

impl<T: Float> PlanBuilder<T> {
    /// A plan of `transform` over `dims` (1 to 3 sizes, outermost first; for
    /// R2C/C2R the real sizes).
    pub fn new(transform: Transform, dims: &[usize]) -> Self {
        PlanBuilder {
            transform,
            dims: dims.to_vec(),
            batch: 1,
            input: None,
            output: None,
            in_place: false,
            work_area: WorkArea::Auto,
            _precision: PhantomData,
        }
    }

    /// How many transforms one execution runs (default 1).
    pub fn batch(mut self, batch: usize) -> Self {
        self.batch = batch;
        self
    }

    /// The input's layout (default: packed; for an in-place R2C the rows
    /// padded to `2 * (n/2 + 1)` reals), in elements of the input's type.
    pub fn input_layout(mut self, layout: Layout) -> Self {
        self.input = Some(layout);
        self
    }

    /// The output's layout (default as for the input), in elements of the
    /// output's type.
    pub fn output_layout(mut self, layout: Layout) -> Self {
        self.output = Some(layout);
        self
    }

    /// Makes the plan for in-place executions (the default layouts of real
    /// transforms are then padded so both sides fit in one buffer).
    pub fn in_place(mut self) -> Self {
        self.in_place = true;
        self
    }

    /// Who provides the work area (default [`WorkArea::Auto`]).
    pub fn work_area(mut self, work_area: WorkArea) -> Self {
        self.work_area = work_area;
        self
    }

    /// The checks [`build`](Self::build) makes before any call: sizes (1 to
    /// 3, none 0), batch, layouts (extents, strides, overflow), in-place
    /// layouts. `Ok` gives the elements the input and output buffers need
    /// out of place, as the plan would report them.
    pub fn validate(&self) -> Result<(usize, usize)> {
        let s = self.shape()?;
        Ok((s.input_len, s.output_len))
    }

    fn shape(&self) -> Result<Shape> {
        resolve(
            self.transform,
            &self.dims,
            self.batch,
            self.in_place,
            self.input.clone(),
            self.output.clone(),
        )
    }

    /// Checks the geometry (before any call, see
    /// [`validate`](Self::validate)), then `hipfftCreate`,
    /// `hipfftSetAutoAllocation` (user work area), `hipfftSetStream` and
    /// `hipfftMakePlanMany64` on the stream's device: the plan's executions
    /// are enqueued on `stream`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use hipfft::{PlanBuilder, Transform};
    /// let stream = hip::Stream::new(&hip::Device::get(0)?)?;
    /// let plan = PlanBuilder::<f32>::new(Transform::R2C, &[256, 256])
    ///     .batch(4)
    ///     .build(&stream)?;
    /// assert_eq!(plan.output_len(), 4 * 256 * 129);
    /// # Ok(()) }
    /// ```
    pub fn build(self, stream: &Stream) -> Result<Plan<T>> {
        let shape = self.shape()?;
        result::library()?;
        // Held until the plan is made: making it allocates its work area.
        let held = stream
            .device()
            .hold_captures("PlanBuilder::build")
            .map_err(Error::Runtime)?;
        stream.device().bind().map_err(Error::Runtime)?;
        let raw = result::create(&held)?;
        let mut plan = Plan {
            raw,
            shape,
            stream: stream.clone(),
            work_area: self.work_area,
            work_size: 0,
            work_buffer: None,
            _precision: PhantomData,
        };
        if plan.work_area == WorkArea::User {
            // SAFETY: live handle, before the plan is made.
            unsafe { result::set_auto_allocation(plan.raw, false) }?;
        }
        // SAFETY: live handle; the plan holds a clone of the stream, so the
        // stream outlives it.
        unsafe { result::set_stream(plan.raw, plan.stream.as_raw()) }?;
        let s = &plan.shape;
        let to_ll = |v: &[usize]| v.iter().map(|&x| x as c_longlong).collect::<Vec<_>>();
        let mut n = to_ll(&s.dims);
        let mut inembed = to_ll(&s.input.embed);
        let mut onembed = to_ll(&s.output.embed);
        // Every value was checked to fit in a long long by `resolve`.
        // SAFETY: a live handle made by `create`, not yet made into a plan.
        let work_size = unsafe {
            result::make_plan_many64_slices(
                plan.raw,
                &mut n,
                &mut inembed,
                s.input.stride as c_longlong,
                s.input.dist as c_longlong,
                &mut onembed,
                s.output.stride as c_longlong,
                s.output.dist as c_longlong,
                T::fft_type(s.transform),
                s.batch as c_longlong,
            )
        }?;
        plan.work_size = work_size;
        Ok(plan)
    }
}

/// A hipFFT plan: a transform of fixed sizes, batch, layouts and precision,
/// executed on one stream.
///
/// Transforms are **unnormalised**, as in hipFFT, cuFFT and FFTW: a forward
/// then an inverse transform of `n` points (the product of the sizes) gives
/// `n` times the input; divide by `n` where the round trip must return the
/// input.
///
/// Every execution is enqueued on the plan's stream and returns without
/// waiting: the buffers must not be used by other streams or the host until
/// the stream has reached it (`stream.synchronize()`, an event).
pub struct Plan<T: Float> {
    raw: hipfftHandle,
    shape: Shape,
    stream: Stream,
    work_area: WorkArea,
    work_size: usize,
    work_buffer: Option<DeviceBuffer<u8>>,
    _precision: PhantomData<T>,
}

// SAFETY: a hipFFT (and cuFFT) plan may be used from any host thread, one
// at a time: `Plan` moves between threads but is not `Sync` (every
// execution takes `&self` but hipFFT does not allow one plan to run from
// two threads at once, which the missing `Sync` rules out).
unsafe impl<T: Float> Send for Plan<T> {}

impl<T: Float> std::fmt::Debug for Plan<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("precision", &T::NAME)
            .field("transform", &self.shape.transform)
            .field("dims", &self.shape.dims)
            .field("batch", &self.shape.batch)
            .field("in_place", &self.shape.in_place)
            .field("work_size", &self.work_size)
            .finish_non_exhaustive()
    }
}

impl<T: Float> Drop for Plan<T> {
    fn drop(&mut self) {
        let raw = hip::SendPtr(self.raw);
        // The work buffer's free goes through the same gate after this, so
        // it still follows the plan's destruction.
        self.stream.device().release_outside_captures(move |held| {
            // SAFETY: the handle was made by `hipfftCreate` and is
            // destroyed once, here; the work buffer is freed after it.
            if let Err(e) = unsafe { result::destroy(raw.get(), held) } {
                DROP_ERRORS.record_error(e);
            }
        });
    }
}

/// The element types a plan reads and writes, by transform.
fn sides<T: Float>(transform: Transform) -> (TypeId, &'static str, TypeId, &'static str) {
    let real = (TypeId::of::<T>(), type_name::<T>());
    let complex = (TypeId::of::<Complex<T>>(), type_name::<Complex<T>>());
    let (i, o) = match transform {
        Transform::C2C => (complex, complex),
        Transform::R2C => (real, complex),
        Transform::C2R => (complex, real),
    };
    (i.0, i.1, o.0, o.1)
}

impl<T: Float> Plan<T> {
    /// A builder (see [`PlanBuilder::new`]).
    pub fn builder(transform: Transform, dims: &[usize]) -> PlanBuilder<T> {
        PlanBuilder::new(transform, dims)
    }

    /// The plan's transform.
    pub fn transform(&self) -> Transform {
        self.shape.transform
    }

    /// The sizes (real sizes for R2C/C2R), outermost first.
    pub fn dims(&self) -> &[usize] {
        &self.shape.dims
    }

    /// Transforms per execution.
    pub fn batch(&self) -> usize {
        self.shape.batch
    }

    /// The input's layout.
    pub fn input_layout(&self) -> &Layout {
        &self.shape.input
    }

    /// The output's layout.
    pub fn output_layout(&self) -> &Layout {
        &self.shape.output
    }

    /// Elements (of the input's type) an out-of-place input must hold.
    pub fn input_len(&self) -> usize {
        self.shape.input_len
    }

    /// Elements (of the output's type) an out-of-place output must hold.
    pub fn output_len(&self) -> usize {
        self.shape.output_len
    }

    /// Elements of the input's type an in-place buffer must hold: enough
    /// for both sides.
    pub fn in_place_len(&self) -> usize {
        in_place_len::<T>(&self.shape)
    }

    /// Bytes of work area the plan needs (`workSize` of
    /// `hipfftMakePlanMany64`).
    pub fn work_size(&self) -> usize {
        self.work_size
    }

    /// The stream executions are enqueued on.
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// The raw handle, for calls this crate does not wrap. It stays owned
    /// by the plan.
    pub fn as_raw(&self) -> hipfftHandle {
        self.raw
    }

    /// `hipfftSetWorkArea`: gives a plan made with [`WorkArea::User`] its
    /// work area, at least [`work_size`](Self::work_size) bytes on the
    /// plan's device; the plan keeps it and returns the one it replaces.
    pub fn set_work_area(
        &mut self,
        mut area: DeviceBuffer<u8>,
    ) -> Result<Option<DeviceBuffer<u8>>> {
        const OP: &str = "Plan::set_work_area";
        if self.work_area != WorkArea::User {
            return Err(Error::invalid(
                OP,
                "this plan allocates its own work area (WorkArea::Auto); build it with WorkArea::User to give one",
            ));
        }
        same_device(
            OP,
            "work area",
            area.device().ordinal(),
            self.stream.device().ordinal(),
        )?;
        if area.len() < self.work_size {
            return Err(Error::invalid(
                OP,
                format!(
                    "the work area holds {} bytes but the plan needs {}",
                    area.len(),
                    self.work_size
                ),
            ));
        }
        self.stream.device().bind().map_err(Error::Runtime)?;
        // SAFETY: live handle; the area is on the plan's device, large
        // enough, and kept by the plan until replaced or dropped.
        unsafe { result::set_work_area(self.raw, area.device_ptr_mut().cast()) }?;
        Ok(self.work_buffer.replace(area))
    }

    /// `hipfftExec*` forward, out of place: C2C (`HIPFFT_FORWARD`) from
    /// `Complex<T>` to `Complex<T>`, or R2C from `T` to `Complex<T>`. The
    /// element types, lengths (at least [`input_len`](Self::input_len) and
    /// [`output_len`](Self::output_len)) and devices are checked first.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use hip::{c32, DeviceBuffer};
    /// use hipfft::{PlanBuilder, Transform};
    /// let device = hip::Device::get(0)?;
    /// let stream = hip::Stream::new(&device)?;
    /// let n = 8;
    /// let plan = PlanBuilder::<f32>::new(Transform::C2C, &[n]).build(&stream)?;
    /// let x: Vec<c32> = (0..n).map(|i| c32::new(i as f32, 0.0)).collect();
    /// let input = stream.clone_htod(&x)?;
    /// let mut spectrum = DeviceBuffer::<c32>::zeroed(&device, n)?;
    /// let mut back = DeviceBuffer::<c32>::zeroed(&device, n)?;
    /// plan.execute_forward(&input, &mut spectrum)?;
    /// plan.execute_inverse(&mut spectrum, &mut back)?;
    /// // Unnormalised: inverse(forward(x)) = n * x.
    /// let back = stream.clone_dtoh(&back)?;
    /// assert!((back[3].re - n as f32 * 3.0).abs() < 1e-3);
    /// # Ok(()) }
    /// ```
    pub fn execute_forward<I: DeviceRepr, O: DeviceRepr>(
        &self,
        input: &impl DeviceMemory<I>,
        output: &mut impl DeviceMemoryMut<O>,
    ) -> Result<()> {
        let op = Direction::Forward.operation(false);
        self.runs(op, Direction::Forward, "")?;
        self.check_out_of_place::<I, O>(op, input, output)?;
        // hipFFT reads the input of a forward transform without writing it.
        let i = input.device_ptr() as *mut c_void;
        let o = output.device_ptr_mut().cast::<c_void>();
        let reads = [input.access_events()];
        self.exec(
            op,
            Direction::Forward,
            i,
            o,
            &reads,
            &[output.access_events()],
        )
    }

    /// `hipfftExec*` inverse, out of place: C2C (`HIPFFT_BACKWARD`) from
    /// `Complex<T>` to `Complex<T>`, or C2R from `Complex<T>` to `T`, checked
    /// as [`execute_forward`](Self::execute_forward). The input is `&mut`
    /// because a C2R transform may overwrite it (hipFFT's and cuFFT's
    /// documented behaviour).
    pub fn execute_inverse<I: DeviceRepr, O: DeviceRepr>(
        &self,
        input: &mut impl DeviceMemoryMut<I>,
        output: &mut impl DeviceMemoryMut<O>,
    ) -> Result<()> {
        let op = Direction::Inverse.operation(false);
        self.runs(op, Direction::Inverse, "")?;
        self.check_out_of_place::<I, O>(op, &*input, &*output)?;
        let i = input.device_ptr_mut().cast::<c_void>();
        let o = output.device_ptr_mut().cast::<c_void>();
        // A C2R transform may overwrite its input: both are written.
        let writes = [input.access_events(), output.access_events()];
        self.exec(op, Direction::Inverse, i, o, &[], &writes)
    }

    /// Forward in place: `data` holds the input (of the input's type) and
    /// receives the output; it must hold [`in_place_len`](Self::in_place_len)
    /// elements. Real transforms need a plan built with
    /// [`PlanBuilder::in_place`] (padded rows).
    pub fn execute_forward_in_place<E: DeviceRepr>(
        &self,
        data: &mut impl DeviceMemoryMut<E>,
    ) -> Result<()> {
        self.in_place(Direction::Forward, data)
    }

    /// Inverse in place, as [`execute_forward_in_place`](Self::execute_forward_in_place).
    pub fn execute_inverse_in_place<E: DeviceRepr>(
        &self,
        data: &mut impl DeviceMemoryMut<E>,
    ) -> Result<()> {
        self.in_place(Direction::Inverse, data)
    }

    /// Either in-place transform, after every check.
    fn in_place<E: DeviceRepr>(
        &self,
        direction: Direction,
        data: &mut impl DeviceMemoryMut<E>,
    ) -> Result<()> {
        let op = direction.operation(true);
        self.runs(op, direction, "_in_place")?;
        self.check_in_place(op, &*data)?;
        let p = data.device_ptr_mut().cast::<c_void>();
        self.exec(op, direction, p, p, &[], &[data.access_events()])
    }

    /// Refuses a direction the plan's transform does not run (a C2R plan
    /// runs only inverse transforms, an R2C plan only forward ones),
    /// naming the method to call instead (`suffix`: `""` or `"_in_place"`).
    fn runs(&self, op: &'static str, direction: Direction, suffix: &str) -> Result<()> {
        match (self.shape.transform, direction) {
            (Transform::C2R, Direction::Forward) => Err(Error::invalid(
                op,
                format!("a C2R plan only runs inverse transforms (execute_inverse{suffix})"),
            )),
            (Transform::R2C, Direction::Inverse) => Err(Error::invalid(
                op,
                format!("an R2C plan only runs forward transforms (execute_forward{suffix})"),
            )),
            _ => Ok(()),
        }
    }

    fn check_out_of_place<I: DeviceRepr, O: DeviceRepr>(
        &self,
        op: &'static str,
        input: &(impl DeviceMemory<I> + ?Sized),
        output: &(impl DeviceMemory<O> + ?Sized),
    ) -> Result<()> {
        check_out_of_place::<T>(
            op,
            &self.shape,
            self.stream.device().ordinal(),
            Buffer::of::<I>("input", input.len(), input.device().ordinal()),
            Buffer::of::<O>("output", output.len(), output.device().ordinal()),
        )
    }

    fn check_in_place<E: DeviceRepr>(
        &self,
        op: &'static str,
        data: &(impl DeviceMemory<E> + ?Sized),
    ) -> Result<()> {
        check_in_place::<T>(
            op,
            &self.shape,
            self.stream.device().ordinal(),
            Buffer::of::<E>("data", data.len(), data.device().ordinal()),
        )
    }

    /// Runs the transform on the plan's stream through `hip`'s access
    /// tracking: buffers that track their accesses (`Stream::alloc`'s) are
    /// first waited for where other streams use them (`reads` for their
    /// writes, `writes` for every access), and the transform is recorded on
    /// them (and on a user work area, which it writes), so that those
    /// streams and their stream-ordered frees wait for it in turn.
    fn exec(
        &self,
        op: &'static str,
        direction: Direction,
        input: *mut c_void,
        output: *mut c_void,
        reads: &[&AccessEvents],
        writes: &[&AccessEvents],
    ) -> Result<()> {
        if self.work_area == WorkArea::User && self.work_size > 0 && self.work_buffer.is_none() {
            return Err(Error::invalid(
                op,
                format!(
                    "this plan needs a work area of {} bytes (set_work_area) before it runs",
                    self.work_size
                ),
            ));
        }
        self.stream.device().bind()?;
        let mut written = writes.to_vec();
        if let Some(area) = &self.work_buffer {
            written.push(area.access_events());
        }
        let sign = match direction {
            Direction::Forward => HIPFFT_FORWARD,
            Direction::Inverse => HIPFFT_BACKWARD as i32,
        };
        self.stream.enqueue_tracked(reads, &written, || {
            // SAFETY: a live plan of this transform and precision; the
            // buffers were checked to hold the element types and lengths
            // its layouts reach, on its device.
            unsafe { T::exec(self.raw, self.shape.transform, input, output, sign) }
        })
    }
}

/// Which way a transform runs (`HIPFFT_FORWARD`, `HIPFFT_BACKWARD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Forward,
    Inverse,
}

impl Direction {
    /// The method that runs it: the operation its errors name.
    fn operation(self, in_place: bool) -> &'static str {
        match (self, in_place) {
            (Direction::Forward, false) => "Plan::execute_forward",
            (Direction::Inverse, false) => "Plan::execute_inverse",
            (Direction::Forward, true) => "Plan::execute_forward_in_place",
            (Direction::Inverse, true) => "Plan::execute_inverse_in_place",
        }
    }
}

/// What the checks need to know of a buffer.
#[derive(Clone, Copy, Debug)]
struct Buffer {
    name: &'static str,
    type_id: TypeId,
    type_name: &'static str,
    len: usize,
    device: usize,
}

impl Buffer {
    fn of<E: 'static>(name: &'static str, len: usize, device: usize) -> Buffer {
        Buffer {
            name,
            type_id: TypeId::of::<E>(),
            type_name: type_name::<E>(),
            len,
            device,
        }
    }
}

fn same_device(op: &'static str, name: &'static str, got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(Error::invalid(
            op,
            format!("{name} is on device {got} but the plan is on device {want}"),
        ));
    }
    Ok(())
}

fn element_type<T: Float>(
    op: &'static str,
    shape: &Shape,
    b: &Buffer,
    want: TypeId,
    want_name: &'static str,
) -> Result<()> {
    if b.type_id != want {
        return Err(Error::invalid(
            op,
            format!(
                "{} holds {} but this {:?} {} plan needs {want_name} there",
                b.name,
                b.type_name,
                shape.transform,
                T::NAME
            ),
        ));
    }
    Ok(())
}

fn long_enough(op: &'static str, b: &Buffer, required: usize) -> Result<()> {
    if b.len < required {
        return Err(Error::invalid(
            op,
            format!(
                "{} holds {} elements but the plan's layout needs {required}",
                b.name, b.len
            ),
        ));
    }
    Ok(())
}

fn elem_sizes<T: Float>(transform: Transform) -> (usize, usize) {
    let (real, complex) = (size_of::<T>(), 2 * size_of::<T>());
    match transform {
        Transform::C2C => (complex, complex),
        Transform::R2C => (real, complex),
        Transform::C2R => (complex, real),
    }
}

fn in_place_len<T: Float>(shape: &Shape) -> usize {
    let (i, o) = elem_sizes::<T>(shape.transform);
    (shape.input_len * i).max(shape.output_len * o).div_ceil(i)
}

fn check_out_of_place<T: Float>(
    op: &'static str,
    shape: &Shape,
    device: usize,
    input: Buffer,
    output: Buffer,
) -> Result<()> {
    let (i, i_name, o, o_name) = sides::<T>(shape.transform);
    element_type::<T>(op, shape, &input, i, i_name)?;
    element_type::<T>(op, shape, &output, o, o_name)?;
    long_enough(op, &input, shape.input_len)?;
    long_enough(op, &output, shape.output_len)?;
    same_device(op, input.name, input.device, device)?;
    same_device(op, output.name, output.device, device)
}

fn check_in_place<T: Float>(
    op: &'static str,
    shape: &Shape,
    device: usize,
    data: Buffer,
) -> Result<()> {
    let (i, i_name, _, _) = sides::<T>(shape.transform);
    element_type::<T>(op, shape, &data, i, i_name)?;
    if shape.transform != Transform::C2C && !shape.in_place {
        return Err(Error::invalid(
            op,
            "an in-place real transform needs a plan built with .in_place() (padded rows)",
        ));
    }
    long_enough(op, &data, in_place_len::<T>(shape))?;
    same_device(op, data.name, data.device, device)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hip::{c32, c64};

    const OP: &str = "Plan::execute_forward";

    /// The reason of an [`Error::Invalid`] from `OP`, else a panic.
    fn reason(r: Result<()>) -> String {
        match r {
            Err(Error::Invalid {
                operation: OP,
                reason,
            }) => reason,
            other => panic!("expected Invalid from {OP}, got {other:?}"),
        }
    }

    fn shape(t: Transform, dims: &[usize], batch: usize, in_place: bool) -> Shape {
        resolve(t, dims, batch, in_place, None, None).unwrap()
    }

    #[test]
    fn out_of_place_checks_types_lengths_and_devices() {
        let s = shape(Transform::R2C, &[16], 3, false);
        let ok = check_out_of_place::<f32>(
            OP,
            &s,
            0,
            Buffer::of::<f32>("input", 48, 0),
            Buffer::of::<c32>("output", 27, 0),
        );
        assert!(ok.is_ok(), "{ok:?}");
        // n/2 + 1 = 9 outputs per row: 26 is one short.
        let short = check_out_of_place::<f32>(
            OP,
            &s,
            0,
            Buffer::of::<f32>("input", 48, 0),
            Buffer::of::<c32>("output", 26, 0),
        );
        assert_eq!(
            reason(short),
            "output holds 26 elements but the plan's layout needs 27"
        );
        let wrong = check_out_of_place::<f32>(
            OP,
            &s,
            0,
            Buffer::of::<c32>("input", 48, 0),
            Buffer::of::<c32>("output", 27, 0),
        );
        assert!(reason(wrong).starts_with("input holds "));
        let precision = check_out_of_place::<f32>(
            OP,
            &s,
            0,
            Buffer::of::<f64>("input", 48, 0),
            Buffer::of::<c64>("output", 27, 0),
        );
        assert!(reason(precision).starts_with("input holds f64"));
        let device = check_out_of_place::<f32>(
            OP,
            &s,
            0,
            Buffer::of::<f32>("input", 48, 0),
            Buffer::of::<c32>("output", 27, 1),
        );
        assert_eq!(
            reason(device),
            "output is on device 1 but the plan is on device 0"
        );
    }

    #[test]
    fn in_place_checks_padding_and_placement() {
        let s = shape(Transform::R2C, &[16], 2, true);
        // 2 rows of 2 * 9 = 18 reals.
        assert_eq!(in_place_len::<f32>(&s), 36);
        assert!(check_in_place::<f32>(OP, &s, 0, Buffer::of::<f32>("data", 36, 0)).is_ok());
        let short = check_in_place::<f32>(OP, &s, 0, Buffer::of::<f32>("data", 35, 0));
        assert!(reason(short).ends_with("needs 36"));
        let not_in_place = shape(Transform::R2C, &[16], 2, false);
        let e = check_in_place::<f32>(OP, &not_in_place, 0, Buffer::of::<f32>("data", 64, 0));
        assert!(reason(e).contains(".in_place()"));
        let c2c = shape(Transform::C2C, &[7, 5], 1, false);
        assert!(check_in_place::<f64>(OP, &c2c, 2, Buffer::of::<c64>("data", 35, 2)).is_ok());
        let e = check_in_place::<f64>(OP, &c2c, 2, Buffer::of::<c32>("data", 35, 2));
        assert!(reason(e).contains("holds"));
    }
}
