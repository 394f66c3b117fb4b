//! Argument checks shared by every memory operation: byte sizes, ranges,
//! lengths and devices, all before any runtime call.

use crate::device::Device;
use crate::error::{Error, Result};
use std::ops::{Bound, Range, RangeBounds};

/// Size in bytes of `len` elements of `T`, or an error on overflow.
///
/// Zero-sized element types are rejected: device memory of them would be
/// empty whatever its length, which no runtime call can represent.
pub fn checked_bytes<T>(operation: &'static str, len: usize) -> Result<usize> {
    if size_of::<T>() == 0 {
        return Err(Error::invalid(
            operation,
            format!(
                "{} is zero-sized; buffers need elements of at least one byte",
                std::any::type_name::<T>()
            ),
        ));
    }
    len.checked_mul(size_of::<T>()).ok_or_else(|| {
        Error::invalid(
            operation,
            format!(
                "{len} elements of {} ({} bytes each) overflow usize",
                std::any::type_name::<T>(),
                size_of::<T>()
            ),
        )
    })
}

/// Resolves `range` against a buffer of `len` elements, rejecting ranges
/// that are reversed, overflow, or end past `len`.
pub fn check_range(
    operation: &'static str,
    len: usize,
    range: impl RangeBounds<usize>,
) -> Result<Range<usize>> {
    let start = match range.start_bound() {
        Bound::Included(&s) => Some(s),
        Bound::Excluded(&s) => s.checked_add(1),
        Bound::Unbounded => Some(0),
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e.checked_add(1),
        Bound::Excluded(&e) => Some(e),
        Bound::Unbounded => Some(len),
    };
    match (start, end) {
        (Some(s), Some(e)) if s <= e && e <= len => Ok(s..e),
        _ => Err(Error::invalid(
            operation,
            format!(
                "range {:?}..{:?} is not within 0..{len}",
                range.start_bound(),
                range.end_bound()
            ),
        )),
    }
}

/// Rejects copies between different lengths.
pub fn check_same_len(operation: &'static str, src: usize, dst: usize) -> Result<()> {
    if src == dst {
        Ok(())
    } else {
        Err(Error::invalid(
            operation,
            format!("source has {src} elements but destination has {dst}"),
        ))
    }
}

pub(crate) fn check_device(
    operation: &'static str,
    what: &str,
    expected: &Device,
    got: &Device,
) -> Result<()> {
    if expected.ordinal() == got.ordinal() {
        Ok(())
    } else {
        Err(Error::invalid(
            operation,
            format!(
                "{what} is on device {} but the stream is on device {}",
                got.ordinal(),
                expected.ordinal()
            ),
        ))
    }
}
