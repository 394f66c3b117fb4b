//! cudarc's `nvtx::result`: NVTX's calls with Rust strings, each calling
//! the `hip` crate's [`result`](hip::result) layer (`roctx_mark`,
//! `roctx_range_push`, ...), which reaches roctx on AMD and NVTX itself on
//! NVIDIA. NVTX returns no status, so there is no error to convert: the
//! values are the library's.
//!
//! Unlike cudarc, nothing here panics: a message holding a NUL byte is cut
//! at that byte (what a C caller's string would say), and without a roctx
//! or NVTX library every call does nothing. Domains, categories, thread
//! names, colors and payloads have no roctx counterpart: a domain is only
//! its name (the handle [`sys::nvtxDomainCreateA`] makes too), the rest is
//! dropped, as [`sys`] does.

use super::sys;
use hip::result as ours;
use std::borrow::Cow;
use std::ffi::{c_int, CString};

/// `s` as a C string, cut at its first NUL byte.
pub(crate) fn c_string(s: &str) -> CString {
    let bytes = s.as_bytes();
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    // No NUL in `bytes[..end]`: the position above is the first.
    CString::new(&bytes[..end]).unwrap_or_default()
}

/// The message of `event_attrib` as its type says (`None`: no message).
fn message_of(event_attrib: &sys::nvtxEventAttributes_t) -> Option<Cow<'_, std::ffi::CStr>> {
    // SAFETY: valid attributes (a reference); that their message is what
    // its type says is the caller's part, as for every NVTX call.
    unsafe { sys::message(event_attrib) }
}

/// Creates a domain (`nvtxDomainCreateA`; roctx has one domain, so the
/// handle only keeps the name).
pub fn domain_create<S: AsRef<str>>(name: S) -> sys::nvtxDomainHandle_t {
    sys::new_domain(c_string(name.as_ref()))
}

/// Destroys a domain (`nvtxDomainDestroy`).
///
/// # Safety
/// `domain` came from [`domain_create`] and was not destroyed before.
pub unsafe fn domain_destroy(domain: sys::nvtxDomainHandle_t) {
    // SAFETY: the caller's contract; `domain_create` calls `new_domain`.
    unsafe { sys::free_domain(domain) }
}

/// Marks an instant in `domain` (`nvtxDomainMarkEx`; the domain is not
/// used: [`mark_ex`]).
///
/// # Safety
/// `domain` was not destroyed; the attributes' message is what its type says.
pub unsafe fn domain_mark(
    _domain: sys::nvtxDomainHandle_t,
    event_attrib: &sys::nvtxEventAttributes_t,
) {
    mark_ex(event_attrib)
}

/// Starts a range in `domain` (`nvtxDomainRangeStartEx`; the domain is
/// not used: [`range_start_ex`]).
///
/// # Safety
/// As [`domain_mark`].
pub unsafe fn domain_range_start(
    _domain: sys::nvtxDomainHandle_t,
    event_attrib: &sys::nvtxEventAttributes_t,
) -> sys::nvtxRangeId_t {
    range_start_ex(event_attrib)
}

/// Ends a range of `domain` (`nvtxDomainRangeEnd`; the domain is not
/// used).
///
/// # Safety
/// `domain` was not destroyed.
pub unsafe fn domain_range_end(_domain: sys::nvtxDomainHandle_t, id: sys::nvtxRangeId_t) {
    ours::roctx_range_stop(id)
}

/// Pushes a range in `domain` (`nvtxDomainRangePushEx`; the domain is not
/// used: [`range_push_ex`]).
///
/// # Safety
/// As [`domain_mark`].
pub unsafe fn domain_range_push(
    _domain: sys::nvtxDomainHandle_t,
    event_attrib: &sys::nvtxEventAttributes_t,
) -> c_int {
    range_push_ex(event_attrib)
}

/// Pops a range of `domain` (`nvtxDomainRangePop`; the domain is not
/// used).
///
/// # Safety
/// `domain` was not destroyed.
pub unsafe fn domain_range_pop(_domain: sys::nvtxDomainHandle_t) -> c_int {
    ours::roctx_range_pop()
}

/// Names a category of `domain` (a no-op: roctx has no categories).
///
/// # Safety
/// `domain` was not destroyed.
pub unsafe fn domain_name_category<S: AsRef<str>>(
    _domain: sys::nvtxDomainHandle_t,
    _category: u32,
    _name: S,
) {
}

/// Marks an instant (`nvtxMarkA`: `roctxMarkA`).
pub fn mark<S: AsRef<str>>(message: S) {
    ours::roctx_mark(&c_string(message.as_ref()))
}

/// Marks an instant with attributes (`nvtxMarkEx`; only the message is
/// kept). The attributes' message must be what its type says, as for every
/// NVTX call.
pub fn mark_ex(event_attrib: &sys::nvtxEventAttributes_t) {
    if let Some(m) = message_of(event_attrib) {
        ours::roctx_mark(&m)
    }
}

/// Names an OS thread (a no-op: roctx does not name threads).
pub fn name_os_thread<S: AsRef<str>>(_thread_id: u32, _name: S) {}

/// Names a category (a no-op: roctx has no categories).
pub fn name_category<S: AsRef<str>>(_category: u32, _name: S) {}

/// Starts a range (`nvtxRangeStartA`: `roctxRangeStartA`) and returns its
/// id.
pub fn range_start<S: AsRef<str>>(message: S) -> u64 {
    ours::roctx_range_start(&c_string(message.as_ref()))
}

/// Starts a range with attributes (`nvtxRangeStartEx`; only the message
/// is kept, empty without one).
pub fn range_start_ex(event_attrib: &sys::nvtxEventAttributes_t) -> u64 {
    ours::roctx_range_start(&message_of(event_attrib).unwrap_or(Cow::Borrowed(c"")))
}

/// Ends a range (`nvtxRangeEnd`: `roctxRangeStop`).
///
/// # Safety
/// None is known (cudarc marks it unsafe): `id` is passed by value.
pub unsafe fn range_end(id: u64) {
    ours::roctx_range_stop(id)
}

/// Pushes a range on this thread (`nvtxRangePushA`: `roctxRangePushA`):
/// the level, or a negative value when nothing is tracked.
pub fn range_push<S: AsRef<str>>(message: S) -> c_int {
    ours::roctx_range_push(&c_string(message.as_ref()))
}

/// Pushes a range with attributes (`nvtxRangePushEx`; only the message is
/// kept, empty without one).
pub fn range_push_ex(event_attrib: &sys::nvtxEventAttributes_t) -> c_int {
    ours::roctx_range_push(&message_of(event_attrib).unwrap_or(Cow::Borrowed(c"")))
}

/// Pops this thread's innermost range (`nvtxRangePop`: `roctxRangePop`).
pub fn range_pop() -> c_int {
    ours::roctx_range_pop()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nul_byte_cuts_the_message_instead_of_panicking() {
        assert_eq!(c_string("ab\0cd").to_bytes(), b"ab");
        assert_eq!(c_string("\0").to_bytes(), b"");
        assert_eq!(c_string("plain").to_bytes(), b"plain");
        // cudarc panics here; these return whatever the library says.
        mark("x\0y");
        let _ = range_push("x\0y");
        let _ = range_pop();
    }
}
