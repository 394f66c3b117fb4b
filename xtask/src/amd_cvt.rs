//! `amd-cvt TARGET ASM`: the layer's bf16 and fp8 conversions
//! (`hip-cuda-layer/tests/cvt.cu`, compiled to assembly by `candle.sh amd`)
//! use the hardware's conversion instructions where the target's format
//! is CUDA's, and only there.
//!
//! gfx950 converts bf16 and OCP fp8 (e4m3, e5m2) in hardware; gfx1201
//! (RDNA4) OCP fp8, bf16 in software; gfx942 none (its fp8 instructions
//! are FNUZ, another format). For each kernel of the file the conversion
//! instructions found (suffixes `_e32`, `_e64`, `_sdwa` dropped) must be
//! the one expected, or none.

use crate::Result;

/// The kernels of `cvt.cu`, in its order.
const KERNELS: [&str; 8] = [
    "cvt_bf16",
    "cvt_bf16_rn",
    "cvt_bf16x2",
    "cvt_bf16_pair",
    "cvt_to_e4m3",
    "cvt_to_e5m2",
    "cvt_from_e4m3",
    "cvt_from_e5m2",
];

/// The conversion instructions looked for.
const CONVERSIONS: [&str; 5] = [
    "v_cvt_pk_bf16_f32",
    "v_cvt_pk_fp8_f32",
    "v_cvt_pk_bf8_f32",
    "v_cvt_f32_fp8",
    "v_cvt_f32_bf8",
];

/// The instruction `kernel` must use on `target`; empty for none.
fn expected(target: &str, kernel: &str) -> &'static str {
    let ocp_fp8 = target == "gfx950" || target == "gfx1201";
    match kernel {
        k if target == "gfx950" && k.starts_with("cvt_bf16") => "v_cvt_pk_bf16_f32",
        "cvt_to_e4m3" if ocp_fp8 => "v_cvt_pk_fp8_f32",
        "cvt_to_e5m2" if ocp_fp8 => "v_cvt_pk_bf8_f32",
        "cvt_from_e4m3" if ocp_fp8 => "v_cvt_f32_fp8",
        "cvt_from_e5m2" if ocp_fp8 => "v_cvt_f32_bf8",
        _ => "",
    }
}

/// Whether an instruction is one of [`CONVERSIONS`] (by prefix, so with
/// its encoding's suffix too).
fn is_conversion(mnemonic: &str) -> bool {
    CONVERSIONS.iter().any(|c| mnemonic.starts_with(c))
}

/// Each kernel's conversion instructions, in order, suffixes dropped: a
/// kernel starts at its label (a line `NAME:` at the line's start).
fn conversions_of(asm: &str, kernel: &str) -> Vec<String> {
    let mut current = "";
    let mut out = Vec::new();
    for line in asm.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        let label = line.find(':').is_some_and(|i| {
            i > 0
                && line[..i]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        });
        if label {
            // The first field less its last character, the colon.
            current = &first[..first.len() - first.chars().last().map_or(0, char::len_utf8)];
        }
        if current == kernel && is_conversion(first) {
            let bare = ["_e32", "_e64", "_sdwa"]
                .iter()
                .find_map(|s| first.strip_suffix(s))
                .unwrap_or(first);
            out.push(bare.to_owned());
        }
    }
    out
}

/// The check's lines (a line per kernel that differs, then the count) and
/// whether every kernel is as expected.
pub(crate) fn check(target: &str, asm: &str) -> (Vec<String>, bool) {
    let mut lines = Vec::new();
    for kernel in KERNELS {
        let got = conversions_of(asm, kernel).join(" ");
        let want = expected(target, kernel);
        if got != want {
            lines.push(format!(
                "{target} {kernel}: conversion instructions '{got}', expected '{want}'"
            ));
        }
    }
    let ok = lines.is_empty();
    let all = asm
        .lines()
        .filter(|l| is_conversion(l.trim_start()))
        .count();
    lines.push(format!(
        "{target}: {all} hardware bf16/fp8 conversions in {} kernels",
        KERNELS.len()
    ));
    (lines, ok)
}

/// `amd-cvt TARGET ASM`.
pub(crate) fn command(rest: &[String]) -> Result<std::process::ExitCode> {
    let [target, asm] = rest else {
        return Err("amd-cvt: TARGET ASM".into());
    };
    let text = std::fs::read_to_string(asm).map_err(|e| format!("{asm}: {e}"))?;
    let (lines, ok) = check(target, &text);
    crate::print_lines(&lines);
    Ok(crate::status(ok))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gfx950's assembly of two kernels, as clang 21 writes it (cut).
    const GFX950: &str = "\
\t.amdgcn_target \"amdgcn-amd-amdhsa--gfx950\"
\t.globl\tcvt_bf16                        ; -- Begin function cvt_bf16
cvt_bf16:                               ; @cvt_bf16
; %bb.0:
\ts_load_dwordx4 s[0:3], s[0:1], 0x0
\tv_cvt_pk_bf16_f32 v1, v1, s0
\tglobal_store_short v0, v1, s[2:3]
\ts_endpgm
.Lfunc_end0:
cvt_from_e4m3:                          ; @cvt_from_e4m3
\tv_cvt_f32_fp8_sdwa v1, v1 src0_sel:BYTE_0
\tv_cvt_f32_fp8_e32 v2, v2
\ts_endpgm
__hip_cuid_b5c922c6e6fe9c10:
\t.byte\t0
";

    #[test]
    fn each_kernels_conversions_are_read_from_its_label_on() {
        assert_eq!(conversions_of(GFX950, "cvt_bf16"), ["v_cvt_pk_bf16_f32"]);
        assert_eq!(
            conversions_of(GFX950, "cvt_from_e4m3"),
            ["v_cvt_f32_fp8", "v_cvt_f32_fp8"]
        );
        assert!(conversions_of(GFX950, "cvt_to_e5m2").is_empty());
    }

    #[test]
    fn a_kernel_without_its_instruction_or_with_a_second_one_fails() {
        let (lines, ok) = check("gfx950", GFX950);
        assert_eq!(
            lines,
            [
                "gfx950 cvt_bf16_rn: conversion instructions '', expected 'v_cvt_pk_bf16_f32'",
                "gfx950 cvt_bf16x2: conversion instructions '', expected 'v_cvt_pk_bf16_f32'",
                "gfx950 cvt_bf16_pair: conversion instructions '', expected 'v_cvt_pk_bf16_f32'",
                "gfx950 cvt_to_e4m3: conversion instructions '', expected 'v_cvt_pk_fp8_f32'",
                "gfx950 cvt_to_e5m2: conversion instructions '', expected 'v_cvt_pk_bf8_f32'",
                "gfx950 cvt_from_e4m3: conversion instructions 'v_cvt_f32_fp8 v_cvt_f32_fp8', expected 'v_cvt_f32_fp8'",
                "gfx950 cvt_from_e5m2: conversion instructions '', expected 'v_cvt_f32_bf8'",
                "gfx950: 3 hardware bf16/fp8 conversions in 8 kernels",
            ]
        );
        assert!(!ok);
    }

    #[test]
    fn gfx942_converts_in_software_only() {
        let (lines, ok) = check("gfx942", GFX950);
        assert_eq!(
            lines[0],
            "gfx942 cvt_bf16: conversion instructions 'v_cvt_pk_bf16_f32', expected ''"
        );
        assert!(!ok);
        let software = "cvt_bf16:\n\tv_lshrrev_b32 v1, 16, v1\n";
        assert_eq!(
            check("gfx942", software),
            (
                vec!["gfx942: 0 hardware bf16/fp8 conversions in 8 kernels".to_owned()],
                true
            )
        );
    }

    #[test]
    fn what_each_target_expects() {
        assert_eq!(expected("gfx950", "cvt_bf16_pair"), "v_cvt_pk_bf16_f32");
        assert_eq!(expected("gfx1201", "cvt_bf16"), "");
        assert_eq!(expected("gfx1201", "cvt_to_e5m2"), "v_cvt_pk_bf8_f32");
        assert_eq!(expected("gfx942", "cvt_from_e5m2"), "");
    }
}
