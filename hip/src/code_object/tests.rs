use super::*;
use proptest::prelude::*;

use test_kit::code_object::{bundle_of, tiny_elf};

fn fatbin_of(payload: usize) -> Vec<u8> {
    let mut f = FATBIN_MAGIC.to_le_bytes().to_vec();
    f.extend(1u16.to_le_bytes());
    f.extend(16u16.to_le_bytes());
    f.extend((payload as u64).to_le_bytes());
    f.extend(vec![0x5Au8; payload]);
    f
}

#[test]
fn well_formed_images_are_recognised_per_platform() {
    let amd = tiny_elf(EM_AMDGPU);
    assert_eq!(validate(&amd, Platform::Amd), Ok(ImageKind::AmdCodeObject));
    let b = bundle_of(&[amd.clone(), amd.clone()]);
    assert_eq!(
        validate(&b, Platform::Amd),
        Ok(ImageKind::OffloadBundle { entries: 3 })
    );
    let cubin = tiny_elf(EM_CUDA);
    assert_eq!(validate(&cubin, Platform::Nvidia), Ok(ImageKind::Cubin));
    assert_eq!(
        validate(&fatbin_of(100), Platform::Nvidia),
        Ok(ImageKind::Fatbin)
    );
    assert_eq!(
        validate(b".version 7.0\n.target sm_80", Platform::Nvidia),
        Ok(ImageKind::Ptx)
    );
    // Each on the other platform: refused, naming the platform it needs.
    let e = validate(&amd, Platform::Nvidia).unwrap_err();
    assert!(e.to_string().contains("only on the AMD platform"), "{e}");
    let e = validate(&cubin, Platform::Amd).unwrap_err();
    assert!(e.to_string().contains("only on the NVIDIA platform"), "{e}");
}

#[test]
fn each_defect_is_named() {
    let amd = tiny_elf(EM_AMDGPU);
    let reason = |img: &[u8]| validate(img, Platform::Amd).unwrap_err().to_string();
    assert!(reason(&[]).contains("empty"));
    assert!(reason(&amd[..40]).contains("needs 64 bytes"));
    let mut x = amd.clone();
    x[4] = 1;
    assert!(reason(&x).contains("not 64-bit"));
    let mut x = amd.clone();
    x[18] = 62; // x86-64
    assert!(reason(&x).contains("machine 62"));
    let mut x = amd.clone();
    x[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(
        reason(&x).contains("section header table"),
        "{}",
        reason(&x)
    );
    let mut x = amd.clone();
    let last = x.len() - 64;
    x[last + 32..last + 40].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(reason(&x).contains("section 2"), "{}", reason(&x));
    let mut x = amd.clone();
    x[62] = 9;
    assert!(reason(&x).contains("e_shstrndx 9"));
    // A bundle whose count could not fit, and one whose GPU entry is broken.
    let mut b = bundle_of(std::slice::from_ref(&amd));
    b[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(reason(&b).contains("entries cannot fit"), "{}", reason(&b));
    let mut broken = amd.clone();
    broken.truncate(100);
    let b = bundle_of(&[broken]);
    assert!(
        reason(&b).contains("entry 1 (hipv4-amdgcn"),
        "{}",
        reason(&b)
    );
    // Fatbin and PTX.
    let mut f = fatbin_of(10);
    f.truncate(20);
    assert!(validate(&f, Platform::Nvidia)
        .unwrap_err()
        .reason
        .contains("outside"));
    assert!(reason(b"hello\0").contains("no .version"));
    assert!(reason(&[0xff, 0xfe, 0x00]).contains("not UTF-8"));
    // A compressed bundle that claims more bytes than it has.
    let mut c = COMPRESSED_MAGIC.to_vec();
    c.extend(2u16.to_le_bytes());
    c.extend(1u16.to_le_bytes());
    c.extend(1000u32.to_le_bytes());
    c.resize(28, 0);
    assert!(reason(&c).contains("outside"), "{}", reason(&c));
    c.resize(1000, 0);
    assert_eq!(validate(&c, Platform::Amd), Ok(ImageKind::CompressedBundle));
}

/// Compilers put the section headers last, so every strict prefix of a
/// well-formed ELF or bundle of them cuts a structure the loader follows.
/// Found by fuzz/fuzz_targets/code_object.rs: `e_shnum` 0 with a section
/// header table named outside the image was accepted, though a loader
/// reads section 0 there for the extended count (likewise `PN_XNUM`).
#[test]
fn extended_numbering_is_refused() {
    let mut img = tiny_elf(EM_AMDGPU);
    img[60..62].copy_from_slice(&0u16.to_le_bytes());
    let outside = img.len() as u64 + 100;
    img[40..48].copy_from_slice(&outside.to_le_bytes());
    let e = validate(&img, Platform::Amd).unwrap_err();
    assert!(e.reason.contains("extended section numbering"), "{e}");
    // No sections and no table: still a code object.
    img[40..48].copy_from_slice(&0u64.to_le_bytes());
    assert_eq!(validate(&img, Platform::Amd), Ok(ImageKind::AmdCodeObject));
    let mut img = tiny_elf(EM_AMDGPU);
    img[56..58].copy_from_slice(&0xffffu16.to_le_bytes());
    let e = validate(&img, Platform::Amd).unwrap_err();
    assert!(e.reason.contains("PN_XNUM"), "{e}");
}

#[test]
fn every_truncation_is_refused() {
    let amd = tiny_elf(EM_AMDGPU);
    let b = bundle_of(std::slice::from_ref(&amd));
    for img in [&amd, &b] {
        for len in 0..img.len() {
            assert!(
                validate(&img[..len], Platform::Amd).is_err(),
                "prefix of {len} accepted"
            );
        }
    }
}

/// Checks structures of an accepted ELF independently of the validator: the
/// tables it names lie inside the image.
fn elf_tables_inside(img: &[u8]) -> bool {
    let u64_at = |at: usize| u64::from_le_bytes(img[at..at + 8].try_into().unwrap());
    let u16_at = |at: usize| u64::from(u16::from_le_bytes(img[at..at + 2].try_into().unwrap()));
    let len = img.len() as u128;
    u128::from(u64_at(40)) + u128::from(u16_at(60)) * 64 <= len
        && u128::from(u64_at(32)) + u128::from(u16_at(56)) * 56 <= len
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 20_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Bit flips and overwrites anywhere in a well-formed image never crash
    /// the validator, and whatever it accepts has its tables inside.
    #[test]
    fn corrupted_images_never_crash_or_escape(
        flips in proptest::collection::vec((0usize..4096, any::<u8>()), 1..8),
        bundle in any::<bool>(),
        cut in 0usize..4096,
    ) {
        let amd = tiny_elf(EM_AMDGPU);
        let mut img = if bundle { bundle_of(&[amd]) } else { amd };
        for (at, byte) in flips {
            let n = img.len();
            img[at % n] ^= byte;
        }
        if cut % 3 == 0 {
            let keep = cut % (img.len() + 1);
            img.truncate(keep);
        }
        if let Ok(ImageKind::AmdCodeObject) = validate(&img, Platform::Amd) {
            prop_assert!(elf_tables_inside(&img));
        }
        let _ = validate(&img, Platform::Nvidia);
    }

    /// Random bytes are never an AMD image (and never read out of bounds).
    #[test]
    fn random_bytes_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        prop_assert!(validate(&bytes, Platform::Amd).is_err());
        let _ = validate(&bytes, Platform::Nvidia);
    }
}

/// An empty program header table named past the image's end is refused.
/// Found by `corrupted_images_never_crash_or_escape` (a flip in e_phoff and
/// e_phnum 1 -> 0): it was accepted with the table outside.
#[test]
fn an_empty_program_header_table_outside_is_refused() {
    let mut img = tiny_elf(EM_AMDGPU);
    img[56..58].copy_from_slice(&0u16.to_le_bytes());
    let outside = img.len() as u64 + 512;
    img[32..40].copy_from_slice(&outside.to_le_bytes());
    let e = validate(&img, Platform::Amd).unwrap_err();
    assert!(e.reason.contains("program header table"), "{e}");
    // At the end of the image it names nothing outside.
    let end = img.len() as u64;
    img[32..40].copy_from_slice(&end.to_le_bytes());
    assert_eq!(validate(&img, Platform::Amd), Ok(ImageKind::AmdCodeObject));
    assert!(elf_tables_inside(&img));
}
