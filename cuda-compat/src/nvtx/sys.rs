//! NVTX's C names (`nvToolsExt.h`, NVTX 3) over roctx, at cudarc's path
//! `cudarc::nvtx::sys`.
//!
//! Written by hand: hipify-perl maps no NVTX name. Every call goes to
//! roctx-sys, which on NVIDIA is NVTX itself (`libnvtx3interop.so.1`) and
//! on AMD `libroctx64.so.4`; without either, every call does nothing. What
//! roctx cannot express is dropped, never an error:
//!
//! | NVTX | here |
//! | --- | --- |
//! | `nvtxMarkA/W/Ex`, `nvtxRangePushA/W/Ex`, `nvtxRangeStartA/W/Ex`, `nvtxRangePop`, `nvtxRangeEnd` | `roctxMarkA`, `roctxRangePushA`, `roctxRangeStartA`, `roctxRangePop`, `roctxRangeStop` with the message (wide messages converted to UTF-8) |
//! | the `Ex` attributes' category, color and payload | dropped (roctx has none) |
//! | `nvtxDomain*` | the same calls without a domain (roctx has one); `nvtxDomainCreateA/W` returns a non-null handle that `nvtxDomainDestroy` frees |
//! | `nvtxDomainRegisterStringA/W` | an owned copy of the string, read back by `Ex` calls with `NVTX_MESSAGE_TYPE_REGISTERED` (kept for the process, as NVTX keeps them) |
//! | `nvtxNameCategoryA/W`, `nvtxDomainNameCategoryA/W`, `nvtxNameOsThreadA/W`, `nvtxDomainResourceCreate/Destroy` | no-ops (a null resource handle) |
//!
//! Unlike real cudarc on CUDA 13 (which ships no `libnvToolsExt`), nothing
//! here panics when the library is missing.

// C's names; unions (and the structs holding them) cannot derive `Debug`,
// as bindgen's output for them does not either.
#![allow(non_camel_case_types, non_snake_case, missing_debug_implementations)]

use std::borrow::Cow;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

culib_present!(
    "roctx (NVTX itself on NVIDIA)",
    roctx_sys::loader::is_available()
);

/// C's `wchar_t` on Linux: a 32-bit code unit (UTF-32), as cudarc has it.
#[cfg(not(windows))]
pub type wchar_t = c_int;
/// C's `wchar_t` on Windows: a 16-bit code unit (UTF-16).
#[cfg(windows)]
pub type wchar_t = u16;
/// A range handed out by `nvtxRangeStart*`.
pub type nvtxRangeId_t = u64;

/// What an `nvtxDomainCreate*` handle points to (opaque).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct nvtxDomainRegistration_st {
    _unused: [u8; 0],
}
/// NVTX's name for the domain registration.
pub type nvtxDomainRegistration = nvtxDomainRegistration_st;
/// A domain (here: the domain's name, owned until `nvtxDomainDestroy`).
pub type nvtxDomainHandle_t = *mut nvtxDomainRegistration;

/// What an `nvtxDomainRegisterString*` handle points to (opaque).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct nvtxStringRegistration_st {
    _unused: [u8; 0],
}
/// NVTX's name for the string registration.
pub type nvtxStringRegistration = nvtxStringRegistration_st;
/// A registered string (here: an owned C string kept for the process).
pub type nvtxStringHandle_t = *mut nvtxStringRegistration;

/// What an `nvtxDomainResourceCreate` handle points to (opaque).
#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct nvtxResourceHandle {
    _unused: [u8; 0],
}
/// A resource (always null here).
pub type nvtxResourceHandle_t = *mut nvtxResourceHandle;

/// Whether an event's color is set.
#[repr(u32)]
#[derive(Debug, Copy, Clone, Hash, PartialOrd, Ord, PartialEq, Eq)]
pub enum nvtxColorType_t {
    /// No color.
    NVTX_COLOR_UNKNOWN = 0,
    /// `color` is ARGB.
    NVTX_COLOR_ARGB = 1,
}

/// Which member of [`nvtxMessageValue_t`] holds the message.
#[repr(u32)]
#[derive(Debug, Copy, Clone, Hash, PartialOrd, Ord, PartialEq, Eq)]
pub enum nvtxMessageType_t {
    /// No message.
    NVTX_MESSAGE_UNKNOWN = 0,
    /// `ascii`: a C string.
    NVTX_MESSAGE_TYPE_ASCII = 1,
    /// `unicode`: a `wchar_t` string.
    NVTX_MESSAGE_TYPE_UNICODE = 2,
    /// `registered`: a handle from `nvtxDomainRegisterString*`.
    NVTX_MESSAGE_TYPE_REGISTERED = 3,
}

/// What a resource's identifier is ([`nvtxResourceAttributes_v0`]'s
/// `identifierType`, for `nvtxDomainResourceCreate`, a no-op here).
#[repr(u32)]
#[derive(Debug, Copy, Clone, Hash, PartialOrd, Ord, PartialEq, Eq)]
pub enum nvtxResourceGenericType_t {
    /// Not given.
    NVTX_RESOURCE_TYPE_UNKNOWN = 0,
    /// A pointer.
    NVTX_RESOURCE_TYPE_GENERIC_POINTER = 0x10001,
    /// An opaque handle.
    NVTX_RESOURCE_TYPE_GENERIC_HANDLE = 0x10002,
    /// A native thread id.
    NVTX_RESOURCE_TYPE_GENERIC_THREAD_NATIVE = 0x10003,
    /// A POSIX thread id.
    NVTX_RESOURCE_TYPE_GENERIC_THREAD_POSIX = 0x10004,
}

/// Which member of the payload union is set.
#[repr(u32)]
#[derive(Debug, Copy, Clone, Hash, PartialOrd, Ord, PartialEq, Eq)]
pub enum nvtxPayloadType_t {
    /// No payload.
    NVTX_PAYLOAD_UNKNOWN = 0,
    /// `ullValue`.
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
    /// `llValue`.
    NVTX_PAYLOAD_TYPE_INT64 = 2,
    /// `dValue`.
    NVTX_PAYLOAD_TYPE_DOUBLE = 3,
    /// `uiValue`.
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
    /// `iValue`.
    NVTX_PAYLOAD_TYPE_INT32 = 5,
    /// `fValue`.
    NVTX_PAYLOAD_TYPE_FLOAT = 6,
}

/// An event's payload.
#[repr(C)]
#[derive(Copy, Clone)]
pub union nvtxEventAttributes_v2_payload_t {
    /// `NVTX_PAYLOAD_TYPE_UNSIGNED_INT64`.
    pub ullValue: u64,
    /// `NVTX_PAYLOAD_TYPE_INT64`.
    pub llValue: i64,
    /// `NVTX_PAYLOAD_TYPE_DOUBLE`.
    pub dValue: f64,
    /// `NVTX_PAYLOAD_TYPE_UNSIGNED_INT32`.
    pub uiValue: u32,
    /// `NVTX_PAYLOAD_TYPE_INT32`.
    pub iValue: i32,
    /// `NVTX_PAYLOAD_TYPE_FLOAT`.
    pub fValue: f32,
}

/// An event's message.
#[repr(C)]
#[derive(Copy, Clone)]
pub union nvtxMessageValue_t {
    /// `NVTX_MESSAGE_TYPE_ASCII`.
    pub ascii: *const c_char,
    /// `NVTX_MESSAGE_TYPE_UNICODE`.
    pub unicode: *const wchar_t,
    /// `NVTX_MESSAGE_TYPE_REGISTERED`.
    pub registered: nvtxStringHandle_t,
}

/// An event's attributes (NVTX's version 2 layout, 48 bytes).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct nvtxEventAttributes_v2 {
    /// `NVTX_VERSION` (3).
    pub version: u16,
    /// `size_of::<nvtxEventAttributes_t>()`.
    pub size: u16,
    /// The category (dropped here).
    pub category: u32,
    /// An [`nvtxColorType_t`] (dropped here).
    pub colorType: i32,
    /// The color (dropped here).
    pub color: u32,
    /// An [`nvtxPayloadType_t`] (dropped here).
    pub payloadType: i32,
    /// Zero.
    pub reserved0: i32,
    /// The payload (dropped here).
    pub payload: nvtxEventAttributes_v2_payload_t,
    /// An [`nvtxMessageType_t`]: which member of `message` is read.
    pub messageType: i32,
    /// The message.
    pub message: nvtxMessageValue_t,
}
/// NVTX's name for the current attribute layout.
pub type nvtxEventAttributes_t = nvtxEventAttributes_v2;

/// A resource's identifier.
#[repr(C)]
#[derive(Copy, Clone)]
pub union nvtxResourceAttributes_v0_identifier_t {
    /// A pointer identifier.
    pub pValue: *const c_void,
    /// A numeric identifier.
    pub ullValue: u64,
}

/// A resource's attributes (accepted and ignored here).
#[repr(C)]
#[derive(Copy, Clone)]
pub struct nvtxResourceAttributes_v0 {
    /// `NVTX_VERSION`.
    pub version: u16,
    /// The struct's size.
    pub size: u16,
    /// The identifier's type.
    pub identifierType: i32,
    /// The identifier.
    pub identifier: nvtxResourceAttributes_v0_identifier_t,
    /// An [`nvtxMessageType_t`].
    pub messageType: i32,
    /// The resource's name.
    pub message: nvtxMessageValue_t,
}
/// NVTX's name for the current resource layout.
pub type nvtxResourceAttributes_t = nvtxResourceAttributes_v0;

const _: () = assert!(size_of::<nvtxEventAttributes_t>() == 48);
const _: () = assert!(core::mem::offset_of!(nvtxEventAttributes_t, payload) == 24);
const _: () = assert!(core::mem::offset_of!(nvtxEventAttributes_t, message) == 40);

/// A `wchar_t` string (NUL-terminated; UTF-32 on Linux, UTF-16 on
/// Windows) as a C string: invalid code points become U+FFFD, and the
/// result stops at the first NUL.
///
/// # Safety
/// `s` is null or a NUL-terminated `wchar_t` string.
unsafe fn wide(s: *const wchar_t) -> CString {
    let mut units = Vec::new();
    if !s.is_null() {
        let mut i = 0;
        loop {
            // SAFETY: the caller's string is NUL-terminated, and `i` stops
            // at that NUL.
            let unit = unsafe { *s.add(i) };
            if unit == 0 {
                break;
            }
            units.push(unit);
            i += 1;
        }
    }
    #[cfg(not(windows))]
    let text: String = units
        .iter()
        .map(|&u| char::from_u32(u as u32).unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    #[cfg(windows)]
    let text = String::from_utf16_lossy(&units);
    // `text` holds no NUL: the loop stopped at the first one.
    CString::new(text).unwrap_or_default()
}

/// The message of an `Ex` call, or `None` without attributes (also read
/// by [`super::result`]'s `Ex` functions).
///
/// # Safety
/// `attrib` is null or valid, and its message is what its type says.
pub(crate) unsafe fn message<'a>(attrib: *const nvtxEventAttributes_t) -> Option<Cow<'a, CStr>> {
    // SAFETY: the caller's pointer is null or valid.
    let attrib = unsafe { attrib.as_ref() }?;
    let kind = attrib.messageType as u32;
    // SAFETY: `messageType` says which member is set (each branch reads
    // only that one), and the caller guarantees it holds a valid string or
    // handle that outlives the call.
    unsafe {
        if kind == nvtxMessageType_t::NVTX_MESSAGE_TYPE_ASCII as u32 {
            let p = attrib.message.ascii;
            (!p.is_null()).then(|| Cow::Borrowed(CStr::from_ptr(p)))
        } else if kind == nvtxMessageType_t::NVTX_MESSAGE_TYPE_UNICODE as u32 {
            Some(Cow::Owned(wide(attrib.message.unicode)))
        } else if kind == nvtxMessageType_t::NVTX_MESSAGE_TYPE_REGISTERED as u32 {
            let p = attrib.message.registered as *const c_char;
            (!p.is_null()).then(|| Cow::Borrowed(CStr::from_ptr(p)))
        } else {
            Some(Cow::Borrowed(c""))
        }
    }
}

/// A leaked copy of `s`, as the handle of a domain or registered string.
fn leak(s: CString) -> *mut c_char {
    s.into_raw()
}

/// A domain holding `name`: the handle `nvtxDomainCreate*` returns (also
/// made by [`super::result::domain_create`]), freed by [`free_domain`].
pub(crate) fn new_domain(name: CString) -> nvtxDomainHandle_t {
    leak(name).cast()
}

/// Frees a domain of [`new_domain`]; null is ignored.
///
/// # Safety
/// `domain` is null or a handle of [`new_domain`] not yet freed.
pub(crate) unsafe fn free_domain(domain: nvtxDomainHandle_t) {
    if !domain.is_null() {
        // SAFETY: made by `CString::into_raw` in `new_domain` and not
        // freed before (the caller's contract).
        drop(unsafe { CString::from_raw(domain.cast()) });
    }
}

/// Creates a domain: here a copy of its name (roctx has a single domain).
///
/// # Safety
/// `name` is null or a NUL-terminated string.
pub unsafe fn nvtxDomainCreateA(name: *const c_char) -> nvtxDomainHandle_t {
    let name = if name.is_null() {
        CString::default()
    } else {
        // SAFETY: non-null and NUL-terminated (the caller's contract).
        unsafe { CStr::from_ptr(name) }.to_owned()
    };
    new_domain(name)
}

/// [`nvtxDomainCreateA`] with a wide name.
///
/// # Safety
/// `name` is null or a NUL-terminated `wchar_t` string.
pub unsafe fn nvtxDomainCreateW(name: *const wchar_t) -> nvtxDomainHandle_t {
    // SAFETY: the caller's contract.
    new_domain(unsafe { wide(name) })
}

/// Frees a domain made by `nvtxDomainCreate*`.
///
/// # Safety
/// `domain` is null or a handle from `nvtxDomainCreate*` not yet destroyed.
pub unsafe fn nvtxDomainDestroy(domain: nvtxDomainHandle_t) {
    // SAFETY: the caller's contract (`nvtxDomainCreate*` calls
    // `new_domain`).
    unsafe { free_domain(domain) }
}

/// [`nvtxMarkEx`]; the domain is not used.
///
/// # Safety
/// As [`nvtxMarkEx`].
pub unsafe fn nvtxDomainMarkEx(
    _domain: nvtxDomainHandle_t,
    eventAttrib: *const nvtxEventAttributes_t,
) {
    // SAFETY: the caller's contract.
    unsafe { nvtxMarkEx(eventAttrib) }
}

/// A no-op: roctx has no categories.
///
/// # Safety
/// None beyond NVTX's: nothing is read.
pub unsafe fn nvtxDomainNameCategoryA(
    _domain: nvtxDomainHandle_t,
    _category: u32,
    _name: *const c_char,
) {
}

/// A no-op: roctx has no categories.
///
/// # Safety
/// None beyond NVTX's: nothing is read.
pub unsafe fn nvtxDomainNameCategoryW(
    _domain: nvtxDomainHandle_t,
    _category: u32,
    _name: *const wchar_t,
) {
}

/// [`nvtxRangeEnd`]; the domain is not used.
///
/// # Safety
/// None beyond NVTX's: the id is passed by value.
pub unsafe fn nvtxDomainRangeEnd(_domain: nvtxDomainHandle_t, id: nvtxRangeId_t) {
    // SAFETY: the id is passed by value.
    unsafe { nvtxRangeEnd(id) }
}

/// [`nvtxRangePop`]; the domain is not used.
///
/// # Safety
/// None beyond NVTX's.
pub unsafe fn nvtxDomainRangePop(_domain: nvtxDomainHandle_t) -> c_int {
    // SAFETY: no arguments.
    unsafe { nvtxRangePop() }
}

/// [`nvtxRangePushEx`]; the domain is not used.
///
/// # Safety
/// As [`nvtxRangePushEx`].
pub unsafe fn nvtxDomainRangePushEx(
    _domain: nvtxDomainHandle_t,
    eventAttrib: *const nvtxEventAttributes_t,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { nvtxRangePushEx(eventAttrib) }
}

/// [`nvtxRangeStartEx`]; the domain is not used.
///
/// # Safety
/// As [`nvtxRangeStartEx`].
pub unsafe fn nvtxDomainRangeStartEx(
    _domain: nvtxDomainHandle_t,
    eventAttrib: *const nvtxEventAttributes_t,
) -> nvtxRangeId_t {
    // SAFETY: the caller's contract.
    unsafe { nvtxRangeStartEx(eventAttrib) }
}

/// Registers a string: an owned copy, kept for the process (as NVTX keeps
/// registered strings), read back by `Ex` calls.
///
/// # Safety
/// `string` is null or a NUL-terminated string.
pub unsafe fn nvtxDomainRegisterStringA(
    _domain: nvtxDomainHandle_t,
    string: *const c_char,
) -> nvtxStringHandle_t {
    if string.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: non-null and NUL-terminated (the caller's contract).
    leak(unsafe { CStr::from_ptr(string) }.to_owned()).cast()
}

/// [`nvtxDomainRegisterStringA`] with a wide string.
///
/// # Safety
/// `string` is null or a NUL-terminated `wchar_t` string.
pub unsafe fn nvtxDomainRegisterStringW(
    _domain: nvtxDomainHandle_t,
    string: *const wchar_t,
) -> nvtxStringHandle_t {
    if string.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the caller's contract.
    leak(unsafe { wide(string) }).cast()
}

/// A no-op returning null: roctx has no resources.
///
/// # Safety
/// None beyond NVTX's: nothing is read.
pub unsafe fn nvtxDomainResourceCreate(
    _domain: nvtxDomainHandle_t,
    _attribs: *mut nvtxResourceAttributes_t,
) -> nvtxResourceHandle_t {
    std::ptr::null_mut()
}

/// A no-op: roctx has no resources.
///
/// # Safety
/// None beyond NVTX's: nothing is read.
pub unsafe fn nvtxDomainResourceDestroy(_resource: nvtxResourceHandle_t) {}

/// Marks an instant (`roctxMarkA`).
///
/// # Safety
/// `message` is a NUL-terminated string.
pub unsafe fn nvtxMarkA(message: *const c_char) {
    // SAFETY: the caller's contract.
    unsafe { roctx_sys::roctxMarkA(message) }
}

/// Marks an instant with the attributes' message (`roctxMarkA`).
///
/// # Safety
/// `eventAttrib` is null or valid, its message what its type says.
pub unsafe fn nvtxMarkEx(eventAttrib: *const nvtxEventAttributes_t) {
    // SAFETY: the caller's contract.
    if let Some(m) = unsafe { message(eventAttrib) } {
        // SAFETY: `m` is NUL-terminated and outlives the call.
        unsafe { roctx_sys::roctxMarkA(m.as_ptr()) }
    }
}

/// [`nvtxMarkA`] with a wide message.
///
/// # Safety
/// `message` is null or a NUL-terminated `wchar_t` string.
pub unsafe fn nvtxMarkW(message: *const wchar_t) {
    // SAFETY: the caller's contract.
    let m = unsafe { wide(message) };
    // SAFETY: `m` is NUL-terminated and outlives the call.
    unsafe { roctx_sys::roctxMarkA(m.as_ptr()) }
}

/// A no-op: roctx has no categories.
///
/// # Safety
/// None beyond NVTX's: nothing is read.
pub unsafe fn nvtxNameCategoryA(_category: u32, _name: *const c_char) {}

/// A no-op: roctx has no categories.
///
/// # Safety
/// None beyond NVTX's: nothing is read.
pub unsafe fn nvtxNameCategoryW(_category: u32, _name: *const wchar_t) {}

/// A no-op: roctx does not name threads.
///
/// # Safety
/// None beyond NVTX's: nothing is read.
pub unsafe fn nvtxNameOsThreadA(_threadId: u32, _name: *const c_char) {}

/// A no-op: roctx does not name threads.
///
/// # Safety
/// None beyond NVTX's: nothing is read.
pub unsafe fn nvtxNameOsThreadW(_threadId: u32, _name: *const wchar_t) {}

/// Ends a range from `nvtxRangeStart*` (`roctxRangeStop`).
///
/// # Safety
/// None beyond NVTX's: the id is passed by value.
pub unsafe fn nvtxRangeEnd(id: nvtxRangeId_t) {
    // SAFETY: the id is passed by value.
    unsafe { roctx_sys::roctxRangeStop(id) }
}

/// Pops this thread's innermost range (`roctxRangePop`).
///
/// # Safety
/// None beyond NVTX's.
pub unsafe fn nvtxRangePop() -> c_int {
    // SAFETY: no arguments.
    unsafe { roctx_sys::roctxRangePop() }
}

/// Pushes a range on this thread (`roctxRangePushA`).
///
/// # Safety
/// `message` is a NUL-terminated string.
pub unsafe fn nvtxRangePushA(message: *const c_char) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { roctx_sys::roctxRangePushA(message) }
}

/// Pushes a range with the attributes' message (`roctxRangePushA`).
///
/// # Safety
/// `eventAttrib` is null or valid, its message what its type says.
pub unsafe fn nvtxRangePushEx(eventAttrib: *const nvtxEventAttributes_t) -> c_int {
    // SAFETY: the caller's contract.
    let m = unsafe { message(eventAttrib) }.unwrap_or(Cow::Borrowed(c""));
    // SAFETY: `m` is NUL-terminated and outlives the call.
    unsafe { roctx_sys::roctxRangePushA(m.as_ptr()) }
}

/// [`nvtxRangePushA`] with a wide message.
///
/// # Safety
/// `message` is null or a NUL-terminated `wchar_t` string.
pub unsafe fn nvtxRangePushW(message: *const wchar_t) -> c_int {
    // SAFETY: the caller's contract.
    let m = unsafe { wide(message) };
    // SAFETY: `m` is NUL-terminated and outlives the call.
    unsafe { roctx_sys::roctxRangePushA(m.as_ptr()) }
}

/// Starts a range not tied to a thread (`roctxRangeStartA`).
///
/// # Safety
/// `message` is a NUL-terminated string.
pub unsafe fn nvtxRangeStartA(message: *const c_char) -> nvtxRangeId_t {
    // SAFETY: the caller's contract.
    unsafe { roctx_sys::roctxRangeStartA(message) }
}

/// Starts a range with the attributes' message (`roctxRangeStartA`).
///
/// # Safety
/// `eventAttrib` is null or valid, its message what its type says.
pub unsafe fn nvtxRangeStartEx(eventAttrib: *const nvtxEventAttributes_t) -> nvtxRangeId_t {
    // SAFETY: the caller's contract.
    let m = unsafe { message(eventAttrib) }.unwrap_or(Cow::Borrowed(c""));
    // SAFETY: `m` is NUL-terminated and outlives the call.
    unsafe { roctx_sys::roctxRangeStartA(m.as_ptr()) }
}

/// [`nvtxRangeStartA`] with a wide message.
///
/// # Safety
/// `message` is null or a NUL-terminated `wchar_t` string.
pub unsafe fn nvtxRangeStartW(message: *const wchar_t) -> nvtxRangeId_t {
    // SAFETY: the caller's contract.
    let m = unsafe { wide(message) };
    // SAFETY: `m` is NUL-terminated and outlives the call.
    unsafe { roctx_sys::roctxRangeStartA(m.as_ptr()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `s` as this platform's NUL-terminated `wchar_t` string.
    fn encode(s: &str) -> Vec<wchar_t> {
        #[cfg(not(windows))]
        let units: Vec<wchar_t> = s.chars().map(|c| c as wchar_t).collect();
        #[cfg(windows)]
        let units: Vec<wchar_t> = s.encode_utf16().collect();
        units.into_iter().chain([0]).collect()
    }

    #[test]
    fn wide_strings_become_utf8_and_stop_at_nul() {
        let mut w = encode("ré\u{1F600}");
        w.extend([65, 0]);
        // SAFETY: NUL-terminated.
        assert_eq!(unsafe { wide(w.as_ptr()) }.to_str().unwrap(), "ré\u{1F600}");
        let bad = [0xD800 as wchar_t, 0];
        // SAFETY: NUL-terminated.
        assert_eq!(unsafe { wide(bad.as_ptr()) }.to_str().unwrap(), "\u{FFFD}");
        // SAFETY: null is accepted.
        assert_eq!(unsafe { wide(std::ptr::null()) }.to_bytes(), b"");
    }

    #[test]
    fn ex_messages_are_read_by_type() {
        let mut a = nvtxEventAttributes_t {
            version: 3,
            size: 48,
            category: 0,
            colorType: 0,
            color: 0,
            payloadType: 0,
            reserved0: 0,
            payload: nvtxEventAttributes_v2_payload_t { ullValue: 0 },
            messageType: nvtxMessageType_t::NVTX_MESSAGE_TYPE_ASCII as i32,
            message: nvtxMessageValue_t {
                ascii: c"ascii".as_ptr(),
            },
        };
        // SAFETY: valid attributes with an ASCII message.
        assert_eq!(unsafe { message(&a) }.unwrap().to_str().unwrap(), "ascii");
        let w = encode("wide");
        a.messageType = nvtxMessageType_t::NVTX_MESSAGE_TYPE_UNICODE as i32;
        a.message = nvtxMessageValue_t {
            unicode: w.as_ptr(),
        };
        // SAFETY: valid attributes with a wide message.
        assert_eq!(unsafe { message(&a) }.unwrap().to_str().unwrap(), "wide");
        // SAFETY: a NUL-terminated string.
        let h = unsafe { nvtxDomainRegisterStringA(std::ptr::null_mut(), c"registered".as_ptr()) };
        a.messageType = nvtxMessageType_t::NVTX_MESSAGE_TYPE_REGISTERED as i32;
        a.message = nvtxMessageValue_t { registered: h };
        // SAFETY: valid attributes with a registered handle.
        let registered = unsafe { message(&a) }.unwrap();
        assert_eq!(registered.to_str().unwrap(), "registered");
        // SAFETY: null attributes are accepted.
        assert!(unsafe { message(std::ptr::null()) }.is_none());
    }

    #[test]
    fn domains_are_non_null_and_freed() {
        // SAFETY: a NUL-terminated name; the handle is destroyed once.
        unsafe {
            let d = nvtxDomainCreateA(c"mine".as_ptr());
            assert!(!d.is_null());
            assert_eq!(CStr::from_ptr(d.cast()).to_str().unwrap(), "mine");
            nvtxDomainDestroy(d);
            nvtxDomainDestroy(std::ptr::null_mut());
        }
    }
}
