// gfx1100 (RDNA 3): the forms clang gives candle's mul_mat_q<Q4_K> and no
// other kernel checked before: v_fma_mix_f32 reading an f16 half under
// op_sel/op_sel_hi (with an inline-constant addend), ds_load_u16_d16,
// v_cvt_f32_ubyte1, v_mov_b16 on true16 halves, and a VOPD pair with an
// inline constant.
#include <hip/hip_runtime.h>

extern "C" __global__ void rdna3_mix(const float *f, const unsigned *u, float *out, unsigned *uo) {
    __shared__ unsigned short lds[64];
    lds[threadIdx.x] = (unsigned short)(u[2] + threadIdx.x);
    __syncthreads();
    float a = f[0], c = f[1], r0, r1, r2, r3, r4;
    unsigned b = u[0], m = u[1], d16 = 0xAAAABBBBu, mv = 0xCCCCDDDDu, dual;
    // a * (f16 high half of b) + 0
    asm volatile("v_fma_mix_f32 %0, %1, %2, 0 op_sel:[0,1,0] op_sel_hi:[0,1,0]" : "=v"(r0) : "v"(a), "v"(b));
    // a * (f16 low half of b) + c
    asm volatile("v_fma_mix_f32 %0, %1, %2, %3 op_sel_hi:[0,1,0]" : "=v"(r1) : "v"(a), "v"(b), "v"(c));
    // (f16 high half of b) * a + (f16 high half of m)
    asm volatile("v_fma_mix_f32 %0, %1, %2, %3 op_sel:[1,0,1] op_sel_hi:[1,0,1]" : "=v"(r2) : "v"(b), "v"(a), "v"(m));
    asm volatile("v_cvt_f32_ubyte1_e32 %0, %1" : "=v"(r3) : "v"(m));
    // The only LDS variable, so at LDS address 0.
    unsigned addr = (threadIdx.x ^ 1) * 2;
    asm volatile("ds_load_u16_d16 %0, %1 offset:0\n s_waitcnt lgkmcnt(0)" : "+v"(d16) : "v"(addr));
    asm volatile("v_mov_b16_e32 %0.l, %1.l" : "+v"(mv) : "v"(m));
    unsigned mv3 = 0xCCCCDDDDu, sh = 0xEEEE1111u;
    asm volatile("v_mov_b16_e64 %0.l, %1.l" : "+v"(mv3) : "v"(m));
    asm volatile("v_lshrrev_b16 %0.l, 8, %1.l" : "+v"(sh) : "v"(m));
    asm volatile("v_dual_mul_f32 %0, 0.5, %2 :: v_dual_mov_b32 %1, 4" : "=v"(r4), "=v"(dual) : "v"(a));
    if (threadIdx.x == 0) {
        out[0] = r0; out[1] = r1; out[2] = r2; out[3] = r3; out[4] = r4;
        uo[0] = d16; uo[1] = mv; uo[2] = dual;
        // A read the compiler sees, so that it keeps the LDS array.
        uo[3] = lds[5];
        uo[4] = mv3; uo[5] = sh;
    }
}

// VOP3SD carries through SGPRs: a carry-out into the SGPR that is also a
// source (`v_add_co_u32 v0, s17, v0, s17`), then a carry-in from an SGPR
// with the carry-out discarded (`v_add_co_ci_u32_e64 v, null, s, 0, s`),
// and an FMA with a negated addend.
extern "C" __global__ void rdna3_carry(const unsigned *u, unsigned *out, float *fo) {
    unsigned x = threadIdx.x, lo, hi, s = u[0], base = u[1];
    asm volatile("v_add_co_u32 %0, %1, %2, %1" : "=v"(lo), "+s"(s) : "v"(x));
    asm volatile("v_add_co_ci_u32_e64 %0, null, %1, 0, %2" : "=v"(hi) : "s"(base), "s"(s));
    float a = (float)threadIdx.x * 0.5f, r;
    asm volatile("v_fma_f32 %0, %1, %2, -%3" : "=v"(r) : "v"(a), "v"(a), "v"(a));
    out[threadIdx.x] = lo;
    out[32 + threadIdx.x] = hi;
    fo[threadIdx.x] = r;
    if (threadIdx.x == 0) {
        out[64] = s;
    }
}
