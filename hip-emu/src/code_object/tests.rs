//! Hand-made code objects: the relocation types and malformed inputs that
//! real compiler output does not show (the integration tests in
//! `tests/code_object.rs` cover real objects). Whatever the bytes, the
//! readers return errors, never panic.

use super::*;

/// A MessagePack writer, just enough for metadata maps.
enum Mp {
    U(u64),
    S(&'static str),
    B(bool),
    A(Vec<Mp>),
    M(Vec<(&'static str, Mp)>),
}

impl Mp {
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Mp::U(v) => {
                out.push(0xcf);
                out.extend_from_slice(&v.to_be_bytes());
            }
            Mp::S(s) => {
                out.push(0xd9);
                out.push(s.len() as u8);
                out.extend_from_slice(s.as_bytes());
            }
            Mp::B(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
            Mp::A(items) => {
                out.push(0xdc);
                out.extend_from_slice(&(items.len() as u16).to_be_bytes());
                items.iter().for_each(|i| i.write(out));
            }
            Mp::M(entries) => {
                out.push(0xde);
                out.extend_from_slice(&(entries.len() as u16).to_be_bytes());
                for (k, v) in entries {
                    Mp::S(k).write(out);
                    v.write(out);
                }
            }
        }
    }
}

fn kernel_meta(wavefront: u64, arg_offset: u64) -> Mp {
    Mp::M(vec![
        (".name", Mp::S("k")),
        (".symbol", Mp::S("k.kd")),
        (".kernarg_segment_size", Mp::U(24)),
        (".kernarg_segment_align", Mp::U(8)),
        (
            ".args",
            Mp::A(vec![
                Mp::M(vec![
                    (".offset", Mp::U(0)),
                    (".size", Mp::U(8)),
                    (".value_kind", Mp::S("global_buffer")),
                    (".name", Mp::S("out")),
                ]),
                Mp::M(vec![
                    (".offset", Mp::U(arg_offset)),
                    (".size", Mp::U(4)),
                    (".value_kind", Mp::S("hidden_block_count_x")),
                ]),
            ]),
        ),
        (".group_segment_fixed_size", Mp::U(128)),
        (".private_segment_fixed_size", Mp::U(0)),
        (".sgpr_count", Mp::U(10)),
        (".vgpr_count", Mp::U(4)),
        (".max_flat_workgroup_size", Mp::U(256)),
        (".wavefront_size", Mp::U(wavefront)),
        (".uses_dynamic_stack", Mp::B(false)),
    ])
}

/// What the hand-made object holds.
struct Spec {
    kernel: Mp,
    /// (type, symbol index, addend) at data + 8 * i.
    relocations: Vec<(u32, u64, i64)>,
    e_flags: u32,
}

impl Default for Spec {
    fn default() -> Spec {
        Spec {
            kernel: kernel_meta(64, 16),
            relocations: vec![
                (13, 0, 0x300), // RELATIVE64: base + 0x300
                (3, 2, 4),      // ABS64: &data + 4
                (1, 2, 0),      // ABS32_LO of &data (4 bytes at +16)
                (2, 2, 0),      // ABS32_HI of &data (4 bytes at +24)
                (6, 5, 0),      // ABS32 of the weak undefined symbol: 0
            ],
            // gfx942 (0x4c), sramecc on (0xc00), xnack off (0x200).
            e_flags: 0x4c | 0xc00 | 0x200,
        }
    }
}

const DESC: usize = 0x400;
const DATA: usize = 0x500;
/// The kernel's "code", 16 bytes.
const CODE: usize = DESC + 0x200;
const BSS: u64 = 0x100;

fn align(v: &mut Vec<u8>, to: usize) {
    while v.len() % to != 0 {
        v.push(0);
    }
}

fn put(v: &mut [u8], at: usize, bytes: &[u8]) {
    v[at..at + bytes.len()].copy_from_slice(bytes);
}

/// A minimal gfx942 code object v5: one PT_LOAD over the whole file (plus
/// `.bss`), a PT_NOTE with the metadata, `.dynsym`, `.dynstr`, `.rela.dyn`
/// and the section headers last.
fn build(spec: &Spec) -> Vec<u8> {
    let mut f = vec![0u8; 64 + 2 * 56];
    // The note.
    let note_at = f.len();
    let mut desc = Vec::new();
    Mp::M(vec![("amdhsa.kernels", Mp::A(vec![copy(&spec.kernel)]))]).write(&mut desc);
    f.extend_from_slice(&7u32.to_le_bytes());
    f.extend_from_slice(&(desc.len() as u32).to_le_bytes());
    f.extend_from_slice(&32u32.to_le_bytes());
    f.extend_from_slice(b"AMDGPU\0\0");
    f.extend_from_slice(&desc);
    align(&mut f, 4);
    let note_len = f.len() - note_at;
    // .dynstr
    let strings = b"\0k.kd\0data\0k\0ext\0weak\0";
    let dynstr_at = f.len();
    f.extend_from_slice(strings);
    align(&mut f, 8);
    // .dynsym: null, k.kd, data, k, ext (undefined), weak (weak undefined).
    let dynsym_at = f.len();
    let syms: [(u32, u8, u16, u64, u64); 6] = [
        (0, 0, 0, 0, 0),
        (1, 0x11, 1, DESC as u64, 64),
        (6, 0x11, 1, DATA as u64, 32),
        (11, 0x12, 1, CODE as u64, 16),
        (13, 0x10, 0, 0, 0),
        (17, 0x20, 0, 0, 0),
    ];
    for (name, info, shndx, value, size) in syms {
        f.extend_from_slice(&name.to_le_bytes());
        f.push(info);
        f.push(0);
        f.extend_from_slice(&shndx.to_le_bytes());
        f.extend_from_slice(&value.to_le_bytes());
        f.extend_from_slice(&size.to_le_bytes());
    }
    // .rela.dyn
    let rela_at = f.len();
    for (i, (kind, sym, addend)) in spec.relocations.iter().enumerate() {
        f.extend_from_slice(&((DATA + 8 * i) as u64).to_le_bytes());
        f.extend_from_slice(&((sym << 32) | u64::from(*kind)).to_le_bytes());
        f.extend_from_slice(&addend.to_le_bytes());
    }
    let rela_len = f.len() - rela_at;
    assert!(f.len() <= DESC, "the tables overlap the descriptor");
    f.resize(DESC, 0);
    // The descriptor: group segment 128, kernarg 24, entry at +0x200.
    let mut d = [0u8; 64];
    put(&mut d, 0, &128u32.to_le_bytes());
    put(&mut d, 8, &24u32.to_le_bytes());
    put(&mut d, 16, &0x200i64.to_le_bytes());
    f.extend_from_slice(&d);
    f.resize(DATA + 64, 0xee);
    f.resize(CODE + 16, 0);
    let load_end = f.len() as u64;
    // Section headers: null, .dynsym, .dynstr, .rela.dyn.
    align(&mut f, 8);
    let shoff = f.len();
    let sections: [(u32, u64, usize, u32, u32, u64); 4] = [
        (0, 0, 0, 0, 0, 0),
        (11, dynsym_at as u64, 6 * 24, 2, 1, 24),
        (3, dynstr_at as u64, strings.len(), 0, 0, 0),
        (4, rela_at as u64, rela_len, 1, 0, 24),
    ];
    for (kind, offset, size, link, info, entsize) in sections {
        let mut h = [0u8; 64];
        put(&mut h, 4, &kind.to_le_bytes());
        put(&mut h, 24, &offset.to_le_bytes());
        put(&mut h, 32, &(size as u64).to_le_bytes());
        put(&mut h, 40, &link.to_le_bytes());
        put(&mut h, 44, &info.to_le_bytes());
        put(&mut h, 56, &entsize.to_le_bytes());
        f.extend_from_slice(&h);
    }
    // The ELF header.
    put(&mut f, 0, b"\x7fELF\x02\x01\x01");
    f[7] = 64; // ELFOSABI_AMDGPU_HSA
    f[8] = 3; // code object v5
    put(&mut f, 16, &3u16.to_le_bytes()); // ET_DYN
    put(&mut f, 18, &224u16.to_le_bytes()); // EM_AMDGPU
    put(&mut f, 20, &1u32.to_le_bytes());
    put(&mut f, 32, &64u64.to_le_bytes()); // e_phoff
    put(&mut f, 40, &(shoff as u64).to_le_bytes());
    put(&mut f, 48, &spec.e_flags.to_le_bytes());
    put(&mut f, 52, &64u16.to_le_bytes());
    put(&mut f, 54, &56u16.to_le_bytes());
    put(&mut f, 56, &2u16.to_le_bytes());
    put(&mut f, 58, &64u16.to_le_bytes());
    put(&mut f, 60, &4u16.to_le_bytes());
    put(&mut f, 62, &0u16.to_le_bytes());
    // PT_LOAD over the file up to the section headers, with .bss after.
    let mut p = [0u8; 56];
    put(&mut p, 0, &1u32.to_le_bytes());
    put(&mut p, 32, &load_end.to_le_bytes());
    put(&mut p, 40, &(load_end + BSS).to_le_bytes());
    put(&mut f, 64, &p);
    // PT_NOTE.
    let mut p = [0u8; 56];
    put(&mut p, 0, &4u32.to_le_bytes());
    put(&mut p, 8, &(note_at as u64).to_le_bytes());
    put(&mut p, 16, &(note_at as u64).to_le_bytes());
    put(&mut p, 32, &(note_len as u64).to_le_bytes());
    put(&mut p, 40, &(note_len as u64).to_le_bytes());
    put(&mut f, 120, &p);
    f
}

/// `Mp` is test-only and small: a copy without deriving `Clone`.
fn copy(m: &Mp) -> Mp {
    match m {
        Mp::U(v) => Mp::U(*v),
        Mp::S(s) => Mp::S(s),
        Mp::B(b) => Mp::B(*b),
        Mp::A(items) => Mp::A(items.iter().map(copy).collect()),
        Mp::M(entries) => Mp::M(entries.iter().map(|(k, v)| (*k, copy(v))).collect()),
    }
}

fn le(b: &[u8], at: usize, n: usize) -> u64 {
    b[at..at + n]
        .iter()
        .rev()
        .fold(0, |acc, &x| (acc << 8) | u64::from(x))
}

#[test]
fn a_hand_made_object_parses_and_loads_with_every_relocation_type() {
    let elf = build(&Spec::default());
    let co = CodeObject::parse(&elf).unwrap();
    assert_eq!(co.target_id(), "gfx942:sramecc+:xnack-");
    assert_eq!(co.version(), 5);
    let end = (CODE + 16) as u64 + BSS;
    assert_eq!(co.load_size(), end.div_ceil(4096) * 4096);
    let k = co.kernel("k").unwrap();
    assert_eq!(k.descriptor_offset, DESC as u64);
    assert_eq!(k.group_segment_fixed_size, 128);
    assert_eq!(k.args[0].name.as_deref(), Some("out"));
    assert_eq!(k.args[1].kind, ArgKind::Hidden(HiddenArg::BlockCountX));
    assert_eq!(co.global("data"), Some((DATA as u64, 32)));
    assert_eq!(co.global("k.kd"), None);
    assert_eq!(co.symbol("k"), Some(CODE as u64));

    let base = 0x1234_5678_9000u64;
    let mut image = vec![0x55u8; co.load_size() as usize];
    co.load(base, &mut image).unwrap();
    assert_eq!(le(&image, DATA, 8), base + 0x300);
    assert_eq!(le(&image, DATA + 8, 8), base + DATA as u64 + 4);
    assert_eq!(le(&image, DATA + 16, 4), (base + DATA as u64) & 0xffff_ffff);
    assert_eq!(le(&image, DATA + 24, 4), (base + DATA as u64) >> 32);
    assert_eq!(le(&image, DATA + 32, 4), 0, "a weak undefined symbol is 0");
    assert_eq!(le(&image, DATA + 40, 8), 0xeeee_eeee_eeee_eeee, "untouched");
    assert!(
        image[CODE + 16..].iter().all(|&b| b == 0),
        ".bss and the tail are zeroed"
    );
    assert_eq!(le(&image, DESC, 4), 128);
}

#[test]
fn a_relocation_against_an_undefined_symbol_names_it() {
    let elf = build(&Spec {
        relocations: vec![(3, 4, 0)],
        ..Spec::default()
    });
    let co = CodeObject::parse(&elf).unwrap();
    let mut image = vec![0u8; co.load_size() as usize];
    let e = co.load(0x1000, &mut image).unwrap_err();
    assert_eq!(
        e,
        Error::UndefinedSymbol {
            symbol: "ext".into(),
            offset: DATA as u64
        }
    );
    assert!(e.to_string().contains("`ext`"), "{e}");
}

#[test]
fn unknown_relocation_types_and_bad_symbol_indices_are_refused() {
    let e = CodeObject::parse(&build(&Spec {
        relocations: vec![(5, 2, 0)],
        ..Spec::default()
    }))
    .unwrap_err();
    assert!(e.to_string().contains("relocation type 5"), "{e}");
    let e = CodeObject::parse(&build(&Spec {
        relocations: vec![(3, 99, 0)],
        ..Spec::default()
    }))
    .unwrap_err();
    assert!(e.to_string().contains("symbol index 99"), "{e}");
}

#[test]
fn bad_metadata_names_the_kernel_and_the_field() {
    let e = CodeObject::parse(&build(&Spec {
        kernel: kernel_meta(48, 16),
        ..Spec::default()
    }))
    .unwrap_err();
    assert!(
        e.to_string().contains("kernel `k`") && e.to_string().contains("48"),
        "{e}"
    );
    let e = CodeObject::parse(&build(&Spec {
        kernel: kernel_meta(64, 22),
        ..Spec::default()
    }))
    .unwrap_err();
    assert!(e.to_string().contains("argument 1"), "{e}");
    let e = CodeObject::parse(&build(&Spec {
        kernel: Mp::M(vec![(".name", Mp::S("k"))]),
        ..Spec::default()
    }))
    .unwrap_err();
    assert!(e.to_string().contains("no `.kernarg_segment_size`"), "{e}");
    let e = CodeObject::parse(&build(&Spec {
        kernel: Mp::U(3),
        ..Spec::default()
    }))
    .unwrap_err();
    assert!(e.to_string().contains("not a map"), "{e}");
}

#[test]
fn unknown_processors_and_features_are_read_from_e_flags() {
    let co = CodeObject::parse(&build(&Spec {
        e_flags: 0x41,
        ..Spec::default()
    }))
    .unwrap();
    assert_eq!(co.target_id(), "gfx1100");
    let co = CodeObject::parse(&build(&Spec {
        e_flags: 0x4c | 0x300 | 0x400,
        ..Spec::default()
    }))
    .unwrap();
    assert_eq!(co.target_id(), "gfx942:xnack+");
    let e = CodeObject::parse(&build(&Spec {
        e_flags: 0x20,
        ..Spec::default()
    }))
    .unwrap_err();
    assert!(e.to_string().contains("0x020"), "{e}");
}

/// A small deterministic generator for the fuzz-like tests.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

fn exercise(bytes: &[u8]) {
    if let Ok(co) = CodeObject::parse(bytes) {
        if co.load_size() <= 1 << 20 {
            let mut image = vec![0u8; co.load_size() as usize];
            let _ = co.load(0xffff_ffff_ffff_0000, &mut image);
        }
        let dims = LaunchDims {
            grid: [1; 3],
            block: [1; 3],
            dynamic_lds: 0,
        };
        for k in co.kernels() {
            let _ = kernarg(k, &[&[0; 8]], &dims);
            let _ = kernarg_from_buffer(k, &[0; 8], &dims);
        }
    }
    let _ = code_objects(bytes);
    let _ = select(bytes, Target::Gfx942);
}

#[test]
fn truncations_and_corruptions_never_panic() {
    let elf = build(&Spec::default());
    for len in 0..elf.len() {
        assert!(
            CodeObject::parse(&elf[..len]).is_err(),
            "prefix {len} parsed"
        );
        exercise(&elf[..len]);
    }
    let mut rng = Lcg(7);
    for at in 0..elf.len() {
        for flip in [0xff, 0x80, 0x01] {
            let mut bad = elf.clone();
            bad[at] ^= flip;
            exercise(&bad);
        }
        let mut bad = elf.clone();
        bad[at] = rng.next() as u8;
        exercise(&bad);
    }
}

#[test]
fn random_bytes_behind_each_magic_never_panic() {
    let mut rng = Lcg(42);
    let magics: [&[u8]; 5] = [
        b"",
        b"\x7fELF\x02\x01\x01\x40\x03",
        b"__CLANG_OFFLOAD_BUNDLE__",
        b"CCOB",
        b"// hip-rs amdgpu code object envelope v1\n",
    ];
    for round in 0..2000 {
        let magic = magics[round % magics.len()];
        let len = (rng.next() % 300) as usize;
        let mut bytes = magic.to_vec();
        bytes.extend((0..len).map(|_| rng.next() as u8));
        exercise(&bytes);
    }
    // A bundle claiming 2^64 - 1 entries.
    let mut b = b"__CLANG_OFFLOAD_BUNDLE__".to_vec();
    b.extend_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(code_objects(&b), Err(Error::Truncated { .. })));
}
