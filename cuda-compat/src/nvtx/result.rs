//! cudarc's `nvtx::result`: NVTX's calls with Rust strings, over [`sys`].
//!
//! Unlike cudarc, nothing here panics: a message holding a NUL byte is cut
//! at that byte (what a C caller's string would say), and without a roctx
//! or NVTX library every call does nothing.

use super::sys;
use std::ffi::{c_int, CString};

/// `s` as a C string, cut at its first NUL byte.
pub(crate) fn c_string(s: &str) -> CString {
    let bytes = s.as_bytes();
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    // No NUL in `bytes[..end]`: the position above is the first.
    CString::new(&bytes[..end]).unwrap_or_default()
}

/// Creates a domain (`nvtxDomainCreateA`; roctx has one domain, so the
/// handle only keeps the name).
pub fn domain_create<S: AsRef<str>>(name: S) -> sys::nvtxDomainHandle_t {
    let name = c_string(name.as_ref());
    // SAFETY: a NUL-terminated string that outlives the call.
    unsafe { sys::nvtxDomainCreateA(name.as_ptr()) }
}

/// Destroys a domain (`nvtxDomainDestroy`).
///
/// # Safety
/// `domain` came from [`domain_create`] and was not destroyed before.
pub unsafe fn domain_destroy(domain: sys::nvtxDomainHandle_t) {
    // SAFETY: the caller's contract.
    unsafe { sys::nvtxDomainDestroy(domain) }
}

/// Marks an instant in `domain` (`nvtxDomainMarkEx`).
///
/// # Safety
/// `domain` was not destroyed; the attributes' message is what its type says.
pub unsafe fn domain_mark(
    domain: sys::nvtxDomainHandle_t,
    event_attrib: &sys::nvtxEventAttributes_t,
) {
    // SAFETY: the caller's contract.
    unsafe { sys::nvtxDomainMarkEx(domain, event_attrib) }
}

/// Starts a range in `domain` (`nvtxDomainRangeStartEx`).
///
/// # Safety
/// As [`domain_mark`].
pub unsafe fn domain_range_start(
    domain: sys::nvtxDomainHandle_t,
    event_attrib: &sys::nvtxEventAttributes_t,
) -> sys::nvtxRangeId_t {
    // SAFETY: the caller's contract.
    unsafe { sys::nvtxDomainRangeStartEx(domain, event_attrib) }
}

/// Ends a range of `domain` (`nvtxDomainRangeEnd`).
///
/// # Safety
/// `domain` was not destroyed.
pub unsafe fn domain_range_end(domain: sys::nvtxDomainHandle_t, id: sys::nvtxRangeId_t) {
    // SAFETY: the caller's contract.
    unsafe { sys::nvtxDomainRangeEnd(domain, id) }
}

/// Pushes a range in `domain` (`nvtxDomainRangePushEx`).
///
/// # Safety
/// As [`domain_mark`].
pub unsafe fn domain_range_push(
    domain: sys::nvtxDomainHandle_t,
    event_attrib: &sys::nvtxEventAttributes_t,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { sys::nvtxDomainRangePushEx(domain, event_attrib) }
}

/// Pops a range of `domain` (`nvtxDomainRangePop`).
///
/// # Safety
/// `domain` was not destroyed.
pub unsafe fn domain_range_pop(domain: sys::nvtxDomainHandle_t) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { sys::nvtxDomainRangePop(domain) }
}

/// Names a category of `domain` (a no-op: roctx has no categories).
///
/// # Safety
/// `domain` was not destroyed.
pub unsafe fn domain_name_category<S: AsRef<str>>(
    domain: sys::nvtxDomainHandle_t,
    category: u32,
    name: S,
) {
    let name = c_string(name.as_ref());
    // SAFETY: the caller's contract; a NUL-terminated name.
    unsafe { sys::nvtxDomainNameCategoryA(domain, category, name.as_ptr()) }
}

/// Marks an instant (`nvtxMarkA`).
pub fn mark<S: AsRef<str>>(message: S) {
    let message = c_string(message.as_ref());
    // SAFETY: a NUL-terminated string that outlives the call.
    unsafe { sys::nvtxMarkA(message.as_ptr()) }
}

/// Marks an instant with attributes (`nvtxMarkEx`; only the message is
/// kept). The attributes' message must be what its type says, as for every
/// NVTX call.
pub fn mark_ex(event_attrib: &sys::nvtxEventAttributes_t) {
    // SAFETY: valid attributes (a reference); their message is the caller's.
    unsafe { sys::nvtxMarkEx(event_attrib) }
}

/// Names an OS thread (a no-op: roctx does not name threads).
pub fn name_os_thread<S: AsRef<str>>(thread_id: u32, name: S) {
    let name = c_string(name.as_ref());
    // SAFETY: a NUL-terminated string that outlives the call.
    unsafe { sys::nvtxNameOsThreadA(thread_id, name.as_ptr()) }
}

/// Names a category (a no-op: roctx has no categories).
pub fn name_category<S: AsRef<str>>(category: u32, name: S) {
    let name = c_string(name.as_ref());
    // SAFETY: a NUL-terminated string that outlives the call.
    unsafe { sys::nvtxNameCategoryA(category, name.as_ptr()) }
}

/// Starts a range (`nvtxRangeStartA`) and returns its id.
pub fn range_start<S: AsRef<str>>(message: S) -> u64 {
    let message = c_string(message.as_ref());
    // SAFETY: a NUL-terminated string that outlives the call.
    unsafe { sys::nvtxRangeStartA(message.as_ptr()) }
}

/// Starts a range with attributes (`nvtxRangeStartEx`).
pub fn range_start_ex(event_attrib: &sys::nvtxEventAttributes_t) -> u64 {
    // SAFETY: valid attributes (a reference); their message is the caller's.
    unsafe { sys::nvtxRangeStartEx(event_attrib) }
}

/// Ends a range (`nvtxRangeEnd`).
///
/// # Safety
/// None is known (cudarc marks it unsafe): `id` is passed by value.
pub unsafe fn range_end(id: u64) {
    // SAFETY: the id is passed by value.
    unsafe { sys::nvtxRangeEnd(id) }
}

/// Pushes a range on this thread (`nvtxRangePushA`): the level, or a
/// negative value when nothing is tracked.
pub fn range_push<S: AsRef<str>>(message: S) -> c_int {
    let message = c_string(message.as_ref());
    // SAFETY: a NUL-terminated string that outlives the call.
    unsafe { sys::nvtxRangePushA(message.as_ptr()) }
}

/// Pushes a range with attributes (`nvtxRangePushEx`).
pub fn range_push_ex(event_attrib: &sys::nvtxEventAttributes_t) -> c_int {
    // SAFETY: valid attributes (a reference); their message is the caller's.
    unsafe { sys::nvtxRangePushEx(event_attrib) }
}

/// Pops this thread's innermost range (`nvtxRangePop`).
pub fn range_pop() -> c_int {
    // SAFETY: no arguments.
    unsafe { sys::nvtxRangePop() }
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
