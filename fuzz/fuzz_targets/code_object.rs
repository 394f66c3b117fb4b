//! `hip::code_object::validate` on arbitrary bytes: never panics, and
//! whatever it accepts has every structure the loader follows inside the
//! image, checked here again independently (in 128-bit arithmetic).
#![no_main]

use hip::code_object::{validate, ImageKind};
use hip_sys::loader::Platform;
use libfuzzer_sys::fuzz_target;

fn u16_at(b: &[u8], at: u128) -> Option<u128> {
    let at = usize::try_from(at).ok()?;
    Some(u16::from_le_bytes(b.get(at..at.checked_add(2)?)?.try_into().ok()?).into())
}

fn u32_at(b: &[u8], at: u128) -> Option<u128> {
    let at = usize::try_from(at).ok()?;
    Some(u32::from_le_bytes(b.get(at..at.checked_add(4)?)?.try_into().ok()?).into())
}

fn u64_at(b: &[u8], at: u128) -> Option<u128> {
    let at = usize::try_from(at).ok()?;
    Some(u64::from_le_bytes(b.get(at..at.checked_add(8)?)?.try_into().ok()?).into())
}

/// Every table, segment and (non-NOBITS) section of an ELF inside `img`.
fn elf_inside(img: &[u8]) -> bool {
    let len = img.len() as u128;
    let inside = |at: u128, n: u128| at + n <= len;
    let h = |at, f: fn(&[u8], u128) -> Option<u128>| f(img, at).expect("header read");
    let (phoff, phnum) = (h(32, u64_at), h(56, u16_at));
    let (shoff, shnum) = (h(40, u64_at), h(60, u16_at));
    // A table named at e_shoff is read even with e_shnum 0 (extended
    // numbering keeps the count in section 0), and PN_XNUM likewise.
    let sh_table = if shnum == 0 && shoff != 0 { 64 } else { shnum * 64 };
    // With e_phnum 0 no program header is read, wherever e_phoff points
    // (found by CI's fuzz run: an image with e_phnum 0 and e_phoff far
    // outside it is accepted, rightly).
    let ph_outside = phnum > 0 && !inside(phoff, phnum * 56);
    if phnum == 0xffff || ph_outside || !inside(shoff, sh_table) {
        return false;
    }
    for i in 0..phnum {
        let at = phoff + i * 56;
        if !inside(h(at + 8, u64_at), h(at + 32, u64_at)) {
            return false;
        }
    }
    for i in 0..shnum {
        let at = shoff + i * 64;
        if h(at + 4, u32_at) != 8 && !inside(h(at + 24, u64_at), h(at + 32, u64_at)) {
            return false;
        }
    }
    shnum == 0 || h(62, u16_at) < shnum
}

/// The bundle's entry count, when its table and every entry lie inside.
fn bundle_entries_inside(img: &[u8]) -> Option<u128> {
    let len = img.len() as u128;
    let n = u64_at(img, 24)?;
    let mut at = 32u128;
    for _ in 0..n {
        let (off, size, tlen) = (
            u64_at(img, at)?,
            u64_at(img, at + 8)?,
            u64_at(img, at + 16)?,
        );
        if off + size > len || at + 24 + tlen > len {
            return None;
        }
        at += 24 + tlen;
    }
    Some(n)
}

fuzz_target!(|img: &[u8]| {
    let amd = validate(img, Platform::Amd);
    let nvidia = validate(img, Platform::Nvidia);
    // What an image is does not depend on the platform asked about: exactly
    // one platform accepts a recognised image, and a refusal for the other
    // platform names what it is.
    match (&amd, &nvidia) {
        (Ok(k), Err(e)) | (Err(e), Ok(k)) => assert_eq!(e.kind, Some(*k), "{e}"),
        (Ok(a), Ok(n)) => panic!("both platforms accepted: {a:?} / {n:?}"),
        (Err(_), Err(_)) => {}
    }
    let Some(kind) = amd.ok().or(nvidia.ok()) else {
        return;
    };
    let len = img.len() as u128;
    match kind {
        ImageKind::AmdCodeObject | ImageKind::Cubin => {
            assert!(img.len() >= 64 && img.starts_with(b"\x7fELF"));
            let machine = u16_at(img, 18).unwrap();
            assert_eq!(machine, if kind == ImageKind::Cubin { 190 } else { 224 });
            assert!(elf_inside(img), "an accepted ELF reaches outside the image");
        }
        ImageKind::OffloadBundle { entries } => {
            assert!(img.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"));
            assert_eq!(bundle_entries_inside(img), Some(entries as u128));
        }
        ImageKind::CompressedBundle => {
            let header = match u16_at(img, 4).unwrap() {
                1 => 24,
                2 => 28,
                3 => 40,
                v => panic!("accepted unknown version {v}"),
            };
            assert!(header <= len);
            let total = match header {
                28 => u32_at(img, 8).unwrap(),
                40 => u64_at(img, 8).unwrap(),
                _ => header,
            };
            assert!(header <= total && total <= len);
        }
        ImageKind::Fatbin => {
            let header = u16_at(img, 6).unwrap();
            assert!(header >= 16 && header + u64_at(img, 8).unwrap() <= len);
        }
        ImageKind::Ptx => {
            let text = img.split(|&b| b == 0).next().unwrap();
            let text = std::str::from_utf8(text).expect("accepted PTX is UTF-8");
            assert!(text.contains(".version"));
        }
    }
});
