//! Device buffers and views with per-buffer read/write events, host slices,
//! pinned memory, and the stream's allocations and copies.

use super::context::{CudaContext, CudaEvent, CudaStream};
use crate::driver::result::{invalid, invalid_because, DriverError, ToDriver};
use crate::driver::sys;
use hip::sys as hs;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

/// Types that can be kernel arguments and buffer elements (cudarc's
/// `DeviceRepr`).
///
/// # Safety
///
/// The type has a C layout the kernel agrees with. Buffers of it are read
/// back to the host ([`CudaStream::clone_dtoh`]), so every bit pattern a
/// kernel may write must be a valid value, or the type says how to make the
/// bytes copied back valid ([`DeviceRepr::read_back_fix`], as `bool` does):
/// `char`, references and enums do not qualify.
pub unsafe trait DeviceRepr {
    /// For a type not every bit pattern of which is a valid value: makes
    /// the given bytes, just copied from the device, a valid value of the
    /// type, element by element. `None` (the default): every bit pattern is
    /// valid. The device-to-host copies (`clone_dtoh`, `memcpy_dtoh`) call
    /// it after the copy has finished, before the host sees an element.
    ///
    /// The function receives the address and length in bytes of whole
    /// elements, writable and not otherwise referenced. (Not in cudarc,
    /// whose `DeviceRepr` has no items; an impl need not name it. A
    /// function bounded by `Self: Sized`, not a constant, so that the
    /// trait stays dyn-compatible, as cudarc's is: `&dyn DeviceRepr`.)
    fn read_back_fix() -> Option<unsafe fn(*mut u8, usize)>
    where
        Self: Sized,
    {
        None
    }
}

/// Types for which all-zero bytes are a valid value.
///
/// # Safety
///
/// All-zero bytes are a valid value of the type. Pinned and unified memory
/// of a type that is also [`DeviceRepr`] is read on the host as it is, with
/// no copy to fix it: such a type must have every bit pattern valid (no
/// [`DeviceRepr::read_back_fix`]), which is why `bool` is not
/// `ValidAsZeroBits` here.
pub unsafe trait ValidAsZeroBits {}

macro_rules! plain {
    ($($t:ty),*) => {$(
        // SAFETY: a primitive number: C layout, every bit pattern valid.
        unsafe impl DeviceRepr for $t {}
        // SAFETY: zero is a valid value of a primitive number.
        unsafe impl ValidAsZeroBits for $t {}
    )*};
}
plain!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);
#[cfg(feature = "f16")]
plain!(half::f16, half::bf16);
// `F8E4M3` and `F8E5M2` are `#[repr(transparent)]` over a `u8`, and every
// byte is a value (NaN included).
#[cfg(feature = "f8")]
plain!(float8::F8E4M3, float8::F8E5M2);

/// Makes every byte of `[bytes, bytes + len)` a valid `bool`: a non-zero
/// byte (which a kernel may write: C++'s `bool` is a byte) becomes `true`,
/// as C++ reads it.
///
/// # Safety
///
/// `bytes` is valid for reads and writes of `len` bytes, and nothing else
/// refers to them.
unsafe fn fix_bools(bytes: *mut u8, len: usize) {
    for i in 0..len {
        // SAFETY: `i < len`: within the caller's bytes.
        let b = unsafe { &mut *bytes.add(i) };
        *b = u8::from(*b != 0);
    }
}

// SAFETY: one byte, C++'s `bool` layout (0 or 1 from the host); bytes copied
// back are made 0 or 1 by `fix_bools` before the host sees them. Not
// `ValidAsZeroBits` (which cudarc has): pinned and unified memory are read
// on the host without a copy, where a kernel's byte 2 would be no `bool`.
unsafe impl DeviceRepr for bool {
    fn read_back_fix() -> Option<unsafe fn(*mut u8, usize)> {
        Some(fix_bools)
    }
}

// SAFETY: arrays of valid elements have the elements' guarantees.
unsafe impl<T: DeviceRepr, const N: usize> DeviceRepr for [T; N] {
    fn read_back_fix() -> Option<unsafe fn(*mut u8, usize)> {
        T::read_back_fix()
    }
}
// SAFETY: as above.
unsafe impl<T: ValidAsZeroBits, const N: usize> ValidAsZeroBits for [T; N] {}

/// `ValidAsZeroBits` for tuples of up to 12 elements whose elements all are
/// (cudarc has the same): zero bytes are zero in every field, and padding
/// has no validity requirement.
macro_rules! zero_tuples {
    ($($t:ident),+) => {
        zero_tuples!(@ $($t),+);
    };
    (@ $first:ident $(, $rest:ident)*) => {
        // SAFETY: see the macro's docs.
        unsafe impl<$first: ValidAsZeroBits $(, $rest: ValidAsZeroBits)*> ValidAsZeroBits
            for ($first, $($rest,)*) {}
        zero_tuples!(@@ $($rest),*);
    };
    (@@) => {};
    (@@ $($t:ident),+) => {
        zero_tuples!(@ $($t),+);
    };
}
zero_tuples!(A, B, C, D, E, F, G, H, I, J, K, L);

/// Runs `T`'s [`DeviceRepr::read_back_fix`] over `len` elements at `dst`.
///
/// # Safety
///
/// `dst` holds `len` elements just copied from the device (the copy has
/// finished), writable, and nothing else refers to them.
unsafe fn fix_read_back<T: DeviceRepr>(dst: *mut T, len: usize) {
    if let Some(fix) = T::read_back_fix() {
        // SAFETY: the caller's promise, in bytes.
        unsafe { fix(dst.cast(), len * size_of::<T>()) }
    }
}

/// An owned device buffer of `len` elements, allocated in stream order on
/// [`CudaSlice::stream`] (cudarc's `CudaSlice`).
///
/// It is a [`hip::StreamAllocation`]: with event tracking on (the default),
/// it holds two events, the end of its last read and of its last write.
/// Work that reads it on any stream first waits for the last write; work
/// that writes it waits for the last read and write. Dropping it waits, on
/// its own stream, for both, and then frees it in stream order
/// (`hipFreeAsync`): no device-wide synchronize, and no use on another
/// stream can outlive it. Without stream-ordered allocation on the device,
/// it is freed with `hipFree` after its stream. Errors in drop go to
/// `hip::take_drop_errors`.
///
/// **Threads**: `Send + Sync`: a device address and `Send + Sync` handles;
/// writing needs `&mut`.
#[derive(Debug)]
pub struct CudaSlice<T> {
    pub(crate) cu_device_ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) alloc: hip::StreamAllocation,
    pub(crate) stream: Arc<CudaStream>,
    pub(crate) marker: PhantomData<*const T>,
}

/// The events of memory nobody tracks (module globals).
pub(crate) static UNTRACKED: hip::AccessEvents = hip::AccessEvents::untracked();

// SAFETY: see the type's docs: nothing is tied to a thread.
unsafe impl<T> Send for CudaSlice<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for CudaSlice<T> {}

impl<T> CudaSlice<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len * size_of::<T>()
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.stream.ctx.ordinal
    }
    /// The context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.stream.ctx
    }
    /// The stream it was allocated on, where it is freed.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
    /// Its read and write events (`hip`'s tracking).
    pub fn events(&self) -> &hip::AccessEvents {
        self.alloc.events()
    }

    /// A read-only view of all of it.
    pub fn as_view(&self) -> CudaView<'_, T> {
        CudaView {
            ptr: self.cu_device_ptr,
            len: self.len,
            events: self.alloc.events(),
            stream: &self.stream,
            marker: PhantomData,
        }
    }

    /// A mutable view of all of it.
    pub fn as_view_mut(&mut self) -> CudaViewMut<'_, T> {
        CudaViewMut {
            ptr: self.cu_device_ptr,
            len: self.len,
            events: self.alloc.events(),
            stream: &self.stream,
            marker: PhantomData,
        }
    }

    /// A view of `bounds`; `None` out of range.
    pub fn try_slice(&self, bounds: impl RangeBounds<usize>) -> Option<CudaView<'_, T>> {
        self.as_view().try_slice(bounds)
    }

    /// A mutable view of `bounds`; `None` out of range.
    pub fn try_slice_mut(&mut self, bounds: impl RangeBounds<usize>) -> Option<CudaViewMut<'_, T>> {
        let (start, end) = range(bounds, self.len)?;
        let mut v = self.as_view_mut();
        v.ptr += (start * size_of::<T>()) as u64;
        v.len = end - start;
        Some(v)
    }

    /// The two halves at `mid`; `None` past the end.
    pub fn try_split_at(&self, mid: usize) -> Option<(CudaView<'_, T>, CudaView<'_, T>)> {
        Some((self.try_slice(..mid)?, self.try_slice(mid..)?))
    }

    /// The two mutable halves at `mid`; `None` past the end.
    pub fn try_split_at_mut(
        &mut self,
        mid: usize,
    ) -> Option<(CudaViewMut<'_, T>, CudaViewMut<'_, T>)> {
        self.as_view_mut().try_split_at_mut_into(mid)
    }

    /// A view of `bounds`, as `&slice[bounds]`.
    ///
    /// # Panics
    ///
    /// When `bounds` is out of range, as slice indexing does (cudarc's
    /// contract); [`CudaSlice::try_slice`] returns `None` instead.
    pub fn slice(&self, bounds: impl RangeBounds<usize>) -> CudaView<'_, T> {
        let (start, end) = describe(&bounds);
        match self.try_slice(bounds) {
            Some(v) => v,
            None => out_of_range(start, end, self.len),
        }
    }

    /// A mutable view of `bounds`, as `&mut slice[bounds]`.
    ///
    /// # Panics
    ///
    /// When `bounds` is out of range; [`CudaSlice::try_slice_mut`] returns
    /// `None` instead.
    pub fn slice_mut(&mut self, bounds: impl RangeBounds<usize>) -> CudaViewMut<'_, T> {
        let (start, end) = describe(&bounds);
        let len = self.len;
        match self.try_slice_mut(bounds) {
            Some(v) => v,
            None => out_of_range(start, end, len),
        }
    }

    /// The two halves at `mid`.
    ///
    /// # Panics
    ///
    /// When `mid > len()`; [`CudaSlice::try_split_at`] returns `None`.
    pub fn split_at(&self, mid: usize) -> (CudaView<'_, T>, CudaView<'_, T>) {
        match self.try_split_at(mid) {
            Some(v) => v,
            None => out_of_range(Some(mid), None, self.len),
        }
    }

    /// The two mutable halves at `mid`.
    ///
    /// # Panics
    ///
    /// When `mid > len()`; [`CudaSlice::try_split_at_mut`] returns `None`.
    pub fn split_at_mut(&mut self, mid: usize) -> (CudaViewMut<'_, T>, CudaViewMut<'_, T>) {
        let len = self.len;
        match self.try_split_at_mut(mid) {
            Some(v) => v,
            None => out_of_range(Some(mid), None, len),
        }
    }

    /// A view of the same memory as `len` elements of `S`; `None` when that
    /// is more bytes than the buffer has.
    ///
    /// # Safety
    ///
    /// The bytes are valid values of `S` for whatever reads them.
    pub unsafe fn transmute<S>(&self, len: usize) -> Option<CudaView<'_, S>> {
        // SAFETY: the caller's contract.
        unsafe { self.as_view().transmute(len) }
    }

    /// A mutable view of the same memory as `len` elements of `S`; `None`
    /// when that is more bytes than the buffer has.
    ///
    /// # Safety
    ///
    /// The bytes are valid values of `S` for whatever reads them.
    pub unsafe fn transmute_mut<S>(&mut self, len: usize) -> Option<CudaViewMut<'_, S>> {
        let bytes = len.checked_mul(size_of::<S>())?;
        (bytes <= self.num_bytes()).then_some(CudaViewMut {
            ptr: self.cu_device_ptr,
            len,
            events: self.alloc.events(),
            stream: &self.stream,
            marker: PhantomData,
        })
    }

    /// Gives up ownership: returns the device pointer, which is no longer
    /// freed (cudarc's `leak`). The stream first waits for the tracked
    /// reads and writes, so the pointer is ready in its order.
    pub fn leak(self) -> sys::CUdeviceptr {
        self.alloc.into_raw().0 as sys::CUdeviceptr
    }
}

impl<T: DeviceRepr> CudaSlice<T> {
    /// A device copy on the same stream.
    pub fn try_clone(&self) -> Result<CudaSlice<T>, DriverError> {
        self.stream.clone_dtod(self)
    }
}

impl<T: DeviceRepr> TryFrom<CudaSlice<T>> for Vec<T> {
    type Error = DriverError;
    /// Copies the buffer to the host (on its stream).
    fn try_from(value: CudaSlice<T>) -> Result<Vec<T>, DriverError> {
        value.stream.clone_dtoh(&value)
    }
}

impl<T: DeviceRepr> Clone for CudaSlice<T> {
    /// A device copy on the same stream. Panics if the copy fails (as
    /// cudarc's); [`CudaSlice::try_clone`] returns the error instead.
    fn clone(&self) -> CudaSlice<T> {
        match self.try_clone() {
            Ok(c) => c,
            Err(e) => panic!("CudaSlice::clone failed: {e}"),
        }
    }
}

impl CudaStream {
    /// Takes ownership of `ptr`, `len` elements allocated in stream order
    /// on this stream (or with `hipMalloc` where the device has no memory
    /// pools), e.g. from [`CudaSlice::leak`].
    ///
    /// # Safety
    ///
    /// `ptr` is such an allocation of at least `len` elements, owned by no
    /// one else, and ready in this stream's order.
    pub unsafe fn upgrade_device_ptr<T>(
        self: &Arc<Self>,
        ptr: sys::CUdeviceptr,
        len: usize,
    ) -> CudaSlice<T> {
        let tracking = self.ctx.is_event_tracking();
        let events = self.tracking_events();
        let lost_events = tracking && !events.is_tracked();
        // SAFETY: the caller's contract; with tracking off, that of
        // `disable_event_tracking` (uses on other streams ordered by the
        // caller).
        let mut alloc = unsafe {
            hip::StreamAllocation::from_raw(
                &self.stream,
                ptr as *mut c_void,
                len.saturating_mul(size_of::<T>()),
                events,
                self.ctx.has_async_alloc,
            )
        };
        if lost_events {
            // No events could be made: the free must wait for the device.
            alloc.wait_for_device_on_free();
        }
        CudaSlice {
            cu_device_ptr: ptr,
            len,
            alloc,
            stream: self.clone(),
            marker: PhantomData,
        }
    }

    fn tracking_events(&self) -> hip::AccessEvents {
        if !self.ctx.is_event_tracking() {
            return hip::AccessEvents::untracked();
        }
        match hip::AccessEvents::new(&self.ctx.device).drv() {
            Ok(e) => e,
            Err(e) => {
                self.ctx.record_err::<()>(Err(e));
                hip::AccessEvents::untracked()
            }
        }
    }
}

/// The bounds, for a message.
pub(super) fn describe(bounds: &impl RangeBounds<usize>) -> (Option<usize>, Option<usize>) {
    let start = match bounds.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => None,
    };
    let end = match bounds.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => None,
    };
    (start, end)
}

/// The panic of the panicking slicing methods (cudarc's, and std's
/// indexing contract).
#[cold]
#[track_caller]
pub(super) fn out_of_range(start: Option<usize>, end: Option<usize>, len: usize) -> ! {
    panic!("range {start:?}..{end:?} out of range for a device slice of length {len}")
}

pub(super) fn range(bounds: impl RangeBounds<usize>, len: usize) -> Option<(usize, usize)> {
    let start = match bounds.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.checked_add(1)?,
        Bound::Unbounded => 0,
    };
    let end = match bounds.end_bound() {
        Bound::Included(&e) => e.checked_add(1)?,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    (start <= end && end <= len).then_some((start, end))
}

/// The `[start, end)` bounds of the chunks of `chunk_size` elements that
/// make up `len` elements, in order (the views' `chunks_exact`).
///
/// # Panics
///
/// When `chunk_size` is 0 or does not divide `len` (cudarc's contract: no
/// remainder).
#[track_caller]
pub(super) fn exact_chunks(len: usize, chunk_size: usize) -> impl Iterator<Item = (usize, usize)> {
    assert!(chunk_size != 0, "chunk size must be non-zero");
    assert!(
        len % chunk_size == 0,
        "chunk size {chunk_size} does not divide a device view of length {len}"
    );
    (0..len / chunk_size).map(move |i| (i * chunk_size, (i + 1) * chunk_size))
}

/// A read-only view into a [`CudaSlice`] (or a module global); shares the
/// buffer's events.
#[derive(Debug)]
pub struct CudaView<'a, T> {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) events: &'a hip::AccessEvents,
    pub(crate) stream: &'a Arc<CudaStream>,
    pub(crate) marker: PhantomData<&'a [T]>,
}

impl<T> Clone for CudaView<'_, T> {
    fn clone(&self) -> Self {
        CudaView { ..*self }
    }
}

impl<'a, T> CudaView<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// A sub-view; `None` out of range.
    pub fn try_slice(&self, bounds: impl RangeBounds<usize>) -> Option<CudaView<'a, T>> {
        let (start, end) = range(bounds, self.len)?;
        Some(CudaView {
            ptr: self.ptr + (start * size_of::<T>()) as u64,
            len: end - start,
            ..*self
        })
    }
    /// A sub-view, as `&slice[bounds]`.
    ///
    /// # Panics
    ///
    /// When `bounds` is out of range; [`CudaView::try_slice`] returns
    /// `None` instead.
    pub fn slice(&self, bounds: impl RangeBounds<usize>) -> CudaView<'a, T> {
        let (start, end) = describe(&bounds);
        match self.try_slice(bounds) {
            Some(v) => v,
            None => out_of_range(start, end, self.len),
        }
    }
    /// The two halves at `mid`; `None` past the end.
    pub fn try_split_at(&self, mid: usize) -> Option<(CudaView<'a, T>, CudaView<'a, T>)> {
        Some((self.try_slice(..mid)?, self.try_slice(mid..)?))
    }
    /// The two halves at `mid`, `[0, mid)` and `[mid, len)`, as
    /// `slice.split_at(mid)`; both share the buffer's events.
    ///
    /// # Panics
    ///
    /// When `mid > len()` (cudarc's contract); [`CudaView::try_split_at`]
    /// returns `None` instead.
    #[track_caller]
    pub fn split_at(&self, mid: usize) -> (CudaView<'a, T>, CudaView<'a, T>) {
        match self.try_split_at(mid) {
            Some(halves) => halves,
            None => out_of_range(Some(mid), None, self.len),
        }
    }
    /// The consecutive sub-views of `chunk_size` elements, in order, each
    /// sharing the buffer's events. Unlike `slice::chunks_exact` there is
    /// no remainder: the length must be a multiple of `chunk_size` (as in
    /// cudarc); an empty view has no chunks.
    ///
    /// # Panics
    ///
    /// When `chunk_size` is 0 or does not divide `len()`.
    #[track_caller]
    pub fn chunks_exact(&self, chunk_size: usize) -> impl Iterator<Item = CudaView<'a, T>> + '_ {
        exact_chunks(self.len, chunk_size).map(move |(start, end)| {
            self.try_slice(start..end)
                .expect("exact_chunks stays within the view")
        })
    }
    /// The address for reading on `stream`, as [`DevicePtr::device_ptr`]
    /// does (the stream first waits for the buffer's last write; the guard
    /// records the read when dropped), with the guard living as long as
    /// the view's borrow of the buffer rather than this view: the view is
    /// consumed, so the address can outlive the local it came from.
    pub fn view_ptr(self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (self.ptr, access(self.events, stream, false))
    }
    /// The same memory as `len` elements of `S`; `None` when too long.
    ///
    /// # Safety
    ///
    /// The bytes are valid values of `S` for whatever reads them.
    pub unsafe fn transmute<S>(&self, len: usize) -> Option<CudaView<'a, S>> {
        let bytes = len.checked_mul(size_of::<S>())?;
        (bytes <= self.len * size_of::<T>()).then_some(CudaView {
            ptr: self.ptr,
            len,
            events: self.events,
            stream: self.stream,
            marker: PhantomData,
        })
    }
}

/// A mutable view into a [`CudaSlice`] (or a module global); shares the
/// buffer's events.
#[derive(Debug)]
pub struct CudaViewMut<'a, T> {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) len: usize,
    pub(crate) events: &'a hip::AccessEvents,
    pub(crate) stream: &'a Arc<CudaStream>,
    pub(crate) marker: PhantomData<&'a mut [T]>,
}

impl<'a, T> CudaViewMut<'a, T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// A read-only view of it.
    pub fn as_view(&self) -> CudaView<'_, T> {
        CudaView {
            ptr: self.ptr,
            len: self.len,
            events: self.events,
            stream: self.stream,
            marker: PhantomData,
        }
    }
    /// Turns it into a read-only view.
    pub fn into_view(self) -> CudaView<'a, T> {
        CudaView {
            ptr: self.ptr,
            len: self.len,
            events: self.events,
            stream: self.stream,
            marker: PhantomData,
        }
    }
    /// The two mutable halves at `mid`, consuming the view; `None` past
    /// the end.
    pub fn try_split_at_mut_into(
        self,
        mid: usize,
    ) -> Option<(CudaViewMut<'a, T>, CudaViewMut<'a, T>)> {
        if mid > self.len {
            return None;
        }
        let second = CudaViewMut {
            ptr: self.ptr + (mid * size_of::<T>()) as u64,
            len: self.len - mid,
            events: self.events,
            stream: self.stream,
            marker: PhantomData,
        };
        let first = CudaViewMut { len: mid, ..self };
        Some((first, second))
    }
    /// A mutable sub-view, as `&mut slice[bounds]`.
    ///
    /// # Panics
    ///
    /// When `bounds` is out of range; [`CudaViewMut::try_slice_mut`]
    /// returns `None` instead.
    pub fn slice_mut(&mut self, bounds: impl RangeBounds<usize>) -> CudaViewMut<'_, T> {
        let (start, end) = describe(&bounds);
        let len = self.len;
        match self.try_slice_mut(bounds) {
            Some(v) => v,
            None => out_of_range(start, end, len),
        }
    }
    /// A mutable sub-view; `None` out of range.
    pub fn try_slice_mut(&mut self, bounds: impl RangeBounds<usize>) -> Option<CudaViewMut<'_, T>> {
        let (start, end) = range(bounds, self.len)?;
        Some(CudaViewMut {
            ptr: self.ptr + (start * size_of::<T>()) as u64,
            len: end - start,
            events: self.events,
            stream: self.stream,
            marker: PhantomData,
        })
    }
    /// A read-only sub-view of `bounds`, borrowing this view, as
    /// `&slice[bounds]`.
    ///
    /// # Panics
    ///
    /// When `bounds` is out of range (cudarc's contract);
    /// [`CudaViewMut::try_slice`] returns `None` instead.
    #[track_caller]
    pub fn slice<'b>(&'b self, bounds: impl RangeBounds<usize>) -> CudaView<'b, T> {
        let (start, end) = describe(&bounds);
        match self.try_slice(bounds) {
            Some(v) => v,
            None => out_of_range(start, end, self.len),
        }
    }
    /// A read-only sub-view of `bounds`, borrowing this view; `None` out
    /// of range.
    pub fn try_slice<'b>(&'b self, bounds: impl RangeBounds<usize>) -> Option<CudaView<'b, T>> {
        self.as_view().try_slice(bounds)
    }
    /// The two mutable halves at `mid`, `[0, mid)` and `[mid, len)`,
    /// borrowing this view (disjoint, so both may be written, as
    /// `slice.split_at_mut(mid)`); both share the buffer's events.
    ///
    /// # Panics
    ///
    /// When `mid > len()` (cudarc's contract);
    /// [`CudaViewMut::try_split_at_mut`] returns `None` instead.
    #[track_caller]
    pub fn split_at_mut<'b>(&'b mut self, mid: usize) -> (CudaViewMut<'b, T>, CudaViewMut<'b, T>) {
        let len = self.len;
        match self.try_split_at_mut(mid) {
            Some(halves) => halves,
            None => out_of_range(Some(mid), None, len),
        }
    }
    /// The two mutable halves at `mid`, borrowing this view; `None` when
    /// `mid > len()`.
    pub fn try_split_at_mut<'b>(
        &'b mut self,
        mid: usize,
    ) -> Option<(CudaViewMut<'b, T>, CudaViewMut<'b, T>)> {
        self.reborrow().try_split_at_mut_into(mid)
    }
    /// The consecutive mutable sub-views of `chunk_size` elements, in
    /// order, consuming this view (they are disjoint, so all may be
    /// written at once); each shares the buffer's events. No remainder:
    /// the length must be a multiple of `chunk_size` (as in cudarc); an
    /// empty view has no chunks.
    ///
    /// # Panics
    ///
    /// When `chunk_size` is 0 or does not divide `len()`.
    #[track_caller]
    pub fn chunks_exact_mut(self, chunk_size: usize) -> impl Iterator<Item = CudaViewMut<'a, T>> {
        let (ptr, events, stream) = (self.ptr, self.events, self.stream);
        exact_chunks(self.len, chunk_size).map(move |(start, end)| CudaViewMut {
            ptr: ptr + (start * size_of::<T>()) as u64,
            len: end - start,
            events,
            stream,
            marker: PhantomData,
        })
    }
    /// The address for reading on `stream`, as [`DevicePtr::device_ptr`]
    /// does, with the guard living as long as the view's borrow of the
    /// buffer; the view is consumed.
    pub fn view_ptr(self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        self.into_view().view_ptr(stream)
    }
    /// The address for writing on `stream`, as
    /// [`DevicePtrMut::device_ptr_mut`] does (the stream first waits for
    /// the buffer's last read and write; the guard records the write when
    /// dropped), with the guard living as long as the view's borrow of the
    /// buffer; the view is consumed.
    pub fn view_ptr_mut(self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (self.ptr, access(self.events, stream, true))
    }
    /// A shorter-lived mutable view of the same memory.
    fn reborrow(&mut self) -> CudaViewMut<'_, T> {
        CudaViewMut {
            ptr: self.ptr,
            len: self.len,
            events: self.events,
            stream: self.stream,
            marker: PhantomData,
        }
    }
    /// The same memory, read-only, as `len` elements of `S`; `None` when
    /// too long.
    ///
    /// # Safety
    ///
    /// The bytes are valid values of `S` for whatever reads them.
    pub unsafe fn transmute<'b, S>(&'b self, len: usize) -> Option<CudaView<'b, S>> {
        // SAFETY: the caller's promise, passed on.
        unsafe { self.as_view().transmute(len) }
    }
    /// The same memory as `len` elements of `S`; `None` when too long.
    ///
    /// # Safety
    ///
    /// The bytes are valid values of `S` for whatever reads them.
    pub unsafe fn transmute_mut<S>(&mut self, len: usize) -> Option<CudaViewMut<'_, S>> {
        let bytes = len.checked_mul(size_of::<S>())?;
        (bytes <= self.len * size_of::<T>()).then_some(CudaViewMut {
            ptr: self.ptr,
            len,
            events: self.events,
            stream: self.stream,
            marker: PhantomData,
        })
    }
}

/// Device memory of `len()` elements (cudarc's `DeviceSlice`).
pub trait DeviceSlice<T> {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Size in bytes.
    fn num_bytes(&self) -> usize {
        self.len() * size_of::<T>()
    }
    /// Whether it has no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The stream the memory belongs to.
    fn stream(&self) -> &Arc<CudaStream>;
}

impl<T> DeviceSlice<T> for CudaSlice<T> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}
impl<T> DeviceSlice<T> for CudaView<'_, T> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        self.stream
    }
}
impl<T> DeviceSlice<T> for CudaViewMut<'_, T> {
    fn len(&self) -> usize {
        self.len
    }
    fn stream(&self) -> &Arc<CudaStream> {
        self.stream
    }
}

/// What to do once the work using a pointer has been enqueued: record the
/// buffer's event on the stream, or synchronize the stream (for pageable
/// host memory). Errors are recorded in the context
/// ([`CudaContext::check_err`]).
#[derive(Debug)]
#[must_use]
pub enum SyncOnDrop<'a> {
    /// Record the event on the stream when dropped.
    Record(Option<(&'a CudaEvent, &'a CudaStream)>),
    /// Synchronize the stream when dropped.
    Sync(Option<&'a CudaStream>),
    /// Record a buffer's read or write when dropped (`hip`'s tracking).
    Access(Option<hip::AccessGuard<'a>>),
}

impl<'a> SyncOnDrop<'a> {
    /// Records `event` (if any) on `stream` when dropped.
    pub fn record_event(event: &'a Option<CudaEvent>, stream: &'a CudaStream) -> SyncOnDrop<'a> {
        SyncOnDrop::Record(event.as_ref().map(|e| (e, stream)))
    }
    /// Synchronizes `stream` when dropped.
    pub fn sync_stream(stream: &'a CudaStream) -> SyncOnDrop<'a> {
        SyncOnDrop::Sync(Some(stream))
    }

    /// Whether this guards host memory that copies use synchronously:
    /// ordinary (pageable) memory, whose guard synchronizes rather than
    /// records an event.
    fn is_host_synchronous(&self) -> bool {
        matches!(self, SyncOnDrop::Sync(_))
    }
}

/// The guard of memory that keeps its own event (pinned host, unified):
/// `stream` first waits for the event's last use, and the guard records the
/// new use into the event when dropped.
pub(super) fn wait_then_record<'a>(event: &'a CudaEvent, stream: &'a CudaStream) -> SyncOnDrop<'a> {
    stream.ctx.record_err(stream.wait(event));
    SyncOnDrop::Record(Some((event, stream)))
}

/// `HostSlice` for host-visible memory that keeps its own event (pinned,
/// unified): each use waits for and records into that event
/// ([`wait_then_record`]). The type has fields `len` and `event` and a
/// method `host`; `|this| ...` gives its address as `*mut T`.
macro_rules! host_slice_with_event {
    ($ty:ty, |$this:ident| $address:expr) => {
        impl<T> HostSlice<T> for $ty {
            fn len(&self) -> usize {
                self.len
            }
            unsafe fn stream_synced_slice<'a>(
                &'a self,
                stream: &'a CudaStream,
            ) -> (&'a [T], SyncOnDrop<'a>) {
                let guard = wait_then_record(&self.event, stream);
                (self.host(), guard)
            }
            unsafe fn stream_synced_mut_slice<'a>(
                &'a mut self,
                stream: &'a CudaStream,
            ) -> (&'a mut [T], SyncOnDrop<'a>) {
                let guard = wait_then_record(&self.event, stream);
                let $this = &*self;
                let (ptr, len): (*mut T, usize) = ($address, $this.len);
                let slice: &'a mut [T] = if len == 0 {
                    &mut []
                } else {
                    // SAFETY: as `host` (`len` initialised elements at
                    // `ptr`), and `&mut self` is exclusive; the slice is
                    // made from the address, not a borrow, so it does not
                    // overlap the event field the guard borrows.
                    unsafe { std::slice::from_raw_parts_mut(ptr, len) }
                };
                (slice, guard)
            }
        }
    };
}
pub(super) use host_slice_with_event;

impl Drop for SyncOnDrop<'_> {
    fn drop(&mut self) {
        match self {
            SyncOnDrop::Record(target) => {
                if let Some((event, stream)) = target.take() {
                    stream.ctx.record_err(event.record(stream));
                }
            }
            SyncOnDrop::Sync(target) => {
                if let Some(stream) = target.take() {
                    stream.ctx.record_err(stream.synchronize());
                }
            }
            // The guard records when it drops, right after this.
            SyncOnDrop::Access(_) => {}
        }
    }
}

/// Device memory whose address can be taken for reading on a stream
/// (cudarc's `DevicePtr`): the stream first waits for the last write, and
/// the returned guard records the read when dropped (after the work using
/// the pointer has been enqueued).
pub trait DevicePtr<T>: DeviceSlice<T> {
    /// The address, and the guard to drop after enqueueing the read.
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>);
}

/// Device memory whose address can be taken for writing on a stream
/// (cudarc's `DevicePtrMut`): the stream first waits for the last read and
/// write, and the guard records the write.
pub trait DevicePtrMut<T>: DeviceSlice<T> {
    /// The address, and the guard to drop after enqueueing the write.
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>);
}

/// Drops a guard without its action.
fn disarm(mut g: SyncOnDrop<'_>) {
    match &mut g {
        SyncOnDrop::Record(t) => *t = None,
        SyncOnDrop::Sync(t) => *t = None,
        SyncOnDrop::Access(t) => {
            if let Some(guard) = t.take() {
                // Holds only references: forgetting it skips the record.
                std::mem::forget(guard);
            }
        }
    }
}

/// Waits on `stream` for the accesses a read (or write) conflicts with, and
/// returns the guard that records it.
fn access<'a>(
    events: &'a hip::AccessEvents,
    stream: &'a CudaStream,
    write: bool,
) -> SyncOnDrop<'a> {
    let waited = if write {
        events.wait_before_write(&stream.stream)
    } else {
        events.wait_before_read(&stream.stream)
    };
    stream.ctx.record_err(waited.drv());
    SyncOnDrop::Access(Some(hip::AccessGuard::recording(
        events,
        &stream.stream,
        write,
    )))
}

impl<T> DevicePtr<T> for CudaSlice<T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (
            self.cu_device_ptr,
            access(self.alloc.events(), stream, false),
        )
    }
}
impl<T> DevicePtr<T> for CudaView<'_, T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (self.ptr, access(self.events, stream, false))
    }
}
impl<T> DevicePtr<T> for CudaViewMut<'_, T> {
    fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (self.ptr, access(self.events, stream, false))
    }
}
impl<T> DevicePtrMut<T> for CudaSlice<T> {
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (
            self.cu_device_ptr,
            access(self.alloc.events(), stream, true),
        )
    }
}
impl<T> DevicePtrMut<T> for CudaViewMut<'_, T> {
    fn device_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        (self.ptr, access(self.events, stream, true))
    }
}

/// Host memory for copies (cudarc's `HostSlice`): arrays, slices and `Vec`s
/// (pageable: the copy synchronizes its stream before returning, so the
/// memory is free to use and drop afterwards) and [`PinnedHostSlice`]
/// (asynchronous: an event guards host access).
pub trait HostSlice<T> {
    /// Number of elements.
    fn len(&self) -> usize;
    /// Whether it has no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The slice to read from on `stream`, and the guard to drop after the
    /// copy is enqueued.
    ///
    /// # Safety
    ///
    /// The slice is used only by work enqueued on `stream` before the guard
    /// drops.
    unsafe fn stream_synced_slice<'a>(
        &'a self,
        stream: &'a CudaStream,
    ) -> (&'a [T], SyncOnDrop<'a>);
    /// The slice to write to on `stream`, and the guard.
    ///
    /// # Safety
    ///
    /// As [`HostSlice::stream_synced_slice`].
    unsafe fn stream_synced_mut_slice<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (&'a mut [T], SyncOnDrop<'a>);
}

macro_rules! pageable {
    ($([$($g:tt)*] $t:ty),*) => {$(
        impl<$($g)*> HostSlice<T> for $t {
            fn len(&self) -> usize {
                <[T]>::len(self)
            }
            // Read by a copy to the device: the runtime has taken pageable
            // memory into its own staging (or copied it) when the copy call
            // returns, on CUDA and HIP alike, so nothing waits (as in
            // cudarc); a wait here would stall the host on every small
            // upload of a launch-bound program.
            unsafe fn stream_synced_slice<'a>(
                &'a self,
                _stream: &'a CudaStream,
            ) -> (&'a [T], SyncOnDrop<'a>) {
                (self, SyncOnDrop::Sync(None))
            }
            // Written by a copy from the device: waited for before the host
            // may look.
            unsafe fn stream_synced_mut_slice<'a>(
                &'a mut self,
                stream: &'a CudaStream,
            ) -> (&'a mut [T], SyncOnDrop<'a>) {
                (self, SyncOnDrop::sync_stream(stream))
            }
        }
    )*};
}
pageable!([T, const N: usize] [T; N], [T] [T], [T] Vec<T>);

/// Page-locked host memory (`hipHostMalloc`), for asynchronous copies
/// (cudarc's `PinnedHostSlice`). An event records the last copy; host
/// access waits for it.
#[derive(Debug)]
pub struct PinnedHostSlice<T> {
    ptr: *mut T,
    len: usize,
    event: CudaEvent,
}

// SAFETY: owned host memory plus a thread-safe event; `&mut` for writes.
unsafe impl<T: Send> Send for PinnedHostSlice<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for PinnedHostSlice<T> {}

impl<T> Drop for PinnedHostSlice<T> {
    fn drop(&mut self) {
        let ctx = self.event.ctx.clone();
        ctx.record_err(self.event.synchronize());
        if !self.ptr.is_null() {
            // hipHostFree may act on the whole device: made once no capture
            // of it is open (hip's capture gate).
            let p = hip::SendPtr(self.ptr.cast::<c_void>());
            ctx.release_outside_captures(move |held| {
                // SAFETY: we own this hipHostMalloc allocation, and the last
                // copy using it has finished.
                unsafe { hip::result::host_free(p.get(), held) }.drv()
            });
        }
    }
}

impl CudaContext {
    /// `len` elements of page-locked, write-combined host memory
    /// (`hipHostMalloc` with `CU_MEMHOSTALLOC_WRITECOMBINED`, as cudarc
    /// allocates it): quick for the host to write and the device to read,
    /// slow for the host to read. Zero-filled here, where cudarc leaves it
    /// unset.
    ///
    /// # Panics
    ///
    /// As [`alloc_pinned_with_flags`](Self::alloc_pinned_with_flags).
    ///
    /// # Safety
    ///
    /// As cudarc's: the contents are unset as far as the caller knows;
    /// read them as `T` only after writing them, or where all-zero bytes
    /// are a valid `T`. The host reads this memory as it is, with no
    /// [`DeviceRepr::read_back_fix`]: what a kernel writes into it must be
    /// a valid `T` (a byte 2 in a `bool` is not).
    pub unsafe fn alloc_pinned<T: DeviceRepr>(
        self: &Arc<Self>,
        len: usize,
    ) -> Result<PinnedHostSlice<T>, DriverError> {
        // SAFETY: the caller's contract is the one above, which
        // alloc_pinned_with_flags states too.
        unsafe { self.alloc_pinned_with_flags(len, sys::CU_MEMHOSTALLOC_WRITECOMBINED) }
    }

    /// `len` elements of page-locked host memory allocated with `flags`,
    /// any combination of `CU_MEMHOSTALLOC_PORTABLE`, `_DEVICEMAP` and
    /// `_WRITECOMBINED` (`hipHostMalloc`'s flags of the same bits).
    /// cudarc leaves the memory unset; here it is zero-filled, so that no
    /// read can see uninitialised bytes.
    ///
    /// # Panics
    ///
    /// As cudarc's, when `len` elements of `T` overflow `usize` or exceed
    /// `isize::MAX` bytes ("Pinned host allocation size overflow").
    ///
    /// # Safety
    ///
    /// As cudarc's: the contents are unset as far as the caller knows;
    /// read them as `T` only after writing them, or where all-zero bytes
    /// are a valid `T`.
    ///
    /// # Errors
    ///
    /// `CUDA_ERROR_INVALID_VALUE` for a flag outside the three.
    pub unsafe fn alloc_pinned_with_flags<T: DeviceRepr>(
        self: &Arc<Self>,
        len: usize,
        flags: u32,
    ) -> Result<PinnedHostSlice<T>, DriverError> {
        const KNOWN: u32 = sys::CU_MEMHOSTALLOC_PORTABLE
            | sys::CU_MEMHOSTALLOC_DEVICEMAP
            | sys::CU_MEMHOSTALLOC_WRITECOMBINED;
        let bytes = len
            .checked_mul(size_of::<T>())
            .filter(|&b| b < isize::MAX as usize)
            .expect("Pinned host allocation size overflow");
        if flags & !KNOWN != 0 {
            return Err(crate::driver::result::fail(
                sys::CUresult::CUDA_ERROR_INVALID_VALUE,
                "alloc_pinned_with_flags: flags other than CU_MEMHOSTALLOC_PORTABLE, _DEVICEMAP and _WRITECOMBINED",
            ));
        }
        self.pinned_zeroed(len, bytes, flags)
    }

    /// `bytes` (`len` elements) of zero-filled page-locked memory
    /// (`hipHostMalloc` with `flags`).
    fn pinned_zeroed<T>(
        self: &Arc<Self>,
        len: usize,
        bytes: usize,
        flags: u32,
    ) -> Result<PinnedHostSlice<T>, DriverError> {
        self.bind_to_thread()?;
        let event = self.new_event(None)?;
        let mut p = std::ptr::null_mut();
        if bytes > 0 {
            p = hip::result::host_malloc(bytes, flags).drv()?;
            // SAFETY: `p` holds `bytes` writable bytes.
            unsafe { std::ptr::write_bytes(p.cast::<u8>(), 0, bytes) };
        }
        Ok(PinnedHostSlice {
            ptr: p.cast(),
            len,
            event,
        })
    }
}

impl<T> PinnedHostSlice<T> {
    /// Its context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.event.ctx
    }
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Size in bytes.
    pub fn num_bytes(&self) -> usize {
        self.len * size_of::<T>()
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn host(&self) -> &[T] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `ptr` holds `len` initialised elements (zeroed at
        // allocation, written only through this type).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
    fn host_mut(&mut self) -> &mut [T] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: as `host`, and `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T: ValidAsZeroBits> PinnedHostSlice<T> {
    /// The contents, after the last copy has finished.
    pub fn as_slice(&self) -> Result<&[T], DriverError> {
        self.event.synchronize()?;
        Ok(self.host())
    }
    /// The contents, mutably, after the last copy has finished.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T], DriverError> {
        self.event.synchronize()?;
        Ok(self.host_mut())
    }
    /// The address, after the last copy has finished.
    pub fn as_ptr(&self) -> Result<*const T, DriverError> {
        self.event.synchronize()?;
        Ok(self.ptr)
    }
    /// The address for writing, after the last copy has finished.
    pub fn as_mut_ptr(&mut self) -> Result<*mut T, DriverError> {
        self.event.synchronize()?;
        Ok(self.ptr)
    }
}

host_slice_with_event!(PinnedHostSlice<T>, |this| this.ptr);

// ---- allocations and copies on a stream --------------------------------------

/// Rejects a copy `op` whose source and destination lengths differ, with a
/// message naming both.
fn same_len(op: &str, src: usize, dst: usize) -> Result<(), DriverError> {
    if src == dst {
        Ok(())
    } else {
        Err(invalid_because(&format!(
            "{op}: source of {src} elements, destination of {dst}"
        )))
    }
}

/// Which way a host<->device copy goes, with the host address it reads
/// (host to device) or writes (device to host).
#[derive(Clone, Copy)]
enum HostMemory {
    /// Host to device: the copy reads here.
    Source(*const c_void),
    /// Device to host: the copy writes here.
    Destination(*mut c_void),
}

impl CudaStream {
    fn same_device(&self, other: &CudaStream) -> Result<(), DriverError> {
        if self.ctx.ordinal == other.ctx.ordinal {
            Ok(())
        } else {
            Err(invalid_because(&format!(
                "the memory is on device {}, the stream on device {}",
                other.ctx.ordinal, self.ctx.ordinal
            )))
        }
    }

    /// What every host<->device copy does first: the device buffer (on
    /// `buffer_stream`) is on this stream's device, and the context is
    /// current on this thread.
    fn begin_copy(&self, buffer_stream: &CudaStream) -> Result<(), DriverError> {
        self.same_device(buffer_stream)?;
        self.ctx.bind_to_thread()
    }

    /// Whether a copy of `bytes` bytes of host memory goes through `hip`'s
    /// staging (`hip::staging`), which moves ordinary memory at
    /// near-pinned speed: ordinary memory (`host_synchronous`, see
    /// [`SyncOnDrop`]), from `hip::staging::MIN_BYTES` on, and not while
    /// the stream captures a graph (a direct copy is captured as in
    /// cudarc; a staged one could not be replayed).
    fn stages(&self, host_synchronous: bool, bytes: usize) -> Result<bool, DriverError> {
        if !host_synchronous || bytes < hip::staging::MIN_BYTES {
            return Ok(false);
        }
        let status = self.stream.capture_status().drv()?;
        Ok(status == hs::hipStreamCaptureStatus::hipStreamCaptureStatusNone)
    }

    /// Copies `bytes` bytes between ordinary host memory and the device
    /// address `device` on this stream through `hip`'s staging, and waits
    /// for the copy.
    ///
    /// # Safety
    ///
    /// As [`CudaStream::enqueue_host_copy`]; `device`'s earlier uses on
    /// other streams are ordered before this stream's work.
    unsafe fn staged_host_copy(
        &self,
        host: HostMemory,
        device: sys::CUdeviceptr,
        bytes: usize,
    ) -> Result<(), DriverError> {
        let device = device as *mut u8;
        // SAFETY: the caller's contract above.
        unsafe {
            match host {
                HostMemory::Source(src) => {
                    hip::staging::copy_htod_pageable(&self.stream, src.cast(), device, bytes)
                }
                HostMemory::Destination(dst) => {
                    hip::staging::copy_dtoh_pageable(&self.stream, device, dst.cast(), bytes)
                }
            }
        }
        .drv()
    }

    /// Enqueues one copy of `bytes` between host memory and the device
    /// address `device` on this stream (`hipMemcpyHtoDAsync` or
    /// `hipMemcpyDtoHAsync`, by the direction `host` gives); nothing for
    /// zero bytes.
    ///
    /// # Safety
    ///
    /// The host memory is readable (`Source`) or writable (`Destination`)
    /// for `bytes`, `device` holds at least `bytes` of this stream's device,
    /// and the caller's guards keep both alive and ordered until the copy
    /// has finished.
    unsafe fn enqueue_host_copy(
        &self,
        host: HostMemory,
        device: sys::CUdeviceptr,
        bytes: usize,
    ) -> Result<(), DriverError> {
        if bytes == 0 {
            return Ok(());
        }
        let device = device as *mut c_void;
        let (dst, src, kind) = match host {
            HostMemory::Source(src) => (device, src, hs::hipMemcpyKind::hipMemcpyHostToDevice),
            HostMemory::Destination(dst) => (
                dst,
                device.cast_const(),
                hs::hipMemcpyKind::hipMemcpyDeviceToHost,
            ),
        };
        // SAFETY: the caller's contract above.
        unsafe { hip::result::memcpy_async(dst, src, bytes, kind, self.cu_stream()) }.drv()
    }

    /// `len` uninitialised elements in stream order (`hipMallocAsync`, or
    /// `hipMalloc` without memory pools).
    ///
    /// # Safety
    ///
    /// The contents are uninitialised: read them only after writing.
    pub unsafe fn alloc<T: DeviceRepr>(
        self: &Arc<Self>,
        len: usize,
    ) -> Result<CudaSlice<T>, DriverError> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(invalid)?;
        // `StreamAllocation` binds the device where the runtime needs it.
        let alloc = if self.ctx.is_event_tracking() {
            hip::StreamAllocation::new(&self.stream, bytes, true)
        } else {
            // SAFETY: event tracking is off only through the `unsafe`
            // `disable_event_tracking`, whose caller orders every use of a
            // buffer on other streams before its drop.
            unsafe { hip::StreamAllocation::new_caller_ordered(&self.stream, bytes) }
        }
        .drv()?;
        Ok(CudaSlice {
            cu_device_ptr: alloc.as_raw() as sys::CUdeviceptr,
            len,
            alloc,
            stream: self.clone(),
            marker: PhantomData,
        })
    }

    /// `len` zeroed elements in stream order.
    pub fn alloc_zeros<T: DeviceRepr + ValidAsZeroBits>(
        self: &Arc<Self>,
        len: usize,
    ) -> Result<CudaSlice<T>, DriverError> {
        // SAFETY: zero-filled right away, before any read.
        let mut s = unsafe { self.alloc::<T>(len) }?;
        self.memset_zeros(&mut s)?;
        Ok(s)
    }

    /// Zero-fills `dst` on this stream (`hipMemsetD8Async`).
    pub fn memset_zeros<T: DeviceRepr + ValidAsZeroBits, Dst: DevicePtrMut<T>>(
        self: &Arc<Self>,
        dst: &mut Dst,
    ) -> Result<(), DriverError> {
        self.same_device(dst.stream())?;
        let bytes = dst.num_bytes();
        if bytes == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread()?;
        let (p, _record) = dst.device_ptr_mut(self);
        // SAFETY: `p` holds `bytes` bytes of device memory of this device.
        unsafe { hip::result::memset_async(p as *mut c_void, 0, bytes, self.cu_stream()) }.drv()
    }

    /// An empty buffer (no allocation).
    pub fn null<T>(self: &Arc<Self>) -> Result<CudaSlice<T>, DriverError> {
        // SAFETY: a null address of zero elements owns nothing.
        Ok(unsafe { self.upgrade_device_ptr(0, 0) })
    }

    /// cudarc's older name of [`CudaStream::clone_htod`].
    #[deprecated = "Use clone_htod"]
    pub fn memcpy_stod<T: DeviceRepr, Src: HostSlice<T> + ?Sized>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<CudaSlice<T>, DriverError> {
        self.clone_htod(src)
    }

    /// cudarc's older name of [`CudaStream::clone_dtoh`].
    #[deprecated = "Use clone_dtoh"]
    pub fn memcpy_dtov<T: DeviceRepr, Src: DevicePtr<T>>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<Vec<T>, DriverError> {
        self.clone_dtoh(src)
    }

    /// A new buffer holding a copy of `src` (arrays, slices, `Vec`s, pinned).
    pub fn clone_htod<T: DeviceRepr, Src: HostSlice<T> + ?Sized>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<CudaSlice<T>, DriverError> {
        // SAFETY: fully written by the copy before any read.
        let mut dst = unsafe { self.alloc(src.len()) }?;
        self.memcpy_htod(src, &mut dst)?;
        Ok(dst)
    }

    /// Copies `src` into the start of `dst`; `dst` may be longer. A longer
    /// `src` is `CUDA_ERROR_INVALID_VALUE`.
    ///
    /// Pinned memory is copied asynchronously (`hipMemcpyHtoDAsync`). So is
    /// ordinary memory (a `Vec`, a slice, an array) below
    /// `hip::staging::MIN_BYTES` (4 MiB), as in cudarc. From there on,
    /// ordinary memory goes through `hip`'s staging, which moves it at
    /// near-pinned speed through reused pinned buffers, and the call
    /// returns when the copy is over; while the stream captures a graph it
    /// is one direct copy, as in cudarc.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), cuda_compat::driver::DriverError> {
    /// let ctx = cuda_compat::driver::CudaContext::new(0)?;
    /// let stream = ctx.default_stream();
    /// let host = vec![1.0f32; 64 << 20];
    /// let mut dev = stream.alloc_zeros::<f32>(host.len())?;
    /// stream.memcpy_htod(&host, &mut dev)?; // staged: 256 MiB of a Vec
    /// # Ok(())
    /// # }
    /// ```
    pub fn memcpy_htod<T: DeviceRepr, Src: HostSlice<T> + ?Sized, Dst: DevicePtrMut<T>>(
        self: &Arc<Self>,
        src: &Src,
        dst: &mut Dst,
    ) -> Result<(), DriverError> {
        if src.len() > dst.len() {
            return Err(invalid_because(&format!(
                "memcpy_htod: {} elements do not fit in a destination of {}",
                src.len(),
                dst.len()
            )));
        }
        self.begin_copy(dst.stream())?;
        // SAFETY: the slice is used only by the copy below, on this stream.
        let (src, record_src) = unsafe { src.stream_synced_slice(self) };
        let (dp, _record_dst) = dst.device_ptr_mut(self);
        let (host, bytes) = (HostMemory::Source(src.as_ptr().cast()), size_of_val(src));
        if self.stages(record_src.is_host_synchronous(), bytes)? {
            // SAFETY: as below; `dst`'s guard has ordered its earlier uses
            // before this stream's work, and the copy is over on return.
            return unsafe { self.staged_host_copy(host, dp, bytes) };
        }
        // SAFETY: `src` is readable for its bytes; `dp` holds at least as
        // many (checked above); the guards keep the host memory alive
        // (pinned: until its event says the copy is done; pageable: the
        // runtime has read it when the call returns).
        unsafe { self.enqueue_host_copy(host, dp, bytes) }
    }

    /// A new `Vec` holding a copy of `src`.
    pub fn clone_dtoh<T: DeviceRepr, Src: DevicePtr<T>>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<Vec<T>, DriverError> {
        let mut out: Vec<T> = Vec::with_capacity(src.len());
        self.copy_dtoh_raw(src, out.as_mut_ptr(), src.len())?;
        // SAFETY: the copy has finished (`copy_dtoh_raw` synchronizes) and
        // wrote all `len` elements of the Vec's capacity, which nothing else
        // refers to.
        unsafe { fix_read_back(out.as_mut_ptr(), src.len()) };
        // SAFETY: all `len` elements are written, and valid `T`s
        // (`DeviceRepr`'s contract, after `fix_read_back`).
        unsafe { out.set_len(src.len()) };
        Ok(out)
    }

    /// Copies `src` into `dst` (`hipMemcpyDtoHAsync`); lengths must match.
    /// Into ordinary memory of `hip::staging::MIN_BYTES` (4 MiB) or more,
    /// the copy goes through `hip`'s staging, as
    /// [`CudaStream::memcpy_htod`] says.
    pub fn memcpy_dtoh<T: DeviceRepr, Src: DevicePtr<T>, Dst: HostSlice<T> + ?Sized>(
        self: &Arc<Self>,
        src: &Src,
        dst: &mut Dst,
    ) -> Result<(), DriverError> {
        same_len("memcpy_dtoh", src.len(), dst.len())?;
        self.begin_copy(src.stream())?;
        // SAFETY: the slice is used only by the copy below, on this stream.
        let (dst, record_dst) = unsafe { dst.stream_synced_mut_slice(self) };
        let (sp, record_src) = src.device_ptr(self);
        let (dst_ptr, len) = (dst.as_mut_ptr(), dst.len());
        let bytes = size_of_val(dst);
        let host = HostMemory::Destination(dst_ptr.cast());
        if self.stages(record_dst.is_host_synchronous(), bytes)? {
            // SAFETY: as below; `src`'s guard has ordered its last write
            // before this stream's work, and the copy is over on return.
            unsafe { self.staged_host_copy(host, sp, bytes) }?;
        } else {
            // SAFETY: `dst` is writable for `bytes`, `sp` holds as many; the
            // guard synchronizes (pageable) or records the event (pinned).
            unsafe { self.enqueue_host_copy(host, sp, bytes) }?;
        }
        if T::read_back_fix().is_some() {
            drop((record_dst, record_src));
            // The fix reads what the copy wrote: wait for it even where the
            // destination is asynchronous (pinned).
            self.synchronize()?;
            // SAFETY: the copy into the `len` elements at `dst_ptr` has
            // finished; `dst` is still borrowed mutably by this call, and
            // nothing else refers to them.
            unsafe { fix_read_back(dst_ptr, len) };
        }
        Ok(())
    }

    fn copy_dtoh_raw<T: DeviceRepr, Src: DevicePtr<T>>(
        self: &Arc<Self>,
        src: &Src,
        dst: *mut T,
        len: usize,
    ) -> Result<(), DriverError> {
        self.same_device(src.stream())?;
        let bytes = len.checked_mul(size_of::<T>()).ok_or_else(invalid)?;
        if bytes == 0 {
            return Ok(());
        }
        self.ctx.bind_to_thread()?;
        let host = HostMemory::Destination(dst.cast());
        let staged = self.stages(true, bytes)?;
        {
            let (sp, _record_src) = src.device_ptr(self);
            if staged {
                // SAFETY: as below; `src`'s guard has ordered its last
                // write before this stream's work.
                return unsafe { self.staged_host_copy(host, sp, bytes) };
            }
            // SAFETY: `dst` is writable for `bytes` (the caller's capacity)
            // and `sp` holds `len` elements.
            unsafe { self.enqueue_host_copy(host, sp, bytes) }?;
        }
        self.synchronize()
    }

    /// Copies `src` into `dst` on this stream (`hipMemcpyDtoDAsync`);
    /// lengths must match; both on this stream's device.
    pub fn memcpy_dtod<T, Src: DevicePtr<T>, Dst: DevicePtrMut<T>>(
        self: &Arc<Self>,
        src: &Src,
        dst: &mut Dst,
    ) -> Result<(), DriverError> {
        same_len("memcpy_dtod", src.len(), dst.len())?;
        self.same_device(dst.stream())?;
        self.same_device(src.stream())?;
        self.ctx.bind_to_thread()?;
        let bytes = src.num_bytes();
        let (sp, _record_src) = src.device_ptr(self);
        let (dp, _record_dst) = dst.device_ptr_mut(self);
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: both hold `bytes` bytes of this device's memory.
        unsafe {
            hip::result::memcpy_async(
                dp as *mut c_void,
                sp as *const c_void,
                bytes,
                hs::hipMemcpyKind::hipMemcpyDeviceToDevice,
                self.cu_stream(),
            )
        }
        .drv()
    }

    /// A new buffer on this stream holding a copy of `src`, which may be on
    /// another device (a peer copy, `hipMemcpyPeerAsync`).
    pub fn clone_dtod<T: DeviceRepr, Src: DevicePtr<T>>(
        self: &Arc<Self>,
        src: &Src,
    ) -> Result<CudaSlice<T>, DriverError> {
        // SAFETY: fully written by the copy before any read.
        let mut dst = unsafe { self.alloc::<T>(src.len()) }?;
        if src.stream().ctx.ordinal == self.ctx.ordinal {
            self.memcpy_dtod(src, &mut dst)?;
            return Ok(dst);
        }
        let bytes = src.num_bytes();
        self.ctx.bind_to_thread()?;
        // The guards would record `src`'s event (of its device) on this
        // stream (of another): disarm them and synchronize instead, which
        // also ends the read of `src`.
        let (sp, record_src) = src.device_ptr(self);
        let (dp, record_dst) = dst.device_ptr_mut(self);
        disarm(record_src);
        disarm(record_dst);
        if bytes > 0 {
            // SAFETY: both hold `bytes` bytes on their devices.
            unsafe {
                hip::result::memcpy_peer_async(
                    dp as *mut c_void,
                    self.ctx.ordinal as i32,
                    sp as *const c_void,
                    src.stream().ctx.ordinal as i32,
                    bytes,
                    self.cu_stream(),
                )
            }
            .drv()?;
        }
        self.synchronize()?;
        dst.alloc.events().record_write(&self.stream).drv()?;
        Ok(dst)
    }
}

#[cfg(test)]
mod tests {
    use super::{exact_chunks, range};

    #[test]
    fn exact_chunks_cover_the_length_in_order() {
        let chunks: Vec<_> = exact_chunks(12, 4).collect();
        assert_eq!(chunks, [(0, 4), (4, 8), (8, 12)]);
        assert_eq!(exact_chunks(5, 5).collect::<Vec<_>>(), [(0, 5)]);
        assert_eq!(exact_chunks(6, 1).count(), 6);
        // An empty view has no chunks, whatever their size.
        assert_eq!(exact_chunks(0, 3).count(), 0);
    }

    #[test]
    #[should_panic(expected = "chunk size 4 does not divide a device view of length 10")]
    fn exact_chunks_with_a_remainder_panic() {
        let _ = exact_chunks(10, 4);
    }

    #[test]
    #[should_panic(expected = "chunk size must be non-zero")]
    fn exact_chunks_of_zero_panic() {
        let _ = exact_chunks(8, 0);
    }

    #[test]
    #[should_panic(expected = "chunk size must be non-zero")]
    fn exact_chunks_of_zero_panic_for_an_empty_view_too() {
        let _ = exact_chunks(0, 0);
    }

    #[test]
    fn split_points_are_the_slicing_bounds() {
        // `split_at(mid)` is `..mid` and `mid..`: both exist up to the end.
        for mid in 0..=7 {
            assert_eq!(range(..mid, 7), Some((0, mid)));
            assert_eq!(range(mid.., 7), Some((mid, 7)));
        }
        assert_eq!(range(..8, 7), None);
        assert_eq!(range(8.., 7), None);
    }
}
