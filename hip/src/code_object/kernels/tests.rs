use super::*;
use test_kit::code_object::{bundle_of, envelope};

/// A MessagePack value to write (the test's own writer, independent of the
/// reader under test).
enum M {
    Int(i64),
    Bool(bool),
    Str(&'static str),
    Arr(Vec<M>),
    Map(Vec<(&'static str, M)>),
}

fn pack(m: &M, out: &mut Vec<u8>) {
    match m {
        M::Int(n) if (0..128).contains(n) => out.push(*n as u8),
        M::Int(n) if *n >= 0 => {
            out.push(0xcf);
            out.extend((*n as u64).to_be_bytes());
        }
        M::Int(n) => {
            out.push(0xd3);
            out.extend(n.to_be_bytes());
        }
        M::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        M::Str(s) => {
            out.push(0xd9);
            out.push(s.len() as u8);
            out.extend(s.as_bytes());
        }
        M::Arr(items) => {
            out.push(0xdc);
            out.extend((items.len() as u16).to_be_bytes());
            items.iter().for_each(|i| pack(i, out));
        }
        M::Map(entries) => {
            out.push(0xde);
            out.extend((entries.len() as u16).to_be_bytes());
            for (k, v) in entries {
                pack(&M::Str(k), out);
                pack(v, out);
            }
        }
    }
}

/// One kernel's metadata, as LLVM writes it (fewer argument details).
fn kernel_meta(name: &'static str, vgprs: i64, vgpr_spills: i64, max_wg: i64) -> M {
    M::Map(vec![
        (".name", M::Str(name)),
        (".symbol", M::Str("x.kd")),
        (".agpr_count", M::Int(0)),
        (".group_segment_fixed_size", M::Int(1024)),
        (".kernarg_segment_size", M::Int(16)),
        (".max_flat_workgroup_size", M::Int(max_wg)),
        (".private_segment_fixed_size", M::Int(vgpr_spills * 4)),
        (".sgpr_count", M::Int(12)),
        (".sgpr_spill_count", M::Int(0)),
        (".uses_dynamic_stack", M::Bool(false)),
        (".vgpr_count", M::Int(vgprs)),
        (".vgpr_spill_count", M::Int(vgpr_spills)),
        (".wavefront_size", M::Int(64)),
    ])
}

fn meta(target: Option<&'static str>, kernels: Vec<M>) -> M {
    let mut top = vec![("amdhsa.kernels", M::Arr(kernels))];
    if let Some(t) = target {
        top.push(("amdhsa.target", M::Str(t)));
    }
    top.push(("amdhsa.version", M::Arr(vec![M::Int(1), M::Int(2)])));
    M::Map(top)
}

fn note(name: &[u8], ty: u32, desc: &[u8]) -> Vec<u8> {
    let mut n = Vec::new();
    n.extend((name.len() as u32 + 1).to_le_bytes());
    n.extend((desc.len() as u32).to_le_bytes());
    n.extend(ty.to_le_bytes());
    n.extend(name);
    n.push(0);
    while n.len() % 4 != 0 {
        n.push(0);
    }
    n.extend(desc);
    while n.len() % 4 != 0 {
        n.push(0);
    }
    n
}

/// A 64-bit ELF for `machine` with sections null, `name` (of `ty`, holding
/// `data`) and `.shstrtab`; no program headers.
fn elf_with(machine: u16, name: &str, ty: u32, data: &[u8]) -> Vec<u8> {
    let shstrtab = format!("\0{name}\0.shstrtab\0").into_bytes();
    let data_off = 64u64;
    let str_off = data_off + data.len() as u64;
    let shoff = (str_off + shstrtab.len() as u64).next_multiple_of(8);
    let mut e = vec![0u8; 64];
    e[..4].copy_from_slice(b"\x7fELF");
    e[4] = 2;
    e[5] = 1;
    e[6] = 1;
    e[16..18].copy_from_slice(&3u16.to_le_bytes());
    e[18..20].copy_from_slice(&machine.to_le_bytes());
    e[40..48].copy_from_slice(&shoff.to_le_bytes());
    e[52..54].copy_from_slice(&64u16.to_le_bytes());
    e[58..60].copy_from_slice(&64u16.to_le_bytes());
    e[60..62].copy_from_slice(&3u16.to_le_bytes());
    e[62..64].copy_from_slice(&2u16.to_le_bytes());
    e.extend(data);
    e.extend(&shstrtab);
    e.resize(shoff as usize, 0);
    let section = |name: u32, ty: u32, off: u64, size: u64| {
        let mut s = vec![0u8; 64];
        s[0..4].copy_from_slice(&name.to_le_bytes());
        s[4..8].copy_from_slice(&ty.to_le_bytes());
        s[24..32].copy_from_slice(&off.to_le_bytes());
        s[32..40].copy_from_slice(&size.to_le_bytes());
        s
    };
    e.extend(section(0, 0, 0, 0));
    e.extend(section(1, ty, data_off, data.len() as u64));
    e.extend(section(
        name.len() as u32 + 2,
        3,
        str_off,
        shstrtab.len() as u64,
    ));
    e
}

/// A code object whose metadata note holds `m`.
fn code_object_of(m: &M) -> Vec<u8> {
    let mut desc = Vec::new();
    pack(m, &mut desc);
    elf_with(EM_AMDGPU, ".note", SHT_NOTE, &note(b"AMDGPU", 32, &desc))
}

fn two_kernels(target: &'static str) -> Vec<u8> {
    code_object_of(&meta(
        Some(target),
        vec![
            kernel_meta("fast", 24, 0, 256),
            kernel_meta("spiller", 128, 58, 1024),
        ],
    ))
}

#[test]
fn a_code_object_gives_each_kernel() {
    let ks = kernels(&two_kernels("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-")).unwrap();
    assert_eq!(ks.len(), 2);
    let (fast, spiller) = (&ks[0], &ks[1]);
    assert_eq!(fast.target, "gfx90a:sramecc+:xnack-");
    assert_eq!(fast.processor(), "gfx90a");
    assert_eq!(fast.name, "fast");
    assert_eq!(
        (fast.vgprs, fast.sgprs, fast.agprs, fast.lds_bytes),
        (24, 12, Some(0), 1024)
    );
    assert_eq!(fast.max_workgroup_size, 256);
    assert!(!fast.spills());
    // gfx90a: 512 / 24 (in blocks of 8) = 21, at most 8 waves.
    assert_eq!(fast.waves_per_simd, Some(8));
    assert_eq!(fast.vgpr_cap, Some(512));
    assert!(spiller.spills());
    assert_eq!((spiller.vgpr_spills, spiller.scratch_bytes), (58, 232));
    assert_eq!(spiller.waves_per_simd, Some(4));
    assert_eq!(spiller.vgpr_cap, Some(128));
    let s = SpillSummary::of(&ks);
    assert_eq!(
        s.to_string(),
        "1 of 2 kernel instances spill registers (gfx90a 1)"
    );
}

#[test]
fn an_unknown_target_has_no_waves() {
    let ks = kernels(&two_kernels("amdgcn-amd-amdhsa--gfx1201")).unwrap();
    assert_eq!(ks[0].target, "gfx1201");
    assert_eq!((ks[0].waves_per_simd, ks[0].vgpr_cap), (None, None));
    assert_eq!(ks[0].vgprs, 24, "the metadata is still read");
}

#[test]
fn bundles_envelopes_objects_and_archives_are_opened() {
    let co = two_kernels("amdgcn-amd-amdhsa--gfx90a");
    // Code object v3: no amdhsa.target; the bundle entry names it (gfx901).
    let v3 = code_object_of(&meta(None, vec![kernel_meta("old", 8, 0, 64)]));
    let b = bundle_of(&[co.clone(), v3]);
    let ks = kernels(&b).unwrap();
    let names: Vec<(&str, &str)> = ks
        .iter()
        .map(|k| (k.target.as_str(), k.name.as_str()))
        .collect();
    assert_eq!(
        names,
        [("gfx90a", "fast"), ("gfx90a", "spiller"), ("gfx901", "old")]
    );

    let text = envelope(&b, Some("k.cu"), &["gfx90a", "gfx901"], &[]);
    assert_eq!(kernels(text.as_bytes()).unwrap(), ks);

    // A host object: two bundles in .hip_fatbin, 4 KiB apart.
    let mut fatbin = b.clone();
    fatbin.resize(4096, 0);
    fatbin.extend(bundle_of(std::slice::from_ref(&co)));
    let host = elf_with(62, ".hip_fatbin", 1, &fatbin);
    let from_host = kernels(&host).unwrap();
    assert_eq!(from_host.len(), 5);
    assert_eq!(from_host[..3], ks[..]);

    // An archive: the host object, a host-only object and a text member.
    let plain = elf_with(62, ".text", 1, &[0x90; 16]);
    let ar = archive_of(&[
        ("a.o", &host),
        ("stub.o", &plain),
        ("notes.txt", b"hello\n"),
    ]);
    assert_eq!(kernels(&ar).unwrap(), from_host);
    let e = kernels(&archive_of(&[("stub.o", &plain)])).unwrap_err();
    assert!(e.to_string().contains("no AMD GPU code"), "{e}");
    let e = kernels(&plain).unwrap_err();
    assert!(e.to_string().contains(".hip_fatbin"), "{e}");
    // A host ELF that is not 64-bit little-endian: named as such, not as a
    // bundle.
    let mut elf32 = plain.clone();
    elf32[4] = 1;
    let e = kernels(&elf32).unwrap_err();
    assert_eq!(e.kind, None);
    assert!(
        e.to_string()
            .contains("an ELF for machine 62: not a 64-bit little-endian ELF"),
        "{e}"
    );
}

fn archive_of(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut a = b"!<arch>\n".to_vec();
    for (name, data) in members {
        let header = format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            format!("{name}/"),
            0,
            0,
            0,
            644,
            data.len()
        );
        assert_eq!(header.len(), 60);
        a.extend(header.as_bytes());
        a.extend(*data);
        if data.len() % 2 == 1 {
            a.push(b'\n');
        }
    }
    a
}

#[test]
fn wrong_types_and_missing_keys_are_named() {
    let reason = |m: M| kernels(&code_object_of(&m)).unwrap_err().to_string();
    let mut k = kernel_meta("k", 8, 0, 64);
    if let M::Map(e) = &mut k {
        e.retain(|(key, _)| *key != ".vgpr_count");
        e.push((".vgpr_count", M::Str("many")));
    }
    let e = reason(meta(Some("gfx90a"), vec![k]));
    assert!(e.contains("kernel k: .vgpr_count is a string"), "{e}");
    let mut k = kernel_meta("k", 8, 0, 64);
    if let M::Map(e) = &mut k {
        e.retain(|(key, _)| *key != ".max_flat_workgroup_size");
    }
    let e = reason(meta(Some("gfx90a"), vec![k]));
    assert!(e.contains("kernel k: no .max_flat_workgroup_size"), "{e}");
    let e = reason(meta(Some("gfx90a"), vec![kernel_meta("k", -1, 0, 64)]));
    assert!(e.contains(".vgpr_count -1 is out of range"), "{e}");
    let e = reason(M::Map(vec![("amdhsa.kernels", M::Map(vec![]))]));
    assert!(e.contains("amdhsa.kernels is a map, not an array"), "{e}");
    let e = reason(M::Map(vec![("amdhsa.target", M::Int(3))]));
    assert!(e.contains("amdhsa.target is an integer"), "{e}");
    let e = reason(M::Arr(vec![]));
    assert!(e.contains("not a map"), "{e}");
    let e = reason(meta(Some("gfx90a"), vec![M::Int(1)]));
    assert!(e.contains("kernel 0 is an integer"), "{e}");
}

#[test]
fn other_notes_and_formats_are_refused_with_the_reason() {
    let text = |b: &[u8]| kernels(b).unwrap_err().to_string();
    let v2 = elf_with(EM_AMDGPU, ".note", SHT_NOTE, &note(b"AMD", 10, b"---\n"));
    assert!(text(&v2).contains("code object v2"), "{}", text(&v2));
    let none = elf_with(EM_AMDGPU, ".text", 1, &[0; 8]);
    assert!(
        text(&none).contains("no NT_AMDGPU_METADATA"),
        "{}",
        text(&none)
    );
    let bad = elf_with(EM_AMDGPU, ".note", SHT_NOTE, &note(b"AMDGPU", 32, &[0xc1]));
    assert!(
        text(&bad).contains("the metadata note: byte 0 is 0xc1"),
        "{}",
        text(&bad)
    );
    let mut ccob = b"CCOB".to_vec();
    ccob.extend([2, 0, 1, 0]);
    assert!(text(&ccob).contains("compressed"), "{}", text(&ccob));
    assert!(text(b"").contains("none of the formats"));
    // An envelope whose checksum is wrong is refused as the envelope says.
    let env = envelope(&bundle_of(&[two_kernels("gfx90a")]), None, &["gfx90a"], &[]);
    let broken = env.replacen("// sha256: ", "// sha256: 0", 1);
    assert!(
        text(broken.as_bytes()).contains("sha256"),
        "{}",
        text(broken.as_bytes())
    );
}

#[test]
fn every_truncation_of_every_container_is_refused_without_panic() {
    let co = two_kernels("amdgcn-amd-amdhsa--gfx942");
    let b = bundle_of(std::slice::from_ref(&co));
    let host = elf_with(62, ".hip_fatbin", 1, &b);
    let ar = archive_of(&[("a.o", &host)]);
    for image in [&co, &b, &host, &ar] {
        assert_eq!(kernels(image).unwrap().len(), 2);
        for n in 0..image.len() {
            // Each ends in a table or a member whose end is checked.
            let e = kernels(&image[..n]).expect_err("a truncation was accepted");
            assert!(!e.reason.is_empty());
        }
    }
    // Byte flips in the metadata never panic either.
    for at in 0..co.len() {
        let mut x = co.clone();
        x[at] ^= 0x5a;
        let _ = kernels(&x);
    }
}
