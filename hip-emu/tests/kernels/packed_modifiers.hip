// gfx942 (CDNA 3): packed f32 with an inline constant and op_sel_hi,
// v_pk_mov_b32's op_sel, v_pk_fma_f32's neg_lo/neg_hi, and SDWA byte and
// word selects with sext: the forms clang gives candle's
// mmvq_gguf_q4_0_f32_plain_cuda8.
#include <hip/hip_runtime.h>
typedef float f2 __attribute__((ext_vector_type(2)));
extern "C" __global__ void packed_modifiers(const float *in, float *out, const int *ii, int *io) {
    f2 a = {in[0], in[1]}, b = {in[2], in[3]}, c = {in[4], in[5]};
    f2 r0, r1, r2, r3;
    asm volatile("v_pk_mul_f32 %0, %1, 4.0 op_sel_hi:[1,0]" : "=v"(r0) : "v"(a));
    asm volatile("v_pk_mov_b32 %0, %1, %2 op_sel:[1,0]" : "=v"(r1) : "v"(a), "v"(b));
    asm volatile("v_pk_fma_f32 %0, %1, %2, %3 neg_lo:[0,0,1] neg_hi:[0,0,1]" : "=v"(r2) : "v"(a), "v"(b), "v"(c));
    asm volatile("v_pk_fma_f32 %0, %1, %2, %3" : "=v"(r3) : "v"(a), "v"(b), "v"(c));
    out[0] = r0.x; out[1] = r0.y; out[2] = r1.x; out[3] = r1.y;
    out[4] = r2.x; out[5] = r2.y; out[6] = r3.x; out[7] = r3.y;
    int x = ii[0], y = ii[1], s0, s1, s2;
    asm volatile("v_mul_i32_i24_sdwa %0, sext(%1), %2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_1 src1_sel:WORD_1" : "=v"(s0) : "v"(x), "v"(y));
    asm volatile("v_mul_i32_i24_sdwa %0, %1, sext(%2) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_2" : "=v"(s1) : "v"(y), "v"(x));
    asm volatile("v_mul_i32_i24_sdwa %0, %1, %2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:WORD_1" : "=v"(s2) : "v"(y), "v"(x));
    io[0] = s0; io[1] = s1; io[2] = s2;
}
