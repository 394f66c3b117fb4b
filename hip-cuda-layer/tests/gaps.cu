// What the layer adds for mistral.rs's kernels (hiprs_cuda.h), as their
// CUDA code calls it: scripts/candle.sh amd compiles this for each target
// with -Wall -Werror, so a missing or ambiguous overload fails there.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void ldg_bf16(const __nv_bfloat16* a, const __nv_bfloat162* b, float* c) {
  const int i = threadIdx.x;
  const __nv_bfloat162 pair = __ldg(b + i);
  c[i] = __bfloat162float(__ldg(a + i)) + __bfloat162float(pair.x) + __bfloat162float(pair.y);
}

extern "C" __global__ void ldg_half(const __half* a, const __half2* b, float* c) {
  const int i = threadIdx.x;
  c[i] = __half2float(__ldg(a + i)) + __low2float(__ldg(b + i));
}

extern "C" __global__ void atomic_add_pairs(__half2* h, __nv_bfloat162* b, __half2 hv,
                                            __nv_bfloat162 bv) {
  atomicAdd(h, hv);
  atomicAdd(b, bv);
}

extern "C" __global__ void int_to_bf16(const unsigned* u, const int* s, const long long* l,
                                       __nv_bfloat16* c) {
  const int i = threadIdx.x;
  c[4 * i] = __uint2bfloat16_rn(u[i]);
  c[4 * i + 1] = __int2bfloat16_rn(s[i]);
  c[4 * i + 2] = __ll2bfloat16_rn(l[i]);
  c[4 * i + 3] = __ushort2bfloat16_rn((unsigned short)u[i]);
}
