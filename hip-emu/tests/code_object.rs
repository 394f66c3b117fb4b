//! The code-object module on real code objects, compiled from
//! `tests/kernels/*.hip` for gfx942 (wave64) and gfx1100 (wave32).

mod common;

use hip_emu::code_object::{
    code_objects, device_target_id, kernarg, kernarg_from_buffer, select, select_target_id,
    ArgKind, CodeObject, Error, HiddenArg, KernelInfo, LaunchDims,
};
use hip_emu::isa::{Target, PRIVATE_APERTURE_BASE, SHARED_APERTURE_BASE};
use sha2::{Digest, Sha256};

fn object(source: &str, target: Target) -> Vec<u8> {
    common::code_object(source, target).expect("the kernel source exists")
}

fn parsed(source: &str, target: Target) -> CodeObject {
    CodeObject::parse(&object(source, target))
        .unwrap_or_else(|e| panic!("{source} for {target}: {e}"))
}

fn le(bytes: &[u8], at: usize, size: usize) -> u64 {
    bytes[at..at + size]
        .iter()
        .rev()
        .fold(0, |acc, &b| (acc << 8) | u64::from(b))
}

/// (offset, size, kind) of the explicit arguments.
fn explicit(k: &KernelInfo) -> Vec<(u32, u32, ArgKind)> {
    k.explicit_args()
        .map(|a| (a.offset, a.size, a.kind.clone()))
        .collect()
}

fn hidden(k: &KernelInfo, which: HiddenArg) -> Option<(usize, usize)> {
    k.args
        .iter()
        .find(|a| a.kind == ArgKind::Hidden(which.clone()))
        .map(|a| (a.offset as usize, a.size as usize))
}

#[test]
fn saxpy_metadata_matches_the_source_on_both_targets() {
    for target in Target::ALL {
        let co = parsed("saxpy", target);
        assert_eq!(co.processor(), target.name());
        assert!(
            co.target_id().starts_with(target.name()),
            "{}",
            co.target_id()
        );
        assert!(co.version() >= 5, "code object v{}", co.version());
        assert_eq!(co.kernels().len(), 1);
        let k = co.kernel("saxpy").expect("saxpy is there");
        assert_eq!(k.symbol, "saxpy.kd");
        assert_eq!(k.wavefront_size, target.wave_size());
        assert_eq!(
            explicit(k),
            [
                (0, 4, ArgKind::ByValue),
                (4, 4, ArgKind::ByValue),
                (8, 8, ArgKind::GlobalBuffer),
                (16, 8, ArgKind::GlobalBuffer),
            ]
        );
        // Code object v5's hidden arguments.
        for h in [
            HiddenArg::BlockCountX,
            HiddenArg::BlockCountY,
            HiddenArg::BlockCountZ,
            HiddenArg::GroupSizeX,
            HiddenArg::GroupSizeY,
            HiddenArg::GroupSizeZ,
            HiddenArg::GridDims,
        ] {
            assert!(hidden(k, h.clone()).is_some(), "{h:?} in {target}");
        }
        assert_eq!(k.group_segment_fixed_size, 0);
        assert_eq!(k.kernarg_align, 8);
        assert!(k.kernarg_size >= 24 && k.kernarg_size % 8 == 0);
        assert!(k.sgpr_count > 0 && k.vgpr_count > 0);
        assert_eq!(k.max_flat_workgroup_size, 1024);
        assert!(!k.uses_dynamic_stack);
        assert!(co.kernel("nope").is_none());
    }
}

#[test]
fn struct_and_3d_kernels_have_their_argument_layouts() {
    for target in Target::ALL {
        let co = parsed("struct_arg", target);
        let k = co.kernel("affine").unwrap();
        // struct Params { float; int; double[3]; char; }: 33 bytes, 8-aligned: 40.
        assert_eq!(
            explicit(k),
            [
                (0, 40, ArgKind::ByValue),
                (40, 8, ArgKind::GlobalBuffer),
                (48, 8, ArgKind::GlobalBuffer),
            ]
        );
        assert_eq!(k.explicit_size(), 56);

        let co = parsed("index3d", target);
        let k = co.kernel("index3d").unwrap();
        assert_eq!(explicit(k), [(0, 8, ArgKind::GlobalBuffer)]);
        assert_eq!(k.wavefront_size, target.wave_size());
    }
}

#[test]
fn dynamic_shared_kernel_has_its_static_lds_and_dynamic_lds_argument() {
    for target in Target::ALL {
        let co = parsed("dynamic_shared", target);
        let k = co.kernel("reverse_block").unwrap();
        // __shared__ int block_sum[4]; the extern array adds nothing static.
        assert_eq!(k.group_segment_fixed_size, 16);
        assert!(hidden(k, HiddenArg::DynamicLdsSize).is_some(), "{target}");
    }
}

#[test]
fn loaded_descriptors_agree_with_the_metadata() {
    let base = 0x7f00_0010_0000u64;
    for source in [
        "saxpy",
        "globals",
        "dynamic_shared",
        "index3d",
        "struct_arg",
    ] {
        for target in Target::ALL {
            let co = parsed(source, target);
            assert!(co.load_size() > 0 && co.load_size() % 4096 == 0);
            let mut image = vec![0xa5u8; co.load_size() as usize + 100];
            co.load(base, &mut image).unwrap();
            for k in co.kernels() {
                // AMDGPUUsage's kernel descriptor: group segment at 0, private
                // segment at 4, kernarg size at 8, code entry offset (from the
                // descriptor) at 16.
                let d = k.descriptor_offset as usize;
                assert_eq!(co.symbol(&k.symbol), Some(k.descriptor_offset));
                assert_eq!(le(&image, d, 4), u64::from(k.group_segment_fixed_size));
                assert_eq!(
                    le(&image, d + 4, 4),
                    u64::from(k.private_segment_fixed_size)
                );
                assert_eq!(le(&image, d + 8, 4), u64::from(k.kernarg_size));
                let entry = (le(&image, d + 16, 8) as i64).wrapping_add(d as i64);
                assert_eq!(
                    Some(entry as u64),
                    co.symbol(&k.name),
                    "{source} {target}: the descriptor's entry is the kernel's code"
                );
            }
            // What load does not cover stays as it was.
            assert!(image[co.load_size() as usize..].iter().all(|&b| b == 0xa5));
        }
    }
}

#[test]
fn globals_are_found_and_relocated_pointers_point_into_the_image() {
    let base = 0x0000_5000_0000_0000u64;
    for target in Target::ALL {
        let co = parsed("globals", target);
        let (counter, counter_size) = co.global("counter").expect("counter");
        let (ptr, ptr_size) = co.global("counter_ptr").expect("counter_ptr");
        let (table, table_size) = co.global("table").expect("table");
        assert_eq!((counter_size, ptr_size, table_size), (4, 8, 64));
        assert!(
            co.global("lookup.kd").is_none(),
            "a descriptor is no global"
        );
        assert!(co.global("lookup").is_none(), "a kernel is no global");
        assert!(co.global("missing").is_none());

        let mut image = vec![0u8; co.load_size() as usize];
        co.load(base, &mut image).unwrap();
        assert_eq!(
            le(&image, counter as usize, 4),
            5,
            "counter's initial value"
        );
        for i in 0..16 {
            let bits = le(&image, table as usize + 4 * i, 4) as u32;
            assert_eq!(f32::from_bits(bits), i as f32);
        }
        // counter_ptr = &counter: an R_AMDGPU_RELATIVE64 applied for `base`.
        let p = le(&image, ptr as usize, 8);
        assert!(p >= base && p < base + co.load_size(), "{p:#x}");
        assert_eq!(p, base + counter);

        // Another base relocates to another address.
        co.load(base + 0x10000, &mut image).unwrap();
        assert_eq!(le(&image, ptr as usize, 8), base + 0x10000 + counter);
    }
}

#[test]
fn load_refuses_a_small_destination() {
    let co = parsed("globals", Target::Gfx942);
    let mut small = vec![0u8; co.load_size() as usize - 1];
    let e = co.load(0x1000, &mut small).unwrap_err();
    assert!(matches!(e, Error::DestinationTooSmall { .. }), "{e}");
}

/// A compressed bundle (clang's `--offload-compress`, as ROCm 7's
/// libraries ship their kernels) gives the same code objects as the plain
/// one; a cut one, and one whose inflated size disagrees with its header,
/// are errors naming the bundle.
#[test]
fn compressed_bundles_inflate_to_the_same_code_objects() {
    let plain = common::bundle("saxpy", &Target::ALL).unwrap();
    let ccob = common::bundle_with("saxpy", &Target::ALL, &["--offload-compress".into()]).unwrap();
    assert!(ccob.starts_with(b"CCOB"), "{:02x?}", &ccob[..8]);
    assert!(
        ccob.len() < plain.len(),
        "{} vs {}",
        ccob.len(),
        plain.len()
    );
    // The two compiles differ in a hash clang puts in a symbol name, so
    // the code objects are compared by what they hold: per target, the
    // same kernels with the same code size and descriptor.
    let ids = |v: &[(String, Vec<u8>)]| {
        let mut ids: Vec<String> = v.iter().map(|(id, _)| id.clone()).collect();
        ids.sort();
        ids
    };
    assert_eq!(
        ids(&code_objects(&ccob).unwrap()),
        ids(&code_objects(&plain).unwrap())
    );
    for target in Target::ALL {
        let (a, b) = (
            select(&plain, target).unwrap(),
            select(&ccob, target).unwrap(),
        );
        let (a, b) = (
            CodeObject::parse(&a).unwrap(),
            CodeObject::parse(&b).unwrap(),
        );
        assert_eq!(a.processor(), b.processor());
        let (ka, kb) = (a.kernel("saxpy").unwrap(), b.kernel("saxpy").unwrap());
        assert_eq!(ka.vgpr_count, kb.vgpr_count, "{target}");
        assert_eq!(ka.wavefront_size, kb.wavefront_size, "{target}");
        assert_eq!(a.load_size(), b.load_size(), "{target}");
    }
    // The header records the total size (versions 2 and 3): a cut bundle
    // is refused before any inflating.
    let e = code_objects(&ccob[..ccob.len() - 1]).unwrap_err();
    assert!(e.to_string().contains("compressed offload bundle"), "{e}");
    // A wrong uncompressed size (at bytes 12..16 in version 2, which clang
    // 21 writes; 16..24 in version 3).
    let mut wrong = ccob.clone();
    let at = match u16::from_le_bytes([wrong[4], wrong[5]]) {
        2 => 12,
        3 => 16,
        v => panic!("compressed bundle version {v}"),
    };
    wrong[at] ^= 1;
    let e = code_objects(&wrong).unwrap_err();
    assert!(e.to_string().contains("the header says"), "{e}");
}

#[test]
fn bundles_split_and_select_picks_each_target() {
    let bundle = common::bundle("saxpy", &Target::ALL).unwrap();
    assert!(bundle.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"));
    let entries = code_objects(&bundle).unwrap();
    let mut ids: Vec<&str> = entries.iter().map(|(id, _)| id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["gfx1100", "gfx942"], "the host entry is skipped");
    for target in Target::ALL {
        let elf = select(&bundle, target).unwrap();
        let co = CodeObject::parse(&elf).unwrap();
        assert_eq!(co.processor(), target.name());
        assert_eq!(
            co.kernel("saxpy").unwrap().wavefront_size,
            target.wave_size()
        );
    }

    let only_942 = common::bundle("saxpy", &[Target::Gfx942]).unwrap();
    let e = select(&only_942, Target::Gfx1100).unwrap_err();
    assert_eq!(
        e,
        Error::NoCompatibleTarget {
            wanted: "gfx1100".into(),
            available: vec!["gfx942".into()],
        }
    );
    assert!(e.to_string().contains("gfx942"), "{e}");
    let e = select_target_id(&bundle, "gfx90a:xnack-").unwrap_err();
    assert!(e.to_string().contains("gfx90a") && e.to_string().contains("gfx1100"));
}

#[test]
fn a_plain_elf_is_one_entry_and_selects_by_its_target_id() {
    let elf = object("saxpy", Target::Gfx1100);
    let entries = code_objects(&elf).unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].0, "gfx1100");
    assert_eq!(entries[0].1, elf);
    assert_eq!(select(&elf, Target::Gfx1100).unwrap(), elf);
    assert!(select(&elf, Target::Gfx942).is_err());
    // The default compile leaves sramecc and xnack unspecified: it runs on
    // either setting.
    let elf = object("saxpy", Target::Gfx942);
    assert_eq!(code_objects(&elf).unwrap()[0].0, "gfx942");
    assert!(select_target_id(&elf, "gfx942:sramecc-:xnack+").is_ok());
    assert_eq!(device_target_id(Target::Gfx942), "gfx942:sramecc+:xnack-");
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = c
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= c.len() {
                A[(n >> (18 - 6 * i)) as usize & 63] as char
            } else {
                '='
            });
        }
    }
    out
}

#[test]
fn an_envelope_of_a_bundle_is_read_through() {
    let bundle = common::bundle("index3d", &Target::ALL).unwrap();
    let sha: String = Sha256::digest(&bundle)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut text = format!(
        "// hip-rs amdgpu code object envelope v1\n// source: index3d.hip\n\
         // targets: gfx942 gfx1100\n// sha256: {sha}\n// begin base64 {}\n",
        bundle.len()
    );
    for line in base64(&bundle).as_bytes().chunks(76) {
        text.push_str(std::str::from_utf8(line).unwrap());
        text.push('\n');
    }
    text.push_str("// end\n");
    let elf = select(text.as_bytes(), Target::Gfx942).unwrap();
    assert_eq!(CodeObject::parse(&elf).unwrap().processor(), "gfx942");
    assert_eq!(
        code_objects(text.as_bytes()).unwrap(),
        code_objects(&bundle).unwrap()
    );

    let corrupt = text.replacen("// begin base64", "// note: x\n// begin base64", 1);
    assert!(
        select(corrupt.as_bytes(), Target::Gfx942).is_ok(),
        "unknown keys pass"
    );
    let corrupt = text.replace(&sha, &"0".repeat(64));
    let e = select(corrupt.as_bytes(), Target::Gfx942).unwrap_err();
    assert!(e.to_string().contains("SHA-256"), "{e}");
}

#[test]
fn kernarg_places_explicit_args_and_fills_hidden_ones() {
    for target in Target::ALL {
        let co = parsed("saxpy", target);
        let k = co.kernel("saxpy").unwrap();
        let dims = LaunchDims {
            grid: [7, 3, 2],
            block: [256, 2, 1],
            dynamic_lds: 0,
        };
        let n = 1000i32.to_le_bytes();
        let a = 2.5f32.to_le_bytes();
        let x = 0x1111_2222_3333_4444u64.to_le_bytes();
        let y = 0x5555_6666_7777_8888u64.to_le_bytes();
        let args = kernarg(k, &[&n, &a, &x, &y], &dims).unwrap();
        assert_eq!(args.len(), k.kernarg_size as usize);
        assert_eq!(&args[0..4], n);
        assert_eq!(&args[4..8], a);
        assert_eq!(&args[8..16], x);
        assert_eq!(&args[16..24], y);
        let expect = [
            (HiddenArg::BlockCountX, 7),
            (HiddenArg::BlockCountY, 3),
            (HiddenArg::BlockCountZ, 2),
            (HiddenArg::GroupSizeX, 256),
            (HiddenArg::GroupSizeY, 2),
            (HiddenArg::GroupSizeZ, 1),
            (HiddenArg::RemainderX, 0),
            (HiddenArg::GlobalOffsetX, 0),
            (HiddenArg::GridDims, 3),
        ];
        for (h, v) in expect {
            let (at, size) = hidden(k, h.clone()).unwrap();
            assert_eq!(le(&args, at, size), v, "{h:?} on {target}");
        }

        // The `extra` form gives the same bytes.
        let mut buffer = Vec::new();
        for part in [&n[..], &a, &x, &y] {
            buffer.extend_from_slice(part);
        }
        assert_eq!(kernarg_from_buffer(k, &buffer, &dims).unwrap(), args);
        // A longer buffer (as rocBLAS gives) is taken, its tail ignored.
        let mut longer = buffer.clone();
        longer.resize(k.kernarg_size as usize + 16, 0xee);
        assert_eq!(kernarg_from_buffer(k, &longer, &dims).unwrap(), args);
        let e = kernarg_from_buffer(k, &buffer[..20], &dims).unwrap_err();
        assert!(
            matches!(
                e,
                Error::ArgumentBuffer {
                    min: 24,
                    given: 20,
                    ..
                }
            ),
            "{e}"
        );

        // Wrong sizes and counts name the argument.
        let e = kernarg(k, &[&n, &a, &x[..4], &y], &dims).unwrap_err();
        assert_eq!(
            e,
            Error::ArgumentSize {
                kernel: "saxpy".into(),
                index: 2,
                expected: 8,
                given: 4
            }
        );
        assert!(e.to_string().contains("argument 2"), "{e}");
        let e = kernarg(k, &[&n, &a, &x], &dims).unwrap_err();
        assert!(
            matches!(
                e,
                Error::ArgumentCount {
                    expected: 4,
                    given: 3,
                    ..
                }
            ),
            "{e}"
        );
    }
}

#[test]
fn kernarg_fills_dynamic_lds_and_apertures_where_asked() {
    let co = parsed("dynamic_shared", Target::Gfx942);
    let k = co.kernel("reverse_block").unwrap();
    let dims = LaunchDims {
        grid: [4, 1, 1],
        block: [64, 1, 1],
        dynamic_lds: 256,
    };
    let p = 0u64.to_le_bytes();
    let args = kernarg(k, &[&p, &p], &dims).unwrap();
    let (at, size) = hidden(k, HiddenArg::DynamicLdsSize).unwrap();
    assert_eq!(le(&args, at, size), 256);

    // A kernel that reads the apertures (hand-made from the real one, as
    // the compiler asks for them only in generic address casts).
    let mut k = k.clone();
    k.args.push(hip_emu::code_object::KernelArg {
        offset: 144,
        size: 4,
        kind: ArgKind::Hidden(HiddenArg::PrivateBase),
        name: None,
    });
    k.args.push(hip_emu::code_object::KernelArg {
        offset: 148,
        size: 4,
        kind: ArgKind::Hidden(HiddenArg::SharedBase),
        name: None,
    });
    let args = kernarg(&k, &[&p, &p], &dims).unwrap();
    assert_eq!(le(&args, 144, 4), PRIVATE_APERTURE_BASE >> 32);
    assert_eq!(le(&args, 148, 4), SHARED_APERTURE_BASE >> 32);
}

#[test]
fn bad_inputs_are_errors() {
    let elf = object("saxpy", Target::Gfx942);
    let e = CodeObject::parse(&elf[..40]).unwrap_err();
    assert!(matches!(e, Error::Truncated { .. }), "{e}");
    assert!(e.to_string().contains("ELF header"), "{e}");

    let mut x86 = elf.clone();
    x86[18..20].copy_from_slice(&62u16.to_le_bytes());
    let e = CodeObject::parse(&x86).unwrap_err();
    assert!(e.to_string().contains("e_machine is 62"), "{e}");

    let mut v3 = elf.clone();
    v3[8] = 1;
    let e = CodeObject::parse(&v3).unwrap_err();
    assert!(e.to_string().contains("code object v3"), "{e}");

    let mut unknown = elf.clone();
    unknown[48] = 0xfe;
    let e = CodeObject::parse(&unknown).unwrap_err();
    assert!(e.to_string().contains("0x0fe"), "{e}");

    let e = code_objects(b"CCOB\x01\x00\x02\x00rest").unwrap_err();
    assert!(e.to_string().contains("compressed"), "{e}");
    let e = code_objects(b"hello, world").unwrap_err();
    assert!(matches!(e, Error::UnknownFormat { .. }), "{e}");
    let e = code_objects(b"").unwrap_err();
    assert!(matches!(e, Error::UnknownFormat { .. }), "{e}");

    let bundle = common::bundle("saxpy", &Target::ALL).unwrap();
    let e = code_objects(&bundle[..bundle.len() - 100]).unwrap_err();
    assert!(
        e.to_string().contains("hipv4-amdgcn-amd-amdhsa--gfx"),
        "{e}"
    );
}

/// Every prefix of real objects and bundles, and every single-byte
/// corruption of an object: errors or (for corruptions) a parse, never a
/// panic; whatever parses also loads without panicking.
#[test]
fn truncated_and_corrupted_objects_never_panic() {
    for target in Target::ALL {
        let elf = object("globals", target);
        for len in 0..elf.len() {
            // The section headers come last: every proper prefix lacks some.
            assert!(
                CodeObject::parse(&elf[..len]).is_err(),
                "prefix of {len} bytes parsed"
            );
            let _ = code_objects(&elf[..len]);
        }
        for at in 0..elf.len() {
            let mut bad = elf.clone();
            bad[at] ^= 0xff;
            if let Ok(co) = CodeObject::parse(&bad) {
                if co.load_size() > 1 << 20 {
                    continue; // a corrupt segment size: loading it would only cost time
                }
                let mut image = vec![0u8; co.load_size() as usize];
                let _ = co.load(0x1_0000_0000, &mut image);
                for k in co.kernels() {
                    let _ = kernarg(
                        k,
                        &[],
                        &LaunchDims {
                            grid: [1; 3],
                            block: [1; 3],
                            dynamic_lds: 0,
                        },
                    );
                }
            }
        }
    }
    let bundle = common::bundle("saxpy", &Target::ALL).unwrap();
    for len in 0..bundle.len() {
        let _ = code_objects(&bundle[..len]);
        let _ = select(&bundle[..len], Target::Gfx942);
    }
}
