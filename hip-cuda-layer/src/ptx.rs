//! Inline PTX assembly rewritten as HIP C++: the idioms CUDA sources
//! write as one `asm` statement (a conversion, packing two halves, an
//! `f16x2` multiply-add, a 3-input logic op) have an exact or documented
//! counterpart in HIP, and a compile for AMD needs only that counterpart.
//!
//! [`translate`] reads C++ text, finds each `asm` statement (`asm`,
//! `__asm__`, `volatile` or not), and when every PTX instruction of its
//! template is in [`IDIOMS`], replaces the statement by a
//! `do { ... } while (0)` block that evaluates each input once, computes
//! the outputs with the idiom's C++ and assigns them to the statement's
//! output operands. Line breaks are kept (a macro's continuation lines
//! too), so line numbers do not move. A statement whose template is PTX
//! but holds an instruction not in the table becomes a call to a function
//! with clang's `error` attribute naming that instruction: a compile that
//! emits it fails saying what to add, and code never emitted (a template
//! not instantiated, a path for other architectures) compiles, as PTX
//! fails only where it is assembled. AMD assembly (`v_cvt_f32_f16`, with `v`
//! constraints: a source's own ROCm branch) and empty templates (compiler
//! barriers) are left as they are.
//!
//! ```
//! let src = "float f(unsigned short h) { float f;\n  asm volatile(\"cvt.f32.f16 %0, %1;\\n\" : \"=f\"(f) : \"h\"(h));\n  return f; }\n";
//! let t = hip_cuda_layer::ptx::translate(src);
//! assert_eq!(t.translated, ["cvt.f32.f16 _, _"]);
//! assert!(t.text.contains("__half2float"));
//! assert!(!t.text.contains("asm"));
//! assert_eq!(t.text.lines().count(), src.lines().count());
//! ```
//!
//! Operands are typed by their constraint letter as nvcc types them: `h`
//! 16 bits, `r` 32, `l` 64, `f` float, `d` double, `n` an immediate
//! (written into the code as it is); a digit ties an input to that output.
//! The idioms' meanings are PTX ISA 8.x's; each entry says where the HIP
//! code's result may differ (the `.approx` functions: within PTX's stated
//! error).

/// One PTX instruction form and its HIP C++.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Idiom {
    /// The instruction's form: the opcode, then its operands with every
    /// register `_`, every immediate `#`, vectors `{_, _}` and addresses
    /// `[_]` kept (`mov.b32 _, {_, _}`).
    pub form: &'static str,
    /// The C++ statements: `$0`, `$1`, ... are the form's operands in
    /// order (a vector's elements one by one), each a local of its
    /// constraint's type (immediates: the literal).
    pub body: &'static str,
    /// What the instruction computes, from PTX's documentation, and how
    /// the HIP code differs where it may.
    pub meaning: &'static str,
}

/// The translated instruction forms.
pub const IDIOMS: &[Idiom] = &[
    Idiom {
        form: "mov.b32 _, {_, _}",
        body: "$0 = (unsigned int)(unsigned short)$1 | ((unsigned int)(unsigned short)$2 << 16);",
        meaning: "packs two 16-bit values, the first in bits 0-15",
    },
    Idiom {
        form: "mov.b32 {_, _}, _",
        body: "$0 = (unsigned short)((unsigned int)$2 & 0xffffu); $1 = (unsigned short)((unsigned int)$2 >> 16);",
        meaning: "unpacks a 32-bit value: bits 0-15 into the first, 16-31 into the second",
    },
    Idiom {
        form: "mov.b64 _, {_, _}",
        body: "$0 = (unsigned long long)(unsigned int)$1 | ((unsigned long long)(unsigned int)$2 << 32);",
        meaning: "packs two 32-bit values, the first in bits 0-31",
    },
    Idiom {
        form: "mov.b64 {_, _}, _",
        body: "$0 = (unsigned int)((unsigned long long)$2 & 0xffffffffull); $1 = (unsigned int)((unsigned long long)$2 >> 32);",
        meaning: "unpacks a 64-bit value: bits 0-31 into the first, 32-63 into the second",
    },
    Idiom {
        form: "mov.b32 _, _",
        body: "$0 = $1;",
        meaning: "copies 32 bits",
    },
    Idiom {
        form: "mov.u32 _, _",
        body: "$0 = $1;",
        meaning: "copies 32 bits",
    },
    Idiom {
        form: "cvt.f32.f16 _, _",
        body: "$0 = __half2float(__ushort_as_half((unsigned short)$1));",
        meaning: "f16 to f32, exact",
    },
    Idiom {
        form: "cvt.rn.f16.f32 _, _",
        body: "$0 = __half_as_ushort(__float2half_rn($1));",
        meaning: "f32 to f16, rounding to nearest even",
    },
    Idiom {
        form: "cvt.rn.f16x2.f32 _, _, _",
        body: "$0 = ((unsigned int)__half_as_ushort(__float2half_rn($1)) << 16) | (unsigned int)__half_as_ushort(__float2half_rn($2));",
        meaning: "two f32 to a packed f16x2, rounding to nearest even: the first input in bits 16-31, the second in bits 0-15",
    },
    Idiom {
        form: "cvt.f32.bf16 _, _",
        body: "$0 = __uint_as_float((unsigned int)(unsigned short)$1 << 16);",
        meaning: "bf16 to f32, exact",
    },
    Idiom {
        form: "cvt.rn.bf16.f32 _, _",
        body: "$0 = hiprs_ptx_f32_to_bf16_rn($1);",
        meaning: "f32 to bf16, rounding to nearest even (NaN stays NaN)",
    },
    Idiom {
        form: "cvt.rn.bf16x2.f32 _, _, _",
        body: "$0 = ((unsigned int)hiprs_ptx_f32_to_bf16_rn($1) << 16) | (unsigned int)hiprs_ptx_f32_to_bf16_rn($2);",
        meaning: "two f32 to a packed bf16x2, rounding to nearest even: the first input in bits 16-31",
    },
    Idiom {
        form: "add.f16 _, _, _",
        body: "$0 = hiprs_ptx_bits(__hadd(hiprs_ptx_half($1), hiprs_ptx_half($2)));",
        meaning: "f16 addition, rounding to nearest even",
    },
    Idiom {
        form: "sub.f16 _, _, _",
        body: "$0 = hiprs_ptx_bits(__hsub(hiprs_ptx_half($1), hiprs_ptx_half($2)));",
        meaning: "f16 subtraction, rounding to nearest even",
    },
    Idiom {
        form: "mul.f16 _, _, _",
        body: "$0 = hiprs_ptx_bits(__hmul(hiprs_ptx_half($1), hiprs_ptx_half($2)));",
        meaning: "f16 multiplication, rounding to nearest even",
    },
    Idiom {
        form: "fma.rn.f16 _, _, _, _",
        body: "$0 = hiprs_ptx_bits(__hfma(hiprs_ptx_half($1), hiprs_ptx_half($2), hiprs_ptx_half($3)));",
        meaning: "f16 fused multiply-add, one rounding to nearest even",
    },
    Idiom {
        form: "add.f16x2 _, _, _",
        body: "$0 = hiprs_ptx_bits2(__hadd2(hiprs_ptx_half2($1), hiprs_ptx_half2($2)));",
        meaning: "packed f16 addition, each half rounded to nearest even",
    },
    Idiom {
        form: "sub.f16x2 _, _, _",
        body: "$0 = hiprs_ptx_bits2(__hsub2(hiprs_ptx_half2($1), hiprs_ptx_half2($2)));",
        meaning: "packed f16 subtraction, each half rounded to nearest even",
    },
    Idiom {
        form: "mul.f16x2 _, _, _",
        body: "$0 = hiprs_ptx_bits2(__hmul2(hiprs_ptx_half2($1), hiprs_ptx_half2($2)));",
        meaning: "packed f16 multiplication, each half rounded to nearest even",
    },
    Idiom {
        form: "fma.rn.f16x2 _, _, _, _",
        body: "$0 = hiprs_ptx_bits2(__hfma2(hiprs_ptx_half2($1), hiprs_ptx_half2($2), hiprs_ptx_half2($3)));",
        meaning: "packed f16 fused multiply-add, each half rounded once to nearest even",
    },
    Idiom {
        form: "tanh.approx.f32 _, _",
        body: "$0 = tanhf($1);",
        meaning: "tanh; PTX allows a relative error of 2^-10.987, HIP's tanhf is within 2 ulp",
    },
    Idiom {
        form: "tanh.approx.f16 _, _",
        body: "$0 = __half_as_ushort(__float2half_rn(tanhf(__half2float(__ushort_as_half((unsigned short)$1)))));",
        meaning: "tanh of an f16; PTX's error bound is 2^-10.987, this one rounds the f32 tanh once",
    },
    Idiom {
        form: "tanh.approx.f16x2 _, _",
        body: "$0 = hiprs_ptx_map_f16x2($1, tanhf);",
        meaning: "tanh of each half of a packed f16x2, as tanh.approx.f16",
    },
    Idiom {
        form: "ex2.approx.ftz.f32 _, _",
        body: "$0 = hiprs_ptx_ftz(exp2f(hiprs_ptx_ftz($1)));",
        meaning: "2^x with subnormal inputs and results flushed to sign-preserving zero; PTX allows 2 ulp, HIP's exp2f is within 1",
    },
    Idiom {
        form: "ex2.approx.f32 _, _",
        body: "$0 = exp2f($1);",
        meaning: "2^x; PTX allows 2 ulp, HIP's exp2f is within 1",
    },
    Idiom {
        form: "ex2.approx.f16 _, _",
        body: "$0 = __half_as_ushort(__float2half_rn(exp2f(__half2float(__ushort_as_half((unsigned short)$1)))));",
        meaning: "2^x of an f16, the f32 result rounded once to f16",
    },
    Idiom {
        form: "ex2.approx.f16x2 _, _",
        body: "$0 = hiprs_ptx_map_f16x2($1, exp2f);",
        meaning: "2^x of each half of a packed f16x2, as ex2.approx.f16",
    },
    Idiom {
        form: "lg2.approx.ftz.f32 _, _",
        body: "$0 = log2f(hiprs_ptx_ftz($1));",
        meaning: "log2 x with a subnormal input flushed to zero (so -inf); PTX allows 2^-22.6 absolute or 4 ulp",
    },
    Idiom {
        form: "lg2.approx.f32 _, _",
        body: "$0 = log2f($1);",
        meaning: "log2 x; PTX allows 2^-22.6 absolute or 4 ulp",
    },
    Idiom {
        form: "rcp.approx.ftz.f32 _, _",
        body: "$0 = hiprs_ptx_ftz(1.0f / hiprs_ptx_ftz($1));",
        meaning: "1/x with subnormal inputs and results flushed; PTX allows 1 ulp, this one is exact",
    },
    Idiom {
        form: "rsqrt.approx.ftz.f32 _, _",
        body: "$0 = hiprs_ptx_ftz(rsqrtf(hiprs_ptx_ftz($1)));",
        meaning: "1/sqrt(x) with subnormals flushed; PTX allows 2^-22.9 relative, HIP's rsqrtf is within 1 ulp",
    },
    Idiom {
        form: "lop3.b32 _, _, _, _, #",
        body: "$0 = hiprs_ptx_lop3($1, $2, $3, $4);",
        meaning: "any logic function of three 32-bit inputs, bit by bit: the immediate is the function's truth table over a = 0xF0, b = 0xCC, c = 0xAA",
    },
    Idiom {
        form: "lop3.b32 _, _, _, _, _",
        body: "$0 = hiprs_ptx_lop3($1, $2, $3, $4);",
        meaning: "lop3 with the truth table as an `n` operand",
    },
    Idiom {
        form: "prmt.b32 _, _, _, _",
        body: "$0 = hiprs_ptx_prmt($1, $2, $3);",
        meaning: "byte permute, default mode: each result byte is the byte of {b, a} (a bytes 0-3, b bytes 4-7) that the selector's nibble names, or that byte's sign replicated when the nibble's bit 3 is set",
    },
    Idiom {
        form: "mov.u32 _, %laneid",
        body: "$0 = $1;",
        meaning: "the thread's lane in its 32-lane warp (on wave64 targets, the layer's warp is half the wavefront)",
    },
    Idiom {
        form: "shfl.sync.bfly.b32 _, _, _, #, #",
        body: "static_assert(($3) == 0x1f, \"hip-cuda-layer: shfl.sync.bfly over a sub-warp (clamp other than 0x1f)\"); $0 = __shfl_xor_sync((unsigned int)($4), $1, (int)$2);",
        meaning: "butterfly shuffle over the whole warp: each lane reads the value of lane (its lane xor the mask) among those in the member mask",
    },
    Idiom {
        form: "setp.ne.b32 ?, _, #",
        body: "$0 = (unsigned int)$1 != (unsigned int)$2;",
        meaning: "sets a predicate to a != b",
    },
    Idiom {
        form: "setp.ne.b32 ?, _, _",
        body: "$0 = (unsigned int)$1 != (unsigned int)$2;",
        meaning: "sets a predicate to a != b",
    },
    Idiom {
        form: "setp.eq.b32 ?, _, #",
        body: "$0 = (unsigned int)$1 == (unsigned int)$2;",
        meaning: "sets a predicate to a == b",
    },
    Idiom {
        form: "setp.eq.b32 ?, _, _",
        body: "$0 = (unsigned int)$1 == (unsigned int)$2;",
        meaning: "sets a predicate to a == b",
    },
    Idiom {
        form: "cp.async.ca.shared.global [_], [_], #",
        body: "hiprs_ptx_cp_async($0, $1, $2, $2);",
        meaning: "copies cp-size (4, 8 or 16) bytes from global to shared memory; here at once, so the wait that PTX requires before use is already satisfied",
    },
    Idiom {
        form: "cp.async.cg.shared.global [_], [_], #",
        body: "hiprs_ptx_cp_async($0, $1, $2, $2);",
        meaning: "as cp.async.ca, caching in L2 only (16 bytes)",
    },
    Idiom {
        form: "cp.async.cg.shared.global.L2::128B [_], [_], #",
        body: "hiprs_ptx_cp_async($0, $1, $2, $2);",
        meaning: "as cp.async.cg, with an L2 prefetch hint",
    },
    Idiom {
        form: "cp.async.ca.shared.global [_], [_], _",
        body: "hiprs_ptx_cp_async($0, $1, $2, $2);",
        meaning: "as cp.async.ca with the size as an `n` operand",
    },
    Idiom {
        form: "cp.async.cg.shared.global [_], [_], _",
        body: "hiprs_ptx_cp_async($0, $1, $2, $2);",
        meaning: "as cp.async.cg with the size as an `n` operand",
    },
    Idiom {
        form: "cp.async.cg.shared.global.L2::128B [_], [_], _",
        body: "hiprs_ptx_cp_async($0, $1, $2, $2);",
        meaning: "as cp.async.cg.shared.global.L2::128B with the size as an `n` operand",
    },
    Idiom {
        form: "cp.async.ca.shared.global [_], [_], #, _",
        body: "hiprs_ptx_cp_async($0, $1, $2, $3);",
        meaning: "copies src-size bytes and fills the rest of cp-size with zeros",
    },
    Idiom {
        form: "cp.async.cg.shared.global [_], [_], #, _",
        body: "hiprs_ptx_cp_async($0, $1, $2, $3);",
        meaning: "copies src-size bytes and fills the rest of cp-size with zeros",
    },
    Idiom {
        form: "cp.async.cg.shared.global [_], [_], _, _",
        body: "hiprs_ptx_cp_async($0, $1, $2, $3);",
        meaning: "copies src-size bytes and fills the rest of cp-size with zeros",
    },
    Idiom {
        form: "cp.async.cg.shared.global.L2::128B [_], [_], #, _",
        body: "hiprs_ptx_cp_async($0, $1, $2, $3);",
        meaning: "copies src-size bytes and fills the rest of cp-size with zeros, with an L2 prefetch hint",
    },
    Idiom {
        form: "cp.async.cg.shared.global.L2::128B [_], [_], _, _",
        body: "hiprs_ptx_cp_async($0, $1, $2, $3);",
        meaning: "copies src-size bytes and fills the rest of cp-size with zeros, with an L2 prefetch hint",
    },
    Idiom {
        form: "cp.async.commit_group",
        body: "(void)0;",
        meaning: "closes a group of cp.async copies; the translated copies are complete when issued",
    },
    Idiom {
        form: "cp.async.wait_group #",
        body: "(void)$0;",
        meaning: "waits until at most N groups are pending; none ever is",
    },
    Idiom {
        form: "cp.async.wait_group _",
        body: "(void)$0;",
        meaning: "waits until at most N groups are pending; none ever is",
    },
    Idiom {
        form: "cp.async.wait_all",
        body: "(void)0;",
        meaning: "waits for every cp.async; none is pending",
    },
    Idiom {
        form: "griddepcontrol.wait",
        body: "(void)0;",
        meaning: "waits for the grids this one depends on (programmatic dependent launch); HIP launches in one stream run in order, so they are done",
    },
    Idiom {
        form: "griddepcontrol.launch_dependents",
        body: "(void)0;",
        meaning: "lets dependent grids start early: a scheduling hint",
    },
    Idiom {
        form: "prefetch.global.L2 [_]",
        body: "(void)$0;",
        meaning: "a hint to bring a line into L2",
    },
    Idiom {
        form: "ld.global.cs.b32 _, [_]",
        body: "$0 = __builtin_nontemporal_load((const unsigned int*)$1);",
        meaning: "a 32-bit load, streaming (evict first)",
    },
    Idiom {
        form: "ld.global.cs.v2.b32 {_, _}, [_]",
        body: "$0 = __builtin_nontemporal_load((const unsigned int*)$2); $1 = __builtin_nontemporal_load((const unsigned int*)$2 + 1);",
        meaning: "two 32-bit loads, streaming",
    },
    Idiom {
        form: "st.global.cs.b32 [_], _",
        body: "__builtin_nontemporal_store((unsigned int)$1, (unsigned int*)$0);",
        meaning: "a 32-bit store, streaming",
    },
    Idiom {
        form: "st.global.cs.v2.b32 [_], {_, _}",
        body: "__builtin_nontemporal_store((unsigned int)$1, (unsigned int*)$0); __builtin_nontemporal_store((unsigned int)$2, (unsigned int*)$0 + 1);",
        meaning: "two 32-bit stores, streaming",
    },
    Idiom {
        form: "ld.volatile.global.v4.b32 {_, _, _, _}, [_]",
        body: "{ volatile const unsigned int* hp_p = (volatile const unsigned int*)$4; $0 = hp_p[0]; $1 = hp_p[1]; $2 = hp_p[2]; $3 = hp_p[3]; }",
        meaning: "four 32-bit loads that are not cached in registers or merged",
    },
    Idiom {
        form: "st.volatile.global.v4.b32 [_], {_, _, _, _}",
        body: "{ volatile unsigned int* hp_p = (volatile unsigned int*)$0; hp_p[0] = $1; hp_p[1] = $2; hp_p[2] = $3; hp_p[3] = $4; }",
        meaning: "four 32-bit stores that are not merged away",
    },
    Idiom {
        form: "ld.acquire.global.sys.v4.b32 {_, _, _, _}, [_]",
        body: "{ volatile const unsigned int* hp_p = (volatile const unsigned int*)$4; $0 = hp_p[0]; $1 = hp_p[1]; $2 = hp_p[2]; $3 = hp_p[3]; __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, \"\"); }",
        meaning: "four loads with acquire order at system scope: later accesses see what the writer released",
    },
    Idiom {
        form: "st.release.global.sys.v4.b32 [_], {_, _, _, _}",
        body: "{ __builtin_amdgcn_fence(__ATOMIC_RELEASE, \"\"); volatile unsigned int* hp_p = (volatile unsigned int*)$0; hp_p[0] = $1; hp_p[1] = $2; hp_p[2] = $3; hp_p[3] = $4; }",
        meaning: "four stores with release order at system scope: earlier accesses are visible first",
    },
    Idiom {
        form: "ld.global.acquire.gpu.b32 _, [_]",
        body: "$0 = __hip_atomic_load((unsigned int*)$1, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);",
        meaning: "a 32-bit load with acquire order at device scope",
    },
    Idiom {
        form: "red.relaxed.gpu.global.add.s32 [_], _",
        body: "__hip_atomic_fetch_add((int*)$0, (int)$1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);",
        meaning: "an atomic add without a result, relaxed, device scope",
    },
    Idiom {
        form: "fence.acq_rel.gpu",
        body: "__builtin_amdgcn_fence(__ATOMIC_ACQ_REL, \"agent\");",
        meaning: "orders memory accesses at device scope, acquire and release",
    },
    Idiom {
        form: "cvt.rn.f16x2.e4m3x2 _, _",
        body: "$0 = hiprs_ptx_fp8x2_to_f16x2((unsigned short)$1, __NV_E4M3);",
        meaning: "two OCP e4m3 values to a packed f16x2, exact: the upper byte to the upper half",
    },
    Idiom {
        form: "cvt.rn.f16x2.e5m2x2 _, _",
        body: "$0 = hiprs_ptx_fp8x2_to_f16x2((unsigned short)$1, __NV_E5M2);",
        meaning: "two OCP e5m2 values to a packed f16x2, exact: the upper byte to the upper half",
    },
    Idiom {
        form: "cvt.rn.satfinite.e4m3x2.f16x2 _, _",
        body: "$0 = hiprs_ptx_f16x2_to_fp8x2((unsigned int)$1, __NV_E4M3);",
        meaning: "a packed f16x2 to two OCP e4m3, rounding to nearest even, finite values saturating: the upper half to the upper byte",
    },
    Idiom {
        form: "cvt.rn.satfinite.e5m2x2.f16x2 _, _",
        body: "$0 = hiprs_ptx_f16x2_to_fp8x2((unsigned int)$1, __NV_E5M2);",
        meaning: "a packed f16x2 to two OCP e5m2, rounding to nearest even, finite values saturating: the upper half to the upper byte",
    },
    Idiom {
        form: "trap",
        body: "__builtin_trap();",
        meaning: "ends the kernel with an error",
    },
    Idiom {
        form: "membar.gl",
        body: "__threadfence();",
        meaning: "orders this thread's memory accesses for the whole device",
    },
    Idiom {
        form: "membar.cta",
        body: "__threadfence_block();",
        meaning: "orders this thread's memory accesses for its block",
    },
    Idiom {
        form: "membar.sys",
        body: "__threadfence_system();",
        meaning: "orders this thread's memory accesses for the device and the host",
    },
];

/// The result of [`translate`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Translation {
    /// The text with the translated statements replaced.
    pub text: String,
    /// The form of each translated instruction, in order.
    pub translated: Vec<String>,
    /// The first untranslated PTX instruction of each statement left
    /// failing (its text as written, operands included).
    pub untranslated: Vec<String>,
    /// The C++ that nvcc accepts and clang does not, rewritten: each
    /// statement `x = {};` as `x = decltype(x){};` (clang finds `= {}`
    /// ambiguous for HIP's `__half2`, whose assignments take several
    /// types; nvcc value-initializes).
    pub cxx: Vec<String>,
}

/// Rewrites the `asm` statements of C++ `text` whose PTX is in [`IDIOMS`];
/// see the module's documentation.
pub fn translate(text: &str) -> Translation {
    let b = text.as_bytes();
    let mut out = Translation::default();
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line_comment(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = skip_block_comment(b, i),
            b'"' | b'\'' => i = skip_quoted(b, i),
            c if is_ident_start(c) => {
                let start = i;
                while i < b.len() && is_ident(b[i]) {
                    i += 1;
                }
                let after_ident = start == 0 || !is_ident(b[start - 1]);
                let word = &text[start..i];
                if after_ident && !matches!(word, "return" | "case" | "else") {
                    if let Some(end) = empty_braces_assignment(b, i, start) {
                        // `x = {}` -> `x = decltype(x){}`.
                        let open = text[i..end].find('{').expect("braces") + i;
                        out.text.push_str(&text[copied..open]);
                        out.text.push_str(&format!("decltype({word})"));
                        copied = open;
                        out.cxx.push(format!("{word} = {{}}"));
                        i = end;
                        continue;
                    }
                }
                if after_ident && matches!(word, "asm" | "__asm__" | "__asm") {
                    if let Some(stmt) = parse_statement(text, i) {
                        if let Some(replacement) = rewrite(&stmt, &mut out) {
                            out.text.push_str(&text[copied..start]);
                            out.text.push_str(&replacement);
                            out.text.push_str(&line_breaks(&text[start..stmt.end]));
                            copied = stmt.end;
                        }
                        i = stmt.end;
                    }
                }
            }
            _ => i += 1,
        }
    }
    out.text.push_str(&text[copied..]);
    out
}

/// For an identifier at `b[start..end]` that begins a statement (after
/// `;`, `{`, `}` or a line's start, comments and space aside): the offset
/// past `}` when `= {}` and `;` follow it.
fn empty_braces_assignment(b: &[u8], end: usize, start: usize) -> Option<usize> {
    let mut k = start;
    while k > 0 && matches!(b[k - 1], b' ' | b'\t' | b'\r') {
        k -= 1;
    }
    if k > 0 && !matches!(b[k - 1], b';' | b'{' | b'}' | b'\n') {
        return None;
    }
    let mut i = skip_space(b, end);
    if b.get(i) != Some(&b'=') || b.get(i + 1) == Some(&b'=') {
        return None;
    }
    i = skip_space(b, i + 1);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_space(b, i + 1);
    if b.get(i) != Some(&b'}') {
        return None;
    }
    let close = i + 1;
    (b.get(skip_space(b, close)) == Some(&b';')).then_some(close)
}

/// The C++ helpers the idioms' bodies call, for a header of the layer
/// (`hiprs_cuda_ptx.h`).
pub const HELPERS: &str = include_str!("../include/hiprs_cuda_ptx.h");

/// One parsed `asm` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Statement {
    /// Its template, string literals joined and unescaped.
    template: String,
    outputs: Vec<Operand>,
    inputs: Vec<Operand>,
    /// Byte offset just past its closing parenthesis.
    end: usize,
}

/// An operand: constraint and expression.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Operand {
    constraint: String,
    expr: String,
}

/// The statement starting with keyword `text[start..kw_end]`, if it has
/// the shape `asm [qualifiers] ( "..." [: ops [: ops [: clobbers]]] )`.
fn parse_statement(text: &str, kw_end: usize) -> Option<Statement> {
    let b = text.as_bytes();
    let mut i = skip_space(b, kw_end);
    loop {
        let word_end = {
            let mut j = i;
            while j < b.len() && is_ident(b[j]) {
                j += 1;
            }
            j
        };
        match &text[i..word_end] {
            "volatile" | "__volatile__" | "__volatile" | "inline" | "goto" => {
                i = skip_space(b, word_end)
            }
            _ => break,
        }
    }
    if b.get(i) != Some(&b'(') {
        return None;
    }
    let close = matching_paren(b, i)?;
    let inner = &text[i + 1..close];
    let sections = split_top(inner, b':');
    let template = join_literals(sections.first()?.trim())?;
    let operands = |k: usize| -> Option<Vec<Operand>> {
        match sections.get(k) {
            None => Some(Vec::new()),
            Some(s) if s.trim().is_empty() => Some(Vec::new()),
            Some(s) => split_top(s, b',')
                .iter()
                .map(|o| parse_operand(o))
                .collect(),
        }
    };
    Some(Statement {
        template,
        outputs: operands(1)?,
        inputs: operands(2)?,
        end: close + 1,
    })
}

/// `"constraint"(expression)`.
fn parse_operand(s: &str) -> Option<Operand> {
    let s = s.trim();
    let b = s.as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    let end = skip_quoted(b, 0);
    let constraint = join_literals(&s[..end])?;
    let rest = s[end..].trim();
    let expr = rest
        .strip_prefix('(')?
        .strip_suffix(')')?
        .trim()
        .to_string();
    Some(Operand { constraint, expr })
}

/// The replacement of a statement: its C++, or a call that fails where emitted
/// for PTX not in the table; `None` to leave it (no template, or not PTX).
fn rewrite(stmt: &Statement, out: &mut Translation) -> Option<String> {
    let instructions: Vec<&str> = stmt
        .template
        .split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    if instructions.is_empty() || !is_ptx(stmt, &instructions) {
        return None;
    }
    let mut forms = Vec::new();
    let mut bodies = Vec::new();
    let mut preds: Vec<String> = Vec::new();
    for ins in &instructions {
        // `{` and `}` scope PTX registers; the block scopes the locals.
        // (An instruction never starts with `{`; a scope's `}` is a piece
        // of its own after the last `;`.)
        let ins = ins.strip_prefix('{').unwrap_or(ins).trim();
        if ins.is_empty() || ins == "}" {
            continue;
        }
        if let Some(names) = ins.strip_prefix(".reg .pred ") {
            for n in names.split(',').map(str::trim) {
                if n.is_empty() || !n.bytes().all(is_ident) {
                    return Some(untranslated(ins, out));
                }
                bodies.push(format!("bool pr_{n} = false;"));
                preds.push(n.to_string());
            }
            continue;
        }
        // A guard: `@p` or `@!p` before the instruction.
        let (guard, ins) = match ins.strip_prefix('@') {
            Some(rest) => {
                let (g, i) = rest.split_once(char::is_whitespace)?;
                let (neg, name) = match g.strip_prefix('!') {
                    Some(n) => ("!", n),
                    None => ("", g),
                };
                if !preds.iter().any(|p| p == name) {
                    return Some(untranslated(ins, out));
                }
                (Some(format!("if ({neg}pr_{name}) ")), i.trim())
            }
            None => (None, ins),
        };
        match match_idiom(ins, &preds) {
            Some((idiom, slots)) => match body_of(idiom, &slots, stmt) {
                Some(code) => {
                    forms.push(idiom.form.to_string());
                    bodies.push(match guard {
                        Some(g) => format!("{g}{{ {code} }}"),
                        None => code,
                    });
                }
                None => return Some(untranslated(ins, out)),
            },
            None => return Some(untranslated(ins, out)),
        }
    }
    let mut code = String::from("do { ");
    let n_out = stmt.outputs.len();
    let all: Vec<&Operand> = stmt.outputs.iter().chain(&stmt.inputs).collect();
    // Locals: outputs (read-write ones and tied inputs start from their
    // expression), then inputs, each evaluated once, in order.
    for (k, op) in all.iter().enumerate() {
        let c = letters(&op.constraint);
        if c == "n" || c == "i" {
            continue;
        }
        let ty = if let Ok(tied) = c.parse::<usize>() {
            // An input tied to output `tied`: it starts that output.
            if tied >= n_out {
                return Some(untranslated(instructions[0], out));
            }
            code.push_str(&format!(
                "hp_{tied} = ({})({}); ",
                c_type(&letters(&all[tied].constraint))?,
                op.expr
            ));
            continue;
        } else {
            c_type(&c)?
        };
        if k < n_out {
            if op.constraint.contains('+') {
                code.push_str(&format!("{ty} hp_{k} = ({ty})({}); ", op.expr));
            } else {
                code.push_str(&format!("{ty} hp_{k}; "));
            }
        } else {
            code.push_str(&format!("{ty} hp_{k} = ({ty})({}); ", op.expr));
        }
    }
    for body in &bodies {
        code.push_str(body);
        code.push(' ');
    }
    for (k, op) in stmt.outputs.iter().enumerate() {
        code.push_str(&format!("({}) = hp_{k}; ", op.expr));
    }
    code.push_str("} while (0)");
    out.translated.extend(forms);
    Some(code)
}

/// The failing replacement naming `ins`, recorded in `out`.
fn untranslated(ins: &str, out: &mut Translation) -> String {
    let shown: String = ins
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(['"', '\\'], "");
    out.untranslated.push(shown.clone());
    // A call that fails the compile only where it is emitted (clang's
    // `error` attribute), as PTX fails only where it is assembled: code
    // never instantiated or preprocessed in still compiles. One name per
    // instruction text, since each carries its own message.
    let hash = shown.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!(
        "do {{ extern __device__ __attribute__((error(\"hip-cuda-layer: inline PTX `{shown}` has no AMD translation\"))) void hiprs_ptx_untranslated_{hash:016x}(); hiprs_ptx_untranslated_{hash:016x}(); }} while (0)"
    )
}

/// Whether a statement is PTX: an instruction whose opcode has a `.`
/// (PTX's type suffixes) or is a PTX word without one, and no AMD
/// register constraint (`v`, `s`, `a`).
fn is_ptx(stmt: &Statement, instructions: &[&str]) -> bool {
    let amd_constraint = stmt
        .outputs
        .iter()
        .chain(&stmt.inputs)
        .any(|o| matches!(letters(&o.constraint).as_str(), "v" | "s" | "a"));
    if amd_constraint {
        return false;
    }
    instructions.iter().any(|ins| {
        // The opcode: past a scope's `{` and a guard (`@p`).
        let mut words = ins.trim_start_matches('{').split_whitespace();
        let mut op = words.next().unwrap_or("");
        if op.starts_with('@') {
            op = words.next().unwrap_or("");
        }
        op.contains('.')
            || matches!(op, "trap" | "exit" | "brkpt" | "pmevent")
            || op.starts_with('{')
    })
}

/// The constraint without its modifiers (`=`, `+`, `&`).
fn letters(c: &str) -> String {
    c.chars()
        .filter(|ch| !matches!(ch, '=' | '+' | '&'))
        .collect()
}

/// The C type of a register constraint.
fn c_type(c: &str) -> Option<&'static str> {
    Some(match c {
        "h" => "unsigned short",
        "r" => "unsigned int",
        "l" => "unsigned long long",
        "f" => "float",
        "d" => "double",
        _ => return None,
    })
}

/// An operand slot of an instruction: `%N` or an immediate's text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Slot {
    Reg(usize),
    Imm(String),
    /// A predicate the statement declared (`.reg .pred p`).
    Pred(String),
    /// A special register (`%laneid`).
    Special(&'static str),
}

/// The idiom an instruction is, and its operand slots in order.
fn match_idiom(ins: &str, preds: &[String]) -> Option<(&'static Idiom, Vec<Slot>)> {
    let ins = ins.trim();
    let (op, rest) = match ins.find(char::is_whitespace) {
        Some(k) => (&ins[..k], ins[k..].trim()),
        None => (ins, ""),
    };
    if op.starts_with('@') || op.starts_with('{') {
        return None;
    }
    let mut form = op.to_string();
    let mut slots = Vec::new();
    if !rest.is_empty() {
        let mut shapes = Vec::new();
        for operand in split_top(rest, b',') {
            let o = operand.trim();
            if let Some(v) = o.strip_prefix('{').and_then(|v| v.strip_suffix('}')) {
                let mut elems = Vec::new();
                for e in v.split(',') {
                    slots.push(slot(e.trim(), preds)?);
                    elems.push(shape(slots.last()?));
                }
                shapes.push(format!("{{{}}}", elems.join(", ")));
            } else if let Some(a) = o.strip_prefix('[').and_then(|a| a.strip_suffix(']')) {
                slots.push(Slot::Reg(reg(a.trim())?));
                shapes.push("[_]".to_string());
            } else {
                slots.push(slot(o, preds)?);
                shapes.push(shape(slots.last()?).to_string());
            }
        }
        form.push(' ');
        form.push_str(&shapes.join(", "));
    }
    IDIOMS.iter().find(|i| i.form == form).map(|i| (i, slots))
}

fn shape(s: &Slot) -> &'static str {
    match s {
        Slot::Reg(_) => "_",
        Slot::Imm(_) => "#",
        Slot::Pred(_) => "?",
        Slot::Special(r) => r,
    }
}

/// The special registers an idiom may read.
const SPECIAL: &[&str] = &["%laneid"];

/// `%N`, an integer literal, a declared predicate or a special register.
fn slot(s: &str, preds: &[String]) -> Option<Slot> {
    if let Some(n) = reg(s) {
        return Some(Slot::Reg(n));
    }
    if preds.iter().any(|p| p == s) {
        return Some(Slot::Pred(s.to_string()));
    }
    if let Some(r) = SPECIAL.iter().find(|r| **r == s) {
        return Some(Slot::Special(r));
    }
    let digits = s.strip_prefix('-').unwrap_or(s);
    let ok = if let Some(h) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit())
    } else {
        !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
    };
    ok.then(|| Slot::Imm(s.to_string()))
}

/// `N` of `%N`.
fn reg(s: &str) -> Option<usize> {
    s.strip_prefix('%')?.parse().ok()
}

/// An idiom's body with its slots bound: registers to the statement's
/// locals (`hp_N`; an `n` operand's expression itself), immediates to
/// their text. `None` when a slot names no operand.
fn body_of(idiom: &Idiom, slots: &[Slot], stmt: &Statement) -> Option<String> {
    let all: Vec<&Operand> = stmt.outputs.iter().chain(&stmt.inputs).collect();
    let bound: Vec<String> = slots
        .iter()
        .map(|s| match s {
            Slot::Imm(t) => Some(format!("({t})")),
            Slot::Pred(n) => Some(format!("pr_{n}")),
            Slot::Special(r) => Some(special(r).to_string()),
            Slot::Reg(n) => {
                let op = all.get(*n)?;
                let c = letters(&op.constraint);
                if c == "n" || c == "i" {
                    Some(format!("({})", op.expr))
                } else if let Ok(tied) = c.parse::<usize>() {
                    Some(format!("hp_{tied}"))
                } else {
                    c_type(&c)?;
                    Some(format!("hp_{n}"))
                }
            }
        })
        .collect::<Option<_>>()?;
    let b = idiom.body.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let k: usize = idiom.body[i + 1..j].parse().ok()?;
            out.push_str(bound.get(k)?);
            i = j;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    Some(out)
}

/// The C++ of a special register.
fn special(r: &str) -> &'static str {
    match r {
        // The lane within the 32-lane warp (the layer's warp on wave64).
        "%laneid" => "(__lane_id() & 31u)",
        _ => unreachable!("only SPECIAL registers are bound"),
    }
}

/// The line breaks of `span`, as they must follow its replacement: a
/// macro's continuation (`\` before the break) kept.
fn line_breaks(span: &str) -> String {
    let b = span.as_bytes();
    let mut out = String::new();
    for (k, &c) in b.iter().enumerate() {
        if c == b'\n' {
            let continued = b[..k]
                .iter()
                .rev()
                .find(|&&x| x != b'\r' && x != b' ' && x != b'\t')
                == Some(&b'\\');
            out.push_str(if continued { " \\\n" } else { "\n" });
        }
    }
    out
}

/// Joins adjacent string literals (`"a" "b"`), unescaping `\n`, `\t`,
/// `\"`, `\\`; `None` when anything else stands between them (a macro).
fn join_literals(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    loop {
        // Whitespace and backslash-newline between literals.
        while i < b.len()
            && (b[i].is_ascii_whitespace()
                || (b[i] == b'\\'
                    && !matches!(b.get(i + 1), Some(c) if *c != b'\n' && *c != b'\r')))
        {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        if b[i] != b'"' {
            return None;
        }
        i += 1;
        while i < b.len() && b[i] != b'"' {
            if b[i] == b'\\' {
                match b.get(i + 1)? {
                    b'n' => out.push('\n'),
                    b't' => out.push('\t'),
                    b'"' => out.push('"'),
                    b'\\' => out.push('\\'),
                    b'\n' => {}
                    other => {
                        out.push('\\');
                        out.push(*other as char);
                    }
                }
                i += 2;
            } else if b[i] == b'%' && b.get(i + 1) == Some(&b'%') {
                // `%%` is a `%` of the template (`%%laneid`).
                out.push('%');
                i += 2;
            } else {
                out.push(b[i] as char);
                i += 1;
            }
        }
        i += 1;
    }
    Some(out)
}

/// `s` split at `sep` outside parentheses, brackets, braces and quotes.
fn split_top(s: &str, sep: u8) -> Vec<&str> {
    let b = s.as_bytes();
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                i = skip_quoted(b, i);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            // Operand expressions are parenthesized: a `:` outside them
            // (`::` too) separates sections.
            c if c == sep && depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    parts.push(&s[start..]);
    parts
}

/// The index of the `)` closing the `(` at `open`.
fn matching_paren(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'"' | b'\'' => {
                i = skip_quoted(b, i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = skip_line_comment(b, i);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = skip_block_comment(b, i);
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while i < b.len()
        && (b[i].is_ascii_whitespace() || (b[i] == b'\\' && b.get(i + 1) == Some(&b'\n')))
    {
        i += 1;
    }
    i
}

/// Past the string or character literal starting at `i`.
fn skip_quoted(b: &[u8], i: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < b.len() && b[j] != q {
        if b[j] == b'\\' {
            j += 1;
        }
        j += 1;
    }
    (j + 1).min(b.len())
}

fn skip_line_comment(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        i += 1;
    }
    i
}

fn skip_block_comment(b: &[u8], i: usize) -> usize {
    let mut j = i + 2;
    while j + 1 < b.len() && !(b[j] == b'*' && b[j + 1] == b'/') {
        j += 1;
    }
    (j + 2).min(b.len())
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_parses_as_its_own_idiom() {
        for idiom in IDIOMS {
            // The form with registers numbered in order is that idiom.
            let mut n = 0;
            let (op, operands) = idiom.form.split_once(' ').unwrap_or((idiom.form, ""));
            let operands: String = operands
                .chars()
                .map(|c| match c {
                    '_' => {
                        n += 1;
                        format!("%{}", n - 1)
                    }
                    '#' => "0x96".to_string(),
                    c => c.to_string(),
                })
                .collect();
            let ins = format!("{op} {operands}");
            let preds = ["p".to_string()];
            let ins = ins.replace('?', "p");
            let (found, slots) = match_idiom(&ins, &preds).unwrap_or_else(|| panic!("{ins}"));
            assert_eq!(found.form, idiom.form);
            let (_, shapes) = idiom.form.split_once(' ').unwrap_or((idiom.form, ""));
            let regs = shapes.matches('_').count();
            let imms = shapes.matches('#').count();
            let others = shapes.matches('?').count() + shapes.matches("%laneid").count();
            assert_eq!(slots.len(), regs + imms + others, "{}", idiom.form);
            // The body names no slot the form lacks.
            let mut k = slots.len();
            while idiom.body.contains(&format!("${k}")) {
                k += 1;
            }
            assert_eq!(k, slots.len(), "{} names ${k}", idiom.form);
            assert!(!idiom.meaning.is_empty());
        }
        let mut forms: Vec<_> = IDIOMS.iter().map(|i| i.form).collect();
        forms.sort_unstable();
        forms.dedup();
        assert_eq!(forms.len(), IDIOMS.len(), "a form listed twice");
    }

    #[test]
    fn conversions_become_hip_code_with_the_same_operands() {
        let src = "__device__ unsigned short f(float f) {\n  union { unsigned int u32; unsigned short u16[2]; } tmp;\n  asm volatile(\"cvt.rn.f16.f32 %0, %1;\\n\" : \"=h\"(tmp.u16[0]) : \"f\"(f));\n  return tmp.u16[0];\n}\n";
        let t = translate(src);
        assert_eq!(t.translated, ["cvt.rn.f16.f32 _, _"]);
        assert!(t.untranslated.is_empty());
        assert!(
            t.text.contains("do { unsigned short hp_0; float hp_1 = (float)(f); hp_0 = __half_as_ushort(__float2half_rn(hp_1)); (tmp.u16[0]) = hp_0; } while (0);"),
            "{}",
            t.text
        );
        assert_eq!(t.text.lines().count(), src.lines().count());
    }

    #[test]
    fn an_operand_used_twice_is_evaluated_once() {
        let src = r#"asm volatile("mov.b32 %0, {%1, %1};" : "=r"(b) : "h"(next()));"#;
        let t = translate(src);
        assert_eq!(t.text.matches("next()").count(), 1, "{}", t.text);
        assert!(t.text.contains("hp_0 = (unsigned int)(unsigned short)hp_1 | ((unsigned int)(unsigned short)hp_1 << 16);"));
    }

    #[test]
    fn unpacking_writes_both_outputs() {
        let src = "asm volatile(\"mov.b32 {%0, %1}, %2;\\n\" : \"=h\"(lo), \"=h\"(hi) : \"r\"(v));";
        let t = translate(src);
        assert_eq!(t.translated, ["mov.b32 {_, _}, _"]);
        assert!(t.text.contains("(lo) = hp_0; (hi) = hp_1;"), "{}", t.text);
    }

    #[test]
    fn immediates_and_n_operands_are_written_in() {
        let t = translate(
            r#"asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(d) : "r"(a), "r"(b), "r"(c));"#,
        );
        assert!(
            t.text.contains("hiprs_ptx_lop3(hp_1, hp_2, hp_3, (0x96))"),
            "{}",
            t.text
        );
        let t = translate(
            r#"asm volatile("lop3.b32 %0, %1, %2, %3, %4;\n" : "=r"(res) : "r"(a), "r"(b), "r"(c), "n"(LUT));"#,
        );
        assert!(
            t.text.contains("hiprs_ptx_lop3(hp_1, hp_2, hp_3, (LUT))"),
            "{}",
            t.text
        );
        assert!(!t.text.contains("hp_4"));
    }

    #[test]
    fn read_write_and_tied_operands_start_from_their_expression() {
        let t = translate(r#"asm("fma.rn.f16x2 %0, %1, %2, %0;" : "+r"(acc) : "r"(a), "r"(b));"#);
        assert!(
            t.text.contains("unsigned int hp_0 = (unsigned int)(acc);"),
            "{}",
            t.text
        );
        assert!(t.text.contains("(acc) = hp_0;"));
        let t = translate(r#"asm("add.f16x2 %0, %1, %2;" : "=r"(d) : "0"(c), "r"(b));"#);
        assert!(
            t.text
                .contains("unsigned int hp_0; hp_0 = (unsigned int)(c);"),
            "{}",
            t.text
        );
        assert!(t.text.contains("hiprs_ptx_half2(hp_0)"), "{}", t.text);
    }

    #[test]
    fn untranslated_ptx_fails_naming_the_instruction() {
        let src = "void f() {\n  asm volatile(\"ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\\n\" : \"=r\"(a), \"=r\"(b) : \"r\"(s));\n}\n";
        let t = translate(src);
        assert_eq!(
            t.untranslated,
            ["ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2]"]
        );
        assert!(t.translated.is_empty());
        assert!(t.text.contains("__attribute__((error(\"hip-cuda-layer: inline PTX `ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2]` has no AMD translation\")))"), "{}", t.text);
        // One unknown instruction fails the whole statement.
        let t = translate(
            r#"asm("cvt.f32.f16 %0, %1; ld.global.nc.f32 %0, [%2];" : "=f"(x) : "h"(h), "l"(p));"#,
        );
        assert_eq!(t.untranslated, ["ld.global.nc.f32 %0, [%2]"]);
        assert!(t.translated.is_empty());
    }

    #[test]
    fn amd_assembly_comments_strings_and_barriers_are_left_alone() {
        let src = concat!(
            "asm volatile(\"v_cvt_f32_f16 %0, %1;\" : \"=v\"(f) : \"v\"(h));\n",
            "// asm(\"cvt.f32.f16 %0, %1;\" : \"=f\"(f) : \"h\"(h));\n",
            "/* asm(\"trap;\"); */ const char *s = \"asm(\\\"trap;\\\")\";\n",
            "asm volatile(\"\" ::: \"memory\");\n",
            "int plasma = 0; my_asm(1);\n",
        );
        let t = translate(src);
        assert_eq!(t.text, src);
        assert!(t.translated.is_empty() && t.untranslated.is_empty());
    }

    #[test]
    fn line_breaks_and_macro_continuations_are_kept() {
        let src = "#define CVT(h, f) \\\n  asm volatile(\"cvt.f32.f16 %0, %1;\" \\\n    : \"=f\"(f) : \"h\"(h))\nint x;\n";
        let t = translate(src);
        assert_eq!(t.translated, ["cvt.f32.f16 _, _"]);
        assert_eq!(t.text.lines().count(), src.lines().count(), "{}", t.text);
        // The macro still ends on its third line.
        let lines: Vec<&str> = t.text.lines().collect();
        assert!(
            lines[0].ends_with('\\') && lines[1].ends_with('\\') && !lines[2].ends_with('\\'),
            "{}",
            t.text
        );
        assert_eq!(lines[3], "int x;");
    }

    #[test]
    fn predicates_scopes_and_special_registers_translate() {
        let src = concat!(
            "asm volatile(\n",
            "      \"{\\n\"\n",
            "      \"   .reg .pred p;\\n\"\n",
            "      \"   setp.ne.b32 p, %0, 0;\\n\"\n",
            "      \"   @p cp.async.cg.shared.global [%1], [%2], %3;\\n\"\n",
            "      \"}\\n\" ::\"r\"((int)pred),\n",
            "      \"r\"(smem), \"l\"(glob_ptr), \"n\"(BYTES));\n",
        );
        let t = translate(src);
        assert_eq!(
            t.translated,
            [
                "setp.ne.b32 ?, _, #",
                "cp.async.cg.shared.global [_], [_], _"
            ]
        );
        assert!(t.text.contains("bool pr_p = false; pr_p = (unsigned int)hp_0 != (unsigned int)(0); if (pr_p) { hiprs_ptx_cp_async(hp_1, hp_2, (BYTES), (BYTES)); }"), "{}", t.text);
        assert_eq!(t.text.lines().count(), src.lines().count());
        let t = translate(r#"asm("mov.u32 %0, %%laneid;" : "=r"(lane_id));"#);
        assert!(t.text.contains("hp_0 = (__lane_id() & 31u);"), "{}", t.text);
        // A guard on a predicate the statement did not declare, or another
        // register kind, is not translated.
        let t = translate(r#"asm("@q cp.async.commit_group;");"#);
        assert_eq!(t.untranslated, ["@q cp.async.commit_group"]);
        let t = translate(r#"asm("{ .reg .b16 lo; mov.b32 {lo, %0}, %1; }" : "=h"(x) : "r"(y));"#);
        assert_eq!(t.untranslated, [".reg .b16 lo"]);
    }

    #[test]
    fn an_empty_brace_assignment_names_its_type() {
        let src = "for (;;) {\n#ifndef USE_ROCM\n      res2 = {};\n#endif\n  x = {1};\n  half2 y = {};\n  if (a == b) z={ } ;\n}\n";
        let t = translate(src);
        assert_eq!(t.cxx, ["res2 = {}"]);
        assert!(
            t.text.contains("      res2 = decltype(res2){};\n"),
            "{}",
            t.text
        );
        // Declarations, other initializers and non-statements stay.
        assert!(t
            .text
            .contains("  x = {1};\n  half2 y = {};\n  if (a == b) z={ } ;"));
        let t = translate("{ a = {}; } b = { };");
        assert_eq!(t.cxx, ["a = {}", "b = {}"]);
        assert_eq!(t.text, "{ a = decltype(a){}; } b = decltype(b){ };");
    }

    #[test]
    fn several_literals_and_scope_operators_parse() {
        let t = translate(
            "asm(\"mul.f16x2 %0, \"\n \"%1, %2;\" : \"=r\"(ns::out[i]) : \"r\"(a::b), \"r\"(c));",
        );
        assert_eq!(t.translated, ["mul.f16x2 _, _, _"]);
        assert!(t.text.contains("(ns::out[i]) = hp_0;"), "{}", t.text);
        assert!(t.text.contains("(unsigned int)(a::b)"));
    }
}
