//! cudarc's safe NVTX API: [`mark`], [`scoped_range`], the [`Event`]
//! builder and the [`Range`] guard, over roctx.
//!
//! Categories, colors and payloads are accepted and dropped (roctx has
//! none); the message is kept. Nothing panics: a NUL byte cuts the message
//! (cudarc panics), and without a roctx or NVTX library (CUDA 13 has no
//! `libnvToolsExt`, where cudarc panics) every call does nothing.

use super::{result, sys};
use std::ffi::CString;

/// Starts a range that ends when the returned [`Range`] is
/// dropped. Short for `Event::message(msg).range()`.
pub fn scoped_range<S: AsRef<str>>(msg: S) -> Range {
    Event::message(msg).range()
}

/// Marks an instant. Short for `Event::message(msg).mark()`.
pub fn mark<S: AsRef<str>>(msg: S) {
    Event::message(msg).mark()
}

/// An annotation being built: [`Event::message`], then optionally
/// [`Event::category`], [`Event::argb`], [`Event::payload`], finished by
/// [`Event::mark`] or [`Event::range`].
#[derive(Debug)]
pub struct Event {
    category: Option<u32>,
    argb: Option<u32>,
    payload: Option<Payload>,
    message: CString,
}

impl Event {
    /// An event with `message` (cut at a NUL byte, where cudarc panics).
    pub fn message<S: AsRef<str>>(message: S) -> Self {
        Self {
            category: None,
            argb: None,
            payload: None,
            message: result::c_string(message.as_ref()),
        }
    }

    /// Sets the category (name it with [`name_category`]).
    pub fn category(&mut self, category: u32) -> &mut Self {
        self.category = Some(category);
        self
    }

    /// Sets the color, ARGB (red is `0xffff0000`).
    pub fn argb(&mut self, argb: u32) -> &mut Self {
        self.argb = Some(argb);
        self
    }

    /// Sets the payload, e.g. `Payload::I32(42)`.
    pub fn payload(&mut self, payload: Payload) -> &mut Self {
        self.payload = Some(payload);
        self
    }

    /// The attributes NVTX's `Ex` calls take, pointing at this event's
    /// message (valid while `self` lives).
    fn attributes(&self) -> sys::nvtxEventAttributes_t {
        sys::nvtxEventAttributes_t {
            version: self.cu_version(),
            size: self.cu_size(),
            category: self.cu_category(),
            colorType: self.cu_color_type(),
            color: self.cu_color_value(),
            payloadType: self.cu_payload_type(),
            reserved0: 0,
            payload: self.cu_payload_value(),
            messageType: sys::nvtxMessageType_t::NVTX_MESSAGE_TYPE_ASCII as u32 as i32,
            message: sys::nvtxMessageValue_t {
                ascii: self.message.as_ptr(),
            },
        }
    }

    /// Marks an instant.
    pub fn mark(self) {
        result::mark_ex(&self.attributes())
    }

    /// Starts a range now; it ends when the returned [`Range`] is dropped.
    pub fn range(self) -> Range {
        Range {
            id: result::range_start_ex(&self.attributes()),
        }
    }

    /// `nvtxColorType_t` of the color, as NVTX's struct stores it.
    pub fn cu_color_type(&self) -> i32 {
        let t = match self.argb {
            None => sys::nvtxColorType_t::NVTX_COLOR_UNKNOWN,
            Some(_) => sys::nvtxColorType_t::NVTX_COLOR_ARGB,
        };
        t as u32 as i32
    }

    /// The color, 0 when unset.
    pub fn cu_color_value(&self) -> u32 {
        self.argb.unwrap_or(0)
    }

    /// `nvtxPayloadType_t` of the payload, as NVTX's struct stores it.
    pub fn cu_payload_type(&self) -> i32 {
        use sys::nvtxPayloadType_t as T;
        let t = match self.payload {
            None => T::NVTX_PAYLOAD_UNKNOWN,
            Some(Payload::I32(_)) => T::NVTX_PAYLOAD_TYPE_INT32,
            Some(Payload::Int64(_)) => T::NVTX_PAYLOAD_TYPE_INT64,
            Some(Payload::U32(_)) => T::NVTX_PAYLOAD_TYPE_UNSIGNED_INT32,
            Some(Payload::U64(_)) => T::NVTX_PAYLOAD_TYPE_UNSIGNED_INT64,
            Some(Payload::F32(_)) => T::NVTX_PAYLOAD_TYPE_FLOAT,
            Some(Payload::F64(_)) => T::NVTX_PAYLOAD_TYPE_DOUBLE,
        };
        t as u32 as i32
    }

    /// The payload as NVTX's union.
    pub fn cu_payload_value(&self) -> sys::nvtxEventAttributes_v2_payload_t {
        use sys::nvtxEventAttributes_v2_payload_t as P;
        match self.payload {
            None => P { iValue: 0 },
            Some(Payload::I32(v)) => P { iValue: v },
            Some(Payload::Int64(v)) => P { llValue: v },
            Some(Payload::U32(v)) => P { uiValue: v },
            Some(Payload::U64(v)) => P { ullValue: v },
            Some(Payload::F32(v)) => P { fValue: v },
            Some(Payload::F64(v)) => P { dValue: v },
        }
    }

    /// The category, 0 when unset.
    pub fn cu_category(&self) -> u32 {
        self.category.unwrap_or(0)
    }

    /// NVTX's attribute version, 3.
    pub fn cu_version(&self) -> u16 {
        3
    }

    /// The size of NVTX's attribute struct (48).
    pub fn cu_size(&self) -> u16 {
        size_of::<sys::nvtxEventAttributes_t>() as u16
    }
}

/// Names a category (a no-op here: roctx has no categories).
pub fn name_category<S: AsRef<str>>(category: u32, name: S) {
    result::name_category(category, name);
}

/// A value attached to an [`Event`] (dropped here: roctx has no payloads).
#[derive(Debug, Copy, Clone)]
pub enum Payload {
    /// A 32-bit signed integer.
    I32(i32),
    /// A 64-bit signed integer.
    Int64(i64),
    /// A 32-bit unsigned integer.
    U32(u32),
    /// A 64-bit unsigned integer.
    U64(u64),
    /// A 32-bit float.
    F32(f32),
    /// A 64-bit float.
    F64(f64),
}

/// A started range, ended when dropped (also while a panic unwinds).
#[derive(Debug)]
pub struct Range {
    id: u64,
}

impl Drop for Range {
    fn drop(&mut self) {
        // SAFETY: `id` came from the start of this range, ended once here.
        unsafe { result::range_end(self.id) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_carry_the_message_and_nvtx_layout() {
        let mut e = Event::message("step");
        e.category(2).argb(0xffff0000).payload(Payload::F64(1.5));
        let a = e.attributes();
        assert_eq!(
            (a.version, a.size, a.category, a.color),
            (3, 48, 2, 0xffff0000)
        );
        assert_eq!(a.colorType, 1);
        assert_eq!(a.payloadType, 3);
        // SAFETY: the payload type says `dValue`.
        assert_eq!(unsafe { a.payload.dValue }, 1.5);
        // SAFETY: the message type says ASCII, pointing into `e`.
        let m = unsafe { std::ffi::CStr::from_ptr(a.message.ascii) };
        assert_eq!(m.to_str().unwrap(), "step");
        assert_eq!(Event::message("x").cu_payload_type(), 0);
        assert_eq!(Event::message("x").cu_color_type(), 0);
    }

    #[test]
    fn nothing_panics_without_a_library_or_with_nul_bytes() {
        mark("no\0panic");
        name_category(1, "cat");
        let r = scoped_range("outer");
        Event::message("inner").range();
        drop(r);
    }
}
