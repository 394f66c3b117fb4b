//! `hip_sys::loader::search::pe::imported_dlls` on arbitrary bytes: never panics,
//! and every name it returns is a bounded, printable name that really is
//! in the file, NUL-terminated.
#![no_main]

use hip_sys::loader::search::pe::imported_dlls;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    let Ok(names) = imported_dlls(bytes) else {
        return;
    };
    assert!(bytes.starts_with(b"MZ"));
    assert!(names.len() <= 4096);
    for name in &names {
        assert!(!name.is_empty() && name.len() <= 260, "{name:?}");
        assert!(name.bytes().all(|b| b.is_ascii_graphic() || b == b' '));
        let mut needle = name.as_bytes().to_vec();
        needle.push(0);
        assert!(
            bytes.windows(needle.len()).any(|w| w == needle),
            "{name:?} is not in the file"
        );
    }
    // Deterministic: a second read gives the same list.
    assert_eq!(imported_dlls(bytes).ok(), Some(names));
});
