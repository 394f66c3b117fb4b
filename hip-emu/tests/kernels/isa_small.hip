// Sub-dword data: halves (scalar and packed), bfloat16, bytes. On gfx942
// these compile to SDWA and packed (VOP3P) instructions, on gfx1100 to
// 16-bit VOP3 with op_sel.
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bf16.h>

extern "C" __global__ void halves(const __half2* a, const __half2* b, __half2* out, float* f, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 x = a[i], y = b[i];
    out[3 * i + 0] = __hadd2(x, y);
    out[3 * i + 1] = __hfma2(x, y, __float2half2_rn(0.25f));
    out[3 * i + 2] = __halves2half2(__hmul(__high2half(x), __low2half(y)), __hsub(__low2half(x), __high2half(y)));
    f[i] = __half2float(__high2half(x)) * __half2float(__low2half(y));
}

extern "C" __global__ void bytes_and_bf16(const unsigned* p, const __hip_bfloat16* h, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = p[i];
    unsigned char b1 = (v >> 8) & 0xff;
    signed char b3 = (signed char)(v >> 24);
    short w1 = (short)(v >> 16);
    out[4 * i + 0] = (float)b1;
    out[4 * i + 1] = (float)b3;
    out[4 * i + 2] = (float)w1;
    out[4 * i + 3] = __bfloat162float(h[i]) * 2.0f + 1.0f;
}

// Mixed precision: f16 operands widened into f32 fused multiply-adds
// (v_fma_mix_f32 on gfx942 and gfx1100, neg and abs modifiers included),
// and one narrowed back to f16 (v_fma_mixlo_f16).
extern "C" __global__ void mixed(const __half* h, const float* x, float* out, __half* hout, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a = fmaf(__half2float(h[2 * i]), x[i], __half2float(h[2 * i + 1]));
    float b = fmaf(-__half2float(h[2 * i + 1]), fabsf(x[i]), 0.5f);
    // Apart, so that the compiler does not pair them into one v_pk_fma_f32.
    out[i] = a;
    out[n + i] = b;
    hout[i] = __float2half(fmaf(__half2float(h[2 * i]), 3.0f, x[i]));
}

// Dot products of four 8-bit lanes, signed and unsigned.
extern "C" __global__ void dot4(const int* a, const int* b, int* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
#if defined(__gfx1100__)
    out[2 * i] = __builtin_amdgcn_sudot4(true, a[i], false, b[i], 7, false);
    out[2 * i + 1] = __builtin_amdgcn_sudot4(false, a[i], true, b[i], -7, false);
#else
    out[2 * i] = __builtin_amdgcn_sdot4(a[i], b[i], 7, false);
    out[2 * i + 1] = (int)__builtin_amdgcn_udot4((unsigned)a[i], (unsigned)b[i], 5u, false);
#endif
}

// Halves through LDS and d16 loads: pairs packed from two arrays in
// shared memory, read back crosswise, widened with fma_mix.
extern "C" __global__ void d16_halves(const __half* a, const __half* b, float* out, unsigned n) {
    __shared__ __half s[512];
    unsigned i = threadIdx.x;
    s[2 * i] = a[i];
    s[2 * i + 1] = b[i];
    __syncthreads();
    unsigned j = (i + 1) % n;
    __half x = s[2 * j + 1];
    __half y = s[2 * j];
    out[i] = __half2float(x) * 2.0f + __half2float(y);
}
