//! The host side of a copy: [`HostMemory`] (read from) and
//! [`HostMemoryMut`] (written to), implemented for ordinary memory (slices,
//! arrays, `Vec`s) and for [`PinnedHostBuffer`].
//!
//! The copies ([`Stream::copy_htod`](crate::Stream::copy_htod),
//! [`Stream::copy_dtoh`](crate::Stream::copy_dtoh)) take either and choose
//! the path from the kind of memory: a pinned buffer is copied
//! asynchronously and tracks the copy; ordinary memory is copied before
//! the call returns, staged through reused pinned buffers when large
//! ([`crate::staging`]).

use super::{DeviceRepr, PinnedHostBuffer};

pub(crate) mod sealed {
    use super::{DeviceRepr, PinnedHostBuffer};

    /// Which kind of host memory a copy reads.
    pub enum Source<'a, T: DeviceRepr> {
        /// Ordinary (pageable) memory: the copy waits.
        Pageable(&'a [T]),
        /// Page-locked memory that tracks the copy: the copy is
        /// asynchronous.
        Pinned(&'a PinnedHostBuffer<T>),
    }

    /// Which kind of host memory a copy writes.
    pub enum Sink<'a, T: DeviceRepr> {
        /// Ordinary (pageable) memory: the copy waits.
        Pageable(&'a mut [T]),
        /// Page-locked memory that tracks the copy: the copy is
        /// asynchronous.
        Pinned(&'a mut PinnedHostBuffer<T>),
    }

    impl<T: DeviceRepr> std::fmt::Debug for Source<'_, T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                Source::Pageable(s) => write!(f, "Pageable({} elements)", s.len()),
                Source::Pinned(p) => write!(f, "Pinned({p:?})"),
            }
        }
    }

    impl<T: DeviceRepr> std::fmt::Debug for Sink<'_, T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                Sink::Pageable(s) => write!(f, "Pageable({} elements)", s.len()),
                Sink::Pinned(p) => write!(f, "Pinned({p:?})"),
            }
        }
    }

    /// Keeps [`HostMemory`](super::HostMemory) to the types below, and
    /// says which path each takes.
    pub trait Host<T: DeviceRepr> {
        /// The memory as a copy reads it.
        fn source(&self) -> Source<'_, T>;
        /// Its number of elements.
        fn host_len(&self) -> usize;
    }

    /// As [`Host`], for the memory a copy writes.
    pub trait HostMut<T: DeviceRepr>: Host<T> {
        /// The memory as a copy writes it.
        fn sink(&mut self) -> Sink<'_, T>;
    }
}

use sealed::{Host, HostMut, Sink, Source};

/// Host memory a copy to the device reads: `[T]`, `[T; N]`, `Vec<T>` and
/// [`PinnedHostBuffer<T>`]. Sealed.
///
/// From a [`PinnedHostBuffer`] a copy is asynchronous (the buffer waits for
/// it before a host write or its drop); from ordinary memory the copy is
/// over when the call returns.
pub trait HostMemory<T: DeviceRepr>: Host<T> {
    /// Number of elements.
    fn len(&self) -> usize {
        self.host_len()
    }

    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.host_len() == 0
    }
}

/// Host memory a copy from the device writes: `[T]`, `[T; N]`, `Vec<T>`
/// (its current elements) and [`PinnedHostBuffer<T>`]. Sealed.
///
/// Into a [`PinnedHostBuffer`] a copy is asynchronous (reading the buffer
/// waits for it); into ordinary memory the copy is over when the call
/// returns.
pub trait HostMemoryMut<T: DeviceRepr>: HostMemory<T> + HostMut<T> {}

impl<T: DeviceRepr> Host<T> for [T] {
    fn source(&self) -> Source<'_, T> {
        Source::Pageable(self)
    }
    fn host_len(&self) -> usize {
        <[T]>::len(self)
    }
}

impl<T: DeviceRepr> HostMut<T> for [T] {
    fn sink(&mut self) -> Sink<'_, T> {
        Sink::Pageable(self)
    }
}

impl<T: DeviceRepr, const N: usize> Host<T> for [T; N] {
    fn source(&self) -> Source<'_, T> {
        Source::Pageable(self)
    }
    fn host_len(&self) -> usize {
        N
    }
}

impl<T: DeviceRepr, const N: usize> HostMut<T> for [T; N] {
    fn sink(&mut self) -> Sink<'_, T> {
        Sink::Pageable(self)
    }
}

impl<T: DeviceRepr> Host<T> for Vec<T> {
    fn source(&self) -> Source<'_, T> {
        Source::Pageable(self)
    }
    fn host_len(&self) -> usize {
        Vec::len(self)
    }
}

impl<T: DeviceRepr> HostMut<T> for Vec<T> {
    fn sink(&mut self) -> Sink<'_, T> {
        Sink::Pageable(self)
    }
}

impl<T: DeviceRepr> Host<T> for PinnedHostBuffer<T> {
    fn source(&self) -> Source<'_, T> {
        Source::Pinned(self)
    }
    fn host_len(&self) -> usize {
        self.len
    }
}

impl<T: DeviceRepr> HostMut<T> for PinnedHostBuffer<T> {
    fn sink(&mut self) -> Sink<'_, T> {
        Sink::Pinned(self)
    }
}

impl<T: DeviceRepr> HostMemory<T> for [T] {}
impl<T: DeviceRepr, const N: usize> HostMemory<T> for [T; N] {}
impl<T: DeviceRepr> HostMemory<T> for Vec<T> {}
impl<T: DeviceRepr> HostMemory<T> for PinnedHostBuffer<T> {}
impl<T: DeviceRepr> HostMemoryMut<T> for [T] {}
impl<T: DeviceRepr, const N: usize> HostMemoryMut<T> for [T; N] {}
impl<T: DeviceRepr> HostMemoryMut<T> for Vec<T> {}
impl<T: DeviceRepr> HostMemoryMut<T> for PinnedHostBuffer<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind<T: DeviceRepr, H: HostMemory<T> + ?Sized>(h: &H) -> (&'static str, usize) {
        match h.source() {
            Source::Pageable(s) => ("pageable", s.len()),
            Source::Pinned(p) => ("pinned", p.len()),
        }
    }

    #[test]
    fn ordinary_memory_takes_the_pageable_path_with_its_length() {
        let v = vec![1.0f32, 2.0, 3.0];
        assert_eq!(kind(&v), ("pageable", 3));
        assert_eq!(kind(&v[1..]), ("pageable", 2));
        assert_eq!(kind(&[7u8; 5]), ("pageable", 5));
        assert_eq!(HostMemory::len(&v), 3);
        assert!(HostMemory::<u8>::is_empty(&[0u8; 0]));

        let mut w = vec![0i32; 4];
        match w.sink() {
            Sink::Pageable(s) => {
                s[3] = 9;
                assert_eq!(s.len(), 4);
            }
            Sink::Pinned(_) => panic!("a Vec is not pinned"),
        }
        assert_eq!(w[3], 9);
    }
}
