//! Corrections to the pinned ISA data, where the data and the processors
//! the interpreter emulates disagree. Each names the instructions it
//! changes, the text it replaces (which must be there, exactly, or the
//! build stops: a new data release is then read again, not patched
//! blindly) and the evidence.

use crate::data::Isa;

/// One correction: in `isa`'s enum `enum_name`, the member `from` becomes
/// `to`, and in its pseudocode `old` becomes `new`.
struct Erratum {
    isa: &'static str,
    enum_name: &'static str,
    from: &'static str,
    to: &'static str,
    old: &'static str,
    new: &'static str,
}

/// VOP3P opcodes 32 to 34 of CDNA. The data (CDNA 4's) names them
/// `V_MAD_MIX_F32`, `V_MAD_MIXLO_F16` and `V_MAD_MIXHI_F16`, with a
/// multiply and an add rounded apart, which is Vega's (gfx900) instruction.
/// From gfx904 and gfx906 on, the GCN 5 and CDNA processors have the fused
/// `V_FMA_MIX_*` at those opcodes instead: LLVM's AMDGPU back end gives
/// gfx900 `v_mad_mix_f32` and every later GFX9 target (gfx90a, gfx942,
/// gfx950 among them) `v_fma_mix_f32` at the same encoding, and selects
/// it for a fused multiply-add (`fmaf`, or a multiply and add it
/// contracts). RDNA 3's data has the fused form under that name. Rounded
/// apart, a kernel that computes some outputs with `v_fma_mix_f32` and
/// others with `v_pk_fma_f32` gives them different last bits: candle's
/// batch-12 quantized matmul (`mul_mat_q<Q2_K>`) on the emulated gfx942 did.
const MIX: [Erratum; 3] = [
    Erratum {
        isa: "cdna",
        enum_name: "VOP3POp",
        from: "V_MAD_MIX_F32",
        to: "V_FMA_MIX_F32",
        old: "D0[31 : 0].f32 = in[0] * in[1] + in[2]",
        new: "D0[31 : 0].f32 = fma(in[0], in[1], in[2])",
    },
    Erratum {
        isa: "cdna",
        enum_name: "VOP3POp",
        from: "V_MAD_MIXLO_F16",
        to: "V_FMA_MIXLO_F16",
        old: "D0[15 : 0].f16 = f32_to_f16(in[0] * in[1] + in[2])",
        new: "D0[15 : 0].f16 = f32_to_f16(fma(in[0], in[1], in[2]))",
    },
    Erratum {
        isa: "cdna",
        enum_name: "VOP3POp",
        from: "V_MAD_MIXHI_F16",
        to: "V_FMA_MIXHI_F16",
        old: "D0[31 : 16].f16 = f32_to_f16(in[0] * in[1] + in[2])",
        new: "D0[31 : 16].f16 = f32_to_f16(fma(in[0], in[1], in[2]))",
    },
];

/// Applies the corrections of ISA `module` (the generated module's name:
/// `cdna`, `rdna3`, `rdna4`) to its data.
pub(crate) fn apply(module: &str, isa: &mut Isa) -> Result<(), String> {
    for e in MIX.iter().filter(|e| e.isa == module) {
        let why = |what: &str| format!("{module} {} {}: {what}", e.enum_name, e.from);
        let members = isa
            .enums
            .get_mut(e.enum_name)
            .ok_or_else(|| why("no such enum"))?;
        let member = members
            .iter_mut()
            .find(|(name, _)| name == e.from)
            .ok_or_else(|| why("no such member"))?;
        member.0 = e.to.to_string();
        let old_key = (e.enum_name.to_string(), e.from.to_string());
        let new_key = (e.enum_name.to_string(), e.to.to_string());
        let pcode = isa
            .pcode
            .remove(&old_key)
            .ok_or_else(|| why("no pseudocode"))?;
        if pcode.matches(e.old).count() != 1 {
            return Err(why(&format!(
                "the pseudocode no longer has `{}` once; read the data again",
                e.old
            )));
        }
        isa.pcode
            .insert(new_key.clone(), pcode.replace(e.old, e.new));
        if let Some(ops) = isa.operands.remove(&old_key) {
            isa.operands.insert(new_key, ops);
        }
        // The encodings that list the ops they allow, by name.
        for field in isa.formats.iter_mut().flat_map(|f| f.fields.iter_mut()) {
            if field.enum_name.as_deref() != Some(e.enum_name) {
                continue;
            }
            for name in field.allowed.iter_mut().flatten() {
                if name == e.from {
                    *name = e.to.to_string();
                }
            }
        }
    }
    Ok(())
}
