//! Tier 1: cudarc's `nvtx` module at cudarc's paths, used as cudarc's users
//! write it (compiled; and run, since every call is safe without a GPU):
//! without a roctx or NVTX library, and with NUL bytes in messages, where
//! real cudarc panics, nothing does here.

use cuda_compat::nvtx::{mark, name_category, result, scoped_range, sys, Event, Payload, Range};

/// The flow of cudarc's nvtx docs, as a cudarc program has it.
fn uses_nvtx_like_cudarc() {
    name_category(1, "forward pass");
    mark("Hello world");
    Event::message("Hello world").mark();
    let range: Range = scoped_range("hello range");
    let mut event = Event::message("gemm");
    event.category(1).argb(0xffff0000).payload(Payload::I32(42));
    let inner = event.range();
    drop(inner);
    drop(range);
}

/// cudarc's `result` layer, with NVTX's attribute struct.
fn uses_result_like_cudarc() -> (i32, i32, u64) {
    result::name_os_thread(7, "worker");
    result::mark("result mark");
    let level = result::range_push("pushed");
    let popped = result::range_pop();
    let id = result::range_start("started");
    // SAFETY: `id` came from `range_start` and is ended once.
    unsafe { result::range_end(id) };
    let domain = result::domain_create("my domain");
    let attributes = sys::nvtxEventAttributes_t {
        version: 3,
        size: size_of::<sys::nvtxEventAttributes_t>() as u16,
        category: 0,
        colorType: sys::nvtxColorType_t::NVTX_COLOR_ARGB as u32 as i32,
        color: 0xff00ff00,
        payloadType: sys::nvtxPayloadType_t::NVTX_PAYLOAD_TYPE_DOUBLE as u32 as i32,
        reserved0: 0,
        payload: sys::nvtxEventAttributes_v2_payload_t { dValue: 2.5 },
        messageType: sys::nvtxMessageType_t::NVTX_MESSAGE_TYPE_ASCII as u32 as i32,
        message: sys::nvtxMessageValue_t {
            ascii: c"in a domain".as_ptr(),
        },
    };
    // SAFETY: `domain` is live until the destroy below; the attributes'
    // message is the ASCII string they say.
    unsafe {
        result::domain_mark(domain, &attributes);
        let d = result::domain_range_push(domain, &attributes);
        result::domain_range_pop(domain);
        let r = result::domain_range_start(domain, &attributes);
        result::domain_range_end(domain, r);
        result::domain_name_category(domain, 1, "cat");
        result::domain_destroy(domain);
        let _ = d;
    }
    result::mark_ex(&attributes);
    let pushed = result::range_push_ex(&attributes);
    result::range_pop();
    let started = result::range_start_ex(&attributes);
    // SAFETY: as above.
    unsafe { result::range_end(started) };
    let _ = pushed;
    (level, popped, id)
}

/// NVTX's C names, as C-style code calls them.
fn uses_the_c_names() {
    // SAFETY: NUL-terminated strings that outlive the calls.
    unsafe {
        sys::nvtxMarkA(c"c mark".as_ptr());
        sys::nvtxRangePushA(c"c range".as_ptr());
        sys::nvtxRangePop();
        let id = sys::nvtxRangeStartA(c"c start".as_ptr());
        sys::nvtxRangeEnd(id);
        sys::nvtxNameOsThreadA(1, c"thread".as_ptr());
        sys::nvtxNameCategoryA(1, c"category".as_ptr());
    }
}

#[test]
fn cudarc_style_nvtx_runs_without_a_library_or_a_panic() {
    uses_nvtx_like_cudarc();
    uses_the_c_names();
    let (level, popped, id) = uses_result_like_cudarc();
    if !roctx_sys::loader::is_available() {
        // The documented no-op values (roctx-sys's `Unavailable`).
        assert_eq!((level, popped, id), (-1, -1, 0));
    }
    // cudarc panics on these ("Message contained nul bytes"); here the
    // message is cut at the NUL.
    mark("cut\0here");
    let _r = scoped_range("cut\0here");
    Event::message("cut\0here").mark();
}

#[test]
fn the_attribute_struct_has_nvtxs_layout() {
    // nvToolsExt.h's nvtxEventAttributes_v2: 48 bytes, payload at 24,
    // messageType at 32, message at 40.
    assert_eq!(size_of::<sys::nvtxEventAttributes_t>(), 48);
    assert_eq!(
        std::mem::offset_of!(sys::nvtxEventAttributes_t, payload),
        24
    );
    assert_eq!(
        std::mem::offset_of!(sys::nvtxEventAttributes_t, messageType),
        32
    );
    assert_eq!(
        std::mem::offset_of!(sys::nvtxEventAttributes_t, message),
        40
    );
    assert_eq!(Event::message("x").cu_size(), 48);
}

/// `attributes` with `message` of NVTX type `kind`.
fn attributes_with(
    kind: sys::nvtxMessageType_t,
    message: sys::nvtxMessageValue_t,
) -> sys::nvtxEventAttributes_t {
    sys::nvtxEventAttributes_t {
        version: 3,
        size: size_of::<sys::nvtxEventAttributes_t>() as u16,
        category: 0,
        colorType: 0,
        color: 0,
        payloadType: 0,
        reserved0: 0,
        payload: sys::nvtxEventAttributes_v2_payload_t { ullValue: 0 },
        messageType: kind as u32 as i32,
        message,
    }
}

#[test]
fn result_domains_are_the_handles_of_the_c_names() {
    // The result layer makes the handle `nvtxDomainCreateA` makes (a copy
    // of the name, cut at a NUL byte): either side destroys the other's.
    let d = result::domain_create("mine\0cut");
    assert!(!d.is_null());
    // SAFETY: the handle is the domain's NUL-terminated name.
    let name = unsafe { std::ffi::CStr::from_ptr(d.cast()) };
    assert_eq!(name.to_str().unwrap(), "mine");
    // SAFETY: made by `domain_create`, destroyed once.
    unsafe { sys::nvtxDomainDestroy(d) };
    // SAFETY: a NUL-terminated name; the handle is destroyed once.
    unsafe {
        let d = sys::nvtxDomainCreateA(c"c side".as_ptr());
        assert_eq!(
            std::ffi::CStr::from_ptr(d.cast()).to_str().unwrap(),
            "c side"
        );
        result::domain_destroy(d);
    }
}

#[test]
fn ex_calls_reach_roctx_with_every_kind_of_message() {
    let wide: Vec<sys::wchar_t> = "wide ✓"
        .chars()
        .map(|c| c as sys::wchar_t)
        .chain([0])
        .collect();
    // SAFETY: a NUL-terminated string.
    let registered =
        unsafe { sys::nvtxDomainRegisterStringA(std::ptr::null_mut(), c"registered".as_ptr()) };
    let kinds = [
        attributes_with(
            sys::nvtxMessageType_t::NVTX_MESSAGE_TYPE_ASCII,
            sys::nvtxMessageValue_t {
                ascii: c"ascii".as_ptr(),
            },
        ),
        attributes_with(
            sys::nvtxMessageType_t::NVTX_MESSAGE_TYPE_UNICODE,
            sys::nvtxMessageValue_t {
                unicode: wide.as_ptr(),
            },
        ),
        attributes_with(
            sys::nvtxMessageType_t::NVTX_MESSAGE_TYPE_REGISTERED,
            sys::nvtxMessageValue_t { registered },
        ),
        attributes_with(
            sys::nvtxMessageType_t::NVTX_MESSAGE_UNKNOWN,
            sys::nvtxMessageValue_t {
                ascii: std::ptr::null(),
            },
        ),
    ];
    let domain = result::domain_create("ex");
    for a in &kinds {
        result::mark_ex(a);
        let pushed = result::range_push_ex(a);
        let popped = result::range_pop();
        let id = result::range_start_ex(a);
        // SAFETY: `id` came from `range_start_ex`, ended once.
        unsafe { result::range_end(id) };
        // SAFETY: `domain` is live until destroyed below.
        let (d_pushed, d_popped, d_id) = unsafe {
            result::domain_mark(domain, a);
            let p = result::domain_range_push(domain, a);
            let q = result::domain_range_pop(domain);
            let r = result::domain_range_start(domain, a);
            result::domain_range_end(domain, r);
            (p, q, r)
        };
        if !roctx_sys::loader::is_available() {
            // roctx-sys's values without a library, through hip's result
            // layer, for the plain and the domain calls alike.
            assert_eq!((pushed, popped, id), (-1, -1, 0));
            assert_eq!((d_pushed, d_popped, d_id), (-1, -1, 0));
        } else {
            assert_eq!(pushed, popped, "a balanced push and pop");
            assert_eq!(d_pushed, d_popped, "a balanced push and pop");
        }
    }
    // SAFETY: made above, destroyed once.
    unsafe { result::domain_destroy(domain) };
}
