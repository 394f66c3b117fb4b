// Branches longer than 8192 words (32 KiB) each way: the ISA pseudocode's
// `signext(SIMM16.i16 * 16'4)`, read literally, wraps its 16-bit product,
// and such a branch lands 64 KiB off (found in candle's mul_mat_q
// kernels, whose loops span more than 32 KiB of code).
#include <hip/hip_runtime.h>

// out[0] = 1 + 100 + 10 = 111: a long branch forward, a long branch back,
// a long branch forward again. Each step adds its own amount, so a branch
// that lands anywhere else gives another sum (or no valid instruction).
extern "C" __global__ void long_branch(int *out) {
    int v;
    asm volatile(
        "s_mov_b32 %0, 1\n"
        "s_branch 1f\n"
        "2:\n"
        "s_add_u32 %0, %0, 10\n"
        "s_branch 3f\n"
        ".rept 9000\n"
        "s_add_u32 %0, %0, 1000\n"
        ".endr\n"
        "1:\n"
        "s_add_u32 %0, %0, 100\n"
        "s_cmp_eq_u32 %0, 101\n"
        "s_cbranch_scc1 2b\n"
        "3:\n"
        : "=s"(v)
        :
        : "scc");
    if (threadIdx.x == 0) {
        out[0] = v;
    }
}
