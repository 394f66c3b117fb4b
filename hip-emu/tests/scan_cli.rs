//! `hip-emu scan`, the built program, on real code objects: the test
//! kernels compiled by HIP's clang, written to a folder as plain ELF
//! files and as offload bundles, beside files that are not code objects;
//! kernels with instructions the interpreter does not execute; a word that
//! is no instruction; and the usage and file errors.

mod common;

use common::rocm_path;
use hip_emu::code_object::CodeObject;
use hip_emu::isa::{self, Target};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A fresh, empty folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("scan-cli-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Runs `hip-emu` with `args`: its exit status, standard output and error.
fn hip_emu<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String) {
    let Output {
        status,
        stdout,
        stderr,
    } = Command::new(env!("CARGO_BIN_EXE_hip-emu"))
        .args(args)
        .output()
        .expect("running hip-emu");
    (
        status.code().expect("an exit status, not a signal"),
        String::from_utf8(stdout).expect("UTF-8 output"),
        String::from_utf8(stderr).expect("UTF-8 errors"),
    )
}

/// A plain code object for `arch` (any processor clang knows) of the HIP
/// source `text`, compiled with the flags of `common`; kept in `dir`.
fn compile_for(dir: &Path, name: &str, text: &str, arch: &str) -> Vec<u8> {
    let rocm = rocm_path();
    let src = dir.join(format!("{name}.hip"));
    write(&src, text.as_bytes());
    let out = dir.join(format!("{name}.{arch}.o"));
    let result = Command::new(rocm.join("llvm/bin/clang++"))
        .args(["-x", "hip", "-O3", "-c", "--cuda-device-only", "-std=c++17"])
        .arg(format!("--rocm-path={}", rocm.display()))
        .arg("-isystem")
        .arg(rocm.join("include"))
        .arg(format!(
            "--hip-device-lib-path={}",
            rocm.join("amdgcn/bitcode").display()
        ))
        .arg(format!("--offload-arch={arch}"))
        .arg("--no-gpu-bundle-output")
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("running clang++");
    assert!(
        result.status.success(),
        "clang++ for {arch}: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    let elf = std::fs::read(&out).unwrap();
    std::fs::remove_file(&out).unwrap();
    std::fs::remove_file(&src).unwrap();
    elf
}

/// The instructions `isa::scan` says the interpreter does not execute in
/// `elf`: (mnemonic, count).
fn unsupported(elf: &[u8]) -> Vec<(String, u64)> {
    let co = CodeObject::parse(elf).unwrap();
    let target = Target::from_name(co.processor()).unwrap();
    isa::scan(target, &co.code())
        .unsupported()
        .map(|e| (e.mnemonic.clone(), e.count))
        .collect()
}

#[test]
fn a_folder_of_supported_kernels_scans_clean() {
    let dir = folder("clean");
    for target in Target::ALL {
        let elf = common::code_object("isa_basic", target).unwrap();
        write(&dir.join(format!("isa_basic.{target}.co")), &elf);
        let elf = common::code_object("isa_small", target).unwrap();
        write(&dir.join(format!("nested/isa_small.{target}.co")), &elf);
    }
    let bundle = common::bundle("isa_basic", &Target::ALL).unwrap();
    write(&dir.join("nested/deeper/isa_basic.bundle"), &bundle);
    write(&dir.join("README.txt"), b"not a code object\n");

    let (status, out, err) = hip_emu(&["scan".as_ref(), dir.as_os_str()]);
    assert_eq!(status, 0, "{out}\n{err}");
    assert!(err.is_empty(), "{err}");
    for target in Target::ALL {
        assert!(
            out.contains(&format!("isa_basic.{target}.co: {target}")),
            "{out}"
        );
        assert!(
            out.lines()
                .any(|l| l.starts_with(&format!("  {target}: 3 code objects,"))),
            "{target}: {out}"
        );
    }
    assert!(
        out.contains("isa_basic.bundle [offload bundle 1 of 2]"),
        "{out}"
    );
    assert!(
        out.contains(" 0 not executed, 0 undecodable words"),
        "{out}"
    );
    assert!(out.contains("skipped 1 files:"), "{out}");
    assert!(
        out.contains("1 not a code object, offload bundle or code-object envelope:"),
        "{out}"
    );
    assert!(out.contains("README.txt"), "{out}");

    let (status, json, _) = hip_emu(&["scan".as_ref(), "--json".as_ref(), dir.as_os_str()]);
    assert_eq!(status, 0, "{json}");
    assert!(json.trim_end().ends_with("\"status\": 0\n}"), "{json}");
    assert_eq!(
        json.matches("\"scanned\": true, \"target\"").count(),
        6,
        "{json}"
    );
    assert_eq!(json.matches("\"format\": \"offload bundle\"").count(), 2);
    assert!(json.contains("\"mnemonic\": \"s_endpgm\""), "{json}");
    assert!(json.contains("\"reason\": \"not a code object,"), "{json}");
    assert!(!json.contains("\"unsupported\": \""), "{json}");
}

#[test]
fn unexecuted_instructions_and_other_processors_are_reported() {
    let dir = folder("unsupported");
    // Typed buffer (MTBUF) and image instructions: what HIP's compute
    // code rarely needs, and the interpreter does not execute yet.
    let source = r#"
#include <hip/hip_runtime.h>
extern "C" __global__ void not_executed(int* p) {
#if defined(__gfx942__)
    asm volatile("tbuffer_load_format_x v1, v0, s[0:3], 0 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] offen" ::: "v1", "memory");
#else
    asm volatile("tbuffer_load_format_x v1, v0, s[0:3], 0 format:[BUF_FMT_32_FLOAT] offen" ::: "v1", "memory");
    asm volatile("image_load v[0:3], v0, s[0:7] dmask:0xf dim:SQ_RSRC_IMG_1D"
                 ::: "v0", "v1", "v2", "v3", "memory");
#endif
    p[threadIdx.x] = 1;
}
"#;
    let mut wanted = Vec::new();
    for target in Target::ALL {
        let elf = compile_for(&dir, "asm", source, target.name());
        let missing = unsupported(&elf);
        assert!(
            !missing.is_empty(),
            "{target}: the interpreter now executes {source}; this test needs an \
             instruction it does not execute"
        );
        wanted.push((target, missing));
        write(&dir.join(format!("asm.{target}.co")), &elf);
    }
    // A processor the interpreter does not run: listed, not decoded.
    let basic =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/isa_basic.hip"))
            .unwrap();
    let gfx90a = compile_for(
        &dir,
        "basic",
        std::str::from_utf8(&basic).unwrap(),
        "gfx90a",
    );
    write(&dir.join("isa_basic.gfx90a.co"), &gfx90a);

    let (status, out, err) = hip_emu(&["scan".as_ref(), dir.as_os_str()]);
    assert_eq!(status, 1, "{out}\n{err}");
    assert!(err.is_empty(), "{err}");
    for (target, missing) in &wanted {
        let object = out
            .split_once(&format!("asm.{target}.co: {target}\n"))
            .unwrap_or_else(|| panic!("{target}: {out}"))
            .1;
        assert!(
            object.contains(&format!("{} not executed", missing.len())),
            "{target}: {object}"
        );
        for (mnemonic, count) in missing {
            let line = object
                .lines()
                .find(|l| l.split_whitespace().next() == Some(mnemonic))
                .unwrap_or_else(|| panic!("{target} {mnemonic}: {object}"));
            let words: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(words[1], count.to_string(), "{line}");
            assert!(line.contains("encoding is not executed yet"), "{line}");
        }
    }
    assert!(
        out.contains("isa_basic.gfx90a.co: gfx90a\n  not scanned: the interpreter runs gfx942 and gfx1100, not gfx90a"),
        "{out}"
    );
    assert!(
        out.contains("  gfx90a: 1 code objects, not scanned"),
        "{out}"
    );

    // The other processor alone is no failure.
    let (status, out, _) = hip_emu(&["scan".as_ref(), dir.join("isa_basic.gfx90a.co").as_os_str()]);
    assert_eq!(status, 0, "{out}");

    let (status, json, _) = hip_emu(&[
        "scan".as_ref(),
        "--json".as_ref(),
        dir.join("asm.gfx942.co").as_os_str(),
    ]);
    assert_eq!(status, 1, "{json}");
    assert!(json.contains("\"status\": 1"), "{json}");
    assert!(
        json.contains(
            "{\"mnemonic\": \"tbuffer_load_format_x\", \"count\": 1, \"unsupported\": \"the MTBUF \
             encoding is not executed yet\"}"
        ),
        "{json}"
    );
}

#[test]
fn a_word_that_is_no_instruction_is_reported_with_its_offset() {
    let dir = folder("undecodable");
    for target in Target::ALL {
        // A word the decoder takes for no instruction of this target.
        let word = [
            0xffff_ffffu32,
            0xfe00_0000,
            0xfc00_0000,
            0xf800_0000,
            0xdc00_0000,
        ]
        .into_iter()
        .find(|w| {
            let bytes = w.to_le_bytes();
            !isa::scan(target, &[(0, &bytes[..])]).undecoded.is_empty()
        })
        .unwrap_or_else(|| panic!("{target}: every candidate word decodes"));
        let mut elf = common::code_object("isa_basic", target).unwrap();
        // The code segment ends in padding; its last word becomes `word`.
        let (vaddr, code_len, at) = {
            let co = CodeObject::parse(&elf).unwrap();
            let code = co.code();
            let (vaddr, bytes) = code[0];
            let at = elf
                .windows(bytes.len())
                .position(|w| w == bytes)
                .expect("the code segment's bytes in the file");
            (vaddr, bytes.len(), at)
        };
        let last = at + code_len - 4;
        elf[last..last + 4].copy_from_slice(&word.to_le_bytes());
        let path = dir.join(format!("patched.{target}.co"));
        write(&path, &elf);

        let (status, out, err) = hip_emu(&["scan".as_ref(), path.as_os_str()]);
        assert_eq!(status, 1, "{target}: {out}\n{err}");
        let offset = vaddr + code_len as u64 - 4;
        assert!(
            out.contains(&format!(
                "undecodable word {word:#010x} at offset {offset:#x}"
            )),
            "{target}: {out}"
        );
        assert!(out.contains(", 1 undecodable words"), "{target}: {out}");
    }
}

#[test]
fn usage_and_file_errors_exit_with_2() {
    let dir = folder("errors");
    let text = dir.join("notes.txt");
    write(&text, b"plain text\n");
    let missing = dir.join("no-such-file.co");

    let (status, out, err) = hip_emu(&["scan".as_ref(), text.as_os_str(), missing.as_os_str()]);
    assert_eq!(status, 2, "{out}\n{err}");
    assert!(
        err.contains(&format!(
            "{}: not a code object, offload bundle or code-object envelope",
            text.display()
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("{}: cannot read it:", missing.display())),
        "{err}"
    );
    assert!(out.contains("2 errors:"), "{out}");

    // A file that claims a format and breaks it.
    let broken = dir.join("broken.bundle");
    write(&broken, b"__CLANG_OFFLOAD_BUNDLE__\x05");
    let (status, _, err) = hip_emu(&["scan".as_ref(), broken.as_os_str()]);
    assert_eq!(status, 2, "{err}");
    assert!(
        err.contains("cannot read the offload bundle: truncated"),
        "{err}"
    );

    for (args, message) in [
        (&[][..], "no subcommand given"),
        (&["scan"][..], "scan needs at least one file or folder"),
        (
            &["scan", "--frobnicate", "x"][..],
            "unknown option `--frobnicate`",
        ),
        (
            &["disassemble", "x"][..],
            "unknown subcommand `disassemble`",
        ),
    ] {
        let (status, out, err) = hip_emu(args);
        assert_eq!(status, 2, "{args:?}: {out}\n{err}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(err.contains("hip-emu --help"), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}: {out}");
    }
    for args in [&["--help"][..], &["scan", "-h"][..]] {
        let (status, out, _) = hip_emu(args);
        assert_eq!(status, 0, "{args:?}");
        assert!(out.contains("hip-emu scan [--json] PATH..."), "{out}");
        assert!(out.contains("EXIT STATUS"), "{out}");
    }
}
