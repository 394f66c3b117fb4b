//! The interpreter on real code objects: kernels from `tests/kernels`
//! compiled by HIP's clang for gfx942 (wave64) and gfx1100 (wave32),
//! executed on plain host memory, results checked against the host.

mod common;

use common::launch::{bytes, values, Loaded};
use hip_emu::code_object::{self, CodeObject, LaunchDims};
use hip_emu::isa::{self, rt, Counters, Dispatch, LaunchError, Target};

fn load(target: Target) -> Loaded {
    load_named("isa_basic", target)
}

#[test]
fn saxpy_on_both_targets() {
    for target in Target::ALL {
        let l = load(target);
        let n = 1000u32;
        let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
        let y: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
        let xd = l.mem.alloc(&bytes(&x));
        let yd = l.mem.alloc(&bytes(&y));
        let c = l
            .launch(
                "saxpy",
                n.div_ceil(256),
                256,
                &[
                    &2.5f32.to_le_bytes(),
                    &xd.to_le_bytes(),
                    &yd.to_le_bytes(),
                    &n.to_le_bytes(),
                ],
            )
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<f32>(&l.mem.read(yd, 4 * n as usize));
        for i in 0..n as usize {
            assert_eq!(out[i], 2.5f32.mul_add(x[i], y[i]), "{target} y[{i}]");
        }
        let waves = (256 / target.wave_size() as u64) * n.div_ceil(256) as u64;
        assert_eq!(c.waves, waves, "{target}");
        assert!(c.lane_instructions > n as u64, "{target}: {c:?}");
    }
}

#[test]
fn reduce_uses_lds_barriers_and_atomics() {
    for target in Target::ALL {
        let l = load(target);
        let n = 3000u32;
        let x: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
        let xd = l.mem.alloc(&bytes(&x));
        let od = l.mem.alloc(&0f32.to_le_bytes());
        let c = l
            .launch(
                "reduce",
                n.div_ceil(256),
                256,
                &[&xd.to_le_bytes(), &od.to_le_bytes(), &n.to_le_bytes()],
            )
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = values::<f32>(&l.mem.read(od, 4))[0];
        let want: f32 = x.iter().sum();
        assert_eq!(got, want, "{target}");
        assert!(c.lds_bytes >= 2 * 4 * n as u64, "{target}: {c:?}");
    }
}

#[test]
fn integer_ops_match_the_host() {
    for target in Target::ALL {
        let l = load(target);
        let n = 500u32;
        let x: Vec<u32> = (0..n)
            .map(|i| i.wrapping_mul(2_654_435_761).rotate_left(i % 32) ^ i)
            .collect();
        let xd = l.mem.alloc(&bytes(&x));
        let od = l.mem.alloc(&vec![0u8; 32 * n as usize]);
        l.launch(
            "integer_ops",
            n.div_ceil(128),
            128,
            &[&xd.to_le_bytes(), &od.to_le_bytes(), &n.to_le_bytes()],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<u64>(&l.mem.read(od, 32 * n as usize));
        for (i, &v) in x.iter().enumerate() {
            let a = v as u64 * 2_654_435_761u64;
            assert_eq!(out[4 * i], a ^ (a >> 17), "{target} mul64 of {v}");
            assert_eq!(
                out[4 * i + 1],
                (v / 7 + v % 13) as u64,
                "{target} div of {v}"
            );
            assert_eq!(
                out[4 * i + 2],
                ((v as i32) >> 3) as i64 as u64,
                "{target} ashr of {v}"
            );
            let bits = v.count_ones() as u64
                + (((v | 1).leading_zeros() as u64) << 8)
                + ((v.reverse_bits() as u64) << 16);
            assert_eq!(out[4 * i + 3], bits, "{target} bit ops of {v:#x}");
        }
    }
}

#[test]
fn float_ops_match_the_host() {
    for target in Target::ALL {
        let l = load(target);
        let mut x: Vec<f32> = (0..300).map(|i| (i as f32 - 150.0) * 0.37).collect();
        x.extend([0.0, -0.0, 1e-30, 65504.0, 1e6, 3.0, -7.5]);
        let n = x.len() as u32;
        let xd = l.mem.alloc(&bytes(&x));
        let od = l.mem.alloc(&vec![0u8; 24 * n as usize]);
        l.launch(
            "float_ops",
            n.div_ceil(64),
            64,
            &[&xd.to_le_bytes(), &od.to_le_bytes(), &n.to_le_bytes()],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<f32>(&l.mem.read(od, 24 * n as usize));
        for (i, &v) in x.iter().enumerate() {
            let o = &out[6 * i..6 * i + 6];
            assert_eq!(o[0], v / 3.0, "{target} {v}/3");
            assert_eq!(o[1], v.abs().sqrt(), "{target} sqrt {v}");
            assert_eq!(o[2], v as i32 as f32, "{target} trunc {v}");
            assert_eq!(o[3], v.max(0.5) - v.min(-0.5), "{target} max/min {v}");
            assert_eq!(o[4], (v as f64 * 1.0000001) as f32, "{target} f64 {v}");
            let h = half_round(v);
            assert_eq!(o[5].to_bits(), h.to_bits(), "{target} half {v}");
        }
    }
}

/// `v` rounded to the nearest half and back.
fn half_round(v: f32) -> f32 {
    rt::f16_to_f32(rt::f32_to_f16(v))
}

#[test]
fn wave_shuffles_sum_each_wave() {
    for target in Target::ALL {
        let l = load(target);
        let ws = target.wave_size() as usize;
        let n = 256usize;
        let x: Vec<i32> = (0..n as i32).map(|i| i * 3 - 100).collect();
        let xd = l.mem.alloc(&bytes(&x));
        let od = l.mem.alloc(&vec![0u8; 4 * n]);
        l.launch("wave_sum", 2, 128, &[&xd.to_le_bytes(), &od.to_le_bytes()])
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<u32>(&l.mem.read(od, 4 * n));
        for (w, chunk) in x.chunks(ws).enumerate() {
            let s: i32 = chunk.iter().sum();
            for j in 0..ws {
                assert_eq!(out[w * ws + j] as i32, s, "{target} wave {w} lane {j}");
            }
        }
    }
}

#[test]
fn an_out_of_bounds_store_faults_naming_the_address() {
    for target in Target::ALL {
        let l = load(target);
        let pd = l.mem.alloc(&[0u8; 16]);
        let offset: i64 = 1 << 20;
        let err = l
            .launch(
                "write_at",
                1,
                1,
                &[&pd.to_le_bytes(), &offset.to_le_bytes()],
            )
            .unwrap_err();
        match &err {
            LaunchError::MemoryFault {
                kernel,
                address,
                instruction,
                ..
            } => {
                assert_eq!(kernel, "write_at");
                assert_eq!(*address, pd + 4 * offset as u64, "{target}: {err}");
                assert!(instruction.contains("store"), "{target}: {err}");
            }
            other => panic!("{target}: {other}"),
        }
        // In bounds, the same kernel writes.
        l.launch("write_at", 1, 1, &[&pd.to_le_bytes(), &3i64.to_le_bytes()])
            .unwrap();
        assert_eq!(values::<u32>(&l.mem.read(pd, 16))[3], 1);
    }
}

#[test]
fn scan_finds_every_instruction_of_the_test_kernels_supported() {
    for target in Target::ALL {
        let elf = common::code_object("isa_basic", target).unwrap();
        let co = CodeObject::parse(&elf).unwrap();
        let scan = isa::scan(target, &co.code());
        assert!(scan.undecoded.is_empty(), "{target}: {:x?}", scan.undecoded);
        assert!(
            scan.instructions.len() > 40,
            "{target}: {} distinct",
            scan.instructions.len()
        );
        let missing: Vec<_> = scan.unsupported().collect();
        assert!(missing.is_empty(), "{target}: {missing:#?}");
        assert!(scan.instructions.iter().any(|e| e.mnemonic == "s_endpgm"));
    }
}

/// Zero words after `s_endpgm` are the padding before the next kernel's
/// entry (rocBLAS's Tensile objects hold thousands): counted apart, not as
/// undecodable; zeros elsewhere on gfx1100 are no instruction.
#[test]
fn scan_counts_padding_after_a_program_end_apart() {
    let endpgm = 0xbfb0_0000u32; // gfx11's s_endpgm
    let words = [endpgm, 0, 0, 0, endpgm];
    let code: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let scan = isa::scan(Target::Gfx1100, &[(0x100, &code[..])]);
    assert_eq!(scan.padding, 3);
    assert!(scan.undecoded.is_empty(), "{:x?}", scan.undecoded);
    let ends = scan.instructions.iter().find(|e| e.mnemonic == "s_endpgm");
    assert_eq!(ends.map(|e| e.count), Some(2));
    // Zeros that follow no program end are reported.
    let code: Vec<u8> = [0u32, endpgm]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let scan = isa::scan(Target::Gfx1100, &[(0x100, &code[..])]);
    assert_eq!(
        (scan.padding, scan.undecoded.clone()),
        (0, vec![(0x100, 0)])
    );
}

fn load_named(source: &str, target: Target) -> Loaded {
    let elf = common::code_object(source, target).expect("a test kernel");
    Loaded::new(&elf, target)
}

fn h(v: f32) -> u16 {
    rt::f32_to_f16(v)
}

fn hf(v: u16) -> f32 {
    rt::f16_to_f32(v)
}

#[test]
fn halves_packed_and_scalar() {
    for target in Target::ALL {
        let l = load_named("isa_small", target);
        let n = 200u32;
        let a: Vec<u16> = (0..2 * n).map(|i| h((i as f32 - 200.0) * 0.125)).collect();
        let b: Vec<u16> = (0..2 * n)
            .map(|i| h(1.5 - (i % 37) as f32 * 0.0625))
            .collect();
        let ad = l.mem.alloc(&bytes(&a));
        let bd = l.mem.alloc(&bytes(&b));
        let od = l.mem.alloc(&vec![0u8; 12 * n as usize]);
        let fd = l.mem.alloc(&vec![0u8; 4 * n as usize]);
        l.launch(
            "halves",
            n.div_ceil(64),
            64,
            &[
                &ad.to_le_bytes(),
                &bd.to_le_bytes(),
                &od.to_le_bytes(),
                &fd.to_le_bytes(),
                &n.to_le_bytes(),
            ],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out: Vec<u16> = l
            .mem
            .read(od, 12 * n as usize)
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        let f = values::<f32>(&l.mem.read(fd, 4 * n as usize));
        for i in 0..n as usize {
            let (xl, xh, yl, yh) = (
                hf(a[2 * i]),
                hf(a[2 * i + 1]),
                hf(b[2 * i]),
                hf(b[2 * i + 1]),
            );
            let o = &out[6 * i..6 * i + 6];
            assert_eq!([o[0], o[1]], [h(xl + yl), h(xh + yh)], "{target} hadd2 {i}");
            let fma = |p: f32, q: f32| h(((p as f64) * (q as f64) + 0.25) as f32);
            assert_eq!(
                [o[2], o[3]],
                [fma(xl, yl), fma(xh, yh)],
                "{target} hfma2 {i}"
            );
            assert_eq!(
                [o[4], o[5]],
                [h(xh * yl), h(xl - yh)],
                "{target} halves {i}"
            );
            assert_eq!(f[i], xh * yl, "{target} f {i}");
        }
    }
}

#[test]
fn bytes_words_and_bfloat16() {
    for target in Target::ALL {
        let l = load_named("isa_small", target);
        let n = 300u32;
        let p: Vec<u32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
        let hb: Vec<u16> = (0..n)
            .map(|i| ((i as f32 - 100.0) * 0.75).to_bits().wrapping_shr(16) as u16)
            .collect();
        let pd = l.mem.alloc(&bytes(&p));
        let hd = l.mem.alloc(&bytes(&hb));
        let od = l.mem.alloc(&vec![0u8; 16 * n as usize]);
        l.launch(
            "bytes_and_bf16",
            n.div_ceil(64),
            64,
            &[
                &pd.to_le_bytes(),
                &hd.to_le_bytes(),
                &od.to_le_bytes(),
                &n.to_le_bytes(),
            ],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<f32>(&l.mem.read(od, 16 * n as usize));
        for (i, &v) in p.iter().enumerate() {
            let want = [
                ((v >> 8) & 0xff) as f32,
                ((v >> 24) as u8 as i8) as f32,
                ((v >> 16) as u16 as i16) as f32,
                f32::from_bits((hb[i] as u32) << 16) * 2.0 + 1.0,
            ];
            assert_eq!(&out[4 * i..4 * i + 4], &want, "{target} {i}: {v:#x}");
        }
    }
}

/// `__byte_perm` as CUDA defines it: byte `k` of the result is byte
/// `s >> 4k & 7` of the 8 bytes `{y, x}`.
fn byte_perm(x: u32, y: u32, s: u32) -> u32 {
    let v = (x as u64) | ((y as u64) << 32);
    (0..4).fold(0, |acc, k| {
        acc | ((((v >> (8 * ((s >> (4 * k)) & 7))) & 0xff) as u32) << (8 * k))
    })
}

#[test]
fn byte_permutes() {
    for target in Target::ALL {
        let l = load(target);
        let n = 256u32;
        let x: Vec<u32> = (0..n)
            .map(|i| i.wrapping_mul(0x0101_0307) ^ 0xa5c3_1e00)
            .collect();
        let s: Vec<u32> = (0..n)
            .map(|i| i.wrapping_mul(0x0123_4567) & 0x7777)
            .collect();
        let xd = l.mem.alloc(&bytes(&x));
        let sd = l.mem.alloc(&bytes(&s));
        let od = l.mem.alloc(&vec![0u8; 4 * n as usize]);
        l.launch(
            "byte_perm",
            4,
            64,
            &[
                &xd.to_le_bytes(),
                &sd.to_le_bytes(),
                &od.to_le_bytes(),
                &n.to_le_bytes(),
            ],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<u32>(&l.mem.read(od, 4 * n as usize));
        for i in 0..n as usize {
            assert_eq!(
                out[i],
                byte_perm(x[i], x[(i + 1) % n as usize], s[i]),
                "{target} {i}"
            );
        }
    }
}

#[test]
fn counters_say_what_a_dispatch_did() {
    let l = load(Target::Gfx942);
    let n = 512u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let xd = l.mem.alloc(&bytes(&x));
    let od = l.mem.alloc(&0f32.to_le_bytes());
    let c = l
        .launch(
            "reduce",
            2,
            256,
            &[&xd.to_le_bytes(), &od.to_le_bytes(), &n.to_le_bytes()],
        )
        .unwrap();
    assert_eq!(c.waves, 8);
    // Each of 512 work-items stores and loads its LDS element at least once.
    assert!(c.lds_bytes >= 2 * 4 * 512, "{c}");
    assert!(c.global_bytes >= 4 * 512, "{c}");
    assert_eq!(c.scratch_bytes, 0, "{c}");
    let text = c.to_string();
    assert!(text.starts_with("8 waves, "), "{text}");
    assert!(text.contains("DS "), "{text}");
}

/// Runs `kernel` of `l` with three-dimensional sizes and dynamic LDS.
fn launch_3d(
    l: &Loaded,
    kernel: &str,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_lds: u32,
    args: &[&[u8]],
) -> Result<Counters, LaunchError> {
    let info = l.co.kernel(kernel).expect("the kernel");
    let dims = LaunchDims {
        grid,
        block,
        dynamic_lds,
    };
    let ka = code_object::kernarg(info, args, &dims).expect("kernarg");
    let kernarg = l.mem.alloc(&ka);
    isa::execute(&Dispatch {
        target: l.target,
        kernel,
        descriptor: l.base + info.descriptor_offset,
        grid,
        block,
        kernarg,
        dynamic_lds,
        memory: &l.mem,
        host: None,
    })
}

#[test]
fn private_arrays_live_in_scratch_per_work_item() {
    for target in Target::ALL {
        let l = load(target);
        let n = 200u32;
        let idx: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
        let id = l.mem.alloc(&bytes(&idx));
        let od = l.mem.alloc(&vec![0u8; 4 * n as usize]);
        let c = l
            .launch(
                "private_array",
                n.div_ceil(64),
                64,
                &[&id.to_le_bytes(), &od.to_le_bytes(), &n.to_le_bytes()],
            )
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<u32>(&l.mem.read(od, 4 * n as usize));
        for i in 0..n {
            let want: u32 = (0..4)
                .map(|k| i * 100 + (idx[i as usize] + 7 * k) % 48)
                .sum();
            assert_eq!(out[i as usize], want, "{target} {i}");
        }
        assert!(c.scratch_bytes >= 4 * 52 * n as u64, "{target}: {c}");
    }
}

#[test]
fn three_dimensional_grids_and_blocks() {
    for target in Target::ALL {
        let elf = common::code_object("index3d", target).unwrap();
        let l = Loaded::new(&elf, target);
        let (grid, block) = ([3, 2, 2], [8, 4, 2]);
        let (w, h, d) = (24u32, 8u32, 4u32);
        let od = l.mem.alloc(&vec![0u8; 4 * (w * h * d) as usize]);
        launch_3d(&l, "index3d", grid, block, 0, &[&od.to_le_bytes()])
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<u32>(&l.mem.read(od, 4 * (w * h * d) as usize));
        for z in 0..d {
            for y in 0..h {
                for x in 0..w {
                    assert_eq!(
                        out[((z * h + y) * w + x) as usize],
                        x + 1000 * y + 1_000_000 * z,
                        "{target} {x},{y},{z}"
                    );
                }
            }
        }
    }
}

#[test]
fn dynamic_lds_follows_the_static_part() {
    for target in Target::ALL {
        let elf = common::code_object("dynamic_shared", target).unwrap();
        let l = Loaded::new(&elf, target);
        let (blocks, threads) = (3u32, 128u32);
        let x: Vec<f32> = (0..blocks * threads).map(|i| i as f32 * 1.5).collect();
        let xd = l.mem.alloc(&bytes(&x));
        let od = l.mem.alloc(&vec![0u8; x.len() * 4]);
        launch_3d(
            &l,
            "reverse_block",
            [blocks, 1, 1],
            [threads, 1, 1],
            4 * threads,
            &[&xd.to_le_bytes(), &od.to_le_bytes()],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<f32>(&l.mem.read(od, x.len() * 4));
        for b in 0..blocks {
            for t in 0..threads {
                assert_eq!(
                    out[(b * threads + t) as usize],
                    x[(b * threads + threads - 1 - t) as usize],
                    "{target} {b} {t}"
                );
            }
        }
        // Too little dynamic LDS for the block (4 floats after the 16
        // static bytes): as on the hardware, writes past the workgroup's
        // 32 bytes are dropped and reads there give 0, so only the threads
        // reading the tile's first 4 floats get a value
        // (HIP_EMU_STRICT_LDS=1 makes it an error: tests/strict_lds.rs).
        launch_3d(
            &l,
            "reverse_block",
            [1, 1, 1],
            [threads, 1, 1],
            16,
            &[&xd.to_le_bytes(), &od.to_le_bytes()],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<f32>(&l.mem.read(od, threads as usize * 4));
        for (t, &got) in out.iter().enumerate() {
            let k = threads as usize - 1 - t;
            let want = if k < 4 { x[k] } else { 0.0 };
            assert_eq!(
                got, want,
                "{target}: thread {t} with 16 bytes of dynamic LDS"
            );
        }
    }
}

#[test]
fn an_integer_clamp_stops_the_launch() {
    // v_dot4c/v_dot4_i32_i8 (gfx942) and v_dot4_i32_iu8 (gfx1100) with the
    // clamp bit saturate; the interpreter would wrap, so it refuses.
    for target in Target::ALL {
        let l = load_named("unexecuted", target);
        let a = l.mem.alloc(&bytes(&[0x7f7f_7f7fu32; 64]));
        let b = l.mem.alloc(&bytes(&[0x7f7f_7f7fu32; 64]));
        let o = l.mem.alloc(&bytes(&[i32::MAX; 64]));
        let e = l
            .launch(
                "dot_clamped",
                1,
                64,
                &[&a.to_le_bytes(), &b.to_le_bytes(), &o.to_le_bytes()],
            )
            .expect_err("a saturating dot product must not run");
        match &e {
            LaunchError::Unimplemented { instruction, .. } => {
                assert!(instruction.contains("v_dot4"), "{target}: {instruction}");
                assert!(instruction.contains("clamp bit"), "{target}: {instruction}");
            }
            other => panic!("{target}: {other:?}"),
        }
        // And `scan` says so before any launch.
        let elf = common::code_object("unexecuted", target).unwrap();
        let co = CodeObject::parse(&elf).unwrap();
        let scan = isa::scan(target, &co.code());
        let missing: Vec<_> = scan.unsupported().map(|e| e.mnemonic.clone()).collect();
        assert!(
            missing.iter().any(|m| m.starts_with("v_dot4")),
            "{target}: {missing:?}"
        );
    }
}

#[test]
fn mixed_precision_fma_mix() {
    for target in Target::ALL {
        let l = load_named("isa_small", target);
        let n = 300u32;
        let hv: Vec<u16> = (0..2 * n).map(|i| h((i as f32 - 300.0) * 0.0625)).collect();
        let x: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 5.0).collect();
        let hd = l.mem.alloc(&bytes(&hv));
        let xd = l.mem.alloc(&bytes(&x));
        let od = l.mem.alloc(&vec![0u8; 8 * n as usize]);
        let ho = l.mem.alloc(&vec![0u8; 2 * n as usize]);
        l.launch(
            "mixed",
            n.div_ceil(64),
            64,
            &[
                &hd.to_le_bytes(),
                &xd.to_le_bytes(),
                &od.to_le_bytes(),
                &ho.to_le_bytes(),
                &n.to_le_bytes(),
            ],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<f32>(&l.mem.read(od, 8 * n as usize));
        let hout: Vec<u16> = l
            .mem
            .read(ho, 2 * n as usize)
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        // Fused: one rounding of the exact h0 * x + h1. A multiply and an
        // add rounded apart (Vega's v_mad_mix, which the ISA data gives
        // CDNA) differ from it in the last bit for some of these inputs.
        let mut unfused_differs = 0;
        for i in 0..n as usize {
            let (h0, h1) = (hf(hv[2 * i]), hf(hv[2 * i + 1]));
            let a = h0.mul_add(x[i], h1);
            let b = (-h1).mul_add(x[i].abs(), 0.5);
            unfused_differs += usize::from(h0 * x[i] + h1 != a);
            let (got_a, got_b) = (out[i], out[n as usize + i]);
            assert_eq!(
                got_a.to_bits(),
                a.to_bits(),
                "{target} a {i}: {got_a} vs {a}"
            );
            assert_eq!(
                got_b.to_bits(),
                b.to_bits(),
                "{target} b {i}: {got_b} vs {b}"
            );
            let c = h(h0.mul_add(3.0, x[i]));
            assert_eq!(hout[i], c, "{target} c {i}: {:#x} vs {c:#x}", hout[i]);
        }
        assert!(
            unfused_differs > 10,
            "the inputs tell fused from unfused in {unfused_differs} of {n} cases only"
        );
    }
}

#[test]
fn dot_products_of_bytes() {
    for target in Target::ALL {
        let l = load_named("isa_small", target);
        let n = 256u32;
        let a: Vec<i32> = (0..n).map(|i| i.wrapping_mul(0x9e37_79b9) as i32).collect();
        let b: Vec<i32> = (0..n)
            .map(|i| i.wrapping_mul(0x85eb_ca6b).rotate_left(7) as i32)
            .collect();
        let ad = l.mem.alloc(&bytes(&a));
        let bd = l.mem.alloc(&bytes(&b));
        let od = l.mem.alloc(&vec![0u8; 8 * n as usize]);
        l.launch(
            "dot4",
            4,
            64,
            &[
                &ad.to_le_bytes(),
                &bd.to_le_bytes(),
                &od.to_le_bytes(),
                &n.to_le_bytes(),
            ],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out = values::<u32>(&l.mem.read(od, 8 * n as usize));
        let byte = |v: i32, k: usize, signed: bool| -> i64 {
            let x = (v as u32 >> (8 * k)) as u8;
            if signed {
                x as i8 as i64
            } else {
                x as i64
            }
        };
        for i in 0..n as usize {
            let dot = |sa: bool, sb: bool, c: i64| {
                (0..4)
                    .map(|k| byte(a[i], k, sa) * byte(b[i], k, sb))
                    .sum::<i64>()
                    + c
            };
            let (first, second) = match target {
                Target::Gfx1100 => (dot(true, false, 7), dot(false, true, -7)),
                _ => (dot(true, true, 7), dot(false, false, 5)),
            };
            assert_eq!(out[2 * i] as i32 as i64, first, "{target} {i}");
            assert_eq!(
                out[2 * i + 1] as i32 as i64,
                second as i32 as i64,
                "{target} {i}"
            );
        }
    }
}

#[test]
fn clocks_move_forward() {
    for target in Target::ALL {
        let l = load(target);
        let od = l.mem.alloc(&[0u8; 32]);
        l.launch("clocks", 1, 1, &[&od.to_le_bytes()])
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        let out: Vec<u64> = l
            .mem
            .read(od, 32)
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert!(out[0] > 0 && out[1] >= out[0], "{target}: {out:?}");
        assert!(out[3] > 0, "{target}: {out:?}");
    }
}

#[test]
fn a_wave_that_never_ends_times_out_naming_the_kernel() {
    for target in Target::ALL {
        let l = load(target);
        let flag = l.mem.alloc(&[0u8; 4]);
        let out = l.mem.alloc(&[0u8; 256]);
        let dims = LaunchDims {
            grid: [1, 1, 1],
            block: [64, 1, 1],
            dynamic_lds: 0,
        };
        let started = std::time::Instant::now();
        let e = l
            .launch_within(
                "wait_forever",
                &dims,
                &[&flag.to_le_bytes(), &out.to_le_bytes()],
                Some(std::time::Duration::from_millis(200)),
            )
            .expect_err("a spin on a flag nobody sets cannot finish");
        let took = started.elapsed();
        assert!(matches!(e, LaunchError::TimedOut { .. }), "{target}: {e:?}");
        let msg = e.to_string();
        assert!(
            msg.contains("wait_forever") && msg.contains("HIP_EMU_TIMEOUT"),
            "{target}: {msg}"
        );
        assert!(took.as_secs() < 30, "{target}: stopped after {took:?}");
        assert!(l.mem.read(out, 4).iter().all(|&b| b == 0), "{target}");
    }
}

#[test]
fn printf_prints_through_the_hostcall_service() {
    for target in Target::ALL {
        let l = load(target);
        let n = 40u32; // a wave and a part on gfx1100, part of one on gfx942
        let v: Vec<u8> = (0..n as i32).flat_map(|i| (3 * i).to_le_bytes()).collect();
        let x = l.mem.alloc(&v);
        let (result, printed) = l.launch_printing("says_hello", 1, n, &[&x.to_le_bytes()]);
        result.unwrap_or_else(|e| panic!("{target}: {e}"));
        let mut got: Vec<String> = printed
            .iter()
            .map(|(stderr, text)| {
                assert!(!stderr, "{target}: {text}");
                text.clone()
            })
            .collect();
        got.sort();
        let mut want: Vec<String> = (0..n as i32)
            .map(|i| {
                let v = 3 * i;
                let word = if v % 2 != 0 { "odd" } else { "even" };
                let hex = if v == 0 {
                    "0".to_owned()
                } else {
                    format!("{v:#x}")
                };
                format!("hello {v}: {word} {:.2} {hex}%\n", v as f64 / 4.0)
            })
            .collect();
        want.sort();
        assert_eq!(got, want, "{target}");
    }
}

#[test]
fn printf_fails_the_launch_naming_the_host_service() {
    for target in Target::ALL {
        let l = load(target);
        let x = l.mem.alloc(&[0u8; 256]);
        let e = l
            .launch("says_hello", 1, 32, &[&x.to_le_bytes()])
            .expect_err("printf needs the hostcall service, which this launch lacks");
        assert!(
            matches!(
                e,
                LaunchError::NoHostService {
                    argument: "hidden_hostcall_buffer",
                    ..
                }
            ),
            "{target}: {e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.contains("says_hello") && msg.contains("printf"),
            "{target}: {msg}"
        );
    }
    assert_eq!(isa::host_service_at(isa::NO_SERVICE_BASE - 1), None);
    assert_eq!(
        isa::host_service_at(isa::NO_SERVICE_BASE + 2 * isa::NO_SERVICE_STRIDE + 8),
        Some(("hidden_heap_v1", "device-side malloc/free"))
    );
    assert_eq!(
        isa::host_service_at(isa::NO_SERVICE_BASE + 4 * isa::NO_SERVICE_STRIDE),
        None
    );
}

#[test]
fn buffer_loads_and_stores_are_range_checked() {
    for target in Target::ALL {
        let l = load(target);
        let lanes = 32usize;
        // 40 floats of memory, a 16-float (64-byte) buffer over it from
        // float 4 (soffset 16 bytes), so that lanes 12.. are out of range.
        let mem: Vec<f32> = (0..40).map(|i| 100.0 + i as f32).collect();
        let x = l.mem.alloc(&bytes(&mem));
        let out = l.mem.alloc(&vec![0xffu8; lanes * 4]);
        let (buffer_bytes, soffset) = (64i32, 16i32);
        l.launch(
            "buffer_copy",
            1,
            lanes as u32,
            &[
                &x.to_le_bytes(),
                &out.to_le_bytes(),
                &buffer_bytes.to_le_bytes(),
                &soffset.to_le_bytes(),
            ],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = values::<f32>(&l.mem.read(out, lanes * 4));
        let after = values::<f32>(&l.mem.read(x, 40 * 4));
        // Both check the offset with soffset against the size: gfx1100 by
        // OOB_SELECT 3, gfx942 always for a raw buffer (rocBLAS 7.2's
        // gfx942 GEMMs step through A and B with soffset and read 0 past
        // the edge only so).
        let in_range = |i: usize| 16 + i * 4 + 4 <= 64;
        for i in 0..lanes {
            let want = if in_range(i) { mem[4 + i] } else { 0.0 };
            assert_eq!(got[i], want, "{target}: load of lane {i}");
        }
        for (k, v) in after.iter().enumerate() {
            let lane = k.checked_sub(4).filter(|&i| i < lanes && in_range(i));
            let want = lane.map_or(mem[k], |i| -(i as f32));
            assert_eq!(*v, want, "{target}: memory float {k} after the stores");
        }
    }
}

#[test]
fn halves_through_lds_and_d16_loads() {
    for target in Target::ALL {
        let l = load_named("isa_small", target);
        let n = 256u32;
        let a: Vec<u16> = (0..n).map(|i| h((i as f32 - 100.0) * 0.25)).collect();
        let b: Vec<u16> = (0..n).map(|i| h(3.0 - (i % 29) as f32 * 0.125)).collect();
        let ad = l.mem.alloc(&bytes(&a));
        let bd = l.mem.alloc(&bytes(&b));
        let od = l.mem.alloc(&vec![0u8; 4 * n as usize]);
        l.launch(
            "d16_halves",
            1,
            n,
            &[
                &ad.to_le_bytes(),
                &bd.to_le_bytes(),
                &od.to_le_bytes(),
                &n.to_le_bytes(),
            ],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = values::<f32>(&l.mem.read(od, 4 * n as usize));
        for (i, &g) in got.iter().enumerate() {
            let j = (i + 1) % n as usize;
            let want = hf(b[j]) * 2.0 + hf(a[j]);
            assert_eq!(g, want, "{target}: out[{i}]");
        }
    }
}

/// LDS instructions whose ISA pseudocode reads `MEM[ADDR]` with the
/// instruction's offset folded in (16- and 8-bit loads and stores, the d16
/// halves, atomics), at offsets from one address register, as rocBLAS's
/// Tensile kernels use them; and a d16 load that keeps the other half.
#[test]
fn lds_offsets_of_narrow_loads_stores_and_atomics() {
    for target in Target::ALL {
        let l = load_named("lds_offsets", target);
        let input: Vec<u16> = (0..320).map(|i| h(i as f32 * 0.5 - 60.0)).collect();
        let ind = l.mem.alloc(&bytes(&input));
        let od = l.mem.alloc(&[0u8; 256]);
        l.launch(
            "lds_halves",
            1,
            64,
            &[&ind.to_le_bytes(), &od.to_le_bytes()],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = values::<u32>(&l.mem.read(od, 256));
        for (t, &g) in got.iter().enumerate() {
            let want = input[2 * t + 1] as u32 | (input[2 * t + 33] as u32) << 16;
            assert_eq!(g, want, "{target}: lds_halves out[{t}]");
        }

        let x: Vec<u32> = (0..64u32)
            .map(|i| i.wrapping_mul(0x9e37_79b9) >> 5)
            .collect();
        let xd = l.mem.alloc(&bytes(&x));
        let od = l.mem.alloc(&[0u8; 4 * 128]);
        l.launch(
            "lds_bytes_and_atomics",
            1,
            64,
            &[&xd.to_le_bytes(), &od.to_le_bytes()],
        )
        .unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = values::<u32>(&l.mem.read(od, 4 * 128));
        for t in 0..64 {
            let b = x[(t + 1) % 64] & 0xff;
            let s = (x[(t + 3) % 64] >> 8) & 0xffff;
            assert_eq!(got[t], b | s << 8, "{target}: bytes and shorts out[{t}]");
        }
        for t in 0..64 {
            let want: u32 = if (16..32).contains(&t) {
                (0..64).filter(|i| i % 16 + 16 == t).map(|i| x[i] & 7).sum()
            } else {
                0
            };
            assert_eq!(got[64 + t], want, "{target}: LDS atomic counts[{t}]");
        }
    }
}

/// Branches of more than 8192 words, forward and back: the offset is the
/// 16-bit word count times 4 at full width, not wrapped to 16 bits (which
/// would land 64 KiB off). Found in candle's mul_mat_q, whose unrolled
/// loops span more than 32 KiB.
#[test]
fn branches_longer_than_32_kib() {
    for target in Target::ALL {
        let l = load_named("long_branch", target);
        let od = l.mem.alloc(&[0u8; 4]);
        l.launch("long_branch", 1, 64, &[&od.to_le_bytes()])
            .unwrap_or_else(|e| panic!("{target}: {e}"));
        let got = values::<i32>(&l.mem.read(od, 4));
        assert_eq!(got[0], 111, "{target}: the branches' path");
    }
}

/// gfx942's packed f32 and SDWA forms with their modifiers, each against
/// its ISA meaning (tests/kernels/packed_modifiers.hip): an inline
/// constant under op_sel_hi, v_pk_mov_b32's halves, neg_lo/neg_hi on the
/// addend, and sign-extended byte and word selects feeding a 24-bit
/// multiply.
#[test]
fn packed_f32_and_sdwa_modifiers() {
    let target = Target::Gfx942;
    let l = load_named("packed_modifiers", target);
    let f = [1.5f32, -2.25, 3.0, 0.5, 10.0, -7.0];
    let (x, y) = (0x12F3_9C05u32, 0xBEEF_0007u32);
    let fd = l.mem.alloc(&bytes(&f));
    let od = l.mem.alloc(&[0u8; 32]);
    let id = l.mem.alloc(&bytes(&[x, y]));
    let iod = l.mem.alloc(&[0u8; 12]);
    l.launch(
        "packed_modifiers",
        1,
        64,
        &[
            &fd.to_le_bytes(),
            &od.to_le_bytes(),
            &id.to_le_bytes(),
            &iod.to_le_bytes(),
        ],
    )
    .unwrap_or_else(|e| panic!("{target}: {e}"));
    let got = values::<f32>(&l.mem.read(od, 32));
    let (a, b, c) = ([f[0], f[1]], [f[2], f[3]], [f[4], f[5]]);
    let want = [
        // v_pk_mul_f32 a, 4.0 op_sel_hi:[1,0]: the constant in both halves.
        a[0] * 4.0,
        a[1] * 4.0,
        // v_pk_mov_b32 a, b op_sel:[1,0]: a's high half, then b's low.
        a[1],
        b[0],
        // v_pk_fma_f32 neg_lo:[0,0,1] neg_hi:[0,0,1]: a * b - c.
        a[0].mul_add(b[0], -c[0]),
        a[1].mul_add(b[1], -c[1]),
        a[0].mul_add(b[0], c[0]),
        a[1].mul_add(b[1], c[1]),
    ];
    assert_eq!(got, want, "packed f32");
    let s8 = |v: u32| i32::from(v as u8 as i8);
    let s24 = |v: u32| ((v << 8) as i32) >> 8;
    let got = values::<i32>(&l.mem.read(iod, 12));
    let want = [
        s8(x >> 8).wrapping_mul((y >> 16) as i32),
        s24(y).wrapping_mul(s8(x >> 16)),
        s24(y).wrapping_mul((x >> 16) as i32),
    ];
    assert_eq!(got, want, "SDWA into v_mul_i32_i24");
}

/// gfx1100's mixed-precision FMA with f16 halves, d16 LDS loads, byte
/// conversions, true16 moves and a VOPD pair with an inline constant
/// (tests/kernels/rdna3_mix.hip), each against its ISA meaning.
#[test]
fn rdna3_mix_d16_true16_and_vopd() {
    let target = Target::Gfx1100;
    let l = load_named("rdna3_mix", target);
    let f = [1.5f32, -0.375];
    let (hb_lo, hb_hi) = (h(2.5), h(-3.25));
    let (hm_lo, hm_hi) = (0x5a17u16, h(0.125));
    let b = u32::from(hb_lo) | u32::from(hb_hi) << 16;
    let m = u32::from(hm_lo) | u32::from(hm_hi) << 16;
    let u = [b, m, 0x1230];
    let fd = l.mem.alloc(&bytes(&f));
    let ud = l.mem.alloc(&bytes(&u));
    let od = l.mem.alloc(&[0u8; 20]);
    let uod = l.mem.alloc(&[0u8; 24]);
    l.launch(
        "rdna3_mix",
        1,
        32,
        &[
            &fd.to_le_bytes(),
            &ud.to_le_bytes(),
            &od.to_le_bytes(),
            &uod.to_le_bytes(),
        ],
    )
    .unwrap_or_else(|e| panic!("{target}: {e}"));
    let got = values::<f32>(&l.mem.read(od, 20));
    let want = [
        f[0] * hf(hb_hi),
        f[0].mul_add(hf(hb_lo), f[1]),
        hf(hb_hi).mul_add(f[0], hf(hm_hi)),
        f32::from((m >> 8) as u8),
        0.5 * f[0],
    ];
    assert_eq!(got, want, "f32 results");
    let got = values::<u32>(&l.mem.read(uod, 24));
    // Lane 0 loads lane 1's short (0x1231) into its low half; the 16-bit
    // moves and shift write the low half and keep the high one.
    assert_eq!(
        got,
        [
            0xAAAA_1231,
            0xCCCC_0000 | u32::from(hm_lo),
            4,
            0x1235,
            0xCCCC_0000 | u32::from(hm_lo),
            0xEEEE_0000 | u32::from(hm_lo >> 8),
        ],
        "bits"
    );
}

/// gfx1100's carries through SGPRs (tests/kernels/rdna3_mix.hip's
/// rdna3_carry): the carry-out written over a source SGPR, read back as a
/// carry-in with the carry-out to null; and an FMA's negated addend.
#[test]
fn rdna3_sgpr_carries_and_negated_addend() {
    let target = Target::Gfx1100;
    let l = load_named("rdna3_mix", target);
    let (s, base) = (0xFFFF_FFF0u32, 0x4000u32);
    let ud = l.mem.alloc(&bytes(&[s, base]));
    let od = l.mem.alloc(&[0u8; 65 * 4]);
    let fd = l.mem.alloc(&[0u8; 32 * 4]);
    l.launch(
        "rdna3_carry",
        1,
        32,
        &[&ud.to_le_bytes(), &od.to_le_bytes(), &fd.to_le_bytes()],
    )
    .unwrap_or_else(|e| panic!("{target}: {e}"));
    let got = values::<u32>(&l.mem.read(od, 65 * 4));
    let mask: u32 = (0..32u32)
        .filter(|&t| t.checked_add(s).is_none())
        .fold(0, |m, t| m | 1 << t);
    for t in 0..32u32 {
        assert_eq!(got[t as usize], t.wrapping_add(s), "lane {t}: sum");
        assert_eq!(
            got[32 + t as usize],
            base + (mask >> t & 1),
            "lane {t}: carry-in"
        );
    }
    assert_eq!(got[64], mask, "the carry mask in the SGPR");
    let got = values::<f32>(&l.mem.read(fd, 32 * 4));
    for (t, &g) in got.iter().enumerate() {
        let a = t as f32 * 0.5;
        assert_eq!(g, a.mul_add(a, -a), "lane {t}: fma with -c");
    }
}

/// gfx942's d16 loads (LDS and global) zero the half they do not write,
/// as the hardware does with SRAM ECC on (tests/kernels/cdna_d16.hip).
#[test]
fn cdna_d16_loads_zero_the_other_half() {
    let target = Target::Gfx942;
    let l = load_named("cdna_d16", target);
    let input: Vec<u16> = (0..64).map(|i| 0x1200 + i as u16 * 3).collect();
    let ind = l.mem.alloc(&bytes(&input));
    let od = l.mem.alloc(&[0u8; 193 * 4]);
    l.launch("cdna_d16", 1, 64, &[&ind.to_le_bytes(), &od.to_le_bytes()])
        .unwrap_or_else(|e| panic!("{target}: {e}"));
    let got = values::<u32>(&l.mem.read(od, 193 * 4));
    for (t, &v) in input.iter().enumerate() {
        let v = u32::from(v);
        assert_eq!(got[3 * t], v << 16, "lane {t}: ds_read_u16_d16_hi");
        assert_eq!(got[3 * t + 1], v, "lane {t}: ds_read_u16_d16");
        assert_eq!(
            got[3 * t + 2],
            v << 16,
            "lane {t}: global_load_short_d16_hi"
        );
    }
    assert_eq!(got[192], u32::from(input[7]));
}

/// gfx1100's v_cvt_f32_ubyte{0..3} read their 32-bit source whole: in the
/// VOP1 encoding a VGPR numbered 128 or more is itself, not a true16 high
/// half (tests/kernels/rdna3_q4k.hip). The ISA data's operand table says
/// so; the pseudocode's `S0[15 : 8]` alone made ubyte1's source look
/// 16-bit, which broke candle's mul_mat_q<Q4_K> on gfx1100.
#[test]
fn rdna3_ubyte_conversions_read_high_vgprs_whole() {
    let target = Target::Gfx1100;
    let l = load_named("rdna3_q4k", target);
    let u: Vec<u32> = (0..32u32)
        .map(|t| {
            (0x9bdf_u32.rotate_left(t) ^ (t * 0x0101)) & 0xffff
                | (u32::from(h(t as f32 - 7.5)) << 16)
        })
        .collect();
    let ud = l.mem.alloc(&bytes(&u));
    let od = l.mem.alloc(&[0u8; 32 * 8 * 4]);
    l.launch(
        "rdna3_ubyte_high_vgprs",
        1,
        32,
        &[&ud.to_le_bytes(), &od.to_le_bytes()],
    )
    .unwrap_or_else(|e| panic!("{target}: {e}"));
    let got = values::<f32>(&l.mem.read(od, 32 * 8 * 4));
    for (t, &x) in u.iter().enumerate() {
        let byte = |k: u32| f32::from((x >> (8 * k)) as u8);
        let want = [
            byte(0),
            byte(1),
            byte(2),
            byte(3),
            byte(1),
            byte(1),
            hf((x >> 16) as u16),
            0.0,
        ];
        assert_eq!(got[8 * t..8 * t + 8], want, "lane {t}: {x:#010x}");
    }
}
