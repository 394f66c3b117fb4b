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
