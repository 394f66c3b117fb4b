//! Kernel launch: configurations, the unsafe argument builder and typed
//! kernels checked by the compiler.

use crate::error::{Error, Result};
use crate::launch_config::LaunchConfig;
use crate::memory::StreamAllocation;
use crate::memory::{DeviceBuffer, DeviceRepr, DeviceSlice, DeviceSliceMut, ManagedBuffer};
use crate::memory::{DeviceMemory, DeviceMemoryMut};
use crate::module::Function;
use crate::result;
use crate::stream::{Event, Stream};
use crate::tracking::{AccessEvents, UNTRACKED};
use std::ffi::c_void;
use std::fmt;
use std::marker::PhantomData;

// ---- unsafe builder --------------------------------------------------------

/// Something that can be pushed onto a [`LaunchArgs`]: a value passed by
/// value, or device memory passed as its device address.
pub trait PushArg {
    /// Address of the value the kernel parameter is copied from.
    fn param_ptr(&self) -> *mut c_void;

    /// For tracked device memory (a [`Stream::alloc`] buffer or a view of
    /// one): its events, whether the kernel may write it, and its device's
    /// ordinal; the launch orders itself after the conflicting earlier
    /// accesses and records its own. `None` for values and untracked
    /// memory.
    fn tracked_access(&self) -> Option<(&AccessEvents, bool, usize)> {
        None
    }
}

impl<T: DeviceRepr> PushArg for T {
    fn param_ptr(&self) -> *mut c_void {
        (self as *const T).cast_mut().cast()
    }
}

/// Device memory is passed as a pointer: the address of the struct's
/// pointer field, which lives as long as the borrow. The untyped builder
/// cannot see what the kernel does with it: read-only views count as
/// reads, everything else as writes (a kernel may write through the
/// pointer of a shared `&DeviceBuffer`).
macro_rules! push_ptr_field {
    ($($ty:ty => $written:literal),*) => {$(
        impl<T: DeviceRepr> PushArg for $ty {
            fn param_ptr(&self) -> *mut c_void {
                self.ptr_field_addr()
            }
            fn tracked_access(&self) -> Option<(&AccessEvents, bool, usize)> {
                let events = DeviceMemory::access_events(self);
                let ordinal = DeviceMemory::device(self).ordinal();
                events.is_tracked().then_some((events, $written, ordinal))
            }
        }
    )*};
}
push_ptr_field!(
    DeviceBuffer<T> => true,
    DeviceSlice<'_, T> => false,
    DeviceSliceMut<'_, T> => true,
    ManagedBuffer<T> => true
);

/// A raw device address passed as is (for the unsafe builder only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct RawPtr(pub *mut c_void);

impl PushArg for RawPtr {
    fn param_ptr(&self) -> *mut c_void {
        (&self.0 as *const *mut c_void).cast_mut().cast()
    }
}

/// A list that keeps its first `N` items in place and moves to the heap
/// beyond: most launches take a few arguments, and two heap allocations
/// per launch would cost a good part of a stream-ordered
/// allocate-launch-free loop's host time.
struct SmallList<T: Copy, const N: usize> {
    inline: [T; N],
    len: usize,
    /// Every item, once there are more than `N`.
    heap: Vec<T>,
}

impl<T: Copy, const N: usize> SmallList<T, N> {
    /// An empty list; `filler` fills unused places and is never read.
    const fn new(filler: T) -> Self {
        SmallList {
            inline: [filler; N],
            len: 0,
            heap: Vec::new(),
        }
    }

    fn push(&mut self, item: T) {
        if self.len < N {
            self.inline[self.len] = item;
        } else {
            if self.len == N {
                self.heap.reserve(2 * N);
                self.heap.extend_from_slice(&self.inline);
            }
            self.heap.push(item);
        }
        self.len += 1;
    }

    fn as_slice(&self) -> &[T] {
        if self.len > N {
            &self.heap
        } else {
            &self.inline[..self.len]
        }
    }

    /// Start of the items, contiguous.
    fn as_mut_ptr(&mut self) -> *mut T {
        if self.len > N {
            self.heap.as_mut_ptr()
        } else {
            self.inline.as_mut_ptr()
        }
    }
}

/// The argument list of an untyped launch, built one argument at a time.
///
/// The builder only records addresses: nothing checks that the kernel takes
/// these types, hence [`Stream::launch`] is `unsafe`. Prefer
/// [`TypedKernel`].
pub struct LaunchArgs<'a> {
    ptrs: SmallList<*mut c_void, 16>,
    /// Tracked allocations: their events, whether written, their device.
    accesses: SmallList<(&'a AccessEvents, bool, usize), 8>,
    _p: PhantomData<&'a ()>,
}

impl Default for LaunchArgs<'_> {
    fn default() -> Self {
        LaunchArgs {
            ptrs: SmallList::new(std::ptr::null_mut()),
            accesses: SmallList::new((&UNTRACKED, false, 0)),
            _p: PhantomData,
        }
    }
}

impl fmt::Debug for LaunchArgs<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LaunchArgs")
            .field("count", &self.ptrs.len)
            .finish()
    }
}

impl<'a> LaunchArgs<'a> {
    /// An empty list.
    pub fn new() -> LaunchArgs<'a> {
        LaunchArgs::default()
    }

    /// Appends an argument. It stays borrowed until the list is dropped.
    /// A stream-ordered buffer or a view of one ([`Stream::alloc`]) is
    /// tracked: [`Stream::launch`] orders the kernel after its conflicting
    /// earlier accesses on other streams and records this one (a
    /// [`DeviceSlice`] as a read, other memory as a write).
    pub fn arg<A: PushArg + ?Sized>(&mut self, a: &'a A) -> &mut Self {
        self.ptrs.push(a.param_ptr());
        if let Some(access) = a.tracked_access() {
            self.accesses.push(access);
        }
        self
    }

    /// Appends a [`StreamAllocation`] the kernel reads, as its device
    /// address: [`Stream::launch`] makes the stream wait for its last write
    /// first and records the read after.
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// use hip::{Device, LaunchArgs, LaunchConfig, Module, Stream, StreamAllocation};
    /// let dev = Device::get(0)?;
    /// let m = Module::compile(&dev, r#"extern "C" __global__ void copy(float* y, const float* x)
    ///     { y[threadIdx.x] = x[threadIdx.x]; }"#)?;
    /// let (a, b) = (Stream::new(&dev)?, Stream::new(&dev)?);
    /// let x = StreamAllocation::new(&a, 256 * 4, true)?;
    /// let mut y = StreamAllocation::new(&b, 256 * 4, true)?;
    /// let mut args = LaunchArgs::new();
    /// args.arg_write(&mut y).arg_read(&x);
    /// let cfg = LaunchConfig { grid: (1, 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
    /// // SAFETY: copy(float*, const float*) touches 256 floats of each.
    /// unsafe { b.launch(&m.function("copy")?, cfg, &mut args) }?;
    /// # Ok(()) }
    /// ```
    pub fn arg_read(&mut self, a: &'a StreamAllocation) -> &mut Self {
        self.ptrs.push(a.ptr_field_addr());
        self.accesses
            .push((a.events(), false, a.stream().device().ordinal()));
        self
    }

    /// Appends a [`StreamAllocation`] the kernel writes (and may read):
    /// the stream waits for its last read and write first and records the
    /// write after.
    pub fn arg_write(&mut self, a: &'a mut StreamAllocation) -> &mut Self {
        let a: &'a StreamAllocation = a;
        self.ptrs.push(a.ptr_field_addr());
        self.accesses
            .push((a.events(), true, a.stream().device().ordinal()));
        self
    }

    /// Appends a parameter given by the address of its value, for callers
    /// that build argument lists of their own kind (`cuda-compat`'s
    /// cudarc-style builder); pair it with [`LaunchArgs::access`] for
    /// tracked memory.
    ///
    /// # Safety
    ///
    /// `param` points to a value of the kernel parameter's type that stays
    /// valid, and unchanged, while the list lives.
    #[inline]
    pub unsafe fn push_param(&mut self, param: *mut c_void) -> &mut Self {
        self.ptrs.push(param);
        self
    }

    /// Orders the launch after the conflicting earlier accesses of
    /// `events` (memory of device `ordinal`) and records it as a read, or
    /// as a write when `written`. Untracked events are skipped; memory of
    /// another device than the stream's makes the launch fail.
    #[inline]
    pub fn access(&mut self, events: &'a AccessEvents, written: bool, ordinal: usize) -> &mut Self {
        if events.is_tracked() {
            self.accesses.push((events, written, ordinal));
        }
        self
    }

    /// Number of arguments.
    pub fn len(&self) -> usize {
        self.ptrs.len
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.ptrs.len == 0
    }
}

/// How [`Stream::launch_with`] launches: the default is a plain launch
/// with no events.
#[derive(Clone, Copy, Debug, Default)]
pub struct LaunchOptions<'e> {
    /// A cooperative launch (`hipModuleLaunchCooperativeKernel`): every
    /// block is resident at once, so the grid may synchronize as a whole.
    /// The grid must fit on the device.
    pub cooperative: bool,
    /// Events recorded right before and right after the kernel (after the
    /// waits for the arguments' earlier accesses), for timing it with
    /// [`Event::elapsed_ms_since`].
    pub timing: Option<(&'e Event, &'e Event)>,
}

impl Stream {
    /// Launches `f` with an untyped argument list (`hipModuleLaunchKernel`).
    /// The configuration, and that `f` is on this stream's device, are
    /// checked first.
    ///
    /// # Safety
    ///
    /// `args` must match the kernel's parameters in number, order and type,
    /// and the kernel must only access memory that stays valid, and is not
    /// accessed by the host, until it finishes (see the crate's "Safety
    /// considerations").
    pub unsafe fn launch(
        &self,
        f: &Function,
        cfg: LaunchConfig,
        args: &mut LaunchArgs<'_>,
    ) -> Result<()> {
        // SAFETY: the caller's contract.
        unsafe { self.launch_with(f, cfg, args, LaunchOptions::default()) }
    }

    /// [`Stream::launch`] with [`LaunchOptions`]: a cooperative launch, or
    /// timing events around the kernel.
    ///
    /// ```no_run
    /// # fn main() -> hip::Result<()> {
    /// use hip::{Device, Event, LaunchArgs, LaunchConfig, LaunchOptions, Module, Stream};
    /// let dev = Device::get(0)?;
    /// let m = Module::compile(&dev, r#"extern "C" __global__ void noop() {}"#)?;
    /// let s = Stream::new(&dev)?;
    /// let (start, end) = (Event::new(&dev)?, Event::new(&dev)?);
    /// let cfg = LaunchConfig { grid: (1, 1, 1), block: (64, 1, 1), shared_mem_bytes: 0 };
    /// let opts = LaunchOptions { timing: Some((&start, &end)), ..Default::default() };
    /// // SAFETY: noop() takes no parameters.
    /// unsafe { s.launch_with(&m.function("noop")?, cfg, &mut LaunchArgs::new(), opts) }?;
    /// end.synchronize()?;
    /// println!("{} ms", end.elapsed_ms_since(&start)?);
    /// # Ok(()) }
    /// ```
    ///
    /// # Safety
    ///
    /// As [`Stream::launch`]; for a cooperative launch, the grid fits on
    /// the device at once.
    pub unsafe fn launch_with(
        &self,
        f: &Function,
        cfg: LaunchConfig,
        args: &mut LaunchArgs<'_>,
        options: LaunchOptions<'_>,
    ) -> Result<()> {
        self.prepare_launch(f, &cfg)?;
        for &(_, _, ordinal) in args.accesses.as_slice() {
            if ordinal != self.device().ordinal() {
                return Err(Error::invalid(
                    "launch",
                    format!(
                        "an allocation argument is on device {ordinal} but the stream is on device {}",
                        self.device().ordinal()
                    ),
                ));
            }
        }
        let LaunchArgs { ptrs, accesses, .. } = args;
        let accesses = accesses.as_slice().iter().map(|&(e, w, _)| (e, w));
        let launched = self.enqueue_with_accesses(accesses, || {
            if let Some((start, _)) = options.timing {
                start.record(self)?;
            }
            // SAFETY: function and stream live; args per the caller's
            // contract.
            unsafe {
                result::module_launch_kernel(
                    f.as_raw(),
                    cfg.grid,
                    cfg.block,
                    cfg.shared_mem_bytes,
                    self.as_raw(),
                    ptrs.as_mut_ptr(),
                    options.cooperative,
                )
            }?;
            if let Some((_, end)) = options.timing {
                end.record(self)?;
            }
            Ok(())
        });
        launched.map_err(|e| f.launch_error(cfg.block, e))
    }

    #[inline]
    fn prepare_launch(&self, f: &Function, cfg: &LaunchConfig) -> Result<()> {
        if f.device().ordinal() != self.device().ordinal() {
            return Err(Error::invalid(
                "launch",
                format!(
                    "kernel `{}` is loaded on device {} but the stream is on device {}",
                    f.name(),
                    f.device().ordinal(),
                    self.device().ordinal()
                ),
            ));
        }
        cfg.validate(self.device().launch_limits())?;
        self.device().bind()
    }
}

// ---- typed kernels ---------------------------------------------------------

/// A type a kernel parameter can have: a [`DeviceRepr`] value, or a device
/// pointer `*const T` / `*mut T`.
///
/// # Safety
///
/// The type must have the C layout of the kernel parameter it stands for.
pub unsafe trait KernelParam: Copy {}

// SAFETY: DeviceRepr types have a fixed C layout.
unsafe impl<T: DeviceRepr> KernelParam for T {}
// SAFETY: a device pointer is passed as a C pointer.
unsafe impl<T: DeviceRepr> KernelParam for *const T {}
// SAFETY: as above.
unsafe impl<T: DeviceRepr> KernelParam for *mut T {}

/// A Rust value that may be passed for a kernel parameter of type `P`.
///
/// - `P: DeviceRepr` (numbers, `#[repr(C)]` structs): the value itself.
/// - `P = *const T`: `&DeviceBuffer<T>`, `DeviceSlice<T>`, `&ManagedBuffer<T>`
///   (and the mutable forms).
/// - `P = *mut T`: `&mut DeviceBuffer<T>`, `DeviceSliceMut<T>`,
///   `&mut DeviceSliceMut<T>`, `&mut ManagedBuffer<T>`.
///
/// Raw pointers are not accepted: memory must come from a live buffer.
pub trait KernelArg<P: KernelParam> {
    /// The parameter value.
    fn into_param(self) -> P;
    /// The device whose memory this is, for checking against the stream.
    fn device_ordinal(&self) -> Option<usize> {
        None
    }
    /// The parameter value and, for tracked memory (a [`Stream::alloc`]
    /// buffer or a view of one), its events and whether the parameter may
    /// write it (`*mut T`), so that the launch is ordered after the
    /// conflicting earlier accesses and recorded.
    fn into_param_tracked<'x>(self) -> (P, Option<(&'x AccessEvents, bool)>)
    where
        Self: Sized + 'x,
    {
        (self.into_param(), None)
    }
}

/// The events of `events` when they track anything, with `written`.
fn tracked(events: &AccessEvents, written: bool) -> Option<(&AccessEvents, bool)> {
    events.is_tracked().then_some((events, written))
}

impl<T: DeviceRepr> KernelArg<T> for T {
    #[inline]
    fn into_param(self) -> T {
        self
    }
}

macro_rules! mem_arg {
    ($p:ty, $get:ident; $($ty:ty),*) => {$(
        impl<T: DeviceRepr> KernelArg<$p> for $ty {
            #[inline]
            fn into_param(self) -> $p {
                DeviceMemory::device_ptr(&*self) as $p
            }
            fn device_ordinal(&self) -> Option<usize> {
                Some(DeviceMemory::device(&**self).ordinal())
            }
            fn into_param_tracked<'x>(self) -> ($p, Option<(&'x AccessEvents, bool)>)
            where
                Self: 'x,
            {
                let memory = &*self;
                let param = DeviceMemory::device_ptr(memory) as $p;
                (param, tracked(DeviceMemory::access_events(memory), false))
            }
        }
    )*};
}
mem_arg!(*const T, device_ptr; &DeviceBuffer<T>, &mut DeviceBuffer<T>, &DeviceSlice<'_, T>, &DeviceSliceMut<'_, T>, &mut DeviceSliceMut<'_, T>, &ManagedBuffer<T>, &mut ManagedBuffer<T>);

impl<T: DeviceRepr> KernelArg<*const T> for DeviceSlice<'_, T> {
    #[inline]
    fn into_param(self) -> *const T {
        self.as_device_ptr()
    }
    fn device_ordinal(&self) -> Option<usize> {
        Some(self.device().ordinal())
    }
    fn into_param_tracked<'x>(self) -> (*const T, Option<(&'x AccessEvents, bool)>)
    where
        Self: 'x,
    {
        (self.as_device_ptr(), tracked(self.events_of_owner(), false))
    }
}
impl<T: DeviceRepr> KernelArg<*const T> for DeviceSliceMut<'_, T> {
    #[inline]
    fn into_param(self) -> *const T {
        DeviceMemory::device_ptr(&self)
    }
    fn device_ordinal(&self) -> Option<usize> {
        Some(self.device().ordinal())
    }
    fn into_param_tracked<'x>(self) -> (*const T, Option<(&'x AccessEvents, bool)>)
    where
        Self: 'x,
    {
        let events = self.events_of_owner();
        (DeviceMemory::device_ptr(&self), tracked(events, false))
    }
}
impl<T: DeviceRepr> KernelArg<*mut T> for DeviceSliceMut<'_, T> {
    #[inline]
    fn into_param(mut self) -> *mut T {
        self.as_device_ptr_mut()
    }
    fn device_ordinal(&self) -> Option<usize> {
        Some(self.device().ordinal())
    }
    fn into_param_tracked<'x>(mut self) -> (*mut T, Option<(&'x AccessEvents, bool)>)
    where
        Self: 'x,
    {
        let events = self.events_of_owner();
        (self.as_device_ptr_mut(), tracked(events, true))
    }
}
macro_rules! mem_arg_mut {
    ($($ty:ty),*) => {$(
        impl<T: DeviceRepr> KernelArg<*mut T> for $ty {
            #[inline]
            fn into_param(self) -> *mut T {
                DeviceMemoryMut::device_ptr_mut(self)
            }
            fn device_ordinal(&self) -> Option<usize> {
                Some(DeviceMemory::device(&**self).ordinal())
            }
            fn into_param_tracked<'x>(self) -> (*mut T, Option<(&'x AccessEvents, bool)>)
            where
                Self: 'x,
            {
                let param = DeviceMemoryMut::device_ptr_mut(&mut *self);
                let memory = &*self;
                (param, tracked(DeviceMemory::access_events(memory), true))
            }
        }
    )*};
}
mem_arg_mut!(
    &mut DeviceBuffer<T>,
    &mut DeviceSliceMut<'_, T>,
    &mut ManagedBuffer<T>
);

/// A kernel's full parameter list, as a tuple of [`KernelParam`]s.
pub trait KernelParams {
    /// Number of parameters.
    const COUNT: usize;
}

/// An argument tuple matching the parameter tuple `P`, element by element.
pub trait KernelArgs<P: KernelParams> {
    /// Checks every device-memory argument is on device `ordinal`.
    fn check_devices(&self, ordinal: usize) -> Result<()>;
    /// Launches `f` with these arguments.
    ///
    /// # Safety
    ///
    /// As [`TypedKernel::launch`]; `f` must take exactly `P`.
    unsafe fn launch_raw(self, f: &Function, cfg: &LaunchConfig, stream: &Stream) -> Result<()>;
}

fn wrong_device(index: usize, got: usize, want: usize) -> Error {
    Error::invalid(
        "TypedKernel::launch",
        format!("argument {index} is memory on device {got} but the stream is on device {want}"),
    )
}

macro_rules! tuple_impls {
    ($( ($($P:ident $A:ident $a:ident $i:tt),*) )*) => {$(
        impl<$($P: KernelParam),*> KernelParams for ($($P,)*) {
            const COUNT: usize = 0 $(+ { let _ = $i; 1 })*;
        }

        impl<$($P: KernelParam,)* $($A: KernelArg<$P>,)*> KernelArgs<($($P,)*)> for ($($A,)*) {
            #[allow(unused_variables)]
            fn check_devices(&self, ordinal: usize) -> Result<()> {
                $(
                    if let Some(d) = self.$i.device_ordinal() {
                        if d != ordinal {
                            return Err(wrong_device($i, d, ordinal));
                        }
                    }
                )*
                Ok(())
            }

            #[inline]
            #[allow(unused_mut, non_snake_case)]
            unsafe fn launch_raw(self, f: &Function, cfg: &LaunchConfig, stream: &Stream) -> Result<()> {
                let ($($a,)*) = self;
                $( let $a = KernelArg::<$P>::into_param_tracked($a); )*
                let accesses: [Option<(&AccessEvents, bool)>; 0 $(+ { let _ = $i; 1 })*] = [$($a.1),*];
                $( let mut $a: $P = $a.0; )*
                let mut ptrs: [*mut c_void; 0 $(+ { let _ = $i; 1 })*] = [$((&mut $a as *mut $P).cast()),*];
                // SAFETY: each pointer addresses a local of the parameter's
                // type, alive across the call; the rest is the caller's
                // contract. Tracked memory is ordered and recorded around
                // the launch.
                stream.enqueue_with_accesses(accesses.iter().flatten().copied(), || unsafe {
                    result::module_launch_kernel(f.as_raw(), cfg.grid, cfg.block, cfg.shared_mem_bytes, stream.as_raw(), ptrs.as_mut_ptr(), false)
                })
                .map_err(|e| f.launch_error(cfg.block, e))
            }
        }
    )*};
}

tuple_impls! {
    ()
    (P0 A0 a0 0)
    (P0 A0 a0 0, P1 A1 a1 1)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2, P3 A3 a3 3)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2, P3 A3 a3 3, P4 A4 a4 4)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2, P3 A3 a3 3, P4 A4 a4 4, P5 A5 a5 5)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2, P3 A3 a3 3, P4 A4 a4 4, P5 A5 a5 5, P6 A6 a6 6)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2, P3 A3 a3 3, P4 A4 a4 4, P5 A5 a5 5, P6 A6 a6 6, P7 A7 a7 7)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2, P3 A3 a3 3, P4 A4 a4 4, P5 A5 a5 5, P6 A6 a6 6, P7 A7 a7 7, P8 A8 a8 8)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2, P3 A3 a3 3, P4 A4 a4 4, P5 A5 a5 5, P6 A6 a6 6, P7 A7 a7 7, P8 A8 a8 8, P9 A9 a9 9)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2, P3 A3 a3 3, P4 A4 a4 4, P5 A5 a5 5, P6 A6 a6 6, P7 A7 a7 7, P8 A8 a8 8, P9 A9 a9 9, P10 A10 a10 10)
    (P0 A0 a0 0, P1 A1 a1 1, P2 A2 a2 2, P3 A3 a3 3, P4 A4 a4 4, P5 A5 a5 5, P6 A6 a6 6, P7 A7 a7 7, P8 A8 a8 8, P9 A9 a9 9, P10 A10 a10 10, P11 A11 a11 11)
}

/// A kernel whose parameter types were stated once, so that every launch is
/// type-checked by the compiler.
///
/// ```no_run
/// # fn main() -> hip::Result<()> {
/// use hip::{Device, Module, Stream, LaunchConfig, TypedKernel};
/// let dev = Device::get(0)?;
/// let module = Module::compile(&dev, r#"
///     extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned n) {
///         unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
///         if (i < n) y[i] += a * x[i];
///     }"#)?;
/// // SAFETY: the parameter list matches the kernel's signature.
/// let axpy = unsafe { TypedKernel::<(f32, *const f32, *mut f32, u32)>::new(module.function("axpy")?) };
/// let stream = Stream::new(&dev)?;
/// let x = stream.clone_htod(&[1.0f32; 1000])?;
/// let mut y = stream.clone_htod(&[2.0f32; 1000])?;
/// // SAFETY: the kernel reads x[0..n] and writes y[0..n], and n = len.
/// unsafe { axpy.launch(&stream, LaunchConfig::for_num_elems(1000), (3.0f32, &x, &mut y, 1000u32))? };
/// assert_eq!(stream.clone_dtoh(&y)?[0], 5.0);
/// # Ok(()) }
/// ```
pub struct TypedKernel<P: KernelParams> {
    function: Function,
    _p: PhantomData<fn(P)>,
}

impl<P: KernelParams> Clone for TypedKernel<P> {
    fn clone(&self) -> Self {
        TypedKernel {
            function: self.function.clone(),
            _p: PhantomData,
        }
    }
}

impl<P: KernelParams> fmt::Debug for TypedKernel<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedKernel")
            .field("function", &self.function)
            .field("params", &std::any::type_name::<P>())
            .finish()
    }
}

impl<P: KernelParams> TypedKernel<P> {
    /// States the kernel's parameter types.
    ///
    /// # Safety
    ///
    /// `function`'s C parameter list must be exactly `P`, in order, with
    /// `*const T`/`*mut T` for pointers.
    pub unsafe fn new(function: Function) -> TypedKernel<P> {
        TypedKernel {
            function,
            _p: PhantomData,
        }
    }

    /// The underlying function.
    pub fn function(&self) -> &Function {
        &self.function
    }

    /// Launches on `stream`. Argument types are checked at compile time;
    /// the configuration, and that all buffers and the kernel are on the
    /// stream's device, are checked before any runtime call.
    ///
    /// # Safety
    ///
    /// The kernel must stay within the memory passed to it (e.g. index
    /// only below the lengths of the buffers, whatever counts you pass),
    /// and memory it writes must not be read by the host or another stream
    /// until this launch is known finished.
    #[inline]
    pub unsafe fn launch<A: KernelArgs<P>>(
        &self,
        stream: &Stream,
        cfg: LaunchConfig,
        args: A,
    ) -> Result<()> {
        args.check_devices(stream.device().ordinal())?;
        stream.prepare_launch(&self.function, &cfg)?;
        // SAFETY: `P` matches the kernel (from `new`); the rest is the
        // caller's contract.
        unsafe { args.launch_raw(&self.function, &cfg, stream) }
    }
}

#[cfg(test)]
mod tests {
    use super::SmallList;

    #[test]
    fn small_list_keeps_order_in_place_and_past_its_inline_room() {
        let mut l = SmallList::<u32, 4>::new(0);
        assert!(l.as_slice().is_empty());
        for n in 1..=3u32 {
            l.push(n * 10);
        }
        assert_eq!(l.as_slice(), &[10, 20, 30]);
        for n in 4..=9u32 {
            l.push(n * 10);
        }
        let want: Vec<u32> = (1..=9).map(|n| n * 10).collect();
        assert_eq!(l.as_slice(), &want[..]);
        // The pointer handed to the runtime sees the same items in order.
        let p = l.as_mut_ptr();
        // SAFETY: `p` points at `l.len` initialised, contiguous items.
        let seen = unsafe { std::slice::from_raw_parts(p, l.len) };
        assert_eq!(seen, &want[..]);
    }
}
