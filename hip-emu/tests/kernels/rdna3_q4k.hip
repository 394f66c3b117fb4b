// gfx1100 (RDNA 3): v_cvt_f32_ubyte{0,1,2,3} read a 32-bit source, so in
// their VOP1 (e32) encoding a VGPR numbered 128 or more is that VGPR, not
// the high half of VGPR n - 128 as for a true16 (16-bit) operand. clang
// gives candle's mul_mat_q<Q4_K> `v_cvt_f32_ubyte1_e32 v248, v192` when it
// runs short of registers. For contrast, v_cvt_f32_f16_e32 reads a 16-bit
// source, whose `.h` half is named by bit 7 of the register number.
#include <hip/hip_runtime.h>

extern "C" __global__ void rdna3_ubyte_high_vgprs(const unsigned *u, float *out) {
    unsigned x = u[threadIdx.x];
    float b0, b1, b2, b3, e1, lo1, hi16;
    asm volatile(
        "v_mov_b32 v192, %5\n"
        "v_cvt_f32_ubyte0_e32 v200, v192\n"
        "v_cvt_f32_ubyte1_e32 v201, v192\n"
        "v_cvt_f32_ubyte2_e32 v202, v192\n"
        "v_cvt_f32_ubyte3_e32 v203, v192\n"
        "v_cvt_f32_ubyte1_e64 v204, v192\n"
        "v_mov_b32 %0, v200\n"
        "v_mov_b32 %1, v201\n"
        "v_mov_b32 %2, v202\n"
        "v_mov_b32 %3, v203\n"
        "v_mov_b32 %4, v204\n"
        : "=v"(b0), "=v"(b1), "=v"(b2), "=v"(b3), "=v"(e1)
        : "v"(x)
        : "v192", "v200", "v201", "v202", "v203", "v204");
    // A low VGPR source, and a 16-bit source's high half.
    asm volatile("v_cvt_f32_ubyte1_e32 %0, %1" : "=v"(lo1) : "v"(x));
    asm volatile("v_cvt_f32_f16_e32 %0, %1.h" : "=v"(hi16) : "v"(x));
    float *o = out + 8 * threadIdx.x;
    o[0] = b0; o[1] = b1; o[2] = b2; o[3] = b3;
    o[4] = e1; o[5] = lo1; o[6] = hi16; o[7] = 0.0f;
}
